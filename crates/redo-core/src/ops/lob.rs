//! LOB opcodes and the LOB locator: 26.2 LOB redo, 11.17 LLB, the in-row locator (redo-format
//! §5.10, §6.7, §7.8). Mirrors `format/ops/lob.py`; confidence is low for every LOB path (§5.10).

use super::kdo::{need, parse_ktb, parse_xid};
use crate::endian::{EndianSlice, Endianity};
use crate::error::{Error, Result};
use crate::model::{KdliCommon, KdliItem, LobChange, LobSupport};

pub const LOB_ID_SIZE: usize = 10;
/// The LOB ids OLR tracks (§5.7) start with these four bytes.
pub const LOB_ID_PREFIX: [u8; 4] = [0, 0, 0, 1];
/// kdli item codes (§5.10).
pub const KDLI_INFO: u8 = 1;
pub const KDLI_LOAD_DATA: u8 = 4;
pub const KDLI_ZERO: u8 = 5;
pub const KDLI_FILL: u8 = 6;
pub const KDLI_SUPLOG: u8 = 9;
pub const KDLI_LOAD_LHB: u8 = 12;
/// §7.8 locator: flags @5 bit 0x04 = in-row body; flg2 0x0100 in-value form, 0x0400 page list.
pub const LOCATOR_IN_ROW: u8 = 0x04;
pub const FLG2_INLINE: u16 = 0x0100;
pub const FLG2_PAGE_LIST: u16 = 0x0400;
pub const LOCATOR_DATA: usize = 36;

/// kdli common (>= 12 bytes): op @0, type @1, flg0 @2, flg1 @3, psiz u16 @4, poff u16 @6, DBA @8.
pub fn parse_kdli_common<E: Endianity>(field: &[u8]) -> Result<KdliCommon> {
    need(field, 12, "kdli common")?;
    let s = EndianSlice::<E>::new(field);
    Ok(KdliCommon {
        op: field[0],
        type_: field[1],
        flg0: field[2],
        flg1: field[3],
        psiz: s.u16(4)?,
        poff: s.u16(6)?,
        dba: s.u32(8)?,
    })
}

/// One kdli item by its code byte (§5.10); codes without a layout we use keep their bytes.
pub fn parse_kdli_item<E: Endianity>(field: &[u8]) -> Result<KdliItem<'_>> {
    need(field, 1, "kdli item")?;
    let code = field[0];
    let s = EndianSlice::<E>::new(field);
    Ok(match code {
        KDLI_INFO => {
            need(field, 17, "kdli info")?;
            KdliItem {
                code,
                lob_id: &field[1..11],
                block: s.be32(11)?,
                slot: s.be16(15)?,
                ..Default::default()
            }
        }
        KDLI_FILL => {
            need(field, 8, "kdli fill")?;
            let length = s.u16(6)? as usize;
            if 8 + length > field.len() {
                return Err(Error::body(format!(
                    "kdli fill announces {length} data bytes but the field has {}",
                    field.len() - 8
                )));
            }
            KdliItem {
                code,
                offset: s.u16(2)?,
                size: s.u16(4)?,
                data: &field[8..8 + length],
                ..Default::default()
            }
        }
        KDLI_ZERO => {
            need(field, 6, "kdli zero")?;
            KdliItem { code, offset: s.u16(2)?, size: s.u16(4)?, ..Default::default() }
        }
        KDLI_LOAD_DATA | KDLI_LOAD_LHB => {
            need(field, if code == KDLI_LOAD_DATA { 56 } else { 112 }, "kdli load")?;
            KdliItem { code, lob_id: &field[12..22], raw: field, ..Default::default() }
        }
        KDLI_SUPLOG => {
            need(field, 24, "kdli suplog")?;
            KdliItem {
                code,
                xid: Some(parse_xid::<E>(field, 4)?),
                obj: s.u32(12)?,
                column: s.u16(18)?,
                raw: field,
                ..Default::default()
            }
        }
        _ => KdliItem { code, raw: field, ..Default::default() },
    })
}

/// OP 26.2 — field 1 KTB, field 2 kdli common, field 3 kdli item, field 4 optional kdli item.
pub fn parse_lob_redo<'a, E: Endianity>(fields: &[&'a [u8]], _cls: u16) -> Result<LobChange<'a>> {
    if fields.len() < 2 {
        return Err(Error::body(format!("26.2 needs KTB and kdli common fields, has {}", fields.len())));
    }
    let mut items = Vec::new();
    for f in fields[2..fields.len().min(4)].iter().filter(|f| !f.is_empty()) {
        items.push(parse_kdli_item::<E>(f)?);
    }
    // Python evaluates the keyword arguments after the items: KTB, then kdli common
    let ktb = parse_ktb::<E>(fields[0])?;
    let common = parse_kdli_common::<E>(fields[1])?;
    Ok(LobChange { ktb, common, items })
}

/// OP 11.17 — LLB (no layout in the doc): the kind byte of field 2 and, for kind 1, the LOB id at
/// @12 of field 3 when it has the §5.7 LOB id shape.
pub fn parse_llb<'a>(fields: &[&'a [u8]], _cls: u16) -> Result<LobSupport<'a>> {
    let sizes: Vec<usize> = fields.iter().map(|f| f.len()).collect();
    if fields.len() < 2 || fields[1].is_empty() {
        let list: Vec<String> = sizes.iter().map(|s| s.to_string()).collect();
        return Err(Error::body(format!(
            "11.17 needs at least two fields (kind in field 2), has sizes [{}]",
            list.join(", ")
        )));
    }
    let kind = fields[1][0];
    let lob_id =
        if kind == 1 && fields.len() >= 3 && fields[2].len() >= 22 && fields[2][12..16] == LOB_ID_PREFIX {
            Some(&fields[2][12..22])
        } else {
            None
        };
    Ok(LobSupport { kind, lob_id, sizes })
}
