"""Paths of the real data (read in place, never copied) and small helpers shared by the format tests."""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path
from typing import Any

import pytest

from redo_lib.format import HEADER_PROBE_SIZE, FileLayout, parse_log_header
from redo_lib.format.model import LogHeader, RedoRecord
from redo_lib.format.reader import iter_records
from redo_lib.storage import LocalFileSource

REPO = Path(__file__).resolve().parents[4]
SHARED = REPO.parent / "shared"
ROPHY = SHARED / "realdata" / "rophy-olr-example-free-23"
ORACDC = SHARED / "realdata" / "oracdc-redo-records" / "redo-records.jsonl"
LOGS = {15: ROPHY / "redo" / "arch1_15_1224959854.dbf", 16: ROPHY / "redo" / "arch1_16_1224959854.dbf"}
DUMPS = {15: ROPHY / "olr-reference" / "logdump-seq15.txt", 16: ROPHY / "olr-reference" / "logdump-seq16.txt"}

# getLinux19c / getLinux11g / getAix19c of oracdc's tests (realdata README)
PROFILES = {
    "getLinux19c": FileLayout(big_endian=False, block_size=512, compat_version=0x13000000),
    "getLinux11g": FileLayout(big_endian=False, block_size=512, compat_version=0x0B200000),
    "getAix19c": FileLayout(big_endian=True, block_size=512, compat_version=0x13000000),
}


def require(path: Path) -> Path:
    if not path.exists():
        pytest.skip(f"real data not available: {path} (shared/realdata is read in place)")
    return path


@lru_cache(maxsize=4)
def log_bytes(seq: int) -> bytes:
    return require(LOGS[seq]).read_bytes()


@lru_cache(maxsize=4)
def log_header(seq: int) -> LogHeader:
    return parse_log_header(log_bytes(seq)[:HEADER_PROBE_SIZE], LOGS[seq].name)


@lru_cache(maxsize=4)
def log_records(seq: int) -> tuple[RedoRecord, ...]:
    require(LOGS[seq])
    with LocalFileSource(LOGS[seq]) as source:
        return tuple(iter_records(source, log_header(seq)))


@lru_cache(maxsize=1)
def oracdc_rows() -> tuple[dict[str, Any], ...]:
    with require(ORACDC).open() as handle:
        return tuple(json.loads(line) for line in handle)


class BytesSource:
    """An in-memory byte source (name, size, read) for tests that mutate a log."""

    def __init__(self, data: bytes, name: str = "memory.dbf") -> None:
        self.data = data
        self.name = name
        self.size = len(data)

    def read(self, offset: int, size: int) -> bytes:
        return self.data[offset : offset + size]
