//! The decode report's counts of what was read (Python `format.reader.tally` into
//! `report.DecodeReport`): records and bytes, records by VLD, records and vectors by opcode, opaque
//! vectors by category, LOB and index vectors by kind (Python `format/ops/lob.py` `classify`).
//! Skipped items and damaged ranges are the reader's `Damage`.

use std::collections::BTreeMap;

use crate::events::{lob_image_piece, lob_piece};
use crate::model::{ChangeVector, OpBody, RedoRecord};
use crate::ops::lob::LOB_ID_PREFIX;
use crate::ops::lob_index::lob_index_entry;
use crate::ops::LOB_IMAGE_UNREAD;
use crate::unsupported::unsupported_vector;

/// Counts of one decode (the counters of Python `DecodeReport`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Tally {
    pub records: u64,
    pub bytes: u64,
    pub records_by_vld: BTreeMap<u8, u64>,
    pub records_by_opcode: BTreeMap<(u8, u8), u64>,
    pub vectors_by_opcode: BTreeMap<(u8, u8), u64>,
    pub opaque_by_category: BTreeMap<&'static str, u64>,
    pub lobs: BTreeMap<&'static str, u64>,
    /// vectors the decoder does not turn into row changes that may be a table's unsupported change,
    /// by (kind, data object of the vector header): `unsupported::unsupported_vector`
    pub unsupported: BTreeMap<(&'static str, u32), u64>,
}

/// The LOB / index report name of a vector, `None` for other vectors.
pub fn classify(vector: &ChangeVector<'_>) -> Option<&'static str> {
    match &vector.body {
        OpBody::LobSupport(_) => Some("llb_vectors"),
        OpBody::LobImage(i) => {
            Some(if lob_image_piece(i).is_some() { "lob_image_pieces" } else { "lob_images_unusable" })
        }
        OpBody::Opaque(LOB_IMAGE_UNREAD) => Some("lob_images_unread"),
        OpBody::Lob(l) => Some(if lob_piece(l).is_some() { "lob_data_pieces" } else { "lob_other_vectors" }),
        OpBody::DirectLoad(d) => Some(if !d.rows.is_empty() {
            "direct_load_table_blocks"
        } else if d.lob_id.starts_with(&LOB_ID_PREFIX) {
            "lob_page_images"
        } else {
            "direct_load_other_blocks"
        }),
        OpBody::Undo(u) => match u.opc {
            (26, 1) => Some("lob_undo_vectors"),
            (10, 22) => Some("index_undo_vectors"),
            _ => None,
        },
        _ if vector.layer == 10 && lob_index_entry(vector.code, &vector.fields).is_some() => {
            Some("lob_index_entries")
        }
        _ if vector.layer == 10 => Some("index_vectors_ignored"),
        OpBody::Opaque(_) if vector.layer == 26 => Some("lob_other_vectors"),
        _ => None,
    }
}

impl Tally {
    /// Count one record and its vectors.
    pub fn count(&mut self, record: &RedoRecord<'_>) {
        self.records += 1;
        self.bytes += record.length as u64;
        *self.records_by_vld.entry(record.vld).or_default() += 1;
        let mut seen: Vec<(u8, u8)> = Vec::with_capacity(record.vectors.len());
        for v in &record.vectors {
            let op = (v.layer, v.code);
            *self.vectors_by_opcode.entry(op).or_default() += 1;
            if !seen.contains(&op) {
                seen.push(op);
                *self.records_by_opcode.entry(op).or_default() += 1;
            }
            if let OpBody::Opaque(category) = v.body {
                *self.opaque_by_category.entry(category).or_default() += 1;
            }
            if let Some(name) = classify(v) {
                *self.lobs.entry(name).or_default() += 1;
            }
            if let Some(key) = unsupported_vector(v) {
                *self.unsupported.entry(key).or_default() += 1;
            }
        }
    }
}
