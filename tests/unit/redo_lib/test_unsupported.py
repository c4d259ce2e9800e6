"""Tables the decoder cannot read (issue 18): an encrypted tablespace, OLTP-compressed rows and an
index-organized table are detected from generated redo (``redo_lib.synth``, ``storage:``), reported
per table with count and reason (counts.json ``unsupported``), kept out of the trail (never garbage)
and accounted for in the reconciliation.

Expected counts are the scenario's (worked out below from its steps, and the generator's
``expected/unsupported.json``, written from what it wrote), never the decoder's.
"""

from __future__ import annotations

import json
import textwrap
from typing import Any

import pytest

from redo_lib.dictionary import load_dictionary
from redo_lib.errors import ScenarioError
from redo_lib.pipeline import DecodeResult, balance, decode_logs
from redo_lib.synth import GenerationResult, generate, parse_scenario
from redo_lib.trail.emit import EmitOptions, capture_options
from redo_lib.unsupported import REASONS, is_hcc, problem_rows, unsupported_report

COLUMNS = """
    columns:
      - {name: ID, type: NUMBER, nullable: false}
      - {name: NOTE, type: VARCHAR2(20)}
    primary_key: [ID]"""

SCENARIO = f"""
name: unsupported
settings: {{compat: 19c, block_size: 512, log_size: 1MB, start_scn: 1622000, start_time: 2024-03-02T10:00:00}}
tables:
  - owner: APP
    name: ORDERS{COLUMNS}
  - owner: APP
    name: SECRETS
    storage: encrypted{COLUMNS}
  - owner: APP
    name: PACKED
    storage: oltp_compressed{COLUMNS}
  - owner: APP
    name: BYKEY
    storage: iot{COLUMNS}
steps:
  - insert: {{table: ORDERS, values: {{ID: 1, NOTE: plain}}}}
  - insert: {{table: SECRETS, values: {{ID: 1, NOTE: hidden-one}}}}
  - insert: {{table: PACKED, values: {{ID: 1, NOTE: packed-one}}}}
  - insert: {{table: BYKEY, values: {{ID: 1, NOTE: leaf-one}}}}
  - commit
  - insert: {{table: SECRETS, values: {{ID: 2, NOTE: hidden-two}}}}
  - insert: {{table: PACKED, rows: [{{ID: 2, NOTE: packed-two}}, {{ID: 3, NOTE: packed-three}}], array: true}}
  - update: {{table: SECRETS, set: {{NOTE: hidden-new}}, where: {{ID: 1}}}}
  - update: {{table: BYKEY, set: {{NOTE: leaf-new}}, where: {{ID: 1}}}}
  - update: {{table: PACKED, set: {{NOTE: unpacked}}, where: {{ID: 1}}}}
  - update: {{table: ORDERS, set: {{NOTE: done}}, where: {{ID: 1}}}}
  - commit
  - delete: {{table: BYKEY, where: {{ID: 1}}}}
  - commit
"""

# from the steps: SECRETS 2 inserts + 1 update (one row vector each); PACKED 3 committed inserts
# (the array insert is written row by row: an array of compressed rows is not generated), its
# update written uncompressed (it reaches the trail); BYKEY insert, update, delete (one 10.x each)
EXPECTED = {
    "APP.SECRETS": {"encrypted": 3},
    "APP.PACKED": {"oltp_compressed": 3},
    "APP.BYKEY": {"iot": 3},
}


@pytest.fixture(scope="module")
def generated(tmp_path_factory: pytest.TempPathFactory) -> GenerationResult:
    return generate(parse_scenario(textwrap.dedent(SCENARIO)), tmp_path_factory.mktemp("unsupported"))


def _decode(result: GenerationResult, **options: Any) -> DecodeResult:
    return decode_logs(
        list(result.logs), result.dictionary, options=EmitOptions(**options) if options else None
    )


def _expected(result: GenerationResult) -> list[dict[str, Any]]:
    return [json.loads(line) for line in result.trail.read_text(encoding="utf-8").splitlines()]


def test_the_generator_writes_what_the_scenario_says(generated: GenerationResult) -> None:
    written = json.loads((generated.out / "expected" / "unsupported.json").read_text())
    assert written == EXPECTED
    # the dictionary export says what each table is
    tables = {v.full_name: v for v in load_dictionary(generated.dictionary)}
    assert tables["APP.SECRETS"].encrypted and tables["APP.PACKED"].compress_for == "ADVANCED"
    assert tables["APP.BYKEY"].iot_type == "IOT" and not tables["APP.ORDERS"].encrypted
    # their changes are not in the expected trail, apart from PACKED's uncompressed update
    assert {(r["table"], r["op"]) for r in _expected(generated)} == {
        ("ORDERS", "INSERT"), ("ORDERS", "UPDATE"), ("PACKED", "UPDATE"),
    }  # fmt: skip


def test_each_table_is_reported_with_its_count_and_reason(generated: GenerationResult) -> None:
    counts = _decode(generated).counts
    section = counts["unsupported"]
    got = {
        name: {kind: entry["changes"] for kind, entry in kinds.items()}
        for name, kinds in section["tables"].items()
    }
    assert got == EXPECTED
    assert section["changes"] == 9 and section["out_of_scope"] == {}
    assert section["tables"]["APP.SECRETS"]["encrypted"]["reason"] == "encrypted tablespace: no key material"
    assert (
        section["tables"]["APP.PACKED"]["oltp_compressed"]["reason"]
        == "OLTP-compressed row image: not decoded"
    )
    assert section["tables"]["APP.BYKEY"]["iot"]["reason"] == (
        "index-organized table: changes are index-leaf operations (layer 10), not decoded"
    )
    assert section["tables"]["APP.BYKEY"]["iot"]["storage"] == {"iot_type": "IOT"}
    rows = problem_rows(counts)
    assert [(r["table"], r["kind"], r["changes"]) for r in rows] == [
        ("APP.BYKEY", "iot", 3), ("APP.PACKED", "oltp_compressed", 3), ("APP.SECRETS", "encrypted", 3),
    ]  # fmt: skip


def test_nothing_unreadable_reaches_the_trail_and_the_rest_is_exact(generated: GenerationResult) -> None:
    decoded = _decode(generated)
    # never garbage: no compressed insert without its values, no encrypted bytes rendered
    assert [r.to_dict() for r in decoded.trail] == _expected(generated)
    for record in decoded.trail:
        assert all(value is not None for _, value in record.columns), record


def test_the_compressed_inserts_are_their_own_term_of_the_balance(generated: GenerationResult) -> None:
    counts = _decode(generated).counts
    # decoded as row changes (their undo and redo pair), not emitted: unsupported_ops, not missing
    assert counts["decoded"]["APP.PACKED"] == {"INSERT": 3, "UPDATE": 1}
    assert counts["unsupported_ops"] == {"APP.PACKED": {"INSERT": 3}}
    assert counts["trail"]["APP.PACKED"] == {"UPDATE": 1}
    assert balance(counts) == {}
    # encrypted and IOT changes never became row changes: outside the balance, in the report
    assert "APP.SECRETS" not in counts["decoded"] and "APP.BYKEY" not in counts["decoded"]


def test_outside_the_capture_scope_they_are_only_counted(generated: GenerationResult) -> None:
    counts = _decode(generated, **capture_options(["APP.ORDERS"])).counts
    section = counts["unsupported"]
    assert section["changes"] == 0 and section["tables"] == {}
    assert section["out_of_scope"] == {"APP.SECRETS": {"encrypted": 3}, "APP.BYKEY": {"iot": 3}}
    # the compressed inserts are out of scope like the table's other changes
    assert counts["out_of_scope"]["APP.PACKED"] == {"INSERT": 3, "UPDATE": 1}
    assert counts["unsupported_ops"] == {} and problem_rows(counts) == []
    assert balance(counts) == {}


def test_the_reasons_name_what_cannot_be_read() -> None:
    assert set(REASONS) == {"encrypted", "oltp_compressed", "hcc", "iot", "unrenderable_type"}
    assert "HCC" in REASONS["hcc"]


def test_storage_is_checked_and_direct_path_refused(tmp_path: Any) -> None:
    bad = SCENARIO.replace("storage: iot", "storage: columnar")
    with pytest.raises(ScenarioError, match="storage 'columnar'"):
        parse_scenario(textwrap.dedent(bad))
    direct = SCENARIO.replace(
        "  - commit\n", "  - direct_insert: {table: SECRETS, rows: [{ID: 9}]}\n  - commit\n", 1
    )
    with pytest.raises(ScenarioError, match="direct-path inserts of encrypted tables"):
        generate(parse_scenario(textwrap.dedent(direct)), tmp_path)


def _one_table(**storage: Any) -> Any:
    doc = {
        "format": "redotrail-dictionary", "format_version": 1, "scn": 1, "db_charset": "AL32UTF8",
        "national_charset": "AL16UTF16",
        "tables": [{"obj": 500, "dataobj": 501, "owner": "DW", "name": "FACTS", **storage,
                    "columns": [{"segcol_no": 1, "name": "ID", "type": "NUMBER", "length": 22, "nullable": False}],
                    "partitions": [{"obj": 502, "dataobj": 503}]}],
    }  # fmt: skip
    return load_dictionary(json.dumps(doc))


def test_direct_load_blocks_of_an_hcc_table_are_hybrid_columnar_units() -> None:
    # two non-row 19.1 blocks on the table's segment and one on a partition's (by the vector header)
    vectors = {("direct_load_block", 501): 2, ("direct_load_block", 503): 1, ("index_leaf", 777): 5}
    hcc = unsupported_report(
        vectors=vectors, unsupported_ops={}, dictionary=_one_table(compress_for="QUERY HIGH"),
        captured=lambda owner, name: True,
    )  # fmt: skip
    assert hcc["tables"] == {"DW.FACTS": {"hcc": {
        "changes": 3, "counted": "change vectors", "reason": REASONS["hcc"], "storage": {"compress_for": "QUERY HIGH"},
    }}}  # fmt: skip
    # OLTP compression writes row blocks (decoded as rows), and an unknown object (777) is an index
    for storage in ({"compress_for": "ADVANCED"}, {}):
        other = unsupported_report(
            vectors=vectors, unsupported_ops={}, dictionary=_one_table(**storage), captured=lambda o, n: True
        )
        assert other["tables"] == {} and other["changes"] == 0
    assert is_hcc("ARCHIVE LOW") and is_hcc("query low") and not is_hcc("BASIC") and not is_hcc(None)


def test_the_storage_attributes_round_trip_and_older_documents_load() -> None:
    history = _one_table(encrypted=True, compress_for="QUERY HIGH", iot_type="IOT")
    (version,) = list(history)
    assert (version.encrypted, version.compress_for, version.iot_type) == (True, "QUERY HIGH", "IOT")
    assert load_dictionary(history.to_json()) == history
    (plain,) = list(_one_table())
    assert (plain.encrypted, plain.compress_for, plain.iot_type) == (False, None, None)
    assert "encrypted" not in _one_table().to_json()  # written only when set
