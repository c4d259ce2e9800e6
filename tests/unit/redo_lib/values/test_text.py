"""Character values in Oracle character sets (redo-format §7.2), CESU-8 included."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from redo_lib.errors import ValueDecodeError
from redo_lib.values.text import TWIN_CHARSET_NAMES, charset_name, decode_text, encode_text

# (charset, hex bytes, text); both directions hold for every row.
EXACT = [
    pytest.param("AL32UTF8", "4a 6f 72 64 61 6e", "Jordan", id="seed000-first-name-Jordan"),
    pytest.param("AL32UTF8", "53 68 65 72 77 6f 6f 64", "Sherwood", id="seed000-last-name-Sherwood"),
    pytest.param("AL32UTF8", "4d", "M", id="seed000-gender-M"),
    pytest.param("AL32UTF8", "4d 65 64 69 61 20 53 74 75 64 69 65 73", "Media Studies", id="seed000-course"),
    pytest.param("AL32UTF8", "4f 57 4e 45 52 31", "OWNER1", id="seed000-owner"),
    pytest.param(1, "54 41 42 4c 45", "TABLE", id="seed000-us7ascii-by-id"),
    pytest.param("US7ASCII", "41 42 20 20", "AB  ", id="char-blank-padding-kept"),
    pytest.param("WE8ISO8859P1", "63 61 66 e9", "café", id="latin1"),
    pytest.param(31, "ff", "ÿ", id="latin1-by-id"),
    pytest.param("WE8ISO8859P15", "a4", "€", id="latin9-euro"),
    pytest.param("EE8MSWIN1250", "8a 9a", "Šš", id="cp1250"),
    pytest.param("CL8MSWIN1251", "cf f0 e8 e2 e5 f2", "Привет", id="cp1251"),
    pytest.param("WE8MSWIN1252", "80 93 94", "€“”", id="cp1252"),
    pytest.param("AL32UTF8", "c3 a9 e2 82 ac", "é€", id="utf8-2-and-3-byte"),
    pytest.param("AL32UTF8", "f0 9f 98 80", "😀", id="utf8-4-byte"),
    pytest.param("UTF8", "eb 82 98", "나", id="cesu8-bmp"),
    pytest.param("UTF8", "ed a0 bd ed b8 80", "😀", id="cesu8-surrogate-pair"),
    pytest.param(871, "41 ed a0 b4 ed b4 9e 42", "A𝄞B", id="cesu8-pair-between-ascii"),
    pytest.param("AL16UTF16", "00 4a 00 6f", "Jo", id="utf16-big-endian"),
    pytest.param(2000, "d8 3d de 00", "😀", id="utf16-surrogate-pair"),
    pytest.param("AL32UTF8", "", "", id="empty"),
]


@pytest.mark.parametrize(("charset", "hex_bytes", "text"), EXACT)
def test_decode_text(charset: str | int, hex_bytes: str, text: str) -> None:
    assert decode_text(bytes.fromhex(hex_bytes), charset) == text


@pytest.mark.parametrize(("charset", "hex_bytes", "text"), EXACT)
def test_encode_text(charset: str | int, hex_bytes: str, text: str) -> None:
    assert encode_text(text, charset) == bytes.fromhex(hex_bytes)


@pytest.mark.parametrize(
    ("charset", "hex_bytes", "text"),
    [
        pytest.param("al32utf8", "4a", "J", id="name-case-insensitive"),
        pytest.param("UTF8", "f0 9f 98 80", "😀", id="cesu8-accepts-4-byte-utf8"),
        pytest.param("AL16UTF16", "fe ff 00 41", "\ufeffA", id="utf16-bom-is-a-character"),
    ],
)
def test_decode_text_lenient_forms(charset: str | int, hex_bytes: str, text: str) -> None:
    assert decode_text(bytes.fromhex(hex_bytes), charset) == text


@pytest.mark.parametrize(
    ("charset", "hex_bytes"),
    [
        pytest.param("US7ASCII", "c3 a9", id="ascii-high-byte"),
        pytest.param("AL32UTF8", "ff", id="utf8-invalid-byte"),
        pytest.param("AL32UTF8", "c3", id="utf8-truncated"),
        pytest.param("AL32UTF8", "ed a0 bd ed b8 80", id="utf8-rejects-cesu-pair"),
        pytest.param("UTF8", "ed a0 bd", id="cesu8-lone-high-surrogate"),
        pytest.param("UTF8", "ed b8 80 ed a0 bd", id="cesu8-pair-in-wrong-order"),
        pytest.param("UTF8", "c0 80", id="cesu8-overlong-nul"),
        pytest.param("AL16UTF16", "00 41 00", id="utf16-odd-length"),
        pytest.param("AL16UTF16", "dc 00", id="utf16-lone-low-surrogate"),
        pytest.param("WE8MSWIN1252", "81", id="cp1252-undefined-byte"),
    ],
)
def test_decode_text_rejects_invalid_bytes(charset: str, hex_bytes: str) -> None:
    data = bytes.fromhex(hex_bytes)
    with pytest.raises(ValueDecodeError) as info:
        decode_text(data, charset)
    assert info.value.details["charset"] == charset
    assert info.value.details["hex"] == data.hex()
    assert charset in str(info.value)


@pytest.mark.parametrize(
    ("charset", "text"),
    [
        pytest.param("US7ASCII", "é", id="ascii-cannot-hold-e-acute"),
        pytest.param("WE8ISO8859P1", "€", id="latin1-cannot-hold-euro"),
        pytest.param("UTF8", "\ud800", id="cesu8-lone-surrogate-in-str"),
        pytest.param("AL32UTF8", "\udfff", id="utf8-lone-surrogate-in-str"),
    ],
)
def test_encode_text_rejects_unencodable(charset: str, text: str) -> None:
    with pytest.raises(ValueDecodeError):
        encode_text(text, charset)


@pytest.mark.parametrize(
    "charset",
    [pytest.param("KO16MSWIN949", id="unknown-name"), pytest.param(999, id="unknown-id")],
)
def test_unknown_charset_is_a_value_error(charset: str | int) -> None:
    with pytest.raises(ValueDecodeError):
        decode_text(b"A", charset)
    with pytest.raises(ValueDecodeError):
        encode_text("A", charset)


@pytest.mark.parametrize(
    ("charset_id", "name"),
    [
        pytest.param(1, "US7ASCII", id="1"),
        pytest.param(31, "WE8ISO8859P1", id="31"),
        pytest.param(46, "WE8ISO8859P15", id="46"),
        pytest.param(170, "EE8MSWIN1250", id="170"),
        pytest.param(171, "CL8MSWIN1251", id="171"),
        pytest.param(178, "WE8MSWIN1252", id="178"),
        pytest.param(871, "UTF8", id="871"),
        pytest.param(873, "AL32UTF8", id="873"),
        pytest.param(2000, "AL16UTF16", id="2000"),
    ],
)
def test_charset_name(charset_id: int, name: str) -> None:
    assert charset_name(charset_id) == name
    assert TWIN_CHARSET_NAMES[charset_id] == name


def test_charset_name_unknown_id() -> None:
    with pytest.raises(ValueDecodeError):
        charset_name(12345)


# Any text without lone surrogates (those cannot be stored in any Unicode charset).
unicode_text = st.text(st.characters(exclude_categories=("Cs",)))


@given(unicode_text)
def test_cesu8_round_trip(text: str) -> None:
    encoded = encode_text(text, "UTF8")
    assert decode_text(encoded, "UTF8") == text
    assert not any(b >= 0xF0 for b in encoded)  # never a 4-byte UTF-8 sequence
    assert len(encoded) == len(text.encode("utf-8")) + 2 * sum(ord(c) > 0xFFFF for c in text)


@given(unicode_text, st.sampled_from(["AL32UTF8", "AL16UTF16", 873, 2000]))
def test_unicode_charsets_round_trip(text: str, charset: str | int) -> None:
    assert decode_text(encode_text(text, charset), charset) == text


@given(st.binary())
def test_latin1_decodes_every_byte_and_round_trips(data: bytes) -> None:
    assert encode_text(decode_text(data, "WE8ISO8859P1"), "WE8ISO8859P1") == data


@given(st.binary(max_size=64), st.sampled_from(sorted(TWIN_CHARSET_NAMES)))
def test_decode_text_raises_only_value_decode_error(data: bytes, charset_id: int) -> None:
    try:
        decode_text(data, charset_id)
    except ValueDecodeError:
        pass
