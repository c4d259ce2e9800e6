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
from pathlib import Path
from typing import Any, final

DEFAULT_BUDGET = 16 << 20  # bytes of Arrow rows held before a sorted buffer goes to a run
RUN_BATCH_ROWS = 2048  # rows per record batch of a run file: what the merge holds per run


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

    def append(self, table: Any, keys: Sequence[str]) -> None:
        self._writer.write_table(table, max_chunksize=RUN_BATCH_ROWS)
        self.last = _key(table, keys, table.num_rows - 1)

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

    def _sorted_buffer(self) -> Any:
        import pyarrow as pa

        table = pa.Table.from_batches(self._buffer, schema=self.schema)
        self._buffer, self._bytes = [], 0
        return table.sort_by([(name, "ascending") for name in self.keys])

    def _spill(self) -> None:
        """The buffer, sorted, into the runs: its rows from the first one that a run's last key is
        below go to that run, the rows before them to the next run, and so on; a new run last."""
        table = self._sorted_buffer()
        if self._tmp is None:
            self._tmp = tempfile.TemporaryDirectory(prefix="redotrail-order-")
        self.runs_written += 1
        end = table.num_rows
        for run in self._runs:
            if end == 0:
                break
            start = _count_up_to(table.slice(0, end), self.keys, run.last) if run.last is not None else 0
            if start < end:
                run.append(table.slice(start, end - start), self.keys)
                end = start
        if end:
            run = _Run(Path(self._tmp.name) / f"run-{len(self._runs):05d}.arrow", self.schema)
            run.append(table.slice(0, end), self.keys)
            self._runs.append(run)

    def batches(self, chunk: int = 8192) -> Iterator[Any]:
        """Every row added, in key order, as record batches of at most ``chunk`` rows."""
        import pyarrow as pa

        try:
            if not self._runs:  # all of it in memory: one sort
                yield from self._sorted_buffer().to_batches(max_chunksize=chunk)
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
