"""LONG, LONG RAW, ROWID and UROWID in the generator (synth/columns.py): their bytes, trail text and
dictionary rows, Oracle's refusals (ORA-01754, ORA-02269), and the scenario
include/scenarios/long_types.yaml decoded to its SQL values."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from redo_lib.errors import ScenarioError
from redo_lib.synth import generate, load_scenario
from redo_lib.synth.columns import encode, normalize, parse_type, render
from tests.unit.redo_lib.synth.running import scenario, trail

REPO = Path(__file__).resolve().parents[4]


@pytest.mark.parametrize(
    ("declared", "charset", "value", "data", "text"),
    [
        pytest.param("LONG", "AL32UTF8", "é€😀", "c3a9e282acf09f9880", "é€😀", id="long-al32utf8"),
        pytest.param("LONG", "WE8ISO8859P1", "café", "636166e9", "café", id="long-single-byte"),
        pytest.param("LONG", "ZHS16GBK", "中文", "d6d0cec4", "中文", id="long-gbk-not-al16utf16"),
        pytest.param("LONG RAW", "AL32UTF8", "deadBEEF00", "deadbeef00", "DEADBEEF00", id="long-raw"),
        pytest.param(
            "UROWID", "AL32UTF8", "AAAVaZAAEAAAACwAAC", "010001569900020004000000b0", "AAAVaZAAEAAAACwAAC"
        ),
        # what Oracle stores for a ROWID column: data object, DBA (file 4, block 0xb0), slot
        pytest.param("ROWID", "AL32UTF8", "AAAVaZAAEAAAACwAAC", "00015699010000b00002", "AAAVaZAAEAAAACwAAC"),
    ],
)
def test_values_bytes_and_text(declared: str, charset: str, value: str, data: str, text: str) -> None:
    ctype = parse_type(declared, charset)
    stored = normalize(ctype, value)
    assert encode(ctype, stored).hex() == data
    assert render(ctype, stored) == text


def test_long_values_of_any_size_and_nulls() -> None:
    long = parse_type("LONG")
    stored = normalize(long, {"repeat": "Lorem ipsum é ", "times": 400})
    assert len(encode(long, stored)) == 6000 and render(long, stored) == stored
    raw = parse_type("LONG RAW")
    assert encode(raw, normalize(raw, {"repeat": "0102", "times": 3000})) == b"\x01\x02" * 3000
    for ctype in (long, raw, parse_type("UROWID"), parse_type("ROWID")):
        assert normalize(ctype, "") is None and render(ctype, None) is None


@pytest.mark.parametrize(
    ("declared", "value", "message"),
    [
        pytest.param("UROWID", "AAAVaZAAEAAAACw", "not an 18-character ROWID", id="short-rowid"),
        pytest.param("UROWID", "AAAVaZAAEAAAACwAA!", "not an 18-character ROWID", id="bad-rowid-digit"),
        pytest.param("ROWID", "AAAVaZAAEAAAACwAACA", "not an 18-character ROWID", id="long-rowid"),
        pytest.param("LONG RAW", "xyz", "RAW text must be hex", id="long-raw-not-hex"),
        pytest.param("LONG", b"ab", "cannot use", id="long-of-bytes"),
    ],
)
def test_bad_values(declared: str, value: object, message: str) -> None:
    with pytest.raises(ScenarioError, match=message):
        normalize(parse_type(declared), value)


def test_dictionary_rows() -> None:
    """COL$ TYPE#, LENGTH and charset as DBA_TAB_COLS shows them: LONG 8 / 0 in the database set,
    LONG RAW 24 / 0, ROWID 69 / 10, UROWID 208 / 4000 (or its declared size)."""
    declared = ("LONG", "LONG RAW", "ROWID", "UROWID", "UROWID(100)")
    types = {t: parse_type(t, "WE8MSWIN1252") for t in declared}
    got = {t: (c.code, c.length, c.charset, str(c)) for t, c in types.items()}
    assert got == {
        "LONG": (8, 0, "WE8MSWIN1252", "LONG"),
        "LONG RAW": (24, 0, None, "LONG RAW"),
        "ROWID": (69, 10, None, "ROWID"),
        "UROWID": (208, 4000, None, "UROWID"),
        "UROWID(100)": (208, 100, None, "UROWID(100)"),
    }


TABLE = """
tables:
  - owner: APP
    name: T
    columns:
      - {name: ID, type: NUMBER, nullable: false}
      - {name: BODY, type: LONG}
    primary_key: [ID]
"""


def test_a_second_long_is_refused_by_add_column(tmp_path: Path) -> None:
    add = "steps:\n  - add_column: {table: T, column: IMG, type: LONG RAW}\n"
    with pytest.raises(ScenarioError, match=r"only one column of type LONG \(ORA-01754\)"):
        generate(scenario(add, table=TABLE), tmp_path)


def test_columns_added_after_a_long_decode(tmp_path: Path) -> None:
    """A column added to a table with a LONG comes after it (Oracle stores the new column last); a
    LONG added by ALTER TABLE is read through the DDL's dictionary change."""
    from redo_lib.pipeline import decode_logs

    steps = """steps:
  - insert: {table: T, values: {ID: 1, BODY: "ünïcode"}}
  - add_column: {table: T, column: REF, type: UROWID}
  - insert: {table: T, values: {ID: 2, BODY: {repeat: x, times: 4500}, REF: AAAVaZAAEAAAACwAAC}}
  - commit
"""
    result = generate(scenario(steps, table=TABLE), tmp_path)
    expected = trail(result)
    decoded = decode_logs(list(result.logs), result.dictionary)
    assert [r.to_dict() for r in getattr(decoded, "trail", decoded)] == expected
    rows = [r["columns"] for r in expected if r["op"] == "INSERT"]
    assert rows == [
        {"ID": "1", "BODY": "ünïcode"},
        {"ID": "2", "BODY": "x" * 4500, "REF": "AAAVaZAAEAAAACwAAC"},
    ]


def test_long_types_scenario_decodes_to_its_sql_values(tmp_path: Path) -> None:
    """include/scenarios/long_types.yaml: the decoder's trail is the generator's, and the final rows
    are the header's (worked out by hand from the SQL)."""
    from redo_lib.pipeline import decode_logs

    result = generate(load_scenario(REPO / "include/scenarios/long_types.yaml"), tmp_path)
    expected = trail(result)
    decoded = decode_logs(list(result.logs), result.dictionary)
    assert [r.to_dict() for r in getattr(decoded, "trail", decoded)] == expected

    def rows(name: str) -> list[dict[str, str | None]]:
        path = result.out / f"expected/tables/LT.{name}.jsonl"
        return [json.loads(x) for x in path.read_text(encoding="utf-8").splitlines()]

    body = "Rewritten ü " * 500
    assert len(body.encode()) == 6500
    assert rows("DOCS") == [
        {"ID": "1", "TITLE": "first" * 600, "SRC": "AAARF/AAEAAAIEBAAB", "BODY": body},
        {"ID": "2", "TITLE": "two", "SRC": None, "BODY": None},
    ]
    assert rows("BLOBS") == [
        {"ID": "2", "REF": "AAARF1AAEAAAAEBAAB", "HOME": "AAARF1AAEAAAAEBAAA", "IMG": None}
    ]
    assert rows("NOKEY") == []
    by_op: dict[tuple[str, str], dict] = {}
    for r in expected:
        by_op.setdefault((r["op"], r["table"]), r)  # the first of each
    # the 6,000-byte LONG inserted, the table without a key keyed by its columns but the LONG
    assert len(by_op["INSERT", "DOCS"]["columns"]["BODY"].encode()) == 6000
    assert by_op["INSERT", "BLOBS"]["columns"]["IMG"] == "DEADBEEF00FF"
    assert by_op["DELETE", "NOKEY"]["columns"] == {"NAME": "a"}
    # the UROWIDs are ROWIDs of rows of the scenario
    rowids = {
        r["columns"]["ID"]: r["tokens"]["R"] for r in expected if r["op"] == "INSERT" and r["table"] == "DOCS"
    }
    assert rows("BLOBS")[0]["REF"] == rowids["2"]
    # the ROWID column: inserted (BLOBS 1) and updated alone (BLOBS 2), ROWIDs of DOCS 2 and 1
    assert by_op["INSERT", "BLOBS"]["columns"]["HOME"] == rowids["2"]
    (home,) = [r for r in expected if (r["op"], r["table"]) == ("UPDATE", "BLOBS") and "HOME" in r["columns"]]
    assert home["columns"]["HOME"] == rowids["1"] == rows("BLOBS")[0]["HOME"]
