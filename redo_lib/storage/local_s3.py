"""The embedded default's S3 endpoint: ``moto_server`` (from ``moto[server]``) as a process on
127.0.0.1. Real S3 over HTTP for boto3, pyarrow, pyiceberg and deltalake; objects live in the
server's memory, so whoever starts it keeps it up for the run (the demo, the test fixture).

Side package: imports layer 0 only.
"""

from __future__ import annotations

import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

from redo_lib.errors import StorageError


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def start_moto_server(
    port: int | None = None, *, timeout: float = 30.0
) -> tuple[subprocess.Popen[bytes], str]:
    """Start ``moto_server -H 127.0.0.1 -p PORT``; return the process and its URL once it answers."""
    port = port or free_port()
    exe = shutil.which("moto_server") or str(Path(sys.executable).with_name("moto_server"))
    proc = subprocess.Popen(
        [exe, "-H", "127.0.0.1", "-p", str(port)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            urllib.request.urlopen(url + "/moto-api/", timeout=1).close()
            return proc, url
        except OSError:
            if proc.poll() is not None:
                raise StorageError(f"moto_server exited with code {proc.returncode}") from None
            time.sleep(0.1)
    proc.kill()
    raise StorageError(f"moto_server did not answer on {url} within {timeout:.0f} s")


def stop(proc: subprocess.Popen[bytes]) -> None:
    proc.terminate()
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()
