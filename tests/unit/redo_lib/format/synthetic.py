"""Re-lay real records into a valid log of another block size (or byte order of the headers).

Follows the writer rules of redo-format §11: each LWN starts at offset 16 of a fresh block with
@28/@32 = its length in blocks; a record starts only where more than 20 bytes are left; block header
@12 per §2; every block passes the §2.1 checksum. Used to exercise 1024/4096-byte blocks and
big-endian headers, for which no real file exists.
"""

from __future__ import annotations

from redo_lib.format.blocks import write_checksum
from redo_lib.format.model import RedoRecord

FILE_TYPES = {512: 0x22, 1024: 0x22, 4096: 0x82}


def record_bytes(data: bytes, block_size: int, record: RedoRecord) -> bytes:
    """The record's bytes cut out of the file per §3.1 (block headers skipped)."""
    out = bytearray()
    blk, off, left = record.rba.block, record.rba.offset, record.length
    while left:
        take = min(left, block_size - off)
        start = blk * block_size + off
        out += data[start : start + take]
        left -= take
        blk, off = blk + 1, 16
    return bytes(out)


def relayout(
    header_blocks: bytes,
    records: list[bytes],
    lwn_starts: set[int],
    block_size: int,
    *,
    big_endian: bool = False,
    sequence: int,
    file_type: int | None = None,
) -> bytes:
    """A complete log: blocks 0 and 1 from ``header_blocks`` (first 512 bytes of each, patched), then
    ``records`` (record ``i`` starts an LWN when ``i in lwn_starts``)."""
    order = "big" if big_endian else "little"
    size = block_size
    blocks: list[bytearray] = []
    first_start: dict[int, int] = {}
    ends: dict[int, int] = {}

    def block(n: int) -> bytearray:
        while len(blocks) <= n - 2:
            blocks.append(bytearray(size))
        return blocks[n - 2]

    blk, off = 2, 16
    lwn_first: int | None = None
    largest = 1
    for i, rec in enumerate(records):
        if i in lwn_starts and off != 16:  # an LWN starts a fresh block
            blk, off = blk + 1, 16
        if size - off <= 20:
            blk, off = blk + 1, 16
        if i in lwn_starts:
            if lwn_first is not None:
                largest = max(largest, blk - lwn_first)
                _patch_lwn(block(lwn_first), blk - lwn_first, order)
            lwn_first = blk
        first_start.setdefault(blk, off)
        left = memoryview(rec)
        while True:
            take = min(len(left), size - off)
            block(blk)[off : off + take] = left[:take]
            left = left[take:]
            if not len(left):
                off += (take + 3) & ~3
                ends.setdefault(blk, off)
                break
            blk, off = blk + 1, 16
    assert lwn_first is not None
    _patch_lwn(block(lwn_first), blk + 1 - lwn_first, order)
    largest = max(largest, blk + 1 - lwn_first)
    nab = blk + 1
    typ = FILE_TYPES[size] if file_type is None else file_type
    for n, buf in enumerate(blocks, start=2):
        buf[0], buf[1] = 0x01, typ
        buf[4:8] = n.to_bytes(4, order)
        buf[8:12] = sequence.to_bytes(4, order)
        word = first_start.get(n) or (ends[n] if n in ends and size - ends[n] > 20 else 0)
        buf[12:14] = (0x8000 | word).to_bytes(2, order)
        write_checksum(buf)
    b0 = bytearray(size)
    b0[:512] = header_blocks[:512]
    b0[1] = typ
    b0[20:24] = size.to_bytes(4, order)
    b0[24:28] = (nab - 1).to_bytes(4, order)
    write_checksum(b0, at=16)
    b1 = bytearray(size)
    b1[:512] = header_blocks[512:1024]
    b1[1] = typ
    b1[156:160] = nab.to_bytes(4, order)
    b1[268:272] = largest.to_bytes(4, order)
    write_checksum(b1)
    return bytes(b0 + b1 + b"".join(blocks))


def _patch_lwn(first: bytearray, length: int, order: str) -> None:
    first[16 + 28 : 16 + 32] = length.to_bytes(4, order)
    first[16 + 32 : 16 + 36] = length.to_bytes(4, order)
