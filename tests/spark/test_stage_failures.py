"""A stage that fails on its input says where, once, and asks not to be retried: ``spark-submit
spark_jobs/decode.py`` (the stage's command line) over a generated log with one damaged block exits
4 and leaves ``report/failure.json`` naming the file, block and offset (the checksum mismatch is
raised on an executor).

A stage that fails on a damaged file of the batch folder names the file and the reader's own
message in its one line, in ``report/failure.json`` and in ``python -m redo_lib status`` (issue 37):
a batch published by the pipeline's application, one of its staged events files truncated, then
``--stages assemble,validate,publish`` run again by hand. That run also leaves no marker of the
earlier run behind."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from redo_lib.batches import LogEntry, Manifest, write_manifest
from redo_lib.discovery.batches import finish_batch, plan_batches, start_batch
from redo_lib.discovery.objects import HEADER_READ_BYTES, assess, register_object
from redo_lib.pipeline import describe_logs
from redo_lib.storage.catalog import ListedObject, LogCatalog
from spark_jobs.common import EXIT_FAILED, EXIT_INPUT_ERROR, read_trail, run_stage, run_tasks

pytest_plugins = ["tests.fixtures.spark"]
pytestmark = [pytest.mark.spark, pytest.mark.timeout(900)]
REPO = Path(__file__).resolve().parents[2]
BLOCK = 5  # a redo block of basic_dml's only log (16 blocks of 512 bytes)


def test_a_damaged_block_fails_decode_with_its_position_and_no_retry(tmp_path: Path) -> None:
    subprocess.run([sys.executable, "-m", "redo_lib.synth", str(REPO / "include/scenarios/basic_dml.yaml"),
                    "--out", str(tmp_path / "scenario")], check=True, capture_output=True)  # fmt: skip
    (log,) = (tmp_path / "scenario" / "logs").glob("*.arc")
    (ref,) = describe_logs([log])
    data = bytearray(log.read_bytes())
    data[BLOCK * 512 + 100] ^= 0xFF
    bad = tmp_path / log.name
    bad.write_bytes(bytes(data))
    entry = LogEntry(
        thread=ref.thread, sequence=ref.sequence, resetlogs_id=ref.resetlogs_id, location=str(bad)
    )
    batch = tmp_path / "batches" / "b-000001-000001"
    write_manifest(batch, Manifest(batch_id=batch.name, logs=(entry,)))

    argv = [str(Path(sys.executable).with_name("spark-submit")), "--master", "local[1]",
            "--conf", "spark.ui.enabled=false", str(REPO / "spark_jobs" / "decode.py"),
            "--batch-dir", str(batch)]  # fmt: skip
    env = {**os.environ, "PYSPARK_PYTHON": sys.executable, "SPARK_LOCAL_IP": "127.0.0.1"}
    done = subprocess.run(argv, env=env, cwd=REPO, capture_output=True, text=True, timeout=600)

    assert done.returncode == EXIT_INPUT_ERROR, done.stderr[-3000:]
    failure = json.loads((batch / "report" / "failure.json").read_text())
    assert (failure["stage"], failure["kind"], failure["retryable"]) == ("decode", "checksum", False)
    assert failure["position"] == {"file": str(bad), "sequence": ref.sequence, "block": BLOCK, "offset": 14}
    where = f"{bad}: RBA 0x{ref.sequence:06x}.{BLOCK:08x}.000e (block {BLOCK}, offset 14)"
    assert failure["error"].startswith(f"{where}: block checksum mismatch")
    # spark-submit merges the Python driver's stderr into its stdout; the line comes last
    last = done.stdout.strip().splitlines()[-1]
    assert last.startswith(f"decode b-000001-000001 failed: {where}: block checksum mismatch")


def _synth(name: str, out: Path) -> Path:
    subprocess.run([sys.executable, "-m", "redo_lib.synth", str(REPO / f"include/scenarios/{name}.yaml"),
                    "--out", str(out)], check=True, capture_output=True)  # fmt: skip
    return out


def _submit(job: str, *args: str) -> subprocess.CompletedProcess[str]:
    """``spark-submit spark_jobs/<job>.py ARGS`` as an operator (or the DAG) runs it."""
    argv = [str(Path(sys.executable).with_name("spark-submit")), "--master", "local[1]",
            "--conf", "spark.ui.enabled=false", str(REPO / "spark_jobs" / f"{job}.py"), *args]  # fmt: skip
    env = {**os.environ, "PYSPARK_PYTHON": sys.executable, "SPARK_LOCAL_IP": "127.0.0.1"}
    return subprocess.run(argv, env=env, cwd=REPO, capture_output=True, text=True, timeout=900)


@dataclass(frozen=True)
class HandRun:
    catalog: Path
    batch: Path
    damaged: Path  # the truncated events file
    markers_before: tuple[str, ...]  # the markers the published run left
    done: subprocess.CompletedProcess[str]  # the run by hand


@pytest.fixture(scope="module")
def hand_run(tmp_path_factory: pytest.TempPathFactory) -> HandRun:
    """basic_dml through the catalog and the pipeline's application (decode to publish, then the
    report task's finish_batch: published); then one staged events file truncated to half its size
    and ``spark_jobs/batch.py --stages assemble,validate,publish`` submitted again by hand."""
    root = tmp_path_factory.mktemp("hand-run")
    scenario = _synth("basic_dml", root / "scenario")
    catalog_db = root / "catalog.sqlite"
    with LogCatalog(catalog_db) as catalog:
        for log in sorted((scenario / "logs").glob("*.arc")):
            listed = ListedObject(location=str(log), size=log.stat().st_size, etag="e")
            head = log.read_bytes()[:HEADER_READ_BYTES]
            catalog.put_log(assess(register_object(listed, None, head, "t"), changed=False))
        (batch,) = plan_batches(
            catalog, work_dir=str(root / "work"), dictionary=str(scenario / "dictionary.json")
        ).batches
        start_batch(catalog, batch.batch_id)
    folder = Path(batch.batch_dir)
    warehouse = ["--warehouse", f"file://{root / 'warehouse'}"]
    first = _submit("batch", "--batch-dir", str(folder), *warehouse)
    assert first.returncode == 0, first.stdout[-3000:] + first.stderr[-3000:]
    with LogCatalog(catalog_db) as catalog:
        assert finish_batch(catalog, batch.batch_id)["status"] == "published"
    markers = tuple(m for m in ("VALIDATED", "PUBLISHED") if (folder / m).exists())
    damaged = sorted((folder / "staging" / "events").glob("*.parquet"))[0]
    data = damaged.read_bytes()
    damaged.write_bytes(data[: len(data) // 2])
    done = _submit("batch", "--batch-dir", str(folder), "--stages", "assemble,validate,publish", *warehouse)
    return HandRun(catalog_db, folder, damaged, markers, done)


def test_a_damaged_intermediate_file_is_named_in_one_line_where_operators_look(hand_run: HandRun) -> None:
    """The failure's one line is the reader's own message about the file, with the file: in
    report/failure.json, on the stage's line at the end of the log, and in the status's last
    failure; the traceback stays in the log before it."""
    done, batch = hand_run.done, hand_run.batch
    assert done.returncode == EXIT_FAILED, done.stdout[-3000:] + done.stderr[-3000:]
    failure = json.loads((batch / "report" / "failure.json").read_text())
    assert failure["stage"] == "assemble"
    error = failure["error"]
    assert "\n" not in error
    # pyarrow's own words for a file without its footer, and the file they are about
    assert str(hand_run.damaged) in error, error
    assert "Parquet magic bytes not found in footer" in error, error
    assert "Py4JJavaError" not in error and "Traceback" not in error, error
    assert failure["position"] == {"file": str(hand_run.damaged)}
    # spark-submit merges the Python driver's stderr into its stdout: the stage's line comes at the
    # end (batch.py says after it how long the stage took), the traceback before it
    lines = done.stdout.strip().splitlines()
    (line,) = [x for x in lines[-3:] if x.startswith(f"assemble {batch.name} failed: ")]
    assert line.startswith(f"assemble {batch.name} failed: {error} [")
    assert done.stdout.index("Traceback (most recent call last)") < done.stdout.index(line)
    status = subprocess.run([sys.executable, "-m", "redo_lib", "status", "--catalog", str(hand_run.catalog)],
                            capture_output=True, text=True, check=True, cwd=REPO)  # fmt: skip
    last = status.stdout[status.stdout.index("Last failure:") :].splitlines()
    assert last[0].startswith(f"Last failure: {batch.name} at "), status.stdout
    assert last[1].strip() == f"assemble failed: {error}", status.stdout


def test_a_stage_run_by_hand_leaves_no_marker_of_an_earlier_run(hand_run: HandRun) -> None:
    """The published run's VALIDATED and PUBLISHED went when assemble started again: the folder
    no longer says the batch was validated or published (its trail is gone)."""
    assert hand_run.markers_before == ("VALIDATED", "PUBLISHED")
    assert hand_run.done.returncode != 0
    assert not (hand_run.batch / "trail").exists()
    assert [m for m in ("VALIDATED", "PUBLISHED") if (hand_run.batch / m).exists()] == []


# ---- in one application: a stage's failure named by its cause, whatever raised it -------------


def _truncated_parquet(path: Path) -> Path:
    """A Parquet file of 1,000 rows cut to half its size (its footer gone), as a killed writer leaves it."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    path.parent.mkdir(parents=True, exist_ok=True)
    pq.write_table(pa.table({"n": list(range(1000))}), path)
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])
    return path


def test_a_python_exception_on_an_executor_is_named_by_its_class_and_message(
    spark: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Spark hands the driver a Py4JJavaError whose text holds the worker's traceback: the failure
    is the worker's exception, not "Py4JJavaError: ... PythonException: Traceback"."""
    import pyarrow.parquet as pq

    damaged = str(_truncated_parquet(tmp_path / "x.parquet"))
    batch = tmp_path / "b-000001-000001"

    def stage() -> int:
        run_tasks(spark, [damaged], lambda path: pq.read_metadata(path).num_rows)
        return 0

    assert run_stage("assemble", batch, stage) == EXIT_FAILED
    failure = json.loads((batch / "report" / "failure.json").read_text())
    message = (
        "Parquet magic bytes not found in footer. Either the file is corrupted or this is not a parquet file."
    )
    assert (failure["kind"], failure["message"]) == ("ArrowInvalid", message)
    assert (failure["error"], failure["details"]) == (f"ArrowInvalid: {message}", {"via": "Py4JJavaError"})
    err = capsys.readouterr().err
    last = err.strip().splitlines()[-1]
    assert last.startswith(f"assemble b-000001-000001 failed: ArrowInvalid: {message} [may pass on retry; ")
    assert err.index("Traceback (most recent call last)") < err.index("assemble b-000001-000001 failed")


def test_a_java_exception_is_named_by_its_root_cause(spark: Any, tmp_path: Path) -> None:
    """Spark reading a damaged trail part says which file and what is wrong with it only in the
    deepest cause of its error ("Job aborted ...: Exception thrown in awaitResult" on top)."""
    damaged = _truncated_parquet(tmp_path / "b-000001-000001" / "trail" / "part-00000.parquet")
    batch = tmp_path / "b-000001-000001"

    def stage() -> int:
        read_trail(spark, str(batch / "trail")).count()
        return 0

    assert run_stage("validate", batch, stage) == EXIT_FAILED
    error = json.loads((batch / "report" / "failure.json").read_text())["error"]
    assert f"caused by java.lang.RuntimeException: file:{damaged} is not a Parquet file" in error, error
