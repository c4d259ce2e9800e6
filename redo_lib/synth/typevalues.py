"""Values of the column types a scenario declares beside the basic ones (``synth.columns``):
BOOLEAN, BINARY_FLOAT, FLOAT(b), TIMESTAMP(n), INTERVAL YEAR(p) TO MONTH, INTERVAL DAY(p) TO SECOND(s).

The normalisers take what YAML or Python hands us and give the value as Oracle stores it: a
TIMESTAMP(n) or an INTERVAL DAY TO SECOND(s) rounded (half up) to its ``n`` / ``s`` fractional digits
(a carry moves the second, the day, the year), a BINARY_FLOAT rounded to the nearest 32-bit float;
``float_digits`` is FLOAT(b)'s count of significant decimal digits (``columns.normalize`` rounds to
it). A value the type cannot hold raises ``ScenarioError`` with Oracle's error: a year or day count
wider than the interval's leading precision (ORA-01873), a BOOLEAN text Oracle does not read
(ORA-61800 in 23ai), a BINARY_FLOAT out of range (ORA-01426).

``YearMonth`` / ``DaySecond`` print the trail text (trail-contract rule 16) in the forms the values
codecs give (``redo_lib.values.datetimes``): ``+02-03``, ``-01 02:03:04.500000000`` (nine digits,
none when the fraction is 0).
"""

from __future__ import annotations

import datetime as dt
import decimal
import math
import re
import struct
from dataclasses import dataclass
from typing import Any, final

from redo_lib.errors import ScenarioError

__all__ = [
    "DaySecond",
    "YearMonth",
    "float_digits",
    "normalize_binary",
    "normalize_boolean",
    "normalize_day_second",
    "normalize_year_month",
    "round_fraction",
    "round_moment",
]

_NANOS = 1_000_000_000
_F32 = struct.Struct(">f")
_TRUE = frozenset({"TRUE", "T", "YES", "Y", "ON", "1"})
_FALSE = frozenset({"FALSE", "F", "NO", "N", "OFF", "0"})
_YM_RE = re.compile(r"^\s*([+-])?\s*(\d+)-(\d{1,2})\s*$")
_DS_RE = re.compile(r"^\s*([+-])?\s*(\d+)\s+(\d{1,2}):(\d{1,2}):(\d{1,2})(?:\.(\d{1,9}))?\s*$")


@final
@dataclass(frozen=True, slots=True, order=True)
class YearMonth:
    """An INTERVAL YEAR TO MONTH value: its signed length in months."""

    months: int

    def __str__(self) -> str:
        years, months = divmod(abs(self.months), 12)
        return f"{'-' if self.months < 0 else '+'}{years:02d}-{months:02d}"


@final
@dataclass(frozen=True, slots=True, order=True)
class DaySecond:
    """An INTERVAL DAY TO SECOND value: its signed length in nanoseconds."""

    nanos: int

    def parts(self) -> tuple[int, int, int, int, int]:
        """(days, hours, minutes, seconds, nanoseconds) of the absolute value."""
        rest, frac = divmod(abs(self.nanos), _NANOS)
        rest, seconds = divmod(rest, 60)
        rest, minutes = divmod(rest, 60)
        days, hours = divmod(rest, 24)
        return days, hours, minutes, seconds, frac

    def __str__(self) -> str:
        days, hours, minutes, seconds, frac = self.parts()
        text = f"{'-' if self.nanos < 0 else '+'}{days:02d} {hours:02d}:{minutes:02d}:{seconds:02d}"
        return f"{text}.{frac:09d}" if frac else text


def round_fraction(nanos: int, digits: int) -> int:
    """``nanos`` rounded half up to ``digits`` fractional digits of a second (may reach 10^9)."""
    unit = 10 ** (9 - digits)
    return (nanos + unit // 2) // unit * unit if nanos >= 0 else -round_fraction(-nanos, digits)


def round_moment(moment: dt.datetime, nanos: int, digits: int, what: str) -> tuple[dt.datetime, int]:
    """A TIMESTAMP(``digits``) value as Oracle stores ``moment`` + ``nanos``: the fraction rounded,
    a carry into the next second (minute, day, ...)."""
    rounded = round_fraction(nanos, digits)
    if rounded < _NANOS:
        return moment, rounded
    try:
        return moment + dt.timedelta(seconds=1), 0
    except OverflowError:
        raise ScenarioError(f"{what}: rounding to TIMESTAMP({digits}) leaves year 9999") from None


def float_digits(binary_precision: int) -> int:
    """Decimal significant digits of FLOAT(b): ``ceil(b * log10(2))`` (FLOAT(126): 38)."""
    return math.ceil(binary_precision * math.log10(2))


def normalize_boolean(value: Any, what: str) -> bool:
    """``true`` / ``false`` / 1 / 0 / the texts Oracle 23ai reads as a BOOLEAN (TRUE, YES, ON, ...)."""
    if isinstance(value, bool):
        return value
    if isinstance(value, int) and value in (0, 1):
        return bool(value)
    if isinstance(value, str) and value.strip().upper() in _TRUE | _FALSE:
        return value.strip().upper() in _TRUE
    raise ScenarioError(f"{what}: {value!r} is not a BOOLEAN (ORA-61800)")


def normalize_binary(value: Any, name: str, what: str) -> float:
    """A number (or ``Inf`` / ``-Inf`` / ``Nan``) as a BINARY_DOUBLE, or for ``name`` BINARY_FLOAT
    rounded to the nearest 32-bit float (beyond its range: ORA-01426)."""
    specials = {"inf": math.inf, "-inf": -math.inf, "nan": math.nan}
    if isinstance(value, str) and value.strip().lower() in specials:
        return specials[value.strip().lower()]
    if isinstance(value, bool) or not isinstance(value, int | float | decimal.Decimal | str):
        raise ScenarioError(f"{what}: cannot use {value!r} as {name}")
    try:
        number = float(value)
        if name == "BINARY_FLOAT":
            number = _F32.unpack(_F32.pack(number))[0]
    except ValueError:
        raise ScenarioError(f"{what}: {value!r} is not a {name}") from None
    except (OverflowError, struct.error):
        raise ScenarioError(f"{what}: {value!r} overflows a {name} (ORA-01426)") from None
    return number


def normalize_year_month(value: Any, precision: int, what: str) -> YearMonth:
    """``"+02-03"`` / ``"-1-6"`` / ``{years: 2, months: 3}`` -> YearMonth; the years must fit the
    leading precision."""
    if isinstance(value, YearMonth):
        months = value.months
    elif isinstance(value, dict) and set(value) <= {"years", "months"}:
        months = _int(value.get("years", 0), what) * 12 + _int(value.get("months", 0), what)
    elif isinstance(value, str) and (m := _YM_RE.match(value)):
        if int(m[3]) > 11:
            raise ScenarioError(f"{what}: month {m[3]} of {value!r} is not 0..11 (ORA-01843)")
        months = (int(m[2]) * 12 + int(m[3])) * (-1 if m[1] == "-" else 1)
    else:
        raise ScenarioError(
            f"{what}: {value!r} is not an INTERVAL YEAR TO MONTH ('+YY-MM' or {{years, months}})"
        )
    if abs(months) // 12 >= 10**precision:
        raise ScenarioError(f"{what}: {value!r} needs more than {precision} year digits (ORA-01873)")
    return YearMonth(months)


def normalize_day_second(value: Any, precision: int, scale: int, what: str) -> DaySecond:
    """``"+01 02:03:04.5"`` / ``{days, hours, minutes, seconds, nanos}`` -> DaySecond, the fraction
    rounded to ``scale`` digits; the days must fit the leading precision."""
    if isinstance(value, DaySecond):
        nanos = value.nanos
    elif isinstance(value, dict) and set(value) <= {"days", "hours", "minutes", "seconds", "nanos"}:
        d, h, mi, s, n = (
            _int(value.get(k, 0), what) for k in ("days", "hours", "minutes", "seconds", "nanos")
        )
        nanos = (((d * 24 + h) * 60 + mi) * 60 + s) * _NANOS + n
    elif isinstance(value, str) and (m := _DS_RE.match(value)):
        hours, minutes, seconds = int(m[3]), int(m[4]), int(m[5])
        if hours > 23 or minutes > 59 or seconds > 59:
            raise ScenarioError(
                f"{what}: {value!r} has a field out of range (ORA-01850 / ORA-01851 / ORA-01852)"
            )
        whole = ((int(m[2]) * 24 + hours) * 60 + minutes) * 60 + seconds
        nanos = (whole * _NANOS + int((m[6] or "").ljust(9, "0"))) * (-1 if m[1] == "-" else 1)
    else:
        raise ScenarioError(
            f"{what}: {value!r} is not an INTERVAL DAY TO SECOND ('+DD HH:MM:SS.f' or {{days, hours, ...}})"
        )
    result = DaySecond(round_fraction(nanos, scale))
    if result.parts()[0] >= 10**precision:
        raise ScenarioError(f"{what}: {value!r} needs more than {precision} day digits (ORA-01873)")
    return result


def _int(value: Any, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise ScenarioError(f"{what}: interval fields are whole numbers, not {value!r}")
    return value
