//! Op-body parsers, one module per opcode family, and the OPCODES dispatch (Python
//! `format/opcodes.py`): `(layer, code)` -> body; every other vector is `Opaque(category)`,
//! classified by layer, counted, never an error.

pub mod ddl;
pub mod direct_load;
pub mod kdo;
pub mod lob;
pub mod lob_index;
pub mod rows;
pub mod session;
pub mod undo;

use crate::endian::Endianity;
use crate::error::Result;
use crate::layout::FileLayout;
use crate::model::OpBody;

/// Layer -> category of the vectors we do not interpret (names from Oracle's layer list).
pub fn layer_category(layer: u8) -> &'static str {
    match layer {
        4 => "cleanout",
        5 => "undo",
        10 => "index",
        11 => "row",
        13 | 22 => "space",
        14 => "extent",
        17 | 18 => "backup",
        19 => "direct_load",
        20 => "metadata",
        23 => "block_write",
        24 => "logminer",
        26 => "lob",
        _ => "unknown",
    }
}

/// The category of a 26.6 whose fields do not fit §5.10's layout.
pub const LOB_IMAGE_UNREAD: &str = "lob_image_unread";

/// The category of a vector whose change type has bit 0x80 (encrypted tablespace, §4.1).
pub const ENCRYPTED: &str = "encrypted";

/// Is `(layer, code)` one we parse (Python `OPCODES`)?
pub fn is_parsed(layer: u8, code: u8) -> bool {
    matches!(
        (layer, code),
        (5, 1 | 2 | 4 | 6 | 11 | 19 | 20) | (19, 1) | (24, 1) | (26, 2) | (26, 6) | (11, 17)
    ) || (layer == 11 && rows::ROW_OPCODES.contains(&code))
}

/// The op body of one vector (Python `parse_body`). Encrypted vectors (TYP bit 0x80) stay opaque.
pub fn parse_body<'a, E: Endianity>(
    layer: u8,
    code: u8,
    change_type: u8,
    fields: &[&'a [u8]],
    cls: u16,
    layout: &FileLayout<E>,
) -> Result<OpBody<'a>> {
    if change_type & 0x80 != 0 {
        return Ok(OpBody::Opaque(ENCRYPTED));
    }
    Ok(match (layer, code) {
        (5, 1) => OpBody::Undo(undo::parse_undo_record(fields, cls, layout)?),
        (5, 2) => OpBody::Begin(undo::parse_transaction_begin::<E>(fields, cls)?),
        (5, 4) => OpBody::End(undo::parse_transaction_end::<E>(fields, cls)?),
        (5, 6) | (5, 11) => OpBody::PartialRollback(undo::parse_partial_rollback::<E>(fields, cls)?),
        (5, 19) => OpBody::Session(session::parse_session_start(fields, cls, layout)?),
        (5, 20) => OpBody::Session(session::parse_session_continue(fields, cls, layout)?),
        (19, 1) => OpBody::DirectLoad(direct_load::parse_direct_load::<E>(fields, cls)?),
        (24, 1) => OpBody::Ddl(ddl::parse_ddl::<E>(fields, cls)?),
        (26, 2) => OpBody::Lob(lob::parse_lob_redo::<E>(fields, cls)?),
        // low confidence, no real sample (§5.10): a 26.6 the layout does not fit is counted
        // (`lob_images_unread`), not a failed decode; its pages then resolve no locator (counted too)
        (26, 6) => match lob::parse_lob_image::<E>(fields, cls) {
            Ok(image) => OpBody::LobImage(image),
            Err(_) => OpBody::Opaque(LOB_IMAGE_UNREAD),
        },
        (11, 17) => OpBody::LobSupport(lob::parse_llb(fields, cls)?),
        (11, c) if rows::ROW_OPCODES.contains(&c) => {
            OpBody::Row(rows::parse_row_operation(fields, cls, layout)?)
        }
        _ => OpBody::Opaque(layer_category(layer)),
    })
}
