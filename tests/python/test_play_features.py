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


def play_to_the_end(game: Game, seed: int, greedy: bool) -> None:
    """Random decisions, or greedy ones (greedy players complete cities, so farms feed more)."""
    if not greedy:
        play_randomly(game, random.Random(seed))
        return
    while not game.is_terminal:
        if game.is_chance:
            game.apply_random_chance()
        else:
            game.apply(_core.choose_action(game.core_state(), "greedy", 1))


def assert_each_farm_adds_up(items: list[dict[str, Any]], players: int) -> int:
    """Every farm item's words add up to its points: it feeds its outlined cities, and the City
    of Carcassonne when it reaches the City's squares (CK-1); the farmer majority scores 3 a city
    (B-9), 4 with the pig herd (RV-4), each barn 4 a city (AM-B-6). Returns how many cities the
    farms fed in all."""
    fed = 0
    for item in items:
        if item["type"] != "field":
            continue
        cities = len(item["cities"]) + item["feeds_the_city"]
        fed += cities
        barns = [f["player"] for f in item["figures"] if f["kind"] == "barn"]
        farmers = [f["player"] for f in item["figures"] if f["kind"] != "barn"]
        if barns:  # no farmer shares a field with a barn at the end (AM-B-4, AM-B-5)
            expected = [4 * cities * barns.count(p) for p in range(players)]
        else:
            most = max(farmers.count(p) for p in range(players))
            per_city = 3 + item["pig_herd"]
            expected = [per_city * cities if farmers.count(p) == most else 0 for p in range(players)]
        assert item["points"] == expected, (item["points"], cities, item["figures"])
    return fed


FARM_MIXES = [
    ["city"],
    ["city", "abbey-mayor"],
    ["city", "abbey-mayor", "king-robber"],
    ["abbey-mayor"],
    ["abbey-mayor", "king-robber", "shrines"],
    ["river2", "abbey-mayor"],
]


@pytest.mark.parametrize("expansions", FARM_MIXES, ids="+".join)
def test_every_farm_says_how_many_cities_its_points_count(expansions: list[str]) -> None:
    """Games of City and abbey mixes played to the end, random and greedy: the cities each farm
    says it feeds are the ones the engine scores, the City (CK-1) and cities an abbey closed
    (AM-A-3) among them."""
    fed = 0
    for seed in range(1, 5):
        for greedy in (False, True):
            game = Game(players=3, expansions=expansions, seed=seed)
            play_to_the_end(game, seed, greedy)
            fed += assert_each_farm_adds_up(final_scoring(game), 3)
    assert fed, "the farms of these games feed cities"


@pytest.mark.parametrize("start", ["city", "city_plain"])
def test_a_farm_on_the_citys_squares_feeds_the_city(start: str) -> None:
    """CK-1: the City of Carcassonne is a complete city for field scoring. A farmer on a field
    that runs onto the City's squares and borders no other city scores 3."""
    monastery = {"tile": "base.B", "x": 0, "y": -1, "rotation": 0}  # fields all round, above CO1
    game = Game.from_position(
        {
            "players": 2,
            "variants": {"start": start},
            "tiles": [monastery],
            "figures": [{"player": 0, "kind": "meeple", "x": 0, "y": -1, "feature": 0}],
            "bag": [],
        }
    )
    (farm,) = final_scoring(game)
    assert farm["type"] == "field" and farm["points"] == [3, 0]
    assert farm["feeds_the_city"] and farm["in_the_city"] and farm["cities"] == []
    assert assert_each_farm_adds_up([farm], 2) == 1


def test_a_city_an_abbey_closed_feeds_the_farm_beside_it() -> None:
    """AM-A-3: an abbey closes the city that ends at its side (without joining it), so the
    one-tile city of the start tile is complete and feeds the farmer's field: 3 points (B-9)."""
    # Round the hole, each beside the last: monasteries in fields (a road ends at the abbey).
    ring = [("base.B", -1, -1), ("base.B", -1, -2), ("base.A", 0, -2), ("base.B", 1, -2), ("base.B", 1, -1)]
    tiles = [START] + [{"tile": "base.U", "x": x, "y": 0, "rotation": 0} for x in (-1, 1)]  # the road
    tiles += [{"tile": name, "x": x, "y": y, "rotation": 0} for name, x, y in ring]
    tiles.append({"tile": "abbey-mayor.A", "x": 0, "y": -1, "rotation": 0})  # into the hole they leave
    game = Game.from_position(
        {
            "players": 2,
            "expansions": ["abbey-mayor"],
            "tiles": tiles,
            "figures": [{"player": 1, "kind": "meeple", "x": 0, "y": 0, "feature": 2}],  # north of the road
            "bag": [],
        }
    )
    (farm,) = final_scoring(game)
    assert farm["type"] == "field" and farm["points"] == [0, 3]
    assert farm["cities"] == [[(0, 0, 0)]] and not farm["feeds_the_city"]
    assert Features(game.tiles).complete((0, 0, 0))
    assert assert_each_farm_adds_up([farm], 2) == 1


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
