"""Paths of the real data (read in place, never copied) and small helpers shared by the format tests.

The records come from the Rust core (``format.native_records``); what they are checked against is
independent of it: OLR's text dumps and the data sets' own expected values."""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path
from typing import Any

import pytest

from redo_lib.format import HEADER_PROBE_SIZE, FileLayout
from redo_lib.format.model import LogHeader, RedoRecord
from redo_lib.format.native_records import parse_header, read_records, record_of
from redo_lib.native import native

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
    return parse_header(log_bytes(seq)[:HEADER_PROBE_SIZE], LOGS[seq].name)


@lru_cache(maxsize=4)
def log_records(seq: int) -> tuple[RedoRecord, ...]:
    """The records of a real log read by the Rust core (checked against OLR's dump: test_olr_dump)."""
    return tuple(read_records(log_bytes(seq), name=LOGS[seq].name))


@lru_cache(maxsize=1)
def oracdc_rows() -> tuple[dict[str, Any], ...]:
    with require(ORACDC).open() as handle:
        return tuple(json.loads(line) for line in handle)


# A single record taken out of its log has no LWN; give it a neutral one (its time is not compared):
# (number, nst, length in blocks, SCN, raw redo time).
NO_LWN = (0, 1, 1, 0, 0)


def parse_oracdc_record(row: dict[str, Any]) -> RedoRecord:
    """One oracdc record from its hex (block headers removed) with the layout of its
    redo_log_profile, parsed by the Rust core (``native.parse_record``)."""
    layout = PROFILES[row["redo_log_profile"]]
    seq, block, offset = (int(part, 16) for part in row["rba"].split("."))
    plain = native.parse_record(
        bytes.fromhex(row["hex"]), big_endian=layout.big_endian, compat_version=layout.compat_version,
        rba=(seq, block, offset), thread=1, lwn=NO_LWN,
    )  # fmt: skip
    return record_of(plain)


class BytesSource:
    """An in-memory byte source (name, size, read) for tests that mutate a log."""

    def __init__(self, data: bytes, name: str = "memory.dbf") -> None:
        self.data = data
        self.name = name
        self.size = len(data)

    def read(self, offset: int, size: int) -> bytes:
        return self.data[offset : offset + size]
