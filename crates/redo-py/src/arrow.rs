//! Arrow hand-off through the Arrow PyCapsule interface: a record batch (or the events schema)
//! becomes a Python object with `__arrow_c_array__` / `__arrow_c_schema__`, which
//! `pyarrow.record_batch(obj)` / `pyarrow.schema(obj)` import without copying the buffers (the C
//! Data Interface structs are moved into capsules named `arrow_array` and `arrow_schema`; the
//! consumer takes them over and releases them, the capsule frees what is left unclaimed).

use arrow_array::ffi::{to_ffi, FFI_ArrowSchema};
use arrow_array::{Array, RecordBatch, StructArray};
use arrow_schema::SchemaRef;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyCapsule, PyTuple};

fn schema_capsule<'py>(py: Python<'py>, schema: FFI_ArrowSchema) -> PyResult<Bound<'py, PyCapsule>> {
    PyCapsule::new_with_value(py, schema, c"arrow_schema")
}

/// One record batch of change events, exported on request (`pyarrow.record_batch(batch)`).
#[pyclass(module = "redo_lib._native", frozen)]
pub struct ArrowBatch {
    batch: RecordBatch,
}

impl ArrowBatch {
    pub fn new(batch: RecordBatch) -> Self {
        ArrowBatch { batch }
    }
}

#[pymethods]
impl ArrowBatch {
    #[getter]
    fn num_rows(&self) -> usize {
        self.batch.num_rows()
    }

    fn __len__(&self) -> usize {
        self.batch.num_rows()
    }

    #[pyo3(signature = (requested_schema=None))]
    fn __arrow_c_array__<'py>(
        &self,
        py: Python<'py>,
        requested_schema: Option<Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyTuple>> {
        let _ = requested_schema; // the batch comes as it is; the consumer casts if it must
        let array = StructArray::from(self.batch.clone());
        let (array, schema) =
            to_ffi(&array.to_data()).map_err(|e| PyValueError::new_err(format!("arrow export: {e}")))?;
        let schema = schema_capsule(py, schema)?;
        let array = PyCapsule::new_with_value(py, array, c"arrow_array")?;
        PyTuple::new(py, [schema.into_any(), array.into_any()])
    }

    fn __arrow_c_schema__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyCapsule>> {
        export_schema(py, &self.batch.schema())
    }
}

fn export_schema<'py>(py: Python<'py>, schema: &SchemaRef) -> PyResult<Bound<'py, PyCapsule>> {
    let ffi = FFI_ArrowSchema::try_from(schema.as_ref())
        .map_err(|e| PyValueError::new_err(format!("arrow schema export: {e}")))?;
    schema_capsule(py, ffi)
}

/// A schema, exported on request (`pyarrow.schema(obj)`).
#[pyclass(module = "redo_lib._native", frozen)]
pub struct ArrowSchema {
    schema: SchemaRef,
}

impl ArrowSchema {
    pub fn new(schema: SchemaRef) -> Self {
        ArrowSchema { schema }
    }
}

#[pymethods]
impl ArrowSchema {
    fn __arrow_c_schema__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyCapsule>> {
        export_schema(py, &self.schema)
    }
}
