"""The Rust core's record walk (``native_records.read_records``) on the real 23.6 logs: block-range
splits and resync, truncation, damage under both error policies, and logs re-laid into 1024/4096-byte
blocks.

The whole logs' records are checked against OLR's dumps in ``test_olr_dump.py``; here the expected
results come from that whole read and from what each test did to the bytes: where a log was cut,
which block was damaged, how the records were re-laid.
"""

from __future__ import annotations

import dataclasses

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from redo_lib.errors import BlockHeaderError, ChecksumError, ErrorPolicy, FormatError, TruncatedLogError
from redo_lib.format import HEADER_PROBE_SIZE, encode_redo_time
from redo_lib.format.model import RedoRecord
from redo_lib.format.native_records import parse_header, read_records, record_of
from redo_lib.native import native
from redo_lib.report import DecodeReport
from redo_lib.scn import Rba

from .realdata import log_bytes, log_header, log_records
from .synthetic import record_bytes, relayout

pytestmark = pytest.mark.realdata


def test_record_spanning_three_blocks_is_reassembled_without_block_headers() -> None:
    """The first record of seq 15 spans blocks 2..4; cut out by hand per §3.1 (block headers
    skipped) and parsed alone, it is the record the walk reassembled."""
    data = log_bytes(15)
    first = log_records(15)[0]
    assert first.rba == Rba(15, 2, 16) and first.length == 0x04EC  # OLR: LEN 0x04ec, blocks 2..4
    raw = (
        data[2 * 512 + 16 : 3 * 512]
        + data[3 * 512 + 16 : 4 * 512]
        + data[4 * 512 + 16 : 4 * 512 + 16 + 1260 - 2 * 496]
    )
    assert first.lwn is not None
    lwn = first.lwn
    alone = native.parse_record(
        raw, compat_version=log_header(15).compat_version, rba=(15, 2, 16),
        lwn=(lwn.number, lwn.nst, lwn.length, lwn.scn, encode_redo_time(lwn.time)),
    )  # fmt: skip
    assert record_of(alone) == first


def test_lwn_time_is_every_records_time() -> None:
    current = None
    for rec in log_records(15):
        if rec.lwn is not None:
            current = rec.lwn.time
        assert rec.time == current


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.integers(min_value=3, max_value=597), max_size=8))
def test_any_split_yields_every_record_exactly_once(points: list[int]) -> None:
    data = log_bytes(15)
    edges = [2, *sorted(set(points)), log_header(15).nab]
    got = [r for lo, hi in zip(edges, edges[1:], strict=False) for r in read_records(data, lo, hi)]
    assert got == list(read_records(data))


@pytest.mark.parametrize("seq", [15, 16], ids=["seq15", "seq16"])
def test_resync_at_every_block_matches_the_sequential_walk(seq: int) -> None:
    """A range of one block finds exactly the records starting in it (block header @12 + LWN look-back)."""
    data = log_bytes(seq)
    full = log_records(seq)
    mismatched = [
        block
        for block in range(2, log_header(seq).nab)
        if list(read_records(data, block, block + 1)) != [r for r in full if r.rba.block == block]
    ]
    assert mismatched == []


def _end_byte(record: RedoRecord) -> int:
    """File offset just after the record's last byte (512-byte blocks, 496-byte payloads, §3.1)."""
    end = record.rba.offset + record.length
    if end <= 512:
        return record.rba.block * 512 + end
    rest = end - 512
    return (record.rba.block + 1 + (rest - 1) // 496) * 512 + 16 + (rest - 1) % 496 + 1


def _where_a_cut_log_ends(seq: int, cut: int) -> tuple[int, int]:
    """(block, offset) a log cut after ``cut`` bytes must name: the first block it lacks, or, when a
    record that started before that block runs into it, that record's start."""
    lacking = cut // 512
    running = [r for r in log_records(seq) if r.rba.block < lacking and _end_byte(r) > lacking * 512]
    return (running[0].rba.block, running[0].rba.offset) if running else (lacking, 0)


def _cut_cases() -> list[int]:
    data = log_bytes(16)
    return sorted(
        {0, 1, 31, 100, 511, 512, 600, 1023, 1024, 1030, 1536, 1724, 2048, 3000, 4096, 4607, len(data) - 1}
    )


@pytest.mark.parametrize("cut", _cut_cases())
def test_cutting_a_log_gives_truncated_log_error_at_the_cut(cut: int) -> None:
    data = log_bytes(16)[:cut]
    with pytest.raises(TruncatedLogError) as info:
        parse_header(data[:HEADER_PROBE_SIZE], "cut.dbf")
        list(read_records(data, name="cut.dbf"))
    position = info.value.position
    assert position.file == "cut.dbf"
    if cut < 1024:  # blocks 0-1: the header is short
        assert position.block is not None or position.offset is not None
    else:
        assert (position.sequence, position.block, position.offset) == (16, *_where_a_cut_log_ends(16, cut))


@settings(max_examples=40, deadline=None)
@given(st.integers(min_value=1024, max_value=306175))
def test_cutting_the_big_log_anywhere_names_the_record_or_block_it_cut(cut: int) -> None:
    with pytest.raises(TruncatedLogError) as info:
        list(read_records(log_bytes(15)[:cut], name="cut.dbf"))
    position = info.value.position
    assert (position.file, position.block, position.offset) == ("cut.dbf", *_where_a_cut_log_ends(15, cut))


def _damage(data: bytes, block: int, offset: int) -> bytes:
    buf = bytearray(data)
    buf[block * 512 + offset] ^= 0x40
    return bytes(buf)


@pytest.mark.parametrize(("block", "offset"), [(5, 100), (40, 17), (300, 511), (597, 200)])
def test_flipped_byte_raises_checksum_error_naming_file_and_block(block: int, offset: int) -> None:
    with pytest.raises(ChecksumError) as info:
        list(read_records(_damage(log_bytes(15), block, offset), name="bad.dbf"))
    position = info.value.position
    assert (position.file, position.sequence, position.block, position.offset) == ("bad.dbf", 15, block, 14)


def test_block_out_of_sequence_raises_block_header_error() -> None:
    data = bytearray(log_bytes(15))
    data[7 * 512 : 8 * 512], data[8 * 512 : 9 * 512] = data[8 * 512 : 9 * 512], data[7 * 512 : 8 * 512]
    with pytest.raises(BlockHeaderError) as info:
        list(read_records(bytes(data), name="swapped.dbf"))
    assert (info.value.position.file, info.value.position.block) == ("swapped.dbf", 7)


def _touches(record: RedoRecord, block: int) -> bool:
    return record.rba.block <= block <= (_end_byte(record) - 1) // 512


@pytest.mark.parametrize("block", [5, 40, 300, 597])
def test_skip_corrupt_resumes_at_the_next_good_record(block: int) -> None:
    report = DecodeReport()
    damaged = _damage(log_bytes(15), block, 300)
    got = list(read_records(damaged, name="bad.dbf", policy=ErrorPolicy.SKIP, report=report))
    full = list(log_records(15))
    lost = [r for r in full if r not in got]
    assert got == [r for r in full if r in got]  # order kept, nothing invented
    assert lost and all(_touches(r, block) or r.rba.block > block for r in lost)
    assert any(r.rba.block > block for r in got) or block == 597
    (damage,) = report.corrupt_ranges
    assert (damage.file, damage.sequence, damage.kind) == ("bad.dbf", 15, "checksum")
    assert min(r.rba.block for r in lost) <= damage.start_block <= block < damage.end_block
    (skipped,) = report.skipped
    assert (skipped.kind, skipped.position.block, skipped.position.file) == ("checksum", block, "bad.dbf")


def test_skip_corrupt_loses_only_records_touching_the_block_when_its_lwn_is_intact() -> None:
    full = list(log_records(15))
    lwn_blocks = {r.rba.block for r in full if r.lwn is not None}
    block = next(b for b in range(100, 500) if b not in lwn_blocks and b - 1 not in lwn_blocks)
    got = list(read_records(_damage(log_bytes(15), block, 300), policy=ErrorPolicy.SKIP))
    assert got == [r for r in full if not _touches(r, block)]


@pytest.mark.parametrize("block_size", [1024, 4096])
def test_same_records_from_a_log_with_bigger_blocks(block_size: int) -> None:
    data = log_bytes(15)
    full = list(log_records(15))
    raw = [record_bytes(data, 512, r) for r in full]
    starts = {i for i, r in enumerate(full) if r.lwn is not None}
    big = relayout(data[:1024], raw, starts, block_size, sequence=15)
    header = parse_header(big[:HEADER_PROBE_SIZE], "big.dbf")
    assert (header.block_size, header.nab * block_size) == (block_size, len(big))
    got = list(read_records(big))
    strip = [dataclasses.replace(r, rba=Rba(0, 0, 0), lwn=None) for r in got]
    assert strip == [dataclasses.replace(r, rba=Rba(0, 0, 0), lwn=None) for r in full]
    edges = [2, header.nab // 3, header.nab // 2, header.nab]
    split = [r for lo, hi in zip(edges, edges[1:], strict=False) for r in read_records(big, lo, hi)]
    assert split == got


def test_file_type_0x42_is_accepted_for_1024_byte_blocks() -> None:
    data = log_bytes(16)
    full = list(log_records(16))
    raw = [record_bytes(data, 512, r) for r in full]
    starts = {i for i, r in enumerate(full) if r.lwn is not None}
    big = relayout(data[:1024], raw, starts, 1024, sequence=16, file_type=0x42)
    assert parse_header(big[:HEADER_PROBE_SIZE]).file_type == 0x42
    assert len(list(read_records(big))) == len(full)


def test_a_record_outside_any_lwn_is_a_format_error() -> None:
    """A record that does not start an LWN, handed over alone with no LWN header before it (§3.3)."""
    record = next(r for r in log_records(15) if r.lwn is None)
    raw = record_bytes(log_bytes(15), 512, record)
    with pytest.raises(FormatError, match="outside any LWN"):
        native.parse_record(raw, compat_version=log_header(15).compat_version, rba=(15, 2, 16))
