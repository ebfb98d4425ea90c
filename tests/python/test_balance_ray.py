"""The balance sweep on a Ray cluster of two nodes on this machine (a head and a worker node, one
CPU each) gives the same rows as a local run of the same spec."""

from __future__ import annotations

import logging
import os
import shutil
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pandas as pd
import pytest

from carcassonne.balance import Mix, SweepSpec, read_sweep, run_sweep
from carcassonne.balance.sweep import TIMING_COLUMNS

RAY = shutil.which("ray", path=os.path.dirname(sys.executable)) or shutil.which("ray")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture
def cluster(tmp_path: Path) -> Iterator[str]:
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
