"""The 225 real single records of the oracdc data set (19c and 11g little-endian, one AIX 19c
big-endian) parse identically in Rust and Python: header, vectors, op bodies, or the same error.
Also a bounded fuzz of the same records through the binding (only ``RedoError`` escapes)."""

from __future__ import annotations

import dataclasses
import datetime as dt
import json
import random
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from redo_lib.errors import RedoError
from redo_lib.format import FileLayout
from redo_lib.format.model import LwnHeader
from redo_lib.format.records import parse_record
from redo_lib.native import native
from redo_lib.scn import Rba

from .differential import error_shape, first_difference, plain

ORACDC = (
    Path(__file__).resolve().parents[4] / "shared" / "realdata" / "oracdc-redo-records" / "redo-records.jsonl"
)
PROFILES = {  # profile -> (big endian, compat version)
    "getLinux19c": (False, 0x13000000),
    "getLinux11g": (False, 0x0B200000),
    "getAix19c": (True, 0x13000000),
}
LWN = LwnHeader(number=0, nst=1, length=1, scn=0, time=dt.datetime(1988, 1, 1, tzinfo=dt.UTC))

pytestmark = pytest.mark.realdata


@cache
def _rows() -> list[dict[str, Any]]:
    if not ORACDC.exists():
        return []
    with ORACDC.open() as handle:
        return [json.loads(line) for line in handle]


def _both(data: bytes, profile: str) -> tuple[Any, Any]:
    big, compat = PROFILES[profile]
    try:
        py = plain(
            parse_record(
                data,
                Rba(1, 2, 16),
                thread=1,
                layout=FileLayout(big_endian=big, compat_version=compat),
                lwn=LWN,
            )
        )
    except RedoError as exc:
        py = error_shape(exc)
    try:
        rs = plain(native.parse_record(data, big_endian=big, compat_version=compat, lwn=(0, 1, 1, 0, 0)))
    except RedoError as exc:
        rs = error_shape(exc)
    return py, rs


def _case(index: int) -> tuple[bytes, str]:
    rows = _rows()
    if not rows:
        pytest.skip(f"real data not available: {ORACDC}")
    row = rows[index]
    return bytes.fromhex(row["hex"]), row["redo_log_profile"]


@pytest.mark.parametrize("index", range(225))
def test_oracdc_record_parses_the_same(index: int) -> None:
    data, profile = _case(index)
    py, rs = _both(data, profile)
    assert "class" not in py, py
    diff = first_difference(py, rs)
    assert diff is None, diff


@pytest.mark.parametrize("index", range(0, 225, 5))
def test_mutated_oracdc_record_fails_or_parses_the_same(index: int) -> None:
    data, profile = _case(index)
    rnd = random.Random(index)
    for _ in range(20):
        buf = bytearray(data)
        for _ in range(rnd.randint(1, 6)):
            buf[rnd.randrange(24, len(buf))] = rnd.randrange(256)  # keep the length field
        if rnd.random() < 0.3:
            del buf[rnd.randrange(24, len(buf)) :]
            big = PROFILES[profile][0]
            buf[0:4] = len(buf).to_bytes(4, "big" if big else "little")
        py, rs = _both(bytes(buf), profile)
        diff = first_difference(py, rs)
        assert diff is None, diff


def test_position_of_a_record_error_is_inside_the_record() -> None:
    data, profile = _case(0)
    with pytest.raises(RedoError) as caught:
        native.parse_record(data[:30] + b"\0" * 0, big_endian=False, lwn=(0, 1, 1, 0, 0))
    assert dataclasses.asdict(caught.value.position)["offset"] == 0
