"""carcassonne.rl.pettingzoo: PettingZoo's own API test and seed test for the base game and
every-expansion mixes."""

from __future__ import annotations

import numpy as np
import pytest
from pettingzoo.test import api_test, seed_test

import carcassonne
from carcassonne.rl.pettingzoo import env

MIXES = [
    {"players": 2},
    {"players": 3, "expansions": ["abbey-mayor", "anniv20", "king-robber", "shrines", "city"]},
    {"players": 2, "expansions": ["abbey-mayor", "anniv20", "king-robber", "shrines", "river2"]},
]

# The AEC convention the environment follows (a dict with the action mask) draws two advisory
# warnings from api_test, meant for environments without a mask; every other warning fails.
ADVICE = [
    "ignore:Observation space for each agent probably should be:UserWarning",
    "ignore:Observation is not a NumPy array:UserWarning",
]


@pytest.mark.parametrize("kwargs", MIXES)
@pytest.mark.filterwarnings(*ADVICE)
def test_api_test_passes(kwargs: dict) -> None:
    api_test(env(**kwargs), num_cycles=300)


@pytest.mark.parametrize("kwargs", MIXES)
def test_seed_test_passes(kwargs: dict) -> None:
    seed_test(lambda: env(**kwargs), num_cycles=100)


def test_a_whole_game_ends_with_win_shares() -> None:
    e = env(players=2)
    e.reset(seed=4)
    rng = np.random.default_rng(0)
    rewards = dict.fromkeys(e.possible_agents, 0.0)
    for agent in e.agent_iter():
        obs, reward, terminated, truncated, _ = e.last()
        rewards[agent] += reward
        if terminated or truncated:
            e.step(None)
            continue
        assert obs["action_mask"].any()
        e.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    assert sorted(rewards.values()) in ([0.0, 1.0], [0.5, 0.5])


def test_an_illegal_action_raises_and_changes_nothing() -> None:
    e = env(players=2)
    e.reset(seed=1)
    obs, *_ = e.last()
    illegal = int(np.flatnonzero(obs["action_mask"] == 0)[0])
    with pytest.raises(carcassonne.IllegalActionError):
        e.step(illegal)
    np.testing.assert_array_equal(e.last()[0]["action_mask"], obs["action_mask"])
