"""Runs a sweep's chunks on a Ray cluster: one task per chunk, each playing its arena run on one
thread (so its rows are those of a local run of the same spec), results streamed back as they
finish. The cluster's workers need this package installed (the same version); the driver writes
the part files, so the parquet folder lives only where the command runs."""

from __future__ import annotations

import logging
from collections.abc import Iterator, Sequence

import pyarrow as pa

from .sweep import Chunk, Runner, play_chunk


def _play(chunk: Chunk) -> pa.Table:
    return play_chunk(chunk, threads=1)


def ray_runner(address: str) -> Runner:
    """A runner for run_sweep on the Ray cluster at `address` ("auto": the one this machine
    belongs to, or "host:port" of its head)."""
    import ray

    def run(todo: Sequence[Chunk]) -> Iterator[tuple[Chunk, pa.Table]]:
        if not todo:
            return
        ray.init(address=address, logging_level=logging.WARNING, log_to_driver=False)
        pending: dict[ray.ObjectRef, Chunk] = {}
        try:
            task = ray.remote(num_cpus=1)(_play)
            pending = {task.remote(chunk): chunk for chunk in todo}
            while pending:
                ready, _ = ray.wait(list(pending), num_returns=1)
                for ref in ready:
                    chunk = pending.pop(ref)
                    yield chunk, ray.get(ref)
        finally:
            for ref in list(pending):  # Ctrl-C or an error: stop the cluster's work at once
                ray.cancel(ref, force=True)
            ray.shutdown()

    return run
