"""carcassonne.rl: observation tensors, the fixed action space and State pickling (the C++ side
is tested over every mix in tests/cpp/test_observation.cpp)."""

from __future__ import annotations

import pickle
import random
import re
import subprocess
import sys

import numpy as np
import pytest

import carcassonne
from carcassonne import Game, rl
from helpers import assert_releases_the_gil

EVERYTHING_CITY = ["abbey-mayor", "anniv20", "king-robber", "shrines", "city"]
MIXES = [(2, []), (3, ["abbey-mayor", "river2"]), (4, EVERYTHING_CITY)]


def random_nodes(players: int, expansions: list[str], seed: int, limit: int = 10**6) -> list[Game]:
    """Every decision node of one random game (copies), up to `limit`."""
    rng = random.Random(seed)
    game = Game(players=players, expansions=expansions, seed=seed)
    nodes = []
    while not game.is_terminal and len(nodes) < limit:
        if game.is_chance:
            game.apply_random_chance()
        else:
            nodes.append(game.clone())
            game.apply(rng.choice(game.legal_actions()))
    return nodes


@pytest.mark.parametrize(("players", "expansions"), MIXES)
def test_mask_is_the_legal_actions_and_indexes_round_trip(players: int, expansions: list[str]) -> None:
    size = rl.num_distinct_actions(players, expansions)
    for game in random_nodes(players, expansions, seed=players)[::3]:
        mask = rl.legal_actions_mask(game)
        assert mask.shape == (size,) and mask.dtype == np.int8  # as Gymnasium's masked sample() takes it
        legal = game.legal_actions()
        indexes = {rl.action_index(game, a) for a in legal}
        assert set(np.flatnonzero(mask)) == indexes
        assert rl.legal_indices(game) == sorted(indexes)
        for a in legal:
            assert rl.index_to_action(game, rl.action_index(game, a)) == a


def test_batch_masks_equal_single_masks() -> None:
    nodes = random_nodes(3, ["abbey-mayor"], seed=5, limit=40)
    masks, outside = rl.legal_actions_masks(nodes)
    assert masks.shape == (len(nodes), rl.num_distinct_actions())
    assert not outside.any()
    for game, mask in zip(nodes, masks, strict=True):
        np.testing.assert_array_equal(mask, rl.legal_actions_mask(game))


def test_observation_shows_the_node_from_the_observers_seat() -> None:
    enc = rl.encoder(2)
    names = enc.global_names
    game = random_nodes(2, [], seed=3)[80]
    for seat in (0, 1):
        planes, globals_ = rl.encode(game, observer=seat)
        assert planes.shape == (enc.num_planes, rl.DEFAULT_WINDOW, rl.DEFAULT_WINDOW)
        assert (
            planes.dtype == np.uint8 and globals_.dtype == np.float32 and globals_.shape == (enc.num_globals,)
        )
        assert planes[enc.plane_names.index("tile")].sum() == len(game.tiles)
        assert globals_[names.index("score[r0]")] == game.scores[seat]
        assert globals_[names.index("score[r1]")] == game.scores[1 - seat]
        own = sum(f["player"] == seat and f["kind"] == "meeple" for f in game.figures)
        assert planes[enc.plane_names.index("figures[r0.meeple]")].sum() == own
        assert globals_[names.index(f"bag[{game.drawn_tile}]")] == game.bag().get(game.drawn_tile, 0)


def test_batch_encoding_equals_single_encodings_and_owns_its_arrays() -> None:
    nodes = random_nodes(4, EVERYTHING_CITY, seed=11, limit=300)[::10]
    seats = [i % 4 for i in range(len(nodes))]
    planes, globals_ = rl.encode_batch(nodes, seats)
    assert planes.flags.c_contiguous and planes.flags.owndata and planes.flags.writeable
    for i, game in enumerate(nodes):
        single_planes, single_globals = rl.encode(game, seats[i])
        np.testing.assert_array_equal(planes[i], single_planes)
        np.testing.assert_array_equal(globals_[i], single_globals)
    # Into given arrays (reused buffers): the same values, in those arrays.
    out = (np.full_like(planes, 9), np.full_like(globals_, 9.0))
    filled = rl.encode_batch(nodes, seats, out=out)
    assert filled[0] is not None and np.shares_memory(filled[0], out[0])
    np.testing.assert_array_equal(out[0], planes)
    np.testing.assert_array_equal(out[1], globals_)
    # Wrong arrays: the error says what was expected and what was given.
    fewer = rf"planes must be a uint8 array of shape \({len(nodes) - 1}, .*got uint8"
    with pytest.raises(ValueError, match=fewer):
        rl.encode_batch(nodes[:-1], seats[:-1], out=out)
    with pytest.raises(ValueError, match=r"planes must be a uint8 array .* got float32"):
        rl.encode_batch(nodes, seats, out=(planes.astype(np.float32), globals_))  # no silent conversion
    with pytest.raises(ValueError, match="globals must be a float32 array"):
        rl.encode_batch(nodes, seats, out=(out[0], out[1][:, :-1]))
    with pytest.raises(ValueError, match="C-contiguous"):
        rl.encode_batch(nodes, seats, out=(np.asfortranarray(out[0]), out[1]))
    with pytest.raises(ValueError, match="a pair of arrays"):
        rl.encode_batch(nodes, seats, out=out[0])  # type: ignore[arg-type]


@pytest.mark.concurrency
def test_batch_encoding_and_masks_release_the_gil() -> None:
    # Another Python thread keeps running while a batch is encoded (gathering the states before
    # the release holds the GIL, a small part of the call).
    states = [g.core_state() for g in random_nodes(2, [], seed=7)] * 20
    out = rl.encode_batch(states)
    assert_releases_the_gil(lambda: rl.encode_batch(states, out=out), "encode_batch")
    assert_releases_the_gil(lambda: rl.legal_actions_masks(states), "legal_actions_masks")


def test_bad_requests_raise_clear_errors() -> None:
    game = Game(players=2, seed=1)
    with pytest.raises(ValueError, match="observer 5"):
        rl.encode(game, observer=5)
    with pytest.raises(ValueError, match="3-player"):
        rl.encoder(3).encode_batch([game.core_state()])
    with pytest.raises(carcassonne.ConfigError, match="nope"):
        rl.num_distinct_actions(2, ["nope"])
    for index in (rl.num_distinct_actions(), 2**40, -1):  # past C++'s int too: not a TypeError
        with pytest.raises(carcassonne.IllegalActionError, match="outside"):
            rl.index_to_action(game, index)
    with pytest.raises(TypeError):
        rl.encode("not a game")  # type: ignore[arg-type]


def test_an_index_the_games_rules_never_use_is_refused_with_the_reason() -> None:
    """The action space holds every mix's decisions; in a base game a mayor's, an abbey's, an
    arrow's, a quarter's slot or a draw of another set's tile is no action at all (not merely an
    illegal one), and index_to_action says so instead of returning it (the window layout: every
    index of the place block names a cell there)."""
    game = Game(players=2, seed=1)
    game.apply_random_chance()
    base_tiles = set(game.bag()) | {game.drawn_tile}
    tile_of_draw = [name for name, _, _ in carcassonne.tile_kinds()]  # the draw block's order

    def outcome(index: int) -> str:
        try:
            return rl.index_to_action(game, index, layout="window").text
        except carcassonne.IllegalActionError as e:
            return str(e)

    reasons = "not in play|come with|never drawn|only in a wagon move"
    for name, start, size in rl.action_space(layout="window").blocks:
        for index in range(start, start + size, 1 if size < 100 else 7):
            if name == "draw":
                in_the_rules = tile_of_draw[index] in base_tiles
            elif name == "figure":
                in_the_rules = index - start < 10  # the meeple's slots: kind 0 of the block
            else:
                in_the_rules = name in ("place", "pass")
            result = outcome(index)
            if in_the_rules:
                assert not result.startswith("action index"), result
            else:
                assert re.match(rf"action index {index}: '.*': .*({reasons})", result), result
    with pytest.raises(carcassonne.IllegalActionError, match=r"mayor is not in play .*abbey-mayor"):
        rl.index_to_action(game, 5000, layout="window")
    with pytest.raises(carcassonne.IllegalActionError, match=r"mayor goes onto another tile .*start=city"):
        rl.index_to_action(Game(players=2, expansions=["abbey-mayor"], seed=1), 5000, layout="window")
    mayor = rl.index_to_action(Game(players=2, expansions=["abbey-mayor"], seed=1), 4206, layout="window")
    assert mayor.text == "mayor feature#5"
    with pytest.raises(carcassonne.IllegalActionError, match="mayor is not in play"):
        rl.action_index(game, mayor.code, layout="window")
    with pytest.raises(carcassonne.IllegalActionError, match="arrows come with anniv20"):
        rl.action_index(game, "arrow 1,0")


MORE_MIXES = [
    (2, [], {}),
    (3, ["abbey-mayor", "river2", "anniv20"], {}),
    (4, EVERYTHING_CITY, {}),
    (2, ["abbey-mayor", "anniv20"], {"start": "city_plain"}),
]


@pytest.mark.parametrize(("players", "expansions", "variants"), MORE_MIXES)
def test_no_legal_action_is_taken_for_one_outside_the_rules(
    players: int, expansions: list[str], variants: dict[str, str]
) -> None:
    """The check behind that refusal never refuses what a game offers: every legal action of
    random games, draws included, passes it."""
    rng = random.Random(players)
    game = Game(players=players, expansions=expansions, variants=variants, seed=players)
    seen = set()
    while not game.is_terminal:
        state = game.core_state()
        for action in game.legal_actions() if len(game.history) % 3 == 0 else ():
            assert rl._not_in_the_rules(state, action.code) is None, action
            seen.add(action.kind)
        game.apply(rng.choice(game.legal_actions()))
    assert {"draw", "place", "figure", "pass"} <= seen


def test_an_action_code_is_refused_for_its_real_reason() -> None:
    game = Game(players=2, seed=1)
    game.apply_random_chance()
    with pytest.raises(carcassonne.IllegalActionError, match="12345678: no action has this code"):
        rl.action_index(game, 12345678)
    with pytest.raises(carcassonne.IllegalActionError, match=r"malformed: .*'pass' is code 3"):
        rl.action_index(game, 3 + 16)  # pass, with a bit outside its payload
    with pytest.raises(carcassonne.IllegalActionError, match="out of range"):
        rl.action_index(game, 2**32)
    with pytest.raises(rl.WindowError, match="outside the 32-cell window"):
        rl.action_index(
            game, "place 100,100 r0", layout="window"
        )  # an action of the rules, far from the tiles
    with pytest.raises(carcassonne.IllegalActionError, match="no index in the frontier layout"):
        rl.action_index(game, "place 100,100 r0")


def test_indexes_and_codes_are_whole_numbers_never_rounded() -> None:
    game = Game(players=2, seed=1)
    game.apply_random_chance()
    legal = game.legal_actions()[0]
    index = rl.action_index(game, legal)
    for same in (index, np.int64(index), np.array(index), np.array([index]), float(index)):
        assert rl.index_to_action(game, same) == legal  # type: ignore[arg-type]
    assert rl.action_index(game, np.uint32(legal.code)) == rl.action_index(game, float(legal.code)) == index
    for fraction in (index + 0.5, np.float32(index + 0.5), np.array([index + 0.25])):
        with pytest.raises(ValueError, match="whole number"):
            rl.index_to_action(game, fraction)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="whole number"):
        rl.action_index(game, legal.code + 0.5)
    with pytest.raises(TypeError, match=r"one integer, not an array of shape \(2,\)"):
        rl.index_to_action(game, np.array([index, index]))  # type: ignore[arg-type]
    for not_a_number in (True, None, "7"):
        with pytest.raises(TypeError, match="must be an integer"):
            rl.index_to_action(game, not_a_number)  # type: ignore[arg-type]


def test_a_board_wider_than_the_window_is_refused_not_hidden() -> None:
    game = next(g for g in random_nodes(2, [], seed=2) if g.phase == "place_tile" and len(g.tiles) > 20)
    with pytest.raises(rl.WindowError, match="outside the 4-cell window"):
        rl.legal_actions_mask(game, window=4, layout="window")
    masks, outside = rl.legal_actions_masks([game], window=4, layout="window")
    assert outside[0] > 0 and masks[0].sum() + outside[0] == len(game.legal_actions())


@pytest.mark.parametrize(("players", "expansions"), MIXES)
def test_states_pickle_exactly(players: int, expansions: list[str]) -> None:
    game = random_nodes(players, expansions, seed=9)[50]
    state = game.core_state()
    twin = pickle.loads(pickle.dumps(state))
    assert twin.to_bytes() == state.to_bytes()
    # Both continue identically, draws from their own PRNG included.
    for s in (state, twin):
        while not s.is_terminal():
            s.apply(s.sample_chance() if s.is_chance() else s.legal_actions()[-1])
    assert twin.scores() == state.scores() and twin.to_bytes() == state.to_bytes()


def test_foreign_state_bytes_raise_record_error() -> None:
    data = Game(seed=1).core_state().to_bytes()
    with pytest.raises(carcassonne.RecordError, match="not a pickled carcassonne State"):
        carcassonne.State.from_bytes(b"hello")
    with pytest.raises(carcassonne.RecordError, match="another build"):
        carcassonne.State.from_bytes(data[:-8])
    other_format = data[:8] + (99).to_bytes(4, "little") + data[12:]
    with pytest.raises(carcassonne.RecordError, match="format 99"):
        carcassonne.State.from_bytes(other_format)


def test_games_pickle_exactly_and_replay_the_record_for_another_build() -> None:
    game = random_nodes(3, ["abbey-mayor"], seed=4)[70]
    twin = pickle.loads(pickle.dumps(game))
    assert twin.history == game.history and twin.config == game.config
    assert twin.core_state().to_bytes() == game.core_state().to_bytes()
    # State bytes another build would refuse: the record is replayed instead, as exactly.
    loader, (record, _) = game.__reduce__()
    replayed = loader(record, b"bytes of another build")
    assert replayed.history == game.history
    # The same game, PRNG included: both continue with the same draws. (Not the same bytes:
    # unused slots of the state's arrays may differ.)
    for g in (game, replayed):
        while not g.is_terminal:
            if g.is_chance:
                g.apply_random_chance()
            else:
                g.apply(g.legal_actions()[0])
    assert replayed.history == game.history and replayed.scores == game.scores


def test_the_core_package_and_rl_import_no_research_package() -> None:
    """The adapters import their optional packages themselves; `import carcassonne.rl` does not."""
    code = (
        "import sys, carcassonne, carcassonne.rl; "
        "print(sorted(m for m in ('pyspiel', 'pettingzoo', 'gymnasium', 'nbclient') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def positions_and_twins(players: int, expansions: list[str], seed: int) -> list[tuple[Game, Game]]:
    """Every turn start of one random game (copies) and the game set up from its position."""
    rng = random.Random(seed)
    game = Game(players=players, expansions=expansions, seed=seed)
    pairs = []
    while not game.is_terminal:
        if game.phase in ("draw", "abbey_choice"):
            pairs.append((game.clone(), Game.from_position(game.position())))
        if game.is_chance:
            game.apply_random_chance()
        else:
            game.apply(rng.choice(game.legal_actions()))
    return pairs


@pytest.mark.parametrize(("players", "expansions"), MIXES)
def test_a_game_set_up_from_its_position_is_observed_the_same(players: int, expansions: list[str]) -> None:
    """Every plane and every global (the scores, supplies, abbeys, King and Robber, the City, the
    bag, the turn number, the discarded count, ...) survive a position round trip, from every
    seat."""
    names = rl.encoder(players).global_names
    pairs = positions_and_twins(players, expansions, seed=players)
    for game, twin in pairs:
        for observer in range(players):
            planes, globals_ = rl.encode(game, observer=observer)
            twin_planes, twin_globals = rl.encode(twin, observer=observer)
            assert np.array_equal(planes, twin_planes)
            assert [names[i] for i in np.flatnonzero(globals_ != twin_globals)] == []
    assert len(pairs) > 50


def test_a_game_set_up_from_its_position_keeps_the_turn_number() -> None:
    game, twin = positions_and_twins(2, [], seed=5)[20]
    assert twin.turn_number == game.turn_number
