"""The codec table and the trail text of every supported type (redo-format §7)."""

from __future__ import annotations

import datetime
import decimal

import pytest
from hypothesis import given
from hypothesis import strategies as st

from redo_lib.errors import ValueDecodeError
from redo_lib.values.codecs import CODECS, decode_value, encode_value
from redo_lib.values.rowids import RowId

# (type code, hex bytes, trail text) with the default charset AL32UTF8 and database time zone UTC.
DECODED = [
    pytest.param(2, "c2 0b 0c", "1011", id="seed000-number-student-key"),
    pytest.param(2, "c2 5b", "9000", id="seed000-number-tuition"),
    pytest.param(2, "3e 59 33 66", "-12.5", id="number-negative"),
    pytest.param(1, "4a 6f 72 64 61 6e", "Jordan", id="seed000-varchar2"),
    pytest.param(1, "43 68 65 6d 69 73 74 72 79", "Chemistry", id="seed000-varchar2-course"),
    pytest.param(96, "4d", "M", id="seed000-char"),
    pytest.param(96, "41 42 20 20", "AB  ", id="char-padded"),
    pytest.param(1, "", "", id="varchar2-empty"),
    pytest.param(12, "78 7c 01 0f 0b 15 1f", "2024-01-15T10:20:30", id="date"),
    pytest.param(180, "78 7c 01 0f 0b 15 1f 07 5b cd 15", "2024-01-15T10:20:30.123456789", id="timestamp"),
    pytest.param(
        181, "78 7c 01 0f 0b 15 1f 00 00 00 00 19 5a", "2024-01-15T15:50:30+05:30", id="timestamp-tz"
    ),
    pytest.param(231, "78 7c 01 0f 0b 15 1f", "2024-01-15T10:20:30Z", id="timestamp-ltz-utc"),
    pytest.param(23, "de ad be ef", "DEADBEEF", id="raw"),
    pytest.param(23, "", "", id="raw-empty"),
    pytest.param(100, "bd cc cc cd", "0.1", id="binary-float"),
    pytest.param(101, "c0 29 00 00 00 00 00 00", "12.5", id="binary-double"),
    pytest.param(101, "ff f0 00 00 00 00 00 00", "Inf", id="binary-double-inf"),
    pytest.param(182, "80 00 00 02 3f", "+02-03", id="interval-ym"),
    pytest.param(183, "80 00 00 01 3e 3f 40 9d cd 65 00", "+01 02:03:04.500000000", id="interval-ds"),
    pytest.param(252, "01", "TRUE", id="boolean-true"),
    pytest.param(252, "00", "FALSE", id="boolean-false"),
    pytest.param(208, "01 00 01 56 99 00 02 00 04 00 00 00 b0", "AAAVaZAAEAAAACwAAC", id="urowid-physical"),
    pytest.param(208, "02 04 c1 02", "0204C102", id="urowid-logical-as-hex"),
    pytest.param(69, "00 00 d7 89 01 80 00 e2 00 16", "AAANeJAAGAAAADiAAW", id="rowid-dump-typ-69"),
    pytest.param(58, "00 54 00 01", "00540001", id="unknown-xmltype-as-hex"),
    # CLOB data on a multi-byte database is AL16UTF16 (docs/lobs.md); BLOB data renders like RAW
    pytest.param(112, "00 54 00 01", "T\u0001", id="clob-al16utf16"),
    pytest.param(113, "de ad be ef", "DEADBEEF", id="blob-as-hex"),
    pytest.param(113, "", "", id="empty-blob"),
    pytest.param(999, "0a", "0A", id="unknown-code-as-hex"),
]


@pytest.mark.parametrize(("type_code", "hex_bytes", "text"), DECODED)
def test_decode_value(type_code: int, hex_bytes: str, text: str) -> None:
    assert decode_value(type_code, bytes.fromhex(hex_bytes)) == text


@pytest.mark.parametrize(
    ("type_code", "hex_bytes", "kwargs", "text"),
    [
        pytest.param(1, "00 4a 00 6f", {"charset": "AL16UTF16"}, "Jo", id="nvarchar2-al16utf16"),
        pytest.param(96, "63 61 66 e9", {"charset": 31}, "café", id="char-latin1-by-id"),
        pytest.param(1, "ed a0 bd ed b8 80", {"charset": "UTF8"}, "😀", id="varchar2-cesu8"),
        pytest.param(
            231, "78 7c 01 01 02 01 01", {"db_timezone": "+05:30"}, "2023-12-31T19:30:00Z", id="tsltz-db-tz"
        ),
        pytest.param(2, "c2 0b 0c", {"charset": "no such charset"}, "1011", id="number-ignores-charset"),
    ],
)
def test_decode_value_options(
    type_code: int, hex_bytes: str, kwargs: dict[str, str | int], text: str
) -> None:
    assert decode_value(type_code, bytes.fromhex(hex_bytes), **kwargs) == text  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("type_code", "hex_bytes"),
    [
        pytest.param(2, "", id="number-empty"),
        pytest.param(2, "c1 00", id="number-bad-digit"),
        pytest.param(1, "ff", id="varchar2-invalid-utf8"),
        pytest.param(12, "78 7c 01", id="date-short"),
        pytest.param(180, "", id="timestamp-empty"),
        pytest.param(181, "78 7c 01 0f 0b 15 1f", id="tstz-7-bytes"),
        pytest.param(100, "bd cc cc", id="binary-float-short"),
        pytest.param(252, "02", id="boolean-2"),
        pytest.param(252, "", id="boolean-empty"),
        pytest.param(208, "01 00", id="urowid-physical-short"),
        pytest.param(69, "00 00 d7 89 01 80 00 e2 00", id="rowid-9-bytes"),
        pytest.param(69, "", id="rowid-empty"),
    ],
)
def test_decode_value_rejects_malformed_bytes(type_code: int, hex_bytes: str) -> None:
    with pytest.raises(ValueDecodeError) as info:
        decode_value(type_code, bytes.fromhex(hex_bytes))
    assert info.value.kind == "value"


# (type code, python value, trail text of its encoding)
ROUND_TRIPS = [
    pytest.param(1, "Jordan", "Jordan", id="varchar2"),
    pytest.param(96, "Ünïcödé 😀", "Ünïcödé 😀", id="char-unicode"),
    pytest.param(2, 1011, "1011", id="number-int"),
    pytest.param(2, decimal.Decimal("-0.0012"), "-0.0012", id="number-decimal"),
    pytest.param(2, "12.50", "12.5", id="number-text"),
    pytest.param(12, datetime.datetime(2013, 3, 31, 23, 59, 58), "2013-03-31T23:59:58", id="date"),
    pytest.param(12, "2024-01-15", "2024-01-15T00:00:00", id="date-iso-text"),
    pytest.param(
        180, datetime.datetime(2024, 1, 15, 10, 20, 30, 5), "2024-01-15T10:20:30.000005000", id="timestamp"
    ),
    pytest.param(
        181,
        datetime.datetime(
            2024, 1, 15, 15, 50, 30, tzinfo=datetime.timezone(datetime.timedelta(hours=5, minutes=30))
        ),
        "2024-01-15T15:50:30+05:30",
        id="timestamp-tz",
    ),
    pytest.param(
        231,
        datetime.datetime(
            2024, 1, 15, 15, 50, 30, tzinfo=datetime.timezone(datetime.timedelta(hours=5, minutes=30))
        ),
        "2024-01-15T10:20:30Z",
        id="timestamp-ltz-aware",
    ),
    pytest.param(23, b"\xde\xad", "DEAD", id="raw-bytes"),
    pytest.param(23, "beef", "BEEF", id="raw-hex-text"),
    pytest.param(100, 0.1, "0.1", id="binary-float"),
    pytest.param(101, -2.5, "-2.5", id="binary-double"),
    pytest.param(101, 3, "3.0", id="binary-double-from-int"),
    pytest.param(182, (2, 3), "+02-03", id="interval-ym-tuple"),
    pytest.param(182, -27, "-02-03", id="interval-ym-months"),
    pytest.param(
        183,
        datetime.timedelta(days=1, hours=2, minutes=3, seconds=4.5),
        "+01 02:03:04.500000000",
        id="ids-td",
    ),
    pytest.param(183, -datetime.timedelta(seconds=1), "-00 00:00:01", id="interval-ds-negative-timedelta"),
    pytest.param(183, (1, 2, 3, 4, 5), "+01 02:03:04.000000005", id="interval-ds-tuple"),
    pytest.param(252, True, "TRUE", id="boolean-true"),
    pytest.param(252, False, "FALSE", id="boolean-false"),
    pytest.param(
        208, RowId(dataobj=72726, rfile=24, block=14, slot=0), "AAARwWAAYAAAAAOAAA", id="urowid-rowid"
    ),
    pytest.param(208, "AAAVaZAAEAAAACwAAC", "AAAVaZAAEAAAACwAAC", id="urowid-text"),
    pytest.param(
        69, RowId(dataobj=72726, rfile=24, block=14, slot=0), "AAARwWAAYAAAAAOAAA", id="rowid-rowid"
    ),
    pytest.param(69, "AAAVaZAAEAAAACwAAC", "AAAVaZAAEAAAACwAAC", id="rowid-text"),
]


@pytest.mark.parametrize(("type_code", "value", "text"), ROUND_TRIPS)
def test_encode_value_then_decode_value(type_code: int, value: object, text: str) -> None:
    assert decode_value(type_code, encode_value(type_code, value)) == text


@pytest.mark.parametrize(
    ("charset", "value"),
    [
        pytest.param("UTF8", "A𝄞B", id="cesu8"),
        pytest.param("AL16UTF16", "A𝄞B", id="al16utf16"),
        pytest.param(178, "€100", id="cp1252-by-id"),
    ],
)
def test_encode_value_uses_charset(charset: str | int, value: str) -> None:
    data = encode_value(1, value, charset=charset)
    assert decode_value(1, data, charset=charset) == value
    assert data != value.encode("utf-8")


@pytest.mark.parametrize(
    ("type_code", "value"),
    [
        pytest.param(999, b"\x00", id="unknown-type-code"),
        pytest.param(1, 42, id="varchar2-from-int"),
        pytest.param(2, [1], id="number-from-list"),
        pytest.param(12, 20240115, id="date-from-int"),
        pytest.param(12, "15/01/2024", id="date-from-non-iso-text"),
        pytest.param(23, "xyz", id="raw-from-non-hex"),
        pytest.param(23, 5, id="raw-from-int"),
        pytest.param(100, "0.1", id="binary-float-from-text"),
        pytest.param(101, True, id="binary-double-from-bool"),
        pytest.param(182, (1, 2, 3), id="interval-ym-3-tuple"),
        pytest.param(183, 5.0, id="interval-ds-from-float"),
        pytest.param(252, 1, id="boolean-from-int"),
        pytest.param(208, 17, id="urowid-from-int"),
        pytest.param(208, "not-a-rowid", id="urowid-from-bad-text"),
        pytest.param(69, b"\x00" * 10, id="rowid-from-bytes"),
        pytest.param(69, "AAAVaZAAEAAAACwAA", id="rowid-from-17-chars"),
    ],
)
def test_encode_value_rejects(type_code: int, value: object) -> None:
    with pytest.raises(ValueDecodeError):
        encode_value(type_code, value)


@pytest.mark.parametrize(
    ("type_code", "name"),
    [
        pytest.param(1, "VARCHAR2", id="1"),
        pytest.param(2, "NUMBER", id="2"),
        pytest.param(12, "DATE", id="12"),
        pytest.param(23, "RAW", id="23"),
        pytest.param(96, "CHAR", id="96"),
        pytest.param(100, "BINARY_FLOAT", id="100"),
        pytest.param(101, "BINARY_DOUBLE", id="101"),
        pytest.param(180, "TIMESTAMP", id="180"),
        pytest.param(181, "TIMESTAMP WITH TIME ZONE", id="181"),
        pytest.param(182, "INTERVAL YEAR TO MONTH", id="182"),
        pytest.param(183, "INTERVAL DAY TO SECOND", id="183"),
        pytest.param(69, "ROWID", id="69"),
        pytest.param(208, "UROWID", id="208"),
        pytest.param(231, "TIMESTAMP WITH LOCAL TIME ZONE", id="231"),
        pytest.param(252, "BOOLEAN", id="252"),
    ],
)
def test_codec_table(type_code: int, name: str) -> None:
    codec = CODECS[type_code]
    assert codec.type_code == type_code
    assert codec.name == name


def test_codec_table_is_read_only() -> None:
    with pytest.raises(TypeError):
        CODECS[7] = CODECS[1]  # type: ignore[index]


@given(st.sampled_from(sorted(CODECS)), st.binary(max_size=24))
def test_decode_value_raises_only_value_decode_error(type_code: int, data: bytes) -> None:
    try:
        text = decode_value(type_code, data)
    except ValueDecodeError:
        return
    assert isinstance(text, str)


def test_clob_is_stored_in_the_database_charset_only_when_it_is_single_byte() -> None:
    from redo_lib.values.codecs import lob_charset

    assert lob_charset("AL32UTF8") == lob_charset("UTF8") == "AL16UTF16"
    assert lob_charset("WE8ISO8859P1") == "WE8ISO8859P1"
    assert encode_value(112, "é€", charset="AL32UTF8") == "é€".encode("utf-16-be")
    assert encode_value(112, "é", charset="WE8ISO8859P1") == b"\xe9"
    assert decode_value(112, "é€".encode("utf-16-be"), charset="AL16UTF16") == "é€"  # NCLOB
    assert decode_value(112, b"", charset="AL32UTF8") == ""  # EMPTY_CLOB(), not NULL
