"""Tables Spark published are read by other engines with no Redotrail code: pyiceberg on the same
JDBC catalog file (SQLite), and DuckDB's iceberg extension on the table's metadata file (the
extension comes from PyPI, duckdb-ext-iceberg, so nothing is downloaded when the test runs)."""

from __future__ import annotations

import glob
import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from spark_jobs import publish
from tests.spark.scenario import batch_one, records
from tests.spark.test_publish import AFTER_ONE, MIRRORS, SMALL_DATA, Tables, _validated

pytest_plugins = ["tests.fixtures.spark"]
pytestmark = pytest.mark.spark


@pytest.fixture(scope="module")
def published(spark: Any, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Batch one of the hand-written scenario, published to Iceberg by publish.py; the warehouse."""
    for key, value in SMALL_DATA.items():
        spark.conf.set(key, value)
    root = tmp_path_factory.mktemp("readers")
    folder = _validated(root / "batches", batch_one())
    warehouse = root / "warehouse"
    argv = ["--batch-dir", str(folder), "--warehouse", f"file://{warehouse}", "--format", "iceberg"]
    assert publish.main(argv, spark=spark) == 0
    return warehouse


def test_pyiceberg_reads_the_tables_and_the_commit_properties(published: Path) -> None:
    from pyiceberg.catalog.sql import SqlCatalog

    tables = Tables("iceberg", published)
    assert {s: tables.mirror(s) for s in MIRRORS} == AFTER_ONE
    one = batch_one()
    assert tables.changelog() == {one.batch_id: records(one.txns)}
    catalog = SqlCatalog(
        "redotrail", uri=f"sqlite:///{published}/catalog.db", warehouse=f"file://{published}"
    )
    manifest = json.loads((published.parent / "batches" / one.batch_id / "manifest.json").read_text())
    for name in ["changelog", *MIRRORS.values()]:
        table = catalog.load_table(f"redotrail.{name}")
        summary = table.current_snapshot().summary
        assert summary["redotrail.batch_id"] == one.batch_id, name
        assert summary["redotrail.publication"] == manifest.get("publication", one.batch_id), name
    spec = catalog.load_table("redotrail.changelog").spec()
    assert [(f.name, str(f.transform)) for f in spec.fields] == [
        ("owner", "identity"), ("table", "identity"), ("commit_time_day", "day"),
    ]  # fmt: skip


def _duckdb() -> Any:
    duckdb = pytest.importorskip("duckdb")
    extensions = pytest.importorskip("duckdb_ext")
    con = duckdb.connect(config={"autoinstall_known_extensions": False, "autoload_known_extensions": False})
    for name in ("avro", "iceberg"):
        found = [
            p
            for base in extensions.__path__
            for p in glob.glob(f"{base}/extensions/*/*/{name}.duckdb_extension")
        ]
        if not found:
            pytest.skip(f"DuckDB's {name} extension is not installed (duckdb-ext-{name})")
        con.execute(f"LOAD '{found[0]}'")
    return con


def test_duckdb_reads_the_tables_offline(published: Path) -> None:
    con = _duckdb()
    with sqlite3.connect(published / "catalog.db") as db:  # the catalog's own table, as any reader sees it
        locations = dict(
            db.execute(
                "SELECT table_name, metadata_location FROM iceberg_tables WHERE table_namespace = 'redotrail'"
            ).fetchall()
        )
    tables = Tables("iceberg", published)
    for name in ["changelog", *MIRRORS.values()]:
        got = con.execute(f"SELECT * FROM iceberg_scan('{locations[name]}')").fetch_arrow_table()
        want = tables._arrow(name)
        columns = [c for c in want.column_names if c in ("xid", "op", "batch_id", "trail_seq", "commit_scn")
                   or name != "changelog"]  # fmt: skip
        assert sorted(map(str, got.select(columns).to_pylist())) == sorted(
            map(str, want.select(columns).to_pylist())
        )
        assert got.num_rows == want.num_rows > 0
