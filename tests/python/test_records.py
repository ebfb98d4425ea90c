"""Game records: to_json / from_json replay games exactly and reject bad records clearly."""

from __future__ import annotations

import json
import random

import pytest

from carcassonne import RECORD_FORMAT, Error, Game, RecordError
from helpers import play_randomly, snapshot


def _played(
    seed: int, players: int = 2, steps: int | None = None, expansions: tuple[str, ...] = ()
) -> tuple[Game, list[tuple]]:
    """A random game (to the end, or `steps` actions) and the snapshot after every action."""
    game = Game(players=players, seed=seed, expansions=expansions)
    rng = random.Random(seed)
    snapshots = [snapshot(game)]
    while not game.is_terminal and (steps is None or len(game.history) < steps):
        if game.is_chance:
            game.apply_random_chance()
        else:
            game.apply(rng.choice(game.legal_actions()))
        snapshots.append(snapshot(game))
    return game, snapshots


@pytest.mark.parametrize(
    ("seed", "players", "expansions"),
    [
        (0, 2, ()),
        (1, 3, ()),
        (2, 5, ()),
        (3, 2, ("abbey-mayor",)),
        (4, 4, ("abbey-mayor",)),
        (5, 3, ("king-robber", "shrines")),
        (6, 3, ("anniv20",)),
        (7, 4, ("abbey-mayor", "king-robber", "shrines", "anniv20")),
    ],
)
def test_record_replays_the_same_scores_and_legal_actions_at_every_step(
    seed: int, players: int, expansions: tuple[str, ...]
) -> None:
    game, snapshots = _played(seed, players, expansions=expansions)
    record = json.loads(game.to_json())
    assert record["format"] == RECORD_FORMAT
    assert record["actions"] == game.history
    # Step by step from the record's own config and action strings.
    replay = Game(**record["config"])
    assert snapshot(replay) == snapshots[0]
    for i, text in enumerate(record["actions"]):
        replay.apply(text)
        assert snapshot(replay) == snapshots[i + 1], f"diverged after action {i} ({text})"
    # And in one go.
    loaded = Game.from_json(game.to_json())
    assert snapshot(loaded) == snapshots[-1]
    assert loaded.history == game.history
    assert loaded.to_json() == game.to_json()


def test_record_of_an_unfinished_game_continues_like_the_original() -> None:
    """Draws made with the game's PRNG are replayed with it ("sampled"), so the loaded game is
    the same value, PRNG included: both draw the same tiles from here on."""
    game, _ = _played(seed=3, steps=57)
    loaded = Game.from_json(game.to_json(indent=2))
    assert snapshot(loaded) == snapshot(game)
    play_randomly(game, random.Random(8))
    play_randomly(loaded, random.Random(8))
    assert loaded.history == game.history
    assert snapshot(loaded) == snapshot(game)


def test_explicit_draws_are_replayed_as_given() -> None:
    game = Game(seed=1)
    kinds = [a.text for a in game.legal_actions()]
    game.apply(kinds[-1])  # chosen, not sampled
    game.apply(game.legal_actions()[0])
    record = json.loads(game.to_json())
    assert record["sampled"] == []
    assert Game.from_json(game.to_json()).history == game.history


def test_record_of_a_position_game() -> None:
    position = {
        "players": 2,
        "tiles": [
            {"tile": "base.D-start", "x": 0, "y": 0, "rotation": 0},
            {"tile": "base.U", "x": 1, "y": 0},
        ],
        "figures": [{"player": 1, "x": 1, "y": 0, "feature": 0}],
        "scores": [3, 5],
        "bag": ["base.E", "base.V", "base.V"],
        "current_player": 1,
    }
    game = Game.from_position(position)
    play_randomly(game, random.Random(0))
    loaded = Game.from_json(game.to_json())
    assert snapshot(loaded) == snapshot(game)
    assert json.loads(game.to_json())["position"]["scores"] == [3, 5]


def _record(**changes: object) -> str:
    game = Game(seed=2)
    for _ in range(12):
        if game.is_chance:
            game.apply_random_chance()
        else:
            game.apply(game.legal_actions()[-1])
    record = json.loads(game.to_json())
    record.update(changes)
    return json.dumps(record)


def test_good_record_fixture_loads() -> None:
    assert len(Game.from_json(_record()).history) == 12


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("{not json", "malformed record JSON"),
        ("", "malformed record JSON"),
        ("[1, 2]", "must be a JSON object"),
        (_record(format="carcassonne-record/0"), "record format must be"),
        (json.dumps({"config": {}, "actions": []}), "record format must be"),
        (json.dumps({"format": RECORD_FORMAT, "actions": []}), "missing key 'config'"),
        (json.dumps({"format": RECORD_FORMAT, "config": {}}), "missing key 'actions'"),
        (_record(comment="hi"), "unknown key"),
        (_record(config={"players": 2, "colour": "red"}), "unknown key"),
        (_record(config=[2]), "config must be an object"),
        (_record(config={"players": 9}), "players must be 2 to 6"),
        (_record(config={"expansions": ["nope"]}), "unknown expansion"),
        (_record(config={"seed": "seven"}), "seed must be an int"),
        (_record(actions="draw base.D"), "actions must be a list of strings"),
        (_record(actions=[1, 2]), "actions must be a list of strings"),
        (_record(sampled=[99]), "sampled must be"),
        (_record(sampled=[2, 0]), "sampled must be"),
        (_record(position=[]), "position must be an object"),
    ],
)
def test_malformed_records_raise_record_error(text: str, message: str) -> None:
    with pytest.raises(RecordError, match=message) as info:
        Game.from_json(text)
    assert isinstance(info.value, ValueError) and isinstance(info.value, Error)


def test_deeply_nested_record_raises_record_error() -> None:
    for text in ("[" * 100_000 + "]" * 100_000, '{"a": ' * 100_000 + "1" + "}" * 100_000):
        with pytest.raises(RecordError, match="malformed record JSON"):
            Game.from_json(text)


def test_illegal_action_in_a_record_names_its_index() -> None:
    record = json.loads(_record())
    record["sampled"] = [i for i in record["sampled"] if i < 5]
    record["actions"] = record["actions"][:5] + ["place 40,40 r0"]
    with pytest.raises(RecordError, match=r"action 5 \('place 40,40 r0'\)"):
        Game.from_json(json.dumps(record))


def test_unparseable_action_in_a_record_names_its_index() -> None:
    record = json.loads(_record())
    record["actions"][3] = "jump 1,1"
    record["sampled"] = [i for i in record["sampled"] if i < 3]
    with pytest.raises(RecordError, match=r"action 3 \('jump 1,1'\).*unknown verb"):
        Game.from_json(json.dumps(record))


def test_sampled_draw_that_the_prng_would_not_make_is_rejected() -> None:
    game = Game(seed=4)
    drawn = game.apply_random_chance().text
    other = next(a.text for a in Game(seed=4).legal_actions() if a.text != drawn)
    record = json.loads(game.to_json())
    record["actions"][0] = other
    with pytest.raises(RecordError, match=r"action 0.*PRNG draws"):
        Game.from_json(json.dumps(record))
    # Unmarked, the same draw is an ordinary chosen draw and replays.
    record["sampled"] = []
    assert Game.from_json(json.dumps(record)).history == [other]


def test_sampled_index_of_a_decision_is_rejected() -> None:
    record = json.loads(_record())
    record["sampled"] = [1]
    with pytest.raises(RecordError, match=r"action 1.*not at a draw"):
        Game.from_json(json.dumps(record))
