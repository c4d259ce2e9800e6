"""Run one event stream through the Python emitter (the oracle: ``TransactionTable`` +
``TrailEmitter`` + ``schema.to_row``, as ``batches._assembled`` drives them) and through the Rust one
(``native.TransactionTable`` + ``native.Emitter``), and say what each gave in one comparable shape:
the trail rows (as JSON lines of ``trail_schema()`` rows and of ``TrailRecord.to_dict()``) and every
counter the emitter keeps, or the error raised.

The two tables agree (test_transactions_differential.py), so the same committed transactions reach
both emitters.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from redo_lib.assembly.events import ChangeEvent
from redo_lib.assembly.transactions import TransactionTable
from redo_lib.batches import event_to_row, events_schema
from redo_lib.dictionary import DictionaryHistory
from redo_lib.errors import RedoError
from redo_lib.trail.emit import EmitOptions, TrailEmitter
from redo_lib.trail.schema import commit_log_name, from_row, to_row, trail_schema


@dataclass
class Emitted:
    rows: list[str] = field(default_factory=list)  # JSON lines of the trail rows
    records: list[str] = field(default_factory=list)  # JSON lines of TrailRecord.to_dict()
    counts: dict[str, Any] = field(default_factory=dict)
    error: tuple[Any, ...] | None = None


def _json(value: Any) -> str:
    def default(v: Any) -> Any:
        if isinstance(v, dt.datetime):
            return v.isoformat()
        raise TypeError(type(v))

    return json.dumps(value, ensure_ascii=False, default=default)


def _finish(out: Emitted, rows: list[dict[str, Any]], emitter: Any) -> None:
    import pyarrow as pa

    # through Arrow, as the assemble stage writes them
    table = pa.Table.from_pylist(rows, schema=trail_schema())
    out.rows = [_json(r) for r in table.to_pylist()]
    out.records = [_json(from_row(r).to_dict()) for r in table.to_pylist()]
    scope = emitter.scope()
    out.counts = {
        "counters": {k: v for k, v in dict(emitter.counters).items() if v},
        "trail_counts": dict(emitter.trail_counts),
        "out_of_scope": dict(emitter.out_of_scope),
        "unknown_in_scope": dict(emitter.unknown_in_scope),
        "unknown_objects": dict(emitter.unknown_objects),
        "unknown_first_scn": dict(emitter.unknown_first_scn),
        "emitted": dict(emitter.emitted),
        "value_errors": list(emitter.value_errors),
        "ddl_records": dict(emitter.ddl_records),
        "ddl_problems": list(emitter.ddl_problems),
        "scope": {**scope, "capture": scope["capture"] or None},
    }
    # the names reconcile() reports the counts under, for every object counted and a few more
    objs = {obj for key in ("trail_counts", "out_of_scope", "unknown_in_scope") for obj, _ in out.counts[key]}
    objs |= set(out.counts["unknown_objects"]) | {0, 1, 70_000, 70_001, 70_002, 80_000}
    out.counts["table_names"] = {obj: emitter.table_name(obj) for obj in sorted(objs)}


def _error(exc: RedoError) -> tuple[Any, ...]:
    return (type(exc).__name__, exc.message, dict(exc.details))


def run_python(
    events: Sequence[ChangeEvent], dictionary: DictionaryHistory | None, options: EmitOptions
) -> Emitted:
    out = Emitted()
    table = TransactionTable(memory_limit=50_000)
    emitter = TrailEmitter(dictionary=dictionary, options=options)
    rows: list[dict[str, Any]] = []
    try:
        for event in events:
            txn = table.feed(event)
            if txn is None:
                continue
            log = commit_log_name(txn.thread, txn.seq, None)
            rows.extend(to_row(r, commit_log=log) for r in emitter.iter_emit(txn))
            txn.changes.close()
    except RedoError as exc:
        out.error = _error(exc)
    for entry in table._open.values():
        entry.buffer.close()
    if emitter.lobs is not None:
        emitter.lobs.close()
    _finish(out, rows, emitter)
    return out


def run_rust(
    events: Sequence[ChangeEvent],
    dictionary: DictionaryHistory | None,
    options: EmitOptions,
    *,
    chunk: int = 1000,
    memory_limit: int = 50_000,
    many: bool = False,
) -> Emitted:
    """``many``: the transactions of each fed batch through one ``emit_many`` call."""
    import pyarrow as pa

    from redo_lib.native import native

    out = Emitted()
    table = native.TransactionTable(memory_limit=memory_limit)
    emitter = native.Emitter(
        None if dictionary is None else dictionary.to_json(), **dataclasses.asdict(options)
    )
    rows: list[dict[str, Any]] = []
    event_rows = [event_to_row(e) for e in events]
    try:
        for start in range(0, len(event_rows), chunk):
            batch = pa.RecordBatch.from_pylist(event_rows[start : start + chunk], schema=events_schema())
            committed = table.feed_batch(batch)
            if many:
                logs = [commit_log_name(t.thread, t.seq, None) for t in committed]
                try:
                    rows.extend(pa.record_batch(emitter.emit_many(committed, logs)).to_pylist())
                except RedoError as exc:
                    rows.extend(pa.record_batch(exc.rows).to_pylist())  # type: ignore[attr-defined]
                    raise
                continue
            for txn in committed:
                log = commit_log_name(txn.thread, txn.seq, None)
                try:
                    batch = emitter.emit(txn, commit_log=log)
                except RedoError as exc:  # the transaction's rows before the error come with it
                    rows.extend(pa.record_batch(exc.rows).to_pylist())  # type: ignore[attr-defined]
                    raise
                rows.extend(pa.record_batch(batch).to_pylist())
    except RedoError as exc:
        out.error = _error(exc)
    _finish(out, rows, emitter)
    return out


def assert_same(python: Emitted, rust: Emitted) -> None:
    """Line for line, then the counters; the first difference named."""
    assert python.error == rust.error
    assert len(python.rows) == len(rust.rows), (len(python.rows), len(rust.rows))
    for i, (p, r) in enumerate(zip(python.rows, rust.rows, strict=True)):
        assert p == r, f"trail row {i}"
    assert python.records == rust.records
    for key, value in python.counts.items():
        assert value == rust.counts[key], key
