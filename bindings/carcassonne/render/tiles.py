"""SVG drawings of tile kinds and figures. A tile is a `<g>` in a 100 x 100 square, catalogue
orientation; a board turns it with `rotate(90 * r, 50, 50)`. The play page receives these same
fragments from the server (`/api/tiles`), so the notebook and the browser draw alike.
"""

from __future__ import annotations

from functools import cache
from typing import Any

from .. import _core
from .geometry import (
    CLOISTER_HALF,
    GRID,
    RIVER_HALF_WIDTH,
    ROAD_HALF_WIDTH,
    SIDES,
    TileShapes,
    cell_centre,
    in_square_field_strip,
    tile_shapes,
)

COLOURS = {
    "field": "#8cbf5a",
    "field_edge": "#7aad4c",
    "city": "#c8a46e",
    "city_edge": "#7a5a32",
    "walls": "#a89a86",
    "road": "#f2ead8",
    "road_edge": "#6b5e48",
    "river": "#4d9de0",
    "river_edge": "#2d6ea8",
    "pennant": "#2456a6",
}
# Seat colours: distinct at a glance, and readable on green and sand.
PLAYER_COLOURS = ("#d62828", "#1d4ed8", "#f4d03f", "#111111", "#2a9d8f", "#9b59b6")
# Arrow kinds in colours no seat has (white, brown, grey), each with its own letter.
ARROW_COLOURS = {"meeple-beside": "#fdfdfd", "place-anywhere": "#6d4c41", "extra-turn": "#7f8c8d"}
ARROW_INK = {"meeple-beside": "#222", "place-anywhere": "#fff", "extra-turn": "#fff"}
ARROW_LETTERS = {"meeple-beside": "M", "place-anywhere": "P", "extra-turn": "+"}
COUNT_COLOUR = "#4a4a4a"  # the Count belongs to nobody: dark grey with a gold crown


@cache
def tile_catalogue() -> dict[str, dict[str, Any]]:
    """{kind name: {"svg": <g> fragment, "anchors": per feature [x, y] or None, "features",
    "edges", "set", "count", "marks", "arrow", "city_square"}} for every tile kind."""
    out = {}
    for kind in _core.tile_kinds(geometry=True):
        shapes = tile_shapes(kind)
        out[kind["name"]] = {
            "svg": tile_svg(shapes),
            "anchors": [None if a is None else [round(a[0], 1), round(a[1], 1)] for a in shapes.anchors],
            "features": [f["type"] for f in kind["features"]],
            "edges": kind["edges"],
            "set": kind["set"],
            "count": kind["count"],
            "marks": kind["marks"],
            "arrow": kind["arrow"],
            "city_square": kind["city_square"],
            "outlines": feature_outlines(shapes),
        }
    return out


def feature_outlines(shapes: TileShapes) -> list[dict[str, Any] | None]:
    """Per feature, its shape for the page to highlight: {"d": SVG path, "area": True} for a
    city, a building or a field (rows of the flood-fill grid), {"d", "area": False} for the
    centre line of a road or river; None for what is not drawn on the tile (the City's
    quarters)."""
    out: list[dict[str, Any] | None] = []
    for index, _ in enumerate(shapes.kind["features"]):
        if index in shapes.cities:
            out.append({"d": shapes.cities[index].svg(True), "area": True})
        elif index in shapes.roads or index in shapes.rivers:
            curves = shapes.roads.get(index) or shapes.rivers[index]
            out.append({"d": " ".join(c.svg(False) for c in curves), "area": False})
        elif index == shapes.cloister:
            h = CLOISTER_HALF
            out.append({"d": f"M{50 - h},{50 - h} h{2 * h} v{2 * h} h{-2 * h} Z", "area": True})
        elif shapes.fields.get(index):
            out.append({"d": _cell_rows(shapes.fields[index]), "area": True})
        else:
            out.append(None)
    return out


def _cell_rows(cells: set[tuple[int, int]]) -> str:
    """A path of the grid cells, one rectangle per run of cells in a row."""
    size = 100 / GRID
    rects = []
    for j in range(GRID):
        i = 0
        while i < GRID:
            if (i, j) not in cells:
                i += 1
                continue
            start = i
            while (i, j) in cells:
                i += 1
            rects.append(
                f"M{start * size:g},{j * size:g} h{(i - start) * size:g} v{size:g} h{-(i - start) * size:g} Z"
            )
    return " ".join(rects)


def tile_svg(shapes: TileShapes) -> str:
    """The drawing of one tile kind: fields, rivers, roads, cities with pennants, buildings, marks
    and the arrow, in that order (later on top)."""
    kind = shapes.kind
    parts = [f'<rect width="100" height="100" fill="{COLOURS["field"]}"/>']
    if kind["city_square"]:
        parts.append(_city_square(shapes))
    for curves in shapes.rivers.values():
        parts += [_stroke(c.svg(False), RIVER_HALF_WIDTH, "river") for c in curves]
    for index, curves in shapes.roads.items():
        parts += [_stroke(c.svg(False), ROAD_HALF_WIDTH, "road") for c in curves]
        feature = kind["features"][index]
        if feature["road_end"] in ("junction", "house") and len(feature["sides"]) == 1:
            parts.append(_house(50, 50) if feature["road_end"] == "house" else _junction())
    for index, curve in shapes.cities.items():
        parts.append(
            f'<path d="{curve.svg(True)}" fill="{COLOURS["city"]}" stroke="{COLOURS["city_edge"]}" '
            'stroke-width="2.5" stroke-linejoin="round"/>'
        )
        anchor = shapes.anchors[index]
        for p in range(kind["features"][index]["pennants"]):
            if anchor is not None:
                parts.append(_pennant(anchor[0] + 13 + 13 * p, anchor[1] - 12))
    if shapes.cloister is not None:
        parts.append(_building(kind["features"][shapes.cloister]["type"]))
    spots = iter(shapes.free_spots)
    for mark in kind["marks"]:
        spot = next(spots, (20.0, 80.0))
        parts.append(_mark(mark, spot))
    if kind["arrow"]:
        parts.append(arrow_svg(kind["arrow"]["kind"], kind["arrow"]["side"]))
    return f'<g class="tile-art">{"".join(parts)}</g>'


def _stroke(d: str, half_width: float, what: str) -> str:
    edge, fill = COLOURS[f"{what}_edge"], COLOURS[what]
    return (
        f'<path d="{d}" fill="none" stroke="{edge}" stroke-width="{2 * half_width + 3}"/>'
        f'<path d="{d}" fill="none" stroke="{fill}" stroke-width="{2 * half_width}"/>'
    )


def _junction() -> str:
    return f'<rect x="42" y="42" width="16" height="16" fill="{COLOURS["road_edge"]}" rx="2"/>'


def _house(x: float, y: float) -> str:
    return (
        f'<path d="M{x - 8},{y + 7} v-9 l8,-7 l8,7 v9 z" fill="#e9d8b4" stroke="#5b4630" stroke-width="1.5"/>'
        f'<path d="M{x - 10},{y - 2} l10,-9 l10,9" fill="none" stroke="#a33" stroke-width="3"/>'
    )


def _building(kind: str) -> str:
    """A monastery (red roof), a shrine (dark roof, a flame) or an abbey (a large hall)."""
    h = CLOISTER_HALF
    roof = {"monastery": "#b5462f", "shrine": "#3d2a52", "abbey": "#8a5a2b"}[kind]
    body = (
        f'<rect x="{50 - h}" y="{50 - h + 6}" width="{2 * h}" height="{2 * h - 6}" fill="#efe3c8" '
        f'stroke="#5b4630" stroke-width="1.5"/><path d="M{50 - h - 3},{50 - h + 7} L50,{50 - h - 6} '
        f'L{50 + h + 3},{50 - h + 7} Z" fill="{roof}" stroke="#3b2a1a" stroke-width="1.5"/>'
        f'<rect x="46" y="{50 + h - 12}" width="8" height="12" fill="#5b4630"/>'
    )
    if kind == "shrine":
        body += '<path d="M50,38 q-5,8 0,12 q5,-4 0,-12" fill="#f39c12"/>'
    elif kind == "monastery":
        body += '<path d="M50,26 v10 M46,30 h8" stroke="#3b2a1a" stroke-width="2"/>'
    else:
        body += '<text x="50" y="58" font-size="12" text-anchor="middle" fill="#3b2a1a">A</text>'
    return f'<g class="building {kind}">{body}</g>'


def _pennant(x: float, y: float) -> str:
    """A coat of arms: a shield big enough to count at a glance."""
    return (
        f'<path d="M{x - 6},{y - 7} h12 v7 l-6,7 l-6,-7 z" fill="{COLOURS["pennant"]}" stroke="#fff" '
        'stroke-width="1.5"/>'
        f'<path d="M{x},{y - 5} v8 M{x - 3.5},{y - 2} h7" stroke="#fff" stroke-width="1.3"/>'
    )


def _mark(mark: str, spot: tuple[float, float]) -> str:
    x, y = spot
    if mark == "garden":
        return (
            "".join(
                f'<circle cx="{x + dx}" cy="{y + dy}" r="3.2" fill="#3d7a2a" stroke="#2b5a1d"/>'
                for dx, dy in ((-4, 0), (4, 0), (0, -4), (0, 4))
            )
            + f'<circle cx="{x}" cy="{y}" r="2" fill="#f1c40f"/>'
        )
    if mark == "inn":
        return _house(x, y)
    if mark == "pig-herd":
        return (
            f'<ellipse cx="{x}" cy="{y}" rx="7" ry="5" fill="#f5a3b7" stroke="#a0566a" stroke-width="1.2"/>'
            f'<circle cx="{x + 6}" cy="{y - 2}" r="3" fill="#f5a3b7" stroke="#a0566a"/>'
        )
    if mark == "volcano":
        return (
            f'<path d="M{x - 11},{y + 8} L{x - 3},{y - 7} h6 L{x + 11},{y + 8} z" fill="#6e3b1e"/>'
            f'<path d="M{x - 3},{y - 7} h6 l-3,-6 z" fill="#e74c3c"/>'
        )
    if mark in ("lake", "spring"):  # where the river ends: the tile's centre
        r = 14 if mark == "lake" else 7
        water = f'fill="{COLOURS["river"]}" stroke="{COLOURS["river_edge"]}" stroke-width="2"'
        return f'<circle cx="50" cy="50" r="{r}" {water}/>'
    if mark == "well":
        return f'<circle cx="{x}" cy="{y}" r="5" fill="#9aa5b1" stroke="#34495e" stroke-width="2"/>'
    return f'<circle cx="{x}" cy="{y}" r="3" fill="#555"/>'


def arrow_svg(kind: str, side: str) -> str:
    """A coloured arrow at the tile's centre pointing to `side`, with a letter for its kind."""
    colour, ink = ARROW_COLOURS.get(kind, "#333"), ARROW_INK.get(kind, "#fff")
    turn = 90 * SIDES.index(side)
    return (
        f'<g class="arrow {kind}" transform="rotate({turn} 50 50)">'
        f'<path d="M50,6 l9,12 h-5 v12 h-8 v-12 h-5 z" fill="{colour}" stroke="#222" stroke-width="1.5"/>'
        f'<text x="50" y="27" font-size="8" font-weight="bold" text-anchor="middle" fill="{ink}">'
        f"{ARROW_LETTERS.get(kind, '?')}</text></g>"
    )


def _city_square(shapes: TileShapes) -> str:
    """A square of the City of Carcassonne: stone inside its walls, the field strips outside.
    Drawn cell by cell on the geometry grid, with a wall wherever stone meets field."""
    size = 100 / GRID
    stone = {
        (i, j)
        for i in range(GRID)
        for j in range(GRID)
        if not in_square_field_strip(shapes.kind, cell_centre(i, j))
    }
    side = f"{size + 0.3:g}"  # overlapping a little, so no seams show between the cells
    cells = "".join(
        f'<rect x="{i * size:g}" y="{j * size:g}" width="{side}" height="{side}"/>' for i, j in stone
    )
    walls = []
    for i, j in stone:
        x, y = i * size, j * size
        for (di, dj), line in (
            ((1, 0), f"M{x + size:g},{y:g} v{size:g}"),
            ((-1, 0), f"M{x:g},{y:g} v{size:g}"),
            ((0, 1), f"M{x:g},{y + size:g} h{size:g}"),
            ((0, -1), f"M{x:g},{y:g} h{size:g}"),
        ):
            n = (i + di, j + dj)
            if 0 <= n[0] < GRID and 0 <= n[1] < GRID and n not in stone:
                walls.append(line)
    return (
        f'<g fill="{COLOURS["walls"]}">{cells}</g>'
        f'<path d="{" ".join(walls)}" stroke="#5e5345" stroke-width="2.5" stroke-linecap="square"/>'
    )


def figure_svg(kind: str, player: int, x: float, y: float, scale: float = 1.0) -> str:
    """A figure of a player's colour standing at (x, y): meeple, mayor (larger, an M), wagon
    (a cart) or barn (a house with a pitched roof); or the Count (nobody's: a crowned tower)."""
    colour = PLAYER_COLOURS[player % len(PLAYER_COLOURS)] if kind != "count" else COUNT_COLOUR
    s = scale
    outline = (
        'stroke="#fff" stroke-width="1.6"'
        if player % len(PLAYER_COLOURS) == 3
        else 'stroke="#000" stroke-width="1.4"'
    )
    if kind == "wagon":
        body = (
            f'<rect x="-10" y="-8" width="20" height="10" rx="2" fill="{colour}" {outline}/>'
            '<circle cx="-6" cy="5" r="4" fill="#333" stroke="#eee"/>'
            '<circle cx="6" cy="5" r="4" fill="#333" stroke="#eee"/>'
        )
    elif kind == "count":
        body = (
            f'<path d="M-6,11 l1.5,-15 h9 l1.5,15 z" fill="{colour}" stroke="#000" stroke-width="1.4"/>'
            '<circle cx="0" cy="-8" r="4.5" fill="#4a4a4a" stroke="#000" stroke-width="1.2"/>'
            '<path d="M-5,-12 l1.5,-5 l2,3 l1.5,-4 l1.5,4 l2,-3 l1.5,5 z" fill="#f1c40f" stroke="#7a5c00" '
            'stroke-width="0.8"/>'
        )
    elif kind == "barn":
        body = f'<path d="M-10,8 v-10 l10,-9 l10,9 v10 z" fill="{colour}" {outline}/>'
    else:
        body = (
            '<path d="M0,-11 c3,0 4.5,2 4.5,4.5 c0,1.5 -0.6,2.5 -1.5,3.2 l8,3 c1.5,.6 1.5,3 -.5,3.3 l-5,-.5 '
            "l4.5,9 h-6.5 l-3.5,-5 l-3.5,5 h-6.5 l4.5,-9 l-5,.5 c-2,-.3 -2,-2.7 -.5,-3.3 l8,-3 "
            f'c-.9,-.7 -1.5,-1.7 -1.5,-3.2 c0,-2.5 1.5,-4.5 4.5,-4.5 z" fill="{colour}" {outline}/>'
        )
        if kind == "mayor":
            s *= 1.25
            body += (
                '<text x="0" y="4" font-size="7" font-weight="bold" text-anchor="middle" fill="#fff">M</text>'
            )
    return f'<g class="figure {kind}" transform="translate({x:.1f},{y:.1f}) scale({s:g})">{body}</g>'
