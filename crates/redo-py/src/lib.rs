//! `redo_lib._native`: the pyo3 binding of redo-core. Argument conversion, error mapping
//! (`errors.rs`, the only place that knows about errors) and the hand-off of results; no format
//! knowledge. Python imports it through `redo_lib/native.py`, which names `./redotrail setup` when
//! the extension is missing or stale.

mod arrow;
mod assembly;
mod convert;
mod dictionary;
mod emit;
mod errors;
mod jsonl;
mod mirror;
mod parquet_out;
mod stage;
mod threads;
mod values;

use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyTuple};
use pyo3::IntoPyObjectExt;
use redo_core::{BigEndian, Endianity, Error, LittleEndian, LogHeader, Policy, Position, RecordReader, Step};

/// Hash of the crates' sources this extension was built from (build.rs; checked by native.py).
const SOURCE_HASH: &str = env!("REDO_SOURCE_HASH");

fn policy_of(name: &str) -> PyResult<Policy> {
    match name {
        "raise" => Ok(Policy::Raise),
        "skip" => Ok(Policy::Skip),
        other => Err(pyo3::exceptions::PyValueError::new_err(format!("unknown error policy {other:?}"))),
    }
}

/// Blocks 0 and 1 -> the log header as a dict (`parse_log_header` of `format/header.py`).
#[pyfunction]
#[pyo3(signature = (data, name=None))]
fn parse_log_header<'py>(py: Python<'py>, data: &[u8], name: Option<&str>) -> PyResult<Bound<'py, PyAny>> {
    let header = redo_core::parse_log_header(data, name).map_err(|e| errors::to_py(py, &e))?;
    convert::header(py, &header)
}

fn walk<'py, E: Endianity>(
    py: Python<'py>,
    data: &[u8],
    header: &LogHeader,
    first_block: u32,
    last_block: Option<u32>,
    policy: Policy,
    name: Option<&str>,
) -> PyResult<(Bound<'py, PyList>, Bound<'py, PyDict>)> {
    let out = PyList::empty(py);
    let mut reader = RecordReader::<E>::new(data, header, first_block, last_block, policy, name);
    loop {
        match reader.step() {
            Ok(Step::Record(record)) => out.append(convert::record(py, &record)?)?,
            Ok(Step::Skipped) => continue,
            Ok(Step::End | Step::NeedData) => break,
            Err(e) => return Err(errors::to_py(py, &e)),
        }
    }
    let damage = PyDict::new(py);
    let skipped =
        reader.damage.skipped.iter().map(|e| errors::to_py(py, e).into_value(py)).collect::<Vec<_>>();
    damage.set_item("skipped", skipped)?;
    let ranges = reader
        .damage
        .corrupt_ranges
        .iter()
        .map(|c| convert::corrupt_range(py, c))
        .collect::<PyResult<Vec<_>>>()?;
    damage.set_item("corrupt_ranges", ranges)?;
    Ok((out, damage))
}

/// The records that start in blocks [first_block, last_block) of a whole log file's bytes, as
/// plain dicts, and what `policy="skip"` left out: `(records, {"skipped": [RedoError],
/// "corrupt_ranges": [dict]})`. The same rules as `format.reader.iter_records`; for the
/// differential tests and tools, not the fast path.
#[pyfunction]
#[pyo3(signature = (data, first_block=2, last_block=None, policy="raise", name=None))]
fn read_records<'py>(
    py: Python<'py>,
    data: &[u8],
    first_block: u32,
    last_block: Option<u32>,
    policy: &str,
    name: Option<&str>,
) -> PyResult<(Bound<'py, PyList>, Bound<'py, PyDict>)> {
    let policy = policy_of(policy)?;
    let probe = &data[..data.len().min(redo_core::HEADER_PROBE_SIZE)];
    let header = redo_core::parse_log_header(probe, name).map_err(|e| errors::to_py(py, &e))?;
    if header.big_endian {
        walk::<BigEndian>(py, data, &header, first_block, last_block, policy, name)
    } else {
        walk::<LittleEndian>(py, data, &header, first_block, last_block, policy, name)
    }
}

/// One record from its bytes (Python `records.parse_record`), as a dict: `lwn` is the LWN it
/// belongs to as `(number, nst, length, scn, time)` (raw redo time). For single records cut out of
/// logs (the oracdc data set) and their differential test.
#[pyfunction]
#[pyo3(signature = (data, *, big_endian=false, compat_version=0x1300_0000, rba=(1, 2, 16), thread=1, lwn=None))]
fn parse_record<'py>(
    py: Python<'py>,
    data: &[u8],
    big_endian: bool,
    compat_version: u32,
    rba: (u32, u32, u32),
    thread: u16,
    lwn: Option<(u16, u16, u32, u64, u32)>,
) -> PyResult<Bound<'py, PyAny>> {
    fn parse<'a, E: Endianity>(
        data: &'a [u8],
        compat: u32,
        rba: redo_core::model::Rba,
        thread: u16,
        lwn: Option<&redo_core::model::LwnHeader>,
    ) -> Result<redo_core::model::RedoRecord<'a>, Error> {
        let layout = redo_core::layout::FileLayout::<E>::new(512, compat);
        redo_core::records::parse_record(data, rba, thread, &layout, lwn)
    }
    let rba = redo_core::model::Rba { seq: rba.0, block: rba.1, offset: rba.2 };
    let lwn = lwn.map(|(number, nst, length, scn, time)| redo_core::model::LwnHeader {
        number,
        nst,
        length,
        scn,
        time,
    });
    let record = if big_endian {
        parse::<BigEndian>(data, compat_version, rba, thread, lwn.as_ref())
    } else {
        parse::<LittleEndian>(data, compat_version, rba, thread, lwn.as_ref())
    };
    match record {
        Ok(record) => convert::record(py, &record),
        Err(e) => Err(errors::to_py(py, &e)),
    }
}

/// Count the records of a range without building Python objects (a quick timing of the reader):
/// `(records, vectors, skipped)`.
#[pyfunction]
#[pyo3(signature = (data, first_block=2, last_block=None, policy="raise", name=None))]
fn count_records(
    py: Python<'_>,
    data: &[u8],
    first_block: u32,
    last_block: Option<u32>,
    policy: &str,
    name: Option<&str>,
) -> PyResult<(u64, u64, u64)> {
    fn count<E: Endianity>(
        data: &[u8],
        header: &LogHeader,
        first: u32,
        last: Option<u32>,
        policy: Policy,
        name: Option<&str>,
    ) -> Result<(u64, u64, u64), Error> {
        let mut reader = RecordReader::<E>::new(data, header, first, last, policy, name);
        let (mut records, mut vectors) = (0u64, 0u64);
        loop {
            match reader.step()? {
                Step::Record(r) => {
                    records += 1;
                    vectors += r.vectors.len() as u64;
                }
                Step::Skipped => {}
                Step::End | Step::NeedData => break,
            }
        }
        Ok((records, vectors, reader.damage.skipped.len() as u64))
    }
    let policy = policy_of(policy)?;
    let result = py.detach(|| {
        let probe = &data[..data.len().min(redo_core::HEADER_PROBE_SIZE)];
        let header = redo_core::parse_log_header(probe, name)?;
        if header.big_endian {
            count::<BigEndian>(data, &header, first_block, last_block, policy, name)
        } else {
            count::<LittleEndian>(data, &header, first_block, last_block, policy, name)
        }
    });
    result.map_err(|e| errors::to_py(py, &e))
}

/// The events schema (`redo_core::arrow::events_schema`, the single definition): an object with
/// `__arrow_c_schema__`, for `pyarrow.schema(...)`.
#[pyfunction]
fn events_schema() -> arrow::ArrowSchema {
    arrow::ArrowSchema::new(redo_core::arrow::events_schema())
}

/// The counts of a walk (`report.DecodeReport.add_counts`): the report's counters, the skipped
/// errors, the damaged ranges, the SCN of the LWN the walk ended in.
fn tally_dict<'py>(py: Python<'py>, d: &redo_core::decode::Decoded) -> PyResult<Bound<'py, PyDict>> {
    let t = &d.tally;
    let out = PyDict::new(py);
    out.set_item("lwn_scn", d.lwn_scn)?;
    out.set_item("records", t.records)?;
    out.set_item("bytes", t.bytes)?;
    out.set_item("records_by_vld", t.records_by_vld.iter().collect::<Vec<_>>())?;
    out.set_item("records_by_opcode", t.records_by_opcode.iter().collect::<Vec<_>>())?;
    out.set_item("vectors_by_opcode", t.vectors_by_opcode.iter().collect::<Vec<_>>())?;
    out.set_item("opaque_by_category", t.opaque_by_category.iter().collect::<Vec<_>>())?;
    out.set_item("lobs", t.lobs.iter().collect::<Vec<_>>())?;
    out.set_item(
        "unsupported_vectors",
        t.unsupported.iter().map(|((kind, obj), n)| (*kind, *obj, *n)).collect::<Vec<_>>(),
    )?;
    let skipped = d.damage.skipped.iter().map(|e| errors::to_py(py, e).into_value(py)).collect::<Vec<_>>();
    out.set_item("skipped", skipped)?;
    let ranges = d
        .damage
        .corrupt_ranges
        .iter()
        .map(|c| convert::corrupt_range(py, c))
        .collect::<PyResult<Vec<_>>>()?;
    out.set_item("corrupt_ranges", ranges)?;
    Ok(out)
}

/// Decode a window of one log (`decode_window`) without the GIL: the outcome, or the core error.
#[allow(clippy::too_many_arguments)]
fn run_window(
    py: Python<'_>,
    data: &[u8],
    header: Option<&[u8]>,
    base: u32,
    more: bool,
    range: redo_core::decode::Range<'_>,
    build: redo_core::decode::Build,
) -> PyResult<redo_core::decode::Outcome> {
    let probe = header.unwrap_or(data);
    let probe = &probe[..probe.len().min(redo_core::HEADER_PROBE_SIZE)];
    let outcome = py.detach(|| {
        let header = redo_core::parse_log_header(probe, range.name)?;
        redo_core::decode::decode_window(data, base, more, &header, range, build)
    });
    outcome.map_err(|e| errors::to_py(py, &e))
}

fn need_tuple<'py>(py: Python<'py>, from: u32, to: u32) -> PyResult<Bound<'py, PyTuple>> {
    PyTuple::new(py, ["need".into_bound_py_any(py)?, from.into_bound_py_any(py)?, to.into_bound_py_any(py)?])
}

/// Change events of the records that start in blocks [first_block, last_block) of one log, from a
/// window of its bytes: `data` holds the file from block `base` on (`header` its blocks 0 and 1,
/// `data` itself when `base` is 0); `more` when the file goes on after the window. Returns
/// `("done", [ArrowBatch], counts)` (batches of at most `chunk` events; `counts` the report's
/// counters, the row changes by (object, operation), the skipped errors and damaged ranges), or
/// `("need", from_block, to_block)` when the window must be wider (`to_block` 0: to the end).
/// Runs without the GIL.
#[pyfunction]
#[pyo3(signature = (data, *, header=None, base=0, more=false, first_block=2, last_block=None, policy="raise", name=None, chunk=8192))]
#[allow(clippy::too_many_arguments)]
fn decode_events<'py>(
    py: Python<'py>,
    data: &[u8],
    header: Option<&[u8]>,
    base: u32,
    more: bool,
    first_block: u32,
    last_block: Option<u32>,
    policy: &str,
    name: Option<&str>,
    chunk: usize,
) -> PyResult<Bound<'py, PyTuple>> {
    use redo_core::decode::{Build, Outcome, Range};
    let range = Range { first_block, last_block, policy: policy_of(policy)?, name };
    match run_window(py, data, header, base, more, range, Build::Events { chunk })? {
        Outcome::NeedData(from, to) => need_tuple(py, from, to),
        Outcome::Done(decoded) => {
            let counts = tally_dict(py, &decoded)?;
            counts.set_item("events", decoded.events)?;
            counts.set_item(
                "row_changes",
                decoded.row_changes.iter().map(|((obj, op), n)| (*obj, *op, *n)).collect::<Vec<_>>(),
            )?;
            let batches = PyList::empty(py);
            for batch in decoded.batches {
                batches.append(Bound::new(py, arrow::ArrowBatch::new(batch))?)?;
            }
            PyTuple::new(py, ["done".into_bound_py_any(py)?, batches.into_any(), counts.into_any()])
        }
    }
}

/// The counts of `decode_events` alone, from the same reader walk with the same counters, skips
/// and damaged ranges, no event built (the `stats` command): `("done", counts)` (`counts` without
/// `events` and `row_changes`), or `("need", from_block, to_block)` as `decode_events`. Runs
/// without the GIL.
#[pyfunction]
#[pyo3(signature = (data, *, header=None, base=0, more=false, first_block=2, last_block=None, policy="raise", name=None))]
#[allow(clippy::too_many_arguments)]
fn decode_counts<'py>(
    py: Python<'py>,
    data: &[u8],
    header: Option<&[u8]>,
    base: u32,
    more: bool,
    first_block: u32,
    last_block: Option<u32>,
    policy: &str,
    name: Option<&str>,
) -> PyResult<Bound<'py, PyTuple>> {
    use redo_core::decode::{Build, Outcome, Range};
    let range = Range { first_block, last_block, policy: policy_of(policy)?, name };
    match run_window(py, data, header, base, more, range, Build::Counts)? {
        Outcome::NeedData(from, to) => need_tuple(py, from, to),
        Outcome::Done(decoded) => {
            PyTuple::new(py, ["done".into_bound_py_any(py)?, tally_dict(py, &decoded)?.into_any()])
        }
    }
}

/// The (obj, usn, slot) of the row changes of an events record batch that hold an out-of-row LOB
/// locator (`redo_core::assembly::event::locator_slots`), sorted, each once: what the Spark decode
/// reports as `locator_slots` (`lob_carry.event_slots`). Runs without the GIL.
#[pyfunction]
fn locator_slots(py: Python<'_>, batch: &Bound<'_, PyAny>) -> PyResult<Vec<(i64, i64, i64)>> {
    let batch = arrow::import_batch(batch)?;
    py.detach(|| redo_core::assembly::event::locator_slots(&batch)).map_err(|e| errors::to_py(py, &e))
}

/// Raise the Python exception the binding makes of the core error of `kind` (`format`,
/// `checksum`, ...), positioned at `file`/`block`/`offset`: the test that walks every variant.
#[pyfunction]
#[pyo3(signature = (kind, file=None, sequence=None, block=None, offset=None))]
fn raise_core_error(
    py: Python<'_>,
    kind: &str,
    file: Option<String>,
    sequence: Option<u32>,
    block: Option<u32>,
    offset: Option<u64>,
) -> PyResult<()> {
    let position = Position { file, sequence, block, offset };
    let Some(err) = Error::of_kind(kind, format!("a {kind} error"), position) else {
        return Err(pyo3::exceptions::PyValueError::new_err(format!("unknown error kind {kind:?}")));
    };
    Err(errors::to_py(py, &err.with_detail("opcode", "11.2")))
}

#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("SOURCE_HASH", SOURCE_HASH)?;
    m.add("ERROR_KINDS", redo_core::error::ERROR_KINDS.to_vec())?;
    m.add_function(wrap_pyfunction!(parse_log_header, m)?)?;
    m.add_function(wrap_pyfunction!(read_records, m)?)?;
    m.add_function(wrap_pyfunction!(count_records, m)?)?;
    m.add_function(wrap_pyfunction!(parse_record, m)?)?;
    m.add_function(wrap_pyfunction!(raise_core_error, m)?)?;
    m.add_function(wrap_pyfunction!(events_schema, m)?)?;
    m.add_function(wrap_pyfunction!(decode_events, m)?)?;
    m.add_function(wrap_pyfunction!(decode_counts, m)?)?;
    m.add_function(wrap_pyfunction!(locator_slots, m)?)?;
    m.add_function(wrap_pyfunction!(values::render_value, m)?)?;
    m.add_function(wrap_pyfunction!(values::render_values, m)?)?;
    m.add_function(wrap_pyfunction!(values::charsets, m)?)?;
    m.add_class::<arrow::ArrowBatch>()?;
    m.add_class::<arrow::ArrowSchema>()?;
    m.add_class::<assembly::TransactionTable>()?;
    m.add_class::<assembly::CommittedTransaction>()?;
    m.add_class::<assembly::EventBatches>()?;
    m.add_class::<emit::Emitter>()?;
    m.add_function(wrap_pyfunction!(emit::trail_schema, m)?)?;
    m.add_function(wrap_pyfunction!(emit::capture_options, m)?)?;
    m.add_function(wrap_pyfunction!(emit::lob_pages_schema, m)?)?;
    m.add_class::<stage::Assembler>()?;
    m.add_class::<threads::ThreadMerge>()?;
    m.add_function(wrap_pyfunction!(stage::staged_trail_schema, m)?)?;
    m.add_function(wrap_pyfunction!(stage::carried_schema, m)?)?;
    m.add_class::<mirror::MirrorFold>()?;
    m.add_function(wrap_pyfunction!(mirror::fold_schema, m)?)?;
    m.add_function(wrap_pyfunction!(mirror::partition_segments, m)?)?;
    m.add_function(wrap_pyfunction!(mirror::partitions_cut, m)?)?;
    m.add_function(wrap_pyfunction!(dictionary::columns_from_sys, m)?)?;
    m.add_function(wrap_pyfunction!(dictionary::column_changes, m)?)?;
    m.add_function(wrap_pyfunction!(dictionary::dictionary_state, m)?)?;
    m.add_function(wrap_pyfunction!(dictionary::ddl_counter, m)?)?;
    m.add_function(wrap_pyfunction!(jsonl::render_jsonl, m)?)?;
    m.add_function(wrap_pyfunction!(parquet_out::numbered_trail_batch, m)?)?;
    m.add_class::<parquet_out::TrailParquetWriter>()?;
    m.add_function(wrap_pyfunction!(jsonl::render_table, m)?)?;
    m.add_function(wrap_pyfunction!(jsonl::table_header, m)?)?;
    Ok(())
}
