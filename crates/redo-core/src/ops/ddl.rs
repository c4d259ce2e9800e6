//! OP 24.1 — DDL (KRVDDL), redo-format §5.9. Mirrors `format/ops/ddl.py`: the command type is read
//! at @12 (`ddl_type`); the "kind" at @16 only decides whether field 12 holds an object id (§12).

use super::kdo::{need, parse_xid, text_backslash};
use crate::endian::{EndianSlice, Endianity};
use crate::error::{Error, Result};
use crate::model::Ddl;

/// Kinds (u16 @16) whose field 12 is no object id.
const NO_OBJECT_KINDS: [u16; 6] = [4, 5, 6, 8, 9, 10];

fn text(raw: &[u8]) -> String {
    let end = raw.iter().position(|&b| b == 0).unwrap_or(raw.len());
    text_backslash(&raw[..end])
}

/// Field 1: XID @4, type u16 @12, kind u16 @16; field 2 schema; field 8 text; field 12 obj.
pub fn parse_ddl<E: Endianity>(fields: &[&[u8]], _cls: u16) -> Result<Ddl> {
    let Some(&f) = fields.first() else {
        return Err(Error::body("24.1 without fields"));
    };
    need(f, 18, "24.1 header")?;
    let s = EndianSlice::<E>::new(f);
    let kind = s.u16(16)?;
    let obj = if !NO_OBJECT_KINDS.contains(&kind) && fields.len() >= 12 && fields[11].len() >= 4 {
        Some(EndianSlice::<E>::new(fields[11]).u32(0)?)
    } else {
        None
    };
    Ok(Ddl {
        xid: parse_xid::<E>(f, 4)?,
        ddl_type: s.u16(12)?,
        obj,
        schema: fields.get(1).map(|f| text(f)).unwrap_or_default(),
        text: fields.get(7).map(|f| text(f)).unwrap_or_default(),
    })
}
