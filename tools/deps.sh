#!/usr/bin/env bash
# Installs what the build, the play server and the tests need, on a fresh Debian machine or this
# one: Debian packages with apt-get (only those missing), Python packages with pip. Sourced by the
# other scripts; safe to run again.
set -euo pipefail

# Installs the Debian packages named that are not installed yet.
apt_install_missing() {
  local missing=() pkg sudo=""
  for pkg in "$@"; do
    dpkg -s "$pkg" >/dev/null 2>&1 || missing+=("$pkg")
  done
  ((${#missing[@]})) || return 0
  [ "$(id -u)" = 0 ] || sudo=sudo
  echo "installing Debian packages: ${missing[*]}"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
}

# clang-format: tools/format.sh (the style in .clang-format was tuned on Debian's version 14).
build_packages=(g++ libgtest-dev libbenchmark-dev libtbb-dev libeigen3-dev clang-format)
# A cmake or ninja already on PATH (e.g. from pip) serves as well as Debian's.
command -v cmake >/dev/null || build_packages+=(cmake)
command -v ninja >/dev/null || build_packages+=(ninja-build)
apt_install_missing "${build_packages[@]}"

python3 -m pip install -q --disable-pip-version-check \
  "scikit-build-core>=0.10" "pybind11>=3.0" numpy pytest ruff mypy fastapi uvicorn \
  pyarrow pandas matplotlib tqdm ray
# The research extras (carcassonne.rl's OpenSpiel and PettingZoo adapters, the notebooks' tests).
python3 -m pip install -q --disable-pip-version-check open_spiel pettingzoo gymnasium nbclient nbformat ipykernel
# The learn extra (carcassonne.learn, python -m carcassonne train): the CPU build of PyTorch.
python3 -m pip install -q --disable-pip-version-check torch==2.13.0

# The fuzzers (tools/fuzz.sh): clang with its libFuzzer and sanitizer runtimes.
if [ "${CARC_FUZZ_TESTS:-0}" = 1 ]; then
  apt_install_missing clang libclang-rt-14-dev
  python3 -m pip install -q --disable-pip-version-check atheris
fi

# The browser tests (tools/test.sh sets CARC_BROWSER_TESTS=1): Debian's Chromium and its driver,
# Selenium, and the HTTP client of FastAPI's TestClient (newer Starlette wants httpx2).
if [ "${CARC_BROWSER_TESTS:-0}" = 1 ]; then
  apt_install_missing chromium chromium-driver
  python3 -m pip install -q --disable-pip-version-check selenium httpx httpx2
fi
