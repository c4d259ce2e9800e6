"""``python -m redo_lib decode``'s outputs against the scenario: JSON lines and Parquet (the trail
schema, written from the core's Arrow rows without a Python object per row, issue 31).

Real parts: binary logs the generator wrote for named scenarios (one thread and RAC, LOBs, DDL),
decoded by the command as a user runs it; the expected trail is the generator's, worked out from the
scenario's SQL.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq
import pytest

from redo_lib.synth import GenerationResult, generate, load_scenario
from redo_lib.trail.schema import from_row, trail_schema

REPO = Path(__file__).resolve().parents[3]
SCENARIOS = ("basic_dml", "lobs", "rac_two_threads", "schema_changes")


@pytest.fixture(scope="module", params=SCENARIOS)
def generated(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> GenerationResult:
    name = request.param
    return generate(
        load_scenario(REPO / "include" / "scenarios" / f"{name}.yaml"), tmp_path_factory.mktemp(name)
    )


def _decode(*argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "redo_lib", "decode", *argv], capture_output=True, text=True, cwd=REPO
    )


def _expected(result: GenerationResult) -> list[dict[str, Any]]:
    return [json.loads(line) for line in result.trail.read_text(encoding="utf-8").splitlines()]


def test_parquet_holds_the_scenarios_trail_in_the_trail_schema(
    generated: GenerationResult, tmp_path: Path
) -> None:
    out = tmp_path / "out"
    run = _decode(*map(str, generated.logs), "--dictionary", str(generated.dictionary), "--format", "parquet",
                  "--out", str(out))  # fmt: skip
    assert run.returncode == 0, run.stderr
    assert run.stdout == "" and f"trail written to {out / 'trail.parquet'}" in run.stderr
    table = pq.read_table(out / "trail.parquet")
    assert table.schema.remove_metadata() == trail_schema()
    assert [from_row(row).to_dict() for row in table.to_pylist()] == _expected(generated)
    assert table.column("trail_seq").to_pylist() == list(range(table.num_rows))  # commit order
    # the summary line counts what was written
    assert f"{table.num_rows} trail records" in run.stderr


def test_json_lines_hold_the_scenarios_trail(generated: GenerationResult) -> None:
    run = _decode(*map(str, generated.logs), "--dictionary", str(generated.dictionary))
    assert run.returncode == 0, run.stderr
    assert [json.loads(line) for line in run.stdout.splitlines()] == _expected(generated)
    assert run.stdout.isascii()  # json.dumps' default: non-ASCII as \\u escapes, as the command always wrote


def test_parquet_and_out_go_together(generated: GenerationResult, tmp_path: Path) -> None:
    logs = [str(generated.logs[0]), "--dictionary", str(generated.dictionary)]
    for argv in (["--format", "parquet"], ["--out", str(tmp_path)]):
        run = _decode(*logs, *argv)
        assert run.returncode == 2 and "--format parquet writes into --out DIR" in run.stderr


def test_a_decode_that_fails_leaves_no_parquet_behind(tmp_path: Path) -> None:
    """The rows go to the file as transactions commit; a log that turns out truncated partway is a
    named error, and neither trail.parquet nor its partial file is left for a reader to take."""
    generated = generate(load_scenario(REPO / "include" / "scenarios" / "basic_dml.yaml"), tmp_path / "g")
    logs = [tmp_path / p.name for p in generated.logs]
    for src, dst in zip(generated.logs, logs, strict=True):
        dst.write_bytes(src.read_bytes())
    last = logs[-1].read_bytes()
    logs[-1].write_bytes(last[: len(last) // 2])
    out = tmp_path / "out"
    run = _decode(*map(str, logs), "--dictionary", str(generated.dictionary), "--format", "parquet",
                  "--out", str(out))  # fmt: skip
    assert run.returncode == 1 and "error:" in run.stderr and logs[-1].name in run.stderr
    assert list(out.iterdir()) == []


def test_the_dictionary_file_is_parsed_by_the_core_alone(
    generated: GenerationResult, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A Redotrail dictionary file goes to the core as its text: the Python model is not built
    (it took 3.1 CPU-s and 650 MB more on a 20,000-table export), and the trail is the scenario's."""
    from redo_lib.dictionary import DictionaryHistory
    from redo_lib.pipeline import decode_logs

    if generated.out.name.startswith("schema_changes"):
        # a DDL's new dictionary version still comes from Python's DDL parser (the core's callback,
        # issue 33), which reads the document into Python's model
        pytest.skip("DDL text applied by Python's parser")

    def refused(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("the dictionary was parsed in Python")

    monkeypatch.setattr(DictionaryHistory, "from_document", refused)
    result = decode_logs(generated.logs, generated.dictionary)
    assert [r.to_dict() for r in result.trail] == _expected(generated)


def test_a_damaged_dictionary_file_is_named_by_the_cores_error(tmp_path: Path) -> None:
    """The core's error about the document names the file and the member, as the Python loader's did."""
    from redo_lib.errors import DictionaryError
    from redo_lib.pipeline import decode_logs

    bad = tmp_path / "dictionary.json"
    bad.write_text('{"format": "redotrail-dictionary", "format_version": 1, "national_charset": "AL16UTF16"}')
    log = (
        REPO.parent / "shared" / "realdata" / "rophy-olr-example-free-23" / "redo" / "arch1_15_1224959854.dbf"
    )
    with pytest.raises(DictionaryError) as caught:
        decode_logs([log], bad)
    assert caught.value.position.file == str(bad)
    assert caught.value.details["json_path"] == "$.db_charset"
