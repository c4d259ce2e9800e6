//! The emitter of the core (`redo_core::trail::Emitter`) for Python: a committed transaction of
//! `native.TransactionTable` in, its trail rows out as one record batch of the trail schema, and
//! the counters of `redo_lib.trail.emit.TrailEmitter` as attributes. For the differential test
//! against the Python emitter now, and for the assemble stage later.
//!
//! DDL on a dictionary whose SYS rows follow its tables is the core's alone (`trail::emit`: no
//! text applied, no call into Python). Otherwise DDL is the one part that calls back into Python:
//! with `apply_ddl`, the dictionary a DDL leaves
//! (`trail.emit.evolve_dictionary` on a `DictionaryHistory` kept beside the core's dictionary,
//! which is rebuilt from its JSON when a DDL changed it). DDL is rare; that parser is not ported
//! (the statement's subject is the core's, `trail::ddl`).
//!
//! The dictionary's SYS rows layer (the document's `sys` member, `trail::sys`) is the core's: it
//! follows the SYS row changes of committed transactions. A dictionary rebuilt from Python's JSON
//! after a DDL keeps the layer the core had (Python's copy is the export's): the core's emitter
//! hands it over to every dictionary a `DdlHandler` returns. `Emitter.sys_json()` gives it back.

use std::collections::{BTreeMap, BTreeSet};

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyString};
use redo_core::trail::{DdlHandler, DdlProblem, Dictionary, EmitOptions, RowChange, TrailBuilder};
use redo_core::{Error, Position};

use crate::arrow::{import_batch, ArrowBatch, ArrowSchema};
use crate::assembly::{obj_counts, CommittedTransaction};
use crate::errors;

/// `redo_core::trail::capture_options`: the capture list's entries (`OWNER`, `OWNER.TABLE`,
/// `-OWNER.TABLE.COLUMN`) as the emitter's keywords `include_owners`, `include_tables` and
/// `exclude_columns`; `ValueError` for an entry of another form (Python's `capture_options` raises
/// it as `RedoError`).
#[pyfunction]
pub fn capture_options(entries: Vec<String>) -> PyResult<BTreeMap<&'static str, BTreeSet<String>>> {
    let mut options = EmitOptions::default();
    let refs: Vec<&str> = entries.iter().map(String::as_str).collect();
    redo_core::trail::capture_options(&refs, &mut options).map_err(PyValueError::new_err)?;
    Ok(BTreeMap::from([
        ("include_owners", options.include_owners),
        ("include_tables", options.include_tables),
        ("exclude_columns", options.exclude_columns),
    ]))
}

/// The trail schema (`redo_core::trail::trail_schema`), with `__arrow_c_schema__`.
#[pyfunction]
pub fn trail_schema() -> ArrowSchema {
    ArrowSchema::new(redo_core::trail::trail_schema())
}

/// The carried LOB pages' schema (`redo_core::trail::lob_pages_schema`, docs/lobs.md).
#[pyfunction]
pub fn lob_pages_schema() -> ArrowSchema {
    ArrowSchema::new(redo_core::trail::lob_pages_schema())
}

/// The DDL side, in Python. A Python exception is kept in `failed` and raised after the call.
struct PyDdl<'a> {
    history: &'a mut Option<Py<PyAny>>,
    /// the document the emitter was built from (the caller's `str`, not a copy); `None`: schemaless
    json: Option<&'a Py<PyString>>,
    failed: Option<PyErr>,
}

impl PyDdl<'_> {
    fn fail(&mut self, e: PyErr) -> Error {
        self.failed = Some(e);
        Error::dictionary("a Python error in the DDL handler", Position::default())
    }

    fn evolve_py(
        &mut self,
        py: Python<'_>,
        rc: &RowChange,
        counters: &mut BTreeMap<String, u64>,
        problems: &mut Vec<DdlProblem>,
    ) -> PyResult<Option<Dictionary>> {
        if self.history.is_none() {
            let text = match self.json {
                Some(json) => json.bind(py).clone(),
                None => PyString::new(py, ""),
            };
            let history = py
                .import("redo_lib.dictionary")?
                .getattr("DictionaryHistory")?
                .call_method1("from_json", (text,))?;
            *self.history = Some(history.unbind());
        }
        let Some(history) = self.history.as_ref() else { return Ok(None) };
        let history = history.bind(py).clone();
        let change = PyDict::new(py);
        change.set_item("scn", rc.scn)?;
        change.set_item("obj", rc.obj)?;
        change.set_item("ddl_text", &rc.ddl_text)?;
        change.set_item("ddl_schema", &rc.ddl_schema)?;
        let change = py.import("types")?.getattr("SimpleNamespace")?.call((), Some(&change))?;
        let counter = py.import("collections")?.getattr("Counter")?.call0()?;
        let found = PyList::empty(py);
        let evolved = py.import("redo_lib.trail.emit")?.getattr("evolve_dictionary")?.call1((
            &history,
            vec![change],
            &counter,
            &found,
        ))?;
        for (name, n) in counter
            .call_method0("items")?
            .try_iter()?
            .map(|i| i?.extract::<(String, u64)>())
            .collect::<PyResult<Vec<_>>>()?
        {
            *counters.entry(name).or_insert(0) += n;
        }
        for p in found.iter() {
            let get = |k: &str| p.get_item(k);
            problems.push(DdlProblem {
                kind: get("kind")?.extract()?,
                scn: get("scn")?.extract()?,
                obj: get("obj")?.extract()?,
                schema: get("schema")?.extract()?,
                text: get("text")?.extract()?,
                message: get("message")?.extract()?,
            });
        }
        if evolved.is(&history) {
            return Ok(None);
        }
        let json: String = evolved.call_method0("to_json")?.extract()?;
        *self.history = Some(evolved.unbind());
        // its `sys` (if any) is the export's: the emitter puts its own layer in (`DdlHandler::evolve`)
        Dictionary::from_json(&json).map(Some).map_err(|e| errors::to_py(py, &e))
    }
}

impl DdlHandler for PyDdl<'_> {
    fn evolve(
        &mut self,
        rc: &RowChange,
        counters: &mut BTreeMap<String, u64>,
        problems: &mut Vec<DdlProblem>,
    ) -> redo_core::Result<Option<Dictionary>> {
        let got = Python::attach(|py| self.evolve_py(py, rc, counters, problems));
        got.map_err(|e| self.fail(e))
    }
}

fn owners(value: Option<BTreeSet<String>>, default: BTreeSet<String>) -> BTreeSet<String> {
    value.unwrap_or(default)
}

/// Committed transactions -> trail rows (`redo_core::trail::Emitter`; Python `TrailEmitter`).
/// `dictionary` is the dictionary's JSON text (`DictionaryHistory.to_json()`), `None` for
/// schemaless mode; the keywords are `EmitOptions`' fields.
#[pyclass(module = "redo_lib._native")]
pub struct Emitter {
    inner: redo_core::trail::Emitter,
    /// the dictionary's JSON text as passed in (a reference to the Python `str`, no copy): the DDL
    /// side (`PyDdl`) reads it at the first DDL
    json: Option<Py<PyString>>,
    history: Option<Py<PyAny>>,
}

impl Emitter {
    /// Run `f` with the core emitter and the DDL handler, without the GIL (the handler takes it
    /// back for a DDL): a Python error in the handler wins over the core's error it caused.
    pub(crate) fn with_handler<R: Send>(
        &mut self,
        py: Python<'_>,
        f: impl FnOnce(&mut redo_core::trail::Emitter, &mut dyn DdlHandler) -> redo_core::Result<R> + Send,
    ) -> PyResult<R> {
        let mut handler = PyDdl { history: &mut self.history, json: self.json.as_ref(), failed: None };
        let inner = &mut self.inner;
        let result = py.detach(|| f(inner, &mut handler));
        match (handler.failed.take(), result) {
            (Some(e), _) => Err(e),
            (None, Err(e)) => Err(errors::to_py(py, &e)),
            (None, Ok(r)) => Ok(r),
        }
    }
}

#[pymethods]
impl Emitter {
    #[new]
    #[pyo3(signature = (dictionary=None, *, emit_unknown=false, full_deletes=false, update_before_images=false, include_owners=None, exclude_owners=None, include_tables=None, exclude_tables=None, exclude_columns=None, apply_ddl=true))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        py: Python<'_>,
        dictionary: Option<Bound<'_, PyString>>,
        emit_unknown: bool,
        full_deletes: bool,
        update_before_images: bool,
        include_owners: Option<BTreeSet<String>>,
        exclude_owners: Option<BTreeSet<String>>,
        include_tables: Option<BTreeSet<String>>,
        exclude_tables: Option<BTreeSet<String>>,
        exclude_columns: Option<BTreeSet<String>>,
        apply_ddl: bool,
    ) -> PyResult<Self> {
        let defaults = EmitOptions::default();
        let options = EmitOptions {
            emit_unknown,
            full_deletes,
            update_before_images,
            include_owners: owners(include_owners, defaults.include_owners),
            exclude_owners: owners(exclude_owners, defaults.exclude_owners),
            include_tables: owners(include_tables, defaults.include_tables),
            exclude_tables: owners(exclude_tables, defaults.exclude_tables),
            exclude_columns: owners(exclude_columns, defaults.exclude_columns),
            apply_ddl,
        };
        let parsed = match &dictionary {
            Some(text) => {
                // the str's UTF-8 (its own buffer, or the UTF-8 copy CPython caches in it): no copy here
                let text = text.to_str()?;
                Some(py.detach(|| Dictionary::from_json(text)).map_err(|e| errors::to_py(py, &e))?)
            }
            None => None,
        };
        let inner = redo_core::trail::Emitter::new(parsed, options);
        let keys = inner.excluded_keys();
        if !keys.is_empty() {
            // a record without its key cannot be applied (trail contract rule 12)
            let message = format!(
                "capture entries leave out key columns the trail needs: {}; keep them in the capture scope",
                keys.iter().map(|k| format!("-{k}")).collect::<Vec<_>>().join(", ")
            );
            return Err(errors::to_py(py, &Error::dictionary(message, Position::default())));
        }
        Ok(Emitter { inner, json: dictionary.map(Bound::unbind), history: None })
    }

    /// The trail rows of one committed transaction (its changes are read here, once) as a record
    /// batch of the trail schema (`commit_log` on every row, `batch_id` null, `trail_seq` 0, as
    /// `schema.to_row(record, commit_log=...)`). Runs without the GIL but for DDL. On an error the
    /// rows of the transaction before it come with the exception, as its `rows` attribute.
    #[pyo3(signature = (txn, commit_log=None))]
    fn emit(
        &mut self,
        py: Python<'_>,
        txn: &mut CommittedTransaction,
        commit_log: Option<String>,
    ) -> PyResult<ArrowBatch> {
        let txn = txn.take_core().ok_or_else(|| PyValueError::new_err("the changes were already read"))?;
        let mut out = TrailBuilder::new();
        let result =
            self.with_handler(py, |inner, ddl| inner.emit(&txn, Some(ddl), &mut out, commit_log.as_deref()));
        with_rows(py, result, &mut out)
    }

    /// `emit` over several transactions (in commit order), their rows in one record batch:
    /// `commit_logs` one per transaction (`None`: null). On an error the rows before it come with
    /// the exception (`rows`), and the transactions not reached keep their changes.
    #[pyo3(signature = (txns, commit_logs=None))]
    fn emit_many(
        &mut self,
        py: Python<'_>,
        txns: Vec<PyRefMut<'_, CommittedTransaction>>,
        commit_logs: Option<Vec<Option<String>>>,
    ) -> PyResult<ArrowBatch> {
        let logs = commit_logs.unwrap_or_else(|| vec![None; txns.len()]);
        if logs.len() != txns.len() {
            return Err(PyValueError::new_err("commit_logs must have one entry per transaction"));
        }
        let mut out = TrailBuilder::new();
        let mut result = Ok(0);
        for (mut txn, log) in txns.into_iter().zip(logs) {
            let Some(core) = txn.take_core() else {
                result = Err(PyValueError::new_err("the changes were already read"));
                break;
            };
            result =
                self.with_handler(py, |inner, ddl| inner.emit(&core, Some(ddl), &mut out, log.as_deref()));
            if result.is_err() {
                break;
            }
        }
        with_rows(py, result, &mut out)
    }

    /// Of `objs`, those that are a table of the dictionary (its object, its data object, or either
    /// of one of its partitions), each with the last version's `(owner, name, encrypted,
    /// compress_for, iot_type)`: what the unsupported-storage report looks up
    /// (`redo_lib.unsupported`), asked of the dictionary the core parsed.
    #[allow(clippy::type_complexity)]
    fn tables_of(
        &self,
        objs: Vec<i64>,
    ) -> BTreeMap<i64, (String, String, bool, Option<String>, Option<String>)> {
        let wanted: BTreeSet<i64> = objs.into_iter().collect();
        let mut out = BTreeMap::new();
        for version in self.inner.dictionary().into_iter().flat_map(|d| d.iter()) {
            let segments = version.partitions.iter().flat_map(|&(obj, dataobj)| [Some(obj), dataobj]);
            for id in [Some(version.obj), version.dataobj].into_iter().chain(segments).flatten() {
                if wanted.contains(&id) {
                    // by object id then SCN: the last version wins, as in Python's look-up
                    let storage = (version.encrypted, version.compress_for.clone(), version.iot_type.clone());
                    out.insert(
                        id,
                        (version.owner.clone(), version.name.clone(), storage.0, storage.1, storage.2),
                    );
                }
            }
        }
        out
    }

    /// The named counters (as the Python emitter's `Counter`).
    #[getter]
    fn counters<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let out = PyDict::new(py);
        for (k, v) in &self.inner.counters {
            out.set_item(k, v)?;
        }
        Ok(out)
    }

    #[getter]
    fn trail_counts<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        obj_counts(py, &self.inner.trail_counts)
    }

    #[getter]
    fn out_of_scope<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        obj_counts(py, &self.inner.out_of_scope)
    }

    #[getter]
    fn unsupported<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        obj_counts(py, &self.inner.unsupported)
    }

    /// of `unsupported`, the row changes carrying a value the decoder cannot render
    #[getter]
    fn unrenderable_ops<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        obj_counts(py, &self.inner.unrenderable_ops)
    }

    /// (OWNER.TABLE, column, type code) -> captured row changes carrying its value, not emitted
    #[getter]
    fn unrenderable(&self) -> BTreeMap<(String, String, i64), u64> {
        self.inner.unrenderable.clone()
    }

    /// the same, of tables outside the capture scope and of columns left out of it
    #[getter]
    fn unrenderable_out_of_scope(&self) -> BTreeMap<(String, String, i64), u64> {
        self.inner.unrenderable_out_of_scope.clone()
    }

    #[getter]
    fn rowid_keyed<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        obj_counts(py, &self.inner.rowid_keyed)
    }

    #[getter]
    fn unknown_in_scope<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        obj_counts(py, &self.inner.unknown_in_scope)
    }

    #[getter]
    fn unknown_objects(&self) -> BTreeMap<i64, u64> {
        self.inner.unknown_objects.clone()
    }

    #[getter]
    fn unknown_first_scn(&self) -> BTreeMap<i64, i64> {
        self.inner.unknown_first_scn.clone()
    }

    /// (owner.table, op) -> records
    #[getter]
    fn emitted(&self) -> BTreeMap<(String, &'static str), u64> {
        self.inner.emitted()
    }

    #[getter]
    fn value_errors(&self) -> Vec<String> {
        self.inner.value_errors.clone()
    }

    /// (OWNER.TABLE, column, reason) -> LOB values not resolved
    #[getter]
    fn lob_unresolved(&self) -> BTreeMap<(String, String, String), u64> {
        self.inner.lob_unresolved.clone()
    }

    /// (owner.name, verb) -> DDL records
    #[getter]
    fn ddl_records(&self) -> BTreeMap<(String, String), u64> {
        self.inner.ddl_records.clone()
    }

    #[getter]
    fn ddl_problems<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        let out = PyList::empty(py);
        for p in &self.inner.ddl_problems {
            let d = PyDict::new(py);
            d.set_item("kind", &p.kind)?;
            d.set_item("scn", p.scn)?;
            d.set_item("obj", p.obj)?;
            d.set_item("schema", &p.schema)?;
            d.set_item("text", &p.text)?;
            d.set_item("message", &p.message)?;
            out.append(d)?;
        }
        Ok(out)
    }

    /// Tables whose `COL$` rows and version (the DDL text's) disagreed at a commit: the `COL$`
    /// columns won (`redo_core::trail::ColumnDisagreement`), as dicts.
    #[getter]
    fn column_disagreements<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        let out = PyList::empty(py);
        for d in &self.inner.column_disagreements {
            let item = PyDict::new(py);
            item.set_item("obj", d.obj)?;
            item.set_item("owner", &d.owner)?;
            item.set_item("table", &d.table)?;
            item.set_item("scn", d.scn)?;
            item.set_item("differences", &d.differences)?;
            out.append(item)?;
        }
        Ok(out)
    }

    /// (table obj, XID, commit SCN) of each commit that changed a table's `COL$` rows.
    #[getter]
    fn tables_followed(&self) -> Vec<(i64, String, i64)> {
        self.inner.tables_followed.clone()
    }

    /// Read in one record batch of the previous batch's carried LOB pages (`lob_pages_schema()`):
    /// the pages go to the LOB store's file, LOB ids that went keep theirs out (`trail::lob_carry`).
    fn carry_in_lobs(&mut self, py: Python<'_>, batch: &Bound<'_, PyAny>) -> PyResult<()> {
        let batch = import_batch(batch)?;
        let inner = &mut self.inner;
        py.detach(|| inner.carry_in_lobs(&batch)).map_err(|e| errors::to_py(py, &e))
    }

    /// Decide which LOB pages this batch carries out (after the last transaction); then
    /// `next_carried_lobs` gives them.
    fn carry_out_lobs(&mut self) {
        self.inner.carry_out_lobs();
    }

    /// The next record batch of the carry-out (about `max_bytes` of page data), `None` at the end.
    #[pyo3(signature = (max_bytes=8 << 20))]
    fn next_carried_lobs(&mut self, py: Python<'_>, max_bytes: usize) -> PyResult<Option<ArrowBatch>> {
        let inner = &mut self.inner;
        let batch = py.detach(|| inner.next_carried_lobs(max_bytes)).map_err(|e| errors::to_py(py, &e))?;
        Ok(batch.map(ArrowBatch::new))
    }

    /// The dictionary's `sys` member as followed so far (JSON text, the document's format), `None`
    /// when the document had none (or schemaless).
    fn sys_json(&self) -> Option<String> {
        self.inner.dictionary().and_then(|d| d.sys()).map(|s| s.to_json())
    }

    /// `OWNER.TABLE` of an object as the dictionary last knew it, else `OBJ_<n>`.
    fn table_name(&self, obj: i64) -> String {
        self.inner.table_name(obj)
    }

    /// Why changes to `obj` are unknown in scope: `not_in_dictionary` (the export lists it for a
    /// captured owner, no table describes it) or `created_after_export`.
    fn unknown_reason(&self, obj: i64) -> &'static str {
        self.inner.unknown_reason(obj)
    }

    /// Whether `owner.name` is in the capture scope (the emitter's own rule: what
    /// `redo_lib/unsupported.py` classifies the batch's unsupported changes by).
    fn captured(&self, owner: &str, name: &str) -> bool {
        self.inner.captured(owner, name)
    }

    /// The capture scope as counts.json reports it (`TrailEmitter.scope()`).
    fn scope<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let (capture, limit, unclassified) = self.inner.scope();
        let out = PyDict::new(py);
        out.set_item("capture", if capture.is_empty() { None } else { Some(capture) })?;
        out.set_item("max_object_id", limit)?;
        out.set_item("unclassified_changes", unclassified)?;
        Ok(out)
    }
}

/// The rows built, as the result or, on an error, as the exception's `rows` attribute (the records
/// before the error, as the Python generator yields them before raising).
fn with_rows(py: Python<'_>, result: PyResult<usize>, out: &mut TrailBuilder) -> PyResult<ArrowBatch> {
    let rows = ArrowBatch::new(out.finish().map_err(|e| errors::to_py(py, &e))?);
    match result {
        Ok(_) => Ok(rows),
        Err(err) => {
            err.value(py).setattr("rows", rows)?;
            Err(err)
        }
    }
}
