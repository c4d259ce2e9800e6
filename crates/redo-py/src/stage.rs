//! The assemble stage (`redo_core::stage`) for Python's `mapInArrow`: a `TransactionTable` and an
//! `Emitter` of this module driven together, event record batches in, record batches of the staged
//! trail (trail rows + commit-order key) out, then the open transactions' events with their order.
//! The table and the emitter stay Python objects, so their counters are read as the differential
//! tests read them (`pipeline.reconcile` shapes counts.json from them and this stage's counts).

use std::path::PathBuf;

use pyo3::exceptions::PyStopIteration;
use pyo3::prelude::*;
use pyo3::types::PyDict;
use redo_core::stage::{BatchQueue, Stage, StageOptions, DEFAULT_QUEUE_BYTES};

use crate::arrow::{import_batch, ArrowBatch, ArrowSchema};
use crate::assembly::{obj_counts, TransactionTable};
use crate::emit::Emitter;
use crate::errors;

/// `staged_trail_schema()`: the trail schema and the commit-order key.
#[pyfunction]
pub fn staged_trail_schema() -> ArrowSchema {
    ArrowSchema::new(redo_core::stage::staged_trail_schema())
}

/// `events_schema()` and `open_order`: an open transaction's event carried out.
#[pyfunction]
pub fn carried_schema() -> ArrowSchema {
    ArrowSchema::new(redo_core::stage::carried_schema())
}

/// Events -> trail rows in one pass through `table` and `emitter` (both of this module). `feed` an
/// events record batch (a boolean `carried` column marks events carried in), then iterate the stage
/// for its output before the next `feed`; `carry_out` once at the end, and iterate again.
#[pyclass(module = "redo_lib._native")]
pub struct Assembler {
    table: Py<TransactionTable>,
    emitter: Py<Emitter>,
    inner: Stage,
}

#[pymethods]
impl Assembler {
    #[new]
    #[pyo3(signature = (table, emitter, *, resetlogs_id=None, chunk=8192, queue_bytes=DEFAULT_QUEUE_BYTES, spill_dir=None))]
    fn new(
        table: Py<TransactionTable>,
        emitter: Py<Emitter>,
        resetlogs_id: Option<i64>,
        chunk: usize,
        queue_bytes: usize,
        spill_dir: Option<PathBuf>,
    ) -> Self {
        let options = StageOptions { resetlogs_id, chunk };
        Assembler { table, emitter, inner: Stage::new(options, BatchQueue::new(queue_bytes, spill_dir)) }
    }

    /// Feed a record batch of events in redo order; its trail rows are then this iterator's.
    fn feed(&mut self, py: Python<'_>, batch: &Bound<'_, PyAny>) -> PyResult<()> {
        let batch = import_batch(batch)?;
        let mut table = self.table.borrow_mut(py);
        let mut emitter = self.emitter.borrow_mut(py);
        let table = &mut table.inner;
        let stage = &mut self.inner;
        emitter.with_handler(py, |emitter, ddl| stage.feed(table, emitter, Some(ddl), &batch))
    }

    /// Queue the events of the transactions left open (and held), with `open_order`.
    fn carry_out(&mut self, py: Python<'_>) -> PyResult<()> {
        let table = self.table.borrow(py);
        let table = &table.inner;
        let stage = &mut self.inner;
        py.detach(|| stage.carry_out(table)).map_err(|e| errors::to_py(py, &e))
    }

    fn __iter__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }

    fn __next__(&mut self, py: Python<'_>) -> PyResult<ArrowBatch> {
        let queue = &mut self.inner.queue;
        match py.detach(|| queue.pop()) {
            Ok(Some(batch)) => Ok(ArrowBatch::new(batch)),
            Ok(None) => Err(PyStopIteration::new_err(())),
            Err(e) => Err(errors::to_py(py, &e)),
        }
    }

    /// Row changes decoded here (events not flagged `carried`), by (object, operation).
    #[getter]
    fn decoded<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        obj_counts(py, &self.inner.decoded)
    }

    /// Row changes of the events carried in.
    #[getter]
    fn carried_in<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        obj_counts(py, &self.inner.carried_in)
    }

    /// Row changes of the events carried out (after `carry_out`).
    #[getter]
    fn carried_out<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        obj_counts(py, &self.inner.carried_out)
    }

    /// What each transaction carried out holds, in carry-out order: (xid, start_scn, start_time in
    /// microseconds, thread, begin's sequence, changes, bytes, last_scn, held_commit_scn or None).
    #[getter]
    #[allow(clippy::type_complexity)]
    fn open(&self) -> Vec<(String, i64, i64, i64, i64, u64, u64, i64, Option<i64>)> {
        self.inner
            .open
            .iter()
            .map(|o| {
                (
                    o.xid.clone(),
                    o.start_scn,
                    o.start_time,
                    o.thread,
                    o.start_seq,
                    o.changes,
                    o.bytes,
                    o.last_scn,
                    o.held_commit_scn,
                )
            })
            .collect()
    }

    /// Output record batches that went through the spill file.
    #[getter]
    fn spilled_batches(&self) -> u64 {
        self.inner.queue.spilled
    }
}
