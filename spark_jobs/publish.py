"""Stage 4, publish: a validated batch into the changelog table and one mirror table per source table.

Refuses (exit 3) unless ``<batch>/VALIDATED`` exists, and while the manifest's ``previous_batch`` has
no ``PUBLISHED`` marker. Then, for the tables that do not hold the batch yet (``tables.Store``):

1. Spark stages Parquet (TIMESTAMP_MICROS) in ``<batch>/publish/``: the trail for the changelog,
   one file per (owner, table, commit day) partition; and per mirror the batch's changes folded
   over the rows the mirror holds for the affected keys only (``mirror.fold``).
2. The staged files are placed (Iceberg: moved under the table's ``data/_redotrail/<batch_id>/``).
3. Each table is committed in one catalog commit: the changelog replaces the batch's rows
   (``batch_id = X``), a mirror replaces the affected keys. A run killed before a table's commit
   leaves it as it was; a rerun skips committed tables and cleans up what the killed run staged.
4. ``<batch>/PUBLISHED`` is written last, with each table's snapshot id (Iceberg) or version (Delta).

    spark-submit spark_jobs/publish.py --batch-dir DIR --warehouse URI [--format iceberg|delta]
        [--catalog-uri URI] [--catalog-property KEY=VALUE ...] [--namespace redotrail]

Embedded default: ``--warehouse file://<repo>/data/warehouse`` and an Iceberg SqlCatalog on
``sqlite:///<warehouse>/catalog.db``.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # run as a script: make ``spark_jobs`` importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from redo_lib.trail.schema import commit_log_name
from spark_jobs import mirror
from spark_jobs.common import (
    DATA,
    BatchDir,
    build_session,
    read_trail,
    report_failure,
    run_stage,
    ship_module,
)
from spark_jobs.tables import CHANGELOG, DeltaStore, IcebergStore, Store, table_name

EXIT_REFUSED = 3
PARTITION_DIRS = ("rt_owner", "rt_table", "rt_day")


@dataclass(frozen=True)
class JobArgs:
    batch_dir: str
    warehouse: str
    format: str
    catalog_uri: str | None
    catalog_properties: dict[str, str]
    namespace: str


def parse_args(argv: list[str] | None) -> JobArgs:
    parser = argparse.ArgumentParser(prog="publish", description=__doc__.splitlines()[0])
    parser.add_argument("--batch-dir", required=True, help="local folder or s3:// prefix of the batch")
    parser.add_argument("--warehouse", default=f"file://{DATA / 'warehouse'}", help="warehouse URI")
    parser.add_argument("--format", choices=("iceberg", "delta"), default="iceberg")
    parser.add_argument(
        "--catalog-uri", default=None, help="pyiceberg catalog uri (default: SQLite in the warehouse)"
    )
    parser.add_argument(
        "--catalog-property", action="append", default=[], metavar="KEY=VALUE",
        help="any pyiceberg catalog property (type=rest, s3.endpoint=..., ...)",
    )  # fmt: skip
    parser.add_argument("--namespace", default="redotrail")
    ns = parser.parse_args(argv)
    props = dict(p.split("=", 1) for p in ns.catalog_property)
    return JobArgs(ns.batch_dir, ns.warehouse, ns.format, ns.catalog_uri, props, ns.namespace)


def open_store(args: JobArgs) -> Store:
    if args.format == "delta":
        return DeltaStore(warehouse=args.warehouse, namespace=args.namespace)
    return IcebergStore(
        warehouse=args.warehouse, namespace=args.namespace, catalog_uri=args.catalog_uri,
        properties=args.catalog_properties,
    )  # fmt: skip


def refusal(batch: BatchDir, manifest: dict[str, Any]) -> str | None:
    """Why the batch may not be published now, or None."""
    if not batch.exists("VALIDATED"):
        return "not validated (no VALIDATED marker)"
    previous = manifest.get("previous_batch")
    if previous and not batch.sibling(previous).exists("PUBLISHED"):
        return f"previous batch {previous} is not published yet"
    return None


def fault(point: str) -> None:
    """Test hook: ``REDOTRAIL_FAULT=<point>`` kills the process here (SIGKILL, nothing runs after)."""
    if os.environ.get("REDOTRAIL_FAULT") == point:
        os.kill(os.getpid(), signal.SIGKILL)


def _parquet_files(folder: Path) -> list[Path]:
    return sorted(p for p in folder.rglob("part-*.parquet") if p.is_file())


def stage_changelog(trail: Any, batch_id: str, folder: Path, *, commit_date: bool) -> list[Path]:
    """The batch's trail as changelog files, each holding one (owner, table, commit day)."""
    from pyspark.sql import functions as F

    frame = trail.withColumn("batch_id", F.lit(batch_id))
    if commit_date:
        frame = frame.withColumn("commit_date", F.to_date("commit_time"))
    frame = (
        frame.withColumn("rt_owner", F.coalesce("owner", F.lit("")))
        .withColumn("rt_table", F.col("table"))
        .withColumn("rt_day", F.to_date("commit_time"))
    )
    frame.repartition(*PARTITION_DIRS).write.partitionBy(*PARTITION_DIRS).mode("overwrite").parquet(
        str(folder)
    )
    return _parquet_files(folder)


@dataclass
class MirrorPlan:
    source_table: str
    name: str
    key_columns: list[str]
    columns: list[str]
    files: list[Path]
    delete_keys: list[list[str | None]]
    partial_rows: int


def replayed_changes(
    spark: Any, changed: Any, store: Store, commit_logs: list[str], batch_id: str, folder: Path
) -> Any:
    """The changes published after this batch's first commit to the keys it touches (None if none).

    A batch that is not the newest one published (a backfill, a re-run of an older batch) is folded
    over mirror rows that already hold later changes. Applying the batch and then every later change
    of the same keys, in commit order, gives the state the mirror must hold: replaying a suffix of a
    key's history over the state it led to changes nothing (an insert or delete resets the row, an
    update sets the columns it carries to their last values). Later changes come from the changelog
    (every table's rows from the batch's lowest commit SCN on, other than the ones this publish
    replaces), with keys joined by primary-key updates followed to the end of their chain."""
    from pyspark.sql import functions as F

    from redo_lib.trail.schema import trail_schema

    floor = changed.agg(F.min("commit_scn")).first()[0]
    tables = [r[0] for r in changed.select("source_table").distinct().collect()]
    if floor is None or not tables:
        return None
    pairs = [tuple(t.split(".", 1)) if "." in t else ("", t) for t in tables]
    rows = store.read_changelog_after(pairs, int(floor), commit_logs, batch_id)
    if rows is None or rows.num_rows == 0:
        return None
    import pyarrow as pa
    import pyarrow.parquet as pq

    schema = trail_schema()
    rows = pa.table([rows.column(f.name).cast(f.type) for f in schema], schema=schema.remove_metadata())
    folder.mkdir(parents=True, exist_ok=True)
    pq.write_table(rows, folder / "part-00000.parquet")
    later = mirror.changes(read_trail(spark, folder))
    keys = {(r[0], r[1]) for r in changed.select("source_table", "key").distinct().collect()}
    keys |= {
        (r[0], r[1]) for r in changed.where("old_key IS NOT NULL").select("source_table", "old_key").collect()
    }
    moves = later.where("op = 'PK_UPDATE'").select("source_table", "old_key", "key", "commit_scn").collect()
    for move in sorted(moves, key=lambda m: m["commit_scn"]):  # a key's chain of PK updates, in order
        if (move["source_table"], move["old_key"]) in keys:
            keys.add((move["source_table"], move["key"]))
    wanted = spark.createDataFrame(sorted(keys), "source_table string, key string")
    return (
        later.join(F.broadcast(wanted), ["source_table", "key"], "left_semi")
        .unionByName(
            later.join(
                F.broadcast(wanted.withColumnRenamed("key", "old_key")),
                ["source_table", "old_key"],
                "left_semi",
            )
        )
        .distinct()
    )


def stage_mirrors(
    spark: Any, trail: Any, store: Store, sources: dict[str, str], batch_id: str, folder: Path,
    commit_logs: list[str] | None = None,
) -> list[MirrorPlan]:  # fmt: skip
    """Fold the batch (and the later changes of its keys) over the affected rows of each pending
    mirror and stage the result."""
    from pyspark.sql import functions as F

    changed = mirror.changes(trail).where(F.col("source_table").isin(list(sources)))
    later = replayed_changes(spark, changed, store, commit_logs or [], batch_id, folder / "_replay")
    if later is not None:
        changed = changed.unionByName(later.where(F.col("source_table").isin(list(sources))))
    affected = mirror.affected_keys(changed)
    existing = []
    for source, (key_columns, keys) in affected.items():
        rows = store.read_rows(sources[source], key_columns, keys)
        if rows is not None and rows.num_rows:
            existing.append(mirror.existing_rows(spark, source, key_columns, rows))
    folded = mirror.fold(changed, existing).cache()
    plans = []
    try:
        touched: dict[str, list[Any]] = {}
        for row in folded.select("source_table", "key", "partial").collect():  # bounded by the batch
            touched.setdefault(row["source_table"], []).append(row)
        known = {source: store.mirror_columns(name) or [] for source, name in sources.items()}
        columns = mirror.table_columns(folded, known)
        for source, name in sorted(sources.items()):
            frame = mirror.wide(folded, source, columns[source], with_deletes=store.format == "delta")
            target = folder / name
            frame.coalesce(1).write.mode("overwrite").parquet(str(target))
            rows = touched.get(source, [])
            plans.append(
                MirrorPlan(
                    source,
                    name,
                    affected.get(source, ([], []))[0],
                    columns[source],
                    _parquet_files(target),
                    [json.loads(r["key"]) for r in rows],
                    sum(1 for r in rows if r["partial"]),
                )
            )
    finally:
        folded.unpersist()
    return plans


def main(argv: list[str] | None = None, *, spark: Any = None) -> int:
    args = parse_args(argv)
    published: list[str] = []  # the tables committed before a failure
    return run_stage(
        "publish", args.batch_dir, lambda: run(args, published, spark=spark), published=published
    )


def run(args: JobArgs, published: list[str], *, spark: Any = None) -> int:
    from pyspark.sql import functions as F

    batch = BatchDir(args.batch_dir)
    manifest = batch.read_json("manifest.json", default={})
    batch_id = manifest.get("batch_id") or batch.name
    # this run of the batch (a retry keeps it, a re-run or backfill gets a new one: tables.py)
    publication = manifest.get("publication") or batch_id
    commit_logs = sorted(
        commit_log_name(log["thread"], log["sequence"], log.get("resetlogs_id"))
        for log in manifest.get("logs") or ()
    )
    reason = refusal(batch, manifest)
    if reason:
        print(f"publish {batch_id}: refused: {reason}", file=sys.stderr)
        return report_failure(
            batch.uri, "publish", kind="refused", message=f"refused: {reason}", retryable=False,
            exit_code=EXIT_REFUSED,
        )  # fmt: skip
    if batch.exists("PUBLISHED"):
        print(f"publish {batch_id}: already published ({batch.uri_of('PUBLISHED')})")
        return 0
    store = open_store(args)
    session = build_session(f"redotrail-publish-{batch_id}", spark=spark)
    ship_module(mirror)
    with batch.local_dir("trail") as trail_dir, batch.scratch_dir("publish") as scratch:
        trail = read_trail(session, trail_dir).cache()
        try:
            rows = trail.where(mirror.APPLIED).select(F.expr(mirror.SOURCE_TABLE)).distinct().collect()
            sources = {r[0]: table_name(r[0]) for r in rows}
            if len(set(sources.values())) != len(sources) or CHANGELOG in sources.values():
                raise ValueError(f"source tables collide on mirror names: {sorted(sources.items())}")
            pending = {s: n for s, n in sources.items() if not store.has_publication(n, publication)}
            changelog_files: list[Path] | None = None
            if not store.has_publication(CHANGELOG, publication):
                changelog_files = stage_changelog(
                    trail, batch_id, scratch / CHANGELOG, commit_date=store.format == "delta"
                )
            plans = (
                stage_mirrors(session, trail, store, pending, batch_id, scratch / "mirror", commit_logs)
                if pending
                else []
            )
        finally:
            trail.unpersist()
        placed_changelog = (
            store.place(CHANGELOG, batch_id, changelog_files, scratch / CHANGELOG)
            if changelog_files is not None
            else None
        )
        placed = [store.place(p.name, batch_id, p.files, scratch / "mirror" / p.name) for p in plans]
        fault("publish-staged")
        if placed_changelog is not None:
            store.commit_changelog(
                batch_id, placed_changelog, publication=publication, commit_logs=commit_logs
            )
            published.append(CHANGELOG)
        for plan, files in zip(plans, placed, strict=True):
            store.commit_mirror(
                plan.name,
                plan.source_table,
                batch_id,
                plan.columns,
                plan.key_columns,
                files,
                plan.delete_keys,
                publication=publication,
            )
            published.append(plan.name)
            partial = f", {plan.partial_rows} partial rows (no row to update)" if plan.partial_rows else ""
            print(
                f"publish {batch_id}: {plan.source_table} -> {plan.name}: {len(plan.delete_keys)} keys{partial}"
            )
    tables = {name: store.version(name) for name in [CHANGELOG, *sorted(sources.values())]}
    doc = {
        "batch_id": batch_id,
        "format": store.format,
        "warehouse": args.warehouse,
        "namespace": args.namespace,
        "sources": dict(sorted(sources.items())),
        "tables": tables,
    }
    batch.write_json(doc, "PUBLISHED")
    print(f"publish {batch_id}: {len(tables)} tables at {args.warehouse} ({store.format})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
