//! A block range of one log -> change events as record batches, with the decode report's counts
//! (Python `pipeline.decode_range` + `format.reader.tally`): the work of one decode task. Or the
//! counts alone ([`Build::Counts`], the `stats` command): the same walk, no event built.

use std::collections::BTreeMap;

use arrow_array::RecordBatch;

use crate::arrow::EventBuilder;
use crate::endian::{BigEndian, Endianity, LittleEndian};
use crate::error::{Error, Result};
use crate::events::{for_each_event, row_change_count};
use crate::header::LogHeader;
use crate::reader::{Damage, Policy, RecordReader, Step};
use crate::tally::Tally;

/// What a range gave: its events in batches of at most `chunk` rows, the counts, the damage
/// (`batches`, `events` and `row_changes` empty under [`Build::Counts`]).
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

/// What a walk builds beside the counts, the damage and the LWN it ended in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Build {
    /// the change events, in record batches of at most `chunk` rows, and their row changes
    Events { chunk: usize },
    /// nothing: the records are read and counted, their events never walked
    Counts,
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
    build: Build,
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
    let arrow_error = |e: arrow_schema::ArrowError| Error::format(format!("arrow: {e}"), Default::default());
    loop {
        match reader.step()? {
            Step::Record(record) => {
                out.tally.count(&record);
                let Build::Events { chunk } = build else { continue };
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
                    if builder.len() >= chunk.max(1) {
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
    if build != Build::Counts && (!builder.is_empty() || out.batches.is_empty()) {
        out.events += builder.len() as u64;
        out.batches.push(builder.finish().map_err(arrow_error)?);
    }
    out.damage = std::mem::take(&mut reader.damage);
    out.lwn_scn = reader.lwn_scn();
    Ok(Outcome::Done(Box::new(out)))
}

/// Decode the records that start in `range` from a window of the log: `data` holds the file from
/// block `base` on; `more` when the file goes on after it. `build`: the events, or the counts alone
/// (the same reader walk, counts, damage and `NeedData`).
pub fn decode_window(
    data: &[u8],
    base: u32,
    more: bool,
    header: &LogHeader,
    range: Range<'_>,
    build: Build,
) -> Result<Outcome> {
    if header.big_endian {
        run::<BigEndian>(data, base, more, header, range, build)
    } else {
        run::<LittleEndian>(data, base, more, header, range, build)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The real 23.6 logs of ../shared/realdata (none when absent: the tests are skipped).
    fn real_logs() -> Vec<Vec<u8>> {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../../shared/realdata/rophy-olr-example-free-23/redo");
        ["arch1_15_1224959854.dbf", "arch1_16_1224959854.dbf"]
            .iter()
            .filter_map(|name| std::fs::read(dir.join(name)).ok())
            .collect()
    }

    fn decode(data: &[u8], policy: Policy, last_block: Option<u32>, build: Build) -> Result<Outcome> {
        let header = crate::parse_log_header(&data[..data.len().min(crate::HEADER_PROBE_SIZE)], Some("log"))?;
        let range = Range { first_block: 2, last_block, policy, name: Some("log") };
        decode_window(data, 0, false, &header, range, build)
    }

    /// `Build::Counts` gives the counts, the damage and the LWN of `Build::Events` (or its need
    /// for data, or its error), no event.
    fn assert_counts_alone_agree(data: &[u8], policy: Policy, last_block: Option<u32>) {
        let events = decode(data, policy, last_block, Build::Events { chunk: 64 });
        let counts = decode(data, policy, last_block, Build::Counts);
        match (events, counts) {
            (Ok(Outcome::Done(events)), Ok(Outcome::Done(counts))) => {
                assert_eq!(
                    (&counts.tally, &counts.damage, counts.lwn_scn),
                    (&events.tally, &events.damage, events.lwn_scn)
                );
                assert!(counts.batches.is_empty() && counts.events == 0 && counts.row_changes.is_empty());
            }
            (Ok(Outcome::NeedData(a, b)), Ok(Outcome::NeedData(c, d))) => assert_eq!((a, b), (c, d)),
            (Err(a), Err(b)) => assert_eq!(a, b),
            (events, counts) => panic!("events {events:?} but counts {counts:?}"),
        }
    }

    #[test]
    fn the_counts_alone_are_the_counts_of_the_events() {
        for data in real_logs() {
            let Ok(Outcome::Done(whole)) = decode(&data, Policy::Raise, None, Build::Events { chunk: 64 })
            else {
                panic!("the real log does not decode");
            };
            assert!(whole.tally.records > 0 && whole.events > 0);
            for last_block in [None, Some(9), Some(200)] {
                assert_counts_alone_agree(&data, Policy::Raise, last_block);
            }
        }
    }

    #[test]
    fn the_counts_alone_skip_and_raise_as_the_events_do() {
        for data in real_logs() {
            for at in [3 * 512 + 100, data.len() / 2, data.len() - 700] {
                let mut bad = data.clone();
                bad[at] ^= 0xFF;
                assert_counts_alone_agree(&bad, Policy::Skip, None);
                assert_counts_alone_agree(&bad, Policy::Raise, None);
                let Ok(Outcome::Done(counts)) = decode(&bad, Policy::Skip, None, Build::Counts) else {
                    panic!("a damaged log under Policy::Skip is read to its end");
                };
                assert!(!counts.damage.skipped.is_empty() && !counts.damage.corrupt_ranges.is_empty());
            }
        }
    }
}
