"""Self-play on a Ray cluster (write_trajectories(address=...), `train --address`): one actor a
CPU, each playing chunks of deals on one thread and sending their games back as plain data.

The agents' network files (`net=PATH`) are read where the command runs and shipped to every
actor, which writes them to a temporary folder of its own and plays with that copy: a worker on
another machine needs this package installed (the same version), not the run's folder."""

from __future__ import annotations

import logging
import os
import shutil
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from .. import SearchError
from ._games import PlainGame, play_chunk


def network_files(spec: str) -> list[str]:
    """The values of an agent spec's net= options ("mcts:eval=net,net=a.carcnet" -> ["a.carcnet"])."""
    _, _, options = spec.partition(":")
    files = []
    for item in options.split(","):
        key, sep, value = item.partition("=")
        if sep and key.strip() == "net":
            files.append(value.strip())
    return files


def with_network_files(spec: str, local: dict[str, str]) -> str:
    """The spec with each net= file replaced by its copy in `local` (original path -> copy)."""
    name, colon, options = spec.partition(":")
    if not colon:
        return spec
    items = []
    for item in options.split(","):
        key, sep, value = item.partition("=")
        items.append(f"net={local[value.strip()]}" if sep and key.strip() == "net" else item)
    return f"{name}:{','.join(items)}"


class _SelfPlayWorker:
    """A Ray actor's state: the shipped networks, written once to a folder of its own."""

    def __init__(self, networks: dict[str, bytes]) -> None:
        self.folder = tempfile.mkdtemp(prefix="carcassonne-networks-")
        self.local: dict[str, str] = {}
        for i, (path, data) in enumerate(sorted(networks.items())):
            copy = os.path.join(self.folder, f"{i}.carcnet")
            Path(copy).write_bytes(data)
            self.local[path] = copy

    def play(self, names: Sequence[str], first: int, deals: int, options: dict[str, Any]) -> list[PlainGame]:
        return play_chunk([with_network_files(n, self.local) for n in names], first, deals, options)

    def close(self) -> None:
        shutil.rmtree(self.folder, ignore_errors=True)


def play_on_ray(
    address: str,
    names: Sequence[str],
    chunks: Sequence[tuple[int, int]],
    options: dict[str, Any],
    on_chunk: Callable[[int, list[PlainGame]], None],
) -> None:
    """Plays the chunks ((first deal, deals) pairs) on the cluster at `address` ("auto", or
    "host:port" of its head), calling on_chunk(first deal, games) as each chunk comes back (in
    the order they finish); the games are those a local run gives. Ctrl-C or an error stops
    the cluster's work at once."""
    try:
        import ray
        from ray.exceptions import RayTaskError
    except ImportError as e:
        raise SearchError(f"self-play on a Ray cluster needs ray (pip install ray): {e}") from e
    networks: dict[str, bytes] = {}
    for spec in names:
        for path in network_files(spec):
            try:
                networks[path] = Path(path).read_bytes()
            except OSError as e:
                raise SearchError(f"cannot read the network {path} to ship it to the cluster: {e}") from e
    ray.init(address=address, logging_level=logging.WARNING, log_to_driver=False)
    actors: list[Any] = []
    try:
        worker = ray.remote(num_cpus=1)(_SelfPlayWorker)
        cpus = int(ray.cluster_resources().get("CPU", 1))
        shipped = ray.put(networks)
        actors = [worker.remote(shipped) for _ in range(max(1, min(cpus, len(chunks))))]
        todo = list(chunks)
        pending: dict[Any, tuple[Any, int]] = {}

        def give(actor: Any) -> None:
            first, deals = todo.pop(0)
            pending[actor.play.remote(list(names), first, deals, options)] = (actor, first)

        for actor in actors:
            if todo:
                give(actor)
        while pending:
            ready, _ = ray.wait(list(pending), num_returns=1)
            for ref in ready:
                actor, first = pending.pop(ref)
                try:
                    games = ray.get(ref)
                except RayTaskError as e:  # the worker's own error (a bad agent spec, say)
                    raise (e.cause if isinstance(e.cause, Exception) else e) from e
                on_chunk(first, games)
                if todo:
                    give(actor)
        ray.get([actor.close.remote() for actor in actors])
    finally:
        for actor in actors:
            ray.kill(actor)
        ray.shutdown()
