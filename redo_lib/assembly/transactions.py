"""TransactionTable: the state machine from change events to committed transactions.

Transitions (key = (usn, slot); redo-format §6.2, §6.3; trail contract rules 1, 2, 5):

| event            | no open transaction on key             | open transaction, same sqn              |
|------------------|----------------------------------------|-----------------------------------------|
| BEGIN            | open it                                | ignored (repeated begin)                |
| CHANGE / DDL     | counted: ``change_without_begin``      | appended to its buffer                  |
| LOB (piece)      | counted: ``lob_without_begin``         | appended to its buffer                  |
| PARTIAL_ROLLBACK | counted: ``rollback_unmatched``        | cancels the newest matching change (LOB |
|                  |                                        | pieces on top first, §6.3)              |
| COMMIT           | counted: ``commit_without_begin``      | closed; returned as CommittedTransaction|
|                  |                                        | (held instead at SCN >= ``hold_from``)  |
| ROLLBACK         | counted: ``rollback_without_begin``    | closed; its changes counted as cancelled|

A BEGIN or change on a key whose open transaction has another sqn means the earlier transaction's
end was never seen: it is dropped and counted as ``lost_transaction`` (with its xid), never merged.
A change without a begin belongs to a transaction that began before the first log this run was
given (and no carried state says otherwise): it cannot be emitted whole (rule 5), so it is counted.

The table is fed events in redo order (one thread, or several merged by SCN, see threads.py).
State carried to the next batch is the list of open transactions' events (``carry_out``), plain
values that go to Parquet; the next batch's table resumes by being fed them (before, or merged in
redo order with, its own events: a held transaction's commit among them commits there).

Held commits (RAC, rule 6 across batches): a batch of several threads has every thread's redo only
below its watermark SCN (``discovery/plans.py``); a commit at or above it may be preceded, in commit
order, by a commit of another thread that only the next batch reads. With ``hold_from`` set to the
watermark, such a transaction is closed on its slot (the slot may begin a new transaction) but not
returned: it is *held*, counted as ``held``, and carried out like an open transaction with its
COMMIT event last, so the next batch meets the commit again and emits it in its place (or holds it
again). A rollback is never held: it emits nothing, so its place in commit order does not matter.
"""

from __future__ import annotations

import datetime as dt
import itertools
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import final

from redo_lib.assembly.carry import DEFAULT_MEMORY_LIMIT, ChangeBuffer
from redo_lib.assembly.events import ChangeEvent, EventKind
from redo_lib.assembly.rows import count_row_change
from redo_lib.errors import AssemblyError, ErrorPolicy, Position
from redo_lib.scn import Xid

# compensating redo op -> the buffered redo op it cancels (redo-format §6.3)
_INVERSE = {
    0x0B03: 0x0B02,  # DRP cancels IRP
    0x0B02: 0x0B03,
    0x0B05: 0x0B05,
    0x0B06: 0x0B06,
    0x0B08: 0x0B08,
    0x0B0B: 0x0B0C,  # QMI cancels QMD
    0x0B0C: 0x0B0B,
    0x0B16: 0x0B16,
}


@final
@dataclass(frozen=True, slots=True, kw_only=True)
class CommittedTransaction:
    """A committed transaction and its net changes, in redo order. ``changes`` may be on disk."""

    xid: Xid
    commit_scn: int
    commit_time: dt.datetime
    thread: int
    seq: int
    block: int
    offset: int
    begin_scn: int
    changes: ChangeBuffer = field(repr=False, compare=False)

    @property
    def order_key(self) -> tuple[int, int, int, int, int]:
        """Commit order (contract rule 6): commit SCN, then thread, then commit record position."""
        return (self.commit_scn, self.thread, self.seq, self.block, self.offset)

    def __iter__(self) -> Iterator[ChangeEvent]:
        return iter(self.changes)


class _Open:
    __slots__ = ("begin", "buffer", "commit")

    def __init__(self, begin: ChangeEvent, buffer: ChangeBuffer) -> None:
        self.begin = begin
        self.buffer = buffer
        self.commit: ChangeEvent | None = None  # set when the transaction is held (see module doc)


class TransactionTable:
    """Open transactions keyed by (usn, slot). Feed events; collect committed transactions."""

    def __init__(
        self,
        *,
        memory_limit: int = DEFAULT_MEMORY_LIMIT,
        policy: ErrorPolicy = ErrorPolicy.SKIP,
        spill_dir: str | None = None,
        hold_from: int | None = None,
    ) -> None:
        self._open: dict[tuple[int, int], _Open] = {}
        self._held: list[_Open] = []  # committed at or above hold_from: carried out, not returned
        self._hold_from = hold_from
        self._limit = memory_limit
        self._policy = policy
        self._spill_dir = spill_dir
        self.counters: Counter[str] = Counter()
        # row changes by (obj, op) that will never reach the trail: rolled back (wholly or to a
        # savepoint), or orphaned (their transaction began before anything this table was given)
        self.cancelled: Counter[tuple[int, str]] = Counter()
        self.orphaned: Counter[tuple[int, str]] = Counter()
        self.issues: list[tuple[str, str, Position]] = []  # (kind, xid, position), for the report

    # -- queries ---------------------------------------------------------------------------------
    def __len__(self) -> int:
        return len(self._open)

    def open_xids(self) -> list[Xid]:
        return sorted(o.begin.xid for o in self._open.values())

    def held_xids(self) -> list[Xid]:
        return sorted(o.begin.xid for o in self._held)

    def carry_out(self) -> Iterator[ChangeEvent]:
        """The open and held transactions' events (begin first; a held one's COMMIT last), in begin
        order: the state for the next batch."""
        for entry in sorted([*self._open.values(), *self._held], key=lambda o: o.begin.sort_key):
            yield entry.begin
            yield from entry.buffer
            if entry.commit is not None:
                yield entry.commit

    # -- transitions -----------------------------------------------------------------------------
    def feed(self, event: ChangeEvent) -> CommittedTransaction | None:
        key = (event.usn, event.slot)
        current = self._open.get(key)
        kind = event.kind
        if kind is EventKind.BEGIN:
            if current is not None:
                if current.begin.sqn == event.sqn:
                    return None
                self._lose(current, event)
            self._open[key] = _Open(event, ChangeBuffer(self._limit, self._spill_dir))
            self.counters["begun"] += 1
            return None
        if kind is EventKind.PARTIAL_ROLLBACK:
            if current is None:
                self._note("rollback_unmatched", event)
            else:
                self._cancel_last(current, event)
            return None
        if current is None or current.begin.sqn != event.sqn:
            if current is not None:
                # the slot was reused by a transaction whose begin we did not see
                self._lose(current, event)
                del self._open[key]
            name = {
                EventKind.CHANGE: "change_without_begin",
                EventKind.DDL: "change_without_begin",
                EventKind.LOB: "lob_without_begin",
                EventKind.COMMIT: "commit_without_begin",
                EventKind.ROLLBACK: "rollback_without_begin",
            }[kind]
            self._note(name, event)
            if kind is EventKind.CHANGE:
                count_row_change(self.orphaned, event)
            return None
        if kind in (EventKind.CHANGE, EventKind.DDL, EventKind.LOB):
            current.buffer.append(event)
            return None
        del self._open[key]
        if kind is EventKind.ROLLBACK:
            for change in current.buffer:
                count_row_change(self.cancelled, change)
            current.buffer.close()
            self.counters["rolled_back"] += 1
            return None
        if self._hold_from is not None and event.scn >= self._hold_from:
            current.commit = event
            self._held.append(current)
            self.counters["held"] += 1
            return None
        self.counters["committed"] += 1
        return CommittedTransaction(
            xid=event.xid,
            commit_scn=event.scn,
            commit_time=event.time,
            thread=event.thread,
            seq=event.seq,
            block=event.block,
            offset=event.offset,
            begin_scn=current.begin.scn,
            changes=current.buffer,
        )

    def _cancel_last(self, current: _Open, event: ChangeEvent) -> None:
        """Partial rollback: remove the newest change this compensation undoes (LIFO, §6.3)."""
        buffer = current.buffer
        last = buffer.last()
        if last is None:
            self._note("rollback_unmatched", event)
            return
        if event.redo_op == 0:
            # stand-alone 5.6/5.11: cancels a LOB piece, a lone undo or an LMN of the same object
            if last.kind is EventKind.LOB and last.obj == event.obj:
                buffer.pop()
                self.counters["lob_pieces_rolled_back"] += 1
            elif last.redo_op in (0, 0x0B10) and last.obj == event.obj:
                buffer.pop()
                count_row_change(self.cancelled, last)  # an LMN with supplemental data is a row change
                self.counters["partial_rollbacks"] += 1
            else:
                self._note("rollback_unmatched", event)
            return
        while last is not None and last.kind is EventKind.LOB:
            # LOB pieces on top are popped unconditionally before the data pair (OLR, §6.3)
            buffer.pop()
            self.counters["lob_pieces_rolled_back"] += 1
            last = buffer.last()
        if last is None:
            self._note("rollback_unmatched", event)
            return
        wanted = _INVERSE.get(event.redo_op)
        if wanted is not None and last.redo_op == wanted and (last.obj == event.obj or not event.obj):
            buffer.pop()
            count_row_change(self.cancelled, last)
            self.counters["partial_rollbacks"] += 1
        else:
            self._note("rollback_unmatched", event)

    def _lose(self, current: _Open, event: ChangeEvent) -> None:
        self._note("lost_transaction", current.begin)
        if self._policy is ErrorPolicy.RAISE:
            raise AssemblyError(
                "transaction slot reused before its commit or rollback was seen",
                position=_position(event),
                xid=current.begin.xid,
                new_xid=event.xid,
            )
        for change in current.buffer:
            count_row_change(self.orphaned, change)
        current.buffer.close()

    def _note(self, kind: str, event: ChangeEvent) -> None:
        self.counters[kind] += 1
        if len(self.issues) < 1000:
            self.issues.append(
                (
                    kind,
                    event.xid.trail() if event.sqn >= 0 else f"{event.usn}.{event.slot}.?",
                    _position(event),
                )
            )


def _position(event: ChangeEvent) -> Position:
    return Position(sequence=event.seq, block=event.block, offset=event.offset)


def assemble(
    events: Iterable[ChangeEvent],
    carried: Iterable[ChangeEvent] = (),
    *,
    memory_limit: int = DEFAULT_MEMORY_LIMIT,
) -> tuple[list[CommittedTransaction], list[ChangeEvent], TransactionTable]:
    """The assembler as a pure function: (events of a batch in redo order, open transactions carried
    in) -> (committed transactions in commit order, open transactions carried out, the table with
    its counters). Committed transactions' changes may be spilled to disk; iterate them lazily."""
    table = TransactionTable(memory_limit=memory_limit)
    committed = [txn for txn in map(table.feed, itertools.chain(carried, events)) if txn is not None]
    committed.sort(key=lambda t: t.order_key)
    return committed, list(table.carry_out()), table
