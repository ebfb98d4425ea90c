"""The play server's JSON API (carcassonne.play.server) through FastAPI's TestClient."""

from __future__ import annotations

import asyncio
import contextlib
import json
import random
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("fastapi")


from fastapi.testclient import TestClient

from carcassonne import Game
from carcassonne.play.server import MAX_BODY, create_app
from carcassonne.play.store import StoreError
from helpers import HANG_GUARD_S, every_legal_action

pytestmark = pytest.mark.concurrency  # threads, signals or servers: tools/under_load.sh --quick

HUMAN = {"kind": "human"}
EASY = {"kind": "bot", "level": "easy"}


@pytest.fixture
def client(tmp_path: Path) -> TestClient:
    return TestClient(create_app(tmp_path))


def new_game(client: TestClient, seats: list[dict[str, Any]], **options: Any) -> dict[str, Any]:
    response = client.post("/api/games", json={"seats": seats, "seed": 3, **options})
    assert response.status_code == 201, response.text
    return response.json()


def wait_for_human(client: TestClient, game_id: str, timeout: float = HANG_GUARD_S) -> dict[str, Any]:
    """Polls until a human is to move or the game is over (the bots answer in a thread)."""
    deadline = time.monotonic() + timeout
    while True:
        state = client.get(f"/api/games/{game_id}").json()
        if state["human_to_move"] or state["terminal"]:
            return state
        assert state["bot_error"] is None
        assert time.monotonic() < deadline, "the bot did not answer in time"
        time.sleep(0.05)


def test_a_new_game_waits_for_the_human_with_the_drawn_tile_and_its_placements(client: TestClient) -> None:
    state = new_game(client, [HUMAN, EASY])
    assert state["phase"] == "place_tile" and state["human_to_move"] and state["current_player"] == 0
    assert state["drawn_tile"] and state["tiles"][0]["tile"] == "base.D-start"
    # The grouped actions are exactly the engine's legal actions, each once.
    game = Game(players=2, seed=3)
    game.apply_random_chance()
    assert sorted(every_legal_action(state)) == sorted(a.text for a in game.legal_actions())
    # Each legal cell says where it is in words, for the page's screen-reader names.
    where = {(cell["x"], cell["y"]): cell["where"] for cell in state["legal"]["placements"]}
    assert where == {
        (-1, 0): "1 left of the start tile",
        (1, 0): "1 right of the start tile",
        (0, 1): "1 down of the start tile",
    }


def test_a_human_move_gets_the_bots_reply_and_the_log_shows_both(client: TestClient) -> None:
    state = new_game(client, [HUMAN, EASY])
    placement = state["legal"]["placements"][0]
    response = client.post(
        f"/api/games/{state['id']}/actions", json={"action": next(iter(placement["rotations"].values()))}
    )
    assert response.status_code == 200, response.text
    assert response.json()["phase"] == "place_figure"
    client.post(f"/api/games/{state['id']}/actions", json={"action": "pass"})
    state = wait_for_human(client, state["id"])
    players = [entry["player"] for entry in state["log"] if entry["player"] >= 0]
    assert players[:2] == [0, 0] and 1 in players  # the bot placed its tile
    assert len(state["tiles"]) == 3 and state["current_player"] == 0


def test_an_illegal_or_malformed_move_is_a_400_and_changes_nothing(client: TestClient) -> None:
    state = new_game(client, [HUMAN, EASY])
    for action in ("place 40,40 r0", "meeple city#0", "nonsense", ""):
        response = client.post(f"/api/games/{state['id']}/actions", json={"action": action})
        assert response.status_code == 400, action
        assert "illegal move" in response.json()["detail"]
    after = client.get(f"/api/games/{state['id']}").json()
    assert after["moves"] == state["moves"] and after["legal"] == state["legal"]


def test_bad_requests_get_4xx_json_errors(client: TestClient) -> None:
    assert client.get("/api/games/nope").status_code == 404
    assert client.post("/api/games/nope/actions", json={"action": "pass"}).status_code == 404
    bad_games = [
        {"seats": [HUMAN]},  # too few seats
        {"seats": [HUMAN, {"kind": "alien"}]},
        {"seats": [HUMAN, EASY], "expansions": ["no-such-set"]},
        {"seats": [HUMAN, EASY], "variants": {"start": "moon"}},
        {"seats": [HUMAN, EASY], "seed": -1},
    ]
    for body in bad_games:
        response = client.post("/api/games", json=body)
        assert 400 <= response.status_code < 500, body
        assert "detail" in response.json()
    response = client.post(
        "/api/games", content=b"x" * (2 << 20), headers={"content-type": "application/json"}
    )
    assert response.status_code == 413
    state = new_game(client, [HUMAN, EASY])
    assert client.post(f"/api/games/{state['id']}/actions", json={"move": "pass"}).status_code == 422


def test_a_move_out_of_turn_is_a_409(client: TestClient) -> None:
    state = new_game(client, [EASY, {"kind": "bot", "level": "hard", "time": 5}])
    response = client.post(f"/api/games/{state['id']}/actions", json={"action": "pass"})
    assert response.status_code == 409
    client.delete(f"/api/games/{state['id']}")  # stops the bots' game


def test_undo_goes_back_to_the_humans_last_decision(client: TestClient) -> None:
    state = new_game(client, [HUMAN, EASY])
    assert client.post(f"/api/games/{state['id']}/undo").status_code == 409  # nothing to undo
    first = next(iter(state["legal"]["placements"][0]["rotations"].values()))
    client.post(f"/api/games/{state['id']}/actions", json={"action": first})
    client.post(f"/api/games/{state['id']}/actions", json={"action": "pass"})
    wait_for_human(client, state["id"])
    undone = client.post(f"/api/games/{state['id']}/undo").json()
    # Back at the figure decision after the placement, the bot's reply gone.
    assert undone["phase"] == "place_figure" and len(undone["tiles"]) == 2
    undone = client.post(f"/api/games/{state['id']}/undo").json()
    assert undone["phase"] == "place_tile" and undone["legal"] == state["legal"]


def test_save_and_load_round_trip_the_engine_record(client: TestClient) -> None:
    state = new_game(client, [HUMAN, EASY], expansions=["abbey-mayor"])
    client.post(f"/api/games/{state['id']}/actions", json={"action": every_legal_action(state)[0]})
    record = client.get(f"/api/games/{state['id']}/record").json()
    game = Game.from_json(json.dumps(record))
    assert game.config["expansions"] == ["abbey-mayor"]
    loaded = client.post("/api/games/load", json={"record": record, "seats": [HUMAN, EASY]}).json()
    assert loaded["id"] != state["id"]
    assert loaded["tiles"] == game.tiles and loaded["phase"] == game.phase
    bad = dict(record, actions=record["actions"] + ["place 99,99 r0"])
    response = client.post("/api/games/load", json={"record": bad})
    assert response.status_code == 400 and "record action" in response.json()["detail"]
    assert client.post("/api/games/load", json={"record": "{not json"}).status_code == 400


def test_a_game_without_a_seed_gets_a_fresh_random_one_kept_in_its_record(client: TestClient) -> None:
    """Two games started without a seed deal from different seeds (the same one: 1 in 2^53), and
    each record keeps its seed, so the game replays; a seed given is kept as given."""
    made = [client.post("/api/games", json={"seats": [HUMAN, HUMAN]}).json() for _ in range(2)]
    seeds = [state["config"]["seed"] for state in made]
    assert seeds[0] != seeds[1]
    record = client.get(f"/api/games/{made[0]['id']}/record").json()
    assert record["config"]["seed"] == seeds[0]
    again = client.post("/api/games/load", json={"record": record, "seats": [HUMAN, HUMAN]}).json()
    assert (again["drawn_tile"], again["bag"]) == (made[0]["drawn_tile"], made[0]["bag"])
    assert new_game(client, [HUMAN, HUMAN], seed=0)["config"]["seed"] == 0


def test_games_survive_a_server_restart(tmp_path: Path) -> None:
    first = TestClient(create_app(tmp_path))
    state = new_game(first, [HUMAN, EASY])
    action = every_legal_action(state)[0]
    first.post(f"/api/games/{state['id']}/actions", json={"action": action})
    before = first.get(f"/api/games/{state['id']}").json()
    again = TestClient(create_app(tmp_path)).get(f"/api/games/{state['id']}").json()
    for key in ("tiles", "figures", "phase", "legal", "scores", "moves"):
        assert again[key] == before[key]


def test_hint_gives_three_moves_with_win_chances(client: TestClient) -> None:
    state = new_game(client, [HUMAN, EASY])
    hint = client.post(f"/api/games/{state['id']}/hint", json={"time": 0.2}).json()
    assert len(hint["moves"]) == 3
    legal = set(every_legal_action(state))
    for move in hint["moves"]:
        assert move["action"] in legal and move["label"].startswith("Place the tile at ")
        assert len(move["win"]) == 2 and all(0 <= w <= 1 for w in move["win"])
    assert client.post(f"/api/games/{state['id']}/hint", json={"time": 1000}).status_code == 422


def test_a_game_between_bots_plays_to_the_end_with_scores_in_the_log(client: TestClient) -> None:
    state = new_game(client, [EASY, EASY, EASY], expansions=["abbey-mayor", "king-robber"])
    state = wait_for_human(client, state["id"], timeout=60)
    assert state["terminal"] and state["phase"] == "game_over"
    logged = [0, 0, 0]
    for entry in state["log"]:
        for s in entry["scored"]:
            logged[s["player"]] += s["points"]
    # The final scoring is booked item by item, not to the last move.
    final = [sum(item["points"][p] for item in state["final_scoring"]) for p in range(3)]
    assert state["final_scoring"] and sum(final) > 0
    assert not [item for item in state["final_scoring"] if item["what"] == "other"]
    assert [a + b for a, b in zip(logged, final, strict=True)] == state["scores"]
    assert sum(state["returns"]) == pytest.approx(1.0)


def test_the_log_holds_every_move_of_a_long_game_in_a_players_words(client: TestClient) -> None:
    state = wait_for_human(client, new_game(client, [EASY, EASY])["id"], timeout=60)
    assert state["moves"] > 200  # a base game of two: about 70 draws and 140 decisions
    assert [entry["index"] for entry in state["log"]] == list(range(state["moves"]))
    record = client.get(f"/api/games/{state['id']}/record").json()
    for entry, action in zip(state["log"], record["actions"], strict=True):
        assert entry["action"] == action
        text = entry["text"]
        # Tiles by what is on them, places from the start tile: never the engine's names.
        assert "base." not in text and "place " not in text and "#" not in text, text
        if action.startswith("draw "):
            assert entry["player"] == -1 and text.startswith("Drawn: a")
        elif action.startswith("place "):
            assert text.startswith("placed a") and "of the start tile" in text, text
        elif action.startswith("meeple "):
            assert text.startswith("put a meeple on the"), text
    placed = [e["text"] for e in state["log"] if e["action"].startswith("place ")]
    assert any("city tile" in t for t in placed) and any("road tile" in t for t in placed)
    assert any("monastery" in t for t in placed) and any("pennant" in t for t in placed)


def test_a_hint_at_a_placement_gives_whole_moves(client: TestClient) -> None:
    state = new_game(client, [HUMAN, EASY])
    hint = client.post(f"/api/games/{state['id']}/hint", json={"time": 0.3}).json()
    game = Game(players=2, seed=3)
    game.apply_random_chance()
    for move in hint["moves"]:
        after = game.clone()
        after.apply(move["action"])  # the placement, then the same player's figure decision
        assert move["then"]["action"] in [a.text for a in after.legal_actions()]
        assert move["then"]["label"]


def test_the_saved_games_list_who_plays_the_turn_and_whether_it_is_finished(client: TestClient) -> None:
    playing = new_game(client, [HUMAN, EASY])
    finished = wait_for_human(client, new_game(client, [EASY, EASY])["id"], timeout=60)
    listed = {g["id"]: g for g in client.get("/api/games").json()}
    assert [seat["kind"] for seat in listed[playing["id"]]["seats"]] == ["human", "bot"]
    assert listed[playing["id"]]["turn"] == 1 and not listed[playing["id"]]["finished"]
    assert listed[finished["id"]]["finished"] and listed[finished["id"]]["scores"] == finished["scores"]
    assert client.delete(f"/api/games/{finished['id']}").status_code == 200
    assert finished["id"] not in {g["id"] for g in client.get("/api/games").json()}


def test_a_hint_on_a_bots_turn_is_a_409(client: TestClient) -> None:
    slow = {"kind": "bot", "level": "hard", "time": 5}
    state = new_game(client, [slow, HUMAN])
    response = client.post(f"/api/games/{state['id']}/hint", json={"time": 0.1})
    assert response.status_code == 409 and "no decision of yours" in response.json()["detail"]
    client.delete(f"/api/games/{state['id']}")


def test_the_page_and_the_tile_drawings_are_served(client: TestClient) -> None:
    page = client.get("/")
    assert page.status_code == 200 and '<svg id="board"' in page.text
    assert client.get("/static/js/main.js").status_code == 200
    tiles = client.get("/api/tiles").json()
    assert tiles["base.D"]["svg"].startswith("<g") and len(tiles["base.D"]["anchors"]) == 4
    options = client.get("/api/options").json()
    assert "abbey-mayor" in options["expansions"] and len(options["colours"]) == 6


def test_replay_shows_the_board_after_any_number_of_moves(client: TestClient) -> None:
    state = new_game(client, [HUMAN, EASY])
    client.post(f"/api/games/{state['id']}/actions", json={"action": every_legal_action(state)[0]})
    client.post(f"/api/games/{state['id']}/actions", json={"action": "pass"})
    state = wait_for_human(client, state["id"])
    start = client.get(f"/api/games/{state['id']}/replay/0").json()
    assert start["tiles"] == state["tiles"][:1] and start["action"] is None
    one = client.get(f"/api/games/{state['id']}/replay/2").json()  # the draw and the placement
    assert one["tiles"] == state["tiles"][:2] and one["action"].startswith("place ")
    assert one["player"] == 0 and one["text"] == state["log"][1]["text"]  # in words, as the log
    assert start["player"] == -1 and start["text"] is None
    now = client.get(f"/api/games/{state['id']}/replay/{state['moves']}").json()
    assert now["tiles"] == state["tiles"] and now["scores"] == state["scores"]
    assert client.get(f"/api/games/{state['id']}/replay/{state['moves'] + 1}").status_code == 404
    assert client.get(f"/api/games/{state['id']}/replay/-1").status_code == 404


def test_medium_and_hard_bots_answer(client: TestClient) -> None:
    hard = {"kind": "bot", "level": "hard", "time": 0.3}
    state = new_game(client, [HUMAN, {"kind": "bot", "level": "medium"}, hard])
    client.post(f"/api/games/{state['id']}/actions", json={"action": every_legal_action(state)[0]})
    client.post(f"/api/games/{state['id']}/actions", json={"action": "pass"})
    state = wait_for_human(client, state["id"])
    assert {entry["player"] for entry in state["log"]} >= {0, 1, 2}
    assert len(state["tiles"]) == 4 and state["current_player"] == 0


def test_deleting_a_game_stops_its_bots_search_at_once(client: TestClient) -> None:
    # A bot thinking a minute a move, deleted while it thinks: its thread ends long before the
    # move would (the join's limit is a hang guard; a bot that finished its move first fails it).
    slow = {"kind": "bot", "level": "hard", "time": 60}
    state = new_game(client, [slow, slow])
    session = client.app.state.games.get(state["id"])
    thread = session.bot_thread
    time.sleep(0.3)  # the first bot is thinking, or about to
    assert client.delete(f"/api/games/{state['id']}").status_code == 200
    thread.join(HANG_GUARD_S / 2)
    assert not thread.is_alive()
    assert client.get(f"/api/games/{state['id']}").status_code == 404


MIXES = [
    ([], {}),
    (["abbey-mayor"], {}),
    (["abbey-mayor", "city", "king-robber", "shrines", "anniv20"], {"count_move": "follow"}),
    (["river2", "abbey-mayor", "anniv20"], {"start": "river2", "wagon_move": "c1"}),
]


@pytest.mark.parametrize(("expansions", "variants"), MIXES)
def test_every_legal_action_has_exactly_one_control_on_the_page(
    expansions: list[str], variants: dict[str, str]
) -> None:
    """Whatever the decision, the grouped actions are the engine's legal actions, each once, and
    every figure spot lies on a feature of a placed tile, so the page can always offer it."""
    from carcassonne.play.actions import grouped_actions
    from carcassonne.render import tile_catalogue

    catalogue = tile_catalogue()
    rng = random.Random(5)
    phases = set()
    for seed in range(3):
        game = Game(players=3, expansions=expansions, variants=variants, seed=seed)
        while not game.is_terminal:
            if game.is_chance:
                game.apply_random_chance()
                continue
            phases.add(game.phase)
            groups = grouped_actions(game)
            grouped = every_legal_action({"legal": groups})
            assert sorted(grouped) == sorted(a.text for a in game.legal_actions()), game.phase
            tiles = {(t["x"], t["y"]): t["tile"] for t in game.tiles}
            for figure in groups["figures"]:
                kind = catalogue[tiles[(figure["x"], figure["y"])]]
                assert kind["features"][figure["feature"]] == figure["feature_type"]
                assert kind["anchors"][figure["feature"]] is not None
            game.apply(rng.choice(game.legal_actions()))
    assert {"place_tile", "place_figure"} <= phases


def test_nan_and_infinity_in_any_json_body_are_a_400_and_change_nothing(client: TestClient) -> None:
    """Python's json reads NaN, Infinity and 1e999 (inf); the validation error that quotes one
    cannot be encoded, which was a 500 on every endpoint with a body."""
    state = new_game(client, [HUMAN, EASY])
    game = f"/api/games/{state['id']}"
    requests = [
        ("/api/games", '{"seats": [{"kind": "human"}, {"kind": "bot"}], "seed": NaN}'),
        ("/api/games", '{"seats": [{"kind": "human"}, {"kind": "bot", "time": Infinity}]}'),
        ("/api/games", '{"seats": [{"kind": "human"}, {"kind": "bot", "time": 1e999}]}'),
        ("/api/games/load", '{"record": {"format": NaN}}'),
        (f"{game}/actions", '{"action": "pass", "x": -Infinity}'),
        (f"{game}/hint", '{"time": NaN}'),
        (f"{game}/hint", '{"time": -1e400}'),
    ]
    for path, body in requests:
        response = client.post(path, content=body, headers={"content-type": "application/json"})
        assert response.status_code == 400, (path, body, response.text)
        assert "only finite numbers are accepted" in response.json()["detail"]
    assert len(client.get("/api/games").json()) == 1
    assert client.get(game).json()["moves"] == state["moves"]


def post_chunked(app: Any, path: str, chunks: Iterator[bytes]) -> tuple[int, Any, int]:
    """Posts a body without a length to the ASGI app as a server passes on a chunked one, chunk
    by chunk as the app asks for them (the TestClient reads a body whole before it sends it).
    Returns the status, the JSON answer and the bytes the app asked for."""
    read = 0
    sent: list[dict[str, Any]] = []

    async def receive() -> dict[str, Any]:
        nonlocal read
        chunk = next(chunks, b"")
        read += len(chunk)
        return {"type": "http.request", "body": chunk, "more_body": bool(chunk)}

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    scope = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": "POST",
        "scheme": "http",
        "path": path,
        "raw_path": path.encode(),
        "query_string": b"",
        "root_path": "",
        "headers": [(b"content-type", b"application/json"), (b"transfer-encoding", b"chunked")],
        "client": ("127.0.0.1", 50000),
        "server": ("127.0.0.1", 8000),
    }
    asyncio.run(app(scope, receive, send))
    body = b"".join(m.get("body", b"") for m in sent if m["type"] == "http.response.body")
    return sent[0]["status"], json.loads(body), read


def test_a_chunked_body_over_the_limit_is_refused_before_it_is_read_whole(client: TestClient) -> None:
    """A body without a Content-Length is counted as it arrives: 60 MiB are refused after 1 MiB."""
    chunk = b" " * (64 << 10)

    def body(size: int) -> Iterator[bytes]:
        yield b'{"seats": [{"kind": "human"}, {"kind": "bot"}]}'
        for _ in range(size // len(chunk)):
            yield chunk

    status, answer, read = post_chunked(client.app, "/api/games", body(60 << 20))
    assert status == 413 and "request body over" in answer["detail"]
    assert read <= MAX_BODY + 2 * len(chunk)
    assert client.get("/api/games").json() == []
    # A chunked body under the limit is read as any other.
    status, answer, read = post_chunked(client.app, "/api/games", body(5 * len(chunk)))
    assert status == 201 and answer["seats"][0] == HUMAN


def test_only_the_engines_text_of_an_action_is_accepted(client: TestClient) -> None:
    state = new_game(client, [HUMAN, EASY])
    action = every_legal_action(state)[0]
    for padded in (f" {action} ", f"{action}\n", action.replace(" ", "  "), action.replace(" ", "\t")):
        response = client.post(f"/api/games/{state['id']}/actions", json={"action": padded})
        assert response.status_code == 400, padded
        assert "illegal move" in response.json()["detail"]
    after = client.get(f"/api/games/{state['id']}").json()
    assert after["moves"] == state["moves"] and after["log"] == state["log"]
    moved = client.post(f"/api/games/{state['id']}/actions", json={"action": action}).json()
    assert moved["log"][-1]["action"] == action


def test_a_move_the_store_cannot_save_is_a_503_and_is_not_kept(tmp_path: Path) -> None:
    """The data folder goes away under the server (a full or read-only disk fails the same way):
    the move is refused and undone, never shown as made and then lost on a restart."""
    data = tmp_path / "data"
    client = TestClient(create_app(data))
    state = new_game(client, [HUMAN, HUMAN])
    action = every_legal_action(state)[0]
    data.rename(tmp_path / "away")
    data.write_text("not a folder")
    response = client.post(f"/api/games/{state['id']}/actions", json={"action": action})
    assert response.status_code == 503 and "cannot be written" in response.json()["detail"]
    assert client.get(f"/api/games/{state['id']}").json() == state
    assert client.post("/api/games", json={"seats": [HUMAN, HUMAN]}).status_code == 503
    data.unlink()
    (tmp_path / "away").rename(data)
    assert client.get("/api/games").json()[0]["id"] == state["id"]  # and only it
    assert client.post(f"/api/games/{state['id']}/actions", json={"action": action}).status_code == 200
    again = TestClient(create_app(data)).get(f"/api/games/{state['id']}").json()
    assert again["moves"] > state["moves"] and again["log"][-1]["action"] == action


def test_a_bot_move_the_store_cannot_save_is_undone_and_the_bot_stops_with_the_reason(tmp_path: Path) -> None:
    data = tmp_path / "data"
    client = TestClient(create_app(data))
    state = new_game(client, [HUMAN, {"kind": "bot", "level": "hard", "time": 1}])
    client.post(f"/api/games/{state['id']}/actions", json={"action": every_legal_action(state)[0]})
    waiting = client.post(f"/api/games/{state['id']}/actions", json={"action": "pass"}).json()
    assert waiting["bot_thinking"]
    data.rename(tmp_path / "away")  # while the bot thinks
    deadline = time.monotonic() + HANG_GUARD_S
    while (state := client.get(f"/api/games/{state['id']}").json())["bot_error"] is None:
        assert time.monotonic() < deadline, "the bot neither moved nor failed"
        time.sleep(0.05)
    assert "cannot be written" in state["bot_error"]
    assert state["moves"] == waiting["moves"] and state["current_player"] == 1


def test_a_data_folder_that_cannot_be_written_is_an_error_when_the_app_is_made(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("")
    with pytest.raises(StoreError, match="cannot write the games' store"):
        create_app(tmp_path / "file" / "data")


@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[Path]:
    """A 512 KiB tmpfs of its own (root only, where mounting is allowed): a disk that fills up."""
    folder = tmp_path / "disk"
    folder.mkdir()
    mounted = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=512k", "tmpfs", str(folder)], capture_output=True, check=False
    )
    if mounted.returncode != 0:
        pytest.skip(f"cannot mount a small tmpfs here: {mounted.stderr.decode().strip()}")
    try:
        yield folder
    finally:
        # Lazily, should a file still be open there: a mount left behind makes pytest's clean-up
        # of old temporary folders fail in a later run.
        subprocess.run(["umount", "--lazy", str(folder)], check=False)


def test_a_full_disk_refuses_the_move_with_a_503_and_loses_nothing(small_disk: Path) -> None:
    client = TestClient(create_app(small_disk / "data"))
    state = new_game(client, [HUMAN, HUMAN])
    action = every_legal_action(state)[0]
    filler = small_disk / "filler"
    # Write until the disk is full (unbuffered: the error comes from a write, not from close).
    with contextlib.suppress(OSError), open(filler, "wb", buffering=0) as f:
        while True:
            f.write(b"\0" * 4096)
    response = client.post(f"/api/games/{state['id']}/actions", json={"action": action})
    assert response.status_code == 503, response.text
    assert "cannot be written" in response.json()["detail"]
    assert client.get(f"/api/games/{state['id']}").json() == state  # as it was
    filler.unlink()  # space again: the same move is accepted and kept
    assert client.post(f"/api/games/{state['id']}/actions", json={"action": action}).status_code == 200
    again = TestClient(create_app(small_disk / "data")).get(f"/api/games/{state['id']}").json()
    assert again["moves"] > state["moves"] and again["log"][-1]["action"] == action
