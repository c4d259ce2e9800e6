"""Progress of long command-line work: a bar on a terminal (a real pseudo-terminal here), not a byte
anywhere else."""

from __future__ import annotations

import io
import json
import os
import pty
import subprocess
import sys
from pathlib import Path

from redo_lib.progress import Progress

REPO = Path(__file__).resolve().parents[3]
SCENARIO = REPO / "include/scenarios/long_transaction.yaml"


def _synth(out: Path, stderr_tty: bool) -> tuple[str, str]:
    """``python -m redo_lib synth`` with stderr on a pseudo-terminal or a pipe: (stdout, stderr)."""
    command = [sys.executable, "-m", "redo_lib", "synth", str(SCENARIO), "--out", str(out)]
    if not stderr_tty:
        run = subprocess.run(command, capture_output=True, text=True, check=True, cwd=REPO)
        return run.stdout, run.stderr
    master, slave = pty.openpty()
    proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=slave, cwd=REPO, text=True)
    os.close(slave)
    seen = b""
    while True:
        try:
            chunk = os.read(master, 4096)
        except OSError:  # the child closed its end
            break
        if not chunk:
            break
        seen += chunk
    stdout, _ = proc.communicate(timeout=120)
    os.close(master)
    assert proc.returncode == 0
    return stdout, seen.decode("utf-8", "replace")


def test_synth_shows_progress_on_a_terminal(tmp_path: Path) -> None:
    stdout, stderr = _synth(tmp_path / "tty", stderr_tty=True)
    steps = json.loads(stdout)["steps"]
    assert "synth long_transaction" in stderr and "100%" in stderr
    assert f"{steps}/{steps}" in stderr  # every step of the scenario counted


def test_synth_is_quiet_when_not_on_a_terminal(tmp_path: Path) -> None:
    stdout, stderr = _synth(tmp_path / "pipe", stderr_tty=False)
    assert stderr == "" and json.loads(stdout)["logs"] == 5


def test_a_bar_writes_nothing_to_a_stream_that_is_no_terminal() -> None:
    stream = io.StringIO()
    with Progress("work", total=10, unit="items", stream=stream) as bar:
        bar.update(5)
    assert stream.getvalue() == "" and not bar.enabled


def test_a_forced_bar_shows_done_and_total() -> None:
    stream = io.StringIO()
    with Progress("work", total=10, unit="items", stream=stream, enabled=True) as bar:
        bar.update(4)
    assert "work" in stream.getvalue() and "10/10 items" in stream.getvalue() and "100%" in stream.getvalue()
