"""Sub-structures shared by the undo (5.1) and row (11.x) parsers: XID, UBA, KTB redo, the KDO op
header, column lists and length-prefixed row images (redo-format §5.0.1).

Pure functions over one field's bytes. A field too short for what it must hold raises
``FormatError`` (no position: ``vectors.py`` adds the vector offset, the reader the block).
Layer 1.
"""

from __future__ import annotations

from collections.abc import Sequence

from redo_lib.errors import FormatError
from redo_lib.format.layout import FileLayout, parse_full_scn, parse_record_scn
from redo_lib.format.model import Columns, Kdo, KdoOpCode, KtbRedo, QmiRow, RowFlags
from redo_lib.scn import Uba, Xid

_F = RowFlags.F
_H = RowFlags.H
_L = RowFlags.L


def need(field: bytes, size: int, what: str) -> None:
    """Raise ``FormatError`` unless ``field`` has at least ``size`` bytes."""
    if len(field) < size:
        raise FormatError(f"field {what} too short: {len(field)} bytes, need {size}")


def parse_xid(data: bytes, offset: int, layout: FileLayout) -> Xid:
    """XID (usn u16, slot u16, sqn u32), §5.0.1."""
    usn, slot, sqn = layout.s.xid.unpack_from(data, offset)
    return Xid(usn, slot, sqn)


def parse_uba(data: bytes, offset: int, layout: FileLayout) -> Uba:
    """UBA (block u32, sequence u16, record u8), §5.0.1."""
    block, seq, rec = layout.s.uba.unpack_from(data, offset)
    return Uba(block, seq, rec)


def parse_ktb(field: bytes, layout: FileLayout) -> KtbRedo | None:
    """KTB redo (§5.0.1): op, flg, and the op's payload at @4 or @8 (flg bit 0x08).

    OLR ignores a KTB field shorter than 8 bytes; so do we (returns ``None``).
    """
    if len(field) < 8:
        return None
    op = field[0]
    flg = field[1]
    s = 8 if flg & 0x08 else 4
    kind = op & 0x0F
    xid = uba = scn = cleanout = None
    if kind == 1:  # F: transaction's XID and UBA
        need(field, s + 15, "KTB op F")
        xid = parse_xid(field, s, layout)
        uba = parse_uba(field, s + 8, layout)
    elif kind == 2:  # C: UBA
        need(field, s + 7, "KTB op C")
        uba = parse_uba(field, s, layout)
    elif kind == 4:  # L: ITL xid, uba, lock count/flags, record-style SCN
        need(field, s + 24, "KTB op L")
        xid = parse_xid(field, s, layout)
        uba = parse_uba(field, s + 8, layout)
        scn = parse_record_scn(field, s + 18, layout)
    if op & 0x10:  # block cleanout record follows
        need(field, s + 48, "KTB block cleanout")
        cleanout = parse_full_scn(field, s + 40, layout)
    return KtbRedo(op=op, flg=flg, xid=xid, uba=uba, scn=scn, cleanout_scn=cleanout)


def _bitmap(field: bytes, start: int, count: int, what: str) -> bytes:
    size = (count + 7) >> 3
    need(field, start + size, what)
    return bytes(field[start : start + size])


def parse_kdo(field: bytes, layout: FileLayout) -> Kdo:
    """KDO op header (§5.0.1): the common 16 bytes plus the op-specific part for the ops we know."""
    need(field, 16, "KDO")
    s = layout.s
    u16 = s.u16.unpack_from
    u32 = s.u32.unpack_from
    bdba = u32(field, 0)[0]
    hdba = u32(field, 4)[0]
    maxfr = u16(field, 8)[0]
    op = field[10]
    flags = field[11]
    common = {
        "op": op,
        "bdba": bdba,
        "hdba": hdba,
        "maxfr": maxfr,
        "xtype": flags & 0x03,
        "kdom2": bool(flags & 0x80),
        "rowdeps": bool(op & 0x40),
        "itli": field[12],
        "ispac": field[13],
    }
    code = op & 0x1F
    if code in (KdoOpCode.IRP, KdoOpCode.ORP):
        need(field, 48, "KDO IRP/ORP")
        fb = field[16]
        cc = field[18]
        return Kdo(
            **common,
            fb=fb,
            lb=field[17],
            cc=cc,
            hrid=(u32(field, 20)[0], u16(field, 24)[0]) if fb & _F and not fb & _H else None,
            nrid=None if fb & _L else (u32(field, 28)[0], u16(field, 32)[0]),
            size_delt=u16(field, 40)[0],
            slot=u16(field, 42)[0],
            tabn=field[44],
            null_bitmap=_bitmap(field, 45, cc, "KDO IRP/ORP null bitmap"),
        )
    if code in (KdoOpCode.DRP, KdoOpCode.LKR):
        need(field, 20, "KDO DRP/LKR")
        return Kdo(**common, slot=u16(field, 16)[0], tabn=field[18])
    if code == KdoOpCode.URP:
        need(field, 28, "KDO URP")
        nnew = field[23]
        return Kdo(
            **common,
            fb=field[16],
            lock=field[17],
            ckix=field[18],
            tabn=field[19],
            slot=u16(field, 20)[0],
            ncol=field[22],
            nnew=nnew,
            cc=nnew,
            size_delt=s.i16.unpack_from(field, 24)[0],
            null_bitmap=_bitmap(field, 26, nnew, "KDO URP null bitmap"),
        )
    if code == KdoOpCode.CFA:
        need(field, 32, "KDO CFA")
        return Kdo(
            **common,
            nrid=(u32(field, 16)[0], u16(field, 20)[0]),
            slot=u16(field, 24)[0],
            flag=field[26],
            tabn=field[27],
            lock=field[28],
        )
    if code in (KdoOpCode.QMI, KdoOpCode.QMD):
        need(field, 20, "KDO QMI/QMD")
        nrow = field[18]
        need(field, 20 + 2 * nrow, "KDO QMI/QMD slots")
        slots = tuple(u16(field, 20 + 2 * i)[0] for i in range(nrow))
        return Kdo(**common, tabn=field[16], lock=field[17], slots=slots)
    if code == KdoOpCode.DSC:
        need(field, 20, "KDO DSC")
        return Kdo(**common, slot=u16(field, 16)[0], tabn=field[18])
    return Kdo(**common)


def data_column_count(kdo: Kdo) -> int:
    """OLR's ``ccData``: 1 + index of the last column that is not NULL by the bitmap (0 if none)."""
    cc = kdo.cc or 0
    bitmap = kdo.null_bitmap
    for i in range(cc - 1, -1, -1):
        byte = i >> 3
        if byte >= len(bitmap) or not bitmap[byte] & (1 << (i & 7)):
            return i + 1
    return 0


def _is_null(bitmap: bytes, i: int) -> bool:
    byte = i >> 3
    return byte < len(bitmap) and bool(bitmap[byte] & (1 << (i & 7)))


def _check_null(field: bytes, null: bool, i: int) -> bytes | None:
    if null:
        if field:
            raise FormatError(f"column {i} is NULL by the bitmap but its field has {len(field)} bytes")
        return None
    return bytes(field)


def parse_piece_columns(fields: Sequence[bytes], start: int, kdo: Kdo, *, redo: bool) -> tuple[Columns, int]:
    """Columns of an IRP/ORP piece image (§5.1 undo, §5.6 redo): one field per column.

    Returns (columns, index of the first field after them). A single field whose length equals
    size/delt is a compressed row image (cc > 1; for redo also cc = 0) and is kept as one column.
    Missing trailing fields stop the list (NULL columns past the last field are ``None``).
    """
    cc = kdo.cc or 0
    n = len(fields)
    if start >= n or (cc == 0 and not redo):
        return (), start
    first = fields[start]
    if len(first) == kdo.size_delt and (cc > 1 or (redo and cc == 0)):
        return (bytes(first),), start + 1
    bitmap = kdo.null_bitmap
    out: list[bytes | None] = []
    i = start
    for col in range(cc):
        null = _is_null(bitmap, col)
        if i < n:
            out.append(_check_null(fields[i], null, col))
            i += 1
        elif null:
            out.append(None)
        else:
            break
    return tuple(out), i


def parse_positions(field: bytes, layout: FileLayout) -> tuple[int, ...]:
    """URP column-position array: u16 per entry (0-based positions within the piece)."""
    count = len(field) // 2
    return layout.s.u16_array(count).unpack_from(field, 0) if count else ()


def parse_packed_columns(data: bytes, count: int, layout: FileLayout, what: str) -> tuple[Columns, int]:
    """``count`` length-prefixed columns from ``data`` (§5.0.1): L ≤ 250 -> L bytes; 0xFE -> u16
    length (file endianness) then bytes; 0xFF -> NULL. Returns (columns, bytes consumed)."""
    out: list[bytes | None] = []
    p = 0
    end = len(data)
    u16 = layout.s.u16.unpack_from
    for col in range(count):
        if p >= end:
            raise FormatError(f"{what}: column {col} of {count} missing (row image ends at byte {p})")
        lead = data[p]
        p += 1
        if lead == 0xFF:
            out.append(None)
            continue
        if lead == 0xFE:
            if p + 2 > end:
                raise FormatError(f"{what}: column {col} long length cut at byte {p}")
            lead = u16(data, p)[0]
            p += 2
        elif lead > 250:
            raise FormatError(f"{what}: column {col} has invalid length byte 0x{lead:02x}")
        if p + lead > end:
            raise FormatError(f"{what}: column {col} length {lead} runs past the row image")
        out.append(bytes(data[p : p + lead]))
        p += lead
    return tuple(out), p


def parse_qmi_rows(
    lengths: bytes, rows: bytes, nrow: int, rowdeps: bool, layout: FileLayout
) -> tuple[QmiRow, ...]:
    """QMI rows (§5.6): row ``r`` occupies exactly ``lengths[r]`` bytes of ``rows``:
    fb, lb, cc, [row-dependency SCN], then cc length-prefixed columns."""
    need(lengths, 2 * nrow, "QMI row-length array")
    u16 = layout.s.u16.unpack_from
    extra = layout.rowdep_size if rowdeps else 0
    out: list[QmiRow] = []
    p = 0
    for r in range(nrow):
        size = u16(lengths, 2 * r)[0]
        if p + size > len(rows):
            raise FormatError(f"QMI row {r} of {size} bytes runs past the row data ({len(rows)} bytes)")
        row = rows[p : p + size]
        if size < 3 + extra:
            raise FormatError(f"QMI row {r} too short: {size} bytes")
        columns, _used = parse_packed_columns(row[3 + extra :], row[2], layout, f"QMI row {r}")
        out.append(QmiRow(fb=row[0], lb=row[1], columns=columns))
        p += size
    return tuple(out)


def parse_rowdep(field: bytes, layout: FileLayout) -> int:
    """Row-dependency SCN field (full SCN layout §3.4a; 6 bytes before 12.2, 8 from 12.2)."""
    need(field, 6, "row dependency SCN")
    if len(field) < 8:
        field = bytes(field) + b"\0\0"
    return parse_full_scn(field, 0, layout)
