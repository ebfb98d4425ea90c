"""What the page shows of scoring: which tiles a feature spans, what each move scored where, and
the final scoring feature by feature.

The engine reports points per player and cause, not per feature. The page wants to outline the
feature that scored, so this module joins the features of placed tiles along their shared sides
(the tile geometry's connection points) for drawing only; every point shown comes from the
engine: a move's points from its score breakdown, and each final-scoring item from the engine
scoring a copy of the final board that holds only that item's figures (or only the King's or
the Robber's title). The engine does not say which cities a farm feeds, so the join follows its
rule to the letter (engine/scoring.cpp): the words about a farm must add up to its points.
"""

from __future__ import annotations

from functools import cache
from typing import Any

from .. import _core
from ..game import Error, Game

Part = tuple[int, int, int]  # a feature of a placed tile: x, y, feature index
CITY_STARTS = ("city", "city_plain")  # the variant `start`s that lay the City's squares
# Features that join across tiles; monasteries, shrines, abbeys and the City's quarters do not.
JOINING = ("city", "road", "field", "river")
# A connection point's side: its neighbour cell and the point it meets there (connection points
# run clockwise, three a side from the north side's west end; engine/types.h).
NEIGHBOUR = {0: (0, -1), 1: (1, 0), 2: (0, 1), 3: (-1, 0)}


def _partner(point: int) -> int:
    return 8 - point if point // 3 in (0, 2) else 14 - point


@cache
def _kinds() -> dict[str, list[dict[str, Any]]]:
    return {k["name"]: k["features"] for k in _core.tile_kinds(geometry=True)}


@cache
def _city_squares() -> frozenset[str]:
    return frozenset(k["name"] for k in _core.tile_kinds(geometry=True) if k["city_square"])


@cache
def _pig_herds() -> frozenset[tuple[str, int]]:
    """(tile, feature) of each pig herd: the tile's largest field, the first of the largest (as
    the catalogue puts it, RV-4)."""
    herds = set()
    for kind in _core.tile_kinds(geometry=True):
        if "pig-herd" in kind["marks"]:
            fields = [i for i, f in enumerate(kind["features"]) if f["type"] == "field"]
            herds.add((kind["name"], max(fields, key=lambda i: len(kind["features"][i]["points"]))))
    return frozenset(herds)


class Features:
    """The board's features as sets of parts, joined across tiles."""

    def __init__(self, tiles: list[dict[str, Any]]) -> None:
        kinds = _kinds()
        self.types: dict[Part, str] = {}
        at: dict[tuple[int, int, int], Part] = {}  # (x, y, connection point) -> part
        self._names = {(t["x"], t["y"]): t["tile"] for t in tiles}
        for t in tiles:
            for index, feature in enumerate(kinds[t["tile"]]):
                part = (t["x"], t["y"], index)
                self.types[part] = feature["type"]
                for point in feature["points"]:
                    at[(t["x"], t["y"], (point + 3 * t["rotation"]) % 12)] = part
        self._parent = {part: part for part in self.types}
        for (x, y, point), part in at.items():
            dx, dy = NEIGHBOUR[point // 3]
            other = at.get((x + dx, y + dy, _partner(point)))
            if other is not None and self.types[part] in JOINING and self.types[other] == self.types[part]:
                self._parent[self._root(part)] = self._root(other)
        # As the engine has it, a side is closed by any tile beside it: an abbey closes a city
        # without joining it (AM-A-3), and the City's outer sides are tile sides (CK-1).
        self._open = {
            self._root(part)
            for (x, y, point), part in at.items()
            if (x + NEIGHBOUR[point // 3][0], y + NEIGHBOUR[point // 3][1]) not in self._names
        }
        self._groups: dict[Part, list[Part]] = {}
        for part in self.types:
            self._groups.setdefault(self._root(part), []).append(part)

    def _root(self, part: Part) -> Part:
        while self._parent[part] != part:
            self._parent[part] = self._parent[self._parent[part]]
            part = self._parent[part]
        return part

    def parts(self, part: Part) -> list[Part]:
        """Every part of the feature `part` belongs to (just `part` if it is not on the board)."""
        return sorted(self._groups.get(self._root(part), [part])) if part in self.types else [part]

    def type(self, part: Part) -> str:
        return self.types.get(part, "")

    def complete(self, part: Part) -> bool:
        """True if no side of the feature is open (for drawing; the engine decides scoring)."""
        return part in self.types and self._root(part) not in self._open

    def pennants(self, parts: list[Part]) -> int:
        """The pennants (coats of arms) on these parts of a city: each doubles a tile's worth."""
        kinds = _kinds()
        return sum(
            kinds[self._names[(x, y)]][index]["pennants"] for x, y, index in parts if (x, y) in self._names
        )

    def in_the_city(self, parts: list[Part]) -> bool:
        """Whether these parts reach the squares of the City of Carcassonne."""
        return any(self._names.get((x, y)) in _city_squares() for x, y, _ in parts)

    def pig_herd(self, field: list[Part]) -> bool:
        """Whether the pig herd is in this field: its farmers score 1 more a city (RV-4)."""
        return any((self._names.get((x, y)), index) in _pig_herds() for x, y, index in field)

    def fed_cities(self, field: list[Part]) -> list[list[Part]]:
        """The complete cities bordering a field, each as parts, as the engine counts them for
        its farmers and barns (engine/scoring.cpp). A field on the City's squares feeds the City
        of Carcassonne as well (CK-1, `in_the_city`); the City is not in this list."""
        kinds = _kinds()
        seen: dict[Part, list[Part]] = {}
        for x, y, index in field:
            name = self._names.get((x, y))
            if name is None:
                continue
            for city in kinds[name][index]["cities"]:
                root = self._root((x, y, city))
                if root not in seen and self.complete((x, y, city)):
                    seen[root] = self.parts((x, y, city))
        return list(seen.values())


# The feature types whose scoring each cause books (the King, Robber and arrows score no one
# feature).
CAUSE_TYPES = {
    "city": ("city",),
    "city_mayor": ("city",),
    "road": ("road",),
    "cloister": ("monastery", "abbey"),
    "shrine": ("shrine",),
    "field": ("field",),
    "barn": ("field",),
    "field_barn": ("field",),
}


def _part(figure: dict[str, Any]) -> Part:
    return (figure["x"], figure["y"], figure["feature"])


def _figure_key(figure: dict[str, Any]) -> tuple[int, str, int, int, int]:
    return (figure["player"], figure["kind"], figure["x"], figure["y"], figure["feature"])


def figure_changes(
    before: list[dict[str, Any]], after: list[dict[str, Any]]
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """(the figures that left the board, the figures that came onto it) between two boards."""

    def minus(a: list[dict[str, Any]], b: list[dict[str, Any]]) -> list[dict[str, Any]]:
        left: dict[tuple[int, str, int, int, int], int] = {}
        for f in b:
            left[_figure_key(f)] = left.get(_figure_key(f), 0) + 1
        out = []
        for f in a:
            if left.get(_figure_key(f), 0):
                left[_figure_key(f)] -= 1
            else:
                out.append(f)
        return out

    return minus(before, after), minus(after, before)


def move_events(
    tiles: list[dict[str, Any]], returned: list[dict[str, Any]], points: dict[str, dict[int, int]]
) -> list[dict[str, Any]]:
    """What one move scored, feature by feature, for the page to show on the board:
    [{"causes": [...], "type", "parts": [[x, y, feature]...], "points": {player: points},
    "returned": [figures gone home]}]. `points`: {cause: {player: points}} the move scored.
    Features of one type that scored in the same move are one item (the engine books their
    points together); points no feature explains (the King, arrows, a wagon staying on) are
    an item without parts."""
    if not returned and not points:
        return []  # most moves: no need to join the board's features
    features = Features(tiles)
    by_type: dict[str, dict[str, Any]] = {}  # the scored features of each type, merged
    for f in returned:
        part = _part(f)
        item = by_type.setdefault(
            features.type(part), {"parts": set(), "returned": [], "causes": [], "points": {}}
        )
        item["parts"].update(features.parts(part))
        item["returned"].append(f)
    loose: dict[str, Any] = {"parts": set(), "returned": [], "causes": [], "points": {}}
    for cause, gains in points.items():
        item = next((by_type[t] for t in CAUSE_TYPES.get(cause, ()) if t in by_type), loose)
        item["causes"].append(cause)
        for player, gain in gains.items():
            item["points"][player] = item["points"].get(player, 0) + gain
    items = [{**item, "type": t} for t, item in by_type.items()]
    if loose["causes"]:
        items.append({**loose, "type": ""})
    return [{**item, "parts": sorted(item["parts"])} for item in items]


def final_scoring(game: Game) -> list[dict[str, Any]]:
    """The final scoring of a finished game, item by item (B-8, B-9): every feature that still
    holds figures (a farm with the complete cities it feeds), the King and the Robber. Each item:
    {"what": "feature" | "king" | "robber" | "other", "type", "parts", "figures", "cities" (a
    farm's complete cities, each as parts), "feeds_the_city" (a farm feeds the City of
    Carcassonne too, CK-1: it is one more complete city), "pig_herd" (a farm's farmers score 1
    more a city, RV-4), "points": [per player], "causes": {cause: [per player]}, "pennants" (on
    a feature's parts), "in_the_city" (whether it reaches the City of Carcassonne's squares)}.
    A farm's cities are the ones the engine scores (3 a city for the farmers, 4 with the pig
    herd, 4 for each barn), so its words add up to its points. The points are the engine's: the
    final board is scored with only that item's figures or title on it; "other" holds whatever
    the items do not add up to (nothing, unless a rule scores features together)."""
    features = Features(game.tiles)
    groups: dict[Part, list[dict[str, Any]]] = {}
    for f in game.figures:
        groups.setdefault(features.parts(_part(f))[0], []).append(f)
    players = game.num_players
    # A game whose bag is empty ends at once: the engine applies the final scoring. The titles
    # stay in every copy (a complete city must have a King), and are taken off again.
    # No abbeys are left to place, so no final round comes first.
    start = game.config["variants"].get("start", "")
    # With the City as the start (with the Count or without), the engine lays its squares itself.
    tiles = [t for t in game.tiles if not (start in CITY_STARTS and t["tile"] in _city_squares())]
    base = {
        **game.config,
        "draw_order": [],  # the bag is given (empty): a position has one or the other
        "tiles": tiles,
        "bag": [],
        "king": game.king,
        "robber": game.robber,
        "abbeys": [0] * players,
    }
    if start == "city":  # only this start has the Count
        base["count"] = game.count

    names = {(t["x"], t["y"]): (t["tile"], t["rotation"]) for t in game.tiles}

    def as_placed(f: dict[str, Any]) -> dict[str, Any]:
        """A position names a barn by its corner (0 NE, 1 SE, 2 SW, 3 NW), the board by its
        field: any corner of that field where four tiles meet will do (it scores the field)."""
        if f["kind"] != "barn":
            return f
        name, rotation = names[(f["x"], f["y"])]
        points = {(p + 3 * rotation) % 12 for p in _kinds()[name][f["feature"]]["points"]}
        for corner in range(4):
            if {(3 * corner + 2) % 12, (3 * corner + 3) % 12} <= points:
                barn = {**f, "feature": corner}
                try:
                    Game.from_position({**base, "figures": [barn]})
                    return barn
                except Error:
                    continue
        raise Error(f"no corner of the barn's field at {f['x']},{f['y']} takes a barn")

    def scored(figures: list[dict[str, Any]]) -> dict[str, list[int]]:
        ended = Game.from_position({**base, "figures": [as_placed(f) for f in figures]})
        if not ended.is_terminal:
            raise Error(f"the final board does not end at once (at {ended.phase})")
        breakdown = ended.breakdown()
        return {c: [breakdown[p][c] for p in range(players)] for c in _core.CAUSES}

    titles = scored([])

    def item(what: str, kind: str, causes: dict[str, list[int]], **more: Any) -> dict[str, Any]:
        causes = {c: v for c, v in causes.items() if any(v)}
        points = [sum(v[p] for v in causes.values()) for p in range(players)]
        return {
            "what": what,
            "type": kind,
            "parts": [],
            "figures": [],
            "cities": [],
            "feeds_the_city": False,
            "pig_herd": False,
            "pennants": 0,
            "in_the_city": False,
            **more,
            "points": points,
            "causes": causes,
        }

    items = []
    for root, figures in groups.items():
        parts = features.parts(root)
        with_figures = scored(figures)
        causes = {c: [with_figures[c][p] - titles[c][p] for p in range(players)] for c in _core.CAUSES}
        kind = features.type(root)
        in_the_city = features.in_the_city(parts)
        named: dict[str, Any] = {"pennants": features.pennants(parts), "in_the_city": in_the_city}
        if kind == "field":  # every field on the City's squares touches the City (CK-1)
            named.update(
                cities=features.fed_cities(parts),
                feeds_the_city=in_the_city,
                pig_herd=features.pig_herd(parts),
            )
        items.append(item("feature", kind, causes, parts=parts, figures=figures, **named))
    items.sort(key=lambda i: (FINAL_ORDER.get(i["type"], 9), -max(i["points"])))
    for title in ("king", "robber"):
        if getattr(game, title) >= 0:
            items.append(item(title, title, {title: titles[title]}))
    total = scored(game.figures)
    rest = [sum(v[p] for v in total.values()) - sum(i["points"][p] for i in items) for p in range(players)]
    if any(rest):
        items.append(item("other", "", {"other": rest}))
    return items


FINAL_ORDER = {"road": 0, "city": 1, "monastery": 2, "abbey": 2, "shrine": 2, "field": 3}
