//! The trail as JSON lines, straight from record batches of the trail schema (`trail_schema()`, or
//! the assemble stage's `staged_trail_schema()`: its staging-only columns `batch_id`, `trail_seq`,
//! `commit_log` and `order_*` are ignored): for each row, exactly the bytes Python's
//! `json.dumps(from_row(row).to_dict()) + "\n"` gives (`redo_lib/trail/schema.py` `from_row`,
//! `redo_lib/trail/model.py` `TrailRecord.to_dict`, `json.dumps` with its defaults), so that the
//! decode command writes no trail row as a Python object (issue 31).
//!
//! The rules, each Python's:
//!
//! * fields in the order of `TRAIL_FIELDS`, separators `", "` and `": "`; `lob_columns` only when the
//!   row has at least one (`to_dict`);
//! * strings with `ensure_ascii`: `\"`, `\\`, `\n`, `\r`, `\t`, `\b`, `\f`, `\u00XX` for the other
//!   control characters and DEL, `\uXXXX` (lower-case hex) for every non-ASCII character, a
//!   surrogate pair above U+FFFF; SQL NULL (a null string) is `null`;
//! * `columns`, `before`, `tokens`: objects in the pairs' order, a repeated name keeps its first
//!   place and takes the later value (a `dict`); a null name is the key `"null"` (`json.dumps`
//!   writes a `None` key so), and stays apart from a name `"null"`; a null list is `{}`;
//! * `commit_time`, `op_time`: the instant in UTC as `strftime("%Y-%m-%dT%H:%M:%S")` (sub-seconds
//!   dropped, the year not padded, as glibc's `%Y` and CPython 3.11 do), `"None"` for a null (`str`
//!   of it); only instants of Python's `datetime` range (years 1-9999);
//! * integers as integers; `trans_ind` must be a `TransInd` (0-3), `io_type` an `IoType`.
//!
//! What Python refuses (a null integer, a null list of names, a null pair or LOB descriptor, a time
//! outside `datetime`, an unknown `trans_ind` or `io_type`, a missing column) is an `AssemblyError`
//! naming the column and the row, as is a column of a type the trail schema does not give it
//! (strings may be `Utf8`, `LargeUtf8`, `Utf8View` or `Null`; lists `List`, `LargeList` or `Null`;
//! integers any integer type; times `Timestamp` in s, ms or us with a UTC zone). No panic.
//!
//! The column access (`Columns`, with its type checks), the row checks and an image's entries are
//! shared with the table for people (`table.rs`).

use std::collections::HashMap;
use std::ops::Range;

use arrow_array::cast::AsArray;
use arrow_array::types::{
    Int16Type, Int32Type, Int64Type, Int8Type, TimestampMicrosecondType, TimestampMillisecondType,
    TimestampSecondType, UInt16Type, UInt32Type, UInt64Type, UInt8Type,
};
use arrow_array::{
    Array, ArrayRef, LargeStringArray, PrimitiveArray, RecordBatch, StringArray, StringViewArray, StructArray,
};
use arrow_schema::{DataType, TimeUnit};

use crate::error::{Detail, Error, Position, Result};

/// `IoType`'s values (`trail/model.py`).
const IO_TYPES: [i128; 7] = [3, 5, 10, 15, 115, 116, 160];
/// `datetime.min` and `datetime.max` (to the second) as seconds since 1970-01-01 UTC.
const FIRST_SECOND: i64 = -62_135_596_800;
const LAST_SECOND: i64 = 253_402_300_799;
/// Above this many pairs an image's repeated names are found through a hash map, not by scanning.
const SCAN_PAIRS: usize = 16;

fn input_error(message: String) -> Error {
    Error::assembly(format!("trail rows: {message}"), Position::default())
}

pub(super) fn row_error(column: &str, row: usize, what: &str) -> Error {
    input_error(format!("row {row}: {column} {what}"))
        .with_detail("column", column)
        .with_detail("row", Detail::Int(row as i64))
}

/// A string column: `Utf8`, `LargeUtf8`, `Utf8View`, or `Null` (every value null).
#[derive(Clone, Copy)]
pub(super) enum Strings<'a> {
    Small(&'a StringArray),
    Large(&'a LargeStringArray),
    View(&'a StringViewArray),
    Null,
}

impl<'a> Strings<'a> {
    fn of(array: &'a dyn Array, what: &str) -> Result<Self> {
        match array.data_type() {
            DataType::Utf8 => Ok(Strings::Small(array.as_string::<i32>())),
            DataType::LargeUtf8 => Ok(Strings::Large(array.as_string::<i64>())),
            DataType::Utf8View => Ok(Strings::View(array.as_string_view())),
            DataType::Null => Ok(Strings::Null),
            other => Err(input_error(format!("column {what} is {other}, not a string"))),
        }
    }

    pub(super) fn get(&self, i: usize) -> Option<&'a str> {
        match self {
            Strings::Small(a) => a.is_valid(i).then(|| a.value(i)),
            Strings::Large(a) => a.is_valid(i).then(|| a.value(i)),
            Strings::View(a) => a.is_valid(i).then(|| a.value(i)),
            Strings::Null => None,
        }
    }
}

/// An integer column of any integer type, or `Null`.
pub(super) enum Ints<'a> {
    I8(&'a PrimitiveArray<Int8Type>),
    I16(&'a PrimitiveArray<Int16Type>),
    I32(&'a PrimitiveArray<Int32Type>),
    I64(&'a PrimitiveArray<Int64Type>),
    U8(&'a PrimitiveArray<UInt8Type>),
    U16(&'a PrimitiveArray<UInt16Type>),
    U32(&'a PrimitiveArray<UInt32Type>),
    U64(&'a PrimitiveArray<UInt64Type>),
    Null,
}

impl<'a> Ints<'a> {
    fn of(array: &'a dyn Array, what: &str) -> Result<Self> {
        Ok(match array.data_type() {
            DataType::Int8 => Ints::I8(array.as_primitive()),
            DataType::Int16 => Ints::I16(array.as_primitive()),
            DataType::Int32 => Ints::I32(array.as_primitive()),
            DataType::Int64 => Ints::I64(array.as_primitive()),
            DataType::UInt8 => Ints::U8(array.as_primitive()),
            DataType::UInt16 => Ints::U16(array.as_primitive()),
            DataType::UInt32 => Ints::U32(array.as_primitive()),
            DataType::UInt64 => Ints::U64(array.as_primitive()),
            DataType::Null => Ints::Null,
            other => return Err(input_error(format!("column {what} is {other}, not an integer"))),
        })
    }

    pub(super) fn get(&self, i: usize) -> Option<i128> {
        match self {
            Ints::I8(a) => a.is_valid(i).then(|| a.value(i).into()),
            Ints::I16(a) => a.is_valid(i).then(|| a.value(i).into()),
            Ints::I32(a) => a.is_valid(i).then(|| a.value(i).into()),
            Ints::I64(a) => a.is_valid(i).then(|| a.value(i).into()),
            Ints::U8(a) => a.is_valid(i).then(|| a.value(i).into()),
            Ints::U16(a) => a.is_valid(i).then(|| a.value(i).into()),
            Ints::U32(a) => a.is_valid(i).then(|| a.value(i).into()),
            Ints::U64(a) => a.is_valid(i).then(|| a.value(i).into()),
            Ints::Null => None,
        }
    }
}

/// A time column: `Timestamp` in seconds, milliseconds or microseconds with a UTC zone (pyarrow
/// gives an aware `datetime`; without a zone it would be a naive one, which `astimezone` reads as
/// local time), or `Null`.
struct Times<'a> {
    /// the values and the array's validity, none for a `Null` column
    values: Option<(&'a dyn Array, &'a [i64])>,
    per_second: i64,
}

impl<'a> Times<'a> {
    fn of(array: &'a dyn Array, what: &str) -> Result<Self> {
        let (unit, zone) = match array.data_type() {
            DataType::Null => return Ok(Times { values: None, per_second: 1 }),
            DataType::Timestamp(unit, zone) => (unit, zone),
            other => return Err(input_error(format!("column {what} is {other}, not a timestamp"))),
        };
        if !matches!(zone.as_deref(), Some("UTC" | "+00:00" | "Etc/UTC")) {
            return Err(input_error(format!("column {what} is {}, not in UTC", array.data_type())));
        }
        let (values, per_second): (&[i64], i64) = match unit {
            TimeUnit::Second => (array.as_primitive::<TimestampSecondType>().values(), 1),
            TimeUnit::Millisecond => (array.as_primitive::<TimestampMillisecondType>().values(), 1_000),
            TimeUnit::Microsecond => (array.as_primitive::<TimestampMicrosecondType>().values(), 1_000_000),
            TimeUnit::Nanosecond => {
                return Err(input_error(format!(
                    "column {what} is {}, not in s, ms or us",
                    array.data_type()
                )))
            }
        };
        Ok(Times { values: Some((array, values)), per_second })
    }

    /// Row `i` in whole seconds since 1970-01-01 UTC (none: null).
    fn get(&self, i: usize) -> Option<i64> {
        let (array, values) = self.values?;
        if array.is_null(i) {
            return None;
        }
        values.get(i).map(|v| v.div_euclid(self.per_second))
    }
}

/// The offsets of a list column (`List`, `LargeList`), `Null` (every row null) or missing (every row
/// empty: `d.get(name, ())` in Python).
enum Offsets<'a> {
    Small(&'a [i32]),
    Large(&'a [i64]),
    Null,
    Missing,
}

struct List<'a> {
    array: Option<&'a dyn Array>,
    offsets: Offsets<'a>,
    /// the items (none for a `Null` or missing column)
    items: Option<&'a ArrayRef>,
}

impl<'a> List<'a> {
    fn of(array: Option<&'a ArrayRef>, what: &str) -> Result<Self> {
        let Some(array) = array else {
            return Ok(List { array: None, offsets: Offsets::Missing, items: None });
        };
        let (offsets, items) = match array.data_type() {
            DataType::List(_) => {
                let list = array.as_list::<i32>();
                (Offsets::Small(list.value_offsets()), Some(list.values()))
            }
            DataType::LargeList(_) => {
                let list = array.as_list::<i64>();
                (Offsets::Large(list.value_offsets()), Some(list.values()))
            }
            DataType::Null => (Offsets::Null, None),
            other => return Err(input_error(format!("column {what} is {other}, not a list"))),
        };
        Ok(List { array: Some(array.as_ref()), offsets, items })
    }

    /// Row `i`'s item range (none: null).
    fn range(&self, i: usize) -> Option<Range<usize>> {
        if self.array.is_some_and(|a| a.is_null(i)) {
            return None;
        }
        let pair = |a: Option<usize>, b: Option<usize>| Some(a?..b?);
        match self.offsets {
            Offsets::Small(o) => pair(
                o.get(i).and_then(|v| usize::try_from(*v).ok()),
                o.get(i + 1).and_then(|v| usize::try_from(*v).ok()),
            ),
            Offsets::Large(o) => pair(
                o.get(i).and_then(|v| usize::try_from(*v).ok()),
                o.get(i + 1).and_then(|v| usize::try_from(*v).ok()),
            ),
            Offsets::Null => None,
            Offsets::Missing => Some(0..0),
        }
    }

    /// The items as structs with the fields `names` (none: items of type `Null`, every one null).
    fn structs(&self, what: &str, names: &[&str]) -> Result<Option<(&'a StructArray, Vec<&'a ArrayRef>)>> {
        let Some(items) = self.items else { return Ok(None) };
        if items.data_type() == &DataType::Null {
            return Ok(None);
        }
        let structs = items
            .as_struct_opt()
            .ok_or_else(|| input_error(format!("column {what} holds {}, not structs", items.data_type())))?;
        let fields = names
            .iter()
            .map(|name| {
                structs
                    .column_by_name(name)
                    .ok_or_else(|| input_error(format!("column {what} has no {name} in its structs")))
            })
            .collect::<Result<Vec<_>>>()?;
        Ok(Some((structs, fields)))
    }
}

/// `columns`, `before`, `tokens`: lists of `{name, value}`.
pub(super) struct Pairs<'a> {
    what: &'static str,
    list: List<'a>,
    /// the items' validity, names and values (none: items of type `Null`)
    items: Option<(&'a StructArray, Strings<'a>, Strings<'a>)>,
}

impl<'a> Pairs<'a> {
    fn of(array: &'a ArrayRef, what: &'static str) -> Result<Self> {
        let list = List::of(Some(array), what)?;
        let items = match list.structs(what, &["name", "value"])? {
            Some((structs, f)) => {
                Some((structs, Strings::of(f[0].as_ref(), what)?, Strings::of(f[1].as_ref(), what)?))
            }
            None => None,
        };
        Ok(Pairs { what, list, items })
    }
}

/// `key_columns`, `changed_columns`: lists of strings, possibly missing.
struct Names<'a> {
    what: &'static str,
    list: List<'a>,
    items: Strings<'a>,
}

impl<'a> Names<'a> {
    fn of(array: Option<&'a ArrayRef>, what: &'static str) -> Result<Self> {
        let list = List::of(array, what)?;
        let items = match list.items {
            Some(items) => Strings::of(items.as_ref(), what)?,
            None => Strings::Null,
        };
        Ok(Names { what, list, items })
    }
}

/// `lob_columns`: lists of `{column, bytes, pieces}`, possibly missing.
struct Lobs<'a> {
    list: List<'a>,
    items: Option<(&'a StructArray, Strings<'a>, Ints<'a>, Ints<'a>)>,
}

impl<'a> Lobs<'a> {
    fn of(array: Option<&'a ArrayRef>) -> Result<Self> {
        const WHAT: &str = "lob_columns";
        let list = List::of(array, WHAT)?;
        let items = match list.structs(WHAT, &["column", "bytes", "pieces"])? {
            Some((structs, f)) => Some((
                structs,
                Strings::of(f[0].as_ref(), WHAT)?,
                Ints::of(f[1].as_ref(), WHAT)?,
                Ints::of(f[2].as_ref(), WHAT)?,
            )),
            None => None,
        };
        Ok(Lobs { list, items })
    }
}

/// The batch's columns, looked up by name once (and their types checked): what the JSON lines
/// and the table (`table.rs`) read a row from.
pub(super) struct Columns<'a> {
    pub(super) xid: Strings<'a>,
    pub(super) commit_scn: Ints<'a>,
    commit_time: Times<'a>,
    trans_ind: Ints<'a>,
    io_type: Ints<'a>,
    pub(super) op: Strings<'a>,
    before_after: Strings<'a>,
    pub(super) owner: Strings<'a>,
    pub(super) table: Strings<'a>,
    obj: Ints<'a>,
    pub(super) columns: Pairs<'a>,
    before: Pairs<'a>,
    key_columns: Names<'a>,
    changed_columns: Names<'a>,
    pub(super) rowid: Strings<'a>,
    scn: Ints<'a>,
    subscn: Ints<'a>,
    op_time: Times<'a>,
    thread: Ints<'a>,
    sequence: Ints<'a>,
    rba: Strings<'a>,
    tokens: Pairs<'a>,
    lob_columns: Lobs<'a>,
}

impl<'a> Columns<'a> {
    pub(super) fn of(batch: &'a RecordBatch) -> Result<Self> {
        let column = |name: &str| -> Result<&'a ArrayRef> {
            batch.column_by_name(name).ok_or_else(|| input_error(format!("the batch has no column {name}")))
        };
        let strings = |name: &str| Strings::of(column(name)?.as_ref(), name);
        let ints = |name: &str| Ints::of(column(name)?.as_ref(), name);
        let times = |name: &str| Times::of(column(name)?.as_ref(), name);
        Ok(Columns {
            xid: strings("xid")?,
            commit_scn: ints("commit_scn")?,
            commit_time: times("commit_time")?,
            trans_ind: ints("trans_ind")?,
            io_type: ints("io_type")?,
            op: strings("op")?,
            before_after: strings("before_after")?,
            owner: strings("owner")?,
            table: strings("table")?,
            obj: ints("obj")?,
            columns: Pairs::of(column("columns")?, "columns")?,
            before: Pairs::of(column("before")?, "before")?,
            // `from_dict` reads these three with `d.get(name, ())`: a missing column is empty
            key_columns: Names::of(batch.column_by_name("key_columns"), "key_columns")?,
            changed_columns: Names::of(batch.column_by_name("changed_columns"), "changed_columns")?,
            rowid: strings("rowid")?,
            scn: ints("scn")?,
            subscn: ints("subscn")?,
            op_time: times("op_time")?,
            thread: ints("thread")?,
            sequence: ints("sequence")?,
            rba: strings("rba")?,
            tokens: Pairs::of(column("tokens")?, "tokens")?,
            lob_columns: Lobs::of(batch.column_by_name("lob_columns"))?,
        })
    }

    /// Row `i`'s `trans_ind`, a `TransInd` (0-3).
    pub(super) fn trans_ind(&self, i: usize) -> Result<i128> {
        let trans_ind = required(self.trans_ind.get(i), "trans_ind", i)?;
        if !(0..=3).contains(&trans_ind) {
            return Err(row_error("trans_ind", i, &format!("{trans_ind} is no TransInd")));
        }
        Ok(trans_ind)
    }
}

/// An image's entries: (name, value) pairs, null for SQL NULL.
pub(super) type Entries<'a> = [(Option<&'a str>, Option<&'a str>)];

/// Reused between rows: an image's entries and, for large images, their index by name.
#[derive(Default)]
pub(super) struct Scratch<'a> {
    entries: Vec<(Option<&'a str>, Option<&'a str>)>,
    index: HashMap<Option<&'a str>, usize>,
}

/// A line per row of the trail, as one text format writes it (`write_row`): every row of `batch`
/// appended to `out`, nothing appended when a row fails. The JSON lines' and the table's loop.
pub(super) type WriteRow = for<'a> fn(&Columns<'a>, usize, &mut Vec<u8>, &mut Scratch<'a>) -> Result<()>;

pub(super) fn render_rows(batch: &RecordBatch, out: &mut Vec<u8>, write_row: WriteRow) -> Result<()> {
    let columns = Columns::of(batch)?;
    let mut scratch = Scratch::default();
    let start = out.len();
    for i in 0..batch.num_rows() {
        if let Err(e) = write_row(&columns, i, out, &mut scratch) {
            out.truncate(start);
            return Err(e);
        }
    }
    Ok(())
}

/// The JSON lines of every row of `batch`, appended to `out` (nothing is appended when a row fails).
pub fn render_jsonl(batch: &RecordBatch, out: &mut Vec<u8>) -> Result<()> {
    render_rows(batch, out, write_row)
}

/// [`render_jsonl`] into a new buffer.
pub fn jsonl_bytes(batch: &RecordBatch) -> Result<Vec<u8>> {
    let mut out = Vec::with_capacity(batch.get_array_memory_size().saturating_add(batch.num_rows() * 400));
    render_jsonl(batch, &mut out)?;
    Ok(out)
}

pub(super) fn required(value: Option<i128>, column: &str, row: usize) -> Result<i128> {
    value.ok_or_else(|| row_error(column, row, "is null"))
}

fn write_row<'a>(c: &Columns<'a>, i: usize, out: &mut Vec<u8>, scratch: &mut Scratch<'a>) -> Result<()> {
    // Python checks in `from_dict`'s order; which check fails first only picks the message
    let commit_scn = required(c.commit_scn.get(i), "commit_scn", i)?;
    let trans_ind = c.trans_ind(i)?;
    let io_type = required(c.io_type.get(i), "io_type", i)?;
    if !IO_TYPES.contains(&io_type) {
        return Err(row_error("io_type", i, &format!("{io_type} is no IoType")));
    }
    let obj = required(c.obj.get(i), "obj", i)?;
    let scn = required(c.scn.get(i), "scn", i)?;
    let subscn = required(c.subscn.get(i), "subscn", i)?;
    let thread = required(c.thread.get(i), "thread", i)?;
    let sequence = required(c.sequence.get(i), "sequence", i)?;

    out.extend_from_slice(b"{\"xid\": ");
    write_opt_str(out, c.xid.get(i));
    out.extend_from_slice(b", \"commit_scn\": ");
    write_int(out, commit_scn);
    out.extend_from_slice(b", \"commit_time\": ");
    write_time(out, c.commit_time.get(i), "commit_time", i)?;
    out.extend_from_slice(b", \"trans_ind\": ");
    write_int(out, trans_ind);
    out.extend_from_slice(b", \"io_type\": ");
    write_int(out, io_type);
    out.extend_from_slice(b", \"op\": ");
    write_opt_str(out, c.op.get(i));
    out.extend_from_slice(b", \"before_after\": ");
    write_opt_str(out, c.before_after.get(i));
    out.extend_from_slice(b", \"owner\": ");
    write_opt_str(out, c.owner.get(i));
    out.extend_from_slice(b", \"table\": ");
    write_opt_str(out, c.table.get(i));
    out.extend_from_slice(b", \"obj\": ");
    write_int(out, obj);
    out.extend_from_slice(b", \"columns\": ");
    write_pairs(out, &c.columns, i, scratch)?;
    out.extend_from_slice(b", \"before\": ");
    write_pairs(out, &c.before, i, scratch)?;
    out.extend_from_slice(b", \"key_columns\": ");
    write_names(out, &c.key_columns, i)?;
    out.extend_from_slice(b", \"changed_columns\": ");
    write_names(out, &c.changed_columns, i)?;
    out.extend_from_slice(b", \"rowid\": ");
    write_opt_str(out, c.rowid.get(i));
    out.extend_from_slice(b", \"scn\": ");
    write_int(out, scn);
    out.extend_from_slice(b", \"subscn\": ");
    write_int(out, subscn);
    out.extend_from_slice(b", \"op_time\": ");
    write_time(out, c.op_time.get(i), "op_time", i)?;
    out.extend_from_slice(b", \"thread\": ");
    write_int(out, thread);
    out.extend_from_slice(b", \"sequence\": ");
    write_int(out, sequence);
    out.extend_from_slice(b", \"rba\": ");
    write_opt_str(out, c.rba.get(i));
    out.extend_from_slice(b", \"tokens\": ");
    write_pairs(out, &c.tokens, i, scratch)?;
    write_lobs(out, &c.lob_columns, i)?;
    out.extend_from_slice(b"}\n");
    Ok(())
}

/// Row `i`'s image or tokens as Python's `{p["name"]: p["value"] for p in items or ()}` holds them:
/// in the pairs' order, a repeated name in its first place with its last value; empty for an
/// empty or null list.
pub(super) fn entries<'a, 's>(
    pairs: &Pairs<'a>,
    i: usize,
    scratch: &'s mut Scratch<'a>,
) -> Result<&'s Entries<'a>> {
    let entries = &mut scratch.entries;
    entries.clear();
    let range = pairs.list.range(i).unwrap_or(0..0);
    if range.is_empty() {
        return Ok(entries);
    }
    let Some((structs, names, values)) = &pairs.items else {
        return Err(row_error(pairs.what, i, "holds a null pair"));
    };
    let hashed = range.len() > SCAN_PAIRS;
    if hashed {
        scratch.index.clear();
    }
    for j in range {
        if structs.is_null(j) {
            return Err(row_error(pairs.what, i, "holds a null pair"));
        }
        let (name, value) = (names.get(j), values.get(j));
        let found = if hashed {
            match scratch.index.get(&name) {
                Some(&k) => Some(k),
                None => {
                    scratch.index.insert(name, entries.len());
                    None
                }
            }
        } else {
            entries.iter().position(|(n, _)| *n == name)
        };
        match found.and_then(|k| entries.get_mut(k)) {
            Some(entry) => entry.1 = value,
            None => entries.push((name, value)),
        }
    }
    Ok(entries)
}

/// An image or the tokens as a JSON object: `{p["name"]: p["value"] for p in items or ()}`.
fn write_pairs<'a>(out: &mut Vec<u8>, pairs: &Pairs<'a>, i: usize, scratch: &mut Scratch<'a>) -> Result<()> {
    out.push(b'{');
    for (k, (name, value)) in entries(pairs, i, scratch)?.iter().enumerate() {
        if k > 0 {
            out.extend_from_slice(b", ");
        }
        // `json.dumps` writes a `None` key as "null"
        write_str(out, name.unwrap_or("null"));
        out.extend_from_slice(b": ");
        write_opt_str(out, *value);
    }
    out.push(b'}');
    Ok(())
}

/// `key_columns` / `changed_columns` as a JSON array: `list(tuple(d.get(name, ())))`.
fn write_names(out: &mut Vec<u8>, names: &Names<'_>, i: usize) -> Result<()> {
    let range = names.list.range(i).ok_or_else(|| row_error(names.what, i, "is null"))?;
    out.push(b'[');
    for (k, j) in range.enumerate() {
        if k > 0 {
            out.extend_from_slice(b", ");
        }
        write_opt_str(out, names.items.get(j));
    }
    out.push(b']');
    Ok(())
}

/// `, "lob_columns": [...]` when the row has LOB descriptors (`to_dict`), else nothing.
fn write_lobs(out: &mut Vec<u8>, lobs: &Lobs<'_>, i: usize) -> Result<()> {
    const WHAT: &str = "lob_columns";
    let range = lobs.list.range(i).unwrap_or(0..0);
    if range.is_empty() {
        return Ok(());
    }
    let Some((structs, column, bytes, pieces)) = &lobs.items else {
        return Err(row_error(WHAT, i, "holds a null descriptor"));
    };
    out.extend_from_slice(b", \"lob_columns\": [");
    for (k, j) in range.enumerate() {
        if structs.is_null(j) {
            return Err(row_error(WHAT, i, "holds a null descriptor"));
        }
        let size = bytes.get(j).ok_or_else(|| row_error(WHAT, i, "holds a null bytes"))?;
        let count = pieces.get(j).ok_or_else(|| row_error(WHAT, i, "holds a null pieces"))?;
        if k > 0 {
            out.extend_from_slice(b", ");
        }
        out.extend_from_slice(b"{\"column\": ");
        write_opt_str(out, column.get(j));
        out.extend_from_slice(b", \"bytes\": ");
        write_int(out, size);
        out.extend_from_slice(b", \"pieces\": ");
        write_int(out, count);
        out.push(b'}');
    }
    out.push(b']');
    Ok(())
}

/// `iso(value)` of `from_row`, as a JSON string: `"None"` for a null.
fn write_time(out: &mut Vec<u8>, seconds: Option<i64>, column: &str, row: usize) -> Result<()> {
    let Some(seconds) = seconds else {
        out.extend_from_slice(b"\"None\"");
        return Ok(());
    };
    if !(FIRST_SECOND..=LAST_SECOND).contains(&seconds) {
        return Err(row_error(column, row, "is outside the years 1-9999"));
    }
    let (year, month, day) = civil_from_days(seconds.div_euclid(86_400));
    let second = seconds.rem_euclid(86_400);
    out.push(b'"');
    write_int(out, year.into());
    out.push(b'-');
    two_digits(out, month);
    out.push(b'-');
    two_digits(out, day);
    out.push(b'T');
    two_digits(out, second / 3600);
    out.push(b':');
    two_digits(out, second / 60 % 60);
    out.push(b':');
    two_digits(out, second % 60);
    out.push(b'"');
    Ok(())
}

fn two_digits(out: &mut Vec<u8>, v: i64) {
    out.push(b'0' + (v / 10 % 10) as u8);
    out.push(b'0' + (v % 10) as u8);
}

/// Days since 1970-01-01 -> (year, month, day) of the proleptic Gregorian calendar (Python's
/// `datetime`; H. Hinnant's `civil_from_days`). `days` within `datetime`'s range.
fn civil_from_days(days: i64) -> (i64, i64, i64) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

pub(super) fn write_int(out: &mut Vec<u8>, v: i128) {
    let mut buf = [0u8; 40];
    let mut n = buf.len();
    let mut m = v.unsigned_abs();
    loop {
        n -= 1;
        buf[n] = b'0' + (m % 10) as u8;
        m /= 10;
        if m == 0 {
            break;
        }
    }
    if v < 0 {
        n -= 1;
        buf[n] = b'-';
    }
    out.extend_from_slice(&buf[n..]);
}

fn write_opt_str(out: &mut Vec<u8>, s: Option<&str>) {
    match s {
        Some(s) => write_str(out, s),
        None => out.extend_from_slice(b"null"),
    }
}

const HEX: &[u8; 16] = b"0123456789abcdef";

pub(super) fn write_u16_escape(out: &mut Vec<u8>, unit: u32) {
    out.extend_from_slice(&[
        b'\\',
        b'u',
        HEX[(unit >> 12 & 0xF) as usize],
        HEX[(unit >> 8 & 0xF) as usize],
        HEX[(unit >> 4 & 0xF) as usize],
        HEX[(unit & 0xF) as usize],
    ]);
}

/// A string as `json.dumps` writes it with `ensure_ascii=True` (`py_encode_basestring_ascii`).
fn write_str(out: &mut Vec<u8>, s: &str) {
    let bytes = s.as_bytes();
    out.push(b'"');
    let mut run = 0; // start of the bytes copied as they are
    let mut i = 0;
    while let Some(&b) = bytes.get(i) {
        if (0x20..0x7f).contains(&b) && b != b'"' && b != b'\\' {
            i += 1;
            continue;
        }
        out.extend_from_slice(bytes.get(run..i).unwrap_or_default());
        if b < 0x80 {
            match b {
                b'"' => out.extend_from_slice(b"\\\""),
                b'\\' => out.extend_from_slice(b"\\\\"),
                b'\n' => out.extend_from_slice(b"\\n"),
                b'\r' => out.extend_from_slice(b"\\r"),
                b'\t' => out.extend_from_slice(b"\\t"),
                0x08 => out.extend_from_slice(b"\\b"),
                0x0c => out.extend_from_slice(b"\\f"),
                _ => write_u16_escape(out, u32::from(b)),
            }
            i += 1;
        } else {
            // a valid UTF-8 sequence (a `str`): its lead byte gives the length
            let cont = |k: usize| u32::from(bytes.get(i + k).copied().unwrap_or(0x80) & 0x3F);
            let (cp, len) = if b < 0xE0 {
                ((u32::from(b & 0x1F) << 6) | cont(1), 2)
            } else if b < 0xF0 {
                ((u32::from(b & 0x0F) << 12) | (cont(1) << 6) | cont(2), 3)
            } else {
                ((u32::from(b & 0x07) << 18) | (cont(1) << 12) | (cont(2) << 6) | cont(3), 4)
            };
            if cp > 0xFFFF {
                let v = cp - 0x1_0000;
                write_u16_escape(out, 0xD800 | (v >> 10));
                write_u16_escape(out, 0xDC00 | (v & 0x3FF));
            } else {
                write_u16_escape(out, cp);
            }
            i += len;
        }
        run = i;
    }
    out.extend_from_slice(bytes.get(run..).unwrap_or_default());
    out.push(b'"');
}

#[cfg(test)]
#[path = "jsonl_tests.rs"]
pub(super) mod tests;
