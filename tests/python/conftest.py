"""Fixtures for the Python tests."""

from __future__ import annotations

import random
from collections.abc import Iterator

import pytest


@pytest.fixture
def rng() -> random.Random:
    return random.Random(12345)


@pytest.fixture(autouse=True, scope="session")
def _user_cache(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """The user's cache folder (where a merged sweep's replay unpacks its value networks) is a
    temporary one: tests write nothing into the home folder."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("XDG_CACHE_HOME", str(tmp_path_factory.mktemp("cache")))
        yield
