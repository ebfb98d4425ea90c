"""The bot behind every balance cell is pinned: the spec file records each MCTS cell's full
options, the evaluator that valued its leaves and the value network's file and SHA-256; a resume
whose package would play another evaluator or network is refused, and a deal replays with the
recorded bot, not today's defaults."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable, Iterator
from pathlib import Path

import pandas as pd
import pytest

pytest.importorskip("pyarrow")

from carcassonne import SearchError, _core
from carcassonne.balance import Mix, SweepSpec, read_sweep, run_sweep
from carcassonne.balance import sweep as sweep_module
from carcassonne.balance.sweep import TIMING_COLUMNS, agent_options, replay_deal, sweep_records

# 2-player base games have a shipped value network, 4-player ones none.
SMALL = SweepSpec(
    mixes=(Mix("base"),),
    players=(2, 4),
    deals=(("greedy", 1), ("mcts", 1), ("mcts+greedy", 1)),
    mcts="mcts:iters=20,memory=16",
    chunk_deals=1,
    seed=3,
)
KEY = ["mix", "players", "lineup", "deal", "rotation", "seat"]
SHIPPED = Path(_core.value_net_dir())
BASE_NET = "value-base.value"
COMMITTED = Path(__file__).parents[2] / "experiments" / "balance" / "sweep.parquet"


@pytest.fixture
def value_dir() -> Iterator[Callable[[Path], None]]:
    """Points the search at another folder of value networks (each folder is read once, at its
    first search: a fresh folder is a package with other networks); restored afterwards."""
    original = _core.value_net_dir()
    yield lambda folder: _core.set_value_net_dir(str(folder))
    _core.set_value_net_dir(original)


def _networks(folder: Path, **files: str) -> Path:
    """A folder of value networks: name -> the shipped file copied under that name."""
    folder.mkdir()
    for name, source in files.items():
        shutil.copy(SHIPPED / source, folder / name)
    return folder


@pytest.fixture(scope="module")
def small(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return run_sweep(tmp_path_factory.mktemp("pin") / "s", SMALL, progress=False)


def _bot(record: dict, players: int, lineup: str) -> dict:
    (bot,) = [b for b in record["bots"] if (b["mix"], b["players"], b["lineup"]) == ("base", players, lineup)]
    return bot


def _stored(df: pd.DataFrame, mix: str, players: int, lineup: str, deal: int) -> pd.DataFrame:
    cell = df[(df["mix"] == mix) & (df["players"] == players) & (df["lineup"] == lineup)]
    cell = cell[cell["deal"] == deal]
    return cell.sort_values(KEY).reset_index(drop=True).drop(columns=list(TIMING_COLUMNS))


def _again(rows: pd.DataFrame) -> pd.DataFrame:
    return rows.sort_values(KEY).reset_index(drop=True).drop(columns=list(TIMING_COLUMNS))


def test_the_spec_file_records_each_cells_bot(small: Path) -> None:
    record = json.loads((small / "_spec.json").read_text())
    assert {(b["players"], b["lineup"]) for b in record["bots"]} == {
        (p, lineup) for p in (2, 4) for lineup in ("mcts", "mcts+greedy")
    }  # greedy plays no search
    two = _bot(record, 2, "mcts")
    assert two["agent"] == SMALL.mcts
    assert "the value network base, 2 players" in two["evaluator"]
    sha = _core.ValueNet(str(SHIPPED / BASE_NET)).sha256
    assert two["network"] == {"file": BASE_NET, "sha256": sha} and len(sha) == 64
    # Every option written out, the given ones and the defaults.
    options = two["options"]
    assert options.startswith("mcts:") and "iters=20" in options and "memory=16" in options
    keys = {item.split("=")[0] for item in options.removeprefix("mcts:").split(",")}
    assert keys == {o["key"] for o in _core.mcts_options()} - {"time"}  # no time limit: none given
    _core.parse_mcts_options(options.removeprefix("mcts:"))
    four = _bot(record, 4, "mcts+greedy")
    assert four["evaluator"] == "rollouts: no value network for base with 4 players"
    assert four["network"] is None


def test_full_options_take_the_engines_own_defaults() -> None:
    assert agent_options("mcts:select=uct")["c"] == "0.7"  # select=uct without c
    assert agent_options("mcts:select=uct,c=2")["c"] == "2"
    assert agent_options("mcts:eval=net")["prior"] == "net"  # eval=net without prior
    assert agent_options("mcts:eval=net,prior=uniform")["prior"] == "uniform"
    assert "iters" not in agent_options("mcts:time=0.5")  # a time budget alone
    for given in ("select=uct", "eval=net", "time=0.5", "iters=20,memory=16"):
        full = sweep_module.options_text(agent_options(f"mcts:{given}")).removeprefix("mcts:")
        a, b = _core.parse_mcts_options(given), _core.parse_mcts_options(full)
        assert (a.exploration, a.iterations, a.seconds, a.rollout.prior) == (
            b.exploration,
            b.iterations,
            b.seconds,
            b.rollout.prior,
        ), given


def _copy(folder: Path, to: Path) -> Path:
    shutil.copytree(folder, to)
    return to


def test_a_resume_is_refused_when_a_cell_would_play_another_network(
    small: Path, tmp_path: Path, value_dir: Callable[[Path], None]
) -> None:
    copy = _copy(small, tmp_path / "c")
    before = {p.name: p.read_bytes() for p in copy.iterdir()}
    value_dir(_networks(tmp_path / "none"))  # a package without the 2-player base network
    with pytest.raises(SearchError) as refused:
        run_sweep(copy, SMALL, resume=True, progress=False)
    message = str(refused.value)
    assert "base, 2 players, mcts:" in message and "base, 2 players, mcts+greedy:" in message
    assert f"{BASE_NET} (sha256 {_core.ValueNet(str(SHIPPED / BASE_NET)).sha256})" in message
    assert "is not in" in message and "4 players" not in message  # only the cells that differ
    assert {p.name: p.read_bytes() for p in copy.iterdir()} == before
    # Another network under the same name.
    value_dir(_networks(tmp_path / "other", **{BASE_NET: "value-all-city-4p.value"}))
    with pytest.raises(SearchError, match=f"{BASE_NET} of .* is another network"):
        run_sweep(copy, SMALL, resume=True, progress=False)
    assert {p.name: p.read_bytes() for p in copy.iterdir()} == before


def test_every_cell_kind_replays_with_its_recorded_bot(small: Path) -> None:
    stored = read_sweep(small)
    for players in SMALL.players:
        for lineup, _ in SMALL.deals:
            again = _again(replay_deal(small, "base", players, lineup, 0))
            pd.testing.assert_frame_equal(again, _stored(stored, "base", players, lineup, 0))


def test_a_deal_played_without_a_network_replays_when_one_ships_now(
    tmp_path: Path, value_dir: Callable[[Path], None]
) -> None:
    value_dir(_networks(tmp_path / "none"))  # played when no network shipped for 2-player base
    spec = SweepSpec(**{**SMALL.__dict__, "players": (2,), "deals": (("mcts", 1),)})
    folder = run_sweep(tmp_path / "s", spec, progress=False)
    record = json.loads((folder / "_spec.json").read_text())
    assert _bot(record, 2, "mcts")["evaluator"].startswith("rollouts: no value network")
    value_dir(SHIPPED)  # today's package values 2-player base with its network
    today = _again(sweep_module.play_chunk(sweep_module.chunks(spec)[0]).to_pandas())
    stored = _stored(read_sweep(folder), "base", 2, "mcts", 0)
    assert not today.equals(stored)  # today's defaults play otherwise
    pd.testing.assert_frame_equal(_again(replay_deal(folder, "base", 2, "mcts", 0)), stored)


def test_a_replay_says_when_the_cells_network_is_gone_or_changed(
    small: Path, tmp_path: Path, value_dir: Callable[[Path], None]
) -> None:
    value_dir(_networks(tmp_path / "none"))
    with pytest.raises(SearchError, match=f"{BASE_NET} .* is not in"):
        replay_deal(small, "base", 2, "mcts", 0)
    value_dir(_networks(tmp_path / "other", **{BASE_NET: "value-all-city-4p.value"}))
    with pytest.raises(SearchError, match="another network"):
        replay_deal(small, "base", 2, "mcts+greedy", 0)
    replay_deal(small, "base", 4, "mcts", 0)  # a cell without a network plays on


def test_a_chunk_played_by_another_evaluator_than_recorded_is_not_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    spec = SweepSpec(**{**SMALL.__dict__, "players": (2,), "deals": (("mcts+greedy", 1),)})
    monkeypatch.setattr(sweep_module, "probe_evaluator", lambda *_: "rollouts")
    recorded = r"valued its leaves with .*value network.* the spec records 'rollouts'"
    with pytest.raises(SearchError, match=recorded):
        run_sweep(tmp_path / "s", spec, progress=False)
    assert not list((tmp_path / "s").glob("*.parquet"))


def test_an_old_spec_still_reads_and_says_its_bot_is_not_pinned() -> None:
    (record,) = sweep_records(COMMITTED)
    assert "bots" not in record  # played before the bots were recorded
    assert "not pinned" in sweep_module.bots_note(record)
    without_options = {k: v for k, v in record.items() if k != "agents"}
    assert "today's defaults" in sweep_module.bots_note(without_options)
    with pytest.warns(UserWarning, match="not pinned"):
        replay_deal(COMMITTED, "base", 2, "mcts+greedy", 0)
