"""LogReader and iter_records on the real 23.6 logs: feeding patterns, splits, resync, truncation,
damage under both error policies, and logs re-laid into 1024/4096-byte blocks."""

from __future__ import annotations

import dataclasses

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from redo_lib.errors import BlockHeaderError, ChecksumError, ErrorPolicy, FormatError, TruncatedLogError
from redo_lib.format import HEADER_PROBE_SIZE, parse_log_header
from redo_lib.format.header import file_layout
from redo_lib.format.model import RedoRecord
from redo_lib.format.reader import END, NEED_DATA, LogReader, iter_records
from redo_lib.format.records import parse_record
from redo_lib.report import DecodeReport
from redo_lib.scn import Rba

from .realdata import BytesSource, log_bytes, log_header, log_records
from .synthetic import record_bytes, relayout

pytestmark = pytest.mark.realdata


def read_all(data: bytes, *, step: int, seq: int) -> list[RedoRecord]:
    """Drive LogReader by hand, feeding ``step`` bytes at a time from block 2 on."""
    header = log_header(seq)
    reader = LogReader(file_layout(header), sequence=header.sequence, end_block=header.nab, name="t")
    out: list[RedoRecord] = []
    pos = 2 * header.block_size
    while True:
        item = reader.next_record()
        if item is NEED_DATA:
            if pos >= len(data):
                reader.close()
                return out
            reader.feed(data[pos : pos + step])
            pos += step
        elif item is END:
            reader.close()
            return out
        else:
            assert isinstance(item, RedoRecord)
            out.append(item)


@pytest.mark.parametrize(
    ("seq", "step"),
    [(16, 1), (16, 3), (16, 512), (15, 97), (15, 512), (15, 4096), (15, 1 << 22)],
    ids=[
        "seq16-bytewise",
        "seq16-3",
        "seq16-block",
        "seq15-97",
        "seq15-block",
        "seq15-8blocks",
        "seq15-whole",
    ],
)
def test_any_feeding_pattern_gives_the_same_records(seq: int, step: int) -> None:
    assert read_all(log_bytes(seq), step=step, seq=seq) == list(log_records(seq))


def test_record_spanning_three_blocks_is_reassembled_without_block_headers() -> None:
    data = log_bytes(15)
    first = log_records(15)[0]
    assert first.rba == Rba(15, 2, 16) and first.length == 0x04EC  # OLR: LEN 0x04ec, blocks 2..4
    raw = (
        data[2 * 512 + 16 : 3 * 512]
        + data[3 * 512 + 16 : 4 * 512]
        + data[4 * 512 + 16 : 4 * 512 + 16 + 1260 - 2 * 496]
    )
    assert parse_record(raw, first.rba, thread=1, layout=file_layout(log_header(15)), lwn=None) == first


def test_lwn_time_is_every_records_time() -> None:
    current = None
    for rec in log_records(15):
        if rec.lwn is not None:
            current = rec.lwn.time
        assert rec.time == current


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.integers(min_value=3, max_value=597), max_size=8))
def test_any_split_yields_every_record_exactly_once(points: list[int]) -> None:
    header = log_header(15)
    source = BytesSource(log_bytes(15))
    edges = [2, *sorted(set(points)), header.nab]
    got = [r for lo, hi in zip(edges, edges[1:], strict=False) for r in iter_records(source, header, lo, hi)]
    assert got == list(log_records(15))


@pytest.mark.parametrize("seq", [15, 16], ids=["seq15", "seq16"])
def test_resync_at_every_block_matches_the_sequential_walk(seq: int) -> None:
    """A range of one block finds exactly the records starting in it (block header @12 + LWN look-back)."""
    header = log_header(seq)
    source = BytesSource(log_bytes(seq))
    full = log_records(seq)
    mismatched = [
        block
        for block in range(2, header.nab)
        if list(iter_records(source, header, block, block + 1)) != [r for r in full if r.rba.block == block]
    ]
    assert mismatched == []


def _cut_cases() -> list[int]:
    data = log_bytes(16)
    return sorted(
        {0, 1, 31, 100, 511, 512, 600, 1023, 1024, 1030, 1536, 2048, 3000, 4096, 4607, len(data) - 1}
    )


@pytest.mark.parametrize("cut", _cut_cases())
def test_cutting_a_log_gives_truncated_log_error(cut: int) -> None:
    data = log_bytes(16)[:cut]
    with pytest.raises(TruncatedLogError) as info:
        header = parse_log_header(data[:HEADER_PROBE_SIZE], "cut.dbf")
        list(iter_records(BytesSource(data, "cut.dbf"), header))
    assert info.value.position.file == "cut.dbf"
    assert info.value.position.block is not None or info.value.position.offset is not None


@settings(max_examples=40, deadline=None)
@given(st.integers(min_value=1024, max_value=306175))
def test_cutting_the_big_log_anywhere_raises_after_a_prefix_of_the_records(cut: int) -> None:
    header = log_header(15)
    got: list[RedoRecord] = []
    with pytest.raises(TruncatedLogError):
        got.extend(iter_records(BytesSource(log_bytes(15)[:cut], "cut.dbf"), header))
    assert got == list(log_records(15))[: len(got)]
    assert all(_end_byte(r) <= cut for r in got)


def test_reader_close_inside_a_record_names_its_block_and_offset() -> None:
    header = log_header(15)
    reader = LogReader(file_layout(header), sequence=15, end_block=header.nab, name="x.dbf")
    reader.feed(log_bytes(15)[1024 : 1024 + 700])  # block 2 and part of 3: the first record needs 2..4
    assert reader.next_record() is NEED_DATA
    with pytest.raises(TruncatedLogError) as info:
        reader.close()
    assert (info.value.position.file, info.value.position.block, info.value.position.offset) == (
        "x.dbf",
        2,
        16,
    )


def test_reader_stops_at_stop_block_with_end() -> None:
    header = log_header(15)
    reader = LogReader(file_layout(header), sequence=15, end_block=header.nab, stop_block=3)
    reader.feed(log_bytes(15)[1024:])
    got = []
    while (item := reader.next_record()) is not END:
        got.append(item)
    assert got == [r for r in log_records(15) if r.rba.block < 3]


def _damage(data: bytes, block: int, offset: int) -> bytes:
    buf = bytearray(data)
    buf[block * 512 + offset] ^= 0x40
    return bytes(buf)


@pytest.mark.parametrize(("block", "offset"), [(5, 100), (40, 17), (300, 511), (597, 200)])
def test_flipped_byte_raises_checksum_error_naming_file_and_block(block: int, offset: int) -> None:
    source = BytesSource(_damage(log_bytes(15), block, offset), "bad.dbf")
    with pytest.raises(ChecksumError) as info:
        list(iter_records(source, log_header(15)))
    assert (info.value.position.file, info.value.position.sequence, info.value.position.block) == (
        "bad.dbf",
        15,
        block,
    )


def test_block_out_of_sequence_raises_block_header_error() -> None:
    data = bytearray(log_bytes(15))
    data[7 * 512 : 8 * 512], data[8 * 512 : 9 * 512] = data[8 * 512 : 9 * 512], data[7 * 512 : 8 * 512]
    with pytest.raises(BlockHeaderError) as info:
        list(iter_records(BytesSource(bytes(data)), log_header(15)))
    assert info.value.position.block == 7


def _end_byte(record: RedoRecord) -> int:
    """File offset just after the record's last byte (512-byte blocks, 496-byte payloads, §3.1)."""
    end = record.rba.offset + record.length
    if end <= 512:
        return record.rba.block * 512 + end
    rest = end - 512
    return (record.rba.block + 1 + (rest - 1) // 496) * 512 + 16 + (rest - 1) % 496 + 1


def _touches(record: RedoRecord, block: int) -> bool:
    return record.rba.block <= block <= (_end_byte(record) - 1) // 512


@pytest.mark.parametrize("block", [5, 40, 300, 597])
def test_skip_corrupt_resumes_at_the_next_good_record(block: int) -> None:
    source = BytesSource(_damage(log_bytes(15), block, 300), "bad.dbf")
    report = DecodeReport()
    got = list(iter_records(source, log_header(15), policy=ErrorPolicy.SKIP, report=report))
    full = list(log_records(15))
    lost = [r for r in full if r not in got]
    assert got == [r for r in full if r in got]  # order kept, nothing invented
    assert lost and all(_touches(r, block) or r.rba.block > block for r in lost)
    assert any(r.rba.block > block for r in got) or block == 597
    assert report.corrupt_ranges[0].start_block <= block < report.corrupt_ranges[0].end_block
    assert report.skipped[0].kind == "checksum" and report.skipped[0].position.block == block
    assert report.records == len(got)


def test_skip_corrupt_loses_only_records_touching_the_block_when_its_lwn_is_intact() -> None:
    full = list(log_records(15))
    lwn_blocks = {r.rba.block for r in full if r.lwn is not None}
    block = next(b for b in range(100, 500) if b not in lwn_blocks and b - 1 not in lwn_blocks)
    got = list(
        iter_records(BytesSource(_damage(log_bytes(15), block, 300)), log_header(15), policy=ErrorPolicy.SKIP)
    )
    assert got == [r for r in full if not _touches(r, block)]


@pytest.mark.parametrize("block_size", [1024, 4096])
def test_same_records_from_a_log_with_bigger_blocks(block_size: int) -> None:
    data = log_bytes(15)
    full = list(log_records(15))
    raw = [record_bytes(data, 512, r) for r in full]
    starts = {i for i, r in enumerate(full) if r.lwn is not None}
    big = relayout(data[:1024], raw, starts, block_size, sequence=15)
    header = parse_log_header(big[:HEADER_PROBE_SIZE], "big.dbf")
    assert (header.block_size, header.nab * block_size) == (block_size, len(big))
    got = list(iter_records(BytesSource(big), header))
    strip = [dataclasses.replace(r, rba=Rba(0, 0, 0), lwn=None) for r in got]
    assert strip == [dataclasses.replace(r, rba=Rba(0, 0, 0), lwn=None) for r in full]
    edges = [2, header.nab // 3, header.nab // 2, header.nab]
    split = [
        r
        for lo, hi in zip(edges, edges[1:], strict=False)
        for r in iter_records(BytesSource(big), header, lo, hi)
    ]
    assert split == got


def test_file_type_0x42_is_accepted_for_1024_byte_blocks() -> None:
    data = log_bytes(16)
    full = list(log_records(16))
    raw = [record_bytes(data, 512, r) for r in full]
    starts = {i for i, r in enumerate(full) if r.lwn is not None}
    big = relayout(data[:1024], raw, starts, 1024, sequence=16, file_type=0x42)
    header = parse_log_header(big[:HEADER_PROBE_SIZE])
    assert header.file_type == 0x42
    assert len(list(iter_records(BytesSource(big), header))) == len(full)


def test_records_outside_any_lwn_are_a_format_error() -> None:
    header = log_header(15)
    reader = LogReader(
        file_layout(header), sequence=15, first_block=4, start_offset=None, end_block=header.nab
    )
    reader.feed(log_bytes(15)[4 * 512 :])
    with pytest.raises(FormatError, match="outside any LWN"):
        reader.next_record()
