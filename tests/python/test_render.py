"""Tile geometry (tile_kinds(geometry=True)) against the catalogue, and the SVG renderer."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

import carcassonne
from carcassonne import Game
from carcassonne.render import board_svg, tile_catalogue
from carcassonne.render.geometry import connection_point

TILES_TXT = Path(__file__).resolve().parents[2] / "engine" / "data" / "tiles.txt"  # the source of truth
HALF_POINTS = {"N1": 0, "N2": 2, "E1": 3, "E2": 5, "S1": 6, "S2": 8, "W1": 9, "W2": 11}
SVG = "{http://www.w3.org/2000/svg}"


def _catalogue_lines() -> list[tuple[str, int, str, list[str], list[str]]]:
    """(name, count, edges, feature tokens, tokens after "|") of each tile line in tiles.txt."""
    out = []
    for line in TILES_TXT.read_text().splitlines():
        if not line.strip() or line.startswith(("#", "set ")):
            continue
        body, _, extra = line.partition("|")
        name, count, edges, *features = body.split()
        out.append((name, int(count), edges, [f for f in features if f != "-"], extra.split()))
    return out


def test_geometry_is_what_the_catalogue_prints_on_each_tile() -> None:
    """tile_kinds(geometry=True) says what engine/data/tiles.txt says, read here independently."""
    geometry = {kind["name"]: kind for kind in carcassonne.tile_kinds(geometry=True)}
    lines = _catalogue_lines()
    assert sorted(geometry) == sorted(name for name, *_ in lines)
    for name, count, edges, features, extra in lines:
        kind = geometry[name]
        assert (kind["count"], kind["edges"]) == (count, edges), name
        assert kind["marks"] == [t.removeprefix("mark:") for t in extra if t.startswith("mark:")], name
        assert kind["start"] == ("start" in extra), name
        arrows = [t.split(":") for t in extra if t.startswith("arrow:")]
        arrow = {"kind": arrows[0][1], "side": arrows[0][2]} if arrows else None
        assert kind["arrow"] == arrow, name
        assert [f["type"] for f in kind["features"]] == [t.partition(":")[0] for t in features], name
        for ours, token in zip(kind["features"], features, strict=True):
            kind_name, _, spec = token.partition(":")
            if kind_name in ("road", "city", "river"):
                sides, _, end = spec.partition("@")
                sides, _, pennants = sides.partition("+")
                assert sorted(ours["sides"]) == sorted(sides), (name, token)
                assert ours["pennants"] == int(pennants or 0), (name, token)
                end_kind, _, end_city = end.partition(":")
                assert ours["road_end"] == (end_kind or "through"), (name, token)
                assert ours["road_end_city"] == (int(end_city) if end_city else None), (name, token)
            if kind_name == "field":
                halves, _, cities = spec.partition(">")
                halves = "" if halves == "-" else halves
                expected = sorted(HALF_POINTS[halves[i : i + 2]] for i in range(0, len(halves), 2))
                assert ours["points"] == expected, (name, token)
                assert ours["cities"] == [int(c) for c in cities.split(",") if c], (name, token)


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
