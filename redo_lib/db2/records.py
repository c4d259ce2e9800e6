"""Db2 LOB manager log records (seed 004): bytes -> ``LobLogRecordHeader`` and ``LobRecord``.

Layout, from the seed (offsets in bytes):

- ``LOBLogRecordHeader`` (seed table 1), 12 bytes: 0 u8 originator code (component identifier,
  always 5); 1 u8 operation type (table 2); 2 u16 table space identifier; 4 u16 object identifier;
  6 u16 parent table space identifier; 8 u16 parent object identifier; 10 two internal bytes.
- Add LOB data / add LOB amount record (seed table 3): 0 the header; 12 u32 LOB length; 16 u64 byte
  offset into the LOB data object; 24 one internal byte; 25 u8 original operation type (1 insert,
  2 delete, 4 update, 8 concat); 26 u16 column identifier (from 0; 65535 = the consolidated
  out-of-row varying-length strings, see ``strings``); 28 four internal bytes; 32 the LOB data.

Assumptions where the seed is silent (see docs/db2-lobs.md):

- Byte order of the multi-byte fields is not given: the log is read in the byte order of the server
  that wrote it, passed as ``byteorder`` (default ``"little"``, x86-64 Linux and Windows).
- The record's extent is not given by the record itself (in a real log the log manager header that
  wraps it carries the total length). Here: an add LOB data record is the 32-byte fixed part plus
  exactly ``lob_length`` data bytes; an add LOB amount record is the 32-byte fixed part only (the
  seed: it "does not contain any actual LOB data"); the information-only delete and non-update
  records (types 66, 67) are read with the same 32-byte fixed part and no data (the seed gives them
  an original operation type and a column identifier, so they share table 3's fixed part; their
  LOB length is kept, not interpreted). ``iter_lob_records`` reads such records back to back.
- Internal fields are kept as raw bytes so that ``writer`` reproduces a record exactly.

The seed says the LOB manager never writes a log record for zero-length LOB data, so an add LOB data
or add LOB amount record with LOB length 0 is rejected as a bad length (it also betrays a record
read in the wrong byte order or at the wrong place).

Contract: on bad input the public functions raise only ``FormatError`` subclasses whose
``Position.offset`` is the byte offset of the offending field in the input.

Layer: imports only ``errors``.
"""

from __future__ import annotations

import enum
import struct
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Literal, final

from redo_lib.errors import FormatError, Position, TruncatedLogError, UnsupportedFormatError

ByteOrder = Literal["little", "big"]

ORIGINATOR_LOB_MANAGER = 5  # header offset 0: component identifier of the LOB manager (seed table 1)
HEADER_SIZE = 12  # "The total length of the LOB manager log record header is 12 bytes."
FIXED_SIZE = 32  # seed table 3: the LOB data starts at offset 32
VARYING_STRINGS_COLUMN = 65535  # seed table 3 note 4

# offset 0 u8 originator, 1 u8 operation, 2..9 four u16 ids, 10 internal (seed table 1)
HEADER_LAYOUT = {"little": struct.Struct("<BBHHHH2s"), "big": struct.Struct(">BBHHHH2s")}
# offset 12 u32 LOB length, 16 u64 byte offset, 24 internal, 25 u8 original op, 26 u16 column,
# 28 internal (seed table 3)
BODY_LAYOUT = {"little": struct.Struct("<IQ1sBH4s"), "big": struct.Struct(">IQ1sBH4s")}


class LobOperation(enum.IntEnum):
    """Header offset 1: operation type (seed table 2)."""

    ADD_LOB_DATA = 64
    ADD_LOB_AMOUNT = 65
    DELETE_LOB_DATA = 66  # information only
    NON_UPDATE_LOB_DATA = 67  # information only


class OriginalOperation(enum.IntEnum):
    """Record offset 25: the table operation that caused the LOB record (seed table 3 note 3)."""

    INSERT = 1
    DELETE = 2
    UPDATE = 4
    CONCAT = 8


INFORMATION_ONLY = frozenset({LobOperation.DELETE_LOB_DATA, LobOperation.NON_UPDATE_LOB_DATA})
_OPERATIONS = frozenset(int(op) for op in LobOperation)
_ORIGINAL_OPERATIONS = frozenset(int(op) for op in OriginalOperation)


@final
@dataclass(frozen=True, slots=True, kw_only=True)
class LobLogRecordHeader:
    """``LOBLogRecordHeader`` (seed table 1): which LOB object, of which table, and what operation.

    ``tablespace``/``obj`` name the LOB data object; ``parent_tablespace``/``parent_obj`` the table it
    belongs to. ``originator`` is always 5 (the LOB manager).
    """

    originator: int = ORIGINATOR_LOB_MANAGER
    operation: LobOperation
    tablespace: int
    obj: int
    parent_tablespace: int
    parent_obj: int
    internal: bytes = b"\x00\x00"


@final
@dataclass(frozen=True, slots=True, kw_only=True)
class LobRecord:
    """One LOB manager log record (seed table 3) and where it starts in the input (``offset``).

    ``data`` holds the LOB data of an add LOB data record; it is empty for the other types (an add
    LOB amount record's ``lob_length`` is the amount of NOT LOGGED data it stands for).
    """

    header: LobLogRecordHeader
    lob_length: int
    byte_offset: int
    original_operation: OriginalOperation
    column: int
    data: bytes = b""
    internal_24: bytes = b"\x00"
    internal_28: bytes = b"\x00\x00\x00\x00"
    offset: int = 0

    @property
    def operation(self) -> LobOperation:
        return self.header.operation

    @property
    def size(self) -> int:
        """Bytes the record occupies in the input (see the module docstring for the extent rule)."""
        return FIXED_SIZE + len(self.data)


def parse_lob_header(data: bytes, offset: int = 0, *, byteorder: ByteOrder = "little") -> LobLogRecordHeader:
    """Parse the 12-byte ``LOBLogRecordHeader`` at ``offset``.

    Raises ``TruncatedLogError`` if fewer than 12 bytes remain, ``FormatError`` if the originator
    code is not 5, ``UnsupportedFormatError`` for an operation type outside seed table 2.
    """
    layout = HEADER_LAYOUT[byteorder]
    if offset < 0 or len(data) - offset < HEADER_SIZE:
        raise TruncatedLogError(
            "input ends inside a LOB manager log record header",
            position=Position(offset=offset),
            needed=HEADER_SIZE,
            available=max(0, len(data) - offset),
        )
    originator, operation, tablespace, obj, parent_tablespace, parent_obj, internal = layout.unpack_from(
        data, offset
    )
    if originator != ORIGINATOR_LOB_MANAGER:
        raise FormatError(
            "not a LOB manager log record: originator code is not 5",
            position=Position(offset=offset),
            originator=originator,
        )
    if operation not in _OPERATIONS:
        raise UnsupportedFormatError(
            "unknown LOB manager operation type",
            position=Position(offset=offset + 1),
            operation=operation,
        )
    return LobLogRecordHeader(
        originator=originator,
        operation=LobOperation(operation),
        tablespace=tablespace,
        obj=obj,
        parent_tablespace=parent_tablespace,
        parent_obj=parent_obj,
        internal=internal,
    )


def parse_lob_record(data: bytes, offset: int = 0, *, byteorder: ByteOrder = "little") -> LobRecord:
    """Parse the LOB manager log record starting at ``offset``; ``result.size`` bytes are consumed.

    Raises ``TruncatedLogError`` when the input ends inside the fixed part or inside the LOB data
    (the LOB length promises more bytes than there are), ``FormatError`` for a zero LOB length on an
    add LOB data / add LOB amount record or an original operation type outside 1, 2, 4, 8, and what
    ``parse_lob_header`` raises. Every error's position is the byte offset of the field at fault.
    """
    header = parse_lob_header(data, offset, byteorder=byteorder)
    body = offset + HEADER_SIZE
    if len(data) - offset < FIXED_SIZE:
        raise TruncatedLogError(
            "input ends inside a LOB manager log record's fixed part",
            position=Position(offset=offset),
            needed=FIXED_SIZE,
            available=len(data) - offset,
            operation=header.operation.name,
        )
    lob_length, byte_offset, internal_24, original, column, internal_28 = BODY_LAYOUT[byteorder].unpack_from(
        data, body
    )
    if original not in _ORIGINAL_OPERATIONS:
        raise FormatError(
            "unknown original operation type (expected 1, 2, 4 or 8)",
            position=Position(offset=offset + 25),
            original_operation=original,
        )
    if lob_length == 0 and header.operation not in INFORMATION_ONLY:
        raise FormatError(
            "bad LOB length 0: the LOB manager never logs zero-length LOB data",
            position=Position(offset=offset + 12),
            operation=header.operation.name,
        )
    payload = b""
    if header.operation is LobOperation.ADD_LOB_DATA:
        start = offset + FIXED_SIZE
        if len(data) - start < lob_length:
            raise TruncatedLogError(
                "bad LOB length: the record's LOB data runs past the end of the input",
                position=Position(offset=offset + 12),
                lob_length=lob_length,
                available=len(data) - start,
            )
        payload = bytes(data[start : start + lob_length])
    return LobRecord(
        header=header,
        lob_length=lob_length,
        byte_offset=byte_offset,
        original_operation=OriginalOperation(original),
        column=column,
        data=payload,
        internal_24=internal_24,
        internal_28=internal_28,
        offset=offset,
    )


def iter_lob_records(data: bytes, start: int = 0, *, byteorder: ByteOrder = "little") -> Iterator[LobRecord]:
    """The LOB manager log records written back to back in ``data`` from ``start`` to its end.

    Raises what ``parse_lob_record`` raises, at the first record that does not read.
    """
    offset = start
    while offset < len(data):
        record = parse_lob_record(data, offset, byteorder=byteorder)
        yield record
        offset += record.size
