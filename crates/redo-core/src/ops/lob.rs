//! LOB opcodes and the LOB locator: 26.2 LOB redo, 11.17 LLB, the in-row locator (redo-format
//! §5.10, §6.7, §7.8). Mirrors `format/ops/lob.py`; confidence is low for every LOB path (§5.10).

use super::kdo::{need, parse_ktb, parse_xid};
use crate::endian::{EndianSlice, Endianity};
use crate::error::{Error, Result};
use crate::model::{KdliCommon, KdliItem, LobChange, LobImage, LobSupport};

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
/// kdli common op of a page image (26.6, §5.10).
pub const KDLI_OP_BIMG: u8 = 6;
/// 26.6 field 2: at least this long, the data object id @24, the XID @16 (OLR's fpload layout).
const IMAGE_HEAD: usize = 32;
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

/// OP 26.6 — LOB page image (§5.10): field 1 kdli common, field 2 (>= 32 bytes: data object id u32
/// @24, XID @16), field 3 a kdli item, field 4 the raw page when the common op is BIMG, then a kdli
/// item (usually suplog). Short or missing fields are `Error::Format` naming the field.
pub fn parse_lob_image<'a, E: Endianity>(fields: &[&'a [u8]], _cls: u16) -> Result<LobImage<'a>> {
    if fields.len() < 3 {
        return Err(Error::body(format!(
            "26.6 needs kdli common, a 32-byte kdli item and a kdli item, has {} fields",
            fields.len()
        )));
    }
    let common = parse_kdli_common::<E>(fields[0])?;
    need(fields[1], IMAGE_HEAD, "26.6 field 2")?;
    let dataobj = EndianSlice::<E>::new(fields[1]).u32(24)?;
    let head = KdliItem {
        code: fields[1][0],
        xid: Some(parse_xid::<E>(fields[1], 16)?),
        raw: fields[1],
        ..Default::default()
    };
    let item = parse_kdli_item::<E>(fields[2])?;
    let (page, next): (&[u8], usize) = if common.op == KDLI_OP_BIMG {
        match fields.get(3) {
            Some(p) => (p, 4),
            None => return Err(Error::body("26.6 BIMG without its page (field 4)")),
        }
    } else {
        (&[], 3)
    };
    let trailer = match fields.get(next) {
        Some(f) if !f.is_empty() => Some(parse_kdli_item::<E>(f)?),
        _ => None,
    };
    Ok(LobImage { common, dataobj, head, item, page, trailer })
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::endian::LittleEndian;
    use crate::events::lob_image_piece;

    const ID: &[u8; 10] = b"\0\0\0\x01\0\0\0\0\0\x05";

    /// The fields of a 26.6 as the generator writes them (redo_lib/synth/vectors.py `lob_image`).
    fn image_fields() -> Vec<Vec<u8>> {
        let mut common = vec![KDLI_OP_BIMG, 0x20, 0, 0, 5, 0, 0, 0];
        common.extend_from_slice(&0x0180_0101u32.to_le_bytes());
        let mut head = vec![11, 0, 0, 0, 5, 0, 0, 0];
        head.extend_from_slice(&[0; 8]); // SCN
        head.extend_from_slice(&[3, 0, 4, 0, 9, 0, 0, 0]); // XID 3.4.9
        head.extend_from_slice(&77u32.to_le_bytes());
        head.extend_from_slice(&[0; 4]);
        let mut load = vec![KDLI_LOAD_DATA];
        load.extend_from_slice(&[0; 11]);
        load.extend_from_slice(ID);
        load.extend_from_slice(&[0; 34]);
        let mut suplog = vec![KDLI_SUPLOG, 0, 0, 0, 3, 0, 4, 0, 9, 0, 0, 0];
        suplog.extend_from_slice(&70u32.to_le_bytes());
        suplog.extend_from_slice(&[1, 0, 2, 0, 0, 0, 0, 0]);
        vec![common, head, load, b"hello".to_vec(), suplog]
    }

    #[test]
    fn a_page_image_is_a_lob_piece_of_its_suplog_transaction() {
        let owned = image_fields();
        let fields: Vec<&[u8]> = owned.iter().map(Vec::as_slice).collect();
        let image = parse_lob_image::<LittleEndian>(&fields, 1).unwrap();
        assert_eq!((image.dataobj, image.common.dba, image.page), (77, 0x0180_0101, &b"hello"[..]));
        let (xid, obj, lob_id, data) = lob_image_piece(&image).unwrap();
        assert_eq!(
            ((xid.usn, xid.slot, xid.sqn), obj, lob_id, data),
            ((3, 4, 9), 70, &ID[..], &b"hello"[..])
        );
        // not BIMG: no page field, no piece (counted as unusable)
        let mut not_bimg = owned.clone();
        not_bimg[0][0] = 5;
        not_bimg.remove(3);
        let fields: Vec<&[u8]> = not_bimg.iter().map(Vec::as_slice).collect();
        let load = parse_lob_image::<LittleEndian>(&fields, 1).unwrap();
        assert_eq!((load.page, load.trailer.as_ref().map(|t| t.code)), (&[][..], Some(KDLI_SUPLOG)));
        assert!(lob_image_piece(&load).is_none());
    }

    #[test]
    fn every_cut_of_a_page_image_is_a_named_format_error() {
        let owned = image_fields();
        for n in 0..3 {
            let fields: Vec<&[u8]> = owned[..n].iter().map(Vec::as_slice).collect();
            let e = parse_lob_image::<LittleEndian>(&fields, 1).unwrap_err();
            assert_eq!(e.kind(), "format");
            assert!(e.to_string().contains("26.6 needs"), "{e}");
        }
        let fields: Vec<&[u8]> = owned[..3].iter().map(Vec::as_slice).collect();
        assert!(parse_lob_image::<LittleEndian>(&fields, 1)
            .unwrap_err()
            .to_string()
            .contains("page (field 4)"));
        // each field cut short (the page and the trailer may be any length but the trailer's item)
        for (f, min) in [(0, 12), (1, 32), (2, 56), (4, 24)] {
            for cut in 1..min {
                let mut short = owned.clone();
                short[f].truncate(cut);
                let fields: Vec<&[u8]> = short.iter().map(Vec::as_slice).collect();
                let e = parse_lob_image::<LittleEndian>(&fields, 1).unwrap_err();
                assert_eq!(e.kind(), "format", "field {} cut at {cut}: {e}", f + 1);
                assert!(e.to_string().contains("too short"), "field {} cut at {cut}: {e}", f + 1);
            }
        }
    }
}
