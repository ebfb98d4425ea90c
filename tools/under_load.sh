#!/usr/bin/env bash
# Runs tests while other processes keep every core busy, as on a laptop doing other work or a CI
# runner sharing its cores. No test may depend on the machine's speed; this is how to check.
#
#   bash tools/under_load.sh                  # the whole test command (bash tools/test.sh) under load
#   bash tools/under_load.sh --quick          # the tests a busy machine exposes (pytest -m concurrency:
#                                             #   threads, signals, servers, browsers) and ctest
#   bash tools/under_load.sh --quick --repeat 3
#   bash tools/under_load.sh -- CMD ARGS...   # any command
#
# HOGS busy loops (default: two per core, a load of about twice the cores on top of the tests'
# own) run at normal priority and stop when the run ends, however it ends. The load average is
# printed before and after. The exit code is the run's (the first failure with --repeat).
set -euo pipefail
cd "$(dirname "$0")/.."

quick=0
repeat=1
command=()
while (($#)); do
  case $1 in
    --quick) quick=1 ;;
    --repeat) repeat=$2; shift ;;
    --) shift; command=("$@"); break ;;
    -h | --help) sed -n '2,/^[^#]/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) echo "under_load.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
  shift
done

hogs=${HOGS:-$((2 * $(nproc)))}
pids=()
stop_hogs() { ((${#pids[@]})) && kill "${pids[@]}" 2>/dev/null; wait "${pids[@]}" 2>/dev/null || true; }
trap stop_hogs EXIT
for _ in $(seq "$hogs"); do
  (while :; do :; done) &
  pids+=($!)
done
echo "under_load: $hogs busy loops on $(nproc) cores; load average $(cut -d' ' -f1-3 /proc/loadavg)"

run_quick() {
  [[ -x .venv/bin/python ]] || { echo "under_load: no .venv; run bash tools/test.sh once first" >&2; return 2; }
  .venv/bin/python -m pytest -q -m concurrency
  if [[ -d build ]]; then
    ctest --test-dir build --output-on-failure -j "${JOBS:-2}"
  else
    echo "under_load: no build/ for ctest; run bash tools/test.sh once first" >&2
    return 2
  fi
}

status=0
for round in $(seq "$repeat"); do
  echo "== under load, round $round of $repeat"
  if ((${#command[@]})); then
    "${command[@]}" || status=$?
  elif ((quick)); then
    run_quick || status=$?
  else
    bash tools/test.sh || status=$?
  fi
  echo "under_load: round $round exit $status; load average $(cut -d' ' -f1-3 /proc/loadavg)"
  ((status == 0)) || break
done
exit "$status"
