"""Bad input gets a clear, typed error and leaves the game unchanged; nothing crashes."""

from __future__ import annotations

import pytest

import carcassonne
from carcassonne import (
    ConfigError,
    Error,
    Game,
    IllegalActionError,
    PositionError,
    RecordError,
    SearchError,
    State,
    _core,
)
from helpers import snapshot


def test_error_classes_are_value_errors() -> None:
    for cls in (ConfigError, IllegalActionError, PositionError, RecordError, SearchError):
        assert issubclass(cls, Error)
        assert issubclass(cls, ValueError)
        assert cls.__module__ == "carcassonne"


def _unchanged_after(game: Game, action: object, error: type[Exception], match: str) -> None:
    before, history = snapshot(game), game.history
    with pytest.raises(error, match=match):
        game.apply(action)  # type: ignore[arg-type]
    assert snapshot(game) == before
    assert game.history == history
    game.check_consistency()


def _at_placement() -> Game:
    game = Game(draw_order=["base.E", "base.U"])
    game.apply("draw base.E")
    return game


@pytest.mark.parametrize(
    ("action", "match"),
    [
        ("place 5,5 r0", "touches no tile"),  # B-3
        ("place 0,-1 r0", "do not match"),  # B-3: base.E's field side against the start's city
        ("place 0,0 r0", "already holds a tile"),
        ("place 0,-1 r2 r3", "cannot parse"),
        ("place 0,-1 r2 junk", "unexpected 'junk'"),
        ("pass now", "cannot parse"),
        ("place 1,0", "cannot parse"),
        ("place 1,0 r4", "rotation must be"),
        ("place a,b r0", "expected 'place"),
        ("place 9999,0 r0", "out of range"),
        ("draw base.E", "must be placed first"),
        ("pass", "must be placed first"),
        ("meeple city#0", "must be placed first"),
        ("jump", "unknown verb"),
        ("", "unknown verb"),
        ("draw base.ZZ", "unknown tile"),
        (-1, "out of range"),
        (2**32, "out of range"),
        (2**70, "out of range"),
        (0xFFFFFFFF, "must be placed first"),
    ],
)
def test_bad_placement_raises_and_changes_nothing(action: object, match: str) -> None:
    game = _at_placement()
    _unchanged_after(game, action, IllegalActionError, match)
    game.apply("place 0,-1 r2")  # and the game goes on


@pytest.mark.parametrize("action", [None, 1.5, True, b"pass", ["pass"], object()])
def test_wrong_types_raise_type_error_and_change_nothing(action: object) -> None:
    _unchanged_after(_at_placement(), action, TypeError, "an action is")


def test_rotation_duplicates_are_not_legal() -> None:
    """A symmetric tile lists each distinct placement once: its lowest rotation (base.U, a
    straight road, looks the same turned twice)."""
    game = Game(draw_order=["base.U"])
    game.apply("draw base.U")
    legal = {a.text for a in game.legal_actions()}
    assert "place 1,0 r0" in legal and "place 1,0 r2" not in legal
    _unchanged_after(game, "place 1,0 r2", IllegalActionError, "same tile as a lower one")


def test_figure_on_an_occupied_feature_is_illegal() -> None:
    """B-5: a meeple goes only on a feature that is unoccupied after the tile joined it. Player 1
    holds the start tile's city; base.H's south city joins it."""
    game = Game.from_position(
        {
            "tiles": [{"tile": "base.D-start", "x": 0, "y": 0, "rotation": 0}],
            "figures": [{"player": 1, "kind": "meeple", "x": 0, "y": 0, "feature": 0}],
            "bag": ["base.H"],
            "current_player": 0,
        }
    )
    game.apply("draw base.H")
    game.apply("place 0,-1 r0")
    assert {a.text for a in game.legal_actions()} == {"pass", "meeple city#0", "meeple field#2"}
    _unchanged_after(game, "meeple city#1", IllegalActionError, r"already occupied \(B-5\)")
    _unchanged_after(game, "meeple road#1", IllegalActionError, "is a city, not a road")
    _unchanged_after(game, "meeple city#7", IllegalActionError, "no feature #7")
    game.apply("pass")
    # The joined city (2 tiles) is complete: its holder, player 1, scores it (B-7).
    assert game.scores == [0, 4]


def test_no_meeple_left_skips_the_figure_decision() -> None:
    """B-5: the figure comes from supply. Player 0 has all 7 meeples out, so after placing there
    is nothing to decide and scoring runs at once (B-2 step 3): base.E closes the start city."""
    figures = [{"player": 0, "x": 0, "y": 0, "feature": f} for f in range(4)]
    figures += [{"player": 0, "x": 1, "y": 0, "feature": f} for f in range(3)]
    game = Game.from_position(
        {
            "tiles": [{"tile": "base.D-start", "x": 0, "y": 0}, {"tile": "base.U", "x": 1, "y": 0}],
            "figures": figures,
            "bag": ["base.E"],
        }
    )
    assert game.supply(0) == 0
    game.apply("draw base.E")
    game.apply("place 0,-1 r2")
    assert game.history == ["draw base.E", "place 0,-1 r2"]
    assert game.is_terminal
    # City 2 tiles (B-7), then final scoring (B-8, B-9): the road of 2 tiles, and the field of
    # the start's north half touching the completed city.
    assert game.breakdown()[0] == {**dict.fromkeys(carcassonne.CAUSES, 0), "city": 4, "road": 2, "field": 3}


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"players": 1}, ConfigError, r"players must be 2 to 6 \(RULES B-1\), got 1"),
        ({"players": 7}, ConfigError, "players must be 2 to 6"),
        ({"players": 2**40}, ConfigError, "players out of range"),
        ({"expansions": ["nope"]}, ConfigError, "unknown expansion 'nope'"),
        ({"expansions": ["abbey-mayor", "abbey-mayor"]}, ConfigError, "abbey-mayor"),
        ({"variants": {"colour": "red"}}, ConfigError, "unknown variant 'colour'"),
        ({"variants": {"start": "moon"}}, ConfigError, "has no value 'moon'"),
        (
            {"variants": {"wagon_move": "c1"}},
            ConfigError,
            "^variant wagon_move = c1 needs expansion abbey-mayor, which is not in play$",
        ),
        (
            {"expansions": ["city"], "variants": {"abbey_endgame": "none"}},
            ConfigError,
            "^variant abbey_endgame = none needs expansion abbey-mayor, which is not in play$",
        ),
        (
            {"variants": {"count_move": "follow"}},
            ConfigError,
            "^variant count_move = follow needs expansion city, which is not in play$",
        ),
        (
            {"variants": {"start": "city_plain", "count_move": "clockwise"}},
            ConfigError,
            r"^variant count_move = clockwise needs the Count \(start = city\), not start = city_plain$",
        ),
        ({"seed": -1}, ConfigError, "seed out of range"),
        ({"seed": 2**64}, ConfigError, "seed out of range"),
        ({"draw_order": ["base.ZZ"]}, ConfigError, "unknown tile 'base.ZZ'"),
        ({"draw_order": ["base.C", "base.C"]}, ConfigError, "more copies"),
        ({"draw_order": ["river2.A"]}, ConfigError, "not enabled"),
        ({"expansions": "river2"}, TypeError, "list of strings"),
        ({"players": "2"}, TypeError, "players must be an int"),
        ({"players": 2.0}, TypeError, "players must be an int"),
        ({"players": True}, TypeError, "players must be an int, not bool"),
        ({"seed": False}, TypeError, "seed must be an int, not bool"),
        ({"seed": None}, TypeError, "seed must be an int"),
        ({"variants": ["start"]}, TypeError, "variants must be a mapping"),
        ({"variants": {"start": 1}}, TypeError, "strings to strings"),
        ({"draw_order": [1]}, TypeError, "must hold strings"),
    ],
)
def test_bad_config_is_rejected(kwargs: dict, error: type[Exception], match: str) -> None:
    with pytest.raises(error, match=match):
        Game(**kwargs)


def test_every_known_but_unsupported_option_is_a_config_error() -> None:
    for expansion in carcassonne.known_expansions():
        if not expansion["supported"]:
            with pytest.raises(ConfigError, match="not supported"):
                Game(expansions=[expansion["name"]])
    for variant in carcassonne.known_variants():
        if not variant["supported"]:
            with pytest.raises(ConfigError, match="not supported"):
                Game(variants={variant["name"]: variant["values"][0]})


def test_variant_defaults_are_accepted_and_validated_configs_validate_again() -> None:
    defaults = {v["name"]: v["values"][0] for v in carcassonne.known_variants()}
    assert Game(variants=defaults).config["variants"] == defaults
    assert {v["name"]: v["expansion"] for v in carcassonne.known_variants()} == {
        "abbey_endgame": "abbey-mayor",
        "wagon_move": "abbey-mayor",
        "start": None,
        "count_move": "city",
    }
    for expansions in ([], ["abbey-mayor"], ["city"], ["river2"]):
        config = Game(expansions=expansions).config
        assert Game(**config).config == config
    game = Game(expansions=["abbey-mayor"], variants={"wagon_move": "c1", "abbey_endgame": "none"})
    assert game.config["variants"]["wagon_move"] == "c1"


def test_action_text_with_a_nul_byte_is_shown_whole() -> None:
    game = _at_placement()
    before = snapshot(game)
    with pytest.raises(IllegalActionError) as info:
        game.apply("place 0,-1\x00 r2 and more")
    assert str(info.value) == "cannot parse action 'place 0,-1\\x00 r2 and more': it holds a NUL byte"
    assert snapshot(game) == before
    assert not game.is_legal("pass\x00")
    with pytest.raises(IllegalActionError, match=r"'\\x00\\x01x'"):
        game.core_state().parse_action("\x00\x01x")


def test_six_players_is_allowed() -> None:
    """B-1 Decision: a 6-player option exists."""
    assert Game(players=6).num_players == 6


def test_player_index_out_of_range_raises_index_error() -> None:
    game = Game(players=3)
    for bad in (3, -1, 6, 1000):
        with pytest.raises(IndexError, match="out of range"):
            game.score(bad)
        with pytest.raises(IndexError):
            game.supply(bad)
        with pytest.raises(IndexError):
            game.score(bad, "city")
    with pytest.raises(ValueError, match="unknown score cause"):
        game.score(0, "bribes")
    state = State(carcassonne.Config(players=2))
    with pytest.raises(IndexError):
        state.breakdown(2)
    with pytest.raises(TypeError):
        state.score(2**80)


def test_chance_only_at_a_draw() -> None:
    game = Game()
    game.apply_random_chance()
    with pytest.raises(IllegalActionError, match="not at a draw"):
        game.apply_random_chance()
    state = State(carcassonne.Config())
    state.apply(state.sample_chance())
    with pytest.raises(IllegalActionError, match="not a draw"):
        state.sample_chance()


def test_nothing_is_legal_after_the_end() -> None:
    game = Game(draw_order=["base.E"])
    for text in ("draw base.E", "place 0,-1 r2", "pass"):
        game.apply(text)
    assert game.is_terminal
    _unchanged_after(game, "pass", IllegalActionError, "the game is over")
    _unchanged_after(game, 0, IllegalActionError, "the game is over")
    with pytest.raises(IllegalActionError):
        game.apply_random_chance()
    state = game.core_state()
    with pytest.raises(IllegalActionError):
        state.sample_chance()  # the bag is empty: must not read out of bounds


def test_action_to_string_of_any_code_does_not_crash() -> None:
    state = State(carcassonne.Config())
    for code in [0, 1, 2, 3, 4, 15, 0xFF0, 0xFFFF, 0xFFFFFF, 0xFFFFFFFF, 1 << 31]:
        assert isinstance(state.action_to_string(code), str)
        assert state.is_legal(code) in (True, False)
    assert not state.is_legal(-1) and not state.is_legal(2**40)
    with pytest.raises(IllegalActionError):
        state.action_to_string(-5)


BASE_POSITION = {
    "tiles": [{"tile": "base.D-start", "x": 0, "y": 0, "rotation": 0}],
    "figures": [],
    "bag": ["base.E"],
}


@pytest.mark.parametrize(
    ("changes", "error", "match"),
    [
        ({"tiles": []}, PositionError, "at least one tile"),
        ({"tiles": [{"tile": "base.ZZ", "x": 0, "y": 0}]}, PositionError, "unknown tile"),
        (
            {"tiles": [BASE_POSITION["tiles"][0], {"tile": "base.E", "x": 3, "y": 3}]},
            PositionError,
            "does not touch an earlier tile",
        ),
        (
            {"tiles": [BASE_POSITION["tiles"][0], {"tile": "base.E", "x": 0, "y": -1, "rotation": 0}]},
            PositionError,
            r"do not match.*\(B-3\)",
        ),
        (
            {"tiles": [BASE_POSITION["tiles"][0]] + [{"tile": "base.E", "x": 0, "y": -1, "rotation": 2}] * 2},
            PositionError,
            r"tile #2 \(base.E at 0,-1\): cell already holds a tile",
        ),
        (
            {"tiles": [{"tile": "base.E", "x": 0, "y": 0, "rotation": 5}]},
            PositionError,
            "rotation must be 0-3",
        ),
        ({"tiles": [{"tile": "base.E", "x": 10**6, "y": 0}]}, PositionError, "out of range"),
        ({"tiles": [{"tile": "base.E", "x": 2**40, "y": 0}]}, PositionError, "out of range"),
        ({"tiles": [{"tile": "base.E", "x": 0}]}, PositionError, "missing 'y'"),
        ({"tiles": [{"tile": "base.E", "x": 0, "y": 0, "flip": True}]}, PositionError, "unknown key"),
        ({"tiles": [{"tile": "base.E", "x": "0", "y": 0}]}, PositionError, "x must be int"),
        ({"tiles": "base.E"}, PositionError, "tiles must be a list"),
        ({"figures": [{"player": 5, "x": 0, "y": 0, "feature": 0}]}, PositionError, "no such player"),
        ({"figures": [{"player": 0, "x": 1, "y": 0, "feature": 0}]}, PositionError, "no tile there"),
        ({"figures": [{"player": 0, "x": 0, "y": 0, "feature": 9}]}, PositionError, "no feature #9"),
        (
            {"figures": [{"player": 0, "kind": "dragon", "x": 0, "y": 0, "feature": 0}]},
            PositionError,
            "figure kind",
        ),
        (
            {
                "tiles": BASE_POSITION["tiles"]
                + [{"tile": "base.U", "x": x, "y": 0, "rotation": 0} for x in (1, 2)],
                "figures": [{"player": 0, "x": x, "y": 0, "feature": f} for x in range(3) for f in range(3)],
            },
            PositionError,
            "no meeple left",
        ),
        (  # a new user's position: 4 figures on the start tile's city segment
            {"figures": [{"player": p, "x": 0, "y": 0, "feature": 0} for p in (1, 1, 1, 0)]},
            PositionError,
            r"figure #1 \(meeple at 0,0\): that segment holds a figure already; only an XX-4 pair",
        ),
        ({"count": "market"}, PositionError, "the Count needs start = city"),
        ({"draw_order": ["base.E"]}, PositionError, "a draw_order or a bag, not both"),
        ({"king": 0}, PositionError, "king: needs King & Robber"),
        ({"extra_turn": True}, PositionError, "extra turns come from arrows"),
        (
            {"breakdown": [[1] * 11, [0] * 11], "scores": [3, 0]},
            PositionError,
            "not the sum of their breakdown",
        ),
        ({"breakdown": [[1], [0]]}, PositionError, "causes per player expected"),
        ({"scores": [1]}, PositionError, "one per player"),
        ({"scores": [-1, 0]}, PositionError, "out of range"),
        ({"scores": ["1", 0]}, PositionError, "scores must be a list of ints"),
        ({"bag": ["base.ZZ"]}, PositionError, "unknown tile"),
        ({"bag": ["base.C", "base.C"]}, PositionError, "more copies"),
        ({"bag": "base.E"}, PositionError, "bag must be a list"),
        ({"current_player": 2}, PositionError, "no such player"),
        ({"current_player": None}, PositionError, "current_player must be an int"),
        ({"turn_number": -1}, PositionError, "turn_number: 0 to 30000 expected"),
        ({"turn_number": 1.5}, PositionError, "turn_number must be an int"),
        ({"discarded": -1}, PositionError, "discarded: 0 or more expected"),
        ({"discarded": True}, PositionError, "discarded must be an int"),
        # The bag omitted holds every tile not placed: none can have been discarded.
        ({"bag": None, "discarded": 1}, PositionError, "discarded: at most 0, the tiles of the bag neither"),
        ({"moves": []}, PositionError, "unknown key"),
        ({"seed": 1.5}, PositionError, "seed must be an int"),  # found by the Atheris fuzzer
        ({"players": "2"}, PositionError, "players must be an int"),
        ({"players": 1}, ConfigError, "players must be 2 to 6"),
        ({"expansions": ["nope"]}, ConfigError, "unknown expansion"),
    ],
)
def test_bad_position_is_rejected(changes: dict, error: type[Exception], match: str) -> None:
    with pytest.raises(error, match=match):
        Game.from_position({**BASE_POSITION, **changes})


def test_position_must_be_a_mapping() -> None:
    with pytest.raises(PositionError):
        Game.from_position([])  # type: ignore[arg-type]


def test_core_batch_functions_check_their_arguments() -> None:
    config = carcassonne.Config()
    with pytest.raises(ValueError, match="games must be"):
        _core.play_random_games(config, -1)
    with pytest.raises(ValueError, match="threads must be"):
        _core.play_random_games(config, 1, -2)
    with pytest.raises(SearchError, match="at least one agent"):
        _core.play_game(config, [])
    with pytest.raises(SearchError, match="unknown agent 'deep-blue'"):
        _core.play_game(config, ["greedy", "deep-blue"])
    with pytest.raises(ConfigError):
        _core.play_random_games(carcassonne.Config(players=9), 3)
    with pytest.raises(ConfigError):
        _core.play_game(carcassonne.Config(expansions=["x"]), ["random"])
    assert _core.play_random_games(config, 0) == []


def test_numpy_integers_are_accepted_as_ints() -> None:
    np = pytest.importorskip("numpy")
    game = Game(players=np.int64(3), seed=np.uint64(5))
    assert game.config["players"] == 3
    assert game.config["seed"] == 5
    game.apply(np.uint32(game.legal_actions()[0].code))
    assert len(game.history) == 1
