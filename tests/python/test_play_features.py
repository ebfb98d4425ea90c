"""What the play page shows of scoring (carcassonne.play.features): features joined across
tiles, each move's scoring by feature, and the final scoring item by item (rules B-8, B-9)."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from carcassonne import Game, _core
from carcassonne.play.features import Features, final_scoring, move_events
from carcassonne.play.server import create_app
from carcassonne.play.session import GameSession
from carcassonne.play.store import Store
from helpers import play_randomly

START = {"tile": "base.D-start", "x": 0, "y": 0, "rotation": 0}  # city N, road W-E


def test_a_road_joins_across_tiles_and_is_open_at_its_ends() -> None:
    straight = {"tile": "base.U", "x": 1, "y": 0, "rotation": 0}  # a road W-E (FRFR)
    features = Features([START, straight])
    road = next(p for p in features.types if p[:2] == (0, 0) and features.type(p) == "road")
    parts = features.parts(road)
    assert {(x, y) for x, y, _ in parts} == {(0, 0), (1, 0)}
    assert all(features.type(p) == "road" for p in parts) and not features.complete(road)
    city = next(p for p in features.types if p[:2] == (0, 0) and features.type(p) == "city")
    assert features.parts(city) == [city]  # a city never joins a road or a field


def test_the_final_scoring_of_a_small_board_item_by_item() -> None:
    """B-8: an unfinished road scores 1 a tile, an unfinished city 1 a tile; B-9: a farm feeding
    no complete city scores nothing. The meeple on the road is Red's, on the city Blue's."""
    straight = {"tile": "base.U", "x": 1, "y": 0, "rotation": 0}
    game = Game.from_position(
        {
            "players": 2,
            "tiles": [START, straight],
            "figures": [
                {"player": 0, "kind": "meeple", "x": 1, "y": 0, "feature": 0},
                {"player": 1, "kind": "meeple", "x": 0, "y": 0, "feature": 0},
            ],
            "bag": [],
        }
    )
    assert game.is_terminal
    items = {item["type"]: item for item in final_scoring(game)}
    road = items["road"]
    assert road["points"] == [2, 0] and {(x, y) for x, y, _ in road["parts"]} == {(0, 0), (1, 0)}
    assert items["city"]["points"] == [0, 1] and len(items["city"]["parts"]) == 1
    assert sum(item["points"][p] for item in items.values() for p in range(2)) == sum(game.scores)


def test_a_final_city_item_counts_its_pennants() -> None:
    """B-8: an unfinished city scores 1 a tile and 1 a pennant; the item says how many pennants."""
    pennant = {"tile": "base.M", "x": 0, "y": -1, "rotation": 2}  # city S and E, one pennant
    game = Game.from_position(
        {
            "players": 2,
            "tiles": [START, pennant],
            "figures": [{"player": 1, "kind": "meeple", "x": 0, "y": 0, "feature": 0}],
            "bag": [],
        }
    )
    (city,) = final_scoring(game)
    assert city["type"] == "city" and city["points"] == [0, 3] and len(city["parts"]) == 2
    assert city["pennants"] == 1 and not city["in_the_city"]
    # A feature that reaches the City of Carcassonne's squares says so (the page names the City).
    game = Game(players=2, seed=29, expansions=["city"])
    play_randomly(game, random.Random(29))
    squares = {(t["x"], t["y"]) for t in game.tiles if t["tile"].startswith("count-city.")}
    items = [item for item in final_scoring(game) if item["what"] == "feature"]
    assert any(item["in_the_city"] for item in items)
    for item in items:
        assert item["in_the_city"] == any((x, y) in squares for x, y, _ in item["parts"])


@pytest.mark.parametrize(
    "expansions",
    [[], ["abbey-mayor", "king-robber"], ["abbey-mayor", "city", "king-robber", "shrines", "anniv20"]],
)
def test_the_final_items_add_up_to_the_engines_final_scoring(expansions: list[str]) -> None:
    """Each item is scored alone by the engine; together they must give what the engine scored
    for the whole board, so no item counts a feature twice or misses one."""
    game = Game(players=3, expansions=expansions, seed=4)
    play_randomly(game, random.Random(4))
    items = final_scoring(game)
    assert items and not [item for item in items if item["what"] == "other"]
    on_board = {(f["x"], f["y"], f["feature"], f["player"], f["kind"]) for f in game.figures}
    listed = {(f["x"], f["y"], f["feature"], f["player"], f["kind"]) for i in items for f in i["figures"]}
    assert listed == on_board
    for item in items:
        if item["type"] == "field":
            for city in item["cities"]:
                assert all(Features(game.tiles).type(tuple(part)) == "city" for part in city)
    if "king-robber" in expansions:
        assert {"king", "robber"} <= {item["what"] for item in items}


def placed(figures: list[dict[str, Any]]) -> list[tuple[int, int, int, int, str]]:
    return sorted((f["x"], f["y"], f["feature"], f["player"], f["kind"]) for f in figures)


# A City start without the Count, and a game dealt from a fixed order (its whole bag).
UNUSUAL_DEALS = [
    {"variants": {"start": "city_plain"}},
    {"draw_order": ["base.E", "base.U", "base.V", "base.B", "base.K", "base.E", "base.L", "base.D"]},
]


@pytest.mark.parametrize("options", UNUSUAL_DEALS, ids=["city_plain", "draw_order"])
def test_the_final_scoring_of_a_city_without_the_count_or_a_fixed_draw_order(
    options: dict[str, Any], tmp_path: Path
) -> None:
    """Both end as any game does: the items add up, and the page gets them with the game's state
    (a finished record loaded, as the page shows it)."""
    game = Game(players=2, seed=5, **options)
    play_randomly(game, random.Random(5))
    items = final_scoring(game)
    assert items and not [item for item in items if item["what"] == "other"]
    assert placed([f for item in items for f in item["figures"]]) == placed(game.figures)
    client = TestClient(create_app(tmp_path))
    seats = [{"kind": "human"}] * 2
    loaded = client.post("/api/games/load", json={"record": game.to_record(), "seats": seats})
    assert loaded.status_code == 201, loaded.text
    state = loaded.json()
    assert state["terminal"] and state["final_scoring"] == json.loads(json.dumps(items))
    # The City's quarters and the Count are the variant city's alone.
    assert state["city"] is None


def test_each_scoring_move_names_its_feature_and_the_figures_gone_home(tmp_path: Path) -> None:
    game = Game(players=2, seed=6)
    while not game.is_terminal:  # greedy players complete features (random ones rarely do)
        if game.is_chance:
            game.apply_random_chance()
        else:
            game.apply(_core.choose_action(game.core_state(), "greedy", 1))
    session = GameSession("t", [{"kind": "human"}] * 2, game.to_record(), Store(tmp_path))
    scoring = [e for e in session.log if e["scored"] and e["index"] != len(session.log) - 1]
    assert scoring, "a greedy base game scores during play"
    for entry in scoring:
        shown = {}
        for event in entry["events"]:
            for player, points in event["points"].items():
                shown[player] = shown.get(player, 0) + points
            for f in event["returned"]:
                assert [f["x"], f["y"], f["feature"]] in [list(p) for p in event["parts"]]
        booked = {}
        for s in entry["scored"]:
            booked[s["player"]] = booked.get(s["player"], 0) + s["points"]
        assert shown == booked
    # The tile and the figure of one turn carry the same turn number, counted from 1.
    decisions = [e for e in session.log if e["player"] >= 0]
    assert decisions[0]["turn"] == decisions[1]["turn"] == 1 and decisions[2]["turn"] == 2


def test_a_move_with_no_figure_gone_books_its_points_without_a_feature() -> None:
    events = move_events([START], [], {"king": {1: 3}})
    assert events == [{"parts": [], "returned": [], "causes": ["king"], "points": {1: 3}, "type": ""}]
