"""Db2 LOB manager log records (seed 004): the byte layout of tables 1-3, both directions.

Expected field positions and values come from the seed's tables (offsets in bytes), not from the
decoder: records are written by hand or by the writer and checked byte by byte against them.
"""

from __future__ import annotations

import dataclasses
import struct

import pytest
from hypothesis import given
from hypothesis import strategies as st

from redo_lib.db2.records import (
    ByteOrder,
    LobLogRecordHeader,
    LobOperation,
    LobRecord,
    OriginalOperation,
    iter_lob_records,
    parse_lob_header,
    parse_lob_record,
)
from redo_lib.db2.writer import write_lob_header, write_lob_record, write_lob_records
from redo_lib.errors import FormatError, TruncatedLogError, UnsupportedFormatError

# T1 (C1 INT, C2 CHAR(30), C3 CLOB, C4 CLOB): C3 is column 2 (column numbers start at 0)
C3 = 2


def header(op: LobOperation = LobOperation.ADD_LOB_DATA) -> LobLogRecordHeader:
    return LobLogRecordHeader(operation=op, tablespace=3, obj=41, parent_tablespace=2, parent_obj=40)


def add_data(
    data: bytes, *, column: int = C3, original: OriginalOperation = OriginalOperation.INSERT
) -> LobRecord:
    return LobRecord(
        header=header(),
        lob_length=len(data),
        byte_offset=0,
        original_operation=original,
        column=column,
        data=data,
    )


# seed table 3 by hand, little endian: header (5, 64, ts 3, obj 41, parent ts 2, parent obj 40, internal),
# LOB length 5, byte offset 0, internal, original op 1 (insert), column 2, internal, then "hello"
HAND_WRITTEN = (
    bytes([5, 64]) + struct.pack("<HHHH", 3, 41, 2, 40) + b"\x00\x00"
    + struct.pack("<I", 5) + struct.pack("<Q", 0) + b"\x00" + bytes([1]) + struct.pack("<H", 2) + b"\x00" * 4
    + b"hello"
)  # fmt: skip


def test_hand_written_add_lob_data_record_reads_as_the_seed_lays_it_out() -> None:
    record = parse_lob_record(HAND_WRITTEN)
    assert record.header == header()
    assert record.operation is LobOperation.ADD_LOB_DATA
    assert (record.lob_length, record.byte_offset, record.column) == (5, 0, C3)
    assert record.original_operation is OriginalOperation.INSERT
    assert record.data == b"hello"
    assert record.size == len(HAND_WRITTEN) == 32 + 5


def test_writer_produces_the_hand_written_bytes() -> None:
    assert write_lob_record(add_data(b"hello")) == HAND_WRITTEN


def test_header_is_twelve_bytes_with_originator_five_and_operation_type_at_offset_one() -> None:
    raw = write_lob_header(header(LobOperation.ADD_LOB_AMOUNT))
    assert len(raw) == 12
    assert raw[0] == 5 and raw[1] == 65
    assert struct.unpack_from("<HHHH", raw, 2) == (3, 41, 2, 40)


def test_fields_sit_at_the_seed_offsets_in_big_endian() -> None:
    record = LobRecord(
        header=header(), lob_length=3, byte_offset=32768, original_operation=OriginalOperation.CONCAT,
        column=65535, data=b"abc",
    )  # fmt: skip
    raw = write_lob_record(record, byteorder="big")
    assert raw[12:16] == (3).to_bytes(4, "big")  # offset 12: LOB length
    assert raw[16:24] == (32768).to_bytes(8, "big")  # offset 16: byte offset
    assert raw[25] == 8  # offset 25: original operation type, concat
    assert raw[26:28] == b"\xff\xff"  # offset 26: column identifier 65535
    assert raw[32:] == b"abc"  # offset 32: LOB data
    back = parse_lob_record(raw, byteorder="big")
    assert (back.lob_length, back.byte_offset, back.column, back.data) == (3, 32768, 65535, b"abc")


def test_add_lob_amount_record_has_no_data_and_keeps_the_length() -> None:
    # NOT LOGGED column: an add LOB amount record stands for 100000 bytes that are not logged
    amount = LobRecord(
        header=header(LobOperation.ADD_LOB_AMOUNT), lob_length=100_000, byte_offset=0,
        original_operation=OriginalOperation.INSERT, column=C3,
    )  # fmt: skip
    raw = write_lob_record(amount)
    assert len(raw) == 32
    record = parse_lob_record(raw)
    assert record.operation is LobOperation.ADD_LOB_AMOUNT
    assert record.lob_length == 100_000 and record.data == b""


def test_records_back_to_back_are_read_with_their_offsets() -> None:
    first, second = add_data(b"C3 text"), add_data(b"C4", column=3)
    stream = write_lob_records([first, second])
    records = list(iter_lob_records(stream))
    assert [r.data for r in records] == [b"C3 text", b"C4"]
    assert [r.column for r in records] == [C3, 3]
    assert [r.offset for r in records] == [0, 32 + 7]


# -- malformed input -----------------------------------------------------------------------------


@pytest.mark.parametrize("cut", range(1, 12))
def test_truncated_header_raises_with_its_offset(cut: int) -> None:
    stream = write_lob_record(add_data(b"x")) + HAND_WRITTEN[:cut]
    with pytest.raises(TruncatedLogError) as info:
        list(iter_lob_records(stream))
    assert info.value.position.offset == 33  # the second record starts after 32 + 1 bytes
    assert "header" in info.value.message


@pytest.mark.parametrize("cut", range(12, 32))
def test_truncated_fixed_part_raises_with_the_record_offset(cut: int) -> None:
    with pytest.raises(TruncatedLogError) as info:
        parse_lob_record(HAND_WRITTEN[:cut])
    assert info.value.position.offset == 0


@pytest.mark.parametrize("cut", range(32, len(HAND_WRITTEN)))
def test_lob_length_past_the_end_is_a_bad_length_at_offset_12(cut: int) -> None:
    stream = b"\x00" * 7 + HAND_WRITTEN[:cut]
    with pytest.raises(TruncatedLogError) as info:
        parse_lob_record(stream, 7)
    assert info.value.position.offset == 7 + 12
    assert info.value.details["lob_length"] == 5


@pytest.mark.parametrize("op", [LobOperation.ADD_LOB_DATA, LobOperation.ADD_LOB_AMOUNT])
def test_zero_lob_length_is_a_bad_length(op: LobOperation) -> None:
    # seed: "The LOB manager never writes log records for zero length LOB data"
    raw = bytearray(HAND_WRITTEN[:32])
    raw[1] = op
    raw[12:16] = b"\x00\x00\x00\x00"
    with pytest.raises(FormatError, match="bad LOB length") as info:
        parse_lob_record(bytes(raw))
    assert info.value.position.offset == 12


def test_wrong_originator_code_is_rejected_at_the_record_offset() -> None:
    raw = b"\x00" * 4 + bytes([1]) + HAND_WRITTEN[1:]
    with pytest.raises(FormatError, match="originator") as info:
        parse_lob_header(raw, 4)
    assert info.value.position.offset == 4


def test_unknown_operation_type_is_unsupported_at_offset_one() -> None:
    raw = HAND_WRITTEN[:1] + bytes([68]) + HAND_WRITTEN[2:]
    with pytest.raises(UnsupportedFormatError) as info:
        parse_lob_record(raw)
    assert info.value.position.offset == 1


def test_unknown_original_operation_is_rejected_at_offset_25() -> None:
    raw = HAND_WRITTEN[:25] + bytes([3]) + HAND_WRITTEN[26:]
    with pytest.raises(FormatError, match="original operation") as info:
        parse_lob_record(raw)
    assert info.value.position.offset == 25


def test_writer_refuses_data_that_does_not_match_the_lob_length() -> None:
    bad = LobRecord(
        header=header(), lob_length=9, byte_offset=0, original_operation=OriginalOperation.INSERT, column=C3,
        data=b"short",
    )  # fmt: skip
    with pytest.raises(FormatError):
        write_lob_record(bad)


def test_writer_refuses_a_value_too_large_for_its_field() -> None:
    bad = add_data(b"x", column=65536)
    with pytest.raises(FormatError):
        write_lob_record(bad)


# -- round trip ----------------------------------------------------------------------------------

u16 = st.integers(0, 0xFFFF)


@st.composite
def lob_records(draw: st.DrawFn) -> LobRecord:
    op = draw(st.sampled_from(LobOperation))
    data = draw(st.binary(min_size=1, max_size=64)) if op is LobOperation.ADD_LOB_DATA else b""
    info_only = op in (LobOperation.DELETE_LOB_DATA, LobOperation.NON_UPDATE_LOB_DATA)
    length = len(data) if data else draw(st.integers(0 if info_only else 1, 0xFFFFFFFF))
    return LobRecord(
        header=LobLogRecordHeader(
            operation=op, tablespace=draw(u16), obj=draw(u16), parent_tablespace=draw(u16),
            parent_obj=draw(u16), internal=draw(st.binary(min_size=2, max_size=2)),
        ),
        lob_length=length, byte_offset=draw(st.integers(0, 2**64 - 1)),
        original_operation=draw(st.sampled_from(OriginalOperation)), column=draw(u16), data=data,
        internal_24=draw(st.binary(min_size=1, max_size=1)), internal_28=draw(st.binary(min_size=4, max_size=4)),
    )  # fmt: skip


@given(st.lists(lob_records(), max_size=6), st.sampled_from(["little", "big"]))
def test_writer_then_reader_is_the_identity(records: list[LobRecord], byteorder: ByteOrder) -> None:
    stream = write_lob_records(records, byteorder=byteorder)
    back = list(iter_lob_records(stream, byteorder=byteorder))
    offsets = [sum(r.size for r in records[:i]) for i in range(len(records))]
    assert back == [dataclasses.replace(r, offset=o) for r, o in zip(records, offsets, strict=True)]
