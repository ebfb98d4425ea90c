"""Games on disk: one SQLite file under the server's data folder. Each move rewrites the game's
row (its record and seats) in one transaction, so a server killed at any moment restarts with
every game where it was. A folder that cannot be written is refused at start, and a write that
fails later (a full disk) raises StoreError, which the caller turns into a refused move."""

from __future__ import annotations

import contextlib
import json
import sqlite3
import threading
import time
from pathlib import Path
from typing import Any

from ..game import Error

SCHEMA = """
create table if not exists games (
  id text primary key,
  seats text not null,     -- JSON: [{"kind": "human" | "remote"} | {"kind": "bot", "level", "time"}],
                           -- each maybe with its "name" and (a game with remote seats) "token"
  record text not null,    -- the engine's game record (carcassonne-record/1)
  updated real not null,
  host text,               -- a game with remote seats: its creator's token (see friends.py)
  rematch text             -- the id of the game started as this one's rematch
)
"""
REVIEW_SCHEMA = """
create table if not exists reviews (
  id text primary key,     -- the game's
  review text not null     -- JSON: the searched positions of a finished game (see review.py)
)
"""


class StoreError(Error):
    """The games' store cannot be read or written (a read-only or full data folder)."""


class Store:
    def __init__(self, folder: str | Path) -> None:
        self.path = Path(folder) / "games.sqlite3"
        self._lock = threading.Lock()  # one writer at a time, from any thread
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            with self._lock, contextlib.closing(self._connect()) as con, con:
                con.execute(SCHEMA)
                con.execute(REVIEW_SCHEMA)
                columns = [row[1] for row in con.execute("pragma table_info(games)")]
                if "host" not in columns:  # a store made before remote seats existed
                    con.execute("alter table games add column host text")
                if "rematch" not in columns:  # a store made before rematches existed
                    con.execute("alter table games add column rematch text")
                # A real write now, so a read-only folder or file fails at start, not on a move.
                con.execute("pragma user_version = 1")
            # Held open and idle: the connection of a write is then never the last one to close,
            # and closing the last one checkpoints and removes the WAL, which made every move
            # cost ~30 ms. SQLite checkpoints by itself as the WAL grows (every 1,000 pages).
            self._keeper = self._connect()
        except (OSError, sqlite3.Error) as e:
            raise StoreError(f"cannot write the games' store {self.path}: {e}") from e

    def _connect(self) -> sqlite3.Connection:
        con = sqlite3.connect(self.path, timeout=10)
        # WAL with synchronous=NORMAL: a commit survives the server process being killed (not a
        # power cut) and costs no fsync, so moves of many games are not queued behind the disk.
        con.execute("pragma journal_mode=wal")
        con.execute("pragma synchronous=normal")
        return con

    def _write(self, sql: str, args: tuple[Any, ...]) -> None:
        """One statement in its own transaction, committed before this returns."""
        try:
            with self._lock, contextlib.closing(self._connect()) as con, con:
                con.execute(sql, args)
        except sqlite3.Error as e:
            raise StoreError(f"the games' store {self.path} cannot be written: {e}") from e

    def _read(self, sql: str, args: tuple[Any, ...] = ()) -> list[Any]:
        try:
            with contextlib.closing(self._connect()) as con:
                return con.execute(sql, args).fetchall()
        except sqlite3.Error as e:
            raise StoreError(f"the games' store {self.path} cannot be read: {e}") from e

    def save(
        self, game_id: str, seats: list[dict[str, Any]], record: dict[str, Any], host: str | None = None
    ) -> None:
        """Writes the game's seats and record; its host token only when given (a new game)."""
        self._write(
            "insert into games (id, seats, record, updated, host) values (?, ?, ?, ?, ?) on conflict(id)"
            " do update set seats = excluded.seats, record = excluded.record, updated = excluded.updated,"
            " host = coalesce(excluded.host, games.host)",
            (game_id, json.dumps(seats), json.dumps(record), time.time(), host),
        )

    def host(self, game_id: str) -> str | None:
        """The token of the game's creator, if the game has remote seats."""
        rows = self._read("select host from games where id = ?", (game_id,))
        return rows[0][0] if rows else None

    def rematch(self, game_id: str) -> str | None:
        """The id of the game's rematch, once one was started."""
        rows = self._read("select rematch from games where id = ?", (game_id,))
        return rows[0][0] if rows else None

    def set_rematch(self, game_id: str, rematch: str) -> None:
        self._write("update games set rematch = ? where id = ?", (rematch, game_id))

    def load(self, game_id: str) -> tuple[list[dict[str, Any]], dict[str, Any]] | None:
        rows = self._read("select seats, record from games where id = ?", (game_id,))
        return (json.loads(rows[0][0]), json.loads(rows[0][1])) if rows else None

    def delete(self, game_id: str) -> None:
        self._write("delete from games where id = ?", (game_id,))  # first: see save_review
        self._write("delete from reviews where id = ?", (game_id,))

    def save_review(self, game_id: str, review: dict[str, Any]) -> None:
        """Keeps a review only while its game is kept: a review still running when its game was
        deleted (by this server or another on the same file) writes nothing."""
        self._write(
            "insert or replace into reviews (id, review)"
            " select ?, ? where exists (select 1 from games where id = ?)",
            (game_id, json.dumps(review), game_id),
        )

    def load_review(self, game_id: str) -> dict[str, Any] | None:
        rows = self._read("select review from reviews where id = ?", (game_id,))
        return json.loads(rows[0][0]) if rows else None

    def newest(self, limit: int) -> list[tuple[str, float, list[dict[str, Any]], dict[str, Any]]]:
        """(id, last update, seats, record) of the `limit` games changed last, newest first."""
        rows = self._read(
            "select id, updated, seats, record from games order by updated desc limit ?", (limit,)
        )
        return [(i, updated, json.loads(seats), json.loads(record)) for i, updated, seats, record in rows]

    def list(self) -> list[tuple[str, float]]:
        """(id, last update) of every game, newest first."""
        return self._read("select id, updated from games order by updated desc")
