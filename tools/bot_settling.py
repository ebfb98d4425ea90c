"""How early the play page's bots could stop thinking, and what it would cost (a measurement, not
a test). Plays 4-player games whose every seat searches the whole budget in the bots' steps
(carcassonne.play.session: THINKING_STEPS, one tree per seat kept from move to move), and records
after each step the most visited action's lead over the runner-up. For each share S it prints
the budget a bot stopping at "lead > S x the iterations left" would use, and how often its move
would differ from the whole budget's (with the whole search's value lost, mean per decision).
Usage: python tools/bot_settling.py [--iterations 200000] [--seeds 0 3] [--turns 20]
(200,000 iterations: about what a hard bot's 2 s search runs on a 2-core AMD EPYC.)
"""

from __future__ import annotations

import argparse

from carcassonne import Game, _core
from carcassonne.play.session import THINKING_STEPS
from carcassonne.search import mcts_config

SHARES = (1.0, 0.5, 0.25, 0.15, 0.1)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--iterations", type=int, default=200_000, help="the whole budget of a decision")
    parser.add_argument(
        "--seeds", type=int, nargs=2, default=(0, 3), help="the games' seeds, first and past-last"
    )
    parser.add_argument("--turns", type=int, default=20, help="the turns of each game played")
    args = parser.parse_args()
    steps = {share: 0 for share in SHARES}
    differ = {share: 0 for share in SHARES}
    lost = {share: 0.0 for share in SHARES}
    decisions = 0
    for seed in range(*args.seeds):
        game = Game(players=4, seed=seed)
        searches = [_core.Mcts(mcts_config(iterations=args.iterations // THINKING_STEPS)) for _ in range(4)]
        while not game.is_terminal and game.turn_number < args.turns:
            state = game.core_state()
            if game.is_chance or len(state.legal_actions()) == 1:
                game.apply_random_chance() if game.is_chance else game._apply_code(
                    state.legal_actions()[0], False
                )
                continue
            search, done, seen = searches[game.current_player], 0, []
            for step in range(1, THINKING_STEPS + 1):
                result = search.search(state, len(game.history) * THINKING_STEPS + step)
                done += result.iterations
                visits = [a.visits for a in result.actions] + [0]
                seen.append((visits[0] - visits[1], done / step * (THINKING_STEPS - step), result.best))
            value = {a.action: a.value for a in result.actions}
            for share in SHARES:
                step, best = next(
                    (step, best)
                    for step, (lead, left, best) in enumerate(seen, 1)
                    if lead > share * left or not left
                )
                steps[share] += step
                if best != result.best:
                    differ[share] += 1
                    lost[share] += value[result.best] - value[best]
            decisions += 1
            game._apply_code(result.best, sampled=False)
    print(
        f"{decisions} decisions, {args.iterations} iterations each,"
        f" seeds {args.seeds[0]}..{args.seeds[1] - 1}"
    )
    for share in SHARES:
        print(
            f"share {share}: {steps[share] / decisions / THINKING_STEPS:.0%} of the budget,"
            f" another move in {differ[share]} decisions, value lost {lost[share] / decisions:.5f} a decision"
        )


if __name__ == "__main__":
    main()
