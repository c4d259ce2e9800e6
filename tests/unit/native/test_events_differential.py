"""The Rust core's change events (Arrow record batches through ``pipeline.decode_range_arrow``) are
exactly the Python reader's ``assembly.events.iter_events``, and so are the report's counts and the
row changes by (object, operation).

Inputs: both real 23.6 logs (read in place) whole and in block ranges with a one-block tail (so the
windowed read has to ask for more); the seed-000 reference cases (their dump text written as binary
logs, LE and BE); every named scenario of include/scenarios; random seeds across LE/BE,
512/1024/4096-byte blocks and 11.2/19c/23ai (9 here, 1,000 with ``-m slow``), whole and split; and
damaged logs under both error policies. Also: the events schema is one definition, and a range is
read without reading the log, and a long range in steps gives what it gives in one.
"""

from __future__ import annotations

import dataclasses
import io
import random
from functools import cache
from pathlib import Path

import pytest

from redo_lib.errors import ErrorPolicy

from .differential import _Source, assert_same_events, rust_events
from .test_differential import MATRIX, REAL_LOGS, REPO, SCENARIOS, _damaged, _generated

DUMPS = REPO / "tests" / "fixtures" / "dumps"
SEED_CASES = sorted(
    p for p in DUMPS.glob("seed000_*.txt") if not (DUMPS / p.name.replace(".txt", ".repaired.txt")).exists()
)


@pytest.fixture(scope="module")
def gen_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("native-events")


@pytest.mark.realdata
@pytest.mark.parametrize("path", REAL_LOGS, ids=lambda p: p.stem)
def test_real_log_events_are_the_same_whole_and_in_ranges(path: Path) -> None:
    if not path.exists():
        pytest.skip(f"real data not available: {path}")
    data = path.read_bytes()
    whole = assert_same_events(data, name=path.name)
    assert whole["events"] and whole["report"]["records"]
    assert rust_events(data, name=path.name, tail_bytes=512, step_bytes=16 * 512) == whole
    parts = []
    for first in range(2, len(data) // 512 + 37, 37):
        parts += assert_same_events(data, first, first + 37, name=path.name, tail_bytes=512)["events"]
    assert parts == whole["events"]


def _seed_case_log(text_path: Path, big_endian: bool) -> bytes:
    """A seed-000 dump's records written as an 11.2 binary log (opaque vectors the dump does not
    spell out get a placeholder field: both readers see them as the same opaque vector)."""
    from redo_lib.dump import parse_dump
    from redo_lib.format.model import Opaque
    from redo_lib.format.writer import COMPAT_11_2, LogFileSpec, LogWriter

    records = parse_dump(text_path.read_text(), name=text_path.name).records
    t0 = records[0].time.replace(tzinfo=None)
    spec = LogFileSpec(
        sequence=records[0].rba.seq, resetlogs_id=1, first_scn=records[0].scn, first_time=t0,
        big_endian=big_endian, compat_version=COMPAT_11_2,
    )  # fmt: skip
    out = io.BytesIO()
    writer = LogWriter(out, spec)
    scn = 0
    for i, record in enumerate(records):
        scn = max(scn, record.scn)
        vectors = [
            dataclasses.replace(v, fields=(b"\0" * 4,)) if isinstance(v.body, Opaque) and not v.fields else v
            for v in record.vectors
        ]
        writer.append(
            scn=scn, subscn=i + 1, vectors=vectors, time=record.time.replace(tzinfo=None), vld=record.vld
        )
    writer.close(next_scn=scn + 1, next_time=records[-1].time.replace(tzinfo=None))
    return out.getvalue()


@pytest.mark.parametrize("big_endian", [False, True], ids=["le", "be"])
@pytest.mark.parametrize("path", SEED_CASES, ids=lambda p: p.stem.removeprefix("seed000_"))
def test_seed000_case_events_are_the_same(path: Path, big_endian: bool) -> None:
    got = assert_same_events(_seed_case_log(path, big_endian), name=path.name)
    assert got["events"] and got["report"]["records"] == got["report"]["records_by_vld"].get("0x01", 0) + sum(
        n for k, n in got["report"]["records_by_vld"].items() if k != "0x01"
    )


@pytest.mark.parametrize("name", [p.stem for p in SCENARIOS])
def test_named_scenario_events_are_the_same(name: str, gen_dir: Path) -> None:
    for log in _generated(name, gen_dir):
        assert_same_events(log.read_bytes(), name=log.name)


@pytest.mark.parametrize("index", range(len(MATRIX)), ids=lambda i: "-".join(map(str, MATRIX[i][1:])))
def test_random_seed_events_are_the_same(index: int, gen_dir: Path) -> None:
    block = MATRIX[index][2]
    for log in _generated(f"seed-{index}", gen_dir):
        data = log.read_bytes()
        whole = assert_same_events(data, name=log.name)
        assert rust_events(data, name=log.name, tail_bytes=block, step_bytes=8 * block) == whole
        cut = random.Random(index).randrange(3, max(len(data) // block, 4))
        assert_same_events(data, 2, cut, name=log.name, tail_bytes=block)
        assert_same_events(data, cut, None, name=log.name, tail_bytes=block)


def _slow_axes(seed: int) -> dict[str, object]:
    """Seeds cycle through every compat x block size x byte order."""
    return {
        "compat": ("11.2", "19c", "23ai")[seed % 3],
        "block_size": (512, 1024, 4096)[seed // 3 % 3],
        "big_endian": bool(seed // 9 % 2),
    }


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(1000, 2000))
def test_random_seed_events_are_the_same_slow(seed: int, tmp_path: Path) -> None:
    from redo_lib.synth import generate, random_scenario

    scenario = random_scenario(seed, steps=120, **_slow_axes(seed))  # type: ignore[arg-type]
    for log in generate(scenario, tmp_path, record_steps=False).logs:
        data = log.read_bytes()
        whole = assert_same_events(data, name=log.name)
        block = int(_slow_axes(seed)["block_size"])  # type: ignore[call-overload]
        assert rust_events(data, name=log.name, tail_bytes=block, step_bytes=32 * block) == whole
        cut = random.Random(seed).randrange(3, max(len(data) // block, 4))
        assert_same_events(data, cut, None, name=log.name, tail_bytes=block)


@pytest.mark.parametrize("policy", list(ErrorPolicy), ids=lambda p: p.name)
@pytest.mark.parametrize("case", range(30))
def test_damaged_log_events_are_the_same(case: int, policy: ErrorPolicy, gen_dir: Path) -> None:
    rnd = random.Random(1000 + case)
    if case % 2 and REAL_LOGS[0].exists():
        data, block_size = REAL_LOGS[case % 4 // 2].read_bytes(), 512
    else:
        index = case % len(MATRIX)
        data, block_size = _generated(f"seed-{index}", gen_dir)[0].read_bytes(), MATRIX[index][2]
    damaged = _damaged(data, rnd, block_size)
    first = rnd.choice([2, 2, rnd.randrange(0, max(len(damaged) // block_size, 1) + 3)])
    last = rnd.choice([None, first + rnd.randrange(1, 200)])
    assert_same_events(damaged, first, last, policy, name="damaged.dbf", tail_bytes=block_size)


class _CountingSource(_Source):
    def __init__(self, data: bytes, name: str) -> None:
        super().__init__(data, name)
        self.reads: list[tuple[int, int]] = []

    def read(self, offset: int, size: int) -> bytes:
        self.reads.append((offset, size))
        return super().read(offset, size)


@cache
def _big_log(tmp: Path) -> bytes:
    from redo_lib.synth import generate, random_scenario

    scenario = random_scenario(7, size=1 << 20, block_size=512, big_endian=False)
    logs = generate(scenario, tmp / "big", record_steps=False).logs
    return max((log.read_bytes() for log in logs), key=len)


def test_a_range_is_read_without_reading_the_log(gen_dir: Path) -> None:
    """Peak memory of a decode task is bounded by its range: the bytes read are the header, the LWN
    look-back, the range and the tail, however long the log."""
    from redo_lib.pipeline import HEADER_BYTES, decode_range_arrow

    data = _big_log(gen_dir)
    size = 512
    blocks = len(data) // size
    first, last = blocks // 2, blocks // 2 + 20
    source = _CountingSource(data, "big.dbf")
    list(decode_range_arrow(source, first, last, tail_bytes=4 * size))
    window = [r for r in source.reads if r[0] > 0]
    assert source.reads[0] == (0, HEADER_BYTES)
    assert window and max(n for _, n in window) <= (20 + 4 + 256 + 8) * size < len(data) // 4
    rs = rust_events(data, first, last, name="big.dbf", tail_bytes=size)
    assert rs == assert_same_events(data, first, last, name="big.dbf")


def test_events_schema_is_one_definition() -> None:
    """``batches.events_schema()`` is the core's schema, and its columns are ``ChangeEvent.to_row``'s
    (the Python events the assembler carries between batches are written with the same schema)."""
    import datetime as dt

    import pyarrow as pa

    from redo_lib.assembly.events import ChangeEvent, EventKind
    from redo_lib.batches import event_to_row, events_schema
    from redo_lib.native import native

    schema = events_schema()
    assert schema.equals(pa.schema(native.events_schema()))
    event = ChangeEvent(kind=EventKind.BEGIN, usn=1, slot=2, sqn=3, thread=1, seq=4, block=5, offset=16,
                        scn=6, subscn=1, time=dt.datetime(2026, 1, 1))  # fmt: skip
    assert list(event_to_row(event)) == schema.names
    assert pa.Table.from_pylist([event_to_row(event)], schema=schema).num_rows == 1
