"""Batch entry points: what the CLI, the Spark jobs and the tests call.

Plain, picklable inputs (paths or ``s3://`` URLs, block ranges) and plain outputs (change events,
trail records, reports), so that a Spark task runs exactly the code a unit test runs:

* :func:`open_source` / :func:`read_header` — a log by path or URL, and its header;
* :func:`decode_range` — the change events of the records that start in a block range of one log
  (a Spark decode task);
* :func:`iter_batch_events` — the events of a set of logs in redo order, threads merged by SCN;
* :func:`decode_logs` — the whole single-process decode: logs -> committed transactions -> trail.
  It is the reference the Spark stages are checked against.

Layer "top": may import everything.
"""

from __future__ import annotations

import heapq
import os
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from redo_lib.assembly.carry import DEFAULT_MEMORY_LIMIT
from redo_lib.assembly.events import ChangeEvent, iter_events
from redo_lib.assembly.transactions import TransactionTable
from redo_lib.dictionary import DictionaryHistory, load_dictionary
from redo_lib.errors import ErrorPolicy, LogSetError, Position, RedoError, locate
from redo_lib.format.header import parse_log_header
from redo_lib.format.model import LogHeader
from redo_lib.format.reader import iter_records
from redo_lib.report import DecodeReport
from redo_lib.storage.sources import LocalFileSource
from redo_lib.trail.emit import EmitOptions, TrailEmitter
from redo_lib.trail.model import TrailRecord

HEADER_BYTES = 2 * 4096  # block 0 + block 1 at the largest block size (redo-format §1.3)


def open_source(location: str | os.PathLike[str]) -> Any:
    """A byte source for a local path or an ``s3://`` URL (ranged GETs)."""
    text = os.fspath(location)
    if text.startswith("s3://"):
        from redo_lib.storage.s3 import S3Source

        return S3Source(text)
    return LocalFileSource(text)


def read_header(source: Any) -> LogHeader:
    """Block 0 and the redo log header of a log; errors name the file."""
    try:
        return parse_log_header(source.read(0, HEADER_BYTES), source.name)
    except RedoError as exc:
        raise locate(exc, file=source.name) from None


def decode_range(
    location: str | os.PathLike[str],
    first_block: int = 2,
    last_block: int | None = None,
    *,
    policy: ErrorPolicy = ErrorPolicy.RAISE,
    report: DecodeReport | None = None,
) -> Iterator[ChangeEvent]:
    """Change events of the records that start in blocks [first_block, last_block) of one log."""
    source = open_source(location)
    header = read_header(source)
    for record in iter_records(source, header, first_block, last_block, policy=policy, report=report):
        yield from iter_events(record)


@dataclass(frozen=True, slots=True)
class LogRef:
    """A log of a batch: where it is and what its header says."""

    location: str
    thread: int
    sequence: int
    resetlogs_id: int
    first_scn: int
    next_scn: int | None


def describe_logs(locations: Iterable[str | os.PathLike[str]]) -> list[LogRef]:
    """Read each log's header (never trusting the file name) and sort by (thread, sequence).

    Raises ``LogSetError`` for a gap in a thread's sequences, a duplicate, or mixed incarnations."""
    refs = []
    for loc in locations:
        header = read_header(open_source(loc))
        refs.append(
            LogRef(
                location=os.fspath(loc),
                thread=header.thread,
                sequence=header.sequence,
                resetlogs_id=header.resetlogs_id,
                first_scn=header.first_scn,
                next_scn=header.next_scn,
            )  # fmt: skip
        )
    refs.sort(key=lambda r: (r.thread, r.sequence))
    incarnations = {r.resetlogs_id for r in refs}
    if len(incarnations) > 1:
        raise LogSetError(
            "logs of different incarnations (resetlogs ids) in one batch", ids=sorted(incarnations)
        )
    for a, b in zip(refs, refs[1:], strict=False):
        if a.thread == b.thread and b.sequence != a.sequence + 1:
            what = "duplicate" if b.sequence == a.sequence else "missing"
            missing = list(range(a.sequence + 1, b.sequence))
            raise LogSetError(
                f"{what} sequence in thread {a.thread}: "
                + (f"{a.sequence} twice" if what == "duplicate" else f"sequences {missing} not given"),
                position=Position(file=b.location, sequence=b.sequence),
                thread=a.thread,
            )
    return refs


def iter_batch_events(
    refs: Sequence[LogRef], *, policy: ErrorPolicy = ErrorPolicy.RAISE, report: DecodeReport | None = None
) -> Iterator[ChangeEvent]:
    """Events of all logs of a batch in redo order: each thread in sequence and RBA order, threads
    merged by (SCN, sub-SCN, thread, position) (RAC, contract rule 6)."""
    threads: dict[int, list[LogRef]] = {}
    for ref in refs:
        threads.setdefault(ref.thread, []).append(ref)

    def thread_events(logs: list[LogRef]) -> Iterator[ChangeEvent]:
        for ref in logs:
            yield from decode_range(ref.location, policy=policy, report=report)

    streams = [thread_events(logs) for _, logs in sorted(threads.items())]
    if len(streams) == 1:
        return streams[0]
    return heapq.merge(*streams, key=lambda e: e.sort_key)


@dataclass
class DecodeResult:
    """What a single-process decode gives: the trail, the state to carry, and what was counted."""

    trail: list[TrailRecord]
    carried_out: list[ChangeEvent]
    report: DecodeReport
    assembly: Counter[str] = field(default_factory=Counter)
    emit: Counter[str] = field(default_factory=Counter)
    unknown_objects: Counter[int] = field(default_factory=Counter)
    cancelled: Counter[tuple[int, int]] = field(default_factory=Counter)
    issues: list[tuple[str, str, Position]] = field(default_factory=list)

    def summary(self) -> dict[str, Any]:
        return {
            "records": self.report.records,
            "trail_records": len(self.trail),
            "transactions": self.emit.get("transactions", 0),
            "open_transactions_carried": sum(1 for e in self.carried_out if e.kind.name == "BEGIN"),
            "assembly": dict(self.assembly),
            "emit": dict(self.emit),
            "unknown_objects": {str(k): v for k, v in sorted(self.unknown_objects.items())},
            "skipped": len(self.report.skipped),
        }


def decode_logs(
    locations: Sequence[str | os.PathLike[str]],
    dictionary: DictionaryHistory | str | os.PathLike[str] | None = None,
    *,
    carried: Iterable[ChangeEvent] = (),
    options: EmitOptions | None = None,
    policy: ErrorPolicy = ErrorPolicy.RAISE,
    memory_limit: int = DEFAULT_MEMORY_LIMIT,
) -> DecodeResult:
    """Decode a batch of archived logs in one process: the reference for the Spark stages."""
    if dictionary is not None and not isinstance(dictionary, DictionaryHistory):
        dictionary = load_dictionary(Path(dictionary))
    refs = describe_logs(locations)
    report = DecodeReport()
    return assemble_and_emit(
        iter_batch_events(refs, policy=policy, report=report),
        dictionary,
        carried=carried,
        options=options,
        policy=policy,
        memory_limit=memory_limit,
        report=report,
    )


def assemble_and_emit(
    events: Iterable[ChangeEvent],
    dictionary: DictionaryHistory | None = None,
    *,
    carried: Iterable[ChangeEvent] = (),
    options: EmitOptions | None = None,
    policy: ErrorPolicy = ErrorPolicy.RAISE,
    memory_limit: int = DEFAULT_MEMORY_LIMIT,
    report: DecodeReport | None = None,
) -> DecodeResult:
    """Events in redo order (from binary logs or dump text) -> committed transactions -> trail."""
    table = TransactionTable(carried, memory_limit=memory_limit, policy=policy)
    emitter = TrailEmitter(dictionary=dictionary, options=options or EmitOptions())
    trail: list[TrailRecord] = []
    # Commits arrive in commit order: every thread's events are in redo order and threads are
    # merged by SCN, so each transaction is emitted (and its spill file released) at its commit.
    for event in events:
        txn = table.feed(event)
        if txn is not None:
            trail.extend(emitter.emit(txn))
            txn.changes.close()
    return DecodeResult(
        trail=trail,
        carried_out=list(table.carry_out()),
        report=report or DecodeReport(),
        assembly=table.counters,
        emit=emitter.counters,
        unknown_objects=emitter.unknown_objects,
        cancelled=table.cancelled,
        issues=table.issues,
    )
