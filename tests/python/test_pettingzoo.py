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


def first_moves(e: object, n: int = 6) -> list[object]:
    """The observations of a game's first n decisions, each player taking its first legal move."""
    seen = []
    for _ in range(n):
        obs, *_ = e.last()  # type: ignore[attr-defined]
        seen.append(obs["observation"].copy())
        e.step(int(np.flatnonzero(obs["action_mask"])[0]))  # type: ignore[attr-defined]
    return seen


def test_a_reset_without_a_seed_continues_the_seeded_stream() -> None:
    """Gymnasium's convention: reset(seed=7) then reset() plays the same games every time."""
    runs = []
    for _ in range(2):
        e = env(players=2)
        e.reset(seed=7)
        games = [first_moves(e)]
        for _ in range(2):
            e.reset()
            games.append(first_moves(e))
        runs.append(games)
    for a, b in zip(runs[0], runs[1], strict=True):
        for x, y in zip(a, b, strict=True):
            np.testing.assert_array_equal(x, y)
    # The stream's games differ from each other (their first draws at least, almost surely).
    assert any(not np.array_equal(x, y) for x, y in zip(runs[0][1], runs[0][2], strict=True))


def test_the_creators_and_the_registered_id_make_the_environment() -> None:
    """By name, as PettingZoo's own turn-based games (chess, go) are made: `env` (wrapped),
    `raw_env`, and pettingzoo.make("aec", ...) where PettingZoo has a registry."""
    import pettingzoo

    from carcassonne.rl import PETTINGZOO_ID
    from carcassonne.rl import pettingzoo as module

    assert isinstance(module.env(players=3).unwrapped, module.raw_env)
    assert not hasattr(module, "parallel_env")  # one player decides at a time: no parallel API
    if not hasattr(pettingzoo, "make"):
        pytest.skip("this PettingZoo has no registry (1.27 and later have one)")
    e = pettingzoo.make("aec", PETTINGZOO_ID, players=3, expansions=["abbey-mayor"])
    assert isinstance(e.unwrapped, module.raw_env) and e.possible_agents == [
        "player_0",
        "player_1",
        "player_2",
    ]
    e.reset(seed=1)
    obs, *_ = e.last()
    e.step(np.array([np.flatnonzero(obs["action_mask"])[0]]))  # a one-element array is one index
    with pytest.raises(ValueError, match="whole number"):
        e.step(0.5)
