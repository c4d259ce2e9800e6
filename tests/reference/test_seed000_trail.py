"""Seed 000's six reference cases: real Oracle 11.2 logfile dumps -> the trail GoldenGate wrote.

The dump text (tests/fixtures/dumps, cut from the seed) goes through the text parser and then the
very same assembly and trail steps as binary logs. The expected records are the seed's TrailAnalyzer
output, transcribed by hand in the .expected.json files (never produced by our decoder).

The STUDENT table's dictionary is written from the seed's DDL (CREATE TABLE student ... PRIMARY KEY
(student_key)); objn 76490 / objd 76495 as the dumps' ktubl lines give them.

The update cases: the seed's dumps omit the supplemental log data that carries the primary key, so
the trail's STUDENT_KEY of an update is nowhere in the dump (fixture README, trail contract
"Reference cases"). The test supplies it the way a dump with supplemental logging would show it: a
supplemental block on the undo (op UPDATE, fb first+last, one column: segcol 1 = the key value) whose
values come from the scenario's SQL (the rows the UPDATE statements hit, inserted earlier in the seed).
"""

from __future__ import annotations

import dataclasses
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from redo_lib.assembly.events import iter_events
from redo_lib.dictionary import ColumnDef, DictionaryHistory, TableVersion
from redo_lib.dump import parse_dump
from redo_lib.format.model import RedoRecord, Supplemental, UndoRecord
from redo_lib.pipeline import assemble_and_emit
from redo_lib.values import encode_number

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "dumps"
COLUMNS = [
    "STUDENT_KEY",
    "FIRST_NAME",
    "SURNAME",
    "GENDER",
    "UNIVERSITY",
    "SUBJECT",
    "ENTRY_YEAR",
    "TUITION_FEE",
]
TYPES = {"STUDENT_KEY": 2, "ENTRY_YEAR": 2, "TUITION_FEE": 2}  # NUMBER; the rest VARCHAR2
# The key of the row each update hits, by ROWID slot: from the seed's SQL (UPDATE ... WHERE
# student_key = 1010 hits slot 9; the multi-row update hits the rows 1007-1009 inserted at slots 6-8).
UPDATE_KEYS = {"single_row_update": {9: 1010}, "multi_row_update": {6: 1007, 7: 1008, 8: 1009}}


def _student() -> DictionaryHistory:
    cols = [
        ColumnDef(col_no=i + 1, segcol_no=i + 1, name=name, type_code=TYPES.get(name, 1),
                  type_name="NUMBER" if name in TYPES else "VARCHAR2", length=22 if name in TYPES else 30,
                  charset=None if name in TYPES else "WE8MSWIN1252", nullable=name != "STUDENT_KEY")
        for i, name in enumerate(COLUMNS)
    ]  # fmt: skip
    table = TableVersion(obj=76490, dataobj=76495, owner="US03", name="STUDENT", columns=tuple(cols),
                         key_columns=("STUDENT_KEY",), key_kind="primary", valid_from_scn=0)  # fmt: skip
    return DictionaryHistory([table], db_charset="WE8MSWIN1252", national_charset="AL16UTF16")


def _with_supplemental_key(record: RedoRecord, keys: dict[int, int]) -> RedoRecord:
    vectors = []
    for v in record.vectors:
        body = v.body
        if isinstance(body, UndoRecord) and body.kdo is not None and body.kdo.slot in keys:
            supp = Supplemental(op=1, fb=0x0C, count=1, objv=1, start_before=body.positions[0] + 1 if body.positions else 0,
                                start_after=body.positions[0] + 1 if body.positions else 0,
                                columns=((1, encode_number(keys[body.kdo.slot])),))  # fmt: skip
            v = dataclasses.replace(v, body=dataclasses.replace(body, supplemental=supp))
        vectors.append(v)
    return dataclasses.replace(record, vectors=tuple(vectors))


CASES = ["single_row_insert", "single_row_update", "single_row_delete", "multi_row_update",
         "multi_row_delete", "array_insert", "direct_load_insert"]  # fmt: skip


@pytest.mark.parametrize("case", CASES)
def test_seed_case_gives_the_trail_goldengate_wrote(case: str) -> None:
    expected = json.loads((FIXTURES / f"seed000_{case}.expected.json").read_text())
    name = f"seed000_{case}.repaired.txt" if case == "direct_load_insert" else f"seed000_{case}.txt"
    records = parse_dump((FIXTURES / name).read_text(), name=name).records
    if case in UPDATE_KEYS:
        records = [_with_supplemental_key(r, UPDATE_KEYS[case]) for r in records]
    events = [e for r in records for e in iter_events(r)]
    trail = [r.to_dict() for r in assemble_and_emit(events, _student()).trail]
    _assert_goldengate_records(trail, expected)


def _assert_goldengate_records(trail: list[dict[str, Any]], expected: dict[str, Any]) -> None:
    want = expected["records"]
    assert len(trail) == len(want) == expected["transaction"]["record_count"]
    for i, (got, exp) in enumerate(zip(trail, want, strict=True)):
        assert got["io_type"] == exp["io_type"] and got["op"] == exp["op"], i
        assert f"{got['owner']}.{got['table']}" == exp["object"]
        assert got["columns"] == {c["name"]: c["value"] for c in exp["columns"]}, i
        assert got["rowid"] == exp["rowid"], i
        assert got["tokens"] == exp["tokens"], i  # L and 6 only on the first record
        assert got["op_time"] == exp["op_time"], i
        assert got["xid"] == expected["transaction"]["xid"]
        assert got["commit_scn"] == expected["transaction"]["commit_scn"]
    assert [r["trans_ind"] for r in trail] == ([3] if len(trail) == 1 else [0] + [1] * (len(trail) - 2) + [2])


def test_update_without_supplemental_data_lacks_the_key() -> None:
    """What the seed's dump alone gives: the changed column but no key (why the test supplies it). An
    update whose redo holds not all of its key is keyed by its ROWID (docs/tables.md, "Supplemental
    logging"): no key columns, never a NULL key value."""
    records = parse_dump((FIXTURES / "seed000_single_row_update.txt").read_text()).records
    events = [e for r in records for e in iter_events(r)]
    (record,) = assemble_and_emit(events, _student()).trail
    assert record.to_dict()["columns"] == {"TUITION_FEE": "6000"}
    assert record.to_dict()["key_columns"] == [] and len(record.to_dict()["rowid"]) == 18


@pytest.mark.parametrize("case", CASES)
def test_seed_case_through_the_command_line(case: str, tmp_path: Path) -> None:
    """`python -m redo_lib decode` tells the dump from a binary log by its content and gives
    GoldenGate's records; an update's key, which the dump does not hold (above), is the one column
    that differs: the record is keyed by its ROWID, as the library gives it."""
    expected = json.loads((FIXTURES / f"seed000_{case}.expected.json").read_text())
    name = f"seed000_{case}.repaired.txt" if case == "direct_load_insert" else f"seed000_{case}.txt"
    dictionary = tmp_path / "student.json"
    dictionary.write_text(_student().to_json())
    run = subprocess.run(
        [sys.executable, "-m", "redo_lib", "decode", "--dictionary", str(dictionary), str(FIXTURES / name)],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert run.returncode == 0, run.stderr
    trail = [json.loads(line) for line in run.stdout.splitlines()]
    if case in UPDATE_KEYS:
        keys = sorted(UPDATE_KEYS[case].values())
        assert [("STUDENT_KEY" in r["columns"], r["key_columns"]) for r in trail] == [(False, [])] * len(keys)
        for record, want in zip(trail, expected["records"], strict=True):
            want_key = next(c["value"] for c in want["columns"] if c["name"] == "STUDENT_KEY")
            record["columns"]["STUDENT_KEY"] = want_key  # the one difference, checked above
    _assert_goldengate_records(trail, expected)
    assert f"{len(trail)} trail records" in run.stderr


def test_command_line_names_a_file_that_is_neither_log_nor_dump(tmp_path: Path) -> None:
    bad = tmp_path / "notes.txt"
    bad.write_text("just some text\n" * 1000)
    run = subprocess.run(
        [sys.executable, "-m", "redo_lib", "decode", "--schemaless", str(bad)],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert run.returncode == 1
    assert "notes.txt" in run.stderr and "not a redo log" in run.stderr, run.stderr
