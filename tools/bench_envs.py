"""Speed of the learning environments on one core, base game, 2 players:

- carcassonne.rl.vector.CarcassonneVectorEnv: steps per second of N games against a C++
  opponent, observations and masks written every step, per action layout and observation
  window; the policy is a uniformly random legal action per game drawn in C++
  (`sample_legal`), numpy's argmax over the mask (the lowest legal index), or Gymnasium's masked
  `action_space.sample`, each timed apart from the environment;
- the OpenSpiel game: observation_tensor() calls per second (mid-game) and rl_environment steps
  per second with random legal actions;
- carcassonne.rl.gymnasium.CarcassonneEnv: steps per second against greedy, random legal actions.

    python tools/bench_envs.py --envs 256 --seconds 3 --repeat 3

Each figure is the median of `repeat` runs and, for the vector environment, their range (shared
machines vary a lot from run to run). `--vector-only` skips OpenSpiel and the single env.
Instructions instead of time (stable on a shared machine): `--steps N` only steps the vector
environment N times (`--window`, `--packed`, `--layout`), for a profiler, e.g. the difference of

    valgrind --tool=callgrind python tools/bench_envs.py --steps 50 --window 16 --packed
    valgrind --tool=callgrind python tools/bench_envs.py --steps 10 --window 16 --packed

divided by 40 x 256 steps.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable

import numpy as np
from bench_rl import cpu  # tools/ is the script's folder

from carcassonne.rl.vector import CarcassonneVectorEnv

Policy = Callable[[CarcassonneVectorEnv, dict], np.ndarray]


def sample_legal(env: CarcassonneVectorEnv, obs: dict) -> np.ndarray:
    return env.sample_legal()


def argmax(env: CarcassonneVectorEnv, obs: dict) -> np.ndarray:
    mask = obs["action_mask"]
    bits = (
        np.unpackbits(mask, axis=1, bitorder="little")
        if env.single_observation_space["action_mask"].dtype == np.uint8
        else mask
    )
    return bits.argmax(axis=1)


def gymnasium_sample(env: CarcassonneVectorEnv, obs: dict) -> np.ndarray:
    return env.action_space.sample(mask=tuple(env.unpack(obs)["action_mask"]))


POLICIES: dict[str, Policy] = {"sample_legal": sample_legal, "argmax": argmax, "gymnasium": gymnasium_sample}


def measure(
    envs: int, window: int, packed: bool, opponent: str, seconds: float, layout: str, policy: Policy
) -> tuple[float, float]:
    """(environment steps/s, steps/s with the policy's time included)."""
    env = CarcassonneVectorEnv(
        envs, opponents=[opponent], window=window, packed=packed, copy=False, layout=layout
    )
    obs, _ = env.reset(seed=1)
    in_env = total = 0.0
    steps = 0
    while total < seconds:
        start = time.perf_counter()
        actions = policy(env, obs)
        chosen = time.perf_counter()
        obs = env.step(actions)[0]
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


def fixed_steps(envs: int, window: int, packed: bool, layout: str, steps: int) -> None:
    """`steps` steps of the vector environment against random, random legal actions drawn in
    C++, untimed."""
    env = CarcassonneVectorEnv(
        envs, opponents=["random"], window=window, packed=packed, copy=False, layout=layout
    )
    env.reset(seed=1)
    for _ in range(steps):
        env.step(env.sample_legal())


# (layout, window, packed, opponent, policies) per row of the vector environment's table.
ROWS = [
    ("frontier", 16, True, "random", ("sample_legal", "argmax")),
    ("frontier", 32, True, "random", ("sample_legal", "argmax")),
    ("frontier", 32, False, "random", ("sample_legal", "argmax", "gymnasium")),
    ("window", 16, True, "random", ("sample_legal", "argmax")),
    ("window", 32, True, "random", ("sample_legal", "argmax")),
    ("window", 32, False, "random", ("sample_legal", "argmax", "gymnasium")),
    ("frontier", 32, True, "greedy", ("sample_legal",)),
]


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
    parser.add_argument("--layout", default="frontier", help="with --steps")
    parser.add_argument("--vector-only", action="store_true", help="only the vector environment's table")
    args = parser.parse_args()
    if args.steps is not None:
        fixed_steps(args.envs, args.window, args.packed, args.layout, args.steps)
        return
    print(f"CPU: {cpu()}, one thread, {args.envs} games, base game, 2 players")
    print(
        "| layout | window | planes | opponent | actions | env steps/s | with sample_legal (C++) | "
        "with argmax (numpy) | with Gymnasium's masked sample | observation + mask bytes |"
    )
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for layout, window, packed, opponent, policies in ROWS:
        env_rates: list[float] = []
        with_policy = []
        for name in POLICIES:
            if name not in policies:
                with_policy.append("")
                continue
            runs = [
                measure(args.envs, window, packed, opponent, args.seconds, layout, POLICIES[name])
                for _ in range(args.repeat)
            ]
            env_rates += [r[0] for r in runs]
            with_policy.append(spread([r[1] for r in runs]))
        probe = CarcassonneVectorEnv(1, opponents=[opponent], window=window, packed=packed, layout=layout)
        obs, _ = probe.reset(seed=0)
        size = sum(a.nbytes for a in obs.values())
        print(
            f"| {layout} | {window} | {'bit-packed' if packed else 'bytes'} | {opponent} | "
            f"{probe.num_actions:,} | {spread(env_rates)} | {' | '.join(with_policy)} | {size:,} |",
            flush=True,
        )
    if args.vector_only:
        return
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
