"""Stage 2, assemble: change events -> committed transactions -> the batch's trail, in commit order.

Reads the events decode staged (``<batch>/staging/events``, in row groups of one transaction-slot
bucket each; where each is, ``staging/units.json``) and the open transactions carried in from the
previous batch (``manifest.carried_in``, a folder of the previous batch). Spark runs the tasks; the
tasks read and write their Arrow data themselves (``redo_lib/exchange.py``: Spark's shuffle and
sort of nested rows cost several times the assembly, docs/benchmarks.md):

1. one task per group of buckets (``exchange.pack``: about equal events; and one for the slots that
   wrote LOB pages) feeds its carried-in events, then each bucket's events in redo order, to the Rust core (``redo_lib.batches.assemble_task``): no
   transaction is held whole (its changes stream through a spilling buffer). It writes its trail
   rows into one run per commit-SCN range and the events of the transactions it leaves open to
   ``<batch>/open/``, and hands the driver its counts;
2. one task per commit range merges that range's runs into commit order and numbers them densely
   (``trail_seq``) from the row counts of the ranges before it (``redo_lib.batches.trail_range``).

Writes ``<batch>/trail`` (Parquet, ``redo_lib.trail.schema.trail_schema()``, one part per range),
``<batch>/open`` (events of transactions still open, for the next batch), ``<batch>/lobs`` (the LOB
pages a later append may name, ``redo_lib/lob_carry.py``: read in by this batch's LOB task from the
previous batch's ``lobs/``) and ``<batch>/counts.json``, wherever the batch is (a local path, or
``s3://``).

    spark-submit spark_jobs/assemble.py --batch-dir DIR [--partitions N] [--emit-unknown]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter
from dataclasses import dataclass
from typing import Any

from redo_lib.assembly.events import EventKind
from redo_lib.batch_dictionary import REDO_ORDER, dictionary_transactions, evolve_batch_dictionary
from redo_lib.batches import (
    AssemblePlan,
    assemble_task,
    dictionary_at,
    load_manifest,
    lob_table_slots,
    merge_counts,
    trail_range,
    unit_locators,
)
from redo_lib.errors import AssemblyError, Position
from redo_lib.exchange import carried_rows, kind_rows, pack, range_bounds
from redo_lib.lob_carry import LOBS, carried_slots, check_carried_lobs, lobs_beside
from redo_lib.trail.emit import capture_options, image_options
from redo_lib.unsupported import batch_unsupported, parse_vector_counts
from spark_jobs.common import BatchDir, build_session, run_stage, run_tasks, ship_library


@dataclass(frozen=True)
class JobArgs:
    batch_dir: str
    partitions: int | None
    emit_unknown: bool


def parse_args(argv: list[str] | None) -> JobArgs:
    parser = argparse.ArgumentParser(prog="assemble", description=__doc__.splitlines()[0])
    parser.add_argument("--batch-dir", required=True, help="local folder or s3:// prefix of the batch")
    parser.add_argument(
        "--partitions",
        type=int,
        default=None,
        help="commit ranges of the trail, one part each (default: the buckets)",
    )
    parser.add_argument("--emit-unknown", action="store_true", help="emit objects outside the dictionary")
    ns = parser.parse_args(argv)
    return JobArgs(str(ns.batch_dir), ns.partitions, ns.emit_unknown)


def main(argv: list[str] | None = None, *, spark: Any = None) -> int:
    args = parse_args(argv)
    return run_stage("assemble", args.batch_dir, lambda: run(args, spark=spark))


def starting_dictionary(batch: BatchDir, manifest: Any) -> tuple[str | None, str | None]:
    """(the dictionary the batch's assembly starts from, the export that chain of batches started
    from). A batch starts where its previous batch's assembly left the dictionary (its ``counts.json``
    ``dictionary``: evolved by the DDL it met, docs/tables.md), as long as that chain started from the
    export the manifest names; a manifest naming another export (a refreshed dictionary) starts from
    that export. Without a previous batch, or its counts, from the manifest's."""
    export = manifest.dictionary
    if not manifest.previous_batch:
        return export, export
    previous = batch.sibling(manifest.previous_batch).read_json("counts.json", default={})
    source = previous.get("dictionary_source", previous.get("dictionary"))
    if export is not None and source == export and previous.get("dictionary"):
        return previous["dictionary"], export
    return export, export


def logged_vectors(batch: BatchDir) -> dict[tuple[str, int], int]:
    """The decode stage's ``unsupported_vectors`` of every log of the batch (``staging/logs.json``)."""
    total: Counter[tuple[str, int]] = Counter()
    for entry in batch.read_json("staging", "logs.json", default={}).values():
        total.update(parse_vector_counts(entry.get("unsupported_vectors") or {}))
    return dict(total)


def _row_changes(section: dict[str, Any]) -> int:
    return sum(n for ops in section.values() for n in ops.values())


def check_carried_in(batch: BatchDir, manifest: Any, results: list[dict[str, Any]]) -> None:
    """Every row change the previous batch carried out was carried in here (fed to some task): the
    tasks read the carried-in files by bucket, and a missed bucket would lose open transactions
    without a trace in this batch's balance. Compared in total (a DDL between the batches may
    rename a table). Only when ``carried_in`` is the previous batch's ``open/``."""
    if not manifest.previous_batch or not manifest.carried_in:
        return
    previous = batch.sibling(manifest.previous_batch)
    if BatchDir(manifest.carried_in).uri != previous.uri_of("open"):
        return
    counts = previous.read_json("counts.json", default=None)
    if not counts or "carried_out" not in counts:
        return
    out = _row_changes(counts["carried_out"])
    came = sum(_row_changes(r["counts"].get("carried_in", {})) for r in results)
    if came != out:
        raise AssemblyError(
            f"the previous batch {manifest.previous_batch} carried out {out} row changes of open "
            f"transactions, this batch's assembly took in {came}",
            position=Position(file=manifest.carried_in),
        )


def check_lobs_carried_in(batch: BatchDir, manifest: Any, results: list[dict[str, Any]]) -> None:
    """Every LOB page the previous batch carried out was read in here, or left out as a page of a
    LOB that went (``lob_carry.check_carried_lobs``); as :func:`check_carried_in`, only when
    ``carried_in`` is the previous batch's ``open/`` (its ``lobs/`` beside it)."""
    if not manifest.previous_batch or not manifest.carried_in:
        return
    previous = batch.sibling(manifest.previous_batch)
    if BatchDir(manifest.carried_in).uri != previous.uri_of("open"):
        return
    lobs = merge_counts(r["counts"] for r in results).get("lobs", {})
    check_carried_lobs(previous.read_json("counts.json", default=None), lobs, previous.uri_of(LOBS))


class Steps:
    """Wall-clock seconds of the stage's steps, for its log line: where a batch's time went."""

    def __init__(self) -> None:
        self.last = time.monotonic()
        self.times: list[tuple[str, float]] = []

    def done(self, name: str) -> None:
        now = time.monotonic()
        self.times.append((name, now - self.last))
        self.last = now

    def __str__(self) -> str:
        return ", ".join(f"{name} {seconds:.1f} s" for name, seconds in self.times)


def run(args: JobArgs, *, spark: Any = None) -> int:

    batch = BatchDir(args.batch_dir)
    manifest = load_manifest(batch.uri)
    session = build_session(f"redotrail-assemble-{manifest.batch_id}", spark=spark)
    ship_library(session)
    steps = Steps()
    exchange = batch.read_json("staging", "units.json")
    units = tuple(exchange["units"])
    buckets = int(exchange["buckets"])
    carried = tuple(BatchDir(manifest.carried_in).files()) if manifest.carried_in else ()
    lobs_in = lobs_beside(manifest.carried_in)  # the LOB pages are carried beside the open transactions
    carried_lobs = tuple(BatchDir(lobs_in).files()) if lobs_in else ()

    # DDL first (a few rows, on the driver): every task must see the same dictionary versions.
    # Only DDL below the watermark: another thread's DDL at a lower SCN may still come in the next
    # batch, which meets these again (carried with their held or open transaction)
    # (the units decode counted DDL in, and the carried-in files, read by the driver: a few rows)
    files = [unit["file"] for unit in units if unit.get("ddl", 1)] + list(carried)
    ddl_rows = [
        row for row in kind_rows(files, int(EventKind.DDL))
        if manifest.watermark_scn is None or row["scn"] < manifest.watermark_scn
    ]  # fmt: skip
    ddl_rows.sort(key=lambda row: [row[name] for name in REDO_ORDER])
    start, source = starting_dictionary(batch, manifest)
    # and the row changes of the SYS dictionary tables (new partitions, new data object ids): the
    # transactions that made them, read whole from the units and the carried-in files
    disagreements: list[dict[str, Any]] = []  # the SYS.COL$ rows won over a DDL text's version
    dictionary, ddl_counts, ddl_problems = evolve_batch_dictionary(
        start, ddl_rows, batch.uri, own_copy=start != source, disagreements=disagreements,
        sys_events=lambda objs: dictionary_transactions(units, carried, buckets, objs),
        hold_from=manifest.watermark_scn,
        resetlogs_id=manifest.logs[0].resetlogs_id if manifest.logs else None,
    )  # fmt: skip
    steps.done("dictionary")
    # the slots that wrote LOB pages and those that wrote a locator naming pages into a table with a
    # LOB column (the pages may be another transaction's), in this batch's logs or in an open
    # transaction carried in: the LOB task's, whose store holds the batch's pages and those carried in
    carried_pages, carried_locators = carried_slots(carried)
    lob_slots = tuple(
        sorted(
            {key for unit in units for key in unit["lob_slots"]}
            | carried_pages
            | lob_table_slots(unit_locators(units) | carried_locators, dictionary)
        )
    )
    # the buckets into tasks of about equal events (a few busy slots hash unevenly), the carried-in
    # transactions' buckets among them (a transaction with no events in this batch still commits,
    # rolls back or goes on being carried)
    sizes: Counter[int] = carried_rows(carried, buckets)
    for unit in units:
        sizes.update({int(b): n for b, n in unit["bucket_rows"].items()})
    tasks = args.partitions or 2 * session.sparkContext.defaultParallelism
    plan = AssemblePlan(
        batch_dir=batch.uri,
        batch_id=manifest.batch_id,
        units=units,
        buckets=buckets,
        task_buckets=tuple(tuple(group) for group in pack(dict(sizes), tasks)),
        lob_slots=lob_slots,
        carried=carried,
        # commit-SCN ranges of about equal size, one trail part each
        bounds=tuple(range_bounds((s for u in units for s in u["scn_samples"]), tasks)),
        dictionary=dictionary,
        # the manifest's capture scope (docs/operations.md): the same for every task
        options={
            "emit_unknown": args.emit_unknown,
            "apply_ddl": False,
            **capture_options(manifest.capture),
            **image_options(manifest.images),
        },  # fmt: skip
        # one incarnation per batch (the planner never mixes them): names every commit's log
        resetlogs_id=manifest.logs[0].resetlogs_id if manifest.logs else None,
        # RAC: transactions committing at or above the watermark wait for the next batch, which has
        # the other threads' redo up to them (global commit order across batches)
        hold_from=manifest.watermark_scn,
        carried_lobs=carried_lobs,
    )
    for folder in (("trail",), ("open",), (LOBS,), ("staging", "runs")):  # a rerun replaces them
        batch.remove_tree(*folder)

    # 1. one task per bucket of transaction slots (and one for the slots that wrote LOB pages: an
    #    append names pages an earlier transaction of the batch wrote, and the task's LOB store must
    #    hold them, docs/lobs.md): its events through the core; trail rows into one run per commit
    #    range, open transactions into open/
    results = run_tasks(session, list(range(plan.tasks)), lambda task: assemble_task(task, plan))
    steps.done(f"assembled ({plan.tasks} tasks)")
    # 2. one task per commit range: its runs merged into commit order, numbered densely
    #    (trail_seq = rows of the ranges before + place in its own), written as trail/part-<range>
    sizes = [sum(r["runs"].get(str(rng), 0) for r in results) for rng in range(plan.ranges)]
    firsts = [sum(sizes[:rng]) for rng in range(plan.ranges)]
    writers = [[r["task"] for r in results if str(rng) in r["runs"]] for rng in range(plan.ranges)]
    ranges = run_tasks(
        session, list(range(plan.ranges)), lambda rng: trail_range(rng, plan, firsts[rng], writers[rng])
    )
    written = [r["rows"] for r in ranges]
    if written != sizes:
        raise RuntimeError(f"trail ranges wrote {written} rows, the assembly staged {sizes}")
    steps.done(f"commit order ({plan.ranges} ranges)")
    batch.remove_tree("staging", "runs")

    batch_id = manifest.batch_id
    hold_from = manifest.watermark_scn
    check_carried_in(batch, manifest, results)
    check_lobs_carried_in(batch, manifest, results)
    # the Python workers' high-water marks: after the assembly tasks (peak_rss_mb, from their
    # counts), after the merge tasks too (peak_rss_mb_merge: a worker runs tasks of both steps)
    peaks = [{"resources": {"peak_rss_mb_merge": r["peak_rss_mb_merge"]}} for r in ranges]
    counts = {"batch_id": batch_id, **merge_counts([*(r["counts"] for r in results), *peaks]), "ddl": ddl_counts,
              "ddl_problems": ddl_problems, "dictionary_disagreements": disagreements, "dictionary": dictionary,
              "dictionary_source": source}  # fmt: skip
    # captured tables whose changes the decoder detected but cannot read (docs/data-quality.md)
    counts["unsupported"] = batch_unsupported(
        counts, logged_vectors(batch), dictionary_at(dictionary), plan.options
    )
    batch.write_text(json.dumps(counts, indent=2, sort_keys=True), "counts.json")
    txns = counts.get("transactions", {})
    held = f" ({txns.get('held_carried_out', 0)} of them committed at or above SCN {hold_from})"
    print(
        f"assemble {batch_id}: {txns.get('emitted', 0)} transactions, "
        f"{sum(sum(ops.values()) for ops in counts.get('trail', {}).values())} trail records, "
        f"{txns.get('open_carried_out', 0)} open transactions carried out{held if hold_from is not None else ''}"
        f"; {steps}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
