"""The play server: a FastAPI app with JSON endpoints for games, and the static page.

Endpoints (all JSON; errors are 4xx with {"detail": "..."} and change nothing):
  GET  /api/options                  expansions, variants, bot levels the page offers
  GET  /api/tiles                    every tile kind's SVG drawing and figure spots
  GET  /api/games                    the saved games
  POST /api/games                    a new game {seats: [...], expansions, variants, seed}
  POST /api/games/load               a game from a record {record, seats}
  GET  /api/games/{id}               the game as the page shows it (legal actions grouped)
  POST /api/games/{id}/actions       a human move {action: "place 1,0 r2"}
  POST /api/games/{id}/undo          back to the last human decision
  POST /api/games/{id}/hint          the best 3 moves by MCTS {time}
  GET  /api/games/{id}/record        the engine's game record (save)
  GET  /api/games/{id}/replay/{n}    the board after the record's first n actions (replay)
  DELETE /api/games/{id}
Bodies over MAX_BODY bytes are refused with a 413 before they are read whole (chunked ones too),
NaN and Infinity in a JSON body with a 400, and a move the store cannot save with a 503.
Sync handlers run in FastAPI's thread pool; the C++ searches release the GIL, so a hint or a bot
never blocks other requests.
"""

from __future__ import annotations

import json
import math
import re
import secrets
import threading
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import Any, Literal

from fastapi import FastAPI, HTTPException, Request, Response
from fastapi.responses import FileResponse, JSONResponse
from fastapi.routing import APIRoute
from fastapi.staticfiles import StaticFiles
from pydantic import BaseModel, Field
from starlette.datastructures import Headers
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from .. import _core
from ..game import Error, Game, IllegalActionError
from ..render import PLAYER_COLOURS, figure_svg, tile_catalogue
from ..render.tiles import ARROW_LETTERS, arrow_svg
from .actions import label
from .session import DEFAULT_HARD_TIME, FIGURE_KINDS, GameSession, NotYourTurnError
from .store import Store, StoreError

STATIC = Path(__file__).parent / "static"
MAX_BODY = 1 << 20  # bytes: a record of the longest game is far smaller
MAX_HINT_TIME = 10.0
SAVED_LISTED = 50  # the saved games the new-game dialog lists, newest first


class ErrorMessage(BaseModel):
    detail: str


# The errors any endpoint may answer, so that the OpenAPI schema documents them.
ERRORS: dict[int | str, dict[str, Any]] = {
    code: {"model": ErrorMessage, "description": what}
    for code, what in [
        (400, "a malformed body or an illegal move or record"),
        (404, "no such game"),
        (409, "not the time for this request (a bot's turn, nothing to undo)"),
        (413, f"a request body over {MAX_BODY} bytes"),
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


class Seat(BaseModel):
    kind: Literal["human", "bot"]
    level: Literal["easy", "medium", "hard"] = "easy"
    time: float = Field(DEFAULT_HARD_TIME, gt=0, le=60)  # seconds a move, hard bots


class NewGame(BaseModel):
    seats: list[Seat] = Field(min_length=2, max_length=6)
    expansions: list[str] = []
    variants: dict[str, str] = {}
    seed: int = Field(0, ge=0, lt=2**64)


class LoadGame(BaseModel):
    record: dict[str, Any] | str
    seats: list[Seat] | None = None


class Move(BaseModel):
    action: str = Field(max_length=100)


class HintRequest(BaseModel):
    time: float = Field(1.0, gt=0, le=MAX_HINT_TIME)


class Games:
    """The sessions in memory, loaded from the store on first use (so a restart continues them)."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self._sessions: dict[str, GameSession] = {}
        self._lock = threading.Lock()

    def add(self, seats: list[dict[str, Any]], record: dict[str, Any]) -> GameSession:
        session = GameSession(secrets.token_hex(6), seats, record, self.store)
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
                session = GameSession(game_id, saved[0], saved[1], self.store)
                session.start()
                self._sessions[game_id] = session
        return session

    def remove(self, game_id: str) -> None:
        session = self.get(game_id)
        session.delete()
        with self._lock:
            self._sessions.pop(game_id, None)


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
    return [{"kind": "human"} if s.kind == "human" else s.model_dump() for s in seats]


def create_app(data: str | Path = "carcassonne-data") -> FastAPI:
    """The play server's app, keeping its games in `data`/games.sqlite3."""
    app = FastAPI(title="Carcassonne", responses=ERRORS)
    app.router.route_class = StrictJSONRoute  # before any route is added
    app.add_middleware(BodyLimit, limit=MAX_BODY)
    games = Games(Store(data))  # a StoreError now if the folder cannot be written
    app.state.games = games

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

    @app.get("/api/options")
    def options() -> dict[str, Any]:
        return {
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

    @app.get("/api/tiles")
    def tiles() -> dict[str, Any]:
        return tile_catalogue()

    @app.get("/api/games")
    def list_games() -> list[dict[str, Any]]:
        """The newest saved games, each with its seats, expansions, turn, scores and whether it
        is finished (a record that no longer replays is listed as damaged, to be deleted)."""
        listed = []
        for game_id, updated, seats, record in games.store.newest(SAVED_LISTED):
            summary: dict[str, Any] = {"id": game_id, "updated": updated, "seats": seats}
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

    @app.post("/api/games", status_code=201)
    def new_game(body: NewGame) -> dict[str, Any]:
        game = Game(
            players=len(body.seats), expansions=body.expansions, variants=body.variants, seed=body.seed
        )
        return games.add(_seats(body.seats, game.num_players), game.to_record()).describe()

    @app.post("/api/games/load", status_code=201)
    def load_game(body: LoadGame) -> dict[str, Any]:
        text = body.record if isinstance(body.record, str) else json.dumps(body.record)
        game = Game.from_json(text)  # checks the whole record; RecordError is a 400
        if game.to_record().get("position") is not None:
            raise HTTPException(400, "records set up from a position cannot be played here")
        seats = body.seats or [Seat(kind="human")] + [Seat(kind="bot")] * (game.num_players - 1)
        return games.add(_seats(seats, game.num_players), game.to_record()).describe()

    @app.get("/api/games/{game_id}")
    def state(game_id: str) -> dict[str, Any]:
        return games.get(game_id).describe()

    @app.delete("/api/games/{game_id}")
    def delete(game_id: str) -> dict[str, Any]:
        games.remove(game_id)
        return {"deleted": game_id}

    @app.post("/api/games/{game_id}/actions")
    def act(game_id: str, move: Move) -> dict[str, Any]:
        session = games.get(game_id)
        try:
            session.apply_human(move.action)
        except NotYourTurnError as e:
            raise HTTPException(409, str(e)) from e
        except IllegalActionError as e:
            raise HTTPException(400, f"illegal move {move.action!r}: {e}") from e
        return session.describe()

    @app.post("/api/games/{game_id}/undo")
    def undo(game_id: str) -> dict[str, Any]:
        session = games.get(game_id)
        try:
            session.undo()
        except IllegalActionError as e:
            raise HTTPException(409, str(e)) from e
        return session.describe()

    @app.post("/api/games/{game_id}/hint")
    def hint(game_id: str, body: HintRequest | None = None) -> dict[str, Any]:
        session = games.get(game_id)
        with session.lock:
            game = session.game.clone()
            bots_turn = session.is_bot(game.current_player)
        if game.is_chance or game.is_terminal or bots_turn:
            raise HTTPException(409, "there is no decision of yours to give a hint for")
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


def serve(host: str = "127.0.0.1", port: int = 8000, data: str | Path = "carcassonne-data") -> None:
    """Runs the play server until Ctrl-C."""
    import uvicorn

    app = create_app(data)  # first: a data folder that cannot be written is an error at once
    where = Path(data).resolve()
    print(f"Carcassonne: open http://{host}:{port}/ in a browser (games kept in {where})", flush=True)
    uvicorn.run(app, host=host, port=port, log_level="warning")
