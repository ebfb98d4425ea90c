"""Helpers shared by the Python tests (imported as a plain module: pytest puts this folder on
sys.path). The API under test is the installed carcassonne package."""

from __future__ import annotations

import bisect
import random
import sys
import threading
import time
from collections.abc import Callable
from typing import Any

from carcassonne import Game

# How long a call that should stop at once may take before a test calls it hung. A guard against
# hangs, never a speed bound: generous enough for a machine whose cores are all taken.
HANG_GUARD_S = 60.0


class StoppedError(Exception):
    """A stop of the test's own (standing in for Ctrl-C) raised inside a long write."""


def play_randomly(game: Game, rng: random.Random, on_step: Callable[[Game], None] | None = None) -> int:
    """Plays game to the end: draws with the game's own PRNG, decisions uniformly at random from
    rng. Calls on_step(game) after every action; returns the number of actions applied."""
    steps = 0
    while not game.is_terminal:
        if game.is_chance:
            game.apply_random_chance()
        else:
            game.apply(rng.choice(game.legal_actions()))
        steps += 1
        if on_step is not None:
            on_step(game)
    return steps


def snapshot(game: Game) -> tuple:
    """What two equal games must agree on: node, scores, breakdown, board, bag and moves."""
    return (
        game.phase,
        game.current_player,
        game.turn_player,
        game.scores,
        game.breakdown(),
        game.tiles,
        game.figures,
        game.bag(),
        [a.code for a in game.legal_actions()],
        str(game),
    )


def progress_during(call: Callable[[], object], min_seconds: float = 0.3, min_calls: int = 1) -> list[int]:
    """Whether another Python thread runs while `call` runs: an event count, not a timing bound.

    Makes calls (at least `min_calls`, more until `min_seconds` have passed) while a second Python
    thread counts, and returns for each call how many counts fell in its middle half. A call that
    holds the GIL lets no other Python thread run inside it: the counter moves only at its edges,
    where the interpreter switches threads before and after the call. A call that releases the GIL
    lets the counter run all along, however busy the machine: load only thins the counts out, and
    over a few tenths of a second the scheduler runs a runnable thread many times. So tests judge
    "counts in the middle" or "none", never a share of the duration."""
    ticks: list[float] = []
    stop = threading.Event()

    def count() -> None:
        while not stop.is_set():
            ticks.append(time.perf_counter())

    interval = sys.getswitchinterval()
    sys.setswitchinterval(0.0005)  # prompt switches at the edges of a call
    counter = threading.Thread(target=count)
    counter.start()
    inside: list[int] = []
    spent = 0.0
    try:
        while len(inside) < min_calls or spent < min_seconds:
            ticks.clear()
            start = time.perf_counter()
            call()
            end = time.perf_counter()
            spent += end - start
            quarter = (end - start) / 4
            seen = ticks[:]  # timestamps in order: the counter only appends
            inside.append(
                bisect.bisect_left(seen, end - quarter) - bisect.bisect_right(seen, start + quarter)
            )
        return inside
    finally:
        stop.set()
        counter.join()
        sys.setswitchinterval(interval)


def assert_releases_the_gil(call: Callable[[], object], what: str) -> None:
    inside = progress_during(call)
    assert sum(inside) > 0, (
        f"no other Python thread ran inside {len(inside)} calls of {what}: it holds the GIL"
    )


# The play server's legal actions as the page gets them (GET /api/games/{id}): every action text.
def every_legal_action(state: dict[str, Any]) -> list[str]:
    legal = state["legal"]
    return (
        [a for cell in legal["placements"] for a in cell["rotations"].values()]
        + [f["action"] for f in legal["figures"]]
        + [b["action"] for b in legal["barns"]]
        + [c["action"] for c in legal["cells"]]
        + [c["action"] for c in legal["choices"]]
    )
