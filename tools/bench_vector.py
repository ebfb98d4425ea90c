"""Steps per second of carcassonne.rl.vector.CarcassonneVectorEnv on one core: N games of the
base game, 2 players, against a C++ opponent, observations and masks written every step. The
actions are precomputed-free: each step takes, per game, the lowest legal index of the mask
(numpy's argmax), and the time of that choice is reported apart from the environment's.

    python tools/bench_vector.py --envs 256 --seconds 5
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from bench_rl import cpu  # tools/ is the script's folder

from carcassonne.rl.vector import CarcassonneVectorEnv


def measure(envs: int, window: int, packed: bool, opponent: str, seconds: float) -> tuple[float, float]:
    """(environment steps/s, steps/s with the policy's numpy time included)."""
    env = CarcassonneVectorEnv(envs, opponents=[opponent], window=window, packed=packed, copy=False)
    obs, _ = env.reset(seed=1)
    mask = obs["action_mask"]
    in_env = total = 0.0
    steps = 0
    while total < seconds:
        start = time.perf_counter()
        bits = np.unpackbits(mask, axis=1, bitorder="little") if packed else mask
        actions = bits.argmax(axis=1)
        chosen = time.perf_counter()
        env.step(actions)
        done = time.perf_counter()
        in_env += done - chosen
        total += done - start
        steps += envs
    return steps / in_env, steps / total


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--envs", type=int, default=256)
    parser.add_argument("--seconds", type=float, default=5.0)
    args = parser.parse_args()
    print(f"CPU: {cpu()}, one thread, {args.envs} games, base game, 2 players")
    print(
        "| window | planes | opponent | env steps/s | steps/s, argmax policy included | observation bytes |"
    )
    print("| --- | --- | --- | --- | --- | --- |")
    for window, packed, opponent in [
        (32, False, "random"),
        (32, True, "random"),
        (16, True, "random"),
        (32, True, "greedy"),
    ]:
        env_rate, with_policy = measure(args.envs, window, packed, opponent, args.seconds)
        probe = CarcassonneVectorEnv(1, opponents=[opponent], window=window, packed=packed)
        obs, _ = probe.reset(seed=0)
        size = sum(a.nbytes for a in obs.values())
        print(
            f"| {window} | {'bit-packed' if packed else 'bytes'} | {opponent} | {env_rate:,.0f} | "
            f"{with_policy:,.0f} | {size:,} |",
            flush=True,
        )


if __name__ == "__main__":
    main()
