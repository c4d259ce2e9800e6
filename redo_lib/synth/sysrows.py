"""Oracle's own dictionary tables in the generator: SYS.OBJ$, TABPART$, TABCOMPART$, TABSUBPART$, USER$,
COL$, CDEF$ and CCOL$.

A DDL changes rows of these tables inside its transaction, and an interval partition is created by a
recursive transaction that inserts its OBJ$ and TABPART$ rows (docs/dictionary.md, "The SYS rows").
The generator keeps a simulated copy of each (a ``TableState`` in the SYSTEM tablespace, relative
file 1) and writes its row changes as any row change (5.1 opc 11.1 + 11.2 / 11.5 / 11.3, undo objn
and objd the SYS table's), never into the expected trail (SYS is out of the capture scope). The
COL$ rows (one per column of a table) and the column DDL's changes to them are in ``colrows.py``; the
CDEF$ / CCOL$ rows (a table's constraints and their columns) in ``cdefrows.py``.

Layouts (object ids, columns by SEGCOL#, types, NOT NULL) are those of a real 23ai database: the
``sys-col`` rows of the OpenLogReplicator checkpoints in rophy-olr-tests-23ai (OBJ$ 18, TABPART$
947, TABCOMPART$ 969, TABSUBPART$ 959, USER$ 22 stored in cluster C_USER#, data object 10, COL$ 21
stored in cluster C_OBJ#, data object 2, CDEF$ 31 and CCOL$ 32 stored in cluster C_COBJ#, data
object 29). Of a row the generator fills the NOT NULL columns and
those docs/dictionary.md names; the others are NULL. In the simulated tables, LONG (HIBOUNDVAL,
DEFAULT$) is held as VARCHAR2 (the row bytes are the text either way) and BLOB (BHIBOUNDVAL, always
NULL here) as RAW.

The cluster tables, USER$, COL$, CDEF$ and CCOL$, are simulated as heap tables: Oracle writes their
rows as cluster member rows (row flag C, the table's number in the block, the cluster key, ``USER#``
/ ``OBJ#``, stored once per block in a key row); the generator writes ordinary
heap rows of a table with the real object and data object ids (so the ROWIDs start as the real
ones, ``AAAAAK`` / ``AAAAAC`` / ``AAAAAd``), not yet cluster rows. The simulated table's key is its
first column, for COL$, CDEF$ and CCOL$ ``OBJ#`` (not unique: the SYS row changes check no key).
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from redo_lib.dictionary import ColumnDef, KeyKind, TableVersion
from redo_lib.synth.columns import parse_type
from redo_lib.synth.database import Piece, Row, TableState
from redo_lib.synth.pairs import delete_pairs, insert_pairs, update_pairs
from redo_lib.synth.scenario import ColumnSpec, TableSpec

if TYPE_CHECKING:
    from redo_lib.synth.engine import Engine, OpenTxn

__all__ = ["DOC_COLUMNS", "LAYOUTS", "SysTables", "dictionary_versions", "recursive", "user_values"]

# name -> (obj, dataobj, "COLUMN:TYPE[!]" by SEGCOL#): N NUMBER, V<n> VARCHAR2(n), D DATE,
# R<n> RAW(n), T TIMESTAMP(6), L LONG, B BLOB; "!" NOT NULL (23ai sys-col rows)
LAYOUTS: dict[str, tuple[int, int, str]] = {
    "OBJ$": (18, 18, (
        "OBJ#:N! DATAOBJ#:N OWNER#:N! NAME:V128! NAMESPACE:N! SUBNAME:V128 TYPE#:N! CTIME:D! MTIME:D! "
        "STIME:D! STATUS:N! REMOTEOWNER:V128 LINKNAME:V128 FLAGS:N OID$:R16 SPARE1:N SPARE2:N SPARE3:N "
        "SPARE4:V1000 SPARE5:V1000 SPARE6:D SIGNATURE:R16 SPARE7:N SPARE8:N SPARE9:N DFLCOLLID:N "
        "CREAPPID:N CREVERID:N CREPATCHID:N MODAPPID:N MODVERID:N MODPATCHID:N SPARE10:N SPARE11:N "
        "SPARE12:V1000 SPARE13:V1000 SPARE14:T"
    )),
    "TABPART$": (947, 947, (
        "OBJ#:N! DATAOBJ#:N BO#:N! PART#:N! HIBOUNDLEN:N! CHUNKID:N TS#:N FILE#:N BLOCK#:N PCTFREE$:N! "
        "PCTUSED$:N! INITRANS:N! MAXTRANS:N! FLAGS:N! ANALYZETIME:D SAMPLESIZE:N ROWCNT:N BLKCNT:N "
        "EMPCNT:N AVGSPC:N CHNCNT:N AVGRLN:N SPARE1:N SPARE2:N SPARE3:N BHIBOUNDVAL:B HIBOUNDVAL:L"
    )),
    "TABCOMPART$": (969, 969, (
        "OBJ#:N! DATAOBJ#:N BO#:N! PART#:N! HIBOUNDLEN:N! CHUNKID:N SUBPARTCNT:N! FLAGS:N! DEFTS#:N "
        "DEFPCTFREE:N! DEFPCTUSED:N! DEFINITRANS:N! DEFMAXTRANS:N! DEFINIEXTS:N DEFEXTSIZE:N DEFMINEXTS:N "
        "DEFMAXEXTS:N DEFEXTPCT:N DEFLISTS:N DEFGROUPS:N DEFLOGGING:N DEFBUFPOOL:N ANALYZETIME:D "
        "SAMPLESIZE:N ROWCNT:N BLKCNT:N EMPCNT:N AVGSPC:N CHNCNT:N AVGRLN:N SPARE1:N SPARE2:N SPARE3:N "
        "BHIBOUNDVAL:B DEFMAXSIZE:N HIBOUNDVAL:L"
    )),
    "TABSUBPART$": (959, 959, (
        "OBJ#:N! DATAOBJ#:N POBJ#:N! SUBPART#:N! FLAGS:N! TS#:N! FILE#:N! BLOCK#:N! PCTFREE$:N! "
        "PCTUSED$:N! INITRANS:N! MAXTRANS:N! ANALYZETIME:D SAMPLESIZE:N ROWCNT:N BLKCNT:N EMPCNT:N "
        "AVGSPC:N CHNCNT:N AVGRLN:N SPARE1:N SPARE2:N SPARE3:N HIBOUNDLEN:N! BHIBOUNDVAL:B HIBOUNDVAL:L"
    )),
    "USER$": (22, 10, (
        "USER#:N! NAME:V128! TYPE#:N! PASSWORD:V4000 DATATS#:N! TEMPTS#:N! CTIME:D! PTIME:D EXPTIME:D "
        "LTIME:D RESOURCE$:N! AUDIT$:V38 DEFROLE:N! DEFGRP#:N DEFGRP_SEQ#:N ASTATUS:N! LCOUNT:N! "
        "DEFSCHCLASS:V128 EXT_USERNAME:V4000 SPARE1:N SPARE2:N SPARE3:N SPARE4:V1000 SPARE5:V1000 "
        "SPARE6:D SPARE7:V4000 SPARE8:V4000 SPARE9:N SPARE10:N SPARE11:T SPARE12:N SPARE13:N SPARE14:N "
        "SPARE15:D SPARE16:V4000"
    )),
    "COL$": (21, 2, (
        "OBJ#:N! COL#:N! SEGCOL#:N! SEGCOLLENGTH:N! OFFSET:N! NAME:V128! TYPE#:N! LENGTH:N! "
        "FIXEDSTORAGE:N! PRECISION#:N SCALE:N NULL$:N! DEFLENGTH:N ACDRRESCOL#:N INTCOL#:N! PROPERTY:N! "
        "CHARSETID:N CHARSETFORM:N EVALEDITION#:N UNUSABLEBEFORE#:N UNUSABLEBEGINNING#:N SPARE1:N "
        "SPARE2:N SPARE3:N SPARE4:V1000 SPARE5:V1000 SPARE6:D SPARE7:N SPARE8:N COLLID:N COLLINTCOL#:N "
        "SPARE9:N SPARE10:N SPARE11:V1000 SPARE12:V1000 SPARE13:T DEFAULT$:L"
    )),
    "CDEF$": (31, 29, (
        "OBJ#:N! CON#:N! COLS:N TYPE#:N! ROBJ#:N RCON#:N RRULES:V3 MATCH#:N REFACT:N ENABLED:N "
        "CONDLENGTH:N SPARE6:D INTCOLS:N MTIME:D DEFER:N SPARE1:N SPARE2:N SPARE3:N SPARE4:V1000 "
        "SPARE5:V1000 CONDITION:L"
    )),
    "CCOL$": (32, 29, (
        "OBJ#:N! CON#:N! COL#:N! POS#:N INTCOL#:N! SPARE1:N SPARE2:N SPARE3:N SPARE4:V1000 SPARE5:V1000 "
        "SPARE6:D"
    )),
}  # fmt: skip
#: the columns of each table in the document's ``sys`` member (docs/dictionary.md)
DOC_COLUMNS = {
    "OBJ$": ("OBJ#", "DATAOBJ#", "OWNER#", "NAME", "SUBNAME", "TYPE#", "FLAGS"),
    "TABPART$": ("OBJ#", "DATAOBJ#", "BO#", "PART#"),
    "TABCOMPART$": ("OBJ#", "DATAOBJ#", "BO#", "PART#"),
    "TABSUBPART$": ("OBJ#", "DATAOBJ#", "POBJ#", "SUBPART#"),
    "USER$": ("USER#", "NAME"),
    "COL$": ("OBJ#", "COL#", "SEGCOL#", "INTCOL#", "NAME", "TYPE#", "LENGTH", "PRECISION#", "SCALE", "NULL$",
             "PROPERTY", "CHARSETID", "CHARSETFORM"),
    "CDEF$": ("OBJ#", "CON#", "TYPE#"),
    "CCOL$": ("OBJ#", "CON#", "INTCOL#"),
}  # fmt: skip
_TYPES = {"N": (2, "NUMBER"), "V": (1, "VARCHAR2"), "D": (12, "DATE"), "R": (23, "RAW"),
          "T": (180, "TIMESTAMP(6)"), "L": (8, "LONG"), "B": (113, "BLOB")}  # fmt: skip
_LENGTHS = {"N": 22, "D": 7, "T": 11, "L": 0, "B": 4000}
# the simulated table's column type per letter (LONG held as VARCHAR2, BLOB as RAW: see above)
_SIM_TYPES = {"N": "NUMBER", "D": "DATE", "T": "TIMESTAMP", "L": "VARCHAR2(4000)", "B": "RAW(2000)"}
SYSTEM_FILE = 1  # SYSTEM tablespace, relative file 1
_SYS_BASE_BLOCK = 0x200


def _columns(name: str) -> list[tuple[str, str, int, bool]]:
    """(name, type letter, length, nullable) by SEGCOL#."""
    out = []
    for item in LAYOUTS[name][2].split():
        column, kind = item.split(":")
        nullable = not kind.endswith("!")
        kind = kind.rstrip("!")
        letter, size = kind[0], kind[1:]
        out.append((column, letter, int(size) if size else _LENGTHS[letter], nullable))
    return out


def _sim_spec(name: str) -> TableSpec:
    columns = tuple(
        ColumnSpec(
            name=c,
            type=parse_type(_SIM_TYPES.get(letter) or f"{_TYPES[letter][1]}({length})"),
            nullable=nullable,
        )
        for c, letter, length, nullable in _columns(name)
    )
    return TableSpec(owner="SYS", name=name, columns=columns, primary_key=(columns[0].name,))


def dictionary_versions(valid_from: int, charset: str) -> list[TableVersion]:
    """The SYS tables as ``tables`` entries of the document (real 23ai ids and columns)."""
    versions = []
    for name, (obj, dataobj, _) in LAYOUTS.items():
        columns = tuple(
            ColumnDef(
                col_no=i + 1, segcol_no=i + 1, name=c, type_code=_TYPES[letter][0],
                type_name=_TYPES[letter][1].split("(")[0], length=length, precision=None, scale=None,
                charset=charset if letter in "VL" else None, nullable=nullable,
                char_length=length if letter == "V" else None,
            )
            for i, (c, letter, length, nullable) in enumerate(_columns(name))
        )  # fmt: skip
        key = tuple(c.name for c in columns if c.type_name not in ("LONG", "BLOB"))
        versions.append(
            TableVersion(
                obj=obj, dataobj=dataobj, owner="SYS", name=name, columns=columns, key_columns=key,
                key_kind=KeyKind.ALL, valid_from_scn=valid_from,
            )
        )  # fmt: skip
    return versions


class SysTables:
    """The simulated SYS tables and the owners' user numbers."""

    def __init__(self, block_size: int) -> None:
        self.tables: dict[str, TableState] = {}
        for i, (name, (obj, dataobj, _)) in enumerate(LAYOUTS.items()):
            self.tables[name] = TableState(
                _sim_spec(name), obj=obj, dataobj=dataobj, rfile=SYSTEM_FILE,
                base_block=_SYS_BASE_BLOCK + 0x8000 * i, block_size=block_size,
            )  # fmt: skip
        self.users: dict[str, int] = {}
        self.snapshot: dict[str, list[dict[str, Any]]] = {}

    def __getitem__(self, name: str) -> TableState:
        return self.tables[name]

    def seed(self, name: str, values: Mapping[str, Any]) -> Row:
        """A row that exists before the run (the export's copy holds it): placed, no redo."""
        table = self.tables[name]
        row = table.build_row(table.spec.row(values, f"SYS.{name}"))
        _place(table, row)
        return row

    def find(self, name: str, **where: Any) -> Row | None:
        """The current row whose columns equal ``where`` (numbers compared as numbers)."""
        table = self.tables[name]
        index = {table.spec.index_of(c): v for c, v in where.items()}
        for row in table.scan():
            if all(row.values[i] == v for i, v in index.items()):
                return row
        return None

    def user(self, owner: str) -> int:
        """USER# of an owner (130, 131, ... in order of first use; the 23ai OLR_TEST user is 138)."""
        return self.users.setdefault(owner, 130 + len(self.users))

    def rows_document(self, scn: int) -> dict[str, list[dict[str, Any]]]:
        """The ``sys`` member: each table's rows with ROWID, SCN range and the named columns."""
        out: dict[str, list[dict[str, Any]]] = {}
        for name, table in self.tables.items():
            rows = []
            for row in table.scan():
                item: dict[str, Any] = {
                    "rowid": table.rowid(row),
                    "valid_from_scn": scn,
                    "valid_to_scn": None,
                }
                for column in DOC_COLUMNS[name]:
                    value = row.values[table.spec.index_of(column)]
                    item[column] = (
                        int(value)
                        if value is not None and column != "NAME" and column != "SUBNAME"
                        else value
                    )
                rows.append(item)
            out[name] = rows
        return out

    def take_snapshot(self, scn: int) -> None:
        """The export's copy of the rows (taken before the first step)."""
        self.snapshot = self.rows_document(scn)

    def document_text(self) -> str:
        """The ``sys`` member as JSON text, one row per line."""
        parts = []
        for name, rows in self.snapshot.items():
            body = ",\n".join(f"   {json.dumps(r, ensure_ascii=False)}" for r in rows)
            parts.append(f"  {json.dumps(name)}: [" + (f"\n{body}\n  ]" if rows else "]"))
        return ' "sys": {\n' + ",\n".join(parts) + "\n }"


def user_values(e: Engine, owner: str) -> dict[str, Any]:
    """The USER$ row of a scenario owner (TYPE# 1 user; USERS 4 / TEMP 3 tablespaces)."""
    return {
        "USER#": e.sys.user(owner), "NAME": owner, "TYPE#": 1, "DATATS#": 4, "TEMPTS#": 3,
        "CTIME": e.clock.time, "RESOURCE$": 0, "DEFROLE": 1, "ASTATUS": 0, "LCOUNT": 0,
    }  # fmt: skip


def _place(table: TableState, row: Row) -> None:
    pieces = []
    for first, count, size in table.piece_layout(row):
        block, slot, _ = table.allocate(size)
        pieces.append(Piece(block, slot, first, count, size))
    row.pieces = pieces
    table.add(row, 0)


# -- row changes in a transaction (committed by the caller right after) ------------------------------


def insert(e: Engine, t: OpenTxn, name: str, values: Mapping[str, Any]) -> Row:
    """INSERT INTO SYS.<name>: 5.1 + 11.2 on the SYS table's segment."""
    table = e.sys[name]
    row = table.build_row(table.spec.row(values, f"SYS.{name}"))
    _place(table, row)
    _, ctx = e.ensure_xid(t)
    for undo, redo in insert_pairs(ctx, table, row):
        e.write_pair(t, table, undo, redo)
    return row


def update(e: Engine, t: OpenTxn, name: str, row: Row, changes: Mapping[str, Any]) -> None:
    """UPDATE SYS.<name> SET ... of one row: 5.1 + 11.5 (the changed columns)."""
    table = e.sys[name]
    new = {table.spec.index_of(c): v for c, v in changes.items()}
    trial = list(row.values)
    for i, v in new.items():
        trial[i] = v
    checked = table.spec.row({c.name: v for c, v in zip(table.spec.columns, trial, strict=True)}, name)
    new = {i: checked[i] for i in new}
    old = list(row.data)
    table.set_values(row, new)
    _, ctx = e.ensure_xid(t)
    for undo, redo in update_pairs(ctx, table, row, old, sorted(new)):
        e.write_pair(t, table, undo, redo)


def delete(e: Engine, t: OpenTxn, name: str, row: Row) -> None:
    """DELETE FROM SYS.<name> of one row: 5.1 + 11.3."""
    table = e.sys[name]
    _, ctx = e.ensure_xid(t)
    for undo, redo in delete_pairs(ctx, table, row):
        e.write_pair(t, table, undo, redo)
    table.delete(row)
    table.purge(row)


@contextmanager
def recursive(e: Engine, session: OpenTxn) -> Iterator[OpenTxn]:
    """A recursive transaction of the session (interval partition creation): its own XID on the
    session's thread, committed (5.4, + 24.4) when the block ends; nothing reaches the trail."""
    from redo_lib.synth.engine import OpenTxn

    t = OpenTxn(ident=e.new_ident(), session=session.session, session_no=session.session_no, log=session.log)
    yield t
    assert t.txn is not None and t.last_uba is not None
    e.clock.bump()
    vectors = [e.vectors.commit(t.txn, t.last_uba, e.clock.scn, e.clock.time, rolled_back=False)]
    if e.settings.noise.markers:
        vectors.append(e.vectors.marker_24_4(t.txn.xid, e.clock.scn))
    t.log.write(vectors)
    e.free_txn(t.txn)
