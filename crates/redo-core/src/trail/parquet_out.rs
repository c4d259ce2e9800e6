//! The trail as a Parquet file, written by the core (the decode command's `--format parquet`,
//! issue 31): record batches of the assemble stage's staged trail (`stage::staged_trail_schema`)
//! in commit order in, a file of [`trail_schema`] out, `trail_seq` numbering the rows 0, 1, ... in
//! the order they came.
//!
//! Why here and not through `pyarrow.parquet`: the rows are the core's Arrow already, and the
//! Python writer cost the command 30 MB of peak RSS (its library loaded and its column writers'
//! buffers: 120 -> 150 MB on the 64 MB seed-11 set, 124 -> 160 MB on 1 GB) for the same file.
//! Here a row group is cut at [`ROW_GROUP_ROWS`] rows or [`ROW_GROUP_BYTES`] of encoded data,
//! whichever comes first, so what the writer holds is bounded however large the trail.
//!
//! The file is what pyarrow wrote: snappy pages, the Arrow schema in the footer (`ARROW:schema`,
//! so `pyarrow`, DuckDB and Spark read the UTC timestamps and the nested pairs back as written).

use std::io::Write;
use std::sync::Arc;

use arrow_array::{make_array, ArrayRef, Int64Array, RecordBatch};
use arrow_schema::SchemaRef;
use parquet::arrow::ArrowWriter;
use parquet::basic::Compression;
use parquet::file::properties::WriterProperties;

use super::schema::trail_schema;
use crate::error::{Error, Position, Result};

/// The most rows of one row group (what the command wrote through pyarrow).
pub const ROW_GROUP_ROWS: usize = 64 * 1024;
/// The most encoded bytes of one row group: what bounds the writer's buffers on wide rows (8 MB
/// held 5-10 MB more at the command's peak than 2 MB on the 64 MB seed-11 set: 141 against 132-136).
pub const ROW_GROUP_BYTES: usize = 2 << 20;

fn input_error(message: String) -> Error {
    Error::assembly(format!("trail Parquet: {message}"), Position::default())
}

/// `staged` (a record batch holding every field of [`trail_schema`] by name, of its type: the
/// staged trail has them and its `order_*` keys) as a batch of [`trail_schema`], its `trail_seq`
/// `first`, `first + 1`, ... (Python `trail.schema.numbered_trail_batch` asks this). A missing
/// field or one of another type is an `AssemblyError` naming it.
pub fn numbered_trail_batch(staged: &RecordBatch, first: i64) -> Result<RecordBatch> {
    let schema = trail_schema();
    let n = staged.num_rows();
    let mut columns: Vec<ArrayRef> = Vec::with_capacity(schema.fields().len());
    for field in schema.fields() {
        if field.name() == "trail_seq" {
            let seq: Int64Array = (0..n as i64).map(|i| Some(first + i)).collect();
            columns.push(Arc::new(seq));
            continue;
        }
        let column = staged
            .column_by_name(field.name())
            .ok_or_else(|| input_error(format!("the batch has no column {}", field.name())))?;
        let column = if column.data_type() == field.data_type() {
            column.clone()
        } else if column.data_type().equals_datatype(field.data_type()) {
            // the same type under other nested names: a list read back from Parquet names its
            // items `element`, the trail schema `item`; the buffers are the same, the type is ours
            let data = column.to_data().into_builder().data_type(field.data_type().clone()).build();
            make_array(data.map_err(|e| input_error(format!("column {}: {e}", field.name())))?)
        } else {
            return Err(input_error(format!(
                "column {} is {}, the trail schema's is {}",
                field.name(),
                column.data_type(),
                field.data_type()
            )));
        };
        if !field.is_nullable() && column.null_count() > 0 {
            return Err(input_error(format!("column {} holds nulls", field.name())));
        }
        columns.push(column);
    }
    RecordBatch::try_new(schema, columns).map_err(|e| input_error(e.to_string()))
}

/// A Parquet file of the trail being written to `out` (a file: the binding's; a `Vec` in tests).
pub struct TrailParquetWriter<W: Write + Send> {
    writer: ArrowWriter<W>,
    /// the `trail_seq` of the first row
    first: i64,
    /// the `trail_seq` of the next row
    next_seq: i64,
    /// where errors say they were (the file's name)
    name: String,
}

impl<W: Write + Send> TrailParquetWriter<W> {
    /// A writer of [`trail_schema`] to `out`, its first row's `trail_seq` `first` (a part of a trail
    /// written as several files numbers on from the part before); `name` is what its errors name.
    pub fn try_new(out: W, name: &str, first: i64) -> Result<Self> {
        let props = WriterProperties::builder()
            .set_compression(Compression::SNAPPY)
            .set_max_row_group_row_count(Some(ROW_GROUP_ROWS))
            .set_max_row_group_bytes(Some(ROW_GROUP_BYTES))
            .build();
        let schema: SchemaRef = trail_schema();
        let writer = ArrowWriter::try_new(out, schema, Some(props)).map_err(|e| storage(name, e))?;
        Ok(TrailParquetWriter { writer, first, next_seq: first, name: name.to_owned() })
    }

    /// Append `staged`'s rows (see [`numbered_trail_batch`]), numbered on from the rows before.
    pub fn write(&mut self, staged: &RecordBatch) -> Result<()> {
        let batch =
            numbered_trail_batch(staged, self.next_seq).map_err(|e| e.locate(Some(&self.name), None))?;
        self.writer.write(&batch).map_err(|e| storage(&self.name, e))?;
        self.next_seq += batch.num_rows() as i64;
        Ok(())
    }

    /// Rows written so far.
    pub fn rows(&self) -> i64 {
        self.next_seq - self.first
    }

    /// Row groups written out so far (the one being filled not counted): what the writer holds
    /// until [`finish`](Self::finish) grows with them (each one's column chunk metadata, column
    /// and offset indexes), so a caller bounds it by closing the file and starting another.
    pub fn row_groups(&self) -> usize {
        self.writer.flushed_row_groups().len()
    }

    /// Write what is buffered and the footer; the file is whole after this.
    pub fn finish(self) -> Result<W> {
        // ArrowWriter::into_inner flushes the last row group, writes the footer and gives `out`
        self.writer.into_inner().map_err(|e| storage(&self.name, e))
    }
}

fn storage(name: &str, e: impl std::fmt::Display) -> Error {
    Error::storage(
        format!("trail Parquet: {e}"),
        Position { file: Some(name.to_owned()), ..Default::default() },
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stage::staged_trail_schema;
    use arrow_array::new_null_array;
    use arrow_array::{Array, Int16Array, Int32Array, Int8Array, StringArray};
    use arrow_schema::DataType;
    use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;

    /// A staged batch of `n` rows: every field of its type, strings and integers from the row's
    /// number, nulls where the field allows them.
    fn staged(n: usize) -> RecordBatch {
        let schema = staged_trail_schema();
        let columns: Vec<ArrayRef> = schema
            .fields()
            .iter()
            .map(|f| -> ArrayRef {
                match f.data_type() {
                    DataType::Utf8 => {
                        Arc::new(StringArray::from_iter_values((0..n).map(|i| format!("{}{i}", f.name()))))
                    }
                    DataType::Int64 => {
                        Arc::new(Int64Array::from_iter_values((0..n as i64).map(|i| 1000 + i)))
                    }
                    DataType::Int32 => Arc::new(Int32Array::from_iter_values((0..n as i32).map(|i| i % 3))),
                    DataType::Int16 => Arc::new(Int16Array::from_iter_values((0..n).map(|_| 5))),
                    DataType::Int8 => Arc::new(Int8Array::from_iter_values((0..n).map(|i| (i % 4) as i8))),
                    // lists and timestamps: null where allowed, else empty lists / the epoch
                    other if f.is_nullable() => new_null_array(other, n),
                    other => filled(other, n),
                }
            })
            .collect();
        RecordBatch::try_new(schema, columns).unwrap()
    }

    /// An array of `n` non-null values of a list or timestamp type: empty lists, instant 0.
    fn filled(t: &DataType, n: usize) -> ArrayRef {
        match t {
            DataType::List(item) => {
                let offsets = arrow_buffer::OffsetBuffer::new(vec![0i32; n + 1].into());
                let values = arrow_array::new_empty_array(item.data_type());
                Arc::new(arrow_array::ListArray::new(item.clone(), offsets, values, None))
            }
            DataType::Timestamp(_, zone) => Arc::new(
                arrow_array::TimestampMicrosecondArray::from(vec![0i64; n]).with_timezone_opt(zone.clone()),
            ),
            other => panic!("no filler for {other}"),
        }
    }

    #[test]
    fn a_part_numbers_on_from_its_first_and_counts_its_row_groups() {
        let mut writer = TrailParquetWriter::try_new(Vec::new(), "t-00001.parquet", 100).unwrap();
        writer.write(&staged(ROW_GROUP_ROWS + 2)).unwrap();
        assert_eq!((writer.rows(), writer.row_groups()), (ROW_GROUP_ROWS as i64 + 2, 1));
        let path = std::env::temp_dir().join(format!("redo-core-part-{}.parquet", std::process::id()));
        std::fs::write(&path, writer.finish().unwrap()).unwrap();
        let file = std::fs::File::open(&path).unwrap();
        let reader = ParquetRecordBatchReaderBuilder::try_new(file).unwrap().build().unwrap();
        std::fs::remove_file(&path).unwrap();
        let seq: Vec<i64> = reader
            .flat_map(|b| {
                let b = b.unwrap();
                let seq =
                    b.column_by_name("trail_seq").unwrap().as_any().downcast_ref::<Int64Array>().unwrap();
                seq.values().to_vec()
            })
            .collect();
        assert_eq!(seq, (100..100 + ROW_GROUP_ROWS as i64 + 2).collect::<Vec<_>>());
    }

    #[test]
    fn rows_are_numbered_on_across_batches_and_read_back() {
        let mut writer = TrailParquetWriter::try_new(Vec::new(), "t.parquet", 0).unwrap();
        writer.write(&staged(3)).unwrap();
        writer.write(&staged(2)).unwrap();
        assert_eq!(writer.rows(), 5);
        let path = std::env::temp_dir().join(format!("redo-core-trail-{}.parquet", std::process::id()));
        std::fs::write(&path, writer.finish().unwrap()).unwrap();
        let reader = ParquetRecordBatchReaderBuilder::try_new(std::fs::File::open(&path).unwrap()).unwrap();
        std::fs::remove_file(&path).unwrap();
        assert_eq!(reader.schema().as_ref(), trail_schema().as_ref());
        let batches: Vec<RecordBatch> = reader.build().unwrap().map(|b| b.unwrap()).collect();
        let seq: Vec<i64> = batches
            .iter()
            .flat_map(|b| {
                b.column_by_name("trail_seq")
                    .unwrap()
                    .as_any()
                    .downcast_ref::<Int64Array>()
                    .unwrap()
                    .values()
                    .to_vec()
            })
            .collect();
        assert_eq!(seq, vec![0, 1, 2, 3, 4]);
        let xid: Vec<String> = batches
            .iter()
            .flat_map(|b| {
                let a = b.column_by_name("xid").unwrap().as_any().downcast_ref::<StringArray>().unwrap();
                (0..a.len()).map(|i| a.value(i).to_owned()).collect::<Vec<_>>()
            })
            .collect();
        assert_eq!(xid, vec!["xid0", "xid1", "xid2", "xid0", "xid1"]);
    }

    #[test]
    fn a_list_whose_items_are_named_otherwise_takes_the_trail_schemas_names() {
        let batch = staged(2);
        let at = batch.schema().index_of("key_columns").unwrap();
        let element = Arc::new(arrow_schema::Field::new("element", DataType::Utf8, true));
        let values = StringArray::from(vec!["ID", "A", "B"]);
        let offsets = arrow_buffer::OffsetBuffer::new(vec![0i32, 1, 3].into());
        let list = arrow_array::ListArray::new(element.clone(), offsets, Arc::new(values), None);
        let mut columns = batch.columns().to_vec();
        columns[at] = Arc::new(list);
        let mut fields: Vec<_> = batch.schema().fields().iter().cloned().collect();
        fields[at] = Arc::new(arrow_schema::Field::new("key_columns", DataType::List(element), false));
        let renamed = RecordBatch::try_new(Arc::new(arrow_schema::Schema::new(fields)), columns).unwrap();
        let out = numbered_trail_batch(&renamed, 7).unwrap();
        assert_eq!(out.schema(), trail_schema());
        let keys = out.column_by_name("key_columns").unwrap();
        let keys = keys.as_any().downcast_ref::<arrow_array::ListArray>().unwrap();
        assert_eq!(keys.value(1).as_any().downcast_ref::<StringArray>().unwrap().value(1), "B");
    }

    #[test]
    fn a_batch_without_a_trail_field_or_of_another_type_is_an_error() {
        let batch = staged(2);
        let without = batch.project(&[1, 2, 3]).unwrap();
        let err = numbered_trail_batch(&without, 0).unwrap_err();
        assert!(err.to_string().contains("no column xid"), "{err}");
        let mut columns = batch.columns().to_vec();
        let fields: Vec<_> = batch.schema().fields().iter().cloned().collect();
        let at = batch.schema().index_of("commit_scn").unwrap();
        columns[at] = Arc::new(Int32Array::from(vec![1, 2]));
        let mut fields = fields;
        fields[at] = Arc::new(arrow_schema::Field::new("commit_scn", DataType::Int32, false));
        let wrong = RecordBatch::try_new(Arc::new(arrow_schema::Schema::new(fields)), columns).unwrap();
        let err = numbered_trail_batch(&wrong, 0).unwrap_err();
        assert!(err.to_string().contains("commit_scn is Int32"), "{err}");
        let mut writer = TrailParquetWriter::try_new(Vec::new(), "t.parquet", 0).unwrap();
        let err = writer.write(&wrong).unwrap_err();
        assert_eq!(err.position().file.as_deref(), Some("t.parquet"));
    }
}
