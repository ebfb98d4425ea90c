"""`python -m carcassonne train`, `value-train` and `value-serve`: the training loops' command lines
(learn/loop.py, learn/value_loop.py) and re-stamping a VALUE file (learn/value_file.py)."""

from __future__ import annotations

import argparse
from typing import Any

from .._common import variant_options
from ..mixes import DEFAULT_MIXES


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
        iterations=args.iterations,
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
        "--iterations",
        "--iters",  # the older name
        type=int,
        default=200,
        help="MCTS iterations per move (self-play and gating)",
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
    _add_value_parser(commands)
    _add_value_serve_parser(commands)


def _value_train(args: argparse.Namespace) -> int:
    try:
        from .value_loop import ALL_MIXES, ValueLoopConfig, run
    except ImportError as e:  # torch, matplotlib, tqdm: the `learn` extra
        from .. import Error

        raise Error(f"value-train needs the learn extra (pip install 'carcassonne[learn]'): {e}") from e
    config = ValueLoopConfig(
        players=tuple(int(n) for n in args.players.split(",")),
        expansions=tuple(e.strip() for e in args.expansions.split(",") if e.strip()),
        variants=variant_options(args.variant),
        mixes=ALL_MIXES
        if args.mixes == "all"
        else tuple(m for m in map(str.strip, args.mixes.split(",")) if m),
        generations=args.generations,
        deals=args.deals,
        later_deals=args.later_deals,
        iterations=args.iterations,
        replay=args.replay,
        epochs=args.epochs,
        every=args.every,
        search_weight=args.search_value,
        gate_deals=args.gate_deals,
        gate=args.gate,
        time=args.time,
        ladder=tuple(x for x in args.ladder.split(",") if x),
        ladder_deals=args.ladder_deals,
        rollout=args.rollout,
        seed=args.seed,
        threads=args.threads,
        start=args.start,
    )
    try:
        state = run(args.dir, config, progress=not args.quiet, address=args.address, best=args.best or None)
    except KeyboardInterrupt:
        print(f"interrupted: rerun the same command to continue the run in {args.dir}")
        return 130
    print(
        f"best value network: {state['best'] or 'none promoted yet'} (in {args.dir}; ladder.csv, ladder.png)"
    )
    return 0


def _add_value_parser(commands: Any) -> None:
    p = commands.add_parser(
        "value-train",
        help="train the search's learned value: generations of self-play, training, gating, the ladder "
        "(resumable: rerun to continue)",
    )
    p.add_argument("--dir", required=True, help="the run's folder (rerun with it to continue)")
    p.add_argument("--players", default="2", help="player counts, comma-separated; the first one is gated")
    p.add_argument("--expansions", default="", help="comma-separated")
    p.add_argument(
        "--variant", action="append", metavar="KEY=VALUE", help="a rule variant, e.g. start=city (repeatable)"
    )
    p.add_argument(
        "--mixes",
        default="",
        help="one network for every mix, from games of these mixes (comma-separated, of: "
        + ", ".join(m.name for m in DEFAULT_MIXES)
        + "; or 'all'); the gate and the ladder play the first",
    )
    p.add_argument("--generations", type=int, default=3)
    p.add_argument(
        "--deals", type=int, default=100, help="self-play deals per mix, player count and generation"
    )
    p.add_argument(
        "--later-deals",
        type=int,
        default=0,
        help="self-play deals per mix and player count from generation 2 on (default: --deals)",
    )
    p.add_argument(
        "--iterations", "--iters", type=int, default=300, help="self-play MCTS iterations per move"
    )
    p.add_argument("--replay", type=int, default=2, help="generations of games in the training window")
    p.add_argument("--epochs", type=int, default=20)
    p.add_argument("--every", type=int, default=2, help="keep every N-th position of a game")
    p.add_argument(
        "--search-value",
        type=float,
        default=0.0,
        metavar="W",
        help="targets: W x the self-play search's root estimates + (1 - W) x the final result (default 0)",
    )
    p.add_argument("--gate-deals", type=int, default=40, help="deals of the candidate-vs-best match")
    p.add_argument(
        "--gate",
        choices=["mean", "interval", "none"],
        default="mean",
        help="promote on a win share above the fair one, or on its 95%% interval above it; "
        "none: promote every candidate unplayed (each generation is the last one's self-play)",
    )
    p.add_argument("--time", type=float, default=0.05, help="seconds per move in the gate and the ladder")
    p.add_argument("--ladder", default="ref-2026-12,greedy", help="fixed references, comma-separated")
    p.add_argument("--ladder-deals", type=int, default=20)
    p.add_argument(
        "--rollout",
        choices=["cutoff", "none"],
        default="cutoff",
        help="the value at the rollout cutoff, or instead of rollouts",
    )
    p.add_argument("--seed", type=int, default=0)
    p.add_argument(
        "--start",
        default="",
        metavar="VALUE_FILE",
        help="a network to start from: the first self-play is its own, training starts from its weights "
        "(its .pt beside it, else the file's)",
    )
    p.add_argument(
        "--best",
        default="",
        metavar="VALUE_FILE",
        help="continue the run with this network as the best player from its next step on "
        "(e.g. the last candidate re-stamped by value-serve); kept in the run's folder",
    )
    p.add_argument("--threads", type=int, default=2, help="games at once (C++ threads)")
    p.add_argument(
        "--address", default=None, help="self-play on a Ray cluster: 'auto' or host:port of its head"
    )
    p.add_argument("--quiet", action="store_true", help="no progress bars")
    p.set_defaults(run=_value_train)


def _value_serve(args: argparse.Namespace) -> int:
    from .. import _core
    from .value_file import restamp

    path = restamp(
        args.file,
        args.out,
        [m.strip() for m in args.mixes.split(",") if m.strip()],
        None if args.players is None else [int(n) for n in args.players.split(",") if n.strip()],
        args.guess_share,
        args.guess_barns,
        None if args.blendby is None else args.blendby == "sample",
    )
    print(f"{path}: {_core.ValueNet(str(path)).describe()}")
    return 0


def _add_value_serve_parser(commands: Any) -> None:
    p = commands.add_parser(
        "value-serve",
        help="write a VALUE file's network with the mixes and player counts the search uses it for "
        "(its weights untouched)",
    )
    p.add_argument("file", help="the VALUE file (any format version)")
    p.add_argument(
        "--mixes",
        required=True,
        help="comma-separated, of: "
        + ", ".join(m.name for m in DEFAULT_MIXES)
        + " (or expansions joined by '+', e.g. abbey-mayor+city)",
    )
    p.add_argument("--players", default=None, help="player counts, comma-separated (default: the file's)")
    p.add_argument(
        "--guess-share",
        type=float,
        default=None,
        metavar="SHARE",
        help="the hand-made guess's share of its values at the search's cutoffs, in [0, 1): the share it was "
        "measured with (default: the file's)",
    )
    p.add_argument(
        "--guess-barns",
        type=float,
        default=None,
        metavar="WEIGHT",
        help="the weight of the barns in that guess (the search's barns=, which overrides it), in [0, 10] "
        "(default: the file's)",
    )
    p.add_argument(
        "--blendby",
        choices=("mean", "sample"),
        default=None,
        help="how that guess enters at a cutoff: mixed in by the shares' weighted mean, or drawn with "
        "the shares' chances (the search's blendby=, which overrides it; default: the file's)",
    )
    p.add_argument("--out", required=True, help="the file to write (may be FILE: it is replaced whole)")
    p.set_defaults(run=_value_serve)
