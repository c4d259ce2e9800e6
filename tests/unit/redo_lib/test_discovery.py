"""Discovery and batch planning: registration from headers, readiness, continuity, the next batch
(gaps, incarnations, RAC watermark), backfill ranges, and the catalog rows and manifests they write.

Planning is tested on catalog rows (no listing involved); listing and ranged GETs against a real S3
server are in tests/integration/test_discovery_s3.py. Expected values come from the rules in
``redo_lib.discovery.plans``' docstring, docs/pipeline-contract.md and OLR's dump of the real logs.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import io
import json
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from redo_lib.discovery import (
    Settings,
    assess,
    batch_id_for,
    check_continuity,
    databases_message,
    discover,
    discover_archive,
    finish_batch,
    learn_source,
    name_mismatch,
    parse_log_name,
    plan_backfill,
    plan_batches,
    plan_pending,
    register_object,
    rerun_batch,
    resolve_batch,
    screen_logs,
    select_next,
    select_range,
)
from redo_lib.discovery.batches import start_batch
from redo_lib.discovery.plans import range_watermark
from redo_lib.errors import LogSetError, RedoError, StorageError
from redo_lib.format.writer import LogFileSpec, LogWriter, seal_block
from redo_lib.storage.catalog import (
    BatchEntry,
    BatchKind,
    BatchStatus,
    ListedObject,
    LogCatalog,
    LogEntry,
    LogStatus,
    SourceEntry,
)

REPO = Path(__file__).resolve().parents[3]
REDO = REPO.parent / "shared" / "realdata" / "rophy-olr-example-free-23" / "redo"
NOW = "2026-03-07T02:00:00+00:00"
RID = 1224959854  # resetlogs count 0x4903676e in OLR's dump of the real logs


# ---- helpers ------------------------------------------------------------------------------------


def log(
    seq: int, *, thread: int = 1, rid: int = RID, first: int | None = None, span: int = 100, **kw: object
) -> LogEntry:
    """A ready, discovered log; thread t's sequence s covers SCN [s*100, s*100+100) unless told."""
    first = seq * 100 if first is None else first
    values: dict[str, object] = {
        "location": f"s3://arch/archive/{thread}_{seq}_{rid}.arc",
        "size": 1024,
        "etag": f"etag-{thread}-{seq}-{rid}",
        "first_seen": NOW,
        "last_seen": NOW,
        "thread": thread,
        "sequence": seq,
        "resetlogs_id": rid,
        "resetlogs_scn": 1,
        "prev_resetlogs_id": 0,
        "first_scn": first,
        "next_scn": first + span,
        "block_size": 512,
        "nab": 2,
        "misc_flags": 0,
        "ready": True,
    }
    values.update(kw)
    return LogEntry(**values)  # type: ignore[arg-type]


def batch(
    ranges: dict[int, tuple[int, int]], *, rid: int = RID, name: str | None = None, **kw: object
) -> BatchEntry:
    name = name or "b-" + "_".join(f"{t}.{a}-{b}" for t, (a, b) in sorted(ranges.items()))
    return BatchEntry(batch_id=name, resetlogs_id=rid, ranges=ranges, batch_dir=f"/w/batches/{name}", **kw)  # type: ignore[arg-type]


def planned(*logs: LogEntry) -> list[LogEntry]:
    return [dataclasses.replace(e, status=LogStatus.BATCHED) for e in logs]


def ids(selection_logs: tuple[LogEntry, ...]) -> list[tuple[int | None, int | None]]:
    return [(e.thread, e.sequence) for e in selection_logs]


def synth_log(*, thread: int = 1, sequence: int = 17, patch: dict[int, bytes] | None = None) -> bytes:
    """A closed, empty 2-block archived log from the format writer; ``patch`` rewrites block-1 bytes."""
    out = io.BytesIO()
    spec = LogFileSpec(
        thread=thread, sequence=sequence, resetlogs_id=RID, first_scn=2267723, first_time=dt.datetime(2026, 3, 7, 1, 44, 40)
    )  # fmt: skip
    LogWriter(out, spec).close(next_scn=2267800, next_time=dt.datetime(2026, 3, 7, 1, 45))
    data = bytearray(out.getvalue())
    for offset, raw in (patch or {}).items():
        data[512 + offset : 512 + offset + len(raw)] = raw
    seal_block(data, 512, 512)
    return bytes(data)


def listed(name: str, size: int, etag: str = "e1") -> ListedObject:
    return ListedObject(location=f"s3://arch/archive/{name}", size=size, etag=etag)


@pytest.fixture
def real15() -> bytes:
    path = REDO / "arch1_15_1224959854.dbf"
    if not path.is_file():
        pytest.skip(f"real data not found at {path}")
    return path.read_bytes()


# ---- registration -------------------------------------------------------------------------------


@pytest.mark.realdata
def test_a_real_log_is_registered_from_its_header(real15: bytes) -> None:
    entry = register_object(listed("1_15_1224959854.arc", len(real15)), None, real15[:8192], NOW)
    # OLR's dump (logdump-seq15.txt): thread 1, seq 0xf, nab 0x256, resetlogs count 0x4903676e,
    # Low scn 0x229606, Next scn 0x229a45, prev resetlogs count 0x48e1961b, resetlogs scn 0x1f75ee
    assert (entry.thread, entry.sequence, entry.resetlogs_id, entry.nab) == (1, 15, 0x4903676E, 0x256)
    assert (entry.first_scn, entry.next_scn) == (0x229606, 0x229A45)
    assert (entry.prev_resetlogs_id, entry.resetlogs_scn, entry.block_size) == (0x48E1961B, 0x1F75EE, 512)
    assert entry.first_time == "2026-03-07T01:44:38+00:00"
    assert (entry.status, entry.ready, entry.reason, entry.note) == (LogStatus.DISCOVERED, True, None, None)
    assert (entry.first_seen, entry.last_seen, entry.prev_size) == (NOW, NOW, None)


@pytest.mark.realdata
def test_the_header_wins_over_a_wrong_name(real15: bytes) -> None:
    entry = register_object(listed("1_99_1224959854.arc", len(real15)), None, real15[:8192], NOW)
    assert (entry.sequence, entry.ready) == (15, True)
    assert entry.note is not None and "sequence 99" in entry.note and "sequence 15" in entry.note


@pytest.mark.realdata
def test_an_object_shorter_than_nab_blocks_waits(real15: bytes) -> None:
    entry = register_object(listed("1_15_1224959854.arc", 100_000), None, real15[:8192], NOW)
    assert not entry.ready and entry.reason is not None
    assert "306176" in entry.reason and "upload incomplete" in entry.reason  # 0x256 blocks * 512


@pytest.mark.parametrize(
    ("patch", "reason"),
    [
        ({156: b"\xff\xff\xff\xff"}, "nab 0xFFFFFFFF"),
        ({192: b"\xff" * 8}, "next SCN none"),
    ],
    ids=["nab-unknown", "next-scn-none"],
)
def test_an_open_log_header_waits(patch: dict[int, bytes], reason: str) -> None:
    data = synth_log(patch=patch)
    entry = register_object(listed("1_17_1224959854.arc", len(data)), None, data, NOW)
    assert (entry.sequence, entry.status, entry.ready) == (17, LogStatus.DISCOVERED, False)
    assert entry.reason is not None and reason in entry.reason


@pytest.mark.parametrize(
    ("head", "status", "reason"),
    [
        (synth_log()[:600], LogStatus.DISCOVERED, "header incomplete"),
        (b"PK\x03\x04" + bytes(2000), LogStatus.REJECTED, "not a redo log"),
        (StorageError("ranged GET bytes=0-8191 failed: NoSuchKey"), LogStatus.DISCOVERED, "header not read"),
    ],
    ids=["truncated-600-bytes", "not-a-redo-log", "get-failed"],
)
def test_an_unreadable_header(head: bytes | StorageError, status: LogStatus, reason: str) -> None:
    entry = register_object(listed("1_17_1224959854.arc", 600), None, head, NOW)
    assert (entry.status, entry.ready, entry.identity) == (status, False, None)
    assert entry.reason is not None and reason in entry.reason


def test_a_changed_object_waits_one_listing() -> None:
    data = synth_log()
    before = register_object(listed("1_17_1224959854.arc", 600, "e0"), None, data[:600], "t0")
    changed = register_object(listed("1_17_1224959854.arc", len(data), "e1"), before, data, NOW)
    assert (changed.ready, changed.prev_size, changed.first_seen) == (False, 600, "t0")
    assert changed.reason is not None and "changed since the last listing" in changed.reason
    assert assess(changed, changed=False).ready


@pytest.mark.parametrize(
    ("name", "header", "mismatch"),
    [
        ("s3://a/archive/1_15_1224959854.arc", (1, 15, RID), None),
        ("s3://a/archive/arch1_15_1224959854.dbf", (1, 15, RID), None),
        ("s3://a/archive/redo.log", (1, 15, RID), None),
        ("s3://a/archive/2_15_1224959854.arc", (1, 15, RID), "thread 2"),
        ("s3://a/archive/1_15_1.arc", (1, 15, RID), "resetlogs 1,"),
        ("s3://a/archive/z_resetlogs999_1_4.arc", (1, 15, RID), None),
    ],
    ids=["same", "oracle-default-format", "no-pattern", "other-thread", "other-resetlogs", "not-the-pattern"],
)
def test_name_mismatch(name: str, header: tuple[int, int, int], mismatch: str | None) -> None:
    note = name_mismatch(name, *header)
    assert (note is None) == (mismatch is None)
    assert mismatch is None or (note is not None and mismatch in note)


@pytest.mark.parametrize(
    ("name", "identity"),
    [
        ("1_15_1224959854.arc", (1, 15, RID)),
        ("s3://a/archive/2_0000000015_1224959854.arc", (2, 15, RID)),  # %S: zero-padded
        ("arch1_15_1224959854.dbf", (1, 15, RID)),  # Oracle's arch%t_%s_%r.dbf
        ("z_resetlogs999_1_4.arc", None),
        ("resetlogs999_1_4.arc", None),
        ("x1_15_7.arc", None),
        ("1_15_7_8.arc", None),
        ("1_15_7.arc.tmp", None),
        ("1_15_7", None),
        ("redo.log", None),
    ],
)
def test_the_log_name_is_parsed_only_when_it_is_the_pattern(
    name: str, identity: tuple[int, int, int] | None
) -> None:
    """``<thread>_<sequence>_<resetlogs>.<ext>``, the whole name or nothing: no thread is made up of
    the digits inside another name (issue 37, item 5)."""
    assert parse_log_name(name) == identity


# ---- continuity ---------------------------------------------------------------------------------


def test_continuity_reports_missing_sequences_per_thread_and_incarnation() -> None:
    logs = [log(15), log(16), log(19), log(1, thread=2), log(2, thread=2), log(1, rid=RID + 1)]
    errors = check_continuity(logs)
    assert len(errors) == 1
    assert errors[0].details["thread"] == 1 and errors[0].details["missing"] == [17, 18]
    assert "sequence 17-18 missing before sequence 19" in str(errors[0])


def test_continuity_reports_an_scn_discontinuity() -> None:
    errors = check_continuity([log(1), log(2, first=250)])
    assert len(errors) == 1 and "ends at SCN 200 but sequence 2 starts at SCN 250" in str(errors[0])


def test_continuity_ignores_rejected_and_duplicate_objects() -> None:
    logs = [log(1), log(3, status=LogStatus.DUPLICATE), log(4, status=LogStatus.REJECTED)]
    assert check_continuity(logs) == []


# ---- the next batch -----------------------------------------------------------------------------


def test_the_first_batch_is_the_contiguous_run_from_the_lowest_sequence() -> None:
    sel = select_next([log(16), log(15), log(17)], [], max_logs=8)
    assert ids(sel.logs) == [(1, 15), (1, 16), (1, 17)]
    assert (sel.previous, sel.carries, sel.watermark_scn, sel.gaps) == (None, False, 1800, ())


def test_the_next_batch_follows_the_last_planned_one_and_carries_its_state() -> None:
    first = batch({1: (15, 16)})
    sel = select_next([*planned(log(15), log(16)), log(17), log(18)], [first], max_logs=8)
    assert ids(sel.logs) == [(1, 17), (1, 18)]
    assert (sel.previous, sel.carries) == (first, True)


def test_max_logs_caps_a_batch() -> None:
    sel = select_next([log(s) for s in range(1, 6)], [], max_logs=2)
    assert ids(sel.logs) == [(1, 1), (1, 2)] and sel.watermark_scn == 300


def test_a_log_still_being_written_stops_its_thread_without_a_gap() -> None:
    logs = [log(1), log(2, ready=False, reason="size changed"), log(3)]
    sel = select_next(logs, [], max_logs=8)
    assert (ids(sel.logs), sel.gaps, sel.waiting) == ([(1, 1)], (), 1)


def test_a_gap_stops_planning_before_it_and_names_the_missing_sequences() -> None:
    logs = [log(1), log(2), log(5), log(6)]
    sel = select_next(logs, [], max_logs=8)
    assert ids(sel.logs) == [(1, 1), (1, 2)]
    assert [(g.details["thread"], g.details["missing"]) for g in sel.gaps] == [(1, [3, 4])]
    after = select_next([*planned(log(1), log(2)), log(5), log(6)], [batch({1: (1, 2)})], max_logs=8)
    assert after.logs == ()  # nothing is planned past the gap
    assert "thread 1" in str(after.gaps[0]) and "sequence 3-4 missing" in str(after.gaps[0])


def test_an_scn_discontinuity_stops_the_run() -> None:
    sel = select_next([log(1), log(2), log(3, first=350)], [], max_logs=8)
    assert ids(sel.logs) == [(1, 1), (1, 2)] and "starts at SCN 350" in str(sel.gaps[0])


def test_rac_batch_stops_at_the_lowest_threads_watermark() -> None:
    # thread 1 covers [100, 400) in three logs, thread 2 only [100, 250): W = 250, so thread 1 takes
    # the logs that start below 250, and every thread is covered up to at least 250
    logs = [log(1), log(2), log(3), log(7, thread=2, first=100, span=150)]
    sel = select_next(logs, [], max_logs=8)
    assert ids(sel.logs) == [(1, 1), (1, 2), (2, 7)]
    assert sel.watermark_scn == 250


def test_rac_thread_without_new_logs_holds_the_others_back() -> None:
    prior = batch({1: (1, 1), 2: (7, 7)})
    logs = [*planned(log(1), log(7, thread=2, first=100)), log(2), log(3)]
    assert select_next(logs, [prior], max_logs=8).logs == ()
    sel = select_next([*logs, log(8, thread=2, first=200, span=50)], [prior], max_logs=8)
    assert ids(sel.logs) == [(1, 2), (2, 8)] and sel.watermark_scn == 250


def test_rac_closed_thread_holds_nobody_back() -> None:
    prior = batch({1: (1, 1), 2: (7, 7)})
    closed = log(7, thread=2, first=100, misc_flags=0x1000)  # closed-thread archival
    sel = select_next([*planned(log(1), closed), log(2), log(3)], [prior], max_logs=8)
    assert ids(sel.logs) == [(1, 2), (1, 3)] and sel.watermark_scn == 400


def test_rac_max_logs_takes_logs_in_scn_order() -> None:
    logs = [log(1), log(2), log(3), log(7, thread=2, first=150, span=300)]
    sel = select_next(logs, [], max_logs=2)
    assert ids(sel.logs) == [(1, 1), (2, 7)]  # first SCNs 100 and 150 before 200
    assert sel.watermark_scn == 200


def test_a_thread_holds_nothing_below_its_first_log() -> None:
    logs = [log(1), log(2), log(3), log(1, thread=2, first=300)]
    sel = select_next(logs, [], max_logs=8)
    assert ids(sel.logs) == [(1, 1), (1, 2), (1, 3), (2, 1)] and sel.watermark_scn == 400


NEW = RID + 1000


def child(seq: int, first: int, resetlogs_scn: int = 300) -> LogEntry:
    """A log of the incarnation opened by RESETLOGS at ``resetlogs_scn`` after incarnation RID."""
    return log(seq, rid=NEW, first=first, resetlogs_scn=resetlogs_scn, prev_resetlogs_id=RID)


def test_planning_moves_to_the_child_incarnation_once_the_parent_reaches_its_resetlogs_scn() -> None:
    prior = batch({1: (1, 2)})
    sel = select_next([*planned(log(1), log(2)), child(1, 300), child(2, 400)], [prior], max_logs=8)
    assert (sel.resetlogs_id, ids(sel.logs)) == (NEW, [(1, 1), (1, 2)])
    assert (sel.previous, sel.carries) == (prior, False)  # the first batch of an incarnation carries nothing


def test_the_parent_incarnation_is_finished_first() -> None:
    sel = select_next([*planned(log(1)), log(2), child(1, 300)], [batch({1: (1, 1)})], max_logs=8)
    assert (sel.resetlogs_id, ids(sel.logs)) == (RID, [(1, 2)])


def test_logs_of_an_orphaned_branch_are_not_planned() -> None:
    orphan = log(3)  # SCN [300, 400): after the resetlogs SCN 300 of the child incarnation
    sel = select_next([*planned(log(1), log(2)), orphan, child(1, 300)], [batch({1: (1, 2)})], max_logs=8)
    assert (sel.resetlogs_id, ids(sel.logs)) == (NEW, [(1, 1)])


def test_a_parent_that_ends_before_the_resetlogs_scn_is_a_gap() -> None:
    sel = select_next([*planned(log(1), log(2)), child(1, 500, 500)], [batch({1: (1, 2)})], max_logs=8)
    assert sel.logs == () and len(sel.gaps) == 1
    assert "starts at resetlogs SCN 500" in str(sel.gaps[0]) and "up to SCN 300" in str(sel.gaps[0])


@pytest.mark.parametrize(
    ("ranges", "taken", "expected"),
    [
        ({1: (15, 16)}, {}, "b-000015-000016"),
        ({2: (3, 9)}, {}, "b-t2.000003-000009"),
        ({1: (15, 16), 2: (7, 9)}, {}, "b-t1.000015-000016_t2.000007-000009"),
        (
            {1: (1, 2)},
            {"b-000001-000002": batch({1: (1, 2)}, rid=1, name="b-000001-000002")},
            "b-000001-000002-r7",
        ),
        (
            {1: (1, 2)},
            {"b-000001-000002": batch({1: (1, 2)}, rid=7, name="b-000001-000002")},
            "b-000001-000002",
        ),
    ],
    ids=["thread-1", "other-thread", "rac", "taken-by-another-incarnation", "same-batch"],
)
def test_batch_ids(ranges: dict[int, tuple[int, int]], taken: dict[str, BatchEntry], expected: str) -> None:
    assert batch_id_for(ranges, 7, taken) == expected


# ---- backfill ranges ----------------------------------------------------------------------------

CHAIN = [batch({1: (1, 2)}, name="b1"), batch({1: (3, 4)}, name="b2"), batch({1: (5, 6)}, name="b3")]
CHAIN_LOGS = planned(*(log(s) for s in range(1, 7)))


def test_a_backfill_starts_from_the_batch_that_ended_just_before_it() -> None:
    rid, logs, previous = select_range(CHAIN_LOGS, CHAIN, {1: (3, 6)})
    assert (rid, [e.sequence for e in logs], previous) == (RID, [3, 4, 5, 6], CHAIN[0])


def test_a_backfill_from_the_first_planned_sequence_has_no_previous_batch() -> None:
    assert select_range(CHAIN_LOGS, CHAIN, {1: (1, 4)})[2] is None


@pytest.mark.parametrize(
    ("ranges", "message"),
    [
        ({1: (4, 6)}, r"sequence 4 is inside batch b2 \(sequences 3-4\).*boundary \(3 or 5\)"),
        ({1: (5, 8)}, "sequences 7-8 are not planned yet"),
        ({1: (6, 5)}, "invalid sequence range 6-5"),
        ({3: (1, 2)}, "thread 3 sequence 1 is not in the log catalog"),
    ],
    ids=["inside-a-batch", "beyond-the-plan", "empty-range", "unknown-thread"],
)
def test_impossible_backfills(ranges: dict[int, tuple[int, int]], message: str) -> None:
    with pytest.raises(LogSetError, match=message):
        select_range(CHAIN_LOGS, CHAIN, ranges)


def test_a_backfill_over_a_missing_log_names_it() -> None:
    logs = [e for e in CHAIN_LOGS if e.sequence != 4]
    with pytest.raises(LogSetError, match=r"sequences \[4\] are not in the log catalog"):
        select_range(logs, CHAIN, {1: (3, 6)})


# ---- catalog rows and manifests -----------------------------------------------------------------


@pytest.fixture
def catalog(tmp_path: Path) -> Iterator[LogCatalog]:
    with LogCatalog(tmp_path / "logs.sqlite") as opened:
        yield opened


def fill(catalog: LogCatalog, *logs: LogEntry) -> None:
    for entry in logs:
        catalog.put_log(entry)


def test_planned_batches_write_the_contract_manifest(catalog: LogCatalog, tmp_path: Path) -> None:
    fill(catalog, *(log(s) for s in (15, 16, 17)))
    work = str(tmp_path / "work")
    result = plan_batches(
        catalog, work_dir=work, dictionary="s3://d/dictionary.json", max_logs=2, max_batches=5
    )
    assert [b.batch_id for b in result.batches] == ["b-000015-000016", "b-000017-000017"]
    first = json.loads((tmp_path / "work/batches/b-000015-000016/manifest.json").read_text())
    second = json.loads((tmp_path / "work/batches/b-000017-000017/manifest.json").read_text())
    assert list(first) == [
        "batch_id", "publication", "logs", "dictionary", "capture", "images", "previous_batch", "carried_in",
        "watermark_scn",
    ]  # fmt: skip
    assert (first["watermark_scn"], second["watermark_scn"]) == (1700, 1800)  # next SCN of 16 and 17
    # a new publication each time a manifest is written: a re-run or backfill publishes again
    assert (
        first["publication"].startswith("b-000015-000016@") and first["publication"] != second["publication"]
    )
    rerun_batch(catalog, "b-000015-000016")
    again = json.loads((tmp_path / "work/batches/b-000015-000016/manifest.json").read_text())
    assert again["publication"] != first["publication"] and again["logs"] == first["logs"]
    assert first["capture"] is None  # REDOTRAIL_CAPTURE unset: every table of the dictionary
    assert first["images"] is None  # REDOTRAIL_IMAGES unset: GoldenGate's default images
    assert first["logs"][0] == {
        "thread": 1, "sequence": 15, "resetlogs_id": RID, "size": 1024,
        "location": f"s3://arch/archive/1_15_{RID}.arc", "etag": f"etag-1-15-{RID}", "first_scn": 1500, "next_scn": 1600,
    }  # fmt: skip
    assert (first["previous_batch"], first["carried_in"], first["dictionary"]) == (
        None,
        None,
        "s3://d/dictionary.json",
    )
    assert second["previous_batch"] == "b-000015-000016"
    assert second["carried_in"] == str(tmp_path / "work/batches/b-000015-000016/open")
    assert {e.status for e in catalog.logs()} == {LogStatus.BATCHED}
    assert plan_batches(catalog, work_dir=work).batches == ()


def test_a_backfill_batch_and_its_rerun(catalog: LogCatalog, tmp_path: Path) -> None:
    fill(catalog, *(log(s) for s in range(1, 7)))
    work = str(tmp_path / "work")
    plan_batches(catalog, work_dir=work, max_logs=2, max_batches=3)
    bf = plan_backfill(catalog, [1], 3, 6, work_dir=work)
    assert (bf.batch_id, bf.kind, bf.previous_batch) == (
        "b-000003-000006",
        BatchKind.BACKFILL,
        "b-000001-000002",
    )
    manifest = json.loads((tmp_path / "work/batches/b-000003-000006/manifest.json").read_text())
    assert [e["sequence"] for e in manifest["logs"]] == [3, 4, 5, 6]
    assert manifest["carried_in"] == str(tmp_path / "work/batches/b-000001-000002/open")
    again = plan_backfill(catalog, [1], 3, 6, work_dir=work)
    assert again.batch_id == bf.batch_id and len(catalog.batches()) == 4
    same_as_scheduled = plan_backfill(catalog, [1], 3, 4, work_dir=work)
    assert (same_as_scheduled.batch_id, same_as_scheduled.kind) == ("b-000003-000004", BatchKind.SCHEDULED)
    assert {e.status for e in catalog.logs()} == {LogStatus.BATCHED}  # a backfill does not take logs


def test_rerun_sets_a_batch_back_to_planned_and_rewrites_its_manifest(
    catalog: LogCatalog, tmp_path: Path
) -> None:
    fill(catalog, log(1))
    (b,) = plan_batches(catalog, work_dir=str(tmp_path)).batches
    catalog.set_batch_status(b.batch_id, BatchStatus.FAILED, "boom")
    manifest = tmp_path / "batches" / b.batch_id / "manifest.json"
    manifest.unlink()
    assert rerun_batch(catalog, b.batch_id).status is BatchStatus.PLANNED
    assert json.loads(manifest.read_text())["batch_id"] == b.batch_id
    with pytest.raises(LogSetError, match="no batch 'b-nope'"):
        rerun_batch(catalog, "b-nope")


def test_a_batch_starts_only_after_the_batch_it_carries_state_from(
    catalog: LogCatalog, tmp_path: Path
) -> None:
    fill(catalog, log(1), log(2))
    first, second = plan_batches(catalog, work_dir=str(tmp_path), max_logs=1, max_batches=2).batches
    with pytest.raises(
        LogSetError, match="carries in the open transactions of b-000001-000001, which is planned"
    ):
        start_batch(catalog, second.batch_id)
    stale = tmp_path / "batches" / first.batch_id / "PUBLISHED"
    stale.write_text("{}")
    assert start_batch(catalog, first.batch_id).status is BatchStatus.RUNNING
    assert not stale.exists()  # an earlier run's marker does not count for this run
    catalog.set_batch_status(first.batch_id, BatchStatus.VALIDATED)
    assert start_batch(catalog, second.batch_id).status is BatchStatus.RUNNING


@pytest.mark.parametrize(
    ("markers", "status"),
    [
        (("VALIDATED", "PUBLISHED"), BatchStatus.PUBLISHED),
        (("VALIDATED",), BatchStatus.VALIDATED),
        ((), BatchStatus.FAILED),
    ],
    ids=["published", "validated-only", "nothing"],
)
def test_finish_reads_the_markers(
    catalog: LogCatalog, tmp_path: Path, markers: tuple[str, ...], status: BatchStatus
) -> None:
    fill(catalog, log(1))
    (b,) = plan_batches(catalog, work_dir=str(tmp_path)).batches
    for marker in markers:
        (tmp_path / "batches" / b.batch_id / marker).write_text("{}")
    result = finish_batch(catalog, b.batch_id)
    assert result["status"] == status.value and catalog.get_batch(b.batch_id).status is status  # type: ignore[union-attr]
    assert result["summary"] is None  # no report/summary.json: a path that does not exist is None
    assert result["manifest"] == str(tmp_path / "batches" / b.batch_id / "manifest.json")
    published = status is BatchStatus.PUBLISHED
    assert (catalog.logs()[0].status is LogStatus.PUBLISHED) == published


# ---- settings and the task functions ------------------------------------------------------------


def test_settings_default_under_the_data_folder() -> None:
    s = Settings.from_env({"REDOTRAIL_DATA_DIR": "/srv/rt"})
    assert (s.work_dir, s.catalog_db, s.warehouse) == (
        "/srv/rt/work",
        "/srv/rt/catalog/logs.sqlite",
        "file:///srv/rt/warehouse",
    )
    assert (s.archive_url, s.dictionary, s.max_logs_per_batch) == ("s3://redo-archive/archive/", None, 8)
    assert Settings.from_env({}).work_dir == str(REPO / "data" / "work")


def test_settings_from_the_environment() -> None:
    env = {
        "REDOTRAIL_ARCHIVE_URL": "s3://a/p/", "REDOTRAIL_WORK_DIR": "s3://w/work", "REDOTRAIL_CATALOG_DB": "/c.db",
        "REDOTRAIL_WAREHOUSE": "s3://wh/", "REDOTRAIL_DICTIONARY": "s3://d/d.json", "REDOTRAIL_TABLE_FORMAT": "delta",
        "REDOTRAIL_MAX_LOGS_PER_BATCH": "3", "REDOTRAIL_MAX_BATCHES_PER_RUN": "2", "REDOTRAIL_SPARK_DEFAULTS": "/s.conf",
    }  # fmt: skip
    s = Settings.from_env(env)
    assert s == Settings(
        archive_url="s3://a/p/", work_dir="s3://w/work", catalog_db="/c.db", warehouse="s3://wh/",
        dictionary="s3://d/d.json", table_format="delta", max_logs_per_batch=3, max_batches_per_run=2,
        spark_defaults="/s.conf",
    )  # fmt: skip


@pytest.mark.parametrize("value", ["0", "-1", "many"], ids=["zero", "negative", "word"])
def test_a_bad_number_setting_is_an_error(value: str) -> None:
    with pytest.raises(RedoError, match="REDOTRAIL_MAX_LOGS_PER_BATCH must be a positive integer"):
        Settings.from_env({"REDOTRAIL_MAX_LOGS_PER_BATCH": value})


def settings_for(tmp_path: Path) -> Settings:
    return Settings.from_env(
        {"REDOTRAIL_DATA_DIR": str(tmp_path), "REDOTRAIL_SPARK_DEFAULTS": str(tmp_path / "none.conf")}
    )


def test_plan_pending_fails_on_a_gap_that_blocks_everything(tmp_path: Path) -> None:
    settings = settings_for(tmp_path)
    with LogCatalog(settings.catalog_db) as catalog:
        fill(catalog, log(1), log(3))
    assert plan_pending(settings) == ["b-000001-000001"]  # planned before the gap; pending
    with LogCatalog(settings.catalog_db) as catalog:
        catalog.set_batch_status("b-000001-000001", BatchStatus.RUNNING)
    with pytest.raises(
        LogSetError, match=r"thread 1 \(resetlogs 1224959854\): sequence 2 missing before sequence 3"
    ):
        plan_pending(settings)


def test_resolve_a_batch_id_or_a_range(tmp_path: Path) -> None:
    settings = settings_for(tmp_path)
    with LogCatalog(settings.catalog_db) as catalog:
        fill(catalog, log(1), log(2))
    assert plan_pending(settings) == ["b-000001-000002"]
    got = resolve_batch(settings, batch_id="b-000001-000002")
    assert got == {
        "batch_id": "b-000001-000002",
        "batch_dir": str(tmp_path / "work/batches/b-000001-000002"),
        "manifest": str(tmp_path / "work/batches/b-000001-000002/manifest.json"),
        "warehouse": f"file://{tmp_path / 'warehouse'}",
        "table_format": "iceberg",
        "spark_properties": "",  # the configured file does not exist
    }
    with LogCatalog(settings.catalog_db) as catalog:
        assert catalog.get_batch("b-000001-000002").status is BatchStatus.RUNNING  # type: ignore[union-attr]
    assert (
        resolve_batch(settings, threads=[1], seq_from=1, seq_to=2)["batch_id"] == "b-000001-000002"
    )  # a re-run


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [({"batch_id": "b-1", "seq_from": 1}, "not both"), ({"seq_from": 1}, "give batch_id, or both")],
    ids=["both", "half-a-range"],
)
def test_resolve_needs_one_kind_of_request(tmp_path: Path, kwargs: dict[str, object], message: str) -> None:
    with pytest.raises(RedoError, match=message):
        resolve_batch(settings_for(tmp_path), **kwargs)  # type: ignore[arg-type]


# ---- one source database per archive ------------------------------------------------------------

FREE = 1497016494  # DBID of the real 23.6 logs (database FREE)
FOREIGN = 123
OURS_SCN = 1000  # resetlogs SCN of incarnation RID in these tests; the foreign one's is lower
FAR = RID + 2000  # an incarnation of FREE whose parent is no incarnation of ours


def archived(
    seq: int, *, dbid: int = FREE, db_name: str = "FREE", rid: int = RID, resetlogs_scn: int = OURS_SCN,
    prev_rid: int = 0, first: int | None = None,
) -> bytes:  # fmt: skip
    """A closed 2-block archived log from the format writer, with a real header (SCN [s*100, s*100+100))."""
    first = seq * 100 if first is None else first
    out = io.BytesIO()
    spec = LogFileSpec(
        sequence=seq, resetlogs_id=rid, resetlogs_scn=resetlogs_scn, dbid=dbid, db_name=db_name,
        first_scn=first, first_time=dt.datetime(2026, 3, 7, 1, 44),
    )  # fmt: skip
    LogWriter(out, spec).close(next_scn=first + 100, next_time=dt.datetime(2026, 3, 7, 1, 45))
    data = bytearray(out.getvalue())
    data[512 + 292 : 512 + 296] = prev_rid.to_bytes(4, "little")  # prev resetlogs id @292 (§1.4)
    seal_block(data, 512, 512)
    return bytes(data)


class FakeArchive:
    """Just enough of a boto3 S3 client for :func:`discover`: one listing page and ranged GETs."""

    def __init__(self) -> None:
        self.objects: dict[str, bytes] = {}

    def put(self, key: str, data: bytes) -> str:
        self.objects[f"archive/{key}"] = data
        return f"s3://arch/archive/{key}"

    def get_paginator(self, name: str) -> FakeArchive:
        assert name == "list_objects_v2"
        return self

    def paginate(self, **kw: object) -> Iterator[dict[str, object]]:
        yield {
            "Contents": [
                {"Key": key, "Size": len(data), "ETag": f'"{hash(data):x}"'}
                for key, data in sorted(self.objects.items())
                if key.startswith(str(kw["Prefix"]))
            ]
        }

    def get_object(self, **kw: object) -> dict[str, object]:
        first, last = str(kw["Range"]).removeprefix("bytes=").split("-")
        return {"Body": io.BytesIO(self.objects[str(kw["Key"])][int(first) : int(last) + 1])}


ARCHIVE = "s3://arch/archive/"


def test_foreign_logs_dropped_beside_ours_are_rejected_and_ours_still_planned(
    catalog: LogCatalog, tmp_path: Path
) -> None:
    s3 = FakeArchive()
    ours = [s3.put(f"1_{s}_{RID}.arc", archived(s)) for s in (15, 16)]
    discover(catalog, ARCHIVE, client=s3, now=NOW)  # learns FREE from its first log
    source = catalog.source()
    assert source == SourceEntry(
        dbid=FREE, db_name="FREE", learned_from=ours[0], root_resetlogs_id=RID, root_resetlogs_scn=OURS_SCN,
        learned=NOW,
    )  # fmt: skip
    # another database's logs: other DBID, other incarnation, whose resetlogs SCN sorts before ours
    foreign = [
        s3.put(f"1_{s}_777.arc", archived(s, dbid=FOREIGN, db_name="FOREIGN", rid=777, resetlogs_scn=5))
        for s in (1, 2)
    ]
    report = discover(catalog, ARCHIVE, client=s3)
    assert dict(report.rejected) == dict.fromkeys(
        foreign,
        f"DBID 123 (FOREIGN) is not this pipeline's database DBID {FREE} (FREE), learned from {ours[0]}",
    )
    assert (report.ready, report.gaps) == (tuple(ours), ())  # rejected logs are no gap
    assert (
        report.source
        == f"DBID {FREE} (FREE), learned from {ours[0]}; root incarnation {RID} (resetlogs SCN 1000)"
    )
    (b,) = plan_batches(catalog, work_dir=str(tmp_path), max_batches=3).batches
    assert (b.batch_id, b.resetlogs_id) == ("b-000015-000016", RID)
    assert {e.location for e in catalog.logs(status=LogStatus.REJECTED)} == set(foreign)
    s3.put("1_1_777.arc", b"")  # unchanged rejected objects are not read again; changed ones are
    assert discover(catalog, ARCHIVE, client=s3).read == (foreign[0],)


def test_a_log_with_only_its_dbid_changed_is_rejected_not_batched(
    catalog: LogCatalog, tmp_path: Path
) -> None:
    s3 = FakeArchive()
    ours = [s3.put(f"1_{s}_{RID}.arc", archived(s)) for s in (15, 16)]
    discover(catalog, ARCHIVE, client=s3)
    other = s3.put(f"1_17_{RID}.arc", archived(17, dbid=999, db_name="FREE"))  # same incarnation and SCNs
    twin = s3.put(f"copy/1_16_{RID}.arc", archived(16, dbid=999, db_name="FREE"))  # same identity as ours
    report = discover(catalog, ARCHIVE, client=s3)
    why = f"DBID 999 (FREE) is not this pipeline's database DBID {FREE} (FREE), learned from {ours[0]}"
    assert dict(report.rejected) == {other: why, twin: why}
    assert (report.duplicates, report.gaps) == ((), ())
    (b,) = plan_batches(catalog, work_dir=str(tmp_path), max_batches=3).batches
    assert [e.location for e in catalog.batch_logs(b.batch_id)] == ours


def test_a_configured_dbid_is_the_source_before_any_log(catalog: LogCatalog, tmp_path: Path) -> None:
    s3 = FakeArchive()
    assert (
        discover(catalog, ARCHIVE, client=s3, dbid=FREE, now="t0").source
        == f"DBID {FREE}, learned from REDOTRAIL_DBID"
    )
    assert catalog.source() == SourceEntry(dbid=FREE, learned_from="REDOTRAIL_DBID", learned="t0")
    # the other database's logs come first, with the lower resetlogs SCN: without the DBID they would be planned
    foreign = s3.put("1_1_777.arc", archived(1, dbid=FOREIGN, db_name="FOREIGN", rid=777, resetlogs_scn=5))
    ours = s3.put(f"1_15_{RID}.arc", archived(15))
    report = discover(catalog, ARCHIVE, client=s3, dbid=FREE, now="t1")
    assert report.rejected == (
        (
            foreign,
            f"DBID 123 (FOREIGN) is not this pipeline's database DBID {FREE} (FREE), learned from REDOTRAIL_DBID",
        ),
    )
    assert catalog.source() == SourceEntry(
        dbid=FREE, db_name="FREE", learned_from="REDOTRAIL_DBID", root_resetlogs_id=RID,
        root_resetlogs_scn=OURS_SCN, learned="t0",
    )  # fmt: skip
    (b,) = plan_batches(catalog, work_dir=str(tmp_path)).batches
    assert [e.location for e in catalog.batch_logs(b.batch_id)] == [ours]


def test_a_configured_dbid_other_than_the_learned_one_is_an_error(catalog: LogCatalog) -> None:
    s3 = FakeArchive()
    first = s3.put(f"1_15_{RID}.arc", archived(15))
    discover(catalog, ARCHIVE, client=s3, now=NOW)
    message = f"REDOTRAIL_DBID is 123, but this log catalog captures DBID {FREE} (FREE), learned from {first} at {NOW}"
    with pytest.raises(LogSetError, match=re.escape(message)) as caught:
        discover(catalog, ARCHIVE, client=s3, dbid=FOREIGN)
    assert caught.value.position.file == catalog.path
    assert discover(catalog, ARCHIVE, client=s3, dbid=FREE).source is not None  # the same one is fine


def test_several_databases_on_the_first_run_plan_nothing_until_the_dbid_is_set(tmp_path: Path) -> None:
    settings = settings_for(tmp_path)
    s3 = FakeArchive()
    ours = [s3.put(f"1_{s}_{RID}.arc", archived(s)) for s in (15, 16)]
    foreign = s3.put("1_1_777.arc", archived(1, dbid=FOREIGN, db_name="FOREIGN", rid=777, resetlogs_scn=5))
    message = (
        f"the archive holds logs of 2 databases (DBID 123 FOREIGN: 1 log, DBID {FREE} FREE: 2 logs); "
        "set REDOTRAIL_DBID to the one this pipeline captures"
    )
    settings = dataclasses.replace(settings, archive_url=ARCHIVE)
    found = discover_archive(settings, client=s3)
    assert (found["gaps"], found["source"], found["ready"], found["rejected"]) == ([message], None, [], [])
    assert dict(found["waiting"]) == {
        foreign: "DBID 123 (FOREIGN) is one of 2 databases in the archive: waits for REDOTRAIL_DBID",
        **dict.fromkeys(
            ours, f"DBID {FREE} (FREE) is one of 2 databases in the archive: waits for REDOTRAIL_DBID"
        ),
    }
    with pytest.raises(LogSetError, match=re.escape(message)):
        plan_pending(settings)
    with LogCatalog(settings.catalog_db) as catalog:
        assert (catalog.source(), catalog.batches()) == (None, [])

    configured = dataclasses.replace(settings, dbid=FREE)  # the operator sets REDOTRAIL_DBID
    found = discover_archive(configured, client=s3)
    assert ([loc for loc, _ in found["rejected"]], found["ready"], found["gaps"]) == ([foreign], ours, [])
    assert plan_pending(configured) == ["b-000015-000016"]


def test_the_dbid_setting() -> None:
    assert (Settings.from_env({}).dbid, Settings.from_env({"REDOTRAIL_DBID": "1497016494"}).dbid) == (
        None,
        FREE,
    )
    with pytest.raises(RedoError, match="REDOTRAIL_DBID must be a DBID"):
        Settings.from_env({"REDOTRAIL_DBID": "FREE"})


SOURCE = SourceEntry(
    dbid=FREE,
    db_name="FREE",
    learned_from="s3://arch/archive/1_1.arc",
    root_resetlogs_id=RID,
    root_resetlogs_scn=1,
)


def of_free(*logs: LogEntry) -> list[LogEntry]:
    return [dataclasses.replace(e, dbid=FREE, db_name="FREE") for e in logs]


def rejected(updates: list[LogEntry]) -> dict[tuple[int | None, int | None], str | None]:
    assert all(e.status is LogStatus.REJECTED and not e.ready for e in updates)
    return {(e.resetlogs_id, e.sequence): e.reason for e in updates}


def test_an_incarnation_that_does_not_continue_ours_is_rejected() -> None:
    logs = of_free(
        *planned(log(1), log(2)),
        child(1, 300),
        log(1, rid=FAR, first=5000, resetlogs_scn=5000, prev_resetlogs_id=555),
    )
    why = f"incarnation {FAR} (resetlogs SCN 5000, parent 555) does not continue this pipeline's incarnations [{RID}, {NEW}]"
    assert rejected(screen_logs(logs, [batch({1: (1, 2)})], SOURCE)) == {(FAR, 1): why}


def test_an_incarnation_branching_below_what_is_planned_of_its_parent_is_rejected() -> None:
    parent = planned(log(1), log(2), log(3))  # sequence 3, SCN [300, 400), is past the resetlogs SCN 300
    parent[2] = dataclasses.replace(parent[2], batch_id="b-000003-000003")
    logs = of_free(*parent, child(1, 300), child(2, 400))
    reasons = rejected(screen_logs(logs, [batch({1: (1, 2)}), batch({1: (3, 3)})], SOURCE))
    assert list(reasons) == [(NEW, 1), (NEW, 2)]
    assert reasons[(NEW, 1)] == (
        f"incarnation {NEW} branches from incarnation {RID} at resetlogs SCN 300, but incarnation {RID} is "
        "already planned past it: thread 1 sequence 3 (SCN 300 to 400, batch b-000003-000003) is of the "
        "abandoned branch"
    )


def test_a_sibling_of_the_incarnation_planning_moved_to_is_rejected() -> None:
    sibling = log(1, rid=NEW + 1, first=250, resetlogs_scn=250, prev_resetlogs_id=RID)
    logs = of_free(*planned(log(1), log(2), child(1, 300)), sibling)
    chain = [batch({1: (1, 2)}), batch({1: (1, 1)}, rid=NEW, name="b-new")]
    reason = rejected(screen_logs(logs, chain, SOURCE))[(NEW + 1, 1)]
    assert reason == (
        f"incarnation {NEW + 1} branches from incarnation {RID} at resetlogs SCN 250, but planning already "
        f"moved from incarnation {RID} to incarnation {NEW} (resetlogs SCN 300)"
    )


def test_a_child_incarnation_is_planned_after_its_parent(catalog: LogCatalog, tmp_path: Path) -> None:
    s3 = FakeArchive()
    s3.put(f"1_1_{RID}.arc", archived(1, resetlogs_scn=1))
    s3.put(f"1_2_{RID}.arc", archived(2, resetlogs_scn=1))
    discover(catalog, ARCHIVE, client=s3)
    work = str(tmp_path / "work")
    assert [b.batch_id for b in plan_batches(catalog, work_dir=work).batches] == ["b-000001-000002"]
    for s in (1, 2):  # RESETLOGS at SCN 300, where the parent's planned logs end
        s3.put(f"1_{s}_{NEW}.arc", archived(s, rid=NEW, resetlogs_scn=300, prev_rid=RID, first=200 + s * 100))
    report = discover(catalog, ARCHIVE, client=s3)
    assert (report.rejected, report.gaps, len(report.ready)) == ((), (), 2)
    (b,) = plan_batches(catalog, work_dir=work).batches
    assert (b.batch_id, b.resetlogs_id, b.previous_batch, b.carried_in) == (
        "b-000001-000002-r" + str(NEW), NEW, "b-000001-000002", None,
    )  # fmt: skip


def test_planning_never_mixes_databases() -> None:
    logs = [log(1, dbid=FREE), log(2, dbid=FREE), log(1, rid=777, resetlogs_scn=0, dbid=FOREIGN)]
    sel = select_next(logs, [], max_logs=8)
    assert sel.logs == () and "the archive holds logs of 2 databases" in str(sel.gaps[0])
    assert learn_source(None, logs) is None
    assert databases_message(logs[:2]) is None


def test_a_backfill_watermark_is_its_threads_lowest_next_scn() -> None:
    # thread 1 to SCN 1700, thread 2 to 1650; a thread archived closed (end of redo) limits nothing
    t1 = [log(15), log(16)]
    t2 = [log(8, thread=2, first=1500, span=150)]
    assert range_watermark([*t1, *t2]) == 1650
    closed = dataclasses.replace(t2[0], misc_flags=0x0008)
    assert range_watermark([*t1, closed]) == 1700
    assert range_watermark([closed]) is None


def test_a_backfill_of_two_threads_writes_its_watermark(catalog: LogCatalog, tmp_path: Path) -> None:
    fill(
        catalog, log(1), log(2), log(1, thread=2, first=100, span=150), log(2, thread=2, first=250, span=100)
    )
    work = str(tmp_path / "work")
    plan_batches(catalog, work_dir=work, max_logs=8)
    batch = plan_backfill(catalog, [1, 2], 1, 1, work_dir=work)
    manifest = json.loads((Path(batch.batch_dir) / "manifest.json").read_text())
    assert manifest["watermark_scn"] == 200  # thread 1's log 1 ends there, thread 2's at 250
