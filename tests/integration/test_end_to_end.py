"""End to end, as a user runs it: generated archived logs on a real S3 endpoint (moto_server over
HTTP), the Airflow DAGs run with ``airflow dags test``, Spark local, Great Expectations, Iceberg.

The scenario (include/scenarios/long_transaction.yaml) writes five logs; its long transaction
begins in sequence 1 and commits in sequence 5. Expected tables and trail come from the generator's
SQL-level model of the scenario, never from the decoder.

1. Upload sequences 1, 2 and 4 (3 is missing): discovery plans 1-2 only; that batch publishes, its
   open long transaction is carried; the next discovery stops with a gap error naming thread 1
   sequence 3, and nothing past sequence 2 is planned.
2. Upload 3 and 5: only they are processed; the long transaction appears once, whole; every mirror
   table equals the scenario's final state; the changelog holds exactly the expected trail.
3. Backfill sequences 3-5: the tables are identical afterwards.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from redo_lib.embedded import REPO, Embedded
from redo_lib.storage.s3 import s3_client, upload_file
from redo_lib.trail.types import comparable, typed_row

pytest_plugins = ["tests.fixtures.s3"]
pytestmark = [pytest.mark.integration, pytest.mark.airflow, pytest.mark.spark, pytest.mark.timeout(2400)]
SCENARIO = REPO / "include" / "scenarios" / "long_transaction.yaml"


@pytest.fixture(scope="module")
def scenario(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("scenario")
    subprocess.run([sys.executable, "-m", "redo_lib.synth", str(SCENARIO), "--out", str(out)], check=True,
                   capture_output=True)  # fmt: skip
    return out


@pytest.fixture(scope="module")
def embedded(
    s3_endpoint: str, scenario: Path, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Embedded]:
    root = tmp_path_factory.mktemp("embedded")
    s3_client().create_bucket(Bucket="redo-archive")
    e = Embedded(root=root, s3_url=s3_endpoint, dictionary=str(scenario / "dictionary.json"))
    e.init()
    yield e


def _upload(scenario: Path, *sequences: int) -> None:
    for seq in sequences:
        (log,) = (scenario / "logs").glob(f"1_{seq}_*.arc")
        upload_file(log, f"s3://redo-archive/archive/{log.name}")


def _mirror_rows(e: Embedded, source_table: str) -> set[tuple[tuple[str, Any], ...]]:
    from spark_jobs.tables import table_name

    rows = e.table(table_name(source_table)).to_pylist()
    return {tuple(sorted((k, v) for k, v in comparable(r).items() if not k.startswith("_"))) for r in rows}


def _typed_expected(e: Embedded, expected: dict[str, list[dict[str, Any]]]) -> dict[str, set[Any]]:
    """The expected rows as the mirrors' column types hold them (tests/typed_values.py)."""
    from spark_jobs.tables import table_name

    out = {}
    for source_table, rows in expected.items():
        schema = e.table(table_name(source_table)).schema
        out[source_table] = {tuple(sorted(typed_row(r, schema).items())) for r in rows}
    return out


def _changelog(e: Embedded) -> list[dict[str, Any]]:
    return sorted(e.table_rows("changelog"), key=lambda r: (r["batch_id"], r["trail_seq"]))


def _expected_tables(scenario: Path) -> dict[str, list[dict[str, Any]]]:
    tables = {}
    for path in (scenario / "expected" / "tables").glob("*.jsonl"):
        tables[path.stem] = [json.loads(line) for line in path.read_text().splitlines() if line]
    return tables


def test_uploads_gap_and_backfill_end_to_end(embedded: Embedded, scenario: Path) -> None:
    e = embedded
    expected_trail = [
        json.loads(line) for line in (scenario / "expected" / "trail.jsonl").read_text().splitlines()
    ]
    long_xid = "1.0.516"
    assert {r["sequence"] for r in expected_trail if r["xid"] == long_xid} == {1, 2, 3, 4, 5}

    # 1. sequences 1, 2 and 4: a batch up to the gap, then a clear gap error
    _upload(scenario, 1, 2, 4)
    assert e.discover().returncode == 0
    assert e.planned() == ["b-000001-000002"]
    e.run_batch("b-000001-000002")
    first = e.batch_dir("b-000001-000002")
    assert (first / "PUBLISHED").exists()
    counts = json.loads((first / "counts.json").read_text())
    assert counts["transactions"]["open_carried_out"] == 1  # the long transaction, carried
    gap = e.discover()
    assert gap.returncode != 0
    assert "sequence 3 missing" in gap.stdout + gap.stderr
    assert e.planned() == []  # nothing planned past the gap

    # 2. the missing and the next sequence: only they are processed; the long transaction once, whole
    _upload(scenario, 3, 5)
    assert e.discover().returncode == 0
    assert e.planned() == ["b-000003-000005"]
    e.run_batch("b-000003-000005")
    assert json.loads((e.batch_dir("b-000003-000005") / "manifest.json").read_text())["carried_in"]
    changelog = _changelog(e)
    assert [r["xid"] for r in changelog] == [r["xid"] for r in expected_trail]
    assert [r["trans_ind"] for r in changelog if r["xid"] == long_xid] == [0, 1, 1, 1, 2]
    assert {r["batch_id"] for r in changelog if r["xid"] == long_xid} == {"b-000003-000005"}
    for got, want in zip(changelog, expected_trail, strict=True):
        assert {p["name"]: p["value"] for p in got["columns"]} == want["columns"]
        assert (got["op"], got["rowid"], got["commit_scn"]) == (want["op"], want["rowid"], want["commit_scn"])
    expected_tables = _typed_expected(e, _expected_tables(scenario))
    for source_table, rows in expected_tables.items():
        assert _mirror_rows(e, source_table) == rows, source_table

    # 3. backfill of sequences 3-5: identical tables
    backfill = e.backfill(3, 5)
    assert backfill.returncode == 0, backfill.stdout[-2000:] + backfill.stderr[-2000:]
    for source_table, rows in expected_tables.items():
        assert _mirror_rows(e, source_table) == rows, source_table
    assert [r["xid"] for r in _changelog(e)] == [r["xid"] for r in expected_trail]
