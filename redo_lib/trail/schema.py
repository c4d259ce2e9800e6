"""The trail's columns as one Arrow schema: the single source for Parquet, Spark, GE and tables.

``TRAIL_SCHEMA`` (built on first use; pyarrow is imported lazily so ``import redo_lib`` stays
stdlib-only) has the fields of ``trail.model.TRAIL_FIELDS`` in that order, plus the columns the
pipeline adds to every row: ``batch_id`` (the batch that published it), ``trail_seq`` (the record's
0-based position in the batch's trail, commit order) and ``commit_log`` (the archived log holding the
transaction's commit record, ``<thread>_<sequence>_<resetlogs id>`` as in LOG_ARCHIVE_FORMAT
``%t_%s_%r``). A committed change belongs to exactly one log, the one of its commit, so a publish
replaces the changelog rows of the logs it covers, whatever batches published them before
(exactly once under re-runs and backfills of any range: docs/operations.md).

``lob_columns`` (rule 17) is a list of ``{column, bytes, pieces}`` structs, one per LOB column with a
value in the record's image. Images (``columns``, ``before``) and ``tokens`` are lists of ``{name, value}`` structs, so the
column order of an image is kept and a SQL NULL value (``value`` null) differs from a column that is
not in the image (no entry). Times are ``timestamp[us, UTC]`` (TIMESTAMP_MICROS in Parquet).

Layer 4.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable
from functools import cache
from typing import Any

from redo_lib.trail.model import TRAIL_FIELDS, TrailRecord

PIPELINE_FIELDS = ("batch_id", "trail_seq", "commit_log")


@cache
def trail_schema() -> Any:
    """The Arrow schema of trail rows (``TRAIL_FIELDS`` + ``PIPELINE_FIELDS``)."""
    import pyarrow as pa

    pair = pa.struct([pa.field("name", pa.string(), nullable=False), pa.field("value", pa.string())])
    ts = pa.timestamp("us", tz="UTC")
    types = {
        "xid": pa.string(),
        "commit_scn": pa.int64(),
        "commit_time": ts,
        "trans_ind": pa.int8(),
        "io_type": pa.int16(),
        "op": pa.string(),
        "before_after": pa.string(),
        "owner": pa.string(),
        "table": pa.string(),
        "obj": pa.int64(),
        "columns": pa.list_(pair),
        "before": pa.list_(pair),
        "key_columns": pa.list_(pa.string()),
        "changed_columns": pa.list_(pa.string()),
        "rowid": pa.string(),
        "scn": pa.int64(),
        "subscn": pa.int32(),
        "op_time": ts,
        "thread": pa.int32(),
        "sequence": pa.int64(),
        "rba": pa.string(),
        "tokens": pa.list_(pair),
        "lob_columns": pa.list_(
            pa.struct(
                [
                    pa.field("column", pa.string(), nullable=False),
                    pa.field("bytes", pa.int64(), nullable=False),
                    pa.field("pieces", pa.int32(), nullable=False),
                ]
            )
        ),
        "batch_id": pa.string(),
        "trail_seq": pa.int64(),
        "commit_log": pa.string(),
    }
    assert tuple(types)[: len(TRAIL_FIELDS)] == TRAIL_FIELDS
    nullable = {"owner", "batch_id", "commit_log"}
    return pa.schema([pa.field(name, t, nullable=name in nullable) for name, t in types.items()])


def _time(text: str) -> dt.datetime:
    return dt.datetime.fromisoformat(text).replace(tzinfo=dt.UTC)


def _pairs(items: Iterable[tuple[str, str | None]]) -> list[dict[str, str | None]]:
    return [{"name": k, "value": v} for k, v in items]


def commit_log_name(thread: int, sequence: int, resetlogs_id: int | None) -> str:
    """``<thread>_<sequence>_<resetlogs id>``: the log of a commit (``<thread>_<sequence>`` when the
    incarnation is not known, as in a decode of loose files)."""
    return f"{thread}_{sequence}" if resetlogs_id is None else f"{thread}_{sequence}_{resetlogs_id}"


def to_row(
    record: TrailRecord, *, batch_id: str | None = None, trail_seq: int = 0, commit_log: str | None = None
) -> dict[str, Any]:
    """One trail record as a row of ``trail_schema()``."""
    return {
        "xid": record.xid,
        "commit_scn": record.commit_scn,
        "commit_time": _time(record.commit_time),
        "trans_ind": int(record.trans_ind),
        "io_type": int(record.io_type),
        "op": record.op,
        "before_after": record.before_after,
        "owner": record.owner,
        "table": record.table,
        "obj": record.obj,
        "columns": _pairs(record.columns),
        "before": _pairs(record.before),
        "key_columns": list(record.key_columns),
        "changed_columns": list(record.changed_columns),
        "rowid": record.rowid,
        "scn": record.scn,
        "subscn": record.subscn,
        "op_time": _time(record.op_time),
        "thread": record.thread,
        "sequence": record.sequence,
        "rba": record.rba,
        "tokens": _pairs(record.tokens),
        "lob_columns": [c.to_dict() for c in record.lob_columns],
        "batch_id": batch_id,
        "trail_seq": trail_seq,
        "commit_log": commit_log,
    }


def from_row(row: dict[str, Any]) -> TrailRecord:
    """A row of ``trail_schema()`` (e.g. from Parquet) back to a ``TrailRecord``."""

    def iso(value: Any) -> str:
        if isinstance(value, dt.datetime):
            return value.astimezone(dt.UTC).strftime("%Y-%m-%dT%H:%M:%S")
        return str(value)

    def pairs(items: Any) -> dict[str, Any]:
        return {p["name"]: p["value"] for p in items or ()}

    d = dict(row)
    d["commit_time"] = iso(d["commit_time"])
    d["op_time"] = iso(d["op_time"])
    d["columns"] = pairs(d["columns"])
    d["before"] = pairs(d["before"])
    d["tokens"] = pairs(d["tokens"])
    d["lob_columns"] = list(d.get("lob_columns") or ())
    return TrailRecord.from_dict(d)


def to_arrow(
    records: Iterable[TrailRecord],
    *,
    batch_id: str | None = None,
    first_seq: int = 0,
    commit_logs: Iterable[str | None] | None = None,
) -> Any:
    """Trail records as an Arrow table of ``trail_schema()`` (``trail_seq`` from ``first_seq`` on;
    ``commit_logs``, one per record, as ``DecodeResult.commit_logs`` gives them)."""
    import itertools

    import pyarrow as pa

    logs = itertools.repeat(None) if commit_logs is None else iter(commit_logs)
    rows = [
        to_row(r, batch_id=batch_id, trail_seq=first_seq + i, commit_log=log)
        for i, (r, log) in enumerate(zip(records, logs, strict=False))
    ]
    return pa.Table.from_pylist(rows, schema=trail_schema())


def numbered_trail_batch(staged: Any, first: int) -> Any:
    """A record batch (or a table) of the core's staged trail (``native.staged_trail_schema()``) as one of
    :func:`trail_schema`, its ``trail_seq`` ``first``, ``first + 1``, ...: the core's
    (``redo_core::trail::parquet_out::numbered_trail_batch``, what ``decode --format parquet``
    writes), no Python object per row. A missing trail field or one of another type is an
    ``AssemblyError`` naming it."""
    import pyarrow as pa

    from redo_lib.native import native

    if isinstance(staged, pa.Table):  # a table in, a table out: its batches numbered on
        out, n = [], first
        for batch in staged.to_batches():
            out.append(pa.record_batch(native.numbered_trail_batch(batch, n)))
            n += batch.num_rows
        return pa.Table.from_batches(out, schema=trail_schema())
    return pa.record_batch(native.numbered_trail_batch(staged, first))
