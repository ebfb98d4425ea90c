"""Throughput of carcassonne.rl on one core: observations encoded, legal-action masks and index
lists (window layout, as the measurements in docs/research.md), State and Game pickles per second,
over the decision nodes of random games.

    python tools/bench_rl.py --games 20
"""

from __future__ import annotations

import argparse
import pickle
import platform
import random
import time
from collections.abc import Callable

from carcassonne import Game, rl

EVERYTHING = ["abbey-mayor", "anniv20", "king-robber", "shrines", "city"]


def nodes(players: int, expansions: list[str], games: int) -> list[Game]:
    """Copies of every decision node of `games` random games."""
    out = []
    for seed in range(games):
        rng = random.Random(seed)
        game = Game(players=players, expansions=expansions, seed=seed)
        while not game.is_terminal:
            if game.is_chance:
                game.apply_random_chance()
            else:
                out.append(game.clone())
                game.apply(rng.choice(game.legal_actions()))
    return out


def rate(work: Callable[[], object], items: int, repeat: int = 3) -> float:
    """Items per second, best of `repeat` runs."""
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        work()
        best = min(best, time.perf_counter() - start)
    return items / best


def cpu() -> str:
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown CPU"


def row(name: str, players: int, expansions: list[str], games: int) -> str:
    """One table row: every rate over the decision nodes of `games` random games."""
    positions = nodes(players, expansions, games)
    states = [g.core_state() for g in positions]
    n = len(states)
    sample = positions[:: max(1, n // 200)]
    start = time.perf_counter()
    out = rl.encode_batch(states)  # a first call: fresh memory, its page faults included
    first = n / (time.perf_counter() - start)
    rates = [
        first,
        rate(lambda: rl.encode_batch(states, out=out), n),
        rate(lambda: [rl.encode(s) for s in states], n),
        rate(lambda: rl.legal_actions_masks(states, layout="window"), n),
        rate(lambda: [rl.legal_indices(s, layout="window") for s in states], n),
        rate(lambda: [pickle.loads(pickle.dumps(s)) for s in states], n),
        rate(lambda: [pickle.loads(pickle.dumps(g)) for g in sample], len(sample)),
    ]
    return f"| {name} | {n} | " + " | ".join(f"{r:,.0f}" for r in rates) + " |"


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--games", type=int, default=20)
    args = parser.parse_args()
    print(f"CPU: {cpu()}, one thread, window {rl.DEFAULT_WINDOW}")
    print(
        "| rule mix | nodes | encode_batch, new arrays (states/s) | encode_batch, out= reused | encode one "
        "(states/s) | legal_actions_masks "
        "(masks/s) | legal_indices (/s) | State pickle dumps+loads (/s) | Game pickle dumps+loads (/s) |"
    )
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    print(row("base, 2 players", 2, [], args.games), flush=True)
    print(row("every expansion (City), 4 players", 4, EVERYTHING, args.games), flush=True)


if __name__ == "__main__":
    main()
