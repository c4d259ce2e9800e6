"""Trail rows put in commit order with memory bounded by a budget, not by the batch (issue 31).

The core emits a transaction's rows at its commit, in redo order; commit order (contract rule 6:
commit SCN, thread, the commit record's place) differs from it only where records of one redo
write are not in SCN order, so the rows arrive nearly sorted. ``CommitOrder`` gathers them up to
``budget`` bytes, sorts that buffer (pyarrow), and appends it to the first sorted run it extends:
each run is an Arrow IPC file whose rows only grow, so nearly sorted input makes one long run and a
handful of short ones (the rows a later write put before an earlier one). ``batches()`` then merges
the runs, a record batch of each at a time: every step emits, from each run, the rows up to the
smallest of the runs' last keys in memory (a bisection over the run's rows, a few Python values per
step, none per row), sorted together. The whole trail is never in memory, whatever its size; a
trail under the budget never touches the disk.

Every batch added must have the ``keys`` columns (int64), unique per row (the staged trail's
``ORDER_FIELDS``).
"""

from __future__ import annotations

import contextlib
import tempfile
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, final

from redo_lib.errors import AssemblyError, Position

DEFAULT_BUDGET = 16 << 20  # bytes of Arrow rows held before a sorted buffer goes to a run
#: :class:`CommitStream`'s: the rows it holds are the few commits of one LWN, unless one is a large
#: transaction, whose rows then go to disk in 4 MB runs (sorting a buffer costs about twice it again)
STREAM_BUDGET = 4 << 20
RUN_BATCH_ROWS = 2048  # rows per record batch of a run file: what the merge holds per run
#: rows per record batch :class:`CommitStream` hands its sink (wide rows: about 2 MB)
RELEASE_ROWS = 8192


def _key(table: Any, keys: Sequence[str], i: int) -> tuple[int, ...]:
    return tuple(table.column(name)[i].as_py() for name in keys)


def _count_up_to(table: Any, keys: Sequence[str], bound: tuple[int, ...]) -> int:
    """How many leading rows of the sorted ``table`` have a key <= ``bound`` (bisection)."""
    lo, hi = 0, table.num_rows
    while lo < hi:
        mid = (lo + hi) // 2
        if _key(table, keys, mid) <= bound:
            lo = mid + 1
        else:
            hi = mid
    return lo


@final
class _Run:
    """A sorted run: an Arrow IPC file being written, its last key."""

    def __init__(self, path: Path, schema: Any) -> None:
        import pyarrow as pa

        self.path = path
        self._sink = pa.OSFile(str(path), "wb")
        self._writer = pa.ipc.new_file(self._sink, schema)
        self.last: tuple[int, ...] | None = None
        self._open = True

    def append(self, rows: _Sorted, start: int, end: int) -> None:
        """Rows [start, end) of ``rows`` (in their sorted order)."""
        for batch in rows.chunks(start, end, RUN_BATCH_ROWS):
            self._writer.write_batch(batch)
        self.last = rows.key(end - 1)

    def close(self) -> None:
        if self._open:
            self._open = False
            self._writer.close()
            self._sink.close()


@final
class CommitOrder:
    """Add record batches in any order; ``batches()`` yields them sorted by ``keys``."""

    def __init__(self, schema: Any, keys: Sequence[str], *, budget: int | None = None) -> None:
        self.schema = schema
        self.keys = tuple(keys)
        self.budget = DEFAULT_BUDGET if budget is None else budget
        self.rows = 0
        self.runs_written = 0  # sorted buffers that went to disk (for reports and tests)
        self._buffer: list[Any] = []
        self._bytes = 0
        self._runs: list[_Run] = []
        self._tmp: tempfile.TemporaryDirectory[str] | None = None

    def add(self, batch: Any) -> None:
        if batch.num_rows == 0:
            return
        self._buffer.append(batch)
        self._bytes += batch.nbytes
        self.rows += batch.num_rows
        if self._bytes >= self.budget:
            self._spill()

    def _sorted_buffer(self) -> _Sorted:
        rows = _Sorted(self._buffer, self.keys)
        self._buffer, self._bytes = [], 0
        return rows

    def _spill(self) -> None:
        """The buffer, sorted, into the runs: its rows from the first one that a run's last key is
        below go to that run, the rows before them to the next run, and so on; a new run last."""
        rows = self._sorted_buffer()
        if self._tmp is None:
            self._tmp = tempfile.TemporaryDirectory(prefix="redotrail-order-")
        self.runs_written += 1
        end = rows.num_rows
        for run in self._runs:
            if end == 0:
                break
            start = _count_up_to(rows.keys.slice(0, end), self.keys, run.last) if run.last is not None else 0
            if start < end:
                run.append(rows, start, end)
                end = start
        if end:
            run = _Run(Path(self._tmp.name) / f"run-{len(self._runs):05d}.arrow", self.schema)
            run.append(rows, 0, end)
            self._runs.append(run)

    def batches(self, chunk: int = 8192) -> Iterator[Any]:
        """Every row added, in key order, as record batches of at most ``chunk`` rows."""
        import pyarrow as pa

        try:
            if not self._runs:  # all of it in memory: one sort
                rows = self._sorted_buffer()
                yield from rows.chunks(0, rows.num_rows, chunk)
                return
            if self._buffer:
                self._spill()
            for run in self._runs:
                run.close()
            with contextlib.ExitStack() as files:
                # read, not memory-mapped: a mapped run's pages would stay resident as it is read
                cursors = [
                    _Cursor(pa.ipc.open_file(files.enter_context(pa.OSFile(str(run.path), "rb"))))
                    for run in self._runs
                ]
                while True:
                    live = [c for c in cursors if c.fill()]
                    if not live:
                        return
                    bound = min(c.last_key(self.keys) for c in live)
                    merged = pa.concat_tables([c.take_up_to(bound, self.keys) for c in live])
                    if len(live) > 1:
                        merged = merged.sort_by([(name, "ascending") for name in self.keys])
                    yield from merged.to_batches(max_chunksize=chunk)
        finally:
            self.close()

    def close(self) -> None:
        """Remove the run files (also done when ``batches()`` ends)."""
        for run in self._runs:
            run.close()
        self._runs = []
        if self._tmp is not None:
            self._tmp.cleanup()
            self._tmp = None


@final
class _Sorted:
    """Record batches as one, and the permutation that sorts it by ``keys``: taken a chunk at a
    time, so sorting holds one copy of the rows (none for one batch), not the sorted whole too."""

    def __init__(self, batches: list[Any], keys: Sequence[str]) -> None:
        import pyarrow as pa
        import pyarrow.compute as pc

        self._names = list(keys)
        self.num_rows = sum(batch.num_rows for batch in batches)
        if not self.num_rows:
            return
        self.rows = pa.concat_batches(batches)
        self.order = pc.sort_indices(
            self.rows.select(self._names), sort_keys=[(k, "ascending") for k in keys]
        )
        self.keys = self.rows.select(self._names).take(self.order)  # the keys in sorted order

    def key(self, i: int) -> tuple[int, ...]:
        """The key of the ``i``-th row in sorted order."""
        return _key(self.keys, self._names, i)

    def chunks(self, start: int, end: int, size: int) -> Iterator[Any]:
        """Rows [start, end) in sorted order, as record batches of at most ``size`` rows."""
        for i in range(start, end, size):
            yield self.rows.take(self.order.slice(i, min(size, end - i)))


@final
class _Cursor:
    """A run's record batches, read one at a time, and the rows of the current one not yet taken."""

    def __init__(self, reader: Any) -> None:
        self._reader = reader
        self._next = 0
        self.pending: Any = None

    def fill(self) -> bool:
        """Whether rows are pending (the next batch read when none are)."""
        import pyarrow as pa

        while self.pending is None or self.pending.num_rows == 0:
            if self._next >= self._reader.num_record_batches:
                return False
            self.pending = pa.Table.from_batches([self._reader.get_batch(self._next)])
            self._next += 1
        return True

    def last_key(self, keys: Sequence[str]) -> tuple[int, ...]:
        return _key(self.pending, keys, self.pending.num_rows - 1)

    def take_up_to(self, bound: tuple[int, ...], keys: Sequence[str]) -> Any:
        n = _count_up_to(self.pending, keys, bound)
        taken, self.pending = self.pending.slice(0, n), self.pending.slice(n)
        return taken


@final
class CommitStream:
    """Trail rows handed to ``sink`` in key order as soon as no later row can precede them.

    The core emits a transaction's rows at its commit record; a later commit can sort before an
    earlier one only within one redo write: every record of an LWN has an SCN in [its LWN SCN, the
    next LWN's SCN) (redo-format §3.3). So once the events up to a point of the log are fed, and
    the walk there is in an LWN of SCN ``s``, every commit still to come has an SCN of at least
    ``s``: :meth:`release` (``s``) sends every held row whose first key (the commit SCN) is below
    ``s`` to ``sink``, sorted, and keeps the rest (the commits of that last LWN, usually a handful).
    The held rows are a :class:`CommitOrder` (on disk past its budget), so memory stays bounded
    however many rows one transaction has; :meth:`finish` sends what is left.
    """

    def __init__(self, schema: Any, keys: Sequence[str], sink: Any, *, budget: int | None = None) -> None:
        self.schema = schema
        self.keys = tuple(keys)
        self.budget = STREAM_BUDGET if budget is None else budget
        self.rows = 0  # rows added
        self.released = 0  # rows sent to the sink
        self.runs_written = 0  # sorted buffers that went to disk, over every hold
        self._sink = sink
        self._held = CommitOrder(schema, keys, budget=budget)
        self._released_below = 0  # every row below this commit SCN has gone to the sink

    def add(self, batch: Any) -> None:
        """Hold ``batch``'s rows; ``AssemblyError`` for a row whose commit SCN is below a bound
        already released (rows after it were written): the redo broke §3.3's rule, and the trail
        would be out of commit order (contract rule 6) if it went on."""
        if batch.num_rows and self._released_below:
            import pyarrow.compute as pc

            lowest = pc.min(batch.column(self.keys[0])).as_py()
            if lowest is not None and lowest < self._released_below:
                at = pc.index(batch.column(self.keys[0]), lowest).as_py()
                key = {name: batch.column(name)[at].as_py() for name in self.keys}
                raise AssemblyError(
                    f"a transaction committing at SCN {lowest} was emitted after the rows committed "
                    f"below SCN {self._released_below} were written: a record below its LWN's SCN "
                    "(redo-format §3.3); the trail would be out of commit order",
                    position=_commit_position(key),
                    **{k: v for k, v in key.items() if k not in _POSITION_KEYS},
                )
        self.rows += batch.num_rows
        self._held.add(batch)

    def release(self, scn: int) -> None:
        """Send every held row whose commit SCN is below ``scn`` to the sink, in key order."""
        import pyarrow as pa

        self._released_below = max(self._released_below, scn)
        held, self._held = self._held, CommitOrder(self.schema, self.keys, budget=self.budget)
        if held.rows == 0:
            return
        bound = (scn - 1, *(_MAX_KEY,) * (len(self.keys) - 1))
        kept = False  # a batch had a row at or above the bound: the rest are, too (sorted)
        for batch in held.batches(RELEASE_ROWS):
            n = 0 if kept else _count_up_to(batch, self.keys, bound)
            if n:
                self._send(batch.slice(0, n))
            if n < batch.num_rows:
                kept = True
                # a copy: a slice would keep the whole sorted buffer it comes from alive
                self._held.add(pa.concat_batches([batch.slice(n)]))
        self.runs_written += held.runs_written

    def finish(self) -> None:
        """Send every row still held, in key order."""
        held, self._held = self._held, CommitOrder(self.schema, self.keys, budget=self.budget)
        for batch in held.batches(RELEASE_ROWS):
            self._send(batch)
        self.runs_written += held.runs_written

    def _send(self, batch: Any) -> None:
        if batch.num_rows == 0:
            return
        self.released += batch.num_rows
        self._sink(batch)

    def close(self) -> None:
        """Remove the held rows' run files (after an error; :meth:`finish` does it otherwise)."""
        self._held.close()


_MAX_KEY = (1 << 63) - 1
#: the staged trail's keys that place a commit record in the redo (``pipeline.ORDER_FIELDS``)
_POSITION_KEYS = {"order_seq": "sequence", "order_block": "block", "order_offset": "offset"}


def _commit_position(key: dict[str, Any]) -> Position:
    """Where the commit of a row with these keys is, when they are the staged trail's (its log's
    sequence, block and offset; the thread goes into the details), else nowhere known."""
    return Position(**{field: key[name] for name, field in _POSITION_KEYS.items() if name in key})


@dataclass(frozen=True, slots=True)
class Watermark:
    """In a stream of event batches: every event after this point has an SCN of at least ``scn``
    (the SCN of the LWN the log's walk is in, redo-format §3.3)."""

    scn: int
