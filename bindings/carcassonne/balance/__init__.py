"""Balance analysis of rule mixes: sweeps of bot games (sweep.py; their line-ups in lineups.py,
the value networks their bots play in networks.py, replays of their deals in replay.py; on a Ray
cluster with ray_runner.py), statistics with intervals over deals (stats.py), a designer's answers
(answers.py: compensation, bot strength and the edge, luck and skill, game flow, tile value,
spread; by_strength.py: each answer per bot strength and skill gap, and whether it holds across
them) and an HTML report (report.py, its answers' sections in report_answers.py).
Needs the `balance` extra: pip install 'carcassonne[balance]'.

    from carcassonne.balance import SweepSpec, run_sweep, read_sweep
    run_sweep("sweep.parquet", SweepSpec(players=(2,), deals=(("greedy", 20),)))
    rows = read_sweep("sweep.parquet")   # one row per game and seat (pandas)

The names below load the module that holds them (and so pyarrow) on first use, so that the
command line's parser (cli.py) works without the extra.
"""

from __future__ import annotations

import importlib
from typing import Any

__all__ = [
    "DEFAULT_MIXES",
    "LINEUPS",
    "Chunk",
    "Mix",
    "SweepSpec",
    "chunks",
    "play_chunk",
    "read_sweep",
    "replay_deal",
    "run_sweep",
    "sweep_records",
]
# The names above that another module than sweep.py holds.
_ELSEWHERE = {"LINEUPS": "lineups", "replay_deal": "replay"}


def __getattr__(name: str) -> Any:
    if name in __all__:
        module = importlib.import_module(f".{_ELSEWHERE.get(name, 'sweep')}", __name__)
        return getattr(module, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
