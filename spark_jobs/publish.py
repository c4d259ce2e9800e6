"""Stage 4, publish: a validated batch into the changelog table and one mirror table per source table.

Refuses (exit 3) unless ``<batch>/VALIDATED`` exists, and while the manifest's ``previous_batch`` has
no ``PUBLISHED`` marker. Then, for the tables that do not hold this publication yet (``tables.Store``),
Spark writes the tables itself (Iceberg through the session catalog ``redotrail``, Delta by path):

1. Per pending mirror, the batch's changes (and the later ones of its keys, for a batch older than
   the newest: ``replayed_changes``) are folded over the rows the mirror holds for the affected keys
   (a join against the mirror, ``mirror.fold``): per key, the final row or a delete, computed once
   before any commit (a local checkpoint: the MERGE's source does not read its own target).
2. The changelog commits once: ``MERGE INTO`` adds the batch's trail rows and removes the rows the
   batch owns (``tables.Ownership``: its logs below its watermark, the held transactions it emits) and
   those of its earlier runs (the first publish creates the table with its rows).
3. Each mirror commits once: ``MERGE INTO`` of its folded rows (delete, update, insert).
4. ``<batch>/PUBLISHED`` is written last, with each table's snapshot id (Iceberg) or version (Delta).

Every commit records the manifest's ``publication``: a retry skips the tables its killed attempt
committed, a killed run leaves each table untouched or committed (docs/operations.md).

    spark-submit spark_jobs/publish.py --batch-dir DIR --warehouse URI [--format iceberg|delta]
        [--catalog-uri URI] [--catalog-property KEY=VALUE ...] [--namespace redotrail]

``--warehouse`` is a ``file://`` path or an ``s3://`` (``s3a://``) prefix. Iceberg's catalog
(``spark_jobs.common.catalog_settings``): ``--catalog-uri`` (JDBC, e.g. ``jdbc:postgresql://...``;
default for a local warehouse ``jdbc:sqlite:<warehouse>/catalog.db``), any other catalog property by
``--catalog-property`` (``type=rest``, ``uri=...``, ``jdbc.user=...``). Embedded default:
``--warehouse file://<repo>/data/warehouse``.
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
from collections.abc import Sequence
from contextlib import ExitStack
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # run as a script: make ``spark_jobs`` importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from redo_lib.batches import dictionary_at
from redo_lib.errors import Position, StorageError
from redo_lib.trail.emit import excluded_columns
from redo_lib.trail.lineage import PartitionCut, TableChanges, name_epochs, table_changes
from redo_lib.trail.schema import commit_log_name
from redo_lib.trail.types import column_types as table_column_types
from redo_lib.trail.types import newest_versions, table_types
from spark_jobs import mirror
from spark_jobs.common import (
    DATA,
    BatchDir,
    build_session,
    cached_trail,
    catalog_name,
    check_location,
    configure_catalog,
    java_message,
    mask_secrets,
    named_cause,
    report_failure,
    run_stage,
    ship_module,
    spark_warehouse,
)
from spark_jobs.replay import (
    apply_later_ddl,
    later_ddl,
    partition_removals,
    published_after,
    replayed_changes,
)
from spark_jobs.tables import CHANGELOG, DeltaStore, IcebergStore, Ownership, Store, table_name, widens

EXIT_REFUSED = 3


@dataclass(frozen=True)
class JobArgs:
    batch_dir: str
    warehouse: str
    format: str
    catalog_uri: str | None
    catalog_properties: dict[str, str]
    namespace: str
    number_as_string: tuple[str, ...] = ()
    keep_dropped_columns: bool = False


def parse_args(argv: list[str] | None) -> JobArgs:
    parser = argparse.ArgumentParser(prog="publish", description=__doc__.splitlines()[0])
    parser.add_argument("--batch-dir", required=True, help="local folder or s3:// prefix of the batch")
    parser.add_argument("--warehouse", default=f"file://{DATA / 'warehouse'}", help="warehouse URI")
    parser.add_argument("--format", choices=("iceberg", "delta"), default="iceberg")
    parser.add_argument(
        "--catalog-uri", default=os.environ.get("REDOTRAIL_ICEBERG_CATALOG_URI") or None,
        help="Iceberg JDBC catalog URI (default $REDOTRAIL_ICEBERG_CATALOG_URI, else for a local "
        "warehouse jdbc:sqlite:<warehouse>/catalog.db)",
    )  # fmt: skip
    parser.add_argument(
        "--catalog-property", action="append", metavar="KEY=VALUE",
        default=[p.strip() for p in (os.environ.get("REDOTRAIL_ICEBERG_CATALOG_PROPERTIES") or "").split(",") if p.strip()],
        help="a property of the Spark catalog redotrail (type=rest, uri=..., jdbc.user=...); default: "
        "$REDOTRAIL_ICEBERG_CATALOG_PROPERTIES, comma-separated",
    )  # fmt: skip
    parser.add_argument("--namespace", default="redotrail")
    parser.add_argument(
        "--number-as-string", action="append", metavar="OWNER.TABLE",
        default=[t.strip() for t in (os.environ.get("REDOTRAIL_NUMBER_AS_STRING") or "").split(",") if t.strip()],
        help="a table whose NUMBER columns without precision are strings in its mirror, not "
        "decimal(38,10) (docs/tables.md); default: $REDOTRAIL_NUMBER_AS_STRING, comma-separated",
    )  # fmt: skip
    parser.add_argument(
        "--keep-dropped-columns", action="store_true",
        default=(os.environ.get("REDOTRAIL_KEEP_DROPPED_COLUMNS") or "").lower() in ("1", "true", "yes"),
        help="a column the source drops stays in its mirror as a tombstone (its values as of the drop, "
        "NULL in rows inserted after it) instead of being dropped (docs/tables.md); default: "
        "$REDOTRAIL_KEEP_DROPPED_COLUMNS",
    )  # fmt: skip
    ns = parser.parse_args(argv)
    props = dict(p.split("=", 1) for p in ns.catalog_property)
    return JobArgs(ns.batch_dir, ns.warehouse, ns.format, ns.catalog_uri, props, ns.namespace,
                   tuple(ns.number_as_string), ns.keep_dropped_columns)  # fmt: skip


def open_store(args: JobArgs, spark: Any) -> Store:
    """The tables of the warehouse, written by this session (Iceberg: its catalog configured first).

    A warehouse or an Iceberg catalog that cannot be reached fails here, before any work, with a
    ``StorageError`` naming it (exit 1, may pass on retry; the catalog URI's password masked)."""
    check_location(spark, spark_warehouse(args.warehouse), "the warehouse")
    if args.format == "delta":
        return DeltaStore(spark, warehouse=spark_warehouse(args.warehouse), namespace=args.namespace)
    warehouse = configure_catalog(spark, args.warehouse, args.catalog_uri, args.catalog_properties)
    try:
        return IcebergStore(spark, warehouse=warehouse, namespace=args.namespace)  # the catalog's first use
    except Exception as exc:
        name = catalog_name(spark)
        reason = mask_secrets(named_cause(str(exc)) or java_message(exc))
        raise StorageError(f"cannot use the Iceberg catalog: {reason}", position=Position(file=name)) from exc


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


def changelog_rows(trail: Any, batch_id: str, *, commit_date: bool) -> Any:
    """The batch's trail as changelog rows (Delta adds the ``commit_date`` partition column)."""
    from pyspark.sql import functions as F

    frame = trail.withColumn("batch_id", F.lit(batch_id))
    return frame.withColumn("commit_date", F.to_date("commit_time")) if commit_date else frame


@dataclass
class MirrorPlan:
    source_table: str
    name: str
    key_columns: list[str]
    columns: list[str]
    rows: Any  # mirror.wide with _op, over the cached fold
    keys: int
    partial_rows: int
    types: dict[str, str] = field(default_factory=dict)  # column -> Spark SQL type
    unfit: list[dict[str, Any]] = field(default_factory=list)  # values left NULL, by column and rule
    truncated_before: int | None = None  # commit SCN of the batch's last TRUNCATE of the source table
    # (commit SCN, ROWID prefixes) per DROP / TRUNCATE PARTITION: the mirror rows written before it
    # whose _rowid starts with one of them go in the MERGE's commit
    removed: list[tuple[int, tuple[str, ...]]] = field(default_factory=list)
    # per partition removed, what PUBLISHED reports (with the rows counted)
    cuts: list[dict[str, Any]] = field(default_factory=list)
    # a re-run's: the later batches' TRUNCATE and partition cuts replayed (``replay.later_ddl``)
    later_ddl: list[dict[str, Any]] = field(default_factory=list)
    replay_notes: list[str] = field(default_factory=list)  # later DDL that could not be read
    # updates keyed by ROWID (minimal supplemental logging): given their row's key, and left out (no
    # row known at their ROWID: the changelog keeps them), with example ROWIDs (``mirror.by_rowid``)
    rowid_keyed: dict[str, Any] = field(default_factory=dict)


def fold_mirrors(
    spark: Any, trail: Any, store: Store, sources: dict[str, str], batch_id: str,
    owned: Ownership, keep: list[Any], types: dict[str, dict[str, str]] | None = None,
    schema: SchemaPlan | None = None, batch: BatchDir | None = None,
    table_keys: dict[str, list[str]] | None = None,
) -> list[MirrorPlan]:  # fmt: skip
    """Fold the batch (and the later changes of its keys) over the rows each pending mirror holds
    for the affected keys; the fold is computed here (a local checkpoint), before any table commits.
    ``types``: per source table, its columns' types from the dictionary (``redo_lib.trail.types``);
    a mirror's existing columns keep the types they have. ``schema``: what the batch's DDL did
    (records renamed to their table's last shape, changes before a TRUNCATE left out). ``batch``: the
    batch's folder, whose siblings' PUBLISHED tell the later DDL a re-run replays (``replay``).
    ``table_keys``: per source table, its key in the dictionary, which an update keyed by ROWID is
    given (``mirror.by_rowid``)."""
    from pyspark.sql import functions as F

    schema = schema or SchemaPlan()
    changed = mirror.changes(trail, schema.epochs, schema.keys).where(
        F.col("source_table").isin(list(sources))
    )
    for source, scn in schema.truncated.items():  # a TRUNCATE ends what came before it
        changed = changed.where((F.col("source_table") != source) | (F.col("commit_scn") > scn))
    cut_reports: dict[str, list[dict[str, Any]]] = {}
    for source, cuts in schema.cuts.items():  # DROP / TRUNCATE PARTITION: the rows in it go
        if source in sources:
            changed, cut_reports[source] = partition_removals(changed, store.frame(sources[source]), source,
                                                              cuts, batch_id)  # fmt: skip
    floor = changed.agg(F.min("commit_scn")).first()[0]  # the batch's lowest commit SCN
    published = published_after(store, owned, batch_id, floor)
    later = replayed_changes(spark, changed, published, keep)
    if later is not None:
        changed = changed.unionByName(later.where(F.col("source_table").isin(list(sources))))
    # a re-run under later TRUNCATE / partition cuts: what they removed stays removed
    later_cuts, replay_notes = later_ddl(published, floor, batch, sources)
    changed, later_reports = apply_later_ddl(changed, later_cuts, batch_id)

    def held_rows(source: str) -> Any:  # the rows a mirror holds that the batch's changes may touch
        table = store.frame(sources[source]) if source in sources else None
        if table is not None and source in schema.truncated:  # rows of changes after the TRUNCATE only
            table = table.where(F.col("_commit_scn") > schema.truncated[source])
        return table

    changed, by_rowid = mirror.by_rowid(
        changed, {**(table_keys or {}), **schema.keys}, {s: held_rows(s) for s in sources}
    )
    keyed = {**{s: k for s, k in schema.keys.items() if s in sources}, **mirror.key_columns(changed)}
    existing = []
    for source, key_columns in keyed.items():
        table = held_rows(source)
        if table is not None:
            keys = mirror.affected_keys(changed, source, key_columns)
            existing.append(mirror.existing_rows(table, source, key_columns, keys))
    # computed once, here, and cut from its plan: the MERGE's source must not read its own target
    folded = mirror.fold(changed, existing).localCheckpoint(eager=True)
    counts = {
        r["source_table"]: (r["keys"], r["partial"])
        for r in folded.groupBy("source_table")
        .agg(F.count("*").alias("keys"), F.sum(F.col("partial").cast("int")).alias("partial"))
        .collect()
    }
    known = {source: store.columns(name) or [] for source, name in sources.items()}
    columns = mirror.table_columns(folded, known)
    for source in schema.shaped:  # created or given columns by DDL: every column, rows or not
        names = columns.setdefault(source, [])
        names += [c for c in (types or {}).get(source, {}) if c not in names]
    for source in sources:  # a new mirror: every column of the dictionary's table, in its order, even
        # when the batch shows some in no row (a table whose changes are deletes shows its key only)
        dictionary = list((types or {}).get(source, {}))
        if not known.get(source) and dictionary:
            names = columns.get(source, [])
            columns[source] = dictionary + [c for c in names if c not in dictionary]
    plans = []
    for source, name in sorted(sources.items()):
        held = store.column_types(name)
        column_types = table_column_types(columns[source], held, (types or {}).get(source, {}))
        rows = mirror.wide(folded, source, columns[source], with_deletes=True, types=column_types)
        plans.append(MirrorPlan(source, name, keyed.get(source, []), columns[source], rows,
                                *counts.get(source, (0, 0)), types=column_types,
                                unfit=unfit_values(rows), truncated_before=schema.truncated.get(source),
                                removed=[(c.commit_scn, c.prefixes) for c in schema.cuts.get(source, [])
                                         if c.prefixes],
                                cuts=cut_reports.get(source, []), later_ddl=later_reports.get(source, []),
                                replay_notes=replay_notes, rowid_keyed=by_rowid.of(source)))  # fmt: skip
    return plans


@dataclass
class SchemaPlan:
    """What the batch's DDL records mean for the mirrors (``redo_lib.trail.lineage``)."""

    changes: dict[str, TableChanges] = field(default_factory=dict)
    epochs: dict[str, list[tuple[int, dict[str, str]]]] = field(default_factory=dict)
    truncated: dict[str, int] = field(default_factory=dict)  # source -> commit SCN of its last TRUNCATE
    cuts: dict[str, list[PartitionCut]] = field(default_factory=dict)  # source -> DROP/TRUNCATE PARTITION
    keys: dict[str, list[str]] = field(default_factory=dict)  # source -> key after the batch
    shaped: set[str] = field(default_factory=set)  # sources created or given columns by DDL
    stopped: dict[str, int] = field(default_factory=dict)  # source -> commit SCN of its DROP TABLE
    # source -> columns the mirror keeps as they are against the dictionary (set by ``follow``)
    kept: dict[str, set[str]] = field(default_factory=dict)

    @classmethod
    def of(cls, ddl_rows: list[dict[str, Any]], history: Any, *, keep_dropped: bool) -> SchemaPlan:
        changes = table_changes(ddl_rows, history)
        newest = newest_versions(history) if history is not None else {}
        plan = cls(changes=changes)
        for source, change in changes.items():
            plan.epochs[source] = name_epochs(change, keep_dropped=keep_dropped)
            if change.truncated_at is not None:
                plan.truncated[source] = change.truncated_at
            # a TRUNCATE TABLE after a partition's removal removes all its rows anyway
            cuts = [c for c in change.partition_cuts if c.commit_scn > (change.truncated_at or 0)]
            if cuts:
                plan.cuts[source] = cuts
            if change.dropped_at is not None and (change.created_at or 0) < change.dropped_at:
                plan.stopped[source] = change.dropped_at
            elif change.created_at is not None or change.added:
                plan.shaped.add(source)
            if source in newest:  # a dropped table's newest version is its last
                plan.keys[source] = list(newest[source].key_columns)
        return plan

    def follow(self, store: Store, sources: dict[str, str], types: dict[str, dict[str, str]],
               *, keep_dropped: bool) -> dict[str, dict[str, Any]]:  # fmt: skip
        """Bring each pending mirror's columns to its source's shape (``Store.follow_schema``): renames,
        drops (unless kept as tombstones), widened types; a type the format cannot change in place is
        kept and reported. Per mirror, the batch's schema changes as PUBLISHED reports them."""
        report: dict[str, dict[str, Any]] = {}
        for source, change in sorted(self.changes.items()):
            name = sources.get(source) or table_name(source)
            held = store.column_types(name) if source in sources else {}
            wanted = types.get(source, {})
            retyped, refused = {}, []
            for column in change.modified:
                have, want = held.get(column), wanted.get(column)
                if have is None or want is None or have == want:
                    continue
                if widens(have, want):
                    retyped[column] = want
                else:
                    self.kept.setdefault(source, set()).add(column)
                    refused.append(f"{column}: the mirror keeps {have}, the dictionary says {want} (no "
                                   f"in-place change from {have} to {want}; values that do not fit are "
                                   "counted as unfit)")  # fmt: skip
            applied = (
                store.follow_schema(name, renamed=change.renamed, dropped=[] if keep_dropped else change.dropped,
                                    retyped=retyped)
                if source in sources
                else []
            )  # fmt: skip
            entry = {**change.to_dict(), "applied": applied, "refused": refused}
            if source in self.stopped:
                entry["notes"] = [*entry.get("notes", []), f"DROP TABLE at commit SCN {self.stopped[source]}: "
                                  "the mirror keeps its rows as of then; no changes follow"]  # fmt: skip
            if keep_dropped and change.dropped:
                self.kept.setdefault(source, set()).update(change.dropped)
                entry["notes"] = [
                    *entry.get("notes", []),
                    f"dropped columns kept as tombstones: {change.dropped}",
                ]
            report[name] = {k: v for k, v in entry.items() if v not in ([], None)}
        return report


def unfit_values(rows: Any) -> list[dict[str, Any]]:
    """The values of a mirror's rows that did not fit their column's type (left NULL), counted per
    column and rule, with one example of the trail's text (one small Spark job)."""
    from pyspark.sql import functions as F

    found = (
        rows.select(F.explode(mirror.UNFIT).alias("u"))
        .groupBy("u.column", "u.rule")
        .agg(F.count("*").alias("count"), F.min("u.value").alias("example"))
        .collect()
    )
    return [r.asDict() for r in sorted(found, key=lambda r: (r["column"], r["rule"]))]


def expected_mirror_types(
    plans: Sequence[MirrorPlan], types: dict[str, dict[str, str]], schema: SchemaPlan
) -> dict[str, dict[str, str]]:
    """Per committed mirror of a table the dictionary knows, the columns and Spark SQL types it must
    have: the dictionary's (``types``), except the columns whose type or existence the mirror kept
    (``SchemaPlan.kept``: a refused widening, a dropped column kept as a tombstone)."""
    out = {}
    for plan in plans:
        wanted = types.get(plan.source_table)
        if not wanted:
            continue  # schemaless: nothing to hold the mirror to
        kept = schema.kept.get(plan.source_table, set())
        out[plan.name] = {c: (plan.types.get(c, t) if c in kept else t) for c, t in wanted.items()} | {
            c: plan.types[c] for c in kept if c in plan.types
        }
    return out


def check_mirrors(store: Store, expected: dict[str, dict[str, str]]) -> dict[str, dict[str, Any]]:
    """Great Expectations on each committed mirror against the dictionary (docs/tables.md): its data
    columns are exactly the table's (``ExpectTableColumnsToMatchSet``, the metadata columns with
    them) and each has the mapped type (``ExpectColumnTypeToBe``: GX checks the Spark type class, so
    a decimal's precision and scale are compared here from the schema). Per mirror: success and the
    failed checks."""
    from pyspark.sql.types import _parse_datatype_string

    from spark_jobs.validate import import_gx

    if not expected:
        return {}
    gx = import_gx()
    gxe = gx.expectations
    context = gx.get_context(mode="ephemeral")
    # persist=False: GX would cache each mirror's frame, and a cached table plan serves later reads of
    # the table (the next batch's fold and MERGE) its old rows and schema
    source = context.data_sources.add_spark("mirrors", persist=False)
    out: dict[str, dict[str, Any]] = {}
    for name, columns in sorted(expected.items()):
        frame = store.frame(name)
        if frame is None:
            continue
        suite = gx.ExpectationSuite(name=f"mirror_{name}")
        suite.add_expectation(gxe.ExpectTableColumnsToMatchSet(column_set=[*columns, *mirror.META_COLUMNS],
                                                               exact_match=True))  # fmt: skip
        for column, sql_type in columns.items():
            kind = type(_parse_datatype_string(sql_type)).__name__
            suite.add_expectation(gxe.ExpectColumnTypeToBe(column=column, type_=kind))
        batch = (
            source.add_dataframe_asset(name)
            .add_batch_definition_whole_dataframe(name)
            .get_batch(batch_parameters={"dataframe": frame})
        )
        result = batch.validate(suite)
        failed = [
            {"expectation": r.expectation_config.type, **{k: v for k, v in r.expectation_config.kwargs.items()
                                                          if k in ("column", "type_", "column_set")},
             "observed": (r.result or {}).get("observed_value")}
            for r in result.results if not r.success
        ]  # fmt: skip
        held = {f.name: f.dataType.simpleString() for f in frame.schema.fields}
        failed += [
            {"expectation": "mirror_column_type", "column": c, "type_": t, "observed": held.get(c)}
            for c, t in columns.items()
            if c in held and held[c] != t and t.startswith("decimal")
        ]
        out[name] = {
            "success": not failed,
            "checks": len(suite.expectations) + len(columns),
            "failed": failed,
        }
    return out


def batch_dictionary(batch: BatchDir, manifest: dict[str, Any]) -> Any:
    """The dictionary the trail was written with (the batch's evolved ``dictionary.json`` if assembly
    wrote one, else the manifest's); None without one."""
    location = (
        batch.uri_of("dictionary.json") if batch.exists("dictionary.json") else manifest.get("dictionary")
    )
    return dictionary_at(location)


def mirror_types(
    history: Any, number_as_string: Sequence[str], capture: Sequence[str] | None = None
) -> dict[str, dict[str, str]]:
    """Per source table, its columns' mirror types from the dictionary, without the columns the
    manifest's ``capture`` leaves out (``-OWNER.TABLE.COLUMN``: the trail never carries them); none
    without a dictionary (every column a string)."""
    if history is None:
        return {}
    return table_types(history, number_as_string=number_as_string, exclude_columns=excluded_columns(capture))


def ownership(manifest: dict[str, Any], commit_logs: list[str], trail: Any) -> Ownership:
    """The changelog rows this batch's publish replaces (``tables.Ownership``): its logs below its
    watermark, and the held transactions it emits (rows of earlier batches' logs)."""
    from pyspark.sql import functions as F

    held = trail.where(~F.col("commit_log").isin(commit_logs)).groupBy("commit_log").agg(F.min("commit_scn"))
    return Ownership(
        logs=tuple(commit_logs), watermark=manifest.get("watermark_scn"),
        held={r[0]: r[1] for r in held.collect() if r[0] is not None},
    )  # fmt: skip


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
    session = build_session(f"redotrail-publish-{batch_id}", spark=spark)
    store = open_store(args, session)
    ship_module(mirror)
    cached = ExitStack()  # the trail's cache: dropped at the end, or kept by batch.py's shared_trails
    trail = cached.enter_context(cached_trail(session, batch.spark_uri("trail")))
    keep: list[Any] = []  # other cached frames, unpersisted at the end
    try:
        owned = ownership(manifest, commit_logs, trail)
        rows = trail.where(mirror.APPLIED).select(F.expr(mirror.SOURCE_TABLE)).distinct().collect()
        sources = {r[0]: table_name(r[0]) for r in rows}
        # the batch's DDL (a few records): mirrors follow the source's schema (docs/tables.md)
        history = batch_dictionary(batch, manifest)
        ddl_rows = [
            r.asDict(recursive=True) for r in trail.where("op = 'DDL'").orderBy("trail_seq").collect()
        ]
        schema = SchemaPlan.of(ddl_rows, history, keep_dropped=args.keep_dropped_columns)
        for source in schema.changes:
            if source not in schema.stopped and (source in schema.shaped or store.exists(table_name(source))):
                sources.setdefault(source, table_name(source))
        if len(set(sources.values())) != len(sources) or CHANGELOG in sources.values():
            raise ValueError(f"source tables collide on mirror names: {sorted(sources.items())}")
        pending = {s: n for s, n in sources.items() if not store.has_publication(n, publication)}
        changelog_pending = not store.has_publication(CHANGELOG, publication)
        types = mirror_types(history, args.number_as_string, manifest.get("capture"))
        schema_changes = schema.follow(store, pending, types, keep_dropped=args.keep_dropped_columns)
        for name, change in schema_changes.items():
            for line in [*change.get("applied", []), *change.get("refused", []), *change.get("notes", [])]:
                print(f"publish {batch_id}: {name}: {line}")
        plans = (
            fold_mirrors(
                session,
                trail,
                store,
                pending,
                batch_id,
                owned,
                keep,
                types,
                schema,
                batch,
                table_keys={s: list(v.key_columns) for s, v in newest_versions(history or ()).items()},
            )
            if pending
            else []
        )
        fault("publish-staged")
        if changelog_pending:
            rows_out = changelog_rows(trail, batch_id, commit_date=store.format == "delta")
            store.commit_changelog(rows_out, batch_id, publication=publication, owned=owned)
            published.append(CHANGELOG)
        fault("publish-changelog")
        for note in sorted({n for plan in plans for n in plan.replay_notes}):
            print(f"publish {batch_id}: WARNING: {note}", file=sys.stderr)
        for plan in plans:
            for entry in plan.later_ddl:
                print(f"publish {batch_id}: {plan.name}: re-run under later {entry['ddl']} at commit SCN "
                      f"{entry['commit_scn']}" + (f" (batch {entry['batch_id']}): {entry.get('batch_keys', 0)} "
                                                  "keys removed again" if "batch_id" in entry else ""))  # fmt: skip
            if plan.cuts and plan.name in schema_changes:
                schema_changes[plan.name]["partitions_removed"] = plan.cuts  # with the rows counted
            for cut in plan.cuts:
                counted = ", ".join(f"{k} {cut[k]}" for k in ("held_rows", "batch_keys", "ambiguous_rows_kept")
                                    if k in cut)  # fmt: skip
                print(f"publish {batch_id}: {plan.name}: {cut['ddl']} at commit SCN {cut['commit_scn']}: rows "
                      f"removed by ROWID prefix {cut.get('rowid_prefixes', [])} ({counted or 'none known'})")  # fmt: skip
                for note in cut.get("notes", []):
                    print(f"publish {batch_id}: {plan.name}: WARNING: {cut['ddl']}: {note}", file=sys.stderr)
            if (
                not plan.keys
                and plan.truncated_before is None
                and not plan.removed
                and store.exists(plan.name)
            ):
                continue  # DDL only (its schema followed above): no rows to merge
            store.commit_mirror(
                plan.name, plan.source_table, plan.rows, plan.columns, plan.key_columns, batch_id,
                publication=publication, truncated_before=plan.truncated_before, removed=plan.removed,
            )  # fmt: skip
            published.append(plan.name)
            partial = f", {plan.partial_rows} partial rows (no row to update)" if plan.partial_rows else ""
            print(f"publish {batch_id}: {plan.source_table} -> {plan.name}: {plan.keys} keys{partial}")
            if plan.rowid_keyed:
                counted = plan.rowid_keyed
                print(f"publish {batch_id}: {plan.source_table}: {counted.get('resolved', 0)} updates keyed by ROWID "
                      "(the redo holds not all of the key: minimal supplemental logging) given their row's key")  # fmt: skip
                if counted.get("unresolved"):
                    print(f"publish {batch_id}: WARNING: {plan.source_table}: {counted['unresolved']} updates keyed "
                          f"by ROWID left out of {plan.name}: no row known at their ROWID (e.g. "
                          f"{', '.join(counted.get('examples', []))}); the changelog keeps them", file=sys.stderr)  # fmt: skip
            for unfit in plan.unfit:
                print(f"publish {batch_id}: {plan.source_table}.{unfit['column']} ({plan.types[unfit['column']]}): "
                      f"{unfit['count']} values left NULL in the mirror, rule {unfit['rule']} "
                      f"(e.g. {unfit['example']!r}; the changelog keeps the text)", file=sys.stderr)  # fmt: skip
        # the committed mirrors against the dictionary, with Great Expectations (reported, the
        # commits stand: a failure here is a defect to look into, not a reason to hold the batch)
        mirror_checks = check_mirrors(store, expected_mirror_types(plans, types, schema))
        for name, check in mirror_checks.items():
            for failure in check["failed"]:
                print(f"publish {batch_id}: WARNING: mirror {name} does not match the dictionary: {failure}",
                      file=sys.stderr)  # fmt: skip
    finally:
        for frame in keep:
            frame.unpersist()
        cached.close()
    tables = {name: store.version(name) for name in [CHANGELOG, *sorted(sources.values())]}
    doc = {
        "batch_id": batch_id,
        "format": store.format,
        "warehouse": args.warehouse,
        "namespace": args.namespace,
        "sources": dict(sorted(sources.items())),
        "tables": tables,
        # per mirror: its column types, and the values left NULL because they did not fit them (of
        # the mirrors this run committed: a retry's skipped tables were counted by the killed run)
        "column_types": {name: store.column_types(name) for name in sorted(sources.values())},
        "unfit_values": {plan.name: plan.unfit for plan in plans if plan.unfit},
        # a re-run's: per mirror, the later batches' TRUNCATE and partition cuts it replayed, and the
        # later DDL it could not read (docs/tables.md)
        "later_ddl": {plan.name: plan.later_ddl for plan in plans if plan.later_ddl},
        # per mirror: its updates keyed by ROWID given their row's key, and those left out
        "rowid_keyed": {plan.name: plan.rowid_keyed for plan in plans if plan.rowid_keyed},
        "replay_notes": sorted({n for plan in plans for n in plan.replay_notes}),
        # per mirror, what the batch's DDL did and what the mirror followed (docs/tables.md)
        "schema_changes": schema_changes,
        # the committed mirrors' columns and types against the dictionary (Great Expectations)
        "mirror_checks": mirror_checks,
    }
    batch.write_json(doc, "PUBLISHED")
    print(f"publish {batch_id}: {len(tables)} tables at {args.warehouse} ({store.format})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
