#!/usr/bin/env python3
"""The performance gate: instructions of fixed workloads against committed budgets.

Timings on a shared machine vary by +-20%; the instructions a fixed workload executes repeat
exactly under valgrind's callgrind. Each workload of bench/instructions.cpp (random games of
several mixes, MCTS searches) runs under callgrind, counting only its own work; the count per
game or per iteration is compared with bench/instruction_budgets.json. A rise beyond the
tolerance fails. When the code gets faster, --update writes the new figures as the budgets, so
that the gain is kept.

Callgrind counts each byte of a large memcpy or memset as one instruction (glibc copies them with
`rep movsb`, which valgrind runs byte by byte), though natively a 24 KB copy costs a few hundred
cycles. The "copies" column gives that share of each count: the instructions outside it are the
ones that track the time.

    python tools/perf_gate.py                 # check (the release build in build/)
    python tools/perf_gate.py --update        # write today's counts as the budgets
    python tools/perf_gate.py --build-dir DIR

Counts depend on the compiler and its flags: the budgets are those of the test command's
release build (tools/test.sh) with Debian 12's GCC 12.
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BUDGETS = ROOT / "bench" / "instruction_budgets.json"
# Only run_workload and what it calls is counted: not the program's start, nor the root position.
TOGGLE = "--toggle-collect=carc::(anonymous namespace)::run_workload*"


# callgrind_annotate's lines for glibc's block copies: "  41,676,732 (20.53%)  ...memmove-vec-...".
COPY_LINE = re.compile(r"^\s*([\d,]+) .*/multiarch/mem(?:move|set)-", re.MULTILINE)


def count(binary: Path, workload: str, units: int) -> tuple[int, float]:
    """Instructions per unit (game or iteration) of one workload under callgrind, and the share
    of them in memcpy/memmove/memset."""
    with tempfile.TemporaryDirectory() as tmp:
        run = subprocess.run(
            [
                "valgrind",
                "--tool=callgrind",
                f"--callgrind-out-file={tmp}/out",
                "--collect-atstart=no",
                TOGGLE,
                str(binary),
                workload,
                str(units),
            ],
            capture_output=True,
            text=True,
            check=False,
        )
        annotate = subprocess.run(
            ["callgrind_annotate", f"{tmp}/out"], capture_output=True, text=True, check=False
        ).stdout
    if run.returncode != 0:
        raise SystemExit(f"{workload}: the run failed\n{run.stdout}{run.stderr}")
    found = re.search(r"Collected : (\d+)", run.stderr)
    if not found:
        raise SystemExit(f"{workload}: no instruction count in callgrind's output\n{run.stderr}")
    total = int(found.group(1))
    copies = sum(int(m.group(1).replace(",", "")) for m in COPY_LINE.finditer(annotate))
    return total // units, copies / total if total else 0.0


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--build-dir", default=str(ROOT / "build"), help="a release build with carc_instructions"
    )
    parser.add_argument("--update", action="store_true", help="write today's counts as the budgets")
    args = parser.parse_args()

    if shutil.which("valgrind") is None:
        raise SystemExit("valgrind is not installed (Debian: apt-get install valgrind)")
    binary = Path(args.build_dir) / "carc_instructions"
    if not binary.exists():
        raise SystemExit(f"{binary} is missing: cmake --build {args.build_dir} --target carc_instructions")
    spec = json.loads(BUDGETS.read_text())
    tolerance = spec["tolerance"]

    failed = []
    print(f"{'workload':<16} {'units':>6} {'per unit':>10} {'budget':>10} {'change':>8} {'copies':>7}")
    for name, item in spec["workloads"].items():
        per_unit, copies = count(binary, name, item["units"])
        budget = item["budget"]
        change = per_unit / budget - 1 if budget else 0.0
        verdict = "over budget" if change > tolerance else ""
        figures = f"{per_unit:>10,} {budget:>10,} {change:>+7.1%} {copies:>7.0%}"
        print(f"{name:<16} {item['units']:>6} {figures}  {verdict}")
        if change > tolerance:
            failed.append(name)
        item["measured"] = per_unit

    if args.update:
        for item in spec["workloads"].values():
            item["budget"] = item.pop("measured")
        BUDGETS.write_text(json.dumps(spec, indent=2) + "\n")
        print(f"budgets written to {BUDGETS.relative_to(ROOT)}")
        return 0
    if failed:
        print(
            f"over budget by more than {tolerance:.0%}: {', '.join(failed)}. Find the cause "
            "(callgrind_annotate), or, if the cost is worth it, raise the budget in "
            "bench/instruction_budgets.json and say why in the commit."
        )
        return 1
    print(f"every workload within {tolerance:.0%} of its budget")
    return 0


if __name__ == "__main__":
    sys.exit(main())
