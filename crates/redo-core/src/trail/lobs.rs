//! LOB values: the in-row LOB locator of a CLOB / NCLOB / BLOB column (redo-format §7.8; Python
//! `redo_lib/format/lobs.py` `parse_lob_locator`) and the LOB pieces of committed transactions
//! stitched back by the pages a locator names (Python `redo_lib/assembly/lobs.py` `LobStore`).
//!
//! Pieces are keyed by (LOB id, page DBA): a page rewritten by a later statement gets a new DBA, so a
//! locator names exactly the version of every page it was written with. One store per emitter, so
//! pages an earlier transaction of the batch wrote are found. Memory: as in Python, the page bytes go
//! to an unlinked temporary file at once (the transaction table's spill files); only the index
//! (LOB id, DBA) -> (offset, length, page) stays in memory.

use std::collections::{HashMap, HashSet};
use std::fs::File;
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::PathBuf;

use crate::assembly::buffer::spill_file;
use crate::assembly::ChangeEvent;
use crate::error::{Error, Result};

fn storage(what: &str, e: impl std::fmt::Display) -> Error {
    Error::storage(format!("LOB page file: {what}: {e}"), Default::default())
}

/// flags @5: the locator has an in-row body
const LOCATOR_IN_ROW: u8 = 0x04;
/// in-value form: data from @36
const FLG2_INLINE: u16 = 0x0100;
/// page-list form: page DBAs from @36
const FLG2_PAGE_LIST: u16 = 0x0400;
/// where inline data / page DBAs start
const LOCATOR_DATA: usize = 36;

/// A LOB locator (Python `format.model.LobLocator`, the fields the emitter reads).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LobLocator {
    pub lob_id: Vec<u8>,
    pub inline: Option<Vec<u8>>,
    pub last_page_bytes: usize,
    pub dbas: Vec<u32>,
    /// page-list form: pages after `dbas` that only the LOB index names
    pub index_pages: usize,
    /// flg2 of an in-row body
    pub flg2: u16,
    /// flags 0x04 clear: only the LOB index resolves it
    pub by_index: bool,
    /// SecureFile forms (`securefile.rs`): the LOB's length, its extents, or the form not read
    pub length: Option<u64>,
    pub extents: Vec<super::securefile::Extent>,
    pub unread: Option<String>,
}

fn need(data: &[u8], size: usize, what: &str) -> Result<()> {
    if data.len() < size {
        return Err(Error::body(format!("field {what} too short: {} bytes, need {size}", data.len())));
    }
    Ok(())
}

fn be16(data: &[u8], at: usize) -> usize {
    usize::from(data[at]) << 8 | usize::from(data[at + 1])
}

/// `parse_lob_locator`: in-row data (flg2 0x0100) and the page list (flg2 0x0400) here, the
/// SecureFile-style body (any other flg2) in `securefile.rs`; flags 0x04 clear: `by_index`. Short or
/// inconsistent bytes: `Error::Format`.
pub fn parse_lob_locator(data: &[u8]) -> Result<LobLocator> {
    need(data, 20, "LOB locator")?;
    let flags = data[5];
    let lob_id = data[10..20].to_vec();
    if flags & LOCATOR_IN_ROW == 0 {
        return Ok(LobLocator { lob_id, by_index: true, ..Default::default() });
    }
    need(data, 24, "LOB locator in-row body")?;
    let total = 20 + be16(data, 20);
    let flg2 = be16(data, 22) as u16;
    if total > data.len() {
        return Err(Error::body(format!(
            "LOB locator body says {total} bytes, the value has {}",
            data.len()
        )));
    }
    if flg2 & FLG2_PAGE_LIST != 0 {
        need(data, LOCATOR_DATA, "LOB locator page list")?;
        if total < LOCATOR_DATA {
            // the DBAs start past the body: no room for any (and no subtraction below zero)
            return Err(Error::body(format!(
                "LOB locator page list body says {total} bytes, the page list starts at @{LOCATOR_DATA}"
            )));
        }
        let count = u32::from_be_bytes([data[24], data[25], data[26], data[27]]) as usize;
        // the pages past the DBAs the locator has room for are in the LOB index (§5.7; OLR: "rest
        // of data in LOB index"): resolved by page number from its 10.2 / 10.8 entries
        let listed = count.min((total - LOCATOR_DATA) / 4);
        let dbas = data[LOCATOR_DATA..LOCATOR_DATA + 4 * listed]
            .chunks_exact(4)
            .map(|b| u32::from_be_bytes([b[0], b[1], b[2], b[3]]))
            .collect();
        return Ok(LobLocator {
            lob_id,
            flg2,
            last_page_bytes: be16(data, 28),
            dbas,
            index_pages: count - listed,
            ..Default::default()
        });
    }
    if flg2 & FLG2_INLINE != 0 {
        let inline = data.get(LOCATOR_DATA..total).unwrap_or_default().to_vec();
        return Ok(LobLocator { lob_id, flg2, inline: Some(inline), ..Default::default() });
    }
    super::securefile::parse_secure_body(data, lob_id, total, flg2)
}

/// Whether a column value is a LOB locator whose data is out of the row: a well-formed locator
/// (§7.8) of a LOB id the decoder tracks (`00 00 00 01`, §5.7, as its LOB pages are), not in-row
/// data nor a form not read, that names pages (a page list, SecureFile extents) or is resolved through
/// the LOB index. Such a value is resolved from the batch's LOB pages, which a transaction writing it
/// may not have written itself (a `DBMS_LOB.TRIM` at a page boundary keeps an earlier transaction's
/// pages): the Spark decode reports its slot (`assembly::event::locator_slots`) so assemble puts it
/// in the task that holds the pages. Malformed bytes (ordinary text and RAW values) are `false`.
pub fn names_lob_pages(value: &[u8]) -> bool {
    if value.len() < 20 || value[10..14] != crate::ops::lob::LOB_ID_PREFIX {
        return false;
    }
    let Ok(loc) = parse_lob_locator(value) else { return false };
    loc.inline.is_none()
        && loc.unread.is_none()
        && (loc.by_index || !loc.dbas.is_empty() || loc.index_pages > 0 || !loc.extents.is_empty())
}

/// (LOB id, page DBA)
pub type PageKey = (Vec<u8>, i64);

/// Where a page's bytes are in the file, and its page number.
#[derive(Clone, Copy, Debug)]
struct Page {
    offset: u64,
    length: usize,
    page: i64,
}

/// LOB pages by (LOB id, DBA), their bytes in a temporary file (Python `LobStore`).
#[derive(Debug, Default)]
pub struct LobStore {
    spill_dir: Option<PathBuf>,
    file: Option<File>,
    end: u64,
    index: HashMap<PageKey, Page>,
    /// the LOB index entries (10.2 / 10.8, `ops::lob_index`): (LOB id, page number) -> DBA
    lob_index: HashMap<(Vec<u8>, u32), u32>,
    /// pieces of the current transaction no resolved locator named yet
    pending: HashSet<PageKey>,
    pub pieces: u64,
    pub bytes: u64,
}

impl LobStore {
    /// A store writing its file in `spill_dir` (the system's temporary folder by default).
    pub fn new(spill_dir: Option<PathBuf>) -> Self {
        LobStore { spill_dir, ..Default::default() }
    }

    pub fn len(&self) -> usize {
        self.index.len()
    }

    pub fn is_empty(&self) -> bool {
        self.index.is_empty()
    }

    /// Start a new transaction: pieces still unnamed from the previous one are forgotten.
    pub fn begin(&mut self) {
        self.pending.clear();
    }

    /// Store one event if it is a LOB piece; whether it was. A file failure is `Error::Storage`.
    pub fn add(&mut self, e: &ChangeEvent) -> Result<bool> {
        if !e.is_lob() {
            return Ok(false);
        }
        if self.add_index_entry(e) {
            return Ok(false);
        }
        let data = e.bytes(e.lob_data);
        let key = self.put(e.bytes(e.lob_id), e.bdba, e.lob_page, data)?;
        self.pending.insert(key);
        self.pieces += 1;
        self.bytes += data.len() as u64;
        Ok(true)
    }

    /// Write one page to the file and index it under (LOB id, DBA): a piece, or a page carried in
    /// from the previous batch (`lob_carry`, never pending). A file failure is `Error::Storage`.
    pub fn put(&mut self, lob_id: &[u8], dba: i64, page: i64, data: &[u8]) -> Result<PageKey> {
        if self.file.is_none() {
            self.file = Some(spill_file(self.spill_dir.as_deref())?);
        }
        let Some(file) = self.file.as_mut() else { return Err(storage("open", "no file")) };
        file.seek(SeekFrom::Start(self.end)).map_err(|x| storage("seek", x))?;
        file.write_all(data).map_err(|x| storage("write", x))?;
        let key = (lob_id.to_vec(), dba);
        self.index.insert(key.clone(), Page { offset: self.end, length: data.len(), page });
        self.end += data.len() as u64;
        Ok(key)
    }

    /// Forget a page (its bytes stay in the file until the store is dropped); whether it was there.
    pub fn remove(&mut self, key: &PageKey) -> bool {
        self.pending.remove(key);
        self.index.remove(key).is_some()
    }

    /// (key, page number, bytes) of every page held, in no particular order.
    pub fn pages(&self) -> impl Iterator<Item = (&PageKey, i64, usize)> {
        self.index.iter().map(|(k, p)| (k, p.page, p.length))
    }

    /// The page number and bytes of one page, `None` when it is not held (the carry reads pages
    /// out with it: a page read so is not named by a locator, unlike [`Self::read_page`]).
    pub fn page_bytes(&mut self, key: &PageKey) -> Result<Option<(i64, Vec<u8>)>> {
        let (Some(page), Some(file)) = (self.index.get(key).copied(), self.file.as_mut()) else {
            return Ok(None);
        };
        let mut out = vec![0; page.length];
        file.seek(SeekFrom::Start(page.offset)).map_err(|x| storage("seek", x))?;
        file.read_exact(&mut out).map_err(|x| storage("read", x))?;
        Ok(Some((page.page, out)))
    }

    /// The LOB's data named by the locator; `None` when a page is missing, the pages are out of
    /// order, the last page's length differs, or the form is one not resolved here.
    pub fn resolve(&mut self, locator: &LobLocator) -> Result<Option<Vec<u8>>> {
        if let Some(inline) = &locator.inline {
            return Ok(Some(inline.clone()));
        }
        if locator.dbas.is_empty() {
            return Ok(None);
        }
        let mut out = Vec::new();
        let mut expected: Option<i64> = None;
        let mut last_len = 0;
        for &dba in &locator.dbas {
            let key = (locator.lob_id.clone(), i64::from(dba));
            let (Some(page), Some(file)) = (self.index.get(&key).copied(), self.file.as_mut()) else {
                return Ok(None);
            };
            if expected.is_some_and(|p| p != page.page) {
                return Ok(None);
            }
            expected = Some(page.page.saturating_add(1));
            file.seek(SeekFrom::Start(page.offset)).map_err(|x| storage("seek", x))?;
            let start = out.len();
            out.resize(start + page.length, 0);
            file.read_exact(&mut out[start..]).map_err(|x| storage("read", x))?;
            last_len = page.length;
            self.pending.remove(&key);
        }
        Ok((last_len == locator.last_page_bytes).then_some(out))
    }

    /// A LOB index entry event (10.2 / 10.8: LOB id, first page number, the be32 DBA list) goes to
    /// the page map; whether it was one.
    fn add_index_entry(&mut self, e: &ChangeEvent) -> bool {
        use crate::events::row_ops::{LOB_INDEX_INIT, LOB_INDEX_INSERT};
        if e.redo_op != LOB_INDEX_INSERT && e.redo_op != LOB_INDEX_INIT {
            return false;
        }
        let (Ok(first), lob_id) = (u32::try_from(e.lob_page), e.bytes(e.lob_id)) else { return true };
        for (i, dba) in crate::ops::lob_index::entry_dbas(e.bytes(e.lob_data)).enumerate() {
            if let Some(page) = first.checked_add(i as u32) {
                self.lob_index.insert((lob_id.to_vec(), page), dba);
            }
        }
        true
    }

    /// The DBA the LOB index gives page `page` of LOB `lob_id`.
    pub fn index_dba(&self, lob_id: &[u8], page: u32) -> Option<u32> {
        self.lob_index.get(&(lob_id.to_vec(), page)).copied()
    }

    /// Whether the page (LOB id, DBA) is in the store.
    pub fn contains(&self, lob_id: &[u8], dba: u32) -> bool {
        self.index.contains_key(&(lob_id.to_vec(), i64::from(dba)))
    }

    /// The bytes of one page (LOB id, DBA), named by a locator from now on; `None` when absent.
    pub fn read_page(&mut self, lob_id: &[u8], dba: u32) -> Result<Option<Vec<u8>>> {
        let key = (lob_id.to_vec(), i64::from(dba));
        let out = self.page_bytes(&key)?.map(|(_, bytes)| bytes);
        if out.is_some() {
            self.pending.remove(&key);
        }
        Ok(out)
    }

    /// Pieces of the current transaction that no resolved locator named.
    pub fn unattached(&self) -> usize {
        self.pending.len()
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::events::kind;

    pub(crate) fn piece(id: &[u8], dba: i64, page: i64, data: &[u8]) -> ChangeEvent {
        let mut e = ChangeEvent { kind: kind::LOB, bdba: dba, lob_page: page, ..Default::default() };
        e.lob_id = e.push_bytes(id);
        e.lob_data = e.push_bytes(data);
        e
    }

    pub(crate) fn page_list(id: &[u8], dbas: &[u32], last: u16) -> Vec<u8> {
        let mut v = vec![0, 0x54, 0, 1, 2, LOCATOR_IN_ROW, 0, 0, 0, 0];
        v.extend_from_slice(id);
        v.extend_from_slice(&((16 + 4 * dbas.len()) as u16).to_be_bytes());
        v.extend_from_slice(&FLG2_PAGE_LIST.to_be_bytes());
        v.extend_from_slice(&(dbas.len() as u32).to_be_bytes());
        v.extend_from_slice(&last.to_be_bytes());
        v.extend_from_slice(&[0; 6]);
        for d in dbas {
            v.extend_from_slice(&d.to_be_bytes());
        }
        v
    }

    #[test]
    fn pages_are_stitched_from_the_file_in_locator_order() {
        let id = b"\0\0\0\x01ABCDEF";
        let mut store = LobStore::new(None);
        store.begin();
        for e in [piece(id, 9, 2, b"world"), piece(id, 7, 1, b"hello "), piece(id, 8, 1, b"stale")] {
            assert!(store.add(&e).unwrap());
        }
        assert!(!store.add(&ChangeEvent::default()).unwrap());
        let locator = parse_lob_locator(&page_list(id, &[7, 9], 5)).unwrap();
        assert_eq!(store.resolve(&locator).unwrap().as_deref(), Some(&b"hello world"[..]));
        assert_eq!(store.unattached(), 1); // the page at DBA 8 no locator named
                                           // out of page order, a missing page, a wrong last-page length: not resolved
        for (dbas, last) in [(&[9u32, 7][..], 6), (&[7, 10][..], 5), (&[7, 9][..], 4)] {
            assert_eq!(store.resolve(&parse_lob_locator(&page_list(id, dbas, last)).unwrap()).unwrap(), None);
        }
        assert_eq!((store.pieces, store.bytes, store.len()), (3, 16, 3));
    }

    #[test]
    fn short_locators_are_format_errors() {
        assert_eq!(parse_lob_locator(&[0; 19]).unwrap_err().kind(), "format");
        // a page count past the DBAs listed: the other pages are the LOB index's
        let mut v = page_list(b"\0\0\0\x01ABCDEF", &[1], 1);
        v[24..28].copy_from_slice(&9u32.to_be_bytes());
        let loc = parse_lob_locator(&v).unwrap();
        assert_eq!((loc.dbas, loc.index_pages), (vec![1], 8));
        // a page list whose body ends before the DBAs start: an error, not a subtraction below zero
        let mut v = page_list(b"\0\0\0\x01ABCDEF", &[1], 1);
        v[20..22].copy_from_slice(&0u16.to_be_bytes());
        assert_eq!(parse_lob_locator(&v).unwrap_err().kind(), "format");
    }

    #[test]
    fn only_locators_naming_pages_name_lob_pages() {
        let id = b"\0\0\0\x01ABCDEF";
        assert!(names_lob_pages(&page_list(id, &[7, 9], 5)));
        let mut by_index = page_list(id, &[7], 5);
        by_index[5] = 0; // flags 0x04 clear: the LOB index resolves it
        assert!(names_lob_pages(&by_index));
        // in-row data, no pages, a LOB id the decoder does not track, a page list cut short
        let mut inline = page_list(id, &[], 0);
        inline[22..24].copy_from_slice(&FLG2_INLINE.to_be_bytes());
        inline.extend_from_slice(b"data");
        let body = (inline.len() - 20) as u16;
        inline[20..22].copy_from_slice(&body.to_be_bytes());
        assert_eq!(parse_lob_locator(&inline).unwrap().inline.as_deref(), Some(&b"data"[..]));
        assert!(!names_lob_pages(&inline));
        assert!(!names_lob_pages(&page_list(id, &[], 0)));
        assert!(!names_lob_pages(&page_list(b"\0\0\0\x02ABCDEF", &[7], 5)));
        assert!(!names_lob_pages(&page_list(id, &[7, 9], 5)[..38]));
        // ordinary values: text, numbers, short RAW, and every prefix of a locator: never a panic
        for value in [&b"an ordinary VARCHAR2 value of forty bytes"[..], b"\xc1\x02", b""] {
            assert!(!names_lob_pages(value));
        }
        let full = page_list(id, &[7, 9], 5);
        for end in 0..full.len() {
            assert!(!names_lob_pages(&full[..end]));
        }
        for byte in 0..=255u8 {
            let mut v = full.clone();
            v[20] = byte;
            v[21] = byte;
            v[22] = byte;
            let _ = names_lob_pages(&v);
        }
    }
}
