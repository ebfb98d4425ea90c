#!/usr/bin/env python3
"""Writes engine/data/tiles.txt, the engine's tile catalogue, from the reference tiles.json.

The catalogue is the project's own format: one line per tile kind, readable and diffable, so a
tile's landscape can be corrected as data without touching code. Usage:
    python3 tools/make_catalogue.py [path/to/tiles.json] > engine/data/tiles.txt
"""
import json
import sys
from pathlib import Path

HALF_ORDER = ["N1", "N2", "E1", "E2", "S1", "S2", "W1", "W2"]
SIDE_ORDER = "NESW"


def feature_token(feature):
    kind = feature["type"]
    if kind in ("city", "road", "river"):
        sides = "".join(sorted(feature["sides"], key=SIDE_ORDER.index))
        token = f"{kind}:{sides}"
        if feature.get("pennants"):
            token += f"+{feature['pennants']}"
        if "ends_at" in feature:
            token += f"@{feature['ends_at']}"
        return token
    if kind == "field":
        halves = sorted(feature["halves"], key=HALF_ORDER.index)
        token = "field:" + ("".join(halves) if halves else "-")
        if feature.get("cities"):
            token += ">" + ",".join(str(c) for c in feature["cities"])
        return token
    if kind in ("monastery", "shrine", "abbey", "quarter"):
        return kind
    raise ValueError(f"unknown feature type {kind}")


def tile_line(tile):
    parts = [tile["id"], str(tile["count"]), tile["edges"]]
    parts += [feature_token(f) for f in tile["features"]] or ["-"]
    extras = []
    if tile.get("start"):
        extras.append("start")
    extras += [f"mark:{m}" for m in tile.get("marks", [])]
    if "arrow" in tile:
        extras.append(f"arrow:{tile['arrow']['kind']}:{tile['arrow']['points']}")
    if "provisional" in tile:
        extras.append("provisional")
    if "uncertain" in tile:
        extras.append("uncertain")
    if extras:
        parts += ["|"] + extras
    return " ".join(parts)


def main():
    default = Path(__file__).resolve().parents[2] / "shared" / "rules" / "tiles.json"
    source = Path(sys.argv[1]) if len(sys.argv) > 1 else default
    data = json.loads(source.read_text())
    print("# Tile catalogue of the engine. Generated from shared/rules/tiles.json by")
    print("# tools/make_catalogue.py; the format is described in engine/catalogue.h.")
    for tile_set in data["sets"]:
        print()
        print(f"set {tile_set['id']}")
        for tile in tile_set["tiles"]:
            print(tile_line(tile))


if __name__ == "__main__":
    main()
