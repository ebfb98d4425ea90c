"""The package's modules import each other without circles: each import, at the top of a module,
inside a function or for type checking only, is an edge of a graph that must have no cycle; and
each module imports first in a fresh interpreter."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

import carcassonne

PACKAGE = Path(carcassonne.__file__).parent


def module_names() -> dict[str, Path | None]:
    """Every module of the package by dotted name (the C++ extension without a source)."""
    names: dict[str, Path | None] = {"carcassonne._core": None}
    for path in PACKAGE.rglob("*.py"):
        parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        names[".".join(parts)] = path
    return names


def imported_by(name: str, path: Path, modules: dict[str, Path | None]) -> set[str]:
    """The package's modules that `name` imports anywhere in its source. `from X import y` is an
    edge to module X.y if there is one, else to X (a name its __init__ defines); the implicit
    import of a module's parent packages is no edge (every submodule would close a circle)."""
    package = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
    edges = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            edges |= {a.name for a in node.names if a.name.split(".")[0] == "carcassonne"}
        elif isinstance(node, ast.ImportFrom):
            base = package[: len(package) - node.level + 1] if node.level else []
            target = ".".join(base + ([node.module] if node.module else []))
            if target.split(".")[0] == "carcassonne":
                edges |= {
                    f"{target}.{a.name}" if f"{target}.{a.name}" in modules else target for a in node.names
                }
    return edges - {name}


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Each circle found by a depth-first search, as the path that closes it."""
    found, done, path = [], set(), []

    def visit(node: str) -> None:
        if node in path:
            found.append(path[path.index(node) :] + [node])
            return
        if node in done:
            return
        path.append(node)
        for nxt in sorted(graph.get(node, ())):
            visit(nxt)
        path.pop()
        done.add(node)

    for node in sorted(graph):
        visit(node)
    return found


def test_the_module_graph_has_no_cycle() -> None:
    modules = module_names()
    graph = {name: imported_by(name, path, modules) for name, path in modules.items() if path is not None}
    assert graph["carcassonne.game"] and graph["carcassonne.rl.trajectories"]  # the parser sees imports
    assert cycles(graph) == []


def test_the_cycle_check_finds_a_circle() -> None:
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c", "a"]]
    assert cycles({"a": {"b"}, "b": set(), "c": {"a", "b"}}) == []


@pytest.mark.parametrize(
    "module",
    [
        "carcassonne.game",
        "carcassonne.agents",
        "carcassonne.search",
        "carcassonne.render.board",
        "carcassonne.rl",
    ],
)
def test_each_module_imports_first_in_a_fresh_interpreter(module: str) -> None:
    code = f"import importlib; importlib.import_module({module!r}); print('ok')"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0 and out.stdout.strip() == "ok", out.stderr
