"""The legal actions of a node as the page needs them: placements by cell with their rotations,
figure spots on tiles, and every other choice as a labelled button. Every legal action appears in
exactly one group, so whatever the board does not draw specially can still be chosen."""

from __future__ import annotations

import re
from functools import cache
from typing import Any

from .. import _core
from ..game import Game

PLACE = re.compile(r"^place (-?\d+),(-?\d+) r(\d)$")
FIGURE = re.compile(r"^(meeple|mayor|wagon) (\w+)#(\d+)(?: @(-?\d+),(-?\d+))?$")
BARN = re.compile(r"^barn (NE|SE|SW|NW)$")
CELL_CHOICE = re.compile(r"^(abbey|arrow) (-?\d+),(-?\d+)$")
QUARTER = re.compile(r"^(meeple|mayor|wagon) @(\w+)$")
COUNT = re.compile(r"^count (\w+)$")

PASS_LABELS = {
    "place_figure": "No figure",
    "wagon_move": "Take the wagon back to your supply",
    "city_move": "Move nobody from the City",
    "city_place": "Put no figure into the City",
    "market_move": "Leave the market as it is",
    "abbey_choice": "Keep the abbey",
}


def label(text: str, phase: str, count: str | None = None) -> str:
    """A short English description of an action for buttons and the move log (`count`: the
    quarter where the Count stands, if the game has him)."""
    if text == "pass":
        return PASS_LABELS.get(phase, "Pass")
    if text == "take-tile":
        return "Draw a tile (keep the abbey)"
    if m := PLACE.match(text):
        return f"Place the tile at {m[1]},{m[2]} turned {90 * int(m[3])}°"
    if m := FIGURE.match(text):
        where = f" on the tile at {m[4]},{m[5]}" if m[4] else ""
        return f"{m[1].capitalize()} on the {m[2]}{where}"
    if m := BARN.match(text):
        return f"Barn on the {m[1]} corner"
    if m := CELL_CHOICE.match(text):
        return f"Abbey at {m[2]},{m[3]}" if m[1] == "abbey" else f"Use the arrow of the tile at {m[2]},{m[3]}"
    if m := QUARTER.match(text):
        return f"{m[1].capitalize()} into the City's {m[2]} quarter"
    if m := COUNT.match(text):
        return f"Leave the Count in the {m[1]}" if m[1] == count else f"Move the Count to the {m[1]}"
    if text.startswith("draw "):
        return f"Drew {text[5:]}"
    return text


def grouped_actions(game: Game) -> dict[str, Any]:
    """{"placements": [{x, y, where, rotations: {r: action}}], "figures": [{action, kind,
    feature_type, feature, x, y, where}], "barns": [{action, corner, x, y}], "cells": [{action,
    what, x, y, where}], "choices": [{action, label}], "every": [{action, label}] (each legal
    action once more, for the page's full list)} for the node's decision; empty groups at a draw
    or the end. `where`: the cell in words from the start tile ("2 right, 1 up of the start
    tile"), for the page's screen-reader names."""
    groups: dict[str, Any] = {
        name: [] for name in ("placements", "figures", "barns", "cells", "choices", "every")
    }
    if game.is_chance or game.is_terminal:
        return groups
    phase = game.phase
    last = game.tiles[-1] if game.tiles else {"x": 0, "y": 0}
    origin = (game.tiles[0]["x"], game.tiles[0]["y"]) if game.tiles else (0, 0)
    cells: dict[tuple[int, int], dict[str, Any]] = {}
    for action in game.legal_actions():
        text = action.text
        groups["every"].append({"action": text, "label": label(text, phase, game.count)})
        if m := PLACE.match(text):
            x, y, r = int(m[1]), int(m[2]), int(m[3])
            if (x, y) not in cells:
                cells[x, y] = {"x": x, "y": y, "where": relative(x, y, origin), "rotations": {}}
            cells[x, y]["rotations"][r] = text
        elif m := FIGURE.match(text):
            x, y = (int(m[4]), int(m[5])) if m[4] else (last["x"], last["y"])
            groups["figures"].append(
                {
                    "action": text,
                    "kind": m[1],
                    "feature_type": m[2],
                    "feature": int(m[3]),
                    "x": x,
                    "y": y,
                    "where": relative(x, y, origin),
                }
            )
        elif m := BARN.match(text):
            groups["barns"].append({"action": text, "corner": m[1], "x": last["x"], "y": last["y"]})
        elif m := CELL_CHOICE.match(text):
            x, y = int(m[2]), int(m[3])
            where = relative(x, y, origin)
            groups["cells"].append({"action": text, "what": m[1], "x": x, "y": y, "where": where})
        else:
            groups["choices"].append({"action": text, "label": label(text, phase, game.count)})
    groups["placements"] = list(cells.values())
    return groups


# What the player is asked, in words for any screen: the page adds how (mouse, finger or keyboard).
PROMPTS = {
    "abbey_choice": "pick a highlighted hole to place your abbey there, or draw a tile",
    "place_tile": "place the tile",
    "arrow_choice": "several arrows would activate: pick the highlighted tile whose arrow does",
    "place_figure": "place a figure on a marked spot, or no figure",
    "city_move": "a feature is about to score: you may move a figure from the City onto it",
    "wagon_move": "your wagon's feature scored: move the wagon on, or take it back",
    "city_place": "you may put a figure into a quarter of the City of Carcassonne",
    "count_move": "move the Count to another quarter",
    "market_move": "game end: you may move a meeple from the market onto a field",
}


def prompt(game: Game, groups: dict[str, Any]) -> str:
    """What the player is asked, worded after the choices there are: "you may" only where
    passing is one of them, "or leave him" only where the Count may stay."""
    phase = game.phase
    actions = {c["action"] for c in groups["choices"]}
    if phase == "market_move" and "pass" not in actions:
        return "game end: move a meeple from the market onto a field (pick a marked spot)"
    if phase == "count_move" and game.count and f"count {game.count}" in actions:
        return f"move the Count to another quarter, or leave him in the {game.count}"
    return PROMPTS.get(phase, "")


# ---- The move log, in a player's words ------------------------------------------------------

MARK_WORDS = {"garden": "a garden", "lake": "a lake", "well": "a well", "spring": "a spring",
              "inn": "an inn", "pig-herd": "a pig herd", "volcano": "a volcano"}  # fmt: skip


LOG_PASSES = {
    "place_figure": "placed no figure",
    "wagon_move": "took the wagon back",
    "city_move": "moved nobody from the City",
    "city_place": "put no figure into the City",
    "market_move": "left the market as it is",
    "abbey_choice": "kept the abbey",
}


@cache
def _tile_kinds() -> dict[str, dict[str, Any]]:
    return {k["name"]: k for k in _core.tile_kinds(geometry=True)}


def tile_words(kind: str) -> str:
    """A tile kind as a player names it: "a city tile with a road and a pennant"."""
    tile = _tile_kinds().get(kind)
    if tile is None:
        return f"the tile {kind}"
    types = [f["type"] for f in tile["features"]]
    if tile["city_square"]:
        return "a square of the City of Carcassonne"
    if "monastery" in types or "abbey" in types or "shrine" in types:
        name = "an abbey" if "abbey" in types else "a monastery" if "monastery" in types else "a shrine"
        extras = ["a road"] if "road" in types else []
    elif "river" in types:
        name, extras = "a river tile", (["a road"] if "road" in types else [])
    elif "city" in types:
        name, extras = "a city tile", (["a road"] if "road" in types else [])
    elif "road" in types:
        name, extras = "a road tile", []
    else:
        name, extras = "a field tile", []
    pennants = sum(f["pennants"] for f in tile["features"])
    if pennants:
        extras.append("a pennant" if pennants == 1 else f"{pennants} pennants")
    extras += [MARK_WORDS.get(mark, f"a {mark}") for mark in tile["marks"]]
    if not extras:
        return name
    return f"{name} with {', '.join(extras[:-1])}{' and ' if len(extras) > 1 else ''}{extras[-1]}"


def relative(x: int, y: int, origin: tuple[int, int]) -> str:
    """Where a cell lies from the start tile, as seen on the board (north up): "2 right, 1 up"."""
    dx, dy = x - origin[0], y - origin[1]
    parts = []
    if dx:
        parts.append(f"{abs(dx)} {'right' if dx > 0 else 'left'}")
    if dy:
        parts.append(f"{abs(dy)} {'down' if dy > 0 else 'up'}")
    return f"{', '.join(parts)} of the start tile" if parts else "on the start tile's cell"


def log_text(text: str, phase: str, tiles: list[dict[str, Any]], drawn: str | None, count: str | None) -> str:
    """A move as the log tells it after the player's name ("placed a city tile 2 right of the
    start tile"; a draw: "Drawn: a road tile"). `tiles`: the board before the move, `drawn` the
    tile being placed, `count` the Count's quarter."""
    origin = (tiles[0]["x"], tiles[0]["y"]) if tiles else (0, 0)
    if text.startswith("draw "):
        return f"Drawn: {tile_words(text[5:])}"
    if m := PLACE.match(text):
        what = tile_words(drawn) if drawn else "the tile"
        return f"placed {what} {relative(int(m[1]), int(m[2]), origin)}"
    if m := FIGURE.match(text):
        where = f" of the tile {relative(int(m[4]), int(m[5]), origin)}" if m[4] else ""
        moved = "moved the wagon onto" if phase == "wagon_move" else f"put a {m[1]} on"
        field = " (a farmer)" if m[2] == "field" else ""
        return f"{moved} the {m[2]}{where}{field}"
    if m := BARN.match(text):
        return f"put a barn on the {m[1]} corner"
    if m := CELL_CHOICE.match(text):
        where = relative(int(m[2]), int(m[3]), origin)
        return f"placed an abbey {where}" if m[1] == "abbey" else f"used the arrow of the tile {where}"
    if m := QUARTER.match(text):
        return f"put a {m[1]} into the City's {m[2]} quarter"
    if m := COUNT.match(text):
        return f"left the Count in the {m[1]}" if m[1] == count else f"moved the Count to the {m[1]}"
    if text == "take-tile":
        return "drew a tile (kept the abbey)"
    if text == "pass":
        return LOG_PASSES.get(phase, "passed")
    return f"chose {text}"
