"""Stage 2, assemble: change events -> committed transactions -> the batch's trail, in commit order.

Reads ``<batch>/staging/events`` and the open transactions carried in from the previous batch
(``manifest.carried_in``), groups them by transaction slot (usn, slot) with a shuffle, sorts each
partition by redo position (Spark's external sort), and runs the library's transaction assembly on
each partition (``redo_lib.batches.assemble_partition``): no transaction is collected onto the
driver or held whole in a task (its changes stream through a spilling buffer). The trail is then
put in global commit order and numbered (``trail_seq``) with a distributed sort.

Writes ``<batch>/trail`` (Parquet, ``redo_lib.trail.schema.trail_schema()``), ``<batch>/open``
(events of transactions still open, for the next batch) and ``<batch>/counts.json``.

    spark-submit spark_jobs/assemble.py --batch-dir DIR [--partitions N] [--emit-unknown]
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from redo_lib.batches import (
    assemble_partition,
    events_schema,
    evolve_batch_dictionary,
    load_manifest,
    merge_counts,
)
from redo_lib.trail.schema import trail_schema
from spark_jobs.common import build_session, reset_dir, ship_library

SORT = ["usn", "slot", "scn", "subscn", "thread", "seq", "block", "offset", "vector"]


@dataclass(frozen=True)
class JobArgs:
    batch_dir: Path
    partitions: int | None
    emit_unknown: bool


def parse_args(argv: list[str] | None) -> JobArgs:
    parser = argparse.ArgumentParser(prog="assemble", description=__doc__.splitlines()[0])
    parser.add_argument("--batch-dir", type=Path, required=True)
    parser.add_argument("--partitions", type=int, default=None, help="transaction-slot partitions")
    parser.add_argument("--emit-unknown", action="store_true", help="emit objects outside the dictionary")
    ns = parser.parse_args(argv)
    return JobArgs(ns.batch_dir, ns.partitions, ns.emit_unknown)


def _spark_schema(arrow_schema: Any) -> Any:
    from pyspark.sql.pandas.types import from_arrow_schema

    return from_arrow_schema(arrow_schema)


def main(argv: list[str] | None = None, *, spark: Any = None) -> int:
    from pyspark.sql import functions as F

    args = parse_args(argv)
    manifest = load_manifest(args.batch_dir)
    session = build_session(f"redotrail-assemble-{manifest.batch_id}", spark=spark)
    ship_library(session)
    schema = _spark_schema(events_schema())
    events = session.read.schema(schema).parquet(str(args.batch_dir / "staging" / "events"))
    events = events.withColumn("carried", F.lit(False))
    carried_in = Path(manifest.carried_in) if manifest.carried_in else None
    if carried_in is not None and any(carried_in.glob("*.parquet")):
        carried = session.read.schema(schema).parquet(str(carried_in)).withColumn("carried", F.lit(True))
        events = events.unionByName(carried)
    partitions = args.partitions or int(session.conf.get("spark.sql.shuffle.partitions"))
    grouped = events.repartition(partitions, "usn", "slot").sortWithinPartitions(*SORT)

    for name in ("open", "counts", "trail"):
        reset_dir(args.batch_dir / name)
    batch_dir = str(args.batch_dir)
    # DDL first (a few rows, on the driver): every partition must see the same dictionary versions
    ddl_rows = [
        r.asDict(recursive=True) for r in events.filter(F.col("kind") == 6).orderBy(*SORT[2:]).collect()
    ]
    for row in ddl_rows:
        row.pop("carried", None)
    dictionary, ddl_counts = evolve_batch_dictionary(manifest.dictionary, ddl_rows, batch_dir)
    options = {"emit_unknown": args.emit_unknown, "apply_ddl": False}
    trail = grouped.rdd.mapPartitionsWithIndex(
        lambda index, rows: assemble_partition(
            index, (row.asDict(recursive=True) for row in rows), batch_dir, dictionary, options
        )
    )
    # global commit order, then numbering: a distributed sort, never a collect of the trail
    numbered = trail.sortBy(lambda row: row["order_key"]).zipWithIndex()
    batch_id = manifest.batch_id

    def finish(pair: tuple[dict[str, Any], int]) -> dict[str, Any]:
        row, seq = pair
        row.pop("order_key")
        return {**row, "batch_id": batch_id, "trail_seq": seq}

    rows = numbered.map(finish)
    frame = session.createDataFrame(rows, schema=_spark_schema(trail_schema()))
    shutil.rmtree(args.batch_dir / "trail")
    frame.orderBy("trail_seq").write.mode("overwrite").parquet(str(args.batch_dir / "trail"))

    parts = [json.loads(p.read_text()) for p in sorted((args.batch_dir / "counts").glob("part-*.json"))]
    counts = {"batch_id": batch_id, **merge_counts(parts), "ddl": ddl_counts, "dictionary": dictionary}
    (args.batch_dir / "counts.json").write_text(json.dumps(counts, indent=2, sort_keys=True))
    print(
        f"assemble {batch_id}: {counts.get('transactions', {}).get('emitted', 0)} transactions, "
        f"{sum(sum(ops.values()) for ops in counts.get('trail', {}).values())} trail records, "
        f"{counts.get('transactions', {}).get('open_carried_out', 0)} open transactions carried out"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
