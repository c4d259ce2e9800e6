"""Partitioned tables, interval partitions, partition DDL and the SYS rows of the generator
(synth/partitions.py, partddl.py, sysrows.py): the dictionary document's SYS layouts and ``sys``
rows, the redo read back through the Rust core (row changes on the partitions' objects, OBJ$ / TABPART$
row changes on objects 18 / 947), and what is refused. Expected values come from the scenario."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from redo_lib.assembly.events import ChangeEvent, EventKind, events_from_arrow
from redo_lib.dictionary import load_dictionary
from redo_lib.errors import ScenarioError
from redo_lib.synth import GenerationResult, random_scenario
from redo_lib.synth.columns import encode, parse_type
from tests.unit.redo_lib.synth.running import run, table_rows

PARTITIONED = """
tables:
  - owner: APP
    name: T
    columns:
      - {name: ID, type: NUMBER, nullable: false}
      - {name: NAME, type: VARCHAR2(20)}
    primary_key: [ID]
    partition_by:
      type: interval
      column: ID
      interval: 100
      partitions:
        - {name: P1, values: 100}
        - {name: P2, values: 200}
  - owner: APP
    name: PLAIN
    columns:
      - {name: ID, type: NUMBER, nullable: false}
      - {name: NAME, type: VARCHAR2(20)}
    primary_key: [ID]
"""
N = parse_type("NUMBER")
V = parse_type("VARCHAR2(128)")


def _events(result: GenerationResult) -> list[ChangeEvent]:
    from redo_lib.pipeline import decode_range_arrow

    events = [e for log in result.logs for batch in decode_range_arrow(log) for e in events_from_arrow(batch)]
    return sorted(events, key=lambda e: e.sort_key)


def _col(event: ChangeEvent, index: int, *, before: bool = False) -> bytes | None:
    return dict(event.before if before else event.after).get(index)


def _doc(result: GenerationResult) -> dict[str, Any]:
    return json.loads(result.dictionary.read_text())


def test_document_carries_sys_layouts_and_rows(tmp_path: Path) -> None:
    result, _ = run("steps: []\n", tmp_path, table=PARTITIONED)
    doc = _doc(result)
    sys_tables = {t["name"]: t for t in doc["tables"] if t["owner"] == "SYS"}
    assert {n: (t["obj"], t["dataobj"]) for n, t in sys_tables.items()} == {
        "OBJ$": (18, 18), "TABPART$": (947, 947), "TABCOMPART$": (969, 969), "TABSUBPART$": (959, 959),
        "USER$": (22, 10), "COL$": (21, 2), "CDEF$": (31, 29), "CCOL$": (32, 29),
    }  # fmt: skip
    assert len(sys_tables["OBJ$"]["columns"]) == 37
    assert [c["name"] for c in sys_tables["TABPART$"]["columns"]][:5] == [
        "OBJ#",
        "DATAOBJ#",
        "BO#",
        "PART#",
        "HIBOUNDLEN",
    ]
    table = next(t for t in doc["tables"] if t["name"] == "T")
    assert table["dataobj"] is None
    parts = table["partitions"]
    assert [p["name"] for p in parts] == ["P1", "P2"] and all(p["obj"] == p["dataobj"] for p in parts)
    start = 999_999  # settings.start_scn - 1: the export SCN
    objs = {r["OBJ#"]: r for r in doc["sys"]["OBJ$"]}
    assert objs[table["obj"]] | {"rowid": None} == {
        "rowid": None, "valid_from_scn": start, "valid_to_scn": None, "OBJ#": table["obj"], "DATAOBJ#": None,
        "OWNER#": 130, "NAME": "T", "SUBNAME": None, "TYPE#": 2, "FLAGS": 0,
    }  # fmt: skip
    assert [(objs[p["obj"]]["SUBNAME"], objs[p["obj"]]["TYPE#"], objs[p["obj"]]["DATAOBJ#"]) for p in parts] == [
        ("P1", 19, parts[0]["dataobj"]), ("P2", 19, parts[1]["dataobj"]),
    ]  # fmt: skip
    tabpart = doc["sys"]["TABPART$"]
    assert [(r["OBJ#"], r["BO#"], r["PART#"]) for r in tabpart] == [
        (parts[0]["obj"], table["obj"], 10),
        (parts[1]["obj"], table["obj"], 20),
    ]
    assert all(r["rowid"].startswith("AAAAOz") for r in tabpart)  # data object 947
    assert all(r["rowid"].startswith("AAAAAS") for r in doc["sys"]["OBJ$"])  # data object 18
    assert doc["sys"]["USER$"][0]["NAME"] == "APP" and doc["sys"]["USER$"][0]["rowid"].startswith("AAAAAK")
    history = load_dictionary(result.dictionary)  # the readers still load it
    assert history.lookup(parts[1]["obj"], start + 10).name == "T"


def test_interval_partition_is_created_by_a_recursive_transaction(tmp_path: Path) -> None:
    result, trail = run(
        """
steps:
  - insert: {table: T, rows: [{ID: 5, NAME: a}, {ID: 150, NAME: b}, {ID: 420, NAME: c}]}
  - commit
""",
        tmp_path,
        table=PARTITIONED,
    )
    doc = _doc(result)
    table = next(t for t in doc["tables"] if t["name"] == "T")
    p1, p2 = (p["obj"] for p in table["partitions"])
    new_obj = max(p1, p2, table["obj"] + 5) + 1  # the next number of the object counter
    assert [(r["table"], r["obj"], r["columns"]["ID"]) for r in trail] == [
        ("T", p1, "5"),
        ("T", p2, "150"),
        ("T", new_obj, "420"),
    ]
    events = _events(result)
    inserts = [e for e in events if e.kind == EventKind.CHANGE and e.obj in (p1, p2, new_obj)]
    assert [(e.obj, e.dataobj) for e in inserts] == [(p1, p1), (p2, p2), (new_obj, new_obj)]
    obj_rows = [e for e in events if e.kind == EventKind.CHANGE and e.obj == 18]
    assert len(obj_rows) == 1 and obj_rows[0].dataobj == 18
    row = obj_rows[0]
    assert _col(row, 0) == encode(N, new_obj) and _col(row, 1) == encode(N, new_obj)
    assert _col(row, 3) == encode(V, "T") and _col(row, 5) == encode(V, "SYS_P101")
    assert _col(row, 6) == encode(N, 19)
    tabpart = [e for e in events if e.kind == EventKind.CHANGE and e.obj == 947]
    assert len(tabpart) == 1
    assert _col(tabpart[0], 2) == encode(N, table["obj"]) and _col(tabpart[0], 26) == b"500"
    # its own transaction, committed before the row of ID 420 is written, not the insert's
    xid = row.xid
    assert xid != inserts[0].xid and tabpart[0].xid == xid
    commit = next(e for e in events if e.kind == EventKind.COMMIT and e.xid == xid)
    assert commit.sort_key < inserts[2].sort_key
    assert all(r["xid"] != f"{xid.usn}.{xid.slot}.{xid.sqn}" for r in trail)


def test_partition_ddl_writes_its_sys_rows(tmp_path: Path) -> None:
    result, trail = run(
        """
steps:
  - insert: {table: T, rows: [{ID: 5}, {ID: 150}, {ID: 160}]}
  - commit
  - truncate_partition: {table: T, partition: P1}
  - drop_partition: {table: T, partition: P2}
  - insert: {table: T, values: {ID: 7}}
  - commit
""",
        tmp_path,
        table=PARTITIONED,
    )
    doc = _doc(result)
    table = next(t for t in doc["tables"] if t["name"] == "T")
    p1, p2 = (p["obj"] for p in table["partitions"])
    ddl = [r for r in trail if r["op"] == "DDL"]
    assert [r["columns"]["DDL_TEXT"] for r in ddl] == [
        "ALTER TABLE APP.T TRUNCATE PARTITION P1", "ALTER TABLE APP.T DROP PARTITION P2",
    ]  # fmt: skip
    events = _events(result)
    ddl_events = [e for e in events if e.kind == EventKind.DDL]
    truncate_txn = [e for e in events if e.xid == ddl_events[0].xid and e.kind == EventKind.CHANGE]
    new_dataobj = max(p1, p2, table["obj"] + 5) + 1
    # OBJ$ and TABPART$ DATAOBJ# updates of P1 to its new data object id
    assert [(e.obj, e.redo_op) for e in truncate_txn] == [(18, 0x0B05), (947, 0x0B05)]
    assert all(
        _col(e, 1) == encode(N, new_dataobj) and _col(e, 1, before=True) == encode(N, p1)
        for e in truncate_txn
    )
    drop_txn = [e for e in events if e.xid == ddl_events[1].xid and e.kind == EventKind.CHANGE]
    assert [(e.obj, e.redo_op) for e in drop_txn] == [(947, 0x0B03), (18, 0x0B03)]
    last = [e for e in events if e.kind == EventKind.CHANGE and e.obj == p1][-1]
    assert last.dataobj == new_dataobj  # later DML names the new data object id
    assert [r["ID"] for r in table_rows(result, "APP.T")] == ["7"]


def test_split_merge_exchange_rehome_rows(tmp_path: Path) -> None:
    text = PARTITIONED.replace("type: interval", "type: range").replace("      interval: 100\n", "")
    result, trail = run(
        """
steps:
  - insert: {table: T, rows: [{ID: 5}, {ID: 60}, {ID: 150}]}
  - insert: {table: PLAIN, rows: [{ID: 250, NAME: x}]}
  - commit
  - split_partition: {table: T, partition: P1, at: 50, into: [P1A, P1B]}
  - merge_partitions: {table: T, partitions: [P1B, P2], into: P9}
  - add_partition: {table: T, partition: P3, values: 300}
  - exchange_partition: {table: T, partition: P3, with: PLAIN}
""",
        tmp_path,
        table=text,
    )
    texts = [r["columns"]["DDL_TEXT"] for r in trail if r["op"] == "DDL"]
    assert texts == [
        "ALTER TABLE APP.T SPLIT PARTITION P1 AT (50) INTO (PARTITION P1A, PARTITION P1B)",
        "ALTER TABLE APP.T MERGE PARTITIONS P1B, P2 INTO PARTITION P9",
        "ALTER TABLE APP.T ADD PARTITION P3 VALUES LESS THAN (300)",
        "ALTER TABLE APP.T EXCHANGE PARTITION P3 WITH TABLE APP.PLAIN",
    ]
    assert [r["ID"] for r in table_rows(result, "APP.T")] == ["5", "60", "150", "250"]
    assert table_rows(result, "APP.PLAIN") == []
    events = _events(result)
    ddl = [e for e in events if e.kind == EventKind.DDL]
    split = [(e.obj, e.redo_op) for e in events if e.xid == ddl[0].xid and e.kind == EventKind.CHANGE]
    # the old partition's TABPART$ + OBJ$ rows deleted, P2 renumbered (PART# 20 -> 30), the two new
    # partitions' OBJ$ + TABPART$ rows inserted; no row redo for the rows moved
    assert split == [
        (947, 0x0B03),
        (18, 0x0B03),
        (947, 0x0B05),
        (18, 0x0B02),
        (947, 0x0B02),
        (18, 0x0B02),
        (947, 0x0B02),
    ]
    exchange = [(e.obj, e.redo_op) for e in events if e.xid == ddl[3].xid and e.kind == EventKind.CHANGE]
    assert exchange == [(18, 0x0B05), (18, 0x0B05), (947, 0x0B05)]


@pytest.mark.parametrize(
    ("steps", "message"),
    [
        ("- truncate_partition: {table: PLAIN, partition: P1}", "not partitioned"),
        ("- drop_partition: {table: T, partition: NOPE}", "no partition NOPE"),
        (
            "- insert: {table: T, values: {ID: 5}}\n- update: {table: T, set: {ID: 150}, where: {ID: 5}}",
            "ORA-14402",
        ),
        ("- add_partition: {table: T, partition: P9, values: 900}", "interval"),
        ("- drop_column: {table: T, column: ID}", "partitioning key"),
    ],
)
def test_refused_partition_steps(steps: str, message: str, tmp_path: Path) -> None:
    with pytest.raises(ScenarioError, match=message):
        run("steps:\n" + steps + "\n", tmp_path, table=PARTITIONED)


def test_row_movement_is_a_delete_and_an_insert(tmp_path: Path) -> None:
    """ENABLE ROW MOVEMENT: an update of the partition key that moves a row writes a delete on the
    old partition's segment and an insert on the new one (a new interval partition made first), in
    the statement's transaction; a row that stays is updated in place. The core reads them back as
    such: the expected trail comes from the SQL, the events from the redo."""
    table = PARTITIONED.replace(
        "        - {name: P2, values: 200}\n", "        - {name: P2, values: 200}\n      row_movement: true\n"
    )
    result, trail = run(
        """
steps:
  - insert: {table: T, rows: [{ID: 5, NAME: a}, {ID: 7, NAME: b}, {ID: 150, NAME: c}]}
  - commit
  - update: {table: T, set: {ID: 450}, where: {ID: 5}}
  - update: {table: T, set: {ID: 120}, where: {ID: 7}}
  - update: {table: T, set: {ID: 160}, where: {ID: 150}}
  - commit
""",
        tmp_path,
        table=table,
    )
    doc = _doc(result)
    t = next(x for x in doc["tables"] if x["name"] == "T")
    p1, p2 = (p["obj"] for p in t["partitions"])
    moved = [
        (r["op"], r["obj"], r["columns"]["ID"]) for r in trail if r["commit_scn"] == trail[-1]["commit_scn"]
    ]
    new_obj = moved[1][1]
    assert new_obj not in (p1, p2)
    assert moved == [("DELETE", p1, "5"), ("INSERT", new_obj, "450"), ("DELETE", p1, "7"), ("INSERT", p2, "120"),
                     ("PK_UPDATE", p2, "160")]  # fmt: skip
    assert trail[-2]["columns"] == {"ID": "120", "NAME": "b"} and trail[-2]["rowid"] != trail[-3]["rowid"]
    events = [e for e in _events(result) if e.kind == EventKind.CHANGE and e.obj in (p1, p2, new_obj)]
    # 11.3 DRP, 11.2 IRP, 11.5 URP
    assert [(e.redo_op, e.obj) for e in events[3:]] == [(0x0B03, p1), (0x0B02, new_obj), (0x0B03, p1),
                                                        (0x0B02, p2), (0x0B05, p2)]  # fmt: skip
    assert _col(events[4], 0) == encode(N, 450) and _col(events[6], 0) == encode(N, 120)


def test_bad_partition_by_is_refused(tmp_path: Path) -> None:
    bad = PARTITIONED.replace("{name: P2, values: 200}", "{name: P2, values: 50}")
    with pytest.raises(ScenarioError, match="ORA-14037"):
        run("steps: []\n", tmp_path, table=bad)


def test_random_partition_scenarios_run(tmp_path: Path) -> None:
    from redo_lib.synth import generate

    seen: set[str] = set()
    for seed in range(6):
        result = generate(random_scenario(seed, steps=120, ddl=True, partitions=True), tmp_path / str(seed))
        seen.update(
            r["columns"]["DDL_TEXT"].split()[3]
            for r in map(json.loads, result.trail.read_text().splitlines())
            if r["op"] == "DDL" and "PARTITION" in r["columns"]["DDL_TEXT"].split()[4:5]
        )
    assert seen, "partition DDL in the random scenarios"
