"""Batches as catalog rows and folders: plan, backfill, re-run, start and finish a batch.

Each planning call writes the batch rows of the ``LogCatalog`` and
``<work>/batches/<batch id>/manifest.json`` as docs/pipeline-contract.md describes it (local folder
or ``s3://`` prefix): the manifest first, inside the catalog transaction that then writes the rows,
so a manifest that cannot be written (S3 unreachable) leaves the catalog as it was, and a planned
batch always has its manifest. ``previous_batch`` and ``carried_in`` come from the catalog: the
batch before this one in the chain of scheduled batches, or for a backfill the batch that ended
just before it.
"""

from __future__ import annotations

import dataclasses
import json
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, final

from redo_lib.discovery.plans import (
    Selection,
    batch_id_for,
    range_watermark,
    ranges_of,
    select_next,
    select_range,
)
from redo_lib.errors import LogSetError
from redo_lib.storage.catalog import (
    BatchEntry,
    BatchKind,
    BatchStatus,
    LogCatalog,
    LogEntry,
    join_location,
    object_exists,
    read_text,
    remove_object,
    utc_now,
    write_text,
)


@final
@dataclass(frozen=True, slots=True, kw_only=True)
class PlanResult:
    batches: tuple[BatchEntry, ...] = ()  # planned by this call, in order
    gaps: tuple[LogSetError, ...] = ()  # what stopped planning
    waiting: int = 0


def build_manifest(
    batch: BatchEntry,
    logs: Sequence[LogEntry],
    dictionary: str | None,
    capture: Sequence[str] = (),
    images: Sequence[str] = (),
) -> dict[str, Any]:
    """The batch's ``manifest.json`` (docs/pipeline-contract.md), logs by (thread, sequence).

    ``publication`` is new each time a manifest is written (each plan, re-run or backfill): the
    publish stage records it on every table commit, so a retry of the same run skips the tables it
    already committed while a new run of the batch publishes again (replacing, never adding)."""
    return {
        "batch_id": batch.batch_id,
        "publication": f"{batch.batch_id}@{utc_now()}.{uuid.uuid4().hex[:8]}",
        "logs": [
            {
                "thread": e.thread,
                "sequence": e.sequence,
                "resetlogs_id": e.resetlogs_id,
                "size": e.size,
                "location": e.location,
                "etag": e.etag,
                "first_scn": e.first_scn,
                "next_scn": e.next_scn,
            }
            for e in sorted(logs, key=lambda e: (e.thread or 0, e.sequence or 0))
        ],
        "dictionary": dictionary,
        "capture": list(capture) or None,  # OWNER / OWNER.TABLE entries; null = every dictionary table
        "images": list(images) or None,  # update-befores / full-deletes; null = GoldenGate's defaults
        "previous_batch": batch.previous_batch,
        "carried_in": batch.carried_in,
        # transactions committing at or above it wait for the next batch (docs/pipeline-contract.md)
        "watermark_scn": batch.watermark_scn,
    }


def write_manifest(
    batch: BatchEntry, logs: Sequence[LogEntry], dictionary: str | None, client: Any = None,
    capture: Sequence[str] = (), images: Sequence[str] = (),
) -> str:  # fmt: skip
    """Write ``<batch dir>/manifest.json``; returns its location."""
    location = join_location(batch.batch_dir, "manifest.json")
    manifest = build_manifest(batch, logs, dictionary, capture, images)
    write_text(location, json.dumps(manifest, indent=2) + "\n", client)
    return location


def _new_batch(
    catalog: LogCatalog, logs: Sequence[LogEntry], rid: int, previous: BatchEntry | None, *,
    carries: bool, kind: BatchKind, work_dir: str, watermark: int | None = None,
) -> BatchEntry:  # fmt: skip
    ranges = ranges_of(logs)
    batch_id = batch_id_for(ranges, rid, {b.batch_id: b for b in catalog.batches()})
    return BatchEntry(
        batch_id=batch_id,
        resetlogs_id=rid,
        ranges=ranges,
        batch_dir=join_location(work_dir, "batches", batch_id),
        kind=kind,
        previous_batch=previous.batch_id if previous else None,
        carried_in=join_location(previous.batch_dir, "open") if previous and carries else None,
        first_scn=min((e.first_scn or 0 for e in logs), default=None),
        watermark_scn=watermark,
    )


def plan_batches(
    catalog: LogCatalog, *, work_dir: str, dictionary: str | None = None, max_logs: int = 8,
    max_batches: int = 1, client: Any = None, capture: Sequence[str] = (), images: Sequence[str] = (),
) -> PlanResult:  # fmt: skip
    """Plan up to ``max_batches`` scheduled batches of at most ``max_logs`` logs each."""
    planned: list[BatchEntry] = []
    sel = Selection()
    while len(planned) < max_batches:
        with catalog.transaction():
            sel = select_next(catalog.logs(), catalog.batches(), max_logs=max_logs)
            if not sel.logs:
                break
            assert sel.resetlogs_id is not None
            batch = _new_batch(
                catalog, sel.logs, sel.resetlogs_id, sel.previous, carries=sel.carries,
                kind=BatchKind.SCHEDULED, work_dir=work_dir, watermark=sel.watermark_scn,
            )  # fmt: skip
            write_manifest(batch, sel.logs, dictionary, client, capture, images)  # a failure rolls back
            batch = catalog.put_batch(batch, sel.logs)
        planned.append(batch)
    return PlanResult(batches=tuple(planned), gaps=sel.gaps, waiting=sel.waiting)


def plan_backfill(
    catalog: LogCatalog, threads: Sequence[int], first_seq: int | Mapping[int, int], last_seq: int | Mapping[int, int],
    *, work_dir: str, dictionary: str | None = None, resetlogs_id: int | None = None, client: Any = None,
    capture: Sequence[str] = (), images: Sequence[str] = (),
) -> BatchEntry:  # fmt: skip
    """A batch of exactly ``first_seq..last_seq`` of each thread (ints apply to every thread), whose
    previous batch is the one that ended just before ``first_seq``. The same range again re-runs it."""
    threads = sorted(set(threads)) or [1]
    firsts = first_seq if isinstance(first_seq, Mapping) else dict.fromkeys(threads, first_seq)
    lasts = last_seq if isinstance(last_seq, Mapping) else dict.fromkeys(threads, last_seq)
    ranges = {t: (int(firsts[t]), int(lasts[t])) for t in threads}
    with catalog.transaction():
        batches = catalog.batches()
        rid, logs, previous = select_range(catalog.logs(), batches, ranges, resetlogs_id)
        same = next((b for b in batches if b.resetlogs_id == rid and dict(b.ranges) == ranges), None)
        if same is not None:
            write_manifest(same, logs, dictionary, client, capture, images)  # a failure rolls back
            batch = catalog.put_batch(dataclasses.replace(same, status=BatchStatus.PLANNED, message=None))
        else:
            new = _new_batch(
                catalog, logs, rid, previous, carries=True, kind=BatchKind.BACKFILL, work_dir=work_dir,
                watermark=range_watermark(logs),
            )  # fmt: skip
            write_manifest(new, logs, dictionary, client, capture, images)
            batch = catalog.put_batch(new, logs)
    return batch


def rerun_batch(
    catalog: LogCatalog, batch_id: str, *, dictionary: str | None = None, client: Any = None,
    capture: Sequence[str] = (), images: Sequence[str] = (),
) -> BatchEntry:  # fmt: skip
    """Set a batch back to ``planned`` and rewrite its manifest (same logs, same previous batch)."""
    with catalog.transaction():
        batch = catalog.get_batch(batch_id)
        if batch is None:
            raise LogSetError(f"no batch {batch_id!r} in the log catalog")
        write_manifest(batch, catalog.batch_logs(batch_id), dictionary, client, capture, images)
        return catalog.set_batch_status(batch_id, BatchStatus.PLANNED)


MARKERS = ("VALIDATED", "PUBLISHED")  # written by the validate and publish stages
FAILURE = ("report", "failure.json")  # written by the stage that failed (docs/pipeline-contract.md)
# The markers a stage's run makes stale, removed when it starts (docs/pipeline-contract.md): its
# own and those of the stages after it, whose input it rewrites. Publish removes none: it needs
# VALIDATED, and PUBLISHED is its record that the manifest's publication is committed (run again, it
# finds it and commits nothing: exactly once); the stages before it remove it when they rewrite
STALE_MARKERS = {"decode": MARKERS, "assemble": MARKERS, "validate": MARKERS, "publish": ()}


def clear_earlier_run(batch_dir: str, stage: str | None = None, client: Any = None) -> None:
    """Remove from the batch folder what an earlier run left that would misjudge this one: its
    ``report/failure.json`` and the markers ``stage`` makes stale (``STALE_MARKERS``), or every
    marker when ``stage`` is None (a run of the whole batch, :func:`start_batch`)."""
    markers = MARKERS if stage is None else STALE_MARKERS[stage]
    for member in [(marker,) for marker in markers] + [FAILURE]:
        remove_object(join_location(batch_dir, *member), client)


def start_batch(catalog: LogCatalog, batch_id: str, client: Any = None) -> BatchEntry:
    """Mark a batch ``running``; refuse while the batch it carries state from is not validated.

    The VALIDATED and PUBLISHED markers and the ``report/failure.json`` of an earlier run are removed,
    so that :func:`finish_batch` judges this run only."""
    batch = catalog.get_batch(batch_id)
    if batch is None:
        raise LogSetError(f"no batch {batch_id!r} in the log catalog")
    if batch.previous_batch and batch.carried_in:
        prev = catalog.get_batch(batch.previous_batch)
        state = prev.status.value if prev else "not in the catalog"
        if prev is None or prev.status not in (BatchStatus.VALIDATED, BatchStatus.PUBLISHED):
            raise LogSetError(
                f"batch {batch_id} carries in the open transactions of {batch.previous_batch}, which is "
                f"{state}: run that batch first"
            )
    clear_earlier_run(batch.batch_dir, client=client)
    return catalog.set_batch_status(batch_id, BatchStatus.RUNNING)


def read_failure(batch_dir: str, client: Any = None) -> dict[str, Any] | None:
    """The batch's ``report/failure.json`` (what a failed stage reported), or None."""
    location = join_location(batch_dir, *FAILURE)
    if not object_exists(location, client):
        return None
    try:
        doc = json.loads(read_text(location, client))
    except json.JSONDecodeError as exc:
        doc = None
        reason = str(exc)
    else:
        reason = "not a JSON object"
    if isinstance(doc, dict):
        return doc
    return {"stage": "a stage", "kind": "unreadable_report", "error": f"{location} is unreadable: {reason}"}


def failure_line(failure: Mapping[str, Any]) -> str:
    """A stage's failure (``report/failure.json``, or :func:`finish_batch`'s ``failure``) in one
    line: ``<stage> failed: <error>``, the error naming its cause and where."""
    return f"{failure.get('stage') or 'a stage'} failed: {failure.get('error') or failure.get('message')}"


def finish_batch(catalog: LogCatalog, batch_id: str, client: Any = None) -> dict[str, Any]:
    """Set the batch status from its folder: the PUBLISHED and VALIDATED markers, else the failure its
    stage reported in ``report/failure.json``. Returns the status, a message, the failure (stage,
    error, position, what was published) and the paths of the batch's reports, None for those that
    do not exist."""
    batch = catalog.get_batch(batch_id)
    if batch is None:
        raise LogSetError(f"no batch {batch_id!r} in the log catalog")
    where = batch.batch_dir
    paths = {
        "manifest": ("manifest.json",),
        "counts": ("counts.json",),
        "summary": ("report", "summary.json"),
        "data_docs": ("report", "docs", "index.html"),
        "failure_report": FAILURE,
    }
    locations = {name: join_location(where, *parts) for name, parts in paths.items()}
    found = {name: loc if object_exists(loc, client) else None for name, loc in locations.items()}
    doc = read_failure(where, client) if found["failure_report"] else None
    failure = None
    if doc is not None:
        failure = {
            "stage": doc.get("stage"),
            "kind": doc.get("kind"),
            "error": doc.get("error") or doc.get("message"),
            "position": doc.get("position"),
            "retryable": doc.get("retryable"),
            "published": doc.get("published", "nothing"),
        }
    if object_exists(join_location(where, "PUBLISHED"), client):
        status, message = BatchStatus.PUBLISHED, None
    elif object_exists(join_location(where, "VALIDATED"), client):
        status, message = BatchStatus.VALIDATED, "validated but not published"
        if failure is not None:
            message += f": {failure_line(failure)} (published: {_tables(failure)})"
    elif failure is not None:
        status, message = BatchStatus.FAILED, failure_line(failure)
        if failure["stage"] == "validate" and found["summary"]:
            message += ": see report/summary.json"
    else:
        status, message = BatchStatus.FAILED, "no stage reported a failure (killed?): see the task logs"
    catalog.set_batch_status(batch_id, status, message)
    return {
        "batch_id": batch_id,
        "status": status.value,
        "message": message,
        "failure": failure,
        "batch_dir": where,
        **found,
    }


def _tables(failure: Mapping[str, Any]) -> str:
    published = failure.get("published") or "nothing"
    return published if isinstance(published, str) else ", ".join(published) or "nothing"
