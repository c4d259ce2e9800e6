"""The transaction table of the Rust core (``redo_lib._native.TransactionTable``, issue 16) on a
generated workload. (The Python table it replaced, timed here before, was deleted once the core
agreed with it everywhere; its figures stay in docs/benchmarks.md.)

    .venv/bin/python bench/bench_assembly.py [--mb 32] [--seed 16] [--repeat 3] [--memory-limit 50000] [--dump FILE]

``--dump FILE`` also writes the workload's events (an Arrow IPC file, redo order, the logs' size in
its metadata) for the core alone, without Python and without Arrow out (``crates/redo-core/tests/
assembly_rate.rs``): ``cd crates && REDO_ASSEMBLY_EVENTS=FILE cargo test --release -p redo-core
--test assembly_rate -- --ignored --nocapture``.

The workload (``random_scenario(seed, size=...)``: the generator's mix of inserts, updates,
deletes, array and direct-path inserts, savepoints, rollbacks, LOBs, one or two threads) is generated
into a temporary folder and decoded once up front by the Rust core into record batches of the events
schema, put in redo order (threads merged by SCN). Then only the table is timed, in CPU seconds of
the process (the core runs on the calling thread): every event fed, every committed transaction's
changes pulled back as record batches, the open transactions carried out. The table is fed the
record batches (8,192 events each), which it reads into its own events and writes back as record
batches. Throughput is events per CPU-second and MB of redo (the logs' bytes) per CPU-second; the
best of ``--repeat`` runs, whose counters must agree.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from redo_lib.native import native  # noqa: E402
from redo_lib.pipeline import decode_range_arrow  # noqa: E402
from redo_lib.synth import generate, random_scenario  # noqa: E402


def workload(mb: int, seed: int, folder: Path) -> tuple[Any, int]:
    """The workload's events as one pyarrow table in redo order, and the logs' size in bytes."""
    import pyarrow as pa
    import pyarrow.compute as pc

    result = generate(random_scenario(seed, size=mb << 20), folder, record_steps=False)
    table = pa.Table.from_batches([b for log in result.logs for b in decode_range_arrow(str(log))])
    order = pc.sort_indices(
        table,
        sort_keys=[(k, "ascending") for k in ("scn", "subscn", "thread", "seq", "block", "offset", "vector")],
    )
    return table.take(order), result.log_bytes


def run_rust(batches: list[Any], memory_limit: int) -> tuple[float, dict[str, int]]:
    start = time.process_time()
    table = native.TransactionTable(memory_limit=memory_limit)
    for batch in batches:
        for txn in table.feed_batch(batch):
            for _ in txn.batches(max_rows=8192):
                pass
    table.carry_out()
    return time.process_time() - start, dict(table.counters)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--mb", type=int, default=32, help="workload size (MB of redo logs)")
    parser.add_argument("--seed", type=int, default=16)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--memory-limit", type=int, default=50_000)
    parser.add_argument("--dump", type=Path, help="also write the events here (Arrow IPC file)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-assembly-") as tmp:
        t0 = time.perf_counter()
        table, log_bytes = workload(args.mb, args.seed, Path(tmp))
        batches = table.to_batches(max_chunksize=8192)
        if args.dump:
            import pyarrow as pa

            schema = table.schema.with_metadata({"log_bytes": str(log_bytes)})
            with pa.OSFile(str(args.dump), "wb") as sink, pa.ipc.new_file(sink, schema) as writer:
                writer.write_table(table.replace_schema_metadata(schema.metadata), max_chunksize=8192)
        print(
            f"workload: seed {args.seed}, {log_bytes / 1e6:.1f} MB of redo, {table.num_rows:,} events "
            f"(generated and decoded in {time.perf_counter() - t0:.0f} s)"
        )
        times = []
        counters: list[dict[str, int]] = []
        for _ in range(args.repeat):
            elapsed, counted = run_rust(batches, args.memory_limit)
            times.append(elapsed)
            counters.append(counted)
        if any(c != counters[0] for c in counters):
            raise SystemExit(f"the runs disagree: {counters}")
        seconds = min(times)
        print(f"counters: {counters[0]}")
        print(f"{'table':18} {'CPU s':>8} {'events/s':>14} {'MB redo/s':>10}")
        print(
            f"{'rust':18} {seconds:8.3f} {table.num_rows / seconds:14,.0f} {log_bytes / 1e6 / seconds:10.1f}"
        )


if __name__ == "__main__":
    main()
