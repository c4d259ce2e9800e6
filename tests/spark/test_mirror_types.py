"""The mirror's column types on real Spark: the trail's text of each Oracle type becomes its typed
value exactly, a value that does not fit is NULL with its rule (never rounded), and a typed value read
back from a mirror as text (``as_text``) converts to the same value again (existing rows enter the
fold as text). Expected values are written by hand from the Oracle values, not by the code under
test."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal
from typing import Any

import pyarrow as pa
import pytest

from redo_lib.dictionary.model import ColumnDef
from redo_lib.trail import types
from redo_lib.trail.types import typed_value
from spark_jobs import mirror

pytest_plugins = ["tests.fixtures.spark"]
pytestmark = pytest.mark.spark

UTC = dt.UTC
# (mirror type, trail text, expected value, expected rule)
CASES: list[tuple[str, str | None, Any, str | None]] = [
    ("decimal(10,2)", "12345678.91", Decimal("12345678.91"), None),
    ("decimal(10,2)", "-0.5", Decimal("-0.50"), None),
    ("decimal(10,2)", "0", Decimal("0.00"), None),
    ("decimal(10,2)", "123456789.1", None, "number_out_of_range"),  # 9 integer digits > 8
    ("decimal(10,2)", "1.005", None, "number_out_of_range"),  # never rounded to 1.01 or 1.00
    ("decimal(3,3)", "0.001", Decimal("0.001"), None),
    ("decimal(38,10)", "12345678901234567890123456789", None, "number_out_of_range"),  # 29 digits
    (
        "decimal(38,10)",
        "1234567890123456789012345678.0123456789",
        Decimal("1234567890123456789012345678.0123456789"),
        None,
    ),  # fmt: skip
    ("decimal(38,10)", "0.33333333333", None, "number_out_of_range"),
    ("decimal(38,10)", "~", None, "number_infinite"),
    ("bigint", "-999999999999999999", -999999999999999999, None),
    ("bigint", "1000000000000000000", None, "number_out_of_range"),  # 19 digits
    ("bigint", None, None, None),
    ("double", "1.5E-7", 1.5e-7, None),
    ("double", "~", float("inf"), None),
    ("double", "Inf", float("inf"), None),
    ("float", "0.1", pytest.approx(0.1, rel=1e-7), None),
    ("float", "-Inf", float("-inf"), None),
    ("timestamp_ntz", "2024-02-29T23:59:58", dt.datetime(2024, 2, 29, 23, 59, 58), None),
    ("timestamp_ntz", "2024-02-29T23:59:58.123456000", dt.datetime(2024, 2, 29, 23, 59, 58, 123456), None),
    ("timestamp_ntz", "2024-02-29T23:59:58.123456789", None, "fraction_below_microsecond"),
    ("timestamp_ntz", "-0044-03-15T00:00:00", None, "datetime_out_of_range"),  # BC
    ("timestamp", "2024-01-15T15:50:30+05:30", dt.datetime(2024, 1, 15, 10, 20, 30, tzinfo=UTC), None),
    (
        "timestamp",
        "2024-01-15T10:20:30Z [TZ region 33280]",
        dt.datetime(2024, 1, 15, 10, 20, 30, tzinfo=UTC),
        None,
    ),  # fmt: skip
    ("timestamp", "2024-01-15T10:20:30.5Z", dt.datetime(2024, 1, 15, 10, 20, 30, 500000, tzinfo=UTC), None),
    ("binary", "00FF10", b"\x00\xff\x10", None),
    ("binary", "ABC", None, "not_hex"),
    ("boolean", "TRUE", True, None),
    ("boolean", "FALSE", False, None),
    ("string", "+02-03", "+02-03", None),
]


def _frame(spark: Any, texts: list[str | None]) -> Any:
    return spark.createDataFrame([(t,) for t in texts], "v string")


def _instant(value: Any) -> Any:
    """Spark hands TIMESTAMP values as naive local (session zone = UTC here) datetimes."""
    return value.replace(tzinfo=UTC) if isinstance(value, dt.datetime) else value


@pytest.mark.parametrize("sql_type", sorted({c[0] for c in CASES}))
def test_text_to_type_and_back(spark: Any, sql_type: str) -> None:
    from pyspark.sql import functions as F

    spark.conf.set("spark.sql.session.timeZone", "UTC")
    cases = [c for c in CASES if c[0] == sql_type]
    value, rule = mirror.typed(F.col("v"), sql_type)
    frame = _frame(spark, [c[1] for c in cases]).select("v", value.alias("value"),
                                                        (rule if rule is not None else F.lit(None)).alias("rule"))  # fmt: skip
    assert frame.schema["value"].dataType.simpleString() == sql_type
    got = frame.collect()
    for (_, text, expected, expected_rule), row in zip(cases, got, strict=True):
        assert row["v"] == text
        actual = _instant(row["value"]) if sql_type == "timestamp" else row["value"]
        assert (actual, row["rule"]) == (expected, expected_rule), text
    # typed -> text -> typed gives the same value (what existing_rows relies on)
    typed = frame.select(F.col("value").cast(sql_type).alias("t"))
    back_value, back_rule = mirror.typed(mirror.as_text(F.col("t"), sql_type), sql_type)
    again = typed.select("t", back_value.alias("again"),
                        (back_rule if back_rule is not None else F.lit(None)).alias("rule")).collect()  # fmt: skip
    for row in again:
        assert (row["again"], row["rule"]) == (row["t"], None)


ARROW = {
    "decimal(10,2)": pa.decimal128(10, 2), "decimal(3,3)": pa.decimal128(3, 3), "decimal(38,10)": pa.decimal128(38, 10),
    "bigint": pa.int64(), "double": pa.float64(), "float": pa.float32(), "timestamp_ntz": pa.timestamp("us"),
    "timestamp": pa.timestamp("us", tz="UTC"), "binary": pa.binary(), "boolean": pa.bool_(), "string": pa.string(),
}  # fmt: skip


@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c[0]}:{c[1]}")
def test_the_python_conversion_agrees(case: tuple[str, str | None, Any, str | None]) -> None:
    """``types.typed_value`` (the demo's and the tests' check of mirrors) gives the same values."""
    sql_type, text, expected, _ = case
    assert typed_value(text, ARROW[sql_type]) == expected


@pytest.mark.parametrize(
    ("declared", "mirror_type"),
    [
        ({"type_code": 2, "type_name": "NUMBER", "length": 22, "precision": 10, "scale": 2}, "decimal(10,2)"),
        ({"type_code": 2, "type_name": "NUMBER", "length": 22, "precision": 18, "scale": 0}, "bigint"),
        ({"type_code": 2, "type_name": "NUMBER", "length": 22, "precision": 19, "scale": 0}, "decimal(19,0)"),
        ({"type_code": 2, "type_name": "NUMBER", "length": 22}, "decimal(38,10)"),
        ({"type_code": 2, "type_name": "NUMBER", "length": 22, "scale": 0}, "decimal(38,0)"),  # INTEGER
        ({"type_code": 2, "type_name": "NUMBER", "length": 22, "precision": 5, "scale": -2}, "bigint"),
        ({"type_code": 2, "type_name": "FLOAT", "length": 22, "precision": 126}, "double"),
        ({"type_code": 12, "type_name": "DATE", "length": 7}, "timestamp_ntz"),
        ({"type_code": 180, "type_name": "TIMESTAMP", "length": 11, "scale": 9}, "timestamp_ntz"),
        ({"type_code": 180, "type_name": "TIMESTAMP", "length": 11, "scale": 6}, "timestamp_ntz"),
        ({"type_code": 180, "type_name": "TIMESTAMP", "length": 7, "scale": 0}, "timestamp_ntz"),
        ({"type_code": 181, "type_name": "TIMESTAMP WITH TIME ZONE", "length": 13}, "timestamp"),
        ({"type_code": 231, "type_name": "TIMESTAMP WITH LOCAL TIME ZONE", "length": 11}, "timestamp"),
        ({"type_code": 182, "type_name": "INTERVAL YEAR TO MONTH", "length": 5}, "string"),
        ({"type_code": 183, "type_name": "INTERVAL DAY TO SECOND", "length": 11, "scale": 6}, "string"),
        ({"type_code": 1, "type_name": "NVARCHAR2", "length": 40, "charset": "AL16UTF16"}, "string"),
        ({"type_code": 100, "type_name": "BINARY_FLOAT", "length": 4}, "float"),
        ({"type_code": 101, "type_name": "BINARY_DOUBLE", "length": 8}, "double"),
        ({"type_code": 23, "type_name": "RAW", "length": 8}, "binary"),
        ({"type_code": 113, "type_name": "BLOB", "length": 4000}, "binary"),
        ({"type_code": 112, "type_name": "CLOB", "length": 4000}, "string"),
        ({"type_code": 69, "type_name": "ROWID", "length": 10}, "string"),
        ({"type_code": 252, "type_name": "BOOLEAN", "length": 1}, "boolean"),
    ],
)
def test_oracle_types_map_as_documented(declared: dict[str, Any], mirror_type: str) -> None:
    column = ColumnDef(col_no=1, segcol_no=1, name="C", **declared)
    assert types.mirror_type(column) == mirror_type
    if declared["type_name"] == "NUMBER" and declared.get("precision") is None:
        assert types.mirror_type(column, number_as_string=True) == "string"
    # a key column whose type cannot hold every value exactly is a string: a value left NULL there
    # would merge distinct rows (unbounded NUMBER, FLOAT, TIMESTAMP(7..9) or of unknown precision, every
    # TIMESTAMP WITH (LOCAL) TIME ZONE); the others (TIMESTAMP(0..6) too) keep their type
    name, scale = declared["type_name"], declared.get("scale")
    inexact = (
        (name == "NUMBER" and declared.get("precision") is None)
        or name == "FLOAT"
        or name.startswith("TIMESTAMP WITH")
        or (name == "TIMESTAMP" and (scale is None or scale > 6))
    )
    assert types.mirror_type(column, key=True) == ("string" if inexact else mirror_type)
