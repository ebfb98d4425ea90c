"""Atheris fuzzing of the Python surface: game records (Game.from_json), positions
(Game.from_position), agent lists and MCTS option strings, and arena csv files to resume.

Every input must either work or raise the documented error, a carcassonne.Error (RecordError,
PositionError, ConfigError, SearchError ...); anything else (KeyError, IndexError, a crash)
is a bug. Inputs start from real records and positions and change parts of them, so that most
get past the first checks.

    python tests/fuzz/fuzz_python.py -max_total_time=60     # needs atheris (pip install atheris)

tests/python/test_fuzz_python.py runs the same `check` on a few hundred fixed inputs without
atheris.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
from typing import Any

import carcassonne
from carcassonne import Error, Game

_MIXES = [
    {"players": 2, "expansions": []},
    {"players": 3, "expansions": ["abbey-mayor", "king-robber"]},
    {"players": 2, "expansions": ["anniv20", "shrines"], "variants": {"start": "river2"}},
    {"players": 4, "expansions": ["abbey-mayor", "anniv20", "king-robber", "shrines", "city"]},
]


def _played(mix: dict[str, Any], moves: int, seed: int) -> Game:
    game = Game(**mix, seed=seed)
    for i in range(moves):
        if game.is_terminal:
            break
        if game.is_chance:
            game.apply_random_chance()
        else:
            legal = game.legal_actions()
            game.apply(legal[(i * 7919 + seed) % len(legal)])
    return game


def _at_turn_start(game: Game) -> Game:
    while not game.is_terminal and game.phase not in ("draw", "abbey_choice"):
        game.apply(game.legal_actions()[0])
    return game


# Real inputs to start from, made once.
_RECORDS = [_played(m, 60 + 40 * i, i).to_json() for i, m in enumerate(_MIXES)]
_POSITIONS = [_at_turn_start(_played(m, 50 + 30 * i, i)).position() for i, m in enumerate(_MIXES)]


class Bytes:
    """Decisions read from the fuzzer's bytes (zeros past the end), as atheris's
    FuzzedDataProvider would give them; a class of our own so the fixed-input test needs no
    atheris."""

    def __init__(self, data: bytes) -> None:
        self.data, self.pos = data, 0

    def byte(self) -> int:
        b = self.data[self.pos] if self.pos < len(self.data) else 0
        self.pos += 1
        return b

    def below(self, n: int) -> int:
        return (self.byte() << 8 | self.byte()) % n if n > 0 else 0

    def text(self, limit: int = 40) -> str:
        n = self.byte() % limit
        raw = bytes(self.byte() for _ in range(n))
        return raw.decode("utf-8", errors="replace")

    def value(self) -> Any:
        """A JSON value of any type: what a hand-edited file might hold."""
        kind = self.byte() % 9
        if kind == 0:
            return self.byte() - 128
        if kind == 1:
            return (self.byte() << 24 | self.byte() << 16) * (1 if self.byte() % 2 else -1)
        if kind == 2:
            return self.text()
        if kind == 3:
            return None
        if kind == 4:
            return bool(self.byte() % 2)
        if kind == 5:
            return [self.byte() % 8 for _ in range(self.byte() % 4)]
        if kind == 6:
            return {self.text(8): self.byte() for _ in range(self.byte() % 3)}
        if kind == 7:
            return self.byte() / 7.0
        words = ["meeple", "mayor", "wagon", "barn", "castle", "market", "base.D", "city#0", "pass"]
        return words[self.byte() % len(words)]


def _mutate(value: Any, b: Bytes, depth: int = 0) -> Any:
    """The value with one part, chosen by the bytes, replaced, deleted or extended."""
    if isinstance(value, dict) and value and depth < 6:
        key = sorted(value)[b.below(len(value))]
        action = b.byte() % 4
        value = dict(value)
        if action == 0:
            del value[key]
        elif action == 1:
            value[key] = b.value()
        elif action == 2:
            value[b.text(12) or key] = b.value()
        else:
            value[key] = _mutate(value[key], b, depth + 1)
        return value
    if isinstance(value, list) and value and depth < 6:
        i = b.below(len(value))
        action = b.byte() % 4
        value = list(value)
        if action == 0:
            del value[i]
        elif action == 1:
            value[i] = b.value()
        elif action == 2:
            value.insert(i, b.value())
        else:
            value[i] = _mutate(value[i], b, depth + 1)
        return value
    return b.value()


def _mutated(value: Any, b: Bytes) -> Any:
    for _ in range(1 + b.byte() % 3):
        value = _mutate(value, b)
    return value


def check(data: bytes) -> None:
    """One input: works, or raises a carcassonne.Error."""
    b = Bytes(data)
    surface = b.byte() % 6
    try:
        if surface == 0:  # a record, changed as JSON
            record = json.loads(_RECORDS[b.below(len(_RECORDS))])
            Game.from_json(json.dumps(_mutated(record, b)))
        elif surface == 1:  # a record, changed as text
            text = bytearray(_RECORDS[b.below(len(_RECORDS))].encode())
            for _ in range(1 + b.byte() % 4):
                text[b.below(len(text))] = b.byte()
            Game.from_json(bytes(text))
        elif surface == 2:  # a position
            game = Game.from_position(_mutated(_POSITIONS[b.below(len(_POSITIONS))], b))
            game.check_consistency()
            if not game.is_terminal:
                game.apply(game.legal_actions()[0])
        elif surface == 3:  # MCTS options
            carcassonne.parse_mcts_options(b.text(60))
        elif surface == 4:  # agent lists
            carcassonne._core.split_agent_list(b.text(60))
        else:  # an arena csv to resume: a real one, changed
            _arena_csv(b)
    except Error:
        pass


_CSV_DIR = tempfile.mkdtemp(prefix="carc-fuzz-")
_CSV = carcassonne.arena(["random", "random"], deals=1, seed=3, threads=1).csv()


def _arena_csv(b: Bytes) -> None:
    lines = _CSV.splitlines(keepends=True)
    for _ in range(1 + b.byte() % 3):
        i = b.below(len(lines))
        choice = b.byte() % 3
        if choice == 0:
            del lines[i]
        elif choice == 1:
            cells = lines[i].split(",")
            cells[b.below(len(cells))] = str(b.value())
            lines[i] = ",".join(cells)
        else:
            lines.insert(i, b.text(80) + "\n")
        if not lines:
            break
    path = os.path.join(_CSV_DIR, "arena.csv")
    with open(path, "w", encoding="utf-8", errors="replace") as f:
        f.write("".join(lines))
    carcassonne.arena(["random", "random"], deals=2, seed=3, threads=1, csv=path, resume=True)


def main() -> None:
    import atheris

    atheris.instrument_all()  # coverage of the Python code guides the fuzzer
    atheris.Setup(sys.argv, check)
    atheris.Fuzz()


if __name__ == "__main__":
    main()
