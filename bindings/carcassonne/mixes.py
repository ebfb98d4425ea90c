"""The named rule mixes that balance sweeps and the learned value's grid cover: the base game,
each expansion alone and everything together. Standard library only: every extra may import it."""

from __future__ import annotations

from dataclasses import dataclass

from . import SearchError


@dataclass(frozen=True)
class Mix:
    """A rule mix: a name for tables and plots, the expansions and the variants."""

    name: str
    expansions: tuple[str, ...] = ()
    variants: tuple[tuple[str, str], ...] = ()


# The default sweep's mixes: the base game, each expansion alone (Count, King & Robber in its
# parts: the City start, King & Robber, the shrines, River II) and everything with the City start
# (River II cannot be played with the City, CK-0).
DEFAULT_MIXES = (
    Mix("base"),
    Mix("abbey-mayor", ("abbey-mayor",)),
    Mix("city", (), (("start", "city"),)),
    Mix("king-robber", ("king-robber",)),
    Mix("shrines", ("shrines",)),
    Mix("river2", (), (("start", "river2"),)),
    Mix("anniv20", ("anniv20",)),
    Mix("everything", ("abbey-mayor", "king-robber", "shrines", "anniv20"), (("start", "city"),)),
)


def find_mix(name: str) -> Mix:
    """The mix of DEFAULT_MIXES with this name; SearchError listing them for another."""
    for mix in DEFAULT_MIXES:
        if mix.name == name:
            return mix
    raise SearchError(f"unknown mix {name!r} (known: {', '.join(m.name for m in DEFAULT_MIXES)})")
