//! Unit tests of `sys_partitions.rs`: hand-built SYS rows of a range-partitioned table `APP.T`
//! (obj 100) and a composite one `APP.C` (obj 200) taken through TRUNCATE, MERGE, SPLIT (a plain one
//! and a fast one) and TRUNCATE SUBPARTITION, each a transaction at its own SCN.

use super::*;
use crate::trail::emit::rowid;

/// One row version: (valid from, valid to).
type Span = (i64, Option<i64>);

struct Rows {
    obj: Vec<String>,
    part: Vec<String>,
    compart: Vec<String>,
    subpart: Vec<String>,
    n: usize,
}

impl Rows {
    fn new() -> Rows {
        Rows { obj: Vec::new(), part: Vec::new(), compart: Vec::new(), subpart: Vec::new(), n: 0 }
    }

    fn head(&mut self, (from, to): Span) -> String {
        self.n += 1;
        let to = to.map_or("null".to_owned(), |t| t.to_string());
        format!(r#""rowid": "AAAAASAAAAAAAA{:04}", "valid_from_scn": {from}, "valid_to_scn": {to}"#, self.n)
    }

    /// An `OBJ$` row of table `name` (`sub`: the partition's name) and its `TABPART$` (`TABCOMPART$`,
    /// `TABSUBPART$`) row under `parent`.
    #[allow(clippy::too_many_arguments)]
    fn object(
        &mut self,
        span: Span,
        obj: i64,
        dataobj: Option<i64>,
        name: &str,
        sub: Option<&str>,
        kind: i64,
        parent: Option<(SysTable, i64)>,
    ) {
        let d = dataobj.map_or("null".to_owned(), |d| d.to_string());
        let s = sub.map_or("null".to_owned(), |s| format!("\"{s}\""));
        let head = self.head(span);
        self.obj.push(format!(
            r#"{{{head}, "OBJ#": {obj}, "DATAOBJ#": {d}, "OWNER#": 50, "NAME": "{name}", "SUBNAME": {s}, "TYPE#": {kind}, "FLAGS": 0}}"#
        ));
        let Some((table, parent)) = parent else { return };
        let head = self.head(span);
        let (p, n) = if table == SysTable::TabSubpart { ("POBJ#", "SUBPART#") } else { ("BO#", "PART#") };
        let row = format!(r#"{{{head}, "OBJ#": {obj}, "DATAOBJ#": {d}, "{p}": {parent}, "{n}": 10}}"#);
        match table {
            SysTable::TabPart => self.part.push(row),
            SysTable::TabCompart => self.compart.push(row),
            _ => self.subpart.push(row),
        }
    }

    fn part(&mut self, span: Span, obj: i64, dataobj: i64, name: &str) {
        self.object(
            span,
            obj,
            Some(dataobj),
            "T",
            Some(name),
            TYPE_PARTITION,
            Some((SysTable::TabPart, 100)),
        );
    }

    fn sub(&mut self, span: Span, obj: i64, dataobj: i64, name: &str, composite: i64) {
        self.object(
            span,
            obj,
            Some(dataobj),
            "C",
            Some(name),
            TYPE_SUBPARTITION,
            Some((SysTable::TabSubpart, composite)),
        );
    }

    fn build(self) -> SysRows {
        let text = format!(
            r#"{{"OBJ$": [{}], "TABPART$": [{}], "TABCOMPART$": [{}], "TABSUBPART$": [{}],
 "USER$": [{{"rowid": "AAAAAKAAAAAAAAAAAA", "valid_from_scn": 10, "valid_to_scn": null, "USER#": 50, "NAME": "APP"}}]}}"#,
            self.obj.join(", "),
            self.part.join(", "),
            self.compart.join(", "),
            self.subpart.join(", ")
        );
        SysRows::from_json(&text).unwrap()
    }
}

/// The export at SCN 10, then:
/// - 20: TRUNCATE PARTITION P1 (data object 101 -> 111)
/// - 30: MERGE PARTITIONS P2, P3 INTO PARTITION P23 (106)
/// - 40: SPLIT PARTITION P4 INTO P4A (107), P4B (108)
/// - 45: SPLIT PARTITION P5 INTO P5A, P5B: a fast split, P5A takes over P5's segment 105
/// - 50: TRUNCATE SUBPARTITION SP1 of C (202 -> 212)
/// - 70: DROP PARTITION P23
fn scenario() -> SysRows {
    let mut r = Rows::new();
    r.object((10, None), 100, None, "T", None, TYPE_TABLE, None);
    r.part((10, Some(20)), 101, 101, "P1");
    r.part((20, None), 101, 111, "P1");
    r.part((10, Some(30)), 102, 102, "P2");
    r.part((10, Some(30)), 103, 103, "P3");
    r.part((30, Some(70)), 106, 106, "P23");
    r.part((10, Some(40)), 104, 104, "P4");
    r.part((40, None), 107, 107, "P4A");
    r.part((40, None), 108, 108, "P4B");
    r.part((10, Some(45)), 105, 105, "P5");
    r.part((45, None), 109, 105, "P5A");
    r.part((45, None), 110, 110, "P5B");
    r.object((10, None), 200, None, "C", None, TYPE_TABLE, None);
    r.object((10, None), 201, None, "C", Some("CP1"), TYPE_PARTITION, Some((SysTable::TabCompart, 200)));
    r.sub((10, Some(50)), 202, 202, "SP1", 201);
    r.sub((50, None), 202, 212, "SP1", 201);
    r.sub((10, None), 203, 203, "SP2", 201);
    r.object((10, None), 204, None, "C", Some("CP2"), TYPE_PARTITION, Some((SysTable::TabCompart, 200)));
    r.sub((10, None), 205, 205, "SP3", 204);
    r.build()
}

fn segments(sys: &SysRows, name: &str, scn: i64) -> (Vec<i64>, Vec<i64>) {
    let found = sys.partition_segments(100, name, false, scn);
    (found.data_objects, found.ambiguous)
}

#[test]
fn a_plain_partition_is_its_data_object() {
    let sys = scenario();
    assert_eq!(sys.table_named("APP", "T", 25), Some(100));
    let found = sys.partition_segments(100, "P2", false, 25);
    assert_eq!((found.obj, found.data_objects, found.ambiguous), (Some(102), vec![102], vec![]));
    assert!(found.notes.is_empty(), "{:?}", found.notes);
}

#[test]
fn a_truncated_partition_keeps_its_earlier_data_objects_before_the_scn_only() {
    let sys = scenario();
    assert_eq!(segments(&sys, "P1", 60), (vec![101, 111], vec![]));
    // the TRUNCATE at 20 itself: the segment it opens holds no row written before it
    assert_eq!(segments(&sys, "P1", 20), (vec![101], vec![]));
}

#[test]
fn a_merged_partition_holds_the_rows_of_the_partitions_merged_into_it() {
    let sys = scenario();
    assert_eq!(segments(&sys, "P23", 60), (vec![102, 103, 106], vec![]));
    // its DROP at 70 finds it just before
    let dropped = sys.partition_segments(100, "P23", false, 70);
    assert_eq!((dropped.obj, dropped.data_objects), (Some(106), vec![102, 103, 106]));
}

#[test]
fn a_split_child_is_ambiguous_for_the_rows_of_its_parent() {
    let sys = scenario();
    let found = sys.partition_segments(100, "P4A", false, 60);
    assert_eq!((found.data_objects, found.ambiguous), (vec![107], vec![104]));
    assert!(
        found.notes.iter().any(|n| n.contains("P4 was split at SCN 40 into P4A, P4B")),
        "{:?}",
        found.notes
    );
    assert_eq!(segments(&sys, "P4B", 60), (vec![108], vec![104]));
    // a fast split: the child that took over the parent's segment holds its rows, the other none
    assert_eq!(segments(&sys, "P5A", 60), (vec![105], vec![]));
    assert_eq!(segments(&sys, "P5B", 60), (vec![110], vec![]));
}

#[test]
fn a_composite_partition_is_its_subpartitions_and_a_subpartition_itself() {
    let sys = scenario();
    let composite = sys.partition_segments(200, "CP1", false, 60);
    assert_eq!(
        (composite.obj, composite.data_objects, composite.ambiguous),
        (Some(201), vec![202, 203, 212], vec![])
    );
    let sub = sys.partition_segments(200, "SP1", true, 60);
    assert_eq!((sub.obj, sub.data_objects, sub.ambiguous), (Some(202), vec![202, 212], vec![]));
    assert_eq!(sys.partition_segments(200, "CP2", false, 60).data_objects, vec![205]);
    // a subpartition's name is not a partition's
    assert_eq!(sys.partition_segments(200, "SP1", false, 60).obj, None);
}

#[test]
fn an_unknown_name_or_table_finds_nothing_and_says_so() {
    let sys = scenario();
    let found = sys.partition_segments(100, "PX", false, 60);
    assert_eq!((found.obj, found.data_objects.len(), found.ambiguous.len()), (None, 0, 0));
    assert!(found.notes[0].contains("no partition PX"), "{:?}", found.notes);
    // P2 is gone at 60 (merged at 30)
    assert_eq!(sys.partition_segments(100, "P2", false, 60).obj, None);
    assert_eq!(sys.table_named("APP", "NOPE", 60), None);
    assert_eq!(sys.table_named("OTHER", "T", 60), None);
}

#[test]
fn the_rowid_prefix_is_the_rowids_first_six_characters() {
    for dataobj in [0, 1, 101, 73877, 4_294_967_295] {
        let full = rowid(dataobj, 0x0040_0100, 3).unwrap();
        assert_eq!(rowid_prefix(dataobj).as_deref(), Some(&full[..6]));
    }
    assert_eq!(rowid_prefix(-1), None);
}
