"""publish.py on real Spark writing the tables itself (Iceberg through a JDBC catalog on SQLite, Delta
by path), read back by other engines (pyiceberg on the same catalog file, delta-rs): the scenario's
two batches give mirror tables equal to the final state worked out by hand below, and a changelog
holding exactly the trail; publishing is in order, exactly once, and survives a crash.

The batches carry a VALIDATED marker written here: publish's contract is the marker (validation of
the same batches is test_validate.py's subject).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest

from redo_lib.trail.schema import from_row
from spark_jobs import mirror, publish
from spark_jobs.common import EXIT_FAILED
from spark_jobs.tables import DeltaStore
from tests.spark.scenario import Batch, batch_one, batch_two, records, write_batch

pytest_plugins = ["tests.fixtures.spark"]
pytestmark = pytest.mark.spark

REPO = Path(__file__).resolve().parents[2]
SMALL_DATA = {
    "spark.sql.shuffle.partitions": "1",
    "spark.sql.adaptive.enabled": "false",
    "spark.sql.codegen.wholeStage": "false",
}
MIRRORS = {"US03.STUDENT": "us03__student", "US03.COURSE": "us03__course"}
KEYS = {"US03.STUDENT": ("STUDENT_KEY",), "US03.COURSE": ("COURSE_ID", "TERM")}

# The scenario applied by hand (tests/spark/scenario.py): key -> (columns, _commit_scn, _batch_id).
AFTER_ONE = {
    "US03.STUDENT": {
        ("1010",): (
            {"STUDENT_KEY": "1010", "SURNAME": "SMITH", "TUITION_FEE": "7000"},
            1005,
            "b-000001-000001",
        ),
        ("1012",): (
            {"STUDENT_KEY": "1012", "SURNAME": "BROWN", "TUITION_FEE": "5000"},
            1010,
            "b-000001-000001",
        ),
    },
    "US03.COURSE": {
        ("C1", "2024"): ({"COURSE_ID": "C1", "TERM": "2024", "TITLE": "Redo 102"}, 1011, "b-000001-000001"),
    },
}
AFTER_TWO = {
    "US03.STUDENT": {
        # 1010 -> 2010 (surname) -> fee 7500 -> 3010: the fee 7000 of batch 1 was replaced, the
        # surname kept from the key update, the row read back from the mirror for the merge
        ("3010",): (
            {"STUDENT_KEY": "3010", "SURNAME": "SMYTHE", "TUITION_FEE": "7500"},
            2003,
            "b-000002-000002",
        ),
        ("1011",): ({"STUDENT_KEY": "1011", "SURNAME": "JONES", "TUITION_FEE": "1"}, 2001, "b-000002-000002"),
        ("1012",): ({"STUDENT_KEY": "1012", "SURNAME": None, "TUITION_FEE": "5000"}, 2001, "b-000002-000002"),
    },
    "US03.COURSE": {
        ("C2", "2025"): ({"COURSE_ID": "C2", "TERM": "2025", "TITLE": "Logs II"}, 2002, "b-000002-000002"),
    },
}


@pytest.fixture(scope="module")
def session(spark: Any) -> Any:
    for key, value in SMALL_DATA.items():
        spark.conf.set(key, value)
    return spark


class Tables:
    """Reads the published tables back, independently of spark_jobs.tables."""

    def __init__(self, fmt: str, warehouse: Path) -> None:
        self.fmt, self.warehouse = fmt, warehouse

    def _arrow(self, name: str) -> Any:
        if self.fmt == "delta":
            from deltalake import DeltaTable

            path = self.warehouse / "redotrail" / name
            return DeltaTable(str(path)).to_pyarrow_table() if (path / "_delta_log").is_dir() else None
        from pyiceberg.catalog.sql import SqlCatalog
        from pyiceberg.exceptions import NoSuchTableError

        catalog = SqlCatalog(
            "redotrail", uri=f"sqlite:///{self.warehouse}/catalog.db", warehouse=f"file://{self.warehouse}"
        )
        try:
            return catalog.load_table(f"redotrail.{name}").scan().to_arrow()
        except NoSuchTableError:
            return None

    def mirror(self, source: str) -> dict[tuple[str | None, ...], tuple[dict[str, Any], int, str]]:
        table = self._arrow(MIRRORS[source])
        out = {}
        for row in table.to_pylist() if table is not None else []:
            meta = (row.pop("_commit_scn"), row.pop("_batch_id"))
            assert len(row.pop("_rowid")) == 18
            out[tuple(row[k] for k in KEYS[source])] = (row, *meta)
        return out

    def changelog(self) -> dict[str, list[Any]]:
        """Batch id -> its records in trail_seq order; each batch's trail_seq runs 0..n-1 once."""
        table = self._arrow("changelog")
        rows = sorted(
            table.to_pylist() if table is not None else [], key=lambda r: (r["batch_id"], r["trail_seq"])
        )
        out: dict[str, list[Any]] = {}
        for r in rows:
            batch_id, seq = r.pop("batch_id"), r.pop("trail_seq")
            r.pop("commit_date", None)  # Delta's partition column
            assert seq == len(out.setdefault(batch_id, []))
            out[batch_id].append(from_row(r))
        return out

    def versions(self) -> dict[str, Any]:
        if self.fmt == "delta":
            from deltalake import DeltaTable

            folder = self.warehouse / "redotrail"
            return {p.name: DeltaTable(str(p)).version() for p in sorted(folder.glob("*")) if p.is_dir()}
        from pyiceberg.catalog.sql import SqlCatalog

        catalog = SqlCatalog(
            "redotrail", uri=f"sqlite:///{self.warehouse}/catalog.db", warehouse=f"file://{self.warehouse}"
        )
        out = {}
        for ident in catalog.list_tables("redotrail"):
            snapshot = catalog.load_table(ident).current_snapshot()
            out[ident[-1]] = snapshot.snapshot_id if snapshot else None
        return out


def _validated(root: Path, batch: Batch) -> Path:
    folder = write_batch(root, batch)
    (folder / "VALIDATED").write_text(json.dumps({"batch_id": batch.batch_id}))
    return folder


def _publish(session: Any, folder: Path, fmt: str, warehouse: Path) -> int:
    argv = ["--batch-dir", str(folder), "--warehouse", f"file://{warehouse}", "--format", fmt]
    return publish.main(argv, spark=session)


def _sigkill(point: str) -> Any:
    def interrupt(session: Any, folder: Path, fmt: str, warehouse: Path) -> None:
        _sigkill_at(point, folder, fmt, warehouse)

    return interrupt


def _sigkill_at(point: str, folder: Path, fmt: str, warehouse: Path) -> None:
    """``spark-submit spark_jobs/publish.py`` (the stage's command line), SIGKILLed by its fault hook:
    ``publish-staged`` after the fold, before any table commit; ``publish-changelog`` after the
    changelog's commit, before the mirrors'."""
    confs = [arg for key, value in SMALL_DATA.items() for arg in ("--conf", f"{key}={value}")]
    argv = [str(Path(sys.executable).with_name("spark-submit")), "--master", "local[2]", *confs,
            str(REPO / "spark_jobs" / "publish.py"), "--batch-dir", str(folder),
            "--warehouse", f"file://{warehouse}", "--format", fmt]  # fmt: skip
    env = {**os.environ, "REDOTRAIL_FAULT": point, "PYSPARK_PYTHON": sys.executable}
    done = subprocess.run(argv, env=env, cwd=REPO, capture_output=True, text=True, timeout=600)
    # spark-submit reports its Python driver's death by SIGKILL as exit status 128 + 9
    assert done.returncode == 128 + signal.SIGKILL, done.stderr[-3000:]
    assert "tables at" not in done.stdout


def _crash_after_first_commit(session: Any, folder: Path, fmt: str, warehouse: Path) -> None:
    """In process: the changelog commits, then the first mirror commit raises. The stage exits 1
    (retryable) and its failure.json says what it had published."""
    real = DeltaStore.commit_mirror

    def crash(self: DeltaStore, *args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("crash before the mirror commit")

    DeltaStore.commit_mirror = crash  # type: ignore[method-assign]
    try:
        assert _publish(session, folder, fmt, warehouse) == EXIT_FAILED
    finally:
        DeltaStore.commit_mirror = real  # type: ignore[method-assign]
    failure = json.loads((folder / "report" / "failure.json").read_text())
    assert (failure["stage"], failure["kind"], failure["retryable"]) == ("publish", "RuntimeError", True)
    assert failure["message"] == "crash before the mirror commit"
    assert failure["published"] == ["changelog"]


@pytest.mark.parametrize(
    ("fmt", "interrupt", "committed_by_crash"),
    [
        pytest.param("iceberg", _sigkill("publish-staged"), set(), id="iceberg-sigkill-before-commits"),
        pytest.param(
            "iceberg", _sigkill("publish-changelog"), {"changelog"}, id="iceberg-sigkill-between-commits"
        ),
        pytest.param(
            "delta", _crash_after_first_commit, {"changelog"}, id="delta-crash-after-changelog-commit"
        ),
    ],
)
def test_two_batches_publish_in_order_exactly_once_and_survive_a_crash(
    session: Any, tmp_path: Path, fmt: str, interrupt: Any, committed_by_crash: set[str]
) -> None:
    one, two = batch_one(), batch_two()
    first, second = _validated(tmp_path / "batches", one), _validated(tmp_path / "batches", two)
    warehouse = tmp_path / "warehouse"
    tables = Tables(fmt, warehouse)

    # batch 2 is refused while batch 1 is unpublished
    assert _publish(session, second, fmt, warehouse) == publish.EXIT_REFUSED
    assert not warehouse.exists()

    # batch 1: mirrors as worked out by hand; the changelog holds exactly its trail
    assert _publish(session, first, fmt, warehouse) == 0
    assert {s: tables.mirror(s) for s in MIRRORS} == AFTER_ONE
    assert tables.changelog() == {one.batch_id: records(one.txns)}
    published = json.loads((first / "PUBLISHED").read_text())
    after_one = tables.versions()
    assert {k: v.get("snapshot_id", v.get("version")) for k, v in published["tables"].items()} == after_one

    # publishing it again changes nothing, with or without its PUBLISHED marker
    assert _publish(session, first, fmt, warehouse) == 0
    (first / "PUBLISHED").unlink()
    assert _publish(session, first, fmt, warehouse) == 0
    assert tables.versions() == after_one and json.loads((first / "PUBLISHED").read_text()) == published

    # batch 2, interrupted: the tables not yet committed are as they were, nothing is marked
    interrupt(session, second, fmt, warehouse)
    changed = {name for name, version in tables.versions().items() if after_one[name] != version}
    assert changed == committed_by_crash and not (second / "PUBLISHED").exists()
    assert {s: tables.mirror(s) for s in MIRRORS} == AFTER_ONE
    if "changelog" in committed_by_crash:  # committed whole: the batch's trail, the logs replaced
        assert tables.changelog() == {one.batch_id: records(one.txns), two.batch_id: records(two.txns)}
    else:
        assert tables.changelog() == {one.batch_id: records(one.txns)}

    # the rerun completes: final state, each batch's trail once in the changelog, no staged leftovers
    assert _publish(session, second, fmt, warehouse) == 0
    assert {s: tables.mirror(s) for s in MIRRORS} == AFTER_TWO
    assert tables.changelog() == {one.batch_id: records(one.txns), two.batch_id: records(two.txns)}
    assert not (second / "publish").exists()  # no scratch folder: Spark writes the tables itself
    after_two = tables.versions()
    assert all(after_two[name] != after_one[name] for name in after_two)
    assert _publish(session, second, fmt, warehouse) == 0 and tables.versions() == after_two


# -- the fold alone (pure Python over Arrow, what each executor group runs) ------------------------------


def _change(
    seq: int, op: str, key: str, image: dict[str, str | None], old: str | None = None
) -> dict[str, Any]:
    pairs = [{"name": n, "value": v} for n, v in image.items()]
    return {"source_table": "S.T", "key": json.dumps([key]), "old_key": json.dumps([old]) if old else None,
            "op": op, "trail_seq": seq, "columns": pairs, "before": [{"name": "K", "value": old}] if old else [],
            "key_columns": ["K"], "rowid": "AAAAAAAAAAAAAAAAAA", "commit_scn": 100 + seq, "batch_id": "b"}  # fmt: skip


@pytest.mark.parametrize(
    ("changes", "expected"),
    [
        pytest.param(
            [_change(-1, "EXISTING", "1", {"K": "1", "A": "x", "B": "b"}),
             _change(0, "PK_UPDATE", "2", {"K": "2", "A": "y"}, old="1"),
             _change(1, "PK_UPDATE", "1", {"K": "1"}, old="2")],
            {'["1"]': ("U", {"K": "1", "A": "y", "B": "b"}, False), '["2"]': ("D", {"K": "2"}, False)},
            id="key-changed-and-back-keeps-the-merged-row",
        ),
        pytest.param(
            [_change(0, "UPDATE", "5", {"K": "5", "A": "z"})],
            {'["5"]': ("U", {"K": "5", "A": "z"}, True)},
            id="update-without-a-row-is-partial",
        ),
        pytest.param(
            [_change(-1, "EXISTING", "7", {"K": "7", "A": "old"}), _change(0, "DELETE", "7", {"K": "7"}),
             _change(1, "INSERT", "7", {"K": "7", "A": "new"}), _change(2, "UPDATE", "7", {"K": "7", "A": None})],
            {'["7"]': ("U", {"K": "7", "A": None}, False)},
            id="delete-insert-update-ends-with-null-not-absent",
        ),
    ],
)  # fmt: skip
def test_the_fold_applies_a_group_of_changes_in_trail_order(
    changes: list[dict[str, Any]], expected: dict[str, Any]
) -> None:
    schema = pa.schema(
        [("source_table", pa.string()), ("key", pa.string()), ("old_key", pa.string()), ("op", pa.string()),
         ("trail_seq", pa.int64()), ("columns", pa.list_(pa.struct([("name", pa.string()), ("value", pa.string())]))),
         ("before", pa.list_(pa.struct([("name", pa.string()), ("value", pa.string())]))),
         ("key_columns", pa.list_(pa.string())), ("rowid", pa.string()), ("commit_scn", pa.int64()),
         ("batch_id", pa.string())]
    )  # fmt: skip
    table = pa.Table.from_pylist(list(reversed(changes)), schema=schema)  # order comes from trail_seq
    out = mirror.fold_group(table).to_pylist()
    got = {
        r["key"]: (r["op"], {p["name"]: p["value"] for p in (r["columns"] if r["op"] == "U" else r["key_values"])},
                   r["partial"])
        for r in out
    }  # fmt: skip
    assert got == expected


_CHANGES = (
    "source_table string, key string, old_key string, op string, trail_seq bigint, "
    "columns array<struct<name:string,value:string>>, before array<struct<name:string,value:string>>, "
    "key_columns array<string>, rowid string, commit_scn bigint, batch_id string"
)


def _by_rowid(seq: int, op: str, rowid: str, columns: dict[str, Any], key: list[str] | None = None,
              before: dict[str, Any] | None = None) -> tuple[Any, ...]:  # fmt: skip
    """A change as ``mirror.changes`` gives it: keyed (``key``) or keyed by its ROWID (no key)."""
    pairs = list(columns.items())
    return ("T", json.dumps(key, separators=(",", ":")) if key else "[]", None, op, seq, pairs, list((before or {}).items()),
            ["R", "N"] if key else [], rowid, 100 + seq, "b")  # fmt: skip


def test_updates_keyed_by_rowid_find_their_rows_key_or_are_counted(spark: Any) -> None:
    """``mirror.by_rowid``: an update keyed by its ROWID takes the key of the row at that ROWID, from
    the mirror (a row written before), from an insert before it in the batch, or from a key update
    keyed by ROWID before it (its held key column over the key it found); one whose row was deleted
    before it or is unknown is left out, counted, its ROWID named."""
    changed = spark.createDataFrame(
        [
            _by_rowid(1, "INSERT", "AAAAAAAAAAAAAAAAAB", {"R": "EU", "N": "2", "X": "a"}, key=["EU", "2"]),
            _by_rowid(2, "UPDATE", "AAAAAAAAAAAAAAAAAB", {"X": "b"}),  # the insert's row
            _by_rowid(3, "UPDATE", "AAAAAAAAAAAAAAAAAA", {"X": "c"}),  # the mirror's row
            _by_rowid(4, "PK_UPDATE", "AAAAAAAAAAAAAAAAAA", {"R": "US"}, before={"R": "EU"}),
            _by_rowid(5, "UPDATE", "AAAAAAAAAAAAAAAAAA", {"X": "d"}),  # after the key update: US, 1
            _by_rowid(6, "DELETE", "AAAAAAAAAAAAAAAAAB", {"R": "EU", "N": "2"}, key=["EU", "2"]),
            _by_rowid(7, "UPDATE", "AAAAAAAAAAAAAAAAAB", {"X": "e"}),  # deleted before: unknown
            _by_rowid(8, "UPDATE", "AAAAAAAAAAAAAAAAAC", {"X": "f"}),  # never seen: unknown
        ],
        _CHANGES,
    )
    held = spark.createDataFrame(
        [("EU", 1, "z", "AAAAAAAAAAAAAAAAAA")], "R string, N bigint, X string, _rowid string"
    )
    out, report = mirror.by_rowid(changed, {"T": ["R", "N"]}, {"T": held})
    got = {r["trail_seq"]: (r["key"], r["old_key"], list(r["key_columns"])) for r in out.collect()}
    assert got == {
        1: ('["EU","2"]', None, ["R", "N"]),
        2: ('["EU","2"]', None, ["R", "N"]),
        3: ('["EU","1"]', None, ["R", "N"]),
        4: ('["US","1"]', '["EU","1"]', ["R", "N"]),
        5: ('["US","1"]', None, ["R", "N"]),
        6: ('["EU","2"]', None, ["R", "N"]),
    }
    assert (dict(report.resolved), dict(report.unresolved)) == ({"T": 4}, {"T": 2})
    assert report.of("T") == {"resolved": 4, "unresolved": 2,
                              "examples": ["AAAAAAAAAAAAAAAAAB", "AAAAAAAAAAAAAAAAAC"]}  # fmt: skip
    folded = {r["key"]: r for r in mirror.fold(out, [mirror.existing_rows(
        held, "T", ["R", "N"], mirror.affected_keys(out, "T", ["R", "N"]))]).collect()}  # fmt: skip
    assert {k: (r["op"], {p["name"]: p["value"] for p in (r["columns"] or r["key_values"])}) for k, r in folded.items()} == {
        '["EU","1"]': ("D", {"R": "EU", "N": "1"}),
        '["US","1"]': ("U", {"R": "US", "N": "1", "X": "d"}),
        '["EU","2"]': ("D", {"R": "EU", "N": "2"}),
    }  # fmt: skip
