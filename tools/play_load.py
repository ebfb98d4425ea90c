"""Load test of the play server on loopback (a benchmark, not a test): starts
`python -m carcassonne serve` on a free port, keeps GAMES bot-only games thinking (medium bots,
MCTS 3,000 iterations a move), and meanwhile measures
  - the latency of state requests (GET /api/games/{id}) from a few client threads, and
  - the time from a human's move (POST .../actions) to the easy bot's answer being visible.
Prints p50 / p99 of both. Usage: python tools/play_load.py [--games 20] [--seconds 20]
"""

from __future__ import annotations

import argparse
import json
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from typing import Any


def request(url: str, method: str = "GET", body: Any = None) -> Any:
    data = None if body is None else json.dumps(body).encode()
    headers = {"Content-Type": "application/json"} if data else {}
    with urllib.request.urlopen(urllib.request.Request(url, data, headers, method=method), timeout=60) as r:
        return json.load(r)


def percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(p / 100 * len(ordered)))]


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--games", type=int, default=20, help="bot-only games thinking meanwhile")
    parser.add_argument("--seconds", type=float, default=20)
    args = parser.parse_args()

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    url = f"http://127.0.0.1:{port}"
    data = tempfile.mkdtemp(prefix="carc-load-")
    command = [sys.executable, "-m", "carcassonne", "serve", "--port", str(port), "--data", data]
    server = subprocess.Popen(command, stdout=subprocess.DEVNULL)
    try:
        for _ in range(200):
            try:
                request(f"{url}/api/options")
                break
            except OSError:
                time.sleep(0.1)
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
        for name, values in (
            ("state request", state_latency),
            ("human move -> easy bot's reply", reply_latency),
        ):
            print(
                f"{name}: n={len(values)}, p50 {1000 * statistics.median(values):.1f} ms, "
                f"p99 {1000 * percentile(values, 99):.1f} ms"
            )
    finally:
        server.kill()
        server.wait()
    return 0


if __name__ == "__main__":
    sys.exit(main())
