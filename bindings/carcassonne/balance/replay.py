"""Replays of a sweep's deals with the bots that played them: a cell's recorded bots pinned to
their full options and value network (pinned_agent, recorded_cell), replay_deal, and what a
spec record of an older version, which pins no bots, means for a replay and a report
(bots_note, bots_summary).
"""

from __future__ import annotations

import json
import os
import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pyarrow as pa

from .. import SearchError
from ..mixes import Mix
from .lineups import _options_of, lineup_agents, options_text, rollouts_instead
from .networks import network_file
from .sweep import Chunk, SweepSpec, _bots_of, _check_evaluators, play_chunk, sweep_records


def replay_deal(
    sweep: SweepSpec | dict[str, Any] | str | os.PathLike[str], mix: str, players: int, lineup: str, deal: int
) -> Any:
    """Plays one deal of a sweep's cell again (every seat rotation) and returns its rows as a
    pandas DataFrame, as the sweep stored them: a chunk's games depend only on the spec's seeds
    and their deal numbers, so the rows equal the stored ones when the code is the same (the
    timing column think_seconds aside).

    `sweep`: a sweep folder or merged file (its spec record that holds the cell), a spec record
    (sweep_records) or a SweepSpec (played as this package plays it today). Each MCTS agent plays
    the cell's recorded bot: its full options, with the value network it played (network_file: a
    folder's own copy, a merged file's embedded copy unpacked into networks_cache(), else the
    file it was read from; its SHA-256 checked, SearchError when it is missing or changed) or,
    where none played, the rollouts it fell back to. A spec of an older
    version, which records no bots, replays its recorded options (or today's defaults) with a
    warning that its bots are not pinned."""
    cell = recorded_cell(sweep, mix, players, lineup)
    return cell.play(cell.chunk(deal, 1)).to_pandas()


@dataclass(frozen=True)
class RecordedCell:
    """A sweep's cell as its spec record plays it: `agents` name the rows, `played` are the
    recorded bots that play them (pinned_agent), each MCTS one checked against the record."""

    record: dict[str, Any]
    spec: SweepSpec
    mix: Mix
    players: int
    lineup: str
    agents: tuple[str, ...]
    played: tuple[str, ...]

    def chunk(self, first_deal: int, deals: int, mix: Mix | None = None, seed: int | None = None) -> Chunk:
        """Deals first_deal .. first_deal + deals - 1 of the cell, under the cell's mix or
        `mix` (the same name: other rules), with the spec's seed or `seed`."""
        return Chunk(
            mix or self.mix,
            self.players,
            self.lineup,
            self.agents,
            first_deal,
            deals,
            self.spec.seed if seed is None else seed,
            self.spec.agent_seed,
        )

    def play(self, chunk: Chunk) -> pa.Table:
        table = play_chunk(chunk, agents=self.played)
        _check_evaluators(chunk, table, self.record, pinned=True)
        return table


def recorded_cell(
    sweep: SweepSpec | dict[str, Any] | str | os.PathLike[str], mix: str, players: int, lineup: str
) -> RecordedCell:
    """The cell (mix, players, line-up) of a sweep folder, merged file, spec record or SweepSpec,
    with its recorded bots (replay_deal); SearchError when the sweep has no such cell."""
    record = _record_of(sweep, mix, players, lineup)
    source = Path(sweep) if isinstance(sweep, str | os.PathLike) else None
    spec = SweepSpec.from_json(json.dumps(record))
    chosen = [m for m in spec.mixes if m.name == mix]
    if not chosen or players not in spec.players or lineup not in dict(spec.deals):
        raise SearchError(f"the sweep has no cell ({mix}, {players} players, {lineup})")
    agents = tuple(lineup_agents(lineup, players, spec.mcts))
    note = bots_note(record)
    if note is not None and any(a.partition(":")[0] == "mcts" for a in agents):
        warnings.warn(note, stacklevel=3)
    bots = _bots_of(record)
    played = []
    for agent in agents:
        bot = bots.get((mix, players, lineup, agent))
        if bot is not None:
            played.append(pinned_agent(bot, source))
        elif agent.partition(":")[0] == "mcts" and agent in record.get("agents", {}):
            played.append(options_text(record["agents"][agent]))  # an older spec: its options
        else:
            played.append(agent)
    return RecordedCell(record, spec, chosen[0], players, lineup, agents, tuple(played))


def _record_of(
    sweep: SweepSpec | dict[str, Any] | str | os.PathLike[str], mix: str, players: int, lineup: str
) -> dict[str, Any]:
    """The spec record of the sweep that holds a cell."""
    if isinstance(sweep, SweepSpec):
        return sweep.record()
    if isinstance(sweep, dict):
        return sweep
    records = sweep_records(sweep)
    if not records:
        raise SearchError(f"{sweep} keeps no spec (a file of an older version): pass its SweepSpec")
    for record in records:
        spec = SweepSpec.from_json(json.dumps(record))
        if mix in [m.name for m in spec.mixes] and players in spec.players and lineup in dict(spec.deals):
            return record
    raise SearchError(f"{sweep} has no cell ({mix}, {players} players, {lineup})")


def pinned_agent(bot: dict[str, Any], sweep: Path | None = None) -> str:
    """The "mcts:..." spec that plays a recorded bot as it was played: its full options, with the
    value network it played named by its file (network_file: the copy of the sweep folder or
    merged file `sweep`, else where the options read it; SearchError when that file is missing or
    is another network now), or, where none played, the rollouts that eval=value and prior=value
    fall back to (so a network shipped since does not take over)."""
    options = _options_of(bot["options"])
    if bot["network"] is not None:
        options["value"] = str(network_file(bot, sweep))
        if "," in options["value"]:  # the options' text separates options by ","
            raise SearchError(
                f"{options['value']}: an agent option cannot name a path with ','; rename the folder"
            )
    else:
        options = rollouts_instead(options, ("value",))
    return options_text(options)


def bots_note(record: dict[str, Any]) -> str | None:
    """None for a spec record that pins its bots; for one of an older version, what that means."""
    if "bots" in record:
        return None
    if "agents" in record:
        return (
            "the bots of this sweep are not pinned: its spec (of an older version) records their options "
            "but not what valued their leaves; a replay plays the recorded options, which with eval=value "
            "or prior=value take the value network shipped today, maybe not the one that played"
        )
    return (
        "the bots of this sweep are not pinned: its spec (of an older version) records neither their "
        "options nor what valued their leaves; a replay plays today's defaults, which may differ"
    )


def bots_summary(records: Sequence[dict[str, Any]]) -> str:
    """One sentence for a report: which value network valued the MCTS bots' leaves in which
    cells, or that the bots are not pinned; "" without records."""
    notes = [note for note in (bots_note(r) for r in records) if note is not None]
    if notes:
        return notes[0][0].upper() + notes[0][1:] + "."
    networks: dict[str, list[str]] = {}
    rollouts = 0
    for record in records:
        for bot in record["bots"]:
            if bot["network"] is None:
                rollouts += 1
                continue
            name = f"{bot['network']['file']} (sha256 {bot['network']['sha256'][:16]})"
            cell = f"{bot['mix']} {bot['players']} players"
            networks.setdefault(name, [])
            if cell not in networks[name]:
                networks[name].append(cell)
    if not networks and not rollouts:
        return ""
    parts = [f"the value network {name} in {', '.join(cells)}" for name, cells in networks.items()]
    if rollouts:
        parts.append("rollouts elsewhere" if networks else "rollouts in every cell")
    return (
        f"The MCTS bots' leaves were valued by {'; '.join(parts)}. The spec file records each cell's "
        "full options, evaluator and network SHA-256."
    )
