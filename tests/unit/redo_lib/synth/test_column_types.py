"""The column types of issue 34 in the generator (synth/columns.py, synth/typevalues.py): what Oracle
stores for a SQL value (rounding to the declared precision, padding), its bytes, its trail text, the
dictionary's length / precision / scale as a real 23ai dictionary holds them, and the named errors."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

import pytest

from redo_lib.dictionary.ddl import apply_ddl
from redo_lib.dictionary.history import DictionaryHistory
from redo_lib.dictionary.model import ColumnDef, KeyKind, TableVersion
from redo_lib.errors import ScenarioError
from redo_lib.synth import generate, load_scenario, random_scenario, randomized
from redo_lib.synth.cli import run
from redo_lib.synth.columns import encode, normalize, parse_type, render, type_text
from redo_lib.synth.randomtypes import DRAWN_TYPES
from tests.unit.redo_lib.synth.running import scenario, trail

REPO = Path(__file__).resolve().parents[4]
REAL_23AI = REPO.parent / "shared" / "realdata" / "rophy-olr-tests-23ai" / "schema"


@pytest.mark.parametrize(
    ("type_text", "value", "text"),
    [
        pytest.param("NVARCHAR2(10)", "Zoë 😀", "Zoë 😀", id="nvarchar2"),
        pytest.param("NCHAR(4)", "ab", "ab  ", id="nchar-padded-in-characters"),
        pytest.param("NCHAR(3)", "中", "中  ", id="nchar-padded-not-in-bytes"),
        pytest.param("INTEGER", "12.5", "13", id="integer-rounds-half-up"),
        pytest.param("SMALLINT", -7, "-7", id="smallint"),
        pytest.param("DECIMAL(9,2)", "1234.567", "1234.57", id="decimal-p-s"),
        pytest.param("DECIMAL", "7.5", "8", id="decimal-scale-0"),
        pytest.param("FLOAT(10)", "1234.5", "1235", id="float-4-digits"),
        pytest.param("FLOAT(10)", "0.000123456", "0.0001235", id="float-4-digits-small"),
        pytest.param(
            "FLOAT",
            "3.14159265358979323846264338327950288419",
            "3.1415926535897932384626433832795028842",
            id="float-126-is-38-digits",
        ),  # fmt: skip
        pytest.param("BINARY_FLOAT", 3.14, "3.14", id="binary-float-shortest"),
        pytest.param("BINARY_FLOAT", 16777217, "16777216.0", id="binary-float-rounded-to-32-bits"),
        pytest.param("BINARY_FLOAT", "-Inf", "-Inf", id="binary-float-inf"),
        pytest.param("BOOLEAN", True, "TRUE", id="boolean-true"),
        pytest.param("BOOLEAN", "no", "FALSE", id="boolean-text"),
        pytest.param("BOOLEAN", 1, "TRUE", id="boolean-one"),
        pytest.param("TIMESTAMP(0)", "2025-06-15T10:30:00.5", "2025-06-15T10:30:01", id="ts0-rounds-up"),
        pytest.param("TIMESTAMP(0)", "2025-06-15T10:30:00.4999", "2025-06-15T10:30:00", id="ts0-rounds-down"),
        pytest.param("TIMESTAMP(3)", "2025-06-15 10:30:00.1234", "2025-06-15T10:30:00.123000000", id="ts3"),
        pytest.param("TIMESTAMP(3)", "2026-12-31T23:59:59.9996", "2027-01-01T00:00:00", id="ts3-carry-year"),
        pytest.param("TIMESTAMP(6)", "2025-01-15T12:00:00.000001", "2025-01-15T12:00:00.000001000", id="ts6"),
        pytest.param(
            "TIMESTAMP(9)", "2025-06-15T10:30:00.123456789", "2025-06-15T10:30:00.123456789", id="ts9"
        ),
        pytest.param("INTERVAL YEAR TO MONTH", "+02-03", "+02-03", id="ym"),
        pytest.param("INTERVAL YEAR(3) TO MONTH", "-102-11", "-102-11", id="ym-3-digits"),
        pytest.param("INTERVAL YEAR TO MONTH", {"years": 1, "months": 14}, "+02-02", id="ym-fields"),
        pytest.param("INTERVAL DAY TO SECOND", "+01 02:03:04.5", "+01 02:03:04.500000000", id="ds"),
        pytest.param("INTERVAL DAY TO SECOND(3)", "1 2:3:4.12351", "+01 02:03:04.124000000", id="ds-rounded"),
        pytest.param("INTERVAL DAY TO SECOND(0)", "-0 0:0:1.5", "-00 00:00:02", id="ds-negative-rounded"),
        pytest.param("INTERVAL DAY(3) TO SECOND", {"hours": 49, "nanos": 5}, "+02 01:00:00", id="ds-fields"),
    ],
)
def test_value_as_oracle_stores_it_and_its_trail_text(type_text: str, value: Any, text: str) -> None:
    assert render(parse_type(type_text), normalize(parse_type(type_text), value, "v")) == text


@pytest.mark.parametrize(
    ("type_text", "value", "message"),
    [
        pytest.param("NVARCHAR2(2)", "a😀", "ORA-12899", id="supplementary-counts-two"),
        pytest.param("NCHAR(2)", "abc", "ORA-12899", id="nchar-too-long"),
        pytest.param("DECIMAL(5,2)", "1000", "ORA-01438", id="decimal-too-large"),
        pytest.param("NUMBER(3,2)", "9.995", "ORA-01438", id="rounded-past-precision"),
        pytest.param("BINARY_FLOAT", 1e39, "ORA-01426", id="binary-float-overflow"),
        pytest.param("BOOLEAN", "maybe", "ORA-61800", id="boolean-text"),
        pytest.param("BOOLEAN", 2, "BOOLEAN", id="boolean-two"),
        pytest.param("INTERVAL YEAR TO MONTH", "+100-00", "ORA-01873", id="ym-leading-precision"),
        pytest.param("INTERVAL YEAR TO MONTH", "+1-12", "0..11", id="ym-month-13"),
        pytest.param(
            "INTERVAL DAY TO SECOND", "+99 23:59:59.9999999", "ORA-01873", id="ds-rounded-past-precision"
        ),
        pytest.param("INTERVAL DAY TO SECOND", "1 25:00:00", "out of range", id="ds-hour-25"),
        pytest.param("INTERVAL DAY TO SECOND", "P1D", "not an INTERVAL DAY TO SECOND", id="ds-iso"),
        pytest.param("TIMESTAMP(0)", "9999-12-31T23:59:59.6", "year 9999", id="ts-carry-past-9999"),
    ],
)
def test_values_a_type_cannot_hold_are_named_errors(type_text: str, value: Any, message: str) -> None:
    with pytest.raises(ScenarioError, match=message):
        normalize(parse_type(type_text), value, "v")


@pytest.mark.parametrize(
    "text",
    ["INTEGER(5)", "FLOAT(127)", "TIMESTAMP(10)", "NVARCHAR2(2001)", "NCHAR(1001)", "NUMBER(39)",
     "INTERVAL YEAR TO SECOND", "INTERVAL YEAR TO MONTH(3)", "BINARY_FLOAT(4)"],
)  # fmt: skip
def test_declarations_oracle_refuses_raise(text: str) -> None:
    with pytest.raises(ScenarioError):
        parse_type(text)


@pytest.mark.parametrize(
    ("type_text", "value", "hex_bytes"),
    [
        pytest.param("TIMESTAMP(9)", "2025-06-15T10:30:00", "787d060f0b1f01", id="no-fraction-7-bytes"),
        pytest.param(
            "TIMESTAMP(3)", "2025-06-15T10:30:00.1234", "787d060f0b1f010754d4c0", id="fraction-11-bytes"
        ),
        pytest.param("BINARY_FLOAT", 1.0, "bf800000", id="binary-float-1"),  # redo-format §7.7
        pytest.param("BINARY_FLOAT", -1.0, "407fffff", id="binary-float-minus-1"),
        pytest.param("BOOLEAN", True, "01", id="boolean"),
        pytest.param("INTERVAL YEAR TO MONTH", "-01-06", "7fffffff36", id="ym"),
        pytest.param("INTERVAL DAY TO SECOND", "+01 02:03:04.5", "800000013e3f409dcd6500", id="ds"),
        pytest.param("FLOAT(10)", "1234.5", "c20d24", id="float-as-number-1235"),
    ],
)
def test_bytes_are_redo_format_section_7(type_text: str, value: Any, hex_bytes: str) -> None:
    ctype = parse_type(type_text)
    assert encode(ctype, normalize(ctype, value)).hex() == hex_bytes


@pytest.mark.parametrize(
    ("national", "width", "hex_bytes"), [("AL16UTF16", 2, "00e9d83dde00"), ("UTF8", 3, "c3a9eda0bdedb880")]
)
def test_national_text_is_in_the_national_set(national: str, width: int, hex_bytes: str) -> None:
    """NVARCHAR2(n) holds n characters: n * 2 bytes in AL16UTF16, n * 3 in UTF8 (CESU-8: a
    supplementary character as two 3-byte surrogates)."""
    ctype = parse_type("NVARCHAR2(5)", "WE8MSWIN1252", national)
    assert (ctype.length, ctype.char_length, ctype.charset) == (5 * width, 5, national)
    assert encode(ctype, normalize(ctype, "é😀")).hex() == hex_bytes


def _real_columns(name: str) -> dict[str, dict[str, Any]]:
    path = next(REAL_23AI.glob(f"{name}--*.json"), None)
    if path is None:
        pytest.skip("the real 23ai checkpoints are not on this machine")
    doc = json.loads(path.read_text(encoding="utf-8"))
    return {c["name"]: c for c in doc["sys-col"]}


@pytest.mark.parametrize(
    ("checkpoint", "column", "declared"),
    [
        ("data-types", "COL_NVARCHAR2", "NVARCHAR2(200)"),
        ("data-types", "COL_FLOAT", "BINARY_FLOAT"),
        ("data-types", "COL_INTEGER", "INTEGER"),
        ("boolean-type", "IS_ACTIVE", "BOOLEAN"),
        ("number-precision", "COL_DECIMAL", "NUMBER(20,10)"),
        ("timestamp-variants", "COL_TS0", "TIMESTAMP(0)"),
        ("timestamp-variants", "COL_TS3", "TIMESTAMP(3)"),
        ("timestamp-variants", "COL_TS9", "TIMESTAMP(9)"),
    ],
)
def test_dictionary_says_what_a_real_23ai_col_row_says(checkpoint: str, column: str, declared: str) -> None:
    """COL$ TYPE#, LENGTH, PRECISION#, SCALE and CHARSETFORM of the declaration (the peer suite's
    CREATE TABLE) as the real 23ai checkpoint holds them; -1 is the checkpoint's NULL."""
    real = _real_columns(checkpoint)[column]
    ctype = parse_type(declared)
    null = -1
    form = 2 if ctype.name in ("NVARCHAR2", "NCHAR") else (1 if ctype.charset else 0)
    assert (ctype.code, ctype.length, ctype.precision or null, null if ctype.scale is None else ctype.scale, form) == (
        real["type"], real["length"], real["precision"], real["scale"], real["charset-form"]
    )  # fmt: skip


def test_types_scenario_decodes_to_its_sql_values(tmp_path: Path) -> None:
    """include/scenarios/types.yaml: the decoder's trail is the generator's, and the final rows are
    the header's (worked out by hand from the SQL)."""
    from redo_lib.pipeline import decode_logs

    result = generate(load_scenario(REPO / "include/scenarios/types.yaml"), tmp_path)
    expected = trail(result)
    decoded = decode_logs(list(result.logs), result.dictionary)
    assert [r.to_dict() for r in getattr(decoded, "trail", decoded)] == expected
    rows = [json.loads(x) for x in (result.out / "expected/tables/TY.ITEMS.jsonl").read_text().splitlines()]
    assert rows[0] == {
        "ID": "1", "NAME": None, "CODE": "ab    ", "QTY": "42", "SMALL": "-7", "PRICE": "1234.57",
        "RATIO": "1235", "WEIGHT": "Inf", "ACTIVE": "FALSE", "TS0": "2025-06-15T10:30:01",
        "TS3": "2025-06-15T10:30:00.123000000", "TS9": "2026-03-01T08:00:00.987654321", "YM": None,
        "DS": "+01 02:03:04.123000000", "NOTE": "déjà",
    }  # fmt: skip
    assert [r["ID"] for r in rows] == ["1", "3"]
    assert (rows[1]["ACTIVE"], rows[1]["QTY"]) == ("TRUE", "2147483647")
    inserted = expected[1]["columns"]
    assert (inserted["CODE"], inserted["RATIO"], inserted["TS3"], inserted["DS"]) == (
        "中文    ", "0.0001235", "2027-01-01T00:00:00", "-00 00:00:01.500000000"
    )  # fmt: skip


BOOLEAN_TABLE = """
settings: {{compat: {compat}}}
tables:
  - owner: APP
    name: T
    columns:
      - {{name: ID, type: NUMBER, nullable: false}}
      - {{name: FLAG, type: {flag}}}
    primary_key: [ID]
"""


def test_boolean_needs_23ai(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(ScenarioError, match=r"APP\.T\.FLAG: BOOLEAN columns need compat 23ai"):
        scenario("steps: []\n", table=BOOLEAN_TABLE.format(compat="19c", flag="BOOLEAN"))
    add = "steps:\n  - add_column: {table: T, column: F2, type: BOOLEAN}\n"
    with pytest.raises(ScenarioError, match="F2: BOOLEAN columns need compat 23ai"):
        generate(scenario(add, table=BOOLEAN_TABLE.format(compat="11.2", flag="NUMBER")), tmp_path)
    code = run(
        [str(REPO / "include/scenarios/types.yaml"), "--out", str(tmp_path / "cli"), "--compat", "19c"]
    )
    assert code == 1 and "TY.ITEMS.ACTIVE: BOOLEAN columns need compat 23ai" in capsys.readouterr().err
    ok = "steps:\n  - insert: {table: T, values: {ID: 1, FLAG: true}}\n  - commit\n"
    result = generate(
        scenario(ok, table=BOOLEAN_TABLE.format(compat="23ai", flag="BOOLEAN")), tmp_path / "ok"
    )
    assert trail(result)[0]["columns"] == {"ID": "1", "FLAG": "TRUE"}


def test_random_seeds_draw_every_new_type() -> None:
    drawn = {
        str(c.type)
        for seed in range(120)
        for t in random_scenario(seed, steps=1).tables
        for c in t.columns
        if c.name.startswith("Y")
    }
    assert drawn == {str(parse_type(t)) for t in DRAWN_TYPES}


def test_type_draws_leave_the_other_draws_alone(monkeypatch: pytest.MonkeyPatch) -> None:
    """The extra columns come from a stream of their own: without them a seed's settings and tables
    are those it gave before (so a seed that draws none gives its old scenario byte for byte)."""
    with_types = {seed: random_scenario(seed, steps=1) for seed in range(12)}
    monkeypatch.setattr(randomized, "add_type_columns", lambda seed, tables, compat, sets: (tables, None))
    for seed, scen in with_types.items():
        plain = random_scenario(seed, steps=1)
        assert plain.settings == scen.settings
        assert plain.tables == tuple(
            dataclasses.replace(t, columns=tuple(c for c in t.columns if not c.name.startswith("Y")))
            for t in scen.tables
        )
    assert any(s.tables != random_scenario(n, steps=1).tables for n, s in with_types.items())


@pytest.mark.parametrize(
    "declared", [*DRAWN_TYPES, "DECIMAL(9,2)", "FLOAT(10)", "INTERVAL DAY(2) TO SECOND(3)", "ROWID"]
)
def test_generator_dictionary_is_what_the_ddl_reader_gives(declared: str) -> None:
    """The dictionary row the generator writes for a declaration equals the one
    ``dictionary.ddl.apply_ddl`` gives for an ADD COLUMN of the type as the generator's DDL writes it."""
    ctype = parse_type(declared)
    table = TableVersion(
        obj=100, dataobj=100, owner="APP", name="T", key_columns=("ID",), key_kind=KeyKind.PRIMARY,
        columns=(ColumnDef(col_no=1, segcol_no=1, name="ID", type_code=2, type_name="NUMBER", length=22),),
        valid_from_scn=1000,
    )  # fmt: skip
    history = DictionaryHistory([table], db_charset="AL32UTF8", national_charset="AL16UTF16")
    history, _ = apply_ddl(history, obj=100, scn=5000, text=f"ALTER TABLE APP.T ADD (X {type_text(ctype)})")
    new = history.lookup(100, 5000).columns[-1]
    assert (new.type_code, new.type_name, new.length, new.precision, new.scale, new.char_length, new.charset) == (
        ctype.code, ctype.name, ctype.length, ctype.precision, ctype.scale, ctype.char_length, ctype.charset
    )  # fmt: skip
