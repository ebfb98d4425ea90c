"""The VALUE file's header (docs/value.md, search/value.cpp) without PyTorch: mix codes, which
mixes and player counts a file serves, and re-stamping a file with new ones (`python -m
carcassonne value-serve`), its weights untouched."""

from __future__ import annotations

import os
import struct
from collections.abc import Iterable, Sequence
from pathlib import Path

import numpy as np

from .. import SearchError, _core
from ..mixes import DEFAULT_MIXES

FORMAT_VERSION = 5
MAGIC = b"CARCVAL\0"
EVERY_MIX = "every"  # the mix of samples from several mixes, and of a network made for every mix
EVERY_MIX_BIT = 64  # the mix field's bit for a network of every mix (search/value.cpp)
# Bits of the mix field, in the order of search/value.cpp; a mix's code is the sum of its bits.
MIX_BITS = {"abbey-mayor": 1, "anniv20": 2, "city": 4, "king-robber": 8, "river2": 16, "shrines": 32}
EVERY_CODE = (1 << 64) - 1  # the serves mask of every mix code 0..63
_FIELDS = struct.Struct("<6I")  # version, inputs, hidden1, hidden2, mix, players
_SERVES = struct.Struct("<Q")  # version 2: after the players field


def mix_name(expansions: Sequence[str], variants: dict[str, str] | None = None) -> str:
    """The search's name of a mix (ValueMix::name): 'base' or the expansions sorted, joined by '+'.
    A River II or City start counts as that expansion."""
    parts = set(expansions)
    start = (variants or {}).get("start")
    if start == "river2":
        parts.add("river2")
    if start == "city":
        parts.add("city")
    unknown = parts - set(MIX_BITS)
    if unknown:
        raise SearchError(f"unknown expansions {sorted(unknown)} (known: {sorted(MIX_BITS)})")
    return "+".join(sorted(parts)) or "base"


def mix_code(name: str) -> int:
    """The code (the mix field's bits) of a mix named as carcassonne.mixes names it (base, city,
    everything, ...) or as the search does (ValueMix::name, e.g. 'abbey-mayor+city')."""
    for mix in DEFAULT_MIXES:
        if mix.name == name:
            name = mix_name(mix.expansions, dict(mix.variants))
    if name == "base":
        return 0
    code = 0
    for part in name.split("+"):
        if part not in MIX_BITS:
            known = ", ".join(m.name for m in DEFAULT_MIXES)
            raise SearchError(f"unknown mix {name!r} (known: {known}, or expansions joined by '+')")
        code |= MIX_BITS[part]
    return code


def serves_mask(mixes: Iterable[str]) -> int:
    """The serves field of these mix names (mix_code): bit m set for mix code m."""
    mask = 0
    for name in mixes:
        mask |= 1 << mix_code(name)
    if not mask:
        raise SearchError("a value network must serve at least one mix")
    return mask


def players_mask(player_counts: Iterable[int]) -> int:
    """The players field: bit n set for n players (2 to 6)."""
    mask = 0
    for n in player_counts:
        if not 2 <= n <= 6:
            raise SearchError(f"player count {n} outside 2-6")
        mask |= 1 << n
    if not mask:
        raise SearchError("a value network must serve at least one player count")
    return mask


def header(
    inputs: int,
    hidden1: int,
    hidden2: int,
    mix: int,
    players: int,
    serves: int,
    scale: float,
    guess_share: float,
    guess_barns: float = 0.0,
    guess_drawn: bool = False,
) -> bytes:
    """A version 5 header: the fields, the serves mask, the points scale, the hand-made guess's
    share of the network's values at a search's cutoff (in [0, 1)), the weight of the barns in
    that guess (the search's barns=, in [0, 10]) and whether that share is drawn at each cutoff
    rather than mixed in (the search's blendby=sample); the weights follow."""
    if not 0 <= guess_share < 1:
        raise SearchError(f"the hand-made guess's share must be in [0, 1), got {guess_share}")
    if not 0 <= guess_barns <= 10:
        raise SearchError(f"the hand-made guess's barns' weight must be in [0, 10], got {guess_barns}")
    fields = _FIELDS.pack(FORMAT_VERSION, inputs, hidden1, hidden2, mix, players)
    guess = struct.pack("<fffI", scale, guess_share, guess_barns, int(guess_drawn))
    return MAGIC + fields + _SERVES.pack(serves) + guess


def write_checked(path: str | os.PathLike[str], data: bytes) -> Path:
    """Writes a VALUE file next to `path`, reads it back as the search does and only then
    moves it into place: a bad file raises SearchError and leaves `path` as it was."""
    path = Path(path)
    tmp = path.with_suffix(path.suffix + ".tmp")
    tmp.write_bytes(data)
    try:
        _core.ValueNet(str(tmp))
    except BaseException:
        tmp.unlink()
        raise
    os.replace(tmp, path)
    return path


def restamp(
    source: str | os.PathLike[str],
    target: str | os.PathLike[str],
    mixes: Sequence[str],
    player_counts: Sequence[int] | None = None,
    guess_share: float | None = None,
    guess_barns: float | None = None,
    guess_drawn: bool | None = None,
) -> Path:
    """Writes `source`'s network (a VALUE file of any version) to `target` as a version 5 file
    that serves `mixes` (mix_code names) with `player_counts` (default: the source's) and plays
    with `guess_share` of the hand-made guess, counting barns at `guess_barns`, that share drawn
    at each cutoff if `guess_drawn` (defaults: the source's); its scale and weights are copied
    byte for byte. `target` may be `source`."""
    serves = serves_mask(mixes)
    net = _core.ValueNet(str(source))  # refuses a malformed file, naming the problem
    players = players_mask(net.player_counts if player_counts is None else player_counts)
    share = net.guess_share if guess_share is None else guess_share
    barns = net.guess_barns if guess_barns is None else guess_barns
    drawn = net.guess_drawn if guess_drawn is None else guess_drawn
    data = Path(source).read_bytes()
    _, inputs, hidden1, hidden2, mix, _ = _FIELDS.unpack_from(data, len(MAGIC))
    scale, at = _layout(data)
    head = header(inputs, hidden1, hidden2, mix, players, serves, scale, share, barns, drawn)
    return write_checked(target, head + data[at:])


def _layout(data: bytes) -> tuple[float, int]:
    """The points scale and where the weights start (after the guess's share from version 3, its
    barns' weight from version 4 and whether it is drawn from version 5)."""
    version = _FIELDS.unpack_from(data, len(MAGIC))[0]
    at = len(MAGIC) + _FIELDS.size + (_SERVES.size if version >= 2 else 0)
    (scale,) = struct.unpack_from("<f", data, at)
    return scale, at + 4 + 4 * sum(version >= v for v in (3, 4, 5))


def read_weights(path: str | os.PathLike[str]) -> tuple[float, list[np.ndarray]]:
    """The points scale and the layers of a VALUE file (any version), as export wrote them: the
    first layer's weights [hidden1, inputs] (the input normalisation folded in) and bias, the
    second's [hidden2, hidden1] and bias, the output's [2, hidden2] and bias."""
    _core.ValueNet(str(path))  # refuses a malformed file, naming the problem
    data = Path(path).read_bytes()
    _, inputs, hidden1, hidden2, _, _ = _FIELDS.unpack_from(data, len(MAGIC))
    scale, at = _layout(data)
    floats = np.frombuffer(data, "<f4", offset=at)
    layers = []
    for shape in ((hidden1, inputs), (hidden1,), (hidden2, hidden1), (hidden2,), (2, hidden2), (2,)):
        size = int(np.prod(shape))
        layers.append(floats[:size].reshape(shape).astype(np.float32))
        floats = floats[size:]
    return scale, layers
