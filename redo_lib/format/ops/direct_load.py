"""OP 19.1 — direct loader block (LOB page image or direct-path table block), redo-format §5.8.

Layer 1.
"""

from __future__ import annotations

from collections.abc import Sequence

from redo_lib.errors import FormatError
from redo_lib.format.layout import FileLayout
from redo_lib.format.model import DirectLoadBlock
from redo_lib.format.ops.kdo import need


def parse_direct_load(fields: Sequence[bytes], block_class: int, layout: FileLayout) -> DirectLoadBlock:
    """Field 1 (≥ 36 bytes): data object id @0, LOB id @4 (10 bytes), page number @24, pdba @28,
    page data from @36."""
    if not fields:
        raise FormatError("19.1 without fields")
    f = fields[0]
    need(f, 36, "19.1 header")
    u32 = layout.s.u32.unpack_from
    return DirectLoadBlock(
        dataobj=u32(f, 0)[0],
        lob_id=bytes(f[4:14]),
        page_no=u32(f, 24)[0],
        pdba=u32(f, 28)[0],
        data=bytes(f[36:]),
    )
