"""BINARY_FLOAT (type 100, 4 bytes) and BINARY_DOUBLE (type 101, 8 bytes) <-> float (redo-format §7.7).

The bytes are big-endian IEEE-754 with a twist that makes them sort as unsigned bytes: when the top
bit is set the value is positive and clearing that bit gives the IEEE bits; otherwise the value is
negative and inverting every bit gives the IEEE bits.

Text rendering (``render_*``) is Python's shortest round-trip repr (``0.1``, ``100.0``, ``1e+16``);
for BINARY_FLOAT it is the shortest text that reads back as the same 32-bit float, so
``0.1`` stays ``"0.1"``. Infinities and NaN print as Oracle prints them: ``Inf``, ``-Inf``, ``Nan``.

Pure functions, stdlib only; on bad input they raise only ``ValueDecodeError``.
"""

from __future__ import annotations

import math
import struct

from redo_lib.errors import ValueDecodeError

__all__ = [
    "decode_binary_double",
    "decode_binary_float",
    "encode_binary_double",
    "encode_binary_float",
    "render_binary_double",
    "render_binary_float",
]

_F32 = struct.Struct(">f")
_F64 = struct.Struct(">d")
_U32 = struct.Struct(">I")
_U64 = struct.Struct(">Q")
_TOP32 = 0x80000000
_TOP64 = 0x8000000000000000
_ALL32 = 0xFFFFFFFF
_ALL64 = 0xFFFFFFFFFFFFFFFF


def decode_binary_float(data: bytes) -> float:
    """BINARY_FLOAT (4 bytes) -> float. ``bf 80 00 00`` -> ``1.0``; ``40 7f ff ff`` -> ``-1.0``."""
    if len(data) != 4:
        raise ValueDecodeError(
            f"BINARY_FLOAT must be 4 bytes, got {len(data)}", type="BINARY_FLOAT", hex=data.hex()
        )
    (bits,) = _U32.unpack(data)
    bits = bits ^ _TOP32 if bits & _TOP32 else bits ^ _ALL32
    value: float = _F32.unpack(_U32.pack(bits))[0]
    return value


def decode_binary_double(data: bytes) -> float:
    """BINARY_DOUBLE (8 bytes) -> float. ``bf f0 00 00 00 00 00 00`` -> ``1.0``."""
    if len(data) != 8:
        raise ValueDecodeError(
            f"BINARY_DOUBLE must be 8 bytes, got {len(data)}", type="BINARY_DOUBLE", hex=data.hex()
        )
    (bits,) = _U64.unpack(data)
    bits = bits ^ _TOP64 if bits & _TOP64 else bits ^ _ALL64
    value: float = _F64.unpack(_U64.pack(bits))[0]
    return value


def encode_binary_float(value: float) -> bytes:
    """float -> BINARY_FLOAT (4 bytes). Rounds to the nearest 32-bit float; beyond its range raises."""
    try:
        (bits,) = _U32.unpack(_F32.pack(value))
    except (OverflowError, struct.error) as exc:
        raise ValueDecodeError(f"{value!r} does not fit a BINARY_FLOAT", type="BINARY_FLOAT") from exc
    return _U32.pack(bits ^ _ALL32 if bits & _TOP32 else bits | _TOP32)


def encode_binary_double(value: float) -> bytes:
    """float -> BINARY_DOUBLE (8 bytes)."""
    try:
        (bits,) = _U64.unpack(_F64.pack(value))
    except struct.error as exc:
        raise ValueDecodeError(f"{value!r} is not a float", type="BINARY_DOUBLE") from exc
    return _U64.pack(bits ^ _ALL64 if bits & _TOP64 else bits | _TOP64)


def _special(value: float) -> str | None:
    if math.isnan(value):
        return "Nan"
    if math.isinf(value):
        return "Inf" if value > 0 else "-Inf"
    return None


def render_binary_double(value: float) -> str:
    """Shortest text of a double: ``0.1`` -> ``"0.1"``, ``inf`` -> ``"Inf"``, ``nan`` -> ``"Nan"``."""
    return _special(value) or repr(value)


def render_binary_float(value: float) -> str:
    """Shortest text that reads back as the same 32-bit float: ``decode_binary_float(...)`` of 0.1 -> ``"0.1"``."""
    special = _special(value)
    if special is not None:
        return special
    try:
        target = _F32.pack(value)
    except OverflowError as exc:
        raise ValueDecodeError(f"{value!r} does not fit a BINARY_FLOAT", type="BINARY_FLOAT") from exc
    # More digits never stop a text from round-tripping, so search the digit count (1..9) by halving.
    low, high = 1, 9
    while low < high:
        middle = (low + high) // 2
        if _F32.pack(float(f"{value:.{middle}g}")) == target:
            high = middle
        else:
            low = middle + 1
    return repr(float(f"{value:.{low}g}"))
