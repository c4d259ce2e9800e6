"""Reader + change events, one process: the Rust core beside ``cat``, on the same files in one run.
MB of redo (10^6 bytes of log file) per CPU-second. (The Python reader it was first measured against
is gone; its figures stay in docs/benchmarks.md.)

    .venv/bin/python bench/bench_native.py [--size 64MB] [--seed 3] [--seconds 3] [--work DIR]

Workloads: a random generated mix (``python -m redo_lib synth --random --seed S --size SIZE``, one
log of the whole size; written once into ``--work`` and reused) and the two real 23.6 logs
(../shared/realdata, read in place). Each measurement repeats until ``--seconds`` of CPU have passed
and counts the CPU time of the process (user + system; ``cat`` as a child process), so other jobs on
a shared machine slow the wall clock but not the figure.

* ``cat``: ``cat FILES > /dev/null``.
* ``rust``: ``pipeline.decode_range_arrow``: windowed reads, the Rust reader and events into Arrow
  record batches handed to pyarrow (what the Spark decode stage hands to ``mapInArrow``).
* ``rust+objects``: ``pipeline.decode_range``: the same, then every event as a Python
  ``ChangeEvent`` (what the single-process ``decode`` command assembles from).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from redo_lib.pipeline import decode_range, decode_range_arrow  # noqa: E402

REAL = REPO.parent / "shared" / "realdata" / "rophy-olr-example-free-23" / "redo"
REAL_LOGS = [REAL / "arch1_15_1224959854.dbf", REAL / "arch1_16_1224959854.dbf"]


def _cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def _children_cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def _repeat(
    run: Callable[[], int], seconds: float, clock: Callable[[], float] = _cpu
) -> tuple[float, int, int]:
    """(CPU seconds per run, runs, what one run counted)."""
    runs, counted, start = 0, 0, clock()
    while True:
        counted = run()
        runs += 1
        spent = clock() - start
        if spent >= seconds:
            return spent / runs, runs, counted


def _cat(files: list[Path]) -> int:
    subprocess.run(["cat", *map(str, files)], stdout=subprocess.DEVNULL, check=True)
    return 0


def _rust(files: list[Path]) -> int:
    return sum(batch.num_rows for f in files for batch in decode_range_arrow(f))


def _rust_objects(files: list[Path]) -> int:
    return sum(1 for f in files for _ in decode_range(f))


def _generated(work: Path, seed: int, size: str) -> list[Path]:
    out = work / f"random-s{seed}-{size}"
    done = out / "written.json"
    if not done.exists():
        cmd = [sys.executable, "-m", "redo_lib", "synth", "--random", "--seed", str(seed), "--size", size,
               "--log-size", size, "--no-steps", "--out", str(out)]  # fmt: skip
        started = time.monotonic()
        subprocess.run(cmd, check=True, cwd=REPO, stdout=subprocess.DEVNULL)
        print(f"generated {size} (seed {seed}) in {time.monotonic() - started:.0f} s", file=sys.stderr)
        done.write_text("{}")
    return sorted((out / "logs").glob("*.arc"))


def measure(name: str, files: list[Path], seconds: float, objects_seconds: float) -> dict[str, object]:
    size = sum(f.stat().st_size for f in files)
    mb = size / 1e6
    row: dict[str, object] = {"workload": name, "files": len(files), "bytes": size}
    cat_cpu, cat_runs, _ = _repeat(lambda: _cat(files), seconds, _children_cpu)
    row["cat"] = {"mb_per_cpu_s": round(mb / max(cat_cpu, 1e-9), 1), "runs": cat_runs}
    for label, fn, budget in (("rust", _rust, seconds), ("rust+objects", _rust_objects, objects_seconds)):
        cpu, runs, events = _repeat(lambda fn=fn: fn(files), budget)  # type: ignore[misc]
        row[label] = {"mb_per_cpu_s": round(mb / cpu, 1), "runs": runs, "events": events}
    return row


# VmHWM, not ru_maxrss: Linux carries ru_maxrss over fork and exec, so a child would report this
# process's high-water mark
_HWM = """
def _hwm():
    for line in open("/proc/self/status"):
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) // 1024
"""
_MEMORY_CHILD = (
    _HWM
    + """
import sys
from redo_lib.pipeline import decode_range_arrow, open_source, read_header
path, range_blocks = sys.argv[1], int(sys.argv[2])
nab = read_header(open_source(path)).nab
events = 0
for first in range(2, nab, range_blocks):
    events += sum(b.num_rows for b in decode_range_arrow(path, first, min(first + range_blocks, nab)))
print(events, _hwm())
"""
)


def peak_memory(path: Path, range_mb: int) -> dict[str, object]:
    """Peak RSS of a process that decodes ``path`` in ranges of ``range_mb`` MB, one after the other
    (as one decode task does its unit), against the RSS of the same process doing nothing."""
    from redo_lib.pipeline import open_source, read_header

    size = read_header(open_source(path)).block_size
    blocks = max((range_mb << 20) // size, 1)
    child = [sys.executable, "-c", _MEMORY_CHILD, str(path), str(blocks)]
    out = subprocess.run(child, check=True, cwd=REPO, capture_output=True, text=True).stdout.split()
    idle = subprocess.run(
        [sys.executable, "-c", _HWM + "import pyarrow, redo_lib.pipeline, redo_lib.native\nprint(0, _hwm())"],
        check=True, cwd=REPO, capture_output=True, text=True,
    ).stdout.split()  # fmt: skip
    return {"log_mb": round(path.stat().st_size / 1e6, 1), "range_mb": range_mb, "events": int(out[0]),
            "peak_rss_mb": int(out[1]), "idle_rss_mb": int(idle[1])}  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", default="64MB", help="size of the generated mix (default 64MB)")
    parser.add_argument("--seed", type=int, default=3, help="seed of the generated mix (default 3)")
    parser.add_argument("--seconds", type=float, default=3.0, help="CPU seconds per measurement")
    parser.add_argument(
        "--objects-seconds", type=float, default=None, help="CPU seconds for Rust + ChangeEvent objects"
    )
    parser.add_argument(
        "--ranges", type=int, nargs="*", default=[4, 16, 64], help="range sizes (MB), memory runs"
    )
    parser.add_argument(
        "--work", type=Path, default=Path(os.environ.get("TMPDIR", "/tmp")) / "rt-bench-native"
    )
    args = parser.parse_args(argv)
    args.work.mkdir(parents=True, exist_ok=True)
    workloads = [
        (f"generated mix ({args.size}, seed {args.seed})", _generated(args.work, args.seed, args.size))
    ]
    workloads += [(f"real 23.6 {p.stem}", [p]) for p in REAL_LOGS if p.exists()]
    rows = []
    for name, files in workloads:
        row = measure(name, files, args.seconds, args.objects_seconds or args.seconds)
        rows.append(row)
        print(json.dumps(row))
    biggest = max(workloads[0][1], key=lambda p: p.stat().st_size)
    memory = [peak_memory(biggest, mb) for mb in args.ranges]
    for m in memory:
        print(json.dumps(m))
    print()
    print("| workload | size | `cat` | Rust reader + events (Arrow) | Rust + ChangeEvent objects |")
    print("|---|---|---|---|---|")
    for r in rows:
        cells = [f"{r[k]['mb_per_cpu_s']:,} MB/s" for k in ("cat", "rust", "rust+objects")]  # type: ignore[index]
        print(f"| {r['workload']} | {r['bytes']:,} B | " + " | ".join(cells) + " |")
    print()
    print("| log | range | events | peak RSS | RSS after imports |")
    print("|---|---|---|---|---|")
    for m in memory:
        print(
            f"| {m['log_mb']} MB | {m['range_mb']} MB | {m['events']:,} | {m['peak_rss_mb']} MB | {m['idle_rss_mb']} MB |"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
