//! ROWID (type 69) and UROWID (type 208) -> ROWID text (redo-format §7.7, §7.9;
//! `redo_lib/values/rowids.py`).
//!
//! A ROWID column holds 10 bytes (`DUMP(col)`: `Typ=69 Len=10`): be32 data object id @0, be32
//! DBA @4 (relative file in the top 10 bits, block in the low 22, §7.9), be16 row slot @8. The
//! docs hold no type 69 value; the layout is the one a public `DUMP(ROWID,16)` shows next to its
//! ROWID text: `0,0,d7,89,1,80,0,e2,0,16` is `AAANeJAAGAAAADiAAW` (data object 55177, file 6,
//! block 226, slot 22). Its text is the 18-character ROWID, as LogMiner and GoldenGate show it.
//!
//! The UROWID physical form, 13 bytes: `0x01`, be32 data object id @1, be16 slot @5, be16 relative
//! file @7, be32 block @9 (OLR's reading). Its text is the 18-character extended ROWID: data object
//! id (6 characters), relative file (3), block (6), slot (3), each a base-64 number of the alphabet
//! `A-Z a-z 0-9 + /`, most significant first. Any other UROWID (logical, foreign) renders as hex.

use super::{push_hex_upper, value_error, value_error_with, TypeName};
use crate::error::{Detail, Result};

const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
const UROWID_PHYSICAL: u8 = 0x01;
const MAX_RFILE: u32 = 0x3FF; // 10 bits of a DBA
const MAX_BLOCK: u32 = 0x3F_FFFF; // 22 bits of a DBA

/// `value` in base 64, `width` characters, most significant first.
fn push_base64(out: &mut String, value: u32, width: u32) {
    for i in (0..width).rev() {
        let digit = (u64::from(value) >> (6 * i)) & 63;
        out.push(char::from(ALPHABET[digit as usize]));
    }
}

/// The 18-character ROWID of (data object, relative file, block, slot); out-of-range fields are a
/// `ValueDecode` error (type ROWID and the four fields, as `RowId.__post_init__` raises it).
pub fn push_rowid(out: &mut String, dataobj: u32, rfile: u32, block: u32, slot: u32) -> Result<()> {
    if rfile > MAX_RFILE || block > MAX_BLOCK || slot > 0xFFFF {
        return Err(value_error_with(
            "ROWID field out of range",
            vec![
                ("type", TypeName::Rowid.as_str().into()),
                ("dataobj", Detail::Int(i64::from(dataobj))),
                ("rfile", Detail::Int(i64::from(rfile))),
                ("block", Detail::Int(i64::from(block))),
                ("slot", Detail::Int(i64::from(slot))),
            ],
        ));
    }
    push_base64(out, dataobj, 6);
    push_base64(out, rfile, 3);
    push_base64(out, block, 6);
    push_base64(out, slot, 3);
    Ok(())
}

/// ROWID bytes (10: data object, DBA, slot) -> ROWID text (`_decode_rowid`). A DBA's fields are
/// always in range, so only the length can be wrong: a value error naming ROWID and the hex.
pub fn render_rowid(data: &[u8], out: &mut String) -> Result<()> {
    let &[o0, o1, o2, o3, d0, d1, d2, d3, s0, s1] = data else {
        return Err(value_error("not a 10-byte ROWID", TypeName::Rowid, data));
    };
    let dba = u32::from_be_bytes([d0, d1, d2, d3]);
    let slot = u32::from(u16::from_be_bytes([s0, s1]));
    push_rowid(out, u32::from_be_bytes([o0, o1, o2, o3]), dba >> 22, dba & MAX_BLOCK, slot)
}

/// UROWID bytes -> ROWID text, or upper-case hex when the value is not physical (`_decode_urowid`).
pub fn render_urowid(data: &[u8], out: &mut String) -> Result<()> {
    if data.first() != Some(&UROWID_PHYSICAL) {
        push_hex_upper(data, out);
        return Ok(());
    }
    let &[_, o0, o1, o2, o3, s0, s1, f0, f1, b0, b1, b2, b3] = data else {
        return Err(value_error("not a 13-byte physical UROWID", TypeName::Urowid, data));
    };
    let dataobj = u32::from_be_bytes([o0, o1, o2, o3]);
    let slot = u32::from(u16::from_be_bytes([s0, s1]));
    let rfile = u32::from(u16::from_be_bytes([f0, f1]));
    let block = u32::from_be_bytes([b0, b1, b2, b3]);
    push_rowid(out, dataobj, rfile, block, slot)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::values::tests::unhex;

    fn urowid(hex: &str) -> Result<String> {
        let mut out = String::new();
        render_urowid(&unhex(hex), &mut out).map(|()| out)
    }

    #[test]
    fn rowids_of_redo_format_and_test_rowids() {
        assert_eq!(urowid("01 00 01 56 99 00 02 00 04 00 00 00 b0").unwrap(), "AAAVaZAAEAAAACwAAC");
        let mut out = String::new();
        push_rowid(&mut out, 72726, 24, 14, 0).unwrap();
        assert_eq!(out, "AAARwWAAYAAAAAOAAA");
        out.clear();
        push_rowid(&mut out, u32::MAX, MAX_RFILE, MAX_BLOCK, 0xFFFF).unwrap();
        assert_eq!(out, "D/////AP/AAP///P//");
        assert_eq!(urowid("02 04 c1 02").unwrap(), "0204C102");
        assert_eq!(urowid("").unwrap(), "");
    }

    fn rowid(hex: &str) -> Result<String> {
        let mut out = String::new();
        render_rowid(&unhex(hex), &mut out).map(|()| out)
    }

    #[test]
    fn rowids_of_dump_typ_69() {
        // DUMP(ROWID,16) `Typ=69 Len=10: 0,0,d7,89,1,80,0,e2,0,16` next to its ROWID text
        assert_eq!(rowid("00 00 d7 89 01 80 00 e2 00 16").unwrap(), "AAANeJAAGAAAADiAAW");
        assert_eq!(rowid("00 00 d7 89 01 80 03 b5 00 25").unwrap(), "AAANeJAAGAAAAO1AAl");
        // redo-format §7.9's example: data object 87705, DBA 0x010000b0 (file 4, block 0xb0), slot 2
        assert_eq!(rowid("00 01 56 99 01 00 00 b0 00 02").unwrap(), "AAAVaZAAEAAAACwAAC");
        // every field at its top: a DBA cannot carry a file or block out of range
        assert_eq!(rowid("ff ff ff ff ff ff ff ff ff ff").unwrap(), "D/////AP/AAP///P//");
        assert_eq!(rowid("00 00 00 00 00 00 00 00 00 00").unwrap(), "AAAAAAAAAAAAAAAAAA");
    }

    #[test]
    fn bad_rowids() {
        for hex in ["", "00 00 d7 89 01 80 00 e2 00", "00 00 d7 89 01 80 00 e2 00 16 00"] {
            let e = rowid(hex).unwrap_err();
            assert_eq!(e.kind(), "value", "{hex}");
            assert_eq!(e.info().message, "not a 10-byte ROWID");
        }
        let e = rowid("01 02 03").unwrap_err();
        assert_eq!(e.info().details, vec![("type", "ROWID".into()), ("hex", "010203".into())]);
        // a physical UROWID is no ROWID value
        assert!(rowid("01 00 01 56 99 00 02 00 04 00 00 00 b0").is_err());
        // a field out of range (only a UROWID's be16 file or be32 block can be): an error naming ROWID
        let mut out = String::new();
        let e = push_rowid(&mut out, 1, MAX_RFILE + 1, 0, 0).unwrap_err();
        assert_eq!(e.info().message, "ROWID field out of range");
        assert_eq!(e.info().details[0], ("type", "ROWID".into()));
        assert_eq!(e.info().details[2], ("rfile", Detail::Int(1024)));
        let e = push_rowid(&mut out, 1, 0, MAX_BLOCK + 1, 0).unwrap_err();
        assert_eq!(e.info().details[3], ("block", Detail::Int(i64::from(MAX_BLOCK) + 1)));
    }

    #[test]
    fn bad_urowids() {
        let e = urowid("01 00").unwrap_err();
        assert_eq!(e.info().message, "not a 13-byte physical UROWID");
        assert_eq!(e.info().details, vec![("type", "UROWID".into()), ("hex", "0100".into())]);
        let e = urowid("01 00 00 00 01 00 02 04 00 00 00 00 01").unwrap_err();
        assert_eq!(e.info().message, "ROWID field out of range");
        assert_eq!(e.info().details[2], ("rfile", Detail::Int(1024)));
    }
}
