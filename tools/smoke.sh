#!/usr/bin/env bash
# The wheel as a user gets it: installed into a clean virtual environment (nothing of .venv, not
# the source tree), then the console script's commands and each extra's modules, one extra at a
# time, so that an extra that forgets a dependency fails here.
# Usage: bash tools/smoke.sh dist/carcassonne-*.whl   (tools/test.sh runs it on the wheel it builds)
set -euo pipefail
wheel=$(realpath "$1")
root=$(cd "$(dirname "$0")/.." && pwd)
venv=$root/build-smoke/venv
work=$(mktemp -d)
server=""
cleanup() {
  [ -n "$server" ] && kill "$server" 2>/dev/null
  rm -rf "$work"
}
trap cleanup EXIT
cd "$work"  # so that nothing is imported from the source tree

rm -rf "$venv"
python -m venv "$venv"
pip() {
  "$venv/bin/python" -m pip install -q --disable-pip-version-check "$@" 2> >(grep -v "^WARNING: Location '" >&2)
}
py() { "$venv/bin/python" "$@"; }
carcassonne() { "$venv/bin/carcassonne" "$@"; }

echo "-- core: the wheel alone"
pip "$wheel"
py -c "import carcassonne; g = carcassonne.Game(players=2, seed=1); print('import carcassonne:', g)"
carcassonne arena --deals 2 --threads 1 greedy random | tee arena.txt
grep -q "greedy" arena.txt

echo "-- [play]: carcassonne serve answers on localhost"
pip "$wheel[play]"
port=$(py -c "import socket; s = socket.socket(); s.bind(('127.0.0.1', 0)); print(s.getsockname()[1])")
"$venv/bin/carcassonne" serve --port "$port" --data "$work/data" >serve.log 2>&1 &  # $! is the server itself
server=$!
for _ in $(seq 100); do
  py -c "import urllib.request; urllib.request.urlopen('http://127.0.0.1:$port/api/options')" 2>/dev/null && break
  sleep 0.2
done
py - "$port" <<'PY'
import json, sys, urllib.request

base = f"http://127.0.0.1:{sys.argv[1]}"
page = urllib.request.urlopen(base + "/").read().decode()
assert "<html" in page.lower(), page[:200]
body = json.dumps({"seats": [{"kind": "human"}, {"kind": "bot"}], "seed": 3}).encode()
request = urllib.request.Request(base + "/api/games", body, {"Content-Type": "application/json"})
game = json.load(urllib.request.urlopen(request))
print("serve: the page and a new game", game["id"])
PY
kill "$server"
wait "$server" 2>/dev/null || true
server=""

echo "-- [balance]"
pip "$wheel[balance]"
py -c "import carcassonne.balance, pyarrow, pandas, matplotlib, ray; print('import carcassonne.balance: ok')"
carcassonne balance --help >/dev/null

echo "-- [research]"
pip "$wheel[research]"
py -c "import carcassonne.rl.openspiel, carcassonne.rl.pettingzoo; print('import carcassonne.rl adapters: ok')"

echo "-- [learn]"
pip "$wheel[learn]"
py -c "import carcassonne.learn.net, torch; print('import carcassonne.learn: ok, torch', torch.__version__)"
carcassonne train --help >/dev/null
echo "smoke test passed: $(basename "$wheel")"
