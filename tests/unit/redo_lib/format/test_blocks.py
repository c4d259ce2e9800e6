"""Block header (redo-format §2) and checksum rule (§2.1), on real blocks and a flip of any byte."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from redo_lib.errors import BlockHeaderError, ChecksumError
from redo_lib.format.blocks import block_xor, check_blocks, checksum_ok, parse_block_header, write_checksum
from redo_lib.format.header import file_layout

from .realdata import log_bytes, log_header

pytestmark = pytest.mark.realdata


def test_every_real_block_passes_the_checksum_rule() -> None:
    data = log_bytes(15)
    assert all(checksum_ok(data[i : i + 512]) for i in range(0, len(data), 512))


def test_range_check_finds_nothing_wrong_in_the_real_logs() -> None:
    for seq in (15, 16):
        data = log_bytes(seq)
        assert check_blocks(data[512:], 1, file_layout(log_header(seq)), seq) == {}


def test_block_header_fields_of_block_2() -> None:
    h = parse_block_header(log_bytes(15), 1024, file_layout(log_header(15)))
    assert (h.signature, h.file_type, h.block, h.sequence, h.first_offset, h.offset_word & 0x8000) == (
        1,
        0x22,
        2,
        15,
        16,
        0x8000,
    )
    assert not h.empty


@settings(max_examples=200, deadline=None)
@given(
    block=st.integers(min_value=0, max_value=597),
    offset=st.integers(min_value=0, max_value=511),
    bit=st.integers(0, 7),
)
def test_flipping_any_byte_of_any_block_is_caught(block: int, offset: int, bit: int) -> None:
    data = bytearray(log_bytes(15)[block * 512 : (block + 1) * 512])
    data[offset] ^= 1 << bit
    assert not checksum_ok(data)
    if block >= 1:
        bad = check_blocks(bytes(data), block, file_layout(log_header(15)), 15)
        assert set(bad) == {block}
        assert isinstance(bad[block], ChecksumError | BlockHeaderError)
        assert bad[block].position.block == block


@pytest.mark.parametrize("size", [512, 1024, 4096])
def test_write_checksum_makes_any_block_pass(size: int) -> None:
    block = bytearray(range(256)) * (size // 256)
    write_checksum(block)
    assert checksum_ok(block) and block_xor(block) == 0


@pytest.mark.parametrize(
    ("offset", "value", "message"),
    [
        (0, b"\x02", "signature"),
        (1, b"\x82", "type"),
        (4, (99).to_bytes(4, "little"), "out of sequence"),
        (8, (14).to_bytes(4, "little"), "sequence 14"),
    ],
    ids=["signature", "type", "block-number", "log-sequence"],
)
def test_bad_block_header_fields_are_reported_for_their_block(
    offset: int, value: bytes, message: str
) -> None:
    block = bytearray(log_bytes(15)[5 * 512 : 6 * 512])
    block[offset : offset + len(value)] = value
    write_checksum(block)
    bad = check_blocks(bytes(block), 5, file_layout(log_header(15)), 15)
    assert isinstance(bad[5], BlockHeaderError) and message in bad[5].message
