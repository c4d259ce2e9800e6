"""The whole pipeline on the cluster profile, through scheduled DAG runs (behind ``slow``: about 12
minutes on two cores).

``redo_lib.cluster`` brings up PostgreSQL, moto_server, a Spark master with two workers and the
Airflow services (LocalExecutor on PostgreSQL) with discovery scheduled every minute. The generated
long-transaction workload (five logs, a transaction open across four log switches) is uploaded to
the archive bucket and the dictionary beside it; the DAGs are unpaused through the REST API and
nothing else is done by hand: discovery runs on its schedule, plans three batches and triggers them;
each runs decode -> assemble -> validate -> publish by spark-submit on the standalone master, its
executors on the packed environment, every piece of batch state on s3://, the tables Iceberg on
s3a:// with the JDBC catalog on PostgreSQL. Then: the mirrors, read by pyiceberg from that catalog,
equal the generator's final state and the changelog holds the expected trail once; a backfill of
sequences 3-5 triggered through the REST API succeeds and leaves both as they were.

    ./redotrail test -m slow tests/integration/test_cluster_pipeline.py
"""

from __future__ import annotations

import json
import os
import subprocess
import time
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from redo_lib.cluster import Cluster
from tests.integration.test_cluster_profile import _api

pytestmark = [pytest.mark.integration, pytest.mark.slow, pytest.mark.timeout(2400)]
REPO = Path(__file__).resolve().parents[2]


def _wait_runs(base: str, count: int, timeout: float) -> list[dict[str, Any]]:
    deadline = time.monotonic() + timeout
    runs: list[dict[str, Any]] = []
    while time.monotonic() < deadline:
        runs = _api(base, "/dags/redo_pipeline/dagRuns?limit=100")["dag_runs"]
        failed = [r["dag_run_id"] for r in runs if r["state"] == "failed"]
        assert not failed, f"pipeline runs failed: {failed}"
        if len([r for r in runs if r["state"] == "success"]) >= count:
            return runs
        time.sleep(10)
    raise AssertionError(f"{count} successful pipeline runs not seen within {timeout:.0f} s: {runs}")


def _tables(env: dict[str, str]) -> Any:
    from pyiceberg.catalog.sql import SqlCatalog

    return SqlCatalog(
        "redotrail",
        uri=env["REDOTRAIL_CATALOG_DB"],
        warehouse=env["REDOTRAIL_WAREHOUSE"],
        **{"s3.endpoint": env["AWS_ENDPOINT_URL"], "s3.access-key-id": env["AWS_ACCESS_KEY_ID"],
           "s3.secret-access-key": env["AWS_SECRET_ACCESS_KEY"], "s3.region": env["AWS_DEFAULT_REGION"]},
    )  # fmt: skip


def _check(scenario: Path, env: dict[str, str]) -> Counter[tuple[Any, ...]]:
    catalog = _tables(env)
    for path in (scenario / "expected" / "tables").glob("*.jsonl"):
        expected = {tuple(sorted(json.loads(line).items())) for line in path.read_text().splitlines() if line}
        rows = catalog.load_table(f"redotrail.{path.stem.lower().replace('.', '__')}").scan().to_arrow()
        got = {tuple(sorted((k, v) for k, v in r.items() if not k.startswith("_"))) for r in rows.to_pylist()}
        assert got == expected, path.stem
    changelog = catalog.load_table("redotrail.changelog").scan().to_arrow().to_pylist()
    expected_trail = [json.loads(x) for x in (scenario / "expected" / "trail.jsonl").read_text().splitlines()]
    got_trail = Counter((r["xid"], r["op"], r["rowid"], r["rba"]) for r in changelog)
    assert got_trail == Counter((r["xid"], r["op"], r["rowid"], r["rba"]) for r in expected_trail)
    return got_trail


def test_scheduled_runs_on_the_cluster_profile_publish_the_scenario(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    scenario = tmp_path / "scenario"
    subprocess.run([str(REPO / ".venv/bin/python"), "-m", "redo_lib.synth",
                    str(REPO / "include/scenarios/long_transaction.yaml"), "--out", str(scenario)],
                   check=True, capture_output=True)  # fmt: skip
    packed = subprocess.run(
        ["bash", str(REPO / "redotrail"), "pack"], capture_output=True, text=True, check=False
    )
    assert packed.returncode == 0, packed.stderr[-2000:]
    monkeypatch.setenv("REDOTRAIL_DISCOVERY_SCHEDULE", "* * * * *")
    monkeypatch.setenv("REDOTRAIL_DICTIONARY", "s3://redotrail/dictionary.json")
    monkeypatch.setenv("REDOTRAIL_MAX_LOGS_PER_BATCH", "2")
    cluster = Cluster(tmp_path / "cluster")
    env = cluster.up(progress=lambda _: None)
    try:
        import boto3

        s3 = boto3.client("s3", endpoint_url=env["AWS_ENDPOINT_URL"], aws_access_key_id="redotrail",
                          aws_secret_access_key="redotrail", region_name="us-east-1")  # fmt: skip
        s3.upload_file(str(scenario / "dictionary.json"), "redotrail", "dictionary.json")
        for log in sorted((scenario / "logs").glob("*.arc")):
            s3.upload_file(str(log), "redo-archive", f"archive/{log.name}")
        base = env["AIRFLOW__API__BASE_URL"] + "/api/v2"
        for dag_id in ("redo_pipeline", "redo_archive_discovery"):
            assert _api(base, f"/dags/{dag_id}", {"is_paused": False}, "PATCH")["is_paused"] is False
        runs = _wait_runs(base, 3, 1500)
        assert {r["dag_run_id"] for r in runs} >= {
            "batch__b-000001-000002", "batch__b-000003-000004", "batch__b-000005-000005"
        }  # fmt: skip
        before = _check(scenario, {**os.environ, **env})
        # a backfill across two published batches, through the REST API: nothing new is published
        _api(
            base,
            "/dags/redo_pipeline/dagRuns",
            {"logical_date": None, "conf": {"seq_from": 3, "seq_to": 5}},
            "POST",
        )
        _wait_runs(base, 4, 900)
        assert _check(scenario, {**os.environ, **env}) == before
        local = [  # the batch folders are on S3: no Parquet on a worker's disk but its packed environment's
            p
            for n in (1, 2)
            for p in (cluster.root / f"worker{n}" / "work").rglob("*.parquet")
            if "environment" not in p.parts
        ]
        assert not local, f"batch state on a worker's local disk: {local[:3]}"
    finally:
        cluster.down(progress=lambda _: None)
