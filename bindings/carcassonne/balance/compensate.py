"""Checking a compensation by playing it: a sweep cell's recorded bots play fresh deals with
starting points per seat (rule variant points, RULES VAR-POINTS), and each seat's win rate is set
against the fair share 1/players with its 95% interval (stats.win_rate, bootstrapped over deals).
The points are given, or the report's suggestion (answers.compensation) rounded to whole points.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass

import pandas as pd

from .. import SearchError, make_config
from ..mixes import Mix
from .answers import compensation
from .replay import recorded_cell
from .stats import Estimate, _cell, _equal, win_rate
from .sweep import SweepSpec, read_sweep, sweep_records


@dataclass(frozen=True)
class CompensationCheck:
    """The games of one check and each seat's win rate under the starting points."""

    mix: str
    players: int
    lineup: str
    agents: tuple[str, ...]
    points: tuple[int, ...]
    suggested: tuple[float, ...] | None  # the report's points, when they were used
    seed: int
    first_deal: int
    deals: int  # played (fewer than asked when stopped)
    asked: int
    wins: tuple[Estimate, ...]  # per seat

    @property
    def fair(self) -> float:
        return 1.0 / self.players

    def within(self, seat: int) -> bool | None:
        """Whether the fair share lies in the seat's interval (None: no interval)."""
        e = self.wins[seat]
        return e.low <= self.fair <= e.high if e.has_interval else None

    def text(self) -> str:
        lines = [f"{self.mix}, {self.players} players, {self.lineup} ({', '.join(self.agents)})"]
        points = ",".join(str(p) for p in self.points)
        if self.suggested is not None:
            shown = ", ".join(f"{p:g}" for p in self.suggested)
            lines.append(f"starting points {points}: the report's suggestion ({shown}) rounded")
        else:
            lines.append(f"starting points {points}")
        last = self.first_deal + self.deals - 1
        stopped = f", stopped after {self.deals} of {self.asked}" if self.deals < self.asked else ""
        lines.append(
            f"deals {self.first_deal}..{last} ({self.deals} deals{stopped}, every seat rotation: "
            f"{self.deals * self.players} games), seed {self.seed}"
        )
        lines.append(f"{'seat':>4}  {'points':>6}  {'win rate [95% interval]':<26}  {'fair':>6}  within")
        for seat, e in enumerate(self.wins):
            ok = self.within(seat)
            verdict = "n/a" if ok is None else "yes" if ok else "no"
            lines.append(
                f"{seat:>4}  {self.points[seat]:>6}  {e.text(percent=True):<26}  {self.fair:>6.1%}  {verdict}"
            )
        return "\n".join(lines)


def parse_points(text: str, players: int) -> tuple[int, ...]:
    """'0,3,5' as whole points per seat; SearchError naming the problem (the engine checks the
    same when it sets a game up: this only says it before anything is played)."""
    items = [item.strip() for item in text.split(",")]
    if not all(item.isdigit() for item in items):
        raise SearchError(f"--points takes whole numbers >= 0 separated by commas (e.g. 0,3,5), not '{text}'")
    if len(items) != players:
        raise SearchError(f"--points gives {len(items)} seats' points for {players} players: '{text}'")
    return tuple(int(item) for item in items)


def suggested_points(rows: pd.DataFrame, mix: str, players: int, lineup: str) -> tuple[float, ...]:
    """The report's compensation for a cell (answers.compensation): points per seat."""
    table = compensation(_cell(rows, mix, players, lineup))
    if table.empty:
        raise SearchError(
            f"the sweep has no games of ({mix}, {players} players, {lineup}) to suggest points from"
        )
    return tuple(float(e.value) for e in table.sort_values("seat")["start_points"])


def _first_equal_lineup(sweep: str | os.PathLike[str], mix: str, players: int) -> str:
    """The first line-up of identical bots the sweep played for (mix, players)."""
    for record in sweep_records(sweep):
        spec = SweepSpec.from_json(json.dumps(record))
        if mix in [m.name for m in spec.mixes] and players in spec.players:
            for lineup, _ in spec.deals:
                if _equal(lineup):
                    return lineup
    raise SearchError(f"{sweep} has no cell ({mix}, {players} players) of identical bots")


def _whole(points: tuple[float, ...]) -> tuple[int, ...]:
    """Half points up: the engine's points are whole (scores are)."""
    return tuple(int(p + 0.5) for p in points)


def check_compensation(
    sweep: str | os.PathLike[str],
    mix: str,
    players: int,
    lineup: str | None = None,
    points: str | None = None,
    deals: int | None = None,
    seed: int | None = None,
    progress: bool = True,
) -> CompensationCheck:
    """Plays `deals` fresh deals (default: as many as the sweep played of the cell) of a sweep
    cell with starting points per seat, `points` ("0,3,5") or the report's suggestion. Fresh: the
    deals after the cell's own (first_deal = its deal count), so the games are not those the
    suggestion was found from. `lineup` defaults to the sweep's first line-up of identical bots.
    Ctrl-C stops at once and returns the whole chunks played so far (none: KeyboardInterrupt)."""
    from tqdm import tqdm

    cell = recorded_cell(sweep, mix, players, lineup or _first_equal_lineup(sweep, mix, players))
    if not _equal(cell.lineup):
        raise SearchError(
            f"line-up {cell.lineup} seats unequal bots: its seats' win rates are not comparable"
        )
    recorded = dict(cell.spec.deals)[cell.lineup]
    asked = recorded if deals is None else deals
    if isinstance(asked, bool) or not isinstance(asked, int) or asked < 1:
        raise SearchError(f"--deals must be a count >= 1, got {asked!r}")
    suggested = None
    if points is None:
        suggested = suggested_points(read_sweep(sweep), mix, players, cell.lineup)
        given = _whole(suggested)
    else:
        given = parse_points(points, players)
    rules = Mix(
        cell.mix.name, cell.mix.expansions, (*cell.mix.variants, ("points", ",".join(str(p) for p in given)))
    )
    make_config(players, rules.expansions, dict(rules.variants), 0)  # the engine's check: ConfigError
    played: list[pd.DataFrame] = []
    step = cell.spec.chunk_deals
    with tqdm(total=asked * players, unit="game", disable=not progress) as bar:
        try:
            for first in range(recorded, recorded + asked, step):
                chunk = cell.chunk(first, min(step, recorded + asked - first), rules, seed)
                played.append(cell.play(chunk).to_pandas())
                bar.update(chunk.games)
        except KeyboardInterrupt:
            if not played:
                raise
    rows = pd.concat(played, ignore_index=True)
    return CompensationCheck(
        mix,
        players,
        cell.lineup,
        cell.agents,
        given,
        suggested,
        cell.spec.seed if seed is None else seed,
        recorded,
        int(rows["deal"].nunique()),
        asked,
        tuple(win_rate(rows[rows["seat"] == s]) for s in range(players)),
    )
