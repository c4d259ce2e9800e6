"""Capture scope: changes to objects the dictionary does not know are either provably out of scope
(counted) or may belong to a captured table (``unknown_in_scope``: validation fails on them).

A generated scenario (real binary logs + dictionary, ``redo_lib.synth``) writes to two tables in two
schemas. Its dictionary is what a real export writes: the tables, the owners exported, their objects
(``DBA_OBJECTS``) and ``max_object_id``. The tests leave one table out of the dictionary's tables
(an export that failed to describe it: its owner's object list still names it), or out of the
export altogether (another owner's object, or one created after the export, by ``max_object_id``),
and decode with ``redo_lib.pipeline.decode_logs``.
"""

from __future__ import annotations

import json
import textwrap
from pathlib import Path
from typing import Any

import pytest

from redo_lib.batches import load_manifest, merge_counts
from redo_lib.dictionary import load_dictionary
from redo_lib.discovery import Settings, build_manifest
from redo_lib.errors import RedoError
from redo_lib.pipeline import DecodeResult, balance, decode_logs, scope_report, unknown_problem
from redo_lib.storage.catalog import BatchEntry
from redo_lib.synth import GenerationResult, generate, parse_scenario
from redo_lib.trail.emit import EmitOptions, capture_options, image_options

SCENARIO = """
name: capture_scope
settings: {compat: 19c, block_size: 512, log_size: 1MB, start_scn: 1621000, start_time: 2024-03-01T10:00:00}
tables:
  - owner: APP
    name: ORDERS
    columns:
      - {name: ID, type: NUMBER, nullable: false}
      - {name: NOTE, type: VARCHAR2(20)}
    primary_key: [ID]
  - owner: AUDIT
    name: EVENTS
    columns:
      - {name: ID, type: NUMBER, nullable: false}
      - {name: WHAT, type: VARCHAR2(20)}
    primary_key: [ID]
steps:
  - insert: {table: ORDERS, values: {ID: 1, NOTE: first}}
  - commit
  - insert: {table: EVENTS, values: {ID: 10, WHAT: created}}
  - insert: {table: ORDERS, values: {ID: 2, NOTE: second}}
  - commit
  - insert: {table: EVENTS, values: {ID: 11, WHAT: changed}}
  - update: {table: EVENTS, set: {WHAT: seen}, where: {ID: 10}}
  - commit
  - delete: {table: EVENTS, where: {ID: 11}}
  - update: {table: ORDERS, set: {NOTE: done}, where: {ID: 1}}
  - commit
"""


@pytest.fixture(scope="module")
def generated(tmp_path_factory: pytest.TempPathFactory) -> GenerationResult:
    return generate(parse_scenario(textwrap.dedent(SCENARIO)), tmp_path_factory.mktemp("scope"))


def _expected(result: GenerationResult) -> list[dict[str, Any]]:
    return [json.loads(line) for line in result.trail.read_text(encoding="utf-8").splitlines()]


def _events(result: GenerationResult) -> tuple[int, int, int]:
    """AUDIT.EVENTS: its object id, its committed changes and the SCN of the first."""
    records = [r for r in _expected(result) if r["table"] == "EVENTS"]
    return records[0]["obj"], len(records), min(r["scn"] for r in records)


def _dictionary(
    result: GenerationResult,
    folder: Path,
    *,
    drop: str | None,
    max_object_id: int | None,
    listed: bool = False,
) -> Path:
    """The scenario's dictionary JSON without table ``drop``, with ``max_object_id`` as given; the
    export's object list still names the table when ``listed`` (a table of an exported owner that
    the dictionary does not describe), else it is no exported owner's object."""
    doc = json.loads(result.dictionary.read_text())
    _undescribe(doc, drop)
    if not listed:
        doc["objects"] = [o for o in doc["objects"] if o["name"] != drop]
    doc.pop("max_object_id", None)
    if max_object_id is not None:
        doc["max_object_id"] = max_object_id
    path = folder / f"dictionary-{drop}-{max_object_id}-{listed}.json"
    path.write_text(json.dumps(doc))
    return path


def _undescribe(doc: dict[str, Any], name: str | None) -> None:
    """Table ``name`` left out of the document: its ``tables`` entry and its SYS rows (OBJ$, COL$,
    CDEF$, CCOL$), which would describe it all the same (docs/dictionary.md, "The SYS rows win")."""
    objs = {t["obj"] for t in doc["tables"] if t["name"] == name}
    doc["tables"] = [t for t in doc["tables"] if t["name"] != name]
    for table in ("OBJ$", "COL$", "CDEF$", "CCOL$"):
        doc["sys"][table] = [r for r in doc["sys"].get(table, []) if r["OBJ#"] not in objs]


def _decode(result: GenerationResult, dictionary: Path, **options: Any) -> DecodeResult:
    return decode_logs(list(result.logs), dictionary, options=EmitOptions(**options) if options else None)


def test_an_unknown_object_created_after_the_export_is_unknown_in_scope(
    generated: GenerationResult, tmp_path: Path
) -> None:
    obj, changes, first_scn = _events(generated)
    decoded = _decode(generated, _dictionary(generated, tmp_path, drop="EVENTS", max_object_id=obj - 1))
    counts = decoded.counts
    entry = {
        "changes": changes,
        "first_scn": first_scn,
        "name": f"OBJ_{obj}",
        "reason": "created_after_export",
    }
    assert counts["unknown_in_scope"] == {str(obj): entry}
    assert f"OBJ_{obj}" not in counts["out_of_scope"]
    assert sum(counts["unknown_in_scope_ops"][f"OBJ_{obj}"].values()) == changes
    assert balance(counts) == {}  # not lost: accounted for, and the validation rule fails on it
    assert {r.table for r in decoded.trail} == {"ORDERS"}
    report = scope_report(counts)
    assert report["unknown_in_scope"] == {"changes": changes, "objects": {str(obj): entry}}
    assert report["warnings"] == []
    assert unknown_problem(obj, entry).startswith(f"{changes} changes from SCN {first_scn} to object {obj}")
    assert "created after the export" in unknown_problem(obj, entry)


def test_a_table_of_a_captured_owner_left_out_of_the_dictionary_is_unknown_in_scope_by_name(
    generated: GenerationResult, tmp_path: Path
) -> None:
    """Issue 37, item 1: the generator's own export (owners, objects, max_object_id as a real export
    writes them) with one table's description removed. Its changes were counted out of scope and
    the batch published without them; now they are unknown in scope, named, and rule 2 fails."""
    obj, changes, first_scn = _events(generated)
    doc = json.loads(generated.dictionary.read_text())
    assert doc["owners"] == ["APP", "AUDIT"] and doc["max_object_id"] >= obj
    assert {(o["owner"], o["name"]) for o in doc["objects"]} == {("APP", "ORDERS"), ("AUDIT", "EVENTS")}
    _undescribe(doc, "EVENTS")
    path = tmp_path / "dictionary-without-events.json"
    path.write_text(json.dumps(doc))
    counts = _decode(generated, path).counts
    entry = {
        "changes": changes,
        "first_scn": first_scn,
        "name": "AUDIT.EVENTS",
        "reason": "not_in_dictionary",
    }
    assert counts["unknown_in_scope"] == {str(obj): entry}
    assert counts["out_of_scope"] == {}
    assert sum(counts["unknown_in_scope_ops"]["AUDIT.EVENTS"].values()) == changes
    assert balance(counts) == {}
    problem = unknown_problem(obj, entry)
    assert f"to AUDIT.EVENTS (object {obj})" in problem and "captured owner AUDIT" in problem
    # an owner outside the capture scope: the same object is out of scope, counted by its name
    scoped = _decode(generated, path, **capture_options(["APP"])).counts
    assert scoped["unknown_in_scope"] == {}
    assert sum(scoped["out_of_scope"]["AUDIT.EVENTS"].values()) == changes


def test_an_unknown_object_that_existed_at_the_export_is_out_of_scope_and_counted(
    generated: GenerationResult, tmp_path: Path
) -> None:
    obj, changes, _ = _events(generated)
    decoded = _decode(generated, _dictionary(generated, tmp_path, drop="EVENTS", max_object_id=obj))
    counts = decoded.counts  # numbered at or below max_object_id, and no exported owner's object
    assert counts["unknown_in_scope"] == {} and counts["unknown_in_scope_ops"] == {}
    assert sum(counts["out_of_scope"][f"OBJ_{obj}"].values()) == changes
    assert counts["unknown_objects"] == {str(obj): changes}
    assert balance(counts) == {}
    report = scope_report(counts)
    assert report["out_of_scope"] == {"changes": changes, "objects": {f"OBJ_{obj}": changes}}
    assert report["max_object_id"] == obj and report["warnings"] == []


def test_a_schema_outside_the_capture_is_counted_out_of_scope_not_an_error(
    generated: GenerationResult, tmp_path: Path
) -> None:
    obj, changes, _ = _events(generated)
    complete = _dictionary(generated, tmp_path, drop=None, max_object_id=obj - 1)
    decoded = _decode(generated, complete, **capture_options(["APP"]))
    counts = decoded.counts
    assert counts["unknown_in_scope"] == {} and counts["unknown_objects"] == {}
    assert sum(counts["out_of_scope"]["AUDIT.EVENTS"].values()) == changes
    assert counts["scope"]["capture"] == ["APP"]
    assert balance(counts) == {} and {r.table for r in decoded.trail} == {"ORDERS"}
    # a table entry captures that table only; owners and tables together are a union
    tables = _decode(generated, complete, **capture_options(["AUDIT.EVENTS"])).counts
    assert set(tables["trail"]) == {"AUDIT.EVENTS"} and set(tables["out_of_scope"]) == {"APP.ORDERS"}
    both = _decode(generated, complete, **capture_options(["APP", "AUDIT.EVENTS"])).counts
    assert set(both["trail"]) == {"APP.ORDERS", "AUDIT.EVENTS"} and both["out_of_scope"] == {}


def test_without_max_object_id_unknown_objects_stay_out_of_scope_with_a_warning(
    generated: GenerationResult, tmp_path: Path
) -> None:
    obj, changes, _ = _events(generated)
    decoded = _decode(generated, _dictionary(generated, tmp_path, drop="EVENTS", max_object_id=None))
    counts = decoded.counts
    assert counts["unknown_in_scope"] == {}
    assert sum(counts["out_of_scope"][f"OBJ_{obj}"].values()) == changes
    assert counts["scope"] == {"capture": None, "max_object_id": None, "unclassified_changes": changes}
    (warning,) = scope_report(counts)["warnings"]
    assert f"{changes} changes" in warning and "export_dictionary.sql" in warning


def test_the_complete_dictionary_reports_nothing_unknown(generated: GenerationResult, tmp_path: Path) -> None:
    obj, _, _ = _events(generated)
    decoded = _decode(generated, _dictionary(generated, tmp_path, drop=None, max_object_id=obj + 100))
    assert [r.to_dict() for r in decoded.trail] == _expected(generated)
    assert decoded.counts["unknown_in_scope"] == {} and decoded.counts["out_of_scope"] == {}


def test_max_object_id_round_trips_through_the_dictionary_json(
    generated: GenerationResult, tmp_path: Path
) -> None:
    history = load_dictionary(_dictionary(generated, tmp_path, drop=None, max_object_id=99_999))
    assert history.max_object_id == 99_999
    again = load_dictionary(history.to_json())
    assert again == history and again.max_object_id == 99_999
    assert again.owners == ("APP", "AUDIT") and len(again.owner_objects) == 2
    first = next(iter(history))
    dropped = history.with_dropped(first.obj, first.valid_from_scn + 1)
    assert dropped.max_object_id == 99_999 and dropped.owner_objects == history.owner_objects
    assert (
        load_dictionary(_dictionary(generated, tmp_path, drop=None, max_object_id=None)).max_object_id is None
    )


def test_merge_counts_takes_the_earliest_first_scn_and_sums_the_changes() -> None:
    parts = [
        {"unknown_in_scope": {"90": {"changes": 3, "first_scn": 500}},
         "scope": {"capture": ["APP"], "max_object_id": 80, "unclassified_changes": 0}},
        {"unknown_in_scope": {"90": {"changes": 1, "first_scn": 400}, "91": {"changes": 2, "first_scn": 700}},
         "scope": {"capture": ["APP"], "max_object_id": 80, "unclassified_changes": 2}},
    ]  # fmt: skip
    merged = merge_counts(parts)
    assert merged["unknown_in_scope"] == {
        "90": {"changes": 4, "first_scn": 400},
        "91": {"changes": 2, "first_scn": 700},
    }
    assert merged["scope"] == {"capture": ["APP"], "max_object_id": 80, "unclassified_changes": 2}


def test_capture_comes_from_the_environment_and_reaches_the_manifest(tmp_path: Path) -> None:
    settings = Settings.from_env({"REDOTRAIL_CAPTURE": " HR, SALES.ORDERS ,-HR.EMP.PHOTO"})
    assert settings.capture == ("HR", "SALES.ORDERS", "-HR.EMP.PHOTO")
    assert Settings.from_env({}).capture == ()
    assert capture_options(settings.capture) == {
        "include_owners": frozenset({"HR"}),
        "include_tables": frozenset({"SALES.ORDERS"}),
        "exclude_columns": frozenset({"HR.EMP.PHOTO"}),
    }
    with pytest.raises(RedoError, match="OWNER, OWNER.TABLE or -OWNER.TABLE.COLUMN"):
        Settings.from_env({"REDOTRAIL_CAPTURE": "HR.A.B"})
    batch = BatchEntry(batch_id="b", resetlogs_id=1, ranges={1: (1, 1)}, batch_dir=str(tmp_path))
    assert build_manifest(batch, [], None, settings.capture)["capture"] == [
        "HR",
        "SALES.ORDERS",
        "-HR.EMP.PHOTO",
    ]
    assert build_manifest(batch, [], None)["capture"] is None
    (tmp_path / "manifest.json").write_text(json.dumps({"batch_id": "b", "logs": [], "capture": ["HR"]}))
    assert load_manifest(tmp_path).capture == ("HR",)
    (tmp_path / "manifest.json").write_text(json.dumps({"batch_id": "b", "logs": []}))
    assert load_manifest(tmp_path).capture is None


def test_image_options_come_from_the_environment_and_reach_the_manifest(tmp_path: Path) -> None:
    settings = Settings.from_env({"REDOTRAIL_IMAGES": "update-befores, full-deletes"})
    assert settings.images == ("update-befores", "full-deletes")
    assert Settings.from_env({}).images == ()
    assert image_options(settings.images) == {"update_before_images": True, "full_deletes": True}
    assert image_options(None) == {"update_before_images": False, "full_deletes": False}
    with pytest.raises(RedoError, match="image option 'befores' is not one of"):
        Settings.from_env({"REDOTRAIL_IMAGES": "befores"})
    batch = BatchEntry(batch_id="b", resetlogs_id=1, ranges={1: (1, 1)}, batch_dir=str(tmp_path))
    assert build_manifest(batch, [], None, (), settings.images)["images"] == [
        "update-befores",
        "full-deletes",
    ]
    (tmp_path / "manifest.json").write_text(
        json.dumps({"batch_id": "b", "logs": [], "images": ["full-deletes"]})
    )
    assert load_manifest(tmp_path).images == ("full-deletes",)


def test_a_table_the_export_did_not_describe_resolves_from_its_sys_rows(
    generated: GenerationResult, tmp_path: Path
) -> None:
    """The same export without EVENTS' ``tables`` entry, but with its SYS rows (OBJ$, COL$, CDEF$,
    CCOL$): the table resolves from them (name, columns, key), its changes reach the trail as the
    scenario wrote them, and the report says the version came from the SYS rows alone."""
    doc = json.loads(generated.dictionary.read_text())
    doc["tables"] = [t for t in doc["tables"] if t["name"] != "EVENTS"]
    path = tmp_path / "dictionary-events-in-sys-only.json"
    path.write_text(json.dumps(doc))
    decoded = _decode(generated, path)
    assert [r.to_dict() for r in decoded.trail] == _expected(generated)
    assert decoded.counts["unknown_in_scope"] == {}
    (said,) = decoded.counts["dictionary_disagreements"]
    assert said["table"] == "EVENTS" and said["differences"][0].startswith("as loaded: only in the SYS rows")
