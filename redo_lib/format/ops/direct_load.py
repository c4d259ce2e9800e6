"""OP 19.1 — direct loader block (LOB page image or direct-path table block), redo-format §5.8.

Layer 1.
"""

from __future__ import annotations

from collections.abc import Sequence

from redo_lib.errors import FormatError
from redo_lib.format.layout import FileLayout
from redo_lib.format.model import DirectLoadBlock, QmiRow
from redo_lib.format.ops.kdo import need, parse_packed_columns, parse_xid
from redo_lib.scn import Xid

_DATA_BLOCK = 0x06  # block type of a transaction-managed data block
_ITL_SIZE = 24


def parse_direct_load(fields: Sequence[bytes], block_class: int, layout: FileLayout) -> DirectLoadBlock:
    """Field 1 (≥ 36 bytes): data object id @0, LOB id @4 (10 bytes), page number @24, pdba @28,
    page data from @36."""
    if not fields:
        raise FormatError("19.1 without fields")
    f = fields[0]
    need(f, 36, "19.1 header")
    u32 = layout.s.u32.unpack_from
    data = bytes(f[36:])
    itl_xids: tuple[Xid, ...] = ()
    slots: tuple[int, ...] = ()
    rows: tuple[QmiRow, ...] = ()
    if data[:1] == bytes([_DATA_BLOCK]) and any(data[44 : 44 + _ITL_SIZE]):
        itl_xids, slots, rows = parse_table_block(data, layout)
    return DirectLoadBlock(
        dataobj=u32(f, 0)[0],
        lob_id=bytes(f[4:14]),
        page_no=u32(f, 24)[0],
        pdba=u32(f, 28)[0],
        data=data,
        itl_xids=itl_xids,
        slots=slots,
        rows=rows,
    )


def parse_table_block(
    data: bytes, layout: FileLayout
) -> tuple[tuple[Xid, ...], tuple[int, ...], tuple[QmiRow, ...]]:
    """A direct-path loaded table block (the image the 19.1 vector carries, seed 000 "Direct load
    inserts"): the ITL's transaction ids and the rows of table 0 in slot order.

    Layout (Oracle's data block as its block dump prints it; see redo_lib/synth/blocks.py): itc u16
    @36, ITL entries of 24 bytes from @44 (XID first), 8 bytes, then the data header at
    ``D = 52 + 24 * itc``: ntab u8 @D+1, nrow u16 @D+2, table 0 row count u16 @D+16, row directory
    of u16 offsets (relative to D) from @D+18; each row fb, lb, cc, then cc length-prefixed columns."""
    u16 = layout.s.u16.unpack_from
    need(data, 52, "19.1 data block header")
    itc = u16(data, 36)[0]
    d = 52 + _ITL_SIZE * itc
    need(data, d + 18, "19.1 data block directory")
    xids = tuple(
        parse_xid(data, 44 + _ITL_SIZE * i, layout)
        for i in range(itc)
        if any(data[44 + _ITL_SIZE * i : 52 + _ITL_SIZE * i])  # an empty ITL slot is all zeros
    )
    nrow = u16(data, d + 16)[0]
    need(data, d + 18 + 2 * nrow, "19.1 row directory")
    rows: list[QmiRow] = []
    for slot in range(nrow):
        at = d + u16(data, d + 18 + 2 * slot)[0]
        if at + 3 > len(data):
            raise FormatError(f"19.1 row {slot} at {at} lies outside the {len(data)}-byte block")
        columns, _used = parse_packed_columns(data[at + 3 :], data[at + 2], layout, f"19.1 row {slot}")
        rows.append(QmiRow(fb=data[at], lb=data[at + 1], columns=columns))
    return xids, tuple(range(nrow)), tuple(rows)
