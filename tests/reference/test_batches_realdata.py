"""The Spark stages' work units, run without Spark, agree with the single-process decode.

Any cut of the real logs into block ranges, decoded unit by unit into Parquet, then assembled per
(usn, slot) group in redo order, gives the trail of ``decode_logs`` (the reference)."""

from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path

import pytest

from redo_lib.batches import (
    LogEntry,
    Manifest,
    assemble_partition,
    decode_unit,
    event_to_row,
    merge_counts,
    plan_units,
    read_events,
)
from redo_lib.pipeline import balance, decode_logs
from redo_lib.trail.schema import from_row

pytestmark = pytest.mark.realdata


@pytest.fixture(scope="module")
def rophy(realdata: Path) -> Path:
    return realdata / "rophy-olr-example-free-23"


def _manifest(rophy: Path) -> Manifest:
    logs = tuple(
        LogEntry(
            thread=1,
            sequence=seq,
            resetlogs_id=1224959854,
            location=str(rophy / f"redo/arch1_{seq}_1224959854.dbf"),
        )
        for seq in (15, 16)
    )
    return Manifest(batch_id="b-15-16", logs=logs, dictionary=str(rophy / "schema/TEST-chkpt-2266634.json"))


def _run(manifest: Manifest, batch_dir: Path, range_bytes: int, partitions: int) -> tuple[list, dict]:
    for unit in plan_units(manifest, range_bytes):
        decode_unit(unit, str(batch_dir))
    events = list(read_events(batch_dir / "staging" / "events"))
    groups: dict[int, list] = defaultdict(list)
    for e in events:  # what Spark's repartition(usn, slot) + sortWithinPartitions does
        groups[hash((e.usn, e.slot)) % partitions].append(e)
    rows = []
    for index, group in groups.items():
        group.sort(key=lambda e: e.sort_key)
        rows.extend(
            assemble_partition(index, (event_to_row(e) for e in group), str(batch_dir), manifest.dictionary)
        )
    rows.sort(key=lambda r: r["order_key"])
    counts = merge_counts(json.loads(p.read_text()) for p in sorted((batch_dir / "counts").glob("*.json")))
    return [from_row({k: v for k, v in r.items() if k != "order_key"}) for r in rows], counts


@pytest.mark.parametrize(
    ("range_bytes", "partitions"), [(64 << 20, 1), (8192, 3), (512 * 7, 4), (1 << 20, 2)]
)
def test_units_and_partitions_give_the_reference_trail(
    rophy: Path, tmp_path: Path, range_bytes: int, partitions: int
) -> None:
    manifest = _manifest(rophy)
    trail, counts = _run(manifest, tmp_path, range_bytes, partitions)
    reference = decode_logs([log.location for log in manifest.logs], manifest.dictionary)
    assert trail == reference.trail and len(trail) == 1
    assert balance(counts) == {} and counts["trail"] == reference.counts["trail"]
    assert counts["decoded"] == reference.counts["decoded"]
