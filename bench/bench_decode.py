"""The ``decode`` command as a user runs it, beside ``cat`` on the same files, in one run (issue 31).

    .venv/bin/python bench/bench_decode.py [--runs 3] [--work DIR] [--only startup,seed4,seed11]
    .venv/bin/python bench/bench_decode.py --only seed11-256,seed11-1g,one-128   # memory: size, one transaction

Each case is a separate process (``python -m redo_lib decode ...``, output to a file), timed with
``os.wait4``: its CPU seconds (user + system) and its peak RSS. The median of ``--runs`` runs, with
the spread (min..max). MB are 10^6 bytes of log file; "past start-up" subtracts the median CPU of
the start-up case (the 5 KB real 23.6 log with its OLR checkpoint), the same case's, from each run.

Workloads (written once into ``--work`` by the generator and reused; the issue's two sets):

* ``seed11``: ``synth --random --seed 11 --size 64MB --log-size 32MB --compat 19c --no-direct-load
  --no-steps`` (wide rows)
* ``seed4``: ``synth --random --seed 4 --size 16MB --log-size 8MB --compat 19c --no-steps`` (small rows)
* ``seed11-256``, ``seed11-1g``: ``seed11`` at ``--size 256MB`` and ``--size 1GB``: peak RSS against
  the input's size
* ``seed11-10g``: ``seed11`` at ``--size 10GB --log-size 256MB`` (40 logs; about 25 minutes to
  generate)
* ``one-128``: ``seed11`` at ``--size 128MB --one-transaction``: one transaction of 19,545 rows
  committed at the end, its rows held until then
* ``one-1g``: the same at ``--size 1GB``: one transaction of 1 GB of redo, 161,562 rows (6 minutes
  to generate)
* ``one-2g``: the same at ``--size 2GB``: one transaction of 2 GB of redo (its largest table
  outgrows its first extent of 32,767 blocks and takes further ones, synth/database.py)
* ``rac22``: ``seed11``'s options with ``--seed 22``, which draws two redo threads (RAC): the
  threads' events merged by SCN in the core (``native.ThreadMerge``)

Cases:

* ``cat``: ``cat LOGS``.
* ``jsonl``: ``decode LOGS --dictionary D`` (JSON lines, rendered by the core).
* ``parquet``: ``decode LOGS --dictionary D --format parquet --out DIR``.
* ``records``: what ``decode --format jsonl`` did before: the same decode with a ``TrailRecord``
  per row, then ``json.dumps(record.to_dict())`` per line (``decode_logs`` without a sink); on the
  issue's two sets only.
* ``stats``: ``stats LOG`` on the set's first log (its MB are that log's).
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
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
REAL = REPO.parent / "shared" / "realdata" / "rophy-olr-example-free-23"
WORKLOADS = {
    "seed11": ["--random", "--seed", "11", "--size", "64MB", "--log-size", "32MB", "--compat", "19c",
               "--no-direct-load", "--no-steps"],
    "seed4": ["--random", "--seed", "4", "--size", "16MB", "--log-size", "8MB", "--compat", "19c", "--no-steps"],
}  # fmt: skip
WORKLOADS["seed11-256"] = [*WORKLOADS["seed11"][:4], "256MB", *WORKLOADS["seed11"][5:]]
WORKLOADS["seed11-1g"] = [*WORKLOADS["seed11"][:4], "1GB", *WORKLOADS["seed11"][5:]]
WORKLOADS["one-128"] = [*WORKLOADS["seed11"][:4], "128MB", *WORKLOADS["seed11"][5:], "--one-transaction"]
# 10 GB in 40 logs of 256 MB (a production log's size order): peak RSS against 10x the 1 GB set
WORKLOADS["seed11-10g"] = [*WORKLOADS["seed11"][:4], "10GB", "--log-size", "256MB", *WORKLOADS["seed11"][7:]]
WORKLOADS["one-1g"] = [*WORKLOADS["seed11"][:4], "1GB", *WORKLOADS["seed11"][5:], "--one-transaction"]
WORKLOADS["one-2g"] = [*WORKLOADS["seed11"][:4], "2GB", *WORKLOADS["seed11"][5:], "--one-transaction"]
# RAC: seed 22 draws two redo threads (sessions on both), the threads merged by SCN in the core
WORKLOADS["rac22"] = ["--random", "--seed", "22", *WORKLOADS["seed11"][3:]]
RECORDS_SETS = ("startup", "seed4", "seed11")  # the former path: too slow to matter on the large sets
# the decode command's path before the core rendered JSON: a Python object per trail row
RECORDS = """
import json, sys
from redo_lib.pipeline import decode_logs
*logs, dictionary, out = sys.argv[1:]
result = decode_logs(logs, dictionary)
with open(out, "w") as f:
    for record in result.trail:
        f.write(json.dumps(record.to_dict()) + "\\n")
"""


def _workload(work: Path, name: str) -> tuple[list[Path], Path]:
    out = work / name
    if not (out / "dictionary.json").exists():
        shutil.rmtree(out, ignore_errors=True)
        print(f"generating {name} into {out} ...", file=sys.stderr)
        subprocess.run([sys.executable, "-m", "redo_lib.synth", *WORKLOADS[name], "--out", str(out)], check=True,
                       cwd=REPO, stdout=subprocess.DEVNULL)  # fmt: skip
    return sorted((out / "logs").glob("*.arc")), out / "dictionary.json"


def _measure(argv: list[str], stdout: Path) -> tuple[float, float]:
    """(CPU seconds, peak RSS in MB) of one process."""
    with stdout.open("wb") as out:
        proc = subprocess.Popen(argv, cwd=REPO, stdout=out, stderr=subprocess.DEVNULL)
        _, status, usage = os.wait4(proc.pid, 0)
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"failed: {' '.join(argv)}")
    return usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024


def _cases(name: str, logs: list[Path], dictionary: Path, tmp: Path) -> dict[str, list[str]]:
    files = list(map(str, logs))
    decode = [sys.executable, "-m", "redo_lib", "decode", *files, "--dictionary", str(dictionary)]
    cases = {
        "cat": ["cat", *files],
        "jsonl": decode,
        "parquet": [*decode, "--format", "parquet", "--out", str(tmp / "parquet")],
        "records": [sys.executable, "-c", RECORDS, *files, str(dictionary), str(tmp / "records.jsonl")],
        "stats": [sys.executable, "-m", "redo_lib", "stats", files[0]],
    }
    if name not in RECORDS_SETS:
        del cases["records"]
    return cases


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--work", type=Path, default=Path(tempfile.gettempdir()) / "redotrail-bench-decode")
    parser.add_argument("--only", default="startup,seed4,seed11")
    args = parser.parse_args()
    args.work.mkdir(parents=True, exist_ok=True)
    sets = args.only.split(",")
    results: dict[str, dict[str, dict[str, float]]] = {}
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        inputs = {name: _workload(args.work, name) for name in sets if name in WORKLOADS}
        if "startup" in sets:
            inputs["startup"] = (
                [REAL / "redo" / "arch1_15_1224959854.dbf"],
                REAL / "schema" / "TEST-chkpt-2266634.json",
            )
        startup: dict[str, float] | None = None  # each case's CPU on the start-up log
        for name in ["startup", *[s for s in sets if s != "startup"]]:
            if name not in inputs:
                continue
            logs, dictionary = inputs[name]
            set_mb = sum(p.stat().st_size for p in logs) / 1e6
            results[name] = {}
            for case, argv in _cases(name, logs, dictionary, tmp).items():
                runs = [_measure(argv, tmp / "out") for _ in range(args.runs)]
                mb = logs[0].stat().st_size / 1e6 if case == "stats" else set_mb
                cpu = [c for c, _ in runs]
                rss = [r for _, r in runs]
                row = {"mb": mb, "cpu_s": statistics.median(cpu), "cpu_min": min(cpu), "cpu_max": max(cpu),
                       "peak_mb": statistics.median(rss), "peak_min": min(rss), "peak_max": max(rss)}  # fmt: skip
                if case == "jsonl":
                    row["out_mb"] = (tmp / "out").stat().st_size / 1e6
                if startup is not None and case != "cat":
                    past = row["cpu_s"] - startup[case]
                    row["mb_per_cpu_s_past_startup"] = mb / past if past > 0 else float("inf")
                row["mb_per_cpu_s"] = mb / row["cpu_s"] if row["cpu_s"] > 0 else float("inf")
                results[name][case] = row
                print(f"{name:8} {case:8} {mb:7.1f} MB  cpu {row['cpu_s']:6.2f} s ({row['cpu_min']:.2f}..{row['cpu_max']:.2f})"
                      f"  {row['mb_per_cpu_s']:7.1f} MB/cpu-s"
                      + (f" ({row['mb_per_cpu_s_past_startup']:.1f} past start-up)" if "mb_per_cpu_s_past_startup" in row else "")
                      + f"  peak {row['peak_mb']:5.0f} MB ({row['peak_min']:.0f}..{row['peak_max']:.0f})", flush=True)  # fmt: skip
            if name == "startup":
                startup = {case: row["cpu_s"] for case, row in results[name].items()}
    print(json.dumps(results, indent=1))


if __name__ == "__main__":
    main()
