"""The HTML report of a balance sweep: tables of stats.py's estimates and matplotlib plots (PNG
files in the report's folder, next to index.html)."""

from __future__ import annotations

import html
import os
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from .. import CAUSES
from . import answers, by_strength, report_answers, stats
from .plots import (
    CAUSE_COLORS,
    _cells_text,
    _deals_label,
    _errorbar_by_mix,
    _lineup_name,
    _save,
)
from .replay import bots_summary
from .stats import Estimate
from .sweep import read_sweep, sweep_records, tiles_summary

PLOTS = (
    "first_player.png",
    "fairness.png",
    "skill.png",
    "causes.png",
    "scores.png",
    "length.png",
    "effects.png",
    *report_answers.PLOTS,
)
# The CSV files of the report's tables (without .csv), one per table, next to index.html.
TABLES = (
    "front_page",
    "answers_by_strength",
    "luck_by_gap",
    "headline",
    "first_player",
    "fairness",
    "seats",
    "skill",
    "causes",
    "scores",
    "figures",
    "effects",
    "compensation",
    "strength_edge",
    "luck_skill",
    "game_flow",
    "tile_value",
    "spread",
    "cause_points",
)


def _p_text(p: float) -> str:
    if np.isnan(p):
        return "n too small"
    return f"{p:.3f}" if p > 0.001 else "< 0.001"


def _plot_first_player(edge: pd.DataFrame, folder: Path) -> str:
    lineups = list(dict.fromkeys(edge["lineup"]))
    fig, axes = plt.subplots(1, len(lineups), figsize=(6 * len(lineups), 4.2), squeeze=False, sharey=True)
    for ax, lineup in zip(axes[0], lineups, strict=True):
        part = edge[edge["lineup"] == lineup]
        _errorbar_by_mix(ax, part, "seat0_win", "players", scale=100, fair=True)
        ax.set_title(f"first player's win rate, {_lineup_name(lineup)}")
        ax.set_ylabel("seat 0 wins (%); dashed: a fair share")
        ax.legend(fontsize=8)
    return _save(fig, folder, "first_player.png")


def _plot_fairness(fair: pd.DataFrame, folder: Path) -> str:
    lineups = list(dict.fromkeys(fair["lineup"]))
    fig, axes = plt.subplots(1, len(lineups), figsize=(6 * len(lineups), 4.2), squeeze=False, sharey=True)
    for ax, lineup in zip(axes[0], lineups, strict=True):
        _errorbar_by_mix(ax, fair[fair["lineup"] == lineup], "largest_gap", "players", scale=100)
        ax.axhline(0, color="grey", lw=0.8)
        ax.set_title(f"the seat farthest from a fair share, {_lineup_name(lineup)}")
        ax.set_ylabel("its distance from a fair share\n(points of %; 0: fair)")
        ax.legend(fontsize=8)
    return _save(fig, folder, "fairness.png")


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
    part = part[(part["players"] == players) & (part["lineup"] == part["lineup"].iloc[0])]
    mixes = list(dict.fromkeys(part["mix"]))
    table = part.assign(v=[e.value for e in part["share"]]).pivot(index="mix", columns="cause", values="v")
    table = table.reindex(index=mixes, columns=[c for c in CAUSES if c in table.columns]).fillna(0)
    fig, ax = plt.subplots(figsize=(9, 4.5))
    left = np.zeros(len(mixes))
    for cause in table.columns:
        ax.barh(mixes, 100 * table[cause], left=left, label=cause, color=CAUSE_COLORS[cause])
        left += 100 * table[cause].to_numpy()
    ax.invert_yaxis()
    ax.set_xlim(0, 100)
    ax.set_xlabel(f"share of all points (%); {_deals_label(part)} per mix")
    ax.set_title(f"where the points come from ({players} players, {_lineup_name(part['lineup'].iloc[0])})")
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
            part = df[(df["players"] == players) & (df["lineup"] == df["lineup"].iloc[0])]
        if part.empty:
            part = df[df["players"] == players]
        data = [part[part["mix"] == m]["score"].to_numpy() for m in mixes]
        ax.boxplot(data, showfliers=False)
        labels = [f"{m}\n{part[part['mix'] == m]['deal'].nunique()} deals" for m in mixes]
        ax.set_xticks(np.arange(1, len(mixes) + 1), labels, rotation=30, ha="right")
        ax.set_title(f"scores, {players} players, {_lineup_name(part['lineup'].iloc[0])}")
        ax.grid(axis="y", alpha=0.3)
    axes[0][0].set_ylabel("final score per seat")
    return _save(fig, folder, "scores.png")


def _plot_length(games: pd.DataFrame, folder: Path) -> str:
    lineup = "greedy" if (games["lineup"] == "greedy").any() else games["lineup"].iloc[0]
    part = games[games["lineup"] == lineup]
    fig, ax = plt.subplots(figsize=(8, 4))
    _errorbar_by_mix(ax, part, "turns", "players")
    ax.set_ylabel("turns per game")
    ax.set_title(f"game length, {_lineup_name(lineup)}")
    ax.legend(fontsize=8)
    return _save(fig, folder, "length.png")


def _plot_effects(effects: pd.DataFrame, folder: Path) -> str | None:
    """The change of seat 0's distance from a fair share, mix less base: below zero the mix is
    fairer to the seats than base."""
    part = effects[effects["measure"] == "seat0_unfair"]
    if part.empty:
        return None
    lineup = "greedy" if (part["lineup"] == "greedy").any() else part["lineup"].iloc[0]
    part = part[part["lineup"] == lineup]
    fig, ax = plt.subplots(figsize=(8, 4.2))
    _errorbar_by_mix(ax, part, "effect", "players", scale=100, sizes="mix_deals")
    ax.axhline(0, color="grey", lw=0.8)
    ax.set_ylabel("seat 0's distance from a fair share,\nmix less base (points of %)")
    ax.set_title(f"each mix against base: below 0 is fairer than base ({_lineup_name(lineup)})")
    ax.legend(fontsize=8)
    return _save(fig, folder, "effects.png")


def headline(df: pd.DataFrame) -> pd.DataFrame:
    """The README's table: per mix and player count, seat 0's win rate with identical greedy bots
    and its tiles less the other seats' mean, seat 0's win rate with identical MCTS bots, the
    MCTS bot's win rate among greedy bots, mean score and turns (greedy); each rate with the
    deals it is over. Empty cells: the sweep has no such line-up."""
    edge = stats.first_player_edge(df)
    skill = stats.skill_table(df)
    games = stats.game_table(df)
    rows = []
    for (mix, players), _ in df.groupby(["mix", "players"], sort=False):

        def pick(
            frame: pd.DataFrame, column: str, lineup: str | None, m: str = mix, p: int = players
        ) -> object:
            sel = frame[(frame["mix"] == m) & (frame["players"] == p)]
            if lineup is not None:
                sel = sel[sel["lineup"] == lineup]
            return sel[column].iloc[0] if len(sel) else None

        def pct(e: object) -> str:
            return f"{e.text(digits=3, percent=True)} ({e.deals} deals)" if isinstance(e, Estimate) else ""

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


def table_html(shown: pd.DataFrame) -> str:
    """A table of text as HTML, each line of a cell on a line of its own (<br>)."""
    cells = shown.map(lambda text: html.escape(text).replace("\n", "<br>"))
    cells.columns = [html.escape(str(c)) for c in shown.columns]
    return cells.to_html(index=False, border=0, classes="t", escape=False)


def _table(name: str, frame: pd.DataFrame, folder: Path) -> str:
    """A table's HTML, its CSV file written beside the page from the same text."""
    if name not in TABLES:
        raise ValueError(f"table '{name}' is not in TABLES (a later report would not remove it)")
    shown = frame.fillna("").astype(str)
    shown.to_csv(folder / f"{name}.csv", index=False)
    return table_html(shown) + f'<p><a href="{name}.csv">{name}.csv</a></p>'


def _front_page(front: pd.DataFrame, bots: str, folder: Path) -> list[str]:
    """The answers at a glance: per mix and player count the first-seat edge, the favoured seat
    and compensation, and the mix against base for each bot strength (named by its bot in
    `bots`), the answers that flip with strength named first."""
    flipped = [
        f"{r['mix']}, {r['players']} players: {r['flips with strength']}"
        for _, r in front.iterrows()
        if r["flips with strength"]
    ]
    flags = (
        "<p><b>Answers that flip with bot strength</b> (one strength's 95% interval above 0, "
        "another's below): " + html.escape("; ".join(flipped)) + ".</p>"
        if flipped
        else "<p>No answer flips with bot strength in this sweep (see 'differs' for those that change).</p>"
    )
    return [
        "<h2>Answers at a glance</h2>",
        "<p>Per mix and player count, for each line-up of identical bots (a bot strength, weakest "
        "first), with 95% intervals: the first-seat edge (edge: seat 0's win rate less a fair "
        "share, in points of win share), the favoured seat (it starts at 0) and the starting points "
        "that make the other seats win as often, and for a mix other than base the change of seat "
        "0's distance from a fair share against base (vs base: negative is fairer, paired by deal). "
        "'flips' and 'differs' name the answers whose verdict across strengths is so; the mix's "
        "luck is claimed only when it holds at every skill gap. The rules are in 'Answers by bot "
        "strength'; every other section is folded below.</p>",
        f"<p>{html.escape(bots)}</p>",
        flags,
        _table("front_page", front, folder),
    ]


def write_report(sweep: str | os.PathLike[str], out: str | os.PathLike[str] | None = None) -> Path:
    """Writes index.html and its PNG plots into `out` (default: the sweep's name + "-report",
    beside it) and returns the page's path. `sweep`: a sweep folder or one parquet file, of any
    mixes and line-ups: a section the sweep has no games for says what it would need."""
    df = read_sweep(sweep)
    folder = Path(out) if out is not None else Path(str(Path(sweep)).rstrip("/") + "-report")
    folder.mkdir(parents=True, exist_ok=True)
    for name in PLOTS:  # an earlier report's plots that this sweep may not have
        (folder / name).unlink(missing_ok=True)
    edge = stats.first_player_edge(df)
    seats = stats.seat_table(df)
    skill = stats.skill_table(df)
    shares = stats.cause_shares(df)
    games = stats.game_table(df)
    figures = stats.figure_table(df)
    effects = stats.effects(df)
    fair = stats.fairness(df)
    equal_missing = report_answers.EQUAL_MISSING

    sections: list[report_answers.Section] = []

    def table(name: str, frame: pd.DataFrame, percent: tuple[str, ...] = ()) -> list[report_answers.Table]:
        return [(name, _cells_text(frame, percent))]

    sections.append(
        (
            "Headline",
            "Seat 0 moves first. Win rates are win shares (a tie of k players gives each 1/k), with "
            "the deals each is over; an empty cell: the sweep has no such line-up.",
            None,
            [("headline", headline(df))],
        )
    )
    if edge.empty:
        sections.append(("First-player advantage", equal_missing, None, []))
    else:
        sections.append(
            (
                "First-player advantage",
                "Seat 0's win rate with identical bots in every seat; the edge is seat 0's score less "
                "the mean score of the other seats; extra tiles are seat 0's tiles less the others' mean "
                "(when the bag's tiles do not divide evenly among the players, the first seats get one "
                "turn more).",
                _plot_first_player(edge, folder),
                table("first_player", edge, percent=("seat0_win",)),
            )
        )
    if fair.empty:
        sections.append(("Fairness", equal_missing, None, []))
    else:
        # The smallest p-value 1000 permutations can give is 1/1001: say "< 0.001", not 0.001.
        shown = fair.assign(
            farthest_seat=[
                f"seat {s} {100 * g:+.1f}"
                for s, g in zip(fair["farthest_seat"], fair["seat_gap"], strict=True)
            ],
            p_equal_seats=[_p_text(p) for p in fair["p_equal_seats"]],
        ).drop(columns="seat_gap")
        sections.append(
            (
                "Fairness",
                "Per mix and player count, the seat whose win rate is farthest from a fair share "
                "(1/players) and its signed distance in points of win share (+: it wins more than a "
                "fair share; with 2 players the favoured seat); the largest gap, that distance "
                "unsigned, with a 95% interval that holds every seat's win rate at once (it is above 0 "
                "even in a fair game, by chance); and p_equal_seats: the p-value of a permutation test "
                "that every seat wins as often, the seats of each deal exchanged together (small: the "
                f"seats differ; none from fewer than {stats.MIN_DEALS} deals). Whether a mix is fairer "
                "than base: largest_gap in 'Each mix against base'.",
                _plot_fairness(fair, folder),
                table("fairness", shown, percent=("largest_gap",)),
            )
        )
    sections.append(
        ("Every seat", "" if len(seats) else equal_missing, None, table("seats", seats, percent=("win",)))
    )
    if skill.empty:
        sections.append(
            ("Skill gradient", "Needs the mcts+greedy line-up (one MCTS among greedy bots).", None, [])
        )
    else:
        sections.append(
            (
                "Skill gradient",
                "The MCTS bot's win rate among greedy bots, over every seat; a steeper gradient means "
                "skill matters more in that mix.",
                _plot_skill(skill, folder),
                table("skill", skill, percent=("mcts_win",)),
            )
        )
    if shares.empty:
        sections.append(("Points by cause", "No points were scored.", None, []))
    else:
        causes = shares.assign(share=[e.text(digits=3, percent=True) for e in shares["share"]])
        causes = causes.pivot_table(
            index=[*stats.CELL, "deals", "games"],
            columns="cause",
            values="share",
            aggfunc="first",
            sort=False,
        )
        causes = causes[[c for c in CAUSES if c in causes.columns]].fillna("").reset_index()
        causes.columns.name = None  # else the header row shows an empty "cause" column
        causes["lineup"] = causes["lineup"].map(_lineup_name)
        sections.append(
            (
                "Points by cause",
                "The share of all points each cause gave (B-11 causes; city_mayor: cities won with a mayor; "
                "field_barn: farmer points a barn caused during the game). Each cause keeps its colour "
                "in every report.",
                _plot_causes(shares, folder),
                [("causes", causes)],
            )
        )
    score_q = games.assign(score_q=[f"{q[0]:.0f} / {q[1]:.0f} / {q[2]:.0f}" for q in games["score_q"]])
    sections.append(
        (
            "Scores and game length",
            "Scores per seat (box: quartiles, whiskers: 1.5 IQR; score_q: quartiles); turns and "
            "decisions per game.",
            _plot_scores(df, folder),
            table("scores", score_q),
        )
    )
    sections.append(("Game length", "", _plot_length(games, folder), []))
    if figures.empty:
        sections.append(
            (
                "Figure usage and its value",
                "No mayor, wagon or barn was placed in a line-up of identical bots (they come with "
                "abbey-mayor).",
                None,
                [],
            )
        )
    else:
        shown = figures.assign(
            used_games=[e.n for e in figures["win_used"]], unused_games=[e.n for e in figures["win_unused"]]
        )
        sections.append(
            (
                "Figure usage and its value",
                "How often a seat placed at least one figure of the kind, and the win rate of seat-games "
                "that did less that of those that did not (used_games, unused_games: seat-games in each "
                "group; the difference resampled paired by deal). Observational: a player who can place "
                "a barn may already be ahead.",
                None,
                table("figures", shown, percent=("used", "win_used", "win_unused", "difference")),
            )
        )
    if effects.empty:
        sections.append(
            (
                "Each mix against base",
                "Needs the mix 'base' and another mix at the same player count and line-up.",
                None,
                [],
            )
        )
    else:
        text = effects.copy()
        for col in ("base", "mix_value", "effect"):
            text[col] = [
                e.text(digits=3, percent=m in ("seat0_win", "seat0_unfair", "largest_gap", "mcts_win"))
                for e, m in zip(text[col], text["measure"], strict=True)
            ]
        text["lineup"] = text["lineup"].map(_lineup_name)
        sections.append(
            (
                "Each mix against base",
                "The difference to the base game at the same player count and line-up, with the 95% "
                "interval of the difference, resampled paired by deal number. seat0_unfair is seat 0's "
                "distance from a fair share (|win rate - 1/players|): a negative effect is a fairer mix.",
                _plot_effects(effects, folder),
                [("effects", text)],
            )
        )

    compensation = answers.compensation(df)
    sections += report_answers.sections(df, folder, compensation)
    long = by_strength.answers_by_strength(df, compensation)
    wide = by_strength.strength_table(df, long)
    luck = by_strength.luck_table(df, by_strength.luck_by_gap(df))
    sections.insert(0, report_answers.strength_answers(df, long, wide, luck))
    front = by_strength.front_page(df, long, wide, luck)

    deals = ", ".join(
        f"{_lineup_name(k)} {v}" for k, v in df.groupby("lineup")["deal"].nunique().to_dict().items()
    )
    games_total = len(df[df["seat"] == 0])
    agents = ", ".join(sorted(set(df["agent"])))
    body = [
        "<h1>Balance of rule mixes</h1>",
        f"<p>{games_total} games ({len(df)} seat rows) from <code>{html.escape(str(sweep))}</code>; "
        f"deals per line-up: {html.escape(deals)}; agents: {html.escape(agents)}. "
        "Every deal is one deck played from every seat rotation; the intervals are 95% percentile "
        f"bootstraps over deals ({stats.REPLICATES} replicates; the largest gap's: a band over "
        "every seat, see Fairness), so they respect the pairing, and every difference is resampled "
        "paired by deal. Group sizes are given beside each figure; an estimate from fewer than "
        f"{stats.MIN_DEALS} deals shows no interval or p-value (n too small), and one fixed by "
        "construction none (by construction).</p>",
    ]
    records = sweep_records(sweep)
    for note in (tiles_summary(records), bots_summary(records)):
        if note:
            body.append(f"<p>{html.escape(note)}</p>")
    for name in TABLES:  # an earlier report's tables that this sweep may not have
        (folder / f"{name}.csv").unlink(missing_ok=True)
    body += _front_page(front, by_strength.strength_bots(df, records), folder)
    for title, text_, image, tables in sections:
        body.append(f"<details><summary><h2>{html.escape(title)}</h2></summary>")
        if text_:
            body.append(f"<p>{html.escape(text_)}</p>")
        if image:
            body.append(f'<img src="{image}" alt="{html.escape(title)}">')
        body += [_table(name, frame, folder) for name, frame in tables]
        body.append("</details>")
    page = folder / "index.html"
    page.write_text(
        "<!doctype html><meta charset='utf-8'><title>Balance of rule mixes</title><style>"
        "body{font-family:sans-serif;max-width:1400px;margin:2em auto;padding:0 1em}"
        "table.t{border-collapse:collapse;font-size:13px;margin:1em 0}"
        "table.t td,table.t th{padding:2px 8px;border-bottom:1px solid #ddd;text-align:left;"
        "vertical-align:top}"
        "img{max-width:100%}summary h2{display:inline}details{margin:1em 0}</style>\n"
        + "\n".join(body)
        + "\n"
    )
    return page
