//! The mirror fold (Python `spark_jobs.mirror`, publish): a batch's row changes, with the rows a
//! mirror table already holds for their keys, folded into one row per touched key: its last image
//! (`U`, `partial` when an update found no full row to merge over) or its deletion (`D`).
//!
//! Input: record batches of the changes sorted by (`source_table`, `group`) as the fold's shuffle
//! sorts them (Spark's `mapInArrow`): `source_table`, `group` (optional: without it the whole input
//! is one group), `key`, `old_key`, `op`, `trail_seq`, `columns`, `before`, `key_columns`, `rowid`,
//! `commit_scn`, `batch_id`. A group may span record batches; its changes are held until the next
//! group starts. Output: record batches of [`fold_schema`].
//!
//! Inside a group: the existing rows (`op` `EXISTING`) first, then commit order (commit SCN across
//! batches, the trail's order inside one); images are ordered maps with Python dict semantics
//! (a column keeps the place it was first given, a later value replaces its value).

use std::collections::HashMap;
use std::sync::Arc;

use arrow_array::builder::{BooleanBuilder, Int64Builder, StringBuilder};
use arrow_array::cast::AsArray;
use arrow_array::types::Int64Type;
use arrow_array::{Array, ArrayRef, RecordBatch};
use arrow_ipc::reader::StreamReader;
use arrow_schema::{DataType, Field, Schema, SchemaRef};
use indexmap::{IndexMap, IndexSet};

use crate::error::{Error, Position, Result};
use crate::trail::schema::{list_of, pair_fields, PairsBuilder};

/// Folded rows per record batch handed back (`FOLD_BATCH_ROWS` of the Python fold before it).
pub const FOLD_BATCH_ROWS: usize = 16_384;

/// The folded rows' schema: one row per touched key (pairs as the trail's: a name is never null).
pub fn fold_schema() -> SchemaRef {
    Arc::new(Schema::new(vec![
        Field::new("source_table", DataType::Utf8, true),
        Field::new("key", DataType::Utf8, true),
        Field::new("op", DataType::Utf8, true),
        Field::new("columns", list_of(pair_fields()), true),
        Field::new("key_values", list_of(pair_fields()), true),
        Field::new("rowid", DataType::Utf8, true),
        Field::new("commit_scn", DataType::Int64, true),
        Field::new("batch_id", DataType::Utf8, true),
        Field::new("partial", DataType::Boolean, true),
    ]))
}

type Image = IndexMap<String, Option<String>>;
type KeyValues = Vec<(String, Option<String>)>;

/// One change (or existing row) of a group, owned: a group outlives the record batch it began in.
#[derive(Clone, Debug)]
struct Change {
    key: Option<String>,
    old_key: Option<String>,
    op: String,
    trail_seq: i64,
    columns: Image,
    before: Image,
    key_columns: Vec<String>,
    rowid: Option<String>,
    commit_scn: Option<i64>,
    batch_id: Option<String>,
}

/// What a key ends as: where and when it last changed (`rowid`, `commit_scn`, `batch_id`).
type Last = (Option<String>, Option<i64>, Option<String>);

/// One group's changes folded (Python `fold_rows`), appended to `out`.
fn fold_group(source_table: Option<&str>, mut changes: Vec<Change>, out: &mut FoldBuilder) -> Result<()> {
    // existing rows first, then commit order: commit SCN across batches (a backfill's changes and
    // the later ones it replays), the trail's own order inside a batch; a stable sort
    changes.sort_by_key(|c| (c.op != "EXISTING", c.commit_scn.unwrap_or(0), c.trail_seq));
    let mut state: HashMap<Option<String>, Option<(Image, bool)>> = HashMap::new();
    let mut keys: HashMap<Option<String>, KeyValues> = HashMap::new();
    let mut last: HashMap<Option<String>, Last> = HashMap::new();
    let mut touched: IndexSet<Option<String>> = IndexSet::new();
    let key_values = |names: &[String], image: &Image| -> KeyValues {
        names.iter().map(|n| (n.clone(), image.get(n).cloned().flatten())).collect()
    };
    for c in changes {
        if c.op == "EXISTING" {
            state.insert(c.key, Some((c.columns, false)));
            continue;
        }
        let when: Last = (c.rowid, c.commit_scn, c.batch_id);
        keys.entry(c.key.clone()).or_insert_with(|| key_values(&c.key_columns, &c.columns));
        match c.op.as_str() {
            "INSERT" => {
                state.insert(c.key.clone(), Some((c.columns, false)));
            }
            "DELETE" => {
                state.insert(c.key.clone(), None);
            }
            op => {
                // UPDATE, PK_UPDATE: merged over the row held under the (old) key
                let pk_update = op == "PK_UPDATE";
                let source = if pk_update { c.old_key.clone() } else { c.key.clone() };
                // taken out, not copied: the entry is written again below (the merged row under
                // `key`, nothing under a PK update's old key)
                let mut held = state.remove(&source).flatten();
                if held.is_none() && pk_update {
                    // replayed over a mirror that holds it already: the row is under its new key
                    held = state.remove(&c.key).flatten();
                }
                if pk_update {
                    keys.entry(source.clone()).or_insert_with(|| key_values(&c.key_columns, &c.before));
                    state.insert(source.clone(), None);
                    touched.insert(source.clone());
                    last.insert(source, when.clone());
                }
                // no row to merge over: the image holds only what the update set
                let (mut image, partial) = held.unwrap_or_else(|| (Image::new(), true));
                image.extend(c.columns);
                state.insert(c.key.clone(), Some((image, partial)));
            }
        }
        touched.insert(c.key.clone());
        last.insert(c.key, when);
    }
    for key in touched {
        let (rowid, commit_scn, batch_id) = last.remove(&key).unwrap_or_default();
        let key_values = keys.remove(&key).unwrap_or_default();
        let held = state.remove(&key).flatten();
        out.append(source_table, key.as_deref(), held.as_ref(), &key_values, rowid, commit_scn, batch_id);
    }
    Ok(())
}

/// Folded rows -> record batches of [`fold_schema`].
#[derive(Default)]
struct FoldBuilder {
    rows: usize,
    source_table: StringBuilder,
    key: StringBuilder,
    op: StringBuilder,
    columns: PairsBuilder,
    key_values: PairsBuilder,
    rowid: StringBuilder,
    commit_scn: Int64Builder,
    batch_id: StringBuilder,
    partial: BooleanBuilder,
}

impl FoldBuilder {
    #[allow(clippy::too_many_arguments)]
    fn append(
        &mut self,
        source_table: Option<&str>,
        key: Option<&str>,
        held: Option<&(Image, bool)>,
        key_values: &KeyValues,
        rowid: Option<String>,
        commit_scn: Option<i64>,
        batch_id: Option<String>,
    ) {
        self.rows += 1;
        self.source_table.append_option(source_table);
        self.key.append_option(key);
        match held {
            None => {
                self.op.append_value("D");
                self.columns.append_iter(std::iter::empty());
                self.partial.append_value(false);
            }
            Some((image, partial)) => {
                self.op.append_value("U");
                self.columns.append_iter(image.iter().map(|(n, v)| (n.as_str(), v.as_deref())));
                self.partial.append_value(*partial);
            }
        }
        self.key_values.append_iter(key_values.iter().map(|(n, v)| (n.as_str(), v.as_deref())));
        self.rowid.append_option(rowid);
        self.commit_scn.append_option(commit_scn);
        self.batch_id.append_option(batch_id);
    }

    fn finish(&mut self) -> Result<RecordBatch> {
        self.rows = 0;
        let columns: Vec<ArrayRef> = vec![
            Arc::new(self.source_table.finish()),
            Arc::new(self.key.finish()),
            Arc::new(self.op.finish()),
            self.columns.finish()?,
            self.key_values.finish()?,
            Arc::new(self.rowid.finish()),
            Arc::new(self.commit_scn.finish()),
            Arc::new(self.batch_id.finish()),
            Arc::new(self.partial.finish()),
        ];
        RecordBatch::try_new(fold_schema(), columns).map_err(arrow_error)
    }
}

fn arrow_error(e: arrow_schema::ArrowError) -> Error {
    Error::format(format!("mirror fold: building its record batch: {e}"), Position::default())
}

fn input_error(message: String) -> Error {
    Error::assembly(format!("mirror fold: {message}"), Position::default())
}

/// A string column of the input, `Utf8` or `LargeUtf8` (Spark's Arrow may give either), or `Null`
/// (pyarrow's type for a column of nulls only, when it infers the types).
enum Strings<'a> {
    Small(&'a arrow_array::StringArray),
    Large(&'a arrow_array::LargeStringArray),
    Null,
}

impl<'a> Strings<'a> {
    fn of(array: &'a dyn Array, what: &str) -> Result<Self> {
        match array.data_type() {
            DataType::Utf8 => Ok(Strings::Small(array.as_string::<i32>())),
            DataType::LargeUtf8 => Ok(Strings::Large(array.as_string::<i64>())),
            DataType::Null => Ok(Strings::Null),
            other => Err(input_error(format!("column {what} is {other}, not a string"))),
        }
    }

    fn get(&self, i: usize) -> Option<&'a str> {
        match self {
            Strings::Small(a) => a.is_valid(i).then(|| a.value(i)),
            Strings::Large(a) => a.is_valid(i).then(|| a.value(i)),
            Strings::Null => None,
        }
    }

    fn owned(&self, i: usize) -> Option<String> {
        self.get(i).map(str::to_owned)
    }
}

/// A list column of the input (`List`, `LargeList` or `Null`): the value range of row `i`, or none
/// (null).
fn list_range(array: &dyn Array, i: usize, what: &str) -> Result<Option<std::ops::Range<usize>>> {
    if array.is_null(i) {
        return Ok(None);
    }
    match array.data_type() {
        DataType::Null => Ok(None),
        DataType::List(_) => {
            let offsets = array.as_list::<i32>().value_offsets();
            Ok(Some(offsets[i] as usize..offsets[i + 1] as usize))
        }
        DataType::LargeList(_) => {
            let offsets = array.as_list::<i64>().value_offsets();
            Ok(Some(offsets[i] as usize..offsets[i + 1] as usize))
        }
        other => Err(input_error(format!("column {what} is {other}, not a list"))),
    }
}

/// A list column's items (none for a `Null` column).
fn list_values<'a>(array: &'a dyn Array, what: &str) -> Result<Option<&'a ArrayRef>> {
    match array.data_type() {
        DataType::Null => Ok(None),
        DataType::List(_) => Ok(Some(array.as_list::<i32>().values())),
        DataType::LargeList(_) => Ok(Some(array.as_list::<i64>().values())),
        other => Err(input_error(format!("column {what} is {other}, not a list"))),
    }
}

/// The input's columns, looked up by name once per record batch.
struct Columns<'a> {
    source_table: Strings<'a>,
    group: Option<Strings<'a>>,
    key: Strings<'a>,
    old_key: Strings<'a>,
    op: Strings<'a>,
    trail_seq: &'a arrow_array::Int64Array,
    columns: Pairs<'a>,
    before: Pairs<'a>,
    key_columns: (&'a dyn Array, Strings<'a>),
    rowid: Strings<'a>,
    commit_scn: Option<&'a arrow_array::Int64Array>,
    batch_id: Strings<'a>,
}

/// A `list<struct<name, value>>` column.
struct Pairs<'a> {
    list: &'a dyn Array,
    /// the items' names and values (none: a `Null` column)
    items: Option<(Strings<'a>, Strings<'a>)>,
    what: &'static str,
}

impl<'a> Pairs<'a> {
    fn of(list: &'a dyn Array, what: &'static str) -> Result<Self> {
        let items = match list_values(list, what)? {
            // a `Null` column, or lists of nothing but empty ones (pyarrow infers `list<null>`)
            None => return Ok(Pairs { list, items: None, what }),
            Some(items) if items.data_type() == &DataType::Null => {
                return Ok(Pairs { list, items: None, what })
            }
            Some(items) => items,
        };
        let structs = items.as_struct_opt().ok_or_else(|| {
            input_error(format!("column {what} holds {}, not name/value pairs", items.data_type()))
        })?;
        let field = |name: &str| {
            structs
                .column_by_name(name)
                .ok_or_else(|| input_error(format!("column {what} has no {name} in its pairs")))
        };
        Ok(Pairs {
            list,
            items: Some((
                Strings::of(field("name")?.as_ref(), what)?,
                Strings::of(field("value")?.as_ref(), what)?,
            )),
            what,
        })
    }

    /// Row `i`'s pairs as an image (a later duplicate name replaces the value, keeps the place).
    fn image(&self, i: usize) -> Result<Image> {
        let mut image = Image::new();
        let Some(range) = list_range(self.list, i, self.what)? else {
            return Ok(image);
        };
        let Some((names, values)) = &self.items else {
            return match range.is_empty() {
                true => Ok(image),
                false => Err(input_error(format!("a null pair in column {}", self.what))),
            };
        };
        image.reserve(range.len());
        for j in range {
            let name = names
                .get(j)
                .ok_or_else(|| input_error(format!("a pair of column {} without its name", self.what)))?;
            image.insert(name.to_owned(), values.owned(j));
        }
        Ok(image)
    }
}

impl<'a> Columns<'a> {
    fn of(batch: &'a RecordBatch) -> Result<Self> {
        let column = |name: &str| -> Result<&'a ArrayRef> {
            batch
                .column_by_name(name)
                .ok_or_else(|| input_error(format!("the changes have no column {name}")))
        };
        let strings =
            |name: &'static str| -> Result<Strings<'a>> { Strings::of(column(name)?.as_ref(), name) };
        let int64 = |name: &'static str| -> Result<&'a arrow_array::Int64Array> {
            column(name)?
                .as_primitive_opt::<Int64Type>()
                .ok_or_else(|| input_error(format!("column {name} is not a 64-bit integer")))
        };
        let key_columns = column("key_columns")?.as_ref();
        let group = match batch.column_by_name("group") {
            Some(array) => Some(Strings::of(array.as_ref(), "group")?),
            None => None,
        };
        Ok(Columns {
            source_table: strings("source_table")?,
            group,
            key: strings("key")?,
            old_key: strings("old_key")?,
            op: strings("op")?,
            trail_seq: int64("trail_seq")?,
            columns: Pairs::of(column("columns")?.as_ref(), "columns")?,
            before: Pairs::of(column("before")?.as_ref(), "before")?,
            key_columns: (
                key_columns,
                match list_values(key_columns, "key_columns")? {
                    Some(items) => Strings::of(items.as_ref(), "key_columns")?,
                    None => Strings::Null,
                },
            ),
            rowid: strings("rowid")?,
            commit_scn: match column("commit_scn")?.data_type() {
                DataType::Null => None, // no change with a commit SCN: existing rows only
                _ => Some(int64("commit_scn")?),
            },
            batch_id: strings("batch_id")?,
        })
    }

    fn change(&self, i: usize) -> Result<Change> {
        let mut key_columns = Vec::new();
        if let Some(range) = list_range(self.key_columns.0, i, "key_columns")? {
            for j in range {
                let name = self
                    .key_columns
                    .1
                    .get(j)
                    .ok_or_else(|| input_error("a null in key_columns".to_owned()))?;
                key_columns.push(name.to_owned());
            }
        }
        if self.trail_seq.is_null(i) {
            return Err(input_error(format!(
                "a change of {} without its trail_seq",
                self.source_table.get(i).unwrap_or("(no table)")
            )));
        }
        Ok(Change {
            key: self.key.owned(i),
            old_key: self.old_key.owned(i),
            op: self.op.get(i).unwrap_or_default().to_owned(),
            trail_seq: self.trail_seq.value(i),
            columns: self.columns.image(i)?,
            before: self.before.image(i)?,
            key_columns,
            rowid: self.rowid.owned(i),
            commit_scn: self.commit_scn.and_then(|scn| scn.is_valid(i).then(|| scn.value(i))),
            batch_id: self.batch_id.owned(i),
        })
    }
}

/// The fold of one Spark partition: [`MirrorFold::feed`] its sorted record batches, then
/// [`MirrorFold::finish`]; each returns the record batches of folded rows completed so far.
#[derive(Default)]
pub struct MirrorFold {
    /// (source_table, group) of the group being gathered, and its changes
    current: Option<(Option<String>, Option<String>)>,
    pending: Vec<Change>,
    out: FoldBuilder,
    /// changes folded and rows written, for the task's log
    pub changes: u64,
    pub rows: u64,
}

impl MirrorFold {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn feed(&mut self, batch: &RecordBatch) -> Result<Vec<RecordBatch>> {
        let columns = Columns::of(batch)?;
        let mut done = Vec::new();
        for i in 0..batch.num_rows() {
            let group = (columns.source_table.owned(i), columns.group.as_ref().and_then(|g| g.owned(i)));
            let same = match (&self.current, &columns.group) {
                (None, _) => false,
                (Some(_), None) => true, // no group column: the whole input is one group
                (Some(current), Some(_)) => *current == group,
            };
            if !same {
                self.fold_pending()?;
                if self.out.rows >= FOLD_BATCH_ROWS {
                    done.push(self.out.finish()?);
                }
                self.current = Some(group);
            }
            self.pending.push(columns.change(i)?);
        }
        Ok(done)
    }

    /// [`MirrorFold::feed`] each record batch of an Arrow IPC stream: how Python hands over the
    /// batches Spark's JVM wrote. Its Arrow writer leaves the offsets buffer of an empty string
    /// array (the child of an all-null `before`) empty, which the IPC format allows and the C Data
    /// Interface does not (it has no buffer sizes: arrow-rs' import would read an offset past
    /// the buffer's end).
    pub fn feed_ipc(&mut self, stream: &[u8]) -> Result<Vec<RecordBatch>> {
        let reader = StreamReader::try_new(std::io::Cursor::new(stream), None)
            .map_err(|e| input_error(format!("reading the changes' Arrow stream: {e}")))?;
        let mut done = Vec::new();
        for batch in reader {
            let batch = batch.map_err(|e| input_error(format!("reading the changes' Arrow stream: {e}")))?;
            done.extend(self.feed(&batch)?);
        }
        Ok(done)
    }

    pub fn finish(&mut self) -> Result<Vec<RecordBatch>> {
        self.fold_pending()?;
        self.current = None;
        Ok(if self.out.rows > 0 { vec![self.out.finish()?] } else { Vec::new() })
    }

    fn fold_pending(&mut self) -> Result<()> {
        if self.pending.is_empty() {
            return Ok(());
        }
        let changes = std::mem::take(&mut self.pending);
        self.changes += changes.len() as u64;
        let before = self.out.rows;
        let source_table = self.current.as_ref().and_then(|(table, _)| table.clone());
        fold_group(source_table.as_deref(), changes, &mut self.out)?;
        self.rows += (self.out.rows - before) as u64;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow_array::builder::{ListBuilder, StructBuilder};
    use arrow_array::{Int64Array, StringArray};

    /// One change: (group, key, old_key, op, trail_seq, columns, commit_scn).
    type Row<'a> =
        (&'a str, &'a str, Option<&'a str>, &'a str, i64, &'a [(&'a str, Option<&'a str>)], Option<i64>);

    fn pairs(rows: &[&[(&str, Option<&str>)]]) -> ArrayRef {
        let mut b = ListBuilder::new(StructBuilder::from_fields(pair_fields(), 0));
        for row in rows {
            for (name, value) in row.iter() {
                let s = b.values();
                s.field_builder::<StringBuilder>(0).unwrap().append_value(name);
                s.field_builder::<StringBuilder>(1).unwrap().append_option(*value);
                s.append(true);
            }
            b.append(true);
        }
        Arc::new(b.finish())
    }

    fn batch(rows: &[Row<'_>]) -> RecordBatch {
        let n = rows.len();
        let strings = |f: &dyn Fn(&Row<'_>) -> Option<String>| -> ArrayRef {
            Arc::new(rows.iter().map(f).collect::<StringArray>())
        };
        let mut keys = ListBuilder::new(StringBuilder::new());
        for _ in rows {
            keys.values().append_value("K");
            keys.append(true);
        }
        let columns: Vec<&[(&str, Option<&str>)]> = rows.iter().map(|r| r.5).collect();
        let none: Vec<&[(&str, Option<&str>)]> = vec![&[]; n];
        RecordBatch::try_from_iter(vec![
            ("source_table", strings(&|_| Some("S.T".into()))),
            ("group", strings(&|r| Some(r.0.into()))),
            ("key", strings(&|r| Some(r.1.into()))),
            ("old_key", strings(&|r| r.2.map(str::to_owned))),
            ("op", strings(&|r| Some(r.3.into()))),
            ("trail_seq", Arc::new(rows.iter().map(|r| Some(r.4)).collect::<Int64Array>()) as ArrayRef),
            ("columns", pairs(&columns)),
            ("before", pairs(&none)),
            ("key_columns", Arc::new(keys.finish()) as ArrayRef),
            ("rowid", strings(&|_| None)),
            ("commit_scn", Arc::new(rows.iter().map(|r| r.6).collect::<Int64Array>()) as ArrayRef),
            ("batch_id", strings(&|_| Some("b".into()))),
        ])
        .unwrap()
    }

    fn folded(batches: &[RecordBatch]) -> Vec<(String, String, String, bool)> {
        let mut fold = MirrorFold::new();
        let mut out = Vec::new();
        for b in batches {
            out.extend(fold.feed(b).unwrap());
        }
        out.extend(fold.finish().unwrap());
        let mut rows = Vec::new();
        for b in &out {
            let keys = b.column(1).as_string::<i32>();
            let ops = b.column(2).as_string::<i32>();
            let partial = b.column(8).as_boolean();
            let columns = b.column(3).as_list::<i32>();
            for i in 0..b.num_rows() {
                let pairs = columns.value(i);
                let pairs = pairs.as_struct();
                let (names, values) =
                    (pairs.column(0).as_string::<i32>(), pairs.column(1).as_string::<i32>());
                let image: Vec<String> =
                    (0..pairs.len()).map(|j| format!("{}={}", names.value(j), values.value(j))).collect();
                rows.push((
                    keys.value(i).to_owned(),
                    ops.value(i).to_owned(),
                    image.join(","),
                    partial.value(i),
                ));
            }
        }
        rows
    }

    #[test]
    fn a_group_spanning_batches_folds_whole_in_commit_order() {
        let first = batch(&[
            ("1", "1", None, "UPDATE", 3, &[("K", Some("1")), ("A", Some("late"))], Some(200)),
            ("1", "1", None, "EXISTING", -1, &[("K", Some("1")), ("A", Some("old")), ("B", Some("b"))], None),
        ]);
        let second = batch(&[
            ("1", "1", None, "UPDATE", 9, &[("K", Some("1")), ("A", Some("early"))], Some(100)),
            ("2", "2", None, "UPDATE", 1, &[("K", Some("2")), ("A", Some("x"))], Some(100)),
        ]);
        assert_eq!(
            folded(&[first, second]),
            vec![
                ("1".into(), "U".into(), "K=1,A=late,B=b".into(), false),
                ("2".into(), "U".into(), "K=2,A=x".into(), true), // nothing to merge over: partial
            ]
        );
    }

    #[test]
    fn a_primary_key_update_moves_the_row_and_deletes_the_old_key() {
        let rows = batch(&[
            ("*", "1", None, "INSERT", 0, &[("K", Some("1")), ("A", Some("a"))], Some(100)),
            ("*", "2", Some("1"), "PK_UPDATE", 1, &[("K", Some("2"))], Some(100)),
        ]);
        assert_eq!(
            folded(&[rows]),
            vec![
                ("1".into(), "D".into(), "".into(), false),
                ("2".into(), "U".into(), "K=2,A=a".into(), false)
            ]
        );
    }

    #[test]
    fn input_without_a_column_or_of_another_type_is_an_error_not_a_panic() {
        let good = batch(&[("1", "1", None, "INSERT", 0, &[("K", Some("1"))], Some(1))]);
        let without = good.project(&[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10]).unwrap(); // no batch_id
        let err = MirrorFold::new().feed(&without).unwrap_err();
        assert!(err.to_string().contains("no column batch_id"), "{err}");
        let mut columns = good.columns().to_vec();
        columns[6] = Arc::new(StringArray::from(vec!["not pairs"])); // `columns` as text
        let mut fields: Vec<Field> = good.schema().fields().iter().map(|f| f.as_ref().clone()).collect();
        fields[6] = Field::new("columns", DataType::Utf8, true);
        let wrong = RecordBatch::try_new(Arc::new(Schema::new(fields)), columns).unwrap();
        let err = MirrorFold::new().feed(&wrong).unwrap_err();
        assert!(err.to_string().contains("column columns is Utf8, not a list"), "{err}");
    }
}
