"""DictionaryHistory: look-ups by object and SCN, new versions from DDL, partitions, own JSON round trip."""

from __future__ import annotations

import dataclasses
import json
import pickle
from typing import Any

import pytest

from redo_lib.dictionary.history import SYS_TABLES, DictionaryHistory, SysRows
from redo_lib.dictionary.model import ColumnDef, KeyKind, PartitionDef, TableVersion
from redo_lib.errors import DictionaryError, MissingObjectError


def column(name: str, segcol: int, type_code: int = 2, type_name: str = "NUMBER", **extra: Any) -> ColumnDef:
    return ColumnDef(
        col_no=segcol,
        segcol_no=segcol,
        name=name,
        type_code=type_code,
        type_name=type_name,
        length=22,
        **extra,
    )


EMP_V1 = TableVersion(
    obj=100,
    dataobj=100,
    owner="HR",
    name="EMP",
    columns=(column("ID", 1, nullable=False), column("NAME", 2, 1, "VARCHAR2", charset="AL32UTF8")),
    key_columns=("ID",),
    key_kind=KeyKind.PRIMARY,
    valid_from_scn=1000,
)
# ALTER TABLE EMP ADD (SALARY NUMBER) at SCN 5000
EMP_V2 = dataclasses.replace(EMP_V1, columns=(*EMP_V1.columns, column("SALARY", 3)), valid_from_scn=5000)

SALES = TableVersion(
    obj=200,
    dataobj=None,
    owner="SH",
    name="SALES",
    columns=(column("ID", 1), column("AMOUNT", 2)),
    key_columns=("ID", "AMOUNT"),
    key_kind=KeyKind.ALL,
    valid_from_scn=1000,
    partitions=(
        PartitionDef(obj=201, dataobj=211, name="P2023"),
        PartitionDef(obj=202, dataobj=None, name="P2024"),  # composite: no segment of its own
        PartitionDef(obj=203, dataobj=213, name="P2024_SP1"),
    ),
)


def history(*versions: TableVersion) -> DictionaryHistory:
    return DictionaryHistory(versions, db_charset="AL32UTF8", national_charset="AL16UTF16")


# -- look-ups ---------------------------------------------------------------------------------------


def test_lookup_returns_the_version_in_force() -> None:
    assert history(EMP_V1).lookup(100, 1000) is EMP_V1
    assert history(EMP_V1).lookup(100, 10**12) is EMP_V1


def test_lookup_before_the_first_version_fails() -> None:
    with pytest.raises(MissingObjectError) as info:
        history(EMP_V1).lookup(100, 999)
    assert info.value.details == {"obj": 100, "scn": 999}
    assert "HR.EMP" in str(info.value)


def test_unknown_object_raises_missing_object_with_obj_in_details() -> None:
    with pytest.raises(MissingObjectError) as info:
        history(EMP_V1).lookup(424242, 2000)
    assert info.value.details["obj"] == 424242
    assert info.value.details["scn"] == 2000
    assert info.value.kind == "missing_object"


def test_contains() -> None:
    h = history(EMP_V1)
    assert h.contains(100, 1000)
    assert not h.contains(100, 999)
    assert not h.contains(101, 1000)


@pytest.mark.parametrize(
    "obj",
    [
        pytest.param(200, id="table-obj"),
        pytest.param(201, id="partition-obj"),
        pytest.param(211, id="partition-dataobj"),
        pytest.param(202, id="composite-partition-obj"),
        pytest.param(203, id="subpartition-obj"),
        pytest.param(213, id="subpartition-dataobj"),
    ],
)
def test_partitions_resolve_to_their_table(obj: int) -> None:
    assert history(EMP_V1, SALES).lookup(obj, 1500) is SALES


def test_partition_lookup_respects_scn() -> None:
    with pytest.raises(MissingObjectError) as info:
        history(SALES).lookup(211, 999)
    assert info.value.details["obj"] == 211


def test_objects_and_versions() -> None:
    h = history(SALES, EMP_V1).with_version(EMP_V2)
    assert h.objects() == (100, 200)
    assert len(h) == 2
    assert [v.valid_from_scn for v in h.versions(100)] == [1000, 5000]
    assert h.versions(999) == ()


# -- new versions from DDL ------------------------------------------------------------------------------


def test_new_version_from_ddl_scn_on_and_old_one_before() -> None:
    old = history(EMP_V1)
    new = old.with_version(EMP_V2)
    assert new.lookup(100, 4999).columns == EMP_V1.columns
    assert new.lookup(100, 4999).valid_to_scn == 5000
    assert new.lookup(100, 5000) is EMP_V2
    assert new.lookup(100, 9999).column_by_segcol(3).name == "SALARY"
    # the original history is unchanged
    assert old.lookup(100, 9999) is EMP_V1
    assert old.versions(100) == (EMP_V1,)


def test_new_version_at_the_same_scn_replaces_it() -> None:
    again = dataclasses.replace(EMP_V2, name="EMPLOYEES")
    h = history(EMP_V1).with_version(EMP_V2).with_version(again)
    assert [v.name for v in h.versions(100)] == ["EMP", "EMPLOYEES"]
    assert h.lookup(100, 5000).name == "EMPLOYEES"


def test_new_version_before_an_existing_one_is_refused() -> None:
    h = history(EMP_V1).with_version(EMP_V2)
    with pytest.raises(DictionaryError) as info:
        h.with_version(dataclasses.replace(EMP_V1, valid_from_scn=3000))
    assert info.value.details["obj"] == 100


def test_version_of_a_new_table_is_added() -> None:
    h = history(EMP_V1).with_version(SALES)
    assert h.lookup(201, 1000) is SALES


def test_dropped_table_is_missing_from_the_drop_scn_on() -> None:
    h = history(EMP_V1, SALES).with_dropped(200, 3000)
    assert h.lookup(201, 2999).name == "SALES"
    with pytest.raises(MissingObjectError):
        h.lookup(200, 3000)
    with pytest.raises(MissingObjectError):
        h.lookup(201, 3000)


def test_dropping_an_unknown_table_is_refused() -> None:
    with pytest.raises(MissingObjectError):
        history(EMP_V1).with_dropped(100, 999)


def test_overlapping_versions_are_refused() -> None:
    with pytest.raises(DictionaryError):
        history(EMP_V1, EMP_V2)  # EMP_V1 is open-ended, EMP_V2 starts inside it


# -- own JSON format ------------------------------------------------------------------------------------


def test_to_json_from_json_round_trip() -> None:
    h = history(EMP_V1, SALES).with_version(EMP_V2)
    text = h.to_json()
    back = DictionaryHistory.from_json(text)
    assert back == h
    assert back.db_charset == "AL32UTF8"
    assert back.national_charset == "AL16UTF16"
    assert back.lookup(213, 2000).partitions == SALES.partitions
    assert back.to_json() == text


def test_to_json_is_valid_json_with_one_line_per_column() -> None:
    text = history(EMP_V1).to_json()
    doc = json.loads(text)
    assert doc["format"] == "redotrail-dictionary"
    assert doc["tables"][0]["key"] == {"kind": "primary", "columns": ["ID"]}
    assert sum('"segcol_no"' in line for line in text.splitlines()) == 2


def test_empty_history_round_trips() -> None:
    h = history()
    assert DictionaryHistory.from_json(h.to_json()) == h


def test_history_pickles() -> None:
    h = history(EMP_V1, SALES).with_version(EMP_V2)
    back = pickle.loads(pickle.dumps(h))
    assert back == h
    assert back.lookup(211, 1500).name == "SALES"


def test_from_json_names_the_source_and_json_path() -> None:
    doc = json.loads(history(EMP_V1).to_json())
    del doc["tables"][0]["columns"][1]["nullable"]
    with pytest.raises(DictionaryError) as info:
        DictionaryHistory.from_json(json.dumps(doc), source="dict.json")
    assert info.value.position.file == "dict.json"
    assert info.value.details["json_path"] == "$.tables[0].columns[1].nullable"


# -- the sys member: SYS dictionary rows, kept opaque for the core (docs/dictionary.md, "The SYS rows") --


def sys_member(**tables: list[dict[str, Any]]) -> dict[str, Any]:
    rows: dict[str, Any] = {name: [] for name in SYS_TABLES}
    rows.update(tables)
    return rows


SYS_OBJ_ROW = {"rowid": "AAAAASAAAAAAL+HAAP", "valid_from_scn": 1000, "valid_to_scn": None, "OBJ#": 201,
               "DATAOBJ#": 211, "OWNER#": 77, "NAME": "SALES", "SUBNAME": "P2023", "TYPE#": 19, "FLAGS": 0}  # fmt: skip
SYS_USER_ROW = {
    "rowid": "AAAAAKAAAAAAIbAAAM",
    "valid_from_scn": 1000,
    "valid_to_scn": 4000,
    "USER#": 77,
    "NAME": "SH",
}
SYS = sys_member(**{"OBJ$": [SYS_OBJ_ROW], "USER$": [SYS_USER_ROW]})
#: SALES's primary key (CON# 8609, on INTCOL# 1) as CDEF$ / CCOL$ rows of the cluster C_COBJ#
SYS_CDEF_ROW = {"rowid": "AAAAAdAAAAAAFehAAB", "valid_from_scn": 1000, "valid_to_scn": None, "OBJ#": 200,
                "CON#": 8609, "TYPE#": 2}  # fmt: skip
SYS_CCOL_ROW = {"rowid": "AAAAAdAAAAAAFehAAC", "valid_from_scn": 1000, "valid_to_scn": 3000, "OBJ#": 200,
                "CON#": 8609, "INTCOL#": 1}  # fmt: skip


def with_sys_member(h: DictionaryHistory, member: object) -> str:
    doc = json.loads(h.to_json())
    doc["sys"] = member
    return json.dumps(doc)


def test_sys_member_is_read_kept_as_given_and_written_back() -> None:
    h = DictionaryHistory.from_json(with_sys_member(history(EMP_V1, SALES), SYS))
    assert h.sys_rows is not None and h.sys_rows.tables() == SYS
    assert json.loads(h.sys_json or "") == SYS
    assert list(json.loads(h.sys_json or "")["OBJ$"][0]) == list(SYS_OBJ_ROW)  # column order kept
    text = h.to_json()
    assert json.loads(text)["sys"] == SYS
    assert sum('"rowid"' in line for line in text.splitlines()) == 2  # one line per row
    back = DictionaryHistory.from_json(text)
    assert back == h and back.to_json() == text
    assert pickle.loads(pickle.dumps(h)) == h


def test_constraint_rows_are_read_checked_and_written_back() -> None:
    """``CDEF$`` and ``CCOL$`` are members of ``SYS_TABLES``, after ``COL$``; their rows round-trip,
    one line each, columns in the order given; a member written before they were (no ``CDEF$`` /
    ``CCOL$``, nor ``COL$``) still loads."""
    assert SYS_TABLES[-3:] == ("COL$", "CDEF$", "CCOL$")
    member = sys_member(**{"CDEF$": [SYS_CDEF_ROW], "CCOL$": [SYS_CCOL_ROW]})
    h = DictionaryHistory.from_json(with_sys_member(history(EMP_V1, SALES), member))
    assert h.sys_rows is not None and h.sys_rows.tables() == member
    assert (h.sys_rows.count("CDEF$"), h.sys_rows.count("CCOL$")) == (1, 1)
    assert list(h.sys_rows.tables()["CCOL$"][0]) == list(SYS_CCOL_ROW)
    text = h.to_json()
    assert json.loads(text)["sys"] == member and list(json.loads(text)["sys"]) == list(SYS_TABLES)
    assert sum('"rowid"' in line for line in text.splitlines()) == 2
    back = DictionaryHistory.from_json(text)
    assert back == h and back.to_json() == text
    older = {k: v for k, v in SYS.items() if k not in ("COL$", "CDEF$", "CCOL$")}
    old = DictionaryHistory.from_json(with_sys_member(history(EMP_V1), older))
    assert old.sys_rows is not None and old.sys_rows.count("CDEF$") == old.sys_rows.count("CCOL$") == 0


def test_sys_member_is_part_of_equality_and_absent_by_default() -> None:
    plain = history(EMP_V1)
    assert plain.sys_rows is None and plain.sys_json is None and "sys" not in json.loads(plain.to_json())
    assert DictionaryHistory.from_json(with_sys_member(plain, SYS)) != plain
    assert DictionaryHistory.from_json(with_sys_member(plain, None)) == plain


def test_every_new_history_keeps_the_sys_rows() -> None:
    h = history(EMP_V1, SALES).with_sys(SysRows.from_document(SYS))
    for new in (
        h.with_version(EMP_V2),
        h.with_dropped(200, 3000),
        h.with_version(EMP_V2).with_dropped(100, 6000),
    ):
        assert new.sys_rows == h.sys_rows
        assert new.sys_json == h.sys_json


@pytest.mark.parametrize(
    "rows",
    [
        pytest.param(lambda: json.dumps(SYS), id="json-text"),
        pytest.param(lambda: json.dumps(SYS).encode(), id="json-bytes"),
        pytest.param(lambda: SYS, id="parsed-member"),
        pytest.param(lambda: SysRows.from_document(SYS), id="sys-rows"),
    ],
)
def test_with_sys_replaces_the_rows_and_leaves_the_versions(rows: Any) -> None:
    before = history(EMP_V1, SALES)
    after = before.with_sys(rows())
    assert after.sys_rows is not None and after.sys_rows.tables() == SYS
    assert before.sys_rows is None  # immutable: the old history is unchanged
    assert list(after) == list(before) and after.lookup(211, 1500).name == "SALES"
    assert after.with_sys(None) == before


def test_sys_rows_cannot_be_changed_through_their_accessors() -> None:
    h = history(EMP_V1).with_sys(SYS)
    assert h.sys_rows is not None
    h.sys_rows.tables()["OBJ$"].clear()
    assert h.sys_rows.count("OBJ$") == 1
    with pytest.raises(dataclasses.FrozenInstanceError):
        h.sys_rows.text = "{}"  # type: ignore[misc]


@pytest.mark.parametrize(
    ("member", "json_path"),
    [
        pytest.param([], "$.sys", id="not-an-object"),
        pytest.param({k: v for k, v in SYS.items() if k != "TABPART$"}, "$.sys.TABPART$", id="table-missing"),
        pytest.param(sys_member(**{"USER$": {}}), "$.sys.USER$", id="table-not-an-array"),
        pytest.param(sys_member(**{"OBJ$": [7]}), "$.sys.OBJ$[0]", id="row-not-an-object"),
        pytest.param(sys_member(**{"OBJ$": [{**SYS_OBJ_ROW, "rowid": None}]}), "$.sys.OBJ$[0].rowid", id="rowid-null"),
        pytest.param(sys_member(**{"OBJ$": [{k: v for k, v in SYS_OBJ_ROW.items() if k != "rowid"}]}),
                     "$.sys.OBJ$[0].rowid", id="rowid-missing"),
        pytest.param(sys_member(**{"TABPART$": [{"rowid": "A", "valid_from_scn": "1000", "valid_to_scn": None}]}),
                     "$.sys.TABPART$[0].valid_from_scn", id="valid-from-a-string"),
        pytest.param(sys_member(**{"TABPART$": [{"rowid": "A", "valid_to_scn": None}]}),
                     "$.sys.TABPART$[0].valid_from_scn", id="valid-from-missing"),
        pytest.param(sys_member(**{"USER$": [{"rowid": "A", "valid_from_scn": 1, "valid_to_scn": 2.5}]}),
                     "$.sys.USER$[0].valid_to_scn", id="valid-to-a-float"),
        pytest.param(sys_member(**{"OBJ$": [{**SYS_OBJ_ROW, "FLAGS": [0, 0]}]}), "$.sys.OBJ$[0].FLAGS", id="value-an-array"),
        pytest.param(sys_member(**{"OBJ$": [{**SYS_OBJ_ROW, "TYPE#": True}]}), "$.sys.OBJ$[0].TYPE#", id="value-a-boolean"),
        pytest.param(sys_member(**{"CDEF$": {}}), "$.sys.CDEF$", id="cdef-not-an-array"),
        pytest.param(sys_member(**{"CCOL$": [{**SYS_CCOL_ROW, "INTCOL#": 1.5}]}), "$.sys.CCOL$[0].INTCOL#",
                     id="ccol-value-a-float"),
        pytest.param(sys_member(**{"CDEF$": [{k: v for k, v in SYS_CDEF_ROW.items() if k != "valid_from_scn"}]}),
                     "$.sys.CDEF$[0].valid_from_scn", id="cdef-valid-from-missing"),
    ],
)  # fmt: skip
def test_malformed_sys_member_names_its_json_path(member: object, json_path: str) -> None:
    text = with_sys_member(history(EMP_V1), member)
    with pytest.raises(DictionaryError) as info:
        DictionaryHistory.from_json(text, source="dict.json")
    assert info.value.details["json_path"] == json_path
    assert info.value.position.file == "dict.json"
    with pytest.raises(DictionaryError) as again:
        history(EMP_V1).with_sys(json.dumps(member))
    assert again.value.details["json_path"] == json_path


def test_sys_rows_that_are_not_json_are_a_dictionary_error() -> None:
    with pytest.raises(DictionaryError) as info:
        history(EMP_V1).with_sys('{"OBJ$": [')
    assert info.value.details["json_path"] == "$.sys"
