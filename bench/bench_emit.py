"""The emitter of the Rust core (``redo_lib._native.Emitter``, issue 16) on a generated workload, one
record batch per transaction (``emit``) and per 1,000 transactions (``emit_many``). (The Python
emitter it replaced, timed here before, was deleted once the core agreed with it everywhere; its
figures stay in docs/benchmarks.md.)

    .venv/bin/python bench/bench_emit.py [--mb 32] [--seed 16] [--repeat 3] [--schemaless] [--dump DIR]

``--dump DIR`` also writes the workload's events (``events.arrow``) and ``dictionary.json`` for the
core alone, without Python (``crates/redo-core/tests/trail_rate.rs``): ``cd crates &&
REDO_EMIT_DIR=DIR cargo test --release -p redo-core --test trail_rate -- --ignored --nocapture``.

The workload (``random_scenario(seed, size=...)``: the generator's mix of inserts, updates, deletes,
array and direct-path inserts, savepoints, rollbacks, LOBs, one or two threads) is generated into a
temporary folder with its dictionary and decoded by the Rust core, put in redo order. Before each
timed run, the committed transactions are prepared by the core's transaction table (not timed). Then
only the emitter is timed, in CPU seconds of the process: every committed transaction's changes
read, grouped into row changes, shaped with the dictionary and rendered into trail rows (``rust``:
one record batch of the trail schema per transaction; ``rust many``: ``emit_many``, one record batch
per 1,000 transactions). Throughput is trail records per CPU-second and MB of redo (the logs' bytes)
per CPU-second; the best of ``--repeat`` runs. Both ways' record counts and counters must agree, or
the run stops.
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

from redo_lib.dictionary import DictionaryHistory, load_dictionary  # noqa: E402
from redo_lib.native import native  # noqa: E402
from redo_lib.pipeline import decode_range_arrow  # noqa: E402
from redo_lib.synth import generate, random_scenario  # noqa: E402
from redo_lib.trail.schema import commit_log_name  # noqa: E402

MEMORY_LIMIT = 1_000_000  # nothing spills: the emitter is timed, not the spill files


def workload(mb: int, seed: int, folder: Path) -> tuple[Any, int, DictionaryHistory]:
    """The events as one pyarrow table in redo order, the logs' size in bytes, the dictionary."""
    import pyarrow as pa
    import pyarrow.compute as pc

    result = generate(random_scenario(seed, size=mb << 20), folder, record_steps=False)
    table = pa.Table.from_batches([b for log in result.logs for b in decode_range_arrow(str(log))])
    order = pc.sort_indices(
        table,
        sort_keys=[(k, "ascending") for k in ("scn", "subscn", "thread", "seq", "block", "offset", "vector")],
    )
    return table.take(order), result.log_bytes, load_dictionary(result.dictionary)


def _counts(emitter: Any) -> dict[str, Any]:
    return {
        "counters": {k: v for k, v in dict(emitter.counters).items() if v},
        "trail_counts": dict(emitter.trail_counts),
        "out_of_scope": dict(emitter.out_of_scope),
    }


def run_rust(batches: list[Any], dictionary: DictionaryHistory | None) -> tuple[float, int, dict[str, Any]]:
    table = native.TransactionTable(memory_limit=MEMORY_LIMIT)
    committed = [txn for batch in batches for txn in table.feed_batch(batch)]
    text = None if dictionary is None else dictionary.to_json()
    start = time.process_time()
    emitter = native.Emitter(text)
    records = 0
    for txn in committed:
        rows = emitter.emit(txn, commit_log=commit_log_name(txn.thread, txn.seq, None))
        records += len(rows)
    return time.process_time() - start, records, _counts(emitter)


def run_rust_many(
    batches: list[Any], dictionary: DictionaryHistory | None
) -> tuple[float, int, dict[str, Any]]:
    table = native.TransactionTable(memory_limit=MEMORY_LIMIT)
    committed = [txn for batch in batches for txn in table.feed_batch(batch)]
    logs = [commit_log_name(txn.thread, txn.seq, None) for txn in committed]
    text = None if dictionary is None else dictionary.to_json()
    start = time.process_time()
    emitter = native.Emitter(text)
    records = 0
    for i in range(0, len(committed), 1000):
        records += len(emitter.emit_many(committed[i : i + 1000], logs[i : i + 1000]))
    return time.process_time() - start, records, _counts(emitter)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--mb", type=int, default=32, help="workload size (MB of redo logs)")
    parser.add_argument("--seed", type=int, default=16)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--schemaless", action="store_true", help="emit without the dictionary")
    parser.add_argument("--dump", type=Path, help="also write events.arrow and dictionary.json here")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-emit-") as tmp:
        t0 = time.perf_counter()
        table, log_bytes, dictionary = workload(args.mb, args.seed, Path(tmp))
        if args.schemaless:
            dictionary = None
        batches = table.to_batches(max_chunksize=8192)
        if args.dump:
            import pyarrow as pa

            args.dump.mkdir(parents=True, exist_ok=True)
            schema = table.schema.with_metadata({"log_bytes": str(log_bytes)})
            path = str(args.dump / "events.arrow")
            with pa.OSFile(path, "wb") as sink, pa.ipc.new_file(sink, schema) as writer:
                writer.write_table(table.replace_schema_metadata(schema.metadata), max_chunksize=8192)
            (args.dump / "dictionary.json").write_text(
                dictionary.to_json() if dictionary is not None else "", encoding="utf-8"
            )
        print(
            f"workload: seed {args.seed}, {log_bytes / 1e6:.1f} MB of redo, {table.num_rows:,} events "
            f"(generated and decoded in {time.perf_counter() - t0:.0f} s)"
        )
        results: dict[str, float] = {}
        records: dict[str, int] = {}
        counts: dict[str, Any] = {}
        for name, run in (("rust", run_rust), ("rust many", run_rust_many)):
            times = []
            for _ in range(args.repeat):
                elapsed, records[name], counts[name] = run(batches, dictionary)
                times.append(elapsed)
            results[name] = min(times)
        if records["rust"] != records["rust many"] or counts["rust"] != counts["rust many"]:
            raise SystemExit(f"emit and emit_many disagree: {records} {counts}")
        print(f"trail records: {records['rust']:,}; counters: {counts['rust']['counters']}")
        print(f"{'emitter':10} {'CPU s':>8} {'records/s':>14} {'MB redo/s':>10}")
        for name, seconds in results.items():
            print(
                f"{name:10} {seconds:8.3f} {records[name] / seconds:14,.0f} {log_bytes / 1e6 / seconds:10.1f}"
            )
        print(f"rust many against rust: {results['rust'] / results['rust many']:.1f}x")


if __name__ == "__main__":
    main()
