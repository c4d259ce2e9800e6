//! The dictionary's rules the core owns, for Python's loaders and the batch driver.

use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};
use redo_core::trail::{Dictionary, SysRows, SysTable, SysValue};

use crate::errors;

/// `columns_from_sys(document)`: where a table's `COL$` rows and its version in the dictionary's
/// JSON `document` disagree, the versions whose columns those rows give, and the versions of tables
/// only the SYS rows know (`redo_core::trail::columns_from_sys`, `tables_from_sys`): one dict per SCN
/// range, by table obj then SCN, with `obj`, `owner`, `name`, `dataobj`, `valid_from_scn`, `valid_to_scn` (None: open), `key_columns` (the version's key carried
/// over by name else through its `COL$` row's ROWID, or chosen from its `CDEF$` rows), `key_kind`
/// (`primary`, `unique`, `all`: chosen from the rows, or every column as none of the version's key
/// columns is left; None: the version's kind) and `col_rows`, the table's `COL$` rows valid then (their kept
/// columns by name: `SEGCOL#`, `NAME`, `TYPE#`, ...), for Python to turn into its columns.
#[pyfunction]
pub fn columns_from_sys<'py>(py: Python<'py>, document: &str) -> PyResult<Bound<'py, PyList>> {
    let dictionary = py.detach(|| Dictionary::from_json(document)).map_err(|e| errors::to_py(py, &e))?;
    let out = PyList::empty(py);
    let Some(sys) = dictionary.sys() else { return Ok(out) };
    for found in dictionary.from_sys() {
        let version = &found.version;
        let rows = PyList::empty(py);
        for row in sys.versions(SysTable::Col, version.obj).filter(|r| r.covers(version.valid_from_scn)) {
            let item = PyDict::new(py);
            for (column, value) in SysTable::Col.columns().iter().zip(&row.values) {
                match value {
                    Some(SysValue::Int(v)) => item.set_item(column.name, v)?,
                    Some(SysValue::Text(t)) => item.set_item(column.name, t)?,
                    None => item.set_item(column.name, py.None())?,
                }
            }
            rows.append(item)?;
        }
        let item = PyDict::new(py);
        item.set_item("obj", version.obj)?;
        item.set_item("owner", &version.owner)?;
        item.set_item("name", &version.name)?;
        item.set_item("dataobj", version.dataobj)?;
        item.set_item("valid_from_scn", version.valid_from_scn)?;
        item.set_item("valid_to_scn", version.valid_to_scn)?;
        item.set_item("key_columns", &version.key_columns)?;
        item.set_item("key_kind", found.key_kind.map(|k| k.as_str()))?;
        item.set_item("col_rows", rows)?;
        out.append(item)?;
    }
    Ok(out)
}

/// `column_changes(sys_json, obj, scn)`: what the commit at `scn` did to table `obj`'s columns,
/// read from its `COL$` rows in the dictionary's SYS rows (`SysRows.text`;
/// `redo_core::trail::ColumnChanges`): a dict of `renamed` ((old, new) pairs), `dropped`, `added`
/// and `modified` (names), or None when that commit changed none of them.
#[pyfunction]
pub fn column_changes<'py>(
    py: Python<'py>,
    sys_json: &str,
    obj: i64,
    scn: i64,
) -> PyResult<Option<Bound<'py, PyDict>>> {
    let sys = py.detach(|| SysRows::from_json(sys_json)).map_err(|e| errors::to_py(py, &e))?;
    let Some(changes) = sys.column_changes(obj, scn) else { return Ok(None) };
    let out = PyDict::new(py);
    out.set_item("renamed", changes.renamed)?;
    out.set_item("dropped", changes.dropped)?;
    out.set_item("added", changes.added)?;
    out.set_item("modified", changes.modified)?;
    Ok(Some(out))
}

/// `dictionary_state(document)`: what the core makes of the dictionary's JSON `document` as it is
/// read: `follows_tables` (its SYS rows describe its tables, `COL$` and `CDEF$` rows of them: no
/// DDL text is applied to it, `Dictionary::follows_tables`) and `loaded_disagreements`, where its
/// SYS rows and versions disagree (a table its `tables` do not describe, an export whose rows and
/// versions differ), as the emitter reports them ("as loaded"): dicts of `obj`, `owner`, `table`,
/// `scn` and `differences`.
#[pyfunction]
pub fn dictionary_state<'py>(py: Python<'py>, document: &str) -> PyResult<Bound<'py, PyDict>> {
    let dictionary = py.detach(|| Dictionary::from_json(document)).map_err(|e| errors::to_py(py, &e))?;
    let said = PyList::empty(py);
    for d in dictionary.loaded_disagreements() {
        let item = PyDict::new(py);
        item.set_item("obj", d.obj)?;
        item.set_item("owner", &d.owner)?;
        item.set_item("table", &d.table)?;
        item.set_item("scn", d.scn)?;
        let lines: Vec<String> = d.differences.iter().map(|l| format!("as loaded: {l}")).collect();
        item.set_item("differences", lines)?;
        said.append(item)?;
    }
    let out = PyDict::new(py);
    out.set_item("follows_tables", dictionary.follows_tables())?;
    out.set_item("loaded_disagreements", said)?;
    Ok(out)
}

/// `ddl_counter(text, schema)`: the `ddl_*` counter of a DDL whose text is not applied (the SYS rows
/// follow the tables): what its subject says it is (`redo_core::trail::ddl_counter`).
#[pyfunction]
pub fn ddl_counter(text: &str, schema: &str) -> &'static str {
    redo_core::trail::ddl_counter(text, schema)
}
