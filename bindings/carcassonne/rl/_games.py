"""Arena games with full records as plain, picklable Python data: what trajectories keep, played
locally (trajectories.py) or by Ray actors (ray_selfplay.py). Both import this module, not each
other."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, NamedTuple

from .. import arena


class PlainGame(NamedTuple):
    """The parts of an arena GameRecord that trajectories keep, as picklable Python data."""

    deal: int
    rotation: int
    entrant: list[int]
    scores: list[int]
    points: list[list[int]]
    actions: list[int]
    deciders: list[int]
    visits: list[list[tuple[int, int]]]
    search_win: list[list[float]]
    search_reward: list[list[float]]


def plain(record: Any) -> PlainGame:
    return PlainGame(
        int(record.deal),
        int(record.rotation),
        list(record.entrant),
        list(record.scores),
        [list(p) for p in record.points],
        list(record.actions),
        list(record.deciders),
        [list(pairs) for pairs in record.visits],
        [list(w) for w in record.search_win],
        [list(r) for r in record.search_reward],
    )


def play_chunk(names: Sequence[str], first: int, deals: int, options: dict[str, Any]) -> list[PlainGame]:
    """Deals first .. first+deals-1 (each from every seat rotation) with full records."""
    result = arena(list(names), deals=deals, first_deal=first, record_actions=True, **options)
    return [plain(g) for g in result.games]
