//! The SYS rows tracker: one committed transaction's row changes on `SYS.OBJ$`, `TABPART$`,
//! `TABCOMPART$`, `TABSUBPART$`, `USER$`, `COL$`, `CDEF$` and `CCOL$`, applied to the dictionary's SYS rows layer
//! (`sys.rs`) at the transaction's commit SCN (docs/dictionary.md, "Applied in the core").
//!
//! A change's columns are read by position from the SYS table's dictionary version (the layout the
//! export or the OLR checkpoint gives, owner `SYS`): a kept column is the layout's column of that
//! name, its value at index `segcol_no - 1` of the row image, decoded by the value code
//! (`values::render_number` / `render_text`). Its row is named by the ROWID the emitter renders
//! for it (`emit::rowid`).
//!
//! - insert: a new row from the commit SCN, when followed: an `OBJ$` row whose `OWNER#` is a
//!   followed `USER#`, a `TABPART$`/`TABCOMPART$` row whose `BO#` is a followed `OBJ$` row, a
//!   `TABSUBPART$` row whose `POBJ#` is a followed `TABCOMPART$` row, a `COL$`, `CDEF$` or `CCOL$`
//!   row whose `OBJ#` is a followed `OBJ$` row (rows valid at the commit SCN). `USER$` inserts are not followed: the
//!   captured owners are the export's.
//! - update: the followed row standing under that ROWID is closed at the SCN and its new state
//!   opened (the kept columns the after image holds replace theirs; NULL is null). An update that
//!   changes no kept column (`MTIME`, `STATUS`, ...) leaves the row as it is.
//! - delete: the row standing under that ROWID is closed.
//!
//! A row opened and changed again at the same SCN (inside one transaction) is changed in place, or
//! removed by its delete, so no row has an empty range. The changes apply table by table (`USER$`,
//! `OBJ$`, `TABCOMPART$`, `TABPART$`, `TABSUBPART$`, `COL$`, `CDEF$`, `CCOL$`), each table's in redo order, so a row's
//! parent is in before the row is checked against it. A change to a row not followed is counted
//! and not kept. A followed change that cannot be applied (a layout without a kept column, a value
//! that does not decode as its type, a compressed row image, a commit SCN before the row's start)
//! is a [`DdlProblem`] of kind `sys_rows`; never a panic, never dropped unsaid.

use std::collections::BTreeSet;
use std::sync::Arc;

use super::dictionary::{ColumnDef, TableVersion};
use super::emit::{error_text, rowid, DdlProblem};
use super::rows::{RowChange, RowImage, RowOp};
use super::sys::{col, SysRow, SysRows, SysTable, SysValue};
use crate::unsupported::COMPRESSED_ROW;
use crate::values::number::render_number;
use crate::values::text::render_text;
use crate::values::CharsetArg;

/// `ColumnDef.type_code` of NUMBER, VARCHAR2 and CHAR.
const NUMBER: i64 = 2;
const VARCHAR2: i64 = 1;
const CHAR: i64 = 96;

/// One row change of a SYS table, kept with its transaction until its commit applies it: the
/// table, its layout (the SYS table's dictionary version at the change's SCN) and the change.
#[derive(Clone, Debug)]
pub struct SysChange {
    pub table: SysTable,
    pub layout: Arc<TableVersion>,
    pub change: RowChange,
}

/// What applying a transaction's SYS row changes did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SysApplied {
    /// the tables (`OBJ#`) whose `OBJ$`, `COL$`, `CDEF$` or `CCOL$` rows (name, data object,
    /// columns, constraints) the applied changes opened or closed (an `OBJ$` change of a partition
    /// names the partition)
    pub tables_changed: BTreeSet<i64>,
    /// followed changes applied (counts.json `dictionary_rows`)
    pub applied: u64,
    /// changes to rows not followed (counted, not kept)
    pub not_followed: u64,
    /// followed changes that could not be applied (each a `DdlProblem`)
    pub problems: u64,
}

/// The followed table a change is about, for a problem's text: (obj, owner, name).
type Subject = Option<(i64, String, String)>;

/// Why a change was not applied: the followed table where known, and the reason.
struct NotApplied {
    subject: Subject,
    reason: String,
}

fn fail(subject: &Subject, reason: impl Into<String>) -> NotApplied {
    NotApplied { subject: subject.clone(), reason: reason.into() }
}

impl SysTable {
    /// The order a transaction's changes are applied in: parents before children.
    fn apply_rank(self) -> u8 {
        match self {
            SysTable::User => 0,
            SysTable::Obj => 1,
            SysTable::TabCompart => 2,
            SysTable::TabPart => 3,
            SysTable::TabSubpart => 4,
            SysTable::Col => 5,
            SysTable::Cdef => 6,
            SysTable::Ccol => 7,
        }
    }
}

impl SysRows {
    /// Apply one committed transaction's SYS row changes (in redo order) at its commit SCN;
    /// problems are added to `problems`.
    pub fn apply(&mut self, changes: &[SysChange], scn: i64, problems: &mut Vec<DdlProblem>) -> SysApplied {
        let mut order: Vec<&SysChange> = changes.iter().collect();
        order.sort_by_key(|c| c.table.apply_rank()); // stable: redo order inside a table
        let mut done = SysApplied::default();
        for change in order {
            let columns_of =
                matches!(change.table, SysTable::Obj | SysTable::Col | SysTable::Cdef | SysTable::Ccol)
                    .then(|| self.col_table(change))
                    .flatten();
            match self.apply_one(change, scn) {
                Ok(true) => {
                    done.applied += 1;
                    done.tables_changed.extend(columns_of);
                }
                Ok(false) => done.not_followed += 1,
                Err(why) => {
                    done.problems += 1;
                    problems.push(problem(change, scn, why));
                }
            }
        }
        done
    }

    /// The object (`OBJ#`) an `OBJ$`, `COL$`, `CDEF$` or `CCOL$` change is about: the inserted
    /// row's, or the row standing under the ROWID an update or delete names.
    fn col_table(&self, c: &SysChange) -> Option<i64> {
        let rc = &c.change;
        let value = match rc.op {
            RowOp::Insert => read(c.table, &c.layout, col::KEY, &rc.after).ok()??,
            RowOp::Update | RowOp::Delete => {
                let rowid = rowid(rc.dataobj, rc.bdba, rc.slot).ok()?;
                let &i = self.open[c.table.slot()].get(&rowid)?;
                self.rows[c.table.slot()].get(i)?.values.get(col::KEY)?.clone()?
            }
            RowOp::Ddl => return None,
        };
        match value {
            SysValue::Int(obj) => Some(obj),
            SysValue::Text(_) => None,
        }
    }

    /// `Ok(true)`: applied, `Ok(false)`: not followed.
    fn apply_one(&mut self, c: &SysChange, scn: i64) -> Result<bool, NotApplied> {
        if matches!(c.table, SysTable::Cdef | SysTable::Ccol) && !self.constraints {
            return Ok(false); // a document without constraint rows: not followed (docs/dictionary.md)
        }
        let rc = &c.change;
        let rowid = rowid(rc.dataobj, rc.bdba, rc.slot)
            .map_err(|e| fail(&None, format!("its ROWID does not render: {}", error_text(&e))))?;
        match rc.op {
            RowOp::Insert => self.insert(c, rowid, scn),
            RowOp::Update => self.update(c, &rowid, scn),
            RowOp::Delete => self.delete(c.table, &rowid, scn),
            RowOp::Ddl => Ok(false), // no row change of a table
        }
    }

    fn insert(&mut self, c: &SysChange, rowid: String, scn: i64) -> Result<bool, NotApplied> {
        let table = c.table;
        let image = &c.change.after;
        let parent_column = match table {
            SysTable::User => return Ok(false),
            SysTable::Obj => col::OWNER,
            SysTable::Col | SysTable::Cdef | SysTable::Ccol => col::KEY,
            _ => col::PARENT,
        };
        let parent = match read(table, &c.layout, parent_column, image) {
            Ok(Some(SysValue::Int(v))) => Some(v),
            Ok(_) => None, // NULL (or absent: trailing NULL columns are not stored)
            Err(reason) => {
                // which rows it belongs to cannot be told: reported, never dropped unsaid, naming
                // the table through the partition's own OBJ$ row when its OBJ# reads
                let own = match read(table, &c.layout, col::KEY, image) {
                    Ok(Some(SysValue::Int(obj))) if table != SysTable::Obj => self.object_subject(obj, scn),
                    _ => None,
                };
                return Err(fail(&own, reason));
            }
        };
        let Some(parent) = parent else { return Ok(false) };
        let parent_table = match table {
            SysTable::Obj => SysTable::User,
            SysTable::TabSubpart => SysTable::TabCompart,
            _ => SysTable::Obj, // TABPART$, TABCOMPART$: BO#; COL$, CDEF$, CCOL$: OBJ#
        };
        if self.row_at(parent_table, parent, scn).is_none() {
            return Ok(false);
        }
        let mut values = Vec::with_capacity(table.columns().len());
        let mut failed = None;
        for i in 0..table.columns().len() {
            match read(table, &c.layout, i, image) {
                Ok(v) => values.push(v),
                Err(reason) => {
                    failed.get_or_insert(reason);
                    values.push(None);
                }
            }
        }
        if let Some(reason) = failed {
            return Err(fail(&self.subject(table, &values, scn), reason));
        }
        if compressed(&c.change) {
            return Err(fail(&self.subject(table, &values, scn), "a compressed row image (not read)"));
        }
        if self.open[table.slot()].contains_key(&rowid) {
            let subject = self.subject(table, &values, scn);
            return Err(fail(
                &subject,
                format!("a row of ROWID {rowid} stands already (its delete was not seen)"),
            ));
        }
        self.rows[table.slot()].push(SysRow { rowid, valid_from_scn: scn, valid_to_scn: None, values });
        self.index_row(table, self.rows[table.slot()].len() - 1);
        Ok(true)
    }

    fn update(&mut self, c: &SysChange, rowid: &str, scn: i64) -> Result<bool, NotApplied> {
        let table = c.table;
        let Some(&i) = self.open[table.slot()].get(rowid) else { return Ok(false) };
        let Some(old) = self.rows[table.slot()].get(i).cloned() else { return Ok(false) };
        let subject = self.subject(table, &old.values, scn);
        if compressed(&c.change) {
            return Err(fail(&subject, "a compressed row image (not read)"));
        }
        let mut values = old.values.clone();
        for (k, value) in values.iter_mut().enumerate() {
            if let Some(v) =
                read_present(table, &c.layout, k, &c.change.after).map_err(|r| fail(&subject, r))?
            {
                *value = v;
            }
        }
        if values == old.values {
            return Ok(true); // no kept column changed
        }
        self.check_start(&old, scn).map_err(|r| fail(&subject, r))?;
        self.unindex_row(table, i);
        if old.valid_from_scn == scn {
            self.rows[table.slot()][i].values = values; // opened by this transaction
            self.index_row(table, i);
        } else {
            self.rows[table.slot()][i].valid_to_scn = Some(scn);
            self.index_row(table, i);
            let row = SysRow { rowid: old.rowid, valid_from_scn: scn, valid_to_scn: None, values };
            self.rows[table.slot()].push(row);
            self.index_row(table, self.rows[table.slot()].len() - 1);
        }
        Ok(true)
    }

    fn delete(&mut self, table: SysTable, rowid: &str, scn: i64) -> Result<bool, NotApplied> {
        let Some(&i) = self.open[table.slot()].get(rowid) else { return Ok(false) };
        let Some(old) = self.rows[table.slot()].get(i).cloned() else { return Ok(false) };
        let subject = self.subject(table, &old.values, scn);
        self.check_start(&old, scn).map_err(|r| fail(&subject, r))?;
        if old.valid_from_scn == scn {
            self.remove_row(table, i); // opened by this transaction: never was
        } else {
            self.unindex_row(table, i);
            self.rows[table.slot()][i].valid_to_scn = Some(scn);
            self.index_row(table, i);
        }
        Ok(true)
    }

    fn check_start(&self, row: &SysRow, scn: i64) -> Result<(), String> {
        if scn < row.valid_from_scn {
            return Err(format!("the commit SCN is before the row's start (SCN {})", row.valid_from_scn));
        }
        Ok(())
    }

    /// A partition's or subpartition's table by its own `OBJ$` row (which holds the table's name
    /// and owner): (obj, owner, name).
    fn object_subject(&self, obj: i64, scn: i64) -> Subject {
        let row = self.row_near(SysTable::Obj, obj, scn)?;
        let owner = row.int(col::OWNER).and_then(|o| self.row_near(SysTable::User, o, scn));
        let owner = owner.and_then(|u| u.text(col::USER_NAME)).unwrap_or("?").to_owned();
        Some((obj, owner, row.text(col::NAME)?.to_owned()))
    }

    /// The followed table a row of `table` with `values` is about: (obj, owner, name).
    fn subject(&self, table: SysTable, values: &[Option<SysValue>], scn: i64) -> Subject {
        let int = |i: usize| match values.get(i) {
            Some(Some(SysValue::Int(v))) => Some(*v),
            _ => None,
        };
        let owner_of = |owner: Option<i64>| -> String {
            owner
                .and_then(|o| self.row_near(SysTable::User, o, scn))
                .and_then(|u| u.text(col::USER_NAME))
                .map_or_else(|| "?".to_owned(), str::to_owned)
        };
        let table_row = |obj: i64| -> Subject {
            let row = self.row_near(SysTable::Obj, obj, scn)?;
            Some((obj, owner_of(row.int(col::OWNER)), row.text(col::NAME)?.to_owned()))
        };
        match table {
            SysTable::Obj => {
                let name = match values.get(col::NAME) {
                    Some(Some(SysValue::Text(t))) => t.clone(),
                    _ => return None,
                };
                Some((int(col::KEY)?, owner_of(int(col::OWNER)), name))
            }
            SysTable::TabPart | SysTable::TabCompart => table_row(int(col::PARENT)?),
            SysTable::Col | SysTable::Cdef | SysTable::Ccol => table_row(int(col::KEY)?),
            SysTable::TabSubpart => {
                let composite = self.row_near(SysTable::TabCompart, int(col::PARENT)?, scn)?;
                table_row(composite.int(col::PARENT)?)
            }
            SysTable::User => match values.get(col::USER_NAME) {
                Some(Some(SysValue::Text(t))) => Some((int(col::KEY)?, t.clone(), t.clone())),
                _ => None,
            },
        }
    }
}

fn compressed(rc: &RowChange) -> bool {
    rc.after.contains_key(&COMPRESSED_ROW) || rc.before.contains_key(&COMPRESSED_ROW)
}

/// The layout's column for kept column `i` of `table`.
fn layout_column(table: SysTable, layout: &TableVersion, i: usize) -> Result<&ColumnDef, String> {
    let name = table.columns().get(i).map_or("?", |c| c.name);
    layout
        .columns
        .iter()
        .find(|c| &*c.name == name)
        .ok_or_else(|| format!("the layout of SYS.{} has no column {name}", table.name()))
}

/// Kept column `i` of an insert's image (absent: NULL, as trailing NULL columns are not stored).
fn read(
    table: SysTable,
    layout: &TableVersion,
    i: usize,
    image: &RowImage,
) -> Result<Option<SysValue>, String> {
    Ok(read_present(table, layout, i, image)?.flatten())
}

/// Kept column `i` of an image: `None` when the image does not hold it.
fn read_present(
    table: SysTable,
    layout: &TableVersion,
    i: usize,
    image: &RowImage,
) -> Result<Option<Option<SysValue>>, String> {
    let column = layout_column(table, layout, i)?;
    let index = i32::try_from(column.segcol_no - 1).map_err(|_| "a segcol# out of range".to_owned())?;
    let Some(value) = image.get(&index) else { return Ok(None) };
    let Some(data) = value else { return Ok(Some(None)) };
    let text = table.columns().get(i).is_some_and(|c| c.text);
    decode(column, text, data).map(|v| Some(Some(v)))
}

/// One kept value: a NUMBER column's bytes as a 64-bit integer, a character column's as text.
fn decode(column: &ColumnDef, text: bool, data: &[u8]) -> Result<SysValue, String> {
    let mut out = String::new();
    let bad = |e: crate::Error| format!("column {}: {}", column.name, error_text(&e));
    if text {
        if !matches!(column.type_code, VARCHAR2 | CHAR) {
            return Err(format!(
                "column {} has type code {}, not a character type",
                column.name, column.type_code
            ));
        }
        let charset = column.charset.as_deref().filter(|c| !c.is_empty()).unwrap_or("AL32UTF8");
        render_text(data, CharsetArg::Name(charset), &mut out).map_err(bad)?;
        return Ok(SysValue::Text(out));
    }
    if column.type_code != NUMBER {
        return Err(format!("column {} has type code {}, not NUMBER", column.name, column.type_code));
    }
    render_number(data, &mut out).map_err(bad)?;
    out.parse::<i64>()
        .map(SysValue::Int)
        .map_err(|_| format!("column {}: NUMBER {out} is not a 64-bit integer", column.name))
}

fn problem(c: &SysChange, scn: i64, why: NotApplied) -> DdlProblem {
    let rc = &c.change;
    let table = format!("SYS.{}", c.table.name());
    let rowid = rowid(rc.dataobj, rc.bdba, rc.slot).unwrap_or_default();
    let about = match &why.subject {
        Some((_, owner, name)) => format!(" of {owner}.{name}"),
        None => String::new(),
    };
    DdlProblem {
        kind: "sys_rows".into(),
        scn,
        obj: why.subject.as_ref().map(|s| s.0),
        schema: why.subject.as_ref().map_or_else(String::new, |s| s.1.clone()),
        text: format!("{} {table} ROWID {rowid}", rc.op.as_str()),
        message: format!(
            "{table}: {} of ROWID {rowid}{about} at SCN {scn} not applied: {}",
            rc.op.as_str().to_lowercase(),
            why.reason
        ),
    }
}
