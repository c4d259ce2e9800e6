"""Column types of synth scenarios: parse ``VARCHAR2(30)``, normalise SQL values, encode, render.

A scenario value goes through three steps:

* :func:`normalize` turns what YAML or Python hands us (``{repeat: "ab", times: 600}`` builds a long
  VARCHAR2 / CHAR / RAW value) into the one canonical Python value per type
  (``Decimal`` for NUMBER, ``str`` for VARCHAR2 / CHAR with CHAR blank-padded to its length,
  ``datetime`` for DATE, :class:`Timestamp` for TIMESTAMP, ``bytes`` for RAW, ``float`` for
  BINARY_DOUBLE) or ``None`` for SQL NULL. As in Oracle, the empty string and empty RAW are NULL.
* :func:`encode` gives the column bytes of redo-format §7 (through ``redo_lib.values``; text in the
  column's character set, ``ColumnType.charset``: the scenario's database set, the national set
  for NCLOB, through ``synth.charsets``);
* :func:`render` gives the trail text of the expected trail (trail-contract rule 16), computed from
  the SQL value itself, never from the bytes: NUMBER exact decimal (``1011``, ``-0.5``, ``12.5``),
  VARCHAR2 as is, CHAR blank-padded, DATE ``YYYY-MM-DDTHH:MM:SS``, TIMESTAMP the same plus
  ``.fffffffff`` (nine digits) when the nanoseconds are not zero, RAW upper-case hex,
  BINARY_DOUBLE ``repr`` (``Inf``, ``-Inf``, ``Nan`` for the specials).

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
from redo_lib.values.codecs import encode_value, lob_charset
from redo_lib.values.datetimes import encode_timestamp

__all__ = [
    "LOB_TYPES",
    "TYPE_CODES",
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
}
LOB_TYPES = frozenset({"CLOB", "NCLOB", "BLOB"})
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
}
_MAX_LENGTH = {"VARCHAR2": 4000, "CHAR": 2000, "RAW": 2000}
_TYPE_RE = re.compile(r"^\s*([A-Z_0-9]+)\s*(?:\(\s*(\d+)\s*(?:,\s*(-?\d+)\s*)?\))?\s*$")
_CHARSET = "AL32UTF8"
_NATIONAL = "AL16UTF16"
_TEXT_TYPES = frozenset({"VARCHAR2", "CHAR", "CLOB", "NCLOB"})


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
    """A declared column type: ``name`` (NUMBER, VARCHAR2, ...), ``length`` in bytes, NUMBER
    precision / scale when declared."""

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
    def charset(self) -> str | None:
        """The character set of the column's text (the national one for NCLOB), ``None`` if no text."""
        if self.name not in _TEXT_TYPES:
            return None
        return self.national_charset if self.name == "NCLOB" else self.db_charset

    def __str__(self) -> str:
        if self.name in ("VARCHAR2", "CHAR", "RAW"):
            return f"{self.name}({self.length})"
        if self.name == "NUMBER" and self.precision is not None:
            return f"NUMBER({self.precision},{self.scale or 0})"
        return self.name


def parse_type(text: str, db_charset: str = _CHARSET, national_charset: str = _NATIONAL) -> ColumnType:
    """``VARCHAR2(30)`` / ``CHAR(5)`` / ``NUMBER`` / ``NUMBER(10,2)`` / ``DATE`` / ``TIMESTAMP`` /
    ``RAW(16)`` / ``BINARY_DOUBLE`` -> ColumnType, in a database of those character sets. Anything
    else raises ``ScenarioError``."""
    sets = {"db_charset": db_charset, "national_charset": national_charset}
    match = _TYPE_RE.match(str(text).upper())
    if not match or match.group(1) not in TYPE_CODES:
        raise ScenarioError(f"unsupported column type {text!r} (supported: {', '.join(TYPE_CODES)})")
    name, first, second = match.group(1), match.group(2), match.group(3)
    if name == "NUMBER":
        precision = int(first) if first else None
        return ColumnType(name, 22, precision, int(second) if second else (0 if first else None), **sets)
    if second is not None or (first and name not in _MAX_LENGTH and name != "TIMESTAMP"):
        raise ScenarioError(f"column type {text!r}: unexpected length or scale")
    if name in _MAX_LENGTH:
        length = int(first) if first else _DEFAULT_LENGTH[name]
        if not 1 <= length <= _MAX_LENGTH[name]:
            raise ScenarioError(f"column type {text!r}: length must be 1..{_MAX_LENGTH[name]}")
        return ColumnType(name, length, **sets)
    return ColumnType(name, _DEFAULT_LENGTH[name], **sets)


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
    if isinstance(value, dict):
        if name in LOB_TYPES and value == {"empty": True}:
            return "" if name != "BLOB" else b""  # EMPTY_CLOB() / EMPTY_BLOB(): a LOB, not NULL
        if set(value) != {"repeat", "times"} or name not in ("VARCHAR2", "CHAR", "RAW", *LOB_TYPES):
            raise ScenarioError(
                f"{what}: value expressions are {{repeat: text, times: n}} for text / RAW / LOBs and "
                "{empty: true} for LOBs"
            )
        value = str(value["repeat"]) * int(value["times"])
    if name in ("CLOB", "NCLOB"):
        if isinstance(value, bytes | bytearray) or value == "":
            return None if value == "" else _bad(what, value, name)
        return str(value)
    if name == "BLOB":
        return normalize(ColumnType("RAW", 1 << 40), value, what)
    if name == "NUMBER":
        if isinstance(value, bool):
            raise ScenarioError(f"{what}: a boolean is not a NUMBER")
        try:
            number = decimal.Decimal(repr(value) if isinstance(value, float) else str(value).strip())
        except decimal.InvalidOperation:
            raise ScenarioError(f"{what}: {value!r} is not a number") from None
        if not number.is_finite():
            raise ScenarioError(f"{what}: NUMBER cannot hold {value!r}")
        if ctype.scale is not None:
            with decimal.localcontext() as context:
                context.prec = 100
                number = number.quantize(
                    decimal.Decimal(1).scaleb(-ctype.scale), rounding=decimal.ROUND_HALF_UP
                )
        if len("".join(map(str, number.as_tuple().digits)).strip("0")) > 38:
            raise ScenarioError(f"{what}: {value!r} has more than 38 significant digits")
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
    # BINARY_DOUBLE
    specials = {"inf": math.inf, "-inf": -math.inf, "nan": math.nan}
    if isinstance(value, str) and value.strip().lower() in specials:
        return specials[value.strip().lower()]
    if isinstance(value, bool) or not isinstance(value, int | float | decimal.Decimal | str):
        raise ScenarioError(f"{what}: cannot use {value!r} as BINARY_DOUBLE")
    try:
        return float(value)
    except ValueError:
        raise ScenarioError(f"{what}: {value!r} is not a BINARY_DOUBLE") from None


def _bad(what: str, value: Any, name: str) -> Any:
    raise ScenarioError(f"{what}: cannot use {value!r} as {name}")


def _check_year(moment: dt.datetime, what: str) -> None:
    if not 1 <= moment.year <= 9999:
        raise ScenarioError(f"{what}: year {moment.year} out of range")


def encode(ctype: ColumnType, value: Any) -> bytes:
    """Column bytes of a normalised non-NULL value (redo-format §7), through ``redo_lib.values``."""
    try:
        if ctype.name == "TIMESTAMP":
            return encode_timestamp(value.moment, nanos=value.nanos)
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
    if name == "NUMBER":
        return _render_number(value)
    if name in ("VARCHAR2", "CHAR", "CLOB", "NCLOB"):
        return str(value)
    if name == "DATE":
        return value.strftime("%Y-%m-%dT%H:%M:%S")
    if name == "TIMESTAMP":
        return str(value)
    if name in ("RAW", "BLOB"):
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
