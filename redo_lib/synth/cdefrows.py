"""``SYS.CDEF$`` and ``SYS.CCOL$`` in the generator: a table's constraints and their columns.

Oracle keeps a table's constraints in ``CDEF$`` (object 31), one row per constraint, and their
columns in ``CCOL$`` (object 32), one row per column of a constraint; a DDL changes them inside its
transaction (docs/dictionary.md, "The SYS rows"). The generator writes, for a table of shape
``TableSpec``, in ``CON#`` order (the order of the generated CREATE TABLE text, ``ddl.statement_text``:
the columns' inline NOT NULL first, then the out-of-line keys):

* a NOT NULL constraint (``TYPE#`` 7) of each visible NOT NULL column that is not a primary key
  column, with its one ``CCOL$`` row (``POS#`` NULL). A primary key column has none: its NOT NULL
  comes with the key, as in the real 23ai checkpoints (rophy-olr-tests-23ai: each tracked table's
  primary key column is NOT NULL in ``COL$`` with no type-7 row, while every NOT NULL column of a
  SYS table has one type-7 constraint with one ``CCOL$`` row);
* the primary key (``TYPE#`` 2), one ``CCOL$`` row per key column, ``POS#`` 1, 2, ... in key order;
* each unique key (``TYPE#`` 3), in declaration order, its columns as the primary key's.

``CDEF$``: ``OBJ#`` the table's object id; ``CON#`` the next number of the engine's constraint
sequence (``Engine.next_constraint_id``: one database-wide counter, so the numbers are stable per
scenario); ``COLS`` and ``INTCOLS`` the number of columns; ``ENABLED`` 1; ``DEFER`` 0; ``MTIME`` the
clock's time; the other columns NULL. ``CCOL$``: ``OBJ#``, ``CON#``, ``COL#`` the column's ``COL$.COL#``,
``POS#``, ``INTCOL#`` its ``COL$.INTCOL#`` (``colrows.column_defs``); the other columns NULL.

The statements (``ddl.run``): CREATE TABLE inserts the table's rows after its ``COL$`` rows
(``partitions.sys_rows_of_table``; the initial tables are seeded the same way); DROP COLUMN of a
NOT NULL column deletes its type-7 constraint's ``CCOL$`` and ``CDEF$`` rows, then moves each later
column's ``CCOL$`` rows down one (``INTCOL#``, and ``COL#`` when visible), as Oracle renumbers them with
``COL$``'s. DROP TABLE (the recycle bin keeps the constraints), TRUNCATE, partition DDL, ADD COLUMN
(only NULL-able columns are generated: ORA-01758 without a DEFAULT), RENAME COLUMN and MODIFY (a
type widening: the nullability does not change) write no ``CDEF$`` / ``CCOL$`` row.

Not written (simpler than Oracle): the check condition of a NOT NULL constraint (``CONDITION``
``"<column>" IS NOT NULL`` and ``CONDLENGTH``, which Oracle rewrites on RENAME COLUMN) is NULL, so
RENAME COLUMN changes no row here; foreign keys (``TableSpec.foreign_keys``: the referenced table is
not modelled, no ``ROBJ#`` / ``RCON#``) and the supplemental log groups Oracle keeps as constraints
too (``TYPE#`` 14-17: the real checkpoints' tables each have a type-17 ALL COLUMN group, with no
``CCOL$`` row) are not written. Like ``COL$``, the rows are heap rows of object 31 / 32 in data
object 29, not the cluster ``C_COBJ#``'s member rows Oracle writes (``sysrows.py``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from redo_lib.synth import sysrows
from redo_lib.synth.colrows import column_defs
from redo_lib.synth.scenario import TableSpec

if TYPE_CHECKING:
    from redo_lib.synth.engine import Engine, OpenTxn

__all__ = [
    "TYPE_NOT_NULL",
    "TYPE_PRIMARY",
    "TYPE_UNIQUE",
    "constraints",
    "drop_column_cdef_rows",
    "rows_of_table",
]

#: ``CDEF$.TYPE#`` of a primary key, a unique key and a NOT NULL check
TYPE_PRIMARY = 2
TYPE_UNIQUE = 3
TYPE_NOT_NULL = 7


def constraints(spec: TableSpec) -> list[tuple[int, tuple[str, ...]]]:
    """``(TYPE#, column names)`` of the table's constraints, in ``CON#`` order (the module's list)."""
    out: list[tuple[int, tuple[str, ...]]] = [
        (TYPE_NOT_NULL, (c.name,))
        for c in spec.columns
        if not c.nullable and not c.hidden and c.name not in spec.primary_key
    ]
    if spec.primary_key:
        out.append((TYPE_PRIMARY, spec.primary_key))
    out.extend((TYPE_UNIQUE, key) for key in spec.unique_keys)
    return out


def rows_of_table(e: Engine, spec: TableSpec, obj: int) -> list[tuple[str, dict[str, Any]]]:
    """The ``CDEF$`` and ``CCOL$`` rows of table ``obj`` of shape ``spec``: per constraint (a new
    ``CON#`` each) its ``CDEF$`` row, then its ``CCOL$`` rows."""
    defs = {d.name: d for d in column_defs(spec)}
    rows: list[tuple[str, dict[str, Any]]] = []
    for kind, names in constraints(spec):
        con = e.next_constraint_id()
        rows.append(("CDEF$", {"OBJ#": obj, "CON#": con, "COLS": len(names), "TYPE#": kind, "ENABLED": 1,
                               "INTCOLS": len(names), "MTIME": e.clock.time, "DEFER": 0}))  # fmt: skip
        for pos, name in enumerate(names, 1):
            d = defs[name]
            rows.append(("CCOL$", {"OBJ#": obj, "CON#": con, "COL#": d.col_no, "INTCOL#": d.segcol_no,
                                   "POS#": None if kind == TYPE_NOT_NULL else pos}))  # fmt: skip
    return rows


def _value(e: Engine, name: str, row: Any, column: str) -> int:
    """A NUMBER column's value of a simulated SYS row, as an integer."""
    return int(row.values[e.sys[name].spec.index_of(column)])


def drop_column_cdef_rows(e: Engine, t: OpenTxn, obj: int, old: TableSpec, new: TableSpec, drop: int) -> None:
    """The ``CDEF$`` / ``CCOL$`` changes of DROP COLUMN (column index ``drop`` of ``old``; ``new`` the
    shape after) on table ``obj``, in the DDL's transaction ``t``: the constraints on the dropped
    column (its type-7 one: key columns are not dropped, ``ddl.altered_spec``) deleted, ``CCOL$``
    rows then ``CDEF$`` row, then each later column's ``CCOL$`` rows renumbered, in ``INTCOL#`` order."""
    intcol = drop + 1
    ccols = sorted(
        (r for r in e.sys["CCOL$"].scan() if _value(e, "CCOL$", r, "OBJ#") == obj),
        key=lambda r: (_value(e, "CCOL$", r, "INTCOL#"), _value(e, "CCOL$", r, "CON#")),
    )
    gone = {_value(e, "CCOL$", r, "CON#") for r in ccols if _value(e, "CCOL$", r, "INTCOL#") == intcol}
    for con in sorted(gone):
        cdef = e.sys.find("CDEF$", **{"OBJ#": obj, "CON#": con})
        assert cdef is not None, f"no CDEF$ row of object {obj} CON# {con}"
        assert _value(e, "CDEF$", cdef, "TYPE#") == TYPE_NOT_NULL, f"{old.full_name}: a key column dropped"
        for row in [r for r in ccols if _value(e, "CCOL$", r, "CON#") == con]:
            sysrows.delete(e, t, "CCOL$", row)
            ccols.remove(row)
        sysrows.delete(e, t, "CDEF$", cdef)
    after = column_defs(new)
    for row in ccols:
        was = _value(e, "CCOL$", row, "INTCOL#")
        if was > intcol:
            d = after[was - 2]  # the column's place in ``new``: one down
            changes = {"INTCOL#": d.segcol_no}
            if _value(e, "CCOL$", row, "COL#") != d.col_no:
                changes["COL#"] = d.col_no
            sysrows.update(e, t, "CCOL$", row, changes)
