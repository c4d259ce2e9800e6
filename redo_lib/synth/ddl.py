"""DDL statements of the generator: the statement text, its redo and its effect on the tables.

A DDL runs as Oracle runs it: it first commits the session's open transaction (implicit commit),
then writes a transaction of its own on the session's thread: a begin record (5.2 + 5.1 "begin
transaction" + 5.19 / 5.20), a record with the 24.1 vector (redo-format §5.9: XID, command type,
schema, text, object id), then the SYS row changes Oracle makes (OBJ$ for CREATE / TRUNCATE / DROP,
OBJ$ and TABPART$ ... for partition DDL: sysrows.py, partddl.py; COL$ for CREATE TABLE and the column
statements: colrows.py; CDEF$ / CCOL$ for CREATE TABLE and DROP COLUMN: cdefrows.py; TAB$ is not
written) and the commit (5.4). The expected trail gets one DDL
record, the only one of the transaction (``expected.ddl_record``).

The statement text is generated from the step, owner-qualified, in the form
``redo_lib.dictionary.ddl.apply_ddl`` reads (a step's ``sql`` replaces it as written)::

    CREATE TABLE SHOP.RETURNS (ID NUMBER(10) NOT NULL, REASON VARCHAR2(40),
                               CONSTRAINT RETURNS_PK PRIMARY KEY (ID))
    ALTER TABLE SHOP.ORDERS ADD (NOTE VARCHAR2(40))
    ALTER TABLE SHOP.ORDERS DROP COLUMN NOTE
    ALTER TABLE SHOP.ORDERS RENAME COLUMN NOTE TO REMARK
    ALTER TABLE SHOP.ORDERS MODIFY (AMOUNT NUMBER(12,2))
    DROP TABLE SHOP.ORDERS
    TRUNCATE TABLE SHOP.ORDERS

Effects on the simulated database (``database.TableState``): CREATE TABLE adds a table with a new
object id above every one in use (obj = dataobj); ADD appends a NULL-able column (existing rows read
NULL; no DEFAULT); DROP COLUMN rewrites every row without the column, so the columns after it move
down one (column index = segcol# - 1), and refuses key columns; RENAME and MODIFY change the spec
only, MODIFY only widening (VARCHAR2 / RAW longer, NUMBER(p,s) to a larger p with the same s);
DROP TABLE (no PURGE) removes the table from later steps, keeping its rows as they were for the
expected tables (its OBJ$ row renamed BIN$...$0, FLAGS 128: the recycle bin); TRUNCATE TABLE removes
every row and gives each segment a new data object id (OBJ$ DATAOBJ# update).

A DDL on a table another session has uncommitted changes on would wait in Oracle (ORA-00054 with
NOWAIT): ``ScenarioError``, as is any statement Oracle would refuse.
"""

from __future__ import annotations

import base64
import dataclasses
from typing import TYPE_CHECKING, Any

from redo_lib.errors import ScenarioError
from redo_lib.synth import partddl, sysrows
from redo_lib.synth.cdefrows import drop_column_cdef_rows
from redo_lib.synth.colrows import alter_col_rows
from redo_lib.synth.columns import type_text
from redo_lib.synth.database import TableState
from redo_lib.synth.expected import ddl_record
from redo_lib.synth.partitions import PartitionedTable, sys_rows_of_table
from redo_lib.synth.partspec import bound_text
from redo_lib.synth.scenario import PARTITION_STATEMENTS, ColumnSpec, Ddl, TableSpec, check_compat

if TYPE_CHECKING:
    from redo_lib.synth.engine import Engine

__all__ = ["COMMAND_TYPES", "OPERATIONS", "check_widening", "run", "statement_text"]

#: 24.1 command type (u16 @12, redo-format §5.9) per statement
COMMAND_TYPES = {
    "create_table": 1,
    "drop_table": 12,
    "truncate_table": 85,
    "add_column": 15,
    "drop_column": 15,
    "rename_column": 15,
    "modify_column": 15,
    **dict.fromkeys(PARTITION_STATEMENTS, 15),
}
#: the OPERATION column of the trail's DDL record
OPERATIONS = {
    "create_table": "CREATE",
    "drop_table": "DROP",
    "truncate_table": "TRUNCATE",
    "add_column": "ALTER",
    "drop_column": "ALTER",
    "rename_column": "ALTER",
    "modify_column": "ALTER",
    **dict.fromkeys(PARTITION_STATEMENTS, "ALTER"),
}
_WIDENABLE = ("VARCHAR2", "RAW")


def _column_text(column: ColumnSpec) -> str:
    return f"{column.name} {type_text(column.type)}" + ("" if column.nullable else " NOT NULL")


def statement_text(step: Ddl, spec: TableSpec) -> str:
    """The statement of ``step`` on the table ``spec`` (for CREATE TABLE, the new one)."""
    name = spec.full_name
    kind = step.statement
    if kind == "create_table":
        items = [_column_text(c) for c in spec.columns]
        if spec.primary_key:
            items.append(f"CONSTRAINT {spec.name}_PK PRIMARY KEY ({', '.join(spec.primary_key)})")
        for n, key in enumerate(spec.unique_keys, 1):  # names sort in declaration order (rule 12)
            items.append(f"CONSTRAINT {spec.name}_UK{n:02d} UNIQUE ({', '.join(key)})")
        return f"CREATE TABLE {name} ({', '.join(items)})" + _partition_clause(spec)
    if kind == "add_column":
        assert step.column is not None
        return f"ALTER TABLE {name} ADD ({_column_text(step.column)})"
    if kind == "drop_column":
        return f"ALTER TABLE {name} DROP COLUMN {step.column_name}"
    if kind == "rename_column":
        return f"ALTER TABLE {name} RENAME COLUMN {step.column_name} TO {step.new_name}"
    if kind == "modify_column":
        assert step.column is not None
        return f"ALTER TABLE {name} MODIFY ({step.column_name} {type_text(step.column.type)})"
    return f"{'DROP' if kind == 'drop_table' else 'TRUNCATE'} TABLE {name}"


def _partition_clause(spec: TableSpec) -> str:
    pb = spec.partition_by
    if pb is None:
        return ""
    ctype = spec.column(pb.column).type
    kind = "RANGE" if pb.ranged else pb.kind.upper()
    out = f" PARTITION BY {kind} ({pb.column})"
    if pb.interval is not None:
        out += f" INTERVAL ({bound_text(ctype, pb.interval)})"
    if pb.composite:
        out += f" SUBPARTITION BY HASH ({pb.subpartition_column}) SUBPARTITIONS {pb.subpartitions}"
    items = []
    for p in pb.partitions:
        values = (
            ""
            if p.values is None
            else " "
            + (
                f"VALUES LESS THAN ({bound_text(ctype, p.values)})"
                if pb.ranged
                else f"VALUES ({bound_text(ctype, p.values)})"
            )
        )
        items.append(f"PARTITION {p.name}{values}")
    return out + f" ({', '.join(items)})" + (" ENABLE ROW MOVEMENT" if pb.row_movement else "")


def check_widening(old: ColumnSpec, new: ColumnSpec) -> None:
    """MODIFY: only types that hold every value of the old one, stored the same way."""
    a, b = old.type, new.type
    if a.name in _WIDENABLE and b.name == a.name and b.length >= a.length:
        return
    if a.name == b.name == "NUMBER" and b.scale == a.scale and (a.precision or 39) <= (b.precision or 0):
        return  # NUMBER(p,s) -> NUMBER(q,s), q >= p (never from or to an unbounded NUMBER)
    raise ScenarioError(
        f"MODIFY {old.name} {type_text(a)} -> {type_text(b)}: only widening is generated (VARCHAR2 / "
        "RAW longer, NUMBER(p,s) to a larger p with the same s)"
    )


def _replace_column(
    spec: TableSpec, index: int, column: ColumnSpec | None, *, old: str, new: str
) -> TableSpec:
    """``spec`` with column ``index`` replaced (``None``: dropped) and key names ``old`` -> ``new``."""
    columns = list(spec.columns)
    if column is None:
        del columns[index]
    else:
        columns[index] = column

    def rename(key: tuple[str, ...]) -> tuple[str, ...]:
        return tuple(new if c == old else c for c in key)

    pb = spec.partition_by
    if pb is not None and old != new:  # RENAME COLUMN of a partition key
        pb = dataclasses.replace(
            pb,
            column=new if pb.column == old else pb.column,
            subpartition_column=new if pb.subpartition_column == old else pb.subpartition_column,
        )
    return dataclasses.replace(
        spec,
        columns=tuple(columns),
        primary_key=rename(spec.primary_key),
        unique_keys=tuple(rename(k) for k in spec.unique_keys),
        partition_by=pb,
    )


def altered_spec(step: Ddl, table: TableState) -> tuple[TableSpec, int | None]:
    """The table's shape after an ALTER TABLE step and the index of a dropped column (or ``None``);
    ``ScenarioError`` for what Oracle refuses (or the generator does not write)."""
    spec = table.spec
    kind = step.statement
    if kind == "add_column":
        assert step.column is not None
        if any(c.name == step.column.name for c in spec.columns):
            raise ScenarioError(f"{spec.full_name}: column {step.column.name} exists (ORA-01430)")
        if not step.column.nullable:
            raise ScenarioError(
                f"{spec.full_name}: ADD {step.column.name} NOT NULL without DEFAULT (ORA-01758)"
            )
        return dataclasses.replace(spec, columns=(*spec.columns, step.column)), None
    index = spec.index_of(step.column_name)
    old = spec.columns[index]
    pb = spec.partition_by
    if pb is not None and old.name in (pb.column, pb.subpartition_column) and kind != "rename_column":
        raise ScenarioError(
            f"{spec.full_name}: {old.name} is a partitioning key column (ORA-12984 / not generated)"
        )
    if kind == "drop_column":
        if any(old.name in k for k in spec.unique_sets):
            raise ScenarioError(
                f"{spec.full_name}: {old.name} is a key column (dropping it is not generated)"
            )
        if len(spec.columns) == 1:
            raise ScenarioError(f"{spec.full_name}: cannot drop all columns of a table (ORA-12983)")
        problem = table.drop_problem(index)
        if problem is not None:
            raise ScenarioError(problem)
        return _replace_column(spec, index, None, old=old.name, new=old.name), index
    if kind == "rename_column":
        if any(c.name == step.new_name for c in spec.columns):
            raise ScenarioError(f"{spec.full_name}: column {step.new_name} exists (ORA-00957)")
        column = dataclasses.replace(old, name=step.new_name)
        return _replace_column(spec, index, column, old=old.name, new=step.new_name), None
    assert kind == "modify_column" and step.column is not None
    column = dataclasses.replace(old, type=step.column.type)
    check_widening(old, column)
    return _replace_column(spec, index, column, old=old.name, new=old.name), None


def _new_object_id(e: Engine) -> int:
    """Above every object id in use (tables, their data objects and key indexes, partitions), a
    multiple of 10."""
    used = max((max(t.obj, t.dataobj, t.index_obj) for t in (*e.tables.values(), *e.dropped)), default=69_990)
    return (max(used, e.max_id) // 10 + 1) * 10


def _check_waits(e: Engine, session: str, table: TableState) -> None:
    for name, other in e.open.items():
        if name != session and any(
            c.revert[1] is table or (isinstance(table, PartitionedTable) and table.holds(c.revert[1]))
            for c in other.changes
        ):
            raise ScenarioError(
                f"{table.spec.full_name}: session {name} has uncommitted changes on it; the DDL would "
                "wait (ORA-00054 with NOWAIT)"
            )


def run(e: Engine, step: Ddl) -> None:
    """Run one DDL step: implicit commit, the DDL transaction, the effect on the tables."""
    kind = step.statement
    what = f"{step.statement} {step.table}"
    check_compat(
        (step.create.columns if step.create else ()) + ((step.column,) if step.column else ()),
        e.settings,
        what,
    )
    if kind == "create_table":
        assert step.create is not None
        spec = step.create
        known = [t.spec.full_name for t in (*e.tables.values(), *e.dropped)]
        if spec.full_name in known:
            raise ScenarioError(f"CREATE TABLE {spec.full_name}: name already used (ORA-00955)")
        table = None
        new_spec, drop = spec, None
    else:
        table = e.table(step.table)
        _check_waits(e, step.session, table)
        spec = table.spec
        if kind in PARTITION_STATEMENTS:
            partddl.check(e, step, table)
            if step.with_table:
                _check_waits(e, step.session, e.table(step.with_table))
        new_spec, drop = (
            (spec, None)
            if kind in ("drop_table", "truncate_table", *PARTITION_STATEMENTS)
            else altered_spec(step, table)
        )
    if step.sql is not None:
        text = step.sql
    elif kind in PARTITION_STATEMENTS:
        # Engine.table is typed TableState; a partition statement's table is a PartitionedTable
        text = partddl.statement_text(step, table)  # type: ignore[arg-type]
    else:
        text = statement_text(step, spec)
    e.commit(step.session)  # DDL commits the session's open transaction first
    if table is None:
        obj = spec.obj if spec.obj is not None else _new_object_id(e)
        table = e.add_table(spec, obj=obj, dataobj=spec.dataobj if spec.dataobj is not None else obj)
    t = e.session_txn(step.session)
    e.clock.bump()
    e.write_begin_only(t)
    assert t.txn is not None
    vector = e.vectors.ddl(t.txn.xid, COMMAND_TYPES[kind], table.obj, spec.owner, text)
    placed = t.log.write([vector])
    t.spool.append(
        ddl_record(
            operation=OPERATIONS[kind], owner=spec.owner, table=spec.name, obj=table.obj, text=text,
            scn=placed.scn, subscn=placed.subscn, op_time=placed.time.strftime("%Y-%m-%dT%H:%M:%S"),
            thread=placed.thread, sequence=placed.sequence, rba=str(placed.rba),
        )
    )  # fmt: skip
    if kind == "create_table":
        for name, values in sys_rows_of_table(e, table):
            sysrows.insert(e, t, name, values)
    elif kind == "drop_table":
        _recycle(e, t, table)
        del e.tables[spec.full_name]
        e.dropped.append(table)
    elif kind == "truncate_table":
        _truncate(e, t, table)
    elif kind in PARTITION_STATEMENTS:
        partddl.apply(e, t, step, table)  # type: ignore[arg-type]  # a PartitionedTable, as above
    else:
        alter_col_rows(e, t, table.obj, spec, new_spec, drop)
        if drop is not None:
            drop_column_cdef_rows(e, t, table.obj, spec, new_spec, drop)
        table.reshape(new_spec, drop=drop)
    e.commit(step.session)


def _truncate(e: Engine, t: Any, table: Any) -> None:
    """TRUNCATE TABLE: each segment empty with a new data object id (OBJ$ DATAOBJ# updates; a
    partition's TABPART$ / TABSUBPART$ row too)."""
    if isinstance(table, PartitionedTable):
        for part in table.parts:
            for state, name in (
                [(part.state, "TABPART$")] if part.state else [(s.state, "TABSUBPART$") for s in part.subs]
            ):
                partddl.new_dataobj(e, t, state, name)
        return
    partddl.new_dataobj(e, t, table, "")


def recycle_name(obj: int, scn: int) -> str:
    """A recycle-bin name: BIN$ + 24 base64 characters of a 16-byte GUID + $0 (30 characters).
    The generator's GUID is made of the object id and the SCN."""
    guid = obj.to_bytes(8, "big") + scn.to_bytes(8, "big")
    return "BIN$" + base64.b64encode(guid).decode("ascii") + "$0"


def _recycle(e: Engine, t: Any, table: Any) -> None:
    """DROP TABLE (no PURGE) puts the table in the recycle bin: its OBJ$ row (and its partitions')
    renamed to its BIN$ name, FLAGS 128 (in the recycle bin; the flag OLR's and Redotrail's
    checkpoint loaders skip)."""
    name = recycle_name(table.obj, e.clock.scn)
    objs = [table.obj]
    if isinstance(table, PartitionedTable):
        # not (p, *p.subs): mypy types its items object
        objs += [x.obj for p in table.parts for x in [p] + list(p.subs)]
    for obj in objs:
        row = e.sys.find("OBJ$", **{"OBJ#": obj})
        if row is not None:
            sysrows.update(e, t, "OBJ$", row, {"NAME": name, "FLAGS": 128})
