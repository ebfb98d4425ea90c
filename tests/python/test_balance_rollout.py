"""Line-ups of the search without networks (rollout, rollout@N) beside the sweep's MCTS (mcts@N):
in a cell where a value network ships they are two bots, elsewhere one; each is pinned in the
spec file, replays, resumes, ranks below the learned player at its budget in the report, and a
malformed one is refused before anything is played."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pandas as pd
import pytest

pytest.importorskip("pyarrow")

from carcassonne import SearchError, _core
from carcassonne.__main__ import main
from carcassonne.balance import Mix, SweepSpec, by_strength, read_sweep, run_sweep
from carcassonne.balance import report as report_module
from carcassonne.balance.lineups import lineup_agents, rollout_agent
from carcassonne.balance.replay import replay_deal
from carcassonne.balance.sweep import TIMING_COLUMNS

# 2-player base games have a shipped value network, 4-player ones none.
SPEC = SweepSpec(
    mixes=(Mix("base"),),
    players=(2, 4),
    deals=(("greedy", 1), ("rollout@8", 1), ("mcts@8", 1), ("mcts@8+rollout@8", 1)),
    mcts="mcts:iters=20,memory=16",
    chunk_deals=1,
    seed=3,
)
KEY = ["mix", "players", "lineup", "deal", "rotation", "seat"]
# The columns that name the line-up and its agents, not the games.
NAMES = ["lineup", "agent"]


@pytest.fixture(scope="module")
def sweep(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return run_sweep(tmp_path_factory.mktemp("rollout") / "s", SPEC, progress=False)


def _games(df: pd.DataFrame, players: int, lineup: str) -> pd.DataFrame:
    cell = df[(df["players"] == players) & (df["lineup"] == lineup)]
    return cell.sort_values(KEY).reset_index(drop=True).drop(columns=[*TIMING_COLUMNS, *NAMES])


def test_rollout_plays_the_sweeps_search_without_its_networks() -> None:
    mcts = "mcts:iters=100,memory=64"
    assert lineup_agents("rollout@400", 2, mcts) == ["mcts:iters=400,memory=64,eval=greedy"] * 2
    assert lineup_agents("rollout", 3, mcts) == ["mcts:iters=100,memory=64,eval=greedy"] * 3
    assert lineup_agents("mcts@400+rollout@400", 2, "mcts:iters=100") == [
        "mcts:iters=400",
        "mcts:iters=400,eval=greedy",
    ]
    # Every network option given is replaced by what a search without networks plays.
    shipped = Path(_core.value_net_dir()) / "value-base.value"
    learned = f"mcts:iters=50,rollout=none,value={shipped},prior=value"
    assert rollout_agent(learned) == "mcts:iters=50,rollout=random,eval=greedy,prior=greedy"
    assert rollout_agent("mcts:iters=50,eval=net") == "mcts:iters=50,eval=greedy,prior=greedy"
    assert rollout_agent("mcts:iters=50,eval=expected") == "mcts:iters=50,eval=expected"  # no network


def test_the_spec_pins_a_network_only_where_the_learned_player_played(sweep: Path) -> None:
    record = json.loads((sweep / "_spec.json").read_text())
    bots = {(b["players"], b["lineup"], b["agent"]): b for b in record["bots"]}
    rollout, learned = "mcts:iters=8,memory=16,eval=greedy", "mcts:iters=8,memory=16"
    for players in (2, 4):
        for lineup in ("rollout@8", "mcts@8+rollout@8"):
            assert bots[(players, lineup, rollout)]["network"] is None
            assert bots[(players, lineup, rollout)]["evaluator"] == "rollouts"
            assert "eval=greedy" in bots[(players, lineup, rollout)]["options"]
    assert bots[(2, "mcts@8", learned)]["network"]["file"] == "value-base.value"
    assert bots[(4, "mcts@8", learned)]["network"] is None


def test_where_no_network_ships_rollout_and_mcts_play_the_same_games(sweep: Path) -> None:
    df = read_sweep(sweep)
    pd.testing.assert_frame_equal(_games(df, 4, "rollout@8"), _games(df, 4, "mcts@8"))
    assert not _games(df, 2, "rollout@8").equals(_games(df, 2, "mcts@8"))  # the network plays


def test_a_rollout_cell_replays_and_resumes(sweep: Path, tmp_path: Path) -> None:
    df = read_sweep(sweep)
    for players in (2, 4):
        for lineup in ("rollout@8", "mcts@8+rollout@8"):
            again = replay_deal(sweep, "base", players, lineup, 0)
            stored = df[(df["players"] == players) & (df["lineup"] == lineup)]
            pd.testing.assert_frame_equal(
                again.sort_values(KEY).reset_index(drop=True).drop(columns=list(TIMING_COLUMNS)),
                stored.sort_values(KEY).reset_index(drop=True).drop(columns=list(TIMING_COLUMNS)),
            )
    # A sweep stopped before its rollout chunks.
    copy = shutil.copytree(
        sweep, tmp_path / "copy", ignore=lambda _, names: [n for n in names if "rollout" in n]
    )
    run_sweep(copy, SPEC, resume=True, progress=False)
    pd.testing.assert_frame_equal(
        read_sweep(copy).drop(columns=list(TIMING_COLUMNS)), df.drop(columns=list(TIMING_COLUMNS))
    )


def test_the_report_ranks_the_rollout_search_below_the_learned_player(sweep: Path, tmp_path: Path) -> None:
    df = read_sweep(sweep)
    assert by_strength.strengths(df) == ["greedy", "rollout@8", "mcts@8"]
    page = report_module.write_report(sweep, tmp_path / "r")
    front = pd.read_csv(page.parent / "front_page.csv", dtype=str, keep_default_na=False)
    assert list(front.columns[2:5]) == ["greedy (1 deal)", "rollout@8 (1 deal)", "mcts@8 (1 deal)"]
    # The front page names each strength's bot and where the learned one played.
    assert (
        "The strengths: greedy; rollout@8: mcts:iters=8,memory=16,eval=greedy (rollouts, no network); "
        "mcts@8: mcts:iters=8,memory=16 (the value network value-base.value in base 2 players; "
        "rollouts elsewhere, where it plays as rollout@8)."
    ) in page.read_text()
    edge = pd.read_csv(page.parent / "strength_edge.csv", dtype=str, keep_default_na=False)
    assert list(edge[edge["players"] == "2"]["lineup"]) == [
        "all greedy",
        "all MCTS on rollouts at 8 iterations",
        "all MCTS at 8 iterations",
    ]


@pytest.mark.parametrize(
    ("deals", "mcts", "message"),
    [
        ("rollout@0=1", "mcts:iters=8", "rollout@N takes an iteration budget N >= 1"),
        ("rollout@x=1", "mcts:iters=8", "rollout@N takes an iteration budget N >= 1"),
        ("rollout@=1", "mcts:iters=8", "rollout@N takes an iteration budget N >= 1"),
        ("rollouts=1", "mcts:iters=8", "unknown line-up 'rollouts'"),
        ("rollout+rollout@8=1", "mcts:iters=8", "two different bots"),
        # Without a network in the MCTS agent, the two are one bot.
        ("rollout@8+mcts@8=1", "mcts:iters=8,eval=greedy", "both play mcts:iters=8,eval=greedy"),
        ("rollout@8=1", "greedy", "must be an 'mcts:...' agent"),
    ],
)
def test_a_malformed_rollout_line_up_is_refused_and_creates_nothing(
    deals: str, mcts: str, message: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "s"
    command = ["balance", "run", str(out), "--mixes", "base", "--players", "2", "--deals", deals]
    assert main([*command, "--mcts", mcts]) == 2
    assert message in capsys.readouterr().err
    assert not out.exists()
    with pytest.raises(SearchError, match="rollout"):
        lineup_agents("rollout@-1", 2, "mcts:iters=8")
