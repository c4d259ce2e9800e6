//! Row changes: a committed transaction's change events grouped into logical row operations
//! (Python `redo_lib/assembly/rows.py` `iter_row_changes`, ported rule for rule).
//!
//! Consecutive pairs of one row (same object and supplemental row id) accumulate until the row's
//! first (F) and last (L) pieces are both in (redo-format §6.5, §6.6); the group is an INSERT if it
//! started with 11.2, a DELETE if it started with 11.3, else an UPDATE (a group that mixes becomes an
//! UPDATE). Cluster-key pieces (K) are no row data. 11.11 (QMI), 19.1 (direct load) and 11.12 (QMD)
//! give one change per row in slot order (contract rule 4). A pair without a supplemental block is
//! a complete single-piece row change. Supplemental columns fill the values the pieces did not
//! carry, after the group is complete (the key of updates and deletes, contract rule 12).
//!
//! Images are maps column index (segcol# - 1) -> value (`None`: SQL NULL); a column not in the map
//! is not in the image. Python's dicts are read sorted wherever their order shows, so ordered maps.

use std::collections::{BTreeMap, BTreeSet};

use crate::assembly::ChangeEvent;
use crate::events::kind;
use crate::events::row_ops::*;

/// redo ops whose supplemental columns are after values / before values (§6.6.2)
const SUPP_AFTER: [i64; 4] = [IRP, LKR, URP, LMN];
/// CFA: oracdc's expectations (not OLR's rule), as in Python
const SUPP_BEFORE: [i64; 5] = [DRP, URP, ORP, LMN, CFA];

/// An image: column index -> value (`None`: SQL NULL).
pub type RowImage = BTreeMap<i32, Option<Vec<u8>>>;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RowOp {
    Insert,
    Update,
    Delete,
    Ddl,
}

impl RowOp {
    /// Python `RowOp.value`.
    pub fn as_str(self) -> &'static str {
        match self {
            RowOp::Insert => "INSERT",
            RowOp::Update => "UPDATE",
            RowOp::Delete => "DELETE",
            RowOp::Ddl => "DDL",
        }
    }
}

/// One logical row operation, at the position of its first piece (Python `RowChange`; `time` in
/// microseconds since 1970-01-01, as in the events).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RowChange {
    pub op: RowOp,
    pub obj: i64,
    pub dataobj: i64,
    pub bdba: i64,
    pub slot: i64,
    pub before: RowImage,
    pub after: RowImage,
    /// column indexes the statement set (redo after image of updates), first-seen order
    pub changed: Vec<i32>,
    /// column indexes that came from supplemental logging, ascending
    pub logged: Vec<i32>,
    pub thread: i64,
    pub seq: i64,
    pub block: i64,
    pub offset: i64,
    pub scn: i64,
    pub subscn: i64,
    pub time: i64,
    pub ddl_text: String,
    pub ddl_schema: String,
}

impl RowChange {
    fn at(op: RowOp, e: &ChangeEvent) -> RowChange {
        RowChange {
            op,
            obj: e.obj,
            dataobj: e.dataobj,
            bdba: e.bdba,
            slot: e.row_slot,
            before: RowImage::new(),
            after: RowImage::new(),
            changed: Vec::new(),
            logged: Vec::new(),
            thread: e.thread,
            seq: e.seq,
            block: e.block,
            offset: e.offset,
            scn: e.scn,
            subscn: e.subscn,
            time: e.time,
            ddl_text: String::new(),
            ddl_schema: String::new(),
        }
    }
}

/// Python `_Group`: the pieces of one row so far.
struct Group {
    change: RowChange,
    supp_before: RowImage,
    supp_after: RowImage,
    logged: BTreeSet<i32>,
    row_id: (i64, i64),
    flags: i64,
}

fn merge(image: &mut RowImage, e: &ChangeEvent, piece: &[(i32, Option<(usize, usize)>)]) {
    for &(col, value) in piece {
        image.insert(col, value.map(|s| e.bytes(s).to_vec()));
    }
}

impl Group {
    fn new(e: &ChangeEvent) -> Group {
        let op = match e.redo_op {
            IRP => RowOp::Insert,
            DRP => RowOp::Delete,
            _ => RowOp::Update,
        };
        Group {
            change: RowChange::at(op, e),
            supp_before: RowImage::new(),
            supp_after: RowImage::new(),
            logged: BTreeSet::new(),
            row_id: (e.supp_bdba, e.supp_slot),
            flags: 0,
        }
    }

    fn add(&mut self, e: &ChangeEvent) {
        let op = e.redo_op;
        let c = &mut self.change;
        if (c.op == RowOp::Insert && matches!(op, DRP | URP | ORP | CFA))
            || (c.op == RowOp::Delete && matches!(op, IRP | URP | ORP | CFA))
        {
            c.op = RowOp::Update;
        }
        merge(&mut c.before, e, &e.before);
        merge(&mut c.after, e, &e.after);
        if op == URP {
            for &(col, _) in &e.after {
                if !c.changed.contains(&col) {
                    c.changed.push(col);
                }
            }
        }
        // dict(event.supp_columns): a later duplicate wins
        let mut supp = RowImage::new();
        merge(&mut supp, e, &e.supp_columns);
        self.logged.extend(supp.keys());
        if SUPP_AFTER.contains(&op) {
            self.supp_after.extend(supp.iter().map(|(k, v)| (*k, v.clone())));
        }
        if SUPP_BEFORE.contains(&op) {
            self.supp_before.extend(supp);
        }
        if op == IRP && e.fb & FB_F != 0 {
            // the head piece of an inserted row gives the ROWID (§6.6.1)
            c.bdba = e.bdba;
            c.slot = e.row_slot;
        }
        if c.dataobj == 0 && e.dataobj != 0 {
            c.dataobj = e.dataobj;
        }
    }

    fn finish(self) -> RowChange {
        let mut c = self.change;
        // supplemental values fill only columns the pieces did not carry
        for (col, value) in self.supp_before {
            c.before.entry(col).or_insert(value);
        }
        for (col, value) in self.supp_after {
            c.after.entry(col).or_insert(value);
        }
        if c.op != RowOp::Insert && self.row_id.0 != 0 {
            (c.bdba, c.slot) = self.row_id;
        }
        c.logged = self.logged.into_iter().collect();
        c
    }
}

fn multi(e: &ChangeEvent, op: RowOp, out: &mut impl FnMut(RowChange)) {
    for (slot, values) in &e.rows {
        let image: RowImage =
            values.iter().enumerate().map(|(i, v)| (i as i32, v.map(|s| e.bytes(s).to_vec()))).collect();
        let mut rc = RowChange::at(op, e);
        rc.slot = i64::from(*slot);
        if op == RowOp::Delete {
            rc.before = image;
        } else {
            rc.after = image;
        }
        out(rc);
    }
}

/// Python `iter_row_changes` as a push machine: feed a committed transaction's events in redo order
/// with [`RowChanges::push`], then [`RowChanges::finish`]; each row change goes to `out` as soon
/// as it is complete. `counters` are `cluster_key_pieces` and `incomplete_row_groups`.
#[derive(Default)]
pub struct RowChanges {
    group: Option<Group>,
    pub cluster_key_pieces: u64,
    pub incomplete_row_groups: u64,
}

impl RowChanges {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn push(&mut self, e: &ChangeEvent, out: &mut impl FnMut(RowChange)) {
        if e.kind == kind::DDL {
            let mut rc = RowChange::at(RowOp::Ddl, e);
            (rc.bdba, rc.slot) = (0, 0);
            rc.ddl_text.clone_from(&e.ddl_text);
            rc.ddl_schema.clone_from(&e.ddl_schema);
            out(rc);
            return;
        }
        let op = e.redo_op;
        match op {
            QMI | DIRECT_LOAD => return multi(e, RowOp::Insert, out),
            QMD => return multi(e, RowOp::Delete, out),
            _ if !GROUPED.contains(&op) => return, // lone undo, lock row, anything without row data
            _ => {}
        }
        if (e.fb | e.undo_fb) & FB_K != 0 || e.supp_fb.is_some_and(|fb| fb & FB_K != 0) {
            self.cluster_key_pieces += 1;
            return;
        }
        let Some(supp_fb) = e.supp_fb else {
            if let Some(group) = self.group.take() {
                out(group.finish()); // mixed logging inside one transaction
            }
            let mut single = Group::new(e);
            single.add(e);
            if op != LMN {
                out(single.finish());
            }
            return;
        };
        if let Some(group) = self.group.take() {
            if group.change.obj != e.obj || group.row_id != (e.supp_bdba, e.supp_slot) {
                self.incomplete_row_groups += 1;
                out(group.finish());
            } else {
                self.group = Some(group);
            }
        }
        let group = self.group.get_or_insert_with(|| Group::new(e));
        group.add(e);
        group.flags |= supp_fb;
        // complete once its first (F) and last (L) pieces are both in, in whatever order they came
        if group.flags & FB_F != 0 && group.flags & FB_L != 0 {
            if let Some(group) = self.group.take() {
                out(group.finish());
            }
        }
    }

    pub fn finish(&mut self, out: &mut impl FnMut(RowChange)) {
        if let Some(group) = self.group.take() {
            self.incomplete_row_groups += 1;
            out(group.finish());
        }
    }
}
