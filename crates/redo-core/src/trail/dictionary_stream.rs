//! `Dictionary::from_json` without the document's tree (issue 31: memory stays bounded). A
//! `serde_json::Value` of the whole document costs about 8 times its text; here the text is read
//! twice with serde_json's streaming deserializer, and no more than one element of a large array
//! is ever a `Value`:
//!
//! 1. the outline: the whole text parsed as `from_str::<Value>` parses it (so a document that is
//!    not JSON fails first, with serde_json's error at the same line and column), keeping the
//!    top-level members [`Head`] reads (`format` .. `owners`) whole and, of `objects`, `tables`,
//!    `sys` and the arrays of `sys`, only a stand-in of the same JSON kind (an empty array for an
//!    array, ...) and how many times the member occurs (a repeated member: the last one counts, as
//!    in a `Value`'s map);
//! 2. the elements: with the top-level scalars known whatever the order of the members (`scn`, the
//!    charsets), each element of `objects`, `tables` and of the `sys` arrays is parsed as a small
//!    `Value`, converted by the code `from_document` uses, and dropped.
//!
//! The errors are `from_document`'s, in its order: the outline's stand-ins give the same errors
//! as the members they stand for (missing, not an array, not an object), and the first error of
//! each member is kept and reported in `from_document`'s order (`objects`, `tables`, the versions'
//! overlaps, then `sys` table by table), whatever the order of the members in the text.
//!
//! Memory, in the worst case: the text itself (the caller's), the members `Head` reads kept whole
//! (a few scalars and the list of owners), one element of a large array as a `Value` (about 8
//! times that element's text: the largest table with its columns), and the dictionary being
//! built; never the document's tree, for any order of the members.

use std::fmt;

use serde::de::{self as de, DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Value};

use super::{Dictionary, Fields, Head, OwnerObject, TableVersion};
use crate::error::{Detail, Error, Position, Result};
use crate::trail::sys::{SysRows, SysTable, SYS_TABLE_COUNT};

type SerdeResult<T, E> = std::result::Result<T, E>;

/// The top-level members `Head` reads, kept whole in the outline.
const HEAD_MEMBERS: [&str; 7] =
    ["format", "format_version", "db_charset", "national_charset", "scn", "max_object_id", "owners"];

/// The large members, read element by element, in `from_document`'s order.
const LARGE_MEMBERS: [&str; 3] = ["objects", "tables", "sys"];

pub(super) fn read(text: &str) -> Result<Dictionary> {
    let outline = parse(text, OutlineSeed)?;
    let root = Fields::new(&outline.root, "$".into())?;
    let head = Head::read(&root)?;
    let is_array = |v: Option<&Value>| matches!(v, Some(Value::Array(_)));
    let sys_member = match root.present("sys") {
        Some(Value::Object(member)) => Some(member),
        _ => None,
    };
    let mut convert = Convert {
        head: &head,
        occurs: outline.occurs,
        sys_occurs: outline.sys_occurs,
        read: [true, true, sys_member.is_some()],
        arrays: [is_array(root.present("objects")), is_array(root.present("tables"))],
        sys_arrays: SysTable::ALL.map(|t| is_array(sys_member.and_then(|m| m.get(t.name())))),
        objects: Vec::new(),
        versions: Vec::new(),
        sys: SysRows::default(),
        errors: [None, None],
        sys_errors: Default::default(),
    };
    parse(text, &mut convert)?;
    let Convert { objects, versions, sys, errors: [objects_error, tables_error], mut sys_errors, .. } =
        convert;
    // `from_document`'s order: the member's shape, then its first element in error
    let _ = root.objects("objects", false)?; // its shape: missing, not an array
    if let Some(e) = objects_error {
        return Err(e);
    }
    let _ = root.objects("tables", true)?;
    if let Some(e) = tables_error {
        return Err(e);
    }
    let dictionary = head.dictionary(objects, versions)?;
    let sys = match root.present("sys") {
        None => None,
        Some(member) => {
            let member = Fields::new(member, "$.sys".into())?;
            for table in SysTable::ALL {
                let _ = member.objects(table.name(), false)?;
                if let Some(e) = sys_errors[table.slot()].take() {
                    return Err(e);
                }
            }
            let mut sys = sys;
            sys.set_follows_constraints(member.present(SysTable::Cdef.name()).is_some());
            Some(sys)
        }
    };
    Ok(dictionary.with_sys(sys))
}

/// `serde_json::from_str`'s way: the value, then nothing but white space; its errors as
/// `from_json`'s "not valid JSON".
fn parse<'de, S: DeserializeSeed<'de>>(text: &'de str, seed: S) -> Result<S::Value> {
    let mut de = serde_json::Deserializer::from_str(text);
    let read = seed.deserialize(&mut de).and_then(|value| de.end().map(|()| value));
    read.map_err(|e| {
        Error::dictionary(format!("not valid JSON: {e}"), Position::default())
            .with_detail("line", Detail::Int(e.line() as i64))
            .with_detail("column", Detail::Int(e.column() as i64))
    })
}

// -- pass 1: the outline ----------------------------------------------------------------------------

struct Outline {
    /// the document with its large members replaced by stand-ins (a stand-in itself if the
    /// document is not an object)
    root: Value,
    /// how many times each of [`LARGE_MEMBERS`] occurs
    occurs: [usize; 3],
    /// how many times each SYS table's array occurs in the last `sys` member
    sys_occurs: [usize; SYS_TABLE_COUNT],
}

/// A value parsed as `Value` parses it (`deserialize_any` all the way down: the same errors, the
/// same recursion limit), kept as a stand-in of its JSON kind: an empty array or object, an empty
/// string, 0, false or null.
struct StandIn;

impl<'de> DeserializeSeed<'de> for StandIn {
    type Value = Value;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> SerdeResult<Value, D::Error> {
        d.deserialize_any(StandInVisitor)
    }
}

struct StandInVisitor;

impl<'de> Visitor<'de> for StandInVisitor {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_bool<E: de::Error>(self, _: bool) -> SerdeResult<Value, E> {
        Ok(Value::Bool(false))
    }

    fn visit_i64<E: de::Error>(self, _: i64) -> SerdeResult<Value, E> {
        Ok(Value::from(0))
    }

    fn visit_u64<E: de::Error>(self, _: u64) -> SerdeResult<Value, E> {
        Ok(Value::from(0))
    }

    fn visit_f64<E: de::Error>(self, _: f64) -> SerdeResult<Value, E> {
        Ok(Value::from(0))
    }

    fn visit_str<E: de::Error>(self, _: &str) -> SerdeResult<Value, E> {
        Ok(Value::String(String::new()))
    }

    fn visit_unit<E: de::Error>(self) -> SerdeResult<Value, E> {
        Ok(Value::Null)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> SerdeResult<Value, A::Error> {
        while seq.next_element_seed(StandIn)?.is_some() {}
        Ok(Value::Array(Vec::new()))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> SerdeResult<Value, A::Error> {
        while map.next_key_seed(StandIn)?.is_some() {
            map.next_value_seed(StandIn)?;
        }
        Ok(Value::Object(Map::new()))
    }
}

/// The document: an object's head members whole, its large members as stand-ins.
struct OutlineSeed;

impl<'de> DeserializeSeed<'de> for OutlineSeed {
    type Value = Outline;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> SerdeResult<Outline, D::Error> {
        d.deserialize_any(OutlineVisitor)
    }
}

struct OutlineVisitor;

impl OutlineVisitor {
    fn other(root: Value) -> Outline {
        Outline { root, occurs: [0; 3], sys_occurs: [0; SYS_TABLE_COUNT] }
    }
}

impl<'de> Visitor<'de> for OutlineVisitor {
    type Value = Outline;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_bool<E: de::Error>(self, v: bool) -> SerdeResult<Outline, E> {
        StandInVisitor.visit_bool(v).map(Self::other)
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> SerdeResult<Outline, E> {
        StandInVisitor.visit_i64(v).map(Self::other)
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> SerdeResult<Outline, E> {
        StandInVisitor.visit_u64(v).map(Self::other)
    }

    fn visit_f64<E: de::Error>(self, v: f64) -> SerdeResult<Outline, E> {
        StandInVisitor.visit_f64(v).map(Self::other)
    }

    fn visit_str<E: de::Error>(self, v: &str) -> SerdeResult<Outline, E> {
        StandInVisitor.visit_str(v).map(Self::other)
    }

    fn visit_unit<E: de::Error>(self) -> SerdeResult<Outline, E> {
        StandInVisitor.visit_unit().map(Self::other)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> SerdeResult<Outline, A::Error> {
        StandInVisitor.visit_seq(seq).map(Self::other)
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> SerdeResult<Outline, A::Error> {
        let mut outline = Self::other(Value::Null);
        let mut root = Map::new();
        while let Some(key) = map.next_key::<String>()? {
            let value = if HEAD_MEMBERS.contains(&key.as_str()) {
                map.next_value::<Value>()?
            } else if key == "sys" {
                outline.occurs[2] += 1;
                outline.sys_occurs = [0; SYS_TABLE_COUNT];
                map.next_value_seed(SysOutline(&mut outline.sys_occurs))?
            } else if let Some(i) = LARGE_MEMBERS.iter().position(|m| *m == key) {
                outline.occurs[i] += 1;
                map.next_value_seed(StandIn)?
            } else {
                map.next_value_seed(StandIn)?;
                continue;
            };
            root.insert(key, value);
        }
        outline.root = Value::Object(root);
        Ok(outline)
    }
}

/// The `sys` member: an object of the SYS tables' arrays as stand-ins, each counted; a stand-in if
/// it is not an object.
struct SysOutline<'a>(&'a mut [usize; SYS_TABLE_COUNT]);

impl<'de> DeserializeSeed<'de> for SysOutline<'_> {
    type Value = Value;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> SerdeResult<Value, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for SysOutline<'_> {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_bool<E: de::Error>(self, v: bool) -> SerdeResult<Value, E> {
        StandInVisitor.visit_bool(v)
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> SerdeResult<Value, E> {
        StandInVisitor.visit_i64(v)
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> SerdeResult<Value, E> {
        StandInVisitor.visit_u64(v)
    }

    fn visit_f64<E: de::Error>(self, v: f64) -> SerdeResult<Value, E> {
        StandInVisitor.visit_f64(v)
    }

    fn visit_str<E: de::Error>(self, v: &str) -> SerdeResult<Value, E> {
        StandInVisitor.visit_str(v)
    }

    fn visit_unit<E: de::Error>(self) -> SerdeResult<Value, E> {
        StandInVisitor.visit_unit()
    }

    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> SerdeResult<Value, A::Error> {
        StandInVisitor.visit_seq(seq)
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> SerdeResult<Value, A::Error> {
        let mut member = Map::new();
        while let Some(key) = map.next_key::<String>()? {
            let value = map.next_value_seed(StandIn)?;
            if let Some(table) = SysTable::from_name(&key) {
                self.0[table.slot()] += 1;
                member.insert(key, value);
            }
        }
        Ok(Value::Object(member))
    }
}

// -- pass 2: the elements ---------------------------------------------------------------------------

/// The conversion of the large members' elements; the first error of each member is kept (the
/// rest of that member is skipped), to be reported in `from_document`'s order.
struct Convert<'h> {
    head: &'h Head,
    /// from the outline: the occurrences of each large member, and of each SYS table's array in
    /// the last `sys`; only the last occurrence is read
    occurs: [usize; 3],
    sys_occurs: [usize; SYS_TABLE_COUNT],
    /// whether the last occurrence of each large member is read (`sys`: it is an object)
    read: [bool; 3],
    /// whether the last `objects` and `tables` are arrays, and the last `sys`'s arrays
    arrays: [bool; 2],
    sys_arrays: [bool; SYS_TABLE_COUNT],
    objects: Vec<OwnerObject>,
    versions: Vec<TableVersion>,
    sys: SysRows,
    errors: [Option<Error>; 2],
    sys_errors: [Option<Error>; SYS_TABLE_COUNT],
}

impl<'de> DeserializeSeed<'de> for &mut Convert<'_> {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> SerdeResult<(), D::Error> {
        d.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for &mut Convert<'_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a Redotrail dictionary")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> SerdeResult<(), A::Error> {
        let mut seen = [0usize; 3];
        while let Some(key) = map.next_key::<String>()? {
            let Some(i) = LARGE_MEMBERS.iter().position(|m| *m == key) else {
                map.next_value::<IgnoredAny>()?;
                continue;
            };
            seen[i] += 1;
            if seen[i] != self.occurs[i] || !self.read[i] {
                map.next_value::<IgnoredAny>()?;
                continue;
            }
            let head = self.head;
            match i {
                0 if self.arrays[0] => {
                    let objects = &mut self.objects;
                    map.next_value_seed(Elements {
                        base: "$.objects".into(),
                        error: &mut self.errors[0],
                        each: |object: &Fields<'_>| {
                            objects.push(head.object(object)?);
                            Ok(())
                        },
                    })?;
                }
                1 if self.arrays[1] => {
                    let versions = &mut self.versions;
                    map.next_value_seed(Elements {
                        base: "$.tables".into(),
                        error: &mut self.errors[1],
                        each: |table: &Fields<'_>| {
                            versions.push(head.table(table)?);
                            Ok(())
                        },
                    })?;
                }
                2 => map.next_value_seed(SysConvert(&mut *self))?,
                _ => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        Ok(())
    }
}

/// The last `sys` member (an object): the last array of each SYS table, row by row.
struct SysConvert<'c, 'h>(&'c mut Convert<'h>);

impl<'de> DeserializeSeed<'de> for SysConvert<'_, '_> {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> SerdeResult<(), D::Error> {
        d.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for SysConvert<'_, '_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("the sys member")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> SerdeResult<(), A::Error> {
        let convert = self.0;
        let mut seen = [0usize; SYS_TABLE_COUNT];
        while let Some(key) = map.next_key::<String>()? {
            let Some(table) = SysTable::from_name(&key) else {
                map.next_value::<IgnoredAny>()?;
                continue;
            };
            let slot = table.slot();
            seen[slot] += 1;
            if seen[slot] != convert.sys_occurs[slot] || !convert.sys_arrays[slot] {
                map.next_value::<IgnoredAny>()?;
                continue;
            }
            let default_scn = convert.head.default_scn;
            let sys = &mut convert.sys;
            map.next_value_seed(Elements {
                base: format!("$.sys.{}", table.name()),
                error: &mut convert.sys_errors[slot],
                each: |row: &Fields<'_>| sys.push_json_row(table, row, default_scn),
            })?;
        }
        Ok(())
    }
}

/// An array whose elements are parsed one at a time as a `Value` (`base[i]`), each given to `each`
/// as the object `from_document` reads; after the first error (kept in `error`), the rest is
/// skipped unread.
struct Elements<'e, F> {
    base: String,
    error: &'e mut Option<Error>,
    each: F,
}

impl<'de, F: FnMut(&Fields<'_>) -> Result<()>> DeserializeSeed<'de> for Elements<'_, F> {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> SerdeResult<(), D::Error> {
        d.deserialize_seq(self)
    }
}

impl<'de, F: FnMut(&Fields<'_>) -> Result<()>> Visitor<'de> for Elements<'_, F> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an array")
    }

    fn visit_seq<A: SeqAccess<'de>>(mut self, mut seq: A) -> SerdeResult<(), A::Error> {
        let mut i = 0usize;
        while self.error.is_none() {
            let Some(item) = seq.next_element::<Value>()? else { return Ok(()) };
            let read = Fields::new(&item, format!("{}[{i}]", self.base)).and_then(|f| (self.each)(&f));
            if let Err(e) = read {
                *self.error = Some(e);
            }
            i += 1;
        }
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        Ok(())
    }
}
