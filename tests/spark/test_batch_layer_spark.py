"""A few cases of the randomized batch-layer test (tests/integration/test_batch_layer_random.py) with
the real Spark stages: decode, assemble, validate (Great Expectations) and publish (pyiceberg on a
SQLite catalog) read the archived logs from the S3 endpoint and write the batch folders and tables;
the same checks run on the tables read back with pyiceberg after every step.

Kills: the decode kill leaves a batch whose stages after decode never ran (retried later);
the publish kills are the in-memory cases' subject (here a killed publish would need a SIGKILL of
the driver, which tests/spark/test_publish.py covers).
"""

from __future__ import annotations

import datetime as dt
import json
import os
import sys
from collections.abc import Iterator
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from redo_lib.trail.types import typed_row
from spark_jobs import assemble, decode, publish, validate
from spark_jobs.tables import table_name
from tests.integration.test_batch_layer_random import (
    Case,
    Killed,
    Tables,
    Workload,
    make_workload,
    run_case,
)

pytest_plugins = ["tests.fixtures.s3"]
pytestmark = pytest.mark.spark
SEEDS = [3, pytest.param(8, marks=pytest.mark.slow)]  # one seed by default (a minute each)


@pytest.fixture(scope="module")
def workload(tmp_path_factory: pytest.TempPathFactory) -> Workload:
    return make_workload(tmp_path_factory)


@pytest.fixture(scope="module")
def spark_s3(s3_endpoint: str) -> Iterator[Any]:
    """A Spark session whose Python workers reach the S3 endpoint (executor environment)."""
    os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    os.environ.setdefault("TZ", "UTC")
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    from pyspark.sql import SparkSession

    from spark_jobs.common import spark_defaults

    builder = SparkSession.builder.appName("redotrail-tests-s3").master("local[2]")
    for key, value in {**spark_defaults(), "spark.sql.shuffle.partitions": "2"}.items():
        builder = builder.config(key, value)
    for name in ("AWS_ENDPOINT_URL", "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_DEFAULT_REGION"):
        builder = builder.config(f"spark.executorEnv.{name}", os.environ[name])
    session = builder.getOrCreate()
    session.sparkContext.setLogLevel("ERROR")
    try:
        yield session
    finally:
        session.stop()


class SparkTables(Tables):
    """The published Iceberg tables, read back with pyiceberg (no Redotrail code)."""

    def __init__(self, warehouse: Path) -> None:
        super().__init__()
        self.warehouse = warehouse

    def _rows(self, name: str) -> list[dict[str, Any]]:
        from pyiceberg.catalog.sql import SqlCatalog
        from pyiceberg.exceptions import NoSuchTableError

        if not (self.warehouse / "catalog.db").exists():
            return []
        catalog = SqlCatalog(
            "redotrail", uri=f"sqlite:///{self.warehouse}/catalog.db", warehouse=f"file://{self.warehouse}"
        )
        try:
            rows: list[dict[str, Any]] = catalog.load_table(f"redotrail.{name}").scan().to_arrow().to_pylist()
        except NoSuchTableError:
            return []
        return rows

    @property  # type: ignore[override]
    def changelog(self) -> list[dict[str, Any]]:
        return self._rows("changelog")

    @changelog.setter
    def changelog(self, value: list[dict[str, Any]]) -> None:
        pass  # written by the publish stage

    def _schema(self, name: str) -> Any:
        """A mirror's Arrow schema (None: no such table)."""
        from pyiceberg.catalog.sql import SqlCatalog
        from pyiceberg.exceptions import NoSuchTableError

        if not (self.warehouse / "catalog.db").exists():
            return None
        catalog = SqlCatalog(
            "redotrail", uri=f"sqlite:///{self.warehouse}/catalog.db", warehouse=f"file://{self.warehouse}"
        )
        try:
            return catalog.load_table(f"redotrail.{name}").schema().as_arrow()
        except NoSuchTableError:
            return None

    def _key_columns(self) -> dict[str, list[str]]:
        return {f"{r['owner']}.{r['table']}": list(r["key_columns"]) for r in self._rows("changelog")}

    def mirrors_view(self) -> dict[str, dict[str, dict[str, Any]]]:
        """Each mirror's rows by key, their typed values as comparable text (``_canonical``)."""
        views = {}
        for source, key_columns in self._key_columns().items():
            rows = [{k: _canonical(v) for k, v in r.items()} for r in self._rows(table_name(source))]
            held = {
                json.dumps([r.get(k) for k in key_columns], separators=(",", ":")): {
                    k: v for k, v in r.items() if not k.startswith("_") and v is not None
                }
                for r in rows
            }
            if held:
                views[source] = held
        return views

    def expected_view(
        self, state: dict[str, dict[str, dict[str, Any]]]
    ) -> dict[str, dict[str, dict[str, Any]]]:
        """The expected state (the trail's text) as the typed mirrors hold it (``types.typed_row``:
        a value the column's type cannot hold is NULL), as comparable text keyed like
        ``mirrors_view``."""
        key_columns = self._key_columns()
        out = {}
        for source, rows in state.items():
            schema = self._schema(table_name(source))
            if source not in key_columns or not rows or schema is None:
                out[source] = rows  # no mirror to compare with: the text, which then differs
                continue
            typed = [{k: _canonical(v) for k, v in typed_row(r, schema).items()} for r in rows.values()]
            out[source] = {
                json.dumps([r.get(k) for k in key_columns[source]], separators=(",", ":")): r for r in typed
            }
        return out


def _canonical(value: Any) -> Any:
    """A typed value as text two equal values share (NaN included): decimals without trailing zeros,
    floats by repr, timestamps in ISO form, bytes in hex."""
    if isinstance(value, Decimal):
        return format(value.normalize(), "f") if value else "0"
    if isinstance(value, float):
        return repr(value)
    if isinstance(value, dt.datetime):
        return value.astimezone(dt.UTC).isoformat() if value.tzinfo else value.isoformat()
    if isinstance(value, bytes):
        return value.hex().upper()
    return value


class SparkCase(Case):
    spark: Any = None

    def stage_decode(self, batch_id: str, folder: Path, kill: str | None) -> None:
        args = ["--batch-dir", str(folder)]
        assert decode.main(args, spark=self.spark) == 0
        assert assemble.main(args, spark=self.spark) == 0
        if kill == "decode":
            raise Killed("decode")

    def stage_validate(self, batch_id: str, folder: Path, kill: str | None) -> None:
        assert validate.main(["--batch-dir", str(folder)], spark=self.spark) == 0

    def stage_publish(self, batch_id: str, folder: Path, kill: str | None) -> None:
        warehouse = self.tables.warehouse  # type: ignore[attr-defined]
        code = publish.main(
            ["--batch-dir", str(folder), "--warehouse", f"file://{warehouse}"], spark=self.spark
        )
        if code == publish.EXIT_REFUSED:
            self.log.append(f"publish {batch_id}: refused")
            return
        assert code == 0
        manifest = json.loads((folder / "manifest.json").read_text())
        self.tables.logs |= {f"{e['thread']}_{e['sequence']}_{e['resetlogs_id']}" for e in manifest["logs"]}


@pytest.mark.parametrize("seed", SEEDS)
def test_random_batch_layer_on_spark(
    seed: int,
    workload: Workload,
    s3_endpoint: str,
    spark_s3: Any,
    tmp_path: Path,
) -> None:
    SparkCase.spark = spark_s3

    def make(*args: Any, **kwargs: Any) -> Case:
        case = SparkCase(*args, **kwargs)
        case.tables = SparkTables(tmp_path / "warehouse")
        case.kills = ("decode",)
        return case

    case = run_case(seed, workload, tmp_path, steps=10, make=make)
    assert case.tables.changelog
