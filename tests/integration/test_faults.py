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
import json
import os
import re
import socket
import subprocess
import sys
import time
import uuid
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa

from redo_lib.batches import LogEntry, Manifest, write_manifest
from redo_lib.discovery import Settings, discover_archive, plan_pending
from redo_lib.errors import StorageError
from redo_lib.format.writer import LogFileSpec, LogWriter
from redo_lib.storage.catalog import LogCatalog
from redo_lib.storage.s3 import S3_CONNECT_TIMEOUT_S, S3_MAX_ATTEMPTS, S3_READ_TIMEOUT_S, s3_client
from spark_jobs import decode, publish
from spark_jobs.common import (
    EXIT_FAILED,
    EXIT_SETUP,
    JAR_CLASSES,
    check_jars,
    missing_jars,
    pinned_jars,
)
from tests.spark.scenario import batch_one, records, write_batch
from tests.spark.test_publish import AFTER_ONE, MIRRORS, Tables

pytest_plugins = ["tests.fixtures.s3", "tests.fixtures.postgres", "tests.fixtures.spark"]

REPO = Path(__file__).resolve().parents[2]
RID = 1224959854
DBID = 1497016494
FAST = 30.0  # seconds: "fails fast" (a refused connection, retried a few times, not for minutes)
SPARK_SUBMIT = str(Path(sys.executable).with_name("spark-submit"))
# s3a's retries, lowered for the tests by spark-submit --conf (production: spark-defaults.conf)
S3A_TEST_RETRIES = {
    "spark.hadoop.fs.s3a.retry.limit": "1",
    "spark.hadoop.fs.s3a.retry.interval": "100ms",
    "spark.hadoop.fs.s3a.attempts.maximum": "1",
}


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


def validated_batch(root: Path) -> Path:
    """Batch 1 of the Spark tests' scenario (tests/spark/scenario.py) with its VALIDATED marker."""
    folder = write_batch(root, batch_one())
    (folder / "VALIDATED").write_text(json.dumps({"batch_id": folder.name}))
    return folder


def submit(job: str, *args: str, conf: dict[str, str] | None = None, env: dict[str, str] | None = None,
           spark_submit: str = SPARK_SUBMIT) -> tuple[subprocess.CompletedProcess[str], float]:  # fmt: skip
    """``spark-submit spark_jobs/<job> ARGS`` on local[1], as the pipeline DAG runs it; its result and
    how long it took."""
    confs = [arg for key, value in {"spark.ui.enabled": "false", **(conf or {})}.items()
             for arg in ("--conf", f"{key}={value}")]  # fmt: skip
    argv = [spark_submit, "--master", "local[1]", *confs, str(REPO / "spark_jobs" / job), *args]
    environment = {
        **os.environ,
        "PYSPARK_PYTHON": sys.executable,
        "SPARK_LOCAL_IP": "127.0.0.1",
        **(env or {}),
    }
    started = time.monotonic()
    done = subprocess.run(argv, env=environment, cwd=REPO, capture_output=True, text=True, timeout=600)
    return done, time.monotonic() - started


def last_line(done: subprocess.CompletedProcess[str]) -> str:
    """The stage's one line (spark-submit merges its Python driver's stderr into its stdout: last)."""
    return done.stdout.strip().splitlines()[-1]


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


# -- 2. the catalogs -------------------------------------------------------------------------------


def test_discovery_with_the_log_catalog_unreachable_names_its_server_and_does_nothing(
    s3_endpoint: str, postgres_database: str, closed_port: int, tmp_path: Path
) -> None:
    bucket = f"faults-{uuid.uuid4().hex[:12]}"
    s3_client().create_bucket(Bucket=bucket)
    s3_client().put_object(Bucket=bucket, Key=f"archive/1_1_{RID}.arc", Body=synth_log(1))
    env = {"REDOTRAIL_ARCHIVE_URL": f"s3://{bucket}/archive/", "REDOTRAIL_WORK_DIR": f"s3://{bucket}/work"}
    unreachable = f"postgresql://redotrail:s3cret-pw@127.0.0.1:{closed_port}/redotrail"
    settings = Settings.from_env(env | {"REDOTRAIL_CATALOG_DB": unreachable})

    started = time.monotonic()
    for task in (discover_archive, plan_pending):
        with pytest.raises(StorageError) as raised:
            task(settings)
        text = str(raised.value)
        assert f"PostgreSQL server at 127.0.0.1:{closed_port}" in text and "REDOTRAIL_CATALOG_DB" in text, (
            text
        )
        assert "s3cret-pw" not in text and "s3cret-pw" not in repr(raised.value.__cause__), text
        assert (
            raised.value.position.file == f"postgresql+psycopg://redotrail@127.0.0.1:{closed_port}/redotrail"
        )
    assert time.monotonic() - started < FAST
    assert "Contents" not in s3_client().list_objects_v2(Bucket=bucket, Prefix="work/")  # nothing planned

    # the right catalog: the same runs register the log and plan its batch
    settings = Settings.from_env(env | {"REDOTRAIL_CATALOG_DB": postgres_database})
    assert discover_archive(settings)["ready"] == [f"s3://{bucket}/archive/1_1_{RID}.arc"]
    assert plan_pending(settings) == ["b-000001-000001"]
    with LogCatalog(postgres_database) as catalog:
        assert [b.batch_id for b in catalog.batches()] == ["b-000001-000001"]


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


# -- 1b. a Spark stage ------------------------------------------------------------------------------


def test_a_stage_whose_s3_is_unreachable_exits_1_naming_the_endpoint(
    spark: Any, s3_endpoint: str, closed_port: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:  # fmt: skip
    """decode in-process: its driver reads the batch folder and the logs' headers with boto3."""
    endpoint = f"http://127.0.0.1:{closed_port}"
    monkeypatch.setenv("AWS_ENDPOINT_URL", endpoint)
    started = time.monotonic()
    # the embedded default: the batch folder local, the logs on S3
    log = f"s3://faults-archive/archive/1_1_{RID}.arc"
    batch = tmp_path / "batches" / "b-000001-000001"
    entry = LogEntry(thread=1, sequence=1, resetlogs_id=RID, location=log)
    write_manifest(batch, Manifest(batch_id=batch.name, logs=(entry,)))
    assert decode.main(["--batch-dir", str(batch)], spark=spark) == EXIT_FAILED
    failure = json.loads((batch / "report" / "failure.json").read_text())
    assert (failure["stage"], failure["kind"], failure["retryable"]) == ("decode", "storage", True)
    assert failure["position"] == {"file": log}
    assert f"S3 endpoint {endpoint} unreachable" in failure["error"], failure["error"]
    assert not (batch / "staging").exists()
    # the cluster profile: the batch folder on S3 too; no failure.json can be written, the line says why
    capsys.readouterr()
    assert (
        decode.main(["--batch-dir", "s3://faults-work/batches/b-000001-000001"], spark=spark) == EXIT_FAILED
    )
    line = capsys.readouterr().err.strip().splitlines()[-1]
    assert line.startswith("decode b-000001-000001 failed: ") and "may pass on retry" in line, line
    assert f"{endpoint}/faults-work/batches/b-000001-000001/" in line, line
    assert time.monotonic() - started < FAST


def test_publish_whose_warehouse_s3_is_unreachable_exits_1_before_any_work(
    s3_endpoint: str, closed_port: int, tmp_path: Path
) -> None:
    """spark-submit batch.py (the pipeline's command line), publish only, the warehouse on S3 through
    s3a: the warehouse is probed before anything else, with s3a's retries (lowered here by --conf)."""
    batch = validated_batch(tmp_path / "batches")
    endpoint = f"http://127.0.0.1:{closed_port}"
    done, seconds = submit(
        "batch.py", "--batch-dir", str(batch), "--stages", "publish", "--warehouse", "s3://faults-wh/tables",
        "--catalog-uri", f"jdbc:sqlite:{tmp_path}/catalog.db", conf=S3A_TEST_RETRIES,
        env={"AWS_ENDPOINT_URL": endpoint},
    )  # fmt: skip
    assert done.returncode == EXIT_FAILED, done.stdout[-3000:]
    (line,) = [x for x in done.stdout.splitlines() if x.startswith("publish b-000001-000001 failed: ")]
    assert line.startswith(f"publish b-000001-000001 failed: s3a://faults-wh/tables: cannot reach the warehouse "
                           f"(S3 endpoint {endpoint}"), line  # fmt: skip
    assert f"Connect to 127.0.0.1:{closed_port}" in line and "may pass on retry" in line, line
    # the retries --conf asked for, not spark-defaults.conf's (which take ~20 s against a refused port)
    gave_up = float(re.search(r"gave up after ([0-9.]+) s of retries", line).group(1))  # type: ignore[union-attr]
    assert gave_up < 8, line
    failure = json.loads((batch / "report" / "failure.json").read_text())
    assert (failure["kind"], failure["retryable"], failure["published"]) == ("storage", True, "nothing")
    assert not (batch / "PUBLISHED").exists() and not (tmp_path / "catalog.db").exists()
    assert seconds < 2 * FAST, f"spark-submit took {seconds:.0f} s"  # a JVM start, then seconds


# -- 2b. the Iceberg catalog ------------------------------------------------------------------------


class PostgresTables(Tables):
    """The published Iceberg tables read back by pyiceberg from the JDBC catalog on PostgreSQL."""

    def __init__(self, warehouse: Path, url: str) -> None:
        super().__init__("iceberg", warehouse)
        from pyiceberg.catalog.sql import SqlCatalog

        self.catalog = SqlCatalog("redotrail", uri=url, warehouse=f"file://{warehouse}")

    def _arrow(self, name: str) -> Any:
        return self.catalog.load_table(f"redotrail.{name}").scan().to_arrow()

    def close(self) -> None:
        self.catalog.engine.dispose()

    def snapshots(self) -> dict[str, list[int]]:
        return {
            ident[-1]: [s.snapshot_id for s in self.catalog.load_table(ident).snapshots()]
            for ident in self.catalog.list_tables("redotrail")
        }


def test_publish_with_the_iceberg_catalog_unreachable_publishes_nothing_then_exactly_once(
    spark: Any, postgres_database: str, closed_port: int, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    batch = validated_batch(tmp_path / "batches")
    warehouse = tmp_path / "warehouse"
    argv = ["--batch-dir", str(batch), "--warehouse", f"file://{warehouse}"]
    url = sa.make_url(postgres_database)
    unreachable = (
        f"jdbc:postgresql://127.0.0.1:{closed_port}/{url.database}?user={url.username}&password=s3cret-pw"
    )
    masked = unreachable.replace("s3cret-pw", "***")

    started = time.monotonic()
    assert publish.main([*argv, "--catalog-uri", unreachable], spark=spark) == EXIT_FAILED
    assert time.monotonic() - started < FAST
    report = (batch / "report" / "failure.json").read_text()
    failure = json.loads(report)
    assert (failure["kind"], failure["retryable"], failure["published"]) == ("storage", True, "nothing")
    assert failure["position"] == {"file": masked}
    assert failure["error"].startswith(f"{masked}: cannot use the Iceberg catalog: "), failure["error"]
    assert f"Connection to 127.0.0.1:{closed_port} refused" in failure["error"], failure["error"]
    assert "s3cret-pw" not in report + capsys.readouterr().err  # failure.json, the traceback and the line
    assert not (batch / "PUBLISHED").exists() and not list(warehouse.rglob("*.parquet"))

    # the right catalog: the same batch publishes, once
    reachable = f"jdbc:postgresql://{url.host}:{url.port}/{url.database}?user={url.username}"
    assert publish.main([*argv, "--catalog-uri", reachable], spark=spark) == 0
    assert not (batch / "report" / "failure.json").exists()
    tables = PostgresTables(warehouse, postgres_database)
    try:
        assert {s: tables.mirror(s) for s in MIRRORS} == AFTER_ONE
        assert tables.changelog() == {"b-000001-000001": records(batch_one().txns)}  # each trail_seq once
        snapshots = tables.snapshots()
        assert sorted(snapshots) == sorted(["changelog", *MIRRORS.values()])
        assert all(len(ids) == 1 for ids in snapshots.values()), snapshots
        # published again without its marker (a retry that lost it): nothing is added
        (batch / "PUBLISHED").unlink()
        assert publish.main([*argv, "--catalog-uri", reachable], spark=spark) == 0
        assert tables.snapshots() == snapshots
    finally:
        tables.close()


# -- 3. a missing jar --------------------------------------------------------------------------------


def test_every_pinned_jar_is_checked_by_a_class_only_it_holds_and_the_venv_has_them_all(spark: Any) -> None:
    import pyspark

    probes = {JAR_CLASSES[spec.split(":")[1]].replace(".", "/") + ".class": spec for spec in pinned_jars()}
    holders: dict[str, list[str]] = {spec: [] for spec in probes.values()}
    for jar in sorted((Path(pyspark.__file__).parent / "jars").glob("*.jar")):
        with zipfile.ZipFile(jar) as archive:
            for member in probes.keys() & set(archive.namelist()):
                holders[probes[member]].append(jar.name)
    assert holders == {spec: ["{1}-{2}.jar".format(*spec.split(":"))] for spec in holders}
    assert check_jars(spark) == []
    assert missing_jars(lambda cls: cls != JAR_CLASSES["postgresql"]) == [
        ("org.postgresql:postgresql:42.7.14", "org.postgresql.Driver")
    ]
    # a deployment without PostgreSQL's catalog declares the driver optional: nothing is missing
    assert (
        missing_jars(lambda cls: cls != JAR_CLASSES["postgresql"], optional="sqlite-jdbc, postgresql") == []
    )


def spark_home_without(root: Path, jar: str) -> Path:
    """A SPARK_HOME that is pyspark's of the venv through symlinks, but for one jar of its jars/."""
    import pyspark

    real = Path(pyspark.__file__).parent
    home = root / "spark-home"
    (home / "jars").mkdir(parents=True)
    for entry in real.iterdir():
        if entry.name != "jars":
            (home / entry.name).symlink_to(entry)
    for path in (real / "jars").iterdir():
        if path.name != jar:
            (home / "jars" / path.name).symlink_to(path)
    assert (real / "jars" / jar).is_file() and not (home / "jars" / jar).exists()
    return home


def test_a_missing_jar_fails_the_batch_before_any_work_naming_the_jar_and_setup(tmp_path: Path) -> None:
    """spark-submit batch.py from a SPARK_HOME without hadoop-aws, over a local batch that decode
    could do without it: the first stage stops at the check, exit 5, no retry."""
    home = spark_home_without(tmp_path, "hadoop-aws-3.4.2.jar")
    log = tmp_path / f"1_1_{RID}.arc"
    log.write_bytes(synth_log(1))
    batch = tmp_path / "batches" / "b-000001-000001"
    entry = LogEntry(thread=1, sequence=1, resetlogs_id=RID, location=str(log))
    write_manifest(batch, Manifest(batch_id=batch.name, logs=(entry,)))
    done, _ = submit(
        "batch.py", "--batch-dir", str(batch), "--stages", "decode",
        env={"SPARK_HOME": str(home)}, spark_submit=str(home / "bin" / "spark-submit"),
    )  # fmt: skip
    assert done.returncode == EXIT_SETUP, done.stdout[-3000:]
    failure = json.loads((batch / "report" / "failure.json").read_text())
    assert (failure["stage"], failure["kind"], failure["retryable"]) == ("decode", "missing_jar", False)
    assert failure["details"] == {"jars": "org.apache.hadoop:hadoop-aws:3.4.2"}
    (line,) = [x for x in done.stdout.splitlines() if x.startswith("decode b-000001-000001 failed: ")]
    assert (
        "org.apache.hadoop:hadoop-aws:3.4.2 (class org.apache.hadoop.fs.s3a.S3AFileSystem not found)" in line
    )
    assert "Run ./redotrail setup" in line and "do not retry" in line, line
    assert not (batch / "staging").exists()  # nothing decoded
