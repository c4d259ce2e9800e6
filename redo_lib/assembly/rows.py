"""How many logical row changes a change event amounts to, for reconciliation (docs/pipeline-contract.md).

The pipeline counts in the Rust core: the decode stage per range (``crates/redo-core/src/events.rs``
``row_change_count``: the ``row_changes`` of ``pipeline.decode_range_arrow``) and the assemble stage
what it carries in and out. This is the same rule, written from redo-format §6.5 and §6.6, kept as
the oracle of the decode's counts (tests/unit/native/test_events.py counts the events of the records
that were written with it). Grouping the pieces into row changes, and shaping them into trail
records, is the core's emitter (``trail::rows``).

Layer 3 (assembly).
"""

from __future__ import annotations

from collections import Counter

from redo_lib.assembly.events import ChangeEvent, EventKind

_IRP, _DRP, _URP, _ORP, _CFA, _QMI, _QMD, _LMN, _CMP = (
    0x0B02, 0x0B03, 0x0B05, 0x0B06, 0x0B08, 0x0B0B, 0x0B0C, 0x0B10, 0x0B16,
)  # fmt: skip
_DIRECT_LOAD = 0x1301  # 19.1 direct loader block with table rows
_GROUPED = frozenset({_IRP, _DRP, _URP, _ORP, _CFA, _LMN, _CMP})  # row pieces, grouped by row
_FB_K = 0x80  # cluster key: no row data
_FB_F = 0x08  # first piece of a row
_OP_NAMES = {_IRP: "INSERT", _DRP: "DELETE"}


def row_change_count(event: ChangeEvent) -> tuple[str, int] | None:
    """How many logical row changes an event amounts to, and their operation.

    A multi-row event (11.11 QMI, 11.12 QMD, 19.1 direct-load rows) counts its rows (contract rule 4);
    a chained or migrated row counts once, on its first piece (supplemental fb F; every piece without
    supplemental logging, as in seed 000's dumps); cluster-key pieces, lone undo, lock rows and an
    LMN without supplemental data count nothing."""
    op = event.redo_op
    if event.kind is not EventKind.CHANGE:
        return None
    if op in (_QMI, _DIRECT_LOAD):
        return ("INSERT", len(event.rows))
    if op == _QMD:
        return ("DELETE", len(event.rows))
    if op not in _GROUPED or ((event.fb | event.undo_fb) & _FB_K):
        return None
    supp_fb = event.supp_fb
    if supp_fb is None:
        return None if op == _LMN else (_OP_NAMES.get(op, "UPDATE"), 1)
    if supp_fb & _FB_K or not supp_fb & _FB_F:
        return None  # counted once per row: on its first piece (F), whatever order pieces come in
    return (_OP_NAMES.get(op, "UPDATE"), 1)


def count_row_change(counter: Counter[tuple[int, str]], event: ChangeEvent) -> None:
    """Add an event's row changes to ``counter`` under (object, operation) for reconciliation;
    direct-path rows, which know only their data object, count under it."""
    counted = row_change_count(event)
    if counted is not None and counted[1]:
        counter[(event.obj or event.dataobj, counted[0])] += counted[1]
