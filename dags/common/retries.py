"""One retry rule for every ``@task`` of both DAGs: what no retry can fix fails the task at once.

The rule is redo_lib's (:func:`redo_lib.errors.retry_can_help`): a ``RedoError`` other than a
``StorageError`` (a wrong setting, two databases in the archive without ``REDOTRAIL_DBID``, a gap,
a refused range or batch) fails the same way on every retry, so :func:`fail_at_once_when_final`
turns it into ``AirflowFailException`` (failed, no retry); a ``StorageError`` (S3 or the catalog
not answering) and any other exception raise as they are, and the task's ``retries`` apply. The
Spark stage task follows the same rule through the stages' exit codes (``common/stages.py``).

redo_lib is imported when a task runs, never when the DAG file is parsed.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, TypeVar

from airflow.sdk.exceptions import AirflowException, AirflowFailException

F = TypeVar("F", bound=Callable[..., Any])


def fail_at_once_when_final(fn: F) -> F:
    """``fn`` (a task's callable, under ``@task``), raising ``AirflowFailException`` in place of an
    error no retry can fix, with the error's text and why it is not retried."""

    @functools.wraps(fn)  # the signature and docstring stay fn's: @task reads both
    def run(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except AirflowException:  # Airflow's own (AirflowFailException included) stay as they are
            raise
        except Exception as exc:
            from redo_lib.errors import retry_can_help

            if retry_can_help(exc):
                raise
            kind = getattr(exc, "kind", type(exc).__name__)
            raise AirflowFailException(f"{exc} [{kind} error: not retried, a retry cannot fix it]") from exc

    run.fails_at_once_when_final = True  # type: ignore[attr-defined]  # checked by tests/dags
    return run  # type: ignore[return-value]
