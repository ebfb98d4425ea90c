"""Many games stepped in C++ in one call (EnvPool style), as a Gymnasium vector environment.

    from carcassonne.rl.vector import CarcassonneVectorEnv
    envs = CarcassonneVectorEnv(256, opponents=["random"], packed=True)
    obs, info = envs.reset(seed=1)
    obs, reward, terminated, truncated, info = envs.step(envs.sample_legal())  # an index per game

Each game is at a decision of the learner: one seat against built-in opponents (agent specs,
which move inside C++), against a Python opponent (below), or every seat (`opponents=None`,
self-play: the observation is from the seat to move, info["player"]). `step` applies the
actions, plays the draws (the games' own seeded PRNGs) and the opponents, and writes the
observations, masks, rewards and flags into
numpy arrays with the GIL released, `threads` games at a time. A game that ends is replaced at
once (same-step autoreset): that step's reward and `terminated` are the ended game's, the
observation is the new game's first, and info["returns"] holds every seat's win share of the
ended games. The reward is 0 until the end, then the learner's win share (self-play: the
player who made the last move).

Observations: "planes" (uint8 [N, planes, W, W]), "globals" (float32 [N, G]) and
"action_mask" (int8 [N, actions], as the single environment's: Gymnasium's
`single_action_space.sample(mask=obs["action_mask"][i])` and
`action_space.sample(mask=tuple(obs["action_mask"]))` take it); with `packed=True` the planes
and the mask are bit-packed bytes (uint8: numpy.packbits along the flattened planes and the mask,
bitorder="little": recover them with numpy.unpackbits(x, axis=1, bitorder="little")[:, :n], or
`unpack(obs)`, which gives the int8 mask), a plane value above 1 (two figures, two pennants)
shown as 1. With `copy=False` the arrays are the environment's own, read-only
and overwritten by the next step: copy what you keep.

Actions: in the default layout, `layout="frontier"`, every legal action has an index (a
placement names a frontier cell, a figure elsewhere or an arrow a placed tile) and the
observation adds "frontier" (int16 [N, MAX_FRONTIER, 2]) and "tiles" (int16 [N, MAX_TILES, 2]):
their (row, column) in the planes, carcassonne.rl.NO_CELL past each board's counts. With
`layout="window"` an index names a window cell (the planes line up; no cell lists) and
info["outside"] counts legal actions outside the window (not in the mask; docs/observation.md).
`legal()` gives every game's legal indexes as CSR arrays (offsets, indices) and
`sample_legal()` a uniformly random legal index per game, both from C++ without touching the
mask. Needs `gymnasium`; importing this module registers "carcassonne/Carcassonne-v0", whose
`gymnasium.make_vec(..., num_envs=N)` is this environment.

A Python opponent is one callable, `opponents=policy`, that plays every other seat of every
game: `policy(observations, masks)` gets the batch of all games where an opponent is to move,
observed from the mover's seat (`observations`: the dict the learner gets, with those games'
rows; `masks`: int8 [k, actions], unpacked even with `packed=True`) and returns k action
indexes (a frozen copy of your own policy, say). It is called until every game is back at the
learner's decision, so once or more per step. A result of the wrong shape or type is a
ValueError or TypeError, an index outside a game's mask an IllegalActionError, each naming the
game; the opponent's moves of that step are then half done, so the environment refuses to step
until reset(). Each game is then a one-game C++ environment stepped from Python: slower than
the built-in opponents, and `threads` is not used.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, TypeAlias

import gymnasium
import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode
from gymnasium.vector.utils import batch_space

from .. import _core
from ..game import make_config
from . import DEFAULT_WINDOW, ENV_LAYOUT, _register_gymnasium
from .gymnasium import _cell_spaces

_GLOBALS_HIGH = 1.0e6
# A Python opponent: (observations of the k games where it moves, int8 masks [k, actions]) -> k indexes.
Opponent: TypeAlias = Callable[[dict[str, np.ndarray], np.ndarray], Any]


class CarcassonneVectorEnv(gymnasium.vector.VectorEnv[dict[str, np.ndarray], np.ndarray, np.ndarray]):
    metadata = {"autoreset_mode": AutoresetMode.SAME_STEP}  # noqa: RUF012 (Gymnasium's convention)

    def __init__(
        self,
        num_envs: int,
        opponents: Sequence[str] | Opponent | None = ("random",),
        players: int | None = None,
        expansions: Iterable[str] = (),
        variants: Mapping[str, str] | None = None,
        seat: int | None = None,
        window: int = DEFAULT_WINDOW,
        packed: bool = False,
        copy: bool = True,
        threads: int = 1,
        layout: str = ENV_LAYOUT,
    ) -> None:
        self._opponent: Opponent | None = None
        if isinstance(opponents, str):
            opponents = [opponents]
        elif callable(opponents):
            self._opponent, opponents = opponents, []
        if opponents is not None and not all(isinstance(o, str) for o in opponents):
            raise TypeError(
                "the vector environment's opponents are agent specs (they play in C++) or one "
                "callable that plays every other seat: (observations, masks) -> action indexes"
            )
        if players is None:
            players = 2 if opponents is None or self._opponent is not None else len(opponents) + 1
        self._config = make_config(players, expansions, variants, 0)
        self._opponents = [] if opponents is None else list(opponents)
        self._seat = -1 if seat is None else seat
        self._window, self._packed, self._copy, self._threads = window, bool(packed), bool(copy), threads
        self.layout = layout
        self.num_envs = num_envs
        self._core = self._make(0)  # checks every argument now
        n_planes, n_actions = self._core.num_planes, self._core.num_actions
        self.num_actions = n_actions
        self.plane_shape = (n_planes, window, window)
        planes: spaces.Box
        mask: spaces.Box
        if self._packed:
            planes = spaces.Box(0, 255, (self._core.outputs["planes"].shape[1],), np.uint8)
            mask = spaces.Box(0, 255, ((n_actions + 7) // 8,), np.uint8)
        else:
            planes = spaces.Box(0, 255, self.plane_shape, np.uint8)
            mask = spaces.Box(0, 1, (n_actions,), np.int8)
        self.single_observation_space = spaces.Dict(
            {
                "planes": planes,
                "globals": spaces.Box(-_GLOBALS_HIGH, _GLOBALS_HIGH, (self._core.num_globals,), np.float32),
                "action_mask": mask,
                **_cell_spaces(layout),
            }
        )
        self.single_action_space = spaces.Discrete(n_actions)
        self.observation_space = batch_space(self.single_observation_space, num_envs)
        self.action_space = batch_space(self.single_action_space, num_envs)
        self._seeds: np.random.Generator | None = None

    def _make(self, seed: int) -> Any:
        if self._opponent is not None:
            return _PythonOpponentGames(
                self._config,
                self.num_envs,
                self._opponent,
                self._seat,
                self._window,
                self._packed,
                seed,
                self.layout,
            )
        return _core.VectorEnv(
            self._config,
            self.num_envs,
            self._opponents,
            self._seat,
            self._window,
            self._packed,
            seed % 2**64,
            self._threads,
            self.layout,
        )

    def reset(
        self, *, seed: int | list[int] | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
        """New games in every slot. A seed starts a stream of games (each slot's games follow
        from it); without one, the stream's next batch (OS entropy only before any seed)."""
        if isinstance(seed, list):
            raise TypeError("one seed for all games (each game's seed follows from it and its slot)")
        if seed is not None:
            self._seeds = np.random.default_rng(int(seed) % 2**64)
        elif self._seeds is None:
            self._seeds = np.random.default_rng()
        self._core = self._make(int(self._seeds.integers(2**63)))
        self._core.reset()
        return self._observation(), self._info()

    def step(
        self, actions: Any
    ) -> tuple[dict[str, np.ndarray], np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        """One action index per game (IllegalActionError for one not in its mask: no game moves;
        ValueError for a fraction, which is never rounded)."""
        actions = np.asarray(actions)
        if actions.dtype.kind == "f" and not (
            np.isfinite(actions).all() and (actions == np.round(actions)).all()
        ):
            raise ValueError("step: action indexes must be whole numbers (they are not rounded)")
        if actions.dtype.kind not in "iuf":
            raise TypeError(f"step: action indexes must be integers, not {actions.dtype}")
        self._core.step(actions.astype(np.int64, copy=False))
        out = self._core.outputs
        reward, terminated = out["reward"], out["terminated"]
        if self._copy:
            reward, terminated = reward.copy(), terminated.copy()
        truncated = np.zeros(self.num_envs, bool)
        return self._observation(), reward, terminated, truncated, self._info()

    def _observation(self) -> dict[str, np.ndarray]:
        out = self._core.outputs
        mask = out["mask"] if self._packed else out["mask"].view(np.int8)  # 0/1 bytes: the same values
        obs = {"planes": out["planes"], "globals": out["globals"], "action_mask": mask}
        if self.layout == "frontier":
            obs["frontier"], obs["tiles"] = out["frontier"], out["tiles"]
        return {k: v.copy() for k, v in obs.items()} if self._copy else obs

    def _info(self) -> dict[str, Any]:
        out = self._core.outputs
        keys = ("player", "outside", "returns")
        return {k: out[k].copy() for k in keys} if self._copy else {k: out[k] for k in keys}

    def legal(self) -> tuple[np.ndarray, np.ndarray]:
        """Every game's legal action indexes, ascending, as CSR arrays (offsets int32 [N + 1],
        indices int32): game i's are indices[offsets[i]:offsets[i + 1]]. New arrays each call."""
        offsets, indices = self._core.legal()
        return offsets, indices

    def sample_legal(self, seed: int | None = None) -> np.ndarray:
        """int64 [N]: a uniformly random legal index per game, drawn in C++ from the environment's
        own stream (each reset's seed starts it; `seed` starts it anew)."""
        actions: np.ndarray = self._core.sample_legal(None if seed is None else int(seed) % 2**64)
        return actions

    def unpack(self, obs: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
        """A packed observation's planes ([N, planes, W, W]) and mask ([N, actions]) as bytes."""
        if not self._packed:
            return obs
        n = obs["planes"].shape[0]
        size = int(np.prod(self.plane_shape))
        planes = np.unpackbits(obs["planes"], axis=1, bitorder="little")[:, :size].reshape(
            n, *self.plane_shape
        )
        bits = np.unpackbits(obs["action_mask"], axis=1, bitorder="little")
        mask = bits[:, : self.num_actions].view(np.int8)
        return {**obs, "planes": planes, "action_mask": mask}

    def state(self, index: int) -> _core.State:
        """A copy of game `index`'s state (to render or inspect it)."""
        return self._core.state(index)


class _PythonOpponentGames:
    """The core of a vector environment whose opponent is a Python callable, with the C++ core's
    interface: each game is a one-game C++ environment in self-play (every seat decides), and
    the opponent's seats are played here, all games where an opponent moves in one call."""

    _SLOT_SEED_STEP = 0x9E3779B97F4A7C15  # the slots' seeds: one stream each

    def __init__(
        self,
        config: _core.Config,
        num_envs: int,
        opponent: Opponent,
        seat: int,
        window: int,
        packed: bool,
        seed: int,
        layout: str,
    ) -> None:
        if num_envs < 1:
            raise ValueError(f"VectorEnv: num_envs must be >= 1, got {num_envs}")
        self._players = config.validated().players
        if not -1 <= seat < self._players:
            raise ValueError(f"VectorEnv: seat must be -1 (rotating) or 0 to {self._players - 1}")
        self._opponent, self._seat, self.num_envs, self.packed = opponent, seat, num_envs, packed
        self._slots = [
            _core.VectorEnv(
                config, 1, [], -1, window, packed, (seed + i * self._SLOT_SEED_STEP) % 2**64, 1, layout
            )
            for i in range(num_envs)
        ]
        first = self._slots[0]
        self.layout, self.num_actions = first.layout, first.num_actions
        self.num_planes, self.num_globals = first.num_planes, first.num_globals
        self._outs = [s.outputs for s in self._slots]  # each slot's own arrays, overwritten by its steps
        # What each slot observes (its results are of its last move, maybe the opponent's: _move
        # keeps the learner's); no cell lists in the window layout.
        results = ("reward", "terminated", "returns", "player")
        self._observed = [k for k, v in self._outs[0].items() if v.shape[0] == 1 and k not in results]
        self._arrays = {k: np.zeros((num_envs, *v.shape[1:]), v.dtype) for k, v in self._outs[0].items()}
        self.outputs = {k: v.view() for k, v in self._arrays.items()}
        for view in self.outputs.values():
            view.flags.writeable = False  # as the C++ core's: only this object writes them
        self._episode = np.zeros(num_envs, np.int64)
        self._learner = np.zeros(num_envs, np.int64)
        self._ready = False  # reset, and not left mid-turn by an opponent's error

    def _seat_of(self, i: int) -> int:
        return self._seat if self._seat >= 0 else int((i + self._episode[i]) % self._players)

    def _is_legal(self, i: int, index: int) -> bool:
        if not 0 <= index < self.num_actions:
            return False
        mask = self._outs[i]["mask"][0]
        return bool(mask[index >> 3] >> (index & 7) & 1) if self.packed else bool(mask[index])

    def reset(self) -> None:
        self._ready = False
        for i, slot in enumerate(self._slots):
            slot.reset()
            self._episode[i] = 0
            self._learner[i] = self._seat_of(i)
        self._clear_results()
        self._advance()
        self._ready = True

    def step(self, actions: np.ndarray) -> None:
        if not self._ready:
            raise ValueError(
                "VectorEnv: call reset() first (after an opponent's error too: games were mid-turn)"
            )
        if actions.shape != (self.num_envs,):
            raise ValueError(f"VectorEnv.step: expected {self.num_envs} action indexes, one per game")
        for i, index in enumerate(actions.tolist()):  # every action checked before any game moves
            if not self._is_legal(i, index):
                raise _core.IllegalActionError(
                    f"VectorEnv.step: game {i}: action index {index} is not legal here (see the mask)"
                )
        self._ready = False
        self._clear_results()
        for i, index in enumerate(actions.tolist()):
            self._move(i, index)
        self._advance()
        self._ready = True

    def _clear_results(self) -> None:
        for key in ("reward", "terminated", "returns"):
            self._arrays[key][:] = 0

    def _move(self, i: int, index: int) -> None:
        """Plays an index in game i; a game that ends leaves the learner's result and restarts."""
        self._slots[i].step(np.array([index], np.int64))
        out = self._outs[i]
        if out["terminated"][0]:
            self._arrays["returns"][i] = out["returns"][0]
            self._arrays["reward"][i] = out["returns"][0][self._learner[i]]
            self._arrays["terminated"][i] = True
            self._episode[i] += 1
            self._learner[i] = self._seat_of(i)

    def _advance(self) -> None:
        """The opponent's moves, batched, until every game is at the learner's decision; then the
        learner's outputs."""
        while True:
            waiting = [i for i in range(self.num_envs) if self._outs[i]["player"][0] != self._learner[i]]
            if not waiting:
                break
            rows = {k: np.concatenate([self._outs[i][k] for i in waiting]) for k in self._observed}
            masks = rows["mask"]
            if self.packed:
                masks = np.unpackbits(masks, axis=1, bitorder="little")[:, : self.num_actions]
            masks = masks.view(np.int8)
            observations = {
                "planes": rows["planes"],
                "globals": rows["globals"],
                "action_mask": rows["mask"] if self.packed else masks,
            }
            if self.layout == "frontier":
                observations["frontier"], observations["tiles"] = rows["frontier"], rows["tiles"]
            chosen = self._checked(self._opponent(observations, masks), waiting)
            for i, index in zip(waiting, chosen, strict=True):
                self._move(i, index)
        for key in self._observed:
            np.concatenate([out[key] for out in self._outs], out=self._arrays[key])
        self._arrays["player"][:] = self._learner

    def _checked(self, chosen: Any, waiting: list[int]) -> list[int]:
        """The opponent's answer as k legal indexes, or an error naming the game and the index."""
        array = np.asarray(chosen)
        if array.shape != (len(waiting),):
            raise ValueError(
                f"the Python opponent returned an array of shape {array.shape} for {len(waiting)} "
                f"game(s): one action index per game expected, shape ({len(waiting)},)"
            )
        if array.dtype.kind not in "iu":
            raise TypeError(f"the Python opponent's action indexes must be integers, not {array.dtype}")
        indexes = [int(a) for a in array]
        for row, (i, index) in enumerate(zip(waiting, indexes, strict=True)):
            if not self._is_legal(i, index):
                raise _core.IllegalActionError(
                    f"the Python opponent chose action index {index} for game {i} (row {row} of its "
                    "batch), which is not legal there (see the mask it was given)"
                )
        return indexes

    def legal(self) -> tuple[np.ndarray, np.ndarray]:
        parts = [slot.legal()[1] for slot in self._slots]
        offsets = np.zeros(self.num_envs + 1, np.int32)
        offsets[1:] = np.cumsum([len(p) for p in parts])
        return offsets, np.concatenate(parts).astype(np.int32)

    def sample_legal(self, seed: int | None = None) -> np.ndarray:
        return np.array(
            [
                slot.sample_legal(None if seed is None else (seed + i * self._SLOT_SEED_STEP) % 2**64)[0]
                for i, slot in enumerate(self._slots)
            ],
            np.int64,
        )

    def state(self, index: int) -> _core.State:
        if not 0 <= index < self.num_envs:
            raise IndexError(f"VectorEnv: no game {index}")
        return self._slots[index].state(0)


_register_gymnasium()  # gymnasium.make_vec("carcassonne/Carcassonne-v0", num_envs=N)
