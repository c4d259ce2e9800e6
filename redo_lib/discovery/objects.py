"""Discovery of archived logs: list the archive, read each new header once, register it.

:func:`discover` lists the archive prefix (paginated), reads the redo header of every new or
changed object with one ranged GET of its first ``HEADER_READ_BYTES`` and parses it (redo-format
§1.2-§1.4). The file name is never trusted: a name/header disagreement is reported as a note. A log
is *ready* when its header is complete (nab set, next SCN set), the object holds ``nab`` blocks, and
its size and ETag did not change since the previous listing; otherwise it stays ``discovered`` with
the reason it waits, and is looked at again by the next run.

One source database per archive: the catalog learns it (:func:`learn_source`) from ``REDOTRAIL_DBID``
or from the first logs discovered, with its root incarnation. :func:`screen_logs` then rejects every
log of another DBID, and every log of an incarnation that does not continue ours (not the root nor
a descendant of it through ``prev_resetlogs_id``, a branch from an incarnation planning already
left, or a branch point below what is already planned of its parent). While no DBID is known and
the logs hold several, nothing is learned and they wait (:func:`databases_message`).
"""

from __future__ import annotations

import dataclasses
import logging
import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, final

from redo_lib.errors import FormatError, LogSetError, Position, StorageError, TruncatedLogError
from redo_lib.format.native_records import parse_header
from redo_lib.storage.catalog import (
    BatchEntry,
    BatchKind,
    ListedObject,
    LogCatalog,
    LogEntry,
    LogStatus,
    SourceEntry,
    list_archive,
    read_object_head,
    utc_now,
)

HEADER_READ_BYTES = 8192  # blocks 0 and 1 at the largest block size (redo-format §1.3)
NAB_UNKNOWN = 0xFFFFFFFF  # @156 of block 1 while the online log is written (§1.4)
USABLE = (LogStatus.DISCOVERED, LogStatus.BATCHED, LogStatus.PUBLISHED)
PLANNED = (LogStatus.BATCHED, LogStatus.PUBLISHED)
CONFIGURED = "REDOTRAIL_DBID"  # ``learned_from`` of a source database named by configuration
# LOG_ARCHIVE_FORMAT %t_%s_%r.<ext>, or Oracle's arch%t_%s_%r.<ext>: the whole name, or no parse
_NAME = re.compile(r"(?:arch)?(\d+)_(\d+)_(\d+)\.[^./]*", re.IGNORECASE)


@final
@dataclass(frozen=True, slots=True, kw_only=True)
class DiscoveryReport:
    """What one discovery run saw. ``gaps`` are LogSetError messages (per thread and incarnation, and
    first, while no DBID is known, that the archive holds several databases); ``source`` describes
    this pipeline's database once learned."""

    listed: int = 0
    read: tuple[str, ...] = ()  # objects whose header was (re)read
    ready: tuple[str, ...] = ()  # ready and not yet in a batch
    waiting: tuple[tuple[str, str], ...] = ()
    rejected: tuple[tuple[str, str], ...] = ()
    mismatches: tuple[tuple[str, str], ...] = ()
    duplicates: tuple[tuple[str, str], ...] = ()
    gone: tuple[str, ...] = ()
    gaps: tuple[str, ...] = ()
    source: str | None = None  # this pipeline's database, once learned

    def to_dict(self) -> dict[str, Any]:
        return {f.name: _plain(getattr(self, f.name)) for f in dataclasses.fields(self)}


def _count(n: int, word: str, plural: str | None = None) -> str:
    return f"{n} {word if n == 1 or plural is None else plural}"


def summarize(found: Mapping[str, Any]) -> str:
    """One line of a discovery report (``DiscoveryReport.to_dict()``, as the discover task returns
    it): how many objects of each kind; :func:`report_lines` names them."""
    n = {key: len(found.get(key) or ()) for key in ("read", "ready", "waiting", "rejected", "mismatches",
                                                    "duplicates", "gone", "gaps")}  # fmt: skip
    return (
        f"discovery: {found.get('listed', 0)} listed, {n['read']} read, {n['ready']} ready, "
        f"{n['waiting']} waiting, {n['rejected']} rejected, {n['duplicates']} duplicate, {n['gone']} gone, "
        f"{_count(n['gaps'], 'gap', 'gaps')}, {_count(n['mismatches'], 'name mismatch', 'name mismatches')}"
    )


def report_lines(found: Mapping[str, Any]) -> list[tuple[int, str]]:
    """The discover task's log: (logging level, line): :func:`summarize`, then one line per object
    that is not planned, and why: ``waiting: <location>: <reason>`` (INFO: it is looked at again next
    run), ``rejected``, ``duplicate``, ``gone``, ``mismatch`` (name and header disagree; the header is
    used) and ``gap: <what is missing>`` (WARNING)."""
    lines = [(logging.INFO, summarize(found))]
    lines += [(logging.INFO, f"waiting: {where}: {why}") for where, why in found.get("waiting") or ()]
    for key, kind in (("rejected", "rejected"), ("duplicates", "duplicate"), ("mismatches", "mismatch")):
        lines += [(logging.WARNING, f"{kind}: {where}: {why}") for where, why in found.get(key) or ()]
    lines += [(logging.WARNING, f"gone: {where}: no longer listed") for where in found.get("gone") or ()]
    lines += [(logging.WARNING, f"gap: {gap}") for gap in found.get("gaps") or ()]
    return lines


UNPLANNED = ("gap", "rejected", "duplicate", "waiting", "gone")  # the kinds of unplanned_logs


def unplanned_logs(logs: Sequence[LogEntry]) -> list[dict[str, Any]]:
    """What the catalog holds that is not planned, and why (pure): each gap (``location``: the log
    after it, none for several databases without ``REDOTRAIL_DBID``), then each rejected, duplicate,
    waiting and gone object; ``kind``, ``location``, ``thread``, ``sequence`` (from the header, none
    when unread) and ``reason``, in the order of :data:`UNPLANNED`, then by location. What
    ``python -m redo_lib status`` and the operations report list."""
    out: list[dict[str, Any]] = []
    several = databases_message(logs)
    if several:
        out.append({"kind": "gap", "location": None, "thread": None, "sequence": None, "reason": several})
    for gap in check_continuity(logs):
        out.append({"kind": "gap", "location": gap.position.file, "thread": gap.details.get("thread"),
                    "sequence": gap.position.sequence, "reason": gap.message})  # fmt: skip
    kinds = {LogStatus.REJECTED: "rejected", LogStatus.DUPLICATE: "duplicate", LogStatus.GONE: "gone"}
    entries = []
    for e in logs:
        kind = kinds.get(e.status) or (
            "waiting" if e.status is LogStatus.DISCOVERED and not e.ready else None
        )
        if kind is None:
            continue
        reason = e.note if e.status is LogStatus.DUPLICATE else e.reason
        entries.append({"kind": kind, "location": e.location, "thread": e.thread, "sequence": e.sequence,
                        "reason": reason or e.note or "no reason recorded"})  # fmt: skip
    return out + sorted(entries, key=lambda d: (UNPLANNED.index(d["kind"]), d["location"]))


def register_object(
    obj: ListedObject, previous: LogEntry | None, head: bytes | StorageError, now: str
) -> LogEntry:
    """The catalog row of a new or changed object from the first bytes of it (pure).

    A header that is too short (``TruncatedLogError``) or a failed GET means "still being written";
    any other format error rejects the object (not a redo log)."""
    base = LogEntry(
        location=obj.location,
        size=obj.size,
        etag=obj.etag,
        prev_size=previous.size if previous else None,
        first_seen=previous.first_seen if previous and previous.status is not LogStatus.GONE else now,
        last_seen=now,
    )
    if isinstance(head, StorageError):
        return dataclasses.replace(base, reason=f"header not read: {head.message}")
    try:
        h = parse_header(head, obj.location)
    except TruncatedLogError as exc:
        return dataclasses.replace(base, reason=f"header incomplete (still being written?): {exc.message}")
    except FormatError as exc:
        return dataclasses.replace(base, status=LogStatus.REJECTED, reason=f"not a redo log: {exc}")
    entry = dataclasses.replace(
        base,
        thread=h.thread,
        sequence=h.sequence,
        resetlogs_id=h.resetlogs_id,
        resetlogs_scn=h.resetlogs_scn,
        prev_resetlogs_id=h.prev_resetlogs_id,
        dbid=h.dbid,
        db_name=h.db_name,
        first_scn=h.first_scn,
        next_scn=h.next_scn,
        first_time=h.first_time.isoformat(),
        next_time=h.next_time.isoformat(),
        block_size=h.block_size,
        nab=h.nab,
        misc_flags=h.misc_flags,
        note=name_mismatch(obj.location, h.thread, h.sequence, h.resetlogs_id),
    )
    changed = (
        previous is not None
        and previous.status is not LogStatus.GONE
        and (previous.size, previous.etag) != (obj.size, obj.etag)
    )
    return assess(entry, changed=changed)


def parse_log_name(location: str) -> tuple[int, int, int] | None:
    """(thread, sequence, resetlogs id) of an object named ``<thread>_<sequence>_<resetlogs>.<ext>``
    (``arch`` before it allowed), else None: the whole name matches or nothing is read from it, so
    ``z_resetlogs999_1_4.arc`` names no thread 999. Discovery reads the log's identity from its
    header either way; the name only serves :func:`name_mismatch`."""
    match = _NAME.fullmatch(location.rsplit("/", 1)[-1])
    if match is None:
        return None
    thread, sequence, resetlogs_id = (int(g) for g in match.groups())
    return thread, sequence, resetlogs_id


def name_mismatch(location: str, thread: int, sequence: int, resetlogs_id: int) -> str | None:
    """A note when the ``<thread>_<sequence>_<resetlogs>`` of the object name disagrees with its header
    (none when the name does not follow the pattern: :func:`parse_log_name`)."""
    named = parse_log_name(location)
    if named is None:
        return None
    if named == (thread, sequence, resetlogs_id):
        return None
    return (
        f"name says thread {named[0]} sequence {named[1]} resetlogs {named[2]}, "
        f"header says thread {thread} sequence {sequence} resetlogs {resetlogs_id}; the header is used"
    )


def assess(entry: LogEntry, *, changed: bool) -> LogEntry:
    """Set ``ready`` and ``reason`` of a parsed, not yet batched log (pure)."""
    if entry.status is not LogStatus.DISCOVERED or entry.identity is None:
        return entry
    reason = None
    expected = (entry.nab or 0) * (entry.block_size or 0)
    if entry.nab == NAB_UNKNOWN:
        reason = "header incomplete: nab 0xFFFFFFFF (log still being written)"
    elif entry.next_scn is None:
        reason = "header incomplete: next SCN none (log still open)"
    elif entry.size < expected:
        reason = f"object holds {entry.size} bytes, the header says {entry.nab} blocks = {expected} (upload incomplete)"
    elif changed:
        reason = f"size/ETag changed since the last listing ({entry.prev_size} -> {entry.size} bytes); waits for a stable listing"
    return dataclasses.replace(entry, ready=reason is None, reason=reason)


def discover(
    catalog: LogCatalog,
    archive_url: str,
    *,
    client: Any = None,
    now: str | None = None,
    dbid: int | None = None,
) -> DiscoveryReport:
    """List ``archive_url``, register new and changed objects, and report what waits and what is missing.

    ``dbid`` (``REDOTRAIL_DBID``) names the source database; without it the catalog learns it from
    the first logs. Logs of other databases or incarnations are rejected (:func:`screen_logs`). A
    ``dbid`` other than the one the catalog learned is a ``LogSetError``, before anything is listed."""
    now = now or utc_now()
    conflict = source_conflict(catalog.source(), dbid, catalog.path)
    if conflict is not None:
        raise conflict
    known = {e.location: e for e in catalog.logs()}
    listed = list(list_archive(archive_url, client))
    entries: list[LogEntry] = []
    read: list[str] = []
    for obj in listed:  # the GETs happen outside the catalog transaction
        prev = known.get(obj.location)
        if (
            prev is not None
            and prev.status is not LogStatus.GONE
            and (prev.size, prev.etag) == (obj.size, obj.etag)
            and (prev.identity is not None or prev.status is LogStatus.REJECTED)
        ):  # unchanged since the last listing (a header that could not be read is read again)
            entries.append(
                assess(dataclasses.replace(prev, last_seen=now, prev_size=prev.size), changed=False)
            )
            continue
        try:
            head: bytes | StorageError = read_object_head(obj.location, obj.size, HEADER_READ_BYTES, client)
        except StorageError as exc:
            head = exc
        entries.append(register_object(obj, prev, head, now))
        read.append(obj.location)
    present = {o.location for o in listed}
    with catalog.transaction():
        for entry in entries:
            catalog.put_log(entry)
        for entry in known.values():
            if entry.location not in present and entry.status is LogStatus.DISCOVERED:
                gone = dataclasses.replace(
                    entry, status=LogStatus.GONE, ready=False, reason="no longer listed"
                )
                catalog.put_log(gone)
        before, logs = catalog.source(), catalog.logs()
        source = learn_source(before, logs, dbid=dbid, now=now)
        if source is not None and source != before:
            catalog.put_source(source)
        for entry in screen_logs(logs, catalog.batches(), source):
            catalog.put_log(entry)
        _mark_duplicates(catalog, catalog.logs())
    logs = catalog.logs()
    several = databases_message(logs)  # nothing is planned until REDOTRAIL_DBID names one
    gaps = [str(err) for err in check_continuity(logs)]
    return DiscoveryReport(
        listed=len(listed),
        read=tuple(read),
        ready=tuple(e.location for e in logs if e.status is LogStatus.DISCOVERED and e.ready),
        waiting=tuple(
            (e.location, e.reason or "") for e in logs if e.status is LogStatus.DISCOVERED and not e.ready
        ),
        rejected=tuple((e.location, e.reason or "") for e in logs if e.status is LogStatus.REJECTED),
        mismatches=tuple((e.location, e.note) for e in logs if e.note and e.status in USABLE),
        duplicates=tuple((e.location, e.note or "") for e in logs if e.status is LogStatus.DUPLICATE),
        gone=tuple(e.location for e in logs if e.status is LogStatus.GONE),
        gaps=tuple([several, *gaps] if several else gaps),
        source=None if source is None else describe_source(source),
    )


# ---- the source database and its incarnations ---------------------------------------------------


def source_conflict(
    source: SourceEntry | None, dbid: int | None, catalog: str | None = None
) -> LogSetError | None:
    """The error when ``REDOTRAIL_DBID`` names another database than the one the catalog learned."""
    if dbid is None or source is None or source.dbid == dbid:
        return None
    return LogSetError(
        f"REDOTRAIL_DBID is {dbid}, but this log catalog captures {source.describe()}, learned from "
        f"{source.learned_from} at {source.learned}: set REDOTRAIL_DBID={source.dbid}, or give the "
        f"pipeline of DBID {dbid} its own REDOTRAIL_CATALOG_DB",
        position=Position(file=catalog),
        dbid=dbid,
        learned_dbid=source.dbid,
    )


def learn_source(
    source: SourceEntry | None, logs: Sequence[LogEntry], *, dbid: int | None = None, now: str = ""
) -> SourceEntry | None:
    """The source database after this run (pure): ``source`` when already learned, else the one
    ``dbid`` names, else the only DBID among the logs (none while they hold several). Its name and
    root incarnation (the oldest of its incarnations by resetlogs SCN) come from the first of its
    logs, once one is seen."""
    conflict = source_conflict(source, dbid)
    if conflict is not None:
        raise conflict
    seen = [e for e in logs if e.identity is not None and e.dbid is not None and e.status in USABLE]
    if source is None and dbid is not None:
        source = SourceEntry(dbid=dbid, learned_from=CONFIGURED, learned=now)
    if source is None:
        dbids = {e.dbid for e in seen}
        if len(dbids) != 1:
            return None
        source = SourceEntry(dbid=dbids.pop(), learned=now)  # type: ignore[arg-type]
    ours = [e for e in seen if e.dbid == source.dbid]
    if not ours or source.root_resetlogs_id is not None:
        return source
    first = min(ours, key=lambda e: (e.resetlogs_scn or 0, e.resetlogs_id, e.first_scn or 0, e.location))
    return dataclasses.replace(
        source,
        db_name=source.db_name or first.db_name,
        learned_from=source.learned_from or first.location,
        root_resetlogs_id=first.resetlogs_id,
        root_resetlogs_scn=first.resetlogs_scn,
    )


def describe_source(source: SourceEntry) -> str:
    """``DBID 1497016494 (FREE), learned from <location>; root incarnation 1224959854 (resetlogs SCN ...)``."""
    text = f"{source.describe()}, learned from {source.learned_from}"
    if source.root_resetlogs_id is not None:
        text += f"; root incarnation {source.root_resetlogs_id} (resetlogs SCN {source.root_resetlogs_scn})"
    return text


def databases_message(logs: Iterable[LogEntry]) -> str | None:
    """When the usable logs hold several DBIDs: which, with how many logs each (pure)."""
    counts = _databases(logs)
    if len(counts) < 2:
        return None
    each = ", ".join(
        f"DBID {d}{f' {name}' if name else ''}: {n} log{'s' * (n != 1)}" for (d, name), n in counts
    )
    return (
        f"the archive holds logs of {len(counts)} databases ({each}); "
        f"set {CONFIGURED} to the one this pipeline captures"
    )


def _databases(logs: Iterable[LogEntry]) -> list[tuple[tuple[int, str | None], int]]:
    """((DBID, name), number of logs) of each database among the usable parsed logs, by DBID."""
    counts: Counter[int] = Counter()
    names: dict[int, str | None] = {}
    for e in logs:
        if e.identity is not None and e.dbid is not None and e.status in USABLE:
            counts[e.dbid] += 1
            names[e.dbid] = names.get(e.dbid) or e.db_name
    return [((d, names[d]), n) for d, n in sorted(counts.items())]


def screen_logs(
    logs: Sequence[LogEntry], batches: Sequence[BatchEntry], source: SourceEntry | None
) -> list[LogEntry]:
    """The not yet planned logs that must not be planned, changed (pure).

    Without a source database, while the logs hold several DBIDs, each log waits for
    ``REDOTRAIL_DBID``. With one, a log of another DBID is ``rejected`` naming both databases, and a
    log of an incarnation that does not continue ours is ``rejected`` with :func:`incarnation_reasons`."""
    fresh = [
        e for e in logs if e.status is LogStatus.DISCOVERED and e.identity is not None and e.dbid is not None
    ]
    if source is None:
        count = len(_databases(logs))
        if count < 2:
            return []
        return [
            dataclasses.replace(
                e,
                ready=False,
                reason=f"{_database(e)} is one of {count} databases in the archive: waits for {CONFIGURED}",
            )  # fmt: skip
            for e in fresh
        ]
    reasons = incarnation_reasons(logs, batches, source)
    out: list[LogEntry] = []
    for e in fresh:
        if e.dbid != source.dbid:
            why = (
                f"{_database(e)} is not this pipeline's database {source.describe()}, "
                f"learned from {source.learned_from}"
            )
        elif e.resetlogs_id in reasons:
            why = reasons[e.resetlogs_id]
        else:
            continue
        out.append(dataclasses.replace(e, status=LogStatus.REJECTED, ready=False, reason=why))
    return out


def incarnation_reasons(
    logs: Sequence[LogEntry], batches: Sequence[BatchEntry], source: SourceEntry
) -> dict[int, str]:
    """resetlogs id -> why its logs are not planned, for each incarnation of our DBID that does not
    continue ours (pure). Ours are the root incarnation, those planning already went through, and
    each child (``prev_resetlogs_id``) of one of ours unless planning left its parent for another
    child, or already planned a log of its parent that starts at or after its resetlogs SCN."""
    root = source.root_resetlogs_id
    if root is None:
        return {}
    ours = [e for e in logs if e.identity is not None and e.status in USABLE and e.dbid == source.dbid]
    seen: dict[int, tuple[int, int | None]] = {}  # resetlogs id -> (resetlogs SCN, previous resetlogs id)
    for e in sorted(ours, key=lambda e: (e.first_seen, e.location)):
        seen.setdefault(e.resetlogs_id, (e.resetlogs_scn or 0, e.prev_resetlogs_id))  # type: ignore[arg-type]
    chain = list(dict.fromkeys(b.resetlogs_id for b in batches if b.kind is BatchKind.SCHEDULED))
    accepted = {root, *chain}
    reasons: dict[int, str] = {}
    undecided = sorted((r for r in seen if r not in accepted), key=lambda r: (seen[r][0], r))
    progress = True
    while progress:  # parents first (a child's resetlogs SCN is above its parent's)
        progress = False
        for rid in [r for r in undecided if seen[r][1] in accepted]:
            undecided.remove(rid)
            progress = True
            why = _branch_problem(rid, seen, chain, ours)
            if why is None:
                accepted.add(rid)
            else:
                reasons[rid] = why
    known = sorted(accepted, key=lambda r: (seen.get(r, (0, None))[0], r))
    for rid in undecided:
        scn, prev = seen[rid]
        reasons[rid] = (
            f"incarnation {rid} (resetlogs SCN {scn}, parent {prev}) does not continue this pipeline's "
            f"incarnations {known}"
        )
    return reasons


def _branch_problem(
    rid: int, seen: dict[int, tuple[int, int | None]], chain: list[int], ours: Sequence[LogEntry]
) -> str | None:
    """Why the child ``rid`` of an incarnation of ours cannot be planned after it, or None."""
    scn, parent = seen[rid]
    if parent in chain and parent != chain[-1]:
        moved = chain[chain.index(parent) + 1]
        return (
            f"incarnation {rid} branches from incarnation {parent} at resetlogs SCN {scn}, but planning "
            f"already moved from incarnation {parent} to incarnation {moved} "
            f"(resetlogs SCN {seen.get(moved, (None,))[0]})"
        )
    past = [e for e in ours if e.resetlogs_id == parent and e.status in PLANNED and (e.first_scn or 0) >= scn]
    if not past:
        return None
    e = min(past, key=lambda e: (e.first_scn or 0, e.thread or 0))
    return (
        f"incarnation {rid} branches from incarnation {parent} at resetlogs SCN {scn}, but incarnation "
        f"{parent} is already planned past it: thread {e.thread} sequence {e.sequence} (SCN {e.first_scn} "
        f"to {e.next_scn}, batch {e.batch_id}) is of the abandoned branch"
    )


def _database(e: LogEntry) -> str:
    return f"DBID {e.dbid} ({e.db_name})" if e.db_name else f"DBID {e.dbid}"


def _mark_duplicates(catalog: LogCatalog, logs: Sequence[LogEntry]) -> None:
    """Of several objects with one (resetlogs, thread, sequence), keep the batched or first seen one."""
    groups: dict[tuple[int | None, int, int, int], list[LogEntry]] = {}
    for e in logs:  # logs of two databases are never duplicates of each other
        if e.identity is not None and e.status in USABLE:
            groups.setdefault((e.dbid, *e.identity), []).append(e)
    for same in groups.values():
        same.sort(key=lambda e: (e.status is LogStatus.DISCOVERED, e.first_seen, e.location))
        for extra in same[1:]:
            note = f"same thread {extra.thread} sequence {extra.sequence} resetlogs {extra.resetlogs_id} as {same[0].location}"
            catalog.put_log(dataclasses.replace(extra, status=LogStatus.DUPLICATE, ready=False, note=note))


def check_continuity(logs: Iterable[LogEntry]) -> list[LogSetError]:
    """Gaps in each thread's sequences and SCNs, per incarnation, over the usable logs (pure)."""
    errors: list[LogSetError] = []
    for (rid, thread), seqs in sorted(logs_by_thread(logs).items()):
        order = sorted(seqs)
        for a, b in zip(order, order[1:], strict=False):
            if b != a + 1:
                errors.append(gap_error(rid, thread, a + 1, b, seqs[b]))
            elif None not in (seqs[a].next_scn, seqs[b].first_scn) and seqs[a].next_scn != seqs[b].first_scn:
                errors.append(scn_error(seqs[a], seqs[b]))
    return errors


def logs_by_thread(
    logs: Iterable[LogEntry], resetlogs_id: int | None = None
) -> dict[tuple[int, int], dict[int, LogEntry]]:
    out: dict[tuple[int, int], dict[int, LogEntry]] = {}
    for e in logs:
        if e.identity is not None and e.status in USABLE and resetlogs_id in (None, e.resetlogs_id):
            rid, thread, seq = e.identity
            out.setdefault((rid, thread), {})[seq] = e
    return out


def gap_error(rid: int, thread: int, first_missing: int, present: int, after: LogEntry) -> LogSetError:
    missing = f"{first_missing}" if present == first_missing + 1 else f"{first_missing}-{present - 1}"
    return LogSetError(
        f"thread {thread} (resetlogs {rid}): sequence {missing} missing before sequence {present}; "
        f"nothing is planned past sequence {first_missing - 1}",
        position=Position(file=after.location, sequence=present),
        thread=thread,
        missing=list(range(first_missing, present)),
    )


def scn_error(a: LogEntry, b: LogEntry) -> LogSetError:
    return LogSetError(
        f"thread {a.thread}: sequence {a.sequence} ends at SCN {a.next_scn} but sequence {b.sequence} "
        f"starts at SCN {b.first_scn}",
        position=Position(file=b.location, sequence=b.sequence),
        thread=a.thread,
    )


def _plain(value: Any) -> Any:
    if isinstance(value, tuple):
        return [_plain(v) for v in value]
    return value
