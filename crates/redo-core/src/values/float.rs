//! BINARY_FLOAT (100, 4 bytes) and BINARY_DOUBLE (101, 8 bytes) -> text (redo-format §7.7;
//! `redo_lib/values/floats.py`).
//!
//! The bytes are big-endian IEEE-754, made to sort as unsigned bytes: top bit set -> a positive
//! value, clear that bit; otherwise a negative value, invert every bit.
//!
//! The text is Python's: `repr(float)` for a double (shortest round-trip digits; exponent form
//! `1e+16`, `1.5e-07` when the decimal exponent is below -4 or above 15, else `100.0`, `0.0001`),
//! and for a float the repr of the double read back from the shortest `%.{k}g` text that reads
//! back as the same 32-bit float (`0.1`, not `0.10000000149011612`), found by the same binary
//! search over k = 1..9 as Python. Infinities and NaN as Oracle prints them: `Inf`, `-Inf`, `Nan`.
//! Rust's `{:e}` gives the same shortest digits as Python's repr (both the nearest of the shortest)
//! except when two are equally near, where Python takes the even one (see [`push_py_repr`]); the
//! layout is Python's, written here.

use std::fmt::Write as _;

use super::{value_error, TypeName};
use crate::error::Result;

const TOP32: u32 = 0x8000_0000;
const TOP64: u64 = 0x8000_0000_0000_0000;

/// BINARY_FLOAT bytes -> the float.
pub fn decode_binary_float(data: &[u8]) -> Result<f32> {
    let Ok(bytes) = <[u8; 4]>::try_from(data) else {
        let message = format!("BINARY_FLOAT must be 4 bytes, got {}", data.len());
        return Err(value_error(message, TypeName::BinaryFloat, data));
    };
    let bits = u32::from_be_bytes(bytes);
    Ok(f32::from_bits(if bits & TOP32 != 0 { bits ^ TOP32 } else { !bits }))
}

/// BINARY_DOUBLE bytes -> the double.
pub fn decode_binary_double(data: &[u8]) -> Result<f64> {
    let Ok(bytes) = <[u8; 8]>::try_from(data) else {
        let message = format!("BINARY_DOUBLE must be 8 bytes, got {}", data.len());
        return Err(value_error(message, TypeName::BinaryDouble, data));
    };
    let bits = u64::from_be_bytes(bytes);
    Ok(f64::from_bits(if bits & TOP64 != 0 { bits ^ TOP64 } else { !bits }))
}

pub fn render_binary_float(data: &[u8], out: &mut String) -> Result<()> {
    push_f32(decode_binary_float(data)?, out);
    Ok(())
}

pub fn render_binary_double(data: &[u8], out: &mut String) -> Result<()> {
    push_f64(decode_binary_double(data)?, out);
    Ok(())
}

fn special(value: f64) -> Option<&'static str> {
    if value.is_nan() {
        Some("Nan")
    } else if value.is_infinite() {
        Some(if value > 0.0 { "Inf" } else { "-Inf" })
    } else {
        None
    }
}

/// `render_binary_double`: `Inf` / `-Inf` / `Nan`, else Python's `repr`.
pub fn push_f64(value: f64, out: &mut String) {
    match special(value) {
        Some(s) => out.push_str(s),
        None => push_py_repr(value, out),
    }
}

/// `render_binary_float`: the repr of the shortest `%g` text that reads back as the same f32.
pub fn push_f32(value: f32, out: &mut String) {
    let wide = f64::from(value);
    if let Some(s) = special(wide) {
        out.push_str(s);
        return;
    }
    let mut buf = String::with_capacity(32);
    // `float(f"{value:.{k}g}")`: %g rounds to k significant digits exactly as %.{k-1}e does.
    let mut read_back = |k: usize| -> f64 {
        buf.clear();
        let _ = write!(buf, "{:.*e}", k - 1, wide);
        buf.parse::<f64>().unwrap_or(f64::NAN)
    };
    let (mut low, mut high) = (1usize, 9usize);
    while low < high {
        let middle = (low + high) / 2;
        // `_F32.pack(...) == target`: the double rounded to f32 (round to nearest even), bit-equal
        if (read_back(middle) as f32).to_bits() == value.to_bits() {
            high = middle;
        } else {
            low = middle + 1;
        }
    }
    push_py_repr(read_back(low), out);
}

/// Python's `repr()` of a finite double (`float_repr_style = 'short'`).
fn push_py_repr(value: f64, out: &mut String) {
    let mut buf = String::with_capacity(32);
    let _ = write!(buf, "{value:e}"); // shortest round-trip digits: "-1.2345e-7", "1e16", "0e0"
    let significant = buf.bytes().take_while(|&b| b != b'e').filter(u8::is_ascii_digit).count();
    if significant >= 15 {
        // Two shortest candidates can be equally near (2179433605282078.25: .2 or .3); Rust's
        // shortest mode takes the upper, Python's dtoa the even one, which is what correct
        // rounding to that many digits gives (half to even) when it reads back as the value.
        let mut exact = String::with_capacity(32);
        let _ = write!(exact, "{:.*e}", significant - 1, value);
        if exact.parse::<f64>().is_ok_and(|v| v.to_bits() == value.to_bits()) {
            buf = exact;
        }
    }
    let (mantissa, exponent) = buf.split_once('e').unwrap_or((buf.as_str(), "0"));
    let exponent: i32 = exponent.parse().unwrap_or(0);
    let (negative, mantissa) = match mantissa.strip_prefix('-') {
        Some(m) => (true, m),
        None => (false, mantissa),
    };
    let digits: String = mantissa.chars().filter(|&c| c != '.').collect();
    let decpt = exponent + 1; // digits are 0.DDD x 10^decpt
    if negative {
        out.push('-');
    }
    if !(-4 < decpt && decpt <= 16) {
        // exponent form: d[.ddd]e[+-]XX, at least two exponent digits
        let (first, rest) = digits.split_at(digits.len().min(1));
        out.push_str(first);
        if !rest.is_empty() {
            out.push('.');
            out.push_str(rest);
        }
        let _ = write!(out, "e{}{:02}", if exponent < 0 { '-' } else { '+' }, exponent.unsigned_abs());
    } else if decpt <= 0 {
        out.push_str("0.");
        for _ in 0..-decpt {
            out.push('0');
        }
        out.push_str(&digits);
    } else {
        let decpt = decpt as usize;
        if decpt >= digits.len() {
            out.push_str(&digits);
            for _ in digits.len()..decpt {
                out.push('0');
            }
            out.push_str(".0");
        } else {
            out.push_str(&digits[..decpt]);
            out.push('.');
            out.push_str(&digits[decpt..]);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::values::tests::unhex;

    fn float(hex: &str) -> String {
        let mut out = String::new();
        render_binary_float(&unhex(hex), &mut out).unwrap();
        out
    }

    fn double(hex: &str) -> String {
        let mut out = String::new();
        render_binary_double(&unhex(hex), &mut out).unwrap();
        out
    }

    fn repr(v: f64) -> String {
        let mut out = String::new();
        push_f64(v, &mut out);
        out
    }

    #[test]
    fn binary_floats_of_test_floats() {
        for (hex, text) in [
            ("bf 80 00 00", "1.0"),
            ("40 7f ff ff", "-1.0"),
            ("80 00 00 00", "0.0"),
            ("7f ff ff ff", "-0.0"),
            ("bd cc cc cd", "0.1"),
            ("c2 f6 e9 79", "123.456"),
            ("ff 80 00 00", "Inf"),
            ("00 7f ff ff", "-Inf"),
            ("ff 7f ff ff", "3.4028235e+38"),
            ("80 00 00 01", "1e-45"),
            ("ff c0 00 00", "Nan"),
        ] {
            assert_eq!(float(hex), text, "{hex}");
        }
    }

    #[test]
    fn binary_doubles_of_test_floats() {
        for (hex, text) in [
            ("bf f0 00 00 00 00 00 00", "1.0"),
            ("40 0f ff ff ff ff ff ff", "-1.0"),
            ("80 00 00 00 00 00 00 00", "0.0"),
            ("7f ff ff ff ff ff ff ff", "-0.0"),
            ("bf b9 99 99 99 99 99 9a", "0.1"),
            ("c0 29 00 00 00 00 00 00", "12.5"),
            ("3f d6 ff ff ff ff ff ff", "-12.5"),
            ("c3 41 c3 79 37 e0 80 00", "1e+16"),
            ("ff f0 00 00 00 00 00 00", "Inf"),
            ("00 0f ff ff ff ff ff ff", "-Inf"),
            ("ff f8 00 00 00 00 00 00", "Nan"),
        ] {
            assert_eq!(double(hex), text, "{hex}");
        }
        let e = decode_binary_double(&unhex("bf 80 00 00")).unwrap_err();
        assert_eq!(e.info().message, "BINARY_DOUBLE must be 8 bytes, got 4");
        assert!(decode_binary_float(&[]).is_err());
    }

    #[test]
    fn python_repr_layout() {
        for (v, text) in [
            (1e15, "1000000000000000.0"),
            (1e16, "1e+16"),
            (123456789012345680.0, "1.2345678901234568e+17"),
            (0.0001, "0.0001"),
            (0.00001, "1e-05"),
            (1.5e-7, "1.5e-07"),
            (-2.5e300, "-2.5e+300"),
            (5e-324, "5e-324"),
            (f64::MAX, "1.7976931348623157e+308"),
            (100.0, "100.0"),
            (0.3, "0.3"),
            (1.0 / 3.0, "0.3333333333333333"),
            (2179433605282078.0 + 0.25, "2179433605282078.2"),
            (2179433605282078.0 + 0.75, "2179433605282078.8"),
        ] {
            assert_eq!(repr(v), text, "{v}");
        }
    }
}
