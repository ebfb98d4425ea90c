"""Work on a Ray cluster of two nodes on this machine (a head and a worker node, one CPU each):
the balance sweep and the self-play of the training loop give what a local run of the same
spec gives. One cluster serves the module (it takes seconds to start).

Each test's Ray driver runs in a Python process of its own (`in_a_fresh_driver`). Ray's driver
library keeps threads past `ray.shutdown()`, and a driver started again in the same process has
crashed in them on a busy machine (a segfault in `_raylet.so`, taking pytest down with it)."""

from __future__ import annotations

import json
import logging
import multiprocessing
import os
import shutil
import socket
import subprocess
import sys
import warnings
from collections.abc import Callable, Iterator
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from carcassonne import _core
from carcassonne.balance import Mix, SweepSpec, read_sweep, run_sweep
from carcassonne.balance.sweep import TIMING_COLUMNS
from carcassonne.rl.ray_selfplay import _SelfPlayWorker, network_files, with_network_files
from carcassonne.rl.trajectories import load_trajectories, write_trajectories
from helpers import HANG_GUARD_S, StoppedError

RAY = shutil.which("ray", path=os.path.dirname(sys.executable)) or shutil.which("ray")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def in_a_fresh_driver(work: Callable[..., None], *args: object) -> None:
    """Runs `work(*args)` in a new Python process; its assertion errors come back as they are.
    A process that dies by a signal (Ray's own crash, never an assertion) is run once more, with
    a warning, and fails the test the second time."""
    for attempt in (1, 2):
        with ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn")) as pool:
            try:
                pool.submit(work, *args).result(timeout=10 * HANG_GUARD_S)
                return
            except BrokenProcessPool:
                if attempt == 2:
                    raise
                warnings.warn(f"the Ray driver of {work.__name__} died; running it once more", stacklevel=2)


@pytest.fixture(scope="module")
def cluster() -> Iterator[str]:
    assert RAY, "the ray command line is missing (pip install ray: tools/deps.sh installs it)"
    port = _free_port()
    address = f"127.0.0.1:{port}"
    common = ["--node-ip-address", "127.0.0.1", "--num-cpus", "1", "--disable-usage-stats"]
    env = {**os.environ, "RAY_USAGE_STATS_ENABLED": "0"}

    def ray(*args: str) -> None:
        subprocess.run([RAY, *args], check=True, capture_output=True, env=env, timeout=180)

    try:
        ray("start", "--head", "--port", str(port), "--include-dashboard", "false", *common)
        ray("start", "--address", address, *common)  # a second node
        yield address
    finally:
        subprocess.run([RAY, "stop", "--force"], capture_output=True, env=env, timeout=180)


def test_a_sweep_on_a_two_node_ray_cluster_equals_a_local_run(cluster: str, tmp_path: Path) -> None:
    in_a_fresh_driver(_a_sweep_equals_a_local_run, cluster, tmp_path)


def _a_sweep_equals_a_local_run(cluster: str, tmp_path: Path) -> None:
    import ray

    ray.init(address=cluster, logging_level=logging.WARNING, log_to_driver=False)
    try:
        assert sum(node["Alive"] for node in ray.nodes()) == 2
    finally:
        ray.shutdown()
    spec = SweepSpec(
        mixes=(Mix("base"), Mix("river2", (), (("start", "river2"),))),
        players=(2,),
        deals=(("greedy", 2), ("mcts+greedy", 1)),
        mcts="mcts:iters=15,memory=16",
        chunk_deals=1,
    )
    local = read_sweep(run_sweep(tmp_path / "local", spec, progress=False))
    remote = read_sweep(run_sweep(tmp_path / "ray", spec, address=cluster, progress=False))
    key = ["mix", "players", "lineup", "deal", "rotation", "seat"]
    a = local.sort_values(key).reset_index(drop=True).drop(columns=list(TIMING_COLUMNS))
    b = remote.sort_values(key).reset_index(drop=True).drop(columns=list(TIMING_COLUMNS))
    assert len(a) == 2 * (2 * 2 + 1 * 2) * 2
    pd.testing.assert_frame_equal(a, b)


def test_self_play_on_ray_actors_writes_the_file_a_local_run_writes(cluster: str, tmp_path: Path) -> None:
    in_a_fresh_driver(_self_play_writes_the_file_a_local_run_writes, cluster, tmp_path)


def _self_play_writes_the_file_a_local_run_writes(cluster: str, tmp_path: Path) -> None:
    # A network under a name of the test's own: the actors play with the copy shipped to them.
    network = tmp_path / "mine.carcnet"
    network.write_bytes(Path(_core.default_network_path()).read_bytes())
    agents = [f"mcts:eval=net,net={network},iters=12,memory=16", "mcts:iters=12,memory=16"]
    spec = {"agents": agents, "deals": 3, "expansions": ["abbey-mayor"], "seed": 5, "progress": False}
    local = load_trajectories(write_trajectories(tmp_path / "local.npz", threads=2, **spec))
    remote = load_trajectories(write_trajectories(tmp_path / "ray.npz", address=cluster, **spec))
    assert len(local["deal"]) == 6 and local["visit_count"].sum() > 0
    assert local["config"] == remote["config"]
    for name in local:
        if name != "config":
            np.testing.assert_array_equal(local[name], remote[name], err_msg=name)


def test_a_stopped_self_play_on_ray_plays_only_the_chunks_it_lacks(cluster: str, tmp_path: Path) -> None:
    in_a_fresh_driver(_a_stopped_self_play_resumes, cluster, tmp_path)


def _a_stopped_self_play_resumes(cluster: str, tmp_path: Path) -> None:
    """A stop (here an exception of the test's own, as Ctrl-C would be) once the first chunk back
    from the cluster is kept: the same call again asks the cluster for the other chunks only, and
    the file equals a local run's."""
    from carcassonne.rl import ray_selfplay, trajectories

    spec = {"agents": ["mcts:iters=10,memory=16", "greedy"], "deals": 3, "seed": 6, "progress": False}
    local = load_trajectories(write_trajectories(tmp_path / "local.npz", **spec))
    real_save, real_play = trajectories._ChunkStore.save, ray_selfplay.play_on_ray
    kept: list[int] = []
    asked: list[list[tuple[int, int]]] = []

    def save_then_stop(store, first, games):  # type: ignore[no-untyped-def]
        real_save(store, first, games)
        kept.append(first)
        raise StoppedError

    def play(address, names, chunks, options, on_chunk):  # type: ignore[no-untyped-def]
        asked.append(list(chunks))
        real_play(address, names, chunks, options, on_chunk)

    trajectories._ChunkStore.save = save_then_stop  # type: ignore[method-assign]
    ray_selfplay.play_on_ray = play
    try:
        with pytest.raises(StoppedError):
            write_trajectories(tmp_path / "ray.npz", address=cluster, **spec)
        assert not (tmp_path / "ray.npz").exists() and len(kept) == 1
        trajectories._ChunkStore.save = real_save  # type: ignore[method-assign]
        remote = load_trajectories(write_trajectories(tmp_path / "ray.npz", address=cluster, **spec))
    finally:
        trajectories._ChunkStore.save = real_save  # type: ignore[method-assign]
        ray_selfplay.play_on_ray = real_play
    assert asked[0] == [(0, 1), (1, 1), (2, 1)]
    assert asked[1] == [c for c in asked[0] if c[0] != kept[0]]  # the kept chunk is not played again
    assert local["config"] == remote["config"]
    for name in set(local) - {"config"}:
        np.testing.assert_array_equal(local[name], remote[name], err_msg=name)
    assert not (tmp_path / "ray.npz.chunks").exists()


def test_an_actor_s_error_reaches_the_caller_as_its_own_class(cluster: str, tmp_path: Path) -> None:
    in_a_fresh_driver(_an_actor_s_error_reaches_the_caller, cluster, tmp_path)


def _an_actor_s_error_reaches_the_caller(cluster: str, tmp_path: Path) -> None:
    from carcassonne import SearchError

    with pytest.raises(SearchError, match="bogus"):
        write_trajectories(
            tmp_path / "t.npz", ["mcts:bogus=1", "greedy"], deals=1, address=cluster, progress=False
        )
    assert not (tmp_path / "t.npz").exists()


def test_a_missing_network_is_named_before_the_cluster_is_asked(tmp_path: Path) -> None:
    from carcassonne import SearchError

    missing = tmp_path / "none.carcnet"
    with pytest.raises(SearchError, match=r"none\.carcnet"):
        write_trajectories(
            tmp_path / "t.npz",
            [f"mcts:eval=net,net={missing}", "greedy"],
            address="127.0.0.1:1",
            progress=False,
        )
    assert not (tmp_path / "t.npz").exists()


def test_an_actor_plays_with_its_copy_of_a_shipped_network(tmp_path: Path) -> None:
    # The worker class in this process: the network's path names nothing on this machine.
    shipped = {"/elsewhere/best.carcnet": Path(_core.default_network_path()).read_bytes()}
    worker = _SelfPlayWorker(shipped)
    try:
        names = ["mcts:eval=net,net=/elsewhere/best.carcnet,iters=8,memory=16", "greedy"]
        games = worker.play(names, 0, 1, {"players": 2, "seed": 1, "threads": 1})
        assert len(games) == 2 and all(g.actions for g in games)
        assert sum(sum(n for _, n in pairs) for g in games for pairs in g.visits) > 0
    finally:
        worker.close()
    assert not os.path.exists(worker.folder)


def test_network_files_of_agent_specs_are_found_and_replaced() -> None:
    spec = "mcts:eval=net, net = a/b.carcnet ,iters=400"
    assert network_files(spec) == ["a/b.carcnet"]
    assert network_files("mcts:eval=net,iters=4") == [] and network_files("greedy") == []
    assert (
        with_network_files(spec, {"a/b.carcnet": "/tmp/0.carcnet"})
        == "mcts:eval=net,net=/tmp/0.carcnet,iters=400"
    )
    assert with_network_files("greedy", {}) == "greedy"


def test_the_training_loop_plays_its_self_play_on_the_cluster(cluster: str, tmp_path: Path) -> None:
    in_a_fresh_driver(_the_training_loop_plays_on_the_cluster, cluster, tmp_path)


def _the_training_loop_plays_on_the_cluster(cluster: str, tmp_path: Path) -> None:
    from carcassonne.__main__ import main

    run = tmp_path / "run"
    args = ["train", "--dir", str(run), "--generations", "2", "--games", "1", "--iters", "10"]
    args += ["--epochs", "1", "--gate-games", "1", "--channels", "4", "4", "8", "--hidden", "8"]
    args += ["--quiet", "--address", cluster]
    assert main(args) == 0
    state = json.loads((run / "run.json").read_text())
    assert {"selfplay-0", "selfplay-1", "gate-1"} <= set(state["done"])
    # Generation 1's self-play used generation 0's network, shipped to the actors.
    second = load_trajectories(run / "games-1.npz")
    assert second["config"]["agents"][0].startswith("mcts:eval=net,net=") and len(second["deal"]) == 2
