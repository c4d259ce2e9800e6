"""Trail shaping rules (trail contract 8-16) on transactions written by hand from their SQL, through
the Rust core's transaction table and emitter (``pipeline.assemble_and_emit``).

The table: STUDENT(STUDENT_KEY NUMBER PRIMARY KEY, NAME VARCHAR2(20), FEE NUMBER) as in seed 000.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from redo_lib.assembly.events import ChangeEvent, EventKind, event_to_row
from redo_lib.dictionary import ColumnDef, DictionaryHistory, TableVersion, load_dictionary
from redo_lib.pipeline import DecodeResult, assemble_and_emit
from redo_lib.trail.emit import EmitOptions
from redo_lib.values import encode_number, encode_text

T0 = dt.datetime(2013, 3, 31, 23, 59, 58)
OBJ, DATAOBJ, BDBA = 76490, 76495, 0x01000436
N = encode_number


def _dictionary(key: tuple[str, ...] = ("STUDENT_KEY",), kind: str = "primary") -> DictionaryHistory:
    cols = (
        ColumnDef(col_no=1, segcol_no=1, name="STUDENT_KEY", type_code=2, type_name="NUMBER", length=22),
        ColumnDef(col_no=2, segcol_no=2, name="NAME", type_code=1, type_name="VARCHAR2", length=20, charset="AL32UTF8"),
        ColumnDef(col_no=3, segcol_no=3, name="FEE", type_code=2, type_name="NUMBER", length=22),
    )  # fmt: skip
    table = TableVersion(
        obj=OBJ, dataobj=DATAOBJ, owner="US03", name="STUDENT", columns=cols, key_columns=key,
        key_kind=kind, valid_from_scn=1,
    )  # fmt: skip
    return DictionaryHistory([table], db_charset="AL32UTF8", national_charset="AL16UTF16")


_n = iter(range(1, 10_000))


def _ev(kind: EventKind, **kw: object) -> ChangeEvent:
    i = next(_n)
    base: dict[str, object] = {"usn": 4, "slot": 11, "sqn": 854, "thread": 1, "seq": 0x44, "block": 5 + i,
                               "offset": 16, "scn": 1621000 + i, "subscn": 1, "time": T0, "obj": OBJ,
                               "dataobj": DATAOBJ, "bdba": BDBA}  # fmt: skip
    base.update(kw)
    return ChangeEvent(kind=kind, **base)  # type: ignore[arg-type]


def _insert(slot: int, key: int, name: str | None, fee: int | None) -> ChangeEvent:
    after = (
        (0, N(key)),
        (1, None if name is None else encode_text(name, "AL32UTF8")),
        (2, None if fee is None else N(fee)),
    )
    return _ev(EventKind.CHANGE, redo_op=0x0B02, undo_op=3, row_slot=slot, fb=0x2C, after=after)


def _update(slot: int, key: int, old: dict[int, bytes | None], new: dict[int, bytes | None]) -> ChangeEvent:
    # URP undo/redo with the primary key supplementally logged (as ALTER TABLE ... ADD SUPPLEMENTAL LOG
    # DATA (PRIMARY KEY) COLUMNS writes it): the key's old value in the supplemental columns
    return _ev(EventKind.CHANGE, redo_op=0x0B05, undo_op=5, row_slot=slot, before=tuple(old.items()),
               after=tuple(new.items()), supp_fb=0x0C, supp_op=1, supp_bdba=BDBA, supp_slot=slot,
               supp_columns=((0, N(key)),))  # fmt: skip


def _delete(slot: int, key: int, name: str, fee: int) -> ChangeEvent:
    before = ((0, N(key)), (1, encode_text(name, "AL32UTF8")), (2, N(fee)))
    return _ev(EventKind.CHANGE, redo_op=0x0B03, undo_op=2, row_slot=slot, before=before, supp_fb=0x1C,
               supp_op=4, supp_columns=((0, N(key)),))  # fmt: skip


def _emit(
    events: list[ChangeEvent], dictionary: DictionaryHistory | None = None, **opts: object
) -> DecodeResult:
    options = EmitOptions(**opts)  # type: ignore[arg-type]
    return assemble_and_emit(events, dictionary or _dictionary(), options=options)


def _trail(
    events: list[ChangeEvent], dictionary: DictionaryHistory | None = None, **opts: object
) -> list[dict]:
    """The trail of one transaction: BEGIN, ``events``, COMMIT."""
    result = _emit([_ev(EventKind.BEGIN), *events, _ev(EventKind.COMMIT)], dictionary, **opts)
    return [r.to_dict() for r in result.trail]


def test_insert_carries_every_column_with_nulls_and_only_tokens_once() -> None:
    # INSERT INTO student VALUES (1011, 'Jordan', NULL); INSERT ... (1012, NULL, 9000); COMMIT;
    trail = _trail([_insert(10, 1011, "Jordan", None), _insert(11, 1012, None, 9000)])
    assert [(r["io_type"], r["before_after"], r["trans_ind"]) for r in trail] == [(5, "A", 0), (5, "A", 2)]
    assert trail[0]["columns"] == {"STUDENT_KEY": "1011", "NAME": "Jordan", "FEE": None}
    assert trail[1]["columns"] == {"STUDENT_KEY": "1012", "NAME": None, "FEE": "9000"}
    assert set(trail[0]["tokens"]) == {"R", "L", "6"} and set(trail[1]["tokens"]) == {"R"}
    assert trail[0]["tokens"]["6"] == "4.11.854" and trail[0]["rowid"] == "AAASrPAAEAAAAQ2AAK"


def test_compressed_update_carries_key_and_set_columns_only() -> None:
    # UPDATE student SET fee = 6000 WHERE student_key = 1010;
    trail = _trail([_update(9, 1010, {2: N(9000)}, {2: N(6000)})])
    (rec,) = trail
    assert (rec["io_type"], rec["op"], rec["before_after"], rec["trans_ind"]) == (15, "UPDATE", "A", 3)
    assert rec["columns"] == {"STUDENT_KEY": "1010", "FEE": "6000"}
    assert rec["changed_columns"] == ["FEE"]


def test_key_update_is_a_primary_key_update_with_the_old_key() -> None:
    # UPDATE student SET student_key = 2010 WHERE student_key = 1010;
    trail = _trail([_update(9, 1010, {0: N(1010)}, {0: N(2010)})])
    (rec,) = trail
    assert (rec["io_type"], rec["op"]) == (115, "PK_UPDATE")
    assert rec["before"] == {"STUDENT_KEY": "1010"} and rec["columns"] == {"STUDENT_KEY": "2010"}


def test_delete_carries_the_key_from_the_undo() -> None:
    # DELETE FROM student WHERE student_key = 1011;
    (rec,) = _trail([_delete(10, 1011, "Jordan", 9000)])
    assert (rec["io_type"], rec["before_after"], rec["columns"]) == (3, "B", {"STUDENT_KEY": "1011"})
    (full,) = _trail([_delete(10, 1011, "Jordan", 9000)], full_deletes=True)
    assert full["columns"] == {"STUDENT_KEY": "1011", "NAME": "Jordan", "FEE": "9000"}


def test_unknown_object_is_counted_and_emitted_only_when_asked() -> None:
    event = _insert(1, 1, "x", 1)
    stranger = ChangeEvent.from_row(event.to_row() | {"obj": 99, "dataobj": 99})
    assert _trail([stranger]) == []
    emitted = _trail([stranger], emit_unknown=True)
    assert emitted[0]["table"] == "OBJ_99" and emitted[0]["columns"] == {
        "COL_0": "c102",
        "COL_1": "78",
        "COL_2": "c102",
    }


@pytest.mark.parametrize(("owner_filter", "expected"), [({"include_owners": frozenset({"US03"})}, 1),
                                                        ({"exclude_owners": frozenset({"US03"})}, 0),
                                                        ({"exclude_tables": frozenset({"US03.STUDENT"})}, 0)])  # fmt: skip
def test_owner_and_table_filters(owner_filter: dict[str, frozenset[str]], expected: int) -> None:
    assert len(_trail([_insert(1, 1, "x", 1)], **owner_filter)) == expected


def test_ddl_in_the_redo_opens_a_new_dictionary_version_from_its_scn() -> None:
    # ALTER TABLE us03.student ADD (email VARCHAR2(40)); then INSERT a row with an email; COMMIT
    before_ddl = _insert(1, 1, "a", 1)  # a change at an SCN before the DDL, committed after it
    ddl = _ev(EventKind.DDL, usn=5, slot=1, sqn=7, ddl_text="ALTER TABLE US03.STUDENT ADD (EMAIL VARCHAR2(40))",
              ddl_schema="US03")  # fmt: skip
    after = ((0, N(2)), (1, encode_text("b", "AL32UTF8")), (2, N(2)), (3, encode_text("b@x", "AL32UTF8")))
    insert = _ev(EventKind.CHANGE, redo_op=0x0B02, undo_op=3, row_slot=2, fb=0x2C, after=after)
    events = [_ev(EventKind.BEGIN), before_ddl, _ev(EventKind.BEGIN, usn=5, slot=1, sqn=7), ddl,
              _ev(EventKind.COMMIT, usn=5, slot=1, sqn=7), insert, _ev(EventKind.COMMIT)]  # fmt: skip
    result = _emit(events)
    trail = [r.to_dict() for r in result.trail]
    assert result.emit["ddl_alter"] == 1
    # the DDL's own transaction commits first: one record of IOType 160, the statement as its image
    ddl_record = trail[0]
    assert (ddl_record["io_type"], ddl_record["op"], ddl_record["trans_ind"]) == (160, "DDL", 3)
    assert (ddl_record["owner"], ddl_record["table"], ddl_record["xid"]) == ("US03", "STUDENT", "5.1.7")
    assert ddl_record["columns"] == {
        "OPERATION": "ALTER", "OBJECT_TYPE": "TABLE", "DDL_TEXT": "ALTER TABLE US03.STUDENT ADD (EMAIL VARCHAR2(40))"
    }  # fmt: skip
    assert ddl_record["rowid"] == "" and set(ddl_record["tokens"]) == {"L", "6"}
    assert result.counts["ddl_records"] == {"US03.STUDENT": {"ALTER": 1}}
    assert trail[1]["columns"] == {"STUDENT_KEY": "1", "NAME": "a", "FEE": "1"}  # the old version
    assert trail[2]["columns"] == {"STUDENT_KEY": "2", "NAME": "b", "FEE": "2", "EMAIL": "b@x"}


def test_ddl_outside_the_capture_scope_is_counted_not_emitted_and_unreadable_ddl_is_listed() -> None:
    # CREATE INDEX by SYS (excluded owner), then a statement the parser does not read, on a captured table
    sys_ddl = _ev(EventKind.DDL, usn=5, slot=1, sqn=7, ddl_text="CREATE INDEX SYS.I1 ON SYS.OBJ$ (NAME)",
                  ddl_schema="SYS", obj=0)  # fmt: skip
    odd = _ev(EventKind.DDL, usn=5, slot=1, sqn=8, ddl_text="ALTER TABLE US03.STUDENT ADD (C SOMETYPE_T)",
              ddl_schema="US03", scn=5000)  # fmt: skip
    events = [_ev(EventKind.BEGIN, usn=5, slot=1, sqn=7), sys_ddl, _ev(EventKind.COMMIT, usn=5, slot=1, sqn=7),
              _ev(EventKind.BEGIN, usn=5, slot=1, sqn=8), odd, _ev(EventKind.COMMIT, usn=5, slot=1, sqn=8)]  # fmt: skip
    result = _emit(events)
    trail = [r.to_dict() for r in result.trail]
    assert result.emit["ddl_out_of_scope"] == 1 and result.emit["ddl_unsupported"] == 1
    assert result.emit["ddl_other"] == 1  # the index: no dictionary change
    assert [r["columns"]["DDL_TEXT"] for r in trail] == ["ALTER TABLE US03.STUDENT ADD (C SOMETYPE_T)"]
    (problem,) = result.counts["ddl_problems"]
    assert (problem["kind"], problem["scn"], problem["text"]) == (
        "unsupported",
        5000,
        "ALTER TABLE US03.STUDENT ADD (C SOMETYPE_T)",
    )
    assert "SOMETYPE_T" in problem["message"]


def test_the_batch_dictionary_evolves_by_its_ddl_events(tmp_path: Path) -> None:
    # the Spark driver's step before assembly: ALTER TABLE us03.student ADD (email VARCHAR2(40)) at SCN
    # 5000, a CREATE INDEX (no say in the table's shape) and a statement the parser does not read
    from redo_lib.batch_dictionary import evolve_batch_dictionary

    source = tmp_path / "dictionary.in.json"
    source.write_text(_dictionary().to_json())
    add = _ev(EventKind.DDL, scn=5000, ddl_text="ALTER TABLE US03.STUDENT ADD (EMAIL VARCHAR2(40))",
              ddl_schema="US03")  # fmt: skip
    index = _ev(EventKind.DDL, scn=5001, obj=0, ddl_text="CREATE INDEX US03.I1 ON US03.STUDENT (NAME)",
                ddl_schema="US03")  # fmt: skip
    odd = _ev(
        EventKind.DDL, scn=5002, ddl_text="ALTER TABLE US03.STUDENT ADD (C SOMETYPE_T)", ddl_schema="US03"
    )
    location, counts, problems = evolve_batch_dictionary(
        str(source), [event_to_row(e) for e in (add, index, odd)], str(tmp_path / "batch")
    )
    assert location == str(tmp_path / "batch" / "dictionary.json")
    assert counts == {"ddl_alter": 1, "ddl_other": 1, "ddl_unsupported": 1}
    assert [(p["kind"], p["scn"], p["obj"]) for p in problems] == [("unsupported", 5002, OBJ)]
    evolved = load_dictionary(Path(location))
    assert [c.name for c in evolved.lookup(OBJ, 4999).columns] == ["STUDENT_KEY", "NAME", "FEE"]
    assert [c.name for c in evolved.lookup(OBJ, 5000).columns] == ["STUDENT_KEY", "NAME", "FEE", "EMAIL"]
    # no DDL: the dictionary is the one given, unless the batch wants its own copy
    assert evolve_batch_dictionary(str(source), [], str(tmp_path / "b2")) == (str(source), {}, [])
