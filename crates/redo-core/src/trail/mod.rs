//! The trail (Python `redo_lib/trail/` and the row-change half of `redo_lib/assembly/`): committed
//! transactions' change events -> row changes (`rows`, with LOB pieces stitched by `lobs`) -> trail
//! records shaped with the dictionary (`dictionary`, `emit`) -> record batches of the trail schema
//! (`schema`). Issue 16, third step: compared with the Python emitter by
//! tests/unit/native/test_emit_differential.py; not yet called by the pipeline.

pub mod ddl;
pub mod dictionary;
pub mod emit;
pub mod jsonl;
pub mod lob_carry;
pub mod lobs;
pub mod parquet_out;
pub mod rows;
pub mod schema;
pub mod securefile;
pub mod sys;
pub mod sys_apply;
pub mod sys_columns;
pub mod sys_partitions;
pub mod table;

pub use ddl::ddl_subject;
pub use dictionary::{ColumnDef, Dictionary, KeyKind, TableVersion};
pub use emit::{capture_options, ddl_counter, DdlHandler, DdlProblem, DdlSubject, EmitOptions, Emitter};
pub use lob_carry::lob_pages_schema;
pub use rows::{RowChange, RowChanges, RowOp};
pub use schema::{trail_schema, TrailBuilder, TrailRecord, TrailSink};
pub use sys::{SysRow, SysRows, SysTable, SysValue};
pub use sys_apply::{SysApplied, SysChange};
pub use sys_columns::{column_differences, columns_from_sys, ColumnChanges, ColumnDisagreement, SysVersion};
pub use sys_partitions::{rowid_prefix, PartitionSegments};
