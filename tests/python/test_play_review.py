"""The post-game review of the play server (carcassonne.play.review): win chances after each move
of a finished game, the costliest moves, computed once in the background and kept in the store.
Searches are cut to 100 iterations a position: the answers' shape does not depend on it."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("fastapi")

from fastapi.testclient import TestClient

from carcassonne import Game
from carcassonne.play import review as review_module
from carcassonne.play.server import create_app

pytestmark = pytest.mark.concurrency  # bots in threads: tools/under_load.sh --quick

EASY = {"kind": "bot", "level": "easy"}


@pytest.fixture(autouse=True)
def short_searches(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(review_module, "REVIEW_ITERATIONS", 100)


def finished_game(client: TestClient, seed: int = 5) -> dict[str, Any]:
    game = client.post("/api/games", json={"seats": [EASY, EASY], "seed": seed}).json()
    deadline = time.monotonic() + 60
    while not (state := client.get(f"/api/games/{game['id']}").json())["terminal"]:
        assert time.monotonic() < deadline, "the bots did not finish"
        time.sleep(0.05)
    return state


def wait_for_review(client: TestClient, game_id: str) -> dict[str, Any]:
    deadline = time.monotonic() + 60
    while (answer := client.get(f"/api/games/{game_id}/review").json())["status"] == "running":
        assert 0 <= answer["done"] <= answer["total"]
        assert time.monotonic() < deadline, "the review did not finish"
        time.sleep(0.05)
    return answer


def test_a_game_being_played_has_no_review_yet(tmp_path: Path) -> None:
    client = TestClient(create_app(tmp_path))
    game = client.post("/api/games", json={"seats": [{"kind": "human"}, EASY]}).json()
    answer = client.get(f"/api/games/{game['id']}/review")
    assert answer.status_code == 409 and "over" in answer.json()["detail"]


def test_the_review_has_every_decision_with_win_chances_and_the_costliest_moves(tmp_path: Path) -> None:
    client = TestClient(create_app(tmp_path))
    state = finished_game(client)
    first = client.get(f"/api/games/{state['id']}/review").json()
    assert first["status"] == "running" and first["total"] > 100
    review = wait_for_review(client, state["id"])
    record = client.get(f"/api/games/{state['id']}/record").json()
    points = review["points"]
    game = Game(**record["config"])
    decisions = []
    sampled = set(record["sampled"])
    for i, action in enumerate(record["actions"]):
        if not game.is_chance:
            decisions.append(i)
        if i in sampled:
            game.apply_random_chance()
        else:
            game.apply(action)
    assert [p["index"] for p in points] == decisions
    # Each point: the move played, every player's win chance after it, the search's choice there.
    replayed = Game.from_json(json.dumps(record))
    assert review["final"] == replayed.returns()
    for point in points[:12]:
        n = point["index"]
        before = {"actions": record["actions"][:n], "sampled": [i for i in record["sampled"] if i < n]}
        position = Game.from_json(json.dumps(record | before))
        legal = [a.text for a in position.legal_actions()]
        assert point["action"] == record["actions"][point["index"]] and point["best"]["action"] in legal
        assert point["player"] == position.current_player
        # Where the page draws the computer's move: the drawn tile turned on its cell, or a spot.
        where = point["best"]["where"]
        best = point["best"]["action"]
        if best.startswith("place "):
            assert where["tile"] == position.drawn_tile
            assert best == f"place {where['x']},{where['y']} r{where['rotation']}"
        elif best == "pass":
            assert where is None
        else:
            assert where is not None and {"x", "y"} <= set(where), (best, where)
            assert position.tiles[-1]["x"] == where["x"] and position.tiles[-1]["y"] == where["y"]
    for point in points:
        assert len(point["win"]) == game.num_players and abs(sum(point["win"]) - 1) < 1e-6
        assert 0 <= point["cost"] <= 1
    # Marked: the costliest moves, at most 5, each costing at least 5 points of win chance.
    costs = sorted((p["cost"] for p in points), reverse=True)
    marked = [points[i]["cost"] for i in review["marked"]]
    assert review["marked"] == sorted(review["marked"]) and len(marked) <= 5
    assert sorted(marked, reverse=True) == [c for c in costs[: len(marked)]]
    assert all(c >= 0.05 for c in marked)
    assert all(points[i]["best"]["action"] != points[i]["action"] for i in review["marked"])


def test_a_review_is_kept_goes_on_after_a_restart_and_goes_with_its_game(tmp_path: Path) -> None:
    client = TestClient(create_app(tmp_path))
    state = finished_game(client, seed=6)
    review = wait_for_review(client, state["id"])
    # Computed once: a restarted server has it at once.
    again = TestClient(create_app(tmp_path)).get(f"/api/games/{state['id']}/review").json()
    assert again == review
    # A review cut short (the server stopped) goes on from the positions it had searched.
    store = client.app.state.games.store  # type: ignore[attr-defined]
    saved = store.load_review(state["id"])
    saved["positions"] = saved["positions"][:20]
    store.save_review(state["id"], saved)
    restarted = TestClient(create_app(tmp_path))
    progress = restarted.get(f"/api/games/{state['id']}/review").json()
    assert progress["status"] == "running" and progress["done"] >= 20
    assert wait_for_review(restarted, state["id"]) == review  # each search is seeded: the same
    # A review of another game under this id (made before an undo changed the moves) is not shown.
    saved = store.load_review(state["id"])
    store.save_review(state["id"], saved | {"game": "the moves before an undo"})
    redone = TestClient(create_app(tmp_path)).get(f"/api/games/{state['id']}/review").json()
    assert redone["status"] == "running" and redone["done"] == 0
    # Deleted with its game.
    assert restarted.delete(f"/api/games/{state['id']}").status_code == 200
    assert store.load_review(state["id"]) is None
    # A review still running for it (here the one `redone` started) keeps nothing.
    store.save_review(state["id"], saved)
    assert store.load_review(state["id"]) is None
