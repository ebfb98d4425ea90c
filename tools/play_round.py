"""What a round against the computer costs on the play server (a benchmark, not a test): starts
`python -m carcassonne serve` on a free port, and plays one person (the first legal move, sent as
the page sends it) against hard bots, following the game's event stream and reading the state
after each change as the page does. Prints
  - the seconds from the person's last move of a turn until their next turn (a round), and
    each bot decision's share of it (from one event of the stream to the next),
  - the bytes a round transfers (the person's moves and the state reads, bodies as sent:
    compressed when the server compresses), and a state read's bytes,
  - the bytes of the page's first load (options and tile drawings) and of a reload.
Usage: python tools/play_round.py [--rounds 10] [--bots 3] [--time 2] [--seed 1]
It runs against whichever carcassonne package Python imports (PYTHONPATH).
"""

from __future__ import annotations

import argparse
import gzip
import json
import queue
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from email.message import Message
from typing import Any

from carcassonne.play.session import merge_state


class Client:
    """Requests as the page makes them (gzip accepted), counting the bodies' bytes as sent."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.bytes = 0

    def request(
        self, path: str, method: str = "GET", body: Any = None, headers: dict[str, str] | None = None
    ) -> tuple[int, Message, Any]:
        data = None if body is None else json.dumps(body).encode()
        headers = {
            "Accept-Encoding": "gzip",
            **({"Content-Type": "application/json"} if data else {}),
            **(headers or {}),
        }
        request = urllib.request.Request(self.url + path, data, headers, method=method)
        try:
            with urllib.request.urlopen(request, timeout=120) as response:
                status, answer, raw = response.status, response.headers, response.read()
        except urllib.error.HTTPError as e:
            if e.code != 304:
                raise
            status, answer, raw = 304, e.headers, e.read()
        self.bytes += len(raw)
        if answer.get("Content-Encoding") == "gzip":
            raw = gzip.decompress(raw)
        return status, answer, json.loads(raw) if raw else None

    def state(self, game_id: str, path: str = "", known: dict[str, Any] | None = None, **kw: Any) -> Any:
        """The game's state, naming the state the page has (known) as the page does, and joined
        to it when the answer holds only the changes."""
        query = ""
        if known:
            query = "?" + urllib.parse.urlencode({"epoch": known["epoch"], "version": known["version"]})
        _, _, answer = self.request(f"/api/games/{game_id}{path}{query}", **kw)
        return merge_state(known or {}, answer)


def first_action(state: dict[str, Any]) -> str:
    legal = state["legal"]
    return (
        [a for cell in legal["placements"] for a in cell["rotations"].values()]
        + [f["action"] for f in legal["figures"]]
        + [c["action"] for c in legal["cells"]]
        + [c["action"] for c in legal["choices"]]
    )[0]


def follow(url: str, events: queue.Queue[tuple[float, dict[str, Any]]]) -> None:
    """Reads the game's event stream until the server goes: (arrival time, summary) of each."""
    try:
        with urllib.request.urlopen(url, timeout=600) as stream:
            for line in stream:
                if line.startswith(b"data: "):
                    events.put((time.perf_counter(), json.loads(line[6:])))
    except OSError:
        pass


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=10)
    parser.add_argument("--bots", type=int, default=3)
    parser.add_argument("--time", type=float, default=2.0, help="the hard bots' seconds a move")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    port = free_port()
    with tempfile.TemporaryDirectory() as data:
        command = [sys.executable, "-m", "carcassonne", "serve", "--port", str(port), "--data", data]
        server = subprocess.Popen(command, stdout=subprocess.DEVNULL)
        try:
            url = f"http://127.0.0.1:{port}"
            for _ in range(300):
                try:
                    urllib.request.urlopen(url + "/api/games", timeout=1).close()
                    break
                except OSError:
                    time.sleep(0.1)
            play(Client(url), args)
        finally:
            server.terminate()
            server.wait()


def play(client: Client, args: argparse.Namespace) -> None:
    first = client.bytes
    etags = {}
    for path in ("/api/options", "/api/tiles"):
        etags[path] = client.request(path)[1].get("ETag")
    load = client.bytes - first
    first = client.bytes
    for path, etag in etags.items():
        client.request(path, headers={"If-None-Match": etag} if etag else {})
    reload = client.bytes - first

    hard = {"kind": "bot", "level": "hard", "time": args.time}
    seats = [{"kind": "human"}] + [hard] * args.bots
    _, _, state = client.request("/api/games", "POST", {"seats": seats, "seed": args.seed})
    game_id = state["id"]
    events: queue.Queue[tuple[float, dict[str, Any]]] = queue.Queue()
    threading.Thread(
        target=follow, args=(f"{client.url}/api/games/{game_id}/events", events), daemon=True
    ).start()
    rounds, decisions, round_bytes, reads = [], [], [], []
    while not state["your_turn"]:
        state = client.state(game_id, known=state)
        time.sleep(0.1)
    for _ in range(args.rounds):
        if state["terminal"]:
            break
        start_bytes = client.bytes
        while state["your_turn"]:  # the person's turn: a tile, then maybe a figure
            sent = time.perf_counter()
            state = client.state(
                game_id, "/actions", state, method="POST", body={"action": first_action(state)}
            )
        last = sent
        while not (state["your_turn"] or state["terminal"]):
            arrived, summary = events.get(timeout=600)
            if (summary["epoch"], summary["version"]) <= (state["epoch"], state["version"]):
                continue
            before = client.bytes
            state = client.state(game_id, known=state)
            reads.append(client.bytes - before)
            if arrived > last:
                decisions.append(arrived - last)
                last = arrived
        rounds.append(time.perf_counter() - sent)
        round_bytes.append(client.bytes - start_bytes)
    print(
        f"rounds: {len(rounds)} of 1 person and {args.bots} hard bots"
        f" ({args.time} s a move), seed {args.seed}"
    )
    print(
        f"round (the person's move to their next turn): median {statistics.median(rounds):.2f} s, "
        f"mean {statistics.mean(rounds):.2f} s"
    )
    print(
        f"bot decision (event to event): n={len(decisions)}, median {statistics.median(decisions):.2f} s, "
        f"mean {statistics.mean(decisions):.2f} s"
    )
    print(
        f"bytes a round: median {statistics.median(round_bytes):,.0f},"
        f" state read median {statistics.median(reads):,.0f}"
    )
    print(f"first load (options + tiles) {load:,} bytes, reload {reload:,} bytes")


if __name__ == "__main__":
    main()
