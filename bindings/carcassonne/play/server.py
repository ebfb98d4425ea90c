"""The play server: a FastAPI app with JSON endpoints for games, and the static page.

Endpoints (all JSON; errors are 4xx with {"detail": "..."} and change nothing):
  GET  /api/options                  expansions, variants, bot levels the page offers (ETag)
  GET  /api/tiles                    every tile kind's SVG drawing and figure spots (ETag)
  GET  /api/games                    the saved games
  POST /api/games                    a new game {seats: [...], expansions, variants, seed}
  POST /api/games/load               a game from a record {record, seats}
  GET  /api/games/{id}               the game as the page shows it (legal actions grouped)
  POST /api/games/{id}/actions       a human move {action: "place 1,0 r2"}
These two take ?epoch=E&version=V, the state the page has: if the server described it lately,
the answer holds only what changed since (`since`: V), else the whole state (`since`: null).
  POST /api/games/{id}/undo          back to the last human decision (with friends: asks the others)
  POST /api/games/{id}/undo/answer   a friend's answer to an undo request {accept}
  PUT  /api/games/{id}/seats/{n}/name a seat's name, by its own player {name}
  POST /api/games/{id}/hint          the best 3 moves by MCTS {time}
  GET  /api/games/{id}/record        the engine's game record (save)
  GET  /api/games/{id}/replay/{n}    the board after the record's first n actions (replay)
  GET  /api/games/{id}/events        server-sent events: the game changed, who is present (friends.py)
  GET  /api/games/{id}/invites       the remote seats' tokens, for the game's creator
  GET  /api/games/{id}/review        a finished game's review (win chances), or its progress
  POST /api/games/{id}/rematch       a finished game's next game, the same people in the same seats
  DELETE /api/games/{id}
Bodies over MAX_BODY bytes are refused with a 413 before they are read whole (chunked ones too),
NaN and Infinity in a JSON body with a 400, and a move the store cannot save with a 503. In a
game with remote seats, acting for a seat needs its token (X-Seat-Token): else a 403. `serve`
answers only requests whose Host header it allows (else a 400; see hosts.py). Answers are
gzip-compressed for clients that accept it, the event streams excepted.
Sync handlers run in FastAPI's thread pool; the C++ searches release the GIL, so a hint or a bot
never blocks other requests.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import json
import math
import re
import secrets
import threading
import unicodedata
from collections.abc import AsyncIterator, Callable, Coroutine, Sequence
from pathlib import Path
from typing import Annotated, Any, Literal

from fastapi import FastAPI, Header, HTTPException, Query, Request, Response
from fastapi.responses import FileResponse, JSONResponse, StreamingResponse
from fastapi.routing import APIRoute
from fastapi.staticfiles import StaticFiles
from pydantic import AfterValidator, BaseModel, Field
from starlette.concurrency import run_in_threadpool
from starlette.datastructures import Headers
from starlette.middleware.gzip import GZipMiddleware
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from .. import _core
from ..game import Error, Game, IllegalActionError
from ..render import PLAYER_COLOURS, figure_svg, tile_catalogue
from ..render.tiles import ARROW_LETTERS, arrow_svg
from .actions import label
from .friends import (
    TOKEN_HEADER,
    EventStreams,
    Guard,
    RequestRate,
    client_address,
    give_tokens,
    presence_key,
    public_seats,
    same_token,
    seats_of,
    seats_of_presence_key,
)
from .hosts import LOCAL_HOSTS, AllowedHosts
from .review import NotFinishedError, Reviews
from .session import (
    DEFAULT_HARD_TIME,
    FIGURE_KINDS,
    GameSession,
    NotYourSeatError,
    NotYourTurnError,
    UndoRequestError,
)
from .store import Store, StoreError

STATIC = Path(__file__).parent / "static"
MAX_BODY = 1 << 20  # bytes: a record of the longest game is far smaller
MAX_HINT_TIME = 10.0
SAVED_LISTED = 50  # the saved games the new-game dialog lists, newest first
CLIENT_STREAMS = 16  # `serve`'s limits per client address: open event streams,
CLIENT_RATE = 40.0  # and API requests a second (bursts of four times as many)
MAX_NAME = 24  # characters of a seat's name


class ErrorMessage(BaseModel):
    detail: str


# The errors any endpoint may answer, so that the OpenAPI schema documents them.
ERRORS: dict[int | str, dict[str, Any]] = {
    code: {"model": ErrorMessage, "description": what}
    for code, what in [
        (400, "a malformed body, an illegal move or record, or a Host the server does not answer to"),
        (403, "a seat's move without its token, or a request from another site's page"),
        (404, "no such game"),
        (409, "not the time for this request (a bot's turn, nothing to undo)"),
        (413, f"a request body over {MAX_BODY} bytes"),
        (429, "too many requests or event streams from one address"),
        (503, "the games' store cannot save the change"),
    ]
}
CONTENT_LENGTH = re.compile(r"[0-9]{1,20}")


class BodyLimit:
    """ASGI middleware: refuses a request body over `limit` bytes with a 413 before it is read
    whole, at once by its Content-Length, and a chunked body by counting bytes as they arrive."""

    def __init__(self, app: ASGIApp, limit: int) -> None:
        self.app = app
        self.limit = limit
        self.detail = f"request body over {limit} bytes"

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        length = Headers(scope=scope).get("content-length")
        if length is not None and (not CONTENT_LENGTH.fullmatch(length) or int(length) > self.limit):
            await JSONResponse({"detail": self.detail}, status_code=413)(scope, receive, send)
            return
        seen = 0

        async def counted() -> Message:
            nonlocal seen
            message = await receive()
            seen += len(message.get("body", b""))
            if seen > self.limit:
                # Raised in the endpoint's body reading, which passes HTTPExceptions on to the
                # app's handler: a 413, and the rest of the body is never read.
                raise HTTPException(413, self.detail)
            return message

        await self.app(scope, counted, send)


class Compressed:
    """ASGI middleware: gzip for the answers of a client that accepts it, but not for the event
    streams (a compressor holds small events back until it has enough bytes to pack)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app
        self.gzip = GZipMiddleware(app, minimum_size=1000)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and not scope["path"].endswith("/events"):
            await self.gzip(scope, receive, send)
        else:
            await self.app(scope, receive, send)


class FixedJSON:
    """Data that changes only with the package (the tile drawings, the options): its JSON made
    once, and an ETag that lets a browser keep it and ask whether it is still current."""

    def __init__(self, data: Any) -> None:
        self.body = json.dumps(data, separators=(",", ":")).encode()
        self.etag = f'"{hashlib.sha256(self.body).hexdigest()[:32]}"'

    def response(self, if_none_match: str | None) -> Response:
        """The data, or a 304 without it if `if_none_match` (the request's header) names it."""
        headers = {"ETag": self.etag, "Cache-Control": "no-cache"}  # kept, revalidated each time
        tags = [tag.strip().removeprefix("W/") for tag in (if_none_match or "").split(",")]
        if "*" in tags or self.etag in tags:
            return Response(status_code=304, headers=headers)
        return Response(self.body, media_type="application/json", headers=headers)


def _refuse_constant(name: str) -> Any:
    raise HTTPException(400, f"{name} is not a JSON number: only finite numbers are accepted")


def _finite_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):  # 1e999 parses to inf
        raise HTTPException(400, f"{text} is out of range: only finite numbers are accepted")
    return value


class StrictJSONRequest(Request):
    """A request whose JSON body may not hold NaN or Infinity (Python's json accepts them, and
    the validation error that quotes one cannot be encoded: a 500)."""

    async def json(self) -> Any:
        if not hasattr(self, "_json"):
            body = await self.body()
            self._json = json.loads(body, parse_constant=_refuse_constant, parse_float=_finite_float)
        return self._json


class StrictJSONRoute(APIRoute):
    def get_route_handler(self) -> Callable[[Request], Coroutine[Any, Any, Response]]:
        handler = super().get_route_handler()

        async def strict_handler(request: Request) -> Response:
            return await handler(StrictJSONRequest(request.scope, request.receive))

        return strict_handler


def _seat_name(name: str) -> str:
    """A seat's name: 1 to MAX_NAME printable characters, spaces at either end dropped. Any
    other text is kept as typed (the page shows a name as text, never as markup)."""
    name = unicodedata.normalize("NFC", name).strip()
    if not 1 <= len(name) <= MAX_NAME:
        raise ValueError(f"a name is 1 to {MAX_NAME} characters long (spaces at either end not counted)")
    if not name.isprintable():
        raise ValueError("a name may not hold line breaks, tabs or other invisible characters")
    return name


SeatName = Annotated[str, Field(strict=True), AfterValidator(_seat_name)]


class Seat(BaseModel):
    kind: Literal["human", "remote", "bot"]  # remote: a person who joins by an invite link
    name: SeatName | None = None  # None: the page names the seat by its colour
    level: Literal["easy", "medium", "hard"] = "easy"
    time: float = Field(DEFAULT_HARD_TIME, gt=0, le=60)  # seconds a move, hard bots


class NewGame(BaseModel):
    seats: list[Seat] = Field(min_length=2, max_length=6)
    expansions: list[str] = []
    variants: dict[str, str] = {}
    seed: int | None = Field(None, ge=0, lt=2**64)  # None: a fresh random seed


class LoadGame(BaseModel):
    record: dict[str, Any] | str
    seats: list[Seat] | None = None


class Move(BaseModel):
    action: str = Field(max_length=100)


class Rename(BaseModel):
    name: SeatName


class UndoAnswer(BaseModel):
    accept: bool


class HintRequest(BaseModel):
    time: float = Field(1.0, gt=0, le=MAX_HINT_TIME)


class Games:
    """The sessions in memory, loaded from the store on first use (so a restart continues them)."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self._sessions: dict[str, GameSession] = {}
        self._lock = threading.Lock()

    def add(
        self, seats: list[dict[str, Any]], record: dict[str, Any], host: str | None = None
    ) -> GameSession:
        session = GameSession(secrets.token_hex(6), seats, record, self.store, host)
        session.start()  # saved before it is listed: a StoreError leaves no half-made game
        with self._lock:
            self._sessions[session.id] = session
        return session

    def get(self, game_id: str) -> GameSession:
        with self._lock:
            session = self._sessions.get(game_id)
            if session is None:
                saved = self.store.load(game_id)
                if saved is None:
                    raise HTTPException(404, f"no game with id {game_id!r}")
                session = GameSession(game_id, saved[0], saved[1], self.store, self.store.host(game_id))
                session.rematch = self.store.rematch(game_id)
                session.start()
                self._sessions[game_id] = session
        return session

    def remove(self, game_id: str) -> None:
        session = self.get(game_id)
        session.delete()
        with self._lock:
            self._sessions.pop(game_id, None)


@functools.cache
def _options() -> FixedJSON:
    """What the new-game dialog offers, and the figures and arrows the page draws."""
    return FixedJSON(
        {
            "expansions": [e["name"] for e in _core.known_expansions() if e["supported"]],
            "variants": [v for v in _core.known_variants() if v["supported"]],
            "levels": ["easy", "medium", "hard"],
            "players": [2, _core.MAX_PLAYERS],
            "causes": list(_core.CAUSES),
            "colours": list(PLAYER_COLOURS),
            # Each figure drawn at (0, 0) in each seat's colour, for the page to place.
            "figures": {k: [figure_svg(k, p, 0, 0) for p in range(_core.MAX_PLAYERS)] for k in FIGURE_KINDS},
            "count": figure_svg("count", 0, 0, 0),
            # The arrows of River II's and the 20th anniversary's tiles, each drawn alone.
            "arrows": {kind: arrow_svg(kind, "N") for kind in ARROW_LETTERS},
        }
    )


@functools.cache
def _tiles() -> FixedJSON:
    return FixedJSON(tile_catalogue())


def _follow_up(game: Game, action: str, time: float) -> dict[str, str] | None:
    """A whole move: after a tile placement, the best next decision of the same player (the
    figure to place, or none), searched for `time` seconds; None if there is nothing to add."""
    if game.phase != "place_tile":
        return None
    after = game.clone()
    after.apply(action)
    if after.is_chance or after.is_terminal or after.current_player != game.current_player:
        return None
    legal = after.legal_actions()
    best = legal[0].text if len(legal) == 1 else after.analyse(time=time)[0]["action"]
    return {"action": best, "label": label(best, after.phase, after.count)}


def _seats(seats: list[Seat], players: int) -> list[dict[str, Any]]:
    if len(seats) != players:
        raise HTTPException(400, f"the game has {players} players but {len(seats)} seats were given")
    return [
        s.model_dump(include={"kind", "name"} if s.kind != "bot" else None, exclude_none=True) for s in seats
    ]


IfNoneMatch = Annotated[str | None, Header(description="the ETag of the data the page keeps")]
NOT_MODIFIED: dict[int | str, dict[str, Any]] = {
    304: {"description": "the data the If-None-Match header names is current: no body"}
}
KnownEpoch = Annotated[int | None, Query(ge=0, description="the epoch of the state the page has")]
KnownVersion = Annotated[
    int | None, Query(ge=0, description="the version of the state the page has (with epoch)")
]

SeatToken = Annotated[
    str | None, Header(alias=TOKEN_HEADER, description="the token of the seat(s) acting (remote games)")
]


def _view(
    session: GameSession, token: str | None, epoch: int | None = None, version: int | None = None
) -> dict[str, Any]:
    """The game as the page shows it to the holder of `token`: `you`, the seats it may act for,
    `your_turn`, whether it may act now (a spectator: none and never), `host`, whether it is the
    creator's of a game with remote seats, `undo`, whether it may undo (or ask to) and why not,
    and `presence_key`, its key to the event stream (a game with remote seats). For a page that
    has the state of `epoch` and `version`, only what changed since (see GameSession.changes)."""
    state = session.describe()
    you = seats_of(session.seats, token)
    state["you"] = you
    state["your_turn"] = state["human_to_move"] and state["current_player"] in you
    state["host"] = same_token(token, session.host)  # the creator: may show the invite links
    refusal = session.undo_refusal(you)
    state["undo"] = {"allowed": refusal is None, "why": refusal, "consent": session.needs_consent()}
    state["presence_key"] = presence_key(token) if token and you and session.host else None
    return session.changes(state, epoch, version)


def _invites(session: GameSession) -> dict[str, Any]:
    """What only the creator of a game with remote seats gets: the seats' tokens and the host's."""
    seats = [
        {"seat": p, "token": seat["token"]}
        for p, seat in enumerate(session.seats)
        if seat["kind"] == "remote"
    ]
    return {"host_token": session.host, "invites": seats}


def create_app(
    data: str | Path = "carcassonne-data",
    client_streams: int | None = None,
    client_rate: float | None = None,
    hosts: AllowedHosts | None = None,
) -> FastAPI:
    """The play server's app, keeping its games in `data`/games.sqlite3; at most `client_streams`
    event streams and `client_rate` API requests a second per client address (None: no limit);
    answering only requests whose Host header `hosts` allows (None: any, as for a test client)."""

    @contextlib.asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        yield
        reviews.stop()  # the reviews being computed stop soon, their progress kept

    app = FastAPI(title="Carcassonne", responses=ERRORS, lifespan=lifespan)
    app.router.route_class = StrictJSONRoute  # before any route is added
    app.add_middleware(BodyLimit, limit=MAX_BODY)
    app.add_middleware(Guard, rate=RequestRate(client_rate), hosts=hosts)
    app.add_middleware(Compressed)  # outermost: refusals are small, and the rest is packed
    streams = app.state.streams = EventStreams(client_streams)
    games = Games(Store(data))  # a StoreError now if the folder cannot be written
    app.state.games = games
    reviews = Reviews(games.store)

    @app.exception_handler(Error)
    async def engine_error(request: Request, e: Error) -> JSONResponse:
        return JSONResponse({"detail": str(e)}, status_code=400)

    @app.exception_handler(StoreError)
    async def store_error(request: Request, e: StoreError) -> JSONResponse:
        return JSONResponse({"detail": str(e)}, status_code=503)

    @app.get("/", include_in_schema=False)
    def page() -> FileResponse:
        return FileResponse(STATIC / "index.html")

    app.mount("/static", StaticFiles(directory=STATIC), name="static")

    @app.get("/api/options", responses=NOT_MODIFIED, response_model=dict[str, Any])
    def options(if_none_match: IfNoneMatch = None) -> Response:
        return _options().response(if_none_match)

    @app.get("/api/tiles", responses=NOT_MODIFIED, response_model=dict[str, Any])
    def tiles(if_none_match: IfNoneMatch = None) -> Response:
        return _tiles().response(if_none_match)

    @app.get("/api/games")
    def list_games() -> list[dict[str, Any]]:
        """The newest saved games, each with its seats, expansions, turn, scores and whether it
        is finished (a record that no longer replays is listed as damaged, to be deleted)."""
        listed = []
        for game_id, updated, seats, record in games.store.newest(SAVED_LISTED):
            summary: dict[str, Any] = {"id": game_id, "updated": updated, "seats": public_seats(seats)}
            try:
                game = Game.from_json(json.dumps(record))
                summary |= {
                    "expansions": game.config["expansions"],
                    "turn": game.turn_number + 1,
                    "scores": game.scores,
                    "finished": game.is_terminal,
                }
            except Error as e:
                summary["damaged"] = str(e)
            listed.append(summary)
        return listed

    def start_game(seats: list[Seat], record: dict[str, Any]) -> dict[str, Any]:
        """A new game; with remote seats, the answer carries the tokens for its creator."""
        made = _seats(seats, record["config"]["players"])
        host = give_tokens(made)
        session = games.add(made, record, host)
        return _view(session, host) | (_invites(session) if host else {})

    @app.post("/api/games", status_code=201)
    def new_game(body: NewGame) -> dict[str, Any]:
        # Below 2^53: the page reads the state's config as JavaScript numbers, exact up to there.
        seed = secrets.randbelow(2**53) if body.seed is None else body.seed
        game = Game(players=len(body.seats), expansions=body.expansions, variants=body.variants, seed=seed)
        return start_game(body.seats, game.to_record())

    @app.post("/api/games/load", status_code=201)
    def load_game(body: LoadGame) -> dict[str, Any]:
        text = body.record if isinstance(body.record, str) else json.dumps(body.record)
        game = Game.from_json(text)  # checks the whole record; RecordError is a 400
        if game.to_record().get("position") is not None:
            raise HTTPException(400, "records set up from a position cannot be played here")
        seats = body.seats or [Seat(kind="human")] + [Seat(kind="bot")] * (game.num_players - 1)
        return start_game(seats, game.to_record())

    @app.get("/api/games/{game_id}")
    def state(
        game_id: str, token: SeatToken = None, epoch: KnownEpoch = None, version: KnownVersion = None
    ) -> dict[str, Any]:
        return _view(games.get(game_id), token, epoch, version)

    def check_host(session: GameSession, token: str | None, what: str) -> None:
        if session.host is not None and not same_token(token, session.host):
            raise HTTPException(403, f"only the game's creator may {what}")

    @app.delete("/api/games/{game_id}")
    def delete(game_id: str, token: SeatToken = None) -> dict[str, Any]:
        check_host(games.get(game_id), token, "delete it")
        games.remove(game_id)
        return {"deleted": game_id}

    @app.get("/api/games/{game_id}/invites")
    def invites(game_id: str, token: SeatToken = None) -> dict[str, Any]:
        """The remote seats' tokens (for the invite links), for the game's creator only."""
        session = games.get(game_id)
        if session.host is None:
            raise HTTPException(404, "this game has no remote seats")
        check_host(session, token, "see the invite links")
        return _invites(session)

    @app.get("/api/games/{game_id}/events", include_in_schema=False)  # endless: no schema test
    async def events(game_id: str, request: Request, key: str | None = None) -> StreamingResponse:
        """Server-sent events: `state` (with the game's version, moves and the seats present) now
        and after every change, `deleted` at its deletion; anyone may follow a game. `key`, a
        seat's presence key (in the state), marks its seats present while the stream is open."""
        session = await run_in_threadpool(games.get, game_id)  # may read the store
        seats = seats_of_presence_key(session.seats, key)
        client = client_address(request.scope)
        if not streams.opened(client):
            raise HTTPException(429, "too many open event streams from this address")
        return StreamingResponse(
            streams.follow(session, client, seats),
            media_type="text/event-stream",
            headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"},  # no proxy buffering
        )

    @app.post("/api/games/{game_id}/actions")
    def act(
        game_id: str,
        move: Move,
        token: SeatToken = None,
        epoch: KnownEpoch = None,
        version: KnownVersion = None,
    ) -> dict[str, Any]:
        session = games.get(game_id)
        try:
            session.apply_human(move.action, seats_of(session.seats, token))
        except NotYourTurnError as e:
            raise HTTPException(409, str(e)) from e
        except NotYourSeatError as e:
            raise HTTPException(403, f"{e}: this page has no invite link for that seat") from e
        except IllegalActionError as e:
            raise HTTPException(400, f"illegal move {move.action!r}: {e}") from e
        return _view(session, token, epoch, version)

    @app.post("/api/games/{game_id}/undo", responses={202: {"description": "asked the others"}})
    def undo(game_id: str, response: Response, token: SeatToken = None) -> dict[str, Any]:
        """Back to the last human decision; in a game with friends' seats a request to the other
        people instead (a 202), made when they all accept. Never past another player's drawn
        tile in a game of several people (a 409)."""
        session = games.get(game_id)
        try:
            done = session.undo(seats_of(session.seats, token))
        except NotYourSeatError as e:
            raise HTTPException(403, str(e)) from e
        except (IllegalActionError, UndoRequestError) as e:
            raise HTTPException(409, str(e)) from e
        if not done:
            response.status_code = 202
        return _view(session, token)

    @app.post("/api/games/{game_id}/undo/answer")
    def answer_undo(game_id: str, body: UndoAnswer, token: SeatToken = None) -> dict[str, Any]:
        """An answer to the undo request, by a person it waits for: one refusal ends it, and the
        undo is made when the last one accepts."""
        session = games.get(game_id)
        try:
            session.answer_undo(seats_of(session.seats, token), body.accept)
        except NotYourSeatError as e:
            raise HTTPException(403, str(e)) from e
        except UndoRequestError as e:
            raise HTTPException(409, str(e)) from e
        return _view(session, token)

    @app.put("/api/games/{game_id}/seats/{seat}/name")
    def rename(game_id: str, seat: int, body: Rename, token: SeatToken = None) -> dict[str, Any]:
        """A seat's name, set by its own player (a friend by their key; in a hot-seat game
        anyone, for a person's seat)."""
        session = games.get(game_id)
        try:
            session.rename(seat, body.name, seats_of(session.seats, token))
        except IndexError as e:
            raise HTTPException(404, str(e)) from e
        except NotYourSeatError as e:
            raise HTTPException(403, str(e)) from e
        return _view(session, token)

    @app.post("/api/games/{game_id}/hint")
    def hint(game_id: str, body: HintRequest | None = None, token: SeatToken = None) -> dict[str, Any]:
        session = games.get(game_id)
        with session.lock:
            game = session.game.clone()
            bots_turn = session.is_bot(game.current_player)
        if game.is_chance or game.is_terminal or bots_turn:
            raise HTTPException(409, "there is no decision of yours to give a hint for")
        if game.current_player not in seats_of(session.seats, token):
            raise HTTPException(403, "a hint is for the player to move only")
        time = (body or HintRequest()).time
        moves = game.analyse(time=time)[:3]
        return {
            "player": game.current_player,
            "phase": game.phase,
            "moves": [
                {
                    "action": m["action"],
                    "label": label(m["action"], game.phase, game.count),
                    "visits": m["visits"],
                    "win": m["win"],
                    "then": _follow_up(game, m["action"], time / 2 / len(moves)),
                }
                for m in moves
            ],
        }

    @app.get("/api/games/{game_id}/review")
    def review(game_id: str) -> dict[str, Any]:
        """A finished game's review: each move's win chances, the costliest moves marked, the
        search's move there ({"status": "done", ...}); until it is computed (once, in the
        background), how far it is ({"status": "running", "done", "total"})."""
        try:
            return reviews.get(games.get(game_id))
        except NotFinishedError as e:
            raise HTTPException(409, str(e)) from e

    @app.post("/api/games/{game_id}/rematch", status_code=201)
    def rematch(game_id: str, token: SeatToken = None) -> dict[str, Any]:
        """A finished game's rematch: the same seats (names, bots, friends' keys) and rules, a new
        seed. Started once, by the game's creator; the finished game's state then names it, so
        every page finds it."""
        session = games.get(game_id)
        check_host(session, token, "start a rematch")
        with session.lock:
            if not session.game.is_terminal:
                raise HTTPException(409, "a rematch starts once the game is over")
            if session.rematch is not None:
                raise HTTPException(409, f"the rematch has begun already: game {session.rematch}")
            config = session.game.config | {"seed": secrets.randbelow(2**53)}
            seats = [dict(seat) for seat in session.seats]  # the same keys: each friend keeps theirs
            new = games.add(seats, Game(**config).to_record(), session.host)
            session.set_rematch(new.id)
        return _view(new, token) | ({"host_token": new.host} if new.host else {})

    @app.get("/api/games/{game_id}/replay/{moves}")
    def replay(game_id: str, moves: int) -> dict[str, Any]:
        try:
            return games.get(game_id).snapshot(moves)
        except IndexError as e:
            raise HTTPException(404, str(e)) from e

    @app.get("/api/games/{game_id}/record")
    def record(game_id: str) -> JSONResponse:
        session = games.get(game_id)
        with session.lock:
            body = session.game.to_record()
        return JSONResponse(
            body, headers={"Content-Disposition": f'attachment; filename="carcassonne-{game_id}.json"'}
        )

    return app


def serve(
    host: str = "127.0.0.1",
    port: int = 8000,
    data: str | Path = "carcassonne-data",
    client_streams: int | None = CLIENT_STREAMS,
    client_rate: float | None = CLIENT_RATE,
    allowed_hosts: Sequence[str] = (),
    forwarded_allow_ips: str | None = None,
) -> None:
    """Runs the play server until Ctrl-C. It answers requests whose Host header names a local
    address, `host` or one of `allowed_hosts` (see AllowedHosts). The client addresses that the
    limits count are the connections' own, unless `forwarded_allow_ips` names the reverse
    proxies whose X-Forwarded-For header gives the client's (uvicorn's `forwarded_allow_ips`)."""
    import uvicorn

    # First: a data folder that cannot be written is an error at once.
    app = create_app(data, client_streams, client_rate, AllowedHosts(host, allowed_hosts))
    where = Path(data).resolve()
    print(f"Carcassonne: open http://{host}:{port}/ in a browser (games kept in {where})", flush=True)
    if host not in LOCAL_HOSTS:
        print(
            f"Warning: listening on {host}: anyone who can reach this machine can open the page, watch"
            " and delete hot-seat games, and start games; there is no encryption (plain HTTP).",
            flush=True,
        )
    config = uvicorn.Config(
        app,
        host=host,
        port=port,
        log_level="warning",
        timeout_graceful_shutdown=2,
        # uvicorn would trust X-Forwarded-For from 127.0.0.1 by default: any local client could
        # then claim a new address with each request, and escape the per-client limits.
        proxy_headers=forwarded_allow_ips is not None,
        forwarded_allow_ips=forwarded_allow_ips,
    )
    server = uvicorn.Server(config)
    stop = server.handle_exit

    def handle_exit(sig: int, frame: Any) -> None:  # Ctrl-C: the event streams end first
        app.state.streams.end_all()
        stop(sig, frame)

    server.handle_exit = handle_exit  # type: ignore[method-assign]
    with contextlib.suppress(KeyboardInterrupt):  # uvicorn raises Ctrl-C again once it has stopped
        server.run()
