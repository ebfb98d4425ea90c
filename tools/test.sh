#!/usr/bin/env bash
# Runs every test, after installing what they need into .venv (tools/deps.sh):
#   the package: an sdist and a wheel (python -m build), the wheel smoke-tested in a clean
#     virtual environment (tools/smoke.sh) and installed into .venv for the Python tests;
#   C++: the GoogleTest suite (release, ctest), the performance gate (instructions of fixed
#     workloads under callgrind against committed budgets: tools/perf_gate.py), the suite again
#     under AddressSanitizer and UndefinedBehaviorSanitizer with a 100,000-move random-game
#     invariant run, the search tests under ThreadSanitizer, and a short pass of every
#     libFuzzer target (tools/fuzz.sh);
#   Python: ruff, mypy, formatting, the stub _core.pyi against the built module (stubtest), the
#     pytest suite (the play server's browser tests in headless Chromium included: screenshots
#     in build/screenshots/) and a short Atheris pass on the Python API;
#   the documentation site (mkdocs build --strict: a broken link fails).
set -euo pipefail
cd "$(dirname "$0")/.."
CARC_BROWSER_TESTS=1 CARC_FUZZ_TESTS=1 source tools/deps.sh
jobs=${JOBS:-2}

# The quick checks first: a formatting slip should fail in seconds, not after the builds.
echo "== Python lint"
python -m ruff check bindings tests tools
echo "== Python types (mypy, settings in pyproject.toml)"
python -m mypy
echo "== Formatting: C++ (clang-format) and Python (ruff format); bash tools/format.sh applies it"
bash tools/format.sh --check

echo "== The package: sdist and wheel (python -m build), then the wheel in a clean environment"
rm -rf dist
mkdir -p build
CMAKE_BUILD_PARALLEL_LEVEL=$jobs python -m build --no-isolation --outdir dist . >build/package.log 2>&1 ||
  { tail -50 build/package.log; exit 1; }
ls dist
wheel=$(ls dist/carcassonne-*.whl)
python -m pip install -q --disable-pip-version-check --force-reinstall --no-deps "$wheel"
bash tools/smoke.sh "$wheel"

echo "== The documentation site (mkdocs build --strict)"
NO_MKDOCS_2_WARNING=1 python -m mkdocs build --strict --site-dir build/site

echo "== C++ tests (release)"
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DCARC_WERROR=ON >/dev/null
cmake --build build -j "$jobs"
ctest --test-dir build --output-on-failure -j "$jobs"

echo "== Performance gate: instructions of random games and searches (callgrind) against bench/instruction_budgets.json"
python tools/perf_gate.py --build-dir build

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

echo "== Python tests (the wheel installed in .venv)"
echo "-- the hand-written stub _core.pyi against the built module (mypy's stubtest)"
python -m mypy.stubtest carcassonne._core --allowlist tools/stubtest-allowlist.txt
python -m pytest -q -rs
python tests/fuzz/fuzz_python.py -max_total_time="$CARC_FUZZ_SECONDS" -print_final_stats=1 2>&1 |
  grep -E '^stat::(number_of_executed_units|average_exec_per_sec)|Error|Traceback'

echo "browser screenshots: build/screenshots/"
