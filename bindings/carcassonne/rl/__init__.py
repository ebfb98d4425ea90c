"""For learners: observation tensors and a fixed action space over every rule mix.

    from carcassonne import Game, rl
    game = Game(players=2, seed=1); game.apply_random_chance()
    planes, globals_ = rl.encode(game)          # uint8 [planes, 32, 32], float32 [globals]
    mask = rl.legal_actions_mask(game)           # int8 [rl.num_distinct_actions()], frontier layout
    game.apply(rl.index_to_action(game, int(mask.nonzero()[0][0])))

The encoding is done in C++ (engine/observation.h) into arrays numpy allocates; encode_batch and
legal_actions_masks do many states in one call with the GIL released. The planes use a window of
board cells that recentres on the placed tiles at every node. Action indexes come in two
layouts: "frontier" (the default everywhere, ENV_LAYOUT: a placement names a frontier cell, a
figure elsewhere or an arrow a placed tile, and `action_cells` gives their positions in the
window; every legal action has an index) and "window" (`layout="window"`, with `window=` its
side: a placement's index is a window cell and a rotation, so it lines up with the planes, but a
board wider than the window leaves actions without an index; the search's network and its
Python evaluators index this way). A `window=` given with the frontier layout is refused
(ValueError): it numbers nothing there, and such a call meant the window layout. Layouts,
versions and the window: docs/observation.md.

Submodules (each imports its own optional dependency): `carcassonne.rl.openspiel` (registers the
game with pyspiel), `carcassonne.rl.gymnasium` and `carcassonne.rl.vector` (one seat, and N games
stepped in C++), `carcassonne.rl.pettingzoo` (an AEC environment) and
`carcassonne.rl.trajectories` (batch self-play in C++ threads with full records and MCTS visit
counts as policy targets, written to .npz).

Registered ids: "carcassonne/Carcassonne-v0" with Gymnasium (`gymnasium.make` gives
CarcassonneEnv, `gymnasium.make_vec` the vector environment) and "carcassonne/carcassonne_v0"
with PettingZoo's registry (`pettingzoo.make("aec", ...)`, PettingZoo 1.27 and later). Importing
this module registers them with whichever of the two is already imported, importing one of the
environment modules registers its own, and `register_envs()` registers both explicitly.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable, Mapping, Sequence
from functools import cache
from typing import Any

from .. import _core
from .._common import _whole_number
from .._core import (
    DEFAULT_WINDOW,
    MAX_FRONTIER,
    MAX_TILES,
    NO_CELL,
    OBSERVATION_VERSION,
    ActionSpace,
    Error,
    ObservationEncoder,
)
from ..game import Action, Game, make_config

__all__ = [
    "DEFAULT_WINDOW",
    "ENV_LAYOUT",
    "LAYOUTS",
    "MAX_FRONTIER",
    "MAX_TILES",
    "NO_CELL",
    "OBSERVATION_VERSION",
    "ActionSpace",
    "ObservationEncoder",
    "WindowError",
    "action_cells",
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
    "register_envs",
]

GameOrState = Game | _core.State

# The action layouts (docs/observation.md): "frontier", every function's and environment's default
# (every legal action has an index there), and "window".
LAYOUTS = ("frontier", "window")
ENV_LAYOUT = "frontier"


class WindowError(Error):
    """A legal action lies outside the observation window (the board grew wider than it): the
    node cannot be shown in the fixed action space. Use a larger `window`."""


@cache
def encoder(players: int, window: int = DEFAULT_WINDOW) -> ObservationEncoder:
    """The (shared) ObservationEncoder of a player count and window side."""
    return ObservationEncoder(players, window)


def action_space(window: int | None = None, layout: str = ENV_LAYOUT) -> ActionSpace:
    """The (shared) ActionSpace of a layout: "frontier" (the default; no window: a `window` is
    refused) or "window" (of side `window`, DEFAULT_WINDOW if None)."""
    if layout == "frontier" and window is not None:
        raise ValueError(
            f"window={window} numbers no action in the frontier layout (the default): pass "
            'layout="window" for indexes of window cells'
        )
    return _layout_space(layout, window)


def _layout_space(layout: str, window: int | None) -> ActionSpace:
    """action_space() for code that carries a window for its planes whatever the layout (the
    environments): the window is used by the window layout only."""
    if layout not in LAYOUTS:
        raise ValueError(f"unknown action layout {layout!r} (known: {', '.join(LAYOUTS)})")
    if layout == "frontier":
        return _action_space(0, layout)
    return _action_space(DEFAULT_WINDOW if window is None else window, layout)


@cache
def _action_space(window: int, layout: str) -> ActionSpace:
    return ActionSpace(window, layout)


def _outside_error(outside: int, space: ActionSpace) -> WindowError:
    return WindowError(f"{outside} legal action(s) lie outside the {space.window}-cell window")


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
    window: int | None = None,
    layout: str = ENV_LAYOUT,
) -> int:
    """The size of the action space for a rule mix (validated: ConfigError) and layout. Every mix
    has the same space (it holds every decision kind); the layout and window set its size."""
    make_config(players, expansions, variants, 0).validated()
    return action_space(window, layout).size


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


def legal_actions_mask(game: GameOrState, window: int | None = None, layout: str = ENV_LAYOUT) -> Any:
    """int8 [num_distinct_actions]: 1 at the index of every legal action (int8, as Gymnasium's
    masked sample() takes it). Raises WindowError if a legal action lies outside the window
    (window layout only; docs/observation.md: how rare that is)."""
    space = action_space(window, layout)
    mask, outside = space.legal_mask(_state(game))
    if outside:
        raise _outside_error(outside, space)
    return mask


def legal_actions_masks(
    games: Sequence[GameOrState], window: int | None = None, layout: str = ENV_LAYOUT
) -> tuple[Any, Any]:
    """Masks of many nodes in one C++ call with the GIL released: (masks int8 [n, actions],
    outside int32 [n]: legal actions of each node outside the window, almost always 0; always 0
    in the frontier layout)."""
    return action_space(window, layout).legal_masks([_state(g) for g in games])


def legal_indices(game: GameOrState, window: int | None = None, layout: str = ENV_LAYOUT) -> list[int]:
    """The indexes of the legal actions, ascending (WindowError as for legal_actions_mask)."""
    space = action_space(window, layout)
    indices, outside = space.legal_indices(_state(game))
    if outside:
        raise _outside_error(outside, space)
    return indices


def action_cells(game: GameOrState, window: int = DEFAULT_WINDOW) -> tuple[Any, Any]:
    """What the frontier layout's cell numbers mean at this node, in the planes of this window
    side: (frontier int16 [MAX_FRONTIER, 2], tiles int16 [MAX_TILES, 2]), the (row, column) of
    frontier cell c (the place and abbey blocks; row-major order) and of placed tile t (the
    figure_at and arrow blocks; by the order of placing), NO_CELL past the board's counts. A
    cell outside the window has a row or column outside [0, window)."""
    return action_space().cells(_state(game), window)


def action_index(
    game: GameOrState, action: Action | int | str, window: int | None = None, layout: str = ENV_LAYOUT
) -> int:
    """The index of an action (Action, code or text) at this node. IllegalActionError for a code
    that is no action, or an action this game's rules never offer (a mayor without abbey-mayor),
    or (frontier layout) one whose cell is no frontier cell or tile; WindowError if the action's
    cell lies outside the window (window layout)."""
    state = _state(game)
    if isinstance(action, Action):
        code = action.code
    elif isinstance(action, str):
        code = state.parse_action(action)
    else:
        code = _whole_number("action code", action)
        if not 0 <= code < 2**32:
            raise _core.IllegalActionError(f"action code {code} is out of range (0 to 2**32 - 1)")
    space = action_space(window, layout)
    index = space.index(state, code)
    if index >= 0 and state.is_legal(code):
        return index
    reason = _not_in_the_rules(state, code)
    if reason is not None:
        raise _core.IllegalActionError(f"action code {code}: {reason}")
    if index >= 0:
        return index  # an action of the rules, illegal at this node
    text = state.action_to_string(code)
    if layout == "window" and action_space(_WIDEST_WINDOW, "window").index(state, code) >= 0:
        raise WindowError(f"action {text!r} lies outside the {space.window}-cell window")
    try:
        canonical = state.parse_action(text)
    except _core.IllegalActionError:
        canonical = code
    if canonical != code:
        raise _core.IllegalActionError(
            f"action code {code} is malformed: no action has it ({text!r} is code {canonical})"
        )
    if layout == "frontier":
        raise _core.IllegalActionError(
            f"action {text!r} has no index in the frontier layout at this node: a placement or an "
            "abbey must name a frontier cell (next to a tile), a figure elsewhere or an arrow a tile"
        )
    raise _core.IllegalActionError(
        f"action code {code} ({text!r}) has no index in the action space: a malformed code, "
        "or a cell beyond the board's reach"
    )


def index_to_action(
    game: GameOrState, index: int, window: int | None = None, layout: str = ENV_LAYOUT
) -> Action:
    """The Action an index names at this node. IllegalActionError outside the space, for a
    frontier cell or tile the board does not have (frontier layout), and for an action this
    game's rules never offer (a mayor's slot in a base game); a legal action of the rules may
    still be illegal at this node: check the mask."""
    state = _state(game)
    space = action_space(window, layout)
    index = _whole_number("action index", index)
    if not 0 <= index < space.size:  # beyond C++'s int, the binding would raise TypeError
        raise _core.IllegalActionError(f"action index {index} is outside the action space [0, {space.size})")
    code = space.action(state, index)
    if not state.is_legal(code):
        reason = _not_in_the_rules(state, code)
        if reason is not None:
            raise _core.IllegalActionError(f"action index {index}: {reason}")
    return Action(code, state.action_to_string(code))


# The widest window an ActionSpace takes: an action without an index even there is malformed or
# has a cell beyond the board's reach, not just outside a smaller window.
_WIDEST_WINDOW = 510
# Rule flags of the observation's globals (docs/observation.md: rules[...]).
_RULE_FLAGS = ("abbey-mayor", "anniv20", "king-robber", "shrines", "river2", "city", "count")


def _rules(state: _core.State) -> dict[str, bool]:
    """The state's rule mix as the encoder reports it (a State does not carry its Config)."""
    enc = encoder(state.num_players())
    _, globals_ = enc.encode(state, 0)
    names = enc.global_names
    return {flag: bool(globals_[names.index(f"rules[{flag}]")]) for flag in _RULE_FLAGS}


@cache
def _drawable_tiles(flags: tuple[tuple[str, bool], ...]) -> frozenset[str]:
    """The tile kinds a mix deals: its bag at the start (not the start tile, the abbey, the
    spring or the City's squares, which are never drawn)."""
    rules = dict(flags)
    expansions = [e for e in ("abbey-mayor", "anniv20", "king-robber", "shrines", "river2") if rules[e]]
    variants = {"start": "city" if rules["count"] else "city_plain"} if rules["city"] else {}
    return frozenset(_core.State(make_config(2, expansions, variants, 0)).bag_counts())


def _not_in_the_rules(state: _core.State, code: int) -> str | None:
    """Why `code` is no action of the state's game: not a code of any kind, or a decision its
    rule mix never has (the action space holds every mix's decisions); None if it may be one.
    Read from the engine's text of the action (engine/action.h: its string forms)."""
    kind = _core.action_kind(code)
    if kind == "unknown":
        return "no action has this code (engine/action.h)"
    text = state.action_to_string(code)
    rules = _rules(state)
    quarters = rules["count"]  # the City with its quarters and the Count (start = city)
    figure = text.split(" ")[0]  # of a figure or quarter action: meeple, mayor, wagon or barn
    if kind == "draw":
        if text.removeprefix("draw ") not in _drawable_tiles(tuple(rules.items())):
            return f"{text!r}: that tile is never drawn in this game's rule mix"
    elif kind in ("figure", "quarter") and figure != "meeple" and not rules["abbey-mayor"]:
        return f"{text!r}: the {figure} is not in play (it comes with abbey-mayor)"
    elif kind in ("abbey", "take-tile") and not rules["abbey-mayor"]:
        return f"{text!r}: abbeys come with abbey-mayor"
    elif kind == "arrow" and not rules["anniv20"]:
        return f"{text!r}: arrows come with anniv20"
    elif kind in ("quarter", "count") and not quarters:
        return f"{text!r}: the City's quarters and the Count come with the city start (variant start=city)"
    elif kind == "quarter" and figure == "barn":
        return f"{text!r}: a barn never enters the City (CK-3)"
    elif kind == "figure" and " @" in text and not _moves_elsewhere(figure, rules):
        return (
            f"{text!r}: a {figure} goes onto another tile than the one just placed only in a "
            "wagon move (abbey-mayor), from an arrow (anniv20, meeples) or from the City (start=city)"
        )
    return None


def _moves_elsewhere(figure: str, rules: dict[str, bool]) -> bool:
    """Whether some rule of the mix puts this figure onto another tile than the one just placed:
    a wagon move (AM-W-2), an arrow's meeple (XX-4, XX-5: meeples only) or a move out of the
    City's quarters (CK-4: meeple, mayor, wagon)."""
    return figure == "wagon" or (figure == "meeple" and rules["anniv20"]) or rules["count"]


# ---- Registered ids ----------------------------------------------------------------------------

GYMNASIUM_ID = "carcassonne/Carcassonne-v0"
PETTINGZOO_ID = "carcassonne/carcassonne_v0"


def register_envs() -> None:
    """Registers the environments with Gymnasium and PettingZoo, those of the two installed
    (importing them): "carcassonne/Carcassonne-v0" (gymnasium.make: CarcassonneEnv, against one
    random opponent unless `opponents=` says otherwise; gymnasium.make_vec: CarcassonneVectorEnv)
    and "carcassonne/carcassonne_v0" (pettingzoo.make("aec", ...)). Registering again is a no-op."""
    for package, register in (("gymnasium", _register_gymnasium), ("pettingzoo", _register_pettingzoo)):
        try:
            __import__(package)
        except ImportError:
            continue
        register()


def _register_gymnasium() -> None:
    import gymnasium

    if GYMNASIUM_ID not in gymnasium.registry:
        gymnasium.register(
            GYMNASIUM_ID,
            entry_point="carcassonne.rl.gymnasium:CarcassonneEnv",
            vector_entry_point="carcassonne.rl.vector:CarcassonneVectorEnv",
            kwargs={"opponents": ["random"]},  # the vector environment's default, for both
        )


def _register_pettingzoo() -> None:
    import pettingzoo

    register = getattr(pettingzoo, "register", None)  # PettingZoo's registry: 1.27 and later
    if register is not None and PETTINGZOO_ID.replace("_v", "-v") not in pettingzoo.aec_registry:
        register("aec", PETTINGZOO_ID, entry_point="carcassonne.rl.pettingzoo:env")


# Registration on import, without importing an optional package that is not loaded yet.
if "gymnasium" in sys.modules:
    _register_gymnasium()
if "pettingzoo" in sys.modules:
    _register_pettingzoo()
