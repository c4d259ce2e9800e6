"""Redo record header (24 bytes, or 68 with an LWN header) -> ``RedoRecord`` (redo-format §3.2,
§3.3); the change vectors come from ``vectors.py``.

Pure function over one reassembled record (block headers already removed). Layer 1.
"""

from __future__ import annotations

from redo_lib.errors import FormatError, Position
from redo_lib.format.layout import (
    LWN_RECORD_HEADER_SIZE,
    RECORD_HEADER_SIZE,
    FileLayout,
    decode_redo_time,
    fast_builder,
    parse_full_scn,
    scn_from_wrap_base,
)
from redo_lib.format.model import LwnHeader, RedoRecord
from redo_lib.format.vectors import parse_vectors
from redo_lib.scn import Rba

VLD_VALID = 0x01
VLD_LWN = 0x04
_new_record = fast_builder(RedoRecord)  # positional: all fields in declaration order
_new_lwn = fast_builder(LwnHeader)


def parse_lwn_header(data: bytes, layout: FileLayout, position: Position | None = None) -> LwnHeader:
    """The LWN part of a 68-byte record header (§3.2): number @24, NST @26, length in blocks @28
    (what OLR uses; @32 holds the same value in every real LWN), SCN @40, timestamp @64."""
    if len(data) < LWN_RECORD_HEADER_SIZE:
        raise FormatError(f"LWN record header cut: {len(data)} bytes", position=position)
    s = layout.s
    return _new_lwn(
        s.u16.unpack_from(data, 24)[0],  # number
        s.u16.unpack_from(data, 26)[0],  # nst
        s.u32.unpack_from(data, 28)[0],  # length in blocks
        parse_full_scn(data, 40, layout),
        decode_redo_time(s.u32.unpack_from(data, 64)[0], Position(offset=64)),
    )


def parse_record(
    data: bytes, rba: Rba, *, thread: int, layout: FileLayout, lwn: LwnHeader | None
) -> RedoRecord:
    """One redo record from its bytes (exactly its length). ``lwn`` is the LWN the record belongs
    to (§3.3: its timestamp becomes the record's time); a record carrying its own LWN header uses
    that one instead. A record with neither raises ``FormatError``."""
    length, vld, wrap, base, subscn, con_uid = layout.s.record_header.unpack_from(data, 0)
    if length != len(data):
        raise FormatError(f"record length {length} but {len(data)} bytes given", position=Position(offset=0))
    own = None
    start = RECORD_HEADER_SIZE
    if vld & VLD_LWN:
        own = parse_lwn_header(data, layout, Position(offset=24))
        lwn = own
        start = LWN_RECORD_HEADER_SIZE
    if lwn is None:
        raise FormatError("record outside any LWN: no LWN header before it", position=Position(offset=0))
    return _new_record(
        thread, rba, length, vld, scn_from_wrap_base(wrap, base), subscn, con_uid, lwn.time, own,
        parse_vectors(data, start, length, layout),
    )  # fmt: skip
