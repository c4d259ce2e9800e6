//! Unit tests of `table.rs`: the layout, the value text, and a bad batch as an error.

use std::sync::Arc;

use arrow_array::{ArrayRef, Int64Array, Int8Array, StringArray};

use super::*;
use crate::stage::staged_trail_schema;
use crate::trail::jsonl::tests::{batch_of, record, replaced};
use crate::trail::schema::TrailRecord;

fn render(batch: &RecordBatch) -> String {
    String::from_utf8(table_bytes(batch).unwrap()).unwrap()
}

const HEADER: &str =
    "XID            COMMIT SCN IND OP        TABLE                          ROWID              COLUMNS\n";
const LINE: &str =
    "1.2.3             1234567   3 INSERT    APP.T                          AAARF1AAHAAAACFAAA ID=\"1\", NAME=NULL\n";

#[test]
fn the_header_and_a_row_in_their_columns() {
    assert_eq!(table_header(), HEADER);
    assert_eq!(render(&batch_of(&[record()])), LINE);
    assert_eq!(render(&batch_of(&[record(), record()])), format!("{LINE}{LINE}"));
    assert_eq!(render(&batch_of(&[])), "");
    // the staged schema's extra columns are ignored
    let batch = batch_of(&[record()]);
    let mut columns = batch.columns().to_vec();
    columns.extend((0..6).map(|k| Arc::new(Int64Array::from(vec![k])) as ArrayRef));
    assert_eq!(render(&RecordBatch::try_new(staged_trail_schema(), columns).unwrap()), LINE);
}

fn with_columns(columns: &[(&str, Option<&str>)]) -> TrailRecord {
    let mut r = record();
    r.columns = columns.iter().map(|(n, v)| ((*n).into(), v.map(Into::into))).collect();
    r
}

#[test]
fn values_are_quoted_with_json_escapes_and_null_is_null() {
    let r = with_columns(&[
        ("Q", Some(r#"it's "q""#)),
        ("B", Some(r"a\b")),
        ("NL", Some("a\nb\r\tc")),
        ("CTL", Some("\u{1}\u{8}\u{c}\u{7f}\u{85}")),
        ("U", Some("é 漢 😀 \u{2028}")),
        ("EMPTY", Some("")),
        ("TEXT_NULL", Some("NULL")),
        ("SQL_NULL", None),
    ]);
    let line = render(&batch_of(&[r]));
    let cols = line.split_once("AAARF1AAHAAAACFAAA ").unwrap().1;
    assert_eq!(
        cols,
        concat!(
            r#"Q="it's \"q\"", B="a\\b", NL="a\nb\r\tc", CTL="\u0001\b\f\u007f\u0085", "#,
            "U=\"é 漢 😀 \u{2028}\", EMPTY=\"\", TEXT_NULL=\"NULL\", SQL_NULL=NULL\n"
        )
    );
}

#[test]
fn the_table_is_owner_dot_table_and_widths_count_characters() {
    let mut r = record();
    r.owner = String::new();
    r.table = "ÉTÉ".into();
    r.columns = vec![];
    let line = render(&batch_of(&[r]));
    assert_eq!(
        line,
        format!("1.2.3             1234567   3 INSERT    ÉTÉ{} AAARF1AAHAAAACFAAA \n", " ".repeat(27))
    );
    // a null owner: the table alone; a repeated name: its first place, its last value
    let batch = batch_of(&[with_columns(&[("A", Some("1")), ("B", None), ("A", Some("2"))])]);
    let line = render(&replaced(&batch, "owner", Arc::new(StringArray::from(vec![None::<&str>]))));
    assert!(line.contains(" T                              AAARF1AAHAAAACFAAA A=\"2\", B=NULL\n"), "{line}");
    // a value wider than its column is not cut
    let mut r = record();
    r.xid = "12345.67890.12345".into();
    assert!(render(&batch_of(&[r])).starts_with("12345.67890.12345      1234567 "));
}

fn error(batch: &RecordBatch) -> crate::error::Error {
    let mut out = b"kept".to_vec();
    let e = render_table(batch, &mut out).unwrap_err();
    assert_eq!(out, b"kept", "nothing appended on an error");
    assert_eq!(e.kind(), "assembly");
    e
}

#[test]
fn a_bad_batch_is_an_error_not_a_panic() {
    let batch = batch_of(&[record(), record()]);
    for name in ["xid", "op", "table", "rowid"] {
        let e = error(&replaced(&batch, name, Arc::new(StringArray::from(vec![Some("x"), None]))));
        assert!(e.to_string().contains(&format!("row 1: {name} is null")), "{e}");
    }
    for name in ["commit_scn", "trans_ind"] {
        let e = error(&replaced(&batch, name, Arc::new(Int64Array::from(vec![Some(3), None]))));
        assert!(e.to_string().contains(&format!("row 1: {name} is null")), "{e}");
    }
    let e = error(&replaced(&batch, "trans_ind", Arc::new(Int8Array::from(vec![3, 7]))));
    assert!(e.to_string().contains("7 is no TransInd"), "{e}");
    let e = error(&replaced(&batch, "xid", Arc::new(Int64Array::from(vec![1, 2]))));
    assert!(e.to_string().contains("column xid is Int64, not a string"), "{e}");
    let e = error(&batch.project(&[0, 1]).unwrap());
    assert!(e.to_string().contains("the batch has no column"), "{e}");
}
