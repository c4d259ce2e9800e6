"""Fuzz the binary reader with mutated real logs: the only exception that may escape is a RedoError.

Mutations: flipped/overwritten bytes (with the block checksums repaired half of the time, so the
damage reaches the record, vector and op parsers instead of stopping at §2.1), cuts, and random
block ranges, under both error policies. Bounded: ~200 examples per property, no deadline.
"""

from __future__ import annotations

import datetime as dt
import json
from functools import lru_cache
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from redo_lib.errors import ErrorPolicy, RedoError
from redo_lib.format import HEADER_PROBE_SIZE, FileLayout, parse_log_header
from redo_lib.format.blocks import write_checksum
from redo_lib.format.model import LwnHeader
from redo_lib.format.reader import iter_records
from redo_lib.format.records import parse_record
from redo_lib.report import DecodeReport
from redo_lib.scn import Rba

REPO = Path(__file__).resolve().parents[2]
SHARED = REPO.parent / "shared" / "realdata"
LOGS = {
    15: SHARED / "rophy-olr-example-free-23" / "redo" / "arch1_15_1224959854.dbf",
    16: SHARED / "rophy-olr-example-free-23" / "redo" / "arch1_16_1224959854.dbf",
}
ORACDC = SHARED / "oracdc-redo-records" / "redo-records.jsonl"

pytestmark = pytest.mark.realdata
FUZZ = settings(
    max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large]
)


@lru_cache(maxsize=2)
def original(seq: int) -> bytes:
    if not LOGS[seq].exists():
        pytest.skip(f"real data not available: {LOGS[seq]}")
    return LOGS[seq].read_bytes()


class Source:
    def __init__(self, data: bytes) -> None:
        self.data, self.name, self.size = data, "fuzz.dbf", len(data)

    def read(self, offset: int, size: int) -> bytes:
        return self.data[offset : offset + size]


def mutate(data: bytes, edits: list[tuple[float, int]], repair: bool, cut: float | None) -> bytes:
    buf = bytearray(data)
    for where, value in edits:
        buf[int(where * (len(buf) - 1))] = value
    if repair:
        write_checksum(memoryview(buf)[:512], at=16)  # type: ignore[arg-type]
        for start in range(512, len(buf) - 511, 512):
            block = bytearray(buf[start : start + 512])
            write_checksum(block)
            buf[start : start + 512] = block
    if cut is not None:
        del buf[int(cut * len(buf)) :]
    return bytes(buf)


def decode(data: bytes, first: int, last: int | None, policy: ErrorPolicy) -> None:
    header = parse_log_header(data[:HEADER_PROBE_SIZE], "fuzz.dbf")
    report = DecodeReport()
    for record in iter_records(Source(data), header, first, last, policy=policy, report=report):
        assert record.vectors is not None
    report.to_dict()


@FUZZ
@given(
    seq=st.sampled_from([15, 16]),
    edits=st.lists(st.tuples(st.floats(0, 1), st.integers(0, 255)), min_size=1, max_size=12),
    repair=st.booleans(),
    cut=st.none() | st.floats(0, 1),
    first=st.integers(0, 700),
    span=st.none() | st.integers(1, 700),
    policy=st.sampled_from(list(ErrorPolicy)),
)
def test_mutated_logs_raise_only_redo_errors(
    seq: int,
    edits: list[tuple[float, int]],
    repair: bool,
    cut: float | None,
    first: int,
    span: int | None,
    policy: ErrorPolicy,
) -> None:
    data = mutate(original(seq), edits, repair, cut)
    try:
        decode(data, first, None if span is None else first + span, policy)
    except RedoError:
        pass


def _records() -> list[dict[str, object]]:
    if not ORACDC.exists():
        return []
    with ORACDC.open() as handle:
        return [json.loads(line) for line in handle]


LAYOUTS = {
    "getLinux19c": FileLayout(compat_version=0x13000000),
    "getLinux11g": FileLayout(compat_version=0x0B200000),
    "getAix19c": FileLayout(big_endian=True, compat_version=0x13000000),
}
LWN = LwnHeader(number=0, nst=1, length=1, scn=0, time=dt.datetime(1988, 1, 1, tzinfo=dt.UTC))


@FUZZ
@given(
    index=st.integers(0, 224),
    edits=st.lists(st.tuples(st.floats(0, 1), st.integers(0, 255)), min_size=1, max_size=6),
    cut=st.none() | st.integers(0, 400),
)
def test_mutated_single_records_raise_only_redo_errors(
    index: int, edits: list[tuple[float, int]], cut: int | None
) -> None:
    rows = _records()
    if not rows:
        pytest.skip(f"real data not available: {ORACDC}")
    row = rows[index % len(rows)]
    data = bytearray(bytes.fromhex(str(row["hex"])))
    for where, value in edits:
        data[24 + int(where * (len(data) - 25))] = value  # keep the length field, mutate the rest
    if cut is not None and cut < len(data):
        del data[max(cut, 24) :]
        data[0:4] = len(data).to_bytes(4, "big" if row["redo_log_profile"] == "getAix19c" else "little")
    try:
        parse_record(
            bytes(data), Rba(1, 2, 16), thread=1, layout=LAYOUTS[str(row["redo_log_profile"])], lwn=LWN
        )
    except RedoError:
        pass
