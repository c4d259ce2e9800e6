//! The trail's Arrow schema (Python `redo_lib/trail/schema.py` `trail_schema()`: the fields of
//! `trail.model.TRAIL_FIELDS` + `batch_id`, `trail_seq`, `commit_log`) and a builder of its record
//! batches from [`TrailRecord`]s, row for row what `schema.to_row` gives. A test compares this
//! schema with Python's (tests/unit/native/test_emit_differential.py).

use std::sync::Arc;

use arrow_array::builder::{
    Int16Builder, Int32Builder, Int64Builder, Int8Builder, StringBuilder, TimestampMicrosecondBuilder,
};
use arrow_array::{Array, ArrayRef, Int32Array, Int64Array, ListArray, RecordBatch, StructArray};
use arrow_buffer::OffsetBuffer;
use arrow_schema::{DataType, Field, Fields, Schema, SchemaRef, TimeUnit};

use crate::error::{Error, Position, Result};

/// `{name, value}`: one column of an image, or one token.
pub(crate) fn pair_fields() -> Fields {
    Fields::from(vec![Field::new("name", DataType::Utf8, false), Field::new("value", DataType::Utf8, true)])
}

fn lob_fields() -> Fields {
    Fields::from(vec![
        Field::new("column", DataType::Utf8, false),
        Field::new("bytes", DataType::Int64, false),
        Field::new("pieces", DataType::Int32, false),
    ])
}

pub(crate) fn list_of(fields: Fields) -> DataType {
    DataType::List(Arc::new(Field::new("item", DataType::Struct(fields), true)))
}

fn strings() -> DataType {
    DataType::List(Arc::new(Field::new("item", DataType::Utf8, true)))
}

fn ts() -> DataType {
    DataType::Timestamp(TimeUnit::Microsecond, Some("UTC".into()))
}

/// `trail_schema()`: the one definition in Rust, equal to Python's.
pub fn trail_schema() -> SchemaRef {
    let f =
        |name: &str, t: DataType| Field::new(name, t, matches!(name, "owner" | "batch_id" | "commit_log"));
    Arc::new(Schema::new(vec![
        f("xid", DataType::Utf8),
        f("commit_scn", DataType::Int64),
        f("commit_time", ts()),
        f("trans_ind", DataType::Int8),
        f("io_type", DataType::Int16),
        f("op", DataType::Utf8),
        f("before_after", DataType::Utf8),
        f("owner", DataType::Utf8),
        f("table", DataType::Utf8),
        f("obj", DataType::Int64),
        f("columns", list_of(pair_fields())),
        f("before", list_of(pair_fields())),
        f("key_columns", strings()),
        f("changed_columns", strings()),
        f("rowid", DataType::Utf8),
        f("scn", DataType::Int64),
        f("subscn", DataType::Int32),
        f("op_time", ts()),
        f("thread", DataType::Int32),
        f("sequence", DataType::Int64),
        f("rba", DataType::Utf8),
        f("tokens", list_of(pair_fields())),
        f("lob_columns", list_of(lob_fields())),
        f("batch_id", DataType::Utf8),
        f("trail_seq", DataType::Int64),
        f("commit_log", DataType::Utf8),
    ]))
}

/// A column or token name, shared with the dictionary (no copy per value).
pub type Name = Arc<str>;
/// An image or the tokens: (name, value) pairs in order (`None`: SQL NULL).
pub type Pairs = Vec<(Name, Option<String>)>;

/// The LOB descriptor of one LOB column (Python `LobColumn`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LobColumn {
    pub column: String,
    pub bytes: i64,
    pub pieces: i32,
}

/// GoldenGate cuts LOB values into pieces of this many bytes (`model.LOB_PIECE_SIZE`).
pub const LOB_PIECE_SIZE: i64 = 32_768;

impl LobColumn {
    pub fn of(column: &str, size: usize) -> LobColumn {
        let bytes = size as i64;
        LobColumn {
            column: column.to_owned(),
            bytes,
            pieces: ((bytes + LOB_PIECE_SIZE - 1) / LOB_PIECE_SIZE) as i32,
        }
    }
}

/// One trail record as `to_row` gives it (Python `TrailRecord`; times in microseconds since
/// 1970-01-01 UTC, already cut to whole seconds as the ISO text of `render_time` is).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TrailRecord {
    pub xid: String,
    pub commit_scn: i64,
    pub commit_time: i64,
    pub trans_ind: i8,
    pub io_type: i16,
    pub op: &'static str,
    pub before_after: &'static str,
    pub owner: String,
    pub table: String,
    pub obj: i64,
    pub columns: Pairs,
    pub before: Pairs,
    pub key_columns: Vec<String>,
    pub changed_columns: Vec<String>,
    pub rowid: String,
    pub scn: i64,
    pub subscn: i64,
    pub op_time: i64,
    pub thread: i64,
    pub sequence: i64,
    pub rba: String,
    pub tokens: Pairs,
    pub lob_columns: Vec<LobColumn>,
}

/// Pairs lists, flattened (the trail's images and tokens, the mirror fold's rows).
#[derive(Default)]
pub(crate) struct PairsBuilder {
    offsets: Vec<i32>,
    names: StringBuilder,
    values: StringBuilder,
}

impl PairsBuilder {
    fn append(&mut self, pairs: &Pairs) {
        self.append_iter(pairs.iter().map(|(name, value)| (name.as_ref(), value.as_deref())));
    }

    pub(crate) fn append_iter<'a>(&mut self, pairs: impl Iterator<Item = (&'a str, Option<&'a str>)>) {
        if self.offsets.is_empty() {
            self.offsets.push(0);
        }
        let mut n = 0;
        for (name, value) in pairs {
            self.names.append_value(name);
            self.values.append_option(value);
            n += 1;
        }
        let last = *self.offsets.last().unwrap_or(&0);
        self.offsets.push(last + n);
    }

    pub(crate) fn finish(&mut self) -> Result<ArrayRef> {
        let names: ArrayRef = Arc::new(self.names.finish());
        let values: ArrayRef = Arc::new(self.values.finish());
        let structs = StructArray::try_new(pair_fields(), vec![names, values], None).map_err(arrow_error)?;
        list(std::mem::take(&mut self.offsets), Arc::new(structs))
    }
}

fn list(mut offsets: Vec<i32>, values: ArrayRef) -> Result<ArrayRef> {
    if offsets.is_empty() {
        offsets.push(0);
    }
    let field = Arc::new(Field::new("item", values.data_type().clone(), true));
    let list =
        ListArray::try_new(field, OffsetBuffer::new(offsets.into()), values, None).map_err(arrow_error)?;
    Ok(Arc::new(list))
}

fn arrow_error(e: arrow_schema::ArrowError) -> Error {
    Error::format(format!("building the trail record batch: {e}"), Position::default())
}

fn offsets_of(offsets: &mut Vec<i32>, n: usize) {
    if offsets.is_empty() {
        offsets.push(0);
    }
    let last = *offsets.last().unwrap_or(&0);
    offsets.push(last + n as i32);
}

/// Where the emitter puts the trail records of a transaction, one at a time (a [`TrailBuilder`],
/// or the assemble stage's `stage::StagedTrail`, which cuts them into bounded record batches).
pub trait TrailSink {
    /// One record, with the log its transaction committed in (`to_row`'s `commit_log`).
    fn push(&mut self, record: &TrailRecord, commit_log: Option<&str>) -> Result<()>;
}

impl TrailSink for TrailBuilder {
    fn push(&mut self, record: &TrailRecord, commit_log: Option<&str>) -> Result<()> {
        self.append(record, None, 0, commit_log);
        Ok(())
    }
}

/// Trail records -> record batches of [`trail_schema`], column by column. `batch_id`, `trail_seq`
/// and `commit_log` are the pipeline's (`to_row` keywords).
#[derive(Default)]
pub struct TrailBuilder {
    xid: StringBuilder,
    commit_scn: Int64Builder,
    commit_time: TimestampMicrosecondBuilder,
    trans_ind: Int8Builder,
    io_type: Int16Builder,
    op: StringBuilder,
    before_after: StringBuilder,
    owner: StringBuilder,
    table: StringBuilder,
    obj: Int64Builder,
    columns: PairsBuilder,
    before: PairsBuilder,
    key_offsets: Vec<i32>,
    key_columns: StringBuilder,
    changed_offsets: Vec<i32>,
    changed_columns: StringBuilder,
    rowid: StringBuilder,
    scn: Int64Builder,
    subscn: Int32Builder,
    op_time: TimestampMicrosecondBuilder,
    thread: Int32Builder,
    sequence: Int64Builder,
    rba: StringBuilder,
    tokens: PairsBuilder,
    lob_offsets: Vec<i32>,
    lob_column: StringBuilder,
    lob_bytes: Vec<i64>,
    lob_pieces: Vec<i32>,
    batch_id: StringBuilder,
    trail_seq: Int64Builder,
    commit_log: StringBuilder,
    rows: usize,
}

impl TrailBuilder {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn len(&self) -> usize {
        self.rows
    }

    pub fn is_empty(&self) -> bool {
        self.rows == 0
    }

    pub fn append(
        &mut self,
        r: &TrailRecord,
        batch_id: Option<&str>,
        trail_seq: i64,
        commit_log: Option<&str>,
    ) {
        self.xid.append_value(&r.xid);
        self.commit_scn.append_value(r.commit_scn);
        self.commit_time.append_value(r.commit_time);
        self.trans_ind.append_value(r.trans_ind);
        self.io_type.append_value(r.io_type);
        self.op.append_value(r.op);
        self.before_after.append_value(r.before_after);
        self.owner.append_value(&r.owner);
        self.table.append_value(&r.table);
        self.obj.append_value(r.obj);
        self.columns.append(&r.columns);
        self.before.append(&r.before);
        for k in &r.key_columns {
            self.key_columns.append_value(k);
        }
        offsets_of(&mut self.key_offsets, r.key_columns.len());
        for c in &r.changed_columns {
            self.changed_columns.append_value(c);
        }
        offsets_of(&mut self.changed_offsets, r.changed_columns.len());
        self.rowid.append_value(&r.rowid);
        self.scn.append_value(r.scn);
        // subscn / thread are int32 in the schema (Python: pyarrow would refuse larger values)
        self.subscn.append_value(r.subscn as i32);
        self.op_time.append_value(r.op_time);
        self.thread.append_value(r.thread as i32);
        self.sequence.append_value(r.sequence);
        self.rba.append_value(&r.rba);
        self.tokens.append(&r.tokens);
        for l in &r.lob_columns {
            self.lob_column.append_value(&l.column);
            self.lob_bytes.push(l.bytes);
            self.lob_pieces.push(l.pieces);
        }
        offsets_of(&mut self.lob_offsets, r.lob_columns.len());
        self.batch_id.append_option(batch_id);
        self.trail_seq.append_value(trail_seq);
        self.commit_log.append_option(commit_log);
        self.rows += 1;
    }

    /// The rows appended so far as one record batch; the builder is empty again.
    pub fn finish(&mut self) -> Result<RecordBatch> {
        let utc =
            |b: &mut TimestampMicrosecondBuilder| -> ArrayRef { Arc::new(b.finish().with_timezone("UTC")) };
        let key_values: ArrayRef = Arc::new(self.key_columns.finish());
        let changed_values: ArrayRef = Arc::new(self.changed_columns.finish());
        let lob_names: ArrayRef = Arc::new(self.lob_column.finish());
        let lob_bytes: ArrayRef = Arc::new(Int64Array::from(std::mem::take(&mut self.lob_bytes)));
        let lob_pieces: ArrayRef = Arc::new(Int32Array::from(std::mem::take(&mut self.lob_pieces)));
        let lobs = StructArray::try_new(lob_fields(), vec![lob_names, lob_bytes, lob_pieces], None)
            .map_err(arrow_error)?;
        let columns: Vec<ArrayRef> = vec![
            Arc::new(self.xid.finish()),
            Arc::new(self.commit_scn.finish()),
            utc(&mut self.commit_time),
            Arc::new(self.trans_ind.finish()),
            Arc::new(self.io_type.finish()),
            Arc::new(self.op.finish()),
            Arc::new(self.before_after.finish()),
            Arc::new(self.owner.finish()),
            Arc::new(self.table.finish()),
            Arc::new(self.obj.finish()),
            self.columns.finish()?,
            self.before.finish()?,
            list(std::mem::take(&mut self.key_offsets), key_values)?,
            list(std::mem::take(&mut self.changed_offsets), changed_values)?,
            Arc::new(self.rowid.finish()),
            Arc::new(self.scn.finish()),
            Arc::new(self.subscn.finish()),
            utc(&mut self.op_time),
            Arc::new(self.thread.finish()),
            Arc::new(self.sequence.finish()),
            Arc::new(self.rba.finish()),
            self.tokens.finish()?,
            list(std::mem::take(&mut self.lob_offsets), Arc::new(lobs))?,
            Arc::new(self.batch_id.finish()),
            Arc::new(self.trail_seq.finish()),
            Arc::new(self.commit_log.finish()),
        ];
        self.rows = 0;
        RecordBatch::try_new(trail_schema(), columns).map_err(arrow_error)
    }
}
