"""Decode reports the transactions that write an out-of-row LOB locator (``locator_slots``) and the
driver keeps those of tables with a LOB column (``batches.lob_table_slots``): the Spark assemble
stage gives them to its LOB task, whose store holds the batch's pages. The lob_writes scenario's
``DBMS_LOB.TRIM`` of DATA to 8132 bytes (one page: page 1 kept whole, page 2 gone) rewrites the
row's locator without writing a LOB page, so only ``locator_slots`` sends it there (docs/lobs.md,
"Across Spark tasks")."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from redo_lib.batches import (
    LogEntry,
    Manifest,
    decode_unit,
    dictionary_at,
    lob_table_slots,
    plan_units,
    unit_locators,
)
from redo_lib.errors import AssemblyError
from redo_lib.exchange import slot_keys
from redo_lib.pipeline import describe_logs
from redo_lib.synth import generate, load_scenario

REPO = Path(__file__).resolve().parents[3]
PAGE = 8192 - 60  # the generator's LOB page (docs/lobs.md)


def _decoded(name: str, work: Path) -> tuple[Any, list[dict[str, Any]], list[dict[str, Any]]]:
    """The scenario generated, its expected trail, and the result of every decode unit of its logs."""
    result = generate(load_scenario(REPO / "include" / "scenarios" / f"{name}.yaml"), work / "scenario")
    logs = tuple(
        LogEntry(thread=r.thread, sequence=r.sequence, resetlogs_id=r.resetlogs_id, location=r.location)
        for r in describe_logs(list(result.logs))
    )
    manifest = Manifest(batch_id=name, logs=logs, dictionary=str(result.dictionary))
    units = [decode_unit(unit, str(work / "batch")) for unit in plan_units(manifest, 1 << 20)]
    expected = [json.loads(line) for line in result.trail.read_text(encoding="utf-8").splitlines()]
    return result, expected, units


def _slot(xid: str) -> int:
    usn, slot, _ = xid.split(".")
    return int(slot_keys([int(usn)], [int(slot)])[0])


@pytest.fixture(scope="module")
def lob_writes(
    tmp_path_factory: pytest.TempPathFactory,
) -> tuple[Any, list[dict[str, Any]], list[dict[str, Any]]]:
    return _decoded("lob_writes", tmp_path_factory.mktemp("lob_writes"))


def test_the_trim_that_writes_no_page_is_reported(lob_writes: Any) -> None:
    result, expected, units = lob_writes
    # the SQL: DBMS_LOB.TRIM(DATA, 8132) of row 3 (the update whose DATA is one page, hex text)
    (trim,) = [
        r["xid"] for r in expected
        if r["op"] == "UPDATE" and r["columns"].get("ID") == "3" and len(r["columns"].get("DATA") or "") == 2 * PAGE
    ]  # fmt: skip
    # the INSERT of row 2 with EMPTY_CLOB(): a locator with its (empty) data in the row
    (empty,) = [r["xid"] for r in expected if r["op"] == "INSERT" and r["columns"]["ID"] == "2"]
    located = {key for unit in units for _, key in unit["locator_slots"]}
    written = {key for unit in units for key in unit["lob_slots"]}
    assert _slot(trim) in located and _slot(trim) not in written  # no page of its own: routed by its locator
    assert _slot(empty) not in located
    assert all(u["locator_slots"] == sorted(u["locator_slots"]) for u in units)
    # DOCS has a LOB column: the driver keeps every reported slot, the trim's among them
    assert _slot(trim) in lob_table_slots(unit_locators(units), str(result.dictionary))


def test_only_objects_of_tables_with_a_lob_column_are_kept(lob_writes: Any) -> None:
    result, _, units = lob_writes
    location = str(result.dictionary)
    dictionary = dictionary_at(location)
    assert dictionary is not None
    (docs,) = {obj for unit in units for obj, _ in unit["locator_slots"]}  # the scenario's one table
    assert {v.full_name for v in dictionary.versions(docs)} == {"APP.DOCS"}
    unknown = unit_locators([{"locator_slots": [[dictionary.objects()[-1] + 1000, 99]]}])
    assert lob_table_slots(unknown, location) == set()
    assert lob_table_slots(unknown, None) == set()
    # a unit result of an older staging folder has no locator_slots: none
    assert unit_locators([{"lob_slots": [1]}]) == set()
    assert lob_table_slots(unit_locators([{"lob_slots": [1]}]), location) == set()


def test_tables_without_lob_columns_report_no_locator(tmp_path: Path) -> None:
    # basic_dml's table has no CLOB / NCLOB / BLOB column (its RAW and text values are no locators)
    _, expected, units = _decoded("basic_dml", tmp_path)
    assert expected and not any(r.get("lob_columns") for r in expected)
    assert [u["locator_slots"] for u in units] == [[] for _ in units]


def _change(usn: int, slot: int, obj: int, values: list[bytes], where: str = "after") -> dict[str, Any]:
    """A row change of the events schema with ``values`` in its ``where`` image (or its ``rows``)."""
    import pyarrow as pa

    from redo_lib.assembly.events import EventKind, events_schema

    row: dict[str, Any] = {f.name: 0 for f in events_schema() if pa.types.is_int64(f.type)}
    row.update(kind=int(EventKind.CHANGE), usn=usn, slot=slot, obj=obj)
    row.update(before=[], after=[], supp_columns=[], rows=[])
    if where == "rows":
        row["rows"] = [{"slot": 0, "values": values}]
    else:
        row[where] = [{"col": c, "value": v} for c, v in enumerate(values)]
    return row


def test_locators_of_any_image_count_and_malformed_values_do_not(tmp_path: Path) -> None:
    import random

    import pyarrow as pa

    from redo_lib.assembly.events import events_schema
    from redo_lib.format.writer import write_lob_locator, write_securefile_locator
    from redo_lib.lob_carry import event_slots
    from redo_lib.native import native

    lob_id = b"\x00\x00\x00\x01\x00\x00\x00\x00\x00\x07"
    pages = write_lob_locator(lob_id, dbas=[0x01000010, 0x01000011], last_page_bytes=100)
    extents = write_securefile_locator(lob_id, length=20000, extents=[(0x01000020, 3)])
    inline = write_lob_locator(lob_id, inline=b"in the row", chunk=8132)
    rng = random.Random(34)
    noise = [bytes(rng.randrange(256) for _ in range(rng.randrange(60))) for _ in range(2000)]
    # the locators' own bytes cut and bent: malformed, never a panic
    noise += [pages[:n] for n in range(len(pages))] + [pages[:20] + bytes([b]) * 20 for b in range(256)]
    rows = [
        _change(1, 2, 70, [b"text", pages]),
        _change(3, 4, 71, [extents], "supp_columns"),
        _change(5, 6, 72, [b"x", pages], "rows"),
        _change(7, 8, 73, [inline, b"\xc1\x02", b"an ordinary value of more than twenty bytes"]),
        _change(9, 10, 74, noise),
        _change(11, 12, 75, [pages], "before"),  # the before image: what the row held, not what it names
    ]
    batch = pa.RecordBatch.from_pylist(rows, schema=events_schema())
    assert native.locator_slots(batch) == [(70, 1, 2), (71, 3, 4), (72, 5, 6)]
    keys = slot_keys([1, 3, 5], [2, 4, 6]).tolist()
    assert event_slots(batch) == (set(), {(70, keys[0]), (71, keys[1]), (72, keys[2])})
    with pytest.raises(AssemblyError, match="no column"):
        native.locator_slots(pa.record_batch({"kind": pa.array([2], pa.int64())}))


def test_open_transactions_carried_in_report_their_locators(tmp_path: Path) -> None:
    # an open transaction of the previous batch that rewrote a locator may commit in this one
    # without writing a page: the driver reads its locator from the carried open/ file
    import pyarrow as pa
    import pyarrow.parquet as pq

    from redo_lib.assembly.events import events_schema
    from redo_lib.format.writer import write_lob_locator
    from redo_lib.lob_carry import carried_slots

    pages = write_lob_locator(
        b"\x00\x00\x00\x01\x00\x00\x00\x00\x00\x07", dbas=[0x01000010], last_page_bytes=9
    )
    rows = [
        _change(1, 2, 70, [b"text", pages]),
        _change(3, 4, 70, [b"text"]),
        _change(5, 6, 71, [pages], "rows"),
    ]
    part = tmp_path / "part-00000.parquet"
    pq.write_table(pa.Table.from_pylist(rows, schema=events_schema()), part, row_group_size=2)
    keys = slot_keys([1, 5], [2, 6]).tolist()
    assert carried_slots([str(part)]) == (set(), {(70, keys[0]), (71, keys[1])})
    assert carried_slots([]) == (set(), set())
