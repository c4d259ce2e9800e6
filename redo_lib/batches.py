"""Batch work units for the Spark stages: what one task does, as plain library functions.

The Spark jobs (``spark_jobs/decode.py``, ``spark_jobs/assemble.py``) only distribute these units
and collect their small results; every byte of Oracle knowledge stays here. Each function takes
plain, picklable arguments and writes only under the batch folder (docs/pipeline-contract.md), to
file names derived from its unit, so a retried or rerun task replaces its own output.

* decode: :func:`plan_units` cuts each log of the manifest into block ranges (default 64 MB);
  :func:`decode_unit` decodes one range into change events (Parquet part) and counters.
* assemble: the events of the batch plus the carried-in open transactions, grouped by transaction
  slot (usn, slot) and sorted by redo position, go through :func:`assemble_partition`: the same
  ``TransactionTable`` and ``TrailEmitter`` as the single-process decode, so the outputs agree by
  construction. A partition holds whole slots; a transaction's changes stream through its spilling
  ``ChangeBuffer``, so no transaction sits whole in a task's memory.

Layer "top".
"""

from __future__ import annotations

import datetime as dt
import json
import os
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import asdict, dataclass
from functools import cache
from pathlib import Path
from typing import Any

from redo_lib.assembly.carry import DEFAULT_MEMORY_LIMIT
from redo_lib.assembly.events import ChangeEvent
from redo_lib.assembly.rows import count_row_change
from redo_lib.assembly.transactions import TransactionTable
from redo_lib.dictionary import DictionaryHistory, load_dictionary
from redo_lib.errors import ErrorPolicy, LogSetError, Position
from redo_lib.pipeline import decode_range, open_source, read_header, reconcile
from redo_lib.report import DecodeReport
from redo_lib.trail.emit import EmitOptions, TrailEmitter
from redo_lib.trail.schema import commit_log_name, to_row, trail_schema

DEFAULT_RANGE_BYTES = 64 << 20
_EPOCH = dt.datetime(1970, 1, 1)


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

    def to_json(self) -> str:
        doc = asdict(self)
        doc["logs"] = [asdict(log) for log in self.logs]
        return json.dumps(doc, indent=2)


def load_manifest(batch_dir: str | os.PathLike[str]) -> Manifest:
    path = Path(batch_dir) / "manifest.json"
    try:
        doc = json.loads(path.read_text())
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
        )  # fmt: skip
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise LogSetError(
            f"cannot read the batch manifest: {exc}", position=Position(file=str(path))
        ) from exc


def write_manifest(batch_dir: str | os.PathLike[str], manifest: Manifest) -> Path:
    path = Path(batch_dir) / "manifest.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".json.tmp")
    tmp.write_text(manifest.to_json())
    tmp.replace(path)
    return path


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


def event_to_row(event: ChangeEvent) -> dict[str, Any]:
    """A change event as an Arrow/Parquet row; time as microseconds since the epoch (UTC wall clock:
    an integer, so no engine converts it through a local time zone on the way)."""
    row = event.to_row()
    t = event.time.replace(tzinfo=None) if event.time.tzinfo is not None else event.time
    row["time"] = (t - _EPOCH) // dt.timedelta(microseconds=1)
    return row


def _bytes(value: Any) -> bytes | None:
    return None if value is None else bytes(value)  # Spark hands binary back as bytearray


def event_from_row(row: dict[str, Any]) -> ChangeEvent:
    row = dict(row)
    row["time"] = _EPOCH + dt.timedelta(microseconds=int(row["time"]))
    for key in ("before", "after", "supp_columns"):
        row[key] = [{"col": i["col"], "value": _bytes(i["value"])} for i in row.get(key) or ()]
    row["rows"] = [
        {"slot": r["slot"], "values": [_bytes(v) for v in r["values"]]} for r in row.get("rows") or ()
    ]
    return ChangeEvent.from_row(row)


@cache
def events_schema() -> Any:
    import pyarrow as pa

    col = pa.struct([pa.field("col", pa.int32(), nullable=False), pa.field("value", pa.binary())])
    ints = ["kind", "usn", "slot", "sqn", "thread", "seq", "block", "offset", "scn", "subscn", "time",
            "vector", "obj", "dataobj", "undo_op", "redo_op", "bdba", "row_slot", "fb", "undo_fb",
            "supp_fb", "supp_op", "supp_bdba", "supp_slot"]  # fmt: skip
    fields = [pa.field(name, pa.int64(), nullable=name == "supp_fb") for name in ints]
    fields += [
        pa.field("before", pa.list_(col)),
        pa.field("after", pa.list_(col)),
        pa.field("supp_columns", pa.list_(col)),
        pa.field(
            "rows",
            pa.list_(pa.struct([pa.field("slot", pa.int32()), pa.field("values", pa.list_(pa.binary()))])),
        ),
        pa.field("ddl_text", pa.string()),
        pa.field("ddl_schema", pa.string()),
        pa.field("lob_id", pa.binary()),  # LOB pieces (kind LOB): LOB id, page number, page data
        pa.field("lob_page", pa.int64()),
        pa.field("lob_data", pa.binary()),
    ]
    return pa.schema(fields)


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


def decode_unit(unit: Unit, batch_dir: str, policy_name: str = "raise") -> dict[str, Any]:
    """Decode one unit into ``staging/events/<unit>.parquet``; return its counters (JSON-able)."""
    report = DecodeReport()
    policy = ErrorPolicy(policy_name)
    events = decode_range(unit.location, unit.first_block, unit.last_block, policy=policy, report=report)
    decoded: Counter[tuple[int, str]] = Counter()

    def counting(stream: Iterable[ChangeEvent]) -> Iterator[ChangeEvent]:
        for event in stream:
            count_row_change(decoded, event)
            yield event

    n = write_events(counting(events), Path(batch_dir) / "staging" / "events" / f"{unit.name}.parquet")
    return {
        "unit": asdict(unit),
        "events": n,
        "report": report.to_dict(),
        "decoded": [[obj, op, c] for (obj, op), c in sorted(decoded.items())],
    }


# ---------------------------------------------------------------------------------------------
# Assemble partitions


@cache
def _dictionary(location: str | None) -> DictionaryHistory | None:
    return None if not location else load_dictionary(Path(location))


def assemble_partition(
    index: int,
    rows: Iterable[dict[str, Any]],
    batch_dir: str,
    dictionary: str | None,
    options: dict[str, Any] | None = None,
    memory_limit: int = DEFAULT_MEMORY_LIMIT,
    resetlogs_id: int | None = None,
) -> Iterator[dict[str, Any]]:
    """Run transaction assembly over one partition's events (whole (usn, slot) groups, in redo order,
    carried-in events first) and yield trail rows with their commit-order key.

    Side outputs, named by the partition index: ``open/part-<index>.parquet`` (the open transactions
    carried out) and ``counts/part-<index>.json`` (this partition's reconciliation counts)."""
    table = TransactionTable(memory_limit=memory_limit)
    emitter = TrailEmitter(dictionary=_dictionary(dictionary), options=EmitOptions(**(options or {})))
    decoded: Counter[tuple[int, str]] = Counter()
    carried_in: Counter[tuple[int, str]] = Counter()
    for row in rows:
        carried = bool(row.pop("carried", False))
        event = event_from_row(row)
        count_row_change(carried_in if carried else decoded, event)
        txn = table.feed(event)
        if txn is None:
            continue
        commit_log = commit_log_name(txn.thread, txn.seq, resetlogs_id)
        for i, record in enumerate(emitter.iter_emit(txn)):
            out = to_row(record, commit_log=commit_log)
            out["order_key"] = [*txn.order_key, i]
            yield out
        txn.changes.close()
    carried_out = list(table.carry_out())
    write_events(carried_out, Path(batch_dir) / "open" / f"part-{index:05d}.parquet")
    counts = reconcile(
        emitter=emitter, table=table, decoded=decoded, carried_in=carried_in, carried_out=carried_out
    )
    counts["resources"] = {"peak_rss_mb": _peak_rss_mb()}
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


ORDER_FIELDS = ("order_scn", "order_thread", "order_seq", "order_block", "order_offset", "order_index")


@cache
def staged_trail_schema() -> Any:
    """``trail_schema()`` plus the commit-order key of each row (``ORDER_FIELDS``): what assembly
    partitions hand to Spark, which sorts by the key, numbers the rows and drops it."""
    import pyarrow as pa

    schema = trail_schema()
    for name in ORDER_FIELDS:
        schema = schema.append(pa.field(name, pa.int64(), nullable=False))
    return schema


def assemble_arrow(
    index: int,
    batches: Iterable[Any],
    batch_dir: str,
    dictionary: str | None,
    options: dict[str, Any] | None = None,
    *,
    batch_id: str,
    resetlogs_id: int | None = None,
    chunk: int = 8192,
) -> Iterator[Any]:
    """:func:`assemble_partition` with Arrow on both sides (Spark's ``mapInArrow``): event record
    batches in, trail record batches of ``staged_trail_schema()`` out, ``chunk`` rows at a time.
    Rows never pass through Spark's row-by-row Python conversion."""
    import pyarrow as pa

    schema = staged_trail_schema()
    rows = (row for batch in batches for row in batch.to_pylist())
    out: list[dict[str, Any]] = []
    for row in assemble_partition(index, rows, batch_dir, dictionary, options, resetlogs_id=resetlogs_id):
        row.update(zip(ORDER_FIELDS, row.pop("order_key"), strict=True), batch_id=batch_id)
        out.append(row)
        if len(out) >= chunk:
            yield pa.RecordBatch.from_pylist(out, schema=schema)
            out = []
    if out:
        yield pa.RecordBatch.from_pylist(out, schema=schema)


def evolve_batch_dictionary(
    dictionary: str | None, ddl_rows: Iterable[dict[str, Any]], batch_dir: str
) -> tuple[str | None, dict[str, int]]:
    """Apply the batch's DDL events (rows, in redo order) to its dictionary before assembly, so every
    partition sees the same versions; the evolved dictionary is written to ``<batch>/dictionary.json``
    (the next batch starts from it). Returns its location (or the input when nothing changed)."""
    from redo_lib.assembly.rows import iter_row_changes
    from redo_lib.trail.emit import evolve_dictionary

    history = _dictionary(dictionary)
    rows = [event_from_row(r) for r in ddl_rows]
    if history is None or not rows:
        return dictionary, {}
    counts: Counter[str] = Counter()
    evolved = evolve_dictionary(history, iter_row_changes(rows), counts)
    if evolved is history:
        return dictionary, dict(counts)
    path = Path(batch_dir) / "dictionary.json"
    path.write_text(evolved.to_json())
    return str(path), dict(counts)


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
