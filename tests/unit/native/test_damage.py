"""Damaged generated logs (every byte order, block size and compat of the matrix): the Rust reader's
errors are the class the damage calls for, naming the file, block and offset the test damaged; under
``ErrorPolicy.SKIP`` it counts the damaged ranges, loses only records the damage touches, and the
events of what it keeps are those of the written records (``written.py``).

The real 23.6 logs get the same treatment in ``tests/unit/redo_lib/format/test_reader.py``; random
damage reaching the record, vector and op parsers (checksums repaired) is fuzzed here and in
``tests/fuzz``: only a ``RedoError`` may come out.
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from redo_lib.errors import BlockHeaderError, ChecksumError, ErrorPolicy, RedoError, TruncatedLogError
from redo_lib.format import HEADER_PROBE_SIZE
from redo_lib.format.blocks import write_checksum
from redo_lib.format.model import RedoRecord
from redo_lib.format.native_records import parse_header, read_records
from redo_lib.native import native
from redo_lib.report import DecodeReport

from .test_events import assert_events
from .test_records import MATRIX, generated, matrix_id
from .written import assert_records_as_written

CHECKSUM_AT = 14  # u16 @14 of every block (redo-format §2.1)


@pytest.fixture(scope="module")
def gen_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("native-damage")


def _log(index: int, gen_dir: Path) -> tuple[bytes, list[RedoRecord], int, int]:
    """The longest log of matrix seed ``index``: bytes, its records (checked as written), block
    size and sequence."""
    result, written = generated(f"seed-{index}", gen_dir)
    data = max((log.read_bytes() for log in result.logs), key=len)
    header = parse_header(data[:HEADER_PROBE_SIZE])
    records = list(read_records(data))
    assert_records_as_written(records, written, sequence=header.sequence, thread=header.thread)
    return data, records, header.block_size, header.sequence


def _record_running_into(records: list[RedoRecord], size: int, block: int) -> tuple[int, int]:
    """(block, offset) of the record that started before ``block`` and runs into it, else
    (``block``, 0): where the reader stops when ``block`` is bad or missing."""
    running = [r for r in records if r.rba.block < block and _end(r, size) > block * size]
    return (running[0].rba.block, running[0].rba.offset) if running else (block, 0)


def _end(record: RedoRecord, size: int) -> int:
    """File offset just after the record's last byte (payloads of size - 16 bytes, §3.1)."""
    end = record.rba.offset + record.length
    if end <= size:
        return record.rba.block * size + end
    rest = end - size
    payload = size - 16
    return (record.rba.block + 1 + (rest - 1) // payload) * size + 16 + (rest - 1) % payload + 1


def _flip(data: bytes, places: list[tuple[int, int]], size: int) -> bytes:
    buf = bytearray(data)
    for block, offset in places:
        buf[block * size + offset] ^= 0x40
    return bytes(buf)


def _places(data: bytes, size: int, rnd: random.Random, count: int) -> list[tuple[int, int]]:
    """``count`` distinct blocks after the header, a payload byte (not the block header) in each."""
    blocks = sorted(rnd.sample(range(2, len(data) // size), min(count, len(data) // size - 2)))
    return [(block, rnd.randrange(16, size)) for block in blocks]


@pytest.mark.parametrize("index", range(len(MATRIX)), ids=matrix_id)
def test_flipped_byte_raises_checksum_error_naming_file_block_and_offset(index: int, gen_dir: Path) -> None:
    data, _, size, sequence = _log(index, gen_dir)
    rnd = random.Random(index)
    for place in _places(data, size, rnd, 3):
        with pytest.raises(ChecksumError) as info:
            list(read_records(_flip(data, [place], size), name="bad.dbf"))
        position = info.value.position
        assert (position.file, position.sequence, position.block, position.offset) == (
            "bad.dbf", sequence, place[0], CHECKSUM_AT,
        )  # fmt: skip


@pytest.mark.parametrize("count", [1, 3], ids=["one-block", "three-blocks"])
@pytest.mark.parametrize("index", range(len(MATRIX)), ids=matrix_id)
def test_skip_corrupt_counts_the_damaged_ranges_and_keeps_the_rest(
    index: int, count: int, gen_dir: Path
) -> None:
    data, records, size, sequence = _log(index, gen_dir)
    places = _places(data, size, random.Random(100 * count + index), count)
    damaged = _flip(data, places, size)
    report = DecodeReport()
    got = list(read_records(damaged, name="bad.dbf", policy=ErrorPolicy.SKIP, report=report))
    assert got == [r for r in records if r in got]  # order kept, nothing invented
    ranges = report.corrupt_ranges
    checksum = [c for c in ranges if c.kind == "checksum"]
    for block, _ in places:  # every damaged block is one checksum range, from the record it cuts
        (c,) = [c for c in checksum if c.start_block <= block < c.end_block]
        start = _record_running_into(records, size, block)
        if any(start < (p.end_block, p.end_offset or 0) for p in ranges[: ranges.index(c)]):
            start = (block, 0)  # that record was lost with an earlier range already
        assert (c.start_block, c.start_offset, c.end_block, c.end_offset) == (*start, block + 1, 0)
    assert len(checksum) == count
    # the other ranges are records that lost their LWN header with a damaged block (§3.3)
    assert all(c.kind == "format" and c.start_block > places[0][0] for c in ranges if c not in checksum)
    assert all((c.file, c.sequence) == ("bad.dbf", sequence) for c in ranges)
    assert all(a.end_block <= b.start_block for a, b in zip(ranges, ranges[1:], strict=False))
    assert [s.kind for s in report.skipped] == [c.kind for c in ranges]
    assert [s.position.block for s in report.skipped if s.kind == "checksum"] == [
        block for block, _ in places
    ]
    for record in records:  # a record is lost only when it lies in a damaged range
        if record not in got:
            first, last = record.rba.block, (_end(record, size) - 1) // size
            assert any(c.start_block <= last and first < c.end_block for c in ranges), str(record.rba)
    assert assert_events(damaged, got, policy=ErrorPolicy.SKIP, name="bad.dbf", tail_bytes=size)["report"][
        "corrupt_ranges"
    ] == [c.to_dict() for c in ranges]


@pytest.mark.parametrize("index", range(len(MATRIX)), ids=matrix_id)
def test_cut_log_raises_truncated_log_error_where_it_was_cut(index: int, gen_dir: Path) -> None:
    data, records, size, sequence = _log(index, gen_dir)
    rnd = random.Random(index)
    for cut in [2 * size, *(rnd.randrange(2 * size, len(data)) for _ in range(4))]:
        for policy in ErrorPolicy:
            with pytest.raises(TruncatedLogError) as info:
                list(read_records(data[:cut], name="cut.dbf", policy=policy))
            position = info.value.position
            assert (position.file, position.sequence, position.block, position.offset) == (
                "cut.dbf", sequence, *_record_running_into(records, size, cut // size),
            )  # fmt: skip


@pytest.mark.parametrize("index", range(len(MATRIX)), ids=matrix_id)
def test_blocks_out_of_order_raise_block_header_error_at_the_first(index: int, gen_dir: Path) -> None:
    data, _, size, sequence = _log(index, gen_dir)
    blocks = len(data) // size
    a = random.Random(index).randrange(2, blocks - 1)
    buf = bytearray(data)
    buf[a * size : (a + 1) * size], buf[(a + 1) * size : (a + 2) * size] = (
        data[(a + 1) * size : (a + 2) * size], data[a * size : (a + 1) * size],
    )  # fmt: skip
    with pytest.raises(BlockHeaderError) as info:
        list(read_records(bytes(buf), name="swapped.dbf"))
    position = info.value.position
    assert (position.file, position.sequence, position.block) == ("swapped.dbf", sequence, a)


def _damaged(data: bytes, rnd: random.Random, block_size: int) -> bytes:
    """A few bytes overwritten; half of the time the block checksums repaired (so the damage
    reaches the record, vector and op parsers), sometimes the file cut."""
    buf = bytearray(data)
    for _ in range(rnd.randint(1, 8)):
        buf[rnd.randrange(len(buf))] = rnd.randrange(256)
    if rnd.random() < 0.5:
        write_checksum(memoryview(buf)[:block_size], at=16)  # type: ignore[arg-type]
        for start in range(block_size, len(buf) - block_size + 1, block_size):
            block = bytearray(buf[start : start + block_size])
            write_checksum(block)
            buf[start : start + block_size] = block
    if rnd.random() < 0.2:
        del buf[rnd.randrange(len(buf)) :]
    return bytes(buf)


@pytest.mark.parametrize("policy", list(ErrorPolicy), ids=lambda p: p.name)
@pytest.mark.parametrize("case", range(27))
def test_damage_anywhere_gives_records_or_a_positioned_redo_error(
    case: int, policy: ErrorPolicy, gen_dir: Path
) -> None:
    """Damage the checks may not see (checksums repaired): the walk and the events end in records
    or in a ``RedoError`` naming the file, never in another exception or a panic."""
    from .test_events import rust_events

    rnd = random.Random(case)
    index = case % len(MATRIX)
    data, _, size, _ = _log(index, gen_dir)
    damaged = _damaged(data, rnd, size)
    first = rnd.choice([2, 2, rnd.randrange(0, max(len(damaged) // size, 1) + 3)])
    last = rnd.choice([None, first + rnd.randrange(1, 200)])
    for read in (
        lambda: native.read_records(damaged, first, last, policy.value, "bad.dbf"),
        lambda: rust_events(damaged, first, last, policy, name="bad.dbf", tail_bytes=size),
    ):
        try:
            read()
        except RedoError as exc:
            assert exc.position.file == "bad.dbf"
            assert exc.position.block is None or 0 <= exc.position.block <= len(damaged) // size
