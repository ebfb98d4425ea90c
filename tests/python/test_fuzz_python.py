"""The Python fuzz harness (tests/fuzz/fuzz_python.py, run by atheris in tools/fuzz.sh) on fixed
pseudo-random inputs: every surface (records, positions, option strings, agent lists, arena csv
files) either works or raises a carcassonne.Error."""

import importlib.util
import pathlib
import random

import pytest

_PATH = pathlib.Path(__file__).resolve().parents[1] / "fuzz" / "fuzz_python.py"


@pytest.fixture(scope="module")
def harness():
    spec = importlib.util.spec_from_file_location("fuzz_python", _PATH)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("surface", range(6))
def test_every_input_works_or_raises_the_documented_error(harness, surface):
    rng = random.Random(surface)
    for _ in range(60):
        data = bytes([surface]) + bytes(rng.randrange(256) for _ in range(rng.randrange(1, 200)))
        harness.check(data)  # any exception but carcassonne.Error fails the test


def test_the_harness_can_fail(harness, monkeypatch):
    # A surface that raises something undocumented must get through `check`.
    def broken(text):
        raise KeyError(text)

    monkeypatch.setattr(harness.carcassonne, "parse_mcts_options", broken)
    with pytest.raises(KeyError):
        harness.check(bytes([3, 5, 65, 66, 67, 68, 69]))
