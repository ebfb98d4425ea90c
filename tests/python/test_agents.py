"""Python agents wherever an agent goes (arena, play_game) and the built-in agents one move at a
time (BuiltinAgent, choose_action)."""

from __future__ import annotations

import pytest

import carcassonne as c
from carcassonne import BuiltinAgent, Game, IllegalActionError, RecordError, SearchError, arena, choose_action


def first_legal(game: Game) -> c.Action:
    return game.legal_actions()[0]


def scores(result: c.ArenaResult) -> list[tuple[int, list[int]]]:
    return [(g.deal, list(g.scores)) for g in result.games]


def test_a_python_agent_wrapping_greedy_plays_the_arenas_games_exactly_as_greedy() -> None:
    # Same decks, same per-game seeds (reset), same moves: the Python path changes nothing.
    native = arena(["greedy", "random"], deals=3, seed=5)
    python = arena([BuiltinAgent("greedy"), "random"], deals=3, seed=5)
    assert scores(python) == scores(native)
    assert [e.agent for e in python.entrants] == ["greedy", "random"]


def test_the_arena_keeps_paired_decks_seats_and_intervals_for_a_callable() -> None:
    result = arena([first_legal, "greedy"], deals=4, seed=2, threads=2)
    assert len(result.games) == 8
    for deal in range(4):
        pair = [g for g in result.games if g.deal == deal]
        assert sorted(g.entrant[0] for g in pair) == [0, 1]  # each entrant in each seat
        assert pair[0].draws[:10] == pair[1].draws[:10]  # one deck
    first, greedy = result.entrants
    assert first.agent == "first_legal"
    assert first.win_low <= first.win_rate <= first.win_high
    assert greedy.elo_low <= greedy.elo <= greedy.elo_high
    assert greedy.win_rate > first.win_rate  # the first legal move is a poor strategy


def test_each_game_resets_the_agent_with_the_arenas_seed() -> None:
    class Recorder:
        name = "recorder"

        def __init__(self) -> None:
            self.seeds: list[int] = []

        def reset(self, seed: int) -> None:
            self.seeds.append(seed)

        def act(self, game: Game) -> int:
            return game.legal_actions()[-1].code

    agent = Recorder()
    arena([agent, "random"], deals=3, seed=1)
    assert len(agent.seeds) == 6
    assert len(set(agent.seeds)) == 3  # a deal's seat rotations share the seed, deals differ


def test_sprt_runs_over_a_python_agent() -> None:
    result = arena([first_legal, "greedy"], deals=20, sprt="elo0=0,elo1=100")
    assert result.sprt is not None
    assert result.sprt.llr < 0  # evidence against the weaker entrant 0


def test_a_python_agents_exception_stops_the_arena_and_is_raised() -> None:
    def broken(game: Game) -> c.Action:
        raise ZeroDivisionError("the agent's own bug")

    with pytest.raises(ZeroDivisionError, match="the agent's own bug"):
        arena([broken, "greedy"], deals=1)


def test_an_illegal_or_malformed_move_names_the_agent() -> None:
    def passer(game: Game) -> str:
        return "pass" if game.phase == "place_tile" else game.legal_actions()[0].text

    with pytest.raises(IllegalActionError, match="'passer'"):
        arena([passer, "greedy"], deals=1)
    with pytest.raises(IllegalActionError, match="'<lambda>' returned 'not an action'"):
        arena([lambda game: "not an action", "greedy"], deals=1)


def test_the_agent_gets_its_own_copy_without_a_record() -> None:
    seen = []

    def meddler(game: Game) -> c.Action:
        action = game.legal_actions()[0]
        seen.append(game.turn_number)
        game.apply(action)  # its own copy: the arena's game does not move
        with pytest.raises(RecordError, match="no record"):
            game.to_json()
        return action

    result = arena([meddler, "greedy"], deals=1, paired=False)
    assert len(seen) == result.games[0].decisions[result.games[0].entrant.index(0)]


def test_what_is_not_an_agent_is_refused_before_any_game() -> None:
    with pytest.raises(TypeError, match="not int"):
        arena([3, "greedy"], deals=1)  # type: ignore[list-item]

    class Quoted:
        name = 'a "quoted" name'

        def act(self, game: Game) -> c.Action:
            return game.legal_actions()[0]

    with pytest.raises(SearchError, match="without quotes"):
        arena([Quoted(), "greedy"], deals=1)


def test_play_game_takes_python_agents_and_is_reproducible() -> None:
    one = c.play_game([first_legal, "greedy"], seed=3)
    two = c.play_game([first_legal, "greedy"], seed=3)
    assert one.scores == two.scores
    assert one.tiles_placed == 72 and one.decisions > 72
    assert one.scores[1] > one.scores[0]


def test_choose_action_is_a_legal_move_of_the_built_in_agent() -> None:
    game = Game(seed=4)
    with pytest.raises(SearchError, match="not a decision"):
        choose_action(game, "greedy")
    game.apply_random_chance()
    action = choose_action(game, "mcts:iters=30", seed=1)
    assert game.is_legal(action)
    assert action == choose_action(game, "mcts:iters=30", seed=1)  # one thread, iterations: deterministic
    with pytest.raises(SearchError, match="unknown agent"):
        choose_action(game, "nonsense")
