"""The generator's ``SYS.COL$`` rows (synth/colrows.py): the export's copy, the simulated table after
each column DDL, and the rows the Rust core follows from the redo (docs/dictionary.md, "The SYS
rows"). The expectations come from the scenario below (its SQL), never from the decoder.

The scenario, in a WE8ISO8859P1 database with the UTF8 national set (CHARSETID 31 / 871)::

    CREATE TABLE app.docs (id NUMBER NOT NULL PRIMARY KEY, note VARCHAR2(20), xmlcol XMLTYPE,
                           label NVARCHAR2(10), amount NUMBER(8,2));  -- + hidden SYS_NC00004$ BLOB
    CREATE TABLE app.p (id NUMBER NOT NULL PRIMARY KEY, body CLOB) PARTITION BY RANGE (id) (...);
    ALTER TABLE app.docs ADD (memo NCHAR(4));                -- COL$: 1 insert
    ALTER TABLE app.docs RENAME COLUMN note TO remark;       -- 1 update (NAME)
    ALTER TABLE app.docs MODIFY (amount NUMBER(12,2));       -- 1 update (PRECISION#)
    ALTER TABLE app.docs MODIFY (remark VARCHAR2(40));       -- 1 update (LENGTH, SEGCOLLENGTH)
    ALTER TABLE app.docs DROP COLUMN remark;                 -- 1 delete, 5 updates (SEGCOL# 3..7)
    CREATE TABLE app.newt (id NUMBER(10) NOT NULL, body CLOB, tag CHAR(3), ...);  -- OBJ$ 1, COL$ 3,
                                                             -- CDEF$ 1 + CCOL$ 1 (its primary key)
    ALTER TABLE app.newt ADD (extra VARCHAR2(5));            -- 1 insert
    TRUNCATE TABLE app.docs;                                 -- OBJ$ 1 update, no COL$
    ALTER TABLE app.p ADD PARTITION p2 VALUES LESS THAN (200);  -- OBJ$ + TABPART$ inserts
    DROP TABLE app.newt;                                     -- OBJ$ 1 update (recycle bin)

so 14 COL$ row changes and 21 SYS row changes in all, every one on a followed (APP) table.
"""

from __future__ import annotations

import dataclasses
import json
from typing import Any

import pytest

from redo_lib.synth import GenerationResult, generate
from redo_lib.synth import scenario as model
from redo_lib.synth.engine import Engine
from redo_lib.synth.scenario import TableSpec
from tests.unit.native.core_assembly import batch_driver
from tests.unit.redo_lib.synth.running import scenario, trail

TABLES = """
database: {charset: WE8ISO8859P1, national_charset: UTF8}
tables:
  - owner: APP
    name: DOCS
    columns:
      - {name: ID, type: NUMBER, nullable: false}
      - {name: NOTE, type: VARCHAR2(20)}
      - {name: XMLCOL, type: XMLTYPE}
      - {name: LABEL, type: NVARCHAR2(10)}
      - {name: AMOUNT, type: "NUMBER(8,2)"}
    primary_key: [ID]
  - owner: APP
    name: P
    columns:
      - {name: ID, type: NUMBER, nullable: false}
      - {name: BODY, type: CLOB}
    primary_key: [ID]
    partition_by:
      type: range
      column: ID
      partitions:
        - {name: P1, values: 100}
"""
STEPS = """
steps:
  - insert: {table: DOCS, rows: [{ID: 1, NOTE: one, LABEL: x, AMOUNT: 1.5}, {ID: 2, XMLCOL: "<a/>"}]}
  - insert: {table: P, values: {ID: 5, BODY: text}}
  - commit
  - add_column: {table: DOCS, column: MEMO, type: NCHAR(4)}
  - rename_column: {table: DOCS, column: NOTE, to: REMARK}
  - modify_column: {table: DOCS, column: AMOUNT, type: "NUMBER(12,2)"}
  - modify_column: {table: DOCS, column: REMARK, type: VARCHAR2(40)}
  - drop_column: {table: DOCS, column: REMARK}
  - create_table:
      owner: APP
      name: NEWT
      columns:
        - {name: ID, type: "NUMBER(10)", nullable: false}
        - {name: BODY, type: CLOB}
        - {name: TAG, type: CHAR(3)}
      primary_key: [ID]
  - add_column: {table: NEWT, column: EXTRA, type: VARCHAR2(5)}
  - insert: {table: NEWT, values: {ID: 1, TAG: abc, EXTRA: e}}
  - commit
  - truncate_table: DOCS
  - add_partition: {table: P, partition: P2, values: 200}
  - drop_table: NEWT
"""
#: from the SQL (module docstring): COL$ row changes, and every SYS row change
COL_CHANGES = 1 + 1 + 1 + 1 + (1 + 5) + 3 + 1
SYS_CHANGES = COL_CHANGES + 1 + 2 + 1 + 2 + 1  # OBJ$ and the key of CREATE, TRUNCATE, ADD PARTITION, DROP
#: the Oracle ids of the scenario's character sets (Oracle's NLS list: WE8ISO8859P1 31, UTF8 871)
CHARSET_IDS = {"WE8ISO8859P1": 31, "UTF8": 871}
HIDDEN = 0x20  # COL$.PROPERTY bit of a hidden column
#: CHARSETFORM and its set per declared type: the national set for NVARCHAR2 / NCHAR, the database
#: set for the other text types; no text: form 0
FORMS = {"VARCHAR2": (1, "WE8ISO8859P1"), "CHAR": (1, "WE8ISO8859P1"), "CLOB": (1, "WE8ISO8859P1"),
         "NVARCHAR2": (2, "UTF8"), "NCHAR": (2, "UTF8")}  # fmt: skip
DOC_KEYS = ("OBJ#", "COL#", "SEGCOL#", "INTCOL#", "NAME", "TYPE#", "LENGTH", "PRECISION#", "SCALE", "NULL$",
            "PROPERTY", "CHARSETID", "CHARSETFORM")  # fmt: skip


@dataclasses.dataclass
class Run:
    """The generated scenario and, after each DDL step, the step, the tables (OWNER.NAME -> (obj,
    spec), dropped ones included) and the simulated COL$ rows (the ``sys`` member's form)."""

    result: GenerationResult
    after_ddl: list[tuple[model.Ddl, dict[str, tuple[int, TableSpec]], list[dict[str, Any]]]]


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> Run:
    snapshots: list[tuple[model.Ddl, dict[str, tuple[int, TableSpec]], list[dict[str, Any]]]] = []
    parsed = scenario(STEPS, table=TABLES)
    steps = list(parsed.steps)  # type: ignore[arg-type]  # written out, not a random scenario's

    def on_step(engine: Engine, count: int) -> None:
        step = steps[count - 1]
        if isinstance(step, model.Ddl):
            tables = {t.spec.full_name: (t.obj, t.spec) for t in (*engine.tables.values(), *engine.dropped)}
            snapshots.append((step, tables, engine.sys.rows_document(0)["COL$"]))

    result = generate(parsed, tmp_path_factory.mktemp("col_rows"), on_step=on_step)
    return Run(result, snapshots)


def _expected(spec: TableSpec, obj: int) -> list[dict[str, Any]]:
    """The COL$ rows of a table as the SQL declares it, by SEGCOL#: visible columns numbered 1, 2,
    ... (COL# 0 and PROPERTY 0x20 for the XMLTYPE's hidden storage BLOB), form 2 for the national
    types NVARCHAR2 / NCHAR, form 1 for the other text types (VARCHAR2, CHAR, CLOB)."""
    rows, visible = [], 0
    for i, c in enumerate(spec.columns):
        visible += 0 if c.hidden else 1
        form, charset = FORMS.get(c.type.name, (0, None))
        rows.append({
            "OBJ#": obj, "COL#": 0 if c.hidden else visible, "SEGCOL#": i + 1, "INTCOL#": i + 1, "NAME": c.name,
            "TYPE#": c.type.code, "LENGTH": c.type.length, "PRECISION#": c.type.precision,
            "SCALE": c.type.scale, "NULL$": 0 if c.nullable else 1, "PROPERTY": HIDDEN if c.hidden else 0,
            "CHARSETID": CHARSET_IDS[charset] if charset else 0, "CHARSETFORM": form,
        })  # fmt: skip
    return rows


def _of(rows: list[dict[str, Any]], obj: int) -> list[dict[str, Any]]:
    """The COL$ rows of table ``obj`` (the named columns only), by SEGCOL#."""
    return sorted(({k: r[k] for k in DOC_KEYS} for r in rows if r["OBJ#"] == obj), key=lambda r: r["SEGCOL#"])


def _shape(rows: list[dict[str, Any]]) -> list[tuple[Any, ...]]:
    return [(r["NAME"], r["COL#"], r["SEGCOL#"], r["TYPE#"], r["LENGTH"], r["PROPERTY"]) for r in rows]


def test_the_export_holds_the_col_rows_of_the_initial_tables(run: Run) -> None:
    """The document's ``sys.COL$``: one row per column of DOCS and of the partitioned P, hidden
    storage column included, as the ``tables`` entries describe them; COL$ is a SYS layout too."""
    doc = json.loads(run.result.dictionary.read_text())
    layout = next(t for t in doc["tables"] if t["owner"] == "SYS" and t["name"] == "COL$")
    assert (layout["obj"], layout["dataobj"], len(layout["columns"])) == (21, 2, 37)
    first = ["OBJ#", "COL#", "SEGCOL#", "SEGCOLLENGTH", "OFFSET", "NAME"]
    assert [c["name"] for c in layout["columns"]][:6] == first
    tables = {t["name"]: t for t in doc["tables"] if t["owner"] == "APP"}
    rows = doc["sys"]["COL$"]
    assert {r["OBJ#"] for r in rows} == {tables["DOCS"]["obj"], tables["P"]["obj"]}
    assert all(r["rowid"].startswith("AAAAAC") and r["valid_to_scn"] is None for r in rows)  # data object 2
    docs = _of(rows, tables["DOCS"]["obj"])
    assert _shape(docs) == [
        ("ID", 1, 1, 2, 22, 0), ("NOTE", 2, 2, 1, 20, 0), ("XMLCOL", 3, 3, 58, 2000, 0),
        ("SYS_NC00004$", 0, 4, 113, 4000, HIDDEN), ("LABEL", 4, 5, 1, 30, 0), ("AMOUNT", 5, 6, 2, 22, 0),
    ]  # fmt: skip
    assert [(r["NULL$"], r["CHARSETFORM"], r["CHARSETID"]) for r in docs] == [
        (1, 0, 0), (0, 1, 31), (0, 0, 0), (0, 0, 0), (0, 2, 871), (0, 0, 0),
    ]  # fmt: skip
    assert (docs[-1]["PRECISION#"], docs[-1]["SCALE"]) == (8, 2)
    for name, table in tables.items():
        declared = [
            (c["name"], c.get("col_no") or 0, c["segcol_no"], c["type_code"], c["length"], c.get("precision"),
             c.get("scale"), 0 if c["nullable"] else 1, HIDDEN if c.get("hidden") else 0)
            for c in table["columns"]
        ]  # fmt: skip
        got = [
            (r["NAME"], r["COL#"], r["SEGCOL#"], r["TYPE#"], r["LENGTH"], r["PRECISION#"], r["SCALE"], r["NULL$"],
             r["PROPERTY"])
            for r in _of(rows, table["obj"])
        ]  # fmt: skip
        assert got == declared, name


def test_each_column_ddl_leaves_col_rows_equal_to_the_table(run: Run) -> None:
    """After every DDL step the simulated COL$ rows of every table (a dropped one's too) are its
    columns as the SQL made them; DROP COLUMN REMARK moved the five later columns down one."""
    assert [s.statement for s, _, _ in run.after_ddl] == [
        "add_column", "rename_column", "modify_column", "modify_column", "drop_column", "create_table",
        "add_column", "truncate_table", "add_partition", "drop_table",
    ]  # fmt: skip
    for step, tables, rows in run.after_ddl:
        assert {r["OBJ#"] for r in rows} == {obj for obj, _ in tables.values()}, step.statement
        for name, (obj, spec) in tables.items():
            assert _of(rows, obj) == _expected(spec, obj), (step.statement, name)
    docs_obj = run.after_ddl[0][1]["APP.DOCS"][0]
    dropped = _of(run.after_ddl[4][2], docs_obj)
    assert _shape(dropped) == [
        ("ID", 1, 1, 2, 22, 0), ("XMLCOL", 2, 2, 58, 2000, 0), ("SYS_NC00004$", 0, 3, 113, 4000, HIDDEN),
        ("LABEL", 3, 4, 1, 30, 0), ("AMOUNT", 4, 5, 2, 22, 0), ("MEMO", 5, 6, 96, 12, 0),
    ]  # fmt: skip
    modified = _of(run.after_ddl[3][2], docs_obj)
    assert [(r["NAME"], r["LENGTH"], r["PRECISION#"]) for r in modified if r["NAME"] in ("REMARK", "AMOUNT")] == [
        ("REMARK", 40, None), ("AMOUNT", 22, 12),
    ]  # fmt: skip


@pytest.fixture(scope="module")
def followed(run: Run, tmp_path_factory: pytest.TempPathFactory) -> tuple[dict[str, Any], dict[str, int]]:
    """The batch driver over the scenario's one log: the dictionary it evolved (the SYS rows the
    core applied) and its counts."""
    location, counts, problems = batch_driver(
        run.result.logs, run.result.dictionary, tmp_path_factory.mktemp("batch")
    )
    assert not problems, problems
    return json.loads(location.read_text()), counts


def _valid_at(rows: list[dict[str, Any]], scn: int) -> list[dict[str, Any]]:
    """The rows whose SCN range holds ``scn`` (``valid_to_scn`` null: open)."""
    return [r for r in rows if r["valid_from_scn"] <= scn < (r["valid_to_scn"] or scn + 1)]


def test_the_core_follows_the_col_rows_of_each_ddl(
    run: Run, followed: tuple[dict[str, Any], dict[str, int]]
) -> None:
    """The core's ``sys.COL$`` rows valid at each DDL's commit SCN are the scenario's columns of every
    table then (the export's before the first), each change applied, none a problem."""
    document, counts = followed
    rows = document["sys"]["COL$"]
    commits = [r["commit_scn"] for r in trail(run.result) if r["op"] == "DDL"]
    assert len(commits) == len(run.after_ddl)
    for scn, (step, tables, _) in zip(commits, run.after_ddl, strict=True):
        for name, (obj, spec) in tables.items():
            assert _of(_valid_at(rows, scn), obj) == _expected(spec, obj), (step.statement, name)
        if step.statement == "create_table":
            assert not _of(_valid_at(rows, scn - 1), tables["APP.NEWT"][0]), "no COL$ row before its CREATE"
    assert counts.get("dictionary_rows") == SYS_CHANGES
    assert counts.get("dictionary_row_changes") == SYS_CHANGES
    assert not counts.get("dictionary_rows_not_followed") and not counts.get("dictionary_row_problems")
    exported = json.loads(run.result.dictionary.read_text())["sys"]["COL$"]
    (export_scn,) = {r["valid_from_scn"] for r in exported}
    # each insert and update opens a row state after the export; the DROP COLUMN's delete opens none
    assert len([r for r in rows if r["valid_from_scn"] > export_scn]) == COL_CHANGES - 1
