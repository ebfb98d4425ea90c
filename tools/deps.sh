#!/usr/bin/env bash
# Installs what the build, the play server and the tests need, on a fresh Debian machine or this one: Debian
# packages with apt-get (only those missing), Python packages with pip. Sourced by the other
# scripts; safe to run again.
set -euo pipefail

apt_packages=(g++ cmake ninja-build libgtest-dev libbenchmark-dev libtbb-dev libeigen3-dev)
missing=()
for pkg in "${apt_packages[@]}"; do
  dpkg -s "$pkg" >/dev/null 2>&1 || missing+=("$pkg")
done
# A cmake or ninja already on PATH (e.g. from pip) serves as well as Debian's.
if command -v cmake >/dev/null; then missing=("${missing[@]/cmake}"); fi
if command -v ninja >/dev/null; then missing=("${missing[@]/ninja-build}"); fi
read -r -a missing <<<"${missing[*]}"
if ((${#missing[@]})); then
  sudo=""
  [ "$(id -u)" = 0 ] || sudo=sudo
  echo "installing Debian packages: ${missing[*]}"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
fi

python3 -m pip install -q --disable-pip-version-check \
  "scikit-build-core>=0.10" "pybind11>=3.0" numpy pytest ruff fastapi uvicorn

# The browser tests (tools/test.sh sets CARC_BROWSER_TESTS=1): Debian's Chromium and its driver,
# Selenium, and the HTTP client of FastAPI's TestClient (newer Starlette wants httpx2).
if [ "${CARC_BROWSER_TESTS:-0}" = 1 ]; then
  browser_missing=()
  for pkg in chromium chromium-driver; do
    dpkg -s "$pkg" >/dev/null 2>&1 || browser_missing+=("$pkg")
  done
  if ((${#browser_missing[@]})); then
    sudo=""
    [ "$(id -u)" = 0 ] || sudo=sudo
    echo "installing Debian packages: ${browser_missing[*]}"
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${browser_missing[@]}" >/dev/null
  fi
  python3 -m pip install -q --disable-pip-version-check selenium httpx httpx2
fi
