//! TransactionTable: the state machine from change events to committed transactions (Python
//! `redo_lib/assembly/transactions.py`, the same transitions, counters and issues).
//!
//! Transitions (key = (usn, slot); redo-format §6.2, §6.3; trail contract rules 1, 2, 5):
//!
//! | event            | no open transaction on key             | open transaction, same sqn              |
//! |------------------|----------------------------------------|-----------------------------------------|
//! | BEGIN            | open it                                | ignored (repeated begin)                |
//! | CHANGE / DDL     | counted: `change_without_begin`        | appended to its buffer                  |
//! | LOB (piece)      | counted: `lob_without_begin`           | appended to its buffer                  |
//! | PARTIAL_ROLLBACK | counted: `rollback_unmatched`          | cancels the newest matching change (LOB |
//! |                  |                                        | pieces on top first, §6.3)              |
//! | COMMIT           | counted: `commit_without_begin`        | closed; returned as CommittedTransaction|
//! |                  |                                        | (held instead when its SCN >= hold_from)|
//! | ROLLBACK         | counted: `rollback_without_begin`      | closed; its changes counted as cancelled|
//!
//! A BEGIN or change on a key whose open transaction has another sqn means the earlier
//! transaction's end was never seen: it is dropped and counted as `lost_transaction` (with its xid),
//! never merged; under the raise policy it is an `AssemblyError` at the new event's position. A
//! change without a begin belongs to a transaction that began before the first log this run was
//! given (and no carried state says otherwise): it cannot be emitted whole (rule 5), so it is
//! counted.
//!
//! Held commits (RAC batches, `hold_from`): a transaction committing at or above the batch's
//! watermark SCN waits for the next batch, so the trail stays in global commit order. It leaves the
//! (usn, slot) map (a new BEGIN on the slot opens normally), is kept with its commit event and
//! counted `held`; `carry_out` gives it with the open ones, its COMMIT last, and the next batch
//! meets the commit again (and commits it, or holds it again). A rollback is never held: it emits
//! nothing, so its place in commit order does not matter.
//!
//! The table is fed events in redo order (one thread, or several merged by SCN). State carried to
//! the next batch is the open (and held) transactions' events in begin order (`carry_out`); the
//! next batch's table resumes by being fed them (before, or merged in redo order with, its own
//! events).

use std::collections::{BTreeMap, HashMap};
use std::path::PathBuf;

use arrow_array::RecordBatch;

use crate::arrow::EventBuilder;
use crate::assembly::buffer::{batch_error, ChangeBuffer, DEFAULT_MEMORY_BYTES, DEFAULT_MEMORY_LIMIT};
#[cfg(test)]
use crate::assembly::event::events_of;
use crate::assembly::event::{ChangeEvent, EventColumns};
use crate::error::{Detail, Error, Position, Result};
use crate::events::kind;
use crate::events::row_ops::{CFA, CMP, DRP, IRP, LMN, ORP, QMD, QMI, URP};
use crate::reader::Policy;

/// Compensating redo op -> the buffered redo op it cancels (redo-format §6.3; Python `_INVERSE`).
fn inverse(op: i64) -> Option<i64> {
    Some(match op {
        DRP => IRP, // DRP cancels IRP
        IRP => DRP,
        URP => URP,
        ORP => ORP,
        CFA => CFA,
        QMI => QMD, // QMI cancels QMD
        QMD => QMI,
        CMP => CMP,
        _ => return None,
    })
}
/// At most this many issues are kept for the report (the counters count them all).
pub const MAX_ISSUES: usize = 1000;

/// A transaction id (Python `scn.Xid`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Xid {
    pub usn: i64,
    pub slot: i64,
    pub sqn: i64,
}

impl Xid {
    fn of(e: &ChangeEvent) -> Xid {
        Xid { usn: e.usn, slot: e.slot, sqn: e.sqn }
    }
}

/// A committed transaction and its net changes in redo order (Python `CommittedTransaction`); the
/// changes may be on disk: read them with `changes.for_each`, `changes.events()` or
/// `changes.into_batches(n)`.
#[derive(Debug)]
pub struct CommittedTransaction {
    pub xid: Xid,
    pub commit_scn: i64,
    /// microseconds since 1970-01-01 (the commit record's LWN time)
    pub commit_time: i64,
    pub thread: i64,
    pub seq: i64,
    pub block: i64,
    pub offset: i64,
    pub begin_scn: i64,
    pub changes: ChangeBuffer,
}

impl CommittedTransaction {
    /// Commit order (contract rule 6): commit SCN, then thread, then commit record position.
    pub fn order_key(&self) -> (i64, i64, i64, i64, i64) {
        (self.commit_scn, self.thread, self.seq, self.block, self.offset)
    }
}

/// One entry of the report's issue list: (kind, xid text, position).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Issue {
    pub kind: &'static str,
    /// `usn.slot.sqn`, or `usn.slot.?` for an event without a sqn
    pub xid: String,
    pub seq: i64,
    pub block: i64,
    pub offset: i64,
}

/// How the table is set up (Python `TransactionTable`'s keyword arguments).
#[derive(Clone, Debug)]
pub struct TableOptions {
    /// events kept in memory per transaction before spilling (at least 2)
    pub memory_limit: usize,
    /// event data kept in memory per transaction before spilling
    pub memory_bytes: usize,
    pub policy: Policy,
    pub spill_dir: Option<PathBuf>,
    /// commits at or above this SCN are held for the next batch (`None`: none are)
    pub hold_from: Option<i64>,
}

impl Default for TableOptions {
    fn default() -> Self {
        TableOptions {
            memory_limit: DEFAULT_MEMORY_LIMIT,
            memory_bytes: DEFAULT_MEMORY_BYTES,
            policy: Policy::Skip,
            spill_dir: None,
            hold_from: None,
        }
    }
}

#[derive(Debug)]
struct Open {
    begin: ChangeEvent,
    buffer: ChangeBuffer,
    /// place in the map's insertion order (Python dict order: kept when a key is overwritten),
    /// which breaks ties of equal begin positions in `carry_out`
    order: u64,
}

#[derive(Debug)]
struct Held {
    open: Open,
    commit: ChangeEvent,
}

/// Open transactions keyed by (usn, slot). Feed events; collect committed transactions.
#[derive(Debug)]
pub struct TransactionTable {
    open: HashMap<(i64, i64), Open>,
    held: Vec<Held>,
    next_order: u64,
    options: TableOptions,
    /// named counters (Python `counters`; a name appears once counted)
    pub counters: BTreeMap<&'static str, u64>,
    /// row changes by (object, operation) rolled back, wholly or to a savepoint
    pub cancelled: BTreeMap<(i64, &'static str), u64>,
    /// row changes by (object, operation) of transactions that began before anything this table
    /// was given, or whose end was never seen
    pub orphaned: BTreeMap<(i64, &'static str), u64>,
    /// the first `MAX_ISSUES` issues, for the report
    pub issues: Vec<Issue>,
}

fn position(e: &ChangeEvent) -> Position {
    Position {
        file: None,
        sequence: u32::try_from(e.seq).ok(),
        block: u32::try_from(e.block).ok(),
        offset: u64::try_from(e.offset).ok(),
    }
}

/// Add an event's row changes to `counter` under (object, operation) (Python
/// `assembly.rows.count_row_change`; direct-path rows, which know only their data object, count
/// under it).
pub fn count_row_change(counter: &mut BTreeMap<(i64, &'static str), u64>, e: &ChangeEvent) {
    if let Some((op, n)) = e.row_change_count() {
        if n > 0 {
            let obj = if e.obj != 0 { e.obj } else { e.dataobj };
            *counter.entry((obj, op)).or_insert(0) += n;
        }
    }
}

/// Counter names of events without their transaction (Python's name map).
fn without_begin(k: i64) -> Option<&'static str> {
    Some(match k {
        kind::CHANGE | kind::DDL => "change_without_begin",
        kind::LOB => "lob_without_begin",
        kind::COMMIT => "commit_without_begin",
        kind::ROLLBACK => "rollback_without_begin",
        _ => return None,
    })
}

impl TransactionTable {
    /// An empty table (`memory_limit` below 2 is refused).
    pub fn new(options: TableOptions) -> Result<Self> {
        ChangeBuffer::new(options.memory_limit, options.memory_bytes, None)?;
        Ok(TransactionTable {
            open: HashMap::new(),
            held: Vec::new(),
            next_order: 0,
            options,
            counters: BTreeMap::new(),
            cancelled: BTreeMap::new(),
            orphaned: BTreeMap::new(),
            issues: Vec::new(),
        })
    }

    /// Open transactions (held ones not included, as Python's `len(table)`).
    pub fn len(&self) -> usize {
        self.open.len()
    }

    pub fn is_empty(&self) -> bool {
        self.open.is_empty()
    }

    /// Held transactions (committed at or above `hold_from`, waiting for the next batch).
    pub fn held(&self) -> usize {
        self.held.len()
    }

    /// The held transactions' xids, sorted.
    pub fn held_xids(&self) -> Vec<Xid> {
        let mut xids: Vec<Xid> = self.held.iter().map(|h| Xid::of(&h.open.begin)).collect();
        xids.sort();
        xids
    }

    /// The open transactions' xids, sorted.
    pub fn open_xids(&self) -> Vec<Xid> {
        let mut xids: Vec<Xid> = self.open.values().map(|o| Xid::of(&o.begin)).collect();
        xids.sort();
        xids
    }

    fn count(&mut self, name: &'static str) {
        *self.counters.entry(name).or_insert(0) += 1;
    }

    fn note(&mut self, name: &'static str, e: &ChangeEvent) {
        self.count(name);
        if self.issues.len() < MAX_ISSUES {
            self.issues.push(Issue {
                kind: name,
                xid: e.xid_text(),
                seq: e.seq,
                block: e.block,
                offset: e.offset,
            });
        }
    }

    fn buffer(&self) -> Result<ChangeBuffer> {
        ChangeBuffer::new(
            self.options.memory_limit,
            self.options.memory_bytes,
            self.options.spill_dir.as_deref(),
        )
    }

    /// Feed every row of an events record batch in order; the transactions committed, in the
    /// order their commits came. On an error (raise policy, or an unusable batch) the transactions
    /// committed before it are lost: use [`Self::feed_batch_into`] to keep them.
    pub fn feed_batch(&mut self, batch: &RecordBatch) -> Result<Vec<CommittedTransaction>> {
        let mut out = Vec::new();
        self.feed_batch_into(batch, &mut out)?;
        Ok(out)
    }

    /// [`Self::feed_batch`], the committed transactions appended to `out` as they come, so that on
    /// an error `out` holds those committed by the events before it (as a Python caller of `feed`
    /// has them).
    pub fn feed_batch_into(
        &mut self,
        batch: &RecordBatch,
        out: &mut Vec<CommittedTransaction>,
    ) -> Result<()> {
        let columns = EventColumns::new(batch)?;
        for i in 0..columns.len() {
            if let Some(txn) = self.feed(columns.event(i))? {
                out.push(txn);
            }
        }
        Ok(())
    }

    /// One transition (the table at the top of this file).
    pub fn feed(&mut self, event: ChangeEvent) -> Result<Option<CommittedTransaction>> {
        let key = (event.usn, event.slot);
        let k = event.kind;
        if k == kind::BEGIN {
            let mut order = None;
            if let Some(current) = self.open.get(&key) {
                if current.begin.sqn == event.sqn {
                    return Ok(None);
                }
                order = Some(current.order);
                self.lose(key, &event)?;
            }
            let order = order.unwrap_or_else(|| {
                self.next_order += 1;
                self.next_order
            });
            let buffer = self.buffer()?;
            self.open.insert(key, Open { begin: event, buffer, order });
            self.count("begun");
            return Ok(None);
        }
        if k == kind::PARTIAL_ROLLBACK {
            if self.open.contains_key(&key) {
                self.cancel_last(key, &event)?;
            } else {
                self.note("rollback_unmatched", &event);
            }
            return Ok(None);
        }
        let Some(name) = without_begin(k) else {
            return Err(Error::assembly(format!("unknown event kind {k}"), position(&event))
                .with_detail("xid", Detail::Xid(event.usn, event.slot, event.sqn)));
        };
        let same = self.open.get(&key).map(|current| current.begin.sqn == event.sqn);
        if same != Some(true) {
            if same.is_some() {
                // the slot was reused by a transaction whose begin we did not see
                self.lose(key, &event)?;
                self.open.remove(&key);
            }
            self.note(name, &event);
            if k == kind::CHANGE {
                count_row_change(&mut self.orphaned, &event);
            }
            return Ok(None);
        }
        if k == kind::CHANGE || k == kind::DDL || k == kind::LOB {
            if let Some(current) = self.open.get_mut(&key) {
                current.buffer.append(event)?;
            }
            return Ok(None);
        }
        let Some(mut current) = self.open.remove(&key) else { return Ok(None) };
        if k == kind::ROLLBACK {
            let cancelled = &mut self.cancelled;
            current.buffer.for_each(|change| {
                count_row_change(cancelled, change);
                Ok(())
            })?;
            current.buffer.close();
            self.count("rolled_back");
            return Ok(None);
        }
        if self.options.hold_from.is_some_and(|hold| event.scn >= hold) {
            self.held.push(Held { open: current, commit: event });
            self.count("held");
            return Ok(None);
        }
        self.count("committed");
        Ok(Some(CommittedTransaction {
            xid: Xid::of(&event),
            commit_scn: event.scn,
            commit_time: event.time,
            thread: event.thread,
            seq: event.seq,
            block: event.block,
            offset: event.offset,
            begin_scn: current.begin.scn,
            changes: current.buffer,
        }))
    }

    /// Partial rollback: remove the newest change this compensation undoes (LIFO, §6.3).
    fn cancel_last(&mut self, key: (i64, i64), event: &ChangeEvent) -> Result<()> {
        let Some(current) = self.open.get_mut(&key) else { return Ok(()) };
        let buffer = &mut current.buffer;
        let last = buffer.last()?.map(|l| (l.kind, l.obj, l.redo_op));
        let Some((last_kind, last_obj, last_op)) = last else {
            self.note("rollback_unmatched", event);
            return Ok(());
        };
        if event.redo_op == 0 {
            // stand-alone 5.6/5.11: cancels a LOB piece, a lone undo or an LMN of the same object
            if last_kind == kind::LOB && last_obj == event.obj {
                buffer.pop()?;
                self.count("lob_pieces_rolled_back");
            } else if (last_op == 0 || last_op == LMN) && last_obj == event.obj {
                if let Some(change) = buffer.pop()? {
                    // an LMN with supplemental data counts as a row change when decoded
                    count_row_change(&mut self.cancelled, &change);
                }
                self.count("partial_rollbacks");
            } else {
                self.note("rollback_unmatched", event);
            }
            return Ok(());
        }
        let mut lob_pieces = 0;
        let mut last = Some((last_kind, last_obj, last_op));
        while let Some((kind::LOB, _, _)) = last {
            // LOB pieces on top are popped unconditionally before the data pair (OLR, §6.3)
            buffer.pop()?;
            lob_pieces += 1;
            last = buffer.last()?.map(|l| (l.kind, l.obj, l.redo_op));
        }
        let matched = match (last, inverse(event.redo_op)) {
            (Some((_, obj, op)), Some(wanted)) => op == wanted && (obj == event.obj || event.obj == 0),
            _ => false,
        };
        let popped = if matched { buffer.pop()? } else { None };
        for _ in 0..lob_pieces {
            self.count("lob_pieces_rolled_back");
        }
        match popped {
            Some(change) => {
                count_row_change(&mut self.cancelled, &change);
                self.count("partial_rollbacks");
            }
            None => self.note("rollback_unmatched", event),
        }
        Ok(())
    }

    /// The open transaction on `key` lost its end: counted (and its changes orphaned), or an
    /// `AssemblyError` at `event` under the raise policy. The caller removes or replaces it.
    fn lose(&mut self, key: (i64, i64), event: &ChangeEvent) -> Result<()> {
        let Some(begin) = self.open.get(&key).map(|c| c.begin.clone()) else { return Ok(()) };
        self.note("lost_transaction", &begin);
        if self.options.policy == Policy::Raise {
            return Err(Error::assembly(
                "transaction slot reused before its commit or rollback was seen",
                position(event),
            )
            .with_detail("xid", Detail::Xid(begin.usn, begin.slot, begin.sqn))
            .with_detail("new_xid", Detail::Xid(event.usn, event.slot, event.sqn)));
        }
        if let Some(current) = self.open.get_mut(&key) {
            let orphaned = &mut self.orphaned;
            current.buffer.for_each(|change| {
                count_row_change(orphaned, change);
                Ok(())
            })?;
            current.buffer.close();
        }
        Ok(())
    }

    /// The open and held transactions' events in begin order (begin first, then the buffered
    /// changes, then a held one's COMMIT): the state for the next batch, as record batches of
    /// `events_schema()` of at most `max_rows` rows. The table is unchanged.
    pub fn carry_out(&self, max_rows: usize) -> Result<Vec<RecordBatch>> {
        let max_rows = max_rows.max(1);
        let mut out = Vec::new();
        let mut builder = EventBuilder::new();
        self.for_each_carried(|event| {
            event.append_to(&mut builder);
            if builder.len() >= max_rows {
                out.push(builder.finish().map_err(batch_error)?);
            }
            Ok(())
        })?;
        if !builder.is_empty() {
            out.push(builder.finish().map_err(batch_error)?);
        }
        Ok(out)
    }

    /// Visit the events [`Self::carry_out`] writes, in its order, one at a time (spilled changes
    /// are read back a chunk at a time: memory stays bounded however large a transaction is).
    pub fn for_each_carried(&self, mut f: impl FnMut(&ChangeEvent) -> Result<()>) -> Result<()> {
        // Python sorts `[*open (dict order), *held (hold order)]` by begin position, stably: on
        // equal positions open ones come first, in insertion order, then held ones as held
        let mut entries: Vec<(&Open, Option<&ChangeEvent>, (u8, u64))> =
            self.open.values().map(|o| (o, None, (0, o.order))).collect();
        entries.extend(self.held.iter().zip(0u64..).map(|(h, i)| (&h.open, Some(&h.commit), (1, i))));
        entries.sort_by_key(|e| (e.0.begin.sort_key(), e.2));
        for (entry, commit, _) in entries {
            f(&entry.begin)?;
            entry.buffer.for_each(&mut f)?;
            if let Some(commit) = commit {
                f(commit)?;
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ev(kind: i64, xid: (i64, i64, i64), n: i64) -> ChangeEvent {
        ChangeEvent {
            kind,
            usn: xid.0,
            slot: xid.1,
            sqn: xid.2,
            thread: 1,
            seq: 9,
            block: n,
            offset: 16,
            scn: 100 + n,
            obj: 70,
            ..Default::default()
        }
    }

    fn change(op: i64, n: i64) -> ChangeEvent {
        ChangeEvent { redo_op: op, ..ev(kind::CHANGE, (1, 2, 3), n) }
    }

    fn undo(op: i64, n: i64) -> ChangeEvent {
        ChangeEvent { redo_op: op, ..ev(kind::PARTIAL_ROLLBACK, (1, 2, -1), n) }
    }

    fn table(options: TableOptions) -> TransactionTable {
        TransactionTable::new(options).unwrap()
    }

    fn feed(t: &mut TransactionTable, events: Vec<ChangeEvent>) -> Vec<CommittedTransaction> {
        events.into_iter().filter_map(|e| t.feed(e).unwrap()).collect()
    }

    fn ops(txn: CommittedTransaction) -> Vec<i64> {
        txn.changes.into_events().map(|e| e.unwrap().redo_op).collect()
    }

    fn counter(t: &TransactionTable, name: &str) -> u64 {
        t.counters.get(name).copied().unwrap_or(0)
    }

    #[test]
    fn begin_changes_commit() {
        let mut t = table(TableOptions::default());
        let x = (1, 2, 3);
        let done = feed(
            &mut t,
            vec![
                ev(kind::BEGIN, x, 1),
                change(0x0B02, 2),
                ev(kind::BEGIN, x, 3),
                change(0x0B05, 4),
                ev(kind::COMMIT, x, 5),
            ],
        );
        assert_eq!(done.len(), 1);
        let txn = done.into_iter().next().unwrap();
        assert_eq!(
            (txn.xid, txn.begin_scn, txn.order_key()),
            (Xid { usn: 1, slot: 2, sqn: 3 }, 101, (105, 1, 9, 5, 16))
        );
        assert_eq!(ops(txn), vec![0x0B02, 0x0B05]);
        assert_eq!(t.counters, BTreeMap::from([("begun", 1), ("committed", 1)]));
        assert!(t.is_empty() && t.issues.is_empty());
    }

    #[test]
    fn events_without_their_transaction_are_counted() {
        let mut t = table(TableOptions::default());
        let x = (1, 2, 3);
        let done = feed(
            &mut t,
            vec![
                change(0x0B02, 1),
                ev(kind::LOB, x, 2),
                ev(kind::COMMIT, x, 3),
                ev(kind::ROLLBACK, x, 4),
                undo(0x0B03, 5),
            ],
        );
        assert!(done.is_empty());
        for name in
            ["change_without_begin", "lob_without_begin", "commit_without_begin", "rollback_without_begin"]
        {
            assert_eq!(counter(&t, name), 1, "{name}");
        }
        assert_eq!(counter(&t, "rollback_unmatched"), 1);
        assert_eq!(t.orphaned, BTreeMap::from([((70, "INSERT"), 1)]));
        assert_eq!(t.issues.len(), 5);
        assert_eq!(
            (t.issues[4].kind, t.issues[4].xid.as_str(), t.issues[4].block),
            ("rollback_unmatched", "1.2.?", 5)
        );
    }

    #[test]
    fn slot_reuse_loses_the_open_transaction() {
        let mut t = table(TableOptions::default());
        feed(&mut t, vec![ev(kind::BEGIN, (1, 2, 3), 1), change(0x0B02, 2), ev(kind::BEGIN, (1, 2, 4), 3)]);
        assert_eq!(counter(&t, "lost_transaction"), 1);
        assert_eq!(t.orphaned, BTreeMap::from([((70, "INSERT"), 1)]));
        assert_eq!(t.open_xids(), vec![Xid { usn: 1, slot: 2, sqn: 4 }]);
        assert_eq!(t.issues[0].xid, "1.2.3");

        let mut strict = table(TableOptions { policy: Policy::Raise, ..Default::default() });
        strict.feed(ev(kind::BEGIN, (1, 2, 3), 1)).unwrap();
        let err = strict.feed(ChangeEvent { sqn: 8, ..change(0x0B02, 2) }).unwrap_err();
        assert_eq!(err.kind(), "assembly");
        assert_eq!(
            (err.position().sequence, err.position().block, err.position().offset),
            (Some(9), Some(2), Some(16))
        );
        assert_eq!(
            err.info().details,
            vec![("xid", Detail::Xid(1, 2, 3)), ("new_xid", Detail::Xid(1, 2, 8))]
        );
    }

    #[test]
    fn partial_rollbacks_cancel_the_newest_matching_change() {
        let mut t = table(TableOptions { memory_limit: 2, ..Default::default() });
        let x = (1, 2, 3);
        let lob = ChangeEvent { redo_op: 0x1A02, ..ev(kind::LOB, x, 4) };
        let done = feed(
            &mut t,
            vec![
                ev(kind::BEGIN, x, 1),
                change(0x0B02, 2),
                change(0x0B0B, 3),
                lob,
                undo(0x0B0C, 5), // pops the LOB piece, then cancels the QMI
                undo(0x0B05, 6), // unmatched: the newest is an IRP
                ChangeEvent { obj: 0, ..undo(0x0B03, 7) }, // obj 0 matches any object
                undo(0x0B03, 8), // nothing left
                ev(kind::COMMIT, x, 9),
            ],
        );
        assert_eq!(counter(&t, "lob_pieces_rolled_back"), 1);
        assert_eq!(counter(&t, "partial_rollbacks"), 2);
        assert_eq!(counter(&t, "rollback_unmatched"), 2);
        assert_eq!(t.cancelled, BTreeMap::from([((70, "INSERT"), 1)]));
        assert!(ops(done.into_iter().next().unwrap()).is_empty());
    }

    #[test]
    fn rollback_counts_its_changes_as_cancelled() {
        let mut t = table(TableOptions { memory_limit: 2, ..Default::default() });
        let x = (1, 2, 3);
        let mut events = vec![ev(kind::BEGIN, x, 1)];
        events.extend((2..50).map(|n| change(0x0B03, n)));
        events.push(ev(kind::ROLLBACK, x, 50));
        assert!(feed(&mut t, events).is_empty());
        assert_eq!(t.cancelled, BTreeMap::from([((70, "DELETE"), 48)]));
        assert_eq!(counter(&t, "rolled_back"), 1);
    }

    #[test]
    fn held_commits_are_carried_out_with_their_commit_last() {
        let mut t = table(TableOptions { hold_from: Some(105), memory_limit: 2, ..Default::default() });
        let (a, b) = ((1, 2, 3), (1, 2, 4));
        let done = feed(
            &mut t,
            vec![
                ev(kind::BEGIN, (5, 5, 5), 1),
                ev(kind::BEGIN, a, 2),
                change(0x0B02, 3),
                change(0x0B02, 4),
                ev(kind::COMMIT, a, 6), // held: SCN 106 >= 105
                ev(kind::BEGIN, b, 7),  // the slot is free again
                ev(kind::COMMIT, (5, 5, 5), 3),
            ],
        );
        assert_eq!(done.iter().map(|t| t.xid.usn).collect::<Vec<_>>(), vec![5]); // SCN 103: not held
        assert!(t.held() == 1 && t.len() == 1);
        assert_eq!(counter(&t, "held"), 1);
        assert_eq!(counter(&t, "commit_without_begin"), 0);
        let carried: Vec<ChangeEvent> =
            t.carry_out(2).unwrap().iter().flat_map(|b| events_of(b).unwrap()).collect();
        let shape: Vec<(i64, i64)> = carried.iter().map(|e| (e.kind, e.sqn)).collect();
        assert_eq!(shape, vec![(1, 3), (2, 3), (2, 3), (4, 3), (1, 4)]);
        // the next batch meets the commit again and commits it
        let mut next = table(TableOptions::default());
        let done = feed(&mut next, carried);
        assert_eq!(done.len(), 1);
        assert_eq!(ops(done.into_iter().next().unwrap()), vec![0x0B02, 0x0B02]);
        assert_eq!(next.open_xids(), vec![Xid { usn: 1, slot: 2, sqn: 4 }]);
    }

    #[test]
    fn unknown_kinds_are_errors_not_panics() {
        let mut t = table(TableOptions::default());
        let err = t.feed(ev(42, (1, 2, 3), 1)).unwrap_err();
        assert_eq!(err.kind(), "assembly");
        assert!(TransactionTable::new(TableOptions { memory_limit: 0, ..Default::default() }).is_err());
    }

    #[test]
    fn the_issue_list_stops_at_its_cap() {
        let mut t = table(TableOptions::default());
        for n in 0..1_500 {
            t.feed(ev(kind::COMMIT, (1, 1, n), n)).unwrap();
        }
        assert_eq!((counter(&t, "commit_without_begin"), t.issues.len()), (1_500, MAX_ISSUES));
    }

    #[test]
    fn random_streams_never_panic() {
        // bounded fuzz: any kind (valid or not), few keys, any op, both policies, spilling
        let mut state = 0x9E37_79B9_7F4A_7C15u64;
        let mut next = |n: u64| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state % n) as i64
        };
        const OPS: [i64; 8] = [0, 0x0B02, 0x0B03, 0x0B05, 0x0B0B, 0x0B0C, 0x0B10, 0x1A02];
        for round in 0..300 {
            let policy = if round % 2 == 0 { Policy::Skip } else { Policy::Raise };
            let hold_from = (round % 3 == 0).then_some(150);
            let mut t = table(TableOptions {
                memory_limit: 2,
                memory_bytes: 64,
                policy,
                hold_from,
                ..Default::default()
            });
            for n in 0..(next(80) + 1) {
                let mut e = ev(next(9), (next(2), next(2), next(5) - 1), n);
                e.redo_op = OPS[next(8) as usize];
                e.obj = next(3);
                e.scn = 100 + next(100);
                e.supp_fb = [None, Some(0x0C), Some(0x80)][next(3) as usize];
                let data = e.push_bytes(&[n as u8; 40]);
                e.after = vec![(0, Some(data)), (1, None)];
                e.rows = vec![(0, vec![Some(data)]); next(3) as usize];
                if let Ok(Some(txn)) = t.feed(e) {
                    let len = txn.changes.len();
                    let rows: Result<usize> =
                        txn.changes.into_batches(3).map(|b| b.map(|b| b.num_rows())).sum();
                    assert_eq!(rows.ok(), Some(len));
                }
            }
            assert!(t.carry_out(5).is_ok());
        }
    }
}
