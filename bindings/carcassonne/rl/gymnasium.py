"""Carcassonne as a single-agent Gymnasium environment: you play one seat, the other seats are
opponents given as agent specs ("greedy", "mcts:iters=200") or Python agents (callables
(game) -> action, objects with act(game); carcassonne.agents).

    import gymnasium
    from carcassonne.rl.gymnasium import CarcassonneEnv
    env = CarcassonneEnv(opponents=["greedy"])
    obs, info = env.reset(seed=7)
    while True:
        action = env.action_space.sample(mask=obs["action_mask"])
        obs, reward, terminated, truncated, info = env.step(action)
        if terminated: break

Observations are dicts: "planes" (uint8 [planes, W, W]), "globals" (float32) and "action_mask"
(int8 over the fixed action space), from your seat (docs/observation.md). In the default action
layout, `layout="frontier"`, every legal action has an index: a placement names a frontier cell,
a figure elsewhere or an arrow a placed tile, and "frontier" (int16 [MAX_FRONTIER, 2]) and
"tiles" (int16 [MAX_TILES, 2]) give their (row, column) in the planes (carcassonne.rl.NO_CELL
past the board's counts); `layout="window"` numbers the window's cells instead (no such keys;
a board wider than the window leaves actions out). Draws use the game's
own PRNG and opponents are reset with seeds drawn from the environment's, so reset(seed=...)
and the actions fix the episode; a reset without a seed continues the seeded stream. Your seat
is `seat`, or (None) drawn at every reset. The reward is 0 until the end, then your win share
(1/k for each of the k players with the top score, B-10); info holds your "seat", "outside"
(window layout: legal actions outside the window, not in the mask, docs/observation.md;
WindowError if no legal action is inside; 0 in the frontier layout) and at the end the
"scores". An illegal action (also an index naming a frontier cell or tile the board does not
have) ends the episode with reward `illegal_reward` and info["illegal_action"] = True
(Gymnasium's checks step with unmasked samples); `illegal_reward=None` raises
IllegalActionError instead. An action is one index: an
int, a numpy integer or a one-element integer array (a fraction or a longer array: ValueError or
TypeError). Needs `gymnasium`; importing this module registers "carcassonne/Carcassonne-v0"
(`gymnasium.make("carcassonne/Carcassonne-v0", opponents=["greedy"])`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces

from .. import _core
from .._common import _whole_number
from ..agents import BuiltinAgent, PythonPlayer, as_player
from ..game import Game, make_config
from . import (
    DEFAULT_WINDOW,
    ENV_LAYOUT,
    MAX_FRONTIER,
    MAX_TILES,
    NO_CELL,
    WindowError,
    _layout_space,
    _register_gymnasium,
    encoder,
)

# An upper bound on any global value (scores, counts), so the Box is finite.
_GLOBALS_HIGH = 1.0e6


class CarcassonneEnv(gymnasium.Env[dict[str, np.ndarray], np.int64]):
    metadata = {"render_modes": ["ansi"]}  # noqa: RUF012 (Gymnasium's convention)

    def __init__(
        self,
        opponents: Sequence[Any] = ("greedy",),
        expansions: Iterable[str] = (),
        variants: Mapping[str, str] | None = None,
        seat: int | None = None,
        window: int = DEFAULT_WINDOW,
        illegal_reward: float | None = -1.0,
        render_mode: str | None = None,
        layout: str = ENV_LAYOUT,
    ) -> None:
        if isinstance(opponents, str):
            opponents = [opponents]
        players = len(opponents) + 1
        self._config = make_config(players, expansions, variants, 0)
        if seat is not None and not 0 <= seat < players:
            raise _core.ConfigError(f"seat must be 0 to {players - 1} (or None: drawn), got {seat}")
        self._seat_option = seat
        self._opponents: list[BuiltinAgent | PythonPlayer] = [as_player(o) for o in opponents]
        self._window = window
        self._encoder = encoder(players, window)
        self._actions = _layout_space(layout, window)
        self.layout = layout
        self._illegal_reward = illegal_reward
        if render_mode not in (None, "ansi"):
            raise ValueError(f"render_mode must be None or 'ansi', not {render_mode!r}")
        self.render_mode = render_mode
        self.observation_space: spaces.Dict = spaces.Dict(  # type: ignore[assignment]
            {
                "planes": spaces.Box(0, 255, (self._encoder.num_planes, window, window), np.uint8),
                "globals": spaces.Box(
                    -_GLOBALS_HIGH, _GLOBALS_HIGH, (self._encoder.num_globals,), np.float32
                ),
                "action_mask": spaces.Box(0, 1, (self._actions.size,), np.int8),
                **_cell_spaces(layout),
            }
        )
        self.action_space = spaces.Discrete(self._actions.size)
        self.game: Game | None = None
        self.seat = 0
        self._outside = 0  # legal actions outside the window at the current node (not in the mask)

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
        super().reset(seed=seed)  # seeds self.np_random, or continues its stream
        rng = self.np_random
        players = len(self._opponents) + 1
        self.seat = self._seat_option if self._seat_option is not None else int(rng.integers(players))
        config = self._config
        self.game = Game(config.players, config.expansions, config.variants, int(rng.integers(2**63)))
        for opponent in self._opponents:
            opponent.reset(int(rng.integers(2**63)))
        self._play_others()
        return self._observe(), self._info()

    def step(self, action: Any) -> tuple[dict[str, np.ndarray], float, bool, bool, dict[str, Any]]:
        game = self.game
        if game is None or game.is_terminal:
            raise _core.IllegalActionError("step: call reset() first (the episode is over)")
        index = _whole_number("step's action (one action index)", action)
        code: int | None = None
        if 0 <= index < self._actions.size:  # beyond C++'s int, the binding would raise TypeError
            try:
                code = self._actions.action(game._state, index)
            except _core.IllegalActionError:  # a frontier cell or tile the board does not have
                code = None
        if code is None or not game._state.is_legal(code):
            if self._illegal_reward is None:
                raise _core.IllegalActionError(
                    f"action index {index} is not legal here (see the action_mask)"
                )
            info = {**self._info(), "illegal_action": True}
            self.game = None
            return self._empty_observation(), float(self._illegal_reward), True, False, info
        game._apply_code(code, sampled=False)
        self._play_others()
        if game.is_terminal:
            info = {**self._info(), "scores": game.scores}
            return self._observe(), float(game.returns()[self.seat]), True, False, info
        return self._observe(), 0.0, False, False, self._info()

    def _play_others(self) -> None:
        """Draws and the opponents' moves until this seat decides or the game ends."""
        game = self.game
        assert game is not None
        while not game.is_terminal:
            if game.is_chance:
                game.apply_random_chance()
                continue
            seat = game.current_player
            if seat == self.seat:
                return
            opponent = self._opponents[(seat - self.seat - 1) % len(self._opponents)]
            game._apply_code(opponent.move(game), sampled=False)

    def _observe(self) -> dict[str, np.ndarray]:
        game = self.game
        assert game is not None
        planes = np.empty((self._encoder.num_planes, self._window, self._window), np.uint8)
        globals_ = np.empty(self._encoder.num_globals, np.float32)
        self._encoder.encode_into(game._state, self.seat, planes, globals_)
        mask = np.zeros(self._actions.size, np.int8)
        self._outside = 0
        if not game.is_terminal:
            indices, self._outside = self._actions.legal_indices(game._state)
            if not indices:
                raise WindowError(f"every legal action lies outside the {self._window}-cell window")
            mask[indices] = 1
        obs: dict[str, np.ndarray] = {"planes": planes, "globals": globals_, "action_mask": mask}
        if self.layout == "frontier":
            obs["frontier"], obs["tiles"] = self._actions.cells(game._state, self._window)
        return obs

    def _empty_observation(self) -> dict[str, np.ndarray]:
        obs: dict[str, np.ndarray] = {
            "planes": np.zeros((self._encoder.num_planes, self._window, self._window), np.uint8),
            "globals": np.zeros(self._encoder.num_globals, np.float32),
            "action_mask": np.zeros(self._actions.size, np.int8),
        }
        if self.layout == "frontier":
            obs["frontier"] = np.full((MAX_FRONTIER, 2), NO_CELL, np.int16)
            obs["tiles"] = np.full((MAX_TILES, 2), NO_CELL, np.int16)
        return obs

    def _info(self) -> dict[str, Any]:
        return {"seat": self.seat, "outside": self._outside}

    def action_masks(self) -> np.ndarray:
        """The legal actions' mask at the current node (sb3-contrib's MaskablePPO asks for it)."""
        return self._observe()["action_mask"].astype(bool)

    def render(self) -> str | None:
        if self.render_mode == "ansi" and self.game is not None:
            return str(self.game)
        return None


def _cell_spaces(layout: str) -> dict[str, spaces.Box]:
    """The frontier layout's cell lists as observation spaces (none for the window layout)."""
    if layout != "frontier":
        return {}
    low, high = np.iinfo(np.int16).min, np.iinfo(np.int16).max
    return {
        "frontier": spaces.Box(low, high, (MAX_FRONTIER, 2), np.int16),
        "tiles": spaces.Box(low, high, (MAX_TILES, 2), np.int16),
    }


_register_gymnasium()  # gymnasium.make("carcassonne/Carcassonne-v0")
