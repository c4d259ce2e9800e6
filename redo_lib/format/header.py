"""What the rest of the library needs around the log header (redo-format §1.2-§1.4).

The header itself (blocks 0 and 1 -> ``LogHeader``: byte order, block size, the §2 checks of block
1, the §2.1 checksum of block 0) is parsed by the Rust core: ``native_records.parse_header``.
Layer 1.
"""

from __future__ import annotations

from redo_lib.format.layout import FileLayout
from redo_lib.format.model import LogHeader

HEADER_PROBE_SIZE = 2 * 4096  # OLR reads two max-size pages first (§1.3 step 1)


def file_layout(header: LogHeader) -> FileLayout:
    """The ``FileLayout`` a parsed header implies."""
    return FileLayout(
        big_endian=header.big_endian, block_size=header.block_size, compat_version=header.compat_version
    )
