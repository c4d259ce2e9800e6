"""LOB pages carried from batch to batch (docs/lobs.md, "Across batches"): the lob_appends scenario,
one batch per log, assembled in one process through the batch folders (decode units' staging
Parquet, ``assemble_partition``, the previous batch's ``lobs/``) and through ``decode_logs``. The
appends of batches 2 and 3 keep pages written a batch or two before: their values are whole, as the
generator expects, and only the pages each LOB's newest locator names are carried (counted from the
scenario's sizes, in pages of 8132 bytes). Without the carry the appends are unresolved."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
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
from redo_lib.errors import AssemblyError, RedoError
from redo_lib.lob_carry import check_carried_lobs, lob_pages_schema, lobs_beside, read_carried_lobs
from redo_lib.pipeline import decode_logs, describe_logs
from redo_lib.synth import generate, load_scenario
from redo_lib.trail.schema import from_row

REPO = Path(__file__).resolve().parents[3]
PAGE = 8192 - 60  # the generator's LOB page (docs/lobs.md)


def pages(*sizes: int) -> int:
    return sum(math.ceil(size / PAGE) for size in sizes)


# the live LOBs at the end of each batch, as stored (the scenario's comment: CLOB 2 bytes a char)
LIVE = [
    [2000 * 6 * 2, 1500 * 8, 1000 * 6 * 2, 1000 * 6 * 2, 1000 * 6 * 2],  # 1 BODY, 2 DATA, 3, 4, 6 BODY
    # 1 and 2 appended, 3 gone, 4 new; 6 appended by a transaction still open
    [2000 * 6 * 2 + 1000 * 5 * 2, 1500 * 8 + 100, 1000 * 8 * 2, 1000 * 6 * 2],
    # 1 and 4 appended, 2's DATA gone, 6's append committed
    [2000 * 6 * 2 + 1000 * 5 * 2 + 500 * 6 * 2, 1000 * 8 * 2 + 200 * 5 * 2, 1000 * 6 * 2 + 400 * 5 * 2],
]


@pytest.fixture(scope="module")
def scenario(tmp_path_factory: pytest.TempPathFactory) -> tuple[Any, list[LogEntry], list[dict[str, Any]]]:
    result = generate(
        load_scenario(REPO / "include/scenarios/lob_appends.yaml"), tmp_path_factory.mktemp("lob_appends")
    )
    logs = [
        LogEntry(thread=r.thread, sequence=r.sequence, resetlogs_id=r.resetlogs_id, location=r.location)
        for r in describe_logs(list(result.logs))
    ]
    assert len(logs) == 3
    expected = [json.loads(line) for line in result.trail.read_text(encoding="utf-8").splitlines()]
    # the appends of batches 2 and 3 name pages of earlier batches
    updates = [r["sequence"] for r in expected if r["op"] == "UPDATE" and r.get("lob_columns")]
    assert updates == [2, 2, 2, 3, 3, 2]  # the last: 6's append, committed in log 3
    return result, logs, expected


def _batch(
    result: Any, log: LogEntry, folder: Path, previous: Path | None
) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """decode + assemble one batch in one process through its folder, state carried in from the
    previous batch's ``open/`` and ``lobs/``."""
    manifest = Manifest(batch_id=folder.name, logs=(log,), dictionary=str(result.dictionary))
    for unit in plan_units(manifest, 1 << 20):
        decode_unit(unit, str(folder))
    rows = [event_to_row(e) | {"carried": True} for e in read_events(previous / "open")] if previous else []
    events = sorted(read_events(folder / "staging" / "events"), key=lambda e: e.sort_key)
    rows += [event_to_row(e) | {"carried": False} for e in events]
    lobs_in = lobs_beside(str(previous / "open")) if previous else None
    files = sorted(str(p) for p in Path(lobs_in).glob("*.parquet")) if lobs_in else []
    trail = list(assemble_partition(0, rows, str(folder), manifest.dictionary, lobs_in=files))
    trail.sort(key=lambda r: r["order_key"])
    counts = merge_counts(json.loads(p.read_text()) for p in (folder / "counts").glob("*.json"))
    records = [
        from_row({k: v for k, v in r.items() if k not in ("order_key", "batch_id", "trail_seq")}).to_dict()
        for r in trail
    ]
    return records, counts


def _chain(scenario: Any, work: Path) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    result, logs, _ = scenario
    trail, counts = [], []
    previous = None
    for n, log in enumerate(logs):
        folder = work / f"b{n + 1}"
        records, batch_counts = _batch(result, log, folder, previous)
        trail += records
        counts.append(batch_counts)
        previous = folder
    return trail, counts


def test_appends_across_three_batches_are_whole_and_only_live_pages_are_carried(
    scenario: Any, tmp_path: Path
) -> None:
    _, _, expected = scenario
    trail, counts = _chain(scenario, tmp_path)
    assert trail == expected
    lobs = [c["lobs"] for c in counts]
    assert [c.get("lob_values_unresolved", 0) for c in lobs] == [0, 0, 0]
    assert [c["lob_pages_carried_out"] for c in lobs] == [pages(*live) for live in LIVE]
    assert [c["lob_page_bytes_carried_out"] for c in lobs] == [sum(live) for live in LIVE]
    assert [c.get("lob_pages_carried_in", 0) for c in lobs] == [0, pages(*LIVE[0]), pages(*LIVE[1])]
    # batch 2: 1's rewritten third page and 2's second, 3's two pages (deleted), 4's two (replaced);
    # batch 3: 1's rewritten fifth page, 4's second, 2's two (set to NULL), 6's second
    assert [c["lob_pages_released"] for c in lobs] == [0, 1 + 1 + 2 + 2, 1 + 1 + 2 + 1]
    assert [c["lob_ids_dropped"] for c in lobs] == [0, 2, 1]
    for n, c in enumerate(lobs[1:], 1):
        check_carried_lobs(counts[n - 1], c, "lobs")  # in = out of the batch before
    # each batch's file: the LOB ids that went, then the pages, whole
    table = pq.read_table(tmp_path / "b2" / "lobs" / "part-00000.parquet")
    assert table.schema.equals(lob_pages_schema())
    assert table.column("dba").null_count == 2
    assert sum(len(d) for d in table.column("data").to_pylist() if d is not None) == sum(LIVE[1])


def test_decode_logs_carries_the_same_pages(scenario: Any, tmp_path: Path) -> None:
    result, logs, expected = scenario
    trail: list[dict[str, Any]] = []
    carried: list[str] = []
    open_events: list[Any] = []
    for n, log in enumerate(logs):
        out = tmp_path / f"b{n}" / "lobs" / "part-00000.parquet"
        got = decode_logs(
            [log.location], result.dictionary, carried=open_events, carried_lobs=carried, lobs_out=str(out)
        )
        trail += [r.to_dict() for r in got.trail]
        assert got.counts["lobs"]["lob_pages_carried_out"] == pages(*LIVE[n])
        carried, open_events = [str(out)], got.carried_out
    assert trail == expected


def test_without_the_pages_of_the_batch_before_an_append_is_unresolved(scenario: Any, tmp_path: Path) -> None:
    """A chain that starts mid-LOB (the pages written before its first batch): the appends of the
    second log alone render their locators' hex, counted, never dropped or guessed."""
    result, logs, expected = scenario
    records, counts = _batch(result, logs[1], tmp_path / "b2", None)
    assert counts["lobs"]["lob_values_unresolved"] == 2  # 1's BODY and 2's DATA appended
    want = {(r["xid"], r["op"]): r["columns"] for r in expected if r["sequence"] == 2}
    appended = [r for r in records if r["columns"] != want[(r["xid"], r["op"])]]
    assert [sorted(r["columns"]) for r in appended] == [["BODY", "ID"], ["DATA", "ID"]]


def test_a_rerun_of_the_middle_batch_writes_the_same_files(scenario: Any, tmp_path: Path) -> None:
    result, logs, _ = scenario
    _chain(scenario, tmp_path)
    middle = tmp_path / "b2"
    before = {p.relative_to(middle): p.read_bytes() for p in middle.rglob("*.parquet")}
    trail, _ = _batch(result, logs[1], middle, tmp_path / "b1")
    assert {p.relative_to(middle): p.read_bytes() for p in middle.rglob("*.parquet")} == before
    assert [Path("lobs/part-00000.parquet")] == [p for p in before if p.parts[0] == "lobs"]
    third, _ = _batch(result, logs[2], tmp_path / "b3-again", middle)
    assert third == _batch(result, logs[2], tmp_path / "b3", middle)[0]


def test_the_check_names_a_difference(tmp_path: Path) -> None:
    with pytest.raises(AssemblyError, match="carried out 9 LOB pages, this batch's assembly read in 7"):
        check_carried_lobs({"lobs": {"lob_pages_carried_out": 9}}, {"lob_pages_carried_in": 7}, "x/lobs")
    check_carried_lobs({"lobs": {}}, {}, "x")  # a batch before LOB pages were carried: nothing to check


def test_a_file_of_another_schema_is_named(tmp_path: Path) -> None:
    from redo_lib.native import native

    bad = tmp_path / "part-00000.parquet"
    pq.write_table(pa.table({"lob_id": [b"x"]}), bad)
    with pytest.raises(RedoError, match="not a file of carried LOB pages") as info:
        read_carried_lobs(native.Emitter(None), [str(bad)])
    assert info.value.position.file == str(bad)


def test_lobs_beside_open() -> None:
    assert lobs_beside("s3://work/batches/b-1/open/") == "s3://work/batches/b-1/lobs"
    assert lobs_beside("/w/batches/b-1/open") == "/w/batches/b-1/lobs"
    assert lobs_beside(None) is None
