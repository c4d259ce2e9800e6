"""The log catalog: every archived log seen in the archive, and every batch planned over them.

Rows kept through SQLAlchemy Core (tables defined once below): a SQLite file by default (no
server), PostgreSQL in the cluster profile, where several Airflow workers share it; the same
statements run on both (docs/operations.md, "The log catalog"). Three kinds of rows:

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
or local disk. Every SQLAlchemy/DBAPI/botocore/OS error becomes a ``StorageError``.

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
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar, final
from urllib.parse import urlparse

import sqlalchemy as sa
from sqlalchemy.dialects import postgresql, sqlite

from redo_lib.errors import Position, StorageError
from redo_lib.storage.s3 import s3_client, s3_failure


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
    started: str | None = None  # when the last run began (utc_now_precise), None if never run
    finished: str | None = None  # when it ended (published, validated or failed), None while running

    @property
    def threads(self) -> tuple[int, ...]:
        return tuple(sorted(self.ranges))


T = TypeVar("T")

_LOG_COLUMNS = tuple(f.name for f in dataclasses.fields(LogEntry))
_BATCH_COLUMNS = tuple(f.name for f in dataclasses.fields(BatchEntry))
_SOURCE_COLUMNS = tuple(f.name for f in dataclasses.fields(SourceEntry))

# Text compares byte by byte on both backends (SQLite's BINARY; PostgreSQL's "C" collation rather
# than the database's locale), so rows come back in the same order whichever holds the catalog.
_TEXT = sa.Text().with_variant(sa.Text(collation="C"), "postgresql")
_INT = sa.BigInteger  # SCNs, DBIDs and resetlogs ids do not fit PostgreSQL's 32-bit INTEGER

METADATA = sa.MetaData()

LOGS = sa.Table(
    "logs", METADATA,
    sa.Column("location", _TEXT, primary_key=True),
    sa.Column("size", _INT, nullable=False),
    sa.Column("etag", _TEXT, nullable=False),
    sa.Column("prev_size", _INT),
    sa.Column("first_seen", _TEXT, nullable=False),
    sa.Column("last_seen", _TEXT, nullable=False),
    *(sa.Column(name, _INT) for name in (
        "thread", "sequence", "resetlogs_id", "resetlogs_scn", "prev_resetlogs_id", "dbid",
    )),
    sa.Column("db_name", _TEXT),  # added after the first catalogs: see _add_missing_columns
    sa.Column("first_scn", _INT),
    sa.Column("next_scn", _INT),
    sa.Column("first_time", _TEXT),
    sa.Column("next_time", _TEXT),
    sa.Column("block_size", _INT),
    sa.Column("nab", _INT),
    sa.Column("misc_flags", _INT),
    sa.Column("status", _TEXT, nullable=False),
    sa.Column("ready", sa.Integer, nullable=False),  # 0 or 1
    sa.Column("reason", _TEXT),
    sa.Column("note", _TEXT),
    sa.Column("batch_id", _TEXT),
    sa.Index("logs_identity", "resetlogs_id", "thread", "sequence"),
)  # fmt: skip

BATCHES = sa.Table(
    "batches", METADATA,
    sa.Column("batch_id", _TEXT, primary_key=True),
    sa.Column("resetlogs_id", _INT, nullable=False),
    sa.Column("ranges", _TEXT, nullable=False),  # JSON: {"thread": [first, last], ...}
    sa.Column("batch_dir", _TEXT, nullable=False),
    sa.Column("kind", _TEXT, nullable=False),
    sa.Column("status", _TEXT, nullable=False),
    sa.Column("previous_batch", _TEXT),
    sa.Column("carried_in", _TEXT),
    sa.Column("first_scn", _INT),
    sa.Column("watermark_scn", _INT),
    sa.Column("message", _TEXT),
    sa.Column("created", _TEXT, nullable=False),
    sa.Column("updated", _TEXT, nullable=False),
    # 1, 2, 3, ... in the order rows were first inserted (max + 1, under the writer lock): batches
    # are listed by (created, insert_order), the chain the planner follows; writing a row again
    # keeps its number (added after the first catalogs: see _add_missing_columns)
    sa.Column("insert_order", _INT, nullable=False),
    # the last run's start and end (microseconds): durations and MB/s in `python -m redo_lib status`
    # (added after the first catalogs: see _add_missing_columns)
    sa.Column("started", _TEXT),
    sa.Column("finished", _TEXT),
)  # fmt: skip

BATCH_LOGS = sa.Table(
    "batch_logs", METADATA,
    sa.Column("batch_id", _TEXT, primary_key=True),
    sa.Column("location", _TEXT, primary_key=True),
    sa.Column("thread", _INT, nullable=False),
    sa.Column("sequence", _INT, nullable=False),
)  # fmt: skip

SOURCE = sa.Table(
    "source", METADATA,
    sa.Column("dbid", _INT, primary_key=True, autoincrement=False),
    sa.Column("db_name", _TEXT),
    sa.Column("learned_from", _TEXT, nullable=False),
    sa.Column("root_resetlogs_id", _INT),
    sa.Column("root_resetlogs_scn", _INT),
    sa.Column("learned", _TEXT, nullable=False),
)  # fmt: skip

# The key of the PostgreSQL advisory lock every catalog transaction takes (the bytes "redotrai" as a
# bigint): what BEGIN IMMEDIATE is on SQLite. Advisory locks are per database, so catalogs in
# different databases of one server never wait for each other.
ADVISORY_LOCK_KEY = int.from_bytes(b"redotrai", "big")

_SQLITE_TIMEOUT_S = 30  # how long a SQLite connection waits for another writer's lock
_PG_CONNECT_TIMEOUT_S = 10  # unless the URL says otherwise (?connect_timeout=...)


def utc_now() -> str:
    """The catalog's timestamp format: ISO 8601, UTC, seconds."""
    return dt.datetime.now(dt.UTC).isoformat(timespec="seconds")


def utc_now_precise() -> str:
    """ISO 8601, UTC, microseconds: a batch run's start and end, so short runs get a duration."""
    return dt.datetime.now(dt.UTC).isoformat(timespec="microseconds")


class LogCatalog:
    """The catalog database: a SQLite file path, ``sqlite:///path``, ``":memory:"``, or a
    ``postgresql+psycopg://user:password@host:port/database`` URL (``postgresql://`` means the same).
    Each writing method is atomic; wrap several in :meth:`transaction` to make them one.

    ``path`` names the catalog in errors: the SQLite file, or the URL without its password."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        url, self.path = _catalog_url(path)
        self._immediate = False  # the next SQLite BEGIN is BEGIN IMMEDIATE (see transaction())
        try:
            if url.get_backend_name() == "sqlite" and url.database not in (None, "", ":memory:"):
                Path(url.database).parent.mkdir(parents=True, exist_ok=True)
            self._engine = _engine(url, self)
        except (OSError, sa.exc.SQLAlchemyError, ImportError) as exc:
            raise StorageError(
                f"cannot open the log catalog: {exc}", position=Position(file=self.path)
            ) from exc
        self._pg = self._engine.dialect.name == "postgresql"
        self._insert = postgresql.insert if self._pg else sqlite.insert
        try:
            self._conn = self._engine.connect()
        except sa.exc.SQLAlchemyError as exc:
            self._engine.dispose()
            raise StorageError(self._unreachable(url, exc), position=Position(file=self.path)) from exc
        try:
            with self.transaction():  # one process at a time creates or upgrades the tables
                METADATA.create_all(self._conn)
                _add_missing_columns(self._conn)
        except (StorageError, sa.exc.SQLAlchemyError) as exc:
            self.close()
            cause = exc.__cause__ if isinstance(exc, StorageError) else exc
            raise StorageError(
                f"cannot open the log catalog: {_reason(cause)}", position=Position(file=self.path)
            ) from cause

    def close(self) -> None:
        with contextlib.suppress(sa.exc.SQLAlchemyError):
            self._conn.close()
        self._engine.dispose()

    def __enter__(self) -> LogCatalog:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @contextlib.contextmanager
    def transaction(self) -> Iterator[None]:
        """One writer at a time, so two planners never interleave: SQLite ``BEGIN IMMEDIATE`` …
        ``COMMIT``; PostgreSQL ``BEGIN``, ``pg_advisory_xact_lock(ADVISORY_LOCK_KEY)`` … ``COMMIT``
        (the lock is released with the transaction). Re-entrant: inside an open transaction it only
        joins it."""
        if self._conn.in_transaction():
            yield
            return
        self._immediate = True
        try:
            tx = self._guarded("BEGIN", self._conn.begin)
        finally:
            self._immediate = False
        try:
            if self._pg:
                self._run(sa.select(sa.func.pg_advisory_xact_lock(ADVISORY_LOCK_KEY)))
            yield
        except BaseException:
            # the first error is the one to report; a connection that cannot roll back is closed
            with contextlib.suppress(sa.exc.SQLAlchemyError):
                tx.rollback()
            raise
        self._guarded("COMMIT", tx.commit)

    def _guarded(self, what: str, call: Callable[[], T]) -> T:
        """``call()``, with any SQLAlchemy/DBAPI error turned into a ``StorageError``."""
        try:
            return call()
        except sa.exc.SQLAlchemyError as exc:
            raise StorageError(
                f"log catalog: {_reason(exc)} in {what}", position=Position(file=self.path)
            ) from exc

    def _run(self, statement: sa.Executable, args: Sequence[Mapping[str, Any]] | None = None) -> list[Any]:
        """Execute one statement (in its own transaction unless one is open); its rows, if any."""
        what = type(statement).__name__.upper()

        def execute() -> list[Any]:
            result = self._conn.execute(statement, args) if args else self._conn.execute(statement)
            return list(result.mappings()) if result.returns_rows else []

        if self._conn.in_transaction():
            return self._guarded(what, execute)

        def single() -> list[Any]:
            with self._conn.begin():
                return execute()

        return self._guarded(what, single)

    def _unreachable(self, url: sa.URL, exc: sa.exc.SQLAlchemyError) -> str:
        reason = _reason(exc)
        if not self._pg:
            return f"cannot open the log catalog: {reason}"
        return (
            f"cannot connect to the log catalog's PostgreSQL server at {url.host or 'localhost'}:"
            f"{url.port or 5432} (database {url.database!r}, user {url.username!r}): {reason}. "
            "Check that the server is running and listens on that host and port (listen_addresses, "
            "port, firewall), that the user and database exist and pg_hba.conf lets this machine in, "
            "and the URL in REDOTRAIL_CATALOG_DB."
        )

    # ---- logs -----------------------------------------------------------------------------------

    def put_log(self, entry: LogEntry) -> None:
        """Insert or replace the row of ``entry.location``."""
        insert = self._insert(LOGS).values({c: _to_sql(getattr(entry, c)) for c in _LOG_COLUMNS})
        self._run(
            insert.on_conflict_do_update(
                index_elements=[LOGS.c.location],
                set_={c: insert.excluded[c] for c in _LOG_COLUMNS if c != "location"},
            )
        )

    def get_log(self, location: str) -> LogEntry | None:
        rows = self._run(sa.select(LOGS).where(LOGS.c.location == location))
        return _log(rows[0]) if rows else None

    def logs(self, *, status: LogStatus | None = None, resetlogs_id: int | None = None) -> list[LogEntry]:
        """Logs ordered by (resetlogs id, thread, sequence, location); unparsed ones first."""
        order = [LOGS.c[c].asc().nulls_first() for c in ("resetlogs_id", "thread", "sequence")]
        query = sa.select(LOGS).where(*_filters(LOGS, status=status, resetlogs_id=resetlogs_id))
        return [_log(r) for r in self._run(query.order_by(*order, LOGS.c.location))]

    # ---- the source database ------------------------------------------------------------------

    def source(self) -> SourceEntry | None:
        """The source database learned so far, or None."""
        rows = self._run(sa.select(SOURCE))
        return SourceEntry(**rows[0]) if rows else None

    def put_source(self, source: SourceEntry) -> None:
        """Store the source database (the one row of the ``source`` table)."""
        with self.transaction():
            self._run(sa.delete(SOURCE))
            self._run(sa.insert(SOURCE).values({c: getattr(source, c) for c in _SOURCE_COLUMNS}))

    # ---- batches --------------------------------------------------------------------------------

    def put_batch(self, batch: BatchEntry, logs: Sequence[LogEntry] = ()) -> BatchEntry:
        """Insert or replace a batch and its log list. Logs of a scheduled batch become ``batched``."""
        now = utc_now()
        batch = dataclasses.replace(batch, created=batch.created or now, updated=now)
        values: dict[str, Any] = {c: _to_sql(getattr(batch, c)) for c in _BATCH_COLUMNS}
        next_order = sa.select(sa.func.coalesce(sa.func.max(BATCHES.c.insert_order), 0) + 1)
        insert = self._insert(BATCHES).values({**values, "insert_order": next_order.scalar_subquery()})
        # an upsert that leaves insert_order alone: a re-planned batch stays where it was in the
        # chain, even behind batches planned after it in the same second
        upsert = insert.on_conflict_do_update(
            index_elements=[BATCHES.c.batch_id],
            set_={c: insert.excluded[c] for c in _BATCH_COLUMNS if c != "batch_id"},
        )
        with self.transaction():
            self._run(upsert)
            if logs:
                self._run(sa.delete(BATCH_LOGS).where(BATCH_LOGS.c.batch_id == batch.batch_id))
                rows = [
                    {
                        "batch_id": batch.batch_id,
                        "location": e.location,
                        "thread": e.thread,
                        "sequence": e.sequence,
                    }
                    for e in logs
                ]
                self._run(sa.insert(BATCH_LOGS), rows)
            if logs and batch.kind is BatchKind.SCHEDULED:
                self._run(
                    sa.update(LOGS)
                    .where(LOGS.c.location.in_([e.location for e in logs]))
                    .values(status=LogStatus.BATCHED.value, batch_id=batch.batch_id, ready=1)
                )
        return batch

    def get_batch(self, batch_id: str) -> BatchEntry | None:
        rows = self._run(_select_batches().where(BATCHES.c.batch_id == batch_id))
        return _batch(rows[0]) if rows else None

    def batches(
        self,
        *,
        status: BatchStatus | None = None,
        kind: BatchKind | None = None,
        resetlogs_id: int | None = None,
    ) -> list[BatchEntry]:
        """Batches in creation order."""
        query = _select_batches().where(
            *_filters(BATCHES, status=status, kind=kind, resetlogs_id=resetlogs_id)
        )
        return [_batch(r) for r in self._run(query.order_by(BATCHES.c.created, BATCHES.c.insert_order))]

    def batch_logs(self, batch_id: str) -> list[LogEntry]:
        """The logs of a batch, ordered by (thread, sequence)."""
        query = (
            sa.select(LOGS)
            .join(BATCH_LOGS, BATCH_LOGS.c.location == LOGS.c.location)
            .where(BATCH_LOGS.c.batch_id == batch_id)
            .order_by(BATCH_LOGS.c.thread, BATCH_LOGS.c.sequence)
        )
        return [_log(r) for r in self._run(query)]

    def set_batch_status(self, batch_id: str, status: BatchStatus, message: str | None = None) -> BatchEntry:
        """Move a batch to ``status``; publishing a scheduled batch marks its logs ``published``.

        ``running`` records when the run started (and clears its end); ``published``, ``validated``
        and ``failed`` when it ended."""
        with self.transaction():
            batch = self.get_batch(batch_id)
            if batch is None:
                raise StorageError(
                    f"no batch {batch_id!r} in the log catalog", position=Position(file=self.path)
                )
            self._run(
                sa.update(BATCHES)
                .where(BATCHES.c.batch_id == batch_id)
                .values(status=status.value, message=message, updated=utc_now(), **_run_times(status))
            )
            if status is BatchStatus.PUBLISHED and batch.kind is BatchKind.SCHEDULED:
                of_batch = sa.select(BATCH_LOGS.c.location).where(BATCH_LOGS.c.batch_id == batch_id)
                self._run(
                    sa.update(LOGS)
                    .where(LOGS.c.location.in_(of_batch))
                    .values(status=LogStatus.PUBLISHED.value)
                )
        updated = self.get_batch(batch_id)
        assert updated is not None
        return updated


def _run_times(status: BatchStatus) -> dict[str, str | None]:
    """The ``started`` / ``finished`` columns a status change sets."""
    if status is BatchStatus.RUNNING:
        return {"started": utc_now_precise(), "finished": None}
    if status in (BatchStatus.PUBLISHED, BatchStatus.VALIDATED, BatchStatus.FAILED):
        return {"finished": utc_now_precise()}
    return {}


def _catalog_url(path: str | os.PathLike[str]) -> tuple[sa.URL, str]:
    """The SQLAlchemy URL of a catalog path or URL, and how errors name it (no password)."""
    text = os.fspath(path)
    if "://" not in text:  # a plain file path (or ":memory:")
        return sa.URL.create("sqlite", database=text), text
    try:
        url = sa.make_url(text)
    except sa.exc.ArgumentError as exc:
        raise StorageError(f"not a catalog path or URL: {exc}", position=Position(file=text)) from exc
    if url.drivername == "postgresql":
        url = url.set(drivername="postgresql+psycopg")  # psycopg 3 is the driver installed
    if url.get_backend_name() == "sqlite":
        return url, url.database or ":memory:"
    shown = sa.URL.create(  # URL.set(password=None) would keep the password
        url.drivername,
        username=url.username,
        host=url.host,
        port=url.port,
        database=url.database,
        query=url.query,
    )
    return url, shown.render_as_string(hide_password=False)


def _engine(url: sa.URL, catalog: LogCatalog) -> sa.Engine:
    """An engine for one connection held while the catalog is open (no pool)."""
    backend = url.get_backend_name()
    if backend == "sqlite":
        engine = sa.create_engine(url, poolclass=sa.NullPool, connect_args={"timeout": _SQLITE_TIMEOUT_S})

        # SQLAlchemy issues BEGIN itself (sqlite3 would not before a SELECT or DDL), so that
        # transaction() can make it BEGIN IMMEDIATE: the write lock from the start (SQLite docs,
        # "Transactions with SQLite and the sqlite3 driver")
        @sa.event.listens_for(engine, "connect")
        def _no_driver_begin(dbapi_connection: Any, _record: Any) -> None:
            dbapi_connection.isolation_level = None

        @sa.event.listens_for(engine, "begin")
        def _begin(conn: sa.Connection) -> None:
            conn.exec_driver_sql("BEGIN IMMEDIATE" if catalog._immediate else "BEGIN")

        return engine
    if backend == "postgresql":
        args = {} if "connect_timeout" in url.query else {"connect_timeout": _PG_CONNECT_TIMEOUT_S}
        # READ COMMITTED whatever the server's default: each statement after the advisory lock sees
        # what the previous lock holder committed
        return sa.create_engine(
            url, poolclass=sa.NullPool, isolation_level="READ COMMITTED", connect_args=args
        )
    raise sa.exc.ArgumentError(f"the log catalog is SQLite or PostgreSQL, not {backend!r}")


def _add_missing_columns(conn: sa.Connection) -> None:
    """Columns added after a catalog was created are added to it: ``logs.db_name``,
    ``batches.started`` / ``finished``, and ``batches.insert_order`` numbered in the order the rows were inserted (SQLite's rowid)."""
    columns = {
        table: {c["name"] for c in sa.inspect(conn).get_columns(table)} for table in ("logs", "batches")
    }
    if "db_name" not in columns["logs"]:
        conn.execute(sa.text("ALTER TABLE logs ADD COLUMN db_name TEXT"))
    for name in ("started", "finished"):
        if name not in columns["batches"]:
            conn.execute(sa.text(f"ALTER TABLE batches ADD COLUMN {name} TEXT"))
    if "insert_order" not in columns["batches"]:
        conn.execute(sa.text("ALTER TABLE batches ADD COLUMN insert_order BIGINT"))
        order = "rowid" if conn.dialect.name == "sqlite" else "created, batch_id"
        ids = conn.execute(sa.text(f"SELECT batch_id FROM batches ORDER BY {order}")).scalars().all()
        if ids:
            number = sa.update(BATCHES).where(BATCHES.c.batch_id == sa.bindparam("id"))
            conn.execute(
                number.values(insert_order=sa.bindparam("n")),
                [{"id": b, "n": n} for n, b in enumerate(ids, 1)],
            )


def _reason(exc: BaseException | None) -> str:
    """An error's text on one line: the driver's message for a DBAPI error (not SQLAlchemy's
    rendering, which adds the statement and a link)."""
    cause = exc.orig if isinstance(exc, sa.exc.DBAPIError) else exc
    return " ".join(str(cause).split())


def _select_batches() -> sa.Select[Any]:
    return sa.select(*(BATCHES.c[c] for c in _BATCH_COLUMNS))


def _filters(table: sa.Table, **conditions: Any) -> list[sa.ColumnElement[bool]]:
    return [table.c[k] == _to_sql(v) for k, v in conditions.items() if v is not None]


def _to_sql(value: Any) -> Any:
    if isinstance(value, enum.Enum):
        return value.value
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, Mapping):
        return json.dumps({str(k): list(v) for k, v in sorted(value.items())})
    return value


def _log(row: Mapping[str, Any]) -> LogEntry:
    values = dict(row)
    values["status"] = LogStatus(values["status"])
    values["ready"] = bool(values["ready"])
    return LogEntry(**values)


def _batch(row: Mapping[str, Any]) -> BatchEntry:
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
    client = client or s3_client()
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
        raise StorageError(s3_failure("listing failed", exc, client), position=Position(file=url)) from exc


def read_object_head(location: str, size: int, limit: int, client: Any = None) -> bytes:
    """The first ``min(size, limit)`` bytes of an object, with exactly one ranged GET."""
    if size <= 0:
        return b""
    bucket, key = split_prefix(location)
    client = client or s3_client()
    end = min(size, limit) - 1
    try:
        data: bytes = client.get_object(Bucket=bucket, Key=key, Range=f"bytes=0-{end}")["Body"].read()
    except Exception as exc:
        raise StorageError(
            s3_failure(f"ranged GET bytes=0-{end} failed", exc, client), position=Position(file=location)
        ) from exc
    return data


def write_text(location: str, text: str, client: Any = None) -> None:
    """Write a small text object: ``s3://`` with one PUT, a local path atomically (temp + rename)."""
    try:
        if location.startswith("s3://"):
            bucket, key = split_prefix(location)
            client = client or s3_client()
            client.put_object(Bucket=bucket, Key=key, Body=text.encode())
            return
        path = Path(location)
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f".{path.name}.tmp")
        tmp.write_text(text, encoding="utf-8")
        os.replace(tmp, path)
    except StorageError:
        raise
    except Exception as exc:
        raise StorageError(s3_failure("write failed", exc, client), position=Position(file=location)) from exc


def read_text(location: str, client: Any = None) -> str:
    """The whole text of a small object: a local file, or an ``s3://`` object with one GET."""
    try:
        if location.startswith("s3://"):
            bucket, key = split_prefix(location)
            client = client or s3_client()
            body = client.get_object(Bucket=bucket, Key=key)["Body"]
            return bytes(body.read()).decode("utf-8")
        return Path(location).read_text(encoding="utf-8")
    except Exception as exc:
        raise StorageError(s3_failure("read failed", exc, client), position=Position(file=location)) from exc


def object_exists(location: str, client: Any = None) -> bool:
    """Whether a local file or an ``s3://`` object exists (a HEAD request)."""
    if not location.startswith("s3://"):
        return Path(location).exists()
    bucket, key = split_prefix(location)
    client = client or s3_client()
    try:
        client.head_object(Bucket=bucket, Key=key)
    except Exception as exc:
        code = str(getattr(exc, "response", {}).get("Error", {}).get("Code", ""))
        if code in ("404", "NoSuchKey", "NotFound"):
            return False
        raise StorageError(s3_failure("HEAD failed", exc, client), position=Position(file=location)) from exc
    return True


def remove_object(location: str, client: Any = None) -> None:
    """Delete a local file or an ``s3://`` object; nothing happens when it does not exist."""
    try:
        if location.startswith("s3://"):
            bucket, key = split_prefix(location)
            client = client or s3_client()
            client.delete_object(Bucket=bucket, Key=key)
        else:
            Path(location).unlink(missing_ok=True)
    except Exception as exc:
        raise StorageError(
            s3_failure("delete failed", exc, client), position=Position(file=location)
        ) from exc


def join_location(base: str, *parts: str) -> str:
    """``base/part/...`` for a local path or an ``s3://`` prefix."""
    if base.startswith("s3://"):
        return "/".join([base.rstrip("/"), *parts])
    return str(Path(base).joinpath(*parts))
