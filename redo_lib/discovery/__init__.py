"""Discovery of archived logs in S3 and planning of batches over them: the discovery DAG's library.

* ``objects`` — :func:`discover`: list the archive, read each new or changed object's redo header
  with one ranged GET, register it in the ``LogCatalog`` (``redo_lib.storage.catalog``), report
  what waits (still being written), what is not a redo log, name/header mismatches and gaps; learn
  the one source database (:func:`learn_source`) and reject logs of other databases and of
  incarnations that do not continue ours (:func:`screen_logs`); say what is not planned and why
  (:func:`report_lines` for the discover task's log, :func:`unplanned_logs` for status and the
  operations report);
* ``plans`` — pure rules: :func:`select_next` (the next batch: contiguous sequences per thread, RAC
  watermark, incarnations, gaps) and :func:`select_range` (a backfill's logs and previous batch);
* ``batches`` — catalog rows and ``manifest.json``: :func:`plan_batches`, :func:`plan_backfill`,
  :func:`rerun_batch`, :func:`start_batch`, :func:`finish_batch`;
* ``tasks`` — :class:`Settings` from ``REDOTRAIL_*`` variables and one function per DAG task.

Top layer: may import ``format`` (the header parser) and ``storage``. On bad input only
``RedoError`` subclasses are raised (``LogSetError`` for gaps and impossible ranges,
``StorageError`` for I/O).
"""

from redo_lib.discovery.batches import (
    PlanResult,
    build_manifest,
    finish_batch,
    plan_backfill,
    plan_batches,
    rerun_batch,
    start_batch,
    write_manifest,
)
from redo_lib.discovery.objects import (
    HEADER_READ_BYTES,
    DiscoveryReport,
    assess,
    check_continuity,
    databases_message,
    discover,
    learn_source,
    name_mismatch,
    parse_log_name,
    register_object,
    report_lines,
    screen_logs,
    summarize,
    unplanned_logs,
)
from redo_lib.discovery.plans import Selection, batch_id_for, select_next, select_range
from redo_lib.discovery.tasks import Settings, discover_archive, plan_pending, report_batch, resolve_batch

__all__ = [
    "HEADER_READ_BYTES",
    "DiscoveryReport",
    "PlanResult",
    "Selection",
    "Settings",
    "assess",
    "batch_id_for",
    "build_manifest",
    "check_continuity",
    "databases_message",
    "discover",
    "discover_archive",
    "finish_batch",
    "learn_source",
    "name_mismatch",
    "parse_log_name",
    "plan_backfill",
    "plan_batches",
    "plan_pending",
    "register_object",
    "report_batch",
    "report_lines",
    "rerun_batch",
    "resolve_batch",
    "screen_logs",
    "select_next",
    "select_range",
    "start_batch",
    "summarize",
    "unplanned_logs",
    "write_manifest",
]
