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
//! The object of a vector is its header's data object id (@6 high, @22 low); undo-segment vectors
//! carry none (`0xFFFFFFFF`) and are not counted here.

use crate::model::{ChangeVector, Kdo, OpBody};
use crate::ops::lob::LOB_ID_PREFIX;

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
}
