"""Batch work units for the Spark stages: what one task does, as plain library functions.

The Spark jobs (``spark_jobs/decode.py``, ``spark_jobs/assemble.py``) only distribute these units
and hand their Arrow output to Spark; every byte of Oracle knowledge stays here. Executor-side
functions take plain, picklable arguments and, but for decode's events, write nothing: Spark writes
what they return to the batch folder (docs/pipeline-contract.md), a local path or ``s3://``
(``s3a://`` for Spark), so no task needs a disk another process can read. Small documents (the manifest, a batch's dictionary) are
read and written whole, locally or with boto3 (:func:`read_location`, :func:`write_location`).

* decode: :func:`plan_units` cuts each log of the manifest into block ranges (default 64 MB);
  :func:`decode_units` (``mapInArrow``) decodes each range and writes its change events to Parquet
  straight from the core's Arrow batches (:func:`decode_unit`, the one exception to "Spark writes":
  see there why), handing Spark one result row per unit.
* assemble: the events of the batch plus the carried-in open transactions, grouped by transaction
  slot (usn, slot) and sorted by redo position, go through :func:`assemble_arrow` (``mapInArrow``):
  the Rust core's transaction table and emitter (``native.Assembler``), as in the single-process
  decode, so the outputs agree by construction. A partition holds whole slots; a transaction's
  changes stream through its spilling change buffer, so no transaction sits whole in a task's
  memory. Its outputs are trail rows, the events of transactions left open and its counts, as rows
  of one Arrow schema.

:func:`decode_unit` serves the Spark stage and the single-process path alike; :func:`assemble_partition`
is the assemble work over a local folder in one process (tests, tools): it writes the ``open/`` and
``counts/`` parts itself.

Layer "top".
"""

from __future__ import annotations

import datetime as dt
import json
import os
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import asdict, dataclass, replace
from functools import cache
from pathlib import Path
from typing import Any

from redo_lib.assembly.events import ChangeEvent, EventKind, event_from_row, event_to_row, events_schema
from redo_lib.dictionary import DictionaryHistory, load_dictionary
from redo_lib.errors import DictionaryError, ErrorPolicy, LogSetError, Position
from redo_lib.pipeline import (
    DEFAULT_MEMORY_LIMIT,
    ORDER_FIELDS,
    decode_range_arrow,
    open_source,
    read_header,
    rows_to_arrow,
    stage_counts,
)
from redo_lib.report import DecodeReport
from redo_lib.trail.emit import EmitOptions
from redo_lib.trail.schema import commit_log_name

DEFAULT_RANGE_BYTES = 64 << 20
_EPOCH = dt.datetime(1970, 1, 1)  # the events' time base (assembly.events)


# ---------------------------------------------------------------------------------------------
# Manifest


@dataclass(frozen=True, slots=True, kw_only=True)
class LogEntry:
    thread: int
    sequence: int
    resetlogs_id: int
    location: str
    size: int = 0
    etag: str = ""
    first_scn: int = 0
    next_scn: int | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class Manifest:
    batch_id: str
    logs: tuple[LogEntry, ...]
    dictionary: str | None = None
    previous_batch: str | None = None
    carried_in: str | None = None
    # the capture scope, "OWNER" / "OWNER.TABLE" entries (None: every table of the dictionary);
    # trail.emit.capture_options turns it into the emitter's options
    capture: tuple[str, ...] | None = None
    # the SCN below which the batch has every thread's redo (discovery/plans.py); transactions that
    # commit at or above it are carried to the next batch (held commits, docs/pipeline-contract.md).
    # None: no limit (one thread, or logs given by hand)
    watermark_scn: int | None = None

    def to_json(self) -> str:
        doc = asdict(self)
        doc["logs"] = [asdict(log) for log in self.logs]
        return json.dumps(doc, indent=2)


def join_location(base: str | os.PathLike[str], *parts: str) -> str:
    """``base/part/...`` for a local folder or an ``s3://`` prefix."""
    text = os.fspath(base)
    if text.startswith("s3://"):
        return "/".join([text.rstrip("/"), *parts])
    return str(Path(text).joinpath(*parts))


def read_location(location: str) -> str:
    """The text of a small file: a local path, or an ``s3://`` object (boto3; ``StorageError``)."""
    if location.startswith("s3://"):
        from redo_lib.storage.s3 import read_object

        return read_object(location).decode("utf-8")
    return Path(location).read_text(encoding="utf-8")


def write_location(location: str, text: str) -> str:
    """Write a small file whole: an ``s3://`` object with one PUT, a local file atomically."""
    if location.startswith("s3://"):
        from redo_lib.storage.s3 import write_object

        write_object(location, text.encode("utf-8"))
        return location
    path = Path(location)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.write_text(text, encoding="utf-8")
    tmp.replace(path)
    return location


def load_manifest(batch_dir: str | os.PathLike[str]) -> Manifest:
    """``<batch_dir>/manifest.json``, the batch folder a local path or an ``s3://`` prefix."""
    location = join_location(batch_dir, "manifest.json")
    try:
        doc = json.loads(read_location(location))
        logs = tuple(LogEntry(**log) for log in doc["logs"])
        capture = doc.get("capture")
        if capture is not None and (
            not isinstance(capture, list) or not all(isinstance(c, str) for c in capture)
        ):
            raise TypeError(f"capture must be a list of OWNER or OWNER.TABLE strings, not {capture!r}")
        return Manifest(
            batch_id=doc["batch_id"], logs=logs, dictionary=doc.get("dictionary"),
            previous_batch=doc.get("previous_batch"), carried_in=doc.get("carried_in"),
            capture=tuple(capture) if capture is not None else None,
            watermark_scn=doc.get("watermark_scn"),
        )  # fmt: skip
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise LogSetError(f"cannot read the batch manifest: {exc}", position=Position(file=location)) from exc


def write_manifest(batch_dir: str | os.PathLike[str], manifest: Manifest) -> str:
    """Write ``<batch_dir>/manifest.json`` (local folder or ``s3://`` prefix); returns its location."""
    return write_location(join_location(batch_dir, "manifest.json"), manifest.to_json())


# ---------------------------------------------------------------------------------------------
# Decode units


@dataclass(frozen=True, slots=True)
class Unit:
    """One decode task: the records that start in blocks [first_block, last_block) of one log."""

    location: str
    thread: int
    sequence: int
    first_block: int
    last_block: int

    @property
    def name(self) -> str:
        return f"t{self.thread}-s{self.sequence:08d}-b{self.first_block:010d}"


def plan_units(manifest: Manifest, range_bytes: int = DEFAULT_RANGE_BYTES) -> list[Unit]:
    """Cut every log of the batch into block ranges of about ``range_bytes`` (one header read each)."""
    units = []
    for log in manifest.logs:
        header = read_header(open_source(log.location))
        if (header.thread, header.sequence) != (log.thread, log.sequence):
            raise LogSetError(
                f"header says thread {header.thread} sequence {header.sequence}, the manifest "
                f"thread {log.thread} sequence {log.sequence}",
                position=Position(file=log.location),
            )
        step = max(range_bytes // header.block_size, 1)
        for first in range(2, max(header.nab, 2), step):
            units.append(Unit(log.location, log.thread, log.sequence, first, min(first + step, header.nab)))
    return units


def write_events(events: Iterable[ChangeEvent], path: str | os.PathLike[str], *, chunk: int = 50_000) -> int:
    """Stream events into one Parquet file (written to a temporary name, then renamed)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = target.with_name(f".{target.name}.tmp")
    count = 0
    with pq.ParquetWriter(tmp, events_schema()) as writer:
        rows: list[dict[str, Any]] = []
        for event in events:
            rows.append(event_to_row(event))
            if len(rows) >= chunk:
                writer.write_table(pa.Table.from_pylist(rows, schema=events_schema()))
                count += len(rows)
                rows = []
        writer.write_table(pa.Table.from_pylist(rows, schema=events_schema()))
        count += len(rows)
    tmp.replace(target)
    return count


def read_events(path: str | os.PathLike[str]) -> Iterator[ChangeEvent]:
    """Events from a Parquet file or folder of parts (sorted part names; empty when missing)."""
    import pyarrow.parquet as pq

    root = Path(path)
    files = sorted(root.glob("*.parquet")) if root.is_dir() else ([root] if root.exists() else [])
    for file in files:
        for batch in pq.ParquetFile(file).iter_batches():
            for row in batch.to_pylist():
                yield event_from_row(row)


def _decoded_batches(unit: Unit, policy_name: str) -> tuple[Iterator[Any], dict[str, Any]]:
    """The unit's events as record batches of ``events_schema()`` (a stream) and its result
    document, whose counters are complete once the stream is exhausted: ``{"unit", "events",
    "report", "decoded"}`` (JSON-able)."""
    report = DecodeReport()
    decoded: Counter[tuple[int, str]] = Counter()
    batches = decode_range_arrow(
        unit.location, unit.first_block, unit.last_block, policy=ErrorPolicy(policy_name), report=report,
        row_changes=decoded,
    )  # fmt: skip
    result: dict[str, Any] = {"unit": asdict(unit), "events": 0}

    def counting() -> Iterator[Any]:
        for batch in batches:
            result["events"] += batch.num_rows
            yield batch
        result["report"] = report.to_dict()
        result["decoded"] = [[obj, op, c] for (obj, op), c in sorted(decoded.items())]

    return counting(), result


ROW_GROUP_EVENTS = 65536  # events per Parquet row group of a unit's file (a few tens of MB at most)


def decode_unit(unit: Unit, batch_dir: str, policy_name: str = "raise") -> dict[str, Any]:
    """Decode one unit into ``staging/events/<unit>.parquet`` of the batch folder (a local path or an
    ``s3://`` prefix) and return its result document (:func:`_decoded_batches`).

    The core's Arrow batches go to Parquet here, in the task, rather than through Spark: Spark turns
    Arrow into rows and back into Parquet columns, and for the events' nested columns that cost four
    times the decode itself (``docs/benchmarks.md``). The file's name is the unit's, so a retried or
    speculative task writes the same file again; it appears whole (a local temporary file renamed,
    or one upload of a finished file). Memory: one row group of events, whatever the range holds."""
    import tempfile

    import pyarrow as pa
    import pyarrow.parquet as pq

    batches, result = _decoded_batches(unit, policy_name)
    target = join_location(batch_dir, "staging", "events", f"{unit.name}.parquet")
    remote = target.startswith("s3://")
    if remote:
        handle, name = tempfile.mkstemp(prefix=f"{unit.name}.", suffix=".parquet")
        os.close(handle)
        tmp = Path(name)
    else:
        Path(target).parent.mkdir(parents=True, exist_ok=True)
        tmp = Path(target).with_name(f".{Path(target).name}.tmp")
    schema = events_schema()
    try:
        with pq.ParquetWriter(tmp, schema) as writer:
            group: list[Any] = []
            rows = 0
            for batch in batches:
                group.append(batch)
                rows += batch.num_rows
                if rows >= ROW_GROUP_EVENTS:
                    writer.write_table(pa.Table.from_batches(group, schema=schema))
                    group, rows = [], 0
            if group or not result["events"]:  # an empty unit still leaves a file with the schema
                writer.write_table(pa.Table.from_batches(group, schema=schema))
        if remote:
            from redo_lib.storage.s3 import upload_file

            upload_file(tmp, target)
        else:
            tmp.replace(target)
    finally:
        tmp.unlink(missing_ok=True)
    return result


UNIT_FIELDS = ("location", "thread", "sequence", "first_block", "last_block")
UNIT_RESULT = "unit_result"  # the column of result_schema(): a unit's result (JSON)


@cache
def units_schema() -> Any:
    """A decode unit as a row (:class:`Unit`'s fields): the input of :func:`decode_units`."""
    import pyarrow as pa

    return pa.schema([("location", pa.string()), ("thread", pa.int64()), ("sequence", pa.int64()),
                      ("first_block", pa.int64()), ("last_block", pa.int64())])  # fmt: skip


@cache
def result_schema() -> Any:
    """What :func:`decode_units` hands to Spark: one row per unit, its result document as JSON."""
    import pyarrow as pa

    return pa.schema([pa.field(UNIT_RESULT, pa.string())])


def decode_units(batches: Iterable[Any], batch_dir: str, policy_name: str = "raise") -> Iterator[Any]:
    """Decode units for Spark's ``mapInArrow``: record batches of unit rows (``units_schema()``) in;
    each unit's events written by :func:`decode_unit` into the batch folder, and one row of
    ``result_schema()`` out per unit."""
    import pyarrow as pa

    for batch in batches:
        for row in batch.to_pylist():
            result = decode_unit(Unit(**{k: row[k] for k in UNIT_FIELDS}), batch_dir, policy_name)
            yield pa.RecordBatch.from_pylist([{UNIT_RESULT: json.dumps(result)}], schema=result_schema())


# ---------------------------------------------------------------------------------------------
# Assemble partitions


@cache
def dictionary_at(location: str | None) -> DictionaryHistory | None:
    """The dictionary at a local path or an ``s3://`` URL (once per process)."""
    if not location:
        return None
    if not location.startswith("s3://"):
        return load_dictionary(Path(location))
    try:
        return load_dictionary(read_location(location))
    except DictionaryError as exc:  # read from its text: name the object instead
        exc.position = replace(exc.position, file=location)
        raise


@cache
def dictionary_json(location: str | None) -> str | None:
    """The dictionary at ``location`` as the JSON text the core reads (once per process)."""
    history = dictionary_at(location)
    return None if history is None else history.to_json()


def assemble_partition(
    index: int,
    rows: Iterable[dict[str, Any]],
    batch_dir: str,
    dictionary: str | None,
    options: dict[str, Any] | None = None,
    memory_limit: int = DEFAULT_MEMORY_LIMIT,
    resetlogs_id: int | None = None,
    hold_from: int | None = None,
) -> Iterator[dict[str, Any]]:
    """:func:`assemble_arrow` over one partition's event rows (whole (usn, slot) groups, in redo
    order, carried-in events first) in one process, over a local batch folder (tests, tools): yields
    the trail rows with their commit-order key (``order_key``).

    Side outputs, named by the partition index: ``open/part-<index>.parquet`` (the open transactions
    carried out) and ``counts/part-<index>.json`` (this partition's reconciliation counts)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    open_batches: list[Any] = []
    counts: dict[str, Any] = {}
    events = rows_to_arrow(rows, events_schema().append(pa.field("carried", pa.bool_())))
    batches = assemble_arrow(
        events, dictionary, options, batch_id="", resetlogs_id=resetlogs_id, memory_limit=memory_limit,
        hold_from=hold_from,
    )  # fmt: skip
    for batch in batches:
        kind = batch.column(OUTPUT)[0].as_py() if batch.num_rows else None
        if kind == "trail":
            for row in batch.select([f.name for f in staged_trail_schema()]).to_pylist():
                row["order_key"] = [row.pop(name) for name in ORDER_FIELDS]
                row["batch_id"] = None
                yield row
        elif kind == "open":
            open_batches.append(pa.RecordBatch.from_struct_array(batch.column("open_event")))
        elif kind == "counts":
            counts = json.loads(batch.column("counts")[0].as_py())
    open_dir = Path(batch_dir) / "open"
    open_dir.mkdir(parents=True, exist_ok=True)
    schema = events_schema()
    table = pa.Table.from_batches([b.cast(schema) for b in open_batches], schema=schema)
    pq.write_table(table, open_dir / f"part-{index:05d}.parquet")
    counts_dir = Path(batch_dir) / "counts"
    counts_dir.mkdir(parents=True, exist_ok=True)
    (counts_dir / f"part-{index:05d}.json").write_text(json.dumps(counts))


def _peak_rss_mb() -> float:
    """Peak resident memory of this process so far (MB): the Python worker's high-water mark, so the
    benchmarks can show that a long transaction does not raise it (docs/memory.md)."""
    import resource
    import sys

    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss  # KiB on Linux, bytes on macOS
    return round(peak / (1 << 20 if sys.platform == "darwin" else 1 << 10), 1)


@cache
def staged_trail_schema() -> Any:
    """``trail_schema()`` plus the commit-order key of each row (``ORDER_FIELDS``): the trail rows
    Spark sorts by the key, numbers and writes without it. Defined once, in the core (the stage
    builds these rows), and taken from it here as ``events_schema()`` is."""
    import pyarrow as pa

    from redo_lib.native import native

    return pa.schema(native.staged_trail_schema())


OUTPUT = "output"  # which of a partition's outputs a row of assembled_schema() is: OUTPUTS
OUTPUTS = ("trail", "open", "counts")


@cache
def assembled_schema() -> Any:
    """What :func:`assemble_arrow` hands to Spark: one row per trail record (``output`` "trail", the
    fields of ``staged_trail_schema()``), per event of a transaction left open (``open``:
    ``open_event`` of ``events_schema()``, ``open_order`` its place in begin order) and one per
    partition (``counts``: the reconciliation counts, JSON). Every field but ``output`` is nullable."""
    import pyarrow as pa

    event = pa.struct([field.with_nullable(True) for field in events_schema()])
    return pa.schema(
        [
            pa.field(OUTPUT, pa.string(), nullable=False),
            *(field.with_nullable(True) for field in staged_trail_schema()),
            pa.field("open_event", event),
            pa.field("open_order", pa.list_(pa.int64())),
            pa.field("counts", pa.string()),
        ]
    )


def _as_assembled(output: str, n: int, columns: dict[str, Any]) -> Any:
    """A record batch of ``assembled_schema()``: ``columns`` given, every other field null."""
    import pyarrow as pa

    schema = assembled_schema()
    arrays = [
        pa.array([output] * n, pa.string()) if f.name == OUTPUT else columns.get(f.name, pa.nulls(n, f.type))
        for f in schema
    ]
    return pa.RecordBatch.from_arrays(arrays, schema=schema)


def _importable(batch: Any) -> Any:
    """``batch`` with every empty nested array rebuilt by pyarrow. Spark's Arrow batches give empty
    children (the ``rows`` of a batch without multi-row events) zero-size offset buffers; pyarrow
    accepts them, but the core's Arrow import (arrow-rs 60 FFI) reads one offset from each and
    refuses the batch (``arrow import: Error converting offset[0]``)."""
    import pyarrow as pa

    def rebuilt(array: Any) -> Any:
        if array.offset and (pa.types.is_list(array.type) or pa.types.is_struct(array.type)):
            array = pa.concat_arrays([array])  # a slice, copied to start at 0
        if pa.types.is_list(array.type):
            values = array.values
            fixed = pa.array([], type=values.type) if len(values) == 0 else rebuilt(values)
            if fixed is values:
                return array
            return pa.ListArray.from_arrays(array.offsets, fixed, mask=array.is_null())
        if pa.types.is_struct(array.type):
            # a sliced struct's children are whole: flatten() cuts them to the slice
            fields = (
                array.flatten() if array.offset else [array.field(i) for i in range(array.type.num_fields)]
            )
            fixed_fields = [rebuilt(f) for f in fields]
            if all(f is g for f, g in zip(fields, fixed_fields, strict=True)):
                return array
            return pa.StructArray.from_arrays(fixed_fields, fields=list(array.type), mask=array.is_null())
        return array

    columns = [rebuilt(c) for c in batch.columns]
    if all(c is d for c, d in zip(columns, batch.columns, strict=True)):
        return batch
    return pa.RecordBatch.from_arrays(columns, schema=batch.schema)


def assemble_arrow(
    batches: Iterable[Any],
    dictionary: str | None,
    options: dict[str, Any] | None = None,
    *,
    batch_id: str,
    resetlogs_id: int | None = None,
    memory_limit: int = DEFAULT_MEMORY_LIMIT,
    chunk: int = 8192,
    hold_from: int | None = None,
) -> Iterator[Any]:
    """Transaction assembly for Spark's ``mapInArrow``, in the Rust core (``native.Assembler``: its
    transaction table and emitter): event record batches in (one partition: whole (usn, slot) groups
    in redo order, a ``carried`` column marking the events carried in), record batches of
    ``assembled_schema()`` out, at most ``chunk`` rows each: the trail rows with their commit-order
    key, then the open transactions' events, then the partition's counts. No row passes through
    Python objects, and nothing is written here: Spark writes every output wherever the batch
    folder is. ``hold_from``: the batch's watermark SCN (transactions committing at or above it are
    carried out, not emitted)."""
    import pyarrow as pa

    from redo_lib.native import native

    schema = assembled_schema()
    table = native.TransactionTable(memory_limit=memory_limit, hold_from=hold_from)
    emit_options = asdict(EmitOptions(**(options or {})))
    emitter = native.Emitter(dictionary_json(dictionary), **emit_options)
    stage = native.Assembler(table, emitter, resetlogs_id=resetlogs_id, chunk=chunk)
    trail_names = [f.name for f in staged_trail_schema()]
    for batch in batches:
        stage.feed(_importable(batch))
        for staged in stage:
            rows = pa.record_batch(staged)
            columns = dict(zip(trail_names, rows.columns, strict=True))
            columns["batch_id"] = pa.array([batch_id] * rows.num_rows, pa.string())
            yield _as_assembled("trail", rows.num_rows, columns)
    stage.carry_out()
    event_type = schema.field("open_event").type
    for carried in stage:
        rows = pa.record_batch(carried)
        event = pa.StructArray.from_arrays(rows.columns[:-1], fields=list(event_type))
        yield _as_assembled(
            "open", rows.num_rows, {"open_event": event, "open_order": rows.column("open_order")}
        )
    counts = stage_counts(stage, table, emitter)
    counts["resources"] = {"peak_rss_mb": _peak_rss_mb()}
    # what each open transaction holds, for the operators (python -m redo_lib status); partitions hold
    # whole transactions, so merge_counts joins these by xid
    counts["open_transactions"] = {
        xid: {
            "start_scn": start_scn,
            "start_time": (_EPOCH + dt.timedelta(microseconds=start_time)).isoformat(),
            "thread": thread,
            "started_in": commit_log_name(thread, seq, resetlogs_id),
            "changes": changes,
            "bytes": size,
            "last_scn": last_scn,
            **({} if held is None else {"held_commit_scn": held}),
        }
        for xid, start_scn, start_time, thread, seq, changes, size, last_scn, held in stage.open
    }
    yield _as_assembled("counts", 1, {"counts": pa.array([json.dumps(counts)], pa.string())})


def evolve_batch_dictionary(
    dictionary: str | None, ddl_rows: Iterable[dict[str, Any]], batch_dir: str, *, own_copy: bool = False
) -> tuple[str | None, dict[str, int], list[dict[str, Any]]]:
    """Apply the batch's DDL events (rows, in redo order) to its dictionary before assembly, so every
    partition sees the same versions; the evolved dictionary is written to ``<batch>/dictionary.json``
    (the next batch starts from it). Returns its location (or the input when nothing changed and
    ``own_copy`` is false: a dictionary carried from the previous batch is copied, so every batch
    folder holds the dictionary its trail was written with), the DDL counts by effect and the DDL
    that could not be applied (``emit.evolve_dictionary``)."""
    from redo_lib.trail.emit import evolve_dictionary

    history = dictionary_at(dictionary)
    events = [e for e in map(event_from_row, ddl_rows) if e.kind is EventKind.DDL]
    if history is None or (not events and not own_copy):
        return dictionary, {}, []
    counts: Counter[str] = Counter()
    problems: list[dict[str, Any]] = []
    evolved = evolve_dictionary(history, events, counts, problems)
    if evolved is history and not own_copy:
        return dictionary, dict(counts), problems
    location = write_location(join_location(batch_dir, "dictionary.json"), evolved.to_json())
    return location, dict(counts), problems


def _merge_value(key: str, old: Any, new: Any) -> Any:
    """One counter of two partitions: summed, except high-water marks (``peak_*``, ``max_*``: the
    largest), first SCNs (``first_scn``: the smallest) and values that are no counts (the capture
    list, a missing ``max_object_id``: the same in every partition, kept)."""
    if old is None or not isinstance(new, int | float) or isinstance(new, bool):
        return new if old is None else old
    if key.startswith(("peak_", "max_")):
        return max(old, new)
    if key == "first_scn":
        return min(old, new)
    return old + new


def merge_counts(parts: Iterable[dict[str, Any]]) -> dict[str, Any]:
    """Sum partition counts into the batch's counts.json document (``_merge_value``)."""
    total: dict[str, Any] = {}
    for part in parts:
        for section, value in part.items():
            if not isinstance(value, dict):
                continue
            target = total.setdefault(section, {})
            for key, inner in value.items():
                if isinstance(inner, dict):
                    dest = target.setdefault(key, {})
                    for op, n in inner.items():
                        dest[op] = _merge_value(op, dest.get(op), n)
                else:
                    target[key] = _merge_value(key, target.get(key), inner)
    return total
