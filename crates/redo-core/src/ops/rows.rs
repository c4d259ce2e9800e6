//! Row opcodes 11.x: KTB redo + KDO op header + the op's columns (redo-format §5.6). Mirrors
//! `format/ops/rows.py`: 11.2 IRP, 11.3 DRP, 11.4 LKR, 11.5 URP, 11.6 ORP, 11.8 CFA, 11.11 QMI,
//! 11.12 QMD, 11.16 LMN and 11.22 CMP parse to `RowOperation`; the KDO's own op byte decides.

use super::kdo::{
    data_column_count, parse_kdo, parse_ktb, parse_packed_columns, parse_piece_columns, parse_positions,
    parse_qmi_rows,
};
use crate::endian::Endianity;
use crate::error::{Error, Result};
use crate::layout::FileLayout;
use crate::model::{kdo_op, Column, Kdo, RowOperation};

/// The 11.x codes parsed as row operations (`ROW_OPCODES`).
pub const ROW_OPCODES: [u8; 10] = [2, 3, 4, 5, 6, 8, 11, 12, 16, 22];

/// OP 11.x — field 1 KTB redo, field 2 KDO, then per KDO op (§5.6 table).
pub fn parse_row_operation<'a, E: Endianity>(
    fields: &[&'a [u8]],
    _block_class: u16,
    layout: &FileLayout<E>,
) -> Result<RowOperation<'a>> {
    if fields.len() < 2 {
        return Err(Error::body(format!("11.x needs KTB and KDO fields, has {}", fields.len())));
    }
    let ktb = parse_ktb::<E>(fields[0])?;
    let kdo = parse_kdo::<E>(fields[1])?;
    let mut op = RowOperation {
        ktb,
        kdo,
        columns: Vec::new(),
        positions: Vec::new(),
        qmi_rows: Vec::new(),
        rowdep_scn: None,
    };
    match op.kdo.op & 0x1F {
        kdo_op::IRP | kdo_op::ORP => {
            op.columns = parse_piece_columns(fields, 2, &op.kdo, true)?.0;
        }
        kdo_op::URP => {
            if fields.len() < 3 {
                return Ok(op);
            }
            op.positions = parse_positions::<E>(fields[2]);
            if op.kdo.kdom2 {
                if fields.len() < 4 {
                    return Err(Error::body("11.5 KDOM2 without its value vector"));
                }
                op.columns =
                    parse_packed_columns::<E>(fields[3], op.kdo.nnew.unwrap_or(0) as usize, "KDOM2 redo")?.0;
            } else {
                op.columns = urp_redo_columns(fields, 3, &op.kdo)?;
            }
        }
        kdo_op::QMI => {
            if fields.len() < 4 {
                return Err(Error::body("11.11 QMI needs row-length and row-data fields"));
            }
            op.qmi_rows = parse_qmi_rows(fields[2], fields[3], op.kdo.slots.len(), op.kdo.rowdeps, layout)?;
        }
        _ => {}
    }
    Ok(op)
}

/// URP redo values (OLR's reading): a field per column up to `ccData`; NULL columns after the last
/// non-NULL one take no field; NULL columns before it have a zero-length field.
fn urp_redo_columns<'a>(fields: &[&'a [u8]], mut i: usize, kdo: &Kdo<'_>) -> Result<Vec<Column<'a>>> {
    let limit = data_column_count(kdo);
    let nnew = kdo.nnew.unwrap_or(0) as usize;
    let mut out = Vec::with_capacity(nnew);
    for col in 0..nnew {
        let null = kdo.is_null(col);
        if col >= limit {
            out.push(None);
            continue;
        }
        if i >= fields.len() {
            break;
        }
        let field = fields[i];
        i += 1;
        if null {
            if !field.is_empty() {
                return Err(Error::body(format!(
                    "URP column {col} is NULL by the bitmap but its field has {} bytes",
                    field.len()
                )));
            }
            out.push(None);
        } else {
            out.push(Some(field));
        }
    }
    Ok(out)
}
