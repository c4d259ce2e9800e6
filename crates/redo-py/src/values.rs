//! Column values -> trail text: `redo_core::values` for Python, the arguments of
//! `redo_lib.values.codecs.decode_value` (`charset`: Oracle name or id; `db_timezone`: minutes east
//! of UTC or text like `+05:30`; `None` for decode_value's defaults, `AL32UTF8` and 0). Errors are
//! the `ValueDecodeError`s `decode_value` raises.

use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyList, PyString};
use redo_core::values::{self, CharsetArg, ZoneArg};

use crate::errors;

/// The character sets the core decodes, in its table's order: `(oracle_id, oracle_name,
/// multibyte)`; `multibyte` is a varying-width set, whose CLOB data is stored as AL16UTF16. The one
/// list (`redo_lib.values.text.CHARSET_NAMES` is built from it).
#[pyfunction]
pub fn charsets() -> Vec<(i64, &'static str, bool)> {
    values::Charset::ALL.iter().map(|c| (c.id(), c.name(), c.is_multibyte())).collect()
}

/// `charset=` / `db_timezone=`: an `int` or a `str`, borrowed (no copy per call).
fn int_or_str<'a, 'py>(obj: &'a Bound<'py, PyAny>, what: &str) -> PyResult<Result<i64, &'a str>> {
    if let Ok(s) = obj.cast::<PyString>() {
        return Ok(Err(s.to_str()?));
    }
    obj.extract::<i64>()
        .map(Ok)
        .map_err(|_| pyo3::exceptions::PyTypeError::new_err(format!("{what} must be an int or a str")))
}

fn charset_arg<'a>(obj: Option<&'a Bound<'_, PyAny>>) -> PyResult<CharsetArg<'a>> {
    Ok(match obj {
        None => CharsetArg::Name("AL32UTF8"),
        Some(obj) => match int_or_str(obj, "charset")? {
            Ok(id) => CharsetArg::Id(id),
            Err(name) => CharsetArg::Name(name),
        },
    })
}

fn zone_arg<'a>(obj: Option<&'a Bound<'_, PyAny>>) -> PyResult<ZoneArg<'a>> {
    Ok(match obj {
        None => ZoneArg::Minutes(0),
        Some(obj) => match int_or_str(obj, "db_timezone")? {
            Ok(minutes) => ZoneArg::Minutes(minutes),
            Err(text) => ZoneArg::Text(text),
        },
    })
}

/// The trail text of one column value of Oracle type `type_code`: `decode_value(type_code, data,
/// charset=charset, db_timezone=db_timezone)` of `redo_lib.values.codecs`, same text, same
/// `ValueDecodeError` (message and details) on malformed bytes.
#[pyfunction]
#[pyo3(signature = (type_code, data, charset=None, db_timezone=None))]
pub fn render_value(
    py: Python<'_>,
    type_code: i64,
    data: &[u8],
    charset: Option<&Bound<'_, PyAny>>,
    db_timezone: Option<&Bound<'_, PyAny>>,
) -> PyResult<String> {
    values::render_value(type_code, data, charset_arg(charset)?, zone_arg(db_timezone)?)
        .map_err(|e| errors::to_py(py, &e))
}

/// [`render_value`] over a list of values of one type: `None` (NULL) stays `None`. With
/// `errors="raise"` the first malformed value raises; with `errors="return"` its
/// `ValueDecodeError` takes its place in the list.
#[pyfunction]
#[pyo3(signature = (type_code, data, charset=None, db_timezone=None, errors="raise"))]
pub fn render_values<'py>(
    py: Python<'py>,
    type_code: i64,
    data: &Bound<'py, PyAny>,
    charset: Option<&Bound<'py, PyAny>>,
    db_timezone: Option<&Bound<'py, PyAny>>,
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
    let (charset, zone) = (charset_arg(charset)?, zone_arg(db_timezone)?);
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
