"""Fuzz the Rust reader through its binding with mutated real logs and records: the only exception
that may escape is a ``RedoError`` naming where it is (a Rust panic would arrive as pyo3's
PanicException, a BaseException, and fail the test).

Mutations: flipped/overwritten bytes (with the block checksums repaired half of the time, so the
damage reaches the record, vector and op parsers instead of stopping at §2.1), cuts, and random
block ranges, under both error policies; the records walk (``native.read_records``) and the change
events (``pipeline.decode_range_arrow``, windowed reads) both. Bounded: 100-200 examples per
property, no deadline. The unbounded fuzzing is ``cargo fuzz`` (docs/native.md).
"""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from redo_lib.errors import ErrorPolicy, RedoError
from redo_lib.format.blocks import write_checksum
from redo_lib.native import native
from redo_lib.report import DecodeReport

REPO = Path(__file__).resolve().parents[2]
SHARED = REPO.parent / "shared" / "realdata"
LOGS = {
    15: SHARED / "rophy-olr-example-free-23" / "redo" / "arch1_15_1224959854.dbf",
    16: SHARED / "rophy-olr-example-free-23" / "redo" / "arch1_16_1224959854.dbf",
}
ORACDC = SHARED / "oracdc-redo-records" / "redo-records.jsonl"
PROFILES = {  # profile -> (big endian, compat version)
    "getLinux19c": (False, 0x13000000),
    "getLinux11g": (False, 0x0B200000),
    "getAix19c": (True, 0x13000000),
}
NO_LWN = (0, 1, 1, 0, 0)  # (number, nst, length, SCN, raw time): a single record has no LWN

pytestmark = pytest.mark.realdata


def _fuzz(examples: int) -> settings:
    return settings(
        max_examples=examples,
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
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


#: A real log mutated (``mutate``), a block range and an error policy.
MUTATED_LOG = {
    "seq": st.sampled_from(sorted(LOGS)),
    "edits": st.lists(st.tuples(st.floats(0, 1), st.integers(0, 255)), min_size=1, max_size=12),
    "repair": st.booleans(),
    "cut": st.none() | st.floats(0, 1),
    "first": st.integers(0, 700),
    "span": st.none() | st.integers(1, 700),
    "policy": st.sampled_from(list(ErrorPolicy)),
}


def _positioned(exc: RedoError, data: bytes, first: int) -> None:
    """The error names the file and a block of the file or of the asked range."""
    assert exc.position.file == "fuzz.dbf"
    assert exc.position.block is None or 0 <= exc.position.block <= max(len(data) // 512, first) + 1


@_fuzz(200)
@given(**MUTATED_LOG)
def test_mutated_logs_give_records_or_only_redo_errors(
    seq: int,
    edits: list[tuple[float, int]],
    repair: bool,
    cut: float | None,
    first: int,
    span: int | None,
    policy: ErrorPolicy,
) -> None:
    data = mutate(original(seq), edits, repair, cut)
    last = None if span is None else first + span
    try:
        records, damage = native.read_records(data, first, last, policy.value, "fuzz.dbf")
    except RedoError as exc:
        _positioned(exc, data, first)
        return
    blocks = [r["rba"][1] for r in records]
    assert blocks == sorted(blocks) and all(max(first, 2) <= b < (last or len(data)) for b in blocks)
    assert policy is ErrorPolicy.SKIP or not damage["corrupt_ranges"]


@_fuzz(100)
@given(**MUTATED_LOG)
def test_mutated_logs_give_events_or_only_redo_errors(
    seq: int,
    edits: list[tuple[float, int]],
    repair: bool,
    cut: float | None,
    first: int,
    span: int | None,
    policy: ErrorPolicy,
) -> None:
    from redo_lib.pipeline import decode_range_arrow

    data = mutate(original(seq), edits, repair, cut)
    report = DecodeReport()
    try:
        for batch in decode_range_arrow(
            Source(data), first, None if span is None else first + span, policy=policy, report=report,
            tail_bytes=512, step_bytes=64 * 512,
        ):  # fmt: skip
            assert batch.num_rows >= 0
    except RedoError as exc:
        _positioned(exc, data, first)
        return
    report.to_dict()


@lru_cache(maxsize=1)
def _records() -> tuple[dict[str, object], ...]:
    if not ORACDC.exists():
        pytest.skip(f"real data not available: {ORACDC}")
    with ORACDC.open() as handle:
        return tuple(json.loads(line) for line in handle)


@_fuzz(200)
@given(
    index=st.integers(0, 224),
    edits=st.lists(st.tuples(st.floats(0, 1), st.integers(0, 255)), min_size=1, max_size=6),
    cut=st.none() | st.integers(0, 400),
)
def test_mutated_single_records_parse_or_raise_only_redo_errors_inside_them(
    index: int, edits: list[tuple[float, int]], cut: int | None
) -> None:
    rows = _records()
    row = rows[index % len(rows)]
    big, compat = PROFILES[str(row["redo_log_profile"])]
    data = bytearray(bytes.fromhex(str(row["hex"])))
    for where, value in edits:
        data[24 + int(where * (len(data) - 25))] = value  # keep the length field, mutate the rest
    if cut is not None and cut < len(data):
        del data[max(cut, 24) :]
        data[0:4] = len(data).to_bytes(4, "big" if big else "little")
    try:
        record = native.parse_record(bytes(data), big_endian=big, compat_version=compat, lwn=NO_LWN)
    except RedoError as exc:
        # the offset of the field or vector the record ends inside (fields are 4-byte aligned, §4.2)
        assert exc.position.offset is None or 0 <= exc.position.offset < len(data) + 4
        return
    assert record["length"] == len(data)


def test_position_of_a_record_error_is_inside_the_record() -> None:
    data = bytes.fromhex(str(_records()[0]["hex"]))
    with pytest.raises(RedoError) as caught:
        native.parse_record(data[:30], big_endian=False, lwn=NO_LWN)
    assert caught.value.position.offset == 0
