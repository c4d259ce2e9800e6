"""The Spark stage tasks: ``spark-submit`` of one ``spark_jobs/<stage>.py``, retried only when a retry
can help.

A stage exits 0 on success, 2 when validation found broken rules, 3 when publishing was refused, 4 on
an error in its input (a ``RedoError`` other than a ``StorageError``: a checksum mismatch fails the
same way every time), 5 when a pinned jar is missing from the JVM (run ./redotrail setup) and 1 on
anything else (docs/pipeline-contract.md); 2 to 5 come with ``<batch>/report/failure.json``.
:class:`SparkStageOperator` fails the task at once on 2, 3, 4 and 5
(``AirflowFailException``: no retry); any other failure (exit 1, a killed driver, a lost executor,
S3 errors) raises as before, so the task's ``retries`` apply.

Imports nothing from redo_lib or spark_jobs (parsed with every DAG file).
"""

from __future__ import annotations

import re
from typing import Any

from airflow.providers.apache.spark.operators.spark_submit import SparkSubmitOperator
from airflow.sdk.exceptions import AirflowException, AirflowFailException

# the exit codes of spark_jobs/ that a retry cannot change (spark_jobs/common.py, validate, publish)
NOT_RETRIED = {
    2: "batch invalid",
    3: "publish refused",
    4: "error in the input",
    5: "a pinned jar is missing",
}
# SparkSubmitHook.submit: "Cannot execute: <command>. Error code is: <returncode>.<log tail>"
_ERROR_CODE = re.compile(r"Error code is: (-?\d+)\.")


def exit_code(error: BaseException, hook: Any = None) -> int | None:
    """The exit code of ``spark-submit`` that made the hook raise ``error``, or None if unknown."""
    found = _ERROR_CODE.search(str(error))
    if found:
        return int(found.group(1))
    code = getattr(getattr(hook, "_submit_sp", None), "returncode", None)
    return code if isinstance(code, int) and code != 0 else None


class SparkStageOperator(SparkSubmitOperator):
    """``SparkSubmitOperator`` whose task fails without retries when the stage exited 2, 3 or 4."""

    def execute(self, context: Any) -> Any:
        try:
            return super().execute(context)
        except AirflowFailException:
            raise
        except AirflowException as exc:
            code = exit_code(exc, self._hook)
            if code not in NOT_RETRIED:
                raise
            raise AirflowFailException(
                f"{self.task_id} exited {code} ({NOT_RETRIED[code]}): not retried; the batch folder's "
                "report/failure.json says why"
            ) from exc
