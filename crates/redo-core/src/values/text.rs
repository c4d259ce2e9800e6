//! CHAR / VARCHAR2 / NCHAR / NVARCHAR2 (types 96, 1) and CLOB data (112) in the column's character
//! set (redo-format §7.2; `redo_lib/values/text.py`). The charsets `text.py` lists, decoded as
//! Python's strict codecs decode them, with the same error reasons:
//!
//! | id | name | encoding |
//! |---|---|---|
//! | 1 | US7ASCII | ASCII: a byte above 0x7F is an error |
//! | 31 | WE8ISO8859P1 | ISO-8859-1 (every byte) |
//! | 46 | WE8ISO8859P15 | ISO-8859-15 |
//! | 170 | EE8MSWIN1250 | Windows-1250, undefined bytes are errors |
//! | 171 | CL8MSWIN1251 | Windows-1251, idem |
//! | 178 | WE8MSWIN1252 | Windows-1252, idem (0x81 is no character, unlike WHATWG's table) |
//! | 871 | UTF8 | CESU-8: a pair of 3-byte surrogates is one character; 4-byte UTF-8 accepted too |
//! | 873 | AL32UTF8 | UTF-8 |
//! | 2000 | AL16UTF16 | UTF-16 big-endian, surrogate pairs, a BOM is a character |
//!
//! Single-byte tables are `tables.rs` (Python's codecs; encoding_rs follows WHATWG, which maps
//! the bytes Python refuses). CHAR values keep their blank padding.

use super::tables::{self, UNDEFINED};
use super::{value_error_with, CharsetArg, TypeName};
use crate::error::{Error, Result};

/// A character set this module decodes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Charset {
    UsAscii,
    Latin1,
    Latin9,
    Windows1250,
    Windows1251,
    Windows1252,
    Cesu8,
    Utf8,
    Utf16Be,
}

impl Charset {
    /// Every charset, in `text.CHARSET_NAMES` order.
    pub const ALL: [Charset; 9] = [
        Charset::UsAscii,
        Charset::Latin1,
        Charset::Latin9,
        Charset::Windows1250,
        Charset::Windows1251,
        Charset::Windows1252,
        Charset::Cesu8,
        Charset::Utf8,
        Charset::Utf16Be,
    ];

    /// Oracle's name.
    pub fn name(self) -> &'static str {
        match self {
            Charset::UsAscii => "US7ASCII",
            Charset::Latin1 => "WE8ISO8859P1",
            Charset::Latin9 => "WE8ISO8859P15",
            Charset::Windows1250 => "EE8MSWIN1250",
            Charset::Windows1251 => "CL8MSWIN1251",
            Charset::Windows1252 => "WE8MSWIN1252",
            Charset::Cesu8 => "UTF8",
            Charset::Utf8 => "AL32UTF8",
            Charset::Utf16Be => "AL16UTF16",
        }
    }

    /// Oracle's id.
    pub fn id(self) -> i64 {
        match self {
            Charset::UsAscii => 1,
            Charset::Latin1 => 31,
            Charset::Latin9 => 46,
            Charset::Windows1250 => 170,
            Charset::Windows1251 => 171,
            Charset::Windows1252 => 178,
            Charset::Cesu8 => 871,
            Charset::Utf8 => 873,
            Charset::Utf16Be => 2000,
        }
    }

    pub fn from_id(id: i64) -> Option<Self> {
        Charset::ALL.into_iter().find(|c| c.id() == id)
    }

    /// By name: exact, else stripped and upper-cased as Python's `str.strip().upper()` do.
    pub fn from_name(name: &str) -> Option<Self> {
        let exact = |n: &str| Charset::ALL.into_iter().find(|c| c.name() == n);
        exact(name).or_else(|| exact(&name.trim_matches(py_isspace).to_uppercase()))
    }
}

/// Python's `str.isspace()` (what `str.strip()` removes): Unicode White_Space, bidi B/S/WS, and
/// the information separators 0x1C-0x1F.
pub(crate) fn py_isspace(c: char) -> bool {
    matches!(c,
        '\t'..='\r' | '\u{1c}'..=' ' | '\u{85}' | '\u{a0}' | '\u{1680}' | '\u{2000}'..='\u{200a}'
        | '\u{2028}' | '\u{2029}' | '\u{202f}' | '\u{205f}' | '\u{3000}')
}

fn invalid(charset: Charset, reason: &str, data: &[u8]) -> Error {
    value_error_with(
        format!("bytes are not valid {}: {reason}", charset.name()),
        vec![
            ("type", TypeName::Varchar2.as_str().into()),
            ("charset", charset.name().into()),
            ("hex", super::hex_lower(data).into()),
        ],
    )
}

/// Character column bytes in `charset` -> text, appended (`text.decode_text`). An unknown charset
/// or bytes that are not valid in it are a `ValueDecode` error naming the charset.
pub fn render_text(data: &[u8], charset: CharsetArg<'_>, out: &mut String) -> Result<()> {
    let Some(cs) = charset.resolve() else {
        return Err(charset.unsupported());
    };
    decode(data, cs, out).map_err(|reason| invalid(cs, reason, data))
}

/// Decode `data` in `cs`, appending to `out`; the error is Python's `UnicodeDecodeError.reason`.
pub fn decode(data: &[u8], cs: Charset, out: &mut String) -> std::result::Result<(), &'static str> {
    match cs {
        Charset::UsAscii => {
            if !data.is_ascii() {
                return Err("ordinal not in range(128)");
            }
            out.extend(data.iter().map(|&b| char::from(b)));
            Ok(())
        }
        Charset::Latin1 => {
            out.extend(data.iter().map(|&b| char::from(b)));
            Ok(())
        }
        Charset::Latin9 => single_byte(data, &tables::ISO8859_15, out),
        Charset::Windows1250 => single_byte(data, &tables::CP1250, out),
        Charset::Windows1251 => single_byte(data, &tables::CP1251, out),
        Charset::Windows1252 => single_byte(data, &tables::CP1252, out),
        Charset::Utf8 => utf8(data, out),
        Charset::Cesu8 => cesu8(data, out),
        Charset::Utf16Be => utf16be(data, out),
    }
}

const UNDEFINED_REASON: &str = "character maps to <undefined>";

fn single_byte(data: &[u8], high: &[u16; 128], out: &mut String) -> std::result::Result<(), &'static str> {
    out.reserve(data.len());
    for &b in data {
        if b < 0x80 {
            out.push(char::from(b));
            continue;
        }
        let code = high[usize::from(b - 0x80)];
        match char::from_u32(u32::from(code)) {
            Some(c) if code != UNDEFINED => out.push(c),
            _ => return Err(UNDEFINED_REASON),
        }
    }
    Ok(())
}

/// CPython's reason for the UTF-8 error `e` in `data` (its decoder and Rust's stop at the same byte).
fn utf8_reason(data: &[u8], e: std::str::Utf8Error) -> &'static str {
    match e.error_len() {
        None => "unexpected end of data",
        Some(1) if !(0xC2..=0xF4).contains(&data[e.valid_up_to()]) => "invalid start byte",
        Some(_) => "invalid continuation byte",
    }
}

fn utf8(data: &[u8], out: &mut String) -> std::result::Result<(), &'static str> {
    match std::str::from_utf8(data) {
        Ok(s) => {
            out.push_str(s);
            Ok(())
        }
        Err(e) => Err(utf8_reason(data, e)),
    }
}

/// Python's `_decode_cesu8`: UTF-8 with `surrogatepass` (a 3-byte encoded surrogate is a code
/// unit), then high + low surrogate -> one character; a UTF-8 error anywhere wins over an unpaired
/// surrogate.
fn cesu8(data: &[u8], out: &mut String) -> std::result::Result<(), &'static str> {
    if !data.contains(&0xED) {
        // every encoded surrogate (U+D800..U+DFFF) starts with 0xED
        return utf8(data, out);
    }
    // Code points and surrogate code units, in order.
    let mut units: Vec<u32> = Vec::with_capacity(data.len());
    let mut pos = 0;
    while pos < data.len() {
        let rest = &data[pos..];
        match std::str::from_utf8(rest) {
            Ok(s) => {
                units.extend(s.chars().map(u32::from));
                break;
            }
            Err(e) => {
                let good = e.valid_up_to();
                // `good` bytes are valid UTF-8: from_utf8 of them cannot fail
                units.extend(std::str::from_utf8(&rest[..good]).unwrap_or_default().chars().map(u32::from));
                match rest.get(good..good + 3) {
                    // surrogatepass: ED A0..BF 80..BF is U+D800..U+DFFF
                    Some(&[0xED, b1 @ 0xA0..=0xBF, b2 @ 0x80..=0xBF]) => {
                        units.push(0xD000 | (u32::from(b1 & 0x3F) << 6) | u32::from(b2 & 0x3F));
                        pos += good + 3;
                    }
                    _ => return Err(utf8_reason(rest, e)),
                }
            }
        }
    }
    out.reserve(units.len());
    let mut i = 0;
    while i < units.len() {
        let code = units[i];
        if (0xD800..=0xDBFF).contains(&code) {
            if let Some(&low @ 0xDC00..=0xDFFF) = units.get(i + 1) {
                let joined = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00);
                out.push(char::from_u32(joined).ok_or("unpaired surrogate")?);
                i += 2;
                continue;
            }
        }
        match char::from_u32(code) {
            Some(c) => out.push(c),
            None => return Err(unpaired(code)),
        }
        i += 1;
    }
    Ok(())
}

/// `f"unpaired surrogate U+{code:04X}"` as a `'static` reason (the 2048 surrogates, interned once).
fn unpaired(code: u32) -> &'static str {
    use std::sync::OnceLock;
    static REASONS: OnceLock<Vec<String>> = OnceLock::new();
    let reasons = REASONS
        .get_or_init(|| (0xD800..=0xDFFFu32).map(|c| format!("unpaired surrogate U+{c:04X}")).collect());
    reasons.get(code.wrapping_sub(0xD800) as usize).map_or("unpaired surrogate", String::as_str)
}

/// CPython's UTF-16 decoder, big-endian, strict: the first error and its reason.
fn utf16be(data: &[u8], out: &mut String) -> std::result::Result<(), &'static str> {
    out.reserve(data.len() / 2);
    let mut units = data.chunks_exact(2).map(|p| u32::from(u16::from_be_bytes([p[0], p[1]])));
    while let Some(unit) = units.next() {
        match unit {
            0xD800..=0xDBFF => {
                let Some(low) = units.next() else {
                    return Err("unexpected end of data");
                };
                if !(0xDC00..=0xDFFF).contains(&low) {
                    return Err("illegal UTF-16 surrogate");
                }
                let joined = 0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00);
                out.push(char::from_u32(joined).ok_or("illegal UTF-16 surrogate")?);
            }
            0xDC00..=0xDFFF => return Err("illegal encoding"),
            _ => out.push(char::from_u32(unit).ok_or("illegal encoding")?),
        }
    }
    if data.len() % 2 == 1 {
        return Err("truncated data");
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::values::tests::unhex;

    fn text(hex: &str, cs: CharsetArg<'_>) -> Result<String> {
        let mut out = String::new();
        render_text(&unhex(hex), cs, &mut out).map(|()| out)
    }

    #[test]
    fn test_text_exact_and_lenient_rows() {
        use CharsetArg::{Id, Name};
        // tests/unit/redo_lib/values/test_text.py EXACT and lenient forms
        for (cs, hex, expected) in [
            (Name("AL32UTF8"), "4a 6f 72 64 61 6e", "Jordan"),
            (Id(1), "54 41 42 4c 45", "TABLE"),
            (Name("US7ASCII"), "41 42 20 20", "AB  "),
            (Name("WE8ISO8859P1"), "63 61 66 e9", "café"),
            (Id(31), "ff", "ÿ"),
            (Name("WE8ISO8859P15"), "a4", "€"),
            (Name("EE8MSWIN1250"), "8a 9a", "Šš"),
            (Name("CL8MSWIN1251"), "cf f0 e8 e2 e5 f2", "Привет"),
            (Name("WE8MSWIN1252"), "80 93 94", "€“”"),
            (Name("AL32UTF8"), "c3 a9 e2 82 ac", "é€"),
            (Name("AL32UTF8"), "f0 9f 98 80", "😀"),
            (Name("UTF8"), "eb 82 98", "나"),
            (Name("UTF8"), "ed a0 bd ed b8 80", "😀"),
            (Id(871), "41 ed a0 b4 ed b4 9e 42", "A𝄞B"),
            (Name("AL16UTF16"), "00 4a 00 6f", "Jo"),
            (Id(2000), "d8 3d de 00", "😀"),
            (Name("AL32UTF8"), "", ""),
            (Name("al32utf8"), "4a", "J"),
            (Name("\u{1c} we8ıso8859p1\u{3000}"), "e9", "é"),
            (Name("UTF8"), "f0 9f 98 80", "😀"),
            (Name("AL16UTF16"), "fe ff 00 41", "\u{feff}A"),
        ] {
            assert_eq!(text(hex, cs).unwrap(), expected, "{cs:?} {hex}");
        }
    }

    #[test]
    fn invalid_bytes_give_python_reasons() {
        for (cs, hex, reason) in [
            ("US7ASCII", "c3 a9", "ordinal not in range(128)"),
            ("AL32UTF8", "ff", "invalid start byte"),
            ("AL32UTF8", "c3", "unexpected end of data"),
            ("AL32UTF8", "c0 80", "invalid start byte"),
            ("AL32UTF8", "e0 80", "invalid continuation byte"),
            ("AL32UTF8", "ed a0 bd ed b8 80", "invalid continuation byte"),
            ("UTF8", "ed a0 bd", "unpaired surrogate U+D83D"),
            ("UTF8", "ed b8 80 ed a0 bd", "unpaired surrogate U+DE00"),
            ("UTF8", "ed a0 bd ff", "invalid start byte"),
            ("UTF8", "ed a0", "invalid continuation byte"),
            ("UTF8", "ed 9f", "unexpected end of data"),
            ("AL16UTF16", "00 41 00", "truncated data"),
            ("AL16UTF16", "dc 00", "illegal encoding"),
            ("AL16UTF16", "d8 00", "unexpected end of data"),
            ("AL16UTF16", "d8 00 00", "unexpected end of data"),
            ("AL16UTF16", "d8 00 00 41", "illegal UTF-16 surrogate"),
            ("WE8MSWIN1252", "81", "character maps to <undefined>"),
        ] {
            let e = text(hex, CharsetArg::Name(cs)).unwrap_err();
            assert_eq!(e.info().message, format!("bytes are not valid {cs}: {reason}"), "{hex}");
            let compact: String = hex.split_whitespace().collect();
            assert_eq!(
                e.info().details,
                vec![("type", "VARCHAR2".into()), ("charset", cs.into()), ("hex", compact.as_str().into())]
            );
        }
    }
}
