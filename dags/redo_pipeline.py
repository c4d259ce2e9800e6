"""# redo_pipeline: one batch of archived logs, from redo to published tables

Started by ``redo_archive_discovery`` with ``{"batch_id": ...}``, or by hand:

* **re-run** a batch: ``{"batch_id": "b-000015-000016"}``;
* **backfill** a sequence range: ``{"seq_from": 15, "seq_to": 20}`` (thread 1), or
  ``{"threads": [1, 2], "seq_from": 15, "seq_to": 20}``. The range must start at a batch boundary:
  the batch that ended just before ``seq_from`` is its previous batch, and the open transactions
  saved there are carried in.

Tasks (docs/pipeline-contract.md):

1. **resolve_batch** turns the params into a batch of the log catalog, writes its ``manifest.json``,
   marks it running (refused while the batch it carries state from is not validated), and returns
   its folder;
2. **stages**: ``spark-submit`` of ``spark_jobs/batch.py --batch-dir DIR``, which runs decode,
   assemble, validate and publish in order in one Spark application (one JVM start per batch, not
   four; each stage is still its own module, ``spark_jobs/<stage>.py``, runnable by hand), on
   connection ``spark_default`` with the Spark settings of ``include/spark/spark-defaults.conf``
   (read by ``spark-submit`` when the task runs). A failed validation stops the batch before
   publishing. Publishing updates the changelog and mirror assets. The stage that fails writes
   ``report/failure.json`` in the batch folder; the task is retried only when a retry can help
   (exit 1), never on an error in the input, an invalid batch or a refused publish (exit 4, 2, 3:
   ``common/stages.py``); a retry runs the batch from decode again (every stage replaces its own
   output, publishing is idempotent). ``resolve_batch`` is not retried on a bad range or batch, nor
   any task on a wrong setting: what no retry can fix fails at once (``common/retries.py``);
3. **report** (runs whatever happened upstream) marks the batch published, validated or failed from
   the markers and ``report/failure.json`` in its folder, returns the failure (stage, error,
   position) and the paths of the reports that exist, rewrites the operations report across batches
   (``<work>/reports/index.html``), logs a warning per transaction the batch carries out that has been
   open longer than ``REDOTRAIL_WARN_LONG_TRANS`` (default 1h), and fails the run unless the batch
   was published, with the links to its Data Docs and the operations report in the error.

One run at a time: each batch starts from the open transactions of the one before.
"""

from __future__ import annotations

from typing import Any

from airflow.sdk import Param, TriggerRule, dag, task
from common import DEFAULT_ARGS, SPARK_JOBS, START_DATE
from common.assets import PUBLISHED
from common.retries import fail_at_once_when_final
from common.stages import SparkStageOperator


def _resolved(key: str) -> str:
    """A template for one value returned by ``resolve_batch``."""
    return "{{ ti.xcom_pull(task_ids='resolve_batch', key='" + key + "') }}"


def _spark_batch() -> SparkStageOperator:
    return SparkStageOperator(
        task_id="stages",
        application=str(SPARK_JOBS / "batch.py"),
        application_args=[
            "--batch-dir",
            _resolved("batch_dir"),
            "--warehouse",
            _resolved("warehouse"),
            "--format",
            _resolved("table_format"),
        ],  # fmt: skip
        conn_id="spark_default",
        properties_file=_resolved("spark_properties"),
        name=f"redotrail-batch-{_resolved('batch_id')}",
        retries=2,
        outlets=PUBLISHED,
        doc_md=STAGES_DOC,
    )


STAGES_DOC = """`spark-submit spark_jobs/batch.py --batch-dir DIR`: decode, assemble, validate and publish in one
Spark application, each stage printing `batch <id>: <stage> done in N s`. A failed stage writes
`report/failure.json` and prints its error as the last line of this log. Exit 1 is retried (twice, a
minute apart); 2 (rules broken), 3 (publish refused), 4 (an error in the input) and 5 (a pinned jar
missing) are not: the **report** task's log names the stage, its error and the links to the batch's
Data Docs and the operations report."""


PARAMS = {
    "batch_id": Param(
        None,
        type=["null", "string"],
        pattern="^[A-Za-z0-9_.-]+$",
        title="Batch id",
        description="Run this batch of the log catalog again (the discovery DAG sets it). "
        "Leave empty for a backfill by sequence range.",
    ),
    "threads": Param(
        None,
        type=["null", "array"],
        items={"type": "integer", "minimum": 1},
        title="Redo threads",
        description="Backfill: the threads of the range (default [1]; RAC: every thread to re-process).",
    ),
    "seq_from": Param(
        None,
        type=["null", "integer"],
        minimum=1,
        title="First sequence",
        description="Backfill: first log sequence of the range (a batch boundary).",
    ),
    "seq_to": Param(
        None,
        type=["null", "integer"],
        minimum=1,
        title="Last sequence",
        description="Backfill: last log sequence of the range (inclusive, already planned).",
    ),
}


@dag(
    dag_id="redo_pipeline",
    schedule=None,
    start_date=START_DATE,
    catchup=False,
    max_active_runs=1,
    default_args=DEFAULT_ARGS,
    params=PARAMS,
    tags=["redotrail", "pipeline", "spark"],
    doc_md=__doc__,
)
def redo_pipeline() -> None:
    @task(multiple_outputs=True)
    @fail_at_once_when_final
    def resolve_batch(params: dict[str, Any] | None = None) -> dict[str, Any]:
        """Params -> a running batch: its id, folder, manifest and the publish settings.

        A bad range or batch (a ``RedoError`` other than a ``StorageError``) fails without retries."""
        from redo_lib.discovery import Settings
        from redo_lib.discovery import resolve_batch as resolve

        p = params or {}
        return resolve(
            Settings.from_env(),
            batch_id=p.get("batch_id"),
            threads=p.get("threads"),
            seq_from=p.get("seq_from"),
            seq_to=p.get("seq_to"),
        )

    @task(trigger_rule=TriggerRule.ALL_DONE, retries=0)
    @fail_at_once_when_final
    def report(ti: Any = None) -> dict[str, Any]:
        """Mark the batch's status from its folder; fail unless it was published, naming the stage that
        failed and its error (report/failure.json)."""
        import json
        import logging

        from redo_lib.discovery import Settings, report_batch

        batch_id = ti.xcom_pull(task_ids="resolve_batch", key="batch_id") if ti is not None else None
        if not batch_id:
            raise RuntimeError("no batch was resolved: see the resolve_batch task")
        result = report_batch(Settings.from_env(), batch_id)
        print(json.dumps(result, indent=2))
        log = logging.getLogger("redotrail.report")
        for warning in result["long_transactions"]:
            log.warning("batch %s: %s", batch_id, warning)  # GoldenGate's WARNLONGTRANS
        links = {"Data Docs": result["data_docs"], "operations report": result["operations_report"]}
        for name, link in links.items():
            log.info("batch %s: %s: %s", batch_id, name, link or "none")
        if result.get("operations_report_error"):
            log.warning(
                "batch %s: operations report not written: %s", batch_id, result["operations_report_error"]
            )
        if result["status"] != "published":
            reports = "; ".join(f"{name}: {link}" for name, link in links.items() if link)
            raise RuntimeError(
                f"batch {batch_id} is {result['status']}: {result['message']} ({reports or 'no report'})"
            )
        return result

    resolve_batch() >> _spark_batch() >> report()


redo_pipeline()
