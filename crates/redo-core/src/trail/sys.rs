//! The SYS rows layer of the dictionary (docs/dictionary.md, "The SYS rows: objects and partitions
//! followed from the redo"): the document's optional `sys` member, versioned copies of the captured
//! owners' rows of `SYS.OBJ$`, `TABPART$`, `TABCOMPART$`, `TABSUBPART$` and `USER$`, each with its
//! ROWID and the SCN range it is valid on, and their `SYS.COL$` rows (the columns of their tables)
//! and `CDEF$` / `CCOL$` rows (their constraints and the constraints' columns).
//!
//! Why: a partition created after the export (interval, ADD, SPLIT, MERGE) or a new data object id
//! (TRUNCATE, MOVE, EXCHANGE) has no statement text the dictionary could be evolved from, but its
//! rows of Oracle's own dictionary tables are in the redo. [`SysRows::table_of`] resolves an object
//! or data object through these rows to its table; `sys_apply.rs` follows them from the redo.
//!
//! Only the columns the spec names are kept, typed: integers (NUMBER columns) or strings (NAME,
//! SUBNAME), either possibly null. A malformed member is an `Error::Dictionary` naming its JSON path,
//! as the rest of the document (`dictionary.rs`'s `Fields`).

use std::collections::HashMap;

use serde_json::Value;

use super::dictionary::{Fields, TableVersion};
use crate::error::Result;

/// One of the eight SYS tables followed (in the document's order: [`SysTable::ALL`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum SysTable {
    Obj,
    TabPart,
    TabCompart,
    TabSubpart,
    User,
    /// `COL$`: a table's columns, one row per column (`OBJ#` the table); stored in the cluster
    /// `C_OBJ#` (data object 2) with `TAB$`, so its ROWIDs start `AAAAAC`
    Col,
    /// `CDEF$`: a table's constraints, one row per constraint (`OBJ#` the table, `CON#`, `TYPE#`: 2
    /// primary key, 3 unique, 7 NOT NULL, ...); object 31 in the cluster `C_COBJ#` (data object 29)
    Cdef,
    /// `CCOL$`: the columns of a constraint, one row each (`OBJ#`, `CON#`, `INTCOL#`); object 32 in
    /// `C_COBJ#`
    Ccol,
}

/// The number of SYS tables followed.
pub const SYS_TABLE_COUNT: usize = 8;

/// A kept column: its name in the SYS table (and the document), and whether it holds text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SysColumn {
    pub name: &'static str,
    pub text: bool,
}

const fn num(name: &'static str) -> SysColumn {
    SysColumn { name, text: false }
}

const fn text(name: &'static str) -> SysColumn {
    SysColumn { name, text: true }
}

const OBJ_COLUMNS: [SysColumn; 7] =
    [num("OBJ#"), num("DATAOBJ#"), num("OWNER#"), text("NAME"), text("SUBNAME"), num("TYPE#"), num("FLAGS")];
const PART_COLUMNS: [SysColumn; 4] = [num("OBJ#"), num("DATAOBJ#"), num("BO#"), num("PART#")];
const SUBPART_COLUMNS: [SysColumn; 4] = [num("OBJ#"), num("DATAOBJ#"), num("POBJ#"), num("SUBPART#")];
const USER_COLUMNS: [SysColumn; 2] = [num("USER#"), text("NAME")];
const COL_COLUMNS: [SysColumn; 13] = [
    num("OBJ#"),
    num("COL#"),
    num("SEGCOL#"),
    num("INTCOL#"),
    text("NAME"),
    num("TYPE#"),
    num("LENGTH"),
    num("PRECISION#"),
    num("SCALE"),
    num("NULL$"),
    num("PROPERTY"),
    num("CHARSETID"),
    num("CHARSETFORM"),
];

const CDEF_COLUMNS: [SysColumn; 3] = [num("OBJ#"), num("CON#"), num("TYPE#")];
const CCOL_COLUMNS: [SysColumn; 3] = [num("OBJ#"), num("CON#"), num("INTCOL#")];

/// Positions of the kept columns in [`SysRow::values`] (the order of [`SysTable::columns`]).
pub mod col {
    /// every table but `USER$`: `OBJ#`; `USER$`: `USER#` (the key a row is indexed by)
    pub const KEY: usize = 0;
    pub const DATAOBJ: usize = 1;
    /// `OBJ$`
    pub const OWNER: usize = 2;
    pub const NAME: usize = 3;
    pub const SUBNAME: usize = 4;
    pub const TYPE: usize = 5;
    /// `OBJ$.FLAGS` (bit [`super::FLAG_RECYCLED`]: in the recycle bin)
    pub const FLAGS: usize = 6;
    /// `TABPART$`, `TABCOMPART$`: `BO#`; `TABSUBPART$`: `POBJ#`
    pub const PARENT: usize = 2;
    /// `USER$`
    pub const USER_NAME: usize = 1;
    /// `COL$` (its `OBJ#` is [`KEY`])
    pub const COL_NO: usize = 1;
    pub const SEGCOL_NO: usize = 2;
    pub const INTCOL_NO: usize = 3;
    pub const COL_NAME: usize = 4;
    pub const COL_TYPE: usize = 5;
    pub const LENGTH: usize = 6;
    pub const PRECISION: usize = 7;
    pub const SCALE: usize = 8;
    /// `NULL$`: 0 nullable, else NOT NULL
    pub const NULLS: usize = 9;
    pub const PROPERTY: usize = 10;
    pub const CHARSET_ID: usize = 11;
    pub const CHARSET_FORM: usize = 12;
    /// `CDEF$`, `CCOL$` (their `OBJ#` is [`KEY`])
    pub const CON_NO: usize = 1;
    /// `CDEF$`: the constraint's type
    pub const CON_TYPE: usize = 2;
    /// `CCOL$`: the column's `INTCOL#`
    pub const CON_INTCOL: usize = 2;
}

/// `CDEF$.TYPE#` of a primary key and of a unique key.
pub const CON_PRIMARY: i64 = 2;
pub const CON_UNIQUE: i64 = 3;

/// `OBJ$.FLAGS` bit of an object in the recycle bin (DROP TABLE without PURGE).
pub const FLAG_RECYCLED: i64 = 128;

/// `OBJ$.TYPE#` of a table, a table partition, a table subpartition.
pub const TYPE_TABLE: i64 = 2;
pub const TYPE_PARTITION: i64 = 19;
pub const TYPE_SUBPARTITION: i64 = 34;

impl SysTable {
    /// The document's order (and `to_json`'s).
    pub const ALL: [SysTable; SYS_TABLE_COUNT] = [
        SysTable::Obj,
        SysTable::TabPart,
        SysTable::TabCompart,
        SysTable::TabSubpart,
        SysTable::User,
        SysTable::Col,
        SysTable::Cdef,
        SysTable::Ccol,
    ];

    /// The table's name (`OBJ$`), as in the document and in `SYS`.
    pub fn name(self) -> &'static str {
        match self {
            SysTable::Obj => "OBJ$",
            SysTable::TabPart => "TABPART$",
            SysTable::TabCompart => "TABCOMPART$",
            SysTable::TabSubpart => "TABSUBPART$",
            SysTable::User => "USER$",
            SysTable::Col => "COL$",
            SysTable::Cdef => "CDEF$",
            SysTable::Ccol => "CCOL$",
        }
    }

    pub fn from_name(name: &str) -> Option<SysTable> {
        SysTable::ALL.into_iter().find(|t| t.name() == name)
    }

    /// The SYS table a dictionary version describes (owner `SYS`, one of the six names).
    pub fn of(version: &TableVersion) -> Option<SysTable> {
        if version.owner == "SYS" {
            SysTable::from_name(&version.name)
        } else {
            None
        }
    }

    /// The columns kept, in the order of a row's values.
    pub fn columns(self) -> &'static [SysColumn] {
        match self {
            SysTable::Obj => &OBJ_COLUMNS,
            SysTable::TabPart | SysTable::TabCompart => &PART_COLUMNS,
            SysTable::TabSubpart => &SUBPART_COLUMNS,
            SysTable::User => &USER_COLUMNS,
            SysTable::Col => &COL_COLUMNS,
            SysTable::Cdef => &CDEF_COLUMNS,
            SysTable::Ccol => &CCOL_COLUMNS,
        }
    }

    pub(super) fn slot(self) -> usize {
        self as usize
    }
}

/// A kept value: a NUMBER column's integer or a character column's text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SysValue {
    Int(i64),
    Text(String),
}

/// One row of a SYS table on the SCN range `[valid_from_scn, valid_to_scn)`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SysRow {
    pub rowid: String,
    pub valid_from_scn: i64,
    /// `None`: the row as it stands
    pub valid_to_scn: Option<i64>,
    /// one per [`SysTable::columns`]; `None` is SQL NULL
    pub values: Vec<Option<SysValue>>,
}

impl SysRow {
    pub fn covers(&self, scn: i64) -> bool {
        self.valid_from_scn <= scn && self.valid_to_scn.is_none_or(|to| scn < to)
    }

    /// The integer at position `i` (`None`: null, text or no such position).
    pub fn int(&self, i: usize) -> Option<i64> {
        match self.values.get(i) {
            Some(Some(SysValue::Int(v))) => Some(*v),
            _ => None,
        }
    }

    /// The text at position `i`.
    pub fn text(&self, i: usize) -> Option<&str> {
        match self.values.get(i) {
            Some(Some(SysValue::Text(v))) => Some(v),
            _ => None,
        }
    }
}

/// The `sys` member: the rows of each table (in document order, then as applied) and the indexes
/// resolution and the tracker read. Equality is the rows'.
#[derive(Clone, Debug, Default)]
pub struct SysRows {
    pub(super) rows: [Vec<SysRow>; SYS_TABLE_COUNT],
    /// per table: key (`OBJ#`, `USER#`) -> row positions
    by_key: [HashMap<i64, Vec<usize>>; SYS_TABLE_COUNT],
    /// `OBJ$` rows by `DATAOBJ#`
    by_dataobj: HashMap<i64, Vec<usize>>,
    /// per table: ROWID -> the position of the row as it stands (`valid_to_scn` null)
    pub(super) open: [HashMap<String, usize>; SYS_TABLE_COUNT],
    /// the member had a `CDEF$` array: constraints are followed (their row changes applied, the
    /// keys taken from them); else the two arrays are absent from the document and stay so
    pub(super) constraints: bool,
}

impl PartialEq for SysRows {
    fn eq(&self, other: &Self) -> bool {
        self.rows == other.rows
    }
}

impl Eq for SysRows {}

impl SysRows {
    /// Read the member at `path` (`$.sys`); rows without `valid_from_scn` take `default_scn`. A
    /// table's array may be absent (no rows): a document written before `COL$` was followed has
    /// none (Python's `SysRows.from_document` requires the other five).
    pub(super) fn from_member(value: &Value, path: &str, default_scn: Option<i64>) -> Result<SysRows> {
        let member = Fields::new(value, path.to_owned())?;
        let mut out =
            SysRows { constraints: member.present(SysTable::Cdef.name()).is_some(), ..Default::default() };
        for table in SysTable::ALL {
            for row in member.objects(table.name(), false)? {
                out.push_json_row(table, &row?, default_scn)?;
            }
        }
        Ok(out)
    }

    /// One row of the member's array of `table` (read after the ones before it in that array; the
    /// arrays of the tables are independent of each other).
    pub(super) fn push_json_row(
        &mut self,
        table: SysTable,
        row: &Fields<'_>,
        default_scn: Option<i64>,
    ) -> Result<()> {
        let parsed = row_from_json(table, row, default_scn)?;
        let open = parsed.valid_to_scn.is_none().then(|| parsed.rowid.clone());
        if let Some(rowid) = open.filter(|r| self.open[table.slot()].contains_key(r)) {
            return Err(row.problem(
                Some("rowid"),
                format!("two rows of ROWID {rowid} in {} stand now (valid_to_scn null)", table.name()),
            ));
        }
        self.rows[table.slot()].push(parsed);
        self.index_row(table, self.rows[table.slot()].len() - 1);
        Ok(())
    }

    /// The member alone, as JSON text (`SysRows::to_json`'s, Python's `SysRows.text`): every row
    /// must carry its `valid_from_scn`.
    pub fn from_json(text: &str) -> Result<SysRows> {
        let value: Value = serde_json::from_str(text).map_err(|e| {
            crate::error::Error::dictionary(
                format!("the sys member is not JSON: {e}"),
                crate::error::Position::default(),
            )
        })?;
        SysRows::from_member(&value, "$.sys", None)
    }

    /// Every row of `table` whose key (`OBJ#`, `USER#`) is `key`, at any SCN.
    pub fn versions(&self, table: SysTable, key: i64) -> impl Iterator<Item = &SysRow> + '_ {
        let rows = &self.rows[table.slot()];
        let found = self.by_key[table.slot()].get(&key).map(Vec::as_slice).unwrap_or_default();
        found.iter().filter_map(move |&i| rows.get(i))
    }

    /// Whether constraints are followed: the member had a `CDEF$` array (an export or checkpoint
    /// that carries them); else `CDEF$` / `CCOL$` changes are not followed and no key comes from them.
    pub fn follows_constraints(&self) -> bool {
        self.constraints
    }

    /// Follow constraints from now on (the member as read had a `CDEF$` array).
    pub(super) fn set_follows_constraints(&mut self, on: bool) {
        self.constraints = on;
    }

    /// The rows of one table, in document order then as applied.
    pub fn rows(&self, table: SysTable) -> &[SysRow] {
        &self.rows[table.slot()]
    }

    /// The row of `table` whose key (`OBJ#`, `USER#`) is `key`, valid at `scn`.
    pub fn row_at(&self, table: SysTable, key: i64, scn: i64) -> Option<&SysRow> {
        self.latest(table, self.by_key[table.slot()].get(&key), |r| r.covers(scn))
    }

    /// The row of `table` with key `key` valid at `scn`, else the latest one at any SCN.
    pub fn row_near(&self, table: SysTable, key: i64, scn: i64) -> Option<&SysRow> {
        self.row_at(table, key, scn)
            .or_else(|| self.latest(table, self.by_key[table.slot()].get(&key), |_| true))
    }

    fn latest(
        &self,
        table: SysTable,
        positions: Option<&Vec<usize>>,
        keep: impl Fn(&SysRow) -> bool,
    ) -> Option<&SysRow> {
        let rows = &self.rows[table.slot()];
        positions?.iter().filter_map(|&i| rows.get(i)).filter(|r| keep(r)).max_by_key(|r| r.valid_from_scn)
    }

    /// The `OBJ$` row of object `obj` valid at `scn`, else the one whose `DATAOBJ#` is `obj`.
    pub fn object_at(&self, obj: i64, scn: i64) -> Option<&SysRow> {
        self.row_at(SysTable::Obj, obj, scn)
            .or_else(|| self.latest(SysTable::Obj, self.by_dataobj.get(&obj), |r| r.covers(scn)))
    }

    /// The object (`OBJ#`) whose `DATAOBJ#` was `dataobj` at `scn`: the segment a direct-path row
    /// (19.1, which names only its data object) was written to; not an `OBJ#` match, since an
    /// EXCHANGE gives a partition the data object numbered as another table's object.
    pub fn object_of_data(&self, dataobj: i64, scn: i64) -> Option<i64> {
        self.latest(SysTable::Obj, self.by_dataobj.get(&dataobj), |r| r.covers(scn))?.int(col::KEY)
    }

    /// The table object `obj` (an object or data object id) belonged to at `scn`, through the
    /// rows valid then: a table itself; a partition (`TYPE#` 19) through its `TABPART$` or
    /// `TABCOMPART$` row's `BO#`; a subpartition (`TYPE#` 34) through its `TABSUBPART$` row's
    /// `POBJ#` and that composite partition's `BO#`.
    pub fn table_of(&self, obj: i64, scn: i64) -> Option<i64> {
        let row = self.object_at(obj, scn)?;
        let id = row.int(col::KEY)?;
        match row.int(col::TYPE)? {
            TYPE_TABLE => Some(id),
            TYPE_PARTITION => self
                .row_at(SysTable::TabPart, id, scn)
                .or_else(|| self.row_at(SysTable::TabCompart, id, scn))?
                .int(col::PARENT),
            TYPE_SUBPARTITION => {
                let parent = self.row_at(SysTable::TabSubpart, id, scn)?.int(col::PARENT)?;
                self.row_at(SysTable::TabCompart, parent, scn)?.int(col::PARENT)
            }
            _ => None,
        }
    }

    /// Every table `obj` (an object or data object id) belonged to at some SCN (`Dictionary::knows`).
    pub fn tables_ever(&self, obj: i64) -> Vec<i64> {
        let rows = &self.rows[SysTable::Obj.slot()];
        let parents = |table: SysTable, key: i64| -> Vec<i64> {
            let found = self.by_key[table.slot()].get(&key).map(Vec::as_slice).unwrap_or_default();
            found.iter().filter_map(|&i| self.rows[table.slot()].get(i)?.int(col::PARENT)).collect()
        };
        let mut out = Vec::new();
        let positions = [self.by_key[SysTable::Obj.slot()].get(&obj), self.by_dataobj.get(&obj)];
        for &i in positions.into_iter().flatten().flatten() {
            let Some(row) = rows.get(i) else { continue };
            let Some(id) = row.int(col::KEY) else { continue };
            match row.int(col::TYPE) {
                Some(TYPE_TABLE) => out.push(id),
                Some(TYPE_PARTITION) => {
                    out.extend(parents(SysTable::TabPart, id));
                    out.extend(parents(SysTable::TabCompart, id));
                }
                Some(TYPE_SUBPARTITION) => {
                    for composite in parents(SysTable::TabSubpart, id) {
                        out.extend(parents(SysTable::TabCompart, composite));
                    }
                }
                _ => {}
            }
        }
        out.sort_unstable();
        out.dedup();
        out
    }

    /// (`DATAOBJ#`, `OBJ#`) of every table's `OBJ$` row, at any SCN (the emitter's map of the data
    /// objects direct-path rows name).
    pub fn table_dataobjs(&self) -> impl Iterator<Item = (i64, i64)> + '_ {
        self.rows[SysTable::Obj.slot()]
            .iter()
            .filter(|r| r.int(col::TYPE) == Some(TYPE_TABLE))
            .filter_map(|r| Some((r.int(col::DATAOBJ)?, r.int(col::KEY)?)))
    }

    /// The member as JSON text, in the document's format: every table (in [`SysTable::ALL`] order),
    /// its rows in their order, each with `rowid`, `valid_from_scn`, `valid_to_scn` and the kept
    /// columns in the order of [`SysTable::columns`].
    pub fn to_json(&self) -> String {
        let quoted = |s: &str| Value::String(s.to_owned()).to_string();
        let mut out = String::from("{");
        let tables = SysTable::ALL
            .into_iter()
            .filter(|t| self.constraints || !matches!(t, SysTable::Cdef | SysTable::Ccol));
        for (n, table) in tables.enumerate() {
            if n > 0 {
                out.push_str(", ");
            }
            out.push_str(&quoted(table.name()));
            out.push_str(": [");
            for (i, row) in self.rows[table.slot()].iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                out.push_str("{\"rowid\": ");
                out.push_str(&quoted(&row.rowid));
                out.push_str(&format!(", \"valid_from_scn\": {}, \"valid_to_scn\": ", row.valid_from_scn));
                out.push_str(&row.valid_to_scn.map_or("null".to_owned(), |to| to.to_string()));
                for (column, value) in table.columns().iter().zip(&row.values) {
                    out.push_str(", ");
                    out.push_str(&quoted(column.name));
                    out.push_str(": ");
                    match value {
                        None => out.push_str("null"),
                        Some(SysValue::Int(v)) => out.push_str(&v.to_string()),
                        Some(SysValue::Text(t)) => out.push_str(&quoted(t)),
                    }
                }
                out.push('}');
            }
            out.push(']');
        }
        out.push('}');
        out
    }

    // -- the indexes --------------------------------------------------------------------------------

    pub(super) fn index_row(&mut self, table: SysTable, i: usize) {
        let Some(row) = self.rows[table.slot()].get(i) else { return };
        if let Some(key) = row.int(col::KEY) {
            self.by_key[table.slot()].entry(key).or_default().push(i);
        }
        if table == SysTable::Obj {
            if let Some(dataobj) = row.int(col::DATAOBJ) {
                self.by_dataobj.entry(dataobj).or_default().push(i);
            }
        }
        if row.valid_to_scn.is_none() {
            self.open[table.slot()].insert(row.rowid.clone(), i);
        }
    }

    pub(super) fn unindex_row(&mut self, table: SysTable, i: usize) {
        let Some(row) = self.rows[table.slot()].get(i) else { return };
        fn drop_from(map: &mut HashMap<i64, Vec<usize>>, key: Option<i64>, i: usize) {
            let Some(key) = key else { return };
            if let Some(list) = map.get_mut(&key) {
                list.retain(|&j| j != i);
                if list.is_empty() {
                    map.remove(&key);
                }
            }
        }
        drop_from(&mut self.by_key[table.slot()], row.int(col::KEY), i);
        if table == SysTable::Obj {
            drop_from(&mut self.by_dataobj, row.int(col::DATAOBJ), i);
        }
        if self.open[table.slot()].get(&row.rowid) == Some(&i) {
            self.open[table.slot()].remove(&row.rowid);
        }
    }

    /// Take row `i` of `table` out (the last row takes its place).
    pub(super) fn remove_row(&mut self, table: SysTable, i: usize) {
        let last = self.rows[table.slot()].len().saturating_sub(1);
        if i > last {
            return;
        }
        self.unindex_row(table, i);
        if i != last {
            self.unindex_row(table, last);
        }
        self.rows[table.slot()].swap_remove(i);
        if i != last {
            self.index_row(table, i);
        }
    }
}

fn row_from_json(table: SysTable, row: &Fields<'_>, default_scn: Option<i64>) -> Result<SysRow> {
    let rowid = row.get_str("rowid")?.to_owned();
    let valid_from_scn = match row.opt_int("valid_from_scn")?.or(default_scn) {
        Some(scn) => scn,
        None => {
            return Err(row.problem(Some("valid_from_scn"), "missing, and the document has no top-level scn"))
        }
    };
    let valid_to_scn = row.opt_int("valid_to_scn")?;
    if let Some(to) = valid_to_scn.filter(|&to| to <= valid_from_scn) {
        return Err(row.problem(Some("valid_to_scn"), format!("empty SCN range [{valid_from_scn}, {to})")));
    }
    let mut values = Vec::with_capacity(table.columns().len());
    for column in table.columns() {
        let value = row.required(column.name)?;
        values.push(match value {
            Value::Null => None,
            v if column.text => Some(SysValue::Text(row.str_of(column.name, v)?.to_owned())),
            v => Some(SysValue::Int(row.int(column.name, v)?)),
        });
    }
    Ok(SysRow { rowid, valid_from_scn, valid_to_scn, values })
}

#[cfg(test)]
#[path = "sys_tests.rs"]
mod tests;
