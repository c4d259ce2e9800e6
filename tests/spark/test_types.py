"""Issue 34's column types through the four Spark stages (docs/tables.md, "Column types of the
mirrors"): the types scenario (NVARCHAR2 / NCHAR, INTEGER / SMALLINT / DECIMAL / FLOAT(b),
BINARY_FLOAT, BOOLEAN, TIMESTAMP(0/3/9), INTERVAL YEAR TO MONTH / DAY TO SECOND) publishes its final
state, each column typed as the mapping says, the values those of the scenario's SQL (its header)."""

from __future__ import annotations

import datetime as dt
import json
import math
from decimal import Decimal
from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest

from tests.spark.test_generated_scenario import _assert_final_state, _generate, _publish_batches

pytest_plugins = ["tests.fixtures.spark"]
pytestmark = pytest.mark.spark


@pytest.fixture(scope="module")
def types_scenario(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _generate(tmp_path_factory, "types")


@pytest.mark.parametrize("fmt", ["iceberg", pytest.param("delta", marks=pytest.mark.slow)])
def test_types_publish_typed_mirrors(spark: Any, types_scenario: Path, tmp_path: Path, fmt: str) -> None:
    """The mirror equals the generator's final table; BOOLEAN is a boolean, BINARY_FLOAT a float,
    INTEGER a decimal(38,0), FLOAT(b) a double, TIMESTAMP(n) a timestamp (TIMESTAMP(9)'s nanoseconds
    do not fit: NULL in the mirror, counted, the changelog keeps the text), intervals their text."""
    tables = _publish_batches(spark, types_scenario, tmp_path, fmt, [], [])
    _assert_final_state(types_scenario, tables)
    arrow = tables._arrow("ty__items")
    kinds = {f.name: f.type for f in arrow.schema}
    assert (kinds["ACTIVE"], kinds["WEIGHT"], kinds["RATIO"]) == (pa.bool_(), pa.float32(), pa.float64())
    assert (kinds["QTY"], kinds["PRICE"], kinds["YM"]) == (
        pa.decimal128(38, 0),
        pa.decimal128(9, 2),
        pa.string(),
    )
    rows = {r["ID"]: r for r in arrow.to_pylist()}
    one = rows[1]
    assert (one["ACTIVE"], one["QTY"], one["SMALL"], one["PRICE"], one["RATIO"]) == (
        False, Decimal(42), Decimal(-7), Decimal("1234.57"), 1235.0
    )  # fmt: skip
    assert math.isinf(one["WEIGHT"]) and one["WEIGHT"] > 0
    assert (one["NAME"], one["CODE"], one["NOTE"]) == (None, "ab    ", "déjà")
    assert one["TS0"].replace(tzinfo=None) == dt.datetime(2025, 6, 15, 10, 30, 1)
    assert one["TS3"].replace(tzinfo=None) == dt.datetime(2025, 6, 15, 10, 30, 0, 123000)
    assert one["TS9"] is None  # 987654321 ns: below a microsecond
    assert (one["YM"], one["DS"]) == (None, "+01 02:03:04.123000000")
    assert (rows[3]["ACTIVE"], rows[3]["QTY"], sorted(rows)) == (True, Decimal(2147483647), [1, 3])
    published = json.loads((tmp_path / "b-000001-000001" / "PUBLISHED").read_text())
    assert "fraction_below_microsecond" in json.dumps(published.get("unfit_values", {}))
