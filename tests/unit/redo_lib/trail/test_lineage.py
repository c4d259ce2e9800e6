"""lineage: what a batch's DDL records did to each table, and the names change records map to.

The DDL statements are applied to a dictionary as the pipeline does (``evolve_dictionary`` through
``apply_ddl``), then read back from the records; the expected renames, drops and epochs are worked
out by hand from the statements."""

from __future__ import annotations

from typing import Any

from redo_lib.dictionary.ddl import apply_ddl
from redo_lib.dictionary.history import SYS_TABLES, DictionaryHistory
from redo_lib.dictionary.model import ColumnDef, KeyKind, TableVersion
from redo_lib.trail.lineage import DROPPED, PartitionCut, TableChanges, name_epochs, table_changes


def _col(segcol: int, name: str) -> ColumnDef:
    return ColumnDef(col_no=segcol, segcol_no=segcol, name=name, type_code=1, type_name="VARCHAR2", length=20,
                     char_length=20, charset="AL32UTF8")  # fmt: skip


ORDERS = TableVersion(obj=100, dataobj=100, owner="APP", name="ORDERS",
                      columns=(_col(1, "ID"), _col(2, "A"), _col(3, "B"), _col(4, "C")), key_columns=("ID",),
                      key_kind=KeyKind.PRIMARY, valid_from_scn=1)  # fmt: skip
STATEMENTS = [  # (scn, commit scn, text)
    (100, 101, "ALTER TABLE APP.ORDERS RENAME COLUMN A TO A2"),
    (200, 201, "ALTER TABLE APP.ORDERS DROP COLUMN B"),
    (300, 301, "ALTER TABLE APP.ORDERS RENAME COLUMN A2 TO A3"),
    (400, 401, "ALTER TABLE APP.ORDERS ADD (B VARCHAR2(10), D NUMBER(8,2))"),
    (500, 501, "ALTER TABLE APP.ORDERS MODIFY (C VARCHAR2(60))"),
    (600, 601, "TRUNCATE TABLE APP.ORDERS"),
]


def _records() -> tuple[list[dict[str, Any]], DictionaryHistory]:
    history = DictionaryHistory([ORDERS], db_charset="AL32UTF8", national_charset="AL16UTF16")
    records = []
    for scn, commit_scn, text in STATEMENTS:
        history, _ = apply_ddl(history, obj=100, scn=scn, text=text, schema="APP")
        records.append({"op": "DDL", "owner": "APP", "table": "ORDERS", "obj": 100, "scn": scn,
                        "commit_scn": commit_scn, "columns": {"OPERATION": text.split()[0],
                                                              "OBJECT_TYPE": "TABLE", "DDL_TEXT": text}})  # fmt: skip
    return records, history


def test_changes_of_a_table_in_commit_order() -> None:
    records, history = _records()
    changes = table_changes(records, history)["APP.ORDERS"]
    assert changes.renamed == [("A", "A2"), ("A2", "A3")]
    assert changes.dropped == ["B"]
    assert changes.added == ["B", "D"] and changes.modified == ["C"]
    assert changes.truncated_at == 601 and changes.dropped_at is None and not changes.notes


def test_records_before_each_ddl_take_every_later_rename_and_drop() -> None:
    records, history = _records()
    epochs = name_epochs(table_changes(records, history)["APP.ORDERS"])
    # before 101: A -> A2 -> A3, B dropped; before 201: A2 -> A3, B dropped; before 301: A2 -> A3
    assert epochs == [(101, {"A": "A3", "B": DROPPED, "A2": "A3"}), (201, {"B": DROPPED, "A2": "A3"}),
                      (301, {"A2": "A3"})]  # fmt: skip
    kept = name_epochs(table_changes(records, history)["APP.ORDERS"], keep_dropped=True)
    assert kept == [(101, {"A": "A3", "A2": "A3"}), (201, {"A2": "A3"}), (301, {"A2": "A3"})]


def test_drop_create_and_what_cannot_be_followed() -> None:
    history = DictionaryHistory([ORDERS], db_charset="AL32UTF8", national_charset="AL16UTF16")
    history, _ = apply_ddl(history, obj=200, scn=10, text="CREATE TABLE APP.NEW (X NUMBER PRIMARY KEY)")
    history, _ = apply_ddl(history, obj=100, scn=20, text="ALTER TABLE APP.ORDERS RENAME TO OLD_ORDERS")
    history, _ = apply_ddl(history, obj=200, scn=30, text="DROP TABLE APP.NEW")

    def record(scn: int, table: str, text: str, obj: int) -> dict[str, Any]:
        return {"op": "DDL", "owner": "APP", "table": table, "obj": obj, "scn": scn, "commit_scn": scn + 1,
                "columns": [{"name": "OPERATION", "value": text.split()[0]},
                            {"name": "OBJECT_TYPE", "value": "TABLE"}, {"name": "DDL_TEXT", "value": text}]}  # fmt: skip

    records = [record(10, "NEW", "CREATE TABLE APP.NEW (X NUMBER PRIMARY KEY)", 200),
               record(20, "ORDERS", "ALTER TABLE APP.ORDERS RENAME TO OLD_ORDERS", 100),
               record(30, "NEW", "DROP TABLE APP.NEW", 200),
               record(40, "OLD_ORDERS", "ALTER TABLE APP.OLD_ORDERS ADD (C2 BOGUS_TYPE)", 100)]  # fmt: skip
    changes = table_changes(records, history)
    assert (changes["APP.NEW"].created_at, changes["APP.NEW"].dropped_at) == (11, 31)
    assert "renamed to APP.OLD_ORDERS at SCN 20" in changes["APP.ORDERS"].notes[0]
    assert "BOGUS_TYPE" in changes["APP.OLD_ORDERS"].notes[0]
    assert TableChanges("X").to_dict() == {}


def _partition_records(texts: list[tuple[int, str]]) -> list[dict[str, Any]]:
    return [{"op": "DDL", "owner": "APP", "table": "ORDERS", "obj": 100, "scn": scn, "commit_scn": scn + 1,
             "columns": {"OPERATION": "ALTER", "OBJECT_TYPE": "TABLE", "DDL_TEXT": text}} for scn, text in texts]  # fmt: skip


PARTITION_TEXTS = [
    (50, "ALTER TABLE APP.ORDERS RENAME COLUMN A TO A2"),
    (100, "ALTER TABLE APP.ORDERS ADD PARTITION P9 VALUES LESS THAN (900)"),
    (200, "ALTER TABLE APP.ORDERS SPLIT PARTITION P9 AT (500) INTO (PARTITION P5, PARTITION P9)"),
    (300, "ALTER TABLE APP.ORDERS DROP PARTITION P5"),
    (400, "ALTER TABLE APP.ORDERS EXCHANGE PARTITION P9 WITH TABLE APP.STAGE"),
]


def test_partition_maintenance_changes_no_column_of_the_mirror() -> None:
    history = DictionaryHistory([ORDERS], db_charset="AL32UTF8", national_charset="AL16UTF16")
    history = history.with_sys({name: [] for name in SYS_TABLES})
    for scn, text in PARTITION_TEXTS:
        history, _ = apply_ddl(history, obj=100, scn=scn, text=text, schema="APP")
    out = table_changes(_partition_records(PARTITION_TEXTS), history)
    changes = out["APP.ORDERS"]
    assert changes.steps == [(51, {"A": "A2"})]  # the rename only: partition DDL renames and drops nothing
    assert changes.added == [] and changes.modified == [] and changes.truncated_at is None
    # DROP PARTITION removes rows without row changes: a cut, found by the core in the SYS rows (none
    # here, which its note says: the mirror keeps the rows)
    (cut,) = changes.partition_cuts
    assert (cut.commit_scn, cut.clause, cut.name, cut.prefixes, cut.ambiguous) == (
        301,
        "DROP PARTITION",
        "P5",
        (),
        (),
    )
    assert "no table APP.ORDERS" in cut.notes[0]
    assert changes.to_dict()["partitions_removed"] == [{"commit_scn": 301, "ddl": "DROP PARTITION P5",
                                                        "notes": list(cut.notes)}]  # fmt: skip
    # EXCHANGE swaps rows without row changes: noted, not followed; ADD and SPLIT are not noted
    assert len(changes.notes) == 1
    assert changes.notes[0].startswith(
        "ALTER TABLE APP.ORDERS EXCHANGE PARTITION P9 WITH TABLE APP.STAGE at SCN 400"
    )
    # the other table's mirror misses the same swap, and says so
    assert out["APP.STAGE"].notes == changes.notes
    assert name_epochs(changes) == [(51, {"A": "A2"})]


def test_partition_maintenance_without_sys_rows_is_noted_as_not_replayed() -> None:
    history = DictionaryHistory([ORDERS], db_charset="AL32UTF8", national_charset="AL16UTF16")
    changes = table_changes(_partition_records(PARTITION_TEXTS[1:2]), history)["APP.ORDERS"]
    assert changes.steps == [] and len(changes.notes) == 1
    assert "not replayed" in changes.notes[0] and "ADD PARTITION" in changes.notes[0]


def test_a_partition_cut_reads_back_from_its_published_form() -> None:
    """A re-run reads the cuts of later batches from their PUBLISHED (spark_jobs/replay.py): the
    report's form, with the counts publish adds, gives the cut back."""
    cuts = [
        PartitionCut(2010, "TRUNCATE PARTITION", "P1", ("AAABkZ",)),
        PartitionCut(4010, "DROP SUBPARTITION", "SP_2", ("AAABla", "AAABlb"), ("AAABlc",), ("P3 was split",)),
        PartitionCut(5000, "DROP PARTITION", "", notes=("names no partition",)),
    ]
    for cut in cuts:
        assert PartitionCut.from_dict({**cut.to_dict(), "held_rows": 2, "batch_keys": 1}) == cut
