"""MCTS analysis and the arena from Python: the analysis covers every move once, finds the one
winning move, is deterministic on one thread, rejects bad input with SearchError, and the arena's
totals add up. Every search runs on an iteration budget (no clock in any assertion)."""

from __future__ import annotations

import ast
import math
from pathlib import Path

import pytest

from carcassonne import (
    ConfigError,
    Game,
    Mcts,
    MctsConfig,
    SearchError,
    _core,
    analyse,
    arena,
    arena_summary,
    mcts_config,
    parse_mcts_options,
)
from carcassonne.__main__ import main
from helpers import assert_releases_the_gil


def _first_decision(seed: int = 1, players: int = 2) -> Game:
    game = Game(players=players, seed=seed)
    game.apply_random_chance()
    return game


def _last_tile(players: int = 2, mover: int = 0) -> Game:
    """As tests/cpp/test_mcts.cpp: the start tile alone, base.E the last tile, `mover` to place it
    trailing everyone by 3 points. Only "place 0,-1 r2" then "meeple city#0" (4 points) wins."""
    scores = [3] * players
    scores[mover] = 0
    game = Game.from_position(
        {
            "players": players,
            "tiles": [{"tile": "base.D-start", "x": 0, "y": 0, "rotation": 0}],
            "scores": scores,
            "bag": ["base.E"],
            "current_player": mover,
        }
    )
    game.apply("draw base.E")
    return game


def test_analysis_covers_every_legal_action_once() -> None:
    for players in (2, 3):
        game = _first_decision(seed=3, players=players)
        hints = game.analyse(iterations=300)
        assert sorted(h["code"] for h in hints) == [a.code for a in game.legal_actions()]
        assert [h["action"] for h in hints] == [game.action(h["code"]).text for h in hints]
        assert sum(h["visits"] for h in hints) == 300  # a fresh search: one root visit per iteration
        assert [h["visits"] for h in hints] == sorted((h["visits"] for h in hints), reverse=True)
        for h in hints:
            assert len(h["win"]) == players
            assert all(0.0 <= w <= 1.0 for w in h["win"])
            assert math.isclose(sum(h["win"]), 1.0, abs_tol=1e-3)
            assert 0.0 <= h["value"] <= 1.0
            assert 0.0 <= h["prior"] <= 1.0


def test_analysis_is_deterministic_on_one_thread() -> None:
    game = _first_decision(seed=7)
    a = analyse(game, iterations=400, seed=42)
    b = analyse(game, iterations=400, seed=42)
    assert a == b
    assert game.analyse(iterations=400, seed=42) == a


def test_analysis_finds_the_only_winning_move() -> None:
    game = _last_tile()
    assert game.analyse(iterations=400, seed=1)[0]["action"] == "place 0,-1 r2"
    game.apply("place 0,-1 r2")
    best = game.analyse(iterations=200, seed=1)[0]
    assert best["action"] == "meeple city#0"
    assert best["win"][0] == pytest.approx(1.0, abs=1e-6)
    # Three players, the third to move: the search decides for player 2.
    game = _last_tile(players=3, mover=2)
    assert game.analyse(iterations=600)[0]["action"] == "place 0,-1 r2"


def test_analysis_needs_a_decision() -> None:
    with pytest.raises(SearchError, match="chance node"):
        Game(seed=1).analyse(iterations=10)
    with pytest.raises(SearchError, match="chance node"):
        analyse(Game(seed=1).core_state(), iterations=10)
    game = _last_tile()
    game.apply("place 0,-1 r2")
    game.apply("pass")
    assert game.is_terminal
    with pytest.raises(SearchError, match="game is over"):
        game.analyse(iterations=10)
    with pytest.raises(SearchError, match="game is over"):
        analyse(game.core_state(), iterations=10)
    with pytest.raises(TypeError, match="analyse needs a Game or a State, not str"):
        analyse("game", iterations=10)  # type: ignore[arg-type]


def test_analysis_of_a_state_is_that_of_its_game() -> None:
    """The issue's repro: a State (game.core_state()) at a live node was taken for a finished game
    (its is_terminal is a method, always true as a value)."""
    game = _first_decision(seed=6)
    hints = analyse(game.core_state(), iterations=10)
    assert sum(h["visits"] for h in hints) == 10
    assert hints == analyse(game, iterations=10)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"wizard": 1}, "unknown mcts option 'wizard'"),
        ({"threads": -1}, "threads=-1"),
        ({"threads": 0}, "threads=0"),
        ({"iterations": 0}, "iters=0"),
        ({"time": -1.0}, "time=-1"),
        ({"select": "best"}, "expected one of uct, puct"),
        ({"c": float("nan")}, "finite"),
        ({"rollout": "random,iters=5"}, "commas"),
        ({"iters": 5}, "iterations="),
    ],
)
def test_bad_options_raise_search_error(kwargs: dict, message: str) -> None:
    with pytest.raises(SearchError, match=message):
        _first_decision().analyse(**kwargs)


def test_an_mcts_option_given_twice_is_an_error() -> None:
    with pytest.raises(SearchError, match=r"^mcts option 'iters' is given twice \('iters=5,iters=6'\)$"):
        parse_mcts_options("iters=5,iters=6")
    with pytest.raises(SearchError, match="'c' is given twice"):
        arena(["greedy", "mcts:c=1,iters=5,c=2"], deals=1)
    assert parse_mcts_options("iters=5,c=1").iterations == 5


def test_game_does_not_import_search() -> None:
    """search.py builds on game.py; their shared helpers live in _common.py (no import cycle)."""
    import carcassonne.game

    tree = ast.parse(Path(carcassonne.game.__file__).read_text(encoding="utf-8"))  # (editable installs too)
    imported = {node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)}
    assert "search" not in imported
    assert "_common" in imported


def test_every_mcts_option_is_documented_from_the_cpp_table() -> None:
    options = _core.mcts_options()
    assert [o["key"] for o in options][:3] == ["time", "iters", "threads"]
    doc = mcts_config.__doc__ or ""
    for o in options:
        assert set(o) == {"key", "help", "values", "default"}
        assert f"    {o['key']}: {o['help']}; {o['values']} (default {o['default']})" in doc
    with pytest.raises(SearchError, match=r"vl=-1: expected a number in \[0, 1000\]"):
        parse_mcts_options("vl=-1")


def test_options_reach_the_config() -> None:
    config = mcts_config(
        time=0.5,
        threads=2,
        c=1.5,
        select="puct",
        reuse=False,
        cutoff=4,
        finish=15,
        endgame=2,
        prior="greedy",
        ptemp=2,
    )
    assert (config.seconds, config.iterations, config.threads) == (0.5, 0, 2)
    assert config.exploration == 1.5
    assert config.selection.name == "PUCT"
    assert config.reuse is False
    assert config.rollout.cutoff_turns == 4
    assert config.rollout.endgame_tiles == 2
    assert config.rollout.finish_tiles == 15
    assert config.rollout.prior.name == "GREEDY"
    assert config.rollout.prior_temperature == 2
    assert mcts_config().iterations == 1000
    with pytest.raises(TypeError):
        mcts_config(threads="2")  # type: ignore[arg-type]
    # Options reach the search (parsed in C++ as the agent spec's).
    hints = _first_decision().analyse(iterations=50, select="puct", chance="sample", rollout="greedy")
    assert sum(h["visits"] for h in hints) == 50


def test_mcts_object_reuses_its_tree_and_rejects_bad_configs() -> None:
    config = MctsConfig()
    config.iterations = 500
    config.memory_mb = 32
    config.rollout.cutoff_turns = 5  # a nested config is changed in place
    assert config.rollout.cutoff_turns == 5
    mcts = Mcts(config)
    game = _first_decision(seed=4)
    first = mcts.search(game.core_state(), 1)
    assert first.reused_visits == 0
    assert first.iterations == 500
    assert game.action(first.best).text == first.actions[0].text
    game.apply(first.best)
    second = mcts.search(game.core_state(), 2)
    assert second.reused_visits > 0
    mcts.clear()
    assert mcts.search(game.core_state(), 2).reused_visits == 0
    with pytest.raises(SearchError, match="decision node"):
        mcts.search(Game().core_state())
    config.threads = 0
    with pytest.raises(SearchError, match="threads must be 1 to 256"):
        Mcts(config)
    with pytest.raises(SearchError, match="threads must be 1 to 256"):
        config.validate()
    with pytest.raises(SearchError, match="unknown mcts option"):
        parse_mcts_options("iters=10,wizard=2")


def test_arena_totals_add_up() -> None:
    result = arena(["mcts:iters=50,memory=16", "random"], deals=2, threads=1)
    assert (result.players, result.deals, result.paired) == (2, 2, True)
    assert len(result.games) == 4  # 2 deals x 2 seat rotations
    assert [e.games for e in result.entrants] == [4, 4]
    assert sum(e.win_rate for e in result.entrants) == pytest.approx(1.0)
    for e in result.entrants:
        assert 0.0 <= e.win_low <= e.win_rate <= e.win_high <= 1.0
    assert result.entrants[0].elo == 0.0  # Elo is relative to entrant 0
    assert result.entrants[0].iterations_per_move > 0
    assert result.entrants[1].iterations_per_move == 0
    for g in result.games:
        assert sorted(g.entrant) == [0, 1]
        assert sum(g.win_share) == pytest.approx(1.0)
        assert g.index == 2 * g.deal + g.rotation
    # Paired decks: both rotations of a deal draw the same tiles.
    assert result.games[0].draws == result.games[1].draws
    assert len(result.csv().splitlines()) == 1 + 4 * 2
    report = result.report()
    assert "4 games" in report and "mcts:iters=50,memory=16" in report and "random" in report
    summary = arena_summary(result)
    assert summary["games"] == 4
    assert summary["entrants"][1]["agent"] == "random"
    assert summary["entrants"][0]["win_ci"] == (result.entrants[0].win_low, result.entrants[0].win_high)


def test_arena_csv_is_written_as_games_finish_and_resumes(tmp_path) -> None:
    path = tmp_path / "run.csv"
    with pytest.raises(SearchError, match="resume needs a csv"):
        arena("random,greedy", deals=2, threads=1, resume=True)
    # Resuming a run that has no file yet starts it, so one command serves the first run too.
    full = arena("random,greedy", deals=2, threads=1, csv=path, resume=True, seed=5, agent_seed=3)
    assert len(full.games) == 4 and all(g.draws for g in full.games)  # all played
    assert path.read_text() == full.csv()
    assert [(g.seed, g.agent_seed) for g in full.games] == [(5, 3)] * 4
    # Keep the header and game 2 (both seats), as if the run had stopped: only 0, 1, 3 are played.
    lines = full.csv().splitlines(keepends=True)
    path.write_text(lines[0] + "".join(line for line in lines[1:] if line.startswith("2,")))
    resumed = arena("random,greedy", deals=2, threads=1, csv=path, resume=True, seed=5, agent_seed=3)
    assert [g.scores for g in resumed.games] == [g.scores for g in full.games]
    assert resumed.games[2].draws == []  # read back from the file (the csv holds no draws)
    assert resumed.games[0].draws == full.games[0].draws  # played again
    assert path.read_text() == resumed.csv()
    with pytest.raises(SearchError, match="agent seed"):
        arena("random,greedy", deals=2, threads=1, csv=path, resume=True, seed=5, agent_seed=4)
    assert path.read_text() == resumed.csv()  # a refused resume leaves the file alone


def test_arena_csv_in_a_missing_folder_is_refused_before_any_game(tmp_path) -> None:
    """Refused at once (tests/cpp/test_arena.cpp checks that no game is played), with the path."""
    path = tmp_path / "no_such_folder" / "run.csv"
    with pytest.raises(SearchError) as info:
        arena(["greedy", "random"], deals=1, threads=1, csv=path)
    assert str(info.value) == f"arena: cannot write {path}: there is no folder {path.parent}"
    assert not path.parent.exists()
    with pytest.raises(SearchError, match="it is a folder"):
        arena(["greedy", "random"], deals=1, threads=1, csv=tmp_path)


def test_arena_intervals_never_have_zero_width() -> None:
    """The issue's repro: greedy wins every game against random; the win rate's interval is
    Wilson's for 15 deals, not [1.000, 1.000], and the Elo interval its transform."""
    result = arena(["greedy", "random"], deals=15)
    greedy, rand = result.entrants
    assert (greedy.win_rate, greedy.win_high) == (1.0, 1.0)
    assert greedy.win_low == pytest.approx(15 / (15 + 1.96**2), abs=1e-12)
    assert (rand.win_rate, rand.win_low) == (0.0, 0.0)
    assert rand.win_high == pytest.approx(1 - 15 / (15 + 1.96**2), abs=1e-12)
    assert "1.000 [0.796, 1.000]" in result.report()
    # Elo vs entrant 0 (greedy): 30 games lost, one virtual draw; bounds from the win rate's.
    assert rand.elo == pytest.approx(400 * math.log10(0.5 / 30.5))
    assert rand.elo_low == -math.inf
    assert rand.elo_high == pytest.approx(400 * math.log10(rand.win_high / (1 - rand.win_high)))
    assert "-714 [-inf, -237]" in result.report()


def test_arena_sides_of_a_two_against_two_match() -> None:
    result = arena("greedy,random,greedy,random", deals=2, threads=1)
    assert [(s.agent, s.entrants) for s in result.sides] == [("greedy", [0, 2]), ("random", [1, 3])]
    side = result.sides[0]
    assert side.games == 8
    # A side's win share is its seats' win shares summed, game by game.
    assert side.win_rate == pytest.approx(result.entrants[0].win_rate + result.entrants[2].win_rate)
    assert side.win_rate + result.sides[1].win_rate == pytest.approx(1.0)
    assert side.win_low <= side.win_rate <= side.win_high
    assert "side (one agent, several seats)" in result.report() and "#0+#2" in result.report()
    assert arena_summary(result)["sides"][1]["entrants"] == [1, 3]
    assert arena(["greedy", "random"], deals=1, threads=1).sides == []


def test_arena_unpaired_and_three_players() -> None:
    result = arena("random,random,greedy", deals=2, paired=False, threads=2)
    assert len(result.games) == 2
    assert [g.rotation for g in result.games] == [0, 1]
    result = arena("random,greedy", deals=2, rotation=1, threads=1)
    assert [g.entrant for g in result.games] == [[1, 0], [1, 0]]


@pytest.mark.parametrize(
    ("kwargs", "error", "message"),
    [
        ({"agents": ["greedy", "wizard"]}, SearchError, "unknown agent 'wizard'"),
        ({"agents": ["greedy", "mcts:iters=0"]}, SearchError, "iters=0"),
        ({"agents": ["greedy", "random"], "players": 3}, SearchError, "one agent per player"),
        ({"agents": ["greedy"] * 7}, ConfigError, "players must be 2 to 6"),
        ({"deals": 0}, SearchError, "deals out of range"),
        ({"threads": -1}, SearchError, "threads out of range"),
        ({"rotation": 2}, SearchError, "rotation must be -1"),
        ({"agents": "greedy,c=1"}, SearchError, "follows 'greedy', which has no options"),
        ({"sprt": "elo0=20,elo1=0"}, SearchError, "elo0"),
        ({"agents": ["greedy"] * 3, "sprt": "elo0=0,elo1=20"}, SearchError, "needs 2 players"),
    ],
)
def test_arena_rejects_bad_input(kwargs: dict, error: type[Exception], message: str) -> None:
    with pytest.raises(error, match=message):
        arena(**{"agents": ["greedy", "random"], "deals": 1, **kwargs})


def test_arena_sprt_stops_once_decided_and_resumes_decided(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Greedy wins every pair against random: wide bounds decide long before 30 deals.
    csv = tmp_path / "sprt.csv"
    kwargs = {
        "agents": "greedy,random",
        "deals": 30,
        "threads": 1,
        "sprt": "elo0=0,elo1=200,alpha=0.2,beta=0.2",
    }
    result = arena(**kwargs, csv=csv)
    assert result.sprt is not None and result.sprt.decision == "H1"
    assert result.sprt.llr >= result.sprt.upper
    assert len(result.games) == 2 * result.sprt.units < 60
    assert arena_summary(result)["sprt"]["decision"] == "H1"
    again = arena(**kwargs, csv=csv, resume=True)
    assert len(again.games) == len(result.games) and again.sprt.llr == result.sprt.llr
    assert (
        main(
            ["arena", "--deals", "30", "--threads", "1", "--sprt", "elo0=0,elo1=200,alpha=0.2,beta=0.2"]
            + ["greedy", "random"]
        )
        == 0
    )
    assert "H1 accepted" in capsys.readouterr().out


def test_arena_command_prints_the_report(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["arena", "--deals", "1", "--threads", "1", "mcts:iters=30,memory=16", "greedy"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("2 players, 1 deals x 2 seat rotations (paired decks) = 2 games")
    assert "mcts:iters=30,memory=16" in out and "greedy" in out
    assert main(["arena", "--deals", "1", "greedy", "mcts:wizard=1"]) == 2
    assert "unknown mcts option 'wizard'" in capsys.readouterr().err


@pytest.mark.concurrency
def test_analyse_releases_the_gil() -> None:
    game = _first_decision(seed=5)
    assert_releases_the_gil(lambda: game.analyse(iterations=5_000, memory=64), "analyse")


@pytest.mark.concurrency
def test_arena_releases_the_gil() -> None:
    assert_releases_the_gil(
        lambda: arena(["mcts:iters=100,memory=16", "greedy"], deals=1, threads=1), "arena"
    )
