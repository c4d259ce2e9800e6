"""The published tables: a changelog and one mirror per source table, in Iceberg or Delta, written by
Spark itself behind one small interface (``Store``). Table logic only, nothing about Oracle.

Iceberg tables live in the session's catalog ``redotrail`` (``spark_jobs.common.configure_catalog``:
JDBC on SQLite or PostgreSQL, or REST/Glue by properties), as ``redotrail.<namespace>.<name>``;
Delta tables at ``<warehouse>/<namespace>/<name>``, addressed by path (``delta.`<path>```).

Exactly once: every commit records its batch and its publication, the run of the batch named by the
manifest (Iceberg: snapshot properties ``redotrail.batch_id`` / ``redotrail.publication``, set through
``spark.sql.iceberg.snapshot-property.*``; Delta: the application transaction
``redotrail-publication:<id>`` through ``spark.databricks.delta.write.txnAppId`` / ``txnVersion``,
with the batch and publication in the commit's ``userMetadata``). ``has_publication`` lets a retry
skip the tables a killed run already committed, while a new run of the batch (re-run, backfill)
publishes again; Delta would also skip a commit of a recorded application transaction by itself.

Each table changes in one commit: the first publish creates the table with its rows (Iceberg: an
atomic create-as-select; Delta: version 0), later ones run one ``MERGE INTO``. The changelog replaces
the rows a batch owns (``Ownership``: by ``commit_log`` and commit SCN against its watermark) and the
rows of its earlier runs, so whatever ranges earlier batches took, each committed change is held
once, with the id of the batch that published it last. A mirror merges the batch's net change per
key (``mirror.fold``): delete, update every column, or insert. A column a mirror lacks is added first (``ALTER TABLE ADD COLUMNS``, a
metadata change: a run killed right after it leaves the rows as they were, with an all-null column;
Delta: an empty append with ``mergeSchema``).
Iceberg tables are copy-on-write, so readers need no delete files.
"""

from __future__ import annotations

import json
import re
import uuid
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, Protocol, final

PROP_BATCH = "redotrail.batch_id"
PROP_PUBLICATION = "redotrail.publication"
PROP_SOURCE = "redotrail.source_table"
PROP_KEYS = "redotrail.key_columns"
CHANGELOG = "changelog"
DELTA_PARTITIONS = ["owner", "table", "commit_date"]
META_COLUMNS = ("_rowid", "_commit_scn", "_batch_id")
ICEBERG_PROPERTIES = {
    "format-version": "2",
    "write.delete.mode": "copy-on-write",
    "write.update.mode": "copy-on-write",
    "write.merge.mode": "copy-on-write",
}
ICEBERG_SNAPSHOT = "spark.sql.iceberg.snapshot-property."
DELTA_TXN_APP = "spark.databricks.delta.write.txnAppId"
DELTA_TXN_VERSION = "spark.databricks.delta.write.txnVersion"
DELTA_USER_METADATA = "spark.databricks.delta.commitInfo.userMetadata"


NO_LIMIT = (1 << 63) - 1  # an SCN above every SCN (the changelog's commit_scn is a long)


@final
@dataclass(frozen=True, slots=True, kw_only=True)
class Ownership:
    """The changelog rows a batch owns, that its publish replaces (docs/pipeline-contract.md): the
    commits in the logs it covers below its watermark (``logs``), and the held transactions it emits
    (``held``: per log of an earlier batch, the lowest commit SCN of those rows; that batch owns the
    log's rows below the previous watermark, which is at most that SCN). Rows of its logs at or above
    its watermark are a later batch's (held); without a watermark a batch owns its logs whole."""

    logs: tuple[str, ...]
    watermark: int | None = None
    held: Mapping[str, int] = field(default_factory=dict)

    def intervals(self, earlier: Mapping[str, int] | None = None) -> list[tuple[str, int, int]]:
        """(log, first SCN, SCN bound) per owned log, half-open; ``earlier``: per log, the lowest
        commit SCN of the rows an earlier run of the batch published (of a log it does not cover,
        those are held transactions it emitted)."""
        below = NO_LIMIT if self.watermark is None else self.watermark
        held = dict(self.held)
        for log, scn in (earlier or {}).items():
            held[log] = min(scn, held.get(log, scn))
        out = [(log, 0, below) for log in sorted(set(self.logs))]
        return out + [(log, held[log], below) for log in sorted(held) if log not in self.logs]

    def owns(self, commit_log: str | None, commit_scn: int) -> bool:
        """Whether a changelog row of ``commit_log`` committed at ``commit_scn`` is this batch's."""
        return any(log == commit_log and low <= commit_scn < high for log, low, high in self.intervals())

    def condition(self) -> Any:
        """``owns`` as a Spark column expression over changelog rows."""
        from pyspark.sql import functions as F

        owned = F.lit(False)
        for log, low, high in self.intervals():
            scn = F.col("commit_scn")
            owned = owned | ((F.col("commit_log") == log) & (scn >= low) & (scn < high))
        return F.coalesce(owned, F.lit(False))


def table_name(source_table: str) -> str:
    """``US03.STUDENT`` -> ``us03__student`` (lower case; characters outside [a-z0-9_] become ``_``)."""
    owner, _, name = source_table.rpartition(".")
    parts = [p for p in (owner, name) if p]
    return "__".join(re.sub(r"[^a-z0-9_]", "_", p.lower()) for p in parts)


def quote(name: str) -> str:
    """A Spark SQL identifier: ``name`` in backticks."""
    return "`" + name.replace("`", "``") + "`"


def text(value: str) -> str:
    """A Spark SQL string literal."""
    return "'" + value.replace("\\", "\\\\").replace("'", "\\'") + "'"


def app_id(publication: str) -> str:
    return f"redotrail-publication:{publication}"


class Store(Protocol):
    format: str

    def frame(self, name: str) -> Any: ...
    def columns(self, name: str) -> list[str] | None: ...
    def column_types(self, name: str) -> dict[str, str]: ...
    def has_publication(self, name: str, publication: str) -> bool: ...
    def commit_changelog(self, rows: Any, batch_id: str, *, publication: str, owned: Ownership) -> None: ...
    def commit_mirror(self, name: str, source_table: str, rows: Any, columns: Sequence[str],
                      key_columns: Sequence[str], batch_id: str, *, publication: str,
                      truncated_before: int | None = None,
                      removed: Sequence[tuple[int, Sequence[str]]] = ()) -> None: ...  # fmt: skip
    def follow_schema(self, name: str, *, renamed: Sequence[tuple[str, str]], dropped: Sequence[str],
                      retyped: Mapping[str, str]) -> list[str]: ...  # fmt: skip
    def version(self, name: str) -> dict[str, Any]: ...


def widens(old: str, new: str) -> bool:
    """Whether a mirror column of Spark SQL type ``old`` can take type ``new`` in place, with every
    value it holds unchanged: Iceberg's type promotions (float -> double, decimal(p,s) -> decimal(p',s)
    with p' > p; int -> bigint), used for Delta too so both formats follow the same changes."""
    if old == new:
        return True
    if (old, new) in (("float", "double"), ("int", "bigint")):
        return True
    a, b = re.fullmatch(r"decimal\((\d+),(\d+)\)", old), re.fullmatch(r"decimal\((\d+),(\d+)\)", new)
    return bool(a and b and a[2] == b[2] and int(b[1]) >= int(a[1]))


class _SparkStore:
    """What both formats share: the SQL of the commits, run by the session."""

    format = ""

    def __init__(self, spark: Any, *, warehouse: str, namespace: str) -> None:
        self.spark = spark
        self.warehouse = warehouse.rstrip("/")
        self.namespace = namespace

    # -- per format -------------------------------------------------------------------------------

    def ident(self, name: str) -> str:
        raise NotImplementedError

    def exists(self, name: str) -> bool:
        raise NotImplementedError

    def _create(self, name: str, rows: Any, *, changelog: bool, properties: dict[str, str]) -> None:
        raise NotImplementedError

    def _commit_settings(self, batch_id: str, publication: str) -> dict[str, str]:
        raise NotImplementedError

    def _add_columns(self, name: str, fields: Sequence[Any]) -> None:
        """Add columns (Spark ``StructField``s) to a table: a metadata change, no rows touched."""
        added = ", ".join(f"{quote(f.name)} {f.dataType.simpleString()}" for f in fields)
        self.spark.sql(f"ALTER TABLE {self.ident(name)} ADD COLUMNS ({added})")

    # -- shared -----------------------------------------------------------------------------------

    def frame(self, name: str) -> Any:
        """The table as a DataFrame (None when it does not exist)."""
        return self.spark.table(self.ident(name)) if self.exists(name) else None

    def columns(self, name: str) -> list[str] | None:
        """A mirror's data columns (its metadata columns left out), None when it does not exist."""
        frame = self.frame(name)
        return None if frame is None else [c for c in frame.columns if c not in META_COLUMNS]

    def column_types(self, name: str) -> dict[str, str]:
        """A mirror's data columns and their Spark SQL types (empty when it does not exist)."""
        frame = self.frame(name)
        fields = () if frame is None else frame.schema.fields
        return {f.name: f.dataType.simpleString() for f in fields if f.name not in META_COLUMNS}

    @contextmanager
    def _committing(self, batch_id: str, publication: str) -> Iterator[None]:
        """Session settings that make the next commit carry the batch and the publication."""
        settings = self._commit_settings(batch_id, publication)
        before = {key: self.spark.conf.get(key, None) for key in settings}
        for key, value in settings.items():
            self.spark.conf.set(key, value)
        try:
            yield
        finally:
            for key, value in before.items():
                if value is None:
                    self.spark.conf.unset(key)
                else:
                    self.spark.conf.set(key, value)

    def _view(self, frame: Any) -> str:
        name = f"redotrail_source_{uuid.uuid4().hex[:12]}"
        frame.createOrReplaceTempView(name)
        return name

    def commit_changelog(self, rows: Any, batch_id: str, *, publication: str, owned: Ownership) -> None:
        """Add the batch's rows and remove, in the same commit, the rows it owns and those of its
        earlier runs (whatever batch published them)."""
        from pyspark.sql import functions as F

        if not self.exists(CHANGELOG):
            with self._committing(batch_id, publication):
                self._create(CHANGELOG, rows, changelog=True, properties={})
            return
        table = self.frame(CHANGELOG)
        new = [f for f in rows.schema.fields if f.name not in table.columns]
        if new:  # a column the trail gained
            self._add_columns(CHANGELOG, new)
            table = self.frame(CHANGELOG)
        # the logs of the batch's earlier runs: of a log it covers, its rows below the watermark; of
        # an earlier batch's log, the held transactions it emitted (Ownership.intervals)
        earlier = (
            table.where(F.col("batch_id") == batch_id)
            .groupBy("commit_log")
            .agg(F.min("commit_scn"))
            .collect()
        )
        intervals = owned.intervals({r[0]: r[1] for r in earlier if r[0] is not None})
        replaced = sorted({log for log, _, _ in intervals})
        names = [c for c in table.columns if c in rows.columns]
        markers = self.spark.createDataFrame(
            intervals, "_replace_log string, _replace_from long, _replace_below long"
        )
        source = rows.select(*names).withColumn("_replace_log", F.lit(None).cast("string"))
        source = source.unionByName(markers, allowMissingColumns=True)
        view = self._view(source)
        within = f" AND t.commit_log IN ({', '.join(text(c) for c in replaced)})" if replaced else ""
        within += " AND t.commit_scn >= s._replace_from AND t.commit_scn < s._replace_below"
        insert = ", ".join(quote(c) for c in names)
        values = ", ".join(f"s.{quote(c)}" for c in names)
        try:
            with self._committing(batch_id, publication):
                self.spark.sql(
                    f"MERGE INTO {self.ident(CHANGELOG)} t USING {view} s "
                    f"ON t.commit_log = s._replace_log{within} "
                    "WHEN MATCHED THEN DELETE "
                    f"WHEN NOT MATCHED AND s._replace_log IS NULL THEN INSERT ({insert}) VALUES ({values})"
                )
        finally:
            self.spark.catalog.dropTempView(view)

    def commit_mirror(
        self,
        name: str,
        source_table: str,
        rows: Any,
        columns: Sequence[str],
        key_columns: Sequence[str],
        batch_id: str,
        *,
        publication: str,
        truncated_before: int | None = None,
        removed: Sequence[tuple[int, Sequence[str]]] = (),
    ) -> None:
        """Merge the folded rows (``mirror.wide`` with ``_op``): matched and ``D`` deletes, matched and
        ``U`` updates every column, not matched and ``U`` inserts. ``truncated_before``: the commit
        SCN of a TRUNCATE of the source table; the same commit deletes every row the mirror held that
        was last written before it (rows of later changes, held under a backfill, stay). ``removed``:
        (commit SCN, ROWID prefixes) of each DROP / TRUNCATE PARTITION: the same commit deletes the
        rows the folded rows do not touch that were last written before it with a ``_rowid``
        starting with one of the prefixes (the partition's data objects)."""
        names = [*columns, *META_COLUMNS]
        if not self.exists(name):
            properties = {PROP_SOURCE: source_table, PROP_KEYS: json.dumps(list(key_columns))}
            with self._committing(batch_id, publication):
                self._create(name, rows.where("_op = 'U'").select(*names), changelog=False,
                             properties=properties)  # fmt: skip
            return
        known = self.columns(name) or []
        new = [c for c in columns if c not in known]
        if new:
            self._add_columns(name, [f for f in rows.schema.fields if f.name in new])
        view = self._view(rows)
        match = " AND ".join(f"t.{quote(k)} <=> s.{quote(k)}" for k in key_columns)
        assign = ", ".join(f"t.{quote(c)} = s.{quote(c)}" for c in names)
        insert = ", ".join(quote(c) for c in names)
        values = ", ".join(f"s.{quote(c)}" for c in names)
        try:
            with self._committing(batch_id, publication):
                gone = [f"t._commit_scn < {int(truncated_before)}"] if truncated_before is not None else []
                gone += [
                    f"(t._commit_scn < {int(scn)} AND substr(t._rowid, 1, 6) IN ({', '.join(map(text, prefixes))}))"
                    for scn, prefixes in removed
                    if prefixes
                ]
                truncate = (
                    f" WHEN NOT MATCHED BY SOURCE AND ({' OR '.join(gone)}) THEN DELETE" if gone else ""
                )
                self.spark.sql(
                    f"MERGE INTO {self.ident(name)} t USING {view} s ON {match} "
                    "WHEN MATCHED AND s._op = 'D' THEN DELETE "
                    f"WHEN MATCHED AND s._op = 'U' THEN UPDATE SET {assign} "
                    f"WHEN NOT MATCHED AND s._op = 'U' THEN INSERT ({insert}) VALUES ({values})" + truncate
                )
        finally:
            self.spark.catalog.dropTempView(view)

    def follow_schema(
        self,
        name: str,
        *,
        renamed: Sequence[tuple[str, str]],
        dropped: Sequence[str],
        retyped: Mapping[str, str],
    ) -> list[str]:
        """Bring a mirror's columns to the source's shape after DDL: renames in order, drops, new types
        (callers pass only widenings, ``widens``). Each step is skipped when the table shows it done
        (a rename whose old column is gone, a drop of a column it lacks, a type it has), so a retried
        publish runs it again harmlessly; a metadata change, before the batch's MERGE (a run killed
        between them leaves the mirror's rows as they were, under the new names). Returns what was
        done, one line per step."""
        if not self.exists(name):
            return []
        current = self.column_types(name)  # column -> type, as the steps leave it
        steps: list[tuple[str, str, str]] = []
        for old, new in renamed:
            if old in current and new not in current:
                steps.append(("rename", old, new))
                current[new] = current.pop(old)
        for column in dropped:
            if current.pop(column, None) is not None:
                steps.append(("drop", column, ""))
        for column, sql_type in retyped.items():
            if column in current and current[column] != sql_type:
                steps.append(("retype", column, sql_type))
        if steps:
            self._alter(name, steps)
        return [
            {"rename": f"renamed {a} to {b}", "drop": f"dropped {a}", "retype": f"{a} now {b}"}[kind]
            for kind, a, b in steps
        ]

    def _alter(self, name: str, steps: Sequence[tuple[str, str, str]]) -> None:
        for kind, a, b in steps:
            table = self.ident(name)
            if kind == "rename":
                self.spark.sql(f"ALTER TABLE {table} RENAME COLUMN {quote(a)} TO {quote(b)}")
            elif kind == "drop":
                self.spark.sql(f"ALTER TABLE {table} DROP COLUMN {quote(a)}")
            else:
                self.spark.sql(f"ALTER TABLE {table} ALTER COLUMN {quote(a)} TYPE {b}")


class IcebergStore(_SparkStore):
    """Tables of the session's Iceberg catalog ``redotrail``, namespace ``namespace``."""

    format = "iceberg"

    def __init__(self, spark: Any, *, warehouse: str, namespace: str) -> None:
        super().__init__(spark, warehouse=warehouse, namespace=namespace)
        spark.sql(f"CREATE NAMESPACE IF NOT EXISTS redotrail.{quote(namespace)}")

    def ident(self, name: str) -> str:
        return f"redotrail.{quote(self.namespace)}.{quote(name)}"

    def exists(self, name: str) -> bool:
        return bool(self.spark.catalog.tableExists(f"redotrail.{self.namespace}.{name}"))

    def _create(self, name: str, rows: Any, *, changelog: bool, properties: dict[str, str]) -> None:
        from pyspark.sql import functions as F

        writer = rows.writeTo(self.ident(name)).using("iceberg")
        for key, value in {**ICEBERG_PROPERTIES, **properties}.items():
            writer = writer.tableProperty(key, value)
        if changelog:
            writer = writer.partitionedBy(
                F.col("owner"), F.col("table"), F.partitioning.days(F.col("commit_time"))
            )
        writer.create()  # one atomic commit: the table and its first rows

    def _commit_settings(self, batch_id: str, publication: str) -> dict[str, str]:
        return {ICEBERG_SNAPSHOT + PROP_BATCH: batch_id, ICEBERG_SNAPSHOT + PROP_PUBLICATION: publication}

    def has_publication(self, name: str, publication: str) -> bool:
        if not self.exists(name):
            return False
        found = self.spark.sql(
            f"SELECT 1 FROM {self.ident(name)}.snapshots "
            f"WHERE summary[{text(PROP_PUBLICATION)}] = {text(publication)} LIMIT 1"
        ).collect()
        return bool(found)

    def version(self, name: str) -> dict[str, Any]:
        snapshot = None
        if self.exists(name):
            rows = self.spark.sql(f"SELECT snapshot_id FROM {self.ident(name)}.refs WHERE name = 'main'")
            snapshot = next((r[0] for r in rows.collect()), None)
        return {"table": f"{self.namespace}.{name}", "snapshot_id": snapshot}


class DeltaStore(_SparkStore):
    """Delta tables at ``<warehouse>/<namespace>/<name>`` (``file://`` or ``s3a://``)."""

    format = "delta"

    def path(self, name: str) -> str:
        return f"{self.warehouse}/{self.namespace}/{name}"

    def ident(self, name: str) -> str:
        return f"delta.{quote(self.path(name))}"

    def exists(self, name: str) -> bool:
        return int(self._snapshot(name).version()) >= 0

    def _snapshot(self, name: str) -> Any:
        """The table's current snapshot (version -1: no table), through the JVM: delta-spark's
        io.delta.tables API and its ALTER TABLE commands do not load on Spark 4.1.3."""
        jvm = self.spark._jvm
        log = jvm.org.apache.spark.sql.delta.DeltaLog.forTable(self.spark._jsparkSession, self.path(name))
        none = jvm.scala.Option.apply(None)
        return log.update(False, none, none)

    def _create(self, name: str, rows: Any, *, changelog: bool, properties: dict[str, str]) -> None:
        writer = rows.write.format("delta").mode("append")
        if changelog:
            writer = writer.partitionBy(*DELTA_PARTITIONS)
        else:
            # a mirror may gain a DATE or TIMESTAMP column (timestamp_ntz) by ADD COLUMN later, which
            # Delta refuses on a table created without this feature; it can only be set at creation
            # here (delta-spark's ALTER TABLE does not load on Spark 4.1.3, and the writers' options
            # set table properties on a new table only)
            writer = writer.option("delta.feature.timestampNtz", "supported")
        writer.save(self.path(name))  # version 0: the table and its first rows

    def _add_columns(self, name: str, fields: Sequence[Any]) -> None:
        """An empty append with ``mergeSchema`` (delta-spark 4.1.0's ALTER TABLE does not load on
        Spark 4.1.3): a commit that only adds the columns."""
        from pyspark.sql.types import StructType

        schema = StructType([*self.frame(name).schema.fields, *fields])
        empty = self.spark.createDataFrame([], schema)
        empty.write.format("delta").mode("append").option("mergeSchema", "true").save(self.path(name))

    def _alter(self, name: str, steps: Sequence[tuple[str, str, str]]) -> None:
        """One commit rewriting the table in its new shape (``overwriteSchema``): delta-spark 4.1.0's
        ALTER TABLE does not load on Spark 4.1.3, and renaming or dropping a column in place needs
        column mapping, which readers such as older delta-rs builds do not all follow."""
        from pyspark.sql import functions as F

        frame = self.frame(name)
        columns = {c: F.col(quote(c)) for c in frame.columns}
        for kind, a, b in steps:
            if kind == "rename":
                columns = {(b if c == a else c): e for c, e in columns.items()}
            elif kind == "drop":
                columns.pop(a)
            else:
                columns[a] = columns[a].cast(b)
        rewritten = frame.select(*(e.alias(c) for c, e in columns.items()))
        rewritten.write.format("delta").mode("overwrite").option("overwriteSchema", "true").save(
            self.path(name)
        )

    def _commit_settings(self, batch_id: str, publication: str) -> dict[str, str]:
        metadata = json.dumps({PROP_BATCH: batch_id, PROP_PUBLICATION: publication}, sort_keys=True)
        return {DELTA_TXN_APP: app_id(publication), DELTA_TXN_VERSION: "1", DELTA_USER_METADATA: metadata}

    def has_publication(self, name: str, publication: str) -> bool:
        if not self.exists(name):
            return False
        return bool(self._snapshot(name).transactions().get(app_id(publication)).isDefined())

    def version(self, name: str) -> dict[str, Any]:
        version = int(self._snapshot(name).version()) if self.exists(name) else None
        return {"table": self.path(name), "version": version}
