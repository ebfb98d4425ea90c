"""A designer's answers from a balance sweep, each an estimate with a 95% interval bootstrapped over
deals (stats.py): the starting points that make the seats equal (compensation), the first-player
edge as the bots get stronger, how often the weaker bot wins (luck and skill), how the lead moves
during a game (game flow, from the per-turn standings), what drawing each tile kind is worth, the
spread of scores and margins, and the points of each cause per seat.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from .. import CAUSES
from .lineups import lineup_budget
from .stats import CELL, Estimate, _cell, _equal, _estimate, _frame, _sizes, _weights, cells, ratio, win_rate

# Compensation solves a small fixed point per bootstrap replicate: fewer replicates than the
# other estimates (each costs a solve), enough for a 95% percentile interval.
COMPENSATION_REPLICATES = 300
# Per-turn columns: a sweep of an older version has none (game flow and tile value need them).
TURN_COLUMNS = ("standing", "turn_seat", "turn_tile")


def has_turns(df: pd.DataFrame) -> bool:
    return all(c in df.columns for c in TURN_COLUMNS)


@dataclass(frozen=True)
class PlayedGame:
    """One game of a cell with every seat's final score and per-turn standing (seats x turns)."""

    deal: int
    scores: np.ndarray
    standing: np.ndarray | None
    turn_seat: np.ndarray | None
    turn_tile: list[str] | None


def played_games(c: pd.DataFrame) -> list[PlayedGame]:
    """The games of a cell's rows (one row per game and seat, every seat present), seats in
    order."""
    turns = has_turns(c)
    ordered = c.sort_values(["deal", "rotation", "seat"])
    players = int(c["players"].iloc[0])
    scores = ordered["score"].to_numpy(float).reshape(-1, players)
    deals = ordered["deal"].to_numpy()[::players]
    if not turns:
        return [PlayedGame(int(d), s, None, None, None) for d, s in zip(deals, scores, strict=True)]
    standing = ordered["standing"].to_numpy()
    seats = ordered["turn_seat"].to_numpy()[::players]
    tiles = ordered["turn_tile"].to_numpy()[::players]
    return [
        PlayedGame(
            int(deals[i]),
            scores[i],
            np.stack([np.asarray(x, float) for x in standing[i * players : (i + 1) * players]]),
            np.asarray(seats[i], int),
            [str(t) for t in tiles[i]],
        )
        for i in range(len(deals))
    ]


# --- compensation


def solve_compensation(scores: np.ndarray, weights: np.ndarray, sweeps: int = 30) -> np.ndarray:
    """The starting points per seat (one row per row of `weights`, each a weighting of the games
    `scores`, games x seats) under which every seat wins as often, the smallest at 0. Seat by
    seat (Gauss-Seidel, damped): with the others' points fixed, seat s wins game g when its
    points exceed m_gs = max over the others of (score + points) - its score, so the points that
    give it a fair share of the wins are the weighted 1/players quantile of m_gs."""
    players = scores.shape[1]
    replicates = weights.shape[0]
    bonus = np.zeros((replicates, players))
    rows = np.arange(replicates)[:, None]
    for sweep in range(sweeps):
        for s in range(players):
            others = scores[None, :, :] + bonus[:, None, :]
            others[:, :, s] = -np.inf
            needed = others.max(axis=-1) - scores[None, :, s]  # replicates x games
            order = np.argsort(needed, axis=1)
            ranked = needed[rows, order]
            cumulative = np.cumsum(weights[rows, order], axis=1)
            target = cumulative[:, -1:] / players
            k = np.minimum((cumulative < target).sum(axis=1), ranked.shape[1] - 1)
            above = ranked[np.arange(replicates), k]
            below = ranked[np.arange(replicates), np.maximum(k - 1, 0)]
            fair = (above + below) / 2  # between the games it loses and the ones it wins
            bonus[:, s] = fair if sweep == 0 else (bonus[:, s] + fair) / 2
        bonus -= bonus.min(axis=1, keepdims=True)
    return bonus


def shares_with(scores: np.ndarray, bonus: np.ndarray) -> np.ndarray:
    """The seats' win rates (each game counted once, a tie shared) with starting points `bonus`."""
    adjusted = scores + bonus[None, :]
    top = adjusted >= adjusted.max(axis=1, keepdims=True) - 1e-9
    return np.asarray((top / top.sum(axis=1, keepdims=True)).mean(axis=0))


def compensation(df: pd.DataFrame) -> pd.DataFrame:
    """Per cell of identical bots and seat: the starting points that equalise the seats' win
    rates (the most favoured seat starts at 0), bootstrapped over deals, and the seat's win rate
    without them."""
    rows = []
    for mix, players, lineup in cells(df):
        if not _equal(lineup):
            continue
        c = _cell(df, mix, players, lineup)
        games = list(played_games(c))
        scores = np.stack([g.scores for g in games])
        universe = sorted({g.deal for g in games})
        index = {d: i for i, d in enumerate(universe)}
        deal_of = np.array([index[g.deal] for g in games])
        counts = _weights(len(universe))[:COMPENSATION_REPLICATES][:, deal_of]
        bonus = solve_compensation(scores, np.vstack([np.ones(len(games)), counts]))
        for seat in range(players):
            e = _estimate(float(bonus[0, seat]), bonus[1:, seat], tuple(universe), len(universe), len(games))
            rows.append(
                {
                    "mix": mix,
                    "players": players,
                    "lineup": lineup,
                    **_sizes(c),
                    "seat": seat,
                    "win": win_rate(c[c["seat"] == seat]),
                    "start_points": e,
                }
            )
    return _frame(rows, [*CELL, "deals", "games", "seat", "win", "start_points"])


# --- bot strength against the first player's edge


def budget_of(c: pd.DataFrame) -> int:
    """The iteration budget of a cell of identical bots: 0 for greedy, else its MCTS iters."""
    lineup = str(c["lineup"].iloc[0])
    if lineup == "greedy":
        return 0
    n = lineup_budget(lineup)
    if n is not None:
        return n
    options = dict(o.split("=", 1) for o in str(c["agent"].iloc[0]).partition(":")[2].split(",") if "=" in o)
    return int(options.get("iters", "0") or 0)


def strength_rank(df: pd.DataFrame, lineup: str) -> tuple[int, int, bool, str]:
    """Sorts line-ups of identical bots weakest first: greedy, MCTS by iteration budget (at one
    budget the search on rollouts alone before the one with a network where it ships), then
    Python agents (no budget to rank) by name."""
    if lineup.startswith("py:"):
        return (1, 0, False, lineup)
    return (0, budget_of(df[df["lineup"] == lineup]), not lineup.startswith("rollout"), lineup)


def strength_vs_edge(df: pd.DataFrame) -> pd.DataFrame:
    """Per mix, player count and line-up of identical bots, weakest first (strength_rank): seat
    0's win rate and its change from greedy's, paired over the deal numbers of both (the decks
    are the same). An edge that stays as the bots get stronger is the rules'; one that fades is
    the weaker bot's."""
    rows: list[dict[str, object]] = []
    for mix, players, lineup in cells(df):
        if not _equal(lineup) or lineup.startswith("py:"):  # a Python agent has no budget to rank
            continue
        c = _cell(df, mix, players, lineup)
        greedy = _cell(df, mix, players, "greedy")
        change: Estimate | None = None
        if lineup != "greedy" and not greedy.empty:
            deals = sorted(set(c["deal"]) | set(greedy["deal"]))
            change = win_rate(c[c["seat"] == 0], deals).minus(win_rate(greedy[greedy["seat"] == 0], deals))
        rows.append(
            {
                "mix": mix,
                "players": players,
                "lineup": lineup,
                "budget": budget_of(c),
                **_sizes(c),
                "seat0_win": win_rate(c[c["seat"] == 0]),
                "fair": 1.0 / players,
                "change_from_greedy": change,
            }
        )
    frame = _frame(rows, [*CELL, "budget", "deals", "games", "seat0_win", "fair", "change_from_greedy"])
    order = {m: i for i, m in enumerate(dict.fromkeys(df["mix"]))}
    rank = {lineup: strength_rank(df, lineup) for lineup in set(frame["lineup"])}
    return frame.sort_values(
        ["players", "mix", "lineup"],
        key=lambda s: s.map(order) if s.name == "mix" else s.map(rank) if s.name == "lineup" else s,
    ).reset_index(drop=True)


# --- luck and skill


def elo(p: float | np.ndarray) -> float | np.ndarray:
    """The Elo gap of a pairwise win probability p (a share of 0 or 1 clipped to a finite gap)."""
    q = np.clip(p, 1e-3, 1 - 1e-3)
    return 400.0 * np.log10(q / (1 - q))


def pair_wins(c: pd.DataFrame, deals: list[int] | None = None) -> Estimate:
    """In a cell of one bot among others ("A+B", entrant 0 the lone bot A): how often the lone bot
    beats each other bot of its game, pair by pair (a higher final score wins the pair, a tie is
    half), bootstrapped over `deals` (default: the cell's)."""
    game = ["deal", "rotation"]
    lone = c[c["entrant"] == 0].set_index(game)["score"].rename("lone_score")
    others = c[c["entrant"] != 0].join(lone, on=game)
    won = (others["lone_score"] > others["score"]).astype(float) + 0.5 * (
        others["lone_score"] == others["score"]
    )
    return ratio(others, won, deals=deals)


def upset_of(p: Estimate, lone_stronger: bool) -> Estimate:
    """How often the weaker bot wins its pair, from the lone bot's pair win rate `p`."""
    if not lone_stronger:
        return p
    return _estimate(1 - p.value, 1 - p.replicates, p.universe, p.deals, p.n)


def luck_and_skill(df: pd.DataFrame) -> pd.DataFrame:
    """Per mix, player count and skill gap (a line-up "A+B" of one bot A among bots B, e.g.
    mcts+greedy or mcts@400+mcts): each game's bot A against each bot B, pair by pair
    (pair_wins). The stronger bot's pair win rate gives the Elo gap; `upset` is how often the
    weaker bot won its pair: the part of the game that skill (at this gap) does not decide."""
    rows = []
    for mix, players, lineup in cells(df):
        if _equal(lineup):
            continue
        c = _cell(df, mix, players, lineup)
        p = pair_wins(c)
        lone, _, others = lineup.partition("+")
        stronger = lone if p.value >= 0.5 else others
        gap = _estimate(float(elo(p.value)), np.asarray(elo(p.replicates)), p.universe, p.deals, p.n)
        rows.append(
            {
                "mix": mix,
                "players": players,
                "lineup": lineup,
                **_sizes(c),
                "pairs": p.n,
                "stronger": stronger,
                "pair_win": p,
                "upset": upset_of(p, stronger == lone),
                "elo_gap": gap,
            }
        )
    columns = [*CELL, "deals", "games", "pairs", "stronger", "pair_win", "upset", "elo_gap"]
    return _frame(rows, columns)


# --- game flow


def _leaders(standing: np.ndarray) -> np.ndarray:
    """Per turn, the seat alone in the lead, or -1 for a tie at the top."""
    top = standing.max(axis=0)
    at_top = standing == top
    return np.where(at_top.sum(axis=0) == 1, at_top.argmax(axis=0), -1)


def game_flow_of(game: PlayedGame) -> dict[str, float]:
    """A game's flow from its standings (the metrics Ludii reports for its games): lead changes
    (a seat other than the last sole leader takes the lead alone), the fraction of the game
    after which the final winner leads to the end, whether the winner trailed at half time (a
    comeback) and the winner's largest deficit to the leader during the game."""
    assert game.standing is not None
    standing = game.standing
    turns = standing.shape[1]
    leaders = _leaders(standing)
    alone = leaders[leaders >= 0]
    changes = int((alone[1:] != alone[:-1]).sum()) if len(alone) else 0
    winner = int(leaders[-1])
    if winner < 0:  # a shared win: no single leader holds on
        decided, comeback, deficit = 1.0, 0.0, 0.0
    else:
        not_leading = np.nonzero(leaders != winner)[0]
        decided = (not_leading[-1] + 1) / turns if len(not_leading) else 0.0
        half = standing[:, turns // 2]
        comeback = float(half[winner] < half.max())
        deficit = float((standing.max(axis=0) - standing[winner]).max())
    return {"lead_changes": changes, "decided_at": decided, "comeback": comeback, "deficit": deficit}


def game_flow(df: pd.DataFrame) -> pd.DataFrame:
    """Per cell: the mean lead changes per game, the fraction of the game after which the winner
    leads for good, the share of comebacks and the winner's mean largest deficit; empty for a
    sweep without per-turn standings."""
    if not has_turns(df):
        return _frame([], [*CELL, "deals", "games", "lead_changes", "decided_at", "comeback", "deficit"])
    rows = []
    for mix, players, lineup in cells(df):
        c = _cell(df, mix, players, lineup)
        flows = pd.DataFrame([{"deal": g.deal, **game_flow_of(g)} for g in played_games(c)])
        rows.append(
            {
                "mix": mix,
                "players": players,
                "lineup": lineup,
                **_sizes(c),
                **{
                    k: ratio(flows, flows[k].astype(float))
                    for k in ("lead_changes", "decided_at", "comeback", "deficit")
                },
            }
        )
    return _frame(rows, [*CELL, "deals", "games", "lead_changes", "decided_at", "comeback", "deficit"])


def leader_wins_curve(df: pd.DataFrame, points: int = 10) -> pd.DataFrame:
    """Per cell and fraction f of the game (1/points .. 1): how often the sole leader after that
    fraction of the turns wins the game; how early a game is decided."""
    rows: list[dict[str, object]] = []
    if not has_turns(df):
        return _frame(rows, [*CELL, "deals", "fraction", "leader_wins"])
    for mix, players, lineup in cells(df):
        c = _cell(df, mix, players, lineup)
        hits: list[tuple[int, float, float, float]] = []
        fractions = np.arange(1, points + 1) / points
        for g in played_games(c):
            assert g.standing is not None
            leaders = _leaders(g.standing)
            final = g.standing[:, -1]
            at = np.maximum(np.ceil(fractions * g.standing.shape[1]).astype(int) - 1, 0)
            lead = leaders[at]
            won = (lead >= 0) & (final[np.maximum(lead, 0)] == final.max())
            hits += zip(
                [g.deal] * points, fractions, won.astype(float), (lead >= 0).astype(float), strict=True
            )
        h = pd.DataFrame(hits, columns=["deal", "fraction", "won", "led"])
        for f, part in h.groupby("fraction"):
            rows.append(
                {
                    "mix": mix,
                    "players": players,
                    "lineup": lineup,
                    "deals": int(part["deal"].nunique()),
                    "fraction": float(f),
                    "leader_wins": ratio(part, part["won"], part["led"]),
                }
            )
    return _frame(rows, [*CELL, "deals", "fraction", "leader_wins"])


# --- tile value


def grouped_means(frame: pd.DataFrame, group: str, column: str, universe: list[int]) -> dict[Any, Estimate]:
    """stats.ratio's mean of `column` for every value of `group` at once (the same bootstrap
    draws over the deals `universe`), as one matrix product instead of one ratio per group."""
    grouped = frame.groupby(["deal", group])[column]
    sums = grouped.sum().unstack(fill_value=0).reindex(universe, fill_value=0)
    counts = grouped.count().unstack(fill_value=0).reindex(universe, fill_value=0)
    w = _weights(len(universe))
    num_reps, den_reps = w @ sums.to_numpy(float), w @ counts.to_numpy(float)
    out = {}
    for i, key in enumerate(sums.columns):
        num, den = sums[key].to_numpy(float), counts[key].to_numpy(float)
        with np.errstate(invalid="ignore", divide="ignore"):
            reps = num_reps[:, i] / den_reps[:, i]
        out[key] = _estimate(
            num.sum() / den.sum(), reps, tuple(universe), int((den > 0).sum()), int(den.sum())
        )
    return out


def tile_value(df: pd.DataFrame) -> pd.DataFrame:
    """Per cell of identical bots and tile kind: the points a seat gains over the turn in which
    it places a tile of that kind (its standing after the turn less before), and that gain less
    the other seats' mean gain in the same turn (what the tile gives over the table); the turns
    counted (an abbey is a kind of its own). Turns that placed no tile are left out."""
    columns = [*CELL, "deals", "kind", "turns", "gain", "gain_over_others"]
    if not has_turns(df):
        return _frame([], columns)
    rows = []
    for mix, players, lineup in cells(df):
        if not _equal(lineup):
            continue
        c = _cell(df, mix, players, lineup)
        deals, kinds, own_gain, over_gain = [], [], [], []
        for g in played_games(c):
            assert g.standing is not None and g.turn_seat is not None and g.turn_tile is not None
            before = np.hstack([np.zeros((players, 1)), g.standing[:, :-1]])
            delta = g.standing - before  # seats x turns
            own = delta[g.turn_seat, np.arange(delta.shape[1])]
            deals.append(np.full(len(own), g.deal))
            kinds += g.turn_tile
            own_gain.append(own)
            over_gain.append(own - (delta.sum(axis=0) - own) / max(players - 1, 1))
        turns_frame = pd.DataFrame(
            {
                "deal": np.concatenate(deals),
                "kind": kinds,
                "own": np.concatenate(own_gain),
                "over": np.concatenate(over_gain),
            }
        )
        turns_frame = turns_frame[turns_frame["kind"] != ""]
        universe = sorted(set(c["deal"]))
        gain = grouped_means(turns_frame, "kind", "own", universe)
        over = grouped_means(turns_frame, "kind", "over", universe)
        for kind in sorted(gain):
            rows.append(
                {
                    "mix": mix,
                    "players": players,
                    "lineup": lineup,
                    "deals": gain[kind].deals,
                    "kind": kind,
                    "turns": gain[kind].n,
                    "gain": gain[kind],
                    "gain_over_others": over[kind],
                }
            )
    return _frame(rows, columns)


# --- spread of scores and margins, points by cause per seat


def _variance(rows: pd.DataFrame, column: str, deals: list[int]) -> Estimate:
    """The standard deviation of a column, bootstrapped over deals: E[x^2] - E[x]^2 of the same
    resamples (the same deals, so the same draws)."""
    x = rows[column].astype(float)
    m1, m2 = ratio(rows, x, deals=deals), ratio(rows, x * x, deals=deals)
    reps = np.sqrt(np.maximum(m2.replicates - m1.replicates**2, 0.0))
    return _estimate(float(np.sqrt(max(m2.value - m1.value**2, 0.0))), reps, m1.universe, m1.deals, m1.n)


def spread(df: pd.DataFrame) -> pd.DataFrame:
    """Per cell: the spread of the final scores (standard deviation over seat-games), the
    winner's lead over the runner-up (mean and spread) and the share of close games (won by 5
    points or fewer, ties included)."""
    rows = []
    for mix, players, lineup in cells(df):
        c = _cell(df, mix, players, lineup)
        deals = sorted(set(c["deal"]))
        winners = c[c["rank"] == 1].drop_duplicates(["deal", "rotation"])
        winners = winners.assign(
            lead=winners["margin"].clip(lower=0), close=(winners["margin"] <= 5).astype(float)
        )
        rows.append(
            {
                "mix": mix,
                "players": players,
                "lineup": lineup,
                **_sizes(c),
                "score_sd": _variance(c, "score", deals),
                "winning_lead": ratio(winners, winners["lead"].astype(float), deals=deals),
                "winning_lead_sd": _variance(winners, "lead", deals),
                "close_games": ratio(winners, winners["close"], deals=deals),
            }
        )
    return _frame(
        rows, [*CELL, "deals", "games", "score_sd", "winning_lead", "winning_lead_sd", "close_games"]
    )


def cause_points(df: pd.DataFrame) -> pd.DataFrame:
    """Per cell of identical bots, cause and seat: the mean points of that cause per seat-game
    (seat -1: every seat together). Only causes that scored."""
    rows = []
    for mix, players, lineup in cells(df):
        if not _equal(lineup):
            continue
        c = _cell(df, mix, players, lineup)
        deals = sorted(set(c["deal"]))
        scored = [cause for cause in CAUSES if c[f"points_{cause}"].sum() != 0]
        sizes = _sizes(c)
        for cause in scored:
            col = c[f"points_{cause}"].astype(float)
            every = ratio(c, col, deals=deals)
            by_seat = grouped_means(c.assign(points=col), "seat", "points", deals)
            for seat, points in [(-1, every), *sorted(by_seat.items())]:
                rows.append(
                    {"mix": mix, "players": players, "lineup": lineup, **sizes}
                    | {"cause": cause, "seat": int(seat), "points": points}
                )
    return _frame(rows, [*CELL, "deals", "games", "cause", "seat", "points"])
