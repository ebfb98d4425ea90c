"""Whole games in C++: batches of random games and agent games, deterministic and GIL-free."""

from __future__ import annotations

import random

import pytest

from carcassonne import CAUSES, ConfigError, GameResult, SearchError, play_game, play_random_games
from carcassonne._core import split_agent_list
from helpers import assert_releases_the_gil, progress_during


def _as_tuples(results: list[GameResult]) -> list[tuple]:
    return [(r.scores, r.breakdown, r.decisions, r.tiles_placed) for r in results]


def test_random_games_do_not_depend_on_the_thread_count() -> None:
    one = play_random_games(200, players=3, seed=10, threads=1)
    two = play_random_games(200, players=3, seed=10, threads=2)
    every_core = play_random_games(200, players=3, seed=10, threads=0)
    assert _as_tuples(one) == _as_tuples(two) == _as_tuples(every_core)


def test_game_i_of_a_batch_uses_seed_plus_i() -> None:
    batch = play_random_games(20, seed=100, threads=2)
    assert _as_tuples(batch[7:8]) == _as_tuples(play_random_games(1, seed=107))
    assert len({tuple(r.scores) for r in batch}) > 1  # different seeds, different games


@pytest.mark.parametrize("players", [2, 4, 6])
def test_random_game_results_are_sane(players: int) -> None:
    results = play_random_games(100, players=players, seed=1)
    for r in results:
        assert len(r.scores) == players
        assert [sum(causes.values()) for causes in r.breakdown] == r.scores  # B-11
        assert all(tuple(causes) == CAUSES for causes in r.breakdown)
        assert all(s >= 0 for s in r.scores)
        assert 0 < r.tiles_placed <= 72
        assert r.decisions >= r.tiles_placed - 1  # at least the placements
    assert "GameResult(scores=[" in repr(results[0])


def test_bad_batch_arguments() -> None:
    with pytest.raises(ConfigError):
        play_random_games(1, players=1)
    with pytest.raises(ValueError, match="n out of range"):
        play_random_games(-1)
    with pytest.raises(ValueError, match="threads out of range"):
        play_random_games(1, threads=-1)
    with pytest.raises(TypeError):
        play_random_games("10")  # type: ignore[arg-type]
    assert play_random_games(0) == []


@pytest.mark.concurrency
def test_the_gil_probe_sees_a_call_that_holds_the_gil() -> None:
    # The probe must be able to fail: sorting a list is one C call that never lets go of the GIL.
    # Distinct values make each sort long (about 0.2 s) beside the thread switches at its edges,
    # which may fall inside the timed span: a sort of equal values is over in a switch interval.
    rng = random.Random(1)
    data = [rng.random() for _ in range(1_000_000)]
    inside = progress_during(lambda: sorted(data), min_calls=5)
    assert 0 in inside, f"counts in the middle of each sort: {inside}"


@pytest.mark.concurrency
def test_play_random_games_releases_the_gil() -> None:
    assert_releases_the_gil(lambda: play_random_games(2_000, seed=0, threads=1), "play_random_games")


@pytest.mark.concurrency
def test_play_game_releases_the_gil() -> None:
    assert_releases_the_gil(lambda: play_game(["greedy", "greedy"], players=4, seed=1), "play_game")


def test_play_game_is_deterministic() -> None:
    a = play_game(["greedy", "random"], players=2, seed=3)
    b = play_game(["greedy", "random"], players=2, seed=3)
    assert _as_tuples([a]) == _as_tuples([b])
    assert play_game("greedy,random", seed=3).scores == a.scores
    c = play_game(["greedy", "random"], players=2, seed=3, agent_seed=99)
    assert [sum(x.values()) for x in c.breakdown] == c.scores


def test_greedy_beats_random() -> None:
    """A skill check, not a rule: over 10 games with seats swapped, the one-ply greedy agent
    scores more than the random agent in total and wins most games."""
    greedy = random_points = wins = 0
    for seed in range(10):
        lineup = ["greedy", "random"] if seed % 2 == 0 else ["random", "greedy"]
        result = play_game(lineup, seed=seed)
        g = lineup.index("greedy")
        greedy += result.scores[g]
        random_points += result.scores[1 - g]
        wins += result.scores[g] > result.scores[1 - g]
    assert greedy > random_points
    assert wins >= 7


def test_agent_lists_keep_each_agents_options_together() -> None:
    """An item key=value continues the agent before it (the issue's repros)."""
    assert split_agent_list("greedy,mcts:iters=50,c=1") == ["greedy", "mcts:iters=50,c=1"]
    assert split_agent_list("mcts:iters=100,c=1,greedy") == ["mcts:iters=100,c=1", "greedy"]
    listed = play_game("greedy,mcts:iters=50,c=1", seed=2)
    assert listed.scores == play_game(["greedy", "mcts:iters=50,c=1"], seed=2).scores
    with pytest.raises(SearchError, match=r"^agent list 'c=1,greedy': option 'c=1' follows no agent"):
        play_game("c=1,greedy")
    with pytest.raises(SearchError, match="option 'c=1' follows 'greedy', which has no options"):
        play_game("greedy,c=1")
    with pytest.raises(SearchError, match="an empty agent name"):
        play_game("greedy,,random")


def test_unknown_agent() -> None:
    with pytest.raises(SearchError, match="unknown agent 'alphago'"):
        play_game(["greedy", "alphago"])
    with pytest.raises(SearchError, match=r"mcts option 'iters' is given twice \('iters=5,iters=6'\)"):
        play_game(["greedy", "mcts:iters=5,iters=6"])
    with pytest.raises(TypeError):
        play_game([1, 2])  # type: ignore[list-item]
