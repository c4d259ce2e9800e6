"""Transaction-layer opcodes: 5.1 undo record, 5.2 begin, 5.4 commit/rollback, 5.6 / 5.11 partial
rollback (redo-format §5.1-§5.4, shared structures §5.0.1).

Each parser takes the vector's raw fields, its block class (CLS, for the USN) and the file layout,
and returns a frozen op body. Short or inconsistent fields raise ``FormatError``. Layer 1.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from redo_lib.errors import FormatError
from redo_lib.format.layout import FileLayout
from redo_lib.format.model import (
    Columns,
    Kdo,
    KdoOpCode,
    KtbRedo,
    KtubFlags,
    PartialRollback,
    QmiRow,
    Supplemental,
    TransactionBegin,
    TransactionEnd,
    UndoRecord,
)
from redo_lib.format.ops.kdo import (
    need,
    parse_kdo,
    parse_ktb,
    parse_packed_columns,
    parse_piece_columns,
    parse_positions,
    parse_qmi_rows,
    parse_rowdep,
    parse_uba,
    parse_xid,
)
from redo_lib.scn import Xid

_MULTI_BLOCK = KtubFlags.MULTI_BLOCK_HEAD | KtubFlags.MULTI_BLOCK_TAIL | KtubFlags.MULTI_BLOCK_MID
_KTUBL_USER_OFFSET = 72


def usn_of(block_class: int) -> int:
    """USN from the vector's block class: ``(cls - 15) // 2`` for undo classes, else -1 (§4.1)."""
    return (block_class - 15) // 2 if block_class >= 15 else -1


def parse_undo_record(fields: Sequence[bytes], block_class: int, layout: FileLayout) -> UndoRecord:
    """OP 5.1 — undo record (§5.1): ktudb, ktub, then by opc; KDO undo (opc 11.1) fully parsed.

    Multi-block pieces (ktub HEAD/TAIL/MID, §6.4) and other opcs keep fields 3+ in ``raw_fields``.
    """
    if len(fields) < 2:
        raise FormatError(f"5.1 needs ktudb and ktub fields, has {len(fields)}")
    s = layout.s
    ktudb = fields[0]
    need(ktudb, 20, "ktudb")
    ktub = fields[1]
    need(ktub, 24, "ktub")
    obj, dataobj, tsn = (
        s.u32.unpack_from(ktub, 0)[0],
        s.u32.unpack_from(ktub, 4)[0],
        s.u32.unpack_from(ktub, 8)[0],
    )
    flg = s.u16.unpack_from(ktub, 20)[0]
    user = None
    if flg & KtubFlags.BEGIN_TRANSACTION and len(ktub) >= _KTUBL_USER_OFFSET + 4:
        user = s.u32.unpack_from(ktub, _KTUBL_USER_OFFSET)[0]
    head: dict[str, Any] = {
        "xid": parse_xid(ktudb, 8, layout),
        "uba_seq": s.u16.unpack_from(ktudb, 16)[0],
        "uba_rec": ktudb[18],
        "ktudb_flg": s.u16.unpack_from(ktudb, 4)[0],
        "obj": obj,
        "dataobj": dataobj,
        "tsn": tsn,
        "opc": (ktub[16], ktub[17]),
        "slt": ktub[18],
        "rci": ktub[19],
        "flg": flg,
        "user": user,
    }
    if flg & _MULTI_BLOCK or (ktub[16], ktub[17]) != (11, 1) or len(fields) < 3:
        return UndoRecord(**head, raw_fields=tuple(bytes(f) for f in fields[2:]))
    ktb = parse_ktb(fields[2], layout)
    if len(fields) < 4:
        return UndoRecord(**head, ktb=ktb)
    kdo = parse_kdo(fields[3], layout)
    return _kdo_undo(head, ktb, kdo, fields, layout)


def _kdo_undo(
    head: dict[str, Any], ktb: KtbRedo | None, kdo: Kdo, fields: Sequence[bytes], layout: FileLayout
) -> UndoRecord:
    """The op-dependent fields after the KDO undo header (§5.1 table), then the supplemental block."""
    code = kdo.op & 0x1F
    i = 4
    columns: Columns = ()
    positions: tuple[int, ...] = ()
    qmi_rows: tuple[QmiRow, ...] = ()
    rowdep = None
    if code in (KdoOpCode.IRP, KdoOpCode.ORP):
        columns, i = parse_piece_columns(fields, i, kdo, redo=False)
    elif code == KdoOpCode.URP:
        if i >= len(fields):
            raise FormatError("5.1 URP undo without its column-position field")
        positions = parse_positions(fields[i], layout)
        i += 1
        if kdo.kdom2:
            if i >= len(fields):
                raise FormatError("5.1 URP KDOM2 undo without its value vector")
            columns, _ = parse_packed_columns(fields[i], kdo.nnew or 0, layout, "KDOM2 undo")
            i += 1
        else:
            columns, i, complete = _urp_undo_columns(fields, i, kdo)
            if not complete:
                return UndoRecord(**head, ktb=ktb, kdo=kdo, columns=columns, positions=positions)
    elif code == KdoOpCode.QMI:
        if i + 1 >= len(fields):
            raise FormatError("5.1 QMI undo needs row-length and row-data fields")
        qmi_rows = parse_qmi_rows(fields[i], fields[i + 1], len(kdo.slots), kdo.rowdeps, layout)
        return UndoRecord(**head, ktb=ktb, kdo=kdo, qmi_rows=qmi_rows)
    elif code not in (KdoOpCode.DRP, KdoOpCode.LMN, KdoOpCode.LKR, KdoOpCode.CFA):
        return UndoRecord(**head, ktb=ktb, kdo=kdo, raw_fields=tuple(bytes(f) for f in fields[4:]))
    if kdo.rowdeps and code in (KdoOpCode.IRP, KdoOpCode.ORP, KdoOpCode.URP, KdoOpCode.DRP):
        if code == KdoOpCode.URP:
            i = _skip_empty(fields, i)
        if i >= len(fields):
            raise FormatError("5.1 undo with row dependencies lacks its row-dependency field")
        rowdep = parse_rowdep(fields[i], layout)
        i += 1
    supplemental = parse_supplemental(fields, i, layout)
    return UndoRecord(
        **head,
        ktb=ktb,
        kdo=kdo,
        columns=columns,
        positions=positions,
        rowdep_scn=rowdep,
        supplemental=supplemental,
    )


def _skip_empty(fields: Sequence[bytes], i: int) -> int:
    while i < len(fields) and not fields[i]:
        i += 1
    return i


def _urp_undo_columns(fields: Sequence[bytes], i: int, kdo: Kdo) -> tuple[Columns, int, bool]:
    """URP undo values (OLR's reading): a NULL column (bitmap) takes no field; before each other
    column zero-length fields are skipped. Returns (columns, next field, all columns found)."""
    out: list[bytes | None] = []
    for col in range(kdo.nnew or 0):
        if kdo.is_null(col):
            out.append(None)
            continue
        i = _skip_empty(fields, i)
        if i >= len(fields):
            return tuple(out), i, False
        out.append(bytes(fields[i]))
        i += 1
    return tuple(out), i, True


def parse_supplemental(fields: Sequence[bytes], i: int, layout: FileLayout) -> Supplemental | None:
    """Supplemental-log block S1..S4 at the end of a 5.1 (§5.0.1); zero-length fields before it are
    skipped. ``None`` when the vector has no more fields (no supplemental logging)."""
    i = _skip_empty(fields, i)
    if i >= len(fields):
        return None
    s1 = fields[i]
    need(s1, 20, "supplemental header")
    s = layout.s
    u16 = s.u16.unpack_from
    count = u16(s1, 2)[0]
    head: dict[str, Any] = {
        "op": s1[0],
        "fb": s1[1],
        "count": count,
        "objv": u16(s1, 4)[0],
        "start_before": u16(s1, 6)[0],
        "start_after": u16(s1, 8)[0],
    }
    if len(s1) >= 26:
        head["bdba"] = s.u32.unpack_from(s1, 20)[0]
        head["slot"] = u16(s1, 24)[0]
    if i + 2 >= len(fields) or count == 0:
        return Supplemental(**head)
    numbers = fields[i + 1]
    lengths = fields[i + 2]
    need(numbers, 2 * count, "supplemental column numbers")
    need(lengths, 2 * count, "supplemental column lengths")
    segcols = s.u16_array(count).unpack_from(numbers, 0)
    sizes = s.u16_array(count).unpack_from(lengths, 0)
    values = fields[i + 3 : i + 3 + count]
    if len(values) < count:
        raise FormatError(f"supplemental block announces {count} columns but has {len(values)} value fields")
    columns = tuple((segcols[k], None if sizes[k] == 0xFFFF else bytes(values[k])) for k in range(count))
    return Supplemental(**head, columns=columns)


def parse_transaction_begin(
    fields: Sequence[bytes], block_class: int, layout: FileLayout
) -> TransactionBegin:
    """OP 5.2 — transaction begin, ktudh (§5.2); optional container UID in field 2 (or 3)."""
    if not fields:
        raise FormatError("5.2 without fields")
    f = fields[0]
    need(f, 32, "ktudh")
    s = layout.s
    con_uid = None
    if len(fields) >= 2 and len(fields[1]) == 4:
        con_uid = s.u32.unpack_from(fields[1], 0)[0]
    elif len(fields) >= 3 and len(fields[2]) == 4:
        con_uid = s.u32.unpack_from(fields[2], 0)[0]
    pusn, pslot, psqn = s.xid.unpack_from(f, 24)
    return TransactionBegin(
        xid=Xid(usn_of(block_class), s.u16.unpack_from(f, 0)[0], s.u32.unpack_from(f, 4)[0]),
        uba=parse_uba(f, 8, layout),
        flg=s.u16.unpack_from(f, 16)[0],
        siz=s.u16.unpack_from(f, 18)[0],
        fbi=f[20],
        parent_xid=Xid(pusn, pslot, psqn),
        con_uid=con_uid,
    )


def parse_transaction_end(fields: Sequence[bytes], block_class: int, layout: FileLayout) -> TransactionEnd:
    """OP 5.4 — commit or rollback, ktucm (§5.3): flg bit 0x04 = rollback; ktucf when flg & 0x02;
    the last 4-byte field is the Unix time of the commit."""
    if not fields:
        raise FormatError("5.4 without fields")
    f = fields[0]
    need(f, 20, "ktucm")
    s = layout.s
    flg = f[16]
    uba = None
    if flg & 0x02 and len(fields) >= 2:
        need(fields[1], 7, "ktucf")
        uba = parse_uba(fields[1], 0, layout)
    unix_time = None
    last = fields[-1]
    if len(fields) >= 2 and len(last) == 4 and not (flg & 0x02 and len(fields) == 2):
        unix_time = s.u32.unpack_from(last, 0)[0]
    return TransactionEnd(
        xid=Xid(usn_of(block_class), s.u16.unpack_from(f, 0)[0], s.u32.unpack_from(f, 4)[0]),
        srt=s.u16.unpack_from(f, 8)[0],
        sta=s.u32.unpack_from(f, 12)[0],
        flg=flg,
        uba=uba,
        unix_time=unix_time,
    )


def parse_partial_rollback(fields: Sequence[bytes], block_class: int, layout: FileLayout) -> PartialRollback:
    """OP 5.6 / 5.11 — partial rollback (§5.4): ktub in field 1; identity = (USN from CLS, slot)."""
    if not fields:
        raise FormatError("5.6/5.11 without a ktub field")
    ktub = fields[0]
    need(ktub, 24, "ktub")
    s = layout.s
    return PartialRollback(
        usn=usn_of(block_class),
        slt=ktub[18],
        obj=s.u32.unpack_from(ktub, 0)[0],
        dataobj=s.u32.unpack_from(ktub, 4)[0],
        opc=(ktub[16], ktub[17]),
        flg=s.u16.unpack_from(ktub, 20)[0],
    )
