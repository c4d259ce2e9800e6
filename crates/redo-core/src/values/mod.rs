//! Column values -> trail text, for every Oracle type code `redo_lib/values/codecs.py` handles
//! (redo-format §7). One family per module; [`render_value`] is `codecs.decode_value`:
//!
//! | code | type | text | module |
//! |---|---|---|---|
//! | 1, 96 | VARCHAR2 / NVARCHAR2, CHAR / NCHAR | decoded in the column's charset, blank padding kept | [`text`] |
//! | 8 | LONG | text in the database charset (stored inline in the row, never as AL16UTF16) | [`text`] |
//! | 2 | NUMBER / FLOAT | exact decimal text `1011`, `-12.5`, `~`, `-~` | [`number`] |
//! | 12 | DATE | `2024-01-15T10:20:30` | [`datetime`] |
//! | 180 | TIMESTAMP | `2024-01-15T10:20:30.123456789` | [`datetime`] |
//! | 181 | TIMESTAMP WITH TIME ZONE | `2024-01-15T15:50:30+05:30`, `...Z [TZ region 34324]` | [`datetime`] |
//! | 231 | TIMESTAMP WITH LOCAL TIME ZONE | UTC, `2024-01-15T10:20:30Z` | [`datetime`] |
//! | 23, 24, 113 | RAW, LONG RAW, BLOB data | upper-case hex | here |
//! | 100, 101 | BINARY_FLOAT / BINARY_DOUBLE | Python's shortest repr, `Inf`, `-Inf`, `Nan` | [`float`] |
//! | 182, 183 | INTERVAL YEAR TO MONTH / DAY TO SECOND | `+02-03`, `+01 02:03:04.500000000` | [`datetime`] |
//! | 252 | BOOLEAN | `TRUE` / `FALSE` | here |
//! | 69 | ROWID | 10 bytes (data object, DBA, slot): 18-char ROWID | [`rowid`] |
//! | 208 | UROWID | physical (`0x01`, 13 bytes): 18-char ROWID; logical (IOT, `0x02`) or foreign: hex | [`rowid`] |
//! | 112 | CLOB / NCLOB data | text; AL16UTF16 when the charset is AL32UTF8 / UTF8 | [`text`] |
//! | other | | upper-case hex | here |
//!
//! LONG and LONG RAW have no Python codec: their oracle in the differential test is the codec of
//! the type they render like (VARCHAR2, RAW).
//!
//! The Python codecs are the oracle: the same text for every input, and where Python raises
//! `ValueDecodeError`, an [`Error::ValueDecode`] with the same message and details
//! (`tests/unit/native/test_values_differential.py`). A value has no position in the log: the
//! caller adds it. No panics on any bytes.

#[cfg(test)]
mod charset_tests;
pub mod datetime;
pub mod float;
pub mod number;
pub mod rowid;
pub mod tables;
pub mod text;

use crate::error::{Detail, Error, ErrorInfo, Position, Result};

pub use text::Charset;

/// Oracle type codes (redo-format §7; `codecs.CODECS`).
pub mod code {
    pub const VARCHAR2: i64 = 1;
    pub const NUMBER: i64 = 2;
    pub const LONG: i64 = 8;
    pub const DATE: i64 = 12;
    pub const RAW: i64 = 23;
    pub const LONG_RAW: i64 = 24;
    pub const ROWID: i64 = 69;
    pub const CHAR: i64 = 96;
    pub const BINARY_FLOAT: i64 = 100;
    pub const BINARY_DOUBLE: i64 = 101;
    pub const CLOB: i64 = 112;
    pub const BLOB: i64 = 113;
    pub const TIMESTAMP: i64 = 180;
    pub const TIMESTAMP_TZ: i64 = 181;
    pub const INTERVAL_YM: i64 = 182;
    pub const INTERVAL_DS: i64 = 183;
    pub const UROWID: i64 = 208;
    pub const TIMESTAMP_LTZ: i64 = 231;
    pub const BOOLEAN: i64 = 252;
    /// Every code with a codec (any other renders as hex).
    pub const ALL: [i64; 19] = [
        VARCHAR2,
        NUMBER,
        LONG,
        DATE,
        RAW,
        LONG_RAW,
        ROWID,
        CHAR,
        BINARY_FLOAT,
        BINARY_DOUBLE,
        CLOB,
        BLOB,
        TIMESTAMP,
        TIMESTAMP_TZ,
        INTERVAL_YM,
        INTERVAL_DS,
        UROWID,
        TIMESTAMP_LTZ,
        BOOLEAN,
    ];
}

/// The `type` detail of a value error, as the Python codecs name it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TypeName {
    Number,
    Date,
    Timestamp,
    TimestampTz,
    TimestampLtz,
    IntervalYm,
    IntervalDs,
    BinaryFloat,
    BinaryDouble,
    Boolean,
    Urowid,
    Rowid,
    Varchar2,
    Long,
}

impl TypeName {
    pub fn as_str(self) -> &'static str {
        match self {
            TypeName::Number => "NUMBER",
            TypeName::Date => "DATE",
            TypeName::Timestamp => "TIMESTAMP",
            TypeName::TimestampTz => "TIMESTAMP WITH TIME ZONE",
            TypeName::TimestampLtz => "TIMESTAMP WITH LOCAL TIME ZONE",
            TypeName::IntervalYm => "INTERVAL YEAR TO MONTH",
            TypeName::IntervalDs => "INTERVAL DAY TO SECOND",
            TypeName::BinaryFloat => "BINARY_FLOAT",
            TypeName::BinaryDouble => "BINARY_DOUBLE",
            TypeName::Boolean => "BOOLEAN",
            TypeName::Urowid => "UROWID",
            TypeName::Rowid => "ROWID",
            TypeName::Varchar2 => "VARCHAR2",
            TypeName::Long => "LONG",
        }
    }
}

/// A `ValueDecodeError` without a position, details in Python's order.
pub(crate) fn value_error_with(message: impl Into<String>, details: Vec<(&'static str, Detail)>) -> Error {
    Error::ValueDecode(Box::new(ErrorInfo {
        message: message.into(),
        position: Position::default(),
        details,
    }))
}

/// The common shape: `ValueDecodeError(message, type=<type>, hex=data.hex())`.
pub(crate) fn value_error(message: impl Into<String>, type_name: TypeName, data: &[u8]) -> Error {
    value_error_with(message, vec![("type", type_name.as_str().into()), ("hex", hex_lower(data).into())])
}

const HEX_UPPER: &[u8; 16] = b"0123456789ABCDEF";
const HEX_LOWER: &[u8; 16] = b"0123456789abcdef";

/// `data.hex().upper()`, appended.
pub fn push_hex_upper(data: &[u8], out: &mut String) {
    out.reserve(2 * data.len());
    for &b in data {
        out.push(char::from(HEX_UPPER[usize::from(b >> 4)]));
        out.push(char::from(HEX_UPPER[usize::from(b & 15)]));
    }
}

/// `data.hex()` (the `hex` detail of an error).
pub fn hex_lower(data: &[u8]) -> String {
    let mut s = String::with_capacity(2 * data.len());
    for &b in data {
        s.push(char::from(HEX_LOWER[usize::from(b >> 4)]));
        s.push(char::from(HEX_LOWER[usize::from(b & 15)]));
    }
    s
}

/// A character set as the caller names it: Oracle id or name (`decode_value(charset=...)`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CharsetArg<'a> {
    Id(i64),
    Name(&'a str),
}

impl CharsetArg<'_> {
    /// The charset it names, or `None` (`text._lookup`: exact, then the name stripped and upper-cased).
    pub fn resolve(self) -> Option<Charset> {
        match self {
            CharsetArg::Id(id) => Charset::from_id(id),
            CharsetArg::Name(name) => Charset::from_name(name),
        }
    }

    /// `codecs.lob_charset`: CLOB data of a varying-width multi-byte charset (AL32UTF8, UTF8,
    /// ZHS16GBK, JA16SJIS, ...: by exact name or id) is stored as AL16UTF16.
    pub fn lob(self) -> Self {
        let exact = match self {
            CharsetArg::Id(id) => Charset::from_id(id),
            CharsetArg::Name(name) => Charset::ALL.into_iter().find(|c| c.name() == name),
        };
        match exact {
            Some(cs) if cs.is_multibyte() => CharsetArg::Name("AL16UTF16"),
            _ => self,
        }
    }

    pub(crate) fn unsupported(self) -> Error {
        match self {
            CharsetArg::Id(id) => value_error_with(
                format!("unsupported character set {id}"),
                vec![("charset", Detail::Int(id))],
            ),
            CharsetArg::Name(name) => value_error_with(
                format!("unsupported character set {}", py_repr(name)),
                vec![("charset", name.into())],
            ),
        }
    }
}

/// The database time zone for TIMESTAMP WITH LOCAL TIME ZONE: minutes east of UTC, or text like
/// `+05:30`, `-0300`, `UTC` (`datetimes._parse_offset`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ZoneArg<'a> {
    Minutes(i64),
    Text(&'a str),
}

impl Default for ZoneArg<'_> {
    fn default() -> Self {
        ZoneArg::Minutes(0)
    }
}

/// `decode_value(type_code, data, charset=..., db_timezone=...)`: the trail text of one column value.
pub fn render_value(
    type_code: i64,
    data: &[u8],
    charset: CharsetArg<'_>,
    zone: ZoneArg<'_>,
) -> Result<String> {
    let mut out = String::with_capacity(data.len() * 2 + 8);
    render_value_into(type_code, data, charset, zone, &mut out)?;
    Ok(out)
}

/// [`render_value`], appending to `out` (on an error `out` may hold part of the text: truncate it).
pub fn render_value_into(
    type_code: i64,
    data: &[u8],
    charset: CharsetArg<'_>,
    zone: ZoneArg<'_>,
    out: &mut String,
) -> Result<()> {
    match type_code {
        code::VARCHAR2 | code::CHAR => text::render_text(data, charset, out),
        // LONG: the database charset as is; only LOB data is kept as AL16UTF16
        code::LONG => text::render_text_as(data, charset, TypeName::Long, out),
        code::CLOB => text::render_text(data, charset.lob(), out),
        code::NUMBER => number::render_number(data, out),
        code::DATE => datetime::render_date(data, out),
        code::TIMESTAMP => datetime::render_timestamp(data, out),
        code::TIMESTAMP_TZ => datetime::render_timestamp_tz(data, out),
        code::TIMESTAMP_LTZ => datetime::render_timestamp_ltz(data, zone, out),
        code::BINARY_FLOAT => float::render_binary_float(data, out),
        code::BINARY_DOUBLE => float::render_binary_double(data, out),
        code::INTERVAL_YM => datetime::render_interval_ym(data, out),
        code::INTERVAL_DS => datetime::render_interval_ds(data, out),
        code::BOOLEAN => render_boolean(data, out),
        code::ROWID => rowid::render_rowid(data, out),
        code::UROWID => rowid::render_urowid(data, out),
        _ => {
            // RAW, LONG RAW, BLOB data, and any type code without a codec
            push_hex_upper(data, out);
            Ok(())
        }
    }
}

fn render_boolean(data: &[u8], out: &mut String) -> Result<()> {
    match data {
        [1] => out.push_str("TRUE"),
        [0] => out.push_str("FALSE"),
        _ => return Err(value_error("BOOLEAN must be one byte 0 or 1", TypeName::Boolean, data)),
    }
    Ok(())
}

/// Python's `repr()` of a `str`, for error messages that quote an argument (`{charset!r}`).
///
/// Exact for ASCII and for printable text; for other characters Python asks the Unicode database
/// whether they print: here the controls, separators, format characters, private-use and
/// non-characters are escaped as Python escapes them, but an unassigned code point prints as
/// itself (Python escapes it: the one difference, in a message only).
pub fn py_repr(text: &str) -> String {
    let quote = if text.contains('\'') && !text.contains('"') { '"' } else { '\'' };
    let mut out = String::with_capacity(text.len() + 2);
    out.push(quote);
    for c in text.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\t' => out.push_str("\\t"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            c if c == quote => {
                out.push('\\');
                out.push(c);
            }
            c if (c as u32) < 0x20 || c as u32 == 0x7F => out.push_str(&format!("\\x{:02x}", c as u32)),
            c if (c as u32) < 0x7F => out.push(c),
            c if py_printable(c) => out.push(c),
            c if (c as u32) < 0x100 => out.push_str(&format!("\\x{:02x}", c as u32)),
            c if (c as u32) < 0x10000 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push_str(&format!("\\U{:08x}", c as u32)),
        }
    }
    out.push(quote);
    out
}

/// `str.isprintable()` of one non-ASCII character (see [`py_repr`] for the approximation).
fn py_printable(c: char) -> bool {
    let u = c as u32;
    !matches!(u,
        0x80..=0xA0 | 0xAD // C1 controls, NO-BREAK SPACE, SOFT HYPHEN
        | 0x600..=0x605 | 0x61C | 0x6DD | 0x70F | 0x890..=0x891 | 0x8E2 | 0x1680 | 0x180E
        | 0x2000..=0x200F | 0x2028..=0x202F | 0x205F..=0x2064 | 0x2066..=0x206F | 0x3000
        | 0xD800..=0xF8FF | 0xFDD0..=0xFDEF | 0xFEFF | 0xFFF9..=0xFFFB
        | 0x110BD | 0x110CD | 0x13430..=0x1343F | 0x1BCA0..=0x1BCA3 | 0x1D173..=0x1D17A
        | 0xE0001 | 0xE0020..=0xE007F | 0xF0000..)
        && (u & 0xFFFE) != 0xFFFE
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    pub(crate) fn unhex(hex: &str) -> Vec<u8> {
        let digits: Vec<u8> = hex.bytes().filter(|b| !b.is_ascii_whitespace()).collect();
        digits.chunks(2).map(|p| u8::from_str_radix(std::str::from_utf8(p).unwrap(), 16).unwrap()).collect()
    }

    fn render(code: i64, hex: &str) -> Result<String> {
        render_value(code, &unhex(hex), CharsetArg::Name("AL32UTF8"), ZoneArg::Minutes(0))
    }

    #[test]
    fn decode_value_table_of_test_codecs() {
        // tests/unit/redo_lib/values/test_codecs.py DECODED: AL32UTF8, database time zone UTC
        for (code, hex, text) in [
            (2, "c2 0b 0c", "1011"),
            (2, "3e 59 33 66", "-12.5"),
            (1, "4a 6f 72 64 61 6e", "Jordan"),
            (96, "41 42 20 20", "AB  "),
            (1, "", ""),
            (12, "78 7c 01 0f 0b 15 1f", "2024-01-15T10:20:30"),
            (180, "78 7c 01 0f 0b 15 1f 07 5b cd 15", "2024-01-15T10:20:30.123456789"),
            (181, "78 7c 01 0f 0b 15 1f 00 00 00 00 19 5a", "2024-01-15T15:50:30+05:30"),
            (231, "78 7c 01 0f 0b 15 1f", "2024-01-15T10:20:30Z"),
            (23, "de ad be ef", "DEADBEEF"),
            (23, "", ""),
            (100, "bd cc cc cd", "0.1"),
            (101, "c0 29 00 00 00 00 00 00", "12.5"),
            (101, "ff f0 00 00 00 00 00 00", "Inf"),
            (182, "80 00 00 02 3f", "+02-03"),
            (183, "80 00 00 01 3e 3f 40 9d cd 65 00", "+01 02:03:04.500000000"),
            (252, "01", "TRUE"),
            (252, "00", "FALSE"),
            (208, "01 00 01 56 99 00 02 00 04 00 00 00 b0", "AAAVaZAAEAAAACwAAC"),
            (208, "02 04 c1 02", "0204C102"),
            (69, "00 01 56 99 01 00 00 b0 00 02", "AAAVaZAAEAAAACwAAC"),
            (58, "00 54 00 01", "00540001"),
            (112, "00 54 00 01", "T\u{1}"),
            (113, "de ad be ef", "DEADBEEF"),
            (113, "", ""),
            (999, "0a", "0A"),
        ] {
            assert_eq!(render(code, hex).unwrap(), text, "{code} {hex}");
        }
    }

    #[test]
    fn options_of_test_codecs() {
        let v = |code, hex, cs, zone| render_value(code, &unhex(hex), cs, zone).unwrap();
        let utc = ZoneArg::Minutes(0);
        assert_eq!(v(1, "00 4a 00 6f", CharsetArg::Name("AL16UTF16"), utc), "Jo");
        assert_eq!(v(96, "63 61 66 e9", CharsetArg::Id(31), utc), "café");
        assert_eq!(v(1, "ed a0 bd ed b8 80", CharsetArg::Name("UTF8"), utc), "😀");
        let ist = ZoneArg::Text("+05:30");
        assert_eq!(v(231, "78 7c 01 01 02 01 01", CharsetArg::Id(873), ist), "2023-12-31T19:30:00Z");
        assert_eq!(v(2, "c2 0b 0c", CharsetArg::Name("no such charset"), utc), "1011");
        // CLOB data: AL16UTF16 for a multi-byte charset named exactly, else the charset itself
        assert_eq!(v(112, "00 e9", CharsetArg::Name("AL32UTF8"), utc), "é");
        assert_eq!(v(112, "00 e9", CharsetArg::Id(871), utc), "é");
        assert_eq!(v(112, "e9", CharsetArg::Name("WE8ISO8859P1"), utc), "é");
        assert_eq!(v(112, "41", CharsetArg::Name(" al32utf8 "), utc), "A");
    }

    #[test]
    fn malformed_values_of_test_codecs_are_value_errors() {
        for (code, hex) in [
            (2, ""),
            (2, "c1 00"),
            (1, "ff"),
            (12, "78 7c 01"),
            (180, ""),
            (181, "78 7c 01 0f 0b 15 1f"),
            (100, "bd cc cc"),
            (252, "02"),
            (252, ""),
            (208, "01 00"),
            (69, "00 01 56 99 01 00 00 b0 00"),
        ] {
            assert_eq!(render(code, hex).unwrap_err().kind(), "value", "{code} {hex}");
        }
        let e = render(252, "02").unwrap_err();
        assert_eq!(e.info().message, "BOOLEAN must be one byte 0 or 1");
        assert_eq!(e.info().details, vec![("type", "BOOLEAN".into()), ("hex", "02".into())]);
    }

    #[test]
    fn long_is_text_in_the_database_charset() {
        let v = |hex, cs| render_value(code::LONG, &unhex(hex), cs, ZoneArg::Minutes(0));
        // AL32UTF8: "é€😀" as UTF-8 (not AL16UTF16 as CLOB data of the same database would be)
        let utf8 = "c3 a9 e2 82 ac f0 9f 98 80";
        assert_eq!(v(utf8, CharsetArg::Name("AL32UTF8")).unwrap(), "é€😀");
        assert_eq!(v(utf8, CharsetArg::Id(873)).unwrap(), "é€😀");
        // UTF8 (CESU-8): a supplementary character as two 3-byte surrogates
        assert_eq!(v("ed a0 bd ed b8 80", CharsetArg::Name("UTF8")).unwrap(), "😀");
        // single-byte and the Asian multi-byte sets
        assert_eq!(v("63 61 66 e9", CharsetArg::Name("WE8ISO8859P1")).unwrap(), "café");
        assert_eq!(v("d6 d0 ce c4", CharsetArg::Name("ZHS16GBK")).unwrap(), "中文");
        // a long value, as many bytes as a row piece holds
        let big = "41 ".repeat(6000);
        assert_eq!(v(&big, CharsetArg::Name("AL32UTF8")).unwrap(), "A".repeat(6000));
        assert_eq!(v("", CharsetArg::Name("AL32UTF8")).unwrap(), "");
    }

    #[test]
    fn bad_long_bytes_are_a_value_error_naming_long() {
        let bad = |hex, cs| render_value(code::LONG, &unhex(hex), cs, ZoneArg::Minutes(0)).unwrap_err();
        let e = bad("41 c3", CharsetArg::Name("AL32UTF8"));
        assert_eq!(e.kind(), "value");
        assert!(e.info().message.starts_with("bytes are not valid AL32UTF8: "), "{}", e.info().message);
        assert_eq!(
            e.info().details,
            vec![("type", "LONG".into()), ("charset", "AL32UTF8".into()), ("hex", "41c3".into())]
        );
        let e = bad("ff fe", CharsetArg::Name("AL32UTF8"));
        assert_eq!(e.info().details[0], ("type", "LONG".into()));
        let e = bad("80", CharsetArg::Name("US7ASCII"));
        assert_eq!(e.info().details[..2], [("type", "LONG".into()), ("charset", "US7ASCII".into())]);
        let e = bad("81 20", CharsetArg::Name("ZHS16GBK"));
        assert_eq!(e.info().details[0], ("type", "LONG".into()));
        // VARCHAR2 keeps its own name
        let e = render_value(code::VARCHAR2, b"\xff", CharsetArg::Name("AL32UTF8"), ZoneArg::Minutes(0));
        assert_eq!(e.unwrap_err().info().details[0], ("type", "VARCHAR2".into()));
        let e = bad("41", CharsetArg::Name("ZHT32EUC"));
        assert_eq!(e.info().message, "unsupported character set 'ZHT32EUC'");
    }

    #[test]
    fn long_raw_is_upper_case_hex() {
        let v = |hex| render(code::LONG_RAW, hex).unwrap();
        assert_eq!(v("de ad be ef 00 ff"), "DEADBEEF00FF");
        assert_eq!(v(""), "");
        assert_eq!(v(&"0a ".repeat(5000)), "0A".repeat(5000));
    }

    #[test]
    fn unknown_charsets_are_named_like_python() {
        let e = render_value(1, b"A", CharsetArg::Name("ZHT32EUC"), ZoneArg::Minutes(0)).unwrap_err();
        assert_eq!(e.info().message, "unsupported character set 'ZHT32EUC'");
        assert_eq!(e.info().details, vec![("charset", "ZHT32EUC".into())]);
        let e = render_value(96, b"A", CharsetArg::Id(999), ZoneArg::Minutes(0)).unwrap_err();
        assert_eq!(e.info().message, "unsupported character set 999");
        assert_eq!(e.info().details, vec![("charset", Detail::Int(999))]);
    }

    #[test]
    fn py_repr_quotes_like_python() {
        assert_eq!(py_repr("abc"), "'abc'");
        assert_eq!(py_repr("it's"), "\"it's\"");
        assert_eq!(py_repr("'\""), "'\\'\"'");
        assert_eq!(py_repr("a\\b\t\n\r\x00\x1c\x7f"), "'a\\\\b\\t\\n\\r\\x00\\x1c\\x7f'");
        assert_eq!(py_repr(" \u{1c}\u{3000}é\u{85}\u{a0}😀"), "' \\x1c\\u3000é\\x85\\xa0😀'");
        assert_eq!(py_repr("\u{e000}\u{10ffff}\u{fffe}"), "'\\ue000\\U0010ffff\\ufffe'");
    }
}
