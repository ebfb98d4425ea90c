"""Helpers shared by the Python tests (imported as a plain module: pytest puts this folder on
sys.path). The API under test is the installed carcassonne package."""

from __future__ import annotations

import bisect
import itertools
import random
import sys
import threading
import time
from collections.abc import Callable
from typing import Any

from carcassonne import Game


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


def gil_stalls(call: Callable[[], object], repeats: int) -> list[tuple[float, float]]:
    """Makes `repeats` calls while another Python thread spins, and returns for each call its
    duration and the longest stretch of it in which the spinning thread made no progress.

    A call that holds the GIL stalls the spinner for its whole duration; one that releases it
    stalls the spinner at most for a switch interval at each end (set short here). On a busy
    machine the operating system also stalls the spinner now and then, in some repeats and not
    others, while a call that holds the GIL stalls it in every one: tests judge the least stalled
    repeat."""
    ticks: list[float] = []
    stop = threading.Event()

    def spin() -> None:
        while not stop.is_set():
            ticks.append(time.perf_counter())

    interval = sys.getswitchinterval()
    sys.setswitchinterval(0.0005)
    spinner = threading.Thread(target=spin)
    spinner.start()
    try:
        out = []
        for _ in range(repeats):
            ticks.clear()
            time.sleep(0.002)  # let the spinner run
            start = time.perf_counter()
            call()
            end = time.perf_counter()
            seen = ticks[:]  # timestamps in order: the spinner only appends
            inside = [start, *seen[bisect.bisect_right(seen, start) : bisect.bisect_left(seen, end)], end]
            out.append((end - start, max(b - a for a, b in itertools.pairwise(inside))))
        return out
    finally:
        stop.set()
        spinner.join()
        sys.setswitchinterval(interval)


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
