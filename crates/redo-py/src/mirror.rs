//! The mirror fold (`redo_core::mirror`) for Python's `mapInArrow` in publish
//! (`spark_jobs.mirror.fold_partition`): a partition's sorted changes in, folded rows out.

use pyo3::prelude::*;
use pyo3::types::PyDict;

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

/// `partition_segments(sys_json, owner, table, partition, scn, subpartition=False)`: which mirror rows
/// a DROP or TRUNCATE PARTITION (SUBPARTITION) of `owner.table` committed at `scn` removes
/// (`redo_core::trail::sys_partitions`), from the dictionary's SYS rows (`SysRows.text`). A dict:
/// `table_obj`, `obj` (None: unknown), `data_objects` and `prefixes` (the 6-character ROWID starts
/// of the rows that were the partition's), `ambiguous` and `ambiguous_prefixes` (rows that may have
/// been, not told apart), `notes`.
#[pyfunction]
#[pyo3(signature = (sys_json, owner, table, partition, scn, subpartition=false))]
pub fn partition_segments<'py>(
    py: Python<'py>,
    sys_json: &str,
    owner: &str,
    table: &str,
    partition: &str,
    scn: i64,
    subpartition: bool,
) -> PyResult<Bound<'py, PyDict>> {
    use redo_core::trail::{rowid_prefix, PartitionSegments, SysRows};
    let found = py
        .detach(|| -> redo_core::Result<PartitionSegments> {
            let sys = SysRows::from_json(sys_json)?;
            Ok(match sys.table_named(owner, table, scn - 1) {
                Some(obj) => sys.partition_segments(obj, partition, subpartition, scn),
                None => PartitionSegments {
                    notes: vec![format!("no table {owner}.{table} at SCN {} in the SYS rows", scn - 1)],
                    ..Default::default()
                },
            })
        })
        .map_err(|e| errors::to_py(py, &e))?;
    let prefixes = |list: &[i64]| list.iter().filter_map(|&d| rowid_prefix(d)).collect::<Vec<String>>();
    let out = PyDict::new(py);
    out.set_item("table_obj", found.table_obj)?;
    out.set_item("obj", found.obj)?;
    out.set_item("prefixes", prefixes(&found.data_objects))?;
    out.set_item("ambiguous_prefixes", prefixes(&found.ambiguous))?;
    out.set_item("data_objects", found.data_objects)?;
    out.set_item("ambiguous", found.ambiguous)?;
    out.set_item("notes", found.notes)?;
    Ok(out)
}

/// `partitions_cut(sys_json, owner, table, scn, subpartition, dropped)`: the names of the partitions
/// (subpartitions) of `owner.table` whose rows the commit at `scn` removed
/// (`redo_core::trail::SysRows::partitions_cut`): gone at `scn` with `dropped` (DROP), else given a
/// new segment (TRUNCATE); for partition DDL that names them by value (`FOR (...)`). Empty when the
/// table is not in the SYS rows.
#[pyfunction]
pub fn partitions_cut(
    py: Python<'_>,
    sys_json: &str,
    owner: &str,
    table: &str,
    scn: i64,
    subpartition: bool,
    dropped: bool,
) -> PyResult<Vec<String>> {
    use redo_core::trail::SysRows;
    py.detach(|| -> redo_core::Result<Vec<String>> {
        let sys = SysRows::from_json(sys_json)?;
        Ok(match sys.table_named(owner, table, scn - 1) {
            Some(obj) => sys.partitions_cut(obj, subpartition, scn, dropped),
            None => Vec::new(),
        })
    })
    .map_err(|e| errors::to_py(py, &e))
}
