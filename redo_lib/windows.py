"""Block ranges of one log read by the Rust core a window at a time: the I/O loop of a decode
(style.md §6.2: bytes read from a source, fed to the core, read again wider when it asks).

* :class:`LogWindows` — a log opened for it: its source, its header, the block the log ends at;
  :meth:`LogWindows.call` reads the window of a block range and calls the core on it;
* :func:`count_range` — the decode report's counts of a range, the events never built (the
  ``stats`` command): the core's ``decode_counts``, the walk ``pipeline.decode_range_arrow`` makes.

Lean on purpose (no pyarrow, no dictionary, no assembly): ``stats`` starts with this module only.

Layer "top": may import everything.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from redo_lib.errors import ErrorPolicy, RedoError, locate
from redo_lib.format.model import LogHeader
from redo_lib.format.native_records import parse_header
from redo_lib.report import DecodeReport
from redo_lib.storage.sources import LocalFileSource

HEADER_BYTES = 2 * 4096  # block 0 + block 1 at the largest block size (redo-format §1.3)
#: Bytes read past a range's last block at first, for the records that start in it and end after
#: it; a record longer than that makes the core ask for more (``NeedData``), and the window grows.
TAIL_BYTES = 1 << 20
#: The most of a range one call of the core decodes: what bounds a decode's memory. The size of a
#: Spark decode unit (``batches.DEFAULT_RANGE_BYTES``), so a unit is one walk of the reader.
STEP_BYTES = 64 << 20


def open_source(location: str | os.PathLike[str]) -> Any:
    """A byte source for a local path or an ``s3://`` URL (ranged GETs)."""
    text = os.fspath(location)
    if text.startswith("s3://"):
        from redo_lib.storage.s3 import S3Source

        return S3Source(text)
    return LocalFileSource(text)


@dataclass(frozen=True, slots=True)
class LogWindows:
    """A log read by block ranges: ``source`` (``read``, ``name``, ``size``), its ``header`` and
    the bytes it was parsed from (``probe``, blocks 0-1: the core parses them again), and ``end``,
    the block after the last one (the header's NAB, or the file's size when the log was not closed)."""

    source: Any
    header: LogHeader
    probe: bytes
    end: int

    @classmethod
    def of(cls, location: Any) -> LogWindows:
        """A path, an ``s3://`` URL or an open byte source (or a ``LogWindows``: itself); a bad header
        is an error naming the file."""
        if isinstance(location, LogWindows):
            return location
        source = open_source(location) if isinstance(location, str | os.PathLike) else location
        probe = source.read(0, HEADER_BYTES)
        try:
            header = parse_header(probe, source.name)
        except RedoError as exc:
            raise locate(exc, file=source.name) from None
        size = header.block_size
        end = header.nab if header.nab != 0xFFFFFFFF else max(source.size // size, 2)
        return cls(source, header, probe, end)

    def steps(self, first_block: int, last_block: int | None, step_bytes: int) -> Iterator[tuple[int, int]]:
        """Consecutive block ranges ``[first, stop)`` of at most ``step_bytes`` covering the range
        (each record once: the records that start in it, redo-format §3.1)."""
        first = max(first_block, 2)
        stop = self.end if last_block is None else min(last_block, self.end)
        step = max(step_bytes // self.header.block_size, 1)
        for start in range(first, stop, step):
            yield start, min(start + step, stop)

    def call(
        self, core: Callable[..., tuple[Any, ...]], first: int, stop: int, *, tail_bytes: int, **options: Any
    ) -> tuple[Any, ...]:
        """``core`` (``native.decode_events`` or ``native.decode_counts``) on the records that start in
        blocks ``[first, stop)``, and its ``("done", ...)`` outcome. Only that is read: blocks 0-1,
        the LWN look-back before the range (``largest_lwn`` blocks, more if the core asks) and the
        range plus ``tail_bytes``; a record running past that makes the core ask for a wider
        window, read again."""
        size = self.header.block_size
        tail = max(tail_bytes // size, 1)
        lo = 2 if first == 2 else max(2, first - max(self.header.largest_lwn, 1))
        hi = min(self.end, stop + tail)
        while True:
            data = self.source.read(lo * size, (hi - lo) * size)
            more = hi < self.end and len(data) == (hi - lo) * size
            outcome = core(
                data, header=self.probe, base=lo, more=more, first_block=first, last_block=stop,
                name=self.source.name, **options,
            )  # fmt: skip
            if outcome[0] == "done":
                return outcome
            _, need_from, need_to = outcome
            lo = min(lo, need_from)
            hi = min(self.end, max(hi + (hi - first), need_to + tail))


def count_range(
    location: Any,
    first_block: int = 2,
    last_block: int | None = None,
    *,
    report: DecodeReport,
    policy: ErrorPolicy = ErrorPolicy.RAISE,
    tail_bytes: int = TAIL_BYTES,
    step_bytes: int = STEP_BYTES,
) -> None:
    """Add to ``report`` the counts of the records that start in blocks [first_block, last_block) of
    one log (records and vectors by opcode and VLD, opaque and LOB vectors, unsupported vectors)
    and what ``policy`` skipped: what ``pipeline.decode_range_arrow`` puts in its report, from the
    same walk of the core, no event built. ``location``: a path, an ``s3://`` URL, a byte source or
    a :class:`LogWindows` (its header read once for several ranges)."""
    from redo_lib.native import native

    log = LogWindows.of(location)
    for first, stop in log.steps(first_block, last_block, step_bytes):
        _, counts = log.call(native.decode_counts, first, stop, tail_bytes=tail_bytes, policy=policy.value)
        report.add_counts(counts)
