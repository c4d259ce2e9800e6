//! A block range of one log -> change events as record batches, with the decode report's counts
//! (Python `pipeline.decode_range` + `format.reader.tally`): the work of one decode task.

use std::collections::BTreeMap;

use arrow_array::RecordBatch;

use crate::arrow::EventBuilder;
use crate::endian::{BigEndian, Endianity, LittleEndian};
use crate::error::{Error, Result};
use crate::events::{for_each_event, row_change_count};
use crate::header::LogHeader;
use crate::reader::{Damage, Policy, RecordReader, Step};
use crate::tally::Tally;

/// What a range gave: its events in batches of at most `chunk` rows, the counts, the damage.
#[derive(Debug, Default)]
pub struct Decoded {
    pub batches: Vec<RecordBatch>,
    pub events: u64,
    /// row changes by (object, operation) for reconciliation (`events::row_change_count`; a
    /// direct-path row counts under its data object)
    pub row_changes: BTreeMap<(i64, &'static str), u64>,
    pub tally: Tally,
    pub damage: Damage,
    /// the SCN of the LWN the walk ended in (`None`: no LWN found): every record after the range
    /// lies in that LWN or a later one, so its SCN is at least this (§3.3; the release point of a
    /// stream in commit order)
    pub lwn_scn: Option<u64>,
}

/// The outcome of decoding a window: done, or the blocks [from, to) the window must hold (`to` 0:
/// up to the end of the log).
#[derive(Debug)]
pub enum Outcome {
    Done(Box<Decoded>),
    NeedData(u32, u32),
}

/// One range as a parameter set.
#[derive(Clone, Copy, Debug)]
pub struct Range<'n> {
    pub first_block: u32,
    pub last_block: Option<u32>,
    pub policy: Policy,
    pub name: Option<&'n str>,
}

fn run<E: Endianity>(
    data: &[u8],
    base: u32,
    more: bool,
    header: &LogHeader,
    range: Range<'_>,
    chunk: usize,
) -> Result<Outcome> {
    let mut reader = RecordReader::<E>::window(
        data,
        base,
        more,
        header,
        range.first_block,
        range.last_block,
        range.policy,
        range.name,
    );
    let mut out = Decoded::default();
    let mut builder = EventBuilder::new();
    let chunk = chunk.max(1);
    let arrow_error = |e: arrow_schema::ArrowError| Error::format(format!("arrow: {e}"), Default::default());
    loop {
        match reader.step()? {
            Step::Record(record) => {
                out.tally.count(&record);
                let (changes, batches, events) = (&mut out.row_changes, &mut out.batches, &mut out.events);
                let mut failed = None;
                for_each_event(&record, |event| {
                    if let Some((op, n)) = row_change_count(&event) {
                        if n > 0 {
                            let obj = if event.obj != 0 { event.obj } else { event.dataobj };
                            *changes.entry((obj, op)).or_default() += n;
                        }
                    }
                    builder.append(&event);
                    if builder.len() >= chunk {
                        *events += builder.len() as u64;
                        match builder.finish() {
                            Ok(batch) => batches.push(batch),
                            Err(e) => failed = Some(e),
                        }
                    }
                });
                if let Some(e) = failed {
                    return Err(arrow_error(e));
                }
            }
            Step::Skipped => {}
            Step::End => break,
            Step::NeedData => {
                let (from, to) = reader.need.unwrap_or((range.first_block, 0));
                return Ok(Outcome::NeedData(from, to));
            }
        }
    }
    if !builder.is_empty() || out.batches.is_empty() {
        out.events += builder.len() as u64;
        out.batches.push(builder.finish().map_err(arrow_error)?);
    }
    out.damage = std::mem::take(&mut reader.damage);
    out.lwn_scn = reader.lwn_scn();
    Ok(Outcome::Done(Box::new(out)))
}

/// Decode the records that start in `range` from a window of the log: `data` holds the file from
/// block `base` on; `more` when the file goes on after it.
pub fn decode_window(
    data: &[u8],
    base: u32,
    more: bool,
    header: &LogHeader,
    range: Range<'_>,
    chunk: usize,
) -> Result<Outcome> {
    if header.big_endian {
        run::<BigEndian>(data, base, more, header, range, chunk)
    } else {
        run::<LittleEndian>(data, base, more, header, range, chunk)
    }
}
