"""The assemble stage, one core: events in, trail rows out, as the Spark stage runs it in
``mapInArrow`` (``batches.assemble_arrow``: the Rust core's transaction table and emitter, issue 16)
against the Python stage it replaced (``TransactionTable`` + ``TrailEmitter`` + ``to_row``, the rows
made into record batches as ``assemble_arrow`` did before), and ``cat`` of the same logs, in one run.

    .venv/bin/python bench/bench_stage.py [--mb 64] [--seed 16] [--repeat 3] [--python-mb 16]

The workload is ``bench_emit.workload`` (the generator's random mix, decoded by the core, in redo
order, as one Arrow table). Timed: the stage from event record batches (8,192 events, as Spark hands
them) to record batches of ``assembled_schema()`` (trail rows with their commit-order key, the open
transactions' events, the counts), CPU seconds of the process (user + system), so other work on the
machine slows the wall clock but not the figures. The Python stage is timed on the first
``--python-mb`` of the workload's events only (it is about 20x slower) and its rate scaled by the
share of events; both must give the same number of trail rows on that share. MB is 10^6 bytes of
redo log.
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

from redo_lib.assembly.events import event_from_row  # noqa: E402
from redo_lib.assembly.transactions import TransactionTable  # noqa: E402
from redo_lib.batches import OUTPUT, assemble_arrow, assembled_schema  # noqa: E402
from redo_lib.pipeline import ORDER_FIELDS  # noqa: E402
from redo_lib.trail.emit import TrailEmitter  # noqa: E402
from redo_lib.trail.schema import commit_log_name, to_row  # noqa: E402


def run_rust(batches: list[Any], dictionary: str) -> tuple[float, int]:
    start = time.process_time()
    rows = 0
    for out in assemble_arrow(batches, dictionary, batch_id="bench"):
        if out.num_rows and out.column(OUTPUT)[0].as_py() == "trail":
            rows += out.num_rows
    return time.process_time() - start, rows


def run_python(batches: list[Any], dictionary: str) -> tuple[float, int]:
    import pyarrow as pa

    from redo_lib.batches import dictionary_at

    start = time.process_time()
    schema = assembled_schema()
    table = TransactionTable(memory_limit=50_000)
    emitter = TrailEmitter(dictionary=dictionary_at(dictionary))
    out: list[dict[str, Any]] = []
    rows = 0
    for batch in batches:
        for row in batch.to_pylist():
            txn = table.feed(event_from_row(row))
            if txn is None:
                continue
            log = commit_log_name(txn.thread, txn.seq, None)
            for i, record in enumerate(emitter.iter_emit(txn)):
                r = to_row(record, commit_log=log, batch_id="bench")
                r.update(zip(ORDER_FIELDS, [*txn.order_key, i], strict=True), output="trail")
                out.append(r)
                if len(out) >= 8192:
                    rows += pa.RecordBatch.from_pylist(out, schema=schema).num_rows
                    out = []
            txn.changes.close()
    rows += pa.RecordBatch.from_pylist(out, schema=schema).num_rows if out else 0
    elapsed = time.process_time() - start
    for entry in [*table._open.values(), *table._held]:
        entry.buffer.close()
    if emitter.lobs is not None:
        emitter.lobs.close()
    return elapsed, rows


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
    parser.add_argument(
        "--python-mb", type=int, default=16, help="share of the workload the Python stage runs"
    )
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-stage-") as tmp:
        t0 = time.perf_counter()
        table, log_bytes, history = workload(args.mb, args.seed, Path(tmp))
        dictionary = str(Path(tmp) / "dictionary.bench.json")
        Path(dictionary).write_text(history.to_json(), encoding="utf-8")
        logs = sorted(Path(tmp).rglob("*.arc"))
        batches = table.to_batches(max_chunksize=8192)
        share = min(1.0, args.python_mb / args.mb)
        python_batches = table.slice(0, int(table.num_rows * share)).to_batches(max_chunksize=8192)
        print(
            f"workload: seed {args.seed}, {log_bytes / 1e6:.1f} MB of redo in {len(logs)} logs, "
            f"{table.num_rows:,} events (generated and decoded in {time.perf_counter() - t0:.0f} s)"
        )
        results: dict[str, tuple[float, int, float]] = {}
        cat = min(cat_seconds(logs) for _ in range(args.repeat)) if logs else float("nan")
        for name, run, data, part in (
            ("rust stage (assemble_arrow)", run_rust, batches, 1.0),
            ("rust stage, python's share", run_rust, python_batches, share),
            ("python stage, its share", run_python, python_batches, share),
        ):
            best = min((run(data, dictionary) for _ in range(args.repeat)), key=lambda r: r[0])
            results[name] = (best[0], best[1], log_bytes * part / 1e6 / best[0])
        if results["rust stage, python's share"][1] != results["python stage, its share"][1]:
            raise SystemExit(f"the stages disagree: {results}")
        print(f"{'':30} {'CPU s':>8} {'trail rows':>11} {'MB redo/CPU-s':>14}")
        if logs:
            rate = f"{log_bytes / 1e6 / cat:14.1f}" if cat > 0 else f"{'(< 10 ms)':>14}"
            print(f"{'cat':30} {cat:8.3f} {'':>11} {rate}")
        for name, (seconds, rows, rate) in results.items():
            print(f"{name:30} {seconds:8.3f} {rows:11,} {rate:14.1f}")
        rust, python = results["rust stage, python's share"][2], results["python stage, its share"][2]
        print(f"rust against python (same share): {rust / python:.1f}x")


if __name__ == "__main__":
    main()
