"""Batch work units for the Spark stages: what one task does, as plain library functions.

The Spark jobs (``spark_jobs/decode.py``, ``spark_jobs/assemble.py``) only distribute these units
and collect their small results; every byte of Oracle knowledge stays here. Executor-side
functions take plain, picklable arguments and write their Arrow data themselves, each file appearing
whole, to the batch folder (docs/pipeline-contract.md), a local path or ``s3://``, so no task needs
a disk another process can read. Small documents (the manifest, a batch's dictionary) are
read and written whole, locally or with boto3 (:func:`read_location`, :func:`write_location`).

* decode: :func:`plan_units` cuts each log of the manifest into block ranges (default 64 MB);
  :func:`decode_unit` (one Spark task each) decodes each range and writes its change events to Parquet
  straight from the core's Arrow batches, in row groups of one transaction-slot bucket each
  (see there why not through Spark), handing Spark its result document.
* assemble: :func:`assemble_task` (one Spark task per bucket of transaction slots) reads its
  bucket's events from decode's files and the carried-in open transactions (``redo_lib/exchange.py``)
  and runs them through the Rust core's transaction table and emitter (:func:`assemble_stream`,
  ``native.Assembler``, as the single-process decode does, so the outputs agree by construction): a
  transaction's changes stream through its spilling change buffer, so none sits whole in a task's
  memory. Its trail rows go into one run per commit range, which :func:`trail_range` merges into
  commit order and writes as the trail's part of that range.

:func:`decode_unit` serves the Spark stage and the single-process path alike; :func:`assemble_partition`
is the assemble work over a local folder in one process (tests, tools): it writes the ``open/`` and
``counts/`` parts itself.

Layer "top".
"""

from __future__ import annotations

import datetime as dt
import itertools
import json
import os
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import asdict, dataclass, replace
from functools import cache
from pathlib import Path
from typing import Any

from redo_lib.assembly.events import ChangeEvent, EventKind, event_from_row, event_to_row, events_schema
from redo_lib.dictionary import DictionaryHistory, TypeCode, load_dictionary
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
from redo_lib.storage.sources import VERIFY_PAGES, parquet_writer
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
    # the capture scope, "OWNER" / "OWNER.TABLE" entries and "-OWNER.TABLE.COLUMN" for a column left
    # out (None: every table of the dictionary);
    # trail.emit.capture_options turns it into the emitter's options
    capture: tuple[str, ...] | None = None
    # the image options, "update-befores" / "full-deletes" (None: GoldenGate's defaults);
    # trail.emit.image_options turns them into the emitter's options
    images: tuple[str, ...] | None = None
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
            raise TypeError(
                f"capture must be a list of OWNER, OWNER.TABLE or -OWNER.TABLE.COLUMN strings, not {capture!r}"
            )
        images = doc.get("images")
        if images is not None and (
            not isinstance(images, list) or not all(isinstance(i, str) for i in images)
        ):
            raise TypeError(f"images must be a list of image options, not {images!r}")
        return Manifest(
            batch_id=doc["batch_id"], logs=logs, dictionary=doc.get("dictionary"),
            previous_batch=doc.get("previous_batch"), carried_in=doc.get("carried_in"),
            capture=tuple(capture) if capture is not None else None,
            images=tuple(images) if images is not None else None,
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

    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = target.with_name(f".{target.name}.tmp")
    count = 0
    with parquet_writer(tmp, events_schema()) as writer:
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
        for batch in pq.ParquetFile(file, **VERIFY_PAGES).iter_batches():
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


SAMPLE_EVERY = 1024  # a decode unit reports the SCN of every 1024th event (commit ranges, exchange.py)


def decode_unit(unit: Unit, batch_dir: str, policy_name: str = "raise", buckets: int = 1) -> dict[str, Any]:
    """Decode one unit into ``staging/events/<unit>.parquet`` of the batch folder (a local path or an
    ``s3://`` prefix) and return its result document (:func:`_decoded_batches`) with where its events
    went: ``file``, ``groups`` (bucket -> row groups of the file, ``exchange.BucketWriter``: one
    bucket per transaction slot hash, redo order within a bucket), ``bucket_rows``, ``ddl`` (DDL
    events), ``lob_slots`` (the (usn, slot)
    that wrote LOB pages), ``locator_slots`` (``[obj, slot]`` of the row changes holding an
    out-of-row LOB locator: they may name pages another transaction wrote; both
    ``lob_carry.event_slots``, :func:`lob_table_slots`) and ``scn_samples`` (every ``SAMPLE_EVERY``-th event's SCN).

    The core's Arrow batches go to Parquet here, in the task, rather than through Spark: Spark turns
    Arrow into rows and back into Parquet columns, and for the events' nested columns that cost four
    times the decode itself (``docs/benchmarks.md``); the assemble tasks read their bucket's row
    groups the same way. The file's name is the unit's, so a retried or speculative task writes the
    same file again; it appears whole (``storage.sources.output_file``). Memory: the bucket writer's
    buffer (64 MB of events), whatever the range holds."""
    import pyarrow.compute as pc

    from redo_lib.exchange import BucketWriter, system_memory_pool
    from redo_lib.lob_carry import event_slots
    from redo_lib.storage.sources import output_file

    system_memory_pool()
    batches, result = _decoded_batches(unit, policy_name)
    target = join_location(batch_dir, "staging", "events", f"{unit.name}.parquet")
    lob_slots: set[int] = set()
    locators: set[tuple[int, int]] = set()
    samples: list[int] = []
    seen = ddl = 0
    with output_file(target, suffix=".parquet") as tmp:
        writer = BucketWriter(tmp, events_schema(), buckets)
        for batch in batches:
            ddl += pc.sum(pc.equal(batch.column("kind"), int(EventKind.DDL))).as_py() or 0
            wrote, named = event_slots(batch)
            lob_slots |= wrote
            locators |= named
            scn = batch.column("scn").to_numpy()
            samples.extend(scn[(-seen) % SAMPLE_EVERY :: SAMPLE_EVERY].tolist())
            seen += batch.num_rows
            writer.write(batch)
        groups = writer.close()
    result.update(
        file=target, buckets=buckets, groups={str(b): g for b, g in sorted(groups.items())},
        bucket_rows={str(b): n for b, n in sorted(writer.bucket_rows.items())},
        lob_slots=sorted(lob_slots), locator_slots=[list(pair) for pair in sorted(locators)],
        scn_samples=samples, ddl=ddl,
        objs=sorted({obj for obj, _, _ in result["decoded"]}),
    )  # fmt: skip
    return result


#: what a unit's result says of where its events went (:func:`decode_unit`; ``staging/units.json``)
UNIT_EXCHANGE = (
    "file", "buckets", "groups", "bucket_rows", "lob_slots", "locator_slots", "scn_samples", "ddl", "objs",
)  # fmt: skip
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


#: the column types whose values are LOB locators: CLOB (and NCLOB, charset form 2), BLOB
LOB_TYPE_CODES = frozenset({TypeCode.CLOB, TypeCode.BLOB})


def unit_locators(units: Iterable[dict[str, Any]]) -> set[tuple[int, int]]:
    """The (obj, slot key) pairs of the decode units' ``locator_slots`` (:func:`decode_unit`); a unit
    result without them (a staging folder of an older release) reports none."""
    return {(int(obj), int(key)) for unit in units for obj, key in unit.get("locator_slots", ())}


def lob_table_slots(pairs: Iterable[tuple[int, int]], dictionary: str | None) -> set[int]:
    """The slot keys (``exchange.slot_keys``) of the (obj, slot key) ``pairs`` of row changes holding
    an out-of-row LOB locator (:func:`unit_locators`, ``lob_carry.carried_slots``) whose object is a
    table with a LOB column, or a partition or subpartition of one, in the dictionary at location
    ``dictionary`` (the batch's, evolved by its DDL; read only when there are pairs, most batches
    have none): assemble gives them to its LOB task with the LOB pages, since a transaction may
    rewrite a row's locator to name pages an earlier transaction wrote without writing one itself
    (``DBMS_LOB.TRIM`` at a page boundary), or pages carried in from the previous batch. The obj
    check leaves out values of other columns that merely look like locators."""
    pairs = set(pairs)
    history = dictionary_at(dictionary) if pairs else None
    if history is None:
        return set()
    lob_objs: set[int] = set()
    for version in history:
        if any(column.type_code in LOB_TYPE_CODES for column in version.columns):
            lob_objs.add(version.obj)
            lob_objs.update(version.segment_objs())
    return {key for obj, key in pairs if obj in lob_objs}


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
    lobs_in: Iterable[str] = (),
) -> Iterator[dict[str, Any]]:
    """:func:`assemble_stream` over one partition's event rows (whole (usn, slot) groups, in redo
    order, carried-in events first) in one process, over a local batch folder (tests, tools): yields
    the trail rows with their commit-order key (``order_key``).

    Side outputs, named by the partition index: ``open/part-<index>.parquet`` (the open transactions
    carried out), ``lobs/part-<index>.parquet`` (the LOB pages carried out, when there are any:
    ``lob_carry``; ``lobs_in``: the previous batch's files) and ``counts/part-<index>.json`` (this
    partition's reconciliation counts)."""
    import pyarrow as pa

    from redo_lib.lob_carry import LOBS, LobPagesWriter, part_name

    open_batches: list[Any] = []
    counts: dict[str, Any] = {}
    events = rows_to_arrow(rows, events_schema().append(pa.field("carried", pa.bool_())))
    stream = assemble_stream(
        events, dictionary, options, resetlogs_id=resetlogs_id, memory_limit=memory_limit, hold_from=hold_from,
        lobs_in=lobs_in,
    )  # fmt: skip
    lobs_path = Path(batch_dir) / LOBS / part_name(index)

    def open_lobs() -> Path:
        lobs_path.parent.mkdir(parents=True, exist_ok=True)
        return lobs_path

    lobs = LobPagesWriter(open_lobs)
    for kind, out in stream:
        if kind == "trail":
            for row in out.to_pylist():
                row["order_key"] = [row.pop(name) for name in ORDER_FIELDS]
                row["batch_id"] = None
                yield row
        elif kind == "open":
            open_batches.append(out)
        elif kind == "lobs":
            lobs.write(out)
        else:
            counts = out
    lobs.close()
    open_dir = Path(batch_dir) / "open"
    open_dir.mkdir(parents=True, exist_ok=True)
    schema = events_schema()
    table = pa.Table.from_batches(open_batches, schema=schema)
    with parquet_writer(open_dir / f"part-{index:05d}.parquet", schema) as writer:
        writer.write_table(table)
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


def assemble_stream(
    batches: Iterable[Any],
    dictionary: str | None,
    options: dict[str, Any] | None = None,
    *,
    resetlogs_id: int | None = None,
    memory_limit: int = DEFAULT_MEMORY_LIMIT,
    chunk: int = 8192,
    hold_from: int | None = None,
    lobs_in: Iterable[str] = (),
    document: str | None = None,
    track_sys: bool = False,
) -> Iterator[tuple[str, Any]]:
    """Transaction assembly in the Rust core (``native.Assembler``: its transaction table and
    emitter) over event record batches (whole (usn, slot) groups in redo order, a ``carried`` column
    marking the events carried in): yields ``("trail", batch)`` (``staged_trail_schema()``: trail rows
    with their commit-order key, at most ``chunk`` each, as each commit is met), then ``("open",
    batch)`` (``events_schema()``: the events of the transactions left open, in begin order), then
    ``("lobs", batch)`` (the LOB pages carried out, ``lob_carry``; ``lobs_in``: the previous
    batch's files, read into the LOB store first), then ``("counts", doc)`` (the reconciliation
    counts). No row passes through Python objects.
    ``hold_from``: the batch's watermark SCN (transactions committing at or above it are carried
    out, not emitted). ``document``: the dictionary's JSON text, instead of its location. With
    ``track_sys`` (and ``apply_ddl`` in the options) and a ``sys`` member in the dictionary,
    ``("sys", {"json": text, "counters": {...}})`` comes before the counts: that member after the
    row changes of the ``SYS`` dictionary tables the core applied, and the emitter's
    ``dictionary_*`` counters (``batch_dictionary``)."""
    import pyarrow as pa

    from redo_lib.lob_carry import carried_lobs, read_carried_lobs
    from redo_lib.native import native

    table = native.TransactionTable(memory_limit=memory_limit, hold_from=hold_from)
    emit_options = asdict(EmitOptions(**(options or {})))
    emitter = native.Emitter(
        document if document is not None else dictionary_json(dictionary), **emit_options
    )
    read_carried_lobs(emitter, lobs_in)
    stage = native.Assembler(table, emitter, resetlogs_id=resetlogs_id, chunk=chunk)
    for batch in batches:
        stage.feed(batch)
        for staged in stage:
            yield "trail", pa.record_batch(staged)
    stage.carry_out()
    names = events_schema().names
    for carried in stage:
        yield "open", pa.record_batch(carried).select(names)
    for pages in carried_lobs(emitter):
        yield "lobs", pages
    if track_sys and (sys_json := emitter.sys_json()) is not None:
        counters = {k: v for k, v in emitter.counters.items() if k.startswith("dictionary_")}
        yield "sys", {"json": sys_json, "counters": counters}
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
    yield "counts", counts


@dataclass(frozen=True, slots=True, kw_only=True)
class AssemblePlan:
    """What every task of a batch's assembly gets (picklable): where the decode units put their
    events (:func:`decode_unit`'s results) in how many buckets, which buckets each task assembles
    (``task_buckets``, ``exchange.pack``), the LOB slots (int64 keys, ``exchange.slot_keys``: all of
    them go to one more task, the last, which also reads the LOB pages carried in:
    ``carried_lobs``), the carried-in files, the commit-SCN bounds of the trail's ranges, and the
    assembly's settings."""

    batch_dir: str
    batch_id: str
    units: tuple[dict[str, Any], ...]
    buckets: int
    task_buckets: tuple[tuple[int, ...], ...]
    lob_slots: tuple[int, ...]
    carried: tuple[str, ...]
    bounds: tuple[int, ...]
    dictionary: str | None
    options: dict[str, Any]
    resetlogs_id: int | None = None
    hold_from: int | None = None
    memory_limit: int = DEFAULT_MEMORY_LIMIT
    # the previous batch's lobs/ files (lob_carry): read by the LOB task, which runs for them alone
    # when no transaction of this batch writes LOB pages
    carried_lobs: tuple[str, ...] = ()

    @property
    def tasks(self) -> int:
        return len(self.task_buckets) + (1 if self.lob_slots or self.carried_lobs else 0)

    @property
    def ranges(self) -> int:
        return len(self.bounds) + 1

    def run_location(self, rng: int, task: int) -> str:
        return join_location(self.batch_dir, "staging", "runs", f"r{rng:05d}-t{task:05d}.parquet")


def assemble_task(task: int, plan: AssemblePlan) -> dict[str, Any]:
    """One assembly task: its buckets of the batch's events (``plan.task_buckets[task]``; the task
    after those: the LOB slots), each after its carried-in events, through the core
    (:func:`assemble_stream`). Transactions of different slots need no order between them, so the
    buckets' row groups come in file order. Writes the trail rows into one run per commit range
    (``staging/runs/r<range>-t<task>.parquet``) and the events of the transactions it leaves open
    into ``open/part-<task>.parquet`` in row groups by bucket (``exchange.BucketWriter``; always,
    empty or not: the next batch reads the folder) and the LOB pages it carries out into
    ``lobs/part-<task>.parquet`` (when it has any: the LOB task's pages, any task's LOB ids that
    went; ``lob_carry``); returns ``{"task", "runs": {range: rows}, "counts"}``."""
    import contextlib

    import numpy as np
    import pyarrow as pa

    from redo_lib.exchange import BucketWriter, RangeRuns, bucket_events, carried_events, system_memory_pool
    from redo_lib.lob_carry import LOBS, LobPagesWriter, part_name
    from redo_lib.storage.sources import output_file

    system_memory_pool()
    buckets = plan.task_buckets[task] if task < len(plan.task_buckets) else None

    def flagged(batches: Iterable[Any], carried: bool) -> Iterator[Any]:
        for batch in batches:
            yield batch.append_column("carried", pa.array(np.full(batch.num_rows, carried)))

    events: Iterator[Any] = itertools.chain(
        flagged(carried_events(plan.carried, buckets, plan.buckets, plan.lob_slots), True),
        flagged(bucket_events(plan.units, buckets, plan.lob_slots), False),
    )
    if buckets is None and not plan.lob_slots:  # the LOB task for the carried LOB pages alone
        events = iter(())
    counts: dict[str, Any] = {}
    open_location = join_location(plan.batch_dir, "open", f"part-{task:05d}.parquet")
    lobs_location = join_location(plan.batch_dir, LOBS, part_name(task))
    with contextlib.ExitStack() as stack:
        runs = RangeRuns(
            staged_trail_schema(), plan.bounds,
            lambda r: stack.enter_context(output_file(plan.run_location(r, task), suffix=".parquet")),
        )  # fmt: skip
        open_writer = BucketWriter(
            stack.enter_context(output_file(open_location, suffix=".parquet")), events_schema(), plan.buckets
        )
        lobs = LobPagesWriter(lambda: stack.enter_context(output_file(lobs_location, suffix=".parquet")))
        stream = assemble_stream(
            events, plan.dictionary, plan.options, resetlogs_id=plan.resetlogs_id,
            memory_limit=plan.memory_limit, hold_from=plan.hold_from,
            lobs_in=plan.carried_lobs if buckets is None else (),
        )  # fmt: skip
        for kind, out in stream:
            if kind == "trail":
                runs.write(out)
            elif kind == "open":
                open_writer.write(out)
            elif kind == "lobs":
                lobs.write(out)
            else:
                counts = out
        rows = runs.close()
        open_writer.close()
        lobs.close()
    return {"task": task, "runs": {str(r): n for r, n in sorted(rows.items())}, "counts": counts}


def trail_range(rng: int, plan: AssemblePlan, first_seq: int, tasks: Iterable[int]) -> dict[str, Any]:
    """The trail of one commit range: the runs the tasks wrote for it, merged into commit order
    (``exchange.merge_runs``), numbered from ``first_seq`` (``trail_seq``: the rows of the ranges
    before it) and written to ``trail/part-<range>.parquet`` (always: an empty batch still has a
    trail with its schema). Returns ``{"rows": written, "peak_rss_mb_merge": the worker's peak so far}``."""
    import pyarrow as pa

    from redo_lib.exchange import merge_runs, system_memory_pool
    from redo_lib.storage.sources import output_file
    from redo_lib.trail.schema import numbered_trail_batch, trail_schema

    system_memory_pool()
    schema = trail_schema()
    written = 0
    target = join_location(plan.batch_dir, "trail", f"part-{rng:05d}.parquet")
    with output_file(target, suffix=".parquet") as tmp, parquet_writer(tmp, schema) as writer:
        for staged in merge_runs([plan.run_location(rng, t) for t in tasks]):
            n = staged.num_rows
            table = numbered_trail_batch(staged, first_seq + written)  # the staged fields are the trail's
            batch_id = pa.nulls(n, pa.string()).fill_null(plan.batch_id)
            table = table.set_column(
                table.schema.get_field_index("batch_id"), schema.field("batch_id"), batch_id
            )
            writer.write_table(table)
            written += n
    return {"rows": written, "peak_rss_mb_merge": _peak_rss_mb()}


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
                        if isinstance(n, dict):  # a deeper breakdown (lobs.unresolved_by_column)
                            merged = merge_counts([{op: dest.get(op) or {}}, {op: n}])
                            dest[op] = merged.get(op, {})
                            continue
                        dest[op] = _merge_value(op, dest.get(op), n)
                else:
                    target[key] = _merge_value(key, target.get(key), inner)
    return total
