"""The assemble stage, one core: events in, trail rows out, as the Spark assemble tasks run it
(``batches.assemble_stream``: the Rust core's transaction table and emitter, issue 16),
and ``cat`` of the same logs, in one run. (The Python stage it replaced, timed here before, was
deleted once the core agreed with it everywhere; its figures stay in docs/benchmarks.md.)

    .venv/bin/python bench/bench_stage.py [--mb 64] [--seed 16] [--repeat 3]

The workload is ``bench_emit.workload`` (the generator's random mix, decoded by the core, in redo
order, as one Arrow table). Timed: the stage from event record batches (8,192 events, as Spark hands
them) to record batches of trail rows with their commit-order key, then the open transactions'
events and the counts, CPU seconds of the process (user + system), so other work on the
machine slows the wall clock but not the figures. MB is 10^6 bytes of redo log.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "bench"))

from bench_emit import workload  # noqa: E402

from redo_lib.batches import assemble_stream  # noqa: E402


def run_rust(batches: list[Any], dictionary: str) -> tuple[float, int]:
    start = time.process_time()
    rows = 0
    for kind, out in assemble_stream(batches, dictionary):
        if kind == "trail":
            rows += out.num_rows
    return time.process_time() - start, rows


def cat_seconds(logs: list[Path]) -> float:
    before = os.times()
    subprocess.run(["cat", *map(str, logs)], stdout=subprocess.DEVNULL, check=True)
    after = os.times()
    return (after.children_user - before.children_user) + (after.children_system - before.children_system)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--mb", type=int, default=64, help="workload size (MB of redo logs)")
    parser.add_argument("--seed", type=int, default=16)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-stage-") as tmp:
        t0 = time.perf_counter()
        table, log_bytes, history = workload(args.mb, args.seed, Path(tmp))
        dictionary = str(Path(tmp) / "dictionary.bench.json")
        Path(dictionary).write_text(history.to_json(), encoding="utf-8")
        logs = sorted(Path(tmp).rglob("*.arc"))
        batches = table.to_batches(max_chunksize=8192)
        print(
            f"workload: seed {args.seed}, {log_bytes / 1e6:.1f} MB of redo in {len(logs)} logs, "
            f"{table.num_rows:,} events (generated and decoded in {time.perf_counter() - t0:.0f} s)"
        )
        cat = min(cat_seconds(logs) for _ in range(args.repeat)) if logs else float("nan")
        seconds, rows = min((run_rust(batches, dictionary) for _ in range(args.repeat)), key=lambda r: r[0])
        print(f"{'':30} {'CPU s':>8} {'trail rows':>11} {'MB redo/CPU-s':>14}")
        if logs:
            rate = f"{log_bytes / 1e6 / cat:14.1f}" if cat > 0 else f"{'(< 10 ms)':>14}"
            print(f"{'cat':30} {cat:8.3f} {'':>11} {rate}")
        print(
            f"{'rust stage (assemble_stream)':30} {seconds:8.3f} {rows:11,} {log_bytes / 1e6 / seconds:14.1f}"
        )


if __name__ == "__main__":
    main()
