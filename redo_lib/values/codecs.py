"""The codec table: Oracle type code -> how a column value decodes to trail text and encodes back.

==== ===================================== =============================================== =========
code type                                  trail text                                      §
==== ===================================== =============================================== =========
1    VARCHAR2 / NVARCHAR2                  decoded in the column's charset                 7.2
96   CHAR / NCHAR                          decoded in the column's charset, blank padded   7.2
2    NUMBER / FLOAT                        exact decimal text: ``1011``, ``-12.5``         7.1
12   DATE                                  ``2024-01-15T10:20:30``                         7.3
180  TIMESTAMP                             ``2024-01-15T10:20:30.123456789``               7.4
181  TIMESTAMP WITH TIME ZONE              ``2024-01-15T15:50:30+05:30``                   7.5
231  TIMESTAMP WITH LOCAL TIME ZONE        UTC, ``2024-01-15T10:20:30Z``                   7.6
23   RAW                                   upper-case hex: ``DEADBEEF``                    7.7
100  BINARY_FLOAT                          shortest repr, ``Inf`` / ``-Inf`` / ``Nan``     7.7
101  BINARY_DOUBLE                         shortest repr, ``Inf`` / ``-Inf`` / ``Nan``     7.7
182  INTERVAL YEAR TO MONTH                ``+02-03``                                      7.7
183  INTERVAL DAY TO SECOND                ``+01 02:03:04.500000000``                      7.7
252  BOOLEAN                               ``TRUE`` / ``FALSE``                            7.7
69   ROWID                                 18-char ROWID of the 10 bytes                   7.9
208  UROWID                                18-char ROWID; non-physical UROWIDs as hex      7.7, 7.9
112  CLOB / NCLOB (the LOB's data)         text; AL16UTF16 when the charset is multi-byte  6.7
113  BLOB (the LOB's data)                 upper-case hex, like RAW                        6.7
==== ===================================== =============================================== =========

CLOB / NCLOB / BLOB codecs work on the LOB's *data* (what the core's emitter reassembles from the
locator, §7.8), not on the locator the row holds. Oracle keeps CLOB data in the database character set
only when it is single-byte; with a varying-width multi-byte database charset (AL32UTF8, UTF8, ZHS16GBK, ...) CLOB data
is stored as AL16UTF16 (UTF-16 big-endian). NCLOB columns pass the national charset (AL16UTF16 or
UTF8; UTF8 is multi-byte, so NCLOB data is AL16UTF16 too). ``b""`` is an empty LOB (EMPTY_CLOB()),
which is not NULL.

Any other type code decodes to upper-case hex of its bytes (and cannot be encoded).

NULL: the caller represents NULL as ``None`` and never passes it here; NULL columns carry no bytes
in the redo. Oracle stores an empty VARCHAR2 as NULL, so ``b""`` never occurs for a string column
in practice, but ``decode_value(1, b"")`` returns ``""`` (and RAW ``b""`` gives ``""``); for the
other types empty bytes are malformed and raise.

For NCHAR / NVARCHAR2 pass the national character set as ``charset`` (charset form 2).

Pure functions (the character set list is the core's); on bad input they raise only ``ValueDecodeError``.
"""

from __future__ import annotations

import datetime
import decimal
import types
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, final

from redo_lib.errors import ValueDecodeError
from redo_lib.values.datetimes import (
    decode_date,
    decode_interval_ds,
    decode_interval_ym,
    decode_timestamp,
    decode_timestamp_ltz,
    decode_timestamp_tz,
    encode_date,
    encode_interval_ds,
    encode_interval_ym,
    encode_timestamp,
    encode_timestamp_ltz,
    encode_timestamp_tz,
)
from redo_lib.values.floats import (
    decode_binary_double,
    decode_binary_float,
    encode_binary_double,
    encode_binary_float,
    render_binary_double,
    render_binary_float,
)
from redo_lib.values.numbers import decode_number, encode_number
from redo_lib.values.rowids import (
    RowId,
    decode_rowid,
    decode_urowid,
    encode_rowid,
    encode_urowid,
    parse_rowid,
)
from redo_lib.values.text import decode_text, encode_text, multibyte_charsets

__all__ = ["CODECS", "Codec", "decode_value", "encode_value", "lob_charset"]

Zone = str | int
Decoder = Callable[[bytes, Zone, Zone], str]  # (data, charset, db_timezone) -> trail text
Encoder = Callable[[Any, Zone, Zone], bytes]  # (python value, charset, db_timezone) -> bytes


@final
@dataclass(frozen=True, slots=True, kw_only=True)
class Codec:
    """One row of the codec table: an Oracle type code, its name, and both directions."""

    type_code: int
    name: str
    decode: Decoder
    encode: Encoder


def _wrong_type(type_name: str, value: object) -> ValueDecodeError:
    return ValueDecodeError(
        f"cannot encode {type(value).__name__} as {type_name}", type=type_name, value=repr(value)
    )


# --- decoders: (data, charset, db_timezone) -> str ----------------------------------------------------------


def _decode_text(data: bytes, charset: Zone, db_timezone: Zone) -> str:
    return decode_text(data, charset)


def _decode_number(data: bytes, charset: Zone, db_timezone: Zone) -> str:
    return decode_number(data)


def _decode_date(data: bytes, charset: Zone, db_timezone: Zone) -> str:
    return decode_date(data)


def _decode_timestamp(data: bytes, charset: Zone, db_timezone: Zone) -> str:
    return decode_timestamp(data)


def _decode_timestamp_tz(data: bytes, charset: Zone, db_timezone: Zone) -> str:
    return decode_timestamp_tz(data)


def _decode_timestamp_ltz(data: bytes, charset: Zone, db_timezone: Zone) -> str:
    return decode_timestamp_ltz(data, db_timezone)


def _decode_raw(data: bytes, charset: Zone, db_timezone: Zone) -> str:
    return data.hex().upper()


def lob_charset(charset: Zone) -> Zone:
    """The charset CLOB / NCLOB data is stored in for a column of ``charset``: AL16UTF16 for the
    core's varying-width multi-byte sets (AL32UTF8, UTF8, ZHS16GBK, JA16SJIS, ...; docs/lobs.md)."""
    return "AL16UTF16" if charset in multibyte_charsets() else charset


def _decode_clob(data: bytes, charset: Zone, db_timezone: Zone) -> str:
    return decode_text(data, lob_charset(charset))


def _decode_binary_float(data: bytes, charset: Zone, db_timezone: Zone) -> str:
    return render_binary_float(decode_binary_float(data))


def _decode_binary_double(data: bytes, charset: Zone, db_timezone: Zone) -> str:
    return render_binary_double(decode_binary_double(data))


def _decode_interval_ym(data: bytes, charset: Zone, db_timezone: Zone) -> str:
    return decode_interval_ym(data)


def _decode_interval_ds(data: bytes, charset: Zone, db_timezone: Zone) -> str:
    return decode_interval_ds(data)


def _decode_boolean(data: bytes, charset: Zone, db_timezone: Zone) -> str:
    if data == b"\x01":
        return "TRUE"
    if data == b"\x00":
        return "FALSE"
    raise ValueDecodeError("BOOLEAN must be one byte 0 or 1", type="BOOLEAN", hex=data.hex())


def _decode_rowid(data: bytes, charset: Zone, db_timezone: Zone) -> str:
    return str(decode_rowid(data))


def _decode_urowid(data: bytes, charset: Zone, db_timezone: Zone) -> str:
    if data[:1] != b"\x01":  # logical (IOT) or foreign UROWID: no text form here
        return data.hex().upper()
    return str(decode_urowid(data))


# --- encoders: (value, charset, db_timezone) -> bytes ----------------------------------------------------


def _encode_text(value: Any, charset: Zone, db_timezone: Zone) -> bytes:
    if not isinstance(value, str):
        raise _wrong_type("VARCHAR2", value)
    return encode_text(value, charset)


def _encode_number(value: Any, charset: Zone, db_timezone: Zone) -> bytes:
    return encode_number(value)


def _encode_date(value: Any, charset: Zone, db_timezone: Zone) -> bytes:
    return encode_date(value)


def _encode_timestamp(value: Any, charset: Zone, db_timezone: Zone) -> bytes:
    return encode_timestamp(value)


def _encode_timestamp_tz(value: Any, charset: Zone, db_timezone: Zone) -> bytes:
    return encode_timestamp_tz(value)


def _encode_timestamp_ltz(value: Any, charset: Zone, db_timezone: Zone) -> bytes:
    return encode_timestamp_ltz(value, db_timezone=db_timezone)


def _encode_raw(value: Any, charset: Zone, db_timezone: Zone) -> bytes:
    if isinstance(value, bytes | bytearray | memoryview):
        return bytes(value)
    if isinstance(value, str):
        try:
            return bytes.fromhex(value)
        except ValueError as exc:
            raise ValueDecodeError("RAW text must be hex", type="RAW", value=value) from exc
    raise _wrong_type("RAW", value)


def _encode_clob(value: Any, charset: Zone, db_timezone: Zone) -> bytes:
    if not isinstance(value, str):
        raise _wrong_type("CLOB", value)
    return encode_text(value, lob_charset(charset))


def _float_value(value: Any, type_name: str) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float | decimal.Decimal):
        raise _wrong_type(type_name, value)
    return float(value)


def _encode_binary_float(value: Any, charset: Zone, db_timezone: Zone) -> bytes:
    return encode_binary_float(_float_value(value, "BINARY_FLOAT"))


def _encode_binary_double(value: Any, charset: Zone, db_timezone: Zone) -> bytes:
    return encode_binary_double(_float_value(value, "BINARY_DOUBLE"))


def _encode_interval_ym(value: Any, charset: Zone, db_timezone: Zone) -> bytes:
    """An int is a number of months; a tuple is ``(years, months)``."""
    if isinstance(value, int) and not isinstance(value, bool):
        return encode_interval_ym(0, value)
    if isinstance(value, tuple) and len(value) == 2 and all(isinstance(v, int) for v in value):
        return encode_interval_ym(*value)
    raise _wrong_type("INTERVAL YEAR TO MONTH", value)


def _encode_interval_ds(value: Any, charset: Zone, db_timezone: Zone) -> bytes:
    """A ``timedelta``, or a tuple ``(days, hours, minutes, seconds, nanos)`` (trailing parts optional)."""
    if isinstance(value, datetime.timedelta):
        return encode_interval_ds(value.days, seconds=value.seconds, nanos=value.microseconds * 1000)
    if isinstance(value, tuple) and 1 <= len(value) <= 5 and all(isinstance(v, int) for v in value):
        return encode_interval_ds(*value)
    raise _wrong_type("INTERVAL DAY TO SECOND", value)


def _encode_boolean(value: Any, charset: Zone, db_timezone: Zone) -> bytes:
    if not isinstance(value, bool):
        raise _wrong_type("BOOLEAN", value)
    return b"\x01" if value else b"\x00"


def _rowid_value(value: Any, type_name: str) -> RowId:
    """A ``RowId`` or its 18-character text, for ROWID and UROWID."""
    if isinstance(value, str):
        value = parse_rowid(value)
    if not isinstance(value, RowId):
        raise _wrong_type(type_name, value)
    return value


def _encode_rowid(value: Any, charset: Zone, db_timezone: Zone) -> bytes:
    return encode_rowid(_rowid_value(value, "ROWID"))


def _encode_urowid(value: Any, charset: Zone, db_timezone: Zone) -> bytes:
    return encode_urowid(_rowid_value(value, "UROWID"))


def _codec(type_code: int, name: str, decode: Decoder, encode: Encoder) -> tuple[int, Codec]:
    return type_code, Codec(type_code=type_code, name=name, decode=decode, encode=encode)


#: Oracle type code -> Codec, for every type this package decodes (redo-format §7).
CODECS: Mapping[int, Codec] = types.MappingProxyType(
    dict(
        (
            _codec(1, "VARCHAR2", _decode_text, _encode_text),
            _codec(96, "CHAR", _decode_text, _encode_text),
            _codec(2, "NUMBER", _decode_number, _encode_number),
            _codec(12, "DATE", _decode_date, _encode_date),
            _codec(180, "TIMESTAMP", _decode_timestamp, _encode_timestamp),
            _codec(181, "TIMESTAMP WITH TIME ZONE", _decode_timestamp_tz, _encode_timestamp_tz),
            _codec(231, "TIMESTAMP WITH LOCAL TIME ZONE", _decode_timestamp_ltz, _encode_timestamp_ltz),
            _codec(23, "RAW", _decode_raw, _encode_raw),
            _codec(100, "BINARY_FLOAT", _decode_binary_float, _encode_binary_float),
            _codec(101, "BINARY_DOUBLE", _decode_binary_double, _encode_binary_double),
            _codec(182, "INTERVAL YEAR TO MONTH", _decode_interval_ym, _encode_interval_ym),
            _codec(183, "INTERVAL DAY TO SECOND", _decode_interval_ds, _encode_interval_ds),
            _codec(252, "BOOLEAN", _decode_boolean, _encode_boolean),
            _codec(69, "ROWID", _decode_rowid, _encode_rowid),
            _codec(208, "UROWID", _decode_urowid, _encode_urowid),
            _codec(112, "CLOB", _decode_clob, _encode_clob),
            _codec(113, "BLOB", _decode_raw, _encode_raw),
        )
    )
)
_TABLE: dict[int, Codec] = dict(CODECS)


def decode_value(type_code: int, data: bytes, *, charset: Zone = "AL32UTF8", db_timezone: Zone = 0) -> str:
    """Column bytes of Oracle type ``type_code`` -> the trail text (see the table in the module docstring).

    ``charset`` (Oracle name or id) is used by the character types only, ``db_timezone`` (minutes
    east of UTC or ``"+05:30"``) by TIMESTAMP WITH LOCAL TIME ZONE only. Unknown type codes give
    upper-case hex. Malformed bytes raise ``ValueDecodeError``.
    """
    codec = _TABLE.get(type_code)
    if codec is None:
        return data.hex().upper()
    return codec.decode(data, charset, db_timezone)


def encode_value(type_code: int, value: Any, *, charset: Zone = "AL32UTF8", db_timezone: Zone = 0) -> bytes:
    """A Python value -> column bytes of Oracle type ``type_code`` (for the test-data generator).

    Values: ``str`` for character types; ``Decimal`` / ``int`` / ``str`` / ``float`` for NUMBER;
    ``datetime`` / ``date`` / ISO text for DATE and TIMESTAMPs (aware for WITH TIME ZONE); bytes or
    hex text for RAW; ``float`` for BINARY_*; months or ``(years, months)`` for INTERVAL YEAR TO
    MONTH; ``timedelta`` or ``(days, hours, minutes, seconds, nanos)`` for INTERVAL DAY TO SECOND;
    ``bool`` for BOOLEAN; ``RowId`` or ROWID text for ROWID and UROWID. ``None`` (NULL) is not a value
    here. Unknown type codes and values of the wrong kind raise ``ValueDecodeError``.
    """
    codec = _TABLE.get(type_code)
    if codec is None:
        raise ValueDecodeError(f"no codec for Oracle type code {type_code}", type=type_code)
    return codec.encode(value, charset, db_timezone)
