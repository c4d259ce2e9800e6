//! Redo record header (24 bytes, or 68 with an LWN header) -> [`RedoRecord`] (redo-format §3.2,
//! §3.3); the change vectors come from `vectors.rs`. Mirrors `format/records.py`.

use crate::endian::{EndianSlice, Endianity};
use crate::error::{Error, Position, Result};
use crate::layout::{
    check_redo_time, parse_full_scn, scn_from_wrap_base, FileLayout, LWN_RECORD_HEADER_SIZE,
    RECORD_HEADER_SIZE,
};
use crate::model::{LwnHeader, Rba, RedoRecord};
use crate::vectors::parse_vectors;

/// §3.2 VLD flags: 0x01 valid (OLR skips records without it), 0x04 carries an LWN header.
pub const VLD_VALID: u8 = 0x01;
pub const VLD_LWN: u8 = 0x04;

/// The LWN part of a 68-byte record header (§3.2): number @24, NST @26, length in blocks @28 (what
/// OLR uses; @32 holds the same value in every real LWN), SCN @40, timestamp @64.
pub fn parse_lwn_header<E: Endianity>(data: &[u8], position: Position) -> Result<LwnHeader> {
    if data.len() < LWN_RECORD_HEADER_SIZE {
        return Err(Error::format(format!("LWN record header cut: {} bytes", data.len()), position));
    }
    let s = EndianSlice::<E>::new(data);
    Ok(LwnHeader {
        number: s.u16(24)?,
        nst: s.u16(26)?,
        length: s.u32(28)?,
        scn: parse_full_scn(s, 40)?,
        time: check_redo_time(s.u32(64)?, Position::offset(64))?,
    })
}

/// One redo record from its bytes (exactly its length). `lwn` is the LWN the record belongs to
/// (§3.3: its timestamp becomes the record's time); a record carrying its own LWN header uses that
/// one instead. A record with neither is a `FormatError`.
pub fn parse_record<'a, E: Endianity>(
    data: &'a [u8],
    rba: Rba,
    thread: u16,
    layout: &FileLayout<E>,
    lwn: Option<&LwnHeader>,
) -> Result<RedoRecord<'a>> {
    let s = EndianSlice::<E>::new(data);
    if data.len() < RECORD_HEADER_SIZE {
        return Err(Error::format(
            format!("record of {} bytes is shorter than its 24-byte header", data.len()),
            Position::offset(0),
        ));
    }
    let length = s.u32(0)?;
    let vld = data[4];
    let wrap = s.u16(6)?;
    let base = s.u32(8)?;
    let subscn = s.u16(12)?;
    let con_uid = s.u32(16)?;
    if length as usize != data.len() {
        return Err(Error::format(
            format!("record length {length} but {} bytes given", data.len()),
            Position::offset(0),
        ));
    }
    let mut own = None;
    let mut start = RECORD_HEADER_SIZE;
    if vld & VLD_LWN != 0 {
        own = Some(parse_lwn_header::<E>(data, Position::offset(24))?);
        start = LWN_RECORD_HEADER_SIZE;
    }
    let Some(lwn) = own.as_ref().or(lwn) else {
        return Err(Error::format("record outside any LWN: no LWN header before it", Position::offset(0)));
    };
    let time = lwn.time;
    Ok(RedoRecord {
        thread,
        rba,
        length,
        vld,
        scn: scn_from_wrap_base(wrap, base),
        subscn,
        con_uid,
        time,
        lwn: own,
        vectors: parse_vectors(data, start, length as usize, layout)?,
    })
}
