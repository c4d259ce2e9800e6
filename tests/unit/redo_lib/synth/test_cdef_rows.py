"""The generator's ``SYS.CDEF$`` / ``SYS.CCOL$`` rows (synth/cdefrows.py): the export's copy, the
simulated tables after each DDL, and the rows the Rust core follows from the redo (docs/dictionary.md,
"The SYS rows"). The expectations come from the scenario below (its SQL) and from what the real 23ai
checkpoints show Oracle keeps (a primary key column has no NOT NULL constraint of its own; every
other NOT NULL column has one, with one CCOL$ row), never from the decoder.

The scenario::

    CREATE TABLE app.docs (id NUMBER NOT NULL, code VARCHAR2(10) NOT NULL, note VARCHAR2(20),
                           xmlcol XMLTYPE, ref NUMBER NOT NULL, email VARCHAR2(40),  -- + hidden SYS_NC00005$
                           CONSTRAINT docs_pk PRIMARY KEY (id),
                           CONSTRAINT docs_uk01 UNIQUE (code), CONSTRAINT docs_uk02 UNIQUE (email, note));
        -- CDEF$: NOT NULL code, NOT NULL ref, PK (id), UK (code), UK (email, note): 5 rows, 6 CCOL$
    CREATE TABLE app.p (id NUMBER NOT NULL PRIMARY KEY, body CLOB, amount NUMBER NOT NULL)
        PARTITION BY RANGE (id) (...);            -- NOT NULL amount, PK (id): 2 rows, 2 CCOL$
    CREATE TABLE app.nokey (a NUMBER, b VARCHAR2(5) NOT NULL);  -- NOT NULL b: 1 row, 1 CCOL$
    ALTER TABLE app.docs ADD (memo VARCHAR2(8));             -- no CDEF$ / CCOL$ change
    ALTER TABLE app.docs RENAME COLUMN code TO kode;         -- none (the names are not in the rows)
    ALTER TABLE app.docs MODIFY (note VARCHAR2(40));         -- none
    ALTER TABLE app.docs DROP COLUMN ref;                    -- CCOL$ + CDEF$ delete (ref's NOT NULL),
                                                             -- email's CCOL$ row INTCOL# 7 -> 6, COL# 6 -> 5
    CREATE TABLE app.newt (id NUMBER(10) NOT NULL, body CLOB, k2 NUMBER, tag CHAR(3) NOT NULL,
                           CONSTRAINT newt_pk PRIMARY KEY (id), CONSTRAINT newt_uk01 UNIQUE (tag, k2));
        -- NOT NULL tag, PK (id), UK (tag, k2): 3 CDEF$ + 4 CCOL$ inserts
    ALTER TABLE app.newt DROP COLUMN body;                   -- k2's and tag's CCOL$ rows (3 of them)
                                                             -- INTCOL# and COL# down one
    TRUNCATE TABLE app.docs;  ALTER TABLE app.p ADD PARTITION p2 ...;  DROP TABLE app.newt;  -- none

so 2 + 1 + 7 + 3 = 13 CDEF$ / CCOL$ row changes, every one on a followed (APP) table.
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
tables:
  - owner: APP
    name: DOCS
    columns:
      - {name: ID, type: NUMBER, nullable: false}
      - {name: CODE, type: VARCHAR2(10), nullable: false}
      - {name: NOTE, type: VARCHAR2(20)}
      - {name: XMLCOL, type: XMLTYPE}
      - {name: REF, type: NUMBER, nullable: false}
      - {name: EMAIL, type: VARCHAR2(40)}
    primary_key: [ID]
    unique_keys: [[CODE], [EMAIL, NOTE]]
  - owner: APP
    name: P
    columns:
      - {name: ID, type: NUMBER, nullable: false}
      - {name: BODY, type: CLOB}
      - {name: AMOUNT, type: NUMBER, nullable: false}
    primary_key: [ID]
    partition_by:
      type: range
      column: ID
      partitions:
        - {name: P1, values: 100}
  - owner: APP
    name: NOKEY
    columns:
      - {name: A, type: NUMBER}
      - {name: B, type: VARCHAR2(5), nullable: false}
"""
STEPS = """
steps:
  - insert: {table: DOCS, rows: [{ID: 1, CODE: a, NOTE: one, REF: 7, EMAIL: x}, {ID: 2, CODE: b, REF: 8}]}
  - insert: {table: P, values: {ID: 5, BODY: text, AMOUNT: 3}}
  - insert: {table: NOKEY, values: {A: 1, B: b}}
  - commit
  - add_column: {table: DOCS, column: MEMO, type: VARCHAR2(8)}
  - rename_column: {table: DOCS, column: CODE, to: KODE}
  - modify_column: {table: DOCS, column: NOTE, type: VARCHAR2(40)}
  - drop_column: {table: DOCS, column: REF}
  - create_table:
      owner: APP
      name: NEWT
      columns:
        - {name: ID, type: "NUMBER(10)", nullable: false}
        - {name: BODY, type: CLOB}
        - {name: K2, type: NUMBER}
        - {name: TAG, type: CHAR(3), nullable: false}
      primary_key: [ID]
      unique_keys: [[TAG, K2]]
  - drop_column: {table: NEWT, column: BODY}
  - insert: {table: NEWT, values: {ID: 1, TAG: abc, K2: 4}}
  - commit
  - truncate_table: DOCS
  - add_partition: {table: P, partition: P2, values: 200}
  - drop_table: NEWT
"""
#: from the SQL (module docstring): CDEF$ / CCOL$ row changes of the DDL steps
CDEF_CHANGES = 2 + 1 + (3 + 4) + 3
#: CDEF$.TYPE# of a primary key, a unique key, a NOT NULL check
PK, UK, NN = 2, 3, 7
#: the columns of a constraint as (COL#, INTCOL#, POS#): a NOT NULL check's POS# is NULL
Shape = tuple[int, tuple[tuple[int, int, int | None], ...]]


@dataclasses.dataclass
class Run:
    """The generated scenario and, after each DDL step, the step, the tables (OWNER.NAME -> (obj,
    spec), dropped ones included) and the simulated CDEF$ / CCOL$ rows, every column of each row."""

    result: GenerationResult
    after_ddl: list[tuple[model.Ddl, dict[str, tuple[int, TableSpec]], dict[str, list[dict[str, Any]]]]]


def _rows(engine: Engine, name: str) -> list[dict[str, Any]]:
    """Every row of the simulated SYS table ``name``, all its columns (numbers as ``int``) and its ROWID."""
    table = engine.sys[name]
    out = []
    for row in table.scan():
        values = {c.name: v for c, v in zip(table.spec.columns, row.values, strict=True)}
        numbers = {k: int(v) for k, v in values.items() if v is not None and k != "MTIME"}
        out.append({**values, **numbers, "rowid": table.rowid(row)})
    return out


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> Run:
    snapshots: list[tuple[model.Ddl, dict[str, tuple[int, TableSpec]], dict[str, list[dict[str, Any]]]]] = []
    parsed = scenario(STEPS, table=TABLES)
    steps = list(parsed.steps)  # type: ignore[arg-type]  # written out, not a random scenario's

    def on_step(engine: Engine, count: int) -> None:
        step = steps[count - 1]
        if isinstance(step, model.Ddl):
            tables = {t.spec.full_name: (t.obj, t.spec) for t in (*engine.tables.values(), *engine.dropped)}
            snapshots.append((step, tables, {n: _rows(engine, n) for n in ("CDEF$", "CCOL$")}))

    result = generate(parsed, tmp_path_factory.mktemp("cdef_rows"), on_step=on_step)
    return Run(result, snapshots)


def _expected(spec: TableSpec) -> list[Shape]:
    """The table's constraints as its SQL declares them, in the order Oracle numbers them (the
    CREATE TABLE text's): a NOT NULL check per NOT NULL column outside the primary key (visible
    columns only: the XMLTYPE's hidden BLOB has no constraint), then the primary key, then each
    unique key; a column as (COL#: visible columns counted, INTCOL#: its place, POS#)."""
    visible = [c.name for c in spec.columns if not c.hidden]
    places = {
        c.name: (visible.index(c.name) + 1 if c.name in visible else 0, i + 1)
        for i, c in enumerate(spec.columns)
    }

    def key(kind: int, names: tuple[str, ...]) -> Shape:
        return kind, tuple((*places[n], p) for p, n in enumerate(names, 1))

    out: list[Shape] = [
        (NN, ((*places[c.name], None),))
        for c in spec.columns
        if not c.nullable and not c.hidden and c.name not in spec.primary_key
    ]
    if spec.primary_key:
        out.append(key(PK, spec.primary_key))
    out.extend(key(UK, k) for k in spec.unique_keys)
    return out


def _of(cdefs: list[dict[str, Any]], ccols: list[dict[str, Any]], obj: int) -> list[tuple[int, Shape]]:
    """Table ``obj``'s constraints in the rows, by CON#: (CON#, (TYPE#, its CCOL$ rows by POS# /
    INTCOL#))."""
    out = []
    for d in sorted((d for d in cdefs if d["OBJ#"] == obj), key=lambda d: d["CON#"]):
        cols = sorted(
            ((c.get("COL#"), c["INTCOL#"], c.get("POS#")) for c in ccols if c["CON#"] == d["CON#"]),
            key=lambda c: (c[2] or 0, c[1]),
        )
        assert all(c["OBJ#"] == obj for c in ccols if c["CON#"] == d["CON#"])
        out.append((d["CON#"], (d["TYPE#"], tuple(cols))))
    return out


def test_the_export_holds_the_constraints_of_the_initial_tables(run: Run) -> None:
    """The document's ``sys.CDEF$`` / ``sys.CCOL$``: DOCS's NOT NULL checks on CODE and REF (not on
    the key column ID), its primary key and two unique keys (EMAIL, NOTE: POS# 1, 2), P's NOT NULL
    AMOUNT and key, NOKEY's NOT NULL B; numbered from one sequence in that order; both SYS layouts
    described (objects 31 / 32 in the cluster C_COBJ#, data object 29: ROWIDs AAAAAd)."""
    doc = json.loads(run.result.dictionary.read_text())
    layouts = {t["name"]: t for t in doc["tables"] if t["owner"] == "SYS"}
    cdef, ccol = layouts["CDEF$"], layouts["CCOL$"]
    assert (cdef["obj"], cdef["dataobj"], len(cdef["columns"])) == (31, 29, 21)
    assert (ccol["obj"], ccol["dataobj"], len(ccol["columns"])) == (32, 29, 11)
    assert [c["name"] for c in cdef["columns"]][:4] == ["OBJ#", "CON#", "COLS", "TYPE#"]
    assert [c["name"] for c in ccol["columns"]][:5] == ["OBJ#", "CON#", "COL#", "POS#", "INTCOL#"]
    assert [c["name"] for c in cdef["columns"] if not c["nullable"]] == ["OBJ#", "CON#", "TYPE#"]
    assert [c["name"] for c in ccol["columns"] if not c["nullable"]] == ["OBJ#", "CON#", "COL#", "INTCOL#"]
    tables = {t["name"]: t["obj"] for t in doc["tables"] if t["owner"] == "APP"}
    cdefs, ccols = doc["sys"]["CDEF$"], doc["sys"]["CCOL$"]
    assert [list(r) for r in cdefs[:1]] == [
        ["rowid", "valid_from_scn", "valid_to_scn", "OBJ#", "CON#", "TYPE#"]
    ]
    assert [list(r) for r in ccols[:1]] == [
        ["rowid", "valid_from_scn", "valid_to_scn", "OBJ#", "CON#", "INTCOL#"]
    ]
    assert all(r["rowid"].startswith("AAAAAd") and r["valid_to_scn"] is None for r in cdefs + ccols)
    # DOCS by INTCOL#: ID 1, CODE 2, NOTE 3, XMLCOL 4, SYS_NC00005$ 5, REF 6, EMAIL 7 (the document
    # keeps no POS#: a key's columns by INTCOL#)
    shapes = {
        "DOCS": [(NN, ((2,),)), (NN, ((6,),)), (PK, ((1,),)), (UK, ((2,),)), (UK, ((3,), (7,)))],
        "P": [(NN, ((3,),)), (PK, ((1,),))],
        "NOKEY": [(NN, ((2,),))],
    }
    cons = []
    for name, obj in tables.items():
        got = _of(cdefs, ccols, obj)  # the document keeps INTCOL# only
        assert [(kind, tuple((c[1],) for c in cols)) for _, (kind, cols) in got] == shapes[name], name
        cons += [con for con, _ in got]
    assert list(tables) == ["DOCS", "P", "NOKEY"]
    assert cons == list(range(cons[0], cons[0] + 8)) and cons[0] > 8600  # one sequence, as the 23ai ones
    assert len(ccols) == 6 + 2 + 1  # DOCS's 5 constraints have 6 columns
    # the document's rows are the simulated ones (the first DDL, ADD COLUMN, changed none of them)
    first = run.after_ddl[0][2]
    assert {r["rowid"] for r in cdefs} == {r["rowid"] for r in first["CDEF$"]}


def test_each_ddl_leaves_constraint_rows_equal_to_the_tables(run: Run) -> None:
    """After every DDL step the simulated CDEF$ / CCOL$ rows of every table (a dropped one's too)
    are its constraints as the SQL made them, each CDEF$ row with COLS = INTCOLS its column count,
    ENABLED 1, DEFER 0 and MTIME set; a constraint keeps its CON# through later DDL; DROP COLUMN REF
    took its NOT NULL check away and moved EMAIL's CCOL$ row down one, DROP COLUMN BODY moved NEWT's
    K2 and TAG down one."""
    assert [s.statement for s, _, _ in run.after_ddl] == [
        "add_column", "rename_column", "modify_column", "drop_column", "create_table", "drop_column",
        "truncate_table", "add_partition", "drop_table",
    ]  # fmt: skip
    numbers: dict[tuple[int, tuple[int, tuple[str, ...]]], int] = {}  # (obj, constraint) -> CON#
    for step, tables, rows in run.after_ddl:
        cdefs, ccols = rows["CDEF$"], rows["CCOL$"]
        assert {r["OBJ#"] for r in cdefs} == {obj for obj, _ in tables.values()}, step.statement
        assert len({r["CON#"] for r in cdefs}) == len(cdefs) and {r["CON#"] for r in ccols} <= {
            r["CON#"] for r in cdefs
        }
        for name, (obj, spec) in tables.items():
            got = _of(cdefs, ccols, obj)
            assert [shape for _, shape in got] == _expected(spec), (step.statement, name)
            for con, (kind, cols) in got:
                names = tuple(spec.columns[c[1] - 1].name for c in cols)
                assert numbers.setdefault((obj, (kind, names)), con) == con, (step.statement, name, names)
        for r in cdefs:
            count = len([c for c in ccols if c["CON#"] == r["CON#"]])
            assert (r["COLS"], r["INTCOLS"], r["ENABLED"], r["DEFER"]) == (count, count, 1, 0)
            assert r["MTIME"] is not None
    docs, newt = run.after_ddl[0][1]["APP.DOCS"][0], run.after_ddl[4][1]["APP.NEWT"][0]
    before, after = run.after_ddl[2][2], run.after_ddl[3][2]  # around DROP COLUMN REF
    lost = {r["CON#"] for r in before["CDEF$"]} - {r["CON#"] for r in after["CDEF$"]}
    assert len(lost) == 1 and not [c for c in after["CCOL$"] if c["CON#"] in lost]
    email = [
        (c["COL#"], c["INTCOL#"], c["POS#"])
        for c in after["CCOL$"]
        if c["OBJ#"] == docs and c["INTCOL#"] >= 6
    ]
    assert email == [(5, 6, 1)]  # EMAIL, first in DOCS_UK02: was COL# 6, INTCOL# 7
    created = _of(run.after_ddl[4][2]["CDEF$"], run.after_ddl[4][2]["CCOL$"], newt)
    assert [shape for _, shape in created] == [
        (NN, ((4, 4, None),)),
        (PK, ((1, 1, 1),)),
        (UK, ((4, 4, 1), (3, 3, 2))),
    ]
    assert min(con for con, _ in created) > max(r["CON#"] for r in after["CDEF$"])  # new numbers
    dropped = _of(run.after_ddl[5][2]["CDEF$"], run.after_ddl[5][2]["CCOL$"], newt)
    assert [shape for _, shape in dropped] == [
        (NN, ((3, 3, None),)),
        (PK, ((1, 1, 1),)),
        (UK, ((3, 3, 1), (2, 2, 2))),
    ]
    # TRUNCATE, ADD PARTITION and DROP TABLE leave every row as it was
    assert all(run.after_ddl[i][2] == run.after_ddl[5][2] for i in (6, 7, 8))


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


def test_the_core_follows_the_constraint_rows_of_each_ddl(
    run: Run, followed: tuple[dict[str, Any], dict[str, int]]
) -> None:
    """The core's ``sys.CDEF$`` / ``sys.CCOL$`` rows valid at each DDL's commit SCN are the simulated
    ones then (same ROWIDs, same kept columns), every change applied, none a problem."""
    document, counts = followed
    assert "CDEF$" in document["sys"] and "CCOL$" in document["sys"], (
        f"the core kept no CDEF$ / CCOL$ rows: its sys member holds {sorted(document['sys'])}"
    )
    commits = [r["commit_scn"] for r in trail(run.result) if r["op"] == "DDL"]
    assert len(commits) == len(run.after_ddl)
    kept = {"CDEF$": ("rowid", "OBJ#", "CON#", "TYPE#"), "CCOL$": ("rowid", "OBJ#", "CON#", "INTCOL#")}
    for scn, (step, _, rows) in zip(commits, run.after_ddl, strict=True):
        for name, columns in kept.items():
            core = sorted(tuple(r[c] for c in columns) for r in _valid_at(document["sys"][name], scn))
            simulated = sorted(tuple(r[c] for c in columns) for r in rows[name])
            assert core == simulated, (step.statement, name)
    assert not counts.get("dictionary_rows_not_followed") and not counts.get("dictionary_row_problems")
    exported = json.loads(run.result.dictionary.read_text())["sys"]
    (export_scn,) = {r["valid_from_scn"] for r in exported["CDEF$"] + exported["CCOL$"]}
    # each insert and update opens a row state after the export; the 2 deletes (REF's NOT NULL) open none
    opened = [r for n in ("CDEF$", "CCOL$") for r in document["sys"][n] if r["valid_from_scn"] > export_scn]
    assert len(opened) == CDEF_CHANGES - 2
