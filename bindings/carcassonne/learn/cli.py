"""`python -m carcassonne train`: the training loop's command line (learn/loop.py)."""

from __future__ import annotations

import argparse
from typing import Any

from .._common import variant_options


def _train(args: argparse.Namespace) -> int:
    try:
        from .loop import TrainConfig, run
    except ImportError as e:  # torch, matplotlib, tqdm: the `learn` extra
        from .. import Error

        raise Error(f"train needs the learn extra (pip install 'carcassonne[learn]'): {e}") from e
    config = TrainConfig(
        players=args.players,
        expansions=tuple(e.strip() for e in args.expansions.split(",") if e.strip()),
        variants=variant_options(args.variant),
        generations=args.generations,
        games=args.games,
        iters=args.iters,
        epochs=args.epochs,
        batch=args.batch,
        lr=args.lr,
        replay=args.replay,
        gate_games=args.gate_games,
        channels=(args.channels[0], args.channels[1], args.channels[2]),
        hidden=args.hidden,
        seed=args.seed,
        threads=args.threads,
        search_weight=args.search_value,
    )
    try:
        state = run(args.dir, config, progress=not args.quiet, address=args.address)
    except KeyboardInterrupt:
        print(f"interrupted: rerun the same command to continue the run in {args.dir}")
        return 130
    print(f"best network: {state['best']} (in {args.dir}; log.csv, training.png)")
    return 0


def add_parser(commands: Any) -> None:
    train = commands.add_parser(
        "train",
        help="train a policy/value network: self-play, training, gating (resumable: rerun to continue)",
    )
    train.add_argument("--dir", required=True, help="the run's folder (rerun with it to continue)")
    train.add_argument("--players", type=int, default=2)
    train.add_argument("--expansions", default="", help="comma-separated")
    train.add_argument(
        "--variant", action="append", metavar="KEY=VALUE", help="a rule variant, e.g. start=city (repeatable)"
    )
    train.add_argument("--generations", type=int, default=3)
    train.add_argument(
        "--games", type=int, default=100, help="deals of self-play per generation (x seat rotations)"
    )
    train.add_argument(
        "--iters", type=int, default=200, help="MCTS iterations per move (self-play and gating)"
    )
    train.add_argument("--epochs", type=int, default=4)
    train.add_argument("--batch", type=int, default=128)
    train.add_argument("--lr", type=float, default=2e-3)
    train.add_argument("--replay", type=int, default=3, help="generations of games in the training window")
    train.add_argument("--gate-games", type=int, default=20, help="deals of the candidate-vs-best match")
    train.add_argument("--channels", type=int, nargs=3, default=[16, 16, 32], metavar="C")
    train.add_argument("--hidden", type=int, default=64)
    train.add_argument("--seed", type=int, default=0)
    train.add_argument("--threads", type=int, default=1, help="games at once (C++ threads)")
    train.add_argument(
        "--search-value",
        type=float,
        default=0.0,
        metavar="W",
        help="value targets: W x the search's root estimates + (1 - W) x the final result (default 0)",
    )
    train.add_argument(
        "--address",
        default=None,
        help="self-play on a Ray cluster's actors: 'auto' or host:port of its head "
        "(the workers need this package; network files are shipped)",
    )
    train.add_argument("--quiet", action="store_true", help="no progress bars")
    train.set_defaults(run=_train)
