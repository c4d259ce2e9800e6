"""ChangeBuffer: the changes of one open transaction, in order, with bounded memory.

A transaction can hold any number of changes (a batch job updating tens of millions of rows), so
its buffer keeps at most ``memory_limit`` events (and about ``memory_bytes`` of LOB data) in memory and spills older ones to a temporary
file in chunks. The only operations transaction assembly needs are append, pop-last (partial
rollbacks cancel changes LIFO, redo-format §6.3) and in-order iteration at commit; pops touch the
newest events, which always stay in memory or come back one chunk at a time, so memory stays at
O(memory_limit) events per transaction however long it runs (docs/memory.md).

This is one of the project's few mutable state holders (style.md §6.5).
"""

from __future__ import annotations

import os
import pickle
import tempfile
from collections.abc import Callable, Iterable, Iterator
from typing import Any, BinaryIO

from redo_lib.assembly.events import ChangeEvent, EventKind
from redo_lib.assembly.rows import row_change_count

DEFAULT_MEMORY_LIMIT = 50_000  # events kept in memory per transaction before spilling
DEFAULT_MEMORY_BYTES = 64 << 20  # LOB data kept in memory per transaction before spilling


class ChangeBuffer:
    """Append / pop-last / iterate over the events of one transaction, spilling past a limit."""

    def __init__(
        self,
        memory_limit: int = DEFAULT_MEMORY_LIMIT,
        spill_dir: str | None = None,
        memory_bytes: int = DEFAULT_MEMORY_BYTES,
    ) -> None:
        if memory_limit < 2:
            raise ValueError("memory_limit must be at least 2")
        self._limit = memory_limit
        self._byte_limit = memory_bytes
        self._tail_bytes = 0  # LOB data bytes of the in-memory events
        self.lob_pieces = 0  # LOB piece events in the buffer (assembly/lobs.py reads them at commit)
        self._chunk = max(1, memory_limit // 2)
        self._spill_dir = spill_dir
        self._tail: list[ChangeEvent] = []
        self._file: BinaryIO | None = None
        self._chunks: list[tuple[int, int]] = []  # (offset, length) of spilled chunks, oldest first
        self._spilled = 0
        self.spill_count = 0  # how many chunks were ever written (for reports and tests)

    def __len__(self) -> int:
        return self._spilled + len(self._tail)

    @property
    def spilled(self) -> int:
        """Events currently on disk."""
        return self._spilled

    def append(self, event: ChangeEvent) -> None:
        self._tail.append(event)
        if event.kind is EventKind.LOB:
            self.lob_pieces += 1
            self._tail_bytes += len(event.lob_data)
        if len(self._tail) >= self._limit or (self._tail_bytes > self._byte_limit and len(self._tail) > 1):
            self._spill()

    def last(self) -> ChangeEvent | None:
        if not self._tail and self._chunks:
            self._unspill()
        return self._tail[-1] if self._tail else None

    def pop(self) -> ChangeEvent:
        if not self._tail and self._chunks:
            self._unspill()
        event = self._tail.pop()
        if event.kind is EventKind.LOB:
            self.lob_pieces -= 1
            self._tail_bytes -= len(event.lob_data)
        return event

    def __iter__(self) -> Iterator[ChangeEvent]:
        if self._file is not None:
            for offset, length in list(self._chunks):
                self._file.seek(offset)
                yield from pickle.loads(self._file.read(length))
        yield from list(self._tail)

    def close(self) -> None:
        if self._file is not None:
            self._file.close()
            self._file = None
        self._chunks.clear()
        self._tail.clear()
        self._spilled = 0
        self._tail_bytes = 0
        self.lob_pieces = 0

    def _spill(self) -> None:
        if self._file is None:
            # the buffer owns the file for its lifetime; close() releases it
            self._file = tempfile.TemporaryFile(prefix="redotrail-txn-", dir=self._spill_dir)  # noqa: SIM115
        # the oldest half by count, or by LOB bytes when they are what overflows
        size = self._chunk if len(self._tail) >= self._limit else max(1, len(self._tail) // 2)
        oldest, self._tail = self._tail[:size], self._tail[size:]
        self._tail_bytes -= sum(len(e.lob_data) for e in oldest)
        data = pickle.dumps(oldest, protocol=pickle.HIGHEST_PROTOCOL)
        self._file.seek(0, os.SEEK_END)
        offset = self._file.tell()
        self._file.write(data)
        self._chunks.append((offset, len(data)))
        self._spilled += len(oldest)
        self.spill_count += 1

    def _unspill(self) -> None:
        assert self._file is not None
        offset, length = self._chunks.pop()
        self._file.seek(offset)
        events: list[ChangeEvent] = pickle.loads(self._file.read(length))
        self._file.truncate(offset)
        self._spilled -= len(events)
        self._tail_bytes += sum(len(e.lob_data) for e in events)
        self._tail = events + self._tail


def summarize_open(
    events: Iterable[ChangeEvent], log_name: Callable[[int, int], str]
) -> dict[str, dict[str, Any]]:
    """What the open transactions carried out of a batch hold, keyed by xid (``usn.slot.sqn``):
    ``start_scn`` and ``start_time`` (the begin record's SCN and LWN time, ISO 8601), ``thread``,
    ``started_in`` (the log of the begin, ``log_name(thread, sequence)``), ``changes`` (row changes
    still held, after partial rollbacks), ``bytes`` (column and LOB data held) and ``last_scn``; a
    transaction held at its commit (it committed at or above the batch's watermark SCN, see
    ``transactions.py``) has ``held_commit_scn``.

    ``events`` is :meth:`TransactionTable.carry_out`'s output: each transaction's begin first. The
    operators' view of it (``python -m redo_lib status``, GoldenGate's ``SEND EXTRACT ... SHOWTRANS``)
    reads this from the batch's counts.json, never the events themselves."""
    out: dict[str, dict[str, Any]] = {}
    current: dict[str, Any] | None = None
    for event in events:
        if event.kind is EventKind.BEGIN:
            current = out[f"{event.usn}.{event.slot}.{event.sqn}"] = {
                "start_scn": event.scn,
                "start_time": event.time.isoformat(),
                "thread": event.thread,
                "started_in": log_name(event.thread, event.seq),
                "changes": 0,
                "bytes": 0,
                "last_scn": event.scn,
            }
            continue
        if current is None:
            continue
        if event.kind is EventKind.COMMIT:
            current["held_commit_scn"] = event.scn
        counted = row_change_count(event)
        if counted is not None:
            current["changes"] += counted[1]
        current["bytes"] += _held_bytes(event)
        current["last_scn"] = max(current["last_scn"], event.scn)
    return out


def _held_bytes(event: ChangeEvent) -> int:
    images = (event.before, event.after, event.supp_columns)
    size = sum(len(v) for image in images for _, v in image if v is not None)
    size += sum(len(v) for _, values in event.rows for v in values if v is not None)
    return size + len(event.lob_data)
