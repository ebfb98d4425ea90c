"""carcassonne.rl.openspiel: OpenSpiel's own consistency test (random simulations with
serialization) for the base game and an every-expansion mix, its MCTSBot, and the tensors."""

from __future__ import annotations

import numpy as np
import pyspiel
import pytest
from open_spiel.python.algorithms import mcts
from open_spiel.python.observation import make_observation

import carcassonne
import carcassonne.rl.openspiel
from carcassonne import rl

EVERYTHING = {"players": 3, "expansions": "abbey-mayor+anniv20+king-robber+shrines+city", "seed": 5}


@pytest.mark.parametrize("params", [{}, EVERYTHING, {"players": 2, "expansions": "river2+abbey-mayor"}])
def test_random_sim_test_passes(params: dict) -> None:
    game = pyspiel.load_game("carcassonne", params)
    pyspiel.random_sim_test(game, num_sims=2, serialize=True, verbose=False)


def test_serialization_replays_exactly() -> None:
    game = pyspiel.load_game("carcassonne", EVERYTHING)
    state = game.new_initial_state()
    rng = np.random.default_rng(0)
    for _ in range(60):
        if state.is_chance_node():
            actions, probs = zip(*state.chance_outcomes(), strict=True)
            state.apply_action(int(rng.choice(actions, p=probs)))
        else:
            state.apply_action(int(rng.choice(state.legal_actions())))
    copy = game.deserialize_state(state.serialize())
    assert copy.history() == state.history()
    assert str(copy) == str(state) and copy.legal_actions() == state.legal_actions()
    np.testing.assert_array_equal(copy.observation_tensor(0), state.observation_tensor(0))


def test_tensors_are_the_encoders() -> None:
    game = pyspiel.load_game("carcassonne", {"players": 2})
    state = game.new_initial_state()
    state.apply_action(state.chance_outcomes()[0][0])
    planes, globals_ = rl.encode(state.core, observer=1)
    expected = np.concatenate([planes.ravel(), globals_])
    np.testing.assert_array_equal(np.asarray(state.observation_tensor(1)), expected)
    np.testing.assert_array_equal(np.asarray(state.information_state_tensor(1)), expected)
    assert game.observation_tensor_size() == expected.size
    # The fast route (a float32 array, not pyspiel's list) gives OpenSpiel's observer's values.
    observation = make_observation(game, pyspiel.IIGObservationType(perfect_recall=False))
    observation.set_from(state, 0)
    tensor = state.observation_tensor(0)
    assert isinstance(tensor, np.ndarray) and tensor.dtype == np.float32
    np.testing.assert_array_equal(tensor, observation.tensor)
    assert not np.array_equal(tensor, state.observation_tensor(1))  # the seats differ
    assert game.num_distinct_actions() == rl.num_distinct_actions()


def test_openspiel_mctsbot_plays_a_whole_game() -> None:
    game = pyspiel.load_game("carcassonne", {"players": 2, "seed": 3})
    rng = np.random.RandomState(1)
    bot = mcts.MCTSBot(game, 2.0, 3, mcts.RandomRolloutEvaluator(1, rng), random_state=rng, solve=False)
    state = game.new_initial_state()
    while not state.is_terminal():
        if state.is_chance_node():
            actions, probs = zip(*state.chance_outcomes(), strict=True)
            state.apply_action(int(rng.choice(actions, p=probs)))
        else:
            state.apply_action(bot.step(state))
    assert sorted(state.returns()) in ([0.0, 1.0], [0.5, 0.5])


def test_bad_parameters_raise_config_errors() -> None:
    with pytest.raises(carcassonne.ConfigError, match="nope"):
        carcassonne.rl.openspiel.CarcassonneGame({"expansions": "nope"})
    with pytest.raises(carcassonne.ConfigError, match="key:value"):
        carcassonne.rl.openspiel.CarcassonneGame({"variants": "wagon_move"})
    game = pyspiel.load_game("carcassonne", {"expansions": "abbey-mayor", "variants": "wagon_move:c1"})
    assert game.config.variants["wagon_move"] == "c1"


def test_the_action_layout_is_a_parameter_with_the_packages_default() -> None:
    """The game's actions are the indexes of rl's default layout (frontier), or of the window
    layout when asked: a legal action's index is the one rl gives at the node."""
    for params, layout in (({}, rl.ENV_LAYOUT), ({"layout": "window"}, "window")):
        game = pyspiel.load_game("carcassonne", params)
        assert game.num_distinct_actions() == rl.num_distinct_actions(layout=layout)
        state = game.new_initial_state()
        state.apply_action(state.chance_outcomes()[0][0])
        assert state.legal_actions() == rl.legal_indices(state.core, layout=layout)
        action = state.legal_actions()[-1]
        assert state.action_to_string(action) == rl.index_to_action(state.core, action, layout=layout).text
    with pytest.raises(ValueError, match="unknown action layout 'grid'"):
        pyspiel.load_game("carcassonne", {"layout": "grid"})
