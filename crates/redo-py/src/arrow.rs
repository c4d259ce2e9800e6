//! Arrow hand-off through the Arrow PyCapsule interface: a record batch (or the events schema)
//! becomes a Python object with `__arrow_c_array__` / `__arrow_c_schema__`, which
//! `pyarrow.record_batch(obj)` / `pyarrow.schema(obj)` import without copying the buffers (the C
//! Data Interface structs are moved into capsules named `arrow_array` and `arrow_schema`; the
//! consumer takes them over and releases them, the capsule frees what is left unclaimed).

use std::sync::Arc;

use arrow_array::ffi::{from_ffi, to_ffi, FFI_ArrowArray, FFI_ArrowSchema};
use arrow_array::{Array, RecordBatch, StructArray};
use arrow_schema::{DataType, Schema, SchemaRef};
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

/// A record batch from any object with `__arrow_c_array__` (a `pyarrow.RecordBatch`): the input
/// side of the hand-off. The array is moved out of its capsule (left released, so the capsule's
/// destructor frees nothing twice), the schema borrowed; the data is validated before use.
pub fn import_batch(obj: &Bound<'_, PyAny>) -> PyResult<RecordBatch> {
    let (schema, array): (Bound<'_, PyCapsule>, Bound<'_, PyCapsule>) =
        obj.call_method0("__arrow_c_array__")?.extract()?;
    let schema_ptr = schema.pointer_checked(Some(c"arrow_schema"))?;
    let array_ptr = array.pointer_checked(Some(c"arrow_array"))?;
    // SAFETY: capsules named "arrow_schema" / "arrow_array" hold an ArrowSchema / ArrowArray of
    // the C Data Interface (the PyCapsule protocol); `from_raw` moves the array out and marks the
    // capsule's copy released, the schema is only read while the capsule is alive (this scope).
    let data = unsafe {
        let array = FFI_ArrowArray::from_raw(array_ptr.as_ptr().cast::<FFI_ArrowArray>());
        let schema = &*(schema_ptr.as_ptr().cast::<FFI_ArrowSchema>());
        from_ffi(array, schema)
    }
    .map_err(|e| PyValueError::new_err(format!("arrow import: {e}")))?;
    data.validate_full().map_err(|e| PyValueError::new_err(format!("arrow import: {e}")))?;
    if !matches!(data.data_type(), DataType::Struct(_)) {
        return Err(PyValueError::new_err(format!("arrow import: a record batch, not {}", data.data_type())));
    }
    let (fields, columns, _) = StructArray::from(data).into_parts();
    RecordBatch::try_new(Arc::new(Schema::new(fields)), columns)
        .map_err(|e| PyValueError::new_err(format!("arrow import: {e}")))
}
