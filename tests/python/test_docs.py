"""The documentation's examples run: every Python block of the README and of the docs pages
that show whole programs, in a fresh namespace each, as a reader would paste them."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PAGES = ["README.md", "docs/search.md", "docs/research.md"]
BLOCK = re.compile(r"^```python\n(.*?)^```", re.S | re.M)


def blocks() -> list[tuple[str, int, str]]:
    found = []
    for page in PAGES:
        for i, match in enumerate(BLOCK.finditer((ROOT / page).read_text())):
            found.append((page, i, match.group(1)))
    return found


@pytest.mark.parametrize(("page", "index", "code"), blocks(), ids=lambda v: str(v)[:20])
def test_python_example_runs(page: str, index: int, code: str) -> None:
    exec(compile(code, f"{page} block {index}", "exec"), {"__name__": "__doc_example__"})


def test_the_pages_have_examples() -> None:
    """A renamed page or a changed fence would silently leave nothing to run."""
    assert {page for page, _, _ in blocks()} == set(PAGES)
