"""CHAR / VARCHAR2 / NCHAR / NVARCHAR2 column values (types 96, 1) <-> str (redo-format §7.2).

The bytes are in the column's character set: the database character set for charset form 1, the
national one for form 2. The character sets are the Rust core's (``crates/redo-core/src/values/
tables.rs``, 44 Oracle sets, docs/charsets.md): :func:`charset_names` and :func:`charset_name` ask
it; the core decodes every value.

:func:`decode_text` / :func:`encode_text` are the core's Python twin for the nine sets it read
before ``encoding_rs`` (its test oracle, ``tests/unit/native/test_values_differential.py``):

====  ================  ===========================================================
id    name              encoding
====  ================  ===========================================================
1     US7ASCII          ASCII (bytes above 0x7F are errors)
31    WE8ISO8859P1      ISO-8859-1
46    WE8ISO8859P15     ISO-8859-15
170   EE8MSWIN1250      Windows-1250
171   CL8MSWIN1251      Windows-1251
178   WE8MSWIN1252      Windows-1252
871   UTF8              CESU-8: characters above U+FFFF as two 3-byte surrogates
873   AL32UTF8          UTF-8
2000  AL16UTF16         UTF-16 big-endian on every platform, surrogate pairs allowed
====  ================  ===========================================================

The single-byte and UTF-16 tables are Python's codecs, used strictly: undefined bytes (e.g. 0x81 in
Windows-1252) are errors. CESU-8 is done here: decoding also accepts a 4-byte UTF-8 sequence (it is
unambiguous), encoding always writes surrogate pairs. CHAR values keep their blank padding.

Pure functions; on bad input they raise only ``ValueDecodeError`` naming the charset.
"""

from __future__ import annotations

import functools
import types
from collections.abc import Callable, Mapping

from redo_lib.errors import ValueDecodeError

__all__ = [
    "PYTHON_CODECS",
    "TWIN_CHARSET_NAMES",
    "charset_name",
    "charset_names",
    "decode_text",
    "encode_text",
    "multibyte_charsets",
]


@functools.cache
def _core_charsets() -> tuple[tuple[int, str, bool], ...]:
    from redo_lib.native import native

    return tuple(native.charsets())


def charset_names() -> Mapping[int, str]:
    """Oracle character set id -> name, for every set the core decodes (``{873: "AL32UTF8", ...}``)."""
    return types.MappingProxyType({cid: name for cid, name, _ in _core_charsets()})


@functools.cache
def multibyte_charsets() -> frozenset[str | int]:
    """The names and ids of the core's varying-width multi-byte sets (CLOB data in AL16UTF16)."""
    return frozenset(x for cid, name, multi in _core_charsets() if multi for x in (cid, name))


#: Oracle character set id -> name, for the nine sets the Python twin decodes.
TWIN_CHARSET_NAMES: Mapping[int, str] = types.MappingProxyType(
    {
        1: "US7ASCII",
        31: "WE8ISO8859P1",
        46: "WE8ISO8859P15",
        170: "EE8MSWIN1250",
        171: "CL8MSWIN1251",
        178: "WE8MSWIN1252",
        871: "UTF8",
        873: "AL32UTF8",
        2000: "AL16UTF16",
    }
)

#: the Python codec of each charset the twin reads (UTF8, CESU-8, is written by hand below)
PYTHON_CODECS: dict[str, str] = {
    "US7ASCII": "ascii",
    "WE8ISO8859P1": "latin-1",
    "WE8ISO8859P15": "iso8859_15",
    "EE8MSWIN1250": "cp1250",
    "CL8MSWIN1251": "cp1251",
    "WE8MSWIN1252": "cp1252",
    "AL32UTF8": "utf-8",
    "AL16UTF16": "utf-16-be",
}

_SUPPLEMENTARY = 0x10000


def _decode_cesu8(data: bytes) -> str:
    """CESU-8 -> str: UTF-8 where a 3-byte high surrogate and a 3-byte low surrogate form one character."""
    if b"\xed" not in data:  # every encoded surrogate (U+D800..U+DFFF) starts with 0xED
        return data.decode("utf-8")
    raw = data.decode("utf-8", "surrogatepass")
    out: list[str] = []
    i = 0
    n = len(raw)
    while i < n:
        ch = raw[i]
        code = ord(ch)
        if 0xD800 <= code <= 0xDBFF and i + 1 < n and 0xDC00 <= ord(raw[i + 1]) <= 0xDFFF:
            out.append(chr(_SUPPLEMENTARY + ((code - 0xD800) << 10) + (ord(raw[i + 1]) - 0xDC00)))
            i += 2
            continue
        if 0xD800 <= code <= 0xDFFF:
            raise UnicodeDecodeError("cesu-8", data, 0, len(data), f"unpaired surrogate U+{code:04X}")
        out.append(ch)
        i += 1
    return "".join(out)


def _encode_cesu8(text: str) -> bytes:
    """str -> CESU-8: characters above U+FFFF become two 3-byte surrogates."""
    utf8 = text.encode("utf-8")  # strict: a lone surrogate in ``text`` is an error
    if len(utf8) == len(text) or max(utf8) < 0xF0:  # no 4-byte sequence, so CESU-8 == UTF-8
        return utf8
    out = bytearray()
    for ch in text:
        code = ord(ch)
        if code < _SUPPLEMENTARY:
            out += ch.encode("utf-8")
            continue
        code -= _SUPPLEMENTARY
        for unit in (0xD800 | (code >> 10), 0xDC00 | (code & 0x3FF)):
            out += bytes((0xE0 | (unit >> 12), 0x80 | ((unit >> 6) & 0x3F), 0x80 | (unit & 0x3F)))
    return bytes(out)


def _codec_pair(name: str) -> tuple[Callable[[bytes], str], Callable[[str], bytes]]:
    if name == "UTF8":
        return _decode_cesu8, _encode_cesu8
    codec = PYTHON_CODECS[name]

    def decode(data: bytes) -> str:
        return data.decode(codec)

    def encode(text: str) -> bytes:
        return text.encode(codec)

    return decode, encode


# Both the id and the name (upper case) of each charset -> (name, decode, encode).
_CHARSETS: dict[str | int, tuple[str, Callable[[bytes], str], Callable[[str], bytes]]] = {}
for _id, _name in TWIN_CHARSET_NAMES.items():
    _entry = (_name, *_codec_pair(_name))
    _CHARSETS[_id] = _entry
    _CHARSETS[_name] = _entry
del _id, _name, _entry


def _lookup(charset: str | int) -> tuple[str, Callable[[bytes], str], Callable[[str], bytes]]:
    entry = _CHARSETS.get(charset)
    if entry is None and isinstance(charset, str):
        entry = _CHARSETS.get(charset.strip().upper())
    if entry is None:
        raise ValueDecodeError(f"unsupported character set {charset!r}", charset=charset)
    return entry


def charset_name(charset_id: int) -> str:
    """Oracle's name of a character set id the core decodes: ``873`` -> ``"AL32UTF8"``. Unknown ids
    raise ``ValueDecodeError``."""
    name = charset_names().get(charset_id)
    if name is None:
        raise ValueDecodeError(f"unsupported character set id {charset_id}", charset=charset_id)
    return name


def decode_text(data: bytes, charset: str | int) -> str:
    """Decode character column bytes in ``charset`` (Oracle name or id) to ``str``.

    ``4a 6f 72 64 61 6e`` in AL32UTF8 -> ``"Jordan"``; ``b""`` -> ``""``. Bytes that are not valid in
    the charset, or an unknown charset, raise ``ValueDecodeError`` (details: charset, hex).
    """
    name, decode, _ = _lookup(charset)
    try:
        return decode(data)
    except UnicodeDecodeError as exc:
        raise ValueDecodeError(
            f"bytes are not valid {name}: {exc.reason}", type="VARCHAR2", charset=name, hex=data.hex()
        ) from exc


def encode_text(text: str, charset: str | int) -> bytes:
    """Encode ``text`` in ``charset`` (Oracle name or id), the inverse of :func:`decode_text`.

    Characters the charset cannot hold, or an unknown charset, raise ``ValueDecodeError``.
    """
    name, _, encode = _lookup(charset)
    try:
        return encode(text)
    except UnicodeEncodeError as exc:
        raise ValueDecodeError(
            f"text cannot be encoded in {name}: {exc.reason}", type="VARCHAR2", charset=name, value=text
        ) from exc
