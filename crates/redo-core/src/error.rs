//! The one error type of the core, mirroring `redo_lib/errors.py`.
//!
//! Every failure on bad input is an [`Error`]: one variant per Python `RedoError` subclass that the
//! core raises (`FormatError`, `ChecksumError`, `BlockHeaderError`, `TruncatedLogError`,
//! `UnsupportedFormatError`, `ValueDecodeError`, and the transaction table's `StorageError` and
//! `AssemblyError`), each with the message, the [`Position`] (file, log sequence, block, offset)
//! and structured details, in the order Python adds them. The binding (`redo-py/src/errors.rs`)
//! maps each variant to its Python class; nothing else crosses.

use std::fmt;

/// Where in the input something is (Python `errors.Position`; the text-dump `line` is not used here).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Position {
    pub file: Option<String>,
    pub sequence: Option<u32>,
    pub block: Option<u32>,
    pub offset: Option<u64>,
}

impl Position {
    pub fn offset(offset: usize) -> Self {
        Position { offset: Some(offset as u64), ..Default::default() }
    }
    pub fn block(block: u32, offset: usize) -> Self {
        Position { block: Some(block), offset: Some(offset as u64), ..Default::default() }
    }
}

/// Error payload shared by every variant.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ErrorInfo {
    pub message: String,
    pub position: Position,
    /// `details` of the Python exception, in insertion order (`opcode`, `change`, `record`, ...).
    pub details: Vec<(&'static str, Detail)>,
}

/// A detail value: Python puts ints (`change`, `available_blocks`) and strings in `details`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Detail {
    Int(i64),
    Text(String),
    /// A transaction id (Python `scn.Xid(usn, slot, sqn)`; `AssemblyError`'s `xid` and `new_xid`).
    Xid(i64, i64, i64),
}

impl From<String> for Detail {
    fn from(s: String) -> Self {
        Detail::Text(s)
    }
}
impl From<&str> for Detail {
    fn from(s: &str) -> Self {
        Detail::Text(s.to_owned())
    }
}
impl From<u32> for Detail {
    fn from(v: u32) -> Self {
        Detail::Int(v as i64)
    }
}

/// A failure on bad input. Variant = Python class (`redo_lib.errors`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Error {
    /// `FormatError`: the bytes break the redo format.
    Format(Box<ErrorInfo>),
    /// `ChecksumError`: a block fails the redo-format §2.1 rule.
    Checksum(Box<ErrorInfo>),
    /// `BlockHeaderError`: block number / sequence / signature wrong for its place (§2).
    BlockHeader(Box<ErrorInfo>),
    /// `TruncatedLogError`: the file or range ends inside a record.
    TruncatedLog(Box<ErrorInfo>),
    /// `UnsupportedFormatError`: block size / file type we do not handle (§1.3).
    UnsupportedFormat(Box<ErrorInfo>),
    /// `ValueDecodeError`: a column value does not decode as its type.
    ValueDecode(Box<ErrorInfo>),
    /// `StorageError`: reading or writing bytes failed (the transaction table's spill files).
    Storage(Box<ErrorInfo>),
    /// `AssemblyError`: an impossible transaction sequence (the transaction table's raise policy).
    Assembly(Box<ErrorInfo>),
    /// `DictionaryError`: a dictionary document that breaks its format (`trail::dictionary`), with
    /// the JSON path of the problem in `json_path`.
    Dictionary(Box<ErrorInfo>),
}

/// The variants in one list (the binding's test walks them all).
pub const ERROR_KINDS: [&str; 9] = [
    "format",
    "checksum",
    "block_header",
    "truncated",
    "unsupported_format",
    "value",
    "storage",
    "assembly",
    "dictionary",
];

pub type Result<T> = std::result::Result<T, Error>;

fn info(message: impl Into<String>, position: Position) -> Box<ErrorInfo> {
    Box::new(ErrorInfo { message: message.into(), position, details: Vec::new() })
}

impl Error {
    pub fn format(message: impl Into<String>, position: Position) -> Self {
        Error::Format(info(message, position))
    }
    /// A `FormatError` without a position (op-body parsers: `vectors.rs` adds the offset).
    pub fn body(message: impl Into<String>) -> Self {
        Error::Format(info(message, Position::default()))
    }
    pub fn checksum(message: impl Into<String>, position: Position) -> Self {
        Error::Checksum(info(message, position))
    }
    pub fn block_header(message: impl Into<String>, position: Position) -> Self {
        Error::BlockHeader(info(message, position))
    }
    pub fn truncated(message: impl Into<String>, position: Position) -> Self {
        Error::TruncatedLog(info(message, position))
    }
    pub fn unsupported(message: impl Into<String>, position: Position) -> Self {
        Error::UnsupportedFormat(info(message, position))
    }
    pub fn storage(message: impl Into<String>, position: Position) -> Self {
        Error::Storage(info(message, position))
    }
    pub fn assembly(message: impl Into<String>, position: Position) -> Self {
        Error::Assembly(info(message, position))
    }
    pub fn dictionary(message: impl Into<String>, position: Position) -> Self {
        Error::Dictionary(info(message, position))
    }
    /// A variant by its stable `kind` string (tests of the binding's mapping).
    pub fn of_kind(kind: &str, message: impl Into<String>, position: Position) -> Option<Self> {
        let i = info(message, position);
        Some(match kind {
            "format" => Error::Format(i),
            "checksum" => Error::Checksum(i),
            "block_header" => Error::BlockHeader(i),
            "truncated" => Error::TruncatedLog(i),
            "unsupported_format" => Error::UnsupportedFormat(i),
            "value" => Error::ValueDecode(i),
            "storage" => Error::Storage(i),
            "assembly" => Error::Assembly(i),
            "dictionary" => Error::Dictionary(i),
            _ => return None,
        })
    }

    pub fn info(&self) -> &ErrorInfo {
        match self {
            Error::Format(i)
            | Error::Checksum(i)
            | Error::BlockHeader(i)
            | Error::TruncatedLog(i)
            | Error::UnsupportedFormat(i)
            | Error::ValueDecode(i)
            | Error::Storage(i)
            | Error::Assembly(i)
            | Error::Dictionary(i) => i,
        }
    }

    pub fn info_mut(&mut self) -> &mut ErrorInfo {
        match self {
            Error::Format(i)
            | Error::Checksum(i)
            | Error::BlockHeader(i)
            | Error::TruncatedLog(i)
            | Error::UnsupportedFormat(i)
            | Error::ValueDecode(i)
            | Error::Storage(i)
            | Error::Assembly(i)
            | Error::Dictionary(i) => i,
        }
    }

    /// The Python class's `kind` (`redo_lib.errors`), e.g. `"checksum"`.
    pub fn kind(&self) -> &'static str {
        match self {
            Error::Format(_) => "format",
            Error::Checksum(_) => "checksum",
            Error::BlockHeader(_) => "block_header",
            Error::TruncatedLog(_) => "truncated",
            Error::UnsupportedFormat(_) => "unsupported_format",
            Error::ValueDecode(_) => "value",
            Error::Storage(_) => "storage",
            Error::Assembly(_) => "assembly",
            Error::Dictionary(_) => "dictionary",
        }
    }

    pub fn position(&self) -> &Position {
        &self.info().position
    }

    /// Add a detail unless one of that name is there (Python `details.setdefault`).
    pub fn set_default_detail(&mut self, key: &'static str, value: impl Into<Detail>) {
        let d = &mut self.info_mut().details;
        if !d.iter().any(|(k, _)| *k == key) {
            d.push((key, value.into()));
        }
    }

    pub fn with_detail(mut self, key: &'static str, value: impl Into<Detail>) -> Self {
        self.info_mut().details.push((key, value.into()));
        self
    }

    /// Fill in the still unknown parts of the position (Python `errors.locate`).
    pub fn locate(mut self, file: Option<&str>, sequence: Option<u32>) -> Self {
        let p = &mut self.info_mut().position;
        if p.file.is_none() {
            p.file = file.map(str::to_owned);
        }
        if p.sequence.is_none() {
            p.sequence = sequence;
        }
        self
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let i = self.info();
        let p = &i.position;
        if let Some(file) = &p.file {
            write!(f, "{file}: ")?;
        }
        if let Some(block) = p.block {
            write!(f, "block {block}, offset {}: ", p.offset.unwrap_or(0))?;
        } else if let Some(offset) = p.offset {
            write!(f, "byte offset {offset}: ")?;
        }
        write!(f, "{} ({})", i.message, self.kind())
    }
}

impl std::error::Error for Error {}
