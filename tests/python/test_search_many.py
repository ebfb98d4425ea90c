"""search_many: the searches of many games at once, their leaves valued by one Python call per
round (the games of a self-play batch). Small searches, so the file runs in seconds."""

from __future__ import annotations

import os
import signal
import threading
import time
from typing import Any

import numpy as np
import pytest

from carcassonne import Game, LeafBatch, Mcts, SearchError, mcts_config, search_many
from carcassonne._core import State
from helpers import HANG_GUARD_S


def _decisions(count: int, players: int = 2) -> list[State]:
    """The first decision of `count` games with different decks."""
    states = []
    for seed in range(count):
        game = Game(players=players, seed=seed)
        game.apply_random_chance()
        states.append(game.core_state())
    return states


def _flat(batch: LeafBatch) -> Any:
    return np.full((len(batch), batch.players), 0.5, dtype=np.float32)


def _leaf_only(batch: LeafBatch) -> Any:
    """The player to move's value from its own leaf's planes alone (exact integer sums), so a
    search's tree does not depend on the other leaves of a call."""
    sums = batch.planes.reshape(len(batch), -1).astype(np.int64).sum(axis=1)
    return ((sums % 97) / 96.0).astype(np.float32)


def test_one_call_values_the_leaves_of_every_game() -> None:
    sizes: list[int] = []

    def counting(batch: LeafBatch) -> Any:
        sizes.append(len(batch))
        return _flat(batch)

    states = _decisions(64)
    results = search_many(states, mcts_config(iterations=64), counting, batch_size=8)
    assert len(results) == 64
    assert all(r.iterations == 64 for r in results)
    assert all(sum(a.visits for a in r.actions) == 64 for r in results)
    assert sizes[0] == 64  # the roots' priors
    groups = sizes[1:]
    assert max(groups) <= 64 * 8
    assert sum(groups) / len(groups) >= 256, sizes
    # Each result counts the calls that valued its leaves and every leaf those calls held.
    busiest = max(results, key=lambda r: r.evaluator_calls)
    assert busiest.evaluator_calls == len(groups)
    assert busiest.evaluator_leaves == sum(groups)
    assert "from each of 64 searches" in results[0].evaluator


@pytest.mark.parametrize("batch_size", [1, 4])
def test_each_search_grows_the_tree_its_single_search_grows(batch_size: int) -> None:
    states = _decisions(5)
    config = mcts_config(iterations=120)
    seeds = [11, 12, 13, 14, 15]
    many = search_many(states, config, _leaf_only, batch_size=batch_size, seeds=seeds)
    for state, seed, result in zip(states, seeds, many, strict=True):
        one = Mcts(config, evaluator=_leaf_only, batch_size=batch_size).search(state, seed)
        assert [(a.action, a.visits) for a in result.actions] == [(a.action, a.visits) for a in one.actions]
        assert result.iterations == one.iterations == 120


def test_bad_input_is_refused_before_any_call() -> None:
    calls = [0]

    def counting(batch: LeafBatch) -> Any:
        calls[0] += 1
        return _flat(batch)

    states = _decisions(3)
    config = mcts_config(iterations=20)
    with pytest.raises(SearchError, match="no states"):
        search_many([], config, counting)
    with pytest.raises(SearchError, match="players"):
        search_many([*states, *_decisions(1, players=3)], config, counting)
    with pytest.raises(SearchError, match="one thread"):
        search_many(states, mcts_config(iterations=20, threads=2), counting)
    with pytest.raises(SearchError, match="seeds"):
        search_many(states, config, counting, seeds=[1, 2])
    chance = Game(players=2, seed=1).core_state()
    with pytest.raises(SearchError, match="state 1 is not a decision"):
        search_many([states[0], chance], config, counting)
    with pytest.raises(SearchError, match="batch_size"):
        search_many(states, config, counting, batch_size=0)
    with pytest.raises(TypeError, match="callable"):
        search_many(states, config, 42)
    assert calls[0] == 0


def test_an_evaluators_exception_stops_every_search_and_leaves_the_states_alone() -> None:
    game = Game(players=2, seed=4)
    game.apply_random_chance()
    before = [a.text for a in game.legal_actions()]

    def failing(batch: LeafBatch) -> Any:
        if len(batch) > 3:  # the roots' call passes; the first round of groups fails
            raise RuntimeError("model on fire")
        return _flat(batch)

    with pytest.raises(RuntimeError, match="model on fire"):
        search_many([game.core_state(), *_decisions(2)], mcts_config(iterations=50), failing, batch_size=4)
    assert [a.text for a in game.legal_actions()] == before
    assert search_many([game.core_state()], mcts_config(iterations=10), _flat)[0].iterations == 10


@pytest.mark.concurrency
def test_ctrl_c_stops_every_search() -> None:
    if threading.current_thread() is not threading.main_thread():
        pytest.skip("signals reach the main thread only")
    calls = [0]

    def fn(batch: LeafBatch) -> Any:
        calls[0] += 1
        if calls[0] == 3:
            os.kill(os.getpid(), signal.SIGINT)
        return _flat(batch)

    # As with Mcts.search: the signal is handled when the calling thread next gets the GIL, so
    # only a hang guard bounds the time (the budget is far longer).
    start = time.monotonic()
    with pytest.raises(KeyboardInterrupt):
        search_many(_decisions(4), mcts_config(time=HANG_GUARD_S * 4), fn, batch_size=4)
    assert time.monotonic() - start < HANG_GUARD_S
    calls[0] = 10  # no more signals
    assert search_many(_decisions(2), mcts_config(iterations=20), fn)[1].iterations == 20
