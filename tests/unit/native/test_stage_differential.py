"""The assemble stage in the core (``batches.assemble_arrow`` on ``native.Assembler``) gives what
the Python stage it replaced gave (``python_stage`` below: ``TransactionTable`` + ``TrailEmitter`` +
``to_row``, ``reconcile``, ``summarize_open``, the oracle): the same trail rows with the same
commit-order keys, the same open events in the same begin order, and the same counts.json part.

Inputs: named scenarios with their dictionaries, random seeds (with DDL) cut into two batches, the
first carrying its open and held transactions into the second, with small in-memory limits so
transactions spill; the output queue spilling; and the Spark shape of an event batch whose empty
children have zero-size offset buffers.
"""

from __future__ import annotations

import datetime as dt
import json
from collections import Counter
from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest

from redo_lib.assembly.carry import summarize_open
from redo_lib.assembly.events import ChangeEvent, EventKind, event_to_row, events_schema
from redo_lib.assembly.rows import count_row_change
from redo_lib.assembly.transactions import TransactionTable
from redo_lib.batches import OUTPUT, assemble_arrow, assembled_schema, dictionary_at
from redo_lib.pipeline import ORDER_FIELDS, count_row_changes, reconcile
from redo_lib.trail.emit import EmitOptions, TrailEmitter
from redo_lib.trail.schema import commit_log_name, to_row

from .test_emit_differential import generated

RESETLOGS = 1224959854


def _json(value: Any) -> str:
    def default(v: Any) -> Any:
        if isinstance(v, bytes | bytearray):
            return bytes(v).hex()
        if isinstance(v, dt.datetime):
            return v.isoformat()
        raise TypeError(type(v))

    return json.dumps(value, ensure_ascii=False, default=default, sort_keys=True)


def _events_batch(rows: list[dict[str, Any]]) -> pa.RecordBatch:
    return pa.RecordBatch.from_pylist(rows, schema=events_schema().append(pa.field("carried", pa.bool_())))


def python_stage(rows: list[dict[str, Any]], carried: list[ChangeEvent], dictionary: str | None,
                 hold_from: int | None, memory_limit: int) -> dict[str, Any]:  # fmt: skip
    """The Python assemble stage (``batches._assembled`` before the core took it over)."""
    table = TransactionTable(memory_limit=memory_limit, hold_from=hold_from)
    emitter = TrailEmitter(dictionary=dictionary_at(dictionary), options=EmitOptions())
    decoded: Counter[tuple[int, str]] = Counter()
    carried_in: Counter[tuple[int, str]] = Counter()
    trail: list[str] = []
    stream = [*((True, e) for e in carried), *((False, _event(r)) for r in rows)]
    for was_carried, event in stream:
        count_row_change(carried_in if was_carried else decoded, event)
        txn = table.feed(event)
        if txn is None:
            continue
        log = commit_log_name(txn.thread, txn.seq, RESETLOGS)
        for i, record in enumerate(emitter.iter_emit(txn)):
            row = to_row(record, commit_log=log, batch_id="b")
            row.update(zip(ORDER_FIELDS, [*txn.order_key, i], strict=True))
            trail.append(row)
        txn.changes.close()
    carried_out = list(table.carry_out())
    for entry in [*table._open.values(), *table._held]:  # the Python table has no close()
        entry.buffer.close()
    if emitter.lobs is not None:
        emitter.lobs.close()
    counts = reconcile(emitter=emitter, table=table, decoded=decoded, carried_in=carried_in,
                       carried_out=count_row_changes(carried_out),
                       open_carried_out=sum(1 for e in carried_out if e.kind is EventKind.BEGIN))  # fmt: skip
    counts["open_transactions"] = summarize_open(carried_out, lambda t, s: commit_log_name(t, s, RESETLOGS))
    opened: list[tuple[str, list[int]]] = []
    begin: list[int] = []
    # through Arrow, as the stage hands them to Spark
    open_rows = pa.Table.from_pylist(
        [event_to_row(e) for e in carried_out], schema=events_schema()
    ).to_pylist()
    for position, (event, row) in enumerate(zip(carried_out, open_rows, strict=True)):
        if event.kind is EventKind.BEGIN:
            begin, first = list(event.sort_key), position
        opened.append((_json(row), [*begin, position - first]))
    return {"trail": trail, "open": opened, "counts": counts, "carried_out": carried_out}


def _event(row: dict[str, Any]) -> ChangeEvent:
    from redo_lib.assembly.events import event_from_row

    return event_from_row(row)


def rust_stage(rows: list[dict[str, Any]], carried: list[ChangeEvent], dictionary: str | None,
               hold_from: int | None, memory_limit: int, chunk: int = 500) -> dict[str, Any]:  # fmt: skip
    """``assemble_arrow`` over the same events, carried ones first and flagged."""
    event_rows = [{**event_to_row(e), "carried": True} for e in carried] + [
        {**r, "carried": False} for r in rows
    ]
    batches = [_events_batch(event_rows[i : i + chunk]) for i in range(0, len(event_rows), chunk)]
    out = list(assemble_arrow(batches, dictionary, batch_id="b", resetlogs_id=RESETLOGS,
                              memory_limit=memory_limit, hold_from=hold_from, chunk=chunk // 3 + 1))  # fmt: skip
    assert all(b.schema.equals(assembled_schema()) for b in out)
    table = pa.Table.from_batches(out, schema=assembled_schema())
    kinds = table.column(OUTPUT).to_pylist()
    assert kinds == sorted(kinds, key=["trail", "open", "counts"].index), "trail, then open, then counts"
    staged = table.to_pylist()
    trail = [{k: v for k, v in r.items() if k not in (OUTPUT, "open_event", "open_order", "counts")}
             for r in staged if r[OUTPUT] == "trail"]  # fmt: skip
    opened = [(_json(r["open_event"]), r["open_order"]) for r in staged if r[OUTPUT] == "open"]
    (counts,) = [json.loads(r["counts"]) for r in staged if r[OUTPUT] == "counts"]
    return {"trail": trail, "open": opened, "counts": counts}


def assert_same_stage(python: dict[str, Any], rust: dict[str, Any]) -> None:
    key = lambda r: [r[name] for name in ORDER_FIELDS]  # noqa: E731
    p_trail = [_json(r) for r in sorted(python["trail"], key=key)]
    r_trail = [_json(r) for r in sorted(rust["trail"], key=key)]
    assert len(p_trail) == len(r_trail)
    for i, (p, r) in enumerate(zip(p_trail, r_trail, strict=True)):
        assert p == r, f"trail row {i}"
    assert python["open"] == rust["open"]
    p_counts = json.loads(json.dumps(python["counts"]))  # tuple keys and values as JSON has them
    r_counts = {k: v for k, v in rust["counts"].items() if k != "resources"}
    assert p_counts == r_counts


def run_two_batches(events: tuple[ChangeEvent, ...], dictionary: str | None, cut: float,
                    hold: bool, memory_limit: int) -> int:  # fmt: skip
    """Both stages over two batches cut at ``cut`` of the events (the first holding commits at or
    above the SCN of the cut when ``hold``), the first's carried-out events fed to the second."""
    rows = [event_to_row(e) for e in events]
    n = int(len(rows) * cut)
    first, second = rows[:n], rows[n:]
    hold_from = second[0]["scn"] - 3 if hold and second else None
    p1 = python_stage(first, [], dictionary, hold_from, memory_limit)
    assert_same_stage(p1, rust_stage(first, [], dictionary, hold_from, memory_limit))
    carried = p1["carried_out"]
    p2 = python_stage(second, carried, dictionary, None, memory_limit)
    assert_same_stage(p2, rust_stage(second, carried, dictionary, None, memory_limit))
    return len(p1["trail"]) + len(p2["trail"]) + len(carried)


@pytest.fixture(scope="module")
def gen_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("native-stage")


def _dictionary_file(history: Any, tmp: Path, key: str) -> str:
    path = tmp / f"{key}.dictionary.json"
    path.write_text(history.to_json())
    return str(path)


@pytest.mark.parametrize(
    "name", ["basic_dml", "lobs", "long_transaction", "rac_two_threads", "schema_changes"]
)
def test_named_scenario(name: str, gen_dir: Path) -> None:
    events, history = generated(name, gen_dir)
    assert run_two_batches(events, _dictionary_file(history, gen_dir, name), 0.5, False, 50_000) > 0


@pytest.mark.parametrize("seed", range(4))
def test_random_seed_in_two_batches_with_held_commits_and_spills(seed: int, gen_dir: Path) -> None:
    events, history = generated(f"ddl-{seed}", gen_dir)
    dictionary = _dictionary_file(history, gen_dir, f"ddl-{seed}")
    assert run_two_batches(events, dictionary, 0.3 + seed / 10, True, 4) > 0


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(4, 1004))
def test_random_seed_sweep(seed: int, gen_dir: Path) -> None:
    """1,000 random seeds (with the ones above) through both stages, in two batches."""
    events, history = generated(f"seed-{seed}", gen_dir)
    dictionary = _dictionary_file(history, gen_dir, f"seed-{seed}")
    run_two_batches(events, dictionary, (seed % 7 + 1) / 8, seed % 2 == 0, 4 + seed % 50)


def test_a_spilling_output_queue_gives_the_same_batches(gen_dir: Path) -> None:
    """A batch's trail rows through a queue of one byte (every record batch but the first goes
    through the spill file) equal the rows kept in memory, in order."""
    from redo_lib.native import native

    events, history = generated("seed-0", gen_dir)
    batch = _events_batch([{**event_to_row(e), "carried": False} for e in events])

    def run(queue_bytes: int) -> tuple[list[Any], int]:
        table = native.TransactionTable()
        emitter = native.Emitter(history.to_json())
        stage = native.Assembler(table, emitter, chunk=3, queue_bytes=queue_bytes)
        stage.feed(batch)
        rows = [row for b in stage for row in pa.record_batch(b).to_pylist()]
        return rows, stage.spilled_batches

    kept, none_spilled = run(1 << 30)
    spilled, spilled_batches = run(1)
    assert none_spilled == 0 and spilled_batches >= len(kept) // 3 - 1 > 10
    assert spilled == kept


def test_a_spark_batch_with_zero_size_offset_buffers_is_assembled() -> None:
    """Spark gives the empty children of a list column (``rows`` when no event has several rows)
    offset buffers of zero bytes; the core's Arrow import reads one offset from each, so
    ``assemble_arrow`` rebuilds them (without that, ``arrow import: Error converting offset``)."""
    from redo_lib.batches import _importable
    from redo_lib.native import native

    t0 = dt.datetime(2024, 1, 1)
    events = [
        ChangeEvent(kind=EventKind.BEGIN, usn=1, slot=2, sqn=3, thread=1, seq=5, block=2, offset=16, scn=100,
                    subscn=0, time=t0, vector=1),
        ChangeEvent(kind=EventKind.COMMIT, usn=1, slot=2, sqn=3, thread=1, seq=5, block=3, offset=16, scn=101,
                    subscn=0, time=t0, vector=1),
    ]  # fmt: skip
    batch = _events_batch([{**event_to_row(e), "carried": False} for e in events])
    rows = batch.column("rows")
    empty_values = rows.type.value_type  # struct<slot, values: list<binary>>
    # zero-size views of memory that does not hold offset 0, as Spark's buffers were
    garbage = pa.py_buffer(b"\x00\x00\x00\x80" * 4)[:0]
    binary = pa.Array.from_buffers(pa.binary(), 0, [None, garbage, pa.py_buffer(b"")])
    inner = pa.Array.from_buffers(empty_values.field("values").type, 0, [None, garbage], children=[binary])
    struct = pa.StructArray.from_arrays([pa.array([], pa.int32()), inner], fields=list(empty_values))
    spark_rows = pa.ListArray.from_arrays(rows.offsets, struct)
    spark = pa.RecordBatch.from_arrays(
        [
            spark_rows if name == "rows" else col
            for name, col in zip(batch.schema.names, batch.columns, strict=True)
        ],
        schema=batch.schema,
    )
    with pytest.raises(ValueError, match="arrow import"):
        native.TransactionTable().feed_batch(spark)
    assert native.TransactionTable().feed_batch(_importable(spark))[0].commit_scn == 101
    out = list(assemble_arrow([spark], None, batch_id="b"))
    assert [b.column(OUTPUT)[0].as_py() for b in out] == ["counts"]
    assert json.loads(out[-1].column("counts")[0].as_py())["transactions"]["committed"] == 1
