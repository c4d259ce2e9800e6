"""DAG integrity (style.md §6.7): every file under dags/ parses alone, holds one DAG named after the
file, is tagged and retried, has typed and documented params, and does no work at parse time (no
Connections, no Variables, no pyspark / great_expectations / boto3 / redo_lib imports, < 1 s)."""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

pytest_plugins = ["tests.dags.airflow_home"]

REPO = Path(__file__).resolve().parents[2]
DAGS = REPO / "dags"
DAG_FILES = sorted(DAGS.glob("*.py"))

PUBLISHING = {"redo_pipeline"}  # DAGs with tasks that have outlets: one run at a time
HEAVY = ("pyspark", "great_expectations", "boto3", "botocore", "redo_lib")

_PARSE_PROBE = """
import json, sys, time
from pathlib import Path
import airflow.sdk  # the Airflow import itself is not the file's parse time
from airflow.dag_processing.dagbag import BundleDagBag
from airflow.providers.apache.spark.operators.spark_submit import SparkSubmitOperator
from airflow.providers.standard.operators.trigger_dagrun import TriggerDagRunOperator
start = time.perf_counter()
bag = BundleDagBag(dag_folder=sys.argv[1], bundle_path=Path(sys.argv[2]), bundle_name="dags-folder")
seconds = time.perf_counter() - start
heavy = [m for m in sys.argv[3].split(",") if m in sys.modules]
print(json.dumps({"seconds": seconds, "heavy": heavy, "dags": list(bag.dags), "errors": list(bag.import_errors)}))
"""


def _parse_counting_lookups(parse_dag: Callable[[Path], Any], path: Path) -> tuple[Any, dict[str, int]]:
    """Parse one file while counting Connection and Variable lookups (each returns None)."""
    from airflow.sdk import Variable
    from airflow.sdk.bases.hook import BaseHook
    from airflow.sdk.definitions.connection import Connection

    calls = {"BaseHook.get_connection": 0, "Connection.get": 0, "Variable.get": 0}

    def counting(name: str) -> Any:
        def lookup(*args: Any, **kwargs: Any) -> None:
            calls[name] += 1

        return lookup

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(BaseHook, "get_connection", counting("BaseHook.get_connection"))
        mp.setattr(Connection, "get", counting("Connection.get"))
        mp.setattr(Variable, "get", counting("Variable.get"))
        return parse_dag(path), calls


@pytest.fixture(scope="module")
def parsed(parse_dag: Callable[[Path], Any]) -> dict[str, tuple[Any, dict[str, int]]]:
    """Each DAG file parsed alone, with the Connection and Variable lookups made while parsing."""
    return {path.stem: _parse_counting_lookups(parse_dag, path) for path in DAG_FILES}


def _dag(parsed: dict[str, tuple[Any, dict[str, int]]], stem: str) -> Any:
    bag = parsed[stem][0]
    return bag.dags[stem]


def test_there_are_dag_files() -> None:
    assert [p.stem for p in DAG_FILES] == ["redo_archive_discovery", "redo_pipeline"]


@pytest.mark.parametrize("path", DAG_FILES, ids=lambda p: p.stem)
def test_the_file_parses_into_one_dag_named_after_it(parsed: dict[str, Any], path: Path) -> None:
    bag, calls = parsed[path.stem]
    assert bag.import_errors == {}, bag.import_errors
    assert list(bag.dags) == [path.stem]
    assert calls == {"BaseHook.get_connection": 0, "Connection.get": 0, "Variable.get": 0}


@pytest.mark.parametrize("path", DAG_FILES, ids=lambda p: p.stem)
def test_tags_owner_retries_and_docs(parsed: dict[str, Any], path: Path) -> None:
    dag = _dag(parsed, path.stem)
    assert dag.tags and "redotrail" in dag.tags, "every DAG is tagged 'redotrail'"
    assert dag.default_args.get("owner") == "redotrail", "owner is set in default_args"
    assert (dag.default_args.get("retries") or 0) >= 1, "retries are set in default_args"
    assert dag.doc_md == ast.get_docstring(ast.parse(path.read_text()), clean=False)
    assert dag.catchup is False
    # every task has docs the UI renders (Task Docs): a @task's docstring, or doc_md given
    undocumented = [t.task_id for t in dag.tasks if not (t.doc_md or "").strip()]
    assert undocumented == [], f"tasks without doc_md: {undocumented}"


@pytest.mark.parametrize("path", DAG_FILES, ids=lambda p: p.stem)
def test_params_are_typed_and_documented(parsed: dict[str, Any], path: Path) -> None:
    dag = _dag(parsed, path.stem)
    for name in dag.params:
        param = dag.params.get_param(name)
        assert "type" in param.schema, f"param {name} has no type"
        assert param.schema.get("title") and param.description, (
            f"param {name} needs a title and a description"
        )


@pytest.mark.parametrize("path", DAG_FILES, ids=lambda p: p.stem)
def test_dags_that_publish_run_one_at_a_time(parsed: dict[str, Any], path: Path) -> None:
    dag = _dag(parsed, path.stem)
    publishes = any(getattr(t, "outlets", None) for t in dag.tasks)
    assert publishes == (path.stem in PUBLISHING)
    if publishes or path.stem == "redo_archive_discovery":
        assert dag.max_active_runs == 1


@pytest.mark.parametrize("path", DAG_FILES, ids=lambda p: p.stem)
def test_parsing_is_cheap_and_imports_nothing_heavy(airflow_env: dict[str, str], path: Path) -> None:
    env = {**os.environ, **airflow_env}
    run = subprocess.run(
        [sys.executable, "-c", _PARSE_PROBE, str(path), str(DAGS), ",".join(HEAVY)],
        capture_output=True, text=True, env=env, cwd=REPO, timeout=120, check=False,
    )  # fmt: skip
    assert run.returncode == 0, run.stderr[-2000:]
    result = json.loads(run.stdout.strip().splitlines()[-1])
    assert (result["dags"], result["errors"]) == ([path.stem], [])
    assert result["heavy"] == [], f"parsing {path.name} imported {result['heavy']}"
    assert result["seconds"] < 1.0, f"parsing {path.name} took {result['seconds']:.2f} s"


def test_common_is_not_scanned_for_dags() -> None:
    patterns = [line.strip() for line in (DAGS / ".airflowignore").read_text().splitlines()]
    assert "common/" in patterns
