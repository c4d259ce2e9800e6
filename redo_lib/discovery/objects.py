"""Discovery of archived logs: list the archive, read each new header once, register it.

:func:`discover` lists the archive prefix (paginated), reads the redo header of every new or
changed object with one ranged GET of its first ``HEADER_READ_BYTES`` and parses it (redo-format
§1.2-§1.4). The file name is never trusted: a name/header disagreement is reported as a note. A log
is *ready* when its header is complete (nab set, next SCN set), the object holds ``nab`` blocks, and
its size and ETag did not change since the previous listing; otherwise it stays ``discovered`` with
the reason it waits, and is looked at again by the next run.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, final

from redo_lib.errors import FormatError, LogSetError, Position, StorageError, TruncatedLogError
from redo_lib.format.header import parse_log_header
from redo_lib.storage.catalog import (
    ListedObject,
    LogCatalog,
    LogEntry,
    LogStatus,
    list_archive,
    read_object_head,
    utc_now,
)

HEADER_READ_BYTES = 8192  # blocks 0 and 1 at the largest block size (redo-format §1.3)
NAB_UNKNOWN = 0xFFFFFFFF  # @156 of block 1 while the online log is written (§1.4)
USABLE = (LogStatus.DISCOVERED, LogStatus.BATCHED, LogStatus.PUBLISHED)
_NAME = re.compile(r"(\d+)_(\d+)_(\d+)\.[^./]*$")  # LOG_ARCHIVE_FORMAT %t_%s_%r.<ext>


@final
@dataclass(frozen=True, slots=True, kw_only=True)
class DiscoveryReport:
    """What one discovery run saw. ``gaps`` are LogSetError messages (per thread and incarnation)."""

    listed: int = 0
    read: tuple[str, ...] = ()  # objects whose header was (re)read
    ready: tuple[str, ...] = ()  # ready and not yet in a batch
    waiting: tuple[tuple[str, str], ...] = ()
    rejected: tuple[tuple[str, str], ...] = ()
    mismatches: tuple[tuple[str, str], ...] = ()
    duplicates: tuple[tuple[str, str], ...] = ()
    gone: tuple[str, ...] = ()
    gaps: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {f.name: _plain(getattr(self, f.name)) for f in dataclasses.fields(self)}


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
        h = parse_log_header(head, obj.location)
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


def name_mismatch(location: str, thread: int, sequence: int, resetlogs_id: int) -> str | None:
    """A note when the ``<thread>_<sequence>_<resetlogs>`` of the object name disagrees with its header."""
    match = _NAME.search(location.rsplit("/", 1)[-1])
    if match is None:
        return None
    named = tuple(int(g) for g in match.groups())
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
    catalog: LogCatalog, archive_url: str, *, client: Any = None, now: str | None = None
) -> DiscoveryReport:
    """List ``archive_url``, register new and changed objects, and report what waits and what is missing."""
    now = now or utc_now()
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
        _mark_duplicates(catalog, catalog.logs())
    logs = catalog.logs()
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
        gaps=tuple(str(err) for err in check_continuity(logs)),
    )


def _mark_duplicates(catalog: LogCatalog, logs: Sequence[LogEntry]) -> None:
    """Of several objects with one (resetlogs, thread, sequence), keep the batched or first seen one."""
    groups: dict[tuple[int, int, int], list[LogEntry]] = {}
    for e in logs:
        if e.identity is not None and e.status in USABLE:
            groups.setdefault(e.identity, []).append(e)
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
