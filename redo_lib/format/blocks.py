"""The 16-byte block header and the block checksum (redo-format §2, §2.1).

Checks run over whole ranges of blocks at once: the headers with one ``Struct.iter_unpack`` over the
range, the checksums by folding each block as one big integer (``int.from_bytes`` of its two halves,
then XOR-folding the halves of the result down to 16 bits). Both stay in C for the bulk of the work;
the fold is ~250 MB/s on one core, several times faster than XOR-reducing a ``memoryview`` cast to
``'Q'`` word by word (measured in bench/bench_format.py's profile, see docs/benchmarks.md).

Pure functions over bytes; no I/O. Layer 1.
"""

from __future__ import annotations

import functools
import struct
from dataclasses import dataclass
from typing import final

from redo_lib.errors import BlockHeaderError, ChecksumError, FormatError, Position
from redo_lib.format.layout import BLOCK_HEADER_SIZE, VALID_BLOCK_TYPES, FileLayout

REDO_BLOCK_SIGNATURE = 0x01


@final
@dataclass(frozen=True, slots=True, kw_only=True)
class BlockHeader:
    """Block header (redo-format §2). ``first_offset`` = low 15 bits of the u16 @12: offset of the
    first record that begins in the block, or the end of a record finishing here, or 0."""

    signature: int
    file_type: int
    block: int
    sequence: int
    offset_word: int  # raw u16 @12 (bit 0x8000 always set in real files)
    checksum: int

    @property
    def first_offset(self) -> int:
        return self.offset_word & 0x7FFF

    @property
    def empty(self) -> bool:
        """Bytes 0 and 1 both zero: OLR's "empty block" (end of written data)."""
        return self.signature == 0 and self.file_type == 0


def parse_block_header(data: bytes, offset: int, layout: FileLayout) -> BlockHeader:
    """The 16-byte header at ``data[offset:]``; ``BlockHeaderError`` when fewer than 16 bytes are there."""
    if len(data) - offset < BLOCK_HEADER_SIZE:
        raise BlockHeaderError("block header cut short", position=Position(offset=offset))
    sig, typ, block, seq, word, cks = layout.s.block_header.unpack_from(data, offset)
    return BlockHeader(
        signature=sig, file_type=typ, block=block, sequence=seq, offset_word=word, checksum=cks
    )


@functools.lru_cache(maxsize=8)
def _fold_masks(block_size: int) -> tuple[int, tuple[tuple[int, int], ...]]:
    half = block_size // 2
    steps: list[tuple[int, int]] = []
    bits = half * 4  # the XOR of the two halves has half*8 bits; fold it in halves down to 16
    while bits >= 16:
        steps.append((bits, (1 << bits) - 1))
        bits //= 2
    return half, tuple(steps)


def block_xor(block: bytes | bytearray | memoryview) -> int:
    """XOR of all 16-bit words of ``block`` (little-endian word view); 0 iff the §2.1 rule holds.

    The rule is endianness-independent: it says the XOR of even-offset bytes and of odd-offset bytes
    are both zero, so reading the words little-endian is as good as any order.
    """
    size = len(block)
    half, steps = _fold_masks(size)
    x = int.from_bytes(block[:half], "little") ^ int.from_bytes(block[half:size], "little")
    for bits, mask in steps:
        x = (x >> bits) ^ (x & mask)
    return x


def checksum_ok(block: bytes | memoryview) -> bool:
    """Does ``block`` satisfy the §2.1 checksum rule (XOR of all 16-bit words, checksum included, is 0)?"""
    return block_xor(block) == 0


def write_checksum(block: bytearray, at: int = 14) -> None:
    """Make ``block`` pass §2.1 by storing the fix-up in bytes ``at``/``at + 1`` (14 for redo blocks;
    real block 0s use 16): zero them, then store the even- and odd-offset XORs there."""
    block[at] = 0
    block[at + 1] = 0
    x = block_xor(block)
    block[at] = x & 0xFF
    block[at + 1] = x >> 8


@functools.lru_cache(maxsize=16)
def _range_struct(order: str, block_size: int) -> struct.Struct:
    return struct.Struct(f"{order}BB2xIIHH{block_size - BLOCK_HEADER_SIZE}x")


def check_blocks(
    data: bytes | bytearray | memoryview,
    first_block: int,
    layout: FileLayout,
    sequence: int,
    *,
    checksums: bool = True,
) -> dict[int, FormatError]:
    """Check every whole block of ``data`` (block ``first_block`` first); return the bad ones.

    Per block (redo-format §2): signature 0x01, file type valid for the block size, block number =
    physical index, log sequence = ``sequence``, and the §2.1 checksum. The result maps block number
    to the error for that block (``BlockHeaderError`` or ``ChecksumError``, position filled with
    block and offset); an empty dict means all good. Trailing bytes short of a block are ignored.
    """
    size = layout.block_size
    count = len(data) // size
    if count == 0:
        return {}
    view = memoryview(data)[: count * size]
    bad: dict[int, FormatError] = {}
    rows = _range_struct(layout.s.order, size).iter_unpack(view)
    for index, (sig, typ, number, seq, _word, _cks) in enumerate(rows):
        expected = first_block + index
        problem = None
        if sig != REDO_BLOCK_SIGNATURE:
            problem = f"bad block signature 0x{sig:02x} (expected 0x01)"
        elif (size, typ) not in VALID_BLOCK_TYPES:
            problem = f"bad block type 0x{typ:02x} for block size {size}"
        elif number != expected:
            problem = f"block out of sequence: header says block {number}"
        elif seq != sequence:
            problem = f"block belongs to log sequence {seq}, not {sequence}"
        if problem is not None:
            bad[expected] = BlockHeaderError(
                problem, position=Position(sequence=sequence, block=expected, offset=0)
            )
    if checksums:
        half, steps = _fold_masks(size)
        from_bytes = int.from_bytes
        for start in range(0, count * size, size):
            x = from_bytes(view[start : start + half], "little") ^ from_bytes(
                view[start + half : start + size], "little"
            )
            for bits, mask in steps:
                x = (x >> bits) ^ (x & mask)
            if x:
                block = first_block + start // size
                if block not in bad:
                    stored = layout.s.u16.unpack_from(view, start + 14)[0]
                    bad[block] = ChecksumError(
                        "block checksum mismatch",
                        position=Position(sequence=sequence, block=block, offset=14),
                        stored=f"0x{stored:04x}",
                        xor=f"0x{x:04x}",
                    )
    return bad
