//! The mirror fold (`redo_core::mirror`) for Python's `mapInArrow` in publish
//! (`spark_jobs.mirror.fold_partition`): a partition's sorted changes in, folded rows out.

use pyo3::prelude::*;

use crate::arrow::{import_batch, ArrowBatch, ArrowSchema};
use crate::errors;

/// `fold_schema()`: the folded rows' schema (`spark_jobs.mirror.fold_schema` converts it for Spark).
#[pyfunction]
pub fn fold_schema() -> ArrowSchema {
    ArrowSchema::new(redo_core::mirror::fold_schema())
}

/// One partition's fold: `feed` each record batch of changes sorted by (source_table, group), then
/// `finish`; both return the record batches of folded rows completed so far.
#[pyclass(module = "redo_lib._native")]
pub struct MirrorFold {
    inner: redo_core::mirror::MirrorFold,
}

#[pymethods]
impl MirrorFold {
    #[new]
    fn new() -> Self {
        MirrorFold { inner: redo_core::mirror::MirrorFold::new() }
    }

    /// One record batch of changes, through the C Data Interface (a batch pyarrow made).
    fn feed(&mut self, py: Python<'_>, batch: &Bound<'_, PyAny>) -> PyResult<Vec<ArrowBatch>> {
        let batch = import_batch(batch)?;
        let inner = &mut self.inner;
        let done = py.detach(|| inner.feed(&batch)).map_err(|e| errors::to_py(py, &e))?;
        Ok(done.into_iter().map(ArrowBatch::new).collect())
    }

    /// The record batches of an Arrow IPC stream (`bytes`): the form for batches Spark's JVM wrote
    /// (`redo_core::mirror::MirrorFold::feed_ipc` says why).
    fn feed_ipc(&mut self, py: Python<'_>, stream: &[u8]) -> PyResult<Vec<ArrowBatch>> {
        let inner = &mut self.inner;
        let done = py.detach(|| inner.feed_ipc(stream)).map_err(|e| errors::to_py(py, &e))?;
        Ok(done.into_iter().map(ArrowBatch::new).collect())
    }

    fn finish(&mut self, py: Python<'_>) -> PyResult<Vec<ArrowBatch>> {
        let inner = &mut self.inner;
        let done = py.detach(|| inner.finish()).map_err(|e| errors::to_py(py, &e))?;
        Ok(done.into_iter().map(ArrowBatch::new).collect())
    }

    /// Changes folded so far (existing rows included).
    #[getter]
    fn changes(&self) -> u64 {
        self.inner.changes
    }

    /// Folded rows written so far.
    #[getter]
    fn rows(&self) -> u64 {
        self.inner.rows
    }
}
