//! Which segments the rows of a partition can carry in a mirror (docs/tables.md, "In the mirrors":
//! DROP / TRUNCATE PARTITION), read from the SYS rows (`sys.rs`).
//!
//! A mirror row keeps the ROWID of the change that last wrote it, and a ROWID's first 6 base-64
//! characters are the data object (the segment) the row was in. Oracle writes no row change for the
//! rows a DROP or TRUNCATE PARTITION removes, so the mirror finds them by those data objects: for
//! the partition (or subpartition) of that name at the DDL's SCN,
//!
//! - its own `DATAOBJ#` values before the SCN (a TRUNCATE, MOVE or EXCHANGE gives it a new one; a
//!   row keeps the old one in the mirror until it changes again); a composite partition's are its
//!   subpartitions';
//! - for a partition created by a transaction that deleted others of the same table and created
//!   only it (MERGE), or one whose segment was rebuilt while others were deleted (COALESCE), the data
//!   objects of the deleted ones, as certainly its rows as its own;
//! - where rows may have gone to one of several partitions (SPLIT: one deleted, several created; a
//!   hash ADD PARTITION: one created while another's segment was rebuilt), the data objects the
//!   rows may still carry are *ambiguous*: never guessed, given apart (a data object a split child
//!   took over as its own segment, a fast split, is that child's).
//!
//! Each analysis is of the partitions of one table at one level (partitions; or subpartitions, for
//! a SUBPARTITION DDL) at the SCNs where the partition asked about was created or got a new segment:
//! before (the rows valid at SCN - 1) against after (valid at the SCN).

use std::collections::{BTreeMap, BTreeSet};

use super::sys::{col, SysRow, SysRows, SysTable, TYPE_PARTITION, TYPE_SUBPARTITION, TYPE_TABLE};

/// How deep merges of merges are followed (a chain longer than this is a note, not a loop).
const MAX_DEPTH: usize = 32;

/// What [`SysRows::partition_segments`] found.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PartitionSegments {
    /// the table's `OBJ#` (`None`: no such table at the SCN)
    pub table_obj: Option<i64>,
    /// the partition's (subpartition's) `OBJ#` (`None`: no such partition at the SCN)
    pub obj: Option<i64>,
    /// data objects whose rows were the partition's, ascending
    pub data_objects: Vec<i64>,
    /// data objects some of whose rows may have been the partition's and some another's, ascending
    pub ambiguous: Vec<i64>,
    /// why something is ambiguous or unknown, one line each
    pub notes: Vec<String>,
}

/// The data objects of a partition, and the ones that may be its.
#[derive(Default)]
struct Found {
    certain: BTreeSet<i64>,
    ambiguous: BTreeSet<i64>,
    /// its own earlier segments whose rows may have moved to another partition
    demoted: BTreeSet<i64>,
    notes: Vec<String>,
}

/// The two levels a table's partitions are analysed at.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Level {
    Partition,
    Subpartition,
}

/// The 6 base-64 characters a ROWID of data object `dataobj` starts with (as `emit::rowid` renders
/// it); `None` out of range.
pub fn rowid_prefix(dataobj: i64) -> Option<String> {
    let d = u32::try_from(dataobj).ok()?;
    let mut out = String::with_capacity(18);
    crate::values::rowid::push_rowid(&mut out, d, 0, 0, 0).ok()?;
    out.truncate(6);
    Some(out)
}

impl SysRows {
    /// The `OBJ#` of table `owner`.`name` at `scn` (its `OBJ$` row, `TYPE#` 2, and its owner's
    /// `USER$` row valid then).
    pub fn table_named(&self, owner: &str, name: &str, scn: i64) -> Option<i64> {
        self.rows(SysTable::Obj)
            .iter()
            .filter(|r| {
                r.covers(scn) && r.int(col::TYPE) == Some(TYPE_TABLE) && r.text(col::NAME) == Some(name)
            })
            .filter(|r| {
                r.int(col::OWNER)
                    .and_then(|o| self.row_at(SysTable::User, o, scn))
                    .and_then(|u| u.text(col::USER_NAME))
                    == Some(owner)
            })
            .find_map(|r| r.int(col::KEY))
    }

    /// The data objects the rows of partition `name` (`OBJ$.SUBNAME`; a subpartition's when
    /// `subpartition`) of table `table_obj` can carry, for a DDL that committed at `scn`: the
    /// partition is the one of that name just before (`scn - 1`), its data objects the ones before
    /// `scn` (module doc). An unknown table or name gives none, and a note.
    pub fn partition_segments(
        &self,
        table_obj: i64,
        name: &str,
        subpartition: bool,
        scn: i64,
    ) -> PartitionSegments {
        let level = if subpartition { Level::Subpartition } else { Level::Partition };
        let before = scn - 1;
        let kind = if subpartition { "subpartition" } else { "partition" };
        let mut out = PartitionSegments { table_obj: Some(table_obj), ..Default::default() };
        let Some(obj) = self.units_at(table_obj, level, before).into_keys().find(|&o| {
            self.row_at(SysTable::Obj, o, before).and_then(|r| r.text(col::SUBNAME)) == Some(name)
        }) else {
            out.notes.push(format!(
                "no {kind} {name} of table object {table_obj} at SCN {before} in the SYS rows: its rows are not known"
            ));
            return out;
        };
        out.obj = Some(obj);
        let mut found = Found::default();
        self.unit_segments(table_obj, level, obj, scn, 0, &mut found);
        let certain: BTreeSet<i64> = found.certain.difference(&found.demoted).copied().collect();
        let ambiguous =
            found.ambiguous.union(&found.demoted).filter(|d| !certain.contains(d)).copied().collect();
        out.data_objects = certain.into_iter().collect();
        out.ambiguous = ambiguous;
        out.notes = found.notes;
        out
    }

    /// The names (`OBJ$.SUBNAME`) of table `table_obj`'s partitions (subpartitions with
    /// `subpartition`) that the commit at `scn` removed the rows of: with `dropped`, those there
    /// just before (`scn - 1`) and gone at `scn` (DROP); else those whose segments changed at `scn`
    /// (TRUNCATE: a new data object). For a DDL that names them by value (`DROP PARTITION FOR
    /// (...)`), which the text does not resolve: the SYS rows say which ones it was.
    pub fn partitions_cut(&self, table_obj: i64, subpartition: bool, scn: i64, dropped: bool) -> Vec<String> {
        let level = if subpartition { Level::Subpartition } else { Level::Partition };
        let (before, after) =
            (self.units_at(table_obj, level, scn - 1), self.units_at(table_obj, level, scn));
        before
            .iter()
            .filter(|(obj, segments)| match after.get(obj) {
                None => dropped,
                Some(now) => !dropped && now != *segments,
            })
            .filter_map(|(&obj, _)| {
                self.row_at(SysTable::Obj, obj, scn - 1)?.text(col::SUBNAME).map(str::to_owned)
            })
            .collect()
    }

    /// Adds to `found` the data objects of unit `obj` before `scn`, and what it inherited.
    fn unit_segments(&self, table: i64, level: Level, obj: i64, scn: i64, depth: usize, found: &mut Found) {
        if depth > MAX_DEPTH {
            found.notes.push(format!("object {obj}: merges nested deeper than {MAX_DEPTH} not followed"));
            return;
        }
        let (own, changes) = self.own_segments(level, obj, scn);
        found.certain.extend(own);
        for at in changes {
            let was = self.units_at(table, level, at - 1);
            let now = self.units_at(table, level, at);
            let deleted: Vec<i64> = was.keys().filter(|k| !now.contains_key(k)).copied().collect();
            let created: Vec<i64> = now.keys().filter(|k| !was.contains_key(k)).copied().collect();
            let rebuilt: Vec<i64> =
                now.keys().filter(|k| was.get(k).is_some_and(|w| w != &now[k])).copied().collect();
            if created.len() == now.len() && deleted.is_empty() {
                continue; // the first rows known (the export): no transaction to read
            }
            let name = |o: i64| -> String {
                self.row_near(SysTable::Obj, o, at - 1)
                    .and_then(|r| r.text(col::SUBNAME).map(str::to_owned))
                    .unwrap_or_else(|| format!("object {o}"))
            };
            let names = |list: &[i64]| list.iter().map(|&o| name(o)).collect::<Vec<_>>().join(", ");
            let is_new = created.contains(&obj);
            let is_rebuilt = rebuilt.contains(&obj);
            if !is_new && !is_rebuilt {
                continue; // a row of it changed with no new segment (a rename, PART# renumbered)
            }
            if is_rebuilt && !created.is_empty() {
                // its earlier segment's rows may have gone to the new partition (hash ADD PARTITION)
                let earlier = was.get(&obj).cloned().unwrap_or_default();
                found.demoted.extend(earlier.iter().copied());
                found.notes.push(format!(
                    "{} got a new segment at SCN {at} while {} was created: rows still carrying its earlier data objects may be in either",
                    name(obj),
                    names(&created)
                ));
            }
            if is_new && deleted.is_empty() && !rebuilt.is_empty() {
                for r in &rebuilt {
                    found.ambiguous.extend(was.get(r).into_iter().flatten().copied());
                }
                found.notes.push(format!(
                    "{} was created at SCN {at} while {} got a new segment: rows still carrying the earlier data objects may be in either",
                    name(obj),
                    names(&rebuilt)
                ));
            }
            if deleted.is_empty() {
                continue;
            }
            // where the deleted partitions' rows went: to this one alone, or to one of several
            let receivers: Vec<i64> = if created.is_empty() { rebuilt.clone() } else { created.clone() };
            let mut inherited = Found::default();
            for &d in &deleted {
                self.unit_segments(table, level, d, at, depth + 1, &mut inherited);
            }
            found.notes.append(&mut inherited.notes);
            found.ambiguous.extend(inherited.ambiguous.iter().chain(&inherited.demoted).copied());
            let source: Vec<i64> = inherited.certain.difference(&inherited.demoted).copied().collect();
            if receivers.len() == 1 {
                found.certain.extend(source); // MERGE, COALESCE: every row of theirs is its row
                continue;
            }
            let mut unsure = Vec::new();
            for d in source {
                // a data object a receiver took over as its own segment (a fast split) is its
                match receivers.iter().find(|&&r| now.get(&r).is_some_and(|s| s.contains(&d))) {
                    Some(&r) if r == obj => {
                        found.certain.insert(d);
                    }
                    Some(_) => {}
                    None => unsure.push(d),
                }
            }
            if !unsure.is_empty() {
                found.ambiguous.extend(unsure.iter().copied());
                found.notes.push(format!(
                    "{} was split at SCN {at} into {}: its rows that have not changed since (data objects {}) may be in any of them, not told apart",
                    names(&deleted),
                    names(&receivers),
                    unsure.iter().map(i64::to_string).collect::<Vec<_>>().join(", ")
                ));
            }
        }
    }

    /// The data objects unit `obj` had before `scn`, and the SCNs (before `scn`, ascending) at which
    /// one of its rows (or, composite, of its subpartitions') started.
    fn own_segments(&self, level: Level, obj: i64, scn: i64) -> (BTreeSet<i64>, Vec<i64>) {
        let mut segments = BTreeSet::new();
        let mut changes = BTreeSet::new();
        let mut take = |rows: &mut dyn Iterator<Item = &SysRow>, segments: &mut BTreeSet<i64>| {
            for r in rows.filter(|r| r.valid_from_scn < scn) {
                segments.extend(r.int(col::DATAOBJ));
                changes.insert(r.valid_from_scn);
            }
        };
        let composite =
            level == Level::Partition && self.versions(SysTable::TabCompart, obj).next().is_some();
        take(&mut self.versions(SysTable::Obj, obj), &mut segments);
        if !composite {
            let own = if level == Level::Partition { SysTable::TabPart } else { SysTable::TabSubpart };
            take(&mut self.versions(own, obj), &mut segments);
            return (segments, changes.into_iter().collect());
        }
        take(&mut self.versions(SysTable::TabCompart, obj), &mut BTreeSet::new());
        let subs: BTreeSet<i64> = self
            .rows(SysTable::TabSubpart)
            .iter()
            .filter(|r| r.valid_from_scn < scn && r.int(col::PARENT) == Some(obj))
            .filter_map(|r| r.int(col::KEY))
            .collect();
        for sub in subs {
            take(&mut self.versions(SysTable::Obj, sub), &mut segments);
            take(&mut self.versions(SysTable::TabSubpart, sub), &mut segments);
        }
        (segments, changes.into_iter().collect())
    }

    /// The units of `table` valid at `scn` at `level`, each with its segments then (a partition's
    /// data object; a composite partition's, its subpartitions').
    fn units_at(&self, table: i64, level: Level, scn: i64) -> BTreeMap<i64, BTreeSet<i64>> {
        let children = |parents: &[SysTable], parent: i64| -> Vec<i64> {
            parents
                .iter()
                .flat_map(|&t| self.rows(t).iter())
                .filter(|r| r.covers(scn) && r.int(col::PARENT) == Some(parent))
                .filter_map(|r| r.int(col::KEY))
                .collect()
        };
        let dataobj = |o: i64, typ: i64| -> Option<i64> {
            self.row_at(SysTable::Obj, o, scn)
                .filter(|r| r.int(col::TYPE) == Some(typ))
                .and_then(|r| r.int(col::DATAOBJ))
        };
        let mut out = BTreeMap::new();
        match level {
            Level::Partition => {
                for p in children(&[SysTable::TabPart], table) {
                    if self
                        .row_at(SysTable::Obj, p, scn)
                        .is_some_and(|r| r.int(col::TYPE) == Some(TYPE_PARTITION))
                    {
                        out.insert(p, dataobj(p, TYPE_PARTITION).into_iter().collect());
                    }
                }
                for p in children(&[SysTable::TabCompart], table) {
                    let subs = children(&[SysTable::TabSubpart], p);
                    out.insert(p, subs.into_iter().filter_map(|s| dataobj(s, TYPE_SUBPARTITION)).collect());
                }
            }
            Level::Subpartition => {
                for p in children(&[SysTable::TabCompart], table) {
                    for s in children(&[SysTable::TabSubpart], p) {
                        if self
                            .row_at(SysTable::Obj, s, scn)
                            .is_some_and(|r| r.int(col::TYPE) == Some(TYPE_SUBPARTITION))
                        {
                            out.insert(s, dataobj(s, TYPE_SUBPARTITION).into_iter().collect());
                        }
                    }
                }
            }
        }
        out
    }
}

#[cfg(test)]
#[path = "sys_partitions_tests.rs"]
mod tests;
