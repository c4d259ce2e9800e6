"""The stages' own exchange (``redo_lib/exchange.py``): buckets written and read back in redo order,
RAC threads merged as ``heapq.merge`` merges the events (by the core: test_thread_merge.py), trail
runs merged into commit order.
Expected orders come from plain Python over the same rows (sorted, ``heapq.merge``), never from the
code under test."""

from __future__ import annotations

import datetime as dt
import heapq
import random
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from redo_lib.assembly.events import events_schema
from redo_lib.batches import staged_trail_schema
from redo_lib.exchange import (
    BucketWriter,
    RangeRuns,
    bucket_events,
    buckets_of,
    carried_events,
    carried_rows,
    file_groups,
    merge_runs,
    pack,
    range_bounds,
    slot_keys,
)

EVENT = {f.name: 0 for f in events_schema() if not pa.types.is_list(f.type) and f.nullable is False}


def _events(rows: list[dict[str, Any]]) -> pa.RecordBatch:
    return pa.RecordBatch.from_pylist([{**EVENT, **r} for r in rows], schema=events_schema())


def _redo(thread: int, n: int, rng: random.Random, *, slots: int = 7) -> list[dict[str, Any]]:
    """``n`` events of one thread in redo order (block, offset rising); the SCN mostly rises but steps
    back now and then, as records of one LWN do."""
    scn, out = 1000, []
    for i in range(n):
        scn += rng.choice([0, 1, 1, 2, 5])
        dip = rng.random() < 0.15
        out.append({"thread": thread, "seq": 1, "block": 2 + i // 4, "offset": 16 + (i % 4) * 40, "vector": 1,
                    "scn": scn - (rng.randint(1, 6) if dip else 0), "subscn": rng.randint(0, 2),
                    "usn": rng.randint(1, 3), "slot": rng.randint(0, slots)})  # fmt: skip
    return out


def _key(r: dict[str, Any]) -> tuple[int, ...]:
    return (r["scn"], r["subscn"], r["thread"], r["seq"], r["block"], r["offset"] * 256 + r["vector"])


def _positions(batches: Any) -> list[tuple[int, int, int]]:
    return [(r["thread"], r["block"], r["offset"]) for b in batches for r in b.to_pylist()]


def _chunks(rows: list[dict[str, Any]], sizes: list[int]) -> list[pa.RecordBatch]:
    out, at = [], 0
    for size in sizes:
        if at >= len(rows):
            break
        out.append(_events(rows[at : at + size]))
        at += size
    if at < len(rows):
        out.append(_events(rows[at:]))
    return out


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_rac_buckets_merge_as_heapq_merges_the_events(tmp_path: Path, seed: int) -> None:
    """Each thread's units written in buckets, read back per bucket with the threads merged (by the
    core, ``pipeline.merge_threads``): the bucket's events in ``heapq.merge`` order."""
    rng = random.Random(seed)
    per_thread = [_redo(t, rng.randint(200, 600), rng, slots=12) for t in (1, 2, 3)]
    units = []
    for rows in per_thread:
        thread = rows[0]["thread"]
        for seq, part in ((1, rows[: len(rows) // 2]), (2, rows[len(rows) // 2 :])):
            path = tmp_path / f"unit-{thread}-{seq}.parquet"
            writer = BucketWriter(path, events_schema(), 3, group_rows=40)
            for batch in _chunks(part, [rng.randint(1, 90) for _ in range(20)]):
                writer.write(batch)
            units.append({**_unit(path, writer.close()), "thread": thread, "sequence": seq})
    for bucket in range(3):
        mine = [
            [r for r in rows if buckets_of([r["usn"]], [r["slot"]], 3)[0] == bucket] for rows in per_thread
        ]
        expected = [(r["thread"], r["block"], r["offset"]) for r in heapq.merge(*mine, key=_key)]
        assert _positions(bucket_events(units, [bucket])) == expected and expected


def test_buckets_keep_redo_order_and_every_event(tmp_path: Path) -> None:
    rng = random.Random(5)
    rows = _redo(1, 3000, rng, slots=40)
    path = tmp_path / "unit.parquet"
    writer = BucketWriter(path, events_schema(), 4, buffer_bytes=40_000, group_rows=300)
    for batch in _chunks(rows, [97] * 40):
        writer.write(batch)
    groups = writer.close()
    assert pq.ParquetFile(path).metadata.num_row_groups > 8  # the small buffer made many groups
    unit = _unit(path, groups)
    seen = []
    for bucket in range(4):
        got = _positions(bucket_events([unit], [bucket]))
        want = [(1, r["block"], r["offset"]) for r in rows
                if buckets_of([r["usn"]], [r["slot"]], 4)[0] == bucket]  # fmt: skip
        assert got == want and want
        seen += got
    assert sorted(seen) == sorted((1, r["block"], r["offset"]) for r in rows)


def _unit(path: Path, groups: dict[int, Any]) -> dict[str, Any]:
    """The decode result of one unit of thread 1, sequence 1 that wrote ``path`` (its bucket groups)."""
    return {"file": str(path), "thread": 1, "sequence": 1, "first_block": 2,
            "groups": {str(b): g for b, g in groups.items()}}  # fmt: skip


def test_lob_slots_leave_their_buckets_for_one_task_in_redo_order(tmp_path: Path) -> None:
    rng = random.Random(9)
    rows = _redo(1, 800, rng, slots=20)
    path = tmp_path / "unit.parquet"
    writer = BucketWriter(path, events_schema(), 3, group_rows=50)
    writer.write(_events(rows))
    unit = _unit(path, writer.close())
    lobs = sorted(slot_keys([1, 2], [3, 4]).tolist())
    is_lob = {(1, 3), (2, 4)}
    assert _positions(bucket_events([unit], None, lobs)) == [
        (1, r["block"], r["offset"]) for r in rows if (r["usn"], r["slot"]) in is_lob
    ]
    others = [p for b in range(3) for p in _positions(bucket_events([unit], [b], lobs))]
    assert sorted(others) == sorted(
        (1, r["block"], r["offset"]) for r in rows if (r["usn"], r["slot"]) not in is_lob
    )


def test_carried_events_are_read_by_their_task_only(tmp_path: Path) -> None:
    rng = random.Random(3)
    rows = _redo(1, 400, rng, slots=30)
    # what a task of the previous batch (6 buckets) left open, in row groups by bucket
    part = tmp_path / "part-00001.parquet"
    writer = BucketWriter(part, events_schema(), 6, group_rows=20)
    writer.write(_events(rows))
    groups = writer.close()
    found = file_groups(pq.ParquetFile(part).metadata)
    assert found == (6, {str(b): g for b, g in sorted(groups.items())})
    other = tmp_path / "part-00000.parquet"  # a file of another shape: read whole and filtered
    pq.write_table(pa.Table.from_batches([_events(rows)]), other)

    def bucket(r: dict[str, Any], n: int) -> int:
        return int(buckets_of([r["usn"]], [r["slot"]], n)[0])

    want = [(1, r["block"], r["offset"]) for r in rows if bucket(r, 6) in (1, 4)]
    assert sorted(_positions(carried_events([str(part)], [1, 4], 6))) == sorted(want) and want
    assert _positions(carried_events([str(other)], [1, 4], 6)) == want  # one file: in its order
    # of each bucket, the rows in the order they were written (begin order)
    for b in (1, 4):
        assert _positions(carried_events([str(part)], [b], 6)) == [
            (1, r["block"], r["offset"]) for r in rows if bucket(r, 6) == b
        ]
    # another number of buckets now: every row group read, rows filtered
    assert sorted(_positions(carried_events([str(part)], [0], 4))) == sorted(
        (1, r["block"], r["offset"]) for r in rows if bucket(r, 4) == 0
    )
    lobs = sorted(slot_keys([1], [3]).tolist())
    assert _positions(carried_events([str(other)], None, 6, lobs)) == [
        (1, r["block"], r["offset"]) for r in rows if (r["usn"], r["slot"]) == (1, 3)
    ]


def test_carried_rows_count_every_bucket_of_the_open_files(tmp_path: Path) -> None:
    """The driver packs the carried-in buckets too: an open transaction whose slot has no events in
    the batch must still reach a task (without this, one was lost between two Spark batches)."""
    rng = random.Random(4)
    rows = _redo(1, 300, rng, slots=30)
    part = tmp_path / "part-00000.parquet"
    writer = BucketWriter(part, events_schema(), 8, group_rows=25)
    writer.write(_events(rows))
    writer.close()
    other = tmp_path / "part-00001.parquet"  # no bucket metadata: counted from its columns
    pq.write_table(pa.Table.from_batches([_events(rows[:100])]), other)

    def expected(n: int, rows: list[dict[str, Any]]) -> dict[int, int]:
        counts: dict[int, int] = {}
        for r in rows:
            b = int(buckets_of([r["usn"]], [r["slot"]], n)[0])
            counts[b] = counts.get(b, 0) + 1
        return counts

    assert dict(carried_rows([str(part)], 8)) == expected(8, rows)
    assert dict(carried_rows([str(other)], 8)) == expected(8, rows[:100])
    assert dict(carried_rows([str(part)], 5)) == expected(5, rows)  # another number of buckets


def test_pack_evens_out_uneven_buckets() -> None:
    sizes = {0: 100, 1: 5, 2: 60, 3: 40, 4: 45, 5: 10, 6: 0}
    groups = pack(sizes, 3)
    assert sorted(b for g in groups for b in g) == sorted(sizes)
    # the largest bucket alone; the rest spread so no group exceeds it
    assert sorted(sum(sizes[b] for b in g) for g in groups) == [75, 85, 100] and [0] in groups
    assert sorted(sum(10 + b % 2 for b in g) for g in pack({b: 10 + b % 2 for b in range(6)}, 3)) == [
        21,
        21,
        21,
    ]
    assert pack({0: 7}, 4) == [[0]]


def _trail_rows(txns: list[tuple[int, int, int]], task: int) -> list[dict[str, Any]]:
    """Staged trail rows: per (commit SCN, thread, rows) a transaction's rows in order, its commit
    record in a block of its task's (no two transactions share a commit record)."""
    out = []
    for scn, thread, n in txns:
        for i in range(n):
            out.append({"order_scn": scn, "order_thread": thread, "order_seq": 1, "order_block": task,
                        "order_offset": 16, "order_index": i, "xid": f"{scn}.{thread}", "rowid": str(i)})  # fmt: skip
    return out


def _default(kind: pa.DataType) -> Any:
    if pa.types.is_list(kind):
        return []
    if pa.types.is_string(kind):
        return ""
    if pa.types.is_timestamp(kind):
        return dt.datetime(2026, 1, 1, tzinfo=dt.UTC)
    return 0


def _staged(rows: list[dict[str, Any]]) -> pa.RecordBatch:
    schema = staged_trail_schema()
    full = [{f.name: row.get(f.name, _default(f.type)) for f in schema} for row in rows]
    return pa.RecordBatch.from_pylist(full, schema=schema)


@pytest.mark.parametrize("ranges", [1, 3])
def test_runs_merge_into_commit_order(tmp_path: Path, ranges: int) -> None:
    rng = random.Random(ranges)
    tasks = []
    for task in range(4):
        txns = [(rng.randint(1, 5000), task % 2 + 1, rng.randint(1, 30)) for _ in range(60)]
        if task == 2:
            txns.append((2500, 2, 5000))  # one large transaction, over many row groups
        txns = sorted({(t[0], t[1]): t for t in txns}.values())  # one per commit key
        # a task emits in feed order: mostly commit order, with a few commits met late
        for i in range(0, len(txns) - 1, 9):
            txns[i], txns[i + 1] = txns[i + 1], txns[i]
        tasks.append(txns)
    bounds = range_bounds((t[0] for txns in tasks for t in txns), ranges)
    assert len(bounds) == ranges - 1
    files: dict[int, list[str]] = {}
    for task, txns in enumerate(tasks):

        def run_path(r: int, task: int = task) -> Path:
            path = tmp_path / f"r{r}-t{task}.parquet"
            files.setdefault(r, []).append(str(path))
            return path

        runs = RangeRuns(staged_trail_schema(), bounds, run_path)
        rows = _trail_rows(txns, task)
        for at in range(0, len(rows), 700):
            runs.write(_staged(rows[at : at + 700]))
        runs.close()
    got = []
    for r in range(ranges):
        for table in merge_runs(files.get(r, [])):
            got += [(row["order_scn"], row["order_thread"], row["order_block"], row["order_index"])
                    for row in table.to_pylist()]  # fmt: skip
    every = [(t[0], t[1], task, i) for task, txns in enumerate(tasks) for t in txns for i in range(t[2])]
    assert got == sorted(every) and len(got) == len(every)
