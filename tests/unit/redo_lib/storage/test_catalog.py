"""The log catalog's rows in SQLite and in PostgreSQL (a real throwaway server, tests/fixtures/postgres.py),
and the local side of its batch-folder I/O (S3: tests/integration)."""

from __future__ import annotations

import socket
import sqlite3
import threading
import time
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest
import sqlalchemy as sa

from redo_lib.errors import StorageError
from redo_lib.storage.catalog import (
    BatchEntry,
    BatchKind,
    BatchStatus,
    LogCatalog,
    LogEntry,
    LogStatus,
    SourceEntry,
    join_location,
    object_exists,
    remove_object,
    split_prefix,
    write_text,
)

pytest_plugins = ["tests.fixtures.postgres"]


def _log(seq: int, *, thread: int = 1, rid: int = 7, **kw: object) -> LogEntry:
    values: dict[str, object] = {
        "location": f"s3://arch/{thread}_{seq}_{rid}.arc",
        "size": 1024,
        "etag": f"e{seq}",
        "first_seen": "2026-01-01T00:00:00+00:00",
        "last_seen": "2026-01-01T00:00:00+00:00",
        "thread": thread,
        "sequence": seq,
        "resetlogs_id": rid,
        "first_scn": seq * 100,
        "next_scn": seq * 100 + 100,
        "ready": True,
    }
    values.update(kw)
    return LogEntry(**values)  # type: ignore[arg-type]


def _batch(batch_id: str, ranges: dict[int, tuple[int, int]], **kw: object) -> BatchEntry:
    return BatchEntry(
        batch_id=batch_id, resetlogs_id=7, ranges=ranges, batch_dir=f"/w/batches/{batch_id}", **kw
    )  # type: ignore[arg-type]


@pytest.fixture(params=["sqlite", "postgresql"])
def location(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """Where a catalog lives: a SQLite file (the default), or a fresh database on a PostgreSQL server."""
    if request.param == "sqlite":
        return str(tmp_path / "catalog" / "logs.sqlite")
    return str(request.getfixturevalue("postgres_database"))


@pytest.fixture
def catalog(location: str) -> Iterator[LogCatalog]:
    with LogCatalog(location) as opened:
        yield opened


def test_log_rows_round_trip_with_every_field(catalog: LogCatalog) -> None:
    entry = _log(
        15, prev_size=512, resetlogs_scn=2062830, prev_resetlogs_id=6, dbid=1497016494, db_name="FREE",
        first_time="t0", next_time="t1", block_size=512, nab=2, misc_flags=0x10800011, reason=None,
        note="name says 99",
    )  # fmt: skip
    catalog.put_log(entry)
    assert catalog.get_log(entry.location) == entry
    assert catalog.get_log("s3://arch/none.arc") is None


def test_logs_are_listed_in_thread_and_sequence_order_and_filtered(catalog: LogCatalog) -> None:
    for entry in (_log(3, thread=2), _log(2), _log(1), _log(9, rid=8), _log(4, status=LogStatus.REJECTED)):
        catalog.put_log(entry)
    assert [(e.resetlogs_id, e.thread, e.sequence) for e in catalog.logs()] == [
        (7, 1, 1), (7, 1, 2), (7, 1, 4), (7, 2, 3), (8, 1, 9),
    ]  # fmt: skip
    assert [e.sequence for e in catalog.logs(status=LogStatus.REJECTED)] == [4]
    assert [e.sequence for e in catalog.logs(resetlogs_id=8)] == [9]


def test_logs_without_a_header_come_first_and_locations_sort_byte_by_byte(catalog: LogCatalog) -> None:
    """The same order on both backends: NULLs first (PostgreSQL puts them last unless told), and
    locations compared as bytes ("B" < "a"), not by the PostgreSQL database's locale."""
    unparsed = [
        LogEntry(location=f"s3://arch/{name}.arc", size=1, first_seen="t", last_seen="t")
        for name in ("a", "B")
    ]
    for entry in (_log(1), *unparsed):
        catalog.put_log(entry)
    assert [e.location for e in catalog.logs()] == ["s3://arch/B.arc", "s3://arch/a.arc", _log(1).location]


def test_a_reopened_catalog_keeps_its_rows(location: str) -> None:
    with LogCatalog(location) as first:
        first.put_log(_log(1))
        first.put_batch(_batch("b-1", {1: (1, 1)}), [_log(1)])
    again_at = location if "://" in location else f"sqlite:///{location}"
    with LogCatalog(again_at) as again:
        assert again.get_log(_log(1).location) is not None
        assert again.get_batch("b-1") is not None
        assert [e.batch_id for e in again.batch_logs("b-1")] == ["b-1"]


def test_the_source_database_is_one_row_that_survives_a_reopen(location: str) -> None:
    configured = SourceEntry(dbid=1497016494, learned_from="REDOTRAIL_DBID", learned="t0")
    learned = SourceEntry(
        dbid=1497016494, db_name="FREE", learned_from="REDOTRAIL_DBID", root_resetlogs_id=1224959854,
        root_resetlogs_scn=2061806, learned="t0",
    )  # fmt: skip
    with LogCatalog(location) as first:
        assert first.source() is None
        first.put_source(configured)
        assert first.source() == configured and configured.describe() == "DBID 1497016494"
        first.put_source(learned)
    with LogCatalog(location) as again:
        assert again.source() == learned and learned.describe() == "DBID 1497016494 (FREE)"


def test_a_catalog_file_from_before_db_name_gains_the_column(tmp_path: Path) -> None:
    path = tmp_path / "old.sqlite"
    with sqlite3.connect(path) as db:
        db.execute(
            "CREATE TABLE logs (location TEXT PRIMARY KEY, size INTEGER NOT NULL, etag TEXT NOT NULL, "
            "prev_size INTEGER, first_seen TEXT NOT NULL, last_seen TEXT NOT NULL, thread INTEGER, "
            "sequence INTEGER, resetlogs_id INTEGER, resetlogs_scn INTEGER, prev_resetlogs_id INTEGER, "
            "dbid INTEGER, first_scn INTEGER, next_scn INTEGER, first_time TEXT, next_time TEXT, "
            "block_size INTEGER, nab INTEGER, misc_flags INTEGER, status TEXT NOT NULL, ready INTEGER NOT NULL, "
            "reason TEXT, note TEXT, batch_id TEXT)"
        )
        db.execute(
            "INSERT INTO logs (location, size, etag, first_seen, last_seen, status, ready) "
            "VALUES ('s3://arch/old.arc', 1, 'e', 't', 't', 'discovered', 0)"
        )
    db.close()
    with LogCatalog(path) as catalog:
        assert catalog.get_log("s3://arch/old.arc").db_name is None  # type: ignore[union-attr]
        catalog.put_log(_log(1, dbid=7, db_name="ORCL"))
        assert catalog.get_log(_log(1).location).db_name == "ORCL"  # type: ignore[union-attr]


def test_a_catalog_file_from_before_insert_order_keeps_its_batch_chain(tmp_path: Path) -> None:
    """Batches used to be listed by (created, rowid); the column that replaces the rowid is added
    and numbered in rowid order, so the chain stays as it was and new batches go after it."""
    path = tmp_path / "old.sqlite"
    with LogCatalog(path):
        pass  # today's tables; then batches goes back to its old shape
    with sqlite3.connect(path) as db:
        db.execute("DROP TABLE batches")
        db.execute(
            "CREATE TABLE batches (batch_id TEXT PRIMARY KEY, resetlogs_id INTEGER NOT NULL, ranges TEXT NOT NULL, "
            "batch_dir TEXT NOT NULL, kind TEXT NOT NULL, status TEXT NOT NULL, previous_batch TEXT, "
            "carried_in TEXT, first_scn INTEGER, watermark_scn INTEGER, message TEXT, "
            "created TEXT NOT NULL, updated TEXT NOT NULL)"
        )
        for batch_id in ("b-9", "b-1"):  # the same second: only the rowid tells their order
            db.execute(
                "INSERT INTO batches VALUES (?, 7, '{}', '/w', 'scheduled', 'planned', NULL, NULL, NULL, NULL, "
                "NULL, '2026-01-01T00:00:00+00:00', '2026-01-01T00:00:00+00:00')",
                (batch_id,),
            )
    db.close()
    with LogCatalog(path) as catalog:
        catalog.put_batch(_batch("b-0", {1: (1, 1)}, created="2026-01-01T00:00:00+00:00"))
        assert [b.batch_id for b in catalog.batches()] == ["b-9", "b-1", "b-0"]


def test_a_scheduled_batch_takes_its_logs_and_publishing_marks_them(catalog: LogCatalog) -> None:
    logs = [_log(1), _log(2)]
    for entry in logs:
        catalog.put_log(entry)
    batch = catalog.put_batch(_batch("b-000001-000002", {1: (1, 2)}), logs)
    assert batch.created and batch.status is BatchStatus.PLANNED
    assert [(e.status, e.batch_id) for e in catalog.logs()] == [(LogStatus.BATCHED, "b-000001-000002")] * 2
    assert [e.sequence for e in catalog.batch_logs("b-000001-000002")] == [1, 2]
    catalog.set_batch_status("b-000001-000002", BatchStatus.PUBLISHED)
    assert {e.status for e in catalog.logs()} == {LogStatus.PUBLISHED}


def test_a_backfill_batch_leaves_the_log_status_alone(catalog: LogCatalog) -> None:
    logs = [_log(1, status=LogStatus.PUBLISHED, batch_id="b-old")]
    catalog.put_log(logs[0])
    catalog.put_batch(_batch("b-bf", {1: (1, 1)}, kind=BatchKind.BACKFILL), logs)
    catalog.set_batch_status("b-bf", BatchStatus.PUBLISHED)
    assert [(e.status, e.batch_id) for e in catalog.logs()] == [(LogStatus.PUBLISHED, "b-old")]
    assert [e.sequence for e in catalog.batch_logs("b-bf")] == [1]


def test_batch_rows_round_trip_with_ranges_per_thread(catalog: LogCatalog) -> None:
    batch = _batch(
        "b-t1.000001-000002_t2.000005-000005", {2: (5, 5), 1: (1, 2)}, previous_batch="b-0",
        carried_in="/w/batches/b-0/open", first_scn=100, watermark_scn=300, message="m",
    )  # fmt: skip
    stored = catalog.put_batch(batch)
    got = catalog.get_batch(batch.batch_id)
    assert got == stored and got.ranges == {1: (1, 2), 2: (5, 5)} and got.threads == (1, 2)


def test_batches_are_listed_in_creation_order_and_filtered(catalog: LogCatalog) -> None:
    for i, kind in enumerate((BatchKind.SCHEDULED, BatchKind.BACKFILL, BatchKind.SCHEDULED)):
        catalog.put_batch(_batch(f"b-{i}", {1: (i, i)}, kind=kind))
    assert [b.batch_id for b in catalog.batches()] == ["b-0", "b-1", "b-2"]
    assert [b.batch_id for b in catalog.batches(kind=BatchKind.SCHEDULED)] == ["b-0", "b-2"]
    catalog.set_batch_status("b-2", BatchStatus.FAILED, "boom")
    assert [(b.batch_id, b.message) for b in catalog.batches(status=BatchStatus.FAILED)] == [("b-2", "boom")]


def test_writing_a_batch_again_keeps_its_place_in_the_chain(catalog: LogCatalog) -> None:
    """A backfill of the same range as a batch writes that batch's row again; it must stay where it
    was in creation order (the chain the planner follows), even within one second: before, the row
    was replaced with a new rowid and the next batch took the open transactions of the wrong one."""
    first = catalog.put_batch(_batch("b-1", {1: (1, 1)}))
    catalog.put_batch(_batch("b-2", {1: (2, 2)}))
    again = catalog.put_batch(replace(first, status=BatchStatus.PLANNED, message="again"))
    assert [b.batch_id for b in catalog.batches()] == ["b-1", "b-2"]
    assert (again.created, catalog.get_batch("b-1").message) == (first.created, "again")  # type: ignore[union-attr]


def test_status_of_an_unknown_batch_is_a_storage_error(catalog: LogCatalog) -> None:
    with pytest.raises(StorageError, match="no batch 'b-x'"):
        catalog.set_batch_status("b-x", BatchStatus.RUNNING)


def test_a_failed_transaction_leaves_nothing_behind(catalog: LogCatalog) -> None:
    with pytest.raises(RuntimeError), catalog.transaction():
        catalog.put_log(_log(1))
        with catalog.transaction():  # nested: joins the outer one
            catalog.put_log(_log(2))
        raise RuntimeError("planner died")
    assert catalog.logs() == []


def test_a_transaction_excludes_another_connections_transaction(location: str) -> None:
    """What keeps two planners apart: SQLite's BEGIN IMMEDIATE, PostgreSQL's advisory lock."""
    entered = threading.Event()

    def second() -> None:
        with LogCatalog(location) as other, other.transaction():
            entered.set()

    with LogCatalog(location) as first:
        with first.transaction():
            thread = threading.Thread(target=second)
            thread.start()
            time.sleep(0.5)
            assert not entered.is_set()  # waits for the first transaction
        thread.join(timeout=30)
    assert entered.is_set()


def test_an_unopenable_catalog_is_a_storage_error(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("x")
    with pytest.raises(StorageError, match="cannot open the log catalog"):
        LogCatalog(tmp_path / "file" / "logs.sqlite")


def test_a_corrupt_catalog_file_is_a_storage_error(tmp_path: Path) -> None:
    path = tmp_path / "logs.sqlite"
    path.write_bytes(b"not a database" * 100)
    with pytest.raises(StorageError, match="cannot open the log catalog: file is not a database") as info:
        LogCatalog(path)
    assert info.value.position.file == str(path)
    assert isinstance(info.value.__cause__, sa.exc.DatabaseError)
    assert isinstance(info.value.__cause__.orig, sqlite3.DatabaseError)


def test_an_unreachable_postgres_server_says_where_and_what_to_check() -> None:
    with socket.socket() as probe:  # a port nobody listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    with pytest.raises(StorageError) as info:
        LogCatalog(f"postgresql+psycopg://pipeline:s3cret@127.0.0.1:{port}/catalog")
    message = str(info.value)
    assert f"PostgreSQL server at 127.0.0.1:{port} (database 'catalog', user 'pipeline')" in message
    assert "Connection refused" in message and "REDOTRAIL_CATALOG_DB" in message
    assert "Check that the server is running" in message
    assert info.value.position.file == f"postgresql+psycopg://pipeline@127.0.0.1:{port}/catalog"
    assert "s3cret" not in message


def test_a_sql_error_names_the_catalog_without_its_password(postgres_database: str) -> None:
    url = postgres_database.replace("redotrail@", "redotrail:pw@")  # trust auth: any password does
    with LogCatalog(url) as catalog:
        engine = sa.create_engine(postgres_database)
        with engine.begin() as conn:
            conn.execute(sa.text("DROP TABLE batch_logs"))
        engine.dispose()
        with pytest.raises(StorageError, match=r"log catalog: .*batch_logs.* in SELECT") as info:
            catalog.batch_logs("b-1")
        assert info.value.position.file == postgres_database and "pw" not in str(info.value)


@pytest.mark.parametrize(
    ("url", "message"),
    [
        ("mysql://u@h/db", "the log catalog is SQLite or PostgreSQL, not 'mysql'"),
        ("postgresql+nosuchdriver://u@h/db", "nosuchdriver"),
    ],
    ids=["other-database", "unknown-driver"],
)
def test_a_catalog_url_of_an_unsupported_kind_is_a_storage_error(url: str, message: str) -> None:
    with pytest.raises(StorageError, match=f"cannot open the log catalog: .*{message}"):
        LogCatalog(url)


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        ("s3://redo-archive/archive/", ("redo-archive", "archive/")),
        ("s3://redo-archive", ("redo-archive", "")),
        ("s3://b/a/b/c.arc", ("b", "a/b/c.arc")),
    ],
    ids=["prefix", "bucket-only", "key"],
)
def test_split_prefix(url: str, expected: tuple[str, str]) -> None:
    assert split_prefix(url) == expected


@pytest.mark.parametrize(
    "url", ["/local/path", "s3:///no-bucket", "http://x/y"], ids=["local", "no-bucket", "http"]
)
def test_split_prefix_rejects_non_s3_urls(url: str) -> None:
    with pytest.raises(StorageError, match="not an s3://bucket/prefix URL"):
        split_prefix(url)


@pytest.mark.parametrize(
    ("base", "expected"),
    [("s3://w/work/", "s3://w/work/batches/b-1"), ("/data/work", "/data/work/batches/b-1")],
    ids=["s3", "local"],
)
def test_join_location(base: str, expected: str) -> None:
    assert join_location(base, "batches", "b-1") == expected


def test_local_text_objects_are_written_atomically_checked_and_removed(tmp_path: Path) -> None:
    target = str(tmp_path / "batches" / "b-1" / "manifest.json")
    assert not object_exists(target)
    write_text(target, '{"a": 1}\n')
    write_text(target, '{"a": 2}\n')  # replaces
    assert Path(target).read_text() == '{"a": 2}\n'
    assert object_exists(target)
    assert sorted(p.name for p in Path(target).parent.iterdir()) == ["manifest.json"]  # no temp file left
    remove_object(target)
    remove_object(target)  # already gone: nothing happens
    assert not object_exists(target)


def test_a_failed_local_write_is_a_storage_error(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("x")
    with pytest.raises(StorageError, match="write failed"):
        write_text(str(tmp_path / "file" / "manifest.json"), "{}")
