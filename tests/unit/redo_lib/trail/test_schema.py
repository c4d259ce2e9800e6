"""The Arrow form of the trail round-trips exactly, NULL and "not in the image" kept apart."""

from __future__ import annotations

import pyarrow as pa
import pyarrow.parquet as pq

from redo_lib.trail.model import TRAIL_FIELDS, IoType, TrailRecord, TransInd
from redo_lib.trail.schema import PIPELINE_FIELDS, from_row, to_arrow, trail_schema


def _record(**kw: object) -> TrailRecord:
    base: dict[str, object] = {
        "xid": "4.11.854", "commit_scn": 1621215, "commit_time": "2013-03-31T23:59:58",
        "trans_ind": TransInd.ONLY, "io_type": IoType.COMPRESSED_UPDATE, "op": "UPDATE",
        "before_after": "A", "owner": "US03", "table": "STUDENT", "obj": 76490,
        "columns": (("STUDENT_KEY", "1010"), ("SURNAME", None), ("TUITION_FEE", "6000")),
        "key_columns": ("STUDENT_KEY",), "changed_columns": ("SURNAME", "TUITION_FEE"),
        "rowid": "AAASrPAAEAAAAQ2AAJ", "scn": 1621214, "subscn": 1, "op_time": "2013-03-31T23:59:58",
        "thread": 1, "sequence": 0x45, "rba": "0x000045.00000006.0010",
        "tokens": (("R", "AAASrPAAEAAAAQ2AAJ"), ("L", "1621215"), ("6", "4.11.854")),
    }  # fmt: skip
    base.update(kw)
    return TrailRecord(**base)  # type: ignore[arg-type]


def test_schema_has_the_trail_fields_in_order() -> None:
    assert tuple(trail_schema().names) == TRAIL_FIELDS + PIPELINE_FIELDS


def test_parquet_round_trip_keeps_null_and_absent_columns_apart(tmp_path: object) -> None:
    records = [_record(), _record(trans_ind=TransInd.FIRST, columns=(("STUDENT_KEY", "1"),))]
    table = to_arrow(records, batch_id="b-000001", first_seq=10)
    path = f"{tmp_path}/trail.parquet"
    pq.write_table(table, path)
    back = pq.read_table(path)
    assert back.schema.equals(trail_schema())
    rows = back.to_pylist()
    assert [r["trail_seq"] for r in rows] == [10, 11] and {r["batch_id"] for r in rows} == {"b-000001"}
    assert [from_row(r) for r in rows] == records
    assert dict(from_row(rows[0]).columns)["SURNAME"] is None
    assert "SURNAME" not in dict(from_row(rows[1]).columns)
    assert back.schema.field("commit_time").type == pa.timestamp("us", tz="UTC")


def test_lob_descriptor_round_trips_and_counts_pieces(tmp_path: object) -> None:
    from redo_lib.trail.model import LOB_PIECE_SIZE, LobColumn

    assert LobColumn.of("DOC", 0).pieces == 0  # an empty LOB has no piece
    assert LobColumn.of("DOC", LOB_PIECE_SIZE).pieces == 1
    assert LobColumn.of("DOC", LOB_PIECE_SIZE + 1).pieces == 2
    record = _record(lob_columns=(LobColumn.of("SURNAME", 70_000),))
    assert record.to_dict()["lob_columns"] == [{"column": "SURNAME", "bytes": 70_000, "pieces": 3}]
    assert "lob_columns" not in _record().to_dict()
    path = f"{tmp_path}/lob.parquet"
    pq.write_table(to_arrow([record]), path)
    assert [from_row(r) for r in pq.read_table(path).to_pylist()] == [record]
    assert TrailRecord.from_dict(record.to_dict()) == record
