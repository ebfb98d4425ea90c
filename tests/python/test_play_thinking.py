"""How long the play page's bots think: a forced move not at all, a settled decision a part of
the budget (with the move the whole budget would choose), an open one the whole budget. Counted
in iterations and searches of the medium bot (one thread, deterministic), never timed."""

from __future__ import annotations

import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from carcassonne import Game, _core
from carcassonne.play import session as session_module
from carcassonne.play.session import MEDIUM_ITERATIONS, THINKING_STEPS, GameSession, new_search, think
from carcassonne.play.store import Store

MEDIUM = {"kind": "bot", "level": "medium"}


def decisions(players: int, seed: int, count: int) -> Iterator[_core.State]:
    """The first `count` decisions with a choice of a game whose players take the greedy move."""
    game = Game(players=players, seed=seed)
    while count:
        if game.is_chance:
            game.apply_random_chance()
            continue
        state = game.core_state()
        if len(state.legal_actions()) > 1:
            yield state
            count -= 1
        game._apply_code(_core.choose_action(state, "greedy", 0), sampled=False)


def never() -> bool:
    return False


def test_a_settled_decision_stops_early_with_the_move_of_the_whole_budget(monkeypatch: Any) -> None:
    used = []
    for state in decisions(players=4, seed=3, count=24):
        early = think(new_search(MEDIUM), state, 1, never)
        with monkeypatch.context() as whole_budget:  # no decision is ever settled
            whole_budget.setattr(session_module, "SETTLED_SHARE", 1e9)
            whole = think(new_search(MEDIUM), state, 1, never)
        assert whole.iterations == MEDIUM_ITERATIONS and whole.steps == THINKING_STEPS
        assert early.best == whole.best, state.to_string()
        assert early.iterations == early.steps * MEDIUM_ITERATIONS // THINKING_STEPS
        used.append(early.iterations)
    assert min(used) <= MEDIUM_ITERATIONS // 2, used  # a settled decision: half the budget or less
    assert max(used) == MEDIUM_ITERATIONS, used  # an open one: all of it


def test_the_bots_budget_is_searched_in_steps() -> None:
    assert new_search(MEDIUM).config.iterations * THINKING_STEPS == MEDIUM_ITERATIONS
    hard = new_search({"kind": "bot", "level": "hard", "time": 3.0}).config
    assert hard.seconds * THINKING_STEPS == pytest.approx(3.0) and hard.iterations == 0


def test_a_changed_game_ends_the_thinking_after_one_step() -> None:
    state = next(decisions(players=2, seed=1, count=1))
    thought = think(new_search(MEDIUM), state, 1, lambda: True)
    assert thought.steps == 1 and thought.iterations == MEDIUM_ITERATIONS // THINKING_STEPS


class NoSearch:
    """A bot's search that must not be asked."""

    def search(self, state: _core.State, seed: int = 0) -> _core.SearchResult:
        raise AssertionError("a forced move was searched")


def forced_decision() -> Game:
    """A game at a decision with one legal move (a tile that fits one way only: rare)."""
    for seed in range(50):
        game, rng = Game(players=2, seed=seed), random.Random(seed)
        while not game.is_terminal:
            if game.is_chance:
                game.apply_random_chance()
            elif len(game.legal_actions()) == 1:
                return game
            else:
                game.apply(rng.choice(game.legal_actions()))
    raise AssertionError("no forced decision in 50 random games")


def test_a_forced_move_is_made_without_a_search(tmp_path: Path) -> None:
    game = forced_decision()
    session = GameSession("forced", [MEDIUM, MEDIUM], game.to_record(), Store(tmp_path))
    session.searches = {0: NoSearch(), 1: NoSearch()}  # type: ignore[dict-item]
    (only,) = game.legal_actions()
    assert session._think(game.current_player, game.core_state(), 0, session.applied) == only.code
