"""Stage 2, assemble: change events -> committed transactions -> the batch's trail, in commit order.

Reads ``<batch>/staging/events`` and the open transactions carried in from the previous batch
(``manifest.carried_in``, a folder of the previous batch), groups them by transaction slot (usn, slot)
with a shuffle, sorts each partition by redo position (Spark's external sort), and runs the library's
transaction assembly on each partition (``redo_lib.batches.assemble_arrow`` in ``mapInArrow``: Arrow
batches in and out, no row-by-row Python conversion): no transaction is collected onto the driver or
held whole in a task (its changes stream through a spilling buffer). Each partition returns its
trail rows (with their commit-order key), the events of the transactions it leaves open and its
counts, as rows of one schema that Spark stages once as Parquet (``<batch>/staging/assembled``);
the trail rows are then put in global commit order with a distributed sort and numbered densely
(``trail_seq``) from the per-partition counts of that sort.

Writes ``<batch>/trail`` (Parquet, ``redo_lib.trail.schema.trail_schema()``), ``<batch>/open``
(events of transactions still open, for the next batch) and ``<batch>/counts.json``. Spark reads and
writes every folder where the batch is (a local path, or ``s3a://`` for an ``s3://`` batch).

    spark-submit spark_jobs/assemble.py --batch-dir DIR [--partitions N] [--emit-unknown]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from redo_lib.assembly.events import EventKind
from redo_lib.batches import (
    ORDER_FIELDS,
    OUTPUT,
    assemble_arrow,
    assembled_schema,
    events_schema,
    evolve_batch_dictionary,
    load_manifest,
    merge_counts,
)
from redo_lib.trail.emit import capture_options
from redo_lib.trail.schema import trail_schema
from spark_jobs.common import BatchDir, build_session, carry_errors, run_stage, ship_library

SORT = ["usn", "slot", "scn", "subscn", "thread", "seq", "block", "offset", "vector"]


@dataclass(frozen=True)
class JobArgs:
    batch_dir: str
    partitions: int | None
    emit_unknown: bool


def parse_args(argv: list[str] | None) -> JobArgs:
    parser = argparse.ArgumentParser(prog="assemble", description=__doc__.splitlines()[0])
    parser.add_argument("--batch-dir", required=True, help="local folder or s3:// prefix of the batch")
    parser.add_argument("--partitions", type=int, default=None, help="transaction-slot partitions")
    parser.add_argument("--emit-unknown", action="store_true", help="emit objects outside the dictionary")
    ns = parser.parse_args(argv)
    return JobArgs(str(ns.batch_dir), ns.partitions, ns.emit_unknown)


def _spark_schema(arrow_schema: Any) -> Any:
    from pyspark.sql.pandas.types import from_arrow_schema

    return from_arrow_schema(arrow_schema)


def main(argv: list[str] | None = None, *, spark: Any = None) -> int:
    args = parse_args(argv)
    return run_stage("assemble", args.batch_dir, lambda: run(args, spark=spark))


def events_at(session: Any, location: str) -> Any:
    """An events folder (staged or carried in) as a DataFrame; an absent folder gives no rows."""
    folder = BatchDir(location)
    schema = _spark_schema(events_schema())
    if not folder.exists():
        return session.createDataFrame([], schema)
    return session.read.schema(schema).parquet(folder.spark_uri())


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
    from pyspark import StorageLevel
    from pyspark.sql import functions as F

    batch = BatchDir(args.batch_dir)
    manifest = load_manifest(batch.uri)
    session = build_session(f"redotrail-assemble-{manifest.batch_id}", spark=spark)
    ship_library(session)
    schema = _spark_schema(events_schema())
    events = session.read.schema(schema).parquet(batch.spark_uri("staging", "events"))
    events = events.withColumn("carried", F.lit(False))
    if manifest.carried_in:
        carried = events_at(session, manifest.carried_in).withColumn("carried", F.lit(True))
        events = events.unionByName(carried)
    partitions = args.partitions or int(session.conf.get("spark.sql.shuffle.partitions"))
    # Whole (usn, slot) groups per partition. Transactions that write LOB pages all go to one
    # partition: an append names pages an earlier transaction of the batch wrote, and the partition's
    # LOB store (the core emitter's) must hold them (docs/lobs.md). Every other slot is hashed.
    lob_slots = events.filter(F.col("kind") == int(EventKind.LOB)).select("usn", "slot").distinct()
    lob_slots = lob_slots.withColumn("_lob", F.lit(True))
    key = F.when(F.col("_lob"), F.lit(-1)).otherwise(F.pmod(F.xxhash64("usn", "slot"), F.lit(partitions)))
    grouped = (
        events.join(F.broadcast(lob_slots), ["usn", "slot"], "left")
        .withColumn("_part", key)
        .repartition(partitions, "_part")
        .drop("_part", "_lob")
        .sortWithinPartitions(*SORT)
    )

    # DDL first (a few rows, on the driver): every partition must see the same dictionary versions.
    # Only DDL below the watermark: another thread's DDL at a lower SCN may still come in the next
    # batch, which meets these again (carried with their held or open transaction)
    ddl = events.filter(F.col("kind") == int(EventKind.DDL))
    if manifest.watermark_scn is not None:
        ddl = ddl.filter(F.col("scn") < manifest.watermark_scn)
    ddl_rows = [r.asDict(recursive=True) for r in ddl.orderBy(*SORT[2:]).collect()]
    for row in ddl_rows:
        row.pop("carried", None)
    start, source = starting_dictionary(batch, manifest)
    dictionary, ddl_counts, ddl_problems = evolve_batch_dictionary(
        start, ddl_rows, batch.uri, own_copy=start != source
    )
    # the manifest's capture scope (docs/operations.md): the same for every partition
    options = {"emit_unknown": args.emit_unknown, "apply_ddl": False, **capture_options(manifest.capture)}
    batch_id = manifest.batch_id
    # one incarnation per batch (the planner never mixes them): names every commit's log
    resetlogs_id = manifest.logs[0].resetlogs_id if manifest.logs else None
    # RAC: transactions committing at or above the watermark wait for the next batch, which has the
    # other threads' redo up to them (global commit order across batches, docs/pipeline-contract.md)
    hold_from = manifest.watermark_scn

    @carry_errors  # an assembly error reaches the driver with its position (failure.json)
    def assemble(batches: Iterator[Any]) -> Iterator[Any]:
        return assemble_arrow(
            batches, dictionary, options, batch_id=batch_id, resetlogs_id=resetlogs_id, hold_from=hold_from
        )

    # 1. assembly per partition, Arrow in and out; materialised once as Parquet (every output of a
    #    partition, trail rows, open transactions and counts, is produced exactly once)
    steps = Steps()
    staged_uri = batch.spark_uri("staging", "assembled")
    assembled_schema_ = _spark_schema(assembled_schema())
    grouped.mapInArrow(assemble, assembled_schema_).write.mode("overwrite").parquet(staged_uri)
    steps.done("assembled (shuffle by slot, sort, core, staged)")
    staged = session.read.schema(assembled_schema_).parquet(staged_uri)
    output = F.col(OUTPUT)
    # 2. the open transactions for the next batch, in begin order; the counts, to the driver
    events_columns = [f"open_event.{f.name}" for f in events_schema()]
    open_events = staged.where(output == "open").orderBy("open_order").select(*events_columns)
    open_events.write.mode("overwrite").parquet(batch.spark_uri("open"))
    parts = [json.loads(r[0]) for r in staged.where(output == "counts").select("counts").collect()]
    steps.done("open transactions and counts")
    # 3. global commit order (a range-partitioned distributed sort, never a collect of the trail), then
    #    dense numbering: trail_seq = rows of the earlier sorted partitions + position in its own
    order = [F.col(name) for name in ORDER_FIELDS]
    ordered = (
        staged.where(output == "trail").orderBy(*order)
        .withColumn("_part", F.spark_partition_id())
        .withColumn("_row", F.monotonically_increasing_id())
        .persist(StorageLevel.DISK_ONLY)
    )  # fmt: skip
    sizes = dict(ordered.groupBy("_part").count().collect())
    steps.done("commit order (distributed sort)")
    offsets, total = {}, 0
    for part in sorted(sizes):
        offsets[part], total = total, total + sizes[part]
    first = (
        F.create_map(*(F.lit(x) for part, off in offsets.items() for x in (part, off))) if offsets else None
    )
    # monotonically_increasing_id = (partition id << 33) + position in the partition
    position = F.col("_row") - F.shiftleft(F.col("_part").cast("long"), 33)
    seq = (F.element_at(first, F.col("_part")) + position) if first is not None else F.lit(0).cast("long")
    trail = ordered.withColumn("trail_seq", seq).select(*(f.name for f in trail_schema()))
    trail.write.mode("overwrite").parquet(batch.spark_uri("trail"))
    steps.done("trail written")
    ordered.unpersist()
    batch.remove_tree("staging", "assembled")

    counts = {"batch_id": batch_id, **merge_counts(parts), "ddl": ddl_counts, "ddl_problems": ddl_problems,
              "dictionary": dictionary, "dictionary_source": source}  # fmt: skip
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
