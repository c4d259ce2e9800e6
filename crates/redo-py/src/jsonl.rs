//! The trail as text for the decode command: JSON lines (`redo_core::trail::jsonl`) and the table
//! for people (`redo_core::trail::table`), a record batch of the (staged) trail schema in, the
//! bytes of its lines out.

use pyo3::prelude::*;
use pyo3::types::PyBytes;

use crate::arrow::import_batch;
use crate::errors;

/// `render_jsonl(batch) -> bytes`: every row of `batch` (any object with `__arrow_c_array__`, e.g. a
/// `pyarrow.RecordBatch` of `trail_schema()` or `staged_trail_schema()`) as one JSON line. Runs
/// without the GIL; a row Python's `from_row` / `to_dict` would refuse is an `AssemblyError`.
#[pyfunction]
pub fn render_jsonl<'py>(py: Python<'py>, batch: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyBytes>> {
    let batch = import_batch(batch)?;
    let out =
        py.detach(|| redo_core::trail::jsonl::jsonl_bytes(&batch)).map_err(|e| errors::to_py(py, &e))?;
    Ok(PyBytes::new(py, &out))
}

/// `render_table(batch) -> bytes`: every row of `batch` (as `render_jsonl` takes it) as one line of
/// the `decode --format table` text, UTF-8, under `table_header()`. Runs without the GIL; a null
/// where the trail schema has none, or a column of the wrong type, is an `AssemblyError`.
#[pyfunction]
pub fn render_table<'py>(py: Python<'py>, batch: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyBytes>> {
    let batch = import_batch(batch)?;
    let out =
        py.detach(|| redo_core::trail::table::table_bytes(&batch)).map_err(|e| errors::to_py(py, &e))?;
    Ok(PyBytes::new(py, &out))
}

/// `table_header() -> str`: the header line of the table (`render_table`), newline included.
#[pyfunction]
pub fn table_header() -> String {
    redo_core::trail::table::table_header()
}
