"""The consolidated out-of-row varying-length string structure of column 65535 (seed 004).

Scenario: T2 (C1 INT, C2 VARCHAR(20000), C3 VARCHAR(20000), C4 INT) with extended row size; a row's
C2 and C3 are stored out of row, so the structure has 4 + 1 offsets and only C2, C3 have non-zero
length. The bytes are written by hand from the seed's description.
"""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from redo_lib.db2.records import ByteOrder
from redo_lib.db2.strings import VaryingStrings, parse_varying_strings
from redo_lib.db2.writer import write_varying_strings
from redo_lib.errors import FormatError, TruncatedLogError

C2_TEXT, C3_TEXT = b"long C2 text", b"C3"
_DATA = C2_TEXT + C3_TEXT
_OFFSETS = [0, 0, len(C2_TEXT), len(_DATA), len(_DATA)]  # C1, C2, C3, C4, end
_SIZE = 4 + 4 * 5 + len(_DATA)
HAND_WRITTEN = (
    bytes([0x12]) + _SIZE.to_bytes(3, "big") + b"".join(o.to_bytes(4, "big") for o in _OFFSETS) + _DATA
)


def test_hand_written_structure_gives_each_columns_string() -> None:
    value = parse_varying_strings(HAND_WRITTEN, column_count=4)
    assert value.column_count == 4
    assert [value.string(c) for c in range(4)] == [b"", C2_TEXT, C3_TEXT, b""]
    assert value.out_of_row() == {1: C2_TEXT, 2: C3_TEXT}
    assert value.size == _SIZE


def test_writer_produces_the_hand_written_bytes() -> None:
    assert write_varying_strings(VaryingStrings.from_strings([b"", C2_TEXT, C3_TEXT, b""])) == HAND_WRITTEN


def test_too_short_for_the_header_is_truncated() -> None:
    with pytest.raises(TruncatedLogError) as info:
        parse_varying_strings(HAND_WRITTEN[:3], column_count=4)
    assert info.value.position.offset == 0


def test_wrong_eye_catcher_is_rejected_at_offset_0() -> None:
    with pytest.raises(FormatError, match="eye-catcher") as info:
        parse_varying_strings(b"\x13" + HAND_WRITTEN[1:], column_count=4)
    assert info.value.position.offset == 0


@pytest.mark.parametrize("delta", [-1, 1])
def test_size_that_is_not_the_lob_length_is_a_bad_length_at_offset_1(delta: int) -> None:
    data = HAND_WRITTEN[:1] + (_SIZE + delta).to_bytes(3, "big") + HAND_WRITTEN[4:]
    with pytest.raises(FormatError, match="bad length") as info:
        parse_varying_strings(data, column_count=4)
    assert info.value.position.offset == 1


def test_too_many_columns_for_the_structure_is_a_bad_length() -> None:
    with pytest.raises(FormatError, match="bad length") as info:
        parse_varying_strings(HAND_WRITTEN, column_count=10)
    assert info.value.position.offset == 4


def test_decreasing_offset_is_rejected_at_its_entry() -> None:
    bad = list(_OFFSETS)
    bad[3] = 1  # C3's entry, below C2's
    data = HAND_WRITTEN[:4] + b"".join(o.to_bytes(4, "big") for o in bad) + _DATA
    with pytest.raises(FormatError, match="bad offset") as info:
        parse_varying_strings(data, column_count=4)
    assert info.value.position.offset == 4 + 4 * 3


def test_last_offset_short_of_the_data_end_is_a_bad_length() -> None:
    bad = [0, 0, len(C2_TEXT), len(_DATA) - 1, len(_DATA) - 1]  # one byte of data left over
    data = HAND_WRITTEN[:4] + b"".join(o.to_bytes(4, "big") for o in bad) + _DATA
    with pytest.raises(FormatError, match="bad length") as info:
        parse_varying_strings(data, column_count=4)
    assert info.value.position.offset == 4 + 4 * 4


@given(st.lists(st.binary(max_size=40), max_size=12), st.sampled_from(["little", "big"]))
def test_writer_then_reader_is_the_identity(strings: list[bytes], order: ByteOrder) -> None:
    value = VaryingStrings.from_strings(strings)
    raw = write_varying_strings(value, offset_byteorder=order)
    back = parse_varying_strings(raw, column_count=len(strings), offset_byteorder=order)
    assert back == value
    assert [back.string(c) for c in range(len(strings))] == strings
