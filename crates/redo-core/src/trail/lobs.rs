//! LOB values: the in-row LOB locator of a CLOB / NCLOB / BLOB column (redo-format §7.8; Python
//! `redo_lib/format/lobs.py` `parse_lob_locator`) and the LOB pieces of committed transactions
//! stitched back by the pages a locator names (Python `redo_lib/assembly/lobs.py` `LobStore`).
//!
//! Pieces are keyed by (LOB id, page DBA): a page rewritten by a later statement gets a new DBA, so a
//! locator names exactly the version of every page it was written with. One store per emitter, so
//! pages an earlier transaction of the batch wrote are found. Unlike Python's store (page bytes in
//! a temporary file, the index in memory) the bytes are held in memory here.

use std::collections::{HashMap, HashSet};

use crate::assembly::ChangeEvent;
use crate::error::{Error, Result};

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

/// `parse_lob_locator`: in-row data (flg2 0x0100) and the page list (flg2 0x0400) are resolved;
/// any other form parses to a locator without data. Short or inconsistent bytes: `Error::Format`.
pub fn parse_lob_locator(data: &[u8]) -> Result<LobLocator> {
    need(data, 20, "LOB locator")?;
    let flags = data[5];
    let lob_id = data[10..20].to_vec();
    if flags & LOCATOR_IN_ROW == 0 {
        return Ok(LobLocator { lob_id, ..Default::default() });
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
        let count = u32::from_be_bytes([data[24], data[25], data[26], data[27]]) as usize;
        if LOCATOR_DATA + 4 * count > total {
            return Err(Error::body(format!(
                "LOB locator lists {count} pages but has room for {}",
                (total - LOCATOR_DATA) / 4
            )));
        }
        let dbas = data[LOCATOR_DATA..LOCATOR_DATA + 4 * count]
            .chunks_exact(4)
            .map(|b| u32::from_be_bytes([b[0], b[1], b[2], b[3]]))
            .collect();
        return Ok(LobLocator { lob_id, inline: None, last_page_bytes: be16(data, 28), dbas });
    }
    if flg2 & FLG2_INLINE != 0 {
        let inline = data.get(LOCATOR_DATA..total).unwrap_or_default().to_vec();
        return Ok(LobLocator { lob_id, inline: Some(inline), ..Default::default() });
    }
    Ok(LobLocator { lob_id, ..Default::default() })
}

type PageKey = (Vec<u8>, i64);

/// LOB pages by (LOB id, DBA) (Python `LobStore`).
#[derive(Debug, Default)]
pub struct LobStore {
    /// (LOB id, DBA) -> (bytes, page number)
    pages: HashMap<PageKey, (Vec<u8>, i64)>,
    /// pieces of the current transaction no resolved locator named yet
    pending: HashSet<PageKey>,
    pub pieces: u64,
    pub bytes: u64,
}

impl LobStore {
    pub fn len(&self) -> usize {
        self.pages.len()
    }

    pub fn is_empty(&self) -> bool {
        self.pages.is_empty()
    }

    /// Start a new transaction: pieces still unnamed from the previous one are forgotten.
    pub fn begin(&mut self) {
        self.pending.clear();
    }

    /// Store one event if it is a LOB piece; whether it was.
    pub fn add(&mut self, e: &ChangeEvent) -> bool {
        if !e.is_lob() {
            return false;
        }
        let key = (e.bytes(e.lob_id).to_vec(), e.bdba);
        let data = e.bytes(e.lob_data);
        self.bytes += data.len() as u64;
        self.pieces += 1;
        self.pages.insert(key.clone(), (data.to_vec(), e.lob_page));
        self.pending.insert(key);
        true
    }

    /// The LOB's data named by the locator; `None` when a page is missing, the pages are out of
    /// order, the last page's length differs, or the form is one not resolved here.
    pub fn resolve(&mut self, locator: &LobLocator) -> Option<Vec<u8>> {
        if let Some(inline) = &locator.inline {
            return Some(inline.clone());
        }
        if locator.dbas.is_empty() {
            return None;
        }
        let mut out = Vec::new();
        let mut expected: Option<i64> = None;
        let mut last_len = 0;
        for &dba in &locator.dbas {
            let key = (locator.lob_id.clone(), i64::from(dba));
            let (data, page) = self.pages.get(&key)?;
            if expected.is_some_and(|p| p != *page) {
                return None;
            }
            expected = Some(page.saturating_add(1));
            out.extend_from_slice(data);
            last_len = data.len();
            self.pending.remove(&key);
        }
        (last_len == locator.last_page_bytes).then_some(out)
    }

    /// Pieces of the current transaction that no resolved locator named.
    pub fn unattached(&self) -> usize {
        self.pending.len()
    }
}
