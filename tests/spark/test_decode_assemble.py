"""The Spark decode and assemble stages give the single-process decode's trail (the reference).

Real local Spark; the real 23.6 logs read in place; any block-range size; a rerun replaces.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq
import pytest

from redo_lib.batches import LogEntry, Manifest, read_events, write_manifest
from redo_lib.pipeline import balance, decode_logs
from redo_lib.trail.schema import from_row
from spark_jobs import assemble, decode

pytest_plugins = ["tests.fixtures.spark"]
pytestmark = [pytest.mark.spark, pytest.mark.realdata]


@pytest.fixture(scope="module")
def rophy(realdata: Path) -> Path:
    return realdata / "rophy-olr-example-free-23"


def _batch(rophy: Path, tmp: Path, batch_id: str, seqs: tuple[int, ...], **kw: Any) -> Path:
    logs = tuple(
        LogEntry(
            thread=1,
            sequence=s,
            resetlogs_id=1224959854,
            location=str(rophy / f"redo/arch1_{s}_1224959854.dbf"),
        )
        for s in seqs
    )
    write_manifest(tmp / batch_id, Manifest(batch_id=batch_id, logs=logs, **kw))
    return tmp / batch_id


def _trail(batch_dir: Path) -> list[Any]:
    rows = sorted(pq.read_table(batch_dir / "trail").to_pylist(), key=lambda r: r["trail_seq"])
    assert [r["trail_seq"] for r in rows] == list(range(len(rows)))
    return [from_row({k: v for k, v in r.items() if k not in ("batch_id", "trail_seq")}) for r in rows]


@pytest.mark.parametrize("range_mb", [64, 0.02])
def test_spark_stages_equal_the_single_process_decode(
    spark: Any, rophy: Path, tmp_path: Path, range_mb: float
) -> None:
    dictionary = str(rophy / "schema/TEST-chkpt-2266634.json")
    batch = _batch(rophy, tmp_path, "b-15-16", (15, 16), dictionary=dictionary)
    assert decode.main(["--batch-dir", str(batch), "--range-mb", str(range_mb)], spark=spark) == 0
    assert assemble.main(["--batch-dir", str(batch), "--partitions", "3"], spark=spark) == 0
    reference = decode_logs([log.location for log in _manifest_logs(batch)], dictionary)
    assert _trail(batch) == reference.trail
    counts = json.loads((batch / "counts.json").read_text())
    assert balance(counts) == {} and counts["trail"] == {"OLR_TEST.TEST_CDC": {"INSERT": 1}}
    logs = json.loads((batch / "staging/logs.json").read_text())
    assert logs["1_15"]["records"] == 1154 and logs["1_16"]["records"] == 7

    # a rerun replaces its outputs, never appends
    assert decode.main(["--batch-dir", str(batch), "--range-mb", str(range_mb)], spark=spark) == 0
    assert assemble.main(["--batch-dir", str(batch)], spark=spark) == 0
    assert _trail(batch) == reference.trail


def test_schemaless_batches_carry_state_and_match_the_reference(
    spark: Any, rophy: Path, tmp_path: Path
) -> None:
    first = _batch(rophy, tmp_path, "b1", (15,))
    second = _batch(
        rophy, tmp_path, "b2", (16,), previous_batch="b1", carried_in=str(tmp_path / "b1" / "open")
    )
    trail = []
    for batch in (first, second):
        decode.main(["--batch-dir", str(batch), "--range-mb", "0.1"], spark=spark)
        assemble.main(["--batch-dir", str(batch)], spark=spark)
        trail += _trail(batch)
    reference = decode_logs([log.location for log in _manifest_logs(first) + _manifest_logs(second)])
    assert trail == reference.trail and len(trail) == 14
    assert list(read_events(second / "open")) == reference.carried_out


def _manifest_logs(batch: Path) -> list[LogEntry]:
    from redo_lib.batches import load_manifest

    return list(load_manifest(batch).logs)


def test_spark_stages_report_the_tables_the_decoder_cannot_read(spark: Any, tmp_path: Path) -> None:
    """decode counts the vectors of encrypted and IOT tables per log (staging/logs.json), assemble
    names them with the dictionary into counts.json ``unsupported``, as the reference does and as the
    generator says (tests/unit/redo_lib/test_unsupported.py)."""
    import textwrap

    from redo_lib.synth import generate, parse_scenario
    from tests.unit.redo_lib.test_unsupported import EXPECTED, SCENARIO

    generated = generate(parse_scenario(textwrap.dedent(SCENARIO)), tmp_path / "generated")
    logs = tuple(
        LogEntry(thread=int(t), sequence=int(s), resetlogs_id=int(r), location=str(path))
        for path in generated.logs
        for t, s, r in [path.stem.split("_")]
    )
    batch = tmp_path / "b-1-1"
    write_manifest(batch, Manifest(batch_id="b-1-1", logs=logs, dictionary=str(generated.dictionary)))
    assert decode.main(["--batch-dir", str(batch), "--range-mb", "0.02"], spark=spark) == 0
    assert assemble.main(["--batch-dir", str(batch)], spark=spark) == 0
    counts = json.loads((batch / "counts.json").read_text())
    reference = decode_logs(list(generated.logs), generated.dictionary)
    assert counts["unsupported"] == reference.counts["unsupported"]
    got = {
        t: {k: e["changes"] for k, e in kinds.items()} for t, kinds in counts["unsupported"]["tables"].items()
    }
    assert got == EXPECTED
    assert counts["unsupported_ops"] == {"APP.PACKED": {"INSERT": 3}} and balance(counts) == {}
    assert _trail(batch) == reference.trail


def test_a_stage_task_starts_on_a_frozen_heap_with_zip_directories_kept(spark: Any) -> None:
    """``run_tasks``'s tasks call ``redo_lib.worker.task_start`` in the Python worker: the worker
    PySpark reuses from task to task collects only what tasks made, and (Python before 3.12) keeps
    the directories of its unchanged zips instead of reading them again before every task."""
    import sys

    from spark_jobs.common import run_tasks

    def look(_: int) -> tuple[int, bool]:
        import gc
        import zipimport

        kept = getattr(zipimport.zipimporter.invalidate_caches, "keeps_unchanged", False)
        return gc.get_freeze_count(), kept or sys.version_info >= (3, 12)

    seen = run_tasks(spark, list(range(6)), look)
    assert all(frozen > 1000 for frozen, _ in seen), seen  # redo_lib's and pyarrow's modules at least
    assert all(kept for _, kept in seen), seen
    assert spark.conf.get("spark.python.unix.domain.socket.enabled") == "true"  # no 30 ms TCP waits
