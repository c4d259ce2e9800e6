"""The binary archived-log format: bytes -> blocks -> redo records -> change vectors.

No rows, no transactions, no I/O here (``iter_records`` reads through a duck-typed source).
Layer 1: imports only layer 0 (errors, scn, report).
"""

from redo_lib.format.blocks import BlockHeader, check_blocks, checksum_ok, parse_block_header, write_checksum
from redo_lib.format.header import HEADER_PROBE_SIZE, file_layout, parse_log_header
from redo_lib.format.layout import FileLayout, decode_redo_time, encode_redo_time
from redo_lib.format.opcodes import OPCODES, parse_body
from redo_lib.format.reader import END, NEED_DATA, LogReader, find_lwn, iter_records, tally
from redo_lib.format.records import parse_record
from redo_lib.format.vectors import parse_vectors

__all__ = [
    "END",
    "HEADER_PROBE_SIZE",
    "NEED_DATA",
    "OPCODES",
    "BlockHeader",
    "FileLayout",
    "LogReader",
    "check_blocks",
    "checksum_ok",
    "decode_redo_time",
    "encode_redo_time",
    "file_layout",
    "find_lwn",
    "iter_records",
    "parse_block_header",
    "parse_body",
    "parse_log_header",
    "parse_record",
    "parse_vectors",
    "tally",
    "write_checksum",
]
