"""Mirrors follow the source's schema: publish of batches whose trail holds DDL records (IOType 160),
on real Spark into Iceberg and Delta, read back by pyiceberg and delta-rs.

The scenario, by hand (APP.ORDERS: ID NUMBER(10) key, NAME VARCHAR2(20), PRICE NUMBER(8,2), OLD
VARCHAR2(10); APP.ITEMS: ID NUMBER(10) key, QTY NUMBER(5)):

batch 1: orders 1 (a, 1.5, x) and 2 (b, 2.5, y); items 1 (5) and 2 (6); tags (a, 1), (b, 2).
batch 2: tag (c, 3); ADD (X VARCHAR2(5)) to TAGS, keyed on all its columns (so X joins its key);
  tags (c, 3, NULL) and (a, 1, NULL) deleted, (d, 4, x) inserted; RENAME COLUMN NAME TO TITLE; order 2's title bb, order 3 (c, 3.5, z) inserted with TITLE;
  ADD (NOTE VARCHAR2(30)); MODIFY (PRICE NUMBER(12,2)); order 4 (d, 12345678.25, w, n4), a price
  decimal(8,2) cannot hold; DROP COLUMN OLD; order 1's note n1; item 3 (7); TRUNCATE TABLE ITEMS;
  ADD (SHIPPED DATE) to ITEMS (a timestamp column joining a Delta mirror that had none); item 4 (8,
  2024-03-05 08:30); MODIFY (QTY NUMBER(20)) (bigint cannot become decimal(20,0) in place: refused, kept);
  CREATE TABLE APP.NEWT (K, V) and its row (1, v1); CREATE TABLE APP.EMPTYT (K) alone.
batch 3: DROP TABLE APP.NEWT.

After batch 2: ORDERS = ID, TITLE, PRICE decimal(12,2), NOTE: (1, a, 1.50, n1), (2, bb, 2.50, NULL),
(3, c, 3.50, NULL), (4, d, 12345678.25, n4); TAGS = (b, 2, NULL), (d, 4, x); ITEMS = item 4 only,
shipped 2024-03-05 08:30 (1 and 2 of batch 1 and 3 of batch 2 were truncated); NEWT = (1, v1); EMPTYT exists, empty, with its column K. After batch 3 the mirror
of NEWT keeps its row and PUBLISHED says the table was dropped. With dropped columns kept as
tombstones, OLD stays with x, y, z, w.
"""

from __future__ import annotations

import datetime as dt
import json
from decimal import Decimal
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from redo_lib.dictionary.ddl import apply_ddl
from redo_lib.dictionary.history import DictionaryHistory
from redo_lib.dictionary.model import ColumnDef, KeyKind, TableVersion, TypeCode
from redo_lib.trail.model import IoType, TrailRecord, TransInd
from redo_lib.trail.schema import to_arrow
from spark_jobs import publish
from tests.spark.test_publish import SMALL_DATA, Tables

pytest_plugins = ["tests.fixtures.spark"]
pytestmark = pytest.mark.spark


def _number(segcol: int, name: str, precision: int, scale: int = 0, *, nullable: bool = True) -> ColumnDef:
    return ColumnDef(col_no=segcol, segcol_no=segcol, name=name, type_code=TypeCode.NUMBER, type_name="NUMBER",
                     length=22, precision=precision, scale=scale, nullable=nullable)  # fmt: skip


def _text(segcol: int, name: str, length: int) -> ColumnDef:
    return ColumnDef(col_no=segcol, segcol_no=segcol, name=name, type_code=TypeCode.VARCHAR2,
                     type_name="VARCHAR2", length=length, char_length=length, charset="AL32UTF8")  # fmt: skip


START = DictionaryHistory(
    [
        TableVersion(obj=100, dataobj=100, owner="APP", name="ORDERS", key_columns=("ID",), key_kind=KeyKind.PRIMARY,
                     valid_from_scn=1, columns=(_number(1, "ID", 10, nullable=False), _text(2, "NAME", 20),
                                                _number(3, "PRICE", 8, 2), _text(4, "OLD", 10))),
        TableVersion(obj=200, dataobj=200, owner="APP", name="ITEMS", key_columns=("ID",), key_kind=KeyKind.PRIMARY,
                     valid_from_scn=1, columns=(_number(1, "ID", 10, nullable=False), _number(2, "QTY", 5))),
        TableVersion(obj=220, dataobj=220, owner="APP", name="TAGS", key_columns=("NAME", "N"), key_kind=KeyKind.ALL,
                     valid_from_scn=1, columns=(_text(1, "NAME", 10), _number(2, "N", 5))),
    ],
    db_charset="AL32UTF8", national_charset="AL16UTF16", max_object_id=250,
)  # fmt: skip
OBJ = {"ORDERS": 100, "ITEMS": 200, "TAGS": 220, "NEWT": 300, "EMPTYT": 301}


class Trail:
    """Builds a batch's trail: transactions of row changes and DDL, each at its commit SCN."""

    def __init__(self, history: DictionaryHistory) -> None:
        self.records: list[TrailRecord] = []
        self.history = history

    def _record(self, commit_scn: int, i: int, n: int, **fields: Any) -> None:
        xid = f"{commit_scn % 97}.{commit_scn % 31}.{commit_scn}"
        rowid = fields.pop("rowid", f"AAAAAAAAEAAAAAQ{len(self.records) % 10}AA")
        tokens: tuple[tuple[str, str], ...] = (("R", rowid),) if rowid else ()
        if i == 0:
            tokens += (("L", str(commit_scn)), ("6", xid))
        self.records.append(TrailRecord(
            xid=xid, commit_scn=commit_scn, commit_time="2024-03-01T10:00:00", trans_ind=TransInd.of(i, n),
            owner="APP", rowid=rowid, scn=commit_scn - 1, subscn=0, op_time="2024-03-01T10:00:00", thread=1,
            sequence=7, rba=f"0x000007.{len(self.records) + 2:08x}.0010", tokens=tokens, **fields,
        ))  # fmt: skip

    def dml(self, commit_scn: int, *changes: tuple[str, str, dict[str, str | None]]) -> None:
        for i, (op, table, values) in enumerate(changes):
            key = self.history.lookup(OBJ[table], commit_scn - 1).key_columns  # the key as it was then
            io_type, before_after = {"INSERT": (IoType.INSERT, "A"), "UPDATE": (IoType.COMPRESSED_UPDATE, "A"),
                                     "DELETE": (IoType.DELETE, "B")}[op]  # fmt: skip
            self._record(commit_scn, i, len(changes), io_type=io_type, op=op, before_after=before_after,
                         table=table, obj=OBJ[table], columns=tuple(values.items()), key_columns=key,
                         changed_columns=tuple(k for k in values if k not in key) if op == "UPDATE" else ())  # fmt: skip

    def ddl(self, commit_scn: int, table: str, text: str) -> None:
        self.history, _ = apply_ddl(self.history, obj=OBJ[table], scn=commit_scn - 1, text=text, schema="APP")
        columns = (("OPERATION", text.split()[0]), ("OBJECT_TYPE", "TABLE"), ("DDL_TEXT", text))
        self._record(commit_scn, 0, 1, io_type=IoType.DDL, op="DDL", before_after="A", table=table,
                     obj=OBJ[table], columns=columns, rowid="")  # fmt: skip


def _batches() -> list[tuple[str, list[TrailRecord], DictionaryHistory]]:
    one = Trail(START)
    one.dml(1000, ("INSERT", "ORDERS", {"ID": "1", "NAME": "a", "PRICE": "1.5", "OLD": "x"}),
            ("INSERT", "ORDERS", {"ID": "2", "NAME": "b", "PRICE": "2.5", "OLD": "y"}),
            ("INSERT", "ITEMS", {"ID": "1", "QTY": "5"}), ("INSERT", "ITEMS", {"ID": "2", "QTY": "6"}),
            ("INSERT", "TAGS", {"NAME": "a", "N": "1"}), ("INSERT", "TAGS", {"NAME": "b", "N": "2"}))  # fmt: skip
    two = Trail(one.history)
    # TAGS is keyed on all its columns: ADD gives it a key column; rows and deletes on either side of it
    two.dml(2001, ("INSERT", "TAGS", {"NAME": "c", "N": "3"}))
    two.ddl(2002, "TAGS", "ALTER TABLE APP.TAGS ADD (X VARCHAR2(5))")
    two.dml(2003, ("DELETE", "TAGS", {"NAME": "c", "N": "3", "X": None}),
            ("DELETE", "TAGS", {"NAME": "a", "N": "1", "X": None}),
            ("INSERT", "TAGS", {"NAME": "d", "N": "4", "X": "x"}))  # fmt: skip
    two.ddl(2010, "ORDERS", "ALTER TABLE APP.ORDERS RENAME COLUMN NAME TO TITLE")
    two.dml(2020, ("UPDATE", "ORDERS", {"ID": "2", "TITLE": "bb"}),
            ("INSERT", "ORDERS", {"ID": "3", "TITLE": "c", "PRICE": "3.5", "OLD": "z"}))  # fmt: skip
    two.ddl(2030, "ORDERS", "ALTER TABLE APP.ORDERS ADD (NOTE VARCHAR2(30))")
    two.ddl(2040, "ORDERS", "ALTER TABLE APP.ORDERS MODIFY (PRICE NUMBER(12,2))")
    two.dml(
        2050,
        ("INSERT", "ORDERS", {"ID": "4", "TITLE": "d", "PRICE": "12345678.25", "OLD": "w", "NOTE": "n4"}),
    )
    two.ddl(2060, "ORDERS", "ALTER TABLE APP.ORDERS DROP COLUMN OLD")
    two.dml(2070, ("UPDATE", "ORDERS", {"ID": "1", "NOTE": "n1"}))
    two.dml(2075, ("INSERT", "ITEMS", {"ID": "3", "QTY": "7"}))
    two.ddl(2080, "ITEMS", "TRUNCATE TABLE APP.ITEMS")
    two.ddl(2085, "ITEMS", "ALTER TABLE APP.ITEMS ADD (SHIPPED DATE)")
    two.dml(2090, ("INSERT", "ITEMS", {"ID": "4", "QTY": "8", "SHIPPED": "2024-03-05T08:30:00"}))
    two.ddl(
        2095, "ITEMS", "ALTER TABLE APP.ITEMS MODIFY (QTY NUMBER(20))"
    )  # bigint -> decimal(20,0): refused
    two.ddl(2100, "NEWT", "CREATE TABLE APP.NEWT (K NUMBER(10) PRIMARY KEY, V VARCHAR2(10))")
    two.dml(2110, ("INSERT", "NEWT", {"K": "1", "V": "v1"}))
    two.ddl(2120, "EMPTYT", "CREATE TABLE APP.EMPTYT (K NUMBER(10) PRIMARY KEY)")
    three = Trail(two.history)
    three.ddl(3010, "NEWT", "DROP TABLE APP.NEWT")
    return [("b-000001-000001", one.records, one.history), ("b-000002-000002", two.records, two.history),
            ("b-000003-000003", three.records, three.history)]  # fmt: skip


def _write(root: Path, batch_id: str, trail: list[TrailRecord], history: DictionaryHistory,
           previous: str | None) -> Path:  # fmt: skip
    folder = root / batch_id
    (folder / "trail").mkdir(parents=True)
    pq.write_table(to_arrow(trail, batch_id=batch_id), folder / "trail" / "part-00000.parquet")
    start = root / "dictionary.json"
    start.write_text(START.to_json())
    (folder / "dictionary.json").write_text(history.to_json())  # the batch's evolved dictionary
    manifest = {"batch_id": batch_id, "logs": [], "dictionary": str(start), "previous_batch": previous,
                "carried_in": None}  # fmt: skip
    (folder / "manifest.json").write_text(json.dumps(manifest))
    (folder / "counts.json").write_text(json.dumps({"batch_id": batch_id}))
    (folder / "VALIDATED").write_text(json.dumps({"batch_id": batch_id}))
    return folder


@pytest.fixture(scope="module")
def session(spark: Any) -> Any:
    for key, value in SMALL_DATA.items():
        spark.conf.set(key, value)
    return spark


def _rows(table: Any, key: str = "ID") -> dict[Any, dict[str, Any]]:
    return {r[key]: {k: v for k, v in r.items() if not k.startswith("_")} for r in table.to_pylist()}


# Delta's schema changes run in the default suite in the tombstone test below; this one under -m slow
@pytest.mark.parametrize("fmt", ["iceberg", pytest.param("delta", marks=pytest.mark.slow)])
def test_mirrors_follow_renames_adds_widenings_drops_truncates_creates_and_drops(
    session: Any, tmp_path: Path, fmt: str
) -> None:
    warehouse, previous = tmp_path / "warehouse", None
    published = []
    for batch_id, trail, history in _batches():
        folder = _write(tmp_path, batch_id, trail, history, previous)
        argv = ["--batch-dir", str(folder), "--warehouse", f"file://{warehouse}", "--format", fmt]
        assert publish.main(argv, spark=session) == 0
        published.append(json.loads((folder / "PUBLISHED").read_text()))
        previous = batch_id
        if batch_id == "b-000002-000002":
            after_two = Tables(fmt, warehouse)
            orders = after_two._arrow("app__orders")
            assert orders.schema.names == [
                "ID",
                "TITLE",
                "PRICE",
                "_rowid",
                "_commit_scn",
                "_batch_id",
                "NOTE",
            ]
            assert orders.schema.field("PRICE").type == pa.decimal128(12, 2)
            assert orders.schema.field("NOTE").type == pa.string()
            assert _rows(orders) == {
                1: {"ID": 1, "TITLE": "a", "PRICE": Decimal("1.50"), "NOTE": "n1"},
                2: {"ID": 2, "TITLE": "bb", "PRICE": Decimal("2.50"), "NOTE": None},
                3: {"ID": 3, "TITLE": "c", "PRICE": Decimal("3.50"), "NOTE": None},
                4: {"ID": 4, "TITLE": "d", "PRICE": Decimal("12345678.25"), "NOTE": "n4"},
            }
            assert _rows(after_two._arrow("app__items")) == {
                4: {"ID": 4, "QTY": 8, "SHIPPED": dt.datetime(2024, 3, 5, 8, 30)}
            }
            # c inserted before the ADD and deleted after it (keyed with X then): gone, as a is
            assert _rows(after_two._arrow("app__tags"), "NAME") == {
                "b": {"NAME": "b", "N": 2, "X": None}, "d": {"NAME": "d", "N": 4, "X": "x"}
            }  # fmt: skip
            assert _rows(after_two._arrow("app__newt"), "K") == {1: {"K": 1, "V": "v1"}}
            empty = after_two._arrow("app__emptyt")
            assert empty.num_rows == 0 and empty.schema.field("K").type == pa.int64()
    two, three = published[1], published[2]
    assert three["mirror_checks"] == {}  # batch 3 commits no mirror
    for doc in published[:2]:  # Great Expectations on each committed mirror against the dictionary
        assert doc["mirror_checks"] and all(c["success"] for c in doc["mirror_checks"].values()), doc[
            "mirror_checks"
        ]
    assert set(two["mirror_checks"]) == {"app__orders", "app__items", "app__tags", "app__newt", "app__emptyt"}
    changes = two["schema_changes"]["app__orders"]
    assert changes["renamed"] == [["NAME", "TITLE"]] and changes["dropped"] == ["OLD"]
    assert changes["added"] == ["NOTE"] and changes["modified"] == ["PRICE"]
    assert changes["applied"] == ["renamed NAME to TITLE", "dropped OLD", "PRICE now decimal(12,2)"]
    assert two["schema_changes"]["app__items"]["truncated_at_scn"] == 2080
    (refused,) = two["schema_changes"]["app__items"]["refused"]
    assert refused.startswith("QTY: the mirror keeps bigint, the dictionary says decimal(20,0)")
    assert Tables(fmt, warehouse)._arrow("app__items").schema.field("QTY").type == pa.int64()
    assert two["schema_changes"]["app__newt"]["created_at_scn"] == 2100
    assert "DROP TABLE at commit SCN 3010" in three["schema_changes"]["app__newt"]["notes"][0]
    # the dropped table's mirror keeps its row; the changelog holds every DDL record
    tables = Tables(fmt, warehouse)
    assert _rows(tables._arrow("app__newt"), "K") == {1: {"K": 1, "V": "v1"}}
    ddl = [r for r in tables._arrow("changelog").to_pylist() if r["op"] == "DDL"]
    assert sorted(r["commit_scn"] for r in ddl) == [
        2002,
        2010,
        2030,
        2040,
        2060,
        2080,
        2085,
        2095,
        2100,
        2120,
        3010,
    ]
    assert all(r["io_type"] == 160 and r["rowid"] == "" for r in ddl)


def test_dropped_columns_kept_as_tombstones_and_a_mirror_off_its_dictionary_reported(
    session: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Delta, with ``--keep-dropped-columns``; between the batches ITEMS.ID is rewritten as a decimal
    (as a mirror created by hand or by an older release could hold it): it keeps its type, and the
    mirror check reports it against the dictionary's bigint (QTY's refused widening is no failure)."""
    warehouse, previous = tmp_path / "warehouse", None
    for batch_id, trail, history in _batches()[:2]:
        folder = _write(tmp_path, batch_id, trail, history, previous)
        argv = ["--batch-dir", str(folder), "--warehouse", f"file://{warehouse}", "--keep-dropped-columns",
                "--format", "delta"]  # fmt: skip
        assert publish.main(argv, spark=session) == 0
        previous = batch_id
        if batch_id == "b-000001-000001":
            items = str(warehouse / "redotrail" / "app__items")
            frame = session.read.format("delta").load(items)
            frame.withColumn("ID", frame["ID"].cast("decimal(12,0)")).write.format("delta").mode(
                "overwrite"
            ).option("overwriteSchema", "true").save(items)
    checks = json.loads((tmp_path / "b-000002-000002" / "PUBLISHED").read_text())["mirror_checks"]
    assert checks["app__orders"]["success"] and checks["app__newt"]["success"]
    (failed,) = checks["app__items"]["failed"]
    assert (failed["expectation"], failed["column"], failed["type_"]) == (
        "expect_column_type_to_be",
        "ID",
        "LongType",
    )
    assert "WARNING: mirror app__items does not match the dictionary" in capsys.readouterr().err
    orders = _rows(Tables("delta", warehouse)._arrow("app__orders"))
    assert {k: v["OLD"] for k, v in orders.items()} == {1: "x", 2: "y", 3: "z", 4: "w"}
    assert {k: v["TITLE"] for k, v in orders.items()} == {1: "a", 2: "bb", 3: "c", 4: "d"}
    published = json.loads((tmp_path / "b-000002-000002" / "PUBLISHED").read_text())
    assert (
        "dropped columns kept as tombstones: ['OLD']" in published["schema_changes"]["app__orders"]["notes"]
    )
