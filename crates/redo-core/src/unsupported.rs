//! Changes the decoder detects but cannot turn into trail records (issue 18): what they are, told
//! from the redo alone, so that the decode report can count them by object and the batch report
//! name the table (`redo_lib/unsupported.py` classifies them with the dictionary).
//!
//! * an encrypted tablespace (TDE): the vector's TYP byte has bit 0x80 (redo-format §4.1); its body
//!   is never parsed or rendered;
//! * an index-leaf operation (layer 10): index maintenance, or the row change of an index-organized
//!   table when its data object is a table the dictionary knows (the real oracdc 10.30 / 10.35 on
//!   object 80707, docs/lobs.md);
//! * a direct loader block (19.1) that is neither a row block nor a LOB page: a hybrid columnar
//!   compressed (HCC) unit when its object is a QUERY / ARCHIVE compressed table;
//! * an OLTP-compressed row image (§5.1, §5.6 "compressed row"): one field holding the whole row
//!   piece; such an image is kept whole under [`COMPRESSED_ROW`] so the emitter can count the row
//!   change instead of emitting an image without values.
//!
//! * a column whose type the decoder cannot render (issue 34): XMLTYPE stored as binary XML or
//!   object-relationally, ANYDATA (both opaque, type 58), JSON in its OSON form (119), object types
//!   such as SDO_GEOMETRY (121), nested tables (122), VARRAYs (123), REFs (111), BFILE (114) and any
//!   type code without a codec ([`unrenderable_type`]); such a column is kept together with the
//!   hidden columns that store it ([`column_groups`]), and the emitter counts a row change carrying
//!   its value instead of rendering it (`trail::emit`, `unrenderable`).
//!
//! The object of a vector is its header's data object id (@6 high, @22 low); undo-segment vectors
//! carry none (`0xFFFFFFFF`) and are not counted here.

use crate::model::{ChangeVector, Kdo, OpBody};
use crate::ops::lob::LOB_ID_PREFIX;
use crate::trail::dictionary::ColumnDef;
use crate::values::code;

/// The image index under which an OLTP-compressed row piece is kept whole (never a column: column
/// indexes are segcol# - 1 >= 0).
pub const COMPRESSED_ROW: i32 = -1;

/// Kinds of the decode report's `unsupported_vectors` (object id from the vector header).
pub const ENCRYPTED: &str = "encrypted";
pub const INDEX_LEAF: &str = "index_leaf";
pub const DIRECT_LOAD_BLOCK: &str = "direct_load_block";

/// The kind and data object of a vector the decoder does not turn into row changes and that may
/// be a table's unsupported change, `None` for every other vector.
pub fn unsupported_vector(vector: &ChangeVector<'_>) -> Option<(&'static str, u32)> {
    if vector.change_type & 0x80 != 0 {
        return vector.obj.map(|obj| (ENCRYPTED, obj));
    }
    match &vector.body {
        OpBody::DirectLoad(d) if d.rows.is_empty() && !d.lob_id.starts_with(&LOB_ID_PREFIX) => {
            Some((DIRECT_LOAD_BLOCK, vector.obj.unwrap_or(d.dataobj)))
        }
        _ if vector.layer == 10 => vector.obj.map(|obj| (INDEX_LEAF, obj)),
        _ => None,
    }
}

/// Whether a piece whose first column field is `first_len` bytes long is an OLTP-compressed row
/// image (§5.1, §5.6): that single field's length is the piece's size (KDO size/delt) while the KDO
/// counts more than one column, or none (cc = 0: an 11.2 only; an undo piece with cc 0 has no
/// columns). The one rule of `ops::kdo::parse_piece_columns` (which keeps such a field whole) and
/// `events::place` (which keeps it under [`COMPRESSED_ROW`]).
pub fn is_compressed_row(kdo: &Kdo<'_>, first_len: usize) -> bool {
    kdo.size_delt == Some(first_len as i32) && kdo.cc.is_some_and(|c| c != 1)
}

/// Whether values of a column of `type_code` are beyond the decoder: no codec renders them, and the
/// hex of their bytes would be no value a reader could use (docs/data-quality.md, "Columns the
/// decoder cannot render"). Rendered, so `false`: every code with a codec (`values::code::ALL`),
/// LONG (8: text, `values`) and LONG RAW (24: hex, like RAW and BLOB data); ROWID (69) and UROWID
/// (208) are among the codecs (their 18-character text, `values::rowid`). Everything else is
/// `true`, among them:
///
/// * 58, opaque types: XMLTYPE (binary XML's CSX tokens live in the XDB schema's token tables, not in
///   the redo; object-relational storage is hidden object columns) and ANYDATA;
/// * 119 JSON (OSON, Oracle's binary JSON), 121 object types (SDO_GEOMETRY, user types), 122 nested
///   tables (the row holds the set id; the elements are rows of a storage table), 123 VARRAYs
///   (Oracle's pickled image), 111 REFs;
/// * 114 BFILE: the row holds a locator to a file outside the database, never its content;
/// * 0 (a type the dictionary names but does not list) and any other code: no codec.
pub fn unrenderable_type(type_code: i64) -> bool {
    const LONG: i64 = 8;
    const LONG_RAW: i64 = 24;
    !(code::ALL.contains(&type_code) || type_code == LONG || type_code == LONG_RAW)
}

/// A column of a table together with the hidden columns that store it: the positions (in `columns`,
/// segcol# order) of the column and of the run of hidden columns right after it. Oracle stores an
/// XMLTYPE in a hidden column (binary XML: a BLOB `SYS_NCnnnnn$`, its COLUMN_ID the XMLTYPE's,
/// placed right after it) and an object column's attributes in hidden columns that follow it, so a
/// column of an [`unrenderable_type`] owns the hidden run after it; any other column owns only
/// itself. A hidden column outside every run stands alone.
pub fn column_groups(columns: &[ColumnDef]) -> Vec<std::ops::Range<usize>> {
    let mut groups = Vec::new();
    let mut i = 0;
    while i < columns.len() {
        let mut end = i + 1;
        if unrenderable_type(columns[i].type_code) && !columns[i].hidden {
            while end < columns.len() && columns[end].hidden {
                end += 1;
            }
        }
        groups.push(i..end);
        i = end;
    }
    groups
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vector(layer: u8, change_type: u8, obj: Option<u32>, body: OpBody<'static>) -> ChangeVector<'static> {
        ChangeVector {
            index: 1,
            layer,
            code: 2,
            block_class: 1,
            afn: 4,
            dba: 0x0100_0101,
            obj,
            scn: 0,
            seq: 1,
            change_type,
            con_id: 0,
            flg: 0,
            body,
            fields: Vec::new(),
            offset: 0,
        }
    }

    #[test]
    fn vectors_by_kind_and_header_object() {
        // §4.1: TYP 0x82 = an encrypted row vector; the object is the header's data object id
        let encrypted = vector(11, 0x82, Some(70_015), OpBody::Opaque("encrypted"));
        assert_eq!(unsupported_vector(&encrypted), Some((ENCRYPTED, 70_015)));
        // an encrypted undo-segment vector names no object: not a table's
        assert_eq!(unsupported_vector(&vector(5, 0x80, None, OpBody::Opaque("encrypted"))), None);
        // index-leaf operations (the real 10.30 / 10.35 on 80707), encrypted ones as encrypted
        assert_eq!(
            unsupported_vector(&vector(10, 0, Some(80_707), OpBody::Opaque("index"))),
            Some((INDEX_LEAF, 80_707))
        );
        assert_eq!(
            unsupported_vector(&vector(10, 0x80, Some(80_707), OpBody::Opaque("index"))),
            Some((ENCRYPTED, 80_707))
        );
        // a clear row vector is none of them
        assert_eq!(unsupported_vector(&vector(11, 2, Some(70_015), OpBody::Opaque("row"))), None);
    }

    #[test]
    fn compressed_row_shape() {
        let kdo = |cc: u8, size: i32| Kdo { cc: Some(cc), size_delt: Some(size), ..Default::default() };
        // §5.1: one 40-byte field, size/delt 40, cc 3 (or cc 0 on an 11.2) -> the whole piece
        assert!(is_compressed_row(&kdo(3, 40), 40));
        assert!(is_compressed_row(&kdo(0, 40), 40));
        // a one-column row, a length that is not the size, no cc: ordinary columns
        assert!(!is_compressed_row(&kdo(1, 40), 40));
        assert!(!is_compressed_row(&kdo(3, 40), 39));
        assert!(!is_compressed_row(&Kdo { size_delt: Some(40), ..Default::default() }, 40));
    }

    fn column(segcol_no: i64, name: &str, type_code: i64, hidden: bool) -> ColumnDef {
        ColumnDef { segcol_no, name: name.into(), type_code, charset: None, nullable: true, hidden }
    }

    #[test]
    fn unrenderable_types_are_those_without_a_codec_but_long_and_long_raw() {
        for code in [0, 58, 111, 114, 119, 121, 122, 123, 999] {
            assert!(unrenderable_type(code), "{code}");
        }
        for code in [1, 2, 8, 12, 23, 24, 69, 96, 100, 101, 112, 113, 180, 181, 182, 183, 208, 231, 252] {
            assert!(!unrenderable_type(code), "{code}");
        }
    }

    #[test]
    fn an_unrenderable_column_owns_the_hidden_columns_after_it() {
        // ID, DOC XMLTYPE + its binary XML BLOB SYS_NC00003$, a hidden column of its own after a
        // renderable one, GEOM SDO_GEOMETRY (121) + SDO_GTYPE / SDO_SRID attributes, NOTE
        let columns = [
            column(1, "ID", 2, false),
            column(2, "DOC", 58, false),
            column(3, "SYS_NC00003$", 113, true),
            column(4, "NAME", 1, false),
            column(5, "SYS_NC00005$", 2, true),
            column(6, "GEOM", 121, false),
            column(7, "SYS_NC00007$", 2, true),
            column(8, "SYS_NC00008$", 2, true),
            column(9, "NOTE", 1, false),
        ];
        assert_eq!(column_groups(&columns), vec![0..1, 1..3, 3..4, 4..5, 5..8, 8..9]);
        assert_eq!(column_groups(&[]), Vec::<std::ops::Range<usize>>::new());
    }
}
