"""DROP PARTITION and TRUNCATE PARTITION reach the mirrors (docs/tables.md, "In the mirrors"): publish
of hand-built batches over a range-partitioned table, on real Spark into Iceberg and Delta.

APP.PT (obj 400; ID NUMBER(10) key, NAME VARCHAR2(10)) has partitions P1, P2, P3 (objects and data
objects 401, 402, 403). Each change's ROWID starts with the data object of the partition its row is
in; each batch's dictionary carries the SYS rows as the DDL left them:

batch 1: 1, 2 into P1; 3, 4 into P2; 5 into P3.
batch 2: 2 renamed b2 and 6 inserted (P1), 3 renamed c2 (P2); 4 moved into P1 and 1 moved out to P3
  (row movement: their ROWIDs after it); TRUNCATE PARTITION P1 (its data object 401 -> 411); then
  7 and 2 ("again") inserted into P1 (411).
batch 3: 8 into P2; DROP PARTITION P2; 9 into P3.
batch 4: SPLIT PARTITION P3 INTO P3A (404), P3B (405); 10 into P3A; TRUNCATE PARTITION P3A.

After batch 2: 1 (P3), 2 again, 3 c2, 5, 7; 4 and 6 (in P1 at the TRUNCATE) are gone. After batch 3:
3 and 8 (P2) are gone. After batch 4: 10 is gone; 1, 5 and 9 still carry P3's data object, and P3's
rows went to P3A or P3B: ambiguous, kept, and PUBLISHED counts them (3).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq
import pytest

from redo_lib.dictionary.history import DictionaryHistory
from redo_lib.dictionary.model import ColumnDef, KeyKind, PartitionDef, TableVersion, TypeCode
from redo_lib.native import native
from redo_lib.trail.model import IoType, TrailRecord, TransInd
from redo_lib.trail.schema import to_arrow
from spark_jobs import publish
from tests.spark.test_publish import SMALL_DATA, Tables

pytest_plugins = ["tests.fixtures.spark"]
pytestmark = pytest.mark.spark

_B64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"


def _b64(value: int, width: int) -> str:
    return "".join(_B64[(value >> (6 * (width - 1 - i))) & 63] for i in range(width))


def rowid(dataobj: int, slot: int) -> str:
    """An extended ROWID in data object ``dataobj`` (file 4, block 16)."""
    return _b64(dataobj, 6) + _b64(4, 3) + _b64(16, 6) + _b64(slot, 3)


START = DictionaryHistory(
    [TableVersion(obj=400, dataobj=None, owner="APP", name="PT", key_columns=("ID",), key_kind=KeyKind.PRIMARY,
                  valid_from_scn=1,
                  columns=(ColumnDef(col_no=1, segcol_no=1, name="ID", type_code=TypeCode.NUMBER, type_name="NUMBER",
                                     length=22, precision=10, scale=0, nullable=False),
                           ColumnDef(col_no=2, segcol_no=2, name="NAME", type_code=TypeCode.VARCHAR2,
                                     type_name="VARCHAR2", length=10, char_length=10, charset="AL32UTF8")),
                  partitions=tuple(PartitionDef(obj=o, dataobj=o, name=f"P{o - 400}") for o in (401, 402, 403)))],
    db_charset="AL32UTF8", national_charset="AL16UTF16", max_object_id=500,
)  # fmt: skip


class Sys:
    """The SYS rows of APP.PT, followed through the DDL by hand (each version with its SCN range)."""

    def __init__(self) -> None:
        self.rows: dict[str, list[dict[str, Any]]] = {t: [] for t in ("OBJ$", "TABPART$", "TABCOMPART$",
                                                                      "TABSUBPART$", "USER$")}  # fmt: skip
        self.rows["USER$"].append({"rowid": "AAAAAKAAAAAAAAAAAA", "valid_from_scn": 1, "valid_to_scn": None,
                                   "USER#": 50, "NAME": "APP"})  # fmt: skip
        self._open(1, "OBJ$", 400, {"DATAOBJ#": None, "OWNER#": 50, "NAME": "PT", "SUBNAME": None, "TYPE#": 2,
                                    "FLAGS": 0})  # fmt: skip
        for obj in (401, 402, 403):
            self.add(1, obj, obj, f"P{obj - 400}")

    def _open(self, scn: int, table: str, obj: int, values: dict[str, Any]) -> None:
        rid = f"AAAAAS{table[:3]}AAAA{obj:05d}"[:18]
        self.rows[table].append(
            {"rowid": rid, "valid_from_scn": scn, "valid_to_scn": None, "OBJ#": obj, **values}
        )

    def _close(self, scn: int, table: str, obj: int) -> dict[str, Any]:
        (row,) = [r for r in self.rows[table] if r["OBJ#"] == obj and r["valid_to_scn"] is None]
        row["valid_to_scn"] = scn
        return row

    def add(self, scn: int, obj: int, dataobj: int, name: str) -> None:
        self._open(scn, "OBJ$", obj, {"DATAOBJ#": dataobj, "OWNER#": 50, "NAME": "PT", "SUBNAME": name,
                                      "TYPE#": 19, "FLAGS": 0})  # fmt: skip
        self._open(scn, "TABPART$", obj, {"DATAOBJ#": dataobj, "BO#": 400, "PART#": obj - 400})

    def drop(self, scn: int, obj: int) -> None:
        self._close(scn, "OBJ$", obj)
        self._close(scn, "TABPART$", obj)

    def truncate(self, scn: int, obj: int, dataobj: int) -> None:
        for table in ("OBJ$", "TABPART$"):
            old = self._close(scn, table, obj)
            self.rows[table].append({**old, "valid_from_scn": scn, "valid_to_scn": None, "DATAOBJ#": dataobj})

    def of(self, history: DictionaryHistory) -> DictionaryHistory:
        return history.with_sys(json.loads(json.dumps(self.rows)))


class Trail:
    """A batch's trail: transactions of row changes on APP.PT (each with its ROWID) and DDL."""

    def __init__(self) -> None:
        self.records: list[TrailRecord] = []

    def _record(self, commit_scn: int, i: int, n: int, **fields: Any) -> None:
        xid = f"{commit_scn % 97}.{commit_scn % 31}.{commit_scn}"
        rid = fields.pop("rowid")
        tokens: tuple[tuple[str, str], ...] = (("R", rid),) if rid else ()
        if i == 0:
            tokens += (("L", str(commit_scn)), ("6", xid))
        self.records.append(TrailRecord(
            xid=xid, commit_scn=commit_scn, commit_time="2024-03-01T10:00:00", trans_ind=TransInd.of(i, n),
            owner="APP", table="PT", obj=400, rowid=rid, scn=commit_scn - 1, subscn=0,
            op_time="2024-03-01T10:00:00", thread=1, sequence=7, rba=f"0x000007.{len(self.records) + 2:08x}.0010",
            tokens=tokens, **fields,
        ))  # fmt: skip

    def dml(self, commit_scn: int, *changes: tuple[str, int, int, str | None]) -> None:
        """(op, ID, data object of the row's partition, NAME) per change."""
        for i, (op, key, dataobj, name) in enumerate(changes):
            io_type, before_after = {"INSERT": (IoType.INSERT, "A"), "UPDATE": (IoType.COMPRESSED_UPDATE, "A"),
                                     "DELETE": (IoType.DELETE, "B")}[op]  # fmt: skip
            self._record(commit_scn, i, len(changes), io_type=io_type, op=op, before_after=before_after,
                         columns=(("ID", str(key)), ("NAME", name)), key_columns=("ID",),
                         changed_columns=("NAME",) if op == "UPDATE" else (), rowid=rowid(dataobj, key))  # fmt: skip

    def ddl(self, commit_scn: int, text: str) -> None:
        columns = (("OPERATION", "ALTER"), ("OBJECT_TYPE", "TABLE"), ("DDL_TEXT", text))
        self._record(
            commit_scn, 0, 1, io_type=IoType.DDL, op="DDL", before_after="A", columns=columns, rowid=""
        )


def _batches() -> list[tuple[str, list[TrailRecord], DictionaryHistory]]:
    sys = Sys()
    one = Trail()
    one.dml(1000, ("INSERT", 1, 401, "a"), ("INSERT", 2, 401, "b"), ("INSERT", 3, 402, "c"),
            ("INSERT", 4, 402, "d"), ("INSERT", 5, 403, "e"))  # fmt: skip
    first = sys.of(START)
    two = Trail()
    two.dml(2001, ("UPDATE", 2, 401, "b2"), ("INSERT", 6, 401, "f"), ("UPDATE", 3, 402, "c2"))
    two.dml(2005, ("UPDATE", 4, 401, "d"), ("UPDATE", 1, 403, "a"))  # row movement: into P1, out of P1
    two.ddl(2010, "ALTER TABLE APP.PT TRUNCATE PARTITION P1 DROP STORAGE")
    sys.truncate(2010, 401, 411)
    two.dml(2020, ("INSERT", 7, 411, "g"), ("INSERT", 2, 411, "again"))
    second = sys.of(START)
    three = Trail()
    three.dml(3001, ("INSERT", 8, 402, "h"))
    three.ddl(3010, "ALTER TABLE APP.PT DROP PARTITION P2 UPDATE GLOBAL INDEXES")
    sys.drop(3010, 402)
    three.dml(3020, ("INSERT", 9, 403, "i"))
    third = sys.of(START)
    four = Trail()
    four.ddl(4005, "ALTER TABLE APP.PT SPLIT PARTITION P3 AT (100) INTO (PARTITION P3A, PARTITION P3B)")
    sys.drop(4005, 403)
    sys.add(4005, 404, 404, "P3A")
    sys.add(4005, 405, 405, "P3B")
    four.dml(4007, ("INSERT", 10, 404, "j"))
    four.ddl(4010, "ALTER TABLE APP.PT TRUNCATE PARTITION P3A")
    sys.truncate(4010, 404, 414)
    fourth = sys.of(START)
    return [("b-000001-000001", one.records, first), ("b-000002-000002", two.records, second),
            ("b-000003-000003", three.records, third), ("b-000004-000004", four.records, fourth)]  # fmt: skip


def _write(root: Path, batch_id: str, trail: list[TrailRecord], history: DictionaryHistory,
           previous: str | None) -> Path:  # fmt: skip
    folder = root / batch_id
    (folder / "trail").mkdir(parents=True)
    pq.write_table(to_arrow(trail, batch_id=batch_id), folder / "trail" / "part-00000.parquet")
    (folder / "dictionary.json").write_text(history.to_json())  # the batch's evolved dictionary
    manifest = {"batch_id": batch_id, "logs": [], "dictionary": str(folder / "dictionary.json"),
                "previous_batch": previous, "carried_in": None}  # fmt: skip
    (folder / "manifest.json").write_text(json.dumps(manifest))
    (folder / "counts.json").write_text(json.dumps({"batch_id": batch_id}))
    (folder / "VALIDATED").write_text(json.dumps({"batch_id": batch_id}))
    return folder


@pytest.fixture(scope="module")
def session(spark: Any) -> Any:
    for key, value in SMALL_DATA.items():
        spark.conf.set(key, value)
    return spark


def _rows(tables: Tables) -> dict[int, str]:
    return {r["ID"]: r["NAME"] for r in tables._arrow("app__pt").to_pylist()}


def test_the_core_gives_the_data_objects_of_a_partition_as_rowid_prefixes() -> None:
    """The binding on the batches' SYS rows: the prefixes are what the ROWIDs start with."""
    history = _batches()[3][2]
    found = native.partition_segments(history.sys_rows.text, "APP", "PT", "P1", 2010)
    assert (found["data_objects"], found["prefixes"]) == ([401], [rowid(401, 0)[:6]])
    split = native.partition_segments(history.sys_rows.text, "APP", "PT", "P3A", 4010)
    assert (split["data_objects"], split["ambiguous"]) == ([404], [403])
    assert split["ambiguous_prefixes"] == [rowid(403, 0)[:6]]
    unknown = native.partition_segments(history.sys_rows.text, "APP", "PT", "NOPE", 4010)
    assert unknown["obj"] is None and unknown["prefixes"] == [] and "no partition NOPE" in unknown["notes"][0]


def _rerun(folder: Path, argv: list[str], session: Any, publication: str | None) -> None:
    """Publish ``folder`` again: a retry (its publication kept: each table that holds it is skipped)
    or, with ``publication``, a re-run that folds the batch over the mirror again."""
    (folder / "PUBLISHED").unlink()
    if publication:
        manifest = json.loads((folder / "manifest.json").read_text())
        (folder / "manifest.json").write_text(json.dumps({**manifest, "publication": publication}))
    assert publish.main(["--batch-dir", str(folder), *argv], spark=session) == 0


# Delta's partition removal runs in the default suite in test_partitions.py (its TRUNCATE and DROP
# PARTITION from the redo alone); this fuller history runs there under -m slow
@pytest.mark.parametrize("fmt", ["iceberg", pytest.param("delta", marks=pytest.mark.slow)])
def test_drop_and_truncate_partition_remove_the_partitions_rows_from_the_mirror(
    session: Any, tmp_path: Path, fmt: str, capsys: pytest.CaptureFixture[str]
) -> None:
    warehouse, previous = tmp_path / "warehouse", None
    argv = ["--warehouse", f"file://{warehouse}", "--format", fmt]
    seen, published = {}, {}
    for batch_id, trail, history in _batches():
        folder = _write(tmp_path, batch_id, trail, history, previous)
        assert publish.main(["--batch-dir", str(folder), *argv], spark=session) == 0
        published[batch_id] = json.loads((folder / "PUBLISHED").read_text())
        seen[batch_id] = _rows(Tables(fmt, warehouse))
        if batch_id == "b-000002-000002":  # a retry, then a re-run, of the TRUNCATE's batch change nothing
            for publication in (None, "rerun"):
                _rerun(folder, argv, session, publication)
                assert _rows(Tables(fmt, warehouse)) == seen[batch_id]
        previous = batch_id
    assert seen["b-000001-000001"] == {1: "a", 2: "b", 3: "c", 4: "d", 5: "e"}
    # P1 truncated: 4 (moved in) and 6 (inserted) before it go; 1 (moved out) stays; 2 and 7 after it
    assert seen["b-000002-000002"] == {1: "a", 2: "again", 3: "c2", 5: "e", 7: "g"}
    assert seen["b-000003-000003"] == {1: "a", 2: "again", 5: "e", 7: "g", 9: "i"}  # P2 dropped
    assert seen["b-000004-000004"] == {1: "a", 2: "again", 5: "e", 7: "g", 9: "i"}  # 10 gone, P3's kept

    (truncated,) = published["b-000002-000002"]["schema_changes"]["app__pt"]["partitions_removed"]
    assert truncated["ddl"] == "TRUNCATE PARTITION P1" and truncated["commit_scn"] == 2010
    assert truncated["rowid_prefixes"] == [rowid(401, 0)[:6]]
    # held in P1 before the batch: 1, 2; left in P1 by the batch's changes before the TRUNCATE: 2, 4, 6
    assert (truncated["held_rows"], truncated["batch_keys"]) == (2, 3)
    (dropped,) = published["b-000003-000003"]["schema_changes"]["app__pt"]["partitions_removed"]
    assert (dropped["ddl"], dropped["held_rows"], dropped["batch_keys"]) == ("DROP PARTITION P2", 1, 1)
    (split,) = published["b-000004-000004"]["schema_changes"]["app__pt"]["partitions_removed"]
    assert (split["held_rows"], split["batch_keys"]) == (0, 1)
    assert split["ambiguous_prefixes"] == [rowid(403, 0)[:6]] and split["ambiguous_rows_kept"] == 3
    assert any("P3 was split at SCN 4005 into P3A, P3B" in n for n in split["notes"])
    assert "WARNING: TRUNCATE PARTITION P3A: P3 was split" in capsys.readouterr().err

    # a re-run of the first batch under the later cuts: 4 (moved into P1 before its TRUNCATE) and 3
    # (P2 dropped) stay gone although their row changes are replayed over the mirror
    _rerun(tmp_path / "b-000001-000001", argv, session, "rerun-1")
    assert _rows(Tables(fmt, warehouse)) == seen["b-000004-000004"]
    later = json.loads((tmp_path / "b-000001-000001" / "PUBLISHED").read_text())["later_ddl"]["app__pt"]
    assert [(e["batch_id"], e["ddl"], e["commit_scn"]) for e in later] == [
        ("b-000002-000002", "TRUNCATE PARTITION P1", 2010), ("b-000003-000003", "DROP PARTITION P2", 3010),
        ("b-000004-000004", "TRUNCATE PARTITION P3A", 4010),
    ]  # fmt: skip
    # of batch 1's keys, 2 and 4 were in P1 at its TRUNCATE (1 had moved out), 3 in P2, none in P3A
    assert [e.get("batch_keys") for e in later] == [2, 1, 0]
    assert "re-run under later TRUNCATE PARTITION P1 at commit SCN 2010" in capsys.readouterr().out
