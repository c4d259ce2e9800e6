//! LOB values of the SecureFile forms through the emitter (trail/securefile.rs): a BLOB whose
//! extents name a page of the transaction is its bytes; a CLOB whose locator form is not read is
//! counted by table, column and reason (`Emitter::lob_unresolved`, counts.json, GE rule 17).

use redo_core::assembly::{ChangeBuffer, ChangeEvent, CommittedTransaction, Xid};
use redo_core::events::kind;
use redo_core::trail::schema::Pairs;
use redo_core::trail::{Dictionary, EmitOptions, Emitter, TrailRecord, TrailSink};

const DOC: &str = r#"{"format": "redotrail-dictionary", "format_version": 1, "db_charset": "AL32UTF8",
 "national_charset": "AL16UTF16", "max_object_id": 71, "tables": [
 {"obj": 70, "dataobj": 80, "owner": "APP", "name": "T", "valid_from_scn": 1,
  "columns": [{"segcol_no": 1, "name": "ID", "type": "NUMBER", "length": 22, "nullable": false},
   {"segcol_no": 2, "name": "DOC", "type": "CLOB", "length": 4000, "nullable": true, "charset": "CHAR_CS"},
   {"segcol_no": 3, "name": "B", "type": "BLOB", "length": 4000, "nullable": true}],
  "key": {"kind": "primary", "columns": ["ID"]}}]}"#;

const ID: &[u8; 10] = b"\0\0\0\x01\0\0\0\0\0\x09";
const DBA: u32 = 0x0180_0010;

struct Records(Vec<Pairs>);

impl TrailSink for Records {
    fn push(&mut self, record: &TrailRecord, _: Option<&str>) -> redo_core::Result<()> {
        self.0.push(record.columns.clone());
        Ok(())
    }
}

/// A SecureFile locator: flg2, flg3 (one-byte length), flg4 0, the length, one header byte, `rest`.
fn secure(flg2: u16, flg3: u8, length: u8, rest: &[u8]) -> Vec<u8> {
    let mut body = flg2.to_be_bytes().to_vec();
    body.extend_from_slice(&[0, 0, flg3, 0, length, 0]);
    body.extend_from_slice(rest);
    let mut v = vec![0, 0x70, 0, 1, 2, 0x04, 0, 0, 0, 0];
    v.extend_from_slice(ID);
    v.extend_from_slice(&((body.len() + 2) as u16).to_be_bytes());
    v.extend_from_slice(&body);
    v
}

#[test]
fn extents_resolve_and_a_form_not_read_is_counted_with_table_and_column() {
    let mut changes = ChangeBuffer::new(50, 1 << 20, None).unwrap();
    let mut piece =
        ChangeEvent { kind: kind::LOB, usn: 1, slot: 2, sqn: 3, bdba: i64::from(DBA), ..Default::default() };
    piece.lob_id = piece.push_bytes(ID);
    piece.lob_data = piece.push_bytes(&[0xAB; 7]);
    changes.append(piece).unwrap();
    // one extent (count byte 0) of one page: flag 0, the DBA, a one-byte page count (12c+ style 0x20)
    let mut extents = vec![0, 0x00];
    extents.extend_from_slice(&DBA.to_be_bytes());
    extents.push(1);
    let blob = secure(0x4000, 0x20, 7, &extents);
    let list_page = secure(0x4000, 0x40, 200, &DBA.to_be_bytes());
    let mut insert = ChangeEvent {
        kind: kind::CHANGE,
        usn: 1,
        slot: 2,
        sqn: 3,
        obj: 70,
        dataobj: 80,
        redo_op: 0x0B02,
        fb: 0x2C,
        scn: 10,
        ..Default::default()
    };
    let id = insert.push_bytes(&[0xC1, 0x02]);
    let clob = insert.push_bytes(&list_page);
    let b = insert.push_bytes(&blob);
    insert.after = vec![(0, Some(id)), (1, Some(clob)), (2, Some(b))];
    changes.append(insert).unwrap();
    let txn = CommittedTransaction {
        xid: Xid { usn: 1, slot: 2, sqn: 3 },
        commit_scn: 11,
        commit_time: 0,
        thread: 1,
        seq: 3,
        block: 4,
        offset: 16,
        begin_scn: 1,
        changes,
    };
    let mut emitter = Emitter::new(Some(Dictionary::from_json(DOC).unwrap()), EmitOptions::default());
    let mut out = Records(Vec::new());
    assert_eq!(emitter.emit(&txn, None, &mut out, None).unwrap(), 1);
    let columns: Vec<(String, Option<String>)> =
        out.0[0].iter().map(|(n, v)| (n.to_string(), v.clone())).collect();
    assert_eq!(columns[2], ("B".into(), Some("ABABABABABABAB".into())));
    assert_eq!(columns[1].0, "DOC");
    let reason = "SecureFile locator list page (12c+ style 0x40) not read".to_string();
    let want = [(("APP.T".to_string(), "DOC".to_string(), reason), 1)].into_iter().collect();
    assert_eq!(emitter.lob_unresolved, want);
    assert_eq!(emitter.counters.get("lob_values_unresolved"), Some(&1));
    assert_eq!(emitter.counters.get("lob_values_out_of_row"), Some(&1));
}
