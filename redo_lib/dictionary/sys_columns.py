"""Columns from ``SYS.COL$``: where a table's ``COL$`` rows (followed from the redo) and its version
(the DDL text's, or the export's) disagree, the ``COL$`` rows win (docs/dictionary.md, "Columns from
COL$").

The rule is the core's (``crates/redo-core/src/trail/sys_columns.rs``): the decoder shapes rows
with it at run time. :func:`with_columns_from_sys` asks the core where it applies and puts those
versions in the history itself, so the dictionary a batch writes (``<batch>/dictionary.json``, which
publish types the mirrors with and the next batch starts from) says what the trail was written with.
"""

from __future__ import annotations

from redo_lib.dictionary.history import DictionaryHistory
from redo_lib.dictionary.load import column_from_col_row
from redo_lib.dictionary.model import ColumnDef, KeyKind, TableVersion
from redo_lib.native import native

__all__ = ["with_columns_from_sys"]


def with_columns_from_sys(history: DictionaryHistory) -> DictionaryHistory:
    """``history`` with each version the core's ``columns_from_sys`` finds (a range of a table where
    its SYS rows and its version disagree) in it: that range of the version with the columns of the
    ``COL$`` rows and the key the core gave (from the ``CDEF$`` / ``CCOL$`` rows when the table has
    them, else the version's carried over; a key whose columns are all gone: every column), and each
    version of a table only the SYS rows know (created after the export, its CREATE text not
    applied) added. Unchanged when they agree everywhere, or without SYS rows."""
    if history.sys_rows is None:
        return history
    for found in native.columns_from_sys(history.to_json()):
        obj, start = int(found["obj"]), int(found["valid_from_scn"])
        columns = [
            c
            for c in (
                column_from_col_row(row, history.db_charset, history.national_charset)
                for row in found["col_rows"]
            )
            if c is not None
        ]
        columns.sort(key=lambda c: c.segcol_no)
        base = next((v for v in history.versions(obj) if v.covers(start)), None)
        if base is not None:
            columns = [_as_before(c, base) for c in columns]
        if base is None:  # a table only the SYS rows know (its CREATE text not applied)
            created = TableVersion(
                obj=obj, dataobj=found["dataobj"], owner=found["owner"], name=found["name"], columns=tuple(columns),
                key_columns=tuple(found["key_columns"]), key_kind=KeyKind(found["key_kind"] or KeyKind.ALL),
                valid_from_scn=start, valid_to_scn=found["valid_to_scn"],
            )  # fmt: skip
            history = history.with_version(created)
            continue
        kind = base.key_kind if found["key_kind"] is None else KeyKind(found["key_kind"])
        key = (tuple(found["key_columns"]), kind)
        history = history.with_columns(obj, (start, found["valid_to_scn"]), tuple(columns), key)
    return history


def _as_before(column: ColumnDef, base: TableVersion) -> ColumnDef:
    """``column`` (from its ``COL$`` row) as ``base`` defines it where every attribute ``COL$``
    holds is the same (``SEGCOL#``, name, type code, length, precision, scale, nullable, hidden,
    character set): the version keeps what ``COL$`` does not say (the character length, the type as
    the export names it: INTEGER, DECIMAL); else the row's (a MODIFY's new length or precision)."""

    def held(c: ColumnDef) -> tuple[object, ...]:
        return (
            c.segcol_no,
            c.name,
            c.type_code,
            c.length,
            c.precision,
            c.scale,
            c.nullable,
            c.hidden,
            c.charset,
        )

    return next((old for old in base.columns if held(old) == held(column)), column)
