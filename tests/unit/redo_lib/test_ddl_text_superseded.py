"""A DDL whose text the parser cannot read, and whose transaction changed the table's SYS.COL$ rows:
the rows give the columns (docs/dictionary.md, "Columns from COL$"), the batch goes on.

Real parts: binary logs the generator wrote for include/scenarios/ddl_text_unreadable.yaml, whose
ADD COLUMN and RENAME COLUMN are run with texts the DDL parser refuses (a tool's trailing comment, a
23ai annotation clause) and whose COL$ changes are Oracle's for those statements; the expected trail and table are the generator's,
from the scenario's SQL. The same scenario with the plain texts is the control: nothing to supersede,
nothing disagreeing. Decoded by the single-process decode (the core supersedes inside the DDL's
transaction) and by the batch driver (``evolve_batch_dictionary``: problems matched by XID, the
versions the COL$ rows give put in the dictionary it writes), whose lineage the mirrors follow."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from redo_lib.dictionary import DictionaryHistory, KeyKind
from redo_lib.native import native
from redo_lib.pipeline import decode_logs
from redo_lib.synth import GenerationResult, generate, parse_scenario
from redo_lib.trail.lineage import table_changes
from tests.unit.native.core_assembly import batch_driver

REPO = Path(__file__).resolve().parents[3]
SCENARIO = REPO / "include" / "scenarios" / "ddl_text_unreadable.yaml"
PLAIN = {
    "alter table app.t add (note varchar2(40)) /* by migration tool 4.2 */": "alter table app.t add (note varchar2(40))",
    "alter table app.t rename column name to title annotations (add source 'crm')":
        "alter table app.t rename column name to title",
    "CREATE TABLE IF NOT EXISTS APP.NEWT": "CREATE TABLE APP.NEWT",
}  # fmt: skip


@pytest.fixture(scope="module", params=["unreadable", "plain"])
def generated(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> GenerationResult:
    """The scenario as written (texts the parser refuses), or with the plain texts (the control)."""
    text = SCENARIO.read_text()
    if request.param == "plain":
        for unreadable, plain in PLAIN.items():
            assert unreadable in text
            text = text.replace(unreadable, plain)
    return generate(parse_scenario(text), tmp_path_factory.mktemp(request.param))


def _unreadable(result: GenerationResult) -> bool:
    return "migration tool" in result.trail.read_text()


def _expected(result: GenerationResult) -> list[dict[str, Any]]:
    return [json.loads(line) for line in result.trail.read_text(encoding="utf-8").splitlines()]


def test_the_single_process_decode_writes_the_scenario_s_trail(generated: GenerationResult) -> None:
    """The document's SYS rows follow its tables (COL$ and CDEF$ rows of them): the core applies no
    DDL text, whatever it says, and calls no Python parser; the rows give every table."""
    decoded = decode_logs(generated.logs, generated.dictionary)
    assert [r.to_dict() for r in decoded.trail] == _expected(generated)
    counts = decoded.counts
    assert counts["ddl_problems"] == [] and counts["dictionary_disagreements"] == []
    obj = json.loads(generated.dictionary.read_text())["tables"]
    t = next(x["obj"] for x in obj if x["name"] == "T")
    newt = next(r["obj"] for r in _expected(generated) if r["table"] == "NEWT")
    assert [f[0] for f in counts["tables_followed"]] == [t, t, newt]
    assert decoded.emit["ddl_from_sys_rows"] == 3 and "ddl_text_superseded" not in decoded.emit
    assert (decoded.emit["ddl_alter"], decoded.emit["ddl_create"]) == (2, 1)


def _batch_driver(
    result: GenerationResult, folder: Path, dictionary: Path | None = None
) -> tuple[DictionaryHistory, dict[str, int], list[Any], list[Any]]:
    """The batch driver over the scenario's logs, from its export or ``dictionary`` (then as the
    chain's first batch: its own disagreements reported "as loaded")."""
    said: list[Any] = []
    location, counts, problems = batch_driver(
        result.logs, dictionary or result.dictionary, folder, own_copy=dictionary is None, disagreements=said
    )
    return DictionaryHistory.from_json(location.read_text()), counts, problems, said


def _shapes_of_t(history: DictionaryHistory) -> list[list[str]]:
    (t,) = {v.obj for v in history if v.name in ("T",) and v.owner == "APP"}
    assert all(v.key_columns == ("ID",) for v in history.versions(t)), [
        v.key_columns for v in history.versions(t)
    ]
    return [[c.name for c in v.columns] for v in history.versions(t)]


def _lineage(generated: GenerationResult, history: DictionaryHistory) -> None:
    """The mirrors' lineage: from the text, or from the COL$ rows where the text cannot be replayed."""
    unreadable = _unreadable(generated)
    records = [r for r in _expected(generated) if r["op"] == "DDL"]
    changes = table_changes(records, history)["APP.T"]
    assert changes.added == ["NOTE"] and changes.renamed == [("NAME", "TITLE")] and not changes.dropped
    followed = [n for n in changes.notes if "followed from SYS.COL$" in n]
    assert len(followed) == (2 if unreadable else 0), changes.notes
    # the new table's mirror: its columns from the rows (an unreadable CREATE is no CREATE record)
    created = table_changes([r for r in records if r["table"] == "NEWT"], history).get("APP.NEWT")
    assert created is not None and (created.created_at is not None) == (not unreadable)


def test_the_batch_driver_applies_no_text_where_the_rows_follow_the_tables(
    generated: GenerationResult, tmp_path: Path
) -> None:
    """The generator's export carries COL$ and CDEF$ rows of its tables: no DDL text is applied (each
    is counted by what it is about), nothing disagrees, and the dictionary written is the rows'."""
    history, counts, problems, said = _batch_driver(generated, tmp_path)
    assert problems == [] and said == []
    assert counts.get("ddl_from_sys_rows") == 3 and (counts.get("ddl_alter"), counts.get("ddl_create")) == (
        2,
        1,
    )
    assert "ddl_text_superseded" not in counts
    (newt,) = [v for v in history if v.name == "NEWT"]
    assert [c.name for c in newt.columns] == ["K", "V"] and newt.key_columns == ("K",)
    assert newt.key_kind is KeyKind.PRIMARY
    # the export's, then from each DDL's commit the scenario's
    assert _shapes_of_t(history) == [
        ["ID", "NAME", "QTY"],
        ["ID", "NAME", "QTY", "NOTE"],
        ["ID", "TITLE", "QTY", "NOTE"],
    ]
    # read again, the core finds nothing left to disagree with
    assert native.columns_from_sys(history.to_json()) == []
    _lineage(generated, history)


def test_with_an_older_export_the_texts_are_applied_and_the_rows_supersede_them(
    generated: GenerationResult, tmp_path: Path
) -> None:
    """An export without CDEF$ / CCOL$ rows (written before they were followed): the texts are
    applied first; where the parser refuses one, the rows of its transaction supersede it and the
    disagreement is reported. A table only the rows know then has every column as its key (its
    constraints' rows are not followed for such a document): documented."""
    doc = json.loads(generated.dictionary.read_text())
    for table in ("CDEF$", "CCOL$"):
        doc["sys"].pop(table)
    export = tmp_path / "older-export.json"
    export.write_text(json.dumps(doc))
    history, counts, problems, said = _batch_driver(generated, tmp_path / "batch", export)
    unreadable = _unreadable(generated)
    assert problems == []
    assert counts.get("ddl_text_superseded", 0) == (3 if unreadable else 0)
    assert [d["table"] for d in said] == (["T", "T", "NEWT"] if unreadable else [])
    (newt,) = [v for v in history if v.name == "NEWT"]
    # its key is in CDEF$ / CCOL$ rows, which such a document does not follow: every column
    assert newt.key_columns == (("K", "V") if unreadable else ("K",))
    shapes = _shapes_of_t(history)
    assert shapes[0] == ["ID", "NAME", "QTY"] and shapes[-1] == ["ID", "TITLE", "QTY", "NOTE"]
    assert native.columns_from_sys(history.to_json()) == []
    _lineage(generated, history)


def test_the_batch_driver_reports_an_export_whose_rows_describe_a_table_its_tables_do_not(
    generated: GenerationResult, tmp_path: Path
) -> None:
    """The chain's first batch, from an export without T's ``tables`` entry but with its SYS rows:
    T resolves from the rows, reported once "as loaded", and the dictionary written has T."""
    doc = json.loads(generated.dictionary.read_text())
    doc["tables"] = [t for t in doc["tables"] if t["name"] != "T"]
    export = tmp_path / "export.json"
    export.write_text(json.dumps(doc))
    history, _, problems, said = _batch_driver(generated, tmp_path / "batch", export)
    assert problems == []
    loaded = [d for d in said if d["differences"][0].startswith("as loaded: ")]
    assert [(d["table"], d["differences"][0].split(":")[1].strip()) for d in loaded] == [
        ("T", "only in the SYS rows")
    ]
    assert {v.name for v in history} >= {"T", "NEWT"}
