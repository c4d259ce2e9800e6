"""All four Spark stages on generated archived logs, batch by batch, in Iceberg and in Delta.

The generator writes a scenario's logs and, from its SQL-level model, the final state of every
table; decode -> assemble -> validate -> publish over two batches (the long transaction carried
open from the first into the second) must leave every mirror table equal to that state, and the
changelog must hold exactly the expected trail.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from redo_lib.batches import LogEntry, Manifest, write_manifest
from redo_lib.pipeline import describe_logs
from spark_jobs import assemble, decode, publish, validate
from tests.spark.test_publish import SMALL_DATA, Tables

pytest_plugins = ["tests.fixtures.spark"]
pytestmark = pytest.mark.spark
REPO = Path(__file__).resolve().parents[2]


def _generate(tmp_path_factory: pytest.TempPathFactory, name: str) -> Path:
    out = tmp_path_factory.mktemp(name)
    subprocess.run([sys.executable, "-m", "redo_lib.synth", str(REPO / f"include/scenarios/{name}.yaml"),
                    "--out", str(out)], check=True, capture_output=True)  # fmt: skip
    return out


@pytest.fixture(scope="module")
def scenario(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _generate(tmp_path_factory, "long_transaction")


@pytest.fixture(scope="module")
def lobs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _generate(tmp_path_factory, "lobs")


def _publish_batches(
    spark: Any, scenario: Path, tmp_path: Path, fmt: str, cuts: list[int], assemble_args: list[str]
) -> Tables:
    """decode -> assemble -> validate -> publish, one batch per slice of the logs (``cuts``: the
    index where each batch after the first starts), carrying open transactions."""
    for key, value in SMALL_DATA.items():
        spark.conf.set(key, value)
    refs = describe_logs(sorted((scenario / "logs").glob("*.arc")))
    entries = [
        LogEntry(thread=r.thread, sequence=r.sequence, resetlogs_id=r.resetlogs_id, location=r.location)
        for r in refs
    ]
    warehouse = tmp_path / "warehouse"
    previous = None
    bounds = [0, *cuts, len(entries)]
    for first, end in zip(bounds, bounds[1:], strict=False):
        logs = entries[first:end]
        batch_id = f"b-{logs[0].sequence:06d}-{logs[-1].sequence:06d}"
        folder = tmp_path / batch_id
        carried = str(tmp_path / previous / "open") if previous else None
        write_manifest(folder, Manifest(batch_id=batch_id, logs=tuple(logs), dictionary=str(scenario / "dictionary.json"),
                                        previous_batch=previous, carried_in=carried))  # fmt: skip
        args = ["--batch-dir", str(folder)]
        assert decode.main(args, spark=spark) == 0
        assert assemble.main([*args, *assemble_args], spark=spark) == 0
        assert validate.main(args, spark=spark) == 0, (folder / "report" / "summary.json").read_text()
        assert publish.main([*args, "--warehouse", f"file://{warehouse}", "--format", fmt], spark=spark) == 0
        previous = batch_id
    return Tables(fmt, warehouse)


def _assert_final_state(scenario: Path, tables: Tables) -> list[dict[str, Any]]:
    """Every mirror equals the generator's final table; returns the changelog in trail order."""
    for path in (scenario / "expected" / "tables").glob("*.jsonl"):
        expected = {tuple(sorted(json.loads(line).items())) for line in path.read_text().splitlines() if line}
        arrow = tables._arrow(path.stem.lower().replace(".", "__"))
        got = {
            tuple(sorted((k, v) for k, v in r.items() if not k.startswith("_"))) for r in arrow.to_pylist()
        }
        assert got == expected, path.stem
    return sorted(tables._arrow("changelog").to_pylist(), key=lambda r: (r["batch_id"], r["trail_seq"]))


def _expected_trail(scenario: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (scenario / "expected" / "trail.jsonl").read_text().splitlines()]


@pytest.mark.parametrize("fmt", ["iceberg", "delta"])
def test_generated_scenario_publishes_its_final_state(
    spark: Any, scenario: Path, tmp_path: Path, fmt: str
) -> None:
    changelog = _assert_final_state(scenario, _publish_batches(spark, scenario, tmp_path, fmt, [2], []))
    assert [(r["xid"], r["op"], r["rowid"]) for r in changelog] == [
        (r["xid"], r["op"], r["rowid"]) for r in _expected_trail(scenario)
    ]


def test_lob_scenario_publishes_byte_exact_values(spark: Any, lobs: Path, tmp_path: Path) -> None:
    """The lobs scenario over 5 assembly partitions (the appending and the writing transactions hash
    apart): LOB values (in row, in pages written before
    or after the row change, appended to by a later transaction) arrive whole in the changelog and
    the mirror, with their sizes and pieces."""
    changelog = _assert_final_state(
        lobs, _publish_batches(spark, lobs, tmp_path, "iceberg", [], ["--partitions", "5"])
    )
    expected = _expected_trail(lobs)
    assert [(r["xid"], r["op"], r["rowid"]) for r in changelog] == [
        (r["xid"], r["op"], r["rowid"]) for r in expected
    ]
    for got, want in zip(changelog, expected, strict=True):
        assert {c["name"]: c["value"] for c in got["columns"]} == want["columns"]
        assert [(c["column"], c["bytes"], c["pieces"]) for c in got["lob_columns"] or ()] == [
            (c["column"], c["bytes"], c["pieces"]) for c in want.get("lob_columns", ())
        ]


def test_long_transaction_over_three_batches_equals_the_single_process_decode(
    spark: Any, scenario: Path, tmp_path: Path
) -> None:
    """Batches 1-2, 3-4 and 5 one after another, carrying open transactions, with 1 MB block
    ranges: the trail is the one decoding all logs in one process gives."""
    from redo_lib.pipeline import decode_logs
    from tests.spark.test_decode_assemble import _trail

    dictionary = str(scenario / "dictionary.json")
    refs = describe_logs(sorted((scenario / "logs").glob("*.arc")))
    entries = [
        LogEntry(thread=r.thread, sequence=r.sequence, resetlogs_id=r.resetlogs_id, location=r.location)
        for r in refs
    ]
    trail = []
    previous = None
    carried_counts = []
    for batch_id, logs in (("b1", entries[:2]), ("b2", entries[2:4]), ("b3", entries[4:])):
        folder = tmp_path / batch_id
        carried = str(tmp_path / previous / "open") if previous else None
        write_manifest(folder, Manifest(batch_id=batch_id, logs=tuple(logs), dictionary=dictionary,
                                        previous_batch=previous, carried_in=carried))  # fmt: skip
        assert decode.main(["--batch-dir", str(folder), "--range-mb", "1"], spark=spark) == 0
        assert assemble.main(["--batch-dir", str(folder)], spark=spark) == 0
        trail += _trail(folder)
        carried_counts.append(
            json.loads((folder / "counts.json").read_text())["transactions"]["open_carried_out"]
        )
        previous = batch_id
    assert carried_counts == [1, 1, 0]  # the long transaction is carried twice, then committed
    reference = decode_logs([e.location for e in entries], dictionary)
    assert trail == reference.trail
