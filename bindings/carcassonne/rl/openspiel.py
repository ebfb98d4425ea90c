"""Carcassonne as an OpenSpiel game: `import carcassonne.rl.openspiel` registers "carcassonne".

    import pyspiel
    import carcassonne.rl.openspiel
    game = pyspiel.load_game("carcassonne", {"players": 2, "expansions": "abbey-mayor+city"})
    state = game.new_initial_state()          # a chance node: the first draw

Parameters: players (2-6), expansions ("+"-separated names), variants ("key:value+..."; OpenSpiel's
game strings reserve "," and "="), seed
(the engine's bag seed; OpenSpiel draws the tiles itself at the chance nodes), window (the
observation window's side, docs/observation.md) and layout (the action layout: "frontier", the
default of the whole package, or "window"). Actions are the dense indexes of carcassonne.rl in
that layout (a draw's index is its tile kind id, the chance outcome); a game's returns are
its win shares (1/k for each of the k players with the top score, B-10), so it is constant-sum
(1). It is a perfect-information game with explicit chance: the observation and the information
state tensors are the same Markov encoding (planes then globals, flattened), the information
state string is the action history. serialize/deserialize replay the history (OpenSpiel's
default, exact). Needs the `open_spiel` package (pip install ".[research]").
"""

from __future__ import annotations

from functools import cache
from typing import Any

import numpy as np
import pyspiel

from .. import _core
from ..game import make_config
from . import DEFAULT_WINDOW, ENV_LAYOUT, WindowError, _layout_space, encoder

SHORT_NAME = "carcassonne"
_DEFAULTS: dict[str, Any] = {
    "players": 2,
    "expansions": "",
    "variants": "",
    "seed": 0,
    "window": DEFAULT_WINDOW,
    "layout": ENV_LAYOUT,
}
# An upper bound on the nodes of a game: every tile of every set (fewer than 160) with at most
# 16 nodes each (draw, abbey, place, arrow, figure, City and wagon moves, the City, the Count).
_MAX_GAME_LENGTH = 160 * 16


def _split(text: str) -> list[str]:
    return [item.strip() for item in text.split("+") if item.strip()]


def _config(params: dict[str, Any]) -> _core.Config:
    variants = {}
    for item in _split(str(params["variants"])):
        key, colon, value = item.partition(":")
        if not colon:
            raise _core.ConfigError(f"variant {item!r} is not key:value")
        variants[key.strip()] = value.strip()
    return make_config(
        int(params["players"]), _split(str(params["expansions"])), variants, int(params["seed"])
    ).validated()


_GAME_TYPE = pyspiel.GameType(
    short_name=SHORT_NAME,
    long_name="Carcassonne (carcassonne engine)",
    dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
    chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
    information=pyspiel.GameType.Information.PERFECT_INFORMATION,
    utility=pyspiel.GameType.Utility.CONSTANT_SUM,
    reward_model=pyspiel.GameType.RewardModel.TERMINAL,
    max_num_players=_core.MAX_PLAYERS,
    min_num_players=2,
    provides_information_state_string=True,
    provides_information_state_tensor=True,
    provides_observation_string=True,
    provides_observation_tensor=True,
    parameter_specification=_DEFAULTS,
)


class CarcassonneGame(pyspiel.Game):
    """The OpenSpiel game of one rule mix."""

    def __init__(self, params: dict[str, Any] | None = None) -> None:
        merged = {**_DEFAULTS, **(params or {})}
        self.config = _config(merged)
        self.window = int(merged["window"])
        self.layout = str(merged["layout"])
        info = pyspiel.GameInfo(
            num_distinct_actions=_layout_space(self.layout, self.window).size,
            max_chance_outcomes=len(_core.tile_kinds()),
            num_players=self.config.players,
            min_utility=0.0,
            max_utility=1.0,
            utility_sum=1.0,
            max_game_length=_MAX_GAME_LENGTH,
        )
        super().__init__(_GAME_TYPE, info, merged)

    def new_initial_state(self) -> CarcassonneState:
        return CarcassonneState(self)

    def make_py_observer(self, iig_obs_type: Any = None, params: Any = None) -> _Observer:
        if params:
            raise ValueError(f"observation parameters are not supported: {params}")
        perfect_recall = iig_obs_type is not None and iig_obs_type.perfect_recall
        return _Observer(self.config.players, self.window, perfect_recall)


class CarcassonneState(pyspiel.State):
    """A node: the engine's State (copied by value when OpenSpiel clones it)."""

    def __init__(self, game: CarcassonneGame) -> None:
        super().__init__(game)
        self.core = _core.State(game.config)
        self.window = game.window
        self.layout = game.layout

    @property
    def space(self) -> _core.ActionSpace:
        """The game's action space (looked up, not kept: OpenSpiel deep-copies the state)."""
        return _layout_space(self.layout, self.window)

    def current_player(self) -> int:
        player = self.core.current_player()
        if player == _core.CHANCE_PLAYER:
            return pyspiel.PlayerId.CHANCE
        if player == _core.TERMINAL_PLAYER:
            return pyspiel.PlayerId.TERMINAL
        return player

    def _legal_actions(self, player: int) -> list[int]:
        indices, outside = self.space.legal_indices(self.core)
        if outside:
            raise WindowError(f"{outside} legal action(s) lie outside the {self.window}-cell window")
        return indices

    def chance_outcomes(self) -> list[tuple[int, float]]:
        # A draw's index is its tile kind id (the action space's first block).
        return [(self.space.index(self.core, code), p) for code, p in self.core.chance_outcomes()]

    def _apply_action(self, action: int) -> None:
        self.core.apply(self.space.action(self.core, int(action)))

    def _action_to_string(self, player: int, action: int) -> str:
        return self.core.action_to_string(self.space.action(self.core, int(action)))

    def is_terminal(self) -> bool:
        return self.core.is_terminal()

    def returns(self) -> list[float]:
        return self.core.returns()

    def __str__(self) -> str:
        return self.core.to_string()

    # The fast route: pyspiel's own observation_tensor() turns the tensor into a Python list of
    # floats (tens of thousands of them: ~300 calls/s at W = 32); these return the float32 numpy
    # array itself (rl_environment and Python code call these). C++ algorithms use the observer.
    def observation_tensor(self, player: int | None = None) -> np.ndarray:
        """The observation (planes then globals, flattened) from `player`'s seat (default: the
        player to decide, else the turn player) as a new float32 array."""
        observer = _shared_observer(self.core.num_players(), self.window)
        seat = player if player is not None else self.core.current_player()
        if seat < 0:
            seat = self.core.turn_player()
        if not 0 <= seat < self.core.num_players():
            raise ValueError(f"player {seat} is not a seat of this game")
        observer.set_from(self, seat)
        return observer.tensor.copy()

    information_state_tensor = observation_tensor  # the same Markov encoding (see the module doc)


class _Observer:
    """OpenSpiel's PyObserver: `tensor` (planes then globals, flattened) with `dict` views."""

    def __init__(self, players: int, window: int, perfect_recall: bool) -> None:
        self.encoder = encoder(players, window)
        self.perfect_recall = perfect_recall
        planes = self.encoder.num_planes * window * window
        self._planes = np.zeros((self.encoder.num_planes, window, window), np.uint8)
        self.tensor = np.zeros(planes + self.encoder.num_globals, np.float32)
        self.dict = {
            "planes": self.tensor[:planes].reshape(self.encoder.num_planes, window, window),
            "globals": self.tensor[planes:],
        }

    def set_from(self, state: CarcassonneState, player: int) -> None:
        self.encoder.encode_into(state.core, player, self._planes, self.dict["globals"])
        np.copyto(self.dict["planes"], self._planes)  # OpenSpiel's tensors are floats

    def string_from(self, state: CarcassonneState, player: int) -> str:
        if self.perfect_recall:  # the information state: everything that happened
            return ",".join(map(str, state.history()))
        return state.core.to_string()


@cache
def _shared_observer(players: int, window: int) -> _Observer:
    """One observer per player count and window for the tensor methods (they copy its tensor)."""
    return _Observer(players, window, perfect_recall=False)


pyspiel.register_game(_GAME_TYPE, CarcassonneGame)
