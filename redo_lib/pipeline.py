"""Batch entry points: what the CLI, the Spark jobs and the tests call.

Plain, picklable inputs (paths or ``s3://`` URLs, block ranges) and plain outputs (change events,
trail records, reports), so that a Spark task runs exactly the code a unit test runs:

* :func:`open_source` / :func:`read_header` — a log by path or URL, and its header;
* :func:`decode_range` — the change events of the records that start in a block range of one log
  (a Spark decode task);
* :func:`iter_batch_arrow` — the events of a set of logs in redo order, as record batches, the
  threads of a RAC set merged by SCN in the core (:func:`merge_threads`);
* :func:`decode_logs` — the whole single-process decode: logs -> committed transactions -> trail.
  It is the reference the Spark stages are checked against;
* :func:`decode_dumps` / :func:`input_kind` — the same for logfile dump text, and which a file is;
* :func:`assemble_batches` / :func:`assemble_and_emit` — its second half, over event record batches
  or events (dump text): the Rust core's transaction table and emitter, as in the Spark stage.

Layer "top": may import everything.
"""

from __future__ import annotations

import dataclasses
import os
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from redo_lib.assembly.events import (
    ChangeEvent,
    event_from_row,
    event_to_row,
    events_from_arrow,
    events_schema,
)
from redo_lib.dictionary import DictionaryDocument, DictionaryHistory, dictionary_document
from redo_lib.errors import ErrorPolicy, LogSetError, Position, RedoError, locate
from redo_lib.format.model import LogHeader
from redo_lib.format.native_records import parse_header
from redo_lib.report import DecodeReport
from redo_lib.trail.emit import EmitOptions
from redo_lib.trail.model import TrailRecord
from redo_lib.unsupported import core_tables_of, unsupported_report
from redo_lib.windows import HEADER_BYTES as HEADER_BYTES
from redo_lib.windows import STEP_BYTES as STEP_BYTES
from redo_lib.windows import TAIL_BYTES as TAIL_BYTES
from redo_lib.windows import LogWindows
from redo_lib.windows import open_source as open_source

if TYPE_CHECKING:
    from redo_lib._native import Assembler, Emitter, TransactionTable
    from redo_lib.storage.sources import BlockSource

#: Change events the transaction table keeps in memory per transaction before spilling the older ones
#: to a temporary file (the core's default too: ``redo_core::assembly::DEFAULT_MEMORY_LIMIT``);
#: ``memory_limit`` of ``decode_logs``, ``assemble_batches`` and ``batches.assemble_stream``.
DEFAULT_MEMORY_LIMIT = 50_000


def read_header(source: Any) -> LogHeader:
    """Block 0 and the redo log header of a log; errors name the file."""
    try:
        return parse_header(source.read(0, HEADER_BYTES), source.name)
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
    for batch in decode_range_arrow(location, first_block, last_block, policy=policy, report=report):
        yield from events_from_arrow(batch)


#: the step of the single-process decode (``iter_batch_arrow``: the ``decode`` command, ``decode_logs``),
#: shared by the threads of a RAC set (each decodes steps of its share, at least ``MIN_STEP_BYTES``)
SINGLE_STEP_BYTES = 8 << 20
MIN_STEP_BYTES = 1 << 20


def decode_range_arrow(
    location: str | os.PathLike[str] | BlockSource,
    first_block: int = 2,
    last_block: int | None = None,
    *,
    policy: ErrorPolicy = ErrorPolicy.RAISE,
    report: DecodeReport | None = None,
    row_changes: Counter[tuple[int, str]] | None = None,
    chunk: int = 8192,
    tail_bytes: int = TAIL_BYTES,
    step_bytes: int = STEP_BYTES,
    watermarks: bool = False,
) -> Iterator[Any]:
    """The change events of :func:`decode_range` as ``pyarrow.RecordBatch`` es of
    ``batches.events_schema()``, decoded by the Rust core (``redo_lib._native``) and taken over
    without a copy (Arrow PyCapsule interface).

    The range is decoded in steps of at most ``step_bytes`` (consecutive block ranges: each record
    once, redo-format §3.1), and of each step only that is read: blocks 0-1, the LWN look-back
    before it (``largest_lwn`` blocks, more if the core asks) and the step plus ``tail_bytes``; a
    record running past that makes the core ask for a wider window, read again. So the memory of a
    decode is bounded by its step (about twice it at the peak: the window and its events), however
    long the log or the range, for a local file and for ``s3://`` (ranged GETs) alike. The report's
    counts go into ``report``, the row changes by (object, operation) into ``row_changes``.
    ``location`` may also be an open byte source (``read``, ``name``, ``size``). ``watermarks``: a
    ``trail.order.Watermark`` after each step's batches (the SCN no later event is below)."""
    import pyarrow as pa

    from redo_lib.native import native

    log = LogWindows.of(location)
    for first, stop in log.steps(first_block, last_block, step_bytes):
        _, native_batches, counts = log.call(
            native.decode_events, first, stop, tail_bytes=tail_bytes, policy=policy.value, chunk=chunk
        )
        if report is not None:
            report.add_counts(counts)
        if row_changes is not None:
            for obj, op, n in counts["row_changes"]:
                row_changes[(obj, op)] += n
        for batch in native_batches:
            if len(batch):
                yield pa.record_batch(batch)
        if watermarks and counts["lwn_scn"] is not None:
            from redo_lib.trail.order import Watermark

            yield Watermark(counts["lwn_scn"])


@dataclass(frozen=True, slots=True)
class LogRef:
    """A log of a batch: where it is and what its header says."""

    location: str
    thread: int
    sequence: int
    resetlogs_id: int
    first_scn: int
    next_scn: int | None
    dbid: int = 0  # 0: not known (a dump without its file header's DBID)


def describe_logs(locations: Iterable[str | os.PathLike[str]], *, allow_gaps: bool = False) -> list[LogRef]:
    """Read each log's header (never trusting the file name) and sort by (thread, sequence); the set
    is checked before a byte of redo is decoded (:func:`check_log_set`)."""
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
                dbid=header.dbid,
            )  # fmt: skip
        )
    return check_log_set(refs, allow_gaps=allow_gaps)


def _mixed(refs: Sequence[LogRef], attr: str) -> tuple[LogRef, LogRef] | None:
    """The first log and the first one whose ``attr`` differs from it (in the order given), if any."""
    known = [r for r in refs if getattr(r, attr)]
    for ref in known[1:]:
        if getattr(ref, attr) != getattr(known[0], attr):
            return known[0], ref
    return None


def check_log_set(refs: list[LogRef], *, allow_gaps: bool = False) -> list[LogRef]:
    """``refs`` sorted by (thread, sequence), once they are one set: ``LogSetError`` naming both
    files and both values for logs of two databases (DBID) or of two incarnations (resetlogs id), and
    for a duplicate or a missing sequence within a thread (a missing one is let through with
    ``allow_gaps``: a user decoding a chosen few logs on purpose)."""
    refs = sorted(refs, key=lambda r: (r.thread, r.sequence))
    for attr, what, name in (
        ("dbid", "two databases", "DBID"),
        ("resetlogs_id", "two incarnations", "resetlogs id"),
    ):
        pair = _mixed(refs, attr)
        if pair is not None:
            a, b = pair
            raise LogSetError(
                f"logs of {what} in one set: {a.location} has {name} {getattr(a, attr)}, {b.location} has "
                f"{name} {getattr(b, attr)}; decode the logs of one {'database' if attr == 'dbid' else 'incarnation'} "
                "at a time",
                position=Position(file=b.location, sequence=b.sequence),
                **{attr: [getattr(a, attr), getattr(b, attr)], "files": [a.location, b.location]},
            )
    for a, b in zip(refs, refs[1:], strict=False):
        if a.thread == b.thread and b.sequence != a.sequence + 1:
            what = "duplicate" if b.sequence == a.sequence else "missing"
            if what == "missing" and allow_gaps:
                continue
            missing = list(range(a.sequence + 1, b.sequence))
            raise LogSetError(
                f"{what} sequence in thread {a.thread}: "
                + (f"{a.sequence} twice" if what == "duplicate" else f"sequences {missing} not given"),
                position=Position(file=b.location, sequence=b.sequence),
                thread=a.thread,
            )
    return refs


@dataclass
class DecodeResult:
    """What a single-process decode gives: the trail, the state to carry, and what was counted."""

    trail: list[TrailRecord]
    carried_out: list[ChangeEvent]
    report: DecodeReport
    # per trail record, the log of its transaction's commit as (thread, sequence): what a publish
    # replaces by (trail.schema.commit_log_name)
    commits: list[tuple[int, int]] = field(default_factory=list)
    assembly: Counter[str] = field(default_factory=Counter)
    emit: Counter[str] = field(default_factory=Counter)
    unknown_objects: Counter[int] = field(default_factory=Counter)
    issues: list[tuple[str, str, Position]] = field(default_factory=list)
    counts: dict[str, Any] = field(default_factory=dict)  # reconciliation, docs/pipeline-contract.md
    # where a ``sink`` took the trail as Arrow rows (no ``TrailRecord``): how many rows it got
    streamed: int | None = None

    @property
    def trail_count(self) -> int:
        """The number of trail records, whichever form took them."""
        return len(self.trail) if self.streamed is None else self.streamed

    def summary(self) -> dict[str, Any]:
        return {
            "records": self.report.records,
            "trail_records": self.trail_count,
            "transactions": self.emit.get("transactions", 0),
            "open_transactions_carried": self.counts["transactions"]["open_carried_out"]
            if self.counts
            else sum(1 for e in self.carried_out if e.kind.name == "BEGIN"),
            "assembly": dict(self.assembly),
            "emit": dict(self.emit),
            "unknown_objects": {str(k): v for k, v in sorted(self.unknown_objects.items())},
            "skipped": len(self.report.skipped),
        }


def reconcile(
    *,
    emitter: Emitter,
    table: TransactionTable,
    decoded: Mapping[tuple[int, str], int],
    carried_in: Mapping[tuple[int, str], int],
    carried_out: Mapping[tuple[int, str], int],
    open_carried_out: int,
) -> dict[str, Any]:
    """The batch's Logdump-style counts by table and operation (docs/pipeline-contract.md), from the
    counters of the core's transaction table and emitter (``native.TransactionTable`` /
    ``native.Emitter``) and the row changes (by object and operation) decoded, carried in and carried
    out (``native.Assembler``'s).

    Invariant: decoded + carried_in = trail + cancelled + out_of_scope + unknown_in_scope_ops +
    unsupported_ops + orphaned + carried_out. ``unknown_in_scope`` lists per object (changes, first SCN,
    name, reason) what ``unknown_in_scope_ops`` counts per operation: changes to objects the
    dictionary does not describe that are, or may be, captured tables (``not_in_dictionary``: the
    export lists the object for a captured owner; ``created_after_export``: numbered above its
    ``max_object_id``; docs/data-quality.md); validation fails on them."""

    def by_table(counter: Mapping[tuple[int, str], int]) -> dict[str, dict[str, int]]:
        out: dict[str, dict[str, int]] = {}
        for (obj, op), n in sorted(counter.items()):
            name = emitter.table_name(obj)
            out.setdefault(name, {})
            out[name][op] = out[name].get(op, 0) + n
        return out

    return {
        "decoded": by_table(decoded),
        "carried_in": by_table(carried_in),
        "trail": by_table(emitter.trail_counts),
        "cancelled": by_table(table.cancelled),
        "out_of_scope": by_table(emitter.out_of_scope),
        "unknown_in_scope_ops": by_table(emitter.unknown_in_scope),
        # captured row changes decoded but not emitted: an image the decoder does not read (an
        # OLTP-compressed row piece, redo_lib/unsupported.py); its own term, never silently missing
        "unsupported_ops": by_table(emitter.unsupported),
        # updates keyed by their ROWID (also in ``trail``): the redo held not all of the table's key
        # columns (minimal supplemental logging; docs/tables.md, "Keyed by ROWID")
        "rowid_keyed": by_table(emitter.rowid_keyed),
        # of those, the row changes carrying a value of a type the decoder cannot render, and per
        # table, column and type code the changes carrying it (captured) or leaving it out (out of
        # scope: tables not captured, columns left out); redo_lib/unsupported.py
        "unrenderable_ops": by_table(emitter.unrenderable_ops),
        "unrenderable": _by_column(emitter.unrenderable),
        "unrenderable_out_of_scope": _by_column(emitter.unrenderable_out_of_scope),
        "orphaned": by_table(table.orphaned),
        "carried_out": by_table(carried_out),
        "transactions": {
            "committed": table.counters.get("committed", 0),
            "emitted": emitter.counters.get("transactions", 0),
            "rolled_back": table.counters.get("rolled_back", 0),
            "open_carried_out": open_carried_out,
            # of those, committed at or above the batch's watermark: emitted by the next batch
            "held_carried_out": table.counters.get("held", 0),
        },
        "unknown_objects": {str(k): v for k, v in sorted(emitter.unknown_objects.items())},
        "unknown_in_scope": {
            str(obj): {
                "changes": n,
                "first_scn": emitter.unknown_first_scn[obj],
                "name": emitter.table_name(obj),
                "reason": emitter.unknown_reason(obj),
            }
            for obj, n in sorted(_by_object(emitter.unknown_in_scope).items())
        },
        "scope": emitter.scope(),
        # DDL records of the trail (IOType 160) by object and verb; DDL is no row change, so it is
        # outside the balance above (docs/tables.md)
        "ddl_records": _by_name(emitter.ddl_records),
        "ddl_problems": list(emitter.ddl_problems),
        # tables whose SYS.COL$ rows, changed by a DDL's transaction, and the version its text gave
        # disagreed: the COL$ columns won (docs/dictionary.md, "Columns from COL$"); and each commit
        # that changed a table's COL$ rows: (table obj, XID, commit SCN)
        "dictionary_disagreements": list(emitter.column_disagreements),
        "tables_followed": [list(f) for f in emitter.tables_followed],
        # LOB values in row / out of row, pieces, and what could not be resolved or attached (counted,
        # never dropped silently: docs/lobs.md)
        "lobs": {k: v for k, v in sorted(emitter.counters.items()) if k.startswith("lob_")}
        | _lob_unresolved(emitter),
        # the before records of updates (image option update-befores): no row changes of their own
        "images": {"update_before_records": emitter.counters.get("update_before_records", 0)},
        "issues": {
            k: v
            for k, v in sorted(table.counters.items())
            if k not in ("begun", "committed", "rolled_back", "held")
        },
    }


def _by_column(counter: Mapping[tuple[str, str, int], int]) -> dict[str, dict[str, dict[str, int]]]:
    """(OWNER.TABLE, column, type code) -> n as ``OWNER.TABLE`` -> column -> ``"<type code>"`` -> n."""
    out: dict[str, dict[str, dict[str, int]]] = {}
    for (table, column, code), n in sorted(counter.items()):
        out.setdefault(table, {}).setdefault(column, {})[str(code)] = n
    return out


def _lob_unresolved(emitter: Emitter) -> dict[str, Any]:
    """The LOB values left unresolved by table and column, each with its reason (``OWNER.TABLE.COLUMN``
    -> reason -> values; docs/lobs.md): present only when there are some, for GE rule 17's message."""
    out: dict[str, dict[str, int]] = {}
    for (table, column, reason), n in sorted(getattr(emitter, "lob_unresolved", {}).items()):
        out.setdefault(f"{table}.{column}", {})[reason] = n
    return {"unresolved_by_column": out} if out else {}


def _by_name(counter: Mapping[tuple[str, str], int]) -> dict[str, dict[str, int]]:
    out: dict[str, dict[str, int]] = {}
    for (name, op), n in sorted(counter.items()):
        out.setdefault(name, {})[op] = n
    return out


def _by_object(counter: Mapping[tuple[int, str], int]) -> Counter[int]:
    total: Counter[int] = Counter()
    for (obj, _), n in counter.items():
        total[obj] += n
    return total


def balance(counts: dict[str, Any]) -> dict[str, dict[str, int]]:
    """Per table and op: (decoded + carried_in) - (trail + cancelled + out_of_scope +
    unknown_in_scope_ops + unsupported_ops + orphaned + carried_out). All zeros when the batch reconciles; a non-zero
    entry is a lost or invented change."""
    totals: dict[str, dict[str, int]] = {}
    for part, sign in (("decoded", 1), ("carried_in", 1), ("trail", -1), ("cancelled", -1),
                       ("out_of_scope", -1), ("unknown_in_scope_ops", -1), ("unsupported_ops", -1),
                       ("orphaned", -1), ("carried_out", -1)):  # fmt: skip
        for name, ops in counts.get(part, {}).items():
            for op, n in ops.items():
                totals.setdefault(name, {}).setdefault(op, 0)
                totals[name][op] += sign * n
    return {name: {op: n for op, n in ops.items() if n} for name, ops in totals.items() if any(ops.values())}


#: What to do about a change to an object the dictionary does not know (docs/data-quality.md).
REFRESH_DICTIONARY = (
    "refresh the dictionary: re-run include/sql/export_dictionary.sql for the captured owners, point "
    "REDOTRAIL_DICTIONARY at the new file, then re-run the batch"
)


def unknown_problem(obj: int, entry: Mapping[str, Any]) -> str:
    """One line on an object of counts.json's ``unknown_in_scope`` (changes, first SCN, name,
    reason): what the ``known_objects_in_scope`` rule (trail contract rule 2) fails with."""
    changes, first = int(entry["changes"]), int(entry["first_scn"])
    if entry.get("reason") == "not_in_dictionary":
        name = str(entry.get("name") or f"OBJ_{obj}")
        return (
            f"{changes} changes from SCN {first} to {name} (object {obj}): the export lists it among the "
            f"objects of captured owner {name.split('.')[0]}, but the dictionary describes no such table"
        )
    return (
        f"{changes} changes from SCN {first} to object {obj}, which the dictionary does not know: "
        "numbered above its max_object_id, it was created after the export"
    )


def scope_report(counts: dict[str, Any]) -> dict[str, Any]:
    """The capture scope of a batch from its counts.json, as the validation report shows it: the
    configured scope, the changes out of scope per table or object (``OBJ_<n>``: unknown to the
    dictionary, existed at its export), the unknown objects that may be in scope (object id ->
    changes, first SCN), and warnings (changes to unknown objects that the dictionary could not
    classify for want of ``max_object_id``)."""
    scope = counts.get("scope") or {}
    objects = {name: sum(ops.values()) for name, ops in sorted((counts.get("out_of_scope") or {}).items())}
    unknown = counts.get("unknown_in_scope") or {}
    warnings = []
    unclassified = int(scope.get("unclassified_changes") or 0)
    if unclassified:
        warnings.append(
            f"the dictionary has no max_object_id (an older export or an OLR checkpoint): {unclassified} "
            "changes to objects it does not know were counted out of scope without checking that they "
            f"lie outside the captured schemas; to check them, {REFRESH_DICTIONARY}"
        )
    return {
        "capture": scope.get("capture"),
        "max_object_id": scope.get("max_object_id"),
        "out_of_scope": {"changes": sum(objects.values()), "objects": objects},
        "unknown_in_scope": {"changes": sum(int(u["changes"]) for u in unknown.values()), "objects": unknown},
        "warnings": warnings,
    }


def decode_logs(
    locations: Sequence[str | os.PathLike[str]],
    dictionary: DictionaryHistory | str | os.PathLike[str] | None = None,
    *,
    carried: Iterable[ChangeEvent] = (),
    options: EmitOptions | None = None,
    policy: ErrorPolicy = ErrorPolicy.RAISE,
    memory_limit: int = DEFAULT_MEMORY_LIMIT,
    hold_from: int | None = None,
    carried_lobs: Sequence[str] = (),
    lobs_out: str | None = None,
    allow_gaps: bool = False,
    sink: Callable[[Any], None] | None = None,
) -> DecodeResult:
    """Decode a batch of archived logs in one process: the reference for the Spark stages.
    ``sink``: called with the trail as record batches of ``native.staged_trail_schema()`` in commit
    order, as transactions commit (``assemble_batches``), instead of a ``TrailRecord`` per row.
    ``hold_from``: the batch's watermark SCN (``Manifest.watermark_scn``): transactions committing at
    or above it are carried out, not emitted (held commits, docs/pipeline-contract.md).
    ``carried_lobs`` / ``lobs_out``: the LOB pages carried in and out (``assemble_batches``).
    The logs are one set (``check_log_set``: one database, one incarnation, no duplicate and, unless
    ``allow_gaps``, no missing sequence), checked before a byte of redo is decoded."""
    loaded = _loaded(dictionary)
    refs = describe_logs(locations, allow_gaps=allow_gaps)
    report = DecodeReport()
    return assemble_batches(
        iter_batch_arrow(refs, policy=policy, report=report, watermarks=True),
        loaded,
        carried=carried,
        options=options,
        policy=policy,
        memory_limit=memory_limit,
        report=report,
        hold_from=hold_from,
        carried_lobs=carried_lobs,
        lobs_out=lobs_out,
        sink=sink,
    )


#: what ``input_kind`` tells apart: an archived redo log (binary) or Oracle's logfile dump text
#: (``ALTER SYSTEM DUMP LOGFILE``, seed 000's form)
INPUT_KINDS = ("redo", "dump")
_DUMP_MARKS = (b"REDO RECORD - ", b"DUMP OF REDO FROM FILE", b"FILE HEADER:")
_PROBE_BYTES = 64 * 1024


def input_kind(location: str | os.PathLike[str]) -> str:
    """``"dump"`` when the file is a logfile dump (text: no NUL byte and one of a dump's marks in its
    first 64 KB), else ``"redo"`` (a log starts with block 0, whose first byte is 0x00; anything
    else then fails the header check with the byte it found)."""
    source = open_source(location)
    head = source.read(0, min(_PROBE_BYTES, source.size))
    if b"\0" in head:
        return "redo"
    return "dump" if any(mark in head for mark in _DUMP_MARKS) else "redo"


def decode_dumps(
    locations: Sequence[str | os.PathLike[str]],
    dictionary: DictionaryHistory | str | os.PathLike[str] | None = None,
    *,
    carried: Iterable[ChangeEvent] = (),
    options: EmitOptions | None = None,
    policy: ErrorPolicy = ErrorPolicy.RAISE,
    memory_limit: int = DEFAULT_MEMORY_LIMIT,
    hold_from: int | None = None,
    allow_gaps: bool = False,
    sink: Callable[[Any], None] | None = None,
) -> DecodeResult:
    """:func:`decode_logs` for logfile dumps: the text parser's records (``dump.parse_dump``), their
    change events, and the same assembly and emitter as binary logs.

    Dumps whose ``FILE HEADER`` gives thread and sequence are ordered and checked as a batch of logs
    is (:func:`check_log_set`); a dump without one (a cut of a dump, as seed 000's) keeps the place it
    was given in. Records are grouped by their own thread and the threads merged by redo order.
    The text is parsed whole, and a line the parser cannot read raises ``DumpParseError`` naming the
    file and line under any policy (``policy`` is the assembler's)."""
    from redo_lib.assembly.events import iter_events
    from redo_lib.dump import parse_dump

    loaded = _loaded(dictionary)
    dumps = []
    for loc in locations:
        source = open_source(loc)
        # latin-1 maps every byte to one character: a dump's values are hex, its names ASCII
        dumps.append(parse_dump(source.read(0, source.size).decode("latin-1"), name=source.name))
    headed = [d for d in dumps if d.header is not None and None not in (d.header.thread, d.header.sequence)]
    if len(headed) > 1:
        refs = [
            LogRef(location=d.name, thread=d.header.thread, sequence=d.header.sequence,  # type: ignore[union-attr,arg-type]
                   resetlogs_id=d.header.resetlogs_id or 0, first_scn=d.header.first_scn or 0,  # type: ignore[union-attr]
                   next_scn=d.header.next_scn, dbid=d.header.dbid or 0)  # type: ignore[union-attr]
            for d in headed
        ]  # fmt: skip
        order = {ref.location: i for i, ref in enumerate(check_log_set(refs, allow_gaps=allow_gaps))}
        dumps.sort(key=lambda d: order.get(d.name, -1))  # stable: headerless ones first, as given
    report = DecodeReport()
    threads: dict[int, list[ChangeEvent]] = {}
    for dump in dumps:
        for record in dump.records:
            report.count_record(
                vld=record.vld, length=record.length, opcodes=[(v.layer, v.code) for v in record.vectors]
            )
            threads.setdefault(record.thread, []).extend(iter_events(record))
    streams = {thread: events_to_arrow(threads[thread]) for thread in sorted(threads)}
    return assemble_batches(
        merge_threads(streams), loaded, carried=carried, options=options, policy=policy,
        memory_limit=memory_limit, report=report, hold_from=hold_from, sink=sink,
    )  # fmt: skip


#: the commit-order key of a staged trail row (the core's ``stage::ORDER_FIELDS``): the transaction's
#: commit SCN, thread, seq, block and offset (contract rule 6), then the record's place in it
ORDER_FIELDS = ("order_scn", "order_thread", "order_seq", "order_block", "order_offset", "order_index")


def assemble_and_emit(
    events: Iterable[ChangeEvent],
    dictionary: DictionaryHistory | DictionaryDocument | None = None,
    *,
    carried: Iterable[ChangeEvent] = (),
    options: EmitOptions | None = None,
    policy: ErrorPolicy = ErrorPolicy.RAISE,
    memory_limit: int = DEFAULT_MEMORY_LIMIT,
    report: DecodeReport | None = None,
    hold_from: int | None = None,
    chunk: int = 8192,
    sink: Callable[[Any], None] | None = None,
) -> DecodeResult:
    """Events in redo order (from binary logs or dump text) -> committed transactions -> trail:
    :func:`assemble_batches` over the events as record batches."""
    return assemble_batches(
        events_to_arrow(events, chunk), dictionary, carried=carried, options=options, policy=policy,
        memory_limit=memory_limit, report=report, hold_from=hold_from, chunk=chunk, sink=sink,
    )  # fmt: skip


def events_to_arrow(events: Iterable[ChangeEvent], chunk: int = 8192) -> Iterator[Any]:
    """Change events as record batches of ``events_schema()``, ``chunk`` events each."""
    return rows_to_arrow((event_to_row(e) for e in events), events_schema(), chunk)


def rows_to_arrow(rows: Iterable[dict[str, Any]], schema: Any, chunk: int = 8192) -> Iterator[Any]:
    """Rows (dicts) as record batches of ``schema``, ``chunk`` rows each."""
    import pyarrow as pa

    out: list[dict[str, Any]] = []
    for row in rows:
        out.append(row)
        if len(out) >= chunk:
            yield pa.RecordBatch.from_pylist(out, schema=schema)
            out = []
    if out:
        yield pa.RecordBatch.from_pylist(out, schema=schema)


def iter_batch_arrow(
    refs: Sequence[LogRef], *, policy: ErrorPolicy = ErrorPolicy.RAISE, report: DecodeReport | None = None,
    watermarks: bool = False,
) -> Iterator[Any]:  # fmt: skip
    """The events of a batch of logs in redo order, as record batches of ``events_schema()``: each
    thread's logs in sequence order straight from the core, the threads of a RAC batch merged by
    (SCN, sub-SCN, thread) in the core too (:func:`merge_threads`, contract rule 6).
    ``watermarks``: the stream also says, after each step, the SCN no later event is below
    (``trail.order.Watermark``, what ``assemble_batches`` releases rows by); for a RAC batch, the
    merged one."""
    threads: dict[int, list[LogRef]] = {}
    for ref in refs:
        threads.setdefault(ref.thread, []).append(ref)
    # a smaller step than a Spark task's: one process holds the step's events while it assembles
    # (seed-11's 32 MB logs: peak RSS of the events alone 131 -> 92 MB, the same CPU). RAC: the step
    # shared by the threads, each holding its own, and the merged watermark rising as often as one
    # thread's (the 64 MB two-thread set of bench_decode: peak RSS 151 -> 122 MB, the same CPU)
    step = max(SINGLE_STEP_BYTES // max(len(threads), 1), MIN_STEP_BYTES)

    def thread_batches(logs: list[LogRef]) -> Iterator[Any]:
        for ref in logs:
            yield from decode_range_arrow(
                ref.location, policy=policy, report=report, step_bytes=step, watermarks=watermarks
            )  # fmt: skip

    return merge_threads({thread: thread_batches(logs) for thread, logs in sorted(threads.items())})


def merge_threads(streams: Mapping[int, Iterable[Any]], *, chunk: int = 8192) -> Iterator[Any]:
    """RAC: each thread's event record batches (in its own redo order, with the
    ``trail.order.Watermark`` s of :func:`decode_range_arrow` if it gives them) merged by the core
    (``native.ThreadMerge``) into the set's redo order: by (SCN, sub-SCN, thread), each thread's
    order kept where its SCN steps back (records of one LWN), as ``heapq.merge`` of the events on
    their ``sort_key``. A merged ``Watermark`` follows whenever it rises: no later event is below
    it (none unless every unfinished thread gives them). The thread the merge waits for is read
    next, so it holds about a batch per thread (and each thread's stream its step). One thread's
    stream is passed through as it is."""
    if len(streams) <= 1:
        yield from (batch for stream in streams.values() for batch in stream)
        return
    import pyarrow as pa

    from redo_lib.native import native
    from redo_lib.trail.order import Watermark

    merge = native.ThreadMerge(list(streams), chunk=chunk)
    pending = {thread: iter(stream) for thread, stream in streams.items()}
    while (thread := merge.wanted()) is not None:
        item = next(pending[thread], None)
        if item is None:
            merge.finish(thread)
        elif isinstance(item, Watermark):
            merge.watermark(thread, item.scn)
        else:
            merge.push(thread, item)
        batches, mark = merge.take()
        for batch in batches:
            yield pa.record_batch(batch)
        if mark is not None:
            yield Watermark(mark)


def assemble_batches(
    batches: Iterable[Any],
    dictionary: DictionaryHistory | DictionaryDocument | None = None,
    *,
    carried: Iterable[ChangeEvent] = (),
    options: EmitOptions | None = None,
    policy: ErrorPolicy = ErrorPolicy.RAISE,
    memory_limit: int = DEFAULT_MEMORY_LIMIT,
    report: DecodeReport | None = None,
    hold_from: int | None = None,
    chunk: int = 8192,
    carried_lobs: Sequence[str] = (),
    lobs_out: str | None = None,
    sink: Callable[[Any], None] | None = None,
) -> DecodeResult:
    """Event record batches in redo order -> committed transactions -> trail, in the Rust core
    (``native.Assembler``: the transaction table and the emitter the Spark stage runs), in one
    process: the reference the Spark stages are checked against. ``carried``: the open transactions
    of the previous batch, fed first (a held transaction's commit among them commits here).
    ``carried_lobs``: the previous batch's carried LOB pages (its ``lobs/`` files), read into the LOB
    store first; ``lobs_out``: the file this batch's are written to (``lob_carry``; None: not
    carried out).

    Each transaction is emitted (and its spill file released) at its commit; its rows are put in
    commit order (contract rule 6: commit SCN, thread, commit record position), which can differ
    from redo order where records of one LWN are not in SCN order, by ``trail.order.CommitStream``:
    a ``Watermark`` among ``batches`` releases the rows no later commit can precede, so they reach
    ``sink`` as the log is read and memory stays bounded (without watermarks, at the end).
    ``sink``: takes the trail as record batches of ``native.staged_trail_schema()``; without one,
    the trail is ``TrailRecord`` s (``DecodeResult.trail``)."""
    import pyarrow as pa

    from redo_lib.lob_carry import read_carried_lobs, write_carried_lobs
    from redo_lib.native import native
    from redo_lib.trail.order import CommitStream, Watermark
    from redo_lib.trail.schema import from_row

    table = native.TransactionTable(memory_limit=memory_limit, policy=policy.value, hold_from=hold_from)
    emitter = _emitter(dictionary, options)
    read_carried_lobs(emitter, carried_lobs)
    stage = native.Assembler(table, emitter, chunk=chunk)
    trail: list[TrailRecord] = []
    commits: list[tuple[int, int]] = []

    def to_records(batch: Any) -> None:
        for row in batch.to_pylist():
            commits.append((row["order_thread"], row["order_seq"]))
            trail.append(from_row(row))

    # the rows in commit order as soon as no later commit can precede them, memory bounded however
    # large the trail or a transaction (trail/order.py)
    order = CommitStream(pa.schema(native.staged_trail_schema()), ORDER_FIELDS, sink or to_records)
    try:
        for flag, stream in ((True, events_to_arrow(carried, chunk)), (False, batches)):
            for batch in stream:
                if isinstance(batch, Watermark):
                    order.release(batch.scn)
                    continue
                stage.feed(batch.append_column("carried", _constant_bools(flag, batch.num_rows)))
                for staged in stage:
                    order.add(pa.record_batch(staged))
        order.finish()
    finally:
        order.close()
    stage.carry_out()
    event_names = events_schema().names
    # the open transactions as events to carry (the API's); the decode command only counts them
    carried_out = [
        event_from_row(row)
        for batch in stage
        for row in (pa.record_batch(batch).select(event_names).to_pylist() if sink is None else ())
    ]
    if lobs_out is not None:
        write_carried_lobs(emitter, lobs_out)
    counts = stage_counts(stage, table, emitter)  # after the LOB carry-out: it counts its pages
    report = report or DecodeReport()
    # captured tables whose changes the decoder detected but cannot read (docs/data-quality.md)
    history = None if isinstance(dictionary, DictionaryDocument) else dictionary
    table_of = None
    if isinstance(dictionary, DictionaryDocument):
        # the tables asked of the core's dictionary; the Python model only for the type names of
        # columns the decoder could not render (a rare decode)
        table_of = core_tables_of(emitter, (obj for _, obj in report.unsupported_vectors))
        history = dictionary.history() if counts["unrenderable"] else None
    counts["unsupported"] = unsupported_report(
        vectors=report.unsupported_vectors, unsupported_ops=counts["unsupported_ops"], dictionary=history,
        table_of=table_of,
        captured=emitter.captured, unrenderable=counts["unrenderable"],
        unrenderable_ops=counts["unrenderable_ops"], unrenderable_out_of_scope=counts["unrenderable_out_of_scope"],
    )  # fmt: skip
    return DecodeResult(
        trail=trail,
        carried_out=carried_out,
        report=report,
        commits=commits,
        assembly=Counter(table.counters),
        emit=Counter(emitter.counters),
        unknown_objects=Counter(emitter.unknown_objects),
        issues=list(table.issues),
        counts=counts,
        streamed=None if sink is None else order.released,
    )


def _loaded(
    dictionary: DictionaryHistory | str | os.PathLike[str] | None,
) -> DictionaryHistory | DictionaryDocument | None:
    """A history as it is; a dictionary file as its document, parsed by the core alone."""
    if dictionary is not None and not isinstance(dictionary, DictionaryHistory):
        return dictionary_document(Path(dictionary))
    return dictionary


def _emitter(
    dictionary: DictionaryHistory | DictionaryDocument | None, options: EmitOptions | None
) -> Emitter:
    """The core's emitter over ``dictionary`` (a document's text as it is; a history's ``to_json``);
    the core's error about a document names its file."""
    from redo_lib.native import native

    keywords = dataclasses.asdict(options or EmitOptions())
    if not isinstance(dictionary, DictionaryDocument):
        return native.Emitter(dictionary.to_json() if dictionary is not None else None, **keywords)
    try:
        return native.Emitter(dictionary.text, **keywords)
    except RedoError as exc:
        raise locate(exc, file=dictionary.name) from None


def _constant_bools(flag: bool, n: int) -> Any:
    """An Arrow boolean array of ``n`` times ``flag``, built from its bitmap: pyarrow's conversion
    of a Python value (``pa.array``, ``pa.scalar``) imports pandas, 0.8 CPU-second of the decode
    command's start-up."""
    import pyarrow as pa

    return pa.Array.from_buffers(
        pa.bool_(), n, [None, pa.py_buffer((b"\xff" if flag else b"\0") * ((n + 7) // 8))]
    )


def stage_counts(stage: Assembler, table: TransactionTable, emitter: Emitter) -> dict[str, Any]:
    """:func:`reconcile` of a ``native.Assembler`` run over ``table`` and ``emitter`` (its
    ``carry_out`` done): the row changes it counted decoded, carried in and carried out."""
    return reconcile(
        emitter=emitter,
        table=table,
        decoded=stage.decoded,
        carried_in=stage.carried_in,
        carried_out=stage.carried_out,
        open_carried_out=len(stage.open),
    )
