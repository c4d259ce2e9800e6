"""LogReader: the incremental record assembler (h11 shape), and iter_records over a byte source.

``LogReader`` owns no I/O: ``feed(data)`` appends the bytes of consecutive blocks,
``next_record()`` returns a ``RedoRecord``, ``NEED_DATA`` or ``END``, and ``close()`` raises
``TruncatedLogError`` when the input stopped inside a record or before the log's end.

The walk is redo-format §3.1 exactly: records start 4-byte aligned; where 20 or fewer bytes are
left in a block, or the u32 there is 0, the next record starts at offset 16 of the next block; a
record spanning blocks is copied without the block headers. Blocks are checked (§2 header, §2.1
checksum) a whole fed range at a time, lazily, so records before a damaged block are still
delivered. Starting mid-log (``start_offset=None``) and resuming after damage use the block header
@12 (§2): the offset of the first record that begins in the block, 0 when none does.

State (the only mutable things here): the byte buffer and the walk position. Transitions:

| state          | event                               | next                                 |
|----------------|-------------------------------------|--------------------------------------|
| SEEK(blk, off) | block not complete in the buffer    | NEED_DATA (same state)               |
| SEEK           | blk >= stop/end block               | END                                  |
| SEEK           | <= 20 bytes left, or u32 == 0       | SEEK(blk + 1, 16)                    |
| SEEK           | record start, all its blocks there  | record returned; SEEK(after it)      |
| SEEK           | record start, blocks missing        | NEED_DATA (pending: close() raises)  |
| SEEK(blk, ?)   | resync                              | SEEK(blk, @12) or SEEK(blk + 1, ?)   |
| any            | damage under ErrorPolicy.SKIP       | recorded in the report; SEEK(next good block, ?) |

Layer 1: imports only layer 0 and format. ``iter_records`` takes any object with ``name``, ``size``
and ``read(offset, size)`` (``storage.sources.BlockSource`` satisfies it; format does not import
storage).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Final, Protocol, final

from redo_lib.errors import (
    ErrorPolicy,
    FormatError,
    Position,
    RedoError,
    TruncatedLogError,
    locate,
)
from redo_lib.format.blocks import check_blocks
from redo_lib.format.header import file_layout
from redo_lib.format.layout import BLOCK_HEADER_SIZE, RECORD_HEADER_SIZE, FileLayout, fast_builder
from redo_lib.format.model import LogHeader, LwnHeader, Opaque, RedoRecord
from redo_lib.format.ops.lob import classify_all
from redo_lib.format.records import VLD_LWN, parse_lwn_header, parse_record
from redo_lib.report import DecodeReport
from redo_lib.scn import Rba

MIN_LEFT = 20  # §3.1: nothing starts where 20 or fewer bytes are left in a block
_new_rba = fast_builder(Rba)
READ_CHUNK = 1 << 20


@final
class _Sentinel:
    __slots__ = ("name",)

    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return self.name


NEED_DATA: Final = _Sentinel("NEED_DATA")
END: Final = _Sentinel("END")


@final
class LogReader:
    """Turns the bytes of consecutive redo blocks into ``RedoRecord`` values (see module doc).

    ``first_block`` is the number of the first block fed; ``start_offset`` where to look for the
    first record in it (16 at block 2; ``None`` = resync with the block header @12).
    ``end_block`` is the log's end (``nab``): a record running past it is a ``TruncatedLogError``.
    ``stop_block``: records starting at or after it are not returned (``END``). ``lwn`` is the LWN
    the first records belong to when starting inside one, with the block it starts in. Under
    ``ErrorPolicy.SKIP`` damage goes to ``report`` (``self.report``; a fresh one if not given).
    """

    def __init__(
        self,
        layout: FileLayout,
        *,
        sequence: int,
        thread: int = 1,
        first_block: int = 2,
        start_offset: int | None = BLOCK_HEADER_SIZE,
        end_block: int | None = None,
        stop_block: int | None = None,
        name: str | None = None,
        lwn: tuple[LwnHeader, int] | None = None,
        policy: ErrorPolicy = ErrorPolicy.RAISE,
        report: DecodeReport | None = None,
        checksums: bool = True,
    ) -> None:
        self._layout = layout
        self._size = layout.block_size
        self._payload = layout.block_size - BLOCK_HEADER_SIZE
        self._sequence = sequence
        self._thread = thread
        self._end = end_block
        self._stop = stop_block
        limits = [b for b in (stop_block, end_block) if b is not None]
        self._limit = min(limits) if limits else None
        self._name = name
        self._policy = policy
        self.report = report if report is not None else DecodeReport()
        self._checksums = checksums
        self._buf = bytearray()
        self._buf_block = first_block  # block number of _buf[0]
        self._checked = first_block  # blocks below this have been checked
        self._bad: dict[int, FormatError] = {}
        self._blk = first_block
        self._off = start_offset
        self._lwn: LwnHeader | None = lwn[0] if lwn else None
        self._lwn_end = lwn[1] + lwn[0].length if lwn else first_block
        self._pending: tuple[int, int, int] | None = None  # (block, offset, length) of a started record
        self._done = False
        self._closed = False

    # -- h11-style surface -----------------------------------------------------------------------

    def feed(self, data: bytes) -> None:
        """Append the next bytes of the log (any size; whole blocks need not line up)."""
        if self._closed:
            raise RuntimeError("feed() after close()")
        self._buf += data

    def next_record(self) -> RedoRecord | _Sentinel:
        """The next record, ``NEED_DATA`` (feed more) or ``END`` (range or log finished)."""
        try:
            return self._next()
        except RedoError as exc:
            raise locate(exc, file=self._name, sequence=self._sequence) from None

    def close(self) -> None:
        """Declare the input finished. Raises ``TruncatedLogError`` if it stopped inside a record, or
        before ``end_block`` when the walk had not reached the end."""
        self._closed = True
        if self._done:
            return
        where = Position(file=self._name, sequence=self._sequence)
        if self._pending is not None:
            blk, off, length = self._pending
            raise TruncatedLogError(
                f"log ends inside a record of {length} bytes",
                position=Position(file=self._name, sequence=self._sequence, block=blk, offset=off),
                available_blocks=self._available(),
            )
        if self._end is not None and self._blk < self._end:
            raise TruncatedLogError(
                f"log ends at block {self._available()}, header says it has {self._end} blocks",
                position=Position(
                    file=where.file, sequence=where.sequence, block=self._available(), offset=0
                ),
            )
        if (len(self._buf) % self._size) and self._blk >= self._available():
            raise TruncatedLogError(
                "log ends inside a block",
                position=Position(
                    file=where.file, sequence=where.sequence, block=self._available(), offset=0
                ),
            )

    # -- the walk ------------------------------------------------------------------------------

    def _available(self) -> int:
        """Number of the first block that is not completely in the buffer."""
        return self._buf_block + len(self._buf) // self._size

    def _check_upto(self, block: int) -> None:
        """Check all complete unchecked blocks (at least through ``block``) in one pass."""
        if block < self._checked:
            return
        upto = self._available()
        size = self._size
        start = (self._checked - self._buf_block) * size
        chunk = memoryview(self._buf)[start : (upto - self._buf_block) * size]
        try:
            self._bad.update(
                check_blocks(chunk, self._checked, self._layout, self._sequence, checksums=self._checksums)
            )
        finally:
            chunk.release()
        self._checked = upto

    def _next(self) -> RedoRecord | _Sentinel:
        size = self._size
        buf = self._buf
        limit = self._limit
        u32 = self._layout.s.u32.unpack_from
        while True:
            blk = self._blk
            if limit is not None and blk >= limit:
                self._done = True
                self._pending = None
                return END
            if blk >= self._buf_block + len(buf) // size:
                return NEED_DATA
            if blk >= self._checked:
                self._check_upto(blk)
            if self._bad and blk in self._bad:
                self._damaged(self._bad[blk], blk, 0, blk + 1)
                continue
            base = (blk - self._buf_block) * size
            off = self._off
            if off is None:
                off = int.from_bytes(buf[base + 12 : base + 14], self._layout.byteorder) & 0x7FFF
                if off == 0:
                    self._advance_block(blk + 1, None)
                    continue
                if off < BLOCK_HEADER_SIZE or off >= size or off & 3:
                    error = FormatError(
                        f"block header @12 gives an impossible record offset {off}",
                        position=Position(block=blk, offset=12),
                    )
                    self._damaged(error, blk, 0, blk + 1)
                    continue
                self._off = off
            if size - off <= MIN_LEFT:
                self._advance_block(blk + 1, BLOCK_HEADER_SIZE)
                continue
            length = u32(buf, base + off)[0]
            if length == 0:
                self._advance_block(blk + 1, BLOCK_HEADER_SIZE)
                continue
            record = self._take(blk, off, length)
            if record is not None:
                return record
            if self._pending is not None:
                return NEED_DATA

    def _advance_block(self, blk: int, off: int | None) -> None:
        self._blk = blk
        self._off = off
        self._trim()

    def _trim(self) -> None:
        """Drop whole blocks before the walk position once they make up most of the buffer."""
        drop = self._blk - self._buf_block
        if drop > 0 and drop * self._size >= 1 << 20:
            del self._buf[: drop * self._size]
            self._buf_block = self._blk
            self._bad = {b: e for b, e in self._bad.items() if b >= self._blk}

    def _span(self, blk: int, off: int, length: int) -> int:
        """Number of the last block a record of ``length`` bytes starting at (blk, off) touches."""
        end = off + length
        if end <= self._size:
            return blk
        return blk + 1 + (end - self._size - 1) // self._payload

    def _after(self, blk: int, off: int, length: int) -> tuple[int, int]:
        """Walk position after a record: its length rounded up to 4, block headers skipped."""
        total = (length + 3) & ~3
        if off + total <= self._size:
            return blk, off + total
        rest = total - (self._size - off)
        return blk + 1 + rest // self._payload, BLOCK_HEADER_SIZE + rest % self._payload

    def _locate_in_record(self, blk: int, off: int, k: int) -> tuple[int, int]:
        """File (block, offset) of byte ``k`` of the record starting at (blk, off)."""
        if off + k < self._size:
            return blk, off + k
        rest = k - (self._size - off)
        return blk + 1 + rest // self._payload, BLOCK_HEADER_SIZE + rest % self._payload

    def _take(self, blk: int, off: int, length: int) -> RedoRecord | None:
        """Assemble and parse the record at (blk, off); ``None`` with ``_pending`` set = need data,
        ``None`` without = the record was skipped (ErrorPolicy.SKIP)."""
        if length < RECORD_HEADER_SIZE:
            error = FormatError(
                f"record length {length} is below the 24-byte header",
                position=Position(block=blk, offset=off),
            )
            self._damaged(error, blk, off, blk + 1)
            return None
        last = self._span(blk, off, length)
        if self._end is not None and last >= self._end:
            error = TruncatedLogError(
                f"record of {length} bytes runs past the end of the log (block {self._end})",
                position=Position(block=blk, offset=off),
            )
            self._damaged(error, blk, off, self._end)
            return None
        if last >= self._buf_block + len(self._buf) // self._size:
            self._pending = (blk, off, length)
            return None
        self._pending = None
        if last >= self._checked:
            self._check_upto(last)
        if self._bad:
            for b in range(blk + 1, last + 1):
                error = self._bad.get(b)
                if error is not None:
                    self._damaged(error, blk, off, b + 1)
                    return None
        data = self._assemble(blk, off, length)
        own_lwn = data[4] & VLD_LWN
        if not own_lwn and (self._lwn is None or blk >= self._lwn_end):
            error = FormatError(
                "record outside any LWN: the LWN header before it is missing or too short",
                position=Position(block=blk, offset=off),
            )
            self._damaged(error, blk, off, blk + 1)
            return None
        try:
            record = parse_record(
                data,
                _new_rba(self._sequence, blk, off),
                thread=self._thread,
                layout=self._layout,
                lwn=self._lwn,
            )
        except FormatError as exc:
            k = exc.position.offset or 0
            b, o = self._locate_in_record(blk, off, k)
            exc.position = Position(block=b, offset=o)
            exc.details.setdefault("record", str(Rba(self._sequence, blk, off)))
            nb, no = self._after(blk, off, length)
            self._damaged(exc, blk, off, nb, resume_offset=no)
            return None
        if record.lwn is not None:
            self._lwn = record.lwn
            self._lwn_end = blk + max(record.lwn.length, 1)
        nb, no = self._after(blk, off, length)
        self._blk, self._off = nb, no
        if nb != blk:
            self._trim()
        return record

    def _assemble(self, blk: int, off: int, length: int) -> bytes:
        size = self._size
        base = (blk - self._buf_block) * size
        if off + length <= size:
            return bytes(self._buf[base + off : base + off + length])
        parts = [self._buf[base + off : base + size]]
        left = length - (size - off)
        b = base + size
        while left > 0:
            take = min(left, self._payload)
            parts.append(self._buf[b + BLOCK_HEADER_SIZE : b + BLOCK_HEADER_SIZE + take])
            left -= take
            b += size
        return b"".join(parts)

    def _damaged(
        self, error: FormatError, blk: int, off: int, resume_block: int, *, resume_offset: int | None = None
    ) -> None:
        """RAISE: raise ``error``. SKIP: record the damaged range and resume at ``resume_block``
        (resync with @12 unless ``resume_offset`` is known)."""
        self._pending = None
        if self._policy is ErrorPolicy.RAISE:
            raise error
        locate(error, file=self._name, sequence=self._sequence)
        self.report.add_skipped(error)
        self.report.add_corrupt_range(
            file=self._name,
            sequence=self._sequence,
            start_block=blk,
            start_offset=off,
            end_block=resume_block,
            end_offset=resume_offset if resume_offset is not None else 0,
            kind=error.kind,
        )
        self._blk = resume_block
        self._off = resume_offset
        self._trim()


class ByteSource(Protocol):
    """What ``iter_records`` needs from a source (``storage.sources.BlockSource`` fits)."""

    @property
    def name(self) -> str: ...

    @property
    def size(self) -> int: ...

    def read(self, offset: int, size: int) -> bytes: ...


def find_lwn(source: ByteSource, header: LogHeader, block: int) -> tuple[LwnHeader, int] | None:
    """The LWN covering ``block`` and the block it starts in, found by reading back from ``block``.

    An LWN starts at offset 16 of a block whose header @12 says a record begins at 16, with a
    record whose VLD has 0x04 (§3.3). The search reads ``largest_lwn`` blocks back first (header
    @268), then further back to block 2 if needed. ``None`` when no LWN covers ``block``.
    """
    layout = file_layout(header)
    size = layout.block_size
    window = max(header.largest_lwn, 1)
    hi = block + 1
    while hi > 2:
        lo = max(2, hi - window)
        data = source.read(lo * size, (hi - lo) * size)
        for k in range(min(hi, lo + len(data) // size) - 1, lo - 1, -1):
            base = (k - lo) * size
            word = layout.s.u16.unpack_from(data, base + 12)[0] & 0x7FFF
            if word != BLOCK_HEADER_SIZE or not data[base + 20] & VLD_LWN:
                continue
            if check_blocks(data[base : base + size], k, layout, header.sequence):
                continue
            try:
                lwn = parse_lwn_header(data[base + 16 : base + size], layout, Position(block=k, offset=16))
            except FormatError:
                continue
            return (lwn, k) if k + lwn.length > block else None
        hi = lo
        window *= 4
    return None


def iter_records(
    source: ByteSource,
    header: LogHeader,
    first_block: int = 2,
    last_block: int | None = None,
    *,
    policy: ErrorPolicy = ErrorPolicy.RAISE,
    report: DecodeReport | None = None,
    chunk: int = READ_CHUNK,
) -> Iterator[RedoRecord]:
    """Yield exactly the records that start in blocks [first_block, last_block) of the log.

    Reads past ``last_block`` as far as needed to finish the last record. Any split of
    [2, nab) into ranges yields every record exactly once. A range starting mid-log resyncs with
    the block header @12 and looks back for its LWN (:func:`find_lwn`). With ``report`` every
    yielded record is counted (:func:`tally`). Raises only ``RedoError`` subclasses on bad input.
    """
    layout = file_layout(header)
    size = layout.block_size
    end = header.nab if header.nab != 0xFFFFFFFF else max(source.size // size, 2)
    stop = end if last_block is None else min(last_block, end)
    first = max(first_block, 2)
    if first >= stop:
        return
    lwn = None
    if first > 2:
        try:
            lwn = find_lwn(source, header, first)
        except RedoError as exc:
            raise locate(exc, file=source.name, sequence=header.sequence) from None
    reader = LogReader(
        layout,
        sequence=header.sequence,
        thread=header.thread,
        first_block=first,
        start_offset=BLOCK_HEADER_SIZE if first == 2 else None,
        end_block=end,
        stop_block=stop,
        name=source.name,
        lwn=lwn,
        policy=policy,
        report=report,
    )
    step = max(chunk // size, 1) * size
    pos = first * size
    limit = end * size
    while True:
        item = reader.next_record()
        if item is NEED_DATA:
            data = source.read(pos, min(step, limit - pos)) if pos < limit else b""
            if not data:
                reader.close()
                return
            reader.feed(data)
            pos += len(data)
            continue
        if item is END:
            reader.close()
            return
        assert isinstance(item, RedoRecord)
        if report is not None:
            tally(report, item)
        yield item


def tally(report: DecodeReport, record: RedoRecord) -> None:
    """Count one record and its vectors in ``report`` (by VLD, by opcode, opaque by category)."""
    report.count_record(
        vld=record.vld,
        length=record.length,
        opcodes=[v.opcode for v in record.vectors],
        opaque=[v.body.category for v in record.vectors if isinstance(v.body, Opaque)],
        lobs=classify_all(record.vectors),
    )
