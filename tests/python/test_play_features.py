"""What the play page shows of scoring (carcassonne.play.features): each move's scoring by
feature, and the final scoring item by item (rules B-8, B-9), from the engine's own records."""

from __future__ import annotations

import json
import random
import re
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from carcassonne import Game, _core
from carcassonne.mixes import DEFAULT_MIXES
from carcassonne.play.features import final_scoring, move_events
from carcassonne.play.server import create_app
from carcassonne.play.session import GameSession
from carcassonne.play.store import Store

START = {"tile": "base.D-start", "x": 0, "y": 0, "rotation": 0}  # city N, road W-E
LAST = "base.B"  # a monastery in fields: the last tile, laid where it changes no scored feature


def ended(position: dict[str, Any], place: str) -> tuple[Game, list[dict[str, Any]]]:
    """The game of `position` with LAST as its bag, played to its end by placing LAST at `place`
    and passing; and the final scoring's items."""
    game = Game.from_position({**position, "draw_order": [LAST]})
    game.apply(f"draw {LAST}")
    game.apply(place)
    action = game.apply("pass", explain=True)
    assert game.is_terminal
    return game, final_scoring(action.scorings or [], game.tiles, game.num_players)


def finish(game: Game, rng: random.Random, greedy: bool = False) -> list[dict[str, Any]]:
    """Plays `game` to its end (random or greedy decisions; greedy players complete cities, so
    farms feed more) and returns the final scoring's items."""
    scorings: list[dict[str, Any]] = []
    while not game.is_terminal:
        if game.is_chance:
            action = game.apply_random_chance(explain=True)
        elif greedy:
            action = game.apply(_core.choose_action(game.core_state(), "greedy", 1), explain=True)
        else:
            action = game.apply(rng.choice(game.legal_actions()), explain=True)
        scorings = action.scorings or []
    return final_scoring(scorings, game.tiles, game.num_players)


def test_the_final_scoring_of_a_small_board_item_by_item() -> None:
    """B-8: an unfinished road scores 1 a tile, an unfinished city 1 a tile. The meeple on the
    road is Red's, on the city Blue's; the words are the engine's parts."""
    straight = {"tile": "base.U", "x": 1, "y": 0, "rotation": 0}
    position = {
        "players": 2,
        "tiles": [START, straight],
        "figures": [
            {"player": 0, "kind": "meeple", "x": 1, "y": 0, "feature": 0},
            {"player": 1, "kind": "meeple", "x": 0, "y": 0, "feature": 0},
        ],
    }
    game, final = ended(position, "place 0,1 r0")
    items = {item["type"]: item for item in final}
    road = items["road"]
    assert road["points"] == [2, 0] and {(x, y) for x, y, _ in road["parts"]} == {(0, 0), (1, 0)}
    assert road["words"] == "2 tiles × 1 = 2" and road["causes"] == {"road": [2, 0]}
    assert items["city"]["points"] == [0, 1] and len(items["city"]["parts"]) == 1
    assert items["city"]["words"] == "1 tile × 1 = 1"
    assert sum(item["points"][p] for item in items.values() for p in range(2)) == sum(game.scores)


def test_a_final_city_item_counts_its_pennants() -> None:
    """B-8: an unfinished city scores 1 a tile and 1 a pennant; the item says how many pennants."""
    pennant = {"tile": "base.M", "x": 0, "y": -1, "rotation": 2}  # city S and E, one pennant
    position = {
        "players": 2,
        "tiles": [START, pennant],
        "figures": [{"player": 1, "kind": "meeple", "x": 0, "y": 0, "feature": 0}],
    }
    _, (city,) = ended(position, "place 0,1 r0")
    assert city["type"] == "city" and city["points"] == [0, 3] and len(city["parts"]) == 2
    assert city["pennants"] == 1 and not city["in_the_city"]
    assert city["words"] == "2 tiles × 1 + 1 pennant × 1 = 3"
    # A feature that reaches the City of Carcassonne's squares says so (the page names the City).
    game = Game(players=2, seed=29, expansions=["city"])
    items = [item for item in finish(game, random.Random(29)) if item["what"] == "feature"]
    squares = {(t["x"], t["y"]) for t in game.tiles if t["tile"].startswith("count-city.")}
    assert any(item["in_the_city"] for item in items)
    for item in items:
        assert item["in_the_city"] == any((x, y) in squares for x, y, _ in item["parts"])


@pytest.mark.parametrize(
    "expansions",
    [[], ["abbey-mayor", "king-robber"], ["abbey-mayor", "city", "king-robber", "shrines", "anniv20"]],
)
def test_the_final_items_name_every_figure_and_title(expansions: list[str]) -> None:
    """Every figure left on the board is on one item, and the King and the Robber are items."""
    game = Game(players=3, expansions=expansions, seed=4)
    items = finish(game, random.Random(4))
    on_board = {(f["x"], f["y"], f["feature"], f["player"], f["kind"]) for f in game.figures}
    listed = {(f["x"], f["y"], f["feature"], f["player"], f["kind"]) for i in items for f in i["figures"]}
    assert listed == on_board
    if "king-robber" in expansions:
        assert {"king", "robber"} <= {item["what"] for item in items}


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
            fed += assert_each_farm_adds_up(finish(game, random.Random(seed), greedy), 3)
    assert fed, "the farms of these games feed cities"


@pytest.mark.parametrize("start", ["city", "city_plain"])
def test_a_farm_on_the_citys_squares_feeds_the_city(start: str) -> None:
    """CK-1: the City of Carcassonne is a complete city for field scoring. A farmer on a field
    that runs onto the City's squares and borders no other city scores 3."""
    monastery = {"tile": "base.B", "x": 0, "y": -1, "rotation": 0}  # fields all round, above CO1
    position = {
        "players": 2,
        "variants": {"start": start},
        "tiles": [monastery],
        "figures": [{"player": 0, "kind": "meeple", "x": 0, "y": -1, "feature": 0}],
    }
    _, (farm,) = ended(position, "place 1,-1 r0")  # the same field, north of the City
    assert farm["type"] == "field" and farm["points"] == [3, 0]
    assert farm["feeds_the_city"] and farm["in_the_city"] and farm["cities"] == []
    assert farm["words"] == "the City of Carcassonne × 3 = 3"
    assert assert_each_farm_adds_up([farm], 2) == 1


def test_a_city_an_abbey_closed_feeds_the_farm_beside_it() -> None:
    """AM-A-3: an abbey closes the city that ends at its side (without joining it), so the
    one-tile city of the start tile is complete and feeds the farmer's field: 3 points (B-9)."""
    # Round the hole, each beside the last: monasteries in fields (a road ends at the abbey).
    ring = [("base.B", -1, -1), ("base.B", -1, -2), ("base.A", 0, -2), ("base.B", 1, -2), ("base.B", 1, -1)]
    tiles = [START] + [{"tile": "base.U", "x": x, "y": 0, "rotation": 0} for x in (-1, 1)]  # the road
    tiles += [{"tile": name, "x": x, "y": y, "rotation": 0} for name, x, y in ring]
    tiles.append({"tile": "abbey-mayor.A", "x": 0, "y": -1, "rotation": 0})  # into the hole they leave
    position = {
        "players": 2,
        "expansions": ["abbey-mayor"],
        "tiles": tiles,
        "figures": [{"player": 1, "kind": "meeple", "x": 0, "y": 0, "feature": 2}],  # north of the road
        "abbeys": [0, 0],
    }
    _, (farm,) = ended(position, "place 0,1 r0")  # south of the road: another field
    assert farm["type"] == "field" and farm["points"] == [0, 3]
    assert farm["cities"] == [[[0, 0, 0]]] and not farm["feeds_the_city"]
    assert farm["words"] == "1 complete city × 3 = 3"
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
    items = finish(game, random.Random(5))
    assert items
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


def test_a_figure_gone_home_without_a_scoring_is_an_item_without_points() -> None:
    """SH-5: a lost challenge sends its figures home with no points: no record, one item."""
    monk = {"player": 1, "kind": "meeple", "x": 2, "y": 0, "feature": 0}
    assert move_events([], [monk]) == [
        {
            "kind": "",
            "type": "",
            "parts": [[2, 0, 0]],
            "points": {},
            "causes": [],
            "returned": [monk],
            "words": "",
        }
    ]


def scores_from_the_page(state: dict[str, Any]) -> list[int]:
    """Each player's points as the page words them: the moves' scorings, then the final items
    (each item's points are its words' sum, once per award)."""
    players = len(state["scores"])
    points = [0] * players
    for entry in state["log"]:
        for scored in entry["scored"]:
            points[scored["player"]] += scored["points"]
    for item in state["final_scoring"]:
        total = int(re.fullmatch(r".* = (-?\d+)", item["words"]).group(1))
        assert total == sum(part["count"] * part["each"] for part in item["sum"])
        for p in range(players):
            assert item["points"][p] % total == 0 if total else item["points"][p] == 0
            points[p] += item["points"][p]
    return points


@pytest.mark.parametrize("mix_index", range(len(DEFAULT_MIXES)), ids=[m.name for m in DEFAULT_MIXES])
def test_the_pages_words_add_up_to_every_final_score(mix_index: int, tmp_path: Path) -> None:
    """50 random finished games of every mix (2 to 5 players), loaded as the page shows them: the
    moves' points and the final items' sums give each player's score (no starting points)."""
    mix = DEFAULT_MIXES[mix_index]
    client = TestClient(create_app(tmp_path))
    for seed in range(50):
        players = 2 + (mix_index + seed) % 4
        game = Game(players=players, expansions=mix.expansions, variants=dict(mix.variants), seed=seed)
        finish(game, random.Random(seed))
        loaded = client.post(
            "/api/games/load", json={"record": game.to_record(), "seats": [{"kind": "human"}] * players}
        )
        assert loaded.status_code == 201, loaded.text
        state = loaded.json()
        assert state["final_scoring"] and state["scores"] == game.scores, seed
        assert scores_from_the_page(state) == game.scores, seed
        assert client.delete(f"/api/games/{state['id']}").status_code in (200, 204)  # a small store
