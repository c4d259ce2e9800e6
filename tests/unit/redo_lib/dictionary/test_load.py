"""Loading dictionaries: the real OLR schema checkpoint, small OLR documents, the SQL export's JSON, errors."""

from __future__ import annotations

import copy
import dataclasses
import json
from pathlib import Path
from typing import Any

import pytest

from redo_lib.dictionary import (
    DictionaryHistory,
    KeyKind,
    PartitionDef,
    load_dictionary,
    load_olr_checkpoint,
    load_redotrail_json,
)
from redo_lib.dictionary.model import ColumnDef
from redo_lib.errors import DictionaryError, MissingObjectError

REPO = Path(__file__).resolve().parents[4]
CHECKPOINT = (
    REPO / ".." / "shared" / "realdata" / "rophy-olr-example-free-23" / "schema" / "TEST-chkpt-2266634.json"
)
CHECKPOINT_SCN = 2266634

needs_checkpoint = pytest.mark.skipif(
    not CHECKPOINT.is_file(), reason=f"real OLR checkpoint not found at {CHECKPOINT}"
)


@pytest.fixture(scope="module")
def real() -> DictionaryHistory:
    if not CHECKPOINT.is_file():
        pytest.skip(f"real OLR checkpoint not found at {CHECKPOINT}")
    return load_olr_checkpoint(CHECKPOINT)


# -- the real OLR checkpoint (Oracle 23.6 FREE, rophy/olr example-free-23) --------------------------------


@pytest.mark.realdata
@needs_checkpoint
def test_real_checkpoint_test_cdc(real: DictionaryHistory) -> None:
    table = real.lookup(72726, 2267707)  # the insert's SCN in the redo
    assert table.full_name == "OLR_TEST.TEST_CDC"
    assert (table.obj, table.dataobj) == (72726, 72726)
    assert table.valid_from_scn == CHECKPOINT_SCN
    assert table.valid_to_scn is None
    ident, name = table.columns
    assert (ident.name, ident.segcol_no, ident.type_code, ident.type_name, ident.nullable) == (
        "ID",
        1,
        2,
        "NUMBER",
        False,
    )
    assert (name.name, name.segcol_no, name.type_code, name.type_name, name.length) == (
        "NAME",
        2,
        1,
        "VARCHAR2",
        100,
    )
    assert name.charset == "AL32UTF8"
    assert ident.charset is None
    assert (table.key_kind, table.key_columns) == (KeyKind.PRIMARY, ("ID",))
    assert table.partitions == ()


@pytest.mark.realdata
@needs_checkpoint
def test_real_checkpoint_charsets(real: DictionaryHistory) -> None:
    assert (real.db_charset, real.national_charset) == ("AL32UTF8", "AL16UTF16")


@pytest.mark.realdata
@needs_checkpoint
def test_real_checkpoint_holds_every_table(real: DictionaryHistory) -> None:
    assert len(real) == 20
    assert {real.lookup(o, CHECKPOINT_SCN).full_name for o in (4, 21, 25889)} == {
        "SYS.TAB$",
        "SYS.COL$",
        "XDB.XDB$TTSET",
    }


@pytest.mark.realdata
@needs_checkpoint
def test_real_checkpoint_lookup_before_checkpoint_scn_fails(real: DictionaryHistory) -> None:
    with pytest.raises(MissingObjectError) as info:
        real.lookup(72726, CHECKPOINT_SCN - 1)
    assert info.value.details["obj"] == 72726


@pytest.mark.realdata
@needs_checkpoint
def test_real_checkpoint_clustered_table_places_columns_by_segcol(real: DictionaryHistory) -> None:
    cdef = real.lookup(31, CHECKPOINT_SCN)  # SYS.CDEF$ lives in a cluster: SEGCOL# differs from COL#
    condition = cdef.column_by_segcol(21)
    assert (condition.name, condition.col_no, condition.type_name) == ("CONDITION", 12, "LONG")
    assert cdef.column_by_segcol(1).name == "OBJ#"


@pytest.mark.realdata
@needs_checkpoint
def test_real_checkpoint_virtual_column_has_no_place(real: DictionaryHistory) -> None:
    table = real.lookup(26797, CHECKPOINT_SCN)  # XDB.X$PT...: SYS_NC00003$ has SEGCOL# 0
    assert [c.name for c in table.columns] == ["PATH", "ID"]


@pytest.mark.realdata
@needs_checkpoint
def test_real_checkpoint_unique_key_on_nullable_column_is_not_the_key(real: DictionaryHistory) -> None:
    ttset = real.lookup(25889, CHECKPOINT_SCN)  # unique constraint on OBJ#, a nullable column
    assert ttset.column_by_name("OBJ#").nullable
    assert (ttset.key_kind, ttset.key_columns) == (KeyKind.ALL, ("GUID", "TOKSUF", "FLAGS", "OBJ#"))


@pytest.mark.realdata
@needs_checkpoint
def test_real_checkpoint_ddl_opens_a_new_version(real: DictionaryHistory) -> None:
    old = real.lookup(72726, CHECKPOINT_SCN)
    extra = ColumnDef(col_no=3, segcol_no=3, name="NOTE", type_code=1, type_name="VARCHAR2", length=10)
    new = dataclasses.replace(old, columns=(*old.columns, extra), valid_from_scn=2267000)
    h = real.with_version(new)
    assert h.lookup(72726, 2266999).columns == old.columns
    assert h.lookup(72726, 2267000).column_by_segcol(3).name == "NOTE"
    assert h.lookup(72726, 2267707) is new


@pytest.mark.realdata
@needs_checkpoint
def test_real_checkpoint_round_trips_through_own_format(real: DictionaryHistory, tmp_path: Path) -> None:
    path = tmp_path / "dictionary.json"
    path.write_text(real.to_json(), encoding="utf-8")
    assert load_redotrail_json(path) == real
    assert load_dictionary(path) == real


@pytest.mark.realdata
@needs_checkpoint
def test_load_dictionary_detects_an_olr_checkpoint(real: DictionaryHistory) -> None:
    assert load_dictionary(CHECKPOINT) == real
    assert load_dictionary(str(CHECKPOINT)) == real


# -- small OLR documents -------------------------------------------------------------------------------

OLR_DOC: dict[str, Any] = {
    "database": "DB",
    "scn": 777,
    "nls-character-set": "WE8MSWIN1252",
    "nls-nchar-character-set": "AL16UTF16",
    "sys-user": [{"row-id": "u", "user": 50, "name": "SH", "spare1": [0, 0], "single": 0}],
    "sys-obj": [
        {"owner": 50, "obj": 500, "data-obj": 0, "name": "SALES", "type": 2, "flags": [0, 0], "single": 0},
        {"owner": 50, "obj": 501, "data-obj": 511, "name": "SALES", "type": 19, "flags": [0, 0], "single": 0},
        {"owner": 50, "obj": 600, "data-obj": 600, "name": "BIN$old", "type": 2, "flags": [128, 0], "single": 0},
    ],
    "sys-tab": [
        {"obj": 500, "data-obj": 0, "ts": 4, "clu-cols": 0, "flags": [0, 0], "property": [32, 0]},
        {"obj": 600, "data-obj": 600, "ts": 4, "clu-cols": 0, "flags": [0, 0], "property": [0, 0]},
    ],
    "sys-col": [
        {"obj": 500, "col": 1, "seg-col": 1, "int-col": 1, "name": "ID", "type": 2, "length": 22,
         "precision": 10, "scale": 0, "charset-form": 0, "charset-id": 0, "null": 1, "property": [0, 0]},
        {"obj": 500, "col": 2, "seg-col": 2, "int-col": 2, "name": "NOTE", "type": 1, "length": 40,
         "precision": -1, "scale": -1, "charset-form": 2, "charset-id": 2000, "null": 0, "property": [0, 0]},
        {"obj": 500, "col": 3, "seg-col": 0, "int-col": 3, "name": "V", "type": 2, "length": 22,
         "precision": -1, "scale": -1, "charset-form": 0, "charset-id": 0, "null": 0, "property": [65544, 0]},
        {"obj": 500, "col": 0, "seg-col": 3, "int-col": 4, "name": "SYS_C00004$", "type": 100, "length": 4,
         "precision": 126, "scale": -127, "charset-form": 0, "charset-id": 0, "null": 0, "property": [32800, 0]},
        {"obj": 600, "col": 1, "seg-col": 1, "int-col": 1, "name": "X", "type": 2, "length": 22,
         "precision": -1, "scale": -1, "charset-form": 0, "charset-id": 0, "null": 0, "property": [0, 0]},
    ],
    "sys-cdef": [{"con": 9, "obj": 500, "type": 3}, {"con": 10, "obj": 500, "type": 17}],
    "sys-ccol": [{"con": 9, "int-col": 1, "obj": 500, "spare1": [0, 0]}],
    "sys-tabpart": [{"obj": 501, "data-obj": 511, "bo": 500}],
    "sys-tabcompart": [{"obj": 502, "data-obj": 0, "bo": 500}],
    "sys-tabsubpart": [{"obj": 503, "data-obj": 513, "p-obj": 502}],
}  # fmt: skip


def olr(**changes: Any) -> str:
    doc = copy.deepcopy(OLR_DOC)
    doc.update(changes)
    return json.dumps(doc)


def test_olr_partitions_and_subpartitions_resolve_to_the_table() -> None:
    h = load_olr_checkpoint(olr())
    sales = h.lookup(500, 777)
    assert sales.partitions == (
        PartitionDef(obj=501, dataobj=511),
        PartitionDef(obj=502, dataobj=None),
        PartitionDef(obj=503, dataobj=513),
    )
    assert sales.dataobj is None
    for obj in (501, 511, 502, 503, 513):
        assert h.lookup(obj, 777) is sales


def test_olr_columns_charsets_hidden_and_unique_key() -> None:
    sales = load_olr_checkpoint(olr()).lookup(500, 777)
    assert [c.name for c in sales.columns] == ["ID", "NOTE", "SYS_C00004$"]  # V is virtual
    note = sales.column_by_name("NOTE")
    assert (note.type_name, note.charset) == ("NVARCHAR2", "AL16UTF16")
    assert sales.column_by_name("ID").precision == 10
    assert sales.column_by_name("ID").scale == 0
    assert sales.column_by_segcol(3).hidden
    assert (sales.key_kind, sales.key_columns) == (KeyKind.UNIQUE, ("ID",))


def test_olr_dropped_table_is_skipped() -> None:
    assert not load_olr_checkpoint(olr()).contains(600, 777)


def test_olr_missing_table_list_names_the_json_path(tmp_path: Path) -> None:
    doc = json.loads(olr())
    del doc["sys-col"]
    path = tmp_path / "DB-chkpt-777.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    with pytest.raises(DictionaryError) as info:
        load_olr_checkpoint(path)
    assert info.value.position.file == str(path)
    assert info.value.details["json_path"] == "$.sys-col"


def test_olr_mistyped_field_names_the_json_path() -> None:
    doc = json.loads(olr())
    doc["sys-col"][1]["seg-col"] = "2"
    with pytest.raises(DictionaryError) as info:
        load_olr_checkpoint(json.dumps(doc))
    assert info.value.details["json_path"] == "$.sys-col[1].seg-col"
    assert "integer" in info.value.message


def test_olr_owner_missing_from_sys_user_is_an_error() -> None:
    with pytest.raises(DictionaryError) as info:
        load_olr_checkpoint(olr(**{"sys-user": []}))
    assert info.value.details["json_path"] == "$.sys-obj[0].owner"


def test_olr_checkpoint_without_schema_is_an_error() -> None:
    with pytest.raises(DictionaryError) as info:
        load_dictionary(json.dumps({"database": "DB", "scn": 900, "schema-ref-scn": 777}))
    assert info.value.details["json_path"] == "$.schema-ref-scn"


# -- the SQL export's JSON (include/sql/export_dictionary.sql) -----------------------------------------

# As the export script writes it: one JSON_OBJECT per line, commas leading.
EXPORT = """{"format":"redotrail-dictionary","format_version":1,"scn":5000,"max_object_id":90210,"owners":["HR","SH"],"db_charset":"WE8MSWIN1252","national_charset":"AL16UTF16","exported_by":"include/sql/export_dictionary.sql","tables":[
{"obj":300,"dataobj":300,"owner":"HR","name":"PEOPLE","columns":[
{"col_no":1,"segcol_no":1,"intcol_no":1,"name":"ID","type":"NUMBER","length":22,"char_length":null,"precision":10,"scale":0,"charset":null,"nullable":false,"hidden":false}
,{"col_no":2,"segcol_no":2,"intcol_no":2,"name":"NAME","type":"NVARCHAR2","length":200,"char_length":100,"precision":null,"scale":null,"charset":"NCHAR_CS","nullable":true,"hidden":false}
,{"col_no":3,"segcol_no":3,"intcol_no":3,"name":"EMAIL","type":"VARCHAR2","length":50,"char_length":50,"precision":null,"scale":null,"charset":"CHAR_CS","nullable":false,"hidden":false}
,{"col_no":null,"segcol_no":4,"intcol_no":4,"name":"SYS_C00004_24010112:00:00$","type":"DATE","length":7,"char_length":null,"precision":null,"scale":null,"charset":null,"nullable":true,"hidden":true}
,{"col_no":4,"segcol_no":5,"intcol_no":5,"name":"HIRED","type":"TIMESTAMP(6) WITH TIME ZONE","length":13,"char_length":null,"precision":null,"scale":6,"charset":null,"nullable":true,"hidden":false}
],"constraints":[
{"name":"PEOPLE_A_UK","type":"U","columns":["NAME"]}
,{"name":"PEOPLE_B_UK","type":"U","columns":["EMAIL"]}
],"partitions":[
]}
,{"obj":400,"dataobj":null,"owner":"SH","name":"SALES","columns":[
{"col_no":1,"segcol_no":1,"intcol_no":1,"name":"ID","type":"NUMBER","length":22,"char_length":null,"precision":null,"scale":null,"charset":null,"nullable":true,"hidden":false}
,{"col_no":2,"segcol_no":null,"intcol_no":2,"name":"V","type":"NUMBER","length":22,"char_length":null,"precision":null,"scale":null,"charset":null,"nullable":true,"hidden":false}
,{"col_no":3,"segcol_no":2,"intcol_no":3,"name":"DOC","type":"CLOB","length":4000,"char_length":null,"precision":null,"scale":null,"charset":"CHAR_CS","nullable":true,"hidden":false}
],"constraints":[
],"partitions":[
{"obj":401,"dataobj":411,"name":"P2023"}
,{"obj":402,"dataobj":null,"name":"P2024"}
]}
],"objects":[
{"obj":300,"dataobj":300,"owner":"HR","name":"PEOPLE","subname":null,"type":"TABLE"}
,{"obj":400,"dataobj":null,"owner":"SH","name":"SALES","subname":null,"type":"TABLE"}
,{"obj":401,"dataobj":411,"owner":"SH","name":"SALES","subname":"P2023","type":"TABLE PARTITION"}
,{"obj":402,"dataobj":null,"owner":"SH","name":"SALES","subname":"P2024","type":"TABLE PARTITION"}
,{"obj":450,"dataobj":450,"owner":"HR","name":"NOTES","subname":null,"type":"TABLE"}
]}
"""


def test_sql_export_loads() -> None:
    h = load_dictionary(EXPORT)
    assert (h.db_charset, h.national_charset) == ("WE8MSWIN1252", "AL16UTF16")
    people = h.lookup(300, 5000)
    assert people.valid_from_scn == 5000
    assert [(c.name, c.segcol_no, c.type_code) for c in people.columns] == [
        ("ID", 1, 2),
        ("NAME", 2, 1),
        ("EMAIL", 3, 1),
        ("SYS_C00004_24010112:00:00$", 4, 12),
        ("HIRED", 5, 181),
    ]
    assert people.column_by_name("NAME").charset == "AL16UTF16"
    assert people.column_by_name("EMAIL").charset == "WE8MSWIN1252"
    assert people.column_by_name("NAME").char_length == 100
    hired = people.column_by_segcol(5)
    assert (hired.type_name, hired.scale) == ("TIMESTAMP WITH TIME ZONE", 6)
    assert people.column_by_segcol(4).hidden
    assert people.column_by_segcol(4).col_no == 0
    # PEOPLE_A_UK is on a nullable column: the next unique key is the key
    assert (people.key_kind, people.key_columns) == (KeyKind.UNIQUE, ("EMAIL",))


def test_sql_export_partitions_virtual_columns_and_all_columns_key() -> None:
    sales = load_redotrail_json(EXPORT).lookup(411, 6000)
    assert sales.full_name == "SH.SALES"
    assert [c.name for c in sales.columns] == ["ID", "DOC"]
    assert (sales.key_kind, sales.key_columns) == (KeyKind.ALL, ("ID",))
    assert sales.partitions[1] == PartitionDef(obj=402, dataobj=None, name="P2024")


def test_sql_export_scope_owners_and_their_objects_round_trip() -> None:
    h = load_dictionary(EXPORT)
    assert h.max_object_id == 90210 and h.owners == ("HR", "SH")
    assert [(o.obj, o.dataobj, o.full_name, o.subname, o.type) for o in h.owner_objects] == [
        (300, 300, "HR.PEOPLE", None, "TABLE"),
        (400, None, "SH.SALES", None, "TABLE"),
        (401, 411, "SH.SALES", "P2023", "TABLE PARTITION"),
        (402, None, "SH.SALES", "P2024", "TABLE PARTITION"),
        (450, 450, "HR.NOTES", None, "TABLE"),
    ]
    again = load_dictionary(h.to_json())
    assert again == h and again.owner_objects == h.owner_objects and again.owners == h.owners
    # kept through new versions (DDL), and part of equality
    dropped = h.with_dropped(300, 5001)
    assert dropped.owners == h.owners and dropped.owner_objects == h.owner_objects
    assert load_dictionary(EXPORT.replace(',"owners":["HR","SH"]', "")) != h


def test_sql_export_before_its_scn_is_missing() -> None:
    with pytest.raises(MissingObjectError):
        load_dictionary(EXPORT).lookup(300, 4999)


# -- errors --------------------------------------------------------------------------------------------


def test_malformed_json_names_the_file_and_line(tmp_path: Path) -> None:
    path = tmp_path / "broken.json"
    path.write_text('{"format": "redotrail-dictionary",\n "tables": [,]}\n', encoding="utf-8")
    for loader in (load_dictionary, load_redotrail_json, load_olr_checkpoint):
        with pytest.raises(DictionaryError) as info:
            loader(path)
        assert info.value.position.file == str(path)
        assert info.value.position.line == 2
        assert str(path) in str(info.value)


def test_missing_member_names_the_file_and_json_path(tmp_path: Path) -> None:
    doc = json.loads(EXPORT)
    del doc["tables"][1]["columns"][2]["length"]
    path = tmp_path / "dictionary.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    with pytest.raises(DictionaryError) as info:
        load_dictionary(path)
    assert info.value.position.file == str(path)
    assert info.value.details["json_path"] == "$.tables[1].columns[2].length"
    assert "$.tables[1].columns[2].length" in str(info.value)


@pytest.mark.parametrize(
    ("mutate", "json_path"),
    [
        pytest.param(lambda d: d["tables"][0].update(obj="300"), "$.tables[0].obj", id="obj-as-string"),
        pytest.param(lambda d: d["tables"][0]["columns"][0].update(nullable="N"), "$.tables[0].columns[0].nullable", id="nullable-not-bool"),
        pytest.param(lambda d: d["tables"][0]["constraints"][0].update(type="R"), "$.tables[0].constraints[0].type", id="foreign-key"),
        pytest.param(lambda d: d.pop("db_charset"), "$.db_charset", id="no-db-charset"),
        pytest.param(lambda d: d.pop("scn"), "$.tables[0].valid_from_scn", id="no-scn-anywhere"),
        pytest.param(lambda d: d.update(format_version=2), "$.format_version", id="newer-format"),
        pytest.param(lambda d: d["tables"][0]["columns"][1].update(segcol_no=1), "$.tables[0]", id="duplicate-segcol"),
    ],
)  # fmt: skip
def test_bad_member_names_its_json_path(mutate: Any, json_path: str) -> None:
    doc = json.loads(EXPORT)
    mutate(doc)
    with pytest.raises(DictionaryError) as info:
        load_redotrail_json(json.dumps(doc))
    assert info.value.details["json_path"] == json_path


def test_own_loader_refuses_an_olr_checkpoint() -> None:
    with pytest.raises(DictionaryError) as info:
        load_redotrail_json(olr())
    assert info.value.details["json_path"] == "$.format"


def test_unrecognized_document_is_a_dictionary_error() -> None:
    with pytest.raises(DictionaryError) as info:
        load_dictionary('{"hello": 1}')
    assert info.value.details["json_path"] == "$"


def test_json_that_is_not_an_object_is_a_dictionary_error(tmp_path: Path) -> None:
    path = tmp_path / "list.json"
    path.write_text("[1, 2]", encoding="utf-8")
    with pytest.raises(DictionaryError) as info:
        load_olr_checkpoint(path)
    assert info.value.position.file == str(path)
    assert info.value.details["json_path"] == "$"


def test_missing_file_names_it(tmp_path: Path) -> None:
    path = tmp_path / "absent.json"
    with pytest.raises(DictionaryError) as info:
        load_dictionary(path)
    assert info.value.position.file == str(path)
