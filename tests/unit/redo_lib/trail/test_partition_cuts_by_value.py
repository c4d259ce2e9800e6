"""DROP / TRUNCATE PARTITION naming the partition by value (``FOR (...)``), as users name system-named
interval partitions: the text does not say which partition it was, the SYS rows do (docs/tables.md,
"In the mirrors"; the core's ``partitions_cut``).

Real parts: include/scenarios/partition_drops.yaml's logs, whose interval partition SYS_P102 (made by
the insert of 310) is dropped by ``DROP PARTITION FOR (310)`` and list partition PA by
``TRUNCATE PARTITION FOR ('US')``; the batch driver evolves the dictionary from the redo; the rows
the mirror must remove are worked out from the scenario's own expected trail (the ROWIDs its inserts
got in those partitions)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from redo_lib.dictionary import DictionaryHistory
from redo_lib.synth import GenerationResult, generate, load_scenario
from redo_lib.trail.lineage import table_changes
from tests.unit.native.core_assembly import batch_driver

REPO = Path(__file__).resolve().parents[4]


@pytest.fixture(scope="module")
def generated(tmp_path_factory: pytest.TempPathFactory) -> GenerationResult:
    scenario = load_scenario(REPO / "include" / "scenarios" / "partition_drops.yaml")
    return generate(scenario, tmp_path_factory.mktemp("partition_drops"))


@pytest.fixture(scope="module")
def history(generated: GenerationResult, tmp_path_factory: pytest.TempPathFactory) -> DictionaryHistory:
    """The dictionary the batch driver evolves over the scenario's logs (one batch)."""
    location, _, problems = batch_driver(
        generated.logs, generated.dictionary, tmp_path_factory.mktemp("batch")
    )
    assert problems == []
    return DictionaryHistory.from_json(location.read_text())


def _trail(generated: GenerationResult) -> list[dict[str, Any]]:
    return [json.loads(line) for line in generated.trail.read_text().splitlines()]


def _prefixes(trail: list[dict[str, Any]], table: str, ids: set[str], *, before: int) -> set[str]:
    """The ROWID prefixes (data objects) the rows ``ids`` of ``table`` had in the trail before SCN ``before``."""
    return {
        r["rowid"][:6]
        for r in trail
        if r["table"] == table
        and r["op"] != "DDL"
        and r["commit_scn"] < before
        and r["columns"].get("ID") in ids
    }


def _ddl(trail: list[dict[str, Any]], table: str, text: str) -> dict[str, Any]:
    return next(
        r for r in trail if r["op"] == "DDL" and r["table"] == table and text in r["columns"]["DDL_TEXT"]
    )


def test_a_partition_dropped_by_value_is_found_in_the_sys_rows(
    generated: GenerationResult, history: DictionaryHistory
) -> None:
    trail = _trail(generated)
    drop = _ddl(trail, "I_SALES", "DROP PARTITION FOR (310)")
    (cut,) = table_changes([drop], history)["APP.I_SALES"].partition_cuts
    assert (cut.commit_scn, cut.clause, cut.name) == (drop["commit_scn"], "DROP PARTITION", "SYS_P102")
    # the rows of [300, 400): 310 and 320, in the partition the insert of 310 created
    assert set(cut.prefixes) == _prefixes(trail, "I_SALES", {"310", "320"}, before=drop["commit_scn"])
    assert cut.ambiguous == () and "by value: SYS_P102 from the SYS rows" in cut.notes[0]


def test_a_partition_truncated_by_value_is_found_in_the_sys_rows(
    generated: GenerationResult, history: DictionaryHistory
) -> None:
    trail = _trail(generated)
    truncate = _ddl(trail, "L_EVENTS", "TRUNCATE PARTITION FOR ('US')")
    (cut,) = table_changes([truncate], history)["APP.L_EVENTS"].partition_cuts
    assert (cut.clause, cut.name) == ("TRUNCATE PARTITION", "PA")
    # PA's rows before the TRUNCATE: 3 and 5 (US); 6 is inserted after it, in the new segment
    assert set(cut.prefixes) == _prefixes(trail, "L_EVENTS", {"3", "5"}, before=truncate["commit_scn"])
    after = _prefixes(trail, "L_EVENTS", {"6"}, before=10**12)
    assert after and not after & set(cut.prefixes)
