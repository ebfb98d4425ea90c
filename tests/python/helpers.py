"""Helpers shared by the Python tests (imported as a plain module: pytest puts this folder on
sys.path). The API under test is the installed carcassonne package."""

from __future__ import annotations

import random
from collections.abc import Callable

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
