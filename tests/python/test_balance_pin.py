"""The bot behind every balance cell is pinned: the spec file records each MCTS cell's full
options, the evaluator that valued its leaves and the value network's file and SHA-256, and the
folder keeps a copy of that network (a merged file embeds it); a resume whose package would play
another evaluator or network is refused, and a deal replays with the recorded bot and that copy,
not today's defaults and networks."""

from __future__ import annotations

import base64
import hashlib
import json
import re
import shutil
from collections.abc import Callable, Iterator
from pathlib import Path

import pandas as pd
import pytest

pytest.importorskip("pyarrow")
import pyarrow.parquet as pq

from carcassonne import SearchError, _core
from carcassonne.balance import Mix, SweepSpec, read_sweep, run_sweep
from carcassonne.balance import replay as replay_module
from carcassonne.balance import sweep as sweep_module
from carcassonne.balance.compensate import check_compensation
from carcassonne.balance.lineups import agent_options, options_text
from carcassonne.balance.networks import NETWORKS_KEY
from carcassonne.balance.replay import bots_note, replay_deal
from carcassonne.balance.sweep import TIMING_COLUMNS, merge_sweep, sweep_records

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
    copy = f"_networks/{sha[:16]}/{BASE_NET}"
    assert two["network"] == {"file": BASE_NET, "sha256": sha, "copy": copy} and len(sha) == 64
    assert (small / copy).read_bytes() == (SHIPPED / BASE_NET).read_bytes()
    assert [p.name for p in (small / "_networks").rglob("*") if p.is_file()] == [BASE_NET]
    # A parquet reader still reads the folder: it skips "_networks" as it skips "_spec.json".
    assert len(pd.read_parquet(small)) == len(read_sweep(small))
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
        full = options_text(agent_options(f"mcts:{given}")).removeprefix("mcts:")
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


def _files(folder: Path) -> dict[str, bytes]:
    """Every file of a folder, its networks' copies too."""
    return {str(p.relative_to(folder)): p.read_bytes() for p in folder.rglob("*") if p.is_file()}


def test_a_resume_is_refused_when_a_cell_would_play_another_network(
    small: Path, tmp_path: Path, value_dir: Callable[[Path], None]
) -> None:
    copy = _copy(small, tmp_path / "c")
    before = _files(copy)
    value_dir(_networks(tmp_path / "none"))  # a package without the 2-player base network
    with pytest.raises(SearchError) as refused:
        run_sweep(copy, SMALL, resume=True, progress=False)
    message = str(refused.value)
    assert "base, 2 players, mcts:" in message and "base, 2 players, mcts+greedy:" in message
    assert f"{BASE_NET} (sha256 {_core.ValueNet(str(SHIPPED / BASE_NET)).sha256})" in message
    assert "is not in" in message and "4 players" not in message  # only the cells that differ
    assert _files(copy) == before
    # Another network under the same name.
    value_dir(_networks(tmp_path / "other", **{BASE_NET: "value-all-city-4p.value"}))
    with pytest.raises(SearchError, match=f"{BASE_NET} of .* is another network"):
        run_sweep(copy, SMALL, resume=True, progress=False)
    assert _files(copy) == before


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


def _replays_as_played(
    sweep: Path, stored: pd.DataFrame, tmp_path: Path, value_dir: Callable[[Path], None]
) -> None:
    """Deal 0 of the 2-player network cells of `sweep` (a folder or merged file) replays as
    `stored` holds it, with the shipped 2-player network swapped for another and then gone."""
    other = _networks(tmp_path / "other", **{BASE_NET: "value-all-city-4p.value"})
    for networks in (other, _networks(tmp_path / "none")):
        value_dir(networks)
        for lineup in ("mcts", "mcts+greedy"):
            again = _again(replay_deal(sweep, "base", 2, lineup, 0))
            pd.testing.assert_frame_equal(again, _stored(stored, "base", 2, lineup, 0))
        replay_deal(sweep, "base", 4, "mcts", 0)  # a cell without a network plays on


def test_a_deal_replays_with_the_sweeps_copy_when_the_shipped_network_is_gone_or_changed(
    small: Path, tmp_path: Path, value_dir: Callable[[Path], None]
) -> None:
    _replays_as_played(small, read_sweep(small), tmp_path, value_dir)


def _without_copies(folder: Path, to: Path) -> Path:
    """A sweep as a version that kept no copies of its networks wrote it."""
    old = _copy(folder, to)
    shutil.rmtree(old / "_networks")
    record = json.loads((old / "_spec.json").read_text())
    for bot in record["bots"]:
        if bot["network"] is not None:
            del bot["network"]["copy"]
    (old / "_spec.json").write_text(json.dumps(record))
    fingerprint = {sweep_module.PART_KEY: sweep_module._fingerprint(record).encode()}
    for part in old.glob("*.parquet"):  # its parts name its spec
        pq.write_table(pq.read_table(part).replace_schema_metadata(fingerprint), part)
    return old


def test_a_sweep_without_copies_replays_only_while_its_network_ships(
    small: Path, tmp_path: Path, value_dir: Callable[[Path], None]
) -> None:
    old = _without_copies(small, tmp_path / "old")
    pd.testing.assert_frame_equal(
        _again(replay_deal(old, "base", 2, "mcts", 0)), _stored(read_sweep(small), "base", 2, "mcts", 0)
    )
    value_dir(_networks(tmp_path / "none"))
    with pytest.raises(SearchError, match=f"{BASE_NET} .* is not in"):
        replay_deal(old, "base", 2, "mcts", 0)
    value_dir(_networks(tmp_path / "other", **{BASE_NET: "value-all-city-4p.value"}))
    with pytest.raises(SearchError, match="another network"):
        replay_deal(old, "base", 2, "mcts+greedy", 0)
    replay_deal(old, "base", 4, "mcts", 0)  # a cell without a network plays on


def test_an_altered_or_missing_copy_is_refused_by_a_replay_and_a_resume(small: Path, tmp_path: Path) -> None:
    copy = _copy(small, tmp_path / "c")
    record = json.loads((copy / "_spec.json").read_text())
    kept = copy / _bot(record, 2, "mcts")["network"]["copy"]
    kept.write_bytes((SHIPPED / "value-all-city-4p.value").read_bytes())  # another network
    before = _files(copy)
    with pytest.raises(SearchError, match=rf"copy {re.escape(str(kept))} holds another file now"):
        replay_deal(copy, "base", 2, "mcts", 0)
    with pytest.raises(SearchError, match="holds another file now"):
        run_sweep(copy, SMALL, resume=True, progress=False)
    assert _files(copy) == before
    kept.unlink()
    with pytest.raises(SearchError, match=rf"copy {re.escape(str(kept))} is missing"):
        replay_deal(copy, "base", 2, "mcts+greedy", 0)
    run_sweep(copy, SMALL, resume=True, progress=False)  # a resume copies the network again
    assert _files(copy) == _files(small)


def test_a_folder_whose_path_an_agent_option_cannot_name_is_refused_clearly(
    small: Path, tmp_path: Path
) -> None:
    with pytest.raises(SearchError, match="cannot name a path with ','; rename the folder"):
        replay_deal(_copy(small, tmp_path / "a,b"), "base", 2, "mcts", 0)


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
    assert "not pinned" in bots_note(record)
    without_options = {k: v for k, v in record.items() if k != "agents"}
    assert "today's defaults" in bots_note(without_options)
    with pytest.warns(UserWarning, match="not pinned"):
        replay_deal(COMMITTED, "base", 2, "mcts+greedy", 0)


# A merged file embeds the networks its bots played, so it replays without the package's files.


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The user's cache folder, where a replay unpacks a merged file's networks."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    return tmp_path / "cache" / "carcassonne" / "networks"


def _embedded(merged: Path) -> dict[str, bytes]:
    text = pq.read_schema(merged).metadata[NETWORKS_KEY]
    return {sha: base64.b64decode(data) for sha, data in json.loads(text).items()}


def _sha(name: str) -> str:
    return hashlib.sha256((SHIPPED / name).read_bytes()).hexdigest()


def test_a_merged_file_replays_with_its_embedded_network_when_the_shipped_one_is_gone_or_changed(
    small: Path, tmp_path: Path, value_dir: Callable[[Path], None], cache: Path
) -> None:
    merged = merge_sweep(small, tmp_path / "m.parquet")
    sha = _sha(BASE_NET)
    assert _embedded(merged) == {sha: (SHIPPED / BASE_NET).read_bytes()}
    stored = read_sweep(small)
    _replays_as_played(merged, stored, tmp_path, value_dir)
    unpacked = cache / sha[:16] / BASE_NET
    assert _files(cache) == {f"{sha[:16]}/{BASE_NET}": (SHIPPED / BASE_NET).read_bytes()}
    unpacked.write_bytes(b"not a network")  # an altered cache is written again, not played
    pd.testing.assert_frame_equal(
        _again(replay_deal(merged, "base", 2, "mcts", 0)), _stored(stored, "base", 2, "mcts", 0)
    )
    assert unpacked.read_bytes() == (SHIPPED / BASE_NET).read_bytes()
    # `balance compensate` plays the cell's bots from the merged file too.
    check = check_compensation(merged, "base", 2, "mcts", points="0,0", deals=1, progress=False)
    assert check.deals == 1


def test_a_merged_file_whose_embedded_network_was_altered_is_refused(
    small: Path, tmp_path: Path, cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    merged = merge_sweep(small, tmp_path / "m.parquet")
    sha = _sha(BASE_NET)
    table = pq.read_table(merged)
    metadata = dict(table.schema.metadata)
    other = base64.b64encode((SHIPPED / "value-all-city-4p.value").read_bytes()).decode()
    metadata[NETWORKS_KEY] = json.dumps({sha: other}).encode()
    pq.write_table(table.replace_schema_metadata(metadata), merged)
    before = merged.read_bytes()

    def no_game(*_: object, **__: object) -> None:
        raise AssertionError("a game was played")

    monkeypatch.setattr(replay_module, "play_chunk", no_game)
    altered = (
        rf"{re.escape(str(merged))} embeds the value network {BASE_NET} under sha256 {sha}, but its bytes"
    )
    for lineup in ("mcts", "mcts+greedy"):  # refused though the shipped network is that one
        with pytest.raises(SearchError, match=altered + r" are another file \(sha256 [0-9a-f]{64}\)"):
            replay_deal(merged, "base", 2, lineup, 0)
    with pytest.raises(SearchError, match=altered):
        check_compensation(merged, "base", 2, "mcts", points="0,0", deals=1, progress=False)
    assert merged.read_bytes() == before and not cache.exists()


def test_merging_a_merged_file_with_another_sweep_keeps_both_networks(
    small: Path, tmp_path: Path, value_dir: Callable[[Path], None], cache: Path
) -> None:
    three = SweepSpec(**{**SMALL.__dict__, "players": (3,), "deals": (("mcts", 1),)})
    other = run_sweep(tmp_path / "three", three, progress=False)
    (bot,) = json.loads((other / "_spec.json").read_text())["bots"]
    assert bot["network"]["sha256"] != _sha(BASE_NET)  # 3-player base games: another network
    first = merge_sweep(small, tmp_path / "first.parquet")
    value_dir(_networks(tmp_path / "none"))  # the 2-player network now comes from `first` alone
    both = merge_sweep([first, other], tmp_path / "both.parquet")
    three_net = (other / bot["network"]["copy"]).read_bytes()
    assert _embedded(both) == {
        _sha(BASE_NET): (SHIPPED / BASE_NET).read_bytes(),
        bot["network"]["sha256"]: three_net,
    }
    shutil.rmtree(other / "_networks")  # neither sweep's own copies are read any more
    stored = read_sweep(both)
    for players, lineup in ((2, "mcts"), (3, "mcts")):
        again = _again(replay_deal(both, "base", players, lineup, 0))
        pd.testing.assert_frame_equal(again, _stored(stored, "base", players, lineup, 0))


def test_merging_an_old_sweep_embeds_its_network_while_it_ships_and_warns_when_it_is_gone(
    small: Path, tmp_path: Path, value_dir: Callable[[Path], None], cache: Path
) -> None:
    old = _without_copies(small, tmp_path / "old")
    shipped = merge_sweep(old, tmp_path / "shipped.parquet")  # read from the package: same hash
    assert _embedded(shipped) == {_sha(BASE_NET): (SHIPPED / BASE_NET).read_bytes()}
    value_dir(_networks(tmp_path / "none"))
    with pytest.warns(UserWarning, match="embeds no copy") as warned:
        gone = merge_sweep(old, tmp_path / "gone.parquet")
    (message,) = [str(w.message) for w in warned]
    assert f"{gone} embeds no copy of a value network" in message
    for lineup in ("mcts", "mcts+greedy"):
        assert f"the cell (base, 2 players, {lineup}) was played with the value network {BASE_NET}" in message
    assert f"{BASE_NET} is not in" in message and "4 players" not in message
    assert _embedded(gone) == {} and len(read_sweep(gone)) == len(read_sweep(old))  # written all the same
    with pytest.raises(SearchError, match=f"{BASE_NET} .* is not in"):
        replay_deal(gone, "base", 2, "mcts", 0)
    pd.testing.assert_frame_equal(
        _again(replay_deal(shipped, "base", 2, "mcts", 0)), _stored(read_sweep(small), "base", 2, "mcts", 0)
    )
