"""The Rust emitter (``redo_lib._native.Emitter``, ``crates/redo-core/src/trail/``) gives what the
Python one (``trail.emit.TrailEmitter`` + ``schema.to_row``, the oracle) gives: the same trail rows,
compared as JSON lines of ``trail_schema()`` rows and of ``TrailRecord.to_dict()``, and the same
counters (trail_counts, out_of_scope, unknown_in_scope, unknown_objects, ddl_records, ddl_problems,
lob_* and the rest), or the same error (``emitted.py`` runs both).

Inputs: every named scenario of include/scenarios with its dictionary (and schemaless, and with a
capture scope, full deletes and ``emit_unknown``); random seeds with DDL (9 here, more with
``-m slow``); the real 23.6 logs with their OLR schema checkpoint and schemaless; the oracdc
records, each record's changes made into a committed transaction of its own.
"""

from __future__ import annotations

import dataclasses
import json
import random
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from redo_lib.assembly.events import ChangeEvent, EventKind
from redo_lib.batches import event_from_row
from redo_lib.dictionary import DictionaryHistory, load_dictionary
from redo_lib.synth import generate, load_scenario, random_scenario
from redo_lib.synth.load import parse_scenario
from redo_lib.trail.emit import EmitOptions, capture_options

from .emitted import assert_same, run_python, run_rust

REPO = Path(__file__).resolve().parents[3]
SCENARIOS = sorted(p.stem for p in (REPO / "include" / "scenarios").glob("*.yaml"))
REALDATA = REPO.parent / "shared" / "realdata"
ROPHY = REALDATA / "rophy-olr-example-free-23"
ROPHY_LOGS = [ROPHY / "redo" / f"arch1_{s}_1224959854.dbf" for s in (15, 16)]
ORACDC = REALDATA / "oracdc-redo-records" / "redo-records.jsonl"


def _decode(logs: list[Path]) -> list[ChangeEvent]:
    from redo_lib.pipeline import decode_range_arrow

    events = [
        event_from_row(row) for log in logs for b in decode_range_arrow(str(log)) for row in b.to_pylist()
    ]
    return sorted(events, key=lambda e: e.sort_key)


def lob_scenario(seed: int) -> str:
    """A random LOB-heavy scenario (YAML, as JSON): CLOB / NCLOB / BLOB values in the row and in pages
    (written before or after the row change), replaced, appended to, set to NULL, deleted, rolled back
    whole and to a savepoint, in one session."""
    rnd = random.Random(seed)
    steps: list[Any] = []
    rows: dict[int, set[str]] = {}  # id -> its LOB columns that are not NULL (appendable)

    def value(column: str) -> Any:
        kind = rnd.choice(["null", "empty", "small", "pages", "pages"])
        if kind == "null":
            return None
        if kind == "empty":
            return {"empty": True}
        unit = "AB12" if column == "DATA" else rnd.choice(["lorem ", "ünï ", "日本 "])
        times = rnd.randint(1, 8) if kind == "small" else rnd.randint(500, 6000)
        return {"repeat": unit, "times": times}

    def insert(n: int) -> None:
        values = {"ID": n, "TITLE": f"t{n}"}
        values.update({c: value(c) for c in ("BODY", "NOTE", "DATA") if rnd.random() < 0.7})
        pieces = rnd.choice(["before", "after"])
        steps.append({"insert": {"table": "DOCS", "values": values, "lob_pieces": pieces}})
        rows[n] = {c for c in ("BODY", "NOTE", "DATA") if values.get(c) is not None}

    for n in range(1, 40):
        action = rnd.choice(["insert", "insert", "update", "append", "delete", "commit", "savepoint"])
        if action == "insert" or not rows:
            insert(n)
            continue
        row = rnd.choice(sorted(rows))
        where = {"ID": row}
        pieces = rnd.choice(["before", "after"])
        if action == "update":
            column = rnd.choice(["BODY", "NOTE", "DATA", "TITLE"])
            new = f"u{n}" if column == "TITLE" else value(column)
            steps.append(
                {"update": {"table": "DOCS", "set": {column: new}, "where": where, "lob_pieces": pieces}}
            )
            if column != "TITLE":
                rows[row].discard(column)
                if new is not None:
                    rows[row].add(column)
        elif action == "append" and rows[row]:
            column = rnd.choice(sorted(rows[row]))
            add = value(column) or {"repeat": "AB" if column == "DATA" else "x", "times": 3}
            steps.append({"append_lob": {"table": "DOCS", "column": column, "value": add, "where": where,
                                         "lob_pieces": pieces}})  # fmt: skip
        elif action == "delete":
            steps.append({"delete": {"table": "DOCS", "where": where}})
            del rows[row]
        elif action == "savepoint":
            steps.extend(["commit", {"savepoint": "sp"}])
            kept = dict(rows)
            insert(1000 + n)
            if rnd.random() < 0.5:
                steps.append({"rollback_to": "sp"})
                rows.clear()
                rows.update(kept)
        else:
            steps.append("commit")
    steps.append("commit")
    doc = {
        "name": f"lobs-{seed}",
        "settings": {"compat": rnd.choice(["11.2", "19c", "23ai"]), "log_size": "8MB"},
        "tables": [
            {"owner": "APP", "name": "DOCS", "primary_key": ["ID"], "columns": [
                {"name": "ID", "type": "NUMBER", "nullable": False}, {"name": "TITLE", "type": "VARCHAR2(40)"},
                {"name": "BODY", "type": "CLOB"}, {"name": "NOTE", "type": "NCLOB"}, {"name": "DATA", "type": "BLOB"},
            ]},
        ],
        "steps": steps,
    }  # fmt: skip
    return json.dumps(doc)


@cache
def generated(key: str, tmp: Path) -> tuple[tuple[ChangeEvent, ...], DictionaryHistory]:
    """A named scenario, or ``seed-<n>`` / ``ddl-<n>`` (random, 120 steps; with DDL), decoded in
    redo order, and its dictionary."""
    if key.startswith("seed-"):
        scenario = random_scenario(int(key[5:]), steps=120)
    elif key.startswith("ddl-"):
        scenario = random_scenario(int(key[4:]), steps=120, ddl=True)
    elif key.startswith("lobs-"):
        scenario = parse_scenario(lob_scenario(int(key[5:])))
    else:
        scenario = load_scenario(REPO / "include" / "scenarios" / f"{key}.yaml")
    result = generate(scenario, tmp / key, record_steps=False)
    return tuple(_decode(list(result.logs))), load_dictionary(result.dictionary)


@pytest.fixture(scope="module")
def gen_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("native-emit")


def both(events: list[ChangeEvent] | tuple[ChangeEvent, ...], dictionary: DictionaryHistory | None,
         options: EmitOptions | None = None, **rust: Any) -> int:  # fmt: skip
    """Both emitters over the events, asserted the same; how many trail rows."""
    options = options or EmitOptions()
    python = run_python(events, dictionary, options)
    assert_same(python, run_rust(events, dictionary, options, **rust))
    return len(python.rows)


def test_the_trail_schema_is_the_cores() -> None:
    import pyarrow as pa

    from redo_lib.native import native
    from redo_lib.trail.schema import trail_schema

    assert pa.schema(native.trail_schema()).equals(trail_schema(), check_metadata=True)


@pytest.mark.parametrize("name", SCENARIOS)
def test_named_scenario(name: str, gen_dir: Path) -> None:
    events, dictionary = generated(name, gen_dir)
    assert both(events, dictionary) > 0
    both(events, None)  # schemaless
    both(events, dictionary, memory_limit=3, chunk=7)  # spilled transactions read back
    both(events, dictionary, many=True, chunk=50)  # emit_many: the transactions of a fed batch at once


@pytest.mark.parametrize("name", ["basic_dml", "keys", "lobs", "array_and_direct_load", "schema_changes"])
def test_named_scenario_options(name: str, gen_dir: Path) -> None:
    events, dictionary = generated(name, gen_dir)
    owners = sorted({v.owner for v in dictionary})
    tables = sorted(f"{v.owner}.{v.name}" for v in dictionary)
    both(events, dictionary, EmitOptions(full_deletes=True))
    both(events, dictionary, EmitOptions(**capture_options(tables[:1])))
    both(events, dictionary, EmitOptions(**capture_options([owners[0], *tables[-1:]])))
    both(events, dictionary, EmitOptions(exclude_owners=frozenset(owners[:1]), apply_ddl=False))
    # a dictionary that lost a table: its changes are unknown objects (in scope above max_object_id)
    drop = next(iter(dictionary)).obj
    kept = [v for v in dictionary if v.obj != drop]
    for limit in (None, drop - 1, drop + 1):
        smaller = DictionaryHistory(
            kept, db_charset=dictionary.db_charset, national_charset=dictionary.national_charset,
            max_object_id=limit,
        )  # fmt: skip
        both(events, smaller)
        both(events, smaller, EmitOptions(emit_unknown=True))


@pytest.mark.parametrize("seed", range(6))
def test_random_seed(seed: int, gen_dir: Path) -> None:
    events, dictionary = generated(f"seed-{seed}", gen_dir)
    both(events, dictionary)


@pytest.mark.parametrize("seed", range(3))
def test_random_seed_with_ddl(seed: int, gen_dir: Path) -> None:
    events, dictionary = generated(f"ddl-{seed}", gen_dir)
    both(events, dictionary)
    both(events, None)


@pytest.mark.parametrize("seed", range(3))
def test_random_lob_scenario(seed: int, gen_dir: Path) -> None:
    events, dictionary = generated(f"lobs-{seed}", gen_dir)
    assert both(events, dictionary) > 0
    both(events, dictionary, memory_limit=3, chunk=11)


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(3, 40))
def test_random_lob_scenario_sweep(seed: int, gen_dir: Path) -> None:
    test_random_lob_scenario(seed, gen_dir)


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(6, 106))
def test_random_seed_sweep(seed: int, gen_dir: Path) -> None:
    events, dictionary = generated(f"seed-{seed}", gen_dir)
    both(events, dictionary)
    events, dictionary = generated(f"ddl-{seed}", gen_dir)
    both(events, dictionary)
    both(events, dictionary, EmitOptions(full_deletes=True), memory_limit=4)


# -- real data --------------------------------------------------------------------------------------


@pytest.mark.realdata
def test_real_logs() -> None:
    if not all(p.exists() for p in ROPHY_LOGS):
        pytest.skip(f"real data not available: {ROPHY}")
    events = _decode(ROPHY_LOGS)
    dictionary = load_dictionary(ROPHY / "schema" / "TEST-chkpt-2266634.json")
    assert both(events, dictionary) > 0
    assert both(events, None) > 0
    both(events, dictionary, EmitOptions(emit_unknown=True, full_deletes=True))


@pytest.mark.realdata
def test_oracdc_records() -> None:
    """225 single records of real databases (real supplemental logging, QMI/QMD, chained pieces):
    each record's changes made into a committed transaction of its own (a begin before, a commit
    after), emitted schemaless."""
    if not ORACDC.exists():
        pytest.skip(f"real data not available: {ORACDC}")
    from redo_lib.assembly.events import iter_events
    from tests.unit.redo_lib.format.realdata import parse_oracdc_record

    events: list[ChangeEvent] = []
    for n, line in enumerate(ORACDC.read_text().splitlines()):
        changes = [
            e for e in iter_events(parse_oracdc_record(json.loads(line))) if e.kind is EventKind.CHANGE
        ]
        if not changes:
            continue
        xid = {"usn": 1, "slot": n % 50, "sqn": n}
        first, last = changes[0], changes[-1]
        events.append(dataclasses.replace(first, kind=EventKind.BEGIN, **xid))
        events.extend(dataclasses.replace(e, **xid) for e in changes)
        events.append(dataclasses.replace(last, kind=EventKind.COMMIT, offset=last.offset + 1, **xid))
    assert both(events, None) > 50
