"""A balance sweep: rule mixes x player counts x agent line-ups, played by the arena in C++
threads, one parquet row per game and seat.

The sweep is cut into chunks of deals. A chunk is one arena run (decks first_deal .. first_deal +
deals - 1, every seat rotation), a deterministic function of the spec: the same spec and seeds give
the same games wherever a chunk runs (on one thread per chunk; this process or a Ray worker). Each
finished chunk is written as its own part file of the output folder, a parquet dataset
(`pandas.read_parquet(folder)` reads it whole), so a killed sweep continues with the chunks that
have no part file yet.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from .. import CAUSES, SearchError, arena

FIGURE_KINDS = ("meeple", "mayor", "wagon", "barn")
SPEC_FILE = "spec.json"


@dataclass(frozen=True)
class Mix:
    """A rule mix: a name for tables and plots, the expansions and the variants."""

    name: str
    expansions: tuple[str, ...] = ()
    variants: tuple[tuple[str, str], ...] = ()


# The default sweep's mixes: the base game, each expansion alone (Count, King & Robber in its
# parts: the City start, King & Robber, the shrines, River II) and everything with the City start
# (River II cannot be played with the City, CK-0).
DEFAULT_MIXES = (
    Mix("base"),
    Mix("abbey-mayor", ("abbey-mayor",)),
    Mix("city", (), (("start", "city"),)),
    Mix("king-robber", ("king-robber",)),
    Mix("shrines", ("shrines",)),
    Mix("river2", (), (("start", "river2"),)),
    Mix("anniv20", ("anniv20",)),
    Mix("everything", ("abbey-mayor", "king-robber", "shrines", "anniv20"), (("start", "city"),)),
)

# Line-ups: every seat greedy, every seat MCTS, one MCTS among greedy bots (the skill gradient).
LINEUPS = ("greedy", "mcts", "mcts+greedy")


def lineup_agents(lineup: str, players: int, mcts: str) -> list[str]:
    """The arena's entrants of a line-up (the arena rotates them over the seats)."""
    if lineup == "greedy":
        return ["greedy"] * players
    if lineup == "mcts":
        return [mcts] * players
    if lineup == "mcts+greedy":
        return [mcts] + ["greedy"] * (players - 1)
    raise SearchError(f"unknown line-up '{lineup}' (known: {', '.join(LINEUPS)})")


@dataclass(frozen=True)
class SweepSpec:
    """What a sweep plays. `deals` is per line-up (MCTS games cost far more than greedy ones);
    a chunk holds at most `chunk_deals` deals of one cell (mix, players, line-up)."""

    mixes: tuple[Mix, ...] = DEFAULT_MIXES
    players: tuple[int, ...] = (2, 3, 4)
    deals: tuple[tuple[str, int], ...] = (("greedy", 200), ("mcts", 8), ("mcts+greedy", 24))
    mcts: str = "mcts:iters=100,memory=64"
    chunk_deals: int = 8
    seed: int = 1
    agent_seed: int = 1

    def to_json(self) -> str:
        return json.dumps(asdict(self), sort_keys=True)

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
        )


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
        """The part file's name: unique in the sweep, readable."""
        last = self.first_deal + self.deals - 1
        return f"{self.mix.name}_p{self.players}_{self.lineup}_d{self.first_deal:05d}-{last:05d}"


def chunks(spec: SweepSpec) -> list[Chunk]:
    """Every chunk of the sweep, each line-up's chunks spread evenly over the run (a line-up of
    r chunks per cell has its k-th at the fraction (k + 1/2) / r of the run): every stretch of
    the run mixes the cheap greedy games and the slow MCTS ones as the whole does, so the progress
    bar's ETA holds from the start, and a stopped sweep has some games of each cell."""
    deals = dict(spec.deals)
    unknown = set(deals) - set(LINEUPS)
    if unknown:
        raise SearchError(f"unknown line-up(s) {sorted(unknown)} (known: {', '.join(LINEUPS)})")
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


def play_chunk(chunk: Chunk, threads: int = 1) -> pa.Table:
    """Plays one chunk in C++ threads and returns its rows (one per game and seat). With one
    thread, or with agents that are deterministic given their seeds (greedy; MCTS on one thread
    with an iteration budget), the rows do not depend on `threads` or on the machine, except the
    timing columns think_seconds."""
    result = arena(
        list(chunk.agents),
        deals=chunk.deals,
        first_deal=chunk.first_deal,
        players=chunk.players,
        expansions=chunk.mix.expansions,
        variants=dict(chunk.mix.variants),
        seed=chunk.seed,
        agent_seed=chunk.agent_seed,
        threads=threads,
    )
    return records_table(chunk, result.games)


def records_table(chunk: Chunk, games: Iterable[Any]) -> pa.Table:
    """The parquet rows of a chunk's GameRecords: one per game and seat."""
    columns: dict[str, list[Any]] = {name: [] for name in SCHEMA.names}
    expansions = ",".join(chunk.mix.expansions)
    variants = ",".join(f"{k}={v}" for k, v in chunk.mix.variants)
    for g in games:
        players = len(g.scores)
        game_decisions = sum(g.decisions)
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
    ]
    + [(f"points_{cause}", pa.int32()) for cause in CAUSES]
    + [(f"figures_{kind}", pa.int32()) for kind in FIGURE_KINDS]
)

# Columns that depend on the machine and its load, not on the games.
TIMING_COLUMNS = ("think_seconds",)


def _write_part(folder: Path, chunk: Chunk, table: pa.Table) -> None:
    """Writes a chunk's part file atomically: a killed write leaves no part (only a .tmp file)."""
    tmp = folder / f".{chunk.name}.parquet.tmp"
    pq.write_table(table, tmp)
    os.replace(tmp, folder / f"{chunk.name}.parquet")


def open_sweep(out: str | os.PathLike[str], spec: SweepSpec, resume: bool) -> tuple[Path, list[Chunk]]:
    """Prepares the output folder and returns it with the chunks still to play. A folder of
    another spec is refused (SearchError); without `resume` an existing sweep is refused too, so
    a finished sweep is never overwritten by mistake."""
    folder = Path(out)
    spec_path = folder / SPEC_FILE
    if spec_path.exists():
        if not resume:
            raise SearchError(
                f"{folder} already holds a sweep: resume it (--resume) or choose another folder"
            )
        if SweepSpec.from_json(spec_path.read_text()) != spec:
            raise SearchError(f"{folder} holds a sweep of another spec; it is left alone")
    elif folder.exists() and any(folder.iterdir()):
        raise SearchError(f"{folder} is not empty and holds no sweep ({SPEC_FILE})")
    folder.mkdir(parents=True, exist_ok=True)
    spec_path.write_text(spec.to_json() + "\n")
    done = {p.stem for p in folder.glob("*.parquet")}
    return folder, [c for c in chunks(spec) if c.name not in done]


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
    sweep (only chunks without a part file are played). `address`: a Ray cluster ("auto", or
    "host:port") plays the chunks, one task each; the rows are the same as a local run's
    (ray_runner.py). Ctrl-C stops at once (KeyboardInterrupt); finished chunks are kept."""
    from tqdm import tqdm

    spec = spec or SweepSpec()
    folder, todo = open_sweep(out, spec, resume)
    total = sum(c.games for c in chunks(spec))
    if address is None:
        runner = local_runner(threads)
    else:
        from .ray_runner import ray_runner

        runner = ray_runner(address)
    with tqdm(
        total=total, initial=total - sum(c.games for c in todo), unit="game", disable=not progress
    ) as bar:
        for chunk, table in runner(todo):
            _write_part(folder, chunk, table)
            bar.update(chunk.games)
    return folder


def _parts(folder: Path) -> list[Path]:
    """A sweep folder's part files in the order of its spec's chunks (so its rows, tables and
    plots list the mixes in the spec's order), any others after them by name."""
    order: dict[str, int] = {}
    spec_file = folder / SPEC_FILE
    if spec_file.exists():
        spec = SweepSpec.from_json(spec_file.read_text())
        lineups = [lineup for lineup, _ in spec.deals]

        def spec_order(c: Chunk) -> tuple[int, int, int, int]:
            mix, players = spec.mixes.index(c.mix), spec.players.index(c.players)
            return (mix, players, lineups.index(c.lineup), c.first_deal)

        order = {c.name: i for i, c in enumerate(sorted(chunks(spec), key=spec_order))}
    return sorted(folder.glob("*.parquet"), key=lambda p: (order.get(p.stem, len(order)), p.name))


def read_sweep(path: str | os.PathLike[str]) -> Any:
    """A sweep's rows as a pandas DataFrame: every part file of a sweep folder, or one parquet
    file of rows (e.g. a finished sweep merged with `merge_sweep`)."""
    import pandas as pd

    source = Path(path)
    parts = _parts(source) if source.is_dir() else [source]
    if not parts or not parts[0].exists():
        raise SearchError(f"{source}: no games (no parquet files)")
    return pd.concat([pq.read_table(p).to_pandas() for p in parts], ignore_index=True)


def merge_sweep(folder: str | os.PathLike[str], out: str | os.PathLike[str]) -> Path:
    """Writes every row of a sweep folder into one parquet file (to keep or share a finished
    sweep) and returns its path."""
    parts = _parts(Path(folder))
    if not parts:
        raise SearchError(f"{folder}: no games (no parquet files)")
    pq.write_table(pa.concat_tables([pq.read_table(p) for p in parts]), out, compression="zstd")
    return Path(out)
