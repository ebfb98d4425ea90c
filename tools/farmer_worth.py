"""What value networks think a farmer is worth (docs/value.md): at the figure decisions of random
games where a farmer and passing are both legal, the mover's predicted margin (own final score
minus the best other's) after the farmer minus after passing, averaged per network.

    python tools/farmer_worth.py --players 3 A.value B.value ...
    python tools/farmer_worth.py --players 2 --mix city --before 24 A.value   # early farmers, City games
"""

from __future__ import annotations

import argparse

import numpy as np

from carcassonne import Game, _core
from carcassonne.mixes import find_mix


def margin(net: _core.ValueNet, state: _core.State, me: int) -> float:
    scores, _ = net.evaluate(state)
    return scores[me] - max(x for p, x in enumerate(scores) if p != me)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("networks", nargs="+", help="VALUE files")
    parser.add_argument("--players", type=int, default=3)
    parser.add_argument("--games", type=int, default=40)
    parser.add_argument("--seed", type=int, default=1000)
    parser.add_argument("--mix", default="base", help="a name of carcassonne.mixes")
    parser.add_argument("--before", type=int, default=None, help="only decisions before this turn")
    args = parser.parse_args()
    mix = find_mix(args.mix)
    nets = {path: _core.ValueNet(path) for path in args.networks}
    worth: dict[str, list[float]] = {path: [] for path in nets}
    for game_seed in range(args.seed, args.seed + args.games):
        game = Game(args.players, list(mix.expansions), dict(mix.variants), seed=game_seed)
        rng = np.random.default_rng(game_seed)
        while not game.is_terminal:
            if game.is_chance:
                game.apply_random_chance()
                continue
            legal = game.legal_actions()
            farmer = next((a for a in legal if a.text.startswith("meeple field")), None)
            passing = next((a for a in legal if a.text == "pass"), None)
            early = args.before is None or game.turn_number < args.before
            if farmer and passing and early:
                me = game.current_player
                for path, net in nets.items():
                    after = []
                    for action in (farmer, passing):
                        state = game.core_state()  # a copy
                        state.apply(action.code)
                        after.append(margin(net, state, me))
                    worth[path].append(after[0] - after[1])
            game.apply(legal[int(rng.integers(len(legal)))])
    for path, values in worth.items():
        print(f"{path}: a farmer is worth {np.mean(values):+.2f} points over passing ({len(values)} cases)")


if __name__ == "__main__":
    main()
