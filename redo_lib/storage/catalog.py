"""The log catalog: every archived log seen in the archive, and every batch planned over them.

Two kinds of rows, kept in SQLite through the stdlib ``sqlite3`` (one file, no server; see
docs/operations.md for why not Postgres):

* ``LogEntry`` — one archived log object: where it is (``location``, ``etag``, ``size``), when it
  was first and last listed (and its size at the listing before, for "still being written"
  detection), what its redo header says (thread, sequence, resetlogs id, first/next SCN and time,
  block size, nab; redo-format §1.4), and its status: ``discovered`` (``ready`` once complete and
  stable, else ``reason`` says why it waits), ``batched`` (``batch_id``), ``published``,
  ``rejected`` (not a redo log, or not of this pipeline's database or incarnations), ``duplicate``
  (same thread/sequence/resetlogs as another object), ``gone`` (no longer listed before it was
  batched);
* ``SourceEntry`` — the one source database this pipeline captures (DBID, name, where it was learned
  from, its root incarnation): logs of any other database are rejected by discovery;
* ``BatchEntry`` — one batch: thread(s) with their first/last sequence, status (``planned``,
  ``running``, ``validated``, ``published``, ``failed``), the previous batch, its folder.

Plus the archive I/O the discovery needs: a paginated listing of an ``s3://`` prefix, one ranged
GET of an object's first bytes, and writing/reading small text objects (manifests, markers) on S3
or local disk. Every sqlite3/botocore/OS error becomes a ``StorageError``.

The rules (what is ready, what to plan next) live in ``redo_lib.discovery``; this module only
stores rows. Side package: imports layer 0 only.
"""

from __future__ import annotations

import contextlib
import dataclasses
import datetime as dt
import enum
import json
import os
import sqlite3
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, final
from urllib.parse import urlparse

from redo_lib.errors import Position, StorageError


class LogStatus(enum.StrEnum):
    DISCOVERED = "discovered"
    BATCHED = "batched"
    PUBLISHED = "published"
    REJECTED = "rejected"
    DUPLICATE = "duplicate"
    GONE = "gone"


class BatchStatus(enum.StrEnum):
    PLANNED = "planned"
    RUNNING = "running"
    VALIDATED = "validated"
    PUBLISHED = "published"
    FAILED = "failed"


class BatchKind(enum.StrEnum):
    SCHEDULED = "scheduled"  # planned by discovery: the chain of batches that moves forward
    BACKFILL = "backfill"  # a re-processing of a sequence range already planned


@final
@dataclass(frozen=True, slots=True, kw_only=True)
class LogEntry:
    """One archived log object and what its header says (header fields ``None`` until parsed)."""

    location: str
    size: int
    etag: str = ""
    prev_size: int | None = None  # size at the listing before ``last_seen``
    first_seen: str = ""
    last_seen: str = ""
    thread: int | None = None
    sequence: int | None = None
    resetlogs_id: int | None = None
    resetlogs_scn: int | None = None
    prev_resetlogs_id: int | None = None
    dbid: int | None = None
    db_name: str | None = None
    first_scn: int | None = None
    next_scn: int | None = None
    first_time: str | None = None
    next_time: str | None = None
    block_size: int | None = None
    nab: int | None = None
    misc_flags: int | None = None
    status: LogStatus = LogStatus.DISCOVERED
    ready: bool = False
    reason: str | None = None  # why it waits, or why it was rejected
    note: str | None = None  # reported but not blocking: name/header mismatch, duplicate of ...
    batch_id: str | None = None

    @property
    def identity(self) -> tuple[int, int, int] | None:
        """(resetlogs id, thread, sequence) from the header, or None when not parsed."""
        if self.thread is None or self.sequence is None or self.resetlogs_id is None:
            return None
        return (self.resetlogs_id, self.thread, self.sequence)


@final
@dataclass(frozen=True, slots=True, kw_only=True)
class SourceEntry:
    """The source database of the pipeline: one per catalog; once learned, never another DBID.

    ``learned_from`` is ``REDOTRAIL_DBID`` (configured) or the location of the first log it was learned
    from. The root incarnation is the oldest incarnation of the database (by resetlogs SCN) among the
    logs seen when it was learned; ``None`` (and ``db_name`` too) until a log of the database is seen."""

    dbid: int
    db_name: str | None = None
    learned_from: str = ""
    root_resetlogs_id: int | None = None
    root_resetlogs_scn: int | None = None
    learned: str = ""  # when (utc_now format)

    def describe(self) -> str:
        """``DBID 1497016494 (FREE)``, or ``DBID 1497016494`` while the name is unknown."""
        return f"DBID {self.dbid} ({self.db_name})" if self.db_name else f"DBID {self.dbid}"


@final
@dataclass(frozen=True, slots=True, kw_only=True)
class BatchEntry:
    """One batch: per-thread sequence ranges of one incarnation, and where its folder is."""

    batch_id: str
    resetlogs_id: int
    ranges: Mapping[int, tuple[int, int]]  # thread -> (first sequence, last sequence)
    batch_dir: str
    kind: BatchKind = BatchKind.SCHEDULED
    status: BatchStatus = BatchStatus.PLANNED
    previous_batch: str | None = None
    carried_in: str | None = None
    first_scn: int | None = None
    watermark_scn: int | None = None  # every thread of the batch is covered up to this SCN
    message: str | None = None
    created: str = ""
    updated: str = ""

    @property
    def threads(self) -> tuple[int, ...]:
        return tuple(sorted(self.ranges))


_LOG_COLUMNS = tuple(f.name for f in dataclasses.fields(LogEntry))
_BATCH_COLUMNS = tuple(f.name for f in dataclasses.fields(BatchEntry))
_SOURCE_COLUMNS = tuple(f.name for f in dataclasses.fields(SourceEntry))

_SCHEMA = """
CREATE TABLE IF NOT EXISTS logs (
  location TEXT PRIMARY KEY, size INTEGER NOT NULL, etag TEXT NOT NULL, prev_size INTEGER,
  first_seen TEXT NOT NULL, last_seen TEXT NOT NULL,
  thread INTEGER, sequence INTEGER, resetlogs_id INTEGER, resetlogs_scn INTEGER,
  prev_resetlogs_id INTEGER, dbid INTEGER, db_name TEXT, first_scn INTEGER, next_scn INTEGER,
  first_time TEXT, next_time TEXT, block_size INTEGER, nab INTEGER, misc_flags INTEGER,
  status TEXT NOT NULL, ready INTEGER NOT NULL, reason TEXT, note TEXT, batch_id TEXT
);
CREATE INDEX IF NOT EXISTS logs_identity ON logs (resetlogs_id, thread, sequence);
CREATE TABLE IF NOT EXISTS batches (
  batch_id TEXT PRIMARY KEY, resetlogs_id INTEGER NOT NULL, ranges TEXT NOT NULL,
  batch_dir TEXT NOT NULL, kind TEXT NOT NULL, status TEXT NOT NULL, previous_batch TEXT,
  carried_in TEXT, first_scn INTEGER, watermark_scn INTEGER, message TEXT,
  created TEXT NOT NULL, updated TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS batch_logs (
  batch_id TEXT NOT NULL, location TEXT NOT NULL, thread INTEGER NOT NULL, sequence INTEGER NOT NULL,
  PRIMARY KEY (batch_id, location)
);
CREATE TABLE IF NOT EXISTS source (
  dbid INTEGER PRIMARY KEY, db_name TEXT, learned_from TEXT NOT NULL, root_resetlogs_id INTEGER,
  root_resetlogs_scn INTEGER, learned TEXT NOT NULL
);
"""


def utc_now() -> str:
    """The catalog's timestamp format: ISO 8601, UTC, seconds."""
    return dt.datetime.now(dt.UTC).isoformat(timespec="seconds")


class LogCatalog:
    """The catalog database (a SQLite file, or ``":memory:"``). Each writing method is atomic; wrap
    several in :meth:`transaction` to make them one."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        text = os.fspath(path).removeprefix("sqlite:///")
        self.path = text
        db = None
        try:
            if text != ":memory:":
                Path(text).parent.mkdir(parents=True, exist_ok=True)
            db = sqlite3.connect(text, timeout=30, isolation_level=None)
            db.row_factory = sqlite3.Row
            db.executescript(_SCHEMA)
            _add_missing_columns(db)
        except (sqlite3.Error, OSError) as exc:
            if db is not None:
                db.close()
            raise StorageError(f"cannot open the log catalog: {exc}", position=Position(file=text)) from exc
        self._db = db

    def close(self) -> None:
        self._db.close()

    def __enter__(self) -> LogCatalog:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @contextlib.contextmanager
    def transaction(self) -> Iterator[None]:
        """``BEGIN IMMEDIATE`` … ``COMMIT``: one writer at a time (two planners never interleave).
        Re-entrant: inside an open transaction it only joins it."""
        if self._db.in_transaction:
            yield
            return
        self._run("BEGIN IMMEDIATE")
        try:
            yield
        except BaseException:
            self._db.rollback()
            raise
        self._run("COMMIT")

    def _run(self, sql: str, args: Sequence[Any] = ()) -> list[sqlite3.Row]:
        try:
            return self._db.execute(sql, tuple(args)).fetchall()
        except sqlite3.Error as exc:
            raise StorageError(
                f"log catalog: {exc} in {sql.split()[0]}", position=Position(file=self.path)
            ) from exc

    # ---- logs -----------------------------------------------------------------------------------

    def put_log(self, entry: LogEntry) -> None:
        """Insert or replace the row of ``entry.location``."""
        values = [_to_sql(getattr(entry, c)) for c in _LOG_COLUMNS]
        marks = ", ".join("?" * len(values))
        self._run(f"INSERT OR REPLACE INTO logs ({', '.join(_LOG_COLUMNS)}) VALUES ({marks})", values)

    def get_log(self, location: str) -> LogEntry | None:
        rows = self._run("SELECT * FROM logs WHERE location = ?", [location])
        return _log(rows[0]) if rows else None

    def logs(self, *, status: LogStatus | None = None, resetlogs_id: int | None = None) -> list[LogEntry]:
        """Logs ordered by (resetlogs id, thread, sequence, location); unparsed ones first."""
        where, args = _filters(status=status, resetlogs_id=resetlogs_id)
        rows = self._run(f"SELECT * FROM logs{where} ORDER BY resetlogs_id, thread, sequence, location", args)
        return [_log(r) for r in rows]

    # ---- the source database ------------------------------------------------------------------

    def source(self) -> SourceEntry | None:
        """The source database learned so far, or None."""
        rows = self._run("SELECT * FROM source")
        return SourceEntry(**dict(rows[0])) if rows else None

    def put_source(self, source: SourceEntry) -> None:
        """Store the source database (the one row of the ``source`` table)."""
        values = [getattr(source, c) for c in _SOURCE_COLUMNS]
        marks = ", ".join("?" * len(values))
        with self.transaction():
            self._run("DELETE FROM source")
            self._run(f"INSERT INTO source ({', '.join(_SOURCE_COLUMNS)}) VALUES ({marks})", values)

    # ---- batches --------------------------------------------------------------------------------

    def put_batch(self, batch: BatchEntry, logs: Sequence[LogEntry] = ()) -> BatchEntry:
        """Insert or replace a batch and its log list. Logs of a scheduled batch become ``batched``."""
        now = utc_now()
        batch = dataclasses.replace(batch, created=batch.created or now, updated=now)
        values = [_to_sql(getattr(batch, c)) for c in _BATCH_COLUMNS]
        marks = ", ".join("?" * len(values))
        # an upsert, not INSERT OR REPLACE: a replaced row would get a new rowid, and batches are
        # listed in (created, rowid) order, the chain the planner follows (a re-planned batch would
        # move behind the ones planned after it in the same second)
        updates = ", ".join(f"{c} = excluded.{c}" for c in _BATCH_COLUMNS if c != "batch_id")
        with self.transaction():
            self._run(
                f"INSERT INTO batches ({', '.join(_BATCH_COLUMNS)}) VALUES ({marks}) "
                f"ON CONFLICT (batch_id) DO UPDATE SET {updates}",
                values,
            )
            if logs:
                self._run("DELETE FROM batch_logs WHERE batch_id = ?", [batch.batch_id])
            for log in logs:
                self._run(
                    "INSERT INTO batch_logs (batch_id, location, thread, sequence) VALUES (?, ?, ?, ?)",
                    [batch.batch_id, log.location, log.thread, log.sequence],
                )
                if batch.kind is BatchKind.SCHEDULED:
                    self._run(
                        "UPDATE logs SET status = ?, batch_id = ?, ready = 1 WHERE location = ?",
                        [LogStatus.BATCHED.value, batch.batch_id, log.location],
                    )
        return batch

    def get_batch(self, batch_id: str) -> BatchEntry | None:
        rows = self._run("SELECT * FROM batches WHERE batch_id = ?", [batch_id])
        return _batch(rows[0]) if rows else None

    def batches(
        self,
        *,
        status: BatchStatus | None = None,
        kind: BatchKind | None = None,
        resetlogs_id: int | None = None,
    ) -> list[BatchEntry]:
        """Batches in creation order."""
        where, args = _filters(status=status, kind=kind, resetlogs_id=resetlogs_id)
        rows = self._run(f"SELECT * FROM batches{where} ORDER BY created, rowid", args)
        return [_batch(r) for r in rows]

    def batch_logs(self, batch_id: str) -> list[LogEntry]:
        """The logs of a batch, ordered by (thread, sequence)."""
        rows = self._run(
            "SELECT logs.* FROM batch_logs JOIN logs USING (location) WHERE batch_logs.batch_id = ? "
            "ORDER BY batch_logs.thread, batch_logs.sequence",
            [batch_id],
        )
        return [_log(r) for r in rows]

    def set_batch_status(self, batch_id: str, status: BatchStatus, message: str | None = None) -> BatchEntry:
        """Move a batch to ``status``; publishing a scheduled batch marks its logs ``published``."""
        with self.transaction():
            batch = self.get_batch(batch_id)
            if batch is None:
                raise StorageError(
                    f"no batch {batch_id!r} in the log catalog", position=Position(file=self.path)
                )
            self._run(
                "UPDATE batches SET status = ?, message = ?, updated = ? WHERE batch_id = ?",
                [status.value, message, utc_now(), batch_id],
            )
            if status is BatchStatus.PUBLISHED and batch.kind is BatchKind.SCHEDULED:
                self._run(
                    "UPDATE logs SET status = ? WHERE location IN "
                    "(SELECT location FROM batch_logs WHERE batch_id = ?)",
                    [LogStatus.PUBLISHED.value, batch_id],
                )
        updated = self.get_batch(batch_id)
        assert updated is not None
        return updated


def _add_missing_columns(db: sqlite3.Connection) -> None:
    """Columns added after a catalog file was created (``logs.db_name``) are added to it."""
    try:
        db.execute("SELECT db_name FROM logs LIMIT 0")
    except sqlite3.OperationalError:
        db.execute("ALTER TABLE logs ADD COLUMN db_name TEXT")


def _filters(**conditions: Any) -> tuple[str, list[Any]]:
    pairs = [(k, _to_sql(v)) for k, v in conditions.items() if v is not None]
    if not pairs:
        return "", []
    return " WHERE " + " AND ".join(f"{k} = ?" for k, _ in pairs), [v for _, v in pairs]


def _to_sql(value: Any) -> Any:
    if isinstance(value, enum.Enum):
        return value.value
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, Mapping):
        return json.dumps({str(k): list(v) for k, v in sorted(value.items())})
    return value


def _log(row: sqlite3.Row) -> LogEntry:
    values = dict(row)
    values["status"] = LogStatus(values["status"])
    values["ready"] = bool(values["ready"])
    return LogEntry(**values)


def _batch(row: sqlite3.Row) -> BatchEntry:
    values = dict(row)
    values["ranges"] = {int(t): (int(a), int(b)) for t, (a, b) in json.loads(values["ranges"]).items()}
    values["kind"] = BatchKind(values["kind"])
    values["status"] = BatchStatus(values["status"])
    return BatchEntry(**values)


# ---- archive and batch-folder I/O ---------------------------------------------------------------


@final
@dataclass(frozen=True, slots=True, kw_only=True)
class ListedObject:
    """One object of an archive listing."""

    location: str  # s3://bucket/key
    size: int
    etag: str


def split_prefix(url: str) -> tuple[str, str]:
    """``s3://bucket/some/prefix/`` -> (bucket, ``some/prefix/``); the prefix may be empty."""
    parsed = urlparse(url)
    if parsed.scheme != "s3" or not parsed.netloc:
        raise StorageError(f"not an s3://bucket/prefix URL: {url!r}", position=Position(file=url))
    return parsed.netloc, parsed.path.lstrip("/")


def list_archive(url: str, client: Any = None, *, page_size: int = 1000) -> Iterator[ListedObject]:
    """Every object under an ``s3://`` prefix (paginated ``ListObjectsV2``), in key order."""
    bucket, prefix = split_prefix(url)
    client = client or _client()
    pages = {"PageSize": page_size}
    try:
        for page in client.get_paginator("list_objects_v2").paginate(
            Bucket=bucket, Prefix=prefix, PaginationConfig=pages
        ):
            for item in page.get("Contents", ()):
                if item["Key"].endswith("/"):
                    continue  # a "folder" marker object
                yield ListedObject(
                    location=f"s3://{bucket}/{item['Key']}",
                    size=int(item["Size"]),
                    etag=str(item.get("ETag", "")).strip('"'),
                )
    except Exception as exc:  # botocore ClientError, EndpointConnectionError, ...
        raise StorageError(f"listing failed: {exc}", position=Position(file=url)) from exc


def read_object_head(location: str, size: int, limit: int, client: Any = None) -> bytes:
    """The first ``min(size, limit)`` bytes of an object, with exactly one ranged GET."""
    if size <= 0:
        return b""
    bucket, key = split_prefix(location)
    client = client or _client()
    end = min(size, limit) - 1
    try:
        data: bytes = client.get_object(Bucket=bucket, Key=key, Range=f"bytes=0-{end}")["Body"].read()
    except Exception as exc:
        raise StorageError(
            f"ranged GET bytes=0-{end} failed: {exc}", position=Position(file=location)
        ) from exc
    return data


def write_text(location: str, text: str, client: Any = None) -> None:
    """Write a small text object: ``s3://`` with one PUT, a local path atomically (temp + rename)."""
    try:
        if location.startswith("s3://"):
            bucket, key = split_prefix(location)
            (client or _client()).put_object(Bucket=bucket, Key=key, Body=text.encode())
            return
        path = Path(location)
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f".{path.name}.tmp")
        tmp.write_text(text, encoding="utf-8")
        os.replace(tmp, path)
    except StorageError:
        raise
    except Exception as exc:
        raise StorageError(f"write failed: {exc}", position=Position(file=location)) from exc


def read_text(location: str, client: Any = None) -> str:
    """The whole text of a small object: a local file, or an ``s3://`` object with one GET."""
    try:
        if location.startswith("s3://"):
            bucket, key = split_prefix(location)
            body = (client or _client()).get_object(Bucket=bucket, Key=key)["Body"]
            return bytes(body.read()).decode("utf-8")
        return Path(location).read_text(encoding="utf-8")
    except Exception as exc:
        raise StorageError(f"read failed: {exc}", position=Position(file=location)) from exc


def object_exists(location: str, client: Any = None) -> bool:
    """Whether a local file or an ``s3://`` object exists (a HEAD request)."""
    if not location.startswith("s3://"):
        return Path(location).exists()
    bucket, key = split_prefix(location)
    try:
        (client or _client()).head_object(Bucket=bucket, Key=key)
    except Exception as exc:
        code = str(getattr(exc, "response", {}).get("Error", {}).get("Code", ""))
        if code in ("404", "NoSuchKey", "NotFound"):
            return False
        raise StorageError(f"HEAD failed: {exc}", position=Position(file=location)) from exc
    return True


def remove_object(location: str, client: Any = None) -> None:
    """Delete a local file or an ``s3://`` object; nothing happens when it does not exist."""
    try:
        if location.startswith("s3://"):
            bucket, key = split_prefix(location)
            (client or _client()).delete_object(Bucket=bucket, Key=key)
        else:
            Path(location).unlink(missing_ok=True)
    except Exception as exc:
        raise StorageError(f"delete failed: {exc}", position=Position(file=location)) from exc


def join_location(base: str, *parts: str) -> str:
    """``base/part/...`` for a local path or an ``s3://`` prefix."""
    if base.startswith("s3://"):
        return "/".join([base.rstrip("/"), *parts])
    return str(Path(base).joinpath(*parts))


def _client() -> Any:
    from redo_lib.storage.s3 import s3_client

    return s3_client()
