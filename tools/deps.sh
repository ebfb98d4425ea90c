#!/usr/bin/env bash
# Installs what a command needs and activates the project's virtual environment (.venv, or
# $CARC_VENV), so that no package goes into the system's Python: Debian's and Ubuntu's refuse
# that (PEP 668). Sourced by the other scripts; safe to run again; installs only what is missing.
#   CARC_DEPS=play   the build and the play server (bash tools/play.sh)
#   CARC_DEPS=dev    (default) everything the tests, fuzzers, docs and benchmarks need
#   CARC_FUZZ_TESTS=1, CARC_BROWSER_TESTS=1 add clang's fuzzing runtime, Chromium and its driver.
# Debian packages come from apt-get (sudo when not root); Python packages from pip, as the
# extras of pyproject.toml list them (tools/requirements.py reads them).
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

profile=${CARC_DEPS:-dev}
case "$profile" in play | dev) ;; *) echo "CARC_DEPS must be play or dev, not '$profile'" >&2; return 2 ;; esac

# The build: a C++20 compiler, CMake and Ninja (one already on PATH, e.g. from pip, serves), oneTBB
# (parallel batches and search), Eigen (the network), the Python headers and venv module.
build_packages=(g++ libtbb-dev libeigen3-dev python3-dev python3-venv)
command -v cmake >/dev/null || build_packages+=(cmake)
command -v ninja >/dev/null || build_packages+=(ninja-build)
if [ "$profile" = dev ]; then
  # The C++ tests and benchmarks; clang-format for tools/format.sh (the style was tuned on 14);
  # valgrind for the performance gate (tools/perf_gate.py counts instructions with callgrind).
  build_packages+=(libgtest-dev libbenchmark-dev clang-format valgrind)
  # clang with its libFuzzer and sanitizer runtimes: tools/fuzz.sh, and Atheris builds with it.
  build_packages+=(clang libclang-rt-14-dev)
fi
[ "${CARC_BROWSER_TESTS:-0}" = 1 ] && build_packages+=(chromium chromium-driver)
apt_install_missing "${build_packages[@]}"

venv=${CARC_VENV:-$PWD/.venv}
if [ ! -x "$venv/bin/python" ]; then
  echo "creating the project's virtual environment: $venv"
  python3 -m venv "$venv"
fi
# shellcheck disable=SC1091
source "$venv/bin/activate"

# (Quiet; a pip.conf may name package folders a machine lacks, which pip warns of on every package.)
pip_install() {
  python -m pip install -q --disable-pip-version-check "$@" 2> >(grep -v "^WARNING: Location '" >&2)
}
# pip's own requirements file format, one a line: the extras of the profile.
requirements=$(mktemp)
case "$profile" in
  play) python tools/requirements.py build play >"$requirements" ;;
  dev) python tools/requirements.py build dev >"$requirements" ;;
esac
# Asks pip only when the list changed since the last install into this environment.
stamp="$venv/.carc-requirements-$profile"
if ! cmp -s "$requirements" "$stamp"; then
  echo "installing Python packages into $venv ($profile)"
  pip_install -r "$requirements"
  cp "$requirements" "$stamp"
fi
rm -f "$requirements"
