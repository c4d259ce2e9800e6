"""A stage that fails on its input says where, once, and asks not to be retried: ``spark-submit
spark_jobs/decode.py`` (the stage's command line) over a generated log with one damaged block exits
4 and leaves ``report/failure.json`` naming the file, block and offset (the checksum mismatch is
raised on an executor)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from redo_lib.batches import LogEntry, Manifest, write_manifest
from redo_lib.pipeline import describe_logs
from spark_jobs.common import EXIT_INPUT_ERROR

pytestmark = [pytest.mark.spark, pytest.mark.timeout(600)]
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
