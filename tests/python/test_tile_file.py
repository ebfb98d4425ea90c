"""A designer's tile file (CARC_TILES, docs/balance.md "Your own tiles"): one new tile and one
changed count play through Game, the arena and a balance sweep, whose spec records the file's
SHA-256; a malformed file is refused with its line and reason. The engine reads the file when
it loads, so each check runs in a Python of its own with the variable set."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

TILES = """\
# a city cap with a cloister
custom.Z 3 CFFF city:N field:E1E2S1S2W1W2>0 monastery
count base.D 5
"""


def _python(tiles: Path, code: str, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "CARC_TILES": str(tiles)}
    return subprocess.run(
        [sys.executable, *(["-c", textwrap.dedent(code)] if code else []), *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )


def _json_of(tiles: Path, code: str) -> Any:
    done = _python(tiles, code)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_a_new_tile_and_a_changed_count_play_through_game_and_the_arena(tmp_path: Path) -> None:
    tiles = tmp_path / "my_tiles.txt"
    tiles.write_text(TILES)
    got = _json_of(
        tiles,
        """
        import json, random
        import carcassonne
        base, custom = carcassonne.Game(seed=1), carcassonne.Game(expansions=["custom"], seed=1)
        placed = 0
        for seed in range(4):
            g = carcassonne.Game(expansions=["custom"], seed=seed)
            rng = random.Random(seed)
            while not g.is_terminal:
                if g.is_chance:
                    g.apply_random_chance()
                else:
                    g.apply(rng.choice(g.legal_actions()))
            placed += sum(t["tile"] == "custom.Z" for t in g.tiles)
        result = carcassonne.arena(["greedy", "random"], deals=2, expansions=["custom"], threads=1)
        print(json.dumps({
            "base": base.bag(), "custom": custom.bag(), "placed": placed,
            "arena_games": len(result.games),
        }))
        """,
    )
    assert got["custom"]["custom.Z"] == 3
    assert got["custom"]["base.D"] == 5
    assert got["base"]["base.D"] == 3 and got["base"].get("custom.Z", 0) == 0  # the base game is unchanged
    assert got["placed"] > 0
    assert got["arena_games"] == 4


def test_a_malformed_tile_file_is_refused_with_its_line_and_reason(tmp_path: Path) -> None:
    tiles = tmp_path / "bad_tiles.txt"
    tiles.write_text("# my tiles\ncustom.Z 3 CFFF castle:N field:E1E2S1S2W1W2\n")
    got = _json_of(
        tiles,
        """
        import json
        import carcassonne
        try:
            carcassonne.Game(expansions=["custom"])
            error = None
        except carcassonne.ConfigError as e:
            error = str(e)
        custom = [e for e in carcassonne.known_expansions() if e["name"] == "custom"]
        print(json.dumps({"error": error, "base": len(carcassonne.Game().chance_outcomes()),
                          "supported": custom[0]["supported"]}))
        """,
    )
    assert got["error"] == f"expansion custom: {tiles} line 2: unknown feature 'castle:N'"
    assert got["base"] > 0  # the other games play on
    assert not got["supported"]


def test_a_sweep_records_the_tile_file_and_a_changed_file_is_refused_on_resume(tmp_path: Path) -> None:
    tiles = tmp_path / "my_tiles.txt"
    tiles.write_text(TILES)
    out = tmp_path / "sweep"
    run = ["-m", "carcassonne", "balance", "run", str(out), "--mix", "my=custom", "--players", "2"]
    run += ["--deals", "greedy=1", "--chunk-deals", "1"]
    done = _python(tiles, "", *run)
    assert done.returncode == 0, done.stderr
    spec = json.loads((out / "_spec.json").read_text())
    assert spec["tiles"] == {
        "path": str(tiles),
        "sha256": hashlib.sha256(TILES.encode()).hexdigest(),
        "tiles": {"custom.Z": 3},
        "counts": {"base.D": 5},
    }
    rows = _json_of(
        tiles,
        f"""
        import json
        from carcassonne.balance import read_sweep
        from carcassonne.balance.sweep import sweep_records, tiles_summary
        df = read_sweep({str(out)!r})
        print(json.dumps([sorted(set(df["mix"])), tiles_summary(sweep_records({str(out)!r}))]))
        """,
    )
    assert rows[0] == ["base", "my"]
    assert "its tiles custom.Z x3; counts it changes base.D x5" in rows[1]  # the report's front matter
    assert _python(tiles, "", *run, "--resume").returncode == 0  # the same file: nothing left to play
    tiles.write_text(TILES.replace("count base.D 5", "count base.D 6"))
    refused = _python(tiles, "", *run, "--resume")
    assert refused.returncode != 0
    assert "was played with another tile file" in refused.stderr
    assert "tiles.counts.base.D: 5 -> 6" in refused.stderr
