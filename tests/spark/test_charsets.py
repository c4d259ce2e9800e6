"""A database in another character set through the four Spark stages (docs/charsets.md): the
charsets_gbk scenario (ZHS16GBK, national UTF8: GBK VARCHAR2 / CHAR bytes, CLOB and NCLOB data
in AL16UTF16) publishes its final state, the text as the scenario's SQL wrote it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.spark.test_generated_scenario import _assert_final_state, _generate, _publish_batches

pytest_plugins = ["tests.fixtures.spark"]
pytestmark = pytest.mark.spark


@pytest.fixture(scope="module")
def charsets_gbk(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _generate(tmp_path_factory, "charsets_gbk")


@pytest.mark.parametrize("fmt", ["iceberg", pytest.param("delta", marks=pytest.mark.slow)])
def test_gbk_database_publishes_its_text(spark: Any, charsets_gbk: Path, tmp_path: Path, fmt: str) -> None:
    """The mirror equals the generator's final table; the rows hold the scenario's text (its header
    gives the final state by hand); no value error was counted (validate passed, counts.json names
    no set)."""
    tables = _publish_batches(spark, charsets_gbk, tmp_path, fmt, [], [])
    _assert_final_state(charsets_gbk, tables)
    rows = {r["ID"]: r for r in tables._arrow("zh__cities").to_pylist()}
    assert (rows[1]["CITY"], rows[1]["CODE"], rows[1]["NOTE"]) == ("北京", "中文" + " " * 8, "繁體字")
    assert (rows[1]["BODY"], rows[1]["NBODY"]) == ("北京是中国的首都", "國語 😀")
    assert (rows[3]["CITY"], rows[3]["CODE"], rows[3]["NOTE"]) == ("广州", "abc" + " " * 9, None)
    assert sorted(rows) == [1, 3]
    counts = (tmp_path / "b-000001-000001" / "counts.json").read_text()
    assert "ZHS16GBK" not in counts  # no value error names the set
