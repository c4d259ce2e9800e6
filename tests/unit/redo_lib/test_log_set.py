"""A log set is checked before a byte of redo is decoded (issue 31): one database (DBID), one
incarnation (resetlogs id), no log given twice and, unless the user says ``--allow-gaps``, no missing
sequence within a thread. Each refusal names both files and both values.

Real parts: logs the generator wrote for one scenario, and the same scenario written as another
database (another DBID, with and without another incarnation), decoded by the ``decode`` command.
"""

from __future__ import annotations

import dataclasses
import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from redo_lib.errors import LogSetError
from redo_lib.pipeline import decode_logs
from redo_lib.synth import GenerationResult, generate, parse_scenario

SCENARIO = """
name: log_set
settings: {compat: 19c, block_size: 512, log_size: 32KB, start_scn: 1621000, start_time: 2024-03-01T10:00:00}
tables:
  - owner: APP
    name: ORDERS
    columns:
      - {name: ID, type: NUMBER, nullable: false}
      - {name: NOTE, type: VARCHAR2(40)}
    primary_key: [ID]
steps:
"""


def _scenario(**settings: object) -> object:
    steps = "".join(
        f"  - insert: {{table: ORDERS, values: {{ID: {i}, NOTE: note number {i} of the set}}}}\n  - commit\n"
        for i in range(300)
    )
    scenario = parse_scenario(textwrap.dedent(SCENARIO) + steps)
    return dataclasses.replace(scenario, settings=dataclasses.replace(scenario.settings, **settings))


@pytest.fixture(scope="module")
def ours(tmp_path_factory: pytest.TempPathFactory) -> GenerationResult:
    result = generate(_scenario(), tmp_path_factory.mktemp("ours"))  # type: ignore[arg-type]
    assert len(result.logs) >= 3, "the test needs a thread of at least three logs"
    return result


@pytest.fixture(scope="module")
def other_database(tmp_path_factory: pytest.TempPathFactory) -> GenerationResult:
    """The same SQL in another database of the same incarnation id (the DBID alone tells them apart)."""
    return generate(_scenario(dbid=0x0BAD0002, db_name="OTHERDB"), tmp_path_factory.mktemp("other"))  # type: ignore[arg-type]


@pytest.fixture(scope="module")
def other_incarnation(tmp_path_factory: pytest.TempPathFactory) -> GenerationResult:
    return generate(_scenario(resetlogs_id=77), tmp_path_factory.mktemp("incarnation"))  # type: ignore[arg-type]


REPO = Path(__file__).resolve().parents[3]


def _decode(argv: list[str]) -> tuple[int, str, str]:
    """``python -m redo_lib decode ARGV``: exit code, stdout, stderr."""
    run = subprocess.run(
        [sys.executable, "-m", "redo_lib", "decode", *argv], capture_output=True, text=True, cwd=REPO
    )
    return run.returncode, run.stdout, run.stderr


def test_logs_of_two_databases_are_refused_naming_both_files_and_dbids(
    ours: GenerationResult, other_database: GenerationResult
) -> None:
    mine, theirs = ours.logs[1], other_database.logs[0]
    with pytest.raises(LogSetError) as info:
        decode_logs([mine, theirs], ours.dictionary)
    message = str(info.value)
    assert "two databases" in message and str(mine) in message and str(theirs) in message
    assert f"DBID {0x5EED0001}" in message and f"DBID {0x0BAD0002}" in message
    assert sorted(info.value.details["files"]) == sorted([str(mine), str(theirs)])
    # the command: exit 1, the same message, and not one trail record written
    code, out, err = _decode([str(mine), str(theirs), "--dictionary", str(ours.dictionary)])
    assert code == 1 and out == ""
    assert "two databases" in err and str(theirs) in err


def test_logs_of_two_incarnations_are_refused_naming_both_files_and_ids(
    ours: GenerationResult, other_incarnation: GenerationResult
) -> None:
    with pytest.raises(LogSetError) as info:
        decode_logs([ours.logs[0], other_incarnation.logs[1]], ours.dictionary)
    message = str(info.value)
    assert "two incarnations" in message and "resetlogs id 77" in message
    assert str(ours.logs[0]) in message and str(other_incarnation.logs[1]) in message


def test_a_log_given_twice_is_refused_even_with_allow_gaps(ours: GenerationResult) -> None:
    with pytest.raises(LogSetError, match="duplicate sequence"):
        decode_logs([ours.logs[0], ours.logs[0]], ours.dictionary, allow_gaps=True)


def test_a_missing_sequence_is_refused_unless_gaps_are_allowed(ours: GenerationResult) -> None:
    chosen = [str(ours.logs[0]), str(ours.logs[2])]
    code, out, err = _decode([*chosen, "--dictionary", str(ours.dictionary)])
    assert code == 1 and out == "" and "missing sequence" in err
    # a transaction whose commit was in the log left out is seen half: the assembler's error policy
    # decides, as for any damaged stream (--skip-corrupt: counted and carried)
    code, out, _ = _decode([*chosen, "--dictionary", str(ours.dictionary), "--allow-gaps", "--skip-corrupt"])
    records = [json.loads(line) for line in out.splitlines()]
    assert code == 0 and records and {r["sequence"] for r in records} <= {1, 3}


def test_the_whole_set_decodes_as_the_scenario_says(ours: GenerationResult) -> None:
    code, out, _ = _decode([*map(str, reversed(ours.logs)), "--dictionary", str(ours.dictionary)])
    assert code == 0 and out == ours.trail.read_text(encoding="utf-8")


def test_an_unrelated_file_is_no_log_of_the_set(tmp_path: Path, ours: GenerationResult) -> None:
    stray = tmp_path / "notes.arc"
    stray.write_bytes(b"not redo at all" * 100)
    code, out, err = _decode([str(ours.logs[0]), str(stray), "--dictionary", str(ours.dictionary)])
    assert code == 1 and out == "" and str(stray) in err
