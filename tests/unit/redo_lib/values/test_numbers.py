"""NUMBER encode/decode (redo-format §7.1), with rows from the doc's examples and seed 000's dumps."""

from __future__ import annotations

import decimal

import pytest
from hypothesis import given
from hypothesis import strategies as st

from redo_lib.errors import ValueDecodeError
from redo_lib.values.numbers import decode_number, encode_number

# (hex bytes, decimal text); both directions hold for every row.
EXACT = [
    pytest.param("80", "0", id="zero"),
    pytest.param("c1 02", "1", id="doc-1"),
    pytest.param("c1 0b", "10", id="doc-10"),
    pytest.param("c2 02", "100", id="doc-100"),
    pytest.param("c2 02 18", "123", id="doc-123"),
    pytest.param("c1 0d 33", "12.5", id="doc-12.5"),
    pytest.param("c0 33", "0.5", id="doc-0.5"),
    pytest.param("bf 0d", "0.0012", id="doc-0.0012"),
    pytest.param("c4 02 18 2e 44 5a", "1234567.89", id="doc-1234567.89"),
    pytest.param("3e 64 66", "-1", id="doc-minus-1"),
    pytest.param("3d 64 4e 66", "-123", id="doc-minus-123"),
    pytest.param("3e 59 33 66", "-12.5", id="doc-minus-12.5"),
    pytest.param("3f 60 66", "-0.05", id="doc-minus-0.05"),
    pytest.param("c2 0b 0c", "1011", id="seed000-student-key-1011"),
    pytest.param("c2 0b 05", "1004", id="seed000-student-key-1004"),
    pytest.param("c2 15 0e", "2013", id="seed000-entry-year-2013"),
    pytest.param("c2 5b", "9000", id="seed000-tuition-9000"),
    pytest.param("c2 4c", "7500", id="seed000-tuition-7500"),
    pytest.param("c2 51", "8000", id="seed000-tuition-8000"),
    pytest.param("c2 3d", "6000", id="seed000-tuition-6000"),
    pytest.param("c3 0b", "100000", id="seed000-object-id-100000"),
    pytest.param("c1 64", "99", id="largest-digit"),
    pytest.param("c2 64 64", "9999", id="two-full-pairs"),
    pytest.param("c0 02", "0.01", id="hundredth"),
    pytest.param("c0 0b", "0.1", id="tenth"),
    pytest.param("80 02", "0." + "0" * 129 + "1", id="smallest-positive-1e-130"),
    pytest.param("ff 0a", "9" + "0" * 124, id="largest-exponent"),
    pytest.param("00 5c 66", "-9" + "0" * 124, id="most-negative-exponent"),
    pytest.param("7f 64 66", "-0." + "0" * 129 + "1", id="negative-tiny"),
    pytest.param("c3 02 01 02", "10001", id="inner-zero-pair"),
    pytest.param(
        "d4 0d 23 39 4f 5b 0d 23 39 4f 5b 0d 23 39 4f 5b 0d 23 39 4f 5b",
        "1234567890123456789012345678901234567890",
        id="40-digits-20-pairs",
    ),
    pytest.param(
        "2b 59 43 2d 17 0b 59 43 2d 17 0b 59 43 2d 17 0b 59 43 2d 17 0b",
        "-1234567890123456789012345678901234567890",
        id="negative-20-pairs-no-terminator",
    ),
]


@pytest.mark.parametrize(("hex_bytes", "text"), EXACT)
def test_decode_number(hex_bytes: str, text: str) -> None:
    assert decode_number(bytes.fromhex(hex_bytes)) == text


@pytest.mark.parametrize(("hex_bytes", "text"), EXACT)
def test_encode_number(hex_bytes: str, text: str) -> None:
    assert encode_number(decimal.Decimal(text)) == bytes.fromhex(hex_bytes)


@pytest.mark.parametrize(
    ("hex_bytes", "text"),
    [
        pytest.param("00", "-~", id="negative-infinity"),
        pytest.param("ff 65", "~", id="positive-infinity"),
        pytest.param("3e 64", "-1", id="negative-without-terminator"),
        pytest.param("c1 02 01", "1", id="trailing-zero-digit"),
        pytest.param("c1 01", "0", id="positive-zero-digit"),
    ],
)
def test_decode_number_special_and_lenient_forms(hex_bytes: str, text: str) -> None:
    assert decode_number(bytes.fromhex(hex_bytes)) == text


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        pytest.param(0, "80", id="int-zero"),
        pytest.param(-0, "80", id="int-minus-zero"),
        pytest.param(decimal.Decimal("-0.000"), "80", id="decimal-negative-zero"),
        pytest.param(1011, "c2 0b 0c", id="int"),
        pytest.param("  -12.5 ", "3e 59 33 66", id="text-with-blanks"),
        pytest.param("1E+3", "c2 0b", id="text-exponent"),
        pytest.param(0.1, "c0 0b", id="float-shortest-repr"),
        pytest.param(decimal.Decimal("Infinity"), "ff 65", id="infinity"),
        pytest.param(decimal.Decimal("-Infinity"), "00", id="negative-infinity"),
        pytest.param("1e-131", "80", id="underflow-is-zero"),
        pytest.param("1" * 41, "d5 02" + " 0c" * 19, id="41-digits-rounded-to-20-pairs"),
        pytest.param("9" * 41, "d5 0b", id="rounding-carries-into-new-digit"),
        pytest.param("0.5" + "0" * 50 + "1", "c0 33", id="rounding-down-tail"),
    ],
)
def test_encode_number_inputs(value: object, expected: str) -> None:
    assert encode_number(value) == bytes.fromhex(expected)  # type: ignore[arg-type]


def test_encode_rounds_half_away_from_zero_at_twentieth_pair() -> None:
    # 1 then 39 zeros then 5: the digit after the 40th is 5, so the 20th pair rounds up to 01
    assert decode_number(encode_number("1" + "0" * 39 + ".5")) == "1" + "0" * 38 + "1"
    assert decode_number(encode_number("-1" + "0" * 39 + ".5")) == "-1" + "0" * 38 + "1"


@pytest.mark.parametrize(
    "hex_bytes",
    [
        pytest.param("", id="empty"),
        pytest.param("c1", id="exponent-without-digits"),
        pytest.param("3e", id="negative-exponent-alone"),
        pytest.param("3e 66", id="negative-terminator-only"),
        pytest.param("c1 00", id="positive-digit-0x00"),
        pytest.param("c1 65", id="positive-digit-101"),
        pytest.param("3e 01 66", id="negative-digit-0x01"),
        pytest.param("c1" + " 02" * 21, id="too-many-digits"),
        pytest.param("ff 66", id="not-infinity"),
    ],
)
def test_decode_number_rejects_malformed_bytes(hex_bytes: str) -> None:
    data = bytes.fromhex(hex_bytes)
    with pytest.raises(ValueDecodeError) as info:
        decode_number(data)
    assert info.value.details == {"type": "NUMBER", "hex": data.hex()}


@pytest.mark.parametrize(
    "value",
    [
        pytest.param("1e126", id="overflow"),
        pytest.param("-1e126", id="negative-overflow"),
        pytest.param("9" * 41 + "e85", id="overflow-after-rounding"),
        pytest.param("NaN", id="nan"),
        pytest.param("twelve", id="not-a-number"),
        pytest.param(True, id="bool"),
        pytest.param(b"\x01", id="bytes"),
    ],
)
def test_encode_number_rejects(value: object) -> None:
    with pytest.raises(ValueDecodeError):
        encode_number(value)  # type: ignore[arg-type]


# Random decimals with up to 38 significant digits and a leading digit from 1e-130 to 1e125.
decimals_38 = st.builds(
    lambda sign, digits, adjusted: decimal.Decimal(
        (sign, tuple(int(c) for c in str(digits)), adjusted - len(str(digits)) + 1)
    ),
    st.integers(0, 1),
    st.integers(1, 10**38 - 1),
    st.integers(-130, 125),
)


@given(decimals_38)
def test_number_round_trip(value: decimal.Decimal) -> None:
    encoded = encode_number(value)
    assert len(encoded) <= 22
    assert decimal.Decimal(decode_number(encoded)) == value


@given(decimals_38)
def test_decoded_text_is_canonical(value: decimal.Decimal) -> None:
    text = decode_number(encode_number(value))
    assert "e" not in text.lower()
    assert not text.startswith("+")
    if "." in text:
        assert not text.endswith("0")
        assert not text.endswith(".")
    assert encode_number(text) == encode_number(value)


@given(st.integers(-(10**38) + 1, 10**38 - 1))
def test_integer_round_trip_is_exact_text(value: int) -> None:
    assert decode_number(encode_number(value)) == str(value)


@given(decimals_38, decimals_38)
def test_encoding_preserves_order_as_bytes(a: decimal.Decimal, b: decimal.Decimal) -> None:
    # Oracle's NUMBER bytes sort like the numbers (negatives: the 0x66 terminator keeps this true)
    if a < b:
        assert encode_number(a) < encode_number(b)
