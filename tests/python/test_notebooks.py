"""The notebooks of experiments/notebooks run from top to bottom (short versions:
CARC_NOTEBOOK_SMALL=1), executed by nbclient in a fresh kernel."""

from __future__ import annotations

from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

NOTEBOOKS = sorted((Path(__file__).parents[2] / "experiments" / "notebooks").glob("*.ipynb"))


def test_the_notebooks_are_found() -> None:
    assert {p.name for p in NOTEBOOKS} >= {
        "quickstart.ipynb",
        "value_learning.ipynb",
        "bring_your_own_model.ipynb",
    }


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_notebook_runs(path: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CARC_NOTEBOOK_SMALL", "1")  # the kernel inherits the environment
    notebook = nbformat.read(path, as_version=4)
    NotebookClient(
        notebook, timeout=300, kernel_name="python3", resources={"metadata": {"path": str(tmp_path)}}
    ).execute()
    errors = [o for c in notebook.cells for o in c.get("outputs", []) if o.get("output_type") == "error"]
    assert not errors


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_notebooks_use_the_public_api(path: Path) -> None:
    code = [c.source for c in nbformat.read(path, as_version=4).cells if c.cell_type == "code"]
    assert not [line for source in code for line in source.splitlines() if "_core." in line]
