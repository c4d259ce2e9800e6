"""Columns from SYS.COL$ (docs/dictionary.md, "Columns from COL$"): where a table's COL$ rows and its
version disagree, the core's rule (``native.columns_from_sys``) says which versions the rows give and
``with_columns_from_sys`` puts them in the history, so the dictionary a batch writes is the one the
trail was written with: read again, the core finds nothing left to disagree with.

The disagreements are made by hand from the export's own COL$ rows (what a DDL's transaction would
have changed: a column added, renamed, made NOT NULL), on real 23ai checkpoints and on a small
document; the expected columns come from those edits."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

import pytest

from redo_lib.dictionary import DictionaryHistory, KeyKind, load_dictionary
from redo_lib.dictionary.sys_columns import with_columns_from_sys
from redo_lib.native import native

REAL_23AI = (
    Path(__file__).resolve().parents[4].parent / "shared" / "realdata" / "rophy-olr-tests-23ai" / "schema"
)


def _checkpoints() -> list[Path]:
    return sorted(REAL_23AI.glob("*.json")) if REAL_23AI.is_dir() else []


@pytest.mark.realdata
@pytest.mark.parametrize("path", _checkpoints(), ids=lambda p: p.name.split("--")[0])
def test_real_checkpoints_col_rows_agree_with_their_versions(path: Path) -> None:
    history = load_dictionary(path)
    doc = json.loads(history.to_json())
    tables = {v.obj for v in history if v.owner != "SYS"}
    described = {r["OBJ#"] for r in doc["sys"]["COL$"]} & tables
    assert described, "the checkpoint's COL$ rows describe none of its tracked tables"
    assert native.columns_from_sys(history.to_json()) == []
    assert with_columns_from_sys(history) is history


def _edited(history: DictionaryHistory, obj: int, edit: Any) -> DictionaryHistory:
    """The history with the COL$ rows of ``obj`` edited by ``edit(rows)`` (as a DDL's transaction
    would have changed them; the versions left as they were)."""
    doc = json.loads(history.to_json())
    rows = [r for r in doc["sys"]["COL$"] if r["OBJ#"] == obj]
    edit(rows, doc["sys"]["COL$"])
    return history.with_sys(doc["sys"])


@pytest.mark.realdata
def test_a_renamed_key_column_and_a_new_column_in_col_rows_win_and_reread_agree() -> None:
    paths = [p for p in _checkpoints() if p.name.startswith("basic-crud")]
    if not paths:
        pytest.skip(f"real OLR checkpoints not found at {REAL_23AI}")
    history = load_dictionary(paths[0])
    version = next(v for v in history if v.owner != "SYS" and v.key_kind is KeyKind.PRIMARY)
    key = version.key_columns[0]
    last = version.columns[-1]

    at = version.valid_from_scn + 100  # the commit of a DDL's transaction

    def edit(rows: list[dict[str, Any]], every: list[dict[str, Any]]) -> None:
        # RENAME COLUMN <key> TO <key>_RENAMED: its row (same ROWID) closed and opened anew
        held = next(r for r in rows if r["NAME"] == key)
        held["valid_to_scn"] = at
        every.append(held | {"valid_from_scn": at, "valid_to_scn": None, "NAME": key + "_RENAMED"})
        # ADD (NOTE VARCHAR2(40)): a new row
        n = last.segcol_no + 1
        added = max(rows, key=lambda r: r["SEGCOL#"]) | {
            "rowid": "AAAAACAAAAAAAAAAzz", "valid_from_scn": at, "COL#": n, "SEGCOL#": n, "INTCOL#": n,
            "NAME": "NOTE", "TYPE#": 1, "LENGTH": 40, "PRECISION#": None, "SCALE": None, "NULL$": 0,
            "PROPERTY": 0, "CHARSETID": 873, "CHARSETFORM": 1,
        }  # fmt: skip
        every.append(added)

    edited = _edited(history, version.obj, edit)
    found = native.columns_from_sys(edited.to_json())
    assert [(f["obj"], f["valid_from_scn"], f["valid_to_scn"]) for f in found] == [(version.obj, at, None)]
    assert found[0]["key_columns"][0] == key + "_RENAMED" and found[0]["key_kind"] == "primary"
    followed = with_columns_from_sys(edited)
    before, now = followed.versions(version.obj)
    assert before == dataclasses.replace(version, valid_to_scn=at)
    names = [c.name for c in now.columns]
    assert names == [key + "_RENAMED" if c.name == key else c.name for c in version.columns] + ["NOTE"]
    note = now.columns[-1]
    assert (note.type_name, note.length, note.nullable, note.charset) == (
        "VARCHAR2",
        40,
        True,
        history.db_charset,
    )
    assert now.key_kind is version.key_kind and now.key_columns[0] == key + "_RENAMED"
    # read again, the core and the history agree: nothing more to put in
    assert native.columns_from_sys(followed.to_json()) == []


def _small() -> DictionaryHistory:
    """APP.T (obj 100: ID NUMBER NOT NULL, primary key; NAME VARCHAR2(20)) and its COL$ rows, with
    the COL$ layout as a SYS table (23ai segcol#s of the kept columns)."""
    layout = [(1, "OBJ#"), (2, "COL#"), (3, "SEGCOL#"), (6, "NAME"), (7, "TYPE#"), (8, "LENGTH"),
              (10, "PRECISION#"), (11, "SCALE"), (12, "NULL$"), (15, "INTCOL#"), (16, "PROPERTY"),
              (17, "CHARSETID"), (18, "CHARSETFORM")]  # fmt: skip
    sys_col = {"obj": 21, "dataobj": 2, "owner": "SYS", "name": "COL$", "key": {"kind": "all", "columns": ["OBJ#"]},
               "columns": [{"segcol_no": s, "name": n, "type": "VARCHAR2" if n == "NAME" else "NUMBER",
                            "length": 128 if n == "NAME" else 22, "nullable": True} for s, n in layout]}  # fmt: skip

    def col(no: int, name: str, kind: int, length: int, not_null: int) -> dict[str, Any]:
        return {"rowid": f"AAAAACAAAAAAAAAAA{'AB'[no - 1]}", "OBJ#": 100, "COL#": no, "SEGCOL#": no,
                "INTCOL#": no, "NAME": name, "TYPE#": kind, "LENGTH": length, "PRECISION#": None,
                "SCALE": None, "NULL$": not_null, "PROPERTY": 0, "CHARSETID": 873 if kind == 1 else 0,
                "CHARSETFORM": 1 if kind == 1 else 0}  # fmt: skip

    doc = {
        "format": "redotrail-dictionary", "format_version": 1, "scn": 1000, "owners": ["APP"],
        "db_charset": "AL32UTF8", "national_charset": "AL16UTF16",
        "tables": [sys_col, {"obj": 100, "dataobj": 100, "owner": "APP", "name": "T",
                             "columns": [{"segcol_no": 1, "col_no": 1, "name": "ID", "type": "NUMBER", "length": 22,
                                          "nullable": False},
                                         {"segcol_no": 2, "col_no": 2, "name": "NAME", "type": "VARCHAR2",
                                          "length": 20, "charset": "CHAR_CS", "nullable": True}],
                             "constraints": [{"name": "T_PK", "type": "P", "columns": ["ID"]}]}],
        "sys": {"OBJ$": [{"rowid": "AAAAASAAAAAAAAAAAA", "OBJ#": 100, "DATAOBJ#": 100, "OWNER#": 50, "NAME": "T",
                          "SUBNAME": None, "TYPE#": 2, "FLAGS": 0}],
                "TABPART$": [], "TABCOMPART$": [], "TABSUBPART$": [],
                "USER$": [{"rowid": "AAAAAKAAAAAAAAAAAA", "USER#": 50, "NAME": "APP"}],
                "COL$": [col(1, "ID", 2, 22, 1), col(2, "NAME", 1, 20, 0)]},
    }  # fmt: skip
    for rows in doc["sys"].values():  # type: ignore[attr-defined]
        for row in rows:
            row.update({"valid_from_scn": 1000, "valid_to_scn": None})
    return DictionaryHistory.from_json(json.dumps(doc))


def test_a_range_of_col_rows_cuts_the_version_around_it() -> None:
    history = _small()
    assert native.columns_from_sys(history.to_json()) == []

    def made_not_null_from_2000_to_3000(rows: list[dict[str, Any]], every: list[dict[str, Any]]) -> None:
        name = next(r for r in rows if r["NAME"] == "NAME")
        name["valid_to_scn"] = 2000
        every.append(name | {"valid_from_scn": 2000, "valid_to_scn": 3000, "NULL$": 1})
        every.append(name | {"valid_from_scn": 3000, "valid_to_scn": None})

    edited = _edited(history, 100, made_not_null_from_2000_to_3000)
    followed = with_columns_from_sys(edited)
    ranges = [(v.valid_from_scn, v.valid_to_scn, v.columns[1].nullable) for v in followed.versions(100)]
    assert ranges == [(1000, 2000, True), (2000, 3000, False), (3000, None, True)]
    assert all(v.key_columns == ("ID",) and v.key_kind is KeyKind.PRIMARY for v in followed.versions(100))
    assert native.columns_from_sys(followed.to_json()) == []


def test_a_key_whose_columns_are_all_gone_is_every_column() -> None:
    def id_dropped_at_2000(rows: list[dict[str, Any]], every: list[dict[str, Any]]) -> None:
        # DROP COLUMN ID: its row closed, NAME's moved down (SEGCOL# 1, as the key column was)
        next(r for r in rows if r["NAME"] == "ID")["valid_to_scn"] = 2000
        name = next(r for r in rows if r["NAME"] == "NAME")
        name["valid_to_scn"] = 2000
        every.append(
            name | {"valid_from_scn": 2000, "valid_to_scn": None, "COL#": 1, "SEGCOL#": 1, "INTCOL#": 1}
        )

    followed = with_columns_from_sys(_edited(_small(), 100, id_dropped_at_2000))
    _, now = followed.versions(100)
    assert [c.name for c in now.columns] == ["NAME"]
    assert now.key_columns == ("NAME",) and now.key_kind is KeyKind.ALL
