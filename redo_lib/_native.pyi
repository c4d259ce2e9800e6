"""Types of ``redo_lib._native``, the pyo3 binding of the Rust core (``crates/redo-py/src``).

Written by hand from the binding's ``#[pyfunction]`` / ``#[pyclass]`` / ``#[pymethods]``: a changed
signature there is changed here. Record batches go in as any object with ``__arrow_c_array__``
(``pyarrow.RecordBatch``) and come out as :class:`ArrowBatch` (``pyarrow.record_batch(obj)`` takes
it over), schemas as :class:`ArrowSchema` (``pyarrow.schema(obj)``). Errors are the classes of
``redo_lib.errors`` (``RedoError`` subclasses, built in ``errors.rs``); a bad argument value (an
unknown policy, a closed writer) is a ``ValueError``. A class without ``__new__`` here (``#[new]``)
cannot be made from Python.
"""

import os
from collections.abc import Iterable, Sequence
from typing import Any, Literal, NoReturn, Protocol, Self, final, overload

from typing_extensions import CapsuleType

from redo_lib.errors import Position, ValueDecodeError
from redo_lib.scn import Xid

# the module's own (pyo3 fills it in lib.rs' order of registration)
__all__ = [
    "SOURCE_HASH",
    "ERROR_KINDS",
    "parse_log_header",
    "read_records",
    "count_records",
    "parse_record",
    "raise_core_error",
    "events_schema",
    "decode_events",
    "decode_counts",
    "locator_slots",
    "render_value",
    "render_values",
    "charsets",
    "ArrowBatch",
    "ArrowSchema",
    "TransactionTable",
    "CommittedTransaction",
    "EventBatches",
    "Emitter",
    "trail_schema",
    "capture_options",
    "lob_pages_schema",
    "Assembler",
    "ThreadMerge",
    "staged_trail_schema",
    "carried_schema",
    "MirrorFold",
    "fold_schema",
    "partition_segments",
    "render_jsonl",
    "numbered_trail_batch",
    "TrailParquetWriter",
    "render_table",
    "table_header",
]

SOURCE_HASH: str
ERROR_KINDS: list[str]

class _ArrowArrayExportable(Protocol):
    """What the binding reads a record batch from (``arrow.rs``, ``import_batch``): it calls
    ``__arrow_c_array__()`` and takes a struct array (a record batch) from the capsules."""

    def __arrow_c_array__(self, requested_schema: Any = None, /) -> tuple[object, object]: ...

# (object id, operation) -> row changes
_ObjCounts = dict[tuple[int, str], int]

@final
class ArrowBatch:
    """One record batch, exported on request (``pyarrow.record_batch(batch)``)."""

    @property
    def num_rows(self) -> int: ...
    def __len__(self) -> int: ...
    def __arrow_c_array__(
        self, requested_schema: object | None = None
    ) -> tuple[CapsuleType, CapsuleType]: ...
    def __arrow_c_schema__(self) -> CapsuleType: ...

@final
class ArrowSchema:
    """A schema, exported on request (``pyarrow.schema(obj)``)."""

    def __arrow_c_schema__(self) -> CapsuleType: ...

# lib.rs: the reader, for the differential tests and tools; records and headers as plain dicts
# (``"__type__"``: the class name of ``format/model.py``)

def parse_log_header(data: bytes, name: str | None = None) -> dict[str, Any]: ...
def read_records(
    data: bytes,
    first_block: int = 2,
    last_block: int | None = None,
    policy: str = "raise",
    name: str | None = None,
) -> tuple[list[dict[str, Any]], dict[str, list[Any]]]: ...
def parse_record(
    data: bytes,
    *,
    big_endian: bool = False,
    compat_version: int = 0x13000000,
    rba: tuple[int, int, int] = (1, 2, 16),
    thread: int = 1,
    lwn: tuple[int, int, int, int, int] | None = None,
) -> dict[str, Any]: ...
def count_records(
    data: bytes,
    first_block: int = 2,
    last_block: int | None = None,
    policy: str = "raise",
    name: str | None = None,
) -> tuple[int, int, int]: ...
def events_schema() -> ArrowSchema: ...

# ("need", from_block, to_block): the window must be wider (to_block 0: to the end of the file)
_Need = tuple[Literal["need"], int, int]

def decode_events(
    data: bytes,
    *,
    header: bytes | None = None,
    base: int = 0,
    more: bool = False,
    first_block: int = 2,
    last_block: int | None = None,
    policy: str = "raise",
    name: str | None = None,
    chunk: int = 8192,
) -> tuple[Literal["done"], list[ArrowBatch], dict[str, Any]] | _Need: ...
def decode_counts(
    data: bytes,
    *,
    header: bytes | None = None,
    base: int = 0,
    more: bool = False,
    first_block: int = 2,
    last_block: int | None = None,
    policy: str = "raise",
    name: str | None = None,
) -> tuple[Literal["done"], dict[str, Any]] | _Need: ...
def locator_slots(batch: _ArrowArrayExportable) -> list[tuple[int, int, int]]: ...
def raise_core_error(
    kind: str,
    file: str | None = None,
    sequence: int | None = None,
    block: int | None = None,
    offset: int | None = None,
) -> NoReturn: ...  # always raises

# values.rs: `charset` an Oracle name or id, `db_timezone` minutes east of UTC or text like "+05:30"

def charsets() -> list[tuple[int, str, bool]]: ...
def render_value(
    type_code: int, data: bytes, charset: int | str | None = None, db_timezone: int | str | None = None
) -> str: ...
@overload
def render_values(
    type_code: int,
    data: Iterable[bytes | None],
    charset: int | str | None = None,
    db_timezone: int | str | None = None,
    errors: Literal["raise"] = "raise",
) -> list[str | None]: ...
@overload
def render_values(
    type_code: int,
    data: Iterable[bytes | None],
    charset: int | str | None = None,
    db_timezone: int | str | None = None,
    *,
    errors: Literal["return"],
) -> list[str | ValueDecodeError | None]: ...
@overload
def render_values(
    type_code: int,
    data: Iterable[bytes | None],
    charset: int | str | None,
    db_timezone: int | str | None,
    errors: Literal["return"],
) -> list[str | ValueDecodeError | None]: ...

# assembly.rs

@final
class CommittedTransaction:
    """A committed transaction (``TransactionTable.feed_batch``): its commit position, its changes
    read once with ``batches()`` (or by ``Emitter.emit``)."""

    @property
    def commit_scn(self) -> int: ...
    @property
    def commit_time(self) -> int: ...  # microseconds since 1970-01-01 (UTC)
    @property
    def thread(self) -> int: ...
    @property
    def seq(self) -> int: ...
    @property
    def block(self) -> int: ...
    @property
    def offset(self) -> int: ...
    @property
    def begin_scn(self) -> int: ...
    @property
    def xid(self) -> Xid: ...
    @property
    def order_key(self) -> tuple[int, int, int, int, int]: ...
    def __len__(self) -> int: ...
    def batches(self, max_rows: int = 8192) -> EventBatches: ...

@final
class EventBatches:
    def __iter__(self) -> Self: ...
    def __next__(self) -> ArrowBatch: ...

@final
class TransactionTable:
    def __new__(
        cls,
        *,
        memory_limit: int = 50_000,
        memory_bytes: int = 16 << 20,
        policy: str = "skip",
        spill_dir: str | os.PathLike[str] | None = None,
        hold_from: int | None = None,
    ) -> Self: ...
    # an error carries the transactions committed before it as its `committed` attribute
    def feed_batch(self, batch: _ArrowArrayExportable) -> list[CommittedTransaction]: ...
    def carry_out(self, max_rows: int = 8192) -> list[ArrowBatch]: ...
    def __len__(self) -> int: ...
    def held_xids(self) -> list[Xid]: ...
    def open_xids(self) -> list[Xid]: ...
    @property
    def counters(self) -> dict[str, int]: ...
    @property
    def cancelled(self) -> _ObjCounts: ...
    @property
    def orphaned(self) -> _ObjCounts: ...
    @property
    def issues(self) -> list[tuple[str, str, Position]]: ...  # (kind, xid text, position)

# emit.rs

_Names = set[str] | frozenset[str]

def capture_options(entries: Sequence[str]) -> dict[str, set[str]]: ...
def trail_schema() -> ArrowSchema: ...
def lob_pages_schema() -> ArrowSchema: ...

@final
class Emitter:
    def __new__(
        cls,
        dictionary: str | None = None,
        *,
        emit_unknown: bool = False,
        full_deletes: bool = False,
        update_before_images: bool = False,
        include_owners: _Names | None = None,
        exclude_owners: _Names | None = None,
        include_tables: _Names | None = None,
        exclude_tables: _Names | None = None,
        exclude_columns: _Names | None = None,
        apply_ddl: bool = True,
    ) -> Self: ...
    # an error carries the rows built before it as its `rows` attribute (an ArrowBatch)
    def emit(self, txn: CommittedTransaction, commit_log: str | None = None) -> ArrowBatch: ...
    def emit_many(
        self, txns: Sequence[CommittedTransaction], commit_logs: Sequence[str | None] | None = None
    ) -> ArrowBatch: ...
    # obj -> (owner, name, encrypted, compress_for, iot_type)
    def tables_of(self, objs: Sequence[int]) -> dict[int, tuple[str, str, bool, str | None, str | None]]: ...
    @property
    def counters(self) -> dict[str, int]: ...
    @property
    def trail_counts(self) -> _ObjCounts: ...
    @property
    def out_of_scope(self) -> _ObjCounts: ...
    @property
    def unsupported(self) -> _ObjCounts: ...
    @property
    def unrenderable_ops(self) -> _ObjCounts: ...
    @property
    def unrenderable(self) -> dict[tuple[str, str, int], int]: ...  # (OWNER.TABLE, column, type code)
    @property
    def unrenderable_out_of_scope(self) -> dict[tuple[str, str, int], int]: ...
    @property
    def rowid_keyed(self) -> _ObjCounts: ...
    @property
    def unknown_in_scope(self) -> _ObjCounts: ...
    @property
    def unknown_objects(self) -> dict[int, int]: ...
    @property
    def unknown_first_scn(self) -> dict[int, int]: ...
    @property
    def emitted(self) -> dict[tuple[str, str], int]: ...  # (owner.table, op)
    @property
    def value_errors(self) -> list[str]: ...
    @property
    def lob_unresolved(self) -> dict[tuple[str, str, str], int]: ...  # (OWNER.TABLE, column, reason)
    @property
    def ddl_records(self) -> dict[tuple[str, str], int]: ...  # (owner.name, verb)
    @property
    def ddl_problems(self) -> list[dict[str, Any]]: ...
    @property
    def column_disagreements(self) -> list[dict[str, Any]]: ...
    @property
    def tables_followed(self) -> list[tuple[int, str, int]]: ...  # (table obj, XID, commit SCN)
    def carry_in_lobs(self, batch: _ArrowArrayExportable) -> None: ...
    def carry_out_lobs(self) -> None: ...
    def next_carried_lobs(self, max_bytes: int = 8 << 20) -> ArrowBatch | None: ...
    def sys_json(self) -> str | None: ...
    def table_name(self, obj: int) -> str: ...
    def unknown_reason(self, obj: int) -> str: ...
    def captured(self, owner: str, name: str) -> bool: ...
    def scope(self) -> dict[str, Any]: ...

# stage.rs

def staged_trail_schema() -> ArrowSchema: ...
def carried_schema() -> ArrowSchema: ...

@final
class Assembler:
    def __new__(
        cls,
        table: TransactionTable,
        emitter: Emitter,
        *,
        resetlogs_id: int | None = None,
        chunk: int = 8192,
        queue_bytes: int = 16 << 20,
        spill_dir: str | os.PathLike[str] | None = None,
    ) -> Self: ...
    def feed(self, batch: _ArrowArrayExportable) -> None: ...
    def carry_out(self) -> None: ...
    def __iter__(self) -> Self: ...
    def __next__(self) -> ArrowBatch: ...
    @property
    def decoded(self) -> _ObjCounts: ...
    @property
    def carried_in(self) -> _ObjCounts: ...
    @property
    def carried_out(self) -> _ObjCounts: ...
    # (xid, start_scn, start_time in microseconds, thread, begin's sequence, changes, bytes,
    # last_scn, held_commit_scn)
    @property
    def open(self) -> list[tuple[str, int, int, int, int, int, int, int, int | None]]: ...
    @property
    def spilled_batches(self) -> int: ...

# threads.rs

@final
class ThreadMerge:
    def __new__(cls, threads: Sequence[int], *, chunk: int = 8192) -> Self: ...
    def push(self, thread: int, batch: _ArrowArrayExportable) -> None: ...
    def watermark(self, thread: int, scn: int) -> None: ...
    def finish(self, thread: int) -> None: ...
    def wanted(self) -> int | None: ...
    def take(self) -> tuple[list[ArrowBatch], int | None]: ...
    @property
    def held(self) -> int: ...

# mirror.rs

def fold_schema() -> ArrowSchema: ...

@final
class MirrorFold:
    def __new__(cls) -> Self: ...
    def feed(self, batch: _ArrowArrayExportable) -> list[ArrowBatch]: ...
    def feed_ipc(self, stream: bytes) -> list[ArrowBatch]: ...
    def finish(self) -> list[ArrowBatch]: ...
    @property
    def changes(self) -> int: ...
    @property
    def rows(self) -> int: ...

def partition_segments(
    sys_json: str, owner: str, table: str, partition: str, scn: int, subpartition: bool = False
) -> dict[str, Any]: ...
def partitions_cut(
    sys_json: str, owner: str, table: str, scn: int, subpartition: bool, dropped: bool
) -> list[str]: ...

# dictionary.rs

def columns_from_sys(document: str) -> list[dict[str, Any]]: ...
def column_changes(sys_json: str, obj: int, scn: int) -> dict[str, Any] | None: ...
def dictionary_state(document: str) -> dict[str, Any]: ...
def ddl_counter(text: str, schema: str) -> str: ...

# jsonl.rs, parquet_out.rs

def render_jsonl(batch: _ArrowArrayExportable) -> bytes: ...
def render_table(batch: _ArrowArrayExportable) -> bytes: ...
def table_header() -> str: ...
def numbered_trail_batch(staged: _ArrowArrayExportable, first: int) -> ArrowBatch: ...

@final
class TrailParquetWriter:
    def __new__(cls, path: str, first: int = 0) -> Self: ...
    def write(self, batch: _ArrowArrayExportable) -> None: ...
    @property
    def rows(self) -> int: ...
    @property
    def row_groups(self) -> int: ...
    def close(self) -> int: ...
