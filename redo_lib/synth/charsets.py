"""The generator's character sets: text -> bytes in a scenario's database or national character set.

A scenario names them (``database: {charset: ZHS16GBK, national_charset: AL16UTF16}``); the list of
sets is the core's (``redo_lib.values.charset_names``), and each is written here with the Python
codec of the same standard. A value the set cannot hold is refused with ``ScenarioError`` naming
the value and the set, as Oracle's conversion would replace it (docs/generator.md).

Where Python's codec and Oracle's set differ (docs/charsets.md), the generator stays on the side
both agree on: :data:`DISPUTED` lists the bytes the two read differently, and the characters
Python's codec writes there are refused like the ones the set cannot hold.
"""

from __future__ import annotations

import contextlib
import functools
import random

from redo_lib.errors import ScenarioError
from redo_lib.values.text import PYTHON_CODECS as TWIN_CODECS
from redo_lib.values.text import encode_text as _encode_twin

__all__ = [
    "DB_CHARSETS",
    "DISPUTED",
    "NATIONAL_CHARSETS",
    "PYTHON_CODECS",
    "SAMPLES",
    "SEQUENCES",
    "alphabet",
    "avoid",
    "draw_charsets",
    "encode_text",
    "holds",
]

#: Oracle name -> the Python codec that writes it: the values twin's sets (``values.text``), UTF8
#: (CESU-8, the twin's own encoder) and the others
PYTHON_CODECS: dict[str, str] = {
    **TWIN_CODECS,
    "UTF8": "cesu-8",
    "AL16UTF16LE": "utf-16-le",
    "EE8ISO8859P2": "iso8859_2",
    "SE8ISO8859P3": "iso8859_3",
    "NEE8ISO8859P4": "iso8859_4",
    "CL8ISO8859P5": "iso8859_5",
    "AR8ISO8859P6": "iso8859_6",
    "EL8ISO8859P7": "iso8859_7",
    "IW8ISO8859P8": "iso8859_8",
    "WE8ISO8859P9": "iso8859_9",
    "NE8ISO8859P10": "iso8859_10",
    "BLT8ISO8859P13": "iso8859_13",
    "CEL8ISO8859P14": "iso8859_14",
    "TH8TISASCII": "cp874",
    "VN8MSWIN1258": "cp1258",
    "CL8KOI8U": "koi8_u",
    "RU8PC866": "cp866",
    "EL8MSWIN1253": "cp1253",
    "IW8MSWIN1255": "cp1255",
    "TR8MSWIN1254": "cp1254",
    "BLT8MSWIN1257": "cp1257",
    "CL8KOI8R": "koi8_r",
    "AR8MSWIN1256": "cp1256",
    "JA16EUC": "euc_jp",
    "JA16SJIS": "cp932",
    "JA16EUCTILDE": "euc_jp",
    "JA16SJISTILDE": "cp932",
    "KO16KSC5601": "euc_kr",
    "KO16MSWIN949": "cp949",
    "ZHS16CGB231280": "gb2312",
    "ZHS16GBK": "gbk",
    "ZHS32GB18030": "gb18030",
    "ZHT16BIG5": "big5",
    "ZHT16MSWIN950": "cp950",
    "ZHT16HKSCS": "big5hkscs",
    "ZHT16HKSCS31": "big5hkscs",
}

#: the national character sets Oracle allows (NLS_NCHAR_CHARACTERSET)
NATIONAL_CHARSETS = ("AL16UTF16", "UTF8")


def _eten() -> tuple[bytes, ...]:
    """Big5 0xC6A1-0xC7FE: ETEN's extension, read one way by Python's tables, another by WHATWG's."""
    trails = (*range(0x40, 0x7F), *range(0xA1, 0xFF))
    return tuple(bytes((0xC6, t)) for t in range(0xA1, 0xFF)) + tuple(bytes((0xC7, t)) for t in trails)


def _codes(text: str) -> tuple[bytes, ...]:
    """Two-byte codes written as hex: ``"a145 a14e"`` -> ``(b"\\xa1\\x45", b"\\xa1\\x4e")``."""
    data = bytes.fromhex(text)
    return tuple(data[i : i + 2] for i in range(0, len(data), 2))


_BIG5_SYMBOLS = _codes("a145 a14e a1c2 a1e3 a1f2 a1f3 a241 a242 a244 a246 a247")
_JIS_SYMBOLS = _codes("a1c2 a1dd a1f1 a1f2 a2cc")
_GB18030_2000 = _codes(
    "a3a0 a6d9 a6da a6db a6dc a6dd a6de a6df a6ec a6ed a6f3 a8bc fe59 fe61 fe66 fe67 fe6d fe7e fe90 fea0"
)

#: bytes whose character Python's codec and Oracle's set (as the core reads it: WHATWG's table and
#: Oracle's rules) disagree on (docs/charsets.md, "Python's codecs"): the generator refuses the
#: characters Python's codec writes there, so that every value it writes reads back as written
DISPUTED: dict[str, tuple[bytes, ...]] = {
    "JA16SJIS": (b"\x81\x60", b"\xa0", b"\xfd", b"\xfe", b"\xff"),  # WAVE DASH; cp932's PUA bytes
    "JA16SJISTILDE": (b"\xa0", b"\xfd", b"\xfe", b"\xff"),
    "JA16EUC": _JIS_SYMBOLS,  # euc_jp's JIS symbols (U+2016 ...) where WHATWG has Microsoft's
    "JA16EUCTILDE": (b"\xa1\xc1", *_JIS_SYMBOLS),
    "ZHS16CGB231280": (b"\xa1\xa4", b"\xa1\xaa"),  # gb2312's U+30FB / U+2015, GBK's U+00B7 / U+2014
    "ZHS32GB18030": _GB18030_2000,  # Python's gb18030 is the 2000 edition, WHATWG's later ones
    "ZHT16BIG5": (*_BIG5_SYMBOLS, *_eten()),  # Python's big5 symbols; ETEN's 0xC6A1..
    "ZHT16MSWIN950": _eten(),
    "ZHT16HKSCS": _BIG5_SYMBOLS,
    "ZHT16HKSCS31": _BIG5_SYMBOLS,
}


#: byte sequences Python's codec writes that Oracle's set does not read as one character: euc_kr
#: writes a Hangul syllable outside KS X 1001's 2,350 as the 8-byte jamo sequence of KS X 1001
#: annex 3 (0xA4D4 fill + three jamo), which Oracle's KO16KSC5601 reads as four characters
SEQUENCES: dict[str, bytes] = {"KO16KSC5601": b"\xa4\xd4"}


@functools.cache
def avoid(charset: str) -> frozenset[str]:
    """The characters the generator refuses in ``charset``: Python's codec's reading of
    :data:`DISPUTED`, and U+FF5E where Oracle reads WAVE DASH."""
    codec = PYTHON_CODECS[charset]
    chars = {"\uff5e", "\u301c"} if charset in ("JA16SJIS", "JA16EUC", "JA16EUCTILDE") else set()
    for data in DISPUTED.get(charset, ()):
        with contextlib.suppress(UnicodeDecodeError):
            chars.add(data.decode(codec))
    return frozenset(chars)


#: a few words each set holds, for scenarios and random text (not ASCII: the set's own letters)
SAMPLES: dict[str, tuple[str, ...]] = {
    "US7ASCII": ("plain", "ASCII ~"),
    "WE8ISO8859P1": ("café", "Señor ¿"),
    "WE8ISO8859P15": ("€ 5", "œuvre"),
    "EE8MSWIN1250": ("Łódź", "Příliš"),
    "CL8MSWIN1251": ("Привет", "Жёлтый"),
    "WE8MSWIN1252": ("€ “x”", "Ærø"),
    "UTF8": ("nǐ hǎo 中文", "emoji 😀"),
    "AL32UTF8": ("日本語", "emoji 😀"),
    "AL16UTF16": ("한국어", "𝄞 clef"),
    "AL16UTF16LE": ("Ελλάδα", "𝄞 clef"),
    "EE8ISO8859P2": ("Łódź", "Ő ű"),
    "SE8ISO8859P3": ("Ħamrun", "ĝ ŝ"),
    "NEE8ISO8859P4": ("Ķīļ", "ŗ ū"),
    "CL8ISO8859P5": ("Москва", "№ 5"),
    "AR8ISO8859P6": ("سلام", "عربي"),
    "EL8ISO8859P7": ("Αθήνα", "λόγος"),
    "IW8ISO8859P8": ("שלום", "עברית"),
    "WE8ISO8859P9": ("İstanbul", "ğüş"),
    "NE8ISO8859P10": ("Ŋŧ", "ĸ đ"),
    "BLT8ISO8859P13": ("Rīga", "žąsis"),
    "CEL8ISO8859P14": ("Ŵŷ", "ḃ ẁ"),
    "TH8TISASCII": ("ภาษาไทย", "สวัสดี"),
    "VN8MSWIN1258": ("đông ₫", "Ơn ư"),
    "CL8KOI8U": ("Київ", "ґанок"),
    "RU8PC866": ("Мир", "Ёлка"),
    "EL8MSWIN1253": ("Ελλάδα", "ώρα"),
    "IW8MSWIN1255": ("עברית", "₪ 5"),
    "TR8MSWIN1254": ("Türkçe", "ışık"),
    "BLT8MSWIN1257": ("Lietuvą", "Ēģ"),
    "CL8KOI8R": ("Привет", "ёж"),
    "AR8MSWIN1256": ("عربي", "گ پ"),
    "JA16EUC": ("日本語", "カナ"),
    "JA16SJIS": ("東京", "ｶﾅ ①"),
    "JA16EUCTILDE": ("大阪", "ひらがな"),
    "JA16SJISTILDE": ("京都", "カタカナ"),
    "KO16KSC5601": ("한국어", "서울"),
    "KO16MSWIN949": ("한글", "똠방"),
    "ZHS16CGB231280": ("中文", "北京"),
    "ZHS16GBK": ("中文", "繁體"),
    "ZHS32GB18030": ("中文", "😀 𠀀"),
    "ZHT16BIG5": ("中文", "繁體"),
    "ZHT16MSWIN950": ("臺灣", "繁體"),
    "ZHT16HKSCS": ("香港", "𥚃"),
    "ZHT16HKSCS31": ("香港", "九龍"),
}


#: the database sets a random scenario draws from (AL16UTF16 is a national set only)
DB_CHARSETS = tuple(sorted(c for c in PYTHON_CODECS if not c.startswith("AL16UTF16")))


def draw_charsets(seed: int) -> tuple[str, str]:
    """The (database, national) character sets of random seed ``seed``, from a stream of their own:
    half the seeds keep AL32UTF8."""
    rnd = random.Random(seed ^ 0xC4A5E7)
    charset = "AL32UTF8" if rnd.random() < 0.5 else rnd.choice(DB_CHARSETS)
    return charset, rnd.choice([NATIONAL_CHARSETS[0], NATIONAL_CHARSETS[0], NATIONAL_CHARSETS[1]])


@functools.cache
def alphabet(charset: str, base: str) -> str:
    """The characters random text takes in ``charset``: ``base`` itself for AL32UTF8, else the
    characters of ``base`` and of the set's samples that the set holds."""
    if charset == "AL32UTF8":
        return base
    extra = "".join(SAMPLES[charset])
    return "".join(dict.fromkeys(c for c in base + extra if holds(c, charset)))


def holds(text: str, charset: str) -> bool:
    """Whether ``charset`` holds ``text`` (and the generator writes it)."""
    try:
        encode_text(text, charset)
    except ScenarioError:
        return False
    return True


def encode_text(text: str, charset: str, what: str = "value") -> bytes:
    """``text`` in Oracle's ``charset``; a character the set cannot hold is a ``ScenarioError``."""
    codec = PYTHON_CODECS.get(charset)
    if codec is None:
        raise ScenarioError(
            f"{what}: character set {charset!r} is not one of {', '.join(sorted(PYTHON_CODECS))}"
        )
    disputed = [c for c in text if c in avoid(charset)]
    if disputed:
        raise ScenarioError(
            f"{what}: {text[:20]!r} holds {disputed[0]!r}, which Oracle's {charset} reads otherwise"
        )
    if codec == "cesu-8":
        return _encode_twin(text, "UTF8")
    try:
        data = text.encode(codec)
    except UnicodeEncodeError as exc:
        bad = exc.object[exc.start : exc.end]
        raise ScenarioError(f"{what}: {text[:20]!r} cannot be written in {charset} (no {bad!r})") from None
    if charset in SEQUENCES and SEQUENCES[charset] in data:
        raise ScenarioError(f"{what}: {text[:20]!r} cannot be written in {charset} (a syllable it lacks)")
    return data
