"""Where the pipeline stands: lag, logs not planned, batches, open transactions and the last failure.

What an operator asks every morning (GoldenGate's ``INFO``/``LAG``, ``SEND EXTRACT ... SHOWTRANS``
and ``WARNLONGTRANS``; Debezium's ``OldestScnAge``), answered from the log catalog and the batch
folders only, never from Spark or Airflow logs:

* per redo thread, the newest archived log seen and the newest published, and the lag between
  them in sequences, SCNs and redo time, plus the wall-clock age of the newest published redo;
* batches by status, and per batch its run time, size and MB/s (catalog ``started``/``finished``);
* the open transactions carried right now: those carried out of the newest batch of the chain
  that validated, from its counts.json (``open_transactions``, written by assembly); each with its
  age as of the newest redo that batch read, and a warning when it is older than the
  long-transaction threshold (``REDOTRAIL_WARN_LONG_TRANS``, GoldenGate's ``WARNLONGTRANS``);
* the last failure: of the newest failed batch, or of a stage run by hand after its batch's run
  ended, whichever is newer, in one line (``<stage> failed: <error>``) with the stage's
  ``report/failure.json``;
* what discovery did not plan, and why: each gap, and each rejected, duplicate, waiting and gone
  object of the archive, with its reason (``redo_lib.discovery.unplanned_logs``).

:func:`collect_status` builds one JSON-able document (``python -m redo_lib status --json``);
:func:`render_status` prints it for people. Layer "top".
"""

from __future__ import annotations

import datetime as dt
import json
import os
import re
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

from redo_lib.errors import RedoError, StorageError
from redo_lib.storage.catalog import (
    BatchEntry,
    BatchKind,
    BatchStatus,
    LogCatalog,
    LogEntry,
    LogStatus,
    join_location,
    object_exists,
    read_text,
)

DEFAULT_WARN_LONG_TRANS_S = 3600.0  # GoldenGate's WARNLONGTRANS default: one hour
WARN_LONG_TRANS_ENV = "REDOTRAIL_WARN_LONG_TRANS"
RECENT_BATCHES = 20  # batches listed one by one (all are counted by status)
_LIVE = (LogStatus.DISCOVERED, LogStatus.BATCHED, LogStatus.PUBLISHED)  # not rejected/duplicate/gone
_DURATION = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([smhd]?)\s*$")
_UNIT_S = {"": 1, "s": 1, "m": 60, "h": 3600, "d": 86400}


def missing_catalog(location: str, demo_dir: os.PathLike[str] | str | None = None) -> str | None:
    """What to say when the log catalog at ``location`` (a local path) does not exist, rather than
    create an empty one and show nothing: where it was looked for and, when ``demo_dir`` holds a
    catalog (``./redotrail demo`` ran), the command that shows the demo's pipeline. None when it
    exists or is a database URL."""
    if "://" in location or os.path.exists(location):
        return None
    text = f"no log catalog at {location}: nothing has been discovered with these settings yet"
    demo = os.path.join(os.fspath(demo_dir), "catalog", "logs.sqlite") if demo_dir is not None else None
    if demo is not None and os.path.exists(demo) and os.path.abspath(demo) != os.path.abspath(location):
        text += (
            f"; the demo's pipeline: python -m redo_lib status --data-dir {os.path.relpath(demo_dir or '')}"
        )
    return text


def parse_duration(text: str) -> float:
    """``90``, ``90s``, ``30m``, ``1h``, ``2d`` -> seconds (as WARNLONGTRANS takes them)."""
    match = _DURATION.match(text)
    if match is None:
        raise RedoError(f"{text!r} is not a duration: give seconds, or a number with s, m, h or d")
    return float(match.group(1)) * _UNIT_S[match.group(2)]


def warn_threshold(env: Mapping[str, str] | None = None) -> float:
    """The long-transaction threshold in seconds: ``REDOTRAIL_WARN_LONG_TRANS`` or one hour."""
    text = (os.environ if env is None else env).get(WARN_LONG_TRANS_ENV) or ""
    return parse_duration(text) if text.strip() else DEFAULT_WARN_LONG_TRANS_S


def render_age(seconds: float | None) -> str:
    """``3d 04:05:06`` / ``04:05:06``, as GoldenGate prints lag; ``-`` for none."""
    if seconds is None:
        return "-"
    whole = int(round(seconds))
    sign, whole = ("-", -whole) if whole < 0 else ("", whole)
    days, rest = divmod(whole, 86400)
    hours, rest = divmod(rest, 3600)
    text = f"{hours:02d}:{rest // 60:02d}:{rest % 60:02d}"
    return f"{sign}{days}d {text}" if days else sign + text


def _time(text: str | None) -> dt.datetime | None:
    """An ISO time of the catalog or of counts.json; naive times (redo LWN times) taken as UTC."""
    if not text:
        return None
    value = dt.datetime.fromisoformat(text)
    return value if value.tzinfo else value.replace(tzinfo=dt.UTC)


def _seconds(later: dt.datetime | None, earlier: dt.datetime | None) -> float | None:
    return None if later is None or earlier is None else (later - earlier).total_seconds()


def long_transaction_warnings(
    open_transactions: Sequence[Mapping[str, Any]], threshold_s: float
) -> list[str]:
    """One line per open transaction older than ``threshold_s`` (its ``age_s``), oldest first."""
    old = [t for t in open_transactions if t.get("age_s") is not None and t["age_s"] > threshold_s]
    return [
        f"long-running transaction {t['xid']} open for {render_age(t['age_s'])} (threshold "
        f"{render_age(threshold_s)}): started at SCN {t['start_scn']} ({t['start_time']}) in log "
        f"{t['started_in']}, {t['changes']} changes, {t['bytes']} bytes held"
        for t in sorted(old, key=lambda t: -t["age_s"])
    ]


def open_transactions_of(counts: Mapping[str, Any], as_of: dt.datetime | None) -> list[dict[str, Any]]:
    """counts.json's ``open_transactions`` as a list (oldest first), each with ``age_s``: seconds
    from its start to ``as_of`` (the redo time of the newest log the batch read)."""
    out = []
    for xid, entry in (counts.get("open_transactions") or {}).items():
        age = _seconds(as_of, _time(entry.get("start_time")))
        out.append({"xid": xid, **entry, "age_s": age})
    return sorted(out, key=lambda t: (t.get("start_scn") or 0, t["xid"]))


def read_counts(batch_dir: str, client: Any = None) -> dict[str, Any]:
    """A batch's counts.json, or {} when it has none (yet)."""
    location = join_location(batch_dir, "counts.json")
    try:
        if not object_exists(location, client):
            return {}
        doc = json.loads(read_text(location, client))
    except (StorageError, json.JSONDecodeError):
        return {}
    return doc if isinstance(doc, dict) else {}


def last_failure(batches: Sequence[BatchEntry], client: Any = None) -> dict[str, Any] | None:
    """The newest failure: of the newest batch the catalog calls failed (the message its run's
    ``report`` task gave it), or a stage's ``report/failure.json`` written after its batch's run
    ended (a stage run by hand: no ``report`` task judged it; looked for in the newest
    ``RECENT_BATCHES``), whichever is newer. ``message`` is the failure's one line, ``<stage>
    failed: <error>``; ``after_run`` says the catalog's ``status`` predates it."""
    from redo_lib.discovery.batches import failure_line, read_failure  # redo_lib.discovery imports us

    failed = [b for b in batches if b.status is BatchStatus.FAILED]
    newest = max(failed, key=lambda b: (b.finished or b.updated, b.created)) if failed else None
    looked = {b.batch_id: b for b in batches[-RECENT_BATCHES:]}
    if newest is not None:
        looked.setdefault(newest.batch_id, newest)
    found: list[tuple[Any, str, dict[str, Any]]] = []
    message: str | None
    for batch in looked.values():
        ended = batch.finished or batch.updated
        doc = read_failure(batch.batch_dir, client)
        reported = _time(doc.get("time")) if doc and isinstance(doc.get("time"), str) else None
        if doc and reported is not None and reported > (_time(ended) or reported):
            when, message, after_run = doc["time"], failure_line(doc), True
        elif batch is newest:
            when, message, after_run = ended, batch.message, False
        else:
            continue
        found.append((_time(when), batch.created, {
            "batch_id": batch.batch_id, "finished": when, "message": message, "failure": doc,
            "after_run": after_run, "status": batch.status.value,
        }))  # fmt: skip
    return max(found, key=lambda f: f[:2])[2] if found else None


def _thread_lag(logs: Sequence[LogEntry], now: dt.datetime) -> list[dict[str, Any]]:
    """Per thread of the newest incarnation: newest seen, newest published, and the lag."""
    live = [e for e in logs if e.status in _LIVE and e.thread is not None and e.sequence is not None]
    if not live:
        return []
    newest_rid = max(live, key=lambda e: (e.resetlogs_scn or 0, e.resetlogs_id or 0)).resetlogs_id
    out = []
    for thread in sorted({e.thread for e in live if e.resetlogs_id == newest_rid and e.thread is not None}):
        mine = [e for e in live if e.thread == thread and e.resetlogs_id == newest_rid]
        seen = max(mine, key=lambda e: e.sequence or 0)
        done = [e for e in mine if e.status is LogStatus.PUBLISHED]
        pub = max(done, key=lambda e: e.sequence or 0) if done else None
        seen_time, pub_time = _time(seen.next_time or seen.first_time), _time(pub.next_time) if pub else None
        out.append(
            {
                "thread": thread,
                "resetlogs_id": newest_rid,
                "newest_seen": _log_doc(seen),
                "newest_published": _log_doc(pub) if pub else None,
                "lag_sequences": (seen.sequence or 0) - (pub.sequence if pub and pub.sequence else 0),
                "lag_scn": (seen.next_scn or seen.first_scn or 0) - (pub.next_scn or 0) if pub else None,
                "lag_redo_s": _seconds(seen_time, pub_time),
                # how old the newest published redo is now: what a consumer of the tables sees
                "lag_wall_s": _seconds(now, pub_time),
            }
        )
    return out


def _log_doc(entry: LogEntry) -> dict[str, Any]:
    return {
        "sequence": entry.sequence,
        "location": entry.location,
        "first_scn": entry.first_scn,
        "next_scn": entry.next_scn,
        "first_time": entry.first_time,
        "next_time": entry.next_time,
        "size": entry.size,
        "status": entry.status.value,
        "batch_id": entry.batch_id,
    }


def batch_doc(batch: BatchEntry, logs: Sequence[LogEntry]) -> dict[str, Any]:
    """One batch for the operators: status, logs, bytes, run time and MB/s, redo end time."""
    started, finished = _time(batch.started), _time(batch.finished)
    duration = _seconds(finished, started)
    size = sum(e.size for e in logs)
    ends = [t for t in (_time(e.next_time) for e in logs) if t is not None]
    return {
        "batch_id": batch.batch_id,
        "kind": batch.kind.value,
        "status": batch.status.value,
        "ranges": {str(t): list(r) for t, r in sorted(batch.ranges.items())},
        "logs": len(logs),
        "bytes": size,
        "started": batch.started,
        "finished": batch.finished,
        "duration_s": duration,
        "mb_per_s": size / 1e6 / duration if duration else None,
        "first_scn": batch.first_scn,
        "watermark_scn": batch.watermark_scn,
        "redo_end_time": max(ends).isoformat() if ends else None,
        "message": batch.message,
        "batch_dir": batch.batch_dir,
    }


def carrying_batch(batches: Sequence[BatchEntry]) -> BatchEntry | None:
    """The batch whose open transactions are carried now: the newest scheduled batch that validated
    (what the next batch of the chain starts from)."""
    done = (BatchStatus.VALIDATED, BatchStatus.PUBLISHED)
    chain = [b for b in batches if b.kind is BatchKind.SCHEDULED and b.status in done]
    return chain[-1] if chain else None


def collect_status(
    catalog: LogCatalog,
    *,
    now: dt.datetime | None = None,
    warn_after_s: float = DEFAULT_WARN_LONG_TRANS_S,
    client: Any = None,
) -> dict[str, Any]:
    """The status document (module docstring); ``now`` defaults to the current UTC time."""
    now = now or dt.datetime.now(dt.UTC)
    batches = catalog.batches()
    docs = [batch_doc(b, catalog.batch_logs(b.batch_id)) for b in batches]
    by_status = Counter(b.status.value for b in batches)
    carrying = carrying_batch(batches)
    open_txns: list[dict[str, Any]] = []
    carried = None
    if carrying is not None:
        doc = next(d for d in docs if d["batch_id"] == carrying.batch_id)
        as_of = _time(doc["redo_end_time"])
        open_txns = open_transactions_of(read_counts(carrying.batch_dir, client), as_of)
        carried = {"batch_id": carrying.batch_id, "as_of": doc["redo_end_time"]}
    throughput = [d["mb_per_s"] for d in docs if d["mb_per_s"] is not None]
    logs = catalog.logs()
    return {
        "now": now.isoformat(timespec="seconds"),
        "source": _source(catalog),
        "threads": _thread_lag(logs, now),
        "unplanned_logs": _unplanned(logs),
        "batches": {
            "by_status": {s.value: by_status.get(s.value, 0) for s in BatchStatus},
            "total": len(batches),
            "mean_mb_per_s": sum(throughput) / len(throughput) if throughput else None,
            "recent": docs[-RECENT_BATCHES:],
        },
        "open_transactions": {
            "carried_by": carried,
            "count": len(open_txns),
            "oldest_age_s": max((t["age_s"] for t in open_txns if t["age_s"] is not None), default=None),
            "transactions": open_txns,
        },
        "warn_long_trans_s": warn_after_s,
        "warnings": long_transaction_warnings(open_txns, warn_after_s),
        "last_failure": last_failure(batches, client),
    }


def _unplanned(logs: Sequence[LogEntry]) -> dict[str, Any]:
    """``counts`` per kind (gap, rejected, duplicate, waiting, gone) and the ``logs``, each with its
    reason."""
    from redo_lib.discovery.objects import UNPLANNED, unplanned_logs  # redo_lib.discovery imports us

    listed = unplanned_logs(logs)
    counts = Counter(d["kind"] for d in listed)
    return {"counts": {kind: counts.get(kind, 0) for kind in UNPLANNED}, "logs": listed}


def _source(catalog: LogCatalog) -> dict[str, Any] | None:
    source = catalog.source()
    return None if source is None else {"dbid": source.dbid, "db_name": source.db_name}


def _table(header: Sequence[str], rows: Sequence[Sequence[Any]]) -> list[str]:
    cells = [[str(h) for h in header], *[["-" if c is None else str(c) for c in r] for r in rows]]
    widths = [max(len(row[i]) for row in cells) for i in range(len(header))]
    return ["  " + "  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)).rstrip() for row in cells]


def _mb(size: int) -> str:
    return f"{size / 1e6:.2f}"


def render_duration(seconds: float | None) -> str:
    """A run time: ``4.2 s`` under a minute, else as :func:`render_age`."""
    if seconds is None or seconds >= 60:
        return render_age(seconds)
    return f"{seconds:.1f} s"


def render_status(doc: Mapping[str, Any]) -> str:
    """The status document as text for a terminal."""
    lines = []
    source = doc.get("source")
    name = f" of DBID {source['dbid']} ({source['db_name']})" if source else ""
    lines.append(f"Redotrail status{name} at {doc['now']}")
    lines.append("")
    lines.append("Lag per thread (newest archived log seen vs newest published):")
    rows = []
    for t in doc["threads"]:
        pub = t["newest_published"] or {}
        rows.append(
            [t["thread"], t["newest_seen"]["sequence"], pub.get("sequence"), t["lag_sequences"],
             t["lag_scn"], render_age(t["lag_redo_s"]), render_age(t["lag_wall_s"])]
        )  # fmt: skip
    lines += _table(["thread", "seen", "published", "lag seq", "lag SCN", "lag redo", "age now"], rows)
    if not rows:
        lines.append("  (no logs discovered yet)")
    unplanned = doc["unplanned_logs"]
    kinds = ", ".join(
        f"{n} {kind}{'s' * (kind == 'gap' and n > 1)}" for kind, n in unplanned["counts"].items() if n
    )
    lines += ["", f"Logs not planned: {kinds or 'none'}"]
    if unplanned["logs"]:
        rows = [[e["kind"], e["location"], e["reason"]] for e in unplanned["logs"]]
        lines += _table(["kind", "log", "reason"], rows)
    b = doc["batches"]
    counts = ", ".join(f"{n} {s}" for s, n in b["by_status"].items() if n)
    lines += ["", f"Batches: {b['total']} ({counts or 'none'})"]
    rows = [
        [d["batch_id"], d["kind"], d["status"], d["logs"], _mb(d["bytes"]),
         render_duration(d["duration_s"]), f"{d['mb_per_s']:.3g}" if d["mb_per_s"] is not None else None]
        for d in b["recent"]
    ]  # fmt: skip
    if rows:
        lines += _table(["batch", "kind", "status", "logs", "MB", "run time", "MB/s"], rows)
    o = doc["open_transactions"]
    carried = o["carried_by"]
    where = (
        f" (carried out of {carried['batch_id']}, ages as of redo time {carried['as_of']})" if carried else ""
    )
    lines += ["", f"Open transactions: {o['count']}{where}"]
    rows = [
        [t["xid"], t["thread"], t["start_scn"], t["start_time"], render_age(t["age_s"]), t["changes"],
         t["bytes"], t["started_in"]]
        for t in o["transactions"]
    ]  # fmt: skip
    if rows:
        lines += _table(
            ["xid", "thread", "start SCN", "start time", "age", "changes", "bytes", "started in"], rows
        )
    for warning in doc["warnings"]:
        lines.append(f"WARNING: {warning}")
    failure = doc["last_failure"]
    when = "none" if failure is None else f"{failure['batch_id']} at {failure['finished']}"
    if failure is not None and failure.get("after_run"):
        when += f", after the batch's run (the catalog says {failure['status']})"
    lines += ["", f"Last failure: {when}"]
    if failure is not None:
        lines.append(f"  {failure['message']}")
    return "\n".join(lines) + "\n"
