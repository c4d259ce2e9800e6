"""DATE / TIMESTAMP / TSTZ / TSLTZ / INTERVAL values (redo-format §7.3-§7.7) and redo time (§3.5)."""

from __future__ import annotations

import datetime
from collections.abc import Callable

import pytest
from hypothesis import given
from hypothesis import strategies as st

from redo_lib.errors import ValueDecodeError
from redo_lib.values.datetimes import (
    decode_date,
    decode_date_value,
    decode_interval_ds,
    decode_interval_ym,
    decode_redo_time,
    decode_timestamp,
    decode_timestamp_ltz,
    decode_timestamp_ltz_value,
    decode_timestamp_tz,
    decode_timestamp_tz_value,
    decode_timestamp_value,
    encode_date,
    encode_interval_ds,
    encode_interval_ym,
    encode_redo_time,
    encode_timestamp,
    encode_timestamp_ltz,
    encode_timestamp_tz,
)

UTC = datetime.UTC


def tz(hours: int, minutes: int = 0) -> datetime.timezone:
    sign = -1 if hours < 0 or minutes < 0 else 1
    return datetime.timezone(sign * datetime.timedelta(hours=abs(hours), minutes=abs(minutes)))


# --- DATE ---------------------------------------------------------------------------------------------------

DATES = [
    pytest.param("78 7c 01 0f 0b 15 1f", "2024-01-15T10:20:30", id="doc-2024-01-15"),
    pytest.param("78 71 03 1f 18 3c 3b", "2013-03-31T23:59:58", id="seed000-redo-time-as-date"),
    pytest.param("78 64 02 1d 01 01 01", "2000-02-29T00:00:00", id="leap-day-2000"),
    pytest.param("64 65 01 01 01 01 01", "0001-01-01T00:00:00", id="year-1"),
    pytest.param("c7 c7 0c 1f 18 3c 3c", "9999-12-31T23:59:59", id="year-9999"),
    pytest.param("35 58 01 01 01 01 01", "-4712-01-01T00:00:00", id="bc-4712-first-oracle-date"),
    pytest.param("64 63 0c 1f 01 01 01", "-0001-12-31T00:00:00", id="bc-1"),
    pytest.param("63 64 06 0f 0d 1f 1f", "-0100-06-15T12:30:30", id="bc-100"),
]


@pytest.mark.parametrize(("hex_bytes", "text"), DATES)
def test_decode_date(hex_bytes: str, text: str) -> None:
    assert decode_date(bytes.fromhex(hex_bytes)) == text


@pytest.mark.parametrize(
    ("hex_bytes", "value"),
    [
        pytest.param("78 7c 01 0f 0b 15 1f", datetime.datetime(2024, 1, 15, 10, 20, 30), id="2024"),
        pytest.param("64 65 01 01 01 01 01", datetime.datetime(1, 1, 1), id="year-1"),
        pytest.param("c7 c7 0c 1f 18 3c 3c", datetime.datetime(9999, 12, 31, 23, 59, 59), id="year-9999"),
    ],
)
def test_date_value_both_ways(hex_bytes: str, value: datetime.datetime) -> None:
    assert decode_date_value(bytes.fromhex(hex_bytes)) == value
    assert encode_date(value) == bytes.fromhex(hex_bytes)


@pytest.mark.parametrize(
    ("value", "hex_bytes"),
    [
        pytest.param(datetime.date(2024, 1, 15), "78 7c 01 0f 01 01 01", id="date-object"),
        pytest.param("2024-01-15T10:20:30", "78 7c 01 0f 0b 15 1f", id="iso-text"),
        pytest.param(
            datetime.datetime(2024, 1, 15, 10, 20, 30, 999999), "78 7c 01 0f 0b 15 1f", id="fraction-dropped"
        ),
    ],
)
def test_encode_date_inputs(value: datetime.date | str, hex_bytes: str) -> None:
    assert encode_date(value) == bytes.fromhex(hex_bytes)


@pytest.mark.parametrize(
    "hex_bytes",
    [
        pytest.param("78 7c 01 0f 0b 15", id="six-bytes"),
        pytest.param("78 7c 01 0f 0b 15 1f 00", id="eight-bytes"),
        pytest.param("78 7c 00 0f 0b 15 1f", id="month-0"),
        pytest.param("78 7c 0d 0f 0b 15 1f", id="month-13"),
        pytest.param("78 7c 01 00 0b 15 1f", id="day-0"),
        pytest.param("78 7c 01 20 0b 15 1f", id="day-32"),
        pytest.param("78 7c 01 0f 00 15 1f", id="hour-byte-0"),
        pytest.param("78 7c 01 0f 19 15 1f", id="hour-24"),
        pytest.param("78 7c 01 0f 0b 3d 1f", id="minute-60"),
        pytest.param("78 7c 01 0f 0b 15 3d", id="second-60"),
        pytest.param("64 64 01 01 01 01 01", id="year-0"),
        pytest.param("78 32 01 01 01 01 01", id="ad-century-bc-year"),
        pytest.param("35 57 01 01 01 01 01", id="before-4712-bc"),
        pytest.param("78 c8 01 01 01 01 01", id="year-byte-200"),
        pytest.param("", id="empty"),
    ],
)
def test_decode_date_rejects_malformed_bytes(hex_bytes: str) -> None:
    data = bytes.fromhex(hex_bytes)
    with pytest.raises(ValueDecodeError) as info:
        decode_date(data)
    assert info.value.details == {"type": "DATE", "hex": data.hex()}


@pytest.mark.parametrize(
    "hex_bytes",
    [
        pytest.param("35 58 01 01 01 01 01", id="bc-year"),
        pytest.param("73 64 02 1d 01 01 01", id="julian-leap-day-1500-02-29"),
        pytest.param("78 7c 02 1e 01 01 01", id="february-30"),
    ],
)
def test_decode_date_value_rejects_what_datetime_cannot_hold(hex_bytes: str) -> None:
    with pytest.raises(ValueDecodeError):
        decode_date_value(bytes.fromhex(hex_bytes))


# --- TIMESTAMP ----------------------------------------------------------------------------------------------

TIMESTAMPS = [
    pytest.param("78 7c 01 0f 0b 15 1f", "2024-01-15T10:20:30", id="7-bytes"),
    pytest.param("78 7c 01 0f 0b 15 1f 07 5b cd 15", "2024-01-15T10:20:30.123456789", id="11-bytes-nanos"),
    pytest.param("78 7c 01 0f 0b 15 1f 00 00 00 01", "2024-01-15T10:20:30.000000001", id="one-nanosecond"),
    pytest.param("78 7c 01 0f 0b 15 1f 3b 9a c9 ff", "2024-01-15T10:20:30.999999999", id="max-fraction"),
    pytest.param("35 58 01 01 01 01 01 1d cd 65 00", "-4712-01-01T00:00:00.500000000", id="bc-with-fraction"),
]


@pytest.mark.parametrize(("hex_bytes", "text"), TIMESTAMPS)
def test_decode_timestamp(hex_bytes: str, text: str) -> None:
    assert decode_timestamp(bytes.fromhex(hex_bytes)) == text


def test_decode_timestamp_zero_fraction_prints_no_fraction() -> None:
    assert decode_timestamp(bytes.fromhex("78 7c 01 0f 0b 15 1f 00 00 00 00")) == "2024-01-15T10:20:30"


@pytest.mark.parametrize(
    ("value", "nanos", "hex_bytes"),
    [
        pytest.param(
            datetime.datetime(2024, 1, 15, 10, 20, 30), None, "78 7c 01 0f 0b 15 1f", id="no-fraction-7-bytes"
        ),
        pytest.param(
            datetime.datetime(2024, 1, 15, 10, 20, 30, 123456),
            None,
            "78 7c 01 0f 0b 15 1f 07 5b ca 00",
            id="micros",
        ),
        pytest.param(
            datetime.datetime(2024, 1, 15, 10, 20, 30),
            123456789,
            "78 7c 01 0f 0b 15 1f 07 5b cd 15",
            id="nanos",
        ),
        pytest.param("2024-01-15T10:20:30.5", None, "78 7c 01 0f 0b 15 1f 1d cd 65 00", id="iso-text"),
    ],
)
def test_encode_timestamp(value: datetime.datetime | str, nanos: int | None, hex_bytes: str) -> None:
    assert encode_timestamp(value, nanos=nanos) == bytes.fromhex(hex_bytes)


def test_decode_timestamp_value_truncates_to_microseconds() -> None:
    data = bytes.fromhex("78 7c 01 0f 0b 15 1f 07 5b cd 15")
    assert decode_timestamp_value(data) == datetime.datetime(2024, 1, 15, 10, 20, 30, 123456)


@pytest.mark.parametrize(
    "hex_bytes",
    [
        pytest.param("78 7c 01 0f 0b 15 1f 3b 9a ca 00", id="fraction-one-second"),
        pytest.param("78 7c 01 0f 0b 15 1f 00 00", id="9-bytes"),
        pytest.param("78 7c 01 0f 0b 15 1f 00 00 00 00 00", id="12-bytes"),
    ],
)
def test_decode_timestamp_rejects_malformed_bytes(hex_bytes: str) -> None:
    with pytest.raises(ValueDecodeError):
        decode_timestamp(bytes.fromhex(hex_bytes))


@pytest.mark.parametrize("nanos", [pytest.param(-1, id="negative"), pytest.param(10**9, id="one-second")])
def test_encode_timestamp_rejects_bad_nanos(nanos: int) -> None:
    with pytest.raises(ValueDecodeError):
        encode_timestamp(datetime.datetime(2024, 1, 1), nanos=nanos)


# --- TIMESTAMP WITH TIME ZONE -----------------------------------------------------------------------------

TSTZ = [
    pytest.param("78 7c 01 0f 0b 15 1f 00 00 00 00 19 5a", "2024-01-15T15:50:30+05:30", id="plus-05-30"),
    pytest.param("78 7c 01 0f 0b 15 1f 00 00 00 00 14 3c", "2024-01-15T10:20:30+00:00", id="zero-offset"),
    pytest.param("78 7c 01 01 04 29 01 00 00 00 00 11 1e", "2024-01-01T00:10:00-03:30", id="minus-03-30"),
    pytest.param("78 7c 01 0f 0b 15 1f 00 00 00 00 14 1e", "2024-01-15T09:50:30-00:30", id="minus-00-30"),
    pytest.param(
        "78 7c 03 01 02 01 01 00 00 00 00 0f 3c", "2024-02-29T20:00:00-05:00", id="back-to-leap-day"
    ),
    pytest.param(
        "78 7b 0c 1f 15 01 01 00 00 00 00 19 3c", "2024-01-01T01:00:00+05:00", id="forward-to-new-year"
    ),
    pytest.param(
        "78 7c 01 0f 0b 15 1f 07 5b cd 15 24 3c", "2024-01-16T02:20:30.123456789+16:00", id="plus-16-nanos"
    ),
    pytest.param(
        "73 b6 0a 04 18 01 01 00 00 00 00 16 3c", "1582-10-15T01:00:00+02:00", id="julian-gregorian-gap"
    ),
    pytest.param("73 64 02 1c 18 01 01 00 00 00 00 16 3c", "1500-02-29T01:00:00+02:00", id="julian-leap-day"),
    pytest.param("64 63 02 1c 18 01 01 00 00 00 00 16 3c", "-0001-02-29T01:00:00+02:00", id="bc-1-is-leap"),
    pytest.param(
        "64 62 02 1c 18 01 01 00 00 00 00 16 3c", "-0002-03-01T01:00:00+02:00", id="bc-2-is-not-leap"
    ),
    pytest.param("64 63 0c 1f 18 01 01 00 00 00 00 16 3c", "0001-01-01T01:00:00+02:00", id="bc-1-to-ad-1"),
    pytest.param(
        "64 65 01 01 01 01 01 00 00 00 00 0f 3c", "-0001-12-31T19:00:00-05:00", id="ad-1-back-to-bc-1"
    ),
]


@pytest.mark.parametrize(("hex_bytes", "text"), TSTZ)
def test_decode_timestamp_tz(hex_bytes: str, text: str) -> None:
    assert decode_timestamp_tz(bytes.fromhex(hex_bytes)) == text


def test_decode_timestamp_tz_region_id_renders_utc_with_region() -> None:
    data = bytes.fromhex("78 7c 01 0f 0b 15 1f 00 00 00 00 86 14")
    assert decode_timestamp_tz(data) == "2024-01-15T10:20:30Z [TZ region 34324]"
    assert decode_timestamp_tz_value(data) == datetime.datetime(2024, 1, 15, 10, 20, 30, tzinfo=UTC)


@pytest.mark.parametrize(
    ("value", "hex_bytes"),
    [
        pytest.param(
            datetime.datetime(2024, 1, 15, 15, 50, 30, tzinfo=tz(5, 30)),
            "78 7c 01 0f 0b 15 1f 00 00 00 00 19 5a",
            id="plus-05-30",
        ),
        pytest.param(
            datetime.datetime(2024, 1, 1, 0, 10, tzinfo=tz(-3, -30)),
            "78 7c 01 01 04 29 01 00 00 00 00 11 1e",
            id="minus-03-30",
        ),
        pytest.param(
            datetime.datetime(2024, 1, 15, 10, 20, 30, 500000, tzinfo=UTC),
            "78 7c 01 0f 0b 15 1f 1d cd 65 00 14 3c",
            id="utc-with-fraction",
        ),
    ],
)
def test_timestamp_tz_both_ways(value: datetime.datetime, hex_bytes: str) -> None:
    data = bytes.fromhex(hex_bytes)
    assert encode_timestamp_tz(value) == data
    decoded = decode_timestamp_tz_value(data)
    assert decoded == value
    assert decoded.utcoffset() == value.utcoffset()


@pytest.mark.parametrize(
    "value",
    [
        pytest.param(datetime.datetime(2024, 1, 1), id="naive"),
        pytest.param(datetime.datetime(2024, 1, 1, tzinfo=tz(17)), id="offset-too-large"),
        pytest.param(
            datetime.datetime(2024, 1, 1, tzinfo=datetime.timezone(datetime.timedelta(seconds=30))),
            id="seconds",
        ),
        pytest.param(42, id="not-a-datetime"),
    ],
)
def test_encode_timestamp_tz_rejects(value: object) -> None:
    with pytest.raises(ValueDecodeError):
        encode_timestamp_tz(value)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "hex_bytes",
    [
        pytest.param("78 7c 01 0f 0b 15 1f 00 00 00 00 19", id="12-bytes"),
        pytest.param("78 7c 01 0f 0b 15 1f 00 00 00 00", id="11-bytes"),
        pytest.param("78 7c 01 0f 0b 15 1f 00 00 00 00 19 00", id="offset-minutes-byte-0"),
        pytest.param("78 7c 01 0f 0b 15 1f 00 00 00 00 19 78", id="offset-minutes-byte-120"),
    ],
)
def test_decode_timestamp_tz_rejects_malformed_bytes(hex_bytes: str) -> None:
    with pytest.raises(ValueDecodeError):
        decode_timestamp_tz(bytes.fromhex(hex_bytes))


# --- TIMESTAMP WITH LOCAL TIME ZONE -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("hex_bytes", "db_timezone", "text"),
    [
        pytest.param("78 7c 01 0f 0b 15 1f", 0, "2024-01-15T10:20:30Z", id="utc-default-int"),
        pytest.param("78 7c 01 0f 0b 15 1f", "UTC", "2024-01-15T10:20:30Z", id="utc-name"),
        pytest.param("78 7c 01 01 02 01 01", "+05:30", "2023-12-31T19:30:00Z", id="plus-05-30-back-a-year"),
        pytest.param("78 7c 01 0f 0b 15 1f", "-0300", "2024-01-15T13:20:30Z", id="minus-0300-no-colon"),
        pytest.param(
            "78 7c 01 0f 0b 15 1f 07 5b cd 15", -180, "2024-01-15T13:20:30.123456789Z", id="int-minutes"
        ),
    ],
)
def test_decode_timestamp_ltz(hex_bytes: str, db_timezone: str | int, text: str) -> None:
    assert decode_timestamp_ltz(bytes.fromhex(hex_bytes), db_timezone) == text


def test_encode_timestamp_ltz_moves_across_two_days() -> None:
    # 2024-01-01 23:30 at -12:00 is 2024-01-02 11:30 UTC, 2024-01-03 01:30 at +14:00
    value = datetime.datetime(2024, 1, 1, 23, 30, tzinfo=tz(-12))
    data = encode_timestamp_ltz(value, db_timezone="+14:00")
    assert decode_timestamp(data) == "2024-01-03T01:30:00"
    assert decode_timestamp_ltz(data, "+14:00") == "2024-01-02T11:30:00Z"
    assert decode_timestamp_ltz_value(data, "+14:00") == value


def test_timestamp_ltz_value_and_encode() -> None:
    data = bytes.fromhex("78 7c 01 01 02 01 01")
    value = datetime.datetime(2023, 12, 31, 19, 30, tzinfo=UTC)
    assert decode_timestamp_ltz_value(data, "+05:30") == value
    assert encode_timestamp_ltz(value, db_timezone="+05:30") == data
    assert encode_timestamp_ltz(datetime.datetime(2024, 1, 1, 1, 0), db_timezone="+05:30") == data


@pytest.mark.parametrize(
    "db_timezone",
    [
        pytest.param("Europe/Berlin", id="region-name"),
        pytest.param("+5", id="short-offset"),
        pytest.param("+24:00", id="offset-a-day"),
        pytest.param(1440, id="int-a-day"),
    ],
)
def test_decode_timestamp_ltz_rejects_bad_db_timezone(db_timezone: str | int) -> None:
    with pytest.raises(ValueDecodeError):
        decode_timestamp_ltz(bytes.fromhex("78 7c 01 0f 0b 15 1f"), db_timezone)


# --- INTERVALs ------------------------------------------------------------------------------------------------

INTERVAL_YM = [
    pytest.param("80 00 00 02 3f", 2, 3, "+02-03", id="plus-2-3"),
    pytest.param("7f ff ff fe 39", -2, -3, "-02-03", id="minus-2-3"),
    pytest.param("80 00 00 00 3c", 0, 0, "+00-00", id="zero"),
    pytest.param("80 00 00 00 3b", 0, -1, "-00-01", id="minus-one-month"),
    pytest.param("80 00 00 7b 47", 123, 11, "+123-11", id="three-digit-years"),
]


@pytest.mark.parametrize(("hex_bytes", "years", "months", "text"), INTERVAL_YM)
def test_interval_ym_both_ways(hex_bytes: str, years: int, months: int, text: str) -> None:
    assert decode_interval_ym(bytes.fromhex(hex_bytes)) == text
    assert encode_interval_ym(years, months) == bytes.fromhex(hex_bytes)


def test_encode_interval_ym_normalises_months() -> None:
    assert encode_interval_ym(0, 27) == encode_interval_ym(2, 3)
    assert encode_interval_ym(1, -15) == encode_interval_ym(0, -3)


INTERVAL_DS = [
    pytest.param(
        "80 00 00 01 3e 3f 40 9d cd 65 00", (1, 2, 3, 4, 500_000_000), "+01 02:03:04.500000000", id="plus"
    ),
    pytest.param(
        "7f ff ff ff 3a 39 38 62 32 9b 00",
        (-1, -2, -3, -4, -500_000_000),
        "-01 02:03:04.500000000",
        id="minus",
    ),
    pytest.param("80 00 00 00 3c 3c 3c 80 00 00 00", (0, 0, 0, 0, 0), "+00 00:00:00", id="zero"),
    pytest.param(
        "80 00 00 00 3c 3c 3c 7f ff ff ff", (0, 0, 0, 0, -1), "-00 00:00:00.000000001", id="minus-1ns"
    ),
    pytest.param("80 00 01 00 53 77 77 80 00 00 00", (256, 23, 59, 59, 0), "+256 23:59:59", id="many-days"),
]


@pytest.mark.parametrize(("hex_bytes", "parts", "text"), INTERVAL_DS)
def test_interval_ds_both_ways(hex_bytes: str, parts: tuple[int, int, int, int, int], text: str) -> None:
    assert decode_interval_ds(bytes.fromhex(hex_bytes)) == text
    assert encode_interval_ds(*parts) == bytes.fromhex(hex_bytes)


def test_encode_interval_ds_normalises_parts() -> None:
    assert encode_interval_ds(seconds=93784, nanos=500_000_000) == encode_interval_ds(1, 2, 3, 4, 500_000_000)


@pytest.mark.parametrize(
    ("decoder", "hex_bytes"),
    [
        pytest.param(decode_interval_ym, "80 00 00 02", id="ym-4-bytes"),
        pytest.param(decode_interval_ym, "80 00 00 02 48", id="ym-12-months"),
        pytest.param(decode_interval_ym, "80 00 00 02 39", id="ym-mixed-signs"),
        pytest.param(decode_interval_ds, "80 00 00 01 3e 3f 40 9d cd 65", id="ds-10-bytes"),
        pytest.param(decode_interval_ds, "80 00 00 01 54 3c 3c 80 00 00 00", id="ds-24-hours"),
        pytest.param(decode_interval_ds, "80 00 00 00 3c 78 3c 80 00 00 00", id="ds-60-minutes"),
        pytest.param(decode_interval_ds, "80 00 00 00 3c 3c 3c bb 9a ca 00", id="ds-one-second-of-nanos"),
        pytest.param(decode_interval_ds, "80 00 00 01 3b 3c 3c 80 00 00 00", id="ds-mixed-signs"),
    ],
)
def test_decode_interval_rejects_malformed_bytes(decoder: Callable[[bytes], str], hex_bytes: str) -> None:
    with pytest.raises(ValueDecodeError):
        decoder(bytes.fromhex(hex_bytes))


# --- redo time (§3.5) ---------------------------------------------------------------------------------------

REDO_TIMES = [
    pytest.param(1158315630, datetime.datetime(2024, 1, 15, 10, 20, 30), id="doc-2024-01-15"),
    pytest.param(0, datetime.datetime(1988, 1, 1), id="epoch"),
    pytest.param(811_555_198, datetime.datetime(2013, 3, 31, 23, 59, 58), id="seed000-03-31-2013-23-59-58"),
]


@pytest.mark.parametrize(("value", "moment"), REDO_TIMES)
def test_redo_time_both_ways(value: int, moment: datetime.datetime) -> None:
    assert decode_redo_time(value) == moment
    assert encode_redo_time(moment) == value


@pytest.mark.parametrize(
    "value",
    [
        pytest.param(60 * 86400, id="february-30-1988"),
        pytest.param(-1, id="negative"),
        pytest.param(2**32, id="above-u32"),
    ],
)
def test_decode_redo_time_rejects(value: int) -> None:
    with pytest.raises(ValueDecodeError):
        decode_redo_time(value)


@pytest.mark.parametrize(
    "moment",
    [
        pytest.param(datetime.datetime(1987, 12, 31, 23, 59, 59), id="before-epoch"),
        pytest.param(datetime.datetime(2200, 1, 1), id="after-u32"),
    ],
)
def test_encode_redo_time_rejects(moment: datetime.datetime) -> None:
    with pytest.raises(ValueDecodeError):
        encode_redo_time(moment)


# --- properties ---------------------------------------------------------------------------------------------

seconds_datetimes = st.datetimes(
    min_value=datetime.datetime(1, 1, 1), max_value=datetime.datetime(9999, 12, 31, 23, 59, 59)
).map(lambda d: d.replace(microsecond=0))
nanoseconds = st.integers(0, 999_999_999)
offsets = st.integers(-15 * 60 - 59, 16 * 60 + 59).map(
    lambda m: datetime.timezone(datetime.timedelta(minutes=m))
)


@given(seconds_datetimes)
def test_date_round_trip(value: datetime.datetime) -> None:
    data = encode_date(value)
    assert decode_date_value(data) == value
    assert decode_date(data) == value.isoformat()


@given(seconds_datetimes, nanoseconds)
def test_timestamp_round_trip(value: datetime.datetime, nanos: int) -> None:
    data = encode_timestamp(value, nanos=nanos)
    assert len(data) == (11 if nanos else 7)
    assert decode_timestamp_value(data) == value.replace(microsecond=nanos // 1000)
    text = decode_timestamp(data)
    assert text == value.isoformat() + (f".{nanos:09d}" if nanos else "")


@given(
    st.datetimes(min_value=datetime.datetime(1600, 1, 2), max_value=datetime.datetime(9999, 12, 30)),
    offsets,
)
def test_timestamp_tz_round_trip(local: datetime.datetime, zone: datetime.timezone) -> None:
    value = local.replace(tzinfo=zone)
    data = encode_timestamp_tz(value)
    decoded = decode_timestamp_tz_value(data)
    assert decoded == value
    assert decoded.utcoffset() == value.utcoffset()
    wall = value.replace(microsecond=0, tzinfo=None).isoformat()
    fraction = f".{value.microsecond * 1000:09d}" if value.microsecond else ""
    assert decode_timestamp_tz(data) == wall + fraction + value.isoformat()[-6:]


@given(
    st.datetimes(
        min_value=datetime.datetime(1988, 1, 1), max_value=datetime.datetime(2120, 12, 31, 23, 59, 59)
    )
)
def test_redo_time_round_trip(moment: datetime.datetime) -> None:
    moment = moment.replace(microsecond=0)
    value = encode_redo_time(moment)
    assert 0 <= value <= 0xFFFFFFFF
    assert decode_redo_time(value) == moment


@given(st.integers(-(10**6), 10**6), st.integers(-11, 11))
def test_interval_ym_round_trip(years: int, months: int) -> None:
    total = years * 12 + months
    sign = "-" if total < 0 else "+"
    assert (
        decode_interval_ym(encode_interval_ym(years, months))
        == f"{sign}{abs(total) // 12:02d}-{abs(total) % 12:02d}"
    )


@given(st.integers(-(10**15), 10**15))
def test_interval_ds_round_trip(total_nanos: int) -> None:
    text = decode_interval_ds(encode_interval_ds(nanos=total_nanos))
    sign = -1 if text.startswith("-") else 1
    days, clock = text[1:].split(" ")
    hms, _, frac = clock.partition(".")
    hours, minutes, seconds = (int(p) for p in hms.split(":"))
    back = (((int(days) * 24 + hours) * 60 + minutes) * 60 + seconds) * 10**9 + int(frac or 0)
    assert sign * back == total_nanos


@given(st.binary(min_size=0, max_size=14))
def test_decoders_raise_only_value_decode_error(data: bytes) -> None:
    for decoder in (
        decode_date,
        decode_timestamp,
        decode_timestamp_tz,
        decode_timestamp_ltz,
        decode_interval_ym,
        decode_interval_ds,
    ):
        try:
            decoder(data)
        except ValueDecodeError:
            pass
