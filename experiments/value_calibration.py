"""How well calibrated are the win chances a search reports (the post-game review's graph, the
hints), with the learned value and with the hand-made guess? Positions of recorded games are
searched by each evaluator; each estimate of the first player's win chance is compared with how
the game ended for that player.

    python experiments/value_calibration.py games.npz --games 120 --every 12 --iterations 1000

`games.npz` is a trajectory file (carcassonne.rl.trajectories.write_trajectories, or a
value-train run's games-*.npz) of 2-player games the network did not learn from. Prints each
evaluator's Brier score and, per fifth of the range of estimates, the mean estimate against the
share of those positions the first player went on to win.
"""

from __future__ import annotations

import argparse

import numpy as np
from tqdm import tqdm

import carcassonne as c
from carcassonne.rl.trajectories import load_trajectories


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("games", help="a trajectory file of 2-player games")
    parser.add_argument("--games", type=int, default=120, dest="count", help="games to read from the start")
    parser.add_argument("--every", type=int, default=12, help="search every n-th node of a game")
    parser.add_argument("--iterations", type=int, default=1000, help="iterations a search (the review's)")
    args = parser.parse_args()

    data = load_trajectories(args.games)
    config = data["config"]
    starts = data["game_start"]
    count = min(args.count, len(starts) - 1)
    estimates: dict[str, list[float]] = {"greedy": [], "value": []}
    outcomes: list[float] = []
    for g in tqdm(range(count), desc="searching positions", unit="game"):
        state = c.Game(int(config["players"]), config["expansions"], config["variants"]).core_state()
        for k, i in enumerate(range(int(starts[g]), int(starts[g + 1]))):
            if not state.is_chance() and k % args.every == args.every // 2:
                for name, found in estimates.items():
                    config_ = c.mcts_config(iterations=args.iterations, eval=name, seed=k)
                    found.append(c.Mcts(config_).search(state).win[0])
                outcomes.append(float(data["win_share"][g][0]))
            state.apply(int(data["actions"][i]))

    won = np.array(outcomes)
    for name, found in estimates.items():
        p = np.array(found)
        fifth = np.clip((p * 5).astype(int), 0, 4)
        rows = [
            f"{p[fifth == b].mean():.2f} -> {won[fifth == b].mean():.2f} ({int((fifth == b).sum())})"
            for b in range(5)
            if (fifth == b).any()
        ]
        print(f"eval={name}: Brier {np.mean((p - won) ** 2):.4f} over {len(p)} positions; " + ", ".join(rows))


if __name__ == "__main__":
    main()
