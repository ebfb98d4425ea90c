"""Where things lie on a tile: outlines of cities, lines of roads and rivers, and the spot where a
figure on each feature is drawn, all in a 100 x 100 square in the catalogue orientation.

The shapes come from the engine's tile geometry (`carcassonne.tile_kinds(geometry=True)`): a
city is outlined from the sides it covers, a road runs between the middles of its sides, and a
field is whatever the cities, roads and buildings leave, found by a flood fill on a coarse grid
from the field's side halves (so every tile, the City of Carcassonne's squares included, gets
its fields without per-tile drawings).
"""

from __future__ import annotations

import itertools
from collections import deque
from dataclasses import dataclass, field
from typing import Any

SIZE = 100
CENTRE = (50.0, 50.0)
SIDES = "NESW"
# Corners clockwise from the north-west: side s runs from corner s to corner s + 1.
CORNERS = ((0.0, 0.0), (100.0, 0.0), (100.0, 100.0), (0.0, 100.0))
CLOISTER_HALF = 16  # half the width of a monastery, shrine or abbey building
ROAD_HALF_WIDTH = 5
RIVER_HALF_WIDTH = 8
GRID = 25  # cells per side of the flood-fill grid
CELL = SIZE / GRID

Point = tuple[float, float]


def connection_point(point: int) -> Point:
    """Coordinates of one of the 12 connection points (engine/types.h numbering)."""
    side, k = divmod(point, 3)
    offset = 25.0 * (k + 1)
    return [(offset, 0.0), (100.0, offset), (100.0 - offset, 100.0), (0.0, 100.0 - offset)][side]


def side_middle(side: str) -> Point:
    return connection_point(SIDES.index(side) * 3 + 1)


def _toward_centre(p: Point, distance: float) -> Point:
    """p moved `distance` units toward the centre (p lies on an edge)."""
    dx, dy = CENTRE[0] - p[0], CENTRE[1] - p[1]
    length = max(abs(dx), abs(dy)) or 1.0
    return (p[0] + dx / length * distance, p[1] + dy / length * distance)


@dataclass
class Curve:
    """A path of lines (q is None) and quadratic curves, as (control, end) steps from start."""

    start: Point
    steps: list[tuple[Point | None, Point]] = field(default_factory=list)

    def svg(self, closed: bool) -> str:
        parts = [f"M{_fmt(self.start)}"]
        for control, end in self.steps:
            parts.append(f"L{_fmt(end)}" if control is None else f"Q{_fmt(control)} {_fmt(end)}")
        return " ".join(parts) + (" Z" if closed else "")

    def polyline(self, samples: int = 8) -> list[Point]:
        points = [self.start]
        here = self.start
        for control, end in self.steps:
            if control is None:
                points.append(end)
            else:
                for i in range(1, samples + 1):
                    t = i / samples
                    points.append(
                        (
                            (1 - t) ** 2 * here[0] + 2 * (1 - t) * t * control[0] + t * t * end[0],
                            (1 - t) ** 2 * here[1] + 2 * (1 - t) * t * control[1] + t * t * end[1],
                        )
                    )
            here = end
        return points


def _fmt(p: Point) -> str:
    return f"{p[0]:g},{p[1]:g}"


def city_outline(sides: list[str], narrow: bool = False) -> Curve:
    """The outline of a city covering these sides: covered sides follow the tile's edge; each run
    of uncovered sides is closed by a curve bowing into the tile (a cap for a one-sided city, a
    concave diagonal for two adjacent sides, a waist for two opposite sides: `narrow` when another
    city shares the tile, so a bridge's two cities both show)."""
    covered = [s in sides for s in SIDES]
    if all(covered):
        return Curve(CORNERS[0], [(None, c) for c in CORNERS[1:]])
    start = next(s for s in range(4) if covered[s] and not covered[s - 1])
    curve = Curve(CORNERS[start])
    s, walked = start, 0
    while walked < 4:
        if covered[s % 4]:
            curve.steps.append((None, CORNERS[(s + 1) % 4]))
            s, walked = s + 1, walked + 1
            continue
        run = 1
        while not covered[(s + run) % 4]:
            run += 1
        end = CORNERS[(s + run) % 4]
        if run == 1:  # one open side: the field is a cap of it
            control = _toward_centre(side_middle(SIDES[s % 4]), 80 if narrow else 60)
        elif run == 2:  # a corner city: a diagonal bowing toward the city's corner
            city_corner = CORNERS[(s + 3) % 4]
            control = (CENTRE[0] + (city_corner[0] - 50) * 0.25, CENTRE[1] + (city_corner[1] - 50) * 0.25)
        else:  # a one-sided city: a cap
            control = CENTRE
        curve.steps.append((control, end))
        s, walked = s + run, walked + run
    return curve


def line_curves(sides: list[str], road_end: str) -> list[Curve]:
    """The centre lines of a road or river: one curve through the centre for two sides; one arm
    from each side to where it ends (the centre: a junction, a building, a city gate) otherwise."""
    if len(sides) == 2:
        return [Curve(side_middle(sides[0]), [(CENTRE, side_middle(sides[1]))])]
    stop = 50 - CLOISTER_HALF if road_end == "cloister" else 50
    return [Curve(side_middle(s), [(None, _toward_centre(side_middle(s), stop))]) for s in sides]


def _inside(polygon: list[Point], p: Point) -> bool:
    inside = False
    j = len(polygon) - 1
    for i in range(len(polygon)):
        (xi, yi), (xj, yj) = polygon[i], polygon[j]
        if (yi > p[1]) != (yj > p[1]) and p[0] < (xj - xi) * (p[1] - yi) / (yj - yi) + xi:
            inside = not inside
        j = i
    return inside


def _near(polyline: list[Point], p: Point, distance: float) -> bool:
    for (ax, ay), (bx, by) in itertools.pairwise(polyline):
        dx, dy = bx - ax, by - ay
        t = max(0.0, min(1.0, ((p[0] - ax) * dx + (p[1] - ay) * dy) / (dx * dx + dy * dy or 1.0)))
        if (ax + t * dx - p[0]) ** 2 + (ay + t * dy - p[1]) ** 2 <= distance * distance:
            return True
    return False


def cell_centre(i: int, j: int) -> Point:
    return ((i + 0.5) * CELL, (j + 0.5) * CELL)


def _deepest(cells: set[tuple[int, int]]) -> Point | None:
    """The centre of the cell of `cells` farthest (in grid steps) from any cell outside it."""
    if not cells:
        return None
    depth = {}
    queue: deque[tuple[int, int]] = deque()
    for i, j in cells:
        if any((i + di, j + dj) not in cells for di, dj in ((1, 0), (-1, 0), (0, 1), (0, -1))):
            depth[(i, j)] = 0
            queue.append((i, j))
    while queue:
        i, j = queue.popleft()
        for n in ((i + 1, j), (i - 1, j), (i, j + 1), (i, j - 1)):
            if n in cells and n not in depth:
                depth[n] = depth[(i, j)] + 1
                queue.append(n)
    centre = (GRID - 1) / 2
    best = max(cells, key=lambda c: (depth.get(c, 0), -abs(c[0] - centre) - abs(c[1] - centre)))
    return cell_centre(*best)


@dataclass
class TileShapes:
    """Everything drawn on one tile kind, in the catalogue orientation."""

    kind: dict[str, Any]
    cities: dict[int, Curve] = field(default_factory=dict)
    roads: dict[int, list[Curve]] = field(default_factory=dict)
    rivers: dict[int, list[Curve]] = field(default_factory=dict)
    cloister: int | None = None
    fields: dict[int, set[tuple[int, int]]] = field(default_factory=dict)  # grid cells
    anchors: list[Point | None] = field(default_factory=list)  # per feature: where its figure stands
    free_spots: list[Point] = field(default_factory=list)  # field places for marks, farthest first


def tile_shapes(kind: dict[str, Any]) -> TileShapes:
    """The shapes and figure spots of one tile kind (a dict of tile_kinds(geometry=True))."""
    shapes = TileShapes(kind)
    features = kind["features"]
    several_cities = sum(f["type"] == "city" for f in features) > 1
    for index, feature in enumerate(features):
        if feature["type"] == "city":
            shapes.cities[index] = city_outline(feature["sides"], narrow=several_cities)
        elif feature["type"] == "river":
            shapes.rivers[index] = line_curves(feature["sides"], "through")
        elif feature["type"] in ("monastery", "shrine", "abbey"):
            shapes.cloister = index

    city_polygons = {i: c.polyline() for i, c in shapes.cities.items()}

    def city_at(p: Point) -> int | None:
        """The city drawn on top at point p, if any."""
        return next((i for i in reversed(list(city_polygons)) if _inside(city_polygons[i], p)), None)

    city_cells = {(i, j): city_at(cell_centre(i, j)) for i in range(GRID) for j in range(GRID)}
    city_spots = {i: _deepest({c for c, city in city_cells.items() if city == i}) for i in city_polygons}
    for index, feature in enumerate(features):
        if feature["type"] != "road":
            continue
        gate = city_spots.get(feature["road_end_city"]) if feature["road_end"] == "city" else None
        if gate is not None and len(feature["sides"]) == 1:  # straight to its city, under the walls
            shapes.roads[index] = [Curve(side_middle(feature["sides"][0]), [(None, gate)])]
        else:
            shapes.roads[index] = line_curves(feature["sides"], feature["road_end"])

    lines = [(c.polyline(), ROAD_HALF_WIDTH + 1) for cs in shapes.roads.values() for c in cs]
    lines += [(c.polyline(), RIVER_HALF_WIDTH + 1) for cs in shapes.rivers.values() for c in cs]
    square = kind["city_square"]

    def owner(p: Point) -> str | int:
        """What covers point p: a city index (the last drawn wins), "line", "building", or
        "open" (field)."""
        if shapes.cloister is not None and max(abs(p[0] - 50), abs(p[1] - 50)) <= CLOISTER_HALF + 2:
            return "building"
        city = city_at(p)
        if city is not None:
            return city
        if any(_near(line, p, width) for line, width in lines):
            return "line"
        if square and not in_square_field_strip(kind, p):
            return "walls"
        return "open"

    cover = {(i, j): owner(cell_centre(i, j)) for i in range(GRID) for j in range(GRID)}
    open_cells = {c for c, what in cover.items() if what == "open"}
    for index, feature in enumerate(features):
        if feature["type"] == "field":
            shapes.fields[index] = _flood(open_cells, [_edge_cell(p) for p in feature["points"]])

    anchors: list[Point | None] = []
    for index, feature in enumerate(features):
        kind_name = feature["type"]
        if kind_name == "city":
            anchor = city_spots[index]
        elif kind_name == "road":
            anchor = _road_anchor(shapes.roads[index])
        elif kind_name in ("monastery", "shrine", "abbey"):
            anchor = CENTRE
        elif kind_name == "field":
            anchor = _deepest(shapes.fields[index]) or CORNERS[index % 4]
            if not shapes.fields[index]:  # an enclosed field (a bridge's corners)
                anchor = _toward_centre(CORNERS[(index * 2) % 4], 14)
        else:  # rivers and the City's quarters hold no figure on the tile
            anchor = None
        anchors.append(anchor)
    shapes.anchors = _spread(anchors)

    taken = [a for a in shapes.anchors if a is not None]
    inner = [p for p in (cell_centre(*c) for c in open_cells) if 14 <= p[0] <= 86 and 14 <= p[1] <= 86]
    shapes.free_spots = sorted(
        inner,
        key=lambda p: -min((abs(p[0] - a[0]) + abs(p[1] - a[1]) for a in taken), default=100),
    )
    return shapes


def in_square_field_strip(kind: dict[str, Any], p: Point) -> bool:
    """On a square of the City of Carcassonne, fields are strips outside its walls, along the
    field halves of the sides."""
    depth = 30
    for feature in kind["features"]:
        if feature["type"] != "field":
            continue
        for point in feature["points"]:
            if point % 3 == 1:
                continue
            qx, qy = connection_point(point)
            if abs(p[0] - qx) <= 25 and abs(p[1] - qy) <= depth and (qy in (0, 100)):
                return True
            if abs(p[1] - qy) <= 25 and abs(p[0] - qx) <= depth and (qx in (0, 100)):
                return True
    return False


def _edge_cell(point: int) -> tuple[int, int]:
    x, y = connection_point(point)
    return (min(GRID - 1, int(x / CELL)), min(GRID - 1, int(y / CELL)))


def _flood(open_cells: set[tuple[int, int]], seeds: list[tuple[int, int]]) -> set[tuple[int, int]]:
    region = {s for s in seeds if s in open_cells}
    queue = deque(region)
    while queue:
        i, j = queue.popleft()
        for n in ((i + 1, j), (i - 1, j), (i, j + 1), (i, j - 1)):
            if n in open_cells and n not in region:
                region.add(n)
                queue.append(n)
    return region


def _road_anchor(curves: list[Curve]) -> Point:
    line = curves[0].polyline()
    if len(curves) == 1 and len(line) > 2:  # a road through the tile: the middle of its curve
        return line[len(line) // 2]
    start, end = line[0], line[-1]
    return (start[0] + (end[0] - start[0]) * 0.45, start[1] + (end[1] - start[1]) * 0.45)


def _spread(anchors: list[Point | None]) -> list[Point | None]:
    """Moves anchors that would overlap an earlier one a little aside, so each figure is visible."""
    placed: list[Point] = []
    out: list[Point | None] = []
    for anchor in anchors:
        if anchor is not None:
            x, y = anchor
            while any(abs(x - px) < 12 and abs(y - py) < 12 for px, py in placed):
                x, y = x + 14 if x < 70 else x - 28, y + 6
            anchor = (x, y)
            placed.append(anchor)
        out.append(anchor)
    return out
