"""The whole pipeline on the cluster profile, through scheduled DAG runs, with faults (behind
``slow``: about 15 minutes on two cores).

``redo_lib.cluster`` brings up PostgreSQL, moto_server, a Spark master with two workers and the
Airflow services (LocalExecutor on PostgreSQL) with discovery scheduled every minute. The generated
``rac_long_transaction`` workload (two RAC threads of five logs each, a transaction on thread 1 open
across four log switches of both) is uploaded to the archive bucket and the dictionary beside it;
the DAGs are unpaused through the REST API and discovery runs on its schedule, plans batches of at
most two logs a thread and triggers them; each runs ``spark_jobs/batch.py`` (decode, assemble,
validate, publish in one application) on the standalone master, its executors on the packed
environment, every piece of batch state on s3://, the tables Iceberg on s3a:// with the JDBC
catalog on PostgreSQL.

After each run, as soon as no Spark application or driver is running, the test empties the local
dir of the drivers and the work and local dirs of both workers: a batch that read anything a run
before it left on a local disk (open transactions, staged events) would fail.
Faults: during the first run that starts after the first batch, Spark worker 1 is killed (its
executor with it) while the application runs; the application carries on with worker 2. During
another run the driver (spark-submit) is killed once validation has passed, in publishing: the
task fails, Airflow retries it and the batch publishes once.

Then: the mirrors, read by pyiceberg from that catalog, equal the generator's final state and the
changelog holds the expected trail exactly once; a backfill of thread 1's sequences 3-5 and thread
2's 3-5 triggered through the REST API succeeds and leaves both as they were.

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
from redo_lib.trail.types import comparable, typed_row
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
    try:
        for path in (scenario / "expected" / "tables").glob("*.jsonl"):
            rows = catalog.load_table(f"redotrail.{path.stem.lower().replace('.', '__')}").scan().to_arrow()
            expected = {  # the scenario's text as the typed mirror holds it (docs/tables.md)
                tuple(sorted(typed_row(json.loads(x), rows.schema).items()))
                for x in path.read_text().splitlines()
                if x
            }
            got = {
                tuple(sorted((k, v) for k, v in comparable(r).items() if not k.startswith("_")))
                for r in rows.to_pylist()
            }
            assert got == expected, path.stem
        changelog = catalog.load_table("redotrail.changelog").scan().to_arrow().to_pylist()
    finally:
        catalog.engine.dispose()  # its PostgreSQL connections, closed now rather than at garbage collection
    expected_trail = [json.loads(x) for x in (scenario / "expected" / "trail.jsonl").read_text().splitlines()]
    got_trail = Counter((r["xid"], r["op"], r["rowid"], r["rba"]) for r in changelog)
    assert got_trail == Counter((r["xid"], r["op"], r["rowid"], r["rba"]) for r in expected_trail)
    return got_trail


def _master(cluster: Cluster) -> dict[str, Any]:
    import urllib.request

    with urllib.request.urlopen(f"http://127.0.0.1:{cluster.ports['spark_ui']}/json/", timeout=10) as r:
        doc: dict[str, Any] = json.load(r)
    return doc


def _runs(base: str) -> list[dict[str, Any]]:
    runs: list[dict[str, Any]] = _api(base, "/dags/redo_pipeline/dagRuns?limit=100")["dag_runs"]
    failed = [r["dag_run_id"] for r in runs if r["state"] == "failed"]
    assert not failed, f"pipeline runs failed: {failed}"
    return runs


def _settled(base: str) -> bool:
    """No pipeline run is queued or running: a batch is published in the catalog before its report
    task has written the operations report and ended."""
    return all(r["state"] not in ("queued", "running") for r in _runs(base))


def _done(cluster: Cluster, env: dict[str, str], logs: int) -> bool:
    """Every uploaded log is in a published batch and no batch waits."""
    from redo_lib.storage.catalog import BatchStatus, LogCatalog, LogStatus

    catalog = LogCatalog(env["REDOTRAIL_CATALOG_DB"])
    try:
        published = catalog.logs(status=LogStatus.PUBLISHED)
        waiting = [b for b in catalog.batches() if b.status is not BatchStatus.PUBLISHED]
        return len(published) == logs and not waiting
    finally:
        catalog.close()


def _pids(pattern: str) -> list[int]:
    found = subprocess.run(["pgrep", "-f", pattern], capture_output=True, text=True, check=False)
    return [int(x) for x in found.stdout.split()]


def _empty_local_dirs(cluster: Cluster, trash: Path) -> int:
    """Empty the drivers' local dir and both workers' work and local dirs; returns the entries removed.

    Each entry is renamed into ``trash`` (milliseconds, while removing a packed environment unpacked
    in a work dir takes seconds: the next application must not start while its dirs are removed)."""
    import uuid

    trash.mkdir(parents=True, exist_ok=True)
    removed = 0
    for folder in (cluster.driver_dir, *cluster.worker_dirs(1), *cluster.worker_dirs(2)):
        for entry in list(folder.iterdir()) if folder.exists() else []:
            entry.rename(trash / uuid.uuid4().hex)
            removed += 1
    return removed


def test_scheduled_runs_on_the_cluster_profile_publish_the_scenario(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import signal

    scenario = tmp_path / "scenario"
    subprocess.run([str(REPO / ".venv/bin/python"), "-m", "redo_lib.synth",
                    str(REPO / "include/scenarios/rac_long_transaction.yaml"), "--out", str(scenario)],
                   check=True, capture_output=True)  # fmt: skip
    logs = sorted((scenario / "logs").glob("*.arc"))
    assert {p.name.split("_")[0] for p in logs} == {"1", "2"}  # a RAC pair
    packed = subprocess.run(
        ["bash", str(REPO / "redotrail"), "pack"], capture_output=True, text=True, check=False
    )
    assert packed.returncode == 0, packed.stderr[-2000:]
    monkeypatch.setenv("REDOTRAIL_DISCOVERY_SCHEDULE", "* * * * *")
    monkeypatch.setenv("REDOTRAIL_DICTIONARY", "s3://redotrail/dictionary.json")
    monkeypatch.setenv("REDOTRAIL_MAX_LOGS_PER_BATCH", "2")
    cluster = Cluster(tmp_path / "cluster")
    env = cluster.up(progress=lambda _: None)
    full_env = {**os.environ, **env}
    try:
        import boto3

        s3 = boto3.client("s3", endpoint_url=env["AWS_ENDPOINT_URL"], aws_access_key_id="redotrail",
                          aws_secret_access_key="redotrail", region_name="us-east-1")  # fmt: skip
        s3.upload_file(str(scenario / "dictionary.json"), "redotrail", "dictionary.json")
        for log in logs:
            s3.upload_file(str(log), "redo-archive", f"archive/{log.name}")
        base = env["AIRFLOW__API__BASE_URL"] + "/api/v2"
        for dag_id in ("redo_pipeline", "redo_archive_discovery"):
            assert _api(base, f"/dags/{dag_id}", {"is_paused": False}, "PATCH")["is_paused"] is False

        worker1 = next(p for p in cluster.processes if p.name == "spark-worker1")
        trash = tmp_path / "cluster" / "trash"  # same file system as the dirs emptied
        emptied_after: list[int] = []  # the number of finished applications at each emptying
        killed: dict[str, str] = {}  # fault -> the batch it hit
        deadline = time.monotonic() + 1800
        polls = 0
        master_url = f"spark://127.0.0.1:{cluster.ports['spark']}"
        while polls % 10 or not (_done(cluster, env, len(logs)) and _settled(base)):
            assert time.monotonic() < deadline, f"not every log published in time: {_runs(base)}"
            polls += 1
            if polls % 10 == 0:
                _runs(base)  # fails the test on a failed run
            master = _master(cluster)
            apps, finished = master.get("activeapps", []), len(master.get("completedapps", []))
            drivers = _pids(f"SparkSubmit.*{master_url}")  # this cluster's (other Spark jobs may run here)
            if finished > (emptied_after or [0])[-1] and not apps and not drivers:
                # between two applications (the next driver takes seconds to make its dirs)
                assert _empty_local_dirs(cluster, trash) > 0 or emptied_after, (
                    "the first application left no files"
                )
                emptied_after.append(finished)
            if apps and emptied_after:  # faults, in the second application and later
                batch = apps[0]["name"].removeprefix("redotrail-batch-")
                if "worker" not in killed and apps[0].get("cores", 0) >= 2:  # executors on both workers
                    os.kill(worker1.pid, signal.SIGKILL)  # its executor goes with it (WorkerWatcher)
                    killed["worker"] = batch
                elif "driver" not in killed and batch != killed.get("worker") and "worker" in killed:
                    validated = s3.list_objects_v2(
                        Bucket="redotrail", Prefix=f"work/batches/{batch}/VALIDATED"
                    )
                    if validated.get("KeyCount"):  # validate is done: the driver is publishing
                        for pid in _pids(f"SparkSubmit.*redotrail-batch-{batch}"):
                            os.kill(pid, signal.SIGKILL)
                        killed["driver"] = batch
            time.sleep(1)
        finished = len(_master(cluster).get("completedapps", []))
        # every application but the last was followed by an emptying before the next one started
        assert emptied_after == list(range(1, len(emptied_after) + 1)), emptied_after
        assert len(emptied_after) >= finished - 1 >= 5, (emptied_after, finished)  # 5 batches and a retry
        assert "worker" in killed, "no application ran on both workers: the worker fault did not happen"
        assert "driver" in killed, "the driver was never caught in publishing"
        runs = _runs(base)
        tries = {r["dag_run_id"]: _api(base, f"/dags/redo_pipeline/dagRuns/{r['dag_run_id']}/taskInstances/stages")["try_number"]
                 for r in runs if r["state"] == "success"}  # fmt: skip
        assert len(tries) == 5, tries
        assert tries[f"batch__{killed['driver']}"] == 2, tries  # the killed publish was retried by Airflow
        assert tries[f"batch__{killed['worker']}"] == 1, tries  # Spark itself got over the lost worker
        before = _check(scenario, full_env)
        # a backfill across published batches, through the REST API: nothing new is published
        count = len([r for r in _runs(base) if r["state"] == "success"])
        _api(
            base,
            "/dags/redo_pipeline/dagRuns",
            {"logical_date": None, "conf": {"threads": [1, 2], "seq_from": 3, "seq_to": 5}},
            "POST",
        )
        _wait_runs(base, count + 1, 900)
        assert _check(scenario, full_env) == before
        local = [  # the batch folders are on S3: no Parquet on a worker's disk but its packed environment's
            p
            for n in (1, 2)
            for p in cluster.worker_dirs(n)[0].rglob("*.parquet")
            if "environment" not in p.parts
        ]
        assert not local, f"batch state on a worker's local disk: {local[:3]}"
    finally:
        cluster.down(purge=True, progress=lambda _: None)
