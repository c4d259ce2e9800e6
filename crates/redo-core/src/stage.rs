//! The assemble stage (Python `redo_lib.batches._assembled`): change events in redo order in, as
//! record batches of `events_schema()` (with an optional boolean `carried` column: the events
//! carried in from the previous batch), through the transaction table (`assembly`) and the emitter
//! (`trail`), trail rows out with their commit-order key, in record batches of at most `chunk`
//! rows; then the open transactions carried out, with their begin-order key and what each holds.
//!
//! The counting of the reconciliation is here too: row changes decoded and carried in (the table
//! and the emitter count the rest); Python shapes them into counts.json (`pipeline.reconcile`).
//!
//! Output is queued in a [`BatchQueue`]: in memory up to a byte budget, then spilled to a deleted
//! temporary file as one Arrow IPC stream, so one transaction of any size (its commit emits all of
//! its rows at once) never holds more than the budget of trail rows in memory. The caller drains
//! the queue after each call that fills it.

use std::collections::{BTreeMap, VecDeque};
use std::fs::File;
use std::io::{BufReader, BufWriter, Seek, SeekFrom, Write};
use std::path::PathBuf;
use std::sync::Arc;

use arrow_array::builder::{Int64Builder, ListBuilder};
use arrow_array::cast::AsArray;
use arrow_array::{Array, ArrayRef, BooleanArray, Int64Array, RecordBatch};
use arrow_ipc::reader::StreamReader;
use arrow_ipc::writer::StreamWriter;
use arrow_schema::{DataType, Field, Schema, SchemaRef};

use crate::arrow::{events_schema, EventBuilder};
use crate::assembly::buffer::{batch_error, spill_file};
use crate::assembly::{count_row_change, ChangeEvent, EventColumns, TransactionTable};
use crate::error::{Error, Result};
use crate::events::kind;
use crate::trail::emit::ObjCounts;
use crate::trail::{trail_schema, DdlHandler, Emitter, TrailBuilder, TrailRecord, TrailSink};

/// The commit-order key of a staged trail row (Python `batches.ORDER_FIELDS`): the transaction's
/// commit SCN, thread, seq, block and offset (contract rule 6), and the record's place in it.
pub const ORDER_FIELDS: [&str; 6] =
    ["order_scn", "order_thread", "order_seq", "order_block", "order_offset", "order_index"];

/// Trail rows kept in memory before the queue spills (the Python stage held 8,192 rows): 16 MB, so
/// a long transaction's worker stays within a few MB of a worker of small ones (8 MB did not lower
/// the decode command's peak on one transaction of 2 GB in one run: 149 MB, as 16).
pub const DEFAULT_QUEUE_BYTES: usize = 16 << 20;

/// [`trail_schema`] plus [`ORDER_FIELDS`] (Python `batches.staged_trail_schema()`).
pub fn staged_trail_schema() -> SchemaRef {
    let mut fields: Vec<Arc<Field>> = trail_schema().fields().iter().cloned().collect();
    fields.extend(ORDER_FIELDS.iter().map(|name| Arc::new(Field::new(*name, DataType::Int64, false))));
    Arc::new(Schema::new(fields))
}

/// `events_schema()` plus `open_order` (list of int64: the transaction's begin position
/// (`sort_key`), then the event's place in the transaction): an open event carried out.
pub fn carried_schema() -> SchemaRef {
    let mut fields: Vec<Arc<Field>> = events_schema().fields().iter().cloned().collect();
    let item = Arc::new(Field::new("item", DataType::Int64, true));
    fields.push(Arc::new(Field::new("open_order", DataType::List(item), false)));
    Arc::new(Schema::new(fields))
}

fn storage(what: &str, e: impl std::fmt::Display) -> Error {
    Error::storage(format!("assemble stage spill file: {what}: {e}"), Default::default())
}

/// Record batches first in, first out: in memory up to `budget` bytes, the rest in one Arrow IPC
/// stream in a deleted temporary file. Fill it, then drain it with [`Self::pop`] before filling it
/// again (a push while draining is refused: it would reorder the output).
pub struct BatchQueue {
    memory: VecDeque<RecordBatch>,
    bytes: usize,
    budget: usize,
    spill_dir: Option<PathBuf>,
    writer: Option<StreamWriter<BufWriter<File>>>,
    reader: Option<StreamReader<BufReader<File>>>,
    /// batches that went through the spill file (for reports and tests)
    pub spilled: u64,
}

impl BatchQueue {
    pub fn new(budget: usize, spill_dir: Option<PathBuf>) -> Self {
        BatchQueue {
            memory: VecDeque::new(),
            bytes: 0,
            budget,
            spill_dir,
            writer: None,
            reader: None,
            spilled: 0,
        }
    }

    pub fn is_empty(&self) -> bool {
        self.memory.is_empty() && self.writer.is_none() && self.reader.is_none()
    }

    pub fn push(&mut self, batch: RecordBatch) -> Result<()> {
        if self.reader.is_some() {
            return Err(Error::assembly("the stage's output was not drained", Default::default()));
        }
        let size = batch.get_array_memory_size();
        if self.writer.is_none() && (self.memory.is_empty() || self.bytes + size <= self.budget) {
            self.bytes += size;
            self.memory.push_back(batch);
            return Ok(());
        }
        if self.writer.is_none() {
            let file = spill_file(self.spill_dir.as_deref())?;
            let writer = StreamWriter::try_new(BufWriter::new(file), &batch.schema())
                .map_err(|e| storage("write", e))?;
            self.writer = Some(writer);
        }
        if let Some(writer) = self.writer.as_mut() {
            writer.write(&batch).map_err(|e| storage("write", e))?;
        }
        self.spilled += 1;
        Ok(())
    }

    /// The next batch in the order they were pushed; `None` once the queue is empty.
    pub fn pop(&mut self) -> Result<Option<RecordBatch>> {
        if let Some(batch) = self.memory.pop_front() {
            self.bytes = self.bytes.saturating_sub(batch.get_array_memory_size());
            return Ok(Some(batch));
        }
        if let Some(mut writer) = self.writer.take() {
            writer.finish().map_err(|e| storage("finish", e))?;
            let mut buffered = writer.into_inner().map_err(|e| storage("finish", e))?;
            buffered.flush().map_err(|e| storage("flush", e))?;
            let mut file = buffered.into_inner().map_err(|e| storage("flush", e.error()))?;
            file.seek(SeekFrom::Start(0)).map_err(|e| storage("seek", e))?;
            let reader = StreamReader::try_new(BufReader::new(file), None).map_err(|e| storage("read", e))?;
            self.reader = Some(reader);
        }
        let Some(reader) = self.reader.as_mut() else { return Ok(None) };
        match reader.next() {
            Some(batch) => batch.map(Some).map_err(|e| storage("read", e)),
            None => {
                self.reader = None;
                Ok(None)
            }
        }
    }
}

/// The emitter's sink in the stage: trail rows with their commit-order key, cut into record
/// batches of [`staged_trail_schema`] of at most `chunk` rows, queued.
struct StagedTrail<'q> {
    rows: TrailBuilder,
    order: [Vec<i64>; 6],
    key: [i64; 5],
    index: i64,
    chunk: usize,
    queue: &'q mut BatchQueue,
}

impl StagedTrail<'_> {
    fn flush(&mut self) -> Result<()> {
        if self.rows.is_empty() {
            return Ok(());
        }
        let mut columns = self.rows.finish()?.columns().to_vec();
        for values in &mut self.order {
            columns.push(Arc::new(Int64Array::from(std::mem::take(values))) as ArrayRef);
        }
        let batch = RecordBatch::try_new(staged_trail_schema(), columns).map_err(batch_error)?;
        self.queue.push(batch)
    }
}

impl TrailSink for StagedTrail<'_> {
    fn push(&mut self, record: &TrailRecord, commit_log: Option<&str>) -> Result<()> {
        self.rows.append(record, None, 0, commit_log);
        for (values, v) in self.order.iter_mut().zip(self.key.iter().chain([&self.index])) {
            values.push(*v);
        }
        self.index += 1;
        if self.rows.len() >= self.chunk {
            self.flush()?;
        }
        Ok(())
    }
}

/// What one open transaction carried out holds (Python `carry.summarize_open`; times in
/// microseconds since 1970-01-01, formatted by the caller).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OpenSummary {
    pub xid: String,
    pub start_scn: i64,
    pub start_time: i64,
    pub thread: i64,
    pub start_seq: i64,
    pub changes: u64,
    pub bytes: u64,
    pub last_scn: i64,
    pub held_commit_scn: Option<i64>,
}

/// Python `carry._held_bytes`: the column, row and LOB data an event holds.
fn held_bytes(e: &ChangeEvent) -> u64 {
    let span = |s: &(usize, usize)| (s.1 - s.0) as u64;
    let images = [&e.before, &e.after, &e.supp_columns];
    let columns: u64 =
        images.iter().flat_map(|image| image.iter()).filter_map(|(_, v)| v.as_ref()).map(span).sum();
    let rows: u64 = e.rows.iter().flat_map(|(_, values)| values.iter()).flatten().map(span).sum();
    columns + rows + span(&e.lob_data)
}

/// `<thread>_<sequence>_<resetlogs id>`, the log of a commit (`<thread>_<sequence>` when the
/// incarnation is not known): Python `trail.schema.commit_log_name`.
pub fn commit_log_name(thread: i64, seq: i64, resetlogs_id: Option<i64>) -> String {
    match resetlogs_id {
        Some(id) => format!("{thread}_{seq}_{id}"),
        None => format!("{thread}_{seq}"),
    }
}

/// Options of the stage beside the table's and the emitter's.
pub struct StageOptions {
    /// the incarnation that names every commit's log (`<thread>_<seq>_<resetlogs id>`)
    pub resetlogs_id: Option<i64>,
    /// rows per output record batch
    pub chunk: usize,
}

/// The stage's own state: its options, the row changes it counted, its output queue.
pub struct Stage {
    options: StageOptions,
    /// row changes decoded in this batch, by (object, operation)
    pub decoded: ObjCounts,
    /// row changes of the events carried in from the previous batch
    pub carried_in: ObjCounts,
    /// row changes of the open transactions carried out ([`Self::carry_out`])
    pub carried_out: ObjCounts,
    /// open transactions carried out, held ones among them
    pub open_carried_out: u64,
    /// what each carried-out transaction holds, in carry-out order
    pub open: Vec<OpenSummary>,
    pub queue: BatchQueue,
}

impl Stage {
    pub fn new(options: StageOptions, queue: BatchQueue) -> Self {
        Stage {
            options: StageOptions { chunk: options.chunk.max(1), ..options },
            decoded: BTreeMap::new(),
            carried_in: BTreeMap::new(),
            carried_out: BTreeMap::new(),
            open_carried_out: 0,
            open: Vec::new(),
            queue,
        }
    }

    /// Feed one record batch of events (in redo order, carried-in events first or flagged by a
    /// `carried` column) through `table`; every transaction it commits is emitted at once by
    /// `emitter`, its rows queued with their commit-order key. Drain the queue after each call.
    pub fn feed(
        &mut self,
        table: &mut TransactionTable,
        emitter: &mut Emitter,
        mut ddl: Option<&mut dyn DdlHandler>,
        batch: &RecordBatch,
    ) -> Result<()> {
        let columns = EventColumns::new(batch)?;
        let carried: Option<&BooleanArray> = batch.column_by_name("carried").and_then(|c| c.as_boolean_opt());
        let mut sink = StagedTrail {
            rows: TrailBuilder::new(),
            order: Default::default(),
            key: [0; 5],
            index: 0,
            chunk: self.options.chunk,
            queue: &mut self.queue,
        };
        for i in 0..columns.len() {
            let event = columns.event(i);
            let was_carried = carried.is_some_and(|c| c.is_valid(i) && c.value(i));
            count_row_change(if was_carried { &mut self.carried_in } else { &mut self.decoded }, &event);
            let Some(txn) = table.feed(event)? else { continue };
            sink.key = [txn.commit_scn, txn.thread, txn.seq, txn.block, txn.offset];
            sink.index = 0;
            let log = commit_log_name(txn.thread, txn.seq, self.options.resetlogs_id);
            emitter.emit(&txn, ddl.as_deref_mut(), &mut sink, Some(&log))?;
        }
        sink.flush()
    }

    /// Queue the events of the transactions still open (and held) in `table`, in carry-out order,
    /// as record batches of [`carried_schema`]; count their row changes and summarize each.
    pub fn carry_out(&mut self, table: &TransactionTable) -> Result<()> {
        let chunk = self.options.chunk;
        let mut builder = EventBuilder::new();
        let mut order: ListBuilder<Int64Builder> = ListBuilder::new(Int64Builder::new());
        let mut begin: [i64; 6] = [0; 6];
        let mut position = 0i64;
        let (queue, counts, open) = (&mut self.queue, &mut self.carried_out, &mut self.open);
        let mut flush = |builder: &mut EventBuilder, order: &mut ListBuilder<Int64Builder>| -> Result<()> {
            let mut columns = builder.finish().map_err(batch_error)?.columns().to_vec();
            columns.push(Arc::new(order.finish()) as ArrayRef);
            queue.push(RecordBatch::try_new(carried_schema(), columns).map_err(batch_error)?)
        };
        table.for_each_carried(|event| {
            if event.kind == kind::BEGIN {
                let key = event.sort_key();
                begin = [key.0, key.1, key.2, key.3, key.4, i64::try_from(key.5).unwrap_or(i64::MAX)];
                position = 0;
                open.push(OpenSummary {
                    xid: format!("{}.{}.{}", event.usn, event.slot, event.sqn),
                    start_scn: event.scn,
                    start_time: event.time,
                    thread: event.thread,
                    start_seq: event.seq,
                    changes: 0,
                    bytes: 0,
                    last_scn: event.scn,
                    held_commit_scn: None,
                });
            } else if let Some(current) = open.last_mut() {
                if event.kind == kind::COMMIT {
                    current.held_commit_scn = Some(event.scn);
                }
                if let Some((_, n)) = event.row_change_count() {
                    current.changes += n;
                }
                current.bytes += held_bytes(event);
                current.last_scn = current.last_scn.max(event.scn);
            }
            count_row_change(counts, event);
            event.append_to(&mut builder);
            order.values().append_slice(&begin);
            order.values().append_value(position);
            order.append(true);
            position += 1;
            if builder.len() >= chunk {
                flush(&mut builder, &mut order)?;
            }
            Ok(())
        })?;
        if !builder.is_empty() {
            flush(&mut builder, &mut order)?;
        }
        self.open_carried_out = self.open.len() as u64;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn batch(n: i64) -> RecordBatch {
        let schema = Arc::new(Schema::new(vec![Field::new("n", DataType::Int64, false)]));
        RecordBatch::try_new(schema, vec![Arc::new(Int64Array::from(vec![n; 1000])) as ArrayRef]).unwrap()
    }

    fn drain(queue: &mut BatchQueue) -> Vec<i64> {
        let mut out = Vec::new();
        while let Some(b) = queue.pop().unwrap() {
            out.push(b.column(0).as_primitive::<arrow_array::types::Int64Type>().value(0));
        }
        out
    }

    #[test]
    fn a_queue_past_its_budget_spills_and_keeps_the_order() {
        let mut queue = BatchQueue::new(batch(0).get_array_memory_size() * 2, None);
        for n in 0..10 {
            queue.push(batch(n)).unwrap();
        }
        assert_eq!(queue.spilled, 8);
        assert_eq!(drain(&mut queue), (0..10).collect::<Vec<_>>());
        assert!(queue.is_empty());
        // filled again after a drain: a new spill file
        for n in 10..14 {
            queue.push(batch(n)).unwrap();
        }
        assert_eq!(drain(&mut queue), (10..14).collect::<Vec<_>>());
    }

    #[test]
    fn a_push_while_draining_a_spill_is_refused() {
        let mut queue = BatchQueue::new(0, None);
        for n in 0..3 {
            queue.push(batch(n)).unwrap();
        }
        assert_eq!(queue.pop().unwrap().map(|b| b.num_rows()), Some(1000));
        assert_eq!(queue.pop().unwrap().map(|b| b.num_rows()), Some(1000));
        assert!(queue.push(batch(9)).is_err());
    }
}
