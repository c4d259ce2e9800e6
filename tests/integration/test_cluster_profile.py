"""The cluster profile comes up on this machine and works as separate processes that share no disk:
``redo_lib.cluster`` (``./redotrail cluster up``) starts PostgreSQL, moto_server, a standalone Spark
master with two workers and Airflow's scheduler, dag-processor and api-server on PostgreSQL.

Checked: both workers registered, each with its own work dir; a job submitted to the master with
``spark-submit`` runs Python on the executors and writes and reads S3 through s3a; the Airflow REST
API lists the DAGs the dag-processor parsed, and a DAG unpaused through it is unpaused; ``down``
leaves no process behind.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from redo_lib.cluster import Cluster

pytestmark = [pytest.mark.integration, pytest.mark.timeout(900)]

JOB = """
import sys
from pyspark.sql import SparkSession
spark = SparkSession.builder.appName("cluster-smoke").getOrCreate()
out = sys.argv[1]
rows = spark.sparkContext.parallelize(range(100), 4).map(lambda x: (x, x * x)).toDF(["x", "sq"])
rows.write.mode("overwrite").parquet(out)
print("SUM", spark.read.parquet(out).groupBy().sum("sq").first()[0])
"""


def _api(base: str, path: str, body: dict[str, Any] | None = None, method: str = "GET") -> Any:
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(base + path, data=data, method=method,
                                     headers={"Content-Type": "application/json"})  # fmt: skip
    with urllib.request.urlopen(request, timeout=30) as response:
        return json.load(response)


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Any:
    profile = Cluster(tmp_path_factory.mktemp("cluster"))
    profile.up(progress=lambda _: None)
    try:
        yield profile
    finally:
        profile.down(purge=True, progress=lambda _: None)
        assert not profile.running()
        assert not profile.pg_home.exists() and not profile.root.exists()


def test_spark_jobs_run_on_two_workers_with_their_own_disks_and_reach_s3(
    cluster: Cluster, tmp_path: Path
) -> None:
    env = {**os.environ, **cluster.env()}
    script = tmp_path / "job.py"
    script.write_text(JOB)
    master = json.loads(env["AIRFLOW_CONN_SPARK_DEFAULT"])["host"]
    done = subprocess.run(
        [str(Path(sys.executable).with_name("spark-submit")), "--master", master,
         "--conf", f"spark.hadoop.fs.s3a.endpoint={env['AWS_ENDPOINT_URL']}",
         "--conf", "spark.hadoop.fs.s3a.path.style.access=true",
         "--conf", "spark.hadoop.fs.s3a.connection.ssl.enabled=false",
         str(script), "s3a://redotrail/smoke/squares"],
        env=env, capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    assert "SUM 328350" in done.stdout
    ui = json.load(urllib.request.urlopen(f"http://127.0.0.1:{cluster.ports['spark_ui']}/json/", timeout=10))
    assert sum(1 for w in ui["workers"] if w["state"] == "ALIVE") == 2
    used = [d for n in (1, 2) for d in (cluster.root / f"worker{n}" / "work").iterdir()]
    assert len(used) == 2, used  # each worker ran executors of the application in its own work dir


PACKED_JOB = """
import sys
from spark_jobs.common import build_session
spark = build_session("cluster-packed-env")

def where(_):
    import redo_lib.format.header  # the library, from the packed environment
    return sys.executable + " " + redo_lib.format.header.__file__

print("EXECUTORS", sorted(set(spark.sparkContext.parallelize(range(8), 4).map(where).collect())))
"""


def test_executors_run_the_packed_environment_shipped_with_the_job(cluster: Cluster, tmp_path: Path) -> None:
    """``./redotrail pack`` builds the executors' environment; build_session ships it to a cluster
    master as spark.archives, and the executors import redo_lib from it, not from the driver's venv."""
    repo = Path(__file__).resolve().parents[2]
    packed = subprocess.run(
        ["bash", str(repo / "redotrail"), "pack"], capture_output=True, text=True, check=False
    )
    assert packed.returncode == 0, packed.stderr[-2000:]
    script = tmp_path / "packed.py"
    script.write_text(PACKED_JOB)
    env = {**os.environ, **cluster.env(), "PYTHONPATH": str(repo)}
    master = json.loads(env["AIRFLOW_CONN_SPARK_DEFAULT"])["host"]
    done = subprocess.run(
        [str(Path(sys.executable).with_name("spark-submit")), "--master", master, str(script)],
        env=env, capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    line = next(x for x in done.stdout.splitlines() if x.startswith("EXECUTORS"))
    assert (
        "/environment/bin/python" in line and "/environment/lib/python3.11/site-packages/redo_lib" in line
    ), line
    assert str(repo / ".venv") not in line


def test_airflow_services_serve_the_dags_through_the_rest_api(cluster: Cluster) -> None:
    base = cluster.env()["AIRFLOW__API__BASE_URL"] + "/api/v2"
    import time

    deadline = time.monotonic() + 120
    dags: list[str] = []
    while time.monotonic() < deadline:  # the dag-processor parses the folder after start
        dags = sorted(d["dag_id"] for d in _api(base, "/dags")["dags"])
        if len(dags) == 2:
            break
        time.sleep(2)
    assert dags == ["redo_archive_discovery", "redo_pipeline"]
    assert _api(base, "/dags/redo_pipeline", {"is_paused": False}, "PATCH")["is_paused"] is False
    assert _api(base, "/monitor/health")["scheduler"]["status"] == "healthy"
