//! Change events as Arrow record batches: `events_schema()`, the one definition of the events
//! schema (Python's `redo_lib.batches.events_schema()` is this schema, imported through the
//! binding), and `EventBuilder`, which appends `events::Event`s column by column.
//!
//! Images are `list<struct<col: int32 not null, value: binary>>`, multi-row operations
//! `list<struct<slot: int32, values: list<binary>>>`; every list is present (empty, never null).

use std::sync::{Arc, OnceLock};

use arrow_array::builder::{BinaryBuilder, StringBuilder};
use arrow_array::{ArrayRef, BinaryArray, Int32Array, Int64Array, ListArray, RecordBatch, StructArray};
use arrow_buffer::OffsetBuffer;
use arrow_schema::{ArrowError, DataType, Field, Fields, Schema, SchemaRef};

use crate::events::Event;
use crate::model::Column;

/// The int64 columns, in schema order; `supp_fb` is the only nullable one.
#[rustfmt::skip]
pub const INT_FIELDS: [&str; 24] = [
    "kind", "usn", "slot", "sqn", "thread", "seq", "block", "offset", "scn", "subscn", "time", "vector",
    "obj", "dataobj", "undo_op", "redo_op", "bdba", "row_slot", "fb", "undo_fb", "supp_fb", "supp_op",
    "supp_bdba", "supp_slot",
];

// The nested fields, made once: building them for every record batch (names are Strings) was a
// good part of the cost of the transaction table's small batches.

fn image_fields() -> Fields {
    static FIELDS: OnceLock<Fields> = OnceLock::new();
    FIELDS
        .get_or_init(|| {
            Fields::from(vec![
                Field::new("col", DataType::Int32, false),
                Field::new("value", DataType::Binary, true),
            ])
        })
        .clone()
}

fn image_item() -> Arc<Field> {
    static FIELD: OnceLock<Arc<Field>> = OnceLock::new();
    FIELD.get_or_init(|| Arc::new(Field::new("item", DataType::Struct(image_fields()), true))).clone()
}

fn image_type() -> DataType {
    DataType::List(image_item())
}

fn values_field() -> Arc<Field> {
    static FIELD: OnceLock<Arc<Field>> = OnceLock::new();
    FIELD.get_or_init(|| Arc::new(Field::new("item", DataType::Binary, true))).clone()
}

fn row_fields() -> Fields {
    static FIELDS: OnceLock<Fields> = OnceLock::new();
    FIELDS
        .get_or_init(|| {
            Fields::from(vec![
                Field::new("slot", DataType::Int32, true),
                Field::new("values", DataType::List(values_field()), true),
            ])
        })
        .clone()
}

fn row_item() -> Arc<Field> {
    static FIELD: OnceLock<Arc<Field>> = OnceLock::new();
    FIELD.get_or_init(|| Arc::new(Field::new("item", DataType::Struct(row_fields()), true))).clone()
}

/// The events schema (single source: Python takes it from here).
pub fn events_schema() -> SchemaRef {
    static SCHEMA: OnceLock<SchemaRef> = OnceLock::new();
    SCHEMA
        .get_or_init(|| {
            let mut fields: Vec<Field> =
                INT_FIELDS.iter().map(|&name| Field::new(name, DataType::Int64, name == "supp_fb")).collect();
            fields.extend([
                Field::new("before", image_type(), true),
                Field::new("after", image_type(), true),
                Field::new("supp_columns", image_type(), true),
                Field::new("rows", DataType::List(row_item()), true),
                Field::new("ddl_text", DataType::Utf8, true),
                Field::new("ddl_schema", DataType::Utf8, true),
                // LOB pieces (kind LOB): LOB id, page number, page data
                Field::new("lob_id", DataType::Binary, true),
                Field::new("lob_page", DataType::Int64, true),
                Field::new("lob_data", DataType::Binary, true),
            ]);
            Arc::new(Schema::new(fields))
        })
        .clone()
}

#[derive(Default)]
struct ImageColumn {
    offsets: Vec<i32>,
    cols: Vec<i32>,
    values: BinaryBuilder,
}

impl ImageColumn {
    fn new() -> Self {
        ImageColumn { offsets: vec![0], ..Default::default() }
    }

    fn with_capacity(events: usize) -> Self {
        let mut offsets = Vec::with_capacity(events + 1);
        offsets.push(0);
        ImageColumn { offsets, cols: Vec::new(), values: BinaryBuilder::with_capacity(events, events * 8) }
    }

    fn push<'a>(&mut self, image: impl IntoIterator<Item = (i32, Column<'a>)>) {
        for (col, value) in image {
            self.cols.push(col);
            self.values.append_option(value);
        }
        self.offsets.push(self.cols.len() as i32);
    }

    fn finish(&mut self) -> Result<ArrayRef, ArrowError> {
        let cols = Int32Array::from(std::mem::take(&mut self.cols));
        let values: BinaryArray = self.values.finish();
        let items = StructArray::try_new(image_fields(), vec![Arc::new(cols), Arc::new(values)], None)?;
        let offsets = std::mem::replace(&mut self.offsets, vec![0]);
        let field = image_item();
        Ok(Arc::new(ListArray::try_new(field, OffsetBuffer::new(offsets.into()), Arc::new(items), None)?))
    }
}

#[derive(Default)]
struct RowsColumn {
    offsets: Vec<i32>,
    slots: Vec<i32>,
    value_offsets: Vec<i32>,
    values: BinaryBuilder,
    count: i32,
}

impl RowsColumn {
    fn new() -> Self {
        RowsColumn { offsets: vec![0], value_offsets: vec![0], ..Default::default() }
    }

    fn with_capacity(events: usize) -> Self {
        let mut offsets = Vec::with_capacity(events + 1);
        offsets.push(0);
        RowsColumn {
            offsets,
            value_offsets: vec![0],
            values: BinaryBuilder::with_capacity(0, 0),
            ..Default::default()
        }
    }

    fn push<'a, C: IntoIterator<Item = Column<'a>>>(&mut self, rows: impl IntoIterator<Item = (i32, C)>) {
        for (slot, columns) in rows {
            self.slots.push(slot);
            for value in columns {
                self.values.append_option(value);
                self.count += 1;
            }
            self.value_offsets.push(self.count);
        }
        self.offsets.push(self.slots.len() as i32);
    }

    fn finish(&mut self) -> Result<ArrayRef, ArrowError> {
        let values = Arc::new(self.values.finish());
        let value_offsets = std::mem::replace(&mut self.value_offsets, vec![0]);
        self.count = 0;
        let lists =
            ListArray::try_new(values_field(), OffsetBuffer::new(value_offsets.into()), values, None)?;
        let slots = Int32Array::from(std::mem::take(&mut self.slots));
        let items = StructArray::try_new(row_fields(), vec![Arc::new(slots), Arc::new(lists)], None)?;
        let offsets = std::mem::replace(&mut self.offsets, vec![0]);
        let field = row_item();
        Ok(Arc::new(ListArray::try_new(field, OffsetBuffer::new(offsets.into()), Arc::new(items), None)?))
    }
}

/// Appends events column by column; `finish` makes a record batch of `events_schema()` and starts
/// over.
pub struct EventBuilder {
    ints: Vec<Vec<i64>>,
    supp_fb: Vec<Option<i64>>,
    before: ImageColumn,
    after: ImageColumn,
    supp_columns: ImageColumn,
    rows: RowsColumn,
    ddl_text: StringBuilder,
    ddl_schema: StringBuilder,
    lob_id: BinaryBuilder,
    lob_page: Vec<i64>,
    lob_data: BinaryBuilder,
    len: usize,
}

impl Default for EventBuilder {
    fn default() -> Self {
        Self::new()
    }
}

impl EventBuilder {
    pub fn new() -> Self {
        EventBuilder {
            ints: vec![Vec::new(); INT_FIELDS.len() - 1],
            supp_fb: Vec::new(),
            before: ImageColumn::new(),
            after: ImageColumn::new(),
            supp_columns: ImageColumn::new(),
            rows: RowsColumn::new(),
            ddl_text: StringBuilder::new(),
            ddl_schema: StringBuilder::new(),
            lob_id: BinaryBuilder::new(),
            lob_page: Vec::new(),
            lob_data: BinaryBuilder::new(),
            len: 0,
        }
    }

    /// A builder sized for about `events` events (the transaction table's batches, many of them
    /// small: `new` reserves for 1,024 values per binary column).
    pub fn with_capacity(events: usize) -> Self {
        EventBuilder {
            ints: vec![Vec::with_capacity(events); INT_FIELDS.len() - 1],
            supp_fb: Vec::with_capacity(events),
            before: ImageColumn::with_capacity(events),
            after: ImageColumn::with_capacity(events),
            supp_columns: ImageColumn::with_capacity(events),
            rows: RowsColumn::with_capacity(events),
            ddl_text: StringBuilder::with_capacity(events, 0),
            ddl_schema: StringBuilder::with_capacity(events, 0),
            lob_id: BinaryBuilder::with_capacity(events, 0),
            lob_page: Vec::with_capacity(events),
            lob_data: BinaryBuilder::with_capacity(events, 0),
            len: 0,
        }
    }

    /// Events appended since the last `finish`.
    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    pub fn append(&mut self, e: &Event<'_>) {
        let ints = [
            e.kind,
            e.usn,
            e.slot,
            e.sqn,
            e.thread,
            e.seq,
            e.block,
            e.offset,
            e.scn,
            e.subscn,
            e.time,
            e.vector,
            e.obj,
            e.dataobj,
            e.undo_op,
            e.redo_op,
            e.bdba,
            e.row_slot,
            e.fb,
            e.undo_fb,
            e.supp_op,
            e.supp_bdba,
            e.supp_slot,
        ];
        self.append_parts(
            &ints,
            e.supp_fb,
            [e.before.iter().copied(), e.after.iter().copied(), e.supp_columns.iter().copied()],
            e.rows.iter().map(|&(slot, columns)| (slot, columns.iter().copied())),
            [e.ddl_text, e.ddl_schema],
            e.lob_id,
            e.lob_page,
            e.lob_data,
        );
    }

    /// Append an event from its parts, for events held in other shapes (the transaction table's):
    /// the int64 columns but `supp_fb` in schema order, `supp_fb`, the before / after /
    /// supplemental images, the multi-row rows, the DDL text and schema, the LOB id, page and data.
    #[allow(clippy::too_many_arguments)]
    pub fn append_parts<'a, I, C>(
        &mut self,
        ints: &[i64; 23],
        supp_fb: Option<i64>,
        [before, after, supp_columns]: [I; 3],
        rows: impl IntoIterator<Item = (i32, C)>,
        [ddl_text, ddl_schema]: [&str; 2],
        lob_id: &[u8],
        lob_page: i64,
        lob_data: &[u8],
    ) where
        I: IntoIterator<Item = (i32, Column<'a>)>,
        C: IntoIterator<Item = Column<'a>>,
    {
        for (column, value) in self.ints.iter_mut().zip(ints) {
            column.push(*value);
        }
        self.supp_fb.push(supp_fb);
        self.before.push(before);
        self.after.push(after);
        self.supp_columns.push(supp_columns);
        self.rows.push(rows);
        self.ddl_text.append_value(ddl_text);
        self.ddl_schema.append_value(ddl_schema);
        self.lob_id.append_value(lob_id);
        self.lob_page.push(lob_page);
        self.lob_data.append_value(lob_data);
        self.len += 1;
    }

    /// The events so far as one record batch of `events_schema()`; the builder is empty after.
    pub fn finish(&mut self) -> Result<RecordBatch, ArrowError> {
        let mut columns: Vec<ArrayRef> = Vec::with_capacity(33);
        let mut ints = self.ints.iter_mut();
        for name in INT_FIELDS {
            if name == "supp_fb" {
                columns.push(Arc::new(Int64Array::from(std::mem::take(&mut self.supp_fb))));
            } else if let Some(column) = ints.next() {
                columns.push(Arc::new(Int64Array::from(std::mem::take(column))));
            }
        }
        columns.push(self.before.finish()?);
        columns.push(self.after.finish()?);
        columns.push(self.supp_columns.finish()?);
        columns.push(self.rows.finish()?);
        columns.push(Arc::new(self.ddl_text.finish()));
        columns.push(Arc::new(self.ddl_schema.finish()));
        columns.push(Arc::new(self.lob_id.finish()));
        columns.push(Arc::new(Int64Array::from(std::mem::take(&mut self.lob_page))));
        columns.push(Arc::new(self.lob_data.finish()));
        self.len = 0;
        RecordBatch::try_new(events_schema(), columns)
    }
}
