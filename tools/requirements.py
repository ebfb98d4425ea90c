"""Prints the Python requirements of the named extras of pyproject.toml, one a line, so that the
install scripts take them from the one list the package declares (`build` names the build
system's requirements). An extra may name others of this package: `carcassonne[play,balance]`.

    python tools/requirements.py build play      # what `bash tools/play.sh` installs
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib  # type: ignore[no-redef]

PROJECT = tomllib.loads((Path(__file__).resolve().parent.parent / "pyproject.toml").read_text())
NAME = PROJECT["project"]["name"]
SELF = re.compile(rf"^{re.escape(NAME)}\[([^\]]*)\]$")


def requirements(group: str, seen: set[str]) -> list[str]:
    if group in seen:
        return []
    seen.add(group)
    if group == "build":
        return list(PROJECT["build-system"]["requires"])
    extras = PROJECT["project"]["optional-dependencies"]
    if group not in extras:
        sys.exit(f"requirements.py: no extra {group!r} in pyproject.toml (extras: {', '.join(extras)})")
    out: list[str] = []
    for req in extras[group]:
        inner = SELF.match(req.replace(" ", ""))
        if inner:
            for name in inner.group(1).split(","):
                out += requirements(name, seen)
        else:
            out.append(req)
    return out


if __name__ == "__main__":
    seen: set[str] = set()
    reqs = [r for group in sys.argv[1:] for r in requirements(group, seen)]
    print("\n".join(dict.fromkeys(reqs)))
