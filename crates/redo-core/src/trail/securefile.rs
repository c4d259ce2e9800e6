//! SecureFile-style LOB locator bodies (redo-format §7.8, the branch taken when flg2 has neither
//! 0x0100 nor 0x0400) and the resolution of any locator into its value or the reason it has none.
//!
//! The body, after the common 24 bytes (flags @5, LOB id @10, be16 body size @20, be16 flg2 @22):
//! flg3 @26 (`& 0x03`: the LOB length is 1, 2, 3 or 4 big-endian bytes at @28), flg4 @27 (`& 0x0F`:
//! 0 = one more header byte, 1 = two; anything else is a form we do not read). A length of 0 is an
//! empty LOB. Then:
//! * flg2 0x0800: the data itself, to the end of the locator;
//! * flg2 0x4000 (12c+ page lists): `flg3 & 0xF0` = 0x20: extents as below; 0x40: one be32 DBA of a
//!   list page (lmap pages, not read here: counted);
//! * else: extents: a count byte (extents - 1), then per extent a flag byte, a be32 first page DBA
//!   and a page count of 1 byte (flag `& 0xF0` = 0, or `& 0x20` clear in the 0x4000 form) or 2 bytes
//!   (flag 0x20). An extent's pages are the consecutive DBAs from its first.
//!
//! Rests on OLR's reading (the doc's §7.8 wording and the field offsets as OLR's `parseLob` uses them);
//! no real SecureFile locator is in `shared/realdata`. A value is resolved only when every page the
//! locator names is in the batch and the pages' bytes add up to the locator's length exactly; any
//! other case is a reason (bounded text: no DBAs or ids), counted per table and column by the emitter,
//! never a guessed value.

use super::lobs::{LobLocator, LobStore};
use crate::error::{Error, Result};

/// flg2: SecureFile inline data
pub const FLG2_SECURE_INLINE: u16 = 0x0800;
/// flg2: 12c+ page lists
pub const FLG2_SECURE_PAGES: u16 = 0x4000;
/// where the SecureFile length starts
const LENGTH_AT: usize = 28;
/// 12c+ page-list styles (`flg3 & 0xF0`)
const STYLE_EXTENTS: u8 = 0x20;
const STYLE_LIST_PAGE: u8 = 0x40;
/// extent flag: two-byte page count
const EXTENT_WIDE: u8 = 0x20;

/// One extent of a SecureFile locator: `count` pages from DBA `first` on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Extent {
    pub first: u32,
    pub count: u32,
}

fn cut(what: &str, need: usize, have: usize) -> Error {
    Error::body(format!("LOB locator {what} needs {need} bytes, the locator has {have}"))
}

fn be(data: &[u8]) -> u64 {
    data.iter().fold(0, |v, &b| v << 8 | u64::from(b))
}

/// The SecureFile-style body of an in-row locator (`data[..total]`, `total` from the body size) as
/// a [`LobLocator`]: `length` and `inline`, or `extents`, or `unread` (the form we do not read).
pub fn parse_secure_body(data: &[u8], lob_id: Vec<u8>, total: usize, flg2: u16) -> Result<LobLocator> {
    let data = &data[..total.min(data.len())];
    let mut loc = LobLocator { lob_id, flg2, ..Default::default() };
    if data.len() < LENGTH_AT {
        return Err(cut("SecureFile header", LENGTH_AT, data.len()));
    }
    let (flg3, flg4) = (data[26], data[27]);
    let width = usize::from(flg3 & 0x03) + 1;
    let mut at = LENGTH_AT + width;
    if data.len() < at {
        return Err(cut("SecureFile length", at, data.len()));
    }
    let length = be(&data[LENGTH_AT..at]);
    at += match flg4 & 0x0F {
        0 => 1,
        1 => 2,
        _ => {
            loc.unread = Some(format!("SecureFile locator header flg4 0x{flg4:02x} not read"));
            return Ok(loc);
        }
    };
    if data.len() < at {
        return Err(cut("SecureFile header", at, data.len()));
    }
    loc.length = Some(length);
    if length == 0 {
        loc.inline = Some(Vec::new()); // an empty LOB (EMPTY_CLOB() / EMPTY_BLOB())
        return Ok(loc);
    }
    if flg2 & FLG2_SECURE_INLINE != 0 {
        let end = at as u64 + length;
        if end != data.len() as u64 {
            return Err(Error::body(format!(
                "LOB locator SecureFile inline data of {length} bytes from @{at} does not end the {}-byte locator",
                data.len()
            )));
        }
        loc.inline = Some(data[at..].to_vec());
        return Ok(loc);
    }
    let wide_by_bit = if flg2 & FLG2_SECURE_PAGES != 0 {
        match flg3 & 0xF0 {
            STYLE_EXTENTS => true,
            STYLE_LIST_PAGE => {
                if data.len() != at + 4 {
                    return Err(Error::body(format!(
                        "LOB locator SecureFile list page DBA at @{at}: the locator has {} bytes, need {}",
                        data.len(),
                        at + 4
                    )));
                }
                loc.unread = Some("SecureFile locator list page (12c+ style 0x40) not read".into());
                return Ok(loc);
            }
            style => {
                loc.unread = Some(format!("SecureFile locator page list style 0x{style:02x} not read"));
                return Ok(loc);
            }
        }
    } else {
        false
    };
    if data.len() <= at {
        return Err(cut("SecureFile extent count", at + 1, data.len()));
    }
    let extents = usize::from(data[at]) + 1;
    at += 1;
    for _ in 0..extents {
        if data.len() < at + 6 {
            return Err(cut("SecureFile extent", at + 6, data.len()));
        }
        let flag = data[at];
        let first = u32::from_be_bytes([data[at + 1], data[at + 2], data[at + 3], data[at + 4]]);
        at += 5;
        let wide = if wide_by_bit {
            flag & EXTENT_WIDE != 0
        } else {
            match flag & 0xF0 {
                0 => false,
                EXTENT_WIDE => true,
                _ => {
                    loc.unread =
                        Some(format!("SecureFile locator extent flag 0x{:02x} not read", flag & 0xF0));
                    return Ok(loc);
                }
            }
        };
        let size = if wide { 2 } else { 1 };
        if data.len() < at + size {
            return Err(cut("SecureFile extent page count", at + size, data.len()));
        }
        let count = be(&data[at..at + size]) as u32;
        at += size;
        loc.extents.push(Extent { first, count });
    }
    if at != data.len() {
        return Err(Error::body(format!(
            "LOB locator SecureFile extents end at @{at}, the locator has {} bytes",
            data.len()
        )));
    }
    Ok(loc)
}

/// Reasons a LOB value is not resolved (counts.json `lobs.unresolved_by_column`, GE rule 17).
pub mod reason {
    pub const INDEX: &str = "LOB index locator (flags 0x04 clear): LOB index changes not in this batch";
    pub const NO_STORE: &str = "page not in this batch (no LOB pages in this batch)";
    pub const PAGE_MISSING: &str = "page not in this batch";
    pub const PAGE_ORDER: &str = "pages out of order or last page length differs from the locator";
    pub const LENGTH: &str = "pages do not add up to the SecureFile locator's length";
    pub const NO_DATA: &str = "locator names no data and no pages";
    pub const INDEX_ENTRY: &str = "LOB index entry of a page not in this batch";
}

/// The value of a locator, or why there is none: inline data, the BasicFile page list or the
/// SecureFile extents from the store. `Err` only for the page file failing (`Error::Storage`).
pub fn resolve_locator(
    store: Option<&mut LobStore>,
    loc: &LobLocator,
) -> Result<std::result::Result<Vec<u8>, String>> {
    if let Some(inline) = &loc.inline {
        return Ok(Ok(inline.clone()));
    }
    if let Some(why) = &loc.unread {
        return Ok(Err(why.clone()));
    }
    if loc.by_index {
        return Ok(Err(reason::INDEX.into()));
    }
    if loc.dbas.is_empty() && loc.extents.is_empty() {
        return Ok(Err(reason::NO_DATA.into()));
    }
    let Some(store) = store else { return Ok(Err(reason::NO_STORE.into())) };
    if !loc.dbas.is_empty() {
        if loc.index_pages > 0 {
            // the pages the locator has no room for, by page number from the LOB index
            let mut full = loc.clone();
            for page in loc.dbas.len()..loc.dbas.len() + loc.index_pages {
                let dba = u32::try_from(page).ok().and_then(|p| store.index_dba(&loc.lob_id, p));
                let Some(dba) = dba else { return Ok(Err(reason::INDEX_ENTRY.into())) };
                full.dbas.push(dba);
            }
            full.index_pages = 0;
            return resolve_locator(Some(store), &full);
        }
        if let Some(data) = store.resolve(loc)? {
            return Ok(Ok(data));
        }
        let missing = loc.dbas.iter().any(|&d| !store.contains(&loc.lob_id, d));
        return Ok(Err(if missing { reason::PAGE_MISSING } else { reason::PAGE_ORDER }.into()));
    }
    let mut out = Vec::new();
    for e in &loc.extents {
        for i in 0..e.count {
            let Some(page) = store.read_page(&loc.lob_id, e.first.wrapping_add(i))? else {
                return Ok(Err(reason::PAGE_MISSING.into()));
            };
            out.extend_from_slice(&page);
        }
    }
    if Some(out.len() as u64) != loc.length {
        return Ok(Err(reason::LENGTH.into()));
    }
    Ok(Ok(out))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::assembly::ChangeEvent;
    use crate::events::kind;
    use crate::trail::lobs::parse_lob_locator;

    const ID: &[u8; 10] = b"\0\0\0\x01\0\0\0\0\0\x07";

    /// A SecureFile locator: the common head, flg2, flg3, flg4, the length in `width` bytes, the
    /// flg4 extra bytes, then `rest`.
    fn secure(flg2: u16, flg3: u8, flg4: u8, length: u64, rest: &[u8]) -> Vec<u8> {
        let width = usize::from(flg3 & 3) + 1;
        let mut body = flg2.to_be_bytes().to_vec();
        body.extend_from_slice(&[0, 0, flg3, flg4]);
        body.extend_from_slice(&length.to_be_bytes()[8 - width..]);
        body.extend(std::iter::repeat_n(0, if flg4 & 0x0F == 1 { 2 } else { 1 }));
        body.extend_from_slice(rest);
        let mut v = vec![0, 0x70, 0, 1, 2, 0x04, 0, 0, 0, 0];
        v.extend_from_slice(ID);
        v.extend_from_slice(&((body.len() + 2) as u16).to_be_bytes());
        v.extend_from_slice(&body);
        v
    }

    fn piece(dba: i64, data: &[u8]) -> ChangeEvent {
        let mut e = ChangeEvent { kind: kind::LOB, bdba: dba, ..Default::default() };
        e.lob_id = e.push_bytes(ID);
        e.lob_data = e.push_bytes(data);
        e
    }

    #[test]
    fn inline_data_of_every_length_width() {
        for flg3 in 0..4u8 {
            for flg4 in [0u8, 1] {
                let loc = parse_lob_locator(&secure(0x0800, flg3, flg4, 5, b"hello")).unwrap();
                assert_eq!((loc.inline.as_deref(), loc.length), (Some(&b"hello"[..]), Some(5)));
            }
        }
        let empty = parse_lob_locator(&secure(0x0800, 0, 0, 0, b"")).unwrap();
        assert_eq!(empty.inline.as_deref(), Some(&b""[..]));
        // data shorter or longer than the length: the locator is inconsistent, not a value
        for data in [&b"hell"[..], b"hello!"] {
            assert_eq!(parse_lob_locator(&secure(0x0800, 0, 0, 5, data)).unwrap_err().kind(), "format");
        }
    }

    #[test]
    fn extents_of_both_forms_name_consecutive_pages() {
        // 12c+ style 0x20: two extents (count byte 1), the second with a two-byte count (flag 0x20)
        let mut rest = vec![1, 0x00, 0, 0x40, 0, 0x10, 2, 0x20, 0, 0x40, 0, 0x20, 0, 1];
        let loc = parse_lob_locator(&secure(0x4000, 0x21, 0, 700, &rest)).unwrap();
        let want = vec![Extent { first: 0x0040_0010, count: 2 }, Extent { first: 0x0040_0020, count: 1 }];
        assert_eq!((loc.extents.clone(), loc.length), (want.clone(), Some(700)));
        // the plain form: count width by flag & 0xF0 (0x00 one byte, 0x20 two)
        assert_eq!(parse_lob_locator(&secure(0, 0x01, 0, 700, &rest)).unwrap().extents, want);
        rest[7] = 0x30;
        let odd = parse_lob_locator(&secure(0, 0x01, 0, 700, &rest)).unwrap();
        assert_eq!(odd.unread.as_deref(), Some("SecureFile locator extent flag 0x30 not read"));
        // resolved from pages keyed by (LOB id, DBA), in extent order, length checked
        let mut store = LobStore::new(None);
        for (dba, fill) in [(0x0040_0011, b'b'), (0x0040_0010, b'a'), (0x0040_0020, b'c')] {
            store.add(&piece(dba, &vec![fill; if fill == b'c' { 100 } else { 300 }])).unwrap();
        }
        let got = resolve_locator(Some(&mut store), &loc).unwrap().unwrap();
        assert_eq!(got, [vec![b'a'; 300], vec![b'b'; 300], vec![b'c'; 100]].concat());
        let short = LobLocator { length: Some(699), ..loc.clone() };
        assert_eq!(resolve_locator(Some(&mut store), &short).unwrap(), Err(reason::LENGTH.into()));
        let gap = LobLocator { extents: vec![Extent { first: 0x0040_0010, count: 3 }], ..loc.clone() };
        assert_eq!(resolve_locator(Some(&mut store), &gap).unwrap(), Err(reason::PAGE_MISSING.into()));
        assert_eq!(resolve_locator(None, &loc).unwrap(), Err(reason::NO_STORE.into()));
    }

    #[test]
    fn pages_past_the_locator_come_from_lob_index_entries() {
        use crate::events::row_ops::LOB_INDEX_INSERT;
        let mut store = LobStore::new(None);
        for (dba, page, data) in [(7, 0, &b"ab"[..]), (8, 1, b"cd"), (9, 2, b"e")] {
            let mut e = piece(dba, data);
            e.lob_page = page;
            store.add(&e).unwrap();
        }
        // a locator of 3 pages with room for 2 DBAs (7, 8), 1 byte in the last page
        let mut v = vec![0, 0x54, 0, 1, 2, 0x04, 0, 0, 0, 0];
        v.extend_from_slice(ID);
        v.extend_from_slice(&24u16.to_be_bytes());
        v.extend_from_slice(&0x0400u16.to_be_bytes());
        v.extend_from_slice(&3u32.to_be_bytes());
        v.extend_from_slice(&[0, 1, 0, 0, 0, 0, 0, 0]);
        v.extend_from_slice(&[0, 0, 0, 7, 0, 0, 0, 8]);
        let loc = parse_lob_locator(&v).unwrap();
        assert_eq!((loc.dbas.len(), loc.index_pages), (2, 1));
        assert_eq!(resolve_locator(Some(&mut store), &loc).unwrap(), Err(reason::INDEX_ENTRY.into()));
        // the 10.2 entry: LOB id, page 2 at DBA 9 (not a page of its own)
        let mut entry =
            ChangeEvent { kind: kind::LOB, redo_op: LOB_INDEX_INSERT, lob_page: 2, ..Default::default() };
        entry.lob_id = entry.push_bytes(ID);
        entry.lob_data = entry.push_bytes(&9u32.to_be_bytes());
        assert!(!store.add(&entry).unwrap());
        assert_eq!(store.index_dba(ID, 2), Some(9));
        assert_eq!(resolve_locator(Some(&mut store), &loc).unwrap(), Ok(b"abcde".to_vec()));
    }

    #[test]
    fn forms_not_read_are_reasons() {
        let list = parse_lob_locator(&secure(0x4000, 0x40, 0, 9000, &[0, 0x40, 0, 9])).unwrap();
        let why = resolve_locator(None, &list).unwrap().unwrap_err();
        assert_eq!(why, "SecureFile locator list page (12c+ style 0x40) not read");
        let style = parse_lob_locator(&secure(0x4000, 0x60, 0, 9000, &[0])).unwrap();
        assert_eq!(style.unread.as_deref(), Some("SecureFile locator page list style 0x60 not read"));
        let flg4 = parse_lob_locator(&secure(0x0800, 0, 0x02, 5, b"hello")).unwrap();
        assert_eq!(flg4.unread.as_deref(), Some("SecureFile locator header flg4 0x02 not read"));
        let mut index = vec![0; 20];
        index[10..].copy_from_slice(ID);
        let by_index = parse_lob_locator(&index).unwrap();
        assert_eq!(resolve_locator(None, &by_index).unwrap(), Err(reason::INDEX.into()));
    }

    #[test]
    fn every_cut_is_a_named_format_error() {
        let forms = [
            secure(0x0800, 0x03, 0x01, 5, b"hello"),
            secure(0x4000, 0x21, 0, 700, &[1, 0x00, 0, 0x40, 0, 0x10, 2, 0x20, 0, 0x40, 0, 0x20, 0, 1]),
            secure(0, 0x01, 0, 700, &[0, 0x20, 0, 0x40, 0, 0x10, 0, 2]),
            secure(0x4000, 0x40, 0, 9000, &[0, 0x40, 0, 9]),
        ];
        for full in forms {
            assert!(parse_lob_locator(&full).is_ok());
            for n in 0..full.len() {
                // the data cut, and the body size cut with it (a locator whose size says it ends early)
                let mut short = full[..n].to_vec();
                if n >= 22 {
                    short[20..22].copy_from_slice(&((n - 20) as u16).to_be_bytes());
                    // the body size counts itself
                }
                for bytes in [&full[..n], &short[..]] {
                    let e = parse_lob_locator(bytes).unwrap_err();
                    assert_eq!(e.kind(), "format", "cut at {n}: {e}");
                    assert!(e.to_string().contains("LOB locator"), "cut at {n}: {e}");
                }
            }
        }
    }
}
