"""The post-game review of the play server (carcassonne.play.review): win chances after each move
of a finished game, the costliest moves, computed once in the background and kept in the store.
Searches are cut to 100 iterations a position: the answers' shape does not depend on it."""

from __future__ import annotations

import itertools
import json
import time
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("fastapi")

from fastapi.testclient import TestClient

from carcassonne import Game, Mcts, mcts_config
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
    # It names what valued its searches' leaves, the network file and its hash where one fits.
    opening = Game(**record["config"])
    opening.apply_random_chance()
    network = Mcts(mcts_config(iterations=1)).search(opening.core_state()).evaluator
    assert review["evaluator"] == network and "sha256" in network, review["evaluator"]
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
    # Marked: each player's costliest moves, at most 5, each costing at least 5 points of win
    # chance; in a game of bots, every player's.
    for summary in review["players"]:
        mine = [p["cost"] for p in points if p["player"] == summary["player"]]
        marked = [points[i]["cost"] for i in summary["marked"]]
        assert summary["marked"] == sorted(summary["marked"]) and len(marked) <= 5
        assert sorted(marked, reverse=True) == sorted(mine, reverse=True)[: len(marked)]
        assert all(c >= 0.05 for c in marked)
        assert all(points[i]["player"] == summary["player"] for i in summary["marked"])
        assert all(points[i]["best"]["action"] != points[i]["action"] for i in summary["marked"])
    assert review["marked"] == sorted(k for s in review["players"] for k in s["marked"])


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


def test_a_review_marks_the_persons_moves_sums_the_slips_smooths_and_explains_in_points(
    tmp_path: Path,
) -> None:
    client = TestClient(create_app(tmp_path))
    record = client.get(f"/api/games/{finished_game(client)['id']}/record").json()
    seats = [{"kind": "human"}, EASY]  # the same game, seat 0 a person's
    game_id = client.post("/api/games/load", json={"record": record, "seats": seats}).json()["id"]
    review = wait_for_review(client, game_id)
    points = review["points"]
    person, bot = review["players"]
    # The person's own moves are the ones marked; the bot's are there, apart.
    assert review["marked"] == person["marked"] and person["marked"]
    assert bot["marked"] and all(points[k]["player"] == 1 for k in bot["marked"])
    # The slips below the mark: how many, what they cost together, the biggest three named.
    for summary in review["players"]:
        mine = [k for k, p in enumerate(points) if p["player"] == summary["player"]]
        slips = [k for k in mine if k not in summary["marked"] and points[k]["cost"] >= 0.01]
        assert summary["slips"] == len(slips) > 3
        assert summary["slips_cost"] == pytest.approx(sum(points[k]["cost"] for k in slips))
        biggest = sorted(slips, key=lambda k: -points[k]["cost"])[:3]
        assert summary["biggest_slips"] == sorted(biggest)
        assert summary["cost"] == pytest.approx(sum(points[k]["cost"] for k in mine))
    # The smoothed chances: a round's moves averaged (fewer at the ends, which stay as they are).
    reach = review["smoothing"]
    assert reach == 2 and points[0]["smooth"] == points[0]["win"]
    assert points[-1]["smooth"] == points[-1]["win"] == review["final"]
    for k in range(reach, len(points) - reach):
        window = points[k - reach : k + reach + 1]
        for p in range(2):
            assert points[k]["smooth"][p] == pytest.approx(sum(w["win"][p] for w in window) / len(window))

    def steps(key: str) -> float:
        return sum(abs(a[key][0] - b[key][0]) for a, b in itertools.pairwise(points))

    assert steps("smooth") < steps("win") / 2
    assert 0 < review["jitter"] < 0.5  # how far a single estimate strays from the smooth line
    # Each marked move, the person's or the bot's: both whole moves in words, with their points.
    for k in person["marked"] + bot["marked"]:
        why = points[k]["why"]
        for text in (why["played"], why["better"]):
            assert "points now" in text and "counted as if the game ended then" in text
            assert "base." not in text and "place " not in text and "#" not in text, text
        if points[k]["action"].startswith("place "):
            assert why["played"].startswith("placed a") and "of the start tile" in why["played"]
        assert why["verdict"]
    assert any("more points" in points[k]["why"]["verdict"] for k in person["marked"] + bot["marked"])
    assert all("why" not in p for k, p in enumerate(points) if k not in person["marked"] + bot["marked"])
