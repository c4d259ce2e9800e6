"""SCN layouts (redo-format §3.4), redo time (§3.5), compat version text (§1.4)."""

from __future__ import annotations

import datetime as dt

import pytest

from redo_lib.errors import FormatError
from redo_lib.format.layout import (
    FileLayout,
    decode_redo_time,
    encode_redo_time,
    parse_full_scn,
    parse_record_scn,
    render_compat_version,
)
from redo_lib.scn import NO_SCN

LE = FileLayout(big_endian=False)
BE = FileLayout(big_endian=True)


@pytest.mark.parametrize(
    ("raw", "layout", "expected"),
    [
        ("0696220000000000", LE, 0x229606),
        ("0096220600000000", BE, 0x00962206),
        ("4e61bc0001000000", LE, 0x0001_00BC614E),
        ("ffffffffffffffff", LE, NO_SCN),
        ("ffffffffffff0000", LE, NO_SCN),
        ("7856341202800300", LE, (0x0002 << 48) | (0x0003 << 32) | 0x12345678),
        ("1234567880020003", BE, (0x0002 << 48) | (0x0003 << 32) | 0x12345678),
    ],
    ids=["le-small", "be-small", "le-wrap", "all-ff", "first-six-ff", "le-big-scn", "be-big-scn"],
)
def test_full_scn(raw: str, layout: FileLayout, expected: int) -> None:
    assert parse_full_scn(bytes.fromhex(raw), 0, layout) == expected


@pytest.mark.parametrize(
    ("raw", "layout", "expected"),
    [
        ("000006962200", LE, 0x229606),
        ("000100BC614E", BE, 0x0001_00BC614E),
        ("0280ffffffff", LE, (0x0002 << 48) | 0xFFFFFFFF),
    ],
    ids=["le", "be-wrap", "le-big-flag"],
)
def test_record_style_scn(raw: str, layout: FileLayout, expected: int) -> None:
    assert parse_record_scn(bytes.fromhex(raw), 0, layout) == expected


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (1158315630, dt.datetime(2024, 1, 15, 10, 20, 30, tzinfo=dt.UTC)),  # §3.5 worked example
        (0, dt.datetime(1988, 1, 1, tzinfo=dt.UTC)),
        (0x49261286, dt.datetime(2026, 3, 7, 1, 44, 38, tzinfo=dt.UTC)),  # seq 15 low time, OLR dump
    ],
    ids=["doc-example", "epoch", "seq15-low-time"],
)
def test_redo_time_decodes_to_utc(value: int, expected: dt.datetime) -> None:
    assert decode_redo_time(value) == expected
    assert encode_redo_time(expected) == value


def test_impossible_redo_time_is_a_format_error() -> None:
    feb30 = encode_redo_time(dt.datetime(2024, 2, 28)) + 2 * 86400  # day 30 of February in 31-day months
    with pytest.raises(FormatError, match="invalid redo time"):
        decode_redo_time(feb30)


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (0x0B200400, "11.2.0.4"),
        (0x0C200100, "12.2.0.1"),
        (0x13000000, "19.0.0"),
        (0x131C0000, "19.28.0"),
        (0x17060000, "23.6.0"),
    ],
)
def test_compat_version_text(value: int, text: str) -> None:
    assert render_compat_version(value) == text


@pytest.mark.parametrize(
    ("compat", "vector_header", "rowdep"),
    [(0x0B200000, 24, 6), (0x0C100000, 32, 6), (0x0C200000, 32, 8), (0x17000000, 32, 8)],
)
def test_version_dependent_sizes(compat: int, vector_header: int, rowdep: int) -> None:
    layout = FileLayout(compat_version=compat)
    assert (layout.vector_header_size, layout.rowdep_size) == (vector_header, rowdep)


def test_layout_picks_the_structs_of_its_byte_order() -> None:
    assert (LE.s.order, BE.s.order) == ("<", ">")
    assert BE.s.u32.unpack(b"\x00\x00\x01\x00")[0] == 256


def test_fast_builder_builds_the_same_value_as_the_dataclass_init() -> None:
    from redo_lib.format.layout import fast_builder
    from redo_lib.format.model import LwnHeader, RedoRecord
    from redo_lib.scn import Rba

    when = dt.datetime(2026, 3, 7, tzinfo=dt.UTC)
    lwn = fast_builder(LwnHeader)(0, 1, 5, 0x229606, when)
    assert lwn == LwnHeader(number=0, nst=1, length=5, scn=0x229606, time=when)
    record = fast_builder(RedoRecord)(
        1, Rba(15, 2, 16), 68, 5, 7, 1, 1, when, lwn
    )  # trailing default: vectors
    assert record == RedoRecord(
        thread=1, rba=Rba(15, 2, 16), length=68, vld=5, scn=7, subscn=1, con_uid=1, time=when, lwn=lwn
    )
    with pytest.raises(AttributeError):
        record.length = 1  # type: ignore[misc]


def test_fast_builder_refuses_classes_with_post_init() -> None:
    from redo_lib.format.layout import fast_builder

    with pytest.raises(TypeError):
        fast_builder(FileLayout)
