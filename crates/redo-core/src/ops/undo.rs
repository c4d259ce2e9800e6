//! Transaction-layer opcodes: 5.1 undo record, 5.2 begin, 5.4 commit/rollback, 5.6 / 5.11 partial
//! rollback (redo-format §5.1-§5.4, shared structures §5.0.1). Mirrors `format/ops/undo.py`.

use super::kdo::{
    need, parse_kdo, parse_ktb, parse_packed_columns, parse_piece_columns, parse_positions, parse_qmi_rows,
    parse_rowdep, parse_uba, parse_xid,
};
use crate::endian::{EndianSlice, Endianity};
use crate::error::{Error, Result};
use crate::layout::FileLayout;
use crate::model::{
    kdo_op, ktub_flags, Column, Kdo, PartialRollback, Supplemental, TransactionBegin, TransactionEnd,
    UndoRecord, Xid,
};

const MULTI_BLOCK: u16 =
    ktub_flags::MULTI_BLOCK_HEAD | ktub_flags::MULTI_BLOCK_TAIL | ktub_flags::MULTI_BLOCK_MID;
/// ktubl: logon user u32 @72 when the ktub is the long form of a transaction's first change.
const KTUBL_USER_OFFSET: usize = 72;

/// USN from the vector's block class: `(cls - 15) / 2` for undo classes, else -1 (§4.1).
#[inline]
pub fn usn_of(block_class: u16) -> i32 {
    if block_class >= 15 {
        (block_class as i32 - 15) / 2
    } else {
        -1
    }
}

/// OP 5.1 — undo record (§5.1): ktudb, ktub, then by opc; KDO undo (opc 11.1) fully parsed.
/// Multi-block pieces and other opcs keep fields 3+ in `raw_fields`.
pub fn parse_undo_record<'a, E: Endianity>(
    fields: &[&'a [u8]],
    _block_class: u16,
    layout: &FileLayout<E>,
) -> Result<UndoRecord<'a>> {
    if fields.len() < 2 {
        return Err(Error::body(format!("5.1 needs ktudb and ktub fields, has {}", fields.len())));
    }
    let ktudb = fields[0];
    need(ktudb, 20, "ktudb")?;
    let ktub = fields[1];
    need(ktub, 24, "ktub")?;
    let s = EndianSlice::<E>::new(ktub);
    let d = EndianSlice::<E>::new(ktudb);
    let flg = s.u16(20)?;
    let user = if flg & ktub_flags::BEGIN_TRANSACTION != 0 && ktub.len() >= KTUBL_USER_OFFSET + 4 {
        Some(s.u32(KTUBL_USER_OFFSET)?)
    } else {
        None
    };
    let opc = (ktub[16], ktub[17]);
    let mut head = UndoRecord {
        xid: parse_xid::<E>(ktudb, 8)?,
        uba_seq: d.u16(16)?,
        uba_rec: ktudb[18],
        ktudb_flg: d.u16(4)?,
        obj: s.u32(0)?,
        dataobj: s.u32(4)?,
        tsn: s.u32(8)?,
        opc,
        slt: ktub[18],
        rci: ktub[19],
        flg,
        user,
        ktb: None,
        kdo: None,
        columns: Vec::new(),
        positions: Vec::new(),
        qmi_rows: Vec::new(),
        rowdep_scn: None,
        supplemental: None,
        raw_fields: Vec::new(),
    };
    if flg & MULTI_BLOCK != 0 || opc != (11, 1) || fields.len() < 3 {
        head.raw_fields = fields[2..].to_vec();
        return Ok(head);
    }
    head.ktb = parse_ktb::<E>(fields[2])?;
    if fields.len() < 4 {
        return Ok(head);
    }
    let kdo = parse_kdo::<E>(fields[3])?;
    kdo_undo(head, kdo, fields, layout)
}

/// The op-dependent fields after the KDO undo header (§5.1 table), then the supplemental block.
fn kdo_undo<'a, E: Endianity>(
    mut head: UndoRecord<'a>,
    kdo: Kdo<'a>,
    fields: &[&'a [u8]],
    layout: &FileLayout<E>,
) -> Result<UndoRecord<'a>> {
    let code = kdo.op & 0x1F;
    let mut i = 4usize;
    match code {
        kdo_op::IRP | kdo_op::ORP => {
            let (columns, next) = parse_piece_columns(fields, i, &kdo, false)?;
            head.columns = columns;
            i = next;
        }
        kdo_op::URP => {
            if i >= fields.len() {
                return Err(Error::body("5.1 URP undo without its column-position field"));
            }
            head.positions = parse_positions::<E>(fields[i]);
            i += 1;
            if kdo.kdom2 {
                if i >= fields.len() {
                    return Err(Error::body("5.1 URP KDOM2 undo without its value vector"));
                }
                head.columns =
                    parse_packed_columns::<E>(fields[i], kdo.nnew.unwrap_or(0) as usize, "KDOM2 undo")?.0;
                i += 1;
            } else {
                let (columns, next, complete) = urp_undo_columns(fields, i, &kdo);
                head.columns = columns;
                i = next;
                if !complete {
                    head.kdo = Some(kdo);
                    return Ok(head);
                }
            }
        }
        kdo_op::QMI => {
            if i + 1 >= fields.len() {
                return Err(Error::body("5.1 QMI undo needs row-length and row-data fields"));
            }
            head.qmi_rows = parse_qmi_rows(fields[i], fields[i + 1], kdo.slots.len(), kdo.rowdeps, layout)?;
            head.kdo = Some(kdo);
            return Ok(head);
        }
        kdo_op::DRP | kdo_op::LMN | kdo_op::LKR | kdo_op::CFA => {}
        _ => {
            head.raw_fields = fields[4..].to_vec();
            head.kdo = Some(kdo);
            return Ok(head);
        }
    }
    if kdo.rowdeps && matches!(code, kdo_op::IRP | kdo_op::ORP | kdo_op::URP | kdo_op::DRP) {
        if code == kdo_op::URP {
            i = skip_empty(fields, i);
        }
        if i >= fields.len() {
            return Err(Error::body("5.1 undo with row dependencies lacks its row-dependency field"));
        }
        head.rowdep_scn = Some(parse_rowdep::<E>(fields[i])?);
        i += 1;
    }
    head.supplemental = parse_supplemental::<E>(fields, i)?;
    head.kdo = Some(kdo);
    Ok(head)
}

fn skip_empty(fields: &[&[u8]], mut i: usize) -> usize {
    while i < fields.len() && fields[i].is_empty() {
        i += 1;
    }
    i
}

/// URP undo values (OLR's reading): a NULL column (bitmap) takes no field; before each other column
/// zero-length fields are skipped. Returns (columns, next field, all columns found).
fn urp_undo_columns<'a>(fields: &[&'a [u8]], mut i: usize, kdo: &Kdo<'_>) -> (Vec<Column<'a>>, usize, bool) {
    let nnew = kdo.nnew.unwrap_or(0) as usize;
    let mut out = Vec::with_capacity(nnew);
    for col in 0..nnew {
        if kdo.is_null(col) {
            out.push(None);
            continue;
        }
        i = skip_empty(fields, i);
        if i >= fields.len() {
            return (out, i, false);
        }
        out.push(Some(fields[i]));
        i += 1;
    }
    (out, i, true)
}

/// Supplemental-log block S1..S4 at the end of a 5.1 (§5.0.1); zero-length fields before it are
/// skipped. `None` when the vector has no more fields (no supplemental logging).
pub fn parse_supplemental<'a, E: Endianity>(
    fields: &[&'a [u8]],
    i: usize,
) -> Result<Option<Supplemental<'a>>> {
    let i = skip_empty(fields, i);
    if i >= fields.len() {
        return Ok(None);
    }
    let s1 = fields[i];
    need(s1, 20, "supplemental header")?;
    let s = EndianSlice::<E>::new(s1);
    let count = s.u16(2)?;
    let mut out = Supplemental {
        op: s1[0],
        fb: s1[1],
        count,
        objv: s.u16(4)?,
        start_before: s.u16(6)?,
        start_after: s.u16(8)?,
        bdba: None,
        slot: None,
        columns: Vec::new(),
    };
    if s1.len() >= 26 {
        out.bdba = Some(s.u32(20)?);
        out.slot = Some(s.u16(24)?);
    }
    if i + 2 >= fields.len() || count == 0 {
        return Ok(Some(out));
    }
    let count = count as usize;
    let (numbers, lengths) = (fields[i + 1], fields[i + 2]);
    need(numbers, 2 * count, "supplemental column numbers")?;
    need(lengths, 2 * count, "supplemental column lengths")?;
    let values = &fields[(i + 3).min(fields.len())..(i + 3 + count).min(fields.len())];
    if values.len() < count {
        return Err(Error::body(format!(
            "supplemental block announces {count} columns but has {} value fields",
            values.len()
        )));
    }
    let (n, l) = (EndianSlice::<E>::new(numbers), EndianSlice::<E>::new(lengths));
    for (k, value) in values.iter().enumerate() {
        let size = l.u16(2 * k)?;
        out.columns.push((n.u16(2 * k)?, if size == 0xFFFF { None } else { Some(*value) }));
    }
    Ok(Some(out))
}

/// OP 5.2 — transaction begin, ktudh (§5.2); optional container UID in field 2 (or 3).
pub fn parse_transaction_begin<E: Endianity>(fields: &[&[u8]], block_class: u16) -> Result<TransactionBegin> {
    let Some(&f) = fields.first() else {
        return Err(Error::body("5.2 without fields"));
    };
    need(f, 32, "ktudh")?;
    let s = EndianSlice::<E>::new(f);
    let con_uid = if fields.len() >= 2 && fields[1].len() == 4 {
        Some(EndianSlice::<E>::new(fields[1]).u32(0)?)
    } else if fields.len() >= 3 && fields[2].len() == 4 {
        Some(EndianSlice::<E>::new(fields[2]).u32(0)?)
    } else {
        None
    };
    Ok(TransactionBegin {
        xid: Xid { usn: usn_of(block_class), slot: s.u16(0)?, sqn: s.u32(4)? },
        uba: parse_uba::<E>(f, 8)?,
        flg: s.u16(16)?,
        siz: s.u16(18)?,
        fbi: f[20],
        parent_xid: Some(parse_xid::<E>(f, 24)?),
        con_uid,
    })
}

/// OP 5.4 — commit or rollback, ktucm (§5.3): flg bit 0x04 = rollback; ktucf when flg & 0x02; the
/// last 4-byte field is the Unix time of the commit.
pub fn parse_transaction_end<E: Endianity>(fields: &[&[u8]], block_class: u16) -> Result<TransactionEnd> {
    let Some(&f) = fields.first() else {
        return Err(Error::body("5.4 without fields"));
    };
    need(f, 20, "ktucm")?;
    let s = EndianSlice::<E>::new(f);
    let flg = f[16];
    let mut uba = None;
    if flg & 0x02 != 0 && fields.len() >= 2 {
        need(fields[1], 7, "ktucf")?;
        uba = Some(parse_uba::<E>(fields[1], 0)?);
    }
    let last = fields[fields.len() - 1];
    let unix_time = if fields.len() >= 2 && last.len() == 4 && !(flg & 0x02 != 0 && fields.len() == 2) {
        Some(EndianSlice::<E>::new(last).u32(0)?)
    } else {
        None
    };
    Ok(TransactionEnd {
        xid: Xid { usn: usn_of(block_class), slot: s.u16(0)?, sqn: s.u32(4)? },
        srt: s.u16(8)?,
        sta: s.u32(12)?,
        flg,
        uba,
        unix_time,
    })
}

/// OP 5.6 / 5.11 — partial rollback (§5.4): ktub in field 1; identity = (USN from CLS, slot).
pub fn parse_partial_rollback<E: Endianity>(fields: &[&[u8]], block_class: u16) -> Result<PartialRollback> {
    let Some(&ktub) = fields.first() else {
        return Err(Error::body("5.6/5.11 without a ktub field"));
    };
    need(ktub, 24, "ktub")?;
    let s = EndianSlice::<E>::new(ktub);
    Ok(PartialRollback {
        usn: usn_of(block_class),
        slt: ktub[18],
        obj: s.u32(0)?,
        dataobj: s.u32(4)?,
        opc: (ktub[16], ktub[17]),
        flg: s.u16(20)?,
    })
}
