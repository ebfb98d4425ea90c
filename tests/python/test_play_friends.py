"""Playing with friends on the play server: remote seats by token, spectators, the event stream,
and the guards (Origin check, per-client limits). Seconds in all."""

from __future__ import annotations

import contextlib
import json
import logging
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("fastapi")
httpx = pytest.importorskip("httpx")
uvicorn = pytest.importorskip("uvicorn")

from fastapi.testclient import TestClient  # noqa: E402

from carcassonne.play.server import create_app  # noqa: E402
from helpers import HANG_GUARD_S  # noqa: E402

pytestmark = pytest.mark.concurrency  # threads, signals or servers: tools/under_load.sh --quick

HOST, REMOTE = {"kind": "human"}, {"kind": "remote"}
EASY = {"kind": "bot", "level": "easy"}


@pytest.fixture
def client(tmp_path: Path) -> TestClient:
    return TestClient(create_app(tmp_path))


def first_action(state: dict[str, Any]) -> str:
    legal = state["legal"]
    if legal["placements"]:
        return next(iter(legal["placements"][0]["rotations"].values()))
    return (legal["choices"] or legal["figures"] or legal["every"])[0]["action"]


def move(client: Any, state: dict[str, Any], token: str | None, action: str | None = None) -> Any:
    headers = {"X-Seat-Token": token} if token else {}
    body = {"action": action or first_action(state)}
    return client.post(f"/api/games/{state['id']}/actions", json=body, headers=headers)


def friends_game(client: Any) -> tuple[dict[str, Any], str, str]:
    """A game of the creator (Red, at this screen) and a friend (Blue, by invite link): its
    state as the creator got it, the host token and the friend's token."""
    response = client.post("/api/games", json={"seats": [HOST, REMOTE], "seed": 4})
    assert response.status_code == 201, response.text
    state = response.json()
    assert [i["seat"] for i in state["invites"]] == [1]
    return state, state["host_token"], state["invites"][0]["token"]


def test_only_a_seats_token_moves_for_it_and_a_refusal_changes_nothing(client: TestClient) -> None:
    state, host, friend = friends_game(client)
    assert state["you"] == [0] and state["your_turn"] and state["host"]
    assert state["seats"] == [HOST, REMOTE]  # no token in the seats anyone sees
    for token in (None, friend, "not-a-token", host + "x", host[:-1]):
        refused = move(client, state, token)
        assert refused.status_code == 403, (token, refused.text)
        assert "invite link" in refused.json()["detail"]
    assert client.get(f"/api/games/{state['id']}").json()["moves"] == state["moves"]

    state = move(client, state, host).json()  # the tile
    state = move(client, state, host, "pass").json()  # no figure: the friend's turn
    assert state["current_player"] == 1 and not state["your_turn"] and state["human_to_move"]
    assert move(client, state, host).status_code == 403
    mine = client.get(f"/api/games/{state['id']}", headers={"X-Seat-Token": friend}).json()
    assert mine["you"] == [1] and mine["your_turn"] and not mine["host"]
    assert move(client, mine, friend).status_code == 200


def test_a_spectator_reads_but_may_not_move_hint_undo_delete_or_see_invites(client: TestClient) -> None:
    state, host, friend = friends_game(client)
    game = f"/api/games/{state['id']}"
    watched = client.get(game).json()
    assert watched["you"] == [] and not watched["your_turn"] and not watched["host"]
    assert client.post(f"{game}/hint", json={"time": 0.05}).status_code == 403
    assert (
        client.post(f"{game}/hint", json={"time": 0.05}, headers={"X-Seat-Token": friend}).status_code == 403
    )
    assert client.post(f"{game}/hint", json={"time": 0.05}, headers={"X-Seat-Token": host}).status_code == 200
    move(client, state, host)
    # Undo: only the player of the last move takes it back (asking the friend, who agrees).
    assert client.post(f"{game}/undo").status_code == 403
    assert client.post(f"{game}/undo", headers={"X-Seat-Token": friend}).status_code == 403
    assert client.get(game).json()["moves"] == state["moves"] + 1
    assert client.post(f"{game}/undo", headers={"X-Seat-Token": host}).status_code == 202
    assert answer(client, state["id"], friend, True).json()["moves"] == state["moves"]
    # The invite links and the deletion are the creator's.
    for token in (None, friend):
        headers = {"X-Seat-Token": token} if token else {}
        assert client.get(f"{game}/invites", headers=headers).status_code == 403
        assert client.delete(game, headers=headers).status_code == 403
    invites = client.get(f"{game}/invites", headers={"X-Seat-Token": host}).json()
    assert invites["invites"] == [{"seat": 1, "token": friend}]
    assert client.delete(game, headers={"X-Seat-Token": host}).status_code == 200
    assert client.get(game).status_code == 404


def test_no_token_is_in_what_a_spectator_or_the_other_seat_gets(client: TestClient) -> None:
    state, host, friend = friends_game(client)
    game = f"/api/games/{state['id']}"
    state = move(client, state, host).json()
    state = move(client, state, host, "pass").json()
    for token, other in ((None, None), (friend, host)):
        headers = {"X-Seat-Token": token} if token else {}
        answers = [
            client.get(game, headers=headers),
            client.get("/api/games", headers=headers),
            client.get(f"{game}/record", headers=headers),
            client.get(f"{game}/replay/2", headers=headers),
            client.get(f"{game}/invites", headers=headers),
        ]
        if token:
            answers.append(move(client, client.get(game, headers=headers).json(), token))
            answers.append(client.post(f"{game}/undo", headers=headers))
        for answer in answers:
            assert answer.status_code < 500
            for secret in filter(None, (other, None if token else friend)):
                assert secret not in answer.text, answer.request.url


def test_a_hot_seat_game_has_no_tokens_and_any_page_moves_for_its_people(client: TestClient) -> None:
    state = client.post("/api/games", json={"seats": [HOST, HOST], "seed": 2}).json()
    assert "host_token" not in state and state["you"] == [0, 1] and not state["host"]
    assert move(client, state, None).status_code == 200
    assert client.get(f"/api/games/{state['id']}/invites").status_code == 404


def test_a_state_change_from_another_sites_page_is_refused(client: TestClient) -> None:
    state, host, _ = friends_game(client)
    headers = {"X-Seat-Token": host, "Origin": "http://evil.example"}
    body = {"action": first_action(state)}
    refused = client.post(f"/api/games/{state['id']}/actions", json=body, headers=headers)
    assert refused.status_code == 403 and "another site" in refused.json()["detail"]
    assert (
        client.post("/api/games", json={"seats": [HOST, EASY]}, headers={"Origin": "null"}).status_code == 403
    )
    assert client.get(f"/api/games/{state['id']}", headers=headers).status_code == 200  # reading is fine
    headers["Origin"] = "http://testserver"  # the page's own site
    assert client.post(f"/api/games/{state['id']}/actions", json=body, headers=headers).status_code == 200


def test_a_client_over_its_request_rate_gets_a_429_and_others_do_not(tmp_path: Path) -> None:
    app = create_app(tmp_path, client_rate=5)  # bursts of 20
    client = TestClient(app)
    codes = [client.get("/api/options").status_code for _ in range(30)]
    assert codes[:20] == [200] * 20 and 429 in codes[20:]
    other = TestClient(app, client=("10.0.0.2", 5000))
    assert other.get("/api/options").status_code == 200
    assert client.get("/").status_code == 200  # the page itself is not counted


# ---- The event stream, through a real server (TestClient reads a response to its end) ----------


@contextlib.contextmanager
def live_server(data: Path, **limits: Any) -> Iterator[str]:
    """uvicorn in a thread, its access log on (as a user may run it), logging to the root logger."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    config = uvicorn.Config(
        create_app(data, **limits),
        host="127.0.0.1",
        port=port,
        log_config=None,
        log_level="info",
        timeout_graceful_shutdown=1,
    )
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + HANG_GUARD_S
    while not server.started:
        assert time.monotonic() < deadline and thread.is_alive(), "the server did not start"
        time.sleep(0.02)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(10)


def events(response: Any) -> Iterator[tuple[str, dict[str, Any]]]:
    """(event name, data) of a server-sent event stream, keep-alives skipped."""
    name = None
    for line in response.iter_lines():
        if line.startswith("event: "):
            name = line[7:]
        elif line.startswith("data: "):
            yield name or "message", json.loads(line[6:])
            name = None


def test_a_move_is_pushed_to_every_page_following_the_game_and_no_token_reaches_the_log(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO)
    with live_server(tmp_path) as url, httpx.Client(base_url=url, timeout=HANG_GUARD_S) as client:
        state, host, friend = friends_game(client)
        game = f"/api/games/{state['id']}"
        with client.stream("GET", f"{game}/events") as stream:
            assert stream.headers["content-type"].startswith("text/event-stream")
            assert "content-encoding" not in stream.headers  # gzip accepted, but events go out at once
            received = events(stream)
            name, first = next(received)
            assert name == "state" and first["moves"] == state["moves"]
            move(client, state, host)
            name, pushed = next(received)  # the client's timeout is the hang guard
            assert name == "state" and pushed["moves"] == state["moves"] + 1
            assert pushed["version"] > first["version"]
            client.delete(game, headers={"X-Seat-Token": host})
            assert next(received)[0] == "deleted"
    logged = caplog.text
    assert f"POST {game}/actions" in logged, "the access log was on"
    assert host not in logged and friend not in logged


def test_event_streams_per_client_are_limited_and_a_closed_one_frees_its_place(tmp_path: Path) -> None:
    with (
        live_server(tmp_path, client_streams=2) as url,
        httpx.Client(base_url=url, timeout=HANG_GUARD_S) as client,
    ):
        game = client.post("/api/games", json={"seats": [HOST, EASY], "seed": 1}).json()["id"]
        path = f"/api/games/{game}/events"
        with client.stream("GET", path) as one, client.stream("GET", path) as two:
            assert one.status_code == two.status_code == 200
            # Kept: a reader dropped closes its response (the server sees a disconnect).
            readers = [events(one), events(two)]
            assert [next(r)[0] for r in readers] == ["state", "state"]
            refused = client.get(path)
            assert refused.status_code == 429 and "event streams" in refused.json()["detail"]
        deadline = time.monotonic() + HANG_GUARD_S
        while True:  # the server notices the closed streams
            with client.stream("GET", path) as again:
                if again.status_code == 200:
                    break
            assert time.monotonic() < deadline, "a closed stream kept its place"
            time.sleep(0.1)
        assert client.get("/api/games/nope/events").status_code == 404


# ---- Undo among people: consent, and never past another player's revealed tile ----------------


def undo(client: Any, game_id: str, token: str | None) -> Any:
    return client.post(f"/api/games/{game_id}/undo", headers={"X-Seat-Token": token} if token else {})


def answer(client: Any, game_id: str, token: str | None, accept: bool) -> Any:
    headers = {"X-Seat-Token": token} if token else {}
    return client.post(f"/api/games/{game_id}/undo/answer", json={"accept": accept}, headers=headers)


def test_a_friends_undo_asks_the_others_and_happens_when_they_accept(client: TestClient) -> None:
    state, host, friend = friends_game(client)
    game_id, start = state["id"], state["moves"]
    placed = move(client, state, host).json()  # Red's tile: Red may take it back, if Blue agrees
    assert placed["undo"] == {"allowed": True, "why": None, "consent": True}
    asked = undo(client, game_id, host)
    assert asked.status_code == 202, asked.text
    request = asked.json()["undo_request"]
    assert request == {"seat": 0, "asked_by": [0], "waiting": [1], "refused_by": None, "moves": start}
    assert asked.json()["moves"] == start + 1  # nothing taken back yet
    seen = client.get(f"/api/games/{game_id}", headers={"X-Seat-Token": friend}).json()
    assert seen["undo_request"] == request
    # Only the people asked answer: not the one who asked, not a spectator.
    assert answer(client, game_id, host, True).status_code == 403
    assert answer(client, game_id, None, True).status_code == 403
    assert undo(client, game_id, host).status_code == 409  # asked already
    done = answer(client, game_id, friend, True)
    assert done.status_code == 200, done.text
    assert done.json()["moves"] == start and done.json()["undo_request"] is None
    assert client.get(f"/api/games/{game_id}").json()["legal"] == state["legal"]


def test_a_refused_or_lapsed_undo_changes_nothing(client: TestClient) -> None:
    state, host, friend = friends_game(client)
    game_id = state["id"]
    placed = move(client, state, host).json()
    undo(client, game_id, host)
    refused = answer(client, game_id, friend, False).json()
    assert refused["moves"] == placed["moves"] and refused["undo_request"]["refused_by"] == 1
    again = undo(client, game_id, host)  # not again until someone moves
    assert again.status_code == 409 and "refused" in again.json()["detail"]
    assert answer(client, game_id, friend, True).status_code == 409  # nothing waits for an answer
    # A request lapses when anyone moves: the answer then comes too late.
    state = client.get(f"/api/games/{game_id}").json()
    assert state["undo_request"]["refused_by"] == 1
    after = move(client, state, host, "pass").json()
    assert after["undo_request"] is None
    state = move(client, after, friend).json()  # Blue's tile; Blue asks, then Blue moves on
    assert undo(client, game_id, friend).status_code == 202
    moved = move(client, state, friend, "pass").json()
    assert moved["undo_request"] is None
    assert answer(client, game_id, host, True).status_code == 409
    assert client.get(f"/api/games/{game_id}").json()["moves"] == moved["moves"]


def test_no_undo_goes_back_past_another_players_revealed_tile(client: TestClient) -> None:
    state, host, friend = friends_game(client)
    game_id = state["id"]
    state = move(client, state, host).json()
    state = move(client, state, host, "pass").json()  # Blue's tile is drawn: Red's turn is past
    mine = client.get(f"/api/games/{game_id}", headers={"X-Seat-Token": host}).json()
    assert not mine["undo"]["allowed"] and "drawn" in mine["undo"]["why"]
    refused = undo(client, game_id, host)
    assert refused.status_code == 409 and "drawn" in refused.json()["detail"]
    # The tester's case: Blue plays, sees Red's next tile, and tries to take its own move back.
    state = move(client, state, friend).json()
    state = move(client, state, friend, "pass").json()
    for _ in range(2):
        assert undo(client, game_id, friend).status_code == 409
    assert client.get(f"/api/games/{game_id}").json()["moves"] == state["moves"]
    assert client.get(f"/api/games/{game_id}").json()["undo_request"] is None


def test_a_hot_seat_undo_never_passes_the_next_players_revealed_tile(client: TestClient) -> None:
    state = client.post("/api/games", json={"seats": [HOST, HOST], "seed": 2}).json()
    state = move(client, state, None).json()
    assert state["undo"] == {"allowed": True, "why": None, "consent": False}
    state = move(client, state, None, "pass").json()
    assert undo(client, state["id"], None).status_code == 409
    placed = move(client, state, None).json()  # Blue's own tile: Blue may take it back at once
    undone = undo(client, state["id"], None)
    assert undone.status_code == 200 and undone.json()["moves"] == placed["moves"] - 1


# ---- Names -----------------------------------------------------------------------------------

TRICKY_NAME = "<script>\"Eve's</script>"


def rename(client: Any, game_id: str, seat: int, name: Any, token: str | None) -> Any:
    headers = {"X-Seat-Token": token} if token else {}
    return client.put(f"/api/games/{game_id}/seats/{seat}/name", json={"name": name}, headers=headers)


def test_seats_have_the_names_their_people_give_and_a_restart_keeps_them(tmp_path: Path) -> None:
    client = TestClient(create_app(tmp_path))
    seats = [{"kind": "human", "name": " Ann "}, REMOTE, {**EASY, "name": "Robo"}]
    state = client.post("/api/games", json={"seats": seats, "seed": 3}).json()
    game_id, host, friend = state["id"], state["host_token"], state["invites"][0]["token"]
    assert [s.get("name") for s in state["seats"]] == ["Ann", None, "Robo"]
    named = rename(client, game_id, 1, TRICKY_NAME, friend)  # the friend names their own seat
    assert named.status_code == 200 and named.json()["seats"][1]["name"] == TRICKY_NAME
    # Only a seat's own player names it.
    for seat, token in ((1, host), (1, None), (0, friend), (2, friend), (2, host)):
        assert rename(client, game_id, seat, "Mallory", token).status_code == 403, (seat, token)
    assert rename(client, game_id, 5, "Mallory", friend).status_code == 404
    assert rename(client, game_id, 0, "Annie", host).status_code == 200

    client = TestClient(create_app(tmp_path))  # a restart
    kept = client.get(f"/api/games/{game_id}").json()["seats"]
    assert [s.get("name") for s in kept] == ["Annie", TRICKY_NAME, "Robo"]
    listed = client.get("/api/games").json()[0]["seats"]
    assert [s.get("name") for s in listed] == ["Annie", TRICKY_NAME, "Robo"]


@pytest.mark.parametrize("name", ["", "   ", "x" * 25, "Ann\nBob", "tab\there", "\u200b", 7])
def test_a_bad_name_is_a_422_that_says_why_and_changes_nothing(client: TestClient, name: Any) -> None:
    state, _, friend = friends_game(client)
    refused = rename(client, state["id"], 1, name, friend)
    assert refused.status_code == 422, refused.text
    assert "name" in json.dumps(refused.json()["detail"])
    assert client.get(f"/api/games/{state['id']}").json()["seats"] == [HOST, REMOTE]
    made = client.post("/api/games", json={"seats": [{"kind": "human", "name": name}, EASY]})
    assert made.status_code == 422


# ---- Presence: whose page follows the game -----------------------------------------------------


def test_every_page_sees_which_seats_have_their_page_open(tmp_path: Path) -> None:
    with live_server(tmp_path) as url, httpx.Client(base_url=url, timeout=HANG_GUARD_S) as client:
        state, host, friend = friends_game(client)
        game = f"/api/games/{state['id']}"
        assert state["present"] == [] and state["presence_key"]
        theirs = client.get(game, headers={"X-Seat-Token": friend}).json()["presence_key"]
        assert theirs not in (state["presence_key"], friend, host)
        assert client.get(game).json()["presence_key"] is None  # a spectator is nobody's presence
        with client.stream("GET", f"{game}/events", params={"key": state["presence_key"]}) as mine:
            received = events(mine)
            assert next(received)[1]["present"] == [0]
            with client.stream("GET", f"{game}/events", params={"key": "wrong"}) as watcher:
                assert next(events(watcher))[1]["present"] == [0]  # a watcher is no seat
                with client.stream("GET", f"{game}/events", params={"key": theirs}):
                    assert next(received)[1]["present"] == [0, 1]  # the friend came
                    assert client.get(game).json()["present"] == [0, 1]
                assert next(received)[1]["present"] == [0]  # and left
            version = state["version"]
            assert client.get(game).json()["version"] == version  # presence is not a move


# ---- Rematch -----------------------------------------------------------------------------------


def test_a_rematch_seats_the_same_people_and_their_pages_find_it(tmp_path: Path) -> None:
    client = TestClient(create_app(tmp_path))
    seats = [{"kind": "human", "name": "Ann"}, {"kind": "remote", "name": "Eve"}, EASY]
    state = client.post("/api/games", json={"seats": seats, "seed": 5}).json()
    game, host, friend = f"/api/games/{state['id']}", state["host_token"], state["invites"][0]["token"]
    rematch = f"{game}/rematch"
    assert client.post(rematch, headers={"X-Seat-Token": host}).status_code == 409  # not over yet
    tokens = {0: host, 1: friend}
    while not state["terminal"]:
        if state["human_to_move"]:
            state = move(client, state, tokens[state["current_player"]]).json()
        else:  # the bot
            state = client.get(game, headers={"X-Seat-Token": host}).json()
    for token in (friend, None):
        assert client.post(rematch, headers={"X-Seat-Token": token} if token else {}).status_code == 403
    made = client.post(rematch, headers={"X-Seat-Token": host})
    assert made.status_code == 201, made.text
    new = made.json()
    assert new["id"] != state["id"] and not new["terminal"] and new["host_token"] == host
    assert new["seats"] == state["seats"] and new["config"]["expansions"] == state["config"]["expansions"]
    assert new["config"]["seed"] != state["config"]["seed"]
    # The friend's key is their seat's in the rematch too; the finished game points to it.
    theirs = client.get(f"/api/games/{new['id']}", headers={"X-Seat-Token": friend}).json()
    assert theirs["you"] == [1]
    assert client.post(rematch, headers={"X-Seat-Token": host}).status_code == 409  # one rematch
    client = TestClient(create_app(tmp_path))  # a restart keeps the way there
    assert client.get(game).json()["rematch"] == new["id"]
