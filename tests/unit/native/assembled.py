"""Run one event stream through the Python ``TransactionTable`` (the oracle) and through the Rust one
(``redo_lib._native.TransactionTable``), and say what each gave, in one comparable shape.

A run is a list of batches (the events of one batch of the pipeline, in the order the table is fed;
each batch after the first is fed the previous one's ``carry_out`` first, as ``batches._assembled``
feeds carried rows). Per batch it records the committed transactions in the order they came (xid,
commit position, begin SCN and every change event as an events-schema row), the events carried
out, the counters, the cancelled / orphaned row changes and the issues; or the error raised, with
its class, message, position and details, and the state the table was left in.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from redo_lib.assembly.events import ChangeEvent
from redo_lib.assembly.transactions import TransactionTable
from redo_lib.batches import event_from_row, event_to_row, events_schema
from redo_lib.errors import ErrorPolicy, RedoError


@dataclass
class BatchResult:
    committed: list[dict[str, Any]] = field(default_factory=list)
    carried: list[dict[str, Any]] = field(default_factory=list)
    counters: dict[str, int] = field(default_factory=dict)
    cancelled: dict[tuple[int, str], int] = field(default_factory=dict)
    orphaned: dict[tuple[int, str], int] = field(default_factory=dict)
    issues: list[tuple[Any, ...]] = field(default_factory=list)
    open: int = 0
    held: list[Any] = field(default_factory=list)
    error: tuple[Any, ...] | None = None


def _error(exc: RedoError) -> tuple[Any, ...]:
    return (type(exc).__name__, exc.message, exc.position, dict(exc.details))


def _state(result: BatchResult, table: Any) -> None:
    result.counters = {k: v for k, v in dict(table.counters).items() if v}
    result.cancelled = dict(table.cancelled)
    result.orphaned = dict(table.orphaned)
    result.issues = list(table.issues)
    result.open = len(table)
    result.held = list(table.held_xids())


def run_python(
    batches: Sequence[Sequence[dict[str, Any]]],
    *,
    memory_limit: int = 50_000,
    policy: ErrorPolicy = ErrorPolicy.SKIP,
    hold_from: Sequence[int | None] | None = None,
) -> list[BatchResult]:
    """The Python table over ``batches`` of event rows (``event_to_row`` form)."""
    out: list[BatchResult] = []
    carried: list[ChangeEvent] = []
    for index, rows in enumerate(batches):
        hold = hold_from[index] if hold_from else None
        table = TransactionTable(memory_limit=memory_limit, policy=policy, hold_from=hold)
        result = BatchResult()
        out.append(result)
        try:
            for event in [*carried, *(event_from_row(r) for r in rows)]:
                txn = table.feed(event)
                if txn is not None:
                    result.committed.append(
                        {
                            "xid": txn.xid,
                            "order_key": txn.order_key,
                            "commit_time": event_to_row(event)["time"],
                            "begin_scn": txn.begin_scn,
                            "changes": [event_to_row(e) for e in txn.changes],
                        }
                    )
                    txn.changes.close()
            carried = list(table.carry_out())
            result.carried = [event_to_row(e) for e in carried]
        except RedoError as exc:
            result.error = _error(exc)
        _state(result, table)
        _close(table)
        if result.error:
            break
    return out


def _close(table: TransactionTable) -> None:
    """Close the spill files of the transactions a Python table still holds (the table has no
    close of its own; left to the garbage collector they are ResourceWarnings)."""
    for entry in [*table._open.values(), *getattr(table, "_held", ())]:
        entry.buffer.close()


def run_rust(
    batches: Sequence[Sequence[dict[str, Any]]],
    *,
    memory_limit: int = 50_000,
    policy: ErrorPolicy = ErrorPolicy.SKIP,
    hold_from: Sequence[int | None] | None = None,
    chunk: int = 1000,
    memory_bytes: int | None = None,
    spill_dir: str | None = None,
) -> list[BatchResult]:
    """The Rust table over the same ``batches``, handed over as record batches of at most ``chunk``
    events (carried-in events first, as the Rust ``carry_out`` gave them)."""
    import pyarrow as pa

    from redo_lib.native import native

    out: list[BatchResult] = []
    carried: list[Any] = []
    extra = {} if memory_bytes is None else {"memory_bytes": memory_bytes}
    for index, rows in enumerate(batches):
        hold = hold_from[index] if hold_from else None
        table = native.TransactionTable(
            memory_limit=memory_limit, policy=policy.value, hold_from=hold, spill_dir=spill_dir, **extra
        )
        result = BatchResult()
        out.append(result)
        inputs = [*carried]
        for start in range(0, len(rows), chunk):
            inputs.append(
                pa.RecordBatch.from_pylist(list(rows[start : start + chunk]), schema=events_schema())
            )

        try:
            for batch in inputs:
                try:
                    _take(result, table.feed_batch(batch))
                except RedoError as exc:  # the transactions committed before the error come with it
                    _take(result, exc.committed)  # type: ignore[attr-defined]
                    raise
            carried = [pa.record_batch(b) for b in table.carry_out(max_rows=chunk)]
            result.carried = [row for b in carried for row in b.to_pylist()]
        except RedoError as exc:
            result.error = _error(exc)
        _state(result, table)
        if result.error:
            break
    return out


def _take(result: BatchResult, committed: list[Any]) -> None:
    """Record the Rust table's committed transactions, their changes read as record batches."""
    import pyarrow as pa

    for txn in committed:
        changes = [row for b in txn.batches(max_rows=97) for row in pa.record_batch(b).to_pylist()]
        assert len(changes) == len(txn)
        result.committed.append(
            {
                "xid": txn.xid,
                "order_key": txn.order_key,
                "commit_time": txn.commit_time,
                "begin_scn": txn.begin_scn,
                "changes": changes,
            }
        )


def assert_same(python: list[BatchResult], rust: list[BatchResult]) -> None:
    """Field for field, batch by batch; the first difference named."""
    assert len(python) == len(rust)
    for index, (p, r) in enumerate(zip(python, rust, strict=True)):
        where = f"batch {index}"
        assert p.error == r.error, where
        assert len(p.committed) == len(r.committed), where
        for i, (pt, rt) in enumerate(zip(p.committed, r.committed, strict=True)):
            for key in ("xid", "order_key", "commit_time", "begin_scn"):
                assert pt[key] == rt[key], f"{where}, transaction {i}: {key}"
            assert len(pt["changes"]) == len(rt["changes"]), f"{where}, transaction {i} ({pt['xid']})"
            for j, (pe, re_) in enumerate(zip(pt["changes"], rt["changes"], strict=True)):
                assert pe == re_, f"{where}, transaction {i} ({pt['xid']}), change {j}"
        assert p.carried == r.carried, f"{where}: carried out"
        assert p.counters == r.counters, where
        assert p.cancelled == r.cancelled, where
        assert p.orphaned == r.orphaned, where
        assert p.issues == r.issues, where
        assert p.open == r.open, where
        assert p.held == r.held, where


def split(rows: Sequence[dict[str, Any]], cuts: Sequence[int]) -> list[list[dict[str, Any]]]:
    """``rows`` cut into consecutive batches before each index of ``cuts``."""
    bounds = [0, *sorted(cuts), len(rows)]
    return [list(rows[a:b]) for a, b in zip(bounds, bounds[1:], strict=False)]


def rows_in_redo_order(events: Sequence[ChangeEvent]) -> list[dict[str, Any]]:
    """Events as rows in redo order (threads merged by SCN: ``sort_key``), the order of one stream."""
    return [event_to_row(e) for e in sorted(events, key=lambda e: e.sort_key)]


def rows_by_slot(events: Sequence[ChangeEvent]) -> list[dict[str, Any]]:
    """Events as rows in the assemble stage's partition order: by (usn, slot), then redo order."""
    return [event_to_row(e) for e in sorted(events, key=lambda e: (e.usn, e.slot, *e.sort_key))]
