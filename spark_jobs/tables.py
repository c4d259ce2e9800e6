"""The published tables: a changelog and one mirror per source table, in Iceberg (pyiceberg catalog)
or Delta (delta-rs), behind one small interface (``Store``). Table logic only, nothing about Oracle.

Exactly once: every commit records its batch and its publication, the run of the batch named by the
manifest (Iceberg: snapshot properties ``redotrail.batch_id`` / ``redotrail.publication`` and table
property ``redotrail.last_batch_id``; Delta: an application transaction ``redotrail-publication:<id>``
in the log), and ``has_publication`` lets a retry skip the tables a killed run already committed,
while a new run of the batch (re-run, backfill) publishes again. The changelog replaces the rows of
the logs a batch covers (``commit_log``), so whatever ranges earlier batches took, each committed
change is held once, with the id of the batch that published it last. Each table changes in one
catalog commit; files are staged first (Spark), so a run killed before a
commit leaves that table as it was. Iceberg references staged files in place (``add_files``) under
``<table>/data/_redotrail/<batch_id>/<run>/``; a rerun deletes the files there that no snapshot uses.
Delta tables are written by delta-rs from the staged files, streamed (``write_deltalake`` with a
``batch_id`` predicate for the changelog, ``merge`` for mirrors).
"""

from __future__ import annotations

import functools
import json
import os
import re
import shutil
import uuid
import warnings
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Protocol

from redo_lib.trail.schema import trail_schema

PROP_BATCH = "redotrail.batch_id"
PROP_PUBLICATION = "redotrail.publication"
PROP_LAST = "redotrail.last_batch_id"
PROP_SOURCE = "redotrail.source_table"
CHANGELOG = "changelog"
DELTA_PARTITIONS = ["owner", "table", "commit_date"]
META_COLUMNS = ("_rowid", "_commit_scn", "_batch_id")


def table_name(source_table: str) -> str:
    """``US03.STUDENT`` -> ``us03__student`` (lower case; characters outside [a-z0-9_] become ``_``)."""
    owner, _, name = source_table.rpartition(".")
    parts = [p for p in (owner, name) if p]
    return "__".join(re.sub(r"[^a-z0-9_]", "_", p.lower()) for p in parts)


def _relaxed(t: Any) -> Any:
    """An Arrow type with every nested field nullable (what Spark writes)."""
    import pyarrow as pa

    if pa.types.is_struct(t):
        return pa.struct([pa.field(f.name, _relaxed(f.type), True) for f in t])
    if pa.types.is_list(t):
        return pa.list_(pa.field(t.value_field.name, _relaxed(t.value_type), True))
    return t


def changelog_schema(*, commit_date: bool = False) -> Any:
    """The changelog's columns: the trail's (``trail_schema()``), all nullable; Delta adds the
    ``commit_date`` partition column (Iceberg partitions by ``day(commit_time)`` instead)."""
    import pyarrow as pa

    fields = [pa.field(f.name, _relaxed(f.type), True) for f in trail_schema()]
    if commit_date:
        fields.append(pa.field("commit_date", pa.date32(), True))
    return pa.schema(fields)


def mirror_schema(columns: Sequence[str], *, with_op: bool = False) -> Any:
    import pyarrow as pa

    fields = [pa.field(c, pa.string()) for c in columns]
    fields += [
        pa.field("_rowid", pa.string()),
        pa.field("_commit_scn", pa.int64()),
        pa.field("_batch_id", pa.string()),
    ]
    if with_op:
        fields.append(pa.field("_op", pa.string()))
    return pa.schema(fields)


class Store(Protocol):
    format: str

    def has_publication(self, name: str, publication: str) -> bool: ...
    def read_changelog_after(
        self, sources: Sequence[tuple[str, str]], min_scn: int, exclude_logs: Sequence[str], batch_id: str
    ) -> Any: ...
    def mirror_columns(self, name: str) -> list[str] | None: ...
    def read_rows(
        self, name: str, key_columns: Sequence[str], keys: Sequence[Sequence[str | None]]
    ) -> Any: ...
    def place(self, name: str, batch_id: str, files: Sequence[Path], root: Path) -> list[str]: ...
    def commit_changelog(
        self, batch_id: str, files: Sequence[str], *, publication: str, commit_logs: Sequence[str] = ()
    ) -> dict[str, Any]: ...
    def commit_mirror(self, name: str, source_table: str, batch_id: str, columns: Sequence[str],
                      key_columns: Sequence[str], files: Sequence[str],
                      delete_keys: Sequence[Sequence[str | None]], *, publication: str) -> dict[str, Any]: ...  # fmt: skip
    def version(self, name: str) -> dict[str, Any]: ...


def _local(uri: str) -> str | None:
    """The local path of a ``file://`` URI or plain path; None for a remote URI."""
    if uri.startswith("file://"):
        return uri.removeprefix("file://")
    return None if "://" in uri else uri


# -- Iceberg -----------------------------------------------------------------------------------------


def _key_filter(key_columns: Sequence[str], keys: Sequence[Sequence[str | None]], *, exact: bool) -> Any:
    """A pyiceberg filter for rows with these keys: exact (Or of Ands), or per column IN (a superset)."""
    from pyiceberg.expressions import And, In, IsNull, Or

    def one(column: str, values: set[str | None]) -> Any:
        present = sorted(v for v in values if v is not None)
        parts = [In(column, present)] if present else []
        parts += [IsNull(column)] if None in values else []
        return functools.reduce(Or, parts)

    if not exact or len(key_columns) == 1:
        columns = [one(c, {k[i] for k in keys}) for i, c in enumerate(key_columns)]
        return functools.reduce(And, columns)
    rows = [functools.reduce(And, [one(c, {k[i]}) for i, c in enumerate(key_columns)]) for k in keys]
    return functools.reduce(Or, rows)


def _quiet_delete(tx: Any, expression: Any, properties: dict[str, str]) -> None:
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="Delete operation did not match any records")
        tx.delete(expression, snapshot_properties=properties)


class IcebergStore:
    """Tables of a pyiceberg catalog: by default a SqlCatalog on SQLite beside a local warehouse;
    any other catalog by properties (``type``, ``uri``, ``s3.endpoint``, ... as pyiceberg takes them)."""

    format = "iceberg"

    def __init__(
        self,
        *,
        warehouse: str,
        namespace: str,
        catalog_uri: str | None = None,
        properties: dict[str, str] | None = None,
    ) -> None:
        from pyiceberg.catalog import load_catalog
        from pyiceberg.utils.config import Config

        self.warehouse = warehouse.rstrip("/")
        self.namespace = namespace
        props = {"warehouse": self.warehouse, **(properties or {})}
        configured = Config().get_catalog_config("redotrail") or {}  # ~/.pyiceberg.yaml, PYICEBERG_*
        local = _local(self.warehouse)
        if catalog_uri:
            props["uri"] = catalog_uri
        elif "uri" not in props and "uri" not in configured and local is not None:
            props["uri"] = f"sqlite:///{local}/catalog.db"
        if local is not None:
            Path(local).mkdir(parents=True, exist_ok=True)
        if str(props.get("uri", "")).startswith(("sqlite", "postgresql", "mysql")):
            props.setdefault("type", "sql")
        self.catalog = load_catalog("redotrail", **props)
        self.catalog.create_namespace_if_not_exists(namespace)

    def _ident(self, name: str) -> str:
        return f"{self.namespace}.{name}"

    def _table(self, name: str) -> Any:
        from pyiceberg.exceptions import NoSuchTableError

        try:
            return self.catalog.load_table(self._ident(name))
        except NoSuchTableError:
            return None

    def _location(self, name: str) -> str:
        table = self._table(name)
        return table.location() if table is not None else f"{self.warehouse}/{self.namespace}/{name}"

    def has_publication(self, name: str, publication: str) -> bool:
        table = self._table(name)
        if table is None:
            return False
        return any(
            s.summary is not None and s.summary.get(PROP_PUBLICATION) == publication
            for s in table.snapshots()
        )

    def read_changelog_after(
        self, sources: Sequence[tuple[str, str]], min_scn: int, exclude_logs: Sequence[str], batch_id: str
    ) -> Any:
        """Changelog rows of these (owner, table) pairs committed at or after ``min_scn``, other than
        the ones this batch replaces (its logs, its earlier run): what the mirrors replay after a
        batch that is not the newest (a backfill)."""
        from pyiceberg.expressions import And, EqualTo, GreaterThanOrEqual, Or

        table = self._table(CHANGELOG)
        if table is None or not sources:
            return None
        tables = functools.reduce(Or, [And(EqualTo("owner", o), EqualTo("table", t)) for o, t in sources])
        rows = table.scan(row_filter=And(GreaterThanOrEqual("commit_scn", min_scn), tables)).to_arrow()
        return _without(rows, exclude_logs, batch_id)

    def mirror_columns(self, name: str) -> list[str] | None:
        table = self._table(name)
        if table is None:
            return None
        return [f.name for f in table.schema().fields if f.name not in META_COLUMNS]

    def read_rows(self, name: str, key_columns: Sequence[str], keys: Sequence[Sequence[str | None]]) -> Any:
        table = self._table(name)
        if table is None or not keys:
            return None
        return table.scan(row_filter=_key_filter(key_columns, keys, exact=False)).to_arrow()

    def place(self, name: str, batch_id: str, files: Sequence[Path], root: Path) -> list[str]:
        """Move staged files under the table's ``data/_redotrail/<batch_id>/<run>/``, after deleting
        what an earlier, killed run left there that no snapshot references."""
        import pyarrow.parquet as pq
        from pyarrow import fs

        base = f"{self._location(name)}/data/_redotrail/{batch_id}"
        filesystem, base_path = fs.FileSystem.from_uri(base)
        table = self._table(name)
        used: set[str] = set()
        if table is not None and table.current_snapshot() is not None:
            used = {p.removeprefix("file://") for p in table.inspect.files().column("file_path").to_pylist()}
        listing = filesystem.get_file_info(fs.FileSelector(base_path, allow_not_found=True, recursive=True))
        for info in listing:
            if info.type == fs.FileType.File and info.path not in used and f"s3://{info.path}" not in used:
                filesystem.delete_file(info.path)
        run = f"{base}/{uuid.uuid4().hex[:12]}"
        out = []
        for path in files:
            if pq.read_metadata(path).num_rows == 0:  # Spark writes one empty file for no rows
                continue
            rel = path.relative_to(root).as_posix()
            local = _local(run)
            if local is not None:
                Path(local, rel).parent.mkdir(parents=True, exist_ok=True)
                shutil.move(str(path), os.path.join(local, rel))
                out.append(f"file://{local}/{rel}")
            else:
                fs.copy_files(str(path), f"{run}/{rel}")
                out.append(f"{run}/{rel}")
        return out

    def _commit(
        self,
        name: str,
        batch_id: str,
        schema: Any,
        files: Sequence[str],
        *,
        publication: str,
        new_columns: Sequence[str] = (),
        delete: Sequence[Any] = (),
        spec: bool = False,
        properties: dict[str, str] | None = None,
    ) -> None:
        from pyiceberg.transforms import DayTransform
        from pyiceberg.types import StringType

        snapshot = {PROP_BATCH: batch_id, PROP_PUBLICATION: publication}
        table = self._table(name)
        if table is None:
            context = self.catalog.create_table_transaction(
                self._ident(name), schema=schema, location=self._location(name), properties=properties or {}
            )
        else:
            context = table.transaction()
        with context as tx:
            if table is None and spec:
                with tx.update_spec() as update:
                    update.add_identity("owner")
                    update.add_identity("table")
                    update.add_field("commit_time", DayTransform(), "commit_day")
            if table is not None and new_columns:
                with tx.update_schema() as update:
                    for column in new_columns:
                        update.add_column(column, StringType())
            if table is not None:
                for expression in delete:
                    _quiet_delete(tx, expression, snapshot)
            if files:
                tx.add_files(list(files), snapshot_properties=snapshot)
            tx.set_properties({PROP_LAST: batch_id})

    def commit_changelog(
        self, batch_id: str, files: Sequence[str], *, publication: str, commit_logs: Sequence[str] = ()
    ) -> dict[str, Any]:
        """Replace the rows of this batch and of the logs it covers (whatever batch published them)."""
        from pyiceberg.expressions import EqualTo, In, Or

        replaced = EqualTo("batch_id", batch_id)
        if commit_logs:
            replaced = Or(replaced, In("commit_log", sorted(commit_logs)))
        table = self._table(CHANGELOG)
        known = {f.name for f in table.schema().fields} if table is not None else set()
        missing = [f.name for f in changelog_schema() if table is not None and f.name not in known]
        self._commit(
            CHANGELOG, batch_id, changelog_schema(), files, publication=publication,
            new_columns=missing, delete=[replaced], spec=True,
        )  # fmt: skip
        return self.version(CHANGELOG)

    def commit_mirror(
        self,
        name: str,
        source_table: str,
        batch_id: str,
        columns: Sequence[str],
        key_columns: Sequence[str],
        files: Sequence[str],
        delete_keys: Sequence[Sequence[str | None]],
        *,
        publication: str,
    ) -> dict[str, Any]:
        known = self.mirror_columns(name) or []
        chunks = [delete_keys[i : i + 500] for i in range(0, len(delete_keys), 500)]
        self._commit(
            name, batch_id, mirror_schema(columns), files, publication=publication,
            new_columns=[c for c in columns if c not in known],
            delete=[_key_filter(key_columns, chunk, exact=True) for chunk in chunks],
            properties={PROP_SOURCE: source_table, "redotrail.key_columns": json.dumps(list(key_columns))},
        )  # fmt: skip
        return self.version(name)

    def version(self, name: str) -> dict[str, Any]:
        table = self._table(name)
        snapshot = table.current_snapshot() if table is not None else None
        return {"table": self._ident(name), "snapshot_id": snapshot.snapshot_id if snapshot else None}


# -- Delta -------------------------------------------------------------------------------------------


def _plain_strings(rows: Any) -> Any:
    """DataFusion's string views as plain strings (what the Spark side reads)."""
    import pyarrow as pa

    plain = [
        pa.field(f.name, pa.string() if pa.types.is_string_view(f.type) else f.type) for f in rows.schema
    ]
    return rows.cast(pa.schema(plain))


def _app_id(publication: str) -> str:
    return f"redotrail-publication:{publication}"


def _without(rows: Any, exclude_logs: Sequence[str], batch_id: str) -> Any:
    """Arrow rows minus those of ``batch_id`` and of the logs in ``exclude_logs``."""
    import pyarrow as pa
    import pyarrow.compute as pc

    if rows is None or rows.num_rows == 0:
        return rows
    logs = pa.array(sorted(exclude_logs), pa.string())
    replaced = pc.or_kleene(
        pc.equal(rows.column("batch_id"), pa.scalar(batch_id)),
        pc.is_in(rows.column("commit_log"), value_set=logs),
    )
    return rows.filter(pc.invert(pc.fill_null(replaced, False)))


def _sql_text(value: str) -> str:
    return "'" + value.replace("'", "''") + "'"


class DeltaStore:
    """Delta tables at ``<warehouse>/<namespace>/<name>`` (a local folder or ``s3://``), by delta-rs."""

    format = "delta"

    def __init__(
        self, *, warehouse: str, namespace: str, storage_options: dict[str, str] | None = None
    ) -> None:
        self.warehouse = warehouse.rstrip("/")
        self.namespace = namespace
        self.options = dict(storage_options or {})
        endpoint = os.environ.get("AWS_ENDPOINT_URL", "")
        if self.warehouse.startswith("s3://") and endpoint.startswith("http://"):
            self.options.setdefault("AWS_ALLOW_HTTP", "true")

    def _path(self, name: str) -> str:
        uri = f"{self.warehouse}/{self.namespace}/{name}"
        return _local(uri) or uri

    def _table(self, name: str) -> Any:
        from deltalake import DeltaTable

        path = self._path(name)
        if not DeltaTable.is_deltatable(path, storage_options=self.options or None):
            return None
        return DeltaTable(path, storage_options=self.options or None)

    def _commit_properties(self, batch_id: str, publication: str) -> Any:
        from deltalake import CommitProperties, Transaction

        return CommitProperties(
            custom_metadata={PROP_BATCH: batch_id, PROP_PUBLICATION: publication},
            app_transactions=[Transaction(_app_id(publication), 1)],
        )

    def has_publication(self, name: str, publication: str) -> bool:
        table = self._table(name)
        return table is not None and table.transaction_version(_app_id(publication)) is not None

    def read_changelog_after(
        self, sources: Sequence[tuple[str, str]], min_scn: int, exclude_logs: Sequence[str], batch_id: str
    ) -> Any:
        import pyarrow as pa
        from deltalake import QueryBuilder

        table = self._table(CHANGELOG)
        if table is None or not sources:
            return None
        tables = " OR ".join(f'("owner" = {_sql_text(o)} AND "table" = {_sql_text(t)})' for o, t in sources)
        reader = (
            QueryBuilder()
            .register("changelog", table)
            .execute(f'SELECT * FROM changelog WHERE "commit_scn" >= {int(min_scn)} AND ({tables})')
        )
        rows = pa.table(reader.read_all())
        schema = changelog_schema(commit_date=True)  # DataFusion's string views, nested ones too
        return _without(rows.select(schema.names).cast(schema), exclude_logs, batch_id)

    def mirror_columns(self, name: str) -> list[str] | None:
        table = self._table(name)
        if table is None:
            return None
        return [f.name for f in table.schema().fields if f.name not in META_COLUMNS]

    def read_rows(self, name: str, key_columns: Sequence[str], keys: Sequence[Sequence[str | None]]) -> Any:
        import pyarrow as pa
        from deltalake import QueryBuilder

        table = self._table(name)
        if table is None or not keys:
            return None
        where = []
        for i, column in enumerate(key_columns):
            values = {k[i] for k in keys}
            parts = [
                f'"{column}" IN ({", ".join(_sql_text(v) for v in sorted(v for v in values if v is not None))})'
            ]
            parts = parts if any(v is not None for v in values) else []
            parts += [f'"{column}" IS NULL'] if None in values else []
            where.append("(" + " OR ".join(parts) + ")")
        reader = (
            QueryBuilder()
            .register("mirror", table)
            .execute(f"SELECT * FROM mirror WHERE {' AND '.join(where)}")
        )
        return _plain_strings(pa.table(reader.read_all()))

    def place(self, name: str, batch_id: str, files: Sequence[Path], root: Path) -> list[str]:
        return [str(p) for p in files]  # delta-rs streams them at commit

    def commit_changelog(
        self, batch_id: str, files: Sequence[str], *, publication: str, commit_logs: Sequence[str] = ()
    ) -> dict[str, Any]:
        import pyarrow.dataset as ds
        from deltalake import write_deltalake

        schema = changelog_schema(commit_date=True)
        reader = ds.dataset(list(files), schema=schema, format="parquet").scanner().to_reader()
        table = self._table(CHANGELOG)
        replaced = f"batch_id = {_sql_text(batch_id)}"
        if commit_logs:
            replaced += f" OR commit_log IN ({', '.join(_sql_text(c) for c in sorted(commit_logs))})"
        write_deltalake(
            self._path(CHANGELOG), reader, partition_by=DELTA_PARTITIONS,
            mode="append" if table is None else "overwrite",
            predicate=None if table is None else replaced,
            storage_options=self.options or None,
            commit_properties=self._commit_properties(batch_id, publication),
        )  # fmt: skip
        return self.version(CHANGELOG)

    def commit_mirror(
        self,
        name: str,
        source_table: str,
        batch_id: str,
        columns: Sequence[str],
        key_columns: Sequence[str],
        files: Sequence[str],
        delete_keys: Sequence[Sequence[str | None]],
        *,
        publication: str,
    ) -> dict[str, Any]:
        import pyarrow.dataset as ds
        from deltalake import write_deltalake

        staged = ds.dataset(list(files), schema=mirror_schema(columns, with_op=True), format="parquet")
        table = self._table(name)
        commit = self._commit_properties(batch_id, publication)
        if table is None:
            upserts = staged.scanner(columns=mirror_schema(columns).names, filter=ds.field("_op") == "U")
            write_deltalake(
                self._path(name), upserts.to_reader(), mode="append", name=name,
                description=f"{PROP_SOURCE}={source_table}", storage_options=self.options or None,
                commit_properties=commit,
            )  # fmt: skip
            return self.version(name)
        match = " AND ".join(f'(t."{k}" IS NOT DISTINCT FROM s."{k}")' for k in key_columns)
        updates = {f'"{c}"': f's."{c}"' for c in mirror_schema(columns).names}
        (
            table.merge(staged.scanner().to_reader(), predicate=match, source_alias="s", target_alias="t",
                        merge_schema=True, commit_properties=commit)
            .when_matched_delete(predicate="s._op = 'D'")
            .when_matched_update(updates=updates, predicate="s._op = 'U'")
            .when_not_matched_insert(updates=updates, predicate="s._op = 'U'")
            .execute()
        )  # fmt: skip
        return self.version(name)

    def version(self, name: str) -> dict[str, Any]:
        table = self._table(name)
        return {"table": self._path(name), "version": table.version() if table is not None else None}
