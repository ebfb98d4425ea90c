"""Rule mixes of a balance sweep: the Mix record and the default sweep's mixes. Needs nothing of
the `balance` extra, so the command line's help can list them."""

from __future__ import annotations

from dataclasses import dataclass


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
