"""Statistics of a balance sweep, per cell (mix, players, line-up), with 95% intervals that
respect the pairing: a deal (one deck played from every seat rotation) is the unit that is
resampled (a percentile bootstrap over deals), never a single game.

Every statistic is a ratio of per-deal sums (a mean over seat-games, a share of points), so one
bootstrap replicate is the ratio of the resampled deals' sums. Every estimate over the same set
of deals uses the same bootstrap draws, so a difference of two estimates (figure used or not; a
mix against base, over the deal numbers of both) is resampled paired, by deal.

The largest gap of the seats from a fair share is the exception: its interval comes from a band
that holds every seat's win rate at once (seat_band), and the test that the seats are equal
permutes the seats of whole deals (equal_seats_p).

Each Estimate carries its group's size (deals, and games or seat-games counted). An interval
from fewer than MIN_DEALS deals, or of zero width, is not shown as one: a bootstrap of a
handful of deals has too few distinct resamples to mean anything (nor is a p-value). A quantity
fixed by construction has none (by_construction).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
import pandas as pd

from .. import CAUSES
from .sweep import FIGURE_KINDS

REPLICATES = 2000
SEED = 0  # the bootstrap's draws: fixed, so a report is reproducible
MIN_DEALS = 5
CELL = ["mix", "players", "lineup"]


@dataclass(frozen=True)
class Estimate:
    """A statistic, its 95% interval, its bootstrap replicates (for differences), the deals it
    was resampled over and its group's size: `deals` with data, `n` units counted (seat-games
    or games)."""

    value: float
    low: float
    high: float
    replicates: np.ndarray
    universe: tuple[int, ...] = ()
    deals: int = 0
    n: int = 0
    fixed: bool = False  # the value is fixed by construction (no sampling, no interval)

    @property
    def has_interval(self) -> bool:
        return not self.fixed and self.deals >= MIN_DEALS and self.high > self.low

    def text(self, digits: int = 3, percent: bool = False) -> str:
        """ "value [low, high]", or "value (by construction)" / "value (n too small)" / "value
        (no spread)" without a usable interval."""
        if np.isnan(self.value):
            return "n/a"
        scale, unit = (100.0, "%") if percent else (1.0, "")
        d = max(digits - 2, 0) if percent else digits
        v, lo, hi = self.value * scale, self.low * scale, self.high * scale
        if self.fixed:
            return f"{v:.{d}f}{unit} (by construction)"
        if self.deals < MIN_DEALS:
            return f"{v:.{d}f}{unit} (n too small)"
        if not self.high > self.low:
            return f"{v:.{d}f}{unit} (no spread)"
        return f"{v:.{d}f}{unit} [{lo:.{d}f}, {hi:.{d}f}]"

    def minus(self, other: Estimate) -> Estimate:
        """The difference, resampled paired: both must be over the same deals (same draws)."""
        if self.universe != other.universe:
            raise ValueError("a paired difference needs two estimates over the same deals")
        reps = self.replicates - other.replicates
        return _estimate(
            self.value - other.value, reps, self.universe, min(self.deals, other.deals), min(self.n, other.n)
        )


def by_construction(value: float, universe: Sequence[int], deals: int, n: int) -> Estimate:
    """A quantity that the games fix whatever happens in them (the mean win share of whole
    games is 1/players): no interval."""
    replicates = np.full(REPLICATES, value)
    return Estimate(value, value, value, replicates, tuple(universe), deals, n, fixed=True)


def _estimate(
    value: float, replicates: np.ndarray, universe: tuple[int, ...] = (), deals: int = 0, n: int = 0
) -> Estimate:
    ok = replicates[np.isfinite(replicates)]
    if len(ok) == 0 or np.isnan(value):
        return Estimate(float("nan"), float("nan"), float("nan"), replicates, universe, deals, n)
    low, high = np.percentile(ok, [2.5, 97.5])
    return Estimate(float(value), float(low), float(high), replicates, universe, deals, n)


@lru_cache(maxsize=64)
def _weights(deals: int) -> np.ndarray:
    """REPLICATES bootstrap resamples of `deals` deals, as how often each deal is drawn. The
    same for every estimate over that many deals: that pairs differences."""
    idx = np.random.default_rng(SEED).integers(0, deals, size=(REPLICATES, deals))
    counts = np.zeros((REPLICATES, deals))
    np.add.at(counts, (np.arange(REPLICATES)[:, None], idx), 1.0)
    counts.flags.writeable = False
    return counts


def ratio(
    rows: pd.DataFrame,
    numerator: pd.Series,
    denominator: pd.Series | None = None,
    deals: Sequence[int] | None = None,
) -> Estimate:
    """sum(numerator) / sum(denominator) over `rows` (default denominator: 1 per row, a mean),
    bootstrapped over `deals` (default: the rows' deals; a deal without rows counts zero)."""
    universe = tuple(sorted(set(rows["deal"]))) if deals is None else tuple(sorted(set(deals)))
    if rows.empty or not universe:
        return _estimate(float("nan"), np.array([np.nan]), universe)
    den = pd.Series(1.0, index=rows.index) if denominator is None else denominator
    frame = pd.DataFrame(
        {"deal": rows["deal"].to_numpy(), "num": numerator.to_numpy(float), "den": den.to_numpy(float)}
    )
    sums = frame.groupby("deal")[["num", "den"]].sum().reindex(list(universe), fill_value=0.0)
    num, dens = sums["num"].to_numpy(float), sums["den"].to_numpy(float)
    w = _weights(len(universe))
    with np.errstate(invalid="ignore", divide="ignore"):
        reps = (w @ num) / (w @ dens)
        value = num.sum() / dens.sum() if dens.sum() else float("nan")
    return _estimate(value, reps, universe, int((dens != 0).sum()), int((frame["den"] != 0).sum()))


def mean(rows: pd.DataFrame, column: str, deals: Sequence[int] | None = None) -> Estimate:
    return ratio(rows, rows[column].astype(float), deals=deals)


def rate(
    rows: pd.DataFrame, numerator: pd.Series, denominator: pd.Series, deals: Sequence[int] | None = None
) -> Estimate:
    """A rate in [0, 1] (a win rate of some seat-games). When every deal went the same way (a
    rate of 0 or 1) the bootstrap has no spread to resample; then the interval is Wilson's for as
    many independent games as deals (the arena's cautious choice, search/arena.cpp), never of zero
    width."""
    e = ratio(rows, numerator, denominator, deals)
    if np.isnan(e.value) or e.high > e.low:
        return e
    low, high = _wilson(e.value, e.deals)
    return Estimate(e.value, low, high, e.replicates, e.universe, e.deals, e.n)


def _wilson(p: float, n: int, z: float = 1.96) -> tuple[float, float]:
    """Wilson's interval of a rate p of n independent trials, at z standard errors."""
    z2 = z * z
    center = (p + z2 / (2 * n)) / (1 + z2 / n)
    half = z / (1 + z2 / n) * np.sqrt(p * (1 - p) / n + z2 / (4 * n * n))
    return max(0.0, min(p, center - half)), min(1.0, max(p, center + half))


def win_rate(rows: pd.DataFrame, deals: Sequence[int] | None = None) -> Estimate:
    """The mean win share, bootstrapped over deals (see rate)."""
    return rate(rows, rows["win_share"].astype(float), pd.Series(1.0, index=rows.index), deals)


def cells(df: pd.DataFrame) -> list[tuple[str, int, str]]:
    """The sweep's cells in the order of its mixes (first appearance), then players, line-up."""
    order = {m: i for i, m in enumerate(dict.fromkeys(df["mix"]))}
    keys = df[CELL].drop_duplicates().to_records(index=False).tolist()
    return sorted(keys, key=lambda k: (order[k[0]], k[1], k[2]))


def _cell(df: pd.DataFrame, mix: str, players: int, lineup: str) -> pd.DataFrame:
    return df[(df["mix"] == mix) & (df["players"] == players) & (df["lineup"] == lineup)]


def _equal(lineup: str) -> bool:
    """Whether a line-up seats the same agent everywhere (seats can be compared): not one agent
    among greedy bots ("mcts+greedy", "py:module:Agent+greedy")."""
    return "+" not in lineup


def _sizes(c: pd.DataFrame) -> dict[str, int]:
    """A cell's group size: deals, and games (one row per game has seat 0)."""
    return {"deals": int(c["deal"].nunique()), "games": int((c["seat"] == 0).sum())}


def _frame(rows: list[dict[str, object]], columns: list[str]) -> pd.DataFrame:
    """A table with its columns even when it has no rows (a sweep without such cells)."""
    return pd.DataFrame(rows, columns=columns)


def seat_table(df: pd.DataFrame) -> pd.DataFrame:
    """Per cell of identical agents and seat: win rate and mean margin (own score less the best
    other score), and mean score."""
    rows = []
    for mix, players, lineup in cells(df):
        if not _equal(lineup):
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
                    "deals": int(s["deal"].nunique()),
                    "games": len(s),  # the seat's games
                    "win": win_rate(s),
                    "margin": mean(s, "margin"),
                    "score": mean(s, "score"),
                }
            )
    return _frame(rows, [*CELL, "seat", "deals", "games", "win", "margin", "score"])


def first_player_edge(df: pd.DataFrame) -> pd.DataFrame:
    """Per cell of identical agents: seat 0's win rate (against a fair share, 1/players), its
    score less the mean score of the other seats, and its tiles less theirs (when the bag does
    not divide evenly, the first seats get one turn more)."""
    rows = []
    for mix, players, lineup in cells(df):
        if not _equal(lineup):
            continue
        c = _cell(df, mix, players, lineup)
        game = ["deal", "rotation"]
        others = c[c["seat"] != 0].groupby(game)[["score", "tiles"]].mean().add_prefix("others_")
        first = c[c["seat"] == 0].join(others, on=game)
        rows.append(
            {
                "mix": mix,
                "players": players,
                "lineup": lineup,
                **_sizes(c),
                "seat0_win": win_rate(first),
                "fair": 1.0 / players,
                "seat0_edge": ratio(first, first["score"] - first["others_score"]),
                "seat0_extra_tiles": ratio(first, first["tiles"] - first["others_tiles"]),
            }
        )
    return _frame(rows, [*CELL, "deals", "games", "seat0_win", "fair", "seat0_edge", "seat0_extra_tiles"])


def seat_band(totals: np.ndarray, games: np.ndarray, level: float = 0.95) -> tuple[np.ndarray, ...]:
    """Every seat's win rate from per-deal sums (`totals`: deals x seats, a seat's win shares in
    the deal; `games`: the deal's games), with a band that holds every seat's true rate at once
    in `level` of sweeps: rate +- c * se, se the rate's standard error over deals and c the
    `level` quantile of the largest |rate* - rate| / se* over the seats of a bootstrap resample
    of deals (a bootstrap-t band: a plain percentile band of four seats from 30 deals held the
    true rates in only 91% of simulated sweeps). A seat without spread (every deal alike) gets
    Wilson's interval at the same c for as many games as deals. Returns rate, low, high and the
    rates' bootstrap replicates (resamples x seats)."""
    weights = _weights(len(games))
    total = games.sum()
    rate = totals.sum(axis=0) / total
    se = np.sqrt(((totals - rate * games[:, None]) ** 2).sum(axis=0)) / total
    resampled = weights @ games
    replicates = (weights @ totals) / resampled[:, None]
    # Each resample's own standard errors: the sum of squares above, expanded, under its weights.
    squares = (
        weights @ totals**2
        - 2 * replicates * (weights @ (totals * games[:, None]))
        + replicates**2 * (weights @ games**2)[:, None]
    )
    spread = np.sqrt(np.maximum(squares, 0.0)) / resampled[:, None]
    varies = se > 0
    with np.errstate(divide="ignore", invalid="ignore"):
        t = np.abs(replicates - rate)[:, varies] / spread[:, varies]
    t = np.where(np.isfinite(t), t, 0.0)  # a resample of alike deals: no spread, no error
    c = float(np.quantile(t.max(axis=1), level)) if varies.any() else 1.96
    low, high = np.clip(rate - c * se, 0.0, 1.0), np.clip(rate + c * se, 0.0, 1.0)
    for seat in np.flatnonzero(~varies):
        low[seat], high[seat] = _wilson(float(rate[seat]), int((games > 0).sum()), c)
    return rate, low, high, replicates


def gap_interval(deviation: np.ndarray, low: np.ndarray, high: np.ndarray) -> tuple[float, float, float]:
    """The largest |deviation| of the seats and its interval, from intervals [low, high] that
    hold every seat's deviation at once: the smallest and the largest value that max |d| takes
    for some d inside them."""
    gap = float(np.abs(deviation).max())
    nearest = np.maximum(0.0, np.maximum(low, -high))  # each interval's distance from 0
    farthest = np.maximum(np.abs(low), np.abs(high))
    return gap, min(float(nearest.max()), gap), max(float(farthest.max()), gap)


def _deal_sums(c: pd.DataFrame, players: int, universe: Sequence[int]) -> tuple[np.ndarray, np.ndarray]:
    """Per deal of `universe` (a deal without rows counts zero): each seat's win shares summed
    (deals x seats) and the deal's games."""
    deal = pd.Index(list(universe)).get_indexer(c["deal"])
    seat = c["seat"].to_numpy(int)
    totals = np.zeros((len(universe), players))
    np.add.at(totals, (deal, seat), c["win_share"].to_numpy(float))
    games = np.bincount(deal[seat == 0], minlength=len(universe)).astype(float)
    return totals, games


def _largest_gap(c: pd.DataFrame, deals: Sequence[int] | None = None) -> tuple[Estimate, int, float]:
    """The largest distance of a seat's win rate from a fair share (1/players) in a cell of
    identical agents, the seat farthest from it (of two as far, the favoured one: with 2 players
    always) and that seat's signed distance.

    The interval is the range the largest distance takes over a 95% band that holds every
    seat's rate at once (seat_band): when the band holds the true rates, the true largest gap is
    in that range, so the interval covers at least 95% (more when one seat stands apart: the
    other seats' band counts as if any could be the farthest). A bootstrap of the largest gap
    itself is biased upward (the largest of several noisy gaps) and covered as little as 74% in
    simulated sweeps."""
    players = int(c["players"].iloc[0])
    fair = 1.0 / players
    universe = sorted(set(c["deal"])) if deals is None else sorted(set(deals))
    totals, games = _deal_sums(c, players, universe)
    rate, low, high, replicates = seat_band(totals, games)
    deviation = rate - fair
    gap, gap_low, gap_high = gap_interval(deviation, low - fair, high - fair)
    seat = max(range(players), key=lambda s: (round(abs(float(deviation[s])), 9), float(deviation[s])))
    e = Estimate(
        gap,
        gap_low,
        gap_high,
        np.abs(replicates - fair).max(axis=1),  # for paired differences (a mix against base)
        tuple(universe),
        int((games > 0).sum()),
        int(games.sum()),
    )
    return e, seat, float(deviation[seat])


def equal_seats_p(c: pd.DataFrame, permutations: int = 1000) -> float:
    """A permutation test that every seat wins as often: the spread of the seats' win rates, sum
    over seats of (rate - 1/players)^2, against the same with the seat labels of each deal
    shuffled. Returns the p-value; NaN from fewer than MIN_DEALS deals (too few to mean
    anything, as an interval)."""
    players = int(c["players"].iloc[0])
    universe = sorted(set(c["deal"]))
    if len(universe) < MIN_DEALS:
        return float("nan")
    # The exchangeable unit is the deal, not the game: a deal's rotations play one deck, so they
    # share what that deck gives each seat (their win shares correlate). With equal seats the
    # seat labels of a whole deal may be exchanged, one permutation for all its rotations.
    # Shuffling each game alone would break that shared part: the null's spread would be too
    # narrow, and at a nominal 5% the test would reject equal seats 13-21% of the time.
    totals, games = _deal_sums(c, players, universe)
    fair = 1.0 / players

    def spread(seat_totals: np.ndarray) -> np.ndarray:
        return ((seat_totals / games.sum() - fair) ** 2).sum(axis=-1)

    rng = np.random.default_rng(SEED)
    order = np.argsort(rng.random((permutations, *totals.shape)), axis=-1)
    shuffled = np.take_along_axis(np.broadcast_to(totals, order.shape), order, axis=-1).sum(axis=1)
    return float((1 + (spread(shuffled) >= spread(totals.sum(axis=0)) - 1e-12).sum()) / (1 + permutations))


def fairness(df: pd.DataFrame) -> pd.DataFrame:
    """Per cell of identical agents: the seat farthest from a fair share and its signed distance
    (with 2 players the favoured seat, above a fair share), the largest gap of any seat with its
    95% interval, and the p-value of a test that the seats are equal (NaN from fewer than
    MIN_DEALS deals)."""
    rows = []
    for mix, players, lineup in cells(df):
        if not _equal(lineup):
            continue
        c = _cell(df, mix, players, lineup)
        gap, seat, signed = _largest_gap(c)
        rows.append(
            {
                "mix": mix,
                "players": players,
                "lineup": lineup,
                **_sizes(c),
                "fair": 1.0 / players,
                "farthest_seat": seat,
                "seat_gap": signed,
                "largest_gap": gap,
                "p_equal_seats": equal_seats_p(c),
            }
        )
    columns = [*CELL, "deals", "games", "fair", "farthest_seat", "seat_gap", "largest_gap", "p_equal_seats"]
    return _frame(rows, columns)


def skill_table(df: pd.DataFrame) -> pd.DataFrame:
    """Per mix and player count: the MCTS bot's win rate among greedy bots (entrant 0 of the
    mcts+greedy line-up, over every seat), its margin, and the fair share 1/players."""
    rows = []
    for mix, players, lineup in cells(df):
        if lineup != "mcts+greedy":  # a Python agent among greedy bots is not the skill gradient
            continue
        c = _cell(df, mix, players, lineup)
        m = c[c["entrant"] == 0]
        rows.append(
            {
                "mix": mix,
                "players": players,
                **_sizes(c),
                "mcts_win": win_rate(m),
                "fair": 1.0 / players,
                "mcts_margin": mean(m, "margin"),
            }
        )
    return _frame(rows, ["mix", "players", "deals", "games", "mcts_win", "fair", "mcts_margin"])


def cause_shares(df: pd.DataFrame) -> pd.DataFrame:
    """Per cell: the share of all points that each cause gave (only causes that scored)."""
    rows = []
    for mix, players, lineup in cells(df):
        c = _cell(df, mix, players, lineup)
        total = c["score"].astype(float)
        for cause in CAUSES:
            col = c[f"points_{cause}"].astype(float)
            if col.sum() == 0:
                continue
            rows.append(
                {
                    "mix": mix,
                    "players": players,
                    "lineup": lineup,
                    **_sizes(c),
                    "cause": cause,
                    "share": ratio(c, col, total),
                }
            )
    return _frame(rows, [*CELL, "deals", "games", "cause", "share"])


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
                **_sizes(c),
                "score": mean(c, "score"),
                "score_q": tuple(float(x) for x in q),
                "turns": mean(games, "turns"),
                "decisions": mean(games, "game_decisions"),
            }
        )
    return _frame(rows, [*CELL, "deals", "games", "score", "score_q", "turns", "decisions"])


def figure_table(df: pd.DataFrame) -> pd.DataFrame:
    """Per cell and figure kind other than the meeple (mayor, wagon, barn, where in play): how
    many seat-games placed at least one, and the win rate of seat-games that did less that of
    those that did not, resampled paired over the cell's deals. Observational: a player who can
    place a barn may already be ahead."""
    rows = []
    for mix, players, lineup in cells(df):
        if not _equal(lineup):
            continue
        c = _cell(df, mix, players, lineup)
        deals = sorted(set(c["deal"]))
        for kind in FIGURE_KINDS[1:]:
            used = c[f"figures_{kind}"] > 0
            if not used.any():
                continue
            with_ = rate(c, c["win_share"] * used, used.astype(float), deals)
            without = rate(c, c["win_share"] * ~used, (~used).astype(float), deals)
            difference = with_.minus(without)
            if _whole_games(c, used):
                # Every seat of a game in the same group (e.g. everyone placed a wagon): each
                # group's win rate is 1/players, and their difference 0, whatever was played.
                with_, without, difference = (
                    by_construction(value, deals, e.deals, e.n) if e.deals else e
                    for value, e in ((1.0 / players, with_), (1.0 / players, without), (0.0, difference))
                )
            rows.append(
                {
                    "mix": mix,
                    "players": players,
                    "lineup": lineup,
                    **_sizes(c),
                    "figure": kind,
                    "used": rate(c, used.astype(float), pd.Series(1.0, index=c.index), deals),
                    "win_used": with_,
                    "win_unused": without,
                    "difference": difference,
                }
            )
    columns = [*CELL, "deals", "games", "figure", "used", "win_used", "win_unused", "difference"]
    return _frame(rows, columns)


def _whole_games(c: pd.DataFrame, chosen: pd.Series) -> bool:
    """Whether `chosen` takes every seat of a game or none of them, in every game."""
    per_game = chosen.groupby([c["deal"], c["rotation"]]).agg(["all", "any"])
    return bool((per_game["all"] == per_game["any"]).all())


def effects(df: pd.DataFrame, base: str = "base") -> pd.DataFrame:
    """Each mix's effect relative to `base` at the same player count and line-up: the difference
    in seat 0's win rate (first-player advantage) and in its distance from a fair share, mean
    score, turns and (mcts+greedy) the MCTS bot's win rate, with the interval of the difference
    resampled paired over the deal numbers of both cells. Empty without `base`."""
    measures: dict[str, Callable[[pd.DataFrame, list[int]], Estimate | None]] = {
        "seat0_win": lambda c, d: win_rate(c[c["seat"] == 0], d) if _equal(c["lineup"].iloc[0]) else None,
        "seat0_unfair": lambda c, d: _unfairness(c, d) if _equal(c["lineup"].iloc[0]) else None,
        "largest_gap": lambda c, d: _largest_gap(c, d)[0] if _equal(c["lineup"].iloc[0]) else None,
        "score": lambda c, d: mean(c, "score", d),
        "turns": lambda c, d: mean(c[c["seat"] == 0], "turns", d),
        "mcts_win": lambda c, d: None if _equal(c["lineup"].iloc[0]) else win_rate(c[c["entrant"] == 0], d),
    }
    rows = []
    for mix, players, lineup in cells(df):
        if mix == base:
            continue
        reference = _cell(df, base, players, lineup)
        if reference.empty:
            continue
        c = _cell(df, mix, players, lineup)
        deals = sorted(set(c["deal"]) | set(reference["deal"]))
        for name, measure in measures.items():
            a, b = measure(c, deals), measure(reference, deals)
            if a is None or b is None:
                continue
            rows.append(
                {
                    "mix": mix,
                    "players": players,
                    "lineup": lineup,
                    "measure": name,
                    "base_deals": int(reference["deal"].nunique()),
                    "mix_deals": int(c["deal"].nunique()),
                    "base": b,
                    "mix_value": a,
                    "effect": a.minus(b),
                }
            )
    return _frame(rows, [*CELL, "measure", "base_deals", "mix_deals", "base", "mix_value", "effect"])


def _unfairness(c: pd.DataFrame, deals: list[int]) -> Estimate:
    """|seat 0's win rate - 1/players|: how far the first seat is from a fair share (0: fair),
    with the replicates of the win rate folded the same way."""
    players = int(c["players"].iloc[0])
    w = win_rate(c[c["seat"] == 0], deals)
    fair = 1.0 / players
    reps = np.abs(w.replicates - fair)
    return _estimate(abs(w.value - fair), reps, w.universe, w.deals, w.n)
