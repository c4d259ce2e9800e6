//! Unit tests of `sys.rs` and `sys_apply.rs`: SYS row changes in committed transactions through the
//! emitter, against a small document of a partitioned table (`APP.T`, obj 100, partition 101) and a
//! composite one (`APP.C`, obj 200, composite partition 201, subpartition 202), the SYS layouts as
//! SYS-owned tables (segcol#s of 23ai), and their `sys` rows.

use serde_json::Value;

use super::*;
use crate::assembly::{ChangeBuffer, ChangeEvent, CommittedTransaction, TableOptions, TransactionTable, Xid};
use crate::events::kind;
use crate::events::row_ops::{DRP, IRP, URP};
use crate::trail::emit::rowid;
use crate::trail::{DdlHandler, DdlProblem, Dictionary, EmitOptions, Emitter, RowChange, TrailBuilder};
use crate::values::number::render_number;

const OBJ: i64 = 18;
const TABPART: i64 = 947;
const TABCOMPART: i64 = 969;
const TABSUBPART: i64 = 959;
const USER: i64 = 22;
/// the block every SYS table's rows are in, here
const BDBA: i64 = 0x0040_0100;

fn rid(dataobj: i64, slot: i64) -> String {
    rowid(dataobj, BDBA, slot).unwrap()
}

/// A positive integer (or 0) as Oracle NUMBER bytes (the test's own encoder; checked below).
fn num(v: i64) -> Vec<u8> {
    if v == 0 {
        return vec![0x80];
    }
    let mut digits = Vec::new();
    let mut x = v;
    while x > 0 {
        digits.push((x % 100) as u8);
        x /= 100;
    }
    digits.reverse();
    let exponent = digits.len() as u8;
    while digits.last() == Some(&0) {
        digits.pop();
    }
    let mut out = vec![0xC0 + exponent];
    out.extend(digits.iter().map(|d| d + 1));
    out
}

fn column(segcol: i64, name: &str, kind: &str) -> String {
    let charset = if kind == "VARCHAR2" { ", \"charset\": \"CHAR_CS\"" } else { "" };
    format!(
        r#"{{"segcol_no": {segcol}, "name": "{name}", "type": "{kind}", "length": 22, "nullable": true{charset}}}"#
    )
}

fn sys_table(obj: i64, dataobj: i64, name: &str, columns: &[(i64, &str, &str)]) -> String {
    let cols: Vec<String> = columns.iter().map(|(s, n, k)| column(*s, n, k)).collect();
    format!(
        r#"{{"obj": {obj}, "dataobj": {dataobj}, "owner": "SYS", "name": "{name}", "columns": [{}]}}"#,
        cols.join(", ")
    )
}

/// The document: `bo` is the name of TABPART$'s third column (`BO#`, or not, to take it away);
/// `sys` false leaves the member out.
fn document(bo: &str, sys: bool) -> String {
    let n = "NUMBER";
    let layouts = [
        sys_table(
            OBJ,
            OBJ,
            "OBJ$",
            &[
                (1, "OBJ#", n),
                (2, "DATAOBJ#", n),
                (3, "OWNER#", n),
                (4, "NAME", "VARCHAR2"),
                (5, "NAMESPACE", n),
                (6, "SUBNAME", "VARCHAR2"),
                (7, "TYPE#", n),
                (8, "CTIME", "DATE"),
                (14, "FLAGS", n),
            ],
        ),
        sys_table(
            TABPART,
            TABPART,
            "TABPART$",
            &[(1, "OBJ#", n), (2, "DATAOBJ#", n), (3, bo, n), (4, "PART#", n)],
        ),
        sys_table(
            TABCOMPART,
            TABCOMPART,
            "TABCOMPART$",
            &[(1, "OBJ#", n), (2, "DATAOBJ#", n), (3, "BO#", n), (4, "PART#", n)],
        ),
        sys_table(
            TABSUBPART,
            TABSUBPART,
            "TABSUBPART$",
            &[(1, "OBJ#", n), (2, "DATAOBJ#", n), (3, "POBJ#", n), (4, "SUBPART#", n)],
        ),
        sys_table(USER, 10, "USER$", &[(1, "USER#", n), (2, "NAME", "VARCHAR2")]),
    ];
    let id = column(1, "ID", "NUMBER");
    let row = |rowid: String, cols: &str| format!(r#"{{"rowid": "{rowid}", {cols}}}"#);
    let obj = |slot: i64, cols: &str| row(rid(OBJ, slot), cols);
    let member = format!(
        r#", "sys": {{
 "USER$": [{}],
 "OBJ$": [{}, {}, {}, {}, {}],
 "TABPART$": [{}],
 "TABCOMPART$": [{}],
 "TABSUBPART$": [{}]}}"#,
        row(rid(10, 0), r#""USER#": 50, "NAME": "APP""#),
        obj(
            0,
            r#""OBJ#": 100, "DATAOBJ#": null, "OWNER#": 50, "NAME": "T", "SUBNAME": null, "TYPE#": 2, "FLAGS": 0"#
        ),
        obj(
            1,
            r#""OBJ#": 101, "DATAOBJ#": 101, "OWNER#": 50, "NAME": "T", "SUBNAME": "P1", "TYPE#": 19, "FLAGS": 0"#
        ),
        obj(
            2,
            r#""OBJ#": 200, "DATAOBJ#": null, "OWNER#": 50, "NAME": "C", "SUBNAME": null, "TYPE#": 2, "FLAGS": 0"#
        ),
        obj(
            3,
            r#""OBJ#": 201, "DATAOBJ#": null, "OWNER#": 50, "NAME": "C", "SUBNAME": "CP1", "TYPE#": 19, "FLAGS": 0"#
        ),
        obj(
            4,
            r#""OBJ#": 202, "DATAOBJ#": 202, "OWNER#": 50, "NAME": "C", "SUBNAME": "SP1", "TYPE#": 34, "FLAGS": 0"#
        ),
        row(rid(TABPART, 0), r#""OBJ#": 101, "DATAOBJ#": 101, "BO#": 100, "PART#": 10"#),
        row(rid(TABCOMPART, 0), r#""OBJ#": 201, "DATAOBJ#": null, "BO#": 200, "PART#": 10"#),
        row(rid(TABSUBPART, 0), r#""OBJ#": 202, "DATAOBJ#": 202, "POBJ#": 201, "SUBPART#": 10"#),
    );
    format!(
        r#"{{"format": "redotrail-dictionary", "format_version": 1, "scn": 10, "max_object_id": 300,
 "owners": ["APP"], "db_charset": "AL32UTF8", "national_charset": "AL16UTF16", "tables": [{},
 {{"obj": 100, "dataobj": null, "owner": "APP", "name": "T", "columns": [{id}],
  "key": {{"kind": "primary", "columns": ["ID"]}}, "partitions": [{{"obj": 101, "dataobj": 101}}]}},
 {{"obj": 200, "dataobj": null, "owner": "APP", "name": "C", "columns": [{id}],
  "key": {{"kind": "primary", "columns": ["ID"]}}, "partitions": [{{"obj": 202, "dataobj": 202}}]}}]{}}}"#,
        layouts.join(",\n "),
        if sys { member } else { String::new() }
    )
}

fn emitter(doc: &str, apply_ddl: bool) -> Emitter {
    Emitter::new(Some(Dictionary::from_json(doc).unwrap()), EmitOptions { apply_ddl, ..Default::default() })
}

fn dictionary(e: &Emitter) -> &Dictionary {
    e.dictionary().unwrap()
}

/// One row change event of transaction 1.2.3: `op` on `obj` (its data object `dataobj`) at `slot`
/// of [`BDBA`], the columns in the redo (after) image.
fn change(op: i64, obj: i64, dataobj: i64, slot: i64, columns: &[(i32, Option<Vec<u8>>)]) -> ChangeEvent {
    let mut e = ChangeEvent {
        kind: kind::CHANGE,
        usn: 1,
        slot: 2,
        sqn: 3,
        obj,
        dataobj,
        redo_op: op,
        fb: 0x2C,
        bdba: BDBA,
        row_slot: slot,
        scn: 90,
        ..Default::default()
    };
    let mut after = Vec::new();
    for (i, value) in columns {
        let span = value.as_ref().map(|v| e.push_bytes(v));
        after.push((*i, span));
    }
    e.after = after;
    e
}

fn text(s: &str) -> Option<Vec<u8>> {
    Some(s.as_bytes().to_vec())
}

/// An `OBJ$` insert at `slot`: OBJ#, DATAOBJ#, OWNER#, NAME, SUBNAME, TYPE# (NAMESPACE 1, FLAGS 0).
fn obj_insert(
    slot: i64,
    obj: i64,
    dataobj: Option<i64>,
    owner: i64,
    name: &str,
    sub: &str,
    t: i64,
) -> ChangeEvent {
    change(
        IRP,
        OBJ,
        OBJ,
        slot,
        &[
            (0, Some(num(obj))),
            (1, dataobj.map(num)),
            (2, Some(num(owner))),
            (3, text(name)),
            (4, Some(num(1))),
            (5, text(sub)),
            (6, Some(num(t))),
            (13, Some(num(0))),
        ],
    )
}

/// A `TABPART$`-shaped insert (OBJ#, DATAOBJ#, BO# / POBJ#, PART#) into `table`.
fn part_insert(table: i64, slot: i64, obj: i64, dataobj: Option<i64>, parent: i64) -> ChangeEvent {
    change(
        IRP,
        table,
        table,
        slot,
        &[(0, Some(num(obj))), (1, dataobj.map(num)), (2, Some(num(parent))), (3, Some(num(20)))],
    )
}

fn txn(scn: i64, events: Vec<ChangeEvent>) -> CommittedTransaction {
    let mut changes = ChangeBuffer::new(50, 1 << 20, None).unwrap();
    for e in events {
        changes.append(e).unwrap();
    }
    CommittedTransaction {
        xid: Xid { usn: 1, slot: 2, sqn: 3 },
        commit_scn: scn,
        commit_time: 0,
        thread: 1,
        seq: 3,
        block: 4,
        offset: 16,
        begin_scn: 1,
        changes,
    }
}

/// Emit one committed transaction; its record count.
fn commit(e: &mut Emitter, scn: i64, events: Vec<ChangeEvent>) -> usize {
    e.emit(&txn(scn, events), None, &mut TrailBuilder::new(), None).unwrap()
}

fn counter(e: &Emitter, name: &str) -> u64 {
    e.counters.get(name).copied().unwrap_or(0)
}

fn table_at(e: &Emitter, obj: i64, scn: i64) -> Option<String> {
    dictionary(e).lookup(obj, scn).map(|v| format!("{}.{}", v.owner, v.name))
}

/// The new partition P2 (obj 102) of APP.T: its OBJ$ (slot 20) and TABPART$ (slot 20) rows.
fn add_p2() -> Vec<ChangeEvent> {
    vec![obj_insert(20, 102, Some(102), 50, "T", "P2", 19), part_insert(TABPART, 20, 102, Some(102), 100)]
}

#[test]
fn the_test_numbers_are_oracle_numbers() {
    for v in [0, 1, 19, 100, 101, 947, 73_877, 1_000_000] {
        let mut out = String::new();
        render_number(&num(v), &mut out).unwrap();
        assert_eq!(out, v.to_string());
    }
}

#[test]
fn a_partition_inserted_resolves_to_its_table_from_the_commit_scn_on() {
    let mut e = emitter(&document("BO#", true), true);
    assert_eq!(table_at(&e, 102, 100), None);
    assert!(!dictionary(&e).knows(102));
    assert_eq!(commit(&mut e, 100, add_p2()), 0); // never a record
    assert_eq!(table_at(&e, 102, 99), None);
    assert_eq!(table_at(&e, 102, 100).as_deref(), Some("APP.T"));
    assert_eq!(table_at(&e, 102, 5_000).as_deref(), Some("APP.T"));
    assert!(dictionary(&e).knows(102));
    assert_eq!((counter(&e, "dictionary_rows"), counter(&e, "dictionary_row_changes")), (2, 2));
    assert_eq!(counter(&e, "dictionary_rows_not_followed"), 0);
    // counted out of scope as before: the reconciliation balances
    assert_eq!(e.out_of_scope.get(&(OBJ, "INSERT")), Some(&1));
    assert_eq!(e.out_of_scope.get(&(TABPART, "INSERT")), Some(&1));
    assert!(e.ddl_problems.is_empty());
    // a row of the new partition is a record of its table
    let mut row = change(IRP, 102, 102, 0, &[(0, Some(num(7)))]);
    row.scn = 101;
    assert_eq!(commit(&mut e, 102, vec![row]), 1);
    assert_eq!(e.emitted().get(&("APP.T".to_string(), "INSERT")), Some(&1));
}

#[test]
fn rolled_back_and_uncommitted_changes_change_nothing() {
    let doc = document("BO#", true);
    let mut e = emitter(&doc, true);
    let before = dictionary(&e).sys().cloned();
    let mut table = TransactionTable::new(TableOptions::default()).unwrap();
    let control = |k: i64, redo_op: i64, obj: i64| ChangeEvent {
        kind: k,
        usn: 1,
        slot: 2,
        sqn: 3,
        obj,
        redo_op,
        scn: 100,
        ..Default::default()
    };
    // rolled back, and begun but never committed: the emitter is given nothing
    for events in [
        [vec![control(kind::BEGIN, 0, 0)], add_p2(), vec![control(kind::ROLLBACK, 0, 0)]].concat(),
        [vec![control(kind::BEGIN, 0, 0)], add_p2()].concat(),
    ] {
        for event in events {
            assert!(table.feed(event).unwrap().is_none());
        }
    }
    assert_eq!(dictionary(&e).sys().cloned(), before);
    // the TABPART$ insert rolled back to a savepoint: the OBJ$ row alone does not resolve
    let mut table = TransactionTable::new(TableOptions::default()).unwrap();
    let events = [
        vec![control(kind::BEGIN, 0, 0)],
        add_p2(),
        vec![control(kind::PARTIAL_ROLLBACK, DRP, TABPART), control(kind::COMMIT, 0, 0)],
    ];
    let mut committed = None;
    for event in events.concat() {
        committed = table.feed(event).unwrap().or(committed);
    }
    let committed = committed.unwrap();
    e.emit(&committed, None, &mut TrailBuilder::new(), None).unwrap();
    assert_eq!(counter(&e, "dictionary_rows"), 1);
    assert_eq!(table_at(&e, 102, 100), None);
    // an insert and its compensating delete inside one transaction: the row never was
    let mut e = emitter(&doc, true);
    let undo = change(DRP, TABPART, TABPART, 20, &[]);
    assert_eq!(commit(&mut e, 100, [add_p2(), vec![undo]].concat()), 0);
    assert_eq!(counter(&e, "dictionary_rows"), 3);
    assert_eq!(table_at(&e, 102, 100), None);
    assert_eq!(
        dictionary(&e).sys().unwrap().rows(SysTable::TabPart),
        before.unwrap().rows(SysTable::TabPart)
    );
}

#[test]
fn a_dataobj_update_by_rowid_moves_the_data_object_from_the_commit_scn_on() {
    let mut e = emitter(&document("BO#", true), true);
    assert_eq!(table_at(&e, 150, 100), None);
    // TRUNCATE PARTITION P1: OBJ$ row at slot 1 gets DATAOBJ# 150 (and an MTIME-like column 8)
    let update = change(URP, OBJ, OBJ, 1, &[(1, Some(num(150))), (7, Some(vec![0x78, 0x7C, 1, 1, 1, 1, 1]))]);
    assert_eq!(commit(&mut e, 100, vec![update]), 0);
    assert_eq!(counter(&e, "dictionary_rows"), 1);
    assert_eq!(table_at(&e, 150, 99), None);
    assert_eq!(table_at(&e, 150, 100).as_deref(), Some("APP.T"));
    assert_eq!(table_at(&e, 101, 100).as_deref(), Some("APP.T")); // its OBJ# stays
    let sys = dictionary(&e).sys().unwrap();
    let p1: Vec<&SysRow> = sys.rows(SysTable::Obj).iter().filter(|r| r.int(col::KEY) == Some(101)).collect();
    assert_eq!(p1.len(), 2);
    assert_eq!(
        (p1[0].valid_from_scn, p1[0].valid_to_scn, p1[0].int(col::DATAOBJ)),
        (10, Some(100), Some(101))
    );
    assert_eq!((p1[1].valid_from_scn, p1[1].valid_to_scn, p1[1].int(col::DATAOBJ)), (100, None, Some(150)));
    // the columns not in the image stay
    assert_eq!(p1[1].text(col::SUBNAME), Some("P1"));
    // a direct-path row names only the new data object: its table's record
    let mut direct = change(IRP, 0, 150, 3, &[(0, Some(num(8)))]);
    direct.scn = 120;
    assert_eq!(commit(&mut e, 121, vec![direct]), 1);
    // an update that changes no kept column leaves the row as it is
    let touch = change(URP, OBJ, OBJ, 1, &[(7, Some(vec![0x78, 0x7C, 1, 1, 1, 1, 2]))]);
    commit(&mut e, 130, vec![touch]);
    assert_eq!(dictionary(&e).sys().unwrap().rows(SysTable::Obj).len(), 6);
    assert_eq!(counter(&e, "dictionary_rows"), 2);
}

#[test]
fn a_delete_closes_the_partition() {
    let mut e = emitter(&document("BO#", true), true);
    commit(&mut e, 100, add_p2());
    let drop = vec![change(DRP, OBJ, OBJ, 20, &[]), change(DRP, TABPART, TABPART, 20, &[])];
    commit(&mut e, 200, drop);
    assert_eq!(counter(&e, "dictionary_rows"), 4);
    assert_eq!(table_at(&e, 102, 199).as_deref(), Some("APP.T"));
    assert_eq!(table_at(&e, 102, 200), None);
    // it was a partition of a known table: a later change to it is out of scope, not unknown
    let mut late = change(IRP, 102, 102, 0, &[(0, Some(num(9)))]);
    late.scn = 250;
    assert_eq!(commit(&mut e, 251, vec![late]), 0);
    assert_eq!(e.out_of_scope.get(&(102, "INSERT")), Some(&1));
    assert!(e.unknown_in_scope.is_empty());
}

#[test]
fn a_subpartition_resolves_through_its_composite_partition() {
    let mut e = emitter(&document("BO#", true), true);
    assert_eq!(table_at(&e, 202, 50).as_deref(), Some("APP.C"));
    // children first in the redo: applied parents first
    let events = vec![
        part_insert(TABSUBPART, 21, 204, Some(204), 203),
        part_insert(TABCOMPART, 21, 203, None, 200),
        obj_insert(21, 203, None, 50, "C", "CP2", 19),
        obj_insert(22, 204, Some(204), 50, "C", "SP2", 34),
    ];
    commit(&mut e, 100, events);
    assert_eq!(counter(&e, "dictionary_rows"), 4);
    assert_eq!(table_at(&e, 204, 99), None);
    assert_eq!(table_at(&e, 204, 100).as_deref(), Some("APP.C"));
    assert_eq!(table_at(&e, 203, 100).as_deref(), Some("APP.C"));
}

#[test]
fn changes_to_rows_not_followed_are_counted_not_kept() {
    let mut e = emitter(&document("BO#", true), true);
    let before = dictionary(&e).sys().cloned();
    let events = vec![
        obj_insert(30, 400, Some(400), 60, "X", "", 2), // owner 60 is not followed
        part_insert(TABPART, 30, 401, Some(401), 400),  // nor is table 400
        change(URP, OBJ, OBJ, 40, &[(1, Some(num(5)))]), // no followed row at this ROWID
        change(IRP, USER, 10, 9, &[(0, Some(num(61))), (1, text("NEW"))]),
    ];
    commit(&mut e, 100, events);
    assert_eq!(counter(&e, "dictionary_rows_not_followed"), 4);
    assert_eq!(counter(&e, "dictionary_rows"), 0);
    assert_eq!(dictionary(&e).sys().cloned(), before);
    assert!(e.ddl_problems.is_empty());
}

#[test]
fn to_json_round_trips() {
    let mut e = emitter(&document("BO#", true), true);
    let parse =
        |text: &str| SysRows::from_member(&serde_json::from_str::<Value>(text).unwrap(), "$.sys", None);
    let original = dictionary(&e).sys().unwrap().clone();
    assert_eq!(parse(&original.to_json()).unwrap(), original);
    commit(&mut e, 100, add_p2());
    commit(&mut e, 150, vec![change(URP, OBJ, OBJ, 1, &[(1, Some(num(150))), (5, None)])]);
    commit(&mut e, 200, vec![change(DRP, OBJ, OBJ, 20, &[])]);
    let sys = dictionary(&e).sys().unwrap();
    let text = sys.to_json();
    assert_ne!(*sys, original);
    assert_eq!(parse(&text).unwrap(), *sys);
    assert_eq!(sys.to_json(), text);
    assert!(text.starts_with("{\"OBJ$\": [{\"rowid\": \""), "{text}");
    assert!(
        text.contains("\"valid_from_scn\": 150, \"valid_to_scn\": null, \"OBJ#\": 101, \"DATAOBJ#\": 150")
    );
    assert!(text.contains("\"SUBNAME\": null, \"TYPE#\": 19"));
    // and inside a whole document
    let doc =
        document("BO#", false).trim_end().trim_end_matches('}').to_owned() + ", \"sys\": " + &text + "}";
    assert_eq!(Dictionary::from_json(&doc).unwrap().sys(), Some(sys));
}

#[test]
fn a_layout_without_a_column_is_a_problem_not_a_panic() {
    let mut e = emitter(&document("BOX#", true), true);
    commit(&mut e, 100, add_p2());
    assert_eq!(counter(&e, "dictionary_rows"), 1); // the OBJ$ row
    assert_eq!(counter(&e, "dictionary_row_problems"), 1);
    let p = &e.ddl_problems[0];
    assert_eq!((p.kind.as_str(), p.scn), ("sys_rows", 100));
    assert!(p.message.contains("SYS.TABPART$") && p.message.contains("has no column BO#"), "{p:?}");
    assert!(p.text.starts_with("INSERT SYS.TABPART$ ROWID"), "{p:?}");
    // its table named through the partition's own OBJ$ row, applied before it
    assert!(p.message.contains("of APP.T at SCN 100"), "{p:?}");
    assert_eq!((p.obj, p.schema.as_str()), (Some(102), "APP"));
    // an update of a followed row names its table
    commit(&mut e, 110, vec![change(URP, TABPART, TABPART, 0, &[(3, Some(num(11)))])]);
    let p = &e.ddl_problems[1];
    assert!(p.message.contains("of APP.T at SCN 110") && p.message.contains("no column BO#"), "{p:?}");
    assert_eq!((p.obj, p.schema.as_str()), (Some(100), "APP"));
}

#[test]
fn garbage_in_a_followed_column_is_a_problem() {
    let mut e = emitter(&document("BO#", true), true);
    let before = dictionary(&e).sys().cloned();
    let mut bad_name = obj_insert(20, 102, Some(102), 50, "T", "P2", 19);
    let name = bad_name.push_bytes(&[0xFF, 0xFE]);
    bad_name.after[3].1 = Some(name);
    let mut bad_type = obj_insert(21, 103, Some(103), 50, "T", "P3", 19);
    let bytes = [0xC1, 0x02, 0x66, 0x00, 0xFF];
    assert!(render_number(&bytes, &mut String::new()).is_err());
    let t = bad_type.push_bytes(&bytes);
    bad_type.after[6].1 = Some(t);
    let mut big = obj_insert(22, 104, Some(104), 50, "T", "P4", 19);
    let b = big.push_bytes(&[0xCB, 2]); // 10^20: not a 64-bit integer
    big.after[0].1 = Some(b);
    // garbage in a row not followed is nobody's business
    let mut other = obj_insert(23, 105, Some(105), 60, "X", "", 2);
    let n = other.push_bytes(&[0xFF]);
    other.after[3].1 = Some(n);
    commit(&mut e, 100, vec![bad_name, bad_type, big, other]);
    assert_eq!(counter(&e, "dictionary_row_problems"), 3);
    assert_eq!(counter(&e, "dictionary_rows_not_followed"), 1);
    assert_eq!(dictionary(&e).sys().cloned(), before);
    let messages: Vec<&str> = e.ddl_problems.iter().map(|p| p.message.as_str()).collect();
    assert!(messages[0].contains("column NAME") && messages[0].contains("SYS.OBJ$"), "{messages:?}");
    assert!(messages[1].contains("column TYPE#") && messages[1].contains("of APP.T"), "{messages:?}");
    assert!(messages[2].contains("not a 64-bit integer"), "{messages:?}");
}

#[test]
fn without_apply_ddl_they_are_only_counted() {
    let mut e = emitter(&document("BO#", true), false);
    assert_eq!(commit(&mut e, 100, add_p2()), 0);
    assert_eq!(counter(&e, "dictionary_row_changes"), 2);
    assert_eq!(counter(&e, "dictionary_rows") + counter(&e, "dictionary_rows_not_followed"), 0);
    assert_eq!(table_at(&e, 102, 100), None);
}

#[test]
fn without_a_sys_member_sys_changes_are_out_of_scope_as_ever() {
    let mut e = emitter(&document("BO#", false), true);
    assert!(dictionary(&e).sys().is_none());
    assert_eq!(commit(&mut e, 100, add_p2()), 0);
    assert_eq!(table_at(&e, 102, 100), None);
    assert_eq!(counter(&e, "filtered_changes"), 2);
    assert!(e.counters.keys().all(|k| !k.starts_with("dictionary_")), "{:?}", e.counters);
    // and SYS in the capture scope: emitted, as ever
    let options = EmitOptions { exclude_owners: Default::default(), ..Default::default() };
    let mut e = Emitter::new(Some(Dictionary::from_json(&document("BO#", false)).unwrap()), options);
    assert_eq!(commit(&mut e, 100, add_p2()), 2);
    // with the member, never
    let options = EmitOptions { exclude_owners: Default::default(), ..Default::default() };
    let mut e = Emitter::new(Some(Dictionary::from_json(&document("BO#", true)).unwrap()), options);
    assert_eq!(commit(&mut e, 100, add_p2()), 0);
    assert_eq!(counter(&e, "dictionary_rows"), 2);
}

/// A DDL handler that rebuilds the dictionary from the document (as the binding does from
/// Python's JSON, whose `sys` is the export's).
struct Rebuild(String);

impl DdlHandler for Rebuild {
    fn evolve(
        &mut self,
        _rc: &RowChange,
        _counters: &mut std::collections::BTreeMap<String, u64>,
        _problems: &mut Vec<DdlProblem>,
    ) -> crate::Result<Option<Dictionary>> {
        Dictionary::from_json(&self.0).map(Some)
    }
}

#[test]
fn a_dictionary_a_ddl_leaves_keeps_the_sys_rows_followed() {
    let doc = document("BO#", true);
    let mut e = emitter(&doc, true);
    commit(&mut e, 100, add_p2());
    let followed = dictionary(&e).sys().cloned();
    let mut ddl = change(0, 100, 0, 0, &[]);
    (ddl.kind, ddl.ddl_text, ddl.ddl_schema) =
        (kind::DDL, "ALTER TABLE T ADD (X NUMBER)".into(), "APP".into());
    let mut handler = Rebuild(doc);
    e.emit(&txn(110, vec![ddl]), Some(&mut handler), &mut TrailBuilder::new(), None).unwrap();
    assert_eq!(counter(&e, "ddl"), 1);
    assert_eq!(dictionary(&e).sys().cloned(), followed);
    assert_eq!(table_at(&e, 102, 120).as_deref(), Some("APP.T"));
}

#[test]
fn malformed_sys_members_name_their_json_path() {
    let doc = document("BO#", true);
    let path = |text: &str| {
        let e = Dictionary::from_json(text).unwrap_err();
        assert_eq!(e.kind(), "dictionary");
        e.info().details.iter().find(|(k, _)| *k == "json_path").map(|(_, v)| format!("{v:?}"))
    };
    let bad = doc.replacen("\"OWNER#\": 50", "\"OWNER#\": \"50\"", 1);
    assert_eq!(path(&bad).as_deref(), Some("Text(\"$.sys.OBJ$[0].OWNER#\")"));
    let bad = doc.replacen(", \"FLAGS\": 0", "", 1);
    assert_eq!(path(&bad).as_deref(), Some("Text(\"$.sys.OBJ$[0].FLAGS\")"));
    let bad = doc.replacen("\"NAME\": \"APP\"", "\"NAME\": 5", 1);
    assert_eq!(path(&bad).as_deref(), Some("Text(\"$.sys.USER$[0].NAME\")"));
    let bad = doc.replacen("\"USER#\": 50,", "\"USER#\": 50, \"valid_from_scn\": 9, \"valid_to_scn\": 9,", 1);
    assert_eq!(path(&bad).as_deref(), Some("Text(\"$.sys.USER$[0].valid_to_scn\")"));
    let bad = doc.replacen(&rid(OBJ, 1), &rid(OBJ, 0), 1);
    assert_eq!(path(&bad).as_deref(), Some("Text(\"$.sys.OBJ$[1].rowid\")"));
    assert_eq!(
        path(&doc.replacen("\"sys\": {", "\"sys\": [{", 1).replacen("}]}}", "}]}]}", 1)),
        Some("Text(\"$.sys\")".into())
    );
}

#[test]
fn a_direct_path_row_names_the_partition_whose_data_object_it_wrote_and_new_partitions_have_their_table_name()
{
    let mut e = emitter(&document("BO#", true), true);
    assert_eq!(e.table_name(102), "OBJ_102");
    commit(&mut e, 100, add_p2());
    // counts name a partition created after the export by its table (counts.json, rule 2)
    assert_eq!(e.table_name(102), "APP.T");
    // TRUNCATE PARTITION P2: its OBJ$ row (slot 20) gets DATAOBJ# 160
    commit(&mut e, 110, vec![change(URP, OBJ, OBJ, 20, &[(1, Some(num(160)))])]);
    assert_eq!(e.table_name(160), "APP.T");
    // a direct-path row (19.1: no object, only the data object) into the truncated partition
    let mut direct = change(IRP, 0, 160, 4, &[(0, Some(num(8)))]);
    direct.scn = 120;
    assert_eq!(commit(&mut e, 121, vec![direct]), 1);
    assert_eq!(e.trail_counts.get(&(102, "INSERT")), Some(&1), "counted under the partition's object");
    assert!(e.unknown_in_scope.is_empty());
}

#[path = "sys_col_tests.rs"]
mod col_rows;
