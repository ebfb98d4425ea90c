#!/usr/bin/env bash
# The long reliability run, the figures of the README's "Reliability" section:
#   random games over every rule mix and 2-6 players under ASan + UBSan, State::check_consistency
#   after every move, a position round trip and the end-of-game checks in every game;
#   MCTS searches with 2 threads at random nodes of every mix under TSan.
# Usage: bash tools/soak.sh [moves, default 10000000] [searches, default 1000]
# Progress lines carry an ETA and the --from value that resumes a stopped run:
#   ./build-soak-asan/carc_soak moves N --from G,  ./build-soak-tsan/carc_soak searches N --from S
set -euo pipefail
cd "$(dirname "$0")/.."
source tools/deps.sh
moves=${1:-10000000}
searches=${2:-1000}
jobs=${JOBS:-2}

# Optimised (-O2) with the asserts on: the sanitizers find the same faults, ten times sooner.
soak_build() {
  cmake -S . -B "$1" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O2 -g" \
    -DCARC_SANITIZE="$2" -DCARC_BENCH=OFF -DCARC_WERROR=ON >/dev/null
  cmake --build "$1" -j "$jobs" --target carc_soak
}
soak_build build-soak-asan address,undefined
start=$(date +%s)
./build-soak-asan/carc_soak moves "$moves"
echo "ASan + UBSan: $moves moves in $(($(date +%s) - start)) s"

soak_build build-soak-tsan thread
start=$(date +%s)
TSAN_OPTIONS=halt_on_error=1 ./build-soak-tsan/carc_soak searches "$searches"
echo "TSan: $searches searches in $(($(date +%s) - start)) s"
