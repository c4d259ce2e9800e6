//! Unit tests of `jsonl.rs`: each rule against the bytes Python writes.

use std::sync::Arc;

use arrow_array::builder::{ListBuilder, StringBuilder, StructBuilder};
use arrow_array::{Int64Array, ListArray, NullArray, TimestampMicrosecondArray};
use arrow_schema::{Field, Schema};

use super::*;
use crate::stage::staged_trail_schema;
use crate::trail::schema::{pair_fields, LobColumn, TrailBuilder, TrailRecord};

pub(in crate::trail) fn record() -> TrailRecord {
    TrailRecord {
        xid: "1.2.3".into(),
        commit_scn: 1_234_567,
        commit_time: 1_714_521_600_000_000, // 2024-05-01T00:00:00
        trans_ind: 3,
        io_type: 5,
        op: "INSERT",
        before_after: "A",
        owner: "APP".into(),
        table: "T".into(),
        obj: 70_001,
        columns: vec![("ID".into(), Some("1".into())), ("NAME".into(), None)],
        before: vec![],
        key_columns: vec!["ID".into()],
        changed_columns: vec![],
        rowid: "AAARF1AAHAAAACFAAA".into(),
        scn: 1_234_560,
        subscn: 2,
        op_time: 1_714_521_599_999_999, // 23:59:59.999999 the day before: sub-seconds dropped
        thread: 1,
        sequence: 15,
        rba: "0x00000f.00000002.0010".into(),
        tokens: vec![("R".into(), Some("AAARF1AAHAAAACFAAA".into())), ("L".into(), Some("1234567".into()))],
        lob_columns: vec![],
    }
}

pub(in crate::trail) fn batch_of(records: &[TrailRecord]) -> RecordBatch {
    let mut b = TrailBuilder::new();
    for r in records {
        b.append(r, Some("batch"), 7, Some("1_15_99"));
    }
    b.finish().unwrap()
}

fn render(batch: &RecordBatch) -> String {
    String::from_utf8(jsonl_bytes(batch).unwrap()).unwrap()
}

const LINE: &str = concat!(
    r#"{"xid": "1.2.3", "commit_scn": 1234567, "commit_time": "2024-05-01T00:00:00", "trans_ind": 3, "#,
    r#""io_type": 5, "op": "INSERT", "before_after": "A", "owner": "APP", "table": "T", "obj": 70001, "#,
    r#""columns": {"ID": "1", "NAME": null}, "before": {}, "key_columns": ["ID"], "changed_columns": [], "#,
    r#""rowid": "AAARF1AAHAAAACFAAA", "scn": 1234560, "subscn": 2, "op_time": "2024-04-30T23:59:59", "#,
    r#""thread": 1, "sequence": 15, "rba": "0x00000f.00000002.0010", "#,
    r#""tokens": {"R": "AAARF1AAHAAAACFAAA", "L": "1234567"}}"#,
    "\n"
);

#[test]
fn a_record_is_its_python_line() {
    assert_eq!(render(&batch_of(&[record()])), LINE);
    assert_eq!(render(&batch_of(&[record(), record()])), format!("{LINE}{LINE}"));
    assert_eq!(render(&batch_of(&[])), "");
}

#[test]
fn the_staged_schemas_extra_columns_are_ignored() {
    let batch = batch_of(&[record()]);
    let mut columns = batch.columns().to_vec();
    columns.extend((0..6).map(|k| Arc::new(Int64Array::from(vec![k])) as ArrayRef));
    let staged = RecordBatch::try_new(staged_trail_schema(), columns).unwrap();
    assert_eq!(render(&staged), LINE);
    // a slice of a batch renders its own rows
    let mut two = record();
    two.xid = "9.9.9".into();
    let batch = batch_of(&[record(), two]);
    assert!(render(&batch.slice(1, 1)).starts_with(r#"{"xid": "9.9.9", "#));
    assert_eq!(render(&batch.slice(0, 1)), LINE);
}

fn escaped(s: &str) -> String {
    let mut out = Vec::new();
    write_str(&mut out, s);
    String::from_utf8(out).unwrap()
}

#[test]
fn strings_are_escaped_as_json_dumps_does() {
    assert_eq!(escaped(""), r#""""#);
    assert_eq!(escaped("plain ~ text"), r#""plain ~ text""#);
    assert_eq!(escaped("q\"b\\s/"), r#""q\"b\\s/""#);
    assert_eq!(escaped("\n\r\t\u{8}\u{c}"), r#""\n\r\t\b\f""#);
    assert_eq!(escaped("\0\u{1}\u{1f}\u{7f}"), r#""\u0000\u0001\u001f\u007f""#);
    assert_eq!(escaped("é\u{80}\u{ff}ü"), r#""\u00e9\u0080\u00ff\u00fc""#);
    assert_eq!(escaped("日本\u{ffff}\u{fffd}"), r#""\u65e5\u672c\uffff\ufffd""#);
    assert_eq!(escaped("a\u{e000}z"), r#""a\ue000z""#);
}

#[test]
fn characters_above_the_bmp_are_surrogate_pairs() {
    assert_eq!(escaped("\u{1F600}"), r#""\ud83d\ude00""#);
    assert_eq!(escaped("\u{10000}"), r#""\ud800\udc00""#);
    assert_eq!(escaped("x\u{10FFFF}y"), r#""x\udbff\udfffy""#);
    assert_eq!(escaped("𝄞 and 😀"), r#""\ud834\udd1e and \ud83d\ude00""#);
}

#[test]
fn a_repeated_name_keeps_its_first_place_with_the_later_value() {
    let mut r = record();
    r.columns = vec![
        ("A".into(), Some("1".into())),
        ("B".into(), Some("2".into())),
        ("A".into(), None),
        ("C".into(), Some("3".into())),
        ("B".into(), Some("4".into())),
    ];
    r.tokens = vec![("R".into(), Some("x".into())), ("R".into(), Some("y".into()))];
    let line = render(&batch_of(&[r.clone()]));
    assert!(line.contains(r#""columns": {"A": null, "B": "4", "C": "3"}, "#), "{line}");
    assert!(line.contains(r#""tokens": {"R": "y"}}"#), "{line}");
    // beyond the scan threshold, through the hash map
    r.columns = (0..40).map(|k| (format!("C{}", k % 25).into(), Some(k.to_string()))).collect();
    let line = render(&batch_of(&[r]));
    let expected = (0..25)
        .map(|k| format!(r#""C{k}": "{}""#, if k < 15 { k + 25 } else { k }))
        .collect::<Vec<_>>()
        .join(", ");
    assert!(line.contains(&format!(r#""columns": {{{expected}}}, "#)), "{line}");
}

#[test]
fn lob_columns_only_when_there_are_some() {
    assert!(!render(&batch_of(&[record()])).contains("lob_columns"));
    let mut r = record();
    r.lob_columns = vec![LobColumn::of("BODY", 70_000), LobColumn::of("ZERO", 0)];
    let line = render(&batch_of(&[r]));
    assert!(
        line.ends_with(concat!(
            r#""tokens": {"R": "AAARF1AAHAAAACFAAA", "L": "1234567"}, "#,
            r#""lob_columns": [{"column": "BODY", "bytes": 70000, "pieces": 3}, "#,
            r#"{"column": "ZERO", "bytes": 0, "pieces": 0}]}"#,
            "\n"
        )),
        "{line}"
    );
}

/// `batch` with `name` replaced by `array`.
pub(in crate::trail) fn replaced(batch: &RecordBatch, name: &str, array: ArrayRef) -> RecordBatch {
    let schema = batch.schema();
    let mut fields: Vec<Field> = schema.fields().iter().map(|f| f.as_ref().clone()).collect();
    let mut columns = batch.columns().to_vec();
    let k = schema.index_of(name).unwrap();
    fields[k] = Field::new(name, array.data_type().clone(), true);
    columns[k] = array;
    RecordBatch::try_new(Arc::new(Schema::new(fields)), columns).unwrap()
}

type NullablePair<'a> = (Option<&'a str>, Option<&'a str>);

/// Pairs lists; names may be null here (the schema's are not nullable, pyarrow's may be).
fn pairs(rows: &[Option<&[NullablePair<'_>]>]) -> ArrayRef {
    let fields = vec![Field::new("name", DataType::Utf8, true), Field::new("value", DataType::Utf8, true)];
    let mut b = ListBuilder::new(StructBuilder::from_fields(fields, 0));
    for row in rows {
        for (name, value) in row.iter().flat_map(|r| r.iter()) {
            let s = b.values();
            s.field_builder::<StringBuilder>(0).unwrap().append_option(*name);
            s.field_builder::<StringBuilder>(1).unwrap().append_option(*value);
            s.append(true);
        }
        b.append(row.is_some());
    }
    Arc::new(b.finish())
}

#[test]
fn nulls_are_what_python_makes_of_them() {
    let batch = batch_of(&[record()]);
    let none: ArrayRef = Arc::new(StringArray::from(vec![None::<&str>]));
    let mut b = batch.clone();
    for name in ["xid", "op", "before_after", "owner", "table", "rowid", "rba"] {
        b = replaced(&b, name, none.clone());
    }
    let line = render(&b);
    for name in ["xid", "op", "before_after", "owner", "table", "rowid", "rba"] {
        assert!(line.contains(&format!(r#""{name}": null"#)), "{name}: {line}");
    }
    // a column of type Null is a column of nulls
    let b = replaced(&batch, "owner", Arc::new(NullArray::new(1)));
    assert!(render(&b).contains(r#""owner": null, "#));
    // a null time is `str(None)`
    let b = replaced(
        &batch,
        "commit_time",
        Arc::new(TimestampMicrosecondArray::from(vec![None]).with_timezone("UTC")),
    );
    assert!(render(&b).contains(r#""commit_time": "None", "#));
    // a null image or token list is {}, a null name the key "null" (apart from a name "null")
    let b = replaced(&batch, "columns", pairs(&[None]));
    assert!(render(&b).contains(r#""columns": {}, "#));
    let b = replaced(
        &batch,
        "columns",
        pairs(&[Some(&[(None, Some("1")), (Some("null"), Some("2")), (None, None)])]),
    );
    assert!(render(&b).contains(r#""columns": {"null": null, "null": "2"}, "#), "{}", render(&b));
    // a null in the list of key columns is null
    let mut keys = ListBuilder::new(StringBuilder::new());
    keys.values().append_value("ID");
    keys.values().append_null();
    keys.append(true);
    let b = replaced(&batch, "key_columns", Arc::new(keys.finish()));
    assert!(render(&b).contains(r#""key_columns": ["ID", null], "#));
    // a null list of LOB descriptors is none
    let lobs = batch.column_by_name("lob_columns").unwrap().as_list::<i32>().clone();
    let (field, offsets, values, _) = lobs.into_parts();
    let nulls = arrow_buffer::NullBuffer::from(vec![false]);
    let b = replaced(&batch, "lob_columns", Arc::new(ListArray::new(field, offsets, values, Some(nulls))));
    assert_eq!(render(&b), LINE);
}

fn error(batch: &RecordBatch) -> Error {
    let mut out = b"kept".to_vec();
    let e = render_jsonl(batch, &mut out).unwrap_err();
    assert_eq!(out, b"kept", "nothing appended on an error");
    assert_eq!(e.kind(), "assembly");
    e
}

#[test]
fn what_python_refuses_is_an_error_not_a_panic() {
    let batch = batch_of(&[record(), record()]);
    for name in ["commit_scn", "obj", "scn", "subscn", "thread", "sequence", "trans_ind", "io_type"] {
        let null_int: ArrayRef = Arc::new(Int64Array::from(vec![Some(3), None]));
        let e = error(&replaced(&batch, name, null_int));
        assert!(e.to_string().contains(&format!("row 1: {name} is null")), "{e}");
    }
    let e = error(&replaced(&batch, "trans_ind", Arc::new(Int64Array::from(vec![0, 4]))));
    assert!(e.to_string().contains("4 is no TransInd"), "{e}");
    let e = error(&replaced(&batch, "io_type", Arc::new(Int64Array::from(vec![3, 4]))));
    assert!(e.to_string().contains("4 is no IoType"), "{e}");
    // a time outside datetime's years
    let e = error(&replaced(
        &batch,
        "op_time",
        Arc::new(
            TimestampMicrosecondArray::from(vec![0, (LAST_SECOND + 1) * 1_000_000]).with_timezone("UTC"),
        ),
    ));
    assert!(e.to_string().contains("op_time is outside"), "{e}");
    let first = FIRST_SECOND * 1_000_000;
    let b = replaced(
        &batch,
        "op_time",
        Arc::new(
            TimestampMicrosecondArray::from(vec![first, LAST_SECOND * 1_000_000 + 999_999])
                .with_timezone("UTC"),
        ),
    );
    let text = render(&b);
    assert!(
        text.contains(r#""op_time": "1-01-01T00:00:00""#)
            && text.contains(r#""op_time": "9999-12-31T23:59:59""#)
    );
    error(&replaced(
        &batch,
        "op_time",
        Arc::new(TimestampMicrosecondArray::from(vec![0, first - 1]).with_timezone("UTC")),
    ));
    // a null pair, a null list of key columns, a null LOB descriptor
    let b = replaced(
        &batch,
        "key_columns",
        Arc::new(ListArray::new_null(Arc::new(Field::new("item", DataType::Utf8, true)), 2)),
    );
    assert!(error(&b).to_string().contains("row 0: key_columns is null"));
    let mut p = ListBuilder::new(StructBuilder::from_fields(pair_fields(), 0));
    p.append(true);
    let s = p.values();
    s.field_builder::<StringBuilder>(0).unwrap().append_value("A");
    s.field_builder::<StringBuilder>(1).unwrap().append_value("1");
    s.append(false);
    p.append(true);
    assert!(error(&replaced(&batch, "tokens", Arc::new(p.finish())))
        .to_string()
        .contains("row 1: tokens holds a null pair"));
    // missing and mistyped columns
    let mut columns = batch.columns().to_vec();
    let schema = batch.schema();
    let mut fields: Vec<Field> = schema.fields().iter().map(|f| f.as_ref().clone()).collect();
    let k = schema.index_of("rba").unwrap();
    columns.remove(k);
    fields.remove(k);
    let b = RecordBatch::try_new(Arc::new(Schema::new(fields)), columns).unwrap();
    assert!(error(&b).to_string().contains("no column rba"));
    let b = replaced(&batch, "xid", Arc::new(Int64Array::from(vec![1, 2])));
    assert!(error(&b).to_string().contains("column xid is Int64, not a string"));
    let b = replaced(&batch, "columns", Arc::new(StringArray::from(vec!["a", "b"])));
    assert!(error(&b).to_string().contains("not a list"));
    let b = replaced(&batch, "commit_time", Arc::new(TimestampMicrosecondArray::from(vec![0, 0])));
    assert!(error(&b).to_string().contains("not in UTC"));
}

#[test]
fn missing_lists_read_with_a_default_are_empty() {
    let batch = batch_of(&[record()]);
    let schema = batch.schema();
    let keep: Vec<usize> = (0..schema.fields().len())
        .filter(|&k| {
            !matches!(schema.field(k).name().as_str(), "key_columns" | "changed_columns" | "lob_columns")
        })
        .collect();
    let b = batch.project(&keep).unwrap();
    assert_eq!(render(&b), LINE.replace(r#""key_columns": ["ID"], "#, r#""key_columns": [], "#));
}

#[test]
fn times_and_integers() {
    assert_eq!(civil_from_days(0), (1970, 1, 1));
    assert_eq!(civil_from_days(-1), (1969, 12, 31));
    assert_eq!(civil_from_days(11_016), (2000, 2, 29));
    assert_eq!(civil_from_days(FIRST_SECOND / 86_400), (1, 1, 1));
    assert_eq!(civil_from_days(LAST_SECOND / 86_400), (9999, 12, 31));
    let mut out = Vec::new();
    for v in [0i128, -1, 7, i64::MIN.into(), i64::MAX.into(), u64::MAX.into()] {
        out.clear();
        write_int(&mut out, v);
        assert_eq!(String::from_utf8(out.clone()).unwrap(), v.to_string());
    }
    let mut out = Vec::new();
    write_time(&mut out, Some(-1), "t", 0).unwrap();
    write_time(&mut out, Some(FIRST_SECOND + 999 * 365 * 86_400 + 3723), "t", 0).unwrap();
    // the year as CPython 3.11's strftime("%Y") on glibc writes it: not padded
    assert_eq!(String::from_utf8(out).unwrap(), r#""1969-12-31T23:59:59""999-05-04T01:02:03""#);
}
