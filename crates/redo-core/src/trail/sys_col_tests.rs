//! Unit tests of the `COL$` rows of the SYS rows layer (`sys.rs`, `sys_apply.rs`): the document of
//! `sys_tests.rs` with the `COL$` layout (object 21 in the cluster `C_OBJ#`, data object 2, segcol#s
//! of 23ai) and `APP.T`'s column row (`ID`), and the column DDL's row changes as Oracle writes them:
//! ADD COLUMN inserts a row, RENAME COLUMN updates `NAME`, DROP COLUMN deletes it.

use serde_json::{json, Value};

use super::*;
use crate::trail::{column_differences, ColumnChanges, ColumnDef, KeyKind};

const COL: i64 = 21;
/// the data object of the cluster `C_OBJ#` (`COL$`'s ROWIDs start `AAAAAC`)
const C_OBJ: i64 = 2;

/// `COL$` as 23ai lays it out (`sys-col` rows of obj 21 in rophy-olr-tests-23ai), the kept columns.
const COL_LAYOUT: [(i64, &str, &str); 13] = [
    (1, "OBJ#", "NUMBER"),
    (2, "COL#", "NUMBER"),
    (3, "SEGCOL#", "NUMBER"),
    (6, "NAME", "VARCHAR2"),
    (7, "TYPE#", "NUMBER"),
    (8, "LENGTH", "NUMBER"),
    (10, "PRECISION#", "NUMBER"),
    (11, "SCALE", "NUMBER"),
    (12, "NULL$", "NUMBER"),
    (15, "INTCOL#", "NUMBER"),
    (16, "PROPERTY", "NUMBER"),
    (17, "CHARSETID", "NUMBER"),
    (18, "CHARSETFORM", "NUMBER"),
];

/// A `COL$` row of the document: (OBJ#, COL#/SEGCOL#/INTCOL#, NAME, TYPE#, LENGTH).
fn col_row(slot: i64, obj: i64, no: i64, name: &str, kind: i64, length: i64) -> Value {
    json!({"rowid": rid(C_OBJ, slot), "OBJ#": obj, "COL#": no, "SEGCOL#": no, "INTCOL#": no,
           "NAME": name, "TYPE#": kind, "LENGTH": length, "PRECISION#": null, "SCALE": null,
           "NULL$": 0, "PROPERTY": 0, "CHARSETID": 0, "CHARSETFORM": 0})
}

/// `sys_tests`' document with the `COL$` layout and `APP.T`'s `ID` column row (slot 0).
fn col_document() -> String {
    let mut doc: Value = serde_json::from_str(&document("BO#", true)).unwrap();
    let layout: Value = serde_json::from_str(&sys_table(COL, C_OBJ, "COL$", &COL_LAYOUT)).unwrap();
    doc["tables"].as_array_mut().unwrap().push(layout);
    doc["sys"]["COL$"] = json!([col_row(0, 100, 1, "ID", 2, 22)]);
    doc.to_string()
}

/// A `COL$` insert at `slot` of the cluster block: the row image by segcol# - 1 (`OBJ#` is the
/// cluster key: in the redo it comes with the supplemental columns, placed at index 0 all the same).
fn col_insert(slot: i64, obj: i64, no: i64, name: &str) -> ChangeEvent {
    change(
        IRP,
        COL,
        C_OBJ,
        slot,
        &[
            (0, Some(num(obj))),
            (1, Some(num(no))),
            (2, Some(num(no))),
            (5, text(name)),
            (6, Some(num(1))),
            (7, Some(num(40))),
            (11, Some(num(0))),
            (14, Some(num(no))),
            (15, Some(num(0))),
            (16, Some(num(873))),
            (17, Some(num(1))),
        ],
    )
}

/// The `COL$` rows of table `obj` valid at `scn`: (COL#, NAME), by COL#.
fn columns_at(e: &Emitter, obj: i64, scn: i64) -> Vec<(i64, String)> {
    let sys = dictionary(e).sys().unwrap();
    let mut out: Vec<(i64, String)> = sys
        .versions(SysTable::Col, obj)
        .filter(|r| r.covers(scn))
        .map(|r| (r.int(col::COL_NO).unwrap(), r.text(col::COL_NAME).unwrap().to_owned()))
        .collect();
    out.sort();
    out
}

fn id_and(name: &str) -> Vec<(i64, String)> {
    vec![(1, "ID".to_owned()), (2, name.to_owned())]
}

#[test]
fn the_document_carries_col_rows_and_round_trips_them() {
    let e = emitter(&col_document(), true);
    assert_eq!(columns_at(&e, 100, 10), vec![(1, "ID".to_owned())]);
    let sys = dictionary(&e).sys().unwrap();
    let row = sys.rows(SysTable::Col).first().unwrap();
    assert_eq!(row.rowid, rid(C_OBJ, 0));
    assert!(row.rowid.starts_with("AAAAAC"), "{}", row.rowid);
    assert_eq!(row.int(col::LENGTH), Some(22));
    assert_eq!(row.int(col::PRECISION), None);
    let text = sys.to_json();
    assert!(text.contains("\"COL$\": [{\"rowid\": "), "{text}");
    assert!(text.contains("\"NAME\": \"ID\", \"TYPE#\": 2, \"LENGTH\": 22, \"PRECISION#\": null"), "{text}");
    let parsed = SysRows::from_json(&text).unwrap();
    assert_eq!(&parsed, sys);
}

#[test]
fn a_document_without_col_rows_loads_with_none() {
    let e = emitter(&document("BO#", true), true);
    let sys = dictionary(&e).sys().unwrap();
    assert!(sys.rows(SysTable::Col).is_empty());
    assert!(sys.to_json().ends_with("\"COL$\": []}"), "{}", sys.to_json()); // no CDEF$ / CCOL$: not followed
}

#[test]
fn add_column_inserts_a_col_row_from_the_commit_scn_on() {
    let mut e = emitter(&col_document(), true);
    assert_eq!(commit(&mut e, 100, vec![col_insert(1, 100, 2, "NOTE")]), 0); // never a record
    assert_eq!(columns_at(&e, 100, 99), vec![(1, "ID".to_owned())]);
    assert_eq!(columns_at(&e, 100, 100), id_and("NOTE"));
    assert_eq!(counter(&e, "dictionary_rows"), 1);
    assert_eq!(e.out_of_scope.get(&(COL, "INSERT")), Some(&1));
    let row = dictionary(&e).sys().unwrap().versions(SysTable::Col, 100).find(|r| r.valid_from_scn == 100);
    let row = row.unwrap();
    assert_eq!(row.rowid, rid(C_OBJ, 1));
    assert_eq!(
        [col::COL_TYPE, col::LENGTH, col::NULLS, col::CHARSET_ID, col::CHARSET_FORM].map(|i| row.int(i)),
        [Some(1), Some(40), Some(0), Some(873), Some(1)]
    );
    assert!(e.ddl_problems.is_empty());
}

#[test]
fn rename_updates_name_and_drop_deletes_the_row() {
    let mut e = emitter(&col_document(), true);
    commit(&mut e, 100, vec![col_insert(1, 100, 2, "NOTE")]);
    // RENAME COLUMN NOTE TO REMARK: NAME (segcol 6) of that ROWID
    commit(&mut e, 150, vec![change(URP, COL, C_OBJ, 1, &[(5, text("REMARK"))])]);
    assert_eq!(columns_at(&e, 100, 149), id_and("NOTE"));
    assert_eq!(columns_at(&e, 100, 150), id_and("REMARK"));
    // DROP COLUMN REMARK: its row goes
    commit(&mut e, 200, vec![change(DRP, COL, C_OBJ, 1, &[])]);
    assert_eq!(columns_at(&e, 100, 199), id_and("REMARK"));
    assert_eq!(columns_at(&e, 100, 200), vec![(1, "ID".to_owned())]);
    assert_eq!(counter(&e, "dictionary_rows"), 3);
    assert!(e.ddl_problems.is_empty());
}

#[test]
fn a_new_table_s_columns_follow_its_obj_row_in_the_same_transaction() {
    let mut e = emitter(&col_document(), true);
    // CREATE TABLE APP.N: the COL$ rows come before the OBJ$ row in this redo, applied after it
    let events = vec![col_insert(2, 300, 1, "K"), obj_insert(21, 300, Some(300), 50, "N", "", 2)];
    commit(&mut e, 100, events);
    assert_eq!(columns_at(&e, 300, 100), vec![(1, "K".to_owned())]);
    assert_eq!(counter(&e, "dictionary_rows"), 2);
}

#[test]
fn col_rows_of_tables_not_followed_are_counted_not_kept() {
    let mut e = emitter(&col_document(), true);
    commit(&mut e, 100, vec![col_insert(3, 400, 1, "X"), change(URP, COL, C_OBJ, 9, &[(5, text("Y"))])]);
    assert_eq!(counter(&e, "dictionary_rows_not_followed"), 2);
    assert!(columns_at(&e, 400, 100).is_empty());
    assert!(e.ddl_problems.is_empty());
}

#[test]
fn a_col_row_that_does_not_read_is_a_problem_naming_the_table() {
    let mut e = emitter(&col_document(), true);
    let mut bad = col_insert(4, 100, 2, "NOTE");
    bad.after.retain(|(i, _)| *i != 2);
    let span = bad.push_bytes(&[0xFF, 0xFF]);
    bad.after.push((2, Some(span))); // SEGCOL#: not a NUMBER
    commit(&mut e, 100, vec![bad]);
    assert_eq!(counter(&e, "dictionary_row_problems"), 1);
    let problem = &e.ddl_problems[0];
    assert_eq!(problem.kind, "sys_rows");
    assert_eq!(problem.obj, Some(100));
    assert!(problem.message.contains("SYS.COL$") && problem.message.contains("APP.T"), "{}", problem.message);
    assert!(
        problem.message.contains("SCN 100") && problem.message.contains("SEGCOL#"),
        "{}",
        problem.message
    );
}

fn app_t_columns(e: &Emitter, scn: i64) -> Vec<ColumnDef> {
    dictionary(e).sys().unwrap().columns_at(100, scn, "AL32UTF8", "AL16UTF16").unwrap().unwrap()
}

#[test]
fn the_columns_from_col_rows_agree_with_the_export_and_follow_the_ddl() {
    let mut e = emitter(&col_document(), true);
    let exported = dictionary(&e).lookup(100, 10).unwrap().columns.clone();
    assert_eq!(app_t_columns(&e, 10), exported);
    assert!(column_differences(&exported, &app_t_columns(&e, 10)).is_empty());
    commit(&mut e, 100, vec![col_insert(1, 100, 2, "NOTE")]);
    let added = app_t_columns(&e, 100);
    assert_eq!(added.len(), 2);
    let note = &added[1];
    assert_eq!((note.segcol_no, &*note.name, note.type_code), (2, "NOTE", 1));
    assert_eq!((note.charset.as_deref(), note.nullable, note.hidden), (Some("AL32UTF8"), true, false));
    // the version the text gave has not changed here (no DDL record): the difference says so
    assert_eq!(column_differences(&exported, &added), vec!["SEGCOL# 2: NOTE only in COL$".to_owned()]);
    // SET UNUSED: PROPERTY gets the unused and hidden bits (and Oracle renames the column)
    commit(
        &mut e,
        150,
        vec![change(URP, COL, C_OBJ, 1, &[(5, text("SYS_C00002_X$")), (15, Some(num(0x8020)))])],
    );
    let unused = app_t_columns(&e, 150);
    assert!(unused[1].hidden && &*unused[1].name == "SYS_C00002_X$");
    assert_eq!(
        column_differences(&added, &unused),
        vec!["SEGCOL# 2 SYS_C00002_X$: name NOTE / SYS_C00002_X$, hidden false / true (DDL text / COL$)"
            .to_owned()]
    );
    // a table without COL$ rows: not described by them
    assert_eq!(dictionary(&e).sys().unwrap().columns_at(200, 150, "A", "B"), Ok(None));
}

#[test]
fn a_virtual_column_has_no_storage_and_a_col_row_without_a_kept_column_is_an_error() {
    let mut doc: Value = serde_json::from_str(&col_document()).unwrap();
    let mut virtual_col = col_row(5, 100, 2, "V", 2, 22);
    virtual_col["SEGCOL#"] = json!(0);
    let mut broken = col_row(6, 100, 3, "B", 2, 22);
    broken["TYPE#"] = Value::Null;
    doc["sys"]["COL$"].as_array_mut().unwrap().push(virtual_col);
    let e = emitter(&doc.to_string(), true);
    assert_eq!(app_t_columns(&e, 10).len(), 1);
    doc["sys"]["COL$"].as_array_mut().unwrap().push(broken);
    let e = emitter(&doc.to_string(), true);
    let err = dictionary(&e).sys().unwrap().columns_at(100, 10, "A", "B").unwrap_err();
    assert!(err.contains("column B of object 100 at SCN 10 has no TYPE#"), "{err}");
}

/// The stored column names of the version `obj` resolves to at `scn`.
fn names_at(e: &Emitter, obj: i64, scn: i64) -> Vec<String> {
    dictionary(e).lookup(obj, scn).unwrap().columns.iter().map(|c| c.name.to_string()).collect()
}

#[test]
fn col_rows_win_over_the_version_they_disagree_with_from_the_commit_on() {
    let mut e = emitter(&col_document(), true);
    assert_eq!(dictionary(&e).versions_from_sys(), 0); // the export's rows and version agree
    commit(&mut e, 100, vec![col_insert(1, 100, 2, "NOTE")]);
    assert_eq!(names_at(&e, 100, 99), ["ID"]);
    assert_eq!(names_at(&e, 100, 100), ["ID", "NOTE"]);
    assert_eq!(names_at(&e, 101, 100), ["ID", "NOTE"]); // its partition resolves to the same
    assert_eq!(dictionary(&e).lookup(100, 100).unwrap().key_columns, ["ID"]);
    assert_eq!(counter(&e, "dictionary_column_disagreements"), 1);
    let said = &e.column_disagreements[0];
    assert_eq!((said.obj, said.scn, said.owner.as_str(), said.table.as_str()), (100, 100, "APP", "T"));
    assert_eq!(said.differences, ["SEGCOL# 2: NOTE only in COL$"]);
    assert_eq!(e.tables_followed, [(100, "1.2.3".to_owned(), 100)]);
    // RENAME COLUMN ID TO PK: the key follows the column by its SEGCOL#
    commit(&mut e, 150, vec![change(URP, COL, C_OBJ, 0, &[(5, text("PK"))])]);
    assert_eq!(names_at(&e, 100, 150), ["PK", "NOTE"]);
    assert_eq!(dictionary(&e).lookup(100, 150).unwrap().key_columns, ["PK"]);
    assert_eq!(names_at(&e, 100, 149), ["ID", "NOTE"]);
    // each commit's disagreement is reported once, at its commit
    assert_eq!(e.column_disagreements.iter().map(|d| d.scn).collect::<Vec<_>>(), [100, 150]);
    // a commit without COL$ changes reports nothing
    commit(&mut e, 200, add_p2());
    assert_eq!(e.column_disagreements.len(), 2);
    assert_eq!(names_at(&e, 102, 200), ["PK", "NOTE"]); // the new partition: the table's columns
}

#[test]
fn a_document_whose_col_rows_disagree_loads_with_theirs_reported_as_loaded() {
    let mut doc: Value = serde_json::from_str(&col_document()).unwrap();
    doc["sys"]["COL$"].as_array_mut().unwrap().push(col_row(1, 100, 2, "NOTE", 1, 40));
    let e = emitter(&doc.to_string(), true);
    assert_eq!(dictionary(&e).versions_from_sys(), 1);
    assert_eq!(names_at(&e, 100, 10), ["ID", "NOTE"]);
    let said = &e.column_disagreements;
    assert_eq!(said.len(), 1);
    assert_eq!(
        (said[0].scn, said[0].differences.as_slice()),
        (10, &["as loaded: SEGCOL# 2: NOTE only in COL$".to_owned()][..])
    );
    assert_eq!(counter(&e, "dictionary_column_disagreements"), 1);
    // a document that agrees: nothing
    assert!(emitter(&col_document(), true).column_disagreements.is_empty());
}

/// A DDL handler that leaves the dictionary as it was and says the text was not understood (as
/// Python's parser does for a statement it does not read).
struct NotUnderstood;

impl DdlHandler for NotUnderstood {
    fn evolve(
        &mut self,
        rc: &RowChange,
        _counters: &mut std::collections::BTreeMap<String, u64>,
        problems: &mut Vec<DdlProblem>,
    ) -> crate::Result<Option<Dictionary>> {
        problems.push(DdlProblem {
            kind: "unsupported".into(),
            scn: rc.scn,
            obj: Some(rc.obj),
            schema: rc.ddl_schema.clone(),
            text: rc.ddl_text.clone(),
            message: "not understood".into(),
        });
        Ok(None)
    }
}

fn ddl_of_t(text: &str) -> ChangeEvent {
    let mut ddl = change(0, 100, 0, 0, &[]);
    (ddl.kind, ddl.ddl_text, ddl.ddl_schema) = (kind::DDL, text.into(), "APP".into());
    ddl
}

#[test]
fn a_ddl_text_not_understood_is_superseded_by_the_col_rows_of_its_transaction() {
    let mut e = emitter(&col_document(), true);
    let events =
        vec![ddl_of_t("ALTER TABLE T ADD (NOTE VARCHAR2(40 CHAR) INVISIBLE)"), col_insert(1, 100, 2, "NOTE")];
    e.emit(&txn(100, events), Some(&mut NotUnderstood), &mut TrailBuilder::new(), None).unwrap();
    assert!(e.ddl_problems.is_empty(), "{:?}", e.ddl_problems);
    assert_eq!(counter(&e, "ddl_text_superseded"), 1);
    assert_eq!(names_at(&e, 100, 100), ["ID", "NOTE"]);
    // a DDL whose transaction changes no COL$ row: its problem stands
    let events = vec![ddl_of_t("ALTER TABLE T ENABLE ROW MOVEMENT")];
    e.emit(&txn(200, events), Some(&mut NotUnderstood), &mut TrailBuilder::new(), None).unwrap();
    assert_eq!(e.ddl_problems.len(), 1);
    assert_eq!(counter(&e, "ddl_text_superseded"), 1);
}

#[test]
fn a_ddl_text_applied_at_its_own_scn_agrees_with_the_col_rows_of_its_commit() {
    let doc = col_document();
    let mut evolved: Value = serde_json::from_str(&doc).unwrap();
    let tables = evolved["tables"].as_array_mut().unwrap();
    let t = tables.iter().position(|t| t["name"] == "T").unwrap();
    let mut added = tables[t].clone();
    tables[t]["valid_to_scn"] = json!(90);
    added["valid_from_scn"] = json!(90);
    let note: Value = serde_json::from_str(&column(2, "NOTE", "VARCHAR2")).unwrap();
    added["columns"].as_array_mut().unwrap().push(note);
    tables.push(added);
    let mut e = emitter(&doc, true);
    let mut handler = Rebuild(evolved.to_string());
    // the DDL record at SCN 90 (its text's version opens there), its COL$ insert at the commit
    let events = vec![ddl_of_t("ALTER TABLE T ADD (NOTE VARCHAR2(40))"), col_insert(1, 100, 2, "NOTE")];
    e.emit(&txn(100, events), Some(&mut handler), &mut TrailBuilder::new(), None).unwrap();
    assert!(e.column_disagreements.is_empty(), "{:?}", e.column_disagreements);
    assert_eq!(dictionary(&e).versions_from_sys(), 0);
    assert_eq!(names_at(&e, 100, 95), ["ID", "NOTE"]);
    assert_eq!(e.tables_followed, [(100, "1.2.3".to_owned(), 100)]);
    assert_eq!(counter(&e, "dictionary_column_disagreements"), 0);
}

fn changes_at(e: &Emitter, obj: i64, scn: i64) -> Option<ColumnChanges> {
    dictionary(e).sys().unwrap().column_changes(obj, scn)
}

#[test]
fn a_commit_s_column_changes_are_read_from_the_col_rows_by_rowid() {
    let mut e = emitter(&col_document(), true);
    commit(&mut e, 100, vec![col_insert(1, 100, 2, "NOTE"), col_insert(2, 100, 3, "GONE")]);
    let added = changes_at(&e, 100, 100).unwrap();
    assert_eq!(added.added, ["NOTE", "GONE"]);
    assert!(added.renamed.is_empty() && added.dropped.is_empty() && added.modified.is_empty());
    assert_eq!(changes_at(&e, 100, 99), None);
    // RENAME NOTE TO REMARK and widen it; DROP COLUMN GONE
    let events = vec![
        change(URP, COL, C_OBJ, 1, &[(5, text("REMARK")), (7, Some(num(80)))]),
        change(DRP, COL, C_OBJ, 2, &[]),
    ];
    commit(&mut e, 150, events);
    let changed = changes_at(&e, 100, 150).unwrap();
    assert_eq!(changed.renamed, [("NOTE".to_owned(), "REMARK".to_owned())]);
    assert_eq!((changed.modified, changed.dropped), (vec!["REMARK".to_owned()], vec!["GONE".to_owned()]));
    // SET UNUSED (REMARK): hidden and renamed by Oracle: gone from the mirror's view
    commit(
        &mut e,
        200,
        vec![change(URP, COL, C_OBJ, 1, &[(5, text("SYS_C00002_X$")), (15, Some(num(0x8020)))])],
    );
    let unused = changes_at(&e, 100, 200).unwrap();
    assert_eq!((unused.dropped, unused.renamed), (vec!["REMARK".to_owned()], vec![]));
}

/// `C_COBJ#`, the cluster of `CDEF$` (object 31) and `CCOL$` (object 32).
const C_COBJ: i64 = 29;
const CDEF: i64 = 31;
const CCOL: i64 = 32;

/// [`col_document`] with the `CDEF$` / `CCOL$` layouts (23ai segcol#s of the kept columns) and
/// `APP.T`'s primary key on `ID` (CON# 500: its CDEF$ row at slot 0, its CCOL$ row at slot 1).
fn key_document() -> String {
    let mut doc: Value = serde_json::from_str(&col_document()).unwrap();
    let n = "NUMBER";
    for (obj, name, layout) in [
        (CDEF, "CDEF$", vec![(1, "OBJ#", n), (2, "CON#", n), (4, "TYPE#", n)]),
        (CCOL, "CCOL$", vec![(1, "OBJ#", n), (2, "CON#", n), (5, "INTCOL#", n)]),
    ] {
        let table: Value = serde_json::from_str(&sys_table(obj, C_COBJ, name, &layout)).unwrap();
        doc["tables"].as_array_mut().unwrap().push(table);
    }
    doc["sys"]["CDEF$"] = json!([{"rowid": rid(C_COBJ, 0), "OBJ#": 100, "CON#": 500, "TYPE#": 2}]);
    doc["sys"]["CCOL$"] = json!([{"rowid": rid(C_COBJ, 1), "OBJ#": 100, "CON#": 500, "INTCOL#": 1}]);
    doc.to_string()
}

fn key_at(e: &Emitter, scn: i64) -> Vec<String> {
    dictionary(e).lookup(100, scn).unwrap().key_columns.clone()
}

#[test]
fn keys_follow_the_cdef_and_ccol_rows() {
    let mut e = emitter(&key_document(), true);
    assert_eq!(dictionary(&e).versions_from_sys(), 0); // the export's key is the rows'
    commit(&mut e, 100, vec![col_insert(2, 100, 2, "NOTE")]);
    assert_eq!(key_at(&e, 100), ["ID"]);
    // ALTER TABLE T DROP PRIMARY KEY: its CDEF$ and CCOL$ rows go; every column is the key
    commit(&mut e, 150, vec![change(DRP, CDEF, C_COBJ, 0, &[]), change(DRP, CCOL, C_COBJ, 1, &[])]);
    assert_eq!(key_at(&e, 150), ["ID", "NOTE"]);
    let last = e.column_disagreements.last().unwrap();
    // the text's version never had NOTE (no DDL record here): that line too
    let said = ["SEGCOL# 2: NOTE only in COL$", "key ID / ID, NOTE (DDL text / CDEF$)"];
    assert_eq!((last.scn, last.differences.clone()), (150, said.map(String::from).to_vec()));
    let found = dictionary(&e).from_sys().find(|v| v.version.covers(150)).unwrap();
    assert_eq!(found.key_kind, Some(KeyKind::All));
    // ALTER TABLE T ADD PRIMARY KEY (NOTE): CON# 501 on INTCOL# 2
    let events = vec![
        change(IRP, CDEF, C_COBJ, 2, &[(0, Some(num(100))), (1, Some(num(501))), (3, Some(num(2)))]),
        change(IRP, CCOL, C_COBJ, 3, &[(0, Some(num(100))), (1, Some(num(501))), (4, Some(num(2)))]),
    ];
    commit(&mut e, 200, events);
    assert_eq!(key_at(&e, 200), ["NOTE"]);
    assert_eq!(key_at(&e, 199), ["ID", "NOTE"]);
    assert_eq!(counter(&e, "dictionary_row_problems"), 0);
    assert_eq!(e.tables_followed.iter().map(|f| f.2).collect::<Vec<_>>(), [100, 150, 200]);
}

#[test]
fn a_table_only_the_sys_rows_know_gets_its_version_from_them() {
    let mut e = emitter(&key_document(), true);
    assert!(dictionary(&e).lookup(300, 100).is_none());
    // CREATE TABLE APP.N (K NUMBER PRIMARY KEY, V VARCHAR2(40)) whose text was not applied: its OBJ$,
    // COL$, CDEF$ and CCOL$ rows
    let mut v = col_insert(3, 300, 2, "V");
    v.obj = COL;
    let events = vec![
        obj_insert(21, 300, Some(300), 50, "N", "", 2),
        col_insert(2, 300, 1, "K"),
        v,
        change(IRP, CDEF, C_COBJ, 4, &[(0, Some(num(300))), (1, Some(num(502))), (3, Some(num(2)))]),
        change(IRP, CCOL, C_COBJ, 5, &[(0, Some(num(300))), (1, Some(num(502))), (4, Some(num(1)))]),
    ];
    commit(&mut e, 100, events);
    let version = dictionary(&e).lookup(300, 100).unwrap();
    assert_eq!((version.owner.as_str(), version.name.as_str(), version.dataobj), ("APP", "N", Some(300)));
    assert_eq!(names_at(&e, 300, 100), ["K", "V"]);
    assert_eq!(version.key_columns, ["K"]);
    assert!(dictionary(&e).lookup(300, 99).is_none());
    let said = e.column_disagreements.iter().find(|d| d.obj == 300).unwrap();
    assert_eq!((said.scn, said.table.as_str()), (100, "N"));
    assert!(
        said.differences[0].starts_with("only in the SYS rows: 2 columns, key K (primary)"),
        "{:?}",
        said
    );
    // DROP TABLE N (recycle bin): its OBJ$ row renamed, FLAGS 128: no version from then on
    let events = vec![change(URP, OBJ, OBJ, 21, &[(3, text("BIN$x$0")), (13, Some(num(128)))])];
    commit(&mut e, 200, events);
    assert!(dictionary(&e).lookup(300, 200).is_none());
    assert_eq!(names_at(&e, 300, 199), ["K", "V"]);
}

#[test]
fn a_table_renamed_in_its_obj_row_takes_the_new_name() {
    let mut e = emitter(&key_document(), true);
    // RENAME T TO T2 whose text was not applied: its OBJ$ row's NAME (slot 0)
    commit(&mut e, 100, vec![change(URP, OBJ, OBJ, 0, &[(3, text("T2"))])]);
    assert_eq!(table_at(&e, 100, 100).as_deref(), Some("APP.T2"));
    assert_eq!(table_at(&e, 101, 100).as_deref(), Some("APP.T2")); // its partition too
    assert_eq!(table_at(&e, 100, 99).as_deref(), Some("APP.T"));
    let said = &e.column_disagreements;
    assert_eq!(said.len(), 1);
    assert_eq!(
        (said[0].scn, said[0].differences.as_slice()),
        (100, &["name APP.T / APP.T2 (DDL text / OBJ$)".to_owned()][..])
    );
    assert_eq!(dictionary(&e).versions_from_sys(), 1);
}

#[test]
fn with_the_tables_followed_no_ddl_text_is_applied() {
    // COL$ and CDEF$ rows of APP.T: the rows follow the tables, the handler is never asked
    let mut e = emitter(&key_document(), true);
    assert!(dictionary(&e).follows_tables());
    assert!(!emitter(&col_document(), true).dictionary().unwrap().follows_tables());
    let events =
        vec![ddl_of_t("ALTER TABLE T ADD (NOTE VARCHAR2(40)) /* unread */"), col_insert(2, 100, 2, "NOTE")];
    e.emit(&txn(100, events), Some(&mut NotUnderstood), &mut TrailBuilder::new(), None).unwrap();
    assert!(e.ddl_problems.is_empty(), "{:?}", e.ddl_problems);
    assert_eq!((counter(&e, "ddl_from_sys_rows"), counter(&e, "ddl_alter")), (1, 1));
    assert_eq!(names_at(&e, 100, 100), ["ID", "NOTE"]);
    assert!(e.column_disagreements.is_empty()); // no text applied: nothing to disagree with
    let partition = ddl_of_t("ALTER TABLE T DROP PARTITION FOR (10)");
    e.emit(&txn(200, vec![partition]), Some(&mut NotUnderstood), &mut TrailBuilder::new(), None).unwrap();
    assert_eq!(counter(&e, "ddl_partition"), 1);
}
