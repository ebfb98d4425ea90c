"""Many games stepped in C++ in one call (EnvPool style), as a Gymnasium vector environment.

    from carcassonne.rl.vector import CarcassonneVectorEnv
    envs = CarcassonneVectorEnv(256, opponents=["random"], packed=True)
    obs, info = envs.reset(seed=1)
    obs, reward, terminated, truncated, info = envs.step(envs.sample_legal())  # an index per game

Each game is at a decision of the learner: one seat against built-in opponents (agent specs,
which move inside C++), or every seat (`opponents=None`, self-play: the observation is from the
seat to move, info["player"]). `step` applies the actions, plays the draws (the games' own
seeded PRNGs) and the opponents, and writes the observations, masks, rewards and flags into
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
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

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


class CarcassonneVectorEnv(gymnasium.vector.VectorEnv[dict[str, np.ndarray], np.ndarray, np.ndarray]):
    metadata = {"autoreset_mode": AutoresetMode.SAME_STEP}  # noqa: RUF012 (Gymnasium's convention)

    def __init__(
        self,
        num_envs: int,
        opponents: Sequence[str] | None = ("random",),
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
        if isinstance(opponents, str):
            opponents = [opponents]
        if opponents is not None and not all(isinstance(o, str) for o in opponents):
            raise TypeError("the vector environment's opponents are agent specs (they play in C++)")
        if players is None:
            players = 2 if opponents is None else len(opponents) + 1
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


_register_gymnasium()  # gymnasium.make_vec("carcassonne/Carcassonne-v0", num_envs=N)
