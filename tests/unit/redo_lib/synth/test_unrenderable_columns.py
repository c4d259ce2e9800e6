"""include/scenarios/unrenderable_columns.yaml: a table with an XMLTYPE column (binary XML: the
generator writes the XMLTYPE's own segment column and the hidden BLOB ``SYS_NC00004$`` holding the
document), decoded with the generated dictionary (docs/data-quality.md, "Columns the decoder cannot
render").

The expected counts and trail are the generator's, from the SQL (``expected/unrenderable.json``,
``expected/trail.jsonl``), and worked out by hand below: with the default capture scope the inserts
of ids 1 and 3 and the update of XMLCOL carry a document (counted, not records); the insert of id 2
(NULL document), the update of NOTE alone and the delete (its key) are records. With
``-APP.DOCS.XMLCOL`` every change is a record without XMLCOL and its storage column.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from redo_lib.dictionary import load_dictionary
from redo_lib.errors import ScenarioError
from redo_lib.pipeline import DecodeResult, balance, decode_logs
from redo_lib.synth import GenerationResult, generate, load_scenario, parse_scenario
from redo_lib.trail.emit import EmitOptions, capture_options
from redo_lib.unsupported import UNRENDERABLE, problem_rows

REPO = Path(__file__).resolve().parents[4]
SCENARIO = REPO / "include" / "scenarios" / "unrenderable_columns.yaml"
CAPTURE = ["APP", "-APP.DOCS.XMLCOL"]
#: from the SQL: two inserts with a document, one update of XMLCOL
COUNTED = {"APP.DOCS": {"XMLCOL": {"58": 3}}}


@pytest.fixture(scope="module")
def default_scope(tmp_path_factory: pytest.TempPathFactory) -> GenerationResult:
    return generate(load_scenario(SCENARIO), tmp_path_factory.mktemp("xml_default"))


@pytest.fixture(scope="module")
def left_out(tmp_path_factory: pytest.TempPathFactory) -> GenerationResult:
    return generate(load_scenario(SCENARIO), tmp_path_factory.mktemp("xml_left_out"), capture=CAPTURE)


def _decode(result: GenerationResult, capture: list[str] | None = None) -> DecodeResult:
    options = EmitOptions(**capture_options(capture)) if capture else None
    return decode_logs(list(result.logs), result.dictionary, options=options)


def _expected(result: GenerationResult, name: str = "trail.jsonl") -> Any:
    text = (result.out / "expected" / name).read_text(encoding="utf-8")
    return [json.loads(line) for line in text.splitlines()] if name.endswith("jsonl") else json.loads(text)


def test_the_dictionary_lists_the_xmltype_and_its_hidden_storage_blob(
    default_scope: GenerationResult,
) -> None:
    (table,) = [v for v in load_dictionary(default_scope.dictionary) if v.full_name == "APP.DOCS"]
    shape = [(c.name, c.segcol_no, c.col_no, c.type_code, c.type_name, c.hidden) for c in table.columns]
    assert shape == [
        ("ID", 1, 1, 2, "NUMBER", False),
        ("NOTE", 2, 2, 1, "VARCHAR2", False),
        ("XMLCOL", 3, 3, 58, "XMLTYPE", False),
        ("SYS_NC00004$", 4, 0, 113, "BLOB", True),  # DBA_TAB_COLS.COLUMN_ID is NULL for it
    ]
    # the final table and its shape: no XMLTYPE (a mirror never holds one), no hidden column
    rows = (default_scope.out / "expected/tables/APP.DOCS.jsonl").read_text(encoding="utf-8").splitlines()
    assert [json.loads(r) for r in rows] == [
        {"ID": "1", "NOTE": "renamed"},
        {"ID": "2", "NOTE": "no document"},
    ]


def test_the_expected_outcome_comes_from_the_sql(
    default_scope: GenerationResult, left_out: GenerationResult
) -> None:
    assert _expected(default_scope, "unrenderable.json") == {
        "unrenderable": COUNTED,
        "unrenderable_ops": {"APP.DOCS": {"INSERT": 2, "UPDATE": 1}},
        "unrenderable_out_of_scope": {},
    }
    assert _expected(default_scope, "unsupported.json") == {"APP.DOCS": {UNRENDERABLE: 3}}
    records = [(r["op"], r["columns"], r["changed_columns"]) for r in _expected(default_scope)]
    assert records == [
        ("INSERT", {"ID": "2", "NOTE": "no document", "XMLCOL": None}, []),
        ("UPDATE", {"ID": "1", "NOTE": "renamed"}, ["NOTE"]),  # XMLCOL not in the change
        ("DELETE", {"ID": "3"}, []),  # its key only: the document is not in the record
    ]
    assert _expected(left_out, "unrenderable.json") == {
        "unrenderable": {}, "unrenderable_ops": {}, "unrenderable_out_of_scope": COUNTED,
    }  # fmt: skip
    assert _expected(left_out, "unsupported.json") == {}
    records = [(r["op"], r["columns"], r["changed_columns"]) for r in _expected(left_out)]
    assert records == [
        ("INSERT", {"ID": "1", "NOTE": "first"}, []),
        ("INSERT", {"ID": "2", "NOTE": "no document"}, []),
        ("INSERT", {"ID": "3", "NOTE": "third"}, []),
        ("UPDATE", {"ID": "1", "NOTE": "renamed"}, ["NOTE"]),
        ("UPDATE", {"ID": "2"}, []),  # it changed XMLCOL only
        ("DELETE", {"ID": "3"}, []),
    ]


def test_captured_documents_fail_the_batch_naming_table_column_and_type(
    default_scope: GenerationResult,
) -> None:
    decoded = _decode(default_scope)
    assert [r.to_dict() for r in decoded.trail] == _expected(default_scope)
    counts = decoded.counts
    expected = _expected(default_scope, "unrenderable.json")
    assert counts["unrenderable"] == expected["unrenderable"]
    assert counts["unrenderable_ops"] == expected["unrenderable_ops"]
    assert counts["unsupported_ops"] == expected["unrenderable_ops"]
    assert balance(counts) == {}
    (row,) = problem_rows(counts)
    assert (row["table"], row["column"], row["changes"]) == ("APP.DOCS", "XMLCOL", 3)
    assert row["type"] == "XMLTYPE (type code 58)" and row["counted"] == "row changes"
    assert "-APP.DOCS.XMLCOL" in row["reason"]
    assert counts["unsupported"]["changes"] == 3


def test_left_out_the_column_passes_with_exactly_the_expected_trail(left_out: GenerationResult) -> None:
    decoded = _decode(left_out, CAPTURE)
    assert [r.to_dict() for r in decoded.trail] == _expected(left_out)
    counts = decoded.counts
    assert problem_rows(counts) == [] and counts["unsupported"]["changes"] == 0
    assert (
        counts["unrenderable_out_of_scope"]
        == _expected(left_out, "unrenderable.json")["unrenderable_out_of_scope"]
    )
    assert counts["unsupported"]["columns_out_of_scope"] == {"APP.DOCS.XMLCOL": 3}
    assert counts["unsupported"]["out_of_scope"] == {"APP.DOCS": {UNRENDERABLE: 3}}
    assert balance(counts) == {}


@pytest.mark.parametrize(
    ("columns", "key", "message"),
    [
        ("[{name: ID, type: NUMBER, nullable: false}, {name: X, type: XMLTYPE, nullable: false}]", "[X]",
         "key column cannot be of XMLTYPE"),
        ("[{name: ID, type: NUMBER, nullable: false}, {name: SYS_NC00002$, type: BLOB}]", "[ID]", None),
    ],
)  # fmt: skip
def test_xmltype_columns_are_no_key_columns(columns: str, key: str, message: str | None) -> None:
    text = f"""
name: x
tables:
  - {{owner: APP, name: T, columns: {columns}, primary_key: {key}}}
steps: []
"""
    if message is None:  # a visible column named like a storage column is an ordinary one
        (table,) = parse_scenario(text).tables
        assert not any(c.hidden for c in table.columns)
        return
    with pytest.raises(ScenarioError, match=message):
        parse_scenario(text)
