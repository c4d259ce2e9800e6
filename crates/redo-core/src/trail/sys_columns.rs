//! A table's columns from its `SYS.COL$` rows (docs/dictionary.md, "The SYS rows"): the stored
//! columns of a table at an SCN as the dictionary's model has them ([`ColumnDef`]), how they
//! differ from another reading of the same table (the version the DDL text gave), and the versions
//! whose columns they give where the two differ ([`columns_from_sys`]: the `COL$` rows win).
//!
//! Why: a column DDL changes `COL$` rows inside its transaction (ADD COLUMN inserts one, RENAME
//! COLUMN updates `NAME`, DROP COLUMN deletes it, SET UNUSED sets `PROPERTY` bits and renames it,
//! MODIFY updates `TYPE#` / `LENGTH` / `PRECISION#` / `SCALE` / `NULL$`); those rows, not the text
//! the user typed, are what Oracle did. Where a table's `COL$` rows and its version disagree, the
//! dictionary resolves the table to a version with the `COL$` columns (`Dictionary::lookup`), and
//! the emitter reports the disagreement at the commit that made it (docs/dictionary.md, "Columns
//! from COL$"). The rest of the version (name, keys, storage) stays the text's: the keys are
//! carried over by name, else by `SEGCOL#` (a renamed key column).
//!
//! The rule, the same as the OLR loader's (`redo_lib/dictionary/load.py`, `_olr_column`): a row with
//! `SEGCOL#` 0 has no storage (virtual) and is left out; `NULL$` 0 is nullable; `PROPERTY` bit
//! 0x20 (hidden) or 0x8000 (unused) makes a hidden column; a character column's (`TYPE#` 1, 96, 8,
//! 112) `CHARSETFORM` 1 is the database character set, 2 the national one.

use std::collections::HashMap;
use std::sync::Arc;

use super::dictionary::{choose_key, choose_key_kind, ColumnDef, Constraint, KeyKind, TableVersion};
use super::sys::{col, SysRow, SysRows, SysTable, CON_PRIMARY, CON_UNIQUE, FLAG_RECYCLED, TYPE_TABLE};

/// `COL$.PROPERTY` bits of a hidden and of an unused (`SET UNUSED`) column.
pub const PROPERTY_HIDDEN: i64 = 0x20;
pub const PROPERTY_UNUSED: i64 = 0x8000;
/// `COL$.TYPE#` of the character types: VARCHAR2, CHAR, LONG, CLOB.
const CHARACTER_TYPES: [i64; 4] = [1, 96, 8, 112];

impl SysRows {
    /// The stored columns of table `obj` at `scn` from its `COL$` rows, in `SEGCOL#` order (`None`:
    /// no `COL$` row of `obj` is valid then, so they do not describe it). A row whose kept column
    /// is missing is an error naming the table, the column and the SCN.
    pub fn columns_at(
        &self,
        obj: i64,
        scn: i64,
        db_charset: &str,
        national_charset: &str,
    ) -> Result<Option<Vec<ColumnDef>>, String> {
        let rows: Vec<_> = self.versions(SysTable::Col, obj).filter(|r| r.covers(scn)).collect();
        if rows.is_empty() {
            return Ok(None);
        }
        let mut out = Vec::with_capacity(rows.len());
        for row in rows {
            let name = row.text(col::COL_NAME).ok_or_else(|| {
                format!("a COL$ row of object {obj} at SCN {scn} (ROWID {}) has no NAME", row.rowid)
            })?;
            let need = |i: usize| {
                row.int(i).ok_or_else(|| {
                    let column = SysTable::Col.columns().get(i).map_or("?", |c| c.name);
                    format!("the COL$ row of column {name} of object {obj} at SCN {scn} has no {column}")
                })
            };
            let segcol_no = need(col::SEGCOL_NO)?;
            if segcol_no == 0 {
                continue; // virtual: no storage
            }
            let type_code = need(col::COL_TYPE)?;
            let property = row.int(col::PROPERTY).unwrap_or(0);
            let charset = match row.int(col::CHARSET_FORM) {
                Some(1) if CHARACTER_TYPES.contains(&type_code) => Some(db_charset.to_owned()),
                Some(2) if CHARACTER_TYPES.contains(&type_code) => Some(national_charset.to_owned()),
                _ => None,
            };
            out.push(ColumnDef {
                segcol_no,
                name: Arc::from(name),
                type_code,
                charset,
                nullable: row.int(col::NULLS).unwrap_or(0) == 0,
                hidden: property & (PROPERTY_HIDDEN | PROPERTY_UNUSED) != 0,
            });
        }
        out.sort_by_key(|c| c.segcol_no);
        Ok(Some(out))
    }
}

/// How `sys` (the columns from `COL$`) differs from `text` (the version the DDL text gave), one
/// line per `SEGCOL#` that differs (empty: they agree). A character set is compared only when both
/// name one.
pub fn column_differences(text: &[ColumnDef], sys: &[ColumnDef]) -> Vec<String> {
    let mut segcols: Vec<i64> = text.iter().chain(sys).map(|c| c.segcol_no).collect();
    segcols.sort_unstable();
    segcols.dedup();
    let find = |list: &[ColumnDef], n: i64| list.iter().find(|c| c.segcol_no == n).cloned();
    let mut out = Vec::new();
    for n in segcols {
        match (find(text, n), find(sys, n)) {
            (Some(t), None) => out.push(format!("SEGCOL# {n}: {} only in the DDL text's version", t.name)),
            (None, Some(s)) => out.push(format!("SEGCOL# {n}: {} only in COL$", s.name)),
            (Some(t), Some(s)) => {
                let mut what = Vec::new();
                if t.name != s.name {
                    what.push(format!("name {} / {}", t.name, s.name));
                }
                if t.type_code != s.type_code {
                    what.push(format!("type# {} / {}", t.type_code, s.type_code));
                }
                if t.nullable != s.nullable {
                    what.push(format!("nullable {} / {}", t.nullable, s.nullable));
                }
                if t.hidden != s.hidden {
                    what.push(format!("hidden {} / {}", t.hidden, s.hidden));
                }
                if let (Some(a), Some(b)) = (&t.charset, &s.charset) {
                    if a != b {
                        what.push(format!("charset {a} / {b}"));
                    }
                }
                if !what.is_empty() {
                    out.push(format!("SEGCOL# {n} {}: {} (DDL text / COL$)", s.name, what.join(", ")));
                }
            }
            (None, None) => {}
        }
    }
    out
}

/// A version whose columns a table's `COL$` rows give ([`columns_from_sys`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SysVersion {
    pub version: Arc<TableVersion>,
    /// where its key comes from when the SYS rows chose it: its `CDEF$` rows (rule 12 over its
    /// primary and unique constraints), or every column because none of the key columns of the
    /// version it stands for is left; `None`: that version's key carried over (same kind)
    pub key_kind: Option<KeyKind>,
}

/// Where a table's SYS rows (`COL$`, `CDEF$`) and its version disagree from `scn` on: the rows win.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ColumnDisagreement {
    pub obj: i64,
    pub owner: String,
    pub table: String,
    pub scn: i64,
    /// [`column_differences`]' lines and a key line, or why the rows could not be read (then the
    /// version stands)
    pub differences: Vec<String>,
}

/// A table at an SCN as its SYS rows have it: its stored columns (`COL$`) and, when it has
/// `CDEF$` rows, its key.
struct SysShape {
    columns: Vec<ColumnDef>,
    key: Option<(KeyKind, Vec<String>)>,
    /// (owner, name) from its `OBJ$` row (a table not in the recycle bin) and its owner's `USER$` row
    name: Option<(String, String)>,
}

impl SysShape {
    /// `Ok(None)`: no `COL$` row of `obj` at `scn`.
    fn at(sys: &SysRows, obj: i64, scn: i64, db: &str, national: &str) -> Result<Option<SysShape>, String> {
        let Some(columns) = sys.columns_at(obj, scn, db, national)? else { return Ok(None) };
        let key = sys.key_at(obj, scn, &columns);
        Ok(Some(SysShape { columns, key, name: sys.table_name_at(obj, scn) }))
    }

    /// How `version` differs (a name line, column lines, then a key line).
    fn differences(&self, version: &TableVersion) -> Vec<String> {
        let mut out = Vec::new();
        if let Some((owner, name)) = &self.name {
            if *owner != version.owner || *name != version.name {
                out.push(format!(
                    "name {}.{} / {owner}.{name} (DDL text / OBJ$)",
                    version.owner, version.name
                ));
            }
        }
        out.extend(column_differences(&version.columns, &self.columns));
        if let Some((_, key)) = &self.key {
            if *key != version.key_columns {
                out.push(format!(
                    "key {} / {} (DDL text / CDEF$)",
                    version.key_columns.join(", "),
                    key.join(", ")
                ));
            }
        }
        out
    }
}

impl SysRows {
    /// Table `obj`'s (owner, name) at `scn`: its `OBJ$` row, a table (`TYPE#` 2) not in the recycle
    /// bin, and its owner's `USER$` row.
    pub fn table_name_at(&self, obj: i64, scn: i64) -> Option<(String, String)> {
        let row = self.row_at(SysTable::Obj, obj, scn)?;
        if row.int(col::TYPE) != Some(TYPE_TABLE) || row.int(col::FLAGS).unwrap_or(0) & FLAG_RECYCLED != 0 {
            return None;
        }
        let owner = self.row_at(SysTable::User, row.int(col::OWNER)?, scn)?.text(col::USER_NAME)?;
        Some((owner.to_owned(), row.text(col::NAME)?.to_owned()))
    }

    /// Table `obj`'s key at `scn` from its `CDEF$` / `CCOL$` rows (rule 12 over its primary and
    /// unique constraints, each named `CON#<n>` as the OLR loader names them, their columns by
    /// `INTCOL#` among `columns`' `COL$` rows; a table without any: every column); `None` when the
    /// constraints are not followed (a document without a `CDEF$` array: the keys are not described).
    pub fn key_at(&self, obj: i64, scn: i64, columns: &[ColumnDef]) -> Option<(KeyKind, Vec<String>)> {
        if !self.follows_constraints() {
            return None;
        }
        let names: HashMap<i64, &str> = self
            .versions(SysTable::Col, obj)
            .filter(|r| r.covers(scn))
            .filter_map(|r| Some((r.int(col::INTCOL_NO)?, r.text(col::COL_NAME)?)))
            .collect();
        let mut constraints = Vec::new();
        for cdef in self.versions(SysTable::Cdef, obj).filter(|r| r.covers(scn)) {
            let (Some(con), Some(kind)) = (cdef.int(col::CON_NO), cdef.int(col::CON_TYPE)) else { continue };
            if kind != CON_PRIMARY && kind != CON_UNIQUE {
                continue;
            }
            let mut intcols: Vec<i64> = self
                .versions(SysTable::Ccol, obj)
                .filter(|r| r.covers(scn) && r.int(col::CON_NO) == Some(con))
                .filter_map(|r| r.int(col::CON_INTCOL))
                .collect();
            intcols.sort_unstable();
            let cols = intcols
                .iter()
                .map(|i| names.get(i).map_or_else(|| format!("INTCOL#{i}"), |n| (*n).to_owned()));
            constraints.push(Constraint::new(kind == CON_PRIMARY, format!("CON#{con:010}"), cols.collect()));
        }
        Some(choose_key_kind(columns, constraints))
    }
}

/// The versions of table `obj` (its own `versions`, by SCN) whose columns (and key) its SYS rows
/// give, one per SCN range where those rows and the version valid then disagree, and the
/// disagreements (by the SCN each range starts at). Ranges are cut at every SCN a `COL$` / `CDEF$`
/// / `CCOL$` row of `obj` or a version starts or ends at. A DDL's text opens its version at the
/// DDL's own SCN and its rows change at its commit, a little later: a version that starts where no
/// row does and agrees with them at their next change is the text running ahead of its own commit,
/// not a disagreement (no other transaction changes the table in between: the DDL holds its lock).
/// The key: the `CDEF$` rows' when the table has any, else the version's carried over.
pub fn columns_from_sys(
    obj: i64,
    versions: &[Arc<TableVersion>],
    sys: &SysRows,
    db_charset: &str,
    national_charset: &str,
) -> (Vec<SysVersion>, Vec<ColumnDisagreement>) {
    let row_bounds = scn_bounds(
        [SysTable::Obj, SysTable::Col, SysTable::Cdef, SysTable::Ccol]
            .into_iter()
            .flat_map(|t| sys.versions(t, obj))
            .map(|r| (r.valid_from_scn, r.valid_to_scn)),
    );
    if sys.versions(SysTable::Col, obj).next().is_none() || versions.is_empty() {
        return (Vec::new(), Vec::new());
    }
    let bounds = scn_bounds(
        versions
            .iter()
            .map(|v| (v.valid_from_scn, v.valid_to_scn))
            .chain(row_bounds.iter().map(|&b| (b, None))),
    );
    let shape_at = |scn: i64| SysShape::at(sys, obj, scn, db_charset, national_charset);
    let (mut out, mut said) = (Vec::new(), Vec::new());
    for (i, &from) in bounds.iter().enumerate() {
        let Some(version) = versions.iter().find(|v| v.covers(from)) else { continue };
        if row_bounds.binary_search(&from).is_err() {
            let next = row_bounds.iter().find(|&&b| b > from).copied();
            let ahead = next.filter(|&b| version.covers(b)).is_some_and(
                |b| matches!(shape_at(b), Ok(Some(shape)) if shape.differences(version).is_empty()),
            );
            if ahead {
                continue;
            }
        }
        let disagreement = |differences| ColumnDisagreement {
            obj,
            owner: version.owner.clone(),
            table: version.name.clone(),
            scn: from,
            differences,
        };
        let shape = match shape_at(from) {
            Ok(Some(shape)) => shape,
            Ok(None) => continue,
            Err(why) => {
                said.push(disagreement(vec![why]));
                continue;
            }
        };
        let differences = shape.differences(version);
        if differences.is_empty() {
            continue;
        }
        said.push(disagreement(differences));
        let (key_kind, key_columns) = match shape.key {
            Some((kind, key)) => (Some(kind), key),
            None => match carried_keys(version, &shape.columns, sys, from) {
                (key, true) => (Some(KeyKind::All), key),
                (key, false) => (None, key),
            },
        };
        let (owner, name) = shape.name.unwrap_or_else(|| (version.owner.clone(), version.name.clone()));
        let version = Arc::new(TableVersion {
            owner,
            name,
            columns: shape.columns,
            key_columns,
            valid_from_scn: from,
            valid_to_scn: bounds.get(i + 1).copied(),
            ..(**version).clone()
        });
        out.push(SysVersion { version, key_kind });
    }
    (out, said)
}

/// The versions of table `obj`, which the dictionary has none of (created after the export, its
/// CREATE TABLE text not applied: one the parser could not read), from its SYS rows alone: on each
/// SCN range where its `OBJ$` row is a table (`TYPE#` 2) not in the recycle bin, its owner's
/// `USER$` row is known and it has `COL$` rows: its name, data object, columns and key (its
/// `CDEF$` rows', else every column). No storage attributes (`TAB$` is not followed: a heap table
/// in a clear tablespace) and no supplemental logging of its own. Each range is reported (a
/// [`ColumnDisagreement`] saying so).
pub fn tables_from_sys(
    obj: i64,
    sys: &SysRows,
    db_charset: &str,
    national_charset: &str,
) -> (Vec<SysVersion>, Vec<ColumnDisagreement>) {
    let (mut out, mut said) = (Vec::new(), Vec::new());
    if sys.versions(SysTable::Col, obj).next().is_none() {
        return (out, said);
    }
    let bounds = scn_bounds(
        [SysTable::Obj, SysTable::Col, SysTable::Cdef, SysTable::Ccol]
            .into_iter()
            .flat_map(|t| sys.versions(t, obj))
            .map(|r| (r.valid_from_scn, r.valid_to_scn)),
    );
    for (i, &from) in bounds.iter().enumerate() {
        let Some((owner, name)) = sys.table_name_at(obj, from) else { continue };
        let dataobj = sys.row_at(SysTable::Obj, obj, from).and_then(|r| r.int(col::DATAOBJ));
        let disagreement = |differences| ColumnDisagreement {
            obj,
            owner: owner.clone(),
            table: name.clone(),
            scn: from,
            differences,
        };
        let shape = match SysShape::at(sys, obj, from, db_charset, national_charset) {
            Ok(Some(shape)) => shape,
            Ok(None) => continue,
            Err(why) => {
                said.push(disagreement(vec![why]));
                continue;
            }
        };
        let (kind, key_columns) = match shape.key {
            Some(key) => key,
            None => choose_key_kind(&shape.columns, Vec::new()),
        };
        said.push(disagreement(vec![format!(
            "only in the SYS rows: {} columns, key {} ({}); no version from a DDL text",
            shape.columns.len(),
            key_columns.join(", "),
            kind.as_str()
        )]));
        let version = TableVersion {
            obj,
            dataobj,
            owner,
            name,
            columns: shape.columns,
            key_columns,
            valid_from_scn: from,
            valid_to_scn: bounds.get(i + 1).copied(),
            partitions: Vec::new(),
            encrypted: false,
            compress_for: None,
            iot_type: None,
            supplemental_all: false,
        };
        out.push(SysVersion { version: Arc::new(version), key_kind: Some(kind) });
    }
    (out, said)
}

/// Every SCN a range of `ranges` starts or ends at, ascending, once each.
fn scn_bounds(ranges: impl Iterator<Item = (i64, Option<i64>)>) -> Vec<i64> {
    let mut out: Vec<i64> = ranges.flat_map(|(from, to)| std::iter::once(from).chain(to)).collect();
    out.sort_unstable();
    out.dedup();
    out
}

/// The version's key columns among `columns`, in column order: by name, else (a key column
/// renamed) the column whose `COL$` row is the one that held the key column's name just before
/// `from`, under the same ROWID (a dropped column's row is gone; the columns after it moved down,
/// so a `SEGCOL#` alone would name another column). None left: every column, as for a table without
/// a key (rule 12), and `true`.
fn carried_keys(
    version: &TableVersion,
    columns: &[ColumnDef],
    sys: &SysRows,
    from: i64,
) -> (Vec<String>, bool) {
    let obj = version.obj;
    let renamed = |key: &str| -> Option<i64> {
        let before = sys
            .versions(SysTable::Col, obj)
            .find(|r| r.covers(from - 1) && r.text(col::COL_NAME) == Some(key))?;
        let now = sys.versions(SysTable::Col, obj).find(|r| r.covers(from) && r.rowid == before.rowid)?;
        now.int(col::SEGCOL_NO)
    };
    let kept: Vec<i64> = version
        .key_columns
        .iter()
        .filter_map(|key| {
            columns.iter().find(|c| *c.name == **key).map(|c| c.segcol_no).or_else(|| renamed(key))
        })
        .collect();
    if kept.is_empty() && !version.key_columns.is_empty() {
        return (choose_key(columns, Vec::new()), true);
    }
    let names = columns.iter().filter(|c| kept.contains(&c.segcol_no)).map(|c| c.name.to_string()).collect();
    (names, false)
}

/// What one commit did to a table's columns, read from its `COL$` rows (each row's identity is its
/// ROWID): the mirror follows these when the DDL's text cannot be replayed (docs/tables.md).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ColumnChanges {
    /// (old, new) names of a row whose `NAME` changed and that stayed visible (RENAME COLUMN)
    pub renamed: Vec<(String, String)>,
    /// names of rows that went (DROP COLUMN) or became hidden or unused (SET UNUSED)
    pub dropped: Vec<String>,
    /// names of new visible rows (ADD COLUMN)
    pub added: Vec<String>,
    /// names of rows whose type, length, precision, scale or nullability changed (MODIFY)
    pub modified: Vec<String>,
}

impl SysRows {
    /// The changes the commit at `scn` made to table `obj`'s `COL$` rows (`None`: it made none).
    /// Rows without storage (`SEGCOL#` 0, virtual) and hidden ones are not a mirror's columns; a
    /// row only renumbered (the columns after a dropped one move down) is no change.
    pub fn column_changes(&self, obj: i64, scn: i64) -> Option<ColumnChanges> {
        let rows: Vec<&SysRow> = self.versions(SysTable::Col, obj).collect();
        let closed: Vec<&SysRow> = rows.iter().copied().filter(|r| r.valid_to_scn == Some(scn)).collect();
        let opened: Vec<&SysRow> = rows.iter().copied().filter(|r| r.valid_from_scn == scn).collect();
        if closed.is_empty() && opened.is_empty() {
            return None;
        }
        let visible = |r: &SysRow| {
            r.int(col::SEGCOL_NO).unwrap_or(0) != 0
                && r.int(col::PROPERTY).unwrap_or(0) & (PROPERTY_HIDDEN | PROPERTY_UNUSED) == 0
        };
        let name = |r: &SysRow| r.text(col::COL_NAME).unwrap_or("?").to_owned();
        let shape = |r: &SysRow| {
            [col::COL_TYPE, col::LENGTH, col::PRECISION, col::SCALE, col::NULLS].map(|i| r.int(i))
        };
        let mut out = ColumnChanges::default();
        for old in closed.iter().filter(|r| visible(r)) {
            match opened.iter().find(|r| r.rowid == old.rowid) {
                Some(new) if visible(new) => {
                    if name(old) != name(new) {
                        out.renamed.push((name(old), name(new)));
                    }
                    if shape(old) != shape(new) {
                        out.modified.push(name(new));
                    }
                }
                _ => out.dropped.push(name(old)),
            }
        }
        for new in opened.iter().filter(|r| visible(r)) {
            let before = closed.iter().find(|r| r.rowid == new.rowid);
            if before.is_none_or(|old| !visible(old)) {
                out.added.push(name(new));
            }
        }
        Some(out)
    }
}
