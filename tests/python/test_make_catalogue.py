"""tools/make_catalogue.py, the maintainers' converter from a tiles.json to the catalogue format.

engine/data/tiles.txt is the source of truth and is edited directly; the reference tiles.json it
was first converted from lives outside the repository. These tests need neither: they convert a
few tiles, copied here from tiles.json, that use every kind of token, and find each line in
engine/data/tiles.txt.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "tools" / "make_catalogue.py"
CATALOGUE = ROOT / "engine" / "data" / "tiles.txt"


def _field(halves: list[str], cities: list[int]) -> dict:
    return {"type": "field", "halves": halves, "cities": cities}


ALL_HALVES = ["N1", "N2", "E1", "E2", "S1", "S2", "W1", "W2"]

# Road ends, pennants, an enclosed field, fields touching cities, a start tile, an abbey, a river,
# marks, quarters, a square with no features, an arrow, "provisional" and "uncertain".
SAMPLE = {
    "sets": [
        {
            "id": "base",
            "tiles": [
                {
                    "id": "base.A",
                    "count": 2,
                    "edges": "FFRF",
                    "features": [
                        {"type": "road", "sides": ["S"], "ends_at": "cloister"},
                        _field(ALL_HALVES, []),
                        {"type": "monastery"},
                    ],
                    "marks": [],
                },
                {
                    "id": "base.D-start",
                    "count": 1,
                    "start": True,
                    "edges": "CRFR",
                    "features": [
                        {"type": "city", "sides": ["N"], "pennants": 0},
                        {"type": "road", "sides": ["W", "E"]},
                        _field(["E1", "W2"], [0]),
                        _field(["E2", "S1", "S2", "W1"], []),
                    ],
                    "marks": [],
                },
            ],
        },
        {
            "id": "abbey-mayor",
            "tiles": [
                {
                    "id": "abbey-mayor.A",
                    "count": 6,
                    "edges": "AAAA",
                    "features": [{"type": "abbey"}],
                    "marks": [],
                },
                {
                    "id": "abbey-mayor.E",
                    "count": 1,
                    "edges": "CCFC",
                    "features": [
                        {"type": "city", "sides": ["N"], "pennants": 1},
                        {"type": "city", "sides": ["W", "E"], "pennants": 0},
                        _field([], [0, 1]),
                        _field(["S1", "S2"], [0, 1]),
                    ],
                    "marks": [],
                    "uncertain": "sources disagree",
                },
                {
                    "id": "abbey-mayor.G",
                    "count": 1,
                    "edges": "CRRC",
                    "features": [
                        {"type": "city", "sides": ["N"], "pennants": 0},
                        {"type": "city", "sides": ["W"], "pennants": 0},
                        {"type": "road", "sides": ["E"], "ends_at": "city:0"},
                        {"type": "road", "sides": ["S"], "ends_at": "city:1"},
                        _field(["E1"], [0]),
                        _field(["S2"], [1]),
                        _field(["E2", "S1"], [0, 1]),
                    ],
                    "marks": [],
                },
            ],
        },
        {
            "id": "river2",
            "tiles": [
                {
                    "id": "river2.F",
                    "count": 1,
                    "edges": "WFFW",
                    "features": [
                        {"type": "river", "sides": ["W", "N"]},
                        _field(["N2", "E1", "E2", "S1", "S2", "W1"], []),
                        _field(["N1", "W2"], []),
                    ],
                    "marks": ["pig-herd"],
                }
            ],
        },
        {
            "id": "count-city",
            "tiles": [
                {"id": "count-city.CO6", "count": 1, "edges": "XXXX", "features": [], "marks": []},
                {
                    "id": "count-city.CO7",
                    "count": 1,
                    "edges": "XXXX",
                    "features": [{"type": "quarter"}] * 4,
                    "marks": [],
                },
            ],
        },
        {
            "id": "anniv20",
            "tiles": [
                {
                    "id": "anniv20.F",
                    "count": 1,
                    "edges": "FRFR",
                    "features": [
                        {"type": "road", "sides": ["W", "E"]},
                        _field(["N1", "N2", "E1", "W2"], []),
                        _field(["E2", "S1", "S2", "W1"], []),
                    ],
                    "marks": [],
                    "arrow": {"kind": "place-anywhere", "points": "N"},
                    "provisional": "stand-in landscape",
                }
            ],
        },
    ]
}


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(SCRIPT), *args], capture_output=True, text=True, check=False)


def test_converted_lines_are_the_catalogues_lines(tmp_path: Path) -> None:
    source = tmp_path / "tiles.json"
    source.write_text(json.dumps(SAMPLE))
    result = _run(str(source))
    assert result.returncode == 0, result.stderr
    catalogue = set(CATALOGUE.read_text().splitlines())
    lines = [line for line in result.stdout.splitlines() if line and not line.startswith("#")]
    assert len(lines) == len(SAMPLE["sets"]) + 9  # a "set" line per set, a line per tile
    for line in lines:
        assert line in catalogue, f"not in engine/data/tiles.txt: {line}"


def test_a_missing_tiles_json_is_a_clear_error(tmp_path: Path) -> None:
    missing = tmp_path / "nowhere" / "tiles.json"
    result = _run(str(missing))
    assert result.returncode != 0
    assert result.stdout == ""
    assert str(missing) in result.stderr
    assert "engine/data/tiles.txt is the source of truth" in result.stderr.replace("\n", " ")
