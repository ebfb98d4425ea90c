"""For learners: observation tensors and a fixed action space over every rule mix.

    from carcassonne import Game, rl
    game = Game(players=2, seed=1); game.apply_random_chance()
    planes, globals_ = rl.encode(game)          # uint8 [planes, 32, 32], float32 [globals]
    mask = rl.legal_actions_mask(game)           # bool [rl.num_distinct_actions()]
    game.apply(rl.index_to_action(game, int(mask.nonzero()[0][0])))

The encoding is done in C++ (engine/observation.h) into arrays numpy allocates; encode_batch and
legal_actions_masks do many states in one call with the GIL released. Both use a window of
board cells that recentres on the placed tiles at every node, so a placement's index is a
window cell and a rotation. Layout, versions and the window: docs/observation.md.

Submodules (each imports its own optional dependency): `carcassonne.rl.openspiel` (registers the
game with pyspiel), `carcassonne.rl.pettingzoo` (an AEC environment) and
`carcassonne.rl.trajectories` (batch self-play in C++ threads with full records and MCTS visit
counts as policy targets, written to .npz).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from functools import cache
from typing import Any

from .. import _core
from .._core import DEFAULT_WINDOW, OBSERVATION_VERSION, ActionSpace, Error, ObservationEncoder
from ..game import Action, Game, make_config

__all__ = [
    "DEFAULT_WINDOW",
    "OBSERVATION_VERSION",
    "ActionSpace",
    "ObservationEncoder",
    "WindowError",
    "action_index",
    "action_space",
    "encode",
    "encode_batch",
    "encoder",
    "index_to_action",
    "legal_actions_mask",
    "legal_actions_masks",
    "legal_indices",
    "num_distinct_actions",
]

GameOrState = Game | _core.State


class WindowError(Error):
    """A legal action lies outside the observation window (the board grew wider than it): the
    node cannot be shown in the fixed action space. Use a larger `window`."""


@cache
def encoder(players: int, window: int = DEFAULT_WINDOW) -> ObservationEncoder:
    """The (shared) ObservationEncoder of a player count and window side."""
    return ObservationEncoder(players, window)


@cache
def action_space(window: int = DEFAULT_WINDOW) -> ActionSpace:
    """The (shared) ActionSpace of a window side."""
    return ActionSpace(window)


def _state(game: GameOrState) -> _core.State:
    if isinstance(game, Game):
        return game._state
    if isinstance(game, _core.State):
        return game
    raise TypeError(f"expected a Game or a State, not {type(game).__name__}")


def num_distinct_actions(
    players: int = 2,
    expansions: Iterable[str] = (),
    variants: Mapping[str, str] | None = None,
    window: int = DEFAULT_WINDOW,
) -> int:
    """The size of the action space for a rule mix (validated: ConfigError) and window side.
    Every mix has the same space (it holds every decision kind); the window sets its size."""
    make_config(players, expansions, variants, 0).validated()
    return action_space(window).size


def encode(game: GameOrState, observer: int | None = None, window: int = DEFAULT_WINDOW) -> tuple[Any, Any]:
    """(planes uint8 [planes, window, window], globals float32 [globals]) of the current node
    from `observer`'s seat (default: the player to decide, else the turn player)."""
    state = _state(game)
    return encoder(state.num_players(), window).encode(state, observer)


def encode_batch(
    games: Sequence[GameOrState],
    observers: Sequence[int] | None = None,
    window: int = DEFAULT_WINDOW,
    out: tuple[Any, Any] | None = None,
) -> tuple[Any, Any]:
    """encode() of many nodes of one player count in one C++ call with the GIL released:
    (planes uint8 [n, planes, window, window], globals float32 [n, globals]). `out`: those two
    arrays to fill instead of new ones (C-contiguous, the right sizes): a training loop that
    reuses them skips the page faults of fresh memory, most of a first call's time."""
    states = [_state(g) for g in games]
    if not states:
        raise ValueError("encode_batch needs at least one game")
    enc = encoder(states[0].num_players(), window)
    planes_out, globals_out = (None, None) if out is None else _checked_out(out, len(states), enc, window)
    return enc.encode_batch(states, None if observers is None else list(observers), planes_out, globals_out)


def _checked_out(out: Any, n: int, enc: ObservationEncoder, window: int) -> tuple[Any, Any]:
    """encode_batch's `out` as the C++ call needs it, or a ValueError that says what was expected
    and what was given (the binding's own error names neither)."""
    expected = (
        ("planes", "uint8", (n, enc.num_planes, window, window)),
        ("globals", "float32", (n, enc.num_globals)),
    )
    if not isinstance(out, tuple | list) or len(out) != 2:
        raise ValueError("encode_batch(out=...) takes a pair of arrays: (planes, globals)")
    for array, (name, dtype, shape) in zip(out, expected, strict=True):
        got_dtype = str(getattr(array, "dtype", type(array).__name__))
        got_shape = getattr(array, "shape", None)
        if got_dtype != dtype or tuple(got_shape or ()) != shape:
            raise ValueError(
                f"encode_batch(out=...): {name} must be a {dtype} array of shape {shape} "
                f"for {n} game(s) at window {window}, got {got_dtype} {got_shape}"
            )
        if not array.flags["C_CONTIGUOUS"] or not array.flags["WRITEABLE"]:
            raise ValueError(f"encode_batch(out=...): {name} must be C-contiguous and writeable")
    return out[0], out[1]


def legal_actions_mask(game: GameOrState, window: int = DEFAULT_WINDOW) -> Any:
    """bool [num_distinct_actions]: True at the index of every legal action. Raises WindowError
    if a legal action lies outside the window (docs/observation.md: how rare that is)."""
    mask, outside = action_space(window).legal_mask(_state(game))
    if outside:
        raise WindowError(f"{outside} legal action(s) lie outside the {window}-cell window")
    return mask


def legal_actions_masks(games: Sequence[GameOrState], window: int = DEFAULT_WINDOW) -> tuple[Any, Any]:
    """Masks of many nodes in one C++ call with the GIL released: (masks bool [n, actions],
    outside int32 [n]: legal actions of each node that lie outside the window, almost always 0)."""
    return action_space(window).legal_masks([_state(g) for g in games])


def legal_indices(game: GameOrState, window: int = DEFAULT_WINDOW) -> list[int]:
    """The indexes of the legal actions, ascending (WindowError as for legal_actions_mask)."""
    indices, outside = action_space(window).legal_indices(_state(game))
    if outside:
        raise WindowError(f"{outside} legal action(s) lie outside the {window}-cell window")
    return indices


def action_index(game: GameOrState, action: Action | int | str, window: int = DEFAULT_WINDOW) -> int:
    """The index of an action (Action, code or text) at this node; WindowError if outside."""
    state = _state(game)
    code = state.parse_action(action) if isinstance(action, str) else int(action)
    index = action_space(window).index(state, code)
    if index < 0:
        raise WindowError(f"action {state.action_to_string(code)!r} lies outside the {window}-cell window")
    return index


def index_to_action(game: GameOrState, index: int, window: int = DEFAULT_WINDOW) -> Action:
    """The Action an index names at this node (IllegalActionError outside the space; the action
    may still be illegal here: check the mask)."""
    state = _state(game)
    space = action_space(window)
    if not 0 <= int(index) < space.size:  # beyond C++'s int, the binding would raise TypeError
        raise _core.IllegalActionError(f"action index {index} is outside the action space [0, {space.size})")
    code = space.action(state, int(index))
    return Action(code, state.action_to_string(code))
