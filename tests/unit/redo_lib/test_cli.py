"""``python -m redo_lib dump|stats`` on the real logs and on damaged copies."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path

import pytest

from redo_lib.cli import COMMANDS, cmd_dump, cmd_stats, main

REPO = Path(__file__).resolve().parents[3]
LOG16 = REPO.parent / "shared" / "realdata" / "rophy-olr-example-free-23" / "redo" / "arch1_16_1224959854.dbf"
LOG15 = LOG16.with_name("arch1_15_1224959854.dbf")
DUMP16 = LOG16.parent.parent / "olr-reference" / "logdump-seq16.txt"


def _need(path: Path) -> Path:
    if not path.exists():
        pytest.skip(f"real data not available: {path}")
    return path


def test_commands_table_has_dump_and_stats() -> None:
    assert {"dump", "stats"} <= set(COMMANDS)


@pytest.mark.realdata
def test_dump_prints_the_records_olr_prints() -> None:
    out = io.StringIO()
    assert cmd_dump([str(_need(LOG16))], out) == 0
    text = out.getvalue()
    theirs = [line for line in _need(DUMP16).read_text().splitlines() if line.startswith("REDO RECORD")]
    ours = [line for line in text.splitlines() if line.startswith("REDO RECORD")]
    assert set(theirs) <= set(ours) and len(ours) == 7
    assert " FILE HEADER:" in text and "CHANGE #1 CON_ID:1 TYP:0 CLS:23" in text


@pytest.mark.realdata
def test_stats_json_counts_records_and_vectors() -> None:
    out = io.StringIO()
    assert cmd_stats([str(_need(LOG15)), "--json"], out, io.StringIO()) == 0
    doc = json.loads(out.getvalue())
    assert (doc["records"], doc["sequence"], doc["skipped"]) == (1154, 15, [])
    assert (
        doc["vectors_by_opcode"]["5.1"] >= 51 and doc["records_by_vld"]["0x06"] == 512
    )  # §3.1: 512 VLD 0x06


@pytest.mark.realdata
def test_stats_progress_bar_goes_to_stderr() -> None:
    err = io.StringIO()
    cmd_stats([str(_need(LOG16)), "--progress"], io.StringIO(), err)
    assert "100%" in err.getvalue() and "10/10 blocks" in err.getvalue()


@pytest.mark.realdata
def test_damaged_log_fails_with_a_position_and_skip_corrupt_reports_it(tmp_path: Path) -> None:
    data = bytearray(_need(LOG15).read_bytes())
    data[300 * 512 + 100] ^= 0xFF
    bad = tmp_path / "bad.dbf"
    bad.write_bytes(bytes(data))
    run = subprocess.run(
        [sys.executable, "-m", "redo_lib", "stats", str(bad)], capture_output=True, text=True, cwd=REPO
    )
    assert (
        run.returncode == 1
        and "bad.dbf" in run.stderr
        and "block 300" in run.stderr
        and "checksum" in run.stderr
    )
    out = io.StringIO()
    assert cmd_stats([str(bad), "--skip-corrupt", "--json"], out, io.StringIO()) == 0
    doc = json.loads(out.getvalue())
    assert 0 < doc["records"] < 1154
    assert doc["corrupt_ranges"][0]["start_block"] <= 300 < doc["corrupt_ranges"][0]["end_block"]


@pytest.mark.realdata
def test_stats_counts_in_the_core_without_pyarrow() -> None:
    """`stats` takes the counts alone from the core (no event built): its start-up loads neither
    pyarrow nor the decode's modules (issue 31)."""
    code = (
        "import sys; from redo_lib.cli import main; rc = main(['stats', sys.argv[1]]); "
        "loaded = sorted({'pyarrow', 'redo_lib.pipeline'} & set(sys.modules)); "
        "print(loaded, file=sys.stderr); sys.exit(rc or len(loaded))"
    )
    run = subprocess.run(
        [sys.executable, "-c", code, str(_need(LOG15))], capture_output=True, text=True, cwd=REPO
    )
    assert run.returncode == 0 and "records: 1154" in run.stdout, run.stderr


def test_unknown_command_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as info:
        main(["frobnicate"])
    assert info.value.code == 2


def test_help_lists_the_commands(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["--help"])
    out = capsys.readouterr().out
    assert "dump" in out and "stats" in out


def test_decode_reads_logfile_dumps_as_it_reads_the_logs() -> None:
    """OLR's dumps of the two real 23ai logs, given in the wrong order: `decode` tells them from
    logs by their content, orders them by their FILE HEADERs and gives the logs' trail."""
    schema = _need(LOG16.parent.parent / "schema" / "TEST-chkpt-2266634.json")
    dump15 = _need(DUMP16.with_name("logdump-seq15.txt"))

    def decode(*files: Path) -> list[str]:
        out, err = io.StringIO(), io.StringIO()
        assert COMMANDS["decode"](["--dictionary", str(schema), *map(str, files)], out, err) == 0
        return out.getvalue().splitlines()

    from_logs = decode(_need(LOG16), _need(LOG15))
    assert len(from_logs) == 1 and json.loads(from_logs[0])["op"] == "INSERT"
    assert decode(_need(DUMP16), dump15) == from_logs


def test_decode_refuses_a_batch_of_logs_and_dumps_mixed(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_:
        COMMANDS["decode"](["--schemaless", str(_need(LOG15)), str(_need(DUMP16))])
    assert exit_.value.code == 2
    assert "mix archived logs and logfile dumps" in capsys.readouterr().err


def test_decode_images_option_gives_the_generators_image_trail(tmp_path: Path) -> None:
    """`decode --images update-befores,full-deletes` on generated logs: the trail the generator
    derived from the SQL under those options (before records, full deletes)."""
    from redo_lib.synth import generate, load_scenario

    result = generate(
        load_scenario(REPO / "include" / "scenarios" / "keys.yaml"), tmp_path / "g", images=True
    )
    assert result.trail_images is not None
    out, err = io.StringIO(), io.StringIO()
    argv = ["--dictionary", str(result.dictionary), "--images", "update-befores,full-deletes"]
    assert COMMANDS["decode"]([*argv, *map(str, result.logs)], out, err) == 0
    got = [json.loads(line) for line in out.getvalue().splitlines()]
    assert got == [json.loads(line) for line in result.trail_images.read_text().splitlines()]
    assert any(r["before_after"] == "B" and r["op"] == "UPDATE" for r in got)


def test_decode_refuses_an_unknown_image_option(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["decode", "--schemaless", "--images", "before", str(_need(LOG15))]) == 1
    assert "image option 'before' is not one of update-befores, full-deletes" in capsys.readouterr().err
