"""decode -> assemble -> validate with every piece of batch state on S3 (``REDOTRAIL_WORK_DIR`` an
``s3://`` prefix): the archived logs, the dictionary, the manifests, the staged events, the trail, the
open transactions the second batch carries in, counts.json, logs.json and the report all live on the
S3 endpoint (moto_server), Spark reads and writes them through ``s3a://`` and the small documents go
through boto3. Two batches carry the long transaction of the generated scenario from the first into
the second; their trails together equal the single-process decode of all the logs, and nothing of a
batch was written to a local disk (only Spark's own local dir and the Data Docs' temporary folder).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq
import pytest

from redo_lib.batches import LogEntry, Manifest, write_manifest
from redo_lib.pipeline import decode_logs, describe_logs
from redo_lib.storage.s3 import s3_client
from redo_lib.trail.schema import from_row
from spark_jobs import assemble, decode, validate

pytest_plugins = ["tests.fixtures.s3"]
pytestmark = pytest.mark.spark
REPO = Path(__file__).resolve().parents[2]
AWS = ("AWS_ENDPOINT_URL", "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_DEFAULT_REGION")


@pytest.fixture(scope="module")
def scenario(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("long_transaction")
    subprocess.run([sys.executable, "-m", "redo_lib.synth", str(REPO / "include/scenarios/long_transaction.yaml"),
                    "--out", str(out)], check=True, capture_output=True)  # fmt: skip
    return out


@pytest.fixture(scope="module")
def disks(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Where the session's processes may write: ``cwd`` (the JVM's and the driver's working folder,
    which must stay empty), ``tmp`` (the Python processes' temporary folder) and ``spark`` (Spark's
    own local dir)."""
    return {name: tmp_path_factory.mktemp(name) for name in ("cwd", "tmp", "spark")}


@pytest.fixture(scope="module")
def spark_s3(s3_endpoint: str, disks: dict[str, Path]) -> Iterator[Any]:
    """A session started after the S3 endpoint, its Python workers given the ``AWS_*`` environment
    and ``TMPDIR``, in an empty working folder."""
    from pyspark.sql import SparkSession

    from spark_jobs.common import s3a_settings, spark_defaults
    from tests.fixtures.spark import use_s3  # not at the top: a pytest plugin module elsewhere

    os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    os.environ.setdefault("TZ", "UTC")
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    cwd = os.getcwd()
    os.chdir(disks["cwd"])
    settings = {
        **spark_defaults(),
        **s3a_settings(),
        "spark.sql.shuffle.partitions": "2",
        "spark.local.dir": str(disks["spark"]),
        "spark.executorEnv.TMPDIR": str(disks["tmp"]),
        **{f"spark.executorEnv.{name}": os.environ[name] for name in AWS},
    }
    builder = SparkSession.builder.appName("redotrail-tests-batches-on-s3").master("local[2]")
    for key, value in settings.items():
        builder = builder.config(key, value)
    session = builder.getOrCreate()
    session.sparkContext.setLogLevel("ERROR")
    use_s3(session)
    try:
        yield session
    finally:
        session.stop()
        os.chdir(cwd)


class WriteLog:
    """Files the driver opens for writing (an audit hook: Python's ``open`` and ``os.open``)."""

    def __init__(self) -> None:
        self.active = False
        self.paths: list[str] = []
        sys.addaudithook(self._hook)

    def _hook(self, event: str, args: tuple[Any, ...]) -> None:
        if not self.active or event != "open" or not isinstance(args[0], str | bytes | Path):
            return
        mode, flags = args[1], args[2]
        writes = (
            any(c in mode for c in "wax+")
            if isinstance(mode, str)
            else bool(flags & (os.O_WRONLY | os.O_RDWR))
        )
        if writes:
            self.paths.append(os.fsdecode(args[0]))


def _trail(bucket: str, key: str) -> list[Any]:
    """A trail folder on S3, read with pyarrow (no Redotrail code, nothing written locally)."""
    from pyarrow import fs

    s3 = fs.S3FileSystem(
        endpoint_override=os.environ["AWS_ENDPOINT_URL"], region=os.environ["AWS_DEFAULT_REGION"],
        access_key=os.environ["AWS_ACCESS_KEY_ID"], secret_key=os.environ["AWS_SECRET_ACCESS_KEY"],
    )  # fmt: skip
    rows = sorted(pq.read_table(f"{bucket}/{key}", filesystem=s3).to_pylist(), key=lambda r: r["trail_seq"])
    assert [r["trail_seq"] for r in rows] == list(range(len(rows)))
    return [from_row({k: v for k, v in r.items() if k not in ("batch_id", "trail_seq")}) for r in rows]


def test_two_batches_with_their_state_on_s3_equal_the_single_process_decode(
    spark_s3: Any, scenario: Path, disks: dict[str, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    client = s3_client()
    bucket = f"redo-{uuid.uuid4().hex[:12]}"
    client.create_bucket(Bucket=bucket)
    refs = describe_logs(sorted((scenario / "logs").glob("*.arc")))
    entries = []
    for ref in refs:
        key = f"archive/{Path(ref.location).name}"
        client.upload_file(ref.location, bucket, key)
        entries.append(LogEntry(thread=ref.thread, sequence=ref.sequence, resetlogs_id=ref.resetlogs_id,
                                location=f"s3://{bucket}/{key}"))  # fmt: skip
    client.upload_file(str(scenario / "dictionary.json"), bucket, "dictionary/dictionary.json")
    dictionary = f"s3://{bucket}/dictionary/dictionary.json"
    work = f"s3://{bucket}/work"

    monkeypatch.setattr(tempfile, "tempdir", str(disks["tmp"]))
    writes = WriteLog()
    trail, carried_out = [], []
    previous = None
    for batch_id, logs in (("b-000001-000002", entries[:2]), ("b-000003-000005", entries[2:])):
        folder = f"{work}/batches/{batch_id}"
        carried = f"{work}/batches/{previous}/open" if previous else None
        write_manifest(folder, Manifest(batch_id=batch_id, logs=tuple(logs), dictionary=dictionary,
                                        previous_batch=previous, carried_in=carried))  # fmt: skip
        args = ["--batch-dir", folder]
        writes.active = True
        try:
            assert decode.main([*args, "--range-mb", "0.02"], spark=spark_s3) == 0
            assert assemble.main(args, spark=spark_s3) == 0
            assert validate.main(args, spark=spark_s3) == 0
        finally:
            writes.active = False
        trail += _trail(bucket, f"work/batches/{batch_id}/trail")
        counts = json.loads(
            client.get_object(Bucket=bucket, Key=f"work/batches/{batch_id}/counts.json")["Body"].read()
        )
        carried_out.append(counts["transactions"]["open_carried_out"])
        previous = batch_id

    assert carried_out == [1, 0]  # the long transaction is carried into the second batch, then committed
    reference = decode_logs([ref.location for ref in refs], str(scenario / "dictionary.json"))
    assert trail == reference.trail and len(trail) > 0

    keys = {o["Key"] for page in client.get_paginator("list_objects_v2").paginate(Bucket=bucket)
            for o in page.get("Contents", [])}  # fmt: skip
    for batch_id in ("b-000001-000002", "b-000003-000005"):
        base = f"work/batches/{batch_id}"
        documents = ("manifest.json", "counts.json", "staging/logs.json", "VALIDATED", "report/summary.json",
                     "report/docs/index.html")  # fmt: skip
        assert {f"{base}/{member}" for member in documents} <= keys
        for folder in ("staging/events", "trail", "open"):
            assert any(k.startswith(f"{base}/{folder}/") and k.endswith(".parquet") for k in keys), folder
        assert not any(k.startswith(f"{base}/staging/assembled/") for k in keys)  # scratch, removed

    # nothing of a batch on a local disk: the working folder is empty, the temporary folder holds
    # nothing left over, and the driver wrote only to Spark's local dir and the Data Docs' folder
    assert list(disks["cwd"].iterdir()) == []
    assert list(disks["tmp"].iterdir()) == []
    # Spark's local dir: this session's, or, when an earlier module started the JVM (one per pytest
    # process), the root the JVM fixed then, where pyspark keeps its own temp files (_temp_dir)
    spark_temp = spark_s3.sparkContext._temp_dir
    allowed = (str(disks["spark"]), spark_temp, os.path.join(str(disks["tmp"]), "redotrail-docs-"))
    assert [p for p in writes.paths if not p.startswith(allowed)] == []
    assert any(p.startswith(allowed[2]) for p in writes.paths)  # the hook saw the Data Docs written


def test_lob_pages_are_carried_through_s3(spark_s3: Any, disks: dict[str, Path], tmp_path: Path) -> None:
    """The lob_appends scenario, one batch per log, every batch folder on S3: each batch's LOB task
    reads the previous batch's ``lobs/`` from S3 and writes its own there (docs/lobs.md, "Across
    batches"); the appends of batches 2 and 3 come out whole, as the single-process decode of all
    the logs gives them, and rule 17 passes in each batch."""
    out = tmp_path / "lob_appends"
    subprocess.run([sys.executable, "-m", "redo_lib.synth", str(REPO / "include/scenarios/lob_appends.yaml"),
                    "--out", str(out)], check=True, capture_output=True)  # fmt: skip
    client = s3_client()
    bucket = f"redo-{uuid.uuid4().hex[:12]}"
    client.create_bucket(Bucket=bucket)
    refs = describe_logs(sorted((out / "logs").glob("*.arc")))
    for ref in refs:
        client.upload_file(ref.location, bucket, f"archive/{Path(ref.location).name}")
    client.upload_file(str(out / "dictionary.json"), bucket, "dictionary/dictionary.json")
    work = f"s3://{bucket}/work"
    trail, unresolved = [], []
    previous = None
    for ref in refs:
        batch_id = f"b-{ref.sequence:06d}-{ref.sequence:06d}"
        folder = f"{work}/batches/{batch_id}"
        log = LogEntry(thread=ref.thread, sequence=ref.sequence, resetlogs_id=ref.resetlogs_id,
                       location=f"s3://{bucket}/archive/{Path(ref.location).name}")  # fmt: skip
        write_manifest(folder, Manifest(batch_id=batch_id, logs=(log,), dictionary=f"s3://{bucket}/dictionary/dictionary.json",
                                        previous_batch=previous,
                                        carried_in=f"{work}/batches/{previous}/open" if previous else None))  # fmt: skip
        args = ["--batch-dir", folder]
        assert decode.main(args, spark=spark_s3) == 0
        assert assemble.main([*args, "--partitions", "3"], spark=spark_s3) == 0
        assert validate.main(args, spark=spark_s3) == 0
        trail += _trail(bucket, f"work/batches/{batch_id}/trail")
        counts = json.loads(
            client.get_object(Bucket=bucket, Key=f"work/batches/{batch_id}/counts.json")["Body"].read()
        )
        unresolved.append(counts["lobs"].get("lob_values_unresolved", 0))
        listed = client.list_objects_v2(Bucket=bucket, Prefix=f"work/batches/{batch_id}/lobs/").get(
            "Contents", []
        )
        assert any(o["Key"].endswith(".parquet") for o in listed), batch_id
        previous = batch_id
    assert unresolved == [0, 0, 0]
    reference = decode_logs([ref.location for ref in refs], str(out / "dictionary.json"))
    assert trail == reference.trail
    assert list(disks["cwd"].iterdir()) == []
