#!/usr/bin/env bash
# Formats the sources: clang-format (.clang-format at the root) on the C++ of engine/, search/,
# bindings/, bench/, examples/, tests/cpp and tests/fuzz, ruff's formatter (pyproject.toml's [tool.ruff]) on the Python of
# bindings/, tests/python and tools/.
#   bash tools/format.sh          rewrites the files that are not formatted
#   bash tools/format.sh --check  changes nothing; names the files that need formatting and exits 1
# CLANG_FORMAT picks the binary (default clang-format). Versions disagree on a few corner cases;
# the style was tuned on Debian's clang-format 14, which tools/deps.sh installs.
set -euo pipefail
cd "$(dirname "$0")/.."

check=0
case "${1:-}" in
  --check) check=1 ;;
  "") ;;
  *) echo "usage: bash tools/format.sh [--check]" >&2; exit 2 ;;
esac

clang_format=${CLANG_FORMAT:-clang-format}
python=python
[ -x .venv/bin/python ] && python=.venv/bin/python  # the project's environment, when not active
command -v "$clang_format" >/dev/null || { echo "$clang_format not found: source tools/deps.sh (or run bash tools/test.sh)" >&2; exit 2; }
"$python" -m ruff --version >/dev/null 2>&1 || { echo "ruff not found: source tools/deps.sh (or run bash tools/test.sh)" >&2; exit 2; }

mapfile -t cpp_files < <(find engine search bindings bench examples tests/cpp tests/fuzz -type f \( -name '*.h' -o -name '*.cpp' \) | sort)
# Only .py and .pyi: given folders, newer ruff also formats the Python blocks of Markdown files.
mapfile -t py_files < <(find bindings tests/python tests/fuzz tools -type f \( -name '*.py' -o -name '*.pyi' \) | sort)

if ((check)); then
  status=0
  unformatted=()
  for f in "${cpp_files[@]}"; do
    "$clang_format" --style=file "$f" | cmp -s - "$f" || unformatted+=("$f")
  done
  if ((${#unformatted[@]})); then
    echo "clang-format: ${#unformatted[@]} file(s) need formatting (run bash tools/format.sh):"
    printf '  %s\n' "${unformatted[@]}"
    status=1
  fi
  "$python" -m ruff format --check "${py_files[@]}" || status=1
  exit "$status"
fi

"$clang_format" --style=file -i "${cpp_files[@]}"
"$python" -m ruff format "${py_files[@]}"
