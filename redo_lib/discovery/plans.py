"""Which logs the next batch holds (pure functions over catalog rows).

:func:`select_next` picks the next scheduled batch: per thread, the contiguous run of ready logs
after the last planned sequence, at most ``max_logs`` logs. A missing sequence stops its thread
there and is returned as a ``LogSetError`` naming the thread and sequences; nothing is planned past
it. A discontinuity of SCNs (a log's next SCN is not the first SCN of the next sequence) does too.

RAC watermark rule: a thread's coverage is the next SCN of its last contiguous ready log (or of its
last planned log when none is ready). The watermark ``W`` is the lowest coverage of the threads of
the incarnation, and the batch takes from each thread the logs whose first SCN is below ``W``: every
thread is then covered at least up to ``W``, and the lowest next SCN over the threads' last logs
(``watermark_scn``) is the SCN up to which the batch has every thread's redo. A thread whose last
log was archived closed (misc flags 0x1000 closed-thread archival or 0x0008 end-of-redo, redo-format
§1.4 @236) holds nobody back. A thread without planned logs holds nothing below its first log.

Incarnations: logs are planned in resetlogs order. When the current incarnation has nothing left to
plan and a child incarnation exists (its ``prev_resetlogs_id`` is the current one), planning moves
to it once the current one is planned up to the child's resetlogs SCN; logs of the current one from
that SCN on are an orphaned branch and are never planned. The first batch of an incarnation carries
nothing in.

One database: while the usable logs hold several DBIDs (no ``REDOTRAIL_DBID`` yet, so discovery did
not reject the foreign ones), nothing is planned and the gap says which databases the archive holds.
Logs of other databases and incarnations that do not continue ours are rejected by discovery
(``objects.screen_logs``) and so never reach these rules.

:func:`select_range` picks the logs of a backfill and the batch that ended just before it;
:func:`range_watermark` is a backfill's watermark: the lowest next SCN of its threads' last logs (a
thread archived closed holds nobody back), the SCN up to which the backfill has each of its threads.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import final

from redo_lib.discovery.objects import USABLE, databases_message, gap_error, logs_by_thread, scn_error
from redo_lib.errors import LogSetError
from redo_lib.storage.catalog import BatchEntry, BatchKind, BatchStatus, LogEntry, LogStatus

CLOSED_THREAD_FLAGS = 0x0008 | 0x1000  # misc flags @236: end-of-redo, closed-thread archival


@final
@dataclass(frozen=True, slots=True, kw_only=True)
class Selection:
    """The next batch to plan: its logs (maybe none), the batch before it, and what blocks progress."""

    resetlogs_id: int | None = None
    logs: tuple[LogEntry, ...] = ()
    previous: BatchEntry | None = None
    carries: bool = True  # False for the first batch of an incarnation
    watermark_scn: int | None = None
    gaps: tuple[LogSetError, ...] = ()
    waiting: int = 0  # logs after the planned ones that are not ready yet


def select_next(logs: Sequence[LogEntry], batches: Sequence[BatchEntry], *, max_logs: int) -> Selection:
    """The next scheduled batch after the last one (see the module docstring for the rules)."""
    several = databases_message(logs)
    if several is not None:  # never guess which database the pipeline captures
        return Selection(gaps=(LogSetError(several),))
    incarnations = _incarnations(logs)
    chain = [b for b in batches if b.kind is BatchKind.SCHEDULED]
    last = chain[-1] if chain else None
    current = last.resetlogs_id if last else (incarnations[0][1] if incarnations else None)
    if current is None:
        return Selection()
    child = next((rid for _, rid, prev in incarnations if prev == current and rid != current), None)
    cutoff = next((scn for scn, rid, _ in incarnations if rid == child), None)
    mine = [b for b in chain if b.resetlogs_id == current]
    sel = _select_in(current, logs, mine, cutoff, max_logs, previous=last, carries=bool(mine))
    if sel.logs or sel.gaps or sel.waiting or child is None or cutoff is None:
        return sel
    reached = max((scn or 0 for _, scn in _frontier(logs, mine).values()), default=0)
    if reached < cutoff:
        err = LogSetError(
            f"incarnation {child} starts at resetlogs SCN {cutoff}, but incarnation {current} is "
            f"planned only up to SCN {reached}: its logs up to SCN {cutoff} are missing",
            resetlogs_id=current,
        )
        return dataclasses.replace(sel, gaps=(err,))
    return _select_in(child, logs, [], None, max_logs, previous=last, carries=False)


def _incarnations(logs: Sequence[LogEntry]) -> list[tuple[int, int, int | None]]:
    """(resetlogs SCN, resetlogs id, previous resetlogs id) of every incarnation, oldest first."""
    seen = {
        (e.resetlogs_scn or 0, e.resetlogs_id, e.prev_resetlogs_id)
        for e in logs
        if e.identity and e.status in USABLE
    }
    return sorted(seen, key=lambda x: (x[0], x[1]))  # type: ignore[arg-type]


def _frontier(logs: Sequence[LogEntry], chain: Sequence[BatchEntry]) -> dict[int, tuple[int, int | None]]:
    """thread -> (last planned sequence, its next SCN) over the scheduled batches of one incarnation."""
    last: dict[int, int] = {}
    for b in chain:
        for t, (_, hi) in b.ranges.items():
            last[t] = max(last.get(t, hi), hi)
    by = logs_by_thread(logs, chain[-1].resetlogs_id) if chain else {}
    out: dict[int, tuple[int, int | None]] = {}
    for t, seq in last.items():
        entry = by.get((chain[-1].resetlogs_id, t), {}).get(seq)
        out[t] = (seq, entry.next_scn if entry else None)
    return out


def _select_in(
    rid: int, logs: Sequence[LogEntry], chain: Sequence[BatchEntry], cutoff: int | None, max_logs: int,
    *, previous: BatchEntry | None, carries: bool,
) -> Selection:  # fmt: skip
    frontier = _frontier(logs, chain)
    runs: dict[int, list[LogEntry]] = {}
    before: dict[int, float] = {}  # coverage of each thread by the batches planned so far
    cover: dict[int, float] = {}  # coverage once its whole ready run is planned
    gaps: list[LogSetError] = []
    waiting = 0
    for (_, thread), seqs in sorted(logs_by_thread(logs, rid).items()):
        if cutoff is not None:  # logs of an orphaned branch after a resetlogs are not replayed
            seqs = {s: e for s, e in seqs.items() if e.first_scn is None or e.first_scn < cutoff}
        if not seqs:
            continue
        seq = frontier[thread][0] + 1 if thread in frontier else min(seqs)
        start = seqs.get(seq)
        run: list[LogEntry] = []
        while seq in seqs and seqs[seq].status is LogStatus.DISCOVERED and seqs[seq].ready:
            if run and run[-1].next_scn != seqs[seq].first_scn:
                gaps.append(scn_error(run[-1], seqs[seq]))
                break
            run.append(seqs[seq])
            seq += 1
        later = [s for s in seqs if s > seq]
        if seq not in seqs and later:
            gaps.append(gap_error(rid, thread, seq, min(later), seqs[min(later)]))
        waiting += sum(
            1 for s in seqs if s >= seq and seqs[s].status is LogStatus.DISCOVERED and not seqs[s].ready
        )
        runs[thread] = run
        if thread in frontier:
            before[thread] = float(frontier[thread][1] or 0)
        else:  # nothing of this thread was planned: it holds nothing below its first log
            before[thread] = float(start.first_scn or 0) if start is not None else 0.0
        tail = run[-1] if run else seqs.get(seq - 1)
        closed = tail is not None and bool((tail.misc_flags or 0) & CLOSED_THREAD_FLAGS) and seq not in seqs
        cover[thread] = math.inf if closed else float(run[-1].next_scn or 0) if run else before[thread]
    watermark = min(cover.values(), default=math.inf)
    chosen = sorted(
        (e for run in runs.values() for e in run if (e.first_scn or 0) < watermark),
        key=lambda e: (e.first_scn or 0, e.thread or 0, e.sequence or 0),
    )[:max_logs]
    after = dict(before)
    for thread, run in runs.items():
        mine = [e for e in chosen if e.thread == thread]
        if len(mine) == len(run):
            after[thread] = cover[thread]
        elif mine:
            after[thread] = float(mine[-1].next_scn or 0)
    low = min(after.values(), default=math.inf)
    return Selection(
        resetlogs_id=rid,
        logs=tuple(sorted(chosen, key=lambda e: (e.thread or 0, e.sequence or 0))),
        previous=previous,
        carries=carries and previous is not None,
        watermark_scn=None if math.isinf(low) or not chosen else int(low),
        gaps=tuple(gaps),
        waiting=waiting,
    )


def batch_id_for(
    ranges: Mapping[int, tuple[int, int]], resetlogs_id: int, taken: Mapping[str, BatchEntry]
) -> str:
    """``b-000015-000016`` (thread 1), ``b-t2.000015-000016``, ``b-t1.000015-000016_t2.000007-000009``;
    ``-r<resetlogs id>`` is appended when the plain id is taken by another incarnation's batch."""
    if list(ranges) == [1]:
        text = "b-{:06d}-{:06d}".format(*ranges[1])
    else:
        text = "b-" + "_".join(f"t{t}.{a:06d}-{b:06d}" for t, (a, b) in sorted(ranges.items()))
    other = taken.get(text)
    if other is not None and (other.resetlogs_id, dict(other.ranges)) != (resetlogs_id, dict(ranges)):
        text = f"{text}-r{resetlogs_id}"
    return text


def ranges_of(logs: Iterable[LogEntry]) -> dict[int, tuple[int, int]]:
    out: dict[int, tuple[int, int]] = {}
    for e in logs:
        t, s = e.thread or 0, e.sequence or 0
        a, b = out.get(t, (s, s))
        out[t] = (min(a, s), max(b, s))
    return out


def select_range(
    logs: Sequence[LogEntry],
    batches: Sequence[BatchEntry],
    ranges: Mapping[int, tuple[int, int]],
    resetlogs_id: int | None = None,
) -> tuple[int, tuple[LogEntry, ...], BatchEntry | None]:
    """The logs of a backfill of exactly ``ranges`` and the batch that ended just before it (pure).

    The range must be planned already (discovery plans new logs) and start at a batch boundary, so
    that the open transactions saved at the previous batch are carried in."""
    t0 = min(ranges)
    if resetlogs_id is None:
        found = {
            e.resetlogs_id
            for e in logs
            if e.status in USABLE and (e.thread, e.sequence) == (t0, ranges[t0][0])
        }
        if len(found) != 1:
            where = (
                # int | None to mypy: a None among ints would make sorted raise
                f"in several incarnations {sorted(found)}: name one"  # type: ignore[type-var]
                if found
                else "not in the log catalog"
            )
            raise LogSetError(f"thread {t0} sequence {ranges[t0][0]} is {where}", thread=t0)
        resetlogs_id = found.pop()
    rid: int = resetlogs_id  # type: ignore[assignment]
    by = logs_by_thread(logs, rid)
    frontier = _frontier(
        logs, [b for b in batches if b.kind is BatchKind.SCHEDULED and b.resetlogs_id == rid]
    )
    chosen: list[LogEntry] = []
    for t, (a, b) in sorted(ranges.items()):
        if a < 1 or b < a:
            raise LogSetError(f"thread {t}: invalid sequence range {a}-{b}", thread=t)
        planned_to = frontier.get(t, (0, None))[0]
        if b > planned_to:
            raise LogSetError(
                f"thread {t}: sequences {max(a, planned_to + 1)}-{b} are not planned yet; a backfill "
                "re-processes planned logs (discovery plans new ones)",
                thread=t,
            )
        seqs = by.get((rid, t), {})
        missing = [s for s in range(a, b + 1) if s not in seqs]
        if missing:
            raise LogSetError(
                f"thread {t} (resetlogs {rid}): sequences {missing} are not in the log catalog",
                thread=t,
                missing=missing,
            )
        run = [seqs[s] for s in range(a, b + 1)]
        for x, y in zip(run, run[1:], strict=False):
            if x.next_scn != y.first_scn:
                raise scn_error(x, y)
        chosen.extend(run)
    return rid, tuple(chosen), _previous(batches, rid, ranges)


def range_watermark(logs: Sequence[LogEntry]) -> int | None:
    """The watermark of a batch of exactly ``logs`` (a backfill): the lowest next SCN of each thread's
    last log, a log archived closed counting as no limit; None when nothing limits it."""
    last: dict[int | None, LogEntry] = {}
    for entry in logs:
        if entry.thread not in last or (entry.sequence or 0) > (last[entry.thread].sequence or 0):
            last[entry.thread] = entry
    limits = [
        e.next_scn
        for e in last.values()
        if e.next_scn is not None and not (e.misc_flags or 0) & CLOSED_THREAD_FLAGS
    ]
    return min(limits, default=None)


def _previous(
    batches: Sequence[BatchEntry], rid: int, ranges: Mapping[int, tuple[int, int]]
) -> BatchEntry | None:
    mine = [b for b in batches if b.resetlogs_id == rid]
    ends = [b for b in mine if all(t in b.ranges and b.ranges[t][1] == a - 1 for t, (a, _) in ranges.items())]
    if ends:
        return max(  # the latest of the best: reversed, since max keeps the first maximum
            reversed(ends),
            key=lambda b: (b.status is not BatchStatus.FAILED, b.kind is BatchKind.SCHEDULED, b.created),
        )
    for t, (a, _) in sorted(ranges.items()):
        for b in mine:
            lo, hi = b.ranges.get(t, (0, -1))
            if b.kind is BatchKind.SCHEDULED and lo <= a - 1 and a <= hi:
                raise LogSetError(
                    f"thread {t}: sequence {a} is inside batch {b.batch_id} (sequences {lo}-{hi}); a backfill "
                    f"starts at a batch boundary ({lo} or {hi + 1}) to carry in the open transactions saved there",
                    thread=t,
                )
    return None
