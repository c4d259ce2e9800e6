"""LobAssembler: the per-transaction state machine that attaches Db2 LOB pieces to their row (seed 004).

Db2 writes a LOB column's out-of-row data as LOB manager log records *before* the DMS row record of
the same statement, after a "start of the out-of-row data" DMS record. The assembler is fed
``Db2Event`` values in log order (the DMS and transaction records are given as events: their byte
layout is not part of seed 004), keeps each transaction's waiting pieces and buffered rows, and
returns a ``Db2Transaction`` at commit.

Transitions, per transaction id (IDLE: no pieces waiting; COLLECTING: pieces may be waiting):

| event                              | IDLE                                  | COLLECTING                               |
|------------------------------------|---------------------------------------|------------------------------------------|
| START_OUT_OF_ROW                   | -> COLLECTING                         | waiting pieces: ``pieces_without_row``    |
| LOB 64/65, original op 1, 4 or 8   | kept; ``lob_without_start``; -> COLL. | kept                                     |
| LOB 66/67, or original op 2        | counted (information only)            | counted (information only)               |
| ROW                                | buffered with no LOB change           | pieces grouped and attached; -> IDLE     |
| UNDO_ROW                           | cancels the newest buffered row       | also rolls back waiting pieces; -> IDLE  |
| UNDO_START_OUT_OF_ROW              | nothing waits                         | waiting pieces rolled back; -> IDLE      |
| COMMIT                             | rows returned as ``Db2Transaction``   | waiting pieces: ``pieces_without_row``    |
| ABORT                              | rows and their pieces rolled back     | waiting pieces rolled back too           |
| end of input (``finish``)          | rows: ``rows_open_at_end``            | pieces: ``pieces_without_row_at_end``     |

Attaching (seed: "locate all the LOB data log records with the same column identifier, operation
type, and original operation type and then concatenate all the LOB data"): waiting pieces are
grouped by (column, operation type, original operation type) in log order and each group's data
concatenated into one ``LobChange``. A piece attaches only to a row of its parent table (header
parent table space / parent object = the row's table) whose operation fits its original operation
(insert <- 1; update <- 4, 8); a column gets at most one change per row. Pieces that do not fit are
problems: counted and kept as ``AssemblyError`` in ``issues`` (raised under ``ErrorPolicy.RAISE``).
Add LOB amount records (NOT LOGGED columns) become a change with the length and no data.

A LOB column a row's statement did not change has no ``LobChange``: ``AssembledRow.lob`` answers
``NOT_PRESENT`` for it, never ``None`` (its value, NULL, empty or in-row data is the DMS row's
business, or unchanged).

Layer: imports ``errors``, ``report`` and this package's ``records`` and ``strings``.
"""

from __future__ import annotations

import enum
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, final

from redo_lib.db2.records import (
    INFORMATION_ONLY,
    VARYING_STRINGS_COLUMN,
    ByteOrder,
    LobOperation,
    LobRecord,
    OriginalOperation,
)
from redo_lib.db2.strings import VaryingStrings, parse_varying_strings
from redo_lib.errors import AssemblyError, ErrorPolicy, Position
from redo_lib.report import DecodeReport

MAX_ISSUES = 1000  # issues kept for the report; the counters stay complete


class Db2EventKind(enum.Enum):
    """The log records the assembler is told about, as the seed's log flows name them."""

    START_OUT_OF_ROW = "start_out_of_row"  # DMS: start of the out-of-row data log record
    LOB = "lob"  # a LOB manager log record (``Db2Event.lob``)
    ROW = "row"  # DMS insert / update / delete record
    UNDO_ROW = "undo_row"  # DMS undo of a row record (e.g. "Undo insert log record")
    UNDO_START_OUT_OF_ROW = "undo_start_out_of_row"  # informational compensation record
    COMMIT = "commit"
    ABORT = "abort"


class RowOperation(enum.Enum):
    INSERT = "insert"
    UPDATE = "update"
    DELETE = "delete"


class LobChangeKind(enum.Enum):
    VALUE = "value"  # the complete new value (insert; update = delete old + insert new)
    APPEND = "append"  # bytes concatenated to the old value (original operation 8)
    NOT_LOGGED = "not_logged"  # NOT LOGGED column: add LOB amount records, length only


class Presence(enum.Enum):
    NOT_PRESENT = "not_present"  # the statement did not change this LOB column: not NULL


NOT_PRESENT = Presence.NOT_PRESENT

_FITS: dict[RowOperation, frozenset[OriginalOperation]] = {
    RowOperation.INSERT: frozenset({OriginalOperation.INSERT}),
    RowOperation.UPDATE: frozenset({OriginalOperation.UPDATE, OriginalOperation.CONCAT}),
    RowOperation.DELETE: frozenset(),
}


@final
@dataclass(frozen=True, slots=True, kw_only=True)
class Db2Event:
    """One log record in log order. ``tid`` is the transaction id, ``offset`` where the record is
    (LSN or byte offset, for positions). ROW / UNDO_ROW name their table (``tablespace``, ``obj``)
    and ``operation``; LOB carries ``lob``; ROW may carry the DMS row bytes, passed through."""

    kind: Db2EventKind
    tid: int
    offset: int = 0
    tablespace: int = 0
    obj: int = 0
    operation: RowOperation | None = None
    lob: LobRecord | None = None
    payload: bytes = b""


@final
@dataclass(frozen=True, slots=True, kw_only=True)
class LobChange:
    """One column's LOB change: its pieces concatenated. ``data`` is None for NOT_LOGGED;
    ``byte_offset`` is the first piece's (for APPEND: where the appended bytes go)."""

    column: int
    kind: LobChangeKind
    original_operation: OriginalOperation
    byte_offset: int
    length: int
    data: bytes | None
    pieces: int


@final
@dataclass(frozen=True, slots=True, kw_only=True)
class AssembledRow:
    """A DMS row record with the LOB changes logged before it."""

    tid: int
    offset: int
    operation: RowOperation
    tablespace: int
    obj: int
    payload: bytes = b""
    lobs: tuple[LobChange, ...] = ()

    def lob(self, column: int) -> LobChange | Presence:
        """The change of LOB column ``column`` (from 0), or ``NOT_PRESENT`` if the row has none."""
        return next((c for c in self.lobs if c.column == column), NOT_PRESENT)

    def varying_strings(
        self, *, column_count: int, offset_byteorder: ByteOrder = "big"
    ) -> VaryingStrings | Presence:
        """The column-65535 structure of this row, parsed, or ``NOT_PRESENT``.

        Raises ``AssemblyError`` if the change is not a complete value (APPEND / NOT_LOGGED), and
        what ``parse_varying_strings`` raises.
        """
        change = self.lob(VARYING_STRINGS_COLUMN)
        if not isinstance(change, LobChange):
            return NOT_PRESENT
        if change.kind is not LobChangeKind.VALUE or change.data is None:
            raise AssemblyError(
                "column 65535 change is not a complete value",
                position=Position(offset=self.offset),
                kind=change.kind.value,
            )
        return parse_varying_strings(
            change.data, column_count=column_count, offset_byteorder=offset_byteorder
        )


@final
@dataclass(frozen=True, slots=True, kw_only=True)
class Db2Transaction:
    """A committed transaction's rows with their LOB changes, in log order."""

    tid: int
    offset: int
    rows: tuple[AssembledRow, ...]


class _State(enum.Enum):
    IDLE = "idle"
    COLLECTING = "collecting"


@dataclass(slots=True)
class _Open:
    state: _State = _State.IDLE
    pending: list[tuple[int, LobRecord]] = field(default_factory=list)  # (event offset, record)
    rows: list[AssembledRow] = field(default_factory=list)


class LobAssembler:
    """Open transactions by id. ``feed`` events in log order; ``finish`` at the end of the input."""

    def __init__(self, *, policy: ErrorPolicy = ErrorPolicy.SKIP) -> None:
        self._open: dict[int, _Open] = {}
        self._policy = policy
        self.counters: Counter[str] = Counter()
        self.issues: list[AssemblyError] = []

    def __len__(self) -> int:
        return len(self._open)

    # -- transitions (the table in the module docstring) -----------------------------------------
    def feed(self, event: Db2Event) -> Db2Transaction | None:
        kind = event.kind
        if kind is Db2EventKind.COMMIT:
            return self._commit(event)
        if kind is Db2EventKind.ABORT:
            self._abort(event)
            return None
        txn = self._open.setdefault(event.tid, _Open())
        if kind is Db2EventKind.START_OUT_OF_ROW:
            self._drop_pending(txn, "pieces_without_row", event)
            txn.state = _State.COLLECTING
        elif kind is Db2EventKind.LOB:
            self._lob(txn, event)
        elif kind is Db2EventKind.ROW:
            self._row(txn, event)
        elif kind is Db2EventKind.UNDO_ROW:
            self._roll_back_pending(txn)
            self._undo_row(txn, event)
        elif kind is Db2EventKind.UNDO_START_OUT_OF_ROW:
            self._roll_back_pending(txn)
            self.counters["undo_start_out_of_row"] += 1
        return None

    def finish(self) -> None:
        """End of input: count what is still open (never raises; the input may just stop here)."""
        for tid, txn in self._open.items():
            if txn.pending:
                self._problem(
                    "pieces_without_row_at_end",
                    len(txn.pending),
                    tid,
                    txn.pending[0][0],
                    "LOB pieces with no following row record at the end of the input",
                    may_raise=False,
                )
            if txn.rows:
                self._problem(
                    "rows_open_at_end",
                    len(txn.rows),
                    tid,
                    txn.rows[0].offset,
                    "rows of a transaction with no commit or abort at the end of the input",
                    may_raise=False,
                )
        self.counters["transactions_open_at_end"] += len(self._open)
        self._open.clear()

    def report_to(self, report: DecodeReport) -> None:
        """Add every issue to ``report`` as a skipped item (kind ``assembly``)."""
        for issue in self.issues:
            report.add_skipped(issue)

    # -- the work --------------------------------------------------------------------------------
    def _lob(self, txn: _Open, event: Db2Event) -> None:
        record = event.lob
        if record is None:
            raise AssemblyError("LOB event without its LOB record", position=Position(offset=event.offset))
        if record.operation in INFORMATION_ONLY:
            self.counters[f"information_only_{record.operation.name.lower()}"] += 1
            return
        if record.original_operation is OriginalOperation.DELETE:
            # old LOB data of a deleted row, logged after the DMS delete: a before image, not attached
            self.counters["delete_original_operation"] += 1
            return
        if txn.state is _State.IDLE:
            self.counters["lob_without_start"] += 1
            txn.state = _State.COLLECTING
        txn.pending.append((event.offset, record))

    def _row(self, txn: _Open, event: Db2Event) -> None:
        if event.operation is None:
            raise AssemblyError("row event without its operation", position=Position(offset=event.offset))
        changes = self._attach(txn.pending, event, event.operation) if txn.pending else ()
        txn.pending = []
        txn.state = _State.IDLE
        txn.rows.append(
            AssembledRow(
                tid=event.tid,
                offset=event.offset,
                operation=event.operation,
                tablespace=event.tablespace,
                obj=event.obj,
                payload=event.payload,
                lobs=changes,
            )
        )

    def _attach(
        self, pieces: list[tuple[int, LobRecord]], event: Db2Event, operation: RowOperation
    ) -> tuple[LobChange, ...]:
        groups: dict[tuple[int, LobOperation, OriginalOperation], list[LobRecord]] = {}
        first_at: dict[tuple[int, LobOperation, OriginalOperation], int] = {}
        for at, piece in pieces:
            head = piece.header
            if (head.parent_tablespace, head.parent_obj) != (event.tablespace, event.obj):
                self._problem(
                    "table_mismatch",
                    1,
                    event.tid,
                    at,
                    "LOB piece of another table than the row that follows it",
                    parent=(head.parent_tablespace, head.parent_obj),
                    row_table=(event.tablespace, event.obj),
                )
            elif piece.original_operation not in _FITS[operation]:
                self._problem(
                    "operation_mismatch",
                    1,
                    event.tid,
                    at,
                    "LOB piece's original operation does not fit the row operation that follows it",
                    original_operation=piece.original_operation.name,
                    row_operation=operation.value,
                )
            else:
                key = (piece.column, piece.operation, piece.original_operation)
                groups.setdefault(key, []).append(piece)
                first_at.setdefault(key, at)
        changes: list[LobChange] = []
        for key, group in groups.items():
            column, lob_op, original = key
            if any(c.column == column for c in changes):
                self._problem(
                    "conflicting_pieces",
                    len(group),
                    event.tid,
                    first_at[key],
                    "a second set of LOB pieces for a column that already has a change",
                    column=column,
                )
                continue
            changes.append(self._concatenate(column, lob_op, original, group))
        return tuple(changes)

    def _concatenate(
        self, column: int, lob_op: LobOperation, original: OriginalOperation, group: list[LobRecord]
    ) -> LobChange:
        for before, after in zip(group, group[1:], strict=False):
            if after.byte_offset != before.byte_offset + before.lob_length:
                self.counters["offset_gap"] += 1  # concatenated in log order anyway, as the seed says
        if lob_op is LobOperation.ADD_LOB_AMOUNT:
            kind, data = LobChangeKind.NOT_LOGGED, None
        else:
            kind = LobChangeKind.APPEND if original is OriginalOperation.CONCAT else LobChangeKind.VALUE
            data = b"".join(p.data for p in group)
        self.counters["pieces_attached"] += len(group)
        self.counters["lob_changes"] += 1
        return LobChange(
            column=column,
            kind=kind,
            original_operation=original,
            byte_offset=group[0].byte_offset,
            length=sum(p.lob_length for p in group),
            data=data,
            pieces=len(group),
        )

    def _undo_row(self, txn: _Open, event: Db2Event) -> None:
        last = txn.rows[-1] if txn.rows else None
        if (
            last is None
            or (last.tablespace, last.obj) != (event.tablespace, event.obj)
            or (event.operation is not None and event.operation is not last.operation)
        ):
            self._problem(
                "undo_unmatched",
                1,
                event.tid,
                event.offset,
                "undo of a row record that is not the transaction's newest row",
            )
            return
        txn.rows.pop()
        self.counters["rows_rolled_back"] += 1
        self.counters["pieces_rolled_back"] += sum(c.pieces for c in last.lobs)

    def _roll_back_pending(self, txn: _Open) -> None:
        self.counters["pieces_rolled_back"] += len(txn.pending)
        txn.pending = []
        txn.state = _State.IDLE

    def _drop_pending(self, txn: _Open, kind: str, event: Db2Event) -> None:
        if txn.pending:
            self._problem(
                kind,
                len(txn.pending),
                event.tid,
                txn.pending[0][0],
                "LOB pieces with no row record after them",
                next_record=event.kind.value,
            )
        txn.pending = []

    def _commit(self, event: Db2Event) -> Db2Transaction | None:
        txn = self._open.pop(event.tid, None)
        if txn is None:
            self.counters["commit_without_changes"] += 1
            return None
        self._drop_pending(txn, "pieces_without_row", event)
        self.counters["transactions_committed"] += 1
        self.counters["rows"] += len(txn.rows)
        return Db2Transaction(tid=event.tid, offset=event.offset, rows=tuple(txn.rows))

    def _abort(self, event: Db2Event) -> None:
        txn = self._open.pop(event.tid, None)
        self.counters["transactions_rolled_back"] += 1
        if txn is None:
            return
        self._roll_back_pending(txn)
        self.counters["rows_rolled_back"] += len(txn.rows)
        self.counters["pieces_rolled_back"] += sum(c.pieces for row in txn.rows for c in row.lobs)

    def _problem(
        self,
        kind: str,
        count: int,
        tid: int,
        offset: int,
        message: str,
        *,
        may_raise: bool = True,
        **details: Any,
    ) -> None:
        self.counters[kind] += count
        error = AssemblyError(
            message, position=Position(offset=offset), problem=kind, tid=tid, pieces=count, **details
        )
        if may_raise and self._policy is ErrorPolicy.RAISE:
            raise error
        if len(self.issues) < MAX_ISSUES:
            self.issues.append(error)


def assemble(
    events: Iterable[Db2Event], *, policy: ErrorPolicy = ErrorPolicy.SKIP
) -> tuple[list[Db2Transaction], LobAssembler]:
    """The assembler as a function: events of a whole input in log order -> (committed transactions
    in commit order, the finished assembler with its counters and issues)."""
    assembler = LobAssembler(policy=policy)
    committed = [txn for txn in map(assembler.feed, events) if txn is not None]
    assembler.finish()
    return committed, assembler
