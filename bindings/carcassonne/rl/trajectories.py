"""Training data from batch games: the arena plays them in C++ threads with full records (every
action code, draws included) and, at every decision of an MCTS agent, the root's visit counts
(policy targets), written to one compressed numpy file.

The .npz file holds flat arrays with offsets (ragged data without pickles):
  config           JSON text: players, expansions, variants, agents, seed, agent_seed
  deal, rotation   per game; entrant (games x players): the agent index in each seat
  scores, points   per game and seat: final score; points per cause (games x players x CAUSES)
  game_start       games + 1 offsets into `actions`
  actions          every action code of every game, in order (draws included: they replay it)
  player           per action: who decided (-1 at a draw)
  visit_start      len(actions) + 1 offsets into visit_action / visit_count
  visit_action, visit_count   the root's (action code, visits) pairs, most visited first; none
                   for draws, forced moves and agents without search
  search_win, search_reward   per action and seat (len(actions) x players, float32): that
                   search's estimates at the root, win share and mean reward (the search's
                   reward, by default the margin reward); NaN where there are no visits.
                   Files written before 2 December 2026 lack them.
  win_share        per game and seat (float32): 1/k for each of the k top scorers (B-10), the
                   final result a value head learns. Files written before 3 December 2026 lack it.
  With `observations=` (optional; without it a reader replays the actions), every decision's
  observation from the decider's seat, as rl.encode_batch gives it at `window`:
  obs_index        per stored decision: its index in `actions`
  obs_globals      float32 [decisions, globals]
  obs_planes       "planes": uint8 [decisions, planes, W, W], as encoded
  obs_bits, obs_count_at, obs_count   "packed": the planes bit-packed (numpy.packbits of each
                   decision's flattened planes, bitorder="little"), plus the few bytes above 1
                   (two figures or pennants on a cell): their flat index into the planes and
                   their value. Lossless: `load_observations` gives back the "planes" arrays.
  The config then holds "observations": {"layout", "window"}.
`load_trajectories` gives them back as a dict of arrays plus the parsed config;
`policy_targets` gives a game's policy labels: the root's visit distribution where an MCTS
agent searched, else the chosen action as a one-hot (greedy, random and Python agents);
`TrajectoryDataset` is every decision as a PyTorch training example;
`trajectories_to_parquet` writes a file as a table, one row per decision, for pandas.
"""

from __future__ import annotations

import json
import math
import os
import pickle
import shutil
import zipfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from .. import CAUSES, Game, SearchError
from .._common import _agents
from . import DEFAULT_WINDOW, ENV_LAYOUT, _layout_space, encode_batch, encoder
from ._games import PlainGame, play_chunk


def write_trajectories(
    path: str | os.PathLike[str],
    agents: str | Sequence[str] = ("mcts:iters=200,memory=64", "mcts:iters=200,memory=64"),
    deals: int = 10,
    players: int | None = None,
    expansions: Sequence[str] = (),
    variants: dict[str, str] | None = None,
    seed: int = 0,
    agent_seed: int = 1,
    threads: int = 1,
    chunk_deals: int = 1,
    progress: bool = True,
    address: str | None = None,
    observations: str | None = None,
    window: int = DEFAULT_WINDOW,
) -> Path:
    """Plays `deals` decks between `agents`, each from every seat rotation (the arena's paired
    games), `chunk_deals` at a time for the progress bar, and writes the trajectories to `path`
    (.npz, compressed). With `address` ("auto" or "host:port" of a Ray cluster's head) the chunks
    are played by Ray actors, one a CPU of the cluster (rl/ray_selfplay.py), and give the same
    file as a local run. `observations` ("planes" or "packed") also stores every decision's
    observation at `window` (the module's docstring: "packed" is lossless and about 8 times
    smaller before compression). Ctrl-C stops it (KeyboardInterrupt). Each chunk's games are kept
    as it ends in PATH.chunks/ beside the file, so the same call again (on the cluster or not)
    plays only the chunks not yet played and writes the file a run without the stop would have;
    the folder goes once the file is written. Returns the path."""
    from tqdm import tqdm

    if observations not in (None, *OBSERVATION_LAYOUTS):
        raise SearchError(f"observations must be one of {OBSERVATION_LAYOUTS} or None, not {observations!r}")
    encoder(1, window)  # a bad window raises now, before any game is played
    names = _agents(agents)
    players = len(names) if players is None else players
    if deals < 1 or chunk_deals < 1:
        raise SearchError(f"deals and chunk_deals must be >= 1, got {deals} and {chunk_deals}")
    chunks = [(first, min(chunk_deals, deals - first)) for first in range(0, deals, chunk_deals)]
    options = {
        "players": players,
        "expansions": list(expansions),
        "variants": dict(variants or {}),
        "seed": seed,
        "agent_seed": agent_seed,
    }
    out = Path(path)
    done = _ChunkStore(out, {**options, "agents": names, "deals": deals, "chunk_deals": chunk_deals})
    with tqdm(total=deals * players, unit="game", disable=not progress) as bar:
        played = {first: done.load(first) for first, _ in chunks}
        bar.update(sum(len(games) for games in played.values() if games is not None))
        todo = [(first, count) for first, count in chunks if played[first] is None]

        def keep(first: int, games: list[PlainGame]) -> None:
            done.save(first, games)
            played[first] = games
            bar.update(len(games))

        if address is None:
            for first, count in todo:
                keep(first, play_chunk(names, first, count, {**options, "threads": threads}))
        elif todo:
            from .ray_selfplay import play_on_ray

            play_on_ray(address, names, todo, {**options, "threads": 1}, keep)
    games = [g for first, _ in chunks for g in played[first] or ()]
    config: dict[str, Any] = {**options, "agents": names}
    arrays = _arrays(games, players)
    if observations is not None:
        arrays.update(_observation_arrays(games, options, observations, window))
        config["observations"] = {"layout": observations, "window": window}
    arrays["config"] = np.array(json.dumps(config))
    np.savez_compressed(out, **arrays)  # type: ignore[arg-type]  # the stub takes allow_pickle for an array
    done.remove()
    return out if out.suffix == ".npz" else out.with_name(out.name + ".npz")


class _ChunkStore:
    """The finished chunks of one write_trajectories call, kept in PATH.chunks/ (pickles of the
    chunk's games, named by its first deal) with the call's settings; a folder left by a call
    with other settings is replaced, not mixed in."""

    def __init__(self, out: Path, settings: dict[str, Any]) -> None:
        self.dir = out.with_name(out.name + ".chunks")
        self.settings = json.dumps(settings, sort_keys=True)
        stamp = self.dir / "settings.json"
        if self.dir.exists() and (not stamp.exists() or stamp.read_text() != self.settings):
            self.remove()

    def load(self, first: int) -> list[PlainGame] | None:
        chunk = self.dir / f"{first}.pickle"
        if not chunk.exists():
            return None
        with open(chunk, "rb") as f:
            games: list[PlainGame] = pickle.load(f)
        return games

    def save(self, first: int, games: list[PlainGame]) -> None:
        self.dir.mkdir(parents=True, exist_ok=True)
        (self.dir / "settings.json").write_text(self.settings)
        tmp = self.dir / f"{first}.pickle.tmp"
        with open(tmp, "wb") as f:
            pickle.dump(games, f)
        os.replace(tmp, self.dir / f"{first}.pickle")  # a chunk is whole or absent

    def remove(self) -> None:
        shutil.rmtree(self.dir, ignore_errors=True)


def _arrays(games: Sequence[PlainGame], players: int) -> dict[str, np.ndarray]:
    actions: list[int] = []
    player: list[int] = []
    game_start = [0]
    visit_start = [0]
    visit_action: list[int] = []
    visit_count: list[int] = []
    searched: dict[str, list[list[float]]] = {"search_win": [], "search_reward": []}
    unsearched = [math.nan] * players
    for g in games:
        searched["search_win"] += [w or unsearched for w in g.search_win]
        searched["search_reward"] += [r or unsearched for r in g.search_reward]
        actions.extend(g.actions)
        player.extend(g.deciders)
        for pairs in g.visits:
            visit_action.extend(code for code, _ in pairs)
            visit_count.extend(n for _, n in pairs)
            visit_start.append(len(visit_action))
        game_start.append(len(actions))
    return {
        "deal": np.array([g.deal for g in games], dtype=np.int32),
        "rotation": np.array([g.rotation for g in games], dtype=np.int8),
        "entrant": np.array([g.entrant for g in games], dtype=np.int8).reshape(len(games), players),
        "scores": np.array([g.scores for g in games], dtype=np.int32).reshape(len(games), players),
        "points": np.array([g.points for g in games], dtype=np.int32).reshape(
            len(games), players, len(CAUSES)
        ),
        "game_start": np.array(game_start, dtype=np.int64),
        "actions": np.array(actions, dtype=np.uint32),
        "player": np.array(player, dtype=np.int8),
        "visit_start": np.array(visit_start, dtype=np.int64),
        "visit_action": np.array(visit_action, dtype=np.uint32),
        "visit_count": np.array(visit_count, dtype=np.uint32),
        **{k: np.array(v, dtype=np.float32).reshape(len(actions), players) for k, v in searched.items()},
        "win_share": np.array([_win_shares(g.scores) for g in games], dtype=np.float32).reshape(
            len(games), players
        ),
    }


OBSERVATION_LAYOUTS = ("planes", "packed")


def _observation_arrays(
    games: Sequence[PlainGame], options: dict[str, Any], layout: str, window: int
) -> dict[str, np.ndarray]:
    """Every decision's observation (from the decider's seat), replayed game by game; "packed"
    keeps only the bits and the bytes above 1 of each game's planes (a game's bytes at a time)."""
    players = int(options["players"])
    index: list[int] = []
    planes: list[np.ndarray] = []
    globals_: list[np.ndarray] = []
    count_at: list[np.ndarray] = []
    counts: list[np.ndarray] = []
    offset = stored = 0
    for g in games:
        game = Game(players, options["expansions"], options["variants"], 0)  # the record holds the draws
        states, deciders = [], []
        for i, (code, decider) in enumerate(zip(g.actions, g.deciders, strict=True)):
            if decider >= 0:
                states.append(game.core_state())
                deciders.append(decider)
                index.append(offset + i)
            game.apply(code)
        offset += len(g.actions)
        if not states:
            continue
        game_planes, game_globals = encode_batch(states, deciders, window=window)
        globals_.append(game_globals)
        if layout == "planes":
            planes.append(game_planes)
        else:
            bits, at, count = _pack(game_planes.reshape(len(states), -1), stored)
            planes.append(bits)
            count_at.append(at)
            counts.append(count)
        stored += len(states)
    enc = encoder(players, window)
    size = enc.num_planes * window * window
    out = {
        "obs_index": np.array(index, np.int64),
        "obs_globals": np.concatenate(globals_) if globals_ else np.zeros((0, enc.num_globals), np.float32),
    }
    if layout == "planes":
        shape = (0, enc.num_planes, window, window)
        out["obs_planes"] = np.concatenate(planes) if planes else np.zeros(shape, np.uint8)
    else:
        out["obs_bits"] = np.concatenate(planes) if planes else np.zeros((0, (size + 7) // 8), np.uint8)
        out["obs_count_at"] = np.concatenate(count_at) if count_at else np.zeros(0, np.int64)
        out["obs_count"] = np.concatenate(counts) if counts else np.zeros(0, np.uint8)
    return out


def _pack(flat: np.ndarray, first_row: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Rows of flattened planes (uint8 [n, size]) as the "packed" layout keeps them: the bits
    (numpy.packbits of each row, bitorder="little"), and the bytes above 1 as their flat index
    (counted from row `first_row` of the whole array) and their value."""
    above = np.flatnonzero(flat > 1)
    return (
        np.packbits(flat > 0, axis=1, bitorder="little"),
        above + first_row * flat.shape[1],
        flat.reshape(-1)[above],
    )


def _stored_planes(data: dict[str, Any], layout: str, rows: list[int], size: int) -> np.ndarray:
    """Stored observations' planes, flattened (uint8 [len(rows), size]), as encoded; `rows`
    ascending."""
    if layout == "planes":
        return np.asarray(data["obs_planes"][rows]).reshape(len(rows), size)
    flat = np.unpackbits(data["obs_bits"][rows], axis=1, count=size, bitorder="little")
    wanted = np.asarray(rows, np.int64)
    at = np.asarray(data["obs_count_at"], np.int64)  # ascending flat indexes into all stored rows
    lo, hi = (int(i) for i in np.searchsorted(at, [wanted[0] * size, (wanted[-1] + 1) * size]))
    row, offset = np.divmod(at[lo:hi], size)
    position = np.minimum(np.searchsorted(wanted, row), len(wanted) - 1)
    mine = wanted[position] == row
    flat[position[mine], offset[mine]] = data["obs_count"][lo:hi][mine]
    return flat


def load_observations(data: dict[str, Any]) -> dict[str, Any]:
    """The stored observations of loaded trajectories (written with `observations=`): "index"
    (int64 [n], each decision's index in `actions`), "planes" (uint8 [n, planes, W, W], the
    bytes rl.encode_batch gives, unpacked if the file holds them packed), "globals" (float32
    [n, globals]) and "window". SearchError for a file without them."""
    stored = data["config"].get("observations")
    if stored is None:
        raise SearchError(
            "these trajectories hold no observations (write them with observations='packed'); "
            "replay the actions instead (TrajectoryDataset does)"
        )
    window = int(stored["window"])
    enc = encoder(int(data["config"]["players"]), window)
    shape = (len(data["obs_index"]), enc.num_planes, window, window)
    if stored["layout"] == "planes":
        planes = data["obs_planes"]
    else:
        size = enc.num_planes * window * window
        flat = np.unpackbits(data["obs_bits"], axis=1, count=size, bitorder="little")
        flat.reshape(-1)[data["obs_count_at"]] = data["obs_count"]
        planes = flat.reshape(shape)
    return {"index": data["obs_index"], "planes": planes, "globals": data["obs_globals"], "window": window}


def _win_shares(scores: Sequence[int]) -> list[float]:
    top = max(scores)
    winners = sum(1 for s in scores if s == top)
    return [1.0 / winners if s == top else 0.0 for s in scores]


def load_trajectories(path: str | os.PathLike[str]) -> dict[str, Any]:
    """The arrays of a file of write_trajectories, with "config" parsed from its JSON."""
    with np.load(path) as data:
        out: dict[str, Any] = {name: data[name] for name in data.files}
    out["config"] = json.loads(str(out["config"]))
    return out


def game_actions(data: dict[str, Any], game: int) -> list[tuple[int, int, list[tuple[int, int]]]]:
    """Game `game` of loaded trajectories: (action code, decider, [(action, visits), ...]) per
    action, in order."""
    start, end = int(data["game_start"][game]), int(data["game_start"][game + 1])
    vs = data["visit_start"]
    out = []
    for i in range(start, end):
        lo, hi = int(vs[i]), int(vs[i + 1])
        pairs = list(
            zip(data["visit_action"][lo:hi].tolist(), data["visit_count"][lo:hi].tolist(), strict=True)
        )
        out.append((int(data["actions"][i]), int(data["player"][i]), pairs))
    return out


def policy_targets(data: dict[str, Any], game: int) -> list[tuple[int, int, list[int], list[float]]]:
    """Game `game`'s policy labels, one per decision (draws skipped): (index of the action in
    `actions`, decider, action codes, probabilities). Where an MCTS agent searched, the root's
    visits normalised; elsewhere (greedy, random, Python agents, forced moves) the chosen
    action with probability 1."""
    start = int(data["game_start"][game])
    out = []
    for offset, (code, decider, pairs) in enumerate(game_actions(data, game)):
        if decider < 0:
            continue
        total = sum(n for _, n in pairs)
        if total > 0:
            out.append((start + offset, decider, [a for a, _ in pairs], [n / total for _, n in pairs]))
        else:
            out.append((start + offset, decider, [code], [1.0]))
    return out


class TrajectoryDataset:
    """Every decision of a trajectories file as a training example, for PyTorch: a map-style
    dataset (`len()` and `[i]`) that `torch.utils.data.DataLoader` batches. The games are
    replayed once, at construction, and each decision's observation encoded from the decider's
    seat, or taken from the file when it holds them at this window (write_trajectories'
    `observations=`), and kept bit-packed (about 10 KB a position at window 32, 2.6 KB at 16) with
    the few bytes above 1 kept apart, so the planes come back exactly as rl.encode gives them
    (counts of 2 included: two figures on a tile, two pennants). An example is
    a dict of tensors: "planes" (float32 [planes, W, W]), "globals" (float32), "policy"
    (float32 [actions]: the visit distribution, or the chosen action one-hot; policy_targets),
    "value" (the decider's final win share) and "margin" (its final score less the best other
    score). The policy's indexes are of action layout `layout` (the package's default, "frontier",
    where every action has one; with "window", actions outside the window are dropped and the
    rest renormalised). Needs `torch` for the examples."""

    def __init__(
        self, path: str | os.PathLike[str], window: int = DEFAULT_WINDOW, layout: str = ENV_LAYOUT
    ) -> None:
        data = load_trajectories(path)
        config = data["config"]
        players = int(config["players"])
        self.window = window
        self._encoder = encoder(players, window)
        self._space = _layout_space(layout, window)
        self._shape = (self._encoder.num_planes, window, window)
        stored = config.get("observations")
        stored = stored if stored is not None and int(stored["window"]) == window else None
        stored_row = {int(i): r for r, i in enumerate(data["obs_index"])} if stored else {}
        size = int(np.prod(self._shape))
        planes: list[np.ndarray] = []
        count_at: list[np.ndarray] = []
        counts: list[np.ndarray] = []
        globals_: list[np.ndarray] = []
        self._policy: list[tuple[list[int], list[float]]] = []
        values: list[float] = []
        margins: list[float] = []
        for g in range(len(data["deal"])):
            game = Game(players, config["expansions"], config["variants"], 0)  # the record holds the draws
            labels = {index: (codes, probs) for index, _, codes, probs in policy_targets(data, g)}
            start, end = int(data["game_start"][g]), int(data["game_start"][g + 1])
            states, deciders = [], []
            for i in range(start, end):
                if i in labels:
                    state = game.core_state()
                    codes, probs = labels[i]
                    indexed = [(self._space.index(state, c), p) for c, p in zip(codes, probs, strict=True)]
                    indexed = [(k, p) for k, p in indexed if k >= 0]  # outside the window: dropped
                    total = sum(p for _, p in indexed) or 1.0
                    self._policy.append(([k for k, _ in indexed], [p / total for _, p in indexed]))
                    states.append(state)
                    deciders.append(int(data["player"][i]))
                game.apply(int(data["actions"][i]))
            scores = data["scores"][g]
            shares = _win_shares(scores.tolist())  # files of before 3 December 2026 lack win_share
            for p in deciders:
                values.append(shares[p])
                margins.append(float(scores[p] - max(s for q, s in enumerate(scores) if q != p)))
            if not states:
                continue
            if stored:
                rows = [stored_row[i] for i in range(start, end) if i in labels]
                flat = _stored_planes(data, stored["layout"], rows, size)
                globals_.append(data["obs_globals"][rows])
            else:
                batch_planes, batch_globals = encode_batch(states, deciders, window=window)
                flat = batch_planes.reshape(len(states), size)
                globals_.append(batch_globals)
            first_row = len(values) - len(states)  # this game's first example
            bits, at, count = _pack(flat, first_row)
            planes.append(bits)
            count_at.append(at)
            counts.append(count)
        self._planes = np.concatenate(planes) if planes else np.zeros((0, 0), np.uint8)
        self._count_at = np.concatenate(count_at) if count_at else np.zeros(0, np.int64)
        self._count = np.concatenate(counts) if counts else np.zeros(0, np.uint8)
        self._globals = np.concatenate(globals_) if globals_ else np.zeros((0, 0), np.float32)
        self._values = np.array(values, np.float32)
        self._margins = np.array(margins, np.float32)

    def __len__(self) -> int:
        return len(self._values)

    def __getitem__(self, i: int) -> dict[str, Any]:
        import torch

        size = int(np.prod(self._shape))
        flat = np.unpackbits(self._planes[i], count=size, bitorder="little")
        lo, hi = np.searchsorted(self._count_at, [i * size, (i + 1) * size])
        flat[self._count_at[lo:hi] - i * size] = self._count[lo:hi]
        planes = flat.reshape(self._shape).astype(np.float32)
        policy = np.zeros(self._space.size, np.float32)
        indices, probs = self._policy[i]
        policy[indices] = probs
        return {
            "planes": torch.from_numpy(planes),
            "globals": torch.from_numpy(self._globals[i].copy()),
            "policy": torch.from_numpy(policy),
            "value": torch.tensor(self._values[i]),
            "margin": torch.tensor(self._margins[i]),
        }


PARQUET_ROWS_PER_GROUP = 4096  # decisions a row group holds, about: whole games, bounded memory


def trajectories_to_parquet(path: str | os.PathLike[str], out: str | os.PathLike[str]) -> Path:
    """Writes the trajectories file `path` (.npz of write_trajectories) to `out` as a parquet
    table, one row per decision (draws left out), that `pandas.read_parquet(out)` loads:

      game, deal, rotation     the game (its index in the file), its deck and seat rotation
      index, turn, seat        the action's index in the file's `actions`, the game's turn
                               number there (Game.turn_number) and who decided
      entrant                  the agent index in that seat (config "agents")
      action                   the chosen action code
      visit_action, visit_count   the root's (code, visits) pairs as lists of uint32, most
                               visited first; empty where nothing was searched
      search_win, search_reward   per seat (float32, NaN where nothing was searched)
      scores, win_share        the game's final scores (int32) and win shares (float32), per seat
      obs_globals, obs_planes  only if the file holds observations: the globals (float32 list)
                               and the planes as binary, the uint8 bytes of [planes, W, W]:
                               numpy.frombuffer(row.obs_planes, numpy.uint8).reshape(...)

    The schema's metadata "carcassonne" holds the file's config as JSON, with "plane_shape" if
    there are observations. Raises SearchError for a file that is not trajectories; nothing is
    written then. Returns the path written."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    try:
        data = load_trajectories(path)
        config = data["config"]
        players = int(config["players"])
    except (OSError, ValueError, KeyError, zipfile.BadZipFile) as e:  # np.load's, and a missing array
        raise SearchError(f"{path}: not a trajectories file of write_trajectories ({e})") from e
    stored = config.get("observations")
    metadata = dict(config)
    size = 0
    if stored is not None:
        enc = encoder(players, int(stored["window"]))
        shape = (enc.num_planes, int(stored["window"]), int(stored["window"]))
        size = int(np.prod(shape))
        metadata["plane_shape"] = list(shape)
        obs_row = {int(i): r for r, i in enumerate(data["obs_index"])}

    def per_seat(values: np.ndarray) -> pa.Array:
        return pa.FixedSizeListArray.from_arrays(pa.array(values.reshape(-1)), players)

    def table(games: list[int]) -> pa.Table:
        index: list[int] = []
        turn: list[int] = []
        game_of: list[int] = []
        for g in games:
            game = Game(players, config["expansions"], config["variants"], 0)  # the record holds the draws
            for i in range(int(data["game_start"][g]), int(data["game_start"][g + 1])):
                if data["player"][i] >= 0:
                    index.append(i)
                    turn.append(game.turn_number)
                    game_of.append(g)
                game.apply(int(data["actions"][i]))
        at = np.array(index, np.int64)
        of = np.array(game_of, np.int64)
        seat = data["player"][at].astype(np.int8)
        vs = data["visit_start"]
        columns = {
            "game": pa.array(of.astype(np.int32)),
            "deal": pa.array(data["deal"][of]),
            "rotation": pa.array(data["rotation"][of]),
            "index": pa.array(at),
            "turn": pa.array(np.array(turn, np.int32)),
            "seat": pa.array(seat),
            "entrant": pa.array(data["entrant"][of, seat]),
            "action": pa.array(data["actions"][at]),
            "visit_action": pa.array(
                [data["visit_action"][vs[i] : vs[i + 1]] for i in at], pa.list_(pa.uint32())
            ),
            "visit_count": pa.array(
                [data["visit_count"][vs[i] : vs[i + 1]] for i in at], pa.list_(pa.uint32())
            ),
            "search_win": per_seat(data["search_win"][at]),
            "search_reward": per_seat(data["search_reward"][at]),
            "scores": per_seat(data["scores"][of]),
            "win_share": per_seat(data["win_share"][of]),
        }
        if stored is not None:
            rows = [obs_row[i] for i in index]
            planes = (
                _stored_planes(data, stored["layout"], rows, size) if rows else np.zeros((0, size), np.uint8)
            )
            columns["obs_globals"] = pa.FixedSizeListArray.from_arrays(
                pa.array(data["obs_globals"][rows].reshape(-1)), data["obs_globals"].shape[1]
            )
            columns["obs_planes"] = pa.FixedSizeBinaryArray.from_buffers(
                pa.binary(size), len(rows), [None, pa.py_buffer(np.ascontiguousarray(planes).tobytes())]
            )
        return pa.table(columns, metadata={"carcassonne": json.dumps(metadata)})

    groups: list[list[int]] = [[]]
    for g in range(len(data["deal"])):
        if groups[-1] and data["game_start"][g] - data["game_start"][groups[-1][0]] >= PARQUET_ROWS_PER_GROUP:
            groups.append([])
        groups[-1].append(g)
    target = Path(out)
    first = table(groups[0])
    # zstd: the planes are mostly zero bytes; snappy leaves them some 30 times larger
    with pq.ParquetWriter(target, first.schema, compression="zstd") as writer:
        writer.write_table(first)
        for games in groups[1:]:
            writer.write_table(table(games))
    return target
