"""Speed of the learning environments on one core, base game, 2 players:

- carcassonne.rl.vector.CarcassonneVectorEnv: steps per second of N games against a C++
  opponent, observations and masks written every step; each step takes, per game, the lowest
  legal index of the mask (numpy's argmax), timed apart from the environment;
- the OpenSpiel game: observation_tensor() calls per second (mid-game) and rl_environment steps
  per second with random legal actions;
- carcassonne.rl.gymnasium.CarcassonneEnv: steps per second against greedy, random legal actions.

    python tools/bench_envs.py --envs 256 --seconds 3 --repeat 3

Each figure is the median of `repeat` runs and, for the vector environment, their range (shared
machines vary a lot from run to run).
Instructions instead of time (stable on a shared machine): `--steps N` only steps the vector
environment N times (`--window`, `--packed`), for a profiler, e.g. the difference of

    valgrind --tool=callgrind python tools/bench_envs.py --steps 50 --window 16 --packed
    valgrind --tool=callgrind python tools/bench_envs.py --steps 10 --window 16 --packed

divided by 40 x 256 steps.
"""

from __future__ import annotations

import argparse
import statistics
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


def spread(rates: list[float]) -> str:
    """The median and, over several runs, the range: "86,800 (71,000-90,100)"."""
    median = f"{statistics.median(rates):,.0f}"
    return median if len(rates) < 2 else f"{median} ({min(rates):,.0f}-{max(rates):,.0f})"


def openspiel_rates(seconds: float) -> tuple[float, float]:
    """(observation_tensor calls/s at a mid-game node, rl_environment steps/s)."""
    import pyspiel
    from open_spiel.python import rl_environment

    import carcassonne.rl.openspiel  # noqa: F401 (registers the game)

    game = pyspiel.load_game("carcassonne")
    rng = np.random.default_rng(0)
    state = game.new_initial_state()
    for _ in range(40):
        if state.is_chance_node():
            outcomes, probs = zip(*state.chance_outcomes(), strict=True)
            state.apply_action(int(rng.choice(outcomes, p=probs)))
        else:
            state.apply_action(int(rng.choice(state.legal_actions())))
    calls, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        state.observation_tensor(0)
        calls += 1
    tensor_rate = calls / (time.perf_counter() - start)
    env = rl_environment.Environment(game)
    step = env.reset()
    steps, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        if step.last():
            step = env.reset()
        player = step.observations["current_player"]
        step = env.step([int(rng.choice(step.observations["legal_actions"][player]))])
        steps += 1
    return tensor_rate, steps / (time.perf_counter() - start)


def gymnasium_rate(seconds: float) -> float:
    """CarcassonneEnv steps/s against greedy with random legal actions."""
    from carcassonne.rl.gymnasium import CarcassonneEnv

    env = CarcassonneEnv(opponents=["greedy"])
    rng = np.random.default_rng(0)
    obs, _ = env.reset(seed=0)
    steps, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        obs, _, terminated, _, _ = env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        steps += 1
        if terminated:
            obs, _ = env.reset()
    return steps / (time.perf_counter() - start)


def fixed_steps(envs: int, window: int, packed: bool, steps: int) -> None:
    """`steps` steps of the vector environment against random, lowest legal index, untimed."""
    env = CarcassonneVectorEnv(envs, opponents=["random"], window=window, packed=packed, copy=False)
    obs, _ = env.reset(seed=1)
    for _ in range(steps):
        mask = obs["action_mask"]
        bits = np.unpackbits(mask, axis=1, bitorder="little") if packed else mask
        obs = env.step(bits.argmax(axis=1))[0]


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--envs", type=int, default=256)
    parser.add_argument("--seconds", type=float, default=3.0)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--steps", type=int, help="only step the vector environment this often (profilers)")
    parser.add_argument("--window", type=int, default=16, help="with --steps")
    parser.add_argument("--packed", action="store_true", help="with --steps")
    args = parser.parse_args()
    if args.steps is not None:
        fixed_steps(args.envs, args.window, args.packed, args.steps)
        return
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
        runs = [measure(args.envs, window, packed, opponent, args.seconds) for _ in range(args.repeat)]
        env_rate = spread([r[0] for r in runs])
        with_policy = spread([r[1] for r in runs])
        probe = CarcassonneVectorEnv(1, opponents=[opponent], window=window, packed=packed)
        obs, _ = probe.reset(seed=0)
        size = sum(a.nbytes for a in obs.values())
        print(
            f"| {window} | {'bit-packed' if packed else 'bytes'} | {opponent} | {env_rate} | "
            f"{with_policy} | {size:,} |",
            flush=True,
        )
    rates = [openspiel_rates(args.seconds) for _ in range(args.repeat)]
    tensor_rate = statistics.median(r[0] for r in rates)
    env_rate = statistics.median(r[1] for r in rates)
    print(
        f"OpenSpiel: observation_tensor() {tensor_rate:,.0f} calls/s;",
        f"rl_environment {env_rate:,.0f} steps/s",
    )
    gym_rate = statistics.median(gymnasium_rate(args.seconds) for _ in range(args.repeat))
    print(f"Gymnasium CarcassonneEnv against greedy: {gym_rate:,.0f} steps/s")


if __name__ == "__main__":
    main()
