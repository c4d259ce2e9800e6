"""The task graphs as designed, the Spark stages' command lines (docs/pipeline-contract.md), and the
task bodies run as plain functions against a temporary log catalog (no scheduler, no Spark)."""

from __future__ import annotations

import copy
import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import jinja2
import pytest

from redo_lib.storage.catalog import BatchStatus, LogCatalog, LogEntry

pytest_plugins = ["tests.dags.airflow_home", "tests.fixtures.s3"]

REPO = Path(__file__).resolve().parents[2]
DAGS = REPO / "dags"
RESOLVED = {
    "batch_id": "b-000015-000016",
    "batch_dir": "/data/work/batches/b-000015-000016",
    "warehouse": "s3://lake/warehouse",
    "table_format": "delta",
    "spark_properties": "/repo/include/spark/spark-defaults.conf",
}


@pytest.fixture(scope="module")
def discovery_dag(parse_dag: Callable[[Path], Any]) -> Any:
    return parse_dag(DAGS / "redo_archive_discovery.py").dags["redo_archive_discovery"]


@pytest.fixture(scope="module")
def pipeline_dag(parse_dag: Callable[[Path], Any]) -> Any:
    return parse_dag(DAGS / "redo_pipeline.py").dags["redo_pipeline"]


def edges(dag: Any) -> set[tuple[str, str]]:
    return {(up, t.task_id) for t in dag.tasks for up in t.upstream_task_ids}


def render(template: str) -> str:
    """Render a task template with a ``ti`` whose ``xcom_pull`` returns what resolve_batch returns."""

    class Ti:
        def xcom_pull(self, task_ids: str, key: str) -> Any:
            assert task_ids == "resolve_batch"
            return RESOLVED[key]

    return jinja2.Environment(undefined=jinja2.StrictUndefined).from_string(template).render(ti=Ti())


def test_discovery_graph(discovery_dag: Any) -> None:
    assert edges(discovery_dag) == {("discover", "plan"), ("plan", "trigger_pipeline")}
    assert discovery_dag.schedule == "*/5 * * * *"
    trigger = discovery_dag.get_task("trigger_pipeline")
    assert trigger.partial_kwargs["trigger_dag_id"] == "redo_pipeline"
    assert trigger.partial_kwargs["skip_when_already_exists"] is True
    assert trigger.partial_kwargs["max_active_tis_per_dagrun"] == 1


def test_pipeline_graph(pipeline_dag: Any) -> None:
    assert edges(pipeline_dag) == {("resolve_batch", "stages"), ("stages", "report")}
    assert pipeline_dag.schedule is None
    report = pipeline_dag.get_task("report")
    assert (report.trigger_rule, report.retries) == ("all_done", 0)


def test_the_stages_are_one_spark_submit(pipeline_dag: Any) -> None:
    from airflow.providers.apache.spark.operators.spark_submit import SparkSubmitOperator

    op = pipeline_dag.get_task("stages")
    assert isinstance(op, SparkSubmitOperator)
    assert type(op).__name__ == "SparkStageOperator"  # not retried on exit 2, 3, 4, 5
    assert op.application == str(REPO / "spark_jobs" / "batch.py")
    assert op._conn_id == "spark_default"
    assert op.retries >= 1
    assert [render(a) for a in op.application_args] == [
        "--batch-dir", RESOLVED["batch_dir"], "--warehouse", "s3://lake/warehouse", "--format", "delta",
    ]  # fmt: skip
    assert render(op.properties_file) == RESOLVED["spark_properties"]  # read by spark-submit at run time
    assert op.conf is None  # nothing read at parse time
    assert render(op.name) == "redotrail-batch-b-000015-000016"


def test_publishing_updates_the_table_assets(pipeline_dag: Any) -> None:
    outlets = {(a.name, a.uri) for a in pipeline_dag.get_task("stages").outlets}
    assert outlets == {
        ("redotrail.changelog", "x-redotrail://lakehouse/changelog"),
        ("redotrail.mirrors", "x-redotrail://lakehouse/mirrors"),
    }
    assert all(not pipeline_dag.get_task(t).outlets for t in ("resolve_batch", "report"))


def test_batch_job_hands_each_stage_its_own_options() -> None:
    from spark_jobs.batch import parse_args

    args = parse_args([
        "--batch-dir", "s3://b/batches/b-1", "--warehouse", "s3://lake/wh", "--format", "delta",
        "--skip-corrupt", "--range-mb", "8", "--reports-url", "s3://r/", "--catalog-property", "a=1",
        "--catalog-property", "b=2", "--stages", "publish,decode",
    ])  # fmt: skip
    head = ["--batch-dir", "s3://b/batches/b-1"]
    assert args.stages == ("decode", "publish")  # pipeline order, whatever order was given
    assert args.stage_argv == {
        "decode": [*head, "--range-mb", "8", "--skip-corrupt"],
        "assemble": head,
        "validate": [*head, "--reports-url", "s3://r/"],
        "publish": [*head, "--warehouse", "s3://lake/wh", "--format", "delta",
                    "--catalog-property", "a=1", "--catalog-property", "b=2"],
    }  # fmt: skip
    for stage, module in (("decode", "decode"), ("validate", "validate"), ("publish", "publish")):
        parsed = __import__(f"spark_jobs.{module}", fromlist=["parse_args"]).parse_args(
            args.stage_argv[stage]
        )
        assert parsed.batch_dir == "s3://b/batches/b-1"  # each stage's own parser accepts its part
    with pytest.raises(SystemExit):
        parse_args(["--batch-dir", "x", "--stages", "decode,publsh"])


def test_pipeline_params_accept_a_batch_id_or_a_backfill_range(pipeline_dag: Any) -> None:
    schema = {name: pipeline_dag.params.get_param(name).schema for name in pipeline_dag.params}
    assert schema["batch_id"]["type"] == ["null", "string"]
    assert schema["threads"]["type"] == ["null", "array"] and schema["threads"]["items"]["type"] == "integer"
    assert schema["seq_from"]["type"] == schema["seq_to"]["type"] == ["null", "integer"]
    params = copy.deepcopy(pipeline_dag.params)
    params.update({"threads": [1, 2], "seq_from": 15, "seq_to": 20})
    assert params.validate() == {"batch_id": None, "threads": [1, 2], "seq_from": 15, "seq_to": 20}


def test_pipeline_params_reject_a_bad_batch_id(pipeline_dag: Any) -> None:
    from airflow.sdk.exceptions import ParamValidationError

    params = copy.deepcopy(pipeline_dag.params)
    with pytest.raises(ParamValidationError):
        params.update({"batch_id": "../etc"})
        params.validate()


# ---- the task bodies, called as functions -------------------------------------------------------


@pytest.fixture
def data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """REDOTRAIL_* settings pointing at a temporary data folder with a catalog of two ready logs."""
    monkeypatch.setenv("REDOTRAIL_DATA_DIR", str(tmp_path))
    monkeypatch.setenv("REDOTRAIL_SPARK_DEFAULTS", str(tmp_path / "spark-defaults.conf"))
    for var in (
        "REDOTRAIL_WORK_DIR",
        "REDOTRAIL_CATALOG_DB",
        "REDOTRAIL_WAREHOUSE",
        "REDOTRAIL_MAX_LOGS_PER_BATCH",
    ):
        monkeypatch.delenv(var, raising=False)
    (tmp_path / "spark-defaults.conf").write_text("spark.ui.enabled false\n")
    with LogCatalog(tmp_path / "catalog" / "logs.sqlite") as catalog:
        for seq in (15, 16):
            catalog.put_log(
                LogEntry(
                    location=f"s3://arch/archive/1_{seq}_7.arc",
                    size=1024,
                    etag=f"e{seq}",
                    first_seen="t",
                    last_seen="t",
                    thread=1,
                    sequence=seq,
                    resetlogs_id=7,
                    first_scn=seq * 10,
                    next_scn=seq * 10 + 10,
                    block_size=512,
                    nab=2,
                    ready=True,
                )  # fmt: skip
            )
    yield tmp_path


class RunsTi:
    """The ``ti`` of the plan task: ``get_dr_count`` over the pipeline runs that exist."""

    def __init__(self, *run_ids: str) -> None:
        self.run_ids = set(run_ids)

    def get_dr_count(self, dag_id: str, run_ids: list[str]) -> int:
        assert dag_id == "redo_pipeline"
        return len(self.run_ids.intersection(run_ids))


def test_plan_returns_one_trigger_per_pending_batch(discovery_dag: Any, data_dir: Path) -> None:
    plan = discovery_dag.get_task("plan").python_callable
    found = {"ready": ["a", "b"], "waiting": [], "gaps": []}
    expected = [{"trigger_run_id": "batch__b-000015-000016", "conf": {"batch_id": "b-000015-000016"}}]
    assert plan(found, ti=RunsTi()) == expected
    manifest = json.loads((data_dir / "work/batches/b-000015-000016/manifest.json").read_text())
    assert [log["sequence"] for log in manifest["logs"]] == [15, 16]


def test_plan_leaves_out_a_batch_whose_run_exists(discovery_dag: Any, data_dir: Path) -> None:
    """Still pending until its run starts, but not triggered again: a trigger skipped because the run
    exists logs 'XCom not found ... trigger_run_id' (its extra link)."""
    plan = discovery_dag.get_task("plan").python_callable
    found = {"ready": [], "waiting": [], "gaps": []}
    assert plan(found, ti=RunsTi("batch__b-000015-000016")) == []
    assert len(plan(found, ti=RunsTi("batch__b-000013-000014"))) == 1


class FakeTi:
    def __init__(self, batch_id: str | None) -> None:
        self.batch_id = batch_id

    def xcom_pull(self, task_ids: str, key: str) -> Any:
        assert (task_ids, key) == ("resolve_batch", "batch_id")
        return self.batch_id


def test_resolve_then_report_a_published_batch(discovery_dag: Any, pipeline_dag: Any, data_dir: Path) -> None:
    discovery_dag.get_task("plan").python_callable({"ready": [], "waiting": [], "gaps": []})
    resolved = pipeline_dag.get_task("resolve_batch").python_callable(
        params={"batch_id": "b-000015-000016", "threads": None, "seq_from": None, "seq_to": None}
    )
    batch_dir = data_dir / "work" / "batches" / "b-000015-000016"
    assert resolved["batch_dir"] == str(batch_dir)
    assert resolved["spark_properties"] == str(data_dir / "spark-defaults.conf")
    for marker in ("VALIDATED", "PUBLISHED"):
        (batch_dir / marker).write_text("{}")
    (batch_dir / "counts.json").write_text("{}")
    result = pipeline_dag.get_task("report").python_callable(ti=FakeTi("b-000015-000016"))
    assert (result["status"], result["counts"]) == ("published", str(batch_dir / "counts.json"))
    assert (result["summary"], result["failure"]) == (None, None)  # paths that do not exist are None


def test_report_fails_the_run_of_a_batch_that_was_not_published(
    discovery_dag: Any, pipeline_dag: Any, data_dir: Path
) -> None:
    discovery_dag.get_task("plan").python_callable({"ready": [], "waiting": [], "gaps": []})
    pipeline_dag.get_task("resolve_batch").python_callable(params={"seq_from": 15, "seq_to": 16})
    with pytest.raises(RuntimeError, match="batch b-000015-000016 is failed"):
        pipeline_dag.get_task("report").python_callable(ti=FakeTi("b-000015-000016"))
    with LogCatalog(data_dir / "catalog" / "logs.sqlite") as catalog:
        assert catalog.get_batch("b-000015-000016").status is BatchStatus.FAILED  # type: ignore[union-attr]
    with pytest.raises(RuntimeError, match="no batch was resolved"):
        pipeline_dag.get_task("report").python_callable(ti=FakeTi(None))


def test_report_names_the_stage_and_error_of_a_failure_before_validation(
    discovery_dag: Any, pipeline_dag: Any, data_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from redo_lib.errors import ChecksumError, Position
    from spark_jobs.common import EXIT_INPUT_ERROR, run_stage

    discovery_dag.get_task("plan").python_callable({"ready": [], "waiting": [], "gaps": []})
    batch_dir = data_dir / "work" / "batches" / "b-000015-000016"
    (batch_dir / "report").mkdir()
    (batch_dir / "report" / "failure.json").write_text('{"stage": "decode", "error": "of an earlier run"}')
    pipeline_dag.get_task("resolve_batch").python_callable(params={"batch_id": "b-000015-000016"})
    assert not (batch_dir / "report" / "failure.json").exists()  # removed like the markers

    def decode() -> int:
        where = Position(file="1_15_7.arc", sequence=15, block=32, offset=14)
        raise ChecksumError("checksum mismatch: 0x1234 stored, 0x4321 computed", position=where)

    assert run_stage("decode", batch_dir, decode) == EXIT_INPUT_ERROR
    with pytest.raises(RuntimeError) as failed:
        pipeline_dag.get_task("report").python_callable(ti=FakeTi("b-000015-000016"))
    error = "1_15_7.arc: RBA 0x00000f.00000020.000e (block 32, offset 14): checksum mismatch"
    assert str(failed.value).startswith(f"batch b-000015-000016 is failed: decode failed: {error}")
    assert "summary.json" not in str(failed.value)
    # the failed run's error links the operations report across batches, rewritten by the task
    operations = data_dir / "work" / "reports" / "index.html"
    assert f"operations report: {operations}" in str(failed.value) and operations.is_file()
    assert "b-000015-000016" in operations.read_text() and error in operations.read_text()
    printed = capsys.readouterr()
    assert f"decode b-000015-000016 failed: {error}" in printed.err  # the stage's one line
    report = json.loads(printed.out[printed.out.index("{") :])  # what the report task printed
    assert (report["failure"]["stage"], report["failure"]["published"]) == ("decode", "nothing")
    assert report["counts"] is None and report["summary"] is None
    with LogCatalog(data_dir / "catalog" / "logs.sqlite") as catalog:
        batch = catalog.get_batch("b-000015-000016")
    assert batch is not None and batch.status is BatchStatus.FAILED and error in (batch.message or "")


def test_finish_batch_reports_the_failure_and_only_paths_that_exist(data_dir: Path) -> None:
    from redo_lib.discovery import Settings, plan_pending, report_batch
    from redo_lib.errors import ChecksumError, Position
    from spark_jobs.common import run_stage

    settings = Settings.from_env()
    plan_pending(settings)
    batch_dir = data_dir / "work" / "batches" / "b-000015-000016"

    def decode() -> int:
        raise ChecksumError("checksum mismatch", position=Position(file="1_15_7.arc", block=32, offset=14))

    run_stage("decode", batch_dir, decode)
    result = report_batch(settings, "b-000015-000016")
    assert result["status"] == "failed"
    assert result["failure"] == {
        "stage": "decode",
        "kind": "checksum",
        "error": "1_15_7.arc: RBA 0x000000.00000020.000e (block 32, offset 14): checksum mismatch",
        "position": {"file": "1_15_7.arc", "block": 32, "offset": 14},
        "retryable": False,
        "published": "nothing",
    }
    assert result["manifest"] == str(batch_dir / "manifest.json")
    assert result["failure_report"] == str(batch_dir / "report" / "failure.json")
    assert (result["counts"], result["summary"], result["data_docs"]) == (None, None, None)


def test_a_failed_validation_points_at_its_summary(data_dir: Path) -> None:
    from redo_lib.discovery import Settings, plan_pending, report_batch
    from spark_jobs.common import report_failure

    settings = Settings.from_env()
    plan_pending(settings)
    batch_dir = data_dir / "work" / "batches" / "b-000015-000016"
    (batch_dir / "report").mkdir()
    (batch_dir / "report" / "summary.json").write_text("{}")
    code = report_failure(
        batch_dir,
        "validate",
        kind="invalid",
        message="1 rules failed (4 no_gaps)",
        retryable=False,
        exit_code=2,
    )
    assert code == 2
    result = report_batch(settings, "b-000015-000016")
    assert result["message"] == "validate failed: 1 rules failed (4 no_gaps): see report/summary.json"
    assert result["summary"] == str(batch_dir / "report" / "summary.json")


def test_resolve_batch_fails_without_retry_on_a_range_off_the_batch_boundaries(
    discovery_dag: Any, pipeline_dag: Any, data_dir: Path
) -> None:
    from airflow.sdk.exceptions import AirflowFailException

    discovery_dag.get_task("plan").python_callable({"ready": [], "waiting": [], "gaps": []})
    resolve = pipeline_dag.get_task("resolve_batch").python_callable
    with pytest.raises(AirflowFailException, match=r"batch boundary \(15 or 17\)"):
        resolve(params={"seq_from": 16, "seq_to": 16})
    with pytest.raises(AirflowFailException, match="no batch 'b-9' in the log catalog"):
        resolve(params={"batch_id": "b-9"})


# ---- one retry rule for every task: no retry when a retry cannot help --------------------------


@pytest.fixture
def two_databases(s3_endpoint: str, data_dir: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    """An archive on S3 (moto_server) holding the logs of two databases, REDOTRAIL_DBID not set."""
    import uuid

    from redo_lib.storage.s3 import s3_client
    from tests.unit.redo_lib.test_discovery import FOREIGN, RID, archived

    bucket = f"redo-{uuid.uuid4().hex[:12]}"
    s3 = s3_client()
    s3.create_bucket(Bucket=bucket)
    for seq in (15, 16):
        s3.put_object(Bucket=bucket, Key=f"archive/1_{seq}_{RID}.arc", Body=archived(seq))
    foreign = archived(1, dbid=FOREIGN, db_name="FOREIGN", rid=777, resetlogs_scn=5)
    s3.put_object(Bucket=bucket, Key="archive/1_1_777.arc", Body=foreign)
    monkeypatch.setenv("REDOTRAIL_ARCHIVE_URL", f"s3://{bucket}/archive/")
    monkeypatch.setenv("REDOTRAIL_CATALOG_DB", str(data_dir / "two.sqlite"))
    monkeypatch.delenv("REDOTRAIL_DBID", raising=False)
    return bucket


def test_discovery_and_planning_fail_at_once_on_two_databases(
    discovery_dag: Any, two_databases: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Only REDOTRAIL_DBID fixes it: no retry, a minute apart, of the plan task (issue 37, item 4)."""
    from airflow.sdk.exceptions import AirflowFailException

    from tests.unit.redo_lib.test_discovery import FREE

    discover = discovery_dag.get_task("discover").python_callable
    plan = discovery_dag.get_task("plan").python_callable
    found = discover()
    assert "set REDOTRAIL_DBID" in found["gaps"][0]
    with pytest.raises(AirflowFailException, match="holds logs of 2 databases .*set REDOTRAIL_DBID"):
        plan(found, ti=RunsTi())
    monkeypatch.setenv("REDOTRAIL_DBID", str(FREE))  # the operator sets it: learned by discovery
    assert len(plan(discover(), ti=RunsTi())) == 1
    monkeypatch.setenv("REDOTRAIL_DBID", "123")  # another DBID than the catalog learned
    with pytest.raises(AirflowFailException, match="REDOTRAIL_DBID is 123, but this log catalog captures"):
        discover()


@pytest.mark.parametrize(
    ("variable", "value", "message"),
    [
        ("REDOTRAIL_MAX_LOGS_PER_BATCH", "0", "REDOTRAIL_MAX_LOGS_PER_BATCH must be a positive integer"),
        ("REDOTRAIL_DBID", "FREE", "REDOTRAIL_DBID must be a DBID"),
        ("REDOTRAIL_ARCHIVE_URL", "/archive/", "REDOTRAIL_ARCHIVE_URL must be an s3://bucket/prefix/ URL"),
    ],
    ids=["number", "dbid", "archive-url"],
)
def test_every_task_fails_at_once_on_a_bad_setting(
    discovery_dag: Any, pipeline_dag: Any, data_dir: Path, monkeypatch: pytest.MonkeyPatch,
    variable: str, value: str, message: str,
) -> None:  # fmt: skip
    from airflow.sdk.exceptions import AirflowFailException

    monkeypatch.setenv(variable, value)
    calls = {
        "discover": lambda fn: fn(),
        "plan": lambda fn: fn({"ready": [], "waiting": [], "gaps": []}, ti=RunsTi()),
        "resolve_batch": lambda fn: fn(params={"batch_id": "b-000015-000016"}),
        "report": lambda fn: fn(ti=FakeTi("b-000015-000016")),
    }
    if variable == "REDOTRAIL_ARCHIVE_URL":  # read by discovery only
        calls = {"discover": calls["discover"]}
    for task_id, call in calls.items():
        dag = discovery_dag if task_id in discovery_dag.task_dict else pipeline_dag
        with pytest.raises(AirflowFailException, match=message):
            call(dag.get_task(task_id).python_callable)


def test_an_unreachable_archive_is_left_to_the_retries(
    discovery_dag: Any, two_databases: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """S3 not answering (here: a bucket that does not exist) raises as it is: the task's retries apply."""
    from redo_lib.errors import StorageError

    monkeypatch.setenv("REDOTRAIL_ARCHIVE_URL", "s3://no-such-bucket-here/archive/")
    with pytest.raises(StorageError, match="listing failed"):  # not AirflowFailException
        discovery_dag.get_task("discover").python_callable()


def test_every_python_task_of_both_dags_follows_the_retry_rule(discovery_dag: Any, pipeline_dag: Any) -> None:
    """dags/common/retries.py around each @task (the Spark stage task has its exit codes)."""
    tasks = [t for dag in (discovery_dag, pipeline_dag) for t in dag.tasks if hasattr(t, "python_callable")]
    assert {t.task_id for t in tasks} == {"discover", "plan", "resolve_batch", "report"}
    assert [
        t.task_id for t in tasks if not getattr(t.python_callable, "fails_at_once_when_final", False)
    ] == []


# ---- the discover task's log: every log not planned, with its reason ---------------------------


def test_the_discover_task_logs_each_log_it_does_not_plan_with_its_reason(
    discovery_dag: Any, data_dir: Path, s3_endpoint: str, monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture, capsys: pytest.CaptureFixture[str],
) -> None:  # fmt: skip
    """Not only counts ("3 ready, 0 waiting, gaps: []"): one line per log with its reason (issue 37,
    item 5); the plan task's line counts every kind."""
    import logging
    import uuid

    from redo_lib.storage.s3 import s3_client
    from tests.fixtures.archive import DBID, put_troubled_archive

    bucket = f"redo-{uuid.uuid4().hex[:12]}"
    s3_client().create_bucket(Bucket=bucket)
    where = put_troubled_archive(s3_client(), bucket)
    monkeypatch.setenv("REDOTRAIL_ARCHIVE_URL", f"s3://{bucket}/archive/")
    monkeypatch.setenv("REDOTRAIL_CATALOG_DB", str(data_dir / "troubled.sqlite"))
    monkeypatch.setenv("REDOTRAIL_DBID", str(DBID))
    caplog.set_level(logging.INFO)
    found = discovery_dag.get_task("discover").python_callable()
    lines = [r.getMessage() for r in caplog.records if r.name.startswith("redotrail")]
    expected = {("waiting", loc): why for loc, why in found["waiting"]}
    expected |= {("rejected", loc): why for loc, why in found["rejected"]}
    expected |= {("duplicate", loc): why for loc, why in found["duplicates"]}
    assert len(expected) == 4 and len(found["gaps"]) == 1
    for (kind, location), reason in expected.items():
        assert [line for line in lines if line == f"{kind}: {location}: {reason}"], (kind, location, lines)
    (gap,) = found["gaps"]
    assert f"gap: {gap}" in lines and where["after_gap"] in gap
    assert f"discovery: {len(where)} listed" in lines[0]
    assert "3 ready, 1 waiting, 2 rejected, 1 duplicate, 0 gone, 1 gap" in lines[0]
    levels = {
        r.getMessage().split(":")[0]: r.levelno for r in caplog.records if r.name.startswith("redotrail")
    }
    assert levels["waiting"] == logging.INFO
    assert levels["rejected"] == levels["duplicate"] == levels["gap"] == logging.WARNING
    discovery_dag.get_task("plan").python_callable(found, ti=RunsTi())
    assert "3 ready, 1 waiting, 2 rejected, 1 duplicate, 0 gone, 1 gap" in capsys.readouterr().out


# ---- the Spark stage operator: no retry when a retry cannot help -------------------------------


@pytest.fixture
def stage_operator(monkeypatch: pytest.MonkeyPatch, parse_dag: Any) -> Any:
    """A ``SparkStageOperator`` on a local ``spark_default`` connection (from the environment)."""
    monkeypatch.setenv("AIRFLOW_CONN_SPARK_DEFAULT", json.dumps({"conn_type": "spark", "host": "local[1]"}))
    monkeypatch.syspath_prepend(str(DAGS))
    from common.stages import SparkStageOperator

    return SparkStageOperator(
        task_id="decode", application=str(REPO / "spark_jobs" / "decode.py"), conn_id="spark_default",
        application_args=["--batch-dir", "/data/work/batches/b-1"], retries=2,
    )  # fmt: skip


def fail_submit(monkeypatch: pytest.MonkeyPatch, returncode: int) -> None:
    """``SparkSubmitHook.submit`` failing as the real one does when spark-submit exits non-zero."""
    from types import SimpleNamespace

    from airflow.providers.apache.spark.hooks.spark_submit import SparkSubmitHook
    from airflow.sdk.exceptions import AirflowException

    def submit(self: Any, application: str = "", **kwargs: Any) -> None:
        self._submit_sp = SimpleNamespace(returncode=returncode)
        raise AirflowException(
            f"Cannot execute: spark-submit --master local[1] {application}. Error code is: {returncode}."
            "\nLast lines of spark-submit output:\ndecode b-1 failed: ..."
        )

    monkeypatch.setattr(SparkSubmitHook, "submit", submit)


@pytest.mark.parametrize(("returncode", "meaning"), [(4, "error in the input"), (2, "batch invalid"),
                                                       (3, "publish refused")], ids=["input", "invalid", "refused"])  # fmt: skip
def test_stage_operator_fails_at_once_when_a_retry_cannot_help(
    stage_operator: Any, monkeypatch: pytest.MonkeyPatch, returncode: int, meaning: str
) -> None:
    from airflow.sdk.exceptions import AirflowFailException

    fail_submit(monkeypatch, returncode)
    with pytest.raises(AirflowFailException, match=rf"decode exited {returncode} \({meaning}\): not retried"):
        stage_operator.execute(context={})


@pytest.mark.parametrize("returncode", [1, 137, -9], ids=["exception", "killed", "signal"])
def test_stage_operator_leaves_other_failures_to_retries(
    stage_operator: Any, monkeypatch: pytest.MonkeyPatch, returncode: int
) -> None:
    from airflow.sdk.exceptions import AirflowException, AirflowFailException

    fail_submit(monkeypatch, returncode)
    with pytest.raises(AirflowException, match=f"Error code is: {returncode}") as failed:
        stage_operator.execute(context={})
    assert not isinstance(failed.value, AirflowFailException)


def test_stage_exit_codes_agree_with_the_spark_jobs() -> None:
    import sys

    from spark_jobs import common, publish, validate

    sys.path.insert(0, str(DAGS))
    try:
        from common.stages import NOT_RETRIED
    finally:
        sys.path.remove(str(DAGS))
    assert set(NOT_RETRIED) == {
        validate.EXIT_INVALID, publish.EXIT_REFUSED, common.EXIT_INPUT_ERROR, common.EXIT_SETUP,
    }  # fmt: skip
    assert common.EXIT_FAILED not in NOT_RETRIED
