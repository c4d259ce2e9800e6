"""Partitioned tables through all four Spark stages, batch by batch, in Iceberg and in Delta (issue 33).

The partitions scenario (include/scenarios/partitions.yaml: range, list, hash, interval and
composite tables; interval partitions created by inserts in each of its four logs; ADD, SPLIT,
MERGE and EXCHANGE PARTITION with DML on the new partitions after each; a long transaction open
from the first log to the last) runs one batch per log. Every partition made after the export
resolves from the SYS row changes in the redo: each batch applies some (``dictionary_rows``), none
has an unknown object in scope, and the chain of batches never leaves the generator's export
(no dictionary refresh). The mirrors equal the generator's final tables, but for the EXCHANGE (see
``_cdc_view``); the changelog holds exactly the expected trail.

The partition_drops scenario (TRUNCATE / DROP PARTITION on range, list, interval and composite
tables): the rows of a truncated or dropped partition leave the mirror, as Oracle removed them,
with no row change in the redo (publish's partition cuts, docs/tables.md).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from tests.spark.test_generated_scenario import (
    _assert_final_state,
    _expected_trail,
    _generate,
    _publish_batches,
)

pytest_plugins = ["tests.fixtures.spark"]
pytestmark = pytest.mark.spark


@pytest.fixture(scope="module")
def partitions(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _generate(tmp_path_factory, "partitions")


@pytest.fixture(scope="module")
def partition_drops(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _generate(tmp_path_factory, "partition_drops")


def _rows_at(trail: list[dict[str, Any]], table: str, scn: int) -> dict[tuple[str, ...], dict[str, Any]]:
    """A table's rows (by key) as the expected trail's changes committed below ``scn`` leave them."""
    rows: dict[tuple[str, ...], dict[str, Any]] = {}
    for r in trail:
        if r["table"] != table or r["commit_scn"] >= scn or r["op"] == "DDL":
            continue
        key = tuple(r["columns"][k] for k in r["key_columns"])
        if r["op"] == "DELETE":
            rows.pop(key, None)
        else:
            rows[key] = rows.get(key, {}) | r["columns"]
    return rows


def _cdc_view(scenario: Path, out: Path) -> Path:
    """The expectation a CDC mirror can reach, as a scenario folder for ``_assert_final_state``.

    EXCHANGE PARTITION swaps the segments of a partition and a table: rows change tables with no
    row change in the redo. The generator's final tables are the database's (R_ORDERS holds what
    R_STAGE held, R_STAGE what the partition held); no tool reading the redo can see that move, and
    the pipeline says so (redo_lib/trail/lineage.py: the EXCHANGE is noted in PUBLISHED's
    ``schema_changes`` of the partitioned table, "the rows it removed or swapped in have no row
    changes in the redo, so the mirror does not follow them"). So the mirrors are expected to equal
    the generator's final state minus the rows the EXCHANGE brought into each table, plus the rows
    it took out of each, these being the two sides' rows at the EXCHANGE's commit (replayed from the
    generator's trail; the partition's by its bounds). No later change in the scenario touches
    those rows, so the final state still holds them as the EXCHANGE left them."""
    trail = _expected_trail(scenario)
    (exchange,) = [r for r in trail if r["op"] == "DDL" and "EXCHANGE" in r["columns"]["DDL_TEXT"]]
    assert (
        exchange["columns"]["DDL_TEXT"]
        == "ALTER TABLE APP.R_ORDERS EXCHANGE PARTITION P5 WITH TABLE APP.R_STAGE"
    )
    scn = exchange["commit_scn"]
    staged = list(_rows_at(trail, "R_STAGE", scn).values())  # went into partition P5 [400, 500)
    partition = [r for r in _rows_at(trail, "R_ORDERS", scn).values() if 400 <= int(r["ID"]) < 500]
    assert [r["ID"] for r in staged] == ["410", "420"] and partition == []  # as the scenario's header says
    view = out / "cdc-view"
    shutil.copytree(scenario / "expected", view / "expected")
    shutil.copy(scenario / "scenario.yaml", view / "scenario.yaml")
    for table, came_in, went_out in (("R_ORDERS", staged, partition), ("R_STAGE", partition, staged)):
        path = view / "expected" / "tables" / f"APP.{table}.jsonl"
        final = [json.loads(line) for line in path.read_text().splitlines() if line]
        assert all(r in final for r in came_in), table  # the generator's final state has them
        rows = [r for r in final if r not in came_in] + went_out
        path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return view


def _batch_folders(run: Path) -> list[Path]:
    return sorted(p for p in run.iterdir() if (p / "manifest.json").exists())


def _assert_dictionary_from_the_redo(scenario: Path, run: Path) -> list[dict[str, Any]]:
    """Each batch applied SYS row changes, met no unknown object in scope, and started from the
    generator's export (the manifests name it; ``dictionary_source``: the chain never refreshed)."""
    export = str(scenario / "dictionary.json")
    counts = []
    for folder in _batch_folders(run):
        manifest = json.loads((folder / "manifest.json").read_text())
        batch = json.loads((folder / "counts.json").read_text())
        assert manifest["dictionary"] == export, folder.name
        assert batch["dictionary_source"] == export, folder.name
        assert batch["ddl"].get("dictionary_rows", 0) > 0, (folder.name, batch["ddl"])
        assert not batch["ddl_problems"], (folder.name, batch["ddl_problems"])
        assert not batch.get("unknown_in_scope"), (folder.name, batch.get("unknown_in_scope"))
        assert not any(batch.get("unknown_in_scope_ops", {}).values()), folder.name
        counts.append(batch)
    return counts


# each scenario in one format by default (the other is the slow run's), the publish code of both
# formats being covered by tests/spark/test_partition_removal.py on every run
@pytest.mark.parametrize("fmt", ["iceberg", pytest.param("delta", marks=pytest.mark.slow)])
def test_partitions_publish_their_final_state_from_the_redo_alone(
    spark: Any, partitions: Path, tmp_path: Path, fmt: str
) -> None:
    """Four batches, one per log (interval partitions made in each, the long transaction carried
    through batches 1-3 and committed in 4): the mirrors equal the generator's final tables less the
    EXCHANGE's unseen move (``_cdc_view``), the changelog holds the expected trail (the partition
    DDL records included), each batch resolved its new partitions from the SYS rows alone, and
    PUBLISHED notes the EXCHANGE on R_ORDERS."""
    run = tmp_path / "run"
    tables = _publish_batches(spark, partitions, run, fmt, [1, 2, 3], [])
    changelog = _assert_final_state(_cdc_view(partitions, tmp_path), tables)
    expected = _expected_trail(partitions)
    assert [(r["xid"], r["op"], r["rowid"], r["commit_scn"]) for r in changelog] == [
        (r["xid"], r["op"], r["rowid"], r["commit_scn"]) for r in expected
    ]
    ddl = [
        {c["name"]: c["value"] for c in r["columns"]}["DDL_TEXT"] for r in changelog if r["io_type"] == 160
    ]
    assert ddl == [r["columns"]["DDL_TEXT"] for r in expected if r["io_type"] == 160]
    assert [t.split()[3] for t in ddl] == ["ADD", "ADD", "ADD", "SPLIT", "MERGE", "ADD", "EXCHANGE"]
    counts = _assert_dictionary_from_the_redo(partitions, run)
    assert [c["transactions"]["open_carried_out"] for c in counts] == [1, 1, 1, 0]  # the long transaction
    folders = _batch_folders(run)
    assert all((f / "dictionary.json").exists() for f in folders)  # each evolved by its SYS rows
    published = json.loads((folders[-1] / "PUBLISHED").read_text())
    for mirror in ("app__r_orders", "app__r_stage"):  # both mirrors miss the swap, and say so
        notes = " ".join(published["schema_changes"][mirror]["notes"])
        assert "EXCHANGE PARTITION P5 WITH TABLE APP.R_STAGE" in notes and "does not follow" in notes


@pytest.mark.parametrize("fmt", [pytest.param("iceberg", marks=pytest.mark.slow), "delta"])
def test_truncated_and_dropped_partitions_leave_the_mirror(
    spark: Any, partition_drops: Path, tmp_path: Path, fmt: str
) -> None:
    """Two batches, TRUNCATE and DROP PARTITION in both (range, list, interval, composite), DML on
    the truncated partitions' new segments and beside the dropped ones: the mirrors equal the
    generator's final tables (the partitions' rows gone, as TRUNCATE TABLE's go), the changelog
    holds the expected trail, and the dictionary came from the SYS rows alone."""
    run = tmp_path / "run"
    tables = _publish_batches(spark, partition_drops, run, fmt, [1], [])
    _assert_dictionary_from_the_redo(partition_drops, run)
    expected = _expected_trail(partition_drops)
    changelog = sorted(tables._arrow("changelog").to_pylist(), key=lambda r: (r["batch_id"], r["trail_seq"]))
    assert [(r["xid"], r["op"], r["rowid"], r["commit_scn"]) for r in changelog] == [
        (r["xid"], r["op"], r["rowid"], r["commit_scn"]) for r in expected
    ]
    _assert_final_state(partition_drops, tables)
