"""DATE, TIMESTAMP, TIMESTAMP WITH (LOCAL) TIME ZONE and INTERVAL column values, and redo time.

Encodings (redo-format §7.3-§7.7, §3.5):

* DATE (type 12), 7 bytes: ``century+100, year_in_century+100, month, day, hour+1, minute+1,
  second+1``; a first or second byte below 100 means a BC year.
* TIMESTAMP (type 180), 7 or 11 bytes: DATE plus be32 nanoseconds.
* TIMESTAMP WITH TIME ZONE (type 181), 13 bytes: date/time **in UTC**, be32 nanoseconds, then two
  zone bytes: a fixed offset (hours + 20, minutes + 60) when byte 11 is 5..36, else a region id.
* TIMESTAMP WITH LOCAL TIME ZONE (type 231), 7 or 11 bytes: a TIMESTAMP in the database time zone.
* INTERVAL YEAR TO MONTH (182), 5 bytes; INTERVAL DAY TO SECOND (183), 11 bytes (§7.7).
* Redo time (§3.5): u32 seconds since 1988-01-01 00:00:00 in a calendar of 31-day months.

One text representation, used by the trail (``decode_*``):

* DATE ``2024-01-15T10:20:30``; TIMESTAMP ``2024-01-15T10:20:30.123456789``: the nine fraction
  digits appear only when the nanoseconds are not 0, for every type here.
* BC years keep Oracle's numbering, signed and zero-padded: 4712 BC is ``-4712-01-01T00:00:00``
  (``TO_CHAR(d, 'SYYYY-MM-DD"T"HH24:MI:SS')``; there is no year 0, unlike ISO's astronomical years).
* TIMESTAMP WITH TIME ZONE: local time in the value's own offset, ``2024-01-15T15:50:30+05:30``.
  There is no region table here: a region-id value renders as its UTC time with a ``Z`` and the
  suffix ``" [TZ region <id>]"`` (id = byte11 << 8 | byte12, decimal).
* TIMESTAMP WITH LOCAL TIME ZONE: converted from the database time zone (``db_timezone``: minutes
  east of UTC, or ``"+05:30"`` / ``"UTC"``) to UTC and rendered with ``Z``.
* INTERVAL YEAR TO MONTH ``+02-03``; INTERVAL DAY TO SECOND ``+01 02:03:04.500000000``.

``*_value`` functions give ``datetime`` objects (naive for DATE / TIMESTAMP, aware for the zoned
types): nanoseconds truncated to microseconds, years 1..9999 of the proleptic Gregorian calendar only.
Oracle uses the Julian calendar before 1582-10-15; the text keeps the stored fields and checks only
their ranges (day 1..31). ``encode_*`` are the inverses for the test-data generator.
Pure functions, stdlib only; on bad input they raise only ``ValueDecodeError``.
"""

from __future__ import annotations

import datetime
import functools

from redo_lib.errors import ValueDecodeError

__all__ = [
    "decode_date",
    "decode_date_value",
    "decode_interval_ds",
    "decode_interval_ym",
    "decode_redo_time",
    "decode_timestamp",
    "decode_timestamp_ltz",
    "decode_timestamp_ltz_value",
    "decode_timestamp_tz",
    "decode_timestamp_tz_value",
    "decode_timestamp_value",
    "encode_date",
    "encode_interval_ds",
    "encode_interval_ym",
    "encode_redo_time",
    "encode_timestamp",
    "encode_timestamp_ltz",
    "encode_timestamp_tz",
]

_NANOS_PER_SECOND = 1_000_000_000
_INTERVAL_BIAS = 0x80000000
_REDO_EPOCH_YEAR = 1988
_MONTH_DAYS = (31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31)

DateFields = tuple[int, int, int, int, int, int]  # year (negative = BC), month, day, hour, minute, second


_TSTZ = "TIMESTAMP WITH TIME ZONE"
_TSLTZ = "TIMESTAMP WITH LOCAL TIME ZONE"
_IYM = "INTERVAL YEAR TO MONTH"
_IDS = "INTERVAL DAY TO SECOND"


def _error(type_name: str, message: str, data: bytes) -> ValueDecodeError:
    return ValueDecodeError(message, type=type_name, hex=data.hex())


def _check_length(data: bytes, type_name: str, size: int) -> None:
    if len(data) != size:
        raise _error(type_name, f"{type_name} must be {size} bytes, got {len(data)}", data)


# --- the 7 date bytes -------------------------------------------------------------------------------


def _date_fields(data: bytes, type_name: str) -> DateFields:
    """Bytes 0-6 of a DATE / TIMESTAMP -> (year, month, day, hour, minute, second), range-checked."""
    century, year_byte, month, day, hour, minute, second = data[:7]
    if century >= 100 and year_byte >= 100:
        year = (century - 100) * 100 + year_byte - 100
        valid_year = year_byte < 200 and 1 <= year <= 9999
    else:
        year = -((100 - century) * 100 + 100 - year_byte)
        valid_year = century <= 100 and 1 <= year_byte <= 100 and year >= -4712
    if not (
        valid_year
        and 1 <= month <= 12
        and 1 <= day <= 31
        and 1 <= hour <= 24
        and 1 <= minute <= 60
        and 1 <= second <= 60
    ):
        raise _error(type_name, f"invalid {type_name} bytes", data)
    return year, month, day, hour - 1, minute - 1, second - 1


def _nanos(data: bytes, type_name: str) -> int:
    nanos = int.from_bytes(data[7:11], "big")
    if nanos >= _NANOS_PER_SECOND:
        raise _error(type_name, f"fractional seconds out of range: {nanos}", data)
    return nanos


def _render(fields: DateFields, nanos: int) -> str:
    year, month, day, hour, minute, second = fields
    text = (
        f"{year:04d}-{month:02d}-{day:02d}T{hour:02d}:{minute:02d}:{second:02d}"
        if year > 0
        else f"-{-year:04d}-{month:02d}-{day:02d}T{hour:02d}:{minute:02d}:{second:02d}"
    )
    return f"{text}.{nanos:09d}" if nanos else text


def _to_datetime(
    fields: DateFields, nanos: int, type_name: str, data: bytes, tzinfo: datetime.tzinfo | None = None
) -> datetime.datetime:
    try:
        return datetime.datetime(*fields, nanos // 1000, tzinfo=tzinfo)
    except ValueError as exc:
        raise _error(type_name, f"{type_name} not representable as a Python datetime: {exc}", data) from exc


def _date_bytes(fields: DateFields, type_name: str) -> bytes:
    year, month, day, hour, minute, second = fields
    if 1 <= year <= 9999:
        century, year_byte = divmod(year, 100)
        head = (century + 100, year_byte + 100)
    elif -4712 <= year <= -1:
        century, year_byte = divmod(-year, 100)
        head = (100 - century, 100 - year_byte)
    else:
        raise ValueDecodeError(f"year {year} is outside Oracle's range", type=type_name)
    return bytes((*head, month, day, hour + 1, minute + 1, second + 1))


# --- Oracle's calendar, for moving a time across midnight ---------------------------------------------


def _is_leap(year: int) -> bool:
    if year < 0:  # Julian; Oracle year -1 is 1 BC, a leap year
        return (year + 1) % 4 == 0
    if year < 1583:  # Julian until 1582-10-04
        return year % 4 == 0
    return year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)


def _days_in_month(year: int, month: int) -> int:
    return 29 if month == 2 and _is_leap(year) else _MONTH_DAYS[month - 1]


def _next_day(year: int, month: int, day: int) -> tuple[int, int, int]:
    if (year, month, day) == (1582, 10, 4):  # Julian 1582-10-04 is followed by Gregorian 1582-10-15
        return year, month, 15
    if day < _days_in_month(year, month):
        return year, month, day + 1
    if month < 12:
        return year, month + 1, 1
    return (1 if year == -1 else year + 1), 1, 1  # there is no year 0


def _previous_day(year: int, month: int, day: int) -> tuple[int, int, int]:
    if (year, month, day) == (1582, 10, 15):
        return year, month, 4
    if day > 1:
        return year, month, day - 1
    if month > 1:
        return year, month - 1, _days_in_month(year, month - 1)
    year = -1 if year == 1 else year - 1
    return year, 12, 31


def _shift(fields: DateFields, minutes: int) -> DateFields:
    """Add ``minutes`` (a few days at most) to a wall time, in Oracle's Julian/Gregorian calendar."""
    year, month, day, hour, minute, second = fields
    day_shift, rest = divmod(hour * 60 + minute + minutes, 1440)
    hour, minute = divmod(rest, 60)
    for _ in range(day_shift):
        year, month, day = _next_day(year, month, day)
    for _ in range(-day_shift):
        year, month, day = _previous_day(year, month, day)
    return year, month, day, hour, minute, second


def _offset_text(minutes: int) -> str:
    sign = "-" if minutes < 0 else "+"
    hours, mins = divmod(abs(minutes), 60)
    return f"{sign}{hours:02d}:{mins:02d}"


@functools.lru_cache(maxsize=64)
def _parse_offset(zone: str | int) -> int:
    """``db_timezone`` -> minutes east of UTC. Accepts an int, ``"+05:30"``, ``"-0300"``, ``"UTC"``, ``"Z"``."""
    if isinstance(zone, int):
        minutes = zone
    else:
        text = zone.strip().upper()
        if text in ("Z", "UTC", "GMT"):
            return 0
        body = text[1:].replace(":", "")
        if text[:1] not in ("+", "-") or len(body) != 4 or not body.isdigit():
            raise ValueDecodeError(f"time zone {zone!r} is not an offset like +05:30", zone=zone)
        minutes = int(body[:2]) * 60 + int(body[2:])
        if text[0] == "-":
            minutes = -minutes
    if not -24 * 60 < minutes < 24 * 60:
        raise ValueDecodeError(f"time zone offset {zone!r} out of range", zone=zone)
    return minutes


# --- DATE / TIMESTAMP ---------------------------------------------------------------------------------


def decode_date(data: bytes) -> str:
    """DATE (7 bytes) -> ``"2024-01-15T10:20:30"`` (BC: ``"-4712-01-01T00:00:00"``)."""
    _check_length(data, "DATE", 7)
    return _render(_date_fields(data, "DATE"), 0)


def decode_date_value(data: bytes) -> datetime.datetime:
    """DATE (7 bytes) -> naive ``datetime``; BC years and invalid dates raise ``ValueDecodeError``."""
    _check_length(data, "DATE", 7)
    return _to_datetime(_date_fields(data, "DATE"), 0, "DATE", data)


def _timestamp_parts(data: bytes, type_name: str) -> tuple[DateFields, int]:
    if len(data) not in (7, 11):
        raise _error(type_name, f"{type_name} must be 7 or 11 bytes, got {len(data)}", data)
    return _date_fields(data, type_name), (_nanos(data, type_name) if len(data) == 11 else 0)


def decode_timestamp(data: bytes) -> str:
    """TIMESTAMP (7 or 11 bytes) -> ``"2024-01-15T10:20:30.123456789"`` (no fraction when it is 0)."""
    return _render(*_timestamp_parts(data, "TIMESTAMP"))


def decode_timestamp_value(data: bytes) -> datetime.datetime:
    """TIMESTAMP (7 or 11 bytes) -> naive ``datetime`` (nanoseconds truncated to microseconds)."""
    fields, nanos = _timestamp_parts(data, "TIMESTAMP")
    return _to_datetime(fields, nanos, "TIMESTAMP", data)


# --- TIMESTAMP WITH TIME ZONE -------------------------------------------------------------------------


def _timestamp_tz_parts(data: bytes) -> tuple[DateFields, int, int | None, int]:
    """-> (UTC fields, nanos, offset minutes or None for a region, region id)."""
    _check_length(data, _TSTZ, 13)
    fields = _date_fields(data, _TSTZ)
    nanos = _nanos(data, _TSTZ)
    zone_hour, zone_minute = data[11], data[12]
    if 5 <= zone_hour <= 36:
        if not 1 <= zone_minute <= 119:
            raise _error(_TSTZ, "invalid time zone minutes", data)
        return fields, nanos, (zone_hour - 20) * 60 + zone_minute - 60, 0
    return fields, nanos, None, (zone_hour << 8) | zone_minute


def decode_timestamp_tz(data: bytes) -> str:
    """TIMESTAMP WITH TIME ZONE (13 bytes) -> local time and offset, ``"2024-01-15T15:50:30+05:30"``.

    A region-id zone renders as UTC: ``"2024-01-15T10:20:30Z [TZ region 33280]"``.
    """
    fields, nanos, offset, region = _timestamp_tz_parts(data)
    if offset is None:
        return f"{_render(fields, nanos)}Z [TZ region {region}]"
    return _render(_shift(fields, offset), nanos) + _offset_text(offset)


def decode_timestamp_tz_value(data: bytes) -> datetime.datetime:
    """TIMESTAMP WITH TIME ZONE -> aware ``datetime`` in the value's offset (UTC for a region id)."""
    fields, nanos, offset, _ = _timestamp_tz_parts(data)
    utc = _to_datetime(fields, nanos, _TSTZ, data, datetime.UTC)
    if not offset:
        return utc
    try:
        return utc.astimezone(datetime.timezone(datetime.timedelta(minutes=offset)))
    except OverflowError as exc:
        raise _error(_TSTZ, "local time out of datetime's range", data) from exc


# --- TIMESTAMP WITH LOCAL TIME ZONE -------------------------------------------------------------------


def decode_timestamp_ltz(data: bytes, db_timezone: str | int = 0) -> str:
    """TIMESTAMP WITH LOCAL TIME ZONE (7 or 11 bytes, database time zone) -> UTC, ``"...T10:20:30Z"``."""
    fields, nanos = _timestamp_parts(data, _TSLTZ)
    offset = _parse_offset(db_timezone)
    return _render(_shift(fields, -offset) if offset else fields, nanos) + "Z"


def decode_timestamp_ltz_value(data: bytes, db_timezone: str | int = 0) -> datetime.datetime:
    """TIMESTAMP WITH LOCAL TIME ZONE -> aware ``datetime`` in UTC."""
    fields, nanos = _timestamp_parts(data, _TSLTZ)
    zone = datetime.timezone(datetime.timedelta(minutes=_parse_offset(db_timezone)))
    local = _to_datetime(fields, nanos, _TSLTZ, data, zone)
    try:
        return local.astimezone(datetime.UTC)
    except OverflowError as exc:
        raise _error(_TSLTZ, "UTC time out of datetime's range", data) from exc


# --- INTERVALs ------------------------------------------------------------------------------------------


def decode_interval_ym(data: bytes) -> str:
    """INTERVAL YEAR TO MONTH (5 bytes) -> ``"+02-03"`` / ``"-02-03"``."""
    _check_length(data, _IYM, 5)
    years = int.from_bytes(data[:4], "big") - _INTERVAL_BIAS
    months = data[4] - 60
    if not -11 <= months <= 11 or (years < 0 < months) or (months < 0 < years):
        raise _error(_IYM, "invalid INTERVAL YEAR TO MONTH bytes", data)
    sign = "-" if years < 0 or months < 0 else "+"
    return f"{sign}{abs(years):02d}-{abs(months):02d}"


def decode_interval_ds(data: bytes) -> str:
    """INTERVAL DAY TO SECOND (11 bytes) -> ``"+01 02:03:04.500000000"`` (no fraction when it is 0)."""
    _check_length(data, _IDS, 11)
    days = int.from_bytes(data[:4], "big") - _INTERVAL_BIAS
    hours, minutes, seconds = data[4] - 60, data[5] - 60, data[6] - 60
    nanos = int.from_bytes(data[7:11], "big") - _INTERVAL_BIAS
    parts = (days, hours, minutes, seconds, nanos)
    if (
        not (-23 <= hours <= 23 and -59 <= minutes <= 59 and -59 <= seconds <= 59)
        or not -_NANOS_PER_SECOND < nanos < _NANOS_PER_SECOND
        or (min(parts) < 0 < max(parts))
    ):
        raise _error(_IDS, "invalid INTERVAL DAY TO SECOND bytes", data)
    sign = "-" if min(parts) < 0 else "+"
    text = f"{sign}{abs(days):02d} {abs(hours):02d}:{abs(minutes):02d}:{abs(seconds):02d}"
    return f"{text}.{abs(nanos):09d}" if nanos else text


def encode_interval_ym(years: int, months: int = 0) -> bytes:
    """``years * 12 + months`` -> INTERVAL YEAR TO MONTH bytes (fields normalised, one sign)."""
    total = years * 12 + months
    whole, rest = divmod(abs(total), 12)
    if whole >= _INTERVAL_BIAS:
        raise ValueDecodeError("INTERVAL YEAR TO MONTH out of range", type=_IYM, value=total)
    if total < 0:
        whole, rest = -whole, -rest
    return (whole + _INTERVAL_BIAS).to_bytes(4, "big") + bytes((rest + 60,))


def encode_interval_ds(
    days: int = 0, hours: int = 0, minutes: int = 0, seconds: int = 0, nanos: int = 0
) -> bytes:
    """The sum of the parts -> INTERVAL DAY TO SECOND bytes (fields normalised, one sign).

    A ``timedelta`` ``td`` is ``encode_interval_ds(td.days, seconds=td.seconds, nanos=td.microseconds * 1000)``.
    """
    total = (((days * 24 + hours) * 60 + minutes) * 60 + seconds) * _NANOS_PER_SECOND + nanos
    rest, frac = divmod(abs(total), _NANOS_PER_SECOND)
    rest, sec = divmod(rest, 60)
    rest, mins = divmod(rest, 60)
    whole_days, hrs = divmod(rest, 24)
    if whole_days >= _INTERVAL_BIAS:
        raise ValueDecodeError("INTERVAL DAY TO SECOND out of range", type=_IDS, value=total)
    sign = -1 if total < 0 else 1
    return (
        (sign * whole_days + _INTERVAL_BIAS).to_bytes(4, "big")
        + bytes((sign * hrs + 60, sign * mins + 60, sign * sec + 60))
        + (sign * frac + _INTERVAL_BIAS).to_bytes(4, "big")
    )


# --- encoders for DATE / TIMESTAMP / TSTZ / TSLTZ ------------------------------------------------------


def _as_datetime(value: datetime.datetime | datetime.date | str, type_name: str) -> datetime.datetime:
    if isinstance(value, datetime.datetime):
        return value
    if isinstance(value, datetime.date):
        return datetime.datetime(value.year, value.month, value.day)
    if isinstance(value, str):
        try:
            return datetime.datetime.fromisoformat(value)
        except ValueError as exc:
            raise ValueDecodeError(f"not an ISO date/time: {value!r}", type=type_name) from exc
    raise ValueDecodeError(f"cannot encode {type(value).__name__} as {type_name}", type=type_name)


def _fields_of(value: datetime.datetime) -> DateFields:
    return value.year, value.month, value.day, value.hour, value.minute, value.second


def _fraction(value: datetime.datetime, nanos: int | None, type_name: str) -> int:
    if nanos is None:
        return value.microsecond * 1000
    if not 0 <= nanos < _NANOS_PER_SECOND:
        raise ValueDecodeError(f"nanoseconds out of range: {nanos}", type=type_name)
    return nanos


def encode_date(value: datetime.datetime | datetime.date | str) -> bytes:
    """``datetime`` / ``date`` / ISO text -> DATE (7 bytes). Wall-clock fields; fractions and tzinfo dropped."""
    return _date_bytes(_fields_of(_as_datetime(value, "DATE")), "DATE")


def encode_timestamp(value: datetime.datetime | datetime.date | str, *, nanos: int | None = None) -> bytes:
    """-> TIMESTAMP: 7 bytes when the fraction is 0 (as Oracle stores it), else 11.

    ``nanos`` overrides the datetime's microseconds (datetime cannot hold nanoseconds).
    """
    moment = _as_datetime(value, "TIMESTAMP")
    fraction = _fraction(moment, nanos, "TIMESTAMP")
    head = _date_bytes(_fields_of(moment), "TIMESTAMP")
    return head + fraction.to_bytes(4, "big") if fraction else head


def _offset_minutes(moment: datetime.datetime, type_name: str) -> int | None:
    """The UTC offset of an aware datetime in whole minutes; None when it is naive."""
    delta = moment.utcoffset()
    if delta is None:
        return None
    seconds = int(delta.total_seconds())
    if seconds % 60:
        raise ValueDecodeError("time zone offset must be whole minutes", type=type_name, offset=str(delta))
    return seconds // 60


def encode_timestamp_tz(value: datetime.datetime | str, *, nanos: int | None = None) -> bytes:
    """Aware ``datetime`` (fixed offset) -> TIMESTAMP WITH TIME ZONE (13 bytes: UTC time + offset)."""
    moment = _as_datetime(value, _TSTZ)
    offset = _offset_minutes(moment, _TSTZ)
    if offset is None:
        raise ValueDecodeError("TIMESTAMP WITH TIME ZONE needs an aware datetime", type=_TSTZ)
    hours = abs(offset) // 60 * (1 if offset >= 0 else -1)
    minutes = offset - hours * 60
    if not 5 <= hours + 20 <= 36:
        raise ValueDecodeError("time zone offset out of range", type=_TSTZ, offset=offset)
    fraction = _fraction(moment, nanos, _TSTZ)
    utc = _shift(_fields_of(moment), -offset)
    return _date_bytes(utc, _TSTZ) + fraction.to_bytes(4, "big") + bytes((hours + 20, minutes + 60))


def encode_timestamp_ltz(
    value: datetime.datetime | str, *, db_timezone: str | int = 0, nanos: int | None = None
) -> bytes:
    """-> TIMESTAMP WITH LOCAL TIME ZONE (7 or 11 bytes) stored in the database time zone.

    An aware ``datetime`` is converted to ``db_timezone``; a naive one is taken as database local time.
    """
    moment = _as_datetime(value, _TSLTZ)
    fraction = _fraction(moment, nanos, _TSLTZ)
    fields = _fields_of(moment)
    offset = _offset_minutes(moment, _TSLTZ)
    if offset is not None:
        fields = _shift(fields, _parse_offset(db_timezone) - offset)
    head = _date_bytes(fields, _TSLTZ)
    return head + fraction.to_bytes(4, "big") if fraction else head


# --- redo time (§3.5) ------------------------------------------------------------------------------------


def decode_redo_time(value: int) -> datetime.datetime:
    """Redo time (u32, 31-day months since 1988-01-01) -> naive wall-clock ``datetime``.

    ``1158315630`` -> ``datetime(2024, 1, 15, 10, 20, 30)``. A day the month does not have raises
    ``ValueDecodeError``.
    """
    if not 0 <= value <= 0xFFFFFFFF:
        raise ValueDecodeError(f"redo time out of u32 range: {value}", type="REDO TIME", value=value)
    rest, second = divmod(value, 60)
    rest, minute = divmod(rest, 60)
    rest, hour = divmod(rest, 24)
    rest, day = divmod(rest, 31)
    years, month = divmod(rest, 12)
    try:
        return datetime.datetime(_REDO_EPOCH_YEAR + years, month + 1, day + 1, hour, minute, second)
    except ValueError as exc:
        raise ValueDecodeError(f"invalid redo time: {exc}", type="REDO TIME", value=value) from exc


def encode_redo_time(value: datetime.datetime) -> int:
    """Wall-clock ``datetime`` -> redo time (u32). Microseconds and tzinfo are ignored."""
    t = (
        ((((value.year - _REDO_EPOCH_YEAR) * 12 + value.month - 1) * 31 + value.day - 1) * 24 + value.hour)
        * 60
        + value.minute
    ) * 60 + value.second
    if not 0 <= t <= 0xFFFFFFFF:
        raise ValueDecodeError(f"{value} is outside the redo time range", type="REDO TIME", value=str(value))
    return t
