"""apply_ddl: DDL met in the redo (24.1) opens a new dictionary version from its SCN on.

Expected layouts follow Oracle's documented behaviour: added columns go to the end of the row (next
SEGCOL#); a physical DROP COLUMN removes the data from every row, so later columns move down; SET
UNUSED keeps the column in the row, hidden; 12c's first nullable column added with a DEFAULT brings a
hidden RAW guard column SYS_NCnnnnn$ just before it (USER_TAB_COLS of ``alter table xxx add (b integer
default 1)`` shows A, SYS_NC00002$, B); virtual columns take no SEGCOL#; adding a primary key makes its
columns NOT NULL. Keys follow trail-contract rule 12.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from redo_lib.dictionary.ddl import DdlEffect, DdlKind, apply_ddl, ddl_subject, replay_ddl
from redo_lib.dictionary.history import SYS_TABLES, DictionaryHistory, SysRows
from redo_lib.dictionary.model import ColumnDef, KeyKind, TableVersion, TypeCode
from redo_lib.errors import DictionaryError

SCN = 5000


def col(segcol: int, name: str, type_name: str, type_code: int, **extra: Any) -> ColumnDef:
    return ColumnDef(col_no=segcol, segcol_no=segcol, name=name, type_code=type_code, type_name=type_name,
                     length=extra.pop("length", 22), **extra)  # fmt: skip


ORDERS = TableVersion(
    obj=100,
    dataobj=100,
    owner="APP",
    name="ORDERS",
    columns=(
        col(1, "ID", "NUMBER", 2, nullable=False, precision=10, scale=0),
        col(2, "CUSTOMER", "VARCHAR2", 1, length=30, char_length=30, charset="AL32UTF8"),
        col(3, "CREATED", "DATE", 12, length=7),
    ),
    key_columns=("ID",),
    key_kind=KeyKind.PRIMARY,
    valid_from_scn=1000,
)
NOTES = TableVersion(
    obj=200,
    dataobj=200,
    owner="APP",
    name="NOTES",
    columns=(col(1, "A", "NUMBER", 2), col(2, "B", "VARCHAR2", 1, length=10, charset="AL32UTF8")),
    key_columns=("A", "B"),
    key_kind=KeyKind.ALL,
    valid_from_scn=1000,
)
HISTORY = DictionaryHistory([ORDERS, NOTES], db_charset="AL32UTF8", national_charset="AL16UTF16")


def layout(version: TableVersion) -> list[tuple[int, str, str, bool, bool]]:
    """(segcol#, name, type, nullable, hidden) in segcol order."""
    return [(c.segcol_no, c.name, c.type_name, c.nullable, c.hidden) for c in version.columns]


def apply(text: str, obj: int | None = 100, **kwargs: Any) -> tuple[DictionaryHistory, DdlEffect]:
    return apply_ddl(HISTORY, obj=obj, scn=SCN, text=text, schema="APP", **kwargs)


ID = (1, "ID", "NUMBER", False, False)
CUSTOMER = (2, "CUSTOMER", "VARCHAR2", True, False)
CREATED = (3, "CREATED", "DATE", True, False)

# (text, obj, kind, layout of the new version, key kind, key columns)
ALTER_ROWS = [
    ("ALTER TABLE APP.ORDERS ADD (AMOUNT NUMBER(12,2))", 100, DdlKind.ALTER,
     [ID, CUSTOMER, CREATED, (4, "AMOUNT", "NUMBER", True, False)], KeyKind.PRIMARY, ("ID",), "add-parenthesized"),
    ("alter table orders add status char(1) not null enable;", 100, DdlKind.ALTER,
     [ID, CUSTOMER, CREATED, (4, "STATUS", "CHAR", False, False)], KeyKind.PRIMARY, ("ID",), "add-bare-not-null"),
    ("ALTER TABLE ORDERS ADD (A NUMBER, B VARCHAR2(10 CHAR) NULL)", 100, DdlKind.ALTER,
     [ID, CUSTOMER, CREATED, (4, "A", "NUMBER", True, False), (5, "B", "VARCHAR2", True, False)],
     KeyKind.PRIMARY, ("ID",), "add-two"),
    ("ALTER TABLE ORDERS ADD (FLAG NUMBER DEFAULT 1)", 100, DdlKind.ALTER,
     [ID, CUSTOMER, CREATED, (4, "SYS_NC00004$", "RAW", True, True), (5, "FLAG", "NUMBER", True, False)],
     KeyKind.PRIMARY, ("ID",), "add-default-nullable-guard-column"),
    ("ALTER TABLE ORDERS ADD (FLAG NUMBER DEFAULT 0 NOT NULL)", 100, DdlKind.ALTER,
     [ID, CUSTOMER, CREATED, (4, "FLAG", "NUMBER", False, False)], KeyKind.PRIMARY, ("ID",), "add-default-not-null"),
    ('ALTER TABLE "APP"."ORDERS" ADD ("MixedCase" NUMBER)', 100, DdlKind.ALTER,
     [ID, CUSTOMER, CREATED, (4, "MixedCase", "NUMBER", True, False)], KeyKind.PRIMARY, ("ID",), "quoted-names"),
    ("ALTER TABLE ORDERS DROP COLUMN CUSTOMER", 100, DdlKind.ALTER,
     [ID, (2, "CREATED", "DATE", True, False)], KeyKind.PRIMARY, ("ID",), "drop-column-moves-later-down"),
    ("ALTER TABLE ORDERS DROP (CUSTOMER, CREATED) CHECKPOINT 500", 100, DdlKind.ALTER,
     [ID], KeyKind.PRIMARY, ("ID",), "drop-list"),
    ("ALTER TABLE ORDERS DROP COLUMN ID CASCADE CONSTRAINTS", 100, DdlKind.ALTER,
     [(1, "CUSTOMER", "VARCHAR2", True, False), (2, "CREATED", "DATE", True, False)],
     KeyKind.ALL, ("CUSTOMER", "CREATED"), "drop-key-column"),
    ("ALTER TABLE ORDERS SET UNUSED (CUSTOMER)", 100, DdlKind.ALTER,
     [ID, (2, "SYS_C00002_UNUSED$", "VARCHAR2", True, True), CREATED], KeyKind.PRIMARY, ("ID",), "set-unused"),
    ("ALTER TABLE ORDERS RENAME COLUMN ID TO ORDER_ID", 100, DdlKind.ALTER,
     [(1, "ORDER_ID", "NUMBER", False, False), CUSTOMER, CREATED], KeyKind.PRIMARY, ("ORDER_ID",), "rename-column"),
    ("ALTER TABLE ORDERS MODIFY (CUSTOMER NVARCHAR2(50) NOT NULL)", 100, DdlKind.ALTER,
     [ID, (2, "CUSTOMER", "NVARCHAR2", False, False), CREATED], KeyKind.PRIMARY, ("ID",), "modify-type-and-null"),
    ("ALTER TABLE ORDERS MODIFY CREATED NOT NULL", 100, DdlKind.ALTER,
     [ID, CUSTOMER, (3, "CREATED", "DATE", False, False)], KeyKind.PRIMARY, ("ID",), "modify-not-null"),
    ("ALTER TABLE ORDERS DROP PRIMARY KEY KEEP INDEX", 100, DdlKind.ALTER,
     [ID, CUSTOMER, CREATED], KeyKind.ALL, ("ID", "CUSTOMER", "CREATED"), "drop-primary-key"),
    ("ALTER TABLE ORDERS ADD (X NUMBER) MODIFY (CUSTOMER NOT NULL)", 100, DdlKind.ALTER,
     [ID, (2, "CUSTOMER", "VARCHAR2", False, False), CREATED, (4, "X", "NUMBER", True, False)],
     KeyKind.PRIMARY, ("ID",), "two-clauses"),
    ("ALTER TABLE ORDERS ADD (X NUMBER)", None, DdlKind.ALTER,
     [ID, CUSTOMER, CREATED, (4, "X", "NUMBER", True, False)], KeyKind.PRIMARY, ("ID",), "by-name-without-obj"),
    ("ALTER TABLE ORDERS RENAME TO ORDERS_OLD", 100, DdlKind.RENAME,
     [ID, CUSTOMER, CREATED], KeyKind.PRIMARY, ("ID",), "rename-to"),
    ("RENAME ORDERS TO ORDERS2", 100, DdlKind.RENAME,
     [ID, CUSTOMER, CREATED], KeyKind.PRIMARY, ("ID",), "rename-statement"),
    ("ALTER TABLE NOTES ADD CONSTRAINT NOTES_PK PRIMARY KEY (A)", 200, DdlKind.ALTER,
     [(1, "A", "NUMBER", False, False), (2, "B", "VARCHAR2", True, False)], KeyKind.PRIMARY, ("A",), "add-primary-key"),
    ("ALTER TABLE NOTES ADD (C DATE)", 200, DdlKind.ALTER,
     [(1, "A", "NUMBER", True, False), (2, "B", "VARCHAR2", True, False), (3, "C", "DATE", True, False)],
     KeyKind.ALL, ("A", "B", "C"), "all-columns-key-grows"),
]  # fmt: skip


@pytest.mark.parametrize(
    ("text", "obj", "kind", "columns", "key_kind", "key"),
    [pytest.param(*row[:-1], id=row[-1]) for row in ALTER_ROWS],
)
def test_alter_opens_a_version_with_the_new_layout(
    text: str, obj: int | None, kind: DdlKind, columns: list[Any], key_kind: KeyKind, key: tuple[str, ...]
) -> None:
    history, effect = apply(text, obj)
    table = obj or 100  # without an object id the text names ORDERS
    new = history.lookup(table, SCN)
    assert (effect.kind, layout(new), new.key_kind, new.key_columns) == (kind, columns, key_kind, key)
    assert effect.version == new and effect.obj == table
    # the version before the DDL is closed at its SCN, otherwise unchanged
    assert history.lookup(table, SCN - 1) == dataclasses.replace(
        HISTORY.lookup(table, SCN - 1), valid_to_scn=SCN
    )


@pytest.mark.parametrize(
    ("text", "name"),
    [("ALTER TABLE ORDERS RENAME TO ORDERS_OLD", "ORDERS_OLD"), ("RENAME ORDERS TO ORDERS2", "ORDERS2")],
    ids=["alter-rename-to", "rename-statement"],
)
def test_rename_changes_the_name_from_the_scn_on(text: str, name: str) -> None:
    history, effect = apply(text)
    assert (history.lookup(100, SCN - 1).name, history.lookup(100, SCN).name) == ("ORDERS", name)
    assert effect.table == "APP.ORDERS"


# (text, obj, owner.name, layout, key kind, key columns)
CREATE_ROWS = [
    ("CREATE TABLE APP.ITEMS (ID NUMBER PRIMARY KEY, NAME VARCHAR2(20) NOT NULL, PRICE NUMBER(8,2), "
     "CONSTRAINT ITEMS_UK UNIQUE (NAME))", "APP.ITEMS",
     [(1, "ID", "NUMBER", False, False), (2, "NAME", "VARCHAR2", False, False), (3, "PRICE", "NUMBER", True, False)],
     KeyKind.PRIMARY, ("ID",), "inline-primary-key"),
    ("create table items (a number, b varchar2(5), c date, constraint items_pk primary key (a, b))", "APP.ITEMS",
     [(1, "A", "NUMBER", False, False), (2, "B", "VARCHAR2", False, False), (3, "C", "DATE", True, False)],
     KeyKind.PRIMARY, ("A", "B"), "out-of-line-primary-key"),
    ("CREATE TABLE SCOTT.T2 (A NUMBER NOT NULL UNIQUE, B NUMBER)", "SCOTT.T2",
     [(1, "A", "NUMBER", False, False), (2, "B", "NUMBER", True, False)], KeyKind.UNIQUE, ("A",), "unique-not-null"),
    ("CREATE TABLE T3 (A NUMBER UNIQUE, B CLOB)", "APP.T3",
     [(1, "A", "NUMBER", True, False), (2, "B", "CLOB", True, False)], KeyKind.ALL, ("A",), "nullable-unique-is-no-key"),
    ("CREATE TABLE V (A NUMBER, B AS (A * 2), C NUMBER GENERATED ALWAYS AS IDENTITY, D DATE INVISIBLE)", "APP.V",
     [(1, "A", "NUMBER", True, False), (2, "C", "NUMBER", False, False), (3, "D", "DATE", True, True)],
     KeyKind.ALL, ("A", "C"), "virtual-identity-invisible"),
    ("CREATE TABLE LINKS (ID NUMBER PRIMARY KEY, R ROWID, U UROWID(100))", "APP.LINKS",
     [(1, "ID", "NUMBER", False, False), (2, "R", "ROWID", True, False), (3, "U", "UROWID", True, False)],
     KeyKind.PRIMARY, ("ID",), "rowid-columns"),
    ("CREATE TABLE P (PERIOD NUMBER, SCOPE VARCHAR2(3), CHECK (PERIOD > 0)) TABLESPACE USERS", "APP.P",
     [(1, "PERIOD", "NUMBER", True, False), (2, "SCOPE", "VARCHAR2", True, False)], KeyKind.ALL,
     ("PERIOD", "SCOPE"), "keyword-like-column-names"),
]  # fmt: skip


@pytest.mark.parametrize(
    ("text", "table", "columns", "key_kind", "key"),
    [pytest.param(*row[:-1], id=row[-1]) for row in CREATE_ROWS],
)
def test_create_table_opens_a_first_version(
    text: str, table: str, columns: list[Any], key_kind: KeyKind, key: tuple[str, ...]
) -> None:
    history, effect = apply(text, obj=300)
    new = history.lookup(300, SCN)
    assert (effect.kind, effect.table, new.full_name) == (DdlKind.CREATE, table, table)
    assert (layout(new), new.key_kind, new.key_columns) == (columns, key_kind, key)
    assert (new.dataobj, new.valid_from_scn, history.contains(300, SCN - 1)) == (300, SCN, False)


def test_a_rowid_column_is_type_69_of_10_bytes() -> None:
    """A ROWID column as COL$ holds it: TYPE# 69, LENGTH 10 (its value's data object, DBA, slot)."""
    history, _ = apply("CREATE TABLE LINKS (ID NUMBER PRIMARY KEY, R ROWID)", obj=300)
    r = history.lookup(300, SCN).columns[1]
    assert (r.name, r.type_code, r.type_name, r.length, r.charset) == ("R", TypeCode.ROWID, "ROWID", 10, None)


def test_create_partitioned_table_has_no_segment_of_its_own() -> None:
    history, effect = apply(
        "CREATE TABLE S (A NUMBER) PARTITION BY RANGE (A) (PARTITION P1 VALUES LESS THAN (10))", 300
    )
    assert history.lookup(300, SCN).dataobj is None
    assert "partitions" in effect.message


def test_create_without_object_id_leaves_the_history_unchanged() -> None:
    history, effect = apply("CREATE TABLE APP.ITEMS (ID NUMBER)", obj=None)
    assert history is HISTORY
    assert (effect.kind, effect.version, effect.table) == (DdlKind.CREATE, None, "APP.ITEMS")
    assert "unknown object id" in effect.message


def test_drop_table_ends_the_table_at_the_scn() -> None:
    history, effect = apply("DROP TABLE APP.ORDERS CASCADE CONSTRAINTS PURGE")
    assert (effect.kind, effect.version, effect.table) == (DdlKind.DROP, None, "APP.ORDERS")
    assert history.contains(100, SCN - 1) and not history.contains(100, SCN)
    assert history.contains(200, SCN)


@pytest.mark.parametrize(
    ("text", "obj", "kind"),
    [
        ("TRUNCATE TABLE ORDERS DROP STORAGE", 100, DdlKind.TRUNCATE),
        ("ALTER TABLE ORDERS ADD SUPPLEMENTAL LOG DATA (ALL) COLUMNS", 100, DdlKind.ALTER),
        ("ALTER TABLE ORDERS ADD CONSTRAINT ORDERS_CK CHECK (ID > 0)", 100, DdlKind.ALTER),
        ("ALTER TABLE ORDERS ADD (TOTAL AS (ID * 2) VIRTUAL)", 100, DdlKind.ALTER),
        ("ALTER TABLE ORDERS ENABLE ROW MOVEMENT", 100, DdlKind.ALTER),
        ("ALTER TABLE NOTES DROP CONSTRAINT NOTES_FK", 200, DdlKind.ALTER),
        ("ALTER TABLE ELSEWHERE.T ADD (A NUMBER)", 999, DdlKind.ALTER),
        ("ALTER TABLE ELSEWHERE.T RENAME TO U", 999, DdlKind.RENAME),
        ("DROP TABLE NOT_CAPTURED", None, DdlKind.DROP),
    ],
    ids=["truncate", "supplemental-log", "check-constraint", "virtual-column", "row-movement", "drop-constraint-all-key", "unknown-object",
         "unknown-object-rename", "unknown-name"],
)  # fmt: skip
def test_ddl_without_dictionary_change_returns_the_same_history(
    text: str, obj: int | None, kind: DdlKind
) -> None:
    history, effect = apply(text, obj)
    assert history is HISTORY
    assert (effect.kind, effect.version) == (kind, None)


@pytest.mark.parametrize(
    "text",
    [
        "CREATE INDEX ORDERS_I ON ORDERS (CUSTOMER)",
        "GRANT SELECT ON ORDERS TO PUBLIC",
        "ALTER TABLE ORDERS MOVE TABLESPACE USERS",
        "CREATE TABLE X AS SELECT * FROM ORDERS",
        "CREATE TABLE X (A, B) AS SELECT ID, CUSTOMER FROM ORDERS",
        "CREATE TABLE G (ID NUMBER, SHAPE SDO_GEOMETRY)",
        "CREATE TABLE X (ID NUMBER PRIMARY KEY, V VARCHAR2(9)) ORGANIZATION INDEX",
        "ALTER TABLE ORDERS ADD (BROKEN NUMBER(",
        "ALTER TABLE ORDERS ADD (DOC XMLTYPE)",
        "ALTER TABLE ORDERS DROP CONSTRAINT SOME_NAME",
        "ALTER TABLE ORDERS ADD PARTITION P2 VALUES LESS THAN (10)",
        "",
    ],
    ids=["create-index", "grant", "move", "ctas", "ctas-with-columns", "object-type-column", "iot",
         "cut-text", "xmltype", "drop-constraint-of-keyed-table", "add-partition", "empty"],
)  # fmt: skip
def test_what_is_not_understood_is_reported_unsupported(text: str) -> None:
    history, effect = apply(text, obj=100)
    assert history is HISTORY
    assert (effect.kind, effect.version) == (DdlKind.UNSUPPORTED, None)
    assert text[:20] in effect.message


@pytest.mark.parametrize(
    "text",
    [
        "ALTER TABLE APP.OTHER ADD (A NUMBER)",
        "ALTER TABLE ORDERS DROP COLUMN NOT_THERE",
        "ALTER TABLE ORDERS ADD (CUSTOMER VARCHAR2(5))",
        "ALTER TABLE ORDERS RENAME COLUMN ID TO CUSTOMER",
        "ALTER TABLE ORDERS MODIFY (NOT_THERE NUMBER)",
        "ALTER TABLE ORDERS DROP (ID, CUSTOMER, CREATED)",
    ],
    ids=["object-is-another-table", "drop-missing-column", "add-existing-column", "rename-onto-existing",
         "modify-missing-column", "drop-every-column"],
)  # fmt: skip
def test_ddl_contradicting_the_history_raises(text: str) -> None:
    with pytest.raises(DictionaryError):
        apply(text, obj=100)


def test_a_version_after_the_ddl_scn_is_an_error() -> None:
    later, _ = apply("ALTER TABLE ORDERS ADD (X NUMBER)")
    with pytest.raises(DictionaryError):
        apply_ddl(later, obj=100, scn=SCN - 10, text="ALTER TABLE ORDERS ADD (Y NUMBER)")


def test_successive_ddl_builds_a_history_of_versions() -> None:
    history = HISTORY
    for scn, text in [
        (2000, "ALTER TABLE ORDERS ADD (FLAG NUMBER DEFAULT 1)"),
        (3000, "ALTER TABLE ORDERS ADD (NOTE VARCHAR2(10) DEFAULT 'x')"),  # the guard column exists already
        (4000, "ALTER TABLE ORDERS SET UNUSED COLUMN CUSTOMER"),
        (5000, "ALTER TABLE ORDERS DROP UNUSED COLUMNS"),
    ]:
        history, effect = apply_ddl(history, obj=100, scn=scn, text=text, schema="APP")
        assert effect.kind == DdlKind.ALTER
    assert [c.name for c in history.lookup(100, 2500).columns] == [
        "ID",
        "CUSTOMER",
        "CREATED",
        "SYS_NC00004$",
        "FLAG",
    ]
    assert [(c.segcol_no, c.name) for c in history.lookup(100, 4500).columns][-2:] == [
        (5, "FLAG"),
        (6, "NOTE"),
    ]
    assert [(c.segcol_no, c.col_no, c.name) for c in history.lookup(100, 5000).columns] == [
        (1, 1, "ID"), (2, 2, "CREATED"), (3, 0, "SYS_NC00004$"), (4, 3, "FLAG"), (5, 4, "NOTE")
    ]  # fmt: skip
    assert [v.valid_from_scn for v in history.versions(100)] == [1000, 2000, 3000, 4000, 5000]


def test_guard_column_can_be_turned_off_for_11g() -> None:
    history, _ = apply("ALTER TABLE ORDERS ADD (FLAG NUMBER DEFAULT 1)", guard_column=False)
    assert layout(history.lookup(100, SCN))[3:] == [(4, "FLAG", "NUMBER", True, False)]


# (declared type, DATA_TYPE, type code, DATA_LENGTH, precision, scale, char length, charset)
TYPE_ROWS = [
    ("NUMBER", "NUMBER", TypeCode.NUMBER, 22, None, None, None, None),
    ("NUMBER(10,2)", "NUMBER", TypeCode.NUMBER, 22, 10, 2, None, None),
    ("NUMBER(5)", "NUMBER", TypeCode.NUMBER, 22, 5, 0, None, None),
    ("INTEGER", "NUMBER", TypeCode.NUMBER, 22, None, 0, None, None),
    ("FLOAT", "FLOAT", TypeCode.NUMBER, 22, 126, None, None, None),
    ("FLOAT(10)", "FLOAT", TypeCode.NUMBER, 22, 10, None, None, None),
    ("VARCHAR2(20)", "VARCHAR2", TypeCode.VARCHAR2, 20, None, None, 20, "AL32UTF8"),
    ("VARCHAR2(20 CHAR)", "VARCHAR2", TypeCode.VARCHAR2, 80, None, None, 20, "AL32UTF8"),
    ("CHAR", "CHAR", TypeCode.CHAR, 1, None, None, 1, "AL32UTF8"),
    ("NVARCHAR2(10)", "NVARCHAR2", TypeCode.VARCHAR2, 20, None, None, 10, "AL16UTF16"),
    ("NCHAR(3)", "NCHAR", TypeCode.CHAR, 6, None, None, 3, "AL16UTF16"),
    ("DATE", "DATE", TypeCode.DATE, 7, None, None, None, None),
    ("TIMESTAMP", "TIMESTAMP", TypeCode.TIMESTAMP, 11, None, 6, None, None),
    ("TIMESTAMP(0)", "TIMESTAMP", TypeCode.TIMESTAMP, 7, None, 0, None, None),  # a real 23ai COL$ row
    ("TIMESTAMP(9)", "TIMESTAMP", TypeCode.TIMESTAMP, 11, None, 9, None, None),
    ("BINARY_FLOAT", "BINARY_FLOAT", TypeCode.BINARY_FLOAT, 4, None, None, None, None),
    ("BOOLEAN", "BOOLEAN", TypeCode.BOOLEAN, 1, None, None, None, None),
    ("TIMESTAMP(3) WITH TIME ZONE", "TIMESTAMP WITH TIME ZONE", TypeCode.TIMESTAMP_TZ, 13, None, 3, None, None),
    ("TIMESTAMP WITH LOCAL TIME ZONE", "TIMESTAMP WITH LOCAL TIME ZONE", TypeCode.TIMESTAMP_LTZ, 11, None, 6, None,
     None),
    ("INTERVAL YEAR(3) TO MONTH", "INTERVAL YEAR TO MONTH", TypeCode.INTERVAL_YM, 5, 3, 0, None, None),
    ("INTERVAL DAY TO SECOND(3)", "INTERVAL DAY TO SECOND", TypeCode.INTERVAL_DS, 11, 2, 3, None, None),
    ("INTERVAL DAY(4) TO SECOND", "INTERVAL DAY TO SECOND", TypeCode.INTERVAL_DS, 11, 4, 6, None, None),
    ("RAW(16)", "RAW", TypeCode.RAW, 16, None, None, None, None),
    ("LONG RAW", "LONG RAW", TypeCode.LONG_RAW, 0, None, None, None, None),
    ("ROWID", "ROWID", TypeCode.ROWID, 10, None, None, None, None),  # DUMP: Typ=69 Len=10
    ("UROWID", "UROWID", TypeCode.UROWID, 4000, None, None, None, None),
    ("CLOB", "CLOB", TypeCode.CLOB, 4000, None, None, None, "AL32UTF8"),
    ("NCLOB", "NCLOB", TypeCode.CLOB, 4000, None, None, None, "AL16UTF16"),
    ("BLOB", "BLOB", TypeCode.BLOB, 4000, None, None, None, None),
    ("BINARY_DOUBLE", "BINARY_DOUBLE", TypeCode.BINARY_DOUBLE, 8, None, None, None, None),
]  # fmt: skip


@pytest.mark.parametrize(
    ("declared", "name", "code", "length", "precision", "scale", "char_length", "charset"),
    TYPE_ROWS,
    ids=[row[0] for row in TYPE_ROWS],
)
def test_added_column_type_as_the_dictionary_views_show_it(
    declared: str, name: str, code: int, length: int, precision: int | None, scale: int | None,
    char_length: int | None, charset: str | None,
) -> None:  # fmt: skip
    history, _ = apply(f"ALTER TABLE ORDERS ADD (X {declared})")
    new = history.lookup(100, SCN).columns[-1]
    assert (new.name, new.type_name, new.type_code, new.length) == ("X", name, code, length)
    assert (new.precision, new.scale, new.char_length, new.charset) == (
        precision,
        scale,
        char_length,
        charset,
    )


def test_comments_terminator_and_case_do_not_matter() -> None:
    history, effect = apply("  Alter Table orders /* why */ Add ( x Number -- amount\n ) ;\n")
    assert effect.kind == DdlKind.ALTER
    assert layout(history.lookup(100, SCN))[-1] == (4, "X", "NUMBER", True, False)


@pytest.mark.parametrize(
    ("text", "renamed", "dropped", "added", "modified"),
    [
        ("ALTER TABLE app.orders RENAME COLUMN customer TO client", [("CUSTOMER", "CLIENT")], [], [], []),
        ("ALTER TABLE app.orders DROP COLUMN created", [], ["CREATED"], [], []),
        ("ALTER TABLE app.orders SET UNUSED (customer)", [], ["CUSTOMER"], [], []),
        (
            "ALTER TABLE app.orders ADD (note VARCHAR2(10), amount NUMBER(8,2))",
            [],
            [],
            ["NOTE", "AMOUNT"],
            [],
        ),
        ("ALTER TABLE app.orders MODIFY (customer VARCHAR2(60))", [], [], [], ["CUSTOMER"]),
        ("ALTER TABLE app.orders MODIFY (customer NOT NULL)", [], [], [], []),  # no new type
        ("ALTER TABLE app.orders RENAME COLUMN id TO order_id", [("ID", "ORDER_ID")], [], [], []),
    ],
)
def test_the_effect_names_the_columns_renamed_dropped_added_and_retyped(
    text: str, renamed: list[tuple[str, str]], dropped: list[str], added: list[str], modified: list[str]
) -> None:
    _, effect = apply(text)
    assert (list(effect.renamed), list(effect.dropped), list(effect.added), list(effect.modified)) == (
        renamed, dropped, added, modified
    )  # fmt: skip


def test_replay_gives_the_effect_of_a_ddl_the_history_holds_already() -> None:
    text = "ALTER TABLE app.orders RENAME COLUMN customer TO client"
    evolved, first = apply(text)
    evolved, _ = apply_ddl(evolved, obj=100, scn=SCN + 10, text="ALTER TABLE app.orders DROP (client)")
    again = replay_ddl(evolved, obj=100, scn=SCN, text=text)
    assert (again.kind, again.renamed, again.version) == (
        DdlKind.ALTER,
        (("CUSTOMER", "CLIENT"),),
        first.version,
    )
    later = replay_ddl(evolved, obj=100, scn=SCN + 10, text="ALTER TABLE app.orders DROP (client)")
    assert later.dropped == ("CLIENT",)
    # replayed at an SCN where the column is not there: reported, never raised
    wrong = replay_ddl(evolved, obj=100, scn=SCN + 20, text=text)
    assert wrong.kind is DdlKind.UNSUPPORTED and "CUSTOMER" in wrong.message


@pytest.mark.parametrize(
    ("text", "subject"),
    [
        ("ALTER TABLE app.orders ADD (x NUMBER)", ("ALTER", "TABLE", "APP", "ORDERS")),
        ("create global temporary table t (x number)", ("CREATE", "TABLE", "SCOTT", "T")),
        ('DROP TABLE "App"."Mixed" PURGE', ("DROP", "TABLE", "App", "Mixed")),
        ("TRUNCATE TABLE orders", ("TRUNCATE", "TABLE", "SCOTT", "ORDERS")),
        ("RENAME orders TO orders_old", ("RENAME", "TABLE", "SCOTT", "ORDERS")),
        ("CREATE OR REPLACE VIEW v AS SELECT 1 FROM dual", ("CREATE", "VIEW", "SCOTT", "V")),
        ("CREATE UNIQUE INDEX app.i1 ON app.orders (id)", ("CREATE", "INDEX", "APP", "I1")),
        ("DROP MATERIALIZED VIEW app.mv", ("DROP", "MATERIALIZED VIEW", "APP", "MV")),
        ("GRANT SELECT ON app.orders TO bob", ("GRANT", "", "SCOTT", "")),
        ("", ("", "", "SCOTT", "")),
        # 23ai: the name after IF [NOT] EXISTS
        ("CREATE TABLE IF NOT EXISTS app.newt (k NUMBER)", ("CREATE", "TABLE", "APP", "NEWT")),
        ("drop table if exists t purge", ("DROP", "TABLE", "SCOTT", "T")),
    ],
)
def test_subject_of_a_statement(text: str, subject: tuple[str, str, str, str]) -> None:
    got = ddl_subject(text, "SCOTT")
    assert (got.operation, got.object_type, got.owner, got.name) == subject


# -- partition maintenance: kind "partition" with the sys rows, "unsupported" without them --------

SYS_ROWS = SysRows.from_document({name: [] for name in SYS_TABLES})
WITH_SYS = HISTORY.with_sys(SYS_ROWS)

PARTITION_DDL = [
    ("ALTER TABLE ORDERS ADD PARTITION P2 VALUES LESS THAN (10)", "ADD PARTITION"),
    ("alter table app.orders drop partition for (5) update global indexes", "DROP PARTITION"),
    ("ALTER TABLE ORDERS TRUNCATE PARTITION P1 DROP STORAGE", "TRUNCATE PARTITION"),
    ("ALTER TABLE ORDERS TRUNCATE SUBPARTITION P1_S1", "TRUNCATE SUBPARTITION"),
    ("ALTER TABLE ORDERS SPLIT PARTITION P1 AT (5) INTO (PARTITION P1A, PARTITION P1B)", "SPLIT PARTITION"),
    ("ALTER TABLE ORDERS MERGE PARTITIONS P1, P2 INTO PARTITION P12", "MERGE PARTITIONS"),
    ("ALTER TABLE ORDERS EXCHANGE PARTITION P1 WITH TABLE ORDERS_STAGE INCLUDING INDEXES", "EXCHANGE PARTITION"),
    ("ALTER TABLE ORDERS MOVE PARTITION P1 TABLESPACE USERS ONLINE", "MOVE PARTITION"),
    ("ALTER TABLE ORDERS MODIFY PARTITION P1 ADD SUBPARTITION P1_S9 VALUES ('X')", "MODIFY PARTITION"),
    ("ALTER TABLE ORDERS RENAME PARTITION P1 TO P_OLD", "RENAME PARTITION"),
    ("ALTER TABLE ORDERS COALESCE PARTITION", "COALESCE PARTITION"),
    ("ALTER TABLE ORDERS SET INTERVAL (NUMTOYMINTERVAL(1, 'MONTH'))", "SET INTERVAL"),
    ("ALTER TABLE ORDERS SET SUBPARTITION TEMPLATE (SUBPARTITION S1 VALUES ('A'))", "SET SUBPARTITION TEMPLATE"),
    ("ALTER TABLE ORDERS MODIFY DEFAULT ATTRIBUTES TABLESPACE USERS", "MODIFY DEFAULT ATTRIBUTES"),
]  # fmt: skip


@pytest.mark.parametrize(
    ("text", "clause"), PARTITION_DDL, ids=[c.lower().replace(" ", "-") for _, c in PARTITION_DDL]
)
def test_partition_maintenance_with_sys_rows_is_a_partition_effect(text: str, clause: str) -> None:
    history, effect = apply_ddl(WITH_SYS, obj=100, scn=SCN, text=text, schema="APP")
    assert history is WITH_SYS  # no new version: no column changes, the core follows the partitions
    assert (effect.kind, effect.version, effect.table, effect.obj) == (
        DdlKind.PARTITION,
        None,
        "APP.ORDERS",
        100,
    )
    assert effect.partition_clause == clause
    assert (effect.renamed, effect.dropped, effect.added, effect.modified) == ((), (), (), ())


@pytest.mark.parametrize(
    ("text", "names"),
    [
        ("ALTER TABLE ORDERS TRUNCATE PARTITION P1 DROP STORAGE", ("P1",)),
        ('alter table app.orders drop partitions p1, "p2" update global indexes', ("P1", "p2")),
        ("ALTER TABLE ORDERS TRUNCATE SUBPARTITION P1_S1", ("P1_S1",)),
        ("alter table app.orders drop partition for (5) update global indexes", ()),
        ("ALTER TABLE ORDERS SET INTERVAL (NUMTOYMINTERVAL(1, 'MONTH'))", ()),
    ],
    ids=["truncate", "drop-two", "subpartition", "drop-for-value", "no-names"],
)
def test_partition_maintenance_names_its_partitions(text: str, names: tuple[str, ...]) -> None:
    _, effect = apply_ddl(WITH_SYS, obj=100, scn=SCN, text=text, schema="APP")
    assert effect.partition_names == names


@pytest.mark.parametrize(
    ("text", "clause"), PARTITION_DDL, ids=[c.lower().replace(" ", "-") for _, c in PARTITION_DDL]
)
def test_partition_maintenance_without_sys_rows_stays_unsupported(text: str, clause: str) -> None:
    history, effect = apply(text)
    assert history is HISTORY
    assert (effect.kind, effect.version, effect.partition_clause) == (DdlKind.UNSUPPORTED, None, "")
    assert clause in effect.message and "sys rows" in effect.message


@pytest.mark.parametrize(
    "text",
    [
        "ALTER TABLE ORDERS ADD (PARTITION_KEY NUMBER)",  # a column whose name starts with PARTITION
        'ALTER TABLE ORDERS ADD ("PARTITION" NUMBER)',  # a column named PARTITION
    ],
    ids=["column-partition-key", "quoted-column-partition"],
)
def test_column_clauses_near_partition_words_still_alter_the_columns(text: str) -> None:
    history, effect = apply_ddl(WITH_SYS, obj=100, scn=SCN, text=text, schema="APP")
    assert effect.kind is DdlKind.ALTER and effect.version is not None
    assert len(effect.version.columns) == 4 and history.sys_rows is SYS_ROWS


def test_column_ddl_keeps_the_sys_rows() -> None:
    history, _ = apply_ddl(WITH_SYS, obj=100, scn=SCN, text="ALTER TABLE ORDERS ADD (X NUMBER)", schema="APP")
    history, _ = apply_ddl(history, obj=200, scn=SCN + 1, text="DROP TABLE APP.NOTES", schema="APP")
    assert history.sys_rows is SYS_ROWS


def test_replay_of_partition_maintenance_changes_no_column() -> None:
    text = "ALTER TABLE APP.ORDERS DROP PARTITION P1"
    evolved, _ = apply_ddl(
        WITH_SYS, obj=100, scn=SCN, text="ALTER TABLE APP.ORDERS RENAME COLUMN CUSTOMER TO CLIENT"
    )
    again = replay_ddl(evolved, obj=100, scn=SCN + 5, text=text)
    assert (again.kind, again.partition_clause, again.renamed, again.dropped) == (
        DdlKind.PARTITION, "DROP PARTITION", (), ())  # fmt: skip
    assert replay_ddl(HISTORY, obj=100, scn=SCN, text=text).kind is DdlKind.UNSUPPORTED


def test_partition_maintenance_is_counted_as_ddl_partition() -> None:
    from collections import Counter
    from types import SimpleNamespace

    from redo_lib.trail.emit import evolve_dictionary

    ddl = [
        SimpleNamespace(
            scn=SCN, obj=100, ddl_text="ALTER TABLE APP.ORDERS DROP PARTITION P1", ddl_schema="APP"
        )
    ]
    counts: Counter[str] = Counter()
    problems: list[dict[str, Any]] = []
    assert evolve_dictionary(WITH_SYS, ddl, counts, problems) is WITH_SYS
    assert counts == Counter({"ddl_partition": 1}) and problems == []
    counts.clear()
    evolve_dictionary(HISTORY, ddl, counts, problems)  # without the sys rows: unsupported, a problem
    assert counts == Counter({"ddl_unsupported": 1}) and [p["kind"] for p in problems] == ["unsupported"]
