"""What the page shows of scoring: what each move scored where, and the final scoring item by item.

Both come from the engine's own records of its scorings (`Game.apply(..., explain=True)`,
docs/python.md): the feature's segments to outline, the figures on it, the cities a farm feeds,
the parts the engine added up and who got the points. The page derives nothing itself: its words
are the engine's parts, so they add up to the engine's points.
"""

from __future__ import annotations

from typing import Any

# The final scoring's order on the page: roads, cities, cloister-likes, farms, then the titles.
FINAL_ORDER = {"road": 0, "city": 1, "monastery": 2, "abbey": 2, "shrine": 2, "field": 3}


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


def _count(n: int, one: str, many: str) -> str:
    return f"{n} {one if n == 1 else many}"


def part_words(part: dict[str, Any]) -> str:
    """One part of a scoring in words: "7 tiles × 2"."""
    n, each = part["count"], part["each"]
    what = {
        "tiles": _count(n, "tile", "tiles"),
        "pennants": _count(n, "pennant", "pennants"),
        "cells": _count(n, "tile", "tiles") + " (its own and around it)",
        "cities": _count(n, "complete city", "complete cities"),
        "city_of_carcassonne": "the City of Carcassonne",
        "pig_herd": _count(n, "city", "cities") + " with the pig herd",
        "roads": _count(n, "complete road", "complete roads"),
        "arrow": "an arrow to an empty cell",
    }.get(part["part"], part["part"])
    return f"{what} × {each}"


def sum_words(record: dict[str, Any]) -> str:
    """A scoring's parts and their sum in words: "7 tiles × 2 + 3 pennants × 2 = 20"."""
    if not record["parts"]:
        return "nothing to count = 0"
    return " + ".join(part_words(p) for p in record["parts"]) + f" = {record['points']}"


def _causes(record: dict[str, Any], players: int) -> dict[str, list[int]]:
    causes: dict[str, list[int]] = {}
    for award in record["awards"]:
        causes.setdefault(award["cause"], [0] * players)[award["player"]] += award["points"]
    return {c: v for c, v in causes.items() if any(v)}


def move_events(scorings: list[dict[str, Any]], returned: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """What one move scored during play, scoring by scoring, for the page to show on the board:
    [{"kind", "type", "parts": [[x, y, feature]...], "points": {player: points}, "causes": [...],
    "returned": [figures gone home], "words"}]. `scorings`: the engine's records of the move (its
    final scoring's are left out: they are the final scoring's items); `returned`: the figures
    that left the board. Figures that went home without a scoring (a challenge lost, SH-5) are
    an item of their own, with no points."""
    events = []
    home = list(returned)
    for r in scorings:
        if r["final"]:
            continue
        gone = [f for f in r["figures"] if f["kind"] != "barn"]  # a barn stays (AM-B-2)
        for f in gone:
            if f in home:
                home.remove(f)
        events.append(
            {
                "kind": r["kind"],
                "type": r["type"],
                "parts": r["segments"],
                "points": {a["player"]: r["gains"][a["player"]] for a in r["awards"] if a["points"]},
                "causes": sorted({a["cause"] for a in r["awards"] if a["points"]}),
                "returned": gone,
                "words": sum_words(r),
            }
        )
    if home:
        events.append(
            {
                "kind": "",
                "type": "",
                "parts": [[f["x"], f["y"], f["feature"]] for f in home],
                "points": {},
                "causes": [],
                "returned": home,
                "words": "",
            }
        )
    return events


def final_scoring(
    scorings: list[dict[str, Any]], tiles: list[dict[str, Any]], players: int
) -> list[dict[str, Any]]:
    """The final scoring of a finished game, item by item (B-8, B-9, KR-2), from the engine's
    records of the action that ended it. Each item: {"what": "feature" | "king" | "robber",
    "type", "parts" (the feature's segments), "figures", "cities" (a farm's complete cities, or
    the King's, or the Robber's roads, each as segments), "feeds_the_city" (the City of
    Carcassonne counts as one of them, CK-1), "pig_herd" (RV-4), "pennants", "in_the_city"
    (the feature reaches the City's squares), "sum" (the parts the engine added up, each with its
    "words"), "words" (the sum in words), "points": [per player], "causes": {cause: [per
    player]}}."""
    squares = {(t["x"], t["y"]) for t in tiles if t["tile"].startswith("count-city.")}
    items = []
    for r in scorings:
        if not r["final"]:
            continue
        items.append(
            {
                "what": r["kind"],
                "type": r["type"],
                "parts": r["segments"],
                "figures": r["figures"],
                "cities": r["counted"],
                "feeds_the_city": r["city_of_carcassonne"],
                "pig_herd": r["pig_herd"],
                "pennants": r["pennants"],
                "in_the_city": any(tuple(cell) in squares for cell in r["cells"]),
                "sum": [{**p, "words": part_words(p)} for p in r["parts"]],
                "words": sum_words(r),
                "points": r["gains"],
                "causes": _causes(r, players),
            }
        )
    features = [i for i in items if i["what"] == "feature"]
    features.sort(key=lambda i: (FINAL_ORDER.get(i["type"], 9), -max(i["points"])))
    return features + [i for i in items if i["what"] != "feature"]
