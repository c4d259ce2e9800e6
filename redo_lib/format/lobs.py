"""LOB values: the in-row LOB locator of a CLOB / NCLOB / BLOB column (redo-format §7.8), and the
piece of LOB data a 26.2 change writes (§5.10, §6.7).

Value-level helpers over the model (``LobLocator``, ``LobChange``), used by the change events
(``assembly/events.py``) and the generator (``synth/lobs.py``); the op bodies themselves, and the
locators the trail resolves (``crates/redo-core/src/trail/lobs.rs``), are parsed by the Rust core.
Confidence is low for every LOB path (§5.10 says so); what is parsed is exactly what the doc
describes (docs/lobs.md). Layer 1.
"""

from __future__ import annotations

from redo_lib.errors import FormatError
from redo_lib.format.model import LobChange, LobImage, LobLocator
from redo_lib.scn import Xid

KDLI_INFO, KDLI_LOAD_DATA, KDLI_FILL, KDLI_SUPLOG = 1, 4, 6, 9  # kdli item codes (§5.10)
KDLI_OP_BIMG = 6  # kdli common op of a 26.6 page image
LOB_ID_PREFIX = b"\x00\x00\x00\x01"  # the LOB ids OLR tracks (§5.7)
LOCATOR_IN_ROW = 0x04  # flags @5: the locator has an in-row body
FLG2_INLINE = 0x0100  # in-value form: data from @36
FLG2_PAGE_LIST = 0x0400  # page-list form: page DBAs from @36
LOCATOR_DATA = 36  # where inline data / page DBAs start


def _need(data: bytes, size: int, what: str) -> None:
    if len(data) < size:
        raise FormatError(f"field {what} too short: {len(data)} bytes, need {size}")


def parse_lob_locator(data: bytes) -> LobLocator:
    """The LOB locator of a CLOB / NCLOB / BLOB column value (§7.8). Forms we resolve: in-row data
    (flg2 0x0100) and the page list (flg2 0x0400); any other form (out-of-row through the LOB index,
    SecureFile extents) parses to a locator without data, for the caller to count."""
    _need(data, 20, "LOB locator")
    flags = data[5]
    lob_id = bytes(data[10:20])
    if not flags & LOCATOR_IN_ROW:
        return LobLocator(flags=flags, lob_id=lob_id, resolved_by_index=True)
    _need(data, 24, "LOB locator in-row body")
    total = 20 + int.from_bytes(data[20:22], "big")
    flg2 = int.from_bytes(data[22:24], "big")
    if total > len(data):
        raise FormatError(f"LOB locator body says {total} bytes, the value has {len(data)}")
    if flg2 & FLG2_PAGE_LIST:
        _need(data, LOCATOR_DATA, "LOB locator page list")
        count = int.from_bytes(data[24:28], "big")
        if LOCATOR_DATA + 4 * count > total:
            raise FormatError(
                f"LOB locator lists {count} pages but has room for {(total - LOCATOR_DATA) // 4}"
            )
        dbas = tuple(
            int.from_bytes(data[p : p + 4], "big") for p in range(LOCATOR_DATA, LOCATOR_DATA + 4 * count, 4)
        )
        return LobLocator(
            flags=flags, lob_id=lob_id, flg2=flg2, page_count=count,
            last_page_bytes=int.from_bytes(data[28:30], "big"), dbas=dbas,
        )  # fmt: skip
    if flg2 & FLG2_INLINE:
        return LobLocator(flags=flags, lob_id=lob_id, flg2=flg2, inline=bytes(data[LOCATOR_DATA:total]))
    return LobLocator(flags=flags, lob_id=lob_id, flg2=flg2)


def lob_piece(body: LobChange) -> tuple[bytes, int, bytes] | None:
    """(LOB id, page number, data) of a 26.2 that writes LOB data: an info item and a fill item."""
    info = body.item(KDLI_INFO)
    fill = body.item(KDLI_FILL)
    if info is None or fill is None:
        return None
    return info.lob_id, info.block, fill.data


def lob_image_piece(body: LobImage) -> tuple[Xid, int, bytes, bytes] | None:
    """(XID, obj, LOB id, page bytes) of a 26.6 page image the LOB store can use (the core's
    ``events::lob_image_piece``): op BIMG, a page, the LOB id of its load-data (or info) item, the
    transaction of its suplog item, else of field 2 when not zero."""
    if body.common.op != KDLI_OP_BIMG or not body.page:
        return None
    if body.item.code not in (KDLI_LOAD_DATA, KDLI_INFO) or not body.item.lob_id:
        return None
    suplog = body.trailer if body.trailer is not None and body.trailer.code == KDLI_SUPLOG else None
    xid = (suplog.xid if suplog is not None else None) or body.head.xid
    if xid is None or xid.sqn == 0:
        return None
    return xid, suplog.obj if suplog is not None else 0, body.item.lob_id, body.page


def lob_index_entry(code: int, fields: tuple[bytes, ...]) -> tuple[bytes, int, bytes] | None:
    """(LOB id, first page number, be32 DBA list) of a BasicFile LOB index change (§5.7; the core's
    ``ops::lob_index::lob_index_entry``): 10.2 single-row insert (key field 3: 10, LOB id, 4, be32
    page; key data field 4) or 10.8 (50-byte key data in field 4: 1, 1, 8 DBAs, the key at 34)."""

    def key(k: bytes) -> tuple[bytes, int] | None:
        if len(k) < 16 or k[0] != 10 or k[11] != 4 or k[1:5] != LOB_ID_PREFIX:
            return None
        return bytes(k[1:11]), int.from_bytes(k[12:16], "big")

    if code == 2 and len(fields) >= 4 and len(fields[1]) >= 2 and fields[1][1] == 0:
        found = key(fields[2])
        dbas = fields[3]
        if found is None or not dbas or len(dbas) % 4:
            return None
        return found[0], found[1], bytes(dbas)
    if code == 8 and len(fields) >= 4:
        data = fields[3]
        if len(data) < 50 or data[0] != 1 or data[1] != 1:
            return None
        found = key(data[34:])
        return None if found is None else (found[0], found[1], bytes(data[2:34]))
    return None
