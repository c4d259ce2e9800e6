"""The workload generator: SQL-level scenarios -> binary archived logs + dictionary + expected trail.

Public API::

    from redo_lib.synth import load_scenario, random_scenario, generate
    result = generate(load_scenario("include/scenarios/basic_dml.yaml"), "/tmp/out")
    result = generate(random_scenario(7), "/tmp/r7")

``generate`` writes ``logs/*.arc``, ``dictionary.json``, ``expected/trail.jsonl``,
``expected/tables/<OWNER>.<TABLE>.jsonl`` (+ ``.columns.json``, the final shape) and ``scenario.yaml``
(see ``generate.py``; docs/generator.md). The expected
trail is computed from the SQL semantics of the scenario, never by decoding the logs. Scenarios are
YAML (``load.py``) or built in Python from ``scenario.py``'s frozen values. Command line:
``python -m redo_lib synth`` (or ``python -m redo_lib.synth``).

Top layer: may import every package of redo_lib; nothing imports it.
"""

from redo_lib.synth.generate import GenerationResult, generate
from redo_lib.synth.load import dump_scenario, load_scenario, parse_scenario, parse_step
from redo_lib.synth.randomized import random_scenario
from redo_lib.synth.scenario import (
    ColumnSpec,
    Commit,
    Ddl,
    Delete,
    DirectInsert,
    Insert,
    Noise,
    Predicate,
    Rollback,
    RollbackTo,
    Savepoint,
    Scenario,
    SessionSpec,
    Settings,
    Sleep,
    Step,
    Switch,
    TableSpec,
    Update,
)

__all__ = [
    "ColumnSpec",
    "Commit",
    "Ddl",
    "Delete",
    "DirectInsert",
    "GenerationResult",
    "Insert",
    "Noise",
    "Predicate",
    "Rollback",
    "RollbackTo",
    "Savepoint",
    "Scenario",
    "SessionSpec",
    "Settings",
    "Sleep",
    "Step",
    "Switch",
    "TableSpec",
    "Update",
    "dump_scenario",
    "generate",
    "load_scenario",
    "parse_scenario",
    "parse_step",
    "random_scenario",
]
