"""The Iceberg catalog settings publish puts on its Spark session (spark_jobs.common.catalog_settings):
JDBC on SQLite beside a local warehouse by default, a given JDBC URI, or any catalog by properties."""

from __future__ import annotations

import pytest

from spark_jobs.common import CATALOG_CONF, catalog_settings, spark_warehouse


def _props(settings: dict[str, str]) -> dict[str, str]:
    assert settings.pop(CATALOG_CONF) == "org.apache.iceberg.spark.SparkCatalog"
    return {key.removeprefix(CATALOG_CONF + "."): value for key, value in settings.items()}


def test_warehouse_uris_as_spark_writes_them() -> None:
    assert spark_warehouse("s3://bucket/wh/") == "s3a://bucket/wh"
    assert spark_warehouse("s3a://bucket/wh") == "s3a://bucket/wh"
    assert spark_warehouse("file:///data/wh") == "file:///data/wh"
    assert spark_warehouse("/data/wh") == "file:///data/wh"


def test_a_local_warehouse_gets_sqlite_beside_it() -> None:
    assert _props(catalog_settings("file:///data/wh")) == {
        "type": "jdbc",
        "uri": "jdbc:sqlite:/data/wh/catalog.db",
        "warehouse": "file:///data/wh",
        "jdbc.schema-version": "V1",
        "cache-enabled": "false",
    }


def test_the_cluster_profile_names_its_jdbc_catalog_and_credentials() -> None:
    got = _props(
        catalog_settings(
            "s3://lake/wh",
            "jdbc:postgresql://db:5432/iceberg",
            {"jdbc.user": "redotrail", "jdbc.password": "secret"},
        )
    )
    assert got["type"] == "jdbc" and got["uri"] == "jdbc:postgresql://db:5432/iceberg"
    assert got["warehouse"] == "s3a://lake/wh" and got["jdbc.user"] == "redotrail"


def test_rest_or_glue_by_properties() -> None:
    got = _props(catalog_settings("s3://lake/wh", None, {"type": "rest", "uri": "https://cat.example/"}))
    assert got["type"] == "rest" and got["uri"] == "https://cat.example/"
    assert "jdbc.schema-version" not in got
    assert _props(catalog_settings("s3://lake/wh", None, {"type": "glue"}))["type"] == "glue"


def test_a_remote_warehouse_needs_a_catalog() -> None:
    with pytest.raises(ValueError, match="--catalog-uri"):
        catalog_settings("s3://lake/wh")
