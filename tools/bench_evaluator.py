"""Search iterations per second with a Python evaluator (Mcts(config, evaluator=fn)) at several
batch sizes: small PyTorch models (an MLP over the globals, a small convolution over the planes)
and a numpy constant (the cost of the batching and the call itself), against the built-in
rollouts. Each figure is the median over positions and repeats; a progress line shows how far
it is (Ctrl-C stops it; a run takes a minute or two).

    python tools/bench_evaluator.py --batches 1 16 64 --iterations 512 --positions 4 --repeat 3

With --games G it compares instead, for each evaluator and batch size B, G searches one after
another (Mcts, B leaves a call) with search_many over the G positions (one call values B leaves
of every search): iterations per second of all searches together and leaves per call.

    python tools/bench_evaluator.py --games 64 --batches 1 4 --iterations 128
"""

from __future__ import annotations

import argparse
import platform
import statistics
import sys
import time
from collections.abc import Callable
from typing import Any

import numpy as np
import torch

from carcassonne import Game, LeafBatch, Mcts, choose_action, mcts_config, rl, search_many


def cpu() -> str:
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown CPU"


def positions(count: int) -> list[Any]:
    """Tile placements 10 to 40 turns into greedy games, with several legal placements (a
    mid-game tree, not the first move)."""
    out = []
    for seed in range(count):
        game = Game(players=2, seed=seed)
        while not game.is_terminal and len(out) <= seed:
            if game.is_chance:
                game.apply_random_chance()
                continue
            if (
                game.turn_number >= 10 + 10 * (seed % 4)
                and game.phase == "place_tile"
                and len(game.legal_actions()) > 1
            ):
                out.append(game.core_state())
                break
            game.apply(choose_action(game, "greedy", seed))
    return out


class GlobalsMlp(torch.nn.Module):
    """Two layers over the globals: values for both seats."""

    def __init__(self, globals_: int, players: int) -> None:
        super().__init__()
        self.net = torch.nn.Sequential(
            torch.nn.Linear(globals_, 128), torch.nn.ReLU(), torch.nn.Linear(128, players)
        )

    def forward(self, planes: torch.Tensor, globals_: torch.Tensor) -> torch.Tensor:
        return self.net(globals_).softmax(-1)


class SmallConv(torch.nn.Module):
    """Two 3x3 convolutions (16 channels) over the planes, pooled, plus the globals: values."""

    def __init__(self, planes: int, globals_: int, players: int) -> None:
        super().__init__()
        self.conv = torch.nn.Sequential(
            torch.nn.Conv2d(planes, 16, 3, padding=1),
            torch.nn.ReLU(),
            torch.nn.Conv2d(16, 16, 3, padding=1),
            torch.nn.ReLU(),
            torch.nn.AdaptiveAvgPool2d(1),
            torch.nn.Flatten(),
        )
        self.head = torch.nn.Linear(16 + globals_, players)

    def forward(self, planes: torch.Tensor, globals_: torch.Tensor) -> torch.Tensor:
        return self.head(torch.cat([self.conv(planes), globals_], 1)).softmax(-1)


def torch_evaluator(model: torch.nn.Module, clock: list[float]) -> Callable[[LeafBatch], Any]:
    model.eval()

    def fn(batch: LeafBatch) -> Any:
        start = time.perf_counter()
        with torch.inference_mode():
            planes = torch.from_numpy(batch.planes).float()
            values = model(planes, torch.from_numpy(batch.globals)).numpy()
        clock[0] += time.perf_counter() - start
        return values

    return fn


def constant_evaluator(clock: list[float]) -> Callable[[LeafBatch], Any]:
    def fn(batch: LeafBatch) -> Any:
        start = time.perf_counter()
        values = np.full((len(batch), batch.players), 0.5, dtype=np.float32)
        clock[0] += time.perf_counter() - start
        return values

    return fn


def compare_many(evaluators: dict[str, Callable[[LeafBatch], Any]], args: Any) -> None:
    """Prints the --games table: each evaluator and batch size, one search at a time against
    search_many, both over the same positions and seeds."""
    states = positions(args.games)
    config = mcts_config(iterations=args.iterations, reuse=False, eval="greedy", memory=64)
    seeds = list(range(len(states)))
    print(
        f"{cpu()}, {time.strftime('%Y-%m-%d')}, torch threads {args.torch_threads}, "
        f"{args.iterations} iterations a search, {len(states)} games"
    )
    header = [
        "evaluator",
        "batch",
        "one by one: iterations/s",
        "leaves a call",
        "search_many: iterations/s",
        "leaves a call",
    ]
    print("| " + " | ".join(header) + " |")
    print("| --- | --- | --- | --- | --- | --- |")
    for name, fn in evaluators.items():
        for batch in args.batches:
            start = time.perf_counter()
            one = [
                Mcts(config, evaluator=fn, batch_size=batch).search(s, seed)
                for s, seed in zip(states, seeds, strict=True)
            ]
            one_seconds = time.perf_counter() - start
            one_leaves = sum(r.evaluator_leaves for r in one) / sum(r.evaluator_calls for r in one)
            start = time.perf_counter()
            many = search_many(states, config, fn, batch_size=batch, seeds=seeds)
            many_seconds = time.perf_counter() - start
            longest = max(many, key=lambda r: r.evaluator_calls)  # in every call
            many_leaves = longest.evaluator_leaves / longest.evaluator_calls
            one_rate = sum(r.iterations for r in one) / one_seconds
            many_rate = sum(r.iterations for r in many) / many_seconds
            row = [
                name,
                str(batch),
                f"{one_rate:,.0f}",
                f"{one_leaves:.0f}",
                f"{many_rate:,.0f}",
                f"{many_leaves:.0f}",
            ]
            print("| " + " | ".join(row) + " |", flush=True)


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--batches", type=int, nargs="+", default=[1, 16, 64])
    parser.add_argument("--iterations", type=int, default=512, help="iterations per search")
    parser.add_argument("--positions", type=int, default=4)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--torch-threads", type=int, default=1)
    parser.add_argument("--games", type=int, default=0, help="compare search_many over this many games")
    args = parser.parse_args()
    if args.games < 0 or min(args.batches) < 1 or args.iterations < 1:
        parser.error("--games must be >= 0, --batches and --iterations >= 1")
    torch.set_num_threads(args.torch_threads)
    torch.manual_seed(0)
    states = positions(args.positions)
    enc = rl.encoder(2)
    clock = [0.0]
    evaluators: dict[str, Callable[[LeafBatch], Any]] = {
        "numpy constant": constant_evaluator(clock),
        "torch MLP over the globals": torch_evaluator(GlobalsMlp(enc.num_globals, 2), clock),
        "torch conv over the planes": torch_evaluator(SmallConv(enc.num_planes, enc.num_globals, 2), clock),
    }
    if args.games:
        compare_many(evaluators, args)
        return 0
    runs = [(name, b) for name in evaluators for b in args.batches]
    total = (len(runs) + 1) * len(states) * args.repeat
    done = 0
    started = time.perf_counter()

    def progress(label: str) -> None:
        elapsed = time.perf_counter() - started
        eta = elapsed / done * (total - done) if done else 0.0
        bar = "#" * (30 * done // total)
        print(
            f"\r[{bar:<30}] {done}/{total} searches, ETA {eta:4.0f} s  {label:<40}", end="", file=sys.stderr
        )

    def measure(make: Callable[[], Mcts], label: str) -> tuple[float, float]:
        """(median iterations/s, median share of the search's time spent in the evaluator)."""
        nonlocal done
        rates, shares = [], []
        for state in states:
            for r in range(args.repeat):
                progress(label)
                clock[0] = 0.0
                result = make().search(state, r)
                rates.append(result.iterations / result.seconds)
                shares.append(clock[0] / result.seconds)
                done += 1
        return statistics.median(rates), statistics.median(shares)

    table = []
    config = mcts_config(iterations=args.iterations, reuse=False, eval="greedy")
    rollout_rate, _ = measure(lambda: Mcts(config), "built-in rollouts")
    table.append(("built-in rollouts (eval=greedy)", "-", rollout_rate, 0.0))
    for name, batch in runs:
        fn = evaluators[name]
        rate, share = measure(
            lambda fn=fn, batch=batch: Mcts(config, evaluator=fn, batch_size=batch), f"{name}, batch {batch}"
        )
        table.append((name, str(batch), rate, share))
    print(file=sys.stderr)
    print(
        f"{cpu()}, {time.strftime('%Y-%m-%d')}, torch threads {args.torch_threads}, "
        f"{args.iterations} iterations a search, {len(states)} positions x {args.repeat}"
    )
    print("| evaluator | batch | iterations/s | time in the evaluator |")
    print("| --- | --- | --- | --- |")
    for name, batch, rate, share in table:
        share_text = "-" if batch == "-" else f"{share:.0%}"
        print(f"| {name} | {batch} | {rate:,.0f} | {share_text} |")
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except KeyboardInterrupt:
        print("\ninterrupted", file=sys.stderr)
        sys.exit(130)
