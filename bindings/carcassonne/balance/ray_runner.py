"""Runs a sweep's chunks on a Ray cluster: one task per chunk, each playing its arena run on one
thread (so its rows are those of a local run of the same spec), results streamed back as they
finish. The cluster's workers need this package installed (the same version); the driver writes
the part files, so the parquet folder lives only where the command runs.

It knows nothing of sweeps: run_sweep (sweep.py) hands it the function that plays a chunk."""

from __future__ import annotations

import logging
import socket
from collections.abc import Callable, Iterator, Sequence
from typing import Any, TypeVar

from .._core import SearchError

Chunk = TypeVar("Chunk")
# How long the cluster's head may take to accept a connection before the sweep gives up.
CONNECT_SECONDS = 10.0


def check_reachable(address: str, timeout: float = CONNECT_SECONDS) -> None:
    """Raises SearchError when nothing answers at a "host:port" address within `timeout` (ray.init
    would wait for minutes). "auto" and ray:// addresses are left to Ray, which fails fast."""
    host, sep, port = address.rpartition(":")
    if address == "auto" or "://" in address or not sep:
        return
    if not port.isdigit():
        raise SearchError(f"--address takes 'auto' or host:port, not '{address}'")
    try:
        socket.create_connection((host.strip("[]"), int(port)), timeout=timeout).close()
    except OSError as e:
        raise SearchError(f"no Ray cluster answers at {address} ({e}); is `ray start --head` running?") from e


def ray_runner(
    address: str, play: Callable[[Chunk, int], Any]
) -> Callable[[Sequence[Chunk]], Iterator[tuple[Chunk, Any]]]:
    """A runner for run_sweep on the Ray cluster at `address` ("auto": the one this machine
    belongs to, or "host:port" of its head): `play(chunk, threads)` runs in a task per chunk,
    on one thread. Checks at once that the cluster answers (SearchError)."""
    import ray

    check_reachable(address)

    def run(todo: Sequence[Chunk]) -> Iterator[tuple[Chunk, Any]]:
        if not todo:
            return
        ray.init(address=address, logging_level=logging.WARNING, log_to_driver=False)
        pending: dict[ray.ObjectRef, Chunk] = {}
        try:

            def play_on_one_thread(chunk: Chunk) -> Any:  # as a local run's chunk: same rows
                return play(chunk, 1)

            task = ray.remote(num_cpus=1)(play_on_one_thread)
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
