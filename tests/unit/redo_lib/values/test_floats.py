"""BINARY_FLOAT / BINARY_DOUBLE values (redo-format §7.7) and their text."""

from __future__ import annotations

import math
import struct
from collections.abc import Callable

import pytest
from hypothesis import given
from hypothesis import strategies as st

from redo_lib.errors import ValueDecodeError
from redo_lib.values.floats import (
    decode_binary_double,
    decode_binary_float,
    encode_binary_double,
    encode_binary_float,
    render_binary_double,
    render_binary_float,
)

# (hex bytes, value, text); both directions hold for every row.
BINARY_FLOATS = [
    pytest.param("bf 80 00 00", 1.0, "1.0", id="one"),
    pytest.param("40 7f ff ff", -1.0, "-1.0", id="minus-one"),
    pytest.param("80 00 00 00", 0.0, "0.0", id="zero"),
    pytest.param("bd cc cc cd", 0.10000000149011612, "0.1", id="tenth-shortest-float32-text"),
    pytest.param("c2 f6 e9 79", 123.45600128173828, "123.456", id="123.456"),
    pytest.param("ff 80 00 00", math.inf, "Inf", id="inf"),
    pytest.param("00 7f ff ff", -math.inf, "-Inf", id="minus-inf"),
    pytest.param("ff 7f ff ff", 3.4028234663852886e38, "3.4028235e+38", id="max"),
    pytest.param("80 00 00 01", 1.401298464324817e-45, "1e-45", id="smallest-subnormal"),
]


@pytest.mark.parametrize(("hex_bytes", "value", "text"), BINARY_FLOATS)
def test_binary_float_both_ways(hex_bytes: str, value: float, text: str) -> None:
    data = bytes.fromhex(hex_bytes)
    decoded = decode_binary_float(data)
    assert decoded == value
    assert render_binary_float(decoded) == text
    assert encode_binary_float(decoded) == data


BINARY_DOUBLES = [
    pytest.param("bf f0 00 00 00 00 00 00", 1.0, "1.0", id="one"),
    pytest.param("40 0f ff ff ff ff ff ff", -1.0, "-1.0", id="minus-one"),
    pytest.param("80 00 00 00 00 00 00 00", 0.0, "0.0", id="zero"),
    pytest.param("bf b9 99 99 99 99 99 9a", 0.1, "0.1", id="tenth"),
    pytest.param("c0 29 00 00 00 00 00 00", 12.5, "12.5", id="12.5"),
    pytest.param("3f d6 ff ff ff ff ff ff", -12.5, "-12.5", id="minus-12.5"),
    pytest.param("c3 41 c3 79 37 e0 80 00", 1e16, "1e+16", id="1e16-exponent-form"),
    pytest.param("ff f0 00 00 00 00 00 00", math.inf, "Inf", id="inf"),
    pytest.param("00 0f ff ff ff ff ff ff", -math.inf, "-Inf", id="minus-inf"),
]


@pytest.mark.parametrize(("hex_bytes", "value", "text"), BINARY_DOUBLES)
def test_binary_double_both_ways(hex_bytes: str, value: float, text: str) -> None:
    data = bytes.fromhex(hex_bytes)
    assert decode_binary_double(data) == value
    assert render_binary_double(value) == text
    assert encode_binary_double(value) == data


@pytest.mark.parametrize(
    ("decoder", "renderer", "hex_bytes"),
    [
        pytest.param(decode_binary_float, render_binary_float, "ff c0 00 00", id="float-nan"),
        pytest.param(decode_binary_double, render_binary_double, "ff f8 00 00 00 00 00 00", id="double-nan"),
    ],
)
def test_nan_renders_like_oracle(
    decoder: Callable[[bytes], float], renderer: Callable[[float], str], hex_bytes: str
) -> None:
    value = decoder(bytes.fromhex(hex_bytes))
    assert math.isnan(value)
    assert renderer(value) == "Nan"


def test_negative_zero_keeps_its_bits() -> None:
    assert encode_binary_double(-0.0) == bytes.fromhex("7f ff ff ff ff ff ff ff")
    assert math.copysign(1.0, decode_binary_double(bytes.fromhex("7f ff ff ff ff ff ff ff"))) == -1.0


@pytest.mark.parametrize(
    ("decoder", "hex_bytes"),
    [
        pytest.param(decode_binary_float, "bf 80 00", id="float-3-bytes"),
        pytest.param(decode_binary_float, "bf f0 00 00 00 00 00 00", id="float-8-bytes"),
        pytest.param(decode_binary_double, "bf 80 00 00", id="double-4-bytes"),
        pytest.param(decode_binary_double, "", id="double-empty"),
    ],
)
def test_decode_rejects_wrong_length(decoder: Callable[[bytes], float], hex_bytes: str) -> None:
    with pytest.raises(ValueDecodeError):
        decoder(bytes.fromhex(hex_bytes))


def test_encode_binary_float_rejects_out_of_range() -> None:
    with pytest.raises(ValueDecodeError):
        encode_binary_float(1e300)


def _float32(value: float) -> float:
    rounded: float = struct.unpack(">f", struct.pack(">f", value))[0]
    return rounded


@given(st.floats(allow_nan=False))
def test_binary_double_round_trip(value: float) -> None:
    data = encode_binary_double(value)
    assert decode_binary_double(data) == value
    assert float(render_binary_double(value).replace("Inf", "inf")) == value


@given(st.floats(allow_nan=False, width=32))
def test_binary_float_round_trip_and_shortest_text(value: float) -> None:
    data = encode_binary_float(value)
    decoded = decode_binary_float(data)
    assert decoded == value
    text = render_binary_float(decoded)
    assert _float32(float(text.replace("Inf", "inf"))) == value
    if math.isfinite(value) and value != 0:
        digits = len(f"{float(text):e}".split("e")[0].replace("-", "").replace(".", "").rstrip("0"))
        assert digits <= 9


@given(st.floats(allow_nan=False), st.floats(allow_nan=False))
def test_binary_double_bytes_sort_like_values(a: float, b: float) -> None:
    if a < b:
        assert encode_binary_double(a) < encode_binary_double(b)


@given(st.binary(min_size=4, max_size=4))
def test_any_four_bytes_decode(data: bytes) -> None:
    value = decode_binary_float(data)
    if not math.isnan(value):
        assert encode_binary_float(value) == data
