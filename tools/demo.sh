#!/usr/bin/env bash
# The main job for now: installs the package and plays a few self-play games between the MCTS
# player (20,000 iterations a move, about 0.1 s) and the greedy bot, printing the scores.
# (The play server replaces this in a later issue.)
set -euo pipefail
cd "$(dirname "$0")/.."
source tools/deps.sh
CMAKE_BUILD_PARALLEL_LEVEL=${JOBS:-2} python3 -m pip install -q --disable-pip-version-check --no-build-isolation .
python3 -m carcassonne selfplay --games 4 --agents mcts:iters=20000,greedy "$@"
