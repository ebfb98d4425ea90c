"""Statistics of a balance sweep, per cell (mix, players, line-up), with 95% intervals that
respect the pairing: a deal (one deck played from every seat rotation) is the unit that is
resampled (a percentile bootstrap over deals), never a single game.

Every statistic is a ratio of per-deal sums (a mean over seat-games, a share of points), so one
bootstrap replicate is the ratio of the resampled deals' sums. An expansion's effect is the
difference between its mix and base at the same player count and line-up; the two are
independent samples (other decks), so the difference's replicates pair independent replicates.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import pandas as pd

from .. import CAUSES
from .sweep import FIGURE_KINDS

REPLICATES = 2000
CELL = ["mix", "players", "lineup"]


@dataclass(frozen=True)
class Estimate:
    """A statistic, its 95% interval and its bootstrap replicates (for differences)."""

    value: float
    low: float
    high: float
    replicates: np.ndarray

    def text(self, digits: int = 3, percent: bool = False) -> str:
        if np.isnan(self.value):
            return "n/a"
        scale, unit = (100.0, "%") if percent else (1.0, "")
        d = max(digits - 2, 0) if percent else digits
        v, lo, hi = self.value * scale, self.low * scale, self.high * scale
        return f"{v:.{d}f}{unit} [{lo:.{d}f}, {hi:.{d}f}]"

    def minus(self, other: Estimate) -> Estimate:
        reps = self.replicates - other.replicates
        return _estimate(self.value - other.value, reps)


def _estimate(value: float, replicates: np.ndarray) -> Estimate:
    ok = replicates[np.isfinite(replicates)]
    if len(ok) == 0 or np.isnan(value):
        return Estimate(float("nan"), float("nan"), float("nan"), replicates)
    low, high = np.percentile(ok, [2.5, 97.5])
    return Estimate(float(value), float(low), float(high), replicates)


def _resample(deals: int, seed: int) -> np.ndarray:
    """Bootstrap draws of deal indices: REPLICATES rows of `deals` indices. One seed per call
    site, so reports are reproducible."""
    return np.random.default_rng(seed).integers(0, deals, size=(REPLICATES, deals))


def ratio(
    rows: pd.DataFrame, numerator: pd.Series, denominator: pd.Series | None = None, seed: int = 0
) -> Estimate:
    """sum(numerator) / sum(denominator) over `rows` (default denominator: 1 per row, a mean),
    bootstrapped over the rows' deals."""
    if rows.empty:
        return _estimate(float("nan"), np.array([np.nan]))
    den = pd.Series(1.0, index=rows.index) if denominator is None else denominator
    frame = pd.DataFrame(
        {"deal": rows["deal"].to_numpy(), "num": numerator.to_numpy(), "den": den.to_numpy()}
    )
    sums = frame.groupby("deal")[["num", "den"]].sum()
    num, dens = sums["num"].to_numpy(float), sums["den"].to_numpy(float)
    idx = _resample(len(num), seed)
    with np.errstate(invalid="ignore", divide="ignore"):
        reps = num[idx].sum(axis=1) / dens[idx].sum(axis=1)
        value = num.sum() / dens.sum() if dens.sum() else float("nan")
    return _estimate(value, reps)


def mean(rows: pd.DataFrame, column: str, seed: int = 0) -> Estimate:
    return ratio(rows, rows[column].astype(float), seed=seed)


def win_rate(rows: pd.DataFrame, seed: int = 0) -> Estimate:
    """The mean win share, bootstrapped over deals. When every deal went the same way (a rate of
    0 or 1) the bootstrap has no spread to resample; then the interval is Wilson's for as many
    independent games as deals (the arena's cautious choice, search/arena.cpp), never of zero
    width."""
    e = mean(rows, "win_share", seed=seed)
    if np.isnan(e.value) or e.high > e.low:
        return e
    n, p, z2 = rows["deal"].nunique(), e.value, 1.96**2
    center = (p + z2 / (2 * n)) / (1 + z2 / n)
    half = np.sqrt(z2) / (1 + z2 / n) * np.sqrt(p * (1 - p) / n + z2 / (4 * n * n))
    return Estimate(e.value, max(0.0, min(p, center - half)), min(1.0, max(p, center + half)), e.replicates)


def cells(df: pd.DataFrame) -> list[tuple[str, int, str]]:
    """The sweep's cells in the order of its mixes (first appearance), then players, line-up."""
    order = {m: i for i, m in enumerate(dict.fromkeys(df["mix"]))}
    keys = df[CELL].drop_duplicates().to_records(index=False).tolist()
    return sorted(keys, key=lambda k: (order[k[0]], k[1], k[2]))


def _cell(df: pd.DataFrame, mix: str, players: int, lineup: str) -> pd.DataFrame:
    return df[(df["mix"] == mix) & (df["players"] == players) & (df["lineup"] == lineup)]


def seat_table(df: pd.DataFrame) -> pd.DataFrame:
    """Per cell of identical agents and seat: win rate and mean margin (own score less the best
    other score), and the first player's edge: seat 0's score less the mean of the others'."""
    rows = []
    for mix, players, lineup in cells(df):
        if lineup == "mcts+greedy":
            continue  # seats of unequal agents: see skill_table
        c = _cell(df, mix, players, lineup)
        for seat in range(players):
            s = c[c["seat"] == seat]
            rows.append(
                {
                    "mix": mix,
                    "players": players,
                    "lineup": lineup,
                    "seat": seat,
                    "deals": s["deal"].nunique(),
                    "win": win_rate(s, seed=seat),
                    "margin": mean(s, "margin", seed=seat + 10),
                    "score": mean(s, "score", seed=seat + 20),
                }
            )
    return pd.DataFrame(rows)


def first_player_edge(df: pd.DataFrame) -> pd.DataFrame:
    """Per cell of identical agents: seat 0's win rate (against a fair share, 1/players), its
    score less the mean score of the other seats, and its tiles less theirs (when the bag does
    not divide evenly, the first seats get one turn more)."""
    rows = []
    for mix, players, lineup in cells(df):
        if lineup == "mcts+greedy":
            continue
        c = _cell(df, mix, players, lineup)
        game = ["deal", "rotation"]
        others = c[c["seat"] != 0].groupby(game)[["score", "tiles"]].mean().add_prefix("others_")
        first = c[c["seat"] == 0].join(others, on=game)
        win = win_rate(first, seed=1)
        edge = ratio(first, first["score"] - first["others_score"], seed=2)
        tiles = ratio(first, first["tiles"] - first["others_tiles"], seed=8)
        rows.append(
            {
                "mix": mix,
                "players": players,
                "lineup": lineup,
                "deals": first["deal"].nunique(),
                "seat0_win": win,
                "fair": 1.0 / players,
                "seat0_edge": edge,
                "seat0_extra_tiles": tiles,
            }
        )
    return pd.DataFrame(rows)


def skill_table(df: pd.DataFrame) -> pd.DataFrame:
    """Per mix and player count: the MCTS bot's win rate among greedy bots (entrant 0 of the
    mcts+greedy line-up, over every seat), its margin, and the fair share 1/players."""
    rows = []
    for mix, players, lineup in cells(df):
        if lineup != "mcts+greedy":
            continue
        c = _cell(df, mix, players, lineup)
        m = c[c["entrant"] == 0]
        rows.append(
            {
                "mix": mix,
                "players": players,
                "deals": m["deal"].nunique(),
                "mcts_win": win_rate(m, seed=3),
                "fair": 1.0 / players,
                "mcts_margin": mean(m, "margin", seed=4),
            }
        )
    return pd.DataFrame(rows)


def cause_shares(df: pd.DataFrame) -> pd.DataFrame:
    """Per cell: the share of all points that each cause gave (only causes that scored)."""
    rows = []
    for mix, players, lineup in cells(df):
        c = _cell(df, mix, players, lineup)
        total = c["score"].astype(float)
        for i, cause in enumerate(CAUSES):
            col = c[f"points_{cause}"].astype(float)
            if col.sum() == 0:
                continue
            rows.append(
                {
                    "mix": mix,
                    "players": players,
                    "lineup": lineup,
                    "cause": cause,
                    "share": ratio(c, col, total, seed=30 + i),
                }
            )
    return pd.DataFrame(rows)


def game_table(df: pd.DataFrame) -> pd.DataFrame:
    """Per cell: mean score per seat, score quartiles, game length (turns, decisions)."""
    rows = []
    for mix, players, lineup in cells(df):
        c = _cell(df, mix, players, lineup)
        games = c[c["seat"] == 0]
        q = c["score"].quantile([0.25, 0.5, 0.75]).to_numpy()
        rows.append(
            {
                "mix": mix,
                "players": players,
                "lineup": lineup,
                "deals": c["deal"].nunique(),
                "games": len(games),
                "score": mean(c, "score", seed=5),
                "score_q": tuple(float(x) for x in q),
                "turns": mean(games, "turns", seed=6),
                "decisions": mean(games, "game_decisions", seed=7),
            }
        )
    return pd.DataFrame(rows)


def figure_table(df: pd.DataFrame) -> pd.DataFrame:
    """Per cell and figure kind other than the meeple (mayor, wagon, barn, where in play): how
    many seat-games placed at least one, and the win rate of seat-games that did less that of
    those that did not. Observational: a player who can place a barn may already be ahead."""
    rows = []
    for mix, players, lineup in cells(df):
        if lineup == "mcts+greedy":
            continue
        c = _cell(df, mix, players, lineup)
        for i, kind in enumerate(FIGURE_KINDS[1:]):
            used = c[f"figures_{kind}"] > 0
            if not used.any():
                continue
            with_ = ratio(c, c["win_share"] * used, used.astype(float), seed=40 + i)
            without = ratio(c, c["win_share"] * ~used, (~used).astype(float), seed=50 + i)
            rows.append(
                {
                    "mix": mix,
                    "players": players,
                    "lineup": lineup,
                    "figure": kind,
                    "used": mean(c.assign(u=used.astype(float)), "u", seed=60 + i),
                    "win_used": with_,
                    "win_unused": without,
                    "difference": with_.minus(without),
                }
            )
    return pd.DataFrame(rows)


def effects(df: pd.DataFrame, base: str = "base") -> pd.DataFrame:
    """Each mix's effect relative to `base` at the same player count and line-up: the difference
    in seat 0's win rate (first-player advantage), mean score, turns and (mcts+greedy) the MCTS
    bot's win rate, with the interval of the difference."""
    measures: dict[str, Callable[[pd.DataFrame], Estimate | None]] = {
        "seat0_win": lambda c: win_rate(c[c["seat"] == 0], seed=1) if _equal(c) else None,
        "score": lambda c: mean(c, "score", seed=5),
        "turns": lambda c: mean(c[c["seat"] == 0], "turns", seed=6),
        "mcts_win": lambda c: None if _equal(c) else win_rate(c[c["entrant"] == 0], seed=3),
    }
    rows = []
    for mix, players, lineup in cells(df):
        if mix == base:
            continue
        reference = _cell(df, base, players, lineup)
        if reference.empty:
            continue
        c = _cell(df, mix, players, lineup)
        for name, measure in measures.items():
            a, b = measure(c), measure(reference)
            if a is None or b is None:
                continue
            rows.append(
                {
                    "mix": mix,
                    "players": players,
                    "lineup": lineup,
                    "measure": name,
                    "base": b,
                    "mix_value": a,
                    "effect": a.minus(b),
                }
            )
    return pd.DataFrame(rows)


def _equal(c: pd.DataFrame) -> bool:
    return bool(c["lineup"].iloc[0] != "mcts+greedy")
