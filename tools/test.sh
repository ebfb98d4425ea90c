#!/usr/bin/env bash
# Runs every test: the C++ suite (release build, via ctest), the same suite under AddressSanitizer
# and UndefinedBehaviorSanitizer with a 100,000-move random-game invariant run, the search tests
# under ThreadSanitizer, a Python lint and type check (mypy), and the Python suite against the
# installed package, the play server's browser tests in headless Chromium included (screenshots
# in build/screenshots/), after the hand-written stub _core.pyi is checked against the built
# module (mypy's stubtest), and a short pass of every fuzzer (tools/fuzz.sh: libFuzzer on the
# engine; Atheris on the Python API).
set -euo pipefail
cd "$(dirname "$0")/.."
CARC_BROWSER_TESTS=1 CARC_FUZZ_TESTS=1 source tools/deps.sh
jobs=${JOBS:-2}

echo "== C++ tests (release)"
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DCARC_WERROR=ON >/dev/null
cmake --build build -j "$jobs"
ctest --test-dir build --output-on-failure -j "$jobs"

echo "== C++ tests under ASan + UBSan, 100,000 random-game moves with invariant checks"
cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=Debug -DCARC_SANITIZE=address,undefined \
  -DCARC_BENCH=OFF -DCARC_WERROR=ON >/dev/null
cmake --build build-asan -j "$jobs" --target carc_tests
CARC_FUZZ_MOVES=100000 ./build-asan/carc_tests --gtest_brief=1

echo "== MCTS and arena under ThreadSanitizer (multi-threaded search)"
cmake -S . -B build-tsan -G Ninja -DCMAKE_BUILD_TYPE=Debug -DCARC_SANITIZE=thread \
  -DCARC_BENCH=OFF -DCARC_WERROR=ON >/dev/null
cmake --build build-tsan -j "$jobs" --target carc_tests
TSAN_OPTIONS=halt_on_error=1 ./build-tsan/carc_tests --gtest_brief=1 \
  --gtest_filter='Mcts*:Arena*:Cancel*:Network.TwoSearchThreadsShareOneNetwork:RandomGames.BatchIsDeterministicWhateverTheThreads'

echo "== Fuzzing: each libFuzzer target for ${CARC_FUZZ_SECONDS:=60} s (tools/fuzz.sh), then Atheris on the Python surface"
bash tools/fuzz.sh "$CARC_FUZZ_SECONDS"

echo "== Python lint"
python3 -m ruff check bindings tests tools
echo "== Python types (mypy, settings in pyproject.toml)"
python3 -m mypy
echo "== Formatting: C++ (clang-format) and Python (ruff format); bash tools/format.sh applies it"
bash tools/format.sh --check

echo "== Python tests"
CMAKE_BUILD_PARALLEL_LEVEL=$jobs python3 -m pip install -q --disable-pip-version-check --no-build-isolation .
echo "== The hand-written stub _core.pyi against the built module (mypy's stubtest)"
python3 -m mypy.stubtest carcassonne._core --allowlist tools/stubtest-allowlist.txt
python3 -m pytest -q -rs
python3 tests/fuzz/fuzz_python.py -max_total_time="$CARC_FUZZ_SECONDS" -print_final_stats=1 2>&1 |
  grep -E '^stat::(number_of_executed_units|average_exec_per_sec)|Error|Traceback'

echo "browser screenshots: build/screenshots/"
