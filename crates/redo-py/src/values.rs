//! Column values -> trail text: `redo_core::values` for Python, the arguments of
//! `redo_lib.values.codecs.decode_value` (`charset`: Oracle name or id; `db_timezone`: minutes east
//! of UTC or text like `+05:30`). Errors are the `ValueDecodeError`s `decode_value` raises.

use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyList, PyString};
use redo_core::values::{self, CharsetArg, ZoneArg};

use crate::errors;

/// `charset=`: an Oracle id or name.
#[derive(FromPyObject)]
pub enum CharsetParam {
    Id(i64),
    Name(String),
}

impl CharsetParam {
    fn arg(&self) -> CharsetArg<'_> {
        match self {
            CharsetParam::Id(id) => CharsetArg::Id(*id),
            CharsetParam::Name(name) => CharsetArg::Name(name),
        }
    }
}

/// `db_timezone=`: minutes east of UTC, or `+05:30` / `-0300` / `UTC`.
#[derive(FromPyObject)]
pub enum ZoneParam {
    Minutes(i64),
    Text(String),
}

impl ZoneParam {
    fn arg(&self) -> ZoneArg<'_> {
        match self {
            ZoneParam::Minutes(m) => ZoneArg::Minutes(*m),
            ZoneParam::Text(t) => ZoneArg::Text(t),
        }
    }
}

/// The trail text of one column value of Oracle type `type_code`: `decode_value(type_code, data,
/// charset=charset, db_timezone=db_timezone)` of `redo_lib.values.codecs`, same text, same
/// `ValueDecodeError` (message and details) on malformed bytes.
#[pyfunction]
#[pyo3(signature = (type_code, data, charset=CharsetParam::Name("AL32UTF8".to_owned()), db_timezone=ZoneParam::Minutes(0)))]
pub fn render_value(
    py: Python<'_>,
    type_code: i64,
    data: &[u8],
    charset: CharsetParam,
    db_timezone: ZoneParam,
) -> PyResult<String> {
    values::render_value(type_code, data, charset.arg(), db_timezone.arg()).map_err(|e| errors::to_py(py, &e))
}

/// [`render_value`] over a list of values of one type: `None` (NULL) stays `None`. With
/// `errors="raise"` the first malformed value raises; with `errors="return"` its
/// `ValueDecodeError` takes its place in the list.
#[pyfunction]
#[pyo3(signature = (type_code, data, charset=CharsetParam::Name("AL32UTF8".to_owned()), db_timezone=ZoneParam::Minutes(0), errors="raise"))]
pub fn render_values<'py>(
    py: Python<'py>,
    type_code: i64,
    data: &Bound<'py, PyAny>,
    charset: CharsetParam,
    db_timezone: ZoneParam,
    errors: &str,
) -> PyResult<Bound<'py, PyList>> {
    let keep_errors = match errors {
        "raise" => false,
        "return" => true,
        other => {
            return Err(pyo3::exceptions::PyValueError::new_err(format!(
                "errors must be 'raise' or 'return', not {other:?}"
            )))
        }
    };
    let (charset, zone) = (charset.arg(), db_timezone.arg());
    let out = PyList::empty(py);
    let mut text = String::new();
    for item in data.try_iter()? {
        let item = item?;
        if item.is_none() {
            out.append(py.None())?;
            continue;
        }
        let bytes = item.cast::<PyBytes>()?;
        text.clear();
        match values::render_value_into(type_code, bytes.as_bytes(), charset, zone, &mut text) {
            Ok(()) => out.append(PyString::new(py, &text))?,
            Err(e) if keep_errors => out.append(errors::to_py(py, &e).into_value(py))?,
            Err(e) => return Err(errors::to_py(py, &e)),
        }
    }
    Ok(out)
}
