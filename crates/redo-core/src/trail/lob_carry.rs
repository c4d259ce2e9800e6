//! LOB pages carried from batch to batch (docs/lobs.md, "Across batches"; the batch folder's
//! `lobs/`, docs/pipeline-contract.md).
//!
//! An append (DBMS_LOB.APPEND) keeps a LOB's full pages, so its new locator names pages written
//! any time before, often in an earlier batch. The emitter's [`LobStore`] lives for one batch; what
//! a later batch may still need of it is carried out at the end and carried in by the next batch's
//! store, as open transactions are.
//!
//! What is kept: the pages the **newest locator** of each LOB names (a page-list locator in a row's
//! after image; for a LOB not named in this batch, the pages carried in for it). Everything else
//! can go, because no later locator can name it again:
//! * a page an append rewrote: the new version has a new DBA, the newest locator names that one;
//! * every page of a LOB that is gone: its row deleted, or its column given another LOB (a new LOB
//!   id, an in-row value or NULL); the undo holds the old locator, so the before image names the
//!   LOB id that went (LOB ids are never reused);
//! * pages no locator named (of tables out of the capture scope, or counted
//!   `lob_pieces_unattached`).
//!
//! In the Spark stage one task holds the LOB-writing transactions and the store, while a delete or
//! an update without LOB pages is emitted by another task: each task writes the LOB ids it saw go,
//! and the next batch leaves their pages out as it reads them in (counted
//! `lob_pages_pruned_in`). So a carried store holds the live out-of-row LOB pages, plus at most the
//! pages of LOBs that went in its own batch in another task.
//!
//! The carried form is one record batch schema, [`lob_pages_schema`]: a page is (LOB id, DBA, page
//! number, bytes); a LOB id that went is a row with only its LOB id. Pages go to the store's file
//! as they are read in; only the index stays in memory.

use std::collections::{BTreeSet, HashMap, HashSet};
use std::sync::{Arc, OnceLock};

use arrow_array::builder::{BinaryBuilder, Int64Builder};
use arrow_array::{Array, ArrayRef, BinaryArray, Int64Array, RecordBatch};
use arrow_schema::{DataType, Field, Schema, SchemaRef};

use super::dictionary::ColumnDef;
use super::emit::{Emitter, BLOB, CLOB};
use super::lobs::{parse_lob_locator, LobLocator, LobStore, PageKey};
use super::rows::{RowChange, RowOp};
use crate::error::{Error, Result};

/// Rows of LOB ids that went per output batch (a few bytes each).
const DROPPED_PER_BATCH: usize = 65_536;

/// The carried LOB pages' schema: `lob_id` (binary), `dba`, `page` (int64), `data` (binary); `dba`,
/// `page` and `data` are null on a row that names a LOB id that went.
pub fn lob_pages_schema() -> SchemaRef {
    static SCHEMA: OnceLock<SchemaRef> = OnceLock::new();
    SCHEMA
        .get_or_init(|| {
            Arc::new(Schema::new(vec![
                Field::new("lob_id", DataType::Binary, false),
                Field::new("dba", DataType::Int64, true),
                Field::new("page", DataType::Int64, true),
                Field::new("data", DataType::Binary, true),
            ]))
        })
        .clone()
}

/// What the emitter knows of which LOB pages are live (module doc).
#[derive(Debug, Default)]
pub struct LobCarry {
    /// LOB id -> the DBAs of its newest locator, or of the pages carried in for it
    newest: HashMap<Vec<u8>, Vec<i64>>,
    /// LOB ids seen going in this batch (written out for the next batch)
    dropped: BTreeSet<Vec<u8>>,
    /// LOB ids the previous batch saw going (their pages are not read in)
    dropped_in: HashSet<Vec<u8>>,
    out: Option<CarryOut>,
}

/// The carry-out under way: LOB ids that went, then the pages kept, each in a fixed order.
#[derive(Debug)]
struct CarryOut {
    dropped: Vec<Vec<u8>>,
    pages: Vec<PageKey>,
    next_dropped: usize,
    next_page: usize,
}

impl LobCarry {
    /// A LOB value's locator in a row's after image: the LOB's newest.
    fn named(&mut self, locator: &LobLocator) {
        if !locator.dbas.is_empty() {
            let dbas = locator.dbas.iter().map(|&d| i64::from(d)).collect();
            self.newest.insert(locator.lob_id.clone(), dbas);
        } else if locator.inline.is_some() {
            if let Some(dbas) = self.newest.get_mut(&locator.lob_id) {
                dbas.clear(); // in the row now: no page of it is named
            }
        }
    }

    /// One row change of a captured table (its columns from the dictionary): the LOB locators of
    /// its after image are the newest of their LOBs; a LOB in its before image that a delete removes,
    /// or that an update replaces (another LOB id, NULL), is gone.
    pub fn note_row(&mut self, columns: &[ColumnDef], rc: &RowChange) {
        for column in columns.iter().filter(|c| matches!(c.type_code, CLOB | BLOB)) {
            let idx = (column.segcol_no - 1) as i32;
            let after = rc.after.get(&idx); // None: not in the image (unchanged); Some(None): NULL
            let new = match after {
                Some(Some(v)) => parse_lob_locator(v).ok(),
                _ => None,
            };
            if let Some(locator) = &new {
                self.named(locator);
            }
            let Some(Ok(old)) = rc.before.get(&idx).and_then(Option::as_deref).map(parse_lob_locator) else {
                continue;
            };
            let gone = match (rc.op, after) {
                (RowOp::Delete, _) => true,
                (RowOp::Update, Some(None)) => true,
                (RowOp::Update, Some(Some(_))) => new.is_some_and(|n| n.lob_id != old.lob_id),
                _ => false,
            };
            if gone {
                self.newest.remove(&old.lob_id);
                self.dropped.insert(old.lob_id);
            }
        }
    }
}

fn bump(counters: &mut std::collections::BTreeMap<String, u64>, name: &str, n: u64) {
    *counters.entry(name.to_owned()).or_insert(0) += n;
}

fn column<'a, T: 'static>(batch: &'a RecordBatch, name: &str, kind: &str) -> Result<&'a T> {
    batch
        .column_by_name(name)
        .and_then(|c| c.as_any().downcast_ref::<T>())
        .ok_or_else(|| Error::body(format!("carried LOB pages: no {kind} column {name}")))
}

impl Emitter {
    /// Read in one record batch of the previous batch's carried LOB pages ([`lob_pages_schema`]):
    /// pages go to the store's file (only the index stays in memory), LOB ids that went keep their
    /// pages out (read before or after them). Bad rows are `Error::Format`.
    pub fn carry_in_lobs(&mut self, batch: &RecordBatch) -> Result<()> {
        let ids = column::<BinaryArray>(batch, "lob_id", "binary")?;
        let dbas = column::<Int64Array>(batch, "dba", "int64")?;
        let pages = column::<Int64Array>(batch, "page", "int64")?;
        let data = column::<BinaryArray>(batch, "data", "binary")?;
        let (mut added, mut removed, mut pruned) = (0u64, 0u64, 0u64);
        for row in 0..batch.num_rows() {
            if ids.is_null(row) {
                return Err(Error::body(format!("carried LOB pages: row {row} has no LOB id")));
            }
            let id = ids.value(row);
            if dbas.is_null(row) {
                if self.lob_carry.dropped_in.insert(id.to_vec()) {
                    // its pages read in before this row: out again
                    for dba in self.lob_carry.newest.remove(id).unwrap_or_default() {
                        if self.lobs.as_mut().is_some_and(|s| s.remove(&(id.to_vec(), dba))) {
                            removed += 1;
                        }
                    }
                }
                continue;
            }
            if pages.is_null(row) || data.is_null(row) {
                return Err(Error::body(format!(
                    "carried LOB pages: row {row} has a DBA but no page or data"
                )));
            }
            if self.lob_carry.dropped_in.contains(id) {
                pruned += 1;
                continue;
            }
            let store = self.lobs.get_or_insert_with(|| LobStore::new(None));
            store.put(id, dbas.value(row), pages.value(row), data.value(row))?;
            self.lob_carry.newest.entry(id.to_vec()).or_default().push(dbas.value(row));
            added += 1;
        }
        let carried_in = self.counters.entry("lob_pages_carried_in".to_owned()).or_insert(0);
        *carried_in = (*carried_in + added).saturating_sub(removed); // removed were added before
        pruned += removed;
        bump(&mut self.counters, "lob_pages_pruned_in", pruned);
        Ok(())
    }

    /// Decide what this batch carries out (module doc), once every transaction is emitted; then
    /// [`Emitter::next_carried_lobs`] gives it. Counts `lob_pages_carried_out`,
    /// `lob_page_bytes_carried_out`, `lob_pages_released` (held but not carried) and
    /// `lob_ids_dropped`.
    pub fn carry_out_lobs(&mut self) {
        let carry = &mut self.lob_carry;
        let mut keep: Vec<(Vec<u8>, i64, i64)> = Vec::new();
        let (mut bytes, mut held) = (0u64, 0usize);
        if let Some(store) = self.lobs.as_ref() {
            held = store.len();
            let found: HashMap<&PageKey, (i64, usize)> = store.pages().map(|(k, p, n)| (k, (p, n))).collect();
            for (id, dbas) in &carry.newest {
                if carry.dropped.contains(id) || carry.dropped_in.contains(id) {
                    continue;
                }
                for &dba in dbas {
                    if let Some(&(page, n)) = found.get(&(id.clone(), dba)) {
                        keep.push((id.clone(), page, dba));
                        bytes += n as u64;
                    }
                }
            }
        }
        keep.sort_unstable();
        keep.dedup();
        bump(&mut self.counters, "lob_pages_carried_out", keep.len() as u64);
        bump(&mut self.counters, "lob_page_bytes_carried_out", bytes);
        bump(&mut self.counters, "lob_pages_released", held.saturating_sub(keep.len()) as u64);
        bump(&mut self.counters, "lob_ids_dropped", carry.dropped.len() as u64);
        carry.out = Some(CarryOut {
            dropped: carry.dropped.iter().cloned().collect(),
            pages: keep.into_iter().map(|(id, _, dba)| (id, dba)).collect(),
            next_dropped: 0,
            next_page: 0,
        });
    }

    /// The next record batch of the carry-out ([`lob_pages_schema`]): the LOB ids that went first,
    /// then the pages in (LOB id, page, DBA) order, about `max_bytes` of page data per batch (at
    /// least one page); `None` at the end or before [`Emitter::carry_out_lobs`].
    pub fn next_carried_lobs(&mut self, max_bytes: usize) -> Result<Option<RecordBatch>> {
        let Some(out) = self.lob_carry.out.as_mut() else { return Ok(None) };
        let (mut ids, mut dbas, mut pages, mut data) =
            (BinaryBuilder::new(), Int64Builder::new(), Int64Builder::new(), BinaryBuilder::new());
        if out.next_dropped < out.dropped.len() {
            let end = (out.next_dropped + DROPPED_PER_BATCH).min(out.dropped.len());
            for id in &out.dropped[out.next_dropped..end] {
                ids.append_value(id);
                dbas.append_null();
                pages.append_null();
                data.append_null();
            }
            out.next_dropped = end;
        } else {
            let mut size = 0;
            while out.next_page < out.pages.len() && (size == 0 || size < max_bytes) {
                let key = &out.pages[out.next_page];
                let Some((page, bytes)) =
                    self.lobs.as_mut().map(|s| s.page_bytes(key)).transpose()?.flatten()
                else {
                    return Err(Error::assembly("a carried LOB page left the store", Default::default()));
                };
                ids.append_value(&key.0);
                dbas.append_value(key.1);
                pages.append_value(page);
                data.append_value(&bytes);
                size += bytes.len().max(1);
                out.next_page += 1;
            }
            if size == 0 {
                return Ok(None);
            }
        }
        let columns: Vec<ArrayRef> = vec![
            Arc::new(ids.finish()),
            Arc::new(dbas.finish()),
            Arc::new(pages.finish()),
            Arc::new(data.finish()),
        ];
        RecordBatch::try_new(lob_pages_schema(), columns)
            .map(Some)
            .map_err(|e| Error::assembly(format!("carried LOB pages: {e}"), Default::default()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trail::lobs::tests::{page_list, piece};

    fn clob(segcol_no: i64) -> ColumnDef {
        ColumnDef {
            segcol_no,
            name: "BODY".into(),
            type_code: CLOB,
            charset: None,
            nullable: true,
            hidden: false,
        }
    }

    fn change(op: RowOp, before: Option<Vec<u8>>, after: Option<Option<Vec<u8>>>) -> RowChange {
        let mut rc = RowChange {
            op,
            obj: 1,
            dataobj: 1,
            bdba: 0,
            slot: 0,
            before: Default::default(),
            after: Default::default(),
            changed: Vec::new(),
            logged: Vec::new(),
            thread: 1,
            seq: 1,
            block: 0,
            offset: 0,
            scn: 0,
            subscn: 0,
            time: 0,
            ddl_text: String::new(),
            ddl_schema: String::new(),
        };
        if let Some(b) = before {
            rc.before.insert(0, Some(b));
        }
        if let Some(a) = after {
            rc.after.insert(0, a);
        }
        rc
    }

    fn drain(e: &mut Emitter, max_bytes: usize) -> Vec<RecordBatch> {
        let mut out = Vec::new();
        while let Some(b) = e.next_carried_lobs(max_bytes).unwrap() {
            out.push(b);
        }
        out
    }

    /// (lob id, dba, page, data) rows of batches; a dropped id has dba -1.
    fn rows(batches: &[RecordBatch]) -> Vec<(Vec<u8>, i64, i64, Vec<u8>)> {
        let mut out = Vec::new();
        for b in batches {
            let ids = column::<BinaryArray>(b, "lob_id", "").unwrap();
            let dbas = column::<Int64Array>(b, "dba", "").unwrap();
            let pages = column::<Int64Array>(b, "page", "").unwrap();
            let data = column::<BinaryArray>(b, "data", "").unwrap();
            for r in 0..b.num_rows() {
                if dbas.is_null(r) {
                    out.push((ids.value(r).to_vec(), -1, -1, Vec::new()));
                } else {
                    out.push((ids.value(r).to_vec(), dbas.value(r), pages.value(r), data.value(r).to_vec()));
                }
            }
        }
        out
    }

    const A: &[u8] = b"\0\0\0\x01AAAAAA";
    const B: &[u8] = b"\0\0\0\x01BBBBBB";
    const C: &[u8] = b"\0\0\0\x01CCCCCC";

    /// Batch 1: LOB A in pages 10, 11 (page 11 partial), then appended to (page 11 rewritten as 12,
    /// page 13 added); LOB B written and replaced by LOB C in another row; LOB B's pages and A's
    /// superseded page 11 are not carried. Batch 2 reads A's pages in and resolves a later append.
    #[test]
    fn live_pages_are_carried_out_and_resolve_an_append_of_the_next_batch() {
        let columns = [clob(1)];
        let mut first = Emitter::default();
        let store = first.lobs.get_or_insert_with(|| LobStore::new(None));
        for (id, dba, page, data) in [
            (A, 10, 0, &b"aaaa"[..]),
            (A, 11, 1, b"bb"),
            (A, 12, 1, b"bbcc"),
            (A, 13, 2, b"d"),
            (B, 20, 0, b"x"),
        ] {
            store.add(&piece(id, dba, page, data)).unwrap();
        }
        store.add(&piece(C, 30, 0, b"y")).unwrap();
        let a1 = page_list(A, &[10, 11], 2);
        let a2 = page_list(A, &[10, 12, 13], 1);
        let (b, c) = (page_list(B, &[20], 1), page_list(C, &[30], 1));
        first.lob_carry.note_row(&columns, &change(RowOp::Insert, None, Some(Some(a1.clone()))));
        first.lob_carry.note_row(&columns, &change(RowOp::Update, Some(a1), Some(Some(a2.clone()))));
        first.lob_carry.note_row(&columns, &change(RowOp::Insert, None, Some(Some(b.clone()))));
        first.lob_carry.note_row(&columns, &change(RowOp::Update, Some(b), Some(Some(c))));
        first.carry_out_lobs();
        let out = drain(&mut first, 5);
        assert_eq!(
            rows(&out),
            vec![
                (B.to_vec(), -1, -1, vec![]),
                (A.to_vec(), 10, 0, b"aaaa".to_vec()),
                (A.to_vec(), 12, 1, b"bbcc".to_vec()),
                (A.to_vec(), 13, 2, b"d".to_vec()),
                (C.to_vec(), 30, 0, b"y".to_vec()),
            ]
        );
        assert_eq!(out.len(), 3, "the dropped ids, then pages until 5 bytes: [10, 12], [13, 30]");
        let count = |e: &Emitter, k: &str| e.counters.get(k).copied().unwrap_or(0);
        assert_eq!(count(&first, "lob_pages_carried_out"), 4);
        assert_eq!(count(&first, "lob_page_bytes_carried_out"), 10);
        assert_eq!(count(&first, "lob_pages_released"), 2); // A's page 11, B's page
        assert_eq!(count(&first, "lob_ids_dropped"), 1);

        let mut second = Emitter::default();
        for batch in &out {
            second.carry_in_lobs(batch).unwrap();
        }
        assert_eq!(count(&second, "lob_pages_carried_in"), 4);
        assert_eq!(count(&second, "lob_pages_pruned_in"), 0);
        // the next append: page 13 rewritten as 14
        let store = second.lobs.as_mut().unwrap();
        store.begin();
        store.add(&piece(A, 14, 2, b"de")).unwrap();
        let a3 = parse_lob_locator(&page_list(A, &[10, 12, 14], 2)).unwrap();
        assert_eq!(store.resolve(&a3).unwrap().as_deref(), Some(&b"aaaabbccde"[..]));
        // a row with C deleted: C's page goes; A's newest locator drops page 13
        second
            .lob_carry
            .note_row(&columns, &change(RowOp::Update, Some(a2), Some(Some(page_list(A, &[10, 12, 14], 2)))));
        second.lob_carry.note_row(&columns, &change(RowOp::Delete, Some(page_list(C, &[30], 1)), None));
        second.carry_out_lobs();
        let kept: Vec<i64> = rows(&drain(&mut second, 1 << 20)).iter().map(|r| r.1).collect();
        assert_eq!(kept, vec![-1, 10, 12, 14]);
        assert_eq!(count(&second, "lob_pages_released"), 2);
    }

    /// A LOB id another task saw go (a row of the carry-in with only the id) keeps its pages out,
    /// whether that row comes before or after them; a LOB set to NULL goes too.
    #[test]
    fn pages_of_a_lob_that_went_are_pruned_on_the_way_in() {
        let mut first = Emitter::default();
        let store = first.lobs.get_or_insert_with(|| LobStore::new(None));
        store.add(&piece(A, 10, 0, b"a")).unwrap();
        store.add(&piece(B, 20, 0, b"b")).unwrap();
        let columns = [clob(1)];
        first.lob_carry.note_row(&columns, &change(RowOp::Insert, None, Some(Some(page_list(A, &[10], 1)))));
        first.lob_carry.note_row(&columns, &change(RowOp::Insert, None, Some(Some(page_list(B, &[20], 1)))));
        first.carry_out_lobs();
        let pages = drain(&mut first, 1 << 20);
        let mut other = Emitter::default(); // another task: B's row set to NULL, A's row deleted
        other.lob_carry.note_row(&columns, &change(RowOp::Update, Some(page_list(B, &[20], 1)), Some(None)));
        other.lob_carry.note_row(&columns, &change(RowOp::Delete, Some(page_list(A, &[10], 1)), None));
        other.carry_out_lobs();
        let gone = drain(&mut other, 1 << 20);
        assert_eq!(rows(&gone).len(), 2);
        for order in [[&pages, &gone], [&gone, &pages]] {
            let mut next = Emitter::default();
            for batch in order.into_iter().flatten() {
                next.carry_in_lobs(batch).unwrap();
            }
            let count = |k: &str| next.counters.get(k).copied().unwrap_or(0);
            assert_eq!((count("lob_pages_carried_in"), count("lob_pages_pruned_in")), (0, 2));
            next.carry_out_lobs();
            assert!(drain(&mut next, 1 << 20).is_empty());
        }
    }

    #[test]
    fn a_carried_row_without_its_fields_is_an_error() {
        let columns: Vec<ArrayRef> = vec![
            Arc::new(BinaryArray::from(vec![A])),
            Arc::new(Int64Array::from(vec![Some(1)])),
            Arc::new(Int64Array::from(vec![None])),
            Arc::new(BinaryArray::from(vec![Some(&b"x"[..])])),
        ];
        let batch = RecordBatch::try_new(lob_pages_schema(), columns).unwrap();
        let err = Emitter::default().carry_in_lobs(&batch).unwrap_err();
        assert_eq!(err.kind(), "format");
        assert!(err.info().message.contains("row 0"), "{err:?}");
    }
}
