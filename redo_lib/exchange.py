"""The stages' own exchange: events bucketed by transaction slot, trail rows merged into commit order.

Spark's shuffle and sort of the events (lists of structs of binary) and of the trail rows (lists of
structs) cost several times the assembly itself (docs/benchmarks.md): Spark turns every Arrow row
into its own row format and back, twice per exchange. So the decode and assemble stages hand each
other Arrow data in Parquet files their tasks write and read themselves, and Spark schedules the
tasks (the same reason decode writes its events itself, ``batches.decode_unit``):

* decode writes each unit's events into one file, in row groups of one bucket each (:func:`buckets_of`,
  a hash of the transaction slot (usn, slot); ``DEFAULT_BUCKETS``), the redo order kept within a
  bucket (:class:`BucketWriter`); which row groups hold which bucket, and how many rows each, goes
  into the unit's result;
* the driver packs the buckets into tasks of about equal rows (:func:`pack`); an assemble task reads
  its buckets' row groups of every unit, each thread's units in redo order, and merges the threads
  as the single-process decode does (``pipeline.merge_threads``, in the core); it writes the
  transactions it leaves open in row groups by bucket too, so the next batch's tasks read their own
  (:func:`carried_events`);
* it writes its trail rows into one run per commit-SCN range (:class:`RangeRuns`; the bounds are
  quantiles of the decode units' SCN samples, :func:`range_bounds`);
* one task per range merges the runs of that range into commit order (:func:`merge_runs`).

Memory: a bucket writer holds at most ``buffer_bytes`` of events; an assemble task one row group
(16K events at most) per thread; a run merge the row groups one window of output rows needs and
one entry per transaction. A transaction is never held whole (a large one is cut into windows).

Layer "top": imports storage, the thread merge of ``pipeline`` and pyarrow/numpy only.
"""

from __future__ import annotations

import heapq
import json
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any

import numpy as np

from redo_lib.storage.sources import VERIFY_PAGES, open_input, open_parquet, parquet_errors, parquet_writer

#: the multiplier of :func:`buckets_of` (2^64 / golden ratio): neighbouring slots land far apart
BUCKET_MIX = np.uint64(0x9E3779B97F4A7C15)
#: buckets of transaction slots per decode unit: many, so that packing them into tasks evens out a
#: few busy slots (``pack``); each is a row group per unit, so not thousands
DEFAULT_BUCKETS = 64
#: a commit-order key's transaction part (``ORDER_FIELDS`` but the record's place in it)
TXN_FIELDS = ("order_scn", "order_thread", "order_seq", "order_block", "order_offset")


def system_memory_pool() -> None:
    """Arrow's buffers in this process from the system allocator from now on. pyarrow's default,
    mimalloc, keeps the pages it frees: reading a task's events alone raised a worker's peak RSS
    from 140 to 234 MB (the whole assemble task 155 against 226 MB), at the same speed (1 GB
    workload, a quarter of its buckets). The tasks call it first; a Python worker runs many tasks."""
    import pyarrow as pa

    if pa.default_memory_pool().backend_name != "system":
        pa.set_memory_pool(pa.system_memory_pool())


def buckets_of(usn: Any, slot: Any, buckets: int) -> Any:
    """The bucket (0 .. ``buckets``-1) of each transaction slot: arrays of usn and slot in, an int64
    array out. A multiplicative hash of (usn, slot), the same in every process and every release
    (the next batch finds a carried transaction's bucket by it)."""
    usn = np.asarray(usn, dtype=np.int64).astype(np.uint64)
    slot = np.asarray(slot, dtype=np.int64).astype(np.uint64)
    if buckets <= 1:
        return np.zeros(len(usn), dtype=np.int64)
    mixed = ((usn << np.uint64(20)) ^ slot) * BUCKET_MIX  # wraps modulo 2^64, as meant
    return ((mixed >> np.uint64(32)) % np.uint64(buckets)).astype(np.int64)


def slot_keys(usn: Any, slot: Any) -> Any:
    """(usn, slot) as one int64 per row, to test membership in a set of slots."""
    return (np.asarray(usn, dtype=np.int64) << 32) | np.asarray(slot, dtype=np.int64)


def _split(batch: Any, keys: Any) -> Iterator[tuple[int, Any]]:
    """``batch`` cut into (key, rows) by an int array of one key per row, each key's rows in order."""
    if len(keys) == 0:
        return
    if keys[0] == keys[-1] and (keys == keys[0]).all():
        yield int(keys[0]), batch
        return
    order = np.argsort(keys, kind="stable")
    ordered = keys[order]
    taken = batch.take(order)
    cuts = [0, *(np.flatnonzero(np.diff(ordered)) + 1).tolist(), len(ordered)]
    for start, end in zip(cuts, cuts[1:], strict=False):
        yield int(ordered[start]), taken.slice(start, end - start)


class BucketWriter:
    """A decode unit's events into one Parquet file, in row groups of one bucket each: a bucket's
    rows stay in the order written (redo order). Rows wait per bucket until a bucket has
    ``group_rows`` or all of them ``buffer_bytes``, when the largest bucket is written out."""

    def __init__(
        self, path: Any, schema: Any, buckets: int, *, buffer_bytes: int = 64 << 20, group_rows: int = 16384
    ) -> None:

        self.schema = schema
        self.buckets = buckets
        self.buffer_bytes = buffer_bytes
        self.group_rows = group_rows
        self.writer = parquet_writer(path, schema)
        self.pending: dict[int, list[Any]] = {}
        self.pending_rows: Counter[int] = Counter()
        self.pending_bytes: Counter[int] = Counter()
        self.groups: dict[int, list[int]] = {}  # bucket -> its row groups, in order
        self.bucket_rows: Counter[int] = Counter()
        self.written = 0  # row groups

    def write(self, batch: Any) -> None:
        if not batch.num_rows:
            return
        size_per_row = batch.nbytes / batch.num_rows
        keys = buckets_of(batch.column("usn"), batch.column("slot"), self.buckets)
        for bucket, rows in _split(batch, keys):
            self.pending.setdefault(bucket, []).append(rows)
            self.pending_rows[bucket] += rows.num_rows
            self.pending_bytes[bucket] += int(rows.num_rows * size_per_row)
            if self.pending_rows[bucket] >= self.group_rows:
                self._flush(bucket)
        while self.pending and sum(self.pending_bytes.values()) > self.buffer_bytes:
            self._flush(max(self.pending, key=lambda b: self.pending_bytes[b]))

    def _flush(self, bucket: int) -> None:
        import pyarrow as pa

        table = pa.Table.from_batches(self.pending.pop(bucket), schema=self.schema)
        del self.pending_rows[bucket], self.pending_bytes[bucket]
        self.writer.write_table(table, row_group_size=table.num_rows)  # one row group
        self.groups.setdefault(bucket, []).append(self.written)
        self.bucket_rows[bucket] += table.num_rows
        self.written += 1

    def close(self) -> dict[int, list[int]]:
        """Write what waits, bucket by bucket; close the file, which says in its key-value metadata
        how many buckets and which row groups hold each (:func:`file_groups`); return the latter."""
        for bucket in sorted(self.pending):
            self._flush(bucket)
        groups = {str(b): g for b, g in sorted(self.groups.items())}
        self.writer.add_key_value_metadata({BUCKETS_KEY: str(self.buckets), GROUPS_KEY: json.dumps(groups)})
        self.writer.close()
        return self.groups


BUCKETS_KEY = "redotrail.buckets"
GROUPS_KEY = "redotrail.groups"


def file_groups(metadata: Any) -> tuple[int, dict[str, list[int]]] | None:
    """(buckets, bucket -> row groups) of a file :class:`BucketWriter` wrote, from its Parquet
    metadata; None for another file."""
    kv = metadata.metadata or {}
    if BUCKETS_KEY.encode() not in kv:
        return None
    return int(kv[BUCKETS_KEY.encode()]), json.loads(kv[GROUPS_KEY.encode()])


def pack(sizes: dict[int, int], tasks: int) -> list[list[int]]:
    """Buckets into at most ``tasks`` groups of about equal rows (the largest first, each to the
    least loaded group): a few busy transaction slots hash unevenly, many small buckets even out."""
    loads = [(0, i) for i in range(max(min(tasks, len(sizes)), 1))]
    groups: list[list[int]] = [[] for _ in loads]
    for bucket in sorted(sizes, key=lambda b: (-sizes[b], b)):
        load, i = heapq.heappop(loads)
        groups[i].append(bucket)
        heapq.heappush(loads, (load + sizes[bucket], i))
    return [sorted(g) for g in groups if g]


# ---------------------------------------------------------------------------------------------
# Reading a bucket


def _unit_groups(unit: dict[str, Any], buckets: Sequence[int] | None) -> list[int]:
    """The row groups of a unit's file that hold some of ``buckets`` (None: all of them), in file
    order: each bucket's in redo order (rows of different buckets belong to different transactions)."""
    groups = unit.get("groups", {})
    wanted = groups.keys() if buckets is None else [str(b) for b in buckets]
    return sorted(g for b in wanted for g in groups.get(b, ()))


def _read_groups(location: str, groups: Sequence[int]) -> Iterator[Any]:
    """The record batches of some row groups of a Parquet file, one row group in memory at a time."""
    if not groups:
        return
    with open_parquet(location) as file:
        for group in groups:
            yield from file.read_row_group(group).to_batches()


def _keep(batch: Any, keys: Any, inside: bool) -> Any:
    """The rows of ``batch`` whose slot is (``inside``) or is not in ``keys`` (a sorted int64 array)."""
    if len(keys) == 0:
        return batch if not inside else batch.slice(0, 0)
    mask = np.isin(slot_keys(batch.column("usn"), batch.column("slot")), keys)
    if not inside:
        mask = ~mask
    if mask.all():
        return batch
    import pyarrow as pa

    return batch.filter(pa.array(mask))


def thread_events(
    units: Sequence[dict[str, Any]], buckets: Sequence[int] | None, lob_slots: Any = ()
) -> Iterator[Any]:
    """One thread's events of some buckets, each transaction slot's in redo order: its units in
    (sequence, first block) order, each unit's row groups of the buckets. ``buckets`` None: the
    slots of ``lob_slots`` (int64 keys, :func:`slot_keys`) from every bucket, each unit's rows put
    back in redo order; otherwise those slots are left out (the task of the LOB slots has them)."""
    import pyarrow as pa

    keys = np.sort(np.asarray(lob_slots, dtype=np.int64))
    for unit in sorted(units, key=lambda u: (u["sequence"], u["first_block"])):
        if buckets is not None:
            for batch in _read_groups(unit["file"], _unit_groups(unit, buckets)):
                kept = _keep(batch, keys, inside=False)
                if kept.num_rows:
                    yield kept
            continue
        pieces = [
            kept
            for batch in _read_groups(unit["file"], _unit_groups(unit, None))
            if (kept := _keep(batch, keys, inside=True)).num_rows
        ]
        if pieces:  # a unit's rows of the LOB slots, from all its buckets, back in redo order
            table = pa.Table.from_batches(pieces)
            yield from table.sort_by(
                [("block", "ascending"), ("offset", "ascending"), ("vector", "ascending")]
            ).to_batches()


def bucket_events(
    units: Sequence[dict[str, Any]], buckets: Sequence[int] | None, lob_slots: Any = ()
) -> Iterator[Any]:
    """Some buckets' events of the batch in redo order (:func:`thread_events` per thread, the threads
    merged by the core as the single-process decode merges them: ``pipeline.merge_threads``)."""
    from redo_lib.pipeline import merge_threads

    threads: dict[int, list[dict[str, Any]]] = {}
    for unit in units:
        threads.setdefault(unit["thread"], []).append(unit)
    return merge_threads(
        {t: thread_events(group, buckets, lob_slots) for t, group in sorted(threads.items())}
    )


def carried_events(
    locations: Sequence[str], buckets: Sequence[int] | None, total: int, lob_slots: Any = ()
) -> Iterator[Any]:
    """The events carried in from the previous batch (its ``open/`` files) that belong to the task
    of ``buckets`` (of ``total``; None: the LOB slots' task), each file's rows in begin order. A file
    the previous batch's tasks wrote with the same number of buckets is read only in the row groups
    of those buckets (:func:`file_groups`); any other file is read whole. Rows are always filtered."""
    import pyarrow as pa

    keys = np.sort(np.asarray(lob_slots, dtype=np.int64))
    mine = None if buckets is None else np.asarray(sorted(buckets), dtype=np.int64)
    for location in locations:
        with open_parquet(location) as file:
            found = file_groups(file.metadata)
            groups: Iterable[int] = range(file.metadata.num_row_groups)
            if mine is not None and found is not None and found[0] == total:
                groups = sorted(g for b in mine.tolist() for g in found[1].get(str(b), ()))
            for group in groups:
                for batch in file.read_row_group(group).to_batches():
                    if mine is None:
                        batch = _keep(batch, keys, inside=True)
                    else:
                        batch = _keep(batch, keys, inside=False)
                        ours = np.isin(buckets_of(batch.column("usn"), batch.column("slot"), total), mine)
                        if not ours.all():
                            batch = batch.filter(pa.array(ours))
                    if batch.num_rows:
                        yield batch


def carried_rows(locations: Iterable[str], buckets: int) -> Counter[int]:
    """Rows per bucket of the carried-in files: from the Parquet metadata of a file the previous
    batch's tasks wrote with as many buckets (:func:`file_groups`), from its usn and slot columns
    otherwise. The driver packs these buckets too: an open transaction whose slot has no events in
    the batch still needs a task."""
    rows: Counter[int] = Counter()
    for location in locations:
        with open_parquet(location) as file:
            found = file_groups(file.metadata)
            if found is not None and found[0] == buckets:
                for bucket, groups in found[1].items():
                    rows[int(bucket)] += sum(file.metadata.row_group(g).num_rows for g in groups)
                continue
            slots = file.read(columns=["usn", "slot"])
            if slots.num_rows:
                found_buckets = buckets_of(slots.column("usn"), slots.column("slot"), buckets)
                rows.update(dict(zip(*np.unique(found_buckets, return_counts=True), strict=True)))
    return Counter({int(b): int(n) for b, n in rows.items()})


def kind_rows(locations: Iterable[str], kind: int) -> list[dict[str, Any]]:
    """The rows of one event kind (the batch's DDL: a few) in some event files, as dicts, in file
    order: each row group's ``kind`` column read first, the row group itself only when it has one."""
    import pyarrow.compute as pc

    rows: list[dict[str, Any]] = []
    for location in locations:
        with open_parquet(location) as file:
            for group in range(file.metadata.num_row_groups):
                kinds = file.read_row_group(group, columns=["kind"]).column("kind")
                if pc.any(pc.equal(kinds, kind)).as_py():
                    table = file.read_row_group(group)
                    rows += table.filter(pc.equal(table.column("kind"), kind)).to_pylist()
    return rows


# ---------------------------------------------------------------------------------------------
# Commit order


def range_bounds(samples: Iterable[int], ranges: int) -> list[int]:
    """Up to ``ranges``-1 increasing SCN bounds cutting the samples into about equal parts: range r
    holds the commit SCNs in [bounds[r-1], bounds[r]) (:func:`range_of`)."""
    values = np.sort(np.fromiter(samples, dtype=np.int64))
    if ranges <= 1 or not len(values):
        return []
    cuts = values[(np.arange(1, ranges) * len(values)) // ranges]
    return sorted({int(v) for v in cuts})


def range_of(order_scn: Any, bounds: Sequence[int]) -> Any:
    return np.searchsorted(np.asarray(bounds, dtype=np.int64), np.asarray(order_scn), side="right")


class RangeRuns:
    """An assemble task's trail rows (commit-order key included) into one Parquet file per commit
    range, opened on the first row of its range: ``open_run(r)`` gives the local path to write."""

    def __init__(self, schema: Any, bounds: Sequence[int], open_run: Callable[[int], Any]) -> None:
        self.schema = schema
        self.bounds = list(bounds)
        self.open_run = open_run
        self.writers: dict[int, Any] = {}
        self.rows: Counter[int] = Counter()

    def write(self, batch: Any) -> None:

        if not batch.num_rows:
            return
        for r, rows in _split(batch, range_of(batch.column("order_scn"), self.bounds)):
            if r not in self.writers:
                self.writers[r] = parquet_writer(self.open_run(r), self.schema)
            self.writers[r].write_batch(rows, row_group_size=rows.num_rows)
            self.rows[r] += rows.num_rows

    def close(self) -> dict[int, int]:
        for writer in self.writers.values():
            writer.close()
        return dict(self.rows)


class _Run:
    """A run file: its transactions (where each starts, how many rows) and its row groups by number."""

    def __init__(self, location: str) -> None:
        import pyarrow.parquet as pq

        self.location = location
        with parquet_errors(location):
            self.file = pq.ParquetFile(open_input(location), **VERIFY_PAGES)
        meta = self.file.metadata
        sizes = [meta.row_group(g).num_rows for g in range(meta.num_row_groups)]
        self.starts = np.cumsum([0, *sizes])

    def transactions(self) -> tuple[list[Any], Any, Any]:
        """(the key columns (``TXN_FIELDS``), first row, rows) of each transaction, in file order:
        the rows where the key changes, read a row group at a time (a transaction's rows are together)."""
        keys: list[list[Any]] = [[] for _ in TXN_FIELDS]
        firsts: list[Any] = []
        for group in range(len(self.starts) - 1):
            with parquet_errors(self.location):
                columns = self.file.read_row_group(group, columns=list(TXN_FIELDS))
            arrays = [columns.column(name).to_numpy() for name in TXN_FIELDS]
            differs = np.zeros(columns.num_rows, dtype=bool)
            differs[0] = True
            for a in arrays:
                differs[1:] |= a[1:] != a[:-1]
            at = np.flatnonzero(differs)
            for column, a in zip(keys, arrays, strict=True):
                column.append(a[at])
            firsts.append(at + self.starts[group])
        if not firsts:
            return (
                [np.zeros(0, dtype=np.int64) for _ in TXN_FIELDS],
                np.zeros(0, np.int64),
                np.zeros(0, np.int64),
            )
        key = [np.concatenate(column) for column in keys]
        first = np.concatenate(firsts)
        # a transaction that goes on in the next row group starts there again: keep its first start
        again = np.zeros(len(first), dtype=bool)
        again[1:] = np.logical_and.reduce([k[1:] == k[:-1] for k in key])
        key = [k[~again] for k in key]
        first = first[~again]
        return key, first, np.diff(np.append(first, self.starts[-1]))

    def group(self, number: int) -> Any:
        with parquet_errors(self.location):
            return self.file.read_row_group(number)

    def close(self) -> None:
        self.file.close()


def merge_runs(locations: Sequence[str], *, window: int = 16384) -> Iterator[Any]:
    """Trail rows of some runs (each a task's rows of one commit range) in commit order: tables of
    about ``window`` rows. A transaction's rows are together in one run, in order; the transactions
    are put in the order of their key (commit SCN, thread, position of the commit record) and each
    window of the output is one ``take`` over the row groups it needs (kept for the next window:
    the runs are nearly in commit order already, so each row group is read about once)."""
    runs = [_Run(location) for location in locations]
    try:
        found = [run.transactions() for run in runs]
        if not found or not sum(len(first) for _, first, _ in found):
            return
        key = [np.concatenate([f[0][i] for f in found]) for i in range(len(TXN_FIELDS))]
        run_of = np.concatenate([np.full(len(f[1]), i) for i, f in enumerate(found)])
        first = np.concatenate([f[1] for f in found])
        rows = np.concatenate([f[2] for f in found])
        order = np.lexsort(key[::-1])
        run_of, first, rows = run_of[order], first[order], rows[order]
        # a transaction longer than a window goes in pieces of a window each
        pieces = -(-rows // window)
        if (pieces > 1).any():
            piece_of = np.repeat(np.arange(len(rows)), pieces)
            k = np.arange(len(piece_of)) - np.repeat(np.cumsum(pieces) - pieces, pieces)
            run_of, first = run_of[piece_of], first[piece_of] + k * window
            rows = np.minimum(rows[piece_of] - k * window, window)
        ends = np.cumsum(rows)
        kept: dict[tuple[int, int], Any] = {}
        i = 0
        while i < len(rows):
            done = int(ends[i - 1]) if i else 0
            j = min(max(int(np.searchsorted(ends, done + window, side="left")) + 1, i + 1), len(rows))
            table, kept = _take(runs, run_of[i:j], first[i:j], rows[i:j], kept)
            yield table
            i = j
    finally:
        for run in runs:
            run.close()


def _take(runs: Sequence[_Run], run_of: Any, first: Any, rows: Any, kept: dict[tuple[int, int], Any]) -> Any:
    """The rows [first, first + rows) of run ``run_of``, for each entry in order, as one table;
    the row groups read (``kept``: those of the last window, read again only when not there)."""
    import pyarrow as pa

    total = int(rows.sum())
    run = np.repeat(run_of, rows)
    row = np.repeat(first, rows) + (np.arange(total) - np.repeat(np.cumsum(rows) - rows, rows))
    group = np.empty(total, dtype=np.int64)
    for r in np.unique(run_of).tolist():
        mine = run == r
        group[mine] = np.searchsorted(runs[r].starts, row[mine], side="right") - 1
    pairs, which = np.unique(run * (1 << 32) + group, return_inverse=True)
    tables, bases, group_starts, now = [], [], [], {}
    base = 0
    for pair in pairs.tolist():
        r, g = pair >> 32, pair & 0xFFFFFFFF
        table = kept.get((r, g))
        if table is None:
            table = runs[r].group(g)
        now[(r, g)] = table
        tables.append(table)
        bases.append(base)
        group_starts.append(int(runs[r].starts[g]))
        base += table.num_rows
    index = np.asarray(bases)[which] + row - np.asarray(group_starts)[which]
    return pa.concat_tables(tables).take(pa.array(index)), now


__all__ = [
    "BucketWriter", "RangeRuns", "bucket_events", "buckets_of", "carried_events", "carried_rows", "file_groups", "kind_rows", "merge_runs",
    "pack", "range_bounds", "range_of", "slot_keys", "thread_events",
]  # fmt: skip
