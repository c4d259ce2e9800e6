"""Columns the decoder cannot render (issue 34): a captured row change carrying a value of an XMLTYPE
(binary XML, in the hidden BLOB that stores it), an object type or the like is counted per table,
column and type and fails ``unsupported_changes`` naming the remedy; a column left out of the capture
scope (``-OWNER.TABLE.COLUMN``) never reaches the trail, is only counted, and the mirrors lack it.

The table, written by hand from its SQL (``CREATE TABLE app.docs (id NUMBER PRIMARY KEY, doc XMLTYPE,
note VARCHAR2(20))``: binary XML storage, Oracle's default since 11.2.0.2, adds the hidden BLOB
``SYS_NC00003$`` right after DOC), through the Rust core's transaction table and emitter.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest

from redo_lib.assembly.events import ChangeEvent, EventKind
from redo_lib.batches import merge_counts
from redo_lib.dictionary import ColumnDef, DictionaryHistory, TableVersion
from redo_lib.errors import DictionaryError, RedoError
from redo_lib.pipeline import DecodeResult, assemble_and_emit, balance
from redo_lib.trail.emit import EmitOptions, capture_options, excluded_columns
from redo_lib.trail.types import table_types
from redo_lib.unsupported import UNRENDERABLE, problem_rows, type_label, unsupported_report
from redo_lib.values import encode_number, encode_text

T0 = dt.datetime(2024, 3, 2, 10, 0, 0)
OBJ, BDBA = 70100, 0x01000436
N = encode_number
#: binary XML's in-row LOB locator (never looked at: the value is not rendered)
LOCATOR = bytes.fromhex("0054000102 0c80000000".replace(" ", ""))


def _dictionary() -> DictionaryHistory:
    cols = (
        ColumnDef(col_no=1, segcol_no=1, name="ID", type_code=2, type_name="NUMBER", length=22),
        ColumnDef(col_no=2, segcol_no=2, name="DOC", type_code=58, type_name="XMLTYPE", length=2000),
        ColumnDef(col_no=0, segcol_no=3, name="SYS_NC00003$", type_code=113, type_name="BLOB", length=4000,
                  hidden=True),
        ColumnDef(col_no=3, segcol_no=4, name="NOTE", type_code=1, type_name="VARCHAR2", length=20,
                  charset="AL32UTF8"),
    )  # fmt: skip
    table = TableVersion(obj=OBJ, dataobj=OBJ, owner="APP", name="DOCS", columns=cols, key_columns=("ID",),
                         key_kind="primary", valid_from_scn=1)  # fmt: skip
    return DictionaryHistory([table], db_charset="AL32UTF8", national_charset="AL16UTF16")


_n = iter(range(1, 10_000))


def _ev(kind: EventKind, **kw: object) -> ChangeEvent:
    i = next(_n)
    base: dict[str, object] = {"usn": 4, "slot": 11, "sqn": 854, "thread": 1, "seq": 0x44, "block": 5 + i,
                               "offset": 16, "scn": 1621000 + i, "subscn": 1, "time": T0, "obj": OBJ,
                               "dataobj": OBJ, "bdba": BDBA}  # fmt: skip
    base.update(kw)
    return ChangeEvent(kind=kind, **base)  # type: ignore[arg-type]


def _insert(slot: int, key: int, xml: bytes | None) -> ChangeEvent:
    after = ((0, N(key)), (1, None), (2, xml), (3, encode_text("n", "AL32UTF8")))
    return _ev(EventKind.CHANGE, redo_op=0x0B02, undo_op=3, row_slot=slot, fb=0x2C, after=after)


def _run(**options: Any) -> DecodeResult:
    # INSERT INTO app.docs VALUES (1, XMLTYPE('<a/>'), 'n'), (2, NULL, 'n'), (3, XMLTYPE('<b/>'), 'n')
    events = [_ev(EventKind.BEGIN), _insert(1, 1, LOCATOR), _insert(2, 2, None), _insert(3, 3, LOCATOR),
              _ev(EventKind.COMMIT)]  # fmt: skip
    return assemble_and_emit(events, _dictionary(), options=EmitOptions(**options))


def test_captured_values_are_counted_by_table_column_and_type_never_rendered() -> None:
    result = _run()
    trail = [r.to_dict() for r in result.trail]
    assert [r["columns"]["ID"] for r in trail] == ["2"], "only the row without a DOC value is a record"
    assert trail[0]["columns"]["DOC"] is None
    counts = result.counts
    assert counts["unrenderable"] == {"APP.DOCS": {"DOC": {"58": 2}}}
    assert counts["unrenderable_ops"] == {"APP.DOCS": {"INSERT": 2}}
    # one term of the balance: decoded = trail + unsupported_ops
    assert counts["unsupported_ops"] == {"APP.DOCS": {"INSERT": 2}}
    assert balance(counts) == {}
    entry = counts["unsupported"]["tables"]["APP.DOCS"]
    assert set(entry) == {UNRENDERABLE}, "no OLTP-compressed rows are made up of them"
    assert entry[UNRENDERABLE]["changes"] == 2
    assert entry[UNRENDERABLE]["columns"] == {"DOC": {"type": "XMLTYPE (type code 58)", "type_code": 58,
                                                      "changes": 2}}  # fmt: skip
    assert counts["unsupported"]["changes"] == 2


def test_the_failing_check_names_table_column_type_count_and_remedy() -> None:
    (row,) = problem_rows(_run().counts)
    assert row["table"] == "APP.DOCS" and row["column"] == "DOC" and row["changes"] == 2
    assert row["type"] == "XMLTYPE (type code 58)" and row["counted"] == "row changes"
    assert row["reason"] == (
        "column DOC of type XMLTYPE (type code 58): the decoder cannot render it; leave the column out of "
        "the capture scope (-APP.DOCS.DOC) or the table"
    )


def test_a_column_left_out_passes_with_the_rows_without_it() -> None:
    result = _run(**capture_options(["APP", "-APP.DOCS.DOC"]))
    trail = [r.to_dict() for r in result.trail]
    assert [r["columns"] for r in trail] == [{"ID": str(i), "NOTE": "n"} for i in (1, 2, 3)]
    counts = result.counts
    assert problem_rows(counts) == [] and counts["unsupported"]["changes"] == 0
    assert counts["unrenderable_out_of_scope"] == {"APP.DOCS": {"DOC": {"58": 2}}}
    assert counts["unsupported"]["columns_out_of_scope"] == {"APP.DOCS.DOC": 2}
    assert counts["unsupported"]["out_of_scope"] == {"APP.DOCS": {UNRENDERABLE: 2}}
    assert counts["scope"]["capture"] == ["APP", "-APP.DOCS.DOC"]
    assert balance(counts) == {}


def test_outside_the_capture_scope_they_are_only_counted() -> None:
    counts = _run(**capture_options(["HR"])).counts
    assert counts["unsupported"]["changes"] == 0 and problem_rows(counts) == []
    assert counts["unsupported"]["out_of_scope"] == {"APP.DOCS": {UNRENDERABLE: 2}}


def test_a_key_column_cannot_be_left_out() -> None:
    with pytest.raises(DictionaryError, match=r"leave out key columns the trail needs: -APP\.DOCS\.ID"):
        _run(**capture_options(["-APP.DOCS.ID"]))


@pytest.mark.parametrize("entry", ["APP.DOCS.DOC", "-APP.DOCS", "-APP..DOC", "A.B.C.D"])
def test_capture_entries_of_another_form_are_refused(entry: str) -> None:
    with pytest.raises(RedoError, match=r"is not OWNER, OWNER\.TABLE or -OWNER\.TABLE\.COLUMN"):
        capture_options([entry])


def test_the_mirrors_lack_a_column_left_out() -> None:
    left_out = excluded_columns(["APP", "-APP.DOCS.DOC"])
    assert left_out == {"APP.DOCS.DOC"}
    # (an unbounded NUMBER key is kept exact: a string)
    assert table_types(_dictionary(), exclude_columns=left_out) == {
        "APP.DOCS": {"ID": "string", "NOTE": "string"}
    }
    assert "DOC" in table_types(_dictionary())["APP.DOCS"]


@pytest.mark.parametrize(
    ("code", "name", "label"),
    [
        (121, "SDO_GEOMETRY", "SDO_GEOMETRY (type code 121)"),
        (121, "TYPE#121", "object type (type code 121)"),
        (58, None, "XMLTYPE or ANYDATA (opaque type) (type code 58)"),
        (0, "MY_TYPE", "MY_TYPE (type code 0)"),
        (123, None, "VARRAY (type code 123)"),
        (7, None, "type code 7 (type code 7)"),
    ],
)
def test_types_are_named_by_the_dictionary_else_by_their_code(
    code: int, name: str | None, label: str
) -> None:
    assert type_label(code, name) == label


def test_compressed_rows_and_unrenderable_ones_share_the_balance_term() -> None:
    report = unsupported_report(
        vectors={}, dictionary=None, captured=lambda owner, name: True,
        unsupported_ops={"APP.T": {"INSERT": 5}}, unrenderable_ops={"APP.T": {"INSERT": 2}},
        unrenderable={"APP.T": {"GEOM": {"121": 2}}},
    )  # fmt: skip
    table = report["tables"]["APP.T"]
    assert table["oltp_compressed"]["changes"] == 3 and table[UNRENDERABLE]["changes"] == 2
    assert report["changes"] == 5


def test_the_parallel_tasks_counts_add_up_per_table_column_and_type() -> None:
    parts = [
        {"unrenderable": {"APP.DOCS": {"DOC": {"58": 2}}}, "unrenderable_ops": {"APP.DOCS": {"INSERT": 2}}},
        {"unrenderable": {"APP.DOCS": {"DOC": {"58": 1}}, "APP.S": {"G": {"121": 4}}},
         "unrenderable_ops": {"APP.DOCS": {"UPDATE": 1}}},
    ]  # fmt: skip
    merged = merge_counts(parts)
    assert merged["unrenderable"] == {"APP.DOCS": {"DOC": {"58": 3}}, "APP.S": {"G": {"121": 4}}}
    assert merged["unrenderable_ops"] == {"APP.DOCS": {"INSERT": 2, "UPDATE": 1}}


def test_a_rowid_column_is_rendered_not_counted() -> None:
    """ROWID (type 69) has a codec: its 10 bytes (data object, DBA, slot) are the 18-character ROWID
    in the record, nothing is counted, and its mirror column is a string (as UROWID's)."""
    cols = (
        ColumnDef(col_no=1, segcol_no=1, name="ID", type_code=2, type_name="NUMBER", length=22),
        ColumnDef(col_no=2, segcol_no=2, name="R", type_code=69, type_name="ROWID", length=10),
    )
    table = TableVersion(obj=OBJ, dataobj=OBJ, owner="APP", name="LINKS", columns=cols, key_columns=("ID",),
                         key_kind="primary", valid_from_scn=1)  # fmt: skip
    dictionary = DictionaryHistory([table], db_charset="AL32UTF8", national_charset="AL16UTF16")
    # DUMP(R, 16): Typ=69 Len=10: 0,0,d7,89,1,80,0,e2,0,16
    after = ((0, N(1)), (1, bytes.fromhex("0000d789018000e20016")))
    insert = _ev(EventKind.CHANGE, redo_op=0x0B02, undo_op=3, row_slot=1, fb=0x2C, after=after)
    result = assemble_and_emit([_ev(EventKind.BEGIN), insert, _ev(EventKind.COMMIT)], dictionary)
    assert [r.to_dict()["columns"] for r in result.trail] == [{"ID": "1", "R": "AAANeJAAGAAAADiAAW"}]
    assert not result.counts.get("unrenderable") and problem_rows(result.counts) == []
    assert table_types(dictionary)["APP.LINKS"]["R"] == "string"
