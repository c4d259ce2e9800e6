"""Validate alone: the trail contract on one batch folder, one checkout against another, in one run.

For each ``--code`` checkout (a ``git worktree add DIR <commit>`` for "before"), a fresh Python
process starts one Spark session (``local[N]``), validates a copy of ``--batch`` once to warm the
JVM, then ``--runs`` times, timing each: wall seconds, the machine's busy CPU seconds
(``/proc/stat``; a quiet machine's is the run's own) and the Spark jobs it ran. Prints one JSON line
per run and a summary per checkout (median and spread), so both checkouts meet the same machine state.

    .venv/bin/python bench/bench_validate.py --batch /tmp/redotrail-bench-spark/batch-synth-256MB-1-2 \\
        --code /tmp/rt-before . --runs 3

A batch folder is what ``bench/bench_spark.py --through assemble`` leaves in its ``--work``.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
BENCH = Path(__file__).resolve().parent


def _cpu_reading() -> Callable[[], float]:
    """``bench_spark._machine_cpu_s``, the same reading as its runs' ``cpu_s``. Imported once the
    checkout's own ``redo_lib`` is: ``bench_spark`` puts this repository first on ``sys.path``."""
    sys.path.append(str(BENCH))
    from bench_spark import _machine_cpu_s

    return _machine_cpu_s


def worker(code: Path, batch: Path, runs: int, cores: int) -> None:
    """In the checkout's process: warm up once, then time ``runs`` validations of copies of the batch."""
    sys.path.insert(0, str(code))
    from spark_jobs import validate
    from spark_jobs.common import build_session

    _machine_cpu_s = _cpu_reading()
    spark = build_session("bench-validate", master=f"local[{cores}]")
    tracker = spark.sparkContext.statusTracker()
    with tempfile.TemporaryDirectory(prefix="bench-validate-") as tmp:
        for i in range(runs + 1):
            folder = Path(tmp) / f"run-{i}"
            shutil.copytree(batch, folder, ignore=shutil.ignore_patterns("staging", "report", "VALIDATED"))
            jobs, cpu, started = len(tracker.getJobIdsForGroup(None)), _machine_cpu_s(), time.monotonic()
            code_ = validate.main(["--batch-dir", str(folder)], spark=spark)
            wall = time.monotonic() - started
            run = {"run": i, "warm_up": i == 0, "exit": code_, "seconds": round(wall, 2),
                   "cpu_s": round(_machine_cpu_s() - cpu, 1),
                   "spark_jobs": len(tracker.getJobIdsForGroup(None)) - jobs}  # fmt: skip
            print("RESULT " + json.dumps(run), flush=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--batch", type=Path, required=True, help="a batch folder with trail/ and counts.json"
    )
    parser.add_argument("--code", type=Path, nargs="+", default=[REPO], help="checkouts to compare")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--cores", type=int, default=2)
    parser.add_argument("--worker", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        worker(args.worker, args.batch, args.runs, args.cores)
        return 0
    summary = {}
    for code in args.code:
        code = code.resolve()
        head = subprocess.run(["git", "-C", str(code), "rev-parse", "--short", "HEAD"], capture_output=True,
                              text=True, check=False).stdout.strip()  # fmt: skip
        env = dict(os.environ, PYTHONPATH=str(code), TZ="UTC")
        cmd = [sys.executable, str(Path(__file__).resolve()), "--batch", str(args.batch), "--runs",
               str(args.runs), "--cores", str(args.cores), "--worker", str(code)]  # fmt: skip
        done = subprocess.run(cmd, env=env, capture_output=True, text=True, check=False)
        runs = [json.loads(line[7:]) for line in done.stdout.splitlines() if line.startswith("RESULT ")]
        if done.returncode != 0 or len(runs) != args.runs + 1:
            print(done.stdout[-2000:], done.stderr[-4000:], file=sys.stderr)
            raise SystemExit(f"{code}: the validations did not all run (exit {done.returncode})")
        for run in runs:
            print(json.dumps({"code": f"{code} ({head})", **run}), flush=True)
        timed = [r for r in runs if not r["warm_up"]]
        seconds = [r["seconds"] for r in timed]
        summary[f"{code} ({head})"] = {
            "median_s": statistics.median(seconds), "spread_s": [min(seconds), max(seconds)],
            "median_cpu_s": statistics.median(r["cpu_s"] for r in timed),
            "spark_jobs": timed[-1]["spark_jobs"], "exit": sorted({r["exit"] for r in timed}),
        }  # fmt: skip
    print(json.dumps({"batch": str(args.batch), "summary": summary}, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
