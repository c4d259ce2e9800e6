"""# redo_archive_discovery: find new archived logs, plan batches, start the pipeline

Every 5 minutes by default (`REDOTRAIL_DISCOVERY_SCHEDULE`, a cron expression; no catch-up, one run at a time):

1. **discover** lists the archive prefix (``REDOTRAIL_ARCHIVE_URL``) and registers every new or
   changed object in the log catalog (``REDOTRAIL_CATALOG_DB``) from its redo header, read with one
   ranged GET. Objects still being written wait for the next run; name/header mismatches, objects
   that are not redo logs or not of this database, duplicates and sequence gaps are reported in the
   task's return value, and its log has one line per log not planned with the reason (and
   ``python -m redo_lib status`` and the operations report list them).
2. **plan** plans the next batches (contiguous sequences per thread, RAC watermark, at most
   ``REDOTRAIL_MAX_LOGS_PER_BATCH`` logs each, ``REDOTRAIL_MAX_BATCHES_PER_RUN`` per run), writes
   ``<work>/batches/<batch id>/manifest.json``, and returns every planned batch not yet started
   whose ``redo_pipeline`` run does not exist yet (a run triggered earlier may still be queued).
   A sequence gap that blocks progress fails this task with the missing thread and sequences.
3. **trigger_pipeline** starts one ``redo_pipeline`` run per batch, with conf ``{"batch_id": ...}``
   and run id ``batch__<batch id>``; nothing when ``plan`` returns no batch.

An error no retry can fix (a wrong setting, logs of two databases without ``REDOTRAIL_DBID``, a gap)
fails a task at once, without its retries; S3 or the catalog not answering is retried
(``common/retries.py``).

All the logic is in ``redo_lib.discovery``; docs/operations.md lists the settings.
"""

from __future__ import annotations

from typing import Any

from airflow.providers.standard.operators.trigger_dagrun import TriggerDagRunOperator
from airflow.sdk import dag, task
from common import DEFAULT_ARGS, DISCOVERY_SCHEDULE, START_DATE
from common.retries import fail_at_once_when_final


@dag(
    dag_id="redo_archive_discovery",
    schedule=DISCOVERY_SCHEDULE,
    start_date=START_DATE,
    catchup=False,
    max_active_runs=1,
    default_args=DEFAULT_ARGS,
    tags=["redotrail", "discovery"],
    doc_md=__doc__,
)
def redo_archive_discovery() -> None:
    @task
    @fail_at_once_when_final
    def discover() -> dict[str, Any]:
        """List the archive and register new logs; returns the discovery report and logs one line per
        log not planned (waiting, rejected, duplicate, gone, name mismatch, gap) with its reason."""
        import logging

        from redo_lib.discovery import Settings, discover_archive, report_lines

        found = discover_archive(Settings.from_env())
        log = logging.getLogger("redotrail.discovery")
        for level, line in report_lines(found):
            log.log(level, line)
        return found

    @task
    @fail_at_once_when_final
    def plan(found: dict[str, Any], ti: Any = None) -> list[dict[str, Any]]:
        """Plan batches; one trigger per batch still waiting to run and not triggered yet.

        A batch whose run exists is left out rather than triggered and skipped: a skipped trigger
        logs an error (its "Triggered DAG" link finds no ``trigger_run_id`` XCom)."""
        from redo_lib.discovery import Settings, plan_pending, summarize

        print(summarize(found))
        runs = {b: f"batch__{b}" for b in plan_pending(Settings.from_env())}
        if ti is not None:
            runs = {b: r for b, r in runs.items() if not ti.get_dr_count(dag_id="redo_pipeline", run_ids=[r])}
        return [{"trigger_run_id": run_id, "conf": {"batch_id": b}} for b, run_id in runs.items()]

    TriggerDagRunOperator.partial(
        task_id="trigger_pipeline",
        trigger_dag_id="redo_pipeline",
        logical_date=None,
        skip_when_already_exists=True,
        max_active_tis_per_dagrun=1,  # trigger in plan order: the pipeline runs batches one at a time
        doc_md="One `redo_pipeline` run per planned batch (run id `batch__<batch id>`, conf "
        '`{"batch_id": ...}`), in plan order; a batch triggered before is skipped.',
    ).expand_kwargs(plan(discover()))


redo_archive_discovery()
