"""The Rust transaction table (``redo_lib._native.TransactionTable``, ``crates/redo-core/src/
assembly/``) on its own. It was checked against the Python table it replaced, event for event, on
every input below (and 1,000 random seeds of the whole stage) before that was deleted; what stays is
what needs no second implementation:

* spilling changes nothing: a few events in memory per transaction (or a byte budget of one byte)
  gives what 50,000 give, field for field (``core_assembly.assert_same``);
* cutting a stream into batches, each fed the previous one's carry-out first, commits the same
  transactions with the same changes, counts the same and carries out the same at the end as the
  whole stream (``_as_one``), with held commits too;
* what each hand-built stream of the transition table is there to show (counters, issues, held
  commits and their carry-out order, the raise policy's error and position), written from the
  stream;
* on impossible streams (random events, generated workloads shuffled and truncated) never a panic
  (a ``pyo3_runtime.PanicException`` is no ``RedoError``), no error under the skip policy and only
  ``AssemblyError`` under the raise policy, and every transaction begun accounted for: committed,
  rolled back, held, lost or still open.

Inputs: every named scenario of include/scenarios in redo and (usn, slot) order; random seeds (9
here, 200 with ``-m slow``) cut into carried batches; the real 23.6 logs and the oracdc records;
hand-built streams for every row of the transition table; hypothesis streams.
"""

from __future__ import annotations

import datetime as dt
import json
import random
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from redo_lib.assembly.events import ChangeEvent, EventKind, event_to_row, events_schema
from redo_lib.errors import AssemblyError, ErrorPolicy
from redo_lib.native import native

from .core_assembly import (
    ORACDC,
    ROPHY_LOGS,
    SCENARIOS,
    BatchResult,
    assert_same,
    decode,
    generated,
    rows_by_slot,
    rows_in_redo_order,
    run_table,
    split,
)

T0 = dt.datetime(2024, 5, 1, 12, 0, 0)


@pytest.fixture(scope="module")
def gen_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("native-assembly")


def spilled(batches: list[list[dict[str, Any]]], **options: Any) -> list[BatchResult]:
    """The table over ``batches`` with 50,000 events in memory, asserted the same as with the given
    ``memory_limit`` / ``memory_bytes`` / ``chunk`` (spilling); the first run returned."""
    kept = {
        k: v for k, v in options.items() if k not in ("memory_limit", "memory_bytes", "spill_dir", "chunk")
    }
    whole = run_table(batches, **kept)
    assert_same(whole, run_table(batches, **options))
    return whole


def _as_one(results: list[BatchResult]) -> dict[str, Any]:
    """What a run over carried batches amounts to, as one run would give it: the committed
    transactions (in commit order), the counters but ``begun`` and ``held`` (a carried-in begin is
    fed again; a held commit commits later), cancelled / orphaned row changes and issues summed, the
    last batch's carry-out and open transactions, the error."""
    counters: Counter[str] = Counter()
    cancelled: Counter[Any] = Counter()
    orphaned: Counter[Any] = Counter()
    for r in results:
        counters.update({k: v for k, v in r.counters.items() if k not in ("begun", "held")})
        cancelled.update(r.cancelled)
        orphaned.update(r.orphaned)
    committed = [t for r in results for t in r.committed]
    return {
        "committed": sorted(committed, key=lambda t: t["order_key"]),
        "counters": dict(counters),
        "cancelled": dict(cancelled),
        "orphaned": dict(orphaned),
        "issues": [i for r in results for i in r.issues],
        "carried": results[-1].carried,
        "open": results[-1].open,
        "error": results[-1].error,
    }


def carried_like_whole(rows: list[dict[str, Any]], cuts: list[int], **options: Any) -> list[BatchResult]:
    """The stream cut before each of ``cuts`` amounts to the whole stream (``_as_one``); the batches'
    results returned. ``hold_from``: one watermark per batch (the last ``None``)."""
    whole = run_table([rows], **{k: v for k, v in options.items() if k != "hold_from"})
    batches = run_table(split(rows, cuts), **options)
    assert _as_one(batches) == _as_one(whole)
    return batches


def _holds(rows: list[dict[str, Any]], cuts: list[int], back: int) -> list[int | None]:
    """Held-commit watermarks: batch i holds commits at or above the SCN ``back`` events before its
    end (so some commits of each batch wait for the next); the last batch holds none."""
    marks: list[int | None] = [rows[max(cut - back, 0)]["scn"] for cut in sorted(cuts)]
    return [*marks, None]


# -- generated workloads ----------------------------------------------------------------------------


@pytest.mark.parametrize("name", SCENARIOS)
@pytest.mark.parametrize("order", ["redo", "slot"])
def test_named_scenario(name: str, order: str, gen_dir: Path) -> None:
    events = generated(name, gen_dir).events
    rows = rows_in_redo_order(events) if order == "redo" else rows_by_slot(events)
    # spilling: a few events in memory per transaction, in record batches of 7
    result = spilled([rows], memory_limit=3, chunk=7)
    assert result[0].counters.get("begun", 0) > 0 and result[0].committed


@pytest.mark.parametrize("seed", range(9))
def test_random_seed_in_batches(seed: int, gen_dir: Path) -> None:
    rows = rows_in_redo_order(generated(f"seed-{seed}", gen_dir).events)
    rnd = random.Random(seed)
    cuts = sorted(rnd.sample(range(1, len(rows)), 3))
    carried_like_whole(rows, cuts)
    spilled(split(rows, cuts), memory_limit=rnd.choice([2, 3, 5]), chunk=rnd.choice([1, 13, 500]))
    holds = _holds(rows, cuts, rnd.choice([1, 5, 40]))
    carried_like_whole(rows, cuts, hold_from=holds)
    spilled(split(rows, cuts), hold_from=holds, memory_limit=4)


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(9, 209))
def test_random_seed_sweep(seed: int, gen_dir: Path) -> None:
    test_random_seed_in_batches(seed, gen_dir)


def test_spill_beyond_the_byte_limit_changes_nothing(gen_dir: Path) -> None:
    """The buffer also spills on bytes (every event's data): a byte limit of 1 spills at every second
    event and the output is the same."""
    rows = rows_in_redo_order(generated("lobs", gen_dir).events)
    spilled([rows], memory_bytes=1, spill_dir=str(gen_dir))


# -- real data --------------------------------------------------------------------------------------


@pytest.mark.realdata
def test_real_logs() -> None:
    if not all(p.exists() for p in ROPHY_LOGS):
        pytest.skip(f"real data not available: {ROPHY_LOGS[0].parent}")
    events = decode(ROPHY_LOGS)
    rows = rows_in_redo_order(events)
    spilled([rows], memory_limit=2, chunk=5)
    # cut at the log switch: what the first log leaves open is carried into the second
    first = sum(1 for e in events if e.seq == 15)
    carried_like_whole(rows, [first])
    spilled(split(rows, [first]), memory_limit=2)
    carried_like_whole(rows, [first], hold_from=_holds(rows, [first], 3))


@pytest.mark.realdata
def test_oracdc_records() -> None:
    """225 single records of real databases: their events, mostly without their transaction's begin
    (orphaned changes, commits and partial rollbacks without begin), with real column values."""
    if not ORACDC.exists():
        pytest.skip(f"real data not available: {ORACDC}")
    from redo_lib.assembly.events import iter_events
    from tests.unit.redo_lib.format.realdata import parse_oracdc_record

    events = [
        e
        for line in ORACDC.read_text().splitlines()
        for e in iter_events(parse_oracdc_record(json.loads(line)))
    ]
    assert len(events) > 100
    result = spilled([rows_in_redo_order(events)], memory_limit=2)
    assert result[0].orphaned and result[0].counters["change_without_begin"] > 50
    spilled([[event_to_row(e) for e in events]], memory_limit=2)


# -- hand-built streams: one per row of the transition table ---------------------------------------


class Stream:
    """Events with increasing positions and SCNs (one redo record each)."""

    def __init__(self) -> None:
        self.events: list[ChangeEvent] = []

    def add(self, kind: EventKind, xid: tuple[int, int, int] = (1, 2, 3), **fields: Any) -> Stream:
        n = len(self.events) + 1
        usn, slot, sqn = xid
        fields.setdefault("scn", 1000 + n)
        fields.setdefault("thread", 1)
        fields.setdefault("block", 2 + n)
        self.events.append(
            ChangeEvent(
                kind=kind,
                usn=usn,
                slot=slot,
                sqn=sqn,
                seq=7,
                offset=16,
                subscn=0,
                time=T0 + dt.timedelta(seconds=n),
                **fields,
            )  # fmt: skip
        )
        return self

    def begin(self, xid: tuple[int, int, int] = (1, 2, 3), **f: Any) -> Stream:
        return self.add(EventKind.BEGIN, xid, **f)

    def change(self, op: int = 0x0B02, xid: tuple[int, int, int] = (1, 2, 3), **f: Any) -> Stream:
        f.setdefault("obj", 70)
        f.setdefault("after", ((0, b"\xc1\x02"), (1, None)))
        return self.add(EventKind.CHANGE, xid, redo_op=op, **f)

    def undo(self, op: int, xid: tuple[int, int, int] = (1, 2, -1), **f: Any) -> Stream:
        f.setdefault("obj", 70)
        return self.add(EventKind.PARTIAL_ROLLBACK, xid, redo_op=op, **f)

    def lob(self, xid: tuple[int, int, int] = (1, 2, 3), **f: Any) -> Stream:
        f.setdefault("obj", 70)
        return self.add(
            EventKind.LOB, xid, redo_op=0x1A02, lob_id=b"L" * 10, lob_page=1, lob_data=b"data" * 9, **f
        )

    def commit(self, xid: tuple[int, int, int] = (1, 2, 3), **f: Any) -> Stream:
        return self.add(EventKind.COMMIT, xid, **f)

    def rollback(self, xid: tuple[int, int, int] = (1, 2, 3), **f: Any) -> Stream:
        return self.add(EventKind.ROLLBACK, xid, **f)

    def rows(self) -> list[dict[str, Any]]:
        return [event_to_row(e) for e in self.events]


STREAMS: dict[str, Stream] = {
    "begin_change_commit": Stream().begin().change().change(0x0B05, before=((1, b"a"),)).commit(),
    "repeated_begin": Stream().begin().change().begin().change().commit(),
    "slot_reuse_by_begin": Stream().begin().change().begin((1, 2, 4)).change(xid=(1, 2, 4)).commit((1, 2, 4)),
    "slot_reuse_by_change": Stream().begin().change().change(xid=(1, 2, 9)).commit((1, 2, 9)),
    "slot_reuse_by_commit": Stream().begin().change().commit((1, 2, 9)),
    "change_without_begin": Stream()
    .change()
    .change(0x0B03)
    .change(0x0B0B, rows=((0, (b"x",)), (1, (None,)))),
    "ddl_lob_commit_rollback_without_begin": Stream()
    .add(EventKind.DDL, ddl_text="create table t (a number)", ddl_schema="U")
    .lob()
    .commit()
    .rollback(),
    "undo_without_its_change": Stream().undo(0x0B03).begin().undo(0x0B03).commit(),
    "partial_rollback_pairs": Stream()
    .begin()
    .change(0x0B02)
    .change(0x0B05)
    .change(0x0B0B, rows=((0, (b"1",)), (1, (b"2",))))
    .undo(0x0B0C)
    .undo(0x0B05)
    .undo(0x0B03, obj=0)
    .commit(),
    "partial_rollback_unmatched": Stream()
    .begin()
    .change(0x0B02)
    .undo(0x0B05)
    .undo(0x0B03, obj=71)
    .undo(0x0B99)
    .commit(),
    "lob_pieces_on_top": Stream().begin().change(0x0B02).lob().lob().undo(0x0B03).lob().undo(0x0B03).commit(),
    "lone_undo_cancels": Stream()
    .begin()
    .change(0)
    .undo(0)
    .change(0x0B10, supp_fb=0x0C)
    .undo(0)
    .lob()
    .undo(0)
    .lob(obj=71)
    .undo(0)
    .commit(),
    "rollback_counts_cancelled": Stream()
    .begin()
    .change(0x0B02, supp_fb=0x0C, supp_bdba=5, supp_slot=1)
    .change(0x0B05, supp_fb=0x08)
    .change(0x0B05, supp_fb=0x04)
    .change(0x0B0C, rows=((3, ()), (4, ())))
    .rollback(),
    "supplemental_and_cluster_keys": Stream()
    .change(0x0B05, supp_fb=0x8C)
    .change(0x0B05, fb=0x80)
    .change(0x1301, dataobj=80, obj=0, rows=((0, (b"a", None)),)),
    "interleaved_transactions": Stream()
    .begin((1, 2, 3))
    .begin((2, 5, 8), thread=2)
    .change(xid=(1, 2, 3))
    .change(0x0B03, xid=(2, 5, 8), thread=2)
    .commit((2, 5, 8), thread=2)
    .change(xid=(1, 2, 3))
    .begin((3, 1, 1))
    .commit((1, 2, 3)),
    "ddl_in_transaction": Stream()
    .begin()
    .add(EventKind.DDL, (1, 2, 3), ddl_text="alter table t add (b number)", ddl_schema="U", obj=70)
    .commit(),
}


@pytest.mark.parametrize("name", sorted(STREAMS))
@pytest.mark.parametrize("memory_limit", [2, 50_000])
def test_transition(name: str, memory_limit: int) -> None:
    rows = STREAMS[name].rows()
    spilled([rows], memory_limit=memory_limit, chunk=3)
    for cut in range(1, len(rows)):  # carry out and resume at every point
        carried_like_whole(rows, [cut], memory_limit=memory_limit)


def test_transition_counts() -> None:
    """What the hand-built streams are there to show (so a stream that stopped showing it fails)."""
    results = {name: run_table([s.rows()])[0] for name, s in STREAMS.items()}
    counters = {name: r.counters for name, r in results.items()}
    assert counters["begin_change_commit"] == {"begun": 1, "committed": 1}
    assert [len(t["changes"]) for t in results["begin_change_commit"].committed] == [2]
    assert counters["repeated_begin"] == {"begun": 1, "committed": 1}
    assert counters["slot_reuse_by_begin"]["lost_transaction"] == 1
    assert [str(t["xid"]) for t in results["slot_reuse_by_begin"].committed] == ["0x0001.002.00000004"]
    assert counters["slot_reuse_by_change"]["change_without_begin"] == 1
    assert counters["slot_reuse_by_change"]["commit_without_begin"] == 1
    assert counters["slot_reuse_by_commit"] == {"begun": 1, "lost_transaction": 1, "commit_without_begin": 1}
    assert results["slot_reuse_by_commit"].orphaned == {(70, "INSERT"): 1}
    assert counters["change_without_begin"] == {"change_without_begin": 3}
    assert results["change_without_begin"].orphaned == {(70, "INSERT"): 3, (70, "DELETE"): 1}
    assert counters["ddl_lob_commit_rollback_without_begin"] == {
        "change_without_begin": 1, "lob_without_begin": 1, "commit_without_begin": 1,
        "rollback_without_begin": 1,
    }  # fmt: skip
    assert counters["undo_without_its_change"]["rollback_unmatched"] == 2
    assert counters["partial_rollback_pairs"]["partial_rollbacks"] == 3
    assert results["partial_rollback_pairs"].cancelled == {(70, "INSERT"): 3, (70, "UPDATE"): 1}
    assert [len(t["changes"]) for t in results["partial_rollback_pairs"].committed] == [0]
    assert counters["partial_rollback_unmatched"]["rollback_unmatched"] == 3
    assert counters["lob_pieces_on_top"]["lob_pieces_rolled_back"] == 3
    assert counters["lone_undo_cancels"]["partial_rollbacks"] == 2
    assert counters["lone_undo_cancels"]["rollback_unmatched"] == 1
    assert counters["lone_undo_cancels"]["lob_pieces_rolled_back"] == 1
    assert counters["rollback_counts_cancelled"]["rolled_back"] == 1
    assert results["rollback_counts_cancelled"].cancelled == {
        (70, "INSERT"): 1,
        (70, "UPDATE"): 1,
        (70, "DELETE"): 2,
    }
    assert results["supplemental_and_cluster_keys"].orphaned == {(80, "INSERT"): 1}
    assert [str(t["xid"]) for t in results["interleaved_transactions"].committed] == [
        "0x0002.005.00000008", "0x0001.002.00000003"
    ]  # fmt: skip
    assert results["interleaved_transactions"].open == 1
    assert [e["kind"] for e in results["ddl_in_transaction"].committed[0]["changes"]] == [EventKind.DDL]


def test_issue_list_is_capped() -> None:
    stream = Stream()
    for i in range(1100):
        stream.commit((1, i % 7, i))
    (result,) = run_table([stream.rows()])
    assert result.counters["commit_without_begin"] == 1100 and len(result.issues) == 1000
    kind, xid, position = result.issues[0]
    assert (kind, xid, position.sequence, position.block) == ("commit_without_begin", "1.0.0", 7, 3)


def test_long_transaction_spills_and_resumes(tmp_path: Path) -> None:
    """One transaction of 3,000 changes with partial rollbacks reaching back into spilled chunks,
    carried across three batches with five events in memory."""
    rnd = random.Random(7)
    stream = Stream().begin()
    for _ in range(3000):
        if rnd.random() < 0.2:
            stream.undo(rnd.choice([0x0B03, 0x0B05, 0x0B0C]))
        elif rnd.random() < 0.05:
            stream.lob()
        else:
            stream.change(rnd.choice([0x0B02, 0x0B05, 0x0B0B]), rows=((0, (b"v",)),))
    stream.commit()
    rows = stream.rows()
    batches = carried_like_whole(rows, [1000, 2000])
    assert sum(b.counters.get("partial_rollbacks", 0) for b in batches) > 100
    spilled(split(rows, [1000, 2000]), memory_limit=5, chunk=250, spill_dir=str(tmp_path))


def test_a_long_run_of_undo_empties_chunk_after_chunk(tmp_path: Path) -> None:
    # 3,000 INSERTs, then ROLLBACK TO SAVEPOINT undoing all but the first 10 (newest first), COMMIT
    stream = Stream().begin()
    for i in range(3000):
        stream.change(0x0B02, obj=70 + i % 3)
    for i in reversed(range(10, 3000)):
        stream.undo(0x0B03, obj=70 + i % 3)
    (result,) = spilled([stream.commit().rows()], memory_limit=4, spill_dir=str(tmp_path))
    assert result.counters["partial_rollbacks"] == 2990 and "rollback_unmatched" not in result.counters
    assert [e["obj"] for e in result.committed[0]["changes"]] == [70 + i % 3 for i in range(10)]
    assert result.cancelled == {(70, "INSERT"): 996, (71, "INSERT"): 997, (72, "INSERT"): 997}


def test_held_commit() -> None:
    stream = (
        Stream().begin().change().begin((4, 4, 4)).change(xid=(4, 4, 4)).commit((4, 4, 4), scn=5000)
        .commit(scn=6000).begin((1, 2, 5), scn=6001).change(xid=(1, 2, 5)).commit((1, 2, 5), scn=6002)
    )  # fmt: skip
    rows = stream.rows()
    result = spilled([rows], hold_from=[6000], memory_limit=2)
    assert result[0].counters["held"] == 2 and [t["xid"].sqn for t in result[0].committed] == [4]
    assert [x.sqn for x in result[0].held] == [3, 5] and result[0].open == 0
    # carried out with its commit last, then committed by the next batch (or held again)
    assert [e["kind"] for e in result[0].carried] == [EventKind.BEGIN, EventKind.CHANGE, EventKind.COMMIT] * 2
    result = carried_like_whole(rows, [len(rows)], hold_from=[6000, None])
    assert [t["xid"].sqn for t in result[1].committed] == [3, 5]
    result = run_table([rows, [], []], hold_from=[6000, 6002, None])
    assert [[t["xid"].sqn for t in r.committed] for r in result] == [[4], [3], [5]]
    result = spilled([rows, []], hold_from=[0, None], memory_limit=2)
    assert [[t["xid"].sqn for t in r.committed] for r in result] == [[], [3, 4, 5]]  # begin order
    # begins at the same position: carried out open ones first (insertion order), then held ones
    same = {"scn": 900, "block": 1}
    stream = (
        Stream().begin((1, 1, 1), **same).begin((2, 2, 2), **same).begin((3, 3, 3), **same)
        .begin((4, 4, 4), **same).commit((3, 3, 3), scn=7000).commit((1, 1, 1), scn=7001)
        .begin((1, 1, 2), **same).begin((2, 2, 9), **same).begin((2, 2, 2), **same)
    )  # fmt: skip
    result = run_table([stream.rows(), []], hold_from=[7000, None])
    assert [(e["usn"], e["sqn"]) for e in result[0].carried if e["kind"] == EventKind.BEGIN] == [
        (2, 2), (4, 4), (1, 2), (3, 3), (1, 1)
    ]  # fmt: skip


def test_raise_policy_names_the_error_with_its_position() -> None:
    rows = STREAMS["slot_reuse_by_change"].rows()
    result = spilled([rows], policy=ErrorPolicy.RAISE, memory_limit=2)
    name, message, position, details = result[0].error
    assert name == AssemblyError.__name__ and "slot reused" in message
    assert (position.sequence, position.block, position.offset) == (7, 5, 16)
    assert {k: str(v) for k, v in details.items()} == {
        "xid": "0x0001.002.00000003",
        "new_xid": "0x0001.002.00000009",
    }
    (result,) = run_table([STREAMS["slot_reuse_by_begin"].rows()], policy=ErrorPolicy.RAISE)
    assert result.error is not None and result.error[2].block == 5  # the second begin
    # what committed before the error in the same record batch comes with it (exc.committed)
    stream = Stream().begin().change().commit().begin((1, 2, 5)).change(xid=(1, 2, 5)).change(xid=(1, 2, 9))
    result = spilled([stream.rows()], policy=ErrorPolicy.RAISE, memory_limit=2)
    assert len(result[0].committed) == 1 and result[0].error is not None


def test_bad_batches_are_refused() -> None:
    import pyarrow as pa

    table = native.TransactionTable()
    with pytest.raises(AssemblyError, match="no column"):
        table.feed_batch(pa.record_batch({"kind": pa.array([1], pa.int64())}))
    with pytest.raises(AssemblyError, match="unknown event kind 9"):
        row = Stream().begin().rows()[0] | {"kind": 9}
        table.feed_batch(pa.RecordBatch.from_pylist([row], schema=events_schema()))
    with pytest.raises(AssemblyError, match="memory_limit"):
        native.TransactionTable(memory_limit=1)
    with pytest.raises(ValueError, match="policy"):
        native.TransactionTable(policy="ignore")


# -- impossible streams (hypothesis) ------------------------------------------------------------------

OPS = [0, 0x0B02, 0x0B03, 0x0B05, 0x0B06, 0x0B0B, 0x0B0C, 0x0B10, 0x0B16, 0x1301, 0x1A02]


@st.composite
def random_events(draw: st.DrawFn) -> list[dict[str, Any]]:
    """Random events over two usn x two slots x three sqns (partial rollbacks without a sqn)."""
    out = []
    for n in range(draw(st.integers(0, 40))):
        kind = draw(st.sampled_from(list(EventKind)))
        fields: dict[str, Any] = {}
        if kind in (EventKind.CHANGE, EventKind.PARTIAL_ROLLBACK, EventKind.LOB, EventKind.DDL):
            fields = {
                "redo_op": draw(st.sampled_from(OPS)),
                "obj": draw(st.integers(0, 2)),
                "dataobj": draw(st.integers(0, 2)),
                "fb": draw(st.sampled_from([0, 0x80])),
                "supp_fb": draw(st.sampled_from([None, 0x04, 0x08, 0x0C, 0x8C])),
                "rows": tuple((i, (b"r",)) for i in range(draw(st.integers(0, 2)))),
                "after": ((0, draw(st.sampled_from([None, b"", b"x"]))),),
            }
        if kind is EventKind.LOB:
            fields["lob_data"] = draw(st.binary(max_size=8))
        out.append(
            event_to_row(
                ChangeEvent(
                    kind=kind,
                    usn=draw(st.integers(1, 2)),
                    slot=draw(st.integers(1, 2)),
                    sqn=-1 if kind is EventKind.PARTIAL_ROLLBACK else draw(st.integers(1, 3)),
                    thread=1 + n % 2,
                    seq=3,
                    block=2 + n,
                    offset=16,
                    scn=draw(st.integers(100, 110)),
                    subscn=0,
                    vector=draw(st.integers(0, 2)),
                    time=T0 + dt.timedelta(seconds=n),
                    **fields,
                )  # fmt: skip
            )
        )
    return out


def check_impossible(batches: list[list[dict[str, Any]]], policy: ErrorPolicy, memory_limit: int,
                     hold: list[Any]) -> None:  # fmt: skip
    """No panic; no error under skip, only ``AssemblyError`` under raise; the same with the buffers
    spilling; every transaction begun in a batch committed, rolled back, held, lost or open at its
    end; without held commits, the batches amount to the whole stream."""
    results = spilled(batches, policy=policy, memory_limit=memory_limit, hold_from=hold, chunk=3)
    errors = {r.error[0] for r in results if r.error}
    assert errors <= ({AssemblyError.__name__} if policy is ErrorPolicy.RAISE else set())
    for r in results:
        if r.error is None:
            c = r.counters
            ended = ("committed", "rolled_back", "held", "lost_transaction")
            assert c.get("begun", 0) == sum(c.get(k, 0) for k in ended) + r.open
    if policy is ErrorPolicy.SKIP and all(h is None for h in hold):
        rows = [row for batch in batches for row in batch]
        assert _as_one(results) == _as_one(run_table([rows], memory_limit=memory_limit))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    rows=random_events(),
    cuts=st.lists(st.integers(0, 40), max_size=2),
    policy=st.sampled_from(list(ErrorPolicy)),
    memory_limit=st.sampled_from([2, 3]),
    holds=st.lists(st.one_of(st.none(), st.integers(100, 111)), min_size=3, max_size=3),
)
def test_random_streams(
    rows: list[dict[str, Any]], cuts: list[int], policy: ErrorPolicy, memory_limit: int, holds: list[Any]
) -> None:
    batches = split(rows, [min(c, len(rows)) for c in cuts])
    check_impossible(batches, policy, memory_limit, [*holds[: len(batches) - 1], None])


def _workload(gen_dir: Path) -> list[dict[str, Any]]:
    """A RAC two-thread scenario, savepoints and a random seed, each in redo order, one after another."""
    return [row for key in ("rac_two_threads", "savepoints", "seed-3") for row in
            rows_in_redo_order(generated(key, gen_dir).events)]  # fmt: skip


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                 HealthCheck.function_scoped_fixture])  # fmt: skip
@given(
    seed=st.integers(0, 2**32 - 1),
    keep=st.floats(0.0, 1.0),
    swaps=st.integers(0, 30),
    policy=st.sampled_from(list(ErrorPolicy)),
    memory_limit=st.sampled_from([2, 4]),
)
def test_shuffled_and_truncated_workloads(
    seed: int, keep: float, swaps: int, policy: ErrorPolicy, memory_limit: int, gen_dir: Path
) -> None:
    rnd = random.Random(seed)
    rows = _workload(gen_dir)
    start = rnd.randrange(len(rows))
    rows = rows[start : start + int(len(rows) * keep)]  # truncated at both ends
    for _ in range(swaps):  # shuffled a little (whole-stream shuffles are mostly orphans)
        if len(rows) > 1:
            i, j = rnd.randrange(len(rows)), rnd.randrange(len(rows))
            rows[i], rows[j] = rows[j], rows[i]
    if rnd.random() < 0.2:
        rnd.shuffle(rows)
    cuts = sorted(rnd.sample(range(len(rows) + 1), min(2, len(rows) + 1)))
    holds = [rows[min(c, len(rows) - 1)]["scn"] if rows and rnd.random() < 0.5 else None for c in cuts]
    check_impossible(split(rows, cuts), policy, memory_limit, [*holds, None])
