"""Tables whose storage the decoder cannot read (``TableSpec.storage``; docs/generator.md): the
redo Oracle writes for their changes, and what the pipeline is expected to report instead of trail
records (``expected/unsupported.json``, redo_lib/unsupported.py).

* ``encrypted`` (a TDE tablespace): the row's redo vector keeps its header (layer, code, data
  object id) with TYP | 0x80 and an opaque body of ciphertext (redo-format §4.1); the undo stays as
  the generator writes it. Expected: one ``encrypted`` change vector per row vector.
* ``oltp_compressed`` (advanced row compression): an inserted single-piece row is written as one
  field holding the whole compressed row piece, its length the KDO size, the KDO still counting
  every column (§5.1, §5.6 "compressed row"). Expected: one ``oltp_compressed`` row change per
  committed insert. Updates and deletes are written uncompressed (Oracle decompresses a row it
  updates; the generator does so for deletes too) and reach the trail.
* ``iot`` (index-organized): a change is a 5.1 of opc 10.22 and an index-leaf vector (10.2 insert,
  10.4 delete, 10.35 for an update, as the real oracdc records pair 10.30 / 10.35 with 10.22) on the
  table's data object (its index segment). Expected: one ``iot`` change vector per change.

Rollback compensations of such changes are written as for any table (not encrypted, not index
operations): nothing reads them as rows.
"""

from __future__ import annotations

import dataclasses
import hashlib
from typing import TYPE_CHECKING

from redo_lib.format.model import ChangeVector, Opaque, RowOperation, UndoRecord

if TYPE_CHECKING:
    from redo_lib.synth.database import Row, TableState
    from redo_lib.synth.engine import Engine, OpenTxn

ENCRYPTED = "encrypted"
OLTP_COMPRESSED = "oltp_compressed"
IOT = "iot"

_IRP, _DRP, _URP = 2, 3, 5
# KDO row flags: first and last piece
_FB_F, _FB_L = 0x08, 0x04
# index-leaf operation per row operation (redo-format §5.7; 10.35 as in the real records)
_LEAF_CODE = {_IRP: 2, _DRP: 4}
_LEAF_UPDATE = 35


def unreadable(table: TableState, op: str, row: Row) -> str | None:
    """The kind of a row change the decoder cannot read (``None``: an ordinary change): what the
    redo is written as and whether its expected record is left out of the trail."""
    storage = table.spec.storage
    if storage == OLTP_COMPRESSED:
        return storage if op == "INSERT" and len(row.pieces) == 1 else None
    return storage


def ciphertext(seed: bytes, size: int) -> bytes:
    """``size`` bytes that stand for an encrypted body (no structure the decoder could read)."""
    out = b""
    block = hashlib.sha256(seed).digest()
    while len(out) < size:
        out += block
        block = hashlib.sha256(block).digest()
    return out[:size]


def compressed_piece(redo: RowOperation) -> RowOperation:
    """An insert's row piece as one compressed row image (§5.1): a token header, then the column
    values length-prefixed; the KDO's size is that field's length, its cc still every column."""
    values = b"".join(b"\xff" if c is None else bytes([len(c)]) + c for c in redo.columns)
    image = bytes([0x2C, redo.kdo.cc or 0, 0x01, 0x00]) + values
    return dataclasses.replace(
        redo, columns=(image,), kdo=dataclasses.replace(redo.kdo, size_delt=len(image))
    )


def stored_pair(
    engine: Engine, t: OpenTxn, table: TableState, undo: UndoRecord, redo: RowOperation
) -> tuple[UndoRecord, ChangeVector] | None:
    """The undo record and redo vector of a row change of a table with ``storage`` as Oracle writes
    them, counted in the engine's expected ``unsupported`` (``None``: write it as usual)."""
    storage = table.spec.storage
    op = redo.kdo.op & 0x1F
    scn = engine.clock.scn
    name = table.spec.full_name
    whole = (redo.kdo.fb or 0) & (_FB_F | _FB_L) == (_FB_F | _FB_L)
    if storage == OLTP_COMPRESSED and op == _IRP and whole:
        t.unsupported[(name, OLTP_COMPRESSED)] += 1  # counted at commit: the emitter's row changes
        return undo, engine.vectors.redo(table.rfile, table.dataobj, compressed_piece(redo), scn)
    if storage == ENCRYPTED:
        vector = engine.vectors.redo(table.rfile, table.dataobj, redo, scn)
        size = 32 + sum(len(c or b"") for c in redo.columns)
        body = ciphertext(f"{name}:{redo.kdo.bdba}:{redo.kdo.slot}:{scn}".encode(), (size + 15) // 16 * 16)
        engine.expected_unsupported[(name, ENCRYPTED)] += 1
        encrypted = dataclasses.replace(
            vector, change_type=vector.change_type | 0x80, body=Opaque(category="encrypted"), fields=(body,)
        )
        return undo, encrypted
    if storage == IOT:
        txn, ctx = engine.ensure_xid(t)
        assert redo.ktb is not None and redo.ktb.uba is not None
        key = b"".join(bytes([len(c or b"")]) + (c or b"") for c in redo.columns[:1])
        code = _LEAF_CODE.get(op, _LEAF_UPDATE)
        leaf_undo, leaf = engine.vectors.index_leaf(
            txn, redo.ktb.uba, table.dataobj, table.rfile, redo.kdo.bdba & 0x3FFFFF, key,
            (redo.kdo.bdba & 0x3FFFFF, redo.kdo.slot or 0), scn, code=code,
        )  # fmt: skip
        engine.expected_unsupported[(name, IOT)] += 1
        return leaf_undo, leaf
    return None
