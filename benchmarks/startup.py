"""Start-up cost of the ``mjrules`` command: CPU time of a cold process.

Runs each command ``--runs`` times, each in a new Python process, and takes the median of the
CPU time the child used (user + system, its resource usage as ``os.wait4`` reports it, to the
microsecond), beside a bare ``python -c pass``::

    python benchmarks/startup.py                 # a table: seconds and ratio to python -c pass
    python benchmarks/startup.py --json          # the same as JSON
    python benchmarks/startup.py --root DIR      # the engine of another source tree (before/after)

"Cold" means a new interpreter each run; the operating system's file cache is warm (one
discarded warm-up run per command), and compiled bytecode is allowed to be written
(``PYTHONDONTWRITEBYTECODE`` is dropped from the children's environment): an installed package has
its ``.pyc`` files, so compiling sources at every run would measure the wrong thing.
CPU time, not wall time, so other work on the machine disturbs the figures less; still, compare
figures of one run of this script, taken on one machine.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# the console script's body, run from the source tree on PYTHONPATH (so --root can point elsewhere)
MJRULES = "import sys; sys.argv[0] = 'mjrules'; from engine.cli import main; main()"


def commands(root: Path) -> dict[str, list[str]]:
    """Name → argv of each measured command."""
    return {
        "python -c pass": [sys.executable, "-c", "pass"],
        "mjrules --help": [sys.executable, "-c", MJRULES, "--help"],
        "mjrules check rulesets/nanchang.rules": [sys.executable, "-c", MJRULES, "check",
                                                  str(root / "rulesets" / "nanchang.rules")],
    }


def measure(argv: list[str], env: dict[str, str], cwd: Path, runs: int) -> dict:
    """Median CPU seconds (user + sys of the child) and wall seconds of ``runs`` cold runs.

    Raises RuntimeError if the command fails (a broken command must not look fast)."""
    cpu, wall = [], []
    for i in range(runs + 1):
        t0 = time.perf_counter()
        child = subprocess.Popen(argv, env=env, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        _, status, usage = os.wait4(child.pid, 0)
        t1 = time.perf_counter()
        child.returncode = os.waitstatus_to_exitcode(status)  # reaped here: Popen must not wait again
        if child.returncode != 0:
            raise RuntimeError(f"{' '.join(argv[3:]) or argv} exited {child.returncode}")
        if i == 0:
            continue  # warm-up: bytecode written, files cached
        cpu.append(usage.ru_utime + usage.ru_stime)
        wall.append(t1 - t0)
    return {"cpu_s": round(statistics.median(cpu), 4), "wall_s": round(statistics.median(wall), 4),
            "cpu_min_s": round(min(cpu), 4), "runs": runs}


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark and print a table (or JSON with ``--json``)."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=15, help="runs of each command (median taken; default 15)")
    ap.add_argument("--root", type=Path, default=ROOT, help="source tree whose engine/ is run (default: this one)")
    ap.add_argument("--json", action="store_true", help="print JSON")
    args = ap.parse_args(argv)
    if not 1 <= args.runs <= 1000:
        ap.error("--runs must be 1..1000")
    root = args.root.resolve()
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPATH"] = str(root) + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    # the working directory is sys.path[0] of `python -c`: the tree measured
    results = {name: measure(cmd, env, root, args.runs) for name, cmd in commands(root).items()}
    base = results["python -c pass"]["cpu_s"] or 1e-3
    for r in results.values():
        r["ratio_to_python"] = round(r["cpu_s"] / base, 2)
    if args.json:
        print(json.dumps({"root": str(root), "python": sys.version.split()[0], "results": results}, indent=2))
        return 0
    print(f"engine from {root}; python {sys.version.split()[0]}; median of {args.runs} cold runs")
    print(f"{'command':40} {'CPU s':>7} {'× python':>9} {'wall s':>7}")
    for name, r in results.items():
        print(f"{name:40} {r['cpu_s']:7.3f} {r['ratio_to_python']:9.1f} {r['wall_s']:7.3f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
