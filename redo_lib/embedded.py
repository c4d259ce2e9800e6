"""The embedded default, run for real: local S3 (moto_server), Airflow on SQLite, Spark local.

Used by the demo (``./redotrail demo``) and the end-to-end test: one ``Embedded`` holds a data
folder (Airflow home, log catalog, batch folders, warehouse), the environment every Airflow and
Spark process gets, and the few Airflow CLI calls a user would type (``airflow dags test`` runs a
DAG in-process: no scheduler or api-server to start and stop).

Layer "top".
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from redo_lib.errors import RedoError

REPO = Path(__file__).resolve().parents[1]


class EmbeddedRunError(RedoError):
    """An Airflow command of the embedded run failed (its output is in the log file named)."""

    kind = "embedded_run"


@dataclass
class Embedded:
    """The embedded default under ``root``, talking to the S3 endpoint ``s3_url``."""

    root: Path
    s3_url: str
    archive_url: str = "s3://redo-archive/archive/"
    dictionary: str | None = None
    table_format: str = "iceberg"
    max_logs_per_batch: int = 8
    log: list[str] = field(default_factory=list)

    def env(self) -> dict[str, str]:
        venv_bin = str(Path(sys.executable).parent)
        env = dict(os.environ)
        env.update(
            PATH=f"{venv_bin}:{env.get('PATH', '')}",
            SPARK_LOCAL_IP="127.0.0.1",
            PYSPARK_PYTHON=sys.executable,
            TZ="UTC",
            GX_ANALYTICS_ENABLED="false",
            AWS_ENDPOINT_URL=self.s3_url,
            AWS_ACCESS_KEY_ID="redotrail",
            AWS_SECRET_ACCESS_KEY="redotrail",
            AWS_DEFAULT_REGION="us-east-1",
            AIRFLOW_HOME=str(self.root / "airflow"),
            AIRFLOW__CORE__LOAD_EXAMPLES="False",
            AIRFLOW__CORE__DAGS_FOLDER=str(REPO / "dags"),
            AIRFLOW__CORE__PARALLELISM="4",
            AIRFLOW__CORE__DAGS_ARE_PAUSED_AT_CREATION="False",
            AIRFLOW__LOGGING__LOGGING_LEVEL="WARNING",
            AIRFLOW_CONN_SPARK_DEFAULT=json.dumps({"conn_type": "spark", "host": "local[*]"}),
            REDOTRAIL_DATA_DIR=str(self.root),
            REDOTRAIL_ARCHIVE_URL=self.archive_url,
            REDOTRAIL_TABLE_FORMAT=self.table_format,
            REDOTRAIL_MAX_LOGS_PER_BATCH=str(self.max_logs_per_batch),
        )
        if self.dictionary:
            env["REDOTRAIL_DICTIONARY"] = self.dictionary
        return env

    def airflow(self, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
        """Run one ``airflow`` CLI command; its output goes to ``<root>/logs/<n>-<command>.log``."""
        logs = self.root / "logs"
        logs.mkdir(parents=True, exist_ok=True)
        name = f"{len(self.log):02d}-{'-'.join(a for a in args[:3] if not a.startswith('{'))}".replace(
            "/", "_"
        )
        path = logs / f"{name}.log"
        started = time.monotonic()
        proc = subprocess.run(
            [str(Path(sys.executable).with_name("airflow")), *args],
            env=self.env(),
            cwd=REPO,
            text=True,
            capture_output=True,
            stdin=subprocess.DEVNULL,
        )
        path.write_text(proc.stdout + "\n--- stderr ---\n" + proc.stderr)
        self.log.append(
            f"airflow {' '.join(args)}: exit {proc.returncode} in {time.monotonic() - started:.0f} s ({path})"
        )
        if check and proc.returncode != 0:
            tail = "\n".join((proc.stdout + proc.stderr).splitlines()[-25:])
            raise EmbeddedRunError(
                f"`airflow {' '.join(args)}` failed (exit {proc.returncode}); log {path}\n{tail}"
            )
        return proc

    def init(self) -> None:
        (self.root / "airflow").mkdir(parents=True, exist_ok=True)
        self.airflow("db", "migrate")

    def discover(self) -> subprocess.CompletedProcess[str]:
        """One run of the discovery DAG (registers new logs, plans batches, writes manifests)."""
        return self.airflow("dags", "test", "redo_archive_discovery", check=False)

    def run_batch(self, batch_id: str, *, check: bool = True) -> subprocess.CompletedProcess[str]:
        return self.airflow(
            "dags", "test", "redo_pipeline", "-c", json.dumps({"batch_id": batch_id}), check=check
        )

    def backfill(
        self, seq_from: int, seq_to: int, threads: list[int] | None = None
    ) -> subprocess.CompletedProcess[str]:
        conf: dict[str, Any] = {"seq_from": seq_from, "seq_to": seq_to}
        if threads:
            conf["threads"] = threads
        return self.airflow("dags", "test", "redo_pipeline", "-c", json.dumps(conf), check=False)

    def catalog(self) -> Any:
        from redo_lib.storage.catalog import LogCatalog

        return LogCatalog(str(self.root / "catalog" / "logs.sqlite"))

    def table(self, name: str) -> Any:
        """A published Iceberg table of the embedded warehouse (``changelog``, or a mirror named as
        ``spark_jobs.tables.table_name`` names it), read whole with pyiceberg as an Arrow table."""
        from pyiceberg.catalog import load_catalog

        warehouse = self.root / "warehouse"
        catalog = load_catalog(
            "redotrail", type="sql", uri=f"sqlite:///{warehouse}/catalog.db", warehouse=f"file://{warehouse}"
        )
        return catalog.load_table(("redotrail", name)).scan().to_arrow()

    def table_rows(self, name: str) -> list[dict[str, Any]]:
        """Every row of a published table (``table``) as dicts."""
        rows: list[dict[str, Any]] = self.table(name).to_pylist()
        return rows

    def batch_dir(self, batch_id: str) -> Path:
        return self.root / "work" / "batches" / batch_id

    def planned(self) -> list[str]:
        """Batches the discovery planned and the pipeline has not published, in plan order."""
        from redo_lib.storage.catalog import BatchStatus

        return [b.batch_id for b in self.catalog().batches() if b.status is not BatchStatus.PUBLISHED]
