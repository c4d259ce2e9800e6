//! The record walk over a log's bytes (Python `format/reader.py`: `LogReader` + `iter_records` +
//! `find_lwn`), with the same rules: records start 4-byte aligned; where 20 or fewer bytes are
//! left in a block, or the u32 there is 0, the next record starts at offset 16 of the next block
//! (redo-format §3.1); a record spanning blocks is copied without the block headers; blocks are
//! checked (§2, §2.1) lazily, so records before a damaged block are still delivered; a range that
//! starts mid-log resyncs with the block header @12 and looks back for its LWN.
//!
//! Transitions (the Python table, with all input present):
//!
//! | state          | event                               | next                                 |
//! |----------------|-------------------------------------|--------------------------------------|
//! | SEEK(blk, off) | blk >= stop/end block               | End                                  |
//! | SEEK           | block not in the input              | TruncatedLogError (or End at nab)    |
//! | SEEK           | <= 20 bytes left, or u32 == 0       | SEEK(blk + 1, 16)                    |
//! | SEEK           | record start, all its blocks there  | Record; SEEK(after it)               |
//! | SEEK           | record start, blocks missing        | TruncatedLogError                    |
//! | SEEK(blk, ?)   | resync                              | SEEK(blk, @12) or SEEK(blk + 1, ?)   |
//! | any            | damage under Policy::Skip           | counted in `damage`; SEEK(next good block, ?) |
//!
//! [`RecordReader::step`] lends each record (it borrows the input, or the reader's buffer for a
//! record that spans blocks); nothing is allocated per record beyond the vector list.

use std::collections::HashMap;

use crate::blocks::check_block;
use crate::endian::{EndianSlice, Endianity};
use crate::error::{Error, Position, Result};
use crate::header::LogHeader;
use crate::layout::{FileLayout, BLOCK_HEADER_SIZE, RECORD_HEADER_SIZE};
use crate::model::{LwnHeader, Rba, RedoRecord};
use crate::records::{parse_lwn_header, parse_record, VLD_LWN};

/// §3.1: nothing starts where 20 or fewer bytes are left in a block.
pub const MIN_LEFT: usize = 20;

/// What to do with damage: stop (`Raise`, Python `ErrorPolicy.RAISE`) or count it and go on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Policy {
    Raise,
    Skip,
}

/// Bytes not decoded (Python `report.CorruptRange`): from (start_block, start_offset) up to
/// (end_block, end_offset), exclusive; `end_offset` 0 = resumed by resyncing at `end_block`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CorruptRange {
    pub file: Option<String>,
    pub sequence: u32,
    pub start_block: u32,
    pub start_offset: u32,
    pub end_block: u32,
    pub end_offset: u32,
    pub kind: &'static str,
}

/// What `Policy::Skip` left out: each error (Python `report.skipped`) and each damaged range.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Damage {
    pub skipped: Vec<Error>,
    pub corrupt_ranges: Vec<CorruptRange>,
}

/// One step of the walk.
#[derive(Debug)]
pub enum Step<'r> {
    Record(RedoRecord<'r>),
    /// A record was left out under `Policy::Skip` (it is in `damage`); call `step` again.
    Skipped,
    End,
    /// The input is a window of the log (`RecordReader::window`) that ends before what the walk
    /// needs next: the blocks [`RecordReader::need`]. Read a wider window and walk again.
    NeedData,
}

#[derive(Clone, Copy, Debug)]
struct Walk {
    blk: u32,
    off: Option<u32>,
    lwn: Option<LwnHeader>,
    lwn_end: u32,
    done: bool,
}

struct Config {
    name: Option<String>,
    sequence: u32,
    thread: u16,
    policy: Policy,
    /// the log's end (`nab`): a record running past it is a `TruncatedLogError`
    end: u32,
    /// records starting at or after this block are not returned
    limit: u32,
    /// first block not completely in the input
    available: u32,
    /// the input ends inside a block
    partial: bool,
    /// the input is a window that ends before the log does: running out of it is `NeedData`
    more: bool,
    checksums: bool,
}

/// Record damage (Python `_damaged`): raise under `Raise`; else count it and resume.
fn damaged(
    cfg: &Config,
    walk: &mut Walk,
    damage: &mut Damage,
    error: Error,
    at: (u32, u32),
    resume_block: u32,
    resume_offset: Option<u32>,
) -> Result<()> {
    let error = error.locate(cfg.name.as_deref(), Some(cfg.sequence));
    if cfg.policy == Policy::Raise {
        return Err(error);
    }
    damage.corrupt_ranges.push(CorruptRange {
        file: cfg.name.clone(),
        sequence: cfg.sequence,
        start_block: at.0,
        start_offset: at.1,
        end_block: resume_block,
        end_offset: resume_offset.unwrap_or(0),
        kind: error.kind(),
    });
    damage.skipped.push(error);
    walk.blk = resume_block;
    walk.off = resume_offset;
    Ok(())
}

/// Walks the records that start in blocks [first_block, last_block) of one log held in memory.
pub struct RecordReader<'a, E: Endianity> {
    data: &'a [u8],
    /// the block `data` starts with (0: the whole file)
    base: u32,
    layout: FileLayout<E>,
    cfg: Config,
    walk: Walk,
    checked: u32,
    bad: HashMap<u32, Error>,
    scratch: Vec<u8>,
    /// what `Policy::Skip` left out so far
    pub damage: Damage,
    /// after `Step::NeedData`: the blocks [from, to) the window must hold (`to` 0: up to the end)
    pub need: Option<(u32, u32)>,
}

impl<'a, E: Endianity> RecordReader<'a, E> {
    /// The SCN of the LWN the walk is in: that of the last record returned (or of the LWN found
    /// before the first block); records after it belong to this LWN or a later one (§3.3).
    pub fn lwn_scn(&self) -> Option<u64> {
        self.walk.lwn.map(|lwn| lwn.scn)
    }

    /// Python `iter_records(source, header, first_block, last_block)`: `data` is the whole file.
    /// Any split of [2, nab) into ranges yields every record exactly once.
    pub fn new(
        data: &'a [u8],
        header: &LogHeader,
        first_block: u32,
        last_block: Option<u32>,
        policy: Policy,
        name: Option<&str>,
    ) -> Self {
        Self::window(data, 0, false, header, first_block, last_block, policy, name)
    }

    /// The same walk over a window of the log: `data` holds the file from block `base` on (the
    /// LWN look-back before `first_block` included), and, when `more`, the file goes on after it.
    /// Running out of such a window is `Step::NeedData` with `need` set, never a truncation: the
    /// caller reads a wider window and walks again, so the result is the whole file's.
    #[allow(clippy::too_many_arguments)]
    pub fn window(
        data: &'a [u8],
        base: u32,
        more: bool,
        header: &LogHeader,
        first_block: u32,
        last_block: Option<u32>,
        policy: Policy,
        name: Option<&str>,
    ) -> Self {
        let layout = FileLayout::<E>::new(header.block_size as usize, header.compat_version);
        let size = layout.block_size;
        let total = base as u64 * size as u64 + data.len() as u64;
        let end = if header.nab != 0xFFFF_FFFF { header.nab } else { ((total / size as u64) as u32).max(2) };
        let stop = last_block.map_or(end, |l| l.min(end));
        let first = first_block.max(2).max(base);
        let fed = total.min(end as u64 * size as u64).saturating_sub(first as u64 * size as u64);
        let cfg = Config {
            name: name.map(str::to_owned),
            sequence: header.sequence,
            thread: header.thread,
            policy,
            end,
            limit: stop,
            available: first + (fed / size as u64) as u32,
            partial: !fed.is_multiple_of(size as u64),
            more,
            checksums: true,
        };
        let mut walk = Walk {
            blk: first,
            off: if first == 2 { Some(BLOCK_HEADER_SIZE as u32) } else { None },
            lwn: None,
            lwn_end: first,
            done: first >= stop,
        };
        let mut need = None;
        if first > 2 && first < stop {
            match find_lwn_in::<E>(data, base, header, &layout, first) {
                Ok(Some((lwn, k))) => {
                    walk.lwn = Some(lwn);
                    walk.lwn_end = k.saturating_add(lwn.length);
                }
                Ok(None) => {}
                Err(from) => need = Some((from, 0)),
            }
        }
        RecordReader {
            data,
            base,
            layout,
            cfg,
            walk,
            checked: first,
            bad: HashMap::new(),
            scratch: Vec::new(),
            damage: Damage::default(),
            need,
        }
    }

    /// Turn block checksums off (Python `checksums=False`; the CLI does not offer it).
    pub fn without_checksums(mut self) -> Self {
        self.cfg.checksums = false;
        self
    }

    fn block(&self, b: u32) -> &'a [u8] {
        let size = self.layout.block_size;
        let start = (b - self.base) as usize * size;
        &self.data[start..start + size]
    }

    /// Check every unchecked block up to `b` (all of them in the input); the bad ones are kept.
    fn check_upto(&mut self, b: u32) {
        while self.checked <= b {
            let k = self.checked;
            if let Some(e) = check_block::<E>(self.block(k), k, self.cfg.sequence, self.cfg.checksums) {
                self.bad.insert(k, e);
            }
            self.checked += 1;
        }
    }

    fn bad_block(&mut self, b: u32) -> Option<Error> {
        self.check_upto(b);
        self.bad.get(&b).cloned()
    }

    /// Python `close()` when the input is exhausted: truncation, or the end.
    fn close(&mut self) -> Result<()> {
        self.walk.done = true;
        let at = |block| Position {
            file: self.cfg.name.clone(),
            sequence: Some(self.cfg.sequence),
            block: Some(block),
            offset: Some(0),
        };
        if self.walk.blk < self.cfg.end {
            return Err(Error::truncated(
                format!(
                    "log ends at block {}, header says it has {} blocks",
                    self.cfg.available, self.cfg.end
                ),
                at(self.cfg.available),
            ));
        }
        if self.cfg.partial && self.walk.blk >= self.cfg.available {
            return Err(Error::truncated("log ends inside a block", at(self.cfg.available)));
        }
        Ok(())
    }

    fn last_block_of(&self, blk: u32, off: u32, length: u32) -> u32 {
        let size = self.layout.block_size as u64;
        let end = off as u64 + length as u64;
        if end <= size {
            return blk;
        }
        let payload = size - BLOCK_HEADER_SIZE as u64;
        (blk as u64 + 1 + (end - size - 1) / payload).min(u32::MAX as u64) as u32
    }

    /// Walk position after a record: its length rounded up to 4, block headers skipped.
    fn after(&self, blk: u32, off: u32, length: u32) -> (u32, u32) {
        let size = self.layout.block_size as u64;
        let payload = size - BLOCK_HEADER_SIZE as u64;
        let total = (length as u64 + 3) & !3;
        if off as u64 + total <= size {
            return (blk, off + total as u32);
        }
        let rest = total - (size - off as u64);
        ((blk as u64 + 1 + rest / payload) as u32, (BLOCK_HEADER_SIZE as u64 + rest % payload) as u32)
    }

    /// File (block, offset) of byte `k` of the record starting at (blk, off).
    fn locate_in_record(&self, blk: u32, off: u32, k: u64) -> (u32, u32) {
        let size = self.layout.block_size as u64;
        let payload = size - BLOCK_HEADER_SIZE as u64;
        if off as u64 + k < size {
            return (blk, (off as u64 + k) as u32);
        }
        let rest = k - (size - off as u64);
        ((blk as u64 + 1 + rest / payload) as u32, (BLOCK_HEADER_SIZE as u64 + rest % payload) as u32)
    }

    /// The next record, `Skipped` (damage counted under `Policy::Skip`) or `End`.
    pub fn step(&mut self) -> Result<Step<'_>> {
        let size = self.layout.block_size;
        if self.need.is_some() {
            return Ok(Step::NeedData);
        }
        loop {
            if self.walk.done {
                return Ok(Step::End);
            }
            let blk = self.walk.blk;
            if blk >= self.cfg.limit {
                self.walk.done = true;
                return Ok(Step::End);
            }
            if blk >= self.cfg.available {
                if self.cfg.more {
                    self.need = Some((blk, blk + 1));
                    return Ok(Step::NeedData);
                }
                self.close()?;
                return Ok(Step::End);
            }
            if let Some(error) = self.bad_block(blk) {
                damaged(&self.cfg, &mut self.walk, &mut self.damage, error, (blk, 0), blk + 1, None)?;
                continue;
            }
            let block = self.block(blk);
            let h = EndianSlice::<E>::new(block);
            let off = match self.walk.off {
                Some(off) => off as usize,
                None => {
                    let off = (h.u16(12).unwrap_or(0) & 0x7FFF) as usize;
                    if off == 0 {
                        self.walk.blk = blk + 1;
                        continue;
                    }
                    if off < BLOCK_HEADER_SIZE || off >= size || off & 3 != 0 {
                        let error = Error::format(
                            format!("block header @12 gives an impossible record offset {off}"),
                            Position::block(blk, 12),
                        );
                        damaged(&self.cfg, &mut self.walk, &mut self.damage, error, (blk, 0), blk + 1, None)?;
                        continue;
                    }
                    self.walk.off = Some(off as u32);
                    off
                }
            };
            if size - off <= MIN_LEFT {
                self.walk.blk = blk + 1;
                self.walk.off = Some(BLOCK_HEADER_SIZE as u32);
                continue;
            }
            let length = h.u32(off).unwrap_or(0);
            if length == 0 {
                self.walk.blk = blk + 1;
                self.walk.off = Some(BLOCK_HEADER_SIZE as u32);
                continue;
            }
            // Python `_take`
            let off = off as u32;
            if (length as usize) < RECORD_HEADER_SIZE {
                let error = Error::format(
                    format!("record length {length} is below the 24-byte header"),
                    Position::block(blk, off as usize),
                );
                damaged(&self.cfg, &mut self.walk, &mut self.damage, error, (blk, off), blk + 1, None)?;
                continue;
            }
            let last = self.last_block_of(blk, off, length);
            if last >= self.cfg.end {
                let error = Error::truncated(
                    format!("record of {length} bytes runs past the end of the log (block {})", self.cfg.end),
                    Position::block(blk, off as usize),
                );
                let end = self.cfg.end;
                damaged(&self.cfg, &mut self.walk, &mut self.damage, error, (blk, off), end, None)?;
                continue;
            }
            if last >= self.cfg.available && self.cfg.more {
                self.need = Some((blk, last + 1));
                return Ok(Step::NeedData);
            }
            if last >= self.cfg.available {
                // the input stopped inside this record (Python: pending, then close())
                self.walk.done = true;
                return Err(Error::truncated(
                    format!("log ends inside a record of {length} bytes"),
                    Position {
                        file: self.cfg.name.clone(),
                        sequence: Some(self.cfg.sequence),
                        block: Some(blk),
                        offset: Some(off as u64),
                    },
                )
                .with_detail("available_blocks", self.cfg.available));
            }
            let mut spanning_bad = None;
            for b in blk + 1..=last {
                if let Some(error) = self.bad_block(b) {
                    spanning_bad = Some((error, b));
                    break;
                }
            }
            if let Some((error, b)) = spanning_bad {
                damaged(&self.cfg, &mut self.walk, &mut self.damage, error, (blk, off), b + 1, None)?;
                continue;
            }
            let own_lwn = block[off as usize + 4] & VLD_LWN != 0;
            if !own_lwn && (self.walk.lwn.is_none() || blk >= self.walk.lwn_end) {
                let error = Error::format(
                    "record outside any LWN: the LWN header before it is missing or too short",
                    Position::block(blk, off as usize),
                );
                damaged(&self.cfg, &mut self.walk, &mut self.damage, error, (blk, off), blk + 1, None)?;
                continue;
            }
            let (nb, no) = self.after(blk, off, length);
            let rba = Rba { seq: self.cfg.sequence, block: blk, offset: off };
            // the record's bytes: borrowed from the input, or assembled without block headers
            let data: &[u8] = if off as usize + length as usize <= size {
                &block[off as usize..off as usize + length as usize]
            } else {
                self.scratch.clear();
                self.scratch.extend_from_slice(&block[off as usize..]);
                let mut left = length as usize - (size - off as usize);
                let mut b = blk + 1;
                while left > 0 {
                    let take = left.min(size - BLOCK_HEADER_SIZE);
                    let start = (b - self.base) as usize * size + BLOCK_HEADER_SIZE;
                    self.scratch.extend_from_slice(&self.data[start..start + take]);
                    left -= take;
                    b += 1;
                }
                &self.scratch
            };
            let lwn = self.walk.lwn;
            match parse_record(data, rba, self.cfg.thread, &self.layout, lwn.as_ref()) {
                Ok(record) => {
                    if let Some(own) = record.lwn {
                        self.walk.lwn = Some(own);
                        self.walk.lwn_end = blk.saturating_add(own.length.max(1));
                    }
                    self.walk.blk = nb;
                    self.walk.off = Some(no);
                    return Ok(Step::Record(record));
                }
                Err(mut error) => {
                    let k = error.position().offset.unwrap_or(0);
                    let (b, o) = self.locate_in_record(blk, off, k);
                    error.info_mut().position = Position::block(b, o as usize);
                    error.set_default_detail("record", rba.to_string());
                    damaged(&self.cfg, &mut self.walk, &mut self.damage, error, (blk, off), nb, Some(no))?;
                    return Ok(Step::Skipped);
                }
            }
        }
    }
}

/// The LWN covering `block` and the block it starts in, found by reading back from `block`
/// (Python `find_lwn`): an LWN starts at offset 16 of a block whose header @12 says a record
/// begins at 16, with a record whose VLD has 0x04 (§3.3). Looks `largest_lwn` blocks back first
/// (header @268), then further back (4x each time) down to block 2.
pub fn find_lwn<E: Endianity>(
    data: &[u8],
    header: &LogHeader,
    layout: &FileLayout<E>,
    block: u32,
) -> Option<(LwnHeader, u32)> {
    find_lwn_in(data, 0, header, layout, block).ok().flatten()
}

/// [`find_lwn`] over a window holding the file from block `base` on; `Err(lo)` when the look-back
/// reaches block `lo` below the window.
pub fn find_lwn_in<E: Endianity>(
    data: &[u8],
    base: u32,
    header: &LogHeader,
    layout: &FileLayout<E>,
    block: u32,
) -> std::result::Result<Option<(LwnHeader, u32)>, u32> {
    let size = layout.block_size;
    let mut window = header.largest_lwn.max(1) as u64;
    let mut hi = block as u64 + 1;
    let base = base as u64;
    while hi > 2 {
        let lo = 2u64.max(hi.saturating_sub(window));
        if lo < base {
            return Err(lo as u32);
        }
        let whole = base + (data.len() / size) as u64; // blocks wholly in the file
        let top = hi.min(whole.max(lo));
        for k in (lo..top).rev() {
            let at = (k - base) as usize * size;
            let blk = &data[at..at + size];
            let h = EndianSlice::<E>::new(blk);
            let word = h.u16(12).unwrap_or(0) & 0x7FFF;
            if word as usize != BLOCK_HEADER_SIZE || blk[20] & VLD_LWN == 0 {
                continue;
            }
            if check_block::<E>(blk, k as u32, header.sequence, true).is_some() {
                continue;
            }
            let Ok(lwn) = parse_lwn_header::<E>(&blk[16..], Position::block(k as u32, 16)) else {
                continue;
            };
            return Ok(if k + lwn.length as u64 > block as u64 { Some((lwn, k as u32)) } else { None });
        }
        hi = lo;
        window = window.saturating_mul(4);
    }
    Ok(None)
}
