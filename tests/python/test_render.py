"""Tile geometry (tile_kinds(geometry=True)) against tiles.json, and the SVG renderer."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

import carcassonne
from carcassonne import Game
from carcassonne.render import board_svg, tile_catalogue
from carcassonne.render.geometry import connection_point

TILES_JSON = Path(__file__).resolve().parents[3] / "shared" / "rules" / "tiles.json"
HALF_POINTS = {"N1": 0, "N2": 2, "E1": 3, "E2": 5, "S1": 6, "S2": 8, "W1": 9, "W2": 11}
SVG = "{http://www.w3.org/2000/svg}"


@pytest.mark.skipif(not TILES_JSON.exists(), reason="shared/rules/tiles.json is not beside the project")
def test_geometry_is_what_tiles_json_prints_on_each_tile() -> None:
    geometry = {kind["name"]: kind for kind in carcassonne.tile_kinds(geometry=True)}
    reference = [
        tile for tile_set in json.loads(TILES_JSON.read_text())["sets"] for tile in tile_set["tiles"]
    ]
    assert sorted(geometry) == sorted(t["id"] for t in reference)
    for tile in reference:
        kind = geometry[tile["id"]]
        assert kind["edges"] == tile["edges"], tile["id"]
        assert kind["count"] == tile["count"] and kind["marks"] == tile["marks"], tile["id"]
        arrow = tile.get("arrow")
        assert kind["arrow"] == (arrow and {"kind": arrow["kind"], "side": arrow["points"]}), tile["id"]
        assert len(kind["features"]) == len(tile["features"]), tile["id"]
        for ours, theirs in zip(kind["features"], tile["features"], strict=False):
            assert ours["type"] == theirs["type"], tile["id"]
            if theirs["type"] in ("road", "city", "river"):
                assert sorted(ours["sides"]) == sorted(theirs["sides"]), tile["id"]
            if theirs["type"] == "city":
                assert ours["pennants"] == theirs["pennants"], tile["id"]
            if theirs["type"] == "field":
                assert ours["points"] == sorted(HALF_POINTS[h] for h in theirs["halves"]), tile["id"]
                assert ours["cities"] == theirs["cities"], tile["id"]


def test_every_tile_drawing_is_svg_with_a_spot_inside_the_tile_for_each_figure_feature() -> None:
    for name, tile in tile_catalogue().items():
        ET.fromstring(f'<svg xmlns="http://www.w3.org/2000/svg">{tile["svg"]}</svg>')  # well-formed
        for feature, anchor in zip(tile["features"], tile["anchors"], strict=False):
            if feature in ("quarter", "river"):
                assert anchor is None
                continue
            assert anchor is not None and 0 < anchor[0] < 100 and 0 < anchor[1] < 100, (name, feature)
        spots = [tuple(a) for a in tile["anchors"] if a is not None]
        assert len(spots) == len(set(spots)), f"{name}: two figures would stand on one spot"


def test_a_road_spot_lies_on_the_road_and_a_city_spot_inside_the_city() -> None:
    tiles = tile_catalogue()
    road = tiles["base.U"]["anchors"][0]  # the road from west to east across the middle
    assert road == [50, 50]
    city = tiles["base.E"]["anchors"][0]  # a city cap on the north side
    assert 30 < city[0] < 70 and city[1] < 25
    field_north, field_south = tiles["base.D"]["anchors"][2:4]  # between city and road; south
    assert 25 < field_north[1] < 50 < field_south[1]
    assert connection_point(4) == (100.0, 50.0)


def test_a_board_with_every_expansion_renders_every_tile_and_figure() -> None:
    game = Game(players=3, expansions=["abbey-mayor", "city", "king-robber", "shrines", "anniv20"], seed=4)
    while not game.is_terminal and game.turn_number < 40:
        if game.is_chance:
            game.apply_random_chance()
        else:
            actions = game.legal_actions()
            game.apply(actions[len(actions) // 2])
    svg = ET.fromstring(game._repr_svg_())
    assert svg.tag == f"{SVG}svg"
    assert len(svg.findall(f"./{SVG}g[@transform]")) == len(game.tiles) + len(game.figures)
    assert board_svg(game) == game._repr_svg_()
