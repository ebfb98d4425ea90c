"""Base-game rules checked from Python on set-up games (rule IDs from docs/rules.md).

The start tile base.D-start lies at (0, 0): city on the north side (feature #0), a road east-west
(#1), the field north of the road (#2, touching the city) and the field south of it (#3).
"""

from __future__ import annotations

import pytest

from carcassonne import CAUSES, Game, IllegalActionError


def _causes(**points: int) -> dict[str, int]:
    return {**dict.fromkeys(CAUSES, 0), **points}


def test_b7_city_of_two_tiles_scores_two_per_tile() -> None:
    """B-7: base.E turned twice closes the start city: 2 tiles, 2 points each, for the knight;
    the meeple returns to supply (B-7), so final scoring (B-8) adds nothing."""
    game = Game(draw_order=["base.E"])
    for text in ("draw base.E", "place 0,-1 r2", "meeple city#0"):
        game.apply(text)
    assert game.is_terminal
    assert game.scores == [4, 0]
    assert game.breakdown() == {0: _causes(city=4), 1: _causes()}
    assert game.supply(0) == 7
    assert game.figures == []
    assert game.returns() == [1.0, 0.0]  # B-10


def test_b8_b9_scores_if_ended_counts_unfinished_features_and_fields() -> None:
    """base.E turned twice south of the start tile: its city faces south, open. B-8: the knight
    there would score 1 at the end."""
    game = Game(draw_order=["base.E", "base.E", "base.E"])
    for text in ("draw base.E", "place 0,1 r2", "meeple city#0"):
        game.apply(text)
    assert game.scores == [0, 0]
    assert game.scores_if_ended() == [1, 0]
    assert game.scores == [0, 0]  # the game itself is unchanged
    # The second base.E closes the start city (2 tiles, nobody on it); a farmer on its field
    # touches that completed city: 3 points at the end (B-9).
    for text in ("draw base.E", "place 0,-1 r2", "meeple field#1"):
        game.apply(text)
    assert game.scores == [0, 0]
    assert game.scores_if_ended() == [1, 3]


def test_b7_completed_city_without_a_knight_scores_nothing() -> None:
    game = Game(draw_order=["base.E"])
    for text in ("draw base.E", "place 0,-1 r2", "pass"):
        game.apply(text)
    assert game.scores == [0, 0]
    assert game.returns() == [0.5, 0.5]  # B-10: ties stand


def test_b7_pennant_adds_two() -> None:
    """B-7: city 2 per tile + 2 per pennant. base.M (city north-west, with a pennant) turned so
    one city side faces the start city, the other open: then base.E closes it (3 tiles)."""
    game = Game(draw_order=["base.M", "base.E"])
    game.apply("draw base.M")
    placements = {a.text for a in game.legal_actions()}
    assert "place 0,-1 r2" in placements  # the city's west side now faces east, north faces south
    game.apply("place 0,-1 r2")
    game.apply("meeple city#0")
    game.apply("draw base.E")
    game.apply("place 1,-1 r3")  # base.E's city faces west, closing the city
    game.apply("pass")  # scoring runs after the figure decision (B-2)
    assert game.scores == [2 * 3 + 2, 0]
    assert game.breakdown()[0]["city"] == 8


def test_b7_road_scores_one_per_tile_for_the_majority() -> None:
    """B-7 + majority (section 0): two thieves of player 1 against one of player 0 on one road;
    two junction tiles (base.W) close it: only player 1 scores, 1 point for each of 5 tiles."""
    game = Game.from_position(
        {
            "tiles": [
                {"tile": "base.D-start", "x": 0, "y": 0},
                {"tile": "base.U", "x": 1, "y": 0},  # straight road east-west
                {"tile": "base.V", "x": 2, "y": 0},  # road west to south
            ],
            "figures": [
                {"player": 1, "x": 0, "y": 0, "feature": 1},
                {"player": 1, "x": 1, "y": 0, "feature": 0},
                {"player": 0, "x": 2, "y": 0, "feature": 0},
            ],
            "bag": ["base.W", "base.W"],
        }
    )
    # base.W: a junction with roads east (#0), south (#1) and west (#2).
    game.apply("draw base.W")
    game.apply("place -1,0 r0")  # its east road closes the west end
    assert not game.is_legal("meeple road#0")  # B-5: that road is occupied
    assert game.is_legal("meeple road#2")
    game.apply("pass")
    assert game.scores == [0, 0]
    game.apply("draw base.W")
    game.apply("place 2,1 r1")  # turned once, its old west road points north: the south end closes
    game.apply("pass")
    assert game.is_terminal
    assert game.breakdown() == {0: _causes(), 1: _causes(road=5)}
    assert game.supply(1) == 7  # B-7: the thieves return


def test_b8_final_scoring_of_unfinished_features() -> None:
    """B-8: an unfinished city scores 1 per tile, a road 1 per tile; B-9: a farmer scores only for
    completed cities, so 0 here. The bag is empty, so the game ends at once."""
    game = Game.from_position(
        {
            "tiles": [{"tile": "base.D-start", "x": 0, "y": 0}],
            "figures": [
                {"player": 0, "x": 0, "y": 0, "feature": 0},
                {"player": 1, "x": 0, "y": 0, "feature": 1},
                {"player": 0, "x": 0, "y": 0, "feature": 2},
            ],
            "bag": [],
        }
    )
    assert game.is_terminal
    assert game.breakdown() == {0: _causes(city=1), 1: _causes(road=1)}
    assert game.returns() == [0.5, 0.5]  # B-10


def test_b9_farmers_score_three_per_completed_city_for_each_field() -> None:
    """B-9: the start city closed by base.E touches two fields (the start's north field and
    base.E's field); each field's farmer scores 3 for it ("a city touched by several fields
    counts for each field")."""
    game = Game.from_position(
        {
            "tiles": [
                {"tile": "base.D-start", "x": 0, "y": 0},
                {"tile": "base.E", "x": 0, "y": -1, "rotation": 2},
            ],
            "figures": [
                {"player": 0, "x": 0, "y": 0, "feature": 2},
                {"player": 1, "x": 0, "y": -1, "feature": 1},
                {"player": 1, "x": 0, "y": 0, "feature": 3},  # the south field touches no city
            ],
            "scores": [10, 10],
            "bag": [],
        }
    )
    assert game.is_terminal
    assert game.breakdown() == {0: _causes(field=3), 1: _causes(field=3)}
    # Position scores carry no cause, so they are not in the breakdown.
    assert game.scores == [13, 13]


def test_b3_placements_must_touch_and_match() -> None:
    """B-3: the legal placements of base.E next to the start tile are exactly the cells touching
    it in the rotations whose touching side matches."""
    game = Game(draw_order=["base.E"])
    game.apply("draw base.E")
    legal = {a.text for a in game.legal_actions()}
    # North of the start (its city): base.E's city must face south (r2).
    assert "place 0,-1 r2" in legal
    assert not {"place 0,-1 r0", "place 0,-1 r1", "place 0,-1 r3"} & legal
    # East/west of the start (a road): base.E shows no road, so nothing fits.
    assert not {a for a in legal if a.startswith(("place 1,0", "place -1,0"))}
    # South of the start (a field): every rotation but the city facing north (r0).
    assert {a for a in legal if a.startswith("place 0,1")} == {"place 0,1 r1", "place 0,1 r2", "place 0,1 r3"}
    with pytest.raises(IllegalActionError, match="B-3"):
        game.apply("place 1,1 r0")


def test_b5_figure_only_on_the_tile_just_placed() -> None:
    """B-5: figure actions name a feature of the tile just placed: base.E has a city (#0) and a
    field (#1) and nothing else."""
    game = Game(draw_order=["base.E"])
    game.apply("draw base.E")
    game.apply("place 0,1 r2")
    assert {a.text for a in game.legal_actions()} == {"pass", "meeple city#0", "meeple field#1"}
    with pytest.raises(IllegalActionError, match="no feature #2"):
        game.apply("meeple road#2")


def test_b1_two_to_six_players_with_seven_meeples() -> None:
    for players in range(2, 7):
        game = Game(players=players)
        assert [game.supply(p) for p in range(players)] == [7] * players


def test_b2_turns_rotate_through_the_players() -> None:
    game = Game(players=3, draw_order=["base.U", "base.U", "base.U", "base.U"])
    turns = []
    while not game.is_terminal:
        if game.is_chance:
            turns.append(game.turn_player)
            game.apply_random_chance()
        else:
            game.apply(game.legal_actions()[0])
    assert turns == [0, 1, 2, 0]


# ---- Abbey & Mayor ------------------------------------------------------------------------------

# A hole at (0, 1), south of the start tile: base.A turned twice at (0, 2) sends its road (from
# its monastery) north to the hole; fields (base.B monasteries) close the ring.
ABBEY_HOLE = {
    "expansions": ["abbey-mayor"],
    "tiles": [
        {"tile": "base.D-start", "x": 0, "y": 0},
        {"tile": "base.U", "x": 1, "y": 0},
        {"tile": "base.B", "x": 1, "y": 1},
        {"tile": "base.B", "x": 1, "y": 2},
        {"tile": "base.A", "x": 0, "y": 2, "rotation": 2},
        {"tile": "base.B", "x": -1, "y": 2},
        {"tile": "base.B", "x": -1, "y": 1},
    ],
    "figures": [{"player": 0, "x": 0, "y": 2, "feature": 0}],
    "bag": ["base.E"],
}


def test_am_a1_abbey_instead_of_a_draw_into_a_hole() -> None:
    """AM-A-1: a player holding an abbey may place it in a hole instead of drawing."""
    game = Game.from_position(ABBEY_HOLE)
    assert game.phase == "abbey_choice"
    assert game.current_player == 0
    assert [a.text for a in game.legal_actions()] == ["take-tile", "abbey 0,1"]
    game.apply("take-tile")
    assert game.is_chance


def test_am_a3_abbey_closes_the_road_ending_at_it() -> None:
    """AM-A-3/4: the abbey closes the road that ends at its side; the road (1 tile, the abbey
    not counted) is complete and scored at once for its thief."""
    game = Game.from_position(ABBEY_HOLE)
    game.apply("abbey 0,1")
    assert game.abbeys(0) == 0
    game.apply("pass")
    assert game.breakdown()[0]["road"] == 1, "road closed by the abbey not scored"
    game.check_consistency()


def test_am_a1_position_with_an_abbey() -> None:
    """AM-A-1: any sides fit an abbey, so a described position may hold one in a hole."""
    game = Game.from_position(ABBEY_HOLE)
    game.apply("abbey 0,1")
    game.apply("pass")
    twin = Game.from_position(game.position())
    assert twin.tiles == game.tiles
