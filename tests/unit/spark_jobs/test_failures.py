"""A stage's failure: report/failure.json, the line on stderr and the exit code (spark_jobs/common.py),
without Spark. Executor errors are simulated by the text Spark gives the driver."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from redo_lib.errors import ChecksumError, LogSetError, Position, StorageError
from spark_jobs.common import (
    EXIT_FAILED,
    EXIT_INPUT_ERROR,
    EXIT_SETUP,
    MissingJarError,
    carry_errors,
    describe_failure,
    named_cause,
    report_failure,
    run_stage,
)

WHERE = Position(file="1_15_7.arc", sequence=15, block=32, offset=14)


def failure(batch: Path) -> dict[str, Any]:
    return json.loads((batch / "report" / "failure.json").read_text())


def test_an_input_error_is_reported_and_not_retryable(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    batch = tmp_path / "b-000015-000016"

    def decode() -> int:
        raise ChecksumError("checksum mismatch", position=WHERE, stored="0x1234")

    assert run_stage("decode", batch, decode) == EXIT_INPUT_ERROR
    doc = failure(batch)
    assert doc | {"time": None} == {
        "batch_id": "b-000015-000016",
        "stage": "decode",
        "kind": "checksum",
        "message": "checksum mismatch",
        "error": "1_15_7.arc: RBA 0x00000f.00000020.000e (block 32, offset 14): checksum mismatch (stored=0x1234)",
        "position": {"file": "1_15_7.arc", "sequence": 15, "block": 32, "offset": 14},
        "details": {"stored": "0x1234"},
        "retryable": False,
        "exit_code": EXIT_INPUT_ERROR,
        "published": "nothing",
        "time": None,
    }
    assert doc["time"].endswith("+00:00")
    last = capsys.readouterr().err.strip().splitlines()[-1]
    assert last.startswith(f"decode b-000015-000016 failed: {doc['error']} [do not retry; ")


@pytest.mark.parametrize(
    ("error", "kind", "retryable", "code"),
    [
        (
            StorageError("GET failed: 503 SlowDown", position=Position(file="s3://a/1_15_7.arc")),
            "storage",
            True,
            EXIT_FAILED,
        ),
        (LogSetError("no batch 'b-9' in the log catalog"), "log_set", False, EXIT_INPUT_ERROR),
        (MemoryError("out of memory"), "MemoryError", True, EXIT_FAILED),
        (ValueError("source tables collide"), "ValueError", True, EXIT_FAILED),
    ],
    ids=["storage", "log-set", "memory", "bug"],
)
def test_only_storage_errors_and_other_exceptions_are_retryable(
    error: Exception, kind: str, retryable: bool, code: int
) -> None:
    described = describe_failure(error)
    assert (described["kind"], described["retryable"], described["exit_code"]) == (kind, retryable, code)


def test_an_error_without_position_has_none(tmp_path: Path) -> None:
    def assemble() -> int:
        raise LogSetError("no manifest")

    run_stage("assemble", tmp_path, assemble)
    assert (failure(tmp_path)["position"], failure(tmp_path)["error"]) == (None, "no manifest")


def test_an_executor_error_reaches_the_driver_with_its_position() -> None:
    """Spark gives the driver the executor's traceback as text: carry_errors puts the error in it."""

    def decode_unit(unit: int) -> dict[str, int]:
        raise ChecksumError("checksum mismatch", position=WHERE)

    task = carry_errors(decode_unit)
    with pytest.raises(RuntimeError) as raised:
        task(1)
    text = (
        "An error occurred while calling o58.collectToPython.\n: org.apache.spark.SparkException: Job aborted "
        "...\nTraceback (most recent call last):\n  ...\nredo_lib.errors.ChecksumError: ...\n\nThe above "
        f"exception was the direct cause of the following exception:\n\nRuntimeError: {raised.value}\n\n"
        "\tat org.apache.spark.api.python.BasePythonRunner..."
    )
    described = describe_failure(Exception(text))
    assert (described["kind"], described["exit_code"]) == ("checksum", EXIT_INPUT_ERROR)
    assert described["position"] == {"file": "1_15_7.arc", "sequence": 15, "block": 32, "offset": 14}
    assert described["error"] == str(ChecksumError("checksum mismatch", position=WHERE))


def test_an_error_while_iterating_an_executor_result_is_carried() -> None:
    def assemble(rows: list[int]) -> Any:
        yield from rows
        raise ChecksumError("commit of an unknown transaction")

    out = carry_errors(assemble)([1, 2])
    assert next(out) == 1 and next(out) == 2
    with pytest.raises(RuntimeError, match="redotrail-error .*commit of an unknown transaction"):
        next(out)


def test_a_spark_failure_is_summed_up_in_one_line() -> None:
    text = (
        "An error occurred while calling o58.collectToPython.\n: org.apache.spark.SparkException: Job "
        "aborted due to stage failure: Python worker exited unexpectedly (crashed)\n\tat org.apache..."
    )
    described = describe_failure(RuntimeError(text))
    assert described["message"].startswith(
        "org.apache.spark.SparkException: Job aborted due to stage failure"
    )
    assert "\n" not in described["error"] and described["retryable"]


def test_publish_says_which_tables_it_committed_and_a_later_attempt_clears_the_report(tmp_path: Path) -> None:
    published: list[str] = []

    def publish() -> int:
        published.append("changelog")
        raise OSError("catalog unreachable")

    assert run_stage("publish", tmp_path, publish, published=published) == EXIT_FAILED
    assert (failure(tmp_path)["published"], failure(tmp_path)["retryable"]) == (["changelog"], True)
    assert run_stage("publish", tmp_path, lambda: 0) == 0
    assert not (tmp_path / "report" / "failure.json").exists()


def test_an_invalid_batch_is_reported_without_an_exception(tmp_path: Path) -> None:
    code = report_failure(
        tmp_path, "validate", kind="invalid", message="2 rules failed", retryable=False, exit_code=2
    )
    assert code == 2
    assert {k: failure(tmp_path)[k] for k in ("stage", "kind", "error", "position", "retryable")} == {
        "stage": "validate", "kind": "invalid", "error": "2 rules failed", "position": None, "retryable": False,
    }  # fmt: skip


def test_a_spark_failure_names_the_cause_that_says_what_was_unreachable() -> None:
    """The top of a Spark error rarely says what failed; the deepest cause naming a URI does."""
    text = (
        "An error occurred while calling o60.sql.\n: org.apache.spark.SparkException: Job aborted due to "
        "stage failure: ... java.io.UncheckedIOException: Failed to create Parquet file\n\tat org.apache...\n"
        "Caused by: java.io.UncheckedIOException: Failed to create Parquet file\n\tat org.apache...\n"
        "Caused by: java.net.ConnectException: getFileStatus on s3a://wh/t/x.parquet: Connect to "
        "127.0.0.1:9 failed: Connection refused\n\tat org.apache...\n"
        "Caused by: org.apache.http.conn.HttpHostConnectException: Connect to 127.0.0.1:9 failed: "
        "Connection refused\nCaused by: java.net.ConnectException: Connection refused\n"
    )
    described = describe_failure(RuntimeError(text))
    assert described["message"] == (
        "org.apache.spark.SparkException: Job aborted due to stage failure: ... java.io.UncheckedIOException: "
        "Failed to create Parquet file; caused by java.net.ConnectException: getFileStatus on "
        "s3a://wh/t/x.parquet: Connect to 127.0.0.1:9 failed: Connection refused"
    )
    assert named_cause(text.replace("s3a://wh/t/x.parquet", "a file")) == (
        "org.apache.http.conn.HttpHostConnectException: Connect to 127.0.0.1:9 failed: Connection refused"
    )  # no URI: the deepest host:port
    assert named_cause("java.lang.OutOfMemoryError: Java heap space") is None


def test_a_missing_jar_is_a_setup_error_and_not_retried(tmp_path: Path) -> None:
    def decode() -> int:
        raise MissingJarError(
            [("org.apache.hadoop:hadoop-aws:3.4.2", "org.apache.hadoop.fs.s3a.S3AFileSystem")]
        )

    assert run_stage("decode", tmp_path, decode) == EXIT_SETUP
    doc = failure(tmp_path)
    assert (doc["kind"], doc["retryable"], doc["exit_code"]) == ("missing_jar", False, EXIT_SETUP)
    assert doc["details"] == {"jars": "org.apache.hadoop:hadoop-aws:3.4.2"}
    assert "Run ./redotrail setup" in doc["error"]


def test_passwords_in_uris_are_masked_in_the_report_and_the_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    def publish() -> int:
        raise RuntimeError(
            "Failed to connect: jdbc:postgresql://db:5432/ice?user=u&password=pw1: refused; "
            "postgresql://u:pw2@db/x; jdbc:sqlite:/tmp/catalog.db"
        )

    assert run_stage("publish", tmp_path, publish) == EXIT_FAILED
    written = (tmp_path / "report" / "failure.json").read_text() + capsys.readouterr().err
    assert "pw1" not in written and "pw2" not in written
    assert failure(tmp_path)["message"] == (
        "Failed to connect: jdbc:postgresql://db:5432/ice?user=u&password=***: refused; "
        "postgresql://u:***@db/x; jdbc:sqlite:/tmp/catalog.db"
    )


@pytest.mark.parametrize(
    ("stage", "kept"),
    [("decode", []), ("assemble", []), ("validate", []), ("publish", ["VALIDATED", "PUBLISHED"])],
)
@pytest.mark.parametrize("fails", [False, True], ids=["passes", "fails"])
def test_a_stage_removes_the_markers_it_makes_stale_before_it_runs(
    tmp_path: Path, stage: str, kept: list[str], fails: bool
) -> None:
    """Run by hand over a batch an earlier run published, decode, assemble and validate remove
    VALIDATED and PUBLISHED before their body runs, whether it passes or fails: their output is the
    input of the stages that wrote them. Publish keeps both: it needs VALIDATED, and PUBLISHED is
    its record that the manifest's publication is committed (exactly once)."""
    for marker in ("VALIDATED", "PUBLISHED"):
        (tmp_path / marker).write_text("{}")
    seen: list[list[str]] = []

    def body() -> int:
        seen.append(sorted(p.name for p in tmp_path.iterdir() if p.name in ("VALIDATED", "PUBLISHED")))
        if fails:
            raise ChecksumError("checksum mismatch", position=WHERE)
        return 0

    assert run_stage(stage, tmp_path, body) == (EXIT_INPUT_ERROR if fails else 0)
    assert seen == [sorted(kept)]
    assert sorted(p.name for p in tmp_path.iterdir() if p.name in ("VALIDATED", "PUBLISHED")) == sorted(kept)
