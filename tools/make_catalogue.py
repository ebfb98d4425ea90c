#!/usr/bin/env python3
"""Converts a tiles.json file into the engine's catalogue format: a maintainer's one-time converter.

engine/data/tiles.txt is the source of truth for the engine's tiles, and it is edited directly: a
tile's landscape is corrected as data, one line, without touching code (the format is described
in engine/catalogue.h, the conventions in docs/rules.md). This script wrote the first version of
that file from the project's reference tiles.json, which lives outside the repository (in the
developers' ../shared/rules/ folder) and is not needed to build, test or use the engine. Keep it
for the day a tile set is added to tiles.json and needs converting. Usage:
    python3 tools/make_catalogue.py [path/to/tiles.json] > new_tiles.txt
Without a path it reads ../shared/rules/tiles.json beside the project; if the file is not there
it stops with a message that says so.
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
    if not source.is_file():
        sys.exit(
            f"make_catalogue.py: no tiles.json at {source}.\n"
            "This converter is for maintainers who have the reference tiles.json (give its path as the\n"
            "argument). The engine does not need it: engine/data/tiles.txt is the source of truth and\n"
            "is edited directly (format: engine/catalogue.h)."
        )
    data = json.loads(source.read_text())
    print("# Tile catalogue of the engine: the source of truth for its tiles, edited directly.")
    print("# Format: engine/catalogue.h; sides, halves and rotations: docs/rules.md (section 7).")
    print("# First converted from the reference tiles.json by tools/make_catalogue.py.")
    for tile_set in data["sets"]:
        print()
        print(f"set {tile_set['id']}")
        for tile in tile_set["tiles"]:
            print(tile_line(tile))


if __name__ == "__main__":
    main()
