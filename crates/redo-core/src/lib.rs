//! redo-core: the Oracle archived redo log reader of Redotrail, in Rust (docs/native.md).
//!
//! bytes -> blocks -> redo records -> change vectors -> op bodies, with the rules of
//! `redo_lib.format` (the Python reader, kept as the test oracle until the differential agrees
//! everywhere) and of `shared/docs/redo-format.md`, whose section numbers sit beside the constants.
//! No Python here: `redo-py` is the binding. No `unsafe`, no panics on bad input: every failure is
//! an [`Error`] with file, block and offset.
#![forbid(unsafe_code)]

pub mod arrow;
pub mod assembly;
pub mod blocks;
pub mod decode;
pub mod endian;
pub mod error;
pub mod events;
pub mod fuzzing;
pub mod header;
pub mod layout;
pub mod mirror;
pub mod model;
pub mod ops;
pub mod reader;
pub mod records;
pub mod stage;
pub mod tally;
pub mod threads;
pub mod trail;
pub mod unsupported;
pub mod values;
pub mod vectors;

pub use endian::{BigEndian, EndianSlice, Endianity, LittleEndian};
pub use error::{Detail, Error, ErrorInfo, Position, Result};
pub use header::{parse_log_header, LogHeader, HEADER_PROBE_SIZE};
pub use reader::{CorruptRange, Damage, Policy, RecordReader, Step};
