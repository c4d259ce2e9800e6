//! File layout of an archived redo log: byte order, block size, compat version; the two SCN
//! layouts (redo-format §3.4) and the redo time encoding (§3.5). Mirrors `format/layout.py`.

use crate::endian::{EndianSlice, Endianity, Short};
use crate::error::{Error, Position};

/// Compatibility versions (redo-format §1.4, header u32 @20 of block 1).
pub const V12_1: u32 = 0x0C10_0000;
pub const V12_2: u32 = 0x0C20_0000;
pub const V18: u32 = 0x1200_0000;
pub const V19: u32 = 0x1300_0000;
pub const V23: u32 = 0x1700_0000;

/// §2: every block from block 1 on starts with a 16-byte header.
pub const BLOCK_HEADER_SIZE: usize = 16;
/// §3.2: record header, 24 bytes, or 68 when it carries an LWN header (VLD 0x04).
pub const RECORD_HEADER_SIZE: usize = 24;
pub const LWN_RECORD_HEADER_SIZE: usize = 68;

/// `0xFFFF_FFFF_FFFF_FFFF`: a full SCN whose first six bytes are all FF (§3.4a), Python `NO_SCN`.
pub const NO_SCN: u64 = u64::MAX;

/// (block size, file type byte) pairs we accept (§1.2/§1.3; 0x42 per oracdc, §12).
pub fn valid_block_type(block_size: u32, file_type: u8) -> bool {
    matches!((block_size, file_type), (512, 0x22) | (1024, 0x22) | (1024, 0x42) | (4096, 0x82))
}

/// What the bytes of one log look like (Python `FileLayout`); `E` is its byte order.
#[derive(Clone, Copy, Debug)]
pub struct FileLayout<E: Endianity> {
    pub block_size: usize,
    pub compat_version: u32,
    pub endian: E,
}

impl<E: Endianity> FileLayout<E> {
    pub fn new(block_size: usize, compat_version: u32) -> Self {
        FileLayout { block_size, compat_version, endian: E::default() }
    }
    /// §4.1: 24 bytes before 12.1, 32 from 12.1 on.
    #[inline]
    pub fn vector_header_size(&self) -> usize {
        if self.compat_version >= V12_1 {
            32
        } else {
            24
        }
    }
    /// Row-dependency SCN size inside QMI rows: 6 bytes before 12.2, 8 from 12.2 (§5.6).
    #[inline]
    pub fn rowdep_size(&self) -> usize {
        if self.compat_version >= V12_2 {
            8
        } else {
            6
        }
    }
    #[inline]
    pub fn slice<'a>(&self, bytes: &'a [u8]) -> EndianSlice<'a, E> {
        EndianSlice::new(bytes)
    }
}

impl From<Short> for Error {
    fn from(s: Short) -> Self {
        Error::body(format!(
            "read of {} bytes at offset {} runs past the {}-byte field",
            s.need, s.offset, s.have
        ))
    }
}

/// Full 8-byte SCN (§3.4a): base u32 @0, wrap u16 @4, big-SCN extension u16 @6.
/// First six bytes all FF -> [`NO_SCN`].
pub fn parse_full_scn<E: Endianity>(data: EndianSlice<'_, E>, offset: usize) -> Result<u64, Short> {
    let base = data.u32(offset)? as u64;
    let wrap = data.u16(offset + 4)? as u64;
    if base == 0xFFFF_FFFF && wrap == 0xFFFF {
        return Ok(NO_SCN);
    }
    if wrap & 0x8000 != 0 {
        let ext = data.u16(offset + 6)? as u64;
        return Ok(base | ext << 32 | (wrap & 0x7FFF) << 48);
    }
    Ok(base | wrap << 32)
}

/// Record-style 6-byte SCN (§3.4b): wrap u16 first, then base u32.
pub fn parse_record_scn<E: Endianity>(data: EndianSlice<'_, E>, offset: usize) -> Result<u64, Short> {
    let wrap = data.u16(offset)?;
    let base = data.u32(offset + 2)?;
    Ok(scn_from_wrap_base(wrap, base))
}

/// Combine a record-style wrap and base (§3.4b): the top bit of the wrap is the big-SCN flag.
#[inline]
pub fn scn_from_wrap_base(wrap: u16, base: u32) -> u64 {
    if wrap & 0x8000 != 0 {
        ((wrap & 0x7FFF) as u64) << 48 | base as u64
    } else {
        (wrap as u64) << 32 | base as u64
    }
}

/// Redo time (§3.5): u32, 31-day months from 1988-01-01, as (year, month, day, hour, minute, second).
pub fn redo_time_parts(value: u32) -> (u32, u32, u32, u32, u32, u32) {
    let (t, second) = (value / 60, value % 60);
    let (t, minute) = (t / 60, t % 60);
    let (t, hour) = (t / 24, t % 24);
    let (t, day) = (t / 31, t % 31);
    let (t, month) = (t / 12, t % 12);
    (t + 1988, month + 1, day + 1, hour, minute, second)
}

fn days_in_month(year: u32, month: u32) -> u32 {
    match month {
        2 if year.is_multiple_of(4) && (!year.is_multiple_of(100) || year.is_multiple_of(400)) => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// Check that a redo time is a real date (Python `decode_redo_time` raises `FormatError` on, say,
/// 30 February, which only damaged input holds). Returns the raw value.
pub fn check_redo_time(value: u32, position: Position) -> Result<u32, Error> {
    let (year, month, day, ..) = redo_time_parts(value);
    if day > days_in_month(year, month) {
        return Err(Error::format(
            format!("invalid redo time 0x{value:08x}: day is out of range for month"),
            position,
        ));
    }
    Ok(value)
}

/// Seconds since 1970-01-01 (UTC wall clock, as Python labels it) of a valid redo time.
pub fn redo_time_epoch(value: u32) -> i64 {
    let (y, m, d, hh, mm, ss) = redo_time_parts(value);
    // days from civil (Howard Hinnant's algorithm)
    let (y, m, d) = (y as i64, m as i64, d as i64);
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    let days = era * 146_097 + doe - 719_468;
    days * 86_400 + hh as i64 * 3600 + mm as i64 * 60 + ss as i64
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::endian::{BigEndian, LittleEndian};

    #[test]
    fn full_scn_layouts() {
        let le = [0x06, 0x96, 0x22, 0x00, 0x00, 0x00, 0x00, 0x00];
        assert_eq!(parse_full_scn(EndianSlice::<LittleEndian>::new(&le), 0), Ok(0x229606));
        let ff = [0xFF; 8];
        assert_eq!(parse_full_scn(EndianSlice::<BigEndian>::new(&ff), 0), Ok(NO_SCN));
        let big = [0, 0, 0, 1, 0x80, 0x02, 0, 3];
        assert_eq!(parse_full_scn(EndianSlice::<BigEndian>::new(&big), 0), Ok(1 | 3 << 32 | 2 << 48));
        assert!(parse_full_scn(EndianSlice::<BigEndian>::new(&big[..5]), 0).is_err());
    }

    #[test]
    fn redo_time_round_trip_and_bad_dates() {
        assert_eq!(redo_time_epoch(0), 567_993_600); // 1988-01-01T00:00:00Z
                                                     // 1988-02-30 (day index 29 of month index 1) is no date
        let bad = ((31 + 29) * 24) * 3600;
        assert!(check_redo_time(bad, Position::default()).is_err());
        assert!(check_redo_time(((31 + 28) * 24) * 3600, Position::default()).is_ok());
        // 29 Feb 1988
    }
}
