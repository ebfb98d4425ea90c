"""The engine's tile catalogue (engine/data/tiles.txt) against the reference tiles.json."""

import subprocess
import sys
from pathlib import Path

import pytest

import carcassonne

ROOT = Path(__file__).resolve().parents[2]
TILES_JSON = ROOT.parent / "shared" / "rules" / "tiles.json"


@pytest.mark.skipif(not TILES_JSON.exists(), reason="shared/rules/tiles.json is not beside the project")
def test_catalogue_is_generated_from_tiles_json() -> None:
    """engine/data/tiles.txt is exactly what tools/make_catalogue.py writes from tiles.json, so a
    correction to the reference reaches the engine (tiles are data, not code)."""
    generated = subprocess.run(
        [sys.executable, str(ROOT / "tools" / "make_catalogue.py"), str(TILES_JSON)],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    assert generated == (ROOT / "engine" / "data" / "tiles.txt").read_text()


def test_every_set_is_in_the_compiled_catalogue() -> None:
    counts: dict[str, int] = {}
    for name, tile_set, count in carcassonne.tile_kinds():
        assert name.startswith(tile_set + ".")
        counts[tile_set] = counts.get(tile_set, 0) + count
    assert counts == {
        "base": 72,
        "abbey-mayor": 18,
        "river2": 12,
        "shrines": 5,
        "king-robber": 5,
        "count-city": 12,
        "anniv20": 15,
    }
