"""What the play server sends over the wire: compressed answers, the tile drawings cached by the
browser (ETag, 304), and a move's answer without the log entries the page has already."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("fastapi")

from fastapi.testclient import TestClient

from carcassonne.play.server import create_app
from helpers import every_legal_action
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
    """The query a page sends with a request for a state: the log it has."""
    return {"log_from": len(state["log"]), "log_digest": state["log_digest"]}


def test_a_move_sends_only_the_log_entries_the_page_lacks(client: TestClient) -> None:
    before = mid_game(client)
    game = f"/api/games/{before['id']}"
    assert before["log_from"] == 0 and len(before["log"]) == before["moves"]  # a plain read: all
    action = every_legal_action(before)[0]
    gzip_only = {"Accept-Encoding": "gzip"}
    moved = client.post(f"{game}/actions", params=known(before), json={"action": action}, headers=gzip_only)
    assert moved.status_code == 200, moved.text
    after = moved.json()
    assert after["log_from"] == before["moves"] and after["log"][0]["action"] == action
    whole = client.get(game).json()
    assert before["log"] + after["log"] == whole["log"]  # the page's log, joined: the whole one
    assert after["log_digest"] == whole["log_digest"] != before["log_digest"]
    assert {k: v for k, v in after.items() if k not in ("log", "log_from")} == {
        k: v for k, v in whole.items() if k not in ("log", "log_from")
    }
    # What the move cost: its answer, compressed and without the old log, against the whole
    # state as it was sent before (uncompressed, the whole log).
    full = len(client.get(game, headers={"Accept-Encoding": "identity"}).content)
    assert wire_bytes(moved) < full / 10, (wire_bytes(moved), full)
    # Reading the state the same way leaves out the old log too.
    again = client.get(game, params=known(after | {"log": before["log"] + after["log"]}))
    assert again.json()["log"] == [] and again.json()["log_from"] == whole["moves"]


def test_a_log_the_server_does_not_recognise_gets_the_whole_log(client: TestClient) -> None:
    state = mid_game(client, moves=5)  # the first player has just placed a tile
    game = f"/api/games/{state['id']}"
    moves = state["moves"]
    for query in (
        {"log_from": moves, "log_digest": "0" * 16},  # another game's, or another branch's
        {"log_from": moves + 1, "log_digest": state["log_digest"]},  # more than there is
        {"log_from": moves - 1, "log_digest": state["log_digest"]},  # the digest of another length
        {"log_from": moves},  # no digest
    ):
        answer = client.get(game, params=query).json()
        assert answer["log_from"] == 0 and answer["log"] == state["log"], query
    # After an undo and another move, a log as long as the page's is not the page's.
    assert client.post(f"{game}/undo").status_code == 200
    other = sorted(every_legal_action(client.get(game).json()))[-1]
    assert other != state["log"][-1]["action"]
    replayed = client.post(f"{game}/actions", params=known(state), json={"action": other}).json()
    assert replayed["moves"] == moves and replayed["log_from"] == 0
    assert replayed["log"][:-1] == state["log"][:-1] and replayed["log"][-1]["action"] == other
    for bad in ({"log_from": -1, "log_digest": "x"}, {"log_from": "a", "log_digest": "x"}):
        assert client.get(game, params=bad).status_code == 422
    assert client.get(game, params={"log_from": 1, "log_digest": "x" * 200}).status_code == 422
