"""The OPCODES table: ``(layer, code)`` -> body parser, and the categories of opaque vectors.

Parsed (redo-format §5): 5.1, 5.2, 5.4, 5.6, 5.11, 5.19, 5.20, the 11.x row operations, 11.17 LLB,
19.1, 24.1 and 26.2 LOB redo. Everything else becomes ``Opaque(category)`` — classified by layer, counted by the report,
never an error. One shared ``Opaque`` instance per category (it is immutable), so opaque vectors
cost no allocation. Layer 1.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from redo_lib.format.layout import FileLayout
from redo_lib.format.model import Opaque, OpBody
from redo_lib.format.ops.ddl import parse_ddl
from redo_lib.format.ops.direct_load import parse_direct_load
from redo_lib.format.ops.lob import parse_llb, parse_lob_redo
from redo_lib.format.ops.rows import ROW_OPCODES, parse_row_operation
from redo_lib.format.ops.session import parse_session_continue, parse_session_start
from redo_lib.format.ops.undo import (
    parse_partial_rollback,
    parse_transaction_begin,
    parse_transaction_end,
    parse_undo_record,
)

BodyParser = Callable[[Sequence[bytes], int, FileLayout], OpBody]

OPCODES: dict[tuple[int, int], BodyParser] = {
    (5, 1): parse_undo_record,
    (5, 2): parse_transaction_begin,
    (5, 4): parse_transaction_end,
    (5, 6): parse_partial_rollback,
    (5, 11): parse_partial_rollback,
    (5, 19): parse_session_start,
    (5, 20): parse_session_continue,
    (19, 1): parse_direct_load,
    (24, 1): parse_ddl,
    (26, 2): parse_lob_redo,
    (11, 17): parse_llb,
    **{(11, code): parse_row_operation for code in ROW_OPCODES},
}

# Layer -> category of the vectors we do not interpret (names from Oracle's layer list).
LAYER_CATEGORIES: dict[int, str] = {
    4: "cleanout",  # 4.x block cleanout
    5: "undo",  # other transaction-layer ops (5.5, 5.24, ...)
    10: "index",
    11: "row",  # row ops we do not parse (11.1 IUR, 11.17 LLB, 11.19 array update, ...)
    13: "space",  # segment / block allocation
    14: "extent",
    17: "backup",
    18: "backup",
    19: "direct_load",
    20: "metadata",
    22: "space",  # locally managed / ASSM space ops
    23: "block_write",
    24: "logminer",  # 24.x other than 24.1 (MISC, DLR10, XML, ...)
    26: "lob",
}

ENCRYPTED = Opaque(category="encrypted")
_OPAQUE: dict[str, Opaque] = {name: Opaque(category=name) for name in {*LAYER_CATEGORIES.values(), "unknown"}}


OPAQUE_BY_LAYER: dict[int, Opaque] = {layer: _OPAQUE[name] for layer, name in LAYER_CATEGORIES.items()}
UNKNOWN = _OPAQUE["unknown"]


def opaque_for(layer: int) -> Opaque:
    """The shared ``Opaque`` body for a vector of ``layer`` that we do not interpret."""
    return _OPAQUE[LAYER_CATEGORIES.get(layer, "unknown")]


def parse_body(
    layer: int, code: int, change_type: int, fields: Sequence[bytes], block_class: int, layout: FileLayout
) -> OpBody:
    """The op body of one vector. Encrypted vectors (TYP bit 0x80, §4.1) stay opaque."""
    if change_type & 0x80:
        return ENCRYPTED
    parser = OPCODES.get((layer, code))
    if parser is None:
        return opaque_for(layer)
    return parser(fields, block_class, layout)
