"""LOB pieces survive the Spark stages' Parquet hand-over: the lobs scenario, decoded unit by unit
into staging events and assembled from them, gives the generator's expected trail (byte-exact LOB
values, sizes and pieces); a LOB page no partition holds is counted, never dropped silently."""

from __future__ import annotations

import json
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
from redo_lib.pipeline import describe_logs
from redo_lib.synth import generate, load_scenario
from redo_lib.trail.schema import from_row

REPO = Path(__file__).resolve().parents[3]


@pytest.fixture(scope="module")
def lobs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Manifest, list[dict]]:
    result = generate(load_scenario(REPO / "include/scenarios/lobs.yaml"), tmp_path_factory.mktemp("lobs"))
    logs = tuple(
        LogEntry(thread=r.thread, sequence=r.sequence, resetlogs_id=r.resetlogs_id, location=r.location)
        for r in describe_logs(list(result.logs))
    )
    expected = [json.loads(line) for line in result.trail.read_text(encoding="utf-8").splitlines()]
    assert any(r.get("lob_columns") for r in expected)
    return Manifest(batch_id="lobs", logs=logs, dictionary=str(result.dictionary)), expected


def _assemble(manifest: Manifest, batch_dir: Path, range_bytes: int) -> tuple[list[dict], dict]:
    for unit in plan_units(manifest, range_bytes):
        decode_unit(unit, str(batch_dir))
    events = sorted(read_events(batch_dir / "staging" / "events"), key=lambda e: e.sort_key)
    rows = list(assemble_partition(0, (event_to_row(e) for e in events), str(batch_dir), manifest.dictionary))
    rows.sort(key=lambda r: r["order_key"])
    counts = merge_counts(json.loads(p.read_text()) for p in (batch_dir / "counts").glob("*.json"))
    trail = [
        from_row({k: v for k, v in r.items() if k not in ("order_key", "batch_id", "trail_seq")})
        for r in rows
    ]
    return [r.to_dict() for r in trail], counts


@pytest.mark.parametrize("range_bytes", [64 << 20, 1 << 20])
def test_lob_pieces_go_through_staging_parquet(
    lobs: tuple[Manifest, list[dict]], tmp_path: Path, range_bytes: int
) -> None:
    manifest, expected = lobs
    trail, counts = _assemble(manifest, tmp_path, range_bytes)
    assert trail == expected
    lobs = counts["lobs"]
    assert lobs["lob_values_out_of_row"] > 0 and lobs["lob_values_in_row"] > 0
    assert lobs.get("lob_values_unresolved", 0) == 0 and lobs.get("lob_pieces_unattached", 0) == 0
