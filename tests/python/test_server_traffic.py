"""What the play server sends over the wire: compressed answers, the tile drawings cached by the
browser (ETag, 304), and a state answer with only what changed since the state the page has."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("fastapi")

from fastapi.testclient import TestClient

from carcassonne import Game
from carcassonne.play.server import create_app
from carcassonne.play.session import DESCRIBED_VERSIONS, GameSession, merge_state
from carcassonne.play.store import Store
from helpers import HANG_GUARD_S, every_legal_action
from test_server import EASY, HUMAN, new_game


@pytest.fixture
def client(tmp_path: Path) -> TestClient:
    return TestClient(create_app(tmp_path))


def wire_bytes(response: Any) -> int:
    """The bytes of the answer's body as sent (compressed or not)."""
    return int(response.headers["content-length"])


def test_answers_are_compressed_for_a_client_that_accepts_gzip(client: TestClient) -> None:
    plain = client.get("/api/tiles", headers={"Accept-Encoding": "identity"})
    assert "content-encoding" not in plain.headers
    packed = client.get("/api/tiles", headers={"Accept-Encoding": "gzip"})
    assert packed.headers["content-encoding"] == "gzip"
    assert packed.json() == plain.json()  # the client unpacks it
    assert wire_bytes(packed) < wire_bytes(plain) / 5
    state = new_game(client, [HUMAN, EASY])
    answer = client.get(f"/api/games/{state['id']}", headers={"Accept-Encoding": "gzip"})
    assert answer.headers["content-encoding"] == "gzip"
    assert "accept-encoding" in answer.headers["vary"].lower()  # a cache keeps both forms apart


@pytest.mark.parametrize("path", ["/api/tiles", "/api/options"])
def test_fixed_data_is_revalidated_by_its_etag_and_not_sent_again(client: TestClient, path: str) -> None:
    first = client.get(path)
    assert first.status_code == 200
    etag = first.headers["etag"]
    assert etag.startswith('"') and "no-cache" in first.headers["cache-control"]  # kept, asked again
    again = client.get(path, headers={"If-None-Match": etag})
    assert again.status_code == 304 and again.content == b"" and again.headers["etag"] == etag
    listed = client.get(path, headers={"If-None-Match": f'"other", W/{etag}'})
    assert listed.status_code == 304  # a list, and a weak tag, match too
    assert client.get(path, headers={"If-None-Match": "*"}).status_code == 304
    other = client.get(path, headers={"If-None-Match": '"another-version"'})
    assert other.status_code == 200 and other.json() == first.json()
    assert other.headers["etag"] == etag  # the same data, the same tag
    assert client.get(path, headers={"Accept-Encoding": "gzip"}).headers["etag"] == etag


def mid_game(client: TestClient, moves: int = 60) -> dict[str, Any]:
    """A hot-seat game of two people (no bot moves meanwhile), `moves` of their decisions in."""
    state = new_game(client, [HUMAN, HUMAN])
    for _ in range(moves):
        moved = client.post(
            f"/api/games/{state['id']}/actions", json={"action": every_legal_action(state)[0]}
        )
        assert moved.status_code == 200, moved.text
        state = moved.json()
    return state


def known(state: dict[str, Any]) -> dict[str, Any]:
    """The query a page sends with a request for a state: the state it has."""
    return {"epoch": state["epoch"], "version": state["version"]}


def whole(state: dict[str, Any]) -> dict[str, Any]:
    """A state without what says how it was sent."""
    return {k: v for k, v in state.items() if k not in ("since", "appended")}


def test_a_game_against_the_bot_played_on_changes_ends_with_exactly_the_whole_state(
    client: TestClient,
) -> None:
    """Two players, one the easy bot, played as the page plays: each move and each read names the
    state the page has and gets only the changes. Joined, they give the state a whole read gives,
    at every version both saw and at the end, for a fraction of the bytes."""
    state = new_game(client, [HUMAN, EASY])
    game = f"/api/games/{state['id']}"
    moves = changes_bytes = decision_bytes = whole_bytes = compared = 0
    deadline = time.monotonic() + HANG_GUARD_S * 5
    while not state["terminal"]:
        assert time.monotonic() < deadline, "the game did not end"
        if state["your_turn"]:
            action = every_legal_action(state)[0]
            answer = client.post(f"{game}/actions", params=known(state), json={"action": action})
        else:
            time.sleep(0.01)  # the bot moves in its thread
            answer = client.get(game, params=known(state))
        assert answer.status_code == 200, answer.text
        assert answer.json()["since"] == state["version"]  # never far behind here
        state = merge_state(state, answer.json())
        read = client.get(game)
        if state["your_turn"] or answer.request.method == "POST":
            moves += 1
            changes_bytes += len(answer.content)
            legal = answer.json()["legal"]
            decision_bytes += len(json.dumps(legal, separators=(",", ":"), ensure_ascii=False).encode())
            whole_bytes += len(read.content)
        if read.json()["version"] == state["version"]:  # not a bot's move newer
            assert whole(read.json()) == whole(state)
            compared += 1
    assert whole(client.get(game).json()) == whole(state)
    assert compared > moves / 2
    # Uncompressed: the moves' answers (and the reads when the person is to move again) against
    # whole reads; most of what they send is the next decision (`legal`), new at every move.
    assert changes_bytes < whole_bytes / 3, (moves, changes_bytes, whole_bytes)
    assert changes_bytes - decision_bytes < whole_bytes / 10, (moves, changes_bytes, decision_bytes)


def test_changes_follow_names_undos_and_anything_unknown_gets_the_whole_state(client: TestClient) -> None:
    state = mid_game(client, moves=20)
    game = f"/api/games/{state['id']}"
    assert state["since"] is None and state["appended"] == {}  # a plain read: whole
    action = every_legal_action(state)[0]
    answer = client.post(f"{game}/actions", params=known(state), json={"action": action}).json()
    assert answer["since"] == state["version"] and "config" not in answer  # it never changes
    assert answer["appended"]["log"] == len(state["log"]) and answer["log"][0]["action"] == action
    assert answer["appended"]["tiles"] == len(state["tiles"]) or action.startswith("meeple")
    state = merge_state(state, answer)
    assert whole(state) == whole(client.get(game).json())
    # Nothing new: only the keys sent every time (present may change without a new version).
    same = client.get(game, params=known(state)).json()
    assert same["since"] == state["version"] and same["appended"] == {}
    assert set(same) == {"id", "epoch", "version", "present", "since", "appended"} | {
        "you",
        "your_turn",
        "host",
        "undo",
        "presence_key",
    }
    assert whole(merge_state(state, same)) == whole(state)
    # A name: the seats change, nothing else of the game.
    renamed = client.put(f"{game}/seats/1/name", json={"name": "Eve"}).json()
    named = client.get(game, params=known(state)).json()
    assert named["seats"] == renamed["seats"] and "tiles" not in named and "log" not in named
    state = merge_state(state, named)
    # An undo (of a placement, before the next player's draw): the log and the board shrink, and
    # are sent whole.
    while state["phase"] != "place_tile":
        state = merge_state(
            state, client.post(f"{game}/actions", params=known(state), json={"action": "pass"}).json()
        )
    placed = client.post(
        f"{game}/actions", params=known(state), json={"action": every_legal_action(state)[0]}
    )
    state = merge_state(state, placed.json())
    assert client.post(f"{game}/undo").status_code == 200
    undone = client.get(game, params=known(state)).json()
    assert undone["since"] == state["version"] and "log" not in undone["appended"]
    assert len(undone["log"]) < len(state["log"])
    state = merge_state(state, undone)
    assert whole(state) == whole(client.get(game).json())
    # Another epoch (a server restarted), an unknown version, half a query: the whole state.
    for query in (
        {"epoch": state["epoch"] + 1, "version": state["version"]},
        {"epoch": state["epoch"], "version": state["version"] + 1},
        {"version": state["version"]},
        {"epoch": state["epoch"]},
    ):
        answer = client.get(game, params=query).json()
        assert answer["since"] is None and whole(answer) == whole(state), query
    # A version described too long ago: the whole state.
    old = state
    for _ in range(DESCRIBED_VERSIONS):
        state = client.post(f"{game}/actions", json={"action": every_legal_action(state)[0]}).json()
    answer = client.get(game, params=known(old)).json()
    assert answer["since"] is None and whole(answer) == whole(state)
    for bad in ({"epoch": -1, "version": 1}, {"epoch": "a", "version": 1}, {"epoch": 1, "version": 1.5}):
        assert client.get(game, params=bad).status_code == 422


def test_two_states_under_one_version_make_a_page_at_it_get_the_whole_state(tmp_path: Path) -> None:
    """A change that comes without a new version (a move the store refused lapses an undo
    request) must not leave a page with the other state of that version."""
    session = GameSession(
        "g", [{"kind": "human"}, {"kind": "human"}], Game(players=2, seed=1).to_record(), Store(tmp_path)
    )
    session.start()
    first = session.describe()
    session.undo_request = {"seat": 0, "asked_by": [0], "waiting": [1], "refused_by": None, "moves": 0}
    second = session.describe()
    assert second["version"] == first["version"] and second != first
    answer = session.changes(second, first["epoch"], first["version"])
    assert answer["since"] == first["version"] and whole(merge_state(first, answer)) == second
    assert set(answer) == set(second) | {"since", "appended"}
