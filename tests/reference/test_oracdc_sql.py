"""The oracdc records that come with expected SQL give the same values.

43 of the 225 real records in ``shared/realdata/oracdc-redo-records`` belong to 12 oracdc test
methods that assert LogMiner-style SQL_REDO text (schemaless: ``"UNKNOWN"."OBJ# n"``,
``"COL n" = HEXTORAW('..')``, ``= NULL``, ``IS NULL``; COL numbers are 1-based segcol#). A method
may build one statement from several records (URP + LMN pairs, row pieces of a migrated row), so
each method's records are parsed in file order, turned into change events (``iter_events``), and
their CHANGE events, per transaction and in order, made into one committed transaction each (a
begin before, a commit after) and run through the Rust core's transaction table and emitter
(``pipeline.assemble_and_emit``): each row change becomes one trail record.

The dictionary they are emitted with names every column of every object the records change
``COL_<n>`` (0-based), of type RAW (rendered as the hex of its bytes), and gives no key, so every
column is the key (trail contract rule 12, as GoldenGate keys a table without a primary or unique
key): an update's record then carries every column, after the statement, and, when a value changed,
every column's before value (a PK update, IOType 115); deletes carry every column (``full_deletes``).
What the record carries is the row change's images:

* INSERT: the inserted values are the record's columns;
* UPDATE: the SET values are in its columns, the WHERE values in its before image (undo columns,
  filled from supplemental columns: that is how LogMiner's WHERE gets the key and unchanged columns;
  when no value changed, the columns are the before values too);
* DELETE: the WHERE values are its columns.

A column asserted by the SQL but absent from the image is a mismatch, as is a different value (a
column of the dictionary that the row change did not carry shows as NULL: an ``IS NULL`` or ``=
NULL`` of the SQL cannot tell it from a NULL value). Statements are matched to row changes by
content (the fewest mismatches), since the records of a method are not always in SCN order; a second
test checks that a method gives exactly one row change per statement. Expected values come only from
the data set.
"""

from __future__ import annotations

import itertools
import json
import re
from dataclasses import dataclass, replace
from functools import cache
from pathlib import Path
from typing import Any, Literal

import pytest

from redo_lib.assembly.events import ChangeEvent, EventKind, iter_events
from redo_lib.dictionary import DictionaryHistory
from redo_lib.pipeline import assemble_and_emit
from redo_lib.scn import Xid
from redo_lib.trail.emit import EmitOptions
from redo_lib.trail.model import TrailRecord
from tests.unit.redo_lib.format.realdata import parse_oracdc_record

pytestmark = pytest.mark.realdata

REPO = Path(__file__).resolve().parents[2]
RECORDS = REPO.parent / "shared" / "realdata" / "oracdc-redo-records" / "redo-records.jsonl"
# A single record taken out of its log has no LWN; give it a neutral one (its time is not compared).

Image = dict[int, bytes | None]
Op = Literal["INSERT", "UPDATE", "DELETE"]

# -------------------------------------------------------------------------------------------------
# A small parser for LogMiner's schemaless SQL_REDO


@dataclass(frozen=True, slots=True, kw_only=True)
class Statement:
    """One expected statement: ``values`` are the INSERT values or the UPDATE SET list, ``where`` the
    WHERE clause; keys are 0-based column indexes (``COL n`` -> n - 1), None is SQL NULL."""

    name: str
    op: Op
    obj: int
    values: Image
    where: Image


_TABLE = r'"UNKNOWN"\."OBJ# (?P<obj>\d+)"'
_COL = r'"COL (?P<col>\d+)"'
_END = r"\s*;?\s*$"
_UPDATE = re.compile(
    rf"\s*update\s+{_TABLE}\s+set\s+(?P<set>.*?)\s+where\s+(?P<where>.*?){_END}", re.I | re.S
)
_DELETE = re.compile(rf"\s*delete\s+from\s+{_TABLE}\s+where\s+(?P<where>.*?){_END}", re.I | re.S)
_INSERT = re.compile(
    rf"\s*insert\s+into\s+{_TABLE}\s*\((?P<cols>[^)]*)\)\s*values\s*\((?P<values>.*)\){_END}", re.I | re.S
)
_VALUE = r"(?:HEXTORAW\('(?P<hex>[0-9a-fA-F]*)'\)|(?P<null>NULL))"
_SET_ITEM = re.compile(rf"\s*{_COL}\s*=\s*{_VALUE}\s*", re.I)
_WHERE_ITEM = re.compile(rf"\s*{_COL}\s*(?:=\s*{_VALUE}|(?P<isnull>IS\s+NULL))\s*", re.I)
_COLUMN = re.compile(rf"\s*{_COL}\s*")
_VALUE_ITEM = re.compile(rf"\s*{_VALUE}\s*", re.I)


def _value(match: re.Match[str]) -> bytes | None:
    hex_text = match.group("hex")
    return None if hex_text is None else bytes.fromhex(hex_text)


def _items(text: str, separator: str, item: re.Pattern[str], sql: str) -> Image:
    """Every item of a SET list or WHERE clause; an item the grammar does not know raises."""
    out: Image = {}
    for part in re.split(separator, text, flags=re.I):
        match = item.fullmatch(part)
        if match is None:
            raise ValueError(f"cannot read {part!r} in {sql[:80]!r}")
        col = int(match.group("col")) - 1
        if col in out:
            raise ValueError(f"COL {col + 1} twice in {sql[:80]!r}")
        out[col] = None if match.groupdict().get("isnull") else _value(match)
    return out


def parse_sql(name: str, sql: str) -> Statement:
    """LogMiner's schemaless INSERT / UPDATE / DELETE text -> ``Statement``; anything else raises."""
    if m := _UPDATE.fullmatch(sql):
        values = _items(m["set"], r",", _SET_ITEM, sql)
        return Statement(
            name=name,
            op="UPDATE",
            obj=int(m["obj"]),
            values=values,
            where=_items(m["where"], r"\s+and\s+", _WHERE_ITEM, sql),
        )
    if m := _DELETE.fullmatch(sql):
        where = _items(m["where"], r"\s+and\s+", _WHERE_ITEM, sql)
        return Statement(name=name, op="DELETE", obj=int(m["obj"]), values={}, where=where)
    if m := _INSERT.fullmatch(sql):
        cols = [_COLUMN.fullmatch(c) for c in m["cols"].split(",")]
        vals = [_VALUE_ITEM.fullmatch(v) for v in m["values"].split(",")]
        if None in cols or None in vals or len(cols) != len(vals):
            raise ValueError(f"cannot read the column or value list of {sql[:80]!r}")
        values = {int(c["col"]) - 1: _value(v) for c, v in zip(cols, vals, strict=True) if c and v}
        return Statement(name=name, op="INSERT", obj=int(m["obj"]), values=values, where={})
    raise ValueError(f"not a schemaless INSERT, UPDATE or DELETE: {sql[:80]!r}")


# -------------------------------------------------------------------------------------------------
# The data set: records by test method, and their row changes


def _load() -> list[dict[str, Any]]:
    if not RECORDS.is_file():
        return []
    with RECORDS.open() as handle:
        return [json.loads(line) for line in handle]


ROWS = _load()


def _method_id(row: dict[str, Any]) -> str:
    return f"{row['test_file'].removesuffix('.java')}.{row['test_method']}"


def _methods() -> dict[str, list[dict[str, Any]]]:
    """Test methods that assert SQL -> their records, in file order."""
    methods: dict[str, list[dict[str, Any]]] = {}
    for row in ROWS:
        methods.setdefault(_method_id(row), []).append(row)
    return {m: rows for m, rows in methods.items() if any(r["method_expected_sql"] for r in rows)}


METHODS = _methods()


def _statements(method: str) -> list[Statement]:
    """The method's statements (every record of a method carries the same list). The extraction kept
    a line break wherever the Java source continued a string literal on the next line, even inside
    a word or a hex value ("an\\nd", "HEXTO\\nRAW"): they are not SQL and are removed."""
    (sql,) = {json.dumps(r["method_expected_sql"]) for r in METHODS[method] if r["method_expected_sql"]}
    return [parse_sql(s["name"], s["sql"].replace("\n", "")) for s in json.loads(sql)]


@dataclass(frozen=True, slots=True)
class RowChange:
    """One row change as its trail record carries it (``Image`` keys are column indexes)."""

    op: Op
    obj: int
    after: Image
    before: Image
    changed: tuple[int, ...]  # the columns the record says the statement set (``changed_columns``)

    @classmethod
    def of(cls, record: TrailRecord) -> RowChange:
        def image(pairs: tuple[tuple[str, str | None], ...]) -> Image:
            return {_index(name): None if v is None else bytes.fromhex(v) for name, v in pairs}

        columns = image(record.columns)
        changed = tuple(_index(name) for name in record.changed_columns)
        if record.op == "INSERT":
            return cls("INSERT", record.obj, columns, {}, changed)
        if record.op == "DELETE":
            return cls("DELETE", record.obj, {}, columns, changed)
        # an update: a PK update has every column's before value; otherwise no value changed
        return cls("UPDATE", record.obj, columns, image(record.before) or columns, changed)


def _index(name: str) -> int:
    return int(name.removeprefix("COL_"))


def _dictionary(events: list[ChangeEvent]) -> DictionaryHistory:
    """Every object the events change, with RAW columns ``COL_0`` up to the highest column index the
    events carry, and no key constraint (so every column is the key)."""
    width: dict[int, int] = {}
    for e in events:
        cols = [c for c, _ in (*e.before, *e.after, *e.supp_columns)] + [len(v) - 1 for _, v in e.rows]
        width[e.obj or e.dataobj] = max(width.get(e.obj or e.dataobj, 0), max(cols, default=0) + 1)
    tables = [
        {"obj": obj, "dataobj": obj, "owner": "UNKNOWN", "name": f"OBJ# {obj}", "valid_from_scn": 0,
         "columns": [{"segcol_no": i + 1, "name": f"COL_{i}", "type": "RAW", "length": 2000, "nullable": True}
                     for i in range(n)]}
        for obj, n in sorted(width.items())
    ]  # fmt: skip
    doc = {"format": "redotrail-dictionary", "format_version": 1, "db_charset": "AL32UTF8",
           "national_charset": "AL16UTF16", "tables": tables}  # fmt: skip
    return DictionaryHistory.from_json(json.dumps(doc))


@cache
def row_changes(method: str) -> tuple[RowChange, ...]:
    """The row changes of a method's records: the CHANGE events of each transaction, in record order,
    made into a committed transaction and emitted by the core."""
    by_xid: dict[Xid, list[ChangeEvent]] = {}
    for row in METHODS[method]:
        for event in iter_events(parse_oracdc_record(row)):
            # none of these methods has a partial rollback; one would cancel a change
            assert event.kind is not EventKind.PARTIAL_ROLLBACK, f"{method}: partial rollback"
            if event.kind is EventKind.CHANGE:
                by_xid.setdefault(event.xid, []).append(event)
    events: list[ChangeEvent] = []
    for changes in by_xid.values():
        first, last = changes[0], changes[-1]
        events += [replace(first, kind=EventKind.BEGIN), *changes,
                   replace(last, kind=EventKind.COMMIT, offset=last.offset + 1)]  # fmt: skip
    dictionary = _dictionary(events)
    result = assemble_and_emit(events, dictionary, options=EmitOptions(full_deletes=True))
    assert result.counts["out_of_scope"] == {} and result.emit.get("value_errors", 0) == 0
    return tuple(RowChange.of(record) for record in result.trail)


def _show(value: bytes | None | str) -> str:
    if value is None:
        return "NULL"
    return value if isinstance(value, str) else value.hex()


def mismatches(statement: Statement, change: RowChange) -> list[str]:
    """What ``change`` gets wrong of ``statement``: one line per column (empty: all values agree)."""
    out: list[str] = []
    image_of_values = "after" if statement.op in ("INSERT", "UPDATE") else "before"
    clause = "SET" if statement.op == "UPDATE" else "VALUES"
    for label, expected, image, image_name in (
        (clause, statement.values, change.after, image_of_values),
        ("WHERE", statement.where, change.before, "before"),
    ):
        for col, value in sorted(expected.items()):
            got = image.get(col, "(not in the image)")
            if got != value:
                out.append(f"{label} COL {col + 1}: expected {_show(value)}, {image_name} has {_show(got)}")
    return out


def _changed(change: RowChange) -> set[int]:
    """The columns a row change says the statement set: URP columns, else the whole after image."""
    return set(change.changed) or set(change.after)


def assign(statements: list[Statement], changes: tuple[RowChange, ...]) -> list[tuple[int, list[str]]]:
    """For each statement, a row change of its object and operation (index, -1 for none) and its
    mismatches, one row change per statement. Several row changes of one row may hold the same
    values for a statement (full supplemental images), so the assignment minimises the mismatches,
    then the difference between the SET columns and the columns each row change changed."""
    unmatched = (10**6, 0)
    costs = [
        [
            (len(mismatches(s, rc)), len(set(s.values) ^ _changed(rc)))
            if rc.obj == s.obj and rc.op == s.op
            else unmatched
            for rc in changes
        ]
        for s in statements
    ]

    def cost(row: int, index: int) -> tuple[int, int]:
        return unmatched if index < 0 else costs[row][index]

    def total(perm: tuple[int, ...]) -> tuple[int, ...]:
        return tuple(map(sum, zip(*(cost(row, i) for row, i in enumerate(perm)), strict=True)))

    slots = [*range(len(changes)), *([-1] * len(statements))]
    best = min(sorted(set(itertools.permutations(slots, len(statements)))), key=total)
    out: list[tuple[int, list[str]]] = []
    for row, (statement, index) in enumerate(zip(statements, best, strict=True)):
        if cost(row, index) == unmatched:
            kinds = sorted({(rc.op, rc.obj) for rc in changes})
            out.append((-1, [f"no {statement.op} of OBJ# {statement.obj} left among {kinds}"]))
        else:
            out.append((index, mismatches(statement, changes[index])))
    return out


@cache
def assignment(method: str) -> tuple[tuple[int, list[str]], ...]:
    return tuple(assign(_statements(method), row_changes(method)))


# -------------------------------------------------------------------------------------------------
# Cases our decoder does not reproduce (strict: they fail loudly once fixed)

# Every expectation is reproduced. (Four assembly bugs this test found were fixed: trailing NULL
# columns of a shrunk URP, OLTP-compressed undo images, row pieces arriving last-first, and the
# supplemental columns of 11.8 CFA.) A case the decoder cannot reproduce goes here as a strict xfail
# whose reason names the cause.
XFAIL: dict[str, str] = {}


def _param(case: tuple[str, ...]) -> Any:
    case_id = ".".join(case)
    marks = [pytest.mark.xfail(strict=True, reason=XFAIL[case_id])] if case_id in XFAIL else []
    return pytest.param(*case, id=case_id, marks=marks)


_MISSING = pytest.param(
    *(["absent"] * 2),
    id="realdata-absent",
    marks=pytest.mark.skip(reason=f"real data not found at {RECORDS}"),
)
STATEMENT_CASES = [_param((m, s.name)) for m in METHODS for s in _statements(m)] or [_MISSING]
METHOD_CASES = [_param((m,)) for m in METHODS] or [
    pytest.param("absent", marks=_MISSING.marks, id=_MISSING.id)
]


# -------------------------------------------------------------------------------------------------
# Tests


def test_43_records_of_12_methods_carry_20_statements() -> None:
    """The data set's README: expected SQL is present for 43 records."""
    if not ROWS:
        pytest.skip(f"real data not found at {RECORDS}")
    assert sum(1 for r in ROWS if r["method_expected_sql"]) == 43
    assert sum(len(rows) for rows in METHODS.values()) == 43
    assert len(METHODS) == 12
    assert sum(len(_statements(m)) for m in METHODS) == 20


@pytest.mark.parametrize(("method", "statement"), STATEMENT_CASES)
def test_statement_values_are_in_the_row_change(method: str, statement: str) -> None:
    statements = _statements(method)
    (position,) = [i for i, s in enumerate(statements) if s.name == statement]
    _, found = assignment(method)[position]
    assert found == [], f"{len(found)} mismatches, first: {found[:10]}"


@pytest.mark.parametrize("method", METHOD_CASES)
def test_method_gives_one_row_change_per_statement(method: str) -> None:
    statements = _statements(method)
    changes = row_changes(method)
    assert len(changes) == len(statements)
    assert sorted(index for index, _ in assignment(method)) == list(range(len(changes)))


@pytest.mark.parametrize(
    ("sql", "op", "obj", "values", "where"),
    [
        pytest.param(
            """update "UNKNOWN"."OBJ# 7" set "COL 2" = HEXTORAW('c102'), "COL 3" = NULL """
            """where "COL 1" = HEXTORAW('4142') and "COL 2" IS NULL and "COL 3" = HEXTORAW('80');""",
            "UPDATE", 7, {1: b"\xc1\x02", 2: None}, {0: b"AB", 1: None, 2: b"\x80"},
            id="update",
        ),
        pytest.param(
            """insert into "UNKNOWN"."OBJ# 8"("COL 1","COL 2","COL 3") values """
            """(HEXTORAW('c102'),NULL,HEXTORAW('78780101010101'));""",
            "INSERT", 8, {0: b"\xc1\x02", 1: None, 2: bytes.fromhex("78780101010101")}, {},
            id="insert",
        ),
        pytest.param(
            """delete from "UNKNOWN"."OBJ# 9" where "COL 1" = HEXTORAW('c103') and "COL 2" IS NULL""",
            "DELETE", 9, {}, {0: b"\xc1\x03", 1: None},
            id="delete",
        ),
    ],
)  # fmt: skip
def test_sql_parser_reads_each_form(sql: str, op: Op, obj: int, values: Image, where: Image) -> None:
    assert parse_sql("s", sql) == Statement(name="s", op=op, obj=obj, values=values, where=where)


@pytest.mark.parametrize(
    "sql",
    [
        """update "UNKNOWN"."OBJ# 7" set "COL 2" := HEXTORAW('c102') where "COL 1" IS NULL""",
        """update "UNKNOWN"."OBJ# 7" set "COL 2" = NULL where "COL 1" LIKE 'x'""",
        """update "UNKNOWN"."OBJ# 7" set "COL 2" = NULL, "COL 2" = NULL where "COL 1" IS NULL""",
        """insert into "UNKNOWN"."OBJ# 8"("COL 1","COL 2") values (NULL)""",
        """select * from dual""",
    ],
    ids=["bad-assignment", "bad-condition", "column-twice", "value-count", "not-dml"],
)
def test_sql_parser_rejects_what_it_does_not_know(sql: str) -> None:
    with pytest.raises(ValueError):
        parse_sql("s", sql)
