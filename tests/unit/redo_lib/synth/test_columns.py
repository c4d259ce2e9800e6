"""synth/columns.py: column types, value normalisation and the trail text of rule 16."""

from __future__ import annotations

import datetime as dt
import decimal
import math
from typing import Any

import pytest

from redo_lib.errors import ScenarioError
from redo_lib.synth.columns import Timestamp, encode, normalize, parse_type, render


@pytest.mark.parametrize(
    ("type_text", "value", "text"),
    [
        pytest.param("NUMBER", 1011, "1011", id="number-int"),
        pytest.param("NUMBER", "-0.5", "-0.5", id="number-negative-fraction"),
        pytest.param("NUMBER", 12.5, "12.5", id="number-float-exact"),
        pytest.param("NUMBER", "1E+3", "1000", id="number-exponent-text"),
        pytest.param("NUMBER", "0.0012", "0.0012", id="number-small"),
        pytest.param("NUMBER", 0, "0", id="number-zero"),
        pytest.param("NUMBER(8,2)", 9000, "9000", id="number-scale-no-trailing-zeros"),
        pytest.param("NUMBER(8,2)", "1.005", "1.01", id="number-scale-rounds-half-up"),
        pytest.param("VARCHAR2(10)", "Jordan", "Jordan", id="varchar2"),
        pytest.param("CHAR(5)", "ab", "ab   ", id="char-blank-padded"),
        pytest.param("CHAR(4)", "é", "é  ", id="char-padded-in-bytes"),
        pytest.param("DATE", "2013-03-31T23:59:58", "2013-03-31T23:59:58", id="date"),
        pytest.param("DATE", dt.date(2020, 2, 29), "2020-02-29T00:00:00", id="date-from-date"),
        pytest.param("TIMESTAMP", "2013-09-01T09:30:00", "2013-09-01T09:30:00", id="timestamp-whole-second"),
        pytest.param(
            "TIMESTAMP", "2013-09-01 09:30:00.5", "2013-09-01T09:30:00.500000000", id="timestamp-nanos"
        ),
        pytest.param(
            "TIMESTAMP",
            "2013-09-01T09:30:00.123456789",
            "2013-09-01T09:30:00.123457000",
            id="timestamp-is-timestamp-6",
        ),
        pytest.param(
            "TIMESTAMP(9)",
            "2013-09-01T09:30:00.123456789",
            "2013-09-01T09:30:00.123456789",
            id="timestamp-9-digits",
        ),
        pytest.param("RAW(4)", "deadbeef", "DEADBEEF", id="raw-upper-hex"),
        pytest.param("BINARY_DOUBLE", 0.1, "0.1", id="double-shortest-repr"),
        pytest.param("BINARY_DOUBLE", "Inf", "Inf", id="double-inf"),
        pytest.param("BINARY_DOUBLE", "-inf", "-Inf", id="double-minus-inf"),
        pytest.param("BINARY_DOUBLE", "NaN", "Nan", id="double-nan"),
        pytest.param("VARCHAR2(10)", {"repeat": "ab", "times": 3}, "ababab", id="repeat-expression"),
    ],
)
def test_render_is_the_sql_value_as_text(type_text: str, value: Any, text: str) -> None:
    ctype = parse_type(type_text)
    assert render(ctype, normalize(ctype, value)) == text


@pytest.mark.parametrize(
    ("type_text", "value"),
    [
        pytest.param("VARCHAR2(5)", "", id="empty-string"),
        pytest.param("CHAR(3)", "", id="empty-char"),
        pytest.param("RAW(3)", "", id="empty-raw"),
        pytest.param("NUMBER", None, id="none"),
    ],
)
def test_empty_values_are_null_as_in_oracle(type_text: str, value: Any) -> None:
    assert normalize(parse_type(type_text), value) is None


@pytest.mark.parametrize(
    ("type_text", "value", "message"),
    [
        pytest.param("VARCHAR2(3)", "abcd", "longer than", id="too-long"),
        pytest.param("CHAR(2)", "éé", "longer than", id="char-too-long-in-bytes"),
        pytest.param("NUMBER", "abc", "not a number", id="not-a-number"),
        pytest.param("NUMBER", True, "boolean", id="bool-number"),
        pytest.param("NUMBER", "1" * 39, "38 significant", id="too-many-digits"),
        pytest.param("DATE", "yesterday", "ISO", id="bad-date"),
        pytest.param("RAW(2)", "xyz", "hex", id="bad-hex"),
        pytest.param("BINARY_DOUBLE", [1], "BINARY_DOUBLE", id="list-double"),
        pytest.param("NUMBER", {"repeat": "1", "times": 2}, "value expression", id="repeat-on-number"),
    ],
)
def test_bad_values_raise_scenario_error(type_text: str, value: Any, message: str) -> None:
    with pytest.raises(ScenarioError, match=message):
        normalize(parse_type(type_text), value, "v")


@pytest.mark.parametrize(
    ("text", "name", "length"),
    [
        pytest.param("varchar2(30)", "VARCHAR2", 30, id="varchar2"),
        pytest.param("CHAR(5)", "CHAR", 5, id="char"),
        pytest.param("NUMBER(10,2)", "NUMBER", 22, id="number-p-s"),
        pytest.param("RAW(16)", "RAW", 16, id="raw"),
        pytest.param("TIMESTAMP", "TIMESTAMP", 11, id="timestamp"),
        pytest.param("TIMESTAMP(0)", "TIMESTAMP", 7, id="timestamp-0"),
        pytest.param("ROWID", "ROWID", 10, id="rowid"),
    ],
)
def test_parse_type(text: str, name: str, length: int) -> None:
    ctype = parse_type(text)
    assert (ctype.name, ctype.length) == (name, length)


@pytest.mark.parametrize(
    "text",
    [
        "LONG(10)",
        "LONG RAW(5)",
        "UROWID(4001)",
        "ROWID(10)",
        "CLOB(10)",
        "VARCHAR2(0)",
        "VARCHAR2(4001)",
        "DATE(3)",
        "NUMBER(",
        "CHAR(1,2)",
    ],
)
def test_unsupported_types_raise(text: str) -> None:
    with pytest.raises(ScenarioError):
        parse_type(text)


@pytest.mark.parametrize(
    ("type_text", "value", "hex_bytes"),
    [
        pytest.param("NUMBER", 1, "c102", id="number-1"),  # redo-format §7.1
        pytest.param("NUMBER", "-12.5", "3e593366", id="number-minus-12.5"),
        pytest.param("DATE", "2024-01-15T10:20:30", "787c010f0b151f", id="date"),  # §7.3
        pytest.param("VARCHAR2(4)", "AB", "4142", id="varchar2"),
    ],
)
def test_encode_matches_the_doc_examples(type_text: str, value: Any, hex_bytes: str) -> None:
    ctype = parse_type(type_text)
    assert encode(ctype, normalize(ctype, value)).hex() == hex_bytes


def test_timestamp_keeps_nanoseconds_and_orders() -> None:
    a = normalize(parse_type("TIMESTAMP(9)"), "2020-01-01T00:00:00.000000001")
    b = normalize(parse_type("TIMESTAMP(9)"), "2020-01-01T00:00:00.000000002")
    assert isinstance(a, Timestamp) and a.nanos == 1 and a < b


def test_number_keeps_exact_decimal() -> None:
    value = normalize(parse_type("NUMBER"), "12345678901234567890.123456789")
    assert value == decimal.Decimal("12345678901234567890.123456789")
    assert math.isnan(normalize(parse_type("BINARY_DOUBLE"), "nan"))


def test_lob_values_null_empty_and_data() -> None:
    clob, nclob, blob = parse_type("CLOB"), parse_type("NCLOB"), parse_type("BLOB")
    assert (clob.code, nclob.code, blob.code) == (112, 112, 113)
    assert normalize(clob, "") is None  # '' is NULL in Oracle, also for a CLOB
    assert normalize(clob, {"empty": True}) == "" and normalize(blob, {"empty": True}) == b""  # EMPTY_*()
    assert normalize(clob, {"repeat": "ab", "times": 3}) == "ababab"
    assert normalize(blob, {"repeat": "0A", "times": 2}) == b"\n\n"
    assert encode(clob, "é") == "é".encode("utf-16-be")  # CLOB data on AL32UTF8 is AL16UTF16
    assert encode(nclob, "é") == "é".encode("utf-16-be")
    assert render(clob, "") == "" and render(blob, b"\xca\xfe") == "CAFE" and render(clob, None) is None
