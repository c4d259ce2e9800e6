"""Block 0 (file header) and block 1 (redo log header) -> ``LogHeader`` (redo-format §1.2-§1.4).

Pure: takes the first bytes of the file (at least two blocks; ``HEADER_PROBE_SIZE`` is always
enough) and returns a frozen value. Layer 1.
"""

from __future__ import annotations

import datetime as dt

from redo_lib.errors import FormatError, Position, TruncatedLogError, UnsupportedFormatError, locate
from redo_lib.format.blocks import check_blocks, checksum_ok
from redo_lib.format.layout import VALID_BLOCK_TYPES, FileLayout, decode_redo_time, parse_full_scn
from redo_lib.format.model import LogHeader
from redo_lib.scn import NO_SCN

HEADER_PROBE_SIZE = 2 * 4096  # OLR reads two max-size pages first (§1.3 step 1)
MAGIC_LE = b"\x7d\x7c\x7b\x7a"
MAGIC_BE = b"\x7a\x7b\x7c\x7d"


def detect_layout(data: bytes, name: str | None = None) -> tuple[FileLayout, int]:
    """Endianness and block size from block 0 (§1.3 steps 2-4) -> (layout without compat, file type)."""
    if len(data) < 32:
        raise TruncatedLogError(
            f"file too short for a redo log header ({len(data)} bytes)",
            position=Position(file=name, offset=0),
        )
    if data[0] != 0:
        raise FormatError(
            f"not a redo log: byte 0 is 0x{data[0]:02x}, expected 0x00",
            position=Position(file=name, block=0, offset=0),
        )
    magic = bytes(data[28:32])
    if magic == MAGIC_LE:
        big = False
    elif magic == MAGIC_BE:
        big = True
    else:
        raise FormatError(
            f"not a redo log: wrong magic {magic.hex()} at bytes 28-31",
            position=Position(file=name, block=0, offset=28),
        )
    file_type = data[1]
    block_size = int.from_bytes(data[20:24], "big" if big else "little")
    if (block_size, file_type) not in VALID_BLOCK_TYPES:
        raise UnsupportedFormatError(
            f"unsupported block size {block_size} with file type 0x{file_type:02x}",
            position=Position(file=name, block=0, offset=20),
        )
    return FileLayout(big_endian=big, block_size=block_size), file_type


def parse_log_header(data: bytes, name: str | None = None) -> LogHeader:
    """Parse blocks 0 and 1 of an archived redo log (redo-format §1.2, §1.4).

    ``data`` must hold at least the first two blocks (pass ``HEADER_PROBE_SIZE`` bytes, or the whole
    file when smaller). Block 0's magic decides the byte order; block 1 is checked like any redo
    block (signature, number 1, checksum) and block 0 must pass the §2.1 checksum too (it does in
    every real file). Raises only ``RedoError`` subclasses, with file/block/offset.
    """
    try:
        return _parse_log_header(data, name)
    except FormatError as exc:
        raise locate(exc, file=name) from None


def _parse_log_header(data: bytes, name: str | None) -> LogHeader:
    base, file_type = detect_layout(data, name)
    size = base.block_size
    if len(data) < 2 * size:
        raise TruncatedLogError(
            f"file too short for two {size}-byte header blocks ({len(data)} bytes)",
            position=Position(block=1, offset=0),
        )
    if not checksum_ok(memoryview(data)[:size]):
        raise FormatError("block 0 checksum mismatch", position=Position(block=0, offset=16))
    b1 = bytes(data[size : 2 * size])
    s = base.s
    u32 = s.u32.unpack_from
    u16 = s.u16.unpack_from
    sequence = u32(b1, 8)[0]
    bad = check_blocks(b1, 1, base, sequence)
    if bad:
        raise bad[1]
    compat = u32(b1, 20)[0]
    layout = FileLayout(big_endian=base.big_endian, block_size=size, compat_version=compat)
    where = Position(sequence=sequence, block=1)

    def scn(offset: int) -> int:
        return parse_full_scn(b1, offset, layout)

    def time(offset: int) -> dt.datetime:
        return decode_redo_time(u32(b1, offset)[0], where)

    next_scn = scn(192)
    real_next = scn(272)
    return LogHeader(
        big_endian=layout.big_endian,
        block_size=size,
        block_count=u32(data, 24)[0],
        file_type=file_type,
        compat_version=compat,
        dbid=u32(b1, 24)[0],
        db_name=_text(b1[28:36]),
        control_seq=u32(b1, 36)[0],
        file_size=u32(b1, 40)[0],
        file_number=u16(b1, 48)[0],
        activation_id=u32(b1, 52)[0],
        description=_text(b1[92:156]),
        nab=u32(b1, 156)[0],
        resetlogs_id=u32(b1, 160)[0],
        resetlogs_scn=scn(164),
        hws=u32(b1, 172)[0],
        thread=u16(b1, 176)[0],
        sequence=sequence,
        first_scn=scn(180),
        first_time=time(188),
        next_scn=None if next_scn == NO_SCN else next_scn,
        next_time=time(200),
        enabled_scn=scn(208),
        enabled_time=time(216),
        thread_closed_scn=scn(220),
        thread_closed_time=time(228),
        misc_flags=u32(b1, 236)[0],
        terminal_recovery_scn=scn(240),
        terminal_recovery_time=time(248),
        most_recent_scn=scn(260),
        largest_lwn=u32(b1, 268)[0],
        real_next_scn=None if real_next == NO_SCN else real_next,
        prev_resetlogs_scn=scn(284),
        prev_resetlogs_id=u32(b1, 292)[0],
        misc_flags2=u32(b1, 296)[0],
        zero_blocks=b1[206],
        format_id=b1[207],
        eot=b1[204],
        dis=b1[205],
        checksum=u16(b1, 14)[0],
    )


def _text(raw: bytes) -> str:
    """NUL-padded ASCII header text; undecodable bytes are kept as escapes (never an exception)."""
    return raw.split(b"\0", 1)[0].decode("ascii", "backslashreplace")


def file_layout(header: LogHeader) -> FileLayout:
    """The ``FileLayout`` a parsed header implies."""
    return FileLayout(
        big_endian=header.big_endian, block_size=header.block_size, compat_version=header.compat_version
    )
