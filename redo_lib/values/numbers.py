"""Oracle NUMBER / FLOAT column values (type 2) <-> exact decimal text (redo-format §7.1).

Layout: byte 0 holds sign and exponent, then base-100 digits, most significant first.

* zero is the single byte ``0x80``;
* positive: byte 0 = ``0xC1 + e`` (the first digit weighs ``100**e``), digit byte = digit + 1;
* negative: byte 0 = ``0x3E - e``, digit byte = 101 - digit, and a terminator ``0x66`` follows
  when there are fewer than 20 digits;
* ``0x00`` alone is negative infinity (printed ``-~``) and ``0xFF 0x65`` positive infinity (``~``),
  as Oracle's SQL*Plus prints them.

Decoding is exact and never uses exponent notation: ``c1 0d 33`` -> ``"12.5"``. Encoding keeps at
most 20 base-100 digits, which is Oracle's storage limit (39 or 40 significant decimal digits,
depending on how the first digit pair is filled): every value with up to 38 significant digits is
stored exactly; longer values are rounded half away from zero, as Oracle rounds them on insert.
Values below 1e-130 underflow to zero (as in Oracle); values of 1e126 or more raise
:class:`~redo_lib.errors.ValueDecodeError` (Oracle's ORA-01426 numeric overflow).

Pure functions, stdlib only. On bad input they raise only ``ValueDecodeError``.
"""

from __future__ import annotations

import decimal

from redo_lib.errors import ValueDecodeError

__all__ = ["NEGATIVE_INFINITY", "POSITIVE_INFINITY", "decode_number", "encode_number"]

#: Text of Oracle's NUMBER infinities (what SQL*Plus prints for them).
POSITIVE_INFINITY = "~"
NEGATIVE_INFINITY = "-~"

_ZERO = b"\x80"
_POS_INF = b"\xff\x65"
_NEG_INF = b"\x00"
_NEG_TERMINATOR = 0x66
_MAX_DIGITS = 20  # base-100 digits after the exponent byte
_MIN_EXP = -65  # first digit weighs 100**-65 = 1e-130
_MAX_EXP = 62  # first digit weighs 100**62 = 1e124; the largest value is just below 1e126

# str.translate tables: one byte (as a latin-1 character) -> its two decimal digits; "?" marks a byte
# that is no valid digit for that sign.
_POS_DIGITS: list[str] = ["?"] * 256
_NEG_DIGITS: list[str] = ["?"] * 256
for _d in range(100):
    _POS_DIGITS[_d + 1] = f"{_d:02d}"
    _NEG_DIGITS[101 - _d] = f"{_d:02d}"
del _d


def _error(message: str, data: bytes) -> ValueDecodeError:
    return ValueDecodeError(message, type="NUMBER", hex=data.hex())


def decode_number(data: bytes) -> str:
    """Decode an Oracle NUMBER to its exact decimal text, as Oracle prints it without exponent.

    ``c2 0b 0c`` -> ``"1011"``, ``3e 59 33 66`` -> ``"-12.5"``, ``bf 0d`` -> ``"0.0012"``, ``80`` -> ``"0"``.
    No leading ``+``, no trailing zeros after the point, a ``0`` before a leading point.
    Raises ``ValueDecodeError`` (type NUMBER, hex) on malformed bytes.
    """
    if not data:
        raise _error("empty NUMBER value", data)
    head = data[0]
    if head & 0x80:
        if len(data) == 1:
            if head == 0x80:
                return "0"
            raise _error("NUMBER has an exponent byte but no digits", data)
        if data == _POS_INF:
            return POSITIVE_INFINITY
        exp = head - 0xC1
        digits = data[1:].decode("latin-1").translate(_POS_DIGITS)
        sign = ""
    else:
        if len(data) == 1:
            if head == 0:
                return NEGATIVE_INFINITY
            raise _error("negative NUMBER has no digits", data)
        exp = 0x3E - head
        mantissa = data[1:-1] if data[-1] == _NEG_TERMINATOR else data[1:]
        if not mantissa:
            raise _error("negative NUMBER has no digits", data)
        digits = mantissa.decode("latin-1").translate(_NEG_DIGITS)
        sign = "-"
    if len(digits) > 2 * _MAX_DIGITS or "?" in digits:
        raise _error("malformed NUMBER digits", data)
    # ``digits`` is 0.DDDD... times 100**(exp + 1): the decimal point sits after ``point`` digits.
    point = 2 * (exp + 1)
    if point <= 0:
        fraction = ("0" * -point + digits).rstrip("0")
        return f"{sign}0.{fraction}" if fraction else "0"
    if point >= len(digits):
        integer = (digits + "0" * (point - len(digits))).lstrip("0")
        return f"{sign}{integer}" if integer else "0"
    integer = digits[:point].lstrip("0") or "0"
    fraction = digits[point:].rstrip("0")
    if fraction:
        return f"{sign}{integer}.{fraction}"
    return f"{sign}{integer}" if integer != "0" else "0"


def _to_decimal(value: decimal.Decimal | int | str | float) -> decimal.Decimal:
    if isinstance(value, decimal.Decimal):
        return value
    if isinstance(value, bool):
        raise ValueDecodeError("cannot encode a bool as NUMBER", type="NUMBER", value=value)
    if isinstance(value, int):
        return decimal.Decimal(value)
    if isinstance(value, float):
        # repr() is the shortest text that reads back as the same float: 0.1 -> "0.1"
        return decimal.Decimal(repr(value))
    if isinstance(value, str):
        try:
            return decimal.Decimal(value.strip())
        except decimal.InvalidOperation as exc:
            raise ValueDecodeError("not a number", type="NUMBER", value=value) from exc
    raise ValueDecodeError(
        f"cannot encode {type(value).__name__} as NUMBER", type="NUMBER", value=repr(value)
    )


def encode_number(value: decimal.Decimal | int | str | float) -> bytes:
    """Encode a number in Oracle's NUMBER format (redo-format §7.1).

    Accepts ``Decimal``, ``int``, decimal text (``"-12.5"``, ``"1E+3"``) and ``float`` (through its
    shortest repr). ``Decimal("Infinity")`` / ``"-Infinity"`` give Oracle's infinities ``ff 65`` /
    ``00``. Keeps at most 20 base-100 digits (all values with up to 38 significant digits are exact;
    longer ones are rounded half away from zero like Oracle). Below 1e-130 gives zero; 1e126 or
    more, or NaN, raise ``ValueDecodeError``.
    """
    number = _to_decimal(value)
    sign, digit_tuple, exponent = number.as_tuple()
    if not isinstance(exponent, int):  # 'n', 'N' (NaN) or 'F' (infinity)
        if exponent == "F":
            return _NEG_INF if sign else _POS_INF
        raise ValueDecodeError("NaN cannot be stored as NUMBER", type="NUMBER", value=str(value))
    text = "".join(map(str, digit_tuple))
    stripped = text.rstrip("0")
    if not stripped:
        return _ZERO
    exponent += len(text) - len(stripped)
    while True:
        adjusted = exponent + len(stripped) - 1  # power of ten of the leading decimal digit
        exp100 = adjusted // 2
        lowest = 2 * (exp100 - _MAX_DIGITS + 1)  # power of ten of the last digit that can be kept
        if exponent >= lowest:
            break
        drop = lowest - exponent
        coefficient, remainder = divmod(int(stripped), 10**drop)
        if 2 * remainder >= 10**drop:
            coefficient += 1
        text = str(coefficient)
        stripped = text.rstrip("0")
        exponent = lowest + len(text) - len(stripped)
    if exp100 < _MIN_EXP:
        return _ZERO
    if exp100 > _MAX_EXP:
        raise ValueDecodeError(
            "NUMBER overflow: magnitude must be below 1E+126", type="NUMBER", value=str(value)
        )
    if adjusted % 2 == 0:  # the leading pair holds a single digit: 0d
        stripped = "0" + stripped
    if exponent % 2:  # the last pair ends at an odd power of ten: d0
        stripped += "0"
    pairs = [int(stripped[i : i + 2]) for i in range(0, len(stripped), 2)]
    if sign:
        out = bytearray([0x3E - exp100])
        out.extend(101 - p for p in pairs)
        if len(pairs) < _MAX_DIGITS:
            out.append(_NEG_TERMINATOR)
        return bytes(out)
    out = bytearray([0xC1 + exp100])
    out.extend(p + 1 for p in pairs)
    return bytes(out)
