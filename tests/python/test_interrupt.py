"""Ctrl-C stops long C++ calls: a search, an arena, a game between agents, a batch of random
games. Each test sends the process SIGINT shortly after the call starts, with a budget far longer
than the test, and expects KeyboardInterrupt from inside the call, well before the budget ends.
The one clock reading is a hang guard (HANG_GUARD_S, a minute: a call that ran its whole budget
and was interrupted only on return), never a speed bound: the tests pass on a machine whose cores
are all busy. Where a call stops (between MCTS iterations, arena moves, random games) is checked
without clocks by the C++ tests Cancel.* (a cancel flag set beforehand)."""

from __future__ import annotations

import os
import signal
import threading
import time
from collections.abc import Callable
from typing import Any

import pytest

from carcassonne import Game, Mcts, analyse, arena, mcts_config, play_game, play_random_games
from helpers import HANG_GUARD_S

pytestmark = pytest.mark.concurrency  # threads, signals or servers: tools/under_load.sh --quick

BUDGET_S = 4 * HANG_GUARD_S  # far beyond the interrupt; a call that ignores Ctrl-C runs this long


def _interrupted(call: Callable[[], Any]) -> float:
    """Runs call() with SIGINT sent 0.3 s in; asserts KeyboardInterrupt; returns seconds taken."""
    if threading.current_thread() is not threading.main_thread():
        pytest.skip("signals reach the main thread only")
    # Python's own Ctrl-C handler, whatever an earlier test or library left installed (a server,
    # a cluster client): the behaviour under test is what a user's terminal gets.
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    timer = threading.Timer(0.3, os.kill, (os.getpid(), signal.SIGINT))
    start = time.monotonic()
    timer.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            call()
    finally:
        timer.cancel()
        signal.signal(signal.SIGINT, previous)
    return time.monotonic() - start


def _first_decision() -> Game:
    game = Game(players=2, seed=3)
    game.apply_random_chance()
    return game


def test_ctrl_c_stops_an_analysis() -> None:
    game = _first_decision()
    assert _interrupted(lambda: analyse(game, time=BUDGET_S, threads=2)) < HANG_GUARD_S
    # Nothing was changed: the game and a fresh search work as before.
    assert not game.is_terminal and len(game.legal_actions()) > 0
    assert sum(h["visits"] for h in analyse(game, iterations=200)) == 200


def test_ctrl_c_stops_a_search_and_keeps_its_tree_usable() -> None:
    game = _first_decision()
    mcts = Mcts(mcts_config(time=BUDGET_S))
    assert _interrupted(lambda: mcts.search(game.core_state())) < HANG_GUARD_S
    quick = Mcts(mcts_config(iterations=300))
    assert quick.search(game.core_state()).iterations == 300


def test_ctrl_c_stops_an_arena_and_a_game() -> None:
    long_arena = lambda: arena(("mcts:time=0.2", "greedy"), deals=1000, threads=1)  # noqa: E731
    assert _interrupted(long_arena) < HANG_GUARD_S
    long_game = lambda: play_game(("mcts:time=2", "mcts:time=2"))  # noqa: E731  (about 4 minutes)
    assert _interrupted(long_game) < HANG_GUARD_S


def test_ctrl_c_stops_a_batch_of_random_games() -> None:
    """Ctrl-C during a batch raises KeyboardInterrupt and the next batch runs as before. That the
    batch stops between games rather than at its end is checked by the C++ test
    Cancel.StopsABatchOfRandomGamesBetweenGames, without a clock."""
    assert _interrupted(lambda: play_random_games(2_000_000, threads=2)) < HANG_GUARD_S
    assert len(play_random_games(5, threads=2)) == 5


def test_ctrl_c_stops_an_arena_with_a_python_agent_at_its_next_move() -> None:
    moves = []

    def slow(game: Game) -> Any:
        moves.append(1)
        time.sleep(0.01)
        return game.legal_actions()[0]

    assert _interrupted(lambda: arena([slow, "greedy"], deals=10_000)) < HANG_GUARD_S
    count = len(moves)
    time.sleep(0.1)
    assert len(moves) == count > 0  # no game goes on behind the interrupt
