"""The real oracdc index-leaf records (10.30 / 10.35 with a 5.1 of opc 10.22 on object 80707,
docs/lobs.md "The real data") are an index-organized table's changes when the dictionary knows
object 80707 as a table: reported per table with their count and reason, never trail records.

Expected values come from the data set, read by hand (test_oracdc_lobs.py: three layer-10 vectors
whose vector header's object id is 80707) and from the dictionary the test writes, never from the
decoder.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from redo_lib.dictionary import load_dictionary
from redo_lib.unsupported import REASONS, batch_unsupported, parse_vector_counts
from tests.reference.test_oracdc_lobs import _core_report, _lob_records

pytestmark = pytest.mark.realdata

IOT_OBJ = 80707


def _dictionary(**table: Any) -> Any:
    """A dictionary holding one table of object 80707 (its own data object: an IOT's rows live in its
    index segment, whose object id the redo names), with the storage attributes given."""
    doc = {
        "format": "redotrail-dictionary", "format_version": 1, "scn": 1, "max_object_id": 90000,
        "db_charset": "AL32UTF8", "national_charset": "AL16UTF16",
        "tables": [{
            "obj": IOT_OBJ, "dataobj": IOT_OBJ, "owner": "ORACDC", "name": "IOT_TEST",
            "columns": [{"segcol_no": 1, "name": "ID", "type": "NUMBER", "length": 22, "nullable": False},
                        {"segcol_no": 2, "name": "NAME", "type": "VARCHAR2", "length": 40, "nullable": True}],
            "constraints": [{"name": "IOT_TEST_PK", "type": "P", "columns": ["ID"]}],
            **table,
        }],
    }  # fmt: skip
    return load_dictionary(json.dumps(doc))


def _vectors() -> dict[tuple[str, int], int]:
    return dict(_core_report([row for row, _ in _lob_records()]).unsupported_vectors)


def test_the_core_counts_the_index_leaf_vectors_by_their_object() -> None:
    vectors = _vectors()
    assert vectors[("index_leaf", IOT_OBJ)] == 3
    # the two 19.1 blocks (neither rows nor LOB pages), by their header's object id
    assert vectors[("direct_load_block", 16334300)] == 1 and vectors[("direct_load_block", 75656)] == 1
    assert not any(kind == "encrypted" for kind, _ in vectors)
    # the JSON form (logs.json, DecodeReport.to_dict) reads back the same
    assert parse_vector_counts({f"{k}:{o}": n for (k, o), n in vectors.items()}) == vectors


def test_an_iot_in_the_capture_scope_is_reported_with_its_count_and_reason() -> None:
    report = batch_unsupported({}, _vectors(), _dictionary(iot_type="IOT"), {"include_owners": {"ORACDC"}})
    assert report["changes"] == 3
    assert report["tables"] == {
        "ORACDC.IOT_TEST": {
            "iot": {"changes": 3, "counted": "change vectors", "reason": REASONS["iot"],
                    "storage": {"iot_type": "IOT"}},
        }
    }  # fmt: skip
    assert report["out_of_scope"] == {}
    assert "index-organized table" in REASONS["iot"] and "layer 10" in REASONS["iot"]


def test_a_table_the_dictionary_knows_without_the_iot_mark_is_still_one() -> None:
    # an older export has no iot_type: layer-10 changes of a table's own data object tell it
    report = batch_unsupported({}, _vectors(), _dictionary(), {})
    assert report["tables"]["ORACDC.IOT_TEST"]["iot"]["changes"] == 3


def test_outside_the_capture_scope_it_is_only_counted() -> None:
    report = batch_unsupported({}, _vectors(), _dictionary(iot_type="IOT"), {"include_owners": {"HR"}})
    assert report == {"changes": 0, "tables": {}, "out_of_scope": {"ORACDC.IOT_TEST": {"iot": 3}}}


def test_without_the_table_in_the_dictionary_index_vectors_are_index_maintenance() -> None:
    other = load_dictionary(
        json.dumps(
            {
                "format": "redotrail-dictionary",
                "format_version": 1,
                "scn": 1,
                "db_charset": "AL32UTF8",
                "national_charset": "AL16UTF16",
                "tables": [],
            }
        )  # fmt: skip
    )
    assert batch_unsupported({}, _vectors(), other, {}) == {"changes": 0, "tables": {}, "out_of_scope": {}}
