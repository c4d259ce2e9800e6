//! Change events: the flat, per-record output of decoding, and the input of transaction assembly
//! (Python `assembly/events.py`, the same pairing rules, redo-format §6.1, §6.6.2).
//!
//! A redo record gives a few events by pairing its vectors: a transaction begin (5.2), an
//! undo/redo data pair (5.1 + 11.x), a partial rollback (11.x + 5.6/5.11, or a lone 5.6/5.11), a
//! commit or rollback (5.4), a DDL (24.1), a LOB piece (5.1 opc 26.1 + 26.2 with a fill item), the
//! rows of a direct-path table block (19.1). Events borrow their column bytes from the record;
//! `arrow::EventBuilder` copies them into record batches of `arrow::events_schema()`.

use crate::layout::redo_time_epoch;
use crate::model::{kdo_op, ChangeVector, Column, Kdo, OpBody, QmiRow, RedoRecord, UndoRecord};
use crate::model::{LobChange, LobImage, Xid};
use crate::ops::lob::{KDLI_FILL, KDLI_INFO, KDLI_LOAD_DATA, KDLI_OP_BIMG, KDLI_SUPLOG};
use crate::ops::lob_index::lob_index_entry;
use crate::unsupported::{is_compressed_row, COMPRESSED_ROW};

/// Event kinds (Python `EventKind`).
pub mod kind {
    pub const BEGIN: i64 = 1;
    pub const CHANGE: i64 = 2;
    pub const PARTIAL_ROLLBACK: i64 = 3;
    pub const COMMIT: i64 = 4;
    pub const ROLLBACK: i64 = 5;
    pub const DDL: i64 = 6;
    pub const LOB: i64 = 7;
}

/// Partial rollbacks name their transaction by (usn, slot) only.
pub const NO_SQN: i64 = -1;

/// An image: (column index in the row, value) pairs; index = segcol# - 1.
pub type Image<'a> = Vec<(i32, Column<'a>)>;
/// Rows of a multi-row operation: (slot, columns) in slot order.
pub type MultiRows<'a> = Vec<(i32, &'a [Column<'a>])>;

/// One transaction-relevant event of the redo, at its redo position (Python `ChangeEvent`; the
/// fields and their order are those of `events_schema()`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Event<'a> {
    pub kind: i64,
    pub usn: i64,
    pub slot: i64,
    pub sqn: i64,
    pub thread: i64,
    pub seq: i64,
    pub block: i64,
    pub offset: i64,
    pub scn: i64,
    pub subscn: i64,
    /// microseconds since 1970-01-01 of the LWN's redo time (UTC wall clock, §3.5)
    pub time: i64,
    pub vector: i64,
    pub obj: i64,
    pub dataobj: i64,
    pub undo_op: i64,
    pub redo_op: i64,
    pub bdba: i64,
    pub row_slot: i64,
    pub fb: i64,
    pub undo_fb: i64,
    pub supp_fb: Option<i64>,
    pub supp_op: i64,
    pub supp_bdba: i64,
    pub supp_slot: i64,
    pub before: Image<'a>,
    pub after: Image<'a>,
    pub supp_columns: Image<'a>,
    pub rows: MultiRows<'a>,
    pub ddl_text: &'a str,
    pub ddl_schema: &'a str,
    pub lob_id: &'a [u8],
    pub lob_page: i64,
    pub lob_data: &'a [u8],
}

/// Put the columns of one undo or redo piece at their row column index (Python `_place`, §6.6.2):
/// shift = start - 1 (start 0: shift 0); with positions (URP) the first listed position lands on
/// `start - 1`; a column whose NULL-bitmap bit is set is NULL whatever its field holds.
fn place<'a>(columns: &[Column<'a>], kdo: Option<&Kdo<'_>>, positions: &[u16], start: u16) -> Image<'a> {
    let shift: i64 = if start > 0 { start as i64 - 1 } else { 0 };
    if let (Some(k), [Some(whole)]) = (kdo, columns) {
        if positions.is_empty() && is_compressed_row(k, whole.len()) {
            // an OLTP-compressed row image (§5.1): one field holding the whole row piece, kept
            // whole so that the emitter counts the change as unsupported (never an image without
            // its values)
            return vec![(COMPRESSED_ROW, Some(*whole))];
        }
    }
    let value = |i: usize| -> Column<'a> {
        if kdo.is_some_and(|k| k.is_null(i)) {
            None
        } else {
            columns.get(i).copied().flatten()
        }
    };
    if !positions.is_empty() {
        let base: i64 = if start > 0 { positions[0] as i64 } else { 0 };
        return positions
            .iter()
            .enumerate()
            .map(|(i, &pos)| ((pos as i64 - base + shift) as i32, value(i)))
            .collect();
    }
    let mut count = columns.len();
    if let Some(cc) = kdo.and_then(|k| k.cc) {
        count = count.max(cc as usize);
    }
    (0..count).map(|i| ((i as i64 + shift) as i32, value(i))).collect()
}

fn multi_rows<'a>(rows: &'a [QmiRow<'a>], slots: &[u16]) -> MultiRows<'a> {
    rows.iter()
        .enumerate()
        .map(|(i, row)| (slots.get(i).map_or(i as i32, |&s| s as i32), row.columns.as_slice()))
        .collect()
}

fn opval(vector: &ChangeVector<'_>) -> i64 {
    ((vector.layer as i64) << 8) | vector.code as i64
}

fn base<'a>(record: &RedoRecord<'_>, vector: &ChangeVector<'_>) -> Event<'a> {
    Event {
        thread: record.thread as i64,
        seq: record.rba.seq as i64,
        block: record.rba.block as i64,
        offset: record.rba.offset as i64,
        scn: record.scn as i64,
        subscn: record.subscn as i64,
        time: redo_time_epoch(record.time) * 1_000_000,
        vector: vector.index as i64,
        ..Default::default()
    }
}

/// A LOB event (a piece, a page image or a LOB index entry) of transaction `xid` on `obj` /
/// `dataobj`, at the redo position of `vector` (the vector that carries its data).
fn lob_event<'a>(
    record: &RedoRecord<'_>,
    vector: &ChangeVector<'_>,
    xid: Xid,
    obj: u32,
    dataobj: u32,
) -> Event<'a> {
    Event {
        kind: kind::LOB,
        usn: xid.usn as i64,
        slot: xid.slot as i64,
        sqn: xid.sqn as i64,
        obj: obj as i64,
        dataobj: dataobj as i64,
        redo_op: opval(vector),
        ..base(record, vector)
    }
}

/// (LOB id, page number, data) of a 26.2 that writes LOB data: an info item and a fill item
/// (Python `lob_piece`).
pub fn lob_piece<'a>(body: &LobChange<'a>) -> Option<(&'a [u8], u32, &'a [u8])> {
    let info = body.items.iter().find(|i| i.code == KDLI_INFO)?;
    let fill = body.items.iter().find(|i| i.code == KDLI_FILL)?;
    Some((info.lob_id, info.block, fill.data))
}

/// (XID, obj, LOB id, page bytes) of a 26.6 page image the LOB store can use: op BIMG, a page, the
/// LOB id of its load-data (or info) item, the transaction of its suplog item (else of field 2, when
/// not zero). `None`: counted as `lob_images_unusable`.
pub fn lob_image_piece<'a>(image: &LobImage<'a>) -> Option<(Xid, u32, &'a [u8], &'a [u8])> {
    if image.common.op != KDLI_OP_BIMG || image.page.is_empty() {
        return None;
    }
    if !matches!(image.item.code, KDLI_LOAD_DATA | KDLI_INFO) || image.item.lob_id.is_empty() {
        return None;
    }
    let suplog = image.trailer.as_ref().filter(|t| t.code == KDLI_SUPLOG);
    let xid = suplog.and_then(|t| t.xid).or(image.head.xid).filter(|x| x.sqn != 0)?;
    Some((xid, suplog.map_or(0, |t| t.obj), image.item.lob_id, image.page))
}

fn pair_event<'a>(
    record: &'a RedoRecord<'a>,
    undo_vec: &'a ChangeVector<'a>,
    undo: &'a UndoRecord<'a>,
    redo_vec: Option<&'a ChangeVector<'a>>,
) -> Event<'a> {
    let redo = match redo_vec.map(|v| &v.body) {
        Some(OpBody::Row(r)) => Some(r),
        _ => None,
    };
    let rkdo = redo.map(|r| &r.kdo);
    let ukdo = undo.kdo.as_ref();
    let supp = undo.supplemental.as_ref();
    let start_before = supp.map_or(0, |s| s.start_before);
    let start_after = supp.map_or(0, |s| s.start_after);
    let mut before = Vec::new();
    if ukdo.is_some() && !undo.columns.is_empty() {
        before = place(&undo.columns, ukdo, &undo.positions, start_before);
    }
    let mut after = Vec::new();
    let mut rows = Vec::new();
    if let Some(redo) = redo {
        let rkdo = &redo.kdo;
        if !redo.columns.is_empty() {
            after = place(&redo.columns, Some(rkdo), &redo.positions, start_after);
        }
        if let (Some(uk), Some(rn)) = (ukdo, rkdo.ncol) {
            if rkdo.op & 0x1F == kdo_op::URP && uk.ncol.is_some_and(|un| rn < un) {
                // trailing columns set to NULL: Oracle cuts them from the row piece (redo ncol
                // shrinks) and the redo URP carries no value for them; their undo positions say which
                let present: Vec<i32> = after.iter().map(|(c, _)| *c).collect();
                let extra: Vec<(i32, Column<'a>)> = undo
                    .positions
                    .iter()
                    .enumerate()
                    .filter(|&(i, &pos)| {
                        pos >= rn as u16 && i < before.len() && !present.contains(&before[i].0)
                    })
                    .map(|(i, _)| (before[i].0, None))
                    .collect();
                after.extend(extra);
            }
        }
        if !redo.qmi_rows.is_empty() {
            rows = multi_rows(&redo.qmi_rows, &rkdo.slots);
        }
    }
    if rows.is_empty() && !undo.qmi_rows.is_empty() {
        rows = multi_rows(&undo.qmi_rows, ukdo.map_or(&[][..], |k| &k.slots));
    }
    if rows.is_empty() {
        if let (Some(rk), Some(_)) = (rkdo, ukdo) {
            if rk.op & 0x1F == kdo_op::QMD {
                rows = rk.slots.iter().map(|&s| (s as i32, &[][..])).collect();
            }
        }
    }
    let kdo = rkdo.or(ukdo);
    let redo_obj = redo_vec.and_then(|v| v.obj).unwrap_or(0) as i64;
    let obj = if undo.obj != 0 { undo.obj as i64 } else { redo_obj };
    let dataobj = if undo.dataobj != 0 { undo.dataobj as i64 } else { redo_obj };
    let supp_columns = supp
        .map(|s| s.columns.iter().map(|&(segcol, v)| (segcol as i32 - 1, v)).collect())
        .unwrap_or_default();
    Event {
        kind: kind::CHANGE,
        usn: undo.xid.usn as i64,
        slot: undo.xid.slot as i64,
        sqn: undo.xid.sqn as i64,
        obj,
        dataobj,
        undo_op: ukdo.map_or(0, |k| (k.op & 0x1F) as i64),
        redo_op: redo_vec.map_or(0, opval),
        bdba: kdo.map_or(0, |k| k.bdba as i64),
        row_slot: kdo.map_or(0, |k| k.slot.unwrap_or(0) as i64),
        fb: rkdo.map_or(0, |k| k.fb.unwrap_or(0) as i64),
        undo_fb: ukdo.map_or(0, |k| k.fb.unwrap_or(0) as i64),
        supp_fb: supp.map(|s| s.fb as i64),
        supp_op: supp.map_or(0, |s| s.op as i64),
        supp_bdba: supp.map_or(0, |s| s.bdba.unwrap_or(0) as i64),
        supp_slot: supp.map_or(0, |s| s.slot.unwrap_or(0) as i64),
        before,
        after,
        supp_columns,
        rows,
        ..base(record, redo_vec.unwrap_or(undo_vec))
    }
}

/// The change events of one redo record, in vector order, handed to `emit` (Python `iter_events`).
///
/// A 5.1 is paired with the 11.x that follows it; a 5.1 of opc 26.1 followed by a 26.2 that
/// writes LOB data is a LOB piece; other 5.1 + 10.x/26.x pairs yield nothing (index changes never
/// enter the trail). An 11.x followed by 5.6/5.11 is a partial rollback; so is a lone 5.6/5.11.
pub fn for_each_event<'a>(record: &'a RedoRecord<'a>, mut emit: impl FnMut(Event<'a>)) {
    let vectors = &record.vectors;
    let n = vectors.len();
    let mut i = 0;
    while i < n {
        let vec = &vectors[i];
        let nxt = vectors.get(i + 1);
        match &vec.body {
            OpBody::Begin(b) if b.xid.sqn != 0 => emit(Event {
                kind: kind::BEGIN,
                usn: b.xid.usn as i64,
                slot: b.xid.slot as i64,
                sqn: b.xid.sqn as i64,
                ..base(record, vec)
            }),
            OpBody::End(e) => emit(Event {
                kind: if e.flg & 0x04 != 0 { kind::ROLLBACK } else { kind::COMMIT },
                usn: e.xid.usn as i64,
                slot: e.xid.slot as i64,
                sqn: e.xid.sqn as i64,
                ..base(record, vec)
            }),
            OpBody::Undo(u) => {
                if u.opc == (26, 1) {
                    if let Some(OpBody::Lob(lob)) = nxt.map(|v| &v.body) {
                        let nv = &vectors[i + 1];
                        if let Some((lob_id, page, data)) = lob_piece(lob) {
                            emit(Event {
                                bdba: lob.common.dba as i64,
                                lob_id,
                                lob_page: page as i64,
                                lob_data: data,
                                ..lob_event(record, nv, u.xid, u.obj, u.dataobj)
                            });
                        }
                        i += 2;
                        continue;
                    }
                }
                if u.opc == (10, 22) {
                    // a BasicFile LOB index entry (§5.7): a LOB event of the 10.x's op, the key's
                    // LOB id and page number, the DBA list as its data (the LOB store's page map)
                    if let Some(nv) = nxt.filter(|v| v.layer == 10) {
                        if let Some(entry) = lob_index_entry(nv.code, &nv.fields) {
                            emit(Event {
                                lob_id: entry.lob_id,
                                lob_page: entry.page as i64,
                                lob_data: entry.dbas,
                                ..lob_event(record, nv, u.xid, u.obj, u.dataobj)
                            });
                            i += 2;
                            continue;
                        }
                    }
                }
                if u.opc != (11, 1) {
                    // index (10.22), LOB (26.1), truncate (14.8) undo: skip it and its redo partner
                    if nxt.is_some_and(|v| v.layer == 10 || v.layer == 26) {
                        i += 1;
                    }
                    i += 1;
                    continue;
                }
                if let Some(nv @ ChangeVector { body: OpBody::Row(_), .. }) = nxt {
                    emit(pair_event(record, vec, u, Some(nv)));
                    i += 2;
                    continue;
                }
                // a lone undo (a multi-block piece, the undo of a lock): kept for rollback matching
                emit(pair_event(record, vec, u, None));
            }
            OpBody::Row(r) => {
                if let Some(ChangeVector { body: OpBody::PartialRollback(pr), .. }) = nxt {
                    emit(Event {
                        kind: kind::PARTIAL_ROLLBACK,
                        usn: pr.usn as i64,
                        slot: pr.slt as i64,
                        sqn: NO_SQN,
                        obj: pr.obj as i64,
                        dataobj: pr.dataobj as i64,
                        redo_op: opval(vec),
                        bdba: r.kdo.bdba as i64,
                        row_slot: r.kdo.slot.unwrap_or(0) as i64,
                        ..base(record, vec)
                    });
                    i += 2;
                    continue;
                }
                // an 11.x without its undo (block cleanouts, recursive changes): not a trail change
            }
            OpBody::PartialRollback(pr) => emit(Event {
                kind: kind::PARTIAL_ROLLBACK,
                usn: pr.usn as i64,
                slot: pr.slt as i64,
                sqn: NO_SQN,
                obj: pr.obj as i64,
                dataobj: pr.dataobj as i64,
                ..base(record, vec)
            }),
            OpBody::DirectLoad(d) if !d.rows.is_empty() && !d.itl_xids.is_empty() => {
                // a direct-path table block (19.1): its rows are inserts of the transaction in its
                // ITL, in slot order (contract rule 4)
                let xid = d.itl_xids[0];
                emit(Event {
                    kind: kind::CHANGE,
                    usn: xid.usn as i64,
                    slot: xid.slot as i64,
                    sqn: xid.sqn as i64,
                    dataobj: d.dataobj as i64,
                    bdba: vec.dba as i64,
                    redo_op: opval(vec),
                    rows: multi_rows(&d.rows, &d.slots),
                    ..base(record, vec)
                });
            }
            OpBody::LobImage(image) => {
                // a SecureFile page image: a LOB piece keyed by (LOB id, the page's DBA), no undo
                if let Some((xid, obj, lob_id, data)) = lob_image_piece(image) {
                    emit(Event {
                        bdba: image.common.dba as i64,
                        lob_id,
                        lob_data: data,
                        ..lob_event(record, vec, xid, obj, image.dataobj)
                    });
                }
            }
            OpBody::Ddl(d) => emit(Event {
                kind: kind::DDL,
                usn: d.xid.usn as i64,
                slot: d.xid.slot as i64,
                sqn: d.xid.sqn as i64,
                obj: d.obj.unwrap_or(0) as i64,
                ddl_text: &d.text,
                ddl_schema: &d.schema,
                ..base(record, vec)
            }),
            _ => {}
        }
        i += 1;
    }
}

/// Opcodes of the row operations (redo-format §5) and the row flag bits the assembly reads (Python
/// `assembly/rows.py`): one definition for the event counts here, the transaction table's pairing
/// of compensations and the row changes of `trail::rows`.
pub mod row_ops {
    pub const IRP: i64 = 0x0B02;
    pub const DRP: i64 = 0x0B03;
    pub const LKR: i64 = 0x0B04;
    pub const URP: i64 = 0x0B05;
    pub const ORP: i64 = 0x0B06;
    pub const CFA: i64 = 0x0B08;
    pub const QMI: i64 = 0x0B0B;
    pub const QMD: i64 = 0x0B0C;
    /// LOB row lock / modify
    pub const LMN: i64 = 0x0B10;
    pub const CMP: i64 = 0x0B16;
    /// 19.1 direct loader block with table rows
    pub const DIRECT_LOAD: i64 = 0x1301;
    /// LOB index entries (LOB events, §5.7): 10.2 insert leaf row, 10.8 init leaf block
    pub const LOB_INDEX_INSERT: i64 = 0x0A02;
    pub const LOB_INDEX_INIT: i64 = 0x0A08;
    pub const GROUPED: [i64; 7] = [IRP, DRP, URP, ORP, CFA, LMN, CMP];
    /// row flags: cluster key, last piece, first piece
    pub const FB_K: i64 = 0x80;
    pub const FB_L: i64 = 0x04;
    pub const FB_F: i64 = 0x08;
}

/// How many logical row changes an event amounts to, and their operation, for reconciliation
/// (Python `assembly.rows.row_change_count`, the same rule): a multi-row event counts its rows; a
/// chained row counts once, on its first piece; cluster-key pieces, lone undo and lock rows count
/// nothing.
pub fn row_change_count(e: &Event<'_>) -> Option<(&'static str, u64)> {
    row_change_count_of(e.kind, e.redo_op, e.rows.len(), e.fb | e.undo_fb, e.supp_fb)
}

/// [`row_change_count`] from the fields it reads (kind, redo op, number of multi-row rows, `fb |
/// undo_fb`, supplemental fb), for events held in other shapes (the transaction table's).
pub fn row_change_count_of(
    event_kind: i64,
    op: i64,
    rows: usize,
    piece_fb: i64,
    supp_fb: Option<i64>,
) -> Option<(&'static str, u64)> {
    use row_ops::*;
    if event_kind != kind::CHANGE {
        return None;
    }
    if op == QMI || op == DIRECT_LOAD {
        return Some(("INSERT", rows as u64));
    }
    if op == QMD {
        return Some(("DELETE", rows as u64));
    }
    if !GROUPED.contains(&op) || piece_fb & FB_K != 0 {
        return None;
    }
    let name = match op {
        IRP => "INSERT",
        DRP => "DELETE",
        _ => "UPDATE",
    };
    match supp_fb {
        None if op == LMN => None,
        None => Some((name, 1)),
        Some(s) if s & FB_K != 0 || s & FB_F == 0 => None,
        Some(_) => Some((name, 1)),
    }
}
