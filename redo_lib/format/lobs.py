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
from redo_lib.format.model import LobChange, LobLocator

KDLI_INFO, KDLI_FILL = 1, 6  # kdli item codes (§5.10)
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
