//! Sub-structures shared by the undo (5.1) and row (11.x) parsers: XID, UBA, KTB redo, the KDO op
//! header, column lists and length-prefixed row images (redo-format §5.0.1). Mirrors
//! `format/ops/kdo.py`. Errors have no position: `vectors.rs` adds the vector offset.

use crate::endian::{EndianSlice, Endianity};
use crate::error::{Error, Result};
use crate::layout::{parse_full_scn, parse_record_scn, FileLayout};
use crate::model::{kdo_op, row_flags, Column, Kdo, KtbRedo, QmiRow, Uba, Xid};

/// `FormatError` unless `field` has at least `size` bytes (Python `need`).
#[inline]
pub fn need(field: &[u8], size: usize, what: &str) -> Result<()> {
    if field.len() < size {
        return Err(Error::body(format!("field {what} too short: {} bytes, need {size}", field.len())));
    }
    Ok(())
}

/// XID (usn u16, slot u16, sqn u32), §5.0.1.
pub fn parse_xid<E: Endianity>(data: &[u8], offset: usize) -> Result<Xid> {
    let s = EndianSlice::<E>::new(data);
    Ok(Xid { usn: s.u16(offset)? as i32, slot: s.u16(offset + 2)?, sqn: s.u32(offset + 4)? })
}

/// UBA (block u32, sequence u16, record u8), §5.0.1.
pub fn parse_uba<E: Endianity>(data: &[u8], offset: usize) -> Result<Uba> {
    let s = EndianSlice::<E>::new(data);
    Ok(Uba { block: s.u32(offset)?, seq: s.u16(offset + 4)?, rec: s.u8(offset + 6)? })
}

/// KTB redo (§5.0.1): op, flg, and the op's payload at @4 or @8 (flg bit 0x08). A field shorter
/// than 8 bytes is ignored, as OLR does (`None`).
pub fn parse_ktb<E: Endianity>(field: &[u8]) -> Result<Option<KtbRedo>> {
    if field.len() < 8 {
        return Ok(None);
    }
    let (op, flg) = (field[0], field[1]);
    let s = if flg & 0x08 != 0 { 8 } else { 4 };
    let e = EndianSlice::<E>::new(field);
    let mut k = KtbRedo { op, flg, xid: None, uba: None, scn: None, cleanout_scn: None };
    match op & 0x0F {
        1 => {
            // F: the transaction's XID and UBA
            need(field, s + 15, "KTB op F")?;
            k.xid = Some(parse_xid::<E>(field, s)?);
            k.uba = Some(parse_uba::<E>(field, s + 8)?);
        }
        2 => {
            // C: UBA
            need(field, s + 7, "KTB op C")?;
            k.uba = Some(parse_uba::<E>(field, s)?);
        }
        4 => {
            // L: ITL xid, uba, lock count/flags, record-style SCN
            need(field, s + 24, "KTB op L")?;
            k.xid = Some(parse_xid::<E>(field, s)?);
            k.uba = Some(parse_uba::<E>(field, s + 8)?);
            k.scn = Some(parse_record_scn(e, s + 18)?);
        }
        _ => {}
    }
    if op & 0x10 != 0 {
        // block cleanout record follows
        need(field, s + 48, "KTB block cleanout")?;
        k.cleanout_scn = Some(parse_full_scn(e, s + 40)?);
    }
    Ok(Some(k))
}

fn bitmap<'a>(field: &'a [u8], start: usize, count: usize, what: &str) -> Result<&'a [u8]> {
    let size = (count + 7) >> 3;
    need(field, start + size, what)?;
    Ok(&field[start..start + size])
}

/// KDO op header (§5.0.1): the common 16 bytes plus the op-specific part for the ops we know.
pub fn parse_kdo<E: Endianity>(field: &[u8]) -> Result<Kdo<'_>> {
    need(field, 16, "KDO")?;
    let s = EndianSlice::<E>::new(field);
    let op = field[10];
    let flags = field[11];
    let common = Kdo {
        op,
        bdba: s.u32(0)?,
        hdba: s.u32(4)?,
        maxfr: s.u16(8)?,
        xtype: flags & 0x03,
        kdom2: flags & 0x80 != 0,
        rowdeps: op & 0x40 != 0,
        itli: field[12],
        ispac: field[13],
        ..Default::default()
    };
    let code = op & 0x1F;
    Ok(match code {
        kdo_op::IRP | kdo_op::ORP => {
            need(field, 48, "KDO IRP/ORP")?;
            let fb = field[16];
            let cc = field[18];
            let first_not_head = fb & row_flags::F != 0 && fb & row_flags::H == 0;
            Kdo {
                fb: Some(fb),
                lb: Some(field[17]),
                cc: Some(cc),
                hrid: if first_not_head { Some((s.u32(20)?, s.u16(24)?)) } else { None },
                nrid: if fb & row_flags::L != 0 { None } else { Some((s.u32(28)?, s.u16(32)?)) },
                size_delt: Some(s.u16(40)? as i32),
                slot: Some(s.u16(42)?),
                tabn: field[44],
                null_bitmap: bitmap(field, 45, cc as usize, "KDO IRP/ORP null bitmap")?,
                ..common
            }
        }
        kdo_op::DRP | kdo_op::LKR => {
            need(field, 20, "KDO DRP/LKR")?;
            Kdo { slot: Some(s.u16(16)?), tabn: field[18], ..common }
        }
        kdo_op::URP => {
            need(field, 28, "KDO URP")?;
            let nnew = field[23];
            Kdo {
                fb: Some(field[16]),
                lock: Some(field[17]),
                ckix: Some(field[18]),
                tabn: field[19],
                slot: Some(s.u16(20)?),
                ncol: Some(field[22]),
                nnew: Some(nnew),
                cc: Some(nnew),
                size_delt: Some(s.i16(24)? as i32),
                null_bitmap: bitmap(field, 26, nnew as usize, "KDO URP null bitmap")?,
                ..common
            }
        }
        kdo_op::CFA => {
            need(field, 32, "KDO CFA")?;
            Kdo {
                nrid: Some((s.u32(16)?, s.u16(20)?)),
                slot: Some(s.u16(24)?),
                flag: Some(field[26]),
                tabn: field[27],
                lock: Some(field[28]),
                ..common
            }
        }
        kdo_op::QMI | kdo_op::QMD => {
            need(field, 20, "KDO QMI/QMD")?;
            let nrow = field[18] as usize;
            need(field, 20 + 2 * nrow, "KDO QMI/QMD slots")?;
            let slots = (0..nrow).map(|i| s.u16(20 + 2 * i)).collect::<std::result::Result<_, _>>()?;
            Kdo { tabn: field[16], lock: Some(field[17]), slots, ..common }
        }
        kdo_op::DSC => {
            need(field, 20, "KDO DSC")?;
            Kdo { slot: Some(s.u16(16)?), tabn: field[18], ..common }
        }
        _ => common,
    })
}

/// OLR's `ccData`: 1 + index of the last column that is not NULL by the bitmap (0 if none).
pub fn data_column_count(kdo: &Kdo<'_>) -> usize {
    let cc = kdo.cc.unwrap_or(0) as usize;
    (0..cc).rev().find(|&i| !kdo.is_null(i)).map_or(0, |i| i + 1)
}

fn check_null<'a>(field: &'a [u8], null: bool, i: usize) -> Result<Column<'a>> {
    if null {
        if !field.is_empty() {
            return Err(Error::body(format!(
                "column {i} is NULL by the bitmap but its field has {} bytes",
                field.len()
            )));
        }
        return Ok(None);
    }
    Ok(Some(field))
}

/// Columns of an IRP/ORP piece image (§5.1 undo, §5.6 redo): one field per column. Returns
/// (columns, index of the first field after them). A single field whose length equals size/delt
/// is a compressed row image (cc > 1; for redo also cc = 0), kept as one column. Missing trailing
/// fields stop the list (NULL columns past the last field are `None`).
pub fn parse_piece_columns<'a>(
    fields: &[&'a [u8]],
    start: usize,
    kdo: &Kdo<'_>,
    redo: bool,
) -> Result<(Vec<Column<'a>>, usize)> {
    let cc = kdo.cc.unwrap_or(0) as usize;
    let n = fields.len();
    if start >= n || (cc == 0 && !redo) {
        return Ok((Vec::new(), start));
    }
    let first = fields[start];
    if crate::unsupported::is_compressed_row(kdo, first.len()) {
        return Ok((vec![Some(first)], start + 1));
    }
    let mut out = Vec::with_capacity(cc);
    let mut i = start;
    for col in 0..cc {
        let null = kdo.is_null(col);
        if i < n {
            out.push(check_null(fields[i], null, col)?);
            i += 1;
        } else if null {
            out.push(None);
        } else {
            break;
        }
    }
    Ok((out, i))
}

/// URP column-position array: u16 per entry (0-based positions within the piece).
pub fn parse_positions<E: Endianity>(field: &[u8]) -> Vec<u16> {
    field.chunks_exact(2).map(|c| E::u16_of([c[0], c[1]])).collect()
}

/// `count` length-prefixed columns from `data` (§5.0.1): L <= 250 -> L bytes; 0xFE -> u16 length
/// (file endianness) then bytes; 0xFF -> NULL. Returns (columns, bytes consumed).
pub fn parse_packed_columns<'a, E: Endianity>(
    data: &'a [u8],
    count: usize,
    what: &str,
) -> Result<(Vec<Column<'a>>, usize)> {
    let mut out = Vec::with_capacity(count);
    let mut p = 0usize;
    let end = data.len();
    for col in 0..count {
        if p >= end {
            return Err(Error::body(format!(
                "{what}: column {col} of {count} missing (row image ends at byte {p})"
            )));
        }
        let mut lead = data[p] as usize;
        p += 1;
        if lead == 0xFF {
            out.push(None);
            continue;
        }
        if lead == 0xFE {
            if p + 2 > end {
                return Err(Error::body(format!("{what}: column {col} long length cut at byte {p}")));
            }
            lead = E::u16_of([data[p], data[p + 1]]) as usize;
            p += 2;
        } else if lead > 250 {
            return Err(Error::body(format!("{what}: column {col} has invalid length byte 0x{lead:02x}")));
        }
        if p + lead > end {
            return Err(Error::body(format!("{what}: column {col} length {lead} runs past the row image")));
        }
        out.push(Some(&data[p..p + lead]));
        p += lead;
    }
    Ok((out, p))
}

/// QMI rows (§5.6): row `r` occupies exactly `lengths[r]` bytes of `rows`: fb, lb, cc,
/// [row-dependency SCN], then cc length-prefixed columns.
pub fn parse_qmi_rows<'a, E: Endianity>(
    lengths: &[u8],
    rows: &'a [u8],
    nrow: usize,
    rowdeps: bool,
    layout: &FileLayout<E>,
) -> Result<Vec<QmiRow<'a>>> {
    need(lengths, 2 * nrow, "QMI row-length array")?;
    let extra = if rowdeps { layout.rowdep_size() } else { 0 };
    let mut out = Vec::with_capacity(nrow);
    let mut p = 0usize;
    for r in 0..nrow {
        let size = E::u16_of([lengths[2 * r], lengths[2 * r + 1]]) as usize;
        if p + size > rows.len() {
            return Err(Error::body(format!(
                "QMI row {r} of {size} bytes runs past the row data ({} bytes)",
                rows.len()
            )));
        }
        let row = &rows[p..p + size];
        if size < 3 + extra {
            return Err(Error::body(format!("QMI row {r} too short: {size} bytes")));
        }
        let (columns, _) =
            parse_packed_columns::<E>(&row[3 + extra..], row[2] as usize, &format!("QMI row {r}"))?;
        out.push(QmiRow { fb: row[0], lb: row[1], columns });
        p += size;
    }
    Ok(out)
}

/// Row-dependency SCN field (full SCN layout §3.4a; 6 bytes before 12.2, 8 from 12.2).
pub fn parse_rowdep<E: Endianity>(field: &[u8]) -> Result<u64> {
    need(field, 6, "row dependency SCN")?;
    let mut padded = [0u8; 8];
    let n = field.len().min(8);
    padded[..n].copy_from_slice(&field[..n]);
    Ok(parse_full_scn(EndianSlice::<E>::new(&padded), 0)?)
}

/// Text of a field decoded as UTF-8, undecodable bytes kept as `\xNN` (Python "backslashreplace").
pub fn text_backslash(raw: &[u8]) -> String {
    let mut out = String::with_capacity(raw.len());
    let mut rest = raw;
    loop {
        match std::str::from_utf8(rest) {
            Ok(s) => {
                out.push_str(s);
                return out;
            }
            Err(e) => {
                let (good, bad) = rest.split_at(e.valid_up_to());
                out.push_str(std::str::from_utf8(good).unwrap_or_default());
                let n = e.error_len().unwrap_or(bad.len());
                for b in &bad[..n] {
                    out.push_str(&format!("\\x{b:02x}"));
                }
                rest = &bad[n..];
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::endian::{BigEndian, LittleEndian};

    #[test]
    fn packed_columns_read_short_long_and_null_forms() {
        let data = [2, 0xC1, 0x02, 0xFF, 0xFE, 0, 3, b'a', b'b', b'c'];
        let (cols, used) = parse_packed_columns::<BigEndian>(&data, 3, "t").unwrap();
        assert_eq!(cols, vec![Some(&[0xC1, 0x02][..]), None, Some(&b"abc"[..])]);
        assert_eq!(used, data.len());
        assert!(parse_packed_columns::<LittleEndian>(&data, 3, "t").is_err()); // 0x0300 bytes
        assert!(parse_packed_columns::<BigEndian>(&[0xFB], 1, "t").is_err());
    }

    #[test]
    fn text_keeps_undecodable_bytes_as_escapes() {
        assert_eq!(text_backslash(b"ab\xffc\xc3\xa9"), "ab\\xffc\u{e9}");
    }

    #[test]
    fn ktb_op_f_reads_xid_and_uba_at_8_with_flag_0x08() {
        let mut f = vec![0u8; 24];
        f[0] = 1;
        f[1] = 0x0D;
        f[8..10].copy_from_slice(&10u16.to_le_bytes());
        f[10..12].copy_from_slice(&12u16.to_le_bytes());
        f[12..16].copy_from_slice(&572u32.to_le_bytes());
        let k = parse_ktb::<LittleEndian>(&f).unwrap().unwrap();
        assert_eq!(k.xid, Some(Xid { usn: 10, slot: 12, sqn: 572 }));
        assert!(parse_ktb::<LittleEndian>(&f[..7]).unwrap().is_none());
        assert!(parse_ktb::<LittleEndian>(&f[..20]).is_err());
    }
}
