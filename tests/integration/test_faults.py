"""Faults outside Redotrail: an S3 endpoint or a catalog that cannot be reached, a jar missing from the
JVM. Each gives a clear error naming what failed, fails fast, and changes nothing, so that a retry
once the fault is gone does the work exactly once (issue 14).

Real parts: moto_server (tests/fixtures/s3.py), a throwaway PostgreSQL (tests/fixtures/postgres.py),
Spark in-process (tests/fixtures/spark.py) and ``spark-submit`` subprocesses. "Unreachable" is a TCP
port of 127.0.0.1 that this test holds bound without listening: every connection to it is refused.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import io
import socket
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from redo_lib.discovery import Settings, discover_archive, plan_pending
from redo_lib.errors import StorageError
from redo_lib.format.writer import LogFileSpec, LogWriter
from redo_lib.storage.catalog import LogCatalog
from redo_lib.storage.s3 import S3_CONNECT_TIMEOUT_S, S3_MAX_ATTEMPTS, S3_READ_TIMEOUT_S, s3_client

pytest_plugins = ["tests.fixtures.s3", "tests.fixtures.postgres", "tests.fixtures.spark"]

REPO = Path(__file__).resolve().parents[2]
RID = 1224959854
DBID = 1497016494
FAST = 30.0  # seconds: "fails fast" (a refused connection, retried a few times, not for minutes)


@pytest.fixture
def closed_port() -> Iterator[int]:
    """A port of 127.0.0.1 bound by this test and not listening: connections to it are refused, and
    no other process can take it while the test runs."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        yield int(sock.getsockname()[1])


def synth_log(sequence: int) -> bytes:
    """A complete archived log (header and trailer, no changes) of thread 1."""
    out = io.BytesIO()
    first_scn = 1000 * sequence
    spec = LogFileSpec(
        sequence=sequence, resetlogs_id=RID, resetlogs_scn=0x1F75EE, dbid=DBID, db_name="FREE",
        first_scn=first_scn, first_time=dt.datetime(2026, 3, 7, 1, sequence),
    )  # fmt: skip
    LogWriter(out, spec).close(next_scn=first_scn + 1000, next_time=dt.datetime(2026, 3, 7, 1, sequence + 1))
    return out.getvalue()


def catalog_rows(location: str) -> dict[str, Any]:
    """Everything the log catalog holds: logs, source, batches and their logs."""
    with LogCatalog(location) as catalog:
        batches = catalog.batches()
        return {
            "logs": [dataclasses.asdict(e) for e in catalog.logs()],
            "source": catalog.source(),
            "batches": [dataclasses.asdict(b) for b in batches],
            "batch_logs": {b.batch_id: [e.location for e in catalog.batch_logs(b.batch_id)] for b in batches},
        }


# -- 1. the S3 endpoint ----------------------------------------------------------------------------


def test_discovery_and_planning_with_s3_unreachable_fail_naming_the_endpoint_and_change_nothing(
    s3_endpoint: str, closed_port: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    bucket = f"faults-{uuid.uuid4().hex[:12]}"
    s3_client().create_bucket(Bucket=bucket)
    for seq in (1, 2):
        s3_client().put_object(Bucket=bucket, Key=f"archive/1_{seq}_{RID}.arc", Body=synth_log(seq))
    env = {
        "REDOTRAIL_ARCHIVE_URL": f"s3://{bucket}/archive/",
        "REDOTRAIL_WORK_DIR": f"s3://{bucket}/work",
        "REDOTRAIL_CATALOG_DB": str(tmp_path / "logs.sqlite"),
        "REDOTRAIL_MAX_LOGS_PER_BATCH": "1",
        "REDOTRAIL_MAX_BATCHES_PER_RUN": "1",
    }
    settings = Settings.from_env(env)
    # S3 up: both logs discovered, one batch planned, the second log ready and waiting for a batch
    assert sorted(discover_archive(settings)["ready"]) == [
        f"s3://{bucket}/archive/1_{s}_{RID}.arc" for s in (1, 2)
    ]
    assert plan_pending(settings) == ["b-000001-000001"]
    before = catalog_rows(settings.catalog_db)

    endpoint = f"http://127.0.0.1:{closed_port}"
    monkeypatch.setenv("AWS_ENDPOINT_URL", endpoint)
    started = time.monotonic()
    with pytest.raises(StorageError) as listing:
        discover_archive(settings)
    with pytest.raises(StorageError) as planning:  # the next batch's manifest cannot be written
        plan_pending(settings)
    elapsed = time.monotonic() - started

    for raised, where in ((listing, f"s3://{bucket}/archive/"), (planning, f"s3://{bucket}/work/batches/")):
        text = str(raised.value)
        assert text.startswith(where), text
        assert f"S3 endpoint {endpoint} unreachable" in text and "AWS_ENDPOINT_URL" in text, text
    assert elapsed < FAST, f"two S3 failures took {elapsed:.1f} s"
    assert catalog_rows(settings.catalog_db) == before  # nothing discovered, planned or lost

    # the endpoint is back: the next run plans the waiting log, once
    monkeypatch.setenv("AWS_ENDPOINT_URL", s3_endpoint)
    discover_archive(settings)
    assert plan_pending(settings) == ["b-000001-000001", "b-000002-000002"]
    with LogCatalog(settings.catalog_db) as catalog:
        assert [(b.batch_id, b.previous_batch) for b in catalog.batches()] == [
            ("b-000001-000001", None), ("b-000002-000002", "b-000001-000001"),
        ]  # fmt: skip
    keys = s3_client().list_objects_v2(Bucket=bucket, Prefix="work/")["Contents"]
    assert sorted(o["Key"] for o in keys) == [
        f"work/batches/b-00000{s}-00000{s}/manifest.json" for s in (1, 2)
    ]


def test_s3_clients_retry_a_few_times_in_standard_mode_and_the_environment_wins(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("AWS_MAX_ATTEMPTS", raising=False)
    monkeypatch.delenv("AWS_RETRY_MODE", raising=False)
    config = s3_client(region_name="us-east-1").meta.config
    assert config.retries == {"mode": "standard", "total_max_attempts": S3_MAX_ATTEMPTS}
    assert (config.connect_timeout, config.read_timeout) == (S3_CONNECT_TIMEOUT_S, S3_READ_TIMEOUT_S)
    monkeypatch.setenv("AWS_MAX_ATTEMPTS", "2")
    monkeypatch.setenv("AWS_RETRY_MODE", "adaptive")
    assert s3_client(region_name="us-east-1").meta.config.retries == {
        "mode": "adaptive",
        "total_max_attempts": 2,
    }
