#!/usr/bin/env bash
# The main job: installs what it needs (the package with its play server: FastAPI, uvicorn) and
# starts the play server. Open the printed URL to play against the computer; Ctrl-C stops it.
# Options go to `python -m carcassonne serve` (--host, --port, --data DIR).
set -euo pipefail
cd "$(dirname "$0")/.."
source tools/deps.sh
CMAKE_BUILD_PARALLEL_LEVEL=${JOBS:-2} python3 -m pip install -q --disable-pip-version-check --no-build-isolation ".[play]"
exec python3 -m carcassonne serve "$@"
