"""Scenario validation: every invalid scenario raises ScenarioError with a message naming the problem."""

from __future__ import annotations

from pathlib import Path

import pytest

from redo_lib.errors import ScenarioError
from redo_lib.synth import (
    ColumnSpec,
    Commit,
    Delete,
    Insert,
    Predicate,
    RollbackTo,
    Scenario,
    Settings,
    TableSpec,
    Update,
    generate,
    load_scenario,
    parse_scenario,
    parse_step,
)
from redo_lib.synth.columns import parse_type
from redo_lib.synth.scenario import parse_size
from tests.unit.redo_lib.synth.running import TABLE, run

REPO = Path(__file__).resolve().parents[4]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        pytest.param("tables: []\nsteps: [commit]\nextra: 1", "unknown scenario keys", id="unknown-key"),
        pytest.param("- a list", "YAML mapping", id="not-a-mapping"),
        pytest.param(
            "tables: [{name: T, columns: [{name: A, type: BFILE}]}]", "unsupported column type", id="bad-type"
        ),
        pytest.param(
            "tables: [{name: T, columns: [{name: A, type: LONG}, {name: B, type: LONG RAW}]}]",
            r"only one column of type LONG \(ORA-01754\)",
            id="two-longs",
        ),
        pytest.param(
            "tables: [{name: T, columns: [{name: A, type: LONG}], primary_key: [A]}]",
            r"cannot be of LONG datatype \(ORA-02269\)",
            id="long-key",
        ),
        pytest.param(
            "tables: [{name: T, columns: [{name: A, type: LONG}, {name: B, type: NUMBER}]}]",
            "declare the LONG / LONG RAW column A last",
            id="long-not-last",
        ),
        pytest.param(
            "tables: [{name: T, columns: [{name: A}]}]", "needs name and type", id="column-without-type"
        ),
        pytest.param(
            "tables: [{name: T, columns: [{name: A, type: NUMBER}, {name: A, type: DATE}]}]",
            "duplicate column",
            id="duplicate-column",
        ),
        pytest.param(
            "tables: [{name: T, columns: [{name: A, type: NUMBER}], primary_key: [A]}]",
            "must be NOT NULL",
            id="nullable-pk",
        ),
        pytest.param(
            "tables: [{name: T, columns: [{name: A, type: NUMBER}], unique_keys: [[B]]}]",
            "not columns",
            id="key-of-unknown-column",
        ),
        pytest.param(
            "tables: [{name: t, columns: [{name: A, type: NUMBER}]}]", "upper-case", id="lower-case-name"
        ),
        pytest.param("settings: {compat: 12c}\ntables: []", "compat", id="bad-compat"),
        pytest.param("settings: {block_size: 2048}\ntables: []", "block_size", id="bad-block-size"),
        pytest.param("settings: {log_size: 1KB}\ntables: []", "log_size", id="log-too-small"),
        pytest.param("settings: {colour: red}\ntables: []", "unknown settings", id="unknown-setting"),
        pytest.param("settings: {log_size: lots}\ntables: []", "not a size", id="bad-size"),
        pytest.param("tables: [}", "not valid YAML", id="bad-yaml"),
    ],
)
def test_invalid_scenarios_are_rejected(text: str, message: str) -> None:
    with pytest.raises(ScenarioError, match=message):
        parse_scenario(text)


@pytest.mark.parametrize(
    ("step", "message"),
    [
        pytest.param({"insert": {"values": {"ID": 1}}}, "needs a table", id="insert-without-table"),
        pytest.param(
            {"update": {"table": "T", "set": {"NAME": "x"}}}, "needs where", id="update-without-where"
        ),
        pytest.param(
            {"delete": {"table": "T", "where": {"ID": {"like": 1}}}}, "use one of", id="unknown-operator"
        ),
        pytest.param({"frobnicate": None}, "unknown step kind", id="unknown-step"),
        pytest.param({"commit": None, "rollback": None}, "exactly one action", id="two-actions"),
        pytest.param({"insert": {"table": "T", "rows": []}}, "no rows", id="empty-rows"),
        pytest.param({"sleep": -1}, "non-negative", id="negative-sleep"),
        pytest.param({"delete": {"table": "T", "where": {"ROWID": 5}}}, "ROWID", id="bad-rowid"),
    ],
)
def test_invalid_steps_are_rejected_with_their_place(step: object, message: str) -> None:
    with pytest.raises(ScenarioError, match=message) as info:
        parse_step(step, "steps[4]")
    assert info.value.message.startswith("steps[4]")


@pytest.mark.parametrize(
    ("steps", "message"),
    [
        pytest.param("- insert: {table: T, values: {NAME: x}}", "NOT NULL", id="not-null"),
        pytest.param(
            "- insert: {table: T, values: {ID: 1, COLOUR: red}}", "has no columns", id="unknown-column"
        ),
        pytest.param("- insert: {table: NOPE, values: {ID: 1}}", "unknown table", id="unknown-table"),
        pytest.param(
            "- insert: {table: T, values: {ID: 1}}\n- insert: {table: T, values: {ID: 1}}",
            "ORA-00001",
            id="duplicate-key",
        ),
        pytest.param("- rollback_to: nowhere", "never established", id="unknown-savepoint"),
        pytest.param(
            "- direct_insert: {table: T, rows: [{ID: 1}]}\n- update: {table: T, set: {QTY: 1}, where: all}",
            "ORA-12838",
            id="dml-after-direct-load",
        ),
        pytest.param(
            "- {session: a, insert: {table: T, values: {ID: 1}}}\n- {session: a, commit: null}\n"
            "- {session: a, update: {table: T, set: {QTY: 2}, where: {ID: 1}}}\n"
            "- {session: b, delete: {table: T, where: {ID: 1}}}",
            "locked by another open transaction",
            id="row-lock-would-wait",
        ),
        pytest.param("- update: {table: T, set: {ID: null}, where: all}\n", "", id="set-key-to-null-no-rows"),
        pytest.param(
            "- insert: {table: T, values: {ID: 1}}\n- update: {table: T, set: {ID: null}, where: all}",
            "ORA-01407",
            id="set-not-null-to-null",
        ),
        pytest.param(
            "- insert: {table: T, values: {ID: 1}}\n- update: {table: T, set: {NAME: {add: 1}}, where: all}",
            "only \\{add: n\\} on NUMBER",
            id="add-on-text",
        ),
        pytest.param("- switch: 2", "thread 2", id="switch-unknown-thread"),
    ],
)
def test_invalid_runs_name_the_step(steps: str, message: str, tmp_path: Path) -> None:
    if not message:  # a valid statement that matches no row: nothing happens
        result, trail = run("steps:\n" + steps, tmp_path)
        assert trail == []
        return
    with pytest.raises(ScenarioError, match=message) as info:
        run("steps:\n" + steps, tmp_path)
    assert info.value.message.startswith("steps[")


def test_python_api_builds_the_same_scenario_as_yaml(tmp_path: Path) -> None:
    table = TableSpec(
        owner="APP",
        name="T",
        columns=(
            ColumnSpec(name="ID", type=parse_type("NUMBER"), nullable=False),
            ColumnSpec(name="NAME", type=parse_type("VARCHAR2(20)")),
            ColumnSpec(name="QTY", type=parse_type("NUMBER")),
        ),
        primary_key=("ID",),
    )
    steps = (
        Insert(table="T", rows=({"ID": 1, "NAME": "A"},)),
        Update(table="T", set={"QTY": 3}, where=Predicate(terms=(("ID", "eq", 1),))),
        Delete(table="T", where=Predicate()),
        Commit(),
    )
    api = generate(Scenario(tables=(table,), steps=steps), tmp_path / "api")
    yaml_result, _ = run(
        "steps:\n- insert: {table: T, values: {ID: 1, NAME: A}}\n- update: {table: T, set: {QTY: 3}, where: {ID: 1}}\n"
        "- delete: {table: T, where: all}\n- commit",
        tmp_path,
    )
    assert [p.read_bytes() for p in api.logs] == [p.read_bytes() for p in yaml_result.logs]
    assert api.trail.read_text() == yaml_result.trail.read_text()


def test_resolved_scenario_yaml_reproduces_the_logs(tmp_path: Path) -> None:
    first, _ = run(
        "steps:\n- insert: {table: T, rows: [{ID: 1}, {ID: 2, NAME: b}], array: true}\n- commit", tmp_path
    )
    again = generate(load_scenario(first.out / "scenario.yaml"), tmp_path / "again")
    assert [p.read_bytes() for p in first.logs] == [p.read_bytes() for p in again.logs]
    assert first.trail.read_text() == again.trail.read_text()


def test_rollback_to_unknown_savepoint_on_idle_session(tmp_path: Path) -> None:
    with pytest.raises(ScenarioError, match="ORA-01086"):
        generate(Scenario(tables=(), steps=(RollbackTo(name="x"),)), tmp_path)


@pytest.mark.parametrize(
    ("text", "size"),
    [("64KB", 65536), ("5GB", 5 << 30), ("1.5M", 1572864), ("100", 100), ("2 mb", 2 << 20)],
)
def test_parse_size(text: str, size: int) -> None:
    assert parse_size(text) == size


def test_named_scenarios_load() -> None:
    folder = REPO / "include" / "scenarios"
    names = sorted(p.stem for p in folder.glob("*.yaml"))
    assert {"basic_dml", "savepoints", "long_transaction", "rac_two_threads", "chained_rows"} <= set(names)
    for path in folder.glob("*.yaml"):
        assert load_scenario(path).tables


def test_settings_defaults_are_valid() -> None:
    assert Settings().compat_version == 0x13000000
    assert TABLE  # the shared table parses
