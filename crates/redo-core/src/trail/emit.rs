//! Committed transactions -> trail records (Python `redo_lib/trail/emit.py` `TrailEmitter`, trail
//! contract rules 6-17), ported rule for rule, counters included.
//!
//! Table and column names and types come from the dictionary version valid at the change's SCN;
//! values are rendered by `values::render_value_into` (rule 16); images are shaped per rule 11, key
//! columns per rule 12, TransInd per rule 8, tokens per rule 13, positions per rule 15, LOB values
//! stitched from the transaction's pieces (rule 17). Objects the dictionary does not know are
//! `unknown_in_scope` when the export lists them among a captured owner's objects (a table it
//! should describe) or number them above its `max_object_id` (created after it), else
//! `out_of_scope`; or emitted schemaless (`OBJ_<n>`, `COL_<n>` as hex) with `emit_unknown` or
//! without a dictionary (docs/data-quality.md, "Unknown objects and the capture scope").
//!
//! DDL (IOType 160) needs the statement's subject (verb, object type, owner, name: `ddl.rs`). Where
//! the dictionary's SYS rows follow its tables (`Dictionary::follows_tables`: `COL$` and `CDEF$`
//! rows of them), the text is not applied at all: the rows give every table (`sys_columns.rs`), the
//! DDL is counted by its subject (`ddl_*`, `ddl_from_sys_rows`). Otherwise, with `apply_ddl`, a new
//! dictionary version from its SCN on comes from a [`DdlHandler`] (the binding's calls Python's
//! `evolve_dictionary`; that parser is not ported: the rows replace it). Without a handler the DDL
//! record is emitted and the dictionary stays as it was, counted as `ddl_not_applied`.
//!
//! With a SYS rows layer in the dictionary (the document's `sys` member, `sys.rs`), a row change of
//! `SYS.OBJ$`, `TABPART$`, `TABCOMPART$`, `TABSUBPART$`, `USER$` or `COL$` is never a trail record: it is
//! counted out of scope as before (the reconciliation balances), kept with its transaction and,
//! with `apply_ddl`, applied to that layer at the commit SCN once the transaction's other changes
//! are shaped (`sys_apply.rs`: counters `dictionary_rows`, `dictionary_rows_not_followed`,
//! `dictionary_row_problems`, problems of kind `sys_rows` in `ddl_problems`). Without `apply_ddl`
//! (the parallel assemble tasks, whose batch driver applied them) they are only counted
//! (`dictionary_row_changes`, counted in both modes). The layer is the emitter's: a dictionary a
//! [`DdlHandler`] returns takes it over. Without the layer, SYS changes are out of scope as ever.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::sync::Arc;

use super::dictionary::{Dictionary, TableVersion};
use super::lob_carry::LobCarry;
use super::lobs::{parse_lob_locator, LobStore};
use super::rows::{RowChange, RowChanges, RowImage, RowOp};
use super::schema::{LobColumn, Name, Pairs, TrailRecord, TrailSink};
use super::securefile::resolve_locator;
use super::sys::SysTable;
use super::sys_apply::SysChange;
use super::sys_columns::ColumnDisagreement;
use crate::assembly::{ChangeEvent, CommittedTransaction};
use crate::error::{Detail, Error, Result};
use crate::unsupported::{column_groups, unrenderable_type, COMPRESSED_ROW};
use crate::values::{hex_lower, render_value_into, CharsetArg, ZoneArg};

pub(super) const CLOB: i64 = 112;
pub(super) const BLOB: i64 = 113;
/// IOType (rule 9)
const DELETE: i16 = 3;
const INSERT: i16 = 5;
const COMPRESSED_UPDATE: i16 = 15;
const PK_UPDATE: i16 = 115;
const DDL: i16 = 160;
/// At most this many value error messages are kept (the counter counts them all).
pub const MAX_VALUE_ERRORS: usize = 100;

/// How images are shaped and what is captured (Python `EmitOptions`; GoldenGate's defaults).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EmitOptions {
    /// emit objects the dictionary does not know (schemaless)
    pub emit_unknown: bool,
    /// deletes carry every column, not only the key (rule 11; GoldenGate's NOCOMPRESSDELETES)
    pub full_deletes: bool,
    /// an update's after record (A) is preceded by its before record (B): the key and changed
    /// columns with the values the undo and the supplemental data hold (rule 10; GETUPDATEBEFORES)
    pub update_before_images: bool,
    /// the capture scope: a table is captured when its owner is in `include_owners` or its
    /// `OWNER.TABLE` in `include_tables` (both empty: every table), and not excluded
    pub include_owners: BTreeSet<String>,
    pub exclude_owners: BTreeSet<String>,
    pub include_tables: BTreeSet<String>,
    pub exclude_tables: BTreeSet<String>,
    /// columns left out of the capture scope, `OWNER.TABLE.COLUMN` (the capture list's
    /// `-OWNER.TABLE.COLUMN` entries): never in a record, with the hidden columns that store them
    /// (`unsupported::column_groups`); a key column cannot be left out ([`Emitter::excluded_keys`])
    pub exclude_columns: BTreeSet<String>,
    /// DDL opens a new dictionary version from its SCN on
    pub apply_ddl: bool,
}

impl Default for EmitOptions {
    fn default() -> Self {
        EmitOptions {
            emit_unknown: false,
            full_deletes: false,
            update_before_images: false,
            include_owners: BTreeSet::new(),
            exclude_owners: ["SYS", "SYSTEM", "XDB", "AUDSYS", "LBACSYS", "MDSYS"].map(String::from).into(),
            include_tables: BTreeSet::new(),
            exclude_tables: BTreeSet::new(),
            exclude_columns: BTreeSet::new(),
            apply_ddl: true,
        }
    }
}

/// `capture_options`: `OWNER` entries -> include_owners, `OWNER.TABLE` -> include_tables,
/// `-OWNER.TABLE.COLUMN` -> exclude_columns (a column left out of a captured table); an entry of
/// another form is an error message (Python raises `RedoError`). Python's `capture_options` is the
/// same rule (`tests/unit/redo_lib/test_unrenderable.py` holds them to each other).
pub fn capture_options(entries: &[&str], options: &mut EmitOptions) -> std::result::Result<(), String> {
    let (mut owners, mut tables, mut columns) = (BTreeSet::new(), BTreeSet::new(), BTreeSet::new());
    for entry in entries {
        let text = entry.trim();
        let (excluded, text) = match text.strip_prefix('-') {
            Some(rest) => (true, rest),
            None => (false, text),
        };
        let parts: Vec<&str> = text.split('.').map(str::trim).collect();
        let shaped = if excluded { parts.len() == 3 } else { parts.len() <= 2 };
        if !shaped || parts.iter().any(|p| p.is_empty()) {
            return Err(format!(
                "capture entry '{entry}' is not OWNER, OWNER.TABLE or -OWNER.TABLE.COLUMN (a column left out)"
            ));
        }
        match parts.as_slice() {
            [owner] => owners.insert((*owner).to_owned()),
            [owner, table] => tables.insert(format!("{owner}.{table}")),
            _ => columns.insert(parts.join(".")),
        };
    }
    options.include_owners = owners;
    options.include_tables = tables;
    options.exclude_columns = columns;
    Ok(())
}

/// What a DDL statement is about (Python `ddl.DdlSubject`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DdlSubject {
    pub operation: String,
    pub object_type: String,
    pub owner: String,
    pub name: String,
}

/// A DDL not applied to the dictionary (`evolve_dictionary`'s `problems`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DdlProblem {
    pub kind: String,
    pub scn: i64,
    pub obj: Option<i64>,
    pub schema: String,
    pub text: String,
    pub message: String,
}

/// The DDL side of the emitter: the dictionary a DDL leaves (and the statement's subject, by
/// default [`super::ddl::ddl_subject`]).
pub trait DdlHandler {
    /// `ddl_subject(text, schema)`.
    fn subject(&mut self, text: &str, schema: &str) -> Result<DdlSubject> {
        Ok(super::ddl::ddl_subject(text, schema))
    }
    /// `evolve_dictionary(dictionary, [rc], counters, problems)`: the new dictionary when the DDL
    /// changed it (`None`: unchanged); counters and problems are added to. Its SYS rows layer is
    /// replaced by the emitter's (followed from the redo; a text DDL does not change it).
    fn evolve(
        &mut self,
        rc: &RowChange,
        counters: &mut BTreeMap<String, u64>,
        problems: &mut Vec<DdlProblem>,
    ) -> Result<Option<Dictionary>>;
}

/// A table version, or the stand-in of an object without one (`_Schemaless`: no columns).
struct Table {
    owner: String,
    name: String,
    version: Option<Arc<TableVersion>>,
}

/// A shaped row change, waiting for the next to know whether it is the transaction's last.
struct Shaped {
    rc: RowChange,
    owner: String,
    table: String,
    key_columns: Vec<String>,
    io_type: i16,
    op: &'static str,
    columns: Pairs,
    before: Pairs,
    changed: Vec<String>,
    rowid: String,
    lob_columns: Vec<LobColumn>,
    /// "A", or "B" for a delete and an update's before record
    before_after: &'static str,
    /// an update's before record, emitted just ahead of it (`update_before_images`)
    before_record: Option<Box<Shaped>>,
}

/// `(obj, op)` counts of the reconciliation.
pub type ObjCounts = BTreeMap<(i64, &'static str), u64>;

/// Python `TrailEmitter`: stateless apart from its counters, the LOB store and the dictionary DDL
/// evolves; one per batch.
#[derive(Default)]
pub struct Emitter {
    dictionary: Option<Dictionary>,
    pub options: EmitOptions,
    pub counters: BTreeMap<String, u64>,
    /// owner -> table -> op -> records (`emitted()`: Python's (owner.table, op) keys)
    emitted: HashMap<String, HashMap<String, BTreeMap<&'static str, u64>>>,
    pub unknown_objects: BTreeMap<i64, u64>,
    /// by (obj, op), PK_UPDATE counted as UPDATE
    pub trail_counts: ObjCounts,
    pub out_of_scope: ObjCounts,
    pub unknown_in_scope: ObjCounts,
    /// captured row changes decoded but not emitted because the redo holds them in a form the
    /// decoder does not read (an OLTP-compressed row image: `unsupported_row`), or because they carry
    /// a value of a type it cannot render (`unrenderable_ops`, below): one term of the balance
    pub unsupported: ObjCounts,
    /// updates emitted keyed by their ROWID: the redo holds not all of the table's key columns
    /// (minimal supplemental logging, docs/tables.md): counts.json `rowid_keyed`
    pub rowid_keyed: ObjCounts,
    /// of `unsupported`, the row changes carrying a value of a column the decoder cannot render
    pub unrenderable_ops: ObjCounts,
    /// (OWNER.TABLE, column, type code) -> captured row changes carrying a value of that column
    /// (with the hidden columns that store it) not emitted: the batch fails `unsupported_changes`
    pub unrenderable: BTreeMap<(String, String, i64), u64>,
    /// the same, of tables outside the capture scope and of columns left out of it: only counted
    pub unrenderable_out_of_scope: BTreeMap<(String, String, i64), u64>,
    pub unknown_first_scn: BTreeMap<i64, i64>,
    pub value_errors: Vec<String>,
    /// (owner.name, verb) -> DDL records
    pub ddl_records: BTreeMap<(String, String), u64>,
    pub ddl_problems: Vec<DdlProblem>,
    /// (OWNER.TABLE, column, reason) -> LOB values not resolved (counts.json `lobs`, rule 17)
    pub lob_unresolved: BTreeMap<(String, String, String), u64>,
    pub(super) lobs: Option<LobStore>,
    /// which LOB pages are live, to carry to the next batch (`lob_carry`)
    pub(super) lob_carry: LobCarry,
    by_dataobj: Option<HashMap<i64, i64>>,
    /// the current transaction's SYS row changes, applied at its commit (`sys_apply`)
    sys_pending: Vec<SysChange>,
    /// tables whose `COL$` rows a commit changed so that they and the table's version (the DDL
    /// text's) disagree: the `COL$` columns win (`sys_columns`), each reported once, at its commit
    pub column_disagreements: Vec<ColumnDisagreement>,
    /// (table obj, XID, commit SCN) of each commit that changed a table's `COL$` rows: the batch
    /// driver supersedes the text problems of those transactions' DDL with them
    pub tables_followed: Vec<(i64, String, i64)>,
    /// the tables (`OBJ#`) of the current transaction's DDL whose text was not applied, the SYS
    /// rows following the tables (`Dictionary::follows_tables`)
    texts_not_applied: BTreeSet<i64>,
}

fn count<K: Ord>(map: &mut BTreeMap<K, u64>, key: K) {
    *map.entry(key).or_insert(0) += 1;
}

/// The `ddl_*` counter of a DDL whose text is not applied (the SYS rows say what it did), as
/// Python's `evolve_dictionary` names its effects: `ddl_other` for anything but a table,
/// `ddl_partition` for partition maintenance, else by verb.
pub fn ddl_counter(text: &str, schema: &str) -> &'static str {
    ddl_kind_counter(&super::ddl::ddl_subject(text, schema), text)
}

fn ddl_kind_counter(subject: &DdlSubject, text: &str) -> &'static str {
    if subject.object_type != "TABLE" {
        return "ddl_other";
    }
    let upper = text.to_ascii_uppercase();
    let partition = ["PARTITION", "INTERVAL"]
        .iter()
        .any(|w| upper.split(|c: char| !c.is_ascii_alphanumeric() && c != '_').any(|t| t == *w));
    match subject.operation.as_str() {
        "ALTER" if partition => "ddl_partition",
        "CREATE" => "ddl_create",
        "ALTER" => "ddl_alter",
        "DROP" => "ddl_drop",
        "TRUNCATE" => "ddl_truncate",
        "RENAME" => "ddl_rename",
        _ => "ddl_other",
    }
}

/// The names of the tokens R, L and 6 (rule 13), shared by every record.
fn token_name(i: usize) -> Name {
    thread_local! {
        static NAMES: [Name; 3] = [Name::from("R"), Name::from("L"), Name::from("6")];
    }
    NAMES.with(|n| n[i].clone())
}

/// `str(Rba(seq, block, offset))`: `0x{seq:06x}.{block:08x}.{offset:04x}`.
fn rba(seq: i64, block: i64, offset: i64) -> String {
    use std::fmt::Write;
    let mut out = String::with_capacity(24);
    let _ = write!(out, "0x{seq:06x}.{block:08x}.{offset:04x}");
    out
}

/// Microseconds cut to whole seconds (`render_time`'s `%Y-%m-%dT%H:%M:%S`, read back by `to_row`).
fn whole_seconds(micros: i64) -> i64 {
    micros.div_euclid(1_000_000).saturating_mul(1_000_000)
}

/// `RowId.from_dba(dataobj, dba, slot)` as text; out-of-range fields are a `ValueDecode` error.
pub(super) fn rowid(dataobj: i64, dba: i64, slot: i64) -> Result<String> {
    let (rfile, block) = ((dba >> 22) & 0x3FF, dba & 0x3F_FFFF);
    let mut out = String::with_capacity(18);
    match (u32::try_from(dataobj), u32::try_from(slot)) {
        (Ok(d), Ok(s)) if s <= 0xFFFF => {
            crate::values::rowid::push_rowid(&mut out, d, rfile as u32, block as u32, s)?;
            Ok(out)
        }
        _ => Err(Error::ValueDecode(Box::new(crate::error::ErrorInfo {
            message: "ROWID field out of range".into(),
            position: Default::default(),
            details: vec![
                ("type", "ROWID".into()),
                ("dataobj", Detail::Int(dataobj)),
                ("rfile", Detail::Int(rfile)),
                ("block", Detail::Int(block)),
                ("slot", Detail::Int(slot)),
            ],
        }))),
    }
}

/// `str(exc)` of a `RedoError` without a position: the message and its details.
pub(super) fn error_text(e: &Error) -> String {
    let info = e.info();
    let mut text = info.message.clone();
    if !info.details.is_empty() {
        let parts: Vec<String> = info
            .details
            .iter()
            .map(|(k, v)| match v {
                Detail::Int(i) => format!("{k}={i}"),
                Detail::Text(t) => format!("{k}={t}"),
                Detail::Xid(u, s, q) => format!("{k}={u}.{s}.{q}"),
            })
            .collect();
        text.push_str(&format!(" ({})", parts.join(", ")));
    }
    text
}

impl Emitter {
    /// An emitter over `dictionary`. Where the document's SYS rows and its versions disagree as it
    /// is loaded (a table its `tables` do not describe, an export whose text and rows differ), the
    /// rows win as anywhere (`Dictionary::reconcile`) and each is reported here once, marked "as
    /// loaded" (a batch's own dictionary, written after its commits, has none).
    pub fn new(dictionary: Option<Dictionary>, options: EmitOptions) -> Self {
        let loaded = dictionary.as_ref().map(Dictionary::loaded_disagreements).unwrap_or_default();
        let mut emitter = Emitter { dictionary, options, ..Default::default() };
        if !loaded.is_empty() {
            emitter.add("dictionary_column_disagreements", loaded.len() as u64);
        }
        emitter.column_disagreements = loaded
            .into_iter()
            .map(|mut d| {
                d.differences.iter_mut().for_each(|line| line.insert_str(0, "as loaded: "));
                d
            })
            .collect();
        emitter
    }

    pub fn dictionary(&self) -> Option<&Dictionary> {
        self.dictionary.as_ref()
    }

    fn count_emitted(&mut self, owner: &str, table: &str, op: &'static str) {
        let tables = match self.emitted.get_mut(owner) {
            Some(t) => t,
            None => self.emitted.entry(owner.to_owned()).or_default(),
        };
        let ops = match tables.get_mut(table) {
            Some(o) => o,
            None => tables.entry(table.to_owned()).or_default(),
        };
        *ops.entry(op).or_insert(0) += 1;
    }

    /// (owner.table, op) -> records (Python `TrailEmitter.emitted`).
    pub fn emitted(&self) -> BTreeMap<(String, &'static str), u64> {
        let mut out = BTreeMap::new();
        for (owner, tables) in &self.emitted {
            for (table, ops) in tables {
                for (op, n) in ops {
                    *out.entry((format!("{owner}.{table}"), *op)).or_insert(0) += n;
                }
            }
        }
        out
    }

    fn add(&mut self, name: &str, n: u64) {
        *self.counters.entry(name.to_owned()).or_insert(0) += n;
    }

    /// The dictionary object of a change; direct-path rows (19.1) know only the data object.
    fn obj_of(&mut self, rc: &RowChange) -> i64 {
        if rc.obj != 0 {
            return rc.obj;
        }
        if let Some(d) = &self.dictionary {
            // the segment's object at the change's SCN (a partition's or table's new data object
            // after TRUNCATE, EXCHANGE, SPLIT)
            if let Some(obj) = d.sys().and_then(|s| s.object_of_data(rc.dataobj, rc.scn)) {
                return obj;
            }
            if self.by_dataobj.is_none() {
                let mut map = HashMap::new();
                for v in d.iter() {
                    if let Some(dataobj) = v.dataobj {
                        map.insert(dataobj, v.obj);
                    }
                }
                // a table's data objects the SYS rows know (a TRUNCATE's new one) name the table too
                for (dataobj, obj) in d.sys().into_iter().flat_map(|s| s.table_dataobjs()) {
                    map.entry(dataobj).or_insert(obj);
                }
                self.by_dataobj = Some(map);
            }
        }
        self.by_dataobj.as_ref().and_then(|m| m.get(&rc.dataobj).copied()).unwrap_or(rc.dataobj)
    }

    /// The trail records of one committed transaction, appended to `out` (none when nothing of it
    /// is captured); its changes are read once (twice when it holds LOB pieces: those first, as a
    /// row change may come before the pieces its locator names). How many records.
    pub fn emit<'d>(
        &mut self,
        txn: &CommittedTransaction,
        mut ddl: Option<&mut (dyn DdlHandler + 'd)>,
        out: &mut dyn TrailSink,
        commit_log: Option<&str>,
    ) -> Result<usize> {
        self.sys_pending.clear();
        self.texts_not_applied.clear();
        let problems_before = self.ddl_problems.len();
        let pieces = txn.changes.lob_pieces;
        if pieces > 0 {
            let store = self.lobs.get_or_insert_with(|| LobStore::new(None));
            store.begin();
            let mut n = 0;
            txn.changes.for_each(|e| {
                n += u64::from(store.add(e)?);
                Ok(())
            })?;
            self.add("lob_pieces", n);
        }
        let xid = format!("{}.{}.{}", txn.xid.usn, txn.xid.slot, txn.xid.sqn);
        let head =
            Head { xid, commit_scn: txn.commit_scn, commit_time: whole_seconds(txn.commit_time), commit_log };
        let mut rows = RowChanges::new();
        let mut ready: Vec<RowChange> = Vec::new();
        let mut pending: Option<(usize, Shaped)> = None;
        let mut index = 0;
        let mut step =
            |this: &mut Emitter, rc: RowChange, ddl: &mut Option<&mut (dyn DdlHandler + 'd)>| -> Result<()> {
                if let Some(mut shaped) = this.shape(rc, ddl)? {
                    let before = shaped.before_record.take();
                    for s in before.map(|b| *b).into_iter().chain(std::iter::once(shaped)) {
                        if let Some((i, previous)) = pending.take() {
                            this.record(&head, i, previous, false, out)?;
                        }
                        pending = Some((index, s));
                        index += 1;
                    }
                }
                Ok(())
            };
        txn.changes.for_each(|e: &ChangeEvent| {
            rows.push(e, &mut |rc| ready.push(rc));
            for rc in ready.drain(..) {
                step(self, rc, &mut ddl)?;
            }
            Ok(())
        })?;
        rows.finish(&mut |rc| ready.push(rc));
        for rc in ready.drain(..) {
            step(self, rc, &mut ddl)?;
        }
        let emitted = index;
        if let Some((i, last)) = pending.take() {
            self.record(&head, i, last, true, out)?;
            self.add("transactions", 1);
        }
        if rows.cluster_key_pieces > 0 {
            self.add("cluster_key_pieces", rows.cluster_key_pieces);
        }
        if rows.incomplete_row_groups > 0 {
            self.add("incomplete_row_groups", rows.incomplete_row_groups);
        }
        if pieces > 0 {
            // pieces no locator of this transaction named (contract rule 17: counted, not dropped)
            let unattached = self.lobs.as_ref().map_or(0, LobStore::unattached);
            self.add("lob_pieces_unattached", unattached as u64);
        }
        if !self.sys_pending.is_empty() {
            self.apply_sys(&head.xid, txn.commit_scn, problems_before);
        }
        Ok(emitted)
    }

    /// The transaction's SYS row changes, at its commit SCN: applied to the dictionary's SYS rows
    /// with `apply_ddl`, else only counted; the versions they give are rebuilt
    /// (`Dictionary::reconcile`). Where they changed a table's `COL$` (`CDEF$`, `CCOL$`) rows, its
    /// columns (key) are theirs from the commit on: a disagreement with the version
    /// the DDL text gave is counted and reported, and a problem this transaction's DDL text had on
    /// that table (not understood, contradicting the dictionary) is superseded by the rows: counted
    /// (`ddl_text_superseded`), no longer a problem. `problems_before`: the problems before the
    /// transaction.
    fn apply_sys(&mut self, xid: &str, commit_scn: i64, problems_before: usize) {
        let changes = std::mem::take(&mut self.sys_pending);
        self.add("dictionary_row_changes", changes.len() as u64);
        if !self.options.apply_ddl {
            return;
        }
        let Some(sys) = self.dictionary.as_mut().and_then(Dictionary::sys_mut) else { return };
        let done = sys.apply(&changes, commit_scn, &mut self.ddl_problems);
        for (name, n) in [
            ("dictionary_rows", done.applied),
            ("dictionary_rows_not_followed", done.not_followed),
            ("dictionary_row_problems", done.problems),
        ] {
            if n > 0 {
                self.add(name, n);
            }
        }
        self.by_dataobj = None; // a new data object of a table
        let changed = done.tables_changed;
        if done.applied == 0 {
            return;
        }
        self.tables_followed.extend(changed.iter().map(|&obj| (obj, xid.to_owned(), commit_scn)));
        let said = self.dictionary.as_mut().map(Dictionary::reconcile).unwrap_or_default();
        let skipped = std::mem::take(&mut self.texts_not_applied);
        for disagreement in said {
            // a table whose DDL text this transaction did not apply (the rows follow the tables):
            // nothing to disagree with, the rows are its dictionary
            if disagreement.scn == commit_scn
                && changed.contains(&disagreement.obj)
                && !skipped.contains(&disagreement.obj)
            {
                self.add("dictionary_column_disagreements", 1);
                self.column_disagreements.push(disagreement);
            }
        }
        let text_problem = |p: &DdlProblem| {
            matches!(p.kind.as_str(), "unsupported" | "conflict")
                && p.obj.is_some_and(|o| changed.contains(&o))
        };
        let tail = self.ddl_problems.split_off(problems_before.min(self.ddl_problems.len()));
        let (superseded, kept): (Vec<DdlProblem>, Vec<DdlProblem>) = tail.into_iter().partition(text_problem);
        self.ddl_problems.extend(kept);
        if !superseded.is_empty() {
            self.add("ddl_text_superseded", superseded.len() as u64);
        }
    }

    fn record(
        &mut self,
        head: &Head<'_>,
        i: usize,
        s: Shaped,
        last: bool,
        out: &mut dyn TrailSink,
    ) -> Result<()> {
        let mut tokens: Pairs = Vec::with_capacity(3);
        if !s.rowid.is_empty() {
            tokens.push((token_name(0), Some(s.rowid.clone())));
        }
        if i == 0 {
            tokens.push((token_name(1), Some(head.commit_scn.to_string())));
            tokens.push((token_name(2), Some(head.xid.clone())));
        }
        let trans_ind = match (last, i == 0) {
            (true, true) => 3,
            (true, false) => 2,
            (false, true) => 0,
            (false, false) => 1,
        };
        let obj = self.obj_of(&s.rc);
        let rc = &s.rc;
        let record = TrailRecord {
            xid: head.xid.clone(),
            commit_scn: head.commit_scn,
            commit_time: head.commit_time,
            trans_ind,
            io_type: s.io_type,
            op: s.op,
            before_after: s.before_after,
            owner: s.owner,
            table: s.table,
            obj,
            columns: s.columns,
            before: s.before,
            key_columns: s.key_columns,
            changed_columns: s.changed,
            rowid: s.rowid,
            scn: rc.scn,
            subscn: rc.subscn,
            op_time: whole_seconds(rc.time),
            thread: rc.thread,
            sequence: rc.seq,
            rba: rba(rc.seq, rc.block, rc.offset),
            tokens,
            lob_columns: s.lob_columns,
        };
        if record.before_after == "B" && record.io_type != DELETE {
            // an update's before record: the row change is counted once, by its after record
            self.add("update_before_records", 1);
            return out.push(&record, head.commit_log);
        }
        self.count_emitted(&record.owner, &record.table, record.op);
        if record.io_type != DDL {
            // row changes reconcile with the decoded ones; DDL is counted apart
            let op = if record.op == "PK_UPDATE" { "UPDATE" } else { record.op };
            count(&mut self.trail_counts, (obj, op));
        }
        out.push(&record, head.commit_log)
    }

    /// Whether `owner.name` is in the capture scope (owners and tables listed together: a union).
    pub fn captured(&self, owner: &str, name: &str) -> bool {
        let o = &self.options;
        let full = format!("{owner}.{name}");
        let included = (o.include_owners.is_empty() && o.include_tables.is_empty())
            || o.include_owners.contains(owner)
            || o.include_tables.contains(&full);
        included && !o.exclude_owners.contains(owner) && !o.exclude_tables.contains(&full)
    }

    /// Whether an object without a version at a change's SCN may be a captured table: an object
    /// the export lists for a captured owner (the dictionary lacks a table it should describe), or
    /// one numbered above the dictionary's `max_object_id` (created after the export); else out of
    /// scope and counted.
    fn may_be_captured(&mut self, obj: i64) -> bool {
        let Some(d) = &self.dictionary else { return false };
        if d.knows(obj) {
            return false;
        }
        if let Some(o) = d.owner_object(obj) {
            return self.captured(&o.owner, &o.name);
        }
        match d.max_object_id {
            None => {
                self.add("unknown_unclassified_changes", 1);
                false
            }
            Some(limit) => obj > limit,
        }
    }

    fn table(&mut self, rc: &RowChange) -> Option<Table> {
        let obj = self.obj_of(rc);
        let schemaless = || Table { owner: String::new(), name: format!("OBJ_{obj}"), version: None };
        let Some(d) = &self.dictionary else {
            return Some(schemaless());
        };
        let following = d.sys().is_some();
        let Some(version) = d.lookup_arc(obj, rc.scn) else {
            count(&mut self.unknown_objects, obj);
            self.add("unknown_object_changes", 1);
            if self.options.emit_unknown {
                return Some(schemaless());
            }
            if self.may_be_captured(obj) {
                count(&mut self.unknown_in_scope, (obj, rc.op.as_str()));
                let first = self.unknown_first_scn.entry(obj).or_insert(rc.scn);
                *first = (*first).min(rc.scn);
            } else {
                count(&mut self.out_of_scope, (obj, rc.op.as_str()));
            }
            return None;
        };
        if let Some(table) = if following { SysTable::of(&version) } else { None } {
            // never a record, whatever the capture scope; applied at the commit
            self.sys_pending.push(SysChange { table, layout: Arc::clone(&version), change: rc.clone() });
            self.add("filtered_changes", 1);
            count(&mut self.out_of_scope, (obj, rc.op.as_str()));
            return None;
        }
        if !self.captured(&version.owner, &version.name) {
            self.add("filtered_changes", 1);
            count(&mut self.out_of_scope, (obj, rc.op.as_str()));
            if version.columns.iter().any(|c| unrenderable_type(c.type_code)) {
                // counted, never a problem: the table is not captured
                let name = format!("{}.{}", version.owner, version.name);
                for (column, code) in unrenderable_values(&version.columns, rc, None) {
                    count(&mut self.unrenderable_out_of_scope, (name.clone(), column, code));
                }
            }
            return None;
        }
        Some(Table { owner: version.owner.clone(), name: version.name.clone(), version: Some(version) })
    }

    fn shape<'d>(
        &mut self,
        rc: RowChange,
        ddl: &mut Option<&mut (dyn DdlHandler + 'd)>,
    ) -> Result<Option<Shaped>> {
        if rc.op == RowOp::Ddl {
            self.add("ddl", 1);
            if self.options.apply_ddl && self.dictionary.as_ref().is_some_and(Dictionary::follows_tables) {
                // the SYS rows say what a table DDL did (its columns, key, name, a new table): its
                // text is not applied, only counted by what it is about (docs/dictionary.md)
                let subject = super::ddl::ddl_subject(&rc.ddl_text, &rc.ddl_schema);
                self.add(ddl_kind_counter(&subject, &rc.ddl_text), 1);
                self.add("ddl_from_sys_rows", 1);
                self.texts_not_applied.insert(rc.obj);
                return self.shape_ddl(rc, None);
            }
            if self.options.apply_ddl && self.dictionary.is_some() {
                let Some(handler) = ddl.as_deref_mut() else {
                    self.add("ddl_not_applied", 1); // no handler: the dictionary stays as it was
                    return self.shape_ddl(rc, None);
                };
                let mut problems = std::mem::take(&mut self.ddl_problems);
                let evolved = handler.evolve(&rc, &mut self.counters, &mut problems);
                self.ddl_problems = problems;
                if let Some(mut d) = evolved? {
                    d.set_sys(self.dictionary.as_mut().and_then(Dictionary::take_sys));
                    self.dictionary = Some(d);
                    self.by_dataobj = None; // creates and drops change this map
                }
            }
            return self.shape_ddl(rc, ddl.as_deref_mut());
        }
        let Some(table) = self.table(&rc) else { return Ok(None) };
        let version = table.version.clone();
        let columns: &[super::dictionary::ColumnDef] = version.as_deref().map_or(&[], |v| &v.columns);
        let named = !columns.is_empty();
        self.lob_carry.note_row(columns, &rc);
        let key_idx: Vec<i32> = match &version {
            Some(v) if named => columns
                .iter()
                .filter(|c| v.key_columns.iter().any(|k| **k == *c.name))
                .map(|c| (c.segcol_no - 1) as i32)
                .collect(),
            _ => rc.logged.clone(),
        };
        let mut rc = rc;
        let changed_any = !rc.changed.is_empty();
        let kept: Vec<super::dictionary::ColumnDef>;
        let columns: &[super::dictionary::ColumnDef] = if named && !self.options.exclude_columns.is_empty() {
            match self.exclude_columns(&table, columns, &key_idx, &mut rc) {
                Some(k) => {
                    kept = k;
                    &kept
                }
                None => columns,
            }
        } else {
            columns
        };
        // an update that changed only columns left out of the scope: its record changes none (not
        // "every column of its image", what an update without changed columns otherwise means)
        let none_changed = changed_any && rc.changed.is_empty();
        if unsupported_row(&mut rc, columns, &key_idx, &self.options) {
            let obj = self.obj_of(&rc);
            count(&mut self.unsupported, (obj, rc.op.as_str()));
            return Ok(None);
        }
        if named && columns.iter().any(|c| unrenderable_type(c.type_code)) {
            // A value the decoder cannot render is never written as hex, and the row is not emitted
            // without it: a record missing a column the source row has would be published as if
            // complete (a mirror merging an update of that column alone would change nothing). The
            // row change is counted like an OLTP-compressed one (`unsupported`, a term of the
            // balance) and by table, column and type (`unrenderable`), so the batch fails
            // `unsupported_changes` naming the column; leaving the column out of the capture scope
            // (`-OWNER.TABLE.COLUMN`) lets the same row through without it.
            let needed = needed_columns(columns, &rc, &key_idx, &self.options);
            let hits = unrenderable_values(columns, &rc, Some(&needed));
            if !hits.is_empty() {
                let name = format!("{}.{}", table.owner, table.name);
                for (column, code) in hits {
                    count(&mut self.unrenderable, (name.clone(), column, code));
                }
                let obj = self.obj_of(&rc);
                count(&mut self.unsupported, (obj, rc.op.as_str()));
                count(&mut self.unrenderable_ops, (obj, rc.op.as_str()));
                return Ok(None);
            }
        }
        let mut lob_columns: Vec<LobColumn> = Vec::new();
        // ALL COLUMNS logged: the table's deletes carry the whole row (GoldenGate with every column
        // supplementally logged), with or without the full-deletes option
        let full_deletes = self.options.full_deletes || version.as_ref().is_some_and(|v| v.supplemental_all);
        // minimal logging: an update whose redo holds not all of the key is keyed by its ROWID
        let rowid_keyed = named
            && !matches!(rc.op, RowOp::Insert | RowOp::Delete)
            && !key_idx.iter().all(|i| rc.after.contains_key(i) || rc.before.contains_key(i));
        if rowid_keyed {
            let obj = self.obj_of(&rc);
            count(&mut self.rowid_keyed, (obj, "UPDATE"));
        }
        let update_before_images = self.options.update_before_images;
        let mut before_image: Option<(Pairs, Vec<LobColumn>)> = None;
        let mut r = Renderer {
            emitter: self,
            columns,
            owner: &table.owner,
            table: &table.name,
            lobs: &mut lob_columns,
            fatal: None,
        };
        let rowid = rowid(rc.dataobj, rc.bdba, rc.slot)?;
        let (io_type, op, cols, before, changed) = match rc.op {
            RowOp::Insert => {
                let cols: Pairs = if named {
                    row_columns(columns, &rc.after)
                        .into_iter()
                        .map(|i| r.render(i, rc.after.get(&i).and_then(Option::as_deref)))
                        .collect()
                } else {
                    rc.after.iter().map(|(i, v)| r.render(*i, v.as_deref())).collect()
                };
                (INSERT, "INSERT", cols, Vec::new(), Vec::new())
            }
            RowOp::Delete => {
                let cols: Pairs = if full_deletes && named {
                    // every column of the row, as an insert's image: a row does not store its trailing
                    // NULL columns (redo-format, 11.2 IRP: cc stops at the last non-NULL column), so
                    // a column the undo lacks is NULL
                    row_columns(columns, &rc.before)
                        .into_iter()
                        .filter_map(|i| r.render_before(i, rc.before.get(&i).and_then(Option::as_deref)))
                        .collect()
                } else if full_deletes || key_idx.is_empty() {
                    rc.before.iter().filter_map(|(i, v)| r.render_before(*i, v.as_deref())).collect()
                } else {
                    key_idx
                        .iter()
                        .map(|i| r.render(*i, rc.before.get(i).and_then(Option::as_deref)))
                        .collect()
                };
                (DELETE, "DELETE", cols, Vec::new(), Vec::new())
            }
            _ => {
                let changed: Vec<i32> = if none_changed {
                    Vec::new()
                } else if rc.changed.is_empty() {
                    rc.after.keys().copied().collect()
                } else {
                    rc.changed.clone()
                };
                // keyed by ROWID: the key columns the redo holds, none it does not (a change of
                // one of those is still a key update, its old value the before image)
                let key_idx: Vec<i32> = if rowid_keyed {
                    key_idx
                        .iter()
                        .copied()
                        .filter(|i| rc.after.contains_key(i) || rc.before.contains_key(i))
                        .collect()
                } else {
                    key_idx.clone()
                };
                let key_changed = key_idx.iter().any(|i| match (rc.after.get(i), rc.before.get(i)) {
                    (Some(a), Some(b)) => a != b,
                    _ => false,
                });
                let changed_names: Vec<String> =
                    changed.iter().map(|i| r.render(*i, None).0.to_string()).collect();
                let before: Pairs = if key_changed {
                    key_idx
                        .iter()
                        .map(|i| r.render(*i, rc.before.get(i).and_then(Option::as_deref)))
                        .collect()
                } else {
                    Vec::new()
                };
                let order: Vec<i32> = key_idx
                    .iter()
                    .copied()
                    .chain(changed.iter().copied().filter(|i| !key_idx.contains(i)))
                    .collect();
                // the before record: the same columns, then every other column the supplemental data
                // logged (all of them with ALL COLUMNS logging), each with the value the redo holds
                // before the change; a column it does not hold is not in the image (never NULL)
                before_image = update_before_images.then(|| {
                    let start = r.lobs.len();
                    let mut logged: Vec<i32> =
                        rc.logged.iter().copied().filter(|i| !order.contains(i)).collect();
                    logged.sort_unstable();
                    logged.dedup();
                    let cols: Pairs = order
                        .iter()
                        .chain(logged.iter())
                        .filter_map(|i| rc.before.get(i).and_then(|v| r.render_before(*i, v.as_deref())))
                        .collect();
                    (cols, r.lobs.drain(start..).collect::<Vec<LobColumn>>())
                });
                let cols: Pairs = order
                    .into_iter()
                    .map(|i| {
                        let value = match rc.after.get(&i) {
                            Some(v) => v.as_deref(),
                            None => rc.before.get(&i).and_then(Option::as_deref),
                        };
                        r.render(i, value)
                    })
                    .collect();
                if key_changed {
                    (PK_UPDATE, "PK_UPDATE", cols, before, changed_names)
                } else {
                    (COMPRESSED_UPDATE, "UPDATE", cols, before, changed_names)
                }
            }
        };
        if let Some(e) = r.fatal.take() {
            return Err(e);
        }
        let key_columns = match &version {
            Some(v) if !rowid_keyed => v.key_columns.clone(),
            _ => Vec::new(),
        };
        let before_record = before_image.map(|(columns, lob_columns)| {
            let position = RowChange {
                before: RowImage::new(),
                after: RowImage::new(),
                changed: Vec::new(),
                ..rc.clone()
            };
            Box::new(Shaped {
                rc: position,
                owner: table.owner.clone(),
                table: table.name.clone(),
                key_columns: key_columns.clone(),
                io_type,
                op,
                columns,
                before: Vec::new(),
                changed: changed.clone(),
                rowid: rowid.clone(),
                lob_columns,
                before_after: "B",
                before_record: None,
            })
        });
        Ok(Some(Shaped {
            rc,
            owner: table.owner,
            table: table.name,
            key_columns,
            io_type,
            op,
            columns: cols,
            before,
            changed,
            rowid,
            lob_columns,
            before_after: if io_type == DELETE { "B" } else { "A" },
            before_record,
        }))
    }

    /// A DDL as its trail record (IOType 160): verb, object type and text as the image, no row.
    fn shape_ddl<'h>(
        &mut self,
        rc: RowChange,
        handler: Option<&mut (dyn DdlHandler + 'h)>,
    ) -> Result<Option<Shaped>> {
        let subject = match handler {
            Some(h) => h.subject(&rc.ddl_text, &rc.ddl_schema)?,
            None => super::ddl::ddl_subject(&rc.ddl_text, &rc.ddl_schema),
        };
        if self.dictionary.is_some() && !self.captured(&subject.owner, &subject.name) {
            self.add("ddl_out_of_scope", 1);
            return Ok(None);
        }
        let columns: Pairs = vec![
            (Name::from("OPERATION"), Some(subject.operation.clone())),
            (Name::from("OBJECT_TYPE"), Some(subject.object_type.clone())),
            (Name::from("DDL_TEXT"), Some(rc.ddl_text.clone())),
        ];
        count(
            &mut self.ddl_records,
            (format!("{}.{}", subject.owner, subject.name), subject.operation.clone()),
        );
        Ok(Some(Shaped {
            rc,
            owner: subject.owner,
            table: subject.name,
            key_columns: Vec::new(),
            io_type: DDL,
            op: "DDL",
            columns,
            before: Vec::new(),
            changed: Vec::new(),
            rowid: String::new(),
            lob_columns: Vec::new(),
            before_after: "A",
            before_record: None,
        }))
    }

    /// The data of a LOB column value (its locator): in-row data, or the pages it names; else why
    /// not (`securefile::reason`). A locator that does not parse is `Err` (a value error).
    fn lob_data(&mut self, value: &[u8]) -> Result<std::result::Result<Vec<u8>, String>> {
        let locator = parse_lob_locator(value)?;
        let in_row = locator.inline.is_some();
        let data = resolve_locator(self.lobs.as_mut(), &locator)?;
        if data.is_ok() {
            self.add(if in_row { "lob_values_in_row" } else { "lob_values_out_of_row" }, 1);
        }
        Ok(data)
    }

    /// `OWNER.TABLE` of an object as the dictionary last knew it (a table's obj, else a partition's
    /// or table's dataobj), else `OBJ_<n>` (Python `TrailEmitter.table_name`).
    pub fn table_name(&self, obj: i64) -> String {
        if let Some(d) = &self.dictionary {
            let mut by_dataobj: Option<&TableVersion> = None;
            let mut by_obj: Option<&TableVersion> = None;
            for v in d.iter() {
                if v.obj == obj {
                    by_obj = Some(v); // the last version wins
                }
                if by_dataobj.is_none() && v.dataobj == Some(obj) {
                    by_dataobj = Some(v); // setdefault: the first one
                }
            }
            if let Some(v) = by_obj.or(by_dataobj) {
                return format!("{}.{}", v.owner, v.name);
            }
            if let Some(o) = d.owner_object(obj) {
                return format!("{}.{}", o.owner, o.name); // listed by the export, not described
            }
            // a partition or data object the SYS rows tie to a table (created after the export)
            let tables = d.sys().map(|s| s.tables_ever(obj)).unwrap_or_default();
            if let Some(v) = tables.iter().find_map(|t| d.iter().filter(|v| v.obj == *t).last()) {
                return format!("{}.{}", v.owner, v.name);
            }
        }
        format!("OBJ_{obj}")
    }

    /// Why a change to `obj` is `unknown_in_scope` (counts.json, rule 2's sample rows):
    /// `not_in_dictionary` when the export lists it among a captured owner's objects but describes
    /// no table for it, `created_after_export` when it is numbered above `max_object_id`.
    pub fn unknown_reason(&self, obj: i64) -> &'static str {
        match &self.dictionary {
            Some(d) if d.owner_object(obj).is_some() => "not_in_dictionary",
            _ => "created_after_export",
        }
    }

    /// The columns of `table` the capture scope leaves out (`exclude_columns`), each with the hidden
    /// columns that store it, taken out of the row change's images: the table's columns without
    /// them, `None` when none is left out. A key column stays (the trail's rule 12 needs it):
    /// [`Emitter::excluded_keys`] refuses such an entry up front, and one a later DDL made a key is
    /// kept and counted (`excluded_key_columns_kept`). Values of an unrenderable column left out
    /// are counted out of scope (`unrenderable_out_of_scope`), never a problem.
    fn exclude_columns(
        &mut self,
        table: &Table,
        columns: &[super::dictionary::ColumnDef],
        key_idx: &[i32],
        rc: &mut RowChange,
    ) -> Option<Vec<super::dictionary::ColumnDef>> {
        let prefix = format!("{}.{}.", table.owner, table.name);
        let excluded = &self.options.exclude_columns;
        if !excluded.range(prefix.clone()..).next().is_some_and(|e| e.starts_with(&prefix)) {
            return None;
        }
        let mut out: Vec<usize> = Vec::new();
        let mut kept_keys = 0;
        // the values the record would show, as for a captured column (`needed_columns`): a delete's
        // before image holds the whole row, but its record only the key
        let needed = needed_columns(columns, rc, key_idx, &self.options);
        for group in column_groups(columns) {
            let head = &columns[group.start];
            if !excluded.contains(&format!("{prefix}{}", head.name)) {
                continue;
            }
            if columns[group.clone()].iter().any(|c| key_idx.contains(&((c.segcol_no - 1) as i32))) {
                kept_keys += 1;
                continue;
            }
            if unrenderable_type(head.type_code)
                && !unrenderable_values(&columns[group.clone()], rc, Some(&needed)).is_empty()
            {
                let key = (format!("{}.{}", table.owner, table.name), head.name.to_string(), head.type_code);
                count(&mut self.unrenderable_out_of_scope, key);
            }
            out.extend(group);
        }
        if kept_keys > 0 {
            self.add("excluded_key_columns_kept", kept_keys);
        }
        if out.is_empty() {
            return None;
        }
        let mut removed = 0;
        for &p in &out {
            let i = (columns[p].segcol_no - 1) as i32;
            removed += u64::from(rc.after.remove(&i).is_some()) + u64::from(rc.before.remove(&i).is_some());
            rc.changed.retain(|&c| c != i);
        }
        if removed > 0 {
            self.add("excluded_column_values", removed); // image entries taken out (NULLs too)
        }
        Some(columns.iter().enumerate().filter(|(p, _)| !out.contains(p)).map(|(_, c)| c.clone()).collect())
    }

    /// The `exclude_columns` entries that name a key column (trail contract rule 12) of a version of
    /// their table in the dictionary: a record without its key cannot be applied, so such an entry
    /// is refused when the emitter is made (the binding raises `DictionaryError`).
    pub fn excluded_keys(&self) -> Vec<String> {
        let Some(d) = &self.dictionary else { return Vec::new() };
        let excluded = &self.options.exclude_columns;
        let mut out: BTreeSet<String> = BTreeSet::new();
        for v in d.iter() {
            for key in &v.key_columns {
                let entry = format!("{}.{}.{key}", v.owner, v.name);
                if excluded.contains(&entry) {
                    out.insert(entry);
                }
            }
        }
        out.into_iter().collect()
    }

    /// The capture scope as counts.json reports it: (capture entries, max_object_id, unclassified);
    /// the columns left out as their `-OWNER.TABLE.COLUMN` entries, last.
    pub fn scope(&self) -> (Vec<String>, Option<i64>, u64) {
        let o = &self.options;
        let capture: BTreeSet<&String> = o.include_owners.iter().chain(&o.include_tables).collect();
        let excluded = o.exclude_columns.iter().map(|c| format!("-{c}"));
        (
            capture.into_iter().cloned().chain(excluded).collect(),
            self.dictionary.as_ref().and_then(|d| d.max_object_id),
            self.counters.get("unknown_unclassified_changes").copied().unwrap_or(0),
        )
    }
}

/// The columns of a row change's record the emitter renders (positions in `columns` are not used:
/// redo column indexes): an insert's every column, a delete's key (every column with
/// `full_deletes`), an update's key and changed columns (their before values too with
/// `update_before_images`, which the same indexes name).
fn needed_columns(
    columns: &[super::dictionary::ColumnDef],
    rc: &RowChange,
    key_idx: &[i32],
    options: &EmitOptions,
) -> Vec<i32> {
    let all = || columns.iter().map(|c| (c.segcol_no - 1) as i32).collect();
    match rc.op {
        RowOp::Insert => all(),
        RowOp::Delete if options.full_deletes || key_idx.is_empty() => all(),
        RowOp::Delete => key_idx.to_vec(),
        _ if rc.changed.is_empty() => all(),
        _ => key_idx.iter().chain(&rc.changed).copied().collect(),
    }
}

/// (column, type code) of each column of an [`unrenderable_type`] whose value, or a value of a
/// hidden column storing it ([`column_groups`]), is in the row change and not NULL; `needed`: only
/// those indexes (every one when `None`).
fn unrenderable_values(
    columns: &[super::dictionary::ColumnDef],
    rc: &RowChange,
    needed: Option<&[i32]>,
) -> Vec<(String, i64)> {
    let mut out = Vec::new();
    for group in column_groups(columns) {
        let head = &columns[group.start];
        if !unrenderable_type(head.type_code) {
            continue;
        }
        let carried = columns[group].iter().any(|c| {
            let i = (c.segcol_no - 1) as i32;
            needed.is_none_or(|n| n.contains(&i))
                && [&rc.after, &rc.before].iter().any(|image| matches!(image.get(&i), Some(Some(_))))
        });
        if carried {
            out.push((head.name.to_string(), head.type_code));
        }
    }
    out
}

/// Whether a captured row change needs what an image the decoder does not read holds: an
/// OLTP-compressed row piece (kept whole under `COMPRESSED_ROW` by `events::place`). The marker is
/// taken out of the images either way (never a column). The change is unsupported when a column its
/// record needs is in no other image: an insert's columns, a delete's key (every column with
/// `full_deletes`), an update's key, and every column when the compressed piece is its after image
/// (which columns changed is in it) or its before image with `update_before_images`. Supplemental
/// logging of all columns supplies them all (the real oracdc advanced-compression records); a
/// primary-key one does not. Emitting such a change would give a record without its values: it is
/// counted instead (counts.json `unsupported_ops`, docs/data-quality.md).
fn unsupported_row(
    rc: &mut RowChange,
    columns: &[super::dictionary::ColumnDef],
    key_idx: &[i32],
    options: &EmitOptions,
) -> bool {
    let after = rc.after.remove(&COMPRESSED_ROW).is_some();
    let before = rc.before.remove(&COMPRESSED_ROW).is_some();
    rc.changed.retain(|&i| i != COMPRESSED_ROW);
    if !after && !before {
        return false;
    }
    if columns.is_empty() {
        return true; // schemaless: which columns the piece held is unknown
    }
    let all = row_columns(columns, &rc.after);
    let holds = |image: &RowImage, idx: &[i32]| idx.iter().all(|i| image.contains_key(i));
    match rc.op {
        RowOp::Insert => !holds(&rc.after, &all),
        RowOp::Delete => !holds(&rc.before, if options.full_deletes { &all } else { key_idx }),
        _ => {
            (after && !holds(&rc.after, &all))
                || (before && options.update_before_images && !holds(&rc.before, &all))
                || !key_idx.iter().all(|i| rc.after.contains_key(i) || rc.before.contains_key(i))
        }
    }
}

/// The column indexes of a whole row's image, in ascending segcol# order (Python's
/// `sorted(names)`): every column of the table but hidden ones the image does not hold.
fn row_columns(columns: &[super::dictionary::ColumnDef], image: &RowImage) -> Vec<i32> {
    columns
        .iter()
        .filter(|c| !c.hidden || image.contains_key(&((c.segcol_no - 1) as i32)))
        .map(|c| (c.segcol_no - 1) as i32)
        .collect()
}

struct Head<'a> {
    xid: String,
    commit_scn: i64,
    commit_time: i64,
    commit_log: Option<&'a str>,
}

/// `_shape`'s `render(idx, value)`: (column name, text) of one value of a row.
struct Renderer<'a, 'b> {
    emitter: &'a mut Emitter,
    columns: &'b [super::dictionary::ColumnDef],
    owner: &'b str,
    table: &'b str,
    lobs: &'b mut Vec<LobColumn>,
    /// an error that fails the emit (the LOB page file), raised once the row is rendered
    fatal: Option<Error>,
}

impl Renderer<'_, '_> {
    fn render(&mut self, idx: i32, value: Option<&[u8]>) -> (Name, Option<String>) {
        let segcol = i64::from(idx) + 1;
        let columns = self.columns;
        let Some(col) = columns.binary_search_by_key(&segcol, |c| c.segcol_no).ok().map(|i| &columns[i])
        else {
            return (Name::from(format!("COL_{idx}")), value.map(hex_lower));
        };
        let Some(value) = value else { return (col.name.clone(), None) };
        let mut data: Vec<u8>;
        let mut bytes = value;
        if col.type_code == CLOB || col.type_code == BLOB {
            match self.emitter.lob_data(value) {
                Ok(Ok(d)) => {
                    self.lobs.push(LobColumn::of(&col.name, d.len()));
                    data = d;
                    bytes = &data;
                }
                Ok(Err(why)) => {
                    // counted with its table, column and reason: GE rule 17 fails the batch on it
                    self.emitter.add("lob_values_unresolved", 1);
                    let key = (format!("{}.{}", self.owner, self.table), col.name.to_string(), why);
                    count(&mut self.emitter.lob_unresolved, key);
                    return (col.name.clone(), Some(hex_lower(value)));
                }
                // the page file failing is no bad value: the emit fails (Python: an OSError)
                Err(e @ Error::Storage(_)) => {
                    self.fatal.get_or_insert(e);
                    return (col.name.clone(), None);
                }
                Err(e) => return self.value_error(&col.name, &e, value),
            }
        } else {
            data = Vec::new();
        }
        let charset = col.charset.as_deref().filter(|c| !c.is_empty()).unwrap_or("AL32UTF8");
        let mut text = String::with_capacity(bytes.len() * 2 + 8);
        let result = render_value_into(
            col.type_code,
            bytes,
            CharsetArg::Name(charset),
            ZoneArg::Minutes(0),
            &mut text,
        );
        let out = match result {
            Ok(()) => (col.name.clone(), Some(text)),
            Err(e) => self.value_error(&col.name, &e, bytes),
        };
        data.clear();
        out
    }

    /// A value of a before image (a full delete, an update's before record): as `render`, but an
    /// out-of-row LOB's old value is not in the redo (only its locator is): such a column is left
    /// out of the image (not present, never NULL or locator hex) and counted.
    fn render_before(&mut self, idx: i32, value: Option<&[u8]>) -> Option<(Name, Option<String>)> {
        let segcol = i64::from(idx) + 1;
        let lob = self
            .columns
            .binary_search_by_key(&segcol, |c| c.segcol_no)
            .is_ok_and(|i| matches!(self.columns[i].type_code, CLOB | BLOB));
        if let (true, Some(v)) = (lob, value) {
            if parse_lob_locator(v).is_ok_and(|l| l.inline.is_none()) {
                self.emitter.add("lob_before_values_not_in_redo", 1);
                return None;
            }
        }
        Some(self.render(idx, value))
    }

    fn value_error(&mut self, name: &Name, e: &Error, value: &[u8]) -> (Name, Option<String>) {
        self.emitter.add("value_errors", 1);
        if self.emitter.value_errors.len() < MAX_VALUE_ERRORS {
            let message = format!("{}.{}.{}: {}", self.owner, self.table, name, error_text(e));
            self.emitter.value_errors.push(message);
        }
        (name.clone(), Some(hex_lower(value)))
    }
}

#[cfg(test)]
#[path = "unrenderable_tests.rs"]
mod unrenderable_tests;
