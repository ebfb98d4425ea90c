"""The designer's answers of the balance report (answers.py's estimates): one section each, a
title, what it answers and how to read it, its plot and its table."""

from __future__ import annotations

from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from .. import CAUSES
from . import answers, by_strength
from .plots import CAUSE_COLORS, _cells_text, _deals_label, _errorbar_by_mix, _lineup_name, _save
from .stats import CELL, Estimate

Table = tuple[str, pd.DataFrame]  # its CSV file's name (without .csv), the table as shown
Section = tuple[str, str, str | None, list[Table]]  # title, text, image, tables
PLOTS = (
    "compensation.png",
    "strength_edge.png",
    "luck_skill.png",
    "game_flow.png",
    "tile_value.png",
    "spread.png",
    "cause_points.png",
)
EQUAL_MISSING = "This sweep has no line-up of identical bots (greedy, mcts, mcts@N, rollout or rollout@N)."
GAP_MISSING = "Needs a line-up of one bot among others (e.g. mcts+greedy, mcts@400+greedy)."
TURNS_MISSING = "This sweep's rows have no per-turn standings (a sweep of an older version): play it again."


def _one_lineup(frame: pd.DataFrame) -> tuple[pd.DataFrame, str]:
    """The rows of the greedy line-up if there are some, else of the first line-up: a plot shows
    one line-up (the table has them all)."""
    lineup = "greedy" if (frame["lineup"] == "greedy").any() else str(frame["lineup"].iloc[0])
    return frame[frame["lineup"] == lineup], lineup


def _panels(count: int, width: float = 5.5, height: float = 4.2) -> tuple[plt.Figure, np.ndarray]:
    fig, axes = plt.subplots(1, count, figsize=(width * count, height), squeeze=False, sharey=True)
    return fig, axes[0]


def compensation(df: pd.DataFrame, folder: Path, table: pd.DataFrame | None = None) -> Section:
    """`table`: answers.compensation(df) if already computed (it solves per bootstrap replicate)."""
    title = "Compensation"
    table = answers.compensation(df) if table is None else table
    if table.empty:
        return title, EQUAL_MISSING, None, []
    part, lineup = _one_lineup(table)
    players_list = sorted(set(part["players"]))
    fig, axes = _panels(len(players_list), height=5.2)
    for ax, players in zip(axes, players_list, strict=True):
        cell = part[part["players"] == players]
        cell = cell.assign(by_seat=["seat " + str(s) for s in cell["seat"]])
        _errorbar_by_mix(ax, cell.rename(columns={"by_seat": ""}), "start_points", "")
        ax.set_title(f"{players} players, {_lineup_name(lineup)}")
        # Below the axes: the points fill the plot from 0 up.
        ax.legend(fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.28), ncol=2)
    axes[0].set_ylabel("starting points that make the seats equal")
    image = _save(fig, folder, "compensation.png")
    shown = _cells_text(table, percent=("win",))
    wide = shown.pivot_table(
        index=[*CELL, "deals", "games"], columns="seat", values="start_points", aggfunc="first", sort=False
    )
    wide.columns = [f"seat {s}" for s in wide.columns]
    text = (
        "The points each seat would start with so that every seat wins as often (the most favoured "
        "seat starts at 0), found from the final scores of the cell's games and bootstrapped over "
        "deals. Read a row as a house rule: each seat starts the game with its points. A seat "
        "whose interval reaches 0 may need nothing. The win rates without the points are in "
        "'Every seat'."
    )
    return title, text, image, [("compensation", wide.fillna("").reset_index())]


def _bot_name(lineup: str, budget: int) -> str:
    if lineup == "greedy":
        return "greedy"
    return f"{'rollout' if lineup.startswith('rollout') else 'MCTS'} {budget}"


def strength_vs_edge(df: pd.DataFrame, folder: Path) -> Section:
    title = "Bot strength and the first-player edge"
    table = answers.strength_vs_edge(df)
    if table.empty:
        return title, EQUAL_MISSING, None, []
    players_list = sorted(set(table["players"]))
    bots = table.drop_duplicates(["lineup"])  # weakest first (answers.strength_rank)
    names = list(dict.fromkeys(_bot_name(r.lineup, r.budget) for r in bots.itertuples()))
    fig, axes = _panels(len(players_list))
    for ax, players in zip(axes, players_list, strict=True):
        part = table[table["players"] == players]
        mixes = list(dict.fromkeys(part["mix"]))
        for i, mix in enumerate(mixes):
            m = part[part["mix"] == mix]
            x = np.array([names.index(_bot_name(r.lineup, r.budget)) for r in m.itertuples()], float)
            x += (i - (len(mixes) - 1) / 2) * 0.06
            e = list(m["seat0_win"])
            v = np.array([100 * q.value for q in e])
            err = [
                [max(0.0, 100 * (q.value - q.low)) for q in e],
                [max(0.0, 100 * (q.high - q.value)) for q in e],
            ]
            ax.errorbar(x, v, yerr=err, fmt="o-", capsize=3, label=f"{mix} ({_deals_label(m)})")
        ax.axhline(100 / players, color="grey", lw=0.8, ls="--")
        ax.set_xticks(np.arange(len(names)), names)
        ax.set_title(f"{players} players: seat 0's win rate as the bots get stronger")
        ax.grid(axis="y", alpha=0.3)
        ax.legend(fontsize=7)
    axes[0].set_ylabel("seat 0 wins (%); dashed: a fair share")
    image = _save(fig, folder, "strength_edge.png")
    shown = _cells_text(table, percent=("seat0_win", "change_from_greedy"))
    shown["change_from_greedy"] = [
        e.text(percent=True) if isinstance(e, Estimate) else "" for e in table["change_from_greedy"]
    ]
    text = (
        "Seat 0's win rate with identical bots in every seat, from greedy to MCTS at rising budgets "
        "(iterations a move; each line-up plays the same decks, so the change from greedy is paired "
        "by deal). A line that stays away from the fair share as the bots get stronger is an edge "
        "of the rules; one that falls toward it was the weaker bot's artefact. Add budgets with "
        "line-ups mcts@N (e.g. --deals greedy=200,mcts@50=40,mcts=40,mcts@400=40), and the search "
        "without networks with rollout@N (rollout N on the axis; MCTS N values its leaves with a "
        "network where one ships)."
    )
    return title, text, image, [("strength_edge", shown)]


def luck_and_skill(df: pd.DataFrame, folder: Path) -> Section:
    title = "Luck and skill"
    table = answers.luck_and_skill(df)
    if table.empty:
        return title, GAP_MISSING, None, []
    # One series per player count and gap ("" as the label column: the legend shows the series).
    series = table.assign(
        **{"": [f"{p} players, {g}" for p, g in zip(table["players"], table["lineup"], strict=True)]}
    )
    fig, axes = plt.subplots(1, 2, figsize=(12, 4.2), squeeze=False)
    _errorbar_by_mix(axes[0][0], series, "upset", "", scale=100)
    axes[0][0].set_ylabel("the weaker bot wins its pair (%)")
    axes[0][0].set_ylim(bottom=0)
    axes[0][0].set_title("how often the weaker bot wins")
    _errorbar_by_mix(axes[0][1], series, "elo_gap", "")
    axes[0][1].axhline(0, color="grey", lw=0.8)
    axes[0][1].set_ylabel("Elo gap, the lone bot less the others")
    axes[0][1].set_title("the skill gap the mix shows")
    for ax in axes[0]:
        ax.legend(fontsize=7)
    image = _save(fig, folder, "luck_skill.png")
    text = (
        "Per skill gap (a line-up A+B: one bot A among bots B, e.g. mcts+greedy), the lone bot "
        "compared pair by pair with each other bot of its game (a higher final score wins the pair; "
        "pairs: games x other bots; pair_win: the lone bot's). upset: how often the weaker bot won "
        "its pair; the Elo gap follows from the stronger bot's pair win rate. Between two mixes, the "
        "one where the same two bots show a larger gap and fewer upsets rewards skill more; many "
        "upsets mean the deck decides more of the game. Whether that holds at every gap: 'Answers "
        "by bot strength'."
    )
    return title, text, image, [("luck_skill", _cells_text(table, percent=("pair_win", "upset")))]


def game_flow(df: pd.DataFrame, folder: Path) -> Section:
    title = "Game flow"
    if not answers.has_turns(df):
        return title, TURNS_MISSING, None, []
    table = answers.game_flow(df)
    curve, lineup = _one_lineup(answers.leader_wins_curve(df))
    players_list = sorted(set(curve["players"]))
    fig, axes = _panels(len(players_list))
    for ax, players in zip(axes, players_list, strict=True):
        part = curve[curve["players"] == players]
        for mix in dict.fromkeys(part["mix"]):
            m = part[part["mix"] == mix]
            e = list(m["leader_wins"])
            v = np.array([100 * q.value for q in e])
            ax.plot(100 * m["fraction"], v, "o-", ms=3, label=f"{mix} ({_deals_label(m)})")
            ax.fill_between(
                100 * m["fraction"], [100 * q.low for q in e], [100 * q.high for q in e], alpha=0.12
            )
        ax.axhline(100 / players, color="grey", lw=0.8, ls="--")
        ax.set_xlabel("share of the game's turns played (%)")
        ax.set_title(f"{players} players, {_lineup_name(lineup)}")
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7)
    axes[0].set_ylabel("the leader at that point wins (%)\ndashed: a random seat")
    image = _save(fig, folder, "game_flow.png")
    text = (
        "From every seat's standing after each turn (the score it would have if the game ended "
        "there). lead_changes: times per game a new seat takes the lead alone; decided_at: the share "
        "of the game after which the final winner leads to the end (0.9: the winner took the lead for "
        "good in the last tenth); comeback: games whose winner was behind at half time; deficit: the "
        "winner's largest gap to the leader (points). The plot: how often the leader after a share "
        "of the turns wins (shaded: 95% intervals); a curve that climbs late is a game that stays "
        "open."
    )
    return title, text, image, [("game_flow", _cells_text(table, percent=("comeback",), digits=2))]


def tile_value(df: pd.DataFrame, folder: Path) -> Section:
    title = "Tile value"
    if not answers.has_turns(df):
        return title, TURNS_MISSING, None, []
    table = answers.tile_value(df)
    if table.empty:
        return title, EQUAL_MISSING, None, []
    part, lineup = _one_lineup(table)
    mix, players = str(part["mix"].iloc[0]), int(part["players"].min())
    cell = part[(part["mix"] == mix) & (part["players"] == players)].copy()
    cell = cell.assign(v=[e.value for e in cell["gain"]]).sort_values("v")
    fig, ax = plt.subplots(figsize=(8, max(3.0, 0.22 * len(cell) + 1)))
    e = list(cell["gain"])
    ax.errorbar(
        [q.value for q in e],
        np.arange(len(cell)),
        xerr=[[max(0.0, q.value - q.low) for q in e], [max(0.0, q.high - q.value) for q in e]],
        fmt="o",
        capsize=2,
    )
    ax.set_yticks(
        np.arange(len(cell)), [f"{k} ({n} turns)" for k, n in zip(cell["kind"], cell["turns"], strict=True)]
    )
    ax.set_xlabel("points the drawer gains in its turn")
    ax.set_title(f"what drawing a tile is worth: {mix}, {players} players, {_lineup_name(lineup)}")
    ax.grid(axis="x", alpha=0.3)
    image = _save(fig, folder, "tile_value.png")
    shown = _cells_text(part)
    wide = shown.pivot_table(
        index=["mix", "kind"], columns="players", values="gain", aggfunc="first", sort=False
    )
    wide.columns = [f"{p} players" for p in wide.columns]
    text = (
        "The points a seat gains over the turn in which it places a tile of a kind (its standing "
        "after the turn less before: what it completed, started or grew), per tile kind with the "
        "turns counted, for "
        f"{_lineup_name(lineup)} bots. gain_over_others in the data subtracts what the other seats "
        "gained in the same turn. The plot shows one mix; the table every mix of that line-up."
    )
    return title, text, image, [("tile_value", wide.fillna("").reset_index())]


def spread(df: pd.DataFrame, folder: Path) -> Section:
    title = "Score and margin spread"
    table = answers.spread(df)
    part, lineup = _one_lineup(table)
    fig, axes = plt.subplots(1, 2, figsize=(12, 4.2), squeeze=False)
    _errorbar_by_mix(axes[0][0], part, "score_sd", "players")
    axes[0][0].set_ylabel("spread of the final scores (SD, points)")
    _errorbar_by_mix(axes[0][1], part, "winning_lead", "players")
    axes[0][1].set_ylabel("the winner's lead over the runner-up (points)")
    for ax in axes[0]:
        ax.set_title(_lineup_name(lineup))
        ax.set_ylim(bottom=0)
        ax.legend(fontsize=7)
    image = _save(fig, folder, "spread.png")
    text = (
        "score_sd: the standard deviation of the final scores over seat-games; winning_lead: the "
        "winner's points over the runner-up (mean and SD); close_games: games won by 5 points or "
        "fewer. A mix with a bigger spread and leads decides its games by more."
    )
    return title, text, image, [("spread", _cells_text(table, percent=("close_games",)))]


def cause_points(df: pd.DataFrame, folder: Path) -> Section:
    title = "Points by cause and seat"
    table = answers.cause_points(df)
    if table.empty:
        return title, EQUAL_MISSING, None, []
    part, lineup = _one_lineup(table)
    players = int(part["players"].min())
    part = part[(part["players"] == players) & (part["seat"] >= 0)]
    mixes = list(dict.fromkeys(part["mix"]))
    labels = [f"{m} · seat {s}" for m in mixes for s in range(players)]
    fig, ax = plt.subplots(figsize=(9, 0.28 * len(labels) + 1.5))
    left = np.zeros(len(labels))
    for cause in [c for c in CAUSES if c in set(part["cause"])]:
        values = np.zeros(len(labels))
        for r in part[part["cause"] == cause].itertuples():
            values[mixes.index(r.mix) * players + r.seat] = r.points.value
        ax.barh(labels, values, left=left, label=cause, color=CAUSE_COLORS[cause])
        left += values
    ax.invert_yaxis()
    ax.set_xlabel(f"mean points per seat-game ({_deals_label(part)} per mix)")
    ax.set_title(f"points by cause and seat ({players} players, {_lineup_name(lineup)})")
    ax.legend(fontsize=8, bbox_to_anchor=(1.01, 1), loc="upper left")
    image = _save(fig, folder, "cause_points.png")
    shown = _cells_text(table)
    shown["seat"] = ["all" if s < 0 else f"seat {s}" for s in table["seat"]]
    wide = shown.pivot_table(
        index=[*CELL, "deals", "games", "cause"], columns="seat", values="points", aggfunc="first", sort=False
    )
    wide.columns.name = None
    text = (
        "Mean points per seat-game of each cause, over every seat ('all') and seat by seat: where "
        "a seat's edge comes from (e.g. the fields the last tile completes). Each cause keeps its "
        "colour in every report."
    )
    return title, text, image, [("cause_points", wide.fillna("").reset_index())]


def strength_answers(df: pd.DataFrame, long: pd.DataFrame, wide: pd.DataFrame, luck: pd.DataFrame) -> Section:
    title = "Answers by bot strength"
    if long.empty and luck.empty:
        return title, EQUAL_MISSING, None, []
    text = (
        "Each answer for every line-up of identical bots (a strength: greedy, then MCTS by "
        "iterations a move), and the upsets for every skill gap (one bot among others). The "
        "first-seat edge is seat 0's win rate less a fair share (1/players); compensation the "
        "starting points of 'Compensation'; the mix's effect is seat 0's distance from a fair share, "
        "mix less base (negative: fairer), paired by deal. Across strengths (or gaps), of the "
        f"estimates from {by_strength.MIN_DEALS} or more deals: 'flips' when one 95% interval lies "
        "wholly above 0 and another wholly below; 'holds' when no two values have opposite signs "
        "and every interval shares a point; 'differs' otherwise; 'one only' when fewer than two "
        "qualify. The mix's luck (its upsets less base's at each gap) is claimed only when it holds "
        "across gaps and every gap's interval excludes 0."
    )
    return title, text, None, [("answers_by_strength", wide), ("luck_by_gap", luck)]


def sections(df: pd.DataFrame, folder: Path, compensation_table: pd.DataFrame | None = None) -> list[Section]:
    """Every answer's section, in the report's order (`compensation_table`: see compensation)."""
    return [
        compensation(df, folder, compensation_table),
        *(
            f(df, folder)
            for f in (strength_vs_edge, luck_and_skill, game_flow, tile_value, spread, cause_points)
        ),
    ]
