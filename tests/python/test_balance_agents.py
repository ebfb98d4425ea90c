"""Python agents in balance sweeps: line-ups name them by an importable reference
("py:module:attribute"), the spec records the reference with a hash of its module's file, and a
resume with other agent code, or a name that does not load, is refused before anything is played."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

pytest.importorskip("pyarrow")

from carcassonne import Game, SearchError
from carcassonne.agents import load_agent
from carcassonne.balance import Mix, SweepSpec, read_sweep, run_sweep, stats

ME = "py:test_balance_agents"


class FirstLegal:
    """Plays the first legal action; counts its moves (all instances, this process)."""

    moves = 0

    def act(self, game: Game) -> int:
        FirstLegal.moves += 1
        return game.legal_actions()[0]


def first_legal(game: Game) -> int:
    return game.legal_actions()[0]


def make_first_legal() -> FirstLegal:
    return FirstLegal()


def spec(*lineups: str) -> SweepSpec:
    deals = tuple((lineup, 1) for lineup in lineups)
    return SweepSpec(mixes=(Mix("base"),), players=(2,), deals=deals, chunk_deals=1)


def test_a_python_agent_plays_its_line_ups_and_the_spec_records_its_code(tmp_path: Path) -> None:
    FirstLegal.moves = 0
    lineups = (f"{ME}:FirstLegal", f"{ME}:make_first_legal()+greedy", f"{ME}:first_legal")
    folder = run_sweep(tmp_path / "s", spec(*lineups), progress=False)
    rows = read_sweep(folder)
    assert sorted(set(rows["lineup"])) == sorted(lineups)
    assert set(rows["agent"]) == {*(lineup.removesuffix("+greedy") for lineup in lineups), "greedy"}
    by_class = rows[rows["agent"].isin([f"{ME}:FirstLegal", f"{ME}:make_first_legal()"])]
    assert FirstLegal.moves == by_class["decisions"].sum() > 0  # every decision was the agent's
    assert (rows.groupby(["lineup", "deal", "rotation"]).size() == 2).all()  # 2 games a line-up, 2 seats
    # The statistics compare seats only where every seat holds the same agent, and the skill
    # gradient is MCTS's alone.
    first = stats.first_player_edge(rows)
    assert set(first["lineup"]) == {f"{ME}:FirstLegal", f"{ME}:first_legal"}
    assert stats.skill_table(rows).empty
    record = json.loads((folder / "_spec.json").read_text())
    agent = record["agents"][f"{ME}:FirstLegal"]
    assert agent["reference"] == f"{ME}:FirstLegal" and len(agent["module_sha256"]) == 16


def test_a_resume_with_other_agent_code_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    module = tmp_path / "my_bots.py"
    module.write_text("def first(game):\n    return game.legal_actions()[0]\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "my_bots", raising=False)
    two = spec("py:my_bots:first", "greedy")
    folder = run_sweep(tmp_path / "s", two, progress=False)
    part = next(folder.glob("base_p2_py~my_bots~first_*.parquet"))
    part.unlink()  # a sweep stopped before this chunk
    module.write_text(module.read_text() + "# changed\n")
    with pytest.raises(SearchError, match="other code or agent options") as refused:
        run_sweep(folder, two, resume=True, progress=False)
    assert not part.exists()
    assert "agents.py:my_bots:first.module_sha256: '" in str(refused.value)  # what differs, only that
    assert "code" not in str(refused.value).split("(", 1)[1]


@pytest.mark.parametrize(
    ("lineup", "message"),
    [
        ("py:no_such_module_here:Agent", "cannot import no_such_module_here"),
        (f"{ME}:Missing", "has no attribute Missing"),
        ("py:math:pi", "is float object, not an agent"),
        ("py:test_balance_agents", "py:module:attribute"),
        (f"{ME}:FirstLegal+mcts", "among greedy bots"),
    ],
)
def test_a_python_agent_that_does_not_load_is_refused_before_the_folder_exists(
    tmp_path: Path, lineup: str, message: str
) -> None:
    with pytest.raises(SearchError, match=message):
        run_sweep(tmp_path / "s", spec(lineup), progress=False)
    assert not (tmp_path / "s").exists()


def test_classes_and_factories_make_a_new_agent_each_time() -> None:
    first, second = load_agent(f"{ME}:FirstLegal"), load_agent(f"{ME}:make_first_legal()")
    assert isinstance(first, FirstLegal) and isinstance(second, FirstLegal) and first is not second
    assert load_agent(f"{ME}:first_legal") is first_legal
    with pytest.raises(SearchError, match="is int object, not an agent"):
        load_agent("py:os:getpid()")
    with pytest.raises(SearchError, match="making the agent raised TypeError"):
        load_agent("py:os:fspath()")


def test_the_arena_and_its_command_take_a_python_agent_by_reference(
    capsys: pytest.CaptureFixture[str],
) -> None:
    from carcassonne import arena
    from carcassonne.__main__ import main

    FirstLegal.moves = 0
    result = arena(f"{ME}:FirstLegal,greedy", deals=2)
    assert [e.agent for e in result.entrants] == [f"{ME}:FirstLegal", "greedy"]
    assert len(result.games) == 4 and FirstLegal.moves > 0
    assert main(["arena", "--deals", "1", f"{ME}:first_legal", "greedy"]) == 0
    assert f"{ME}:first_legal" in capsys.readouterr().out
    with pytest.raises(SearchError, match="cannot import"):
        arena(["py:no_such_module_here:Agent", "greedy"], deals=1)
