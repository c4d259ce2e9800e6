//! OP 5.19 / 5.20 — session attributes of a transaction (redo-format §5.5). Mirrors
//! `format/ops/session.py`: strings are UTF-8 with undecodable bytes kept as `\xNN`.

use super::kdo::{need, text_backslash};
use crate::endian::{EndianSlice, Endianity};
use crate::error::{Error, Result};
use crate::layout::{FileLayout, V19};
use crate::model::SessionInfo;

fn set_text(info: &mut SessionInfo, name: &str, value: String) {
    match name {
        "current_user" => info.current_user = value,
        "login_user" => info.login_user = value,
        "client_info" => info.client_info = value,
        "os_user" => info.os_user = value,
        "machine" => info.machine = value,
        "terminal" => info.terminal = value,
        "process" => info.process = value,
        "program" => info.program = value,
        "transaction_name" => info.transaction_name = value,
        "client_id" => info.client_id = value,
        _ => {}
    }
}

/// 5.19 field number (1-based) -> attribute.
const START_TEXT: [(usize, &str); 10] = [
    (2, "current_user"),
    (3, "login_user"),
    (4, "client_info"),
    (5, "os_user"),
    (6, "machine"),
    (7, "terminal"),
    (8, "process"),
    (9, "program"),
    (10, "transaction_name"),
    (14, "client_id"),
];
const CONTINUE_TEXT: [(usize, &str); 3] = [(2, "transaction_name"), (7, "client_id"), (8, "login_user")];
/// Field numbers of (flags, version, audit session id).
const START_NUMBERS: (usize, usize, usize) = (11, 12, 13);
const CONTINUE_NUMBERS: (usize, usize, usize) = (3, 4, 5);

fn session<E: Endianity>(fields: &[&[u8]], layout: &FileLayout<E>) -> Result<SessionInfo> {
    let Some(&f) = fields.first() else {
        return Err(Error::body("5.19/5.20 without its session field"));
    };
    need(f, 4, "session/serial")?;
    let s = EndianSlice::<E>::new(f);
    let serial = s.u16(2)?;
    let session = if layout.compat_version >= V19 && f.len() >= 8 { s.u32(4)? } else { s.u16(0)? as u32 };
    Ok(SessionInfo { session, serial, ..Default::default() })
}

fn numbers<E: Endianity>(
    info: &mut SessionInfo,
    fields: &[&[u8]],
    (flags, version, audit): (usize, usize, usize),
) -> Result<()> {
    if fields.len() >= flags && fields[flags - 1].len() >= 2 {
        let f = EndianSlice::<E>::new(fields[flags - 1]);
        info.flags = f.u16(0)?;
        if f.len() >= 6 {
            info.flags2 = f.u16(4)?;
        }
    }
    if fields.len() >= version && fields[version - 1].len() >= 4 {
        info.version = EndianSlice::<E>::new(fields[version - 1]).u32(0)?;
    }
    if fields.len() >= audit && fields[audit - 1].len() >= 4 {
        info.audit_session_id = EndianSlice::<E>::new(fields[audit - 1]).u32(0)?;
    }
    Ok(())
}

fn parse<E: Endianity>(
    fields: &[&[u8]],
    layout: &FileLayout<E>,
    texts: &[(usize, &str)],
    nums: (usize, usize, usize),
) -> Result<SessionInfo> {
    let mut info = session(fields, layout)?;
    for &(no, name) in texts {
        if no <= fields.len() {
            set_text(&mut info, name, text_backslash(fields[no - 1]));
        }
    }
    numbers::<E>(&mut info, fields, nums)?;
    Ok(info)
}

/// OP 5.19 — transaction start audit record: session, serial, user names, program, flags.
pub fn parse_session_start<E: Endianity>(
    fields: &[&[u8]],
    _cls: u16,
    layout: &FileLayout<E>,
) -> Result<SessionInfo> {
    parse(fields, layout, &START_TEXT, START_NUMBERS)
}

/// OP 5.20 — transaction continue audit record: session, serial, transaction name, flags.
pub fn parse_session_continue<E: Endianity>(
    fields: &[&[u8]],
    _cls: u16,
    layout: &FileLayout<E>,
) -> Result<SessionInfo> {
    parse(fields, layout, &CONTINUE_TEXT, CONTINUE_NUMBERS)
}
