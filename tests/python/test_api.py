"""The Game API over whole random games: invariants, determinism, clones, action strings."""

from __future__ import annotations

import copy
import json
import pickle
import random

import pytest

import carcassonne
from carcassonne import CAUSES, CHANCE_PLAYER, MEEPLES_PER_PLAYER, TERMINAL_PLAYER, Action, Game
from helpers import play_randomly, snapshot

FIGURES = ("meeple", "mayor", "wagon", "barn")
SUPPORTED = [e["name"] for e in carcassonne.known_expansions() if e["supported"]]
# River II and the City of Carcassonne are both start options and exclude each other (CK-0).
WITH_CITY = [e for e in SUPPORTED if e != "river2"]
WITH_RIVER = [e for e in SUPPORTED if e != "city"]
MIXES = [
    pytest.param(2, 0, [], id="base-2p"),
    pytest.param(2, 1, [], id="base-2p-b"),
    pytest.param(3, 2, [], id="base-3p"),
    pytest.param(4, 3, [], id="base-4p"),
    pytest.param(5, 4, [], id="base-5p"),
    pytest.param(6, 5, [], id="base-6p"),
    pytest.param(2, 6, ["abbey-mayor"], id="abbey-mayor-2p"),
    pytest.param(4, 7, ["abbey-mayor"], id="abbey-mayor-4p"),
    pytest.param(6, 8, ["abbey-mayor"], id="abbey-mayor-6p"),
    pytest.param(3, 9, ["king-robber"], id="king-robber-3p"),
    pytest.param(3, 10, ["shrines"], id="shrines-3p"),
    pytest.param(3, 11, ["anniv20"], id="anniv20-3p"),
    pytest.param(3, 12, ["river2"], id="river2-3p"),
    pytest.param(3, 13, ["city"], id="city-3p"),
    *(
        pytest.param(players, 20 + players, WITH_CITY, id=f"every-supported-city-{players}p")
        for players in (2, 4, 6)
    ),
    pytest.param(3, 30, WITH_RIVER, id="every-supported-river-3p"),
]


def _kind_of_text(text: str) -> str:
    """An action's kind read from its text (engine/action.h's string forms)."""
    words = text.split()
    if words[0] in FIGURES:
        # "meeple @castle" enters the City; "meeple city#0" and "meeple road#1 @3,-1" are figures.
        return "quarter" if words[1].startswith("@") else "figure"
    return words[0]


def test_action_kinds_and_phases_are_named_by_one_table() -> None:
    assert carcassonne.ACTION_KINDS == (
        "draw",
        "place",
        "figure",
        "pass",
        "abbey",
        "take-tile",
        "arrow",
        "quarter",
        "count",
    )
    # The kind is the code's low 4 bits (engine/action.h); every kind has its name.
    assert [Action(k, "").kind for k in range(16)] == [*carcassonne.ACTION_KINDS] + ["unknown"] * 7
    game = Game(expansions=["abbey-mayor", "city", "anniv20"])
    texts = ("abbey 0,3", "take-tile", "arrow 1,0", "count market", "wagon @market")
    assert [game.action(t).kind for t in texts] == ["abbey", "take-tile", "arrow", "count", "quarter"]
    assert [_kind_of_text(t) for t in texts] == [game.action(t).kind for t in texts]
    assert carcassonne.PHASES == (
        "draw",
        "abbey_choice",
        "place_tile",
        "arrow_choice",
        "place_figure",
        "city_move",
        "wagon_move",
        "city_place",
        "count_move",
        "market_move",
        "game_over",
    )
    assert [p.name.lower() for p in carcassonne.Phase] == list(carcassonne.PHASES)
    assert [p.value for p in carcassonne.Phase] == list(range(len(carcassonne.PHASES)))


@pytest.mark.parametrize(("players", "seed", "expansions"), MIXES)
def test_random_game_keeps_invariants(players: int, seed: int, expansions: list[str]) -> None:
    """A full game through the Python API: the engine stays consistent after every action, scores
    never drop (scoring only adds points), every point has a cause (B-11), figures are conserved
    (B-1: 7 meeples each; Abbey & Mayor: one mayor, wagon and barn each), and legal actions are
    sorted, distinct, and never empty before the end."""
    game = Game(players=players, seed=seed, expansions=expansions)
    rng = random.Random(seed)
    previous = game.scores
    tiles_at_start = game.bag_size + len(game.tiles)  # the bag and the start (a tile, or the City)
    figures = {"meeple": MEEPLES_PER_PLAYER, **dict.fromkeys(FIGURES[1:], int("abbey-mayor" in expansions))}
    draws = decisions = 0

    def check(g: Game) -> None:
        nonlocal previous
        g.check_consistency()
        scores = g.scores
        assert all(now >= before for now, before in zip(scores, previous, strict=True)), (previous, scores)
        previous = scores
        assert {p: sum(causes.values()) for p, causes in g.breakdown().items()} == dict(enumerate(scores))
        for kind, count in figures.items():
            on_board = [
                sum(f["player"] == p and f["kind"] == kind for f in g.figures) for p in range(players)
            ]
            totals = [g.supply(p, kind) + on_board[p] + g.in_city(p, kind) for p in range(players)]
            if kind == "wagon" and g.phase in ("wagon_move", "city_move"):
                # Wagons whose feature just scored are off the board until moved (AM-W-2, W-3),
                # which waits for the rest of phase 3 (City moves before later scorings, CK-4).
                if g.phase == "wagon_move":
                    assert totals[g.current_player] == 0
                assert all(t in (0, count) for t in totals)
            else:
                assert totals == [count] * players, kind
        actions = g.legal_actions()
        if g.is_terminal:
            assert actions == []
            assert g.current_player == TERMINAL_PLAYER
            return
        assert actions
        codes = [a.code for a in actions]
        assert codes == sorted(set(codes))
        assert len({a.text for a in actions}) == len(actions)
        assert [a.kind for a in actions] == [_kind_of_text(a.text) for a in actions]
        assert g.phase in carcassonne.PHASES
        if g.is_chance:
            assert g.current_player == CHANCE_PLAYER
            assert g.phase == "draw"
        else:
            assert 0 <= g.current_player < players
            assert g.phase in carcassonne.PHASES[1:-1]  # not a draw, not the end
            # A wagon's owner moves it (AM-W-2), City moves (CK-4) and market moves (CK-6) are
            # decided in turn by every player: whoever's turn it is.
            if g.phase not in ("wagon_move", "city_move", "market_move"):
                assert g.current_player == g.turn_player

    def count(g: Game) -> None:
        nonlocal draws, decisions
        if g.history[-1].startswith("draw "):
            draws += 1
        else:
            decisions += 1
        check(g)

    check(game)
    steps = play_randomly(game, rng, count)
    assert game.is_terminal
    assert game.phase == "game_over"
    assert len(game.history) == steps == draws + decisions
    # Every tile is on the board or was discarded (B-4); abbeys come from the players' hands.
    abbeys = sum(text.startswith("abbey ") for text in game.history)
    assert len(game.tiles) + game.discarded == tiles_at_start + abbeys
    assert game.bag_size == 0
    assert game.bag() == {}
    returns = game.returns()
    assert sum(returns) == pytest.approx(1.0)
    best = max(game.scores)
    assert [r > 0 for r in returns] == [s == best for s in game.scores]  # B-10


def test_returns_are_zero_before_the_end() -> None:
    game = Game(seed=3)
    assert game.returns() == [0.0, 0.0]
    assert not game.is_terminal


def test_same_seed_and_actions_give_the_same_game(rng: random.Random) -> None:
    """A state is a value: the same seed and actions (draws from its own PRNG included) give the
    same game, node by node."""
    a, b = Game(seed=42), Game(seed=42)
    while not a.is_terminal:
        assert snapshot(a) == snapshot(b)
        if a.is_chance:
            assert a.apply_random_chance() == b.apply_random_chance()
        else:
            action = rng.choice(a.legal_actions())
            assert a.apply(action) == b.apply(action.code)
    assert snapshot(a) == snapshot(b)
    assert a.history == b.history
    assert a.to_json() == b.to_json()


def test_different_seeds_draw_differently() -> None:
    draws = {Game(seed=s).apply_random_chance().text for s in range(20)}
    assert len(draws) > 1, draws


def test_clone_is_independent(rng: random.Random) -> None:
    game = Game(seed=5)
    for _ in range(30):
        if game.is_chance:
            game.apply_random_chance()
        else:
            game.apply(rng.choice(game.legal_actions()))
    before = snapshot(game)
    history = game.history
    for twin in (game.clone(), copy.copy(game), copy.deepcopy(game)):
        assert snapshot(twin) == before
        play_randomly(twin, random.Random(1))
        assert twin.is_terminal
        assert snapshot(game) == before
        assert game.history == history


def test_clone_continues_like_the_original() -> None:
    """The PRNG is part of the state: a clone draws the same tiles as the original would."""
    game = Game(seed=9)
    twin = game.clone()
    first = [game.apply_random_chance().text]
    game.apply(game.legal_actions()[0])
    twin_first = [twin.apply_random_chance().text]
    twin.apply(twin.legal_actions()[0])
    assert first == twin_first
    assert snapshot(game) == snapshot(twin)


def test_action_strings_round_trip_over_a_game(rng: random.Random) -> None:
    """Every legal action's text parses back to its code (STYLE lesson 4), at every node."""
    game = Game(players=3, seed=11)
    checked = 0
    while not game.is_terminal:
        for action in game.legal_actions():
            assert str(action) == action.text
            assert game.action(action.text) == action
            assert game.action(action.text).code == action.code
            assert game.action(action.code).text == action.text
            assert game.is_legal(action) and game.is_legal(action.text) and game.is_legal(action.code)
            checked += 1
        if game.is_chance:
            game.apply_random_chance()
        else:
            game.apply(rng.choice(game.legal_actions()))
    assert checked > 500


def test_apply_accepts_action_code_and_text() -> None:
    """The three ways to name a move give the same game (B-7 4-point city as the probe)."""
    results = []
    for form in ("action", "code", "text"):
        game = Game(draw_order=["base.E"])
        for text in ("draw base.E", "place 0,-1 r2", "meeple city#0"):
            action = game.action(text)
            applied = game.apply({"action": action, "code": action.code, "text": text}[form])
            assert applied == action and applied.text == text
        results.append((game.scores, game.history))
    assert results[0] == results[1] == results[2]
    assert results[0][0] == [4, 0]


def test_action_value_semantics() -> None:
    game = Game()
    action = game.legal_actions()[0]
    assert action == Action(action.code, "any text")  # equality by code
    assert hash(action) == hash(Action(action.code, ""))
    assert int(action) == action.code
    assert action.kind == "draw"
    with pytest.raises(AttributeError):
        action.code = 3  # type: ignore[misc]
    game.apply_random_chance()
    assert {a.kind for a in game.legal_actions()} == {"place"}


def test_an_action_is_a_code_and_a_text_everywhere() -> None:
    """`code` is the int and `text` the string in an Action, an analysis's dicts and the
    search's ActionStats; the older names stay: the dicts' "action" (the text, which the play
    server reads) and ActionStats.action (the code, its C++ name)."""
    game = Game(players=2, seed=1)
    game.apply_random_chance()
    hint = game.analyse(iterations=60, seed=0)[0]
    assert hint["text"] == hint["action"] == game.action(hint["code"]).text
    config = carcassonne.mcts_config(iterations=60)
    stats = carcassonne.Mcts(config).search(game.core_state(), 0).actions[0]
    assert stats.code == stats.action and game.action(stats.code).text == stats.text


def test_chance_outcomes_are_the_bag_proportions() -> None:
    game = Game(seed=1)
    outcomes = game.chance_outcomes()
    assert sum(p for _, p in outcomes) == pytest.approx(1.0)
    bag = game.bag()
    assert sum(bag.values()) == game.bag_size == 71
    assert {a.text.removeprefix("draw "): p for a, p in outcomes} == pytest.approx(
        {kind: count / 71 for kind, count in bag.items()}
    )
    assert [a for a, _ in outcomes] == game.legal_actions()
    game.apply_random_chance()
    assert game.chance_outcomes() == []


def test_fixed_draw_order_is_followed() -> None:
    order = ["base.U", "base.V", "base.E"]
    game = Game(draw_order=order)
    assert game.chance_outcomes() == [(game.action("draw base.U"), 1.0)]
    assert not game.is_legal("draw base.V")
    drawn = []
    while not game.is_terminal:
        if game.is_chance:
            drawn.append(game.apply_random_chance().text.removeprefix("draw "))
        else:
            game.apply(game.legal_actions()[0])
    assert drawn == order


def test_breakdown_and_score_by_cause(rng: random.Random) -> None:
    game = Game(players=4, seed=8)
    play_randomly(game, rng)
    breakdown = game.breakdown()
    assert set(breakdown) == {0, 1, 2, 3}
    for player, causes in breakdown.items():
        assert tuple(causes) == CAUSES
        assert sum(causes.values()) == game.scores[player] == game.score(player)
        for cause, points in causes.items():
            assert game.score(player, cause) == points


def test_config_is_validated_and_filled() -> None:
    game = Game(players=3, seed=7)
    defaults = {v["name"]: v["values"][0] for v in carcassonne.known_variants() if v["supported"]}
    assert defaults["start"] == "tile"
    assert game.config == {
        "players": 3,
        "expansions": [],
        "variants": defaults,
        "seed": 7,
        "draw_order": [],
    }
    assert game.num_players == 3
    assert Game(variants={"start": "tile"}).config["variants"] == defaults
    assert Game(seed=2**64 - 1).config["seed"] == 2**64 - 1


def test_board_inspection() -> None:
    game = Game(draw_order=["base.E", "base.U"])
    assert game.tiles == [{"tile": "base.D-start", "x": 0, "y": 0, "rotation": 0}]
    for text in ("draw base.E", "place 0,-1 r2", "pass", "draw base.U", "place 1,0 r0", "meeple road#0"):
        game.apply(text)
    assert game.is_terminal
    assert game.tiles[1:] == [
        {"tile": "base.E", "x": 0, "y": -1, "rotation": 2},
        {"tile": "base.U", "x": 1, "y": 0, "rotation": 0},
    ]
    # The road thief of player 1 stays on the board after final scoring (B-8 scores, no return).
    assert game.figures == [{"player": 1, "kind": "meeple", "x": 1, "y": 0, "feature": 0}]
    assert game.scores == [0, 2]
    assert game.breakdown()[1]["road"] == 2


def test_pickle_round_trips_through_the_record(rng: random.Random) -> None:
    game = Game(players=3, seed=4)
    for _ in range(40):
        if game.is_chance:
            game.apply_random_chance()
        else:
            game.apply(rng.choice(game.legal_actions()))
    twin = pickle.loads(pickle.dumps(game))
    assert snapshot(twin) == snapshot(game)
    assert twin.history == game.history
    # The PRNG travels too: both continue with the same draws.
    play_randomly(twin, random.Random(2))
    play_randomly(game, random.Random(2))
    assert twin.history == game.history


def test_position_round_trip_at_every_draw(rng: random.Random) -> None:
    """Game.from_position(game.position()) rebuilds the board, figures, scores and bag."""
    game = Game(players=3, seed=21)
    rebuilt = 0
    while not game.is_terminal:
        if game.is_chance:
            position = game.position()
            twin = Game.from_position(position)
            twin.check_consistency()
            assert twin.tiles == game.tiles
            assert twin.figures == game.figures
            assert twin.scores == game.scores
            assert twin.bag() == game.bag()
            assert twin.turn_player == game.turn_player
            assert (twin.turn_number, twin.discarded) == (game.turn_number, game.discarded)
            draw = game.apply_random_chance()
            twin.apply(draw)
            assert twin.legal_actions() == game.legal_actions()
            rebuilt += 1
        else:
            game.apply(rng.choice(game.legal_actions()))
    assert rebuilt >= 60


EVERY_MIX = [
    [],
    ["abbey-mayor"],
    ["shrines", "anniv20"],
    ["river2", "anniv20"],
    ["city", "abbey-mayor"],
    ["king-robber", "abbey-mayor"],
    ["abbey-mayor", "anniv20", "king-robber", "shrines", "city"],
]


@pytest.mark.parametrize("expansions", EVERY_MIX)
def test_position_continues_like_the_game(expansions: list[str]) -> None:
    """A game rebuilt from its position mid-game, given the same draws and moves, ends with the
    same board, scores and score causes."""
    game = Game(players=3, seed=31, expansions=expansions)
    rng = random.Random(31)
    while len(game.history) < 90 or game.phase not in ("draw", "abbey_choice"):
        if game.is_chance:
            game.apply_random_chance()
        else:
            game.apply(rng.choice(game.legal_actions()))
    position = game.position()
    assert json.loads(json.dumps(position)) == position  # plain data
    twin = Game.from_position(position)
    if twin.phase != game.phase:  # a turn that began with take-tile is described from its start
        twin.apply("take-tile")
    while not game.is_terminal:
        action = (
            game.apply_random_chance() if game.is_chance else game.apply(rng.choice(game.legal_actions()))
        )
        twin.apply(action)
        assert twin.legal_actions() == game.legal_actions()
    assert twin.is_terminal
    assert (twin.scores, twin.tiles, twin.figures) == (game.scores, game.tiles, game.figures)
    assert twin.breakdown() == game.breakdown()


def test_a_position_without_turn_number_or_discarded_counts_from_0() -> None:
    """Positions written before they held the turn number and the discarded count still load."""
    game = Game(players=2, seed=4)
    rng = random.Random(4)
    while game.turn_number < 10 or game.phase != "draw":
        if game.is_chance:
            game.apply_random_chance()
        else:
            game.apply(rng.choice(game.legal_actions()))
    position = game.position()
    assert position["turn_number"] == game.turn_number > 0
    old = {k: v for k, v in position.items() if k not in ("turn_number", "discarded")}
    twin = Game.from_position(old)
    assert (twin.turn_number, twin.discarded) == (0, 0)
    assert twin.legal_actions() == game.legal_actions()


def test_position_is_only_taken_at_a_draw() -> None:
    game = Game()
    game.apply_random_chance()
    with pytest.raises(carcassonne.Error, match="at the start of a turn"):
        game.position()


def test_repr_and_str() -> None:
    game = Game(players=2)
    assert "players=2" in repr(game)
    assert "scores: 0 0" in str(game)
    assert game.turn_number == 0


@pytest.mark.parametrize("expansions", [[], ["abbey-mayor"]])
def test_only_canonical_codes_are_legal(expansions: list[str]) -> None:
    """Every code the engine accepts is the one its text parses to: flipping any bit of a legal
    action gives an illegal code or another legal action with its own text (STYLE lesson 4)."""
    game = Game(players=3, seed=2, expansions=expansions)
    rng = random.Random(2)
    while not game.is_terminal:
        state = game.core_state()
        for action in game.legal_actions():
            for bit in range(32):
                code = action.code ^ (1 << bit)
                if state.is_legal(code):
                    assert state.parse_action(state.action_to_string(code)) == code, (action, bit)
        if game.is_chance:
            game.apply_random_chance()
        else:
            game.apply(rng.choice(game.legal_actions()))
