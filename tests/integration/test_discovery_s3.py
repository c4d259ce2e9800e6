"""Discovery against a real S3 endpoint (moto_server over HTTP): listing, one ranged GET per header,
registration of the two real 23.6 logs (read in place), renamed and truncated uploads, gaps, and
manifests written to an ``s3://`` work folder.

Expected header values are parsed from OLR's dumps of the same files (olr-reference/logdump-seqNN.txt).
"""

from __future__ import annotations

import datetime as dt
import io
import json
import re
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from redo_lib.discovery import Settings, discover, discover_archive, plan_batches, plan_pending
from redo_lib.errors import LogSetError, StorageError
from redo_lib.format.writer import LogFileSpec, LogWriter
from redo_lib.storage.catalog import (
    BatchStatus,
    LogCatalog,
    LogStatus,
    list_archive,
    object_exists,
    read_object_head,
    remove_object,
    write_text,
)
from redo_lib.storage.s3 import s3_client

pytest_plugins = ["tests.fixtures.s3"]

REPO = Path(__file__).resolve().parents[2]
REAL = REPO.parent / "shared" / "realdata" / "rophy-olr-example-free-23"
RID = 1224959854
DBID = 1497016494  # the real logs' database, FREE


def olr_header(seq: int) -> dict[str, int]:
    """thread, sequence, nab, resetlogs id, first and next SCN as OLR's dump of the log prints them."""
    text = (REAL / "olr-reference" / f"logdump-seq{seq}.txt").read_text()

    def grab(pattern: str) -> int:
        match = re.search(pattern, text)
        assert match is not None, pattern
        return int(match.group(1), 0)

    return {
        "thread": grab(r"thread: (\d+) nab"),
        "sequence": grab(r"seq: (0x[0-9a-f]+)"),
        "nab": grab(r"nab: (0x[0-9a-f]+)"),
        "resetlogs_id": grab(r"\n resetlogs count: (0x[0-9a-f]+)"),
        "first_scn": grab(r"Low  scn: (0x[0-9a-f]+)"),
        "next_scn": grab(r"Next scn: (0x[0-9a-f]+)"),
    }


@pytest.fixture(scope="module")
def real_logs() -> dict[int, bytes]:
    if not REAL.is_dir():
        pytest.skip(f"real data not found at {REAL}")
    return {seq: (REAL / "redo" / f"arch1_{seq}_{RID}.dbf").read_bytes() for seq in (15, 16)}


@pytest.fixture
def bucket(s3_endpoint: str) -> str:
    name = f"redo-{uuid.uuid4().hex[:12]}"
    s3_client().create_bucket(Bucket=name)
    return name


@pytest.fixture
def catalog(tmp_path: Path) -> Iterator[LogCatalog]:
    with LogCatalog(tmp_path / "logs.sqlite") as opened:
        yield opened


class CountingClient:
    """A real boto3 client that counts the calls made through it."""

    def __init__(self) -> None:
        self._client = s3_client()
        self.calls: list[tuple[str, dict[str, Any]]] = []

    def __getattr__(self, name: str) -> Any:
        method = getattr(self._client, name)
        if name == "get_paginator":
            return method

        def call(**kwargs: Any) -> Any:
            self.calls.append((name, kwargs))
            return method(**kwargs)

        return call


def put(bucket: str, key: str, data: bytes) -> str:
    s3_client().put_object(Bucket=bucket, Key=key, Body=data)
    return f"s3://{bucket}/{key}"


def synth(sequence: int, first_scn: int) -> bytes:
    out = io.BytesIO()
    spec = LogFileSpec(
        sequence=sequence, resetlogs_id=RID, resetlogs_scn=0x1F75EE, dbid=DBID, db_name="FREE",
        first_scn=first_scn, first_time=dt.datetime(2026, 3, 7, 1, 45),
    )  # fmt: skip  # a log of the same database as the real ones (another DBID would be rejected)
    LogWriter(out, spec).close(next_scn=first_scn + 10, next_time=dt.datetime(2026, 3, 7, 1, 46))
    return out.getvalue()


@pytest.mark.realdata
def test_real_logs_are_registered_from_their_headers_with_one_ranged_get_each(
    bucket: str, catalog: LogCatalog, real_logs: dict[int, bytes]
) -> None:
    urls = {seq: put(bucket, f"archive/1_{seq}_{RID}.arc", data) for seq, data in real_logs.items()}
    put(bucket, "other/1_17_1224959854.arc", real_logs[16])  # outside the prefix
    client = CountingClient()
    report = discover(catalog, f"s3://{bucket}/archive/", client=client)
    gets = [kw for name, kw in client.calls if name == "get_object"]
    assert sorted((kw["Key"], kw["Range"]) for kw in gets) == [
        (f"archive/1_15_{RID}.arc", "bytes=0-8191"),
        (f"archive/1_16_{RID}.arc", "bytes=0-5119"),  # the whole 5120-byte log
    ]
    assert not [name for name, _ in client.calls if name not in ("get_object",)]  # no HEAD per object
    assert (report.listed, sorted(report.ready), report.waiting, report.gaps) == (
        2,
        sorted(urls.values()),
        (),
        (),
    )
    for seq, url in urls.items():
        entry = catalog.get_log(url)
        assert entry is not None
        expected = olr_header(seq)
        got = {k: getattr(entry, k) for k in expected}
        assert got == expected
        assert entry.size == len(real_logs[seq]) == expected["nab"] * 512
        head = s3_client().head_object(Bucket=bucket, Key=url.split("/", 3)[3])
        assert entry.etag == head["ETag"].strip('"')

    again = CountingClient()
    assert discover(catalog, f"s3://{bucket}/archive/", client=again).read == ()
    assert [name for name, _ in again.calls] == []  # unchanged objects are not read again


@pytest.mark.realdata
def test_planning_writes_the_manifest_of_the_real_logs(
    bucket: str, catalog: LogCatalog, real_logs: dict[int, bytes]
) -> None:
    for seq, data in real_logs.items():
        put(bucket, f"archive/1_{seq}_{RID}.arc", data)
    discover(catalog, f"s3://{bucket}/archive/")
    work = f"s3://{bucket}/work"
    (b,) = plan_batches(
        catalog, work_dir=work, dictionary=f"s3://{bucket}/dictionary/dictionary.json"
    ).batches
    body = (
        s3_client().get_object(Bucket=bucket, Key="work/batches/b-000015-000016/manifest.json")["Body"].read()
    )
    manifest = json.loads(body)
    assert manifest["batch_id"] == b.batch_id == "b-000015-000016"
    assert [(e["sequence"], e["first_scn"], e["next_scn"]) for e in manifest["logs"]] == [
        (15, olr_header(15)["first_scn"], olr_header(15)["next_scn"]),
        (16, olr_header(16)["first_scn"], olr_header(16)["next_scn"]),
    ]
    assert manifest["logs"][0]["location"] == f"s3://{bucket}/archive/1_15_{RID}.arc"
    assert manifest["logs"][1]["size"] == len(real_logs[16])
    assert (manifest["previous_batch"], manifest["carried_in"]) == (None, None)


@pytest.mark.realdata
def test_a_renamed_object_is_registered_by_its_header_and_reported(
    bucket: str, catalog: LogCatalog, real_logs: dict[int, bytes], tmp_path: Path
) -> None:
    put(bucket, f"archive/1_15_{RID}.arc", real_logs[15])
    renamed = put(bucket, f"archive/1_99_{RID}.arc", real_logs[16])
    report = discover(catalog, f"s3://{bucket}/archive/")
    entry = catalog.get_log(renamed)
    assert entry is not None and (entry.thread, entry.sequence, entry.ready) == (1, 16, True)
    assert [loc for loc, _ in report.mismatches] == [renamed]
    assert "name says thread 1 sequence 99" in report.mismatches[0][1]
    assert report.gaps == ()  # 15 and 16 by their headers: no gap
    (b,) = plan_batches(catalog, work_dir=str(tmp_path)).batches
    assert b.batch_id == "b-000015-000016"
    assert [e.location for e in catalog.batch_logs(b.batch_id)] == [
        f"s3://{bucket}/archive/1_15_{RID}.arc",
        renamed,
    ]


@pytest.mark.realdata
def test_a_truncated_upload_waits_until_complete_and_stable(
    bucket: str, catalog: LogCatalog, real_logs: dict[int, bytes], tmp_path: Path
) -> None:
    put(bucket, f"archive/1_15_{RID}.arc", real_logs[15])
    partial = put(bucket, f"archive/1_16_{RID}.arc", real_logs[16][:600])
    archive = f"s3://{bucket}/archive/"
    work = str(tmp_path / "work")

    report = discover(catalog, archive)
    assert [loc for loc, _ in report.waiting] == [partial]
    assert "header incomplete" in report.waiting[0][1]
    (first,) = plan_batches(catalog, work_dir=work, max_batches=3).batches
    assert first.batch_id == "b-000015-000015"

    put(bucket, f"archive/1_16_{RID}.arc", real_logs[16])  # the upload completes
    report = discover(catalog, archive)
    assert report.read == (partial,)
    assert "changed since the last listing" in dict(report.waiting)[partial]
    assert plan_batches(catalog, work_dir=work).batches == ()

    report = discover(catalog, archive)  # stable now
    assert (report.ready, report.waiting) == ((partial,), ())
    (second,) = plan_batches(catalog, work_dir=work).batches
    manifest = json.loads((tmp_path / "work/batches/b-000016-000016/manifest.json").read_text())
    assert (second.batch_id, manifest["previous_batch"]) == ("b-000016-000016", "b-000015-000015")
    assert manifest["carried_in"] == str(tmp_path / "work/batches/b-000015-000015/open")


@pytest.mark.realdata
def test_a_gap_stops_planning_and_names_the_missing_sequence(
    bucket: str, real_logs: dict[int, bytes], tmp_path: Path
) -> None:
    put(bucket, f"archive/1_15_{RID}.arc", real_logs[15])
    put(bucket, f"archive/1_17_{RID}.arc", synth(17, olr_header(16)["next_scn"]))  # 16 is missing
    settings = Settings.from_env(
        {"REDOTRAIL_DATA_DIR": str(tmp_path), "REDOTRAIL_ARCHIVE_URL": f"s3://{bucket}/archive/"}
    )
    found = discover_archive(settings)
    assert (
        len(found["gaps"]) == 1 and "thread 1 (resetlogs 1224959854): sequence 16 missing" in found["gaps"][0]
    )
    assert plan_pending(settings) == ["b-000015-000015"]  # planned up to the gap
    with LogCatalog(settings.catalog_db) as catalog:
        catalog.set_batch_status("b-000015-000015", BatchStatus.RUNNING)  # triggered: no longer pending
    with pytest.raises(LogSetError, match="sequence 16 missing before sequence 17"):
        plan_pending(settings)
    with LogCatalog(settings.catalog_db) as catalog:
        assert [b.batch_id for b in catalog.batches()] == ["b-000015-000015"]  # nothing past the gap


@pytest.mark.realdata
def test_logs_of_another_database_are_rejected_and_the_real_ones_planned(
    bucket: str, catalog: LogCatalog, real_logs: dict[int, bytes], tmp_path: Path
) -> None:
    first = put(bucket, f"archive/1_15_{RID}.arc", real_logs[15])
    discover(catalog, f"s3://{bucket}/archive/")  # learns FREE from the real header
    put(bucket, f"archive/1_16_{RID}.arc", real_logs[16])
    out = io.BytesIO()  # another database's log, of an incarnation that sorts before the real one
    spec = LogFileSpec(
        sequence=1, resetlogs_id=77, resetlogs_scn=5, first_scn=100, first_time=dt.datetime(2026, 3, 7)
    )
    LogWriter(out, spec).close(next_scn=200, next_time=dt.datetime(2026, 3, 7, 0, 1))
    foreign = put(bucket, "archive/1_1_77.arc", out.getvalue())
    report = discover(catalog, f"s3://{bucket}/archive/")
    assert report.rejected == (
        (
            foreign,
            f"DBID {0x5EED0001} (SYNTH) is not this pipeline's database DBID {DBID} (FREE), learned from {first}",
        ),
    )
    assert report.gaps == ()
    (b,) = plan_batches(catalog, work_dir=str(tmp_path)).batches
    assert (b.batch_id, b.resetlogs_id) == ("b-000015-000016", RID)


@pytest.mark.realdata
def test_rejected_duplicate_and_gone_objects(
    bucket: str, catalog: LogCatalog, real_logs: dict[int, bytes]
) -> None:
    original = put(bucket, f"archive/1_15_{RID}.arc", real_logs[15])
    copy = put(bucket, f"archive/copy/1_15_{RID}.arc", real_logs[15])
    readme = put(bucket, "archive/README.txt", b"archived redo logs of FREE\n" * 100)
    report = discover(catalog, f"s3://{bucket}/archive/")
    assert [loc for loc, _ in report.rejected] == [readme]
    assert [loc for loc, _ in report.duplicates] == [copy] and original in report.duplicates[0][1]
    s3_client().delete_object(Bucket=bucket, Key=f"archive/1_15_{RID}.arc")
    s3_client().delete_object(Bucket=bucket, Key=f"archive/copy/1_15_{RID}.arc")
    report = discover(catalog, f"s3://{bucket}/archive/")
    assert report.gone == (original,)
    assert catalog.get_log(copy).status is LogStatus.DUPLICATE  # type: ignore[union-attr]


def test_a_name_off_the_pattern_is_registered_by_its_header_without_a_made_up_thread(
    bucket: str, catalog: LogCatalog
) -> None:
    """``z_resetlogs999_1_4.arc`` is no ``<thread>_<sequence>_<resetlogs>`` name: not thread 999
    sequence 1 (a mismatch with its header, reported as such); the header names the log, which is
    registered and planned like any other (issue 37, item 5)."""
    first = put(bucket, f"archive/1_15_{RID}.arc", synth(15, 1000))
    odd = put(bucket, "archive/z_resetlogs999_1_4.arc", synth(16, 1010))
    report = discover(catalog, f"s3://{bucket}/archive/")
    assert report.mismatches == () and report.gaps == ()
    assert set(report.ready) == {first, odd}
    entry = catalog.get_log(odd)
    assert entry is not None and (entry.thread, entry.sequence, entry.resetlogs_id) == (1, 16, RID)
    assert entry.note is None and entry.status is LogStatus.DISCOVERED


def test_listing_follows_pages(bucket: str) -> None:
    keys = [f"archive/{i}.arc" for i in range(5)]
    for key in keys:
        put(bucket, key, b"x" * (len(key)))
    put(bucket, "archive/sub/", b"")  # a folder marker
    got = list(list_archive(f"s3://{bucket}/archive/", page_size=2))
    assert [o.location for o in got] == [f"s3://{bucket}/{k}" for k in keys]
    assert [o.size for o in got] == [len(k) for k in keys]


def test_listing_a_missing_bucket_is_a_storage_error(s3_endpoint: str) -> None:
    with pytest.raises(StorageError, match="listing failed"):
        list(list_archive("s3://no-such-bucket-here/archive/"))


def test_the_ranged_read_is_clipped_to_small_objects(bucket: str) -> None:
    url = put(bucket, "archive/small.arc", b"abc" * 200)
    assert read_object_head(url, 600, 8192) == b"abc" * 200
    assert read_object_head(url, 0, 8192) == b""
    with pytest.raises(StorageError, match="ranged GET bytes=0-9 failed"):
        read_object_head(f"s3://{bucket}/archive/missing.arc", 10, 8192)


def test_text_objects_on_s3(bucket: str) -> None:
    url = f"s3://{bucket}/work/batches/b-1/VALIDATED"
    assert not object_exists(url)
    write_text(url, "{}\n")
    assert object_exists(url)
    remove_object(url)
    assert not object_exists(url)
