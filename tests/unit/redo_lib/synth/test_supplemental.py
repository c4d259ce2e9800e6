"""Supplemental logging modes (issue 34): the ``supplemental:`` setting of a table and of the database,
the supplemental columns the generator writes for each mode as Oracle writes them (synth/pairs.py; the
real 19c records of oracdc show each form, redo-format §5.0.1), and generator -> decode -> expected
trail: ALL COLUMNS gives deletes and update before records every column, minimal logging keys an
update without its key by ROWID (docs/tables.md) and counts it (counts.json ``rowid_keyed``)."""

from __future__ import annotations

import dataclasses
import io
import json
from pathlib import Path
from typing import Any

import pytest

from redo_lib.dictionary import load_dictionary
from redo_lib.errors import ScenarioError
from redo_lib.format.native_records import read_records
from redo_lib.pipeline import decode_logs
from redo_lib.synth import (
    GenerationResult,
    generate,
    load_scenario,
    parse_scenario,
    random_scenario,
    randomized,
    randomtypes,
)
from redo_lib.synth.load import dump_scenario
from redo_lib.synth.scenario import SUPPLEMENTAL_MODES
from redo_lib.trail.emit import EmitOptions
from tests.unit.redo_lib.synth.running import scenario

REPO = Path(__file__).resolve().parents[4]
SCENARIO = REPO / "include" / "scenarios" / "supplemental_logging.yaml"

TABLE = """
tables:
  - owner: APP
    name: T
    columns:
      - {name: ID, type: NUMBER, nullable: false}
      - {name: NAME, type: VARCHAR2(20)}
      - {name: QTY, type: NUMBER}
      - {name: DOC, type: CLOB}
      - {name: NOTE, type: VARCHAR2(20)}
    primary_key: [ID]
    unique_keys: [[NAME, NOTE]]
    foreign_keys: [[QTY]]
"""
STEPS = """
steps:
  - insert: {table: T, values: {ID: 1, NAME: one, QTY: 1, DOC: text, NOTE: n}}
  - commit
  - update: {table: T, set: {NAME: uno}, where: {ID: 1}}
  - update: {table: T, set: {QTY: 2}, where: {ID: 1}}
  - delete: {table: T, where: {ID: 1}}
  - commit
"""


def _supplemental(result: GenerationResult) -> list[tuple[int, tuple[int, ...]]]:
    """(S1 op, segcol#s of the supplemental columns) of every undo record the logs hold."""
    out = []
    for path in result.logs:
        for record in read_records(Path(path).read_bytes(), name=Path(path).name):
            for vector in record.vectors:
                supp = getattr(vector.body, "supplemental", None)
                if supp is not None and getattr(vector.body, "obj", None) == result_table_obj(result):
                    out.append((supp.op, tuple(col for col, _ in supp.columns)))
    return out


def result_table_obj(result: GenerationResult) -> int:
    document = json.loads(Path(result.dictionary).read_text(encoding="utf-8"))
    return next(t["obj"] for t in document["tables"] if t["name"] == "T")


def _generate(text: str, tmp_path: Path, *, images: bool = False) -> GenerationResult:
    return generate(scenario(text, table=TABLE), tmp_path / "out", images=images)


@pytest.mark.parametrize(
    ("mode", "logged"),
    [
        # the key (rule 12) on every update and delete: the generator's historic form
        pytest.param("primary", [(2, ()), (1, (1,)), (1, (1,)), (4, (1,))], id="primary"),
        # an update: every column it does not change but the CLOB; a delete: none (the undo is the row)
        pytest.param("all", [(2, ()), (1, (1, 3, 5)), (1, (1, 2, 5)), (4, ())], id="all"),
        # the unique key's other column when one of its columns changes; nothing else
        pytest.param("unique", [(2, ()), (1, (5,)), (1, ()), (4, ())], id="unique"),
        # the foreign key changed: its columns are the change's (nothing more to log)
        pytest.param("foreign", [(2, ()), (1, ()), (1, ()), (4, ())], id="foreign"),
        # minimal logging: the S1 header alone
        pytest.param("none", [(2, ()), (1, ()), (1, ()), (4, ())], id="none"),
    ],
)
def test_the_supplemental_columns_each_mode_writes(mode: str, logged: list[Any], tmp_path: Path) -> None:
    result = _generate(f"database: {{supplemental: {mode}}}\n" + STEPS, tmp_path)
    assert _supplemental(result) == logged


def test_a_table_setting_wins_over_the_database_one(tmp_path: Path) -> None:
    table = TABLE.replace("    primary_key: [ID]\n", "    primary_key: [ID]\n    supplemental: none\n")
    result = generate(scenario("database: {supplemental: all}\n" + STEPS, table=table), tmp_path / "out")
    assert _supplemental(result) == [(2, ()), (1, ()), (1, ()), (4, ())]


def test_unknown_modes_are_scenario_errors() -> None:
    with pytest.raises(ScenarioError, match="supplemental is one of all, primary, unique, foreign, none"):
        scenario("database: {supplemental: some}\n" + STEPS)
    table = TABLE.replace("    primary_key: [ID]\n", "    primary_key: [ID]\n    supplemental: everything\n")
    with pytest.raises(ScenarioError, match="APP.T: supplemental is one of"):
        scenario(STEPS, table=table)
    with pytest.raises(ScenarioError, match="foreign key columns"):
        scenario(STEPS, table=TABLE.replace("[[QTY]]", "[[NOPE]]"))


def test_the_settings_survive_the_dumped_scenario() -> None:
    table = TABLE.replace("    primary_key: [ID]\n", "    primary_key: [ID]\n    supplemental: unique\n")
    original = scenario("database: {supplemental: none}\n" + STEPS, table=table)
    out = io.StringIO()
    dump_scenario(original, out)
    again = parse_scenario(out.getvalue())
    assert again.settings.supplemental == "none"
    assert again.tables[0].supplemental == "unique"
    assert again.tables[0].foreign_keys == (("QTY",),)


def test_the_dictionary_says_a_table_logs_all_columns(tmp_path: Path) -> None:
    """What an export reads from DBA_LOG_GROUPS / V$DATABASE: the member only where the logging is not
    the default, so the other scenarios' dictionaries stay as they were."""
    path = generate(load_scenario(SCENARIO), tmp_path).dictionary
    tables = {t["name"]: t for t in json.loads(Path(path).read_text(encoding="utf-8"))["tables"]}
    assert tables["ALL_COLS"]["supplemental"] == "all"
    assert tables["MINIMAL"]["supplemental"] == "none"
    assert "supplemental" not in tables["PK_ONLY"]
    # the loader holds it and writes it back (an evolved dictionary keeps it)
    history = load_dictionary(path)
    assert {v.name: v.supplemental for v in history if v.owner == "SUPP"}["ALL_COLS"] == "all"
    assert load_dictionary(history.to_json()) == history


def _decode(result: GenerationResult, *, images: bool) -> Any:
    options = EmitOptions(full_deletes=True, update_before_images=True) if images else None
    return decode_logs(list(result.logs), result.dictionary, options=options)


def _expected(result: GenerationResult, *, images: bool) -> list[dict[str, Any]]:
    path = result.trail_images if images else result.trail
    assert path is not None
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


@pytest.mark.parametrize("images", [False, True], ids=["default-images", "update-befores-full-deletes"])
def test_the_scenario_decodes_to_its_expected_trail(images: bool, tmp_path: Path) -> None:
    result = generate(load_scenario(SCENARIO), tmp_path, images=images)
    decoded = _decode(result, images=images)
    assert [r.to_dict() for r in decoded.trail] == _expected(result, images=images)


def test_all_columns_give_whole_deletes_and_before_records(tmp_path: Path) -> None:
    result = generate(load_scenario(SCENARIO), tmp_path, images=True)
    plain = {(r["table"], r["op"], r["before_after"]): r for r in _expected(result, images=False)}
    # no full-deletes option: the ALL COLUMNS table's delete is its whole row, the others' their key
    assert dict(plain["ALL_COLS", "DELETE", "B"]["columns"]) == {
        "ID": "1", "NAME": "one", "QTY": "3.25", "DOC": "short text", "NOTE": "first",
    }  # fmt: skip
    assert dict(plain["PK_ONLY", "DELETE", "B"]["columns"]) == {"ID": "1"}
    befores = [
        dict(r["columns"])
        for r in _expected(result, images=True)
        if r["table"] == "ALL_COLS" and r["op"] == "UPDATE" and r["before_after"] == "B"
    ]
    # every column the update did not change was logged (the CLOB never is)
    assert befores == [
        {"ID": "1", "QTY": "1.5", "NAME": "one", "NOTE": "first"},
        {"ID": "2", "NAME": "two", "NOTE": None, "QTY": "2"},
    ]


def test_minimal_logging_keys_updates_by_rowid_and_counts_them(tmp_path: Path) -> None:
    result = generate(load_scenario(SCENARIO), tmp_path)
    decoded = _decode(result, images=False)
    updates = [r.to_dict() for r in decoded.trail if r.op in ("UPDATE", "PK_UPDATE")]
    by_rowid = [(r["table"], dict(r["columns"])) for r in updates if not r["key_columns"]]
    assert by_rowid == [
        ("UNIQUE_LOGGED", {"CODE": "A9"}),
        ("UNIQUE_LOGGED", {"QTY": "7"}),
        ("UK_ONLY", {"NICK": "bee"}),
        ("FK_LOGGED", {"DEPT_ID": "20"}),
        ("FK_LOGGED", {"NAME": "uno"}),
        ("MINIMAL", {"NAME": "uno"}),
        ("MINIMAL_PAIR", {"REGION": "US"}),
        ("MINIMAL", {"QTY": "8"}),
        ("MINIMAL_PAIR", {"NAME": "eins"}),
    ]
    assert all(len(r["rowid"]) == 18 for r in updates)
    assert decoded.counts["rowid_keyed"] == {
        "SUPP.FK_LOGGED": {"UPDATE": 2},
        "SUPP.MINIMAL": {"UPDATE": 2},
        "SUPP.MINIMAL_PAIR": {"UPDATE": 2},
        "SUPP.UK_ONLY": {"UPDATE": 1},
        "SUPP.UNIQUE_LOGGED": {"UPDATE": 2},
    }
    # a key update holds its key in the undo and the redo: keyed as ever; half a key changed: a key
    # update of that half, keyed by ROWID
    key_updates = [
        (r["table"], r["key_columns"], dict(r["before"])) for r in updates if r["op"] == "PK_UPDATE"
    ]
    assert key_updates == [
        ("UK_ONLY", ["EMAIL"], {"EMAIL": "a@x.org"}),
        ("MINIMAL", ["ID"], {"ID": "2"}),
        ("MINIMAL_PAIR", [], {"REGION": "EU"}),
    ]


def test_random_seeds_draw_modes_from_a_stream_of_their_own(monkeypatch: pytest.MonkeyPatch) -> None:
    """Half the seeds keep primary-key logging for every table; the others draw a mode per table: any
    mode without DDL, one that keeps a row's key in the redo with DDL (a MOVE gives rows new ROWIDs,
    which publish finds an update keyed by ROWID by). The draw has a stream of its own: without it a
    seed's settings and tables are those it gave before."""
    drawn = {seed: random_scenario(seed, steps=1) for seed in range(40)}
    plain = [s for s in drawn.values() if all(t.supplemental is None for t in s.tables)]
    assert 10 <= len(plain) <= 30
    modes = {t.supplemental for s in drawn.values() for t in s.tables}
    assert modes == {None, *SUPPLEMENTAL_MODES}
    with_ddl = {t.supplemental for seed in range(40) for t in random_scenario(seed, steps=1, ddl=True).tables}
    assert with_ddl == {None, *randomtypes.RANDOM_MODES} == {None, "all", "primary"}
    monkeypatch.setattr(randomized, "draw_supplemental", lambda seed, tables, modes: tables)
    for seed, scen in drawn.items():
        before = random_scenario(seed, steps=1)
        assert before.settings == scen.settings
        assert before.tables == tuple(
            dataclasses.replace(t, supplemental=None, foreign_keys=()) for t in scen.tables
        )


@pytest.mark.parametrize("images", [False, True], ids=["default-images", "update-befores-full-deletes"])
@pytest.mark.parametrize("mode", ["all", "none"])
def test_chained_rows_under_each_mode_decode_to_their_expected_trail(
    mode: str, images: bool, tmp_path: Path
) -> None:
    """Rows in several pieces: the supplemental columns ride on the first pair of the update, whichever
    piece holds them (ALL: every column of every piece the update does not change)."""
    text = (REPO / "include" / "scenarios" / "chained_rows.yaml").read_text(encoding="utf-8")
    chained = parse_scenario(f"database: {{supplemental: {mode}}}\n" + text)
    result = generate(chained, tmp_path, images=images)
    assert [r.to_dict() for r in _decode(result, images=images).trail] == _expected(result, images=images)
