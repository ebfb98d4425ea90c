"""Bot thinking slots: searches are CPU-bound, so at most `size` bots think at once (leaving a
core for the server), and a game with a human waiting gets the next free slot before games of
bots only."""

from __future__ import annotations

import itertools
import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager


class ThinkingSlots:
    def __init__(self, size: int) -> None:
        self._free = size
        self._waiting: list[tuple[int, int]] = []  # (priority, arrival): lowest first
        self._arrivals = itertools.count()
        self._changed = threading.Condition()

    @contextmanager
    def slot(self, priority: int) -> Iterator[None]:
        """Holds a slot for the block; lower `priority` goes first, then first come."""
        me = (priority, next(self._arrivals))
        with self._changed:
            self._waiting.append(me)
            while not (self._free and min(self._waiting) == me):
                self._changed.wait()
            self._waiting.remove(me)
            self._free -= 1
            self._changed.notify_all()  # the next in line may take another free slot
        try:
            yield
        finally:
            with self._changed:
                self._free += 1
                self._changed.notify_all()


BOT_SLOTS = ThinkingSlots(max(1, (os.cpu_count() or 2) - 1))
