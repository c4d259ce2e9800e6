"""Row changes: the data pairs of a committed transaction grouped into logical row operations.

Rules (redo-format §6.5, §6.6): consecutive pairs of one row (same object and supplemental row id)
accumulate until the pair whose supplemental fb has L (last); the group is an INSERT if it started
with 11.2, a DELETE if it started with 11.3, else an UPDATE (and a group that mixes becomes an
UPDATE). Pairs with the cluster-key flag K are not row data. 11.11 (array insert) and 11.12 (array
delete) give one change per row in slot order (contract rule 4). A pair without a supplemental block
(no supplemental logging, as in seed 000's dumps) is a complete single-piece row change.

Images are ``{column index: value}`` dicts (index = segcol# - 1, value None for NULL); a column not
in the dict is "not in this image". Before/after supplemental columns fill missing values after
the group is complete: that is how key columns reach updates and deletes (contract rule 12).

Layer 3 (assembly).
"""

from __future__ import annotations

import datetime as dt
import enum
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import final

from redo_lib.assembly.events import ChangeEvent, EventKind

_IRP, _DRP, _LKR, _URP, _ORP, _CFA, _QMI, _QMD, _LMN, _CMP = (
    0x0B02, 0x0B03, 0x0B04, 0x0B05, 0x0B06, 0x0B08, 0x0B0B, 0x0B0C, 0x0B10, 0x0B16,
)  # fmt: skip
_DIRECT_LOAD = 0x1301  # 19.1 direct loader block with table rows
_GROUPED = frozenset({_IRP, _DRP, _URP, _ORP, _CFA, _LMN, _CMP})
_FB_K = 0x80
_FB_L = 0x04
_FB_F = 0x08
# redo ops whose supplemental columns are after values / before values (§6.6.2)
_SUPP_AFTER = frozenset({_IRP, _LKR, _URP, _LMN})
_SUPP_BEFORE = frozenset({_DRP, _URP, _ORP, _LMN, _CFA})  # CFA: oracdc's expectations (not OLR's rule)


class RowOp(enum.Enum):
    INSERT = "INSERT"
    UPDATE = "UPDATE"
    DELETE = "DELETE"
    DDL = "DDL"


@final
@dataclass(frozen=True, slots=True, kw_only=True)
class RowChange:
    """One logical row operation of a committed transaction, at the position of its first piece."""

    op: RowOp
    obj: int
    dataobj: int
    bdba: int
    slot: int
    before: dict[int, bytes | None] = field(default_factory=dict)
    after: dict[int, bytes | None] = field(default_factory=dict)
    changed: tuple[int, ...] = ()  # column indexes the statement set (redo after image of updates)
    logged: tuple[int, ...] = ()  # column indexes that came from supplemental logging (the key)
    thread: int
    seq: int
    block: int
    offset: int
    scn: int
    subscn: int
    time: dt.datetime
    ddl_text: str = ""
    ddl_schema: str = ""


class _Group:
    __slots__ = ("first", "op", "before", "after", "supp_before", "supp_after", "changed", "obj",
                 "dataobj", "bdba", "slot", "row_id", "logged", "flags")  # fmt: skip

    def __init__(self, event: ChangeEvent) -> None:
        self.first = event
        self.op = {_IRP: RowOp.INSERT, _DRP: RowOp.DELETE}.get(event.redo_op, RowOp.UPDATE)
        self.before: dict[int, bytes | None] = {}
        self.after: dict[int, bytes | None] = {}
        self.supp_before: dict[int, bytes | None] = {}
        self.supp_after: dict[int, bytes | None] = {}
        self.changed: list[int] = []
        self.logged: set[int] = set()
        self.flags = 0
        self.obj = event.obj
        self.dataobj = event.dataobj
        self.bdba = event.bdba
        self.slot = event.row_slot
        self.row_id = (event.supp_bdba, event.supp_slot)

    def add(self, event: ChangeEvent) -> None:
        op = event.redo_op
        if (self.op is RowOp.INSERT and op in (_DRP, _URP, _ORP, _CFA)) or (
            self.op is RowOp.DELETE and op in (_IRP, _URP, _ORP, _CFA)
        ):
            self.op = RowOp.UPDATE
        _merge(self.before, event.before)
        _merge(self.after, event.after)
        if op == _URP:
            self.changed.extend(c for c, _ in event.after if c not in self.changed)
        supp = dict(event.supp_columns)
        self.logged.update(supp)
        if op in _SUPP_AFTER:
            self.supp_after.update(supp)
        if op in _SUPP_BEFORE:
            self.supp_before.update(supp)
        if op == _IRP and event.fb & _FB_F:
            # the head piece of an inserted row gives the ROWID (§6.6.1)
            self.bdba, self.slot = event.bdba, event.row_slot
        if not self.dataobj and event.dataobj:
            self.dataobj = event.dataobj

    def finish(self) -> RowChange:
        # supplemental values fill only columns the pieces did not carry: an explicit NULL in the
        # redo (SET c = NULL) stays NULL, whatever old value supplemental logging wrote for it
        for col, value in self.supp_before.items():
            self.before.setdefault(col, value)
        for col, value in self.supp_after.items():
            self.after.setdefault(col, value)
        bdba, slot = self.bdba, self.slot
        if self.op is not RowOp.INSERT and self.row_id[0]:
            bdba, slot = self.row_id
        e = self.first
        return RowChange(
            op=self.op, obj=self.obj, dataobj=self.dataobj, bdba=bdba, slot=slot,
            before=self.before, after=self.after, changed=tuple(self.changed),
            logged=tuple(sorted(self.logged)),
            thread=e.thread, seq=e.seq, block=e.block, offset=e.offset, scn=e.scn,
            subscn=e.subscn, time=e.time,
        )  # fmt: skip


def _merge(image: dict[int, bytes | None], piece: Iterable[tuple[int, bytes | None]]) -> None:
    """Later pieces of a row override earlier values of the same column.

    Columns split across pieces (P/N flags, §6.6.2) are not concatenated yet: the generator and the
    real samples never split a column; a split column would show only its last part."""
    image.update(piece)


def _multi(event: ChangeEvent, op: RowOp) -> Iterator[RowChange]:
    for slot, values in event.rows:
        image = dict(enumerate(values))
        yield RowChange(
            op=op, obj=event.obj, dataobj=event.dataobj, bdba=event.bdba, slot=slot,
            before=image if op is RowOp.DELETE else {}, after=image if op is RowOp.INSERT else {},
            thread=event.thread, seq=event.seq, block=event.block, offset=event.offset,
            scn=event.scn, subscn=event.subscn, time=event.time,
        )  # fmt: skip


def row_change_count(event: ChangeEvent) -> tuple[str, int] | None:
    """How many logical row changes an event amounts to, and their operation, for reconciliation.

    Mirrors ``iter_row_changes`` without building images: a multi-row event counts its rows; a
    chained row counts once, on its first piece (supplemental fb F; every piece without
    supplemental logging); cluster-key pieces, lone undo and lock rows count nothing."""
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


_OP_NAMES = {_IRP: "INSERT", _DRP: "DELETE"}


def count_row_change(counter: Counter[tuple[int, str]], event: ChangeEvent) -> None:
    """Add an event's row changes to ``counter`` under (object, operation) for reconciliation;
    direct-path rows, which know only their data object, count under it."""
    counted = row_change_count(event)
    if counted is not None and counted[1]:
        counter[(event.obj or event.dataobj, counted[0])] += counted[1]


def iter_row_changes(
    events: Iterable[ChangeEvent], counters: dict[str, int] | None = None
) -> Iterator[RowChange]:
    """Row changes of one committed transaction's events (in redo order)."""
    counts = counters if counters is not None else {}
    group: _Group | None = None
    for event in events:
        if event.kind is EventKind.DDL:
            yield RowChange(
                op=RowOp.DDL, obj=event.obj, dataobj=event.dataobj, bdba=0, slot=0,
                thread=event.thread, seq=event.seq, block=event.block, offset=event.offset,
                scn=event.scn, subscn=event.subscn, time=event.time, ddl_text=event.ddl_text,
                ddl_schema=event.ddl_schema,
            )  # fmt: skip
            continue
        op = event.redo_op
        if op in (_QMI, _DIRECT_LOAD):
            yield from _multi(event, RowOp.INSERT)
            continue
        if op == _QMD:
            yield from _multi(event, RowOp.DELETE)
            continue
        if op not in _GROUPED:
            continue  # lone undo, lock row, anything without row data
        supp_fb = event.supp_fb
        if ((event.fb | event.undo_fb) & _FB_K) or (supp_fb is not None and supp_fb & _FB_K):
            counts["cluster_key_pieces"] = counts.get("cluster_key_pieces", 0) + 1
            continue
        if supp_fb is None:
            if group is not None:  # pragma: no cover - mixed logging inside one transaction
                yield group.finish()
                group = None
            single = _Group(event)
            single.add(event)
            if event.redo_op != _LMN:
                yield single.finish()
            continue
        if group is not None and (
            group.obj != event.obj or group.row_id != (event.supp_bdba, event.supp_slot)
        ):
            counts["incomplete_row_groups"] = counts.get("incomplete_row_groups", 0) + 1
            yield group.finish()
            group = None
        if group is None:
            group = _Group(event)
        group.add(event)
        group.flags |= supp_fb
        # a row is complete once its first (F) and last (L) pieces are both in: pieces may come
        # last-first (chained inserts, and updates as the oracdc reverse-order records show)
        if group.flags & _FB_F and group.flags & _FB_L:
            yield group.finish()
            group = None
    if group is not None:
        counts["incomplete_row_groups"] = counts.get("incomplete_row_groups", 0) + 1
        yield group.finish()
