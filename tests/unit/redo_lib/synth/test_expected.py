"""The expected trail follows the SQL: each case writes down, from the statements alone, what the
trail must say (trail-contract rules 1-16 as the project reads them)."""

from __future__ import annotations

from pathlib import Path

import pytest

from redo_lib.synth import expected as expected_module
from redo_lib.synth.database import render_rowid
from redo_lib.synth.expected import Spool
from tests.unit.redo_lib.synth.running import run, table_rows

NO_KEY = """
tables:
  - owner: APP
    name: N
    columns:
      - {name: A, type: NUMBER}
      - {name: B, type: VARCHAR2(5)}
"""
UK_ONLY = """
tables:
  - owner: APP
    name: U
    columns:
      - {name: ID, type: NUMBER}
      - {name: CODE, type: VARCHAR2(5), nullable: false}
      - {name: NOTE, type: VARCHAR2(5)}
    unique_keys: [[ID], [CODE]]
"""


def test_rowid_text_matches_the_doc_example() -> None:
    assert render_rowid(87705, 4, 0xB0, 2) == "AAAVaZAAEAAAACwAAC"  # redo-format §7.9
    assert render_rowid(72726, 24, 14, 0) == "AAARwWAAYAAAAAOAAA"  # the real 23.6 insert


def test_insert_carries_every_column(tmp_path: Path) -> None:
    _, trail = run("steps:\n- insert: {table: T, values: {ID: 1, NAME: A}}\n- commit", tmp_path)
    (rec,) = trail
    assert rec["columns"] == {"ID": "1", "NAME": "A", "QTY": None}
    assert (rec["io_type"], rec["op"], rec["before_after"], rec["trans_ind"]) == (5, "INSERT", "A", 3)
    assert rec["key_columns"] == ["ID"] and rec["before"] == {} and rec["changed_columns"] == []
    assert rec["owner"] == "APP" and rec["table"] == "T"


def test_tokens_and_commit_facts(tmp_path: Path) -> None:
    _, trail = run(
        "steps:\n- insert: {table: T, values: {ID: 1}}\n- insert: {table: T, values: {ID: 2}}\n"
        "- insert: {table: T, values: {ID: 3}}\n- commit",
        tmp_path,
    )
    assert [r["trans_ind"] for r in trail] == [0, 1, 2]
    first = trail[0]
    assert first["tokens"] == {"R": first["rowid"], "L": str(first["commit_scn"]), "6": first["xid"]}
    assert all(r["tokens"] == {"R": r["rowid"]} for r in trail[1:])
    assert len({(r["xid"], r["commit_scn"], r["commit_time"]) for r in trail}) == 1
    assert all(r["commit_scn"] > r["scn"] for r in trail)  # the commit record comes after the change
    usn, slot, sqn = (int(x) for x in first["xid"].split("."))
    assert usn > 0 and sqn > 0 and slot >= 0
    assert len(first["rowid"]) == 18 and len({r["rowid"] for r in trail}) == 3


def test_update_carries_key_and_set_columns(tmp_path: Path) -> None:
    _, trail = run(
        "steps:\n- insert: {table: T, values: {ID: 7, NAME: a, QTY: 1}}\n- commit\n"
        "- update: {table: T, set: {QTY: {add: 2}}, where: {ID: 7}}\n- commit",
        tmp_path,
    )
    upd = trail[1]
    assert (upd["io_type"], upd["op"], upd["before_after"]) == (15, "UPDATE", "A")
    assert upd["columns"] == {"ID": "7", "QTY": "3"}
    assert upd["changed_columns"] == ["QTY"] and upd["before"] == {}
    assert upd["rowid"] == trail[0]["rowid"]


def test_update_of_a_key_column_is_a_pk_update(tmp_path: Path) -> None:
    _, trail = run(
        "steps:\n- insert: {table: T, values: {ID: 7, NAME: a}}\n- commit\n"
        "- update: {table: T, set: {ID: 8, NAME: b}, where: {ID: 7}}\n- commit",
        tmp_path,
    )
    upd = trail[1]
    assert (upd["io_type"], upd["op"], upd["before_after"]) == (115, "PK_UPDATE", "A")
    assert upd["before"] == {"ID": "7"}
    assert upd["columns"] == {"ID": "8", "NAME": "b"}
    assert upd["changed_columns"] == ["ID", "NAME"]


def test_setting_a_key_to_its_own_value_is_a_plain_update(tmp_path: Path) -> None:
    _, trail = run(
        "steps:\n- insert: {table: T, values: {ID: 7}}\n- update: {table: T, set: {ID: 7, QTY: 1}, where: all}\n- commit",
        tmp_path,
    )
    assert trail[1]["op"] == "UPDATE" and trail[1]["columns"] == {"ID": "7", "QTY": "1"}


def test_delete_carries_the_old_key(tmp_path: Path) -> None:
    _, trail = run(
        "steps:\n- insert: {table: T, values: {ID: 5, NAME: x}}\n- commit\n- delete: {table: T, where: {NAME: x}}\n- commit",
        tmp_path,
    )
    dele = trail[1]
    assert (dele["io_type"], dele["op"], dele["before_after"]) == (3, "DELETE", "B")
    assert dele["columns"] == {"ID": "5"}


def test_unique_key_of_not_null_columns_is_the_key(tmp_path: Path) -> None:
    _, trail = run(
        "steps:\n- insert: {table: U, values: {ID: 1, CODE: c1, NOTE: n}}\n"
        "- update: {table: U, set: {NOTE: m}, where: {CODE: c1}}\n- delete: {table: U, where: all}\n- commit",
        tmp_path,
        table=UK_ONLY,
    )
    assert [r["key_columns"] for r in trail] == [["CODE"]] * 3  # ID's unique key is nullable
    assert trail[1]["columns"] == {"CODE": "c1", "NOTE": "m"}
    assert trail[2]["columns"] == {"CODE": "c1"}


def test_without_a_key_every_column_is_key(tmp_path: Path) -> None:
    _, trail = run(
        "steps:\n- insert: {table: N, values: {A: 1, B: x}}\n- update: {table: N, set: {B: null}, where: {A: 1}}\n"
        "- delete: {table: N, where: {B: {is_null: true}}}\n- commit",
        tmp_path,
        table=NO_KEY,
    )
    upd, dele = trail[1], trail[2]
    assert upd["op"] == "PK_UPDATE"  # a key column changed: B, to NULL
    assert upd["before"] == {"A": "1", "B": "x"} and upd["columns"] == {"A": "1", "B": None}
    assert dele["columns"] == {"A": "1", "B": None}


def test_multi_row_statements_give_one_record_per_row_in_rowid_order(tmp_path: Path) -> None:
    _, trail = run(
        "steps:\n- insert: {table: T, rows: [{ID: 3}, {ID: 1}, {ID: 2}], array: true}\n"
        "- update: {table: T, set: {NAME: z}, where: {ID: {ge: 2}}}\n- delete: {table: T, where: all, array: true}\n"
        "- commit",
        tmp_path,
    )
    ops = [(r["op"], r["columns"]["ID"]) for r in trail]
    assert ops == [
        ("INSERT", "3"), ("INSERT", "1"), ("INSERT", "2"),
        ("UPDATE", "3"), ("UPDATE", "2"),
        ("DELETE", "3"), ("DELETE", "1"), ("DELETE", "2"),
    ]  # fmt: skip
    inserts = trail[:3]
    assert len({r["rba"] for r in inserts}) == 1  # one QMI record holds the three rows
    assert [r["rowid"] for r in inserts] == sorted(r["rowid"] for r in inserts)


def test_rolled_back_transactions_leave_nothing(tmp_path: Path) -> None:
    result, trail = run("steps:\n- insert: {table: T, values: {ID: 1}}\n- rollback\n- commit", tmp_path)
    assert trail == []
    assert table_rows(result, "APP.T") == []


def test_savepoint_rollback_keeps_only_the_net_changes(tmp_path: Path) -> None:
    result, trail = run(
        "steps:\n- insert: {table: T, values: {ID: 1}}\n- savepoint: a\n- insert: {table: T, values: {ID: 2}}\n"
        "- update: {table: T, set: {NAME: q}, where: {ID: 1}}\n- rollback_to: a\n"
        "- insert: {table: T, values: {ID: 3}}\n- commit",
        tmp_path,
    )
    assert [(r["op"], r["columns"]["ID"], r["trans_ind"]) for r in trail] == [
        ("INSERT", "1", 0),
        ("INSERT", "3", 2),
    ]
    assert table_rows(result, "APP.T") == [
        {"ID": "1", "NAME": None, "QTY": None},
        {"ID": "3", "NAME": None, "QTY": None},
    ]


def test_transactions_appear_in_commit_order(tmp_path: Path) -> None:
    _, trail = run(
        "steps:\n- {session: a, insert: {table: T, values: {ID: 1}}}\n- {session: b, insert: {table: T, values: {ID: 2}}}\n"
        "- {session: b, commit: null}\n- {session: a, insert: {table: T, values: {ID: 3}}}\n- {session: a, commit: null}",
        tmp_path,
    )
    assert [r["columns"]["ID"] for r in trail] == ["2", "1", "3"]
    assert trail[0]["commit_scn"] < trail[1]["commit_scn"]
    assert trail[1]["scn"] < trail[0]["scn"]  # a's first change is older than b's commit


def test_times_are_the_lwn_times(tmp_path: Path) -> None:
    _, trail = run(
        "settings: {start_time: 2013-03-31T23:59:58}\nsteps:\n- insert: {table: T, values: {ID: 1}}\n- sleep: 2\n"
        "- insert: {table: T, values: {ID: 2}}\n- sleep: 60\n- commit",
        tmp_path,
    )
    assert [r["op_time"] for r in trail] == ["2013-03-31T23:59:58", "2013-04-01T00:00:00"]
    assert {r["commit_time"] for r in trail} == {"2013-04-01T00:01:00"}


def test_open_transactions_at_the_end_are_not_in_the_trail_nor_the_tables(tmp_path: Path) -> None:
    result, trail = run(
        "steps:\n- insert: {table: T, values: {ID: 1}}\n- commit\n- update: {table: T, set: {NAME: open}, where: all}",
        tmp_path,
    )
    assert [r["op"] for r in trail] == ["INSERT"]
    assert table_rows(result, "APP.T") == [{"ID": "1", "NAME": None, "QTY": None}]


def test_final_tables_are_sorted_by_key(tmp_path: Path) -> None:
    result, _ = run(
        "steps:\n- insert: {table: T, rows: [{ID: 10}, {ID: -2}, {ID: 3}]}\n- commit",
        tmp_path,
    )
    assert [r["ID"] for r in table_rows(result, "APP.T")] == ["-2", "3", "10"]


def test_position_of_the_change(tmp_path: Path) -> None:
    _, trail = run(
        "steps:\n- insert: {table: T, values: {ID: 1}}\n- switch\n- insert: {table: T, values: {ID: 2}}\n- commit",
        tmp_path,
    )
    assert [(r["thread"], r["sequence"]) for r in trail] == [(1, 1), (1, 2)]
    assert trail[0]["rba"].startswith("0x000001.") and trail[1]["rba"].startswith("0x000002.")


@pytest.mark.parametrize("memory", [1, 2, 3], ids=lambda m: f"spill-after-{m}")
def test_spool_spills_and_truncates_across_the_spill(memory: int, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(expected_module, "SPOOL_MEMORY", memory)
    spool = Spool()
    for i in range(5):
        spool.append({"n": i})
    mark = spool.mark()
    for i in range(5, 9):
        spool.append({"n": i})
    spool.truncate(2)
    spool.append({"n": "x"})
    assert [r["n"] for r in spool] == [0, 1, "x"]
    spool.truncate(mark - 5)
    assert list(spool) == []
    spool.close()


def test_long_transaction_records_stay_out_of_memory(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(expected_module, "SPOOL_MEMORY", 4)
    steps = "".join(f"- insert: {{table: T, values: {{ID: {i}}}}}\n" for i in range(20))
    _, trail = run(
        "steps:\n"
        + steps
        + "- savepoint: s\n- delete: {table: T, where: {ID: {lt: 10}}}\n- rollback_to: s\n- commit",
        tmp_path,
    )
    assert [r["columns"]["ID"] for r in trail] == [str(i) for i in range(20)]
