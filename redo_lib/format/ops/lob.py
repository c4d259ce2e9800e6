"""LOB opcodes and the LOB locator: 26.2 LOB redo, 11.17 LLB, the in-row locator (redo-format §5.10,
§6.7, §7.8), and the classification of LOB / index vectors for the decode report.

Confidence is low for every LOB path (§5.10 says so); what is parsed is exactly what the doc
describes, and ``LobSupport`` (11.17, no layout in the doc) keeps only what the real oracdc records
show (docs/lobs.md). Layer 1.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence

from redo_lib.errors import FormatError
from redo_lib.format.layout import FileLayout
from redo_lib.format.model import (
    ChangeVector,
    DirectLoadBlock,
    KdliCommon,
    KdliItem,
    LobChange,
    LobLocator,
    LobSupport,
    Opaque,
    UndoRecord,
)
from redo_lib.format.ops.kdo import need, parse_ktb, parse_xid

LOB_ID_SIZE = 10
LOB_ID_PREFIX = b"\x00\x00\x00\x01"  # the LOB ids OLR tracks (§5.7)
KDLI_INFO, KDLI_LOAD_DATA, KDLI_ZERO, KDLI_FILL, KDLI_SUPLOG, KDLI_LOAD_LHB = 1, 4, 5, 6, 9, 12
LOCATOR_IN_ROW = 0x04  # flags @5: the locator has an in-row body
FLG2_INLINE = 0x0100  # in-value form: data from @36
FLG2_PAGE_LIST = 0x0400  # page-list form: page DBAs from @36
LOCATOR_DATA = 36  # where inline data / page DBAs start


def parse_kdli_common(field: bytes, layout: FileLayout) -> KdliCommon:
    """kdli common (≥ 12 bytes): op @0, type @1, flg0 @2, flg1 @3, psiz u16 @4, poff u16 @6, DBA @8."""
    need(field, 12, "kdli common")
    u16 = layout.s.u16.unpack_from
    return KdliCommon(
        op=field[0],
        type=field[1],
        flg0=field[2],
        flg1=field[3],
        psiz=u16(field, 4)[0],
        poff=u16(field, 6)[0],
        dba=layout.s.u32.unpack_from(field, 8)[0],
    )


def parse_kdli_item(field: bytes, layout: FileLayout) -> KdliItem:
    """One kdli item by its code byte (§5.10); codes without a layout we use keep their bytes."""
    need(field, 1, "kdli item")
    code = field[0]
    u16 = layout.s.u16.unpack_from
    if code == KDLI_INFO:
        need(field, 17, "kdli info")
        return KdliItem(
            code=code,
            lob_id=bytes(field[1:11]),
            block=int.from_bytes(field[11:15], "big"),
            slot=int.from_bytes(field[15:17], "big"),
        )
    if code == KDLI_FILL:
        need(field, 8, "kdli fill")
        length = u16(field, 6)[0]
        if 8 + length > len(field):
            raise FormatError(f"kdli fill announces {length} data bytes but the field has {len(field) - 8}")
        return KdliItem(
            code=code, offset=u16(field, 2)[0], size=u16(field, 4)[0], data=bytes(field[8 : 8 + length])
        )
    if code == KDLI_ZERO:
        need(field, 6, "kdli zero")
        return KdliItem(code=code, offset=u16(field, 2)[0], size=u16(field, 4)[0])
    if code in (KDLI_LOAD_DATA, KDLI_LOAD_LHB):
        need(field, 56 if code == KDLI_LOAD_DATA else 112, "kdli load")
        return KdliItem(code=code, lob_id=bytes(field[12:22]), raw=bytes(field))
    if code == KDLI_SUPLOG:
        need(field, 24, "kdli suplog")
        return KdliItem(
            code=code,
            xid=parse_xid(field, 4, layout),
            obj=layout.s.u32.unpack_from(field, 12)[0],
            column=u16(field, 18)[0],
            raw=bytes(field),
        )
    return KdliItem(code=code, raw=bytes(field))


def parse_lob_redo(fields: Sequence[bytes], block_class: int, layout: FileLayout) -> LobChange:
    """OP 26.2 — field 1 KTB, field 2 kdli common, field 3 kdli item, field 4 optional kdli item."""
    if len(fields) < 2:
        raise FormatError(f"26.2 needs KTB and kdli common fields, has {len(fields)}")
    items = tuple(parse_kdli_item(f, layout) for f in fields[2:4] if f)
    return LobChange(
        ktb=parse_ktb(fields[0], layout), common=parse_kdli_common(fields[1], layout), items=items
    )


def parse_llb(fields: Sequence[bytes], block_class: int, layout: FileLayout) -> LobSupport:
    """OP 11.17 — LLB (no layout in the doc): the kind byte of field 2 and, for kind 1, the LOB id
    found at @12 of field 3 when it has the §5.7 LOB id shape (real records, docs/lobs.md)."""
    sizes = tuple(len(f) for f in fields)
    if len(fields) < 2 or not fields[1]:
        raise FormatError(f"11.17 needs at least two fields (kind in field 2), has sizes {list(sizes)}")
    kind = fields[1][0]
    lob_id = None
    if kind == 1 and len(fields) >= 3 and len(fields[2]) >= 22 and fields[2][12:16] == LOB_ID_PREFIX:
        lob_id = bytes(fields[2][12:22])
    return LobSupport(kind=kind, lob_id=lob_id, sizes=sizes)


def parse_lob_locator(data: bytes) -> LobLocator:
    """The LOB locator of a CLOB / NCLOB / BLOB column value (§7.8). Forms we resolve: in-row data
    (flg2 0x0100) and the page list (flg2 0x0400); any other form (out-of-row through the LOB index,
    SecureFile extents) parses to a locator without data, for the caller to count."""
    need(data, 20, "LOB locator")
    flags = data[5]
    lob_id = bytes(data[10:20])
    if not flags & LOCATOR_IN_ROW:
        return LobLocator(flags=flags, lob_id=lob_id, resolved_by_index=True)
    need(data, 24, "LOB locator in-row body")
    total = 20 + int.from_bytes(data[20:22], "big")
    flg2 = int.from_bytes(data[22:24], "big")
    if total > len(data):
        raise FormatError(f"LOB locator body says {total} bytes, the value has {len(data)}")
    if flg2 & FLG2_PAGE_LIST:
        need(data, LOCATOR_DATA, "LOB locator page list")
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


def classify(vector: ChangeVector) -> str | None:
    """The LOB / index report name of a vector (DecodeReport ``lobs``), None for other vectors."""
    body = vector.body
    if isinstance(body, LobSupport):
        return "llb_vectors"
    if isinstance(body, LobChange):
        return "lob_data_pieces" if lob_piece(body) is not None else "lob_other_vectors"
    if isinstance(body, DirectLoadBlock):
        if body.rows:
            return "direct_load_table_blocks"
        if body.lob_id.startswith(LOB_ID_PREFIX):
            return "lob_page_images"
        return "direct_load_other_blocks"
    if isinstance(body, UndoRecord):
        return {(26, 1): "lob_undo_vectors", (10, 22): "index_undo_vectors"}.get(body.opc)
    if vector.layer == 10:
        return "index_vectors_ignored"
    if vector.layer == 26 and isinstance(body, Opaque):
        return "lob_other_vectors"
    return None


def classify_all(vectors: Iterable[ChangeVector]) -> Iterator[str]:
    for vector in vectors:
        name = classify(vector)
        if name is not None:
            yield name
