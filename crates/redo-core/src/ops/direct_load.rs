//! OP 19.1 — direct loader block (LOB page image or direct-path table block), redo-format §5.8.
//! Mirrors `format/ops/direct_load.py`.

use super::kdo::{need, parse_packed_columns, parse_xid};
use crate::endian::{EndianSlice, Endianity};
use crate::error::{Error, Result};
use crate::model::{DirectLoadBlock, QmiRow, Xid};

/// Block type byte of a transaction-managed data block.
const DATA_BLOCK: u8 = 0x06;
/// ITL entry size in a data block.
const ITL_SIZE: usize = 24;

/// Field 1 (>= 36 bytes): data object id @0, LOB id @4 (10 bytes), page number @24, pdba @28,
/// page data from @36.
pub fn parse_direct_load<'a, E: Endianity>(fields: &[&'a [u8]], _cls: u16) -> Result<DirectLoadBlock<'a>> {
    let Some(&f) = fields.first() else {
        return Err(Error::body("19.1 without fields"));
    };
    need(f, 36, "19.1 header")?;
    let s = EndianSlice::<E>::new(f);
    let data = &f[36..];
    let mut block = DirectLoadBlock {
        dataobj: s.u32(0)?,
        lob_id: &f[4..14],
        page_no: s.u32(24)?,
        pdba: s.u32(28)?,
        data,
        slots: Vec::new(),
        rows: Vec::new(),
        itl_xids: Vec::new(),
    };
    let itl = EndianSlice::<E>::new(data).slice(44, 44 + ITL_SIZE);
    if data.first() == Some(&DATA_BLOCK) && itl.iter().any(|&b| b != 0) {
        let (xids, slots, rows) = parse_table_block::<E>(data)?;
        block.itl_xids = xids;
        block.slots = slots;
        block.rows = rows;
    }
    Ok(block)
}

/// A direct-path loaded table block: the ITL's transaction ids and the rows of table 0 in slot
/// order. itc u16 @36, ITL entries of 24 bytes from @44 (XID first), then the data header at
/// `D = 52 + 24 * itc`: nrow u16 @D+16, row directory of u16 offsets (relative to D) from @D+18;
/// each row fb, lb, cc, then cc length-prefixed columns.
#[allow(clippy::type_complexity)]
pub fn parse_table_block<E: Endianity>(data: &[u8]) -> Result<(Vec<Xid>, Vec<u16>, Vec<QmiRow<'_>>)> {
    let s = EndianSlice::<E>::new(data);
    need(data, 52, "19.1 data block header")?;
    let itc = s.u16(36)? as usize;
    let d = 52 + ITL_SIZE * itc;
    need(data, d + 18, "19.1 data block directory")?;
    let mut xids = Vec::new();
    for i in 0..itc {
        let at = 44 + ITL_SIZE * i;
        if data[at..at + 8].iter().any(|&b| b != 0) {
            xids.push(parse_xid::<E>(data, at)?);
        }
    }
    let nrow = s.u16(d + 16)? as usize;
    need(data, d + 18 + 2 * nrow, "19.1 row directory")?;
    let mut rows = Vec::with_capacity(nrow);
    for slot in 0..nrow {
        let at = d + s.u16(d + 18 + 2 * slot)? as usize;
        if at + 3 > data.len() {
            return Err(Error::body(format!(
                "19.1 row {slot} at {at} lies outside the {}-byte block",
                data.len()
            )));
        }
        let (columns, _) =
            parse_packed_columns::<E>(&data[at + 3..], data[at + 2] as usize, &format!("19.1 row {slot}"))?;
        rows.push(QmiRow { fb: data[at], lb: data[at + 1], columns });
    }
    Ok((xids, (0..nrow as u16).collect(), rows))
}
