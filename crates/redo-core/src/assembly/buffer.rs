//! ChangeBuffer: the changes of one open transaction, in order, with bounded memory (Python
//! `assembly/carry.py`).
//!
//! A transaction can hold any number of changes, so its buffer keeps at most `memory_limit` events
//! (and about `memory_bytes` of event data) in memory and spills the older ones to a temporary file
//! in chunks, each chunk one Arrow IPC stream of `events_schema()` (one record batch). The only
//! operations assembly needs are append, pop-last (partial rollbacks cancel changes LIFO,
//! redo-format §6.3) and in-order iteration at commit; pops touch the newest events, which stay in
//! memory or come back one chunk at a time (the file is cut back behind them), so memory stays at
//! O(memory_limit) events per transaction however long it runs.
//!
//! Differences from Python, none visible in the events: the byte limit counts all the data an event
//! holds (Python counts LOB bytes only), and chunks are Arrow IPC rather than pickles.

use std::fs::File;
use std::io::{BufReader, BufWriter, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use arrow_array::RecordBatch;
use arrow_ipc::reader::StreamReader;
use arrow_ipc::writer::StreamWriter;

use crate::arrow::{events_schema, EventBuilder};
use crate::assembly::event::{events_batch, events_of, ChangeEvent};
use crate::error::{Error, Result};

/// Events kept in memory per transaction before spilling (Python `DEFAULT_MEMORY_LIMIT`).
pub const DEFAULT_MEMORY_LIMIT: usize = 50_000;
/// Event data kept in memory per transaction before spilling. 8 MB: with the stage's output queue
/// (`stage::DEFAULT_QUEUE_BYTES`) this is what one long transaction adds to an assembly worker over
/// small ones (64 MB each raised the worker's peak from 164 to 261 MB on 2 GB of redo in one
/// transaction, docs/benchmarks.md); larger windows spill less but no faster in that benchmark.
/// The decode command's peak on one transaction of 2 GB: 146 MB at 16 MB, 128 at 8, 126 at 4, the
/// same CPU (three runs each, docs/benchmarks.md): at its commit the spilled chunks come back one at
/// a time while the in-memory tail is still held.
pub const DEFAULT_MEMORY_BYTES: usize = 8 << 20;

fn storage(what: &str, e: impl std::fmt::Display) -> Error {
    Error::storage(format!("transaction spill file: {what}: {e}"), Default::default())
}

/// A new temporary file in `dir` (the system's temporary folder by default), already unlinked, so
/// it disappears with its handle (Python `tempfile.TemporaryFile`).
pub(crate) fn spill_file(dir: Option<&Path>) -> Result<File> {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let dir: PathBuf = dir.map_or_else(std::env::temp_dir, Path::to_path_buf);
    let nanos =
        std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.subsec_nanos());
    for _ in 0..16 {
        let n = COUNTER.fetch_add(1, Ordering::Relaxed);
        let path = dir.join(format!("redotrail-txn-{}-{n}-{nanos}", std::process::id()));
        match File::options().read(true).write(true).create_new(true).open(&path) {
            Ok(file) => {
                // unlinked at once: nothing is left behind however the process ends (on Windows
                // the removal fails while the file is open and the file stays until cleaned up)
                let _ = std::fs::remove_file(&path);
                return Ok(file);
            }
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(storage(&format!("create in {}", dir.display()), e)),
        }
    }
    Err(storage("create", format!("no free name in {}", dir.display())))
}

/// One spilled chunk: where it is in the file and how many events it holds.
#[derive(Clone, Copy, Debug)]
struct Chunk {
    offset: u64,
    length: u64,
    events: usize,
}

/// Append / pop-last / iterate over the events of one transaction, spilling past a limit.
#[derive(Debug)]
pub struct ChangeBuffer {
    limit: usize,
    byte_limit: usize,
    chunk: usize,
    spill_dir: Option<PathBuf>,
    tail: Vec<ChangeEvent>,
    tail_bytes: usize,
    file: Option<File>,
    chunks: Vec<Chunk>,
    spilled: usize,
    /// LOB piece events in the buffer
    pub lob_pieces: usize,
    /// chunks ever written (for reports and tests)
    pub spill_count: usize,
}

impl ChangeBuffer {
    /// A buffer keeping at most `memory_limit` (at least 2) events and about `memory_bytes` of
    /// event data in memory; spill files go to `spill_dir` (the system's temporary folder if none).
    pub fn new(memory_limit: usize, memory_bytes: usize, spill_dir: Option<&Path>) -> Result<Self> {
        if memory_limit < 2 {
            return Err(Error::assembly("memory_limit must be at least 2", Default::default()));
        }
        Ok(ChangeBuffer {
            limit: memory_limit,
            byte_limit: memory_bytes,
            chunk: (memory_limit / 2).max(1),
            spill_dir: spill_dir.map(Path::to_path_buf),
            tail: Vec::new(),
            tail_bytes: 0,
            file: None,
            chunks: Vec::new(),
            spilled: 0,
            lob_pieces: 0,
            spill_count: 0,
        })
    }

    pub fn len(&self) -> usize {
        self.spilled + self.tail.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Events currently on disk.
    pub fn spilled(&self) -> usize {
        self.spilled
    }

    /// Events currently in memory.
    pub fn in_memory(&self) -> usize {
        self.tail.len()
    }

    /// About how many bytes the in-memory events hold.
    pub fn in_memory_bytes(&self) -> usize {
        self.tail_bytes
    }

    pub fn append(&mut self, event: ChangeEvent) -> Result<()> {
        if event.is_lob() {
            self.lob_pieces += 1;
        }
        self.tail_bytes += event.held_bytes();
        self.tail.push(event);
        if self.tail.len() >= self.limit || (self.tail_bytes > self.byte_limit && self.tail.len() > 1) {
            self.spill()?;
        }
        Ok(())
    }

    /// The newest event (read back from disk if every in-memory one was popped).
    pub fn last(&mut self) -> Result<Option<&ChangeEvent>> {
        if self.tail.is_empty() && !self.chunks.is_empty() {
            self.unspill()?;
        }
        Ok(self.tail.last())
    }

    /// Remove and return the newest event (`None` when empty).
    pub fn pop(&mut self) -> Result<Option<ChangeEvent>> {
        if self.tail.is_empty() && !self.chunks.is_empty() {
            self.unspill()?;
        }
        let event = self.tail.pop();
        if let Some(e) = &event {
            if e.is_lob() {
                self.lob_pieces = self.lob_pieces.saturating_sub(1);
            }
            self.tail_bytes = self.tail_bytes.saturating_sub(e.held_bytes());
        }
        Ok(event)
    }

    /// Drop every event and the spill file.
    pub fn close(&mut self) {
        self.file = None;
        self.chunks.clear();
        self.tail.clear();
        self.spilled = 0;
        self.tail_bytes = 0;
        self.lob_pieces = 0;
    }

    /// The events in order, reading spilled chunks one at a time.
    pub fn events(&self) -> Events<&ChangeBuffer> {
        Events::new(self)
    }

    /// The events in order, owning the buffer (its file goes when the iterator does).
    pub fn into_events(self) -> Events<ChangeBuffer> {
        Events::new(self)
    }

    /// The events in order as record batches of `events_schema()` of at most `max_rows` events
    /// (memory: one chunk and one batch, whatever the transaction holds).
    pub fn into_batches(self, max_rows: usize) -> BufferBatches<ChangeBuffer> {
        BufferBatches::new(self, max_rows)
    }

    /// Call `f` on each event in order, reading spilled chunks one at a time.
    pub fn for_each(&self, mut f: impl FnMut(&ChangeEvent) -> Result<()>) -> Result<()> {
        if let Some(file) = self.file.as_ref() {
            for &chunk in &self.chunks {
                for event in &read_chunk(file, chunk)? {
                    f(event)?;
                }
            }
        }
        self.tail.iter().try_for_each(f)
    }

    fn spill(&mut self) -> Result<()> {
        if self.file.is_none() {
            self.file = Some(spill_file(self.spill_dir.as_deref())?);
        }
        // the oldest half by count, or by bytes when they are what overflows
        let size = if self.tail.len() >= self.limit { self.chunk } else { (self.tail.len() / 2).max(1) };
        let size = size.min(self.tail.len());
        let batch = events_batch(self.tail.get(..size).unwrap_or_default())?;
        let Some(file) = self.file.as_ref() else { return Ok(()) };
        let (offset, length) = write_chunk(file, &batch)?;
        let removed: usize = self.tail.drain(..size).map(|e| e.held_bytes()).sum();
        self.tail_bytes = self.tail_bytes.saturating_sub(removed);
        self.chunks.push(Chunk { offset, length, events: size });
        self.spilled += size;
        self.spill_count += 1;
        Ok(())
    }

    fn unspill(&mut self) -> Result<()> {
        let (Some(file), Some(chunk)) = (self.file.as_ref(), self.chunks.last().copied()) else {
            return Ok(());
        };
        let mut events = read_chunk(file, chunk)?;
        file.set_len(chunk.offset).map_err(|e| storage("truncate", e))?;
        self.chunks.pop();
        self.spilled = self.spilled.saturating_sub(chunk.events);
        self.tail_bytes += events.iter().map(ChangeEvent::held_bytes).sum::<usize>();
        events.append(&mut self.tail);
        self.tail = events;
        Ok(())
    }
}

/// Write one chunk at the end of the file: its (offset, length).
fn write_chunk(file: &File, batch: &RecordBatch) -> Result<(u64, u64)> {
    let mut handle = file;
    let offset = handle.seek(SeekFrom::End(0)).map_err(|e| storage("seek", e))?;
    let mut out = BufWriter::new(handle);
    {
        let mut writer =
            StreamWriter::try_new(&mut out, &events_schema()).map_err(|e| storage("write", e))?;
        writer.write(batch).map_err(|e| storage("write", e))?;
        writer.finish().map_err(|e| storage("write", e))?;
    }
    out.flush().map_err(|e| storage("write", e))?;
    drop(out);
    let end = handle.stream_position().map_err(|e| storage("seek", e))?;
    Ok((offset, end.saturating_sub(offset)))
}

/// Read one chunk back as events.
fn read_chunk(file: &File, chunk: Chunk) -> Result<Vec<ChangeEvent>> {
    let mut handle = file;
    handle.seek(SeekFrom::Start(chunk.offset)).map_err(|e| storage("seek", e))?;
    let reader = StreamReader::try_new(BufReader::new(handle.take(chunk.length)), None)
        .map_err(|e| storage("read", e))?;
    let mut events = Vec::with_capacity(chunk.events);
    for batch in reader {
        let batch = batch.map_err(|e| storage("read", e))?;
        events.extend(events_of(&batch)?);
    }
    if events.len() != chunk.events {
        return Err(storage(
            "read",
            format!("chunk holds {} events, {} written", events.len(), chunk.events),
        ));
    }
    Ok(events)
}

/// A buffer's events in order: each spilled chunk (read when reached), then the in-memory ones.
pub struct Events<B> {
    buffer: B,
    next_chunk: usize,
    current: std::vec::IntoIter<ChangeEvent>,
    tail_at: usize,
    failed: bool,
}

impl<B: std::borrow::Borrow<ChangeBuffer>> Events<B> {
    fn new(buffer: B) -> Self {
        Events { buffer, next_chunk: 0, current: Vec::new().into_iter(), tail_at: 0, failed: false }
    }
}

impl<B: std::borrow::Borrow<ChangeBuffer>> Iterator for Events<B> {
    type Item = Result<ChangeEvent>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.failed {
            return None;
        }
        loop {
            if let Some(event) = self.current.next() {
                return Some(Ok(event));
            }
            let buffer = self.buffer.borrow();
            match (buffer.chunks.get(self.next_chunk), buffer.file.as_ref()) {
                (Some(&chunk), Some(file)) => {
                    self.next_chunk += 1;
                    match read_chunk(file, chunk) {
                        Ok(events) => self.current = events.into_iter(),
                        Err(e) => {
                            self.failed = true;
                            return Some(Err(e));
                        }
                    }
                }
                _ => {
                    let event = buffer.tail.get(self.tail_at).cloned();
                    self.tail_at += 1;
                    return event.map(Ok);
                }
            }
        }
    }
}

/// A buffer's events in order as record batches of `events_schema()` of at most `max_rows` rows,
/// one spilled chunk in memory at a time (in-memory events are appended without copies).
pub struct BufferBatches<B> {
    buffer: B,
    max_rows: usize,
    next_chunk: usize,
    current: Vec<ChangeEvent>,
    current_at: usize,
    tail_at: usize,
    consumed: usize,
    done: bool,
}

impl<B: std::borrow::Borrow<ChangeBuffer>> BufferBatches<B> {
    pub fn new(buffer: B, max_rows: usize) -> Self {
        BufferBatches {
            buffer,
            max_rows: max_rows.max(1),
            next_chunk: 0,
            current: Vec::new(),
            current_at: 0,
            tail_at: 0,
            consumed: 0,
            done: false,
        }
    }

    /// Append up to `max_rows - builder.len()` events; `Ok(false)` when the buffer is exhausted.
    pub fn fill(&mut self, builder: &mut EventBuilder) -> Result<bool> {
        while builder.len() < self.max_rows {
            if let Some(event) = self.current.get(self.current_at) {
                event.append_to(builder);
                self.current_at += 1;
                self.consumed += 1;
                continue;
            }
            let buffer = self.buffer.borrow();
            if let (Some(&chunk), Some(file)) = (buffer.chunks.get(self.next_chunk), buffer.file.as_ref()) {
                self.next_chunk += 1;
                self.current = read_chunk(file, chunk)?;
                self.current_at = 0;
                continue;
            }
            self.current = Vec::new();
            let Some(event) = buffer.tail.get(self.tail_at) else { return Ok(false) };
            event.append_to(builder);
            self.tail_at += 1;
            self.consumed += 1;
        }
        Ok(true)
    }
}

impl<B: std::borrow::Borrow<ChangeBuffer>> Iterator for BufferBatches<B> {
    type Item = Result<RecordBatch>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.done {
            return None;
        }
        let buffer = self.buffer.borrow();
        let left = buffer.len().saturating_sub(self.consumed);
        let mut builder = EventBuilder::with_capacity(left.min(self.max_rows));
        match self.fill(&mut builder) {
            Ok(more) => self.done = !more,
            Err(e) => {
                self.done = true;
                return Some(Err(e));
            }
        }
        if builder.is_empty() {
            return None;
        }
        Some(builder.finish().map_err(batch_error))
    }
}

pub(crate) fn batch_error(e: arrow_schema::ArrowError) -> Error {
    Error::assembly(format!("building an events batch: {e}"), Default::default())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::events::kind;

    fn event(n: i64, lob: usize) -> ChangeEvent {
        let mut e = ChangeEvent {
            kind: if lob > 0 { kind::LOB } else { kind::CHANGE },
            usn: 1,
            slot: 2,
            sqn: 3,
            scn: n,
            block: n,
            redo_op: 0x0B02,
            supp_fb: (n % 3 == 0).then_some(0x0C),
            ddl_text: format!("e{n}"),
            ..Default::default()
        };
        let value = e.push_bytes(&n.to_le_bytes());
        e.after = vec![(0, Some(value)), (1, None)];
        let row = e.push_bytes(b"r");
        e.rows = vec![(4, vec![Some(row), None])];
        e.lob_data = e.push_bytes(&vec![7u8; lob]);
        e
    }

    #[test]
    fn a_buffer_far_larger_than_its_limit_round_trips() {
        let mut buffer = ChangeBuffer::new(10, DEFAULT_MEMORY_BYTES, None).unwrap();
        for n in 0..5_000 {
            buffer.append(event(n, 0)).unwrap();
            assert!(buffer.in_memory() < 10);
        }
        assert_eq!(buffer.len(), 5_000);
        assert!(buffer.spilled() > 4_900 && buffer.spill_count > 900);
        let back: Vec<ChangeEvent> = buffer.events().map(Result::unwrap).collect();
        assert_eq!(back, (0..5_000).map(|n| event(n, 0)).collect::<Vec<_>>());
        let mut seen = 0;
        buffer
            .for_each(|e| {
                assert_eq!(e.scn, seen);
                seen += 1;
                Ok(())
            })
            .unwrap();
        assert_eq!(seen, 5_000);
        let rows: usize = BufferBatches::new(&buffer, 333).map(|b| b.unwrap().num_rows()).sum();
        assert_eq!(rows, 5_000);
        // popping reads the chunks back newest first and cuts the file behind them
        for n in (0..5_000).rev() {
            assert_eq!(buffer.last().unwrap().map(|e| e.scn), Some(n));
            assert_eq!(buffer.pop().unwrap(), Some(event(n, 0)));
            assert!(buffer.in_memory() < 10);
        }
        assert!(buffer.is_empty() && buffer.pop().unwrap().is_none() && buffer.last().unwrap().is_none());
    }

    #[test]
    fn appends_after_pops_keep_the_order() {
        let mut buffer = ChangeBuffer::new(4, DEFAULT_MEMORY_BYTES, None).unwrap();
        let mut model = Vec::new();
        for n in 0..400 {
            if n % 7 == 3 {
                assert_eq!(buffer.pop().unwrap(), model.pop());
            } else {
                buffer.append(event(n, 0)).unwrap();
                model.push(event(n, 0));
            }
        }
        let back: Vec<ChangeEvent> = buffer.into_events().map(Result::unwrap).collect();
        assert_eq!(back, model);
    }

    #[test]
    fn the_byte_limit_bounds_the_memory_part() {
        let mut buffer = ChangeBuffer::new(1_000_000, 1 << 20, None).unwrap();
        let one = event(0, 100_000).held_bytes();
        for n in 0..300 {
            buffer.append(event(n, 100_000)).unwrap();
            assert!(buffer.in_memory_bytes() <= (1 << 20) + one);
        }
        assert_eq!(buffer.lob_pieces, 300);
        let batches: Vec<RecordBatch> = buffer.into_batches(64).map(Result::unwrap).collect();
        assert_eq!(batches.iter().map(RecordBatch::num_rows).sum::<usize>(), 300);
        let back = batches.iter().flat_map(|b| events_of(b).unwrap()).collect::<Vec<_>>();
        assert_eq!(back, (0..300).map(|n| event(n, 100_000)).collect::<Vec<_>>());
    }

    #[test]
    fn a_limit_below_two_is_refused_and_close_empties() {
        assert!(ChangeBuffer::new(1, 10, None).is_err());
        let mut buffer = ChangeBuffer::new(2, 10, None).unwrap();
        for n in 0..10 {
            buffer.append(event(n, 3)).unwrap();
        }
        buffer.close();
        assert!(buffer.is_empty() && buffer.lob_pieces == 0 && buffer.events().next().is_none());
    }

    #[test]
    fn an_unwritable_spill_folder_is_a_storage_error() {
        let mut buffer = ChangeBuffer::new(2, 10, Some(Path::new("/nonexistent/redotrail"))).unwrap();
        buffer.append(event(0, 0)).unwrap();
        let err = buffer.append(event(1, 0)).unwrap_err();
        assert_eq!(err.kind(), "storage");
    }
}
