//! The dictionary the emitter shapes rows with (Python `redo_lib/dictionary/history.py`
//! `DictionaryHistory.from_json`, `model.py` `TableVersion` / `ColumnDef` / `choose_key`): table
//! versions by object id and SCN, read once from Redotrail's own JSON document
//! ("redotrail-dictionary", version 1; what `DictionaryHistory.to_json()` writes, docs/dictionary.md).
//!
//! Only what the emitter needs is kept (owner, name, stored columns with segcol#, name, type code,
//! charset, hidden; the key columns; partitions), and the optional `sys` member (`sys.rs`: the SYS
//! rows of the captured owners' objects and partitions, followed from the redo), which `lookup` and
//! `knows` consult between the table versions and their partitions. The checks are Python's, in
//! its order, so a document Python refuses is refused here as an `Error::Dictionary`
//! (`DictionaryError`) with the JSON path of the problem in `json_path`.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::sync::Arc;

use serde_json::{Map, Value};

use super::sys::{col, SysRows, SysTable, TYPE_TABLE};
use super::sys_columns::{columns_from_sys, tables_from_sys, ColumnDisagreement, SysVersion};
use crate::error::{Detail, Error, Position, Result};

#[path = "dictionary_stream.rs"]
mod stream;

/// The value of the document's `"format"` member.
pub const FORMAT_NAME: &str = "redotrail-dictionary";
/// The version of that format read here.
pub const FORMAT_VERSION: i64 = 1;

/// One stored column (`ColumnDef`: the fields the emitter reads).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ColumnDef {
    /// `COL$.SEGCOL#`: the redo column index is `segcol_no - 1` (redo-format §6.6.2)
    pub segcol_no: i64,
    pub name: Arc<str>,
    pub type_code: i64,
    /// the charset name the column's bytes are in, `None` for non-character types
    pub charset: Option<String>,
    pub nullable: bool,
    pub hidden: bool,
}

/// One table on the SCN range `[valid_from_scn, valid_to_scn)` (`TableVersion`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TableVersion {
    pub obj: i64,
    pub dataobj: Option<i64>,
    pub owner: String,
    pub name: String,
    /// stored columns in segcol# order
    pub columns: Vec<ColumnDef>,
    /// trail contract rule 12, in column order
    pub key_columns: Vec<String>,
    pub valid_from_scn: i64,
    pub valid_to_scn: Option<i64>,
    /// (obj, dataobj) of each partition and subpartition
    pub partitions: Vec<(i64, Option<i64>)>,
    /// storage the decoder cannot read (optional members, docs/dictionary.md): an encrypted
    /// tablespace, `COMPRESS_FOR` (OLTP / ADVANCED, QUERY ..., ARCHIVE ...), `IOT_TYPE`
    pub encrypted: bool,
    pub compress_for: Option<String>,
    pub iot_type: Option<String>,
    /// supplemental logging of ALL COLUMNS on the table or the database (optional member
    /// `supplemental`: `all`, docs/dictionary.md): a delete's image is its whole row
    pub supplemental_all: bool,
}

impl TableVersion {
    pub fn covers(&self, scn: i64) -> bool {
        self.valid_from_scn <= scn && self.valid_to_scn.is_none_or(|to| scn < to)
    }

    fn segment_objs(&self) -> Vec<i64> {
        let mut ids: Vec<i64> = Vec::new();
        for &(obj, dataobj) in &self.partitions {
            ids.push(obj);
            ids.extend(dataobj);
        }
        ids.sort_unstable();
        ids.dedup();
        ids
    }
}

/// An object of an exported owner as `DBA_OBJECTS` listed it at the export (`OwnerObject`): the
/// document's `objects` (docs/dictionary.md).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OwnerObject {
    pub obj: i64,
    pub dataobj: Option<i64>,
    pub owner: String,
    /// the table's name (a partition's or subpartition's table)
    pub name: String,
}

/// Table versions by object id and SCN (`DictionaryHistory`).
#[derive(Clone, Debug, Default)]
pub struct Dictionary {
    pub db_charset: String,
    pub national_charset: String,
    pub max_object_id: Option<i64>,
    /// the owners the export was taken for (`None`: not recorded)
    pub owners: Option<BTreeSet<String>>,
    /// the exported owners' tables, partitions and subpartitions by obj and by dataobj
    owner_objects: HashMap<i64, Arc<OwnerObject>>,
    versions: BTreeMap<i64, Vec<Arc<TableVersion>>>,
    /// partition obj / dataobj -> (table obj, version index), in Python's order
    segments: HashMap<i64, Vec<(i64, usize)>>,
    /// the document's `sys` member, followed from the redo (`sys.rs`); `None`: the document had none
    sys: Option<SysRows>,
    /// versions whose columns the table's `COL$` rows give where they and `versions` disagree
    /// (`sys_columns::columns_from_sys`), by table obj; found before `versions`. Derived from the
    /// two, so rebuilt whenever the SYS rows layer changes ([`Dictionary::reconcile`]).
    from_sys: HashMap<i64, Vec<SysVersion>>,
    /// what [`Dictionary::reconcile`] found when the SYS rows layer was last set
    loaded: Vec<ColumnDisagreement>,
    /// [`Dictionary::follows_tables`], found when the layer was set
    follows: bool,
}

impl Dictionary {
    /// Read the JSON document; a document Python's `DictionaryHistory.from_json` refuses is an
    /// `Error::Dictionary` naming the JSON path of the problem. The document's large arrays are
    /// read one element at a time, never as one tree (`dictionary_stream.rs`): the same checks,
    /// errors and result as [`Dictionary::from_document`] on the parsed text.
    pub fn from_json(text: &str) -> Result<Dictionary> {
        stream::read(text)
    }

    /// Like [`Dictionary::from_json`], from a parsed document.
    pub fn from_document(doc: &Value) -> Result<Dictionary> {
        let root = Fields::new(doc, "$".into())?;
        let head = Head::read(&root)?;
        let mut owner_objects = Vec::new();
        for object in root.objects("objects", false)? {
            owner_objects.push(head.object(&object?)?);
        }
        let mut versions = Vec::new();
        for table in root.objects("tables", true)? {
            versions.push(head.table(&table?)?);
        }
        let default_scn = head.default_scn;
        let dictionary = head.dictionary(owner_objects, versions)?;
        let sys = match root.present("sys") {
            Some(member) => Some(SysRows::from_member(member, "$.sys", default_scn)?),
            None => None,
        };
        Ok(dictionary.with_sys(sys))
    }

    /// This dictionary with `sys` as its SYS rows layer.
    pub fn with_sys(mut self, sys: Option<SysRows>) -> Self {
        self.set_sys(sys);
        self
    }

    /// The SYS rows layer (the document's `sys` member as followed so far), if the document had one.
    pub fn sys(&self) -> Option<&SysRows> {
        self.sys.as_ref()
    }

    /// The SYS rows layer, to apply a transaction's SYS row changes to.
    pub fn sys_mut(&mut self) -> Option<&mut SysRows> {
        self.sys.as_mut()
    }

    /// Replace the SYS rows layer (a dictionary rebuilt from a DDL keeps the one followed so far).
    pub fn set_sys(&mut self, sys: Option<SysRows>) {
        self.sys = sys;
        self.loaded = self.reconcile();
        self.follows = self.compute_follows();
    }

    /// Whether the SYS rows follow the captured tables whole: a layer holding `COL$` and `CDEF$`
    /// rows of tables other than `SYS`'s (an export or checkpoint that carries them). Then a table
    /// DDL's effect comes from them alone and its text is not applied (the emitter).
    pub fn follows_tables(&self) -> bool {
        self.follows
    }

    fn compute_follows(&self) -> bool {
        let Some(sys) = &self.sys else { return false };
        let described = |t: SysTable| {
            sys.rows(t)
                .iter()
                .any(|r| r.int(col::KEY).is_some_and(|obj| self.owner_of(obj).is_some_and(|o| o != "SYS")))
        };
        described(SysTable::Col) && described(SysTable::Cdef)
    }

    /// The owner of table `obj` by its versions.
    fn owner_of(&self, obj: i64) -> Option<&str> {
        self.versions.get(&obj).and_then(|v| v.last()).map(|v| v.owner.as_str())
    }

    /// Where the SYS rows and the versions disagreed (at any SCN) when the layer was last set: for
    /// a document just read, what it was written with.
    pub fn loaded_disagreements(&self) -> Vec<ColumnDisagreement> {
        self.loaded.clone()
    }

    /// Take the SYS rows layer out.
    pub fn take_sys(&mut self) -> Option<SysRows> {
        self.from_sys.clear();
        self.loaded.clear();
        self.follows = false;
        self.sys.take()
    }

    /// Rebuild the versions the SYS rows give (after the layer changed): every table with `COL$`
    /// rows, compared with its versions at each SCN either changes (`columns_from_sys`), and every
    /// table only the SYS rows know, from them alone (`tables_from_sys`). Returns every
    /// disagreement, at whatever SCN (the caller reports those its commit made).
    pub fn reconcile(&mut self) -> Vec<ColumnDisagreement> {
        self.from_sys.clear();
        let Some(sys) = &self.sys else { return Vec::new() };
        let mut said = Vec::new();
        for (&obj, versions) in &self.versions {
            let (found, differences) =
                columns_from_sys(obj, versions, sys, &self.db_charset, &self.national_charset);
            if !found.is_empty() {
                self.from_sys.insert(obj, found);
            }
            said.extend(differences);
        }
        // tables only the SYS rows know (created after the export, the CREATE text not applied)
        let mut created: Vec<i64> = sys
            .rows(SysTable::Obj)
            .iter()
            .filter(|r| r.int(col::TYPE) == Some(TYPE_TABLE))
            .filter_map(|r| r.int(col::KEY))
            .filter(|obj| !self.versions.contains_key(obj))
            .collect();
        created.sort_unstable();
        created.dedup();
        for obj in created {
            let (found, differences) = tables_from_sys(obj, sys, &self.db_charset, &self.national_charset);
            if !found.is_empty() {
                self.from_sys.insert(obj, found);
            }
            said.extend(differences);
        }
        said
    }

    /// How many versions the `COL$` rows give (where they and the versions disagree).
    pub fn versions_from_sys(&self) -> usize {
        self.from_sys.values().map(Vec::len).sum()
    }

    /// The versions the `COL$` rows give, by table obj then SCN.
    pub fn from_sys(&self) -> impl Iterator<Item = &SysVersion> {
        let mut objs: Vec<&i64> = self.from_sys.keys().collect();
        objs.sort_unstable();
        objs.into_iter().flat_map(|obj| self.from_sys[obj].iter())
    }

    /// This dictionary with the export's owners and their objects (the document's `owners` and
    /// `objects`).
    pub fn with_owner_objects(mut self, owners: Option<BTreeSet<String>>, objects: Vec<OwnerObject>) -> Self {
        self.owners = owners;
        self.owner_objects.clear();
        for object in objects {
            let object = Arc::new(object);
            for id in std::iter::once(object.obj).chain(object.dataobj) {
                self.owner_objects.entry(id).or_insert_with(|| Arc::clone(&object));
            }
        }
        self
    }

    /// The exported owners' object `obj` names (by its obj or dataobj), if the export listed it.
    pub fn owner_object(&self, obj: i64) -> Option<&OwnerObject> {
        self.owner_objects.get(&obj).map(|o| &**o)
    }

    /// `DictionaryHistory(versions, ...)`: versions of one object must not overlap.
    pub fn new(
        versions: Vec<TableVersion>,
        db_charset: String,
        national_charset: String,
        max_object_id: Option<i64>,
    ) -> Result<Dictionary> {
        let mut first_seen: Vec<i64> = Vec::new();
        let mut by_obj: BTreeMap<i64, Vec<TableVersion>> = BTreeMap::new();
        for v in versions {
            if !by_obj.contains_key(&v.obj) {
                first_seen.push(v.obj);
            }
            by_obj.entry(v.obj).or_default().push(v);
        }
        for (obj, items) in by_obj.iter_mut() {
            items.sort_by_key(|v| v.valid_from_scn);
            for pair in items.windows(2) {
                let (before, after) = (&pair[0], &pair[1]);
                if before.valid_to_scn.is_none_or(|to| to > after.valid_from_scn) {
                    let to = before.valid_to_scn.map_or("None".to_owned(), |t| t.to_string());
                    return Err(Error::dictionary(
                        format!(
                            "versions of object {obj} overlap: one from SCN {} to {to}, the next from SCN {}",
                            before.valid_from_scn, after.valid_from_scn
                        ),
                        Position::default(),
                    )
                    .with_detail("obj", Detail::Int(*obj))
                    .with_detail("scn", Detail::Int(after.valid_from_scn)));
                }
            }
        }
        let mut segments: HashMap<i64, Vec<(i64, usize)>> = HashMap::new();
        for obj in &first_seen {
            for (i, version) in by_obj[obj].iter().enumerate() {
                for seg in version.segment_objs() {
                    segments.entry(seg).or_default().push((*obj, i));
                }
            }
        }
        let versions = by_obj.into_iter().map(|(k, v)| (k, v.into_iter().map(Arc::new).collect())).collect();
        Ok(Dictionary {
            db_charset,
            national_charset,
            max_object_id,
            owners: None,
            owner_objects: HashMap::new(),
            versions,
            segments,
            sys: None,
            from_sys: HashMap::new(),
            loaded: Vec::new(),
            follows: false,
        })
    }

    /// The version `obj` (a table, partition or subpartition obj, or a partition's dataobj)
    /// belonged to at `scn` (`DictionaryHistory.lookup`; `None` where Python raises
    /// `MissingObjectError`).
    pub fn lookup(&self, obj: i64, scn: i64) -> Option<&TableVersion> {
        self.find(obj, scn).map(|v| &**v)
    }

    /// [`Dictionary::lookup`], shared.
    pub fn lookup_arc(&self, obj: i64, scn: i64) -> Option<Arc<TableVersion>> {
        self.find(obj, scn).cloned()
    }

    /// The spec's order (docs/dictionary.md, "How an object resolves"): a version of `obj`; else
    /// the table the SYS rows valid at `scn` resolve `obj` to, and its version; else the
    /// partitions of the versions.
    fn find(&self, obj: i64, scn: i64) -> Option<&Arc<TableVersion>> {
        if let Some(version) = self.version_at(obj, scn) {
            return Some(version);
        }
        if let Some(table) = self.sys.as_ref().and_then(|s| s.table_of(obj, scn)) {
            if let Some(version) = self.version_at(table, scn) {
                return Some(version);
            }
        }
        for &(table, i) in self.segments.get(&obj).map(Vec::as_slice).unwrap_or_default() {
            let version = &self.versions[&table][i];
            if version.covers(scn) {
                return self.version_at(table, scn).or(Some(version));
            }
        }
        None
    }

    /// The version of table `obj` itself at `scn`: the one its `COL$` rows give, else its own.
    fn version_at(&self, obj: i64, scn: i64) -> Option<&Arc<TableVersion>> {
        if let Some(found) =
            self.from_sys.get(&obj).and_then(|list| list.iter().find(|v| v.version.covers(scn)))
        {
            return Some(&found.version);
        }
        for version in self.versions.get(&obj)?.iter().rev() {
            if version.valid_from_scn <= scn {
                return version.covers(scn).then_some(version);
            }
        }
        None
    }

    /// Whether `obj` has a version at any SCN (itself, a table the SYS rows resolve it to at some
    /// SCN, or a partition of a version).
    pub fn knows(&self, obj: i64) -> bool {
        self.versions.contains_key(&obj)
            || self.from_sys.contains_key(&obj)
            || self
                .sys
                .as_ref()
                .is_some_and(|s| s.tables_ever(obj).iter().any(|t| self.versions.contains_key(t)))
            || self.segments.contains_key(&obj)
    }

    /// Every version of every table, by object id then SCN; then the versions of the tables only
    /// the SYS rows know (`tables_from_sys`).
    pub fn iter(&self) -> impl Iterator<Item = &TableVersion> {
        let mut created: Vec<&i64> =
            self.from_sys.keys().filter(|obj| !self.versions.contains_key(obj)).collect();
        created.sort_unstable();
        let created = created.into_iter().flat_map(|obj| self.from_sys[obj].iter().map(|v| &*v.version));
        self.versions.values().flatten().map(|v| &**v).chain(created)
    }
}

/// The document's top-level members but its three large ones (`objects`, `tables`, `sys`), read
/// and checked in Python's order; what the elements of the large ones are converted with.
struct Head {
    db_charset: String,
    national_charset: String,
    /// `scn`: the `valid_from_scn` of a table version or SYS row without one
    default_scn: Option<i64>,
    max_object_id: Option<i64>,
    owners: Option<BTreeSet<String>>,
}

impl Head {
    fn read(root: &Fields<'_>) -> Result<Head> {
        let fmt = root.opt_str("format")?;
        if fmt != Some(FORMAT_NAME) {
            let shown = fmt.map_or("None".to_owned(), |f| format!("'{f}'"));
            return Err(root.problem(
                Some("format"),
                format!("not a Redotrail dictionary (format {shown}, expected '{FORMAT_NAME}')"),
            ));
        }
        let version = root.get_int("format_version")?;
        if version != FORMAT_VERSION {
            return Err(root.problem(
                Some("format_version"),
                format!("unsupported format version {version} (this reader: 1)"),
            ));
        }
        let db_charset = root.get_str("db_charset")?.to_owned();
        let national_charset = root.get_str("national_charset")?.to_owned();
        let default_scn = root.opt_int("scn")?;
        let max_object_id = root.opt_int("max_object_id")?;
        let owners = match root.present("owners") {
            None => None,
            Some(_) => Some(root.get_str_list("owners")?.into_iter().collect()),
        };
        Ok(Head { db_charset, national_charset, default_scn, max_object_id, owners })
    }

    /// One element of `objects`.
    fn object(&self, object: &Fields<'_>) -> Result<OwnerObject> {
        Ok(OwnerObject {
            obj: object.get_int("obj")?,
            dataobj: object.opt_int("dataobj")?,
            owner: object.get_str("owner")?.to_owned(),
            name: object.get_str("name")?.to_owned(),
        })
    }

    /// One element of `tables`.
    fn table(&self, table: &Fields<'_>) -> Result<TableVersion> {
        table_from_json(table, self.default_scn, &self.db_charset, &self.national_charset)
    }

    /// The dictionary of the converted elements (its `sys` layer still to come).
    fn dictionary(self, objects: Vec<OwnerObject>, versions: Vec<TableVersion>) -> Result<Dictionary> {
        let dictionary =
            Dictionary::new(versions, self.db_charset, self.national_charset, self.max_object_id).map_err(
                |mut e| {
                    e.set_default_detail("json_path", "$.tables");
                    e
                },
            )?;
        Ok(dictionary.with_owner_objects(self.owners, objects))
    }
}

// -- the document -----------------------------------------------------------------------------------

fn kind_of(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

/// Python `JsonFields`: typed reads of a JSON object naming the path of any problem.
pub(super) struct Fields<'a> {
    data: &'a Map<String, Value>,
    pub(super) path: String,
}

impl<'a> Fields<'a> {
    pub(super) fn new(value: &'a Value, path: String) -> Result<Self> {
        match value {
            Value::Object(data) => Ok(Fields { data, path }),
            other => Err(Error::dictionary(
                format!("expected a JSON object, got {}", kind_of(other)),
                Position::default(),
            )
            .with_detail("json_path", path)),
        }
    }

    pub(super) fn problem(&self, key: Option<&str>, message: impl Into<String>) -> Error {
        let path = match key {
            Some(k) => format!("{}.{k}", self.path),
            None => self.path.clone(),
        };
        Error::dictionary(message, Position::default()).with_detail("json_path", path)
    }

    /// present and not null
    pub(super) fn present(&self, key: &str) -> Option<&'a Value> {
        self.data.get(key).filter(|v| !v.is_null())
    }

    pub(super) fn required(&self, key: &str) -> Result<&'a Value> {
        self.data.get(key).ok_or_else(|| self.problem(Some(key), "required member is missing"))
    }

    pub(super) fn int(&self, key: &str, value: &Value) -> Result<i64> {
        match value {
            Value::Number(n) if n.is_i64() || n.is_u64() => {
                n.as_i64().ok_or_else(|| self.problem(Some(key), "integer out of the 64-bit range"))
            }
            other => Err(self.problem(Some(key), format!("expected an integer, got {}", kind_of(other)))),
        }
    }

    pub(super) fn get_int(&self, key: &str) -> Result<i64> {
        self.int(key, self.required(key)?)
    }

    pub(super) fn opt_int(&self, key: &str) -> Result<Option<i64>> {
        self.present(key).map(|v| self.int(key, v)).transpose()
    }

    pub(super) fn str_of(&self, key: &str, value: &'a Value) -> Result<&'a str> {
        match value {
            Value::String(s) => Ok(s),
            other => Err(self.problem(Some(key), format!("expected a string, got {}", kind_of(other)))),
        }
    }

    pub(super) fn get_str(&self, key: &str) -> Result<&'a str> {
        self.str_of(key, self.required(key)?)
    }

    pub(super) fn opt_str(&self, key: &str) -> Result<Option<&'a str>> {
        self.present(key).map(|v| self.str_of(key, v)).transpose()
    }

    fn bool_of(&self, key: &str, value: &Value) -> Result<bool> {
        match value {
            Value::Bool(b) => Ok(*b),
            other => Err(self.problem(Some(key), format!("expected true or false, got {}", kind_of(other)))),
        }
    }

    fn get_bool(&self, key: &str) -> Result<bool> {
        self.bool_of(key, self.required(key)?)
    }

    fn opt_bool(&self, key: &str, default: bool) -> Result<bool> {
        self.present(key).map_or(Ok(default), |v| self.bool_of(key, v))
    }

    fn get_list(&self, key: &str) -> Result<&'a Vec<Value>> {
        match self.required(key)? {
            Value::Array(items) => Ok(items),
            other => Err(self.problem(Some(key), format!("expected an array, got {}", kind_of(other)))),
        }
    }

    fn opt_list(&self, key: &str) -> Result<&'a [Value]> {
        match self.present(key) {
            None => Ok(&[]),
            Some(Value::Array(items)) => Ok(items),
            Some(other) => Err(self.problem(Some(key), format!("expected an array, got {}", kind_of(other)))),
        }
    }

    fn get_str_list(&self, key: &str) -> Result<Vec<String>> {
        let items = self.get_list(key)?;
        let mut out = Vec::with_capacity(items.len());
        for (i, item) in items.iter().enumerate() {
            match item {
                Value::String(s) => out.push(s.clone()),
                other => {
                    return Err(self.problem(
                        Some(&format!("{key}[{i}]")),
                        format!("expected a string, got {}", kind_of(other)),
                    ))
                }
            }
        }
        Ok(out)
    }

    pub(super) fn objects(
        &self,
        key: &str,
        required: bool,
    ) -> Result<impl Iterator<Item = Result<Fields<'a>>> + 'a> {
        let items: &'a [Value] = if required { self.get_list(key)? } else { self.opt_list(key)? };
        let base = format!("{}.{key}", self.path);
        Ok(items.iter().enumerate().map(move |(i, item)| Fields::new(item, format!("{base}[{i}]"))))
    }
}

/// `normalize_type_name`: upper case, `(...)` qualifiers removed, single spaces.
pub fn normalize_type_name(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    let mut rest = name;
    while let Some(open) = rest.find('(') {
        match rest[open + 1..].find(')') {
            Some(close) => {
                out.push_str(&rest[..open]);
                rest = &rest[open + 1 + close + 1..];
            }
            None => break,
        }
    }
    out.push_str(rest);
    out.to_uppercase().split_whitespace().collect::<Vec<_>>().join(" ")
}

/// `type_code_for_name` over a normalized name; 0 (UNKNOWN) for names not listed.
pub fn type_code_for_name(name: &str) -> i64 {
    match name {
        "VARCHAR2" | "VARCHAR" | "NVARCHAR2" => 1,
        "NUMBER" | "FLOAT" => 2,
        "LONG" => 8,
        "DATE" => 12,
        "RAW" => 23,
        "LONG RAW" => 24,
        "XMLTYPE" => 58,
        "ROWID" => 69,
        "CHAR" | "NCHAR" => 96,
        "BINARY_FLOAT" => 100,
        "BINARY_DOUBLE" => 101,
        "CLOB" | "NCLOB" => 112,
        "BLOB" => 113,
        "BFILE" => 114,
        "JSON" => 119,
        "TIMESTAMP" => 180,
        "TIMESTAMP WITH TIME ZONE" => 181,
        "INTERVAL YEAR TO MONTH" => 182,
        "INTERVAL DAY TO SECOND" => 183,
        "UROWID" => 208,
        "TIMESTAMP WITH LOCAL TIME ZONE" => 231,
        "BOOLEAN" => 252,
        _ => 0,
    }
}

/// Types never in the "all columns" pseudo key (`model._UNKEYABLE_TYPES`).
const UNKEYABLE_TYPES: [i64; 8] = [8, 24, 58, 112, 113, 114, 119, 0];

fn resolve_charset(name: Option<&str>, db: &str, national: &str) -> Option<String> {
    match name {
        Some("CHAR_CS") => Some(db.to_owned()),
        Some("NCHAR_CS") => Some(national.to_owned()),
        other => other.map(str::to_owned),
    }
}

fn column_from_json(col: &Fields<'_>, db: &str, national: &str) -> Result<Option<ColumnDef>> {
    let segcol_no = col.opt_int("segcol_no")?;
    let name = col.get_str("name")?;
    let type_name = normalize_type_name(col.get_str("type")?);
    let Some(segcol_no) = segcol_no else {
        return Ok(None); // a virtual column: no storage, no place in the redo row
    };
    let type_code = col.opt_int("type_code")?;
    let col_no = col.opt_int("col_no")?.unwrap_or(0);
    let length = col.get_int("length")?;
    col.opt_int("char_length")?;
    col.opt_int("precision")?;
    col.opt_int("scale")?;
    let charset = resolve_charset(col.opt_str("charset")?, db, national);
    let nullable = col.get_bool("nullable")?;
    let hidden = col.opt_bool("hidden", false)?;
    // ColumnDef.__post_init__
    let bad = |message: String, detail: (&'static str, Detail)| {
        Err(Error::dictionary(message, Position::default()).with_detail(detail.0, detail.1))
    };
    if name.is_empty() {
        return bad("column without a name".into(), ("segcol", Detail::Int(segcol_no)));
    }
    if segcol_no < 1 {
        return bad(
            format!("column {name} has segcol# {segcol_no}; stored columns start at 1"),
            ("column", name.into()),
        );
    }
    if col_no < 0 || length < 0 {
        return bad(format!("column {name} has a negative col# or length"), ("column", name.into()));
    }
    Ok(Some(ColumnDef {
        segcol_no,
        name: Arc::from(name),
        type_code: type_code.unwrap_or_else(|| type_code_for_name(&type_name)),
        charset,
        nullable,
        hidden,
    }))
}

pub(super) struct Constraint {
    primary: bool,
    name: String,
    columns: Vec<String>,
}

impl Constraint {
    pub(super) fn new(primary: bool, name: String, columns: Vec<String>) -> Self {
        Constraint { primary, name, columns }
    }
}

/// Where a table's key comes from (trail contract rule 12; Python `KeyKind`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KeyKind {
    Primary,
    Unique,
    All,
}

impl KeyKind {
    /// Python's `KeyKind` value (the document's `key.kind`).
    pub fn as_str(self) -> &'static str {
        match self {
            KeyKind::Primary => "primary",
            KeyKind::Unique => "unique",
            KeyKind::All => "all",
        }
    }
}

/// `model.choose_key` (trail contract rule 12): the key column names in column order.
pub(super) fn choose_key(columns: &[ColumnDef], constraints: Vec<Constraint>) -> Vec<String> {
    choose_key_kind(columns, constraints).1
}

/// [`choose_key`], with where the key comes from.
pub(super) fn choose_key_kind(
    columns: &[ColumnDef],
    mut constraints: Vec<Constraint>,
) -> (KeyKind, Vec<String>) {
    let by_name: HashMap<&str, &ColumnDef> = columns.iter().map(|c| (&*c.name, c)).collect();
    let ordered = |names: &[String]| -> Vec<String> {
        columns.iter().filter(|c| names.iter().any(|n| **n == *c.name)).map(|c| c.name.to_string()).collect()
    };
    constraints.sort_by(|a, b| (!a.primary, &a.name).cmp(&(!b.primary, &b.name)));
    for con in &constraints {
        if con.columns.is_empty() || con.columns.iter().any(|n| !by_name.contains_key(n.as_str())) {
            continue;
        }
        if con.primary {
            return (KeyKind::Primary, ordered(&con.columns));
        }
        if !con.columns.iter().any(|n| by_name[n.as_str()].nullable) {
            return (KeyKind::Unique, ordered(&con.columns));
        }
    }
    let visible: Vec<&ColumnDef> = columns.iter().filter(|c| !c.hidden).collect();
    let keyable: Vec<&ColumnDef> =
        visible.iter().copied().filter(|c| !UNKEYABLE_TYPES.contains(&c.type_code)).collect();
    let chosen: Vec<&ColumnDef> = if !keyable.is_empty() {
        keyable
    } else if !visible.is_empty() {
        visible
    } else {
        columns.iter().collect()
    };
    (KeyKind::All, chosen.into_iter().map(|c| c.name.to_string()).collect())
}

fn table_from_json(
    table: &Fields<'_>,
    default_scn: Option<i64>,
    db: &str,
    national: &str,
) -> Result<TableVersion> {
    let obj = table.get_int("obj")?;
    let mut columns = Vec::new();
    for col in table.objects("columns", true)? {
        let col = col?;
        match column_from_json(&col, db, national) {
            Ok(Some(c)) => columns.push(c),
            Ok(None) => {}
            Err(mut e) => {
                e.set_default_detail("json_path", col.path.clone());
                return Err(e);
            }
        }
    }
    columns.sort_by_key(|c| c.segcol_no);
    let key_columns = match table.present("key") {
        Some(_) => {
            let key = Fields::new(table.required("key")?, format!("{}.key", table.path))?;
            let kind = key.get_str("kind")?;
            if !matches!(kind, "primary" | "unique" | "all") {
                return Err(key
                    .problem(Some("kind"), format!("key kind '{kind}' is not one of primary, unique, all")));
            }
            key.get_str_list("columns")?
        }
        None => {
            let mut constraints = Vec::new();
            for con in table.objects("constraints", false)? {
                let con = con?;
                let kind = con.get_str("type")?;
                let primary = match kind {
                    "P" | "primary" => true,
                    "U" | "unique" => false,
                    other => {
                        return Err(con.problem(
                            Some("type"),
                            format!("constraint type '{other}' is not P (primary) or U (unique)"),
                        ))
                    }
                };
                let cols = con.get_str_list("columns")?;
                let name = con.get_str("name")?.to_owned();
                constraints.push(Constraint { primary, name, columns: cols });
            }
            choose_key(&columns, constraints)
        }
    };
    let valid_from = match table.opt_int("valid_from_scn")?.or(default_scn) {
        Some(scn) => scn,
        None => {
            return Err(
                table.problem(Some("valid_from_scn"), "missing, and the document has no top-level scn")
            )
        }
    };
    let mut partitions = Vec::new();
    for p in table.objects("partitions", false)? {
        let p = p?;
        let pobj = p.get_int("obj")?;
        let pdataobj = p.opt_int("dataobj")?;
        p.opt_str("name")?;
        partitions.push((pobj, pdataobj));
    }
    let dataobj = table.opt_int("dataobj")?;
    let owner = table.get_str("owner")?.to_owned();
    let name = table.get_str("name")?.to_owned();
    let valid_to = table.opt_int("valid_to_scn")?;
    let encrypted = table.opt_bool("encrypted", false)?;
    let compress_for = table.opt_str("compress_for")?.filter(|s| !s.is_empty()).map(str::to_owned);
    let iot_type = table.opt_str("iot_type")?.filter(|s| !s.is_empty()).map(str::to_owned);
    let supplemental = table.opt_str("supplemental")?.unwrap_or("primary");
    if !SUPPLEMENTAL_MODES.contains(&supplemental) {
        return Err(table.problem(
            Some("supplemental"),
            format!("supplemental '{supplemental}' is not one of {}", SUPPLEMENTAL_MODES.join(", ")),
        ));
    }
    let version = TableVersion {
        obj,
        dataobj,
        owner,
        name,
        columns,
        key_columns,
        valid_from_scn: valid_from,
        valid_to_scn: valid_to,
        partitions,
        encrypted,
        compress_for,
        iot_type,
        supplemental_all: supplemental == "all",
    };
    check_version(&version).map_err(|mut e| {
        e.set_default_detail("json_path", table.path.clone());
        e
    })?;
    Ok(version)
}

/// The table's supplemental logging as the dictionary's `supplemental` member names it (the
/// scenario's `supplemental:`; `primary` when absent).
const SUPPLEMENTAL_MODES: [&str; 5] = ["all", "primary", "unique", "foreign", "none"];

/// `TableVersion.__post_init__`.
fn check_version(v: &TableVersion) -> Result<()> {
    let full = format!("{}.{}", v.owner, v.name);
    let err = |message: String| {
        Error::dictionary(message, Position::default()).with_detail("obj", Detail::Int(v.obj))
    };
    if v.columns.is_empty() {
        return Err(err(format!("{full}: table without stored columns")));
    }
    let mut previous = 0;
    let mut names: Vec<&str> = Vec::new();
    for c in &v.columns {
        if c.segcol_no <= previous {
            return Err(err(format!(
                "{full}: columns not in strictly ascending segcol# order at {}",
                c.name
            ))
            .with_detail("segcol", Detail::Int(c.segcol_no)));
        }
        if names.contains(&&*c.name) {
            return Err(err(format!("{full}: duplicate column {}", c.name)));
        }
        previous = c.segcol_no;
        names.push(&*c.name);
    }
    let missing: Vec<&String> = v.key_columns.iter().filter(|k| !names.contains(&k.as_str())).collect();
    if !missing.is_empty() || v.key_columns.is_empty() {
        return Err(err(format!("{full}: key columns {missing:?} are not columns of the table")));
    }
    if let Some(to) = v.valid_to_scn {
        if to <= v.valid_from_scn {
            return Err(err(format!("{full}: empty SCN range [{}, {to})", v.valid_from_scn))
                .with_detail("scn", Detail::Int(v.valid_from_scn)));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    const DOC: &str = r#"{"format": "redotrail-dictionary", "format_version": 1, "db_charset": "AL32UTF8",
      "national_charset": "AL16UTF16", "max_object_id": 100, "tables": [
      {"obj": 10, "dataobj": 11, "owner": "HR", "name": "T", "valid_from_scn": 5, "valid_to_scn": 50,
       "columns": [{"segcol_no": 2, "name": "B", "type": "VARCHAR2(10)", "length": 10, "nullable": true, "charset": "CHAR_CS"},
                   {"segcol_no": 1, "name": "A", "type": "NUMBER", "length": 22, "nullable": false},
                   {"segcol_no": null, "name": "V", "type": "NUMBER"}],
       "constraints": [{"name": "U1", "type": "U", "columns": ["A"]}],
       "partitions": [{"obj": 12, "dataobj": 13}]}]}"#;

    #[test]
    fn reads_versions_keys_and_segments() {
        let d = Dictionary::from_json(DOC).unwrap();
        let v = d.lookup(10, 5).unwrap();
        assert_eq!(v.columns.iter().map(|c| &*c.name).collect::<Vec<_>>(), ["A", "B"]);
        assert_eq!(v.columns[1].type_code, 1);
        assert_eq!(v.columns[1].charset.as_deref(), Some("AL32UTF8"));
        assert_eq!(v.key_columns, ["A"]);
        assert!(d.lookup(10, 50).is_none() && d.lookup(13, 49).is_some() && d.knows(12));
        assert_eq!(d.max_object_id, Some(100));
        // an older export: no storage attributes
        assert!(!v.encrypted && v.compress_for.is_none() && v.iot_type.is_none());
    }

    #[test]
    fn reads_the_exported_owners_and_their_objects() {
        let d = Dictionary::from_json(DOC).unwrap();
        assert!(d.owners.is_none() && d.owner_object(20).is_none()); // an older export
        let doc =
            DOC.replace("\"max_object_id\": 100,", "\"max_object_id\": 100, \"owners\": [\"HR\"],").replace(
                "]}]}",
                "]}], \"objects\": [{\"obj\": 10, \"dataobj\": 11, \"owner\": \"HR\", \"name\": \"T\"}, \
             {\"obj\": 20, \"dataobj\": 21, \"owner\": \"HR\", \"name\": \"GONE\", \"subname\": \"P1\", \
              \"type\": \"TABLE PARTITION\"}]}",
            );
        let d = Dictionary::from_json(&doc).unwrap();
        assert_eq!(
            d.owners.as_ref().map(|o| o.iter().cloned().collect::<Vec<_>>()),
            Some(vec!["HR".to_owned()])
        );
        // listed but not described: named by its obj and by its dataobj
        assert!(!d.knows(20) && !d.knows(21));
        assert_eq!(d.owner_object(21).map(|o| (o.obj, o.name.as_str())), Some((20, "GONE")));
        let bad = doc.replace("\"name\": \"GONE\",", "");
        assert_eq!(Dictionary::from_json(&bad).unwrap_err().kind(), "dictionary");
    }

    #[test]
    fn reads_the_storage_attributes() {
        let doc = DOC.replace(
            "\"owner\": \"HR\",",
            "\"owner\": \"HR\", \"encrypted\": true, \"compress_for\": \"QUERY HIGH\", \"iot_type\": \"IOT\",",
        );
        let d = Dictionary::from_json(&doc).unwrap();
        let v = d.lookup(10, 5).unwrap();
        assert!(v.encrypted);
        assert_eq!((v.compress_for.as_deref(), v.iot_type.as_deref()), (Some("QUERY HIGH"), Some("IOT")));
        let bad = DOC.replace("\"owner\": \"HR\",", "\"owner\": \"HR\", \"encrypted\": \"yes\",");
        assert_eq!(Dictionary::from_json(&bad).unwrap_err().kind(), "dictionary");
    }

    #[test]
    fn reads_the_supplemental_logging() {
        let d = Dictionary::from_json(DOC).unwrap();
        assert!(!d.lookup(10, 5).unwrap().supplemental_all); // absent: primary key logging
        for (mode, all) in
            [("all", true), ("primary", false), ("unique", false), ("foreign", false), ("none", false)]
        {
            let doc = DOC
                .replace("\"owner\": \"HR\",", &format!("\"owner\": \"HR\", \"supplemental\": \"{mode}\","));
            assert_eq!(
                Dictionary::from_json(&doc).unwrap().lookup(10, 5).unwrap().supplemental_all,
                all,
                "{mode}"
            );
        }
        let bad = DOC.replace("\"owner\": \"HR\",", "\"owner\": \"HR\", \"supplemental\": \"ALL COLUMNS\",");
        let e = Dictionary::from_json(&bad).unwrap_err();
        assert_eq!(e.kind(), "dictionary");
        assert!(e.to_string().contains("supplemental 'ALL COLUMNS' is not one of"), "{e}");
    }

    #[test]
    fn malformed_documents_are_dictionary_errors() {
        for text in ["[", "[]", r#"{"format": "x"}"#, &DOC.replace("\"obj\": 10", "\"obj\": \"10\"")] {
            let e = Dictionary::from_json(text).unwrap_err();
            assert_eq!(e.kind(), "dictionary", "{text}");
        }
    }

    /// What `from_json` was before it streamed: the whole document as a `Value`, then
    /// `from_document`.
    fn from_tree(text: &str) -> Result<Dictionary> {
        let doc: Value = serde_json::from_str(text).map_err(|e| {
            Error::dictionary(format!("not valid JSON: {e}"), Position::default())
                .with_detail("line", Detail::Int(e.line() as i64))
                .with_detail("column", Detail::Int(e.column() as i64))
        })?;
        Dictionary::from_document(&doc)
    }

    /// Everything a dictionary holds, comparable.
    fn contents(d: &Dictionary) -> String {
        let mut objects: Vec<String> = d.owner_objects.iter().map(|(id, o)| format!("{id}: {o:?}")).collect();
        objects.sort();
        let mut segments: Vec<String> = d.segments.iter().map(|(id, s)| format!("{id}: {s:?}")).collect();
        segments.sort();
        format!(
            "{} {} {:?} {:?} {:?} {objects:?} {segments:?} {:?}",
            d.db_charset,
            d.national_charset,
            d.max_object_id,
            d.owners,
            d.iter().collect::<Vec<_>>(),
            d.sys()
        )
    }

    /// `from_json` (streamed) and `from_tree` agree: the same dictionary or the same error.
    fn agree(text: &str) -> Result<String> {
        let (streamed, tree) = (Dictionary::from_json(text), from_tree(text));
        match (&streamed, &tree) {
            (Ok(a), Ok(b)) => assert_eq!(contents(a), contents(b), "{text}"),
            (Err(a), Err(b)) => assert_eq!(a, b, "{text}"),
            _ => panic!("{text}: streamed {streamed:?}, tree {tree:?}"),
        }
        streamed.map(|d| contents(&d))
    }

    fn json_path(e: &Error) -> Option<String> {
        e.info().details.iter().find(|(k, _)| *k == "json_path").map(|(_, v)| format!("{v:?}"))
    }

    const SYS: &str = r#""sys": {"OBJ$": [{"rowid": "AAAAASAABAAAAA1AAA", "valid_to_scn": null, "OBJ#": 12,
        "DATAOBJ#": 13, "OWNER#": 50, "NAME": "T", "SUBNAME": "P1", "TYPE#": 19, "FLAGS": 0}],
      "TABPART$": [{"rowid": "AAAAAVAABAAAAB1AAA", "valid_to_scn": null, "OBJ#": 12, "DATAOBJ#": 13,
        "BO#": 10, "PART#": 1}], "TABCOMPART$": [], "TABSUBPART$": [],
      "USER$": [{"rowid": "AAAAAWAABAAAAC1AAA", "valid_to_scn": null, "USER#": 50, "NAME": "HR"}]}"#;

    /// Three tables without `valid_from_scn` (the top-level `scn` is theirs), owners, objects and
    /// `sys`, with the members in the order given.
    fn ordered(members: &[&str]) -> String {
        let table = |obj: i64| {
            format!(
                r#"{{"obj": {obj}, "owner": "HR", "name": "T{obj}", "columns": [
                {{"segcol_no": 1, "name": "A", "type": "NUMBER", "length": 22, "nullable": false}},
                {{"segcol_no": 2, "name": "B", "type": "VARCHAR2", "length": 9, "nullable": true, "charset": "CHAR_CS"}}],
                "partitions": [{{"obj": {}, "dataobj": {}}}]}}"#,
                obj + 2,
                obj + 3
            )
        };
        let member = |name: &str| match name {
            "format" => r#""format": "redotrail-dictionary", "format_version": 1"#.to_owned(),
            "scn" => r#""scn": 7"#.to_owned(),
            "db_charset" => r#""db_charset": "AL32UTF8", "national_charset": "AL16UTF16""#.to_owned(),
            "owners" => r#""owners": ["HR"], "max_object_id": 99"#.to_owned(),
            "objects" => {
                r#""objects": [{"obj": 10, "dataobj": 11, "owner": "HR", "name": "T10"}]"#.to_owned()
            }
            "tables" => format!(r#""tables": [{}, {}, {}]"#, table(10), table(20), table(30)),
            "sys" => SYS.to_owned(),
            other => other.to_owned(),
        };
        format!("{{{}}}", members.iter().map(|m| member(m)).collect::<Vec<_>>().join(", "))
    }

    const ORDER: [&str; 7] = ["format", "db_charset", "scn", "owners", "objects", "tables", "sys"];

    #[test]
    fn members_in_any_order_give_the_same_dictionary() {
        let expected = agree(&ordered(&ORDER)).unwrap();
        let d = Dictionary::from_json(&ordered(&ORDER)).unwrap();
        assert_eq!(
            d.lookup(20, 7).map(|v| (v.valid_from_scn, v.columns[1].charset.as_deref())),
            Some((7, Some("AL32UTF8")))
        );
        assert_eq!(d.sys().map(|s| s.table_of(12, 7)), Some(Some(10)));
        for order in [
            ["tables", "sys", "objects", "owners", "scn", "db_charset", "format"],
            ["sys", "tables", "scn", "format", "objects", "db_charset", "owners"],
            ["objects", "format", "tables", "db_charset", "sys", "owners", "scn"],
        ] {
            assert_eq!(agree(&ordered(&order)).unwrap(), expected, "{order:?}");
        }
        // an unknown member anywhere is skipped
        let mut order = ORDER.to_vec();
        order.insert(0, r#""future": [{"tables": [1, 2]}, {"scn": "x"}]"#);
        assert_eq!(agree(&ordered(&order)).unwrap(), expected);
    }

    #[test]
    fn an_error_in_the_third_table_names_its_path() {
        let text = ordered(&["tables", "scn", "db_charset", "format"]);
        let bad = text.replacen(r#""nullable": true"#, r#""nullable": "yes""#, 3).replacen(
            r#""nullable": "yes""#,
            r#""nullable": true"#,
            2,
        );
        let e = agree(&bad).unwrap_err();
        assert_eq!(json_path(&e).as_deref(), Some("Text(\"$.tables[2].columns[1].nullable\")"));
        assert!(e.to_string().contains("expected true or false, got string"), "{e}");
        let missing = text.replacen(r#""owner": "HR", "name": "T30""#, r#""name": "T30""#, 1);
        assert_eq!(json_path(&agree(&missing).unwrap_err()).as_deref(), Some("Text(\"$.tables[2].owner\")"));
        // no `scn`: the first table without `valid_from_scn`
        let no_scn = ordered(&["tables", "db_charset", "format"]);
        let e = agree(&no_scn).unwrap_err();
        assert_eq!(json_path(&e).as_deref(), Some("Text(\"$.tables[0].valid_from_scn\")"));
    }

    #[test]
    fn documents_that_are_not_objects_or_not_json_fail_as_before() {
        for text in ["", "[", "[]", "{", "{\"format\": 1,}", "5", "\"x\"", "null", "true", "{} x", "[1e400]",
            "{\"tables\": [1e400]}", "[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]"]
        {
            let e = agree(text).unwrap_err();
            assert_eq!(e.kind(), "dictionary", "{text}");
        }
        let e = Dictionary::from_json("[]").unwrap_err();
        assert_eq!(
            (e.to_string().contains("expected a JSON object, got array"), json_path(&e).as_deref()),
            (true, Some("Text(\"$\")"))
        );
        let e = Dictionary::from_json("[").unwrap_err();
        assert!(e.to_string().contains("not valid JSON: EOF while parsing a list at line 1 column 1"), "{e}");
        // not JSON wins over a bad member before the syntax error
        let text = ordered(&ORDER).replacen("\"HR\"", "5", 1);
        assert!(agree(&text).is_err());
        let e = agree(&format!("{}]", &text[..text.len() - 1])).unwrap_err();
        assert!(e.to_string().contains("not valid JSON"), "{e}");
    }

    #[test]
    fn errors_come_in_the_tree_readers_order() {
        let bad_table = |t: &str| t.replacen(r#""owner": "HR", "name": "T10""#, r#""name": "T10""#, 1);
        let bad_object = |t: &str| t.replacen(r#""owner": "HR", "name": "T10"}"#, r#""name": "T10"}"#, 1);
        let bad_sys = |t: &str| {
            t.replacen(r#""OWNER#": 50"#, r#""OWNER#": "50""#, 1).replacen(
                r#""USER#": 50"#,
                r#""USER#": "x""#,
                1,
            )
        };
        let shapes = [
            r#""tables": 5"#,
            r#""tables": null"#,
            r#""tables": {"a": [1]}"#,
            r#""objects": "x""#,
            r#""objects": null"#,
            r#""sys": [1]"#,
            r#""sys": null"#,
            r#""sys": {"OBJ$": {}}"#,
            r#""sys": {"USER$": 1, "OBJ$": null}"#,
        ];
        for order in [
            ORDER,
            ["sys", "tables", "objects", "owners", "scn", "db_charset", "format"],
            ["format", "sys", "objects", "tables", "db_charset", "owners", "scn"],
        ] {
            let text = ordered(&order);
            for bad in [
                bad_table(&text),
                bad_object(&text),
                bad_sys(&text),
                bad_sys(&bad_table(&text)),
                bad_object(&bad_table(&text)),
                bad_object(&bad_sys(&bad_table(&text))),
                text.replace(r#""obj": 20,"#, r#""obj": 10,"#), // overlapping versions
                bad_sys(&text.replace(r#""obj": 20,"#, r#""obj": 10,"#)),
                text.replace(r#""format_version": 1"#, r#""format_version": 2"#),
            ] {
                agree(&bad).unwrap_err();
            }
            for shape in shapes {
                let mut members = order.to_vec();
                members.push(shape);
                let _ = agree(&ordered(&members));
                members.retain(|m| !shape.contains(&format!("\"{m}\"")));
                let _ = agree(&ordered(&members));
            }
            // a repeated member: the last one counts
            let mut members = order.to_vec();
            members
                .insert(0, r#""tables": [1], "objects": [2], "sys": {"OBJ$": [3], "USER$": []}, "scn": "x""#);
            assert_eq!(agree(&ordered(&members)).unwrap(), agree(&ordered(&order)).unwrap());
            let mut members = order.to_vec();
            members.push(r#""tables": [1]"#);
            agree(&ordered(&members)).unwrap_err();
            members.pop();
            members.push(r#""sys": {"OBJ$": [], "OBJ$": [1], "USER$": [], "OBJ$": []}"#);
            agree(&ordered(&members)).unwrap();
        }
    }

    #[test]
    fn type_names_are_normalized() {
        assert_eq!(normalize_type_name("timestamp(6)  with time zone"), "TIMESTAMP WITH TIME ZONE");
        assert_eq!(type_code_for_name(&normalize_type_name("Interval Day(2) To Second(6)")), 183);
    }
}
