"""The binary archived-log format: the model (``model.py``), the layout rules, block checks and
checksums, and the writer the generator uses. Reading logs is the Rust core's
(``redo_lib._native``): ``native_records`` turns its records and headers into this model.

No rows, no transactions, no I/O here. Layer 1: imports only layer 0 (errors, scn, report, native).
"""

from redo_lib.format.blocks import BlockHeader, check_blocks, checksum_ok, parse_block_header, write_checksum
from redo_lib.format.header import HEADER_PROBE_SIZE, file_layout
from redo_lib.format.layout import FileLayout, decode_redo_time, encode_redo_time
from redo_lib.format.native_records import parse_header, read_records

__all__ = [
    "HEADER_PROBE_SIZE",
    "BlockHeader",
    "FileLayout",
    "check_blocks",
    "checksum_ok",
    "decode_redo_time",
    "encode_redo_time",
    "file_layout",
    "parse_block_header",
    "parse_header",
    "read_records",
    "write_checksum",
]
