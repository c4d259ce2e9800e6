//! A table's columns from its `SYS.COL$` rows (docs/dictionary.md, "The SYS rows"): the stored
//! columns of a table at an SCN as the dictionary's model has them ([`ColumnDef`]), and how they
//! differ from another reading of the same table (the version the DDL text gave).
//!
//! Why: a column DDL changes `COL$` rows inside its transaction (ADD COLUMN inserts one, RENAME
//! COLUMN updates `NAME`, DROP COLUMN deletes it, SET UNUSED sets `PROPERTY` bits and renames it,
//! MODIFY updates `TYPE#` / `LENGTH` / `PRECISION#` / `SCALE` / `NULL$`); those rows, not the text
//! the user typed, are what Oracle did. This module reads them; the emitter does not yet replace a
//! version's columns with them (issue 33's next step).
//!
//! The rule, the same as the OLR loader's (`redo_lib/dictionary/load.py`, `_olr_column`): a row with
//! `SEGCOL#` 0 has no storage (virtual) and is left out; `NULL$` 0 is nullable; `PROPERTY` bit
//! 0x20 (hidden) or 0x8000 (unused) makes a hidden column; a character column's (`TYPE#` 1, 96, 8,
//! 112) `CHARSETFORM` 1 is the database character set, 2 the national one.

use std::sync::Arc;

use super::dictionary::ColumnDef;
use super::sys::{col, SysRows, SysTable};

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
