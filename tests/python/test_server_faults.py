"""The play server under faults, run as `python -m carcassonne serve` in a subprocess: killed with
SIGKILL in the middle of a load of concurrent games, started on a data folder it cannot write,
sent an endless chunked body. Every move a client got a 2xx for must be in the store, and the
store must be whole."""

from __future__ import annotations

import http.client
import json
import os
import random
import select
import signal
import socket
import sqlite3
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("fastapi")
pytest.importorskip("uvicorn")

from carcassonne import Game
from helpers import HANG_GUARD_S, every_legal_action

pytestmark = pytest.mark.concurrency  # threads, signals or servers: tools/under_load.sh --quick

HUMAN = {"kind": "human"}


def call(url: str, body: dict[str, Any] | None = None, timeout: float = 10) -> tuple[int, Any]:
    """(status, JSON answer) of a GET, or of a POST of `body`."""
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(url, data, {"content-type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            return response.status, json.load(response)
    except urllib.error.HTTPError as e:
        return e.code, json.load(e)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def serve_command(data: Path, port: int) -> list[str]:
    # The load below comes from one address: no per-client request limit.
    command = [sys.executable, "-m", "carcassonne", "serve", "--port", str(port), "--data", str(data)]
    return command + ["--client-rate", "0"]


@contextmanager
def server(data: Path) -> Iterator[tuple[subprocess.Popen[bytes], str]]:
    """A server on 127.0.0.1 keeping its games in `data`, and its URL, once it answers."""
    port = free_port()
    process = subprocess.Popen(serve_command(data, port), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + HANG_GUARD_S
        while True:
            assert process.poll() is None, process.communicate()[1].decode()
            try:
                if call(f"{url}/api/options", timeout=1)[0] == 200:
                    break
            except OSError:
                pass
            assert time.monotonic() < deadline, "the server did not start"
            time.sleep(0.1)
        yield process, url
    finally:
        if process.poll() is None:
            process.kill()
        process.communicate()


def play(url: str, seed: int, accepted: dict[str, list[tuple[int, str]]], lock: threading.Lock) -> None:
    """Plays games of two humans with random moves until the server goes away, noting every
    move the server accepted as (its index in the game's record, its text)."""
    rng = random.Random(seed)
    try:
        while True:
            status, state = call(
                f"{url}/api/games", {"seats": [HUMAN, HUMAN], "expansions": ["abbey-mayor"], "seed": seed}
            )
            assert status == 201, state
            with lock:
                accepted[state["id"]] = []
            while not state["terminal"]:
                action = rng.choice(every_legal_action(state))
                status, answer = call(f"{url}/api/games/{state['id']}/actions", {"action": action})
                assert status == 200, answer
                state = answer
                mine = next(e for e in reversed(state["log"]) if e["player"] >= 0)
                assert mine["action"] == action
                with lock:
                    accepted[state["id"]].append((mine["index"], action))
            seed += 1000
    except (OSError, http.client.HTTPException):  # the server was killed: refused, reset, cut short
        return


def test_a_server_killed_during_a_load_of_games_keeps_every_accepted_move(tmp_path: Path) -> None:
    accepted: dict[str, list[tuple[int, str]]] = {}
    lock = threading.Lock()
    with server(tmp_path) as (process, url):
        players = [threading.Thread(target=play, args=(url, seed, accepted, lock)) for seed in range(6)]
        for thread in players:
            thread.start()
        time.sleep(4)
        process.send_signal(signal.SIGKILL)  # mid-load: every client has a move in flight or about to
        for thread in players:
            thread.join(15)
            assert not thread.is_alive()
    moves = sum(len(m) for m in accepted.values())
    assert len(accepted) >= 6 and moves >= 50, (len(accepted), moves)  # the load was real

    with sqlite3.connect(tmp_path / "games.sqlite3") as con:
        assert con.execute("pragma integrity_check").fetchall() == [("ok",)]
        stored = {row[0]: json.loads(row[1]) for row in con.execute("select id, record from games")}
    assert set(accepted) <= set(stored)
    for game_id, record in stored.items():
        game = Game.from_json(json.dumps(record))  # the record replays, every action legal
        assert game.history == record["actions"]
        for index, action in accepted.get(game_id, []):
            assert record["actions"][index] == action, (game_id, index)

    # A new server on the same folder carries on every game where the store has it.
    with server(tmp_path) as (_, url):
        for game_id, record in stored.items():
            status, state = call(f"{url}/api/games/{game_id}")
            assert status == 200 and state["moves"] == len(record["actions"])


def test_a_data_folder_that_cannot_be_written_is_a_clear_error_at_start(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("not a folder")
    unwritable = [tmp_path / "file" / "data"]  # a folder that cannot be made, even by root
    (tmp_path / "blocked" / "games.sqlite3").mkdir(parents=True)  # the store's file cannot be made
    unwritable.append(tmp_path / "blocked")
    if os.geteuid() != 0:  # root writes to read-only folders anyway
        (tmp_path / "read-only").mkdir()
        (tmp_path / "read-only").chmod(0o555)
        unwritable.append(tmp_path / "read-only")
    for data in unwritable:
        done = subprocess.run(serve_command(data, free_port()), capture_output=True, text=True, timeout=30)
        assert done.returncode == 2, done.stderr
        assert "error: cannot write the games' store" in done.stderr and "Traceback" not in done.stderr
        assert "open http" not in done.stdout  # it never claimed to be serving


def test_the_server_stops_reading_a_chunked_body_over_the_limit(tmp_path: Path) -> None:
    """60 MiB sent chunked (no Content-Length): the server answers 413 and closes the connection
    after about 1 MiB, where it used to read and parse all of it."""
    chunk = b" " * (64 << 10)
    sent, answer = 0, b""
    with (
        server(tmp_path) as (_, url),
        socket.create_connection(("127.0.0.1", int(url.split(":")[-1])), 10) as s,
    ):
        s.sendall(
            b"POST /api/games HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
            b"Transfer-Encoding: chunked\r\n\r\n"
        )
        try:
            while sent < 60 << 20 and not answer:
                s.sendall(b"%x\r\n%s\r\n" % (len(chunk), chunk))
                sent += len(chunk)
                if select.select([s], [], [], 0)[0]:  # the server answered
                    answer = s.recv(1 << 16)
        except (BrokenPipeError, ConnectionResetError):
            pass  # it closed the connection after its answer, which a reset may have discarded
    assert sent < 16 << 20, sent  # the rest of the slack: socket buffers
    assert answer.startswith(b"HTTP/1.1 413") or not answer, answer[:100]
