"""The inverse of ``records`` and ``strings``: Db2 LOB manager log records and the column-65535
structure as bytes, in the layout those modules document (seed 004, with their assumptions).

Used by tests and scenario builders to write the seed's log flows as byte streams. The writer does
not invent values: the caller supplies every field (``LobRecord`` defaults are zero internals).

On a model that cannot be written as read back (a value that does not fit its field, data that does
not match the LOB length, data on a record type that carries none) the functions raise
``FormatError``; they never raise ``struct.error``.

Layer: imports ``errors`` and this package's ``records`` and ``strings``.
"""

from __future__ import annotations

import struct
from collections.abc import Iterable

from redo_lib.db2.records import (
    BODY_LAYOUT,
    HEADER_LAYOUT,
    ByteOrder,
    LobLogRecordHeader,
    LobOperation,
    LobRecord,
)
from redo_lib.db2.strings import EYE_CATCHER, OFFSET_ENTRY_SIZE, VaryingStrings
from redo_lib.errors import FormatError


def write_lob_header(header: LobLogRecordHeader, *, byteorder: ByteOrder = "little") -> bytes:
    """The 12-byte ``LOBLogRecordHeader`` (seed table 1)."""
    _check_internal(header.internal, 2, "header offset 10")
    return _pack(
        HEADER_LAYOUT[byteorder],
        header.originator,
        header.operation,
        header.tablespace,
        header.obj,
        header.parent_tablespace,
        header.parent_obj,
        header.internal,
    )


def write_lob_record(record: LobRecord, *, byteorder: ByteOrder = "little") -> bytes:
    """One record: header, the fixed part of seed table 3, then the LOB data of an add LOB data
    record (``record.offset`` is not written: it is where the record was read from)."""
    if record.operation is LobOperation.ADD_LOB_DATA:
        if len(record.data) != record.lob_length:
            raise FormatError(
                "add LOB data record: data length differs from its LOB length",
                lob_length=record.lob_length,
                data=len(record.data),
            )
    elif record.data:
        raise FormatError("only an add LOB data record carries LOB data", operation=record.operation.name)
    _check_internal(record.internal_24, 1, "record offset 24")
    _check_internal(record.internal_28, 4, "record offset 28")
    body = _pack(
        BODY_LAYOUT[byteorder],
        record.lob_length,
        record.byte_offset,
        record.internal_24,
        record.original_operation,
        record.column,
        record.internal_28,
    )
    return write_lob_header(record.header, byteorder=byteorder) + body + record.data


def write_lob_records(records: Iterable[LobRecord], *, byteorder: ByteOrder = "little") -> bytes:
    """Records back to back, as ``records.iter_lob_records`` reads them."""
    return b"".join(write_lob_record(r, byteorder=byteorder) for r in records)


def write_varying_strings(value: VaryingStrings, *, offset_byteorder: ByteOrder = "big") -> bytes:
    """The consolidated structure: eye-catcher 0x12, 3-byte big-endian size, offsets, data portion."""
    size = value.size
    if size >= 1 << 24:
        raise FormatError("varying-length string structure larger than its 3-byte size field", size=size)
    try:
        offsets = b"".join(o.to_bytes(OFFSET_ENTRY_SIZE, offset_byteorder) for o in value.offsets)
    except OverflowError as exc:
        raise FormatError("an offset does not fit its 4-byte entry", offsets=value.offsets) from exc
    return bytes([EYE_CATCHER]) + size.to_bytes(3, "big") + offsets + value.data


def _pack(layout: struct.Struct, *values: object) -> bytes:
    try:
        return layout.pack(*values)
    except struct.error as exc:
        raise FormatError(f"value does not fit its field ({layout.format})", values=values) from exc


def _check_internal(value: bytes, size: int, field: str) -> None:
    """``struct`` would pad or cut a wrong-sized internal field silently: refuse it instead."""
    if len(value) != size:
        raise FormatError(f"internal field at {field} must be {size} bytes", length=len(value))
