"""The friendly API: `Game`, `Action`, game records, and whole random games played in C++
(games between agents: search.py's play_game and arena, which import this module).

A `Game` wraps one `_core.State` (the C++ node) and keeps the history of the actions applied to
it, so a game can be written as a record (`to_json`) and replayed exactly (`from_json`). All
rules checks happen in C++; this module converts arguments and reports errors by index.
"""

from __future__ import annotations

import json
import operator
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from . import _core
from ._common import _analyse, _int, _names
from ._core import Error, GameResult, IllegalActionError, PositionError, RecordError

RECORD_FORMAT = "carcassonne-record/1"

_CONFIG_KEYS = ("players", "expansions", "variants", "seed", "draw_order")
QUARTERS = ("castle", "market", "blacksmith", "cathedral")  # the Count's clockwise order (CK-7)
_POSITION_KEYS = (
    "tiles",
    "figures",
    "scores",
    "breakdown",
    "abbeys",
    "bag",
    "current_player",
    "city",
    "count",
    "king",
    "robber",
    "extra_turn",
    "last_placer",
    "final_round_left",
    "tile_taken",
    "turn_number",
    "discarded",
)
_RECORD_KEYS = ("format", "config", "position", "actions", "sampled")
# The start position of a game made from a bare state (an arena's game shown to a Python agent):
# its history is unknown, so it has no record.
_NO_RECORD: dict[str, Any] = {}


@dataclass(frozen=True)
class Action:
    """One move, chance draws included: a stable integer `code` (engine/action.h) and its text.

    Actions compare and hash by code only; `str(action)` is the text, which `Game.apply` parses
    back to the same code.
    """

    code: int
    text: str = field(compare=False)
    # What the action's scorings counted, when applied with explain=True (docs/python.md).
    scorings: list[dict[str, Any]] | None = field(default=None, compare=False, repr=False)

    def __str__(self) -> str:
        return self.text

    def __int__(self) -> int:
        return self.code

    @property
    def kind(self) -> str:
        """The kind of action, one of ACTION_KINDS: "draw", "place", "figure", "pass", "abbey",
        "take-tile", "arrow", "quarter" (a figure into the City) or "count"; "unknown" for a code
        of no kind (the engine makes none)."""
        return _core.action_kind(self.code)


def make_config(
    players: int = 2,
    expansions: Iterable[str] = (),
    variants: Mapping[str, str] | None = None,
    seed: int = 0,
    draw_order: Iterable[str] | None = None,
) -> _core.Config:
    """Returns a validated `_core.Config`; raises ConfigError (a ValueError) or TypeError."""
    if variants is None:
        variants = {}
    if not isinstance(variants, Mapping):
        raise TypeError(f"variants must be a mapping, not {type(variants).__name__}")
    for key, value in variants.items():
        if not isinstance(key, str) or not isinstance(value, str):
            raise TypeError("variants must map strings to strings")
    config = _core.Config(
        # Only the int32 range is checked here; the rules' range is checked (once) in C++.
        players=_int("players", players, -(2**31), 2**31 - 1, _core.ConfigError),
        expansions=_names("expansions", expansions),
        variants=dict(variants),
        seed=_int("seed", seed, 0, 2**64 - 1, _core.ConfigError),
        draw_order=_names("draw_order", draw_order),
    )
    return config.validated()


def _config_dict(config: _core.Config) -> dict[str, Any]:
    return {
        "players": config.players,
        "expansions": list(config.expansions),
        "variants": dict(config.variants),
        "seed": config.seed,
        "draw_order": list(config.draw_order),
    }


def _check_keys(what: str, given: Mapping[str, Any], allowed: Sequence[str], error: type[Exception]) -> None:
    unknown = sorted(set(given) - set(allowed))
    if unknown:
        raise error(f"{what}: unknown key(s) {', '.join(map(repr, unknown))} (allowed: {', '.join(allowed)})")


class Game:
    """A game of Carcassonne: a C++ state plus the history of the actions applied to it.

    The game is a sequence of nodes: at a chance node (`is_chance`) a tile is drawn, either
    `apply_random_chance()` (the state's own seeded PRNG) or `apply("draw base.D")`; at a
    decision node `current_player` chooses one of `legal_actions()`. Bad input raises a
    ValueError subclass (ConfigError, IllegalActionError, PositionError, RecordError) and leaves
    the game unchanged.
    """

    __slots__ = ("_config", "_history", "_position", "_sampled", "_state")

    def __init__(
        self,
        players: int = 2,
        expansions: Iterable[str] = (),
        variants: Mapping[str, str] | None = None,
        seed: int = 0,
        draw_order: Iterable[str] | None = None,
    ) -> None:
        self._config = make_config(players, expansions, variants, seed, draw_order)
        self._state = _core.State(self._config)
        self._history: list[str] = []
        self._sampled: list[int] = []  # indexes into _history of draws made with the state's PRNG
        self._position: dict[str, Any] | None = None  # the start position (from_position)

    # ---- Set-up from descriptions ------------------------------------------------------------

    @classmethod
    def from_position(cls, position: Mapping[str, Any]) -> Game:
        """A game set up from a described position, at the start of current_player's turn (a
        draw, or the abbey choice with Abbey & Mayor; with tile_taken, the draw after it).

        Keys: the config keys (players, expansions, variants, seed, draw_order) and
        tiles [{tile, x, y, rotation}] in placement order, figures [{player, kind, x, y, feature}]
        (kind: meeple, mayor, wagon, barn; a barn's feature is its corner 0 NE .. 3 NW),
        scores [per player], breakdown [per player, points per cause as in CAUSES; omitted:
        unknown], abbeys [held per player, Abbey & Mayor; omitted: one each], bag [tile names
        left, river tiles included; omitted: the rest of the sets], current_player,
        city [{player, kind, quarter}: figures in the City of Carcassonne's quarters] and count
        [the Count's quarter] with start = city (the City's squares are laid by the engine),
        king and robber [their holders, -1 nobody: King & Robber], extra_turn [this turn is an
        extra turn: XX-6, RV-6], last_placer [who placed the last tile; -1: the player before],
        final_round_left [AM-A-5 final_round: players still to have their endgame turn],
        tile_taken [the turn player chose take-tile (AM-A-1): the position is at the draw],
        turn_number [turns played so far; omitted: 0] and discarded [unplaceable tiles removed
        so far, B-4: at most the tiles of the bag neither placed nor left; omitted: 0].
        With River II the spring is the first tile. Two figures share a segment only as an
        XX-4 pair. Whether the position is possible is checked in C++; errors raise
        PositionError. Game.position() writes this description for any game.
        """
        if not isinstance(position, Mapping):
            raise PositionError(f"a position must be a mapping, not {type(position).__name__}")
        _check_keys("position", position, _CONFIG_KEYS + _POSITION_KEYS, PositionError)
        try:  # a position is data (often from a file): a value of the wrong type is a bad position
            config = make_config(**{k: position[k] for k in _CONFIG_KEYS if k in position})
        except TypeError as e:
            raise PositionError(f"position: {e}") from e
        described = _normalise_position(position)
        try:
            core = _core.Position(
                config=config,
                tiles=[
                    _core.Position.Tile(t["tile"], t["x"], t["y"], t["rotation"]) for t in described["tiles"]
                ],
                figures=[
                    _core.Position.Figure(f["player"], f["kind"], f["x"], f["y"], f["feature"])
                    for f in described["figures"]
                ],
                scores=described["scores"],
                breakdown=described["breakdown"],
                abbeys=described["abbeys"],
                bag=described["bag"],
                current_player=described["current_player"],
                city=[
                    _core.Position.CityFigure(f["player"], f["kind"], f["quarter"]) for f in described["city"]
                ],
                count=described["count"] or "",
                king=described["king"],
                robber=described["robber"],
                extra_turn=described["extra_turn"],
                last_placer=described["last_placer"],
                final_round_left=described["final_round_left"],
                tile_taken=described["tile_taken"],
                turn_number=described["turn_number"],
                discarded=described["discarded"],
            )
        except TypeError as e:  # a value of the wrong type that _normalise_position let through
            raise PositionError(f"position: {e}") from e
        game = cls.__new__(cls)
        game._config = config
        game._state = _core.State.from_position(core)
        game._history = []
        game._sampled = []
        game._position = described
        return game

    @classmethod
    def from_json(cls, text: str | bytes) -> Game:
        """Replays a game record written by `to_json`; raises RecordError if it is malformed.

        Draws listed in "sampled" are made with the game's own PRNG, so the replayed game is
        the same value as the recorded one, PRNG included.
        """
        try:
            record = json.loads(text)
        except (ValueError, TypeError, RecursionError) as e:  # RecursionError: nested too deeply
            raise RecordError(f"malformed record JSON: {e}") from e
        if not isinstance(record, dict):
            raise RecordError("a record must be a JSON object")
        _check_keys("record", record, _RECORD_KEYS, RecordError)
        if record.get("format") != RECORD_FORMAT:
            raise RecordError(f"record format must be {RECORD_FORMAT!r}, got {record.get('format')!r}")
        for key in ("config", "actions"):
            if key not in record:
                raise RecordError(f"record: missing key {key!r}")
        config = record["config"]
        if not isinstance(config, dict):
            raise RecordError("record config must be an object")
        _check_keys("record config", config, _CONFIG_KEYS, RecordError)
        actions = record["actions"]
        if not isinstance(actions, list) or not all(isinstance(a, str) for a in actions):
            raise RecordError("record actions must be a list of strings")
        sampled = record.get("sampled", [])
        if (
            not isinstance(sampled, list)
            or not all(
                isinstance(i, int) and not isinstance(i, bool) and 0 <= i < len(actions) for i in sampled
            )
            or sorted(set(sampled)) != sampled
        ):
            raise RecordError("record sampled must be a sorted list of distinct action indexes")
        try:
            if "position" in record:
                position = record["position"]
                if not isinstance(position, dict):
                    raise RecordError("record position must be an object")
                _check_keys("record position", position, _POSITION_KEYS, RecordError)
                game = cls.from_position({**config, **position})
            else:
                game = cls(**config)
        except (Error, TypeError) as e:
            if isinstance(e, RecordError):
                raise
            raise RecordError(f"record: {e}") from e
        draws = set(sampled)
        for i, action in enumerate(actions):
            try:
                if i in draws:
                    game._replay_sampled(action)
                else:
                    game.apply(action)
            except IllegalActionError as e:
                raise RecordError(f"record action {i} ({action!r}): {e}") from e
        return game

    def _replay_sampled(self, text: str) -> None:
        if not self.is_chance:
            raise IllegalActionError("a sampled draw where the game is not at a draw")
        code = self._state.sample_chance()
        if self._state.action_to_string(code) != text:
            raise IllegalActionError(f"the game's PRNG draws {self._state.action_to_string(code)!r} here")
        self._apply_code(code, sampled=True)

    # ---- Node queries ------------------------------------------------------------------------

    @property
    def num_players(self) -> int:
        return self._state.num_players()

    @property
    def current_player(self) -> int:
        """The player to decide; CHANCE_PLAYER (-1) at a draw, TERMINAL_PLAYER (-4) at the end."""
        return self._state.current_player()

    @property
    def turn_player(self) -> int:
        """The player whose turn it is (also at the draw that starts it)."""
        return self._state.turn_player()

    @property
    def is_chance(self) -> bool:
        return self._state.is_chance()

    @property
    def is_terminal(self) -> bool:
        return self._state.is_terminal()

    @property
    def phase(self) -> str:
        """Where the turn is, one of PHASES: "draw", "abbey_choice", "place_tile",
        "arrow_choice", "place_figure", "city_move", "wagon_move", "city_place", "count_move",
        "market_move" or "game_over"."""
        return _core.PHASES[self._state.phase().value]

    @property
    def drawn_tile(self) -> str | None:
        """The tile to place (or just placed, at a figure decision); None otherwise."""
        return self._state.drawn_tile()

    def legal_actions(self) -> list[Action]:
        """The legal actions, sorted by code (at a draw: the possible draws); empty at the end."""
        to_string = self._state.action_to_string
        return [Action(code, to_string(code)) for code in self._state.legal_actions()]

    def chance_outcomes(self) -> list[tuple[Action, float]]:
        """At a draw, (draw, probability) for every tile kind left; empty otherwise."""
        to_string = self._state.action_to_string
        return [(Action(code, to_string(code)), p) for code, p in self._state.chance_outcomes()]

    def is_legal(self, action: Action | int | str) -> bool:
        try:
            return self._state.is_legal(self._code(action))
        except IllegalActionError:  # a string that does not parse
            return False

    def action(self, action: Action | int | str) -> Action:
        """Returns the Action for a code or a string, without applying it."""
        code = self._code(action)
        return Action(code, self._state.action_to_string(code))

    # ---- Moves -------------------------------------------------------------------------------

    def apply(self, action: Action | int | str, *, explain: bool = False) -> Action:
        """Applies a legal action: an Action, its code, or its text ("place 1,0 r2",
        "meeple city#0", "pass", "draw base.D"). Raises IllegalActionError and changes
        nothing if it is malformed or illegal. Returns the action applied; with explain=True
        its `scorings` list what every scoring of the action counted (docs/python.md)."""
        return self._apply_code(self._code(action), sampled=False, explain=explain)

    def apply_random_chance(self, *, explain: bool = False) -> Action:
        """Draws a tile with the state's own seeded PRNG and applies the draw (explain: as in
        apply; a draw scores only when it ends the game, B-4)."""
        if not self.is_chance:
            raise IllegalActionError(f"apply_random_chance: the game is at {self.phase}, not at a draw")
        return self._apply_code(self._state.sample_chance(), sampled=True, explain=explain)

    def _code(self, action: Action | int | str) -> int:
        if isinstance(action, Action):
            return action.code
        if isinstance(action, str):
            return self._state.parse_action(action)
        if isinstance(action, bool):
            raise TypeError("an action is an Action, an int code or a string, not a bool")
        try:
            code = operator.index(action)
        except TypeError:
            raise TypeError(
                f"an action is an Action, an int code or a string, not {type(action).__name__}"
            ) from None
        if not 0 <= code <= 0xFFFFFFFF:
            raise IllegalActionError(f"action code {code} is out of range (0 to 2**32 - 1)")
        return code

    def _apply_code(self, code: int, *, sampled: bool, explain: bool = False) -> Action:
        if not isinstance(explain, bool):
            raise TypeError(f"explain is True or False, not {type(explain).__name__}")
        text = self._state.action_to_string(code)  # before apply: figure texts name the tile's feature
        scorings = self._state.apply(code, explain=explain)
        if sampled:
            self._sampled.append(len(self._history))
        self._history.append(text)
        return Action(code, text, scorings)

    @property
    def history(self) -> list[str]:
        """The text of every action applied, chance draws included (a copy)."""
        return list(self._history)

    # ---- Results -----------------------------------------------------------------------------

    @property
    def scores(self) -> list[int]:
        return self._state.scores()

    def score(self, player: int, cause: str | None = None) -> int:
        """One player's points, or the part of them booked under one cause (CAUSES)."""
        return self._state.score(player) if cause is None else self._state.score(player, cause)

    def breakdown(self) -> dict[int, dict[str, int]]:
        """{player: {cause: points}}, every cause listed (RULES B-11)."""
        return {p: self._state.breakdown(p) for p in range(self.num_players)}

    def returns(self) -> list[float]:
        """Win shares at the end: 1/k for each of the k top scorers, else 0 (B-10); 0s before."""
        return self._state.returns()

    def scores_if_ended(self) -> list[int]:
        """Every player's score if the game ended now: final scoring (B-8, B-9) applied to a
        copy, unfinished features and fields included. The game itself is unchanged."""
        return self._state.scores_if_ended()

    # ---- Inspection --------------------------------------------------------------------------

    @property
    def config(self) -> dict[str, Any]:
        """The validated config (defaults filled in) as a dict of the Game() arguments."""
        return _config_dict(self._config)

    @property
    def tiles(self) -> list[dict[str, Any]]:
        """The tiles on the board in placement order, as from_position takes them."""
        return [{"tile": kind, "x": x, "y": y, "rotation": r} for kind, x, y, r in self._state.placed_tiles()]

    @property
    def figures(self) -> list[dict[str, Any]]:
        """The figures on the board, as from_position takes them (for a barn, "feature" is the
        index of its field on the tile, not its corner)."""
        return [
            {"player": p, "kind": kind, "x": x, "y": y, "feature": f}
            for p, kind, x, y, f in self._state.placed_figures()
        ]

    def supply(self, player: int, kind: str = "meeple") -> int:
        """Figures of one kind (meeple, mayor, wagon, barn) the player has in supply."""
        return self._state.supply(player, kind)

    @property
    def count(self) -> str:
        """The quarter of the City of Carcassonne where the Count stands (CK-2)."""
        return self._state.count()

    def in_quarter(self, player: int, quarter: str, kind: str = "meeple") -> int:
        """The player's figures of this kind in a quarter of the City (castle, market, blacksmith,
        cathedral)."""
        return self._state.in_quarter(player, quarter, kind)

    def in_city(self, player: int, kind: str = "meeple") -> int:
        """The player's figures of this kind in all quarters of the City together."""
        if kind == "barn":
            return 0
        return sum(self.in_quarter(player, q, kind) for q in QUARTERS)

    @property
    def king(self) -> int:
        """The King's holder (KR-1), -1 for nobody."""
        return self._state.king()

    @property
    def robber(self) -> int:
        """The Robber's holder (KR-1), -1 for nobody."""
        return self._state.robber()

    def abbeys(self, player: int) -> int:
        """Abbey tiles the player still holds (Abbey & Mayor, AM-A-1)."""
        return self._state.abbeys(player)

    @property
    def bag_size(self) -> int:
        return self._state.bag_size()

    def bag(self) -> dict[str, int]:
        """{tile kind: copies left in the bag}."""
        return self._state.bag_counts()

    @property
    def turn_number(self) -> int:
        return self._state.turn_number()

    @property
    def discarded(self) -> int:
        """Unplaceable tiles removed from the game so far (B-4)."""
        return self._state.discarded()

    def position(self) -> dict[str, Any]:
        """The game now as a from_position description, at the start of a turn (a draw or the
        abbey choice): Game.from_position(game.position()) offers the same moves and, with the
        same draws, plays the same rest of the game. Works for every rule mix. At the draw after
        "take-tile" the choice is kept (tile_taken), so the abbey choice does not come again.
        The turn number and the count of discarded tiles are kept too (turn_number, discarded).
        """
        try:
            core = self._state.to_position()
        except PositionError as e:
            raise Error(str(e)) from None
        config = {**self.config, "draw_order": list(core.config.draw_order)}
        return {
            **config,
            "tiles": [{"tile": t.kind, "x": t.x, "y": t.y, "rotation": t.rotation} for t in core.tiles],
            "figures": [
                {"player": f.player, "kind": f.kind, "x": f.x, "y": f.y, "feature": f.feature}
                for f in core.figures
            ],
            "scores": list(core.scores),
            "breakdown": [list(row) for row in core.breakdown],
            "abbeys": list(core.abbeys),
            "bag": None if core.bag is None else list(core.bag),
            "current_player": core.current_player,
            "city": [{"player": f.player, "kind": f.kind, "quarter": f.quarter} for f in core.city],
            "count": core.count or None,
            "king": core.king,
            "robber": core.robber,
            "extra_turn": core.extra_turn,
            "last_placer": core.last_placer,
            "final_round_left": core.final_round_left,
            "tile_taken": core.tile_taken,
            "turn_number": core.turn_number,
            "discarded": core.discarded,
        }

    def analyse(
        self,
        time: float | None = None,
        iterations: int | None = None,
        threads: int = 1,
        seed: int = 0,
        **options: Any,
    ) -> list[dict[str, Any]]:
        """MCTS analysis of this decision node: one dict per legal action, most visited first,
        with "action", "code", "visits", "value", "prior" and "win" (every player's estimated
        win probability). See carcassonne.search.analyse."""
        return _analyse(self.core_state(), time, iterations, threads, seed, options)

    def check_consistency(self) -> None:
        """Recomputes every engine aggregate from scratch; raises RuntimeError on a mismatch."""
        self._state.check_consistency()

    def core_state(self) -> _core.State:
        """A copy of the underlying C++ state (for search and batch code)."""
        return self._state.clone()

    # ---- Copies and records ------------------------------------------------------------------

    def clone(self) -> Game:
        """An independent copy (the C++ state is copied by value)."""
        game = type(self).__new__(type(self))
        game._config = self._config
        game._state = self._state.clone()
        game._history = list(self._history)
        game._sampled = list(self._sampled)
        game._position = self._position
        return game

    __copy__ = clone

    def __eq__(self, other: object) -> bool:
        """Games are equal when they are the same game: the same config, start position, actions
        and draws made with the PRNG, and so the same position (State ==)."""
        if not isinstance(other, Game):
            return NotImplemented
        return (
            _config_dict(self._config) == _config_dict(other._config)
            and self._position == other._position
            and self._history == other._history
            and self._sampled == other._sampled
            and self._state == other._state
        )

    def __hash__(self) -> int:
        """The hash of what `==` compares (config, start position, actions, PRNG draws), so equal
        games hash alike. It changes as the game is played: a game kept in a set or as a dict key
        must not be played on (keep `game.clone()` there)."""
        config = self._config
        return hash(
            (
                config.players,
                tuple(config.expansions),
                tuple(sorted(config.variants.items())),
                config.seed,
                tuple(config.draw_order),
                tuple(self._history),
                tuple(self._sampled),
            )
        )

    def __deepcopy__(self, memo: dict[int, Any]) -> Game:
        return self.clone()

    def __reduce__(self) -> tuple[Any, ...]:
        # The record, and the state's bytes so that loading need not replay it (a pickle of
        # another build of the engine replays the record).
        return (_unpickle_game, (self.to_record(), self._state.to_bytes()))

    @classmethod
    def _at_state(cls, state: _core.State, config: _core.Config) -> Game:
        """A game at this state (taken, not copied) whose history is unknown: it plays on, but
        has no record (to_record raises RecordError). The arena hands these to Python agents."""
        game = cls.__new__(cls)
        game._config = config
        game._state = state
        game._history = []
        game._sampled = []
        game._position = _NO_RECORD
        return game

    def to_record(self) -> dict[str, Any]:
        """The game record as a dict (see to_json)."""
        if self._position is _NO_RECORD:
            raise RecordError(
                "this game was handed to an agent at a position of another game (an arena's); "
                "its history is unknown, so it has no record"
            )
        record: dict[str, Any] = {"format": RECORD_FORMAT, "config": self.config}
        if self._position is not None:
            record["position"] = json.loads(json.dumps(self._position))
        record["actions"] = list(self._history)
        record["sampled"] = list(self._sampled)
        return record

    def to_json(self, indent: int | None = None) -> str:
        """The game record: {"format": "carcassonne-record/1", "config": {...}, "actions": [...],
        "sampled": [indexes of the draws made with the game's PRNG]} (plus "position" for a game
        set up with from_position). Game.from_json replays it exactly."""
        return json.dumps(self.to_record(), indent=indent)

    def __str__(self) -> str:
        return self._state.to_string()

    def _repr_svg_(self) -> str:
        """The board as SVG (Jupyter shows it); carcassonne.render draws it."""
        from .render import board_svg  # on first use: drawing is no part of a game

        return board_svg(self)

    def __repr__(self) -> str:
        return (
            f"<Game players={self.num_players} turn={self.turn_number} phase={self.phase} "
            f"scores={self.scores}>"
        )


def _unpickle_game(record: dict[str, Any], state_bytes: bytes) -> Game:
    """Game.__reduce__'s loader: the state from its bytes if this build wrote them, else the
    record replayed."""
    try:
        state = _core.State.from_bytes(state_bytes)
    except RecordError:
        return Game.from_json(json.dumps(record))
    game = Game.__new__(Game)
    game._config = make_config(**record["config"])
    game._state = state
    game._history = list(record["actions"])
    game._sampled = list(record["sampled"])
    game._position = record.get("position")
    return game


def _normalise_position(position: Mapping[str, Any]) -> dict[str, Any]:
    """Returns the position keys of a described position with defaults filled in, checking the
    shape of each entry (what the entries mean is checked in C++)."""

    def entries(key: str, fields: dict[str, Any]) -> list[dict[str, Any]]:
        items = position.get(key, [])
        if not isinstance(items, list):
            raise PositionError(f"position {key} must be a list")
        out = []
        for i, item in enumerate(items):
            if not isinstance(item, Mapping):
                raise PositionError(f"position {key}[{i}] must be a mapping")
            _check_keys(f"position {key}[{i}]", item, list(fields), PositionError)
            entry = {}
            for name, default in fields.items():
                if name not in item and default is None:
                    raise PositionError(f"position {key}[{i}]: missing {name!r}")
                entry[name] = item.get(name, default)
                expected = str if name in ("tile", "kind", "quarter") else int
                value = entry[name]
                if not isinstance(value, expected) or isinstance(value, bool):
                    raise PositionError(f"position {key}[{i}].{name} must be {expected.__name__}")
            out.append(entry)
        return out

    def ints(key: str) -> list[int]:
        values = position.get(key, [])
        if not isinstance(values, list) or not all(
            isinstance(v, int) and not isinstance(v, bool) for v in values
        ):
            raise PositionError(f"position {key} must be a list of ints")
        return list(values)

    tiles = entries("tiles", {"tile": None, "x": None, "y": None, "rotation": 0})
    figures = entries("figures", {"player": None, "kind": "meeple", "x": None, "y": None, "feature": None})
    scores = ints("scores")
    abbeys = ints("abbeys")
    bag = position.get("bag")
    if bag is not None and (not isinstance(bag, list) or not all(isinstance(b, str) for b in bag)):
        raise PositionError("position bag must be a list of tile names")
    city = entries("city", {"player": None, "kind": "meeple", "quarter": None})
    count = position.get("count")
    if count is not None and not isinstance(count, str):
        raise PositionError("position count must be a quarter name")
    breakdown = position.get("breakdown", [])
    if not isinstance(breakdown, list) or not all(
        isinstance(row, list) and all(isinstance(v, int) and not isinstance(v, bool) for v in row)
        for row in breakdown
    ):
        raise PositionError("position breakdown must be a list of lists of ints (per player, per cause)")

    def integer(key: str, default: int) -> int:
        value = position.get(key, default)
        if not isinstance(value, int) or isinstance(value, bool):
            raise PositionError(f"position {key} must be an int")
        return value

    current = integer("current_player", 0)
    extra_turn = position.get("extra_turn", False)
    if not isinstance(extra_turn, bool):
        raise PositionError("position extra_turn must be true or false")
    players = {key: integer(key, -1) for key in ("king", "robber", "last_placer")}
    final_round_left = integer("final_round_left", 0)
    turn_number = integer("turn_number", 0)
    discarded = integer("discarded", 0)
    tile_taken = position.get("tile_taken", False)
    if not isinstance(tile_taken, bool):
        raise PositionError("position tile_taken must be true or false")
    for name, value in [("x", e["x"]) for e in tiles + figures] + [("y", e["y"]) for e in tiles + figures]:
        if not -(2**31) <= value < 2**31:
            raise PositionError(f"position {name} out of range: {value}")
    for value in (
        scores
        + abbeys
        + [current, final_round_left, turn_number, discarded, *players.values()]
        + [v for row in breakdown for v in row]
        + [e["rotation"] for e in tiles]
        + [e["feature"] for e in figures]
        + [e["player"] for e in city]
    ):
        if not -(2**31) <= value < 2**31:
            raise PositionError(f"position value out of range: {value}")
    return {
        "city": city,
        "count": count,
        "tiles": tiles,
        "figures": figures,
        "scores": scores,
        "breakdown": [list(row) for row in breakdown],
        "abbeys": abbeys,
        "bag": None if bag is None else list(bag),
        "current_player": current,
        **players,
        "extra_turn": extra_turn,
        "final_round_left": final_round_left,
        "tile_taken": tile_taken,
        "turn_number": turn_number,
        "discarded": discarded,
    }


def play_random_games(
    n: int,
    players: int = 2,
    seed: int = 0,
    threads: int = 0,
    expansions: Iterable[str] = (),
    variants: Mapping[str, str] | None = None,
) -> list[GameResult]:
    """Plays n uniformly random games in C++ (game i with seed seed + i) over `threads` threads
    (0: all cores), with the GIL released. Results do not depend on the thread count.

    Ctrl-C stops the batch between games and raises KeyboardInterrupt; the games played are
    dropped (game i depends only on seed + i, so a batch can be played in parts)."""
    config = make_config(players, expansions, variants, seed)
    return _core.play_random_games(
        config, _int("n", n, 0, 2**31 - 1, ValueError), _int("threads", threads, 0, 2**31 - 1, ValueError)
    )
