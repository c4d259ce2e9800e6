//! DATE (12), TIMESTAMP (180), TIMESTAMP WITH TIME ZONE (181), WITH LOCAL TIME ZONE (231) and the
//! INTERVALs (182, 183) -> trail text (redo-format §7.3-§7.7; `redo_lib/values/datetimes.py`).
//!
//! * DATE, 7 bytes: `century+100, year+100, month, day, hour+1, minute+1, second+1`; a first or
//!   second byte below 100 is a BC year, kept in Oracle's numbering: `-4712-01-01T00:00:00`.
//! * TIMESTAMP, 7 or 11 bytes: DATE plus be32 nanoseconds; the nine fraction digits only when they
//!   are not all 0 (every type here).
//! * TIMESTAMP WITH TIME ZONE, 13 bytes: UTC time, nanoseconds, then a fixed offset (hours + 20,
//!   minutes + 60, byte 11 in 5..=36): local time `2024-01-15T15:50:30+05:30`; else a region id,
//!   rendered as UTC `...Z [TZ region 34324]` (no region table here).
//! * TIMESTAMP WITH LOCAL TIME ZONE: database local time -> UTC with `Z`.
//! * Moving a time across midnight follows Oracle's calendar: Julian before 1582-10-15 (BC leap
//!   years -1, -5, ...), no year 0.
//! * INTERVAL YEAR TO MONTH, 5 bytes `+02-03`; DAY TO SECOND, 11 bytes `+01 02:03:04.500000000`.

use std::fmt::Write as _;

use super::{value_error, value_error_with, TypeName, ZoneArg};
use crate::error::{Detail, Result};

const NANOS_PER_SECOND: i64 = 1_000_000_000;
const INTERVAL_BIAS: i64 = 0x8000_0000;
const MONTH_DAYS: [u8; 12] = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/// year (negative = BC, no 0), month, day, hour, minute, second.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Fields {
    year: i32,
    month: u8,
    day: u8,
    hour: i32,
    minute: i32,
    second: u8,
}

fn check_length(data: &[u8], type_name: TypeName, size: usize) -> Result<()> {
    if data.len() != size {
        let name = type_name.as_str();
        return Err(value_error(format!("{name} must be {size} bytes, got {}", data.len()), type_name, data));
    }
    Ok(())
}

/// Bytes 0-6 of a DATE / TIMESTAMP -> fields, range-checked (`_date_fields`). `data` has 7+ bytes.
fn date_fields(data: &[u8], type_name: TypeName) -> Result<Fields> {
    let invalid = || value_error(format!("invalid {} bytes", type_name.as_str()), type_name, data);
    let &[century, year_byte, month, day, hour, minute, second, ..] = data else {
        return Err(invalid());
    };
    let (c, y) = (i32::from(century), i32::from(year_byte));
    let (year, valid_year) = if century >= 100 && year_byte >= 100 {
        let year = (c - 100) * 100 + y - 100;
        (year, year_byte < 200 && (1..=9999).contains(&year))
    } else {
        let year = -((100 - c) * 100 + 100 - y);
        (year, century <= 100 && (1..=100).contains(&year_byte) && year >= -4712)
    };
    if !(valid_year
        && (1..=12).contains(&month)
        && (1..=31).contains(&day)
        && (1..=24).contains(&hour)
        && (1..=60).contains(&minute)
        && (1..=60).contains(&second))
    {
        return Err(invalid());
    }
    Ok(Fields {
        year,
        month,
        day,
        hour: i32::from(hour) - 1,
        minute: i32::from(minute) - 1,
        second: second - 1,
    })
}

fn be32(b: &[u8]) -> i64 {
    match b {
        &[a, b, c, d, ..] => i64::from(u32::from_be_bytes([a, b, c, d])),
        _ => 0,
    }
}

/// be32 nanoseconds at bytes 7-10, below one second.
fn nanos(data: &[u8], type_name: TypeName) -> Result<i64> {
    let nanos = be32(data.get(7..11).unwrap_or_default());
    if nanos >= NANOS_PER_SECOND {
        return Err(value_error(format!("fractional seconds out of range: {nanos}"), type_name, data));
    }
    Ok(nanos)
}

/// `_render`: `2024-01-15T10:20:30[.123456789]`, BC years `-0100-...`.
fn push_fields(f: &Fields, nanos: i64, out: &mut String) {
    if f.year > 0 {
        push_padded(out, i64::from(f.year), 4);
    } else {
        out.push('-');
        push_padded(out, -i64::from(f.year), 4);
    }
    out.push('-');
    push_2(out, i64::from(f.month));
    out.push('-');
    push_2(out, i64::from(f.day));
    out.push('T');
    push_2(out, i64::from(f.hour));
    out.push(':');
    push_2(out, i64::from(f.minute));
    out.push(':');
    push_2(out, i64::from(f.second));
    if nanos != 0 {
        out.push('.');
        push_padded(out, nanos, 9);
    }
}

/// Python's `f"{n:0{width}d}"` for n >= 0.
fn push_padded(out: &mut String, n: i64, width: usize) {
    let _ = write!(out, "{n:0width$}");
}

fn push_2(out: &mut String, n: i64) {
    if (0..100).contains(&n) {
        out.push(char::from(b'0' + (n / 10) as u8));
        out.push(char::from(b'0' + (n % 10) as u8));
    } else {
        push_padded(out, n, 2);
    }
}

// --- Oracle's calendar, for moving a time across midnight --------------------------------------

fn is_leap(year: i32) -> bool {
    if year < 0 {
        // Julian; Oracle year -1 is 1 BC, a leap year
        return (year + 1).rem_euclid(4) == 0;
    }
    if year < 1583 {
        // Julian until 1582-10-04
        return year % 4 == 0;
    }
    year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
}

fn days_in_month(year: i32, month: u8) -> u8 {
    if month == 2 && is_leap(year) {
        29
    } else {
        MONTH_DAYS[usize::from(month.clamp(1, 12) - 1)]
    }
}

fn next_day(f: &mut Fields) {
    if (f.year, f.month, f.day) == (1582, 10, 4) {
        // Julian 1582-10-04 is followed by Gregorian 1582-10-15
        f.day = 15;
    } else if f.day < days_in_month(f.year, f.month) {
        f.day += 1;
    } else if f.month < 12 {
        f.month += 1;
        f.day = 1;
    } else {
        f.year = if f.year == -1 { 1 } else { f.year + 1 }; // there is no year 0
        f.month = 1;
        f.day = 1;
    }
}

fn previous_day(f: &mut Fields) {
    if (f.year, f.month, f.day) == (1582, 10, 15) {
        f.day = 4;
    } else if f.day > 1 {
        f.day -= 1;
    } else if f.month > 1 {
        f.month -= 1;
        f.day = days_in_month(f.year, f.month);
    } else {
        f.year = if f.year == 1 { -1 } else { f.year - 1 };
        f.month = 12;
        f.day = 31;
    }
}

/// Add `minutes` (a day or two at most) to a wall time (`_shift`).
fn shift(mut f: Fields, minutes: i32) -> Fields {
    let total = f.hour * 60 + f.minute + minutes;
    let (day_shift, rest) = (total.div_euclid(1440), total.rem_euclid(1440));
    f.hour = rest / 60;
    f.minute = rest % 60;
    for _ in 0..day_shift {
        next_day(&mut f);
    }
    for _ in 0..-day_shift {
        previous_day(&mut f);
    }
    f
}

fn push_offset(out: &mut String, minutes: i32) {
    out.push(if minutes < 0 { '-' } else { '+' });
    let m = minutes.unsigned_abs();
    push_2(out, i64::from(m / 60));
    out.push(':');
    push_2(out, i64::from(m % 60));
}

/// `db_timezone` -> minutes east of UTC (`_parse_offset`): an int, `+05:30`, `-0300`, `UTC`, `Z`, `GMT`.
pub fn parse_db_timezone(zone: ZoneArg<'_>) -> Result<i32> {
    let (minutes, detail) = match zone {
        ZoneArg::Minutes(m) => (m, Detail::Int(m)),
        ZoneArg::Text(raw) => {
            let bad = || {
                value_error_with(
                    format!("time zone {} is not an offset like +05:30", super::py_repr(raw)),
                    vec![("zone", raw.into())],
                )
            };
            let text = raw.trim_matches(super::text::py_isspace).to_uppercase();
            if matches!(text.as_str(), "Z" | "UTC" | "GMT") {
                return Ok(0);
            }
            let mut chars = text.chars();
            let sign = chars.next();
            let body: Vec<char> = chars.filter(|&c| c != ':').collect();
            if !matches!(sign, Some('+' | '-')) || body.len() != 4 || !body.iter().all(char::is_ascii_digit) {
                return Err(bad());
            }
            let digit = |i: usize| i64::from(body[i] as u8 - b'0');
            let m = (digit(0) * 10 + digit(1)) * 60 + digit(2) * 10 + digit(3);
            (if sign == Some('-') { -m } else { m }, raw.into())
        }
    };
    if !(-24 * 60 < minutes && minutes < 24 * 60) {
        let shown = match zone {
            ZoneArg::Minutes(m) => m.to_string(),
            ZoneArg::Text(t) => super::py_repr(t),
        };
        return Err(value_error_with(
            format!("time zone offset {shown} out of range"),
            vec![("zone", detail)],
        ));
    }
    Ok(minutes as i32)
}

// --- the types ---------------------------------------------------------------------------------

/// DATE (7 bytes) -> `2024-01-15T10:20:30`.
pub fn render_date(data: &[u8], out: &mut String) -> Result<()> {
    check_length(data, TypeName::Date, 7)?;
    push_fields(&date_fields(data, TypeName::Date)?, 0, out);
    Ok(())
}

fn timestamp_parts(data: &[u8], type_name: TypeName) -> Result<(Fields, i64)> {
    if data.len() != 7 && data.len() != 11 {
        let message = format!("{} must be 7 or 11 bytes, got {}", type_name.as_str(), data.len());
        return Err(value_error(message, type_name, data));
    }
    let fields = date_fields(data, type_name)?;
    let nanos = if data.len() == 11 { nanos(data, type_name)? } else { 0 };
    Ok((fields, nanos))
}

/// TIMESTAMP (7 or 11 bytes) -> `2024-01-15T10:20:30.123456789`.
pub fn render_timestamp(data: &[u8], out: &mut String) -> Result<()> {
    let (fields, nanos) = timestamp_parts(data, TypeName::Timestamp)?;
    push_fields(&fields, nanos, out);
    Ok(())
}

/// TIMESTAMP WITH TIME ZONE (13 bytes) -> local time and offset, or UTC and the region id.
pub fn render_timestamp_tz(data: &[u8], out: &mut String) -> Result<()> {
    let t = TypeName::TimestampTz;
    check_length(data, t, 13)?;
    let fields = date_fields(data, t)?;
    let nanos = nanos(data, t)?;
    let (zone_hour, zone_minute) = (data[11], data[12]);
    if (5..=36).contains(&zone_hour) {
        if !(1..=119).contains(&zone_minute) {
            return Err(value_error("invalid time zone minutes", t, data));
        }
        let offset = (i32::from(zone_hour) - 20) * 60 + i32::from(zone_minute) - 60;
        push_fields(&shift(fields, offset), nanos, out);
        push_offset(out, offset);
    } else {
        push_fields(&fields, nanos, out);
        let region = (u32::from(zone_hour) << 8) | u32::from(zone_minute);
        let _ = write!(out, "Z [TZ region {region}]");
    }
    Ok(())
}

/// TIMESTAMP WITH LOCAL TIME ZONE (7 or 11 bytes in the database time zone) -> UTC, `...Z`.
pub fn render_timestamp_ltz(data: &[u8], zone: ZoneArg<'_>, out: &mut String) -> Result<()> {
    let (fields, nanos) = timestamp_parts(data, TypeName::TimestampLtz)?;
    let offset = parse_db_timezone(zone)?;
    let fields = if offset != 0 { shift(fields, -offset) } else { fields };
    push_fields(&fields, nanos, out);
    out.push('Z');
    Ok(())
}

/// INTERVAL YEAR TO MONTH (5 bytes) -> `+02-03` / `-02-03`.
pub fn render_interval_ym(data: &[u8], out: &mut String) -> Result<()> {
    let t = TypeName::IntervalYm;
    check_length(data, t, 5)?;
    let years = be32(data) - INTERVAL_BIAS;
    let months = i64::from(data[4]) - 60;
    if !(-11..=11).contains(&months) || (years < 0 && 0 < months) || (months < 0 && 0 < years) {
        return Err(value_error("invalid INTERVAL YEAR TO MONTH bytes", t, data));
    }
    out.push(if years < 0 || months < 0 { '-' } else { '+' });
    push_2(out, years.abs());
    out.push('-');
    push_2(out, months.abs());
    Ok(())
}

/// INTERVAL DAY TO SECOND (11 bytes) -> `+01 02:03:04.500000000`.
pub fn render_interval_ds(data: &[u8], out: &mut String) -> Result<()> {
    let t = TypeName::IntervalDs;
    check_length(data, t, 11)?;
    let days = be32(data) - INTERVAL_BIAS;
    let (hours, minutes, seconds) =
        (i64::from(data[4]) - 60, i64::from(data[5]) - 60, i64::from(data[6]) - 60);
    let nanos = be32(&data[7..]) - INTERVAL_BIAS;
    let parts = [days, hours, minutes, seconds, nanos];
    let (min, max) = (parts.iter().min().copied().unwrap_or(0), parts.iter().max().copied().unwrap_or(0));
    let in_range = (-23..=23).contains(&hours)
        && (-59..=59).contains(&minutes)
        && (-59..=59).contains(&seconds)
        && -NANOS_PER_SECOND < nanos
        && nanos < NANOS_PER_SECOND;
    if !in_range || (min < 0 && 0 < max) {
        return Err(value_error("invalid INTERVAL DAY TO SECOND bytes", t, data));
    }
    out.push(if min < 0 { '-' } else { '+' });
    push_2(out, days.abs());
    out.push(' ');
    push_2(out, hours.abs());
    out.push(':');
    push_2(out, minutes.abs());
    out.push(':');
    push_2(out, seconds.abs());
    if nanos != 0 {
        out.push('.');
        push_padded(out, nanos.abs(), 9);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::values::tests::unhex;

    fn run(f: fn(&[u8], &mut String) -> Result<()>, hex: &str) -> Result<String> {
        let mut out = String::new();
        f(&unhex(hex), &mut out).map(|()| out)
    }

    #[test]
    fn dates_and_timestamps_of_test_datetimes() {
        for (hex, text) in [
            ("78 7c 01 0f 0b 15 1f", "2024-01-15T10:20:30"),
            ("78 71 03 1f 18 3c 3b", "2013-03-31T23:59:58"),
            ("78 64 02 1d 01 01 01", "2000-02-29T00:00:00"),
            ("64 65 01 01 01 01 01", "0001-01-01T00:00:00"),
            ("c7 c7 0c 1f 18 3c 3c", "9999-12-31T23:59:59"),
            ("35 58 01 01 01 01 01", "-4712-01-01T00:00:00"),
            ("64 63 0c 1f 01 01 01", "-0001-12-31T00:00:00"),
            ("63 64 06 0f 0d 1f 1f", "-0100-06-15T12:30:30"),
        ] {
            assert_eq!(run(render_date, hex).unwrap(), text, "{hex}");
        }
        for (hex, text) in [
            ("78 7c 01 0f 0b 15 1f", "2024-01-15T10:20:30"),
            ("78 7c 01 0f 0b 15 1f 07 5b cd 15", "2024-01-15T10:20:30.123456789"),
            ("78 7c 01 0f 0b 15 1f 00 00 00 01", "2024-01-15T10:20:30.000000001"),
            ("78 7c 01 0f 0b 15 1f 3b 9a c9 ff", "2024-01-15T10:20:30.999999999"),
            ("35 58 01 01 01 01 01 1d cd 65 00", "-4712-01-01T00:00:00.500000000"),
            ("78 7c 01 0f 0b 15 1f 00 00 00 00", "2024-01-15T10:20:30"),
        ] {
            assert_eq!(run(render_timestamp, hex).unwrap(), text, "{hex}");
        }
    }

    #[test]
    fn malformed_dates_name_their_type() {
        for hex in [
            "78 7c 01 0f 0b 15",
            "78 7c 01 0f 0b 15 1f 00",
            "78 7c 00 0f 0b 15 1f",
            "78 7c 0d 0f 0b 15 1f",
            "78 7c 01 00 0b 15 1f",
            "78 7c 01 20 0b 15 1f",
            "78 7c 01 0f 00 15 1f",
            "78 7c 01 0f 19 15 1f",
            "78 7c 01 0f 0b 3d 1f",
            "78 7c 01 0f 0b 15 3d",
            "64 64 01 01 01 01 01",
            "78 32 01 01 01 01 01",
            "35 57 01 01 01 01 01",
            "78 c8 01 01 01 01 01",
            "",
        ] {
            let e = run(render_date, hex).unwrap_err();
            let compact: String = hex.split_whitespace().collect();
            assert_eq!(e.info().details, vec![("type", "DATE".into()), ("hex", compact.as_str().into())]);
        }
        assert_eq!(run(render_date, "78").unwrap_err().info().message, "DATE must be 7 bytes, got 1");
        let e = run(render_timestamp, "78 7c 01 0f 0b 15 1f 3b 9a ca 00").unwrap_err();
        assert_eq!(e.info().message, "fractional seconds out of range: 1000000000");
        let e = run(render_timestamp, "78 7c 01 0f 0b 15 1f 00 00").unwrap_err();
        assert_eq!(e.info().message, "TIMESTAMP must be 7 or 11 bytes, got 9");
    }

    #[test]
    fn timestamps_with_time_zone_of_test_datetimes() {
        for (hex, text) in [
            ("78 7c 01 0f 0b 15 1f 00 00 00 00 19 5a", "2024-01-15T15:50:30+05:30"),
            ("78 7c 01 0f 0b 15 1f 00 00 00 00 14 3c", "2024-01-15T10:20:30+00:00"),
            ("78 7c 01 01 04 29 01 00 00 00 00 11 1e", "2024-01-01T00:10:00-03:30"),
            ("78 7c 01 0f 0b 15 1f 00 00 00 00 14 1e", "2024-01-15T09:50:30-00:30"),
            ("78 7c 03 01 02 01 01 00 00 00 00 0f 3c", "2024-02-29T20:00:00-05:00"),
            ("78 7b 0c 1f 15 01 01 00 00 00 00 19 3c", "2024-01-01T01:00:00+05:00"),
            ("78 7c 01 0f 0b 15 1f 07 5b cd 15 24 3c", "2024-01-16T02:20:30.123456789+16:00"),
            ("73 b6 0a 04 18 01 01 00 00 00 00 16 3c", "1582-10-15T01:00:00+02:00"),
            ("73 64 02 1c 18 01 01 00 00 00 00 16 3c", "1500-02-29T01:00:00+02:00"),
            ("64 63 02 1c 18 01 01 00 00 00 00 16 3c", "-0001-02-29T01:00:00+02:00"),
            ("64 62 02 1c 18 01 01 00 00 00 00 16 3c", "-0002-03-01T01:00:00+02:00"),
            ("64 63 0c 1f 18 01 01 00 00 00 00 16 3c", "0001-01-01T01:00:00+02:00"),
            ("64 65 01 01 01 01 01 00 00 00 00 0f 3c", "-0001-12-31T19:00:00-05:00"),
            ("78 7c 01 0f 0b 15 1f 00 00 00 00 86 14", "2024-01-15T10:20:30Z [TZ region 34324]"),
        ] {
            assert_eq!(run(render_timestamp_tz, hex).unwrap(), text, "{hex}");
        }
        let e = run(render_timestamp_tz, "78 7c 01 0f 0b 15 1f 00 00 00 00 14 00").unwrap_err();
        assert_eq!(e.info().message, "invalid time zone minutes");
    }

    #[test]
    fn local_time_zone_goes_to_utc() {
        let ltz = |hex: &str, zone| {
            let mut out = String::new();
            render_timestamp_ltz(&unhex(hex), zone, &mut out).map(|()| out)
        };
        assert_eq!(ltz("78 7c 01 01 02 01 01", ZoneArg::Text("+05:30")).unwrap(), "2023-12-31T19:30:00Z");
        assert_eq!(ltz("78 7c 01 01 02 01 01", ZoneArg::Text(" utc ")).unwrap(), "2024-01-01T01:00:00Z");
        assert_eq!(ltz("78 7c 01 01 02 01 01", ZoneArg::Text("-0300")).unwrap(), "2024-01-01T04:00:00Z");
        assert_eq!(ltz("78 7c 01 01 02 01 01", ZoneArg::Minutes(-60)).unwrap(), "2024-01-01T02:00:00Z");
        let e = ltz("78 7c 01 01 02 01 01", ZoneArg::Text("+99:00")).unwrap_err();
        assert_eq!(e.info().message, "time zone offset '+99:00' out of range");
        assert_eq!(e.info().details, vec![("zone", "+99:00".into())]);
        let e = ltz("78 7c 01 01 02 01 01", ZoneArg::Minutes(1440)).unwrap_err();
        assert_eq!(e.info().message, "time zone offset 1440 out of range");
        assert_eq!(e.info().details, vec![("zone", Detail::Int(1440))]);
        let e = ltz("78 7c 01 01 02 01 01", ZoneArg::Text("Europe/Paris")).unwrap_err();
        assert_eq!(e.info().message, "time zone 'Europe/Paris' is not an offset like +05:30");
        // the bytes are checked before the zone
        assert_eq!(
            ltz("78", ZoneArg::Text("bad")).unwrap_err().info().details[0].1,
            "TIMESTAMP WITH LOCAL TIME ZONE".into()
        );
    }

    #[test]
    fn intervals_of_test_codecs() {
        assert_eq!(run(render_interval_ym, "80 00 00 02 3f").unwrap(), "+02-03");
        assert_eq!(run(render_interval_ym, "7f ff ff fe 39").unwrap(), "-02-03");
        assert_eq!(run(render_interval_ym, "ff ff ff ff 3c").unwrap(), "+2147483647-00");
        assert!(run(render_interval_ym, "80 00 00 02 39").is_err());
        assert_eq!(
            run(render_interval_ds, "80 00 00 01 3e 3f 40 9d cd 65 00").unwrap(),
            "+01 02:03:04.500000000"
        );
        assert_eq!(run(render_interval_ds, "80 00 00 00 3c 3c 3b 80 00 00 00").unwrap(), "-00 00:00:01");
        assert_eq!(
            run(render_interval_ds, "80 00 00 01 3e 3f 40 80 00 00 05").unwrap(),
            "+01 02:03:04.000000005"
        );
        let e = run(render_interval_ds, "80 00 00 01 3e 3f 3b 80 00 00 00").unwrap_err();
        assert_eq!(e.info().message, "invalid INTERVAL DAY TO SECOND bytes");
    }
}
