"""The HTML report of a balance sweep: tables of stats.py's estimates and matplotlib plots (PNG
files in the report's folder, next to index.html)."""

from __future__ import annotations

import html
import os
from pathlib import Path

import matplotlib

matplotlib.use("Agg")  # files only, no display
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from .. import CAUSES
from . import stats
from .stats import Estimate
from .sweep import read_sweep

LINEUP_NAMES = {"greedy": "all greedy", "mcts": "all MCTS", "mcts+greedy": "one MCTS among greedy"}


def _cells_text(frame: pd.DataFrame, percent: tuple[str, ...] = (), digits: int = 1) -> pd.DataFrame:
    """A table with its Estimates as "value [low, high]" text."""
    out = frame.copy()
    for col in out.columns:
        if len(out) and isinstance(out[col].iloc[0], Estimate):
            out[col] = [
                e.text(digits=3 if col in percent else digits, percent=col in percent) for e in out[col]
            ]
    if "fair" in out.columns:
        out["fair"] = [f"{100 * f:.0f}%" for f in out["fair"]]
    if "lineup" in out.columns:
        out["lineup"] = out["lineup"].map(LINEUP_NAMES)
    return out


def _errorbar_by_mix(
    ax: plt.Axes, frame: pd.DataFrame, column: str, label_of: str, scale: float = 1.0, fair: bool = False
) -> None:
    """One series per value of `label_of` (e.g. players): estimates with their 95% intervals over
    the mixes on the x axis, side by side. With `fair`, a dashed line in the series' colour at
    its fair share (1/players)."""
    mixes = list(dict.fromkeys(frame["mix"]))
    groups = list(dict.fromkeys(frame[label_of]))
    width = 0.8 / max(len(groups), 1)
    for i, g in enumerate(groups):
        part = frame[frame[label_of] == g].set_index("mix").reindex(mixes)
        x = np.arange(len(mixes)) + (i - (len(groups) - 1) / 2) * width
        values = [e.value * scale if isinstance(e, Estimate) else np.nan for e in part[column]]
        low = [(e.value - e.low) * scale if isinstance(e, Estimate) else np.nan for e in part[column]]
        high = [(e.high - e.value) * scale if isinstance(e, Estimate) else np.nan for e in part[column]]
        bars = ax.errorbar(x, values, yerr=[low, high], fmt="o", capsize=3, label=f"{g} {label_of}")
        if fair:
            ax.axhline(scale / int(g), color=bars.lines[0].get_color(), lw=0.8, ls="--")
    ax.set_xticks(np.arange(len(mixes)), mixes, rotation=30, ha="right")
    ax.set_xlim(-0.6, len(mixes) - 0.4)
    ax.grid(axis="y", alpha=0.3)


def _save(fig: plt.Figure, folder: Path, name: str) -> str:
    fig.tight_layout()
    fig.savefig(folder / name, dpi=110)
    plt.close(fig)
    return name


def _plot_first_player(edge: pd.DataFrame, folder: Path) -> str:
    lineups = list(dict.fromkeys(edge["lineup"]))
    fig, axes = plt.subplots(1, len(lineups), figsize=(6 * len(lineups), 4.2), squeeze=False, sharey=True)
    for ax, lineup in zip(axes[0], lineups, strict=True):
        part = edge[edge["lineup"] == lineup]
        _errorbar_by_mix(ax, part, "seat0_win", "players", scale=100, fair=True)
        ax.set_title(f"first player's win rate, {LINEUP_NAMES[lineup]}")
        ax.set_ylabel("seat 0 wins (%); dashed: a fair share")
        ax.legend(fontsize=8)
    return _save(fig, folder, "first_player.png")


def _plot_skill(skill: pd.DataFrame, folder: Path) -> str:
    fig, ax = plt.subplots(figsize=(8, 4.2))
    _errorbar_by_mix(ax, skill, "mcts_win", "players", scale=100, fair=True)
    ax.set_ylim(0, 100)
    ax.set_title("skill gradient: one MCTS bot among greedy bots")
    ax.set_ylabel("MCTS wins (%); dashed: a fair share")
    ax.legend(fontsize=8)
    return _save(fig, folder, "skill.png")


def _plot_causes(shares: pd.DataFrame, folder: Path) -> str:
    part = shares[(shares["lineup"] == "greedy")] if (shares["lineup"] == "greedy").any() else shares
    players = min(part["players"])
    part = part[part["players"] == players]
    mixes = list(dict.fromkeys(part["mix"]))
    table = part.assign(v=[e.value for e in part["share"]]).pivot(index="mix", columns="cause", values="v")
    table = table.reindex(index=mixes, columns=[c for c in CAUSES if c in table.columns]).fillna(0)
    fig, ax = plt.subplots(figsize=(9, 4.5))
    left = np.zeros(len(mixes))
    colors = plt.get_cmap("tab20")
    for i, cause in enumerate(table.columns):
        ax.barh(mixes, 100 * table[cause], left=left, label=cause, color=colors(i % 20))
        left += 100 * table[cause].to_numpy()
    ax.invert_yaxis()
    ax.set_xlim(0, 100)
    ax.set_xlabel("share of all points (%)")
    lineup = LINEUP_NAMES[part["lineup"].iloc[0]]
    ax.set_title(f"where the points come from ({players} players, {lineup})")
    ax.legend(ncol=1, fontsize=8, bbox_to_anchor=(1.01, 1), loc="upper left")
    return _save(fig, folder, "causes.png")


def _plot_scores(df: pd.DataFrame, folder: Path) -> str:
    players_list = sorted(set(df["players"]))
    fig, axes = plt.subplots(
        1, len(players_list), figsize=(5 * len(players_list), 4.2), squeeze=False, sharey=True
    )
    mixes = list(dict.fromkeys(df["mix"]))
    for ax, players in zip(axes[0], players_list, strict=True):
        part = df[(df["players"] == players) & (df["lineup"] == "greedy")]
        if part.empty:
            part = df[df["players"] == players]
        data = [part[part["mix"] == m]["score"].to_numpy() for m in mixes]
        ax.boxplot(data, showfliers=False)
        ax.set_xticks(np.arange(1, len(mixes) + 1), mixes, rotation=30, ha="right")
        ax.set_title(f"scores, {players} players")
        ax.grid(axis="y", alpha=0.3)
    axes[0][0].set_ylabel("final score per seat")
    return _save(fig, folder, "scores.png")


def _plot_length(games: pd.DataFrame, folder: Path) -> str:
    part = games[games["lineup"] == "greedy"] if (games["lineup"] == "greedy").any() else games
    fig, ax = plt.subplots(figsize=(8, 4))
    _errorbar_by_mix(ax, part, "turns", "players")
    ax.set_ylabel("turns per game")
    ax.set_title("game length")
    ax.legend(fontsize=8)
    return _save(fig, folder, "length.png")


def _plot_effects(effects: pd.DataFrame, folder: Path) -> str | None:
    part = effects[(effects["measure"] == "seat0_win") & (effects["lineup"] == "greedy")]
    if part.empty:
        return None
    fig, ax = plt.subplots(figsize=(8, 4))
    _errorbar_by_mix(ax, part, "effect", "players", scale=100)
    ax.axhline(0, color="grey", lw=0.8)
    ax.set_ylabel("change of seat 0's win rate (points of %)")
    ax.set_title("each mix against base: the first player's edge (all greedy)")
    ax.legend(fontsize=8)
    return _save(fig, folder, "effects.png")


def headline(df: pd.DataFrame) -> pd.DataFrame:
    """The README's table: per mix and player count, seat 0's win rate with identical greedy bots
    and its tiles less the other seats' mean, seat 0's win rate with identical MCTS bots, the
    MCTS bot's win rate among greedy bots, mean score and turns (greedy)."""
    edge = stats.first_player_edge(df)
    skill = stats.skill_table(df)
    games = stats.game_table(df)
    rows = []
    for (mix, players), _ in df.groupby(["mix", "players"], sort=False):

        def pick(
            frame: pd.DataFrame, column: str, lineup: str | None, m: str = mix, p: int = players
        ) -> object:
            sel = frame[(frame["mix"] == m) & (frame["players"] == p)]
            if lineup is not None and "lineup" in sel.columns:
                sel = sel[sel["lineup"] == lineup]
            return sel[column].iloc[0] if len(sel) else None

        def pct(e: object) -> str:
            return e.text(digits=3, percent=True) if isinstance(e, Estimate) else ""

        score, turns = pick(games, "score", "greedy"), pick(games, "turns", "greedy")
        extra = pick(edge, "seat0_extra_tiles", "greedy")
        rows.append(
            {
                "mix": mix,
                "players": players,
                "seat 0 wins, greedy": pct(pick(edge, "seat0_win", "greedy")),
                "seat 0's extra tiles": f"{extra.value:+.2f}" if isinstance(extra, Estimate) else "",
                "seat 0 wins, MCTS": pct(pick(edge, "seat0_win", "mcts")),
                "MCTS among greedy wins": pct(pick(skill, "mcts_win", None)),
                "score (greedy)": f"{score.value:.1f}" if isinstance(score, Estimate) else "",
                "turns": f"{turns.value:.0f}" if isinstance(turns, Estimate) else "",
            }
        )
    order = {m: i for i, m in enumerate(dict.fromkeys(df["mix"]))}
    return pd.DataFrame(rows).sort_values(
        ["players", "mix"], key=lambda s: s.map(order) if s.name == "mix" else s
    )


def write_report(sweep: str | os.PathLike[str], out: str | os.PathLike[str] | None = None) -> Path:
    """Writes index.html and its PNG plots into `out` (default: the sweep's name + "-report",
    beside it) and returns the page's path. `sweep`: a sweep folder or one parquet file."""
    df = read_sweep(sweep)
    folder = Path(out) if out is not None else Path(str(Path(sweep)).rstrip("/") + "-report")
    folder.mkdir(parents=True, exist_ok=True)
    edge = stats.first_player_edge(df)
    seats = stats.seat_table(df)
    skill = stats.skill_table(df)
    shares = stats.cause_shares(df)
    games = stats.game_table(df)
    figures = stats.figure_table(df)
    effects = stats.effects(df)

    sections: list[tuple[str, str, str | None, str]] = []  # title, text, image, table html

    def table(frame: pd.DataFrame, percent: tuple[str, ...] = ()) -> str:
        return _cells_text(frame, percent).to_html(index=False, border=0, classes="t")

    sections.append(
        (
            "Headline",
            "Seat 0 moves first. Win rates are win shares (a tie of k players gives each 1/k).",
            None,
            headline(df).to_html(index=False, border=0, classes="t"),
        )
    )
    sections.append(
        (
            "First-player advantage",
            "Seat 0's win rate with identical bots in every seat; the edge is seat 0's score less the "
            "mean score of the other seats; extra tiles are seat 0's tiles less the others' mean (when "
            "the bag's tiles do not divide evenly among the players, the first seats get one turn more).",
            _plot_first_player(edge, folder),
            table(edge, percent=("seat0_win",)),
        )
    )
    sections.append(("Every seat", "", None, table(seats, percent=("win",))))
    if not skill.empty:
        sections.append(
            (
                "Skill gradient",
                "The MCTS bot's win rate among greedy bots, over every seat; a steeper gradient means "
                "skill matters more in that mix.",
                _plot_skill(skill, folder),
                table(skill, percent=("mcts_win",)),
            )
        )
    causes = shares.assign(share=[e.text(digits=3, percent=True) for e in shares["share"]])
    causes = causes.pivot_table(
        index=["mix", "players", "lineup"], columns="cause", values="share", aggfunc="first"
    )
    causes = causes[[c for c in CAUSES if c in causes.columns]].fillna("").reset_index()
    causes["lineup"] = causes["lineup"].map(LINEUP_NAMES)
    sections.append(
        (
            "Points by cause",
            "The share of all points each cause gave (B-11 causes; city_mayor: cities won with a mayor; "
            "field_barn: farmer points a barn caused during the game).",
            _plot_causes(shares, folder),
            causes.to_html(index=False, border=0, classes="t"),
        )
    )
    score_q = games.assign(score_q=[f"{q[0]:.0f} / {q[1]:.0f} / {q[2]:.0f}" for q in games["score_q"]])
    sections.append(
        (
            "Scores and game length",
            "Scores per seat (box: quartiles, whiskers: 1.5 IQR; score_q: quartiles); turns and "
            "decisions per game.",
            _plot_scores(df, folder),
            table(score_q),
        )
    )
    sections.append(("Game length", "", _plot_length(games, folder), ""))
    if not figures.empty:
        sections.append(
            (
                "Figure usage and its value",
                "How often a seat placed at least one figure of the kind, and the win rate of seat-games "
                "that did less that of those that did not. Observational: a player who can place a barn "
                "may already be ahead.",
                None,
                table(figures, percent=("used", "win_used", "win_unused", "difference")),
            )
        )
    if not effects.empty:
        text = effects.copy()
        for col in ("base", "mix_value", "effect"):
            text[col] = [
                e.text(digits=3, percent=m in ("seat0_win", "mcts_win"))
                for e, m in zip(text[col], text["measure"], strict=True)
            ]
        text["lineup"] = text["lineup"].map(LINEUP_NAMES)
        sections.append(
            (
                "Each mix against base",
                "The difference to the base game at the same player count and line-up, with the 95% "
                "interval of the difference (independent bootstraps of the two mixes).",
                _plot_effects(effects, folder),
                text.to_html(index=False, border=0, classes="t"),
            )
        )

    deals = df.groupby(["lineup"])["deal"].nunique().to_dict()
    games_total = len(df[df["seat"] == 0])
    agents = ", ".join(sorted(set(df["agent"])))
    body = [
        "<h1>Balance of rule mixes</h1>",
        f"<p>{games_total} games ({len(df)} seat rows) from <code>{html.escape(str(sweep))}</code>; "
        f"deals per line-up: {html.escape(str(deals))}; agents: {html.escape(agents)}. "
        "Every deal is one deck played from every seat rotation; the intervals are 95% percentile "
        f"bootstraps over deals ({stats.REPLICATES} replicates), so they respect the pairing. With "
        "identical bots in every seat a deal's rotations differ only in the bots' random streams "
        "(tie-breaks, search), so they are close to repeats of one game: the intervals of those "
        "line-ups are about as wide as the number of deals alone allows.</p>",
    ]
    for title, text, image, table_html in sections:
        body.append(f"<h2>{html.escape(title)}</h2>")
        if text:
            body.append(f"<p>{html.escape(text)}</p>")
        if image:
            body.append(f'<img src="{image}" alt="{html.escape(title)}">')
        body.append(table_html)
    page = folder / "index.html"
    page.write_text(
        "<!doctype html><meta charset='utf-8'><title>Balance of rule mixes</title><style>"
        "body{font-family:sans-serif;max-width:1400px;margin:2em auto;padding:0 1em}"
        "table.t{border-collapse:collapse;font-size:13px;margin:1em 0}"
        "table.t td,table.t th{padding:2px 8px;border-bottom:1px solid #ddd;text-align:left}"
        "img{max-width:100%}</style>\n" + "\n".join(body) + "\n"
    )
    return page
