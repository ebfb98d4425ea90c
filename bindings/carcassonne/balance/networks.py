"""The bots behind a sweep's MCTS cells and the value networks they play: what values a bot's
leaves in a cell (probe_evaluator) and which network file that is (value_network); the copy of
each network a sweep folder keeps (NETWORKS_FOLDER, keep_networks) and a merged file embeds
(NETWORKS_KEY, embedded_network, unpacked into networks_cache() to be read); and the file that
holds a recorded bot's network, checked against its SHA-256 (network_file).
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
import re
import warnings
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq

from .. import SearchError, _core, make_config
from ..mixes import Mix
from .lineups import _options_of, options_text

# The key of a merged file's parquet metadata that holds the value networks its bots played:
# JSON {SHA-256: the file's bytes in base64}.
NETWORKS_KEY = b"carcassonne.networks"
# The folder of a sweep that keeps a copy of every value network its bots play, so its deals
# replay after the package's networks change; "_": parquet readers skip it (they would fail on
# its files).
NETWORKS_FOLDER = "_networks"


def probe_evaluator(options: dict[str, str], mix: Mix, players: int, seed: int) -> str:
    """What the MCTS agent of these options values its leaves with in the games of a cell (the
    engine's SearchResult.evaluator of one iteration at the cell's first position: it depends
    only on the rules and the player count)."""
    probe = {**options, "iters": "1", "threads": "1", "time": "0", "memory": "1"}
    state = _core.State(make_config(players, mix.expansions, dict(mix.variants), seed))
    while state.is_chance():  # a search starts at a decision
        state.apply(state.legal_actions()[0])
    search = _core.Mcts(_core.parse_mcts_options(options_text(probe).partition(":")[2]))
    return str(search.search(state).evaluator)


# "... the value network base, 2 players (value-base.value, sha256 0bd9e930313baf2b)": the file
# and the first 16 digits of its SHA-256 (ValueNet.describe).
_NETWORK_NAMED = re.compile(r"the value network .*\((?P<file>[^()]+), sha256 (?P<sha>[0-9a-f]+)\)")


def _network_named(evaluator: str) -> tuple[str, str] | None:
    """The value network's file name and SHA-256 digits an evaluator names, None for rollouts."""
    found = _NETWORK_NAMED.search(evaluator)
    return (found["file"], found["sha"]) if found else None


def _network_path(options: dict[str, str], file: str) -> Path:
    """Where a network of this name is read from: the value= file given, else the file of that
    name in the values= folder given (@NAME: the folder NAME among the shipped networks), else
    the shipped one."""
    if options.get("value"):
        return Path(options["value"])
    shipped = Path(_core.value_net_dir())
    folder = options.get("values", "")
    if folder:
        return (shipped / folder[1:] if folder.startswith("@") else Path(folder)) / file
    return shipped / file


def value_network(evaluator: str, options: dict[str, str]) -> dict[str, str] | None:
    """The file name and full SHA-256 of the value network an evaluator names, and where the sweep
    keeps its copy (relative to the sweep folder; by hash, so networks of one name stay apart);
    None for rollouts."""
    named = _network_named(evaluator)
    if named is None:
        return None
    file, digits = named
    sha = str(_core.ValueNet(str(_network_path(options, file))).sha256)
    if not sha.startswith(digits):  # the search read another file than the one found here
        raise SearchError(f"the search played the value network {file} (sha256 {digits}...), not {sha}")
    return {"file": file, "sha256": sha, "copy": f"{NETWORKS_FOLDER}/{sha[:16]}/{file}"}


def _cell_name(bot: dict[str, Any]) -> str:
    return f"{bot['mix']}, {bot['players']} players, {bot['lineup']}"


def keep_networks(folder: Path, bots: Sequence[dict[str, Any]]) -> None:
    """Copies the value network of every bot that plays one into the sweep folder (its record's
    "copy"; atomic writes), from where the search reads it; a copy kept from an earlier run must
    still hold that network (SearchError)."""
    for bot in bots:
        network = bot["network"]
        if network is None:
            continue
        target = folder / network["copy"]
        if target.exists():
            network_file(bot, folder)  # refuses an altered copy
            continue
        data = _network_path(_options_of(bot["options"]), network["file"]).read_bytes()
        if hashlib.sha256(data).hexdigest() != network["sha256"]:  # replaced since the bots were found
            raise SearchError(f"{network['file']} changed while the sweep started: run it again")
        target.parent.mkdir(parents=True, exist_ok=True)
        tmp = target.with_name(f".{target.name}.tmp")
        tmp.write_bytes(data)
        os.replace(tmp, target)


def network_file(bot: dict[str, Any], sweep: Path | None) -> Path:
    """The file that holds a recorded bot's value network: the copy a sweep folder keeps where the
    record names one, the copy unpacked into the cache (networks_cache) where `sweep` is a merged
    file that embeds it, else where the bot's options read it (a sweep of an older version, a
    merged file that does not embed it, a spec record); SearchError when that file is missing or
    holds another network, or when the merged file's embedded bytes are another network."""
    network = bot["network"]
    played = (
        f"the cell ({_cell_name(bot)}) was played with the value network {network['file']} "
        f"(sha256 {network['sha256']})"
    )
    if sweep is not None and sweep.is_file():
        data = embedded_network(sweep, network)
        path = None if data is None else _unpacked(network, data)
    elif sweep is not None and "copy" in network:
        path = sweep / network["copy"]
    else:
        path = None
    if path is None:
        gone = _network_now(bot)
        if gone:
            raise SearchError(f"{played}, and {gone}: its deals cannot be replayed as they were played")
        return _network_path(_options_of(bot["options"]), network["file"])
    if not path.is_file():
        raise SearchError(f"{played}, and the sweep's copy {path} is missing: its deals cannot be replayed")
    sha = hashlib.sha256(path.read_bytes()).hexdigest()
    if sha != network["sha256"]:
        raise SearchError(
            f"{played}, and the sweep's copy {path} holds another file now (sha256 {sha}): its deals "
            "cannot be replayed"
        )
    return path


def embedded_network(merged: Path, network: dict[str, str]) -> bytes | None:
    """The bytes of a recorded network (a bot's "network") that a merged file embeds, None when it
    embeds none of that SHA-256 (a file of an older version, a network not found at its merge);
    SearchError when the embedded bytes hash otherwise (a damaged or altered file)."""
    text = (pq.read_schema(merged).metadata or {}).get(NETWORKS_KEY)
    encoded = json.loads(text).get(network["sha256"]) if text else None
    if encoded is None:
        return None
    data = base64.b64decode(encoded)
    sha = hashlib.sha256(data).hexdigest()
    if sha != network["sha256"]:
        raise SearchError(
            f"{merged} embeds the value network {network['file']} under sha256 {network['sha256']}, but "
            f"its bytes are another file (sha256 {sha}): the merged file is damaged, its deals cannot "
            "be replayed with that network"
        )
    return data


def networks_cache() -> Path:
    """The folder where a replay unpacks the networks a merged file embeds, so the search can read
    them: carcassonne/networks in the user's cache folder ($XDG_CACHE_HOME, else ~/.cache)."""
    base = os.environ.get("XDG_CACHE_HOME", "")
    root = Path(base) if os.path.isabs(base) else Path.home() / ".cache"  # the XDG rule: absolute only
    return root / "carcassonne" / "networks"


def _unpacked(network: dict[str, str], data: bytes) -> Path:
    """A file holding a network's bytes (already checked against its SHA-256): its copy in the
    cache, by hash as a sweep folder keeps it, written once (atomically; rewritten when the
    cached file holds other bytes)."""
    target = networks_cache() / network["sha256"][:16] / network["file"]
    try:
        if target.is_file() and target.read_bytes() == data:
            return target
        target.parent.mkdir(parents=True, exist_ok=True)
        tmp = target.with_name(f".{target.name}.{os.getpid()}.tmp")  # per process: replays may race
        tmp.write_bytes(data)
        os.replace(tmp, target)
    except OSError as e:
        raise SearchError(
            f"cannot unpack the value network {network['file']} into {target.parent} ({e}); set "
            "XDG_CACHE_HOME to a folder you can write"
        ) from e
    return target


def _network_now(bot: dict[str, Any]) -> str:
    """Whether the value network a bot played is still where the search reads it: "" when it
    is, else what became of it."""
    network = bot["network"]
    path = _network_path(_options_of(bot["options"]), network["file"])
    if not path.is_file():
        return f"{network['file']} is not in {path.parent} any more"
    sha = _core.ValueNet(str(path)).sha256
    if sha == network["sha256"]:
        return ""
    return f"{network['file']} of {path.parent} is another network (sha256 {sha})"


def _embedded_networks(bots: Sequence[tuple[Path, dict[str, Any]]], target: Path) -> dict[str, str]:
    """The value networks of the bots (each with the sweep folder or merged file that recorded
    it) as a merged file embeds them, {SHA-256: base64 of the file}, each found by network_file;
    warns naming every cell whose network none of its sweeps could give."""
    networks: dict[str, str] = {}
    lost: dict[str, list[str]] = {}  # by SHA-256: why each cell's copy was not found
    for source, bot in bots:
        sha = bot["network"]["sha256"]
        if sha in networks:
            continue
        try:
            data = network_file(bot, source).read_bytes()
        except SearchError as e:
            lost.setdefault(sha, []).append(str(e))
            continue
        if hashlib.sha256(data).hexdigest() != sha:  # replaced since network_file checked it
            lost.setdefault(sha, []).append(
                f"the cell ({_cell_name(bot)}): {bot['network']['file']} changed while it was read"
            )
            continue
        networks[sha] = base64.b64encode(data).decode()
    missing = [why for sha, whys in lost.items() if sha not in networks for why in whys]
    if missing:
        warnings.warn(
            f"{target} embeds no copy of a value network its bots played, so: {'; '.join(missing)}",
            stacklevel=3,
        )
    return networks
