//! Random committed transactions (any op, flags, supplemental blocks, slots, values, LOB locators
//! and pieces, DDL, extreme numbers) through the emitter with a small dictionary, schemaless, with
//! every option, with and without a SYS rows layer (`sys`: SYS.OBJ$ and TABPART$ layouts, rows
//! whose ROWIDs the random changes may name); and random or damaged dictionary documents (with and
//! without `sys`) into `Dictionary::from_json`. Any
//! outcome but a panic is fine; an error is a named one (`value`, `format` or `dictionary`). In debug
//! mode, so an arithmetic overflow would panic too.

use redo_core::assembly::{ChangeBuffer, ChangeEvent, CommittedTransaction, Xid};
use redo_core::events::kind;
use redo_core::trail::{
    DdlHandler, DdlProblem, DdlSubject, Dictionary, EmitOptions, Emitter, RowChange, TrailBuilder,
};

struct XorShift(u64);

impl XorShift {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn pick<T: Copy>(&mut self, items: &[T]) -> T {
        items[(self.next() % items.len() as u64) as usize]
    }
    fn bytes(&mut self, max: u64) -> Vec<u8> {
        let len = self.next() % (max + 1);
        (0..len).map(|_| self.next() as u8).collect()
    }
}

const DOC: &str = r#"{"format": "redotrail-dictionary", "format_version": 1, "db_charset": "AL32UTF8",
 "national_charset": "AL16UTF16", "max_object_id": 71, "tables": [
 {"obj": 70, "dataobj": 80, "owner": "APP", "name": "T", "valid_from_scn": 1, "valid_to_scn": 900,
  "columns": [{"segcol_no": 1, "name": "ID", "type": "NUMBER", "length": 22, "nullable": false},
   {"segcol_no": 2, "name": "NAME", "type": "VARCHAR2", "length": 20, "nullable": true, "charset": "CHAR_CS"},
   {"segcol_no": 3, "name": "DOC", "type": "CLOB", "length": 4000, "nullable": true, "charset": "CHAR_CS"},
   {"segcol_no": 4, "name": "B", "type": "BLOB", "length": 4000, "nullable": true},
   {"segcol_no": 6, "name": "H", "type": "TIMESTAMP WITH LOCAL TIME ZONE", "length": 11, "nullable": true, "hidden": true}],
  "key": {"kind": "primary", "columns": ["ID"]},
  "partitions": [{"obj": 81, "dataobj": 82}]},
 {"obj": 72, "dataobj": null, "owner": "SYS", "name": "S", "valid_from_scn": 1,
  "columns": [{"segcol_no": 1, "name": "X", "type": "RAW", "length": 9, "nullable": true}]}]}"#;

/// [`DOC`] with the layouts of SYS.OBJ$ (obj 73) and SYS.TABPART$ (obj 74) and a `sys` member:
/// owner 0 (APP), table 70 and its partition 81 (dataobj 82), their rows at ROWIDs the random
/// changes name (data object 72 or 80, block 0x0100010C, slot 0 or 1).
fn doc_sys() -> String {
    let rowid = |dataobj: u32, slot: u32| {
        let mut out = String::new();
        redo_core::values::rowid::push_rowid(&mut out, dataobj, 4, 0x10C, slot).unwrap();
        out
    };
    let col = |segcol: u32, name: &str, kind: &str| {
        format!(
            r#"{{"segcol_no": {segcol}, "name": "{name}", "type": "{kind}", "length": 22, "nullable": true, "charset": "CHAR_CS"}}"#
        )
    };
    let obj_cols = [
        (1, "OBJ#", "NUMBER"),
        (2, "DATAOBJ#", "NUMBER"),
        (3, "OWNER#", "NUMBER"),
        (4, "NAME", "VARCHAR2"),
        (5, "SUBNAME", "VARCHAR2"),
        (6, "TYPE#", "NUMBER"),
        (7, "FLAGS", "NUMBER"),
    ];
    let part_cols =
        [(1, "OBJ#", "NUMBER"), (2, "DATAOBJ#", "NUMBER"), (3, "BO#", "NUMBER"), (4, "PART#", "NUMBER")];
    let cols =
        |c: &[(u32, &str, &str)]| c.iter().map(|(s, n, k)| col(*s, n, k)).collect::<Vec<_>>().join(", ");
    let tables = format!(
        r#", {{"obj": 73, "dataobj": 72, "owner": "SYS", "name": "OBJ$", "valid_from_scn": 1, "columns": [{}]}},
 {{"obj": 74, "dataobj": 80, "owner": "SYS", "name": "TABPART$", "valid_from_scn": 1, "columns": [{}]}}]"#,
        cols(&obj_cols),
        cols(&part_cols)
    );
    let sys = format!(
        r#", "sys": {{"USER$": [{{"rowid": "{}", "valid_from_scn": 1, "USER#": 0, "NAME": "APP"}}],
 "OBJ$": [{{"rowid": "{}", "valid_from_scn": 1, "OBJ#": 70, "DATAOBJ#": 80, "OWNER#": 0, "NAME": "T", "SUBNAME": null, "TYPE#": 2, "FLAGS": 0}},
  {{"rowid": "{}", "valid_from_scn": 1, "OBJ#": 81, "DATAOBJ#": 82, "OWNER#": 0, "NAME": "T", "SUBNAME": "P", "TYPE#": 19, "FLAGS": 0}}],
 "TABPART$": [{{"rowid": "{}", "valid_from_scn": 1, "OBJ#": 81, "DATAOBJ#": 82, "BO#": 70, "PART#": 1}}]}}}}"#,
        rowid(10, 0),
        rowid(72, 0),
        rowid(72, 1),
        rowid(80, 1)
    );
    let mut doc = DOC.trim_end().strip_suffix("]}").unwrap().to_owned();
    doc.push_str(&tables);
    doc.push_str(&sys);
    doc
}

/// A fixed DDL subject; every third DDL "changes" the dictionary to the same document.
struct Ddl(u64);

impl DdlHandler for Ddl {
    fn subject(&mut self, text: &str, schema: &str) -> redo_core::Result<DdlSubject> {
        Ok(DdlSubject {
            operation: text.chars().take(5).collect(),
            object_type: "TABLE".into(),
            owner: schema.into(),
            name: "T".into(),
        })
    }
    fn evolve(
        &mut self,
        _rc: &RowChange,
        _counters: &mut std::collections::BTreeMap<String, u64>,
        _problems: &mut Vec<DdlProblem>,
    ) -> redo_core::Result<Option<Dictionary>> {
        self.0 += 1;
        Ok(if self.0.is_multiple_of(3) { Some(Dictionary::from_json(DOC)?) } else { None })
    }
}

fn locator(rnd: &mut XorShift) -> Vec<u8> {
    let mut head = vec![0u8, 0x54, 0, 1, 2, rnd.pick(&[0x04, 0x00, 0xFF]), 0, 0, 0, 0];
    head.extend_from_slice(b"\0\0\0\x01LOBID\0");
    match rnd.next() % 4 {
        0 => {
            let data = rnd.bytes(12);
            head.extend_from_slice(&((16 + data.len()) as u16).to_be_bytes());
            head.extend_from_slice(&0x0100u16.to_be_bytes());
            head.extend_from_slice(&[0; 12]);
            head.extend_from_slice(&data);
        }
        1 => {
            let n = rnd.next() % 4;
            let claimed = rnd.pick(&[n, n + 1, 1000, u32::MAX as u64]);
            head.extend_from_slice(&((16 + 4 * n) as u16).to_be_bytes());
            head.extend_from_slice(&0x0400u16.to_be_bytes());
            head.extend_from_slice(&(claimed as u32).to_be_bytes());
            head.extend_from_slice(&(rnd.next() as u16 % 8).to_be_bytes());
            head.extend_from_slice(&[0; 6]);
            for _ in 0..n {
                head.extend_from_slice(&(1 + rnd.next() as u32 % 3).to_be_bytes());
            }
        }
        2 => {
            // a SecureFile-style body (securefile.rs): any flg2 / flg3 / flg4, random rest, a body
            // size that may or may not match
            let rest = rnd.bytes(14);
            let other = rnd.next() % 40;
            let size = rnd.pick(&[6 + rest.len() as u64, other]);
            head.extend_from_slice(&(size as u16).to_be_bytes());
            head.extend_from_slice(&rnd.pick(&[0x0800u16, 0x4000, 0, 0x0200]).to_be_bytes());
            head.extend_from_slice(&[0, 0]);
            head.push(rnd.pick(&[0x00, 0x01, 0x02, 0x03, 0x21, 0x40, 0x43, 0x60]));
            head.push(rnd.pick(&[0x00, 0x01, 0x02]));
            head.extend_from_slice(&rest);
        }
        _ => head.truncate((rnd.next() % 30) as usize),
    }
    head
}

fn event(rnd: &mut XorShift, n: i64) -> ChangeEvent {
    let mut e = ChangeEvent {
        kind: rnd.pick(&[kind::CHANGE, kind::CHANGE, kind::CHANGE, kind::LOB, kind::DDL, kind::BEGIN]),
        usn: 1,
        slot: 2,
        sqn: 3,
        thread: rnd.pick(&[1, 2, i64::MAX]),
        seq: rnd.pick(&[3, -1, i64::MAX]),
        block: n,
        offset: rnd.pick(&[16, -1, i64::MIN]),
        scn: rnd.pick(&[0, 5, 100, 899, 900, -1, i64::MAX, i64::MIN]),
        subscn: rnd.pick(&[0, 1, i64::MAX]),
        time: rnd.pick(&[0, 1_700_000_000_000_000, -1, i64::MIN, i64::MAX]),
        obj: rnd.pick(&[0, 70, 71, 72, 73, 74, 81, 82, 99, -1, i64::MAX]),
        dataobj: rnd.pick(&[0, 80, 82, 72, -5, i64::MAX]),
        redo_op: rnd.pick(&[
            0, 0x0B02, 0x0B03, 0x0B04, 0x0B05, 0x0B06, 0x0B08, 0x0B0B, 0x0B0C, 0x0B10, 0x0B16, 0x1301, 0x1A02,
        ]),
        bdba: rnd.pick(&[0, 1, 0x0100_010C, -1, i64::MAX, i64::MIN]),
        row_slot: rnd.pick(&[0, 1, 0xFFFF, 0x10000, -1]),
        fb: rnd.pick(&[0, 0x08, 0x80, -1]),
        undo_fb: rnd.pick(&[0, 0, 0x80]),
        supp_fb: rnd.pick(&[None, Some(0), Some(0x04), Some(0x08), Some(0x0C), Some(0x8C)]),
        supp_bdba: rnd.pick(&[0, 5]),
        supp_slot: rnd.pick(&[0, 1]),
        lob_page: rnd.pick(&[0, 1, 2, 3, i64::MAX]),
        ..Default::default()
    };
    for image in 0..3 {
        for _ in 0..rnd.next() % 5 {
            let col = rnd.pick(&[0, 1, 2, 3, 4, 5, 6, -1, i32::MAX]);
            let value = match rnd.next() % 5 {
                0 => None,
                1 => Some(e.push_bytes(&locator(rnd))),
                // small NUMBERs (0, 1, 70, 81, 82) and text: SYS rows that may be followed
                2 => {
                    let v: &[u8] =
                        rnd.pick(&[&[0x80], &[0xC1, 2], &[0xC1, 71], &[0xC1, 82], &[0xC1, 83], b"T"]);
                    Some(e.push_bytes(v))
                }
                _ => {
                    let b = rnd.bytes(12);
                    Some(e.push_bytes(&b))
                }
            };
            [&mut e.before, &mut e.after, &mut e.supp_columns][image].push((col, value));
        }
    }
    for slot in 0..rnd.next() % 3 {
        let values = (0..rnd.next() % 4)
            .map(|_| {
                let b = rnd.bytes(6);
                (rnd.next().is_multiple_of(2)).then(|| e.push_bytes(&b))
            })
            .collect();
        e.rows.push((rnd.pick(&[slot as i32, -1, i32::MAX]), values));
    }
    e.lob_id = e.push_bytes(b"\0\0\0\x01LOBID\0");
    let data = rnd.bytes(8);
    e.lob_data = e.push_bytes(&data);
    e.ddl_text = rnd
        .pick(&[
            "",
            "ALTER TABLE T ADD (Z NUMBER)",
            "DROP",
            "é",
            "CREATE \"\"\"",
            "/* x",
            "drop table 'a.",
            "RENAME \"a\"\"b\".",
            "--",
        ])
        .into();
    e
}

#[test]
fn random_transactions_never_panic() {
    let mut rnd = XorShift(0x2545_F491_4F6C_DD1D);
    let mut outcomes = [0usize; 2];
    let mut sys_rows = [0usize; 2];
    let with_sys = doc_sys();
    for round in 0..2_000u64 {
        let text = if round % 4 >= 2 { with_sys.as_str() } else { DOC };
        let dictionary = (!round.is_multiple_of(4)).then(|| Dictionary::from_json(text).unwrap());
        let mut options = EmitOptions {
            emit_unknown: round.is_multiple_of(3),
            full_deletes: round.is_multiple_of(5),
            update_before_images: round.is_multiple_of(2),
            apply_ddl: !round.is_multiple_of(7),
            ..Default::default()
        };
        if round.is_multiple_of(11) {
            options.include_tables.insert("APP.T".into());
        }
        let mut emitter = Emitter::new(dictionary, options);
        let applied = |e: &Emitter| {
            let get = |k: &str| e.counters.get(k).copied().unwrap_or(0) as usize;
            [get("dictionary_rows") + get("dictionary_row_problems"), get("dictionary_rows_not_followed")]
        };
        let mut ddl = Ddl(0);
        for t in 0..3 {
            let mut changes = ChangeBuffer::new(rnd.pick(&[2, 3, 50]), 1 << 20, None).unwrap();
            for n in 0..rnd.next() % 12 {
                changes.append(event(&mut rnd, n as i64)).unwrap();
            }
            let txn = CommittedTransaction {
                xid: Xid { usn: 1, slot: 2, sqn: t },
                commit_scn: rnd.pick(&[1000, i64::MAX, -1]),
                commit_time: rnd.pick(&[0, i64::MIN, i64::MAX]),
                thread: 1,
                seq: 3,
                block: 4,
                offset: 16,
                begin_scn: 1,
                changes,
            };
            let mut out = TrailBuilder::new();
            let handler: Option<&mut dyn DdlHandler> =
                if round.is_multiple_of(2) { Some(&mut ddl) } else { None };
            match emitter.emit(&txn, handler, &mut out, Some("1_3")) {
                Ok(n) => {
                    assert_eq!(out.finish().unwrap().num_rows(), n);
                    outcomes[0] += 1;
                }
                Err(e) => {
                    assert!(matches!(e.kind(), "value" | "format" | "dictionary"), "{e}");
                    outcomes[1] += 1;
                }
            }
        }
        let [applied, not_followed] = applied(&emitter);
        sys_rows[0] += applied;
        sys_rows[1] += not_followed;
    }
    assert!(outcomes[0] > 600 && outcomes[1] > 10, "{outcomes:?}");
    assert!(
        sys_rows[0] > 0 && sys_rows[1] > 0,
        "SYS rows followed (applied or a problem), not followed: {sys_rows:?}"
    );
}

#[test]
fn damaged_dictionaries_never_panic() {
    let mut rnd = XorShift(0x9E37_79B9_7F4A_7C15);
    let with_sys = doc_sys();
    let mut outcomes = [0usize; 2];
    for round in 0..10_000u32 {
        let doc = if round % 3 == 0 { with_sys.as_bytes() } else { DOC.as_bytes() };
        let mut text = doc.to_vec();
        match round % 4 {
            0 => text.truncate((rnd.next() % doc.len() as u64) as usize),
            1 => {
                for _ in 0..1 + rnd.next() % 3 {
                    let at = (rnd.next() % text.len() as u64) as usize;
                    text[at] = rnd.pick(b"0123456789-.,:{}[]\"ntfe ");
                }
            }
            2 => {
                let at = (rnd.next() % text.len() as u64) as usize;
                let end = (at + (rnd.next() % 40) as usize).min(text.len());
                text.drain(at..end);
            }
            _ => text = rnd.bytes(60),
        }
        let Ok(text) = String::from_utf8(text) else { continue };
        match Dictionary::from_json(&text) {
            Ok(d) => {
                let _ = (d.lookup(70, 5), d.lookup(82, i64::MAX), d.knows(81), d.iter().count());
                if let Some(sys) = d.sys() {
                    assert_eq!(sys.to_json(), sys.clone().to_json());
                }
                outcomes[0] += 1;
            }
            Err(e) => {
                assert_eq!(e.kind(), "dictionary");
                outcomes[1] += 1;
            }
        }
    }
    assert!(outcomes[0] > 50 && outcomes[1] > 500, "{outcomes:?}");
}
