"""`python -m carcassonne balance run|report|merge`: the command line of the balance sweep. Nothing
here needs the `balance` extra until a command runs."""

from __future__ import annotations

import argparse
import contextlib
from collections.abc import Iterator
from typing import TYPE_CHECKING

from .. import _core
from .._core import Error, SearchError
from ..mixes import DEFAULT_MIXES, Mix

if TYPE_CHECKING:
    from .sweep import SweepSpec


def known_parts() -> str:
    """The parts a --mix may join, for its help and its errors."""
    variants = ", ".join(f"{v['name']}:{'|'.join(v['values'])}" for v in _core.known_variants())
    return (
        f"default mixes: {', '.join(m.name for m in DEFAULT_MIXES)}; "
        f"expansions: {', '.join(e['name'] for e in _core.known_expansions())}; variants: {variants}"
    )


def parse_mix(text: str) -> Mix:
    """A mix from the command line: "name=part+part+...", each part an expansion
    ("abbey-mayor"), a variant "key:value" ("start:river2") or a mix of the default sweep whose
    expansions and variants it adds ("river2" is start:river2). An unknown part, or parts that
    give one variant two values ("river2+city": two starts), is refused; rules that do not go
    together otherwise are refused by the spec's check (ConfigError)."""
    known = {m.name: m for m in DEFAULT_MIXES}
    expansions_known = {e["name"] for e in _core.known_expansions()}
    values_known = {v["name"]: list(v["values"]) for v in _core.known_variants()}
    name, sep, parts = text.partition("=")
    name = name.strip()
    if not sep or not name or not parts.strip():
        raise SearchError(f"--mix takes name=part+part, e.g. my-mix=abbey-mayor+river2; not '{text}'")
    expansions: list[str] = []
    variants: dict[str, tuple[str, str]] = {}  # key: (value, the part that set it)
    for part in (p.strip() for p in parts.split("+")):
        if not part:
            raise SearchError(f"--mix {text}: an empty part between '+'")
        if part in known:
            expansions += known[part].expansions
            given = list(known[part].variants)
        elif ":" in part:
            key, _, value = (x.strip() for x in part.partition(":"))
            if value not in values_known.get(key, []):
                raise SearchError(f"--mix {text}: unknown part '{part}' ({known_parts()})")
            given = [(key, value)]
        elif part in expansions_known:
            expansions.append(part)
            given = []
        else:
            raise SearchError(f"--mix {text}: unknown part '{part}' ({known_parts()})")
        for key, value in given:
            before = variants.get(key)
            if before is not None and before[0] != value:
                raise SearchError(
                    f"--mix {text}: '{before[1]}' sets {key}:{before[0]} and '{part}' sets {key}:{value}; "
                    f"a mix takes one value of each variant ({known_parts()})"
                )
            variants[key] = (value, part)
    return Mix(
        name, tuple(dict.fromkeys(expansions)), tuple(sorted((k, v) for k, (v, _) in variants.items()))
    )


def _spec(args: argparse.Namespace) -> SweepSpec:
    from .sweep import SweepSpec

    known = {m.name: m for m in DEFAULT_MIXES}
    custom = [parse_mix(text) for text in args.mix or ()]
    if args.mixes:
        names = [n.strip() for n in args.mixes.split(",") if n.strip()]
    else:  # custom mixes are compared with base; without them, the default sweep's mixes
        names = ["base"] if custom else list(known)
    unknown = [n for n in names if n not in known]
    if unknown:
        raise SearchError(f"unknown mix(es) {unknown} (known: {', '.join(known)}; or define one with --mix)")
    deals = []
    for item in args.deals.split(","):
        lineup, _, count = item.partition("=")
        if not count.strip().isdigit():
            raise SearchError(f"--deals takes lineup=count items, e.g. greedy=200,mcts=20; not '{item}'")
        if int(count) < 1:
            raise SearchError(f"--deals: {item} plays no games; leave the line-up out instead")
        deals.append((lineup.strip(), int(count)))
    try:
        players = tuple(int(p) for p in args.players.split(","))
    except ValueError:
        raise SearchError(f"--players takes a comma-separated list of counts, not '{args.players}'") from None
    return SweepSpec(
        mixes=(*(known[n] for n in names), *custom),
        players=players,
        deals=tuple(deals),
        mcts=args.mcts,
        chunk_deals=args.chunk_deals,
        seed=args.seed,
        agent_seed=args.agent_seed,
        allow_nondeterministic=args.allow_nondeterministic,
    )


@contextlib.contextmanager
def _extras(command: str) -> Iterator[None]:
    """Turns a missing optional package into an error that says how to install it."""
    try:
        yield
    except ImportError as e:
        raise Error(f"{command} needs the balance extras (pip install 'carcassonne[balance]'): {e}") from e


def _run(args: argparse.Namespace) -> int:
    with _extras("balance"):
        from .sweep import run_sweep
    try:
        folder = run_sweep(
            args.out, _spec(args), resume=args.resume, threads=args.threads, address=args.address
        )  # type: ignore[arg-type]
    except KeyboardInterrupt:
        print(f"\nstopped; the finished chunks are in {args.out}: the same command with --resume continues")
        return 130
    print(f"sweep written to {folder}")
    return 0


def _report(args: argparse.Namespace) -> int:
    with _extras("balance report"):
        from .report import write_report
    page = write_report(args.sweep, args.out)
    print(f"report written to {page}")
    return 0


def _merge(args: argparse.Namespace) -> int:
    with _extras("balance merge"):
        from .sweep import merge_sweep

    print(f"rows written to {merge_sweep(args.sweeps, args.out, force=args.force)}")
    return 0


def _compensate(args: argparse.Namespace) -> int:
    with _extras("balance compensate"):
        from .compensate import check_compensation
    try:
        check = check_compensation(
            args.sweep, args.mix, args.players, args.lineup, args.points, args.deals, args.seed
        )
    except KeyboardInterrupt:
        print("\nstopped before a chunk of deals was played: nothing to show")
        return 130
    print(check.text())
    return 130 if check.deals < check.asked else 0  # stopped by Ctrl-C


def add_parser(commands: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    balance = commands.add_parser("balance", help="balance sweeps of rule mixes and their report")
    sub = balance.add_subparsers(dest="balance_command", required=True)
    run = sub.add_parser("run", help="play a sweep (mixes x players x line-ups) into a parquet folder")
    run.add_argument("out", help="the parquet folder (a dataset of one part file per chunk)")
    run.add_argument(
        "--mixes",
        default="",
        help="comma-separated names of the default sweep's mixes: "
        f"{', '.join(m.name for m in DEFAULT_MIXES)} (default: all of them; with --mix: base)",
    )
    run.add_argument(
        "--mix",
        action="append",
        metavar="NAME=PART+PART",
        help="a mix of your own, compared with base (repeatable): expansions, variants key:value or "
        "default mixes joined by '+', e.g. my-mix=abbey-mayor+river2 or big=everything+shrines; "
        "a variant takes one value (river2+city is refused). Parts: " + known_parts().replace("%", "%%"),
    )
    run.add_argument("--players", default="2,3,4", help="comma-separated player counts")
    run.add_argument(
        "--deals",
        default="greedy=200,mcts=192,mcts+greedy=160",
        help="deals per line-up (greedy, mcts, mcts+greedy, mcts@N: all MCTS at N iterations a move, "
        "rollout@N: the same search on rollouts alone, no network; A+B: one bot A among bots B); "
        "each deal is played from every seat rotation",
    )
    run.add_argument(
        "--mcts",
        default="mcts:iters=100,memory=64",
        help="the MCTS agent of the line-ups mcts and mcts@N (an 'mcts:...' spec with an iteration "
        "budget); rollout and rollout@N play it without its networks (eval=greedy)",
    )
    run.add_argument("--chunk-deals", type=int, default=8, help="deals per chunk (a part file, a Ray task)")
    run.add_argument("--seed", type=int, default=1, help="picks the decks")
    run.add_argument("--agent-seed", type=int, default=1)
    run.add_argument("--threads", type=int, default=1, help="games at once, locally (0: all cores)")
    run.add_argument("--address", default=None, help="a Ray cluster to run on ('auto' or host:port)")
    run.add_argument("--resume", action="store_true", help="continue a stopped sweep in OUT")
    run.add_argument(
        "--allow-nondeterministic",
        action="store_true",
        help="accept MCTS agents with a time budget (time=) or several search threads (threads=): "
        "their games depend on the machine's speed and load, so a rerun gives other rows; the spec "
        "records it",
    )
    run.set_defaults(run=_run)
    report = sub.add_parser("report", help="write the HTML report of a sweep")
    report.add_argument("sweep", help="the sweep's parquet folder, or one parquet file of its rows")
    report.add_argument("--out", default=None, help="the report's folder (default: SWEEP-report next to it)")
    report.set_defaults(run=_report)
    merge = sub.add_parser("merge", help="write the rows of one or more sweeps into one parquet file")
    merge.add_argument("sweeps", nargs="+", help="sweep folders (or parquet files of rows)")
    merge.add_argument("out", help="the parquet file to write")
    merge.add_argument("--force", action="store_true", help="replace OUT if it exists")
    merge.set_defaults(run=_merge)
    check = sub.add_parser(
        "compensate",
        help="play a cell of a sweep again with starting points per seat and compare each seat's "
        "win rate with the fair share",
    )
    check.add_argument("sweep", help="the sweep's parquet folder (or a merged file of its rows)")
    check.add_argument("--mix", required=True, help="the cell's mix (a mix name of the sweep)")
    check.add_argument("--players", type=int, required=True, help="the cell's player count")
    check.add_argument(
        "--lineup", default=None, help="a line-up of identical bots (default: the sweep's first)"
    )
    check.add_argument(
        "--points",
        default=None,
        help="points per seat, e.g. 0,3,5 (default: the report's compensation, rounded to whole points)",
    )
    check.add_argument(
        "--deals", type=int, default=None, help="fresh deals to play (default: as many as the cell has)"
    )
    check.add_argument("--seed", type=int, default=None, help="picks the decks (default: the sweep's)")
    check.set_defaults(run=_compensate)
