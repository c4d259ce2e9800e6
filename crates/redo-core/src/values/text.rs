//! CHAR / VARCHAR2 / NCHAR / NVARCHAR2 (types 96, 1), LONG (8) and CLOB data (112) in the column's
//! character set (redo-format §7.2). The sets are `tables::CHARSETS` (44 Oracle character sets, by id and
//! name); the WHATWG ones decode through `encoding_rs`, with Oracle's deviations as small rules
//! (`tables::Rule`, docs/charsets.md). The first nine decode as Python's strict codecs do, with the
//! same error reasons (`redo_lib/values/text.py` is their test oracle):
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
//! A value a set cannot decode is an error with its bytes in hex, never U+FFFD. The multi-byte
//! sets fail with Python's CJK reasons ("illegal multibyte sequence", "incomplete multibyte
//! sequence"). CHAR values keep their blank padding.

use super::tables::{Def, Kind, Rule, CHARSETS};
use super::{value_error_with, CharsetArg, TypeName};
use crate::error::{Error, Result};
use encoding_rs::{DecoderResult, Encoding};

/// A character set this module decodes: a row of `tables::CHARSETS`.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Charset(u8);

impl std::fmt::Debug for Charset {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

const COUNT: usize = CHARSETS.len();

impl Charset {
    /// Every charset, in table order (the nine of `text.py` first).
    pub const ALL: [Charset; COUNT] = {
        let mut all = [Charset(0); COUNT];
        let mut i = 0;
        while i < COUNT {
            all[i] = Charset(i as u8);
            i += 1;
        }
        all
    };

    fn def(self) -> &'static Def {
        &CHARSETS[usize::from(self.0)]
    }

    /// Oracle's name.
    pub fn name(self) -> &'static str {
        self.def().name
    }

    /// Oracle's id (`NLS_CHARSET_ID`).
    pub fn id(self) -> i64 {
        self.def().id
    }

    /// How its bytes decode.
    pub fn kind(self) -> Kind {
        self.def().kind
    }

    /// A varying-width multi-byte set: CLOB data of its columns is stored as AL16UTF16.
    pub fn is_multibyte(self) -> bool {
        matches!(self.kind(), Kind::Multi(..) | Kind::Utf8 | Kind::Cesu8)
    }

    /// The WHATWG encoding that decodes it, if one does (`None` for the sets done here).
    pub fn encoding(self) -> Option<&'static Encoding> {
        match self.kind() {
            Kind::Single(enc, _) | Kind::Multi(enc, _) => Some(enc),
            _ => None,
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

fn invalid(charset: Charset, reason: &str, data: &[u8], type_name: TypeName) -> Error {
    value_error_with(
        format!("bytes are not valid {}: {reason}", charset.name()),
        vec![
            ("type", type_name.as_str().into()),
            ("charset", charset.name().into()),
            ("hex", super::hex_lower(data).into()),
        ],
    )
}

/// Character column bytes in `charset` -> text, appended (`text.decode_text`). An unknown charset
/// or bytes that are not valid in it are a `ValueDecode` error naming the charset.
pub fn render_text(data: &[u8], charset: CharsetArg<'_>, out: &mut String) -> Result<()> {
    render_text_as(data, charset, TypeName::Varchar2, out)
}

/// [`render_text`] for a column whose error names another type (`type_name`: LONG).
pub fn render_text_as(
    data: &[u8],
    charset: CharsetArg<'_>,
    type_name: TypeName,
    out: &mut String,
) -> Result<()> {
    let Some(cs) = charset.resolve() else {
        return Err(charset.unsupported());
    };
    decode(data, cs, out).map_err(|reason| invalid(cs, reason, data, type_name))
}

/// Decode `data` in `cs`, appending to `out`; the error is Python's `UnicodeDecodeError.reason`.
pub fn decode(data: &[u8], cs: Charset, out: &mut String) -> std::result::Result<(), &'static str> {
    match cs.kind() {
        Kind::Ascii => {
            if !data.is_ascii() {
                return Err("ordinal not in range(128)");
            }
            out.extend(data.iter().map(|&b| char::from(b)));
            Ok(())
        }
        Kind::Latin1 => {
            out.extend(data.iter().map(|&b| char::from(b)));
            Ok(())
        }
        Kind::Utf8 => utf8(data, out),
        Kind::Cesu8 => cesu8(data, out),
        Kind::Utf16Be => utf16(data, u16::from_be_bytes, out),
        Kind::Utf16Le => utf16(data, u16::from_le_bytes, out),
        Kind::Single(enc, rule) => single_byte(data, enc, rule, out),
        Kind::Multi(enc, rule) => multi_byte(data, enc, rule, out),
    }
}

const UNDEFINED_REASON: &str = "character maps to <undefined>";
const ILLEGAL: &str = "illegal multibyte sequence";
const INCOMPLETE: &str = "incomplete multibyte sequence";

/// `data` through `enc` strictly, appended; the reason names a single-byte or multi-byte failure.
fn whatwg(
    data: &[u8],
    enc: &'static Encoding,
    multi: bool,
    out: &mut String,
) -> std::result::Result<(), &'static str> {
    if data.is_ascii() {
        // every set here is ASCII-compatible
        out.push_str(std::str::from_utf8(data).unwrap_or_default());
        return Ok(());
    }
    let mut decoder = enc.new_decoder_without_bom_handling();
    let need = decoder.max_utf8_buffer_length_without_replacement(data.len()).unwrap_or(data.len() * 4 + 16);
    out.reserve(need);
    match decoder.decode_to_string_without_replacement(data, out, true) {
        (DecoderResult::InputEmpty, _) => Ok(()),
        (DecoderResult::Malformed(..), _) if !multi => Err(UNDEFINED_REASON),
        (DecoderResult::Malformed(_, after), read) if read - usize::from(after) == data.len() => {
            Err(INCOMPLETE)
        }
        (DecoderResult::Malformed(..) | DecoderResult::OutputFull, _) => Err(ILLEGAL),
    }
}

fn single_byte(
    data: &[u8],
    enc: &'static Encoding,
    rule: Rule,
    out: &mut String,
) -> std::result::Result<(), &'static str> {
    match rule {
        // ISO-8859-9 is windows-1254 but for 0x80-0x9F, the C1 controls
        Rule::IsoC1 => {
            return whatwg_overridden(data, enc, out, |b| (0x80..=0x9F).contains(&b).then(|| char::from(b)))
        }
        // RFC 2319's box drawings where KOI8-RU has ў / Ў
        Rule::Koi8U => {
            return whatwg_overridden(data, enc, out, |b| match b {
                0xAE => Some('\u{255D}'),
                0xBE => Some('\u{256C}'),
                _ => None,
            })
        }
        _ => {}
    }
    let start = out.len();
    whatwg(data, enc, false, out)?;
    if rule == Rule::WindowsUndefined && out[start..].chars().any(|c| ('\u{80}'..='\u{9f}').contains(&c)) {
        return Err(UNDEFINED_REASON);
    }
    Ok(())
}

/// A single-byte set read by a WHATWG encoding but for the bytes `over` gives Oracle's character of.
fn whatwg_overridden(
    data: &[u8],
    enc: &'static Encoding,
    out: &mut String,
    over: impl Fn(u8) -> Option<char>,
) -> std::result::Result<(), &'static str> {
    let mut rest = data;
    while let Some((pos, c)) = rest.iter().enumerate().find_map(|(i, &b)| over(b).map(|c| (i, c))) {
        whatwg(&rest[..pos], enc, false, out)?;
        out.push(c);
        rest = &rest[pos + 1..];
    }
    whatwg(rest, enc, false, out)
}

/// The structure Oracle's set allows, checked before the WHATWG decoder reads the bytes.
fn check_structure(data: &[u8], rule: Rule) -> std::result::Result<(), &'static str> {
    let lead_ok = |b: u8| match rule {
        Rule::Euc94 => (0xA1..=0xFE).contains(&b),
        Rule::Big5 | Rule::Windows950 => (0xA1..=0xF9).contains(&b),
        _ => (0x81..=0xFE).contains(&b),
    };
    let mut i = 0;
    while i < data.len() {
        let b = data[i];
        if b < 0x80 {
            i += 1;
            continue;
        }
        if !lead_ok(b) {
            return Err(ILLEGAL);
        }
        let Some(&next) = data.get(i + 1) else {
            return Err(INCOMPLETE);
        };
        match rule {
            Rule::Euc94 if !(0xA1..=0xFE).contains(&next) => return Err(ILLEGAL),
            Rule::Gbk if (0x30..=0x39).contains(&next) => return Err(ILLEGAL),
            Rule::Gb18030 if (0x30..=0x39).contains(&next) => i += 4,
            _ => i += 2,
        }
    }
    Ok(())
}

fn multi_byte(
    data: &[u8],
    enc: &'static Encoding,
    rule: Rule,
    out: &mut String,
) -> std::result::Result<(), &'static str> {
    if !matches!(rule, Rule::Same | Rule::WaveDash) {
        check_structure(data, rule)?;
    }
    let start = out.len();
    whatwg(data, enc, true, out)?;
    let (from, to) = match rule {
        Rule::WaveDash => ('\u{FF5E}', '\u{301C}'),
        Rule::Windows950 => ('\u{FFED}', '\u{2593}'),
        _ => return Ok(()),
    };
    if out[start..].contains(from) {
        let fixed: String = out[start..].chars().map(|c| if c == from { to } else { c }).collect();
        out.truncate(start);
        out.push_str(&fixed);
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

/// CPython's UTF-16 decoder, strict, in the byte order `unit` reads: the first error and its reason.
fn utf16(data: &[u8], unit: fn([u8; 2]) -> u16, out: &mut String) -> std::result::Result<(), &'static str> {
    out.reserve(data.len() / 2);
    let mut units = data.chunks_exact(2).map(|p| u32::from(unit([p[0], p[1]])));
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
