"""The Rust transaction table (``redo_lib._native.TransactionTable``, ``crates/redo-core/src/
assembly/``) gives what the Python one (``assembly.transactions.TransactionTable``, the oracle) gives:
the same committed transactions in the same order (xid, commit position, begin SCN, every change
event field for field), the same events carried out, counters, cancelled / orphaned row changes and
issues, or the same error with its position (``assembled.py`` runs both).

Inputs: every named scenario of include/scenarios (RAC two-thread ones, long transactions,
savepoints, LOBs, chained rows, direct load), in redo order and in the assemble stage's (usn, slot)
order; random seeds (9 here, 200 with ``-m slow``) cut into batches carried from one to the next,
with spilling buffers (a memory limit of a few events) and held commits; the real 23.6 logs and
the oracdc records; and small hand-built streams for every row of the transition table.
"""

from __future__ import annotations

import datetime as dt
import json
import random
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from redo_lib.assembly.events import ChangeEvent, EventKind
from redo_lib.batches import event_from_row, event_to_row
from redo_lib.errors import AssemblyError, ErrorPolicy
from redo_lib.synth import generate, load_scenario, random_scenario

from .assembled import (
    assert_same,
    rows_by_slot,
    rows_in_redo_order,
    run_python,
    run_rust,
    split,
)

REPO = Path(__file__).resolve().parents[3]
SCENARIOS = sorted(p.stem for p in (REPO / "include" / "scenarios").glob("*.yaml"))
REALDATA = REPO.parent / "shared" / "realdata"
ROPHY_LOGS = [REALDATA / "rophy-olr-example-free-23" / "redo" / f"arch1_{s}_1224959854.dbf" for s in (15, 16)]
ORACDC = REALDATA / "oracdc-redo-records" / "redo-records.jsonl"
T0 = dt.datetime(2024, 5, 1, 12, 0, 0)


def _decode(logs: list[Path]) -> list[ChangeEvent]:
    """The logs' events, decoded by the Rust core (the events the assemble stage reads)."""
    from redo_lib.pipeline import decode_range_arrow

    return [
        event_from_row(row) for log in logs for b in decode_range_arrow(str(log)) for row in b.to_pylist()
    ]


@cache
def scenario_events(key: str, tmp: Path) -> tuple[ChangeEvent, ...]:
    """A named scenario, or ``seed-<n>`` (a random scenario of 120 steps), generated and decoded."""
    if key.startswith("seed-"):
        scenario = random_scenario(int(key[5:]), steps=120)
    else:
        scenario = load_scenario(REPO / "include" / "scenarios" / f"{key}.yaml")
    result = generate(scenario, tmp / key, record_steps=False)
    return tuple(_decode(list(result.logs)))


@pytest.fixture(scope="module")
def gen_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("native-assembly")


def both(batches: list[list[dict[str, Any]]], **options: Any) -> list[Any]:
    """Python's and Rust's results over the batches, asserted equal; Python's returned."""
    rust_only = {k: options.pop(k) for k in ("chunk", "memory_bytes", "spill_dir") if k in options}
    python = run_python(batches, **options)
    rust = run_rust(batches, **options, **rust_only)
    assert_same(python, rust)
    return python


def _holds(rows: list[dict[str, Any]], cuts: list[int], back: int) -> list[int | None]:
    """Held-commit watermarks: batch i holds commits at or above the SCN ``back`` events before its
    end (so some commits of each batch wait for the next); the last batch holds none."""
    marks: list[int | None] = [rows[max(cut - back, 0)]["scn"] for cut in sorted(cuts)]
    return [*marks, None]


# -- generated workloads ----------------------------------------------------------------------------


@pytest.mark.parametrize("name", SCENARIOS)
@pytest.mark.parametrize("order", ["redo", "slot"])
def test_named_scenario(name: str, order: str, gen_dir: Path) -> None:
    events = scenario_events(name, gen_dir)
    rows = rows_in_redo_order(events) if order == "redo" else rows_by_slot(events)
    result = both([rows])
    assert result[0].counters.get("begun", 0) > 0
    # spilling: a few events in memory per transaction, in record batches of 7
    both([rows], memory_limit=3, chunk=7)


@pytest.mark.parametrize("seed", range(9))
def test_random_seed_in_batches(seed: int, gen_dir: Path) -> None:
    rows = rows_in_redo_order(scenario_events(f"seed-{seed}", gen_dir))
    rnd = random.Random(seed)
    both([rows])
    cuts = sorted(rnd.sample(range(1, len(rows)), 3))
    batches = split(rows, cuts)
    both(batches, memory_limit=rnd.choice([2, 3, 5, 50_000]), chunk=rnd.choice([1, 13, 500]))
    both(batches, hold_from=_holds(rows, cuts, rnd.choice([1, 5, 40])), memory_limit=4)


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(9, 209))
def test_random_seed_sweep(seed: int, gen_dir: Path) -> None:
    test_random_seed_in_batches(seed, gen_dir)


def test_spill_beyond_the_byte_limit_changes_nothing(gen_dir: Path) -> None:
    """The Rust buffer also spills on bytes (every event's data, not only LOB data as in Python):
    a byte limit of 1 spills at every second event and the output is the same."""
    rows = rows_in_redo_order(scenario_events("lobs", gen_dir))
    both([rows], memory_bytes=1, spill_dir=str(gen_dir))


# -- real data --------------------------------------------------------------------------------------


@pytest.mark.realdata
def test_real_logs() -> None:
    if not all(p.exists() for p in ROPHY_LOGS):
        pytest.skip(f"real data not available: {ROPHY_LOGS[0].parent}")
    events = _decode(ROPHY_LOGS)
    rows = rows_in_redo_order(events)
    both([rows])
    both([rows], memory_limit=2, chunk=5)
    # cut at the log switch: what the first log leaves open is carried into the second
    first = sum(1 for e in events if e.seq == 15)
    both(split(rows, [first]), memory_limit=2)
    both(split(rows, [first]), hold_from=_holds(rows, [first], 3))


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
    result = both([rows_in_redo_order(events)])
    assert result[0].orphaned
    both([[event_to_row(e) for e in events]], memory_limit=2)


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
    both([rows], memory_limit=memory_limit, chunk=3)
    for cut in range(1, len(rows)):  # carry out and resume at every point
        both(split(rows, [cut]), memory_limit=memory_limit)


def test_transition_counts() -> None:
    """What the hand-built streams are there to show (so a stream that stopped showing it fails)."""
    counters = {name: both([s.rows()])[0].counters for name, s in STREAMS.items()}
    assert counters["repeated_begin"] == {"begun": 1, "committed": 1}
    assert counters["slot_reuse_by_begin"]["lost_transaction"] == 1
    assert counters["slot_reuse_by_change"]["change_without_begin"] == 1
    assert counters["slot_reuse_by_change"]["commit_without_begin"] == 1
    assert counters["ddl_lob_commit_rollback_without_begin"] == {
        "change_without_begin": 1, "lob_without_begin": 1, "commit_without_begin": 1,
        "rollback_without_begin": 1,
    }  # fmt: skip
    assert counters["partial_rollback_pairs"]["partial_rollbacks"] == 3
    assert counters["partial_rollback_unmatched"]["rollback_unmatched"] == 3
    assert counters["lob_pieces_on_top"]["lob_pieces_rolled_back"] == 3
    assert counters["lone_undo_cancels"]["partial_rollbacks"] == 2
    assert counters["lone_undo_cancels"]["rollback_unmatched"] == 1
    assert counters["rollback_counts_cancelled"]["rolled_back"] == 1


def test_issue_list_is_capped() -> None:
    stream = Stream()
    for i in range(1100):
        stream.commit((1, i % 7, i))
    result = both([stream.rows()])
    assert result[0].counters["commit_without_begin"] == 1100 and len(result[0].issues) == 1000


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
    both(split(rows, [1000, 2000]), memory_limit=5, chunk=250, spill_dir=str(tmp_path))
    for _ in range(60):  # a long run of undo that empties chunk after chunk
        stream.undo(0x0B03).undo(0x0B05).undo(0x0B0C)
    both([stream.rows()], memory_limit=4)


def test_held_commit() -> None:
    stream = (
        Stream().begin().change().begin((4, 4, 4)).change(xid=(4, 4, 4)).commit((4, 4, 4), scn=5000)
        .commit(scn=6000).begin((1, 2, 5), scn=6001).change(xid=(1, 2, 5)).commit((1, 2, 5), scn=6002)
    )  # fmt: skip
    rows = stream.rows()
    result = both([rows], hold_from=[6000])
    assert result[0].counters["held"] == 2 and [t["xid"].sqn for t in result[0].committed] == [4]
    # carried out with its commit last, then committed by the next batch (or held again)
    result = both([rows, []], hold_from=[6000, None])
    assert [t["xid"].sqn for t in result[1].committed] == [3, 5]
    both([rows, [], []], hold_from=[6000, 6002, None])
    both([rows, []], hold_from=[0, None], memory_limit=2)
    # begins at the same position: carried out open ones first (insertion order), then held ones
    same = {"scn": 900, "block": 1}
    stream = (
        Stream().begin((1, 1, 1), **same).begin((2, 2, 2), **same).begin((3, 3, 3), **same)
        .begin((4, 4, 4), **same).commit((3, 3, 3), scn=7000).commit((1, 1, 1), scn=7001)
        .begin((1, 1, 2), **same).begin((2, 2, 9), **same).begin((2, 2, 2), **same)
    )  # fmt: skip
    result = both([stream.rows(), []], hold_from=[7000, None])
    assert [(e["usn"], e["sqn"]) for e in result[0].carried if e["kind"] == EventKind.BEGIN] == [
        (2, 2), (4, 4), (1, 2), (3, 3), (1, 1)
    ]  # fmt: skip


def test_raise_policy_names_the_error_with_its_position() -> None:
    rows = STREAMS["slot_reuse_by_change"].rows()
    result = both([rows], policy=ErrorPolicy.RAISE)
    name, message, position, details = result[0].error
    assert name == AssemblyError.__name__ and "slot reused" in message
    assert (position.sequence, position.block, position.offset) == (7, 5, 16)
    assert {k: str(v) for k, v in details.items()} == {
        "xid": "0x0001.002.00000003",
        "new_xid": "0x0001.002.00000009",
    }
    both([STREAMS["slot_reuse_by_begin"].rows()], policy=ErrorPolicy.RAISE)
    # what committed before the error in the same record batch comes with it (exc.committed)
    stream = Stream().begin().change().commit().begin((1, 2, 5)).change(xid=(1, 2, 5)).change(xid=(1, 2, 9))
    result = both([stream.rows()], policy=ErrorPolicy.RAISE)
    assert len(result[0].committed) == 1 and result[0].error is not None


def test_bad_batches_are_refused() -> None:
    import pyarrow as pa

    from redo_lib.native import native

    table = native.TransactionTable()
    with pytest.raises(AssemblyError, match="no column"):
        table.feed_batch(pa.record_batch({"kind": pa.array([1], pa.int64())}))
    with pytest.raises(AssemblyError, match="unknown event kind 9"):
        row = Stream().begin().rows()[0] | {"kind": 9}
        from redo_lib.batches import events_schema

        table.feed_batch(pa.RecordBatch.from_pylist([row], schema=events_schema()))
    with pytest.raises(AssemblyError, match="memory_limit"):
        native.TransactionTable(memory_limit=1)
    with pytest.raises(ValueError, match="policy"):
        native.TransactionTable(policy="ignore")
