//! RAC: the change events of several redo threads merged into the one redo order of a log set
//! (contract rule 6), with the watermarks that let the trail out as it is read.
//!
//! Each thread's events come in its own redo order (sequence, block, offset), as record batches of
//! [`events_schema`]. The threads are merged by (SCN, sub-SCN, thread). Within a thread the SCN can
//! step back (the records of one LWN are not in SCN order, redo-format §3.3), and the thread's order
//! is kept: that is a merge on each thread's running maximum of (SCN, sub-SCN), the key of
//! `Thread::high`; it is exactly `heapq.merge` of Python `ChangeEvent`s on their `sort_key`
//! (SCN, sub-SCN, thread, seq, block, offset), the test oracle.
//!
//! A batch is pushed to its thread ([`ThreadMerge::push`]); every event at or below the merge's
//! bound (`ThreadMerge::bound`: what no event still to be pushed can precede) is merged at once
//! into record batches of at most `chunk` rows, ready to take ([`ThreadMerge::take`]). The bound is
//! the lowest over the unfinished threads of the key their next event has at least: their running
//! maximum, raised by their watermark. The thread that sets it has nothing left in the merge after
//! that, and is the one to push next ([`ThreadMerge::wanted`]), so the merge holds about one batch
//! per thread.
//!
//! Watermarks ([`ThreadMerge::watermark`]): a thread's says that every later event of it has an SCN
//! of at least `scn` (the LWN its walk is in, Python `trail.order.Watermark`). The merged one is the
//! lowest over the threads of their watermark (none once a thread is finished) and of the SCNs of
//! their events still in the merge: no event still to come out is below it. There is none while an
//! unfinished thread has given none.

use std::collections::VecDeque;

use arrow_array::cast::AsArray;
use arrow_array::types::Int64Type;
use arrow_array::{Array, Int64Array, RecordBatch};
use arrow_schema::Fields;
use arrow_select::interleave::interleave_record_batch;

use crate::arrow::events_schema;
use crate::error::{Detail, Error, Result};

/// The merge key of an event: its thread's running maximum of (SCN, sub-SCN), then the thread.
type Key = (i64, i64, i64);

/// Rows per merged record batch unless told (the decode's `chunk`).
pub const DEFAULT_CHUNK: usize = 8192;

fn merge_error(message: String, thread: i64) -> Error {
    Error::assembly(message, Default::default()).with_detail("thread", Detail::Int(thread))
}

/// A pushed batch and what the merge needs of it, per row.
struct Pending {
    batch: RecordBatch,
    /// the thread's running maximum of (SCN, sub-SCN) at each row (never decreasing)
    keys: Vec<(i64, i64)>,
    /// `lowest[i]`: the lowest SCN of rows `i..` (what the merged watermark needs)
    lowest: Vec<i64>,
    /// rows before it have been merged out
    pos: usize,
}

impl Pending {
    fn remaining(&self) -> usize {
        self.keys.len() - self.pos
    }
}

/// One redo thread's side of the merge.
struct Thread {
    number: i64,
    pending: VecDeque<Pending>,
    /// the running maximum of (SCN, sub-SCN) over every event pushed
    high: Option<(i64, i64)>,
    /// every event still to be pushed has an SCN of at least this
    watermark: Option<i64>,
    finished: bool,
}

impl Thread {
    /// The key every event still to be pushed has at least; `None`: not known (nothing pushed,
    /// no watermark). Not asked of a finished thread.
    fn floor(&self) -> Option<Key> {
        let mark = self.watermark.map(|w| (w, i64::MIN));
        let floor = match (self.high, mark) {
            (Some(h), Some(m)) => h.max(m),
            (h, m) => h.or(m)?,
        };
        Some((floor.0, floor.1, self.number))
    }

    /// The lowest SCN of its events still in the merge.
    fn lowest_held(&self) -> Option<i64> {
        self.pending.iter().map(|p| p.lowest[p.pos]).min()
    }

    /// How many of its events still in the merge have a key at or below `bound`, per pending batch.
    fn upto(&self, bound: Option<Key>) -> Vec<usize> {
        self.pending
            .iter()
            .map(|p| match bound {
                None => p.remaining(),
                Some(b) => p.keys[p.pos..].partition_point(|&(s, sub)| (s, sub, self.number) <= b),
            })
            .collect()
    }
}

/// Where the merge stands: what no event still to be pushed can precede.
#[derive(Clone, Copy, Debug)]
enum Bound {
    /// an unfinished thread has said nothing yet: nothing can be merged out
    Unknown,
    /// events at or below this key can be merged out
    At(Key),
    /// every thread is finished: all of it
    End,
}

/// The merge of several threads' event batches (see the module's documentation).
pub struct ThreadMerge {
    threads: Vec<Thread>,
    chunk: usize,
    ready: Vec<RecordBatch>,
    /// the last merged watermark taken
    taken: Option<i64>,
    /// the fields of the first batch pushed: every batch's (`check_schema`)
    fields: Option<Fields>,
}

impl ThreadMerge {
    /// A merge of these threads (their numbers; each once), merged batches of at most `chunk` rows.
    pub fn new(threads: &[i64], chunk: usize) -> Result<Self> {
        let mut numbers = threads.to_vec();
        numbers.sort_unstable();
        if let Some(w) = numbers.windows(2).find(|w| w[0] == w[1]) {
            return Err(merge_error(format!("thread {} given twice to the merge", w[0]), w[0]));
        }
        let threads = numbers
            .into_iter()
            .map(|number| Thread {
                number,
                pending: VecDeque::new(),
                high: None,
                watermark: None,
                finished: false,
            })
            .collect();
        Ok(ThreadMerge { threads, chunk: chunk.max(1), ready: Vec::new(), taken: None, fields: None })
    }

    fn thread_mut(&mut self, number: i64) -> Result<&mut Thread> {
        let thread = self
            .threads
            .iter_mut()
            .find(|t| t.number == number)
            .ok_or_else(|| merge_error(format!("thread {number} is not one of the merge's"), number))?;
        if thread.finished {
            return Err(merge_error(format!("thread {number} was finished"), number));
        }
        Ok(thread)
    }

    /// The next events of `thread`, in its redo order (a record batch of [`events_schema`]).
    pub fn push(&mut self, thread: i64, batch: RecordBatch) -> Result<()> {
        self.thread_mut(thread)?; // one of the merge's, not finished
        self.check_schema(thread, &batch)?;
        let t = self.thread_mut(thread)?;
        if batch.num_rows() == 0 {
            return Ok(());
        }
        let scn = int_column(&batch, "scn", thread)?;
        let sub = int_column(&batch, "subscn", thread)?;
        let mut high = t.high;
        let keys: Vec<(i64, i64)> = scn
            .values()
            .iter()
            .zip(sub.values().iter())
            .map(|(&s, &b)| {
                let key = high.map_or((s, b), |h| h.max((s, b)));
                high = Some(key);
                key
            })
            .collect();
        let mut lowest = scn.values().to_vec();
        for i in (0..lowest.len().saturating_sub(1)).rev() {
            lowest[i] = lowest[i].min(lowest[i + 1]);
        }
        t.high = high;
        t.pending.push_back(Pending { batch, keys, lowest, pos: 0 });
        self.merge()
    }

    /// `batch` is of the events schema: the first one pushed up to the names of list items (Parquet
    /// calls them `element`, Arrow `item`) and metadata, every later one exactly the first's fields
    /// (the merged batches mix their rows).
    fn check_schema(&mut self, thread: i64, batch: &RecordBatch) -> Result<()> {
        let schema = batch.schema();
        let fits = match &self.fields {
            Some(fields) => schema.fields() == fields,
            None => {
                let want = events_schema();
                schema.fields().len() == want.fields().len()
                    && schema.fields().iter().zip(want.fields()).all(|(a, b)| {
                        a.name() == b.name()
                            && a.is_nullable() == b.is_nullable()
                            && a.data_type().equals_datatype(b.data_type())
                    })
            }
        };
        if !fits {
            let message =
                format!("thread {thread}: a batch that is not of the events schema (or not of the first's)");
            return Err(merge_error(message, thread));
        }
        if self.fields.is_none() {
            self.fields = Some(schema.fields().clone());
        }
        Ok(())
    }

    /// Every later event of `thread` has an SCN of at least `scn`.
    pub fn watermark(&mut self, thread: i64, scn: i64) -> Result<()> {
        let t = self.thread_mut(thread)?;
        t.watermark = Some(t.watermark.map_or(scn, |w| w.max(scn)));
        self.merge()
    }

    /// `thread` has no more events.
    pub fn finish(&mut self, thread: i64) -> Result<()> {
        self.thread_mut(thread)?.finished = true;
        self.merge()
    }

    /// The thread whose next events the merge waits for (the one that sets the bound, none of
    /// whose events are left in the merge); `None` once every thread is finished.
    pub fn wanted(&self) -> Option<i64> {
        let open = self.threads.iter().filter(|t| !t.finished);
        // `None` (not known) sorts before any key: such a thread is wanted first
        open.min_by_key(|t| t.floor()).map(|t| t.number)
    }

    /// The merged record batches ready, in redo order, and the merged watermark if it rose since
    /// the last one taken (every event still to come out has an SCN of at least it).
    pub fn take(&mut self) -> (Vec<RecordBatch>, Option<i64>) {
        let batches = std::mem::take(&mut self.ready);
        let mark = self.merged_watermark().filter(|&w| self.taken.is_none_or(|t| w > t));
        if mark.is_some() {
            self.taken = mark;
        }
        (batches, mark)
    }

    /// Events still in the merge (pushed, not yet merged out).
    pub fn held(&self) -> usize {
        self.threads.iter().flat_map(|t| &t.pending).map(Pending::remaining).sum()
    }

    /// The lowest SCN any event still to come out of the merge can have; `None` while an
    /// unfinished thread has given no watermark, or when nothing is to come.
    fn merged_watermark(&self) -> Option<i64> {
        let mut mark: Option<i64> = None;
        for t in &self.threads {
            let ahead = if t.finished { None } else { Some(t.watermark?) };
            for scn in [ahead, t.lowest_held()].into_iter().flatten() {
                mark = Some(mark.map_or(scn, |m| m.min(scn)));
            }
        }
        mark
    }

    fn bound(&self) -> Bound {
        let mut lowest: Option<Key> = None;
        for t in self.threads.iter().filter(|t| !t.finished) {
            let Some(key) = t.floor() else { return Bound::Unknown };
            lowest = Some(lowest.map_or(key, |l| l.min(key)));
        }
        lowest.map_or(Bound::End, Bound::At)
    }

    /// Merge out every event at or below the bound, into `ready`.
    fn merge(&mut self) -> Result<()> {
        let bound = match self.bound() {
            Bound::Unknown => return Ok(()),
            Bound::At(key) => Some(key),
            Bound::End => None,
        };
        let counts: Vec<Vec<usize>> = self.threads.iter().map(|t| t.upto(bound)).collect();
        // the sources: the pending batches with rows to merge out, of every thread, in one list
        let mut sources: Vec<&RecordBatch> = Vec::new();
        let mut runs: Vec<Vec<Run<'_>>> = Vec::with_capacity(self.threads.len());
        for (t, n) in self.threads.iter().zip(&counts) {
            let mut own = Vec::new();
            for (p, &k) in t.pending.iter().zip(n) {
                if k > 0 {
                    own.push(Run { source: sources.len(), first: p.pos, keys: &p.keys[p.pos..p.pos + k] });
                    sources.push(&p.batch);
                }
            }
            runs.push(own);
        }
        if sources.is_empty() {
            return Ok(());
        }
        let numbers: Vec<i64> = self.threads.iter().map(|t| t.number).collect();
        let order = merge_order(&numbers, &runs);
        for piece in order.chunks(self.chunk) {
            let batch = match contiguous(piece) {
                Some((source, first)) => sources[source].slice(first, piece.len()),
                None => interleave_record_batch(&sources, piece)
                    .map_err(|e| Error::assembly(format!("merging threads: {e}"), Default::default()))?,
            };
            self.ready.push(batch);
        }
        for (t, n) in self.threads.iter_mut().zip(counts) {
            for (p, k) in t.pending.iter_mut().zip(n) {
                p.pos += k;
            }
            while t.pending.front().is_some_and(|p| p.remaining() == 0) {
                t.pending.pop_front();
            }
        }
        Ok(())
    }
}

/// Consecutive rows of a pending batch to merge out: its index among the sources, the first row,
/// and their keys.
struct Run<'a> {
    source: usize,
    first: usize,
    keys: &'a [(i64, i64)],
}

/// The (source, row) of each event merged out, in merge order: a k-way merge of the threads' runs
/// (each thread's in its own order, keys never decreasing) by (running maximum, thread number);
/// the threads are few, so the lowest head is found by a scan.
fn merge_order(numbers: &[i64], runs: &[Vec<Run<'_>>]) -> Vec<(usize, usize)> {
    let total = runs.iter().flatten().map(|r| r.keys.len()).sum();
    let mut order = Vec::with_capacity(total);
    // per thread: its current run and row in it
    let mut at = vec![(0usize, 0usize); runs.len()];
    let head = |t: usize, (run, row): (usize, usize)| -> Option<Key> {
        let (s, sub) = *runs[t].get(run)?.keys.get(row)?;
        Some((s, sub, numbers[t]))
    };
    let mut heads: Vec<Option<Key>> = (0..runs.len()).map(|t| head(t, (0, 0))).collect();
    while let Some((t, _)) =
        heads.iter().enumerate().filter_map(|(t, k)| Some((t, (*k)?))).min_by_key(|&(_, k)| k)
    {
        let (run, row) = at[t];
        let r = &runs[t][run];
        order.push((r.source, r.first + row));
        at[t] = if row + 1 < r.keys.len() { (run, row + 1) } else { (run + 1, 0) };
        heads[t] = head(t, at[t]);
    }
    order
}

/// `(source, first row)` when `piece` is consecutive rows of one source (a slice, not a copy).
fn contiguous(piece: &[(usize, usize)]) -> Option<(usize, usize)> {
    let &(source, first) = piece.first()?;
    piece.iter().enumerate().all(|(i, &(s, row))| s == source && row == first + i).then_some((source, first))
}

fn int_column<'a>(batch: &'a RecordBatch, name: &str, thread: i64) -> Result<&'a Int64Array> {
    let column = batch
        .column_by_name(name)
        .and_then(|c| c.as_primitive_opt::<Int64Type>())
        .ok_or_else(|| merge_error(format!("thread {thread}: no int64 column {name:?}"), thread))?;
    if column.null_count() > 0 {
        return Err(merge_error(format!("thread {thread}: a null {name:?}"), thread));
    }
    Ok(column)
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use arrow_schema::{DataType, Field, Schema};

    use super::*;
    use crate::assembly::{events_batch, ChangeEvent};

    /// splitmix64: the tests' own random numbers, reproducible by seed
    struct Rng(u64);

    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
            let mut z = self.0;
            z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
            z ^ (z >> 31)
        }
        fn below(&mut self, n: u64) -> u64 {
            self.next() % n
        }
    }

    /// An event of `thread` at redo position `i` (block and offset rising with it).
    fn event(thread: i64, i: i64, scn: i64, subscn: i64) -> ChangeEvent {
        ChangeEvent {
            thread,
            seq: 1,
            block: 2 + i / 4,
            offset: 16 + (i % 4) * 40,
            vector: 1,
            scn,
            subscn,
            ..Default::default()
        }
    }

    /// `n` events of one thread in redo order: the SCN mostly rises, steps back now and then (the
    /// records of one LWN) and repeats (ties across threads).
    fn redo(thread: i64, n: usize, rng: &mut Rng) -> Vec<ChangeEvent> {
        let mut scn = 1000;
        (0..n as i64)
            .map(|i| {
                scn += [0, 1, 1, 2, 5][rng.below(5) as usize];
                let dip = if rng.below(100) < 15 { 1 + rng.below(6) as i64 } else { 0 };
                event(thread, i, scn - dip, rng.below(3) as i64)
            })
            .collect()
    }

    /// `heapq.merge` on `ChangeEvent.sort_key`: the lowest head of the threads, one event at a time.
    fn oracle(threads: &[Vec<ChangeEvent>]) -> Vec<(i64, i64, i64)> {
        let mut at = vec![0; threads.len()];
        let mut out = Vec::new();
        loop {
            let next = (0..threads.len()).filter(|&t| at[t] < threads[t].len()).min_by_key(|&t| {
                let e = &threads[t][at[t]];
                (e.scn, e.subscn, e.thread, e.seq, e.block, e.offset * 256 + e.vector)
            });
            let Some(t) = next else { return out };
            let e = &threads[t][at[t]];
            out.push((e.thread, e.block, e.offset));
            at[t] += 1;
        }
    }

    fn positions(batches: &[RecordBatch]) -> Vec<(i64, i64, i64)> {
        let col =
            |b: &RecordBatch, name: &str| b.column_by_name(name).unwrap().as_primitive::<Int64Type>().clone();
        batches
            .iter()
            .flat_map(|b| {
                let (t, bl, o) = (col(b, "thread"), col(b, "block"), col(b, "offset"));
                (0..b.num_rows()).map(move |i| (t.value(i), bl.value(i), o.value(i)))
            })
            .collect()
    }

    fn scns(batch: &RecordBatch) -> Vec<i64> {
        batch.column_by_name("scn").unwrap().as_primitive::<Int64Type>().values().to_vec()
    }

    /// The threads' events cut into batches of random sizes, fed as the merge asks (`wanted`),
    /// with a watermark after each batch (the lowest SCN of the thread's events after it): the
    /// merged order, and whether every event after a merged watermark is at or above it.
    fn run(threads: &[Vec<ChangeEvent>], rng: &mut Rng, chunk: usize) -> (Vec<(i64, i64, i64)>, bool) {
        let numbers: Vec<i64> = (1..=threads.len() as i64).collect();
        let mut merge = ThreadMerge::new(&numbers, chunk).unwrap();
        let mut at = vec![0; threads.len()];
        let mut out = Vec::new();
        let mut mark: Option<i64> = None;
        let mut honest = true;
        while let Some(thread) = merge.wanted() {
            let t = (thread - 1) as usize;
            let events = &threads[t];
            if at[t] == events.len() {
                merge.finish(thread).unwrap();
            } else {
                let end = (at[t] + 1 + rng.below(40) as usize).min(events.len());
                merge.push(thread, events_batch(&events[at[t]..end]).unwrap()).unwrap();
                at[t] = end;
                if let Some(low) = events[end..].iter().map(|e| e.scn).min() {
                    if rng.below(3) > 0 {
                        merge.watermark(thread, low).unwrap();
                    }
                }
            }
            let (batches, m) = merge.take();
            for b in &batches {
                honest &= mark.is_none_or(|w| scns(b).iter().all(|&s| s >= w));
                assert!(b.num_rows() <= chunk);
            }
            out.extend(positions(&batches));
            if let Some(w) = m {
                assert!(mark.is_none_or(|old| w > old));
                mark = Some(w);
            }
            // about a batch per thread in the merge
            assert!(merge.held() <= 40 * threads.len());
        }
        assert_eq!(merge.held(), 0);
        (out, honest)
    }

    #[test]
    fn threads_merge_as_heapq_merges_the_events() {
        for seed in 0..300 {
            let mut rng = Rng(seed);
            let threads: Vec<_> =
                (1..=2 + rng.below(3) as i64).map(|t| redo(t, rng.below(150) as usize, &mut rng)).collect();
            let chunk = 1 + rng.below(50) as usize;
            let (got, honest) = run(&threads, &mut rng, chunk);
            assert_eq!(got, oracle(&threads), "seed {seed}");
            assert!(honest, "seed {seed}: an event below a merged watermark came after it");
        }
    }

    #[test]
    fn pushes_in_any_order_give_the_same_merge() {
        let mut rng = Rng(7);
        let threads: Vec<_> = (1..=3).map(|t| redo(t, 200, &mut rng)).collect();
        let mut merge = ThreadMerge::new(&[3, 1, 2], 64).unwrap();
        let mut out = Vec::new();
        for (t, events) in threads.iter().enumerate().rev() {
            for piece in events.chunks(17) {
                merge.push(t as i64 + 1, events_batch(piece).unwrap()).unwrap();
                out.extend(positions(&merge.take().0));
            }
            merge.finish(t as i64 + 1).unwrap();
        }
        out.extend(positions(&merge.take().0));
        assert_eq!(out, oracle(&threads));
    }

    #[test]
    fn an_equal_key_goes_to_the_lower_thread_first() {
        let mut merge = ThreadMerge::new(&[1, 2], 8).unwrap();
        merge.push(2, events_batch(&[event(2, 0, 50, 1)]).unwrap()).unwrap();
        merge.push(1, events_batch(&[event(1, 0, 50, 1), event(1, 1, 49, 0)]).unwrap()).unwrap();
        merge.finish(1).unwrap();
        merge.finish(2).unwrap();
        let got: Vec<_> = positions(&merge.take().0).iter().map(|p| (p.0, p.2)).collect();
        // thread 1's step back (49) keeps its place after its 50, before thread 2's 50
        assert_eq!(got, [(1, 16), (1, 56), (2, 16)]);
    }

    #[test]
    fn no_watermark_until_every_unfinished_thread_gave_one() {
        let mut merge = ThreadMerge::new(&[1, 2], 8).unwrap();
        merge.push(1, events_batch(&[event(1, 0, 100, 0)]).unwrap()).unwrap();
        merge.watermark(1, 120).unwrap();
        assert_eq!(merge.take(), (vec![], None)); // thread 2 has said nothing: nothing merged out
        assert_eq!(merge.wanted(), Some(2));
        merge.watermark(2, 90).unwrap();
        // thread 2's next event is at 90 at least: thread 1's at 100 waits, the watermark is 90
        let (batches, mark) = merge.take();
        assert!(batches.is_empty());
        assert_eq!(mark, Some(90));
        assert_eq!(merge.wanted(), Some(2));
        merge.watermark(2, 110).unwrap();
        let (batches, mark) = merge.take();
        assert_eq!(positions(&batches).len(), 1); // thread 1's 100 is below anything thread 2 has left
        assert_eq!(mark, Some(110)); // min(thread 1's 120, thread 2's 110)
        merge.finish(2).unwrap();
        assert_eq!(merge.take().1, Some(120)); // thread 2 gone: thread 1's own
        assert_eq!(merge.take().1, None); // not risen
        merge.finish(1).unwrap();
        assert_eq!(merge.wanted(), None);
    }

    #[test]
    fn a_held_event_keeps_the_watermark_below_it() {
        let mut merge = ThreadMerge::new(&[1, 2], 8).unwrap();
        merge.push(1, events_batch(&[event(1, 0, 200, 0), event(1, 1, 150, 0)]).unwrap()).unwrap();
        merge.watermark(1, 300).unwrap();
        merge.watermark(2, 160).unwrap();
        // thread 1's events (200, then 150) wait for thread 2 (160 and up): its 150 holds the mark
        assert_eq!(merge.take(), (vec![], Some(150)));
        merge.watermark(2, 400).unwrap();
        let (batches, mark) = merge.take();
        assert_eq!(batches.iter().map(|b| b.num_rows()).sum::<usize>(), 2);
        assert_eq!(mark, Some(300));
    }

    #[test]
    fn bad_input_is_an_error_not_a_panic() {
        assert!(ThreadMerge::new(&[1, 1], 8).is_err());
        let mut merge = ThreadMerge::new(&[1, 2], 8).unwrap();
        let err = merge.push(3, events_batch(&[event(3, 0, 1, 0)]).unwrap()).unwrap_err();
        assert_eq!(err.kind(), "assembly");
        let other = RecordBatch::try_new(
            Arc::new(Schema::new(vec![Field::new("scn", DataType::Int64, false)])),
            vec![Arc::new(Int64Array::from(vec![1]))],
        )
        .unwrap();
        assert!(merge.push(1, other).unwrap_err().to_string().contains("events schema"));
        merge.finish(1).unwrap();
        assert!(merge.push(1, events_batch(&[event(1, 0, 1, 0)]).unwrap()).is_err());
        assert!(merge.watermark(4, 1).is_err());
    }
}
