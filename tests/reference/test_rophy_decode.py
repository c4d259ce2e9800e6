"""The real Oracle 23.6 archived logs decoded end to end, against what is known of them.

With the OLR schema checkpoint: exactly one committed user transaction (the test INSERT, README of
the data set). Without a dictionary: the committed DML agrees with OpenLogReplicator's schemaless
output transaction by transaction (xid, object, operation, column values).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from redo_lib.pipeline import balance, decode_logs

pytestmark = pytest.mark.realdata
OPS = {"INSERT": "c", "UPDATE": "u", "PK_UPDATE": "u", "DELETE": "d"}


@pytest.fixture(scope="module")
def rophy(realdata: Path) -> Path:
    return realdata / "rophy-olr-example-free-23"


def _logs(rophy: Path) -> list[Path]:
    return [rophy / "redo/arch1_15_1224959854.dbf", rophy / "redo/arch1_16_1224959854.dbf"]


def test_with_schema_exactly_the_test_insert(rophy: Path) -> None:
    result = decode_logs(_logs(rophy), rophy / "schema/TEST-chkpt-2266634.json")
    assert [r.to_dict() | {"rba": None} for r in result.trail] == [
        {
            "xid": "10.12.572",
            "commit_scn": 2267708,  # the SCN of the 5.4 commit record (trail contract rule 13)
            "commit_time": "2026-03-07T01:44:40",
            "trans_ind": 3,
            "io_type": 5,
            "op": "INSERT",
            "before_after": "A",
            "owner": "OLR_TEST",
            "table": "TEST_CDC",
            "obj": 72726,
            "columns": {"ID": "1", "NAME": "hello world"},
            "before": {},
            "key_columns": ["ID"],
            "changed_columns": [],
            "rowid": "AAARwWAAYAAAAAOAAA",
            "scn": 2267707,  # the insert record's SCN (what OLR and LogMiner print)
            "subscn": 1,
            "op_time": "2026-03-07T01:44:40",
            "thread": 1,
            "sequence": 15,
            "rba": None,
            "tokens": {"R": "AAARwWAAYAAAAAOAAA", "L": "2267708", "6": "10.12.572"},
        }
    ]
    # the SYS dictionary and space-management changes are not dropped silently: they are counted
    assert sum(result.unknown_objects.values()) + result.emit["filtered_changes"] > 0
    assert result.carried_out == []
    # Logdump-style reconciliation: every decoded row change is in the trail or counted elsewhere
    assert balance(result.counts) == {}
    assert result.counts["trail"] == {"OLR_TEST.TEST_CDC": {"INSERT": 1}}
    assert result.counts["decoded"]["OLR_TEST.TEST_CDC"] == {"INSERT": 1}


def test_schemaless_matches_openlogreplicator_transaction_by_transaction(rophy: Path) -> None:
    expected: dict[str, list[tuple[str, str, dict[str, str | None]]]] = {}
    for line in (rophy / "olr-reference/output-schemaless.json").read_text().splitlines():
        message = json.loads(line)
        for p in message["payload"]:
            if p["op"] in ("c", "u", "d"):
                image = p.get("after") if p["op"] in ("c", "u") else p.get("before")
                expected.setdefault(message["xid"], []).append((p["op"], p["schema"]["table"], image or {}))
    result = decode_logs(_logs(rophy))
    got: dict[str, list[tuple[str, str, dict[str, str | None]]]] = {}
    for r in result.trail:
        got.setdefault(r.xid, []).append((OPS[r.op], r.table, dict(r.columns)))
    assert list(got) == list(expected)  # same transactions, in the same (commit) order
    for xid, changes in expected.items():
        assert [(op, table) for op, table, _ in got[xid]] == [(op, table) for op, table, _ in changes], xid
        for (_, table, ours), (_, _, theirs) in zip(got[xid], changes, strict=True):
            # OLR leaves out columns whose value did not change; every column it prints we print alike
            assert {k: ours.get(k) for k in theirs} == theirs, (xid, table)


def test_any_cut_of_the_real_event_stream_into_batches_gives_the_same_trail(rophy: Path) -> None:
    """The assembler is a pure function of (events of a batch, open transactions carried in)."""
    from redo_lib.assembly.events import events_from_arrow
    from redo_lib.pipeline import assemble_and_emit, describe_logs, iter_batch_arrow

    events = [e for batch in iter_batch_arrow(describe_logs(_logs(rophy))) for e in events_from_arrow(batch)]
    whole = [r.to_dict() for r in assemble_and_emit(events).trail]
    assert len(whole) == 14
    for cuts in ([100], [1, 2, 3], [50, 51, 400, 700], list(range(0, len(events), 7))):
        carried: list = []
        got = []
        for start, end in zip([0, *cuts], [*cuts, len(events)], strict=True):
            result = assemble_and_emit(events[start:end], carried=carried)
            assert balance(result.counts) == {}
            got.extend(r.to_dict() for r in result.trail)
            carried = result.carried_out
        assert got == whole, cuts
