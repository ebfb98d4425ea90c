"""Load test of the play server on loopback (a benchmark, not a test): starts
`python -m carcassonne serve` on a free port, keeps GAMES bot-only games thinking (medium bots,
MCTS 3,000 iterations a move), and meanwhile measures
  - the latency of state requests (GET /api/games/{id}) from a few client threads, and
  - the time from a human's move (POST .../actions) to the easy bot's answer being visible.
Prints p50 / p99 of both. Usage: python tools/play_load.py [--games 20] [--seconds 20]

With --friends: GAMES games between two remote seats instead, each seat following its game's
event stream as the page does; each move is made with its seat's token, and the tool measures
  - the move's latency (POST .../actions until its answer), and
  - the event's delivery (from the move's POST until the other seat's stream tells of it).
All clients share one address, so the server runs without its per-client limits (both modes).
"""

from __future__ import annotations

import argparse
import json
import queue
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from typing import Any


def request(url: str, method: str = "GET", body: Any = None, headers: dict[str, str] | None = None) -> Any:
    data = None if body is None else json.dumps(body).encode()
    headers = {**({"Content-Type": "application/json"} if data else {}), **(headers or {})}
    with urllib.request.urlopen(urllib.request.Request(url, data, headers, method=method), timeout=60) as r:
        return json.load(r)


def percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(p / 100 * len(ordered)))]


def report(name: str, values: list[float]) -> None:
    print(
        f"{name}: n={len(values)}, p50 {1000 * statistics.median(values):.1f} ms, "
        f"p99 {1000 * percentile(values, 99):.1f} ms"
    )


def first_action(state: dict[str, Any]) -> str:
    legal = state["legal"]
    choices = [a for c in legal["placements"] for a in c["rotations"].values()]
    return (choices or [c["action"] for c in legal["choices"]])[0]


def follow_events(url: str, received: queue.Queue[tuple[float, int]]) -> None:
    """Reads a game's event stream until the server goes: (arrival time, moves) of each state."""
    try:
        with urllib.request.urlopen(url, timeout=600) as stream:
            for line in stream:
                if line.startswith(b"data: "):
                    received.put((time.perf_counter(), json.loads(line[6:])["moves"]))
    except OSError:
        pass  # the server was stopped


def friends_load(url: str, games: int, seconds: float) -> None:
    """`games` games of two remote seats played at once, each seat following the event stream."""
    deadline = time.monotonic() + seconds
    move_latency: list[float] = []
    delivery: list[float] = []
    remote = {"kind": "remote"}

    def play(seed: int) -> None:
        game = request(f"{url}/api/games", "POST", {"seats": [remote, remote], "seed": seed})
        tokens = {i["seat"]: i["token"] for i in game["invites"]}
        streams: dict[int, queue.Queue[tuple[float, int]]] = {0: queue.Queue(), 1: queue.Queue()}
        for seat in (0, 1):
            events = f"{url}/api/games/{game['id']}/events"
            threading.Thread(target=follow_events, args=(events, streams[seat]), daemon=True).start()
            streams[seat].get(timeout=10)  # the stream is open: its first event came
        while time.monotonic() < deadline and not game["terminal"]:
            seat = game["current_player"]
            start = time.perf_counter()
            game = request(
                f"{url}/api/games/{game['id']}/actions",
                "POST",
                {"action": first_action(game)},
                {"X-Seat-Token": tokens[seat]},
            )
            move_latency.append(time.perf_counter() - start)
            while True:  # the other seat's page hears of it
                arrived, moves = streams[1 - seat].get(timeout=30)
                if moves >= game["moves"]:
                    delivery.append(arrived - start)
                    break

    threads = [threading.Thread(target=play, args=(seed,)) for seed in range(games)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    print(f"{games} games between two remote seats at once, {seconds:g} s: {len(move_latency)} moves")
    report("move (POST .../actions)", move_latency)
    report("event delivered to the other seat (from the move's POST)", delivery)


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--games", type=int, default=20, help="bot-only games thinking meanwhile")
    parser.add_argument("--seconds", type=float, default=20)
    parser.add_argument("--friends", action="store_true", help="games between remote seats (see above)")
    args = parser.parse_args()

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    url = f"http://127.0.0.1:{port}"
    data = tempfile.mkdtemp(prefix="carc-load-")
    # Every client here has the same address: no per-client limits.
    command = [sys.executable, "-m", "carcassonne", "serve", "--port", str(port), "--data", data]
    command += ["--client-streams", "0", "--client-rate", "0"]
    server = subprocess.Popen(command, stdout=subprocess.DEVNULL)
    try:
        for _ in range(200):
            try:
                request(f"{url}/api/options")
                break
            except OSError:
                time.sleep(0.1)
        if args.friends:
            friends_load(url, args.games, args.seconds)
            return 0
        medium = {"kind": "bot", "level": "medium"}
        busy = [
            request(f"{url}/api/games", "POST", {"seats": [medium, medium], "seed": i})["id"]
            for i in range(args.games)
        ]
        deadline = time.monotonic() + args.seconds
        state_latency: list[float] = []
        reply_latency: list[float] = []

        def poll_states(worker: int) -> None:
            i = worker
            while time.monotonic() < deadline:
                start = time.perf_counter()
                request(f"{url}/api/games/{busy[i % len(busy)]}")
                state_latency.append(time.perf_counter() - start)
                i += 1

        def play_against_easy_bot() -> None:
            seats = [{"kind": "human"}, {"kind": "bot", "level": "easy"}]
            game = request(f"{url}/api/games", "POST", {"seats": seats, "seed": 99})
            while time.monotonic() < deadline and not game["terminal"]:
                legal = game["legal"]
                choices = [a for c in legal["placements"] for a in c["rotations"].values()]
                choices += [c["action"] for c in legal["choices"]]
                start = time.perf_counter()
                game = request(f"{url}/api/games/{game['id']}/actions", "POST", {"action": choices[0]})
                while not (game["human_to_move"] or game["terminal"]):
                    time.sleep(0.01)
                    game = request(f"{url}/api/games/{game['id']}")
                reply_latency.append(time.perf_counter() - start)

        threads = [threading.Thread(target=poll_states, args=(w,)) for w in range(4)]
        threads.append(threading.Thread(target=play_against_easy_bot))
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        moves = sum(request(f"{url}/api/games/{g}")["moves"] for g in busy)
        print(
            f"{args.games} games of medium bots (MCTS, 3,000 iterations), {args.seconds:g} s: {moves} moves"
        )
        report("state request", state_latency)
        report("human move -> easy bot's reply", reply_latency)
    finally:
        server.kill()
        server.wait()
    return 0


if __name__ == "__main__":
    sys.exit(main())
