//! Unit tests of columns the decoder cannot render (issue 34) and of columns left out of the capture
//! scope, through the emitter: `APP.DOCS` (ID key, DOC an XMLTYPE stored as binary XML in the hidden
//! BLOB `SYS_NC00003$` right after it, NOTE) and `APP.SHAPES` (ID, GEOM an SDO_GEOMETRY, type 121,
//! with two hidden NUMBER attribute columns).

use super::*;
use crate::assembly::{ChangeBuffer, ChangeEvent, CommittedTransaction, Xid};
use crate::events::kind;
use crate::events::row_ops::IRP;

const DOCS: i64 = 100;
const SHAPES: i64 = 200;

fn document() -> String {
    let col = |segcol: i64, name: &str, kind: &str, code: i64, hidden: bool| {
        format!(
            r#"{{"segcol_no": {segcol}, "name": "{name}", "type": "{kind}", "type_code": {code},
                "length": 22, "nullable": true, "hidden": {hidden}}}"#
        )
    };
    let docs = [
        col(1, "ID", "NUMBER", 2, false),
        col(2, "DOC", "XMLTYPE", 58, false),
        col(3, "SYS_NC00003$", "BLOB", 113, true),
        col(4, "NOTE", "VARCHAR2", 1, false),
    ];
    let shapes = [
        col(1, "ID", "NUMBER", 2, false),
        col(2, "GEOM", "SDO_GEOMETRY", 121, false),
        col(3, "SYS_NC00003$", "NUMBER", 2, true),
        col(4, "SYS_NC00004$", "NUMBER", 2, true),
    ];
    let table = |obj: i64, name: &str, cols: &[String]| {
        format!(
            r#"{{"obj": {obj}, "dataobj": {obj}, "owner": "APP", "name": "{name}", "columns": [{}],
                "key": {{"kind": "primary", "columns": ["ID"]}}}}"#,
            cols.join(", ")
        )
    };
    format!(
        r#"{{"format": "redotrail-dictionary", "format_version": 1, "scn": 10, "owners": ["APP"],
             "db_charset": "AL32UTF8", "national_charset": "AL16UTF16",
             "tables": [{}, {}]}}"#,
        table(DOCS, "DOCS", &docs),
        table(SHAPES, "SHAPES", &shapes)
    )
}

fn emitter(options: EmitOptions) -> Emitter {
    Emitter::new(Some(Dictionary::from_json(&document()).unwrap()), options)
}

/// An insert into `obj` at `slot`, the columns of its redo image.
fn insert(obj: i64, slot: i64, columns: &[(i32, Option<&[u8]>)]) -> ChangeEvent {
    let mut e = ChangeEvent {
        kind: kind::CHANGE,
        usn: 1,
        slot: 2,
        sqn: 3,
        obj,
        dataobj: obj,
        redo_op: IRP,
        fb: 0x2C,
        bdba: 0x0040_0100,
        row_slot: slot,
        scn: 90,
        ..Default::default()
    };
    let mut after = Vec::new();
    for (i, value) in columns {
        let span = value.map(|v| e.push_bytes(v));
        after.push((*i, span));
    }
    e.after = after;
    e
}

/// A record as the tests read it: (op, [(column, value)]).
type Record = (String, Vec<(String, Option<String>)>);

/// The records of one committed transaction.
fn emit(e: &mut Emitter, events: Vec<ChangeEvent>) -> Vec<Record> {
    struct Collect(Vec<Record>);
    impl TrailSink for Collect {
        fn push(&mut self, record: &TrailRecord, _: Option<&str>) -> Result<()> {
            let columns = record.columns.iter().map(|(n, v)| (n.to_string(), v.clone())).collect();
            self.0.push((record.op.to_owned(), columns));
            Ok(())
        }
    }
    let mut changes = ChangeBuffer::new(50, 1 << 20, None).unwrap();
    for event in events {
        changes.append(event).unwrap();
    }
    let txn = CommittedTransaction {
        xid: Xid { usn: 1, slot: 2, sqn: 3 },
        commit_scn: 100,
        commit_time: 0,
        thread: 1,
        seq: 3,
        block: 4,
        offset: 16,
        begin_scn: 1,
        changes,
    };
    let mut out = Collect(Vec::new());
    e.emit(&txn, None, &mut out, None).unwrap();
    out.0
}

const ONE: &[u8] = &[0xC1, 0x02];
const TWO: &[u8] = &[0xC1, 0x03];
/// binary XML's in-row LOB locator: never looked at, never rendered
const LOCATOR: &[u8] = &[0x00, 0x54, 0x00, 0x01, 0x02, 0x0C, 0x80, 0x00];

fn docs_row(id: &'static [u8], xml: Option<&'static [u8]>) -> ChangeEvent {
    insert(DOCS, 0, &[(0, Some(id)), (1, None), (2, xml), (3, Some(b"note"))])
}

fn key(table: &str, column: &str, code: i64) -> (String, String, i64) {
    (table.to_owned(), column.to_owned(), code)
}

#[test]
fn a_captured_value_the_decoder_cannot_render_is_counted_never_hex() {
    let mut e = emitter(EmitOptions::default());
    // row 1 carries binary XML (in the hidden BLOB storing DOC); row 2's DOC is NULL
    let records = emit(&mut e, vec![docs_row(ONE, Some(LOCATOR)), docs_row(TWO, None)]);
    assert_eq!(records.len(), 1, "only the row without a DOC value is a record");
    let (op, columns) = &records[0];
    assert_eq!(op, "INSERT");
    assert!(columns.contains(&("ID".into(), Some("2".into()))));
    assert!(columns.contains(&("DOC".into(), None)), "a NULL is a NULL: {columns:?}");
    assert_eq!(e.unrenderable, BTreeMap::from([(key("APP.DOCS", "DOC", 58), 1)]));
    assert_eq!(e.unrenderable_ops, BTreeMap::from([((DOCS, "INSERT"), 1)]));
    // one term of the balance with the OLTP-compressed rows
    assert_eq!(e.unsupported, BTreeMap::from([((DOCS, "INSERT"), 1)]));
    assert_eq!(e.trail_counts, BTreeMap::from([((DOCS, "INSERT"), 1)]));
    assert!(e.unrenderable_out_of_scope.is_empty());
}

#[test]
fn an_object_column_is_found_by_its_own_value_or_its_attributes() {
    let mut e = emitter(EmitOptions::default());
    let own = insert(SHAPES, 0, &[(0, Some(ONE)), (1, Some(&[0x01]))]);
    let attribute = insert(SHAPES, 1, &[(0, Some(TWO)), (1, None), (2, Some(ONE))]);
    assert!(emit(&mut e, vec![own, attribute]).is_empty());
    assert_eq!(e.unrenderable, BTreeMap::from([(key("APP.SHAPES", "GEOM", 121), 2)]));
}

#[test]
fn a_column_left_out_of_the_scope_never_reaches_the_trail_and_is_only_counted() {
    let options = EmitOptions { exclude_columns: ["APP.DOCS.DOC".to_owned()].into(), ..Default::default() };
    let mut e = emitter(options);
    let records = emit(&mut e, vec![docs_row(ONE, Some(LOCATOR)), docs_row(TWO, None)]);
    assert_eq!(records.len(), 2);
    for (_, columns) in &records {
        let names: Vec<&str> = columns.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(names, ["ID", "NOTE"], "DOC and the hidden column storing it are left out");
    }
    assert!(e.unrenderable.is_empty() && e.unsupported.is_empty());
    assert_eq!(e.unrenderable_out_of_scope, BTreeMap::from([(key("APP.DOCS", "DOC", 58), 1)]));
    // the image entries taken out, NULLs included: DOC and its BLOB in both rows
    assert_eq!(e.counters.get("excluded_column_values"), Some(&4));
    assert_eq!(e.scope().0, vec!["-APP.DOCS.DOC".to_owned()]);
}

#[test]
fn outside_the_capture_scope_such_values_are_only_counted() {
    let options = EmitOptions { include_tables: ["APP.SHAPES".to_owned()].into(), ..Default::default() };
    let mut e = emitter(options);
    assert!(emit(&mut e, vec![docs_row(ONE, Some(LOCATOR))]).is_empty());
    assert!(e.unrenderable.is_empty() && e.unsupported.is_empty());
    assert_eq!(e.unrenderable_out_of_scope, BTreeMap::from([(key("APP.DOCS", "DOC", 58), 1)]));
    assert_eq!(e.out_of_scope, BTreeMap::from([((DOCS, "INSERT"), 1)]));
}

#[test]
fn a_key_column_cannot_be_left_out() {
    let excluded = ["APP.DOCS.ID", "APP.DOCS.NOTE", "APP.NONE.ID"].map(String::from);
    let e = emitter(EmitOptions { exclude_columns: excluded.into(), ..Default::default() });
    assert_eq!(e.excluded_keys(), vec!["APP.DOCS.ID".to_owned()]);
    // made anyway (the binding refuses it), the key stays in the records and is counted
    let mut e = e;
    let records = emit(&mut e, vec![docs_row(ONE, None)]);
    let names: Vec<&str> = records[0].1.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(names, ["ID", "DOC", "SYS_NC00003$"]);
    assert_eq!(e.counters.get("excluded_key_columns_kept"), Some(&1));
}

#[test]
fn capture_entries_name_owners_tables_and_columns_left_out() {
    let mut options = EmitOptions::default();
    capture_options(&["APP", " HR.EMP ", "-APP.DOCS.DOC", " - APP.DOCS.NOTE"], &mut options).unwrap();
    assert_eq!(options.include_owners, ["APP".to_owned()].into());
    assert_eq!(options.include_tables, ["HR.EMP".to_owned()].into());
    assert_eq!(options.exclude_columns, ["APP.DOCS.DOC".to_owned(), "APP.DOCS.NOTE".to_owned()].into());
    for bad in ["APP.DOCS.DOC", "-APP.DOCS", "-APP..DOC", "A.B.C.D", "", "-"] {
        let message = capture_options(&[bad], &mut EmitOptions::default()).unwrap_err();
        assert!(message.contains("-OWNER.TABLE.COLUMN"), "{bad}: {message}");
    }
}
