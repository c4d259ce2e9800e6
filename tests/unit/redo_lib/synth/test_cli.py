"""``python -m redo_lib synth`` (synth/cli.py)."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from redo_lib.synth.cli import run

REPO = Path(__file__).resolve().parents[4]


def test_named_scenario_with_overrides(tmp_path: Path) -> None:
    out = io.StringIO()
    code = run(
        [str(REPO / "include/scenarios/basic_dml.yaml"), "--out", str(tmp_path), "--compat", "23ai", "--big-endian",
         "--block-size", "4096"],
        out=out,
    )  # fmt: skip
    assert code == 0
    summary = json.loads(out.getvalue())
    assert summary["trail_records"] > 0 and summary["logs"] == 1
    data = next((tmp_path / "logs").iterdir()).read_bytes()
    assert data[28:32] == b"\x7a\x7b\x7c\x7d" and data[1] == 0x82  # big-endian, 4096-byte blocks
    assert (tmp_path / "dictionary.json").exists() and (tmp_path / "scenario.yaml").exists()


def test_random_run(tmp_path: Path) -> None:
    out = io.StringIO()
    assert (
        run(["--random", "--seed", "4", "--steps", "50", "--out", str(tmp_path), "--no-steps"], out=out) == 0
    )
    assert "\nsteps:" not in (tmp_path / "scenario.yaml").read_text()
    assert json.loads(out.getvalue())["steps"] >= 50


def test_scenario_errors_exit_1(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text("tables: []\nsteps: [{insert: {table: NOPE, values: {A: 1}}}]\n")
    assert run([str(bad), "--out", str(tmp_path / "o")]) == 1
    assert "unknown table" in capsys.readouterr().err


@pytest.mark.parametrize("argv", [[], ["--random", "x.yaml"]], ids=["nothing", "both"])
def test_usage_errors_exit_2(argv: list[str], tmp_path: Path) -> None:
    with pytest.raises(SystemExit) as info:
        run([*argv, "--out", str(tmp_path)])
    assert info.value.code == 2
