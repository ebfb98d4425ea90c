"""What the engine says it counted (`apply(..., explain=True)`, docs/python.md): in random games of
every mix the records add up, part by part, to the points each player got, cause by cause."""

from __future__ import annotations

import random
from typing import Any

import pytest

from carcassonne import CAUSES, Game, IllegalActionError
from carcassonne.mixes import DEFAULT_MIXES

KINDS = {"feature", "barn_field", "king", "robber", "arrow"}
PARTS = {"tiles", "pennants", "cells", "cities", "city_of_carcassonne", "pig_herd", "roads", "arrow"}


def random_game(mix_index: int, seed: int, explain: bool = True) -> tuple[Game, list[list[dict[str, Any]]]]:
    """A random game of mix `mix_index` (2 to 5 players by the mix and seed) and the scorings of
    each of its actions."""
    mix = DEFAULT_MIXES[mix_index]
    game = Game(
        players=2 + (mix_index + seed) % 4, expansions=mix.expansions, variants=dict(mix.variants), seed=seed
    )
    rng = random.Random(seed)
    scorings = []
    while not game.is_terminal:
        before = game.breakdown()
        if game.is_chance:
            action = game.apply_random_chance(explain=explain)
        else:
            action = game.apply(rng.choice(game.legal_actions()), explain=explain)
        records = action.scorings or []
        if explain:
            check_adds_up(records, before, game.breakdown())
        else:
            assert action.scorings is None
        scorings.append(records)
    return game, scorings


def check_adds_up(
    records: list[dict[str, Any]], before: dict[int, dict[str, int]], after: dict[int, dict[str, int]]
) -> None:
    booked = {p: dict.fromkeys(CAUSES, 0) for p in after}
    for r in records:
        assert r["kind"] in KINDS
        for part in r["parts"]:
            assert part["part"] in PARTS
            assert part["points"] == part["count"] * part["each"] != 0
        assert r["points"] == sum(part["points"] for part in r["parts"])
        gains = [0] * len(after)
        for award in r["awards"]:
            assert award["points"] == r["points"], r  # each scorer gets the whole
            booked[award["player"]][award["cause"]] += award["points"]
            gains[award["player"]] += award["points"]
        assert r["gains"] == gains
        if r["kind"] in ("feature", "barn_field"):
            assert r["segments"] and r["cells"]
            assert len(r["strength"]) == len(after)
        if r["type"] == "field":
            cities = sum(p["count"] for p in r["parts"] if p["part"] == "cities")
            assert cities == len(r["counted"])
    for p in after:
        for cause in CAUSES:
            assert booked[p][cause] == after[p][cause] - before[p][cause], (p, cause)


@pytest.mark.parametrize("mix_index", range(len(DEFAULT_MIXES)), ids=[m.name for m in DEFAULT_MIXES])
def test_records_add_up_to_every_change_of_score(mix_index: int) -> None:
    for seed in (1, 2):
        game, scorings = random_game(mix_index, seed)
        # The last action made the final scoring: a record for every figure left (B-8, B-9).
        final = [f for r in scorings[-1] if r["final"] for f in r["figures"]]
        assert sorted(map(str, final)) == sorted(map(str, game.figures))


def test_explaining_changes_nothing() -> None:
    explained, _ = random_game(7, 3)
    plain, _ = random_game(7, 3, explain=False)
    assert explained.scores == plain.scores
    assert explained.history == plain.history


def test_bad_input_is_refused_and_changes_nothing() -> None:
    game = Game(seed=1)
    game.apply_random_chance()
    before = game.to_json()
    with pytest.raises(IllegalActionError):
        game.apply("place 5,5 r0", explain=True)
    with pytest.raises(TypeError):
        game.apply(game.legal_actions()[0], explain="yes")  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        game.core_state().apply(int(game.legal_actions()[0]), explain="yes")  # type: ignore[call-overload]
    assert game.to_json() == before


def test_a_city_completed_in_play_names_its_tiles_and_pennants() -> None:
    """B-7: 2 per tile and 2 per pennant, the tiles outlined by their cells."""
    game = Game.from_position(
        {
            "players": 2,
            "draw_order": ["base.E"],
            "tiles": [{"tile": "base.D-start", "x": 0, "y": 0, "rotation": 0}],
            "figures": [{"player": 1, "kind": "meeple", "x": 0, "y": 0, "feature": 0}],
        }
    )
    game.apply("draw base.E")
    game.apply("place 0,-1 r2")
    (city,) = game.apply("pass", explain=True).scorings or []
    assert (city["kind"], city["type"], city["final"]) == ("feature", "city", False)
    assert sorted(city["cells"]) == [(0, -1), (0, 0)]
    assert city["parts"] == [{"part": "tiles", "count": 2, "each": 2, "points": 4}]
    assert city["awards"] == [{"player": 1, "points": 4, "cause": "city"}]
    assert city["figures"] == [{"player": 1, "kind": "meeple", "x": 0, "y": 0, "feature": 0}]
