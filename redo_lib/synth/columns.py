"""Column types of synth scenarios: parse ``VARCHAR2(30)``, normalise SQL values, encode, render.

A scenario value goes through three steps:

* :func:`normalize` turns what YAML or Python hands us (``{repeat: "ab", times: 600}`` builds a long
  VARCHAR2 / CHAR / RAW / LONG / LONG RAW / LOB value) into the one canonical Python value per type,
  as Oracle stores it (``Decimal`` for NUMBER / INTEGER / DECIMAL / FLOAT(b), rounded to the declared
  scale or digits, ``str`` for VARCHAR2 / CHAR / NVARCHAR2 / NCHAR with CHAR blank-padded to its
  bytes and NCHAR to its characters, ``str`` for LONG (any length), ``datetime`` for DATE,
  :class:`Timestamp` for TIMESTAMP (TIMESTAMP(n): rounded to n digits; a plain TIMESTAMP is
  TIMESTAMP(6)), ``bytes`` for RAW and LONG RAW, the 18-character ROWID text of a ROWID or a
  physical UROWID, ``float`` for BINARY_DOUBLE / BINARY_FLOAT (a 32-bit one), ``bool`` for BOOLEAN,
  ``typevalues.YearMonth`` / ``DaySecond`` for the intervals) or ``None`` for SQL NULL. As in
  Oracle, the empty string and empty RAW are NULL.
* :func:`encode` gives the column bytes of redo-format §7 (through ``redo_lib.values``; text in the
  column's character set, ``ColumnType.charset``: the scenario's database set, the national set
  for NCLOB, through ``synth.charsets``);
* :func:`render` gives the trail text of the expected trail (trail-contract rule 16), computed from
  the SQL value itself, never from the bytes: NUMBER exact decimal (``1011``, ``-0.5``, ``12.5``),
  VARCHAR2 as is, CHAR blank-padded, DATE ``YYYY-MM-DDTHH:MM:SS``, TIMESTAMP the same plus
  ``.fffffffff`` (nine digits) when the nanoseconds are not zero, RAW and LONG RAW upper-case hex,
  LONG as is, ROWID and UROWID their ROWID text, BINARY_DOUBLE ``repr`` (``Inf``, ``-Inf``, ``Nan``
  for the specials), BINARY_FLOAT the shortest text of its 32-bit float, BOOLEAN ``TRUE`` / ``FALSE``,
  intervals ``+02-03`` / ``+01 02:03:04.500000000`` (docs/generator.md, "Column types").

Bad values raise ``ScenarioError``.
"""

from __future__ import annotations

import datetime as dt
import decimal
import math
import re
from dataclasses import dataclass
from typing import Any, final

from redo_lib.errors import RedoError, ScenarioError
from redo_lib.synth.charsets import encode_text
from redo_lib.synth.typevalues import (
    DaySecond,
    YearMonth,
    float_digits,
    normalize_binary,
    normalize_boolean,
    normalize_day_second,
    normalize_year_month,
    round_moment,
)
from redo_lib.values.codecs import encode_value, lob_charset
from redo_lib.values.datetimes import encode_interval_ds, encode_interval_ym, encode_timestamp
from redo_lib.values.floats import render_binary_float
from redo_lib.values.rowids import RowId, parse_rowid

__all__ = [
    "LOB_TYPES",
    "LONG_TYPES",
    "TYPE_CODES",
    "XML_INDICATOR",
    "ColumnType",
    "Timestamp",
    "encode",
    "normalize",
    "parse_type",
    "render",
    "type_text",
]

#: Oracle internal type codes of the supported column types (redo-format §7).
TYPE_CODES = {
    "NUMBER": 2,
    "VARCHAR2": 1,
    "CHAR": 96,
    "DATE": 12,
    "TIMESTAMP": 180,
    "RAW": 23,
    "BINARY_DOUBLE": 101,
    "CLOB": 112,
    "NCLOB": 112,  # charset form 2
    "BLOB": 113,
    "NVARCHAR2": 1,  # charset form 2
    "NCHAR": 96,  # charset form 2
    "FLOAT": 2,  # NUMBER with a binary precision (COL$.SCALE -127)
    "BINARY_FLOAT": 100,
    "BOOLEAN": 252,  # 23ai
    "INTERVAL YEAR TO MONTH": 182,
    "INTERVAL DAY TO SECOND": 183,
    "LONG": 8,  # text in the database set, inline in the row (at most one LONG / LONG RAW a table)
    "LONG RAW": 24,
    "ROWID": 69,  # 10 bytes: data object, DBA, slot (redo_lib/values/rowids.py)
    "UROWID": 208,
    "XMLTYPE": 58,  # binary XML: its document in a hidden BLOB after it (scenario.with_xml_storage)
}
#: ANSI names Oracle declares as NUMBER: INTEGER / INT / SMALLINT are NUMBER(*,0), DECIMAL / DEC /
#: NUMERIC(p,s) NUMBER(p,s) (scale 0, no precision when not written), as dictionary/ddl.py reads them
_NUMBER_ALIASES = frozenset({"INTEGER", "INT", "SMALLINT", "DECIMAL", "DEC", "NUMERIC"})
LOB_TYPES = frozenset({"CLOB", "NCLOB", "BLOB"})
#: a table holds at most one column of these (ORA-01754); never a key column (ORA-02269)
LONG_TYPES = frozenset({"LONG", "LONG RAW"})
#: an XMLTYPE column's own segment column, when the document is not NULL (docs/generator.md,
#: "XMLTYPE columns"): a one-byte indicator; the document is the hidden BLOB after it
XML_INDICATOR = b"\x01"
#: the types a ``{repeat: text, times: n}`` value builds
_REPEATABLE = frozenset({"VARCHAR2", "CHAR", "RAW"}) | LOB_TYPES | LONG_TYPES
_DEFAULT_LENGTH = {
    "NUMBER": 22,
    "VARCHAR2": 4000,
    "CHAR": 1,
    "DATE": 7,
    "TIMESTAMP": 11,
    "RAW": 2000,
    "BINARY_DOUBLE": 8,
    "CLOB": 4000,  # the locator's size in the dictionary, as DBA_TAB_COLS shows LOBs
    "NCLOB": 4000,
    "BLOB": 4000,
    "FLOAT": 22,
    "BINARY_FLOAT": 4,
    "BOOLEAN": 1,
    "INTERVAL YEAR TO MONTH": 5,
    "INTERVAL DAY TO SECOND": 11,
    "LONG": 0,  # DBA_TAB_COLS.DATA_LENGTH of LONG / LONG RAW
    "LONG RAW": 0,
    "ROWID": 10,
    "UROWID": 4000,
    "XMLTYPE": 2000,  # DBA_TAB_COLS.DATA_LENGTH of an XMLTYPE column
}
_MAX_LENGTH = {"VARCHAR2": 4000, "CHAR": 2000, "RAW": 2000, "NVARCHAR2": 4000, "NCHAR": 2000, "UROWID": 4000}
_TYPE_RE = re.compile(r"^\s*([A-Z_0-9]+)\s*(?:\(\s*(\d+|\*)\s*(?:,\s*(-?\d+)\s*)?\))?\s*$")
_INTERVAL_RE = re.compile(
    r"^\s*INTERVAL\s+(YEAR|DAY)\s*(?:\(\s*(\d)\s*\))?\s+TO\s+(MONTH|SECOND)\s*(?:\(\s*(\d)\s*\))?\s*$"
)
_CHARSET = "AL32UTF8"
_NATIONAL = "AL16UTF16"
_TEXT_TYPES = frozenset({"VARCHAR2", "CHAR", "CLOB", "NCLOB", "NVARCHAR2", "NCHAR", "LONG"})
_NATIONAL_TYPES = frozenset({"NCLOB", "NVARCHAR2", "NCHAR"})
#: bytes a character of the national set takes at most (NVARCHAR2(n) / NCHAR(n) are n characters)
_NATIONAL_WIDTH = {"AL16UTF16": 2, "UTF8": 3}


@final
@dataclass(frozen=True, slots=True, order=True)
class Timestamp:
    """A TIMESTAMP value: wall-clock seconds plus nanoseconds (``datetime`` holds only micros)."""

    moment: dt.datetime
    nanos: int = 0

    def __str__(self) -> str:
        text = self.moment.strftime("%Y-%m-%dT%H:%M:%S")
        return f"{text}.{self.nanos:09d}" if self.nanos else text


@final
@dataclass(frozen=True, slots=True)
class ColumnType:
    """A declared column type: ``name`` (NUMBER, VARCHAR2, ... as DBA_TAB_COLS's DATA_TYPE names it),
    ``length`` in bytes, ``precision`` / ``scale`` as COL$ holds them: NUMBER's, FLOAT's binary
    precision, TIMESTAMP(n)'s n as scale (a plain ``TIMESTAMP`` is Oracle's TIMESTAMP(6)), an
    INTERVAL's leading precision and (DAY TO SECOND) fractional digits."""

    name: str
    length: int
    precision: int | None = None
    scale: int | None = None
    db_charset: str = _CHARSET  # the database's (charset form 1) and national (form 2) sets
    national_charset: str = _NATIONAL

    @property
    def code(self) -> int:
        return TYPE_CODES[self.name]

    @property
    def charset_form(self) -> int:
        """``COL$.CHARSETFORM``: 1 text in the database character set, 2 in the national one (NCLOB /
        NVARCHAR2 / NCHAR), 0 no text."""
        if self.name not in _TEXT_TYPES:
            return 0
        return 2 if self.name in _NATIONAL_TYPES else 1

    @property
    def charset(self) -> str | None:
        """The character set of the column's text (the national one for NCLOB / NVARCHAR2 / NCHAR),
        ``None`` if no text."""
        form = self.charset_form
        return None if form == 0 else self.national_charset if form == 2 else self.db_charset

    @property
    def char_length(self) -> int | None:
        """The declared length in characters (DBA_TAB_COLS CHAR_LENGTH) of a VARCHAR2 / CHAR (byte
        semantics: its bytes) or NVARCHAR2 / NCHAR (characters of the national set)."""
        if self.name in ("VARCHAR2", "CHAR"):
            return self.length
        if self.name in ("NVARCHAR2", "NCHAR"):
            return self.length // _NATIONAL_WIDTH[self.national_charset]
        return None

    def __str__(self) -> str:
        name = self.name
        if name in ("VARCHAR2", "CHAR", "RAW") or (name == "UROWID" and self.length != 4000):
            return f"{name}({self.length})"
        if name in ("NVARCHAR2", "NCHAR"):
            return f"{name}({self.char_length})"
        if name == "NUMBER" and self.precision is not None:
            return f"NUMBER({self.precision},{self.scale or 0})"
        if name == "NUMBER" and self.scale is not None:
            return f"NUMBER(*,{self.scale})"
        if name == "FLOAT":
            return f"FLOAT({self.precision})"
        if name == "TIMESTAMP" and self.scale is not None:
            return f"TIMESTAMP({self.scale})"
        if name == "INTERVAL YEAR TO MONTH":
            return f"INTERVAL YEAR({self.precision}) TO MONTH"
        if name == "INTERVAL DAY TO SECOND":
            return f"INTERVAL DAY({self.precision}) TO SECOND({self.scale})"
        return name


def parse_type(text: str, db_charset: str = _CHARSET, national_charset: str = _NATIONAL) -> ColumnType:
    """``VARCHAR2(30)`` / ``CHAR(5)`` / ``NVARCHAR2(30)`` / ``NCHAR(5)`` / ``NUMBER`` / ``NUMBER(10,2)``
    / ``INTEGER`` / ``DECIMAL(9,2)`` / ``FLOAT(b)`` / ``DATE`` / ``TIMESTAMP`` / ``TIMESTAMP(n)`` /
    ``RAW(16)`` / ``BINARY_FLOAT`` / ``BINARY_DOUBLE`` / ``BOOLEAN`` / ``INTERVAL YEAR(p) TO MONTH`` /
    ``INTERVAL DAY(p) TO SECOND(s)`` / LOBs / ``LONG`` / ``LONG RAW`` / ``ROWID`` / ``UROWID(n)`` ->
    ColumnType, in a database of those character sets, with the length, precision and scale Oracle's
    dictionary gives the declaration. Anything else raises ``ScenarioError``."""
    # ColumnType's keywords
    sets: dict[str, Any] = {"db_charset": db_charset, "national_charset": national_charset}
    upper = " ".join(str(text).upper().split())
    if upper == "LONG RAW":
        return ColumnType(upper, _DEFAULT_LENGTH[upper], **sets)
    interval = _INTERVAL_RE.match(upper)
    if interval:
        return _interval_type(text, interval, sets)
    match = _TYPE_RE.match(upper)
    name = match.group(1) if match else ""
    if match and name in _NUMBER_ALIASES:
        if name in ("INTEGER", "INT", "SMALLINT") and match.group(2):
            raise ScenarioError(f"column type {text!r}: {name} takes no precision")
        name, match = "NUMBER", _TYPE_RE.match(f"NUMBER({match.group(2) or '*'},{match.group(3) or 0})")
    if not match or name not in TYPE_CODES:
        raise ScenarioError(f"unsupported column type {text!r} (supported: {', '.join(TYPE_CODES)})")
    assert match is not None
    first, second = match.group(2), match.group(3)
    if name == "NUMBER":
        precision = int(first) if first and first != "*" else None
        if precision is not None and not 1 <= precision <= 38:
            raise ScenarioError(f"column type {text!r}: precision must be 1..38 (ORA-01727)")
        scale = int(second) if second else (0 if first else None)
        if scale is not None and not -84 <= scale <= 127:
            raise ScenarioError(f"column type {text!r}: scale must be -84..127 (ORA-01728)")
        return ColumnType(name, 22, precision, scale, **sets)
    if first == "*" or (second is not None) or (first and name not in (*_MAX_LENGTH, "TIMESTAMP", "FLOAT")):
        raise ScenarioError(f"column type {text!r}: unexpected length or scale")
    if name == "FLOAT":
        precision = int(first) if first else 126
        if not 1 <= precision <= 126:
            raise ScenarioError(f"column type {text!r}: FLOAT precision must be 1..126 (ORA-01724)")
        return ColumnType(name, 22, precision, None, **sets)
    if name == "TIMESTAMP":  # a plain TIMESTAMP is TIMESTAMP(6), as Oracle declares it
        digits = int(first) if first else 6
        if digits > 9:
            raise ScenarioError(
                f"column type {text!r}: fractional seconds precision must be 0..9 (ORA-30088)"
            )
        return ColumnType(name, 7 if digits == 0 else 11, None, digits, **sets)  # as COL$ of a 23ai
    if name in ("NVARCHAR2", "NCHAR"):
        width = _NATIONAL_WIDTH.get(national_charset)
        if width is None:
            raise ScenarioError(
                f"column type {text!r}: national character set {national_charset} is not AL16UTF16 or UTF8"
            )
        chars = int(first) if first else (1 if name == "NCHAR" else 0)
        if not 1 <= chars <= _MAX_LENGTH[name] // width:
            raise ScenarioError(
                f"column type {text!r}: length must be 1..{_MAX_LENGTH[name] // width} characters of {national_charset}"
            )
        return ColumnType(name, chars * width, **sets)
    if name in _MAX_LENGTH:
        length = int(first) if first else _DEFAULT_LENGTH[name]
        if not 1 <= length <= _MAX_LENGTH[name]:
            raise ScenarioError(f"column type {text!r}: length must be 1..{_MAX_LENGTH[name]}")
        return ColumnType(name, length, **sets)
    return ColumnType(name, _DEFAULT_LENGTH[name], **sets)


def _interval_type(text: str, match: re.Match[str], sets: dict[str, str]) -> ColumnType:
    unit, lead, last, frac = match.groups()
    if (unit, last) not in (("YEAR", "MONTH"), ("DAY", "SECOND")) or (frac and last == "MONTH"):
        raise ScenarioError(f"unsupported column type {text!r}: INTERVAL YEAR TO MONTH or DAY TO SECOND")
    name = f"INTERVAL {unit} TO {last}"
    precision = int(lead) if lead else 2
    scale = (int(frac) if frac else 6) if last == "SECOND" else 0
    return ColumnType(name, _DEFAULT_LENGTH[name], precision, scale, **sets)


def type_text(ctype: ColumnType) -> str:
    """The type as a DDL statement declares it: ``NUMBER(10)`` for ``NUMBER(10,0)`` (as Oracle prints
    it), else ``str(ctype)``: ``NUMBER``, ``NUMBER(12,2)``, ``VARCHAR2(40)``, ``DATE``, ..."""
    if ctype.name == "NUMBER" and ctype.precision is not None and not ctype.scale:
        return f"NUMBER({ctype.precision})"
    return str(ctype)


def _parse_moment(value: Any, what: str) -> tuple[dt.datetime, int]:
    if isinstance(value, Timestamp):
        return value.moment, value.nanos
    if isinstance(value, dt.datetime):
        return value.replace(microsecond=0, tzinfo=None), value.microsecond * 1000
    if isinstance(value, dt.date):
        return dt.datetime(value.year, value.month, value.day), 0
    if isinstance(value, str):
        text = value.strip().replace(" ", "T", 1)
        head, _, frac = text.partition(".")
        try:
            moment = dt.datetime.fromisoformat(head)
        except ValueError:
            raise ScenarioError(f"{what}: not an ISO date/time: {value!r}") from None
        if frac and not (frac.isdigit() and len(frac) <= 9):
            raise ScenarioError(f"{what}: bad fraction of seconds in {value!r}")
        return moment.replace(tzinfo=None), int(frac.ljust(9, "0")) if frac else 0
    raise ScenarioError(f"{what}: cannot use {type(value).__name__} {value!r} as a date/time")


def normalize(ctype: ColumnType, value: Any, what: str = "value") -> Any:
    """The canonical Python value of ``value`` for a column of ``ctype`` (``None`` = NULL)."""
    if value is None:
        return None
    name = ctype.name
    if isinstance(value, dict) and not name.startswith("INTERVAL"):  # intervals: {years, months}, ...
        if name in LOB_TYPES and value == {"empty": True}:
            return "" if name != "BLOB" else b""  # EMPTY_CLOB() / EMPTY_BLOB(): a LOB, not NULL
        if set(value) != {"repeat", "times"} or name not in _REPEATABLE:
            raise ScenarioError(
                f"{what}: value expressions are {{repeat: text, times: n}} for text / RAW / LONGs / LOBs and "
                "{empty: true} for LOBs"
            )
        value = str(value["repeat"]) * int(value["times"])
    if name == "XMLTYPE":  # any bytes standing for the CSX document (text: its UTF-8 bytes)
        data = value.encode("utf-8") if isinstance(value, str) else value
        return normalize(ColumnType("RAW", 1 << 40), bytes(data), what)
    if name in ("CLOB", "NCLOB"):
        if isinstance(value, bytes | bytearray) or value == "":
            return None if value == "" else _bad(what, value, name)
        return str(value)
    if name in ("BLOB", "LONG RAW"):
        return normalize(ColumnType("RAW", 1 << 40), value, what)
    if name == "LONG":
        if isinstance(value, bytes | bytearray):
            return _bad(what, value, name)
        text = str(value)
        encode_text(text, ctype.db_charset, what)  # the database set must hold it
        return text or None
    if name in ("ROWID", "UROWID"):
        return _rowid(value, what)
    if name == "BOOLEAN":
        return normalize_boolean(value, what)
    if name == "BINARY_FLOAT":
        return normalize_binary(value, name, what)
    if name == "INTERVAL YEAR TO MONTH":
        return normalize_year_month(value, ctype.precision or 2, what)
    if name == "INTERVAL DAY TO SECOND":
        return normalize_day_second(
            value, ctype.precision or 2, 6 if ctype.scale is None else ctype.scale, what
        )
    if name in ("NVARCHAR2", "NCHAR"):
        return _national_text(ctype, value, what)
    if name in ("NUMBER", "FLOAT"):
        if isinstance(value, bool):
            raise ScenarioError(f"{what}: a boolean is not a NUMBER")
        try:
            number = decimal.Decimal(repr(value) if isinstance(value, float) else str(value).strip())
        except decimal.InvalidOperation:
            raise ScenarioError(f"{what}: {value!r} is not a number") from None
        if not number.is_finite():
            raise ScenarioError(f"{what}: NUMBER cannot hold {value!r}")
        if name == "FLOAT" and not number.is_zero():  # FLOAT(b): ceil(b log10 2) significant digits
            with decimal.localcontext() as context:
                context.prec, context.rounding = float_digits(ctype.precision or 126), decimal.ROUND_HALF_UP
                number = +number
        elif ctype.scale is not None:
            with decimal.localcontext() as context:
                context.prec = 100
                number = number.quantize(
                    decimal.Decimal(1).scaleb(-ctype.scale), rounding=decimal.ROUND_HALF_UP
                )
        if len("".join(map(str, number.as_tuple().digits)).strip("0")) > 38:
            raise ScenarioError(f"{what}: {value!r} has more than 38 significant digits")
        if name == "NUMBER" and ctype.precision is not None and not number.is_zero():
            whole = number.adjusted() + 1  # digits left of the point (negative: zeros right of it)
            if whole > ctype.precision - (ctype.scale or 0):
                raise ScenarioError(f"{what}: {value!r} is too large for {ctype} (ORA-01438)")
        return number
    if name in ("VARCHAR2", "CHAR"):
        if not isinstance(value, str):
            value = str(value)
        if value == "":
            return None
        size = len(encode_text(value, ctype.db_charset, what))
        if name == "CHAR":
            value += " " * max(0, ctype.length - size)  # CHAR(n) is blank-padded to n bytes
        if size > ctype.length:
            raise ScenarioError(f"{what}: {value[:20]!r}... is longer than {ctype}")
        return value
    if name == "DATE":
        moment, _ = _parse_moment(value, what)
        _check_year(moment, what)
        return moment
    if name == "TIMESTAMP":
        moment, nanos = _parse_moment(value, what)
        _check_year(moment, what)
        if ctype.scale is not None:  # TIMESTAMP(n): the fraction rounded to n digits
            moment, nanos = round_moment(moment, nanos, ctype.scale, what)
        return Timestamp(moment, nanos)
    if name == "RAW":
        if isinstance(value, str):
            try:
                value = bytes.fromhex(value)
            except ValueError:
                raise ScenarioError(f"{what}: RAW text must be hex: {value!r}") from None
        if not isinstance(value, bytes | bytearray):
            raise ScenarioError(f"{what}: cannot use {value!r} as RAW")
        if len(value) > ctype.length:
            raise ScenarioError(f"{what}: RAW value longer than {ctype}")
        return bytes(value) or None
    return normalize_binary(value, name, what)  # BINARY_DOUBLE


def _national_text(ctype: ColumnType, value: Any, what: str) -> str | None:
    """NVARCHAR2(n) / NCHAR(n) text: at most n characters (UTF-16 code units, as AL16UTF16 and UTF8
    count a supplementary character: two), NCHAR blank-padded to n; the national set must hold it."""
    text = value if isinstance(value, str) else str(value)
    if text == "":
        return None
    encode_text(text, ctype.national_charset, what)
    chars = len(text.encode("utf-16-be", "surrogatepass")) // 2
    limit = ctype.char_length or 0
    if chars > limit:
        raise ScenarioError(f"{what}: {text[:20]!r}... is longer than {ctype} (ORA-12899)")
    return text + " " * (limit - chars) if ctype.name == "NCHAR" else text


def _rowid(value: Any, what: str) -> str | None:
    """A ROWID, or a physical UROWID, as its 18-character ROWID text (what the trail shows; the
    generator writes no logical, index-organized, UROWID); ``''`` is NULL."""
    if isinstance(value, RowId):
        return str(value)
    text = str(value).strip()
    if not text:
        return None
    try:
        return str(parse_rowid(text))
    except RedoError:
        raise ScenarioError(f"{what}: {value!r} is not an 18-character ROWID (ORA-01410)") from None


def _bad(what: str, value: Any, name: str) -> Any:
    raise ScenarioError(f"{what}: cannot use {value!r} as {name}")


def _check_year(moment: dt.datetime, what: str) -> None:
    if not 1 <= moment.year <= 9999:
        raise ScenarioError(f"{what}: year {moment.year} out of range")


def encode(ctype: ColumnType, value: Any) -> bytes:
    """Column bytes of a normalised non-NULL value (redo-format §7), through ``redo_lib.values``."""
    try:
        if ctype.name == "TIMESTAMP":
            return encode_timestamp(value.moment, nanos=value.nanos)  # 7 bytes when no fraction
        if isinstance(value, YearMonth):
            return encode_interval_ym(0, value.months)
        if isinstance(value, DaySecond):
            return encode_interval_ds(nanos=value.nanos)
        if ctype.name == "LONG RAW":
            return bytes(value)  # as RAW: the bytes themselves
        if ctype.name == "XMLTYPE":
            return XML_INDICATOR  # the document is in the hidden BLOB after the column
        if ctype.charset is not None and isinstance(value, str):
            charset = ctype.charset if ctype.code != TYPE_CODES["CLOB"] else lob_charset(ctype.charset)
            return encode_text(value, str(charset), f"{ctype} value")
        return encode_value(ctype.code, value)
    except RedoError as exc:
        raise ScenarioError(f"cannot encode {value!r} as {ctype}: {exc.message}") from exc


def render(ctype: ColumnType, value: Any) -> str | None:
    """Trail text of a normalised value (rule 16), computed from the SQL value; ``None`` for NULL."""
    if value is None:
        return None
    name = ctype.name
    if name in ("NUMBER", "FLOAT"):
        return _render_number(value)
    if name in _TEXT_TYPES or name.startswith("INTERVAL") or name in ("ROWID", "UROWID"):
        return str(value)
    if name == "BOOLEAN":
        return "TRUE" if value else "FALSE"
    if name == "BINARY_FLOAT":
        return render_binary_float(value)
    if name == "DATE":
        return str(value.strftime("%Y-%m-%dT%H:%M:%S"))  # str: value is Any
    if name == "TIMESTAMP":
        return str(value)
    if name in ("RAW", "BLOB", "LONG RAW", "XMLTYPE"):  # XMLTYPE: never in a trail (docs/generator.md)
        return bytes(value).hex().upper()
    if math.isnan(value):
        return "Nan"
    if math.isinf(value):
        return "Inf" if value > 0 else "-Inf"
    return repr(float(value))


def _render_number(value: decimal.Decimal) -> str:
    if value.is_zero():
        return "0"
    text = format(value, "f")
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    return text


def value_size(ctype: ColumnType, value: Any) -> int:
    """Bytes the value takes in a row piece: 1 for NULL, else its length plus 1 (or 3 above 250)."""
    if value is None:
        return 1
    n = len(encode(ctype, value))
    return n + (1 if n <= 250 else 3)
