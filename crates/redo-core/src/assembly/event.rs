//! Change events as the transaction table holds them: owned copies of the rows of an events record
//! batch (`arrow::events_schema()`), read column by column ([`EventColumns`]) and turned back into
//! record batches with `arrow::EventBuilder` ([`ChangeEvent::append_to`]).
//!
//! An event owns one byte buffer holding all its column values and LOB bytes; its images name
//! spans of it. The fields and their meaning are those of Python `assembly.events.ChangeEvent`,
//! with `time` in microseconds since 1970-01-01 (UTC wall clock) as in the events schema.

use arrow_array::cast::AsArray;
use arrow_array::types::{Int32Type, Int64Type};
use arrow_array::{Array, BinaryArray, Int32Array, Int64Array, ListArray, RecordBatch, StringArray};

use crate::arrow::EventBuilder;
use crate::error::{Error, Result};
use crate::events::{kind, row_change_count_of};
use crate::model::Column;
use crate::trail::lobs::names_lob_pages;

/// `[start, end)` of a value in [`ChangeEvent`]'s byte buffer.
pub type Span = (usize, usize);
/// An image as held: (column index, value span or `None` for SQL NULL).
pub type HeldImage = Vec<(i32, Option<Span>)>;

/// One change event, owned (Python `ChangeEvent`; fields in `events_schema()` order). Two events
/// are equal when their values are, wherever in `data` the bytes sit.
#[derive(Clone, Debug, Default)]
pub struct ChangeEvent {
    pub kind: i64,
    pub usn: i64,
    pub slot: i64,
    pub sqn: i64,
    pub thread: i64,
    pub seq: i64,
    pub block: i64,
    pub offset: i64,
    pub scn: i64,
    pub subscn: i64,
    pub time: i64,
    pub vector: i64,
    pub obj: i64,
    pub dataobj: i64,
    pub undo_op: i64,
    pub redo_op: i64,
    pub bdba: i64,
    pub row_slot: i64,
    pub fb: i64,
    pub undo_fb: i64,
    pub supp_fb: Option<i64>,
    pub supp_op: i64,
    pub supp_bdba: i64,
    pub supp_slot: i64,
    pub before: HeldImage,
    pub after: HeldImage,
    pub supp_columns: HeldImage,
    pub rows: Vec<(i32, Vec<Option<Span>>)>,
    pub ddl_text: String,
    pub ddl_schema: String,
    pub lob_id: Span,
    pub lob_page: i64,
    pub lob_data: Span,
    /// every value's bytes, back to back
    pub data: Vec<u8>,
}

impl PartialEq for ChangeEvent {
    fn eq(&self, other: &Self) -> bool {
        self.ints() == other.ints()
            && self.supp_fb == other.supp_fb
            && self.image(&self.before).eq(other.image(&other.before))
            && self.image(&self.after).eq(other.image(&other.after))
            && self.image(&self.supp_columns).eq(other.image(&other.supp_columns))
            && self.rows.len() == other.rows.len()
            && self.rows.iter().zip(&other.rows).all(|((a, av), (b, bv))| {
                a == b
                    && av.len() == bv.len()
                    && av.iter().zip(bv).all(|(x, y)| x.map(|s| self.bytes(s)) == y.map(|s| other.bytes(s)))
            })
            && self.ddl_text == other.ddl_text
            && self.ddl_schema == other.ddl_schema
            && self.bytes(self.lob_id) == other.bytes(other.lob_id)
            && self.lob_page == other.lob_page
            && self.bytes(self.lob_data) == other.bytes(other.lob_data)
    }
}

impl Eq for ChangeEvent {}

/// Redo order: (SCN, sub-SCN, thread, seq, block, offset * 256 + vector), Python `sort_key`.
pub type SortKey = (i64, i64, i64, i64, i64, i128);

impl ChangeEvent {
    /// Python `sort_key` (the last part is widened so no offset overflows it).
    pub fn sort_key(&self) -> SortKey {
        (
            self.scn,
            self.subscn,
            self.thread,
            self.seq,
            self.block,
            i128::from(self.offset) * 256 + i128::from(self.vector),
        )
    }

    /// The bytes of a span (empty if the span is not inside the buffer, which cannot happen for
    /// spans this type made).
    pub fn bytes(&self, span: Span) -> &[u8] {
        self.data.get(span.0..span.1).unwrap_or_default()
    }

    /// Append bytes to the buffer; their span.
    pub fn push_bytes(&mut self, bytes: &[u8]) -> Span {
        let start = self.data.len();
        self.data.extend_from_slice(bytes);
        (start, self.data.len())
    }

    /// `usn.slot.sqn` (the trail's xid token), or `usn.slot.?` for events without a sqn (partial
    /// rollbacks): the xid text of the table's issues.
    pub fn xid_text(&self) -> String {
        if self.sqn >= 0 {
            format!("{}.{}.{}", self.usn, self.slot, self.sqn)
        } else {
            format!("{}.{}.?", self.usn, self.slot)
        }
    }

    /// Python `assembly.rows.row_change_count`: (operation, row changes) or `None`.
    pub fn row_change_count(&self) -> Option<(&'static str, u64)> {
        row_change_count_of(self.kind, self.redo_op, self.rows.len(), self.fb | self.undo_fb, self.supp_fb)
    }

    /// About how many bytes of memory the event holds (for the change buffer's byte limit).
    pub fn held_bytes(&self) -> usize {
        let entries = self.before.len()
            + self.after.len()
            + self.supp_columns.len()
            + self.rows.iter().map(|(_, v)| v.len() + 1).sum::<usize>();
        std::mem::size_of::<Self>()
            + self.data.len()
            + entries * 24
            + self.ddl_text.len()
            + self.ddl_schema.len()
    }

    fn ints(&self) -> [i64; 23] {
        [
            self.kind,
            self.usn,
            self.slot,
            self.sqn,
            self.thread,
            self.seq,
            self.block,
            self.offset,
            self.scn,
            self.subscn,
            self.time,
            self.vector,
            self.obj,
            self.dataobj,
            self.undo_op,
            self.redo_op,
            self.bdba,
            self.row_slot,
            self.fb,
            self.undo_fb,
            self.supp_op,
            self.supp_bdba,
            self.supp_slot,
        ]
    }

    pub fn is_lob(&self) -> bool {
        self.kind == kind::LOB
    }

    fn image<'a>(&'a self, image: &'a HeldImage) -> impl Iterator<Item = (i32, Column<'a>)> + 'a {
        image.iter().map(move |&(col, value)| (col, value.map(|s| self.bytes(s))))
    }

    /// Append the event to a builder of `events_schema()` record batches.
    pub fn append_to(&self, builder: &mut EventBuilder) {
        let rows =
            self.rows.iter().map(|(slot, values)| (*slot, values.iter().map(|v| v.map(|s| self.bytes(s)))));
        builder.append_parts(
            &self.ints(),
            self.supp_fb,
            [self.image(&self.before), self.image(&self.after), self.image(&self.supp_columns)],
            rows,
            [&self.ddl_text, &self.ddl_schema],
            self.bytes(self.lob_id),
            self.lob_page,
            self.bytes(self.lob_data),
        );
    }
}

/// Events as one record batch of `events_schema()`.
pub fn events_batch<'a>(events: impl IntoIterator<Item = &'a ChangeEvent>) -> Result<RecordBatch> {
    let mut builder = EventBuilder::new();
    for event in events {
        event.append_to(&mut builder);
    }
    builder
        .finish()
        .map_err(|e| Error::assembly(format!("building an events batch: {e}"), Default::default()))
}

fn shape(message: String) -> Error {
    Error::assembly(format!("events batch: {message}"), Default::default())
}

fn int64<'a>(batch: &'a RecordBatch, name: &str) -> Result<&'a Int64Array> {
    batch
        .column_by_name(name)
        .ok_or_else(|| shape(format!("no column {name:?}")))?
        .as_primitive_opt::<Int64Type>()
        .ok_or_else(|| shape(format!("column {name:?} is not int64")))
}

/// An int64 value; `None` for NULL (or a row outside the array).
fn int_at(array: &Int64Array, i: usize) -> Option<i64> {
    if i >= array.len() || array.is_null(i) {
        return None;
    }
    array.values().get(i).copied()
}

fn int32_at(array: &Int32Array, i: usize) -> Option<i32> {
    if i >= array.len() || array.is_null(i) {
        return None;
    }
    array.values().get(i).copied()
}

fn binary_at(array: &BinaryArray, i: usize) -> Option<&[u8]> {
    (i < array.len() && array.is_valid(i)).then(|| array.value(i))
}

/// Bytes of the values `range` of a binary array (for reserving them at once).
fn binary_bytes(array: &BinaryArray, range: std::ops::Range<usize>) -> usize {
    let offsets = array.value_offsets();
    match (offsets.get(range.start), offsets.get(range.end)) {
        (Some(&a), Some(&b)) => usize::try_from(i64::from(b) - i64::from(a)).unwrap_or(0),
        _ => 0,
    }
}

/// The `[start, end)` item range of list entry `i` (empty for NULL or a row outside the list).
fn list_range(list: &ListArray, i: usize) -> std::ops::Range<usize> {
    if i >= list.len() || list.is_null(i) {
        return 0..0;
    }
    let offsets = list.value_offsets();
    match (offsets.get(i), offsets.get(i + 1)) {
        (Some(&a), Some(&b)) if a >= 0 && b >= a => a as usize..b as usize,
        _ => 0..0,
    }
}

struct ImageColumn<'a> {
    list: &'a ListArray,
    cols: &'a Int32Array,
    values: &'a BinaryArray,
}

impl<'a> ImageColumn<'a> {
    fn new(batch: &'a RecordBatch, name: &str) -> Result<Self> {
        let wrong = || shape(format!("column {name:?} is not list<struct<col: int32, value: binary>>"));
        let list = batch.column_by_name(name).ok_or_else(|| shape(format!("no column {name:?}")))?;
        let list = list.as_list_opt::<i32>().ok_or_else(wrong)?;
        let items = list.values().as_struct_opt().ok_or_else(wrong)?;
        let cols =
            items.column_by_name("col").and_then(|c| c.as_primitive_opt::<Int32Type>()).ok_or_else(wrong)?;
        let values =
            items.column_by_name("value").and_then(|c| c.as_binary_opt::<i32>()).ok_or_else(wrong)?;
        Ok(ImageColumn { list, cols, values })
    }

    fn bytes(&self, i: usize) -> usize {
        binary_bytes(self.values, list_range(self.list, i))
    }

    fn read(&self, i: usize, event: &mut ChangeEvent) -> HeldImage {
        list_range(self.list, i)
            .map(|j| {
                let col = int32_at(self.cols, j).unwrap_or(0);
                (col, binary_at(self.values, j).map(|v| event.push_bytes(v)))
            })
            .collect()
    }
}

struct RowsColumn<'a> {
    list: &'a ListArray,
    slots: &'a Int32Array,
    values: &'a ListArray,
    items: &'a BinaryArray,
}

impl<'a> RowsColumn<'a> {
    fn new(batch: &'a RecordBatch) -> Result<Self> {
        let wrong = || shape("column \"rows\" is not list<struct<slot: int32, values: list<binary>>>".into());
        let list = batch.column_by_name("rows").ok_or_else(|| shape("no column \"rows\"".into()))?;
        let list = list.as_list_opt::<i32>().ok_or_else(wrong)?;
        let rows = list.values().as_struct_opt().ok_or_else(wrong)?;
        let slots =
            rows.column_by_name("slot").and_then(|c| c.as_primitive_opt::<Int32Type>()).ok_or_else(wrong)?;
        let values = rows.column_by_name("values").and_then(|c| c.as_list_opt::<i32>()).ok_or_else(wrong)?;
        let items = values.values().as_binary_opt::<i32>().ok_or_else(wrong)?;
        Ok(RowsColumn { list, slots, values, items })
    }

    fn bytes(&self, i: usize) -> usize {
        let rows = list_range(self.list, i);
        if rows.is_empty() {
            return 0;
        }
        let first = list_range(self.values, rows.start).start;
        let last = list_range(self.values, rows.end - 1).end;
        binary_bytes(self.items, first..last.max(first))
    }

    fn read(&self, i: usize, event: &mut ChangeEvent) -> Vec<(i32, Vec<Option<Span>>)> {
        list_range(self.list, i)
            .map(|j| {
                let slot = int32_at(self.slots, j).unwrap_or(0);
                let values =
                    list_range(self.values, j).map(|k| binary_at(self.items, k).map(|v| event.push_bytes(v)));
                (slot, values.collect())
            })
            .collect()
    }
}

/// The columns of an events record batch, found by name once per batch (other columns, such as
/// the assemble stage's `carried` flag, are ignored).
pub struct EventColumns<'a> {
    ints: Vec<&'a Int64Array>,
    before: ImageColumn<'a>,
    after: ImageColumn<'a>,
    supp_columns: ImageColumn<'a>,
    rows: RowsColumn<'a>,
    ddl_text: &'a StringArray,
    ddl_schema: &'a StringArray,
    lob_id: &'a BinaryArray,
    lob_page: &'a Int64Array,
    lob_data: &'a BinaryArray,
    len: usize,
}

impl<'a> EventColumns<'a> {
    pub fn new(batch: &'a RecordBatch) -> Result<Self> {
        let ints =
            crate::arrow::INT_FIELDS.iter().map(|name| int64(batch, name)).collect::<Result<Vec<_>>>()?;
        let string = |name: &str| -> Result<&'a StringArray> {
            batch
                .column_by_name(name)
                .ok_or_else(|| shape(format!("no column {name:?}")))?
                .as_string_opt::<i32>()
                .ok_or_else(|| shape(format!("column {name:?} is not utf8")))
        };
        let binary = |name: &str| -> Result<&'a BinaryArray> {
            batch
                .column_by_name(name)
                .ok_or_else(|| shape(format!("no column {name:?}")))?
                .as_binary_opt::<i32>()
                .ok_or_else(|| shape(format!("column {name:?} is not binary")))
        };
        Ok(EventColumns {
            ints,
            before: ImageColumn::new(batch, "before")?,
            after: ImageColumn::new(batch, "after")?,
            supp_columns: ImageColumn::new(batch, "supp_columns")?,
            rows: RowsColumn::new(batch)?,
            ddl_text: string("ddl_text")?,
            ddl_schema: string("ddl_schema")?,
            lob_id: binary("lob_id")?,
            lob_page: int64(batch, "lob_page")?,
            lob_data: binary("lob_data")?,
            len: batch.num_rows(),
        })
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Row `i` as an owned event. NULL in a column the schema declares not null reads as 0 (as
    /// `undo_fb`, `lob_page` and the texts do in Python's `from_row`); `supp_fb` keeps its NULL.
    pub fn event(&self, i: usize) -> ChangeEvent {
        let mut v = [0i64; 24];
        let mut supp_fb = None;
        for (slot, (column, name)) in v.iter_mut().zip(self.ints.iter().zip(crate::arrow::INT_FIELDS)) {
            let value = int_at(column, i);
            if name == "supp_fb" {
                supp_fb = value;
            }
            *slot = value.unwrap_or(0);
        }
        let [kind, usn, slot, sqn, thread, seq, block, offset, scn, subscn, time, vector, obj, dataobj, undo_op, redo_op, bdba, row_slot, fb, undo_fb, _, supp_op, supp_bdba, supp_slot] =
            v;
        let mut e = ChangeEvent {
            kind,
            usn,
            slot,
            sqn,
            thread,
            seq,
            block,
            offset,
            scn,
            subscn,
            time,
            vector,
            obj,
            dataobj,
            undo_op,
            redo_op,
            bdba,
            row_slot,
            fb,
            undo_fb,
            supp_fb,
            supp_op,
            supp_bdba,
            supp_slot,
            lob_page: int_at(self.lob_page, i).unwrap_or(0),
            ..Default::default()
        };
        let lob_id = binary_at(self.lob_id, i).unwrap_or_default();
        let lob_data = binary_at(self.lob_data, i).unwrap_or_default();
        e.data.reserve_exact(
            self.before.bytes(i)
                + self.after.bytes(i)
                + self.supp_columns.bytes(i)
                + self.rows.bytes(i)
                + lob_id.len()
                + lob_data.len(),
        );
        e.before = self.before.read(i, &mut e);
        e.after = self.after.read(i, &mut e);
        e.supp_columns = self.supp_columns.read(i, &mut e);
        e.rows = self.rows.read(i, &mut e);
        let text = |array: &StringArray| -> String {
            if i < array.len() && array.is_valid(i) {
                array.value(i).to_owned()
            } else {
                String::new()
            }
        };
        e.ddl_text = text(self.ddl_text);
        e.ddl_schema = text(self.ddl_schema);
        e.lob_id = e.push_bytes(lob_id);
        e.lob_data = e.push_bytes(lob_data);
        e
    }
}

/// Every row of an events record batch as owned events.
pub fn events_of(batch: &RecordBatch) -> Result<Vec<ChangeEvent>> {
    let columns = EventColumns::new(batch)?;
    Ok((0..columns.len()).map(|i| columns.event(i)).collect())
}

/// Whether any value of row `i` of an image column is an out-of-row LOB locator.
fn image_names_lob_pages(image: &ImageColumn<'_>, i: usize) -> bool {
    list_range(image.list, i).any(|j| binary_at(image.values, j).is_some_and(names_lob_pages))
}

/// Whether any value of any row of a multi-row operation `i` is an out-of-row LOB locator.
fn rows_name_lob_pages(rows: &RowsColumn<'_>, i: usize) -> bool {
    list_range(rows.list, i)
        .any(|j| list_range(rows.values, j).any(|k| binary_at(rows.items, k).is_some_and(names_lob_pages)))
}

/// The (obj, usn, slot) of the row changes of an events record batch whose after image,
/// supplemental columns or rows hold an out-of-row LOB locator (`trail::lobs::names_lob_pages`),
/// sorted, each once (the Spark stages key a slot with Python's `exchange.slot_keys`). Such a transaction needs the batch's LOB pages even when it writes none (a
/// `DBMS_LOB.TRIM` at a page boundary rewrites the row's locator to name pages an earlier
/// transaction wrote): the Spark decode reports these slots and assemble gives the ones of tables
/// with a LOB column to its LOB task. Reads the values in place; a batch of another shape is
/// `Error::Assembly`, malformed values are simply not locators.
pub fn locator_slots(batch: &RecordBatch) -> Result<Vec<(i64, i64, i64)>> {
    let [kinds, usns, slots, objs] = ["kind", "usn", "slot", "obj"].map(|name| int64(batch, name));
    let (kinds, usns, slots, objs) = (kinds?, usns?, slots?, objs?);
    let after = ImageColumn::new(batch, "after")?;
    let supp = ImageColumn::new(batch, "supp_columns")?;
    let rows = RowsColumn::new(batch)?;
    let mut found = std::collections::BTreeSet::new();
    for i in 0..batch.num_rows() {
        if int_at(kinds, i) != Some(kind::CHANGE) {
            continue;
        }
        if image_names_lob_pages(&after, i)
            || image_names_lob_pages(&supp, i)
            || rows_name_lob_pages(&rows, i)
        {
            found.insert((
                int_at(objs, i).unwrap_or(0),
                int_at(usns, i).unwrap_or(0),
                int_at(slots, i).unwrap_or(0),
            ));
        }
    }
    Ok(found.into_iter().collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trail::lobs::tests::page_list;

    fn change(usn: i64, slot: i64, obj: i64, after: &[&[u8]], rows: &[&[u8]]) -> ChangeEvent {
        let mut e = ChangeEvent { kind: kind::CHANGE, usn, slot, obj, ..Default::default() };
        e.after = after.iter().enumerate().map(|(c, v)| (c as i32, Some(e.push_bytes(v)))).collect();
        let values = rows.iter().map(|v| Some(e.push_bytes(v))).collect();
        e.rows = if rows.is_empty() { Vec::new() } else { vec![(0, values)] };
        e
    }

    #[test]
    fn locator_slots_are_the_row_changes_holding_out_of_row_locators() {
        let locator = page_list(b"\0\0\0\x01ABCDEF", &[7, 9], 5);
        let mut lob_piece = change(3, 4, 90, &[&locator], &[]);
        lob_piece.kind = kind::LOB; // only row changes count
        let events = [
            change(1, 2, 70, &[b"text", &locator], &[]),
            change(1, 2, 70, &[&locator], &[]), // the same slot and table: once
            change(5, 6, 80, &[], &[b"x", &locator]),
            change(7, 8, 70, &[b"\xc1\x02", b"an ordinary value of more than twenty bytes"], &[]),
            lob_piece,
        ];
        let batch = events_batch(&events).unwrap();
        assert_eq!(locator_slots(&batch).unwrap(), vec![(70, 1, 2), (80, 5, 6)]);
    }
}
