//! Change vectors: the vector header (24 or 32 bytes), the field-length array and the 4-byte
//! aligned fields (redo-format §4.1, §4.2); the body from `ops::parse_body`. Mirrors
//! `format/vectors.py`: errors carry `offset` = byte offset inside the record and the opcode in
//! the details; the reader turns that into block and offset.

use crate::endian::{EndianSlice, Endianity};
use crate::error::{Error, Position, Result};
use crate::layout::{FileLayout, NO_SCN};
use crate::model::ChangeVector;
use crate::ops::parse_body;

const OBJ_NONE: u32 = 0xFFFF_FFFF;

/// All change vectors of a record: `data[start..end]` (`start` = record header size). A field
/// list that runs past `end` and a body that breaks its opcode's layout are `FormatError`s;
/// unknown opcodes never are (they parse to `Opaque`).
pub fn parse_vectors<'a, E: Endianity>(
    data: &'a [u8],
    start: usize,
    end: usize,
    layout: &FileLayout<E>,
) -> Result<Vec<ChangeVector<'a>>> {
    let s = EndianSlice::<E>::new(data);
    let hsize = layout.vector_header_size();
    let wide = hsize == 32;
    let mut out = Vec::with_capacity(4);
    let mut pos = start;
    let mut index = 0u32;
    while pos < end {
        index += 1;
        if pos + hsize + 2 > end {
            return Err(Error::format(
                format!("change vector #{index} header cut: {} bytes left in the record", end - pos),
                Position::offset(pos),
            ));
        }
        // §4.1: layer u8 @0, code u8 @1, CLS u16 @2, AFN u16 @4, obj high u16 @6, DBA u32 @8,
        // SCN base u32 @12, wrap u16 @16, ext u16 @18, SEQ u8 @20, TYP u8 @21, obj low u16 @22;
        // 12.1+: CON_ID u16 @24, FLG u16 @28
        let layer = data[pos];
        let code = data[pos + 1];
        let cls = s.u16(pos + 2)?;
        let afn = s.u16(pos + 4)?;
        let obj_hi = s.u16(pos + 6)? as u32;
        let dba = s.u32(pos + 8)?;
        let base = s.u32(pos + 12)? as u64;
        let wrap = s.u16(pos + 16)? as u64;
        let ext = s.u16(pos + 18)? as u64;
        let seq = data[pos + 20];
        let typ = data[pos + 21];
        let obj_lo = s.u16(pos + 22)? as u32;
        let (con_id, flg) = if wide { (s.u16(pos + 24)?, s.u16(pos + 28)?) } else { (0, 0) };
        // full SCN layout, §3.4a
        let scn = if wrap & 0x8000 != 0 {
            base | ext << 32 | (wrap & 0x7FFF) << 48
        } else if base == 0xFFFF_FFFF && wrap == 0xFFFF {
            NO_SCN
        } else {
            base | wrap << 32
        };
        let mut p = pos + hsize;
        let l0 = s.u16(p)? as usize;
        if l0 < 2 || l0 & 1 != 0 || p + l0 > end {
            return Err(Error::format(
                format!(
                    "change vector #{index} ({layer}.{code}) has an invalid field-length array size {l0}"
                ),
                Position::offset(p),
            ));
        }
        let count = (l0 - 2) >> 1;
        let sizes_at = p + 2;
        p += (l0 + 2) & !3;
        let mut fields: Vec<&'a [u8]> = Vec::with_capacity(count);
        for k in 0..count {
            let size = s.u16(sizes_at + 2 * k)? as usize;
            let q = p + size;
            if q > end {
                return Err(Error::format(
                    format!(
                        "change vector #{index} ({layer}.{code}) field {} of {size} bytes runs past the record",
                        fields.len() + 1
                    ),
                    Position::offset(p),
                ));
            }
            fields.push(&data[p..q]);
            p += (size + 3) & !3;
        }
        let body = parse_body(layer, code, typ, &fields, cls, layout).map_err(|mut e| {
            let info = e.info_mut();
            if info.position.offset.is_none() {
                info.position = Position::offset(pos);
            }
            e.set_default_detail("opcode", format!("{layer}.{code}"));
            e.set_default_detail("change", index);
            e
        })?;
        let obj = obj_hi << 16 | obj_lo;
        out.push(ChangeVector {
            index,
            layer,
            code,
            block_class: cls,
            afn,
            dba,
            obj: (obj != OBJ_NONE).then_some(obj),
            scn,
            seq,
            change_type: typ,
            con_id,
            flg,
            body,
            fields,
            offset: pos as u32,
        });
        pos = p.min(end); // the last field's padding may be cut by the record length
    }
    Ok(out)
}
