"""Loading dictionaries: the real OLR schema checkpoint, small OLR documents, the SQL export's JSON, errors."""

from __future__ import annotations

import copy
import dataclasses
import json
import re
from pathlib import Path
from typing import Any

import pytest

from redo_lib.dictionary import (
    SYS_TABLES,
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
,{"obj":18,"dataobj":18,"owner":"SYS","name":"OBJ$","columns":[
{"col_no":1,"segcol_no":1,"intcol_no":1,"name":"OBJ#","type":"NUMBER","length":22,"char_length":null,"precision":null,"scale":null,"charset":null,"nullable":false,"hidden":false}
,{"col_no":2,"segcol_no":2,"intcol_no":2,"name":"DATAOBJ#","type":"NUMBER","length":22,"char_length":null,"precision":null,"scale":null,"charset":null,"nullable":true,"hidden":false}
,{"col_no":3,"segcol_no":3,"intcol_no":3,"name":"OWNER#","type":"NUMBER","length":22,"char_length":null,"precision":null,"scale":null,"charset":null,"nullable":false,"hidden":false}
,{"col_no":4,"segcol_no":4,"intcol_no":4,"name":"NAME","type":"VARCHAR2","length":128,"char_length":128,"precision":null,"scale":null,"charset":"CHAR_CS","nullable":false,"hidden":false}
,{"col_no":5,"segcol_no":5,"intcol_no":5,"name":"NAMESPACE","type":"NUMBER","length":22,"char_length":null,"precision":null,"scale":null,"charset":null,"nullable":false,"hidden":false}
,{"col_no":6,"segcol_no":6,"intcol_no":6,"name":"SUBNAME","type":"VARCHAR2","length":128,"char_length":128,"precision":null,"scale":null,"charset":"CHAR_CS","nullable":true,"hidden":false}
,{"col_no":7,"segcol_no":7,"intcol_no":7,"name":"TYPE#","type":"NUMBER","length":22,"char_length":null,"precision":null,"scale":null,"charset":null,"nullable":false,"hidden":false}
],"constraints":[
],"partitions":[
]}
,{"obj":22,"dataobj":10,"owner":"SYS","name":"USER$","columns":[
{"col_no":1,"segcol_no":1,"intcol_no":1,"name":"USER#","type":"NUMBER","length":22,"char_length":null,"precision":null,"scale":null,"charset":null,"nullable":false,"hidden":false}
,{"col_no":2,"segcol_no":2,"intcol_no":2,"name":"NAME","type":"VARCHAR2","length":128,"char_length":128,"precision":null,"scale":null,"charset":"CHAR_CS","nullable":false,"hidden":false}
],"constraints":[
],"partitions":[
]}
],"objects":[
{"obj":300,"dataobj":300,"owner":"HR","name":"PEOPLE","subname":null,"type":"TABLE"}
,{"obj":400,"dataobj":null,"owner":"SH","name":"SALES","subname":null,"type":"TABLE"}
,{"obj":401,"dataobj":411,"owner":"SH","name":"SALES","subname":"P2023","type":"TABLE PARTITION"}
,{"obj":402,"dataobj":null,"owner":"SH","name":"SALES","subname":"P2024","type":"TABLE PARTITION"}
,{"obj":450,"dataobj":450,"owner":"HR","name":"NOTES","subname":null,"type":"TABLE"}
],"sys":{"OBJ$":[
{"rowid":"AAAAASAAAAAAL+HAAA","valid_from_scn":5000,"valid_to_scn":null,"OBJ#":300,"DATAOBJ#":300,"OWNER#":61,"NAME":"PEOPLE","SUBNAME":null,"TYPE#":2,"FLAGS":0}
,{"rowid":"AAAAASAAAAAAL+HAAB","valid_from_scn":5000,"valid_to_scn":null,"OBJ#":400,"DATAOBJ#":null,"OWNER#":62,"NAME":"SALES","SUBNAME":null,"TYPE#":2,"FLAGS":0}
,{"rowid":"AAAAASAAAAAAL+HAAC","valid_from_scn":5000,"valid_to_scn":null,"OBJ#":401,"DATAOBJ#":411,"OWNER#":62,"NAME":"SALES","SUBNAME":"P2023","TYPE#":19,"FLAGS":0}
,{"rowid":"AAAAASAAAAAAL+HAAD","valid_from_scn":5000,"valid_to_scn":null,"OBJ#":402,"DATAOBJ#":null,"OWNER#":62,"NAME":"SALES","SUBNAME":"P2024","TYPE#":19,"FLAGS":0}
,{"rowid":"AAAAASAAAAAAL+HAAE","valid_from_scn":5000,"valid_to_scn":null,"OBJ#":450,"DATAOBJ#":450,"OWNER#":61,"NAME":"NOTES","SUBNAME":null,"TYPE#":2,"FLAGS":0}
],"TABPART$":[
{"rowid":"AAAAOzAAAAAAKq+AAA","valid_from_scn":5000,"valid_to_scn":null,"OBJ#":401,"DATAOBJ#":411,"BO#":400,"PART#":10}
],"TABCOMPART$":[
{"rowid":"AAAAPJAAAAAAKs+AAA","valid_from_scn":5000,"valid_to_scn":null,"OBJ#":402,"DATAOBJ#":null,"BO#":400,"PART#":20}
],"TABSUBPART$":[
],"USER$":[
{"rowid":"AAAAAKAAAAAAIbAAAA","valid_from_scn":5000,"valid_to_scn":null,"USER#":61,"NAME":"HR"}
,{"rowid":"AAAAAKAAAAAAIbAAAB","valid_from_scn":5000,"valid_to_scn":null,"USER#":62,"NAME":"SH"}
],"COL$":[
{"rowid":"AAAAACAAAAAAHRpAAn","valid_from_scn":5000,"valid_to_scn":null,"OBJ#":300,"COL#":1,"SEGCOL#":1,"INTCOL#":1,"NAME":"ID","TYPE#":2,"LENGTH":22,"PRECISION#":10,"SCALE":0,"NULL$":1,"PROPERTY":0,"CHARSETID":0,"CHARSETFORM":0}
,{"rowid":"AAAAACAAAAAAHRqAAA","valid_from_scn":5000,"valid_to_scn":null,"OBJ#":400,"COL#":1,"SEGCOL#":1,"INTCOL#":1,"NAME":"ID","TYPE#":2,"LENGTH":22,"PRECISION#":null,"SCALE":null,"NULL$":0,"PROPERTY":0,"CHARSETID":0,"CHARSETFORM":0}
,{"rowid":"AAAAACAAAAAAHRqAAB","valid_from_scn":5000,"valid_to_scn":null,"OBJ#":400,"COL#":2,"SEGCOL#":0,"INTCOL#":2,"NAME":"V","TYPE#":2,"LENGTH":22,"PRECISION#":null,"SCALE":null,"NULL$":0,"PROPERTY":65544,"CHARSETID":0,"CHARSETFORM":0}
],"CDEF$":[
{"rowid":"AAAAAdAAAAAAFehAAA","valid_from_scn":5000,"valid_to_scn":null,"OBJ#":300,"CON#":9001,"TYPE#":7}
,{"rowid":"AAAAAdAAAAAAFehAAB","valid_from_scn":5000,"valid_to_scn":null,"OBJ#":300,"CON#":9002,"TYPE#":7}
,{"rowid":"AAAAAdAAAAAAFehAAC","valid_from_scn":5000,"valid_to_scn":null,"OBJ#":300,"CON#":9003,"TYPE#":3}
,{"rowid":"AAAAAdAAAAAAFehAAD","valid_from_scn":5000,"valid_to_scn":null,"OBJ#":300,"CON#":9004,"TYPE#":3}
],"CCOL$":[
{"rowid":"AAAAAdAAAAAAFehAAE","valid_from_scn":5000,"valid_to_scn":null,"OBJ#":300,"CON#":9001,"INTCOL#":1}
,{"rowid":"AAAAAdAAAAAAFehAAF","valid_from_scn":5000,"valid_to_scn":null,"OBJ#":300,"CON#":9002,"INTCOL#":3}
,{"rowid":"AAAAAdAAAAAAFehAAG","valid_from_scn":5000,"valid_to_scn":null,"OBJ#":300,"CON#":9003,"INTCOL#":2}
,{"rowid":"AAAAAdAAAAAAFehAAH","valid_from_scn":5000,"valid_to_scn":null,"OBJ#":300,"CON#":9004,"INTCOL#":3}
]}}
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


def test_sql_export_sys_tables_and_sys_rows_load() -> None:
    h = load_dictionary(EXPORT)
    obj_table, user_table = h.lookup(18, 5000), h.lookup(22, 5000)
    assert (obj_table.full_name, obj_table.column_by_name("TYPE#").segcol_no) == ("SYS.OBJ$", 7)
    assert (user_table.full_name, user_table.dataobj) == ("SYS.USER$", 10)  # in its cluster's segment
    assert h.owners == ("HR", "SH")  # SYS is described, not exported
    assert h.sys_rows is not None
    rows = h.sys_rows.tables()
    assert [len(rows[t]) for t in SYS_TABLES] == [5, 1, 1, 0, 2, 3, 4, 4]
    assert rows["OBJ$"][2]["SUBNAME"] == "P2023" and rows["TABCOMPART$"][0]["DATAOBJ#"] is None
    # every column of the tables, a virtual one (SEGCOL# 0) included, rows of the cluster C_OBJ#
    assert [(r["OBJ#"], r["NAME"], r["SEGCOL#"]) for r in rows["COL$"]] == [
        (300, "ID", 1),
        (400, "ID", 1),
        (400, "V", 0),
    ]
    assert all(r["rowid"].startswith("AAAAAC") for r in rows["COL$"])
    # PEOPLE's constraints (NOT NULL ID and EMAIL, the unique keys on NAME and EMAIL) and their
    # columns, rows of the cluster C_COBJ# (data object 29)
    assert [(r["OBJ#"], r["CON#"], r["TYPE#"]) for r in rows["CDEF$"]] == [
        (300, 9001, 7), (300, 9002, 7), (300, 9003, 3), (300, 9004, 3),
    ]  # fmt: skip
    assert [(r["CON#"], r["INTCOL#"]) for r in rows["CCOL$"]] == [(9001, 1), (9002, 3), (9003, 2), (9004, 3)]
    assert all(r["rowid"].startswith("AAAAAd") for r in rows["CDEF$"] + rows["CCOL$"])
    again = load_dictionary(h.to_json())
    assert again.sys_json == h.sys_json and list(json.loads(again.sys_json or "{}")) == list(SYS_TABLES)


def test_a_sys_member_without_constraint_rows_still_loads() -> None:
    """A document written before CDEF$ / CCOL$ were followed: no such members, no constraint rows."""
    older = EXPORT[: EXPORT.index(',"CDEF$":[')] + "}}\n"
    h = load_dictionary(older)
    assert h.sys_rows is not None and h.sys_rows.count("CDEF$") == h.sys_rows.count("CCOL$") == 0
    assert h.sys_rows.count("COL$") == 3
    assert "CDEF$" not in (h.sys_json or "") and load_dictionary(h.to_json()) == h
    with pytest.raises(DictionaryError, match=r"sys\.CDEF\$\[0\]\.rowid"):
        load_dictionary(EXPORT.replace('"CDEF$":[\n{"rowid":"AAAAAdAAAAAAFehAAA"', '"CDEF$":[\n{"rowid":1'))


def test_a_sys_member_without_col_rows_still_loads() -> None:
    """A document written before COL$ was followed: no ``COL$`` member (nor ``CDEF$`` / ``CCOL$``),
    no column rows."""
    start = EXPORT.index(',"COL$":[')
    older = EXPORT[:start] + EXPORT[EXPORT.index("]}}", start) + 1 :]
    h = load_dictionary(older)
    assert h.sys_rows is not None and h.sys_rows.count("COL$") == 0 and h.sys_rows.count("USER$") == 2
    with pytest.raises(DictionaryError, match=r"sys\.USER\$"):
        load_dictionary(older.replace('"USER$":[', '"USERS":['))


# the JSON keys each row of the script's "sys" member is written with, in order (docs/dictionary.md)
SYS_ROW_KEYS = {
    "OBJ$": ["rowid", "valid_from_scn", "valid_to_scn", "OBJ#", "DATAOBJ#", "OWNER#", "NAME", "SUBNAME", "TYPE#", "FLAGS"],
    "TABPART$": ["rowid", "valid_from_scn", "valid_to_scn", "OBJ#", "DATAOBJ#", "BO#", "PART#"],
    "TABCOMPART$": ["rowid", "valid_from_scn", "valid_to_scn", "OBJ#", "DATAOBJ#", "BO#", "PART#"],
    "TABSUBPART$": ["rowid", "valid_from_scn", "valid_to_scn", "OBJ#", "DATAOBJ#", "POBJ#", "SUBPART#"],
    "USER$": ["rowid", "valid_from_scn", "valid_to_scn", "USER#", "NAME"],
    "COL$": ["rowid", "valid_from_scn", "valid_to_scn", "OBJ#", "COL#", "SEGCOL#", "INTCOL#", "NAME", "TYPE#",
             "LENGTH", "PRECISION#", "SCALE", "NULL$", "PROPERTY", "CHARSETID", "CHARSETFORM"],
    "CDEF$": ["rowid", "valid_from_scn", "valid_to_scn", "OBJ#", "CON#", "TYPE#"],
    "CCOL$": ["rowid", "valid_from_scn", "valid_to_scn", "OBJ#", "CON#", "INTCOL#"],
}  # fmt: skip


def test_export_script_writes_the_sys_tables_and_rows_the_loader_reads() -> None:
    """The script cannot run here (no Oracle): check its text against the document the loader reads."""
    sql = (REPO / "include" / "sql" / "export_dictionary.sql").read_text(encoding="utf-8")
    body = sql[sql.index("sys_rows AS (") : sql.index("header AS (")]
    branches = body.split("UNION ALL")
    assert len(branches) == len(SYS_TABLES)
    sources = {"OBJ$": "sys_objs", "TABPART$": "sys_tabparts", "TABCOMPART$": "sys_compparts",
               "TABSUBPART$": "sys_subparts", "USER$": "sys_users", "COL$": "sys_cols", "CDEF$": "sys_cdefs",
               "CCOL$": "sys_ccols"}  # fmt: skip
    for number, (table, branch) in enumerate(zip(SYS_TABLES, branches, strict=True), start=1):
        assert re.findall(r"'([A-Z_a-z#$]+)' VALUE", branch) == SYS_ROW_KEYS[table], table
        assert f"FROM {sources[table]} r CROSS JOIN scn s" in branch and re.search(
            rf"SELECT {number}\b", branch
        )
        assert f"SELECT {number}{' AS tbl_no' if number == 1 else ''}, '{table}'" in sql  # its member name
        assert f"sys.{table.lower()} " in sql  # read from the table itself
    assert "'rowid' VALUE r.rid" in body and sql.count("ROWIDTOCHAR(") == len(SYS_TABLES)
    assert (
        "'valid_from_scn' VALUE s.current_scn" in body
        and "'scn'              VALUE (SELECT s.current_scn FROM scn s)" in sql
    )
    # the SYS tables' layouts are "tables" entries, and the privileges to read them are in the header
    assert "t.table_name IN ('OBJ$', 'TABPART$', 'TABCOMPART$', 'TABSUBPART$', 'USER$',\n" in sql
    assert "'COL$', 'CDEF$', 'CCOL$')))" in sql
    # the constraints of the exported owners' tables, every type, as COL$'s rows are chosen
    for source, alias in (("sys_cdefs", "d"), ("sys_ccols", "cc")):
        block = sql[sql.index(f"{source} AS (") :]
        block = block[: block.index("\n),")]
        assert f"WHERE {alias}.obj# IN (SELECT so.obj# FROM sys_objs so WHERE so.type# = 2)" in block, source
    assert "ORDER BY r.obj#, r.con#)" in body and "ORDER BY r.obj#, r.con#, r.intcol#)" in body
    header = sql[: sql.index("SET ECHO OFF")]
    for table in SYS_TABLES:
        assert f"GRANT SELECT ON SYS.{table} TO" in header
    assert "SELECT ANY DICTIONARY" in header
    # the document's last lines: the objects, then "sys" with its eight members, then the end
    assert """'],"sys":{' ELSE '],' END || '"' || tbl || '":['""" in sql and "']}}' FROM dual" in sql


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


# -- the sys member from an OLR checkpoint (docs/dictionary.md, "The SYS rows") --------------------------

PARTITIONED = (
    REPO
    / ".."
    / "shared"
    / "realdata"
    / "rophy-olr-tests-23ai"
    / "schema"
    / "partitioned-table--TEST-chkpt-3811045.json"
)
PARTITIONED_SCN = 3811045


@pytest.fixture(scope="module")
def partitioned() -> DictionaryHistory:
    if not PARTITIONED.is_file():
        pytest.skip(f"real OLR checkpoint not found at {PARTITIONED}")
    return load_olr_checkpoint(PARTITIONED)


@pytest.mark.realdata
def test_real_partitioned_checkpoint_gives_the_sys_rows_of_the_tracked_user(
    partitioned: DictionaryHistory,
) -> None:
    assert partitioned.sys_rows is not None
    rows = partitioned.sys_rows.tables()
    assert list(rows) == list(SYS_TABLES)
    assert rows["USER$"] == [{"rowid": "AAAAAKAAAAAAIbAAAM", "valid_from_scn": PARTITIONED_SCN, "valid_to_scn": None,
                              "USER#": 138, "NAME": "OLR_TEST"}]  # fmt: skip
    # OLR_TEST's tables, partitions, subpartitions only: no index, view or LOB rows, no SYS or XDB rows
    assert {r["OWNER#"] for r in rows["OBJ$"]} == {138} and {r["TYPE#"] for r in rows["OBJ$"]} == {2, 19}
    by_obj = {r["OBJ#"]: r for r in rows["OBJ$"]}
    assert by_obj[73877] == {"rowid": "AAAAASAAAAAAL+HAAP", "valid_from_scn": PARTITIONED_SCN, "valid_to_scn": None,
                             "OBJ#": 73877, "DATAOBJ#": 73877, "OWNER#": 138, "NAME": "TEST_RANGE_PART",
                             "SUBNAME": None, "TYPE#": 19, "FLAGS": 0}  # fmt: skip
    assert by_obj[73874]["DATAOBJ#"] is None  # the partitioned table: no segment (OLR writes 0)
    assert [(r["rowid"], r["OBJ#"], r["BO#"]) for r in rows["TABPART$"]] == [
        ("AAAAOzAAAAAAKq+AAv", 73875, 73874), ("AAAAOzAAAAAAKq+AAw", 73876, 73874),
        ("AAAAOzAAAAAAKq+AAx", 73877, 73874), ("AAAAOzAAAAAAKq+AAy", 73880, 73879),
        ("AAAAOzAAAAAAKq+AAz", 73881, 73879), ("AAAAOzAAAAAAKq+AA0", 73882, 73879),
    ]  # fmt: skip
    assert all(r["PART#"] is None for r in rows["TABPART$"])  # not kept by OLR
    assert rows["TABCOMPART$"] == [] and rows["TABSUBPART$"] == []
    assert all(
        r["valid_from_scn"] == PARTITIONED_SCN and r["valid_to_scn"] is None for t in rows.values() for r in t
    )


@pytest.mark.realdata
@pytest.mark.parametrize(
    ("obj", "name", "columns"),
    [
        (
            18,
            "OBJ$",
            {"OBJ#": 1, "DATAOBJ#": 2, "OWNER#": 3, "NAME": 4, "SUBNAME": 6, "TYPE#": 7, "FLAGS": 14},
        ),
        (947, "TABPART$", {"OBJ#": 1, "DATAOBJ#": 2, "BO#": 3, "PART#": 4}),
        (969, "TABCOMPART$", {"OBJ#": 1, "DATAOBJ#": 2, "BO#": 3, "PART#": 4}),
        (959, "TABSUBPART$", {"OBJ#": 1, "DATAOBJ#": 2, "POBJ#": 3, "SUBPART#": 4}),
        (22, "USER$", {"USER#": 1, "NAME": 2}),
        (
            21,
            "COL$",
            {
                "OBJ#": 1,
                "COL#": 2,
                "SEGCOL#": 3,
                "NAME": 6,
                "TYPE#": 7,
                "LENGTH": 8,
                "PRECISION#": 10,
                "SCALE": 11,
                "NULL$": 12,
                "INTCOL#": 15,
                "PROPERTY": 16,
                "CHARSETID": 17,
                "CHARSETFORM": 18,
            },
        ),  # fmt: skip
    ],
)
def test_real_checkpoint_gives_the_sys_tables_layouts(
    partitioned: DictionaryHistory, obj: int, name: str, columns: dict[str, int]
) -> None:
    table = partitioned.lookup(obj, PARTITIONED_SCN)
    assert (table.owner, table.name) == ("SYS", name)
    assert {c: table.column_by_name(c).segcol_no for c in columns} == columns


@pytest.mark.realdata
def test_real_checkpoint_col_rows_are_the_tracked_tables_columns(partitioned: DictionaryHistory) -> None:
    """The COL$ rows of the sys member: every column of OLR_TEST's tables, in the cluster C_OBJ#
    (data object 2: ROWIDs start AAAAAC), the stored ones the same as the tables' columns."""
    assert partitioned.sys_rows is not None
    rows = partitioned.sys_rows.tables()
    tables = {r["OBJ#"] for r in rows["OBJ$"] if r["TYPE#"] == 2}
    assert rows["COL$"] and {r["OBJ#"] for r in rows["COL$"]} == tables
    assert all(r["rowid"].startswith("AAAAAC") for r in rows["COL$"])
    keys = [(r["OBJ#"], r["INTCOL#"]) for r in rows["COL$"]]
    assert keys == sorted(keys) and len(set(keys)) == len(keys)
    for obj in tables:
        version = partitioned.lookup(obj, PARTITIONED_SCN)
        stored = sorted((r["SEGCOL#"], r["NAME"], r["TYPE#"], r["NULL$"] == 0)
                        for r in rows["COL$"] if r["OBJ#"] == obj and r["SEGCOL#"] > 0)  # fmt: skip
        assert stored == [(c.segcol_no, c.name, c.type_code, c.nullable) for c in version.columns], (
            version.name
        )
    assert all(r["PRECISION#"] != -1 and r["SCALE"] != -1 for r in rows["COL$"])  # OLR's -1 is NULL


@pytest.mark.realdata
def test_real_checkpoint_constraint_rows_are_the_tracked_tables_keys(partitioned: DictionaryHistory) -> None:
    """The CDEF$ / CCOL$ rows of the sys member: OLR_TEST's tables' constraints, in the cluster C_COBJ#
    (data object 29: ROWIDs start AAAAAd). Each table has its primary key (TYPE# 2) on its first
    column, the one key column its version has, and an ALL COLUMN log group (TYPE# 17, no column);
    the key column is NOT NULL in COL$ with no NOT NULL check (TYPE# 7) of its own."""
    assert partitioned.sys_rows is not None
    rows = partitioned.sys_rows.tables()
    tables = {r["OBJ#"] for r in rows["OBJ$"] if r["TYPE#"] == 2}
    scn = {"valid_from_scn": PARTITIONED_SCN, "valid_to_scn": None}
    # TEST_RANGE_PART (73874, range partitioned) as the checkpoint's sys-cdef / sys-ccol rows give it
    assert [r for r in rows["CDEF$"] if r["OBJ#"] == 73874] == [
        {"rowid": "AAAAAdAAAAAALGgAAm", **scn, "OBJ#": 73874, "CON#": 8689, "TYPE#": 2},
        {"rowid": "AAAAAdAAAAAALGgAAn", **scn, "OBJ#": 73874, "CON#": 8690, "TYPE#": 17},
    ]
    assert [r for r in rows["CCOL$"] if r["OBJ#"] == 73874] == [
        {"rowid": "AAAAAdAAAAAALGgAAT", **scn, "OBJ#": 73874, "CON#": 8689, "INTCOL#": 1}
    ]
    assert {r["OBJ#"] for r in rows["CDEF$"]} == {r["OBJ#"] for r in rows["CCOL$"]} == tables
    assert all(r["rowid"].startswith("AAAAAd") for r in rows["CDEF$"] + rows["CCOL$"])
    kinds = {r["CON#"]: (r["OBJ#"], r["TYPE#"]) for r in rows["CDEF$"]}
    assert len(kinds) == len(rows["CDEF$"]) == 2 * len(tables)
    for obj in tables:
        version = partitioned.lookup(obj, PARTITIONED_SCN)
        mine = sorted(t for o, t in kinds.values() if o == obj)
        assert mine == [2, 17], version.name
        columns = [(kinds[r["CON#"]][1], r["INTCOL#"]) for r in rows["CCOL$"] if r["OBJ#"] == obj]
        assert columns == [(2, 1)], version.name
        names = {r["INTCOL#"]: r for r in rows["COL$"] if r["OBJ#"] == obj}
        assert (version.key_kind, version.key_columns) == (KeyKind.PRIMARY, (names[1]["NAME"],))
        assert [r["NAME"] for r in names.values() if r["NULL$"]] == [names[1]["NAME"]], version.name


@pytest.mark.realdata
def test_real_partitioned_checkpoint_round_trips_with_its_sys_rows(partitioned: DictionaryHistory) -> None:
    again = load_dictionary(partitioned.to_json())
    assert again == partitioned and again.sys_json == partitioned.sys_json


def _with_row_ids(doc: dict[str, Any]) -> dict[str, Any]:
    for member, rows in doc.items():
        if member.startswith("sys-"):
            for n, row in enumerate(rows):
                row["row-id"] = f"{member}:{n}"
    return doc


def test_olr_sys_rows_follow_the_tracked_users_tables_partitions_and_subpartitions() -> None:
    doc = copy.deepcopy(OLR_DOC)
    doc["users"] = ["SH"]
    doc["sys-user"].append({"user": 0, "name": "SYS", "spare1": [0, 0], "single": 1})
    doc["sys-obj"] += [
        {"owner": 0, "obj": 18, "data-obj": 18, "name": "OBJ$", "type": 2, "flags": [0, 0], "single": 1},
        {"owner": 50, "obj": 502, "data-obj": 0, "name": "SALES", "type": 19, "flags": [0, 0], "single": 0},
        {"owner": 50, "obj": 503, "data-obj": 513, "name": "SALES", "type": 34, "flags": [5, 1], "single": 0},
        {"owner": 50, "obj": 510, "data-obj": 510, "name": "SALES_PK", "type": 1, "flags": [0, 0], "single": 0},
    ]  # fmt: skip
    doc["sys-tabpart"].append({"obj": 19, "data-obj": 19, "bo": 18})  # a partition of another owner's table
    doc["sys-tabsubpart"].append(
        {"obj": 29, "data-obj": 29, "p-obj": 28}
    )  # of a composite partition not followed
    doc["sys-cdef"] += [{"con": 7, "obj": 18, "type": 7}, {"con": 11, "obj": 500, "type": 2}]  # SYS's, SH's
    doc["sys-ccol"] += [{"con": 7, "int-col": 1, "obj": 18, "spare1": [0, 0]},
                        {"con": 11, "int-col": 2, "obj": 500, "spare1": [0, 0]}]  # fmt: skip
    rows = load_olr_checkpoint(json.dumps(_with_row_ids(doc))).sys_rows
    assert rows is not None
    tables = rows.tables()
    scn = {"valid_from_scn": 777, "valid_to_scn": None}
    assert tables["USER$"] == [{"rowid": "sys-user:0", **scn, "USER#": 50, "NAME": "SH"}]
    assert [(r["OBJ#"], r["DATAOBJ#"], r["TYPE#"], r["FLAGS"], r["SUBNAME"]) for r in tables["OBJ$"]] == [
        (500, None, 2, 0, None), (501, 511, 19, 0, None), (502, None, 19, 0, None), (503, 513, 34, 5, None),
        (600, 600, 2, 128, None),  # the recycle bin's table: its OBJ$ row is there, as in OBJ$
    ]  # fmt: skip
    assert tables["TABPART$"] == [
        {"rowid": "sys-tabpart:0", **scn, "OBJ#": 501, "DATAOBJ#": 511, "BO#": 500, "PART#": None}
    ]
    assert tables["TABCOMPART$"] == [
        {"rowid": "sys-tabcompart:0", **scn, "OBJ#": 502, "DATAOBJ#": None, "BO#": 500, "PART#": None}
    ]
    assert tables["TABSUBPART$"] == [
        {"rowid": "sys-tabsubpart:0", **scn, "OBJ#": 503, "DATAOBJ#": 513, "POBJ#": 502, "SUBPART#": None}
    ]
    # the constraints of SH's table 500, every type (a log group too), by CON#; none of SYS.OBJ$'s
    assert tables["CDEF$"] == [
        {"rowid": "sys-cdef:0", **scn, "OBJ#": 500, "CON#": 9, "TYPE#": 3},
        {"rowid": "sys-cdef:1", **scn, "OBJ#": 500, "CON#": 10, "TYPE#": 17},
        {"rowid": "sys-cdef:3", **scn, "OBJ#": 500, "CON#": 11, "TYPE#": 2},
    ]
    assert tables["CCOL$"] == [
        {"rowid": "sys-ccol:0", **scn, "OBJ#": 500, "CON#": 9, "INTCOL#": 1},
        {"rowid": "sys-ccol:2", **scn, "OBJ#": 500, "CON#": 11, "INTCOL#": 2},
    ]


def test_olr_checkpoint_without_users_has_no_sys_rows() -> None:
    assert load_olr_checkpoint(olr()).sys_rows is None


def test_olr_sys_row_without_row_id_names_the_json_path() -> None:
    doc = _with_row_ids(copy.deepcopy(OLR_DOC))
    doc["users"] = ["SH"]
    del doc["sys-obj"][1]["row-id"]
    with pytest.raises(DictionaryError) as info:
        load_olr_checkpoint(json.dumps(doc))
    assert info.value.details["json_path"] == "$.sys-obj[1].row-id"
