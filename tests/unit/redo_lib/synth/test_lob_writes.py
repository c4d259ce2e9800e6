"""Writes through a LOB locator (issue 34, docs/lobs.md "Writes through the locator"): DBMS_LOB.WRITE,
TRIM, ERASE on BasicFile LOBs keep the LOB id, write the pages they change under new DBAs and keep the
others; Oracle's errors for bad arguments; the lob_writes scenario decodes whole in one batch per
log (the pages a write keeps carried from the batch before); the steps' YAML round trip."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from redo_lib.errors import ScenarioError
from redo_lib.format.lobs import parse_lob_locator
from redo_lib.pipeline import decode_logs, describe_logs
from redo_lib.synth import generate, load_scenario, parse_scenario
from redo_lib.synth.load import dump_step, parse_step
from redo_lib.synth.lobs import LobSpace
from redo_lib.synth.scenario import AppendLob, LobWrite

REPO = Path(__file__).resolve().parents[4]
PAGE = 8192 - 60


def _space_with(size: int) -> tuple[LobSpace, bytes, list[int]]:
    space = LobSpace(8192)
    locator, pages = space.store(b"a" * size)
    return space, locator, [p.dba for p in pages]


def test_a_write_inside_one_page_rewrites_that_page_only() -> None:
    space, locator, dbas = _space_with(3 * PAGE - 100)
    new = b"a" * PAGE + b"WRITTEN" + b"a" * (2 * PAGE - 107)
    out, pages = space.rewrite(locator, new, (PAGE, PAGE + 7))
    after = parse_lob_locator(out)
    assert after.lob_id == parse_lob_locator(locator).lob_id
    assert [p.page for p in pages] == [1] and pages[0].data == new[PAGE : 2 * PAGE]
    assert after.dbas == (dbas[0], pages[0].dba, dbas[2]) and pages[0].dba not in dbas
    assert after.last_page_bytes == PAGE - 100


def test_an_erase_of_bytes_already_erased_still_rewrites_the_page() -> None:
    space, locator, dbas = _space_with(2 * PAGE)
    out, pages = space.rewrite(locator, b"a" * (2 * PAGE), (10, 20))  # same bytes: a new version
    assert [p.page for p in pages] == [0]
    assert parse_lob_locator(out).dbas == (pages[0].dba, dbas[1])


def test_trims_keep_whole_pages_and_rewrite_a_cut_one() -> None:
    space, locator, dbas = _space_with(3 * PAGE - 100)
    out, pages = space.rewrite(locator, b"a" * PAGE, (PAGE, PAGE))  # at a page boundary
    assert pages == [] and parse_lob_locator(out).dbas == (dbas[0],)
    out, pages = space.rewrite(locator, b"a" * (PAGE + 5), (PAGE + 5, PAGE + 5))  # inside page 2
    assert [p.page for p in pages] == [1] and pages[0].data == b"a" * 5
    assert parse_lob_locator(out).dbas == (dbas[0], pages[0].dba)
    out, pages = space.rewrite(locator, b"", (0, 0))  # to 0: an empty locator, same LOB id
    after = parse_lob_locator(out)
    assert pages == [] and not after.dbas and not after.inline
    assert after.lob_id == parse_lob_locator(locator).lob_id


def test_in_row_values_stay_in_the_row_until_they_do_not_fit() -> None:
    space = LobSpace(8192)
    locator, _ = space.store(b"")
    out, pages = space.rewrite(locator, b"x" * 3964, (0, 3964))
    assert pages == [] and parse_lob_locator(out).inline == b"x" * 3964
    out, pages = space.rewrite(out, b"x" * 3965, (3964, 3965))
    assert [len(p.data) for p in pages] == [3965] and parse_lob_locator(out).dbas == (pages[0].dba,)


_TABLES = """
tables:
  - owner: APP
    name: DOCS
    columns:
      - {name: ID, type: NUMBER, nullable: false}
      - {name: N, type: NUMBER}
      - {name: BODY, type: CLOB}
    primary_key: [ID]
  - owner: APP
    name: SF
    securefile: true
    columns:
      - {name: ID, type: NUMBER, nullable: false}
      - {name: BODY, type: CLOB}
    primary_key: [ID]
"""


def _run(step: str, tmp_path: Path) -> Any:
    text = (
        "name: errs\n"
        + _TABLES
        + "steps:\n"
        + "  - insert: {table: DOCS, values: {ID: 1, BODY: abcdef}}\n"
        + "  - insert: {table: DOCS, values: {ID: 2}}\n"
        + "  - insert: {table: SF, values: {ID: 1, BODY: abc}}\n"
        + f"  - {step}\n  - commit\n"
    )
    return generate(parse_scenario(text), tmp_path / "out")


@pytest.mark.parametrize(
    ("step", "message"),
    [
        ("lob_write: {table: DOCS, column: BODY, offset: 0, value: x, where: {ID: 1}}", "ORA-21560"),
        ("lob_write: {table: DOCS, column: BODY, offset: 1, value: '', where: {ID: 1}}", "ORA-21560"),
        ("lob_write: {table: DOCS, column: BODY, offset: null, value: x, where: {ID: 1}}", "ORA-06502"),
        ("lob_write: {table: DOCS, column: BODY, offset: 1, value: x, where: {ID: 2}}", "ORA-22275"),
        ("lob_trim: {table: DOCS, column: BODY, length: -1, where: {ID: 1}}", "ORA-21560"),
        ("lob_trim: {table: DOCS, column: BODY, length: 7, where: {ID: 1}}", "ORA-22926"),
        ("lob_trim: {table: DOCS, column: BODY, length: 1, where: {ID: 2}}", "ORA-22275"),
        ("lob_erase: {table: DOCS, column: BODY, offset: 1, amount: 0, where: {ID: 1}}", "ORA-21560"),
        ("lob_erase: {table: DOCS, column: BODY, offset: -3, amount: 1, where: {ID: 1}}", "ORA-21560"),
        ("lob_erase: {table: DOCS, column: BODY, offset: 1, amount: two, where: {ID: 1}}", "ORA-06502"),
        ("lob_write: {table: DOCS, column: N, offset: 1, value: '1', where: {ID: 1}}", "not a LOB column"),
        ("lob_write: {table: SF, column: BODY, offset: 1, value: x, where: {ID: 1}}", "SecureFile"),
        ("lob_trim: {table: DOCS, column: BODY, where: {ID: 1}}", "lob_trim needs length"),
        ("lob_erase: {table: DOCS, column: BODY, offset: 1, amount: 1, value: x, where: {ID: 1}}", "takes"),
    ],
)
def test_bad_arguments_raise_oracles_errors(step: str, message: str, tmp_path: Path) -> None:
    with pytest.raises(ScenarioError, match=message):
        _run(step, tmp_path)


def test_calls_that_change_nothing_write_nothing(tmp_path: Path) -> None:
    # a TRIM to the current length, an ERASE from past the end: no row change, no trail record
    for step in (
        "lob_trim: {table: DOCS, column: BODY, length: 6, where: {ID: 1}}",
        "lob_erase: {table: DOCS, column: BODY, offset: 7, amount: 5, where: {ID: 1}}",
    ):
        result = _run(step, tmp_path / step[:8])
        ops = [json.loads(line)["op"] for line in result.trail.read_text().splitlines()]
        assert ops == ["INSERT", "INSERT", "INSERT"]


def test_steps_round_trip_and_lob_append_is_append_lob() -> None:
    for raw in (
        {"lob_write": {"table": "DOCS", "column": "BODY", "offset": 3, "value": "xy", "where": {"ID": 1}}},
        {"lob_trim": {"table": "DOCS", "column": "BODY", "length": 0, "where": {"ID": 1}}},
        {"lob_erase": {"table": "DOCS", "column": "BODY", "offset": 2, "amount": 9, "where": {"ID": 1}}},
    ):
        step = parse_step(raw)
        assert isinstance(step, LobWrite)
        assert parse_step(dump_step(step)) == step
    step = parse_step({"lob_append": {"table": "DOCS", "column": "BODY", "value": "z", "where": {"ID": 1}}})
    assert isinstance(step, AppendLob)


def test_lob_writes_decode_whole_one_batch_per_log(tmp_path: Path) -> None:
    result = generate(load_scenario(REPO / "include/scenarios/lob_writes.yaml"), tmp_path / "gen")
    expected = [json.loads(line) for line in result.trail.read_text(encoding="utf-8").splitlines()]
    by_id = {}
    for r in expected:
        by_id.setdefault(r["columns"]["ID"], {}).update(r["columns"])
    assert by_id["1"]["BODY"] == "hello in the row" + " " * 23 + "far appended"
    assert by_id["1"]["DATA"] == "CA0000BE"
    assert by_id["2"]["BODY"] == ""
    assert (
        by_id["3"]["BODY"]
        == ("alpha " * 834)[:99]
        + " " * 50
        + ("alpha " * 834)[149:4066]
        + "X"
        + ("alpha " * 834)[4067:4999]
        + "W"
    )
    assert by_id["3"]["DATA"] == ("0123456789ABCDEF" * 1500 + "00" * 999 + "FFEEDDCC")[: 2 * PAGE]
    logs = [r.location for r in describe_logs(list(result.logs))]
    assert len(logs) == 2
    trail: list[dict[str, Any]] = []
    carried: list[str] = []
    open_events: list[Any] = []
    for n, log in enumerate(logs):
        out = tmp_path / f"b{n}" / "lobs" / "part-00000.parquet"
        got = decode_logs(
            [log], result.dictionary, carried=open_events, carried_lobs=carried, lobs_out=str(out)
        )
        assert got.counts["lobs"].get("lob_values_unresolved", 0) == 0
        trail += [r.to_dict() for r in got.trail]
        carried, open_events = [str(out)], got.carried_out
    assert trail == expected


def test_offsets_count_characters_of_multi_byte_text(tmp_path: Path) -> None:
    text = """
name: chars
tables:
  - owner: APP
    name: T
    columns:
      - {name: ID, type: NUMBER, nullable: false}
      - {name: C, type: CLOB}
      - {name: N, type: NCLOB}
    primary_key: [ID]
steps:
  - insert: {table: T, values: {ID: 1, C: {repeat: "é☃", times: 3000}, N: "sécure"}}
  - lob_write: {table: T, column: C, offset: 4066, value: "ünï", where: {ID: 1}}
  - lob_write: {table: T, column: N, offset: 9, value: "☃", where: {ID: 1}}
  - lob_erase: {table: T, column: C, offset: 2, amount: 1, where: {ID: 1}}
  - commit
"""
    result = generate(parse_scenario(text), tmp_path / "out")
    expected = [json.loads(line) for line in result.trail.read_text(encoding="utf-8").splitlines()]
    decoded = decode_logs(list(result.logs), result.dictionary)
    assert [r.to_dict() for r in decoded.trail] == expected
    old = "é☃" * 3000
    assert expected[1]["columns"]["C"] == old[:4065] + "ünï" + old[4068:]
    assert expected[2]["columns"]["N"] == "sécure  ☃"
    assert expected[3]["columns"]["C"] == "é " + (old[:4065] + "ünï" + old[4068:])[2:]
