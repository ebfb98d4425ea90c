#!/usr/bin/env bash
# The main job: installs what playing needs (the build's Debian packages; the package with its
# play server, FastAPI and uvicorn, into .venv) and starts the play server. Open the printed URL
# to play against the computer; Ctrl-C stops it.
# Options go to `carcassonne serve` (--host, --port, --data DIR, --allowed-host NAME, ...: see its --help).
set -euo pipefail
cd "$(dirname "$0")/.."
CARC_DEPS=play source tools/deps.sh
# build-dir keeps the CMake tree, so a second start rebuilds only what changed.
CMAKE_BUILD_PARALLEL_LEVEL=${JOBS:-2} python -m pip install -q --disable-pip-version-check \
  --no-build-isolation --config-settings=build-dir=build/python ".[play]"
exec carcassonne serve "$@"
