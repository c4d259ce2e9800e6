"""``SYS.COL$`` in the generator: one row per stored column of a table, and the column DDL's changes.

Oracle keeps a table's columns in ``COL$`` (object 21), one row per column, hidden ones included, and
a column DDL changes those rows inside its transaction (docs/dictionary.md, "The SYS rows"). The
generator writes them from the same ``ColumnSpec`` fields as the document's ``tables`` entry
(:func:`column_defs`, ``generate.build_dictionary``), so the two cannot disagree:

* ``OBJ#``: the table's object id;
* ``COL#``: the visible column's number (1, 2, ...; 0 for a hidden one, as ``COLUMN_ID``);
* ``SEGCOL#`` and ``INTCOL#``: the place in the stored row (position + 1);
* ``TYPE#``: ``ColumnType.code``; ``LENGTH`` and ``SEGCOLLENGTH``: the length in bytes;
* ``PRECISION#`` / ``SCALE``: the type's, NULL when it has none; FLOAT(b): b and -127, as Oracle
  marks a binary precision;
* ``NULL$``: 0 nullable, 1 NOT NULL;
* ``PROPERTY``: 0, or :data:`PROPERTY_HIDDEN` for a hidden column (an XMLTYPE's storage BLOB);
* ``CHARSETFORM``: 1 text in the database set, 2 in the national set (NCLOB, NVARCHAR2, NCHAR), 0 no
  text (``ColumnType.charset_form``); ``CHARSETID``: that set's Oracle id (the core's list,
  ``values.charset_names``: AL32UTF8 873, AL16UTF16 2000, UTF8 871 ...), 0 when no text.

``OFFSET`` and ``FIXEDSTORAGE`` are 0; the other columns are NULL. The statements (``ddl.run``):
CREATE TABLE inserts one row per column after the table's ``OBJ$`` row
(``partitions.sys_rows_of_table``); ADD COLUMN inserts the new last one; DROP COLUMN deletes the
column's row, then renumbers each later column (``COL#`` if visible, ``SEGCOL#``, ``INTCOL#`` down by
one), as Oracle's DROP COLUMN does; RENAME COLUMN updates ``NAME``; MODIFY updates the changed ones
of ``TYPE#``, ``LENGTH``, ``SEGCOLLENGTH``, ``PRECISION#``, ``SCALE`` and ``NULL$``. DROP TABLE,
TRUNCATE and partition DDL change no ``COL$`` row.

Not as Oracle writes them: ``COL$`` lives in the index cluster ``C_OBJ#`` (data object 2), so Oracle
writes its rows as cluster member rows (row flag C, the table's number in the block, the cluster key
``OBJ#`` stored once per block in a key row); the generator writes them as ordinary heap rows of a
table with object 21 and data object 2 (as ``USER$`` of ``C_USER#``). Also simpler than Oracle's:
a hidden storage column's ``PROPERTY`` holds only the hidden bit (Oracle's marks a system-generated
column with more) and its ``COL#`` is 0, as the export's ``COLUMN_ID`` (Oracle's ``COL$.COL#`` is the
XMLTYPE's).
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING, Any

from redo_lib.dictionary import ColumnDef
from redo_lib.synth import sysrows
from redo_lib.synth.scenario import TableSpec
from redo_lib.values.text import charset_names

if TYPE_CHECKING:
    from redo_lib.synth.engine import Engine, OpenTxn

__all__ = ["PROPERTY_HIDDEN", "alter_col_rows", "col_rows", "column_defs"]

#: ``COL$.SCALE`` of FLOAT(b): a NUMBER with a binary precision (``PRECISION#`` b)
_FLOAT_SCALE = -127
#: ``COL$.PROPERTY`` bit of a hidden column (the core's ``sys_columns.rs`` ``PROPERTY_HIDDEN``)
PROPERTY_HIDDEN = 0x20


def column_defs(spec: TableSpec) -> tuple[ColumnDef, ...]:
    """The stored columns of a table as the dictionary export gives them (``DBA_TAB_COLS``, hidden
    columns included): the document's ``tables`` entry and the ``COL$`` rows both come from here."""
    visible = [c for c in spec.columns if not c.hidden]
    return tuple(
        ColumnDef(
            # DBA_TAB_COLS.COLUMN_ID: NULL (0) for a hidden column, as the export writes it (COL$.COL#
            # of an XMLTYPE's storage BLOB is the XMLTYPE's); visible ones count visible ones
            col_no=0 if c.hidden else visible.index(c) + 1,
            segcol_no=i + 1,
            name=c.name,
            type_code=c.type.code,
            type_name=c.type.name,
            length=c.type.length,
            precision=c.type.precision,
            scale=c.type.scale,
            charset=c.type.charset,  # form 1: the database's; form 2 (NCLOB, NVARCHAR2, NCHAR): national
            nullable=c.nullable,
            char_length=c.type.char_length,
            hidden=c.hidden,
        )
        for i, c in enumerate(spec.columns)
    )


@functools.cache
def _charset_ids() -> dict[str, int]:
    """Oracle character set name -> id, the core's list (``values.charset_names``) turned round."""
    return {name: cid for cid, name in charset_names().items()}


def col_rows(spec: TableSpec, obj: int) -> list[dict[str, Any]]:
    """The ``COL$`` rows of table ``obj`` of shape ``spec``, by ``SEGCOL#`` (the module's list)."""
    rows = []
    for d, c in zip(column_defs(spec), spec.columns, strict=True):
        rows.append({
            "OBJ#": obj, "COL#": d.col_no, "SEGCOL#": d.segcol_no, "SEGCOLLENGTH": d.length, "OFFSET": 0,
            "NAME": d.name, "TYPE#": d.type_code, "LENGTH": d.length, "FIXEDSTORAGE": 0,
            "PRECISION#": d.precision, "SCALE": _FLOAT_SCALE if d.type_name == "FLOAT" else d.scale,
            "NULL$": 0 if d.nullable else 1,
            "INTCOL#": d.segcol_no, "PROPERTY": PROPERTY_HIDDEN if d.hidden else 0,
            "CHARSETID": 0 if d.charset is None else _charset_ids()[d.charset],
            "CHARSETFORM": c.type.charset_form,
        })  # fmt: skip
    return rows


def alter_col_rows(e: Engine, t: OpenTxn, obj: int, old: TableSpec, new: TableSpec, drop: int | None) -> None:
    """The ``COL$`` changes of ADD / DROP / RENAME / MODIFY COLUMN on table ``obj`` (shape ``old`` ->
    ``new``; ``drop``: the index of a dropped column), in the DDL's transaction ``t``: the dropped
    column's row deleted, then each row's columns that differ between its ``old`` and ``new`` values
    updated, in ``SEGCOL#`` order (DROP: the later columns' numbers; RENAME: ``NAME``; MODIFY: the
    changed type columns), then the added column's row inserted."""
    before, after = col_rows(old, obj), col_rows(new, obj)
    rows = []
    for values in before:
        row = e.sys.find("COL$", **{"OBJ#": obj, "SEGCOL#": values["SEGCOL#"]})
        assert row is not None, f"no COL$ row of object {obj} SEGCOL# {values['SEGCOL#']}"
        rows.append(row)
    if drop is not None:
        sysrows.delete(e, t, "COL$", rows.pop(drop))
        del before[drop]
    for row, was, now in zip(rows, before, after, strict=False):  # ADD: ``after`` is one longer
        if changes := {name: value for name, value in now.items() if value != was[name]}:
            sysrows.update(e, t, "COL$", row, changes)
    for values in after[len(before) :]:
        sysrows.insert(e, t, "COL$", values)
