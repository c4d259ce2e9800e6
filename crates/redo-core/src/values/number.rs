//! NUMBER / FLOAT (type 2) -> exact decimal text (redo-format §7.1; `redo_lib/values/numbers.py`).
//!
//! Byte 0 holds sign and exponent, then base-100 digits, most significant first: zero is `80`;
//! positive: byte 0 = `0xC1 + e` (the first digit weighs `100^e`), digit byte = digit + 1; negative:
//! byte 0 = `0x3E - e`, digit byte = 101 - digit, and a terminator `0x66` when there are fewer than
//! 20 digits; `00` alone is negative infinity (`-~`) and `FF 65` positive infinity (`~`). The text
//! never uses an exponent: `c1 0d 33` -> `12.5`, `bf 0d` -> `0.0012`.

use super::{value_error, TypeName};
use crate::error::Result;

/// Text of Oracle's positive infinity (what SQL*Plus prints).
pub const POSITIVE_INFINITY: &str = "~";
/// Text of Oracle's negative infinity.
pub const NEGATIVE_INFINITY: &str = "-~";

const ZERO: u8 = 0x80;
const POS_INF: [u8; 2] = [0xFF, 0x65];
const NEG_INF: u8 = 0x00;
const NEG_TERMINATOR: u8 = 0x66;
/// Base-100 digits after the exponent byte, at most.
const MAX_DIGITS: usize = 20;
const POS_EXP_BIAS: i32 = 0xC1;
const NEG_EXP_BIAS: i32 = 0x3E;

fn error(message: &str, data: &[u8]) -> crate::Error {
    value_error(message, TypeName::Number, data)
}

/// An Oracle NUMBER -> its exact decimal text, appended to `out` (`numbers.decode_number`).
///
/// No leading `+`, no trailing zeros after the point, a `0` before a leading point, `0` for any
/// zero (never `-0`). Malformed bytes are a `ValueDecode` error (details: type NUMBER, hex).
pub fn render_number(data: &[u8], out: &mut String) -> Result<()> {
    let Some(&head) = data.first() else {
        return Err(error("empty NUMBER value", data));
    };
    // (sign, first-digit exponent, digit bytes)
    let (negative, exp, mantissa) = if head & 0x80 != 0 {
        if data.len() == 1 {
            if head == ZERO {
                out.push('0');
                return Ok(());
            }
            return Err(error("NUMBER has an exponent byte but no digits", data));
        }
        if data == POS_INF {
            out.push_str(POSITIVE_INFINITY);
            return Ok(());
        }
        (false, i32::from(head) - POS_EXP_BIAS, &data[1..])
    } else {
        if data.len() == 1 {
            if head == NEG_INF {
                out.push_str(NEGATIVE_INFINITY);
                return Ok(());
            }
            return Err(error("negative NUMBER has no digits", data));
        }
        let body = &data[1..];
        let mantissa = match body.split_last() {
            Some((&NEG_TERMINATOR, rest)) => rest,
            _ => body,
        };
        if mantissa.is_empty() {
            return Err(error("negative NUMBER has no digits", data));
        }
        (true, NEG_EXP_BIAS - i32::from(head), mantissa)
    };
    if mantissa.len() > MAX_DIGITS {
        return Err(error("malformed NUMBER digits", data));
    }
    // The decimal digits, two per byte: 0.DDDD... times 100^(exp + 1).
    let mut digits = [0u8; 2 * MAX_DIGITS];
    for (i, &byte) in mantissa.iter().enumerate() {
        let value = if negative {
            if !(2..=101).contains(&byte) {
                return Err(error("malformed NUMBER digits", data));
            }
            101 - byte
        } else {
            if !(1..=100).contains(&byte) {
                return Err(error("malformed NUMBER digits", data));
            }
            byte - 1
        };
        digits[2 * i] = b'0' + value / 10;
        digits[2 * i + 1] = b'0' + value % 10;
    }
    let digits = &digits[..2 * mantissa.len()];
    let sign = if negative { "-" } else { "" };
    // The decimal point sits after `point` digits (negative: that many zeros before them).
    let point = 2 * (exp + 1);
    let strip_end = |s: &[u8]| s.len() - s.iter().rev().take_while(|&&c| c == b'0').count();
    let strip_start = |s: &[u8]| s.iter().take_while(|&&c| c == b'0').count();
    if point <= 0 {
        let end = strip_end(digits);
        if end == 0 {
            out.push('0');
            return Ok(());
        }
        out.push_str(sign);
        out.push_str("0.");
        for _ in 0..-point {
            out.push('0');
        }
        push_ascii(out, &digits[..end]);
        return Ok(());
    }
    let point = point as usize;
    if point >= digits.len() {
        let start = strip_start(digits);
        if start == digits.len() {
            out.push('0');
            return Ok(());
        }
        out.push_str(sign);
        push_ascii(out, &digits[start..]);
        for _ in digits.len()..point {
            out.push('0');
        }
        return Ok(());
    }
    let (integer, fraction) = digits.split_at(point);
    let integer = &integer[strip_start(integer)..];
    let fraction = &fraction[..strip_end(fraction)];
    if integer.is_empty() && fraction.is_empty() {
        out.push('0');
        return Ok(());
    }
    out.push_str(sign);
    if integer.is_empty() {
        out.push('0');
    } else {
        push_ascii(out, integer);
    }
    if !fraction.is_empty() {
        out.push('.');
        push_ascii(out, fraction);
    }
    Ok(())
}

/// Append ASCII digits (always valid UTF-8).
fn push_ascii(out: &mut String, ascii: &[u8]) {
    out.extend(ascii.iter().map(|&b| char::from(b)));
}

#[cfg(test)]
mod tests {
    use super::*;

    fn number(hex: &str) -> Result<String> {
        let mut out = String::new();
        render_number(&crate::values::tests::unhex(hex), &mut out).map(|()| out)
    }

    #[test]
    fn worked_examples_of_redo_format_and_seed_000() {
        // redo-format §7.1 and tests/unit/redo_lib/values/test_numbers.py
        for (hex, text) in [
            ("80", "0"),
            ("c1 02", "1"),
            ("c1 0b", "10"),
            ("c2 02", "100"),
            ("c2 02 18", "123"),
            ("c1 0d 33", "12.5"),
            ("c0 33", "0.5"),
            ("bf 0d", "0.0012"),
            ("c4 02 18 2e 44 5a", "1234567.89"),
            ("3e 64 66", "-1"),
            ("3d 64 4e 66", "-123"),
            ("3e 59 33 66", "-12.5"),
            ("3f 60 66", "-0.05"),
            ("c2 0b 0c", "1011"),
            ("c2 5b", "9000"),
            ("c3 0b", "100000"),
            ("c1 64", "99"),
            ("c2 64 64", "9999"),
            ("c0 02", "0.01"),
            ("c0 0b", "0.1"),
            ("c3 02 01 02", "10001"),
            (
                "d4 0d 23 39 4f 5b 0d 23 39 4f 5b 0d 23 39 4f 5b 0d 23 39 4f 5b",
                "1234567890123456789012345678901234567890",
            ),
            (
                "2b 59 43 2d 17 0b 59 43 2d 17 0b 59 43 2d 17 0b 59 43 2d 17 0b",
                "-1234567890123456789012345678901234567890",
            ),
            ("00", "-~"),
            ("ff 65", "~"),
            ("3e 64", "-1"),
            ("c1 02 01", "1"),
            ("c1 01", "0"),
            ("3e 65 66", "0"),
        ] {
            assert_eq!(number(hex).unwrap(), text, "{hex}");
        }
        assert_eq!(number("80 02").unwrap(), format!("0.{}1", "0".repeat(129)));
        assert_eq!(number("ff 0a").unwrap(), format!("9{}", "0".repeat(124)));
        assert_eq!(number("00 5c 66").unwrap(), format!("-9{}", "0".repeat(124)));
        assert_eq!(number("7f 64 66").unwrap(), format!("-0.{}1", "0".repeat(129)));
    }

    #[test]
    fn malformed_numbers_are_errors_with_type_and_hex() {
        for (hex, message) in [
            ("", "empty NUMBER value"),
            ("c1", "NUMBER has an exponent byte but no digits"),
            ("3e", "negative NUMBER has no digits"),
            ("3e 66", "negative NUMBER has no digits"),
            ("c1 00", "malformed NUMBER digits"),
            ("c1 65", "malformed NUMBER digits"),
            ("3e 01 66", "malformed NUMBER digits"),
            ("c1 02 02 02 02 02 02 02 02 02 02 02 02 02 02 02 02 02 02 02 02 02", "malformed NUMBER digits"),
            ("ff 66", "malformed NUMBER digits"),
        ] {
            let err = number(hex).unwrap_err();
            let info = err.info();
            assert_eq!(err.kind(), "value");
            assert_eq!(info.message, message, "{hex}");
            let compact: String = hex.split_whitespace().collect();
            assert_eq!(
                info.details,
                vec![("type", "NUMBER".into()), ("hex", compact.as_str().into())],
                "{hex}"
            );
        }
    }
}
