//! RAC: `ThreadMerge`, the core's merge of redo threads (`redo_core::threads`) for Python's
//! `pipeline.merge_threads`: each thread's event record batches in, the set's redo order out, with
//! the merged watermark.

use pyo3::prelude::*;
use redo_core::threads::{ThreadMerge as Merge, DEFAULT_CHUNK};

use crate::arrow::{import_batch, ArrowBatch};
use crate::errors;

/// `ThreadMerge(threads, *, chunk=8192)`: `push(thread, batch)` each thread's events in its redo
/// order, `watermark(thread, scn)` as its stream gives them, `finish(thread)` at its end, reading
/// next the thread `wanted()` names; `take()` gives the merged record batches ready and the merged
/// watermark when it rose (else None).
#[pyclass(module = "redo_lib._native")]
pub struct ThreadMerge {
    inner: Merge,
}

#[pymethods]
impl ThreadMerge {
    #[new]
    #[pyo3(signature = (threads, *, chunk=DEFAULT_CHUNK))]
    fn new(py: Python<'_>, threads: Vec<i64>, chunk: usize) -> PyResult<Self> {
        Merge::new(&threads, chunk).map(|inner| ThreadMerge { inner }).map_err(|e| errors::to_py(py, &e))
    }

    /// The next events of `thread` (a record batch of the events schema), in its redo order.
    fn push(&mut self, py: Python<'_>, thread: i64, batch: &Bound<'_, PyAny>) -> PyResult<()> {
        let batch = import_batch(batch)?;
        let merge = &mut self.inner;
        py.detach(|| merge.push(thread, batch)).map_err(|e| errors::to_py(py, &e))
    }

    /// Every later event of `thread` has an SCN of at least `scn`.
    fn watermark(&mut self, py: Python<'_>, thread: i64, scn: i64) -> PyResult<()> {
        self.inner.watermark(thread, scn).map_err(|e| errors::to_py(py, &e))
    }

    /// `thread` has no more events.
    fn finish(&mut self, py: Python<'_>, thread: i64) -> PyResult<()> {
        self.inner.finish(thread).map_err(|e| errors::to_py(py, &e))
    }

    /// The thread to read next; None once every thread is finished.
    fn wanted(&self) -> Option<i64> {
        self.inner.wanted()
    }

    /// (the merged record batches ready, the merged watermark if it rose since the last one taken).
    fn take(&mut self) -> (Vec<ArrowBatch>, Option<i64>) {
        let (batches, mark) = self.inner.take();
        (batches.into_iter().map(ArrowBatch::new).collect(), mark)
    }

    /// Events pushed and not yet merged out.
    #[getter]
    fn held(&self) -> usize {
        self.inner.held()
    }
}
