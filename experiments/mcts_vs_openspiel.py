"""Our MCTS against OpenSpiel's own MCTSBot on the OpenSpiel game (carcassonne.rl.openspiel), at
equal time per move, 2-player base game, one thread.

    nice python experiments/mcts_vs_openspiel.py --deals 100 --simulations 12 --csv build/vs_openspiel.csv

A deal is two games with the same deck (the tiles come from the engine's PRNG seeded by the
deal, drawn in the same order in both, unless a tile is unplaceable in one game only and
discarded there, B-4) and the seats swapped. MCTSBot (UCT c = 2, random
rollouts, `--simulations` per move) goes first in calibration: its mean time per move over
`--calibrate` moves becomes our MCTS's time budget per move (`mcts:time=...`, defaults
otherwise), so both think equally long; the report gives the times measured in the match.
Each game is appended to the csv as it ends; run the same command again to resume (Ctrl-C
stops; the games written stay). Prints a progress line with an ETA per game.
"""

from __future__ import annotations

import argparse
import csv
import math
import os
import sys
import time

import numpy as np
import pyspiel
from open_spiel.python.algorithms import mcts

import carcassonne.rl.openspiel  # noqa: F401 (registers "carcassonne")
from carcassonne import _core, rl

FIELDS = [
    "deal",
    "ours_seat",
    "ours_score",
    "theirs_score",
    "ours_share",
    "ours_seconds",
    "ours_moves",
    "theirs_seconds",
    "theirs_moves",
    "budget",
]


def mctsbot(game: pyspiel.Game, simulations: int, seed: int) -> mcts.MCTSBot:
    rng = np.random.RandomState(seed)
    return mcts.MCTSBot(game, 2.0, simulations, mcts.RandomRolloutEvaluator(1, rng), random_state=rng)


def play(game: pyspiel.Game, deal: int, ours_seat: int, budget: float, simulations: int) -> dict:
    """One game; returns its csv row."""
    state = game.new_initial_state()
    bot = mctsbot(game, simulations, seed=2 * deal + ours_seat)
    seconds = [0.0, 0.0]  # ours, theirs
    moves = [0, 0]
    space = rl.action_space()
    while not state.is_terminal():
        if state.is_chance_node():
            # The engine's PRNG (seeded by the deal) draws: the same deck in both games of a deal.
            state.apply_action(state.core.sample_chance() >> 4)
            continue
        start = time.perf_counter()
        if state.current_player() == ours_seat:
            code = _core.choose_action(
                state.core, f"mcts:time={budget:.4f}", 1000 * deal + len(state.history())
            )
            action = space.index(state.core, code)
            who = 0
        else:
            action = bot.step(state)
            who = 1
        seconds[who] += time.perf_counter() - start
        moves[who] += 1
        state.apply_action(action)
    scores = state.core.scores()
    return {
        "deal": deal,
        "ours_seat": ours_seat,
        "ours_score": scores[ours_seat],
        "theirs_score": scores[1 - ours_seat],
        "ours_share": state.returns()[ours_seat],
        "ours_seconds": round(seconds[0], 3),
        "ours_moves": moves[0],
        "theirs_seconds": round(seconds[1], 3),
        "theirs_moves": moves[1],
        "budget": budget,
    }


def calibrate(game: pyspiel.Game, simulations: int, moves: int) -> float:
    """MCTSBot's mean seconds per move over the first `moves` decisions of a game."""
    state = game.new_initial_state()
    bot = mctsbot(game, simulations, seed=12345)
    spent, made = 0.0, 0
    while made < moves and not state.is_terminal():
        if state.is_chance_node():
            state.apply_action(state.core.sample_chance() >> 4)
            continue
        start = time.perf_counter()
        action = bot.step(state)
        spent += time.perf_counter() - start
        made += 1
        state.apply_action(action)
    return spent / max(made, 1)


def wilson(p: float, n: int, z: float = 1.96) -> tuple[float, float]:
    """Wilson score interval of a proportion p over n units (never of zero width)."""
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return centre - half, centre + half


def summary(rows: list[dict]) -> str:
    """Win share with a Wilson interval over deals (a deal, its two games, is one unit, as in
    search/arena.h), score margin, seats, and the seconds per move each side took."""
    deals: dict[int, list[float]] = {}
    for r in rows:
        deals.setdefault(int(r["deal"]), []).append(float(r["ours_share"]))
    per_deal = [float(np.mean(v)) for v in deals.values()]
    mean = float(np.mean(per_deal))
    low, high = wilson(mean, len(per_deal))
    margin = np.mean([float(r["ours_score"]) - float(r["theirs_score"]) for r in rows])
    ours = sum(float(r["ours_seconds"]) for r in rows) / max(1, sum(int(r["ours_moves"]) for r in rows))
    theirs = sum(float(r["theirs_seconds"]) for r in rows) / max(1, sum(int(r["theirs_moves"]) for r in rows))
    by_seat = {s: np.mean([float(r["ours_share"]) for r in rows if int(r["ours_seat"]) == s]) for s in (0, 1)}
    return (
        f"{len(rows)} games ({len(per_deal)} deals): our MCTS's win share {mean:.3f} [{low:.3f}, {high:.3f}] "
        f"(95% Wilson over deals), mean margin {margin:+.1f} points; seat 0 {by_seat[0]:.3f}, "
        f"seat 1 {by_seat[1]:.3f}; seconds per move: ours {ours:.4f}, MCTSBot {theirs:.4f}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--deals", type=int, default=100)
    parser.add_argument("--simulations", type=int, default=12, help="MCTSBot simulations per move")
    parser.add_argument("--calibrate", type=int, default=40, help="MCTSBot moves timed to set our budget")
    parser.add_argument(
        "--budget", type=float, default=None, help="our seconds per move (default: calibrated)"
    )
    parser.add_argument("--csv", default="vs_openspiel.csv")
    args = parser.parse_args()

    game = pyspiel.load_game("carcassonne", {"players": 2})
    rows: list[dict] = []
    if os.path.exists(args.csv):
        with open(args.csv, newline="") as f:
            rows = list(csv.DictReader(f))
    budget = float(rows[0]["budget"]) if rows else args.budget
    if budget is None:
        budget = calibrate(game, args.simulations, args.calibrate)
        print(f"MCTSBot, {args.simulations} simulations: {budget:.4f} s a move; our budget is the same")
    done = {(int(r["deal"]), int(r["ours_seat"])) for r in rows}
    todo = [(d, s) for d in range(args.deals) for s in (0, 1) if (d, s) not in done]
    write_header = not os.path.exists(args.csv)
    start = time.time()
    with open(args.csv, "a", newline="") as f:
        writer = csv.DictWriter(f, FIELDS)
        if write_header:
            writer.writeheader()
        for i, (deal, seat) in enumerate(todo):
            row = play(game, deal, seat, budget, args.simulations)
            writer.writerow(row)
            f.flush()
            rows.append(row)
            elapsed = time.time() - start
            eta = elapsed / (i + 1) * (len(todo) - i - 1)
            print(
                f"\r[{i + 1}/{len(todo)}] deal {deal} seat {seat}: share {row['ours_share']:.1f} "
                f"| elapsed {elapsed / 60:.1f} min, ETA {eta / 60:.1f} min",
                end="",
                file=sys.stderr,
                flush=True,
            )
    print(file=sys.stderr)
    print(summary(rows))


if __name__ == "__main__":
    try:
        main()
    except KeyboardInterrupt:
        sys.exit("interrupted: the games played are in the csv; run the same command to resume")
