"""Games on disk: one SQLite file under the server's data folder. Each move rewrites the game's
row (its record and seats) in one transaction, so a server killed at any moment restarts with
every game where it was."""

from __future__ import annotations

import json
import sqlite3
import threading
import time
from pathlib import Path
from typing import Any

SCHEMA = """
create table if not exists games (
  id text primary key,
  seats text not null,     -- JSON: [{"kind": "human"} | {"kind": "bot", "level": ..., "time": ...}]
  record text not null,    -- the engine's game record (carcassonne-record/1)
  updated real not null
)
"""


class Store:
    def __init__(self, folder: str | Path) -> None:
        self.path = Path(folder) / "games.sqlite3"
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()  # one writer at a time, from any thread
        with self._connect() as con:
            con.execute(SCHEMA)

    def _connect(self) -> sqlite3.Connection:
        con = sqlite3.connect(self.path, timeout=10)
        # WAL with synchronous=NORMAL: a commit survives the server process being killed (not a
        # power cut) and costs no fsync, so moves of many games are not queued behind the disk.
        con.execute("pragma journal_mode=wal")
        con.execute("pragma synchronous=normal")
        return con

    def save(self, game_id: str, seats: list[dict[str, Any]], record: dict[str, Any]) -> None:
        with self._lock, self._connect() as con:
            con.execute(
                "insert or replace into games (id, seats, record, updated) values (?, ?, ?, ?)",
                (game_id, json.dumps(seats), json.dumps(record), time.time()),
            )

    def load(self, game_id: str) -> tuple[list[dict[str, Any]], dict[str, Any]] | None:
        with self._connect() as con:
            row = con.execute("select seats, record from games where id = ?", (game_id,)).fetchone()
        return None if row is None else (json.loads(row[0]), json.loads(row[1]))

    def delete(self, game_id: str) -> None:
        with self._lock, self._connect() as con:
            con.execute("delete from games where id = ?", (game_id,))

    def list(self) -> list[tuple[str, float]]:
        """(id, last update) of every game, newest first."""
        with self._connect() as con:
            return con.execute("select id, updated from games order by updated desc").fetchall()
