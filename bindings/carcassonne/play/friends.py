"""Playing with friends: seat tokens, the event stream, and the guards a server open to others needs.

A game with a remote seat (a friend who joins by an invite link) gives every remote seat its own
secret token, and its creator one host token that moves for the seats at the creator's screen,
shows the invite links and deletes the game. The page sends its token in the X-Seat-Token header
(it keeps it in the URL's fragment, which browsers never send), so tokens never reach a query
string or an access log; a request without one is a spectator's: it reads, and may not act.
A game without remote seats has no tokens and works as a hot-seat game: anyone may act.

Presence: a page opens the event stream with its seats' presence key (a hash of its token, which
EventSource cannot send in a header), so the server knows which seats have the game open. The
key rides in the stream's URL, and may reach an access log: it only marks a seat as connected,
it cannot act for it.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import hmac
import json
import secrets
import time
from collections.abc import AsyncIterator
from typing import Any
from urllib.parse import urlsplit

from starlette.datastructures import Headers
from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Receive, Scope, Send

from .hosts import AllowedHosts

TOKEN_HEADER = "X-Seat-Token"
PING_SECONDS = 15.0  # a comment line this often keeps proxies from closing a quiet stream
RETRY_MS = 2000  # how soon EventSource reconnects after a dropped connection


def new_token() -> str:
    return secrets.token_urlsafe(18)


def give_tokens(seats: list[dict[str, Any]]) -> str | None:
    """Gives each remote seat a token and the seats at the creator's screen the host token,
    which it returns; None (and no tokens) when no seat is remote: a hot-seat game."""
    if not any(seat["kind"] == "remote" for seat in seats):
        return None
    host = new_token()
    for seat in seats:
        if seat["kind"] == "remote":
            seat["token"] = new_token()
        elif seat["kind"] == "human":
            seat["token"] = host
    return host


def public_seats(seats: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The seats as anyone may see them: without their tokens."""
    return [{k: v for k, v in seat.items() if k != "token"} for seat in seats]


def same_token(given: str | None, expected: str | None) -> bool:
    """Compares in constant time, so the answer's timing does not tell a token letter by letter."""
    if given is None or expected is None:
        return False
    return hmac.compare_digest(given.encode(), expected.encode())


def seats_of(seats: list[dict[str, Any]], token: str | None) -> list[int]:
    """The seats a request with `token` may act for: in a hot-seat game every human seat."""
    return [
        p
        for p, seat in enumerate(seats)
        if seat["kind"] != "bot" and ("token" not in seat or same_token(token, seat["token"]))
    ]


def presence_key(token: str) -> str:
    """The key a page with `token` follows its game's events with: it names the token's seats
    as present, and tells nothing of the token."""
    return hashlib.sha256(f"presence:{token}".encode()).hexdigest()[:32]


def seats_of_presence_key(seats: list[dict[str, Any]], key: str | None) -> list[int]:
    """The seats whose token has the presence key `key` (none for a watcher or a wrong key)."""
    if key is None:
        return []
    for token in {seat["token"] for seat in seats if "token" in seat}:
        if same_token(key, presence_key(token)):
            return seats_of(seats, token)
    return []


def event(name: str, data: dict[str, Any]) -> str:
    return f"event: {name}\ndata: {json.dumps(data)}\n\n"


class EventStreams:
    """The open event streams: at most `per_client` per client address (None: no limit), so that
    one client cannot hold all the server's connections; all of them ended at the server's end."""

    def __init__(self, per_client: int | None = None) -> None:
        self.per_client = per_client
        self.open: dict[str, int] = {}
        self.wakes: set[asyncio.Event] = set()
        self.ending = False
        self.loop: asyncio.AbstractEventLoop | None = None

    def opened(self, client: str) -> bool:
        """Counts a new stream of `client`; False (and nothing counted) if it has too many."""
        if self.per_client is not None and self.open.get(client, 0) >= self.per_client:
            return False
        self.open[client] = self.open.get(client, 0) + 1
        return True

    def closed(self, client: str) -> None:
        left = self.open.get(client, 1) - 1
        if left:
            self.open[client] = left
        else:
            self.open.pop(client, None)

    def end_all(self) -> None:
        """Ends every stream soon; callable from any thread or a signal handler. Else a server
        stopping would wait for them, and cut them off with an error after its grace time."""

        def end() -> None:
            self.ending = True
            for wake in self.wakes:
                wake.set()

        if self.loop is not None:
            with contextlib.suppress(RuntimeError):  # the loop has closed: no stream is left
                self.loop.call_soon_threadsafe(end)

    async def follow(self, session: Any, client: str, seats: list[int]) -> AsyncIterator[str]:
        """A game's changes as server-sent events: `state` now and after every change (the page
        then reads the state), `deleted` when the game is deleted, a comment line as keep-alive.
        Changes coming faster than the client reads are merged: only the newest is sent. The
        stream was counted by `opened(client)`; while it is open, `seats` are present."""
        loop = self.loop = asyncio.get_running_loop()
        wake = asyncio.Event()
        latest: dict[str, Any] = {}

        def changed(summary: dict[str, Any]) -> None:  # from any thread, the session's lock held
            def deliver() -> None:
                latest.update(summary)
                wake.set()

            with contextlib.suppress(RuntimeError):  # the server's loop has closed: nobody listens
                loop.call_soon_threadsafe(deliver)

        current = session.listen(changed, seats)
        self.wakes.add(wake)
        try:
            yield f"retry: {RETRY_MS}\n" + event("state", current)
            while not current.get("deleted") and not self.ending:
                try:
                    await asyncio.wait_for(wake.wait(), PING_SECONDS)
                except asyncio.TimeoutError:
                    yield ": ping\n\n"
                    continue
                wake.clear()
                if latest:
                    current = dict(latest)
                    latest.clear()
                    yield event("deleted" if current.get("deleted") else "state", current)
        finally:
            self.wakes.discard(wake)
            session.unlisten(changed, seats)
            self.closed(client)


class RequestRate:
    """At most `rate` API requests a second per client address on average, in bursts of up to 4
    seconds' worth (None: no limit), so that one client cannot take the server from the others."""

    def __init__(self, rate: float | None = None) -> None:
        self.rate = rate
        self.buckets: dict[str, tuple[float, float]] = {}  # client: (tokens, when)

    def allow(self, client: str) -> bool:
        if self.rate is None:
            return True
        burst = 4 * self.rate
        now = time.monotonic()
        tokens, then = self.buckets.get(client, (burst, now))
        tokens = min(burst, tokens + (now - then) * self.rate)
        if tokens < 1:
            self.buckets[client] = (tokens, now)
            return False
        self.buckets[client] = (tokens - 1, now)
        if len(self.buckets) > 10_000:  # forget full buckets: a client that rested is like new
            self.buckets = {c: b for c, b in self.buckets.items() if b[0] < burst - 1}
        return True


def client_address(scope: Scope) -> str:
    client = scope.get("client")
    return client[0] if client else "unknown"


class Guard:
    """ASGI middleware: refuses a request whose Host is not allowed (a 400; None: any is), a
    state-changing request from a page of another site (its Origin header names another host: a
    403) and API requests over the client's rate (a 429)."""

    def __init__(self, app: ASGIApp, rate: RequestRate, hosts: AllowedHosts | None = None) -> None:
        self.app = app
        self.rate = rate
        self.hosts = hosts

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            refusal = self.refusal(scope)
            if refusal is not None:
                await JSONResponse({"detail": refusal[1]}, status_code=refusal[0])(scope, receive, send)
                return
        await self.app(scope, receive, send)

    def refusal(self, scope: Scope) -> tuple[int, str] | None:
        headers = Headers(scope=scope)
        if self.hosts is not None:
            wrong_host = self.hosts.refusal(headers.get("host"))
            if wrong_host is not None:
                return 400, wrong_host
        if scope["method"] not in ("GET", "HEAD", "OPTIONS"):
            origin = headers.get("origin")
            # A browser names the page's site; curl and scripts send none (and are no CSRF risk).
            if origin is not None and urlsplit(origin).netloc != headers.get("host"):
                return 403, "a request from another site's page is refused"
        if scope["path"].startswith("/api/") and not self.rate.allow(client_address(scope)):
            return 429, "too many requests from this address: wait a moment"
        return None
