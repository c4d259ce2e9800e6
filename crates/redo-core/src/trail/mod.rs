//! The trail (Python `redo_lib/trail/`): the dictionary the emitter shapes rows with (`dictionary`).

pub mod dictionary;

pub use dictionary::{ColumnDef, Dictionary, TableVersion};
