"""OP 24.1 — DDL (KRVDDL), redo-format §5.9. Layer 1.

**Unclear** in the source (§12): OLR's builder reads the command type at @12, its vector parser and
oracdc a "kind" at @16; we keep @12 as ``ddl_type`` and use @16 only to decide whether field 12
holds an object id. Text fields are decoded as UTF-8 with escapes for undecodable bytes.
"""

from __future__ import annotations

from collections.abc import Sequence

from redo_lib.errors import FormatError
from redo_lib.format.layout import FileLayout
from redo_lib.format.model import Ddl
from redo_lib.format.ops.kdo import need, parse_xid

_NO_OBJECT_KINDS = frozenset({4, 5, 6, 8, 9, 10})


def _text(raw: bytes) -> str:
    return bytes(raw).split(b"\0", 1)[0].decode("utf-8", "backslashreplace")


def parse_ddl(fields: Sequence[bytes], block_class: int, layout: FileLayout) -> Ddl:
    """Field 1: XID @4, type u16 @12, kind u16 @16; field 2 schema; field 8 text; field 12 obj."""
    if not fields:
        raise FormatError("24.1 without fields")
    f = fields[0]
    need(f, 18, "24.1 header")
    u16 = layout.s.u16.unpack_from
    kind = u16(f, 16)[0]
    obj = None
    if kind not in _NO_OBJECT_KINDS and len(fields) >= 12 and len(fields[11]) >= 4:
        obj = layout.s.u32.unpack_from(fields[11], 0)[0]
    return Ddl(
        xid=parse_xid(f, 4, layout),
        ddl_type=u16(f, 12)[0],
        obj=obj,
        schema=_text(fields[1]) if len(fields) >= 2 else "",
        text=_text(fields[7]) if len(fields) >= 8 else "",
    )
