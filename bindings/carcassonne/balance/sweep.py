"""A balance sweep: rule mixes x player counts x agent line-ups, played by the arena in C++
threads, one parquet row per game and seat.

The sweep is cut into chunks of deals. A chunk is one arena run (decks first_deal .. first_deal +
deals - 1, every seat rotation), a deterministic function of the spec: the same spec and seeds give
the same games wherever a chunk runs (on one thread per chunk; this process or a Ray worker). Each
finished chunk is written as its own part file of the output folder, a parquet dataset
(`pandas.read_parquet(folder)` reads it whole: the spec file's name starts with "_", which parquet
readers skip), so a killed sweep continues with the chunks that have no part file yet.

The spec file also records the code that played (package version, engine commit, every agent
option with its default filled in), the tile file of the mixes of expansion custom (its path,
SHA-256, tiles and changed counts) and the bot behind every MCTS cell ("bots": its full options,
the evaluator that valued its leaves, the value network's file and SHA-256 where one played); a
resume with other code, a package that would value a cell otherwise, another tile file, or part
files of another spec, is refused: it would mix games that are not of one experiment. The folder
keeps a copy of every value network its bots play (NETWORKS_FOLDER), a merged file embeds them
(NETWORKS_KEY; both in networks.py), and `replay_deal` (replay.py) plays a deal with the recorded
bot and that copy, not with today's defaults and networks. The line-ups and agent options are in
lineups.py.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import warnings
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from .. import CAUSES, SearchError, __version__, _core, arena, make_config
from ..agents import REFERENCE_PREFIX, load_agent
from ..mixes import DEFAULT_MIXES, Mix
from .lineups import _options_of, agent_options, lineup_agents, options_text
from .networks import (
    NETWORKS_KEY,
    _cell_name,
    _embedded_networks,
    _network_named,
    _network_now,
    keep_networks,
    probe_evaluator,
    value_network,
)

FIGURE_KINDS = ("meeple", "mayor", "wagon", "barn")
# The expansion (and tile set) of the tile file named by CARC_TILES (docs/balance.md).
CUSTOM_EXPANSION = "custom"
# "_": parquet readers (pandas.read_parquet(folder)) skip it. Folders of older versions hold
# OLD_SPEC_FILE; they are still read.
SPEC_FILE = "_spec.json"
OLD_SPEC_FILE = "spec.json"
# The key of a part file's parquet metadata that names the sweep it belongs to.
PART_KEY = b"carcassonne.sweep"
# The key of a merged file's parquet metadata that holds the spec files of its sweeps.
SPECS_KEY = b"carcassonne.specs"
# The key of a chunk's table metadata that lists what valued each entrant's leaves (the arena's
# EntrantStats.evaluator; "" for an agent that does not search).
EVALUATORS_KEY = b"carcassonne.evaluators"


@dataclass(frozen=True)
class SweepSpec:
    """What a sweep plays. `deals` is per line-up (MCTS games cost far more than greedy ones);
    a chunk holds at most `chunk_deals` deals of one cell (mix, players, line-up)."""

    mixes: tuple[Mix, ...] = DEFAULT_MIXES
    players: tuple[int, ...] = (2, 3, 4)
    deals: tuple[tuple[str, int], ...] = (("greedy", 200), ("mcts", 192), ("mcts+greedy", 160))
    mcts: str = "mcts:iters=100,memory=64"
    chunk_deals: int = 8
    seed: int = 1
    agent_seed: int = 1
    # MCTS agents with a time budget or several search threads play otherwise on every run (the
    # machine's speed and load decide how far they search): refused unless this is set.
    allow_nondeterministic: bool = False

    def to_json(self) -> str:
        return json.dumps(asdict(self), sort_keys=True)

    def validate(self) -> None:
        """Raises SearchError (ConfigError for rules) for anything a sweep would reject later:
        called before a sweep creates its folder, so a bad option leaves nothing behind."""
        if self.mcts.partition(":")[0] != "mcts":
            raise SearchError(
                f"the MCTS agent of the line-ups must be an 'mcts:...' agent, not '{self.mcts}'"
            )
        if not self.mixes:
            raise SearchError("a sweep needs at least one mix")
        _no_repeats("mix", [m.name for m in self.mixes])
        if not self.players:
            raise SearchError("a sweep needs at least one player count")
        _no_repeats("player count", list(self.players))
        if not self.deals:
            raise SearchError("a sweep needs at least one line-up (deals: lineup=count)")
        _no_repeats("line-up", [lineup for lineup, _ in self.deals])
        for lineup, n in self.deals:
            lineup_agents(lineup, 2, self.mcts)  # an unknown line-up raises
            if not isinstance(n, int) or n < 1:
                raise SearchError(f"deals of line-up '{lineup}' must be a count >= 1, got {n!r}")
        if self.chunk_deals < 1:
            raise SearchError(f"chunk_deals must be >= 1, got {self.chunk_deals}")
        for name, seed in (("seed", self.seed), ("agent_seed", self.agent_seed)):
            if not isinstance(seed, int) or not 0 <= seed < 2**64:
                raise SearchError(f"{name} must be an integer in [0, 2^64), got {seed!r}")
        for mix in self.mixes:
            for players in self.players:
                make_config(players, mix.expansions, dict(mix.variants), self.seed)  # rules: ConfigError
        for agent, options in self.agent_options().items():
            if agent.startswith("mcts") and not self.allow_nondeterministic:
                timed = float(options.get("time", "0")) > 0
                threaded = int(options.get("threads", "1")) > 1
                if timed or threaded:
                    raise SearchError(
                        f"'{agent}' searches {'for a time' if timed else 'on several threads'}: its games "
                        "depend on the machine's speed and load, so the sweep would not replay. Give it "
                        "an iteration budget on one thread (iters=N, no time=, threads=1), or accept "
                        "that with --allow-nondeterministic"
                    )

    def agent_options(self) -> dict[str, dict[str, str]]:
        """Every agent of the sweep with all its options, defaults filled in (a changed default
        changes the spec file)."""
        agents = {a for lineup, _ in self.deals for a in lineup_agents(lineup, 2, self.mcts)}
        return {a: agent_options(a) for a in sorted(agents)}

    def bots(self) -> list[dict[str, Any]]:
        """The bot behind each MCTS agent of each cell, as this package plays it: the agent, its
        full options (options_text), the evaluator that values its leaves in the cell's games and
        the value network's file and SHA-256 (None when none plays)."""
        found = []
        for mix in self.mixes:
            for players in self.players:
                for lineup, _ in self.deals:
                    for agent in dict.fromkeys(lineup_agents(lineup, players, self.mcts)):
                        if agent.partition(":")[0] != "mcts":
                            continue
                        options = agent_options(agent)
                        evaluator = probe_evaluator(options, mix, players, self.seed)
                        found.append(
                            {
                                "mix": mix.name,
                                "players": players,
                                "lineup": lineup,
                                "agent": agent,
                                "options": options_text(options),
                                "evaluator": evaluator,
                                "network": value_network(evaluator, options),
                            }
                        )
        return found

    def record(self) -> dict[str, Any]:
        """What the spec file holds: the spec, every agent option, the bot of every MCTS cell and
        the code that plays it."""
        return {
            **asdict(self),
            "agents": self.agent_options(),
            "bots": self.bots(),
            "code": code_version(),
            "tiles": tile_file_record(self.mixes),
        }

    @staticmethod
    def from_json(text: str) -> SweepSpec:
        d = json.loads(text)
        return SweepSpec(
            mixes=tuple(
                Mix(m["name"], tuple(m["expansions"]), tuple((k, v) for k, v in m["variants"]))
                for m in d["mixes"]
            ),
            players=tuple(d["players"]),
            deals=tuple((lineup, n) for lineup, n in d["deals"]),
            mcts=d["mcts"],
            chunk_deals=d["chunk_deals"],
            seed=d["seed"],
            agent_seed=d["agent_seed"],
            allow_nondeterministic=d.get("allow_nondeterministic", False),  # older spec files: none
        )


def _no_repeats(what: str, items: list[Any]) -> None:
    repeated = sorted({str(x) for x in items if items.count(x) > 1})
    if repeated:
        raise SearchError(f"each {what} may be listed once; listed twice: {', '.join(repeated)}")


def code_version() -> dict[str, str]:
    """The code that plays a sweep: the package version, the git commit of the checkout the
    package runs from ("unknown" for an installed package), a hash of the compiled engine
    (which tells two builds apart when there is no commit) and one of the rows' columns (a
    version that writes other columns is other code)."""
    engine = hashlib.sha256(Path(_core.__file__).read_bytes()).hexdigest()[:16]
    rows = hashlib.sha256(str(SCHEMA).encode()).hexdigest()[:16]
    return {"version": __version__, "commit": _git_commit(), "engine": engine, "rows": rows}


def tile_file_record(mixes: Iterable[Mix]) -> dict[str, Any] | None:
    """The tile file (CARC_TILES) that the mixes of expansion custom play, as the engine read it:
    its path, SHA-256, tiles with their counts and the counts it changes; None when no mix
    plays it."""
    if not any(CUSTOM_EXPANSION in m.expansions for m in mixes):
        return None
    file = _core.tile_file()
    kinds = _core.tile_kinds(geometry=True)
    return {
        "path": file["path"],
        "sha256": hashlib.sha256(file["text"]).hexdigest(),
        "tiles": {k["name"]: k["count"] for k in kinds if k["set"] == CUSTOM_EXPANSION},
        "counts": {k["name"]: k["custom_count"] for k in kinds if k["custom_count"] is not None},
    }


def _git_commit() -> str:
    try:
        done = subprocess.run(
            ["git", "-C", str(Path(__file__).resolve().parent), "rev-parse", "HEAD"],
            capture_output=True,
            text=True,
            timeout=10,
        )
    except (OSError, subprocess.SubprocessError):
        return "unknown"
    return done.stdout.strip() if done.returncode == 0 else "unknown"


def _fingerprint(record: dict[str, Any]) -> str:
    """Names a sweep's spec and code in each of its part files."""
    return hashlib.sha256(json.dumps(record, sort_keys=True).encode()).hexdigest()[:16]


@dataclass(frozen=True)
class Chunk:
    """One arena run of a sweep: deals first_deal .. first_deal + deals - 1 of one cell."""

    mix: Mix
    players: int
    lineup: str
    agents: tuple[str, ...]
    first_deal: int
    deals: int
    seed: int
    agent_seed: int
    games: int = field(init=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "games", self.deals * self.players)

    @property
    def name(self) -> str:
        """The part file's name: unique in the sweep, readable (a Python agent's ':' is '~')."""
        last = self.first_deal + self.deals - 1
        lineup = self.lineup.replace(":", "~")
        return f"{self.mix.name}_p{self.players}_{lineup}_d{self.first_deal:05d}-{last:05d}"


def chunks(spec: SweepSpec) -> list[Chunk]:
    """Every chunk of the sweep, each line-up's chunks spread evenly over the run (a line-up of
    r chunks per cell has its k-th at the fraction (k + 1/2) / r of the run): every stretch of
    the run mixes the cheap greedy games and the slow MCTS ones as the whole does, so the progress
    bar's ETA holds from the start, and a stopped sweep has some games of each cell."""
    deals = dict(spec.deals)
    for lineup in deals:
        lineup_agents(lineup, 2, spec.mcts)  # an unknown line-up raises
    if spec.chunk_deals < 1:
        raise SearchError(f"chunk_deals must be >= 1, got {spec.chunk_deals}")
    cells = [(mix, players, lineup) for mix in spec.mixes for players in spec.players for lineup in deals]
    keyed = []
    for cell, (mix, players, lineup) in enumerate(cells):
        rounds = -(-deals[lineup] // spec.chunk_deals)
        agents = tuple(lineup_agents(lineup, players, spec.mcts))
        for k in range(rounds):
            first = k * spec.chunk_deals
            n = min(spec.chunk_deals, deals[lineup] - first)
            chunk = Chunk(mix, players, lineup, agents, first, n, spec.seed, spec.agent_seed)
            keyed.append(((k + 0.5) / rounds, cell, chunk))
    return [chunk for _, _, chunk in sorted(keyed, key=lambda t: t[:2])]


def play_chunk(chunk: Chunk, threads: int = 1, agents: Sequence[str] | None = None) -> pa.Table:
    """Plays one chunk in C++ threads and returns its rows (one per game and seat). With one
    thread, or with agents that are deterministic given their seeds (greedy; MCTS on one thread
    with an iteration budget), the rows do not depend on `threads` or on the machine, except the
    timing columns think_seconds. A Python agent (a "py:" reference) is made anew for each of
    its entrants; the arena plays a chunk with one on one thread, one game at a time. `agents`
    (one per entrant) play in place of the chunk's, which still name the rows (a replay's
    pinned bots). The table's metadata lists what valued each entrant's leaves (EVALUATORS_KEY)."""
    result = arena(
        [load_agent(a) if a.startswith(REFERENCE_PREFIX) else a for a in agents or chunk.agents],
        deals=chunk.deals,
        first_deal=chunk.first_deal,
        players=chunk.players,
        expansions=chunk.mix.expansions,
        variants=dict(chunk.mix.variants),
        seed=chunk.seed,
        agent_seed=chunk.agent_seed,
        threads=threads,
        record_actions=True,  # replayed for the per-turn columns (game flow, tile value)
    )
    evaluators = json.dumps([e.evaluator for e in result.entrants]).encode()
    return records_table(chunk, result.games).replace_schema_metadata({EVALUATORS_KEY: evaluators})


def _bots_of(record: dict[str, Any]) -> dict[tuple[str, int, str, str], dict[str, Any]]:
    """A spec record's bots by (mix, players, line-up, agent)."""
    return {(b["mix"], b["players"], b["lineup"], b["agent"]): b for b in record.get("bots", [])}


def _check_evaluators(chunk: Chunk, table: pa.Table, record: dict[str, Any], pinned: bool = False) -> None:
    """Refuses a chunk whose MCTS entrants valued their leaves otherwise than the record's bots
    say: the whole text must match, or for `pinned` agents (a replay) the network file and hash."""
    played = json.loads((table.schema.metadata or {}).get(EVALUATORS_KEY, b"[]"))
    bots = _bots_of(record)
    for agent, evaluator in zip(chunk.agents, played, strict=False):
        bot = bots.get((chunk.mix.name, chunk.players, chunk.lineup, agent))
        if bot is None:
            continue
        network = bot["network"]
        if pinned:
            named = _network_named(evaluator)
            if network is None:
                same = named is None
            else:
                same = named is not None and network["sha256"].startswith(named[1])
        else:
            same = evaluator == bot["evaluator"]
        if not same:
            raise SearchError(
                f"{chunk.name}: {agent} valued its leaves with {evaluator!r}; the spec records "
                f"{bot['evaluator']!r}: the games would not be those of the sweep"
            )


def game_turns(chunk: Chunk, game: Any) -> tuple[list[int], list[str], list[list[int]]]:
    """Replays a recorded game turn by turn: per turn, the seat whose turn it was, the kind of the
    tile it placed (an abbey too; "" for a turn that placed none) and every seat's standing
    after it, the score the seat would have if the game ended there (state.scores_if_ended():
    completed and unfinished features, fields), which the last turn leaves at the final scores."""
    config = make_config(len(game.scores), chunk.mix.expansions, dict(chunk.mix.variants), game.seed)
    state = _core.State(config)
    seats: list[int] = []
    tiles: list[str] = []
    standings: list[list[int]] = []
    turn, seat, placed = state.turn_number(), state.turn_player(), len(state.placed_tiles())
    for code in game.actions:
        state.apply(code)
        if state.is_terminal() or state.turn_number() != turn:
            board = state.placed_tiles()
            seats.append(seat)
            tiles.append(board[-1][0] if len(board) > placed else "")
            standings.append(state.scores_if_ended())
            if not state.is_terminal():
                turn, seat, placed = state.turn_number(), state.turn_player(), len(board)
    if state.scores() != list(game.scores):  # the replay must be the game that was played
        raise SearchError(f"replaying deal {game.deal} rotation {game.rotation} gave other scores")
    return seats, tiles, standings


def records_table(chunk: Chunk, games: Iterable[Any]) -> pa.Table:
    """The parquet rows of a chunk's GameRecords: one per game and seat."""
    columns: dict[str, list[Any]] = {name: [] for name in SCHEMA.names}
    expansions = ",".join(chunk.mix.expansions)
    variants = ",".join(f"{k}={v}" for k, v in chunk.mix.variants)
    for g in games:
        players = len(g.scores)
        game_decisions = sum(g.decisions)
        turn_seat, turn_tile, standings = game_turns(chunk, g)
        for s in range(players):
            best_other = max(g.scores[t] for t in range(players) if t != s)
            row: dict[str, Any] = {
                "mix": chunk.mix.name,
                "expansions": expansions,
                "variants": variants,
                "players": players,
                "lineup": chunk.lineup,
                "deal": g.deal,
                "rotation": g.rotation,
                "seat": s,
                "entrant": g.entrant[s],
                "agent": chunk.agents[g.entrant[s]],
                "seed": g.seed,
                "agent_seed": g.agent_seed,
                "score": g.scores[s],
                "margin": g.scores[s] - best_other,
                "win_share": g.win_share[s],
                "rank": g.rank[s],
                "turns": g.turns,
                "decisions": g.decisions[s],
                "game_decisions": game_decisions,
                "tiles": g.tiles[s],
                "tiles_by_kind": sorted(g.tiles_by_kind[s].items()),
                "iterations": g.iterations[s],
                "think_seconds": g.think_seconds[s],
                "turn_seat": turn_seat,
                "turn_tile": turn_tile,
                "standing": [standing[s] for standing in standings],
            }
            for c, cause in enumerate(CAUSES):
                row[f"points_{cause}"] = g.points[s][c]
            for f, kind in enumerate(FIGURE_KINDS):
                row[f"figures_{kind}"] = g.figures[s][f]
            for name, value in row.items():
                columns[name].append(value)
    return pa.table(columns, schema=SCHEMA)


SCHEMA = pa.schema(
    [
        ("mix", pa.string()),
        ("expansions", pa.string()),
        ("variants", pa.string()),
        ("players", pa.int8()),
        ("lineup", pa.string()),
        ("deal", pa.int32()),
        ("rotation", pa.int8()),
        ("seat", pa.int8()),
        ("entrant", pa.int8()),
        ("agent", pa.string()),
        ("seed", pa.uint64()),
        ("agent_seed", pa.uint64()),
        ("score", pa.int32()),
        ("margin", pa.int32()),
        ("win_share", pa.float64()),
        ("rank", pa.int8()),
        ("turns", pa.int32()),
        ("decisions", pa.int32()),
        ("game_decisions", pa.int32()),
        ("tiles", pa.int32()),
        ("tiles_by_kind", pa.map_(pa.string(), pa.int32())),
        ("iterations", pa.uint64()),
        ("think_seconds", pa.float64()),
        # Per turn of the game (the same on each of its rows): whose turn, the tile kind placed.
        ("turn_seat", pa.list_(pa.int8())),
        ("turn_tile", pa.list_(pa.dictionary(pa.int16(), pa.string()))),
        # Per turn: this seat's standing after it (its score if the game ended there).
        ("standing", pa.list_(pa.int16())),
    ]
    + [(f"points_{cause}", pa.int32()) for cause in CAUSES]
    + [(f"figures_{kind}", pa.int32()) for kind in FIGURE_KINDS]
)

# Columns that depend on the machine and its load, not on the games.
TIMING_COLUMNS = ("think_seconds",)


def _write_part(folder: Path, chunk: Chunk, table: pa.Table, fingerprint: str) -> None:
    """Writes a chunk's part file atomically: a killed write leaves no part (only a .tmp file).
    Its metadata names the sweep (spec and code) it belongs to."""
    tmp = folder / f".{chunk.name}.parquet.tmp"
    table = table.replace_schema_metadata({**(table.schema.metadata or {}), PART_KEY: fingerprint.encode()})
    pq.write_table(table, tmp)
    os.replace(tmp, folder / f"{chunk.name}.parquet")


def _spec_file(folder: Path) -> Path | None:
    for name in (SPEC_FILE, OLD_SPEC_FILE):
        if (folder / name).is_file():
            return folder / name
    return None


def _part_is_whole(path: Path, chunk: Chunk, fingerprint: str) -> bool:
    """Whether a part file is a finished chunk of this sweep; False for a damaged file (a copy
    cut off, a disk error). A file of another sweep raises: it must not be mixed in."""
    try:
        meta = pq.read_metadata(path)
    except (OSError, pa.ArrowException):
        return False
    if (meta.metadata or {}).get(PART_KEY, b"").decode() != fingerprint:
        raise SearchError(
            f"{path} was not played by this sweep (another spec, agent or code); "
            "move it away or start a new folder"
        )
    return bool(meta.num_rows == chunk.games * chunk.players)


def open_sweep(out: str | os.PathLike[str], spec: SweepSpec, resume: bool) -> tuple[Path, list[Chunk]]:
    """Prepares the output folder and returns it with the chunks still to play. The spec is
    checked first, so a bad one creates nothing. A folder of another spec, agent options or code
    (package version, commit, engine) is refused (SearchError), as is one holding part files
    of another sweep; without `resume` a folder holding games is refused too, so a finished
    sweep is never overwritten by mistake. Damaged part files are played again. The folder keeps
    a copy of every value network the bots play (keep_networks)."""
    spec.validate()
    record = spec.record()
    fingerprint = _fingerprint(record)
    folder = Path(out)
    spec_path = _spec_file(folder)
    every = chunks(spec)
    if spec_path is not None:
        parts = list(folder.glob("*.parquet"))
        if not resume and parts:
            raise SearchError(
                f"{folder} already holds a sweep: resume it (--resume) or choose another folder"
            )
        if resume:
            try:
                old = json.loads(spec_path.read_text())
                same = SweepSpec.from_json(spec_path.read_text()) == spec
            except (ValueError, KeyError, TypeError) as e:
                raise SearchError(f"{spec_path} cannot be read ({e}); the folder is left alone") from e
            if not same:
                raise SearchError(f"{folder} holds a sweep of another spec; it is left alone")
            bots = _bot_differences(old.get("bots"), record["bots"])
            if bots:
                raise SearchError(
                    f"{folder} was played by other bots than this package would play: {'; '.join(bots)}. "
                    "Its games would not be of one experiment: resume with the package that played "
                    "it, or start a new folder"
                )
            tiles = _differences(old.get("tiles"), record["tiles"], "tiles")
            if tiles:
                raise SearchError(
                    f"{folder} was played with another tile file ({'; '.join(tiles)}); its games would "
                    "not be of one experiment: set CARC_TILES to the file that played it, or start a "
                    "new folder"
                )
            changed = _differences(
                {"code": old.get("code"), "agents": old.get("agents")},
                {"code": record["code"], "agents": record["agents"]},
            )
            if changed:
                raise SearchError(
                    f"{folder} was played by other code or agent options ({'; '.join(changed)}); its "
                    "games would not be of one experiment: start a new folder"
                )
            names = {c.name for c in every}
            strangers = sorted(p.name for p in parts if p.stem not in names)
            if strangers:
                raise SearchError(
                    f"{folder} holds part files that are not of its spec: {', '.join(strangers)}"
                )
    elif folder.exists() and not folder.is_dir():
        raise SearchError(f"{folder} is a file; a sweep writes a folder")
    elif folder.exists() and any(folder.iterdir()):
        raise SearchError(f"{folder} is not empty and holds no sweep ({SPEC_FILE})")
    folder.mkdir(parents=True, exist_ok=True)
    if spec_path is not None and spec_path.name != SPEC_FILE:
        spec_path.unlink()  # an older name; only a folder without games gets here
    tmp = folder / f".{SPEC_FILE}.tmp"
    tmp.write_text(json.dumps(record, sort_keys=True, indent=1) + "\n")
    os.replace(tmp, folder / SPEC_FILE)
    keep_networks(folder, record["bots"])
    todo = []
    for c in every:
        part = folder / f"{c.name}.parquet"
        if part.exists() and _part_is_whole(part, c, fingerprint):
            continue
        if part.exists():
            warnings.warn(f"{part} is damaged; its chunk is played again", stacklevel=2)
        todo.append(c)
    return folder, todo


def _played_with(bot: dict[str, Any]) -> str:
    network = bot["network"]
    if network is None:
        return f"its leaves were valued by {bot['evaluator']}"
    return f"its leaves were valued by the value network {network['file']} (sha256 {network['sha256']})"


def _bot_differences(old: list[dict[str, Any]] | None, new: list[dict[str, Any]]) -> list[str]:
    """Per cell whose bot this package would play otherwise than recorded: what differs."""
    if old is None:
        return ["the spec does not record its cells' evaluators and value networks (an older version)"]
    now = {(b["mix"], b["players"], b["lineup"], b["agent"]): b for b in new}
    found = []
    for was in old:
        bot = now.get((was["mix"], was["players"], was["lineup"], was["agent"]))
        if bot is None:
            found.append(f"{_cell_name(was)}: {was['agent']} is not played by this spec")
        elif was["options"] != bot["options"]:
            changed = _differences(_options_of(was["options"]), _options_of(bot["options"]))
            found.append(f"{_cell_name(was)}: other options ({', '.join(changed)})")
        elif (was["evaluator"], was["network"]) != (bot["evaluator"], bot["network"]):
            gone = _network_now(was) if was["network"] else ""
            found.append(
                f"{_cell_name(was)}: {_played_with(was)}{f', and {gone}' if gone else ''}; "
                f"this package would value them with {bot['evaluator']}"
            )
    return found


def _differences(old: Any, new: Any, where: str = "") -> list[str]:
    """What differs between two records, one "where: old -> new" per differing value."""
    if isinstance(old, dict) and isinstance(new, dict):
        found: list[str] = []
        for key in sorted(set(old) | set(new), key=str):
            path = f"{where}.{key}" if where else str(key)
            found += _differences(old.get(key, "not recorded"), new.get(key, "not recorded"), path)
        return found
    return [] if old == new else [f"{where}: {old!r} -> {new!r}"]


Runner = Callable[[Sequence[Chunk]], Iterator[tuple[Chunk, pa.Table]]]


def local_runner(threads: int) -> Runner:
    """Plays the chunks one after another in this process, each over `threads` C++ threads."""

    def run(todo: Sequence[Chunk]) -> Iterator[tuple[Chunk, pa.Table]]:
        for chunk in todo:
            yield chunk, play_chunk(chunk, threads)

    return run


def run_sweep(
    out: str | os.PathLike[str],
    spec: SweepSpec | None = None,
    resume: bool = False,
    threads: int = 1,
    address: str | None = None,
    progress: bool = True,
) -> Path:
    """Plays the sweep into the parquet folder `out` and returns it. `resume` continues a stopped
    sweep (only chunks without a whole part file are played). `address`: a Ray cluster ("auto",
    or "host:port") plays the chunks, one task each; the rows are the same as a local run's
    (ray_runner.py). Ctrl-C stops at once (KeyboardInterrupt); finished chunks are kept. Bad
    specs and an unreachable cluster raise before the folder is touched."""
    from tqdm import tqdm

    spec = spec or SweepSpec()
    spec.validate()
    if isinstance(threads, bool) or not isinstance(threads, int) or threads < 0:
        raise SearchError(f"threads must be a count >= 0 (0: every core), not {threads!r}")
    if address is None:
        runner = local_runner(threads)
    else:
        from .ray_runner import ray_runner

        runner = ray_runner(address, play_chunk)  # checks that the cluster answers
    folder, todo = open_sweep(out, spec, resume)
    record = json.loads((folder / SPEC_FILE).read_text())
    fingerprint = _fingerprint(record)
    total = sum(c.games for c in chunks(spec))
    with tqdm(
        total=total, initial=total - sum(c.games for c in todo), unit="game", disable=not progress
    ) as bar:
        for chunk, table in runner(todo):
            _check_evaluators(chunk, table, record)  # a worker whose package values otherwise
            _write_part(folder, chunk, table, fingerprint)
            bar.update(chunk.games)
    return folder


def _parts(folder: Path) -> list[Path]:
    """A sweep folder's part files in the order of its spec's chunks (so its rows, tables and
    plots list the mixes in the spec's order). With a spec file, only its chunks' files: any
    other parquet file (a merged copy written into the folder) is not part of the sweep."""
    spec_file = _spec_file(folder)
    if spec_file is None:
        return sorted(folder.glob("*.parquet"))
    spec = SweepSpec.from_json(spec_file.read_text())
    lineups = [lineup for lineup, _ in spec.deals]

    def spec_order(c: Chunk) -> tuple[int, int, int, int]:
        mix, players = spec.mixes.index(c.mix), spec.players.index(c.players)
        return (mix, players, lineups.index(c.lineup), c.first_deal)

    paths = [folder / f"{c.name}.parquet" for c in sorted(chunks(spec), key=spec_order)]
    return [p for p in paths if p.exists()]


def _sources(path: Path) -> list[Path]:
    """The parquet files of a sweep folder, or the one file a path names."""
    if path.is_dir():
        return _parts(path)
    if not path.exists():
        raise SearchError(f"{path}: no such sweep folder or parquet file")
    return [path]


# A row's key: a game (cell, deal, rotation) and a seat.
ROW_KEY = ["mix", "players", "lineup", "deal", "rotation", "seat"]


def _check_part(path: Path, table: pa.Table, chunk: Chunk, fingerprint: str) -> None:
    """Refuses a part file of a sweep folder that is not its name's chunk of the folder's sweep:
    a part of another sweep (another spec or code), or one copied under another chunk's name."""
    stored = (table.schema.metadata or {}).get(PART_KEY)  # parts of older versions have none
    if stored is not None and stored.decode() != fingerprint:
        raise SearchError(
            f"{path} was not played by the sweep of {path.parent / SPEC_FILE} (another spec, agent or "
            "code): move it out of the folder"
        )
    cells = table.select(["mix", "players", "lineup"]).to_pylist()
    deals = set(table.column("deal").to_pylist())
    expected = {"mix": chunk.mix.name, "players": chunk.players, "lineup": chunk.lineup}
    if (
        any(row != expected for row in cells)
        or deals != set(range(chunk.first_deal, chunk.first_deal + chunk.deals))
        or table.num_rows != chunk.games * chunk.players
    ):
        raise SearchError(
            f"{path} does not hold the games its name says (deals {chunk.first_deal}-"
            f"{chunk.first_deal + chunk.deals - 1} of {chunk.mix.name}, {chunk.players} players, "
            f"{chunk.lineup}): a part copied or renamed? Move it out of the folder"
        )


def _read_source(path: Path, skip: Path | None = None) -> list[pa.Table]:
    """The rows of a sweep folder (each part file checked against its chunk) or of one parquet
    file, leaving out `skip`; SearchError for a folder without games, a part that is not its
    chunk, or a game and seat stored twice."""
    parts = [p for p in _sources(path) if skip is None or p.resolve() != skip.resolve()]
    if not parts:
        raise SearchError(f"{path}: no games (no parquet files)")
    spec_file = _spec_file(path) if path.is_dir() else None
    chunk_of: dict[str, Chunk] = {}
    fingerprint = ""
    if spec_file is not None:
        text = spec_file.read_text()
        fingerprint = _fingerprint(json.loads(text))
        chunk_of = {c.name: c for c in chunks(SweepSpec.from_json(text))}
    tables = []
    for part in parts:
        table = pq.read_table(part)
        if part.stem in chunk_of:
            _check_part(part, table, chunk_of[part.stem], fingerprint)
        tables.append(table)
    keys = pa.concat_tables([t.select(ROW_KEY) for t in tables]).to_pandas()
    twice = keys[keys.duplicated()]
    if len(twice):
        first = dict(twice.iloc[0])
        raise SearchError(
            f"{path} holds {len(twice)} rows twice (the same game and seat), e.g. {first}: "
            "a part file copied under another name? Move the copy away"
        )
    return tables


def read_sweep(path: str | os.PathLike[str]) -> Any:
    """A sweep's rows as a pandas DataFrame: every part file of a sweep folder, or one parquet
    file of rows (e.g. a finished sweep merged with `merge_sweep`). A folder's part files must
    be the chunks their names say, of the folder's sweep, and no game may be stored twice
    (SearchError)."""
    import pandas as pd

    return pd.concat([t.to_pandas() for t in _read_source(Path(path))], ignore_index=True)


def tiles_summary(records: Sequence[dict[str, Any]]) -> str | None:
    """What the tile files of a sweep's custom mixes held, one sentence each; None without one."""
    said = []
    for tiles in dict.fromkeys(json.dumps(r["tiles"], sort_keys=True) for r in records if r.get("tiles")):
        t = json.loads(tiles)
        new = ", ".join(f"{name} x{count}" for name, count in t["tiles"].items()) or "none"
        counts = ", ".join(f"{name} x{count}" for name, count in t["counts"].items()) or "none"
        said.append(
            f"The mixes of expansion custom play the tile file {t['path']} (SHA-256 {t['sha256']}): "
            f"its tiles {new}; counts it changes {counts}."
        )
    return " ".join(said) or None


def sweep_records(path: str | os.PathLike[str]) -> list[dict[str, Any]]:
    """The spec records (spec, agent options, code; SweepSpec.record) of a sweep folder (its spec
    file) or of a merged file (one per sweep merged into it); empty when none was kept (a file
    of an older version)."""
    path = Path(path)
    if path.is_dir():
        spec_file = _spec_file(path)
        return [json.loads(spec_file.read_text())] if spec_file is not None else []
    if not path.exists():
        raise SearchError(f"{path}: no such sweep folder or parquet file")
    text = (pq.read_schema(path).metadata or {}).get(SPECS_KEY)
    return list(json.loads(text)) if text else []


def merge_sweep(
    folders: str | os.PathLike[str] | Sequence[str | os.PathLike[str]],
    out: str | os.PathLike[str],
    force: bool = False,
) -> Path:
    """Writes every row of one or more sweeps (folders or parquet files) into one parquet file
    (to keep or share a finished sweep) and returns its path. An existing `out` is refused
    unless `force`; sweeps that share a deal of a cell are refused (their decks would be mixed
    up as one deal). The file keeps the sweeps' spec records (SPECS_KEY) and embeds every value
    network their bots played (NETWORKS_KEY; network_file: a folder's copy, a merged file's
    embedded bytes, or for a sweep without copies the file its options read), so its deals
    replay after the package's networks change; a network not found with the SHA-256 it played
    is left out with a warning naming the cells that will not replay."""
    sources = [folders] if isinstance(folders, str | os.PathLike) else list(folders)
    target = Path(out)
    if target.exists() and not force:
        raise SearchError(f"{target} exists: choose another name, or replace it with --force")
    if target.is_dir():
        raise SearchError(f"{target} is a folder; merge writes one parquet file")
    tables: list[pa.Table] = []
    records: list[dict[str, Any]] = []
    bots: list[tuple[Path, dict[str, Any]]] = []
    seen: set[tuple[Any, ...]] = set()
    for source in sources:
        kept = sweep_records(source)
        records += kept
        bots += [(Path(source), b) for r in kept for b in r.get("bots", []) if b["network"] is not None]
        parts = _read_source(Path(source), skip=target)
        table = pa.concat_tables([t.replace_schema_metadata(None) for t in parts])
        games = table.select(["mix", "players", "lineup", "deal"]).to_pandas().drop_duplicates()
        keys = set(games.itertuples(index=False, name=None))
        shared = sorted(keys & seen)
        if shared:
            raise SearchError(
                f"{source} and an earlier sweep both hold deals of the same cells, e.g. {shared[:3]} "
                "(mix, players, line-up, deal): merge sweeps of other cells"
            )
        seen |= keys
        if tables and not table.schema.equals(tables[0].schema):
            raise SearchError(
                f"{source} has other columns than {sources[0]} (sweeps of other versions); "
                "play them again with one version to merge them"
            )
        tables.append(table)
    networks = _embedded_networks(bots, target)
    tmp = target.with_name(f".{target.name}.tmp")
    merged = pa.concat_tables(tables)
    merged = merged.replace_schema_metadata(
        {
            SPECS_KEY: json.dumps(records, sort_keys=True).encode(),
            NETWORKS_KEY: json.dumps(networks, sort_keys=True).encode(),
        }
    )
    pq.write_table(merged, tmp, compression="zstd")
    os.replace(tmp, target)
    return target
