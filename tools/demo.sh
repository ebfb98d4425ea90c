#!/usr/bin/env bash
# The main job for now: installs the package and plays a few self-play games between the greedy
# and the random bot, printing the scores. (The play server replaces this in a later issue.)
set -euo pipefail
cd "$(dirname "$0")/.."
source tools/deps.sh
CMAKE_BUILD_PARALLEL_LEVEL=${JOBS:-2} python3 -m pip install -q --disable-pip-version-check --no-build-isolation .
python3 -m carcassonne selfplay --games 6 --agents greedy,random "$@"
