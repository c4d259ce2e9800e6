"""Exported dictionaries -> ``DictionaryHistory``: OLR schema checkpoints and Redotrail's own JSON.

Two inputs:

* an OpenLogReplicator schema checkpoint (``<database>-chkpt-<scn>.json``): copies of the rows of
  ``SYS.OBJ$``, ``TAB$``, ``COL$``, ``CDEF$``, ``CCOL$``, ``USER$``, ``TABPART$``, ``TABCOMPART$`` and
  ``TABSUBPART$`` (members ``sys-obj``, ``sys-tab``, ...), with the database character sets in
  ``nls-character-set`` / ``nls-nchar-character-set``. Every table in it gets one version valid from the
  checkpoint's ``scn`` on. Type codes, charset forms and flags are read as OLR stores them: 128-bit
  flag words as ``[low 64 bits, high 64 bits]``, SQL NULL precision/scale as -1. The rows of the
  users OLR tracks (``users``) of OBJ$, TABPART$, TABCOMPART$, TABSUBPART$, USER$, COL$, CDEF$ and
  CCOL$ become the ``sys`` member (docs/dictionary.md, "The SYS rows"), each
  with its ``row-id``, valid from the checkpoint's ``scn``.
* Redotrail's own JSON (docs/dictionary.md), as written by ``include/sql/export_dictionary.sql`` or
  by ``DictionaryHistory.to_json``. The SQL export gives ``DATA_TYPE`` names; they are mapped to
  internal type codes here, in Python (``model.type_code_for_name``), not in the SQL.

``load_dictionary`` tells the two apart by their top-level members. ``path_or_text`` may be a path
(``str`` or ``os.PathLike``) or the JSON text itself (a ``str`` starting with ``{`` or ``[``).

This is the one module of ``dictionary`` that reads files (the verb ``load_*``, style §6.3): small
local files a DBA exported. Layer 2: imports ``redo_lib.errors``, ``redo_lib.values`` and this
package. On bad input, every public function raises only ``DictionaryError``, with the file in
``position`` and the JSON path of the problem in ``details["json_path"]``.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from redo_lib.dictionary.history import DictionaryHistory, JsonFields, SysRows
from redo_lib.dictionary.model import (
    ColumnDef,
    KeyConstraint,
    KeyKind,
    PartitionDef,
    TableVersion,
    TypeCode,
    choose_key,
    type_name_for_code,
)
from redo_lib.errors import DictionaryError, Position, locate
from redo_lib.values.text import charset_names

__all__ = ["column_from_col_row", "load_dictionary", "load_olr_checkpoint", "load_redotrail_json"]

Source = str | os.PathLike[str]

# OBJ$.TYPE# of a table, a table partition, a table subpartition; OBJ$.FLAGS bit of an object in the
# recycle bin.
_OBJ_TYPE_TABLE = 2
_OBJ_TYPE_PARTITION = 19
_OBJ_TYPE_SUBPARTITION = 34
_OBJ_FLAG_DROPPED = 1 << 7
# COL$.PROPERTY bits: hidden column, unused (SET UNUSED) column.
_COL_HIDDEN = 1 << 5
_COL_UNUSED = 1 << 15
# CDEF$.TYPE#: primary key, unique key.
_CDEF_PRIMARY = 2
_CDEF_UNIQUE = 3
# COL$.SCALE of a FLOAT column; OLR writes SQL NULL precision/scale as -1.
_SCALE_FLOAT = -127
_OLR_NULL = -1

# OBJ$.FLAGS is the low word of OLR's 128-bit flag pair
_LOW_64 = (1 << 64) - 1

_CHARACTER_TYPES = frozenset({TypeCode.VARCHAR2, TypeCode.CHAR, TypeCode.CLOB, TypeCode.LONG})


# -- reading ----------------------------------------------------------------------------------------


def _read(source: Source) -> tuple[str, str]:
    """(text, name for errors) of a path or of JSON text given directly."""
    if isinstance(source, str) and source.lstrip()[:1] in ("{", "["):
        return source, "<json text>"
    path = Path(source)
    try:
        return path.read_text(encoding="utf-8"), str(path)
    except UnicodeDecodeError as exc:
        raise DictionaryError(
            "dictionary file is not UTF-8 text", position=Position(file=str(path), offset=exc.start)
        ) from exc
    except OSError as exc:
        raise DictionaryError(
            f"cannot read dictionary file: {exc.strerror or exc}", position=Position(file=str(path))
        ) from exc


def _parse(text: str, name: str) -> object:
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise DictionaryError(
            f"not valid JSON: {exc.msg}", position=Position(file=name, line=exc.lineno), column=exc.colno
        ) from exc


def load_dictionary(path_or_text: Source) -> DictionaryHistory:
    """Load an OLR schema checkpoint or a Redotrail dictionary, whichever the file is."""
    text, name = _read(path_or_text)
    doc = _parse(text, name)
    try:
        root = JsonFields(doc)
        if "format" in root.data:
            return DictionaryHistory.from_document(doc)
        if any(k in root.data for k in ("sys-obj", "schema-scn", "schema-ref-scn")):
            return _olr_history(root)
        raise root.problem(
            None,
            'neither a Redotrail dictionary (no "format" member) nor an OLR schema checkpoint (no "sys-obj")',
        )
    except DictionaryError as exc:
        raise locate(exc, file=name) from None


#: a Redotrail dictionary says so in its first member (``to_json`` and the export SQL write it first)
_REDOTRAIL_HEAD = re.compile(r'^\s*\{\s*"format"\s*:\s*"redotrail-dictionary"')


@dataclass(frozen=True, eq=False)
class DictionaryDocument:
    """A dictionary as the Rust core reads it: the Redotrail JSON document's text, parsed once, by
    the core (``native.Emitter``), on the decode path (docs/dictionary.md, "Parsed once, in the
    core"). A Redotrail dictionary file is handed over as it is; an OLR checkpoint is built into
    one by its loader here. ``history()`` is the Python model of the same document, built only when
    asked (the unsupported-storage report's look-ups, when the decode met such a table), or the one
    the OLR loader built."""

    text: str
    name: str  # the file, for the errors the core raises about it
    _history: list[DictionaryHistory] = field(default_factory=list, repr=False)

    def history(self) -> DictionaryHistory:
        if not self._history:
            self._history.append(load_redotrail_json(self.text))
        return self._history[0]


def dictionary_document(path_or_text: Source) -> DictionaryDocument:
    """The document of a dictionary file for the core: a Redotrail dictionary's text as it is (not
    parsed in Python: a 54 MB export of 20,000 tables took 3.1 CPU-s and 650 MB more to load here
    than the core's own parse), anything else through :func:`load_dictionary` (an OLR checkpoint's
    loader, or the error that says what the file is not)."""
    text, name = _read(path_or_text)
    if _REDOTRAIL_HEAD.match(text[:4096]):
        return DictionaryDocument(text, name)
    history = load_dictionary(path_or_text)
    return DictionaryDocument(history.to_json(), name, [history])


def load_redotrail_json(path_or_text: Source) -> DictionaryHistory:
    """Load Redotrail's own dictionary JSON (docs/dictionary.md)."""
    text, name = _read(path_or_text)
    doc = _parse(text, name)
    try:
        return DictionaryHistory.from_document(doc)
    except DictionaryError as exc:
        raise locate(exc, file=name) from None


def load_olr_checkpoint(path_or_text: Source) -> DictionaryHistory:
    """Load an OpenLogReplicator schema checkpoint: every table in it, valid from the checkpoint SCN."""
    text, name = _read(path_or_text)
    doc = _parse(text, name)
    try:
        return _olr_history(JsonFields(doc))
    except DictionaryError as exc:
        raise locate(exc, file=name) from None


# -- OLR schema checkpoint --------------------------------------------------------------------------


def _intx(row: JsonFields, key: str) -> int:
    """An OLR 128-bit flag word, written ``[low 64 bits, high 64 bits]`` (a plain integer is accepted)."""
    value: object = row.data.get(key)
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    if isinstance(value, list) and len(value) == 2:
        low, high = value
        if all(isinstance(v, int) and not isinstance(v, bool) and v >= 0 for v in (low, high)):
            return int(low) | (int(high) << 64)
    raise row.problem(key, "expected a flag word [low, high] of two non-negative integers")


def _olr_column(row: JsonFields, db_charset: str, national_charset: str) -> ColumnDef | None:
    """One ``sys-col`` row; ``None`` for a column without storage (``seg-col`` 0: virtual)."""
    if row.get_int("seg-col") == 0:
        return None

    def value(key: str) -> int | None:
        number = row.get_int(key)
        return None if number == _OLR_NULL else number

    return column_from_col_row(
        {
            "COL#": row.get_int("col"), "SEGCOL#": row.get_int("seg-col"), "NAME": row.get_str("name"),
            "TYPE#": row.get_int("type"), "LENGTH": row.get_int("length"), "PRECISION#": value("precision"),
            "SCALE": value("scale"), "NULL$": row.get_int("null"), "PROPERTY": _intx(row, "property"),
            "CHARSETID": row.get_int("charset-id"), "CHARSETFORM": row.get_int("charset-form"),
        },
        db_charset,
        national_charset,
    )  # fmt: skip


def column_from_col_row(row: Mapping[str, Any], db_charset: str, national_charset: str) -> ColumnDef | None:
    """One ``SYS.COL$`` row by its column names (``SEGCOL#``, ``NAME``, ``TYPE#``, ``LENGTH``,
    ``PRECISION#``, ``SCALE``, ``NULL$``, ``PROPERTY``, ``CHARSETID``, ``CHARSETFORM``, ``COL#``;
    NULL is ``None``), as the document's ``sys`` member and the core's ``columns_from_sys`` hold
    them; ``None`` for a column without storage (``SEGCOL#`` 0: virtual). ``NULL$`` 0 is nullable,
    ``PROPERTY`` hidden or unused makes a hidden column, a character column's ``CHARSETFORM`` 1 / 2
    is the database / national character set: the rule of the core's ``SysRows::columns_at``
    (crates/redo-core/src/trail/sys_columns.rs), which the core compares the versions with."""
    segcol_no = int(row.get("SEGCOL#") or 0)
    if segcol_no == 0:
        return None
    type_code = int(row["TYPE#"])
    form = int(row.get("CHARSETFORM") or 0)
    charset_id = int(row.get("CHARSETID") or 0)
    precision, scale = row.get("PRECISION#"), row.get("SCALE")
    charset: str | None = None
    if type_code in _CHARACTER_TYPES:
        if form == 1:
            charset = db_charset
        elif form == 2:
            charset = national_charset
        elif charset_id:
            charset = charset_names().get(charset_id, f"CHARSET#{charset_id}")
    return ColumnDef(
        col_no=int(row.get("COL#") or 0),
        segcol_no=segcol_no,
        name=str(row["NAME"]),
        type_code=type_code,
        type_name=type_name_for_code(type_code, national=form == 2, float_=scale == _SCALE_FLOAT),
        length=int(row.get("LENGTH") or 0),
        precision=None if precision is None else int(precision),
        scale=None if scale is None or scale == _SCALE_FLOAT else int(scale),
        charset=charset,
        nullable=int(row.get("NULL$") or 0) == 0,
        hidden=bool(int(row.get("PROPERTY") or 0) & (_COL_HIDDEN | _COL_UNUSED)),
    )


def _group(rows: list[JsonFields], key: str) -> dict[int, list[JsonFields]]:
    groups: dict[int, list[JsonFields]] = {}
    for row in rows:
        groups.setdefault(row.get_int(key), []).append(row)
    return groups


def _olr_partitions(
    obj: int,
    tabparts: dict[int, list[JsonFields]],
    compparts: dict[int, list[JsonFields]],
    subparts: dict[int, list[JsonFields]],
) -> tuple[PartitionDef, ...]:
    found: list[PartitionDef] = []
    for row in tabparts.get(obj, []):
        found.append(PartitionDef(obj=row.get_int("obj"), dataobj=row.opt_int("data-obj") or None))
    for row in compparts.get(obj, []):
        comp_obj = row.get_int("obj")
        found.append(PartitionDef(obj=comp_obj, dataobj=row.opt_int("data-obj") or None))
        for sub in subparts.get(comp_obj, []):
            found.append(PartitionDef(obj=sub.get_int("obj"), dataobj=sub.opt_int("data-obj") or None))
    return tuple(sorted(found, key=lambda p: p.obj))


def _sys_row(row: JsonFields, scn: int, columns: dict[str, int | str | None]) -> dict[str, int | str | None]:
    """A ``sys`` row (docs/dictionary.md, "The SYS rows"): OLR's ``row-id``, valid from ``scn`` on."""
    return {"rowid": row.get_str("row-id"), "valid_from_scn": scn, "valid_to_scn": None, **columns}


def _data_obj(row: JsonFields) -> int | None:
    """OLR writes a NULL ``DATAOBJ#`` (no segment: a partitioned table, a composite partition) as 0."""
    return row.opt_int("data-obj") or None


def _sys_obj(row: JsonFields) -> dict[str, int | str | None]:
    return {
        "OBJ#": row.get_int("obj"),
        "DATAOBJ#": _data_obj(row),
        "OWNER#": row.get_int("owner"),
        "NAME": row.get_str("name"),
        "SUBNAME": None,  # not kept by OLR
        "TYPE#": row.get_int("type"),
        "FLAGS": _intx(row, "flags") & _LOW_64,
    }


def _sys_part(row: JsonFields) -> dict[str, int | str | None]:
    """A TABPART$ or TABCOMPART$ row (PART# is not kept by OLR)."""
    return {"OBJ#": row.get_int("obj"), "DATAOBJ#": _data_obj(row), "BO#": row.get_int("bo"), "PART#": None}


def _sys_subpart(row: JsonFields) -> dict[str, int | str | None]:
    """A TABSUBPART$ row (SUBPART# is not kept by OLR)."""
    return {
        "OBJ#": row.get_int("obj"),
        "DATAOBJ#": _data_obj(row),
        "POBJ#": row.get_int("p-obj"),
        "SUBPART#": None,
    }


def _olr_null(row: JsonFields, key: str) -> int | None:
    """OLR writes a NULL ``PRECISION#`` / ``SCALE`` of ``COL$`` as -1 (FLOAT's real ``SCALE`` -127 stays)."""
    value = row.get_int(key)
    return None if value == _OLR_NULL else value


def _sys_col(row: JsonFields) -> dict[str, int | str | None]:
    """A ``COL$`` row (``sys-col``): the columns docs/dictionary.md names, ``PROPERTY`` whole."""
    return {
        "OBJ#": row.get_int("obj"),
        "COL#": row.get_int("col"),
        "SEGCOL#": row.get_int("seg-col"),
        "INTCOL#": row.get_int("int-col"),
        "NAME": row.get_str("name"),
        "TYPE#": row.get_int("type"),
        "LENGTH": row.get_int("length"),
        "PRECISION#": _olr_null(row, "precision"),
        "SCALE": _olr_null(row, "scale"),
        "NULL$": row.get_int("null"),
        "PROPERTY": _intx(row, "property"),
        "CHARSETID": row.get_int("charset-id"),
        "CHARSETFORM": row.get_int("charset-form"),
    }


def _sys_cdef(row: JsonFields) -> dict[str, int | str | None]:
    """A ``CDEF$`` row (``sys-cdef``): OLR keeps ``OBJ#``, ``CON#`` and ``TYPE#``."""
    return {"OBJ#": row.get_int("obj"), "CON#": row.get_int("con"), "TYPE#": row.get_int("type")}


def _sys_ccol(row: JsonFields) -> dict[str, int | str | None]:
    """A ``CCOL$`` row (``sys-ccol``): ``OBJ#``, ``CON#``, ``INTCOL#`` (OLR's ``spare1`` is not kept)."""
    return {"OBJ#": row.get_int("obj"), "CON#": row.get_int("con"), "INTCOL#": row.get_int("int-col")}


def _olr_sys(root: JsonFields, scn: int) -> SysRows | None:
    """The ``sys`` member from the checkpoint's copies of OBJ$, TABPART$, TABCOMPART$, TABSUBPART$,
    USER$, COL$, CDEF$ and CCOL$: the ``USER$`` rows of the users OLR tracks (``users``), the ``OBJ$``
    rows of their tables, partitions and subpartitions, the ``TABPART$`` / ``TABCOMPART$`` rows of
    those tables, the ``TABSUBPART$`` rows of those composite partitions, the ``COL$`` rows of those
    tables (by ``OBJ#``, then ``INTCOL#``) and the ``CDEF$`` / ``CCOL$`` rows whose ``OBJ#`` is one of
    those ``OBJ$`` rows (by ``OBJ#``, ``CON#``, then ``INTCOL#``), each valid from ``scn``, in object
    order. ``None`` when the checkpoint has no ``users`` list."""
    if root.data.get("users") is None:
        return None
    names = set(root.get_str_list("users"))
    users = [row for row in root.objects("sys-user") if row.get_str("name") in names]
    owner_nos = {row.get_int("user") for row in users}
    kinds = (_OBJ_TYPE_TABLE, _OBJ_TYPE_PARTITION, _OBJ_TYPE_SUBPARTITION)
    objs = [
        r for r in root.objects("sys-obj") if r.get_int("owner") in owner_nos and r.get_int("type") in kinds
    ]
    tables = {row.get_int("obj") for row in objs if row.get_int("type") == _OBJ_TYPE_TABLE}
    tabparts = [r for r in root.objects("sys-tabpart", required=False) if r.get_int("bo") in tables]
    compparts = [r for r in root.objects("sys-tabcompart", required=False) if r.get_int("bo") in tables]
    composite = {row.get_int("obj") for row in compparts}
    subparts = [r for r in root.objects("sys-tabsubpart", required=False) if r.get_int("p-obj") in composite]

    cols = [r for r in root.objects("sys-col") if r.get_int("obj") in tables]
    kept = {row.get_int("obj") for row in objs}
    cdefs = [r for r in root.objects("sys-cdef") if r.get_int("obj") in kept]
    ccols = [r for r in root.objects("sys-ccol") if r.get_int("obj") in kept]

    def by_obj(rows: list[JsonFields]) -> list[JsonFields]:
        return sorted(rows, key=lambda r: r.get_int("obj"))

    return SysRows.from_document(
        {
            "OBJ$": [_sys_row(r, scn, _sys_obj(r)) for r in by_obj(objs)],
            "TABPART$": [_sys_row(r, scn, _sys_part(r)) for r in by_obj(tabparts)],
            "TABCOMPART$": [_sys_row(r, scn, _sys_part(r)) for r in by_obj(compparts)],
            "TABSUBPART$": [_sys_row(r, scn, _sys_subpart(r)) for r in by_obj(subparts)],
            "USER$": [
                _sys_row(r, scn, {"USER#": r.get_int("user"), "NAME": r.get_str("name")})
                for r in sorted(users, key=lambda r: r.get_int("user"))
            ],
            "COL$": [
                _sys_row(r, scn, _sys_col(r))
                for r in sorted(cols, key=lambda r: (r.get_int("obj"), r.get_int("int-col")))
            ],
            "CDEF$": [
                _sys_row(r, scn, _sys_cdef(r))
                for r in sorted(cdefs, key=lambda r: (r.get_int("obj"), r.get_int("con")))
            ],
            "CCOL$": [
                _sys_row(r, scn, _sys_ccol(r))
                for r in sorted(
                    ccols, key=lambda r: (r.get_int("obj"), r.get_int("con"), r.get_int("int-col"))
                )
            ],
        }
    )


def _olr_history(root: JsonFields) -> DictionaryHistory:
    if "sys-obj" not in root.data and "schema-ref-scn" in root.data:
        raise root.problem(
            "schema-ref-scn",
            f"this checkpoint holds no schema; load the checkpoint of SCN {root.data['schema-ref-scn']} instead",
        )
    scn = root.get_int("scn")
    db_charset = root.get_str("nls-character-set")
    national_charset = root.get_str("nls-nchar-character-set")

    users = {row.get_int("user"): row.get_str("name") for row in root.objects("sys-user")}
    tabs = {row.get_int("obj"): row for row in root.objects("sys-tab")}
    cols = _group(list(root.objects("sys-col")), "obj")
    cdefs = _group(list(root.objects("sys-cdef")), "obj")
    ccols = _group(list(root.objects("sys-ccol")), "con")
    tabparts = _group(list(root.objects("sys-tabpart", required=False)), "bo")
    compparts = _group(list(root.objects("sys-tabcompart", required=False)), "bo")
    subparts = _group(list(root.objects("sys-tabsubpart", required=False)), "p-obj")

    versions: list[TableVersion] = []
    for row in root.objects("sys-obj"):
        obj = row.get_int("obj")
        tab = tabs.get(obj)
        if row.get_int("type") != _OBJ_TYPE_TABLE or tab is None or _intx(row, "flags") & _OBJ_FLAG_DROPPED:
            continue
        owner_no = row.get_int("owner")
        if owner_no not in users:
            raise row.problem("owner", f"user# {owner_no} of object {obj} is not in sys-user")
        col_rows = cols.get(obj, [])
        columns = [
            c for c in (_olr_column(r, db_charset, national_charset) for r in col_rows) if c is not None
        ]
        columns.sort(key=lambda c: c.segcol_no)
        names_by_intcol = {r.get_int("int-col"): r.get_str("name") for r in col_rows}
        constraints: list[KeyConstraint] = []
        for cdef in cdefs.get(obj, []):
            con_type = cdef.get_int("type")
            if con_type not in (_CDEF_PRIMARY, _CDEF_UNIQUE):
                continue
            con = cdef.get_int("con")
            intcols = sorted(r.get_int("int-col") for r in ccols.get(con, []))
            constraints.append(
                KeyConstraint(
                    name=f"CON#{con:010d}",
                    kind=KeyKind.PRIMARY if con_type == _CDEF_PRIMARY else KeyKind.UNIQUE,
                    columns=tuple(names_by_intcol.get(i, f"INTCOL#{i}") for i in intcols),
                )
            )
        key_kind, key_columns = choose_key(columns, constraints)
        try:
            versions.append(
                TableVersion(
                    obj=obj,
                    dataobj=tab.opt_int("data-obj") or None,
                    owner=users[owner_no],
                    name=row.get_str("name"),
                    columns=tuple(columns),
                    key_columns=key_columns,
                    key_kind=key_kind,
                    valid_from_scn=scn,
                    partitions=_olr_partitions(obj, tabparts, compparts, subparts),
                )
            )
        except DictionaryError as exc:
            exc.details.setdefault("json_path", row.path)
            raise
    # No max_object_id: OLR's OBJ$ copy holds only the objects of the users it tracks (and the SYS
    # tables it reads), not OBJ$'s "_NEXT_OBJECT" row, so its largest obj is a lower bound of the
    # database's. Objects of other schemas created after it would then look "created after the
    # export" and fail every batch; None keeps them out of scope, with a warning in the report.
    return DictionaryHistory(
        versions, db_charset=db_charset, national_charset=national_charset, sys=_olr_sys(root, scn)
    )
