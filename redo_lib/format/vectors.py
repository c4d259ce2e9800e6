"""Change vectors: the vector header (24 or 32 bytes), the field-length array and the 4-byte
aligned fields (redo-format §4.1, §4.2); the body comes from the OPCODES table.

Pure function over one record's bytes. Errors carry ``offset`` = byte offset inside the record and
the opcode in ``details``; the reader adds block and file. Layer 1.
"""

from __future__ import annotations

import struct

from redo_lib.errors import FormatError, Position
from redo_lib.format.layout import FileLayout, fast_builder
from redo_lib.format.model import ChangeVector, OpBody
from redo_lib.format.opcodes import ENCRYPTED, OPAQUE_BY_LAYER, OPCODES, UNKNOWN
from redo_lib.scn import NO_SCN

_OBJ_NONE = 0xFFFFFFFF
_new_vector = fast_builder(ChangeVector)  # positional: all fields in declaration order


def parse_vectors(data: bytes, start: int, end: int, layout: FileLayout) -> tuple[ChangeVector, ...]:
    """All change vectors of a record: ``data[start:end]`` (``start`` = record header size).

    A field list that runs past ``end`` and a body that breaks its opcode's layout raise
    ``FormatError``; unknown opcodes never do (they parse to ``Opaque``).
    """
    s = layout.s
    hsize = layout.vector_header_size
    wide = hsize == 32
    head = (s.vector_header32 if wide else s.vector_header).unpack_from
    u16 = s.u16.unpack_from
    arrays = s.u16_array
    out: list[ChangeVector] = []
    pos = start
    index = 0
    while pos < end:
        index += 1
        if pos + hsize + 2 > end:
            raise FormatError(
                f"change vector #{index} header cut: {end - pos} bytes left in the record",
                position=Position(offset=pos),
            )
        if wide:
            layer, code, cls, afn, obj_hi, dba, base, wrap, ext, seq, typ, obj_lo, con_id, flg = head(
                data, pos
            )
        else:
            layer, code, cls, afn, obj_hi, dba, base, wrap, ext, seq, typ, obj_lo = head(data, pos)
            con_id = flg = 0
        # full SCN layout, §3.4a
        if wrap & 0x8000:
            scn = base | ext << 32 | (wrap & 0x7FFF) << 48
        elif base == 0xFFFFFFFF and wrap == 0xFFFF:
            scn = NO_SCN
        else:
            scn = base | wrap << 32
        p = pos + hsize
        l0 = u16(data, p)[0]
        if l0 < 2 or l0 & 1 or p + l0 > end:
            raise FormatError(
                f"change vector #{index} ({layer}.{code}) has an invalid field-length array size {l0}",
                position=Position(offset=p),
            )
        sizes = arrays((l0 - 2) >> 1).unpack_from(data, p + 2)
        p += (l0 + 2) & ~3
        fields = []
        for size in sizes:
            q = p + size
            if q > end:
                raise FormatError(
                    f"change vector #{index} ({layer}.{code}) field {len(fields) + 1} of {size} bytes runs past the record",
                    position=Position(offset=p),
                )
            fields.append(data[p:q])
            p += (size + 3) & ~3
        field_tuple = tuple(fields)
        parser = OPCODES.get((layer, code))
        if typ & 0x80:  # encrypted tablespace: not decoded (§4.1)
            body: OpBody = ENCRYPTED
        elif parser is None:
            body = OPAQUE_BY_LAYER.get(layer, UNKNOWN)
        else:
            try:
                body = parser(field_tuple, cls, layout)
            except FormatError as exc:
                if exc.position.offset is None:
                    exc.position = Position(offset=pos)
                exc.details.setdefault("opcode", f"{layer}.{code}")
                exc.details.setdefault("change", index)
                raise
            except (struct.error, IndexError, ValueError) as exc:  # a parser bug or a layout we do not know
                raise FormatError(
                    f"change vector #{index} ({layer}.{code}) body does not parse: {exc}",
                    position=Position(offset=pos),
                ) from exc
        obj = obj_hi << 16 | obj_lo
        out.append(
            _new_vector(
                index, layer, code, cls, afn, dba, None if obj == _OBJ_NONE else obj, scn, seq, typ,
                con_id, flg, body, field_tuple, pos,
            )
        )  # fmt: skip
        pos = p if p <= end else end  # the last field's padding may be cut by the record length
    return tuple(out)
