"""One value network of several mixes' games, two generations (docs/value.md, "Two players: one
network of several mixes' games").

Generation 1 trains a network of every mix (81 inputs) on games of the rollout search in each
mix; generation 2 is that network's own self-play in each mix, and training again from its
weights on both generations' games. Each step's file is kept in the folder and skipped when it
is there, so a rerun after Ctrl-C continues.

    python experiments/pooled_value.py runs/pool --mixes base,city,abbey-mayor \
        --deals 3000 --deals2 1000 --seed 7759
"""

from __future__ import annotations

import argparse
from pathlib import Path

import torch

from carcassonne.learn.value import EVERY_MIX, EVERY_MIX_INPUTS, ValueMLP, export, fit, load_value_samples
from carcassonne.mixes import find_mix
from carcassonne.rl.trajectories import write_trajectories


def self_play(out: Path, agent: str, mix: str, deals: int, seed: int, threads: int) -> Path:
    if not out.exists():
        m = find_mix(mix)
        write_trajectories(
            out,
            agents=[agent] * 2,
            deals=deals,
            players=2,
            expansions=list(m.expansions),
            variants=dict(m.variants),
            seed=seed,
            agent_seed=seed + 500,
            threads=threads,
            chunk_deals=max(1, deals // 20),
        )
    return out


def train(out: Path, files: list[Path], start: ValueMLP, seed: int) -> Path:
    if not out.exists():
        samples = load_value_samples(files, every=2, progress=True, search_weight=1.0)
        model, report = fit(samples, start, epochs=15, seed=seed, progress=True)
        print(out.name, report)
        export(model, out, EVERY_MIX, [2])
        torch.save(model.state_dict(), out.with_suffix(".pt"))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("dir")
    parser.add_argument("--mixes", default="base,city,abbey-mayor")
    parser.add_argument("--deals", type=int, default=3000, help="deals of the rollout search a mix")
    parser.add_argument("--deals2", type=int, default=1000, help="deals of generation 1's self-play a mix")
    parser.add_argument("--iterations", type=int, default=400)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--threads", type=int, default=2)
    args = parser.parse_args()
    folder = Path(args.dir)
    folder.mkdir(parents=True, exist_ok=True)
    mixes = args.mixes.split(",")
    budget = f"mcts:iters={args.iterations},memory=64"
    first = [
        self_play(
            folder / f"games-1-{mix}.npz",
            f"{budget},eval=greedy",
            mix,
            args.deals,
            args.seed * 1000 + k,
            args.threads,
        )
        for k, mix in enumerate(mixes)
    ]
    gen1 = train(folder / "generation-1.value", first, ValueMLP(inputs=EVERY_MIX_INPUTS), args.seed)
    agent = f"{budget},eval=value,value={gen1}"
    second = [
        self_play(
            folder / f"games-2-{mix}.npz", agent, mix, args.deals2, args.seed * 1000 + 100 + k, args.threads
        )
        for k, mix in enumerate(mixes)
    ]
    start = ValueMLP.from_state_dict(torch.load(gen1.with_suffix(".pt")))
    train(folder / "generation-2.value", first + second, start, args.seed + 1)


if __name__ == "__main__":
    main()
