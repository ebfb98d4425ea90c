"""Python evaluators inside the C++ search: Mcts(config, evaluator=fn, batch_size=...) hands fn
batches of leaves as carcassonne.rl observations and backs up what fn returns. Small searches
(tens to hundreds of iterations), so the file runs in seconds."""

from __future__ import annotations

import os
import signal
import threading
import time
from typing import Any

import numpy as np
import pytest

from carcassonne import Game, LeafBatch, Mcts, SearchError, analyse, arena, mcts_config, rl
from carcassonne.agents import MctsAgent
from helpers import HANG_GUARD_S


def _first_decision(seed: int = 3) -> Game:
    game = Game(players=2, seed=seed)
    game.apply_random_chance()
    return game


def _figure_decision() -> Game:
    """The first figure decision of a game where placing a meeple is possible (and passing is)."""
    for seed in range(50):
        game = _first_decision(seed)
        game.apply(game.legal_actions()[0])
        texts = [a.text for a in game.legal_actions()]
        if game.phase == "place_figure" and "pass" in texts and len(texts) >= 2:
            return game
    raise AssertionError("no figure decision found")


def _flat(batch: LeafBatch) -> Any:
    return np.full((len(batch), batch.players), 0.5, dtype=np.float32)


def _supply_column(players: int) -> tuple[int, int]:
    """The globals' columns of the observer's and the next seat's meeples in supply."""
    names = rl.encoder(players).global_names
    own = [i for i, n in enumerate(names) if "meeple" in n and "supply" in n]
    assert len(own) >= 2, names
    return own[0], own[1]


def _supply_evaluator(meeples_are_good: bool) -> Any:
    """Values from the meeples in supply only: a seat with more of them is better off, or worse."""

    def fn(batch: LeafBatch) -> Any:
        first, second = _supply_column(batch.players)
        supply = batch.globals[:, [first, second]]
        better = supply[:, 0] > supply[:, 1]
        worse = supply[:, 0] < supply[:, 1]
        mover = np.where(better, 0.9, np.where(worse, 0.1, 0.5))
        if meeples_are_good:
            mover = 1.0 - mover
        return mover.astype(np.float32)  # shape [n]: the player to move's value

    return fn


# ---- The values and priors decide ---------------------------------------------------------------


@pytest.mark.parametrize("meeples_are_good", [False, True])
def test_the_values_decide_whether_to_place_a_meeple(meeples_are_good: bool) -> None:
    game = _figure_decision()
    config = mcts_config(iterations=300, prior="uniform")
    result = Mcts(config, evaluator=_supply_evaluator(meeples_are_good), batch_size=8).search(
        game.core_state()
    )
    best = game.core_state().action_to_string(result.best)
    if meeples_are_good:
        assert best != "pass", [(a.text, a.visits) for a in result.actions]
    else:
        assert best == "pass", [(a.text, a.visits) for a in result.actions]


def test_priors_steer_the_search_to_the_favoured_action() -> None:
    game = _first_decision()
    state = game.core_state()
    favoured = game.legal_actions()[-1]
    favoured_index = rl.action_index(game, favoured, layout="window")  # the search indexes so

    def dense(batch: LeafBatch) -> Any:  # logits over the whole action space
        logits = np.zeros((len(batch), batch.num_actions), dtype=np.float32)
        logits[:, favoured_index] = 8.0
        return _flat(batch), logits

    def per_legal(batch: LeafBatch) -> Any:  # logits of the listed legal actions
        logits = np.where(batch.legal == favoured_index, 8.0, 0.0)
        return _flat(batch), logits

    for fn in (dense, per_legal):
        result = Mcts(mcts_config(iterations=100), evaluator=fn, batch_size=4).search(state)
        assert result.best == favoured.code
        top = result.actions[0]
        assert top.prior > 0.9 and top.visits > 50


def test_values_are_per_seat_relative_to_the_player_to_move() -> None:
    absolute = np.array([0.1, 0.5, 0.9], dtype=np.float32)  # what each seat is worth, whoever moves

    def fn(batch: LeafBatch) -> Any:
        seats = (batch.observers[:, None] + np.arange(batch.players)[None, :]) % batch.players
        return absolute[seats]  # column r: the seat r places after the mover

    game = Game(players=3, seed=4)
    game.apply_random_chance()
    result = Mcts(mcts_config(iterations=200), evaluator=fn, batch_size=8).search(game.core_state())
    assert result.win == pytest.approx(absolute.tolist(), abs=1e-5)
    assert result.reward == pytest.approx(absolute.tolist(), abs=1e-5)


def test_without_priors_the_configs_priors_are_used() -> None:
    state = _first_decision().core_state()
    result = Mcts(mcts_config(iterations=50, prior="uniform"), evaluator=_flat).search(state)
    priors = {round(a.prior, 6) for a in result.actions}
    assert priors == {round(1 / len(result.actions), 6)}


def test_the_result_tells_the_time_the_greedy_priors_took() -> None:
    """Priors the search computes for a Python evaluator (greedy, by default) are timed; priors the
    evaluator gives are its own time."""
    state = _first_decision().core_state()
    fallback = Mcts(mcts_config(iterations=200), evaluator=_flat).search(state)
    assert 0 < fallback.prior_seconds <= fallback.seconds

    def with_priors(batch: LeafBatch) -> Any:
        return _flat(batch), np.zeros((len(batch), batch.num_actions), dtype=np.float32)

    given = Mcts(mcts_config(iterations=200), evaluator=with_priors).search(state)
    assert given.prior_seconds == 0
    rollouts = Mcts(mcts_config(iterations=200)).search(state)  # priors at each expansion
    assert 0 < rollouts.prior_seconds <= rollouts.seconds


def test_analyse_takes_an_evaluator_too() -> None:
    game = _figure_decision()
    hints = analyse(game, iterations=300, evaluator=_supply_evaluator(False), batch_size=8, prior="uniform")
    assert hints[0]["action"] == "pass"
    assert sum(h["visits"] for h in hints) == 300
    assert game.analyse(iterations=50, evaluator=_flat)[0]["code"] in [a.code for a in game.legal_actions()]


# ---- What fn gets -------------------------------------------------------------------------------


def test_the_batch_holds_the_rl_encoding_of_decision_nodes() -> None:
    seen: list[int] = []

    def check(batch: LeafBatch) -> Any:
        states = batch.states()
        assert len(states) == len(batch) == batch.planes.shape[0]
        assert all(not s.is_terminal() and not s.is_chance() for s in states)
        planes, globals_ = rl.encode_batch(states, list(batch.observers))
        assert np.array_equal(planes, batch.planes) and np.array_equal(globals_, batch.globals)
        masks, _ = rl.legal_actions_masks(states, layout="window")
        assert np.array_equal(masks, batch.masks())
        assert list(batch.num_legal) == [len(s.legal_actions()) for s in states]
        assert list(batch.observers) == [s.current_player() for s in states]
        seen.append(len(batch))
        return _flat(batch)

    result = Mcts(mcts_config(iterations=64), evaluator=check, batch_size=16).search(
        _first_decision().core_state()
    )
    assert result.iterations == 64
    assert max(seen) > 1 and sum(seen) <= 64 + 1  # + the root's priors


def test_arrays_an_evaluator_keeps_are_not_overwritten_by_later_batches() -> None:
    kept: list[tuple[Any, Any]] = []

    def fn(batch: LeafBatch) -> Any:
        if len(kept) % 2 == 0:  # every other batch is kept: the buffers of the others are reused
            kept.append((batch.planes, batch.planes.copy()))
        else:
            kept.append((None, None))
        return _flat(batch)

    Mcts(mcts_config(iterations=200), evaluator=fn, batch_size=8).search(_first_decision().core_state())
    assert len(kept) > 4
    assert all(np.array_equal(view, copy) for view, copy in kept if view is not None)


@pytest.mark.parametrize("batch_size", [1, 16, 64])
def test_every_batch_size_plays_legal_moves_within_budget(batch_size: int) -> None:
    game = _first_decision(5)
    calls = []

    def fn(batch: LeafBatch) -> Any:
        calls.append(len(batch))
        assert len(batch) <= batch_size
        return _supply_evaluator(True)(batch)

    agent = MctsAgent(evaluator=fn, iterations=96, batch_size=batch_size)
    for _ in range(12):
        if game.is_terminal:
            break
        if game.is_chance:
            game.apply_random_chance()
            continue
        action = agent.act(game)
        assert action.code in [a.code for a in game.legal_actions()]
        if agent.last_result is not None:
            assert agent.last_result.iterations == 96
        game.apply(action)
    assert calls


def test_a_batched_search_is_deterministic_for_a_seed() -> None:
    state = _first_decision().core_state()

    def run() -> list[tuple[int, int]]:
        result = Mcts(
            mcts_config(iterations=120, seed=9), evaluator=_supply_evaluator(True), batch_size=8
        ).search(state, 4)
        return [(a.action, a.visits) for a in result.actions]

    assert run() == run()


def test_terminal_leaves_are_valued_exactly_without_the_evaluator() -> None:
    game = Game(players=2, seed=11)
    ends: list[int] = []  # the actions of the game's last decision that end it
    while not game.is_terminal and not ends:
        if game.is_chance:
            game.apply_random_chance()
            continue
        for action in game.legal_actions():
            after = game.clone()
            after.apply(action)
            if after.is_terminal:
                ends.append(action.code)
        if not ends:
            game.apply(game.legal_actions()[0])
    assert ends
    leaves: list[bool] = []

    def fn(batch: LeafBatch) -> Any:
        leaves.extend(s.is_terminal() for s in batch.states())
        return _flat(batch)

    me = game.current_player
    result = Mcts(mcts_config(iterations=60, reward="win"), evaluator=fn).search(game.core_state())
    assert not any(leaves)  # fn never sees the end of the game
    for a in result.actions:
        if a.action in ends and a.visits:
            end = game.clone()
            end.apply(a.action)
            final = end.scores
            exact = 1.0 if final[me] > final[1 - me] else 0.5 if final[me] == final[1 - me] else 0.0
            assert a.value == pytest.approx(exact)
            assert a.win[me] == pytest.approx(exact)
    if set(ends) == {a.action for a in result.actions}:
        assert len(leaves) == 1  # every child ends the game: fn gave the root's priors only


# ---- Errors -------------------------------------------------------------------------------------


def _search_with(fn: Any, batch_size: int = 16, iterations: int = 40) -> Any:
    return Mcts(mcts_config(iterations=iterations), evaluator=fn, batch_size=batch_size).search(
        _first_decision().core_state()
    )


def test_wrong_value_shapes_and_dtypes_name_the_expected_shape() -> None:
    with pytest.raises(SearchError, match=r"values must have shape \(1, 2\) or \(1,\).*got \(1, 3\)"):
        _search_with(lambda b: np.zeros((len(b), 3), dtype=np.float32), batch_size=1)
    with pytest.raises(SearchError, match=r"values must be a float array .*got dtype int64"):
        _search_with(lambda b: np.zeros((len(b), 2), dtype=np.int64))
    with pytest.raises(SearchError, match=r"values must be a float array"):
        _search_with(lambda b: "nonsense")
    with pytest.raises(
        SearchError, match=r"priors must have shape \(1, \d+\) \(logits over the action space\)"
    ):
        _search_with(lambda b: (_flat(b), np.zeros((len(b), 3), dtype=np.float32)), batch_size=1)
    with pytest.raises(SearchError, match="a tuple"):
        _search_with(lambda b: (_flat(b), None, None))


def test_nan_and_out_of_range_values_are_clear_errors() -> None:
    with pytest.raises(SearchError, match="NaN"):
        _search_with(lambda b: np.full((len(b), 2), np.nan, dtype=np.float32))
    with pytest.raises(SearchError, match=r"must lie in \[0, 1\]"):
        _search_with(lambda b: np.full((len(b), 2), 3.0))
    with pytest.raises(SearchError, match="NaN at a legal action"):
        _search_with(lambda b: (_flat(b), np.full((len(b), b.num_actions), np.nan)))


def test_an_evaluators_exception_propagates_and_the_search_stays_usable() -> None:
    fail = [True]

    def fn(batch: LeafBatch) -> Any:
        if fail[0] and len(batch) > 1:
            raise RuntimeError("model on fire")
        return _flat(batch)

    mcts = Mcts(mcts_config(iterations=80), evaluator=fn, batch_size=8)
    state = _first_decision().core_state()
    with pytest.raises(RuntimeError, match="model on fire"):
        mcts.search(state)
    fail[0] = False
    result = mcts.search(state)
    assert result.iterations == 80 and sum(a.visits for a in result.actions) >= 80


def test_bad_settings_are_refused() -> None:
    config = mcts_config(iterations=10)
    with pytest.raises(TypeError, match="callable"):
        Mcts(config, evaluator=42)
    with pytest.raises(SearchError, match="batch_size"):
        Mcts(config, evaluator=_flat, batch_size=0)
    with pytest.raises(SearchError, match="one thread"):
        Mcts(mcts_config(iterations=10, threads=2), evaluator=_flat)
    with pytest.raises(SearchError, match="window"):
        Mcts(config, evaluator=_flat, window=2)


@pytest.mark.concurrency
def test_ctrl_c_stops_a_search_with_a_python_evaluator() -> None:
    if threading.current_thread() is not threading.main_thread():
        pytest.skip("signals reach the main thread only")
    calls = [0]

    def fn(batch: LeafBatch) -> Any:
        calls[0] += 1
        if calls[0] == 3:
            os.kill(os.getpid(), signal.SIGINT)
        return _flat(batch)

    # The signal is handled when the calling thread next gets the GIL, which the evaluator's
    # thread holds most of the time: on a busy machine that takes hundreds of calls or more. What
    # is checked is that the search stops, long before its budget (a hang guard, not a speed bound).
    mcts = Mcts(mcts_config(time=HANG_GUARD_S * 4), evaluator=fn, batch_size=4)
    state = _first_decision().core_state()
    start = time.monotonic()
    with pytest.raises(KeyboardInterrupt):
        mcts.search(state)
    assert time.monotonic() - start < HANG_GUARD_S
    calls[0] = 10  # no more signals
    assert Mcts(mcts_config(iterations=20), evaluator=fn).search(state).iterations == 20


# ---- As an agent --------------------------------------------------------------------------------


def test_an_evaluator_search_plays_in_the_arena() -> None:
    agent = MctsAgent(evaluator=_supply_evaluator(True), iterations=24, batch_size=8)
    assert agent.name == "mcts+fn"
    result = arena([agent, "random"], deals=1, seed=2)
    assert len(result.games) == 2
    assert [e.agent for e in result.entrants] == ["mcts+fn", "random"]
    assert all(g.turns > 0 for g in result.games)
    assert agent.searches > 0 and agent.total_iterations == 24 * agent.searches


def test_the_arena_counts_a_python_searchs_iterations_and_records_its_root_visits() -> None:
    """The iterations column and the root visits (training data) come from the agent's own
    SearchResult after each move, as for the built-in MCTS agent; a forced move has none."""

    class Recording(MctsAgent):
        def __init__(self) -> None:
            super().__init__(evaluator=_supply_evaluator(True), iterations=24, batch_size=8)
            self.roots: list[list[tuple[int, int]]] = []  # every search's root visits, in order

        def act(self, game):  # type: ignore[no-untyped-def]
            action = super().act(game)
            if self.last_result is not None:
                self.roots.append([(int(s.action), s.visits) for s in self.last_result.actions])
            return action

    agent = Recording()
    result = arena([agent, "greedy"], deals=1, seed=3, record_actions=True)
    iterations = [g.iterations[g.entrant.index(0)] for g in result.games]
    assert sum(iterations) == agent.total_iterations == 24 * agent.searches > 0
    decisions = sum(g.decisions[g.entrant.index(0)] for g in result.games)
    assert result.entrants[0].iterations_per_move == pytest.approx(agent.total_iterations / decisions)
    assert result.entrants[1].iterations_per_move == 0  # greedy does not search
    recorded = []
    for g in result.games:
        seat = g.entrant.index(0)
        assert all(not v for d, v in zip(g.deciders, g.visits, strict=True) if d != seat)
        recorded += [list(v) for d, v in zip(g.deciders, g.visits, strict=True) if d == seat and v]
    assert recorded == agent.roots and len(recorded) == agent.searches
