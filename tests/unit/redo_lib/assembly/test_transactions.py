"""The transaction table (the Rust core's ``native.TransactionTable``): commit, rollback, partial
rollback, carry, held commits, and its change buffer's spill.

Events are built by hand from the scenario each test describes (what SQL ran), never taken from
the decoder's output; they go to the core as record batches (``tests/unit/native/core_assembly.py``)
and come back the same way.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import itertools
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from redo_lib.assembly.events import NO_SQN, ChangeEvent, EventKind
from redo_lib.errors import AssemblyError, ErrorPolicy
from redo_lib.native import native
from redo_lib.scn import Xid
from tests.unit.native.core_assembly import assemble, carry_out, feed, spill_files

T0 = dt.datetime(2026, 3, 7, 1, 44, 38)
IRP, DRP, URP = 0x0B02, 0x0B03, 0x0B05
_pos = itertools.count(1)


def ev(kind: EventKind, usn: int = 4, slot: int = 11, sqn: int = 854, *, op: int = 0, obj: int = 100,
       thread: int = 1) -> ChangeEvent:  # fmt: skip
    n = next(_pos)
    return ChangeEvent(
        kind=kind, usn=usn, slot=slot, sqn=sqn, thread=thread, seq=1, block=2 + n // 10,
        offset=16 + (n % 10) * 40, scn=1000 + n, subscn=1, time=T0, obj=obj, redo_op=op,
    )  # fmt: skip


def begin(**kw: int) -> ChangeEvent:
    return ev(EventKind.BEGIN, **kw)


def change(op: int, **kw: int) -> ChangeEvent:
    return ev(EventKind.CHANGE, op=op, **kw)


def commit(**kw: int) -> ChangeEvent:
    return ev(EventKind.COMMIT, **kw)


def undo_last(op: int, usn: int = 4, slot: int = 11, obj: int = 100) -> ChangeEvent:
    """The compensating change of a rollback to savepoint: inverse op + 5.6, named by (usn, slot)."""
    return ev(EventKind.PARTIAL_ROLLBACK, usn=usn, slot=slot, sqn=NO_SQN, op=op, obj=obj)


def test_commit_returns_changes_in_redo_order() -> None:
    events = [begin(), change(IRP), change(URP), commit()]
    committed, carried, _ = assemble(events)
    assert [c.redo_op for c in committed[0].changes] == [IRP, URP]
    assert committed[0].xid.trail() == "4.11.854"
    assert committed[0].commit_scn == events[-1].scn
    assert carried == []


def test_rolled_back_transaction_leaves_nothing_and_is_counted() -> None:
    events = [begin(), change(IRP), change(IRP), ev(EventKind.ROLLBACK)]
    committed, carried, table = assemble(events)
    assert committed == [] and carried == []
    assert table.cancelled[(100, "INSERT")] == 2


def test_rollback_to_savepoint_cancels_exactly_the_changes_after_it() -> None:
    # INSERT a; SAVEPOINT s; INSERT b; UPDATE c; ROLLBACK TO s; INSERT d; COMMIT
    a, b, c, d = change(IRP, obj=1), change(IRP, obj=2), change(URP, obj=3), change(IRP, obj=4)
    events = [begin(), a, b, c, undo_last(URP, obj=3), undo_last(DRP, obj=2), d, commit()]
    committed, _, table = assemble(events)
    assert [e.obj for e in committed[0].changes] == [1, 4]
    assert table.counters["partial_rollbacks"] == 2


def test_compensation_that_matches_nothing_is_counted_not_applied() -> None:
    events = [begin(), change(IRP, obj=1), undo_last(URP, obj=1), commit()]
    committed, _, table = assemble(events)
    assert [e.obj for e in committed[0].changes] == [1]
    assert table.counters["rollback_unmatched"] == 1


def test_interleaved_transactions_commit_in_commit_scn_order() -> None:
    t1 = {"usn": 1, "slot": 1, "sqn": 10}
    t2 = {"usn": 2, "slot": 5, "sqn": 20}
    events = [begin(**t1), begin(**t2), change(IRP, **t1), change(IRP, **t2), commit(**t2), commit(**t1)]
    committed, _, _ = assemble(events)
    assert [c.xid.trail() for c in committed] == ["2.5.20", "1.1.10"]


def test_change_without_begin_is_counted_with_its_xid() -> None:
    committed, _, table = assemble([change(IRP, usn=7, slot=3, sqn=9), commit(usn=7, slot=3, sqn=9)])
    assert committed == []
    assert table.counters["change_without_begin"] == 1
    assert table.issues[0][1] == "7.3.9"


def test_slot_reuse_without_end_raises_under_raise_policy() -> None:
    table = native.TransactionTable(policy=ErrorPolicy.RAISE.value)
    feed(table, [begin(sqn=1)])
    with pytest.raises(AssemblyError, match="slot reused"):
        feed(table, [begin(sqn=2)])


def test_open_transaction_is_carried_and_completed_in_the_next_batch() -> None:
    batch1 = [begin(), change(IRP, obj=1)]
    batch2 = [change(IRP, obj=2), commit()]
    committed1, carried, _ = assemble(batch1)
    assert committed1 == [] and [e.kind for e in carried] == [EventKind.BEGIN, EventKind.CHANGE]
    rows = [e.to_row() for e in carried]  # the carried state is plain rows
    committed2, carried2, _ = assemble(batch2, [ChangeEvent.from_row(r) for r in rows])
    assert [e.obj for e in committed2[0].changes] == [1, 2] and carried2 == []


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(min_value=0, max_value=40), max_size=4))
def test_any_cut_into_batches_gives_the_same_transactions(cuts: list[int]) -> None:
    # a fixed interleaving of 3 transactions with a savepoint rollback and a full rollback
    t = [{"usn": u, "slot": u, "sqn": u * 10} for u in (1, 2, 3)]
    events = [
        begin(**t[0]), change(IRP, obj=1, **t[0]), begin(**t[1]), change(IRP, obj=2, **t[1]),
        begin(**t[2]), change(URP, obj=3, **t[2]), change(IRP, obj=4, **t[0]),
        undo_last(DRP, usn=1, slot=1, obj=4), commit(**t[1]), change(DRP, obj=5, **t[2]),
        ev(EventKind.ROLLBACK, **t[2]), change(URP, obj=6, **t[0]), commit(**t[0]),
    ]  # fmt: skip
    whole, _, _ = assemble(events)
    expected = [(c.xid, [e.obj for e in c.changes]) for c in whole]
    points = sorted({min(c, len(events)) for c in cuts})
    carried: list[ChangeEvent] = []
    got = []
    start = 0
    for end in [*points, len(events)]:
        committed, carried, _ = assemble(events[start:end], carried)
        got.extend((c.xid, [e.obj for e in c.changes]) for c in committed)
        start = end
    assert expected == [(Xid(2, 2, 20), [2]), (Xid(1, 1, 10), [1, 6])]
    assert got == expected


def test_buffer_spills_and_keeps_order_with_bounded_memory(tmp_path: Path) -> None:
    # INSERT 95 rows in one transaction with 10 events in memory: the older ones go to a spill file
    table = native.TransactionTable(memory_limit=10, spill_dir=str(tmp_path))
    assert spill_files(tmp_path) == 0
    feed(table, [begin(), *(change(IRP, obj=i) for i in range(95))], chunk=7)
    assert spill_files(tmp_path) == 1
    # ROLLBACK TO SAVEPOINT undoing the last 12 inserts: pops across the spill boundary (LIFO, §6.3)
    feed(table, [undo_last(DRP, obj=i) for i in range(94, 82, -1)])
    assert table.counters["partial_rollbacks"] == 12
    (txn,) = feed(table, [commit()])
    assert [e.obj for e in txn.changes] == list(range(83))
    assert spill_files(tmp_path) == 0  # the spill file went with the transaction's changes


def test_commit_at_or_above_the_watermark_is_held_and_carried_with_its_commit() -> None:
    # RAC: thread 1 commits T1 below the batch's watermark and T2 above it; T2 waits for the next
    # batch (which has thread 2's redo up to T2's commit), and its slot begins T3 meanwhile
    t1 = {"usn": 1, "slot": 1, "sqn": 10}
    t2 = {"usn": 2, "slot": 5, "sqn": 20}
    t3 = {"usn": 2, "slot": 5, "sqn": 21}
    head = [begin(**t1), change(IRP, **t1), commit(**t1), begin(**t2), change(URP, **t2)]
    end2 = commit(**t2)
    tail = [begin(**t3), change(IRP, **t3)]
    table = native.TransactionTable(hold_from=end2.scn)
    committed = feed(table, [*head, end2, *tail])
    assert [c.xid.trail() for c in committed] == ["1.1.10"]
    assert table.counters["held"] == 1 and table.counters["committed"] == 1
    assert "lost_transaction" not in table.counters  # the held slot was free for T3
    carried = carry_out(table)
    assert carried == [head[3], head[4], end2, *tail]  # begin order; a held commit comes last
    # the next batch meets the commit again, below its own watermark: emitted there
    resumed = native.TransactionTable(hold_from=end2.scn + 1000)
    again = feed(resumed, carried)
    assert [c.xid.trail() for c in again] == ["2.5.20"] and resumed.held_xids() == []
    assert [x.trail() for x in resumed.open_xids()] == ["2.5.21"]


def test_held_commit_is_held_again_while_below_no_watermark_reaches_it() -> None:
    t2 = {"usn": 2, "slot": 5, "sqn": 20}
    events = [begin(**t2), change(IRP, **t2), commit(**t2)]
    table = native.TransactionTable(hold_from=events[-1].scn)
    assert feed(table, events) == []
    again = native.TransactionTable(hold_from=events[-1].scn)  # the next batch's watermark did not move
    assert feed(again, carry_out(table)) == []
    assert again.counters["held"] == 1 and carry_out(again) == events
    committed, carried, _ = assemble([], carry_out(again))  # no watermark: everything commits
    assert [c.xid.trail() for c in committed] == ["2.5.20"] and carried == []
    assert [e.redo_op for e in committed[0].changes] == [IRP]


def test_rollback_above_the_watermark_is_not_held() -> None:
    events = [begin(), change(IRP), ev(EventKind.ROLLBACK)]
    table = native.TransactionTable(hold_from=events[0].scn)
    assert feed(table, events) == []
    assert carry_out(table) == [] and table.counters["rolled_back"] == 1
    assert table.cancelled[(100, "INSERT")] == 1


def test_a_lone_compensation_of_a_supplemented_lmn_counts_it_cancelled() -> None:
    # an LMN (11.16) with supplemental logging, first piece: one UPDATE for the reconciliation, as
    # decoded; a rollback to savepoint undoes it with a stand-alone 5.6, so it is one UPDATE cancelled
    lmn = dataclasses.replace(change(0x0B10, obj=7), supp_fb=0x08)
    committed, _, table = assemble([begin(), lmn, undo_last(0, obj=7), commit()])
    assert committed[0].changes == [] and table.counters["partial_rollbacks"] == 1
    assert table.cancelled[(7, "UPDATE")] == 1
