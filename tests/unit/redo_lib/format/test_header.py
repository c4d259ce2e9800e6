"""Blocks 0 and 1 -> LogHeader (redo-format §1.2-§1.4), parsed by the Rust core
(``native_records.parse_header``): the real 23.6 headers against OLR's dump lines, the error cases of §1.3, and a synthetic big-endian log (no real one exists, §13)."""

from __future__ import annotations

import datetime as dt
import re

import pytest

from redo_lib.errors import (
    BlockHeaderError,
    ChecksumError,
    FormatError,
    TruncatedLogError,
    UnsupportedFormatError,
)
from redo_lib.format import HEADER_PROBE_SIZE
from redo_lib.format.blocks import write_checksum
from redo_lib.format.layout import encode_redo_time
from redo_lib.format.native_records import parse_header as parse_log_header
from redo_lib.format.native_records import read_records

from .realdata import DUMPS, log_bytes, log_header, oracdc_rows, require
from .synthetic import relayout


def _dump_header(seq: int) -> str:
    text = require(DUMPS[seq]).read_text()
    return text[: text.index("REDO RECORD")]


def _time(text: str) -> dt.datetime:
    return dt.datetime.strptime(text, "%m/%d/%Y %H:%M:%S").replace(tzinfo=dt.UTC)


HEADER_LINES = [
    ("compat", r"Compatibility Vsn = (\d+)=", lambda h: h.compat_version, int),
    ("dbid", r"Db ID=(\d+)=", lambda h: h.dbid, int),
    ("db name", r"Db Name='([^']*)'", lambda h: h.db_name, str),
    ("activation", r"Activation ID=(\d+)=", lambda h: h.activation_id, int),
    ("control seq", r"Control Seq=(\d+)=", lambda h: h.control_seq, int),
    ("file size", r"File size=(\d+)=", lambda h: h.file_size, int),
    ("file number", r"File Number=(\d+),", lambda h: h.file_number, int),
    ("block size", r"Blksiz=(\d+),", lambda h: h.block_size, int),
    ("description", r'descrip:"([^"]*)"', lambda h: h.description, str),
    ("thread", r"thread: (\d+) nab", lambda h: h.thread, int),
    ("nab", r"nab: 0x([0-9a-f]+)", lambda h: h.nab, lambda v: int(v, 16)),
    ("sequence", r"seq: 0x([0-9a-f]+)", lambda h: h.sequence, lambda v: int(v, 16)),
    ("hws", r"hws: 0x([0-9a-f]+)", lambda h: h.hws, lambda v: int(v, 16)),
    ("eot", r"eot: (\d+)", lambda h: h.eot, int),
    ("dis", r"dis: (\d+)", lambda h: h.dis, int),
    ("resetlogs", r"\n resetlogs count: 0x([0-9a-f]+)", lambda h: h.resetlogs_id, lambda v: int(v, 16)),
    (
        "resetlogs scn",
        r"\n resetlogs count: \S+ scn: 0x([0-9a-f]+)",
        lambda h: h.resetlogs_scn,
        lambda v: int(v, 16),
    ),
    (
        "prev resetlogs",
        r"prev resetlogs count: 0x([0-9a-f]+)",
        lambda h: h.prev_resetlogs_id,
        lambda v: int(v, 16),
    ),
    (
        "prev resetlogs scn",
        r"prev resetlogs count: \S+ scn: 0x([0-9a-f]+)",
        lambda h: h.prev_resetlogs_scn,
        lambda v: int(v, 16),
    ),
    ("low scn", r"Low  scn: 0x([0-9a-f]+)", lambda h: h.first_scn, lambda v: int(v, 16)),
    ("low time", r"Low  scn: \S+ (\S+ \S+)", lambda h: h.first_time, _time),
    ("next scn", r"Next scn: 0x([0-9a-f]+)", lambda h: h.next_scn, lambda v: int(v, 16)),
    ("next time", r"Next scn: \S+ (\S+ \S+)", lambda h: h.next_time, _time),
    ("enabled scn", r"Enabled scn: 0x([0-9a-f]+)", lambda h: h.enabled_scn, lambda v: int(v, 16)),
    ("enabled time", r"Enabled scn: \S+ (\S+ \S+)", lambda h: h.enabled_time, _time),
    ("closed scn", r"Thread closed scn: 0x([0-9a-f]+)", lambda h: h.thread_closed_scn, lambda v: int(v, 16)),
    ("closed time", r"Thread closed scn: \S+ (\S+ \S+)", lambda h: h.thread_closed_time, _time),
    ("real next scn", r"Real next scn: 0x(f+)\n", lambda h: h.real_next_scn, lambda v: None),
    ("checksum", r"Disk cksum: 0x([0-9a-f]+)", lambda h: h.checksum, lambda v: int(v, 16)),
    (
        "terminal scn",
        r"Terminal recovery stop scn: 0x([0-9a-f]+)",
        lambda h: h.terminal_recovery_scn,
        lambda v: int(v, 16),
    ),
    ("terminal time", r"Terminal recovery  (\S+ \S+)", lambda h: h.terminal_recovery_time, _time),
    (
        "most recent",
        r"Most recent redo scn: 0x([0-9a-f]+)",
        lambda h: h.most_recent_scn,
        lambda v: int(v, 16),
    ),
    ("largest lwn", r"Largest LWN: (\d+) blocks", lambda h: h.largest_lwn, int),
    ("misc flags", r"Miscellaneous flags: 0x([0-9a-f]+)", lambda h: h.misc_flags, lambda v: int(v, 16)),
    (
        "misc flags 2",
        r"Miscellaneous second flags: 0x([0-9a-f]+)",
        lambda h: h.misc_flags2,
        lambda v: int(v, 16),
    ),
    ("zero blocks", r"Zero blocks: (\d+)", lambda h: h.zero_blocks, int),
    ("format id", r"Format ID is (\d+)", lambda h: h.format_id, int),
]


@pytest.mark.realdata
@pytest.mark.parametrize("seq", [15, 16], ids=["seq15", "seq16"])
@pytest.mark.parametrize(
    ("label", "pattern", "ours", "convert"), HEADER_LINES, ids=[row[0] for row in HEADER_LINES]
)
def test_header_field_matches_olr_dump(
    seq: int, label: str, pattern: str, ours: object, convert: object
) -> None:
    m = re.search(pattern, _dump_header(seq))
    assert m, label
    assert ours(log_header(seq)) == convert(m.group(1))  # type: ignore[operator]


@pytest.mark.realdata
def test_header_facts_from_the_readme() -> None:
    h = log_header(15)
    assert (h.big_endian, h.block_size, h.compat_version, h.version_text) == (
        False,
        512,
        0x17060000,
        "23.6.0",
    )
    assert (h.resetlogs_id, h.activation_id, h.db_name) == (1224959854, 1496992686, "FREE")
    assert (h.first_scn, h.next_scn, h.nab, h.block_count) == (0x229606, 0x229A45, 598, 597)
    assert h.first_time == dt.datetime(2026, 3, 7, 1, 44, 38, tzinfo=dt.UTC)


def _mutate(data: bytes, offset: int, value: bytes) -> bytes:
    return data[:offset] + value + data[offset + len(value) :]


BAD_HEADERS = [
    ("byte0-not-zero", 0, b"\x01", FormatError, 0, 0),
    ("wrong-magic", 28, b"\x00\x00\x00\x00", FormatError, 0, 28),
    ("block-size-2048", 20, (2048).to_bytes(4, "little"), UnsupportedFormatError, 0, 20),
    ("type-0x82-with-512", 1, b"\x82", UnsupportedFormatError, 0, 20),
    ("block0-checksum", 100, b"\x01", FormatError, 0, 16),
    ("block1-checksum", 512 + 100, b"\x01", ChecksumError, 1, 14),
    ("block1-number", 512 + 4, (7).to_bytes(4, "little"), BlockHeaderError, 1, 0),
]


@pytest.mark.realdata
@pytest.mark.parametrize(
    ("offset", "value", "error", "block", "where"),
    [row[1:] for row in BAD_HEADERS],
    ids=[row[0] for row in BAD_HEADERS],
)
def test_bad_header_raises_with_file_block_and_offset(
    offset: int, value: bytes, error: type, block: int, where: int
) -> None:
    data = _mutate(log_bytes(16), offset, value)
    with pytest.raises(error) as info:
        parse_log_header(data, "bad.dbf")
    assert (info.value.position.file, info.value.position.block, info.value.position.offset) == (
        "bad.dbf",
        block,
        where,
    )


@pytest.mark.parametrize("size", [0, 20, 100, 1023], ids=lambda n: f"{n}-bytes")
@pytest.mark.realdata
def test_short_header_is_truncated_log_error(size: int) -> None:
    with pytest.raises(TruncatedLogError):
        parse_log_header(log_bytes(16)[:size], "short.dbf")


def be_header_blocks(sequence: int, nab: int) -> bytes:
    """Blocks 0 and 1 (512 bytes each) of a big-endian 19c log, fields per §1.2 / §1.4."""
    b0 = bytearray(512)
    b0[1] = 0x22
    b0[20:24] = (512).to_bytes(4, "big")
    b0[24:28] = (nab - 1).to_bytes(4, "big")
    b0[28:32] = bytes.fromhex("7a7b7c7d")
    write_checksum(b0, at=16)
    b1 = bytearray(512)
    b1[0], b1[1] = 0x01, 0x22
    b1[4:8] = (1).to_bytes(4, "big")
    b1[8:12] = sequence.to_bytes(4, "big")
    b1[12:14] = (0x8000).to_bytes(2, "big")
    b1[20:24] = (0x13000000).to_bytes(4, "big")
    b1[24:28] = (0x12345678).to_bytes(4, "big")
    b1[28:36] = b"AIXDB\0\0\0"
    b1[156:160] = nab.to_bytes(4, "big")
    b1[176:178] = (2).to_bytes(2, "big")
    b1[180:184] = (0x1000).to_bytes(4, "big")
    b1[184:186] = (0x0007).to_bytes(2, "big")
    b1[188:192] = encode_redo_time(dt.datetime(2024, 1, 15, 10, 20, 30)).to_bytes(4, "big")
    b1[192:200] = b"\xff" * 8
    b1[268:272] = (1).to_bytes(4, "big")
    write_checksum(b1)
    return bytes(b0 + b1)


def test_big_endian_header_is_detected_and_read_big_endian() -> None:
    h = parse_log_header(be_header_blocks(sequence=0x63, nab=3), "aix.dbf")
    assert (h.big_endian, h.block_size, h.compat_version, h.sequence, h.thread) == (
        True,
        512,
        0x13000000,
        0x63,
        2,
    )
    assert (h.dbid, h.db_name, h.nab, h.first_scn, h.next_scn) == (
        0x12345678,
        "AIXDB",
        3,
        0x0007_00001000,
        None,
    )
    assert h.first_time == dt.datetime(2024, 1, 15, 10, 20, 30, tzinfo=dt.UTC)


def _lwn_record_be(scn: int, when: dt.datetime) -> bytes:
    """A 68-byte LWN record header with no vectors (VLD 0x05), big-endian, §3.2."""
    rec = bytearray(68)
    rec[0:4] = (68).to_bytes(4, "big")
    rec[4] = 0x05
    rec[6:8] = (scn >> 32).to_bytes(2, "big")
    rec[8:12] = (scn & 0xFFFFFFFF).to_bytes(4, "big")
    rec[26:28] = (1).to_bytes(2, "big")
    rec[40:44] = (scn & 0xFFFFFFFF).to_bytes(4, "big")
    rec[44:46] = (scn >> 32).to_bytes(2, "big")
    rec[64:68] = encode_redo_time(when).to_bytes(4, "big")
    return bytes(rec)


@pytest.mark.realdata
def test_big_endian_log_with_the_aix_record_reads_end_to_end() -> None:
    row = next(r for r in oracdc_rows() if r["redo_log_profile"] == "getAix19c")
    aix = bytes.fromhex(row["hex"])
    when = dt.datetime(2024, 1, 15, 10, 20, 30, tzinfo=dt.UTC)
    body = relayout(
        be_header_blocks(0x63, 3),
        [_lwn_record_be(0x1000, when), aix],
        {0},
        512,
        big_endian=True,
        sequence=0x63,
    )
    assert parse_log_header(body, "aix.dbf").big_endian
    records = list(read_records(body, name="aix.dbf"))
    assert [r.length for r in records] == [68, row["bytes_len"]]
    assert records[1].time == when and records[1].vectors
    # §4.1 / §12: the AIX record (Op11_17_Test) holds one media-recovery-marker vector with AFN 0
    cv = records[1].vectors[0]
    assert (row["test_file"], cv.opcode, cv.change_type, cv.afn) == ("Op11_17_Test.java", (11, 17), 6, 0)


@pytest.mark.realdata
def test_header_probe_size_covers_two_4096_byte_blocks() -> None:
    assert HEADER_PROBE_SIZE == 8192
