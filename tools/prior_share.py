"""The priors' share of a search's time (docs/search.md, "What the priors cost"): 1-second
searches of a 2-player base game from the start and at turn 36, one thread, with greedy and
uniform priors, valued by rollouts or by a constant Python evaluator."""

from __future__ import annotations

import numpy as np

from carcassonne import Game, LeafBatch, Mcts, mcts_config


def constant(batch: LeafBatch) -> np.ndarray:
    return np.full((len(batch), batch.players), 0.5, dtype=np.float32)


def position(turn: int) -> Game:
    game = Game(players=2, seed=7)
    game.apply_random_chance()
    while game.turn_number < turn:
        game.apply(game.legal_actions()[0])
        if game.is_chance:
            game.apply_random_chance()
    return game


def main() -> None:
    searches = {
        "mcts (rollouts, greedy priors)": ({}, None),
        "mcts:prior=uniform": ({"prior": "uniform"}, None),
        "Python evaluator, greedy priors": ({}, constant),
        "Python evaluator, prior=uniform": ({"prior": "uniform"}, constant),
    }
    for where, turn in (("start", 0), ("turn 36", 36)):
        state = position(turn).core_state()
        for name, (options, evaluator) in searches.items():
            result = Mcts(mcts_config(time=1.0, **options), evaluator=evaluator).search(state, 1)
            rate, share = result.iterations / result.seconds, result.prior_seconds / result.seconds
            print(f"{where:8} {name:32} {rate:9,.0f} iterations/s, priors {share:6.1%}")


if __name__ == "__main__":
    main()
