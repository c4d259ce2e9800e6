//! Transaction assembly (Python `redo_lib/assembly/`): change events in, committed transactions
//! out. `transactions` is the state machine (its transition table at the top of the file),
//! `buffer` the spilling change buffer of one transaction, `event` the events as the table holds
//! them and their Arrow reading and writing.
//!
//! The input is record batches of `arrow::events_schema()` in redo order; the output is
//! [`CommittedTransaction`]s whose changes stream back as record batches of the same schema (or as
//! events, for a consumer in Rust), the open transactions carried out in begin order, and the
//! counters, issues and cancelled / orphaned row changes of the reconciliation.

pub mod buffer;
pub mod event;
pub mod transactions;

pub use buffer::{ChangeBuffer, DEFAULT_MEMORY_BYTES, DEFAULT_MEMORY_LIMIT};
pub use event::{events_batch, events_of, ChangeEvent, EventColumns};
pub use transactions::{
    count_row_change, CommittedTransaction, Issue, TableOptions, TransactionTable, Xid, MAX_ISSUES,
};
