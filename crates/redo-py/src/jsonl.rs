//! The trail as JSON lines (`redo_core::trail::jsonl`): a record batch of the (staged) trail schema
//! in, the bytes of its lines out, as `json.dumps(from_row(row).to_dict()) + "\n"` gives them.

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
