"""Command line: `python -m carcassonne selfplay ...`, `... bench ...`, `... arena ...`,
`... serve` (the play server), `... balance run|report` (balance sweeps) and `... train` (a
policy/value network)."""

from __future__ import annotations

import argparse
import ipaddress
import sys
import time
from collections.abc import Sequence

from . import _core, arena, play_game, play_random_games
from ._common import variant_options
from ._core import Error
from .balance.cli import add_parser as _add_balance_parser
from .learn.cli import add_parser as _add_learn_parser
from .play.hosts import allowed_name


def _selfplay(args: argparse.Namespace) -> int:
    agents = _core.split_agent_list(args.agents)  # "mcts:iters=100,c=1,greedy": two agents
    seats = args.players
    totals: dict[str, list[float]] = {name: [0.0, 0.0, 0.0] for name in agents}  # points, wins, seats
    for g in range(args.games):
        # Rotate the agents over the seats from game to game, so no agent always moves first.
        lineup = [agents[(g + s) % len(agents)] for s in range(seats)]
        result = play_game(lineup, players=seats, seed=args.seed + g, agent_seed=args.seed + g)
        best = max(result.scores)
        winners = [s for s in range(seats) if result.scores[s] == best]
        cells = ", ".join(f"{lineup[s]} {result.scores[s]}" for s in range(seats))
        print(f"game {g} (seed {args.seed + g}): {cells}; winner: {' & '.join(lineup[s] for s in winners)}")
        for s in range(seats):
            t = totals[lineup[s]]
            t[0] += result.scores[s]
            t[1] += 1.0 / len(winners) if s in winners else 0.0
            t[2] += 1
    if args.games:
        print("agent      seats  mean score  win share")
        for name, (points, wins, played) in totals.items():
            if played:
                print(f"{name:<10} {int(played):>5}  {points / played:>10.1f}  {wins / played:>9.3f}")
    return 0


def _bench(args: argparse.Namespace) -> int:
    start = time.perf_counter()
    results = play_random_games(args.games, players=args.players, seed=args.seed, threads=args.threads)
    elapsed = time.perf_counter() - start
    decisions = sum(r.decisions for r in results)
    threads = args.threads or "all cores"
    print(
        f"{args.games} random games ({args.players} players, threads: {threads}) in {elapsed:.3f} s: "
        f"{args.games / elapsed:.1f} games/s, {decisions / elapsed:.0f} decisions/s"
    )
    return 0


def _arena(args: argparse.Namespace) -> int:
    result = arena(
        [agent for arg in args.agents for agent in _core.split_agent_list(arg)],
        deals=args.deals,
        players=args.players,
        expansions=[e.strip() for e in args.expansions.split(",") if e.strip()],
        variants=variant_options(args.variant),
        seed=args.seed,
        threads=args.threads,
        paired=not args.unpaired,
        rotation=args.rotation,
        agent_seed=args.agent_seed,
        csv=args.csv,
        resume=args.resume,
        sprt=args.sprt,
    )
    print(result.report(), end="")
    return 0


def _serve(args: argparse.Namespace) -> int:
    try:
        from .play.server import serve
    except ImportError as e:  # fastapi/uvicorn are the `play` extra
        raise Error(f"serve needs fastapi and uvicorn (pip install 'carcassonne[play]'): {e}") from e
    # Unset: the server's own limits; 0: none.
    limits = {
        name: (value or None)
        for name, value in (("client_streams", args.client_streams), ("client_rate", args.client_rate))
        if value is not None
    }
    serve(
        args.host,
        args.port,
        args.data,
        **limits,
        allowed_hosts=args.allowed_host,
        forwarded_allow_ips=args.forwarded_allow_ips,
    )
    return 0


def _host_name(text: str) -> str:
    try:
        return allowed_name(text)
    except ValueError as e:
        raise argparse.ArgumentTypeError(str(e)) from None


def _proxy_addresses(text: str) -> str:
    if text.strip() == "*":
        return "*"
    for address in text.split(","):
        try:
            ipaddress.ip_network(address.strip(), strict=False)
        except ValueError:
            raise argparse.ArgumentTypeError(
                f"{address.strip()!r} is not an IP address or network (e.g. 127.0.0.1,10.0.0.0/8)"
            ) from None
    return text


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="carcassonne", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)

    selfplay = commands.add_parser("selfplay", help="play games between agents and print the scores")
    selfplay.add_argument("--games", type=int, default=4)
    selfplay.add_argument(
        "--agents", default="greedy,random", help="comma-separated: random, greedy, mcts[:key=value,...]"
    )
    selfplay.add_argument("--players", type=int, default=2)
    selfplay.add_argument("--seed", type=int, default=0)
    selfplay.set_defaults(run=_selfplay)

    bench = commands.add_parser("bench", help="measure random games per second")
    bench.add_argument("--games", type=int, default=2000)
    bench.add_argument("--players", type=int, default=2)
    bench.add_argument("--threads", type=int, default=0, help="0: all cores")
    bench.add_argument("--seed", type=int, default=0)
    bench.set_defaults(run=_bench)

    games = commands.add_parser(
        "arena", help="play many games between agents; print win rates (95%% CIs), margins and Elo"
    )
    games.add_argument(
        "agents", nargs="+", help="one per seat (or comma-separated): random, greedy, mcts[:key=value,...]"
    )
    games.add_argument("--deals", type=int, default=10, help="decks, each played once per seat rotation")
    games.add_argument("--players", type=int, default=None, help="default: the number of agents")
    games.add_argument("--expansions", default="", help="comma-separated")
    games.add_argument(
        "--variant", action="append", metavar="KEY=VALUE", help="a rule variant, e.g. start=city (repeatable)"
    )
    games.add_argument("--threads", type=int, default=0, help="games at once (0: all cores)")
    games.add_argument("--seed", type=int, default=0, help="picks the decks")
    games.add_argument("--agent-seed", type=int, default=1)
    games.add_argument("--unpaired", action="store_true", help="one game per deck")
    games.add_argument(
        "--rotation", type=int, default=None, help="one game per deck; seat s holds agent (s + R) %% players"
    )
    games.add_argument("--csv", default=None, help="write one line per game and seat here, as games finish")
    games.add_argument(
        "--resume",
        action="store_true",
        help="with --csv: keep the games the file holds (no file yet: start it)",
    )
    games.add_argument(
        "--sprt",
        default=None,
        metavar="elo0=0,elo1=20",
        help="2 players: stop once a sequential test decides if agent 0 is elo1 stronger (deals: the most)",
    )
    games.set_defaults(run=_arena)

    server = commands.add_parser("serve", help="play against the computer in the browser")
    server.add_argument(
        "--host", default="127.0.0.1", help="0.0.0.0: reachable from the local network (friends' seats)"
    )
    server.add_argument("--port", type=int, default=8000)
    server.add_argument("--data", default="carcassonne-data", help="folder for the saved games")
    server.add_argument(
        "--client-streams",
        type=int,
        default=None,
        help="open event streams per client address (16; 0: no limit)",
    )
    server.add_argument(
        "--client-rate",
        type=float,
        default=None,
        help="API requests a second per client address (40; 0: no limit)",
    )
    server.add_argument(
        "--allowed-host",
        action="append",
        default=[],
        type=_host_name,
        metavar="NAME",
        help="a name the page may be opened by, besides 127.0.0.1, localhost, [::1] and --host"
        " (repeatable); other names in the Host header are refused",
    )
    server.add_argument(
        "--forwarded-allow-ips",
        default=None,
        type=_proxy_addresses,
        metavar="IPS",
        help="comma-separated addresses or networks of reverse proxies whose X-Forwarded-For"
        " header names the client (default: none is trusted; * trusts any)",
    )
    server.set_defaults(run=_serve)

    _add_balance_parser(commands)
    _add_learn_parser(commands)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    try:
        status: int = args.run(args)
    except ValueError as e:  # carcassonne.Error and bad option values: a message, not a traceback
        print(f"error: {e}", file=sys.stderr)
        return 2
    return status


if __name__ == "__main__":
    sys.exit(main())
