"""Model -> archived redo log bytes: the inverse of the reader (redo-format §1-§5, checklist §11).

Two levels:

* pure ``write_*`` functions turn model values (``ChangeVector`` with its op body, record header
  fields, block 0 / block 1 fields) into bytes, in either endianness, for compat 11.2 (24-byte vector
  headers) and 12.1+ (32-byte headers);
* :class:`LogWriter` streams one archived log to a binary file object in constant memory: it lays
  records into 16-byte-headed blocks LWN by LWN (§3.1, §3.3), fills the @12 first-record offsets
  (§2), the XOR checksums (§2.1), and at :meth:`LogWriter.close` seeks back to patch the fields that
  are known only at the end (nab, next SCN, block count, largest LWN).

Every "Writer note" of redo-format.md is followed: records start only where more than 20 bytes remain
in a block and are 4-byte aligned; block tails are zero; LWNs begin at offset 16 of a fresh block
with a 68-byte header (VLD | 0x04) whose @28 = @32 = the LWN length in blocks; full SCNs below 2^47
are written as base u32, wrap u16, two zero bytes (block 1 of a 23ai log uses the big-SCN flag form
that real 23.6 files carry).

Op bodies are encoded from ``format/model.py`` values; the layouts below are those of §5 with the
real sizes of §5.0.1 (ktubl 76 bytes, ktubu 24, KTB with flg 0x0D, IRP KDO 48 + ceil(cc/8), ...).
A ``ChangeVector`` whose ``fields`` is non-empty is written from those raw fields (how noise vectors
such as 10.2, 4.1, 13.x and 24.4 markers are written: their bodies are ``Opaque``).

Direct-path loads (OP 19.1, :func:`write_direct_load_block`): field 1 follows §5.8 - data object id
u32 @0, LOB id (10 zero bytes) @4, version @16/@20 = 0, page number u32 @24 = 0, pdba u32 @28 = the
DBA of the loaded block, 4 zero bytes, then from @36 the image of the loaded table block that
:mod:`redo_lib.synth.blocks` documents (ITL 1 carries the loading transaction's XID; rows are in the
row directory in slot order). Field 2 is a 4-byte "memory dump" word, ``6`` as in seed 000.

DDL (OP 24.1, :func:`write_ddl`) follows §5.9 in one chunk: field 1 (24 bytes) = XID @4 (usn u16,
slot u16 @6, sqn u32 @8), command type u16 @12 (1 CREATE TABLE, 12 DROP TABLE, 15 ALTER TABLE, 85
TRUNCATE TABLE), kind u16 @16 = 1 (a kind whose field 12 is an object id; 4 when the model has no
object id), chunk sequence u16 @18 = 1, chunk count u16 @20 = 1; field 2 = the schema name; fields
3-7 empty; field 8 = the statement text, NUL-terminated; fields 9-11 empty; field 12 = object id u32
(empty without one).

On bad model input (a value that does not fit its field, SCNs out of order) the functions raise
``FormatError``; they never raise ``struct.error``.
"""

from __future__ import annotations

import datetime as dt
import struct
from collections.abc import Sequence
from dataclasses import dataclass
from typing import BinaryIO, final

from redo_lib.errors import FormatError
from redo_lib.format.layout import encode_redo_time  # one encoder; re-exported for the generator
from redo_lib.format.model import (
    ChangeVector,
    Ddl,
    DirectLoadBlock,
    KdliCommon,
    KdliItem,
    Kdo,
    KdoOpCode,
    KtbRedo,
    LobChange,
    LobImage,
    Opaque,
    PartialRollback,
    QmiRow,
    RowOperation,
    SessionInfo,
    Supplemental,
    TransactionBegin,
    TransactionEnd,
    UndoRecord,
)
from redo_lib.scn import Rba, Uba, Xid

__all__ = [
    "COMPAT_11_2", "COMPAT_19C", "COMPAT_23AI", "LogFileSpec", "LogWriter", "WriterLayout", "WrittenLog",
    "encode_redo_time", "seal_block", "write_change_vector", "write_ddl", "write_direct_load_block",
    "write_fields", "write_kdli_common", "write_kdli_item", "write_kdo", "write_ktb", "write_lob_locator",
    "write_securefile_locator",
    "write_record", "write_row_image", "xor_words",
]  # fmt: skip

KDLI_OP_BIMG = 6  # kdli common op of a 26.6 page image (§5.10)
COMPAT_11_2 = 0x0B200400
COMPAT_19C = 0x13000000
COMPAT_23AI = 0x17000000
_V12_1 = 0x0C100000
_V12_2 = 0x0C200000
_V19 = 0x13000000
_MAGIC = {False: b"\x7d\x7c\x7b\x7a", True: b"\x7a\x7b\x7c\x7d"}
_FILE_TYPES = {512: 0x22, 1024: 0x22, 4096: 0x82}
RECORD_HEADER = 24
LWN_RECORD_HEADER = 68
_MIN_TAIL = 20  # a record starts only where more than 20 bytes remain (§3.1)
_STRUCTS: dict[tuple[bool, str], struct.Struct] = {}
_PAD = (b"", b"\x00\x00\x00", b"\x00\x00", b"\x00")  # zero padding to 4 bytes, by length & 3


@final
@dataclass(frozen=True, slots=True)
class WriterLayout:
    """Endianness, block size and compat version of the log being written, with packers."""

    big_endian: bool = False
    block_size: int = 512
    compat_version: int = COMPAT_19C

    def __post_init__(self) -> None:
        if self.block_size not in _FILE_TYPES:
            raise FormatError(f"unsupported block size {self.block_size}", block_size=self.block_size)

    @property
    def prefix(self) -> str:
        return ">" if self.big_endian else "<"

    @property
    def file_type(self) -> int:
        return _FILE_TYPES[self.block_size]

    @property
    def vector_header_size(self) -> int:
        """24 bytes before 12.1, 32 from 12.1 on (§4.1)."""
        return 32 if self.compat_version >= _V12_1 else 24

    def pack(self, fmt: str, *values: int) -> bytes:
        key = (self.big_endian, fmt)
        packer = _STRUCTS.get(key)
        if packer is None:
            packer = _STRUCTS[key] = struct.Struct(self.prefix + fmt)
        try:
            return packer.pack(*values)
        except struct.error as exc:
            raise FormatError(f"value does not fit its field ({fmt})", values=values) from exc

    def scn8(self, scn: int, *, big_flag: bool = False) -> bytes:
        """Full 8-byte SCN (§3.4a): base u32, wrap u16, two more bytes (the 48..63 extension)."""
        if scn < 0 or scn >= 1 << 47:
            raise FormatError("SCN out of the writable range [0, 2^47)", scn=scn)
        if big_flag:  # 0x8000 | bits 48..62 in the wrap, bits 32..47 in the extension
            return self.pack("IHH", scn & 0xFFFFFFFF, 0x8000 | (scn >> 48), (scn >> 32) & 0xFFFF)
        return self.pack("IHH", scn & 0xFFFFFFFF, scn >> 32, 0)

    def scn6(self, scn: int) -> bytes:
        """Record-style 6-byte SCN (§3.4b): wrap u16 first, then base u32."""
        if scn < 0 or scn >= 1 << 47:
            raise FormatError("SCN out of the writable range [0, 2^47)", scn=scn)
        return self.pack("HI", scn >> 32, scn & 0xFFFFFFFF)

    def xid(self, xid: Xid | None) -> bytes:
        """XID as stored inline: usn u16, slot u16, sqn u32 (§5.0.1)."""
        if xid is None:
            return bytes(8)
        return self.pack("HHI", xid.usn, xid.slot, xid.sqn)

    def uba(self, uba: Uba | None) -> bytes:
        """UBA padded to 8 bytes: block u32, sequence u16, record u8 (§5.0.1)."""
        if uba is None:
            return bytes(8)
        return self.pack("IHBx", uba.block, uba.seq, uba.rec)


def xor_words(data: bytes | bytearray | memoryview) -> int:
    """XOR of all little-endian 16-bit words: low byte = XOR of even-offset bytes, high = odd (§2.1)."""
    value = int.from_bytes(data, "little")
    bits = len(data) * 8
    while bits > 16:
        bits //= 2
        value = (value >> bits) ^ (value & ((1 << bits) - 1))
    return value


def seal_block(buf: bytearray, start: int, size: int, at: int = 14) -> None:
    """Store the §2.1 checksum of ``buf[start:start+size]`` in bytes ``at``/``at+1`` of the block.

    Zero the two bytes, then store E (XOR of even-offset bytes) at ``at`` and O (odd) at ``at + 1``,
    so that the XOR of all 16-bit words of the block is zero. ``at`` must be even.
    """
    buf[start + at] = 0
    buf[start + at + 1] = 0
    word = xor_words(memoryview(buf)[start : start + size])
    buf[start + at] = word & 0xFF
    buf[start + at + 1] = word >> 8


# ---------------------------------------------------------------------------------------------
# Vectors (§4) and op bodies (§5)


def write_fields(layout: WriterLayout, fields: Sequence[bytes]) -> bytes:
    """Field-length array (u16 L0 = 2 + 2n, n lengths, padded to 4) then each field padded to 4 (§4.2)."""
    lengths = [len(f) for f in fields]
    if lengths and max(lengths) > 0xFFFF:
        raise FormatError("vector field longer than 65535 bytes", length=max(lengths))
    head = layout.pack(f"{len(lengths) + 1}H", 2 + 2 * len(lengths), *lengths)
    parts = [head, _PAD[len(head) & 3]]
    for f, n in zip(fields, lengths, strict=True):
        parts.append(f)
        parts.append(_PAD[n & 3])
    return b"".join(parts)


def _vector_header(layout: WriterLayout, cv: ChangeVector) -> bytes:
    """Change vector header (§4.1): 24 bytes, or 32 with CON_ID/FLG from 12.1."""
    obj = 0xFFFFFFFF if cv.obj is None else cv.obj
    head = layout.pack("BBHHHI", cv.layer, cv.code, cv.block_class, cv.afn, obj >> 16, cv.dba)
    head += layout.scn8(cv.scn)
    head += layout.pack("BBH", cv.seq, cv.change_type, obj & 0xFFFF)
    if layout.vector_header_size == 32:
        head += layout.pack("HHHH", cv.con_id, 0, cv.flg, 0)
    return head


def write_change_vector(layout: WriterLayout, cv: ChangeVector) -> bytes:
    """One change vector: header + field list. Raw ``cv.fields`` win over encoding ``cv.body``."""
    fields = cv.fields if cv.fields else _body_fields(layout, cv)
    return _vector_header(layout, cv) + write_fields(layout, fields)


def _body_fields(layout: WriterLayout, cv: ChangeVector) -> tuple[bytes, ...]:
    body = cv.body
    if isinstance(body, UndoRecord):
        return _undo_fields(layout, body)
    if isinstance(body, RowOperation):
        return _row_fields(layout, body)
    if isinstance(body, TransactionBegin):
        return _begin_fields(layout, body)
    if isinstance(body, TransactionEnd):
        return _end_fields(layout, body)
    if isinstance(body, PartialRollback):
        return (
            _ktub(layout, body.obj, body.dataobj, body.opc, body.slt, 0, body.flg, None) + bytes(4),
            bytes(8),
        )
    if isinstance(body, SessionInfo):
        return _session_fields(layout, body, cv.code)
    if isinstance(body, DirectLoadBlock):
        return write_direct_load_block(layout, body)
    if isinstance(body, Ddl):
        return write_ddl(layout, body)
    if isinstance(body, LobChange):
        return (
            write_ktb(layout, body.ktb),
            write_kdli_common(layout, body.common),
            *(write_kdli_item(layout, i) for i in body.items),
        )
    if isinstance(body, LobImage):
        page = (body.page,) if body.common.op == KDLI_OP_BIMG else ()
        trailer = (write_kdli_item(layout, body.trailer),) if body.trailer is not None else ()
        return (
            write_kdli_common(layout, body.common),
            write_kdli_item(layout, body.head),
            write_kdli_item(layout, body.item),
            *page,
            *trailer,
        )
    if isinstance(body, Opaque):
        raise FormatError(f"opaque {body.category} vector {cv.layer}.{cv.code} needs raw fields")
    raise FormatError(f"no encoder for {type(body).__name__}")


def _ktudb(layout: WriterLayout, u: UndoRecord, size: int) -> bytes:
    """ktudb (5.1 field 1, 20 bytes): siz, spc, flg, XID @8, seq @16, rec @18."""
    return (
        layout.pack("HHHH", size & 0xFFFF, 0x1000, u.ktudb_flg, 0)
        + layout.xid(u.xid)
        + layout.pack("HBx", u.uba_seq, u.uba_rec)
    )


def _ktub(
    layout: WriterLayout,
    obj: int,
    dataobj: int,
    opc: tuple[int, int],
    slt: int,
    rci: int,
    flg: int,
    user: int | None,
    tsn: int = 0,
) -> bytes:
    """ktubu (24 bytes) or, with ``user`` given, ktubl (76 bytes), §5.0.1."""
    head = layout.pack("IIIIBBBBHH", obj, dataobj, tsn, 0, opc[0], opc[1], slt, rci, flg, 1)
    if user is None:
        return head
    tail = layout.pack("Hh", 0, 0) + layout.uba(None) + layout.scn8(0) + layout.scn8(0) + bytes(4)
    tail += b"\xff" * 8 + layout.pack("III", 0, 0, user)
    return head + tail


def write_ktb(layout: WriterLayout, ktb: KtbRedo | None) -> bytes:
    """KTB redo (§5.0.1) in Oracle's real form: flg 0x0D, payload at @8 (F 24, C 16, L 32, Z/N 8)."""
    if ktb is None:
        return bytes(0)
    kind = ktb.op & 0x0F
    op = ktb.op | (0x10 if ktb.cleanout_scn is not None else 0)
    flg = ktb.flg if ktb.flg & 0x08 else 0x0D  # always the real payload-at-@8 form
    out = bytearray(layout.pack("BB6x", op, flg))
    if kind == 1:  # F
        out += layout.xid(ktb.xid) + layout.uba(ktb.uba)
    elif kind == 2:  # C
        out += layout.uba(ktb.uba)
    elif kind == 4:  # L
        out += layout.xid(ktb.xid) + layout.uba(ktb.uba) + layout.pack("BB", 0, 0x08)
        out += layout.scn6(ktb.scn or 0)
    if ktb.cleanout_scn is not None:
        out += bytes(8 + 36 - len(out))
        out += layout.pack("BBBx", 0x02, 0, 0x01) + layout.scn8(ktb.cleanout_scn)
    return bytes(out)


def write_kdo(layout: WriterLayout, kdo: Kdo) -> bytes:
    """KDO op header (§5.0.1) with the op-specific part of its op code."""
    code = kdo.op & 0x1F
    flags = (kdo.xtype & 0x03) | (0x80 if kdo.kdom2 else 0)
    op = kdo.op | (0x40 if kdo.rowdeps else 0)
    head = layout.pack("IIHBBBBxx", kdo.bdba, kdo.hdba, kdo.maxfr, op, flags, kdo.itli, kdo.ispac)
    slot = kdo.slot or 0
    if code in (KdoOpCode.IRP, KdoOpCode.ORP):
        cc = kdo.cc or 0
        hb, hs = kdo.hrid or (0, 0)
        nb, ns = kdo.nrid or (0, 0)
        body = layout.pack("BBBBIHxxIHxxxxxx", kdo.fb or 0, kdo.lb or 0, cc, 0, hb, hs, nb, ns)
        body += layout.pack("HHB", kdo.size_delt or 0, slot, kdo.tabn)
        body += kdo.null_bitmap.ljust((cc + 7) // 8, b"\x00") + bytes(3)
        return head + body
    if code == KdoOpCode.URP:
        nnew = kdo.nnew or 0
        body = layout.pack(
            "BBBBHBBh",
            kdo.fb or 0,
            kdo.lock or 0,
            kdo.ckix or 0,
            kdo.tabn,
            slot,
            kdo.ncol or 0,
            nnew,
            kdo.size_delt or 0,
        )
        bitmap = kdo.null_bitmap.ljust((nnew + 7) // 8, b"\x00")
        return head + body + bitmap + bytes(max(0, 2 - len(bitmap)))
    if code == KdoOpCode.CFA:
        nb, ns = kdo.nrid or (0, 0)
        return head + layout.pack("IHxxHBBBxxx", nb, ns, slot, kdo.flag or 0, kdo.tabn, kdo.lock or 0)
    if code in (KdoOpCode.QMI, KdoOpCode.QMD):
        slots = kdo.slots
        body = layout.pack("BBBx", kdo.tabn, kdo.lock or 0, len(slots)) + layout.pack(
            f"{len(slots)}H", *slots
        )
        return head + body + bytes(-len(body) % 4)
    # DRP, LKR, DSC, LMN and the rest: slot @16, tabn @18
    return head + layout.pack("HBx", slot, kdo.tabn)


def _supplemental_fields(layout: WriterLayout, s: Supplemental) -> list[bytes]:
    """S1 header (20 bytes, or 28 with the head row's bdba/slot), S2 segcol#s, S3 lengths, S4 values."""
    head = layout.pack("BBHHHH", s.op, s.fb, len(s.columns), s.objv, s.start_before, s.start_after) + bytes(
        10
    )
    if s.bdba is not None:
        head += layout.pack("IHxx", s.bdba, s.slot or 0)
    fields = [head]
    if s.columns:
        fields.append(layout.pack(f"{len(s.columns)}H", *(c for c, _ in s.columns)))
        lengths = (0xFFFF if v is None else len(v) for _, v in s.columns)
        fields.append(layout.pack(f"{len(s.columns)}H", *lengths))
        fields.extend(v or b"" for _, v in s.columns)
    return fields


def write_row_image(layout: WriterLayout, row: QmiRow, rowdep_scn: int | None = None) -> bytes:
    """A row in block format (QMI rows, block images): fb, lb, cc, [rowdep SCN], length-prefixed
    columns (``L`` <= 250, ``0xFE`` + u16 for longer, ``0xFF`` for NULL), §5.6."""
    out = bytearray((row.fb, row.lb, len(row.columns)))
    if rowdep_scn is not None:
        out += layout.scn8(rowdep_scn) if layout.compat_version >= _V12_2 else layout.scn6(rowdep_scn)
    for value in row.columns:
        if value is None:
            out.append(0xFF)
        elif len(value) <= 250:
            out.append(len(value))
            out += value
        else:
            out.append(0xFE)
            out += layout.pack("H", len(value))
            out += value
    return bytes(out)


def _op_fields(layout: WriterLayout, op: UndoRecord | RowOperation) -> list[bytes]:
    """Fields after the KDO of an undo or redo row op (§5.1 table, §5.6 table)."""
    assert op.kdo is not None
    code = op.kdo.op & 0x1F
    fields: list[bytes] = []
    if code in (KdoOpCode.IRP, KdoOpCode.ORP, KdoOpCode.URP):
        if code == KdoOpCode.URP:
            fields.append(layout.pack(f"{len(op.positions)}H", *op.positions))
        fields.extend(b"" if c is None else c for c in op.columns)
    elif code == KdoOpCode.QMI:
        images = [write_row_image(layout, r, op.rowdep_scn) for r in op.qmi_rows]
        fields.append(layout.pack(f"{len(images)}H", *(len(i) for i in images)))
        fields.append(b"".join(images))
        return fields
    if op.rowdep_scn is not None:
        dep = op.rowdep_scn
        fields.append(layout.scn8(dep) if layout.compat_version >= _V12_2 else layout.scn6(dep))
    return fields


def _undo_fields(layout: WriterLayout, u: UndoRecord) -> tuple[bytes, ...]:
    """OP 5.1 (§5.1): ktudb, ktub(l), then KTB + KDO + op fields + supplemental for opc 11.1, or the
    raw fields 3+ for other opcs."""
    user = (u.user or 0) if u.begins_transaction else None
    ktub = _ktub(layout, u.obj, u.dataobj, u.opc, u.slt, u.rci, u.flg, user, u.tsn)
    rest: list[bytes] = []
    if u.opc == (11, 1) and u.kdo is not None:
        rest.append(write_ktb(layout, u.ktb))
        rest.append(write_kdo(layout, u.kdo))
        rest.extend(_op_fields(layout, u))
        if u.supplemental is not None:
            rest.extend(_supplemental_fields(layout, u.supplemental))
    else:
        rest.extend(u.raw_fields)
    size = 20 + len(ktub) + sum(len(f) for f in rest)
    return (_ktudb(layout, u, size), ktub, *rest)


def _row_fields(layout: WriterLayout, r: RowOperation) -> tuple[bytes, ...]:
    """OP 11.x (§5.6): KTB, KDO, then the op's fields."""
    return (write_ktb(layout, r.ktb), write_kdo(layout, r.kdo), *_op_fields(layout, r))


def _begin_fields(layout: WriterLayout, b: TransactionBegin) -> tuple[bytes, ...]:
    """OP 5.2 (§5.2): ktudh 32 bytes, optional field 2 = container UID."""
    ktudh = layout.pack("HxxI", b.xid.slot, b.xid.sqn) + layout.uba(b.uba)
    ktudh += layout.pack("HHBxxx", b.flg, b.siz, b.fbi) + layout.xid(b.parent_xid)
    if b.con_uid is None:
        return (ktudh,)
    return (ktudh, layout.pack("I", b.con_uid))


def _end_fields(layout: WriterLayout, e: TransactionEnd) -> tuple[bytes, ...]:
    """OP 5.4 (§5.3): ktucm 20 bytes, ktucf 16 bytes when flg & 0x02, 24 bytes when flg & 0x10,
    then the 4-byte Unix time real files end with."""
    fields = [layout.pack("HxxIHxxIB3x", e.xid.slot, e.xid.sqn, e.srt, e.sta, e.flg)]
    if e.flg & 0x02:
        fields.append(layout.uba(e.uba) + layout.pack("HHB3x", 0, 0x1000, 0))
    if e.flg & 0x10:
        fields.append(layout.pack("II", 4, 4) + layout.pack("I", e.unix_time or 0) + bytes(12))
    if e.unix_time is not None:
        fields.append(layout.pack("I", e.unix_time))
    return tuple(fields)


def _session_fields(layout: WriterLayout, s: SessionInfo, code: int) -> tuple[bytes, ...]:
    """OP 5.19 (14 fields) / 5.20 (8 fields), §5.5. Session u32 @4 from 19c, u16 @0 before."""
    if layout.compat_version >= _V19:
        ident = layout.pack("HHI", 0, s.serial, s.session)
    else:
        ident = layout.pack("HHI", s.session, s.serial, 0)
    flags = layout.pack("HHH", s.flags, 0, s.flags2)
    version = layout.pack("I", s.version or layout.compat_version)
    name, client, login = (t.encode() for t in (s.transaction_name, s.client_id, s.login_user))
    if code == 20:
        return (ident, name, flags, version, layout.pack("II", s.audit_session_id, 0), b"", client, login)
    who = (
        s.current_user,
        s.login_user,
        s.client_info,
        s.os_user,
        s.machine,
        s.terminal,
        s.process,
        s.program,
    )
    audit = layout.pack("I", s.audit_session_id)
    return (ident, *(t.encode() for t in who), name, flags, version, audit, client)


def write_kdli_common(layout: WriterLayout, c: KdliCommon) -> bytes:
    """kdli common (§5.10, 12 bytes): op, type, flg0, flg1, psiz, poff, DBA."""
    return layout.pack("BBBBHHI", c.op, c.type, c.flg0, c.flg1, c.psiz, c.poff, c.dba)


def write_kdli_item(layout: WriterLayout, item: KdliItem) -> bytes:
    """A kdli item (§5.10): info (code 1: LOB id @1, be32 block @11, be16 slot @15) and fill (code 6:
    offset @2, fsiz @4, data length @6, data from @8); other codes are written from ``raw``."""
    if item.code == 1:
        return (
            bytes([1])
            + item.lob_id.ljust(10, b"\0")
            + item.block.to_bytes(4, "big")
            + item.slot.to_bytes(2, "big")
        )
    if item.code == 6:
        return layout.pack("BxHHH", 6, item.offset, item.size, len(item.data)) + item.data
    return item.raw


def write_lob_locator(
    lob_id: bytes,
    *,
    inline: bytes | None = None,
    dbas: Sequence[int] = (),
    last_page_bytes: int = 0,
    chunk: int = 0,
    page_count: int | None = None,
) -> bytes:
    """A LOB locator (§7.8) with an in-row body: flags @5 = 0x04, LOB id @10, be16 body size @20, be16
    flg2 @22; ``inline`` data (flg2 0x0100, chunk size be16 @28, data from @36), else the page list
    (flg2 0x0400, be32 page count @24, be16 bytes in the last page @28, be32 DBAs from @36).
    ``page_count`` above ``len(dbas)``: the other pages are named by the LOB index (§5.7)."""
    head = bytes(5) + b"\x04" + bytes(4) + lob_id.ljust(10, b"\0")
    if inline is not None:
        body = (0x0100).to_bytes(2, "big") + bytes(4) + chunk.to_bytes(2, "big") + bytes(6) + inline
    else:
        count = len(dbas) if page_count is None else page_count
        body = (0x0400).to_bytes(2, "big") + count.to_bytes(4, "big") + last_page_bytes.to_bytes(2, "big")
        body += bytes(6) + b"".join(d.to_bytes(4, "big") for d in dbas)
    return head + (len(body) + 2).to_bytes(2, "big") + body


def write_securefile_locator(
    lob_id: bytes,
    *,
    inline: bytes | None = None,
    length: int = 0,
    extents: Sequence[tuple[int, int]] = (),
    list_page: int | None = None,
) -> bytes:
    """A SecureFile-style LOB locator (§7.8, the branch where flg2 has neither 0x0100 nor 0x0400):
    flags @5 = 0x04, LOB id @10, be16 body size @20, be16 flg2 @22, flg3 @26 (``& 0x03``: the length
    in 1-4 big-endian bytes at @28), flg4 @27 = 0 (one more header byte). ``inline`` data: flg2 0x0800,
    the data to the end; else the 12c+ page list (flg2 0x4000, flg3 style 0x20): a count byte
    (extents - 1), then per extent (first DBA, pages) a flag byte (0x20: two-byte count), the be32
    first DBA and the page count. ``list_page``: the 12c+ style 0x40 (be32 DBA of an lmap list page),
    a form the decoder does not read (it counts such values). Our reading of OLR's
    (crates/redo-core/src/trail/securefile.rs)."""
    if inline is not None:
        length = len(inline)
    if not 0 <= length < 1 << 32:
        raise FormatError(f"SecureFile LOB length {length} does not fit 4 bytes")
    width = max(1, (length.bit_length() + 7) // 8)
    if inline is not None:
        flg2, flg3, rest = 0x0800, width - 1, inline
    elif list_page is not None:
        flg2, flg3, rest = 0x4000, 0x40 | (width - 1), list_page.to_bytes(4, "big")
    else:
        if not 1 <= len(extents) <= 256:
            raise FormatError(f"a SecureFile locator holds 1 to 256 extents, not {len(extents)}")
        parts = [bytes([len(extents) - 1])]
        for first, count in extents:
            if not 0 < count < 1 << 16:
                raise FormatError(f"a SecureFile extent holds 1 to 65535 pages, not {count}")
            wide = count > 0xFF
            parts.append(bytes([0x20 if wide else 0]) + first.to_bytes(4, "big"))
            parts.append(count.to_bytes(2 if wide else 1, "big"))
        flg2, flg3, rest = 0x4000, 0x20 | (width - 1), b"".join(parts)
    body = (
        flg2.to_bytes(2, "big") + bytes(2) + bytes([flg3, 0]) + length.to_bytes(width, "big") + b"\0" + rest
    )
    head = bytes(5) + b"\x04" + bytes(4) + lob_id.ljust(10, b"\0")
    return head + (len(body) + 2).to_bytes(2, "big") + body


def write_direct_load_block(layout: WriterLayout, d: DirectLoadBlock) -> tuple[bytes, ...]:
    """OP 19.1 (§5.8): field 1 = dataobj @0, LOB id @4, version 0, page no @24, pdba @28, data @36;
    field 2 = the 4-byte memory-dump word."""
    lob_id = d.lob_id.ljust(10, b"\x00")[:10]
    head = (
        layout.pack("I", d.dataobj) + lob_id + bytes(2) + layout.pack("IHxxIII", 0, 0, d.page_no, d.pdba, 0)
    )
    return (head + d.data, layout.pack("I", 6))


_DDL_KIND_OBJECT = 1  # u16 @16: a kind whose field 12 is an object id (§5.9)
_DDL_KIND_NO_OBJECT = 4  # one of the kinds (4, 5, 6, 8, 9, 10) without one


def write_ddl(layout: WriterLayout, d: Ddl) -> tuple[bytes, ...]:
    """OP 24.1 (§5.9), one chunk: field 1 = XID @4, command type @12, kind @16, chunk 1 of 1 @18/@20;
    field 2 schema; field 8 the text with its NUL; field 12 the object id; the others empty."""
    kind = _DDL_KIND_NO_OBJECT if d.obj is None else _DDL_KIND_OBJECT
    head = bytes(4) + layout.xid(d.xid) + layout.pack("HxxHHHxx", d.ddl_type, kind, 1, 1)
    obj = b"" if d.obj is None else layout.pack("I", d.obj)
    empty = (b"",) * 5
    return (head, d.schema.encode(), *empty, d.text.encode() + b"\0", b"", b"", b"", obj)


# ---------------------------------------------------------------------------------------------
# Records (§3.2)


def write_record(
    layout: WriterLayout,
    *,
    scn: int,
    subscn: int,
    vectors: Sequence[bytes],
    vld: int = 0x01,
    con_uid: int = 0,
) -> bytes:
    """Record header (24 bytes; 68 when ``vld & 0x04``, with a zero LWN part that
    :class:`LogWriter` fills) followed by the already-encoded vectors."""
    body = b"".join(vectors)
    header_size = LWN_RECORD_HEADER if vld & 0x04 else RECORD_HEADER
    length = header_size + len(body)
    if scn < 0 or scn >= 1 << 47:
        raise FormatError("record SCN out of the writable range", scn=scn)
    uid = con_uid if layout.compat_version >= _V12_1 else 0
    head = layout.pack("IBxHIHxxI4x", length, vld, scn >> 32, scn & 0xFFFFFFFF, subscn, uid)
    return head + bytes(header_size - RECORD_HEADER) + body


@final
@dataclass(frozen=True, slots=True, kw_only=True)
class LogFileSpec:
    """What block 0 and block 1 say about one archived log (§1.2, §1.4, checklist §11 items 1-2)."""

    thread: int = 1
    sequence: int
    resetlogs_id: int
    resetlogs_scn: int = 1
    dbid: int = 0x5EED0001
    db_name: str = "SYNTH"
    activation_id: int = 0x5EED0002
    compat_version: int = COMPAT_19C
    block_size: int = 512
    big_endian: bool = False
    first_scn: int
    first_time: dt.datetime
    online_log_blocks: int = 20480
    control_seq: int = 1
    file_number: int = 1
    enabled_scn: int = 1
    enabled_time: dt.datetime = dt.datetime(2020, 1, 1)
    max_lwn_blocks: int = 256

    @property
    def layout(self) -> WriterLayout:
        return WriterLayout(self.big_endian, self.block_size, self.compat_version)


@final
@dataclass(frozen=True, slots=True, kw_only=True)
class WrittenLog:
    """Summary of a closed log."""

    thread: int
    sequence: int
    first_scn: int
    next_scn: int
    nab: int
    largest_lwn: int
    records: int


def _description(spec: LogFileSpec, next_scn: int) -> bytes:
    if spec.compat_version >= _V12_2:
        scns = f"0x{spec.first_scn:016x}-0x{next_scn:016x}"
    else:
        first, last = (f"0x{v >> 32:04x}.{v & 0xFFFFFFFF:08x}" for v in (spec.first_scn, next_scn))
        scns = f"{first}-{last}"
    return f"T {spec.thread:04d}, S {spec.sequence:010d}, SCN {scns}".encode("ascii")[:63]


def _file_header_blocks(
    spec: LogFileSpec, *, nab: int, next_scn: int, next_time: dt.datetime, largest_lwn: int
) -> bytes:
    """Block 0 (file header, §1.2) and block 1 (redo log header, §1.4), both sealed."""
    lay = spec.layout
    size = spec.block_size
    b0 = bytearray(size)
    b0[1] = lay.file_type
    b0[4:8] = lay.pack("I", 0xFFC00000)
    b0[14:16] = lay.pack("H", 0x0400)
    b0[20:28] = lay.pack("II", size, nab - 1)
    b0[28:32] = _MAGIC[spec.big_endian]
    seal_block(b0, 0, size, at=16)
    b1 = bytearray(size)
    b1[0:16] = lay.pack("BBxxIIHH", 0x01, lay.file_type, 1, spec.sequence, 0x8000, 0)
    b1[20:28] = lay.pack("II", spec.compat_version, spec.dbid)
    b1[28:36] = spec.db_name.encode("ascii")[:8].ljust(8, b"\x00")
    online = max(spec.online_log_blocks, nab)
    b1[36:56] = lay.pack("IIIHHI", spec.control_seq, online, size, spec.file_number, 2, spec.activation_id)
    b1[92 : 92 + 64] = _description(spec, next_scn).ljust(64, b"\x00")
    big = spec.compat_version >= COMPAT_23AI
    b1[156:164] = lay.pack("II", nab, spec.resetlogs_id)
    b1[164:172] = lay.scn8(spec.resetlogs_scn, big_flag=big)
    b1[172:180] = lay.pack("IHxx", 1, spec.thread)
    b1[180:188] = lay.scn8(spec.first_scn, big_flag=big)
    b1[188:192] = lay.pack("I", encode_redo_time(spec.first_time))
    b1[192:200] = lay.scn8(next_scn, big_flag=big)
    b1[200:204] = lay.pack("I", encode_redo_time(next_time))
    b1[206] = 8  # zero blocks
    b1[207] = 18  # format id
    b1[208:216] = lay.scn8(spec.enabled_scn, big_flag=big)
    b1[216:220] = lay.pack("I", encode_redo_time(spec.enabled_time))
    b1[220:228] = lay.scn8(spec.first_scn, big_flag=big)
    b1[228:232] = lay.pack("I", encode_redo_time(spec.first_time))
    b1[268:272] = lay.pack("I", largest_lwn)
    b1[272:280] = b"\xff" * 8  # real next SCN: none
    seal_block(b1, 0, size)
    return bytes(b0 + b1)


class LogWriter:
    """Streams one archived log to ``out`` (a seekable binary file positioned at its start).

    ``append`` places a record and returns its RBA at once; the blocks of the open LWN are kept in
    memory until the next LWN starts (its SCN goes to the LWN @56), then sealed and written.
    ``close`` writes the last LWN and seeks back to rewrite blocks 0 and 1 with nab, next SCN/time,
    the block count and the largest LWN. Memory is bounded by one LWN (``spec.max_lwn_blocks``, or
    one over-sized record).
    """

    def __init__(self, out: BinaryIO, spec: LogFileSpec) -> None:
        self._out = out
        self._spec = spec
        self._layout = spec.layout
        self._size = spec.block_size
        self._base = out.tell()
        first = spec.first_scn
        out.write(_file_header_blocks(spec, nab=2, next_scn=first, next_time=spec.first_time, largest_lwn=0))
        self._next_block = 2  # first block not yet used by any LWN
        self._lwn: _Lwn | None = None
        self._last = (spec.first_scn, -1)
        self._largest_lwn = 0
        self._records = 0
        self._closed = False

    @property
    def spec(self) -> LogFileSpec:
        return self._spec

    @property
    def layout(self) -> WriterLayout:
        return self._layout

    @property
    def block_count(self) -> int:
        """Blocks the file would have if closed now (``nab``)."""
        if self._lwn is not None:
            return self._lwn.end_block() + 1
        return self._next_block

    @property
    def last_scn(self) -> int:
        return self._last[0]

    def blocks_needed(self, length: int, *, new_lwn: bool) -> int:
        """Blocks the file would have after appending a record of ``length`` bytes (excl. LWN part)."""
        if new_lwn or self._lwn is None:
            return self._next_block_after_lwn() + _span_blocks(
                self._size, 16, length + LWN_RECORD_HEADER - RECORD_HEADER
            )
        block, offset = self._lwn.position()
        if self._size - offset <= _MIN_TAIL:
            block, offset = block + 1, 16
        return block + _span_blocks(self._size, offset, length)

    def opens_lwn(self, length: int, time: dt.datetime) -> bool:
        """Whether :meth:`append` of a record of ``length`` bytes at ``time`` would start a new LWN."""
        lwn = self._lwn
        if lwn is None or lwn.time != time:
            return True
        return self.blocks_needed(length, new_lwn=False) - lwn.start > self._spec.max_lwn_blocks

    def append(
        self,
        *,
        scn: int,
        subscn: int,
        vectors: Sequence[ChangeVector | bytes],
        time: dt.datetime,
        vld: int = 0x01,
        con_uid: int = 0,
        new_lwn: bool = False,
    ) -> Rba:
        """Append one redo record; returns its RBA. Starts a new LWN when asked, when ``time``
        differs from the open LWN's time, or when the LWN would exceed ``max_lwn_blocks``."""
        if self._closed:
            raise FormatError("log already closed", sequence=self._spec.sequence)
        if (scn, subscn) <= self._last:
            raise FormatError(
                "records need increasing (SCN, sub-SCN)", scn=scn, subscn=subscn, last=self._last
            )
        if scn < self._spec.first_scn:
            raise FormatError("record SCN below the log's first SCN", scn=scn, first_scn=self._spec.first_scn)
        encoded = [v if isinstance(v, bytes) else write_change_vector(self._layout, v) for v in vectors]
        length = RECORD_HEADER + sum(len(v) for v in encoded)
        if new_lwn or self.opens_lwn(length, time):
            self._start_lwn(scn, time)
            vld |= 0x04
        assert self._lwn is not None
        record = write_record(self._layout, scn=scn, subscn=subscn, vectors=encoded, vld=vld, con_uid=con_uid)
        rba = self._lwn.place(record)
        self._last = (scn, subscn)
        self._records += 1
        return Rba(self._spec.sequence, rba[0], rba[1])

    def _next_block_after_lwn(self) -> int:
        return self._lwn.end_block() + 1 if self._lwn is not None else self._next_block

    def _start_lwn(self, scn: int, time: dt.datetime) -> None:
        self._finish_lwn(next_lwn_scn=scn)
        self._lwn = _Lwn(self._layout, self._spec.sequence, self._next_block, scn, time)

    def _finish_lwn(self, *, next_lwn_scn: int) -> None:
        """Seal and write the open LWN; its @56 gets the next LWN's SCN (§3.2)."""
        lwn = self._lwn
        if lwn is None:
            return
        self._out.write(lwn.seal(next_lwn_scn))
        self._largest_lwn = max(self._largest_lwn, lwn.block_count())
        self._next_block = lwn.end_block() + 1
        self._lwn = None

    def close(self, *, next_scn: int, next_time: dt.datetime) -> WrittenLog:
        """Write the open LWN, then patch blocks 0 and 1 (nab, next SCN/time, largest LWN)."""
        if self._closed:
            raise FormatError("log already closed", sequence=self._spec.sequence)
        if next_scn <= self._last[0]:
            raise FormatError("next SCN must exceed every record SCN", next_scn=next_scn, last=self._last[0])
        self._finish_lwn(next_lwn_scn=next_scn - 1)
        nab = self._next_block
        end = self._out.tell()
        self._out.seek(self._base)
        largest = self._largest_lwn
        self._out.write(
            _file_header_blocks(
                self._spec, nab=nab, next_scn=next_scn, next_time=next_time, largest_lwn=largest
            )
        )
        self._out.seek(end)
        self._closed = True
        spec = self._spec
        return WrittenLog(
            thread=spec.thread, sequence=spec.sequence, first_scn=spec.first_scn, next_scn=next_scn,
            nab=nab, largest_lwn=largest, records=self._records,
        )  # fmt: skip


def _span_blocks(size: int, offset: int, length: int) -> int:
    """Number of blocks a record of ``length`` bytes starting at ``offset`` touches."""
    payload = size - 16
    first = size - offset
    if length <= first:
        return 1
    return 1 + -(-(length - first) // payload)


class _Lwn:
    """The blocks of one LWN under construction: placement of records, @12 offsets, sealing."""

    __slots__ = ("_buf", "_first", "_cont_end", "_layout", "_seq", "start", "scn", "time",
                 "_block", "_offset", "_last_block")  # fmt: skip

    def __init__(self, layout: WriterLayout, seq: int, start: int, scn: int, time: dt.datetime) -> None:
        self._layout = layout
        self._seq = seq
        self.start = start
        self.scn = scn
        self.time = time
        self._buf = bytearray(layout.block_size)
        self._first: dict[int, int] = {}
        self._cont_end: dict[int, int] = {}
        self._block = start
        self._offset = 16
        self._last_block = start

    def position(self) -> tuple[int, int]:
        return self._block, self._offset

    def end_block(self) -> int:
        return self._last_block

    def block_count(self) -> int:
        return self._last_block - self.start + 1

    def place(self, record: bytes) -> tuple[int, int]:
        size = self._layout.block_size
        if size - self._offset <= _MIN_TAIL:
            self._block += 1
            self._offset = 16
        start = (self._block, self._offset)
        self._first.setdefault(self._block, self._offset)
        view = memoryview(record)
        while view:
            self._ensure(self._block)
            n = min(size - self._offset, len(view))
            at = (self._block - self.start) * size + self._offset
            self._buf[at : at + n] = view[:n]
            view = view[n:]
            self._offset += n
            self._last_block = self._block
            if view:
                self._block += 1
                self._offset = 16
        self._offset = (self._offset + 3) & ~3
        if self._block != start[0] and size - self._offset > _MIN_TAIL:
            self._cont_end[self._block] = self._offset
        return start

    def _ensure(self, block: int) -> None:
        need = (block - self.start + 1) * self._layout.block_size
        if len(self._buf) < need:
            self._buf.extend(bytes(need - len(self._buf)))

    def seal(self, next_lwn_scn: int) -> bytes:
        """Fill the LWN header fields, every block header (§2) and checksum (§2.1)."""
        lay = self._layout
        size = lay.block_size
        count = self.block_count()
        del self._buf[count * size :]
        header = lay.pack("HHII", 0, 1, count, count) + bytes(4) + lay.scn8(self.scn) + bytes(8)
        header += lay.scn8(max(next_lwn_scn, self.scn)) + lay.pack("I", encode_redo_time(self.time))
        self._buf[16 + 24 : 16 + 68] = header
        for i in range(count):
            block = self.start + i
            at = i * size
            offset = self._first.get(block, self._cont_end.get(block, 0))
            head = (0x01, lay.file_type, block, self._seq, 0x8000 | offset, 0)
            self._buf[at : at + 16] = lay.pack("BBxxIIHH", *head)
            seal_block(self._buf, at, size)
        return bytes(self._buf)
