#!/usr/bin/env bash
# Coverage-guided fuzzing (libFuzzer, clang, ASan + UBSan) of the engine's input surfaces:
#   carc_fuzz_moves        games whose every draw and decision the input chooses, every rule mix,
#                          2-6 players, every invariant checked at every node (tests/cpp/invariants.h)
#   carc_fuzz_action_text  the action-text parser at a node the input reaches
#   carc_fuzz_position     State::from_position on positions decoded from the input
#   carc_fuzz_state_bytes  State::from_bytes (pickling) on real states' bytes changed by the input,
#                          or raw bytes: refused with RecordError, or consistent and playable
# Usage: bash tools/fuzz.sh [seconds per target, default 60] [target ...]
#   CARC_FUZZ_RUNS=N also stops each target after N executions (the long runs in the README:
#   CARC_FUZZ_RUNS=1050000 bash tools/fuzz.sh 100000 position).
# Each target starts from its seed corpus, tests/fuzz/corpus/<target> (read only); what it finds
# goes to build-fuzz/corpus/<target>, crashes to build-fuzz/crashes/ (a crash fails the script;
# run the target on the file to reproduce it, then make it a regression test).
set -euo pipefail
cd "$(dirname "$0")/.."
CARC_FUZZ_TESTS=1 source tools/deps.sh
seconds=${1:-60}
shift || true
targets=("$@")
((${#targets[@]})) || targets=(moves action_text position state_bytes)

CC=clang CXX=clang++ cmake -S . -B build-fuzz -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCARC_SANITIZE=address,undefined -DCARC_FUZZ=ON -DCARC_TESTS=OFF -DCARC_BENCH=OFF >/dev/null
cmake --build build-fuzz -j "${JOBS:-2}"
mkdir -p build-fuzz/crashes
for target in "${targets[@]}"; do
  echo "== carc_fuzz_$target for ${seconds} s"
  mkdir -p "build-fuzz/corpus/$target"
  dict=()
  [ -f "tests/fuzz/$target.dict" ] && dict=(-dict="tests/fuzz/$target.dict")
  ./build-fuzz/carc_fuzz_$target "build-fuzz/corpus/$target" "tests/fuzz/corpus/$target" "${dict[@]}" \
    -max_total_time="$seconds" -runs="${CARC_FUZZ_RUNS:--1}" -timeout=60 -rss_limit_mb=4096 -print_final_stats=1 \
    -artifact_prefix=build-fuzz/crashes/ 2>&1 | grep -E '^stat::(number_of_executed_units|average_exec_per_sec|new_units_added)|ERROR|SUMMARY|what\(\)'
done
