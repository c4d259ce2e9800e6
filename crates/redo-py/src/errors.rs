//! The one place that knows about errors across the boundary (delta-rs' `error.rs` shape, without
//! its trap): each `redo_core::Error` variant becomes the existing Python class of
//! `redo_lib.errors`, with the `Position` (file, sequence, block, offset) and the details as
//! attributes, exactly as the Python reader raises them. No catch-all, no message parsing.

use pyo3::prelude::*;
use pyo3::types::PyDict;
use redo_core::{Detail, Error};

/// The Python class name of each variant.
pub fn class_name(err: &Error) -> &'static str {
    match err {
        Error::Format(_) => "FormatError",
        Error::Checksum(_) => "ChecksumError",
        Error::BlockHeader(_) => "BlockHeaderError",
        Error::TruncatedLog(_) => "TruncatedLogError",
        Error::UnsupportedFormat(_) => "UnsupportedFormatError",
        Error::ValueDecode(_) => "ValueDecodeError",
        Error::Storage(_) => "StorageError",
        Error::Assembly(_) => "AssemblyError",
        Error::Dictionary(_) => "DictionaryError",
    }
}

fn build(py: Python<'_>, err: &Error) -> PyResult<PyErr> {
    let errors = py.import("redo_lib.errors")?;
    let info = err.info();
    let p = &info.position;
    let where_ = PyDict::new(py);
    where_.set_item("file", p.file.as_deref())?;
    where_.set_item("sequence", p.sequence)?;
    where_.set_item("block", p.block)?;
    where_.set_item("offset", p.offset)?;
    let position = errors.getattr("Position")?.call((), Some(&where_))?;
    let kwargs = PyDict::new(py);
    kwargs.set_item("position", position)?;
    for (key, value) in &info.details {
        match value {
            Detail::Int(v) => kwargs.set_item(*key, *v)?,
            Detail::Text(v) => kwargs.set_item(*key, v)?,
            Detail::Xid(usn, slot, sqn) => kwargs
                .set_item(*key, py.import("redo_lib.scn")?.getattr("Xid")?.call1((*usn, *slot, *sqn))?)?,
        }
    }
    let exc = errors.getattr(class_name(err))?.call((info.message.as_str(),), Some(&kwargs))?;
    Ok(PyErr::from_value(exc))
}

/// The Python exception for a core error (an error while building it is raised instead).
pub fn to_py(py: Python<'_>, err: &Error) -> PyErr {
    build(py, err).unwrap_or_else(|e| e)
}
