"""Images of table blocks written by a direct-path load (OP 19.1, seed 000 "Direct load inserts").

The 19.1 vector's field 1 is laid out as redo-format §5.8 says (see ``format/writer.py``); its page
data (from @36) is the image below: an Oracle data block as ``ALTER SYSTEM DUMP`` prints it in seed
000, shortened to the generator's needs. All integers are in file endianness (FE), like Oracle's
blocks on that platform. ``D`` is the offset of the data header, ``52 + 24·itc``.

=========  =======  ==========================================================================
offset     size     field
=========  =======  ==========================================================================
0          u8       block type 0x06 (transaction-managed data block)
1          u8       block format 0xA2
4          u32      rdba: DBA of this block
8          8        SCN of the load (full SCN, §3.4a)
16         u16      0 (block checksum not computed)
20         u8       ktbbh type 1 (DATA)
24         u32      seg/obj: the data object id
28         8        csc: cleanout SCN (= load SCN)
36         u16      itc: number of ITL entries (2)
38         u8       flags (0), 39 u8 fsl (0), 40 u32 fnx (0)
44         24·itc   ITL entries: XID (usn u16, slot u16, sqn u32) @0, UBA (8) @8, flag u16 @16,
                    lock count u16 @18, SCN/fsc u32 @20. **ITL 1 holds the XID of the loading
                    transaction** (the 19.1 vector has no other XID); ITL 2 is empty
44+24·itc  8        zero (ASSM)
D+0        u8       kdbh flag (0)
D+1        u8       ntab = 1
D+2        u16      nrow: number of rows
D+4        i16      frre = -1
D+6        u16      fsbo: end of the row directory (relative to D)
D+8        u16      fseo: start of the row data (relative to D)
D+10       u16      avsp, D+12 u16 tosp: free space
D+14       u16      table 0 directory: offset 0, D+16 u16 its row count (= nrow)
D+18       2·nrow   row directory: offset of row i, relative to D, for slot i = 0 .. nrow-1
rows       ...      each row: fb u8 (0x2C), lb u8 (1 = ITL 1), cc u8, then cc columns in the
                    length-prefixed format of §5.6 (``L`` <= 250 / ``0xFE`` + u16 / ``0xFF``
                    NULL); trailing NULL columns are not stored. Rows are packed downwards
                    from the block tail, slot 0 highest
size-4     u32      tail: low 16 bits of the SCN base << 16 | 0x06 << 8 | 1
=========  =======  ==========================================================================

So a decoder splits the image into rows in slot order by walking the row directory; each row's
ROWID is (data object id, rdba, slot).
"""

from __future__ import annotations

from collections.abc import Sequence

from redo_lib.errors import ScenarioError
from redo_lib.format.model import QmiRow
from redo_lib.format.writer import WriterLayout, write_row_image
from redo_lib.scn import Xid

__all__ = ["ITL_COUNT", "data_offset", "write_block_image"]

ITL_COUNT = 2


def data_offset(itc: int = ITL_COUNT) -> int:
    """Offset ``D`` of the data header in the image."""
    return 52 + 24 * itc


def write_block_image(
    layout: WriterLayout, *, size: int, dba: int, dataobj: int, scn: int, xid: Xid, rows: Sequence[QmiRow]
) -> bytes:
    """The image of a freshly loaded block holding ``rows`` in slots 0..n-1."""
    d = data_offset()
    images = [write_row_image(layout, r) for r in rows]
    directory_end = 18 + 2 * len(images)
    out = bytearray(size)
    top = size - 4
    offsets = []
    for image in images:
        top -= len(image)
        out[top : top + len(image)] = image
        offsets.append(top - d)
    if top < d + directory_end:
        raise ScenarioError(f"direct-path rows do not fit a {size}-byte block")
    out[0:20] = layout.pack("BBxxI", 0x06, 0xA2, dba) + layout.scn8(scn) + bytes(4)
    out[20:44] = layout.pack("BxxxI", 1, dataobj) + layout.scn8(scn) + layout.pack("HBBI", ITL_COUNT, 0, 0, 0)
    out[44:68] = layout.xid(xid) + bytes(8) + layout.pack("HHI", 0, len(images), 0)
    free = top - (d + directory_end)
    header = layout.pack(
        "BBHhHHHHHH", 0, 1, len(images), -1, directory_end, top - d, free, free, 0, len(images)
    )
    out[d : d + 18] = header
    out[d + 18 : d + directory_end] = layout.pack(f"{len(offsets)}H", *offsets) if offsets else b""
    out[size - 4 :] = layout.pack("I", ((scn & 0xFFFF) << 16) | 0x0601)
    return bytes(out)
