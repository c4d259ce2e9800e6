"""Row changes -> (5.1 undo, 11.x redo) body pairs, one pair per row piece (redo-format §5.1, §5.6, §6).

Layouts chosen where the doc leaves room (each follows the decoding rules of §6.5 / §6.6):

* single-piece rows: INSERT = undo DRP + redo IRP, supplemental S1 20 bytes fb 0x1C, before 0,
  after 1; DELETE = undo IRP (full old piece) + redo DRP, fb 0x1C, before 1, after 0; UPDATE = undo
  URP (old values) + redo URP (new values), S1 28 bytes fb 0x0C with the row's bdba/slot, before =
  after = first updated column + 1 (the real 23.6 forms);
* chained rows (several pieces, whole columns per piece): one pair per piece, each in its own
  record; S1 always 28 bytes carrying the head piece's bdba/slot; fb F (0x08) on the first pair
  written, L (0x04) on the last, both on a single pair. INSERT writes the pieces last-first (the
  head piece last), DELETE and UPDATE head-first (UPDATE only the pieces holding a SET column).
  Piece fb: head ``H F`` (0x28), middle 0, last ``L`` (0x04); nrid = next piece;
* trailing NULL columns are not stored: the last piece's cc stops at its last non-NULL column
  (cc 0 for an all-NULL row), as Oracle writes rows;
* supplemental columns (S2-S4, old values, on the first pair) as the table's supplemental logging
  has Oracle write them (``TableState.supplemental``, redo-format §5.0.1; the real 19c records of
  oracdc show each form): ``primary`` the key (rule 12) on every UPDATE and DELETE (the generator's
  historic form; real deletes log none, their undo holds the row); ``all`` on an UPDATE every
  column the change does not carry (LOB columns never: Oracle does not log them), on a DELETE none
  (the undo IRP is the whole row); ``unique`` / ``foreign`` the columns of each unique key / foreign
  key the UPDATE changes a column of (a conditional log group), none on a DELETE; ``none`` (minimal
  logging) no column, the S1 header alone;
* array insert: per block, undo QMD (slots) + redo QMI (rows), no supplemental data (§6.6.3);
  array delete: per block, undo QMI (old rows) + redo QMD.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from redo_lib.format.model import Kdo, KdoOpCode, KtbRedo, QmiRow, RowOperation, Supplemental, UndoRecord
from redo_lib.scn import Uba, Xid
from redo_lib.synth.columns import LOB_TYPES
from redo_lib.synth.database import Piece, Row, TableState

__all__ = [
    "Pair",
    "array_delete_pairs",
    "array_insert_pairs",
    "delete_pairs",
    "insert_pairs",
    "logged_indexes",
    "update_pairs",
]

Pair = tuple[UndoRecord, RowOperation]
_FB_HEAD, _FB_FIRST, _FB_LAST = 0x20, 0x08, 0x04
_ITL = 1


class PairContext:
    """What every pair of one transaction shares: its XID, the UBA allocator, begin-of-transaction."""

    def __init__(self, xid: Xid, next_uba: Callable[[], Uba], user: int) -> None:
        self.xid = xid
        self._next_uba = next_uba
        self.user = user
        self.begin = False  # the next undo record is the transaction's first (ktubl, flag 0x08)

    def undo(self, t: TableState, kdo: Kdo, **kw: Any) -> tuple[UndoRecord, Uba]:
        uba = self._next_uba()
        first = self.begin
        self.begin = False
        record = UndoRecord(
            xid=self.xid,
            uba_seq=uba.seq,
            uba_rec=uba.rec,
            ktudb_flg=0x12 if first else 0x22,
            obj=t.obj,
            dataobj=t.dataobj,
            tsn=4,
            opc=(11, 1),
            slt=self.xid.slot,
            rci=0,
            flg=0x08 if first else 0,
            user=self.user if first else None,
            ktb=KtbRedo(op=0x03, flg=0x0D),
            kdo=kdo,
            **kw,
        )
        return record, uba

    def raw_undo(
        self, t: TableState, opc: tuple[int, int], raw_fields: tuple[bytes, ...]
    ) -> tuple[UndoRecord, Uba]:
        """An undo record of another opc (26.1 LOB undo: KTB, kdli common, kdli item, §5.1)."""
        uba = self._next_uba()
        first = self.begin
        self.begin = False
        record = UndoRecord(
            xid=self.xid, uba_seq=uba.seq, uba_rec=uba.rec, ktudb_flg=0x12 if first else 0x22,
            obj=t.obj, dataobj=t.dataobj, tsn=4, opc=opc, slt=self.xid.slot, rci=0,
            flg=0x08 if first else 0, user=self.user if first else None, raw_fields=raw_fields,
        )  # fmt: skip
        return record, uba

    def ktb(self, uba: Uba) -> KtbRedo:
        return KtbRedo(op=0x01, flg=0x0D, xid=self.xid, uba=uba)


def _bitmap(values: Sequence[bytes | None]) -> bytes:
    out = bytearray((len(values) + 7) // 8)
    for i, v in enumerate(values):
        if v is None:
            out[i >> 3] |= 1 << (i & 7)
    return bytes(out)


def _piece_columns(row: Row, index: int) -> tuple[bytes | None, ...]:
    """The stored columns of piece ``index`` (trailing NULLs of the last piece dropped)."""
    piece = row.pieces[index]
    cols = row.data[piece.first : piece.first + piece.count]
    if index == len(row.pieces) - 1:
        while cols and cols[-1] is None:
            cols = cols[:-1]
    return tuple(cols)


def _piece_size(cols: Sequence[bytes | None], chained: bool) -> int:
    """Row-piece size in block format: 3-byte header (+6 for the next-piece address), then per
    column 1 byte (NULL) or its length plus 1 (3 above 250 bytes); size/delt of IRP/ORP."""
    size = 9 if chained else 3
    for c in cols:
        size += 1 if c is None else len(c) + (1 if len(c) <= 250 else 3)
    return size


def _piece_fb(row: Row, index: int) -> int:
    fb = (_FB_HEAD | _FB_FIRST) if index == 0 else 0
    return fb | (_FB_LAST if index == len(row.pieces) - 1 else 0)


def _row_kdo(t: TableState, row: Row, index: int, op: int) -> tuple[Kdo, tuple[bytes | None, ...]]:
    """IRP-shaped KDO (insert, or undo of a delete) for one piece, with its columns."""
    piece = row.pieces[index]
    cols = _piece_columns(row, index)
    nxt = row.pieces[index + 1] if index + 1 < len(row.pieces) else None
    kdo = Kdo(
        op=op,
        bdba=t.dba(piece.block),
        hdba=t.hdba,
        maxfr=4858,
        itli=_ITL,
        slot=piece.slot,
        fb=_piece_fb(row, index),
        lb=_ITL,
        cc=len(cols),
        size_delt=_piece_size(cols, nxt is not None),
        nrid=None if nxt is None else (t.dba(nxt.block), nxt.slot),
        null_bitmap=_bitmap(cols),
    )
    return kdo, cols


def _simple_kdo(t: TableState, piece: Piece, op: int) -> Kdo:
    return Kdo(op=op, bdba=t.dba(piece.block), hdba=t.hdba, maxfr=4858, itli=_ITL, slot=piece.slot)


def _logged_columns(
    t: TableState, data: Sequence[bytes | None], changed: Sequence[int] | None = None
) -> tuple[tuple[int, bytes | None], ...]:
    """(segcol#, old bytes) of the supplemental columns of an UPDATE (``changed``: its columns) or
    a DELETE (``None``), by the table's supplemental logging (module docstring)."""
    return tuple((i + 1, data[i]) for i in logged_indexes(t, changed))


def logged_indexes(t: TableState, changed: Sequence[int] | None) -> tuple[int, ...]:
    """The column indexes Oracle logs as supplemental data for an UPDATE of ``changed`` (a DELETE:
    ``None``) under the table's supplemental logging, ascending (the module docstring)."""
    mode = t.supplemental
    if mode == "primary":
        return tuple(t.key_index)
    if mode == "none" or changed is None:
        return ()
    spec = t.spec
    if mode == "all":
        return tuple(
            i for i, c in enumerate(spec.columns) if i not in changed and c.type.name not in LOB_TYPES
        )
    groups = spec.unique_keys if mode == "unique" else spec.foreign_keys
    logged: set[int] = set()
    for group in groups:
        idx = [spec.index_of(name) for name in group]
        if any(i in changed for i in idx):
            logged.update(i for i in idx if i not in changed)
    return tuple(sorted(logged))


def _supplemental(
    row: Row,
    t: TableState,
    *,
    op: int,
    first: bool,
    last: bool,
    before: int,
    after: int,
    keys: tuple[tuple[int, bytes | None], ...] = (),
    force_long: bool = False,
) -> Supplemental:
    head = row.pieces[0]
    short = len(row.pieces) == 1 and not force_long
    fb = (_FB_FIRST if first else 0) | (_FB_LAST if last else 0) | (0x10 if short else 0)
    return Supplemental(
        op=op,
        fb=fb,
        count=len(keys),
        objv=1,
        start_before=before,
        start_after=after,
        bdba=None if short else t.dba(head.block),
        slot=None if short else head.slot,
        columns=keys,
    )


def insert_pairs(ctx: PairContext, t: TableState, row: Row) -> list[Pair]:
    """INSERT of one row: pieces last-first (the head piece's pair is written last)."""
    pairs: list[Pair] = []
    n = len(row.pieces)
    for k, index in enumerate(range(n - 1, -1, -1)):
        piece = row.pieces[index]
        supp = _supplemental(row, t, op=2, first=k == 0, last=k == n - 1, before=0, after=piece.first + 1)
        undo, uba = ctx.undo(t, _simple_kdo(t, piece, KdoOpCode.DRP), supplemental=supp)
        kdo, cols = _row_kdo(t, row, index, KdoOpCode.IRP)
        pairs.append((undo, RowOperation(ktb=ctx.ktb(uba), kdo=kdo, columns=cols)))
    return pairs


def delete_pairs(ctx: PairContext, t: TableState, row: Row) -> list[Pair]:
    """DELETE of one row: pieces head-first; key columns on the first pair."""
    pairs: list[Pair] = []
    n = len(row.pieces)
    for index, piece in enumerate(row.pieces):
        keys = _logged_columns(t, row.data) if index == 0 else ()
        supp = _supplemental(
            row, t, op=4, first=index == 0, last=index == n - 1, before=piece.first + 1, after=0, keys=keys
        )
        kdo, cols = _row_kdo(t, row, index, KdoOpCode.IRP)
        undo, uba = ctx.undo(t, kdo, columns=cols, supplemental=supp)
        pairs.append((undo, RowOperation(ktb=ctx.ktb(uba), kdo=_simple_kdo(t, piece, KdoOpCode.DRP))))
    return pairs


def update_pairs(
    ctx: PairContext, t: TableState, row: Row, old: Sequence[bytes | None], changed: Sequence[int]
) -> list[Pair]:
    """UPDATE of one row (``row.data`` already new, ``old`` the previous bytes): one URP pair per
    piece holding a changed column, head-first; key columns (old values) on the first pair."""
    touched = [
        (i, p) for i, p in enumerate(row.pieces) if any(p.first <= c < p.first + p.count for c in changed)
    ]
    pairs: list[Pair] = []
    last_index = len(row.pieces) - 1
    for k, (index, piece) in enumerate(touched):
        cols = sorted(c for c in changed if piece.first <= c < piece.first + piece.count)
        positions = tuple(c - piece.first for c in cols)
        before_vals = tuple(old[c] for c in cols)
        after_vals = tuple(row.data[c] for c in cols)
        delta = sum(len(v or b"") for v in after_vals) - sum(len(v or b"") for v in before_vals)
        stored = len(_piece_columns(row, index)) if index == last_index else piece.count
        ncol = max(stored, positions[-1] + 1)
        keys = _logged_columns(t, old, changed) if k == 0 else ()
        supp = _supplemental(
            row,
            t,
            op=1,
            first=k == 0,
            last=k == len(touched) - 1,
            before=cols[0] + 1,
            after=cols[0] + 1,
            keys=keys,
            force_long=True,
        )
        fb = _piece_fb(row, index)
        undo_kdo = Kdo(
            op=KdoOpCode.URP,
            bdba=t.dba(piece.block),
            hdba=t.hdba,
            maxfr=4858,
            itli=_ITL,
            slot=piece.slot,
            fb=fb,
            lock=0,
            ckix=0,
            ncol=ncol,
            nnew=len(cols),
            size_delt=-delta,
            null_bitmap=_bitmap(before_vals),
        )
        undo, uba = ctx.undo(t, undo_kdo, columns=before_vals, positions=positions, supplemental=supp)
        redo_kdo = Kdo(
            op=KdoOpCode.URP,
            bdba=t.dba(piece.block),
            hdba=t.hdba,
            maxfr=4858,
            itli=_ITL,
            slot=piece.slot,
            fb=fb,
            lock=_ITL,
            ckix=0,
            ncol=ncol,
            nnew=len(cols),
            size_delt=delta,
            null_bitmap=_bitmap(after_vals),
        )
        pairs.append(
            (undo, RowOperation(ktb=ctx.ktb(uba), kdo=redo_kdo, columns=after_vals, positions=positions))
        )
    return pairs


def _qmi_row(row: Row) -> QmiRow:
    return QmiRow(fb=0x2C, lb=_ITL, columns=_piece_columns(row, 0))


def array_insert_pairs(ctx: PairContext, t: TableState, block: int, rows: Sequence[Row]) -> Pair:
    """Array insert into one block: undo QMD (the slots) + redo QMI (the rows), §6.6.3."""
    slots = tuple(r.pieces[0].slot for r in rows)
    undo_kdo = Kdo(
        op=KdoOpCode.QMD, bdba=t.dba(block), hdba=t.hdba, maxfr=4858, itli=_ITL, slots=slots, lock=0
    )
    undo, uba = ctx.undo(t, undo_kdo)
    redo_kdo = Kdo(
        op=KdoOpCode.QMI, bdba=t.dba(block), hdba=t.hdba, maxfr=4858, itli=_ITL, slots=slots, lock=_ITL
    )
    return undo, RowOperation(ktb=ctx.ktb(uba), kdo=redo_kdo, qmi_rows=tuple(_qmi_row(r) for r in rows))


def array_delete_pairs(ctx: PairContext, t: TableState, block: int, rows: Sequence[Row]) -> Pair:
    """Array delete in one block: undo QMI (the old rows) + redo QMD (the slots), §6.6.3."""
    slots = tuple(r.pieces[0].slot for r in rows)
    undo_kdo = Kdo(
        op=KdoOpCode.QMI, bdba=t.dba(block), hdba=t.hdba, maxfr=4858, itli=_ITL, slots=slots, lock=0
    )
    undo, uba = ctx.undo(t, undo_kdo, qmi_rows=tuple(_qmi_row(r) for r in rows))
    redo_kdo = Kdo(
        op=KdoOpCode.QMD, bdba=t.dba(block), hdba=t.hdba, maxfr=4858, itli=_ITL, slots=slots, lock=_ITL
    )
    return undo, RowOperation(ktb=ctx.ktb(uba), kdo=redo_kdo)
