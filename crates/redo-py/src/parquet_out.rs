//! The trail as a Parquet file (`redo_core::trail::parquet_out`): the decode command's
//! `--format parquet` writer, and the numbering of a staged trail batch as one of the trail schema
//! (`numbered_trail_batch`, what `redo_lib.trail.schema.numbered_trail_batch` asks).

use std::fs::File;
use std::io::{BufWriter, Write};
use std::sync::Mutex;

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use redo_core::trail::parquet_out::{self, TrailParquetWriter as CoreWriter};
use redo_core::{Error, Position};

use crate::arrow::{import_batch, ArrowBatch};
use crate::errors;

/// `numbered_trail_batch(staged, first)`: `staged` (with `__arrow_c_array__`; every trail field
/// of its type) as a batch of the trail schema, `trail_seq` `first`, `first + 1`, ...
#[pyfunction]
pub fn numbered_trail_batch(py: Python<'_>, staged: &Bound<'_, PyAny>, first: i64) -> PyResult<ArrowBatch> {
    let staged = import_batch(staged)?;
    let batch =
        py.detach(|| parquet_out::numbered_trail_batch(&staged, first)).map_err(|e| errors::to_py(py, &e))?;
    Ok(ArrowBatch::new(batch))
}

/// `TrailParquetWriter(path, first=0)`: a Parquet file of the trail schema created at `path`;
/// `write(batch)` appends a staged trail batch's rows numbered on (`trail_seq` from `first`),
/// without the GIL; `rows` and `row_groups` say what it holds (what it keeps in memory until the
/// footer grows with `row_groups`); `close()` writes the footer and returns the rows written. A write after `close` is a
/// `ValueError`; a writer dropped unclosed leaves an unfinished file (the caller removes it).
#[pyclass(module = "redo_lib._native", frozen)]
pub struct TrailParquetWriter {
    /// a Mutex: the writer's column encoders are `Send`, not `Sync`, and a pyclass must be both
    inner: Mutex<Option<CoreWriter<BufWriter<File>>>>,
    path: String,
}

type Guard<'a> = std::sync::MutexGuard<'a, Option<CoreWriter<BufWriter<File>>>>;

#[pymethods]
impl TrailParquetWriter {
    #[new]
    #[pyo3(signature = (path, first = 0))]
    fn new(py: Python<'_>, path: String, first: i64) -> PyResult<Self> {
        let file = File::create(&path).map_err(|e| {
            let position = Position { file: Some(path.clone()), ..Default::default() };
            errors::to_py(
                py,
                &Error::storage(format!("trail Parquet: cannot create the file: {e}"), position),
            )
        })?;
        let inner =
            CoreWriter::try_new(BufWriter::new(file), &path, first).map_err(|e| errors::to_py(py, &e))?;
        Ok(TrailParquetWriter { inner: Mutex::new(Some(inner)), path })
    }

    fn write(&self, py: Python<'_>, batch: &Bound<'_, PyAny>) -> PyResult<()> {
        let batch = import_batch(batch)?;
        let mut guard = self.lock()?;
        let writer = guard.as_mut().ok_or_else(|| self.closed())?;
        py.detach(|| writer.write(&batch)).map_err(|e| errors::to_py(py, &e))
    }

    /// Rows written so far.
    #[getter]
    fn rows(&self) -> PyResult<i64> {
        Ok(self.lock()?.as_ref().map_or(0, CoreWriter::rows))
    }

    /// Row groups written out so far.
    #[getter]
    fn row_groups(&self) -> PyResult<usize> {
        Ok(self.lock()?.as_ref().map_or(0, CoreWriter::row_groups))
    }

    fn close(&self, py: Python<'_>) -> PyResult<i64> {
        let writer = self.lock()?.take().ok_or_else(|| self.closed())?;
        let rows = writer.rows();
        let path = self.path.clone();
        py.detach(move || {
            let mut out = writer.finish()?;
            out.flush().map_err(|e| {
                let position = Position { file: Some(path), ..Default::default() };
                Error::storage(format!("trail Parquet: {e}"), position)
            })
        })
        .map_err(|e| errors::to_py(py, &e))?;
        Ok(rows)
    }
}

impl TrailParquetWriter {
    fn lock(&self) -> PyResult<Guard<'_>> {
        self.inner
            .lock()
            .map_err(|_| PyValueError::new_err(format!("{}: a write to it failed midway", self.path)))
    }

    fn closed(&self) -> PyErr {
        PyValueError::new_err(format!("{}: the trail Parquet writer is closed", self.path))
    }
}
