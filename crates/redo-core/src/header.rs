//! Block 0 (file header) and block 1 (redo log header) -> [`LogHeader`] (redo-format §1.2-§1.4).
//! Mirrors `format/header.py`.

use crate::blocks::{check_block, checksum_ok};
use crate::endian::{BigEndian, EndianSlice, Endianity, LittleEndian};
use crate::error::{Error, Position, Result};
use crate::layout::{check_redo_time, parse_full_scn, valid_block_type, NO_SCN};

/// OLR reads two max-size pages first (§1.3 step 1).
pub const HEADER_PROBE_SIZE: usize = 2 * 4096;
/// §1.2 @28: magic bytes of a little-endian / big-endian file.
pub const MAGIC_LE: [u8; 4] = [0x7d, 0x7c, 0x7b, 0x7a];
pub const MAGIC_BE: [u8; 4] = [0x7a, 0x7b, 0x7c, 0x7d];

/// Block 0 + block 1 of an archived log (Python `model.LogHeader`). Times are raw redo times
/// (§3.5, already checked to be real dates); `next_scn`/`real_next_scn` are `None` when all-FF.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LogHeader {
    pub big_endian: bool,
    pub block_size: u32,
    pub block_count: u32,
    pub file_type: u8,
    pub compat_version: u32,
    pub dbid: u32,
    pub db_name: String,
    pub control_seq: u32,
    pub file_size: u32,
    pub file_number: u16,
    pub activation_id: u32,
    pub description: String,
    pub nab: u32,
    pub resetlogs_id: u32,
    pub resetlogs_scn: u64,
    pub hws: u32,
    pub thread: u16,
    pub sequence: u32,
    pub first_scn: u64,
    pub first_time: u32,
    pub next_scn: Option<u64>,
    pub next_time: u32,
    pub enabled_scn: u64,
    pub enabled_time: u32,
    pub thread_closed_scn: u64,
    pub thread_closed_time: u32,
    pub misc_flags: u32,
    pub terminal_recovery_scn: u64,
    pub terminal_recovery_time: u32,
    pub most_recent_scn: u64,
    pub largest_lwn: u32,
    pub real_next_scn: Option<u64>,
    pub prev_resetlogs_scn: u64,
    pub prev_resetlogs_id: u32,
    pub misc_flags2: u32,
    pub zero_blocks: u8,
    pub format_id: u8,
    pub eot: u8,
    pub dis: u8,
    pub checksum: u16,
}

/// Endianness and block size from block 0 (§1.3 steps 2-4): (big endian, block size, file type).
pub fn detect_layout(data: &[u8], name: Option<&str>) -> Result<(bool, usize, u8)> {
    let file = name.map(str::to_owned);
    if data.len() < 32 {
        return Err(Error::truncated(
            format!("file too short for a redo log header ({} bytes)", data.len()),
            Position { file, offset: Some(0), ..Default::default() },
        ));
    }
    if data[0] != 0 {
        return Err(Error::format(
            format!("not a redo log: byte 0 is 0x{:02x}, expected 0x00", data[0]),
            Position { file, block: Some(0), offset: Some(0), ..Default::default() },
        ));
    }
    let magic = &data[28..32];
    let big = if magic == MAGIC_LE {
        false
    } else if magic == MAGIC_BE {
        true
    } else {
        let hex: String = magic.iter().map(|b| format!("{b:02x}")).collect();
        return Err(Error::format(
            format!("not a redo log: wrong magic {hex} at bytes 28-31"),
            Position { file, block: Some(0), offset: Some(28), ..Default::default() },
        ));
    };
    let file_type = data[1];
    let raw = [data[20], data[21], data[22], data[23]];
    let block_size = if big { u32::from_be_bytes(raw) } else { u32::from_le_bytes(raw) };
    if !valid_block_type(block_size, file_type) {
        return Err(Error::unsupported(
            format!("unsupported block size {block_size} with file type 0x{file_type:02x}"),
            Position { file, block: Some(0), offset: Some(20), ..Default::default() },
        ));
    }
    Ok((big, block_size as usize, file_type))
}

/// Parse blocks 0 and 1 (§1.2, §1.4). `data` holds at least the first two blocks (pass
/// [`HEADER_PROBE_SIZE`] bytes, or the whole file when smaller).
pub fn parse_log_header(data: &[u8], name: Option<&str>) -> Result<LogHeader> {
    let (big, size, file_type) = detect_layout(data, name)?;
    let parsed = if big {
        parse_blocks::<BigEndian>(data, size, file_type)
    } else {
        parse_blocks::<LittleEndian>(data, size, file_type)
    };
    parsed.map_err(|e| e.locate(name, None))
}

fn text(raw: &[u8]) -> String {
    let end = raw.iter().position(|&b| b == 0).unwrap_or(raw.len());
    // ASCII with backslash escapes for other bytes (Python "backslashreplace")
    let mut out = String::with_capacity(end);
    for &b in &raw[..end] {
        if b < 0x80 {
            out.push(b as char);
        } else {
            out.push_str(&format!("\\x{b:02x}"));
        }
    }
    out
}

fn parse_blocks<E: Endianity>(data: &[u8], size: usize, file_type: u8) -> Result<LogHeader> {
    if data.len() < 2 * size {
        return Err(Error::truncated(
            format!("file too short for two {size}-byte header blocks ({} bytes)", data.len()),
            Position::block(1, 0),
        ));
    }
    if !checksum_ok(&data[..size]) {
        return Err(Error::format("block 0 checksum mismatch", Position::block(0, 16)));
    }
    let b1 = &data[size..2 * size];
    let s = EndianSlice::<E>::new(b1);
    let sequence = s.u32(8)?;
    if let Some(bad) = check_block::<E>(b1, 1, sequence, true) {
        return Err(bad);
    }
    let where_ = Position { sequence: Some(sequence), block: Some(1), ..Default::default() };
    let time = |offset: usize| -> Result<u32> { check_redo_time(s.u32(offset)?, where_.clone()) };
    let scn = |offset: usize| parse_full_scn(s, offset);
    let next_scn = scn(192)?;
    let real_next = scn(272)?;
    let d0 = EndianSlice::<E>::new(data);
    // Python evaluates the keyword arguments in order: the first bad time raises
    let first_time = time(188)?;
    let next_time = time(200)?;
    let enabled_time = time(216)?;
    let thread_closed_time = time(228)?;
    let terminal_recovery_time = time(248)?;
    Ok(LogHeader {
        big_endian: E::BIG,
        block_size: size as u32,
        block_count: d0.u32(24)?,
        file_type,
        compat_version: s.u32(20)?,
        dbid: s.u32(24)?,
        db_name: text(&b1[28..36]),
        control_seq: s.u32(36)?,
        file_size: s.u32(40)?,
        file_number: s.u16(48)?,
        activation_id: s.u32(52)?,
        description: text(&b1[92..156]),
        nab: s.u32(156)?,
        resetlogs_id: s.u32(160)?,
        resetlogs_scn: scn(164)?,
        hws: s.u32(172)?,
        thread: s.u16(176)?,
        sequence,
        first_scn: scn(180)?,
        first_time,
        next_scn: (next_scn != NO_SCN).then_some(next_scn),
        next_time,
        enabled_scn: scn(208)?,
        enabled_time,
        thread_closed_scn: scn(220)?,
        thread_closed_time,
        misc_flags: s.u32(236)?,
        terminal_recovery_scn: scn(240)?,
        terminal_recovery_time,
        most_recent_scn: scn(260)?,
        largest_lwn: s.u32(268)?,
        real_next_scn: (real_next != NO_SCN).then_some(real_next),
        prev_resetlogs_scn: scn(284)?,
        prev_resetlogs_id: s.u32(292)?,
        misc_flags2: s.u32(296)?,
        zero_blocks: b1[206],
        format_id: b1[207],
        eot: b1[204],
        dis: b1[205],
        checksum: s.u16(14)?,
    })
}
