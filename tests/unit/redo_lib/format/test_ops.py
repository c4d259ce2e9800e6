"""The Rust core's op parsers on fields built byte by byte from the layouts of redo-format §5 (worked
example of §11 included), and its vector walk of §4 (24/32-byte headers, alignment, bounds).

Each case is wrapped into one change vector of one record (``vector``, ``record``) and parsed by
``native.parse_record``; the sub-parsers (KTB, KDO, packed columns) are reached through the op
bodies that carry them."""

from __future__ import annotations

import struct

import pytest

from redo_lib.errors import FormatError
from redo_lib.format.layout import FileLayout
from redo_lib.format.model import (
    ChangeVector,
    Ddl,
    DirectLoadBlock,
    Kdo,
    KtbRedo,
    Opaque,
    OpBody,
    PartialRollback,
    RowOperation,
    SessionInfo,
    TransactionBegin,
    TransactionEnd,
    UndoRecord,
)
from redo_lib.format.native_records import record_of
from redo_lib.format.writer import RECORD_HEADER, WriterLayout, write_record
from redo_lib.native import native
from redo_lib.scn import Uba, Xid

L19 = FileLayout(compat_version=0x13000000)
L11 = FileLayout(compat_version=0x0B200000)
B19 = FileLayout(big_endian=True, compat_version=0x13000000)


def le(fmt: str, *values: int) -> bytes:
    return struct.pack("<" + fmt, *values)


def pad(data: bytes, size: int) -> bytes:
    return data + bytes(size - len(data))


def vector(
    layer: int, code: int, fields: list[bytes] | tuple[bytes, ...], *, wide: bool = True, cls: int = 1,
    big: bool = False, typ: int = 2,
) -> bytes:  # fmt: skip
    """One change vector (§4.1 header: 24 bytes, 32 with CON_ID; §4.2 field list, 4-byte aligned)."""
    o = ">" if big else "<"
    head = struct.pack(
        o + "BBHHHIIHHBBH", layer, code, cls, 7, 0x0001, 0x0100000E, 0x229606, 0, 0, 1, typ, 0x1C16
    )
    if wide:
        head += struct.pack(o + "HHHH", 3, 0, 0, 0)
    lengths = struct.pack(o + "H", 2 + 2 * len(fields)) + b"".join(
        struct.pack(o + "H", len(f)) for f in fields
    )
    body = pad(lengths, (len(lengths) + 3) & ~3) + b"".join(pad(f, (len(f) + 3) & ~3) for f in fields)
    return head + body


def record(layout: FileLayout, *vectors: bytes) -> bytes:
    """A record (§3.2 header, 24 bytes) holding ``vectors``."""
    return write_record(
        WriterLayout(layout.big_endian, 512, layout.compat_version), scn=1, subscn=1, vectors=list(vectors)
    )


def parse_vectors(layout: FileLayout, data: bytes) -> tuple[ChangeVector, ...]:
    """The vectors of a record, parsed by the Rust core."""
    plain = native.parse_record(
        data, big_endian=layout.big_endian, compat_version=layout.compat_version, lwn=(0, 1, 1, 0, 0)
    )
    return record_of(plain).vectors


def parse_body(
    layer: int, code: int, typ: int, fields: tuple[bytes, ...], cls: int, layout: FileLayout
) -> OpBody:
    """The op body of one vector ``layer.code`` holding ``fields``."""
    wide = layout.compat_version >= 0x0C100000
    data = record(layout, vector(layer, code, fields, wide=wide, cls=cls, big=layout.big_endian, typ=typ))
    (cv,) = parse_vectors(layout, data)
    return cv.body


def parse_ktb(field: bytes, layout: FileLayout) -> KtbRedo | None:
    """The KTB redo of an 11.3 (delete row piece) whose first field is ``field``."""
    body = parse_body(11, 3, 0, (field, KDO_DRP), 1, layout)
    assert isinstance(body, RowOperation)
    return body.ktb


def parse_kdo(field: bytes, layout: FileLayout, *columns: bytes) -> Kdo:
    """The KDO of an 11.x whose second field is ``field`` (the op from its byte @10)."""
    body = parse_body(11, field[10], 0, (KTB_Z, field, *columns), 1, layout)
    assert isinstance(body, RowOperation)
    return body.kdo


# -- KTB (§5.0.1) -----------------------------------------------------------------------------


def test_ktb_op_f_with_payload_at_8() -> None:
    field = bytes([0x01, 0x0D]) + bytes(6) + le("HHI", 10, 12, 572) + le("IHB", 0x66F, 0xCE, 4) + b"\0"
    ktb = parse_ktb(field, L19)
    assert ktb is not None
    assert (ktb.op_letter, ktb.xid, ktb.uba) == ("F", Xid(10, 12, 572), Uba(0x66F, 0xCE, 4))


def test_ktb_op_f_with_payload_at_4() -> None:
    field = bytes([0x01, 0x05, 0, 0]) + le("HHI", 3, 24, 0x2F5) + le("IHB", 7, 8, 9) + b"\0"
    ktb = parse_ktb(field, L11)
    assert ktb is not None and (ktb.xid, ktb.uba) == (Xid(3, 24, 0x2F5), Uba(7, 8, 9))


def test_ktb_op_l_reads_the_record_style_scn_at_18() -> None:
    payload = (
        le("HHI", 5, 2, 0x2FD) + le("IHB", 0x52, 0xBE, 3) + b"\0" + bytes([0, 0]) + le("HI", 0, 0x22703E)
    )
    ktb = parse_ktb(bytes([0x04, 0x0D]) + bytes(6) + pad(payload, 24), L19)
    assert ktb is not None and (ktb.op_letter, ktb.xid, ktb.scn) == ("L", Xid(5, 2, 0x2FD), 0x22703E)


def test_ktb_block_cleanout_scn_at_s_plus_40() -> None:
    field = bytearray(8 + 48 + 8)
    field[0:2] = bytes([0x12, 0x0D])  # op C + cleanout
    field[8 + 40 : 8 + 48] = le("IH", 0x229A45, 0) + b"\0\0"
    ktb = parse_ktb(bytes(field), L19)
    assert ktb is not None and (ktb.op_letter, ktb.cleanout_scn) == ("C", 0x229A45)


@pytest.mark.parametrize("raw", ["0103", "01050000"], ids=["2-bytes", "4-bytes"])
def test_ktb_shorter_than_8_bytes_is_ignored(raw: str) -> None:
    assert parse_ktb(bytes.fromhex(raw), L19) is None


def test_ktb_op_f_too_short_for_its_payload_is_a_format_error() -> None:
    with pytest.raises(FormatError, match="KTB op F"):
        parse_ktb(bytes([0x01, 0x0D]) + bytes(10), L19)


# -- KDO (§5.0.1) -----------------------------------------------------------------------------


def kdo_base(op: int, flags: int = 1) -> bytes:
    return le("IIH", 0x0600000E, 0x06000008, 4863) + bytes([op, flags, 2, 0, 0, 0])


def test_kdo_irp_of_the_worked_example() -> None:
    """§11: bdba X, op IRP, fb 0x2C, cc 2, size/delt 9, slot 5, tabn 0, NULL bitmap 0x00."""
    field = bytearray(kdo_base(0x02) + bytes(33))
    field[16], field[17], field[18] = 0x2C, 0x02, 2
    field[40:42] = le("H", 9)
    field[42:44] = le("H", 5)
    kdo = parse_kdo(bytes(field), L19, b"\xc1\x02", b"AB")
    assert (kdo.code.name, kdo.bdba, kdo.fb, kdo.cc, kdo.size_delt, kdo.slot, kdo.tabn) == (
        "IRP",
        0x0600000E,
        0x2C,
        2,
        9,
        5,
        0,
    )
    assert (kdo.hrid, kdo.nrid, kdo.null_bitmap) == (None, None, b"\x00")


def test_kdo_irp_middle_piece_has_head_and_next_row_ids() -> None:
    field = bytearray(kdo_base(0x02) + bytes(33))
    field[16], field[18] = 0x08, 1  # F only: not head, not last
    field[20:26] = le("IH", 0x111, 3)
    field[28:34] = le("IH", 0x222, 4)
    kdo = parse_kdo(bytes(field), L19, b"x")
    assert (kdo.hrid, kdo.nrid) == ((0x111, 3), (0x222, 4))


def test_kdo_urp_size_is_signed() -> None:
    field = kdo_base(0x05) + bytes([0x2C, 1, 0, 0]) + le("H", 7) + bytes([3, 2]) + le("h", -1) + b"\x00\x00"
    kdo = parse_kdo(field, L19, le("HH", 0, 1), b"a", b"b")
    assert (kdo.code.name, kdo.slot, kdo.ncol, kdo.nnew, kdo.size_delt, kdo.lock) == ("URP", 7, 3, 2, -1, 1)


def test_kdo_qmi_slots() -> None:
    field = kdo_base(0x0B) + bytes([0, 1, 3, 0]) + le("HHH", 4, 5, 6) + b"\0\0"
    rows = bytes([0x2C, 0, 1, 1, 0x41]) * 3
    assert parse_kdo(field, L19, le("HHH", 5, 5, 5), rows).slots == (4, 5, 6)


def test_kdo_cfa_next_row_id() -> None:
    field = kdo_base(0x08) + le("IH", 0xABC, 9) + b"\0\0" + le("H", 2) + bytes([1, 0, 2, 0, 0, 0])
    kdo = parse_kdo(field, L19)
    assert (kdo.nrid, kdo.slot, kdo.flag, kdo.lock) == ((0xABC, 9), 2, 1, 2)


@pytest.mark.parametrize(
    ("op", "size"), [(0x02, 47), (0x03, 19), (0x05, 27), (0x08, 31)], ids=["irp", "drp", "urp", "cfa"]
)
def test_kdo_shorter_than_its_op_needs_is_a_format_error(op: int, size: int) -> None:
    with pytest.raises(FormatError, match="too short"):
        parse_kdo(pad(kdo_base(op), size), L19, b"x")


# -- packed columns (§5.0.1) ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("raw", "count", "expected"),
    [
        ("02c102", 1, (b"\xc1\x02",)),
        ("ff02c102", 2, (None, b"\xc1\x02")),
        ("fe0300414243", 1, (b"ABC",)),
        ("00", 1, (b"",)),
    ],
    ids=["short", "null", "long-length", "empty"],
)
def test_length_prefixed_columns(raw: str, count: int, expected: tuple[bytes | None, ...]) -> None:
    assert packed_columns(bytes.fromhex(raw), count) == expected


@pytest.mark.parametrize(
    "raw", ["fb", "05c102", "fe05", ""], ids=["bad-lead", "overrun", "cut-long", "missing"]
)
def test_bad_length_prefixed_columns_raise(raw: str) -> None:
    with pytest.raises(FormatError):
        packed_columns(bytes.fromhex(raw), 1)


def packed_columns(raw: bytes, count: int) -> tuple[bytes | None, ...]:
    """The columns of one 11.11 (QMI) row: flag, lock, column count, then ``raw`` (§5.0.1)."""
    kdo = kdo_base(0x0B) + bytes([0, 0, 1, 0]) + le("H", 0) + b"\0\0"
    row = bytes([0x2C, 0, count]) + raw
    body = parse_body(11, 11, 0, (KTB_Z, kdo, le("H", len(row)), row), 1, L19)
    assert isinstance(body, RowOperation)
    (only,) = body.qmi_rows
    return only.columns


# -- 5.1 / 11.x (§5.1, §5.6, worked example §11) ------------------------------------------------

KTUDB = le("HHH", 0, 0, 0x12) + b"\0\0" + le("HHI", 10, 12, 572) + le("H", 0xCE) + bytes([4, 0])
KTUBL = (
    le("IIII", 72726, 72726, 5, 0) + bytes([11, 1, 12, 0]) + le("HH", 0x0008, 1) + bytes(48) + le("I", 136)
)
KTB_Z = bytes([0x03, 0x0D]) + bytes(6)
KDO_DRP = kdo_base(0x03) + le("H", 0) + bytes([0, 0])
SUPP_INSERT = bytes([2, 0x1C]) + le("HHHH", 0, 1, 0, 1) + bytes(10)


def test_undo_record_of_an_insert() -> None:
    body = parse_body(5, 1, 0, (KTUDB, KTUBL, KTB_Z, KDO_DRP, SUPP_INSERT), 16 + 2 * 10, L19)
    assert isinstance(body, UndoRecord)
    assert (body.xid, body.uba_seq, body.uba_rec, body.obj, body.opc, body.slt, body.user) == (
        Xid(10, 12, 572),
        0xCE,
        4,
        72726,
        (11, 1),
        12,
        136,
    )
    assert body.begins_transaction and body.kdo is not None and body.kdo.code.name == "DRP"
    assert body.supplemental is not None
    assert (
        body.supplemental.op,
        body.supplemental.fb,
        body.supplemental.start_after,
        body.supplemental.bdba,
    ) == (2, 0x1C, 1, None)


def test_undo_supplemental_with_row_address_and_logged_columns() -> None:
    supp = bytes([1, 0x0C]) + le("HHHH", 2, 1, 1, 1) + bytes(10) + le("IH", 0x600000E, 5) + b"\0\0"
    fields = (KTUDB, KTUBL, KTB_Z, KDO_DRP, b"", supp, le("HH", 1, 3), le("HH", 2, 0xFFFF), b"\xc1\x02", b"")
    body = parse_body(5, 1, 0, fields, 36, L19)
    assert isinstance(body, UndoRecord) and body.supplemental is not None
    assert (body.supplemental.bdba, body.supplemental.slot, body.supplemental.columns) == (
        0x600000E,
        5,
        ((1, b"\xc1\x02"), (3, None)),
    )


def test_multi_block_undo_keeps_the_remaining_fields_raw() -> None:
    ktub = KTUBL[:20] + le("H", 0x0002) + KTUBL[22:]
    body = parse_body(5, 1, 0, (KTUDB, ktub, b"abc", b"defg"), 36, L19)
    assert (
        isinstance(body, UndoRecord)
        and body.multi_block
        and body.raw_fields == (b"abc", b"defg")
        and body.kdo is None
    )


def test_undo_irp_compressed_row_is_kept_as_one_column() -> None:
    kdo = bytearray(kdo_base(0x02) + bytes(33))
    kdo[16], kdo[18] = 0x2C, 3
    kdo[40:42] = le("H", 6)
    body = parse_body(5, 1, 0, (KTUDB, KTUBL, KTB_Z, bytes(kdo), b"ABCDEF"), 36, L19)
    assert isinstance(body, UndoRecord) and body.columns == (b"ABCDEF",)


def test_undo_urp_null_columns_take_no_field() -> None:
    kdo = (
        kdo_base(0x05) + bytes([0x2C, 0, 0, 0]) + le("H", 1) + bytes([3, 3]) + le("h", 0) + bytes([0b010, 0])
    )
    fields = (KTUDB, KTUBL, KTB_Z, kdo, le("HHH", 0, 1, 2), b"\xc1\x02", b"", b"ab", SUPP_INSERT)
    body = parse_body(5, 1, 0, fields, 36, L19)
    assert isinstance(body, UndoRecord)
    assert (body.positions, body.columns) == ((0, 1, 2), (b"\xc1\x02", None, b"ab"))
    assert body.supplemental is not None


def test_redo_irp_of_the_worked_example() -> None:
    ktb_f = bytes([0x01, 0x0D]) + bytes(6) + le("HHI", 10, 12, 572) + le("IHB", 0x66F, 0xCE, 4) + b"\0"
    kdo = bytearray(kdo_base(0x02) + bytes(33))
    kdo[16], kdo[18] = 0x2C, 2
    kdo[40:42] = le("H", 9)
    kdo[42:44] = le("H", 5)
    body = parse_body(11, 2, 0, (ktb_f, bytes(kdo), b"\xc1\x02", b"AB"), 1, L19)
    assert isinstance(body, RowOperation)
    assert (body.ktb.xid if body.ktb else None, body.kdo.slot, body.columns) == (
        Xid(10, 12, 572),
        5,
        (b"\xc1\x02", b"AB"),
    )


def test_redo_irp_null_column_with_bytes_is_a_format_error() -> None:
    kdo = bytearray(kdo_base(0x02) + bytes(33))
    kdo[16], kdo[18], kdo[45] = 0x2C, 2, 0b10
    kdo[40:42] = le("H", 99)
    with pytest.raises(FormatError, match="NULL by the bitmap"):
        parse_body(11, 2, 0, (KTB_Z, bytes(kdo), b"\xc1\x02", b"AB"), 1, L19)


def test_redo_urp_trailing_nulls_take_no_field() -> None:
    kdo = (
        kdo_base(0x05) + bytes([0x2C, 0, 0, 0]) + le("H", 1) + bytes([4, 3]) + le("h", 0) + bytes([0b110, 0])
    )
    body = parse_body(11, 5, 0, (KTB_Z, kdo, le("HHH", 1, 2, 3), b"x"), 1, L19)
    assert isinstance(body, RowOperation) and body.columns == (b"x", None, None)


def test_redo_qmi_rows() -> None:
    kdo = kdo_base(0x0B) + bytes([0, 0, 2, 0]) + le("HH", 0, 1)
    rows = bytes([0x2C, 0, 2, 2, 0xC1, 0x02, 0xFF]) + bytes([0x2C, 0, 1, 1, 0x41])
    body = parse_body(11, 11, 0, (KTB_Z, kdo, le("HH", 7, 5), rows), 1, L19)
    assert isinstance(body, RowOperation)
    assert [(r.fb, r.columns) for r in body.qmi_rows] == [(0x2C, (b"\xc1\x02", None)), (0x2C, (b"A",))]


# -- 5.2 / 5.4 / 5.6 / 5.11 / 5.19 / 5.20 / 19.1 / 24.1 ----------------------------------------


def test_transaction_begin_with_container_uid() -> None:
    ktudh = pad(le("HHI", 12, 0, 572) + le("IHB", 0x66F, 0xCE, 4) + b"\0" + le("HH", 0x452, 160) + b"\0", 32)
    body = parse_body(5, 2, 0, (ktudh, le("I", 1385559638)), 15 + 2 * 10, L19)
    assert isinstance(body, TransactionBegin)
    assert (body.xid, body.uba, body.flg, body.siz, body.con_uid) == (
        Xid(10, 12, 572),
        Uba(0x66F, 0xCE, 4),
        0x452,
        160,
        1385559638,
    )


def test_transaction_begin_con_uid_after_kteop() -> None:
    ktudh = bytes(32)
    body = parse_body(5, 2, 0, (ktudh, bytes(40), le("I", 7)), 21, L19)
    assert isinstance(body, TransactionBegin) and body.con_uid == 7


@pytest.mark.parametrize(
    ("flg", "extra", "rolled_back", "uba", "unix_time"),
    [
        (
            0x02,
            (pad(le("IHB", 0x66F, 0xCE, 7), 16), le("I", 1772847880)),
            False,
            Uba(0x66F, 0xCE, 7),
            1772847880,
        ),
        (0x00, (le("I", 1772847880),), False, None, 1772847880),
        (0x04, (), True, None, None),
        (0x12, (pad(le("IHB", 1, 2, 3), 16), bytes(24), le("I", 5)), False, Uba(1, 2, 3), 5),
    ],
    ids=["commit-ktucf", "commit", "rollback", "commit-ktucf-24b"],
)
def test_transaction_end(
    flg: int, extra: tuple[bytes, ...], rolled_back: bool, uba: Uba | None, unix_time: int | None
) -> None:
    ktucm = pad(le("HHI", 12, 0, 572) + le("HH", 0, 0) + le("I", 9) + bytes([flg]), 20)
    body = parse_body(5, 4, 0, (ktucm, *extra), 35, L19)
    assert isinstance(body, TransactionEnd)
    assert (body.xid, body.sta, body.rolled_back, body.uba, body.unix_time) == (
        Xid(10, 12, 572),
        9,
        rolled_back,
        uba,
        unix_time,
    )


@pytest.mark.parametrize("code", [6, 11])
def test_partial_rollback(code: int) -> None:
    ktub = le("IIII", 5, 6, 0, 0) + bytes([11, 1, 9, 0]) + le("HH", 0x10, 0)
    body = parse_body(5, code, 0, (ktub, bytes(8)), 15 + 2 * 4, L19)
    assert isinstance(body, PartialRollback) and (body.usn, body.slt, body.obj, body.opc, body.flg) == (
        4,
        9,
        5,
        (11, 1),
        0x10,
    )


@pytest.mark.parametrize(("layout", "session"), [(L11, 3), (L19, 70000)], ids=["11g-u16", "19c-u32"])
def test_session_start(layout: FileLayout, session: int) -> None:
    first = le("HHI", 3, 30151, 70000)
    fields = (
        first,
        b"SYS",
        b"",
        b"",
        b"oracle",
        b"host",
        b"",
        b"267",
        b"oracle@host (GEN0)",
        b"",
        le("HH", 4, 0) + bytes(4),
        le("I", 385875968),
        le("I", 0),
        b"",
    )
    body = parse_body(5, 19, 6, fields, 0, layout)
    assert isinstance(body, SessionInfo)
    assert (body.session, body.serial, body.current_user, body.program, body.flags, body.version) == (
        session,
        30151,
        "SYS",
        "oracle@host (GEN0)",
        4,
        385875968,
    )


def test_session_continue() -> None:
    fields = (
        le("HH", 50, 99),
        b"",
        le("H", 0) + b"\0\0",
        le("I", 186647296),
        le("I", 210055),
        b"",
        b"",
        b"US01",
    )
    body = parse_body(5, 20, 6, fields, 0, L11)
    assert isinstance(body, SessionInfo) and (
        body.session,
        body.serial,
        body.version,
        body.audit_session_id,
        body.login_user,
    ) == (50, 99, 186647296, 210055, "US01")


def test_invalid_utf8_in_session_strings_is_kept_escaped() -> None:
    body = parse_body(5, 20, 6, (le("HH", 1, 2), b"\xff\xfe"), 0, L19)
    assert isinstance(body, SessionInfo) and body.transaction_name == "\\xff\\xfe"


def test_direct_load_block() -> None:
    f = le("I", 99) + b"0123456789" + bytes(10) + le("II", 7, 0x1234) + bytes(4) + b"DATA"
    body = parse_body(19, 1, 0, (f,), 1, L19)
    assert isinstance(body, DirectLoadBlock) and (
        body.dataobj,
        body.lob_id,
        body.page_no,
        body.pdba,
        body.data,
    ) == (99, b"0123456789", 7, 0x1234, b"DATA")


def test_ddl() -> None:
    f = bytes(4) + le("HHI", 3, 4, 5) + le("HH", 1, 0) + le("HHH", 1, 1, 1)
    fields = (
        f,
        b"SCOTT",
        b"",
        b"",
        b"",
        b"",
        b"",
        b"create table t (x number)\0",
        b"",
        b"",
        b"",
        le("I", 4242),
    )
    body = parse_body(24, 1, 0, fields, 0, L19)
    assert isinstance(body, Ddl) and (body.xid, body.ddl_type, body.schema, body.text, body.obj) == (
        Xid(3, 4, 5),
        1,
        "SCOTT",
        "create table t (x number)",
        4242,
    )


@pytest.mark.parametrize(
    ("layer", "code", "typ", "category"),
    [
        (10, 2, 0, "index"),
        (13, 59, 0, "space"),
        (26, 3, 0, "lob"),
        (4, 1, 0, "cleanout"),
        (22, 15, 0, "space"),
        (23, 1, 0, "block_write"),
        (99, 1, 0, "unknown"),
        (11, 2, 0x80, "encrypted"),
    ],
    ids=["10.2", "13.59", "26.3", "4.1", "22.15", "23.1", "99.1", "encrypted-11.2"],
)
def test_other_opcodes_are_opaque_never_errors(layer: int, code: int, typ: int, category: str) -> None:
    body = parse_body(layer, code, typ, (b"\xff",), 1, L19)
    assert isinstance(body, Opaque) and body.category == category


@pytest.mark.parametrize(
    ("opcode", "fields"),
    [((5, 1), (b"x",)), ((5, 2), (bytes(31),)), ((5, 4), ()), ((11, 2), (KTB_Z,)), ((24, 1), (bytes(17),))],
)
def test_short_bodies_of_parsed_opcodes_raise_format_error(
    opcode: tuple[int, int], fields: tuple[bytes, ...]
) -> None:
    with pytest.raises(FormatError):
        parse_body(*opcode, 0, fields, 21, L19)


# -- vectors (§4) -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("layout", "wide"),
    [(L19, True), (L11, False), (B19, True)],
    ids=["32-byte-header", "24-byte-header", "big-endian"],
)
def test_vector_header_and_aligned_fields(layout: FileLayout, wide: bool) -> None:
    data = vector(13, 59, [b"abc", b"", b"12345"], wide=wide, big=layout.big_endian) + vector(
        10, 2, [b"x"], wide=wide, big=layout.big_endian
    )
    (first, second) = parse_vectors(layout, record(layout, data))
    assert (first.opcode, first.fields, first.afn, first.dba, first.scn, first.seq, first.change_type) == (
        (13, 59),
        (b"abc", b"", b"12345"),
        7,
        0x0100000E,
        0x229606,
        1,
        2,
    )
    assert first.obj == 0x0001_1C16 and first.con_id == (3 if wide else 0)
    assert (second.index, second.opcode, second.offset) == (
        2,
        (10, 2),
        RECORD_HEADER + len(data) - len(vector(10, 2, [b"x"], wide=wide)),
    )


def test_field_running_past_the_record_is_a_format_error_with_its_offset() -> None:
    data = record(L19, vector(13, 59, [b"abcdefgh"]))
    data = (len(data) - 4).to_bytes(4, "little") + data[4:-4]
    with pytest.raises(FormatError, match="runs past the record") as info:
        parse_vectors(L19, data)
    assert info.value.position.offset == RECORD_HEADER + 36


def test_vector_header_cut_by_the_record_end_is_a_format_error() -> None:
    data = record(L19, vector(13, 59, [b"a"]), bytes(8))
    with pytest.raises(FormatError, match="header cut"):
        parse_vectors(L19, data)


def test_body_errors_name_the_opcode_and_change_number() -> None:
    data = record(L19, vector(5, 2, [bytes(10)]))
    with pytest.raises(FormatError) as info:
        parse_vectors(L19, data)
    assert info.value.details["opcode"] == "5.2" and info.value.details["change"] == 1
