//! The transaction table of the core (`redo_core::assembly`) for Python: events in as Arrow record
//! batches of the events schema, committed transactions out with their changes streamed back as
//! record batches, the open (and held) transactions carried out, and the counters, issues and
//! cancelled / orphaned row changes. For the differential test against
//! `redo_lib.assembly.transactions.TransactionTable` now, and for `mapInArrow` later; a consumer in
//! Rust (the emitter) uses `redo_core::assembly` directly.

use std::collections::BTreeMap;
use std::path::PathBuf;

use pyo3::exceptions::{PyStopIteration, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};
use redo_core::assembly::buffer::BufferBatches;
use redo_core::assembly::{ChangeBuffer, TableOptions, DEFAULT_MEMORY_BYTES, DEFAULT_MEMORY_LIMIT};
use redo_core::Policy;

use crate::arrow::{import_batch, ArrowBatch};
use crate::errors;

fn xid<'py>(py: Python<'py>, x: redo_core::assembly::Xid) -> PyResult<Bound<'py, PyAny>> {
    py.import("redo_lib.scn")?.getattr("Xid")?.call1((x.usn, x.slot, x.sqn))
}

/// Row changes by (object, operation) as a dict keyed by `(obj, op)` tuples (the table's, the
/// emitter's and the stage's counts alike).
pub(crate) fn obj_counts<'py>(
    py: Python<'py>,
    map: &BTreeMap<(i64, &'static str), u64>,
) -> PyResult<Bound<'py, PyDict>> {
    let out = PyDict::new(py);
    for ((obj, op), n) in map {
        out.set_item((*obj, *op), *n)?;
    }
    Ok(out)
}

/// A committed transaction: its commit position as attributes, its changes (in redo order, net of
/// partial rollbacks) read once with `batches()`.
#[pyclass(module = "redo_lib._native")]
pub struct CommittedTransaction {
    #[pyo3(get)]
    commit_scn: i64,
    /// microseconds since 1970-01-01 (UTC wall clock)
    #[pyo3(get)]
    commit_time: i64,
    #[pyo3(get)]
    thread: i64,
    #[pyo3(get)]
    seq: i64,
    #[pyo3(get)]
    block: i64,
    #[pyo3(get)]
    offset: i64,
    #[pyo3(get)]
    begin_scn: i64,
    xid: redo_core::assembly::Xid,
    events: usize,
    changes: Option<ChangeBuffer>,
}

impl CommittedTransaction {
    /// The core's transaction back, its changes moved out (`None` once they were read): for the
    /// emitter (`emit.rs`).
    pub(crate) fn take_core(&mut self) -> Option<redo_core::assembly::CommittedTransaction> {
        let changes = self.changes.take()?;
        Some(redo_core::assembly::CommittedTransaction {
            xid: self.xid,
            commit_scn: self.commit_scn,
            commit_time: self.commit_time,
            thread: self.thread,
            seq: self.seq,
            block: self.block,
            offset: self.offset,
            begin_scn: self.begin_scn,
            changes,
        })
    }

    fn of(t: redo_core::assembly::CommittedTransaction) -> Self {
        CommittedTransaction {
            commit_scn: t.commit_scn,
            commit_time: t.commit_time,
            thread: t.thread,
            seq: t.seq,
            block: t.block,
            offset: t.offset,
            begin_scn: t.begin_scn,
            xid: t.xid,
            events: t.changes.len(),
            changes: Some(t.changes),
        }
    }
}

#[pymethods]
impl CommittedTransaction {
    #[getter]
    fn xid<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        xid(py, self.xid)
    }

    /// Commit order (contract rule 6): (commit SCN, thread, seq, block, offset).
    #[getter]
    fn order_key(&self) -> (i64, i64, i64, i64, i64) {
        (self.commit_scn, self.thread, self.seq, self.block, self.offset)
    }

    /// How many change events the transaction holds.
    fn __len__(&self) -> usize {
        self.events
    }

    /// The changes as record batches of the events schema, at most `max_rows` each, read from
    /// memory or the spill file as they are asked for. Once only: the buffer goes with them.
    #[pyo3(signature = (max_rows=8192))]
    fn batches(&mut self, max_rows: usize) -> PyResult<EventBatches> {
        let changes =
            self.changes.take().ok_or_else(|| PyValueError::new_err("the changes were already read"))?;
        Ok(EventBatches { inner: changes.into_batches(max_rows) })
    }
}

/// An iterator of record batches (`ArrowBatch`) over a committed transaction's changes.
#[pyclass(module = "redo_lib._native")]
pub struct EventBatches {
    inner: BufferBatches<ChangeBuffer>,
}

#[pymethods]
impl EventBatches {
    fn __iter__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }

    fn __next__(&mut self, py: Python<'_>) -> PyResult<ArrowBatch> {
        match py.detach(|| self.inner.next()) {
            Some(Ok(batch)) => Ok(ArrowBatch::new(batch)),
            Some(Err(e)) => Err(errors::to_py(py, &e)),
            None => Err(PyStopIteration::new_err(())),
        }
    }
}

/// Open transactions keyed by (usn, slot) (`redo_core::assembly::TransactionTable`; the Python
/// `TransactionTable`'s transitions, counters and issues).
#[pyclass(module = "redo_lib._native")]
pub struct TransactionTable {
    pub(crate) inner: redo_core::assembly::TransactionTable,
}

#[pymethods]
impl TransactionTable {
    #[new]
    #[pyo3(signature = (*, memory_limit=DEFAULT_MEMORY_LIMIT, memory_bytes=DEFAULT_MEMORY_BYTES, policy="skip", spill_dir=None, hold_from=None))]
    fn new(
        py: Python<'_>,
        memory_limit: usize,
        memory_bytes: usize,
        policy: &str,
        spill_dir: Option<PathBuf>,
        hold_from: Option<i64>,
    ) -> PyResult<Self> {
        let policy = match policy {
            "raise" => Policy::Raise,
            "skip" => Policy::Skip,
            other => return Err(PyValueError::new_err(format!("unknown error policy {other:?}"))),
        };
        let options = TableOptions { memory_limit, memory_bytes, policy, spill_dir, hold_from };
        let inner = redo_core::assembly::TransactionTable::new(options).map_err(|e| errors::to_py(py, &e))?;
        Ok(TransactionTable { inner })
    }

    /// Feed a record batch of events (the events schema; other columns ignored) in order; the
    /// transactions it committed, in commit-event order. Runs without the GIL. An error (an
    /// `AssemblyError` under the raise policy) leaves the events before it fed, and carries the
    /// transactions they committed as its `committed` attribute.
    fn feed_batch(
        &mut self,
        py: Python<'_>,
        batch: &Bound<'_, PyAny>,
    ) -> PyResult<Vec<CommittedTransaction>> {
        let batch = import_batch(batch)?;
        let inner = &mut self.inner;
        let mut committed = Vec::new();
        let result = py.detach(|| inner.feed_batch_into(&batch, &mut committed));
        let committed: Vec<CommittedTransaction> =
            committed.into_iter().map(CommittedTransaction::of).collect();
        match result {
            Ok(()) => Ok(committed),
            Err(e) => {
                let err = errors::to_py(py, &e);
                err.value(py).setattr("committed", committed)?;
                Err(err)
            }
        }
    }

    /// The open and held transactions' events in begin order (begin first, a held one's COMMIT
    /// last) as record batches of at most `max_rows` events: the state for the next batch.
    #[pyo3(signature = (max_rows=8192))]
    fn carry_out(&self, py: Python<'_>, max_rows: usize) -> PyResult<Vec<ArrowBatch>> {
        let inner = &self.inner;
        let batches = py.detach(|| inner.carry_out(max_rows)).map_err(|e| errors::to_py(py, &e))?;
        Ok(batches.into_iter().map(ArrowBatch::new).collect())
    }

    fn __len__(&self) -> usize {
        self.inner.len()
    }

    /// The held transactions' xids (their commit at or above `hold_from`), sorted.
    fn held_xids<'py>(&self, py: Python<'py>) -> PyResult<Vec<Bound<'py, PyAny>>> {
        self.inner.held_xids().into_iter().map(|x| xid(py, x)).collect()
    }

    fn open_xids<'py>(&self, py: Python<'py>) -> PyResult<Vec<Bound<'py, PyAny>>> {
        self.inner.open_xids().into_iter().map(|x| xid(py, x)).collect()
    }

    /// The named counters (only those counted at least once, as a `Counter`).
    #[getter]
    fn counters<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let out = PyDict::new(py);
        for (name, n) in &self.inner.counters {
            out.set_item(*name, *n)?;
        }
        Ok(out)
    }

    /// Row changes rolled back, by (object, operation).
    #[getter]
    fn cancelled<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        obj_counts(py, &self.inner.cancelled)
    }

    /// Row changes whose transaction began before anything the table was given, or was lost.
    #[getter]
    fn orphaned<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        obj_counts(py, &self.inner.orphaned)
    }

    /// The first 1,000 issues: `(kind, xid text, Position)`.
    #[getter]
    fn issues<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        let position = py.import("redo_lib.errors")?.getattr("Position")?;
        let out = PyList::empty(py);
        for issue in &self.inner.issues {
            let kwargs = PyDict::new(py);
            kwargs.set_item("sequence", issue.seq)?;
            kwargs.set_item("block", issue.block)?;
            kwargs.set_item("offset", issue.offset)?;
            let at = position.call((), Some(&kwargs))?;
            out.append((issue.kind, issue.xid.as_str(), at))?;
        }
        Ok(out)
    }
}
