//! The trail as a table for people (`decode --format table`), straight from record batches of the
//! trail schema (or the staged one: extra columns are ignored), so that no trail row becomes a
//! Python object (issue 31). The batch is read as the JSON lines read it (`jsonl.rs`'s `Columns`:
//! the same column lookup, type checks and row checks; a repeated name in an image keeps its first
//! place with its last value, as there).
//!
//! One line per row under [`table_header`], the columns padded to their width in characters:
//!
//! ```text
//! XID            COMMIT SCN IND OP        TABLE                          ROWID              COLUMNS
//! 5.11.1234         1234567   3 INSERT    APP.T                          AAARF1AAHAAAACFAAA ID="1", NAME=NULL
//! ```
//!
//! * `TABLE` is `owner.table`, the table alone when the owner is null or empty;
//! * `COLUMNS` the row's image, `name=value` separated by `", "`: a value double-quoted, with `\"`,
//!   `\\`, `\n`, `\r`, `\t`, `\b`, `\f` and `\u00XX` (lower-case hex) for the other control
//!   characters (U+0000-U+001F, U+007F-U+009F); every other character as it is (UTF-8); SQL NULL
//!   is `NULL`, unquoted, so it differs from the text `"NULL"` and from the empty string `""`.
//!
//! A null in a column the trail schema holds non-null (xid, op, table, rowid, commit_scn,
//! trans_ind), a `trans_ind` that is no `TransInd`, a null pair, a column of the wrong type: an
//! `AssemblyError` naming the column and the row. No panic.

use arrow_array::RecordBatch;

use super::jsonl::{
    entries, render_rows, required, row_error, write_int, write_u16_escape, Columns, Scratch,
};
use crate::error::Result;

/// (title, width in characters, right-aligned) of the columns before `COLUMNS`.
const LAYOUT: [(&str, usize, bool); 6] = [
    ("XID", 12, false),
    ("COMMIT SCN", 12, true),
    ("IND", 3, true),
    ("OP", 9, false),
    ("TABLE", 30, false),
    ("ROWID", 18, false),
];

/// `text` padded with spaces to `width` characters (never cut), then a space.
fn write_cell(out: &mut Vec<u8>, text: &[u8], width: usize, right: bool) {
    let chars = text.iter().filter(|b| (**b & 0xC0) != 0x80).count();
    let pad = width.saturating_sub(chars);
    if right {
        out.resize(out.len() + pad, b' ');
    }
    out.extend_from_slice(text);
    if !right {
        out.resize(out.len() + pad, b' ');
    }
    out.push(b' ');
}

/// The header line of the table.
pub fn table_header() -> String {
    let mut out = Vec::new();
    for (title, width, right) in LAYOUT {
        write_cell(&mut out, title.as_bytes(), width, right);
    }
    out.extend_from_slice(b"COLUMNS\n");
    String::from_utf8_lossy(&out).into_owned()
}

/// The lines of every row of `batch` (no header), appended to `out` (nothing is appended when a
/// row fails).
pub fn render_table(batch: &RecordBatch, out: &mut Vec<u8>) -> Result<()> {
    render_rows(batch, out, write_row)
}

/// [`render_table`] into a new buffer.
pub fn table_bytes(batch: &RecordBatch) -> Result<Vec<u8>> {
    let mut out = Vec::with_capacity(batch.get_array_memory_size().saturating_add(batch.num_rows() * 120));
    render_table(batch, &mut out)?;
    Ok(out)
}

fn write_row<'a>(c: &Columns<'a>, i: usize, out: &mut Vec<u8>, scratch: &mut Scratch<'a>) -> Result<()> {
    let text = |value: Option<&'a str>, column: &str| value.ok_or_else(|| row_error(column, i, "is null"));
    let commit_scn = required(c.commit_scn.get(i), "commit_scn", i)?;
    let trans_ind = c.trans_ind(i)?;
    let (xid, op) = (text(c.xid.get(i), "xid")?, text(c.op.get(i), "op")?);
    let (table, rowid) = (text(c.table.get(i), "table")?, text(c.rowid.get(i), "rowid")?);
    let mut number = Vec::with_capacity(24);
    let [xid_cell, scn_cell, ind_cell, op_cell, table_cell, rowid_cell] = LAYOUT;
    write_cell(out, xid.as_bytes(), xid_cell.1, xid_cell.2);
    write_int(&mut number, commit_scn);
    write_cell(out, &number, scn_cell.1, scn_cell.2);
    number.clear();
    write_int(&mut number, trans_ind);
    write_cell(out, &number, ind_cell.1, ind_cell.2);
    write_cell(out, op.as_bytes(), op_cell.1, op_cell.2);
    let mut name = Vec::with_capacity(64);
    if let Some(owner) = c.owner.get(i).filter(|o| !o.is_empty()) {
        name.extend_from_slice(owner.as_bytes());
        name.push(b'.');
    }
    name.extend_from_slice(table.as_bytes());
    write_cell(out, &name, table_cell.1, table_cell.2);
    write_cell(out, rowid.as_bytes(), rowid_cell.1, rowid_cell.2);
    for (k, (name, value)) in entries(&c.columns, i, scratch)?.iter().enumerate() {
        if k > 0 {
            out.extend_from_slice(b", ");
        }
        out.extend_from_slice(name.unwrap_or("NULL").as_bytes());
        out.push(b'=');
        match value {
            Some(value) => write_value(out, value),
            None => out.extend_from_slice(b"NULL"),
        }
    }
    out.push(b'\n');
    Ok(())
}

/// A value double-quoted: `"`, `\` and the control characters escaped as JSON does, the rest as
/// it is.
fn write_value(out: &mut Vec<u8>, s: &str) {
    out.push(b'"');
    let mut run = 0; // start of the text copied as it is
    for (at, ch) in s.char_indices() {
        let escape: &[u8] = match ch {
            '"' => b"\\\"",
            '\\' => b"\\\\",
            '\n' => b"\\n",
            '\r' => b"\\r",
            '\t' => b"\\t",
            '\u{8}' => b"\\b",
            '\u{c}' => b"\\f",
            c if c.is_control() => b"",
            _ => continue,
        };
        out.extend_from_slice(s.as_bytes().get(run..at).unwrap_or_default());
        if escape.is_empty() {
            write_u16_escape(out, u32::from(ch));
        } else {
            out.extend_from_slice(escape);
        }
        run = at + ch.len_utf8();
    }
    out.extend_from_slice(s.as_bytes().get(run..).unwrap_or_default());
    out.push(b'"');
}

#[cfg(test)]
#[path = "table_tests.rs"]
mod tests;
