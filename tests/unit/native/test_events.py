"""The Rust core's change events (Arrow record batches through ``pipeline.decode_range_arrow``), the
report's counts and the row changes by (object, operation).

Oracles: the events are those ``assembly.events.iter_events`` (the Python events of the assembly,
which the text-dump input uses) gives for the records that were written: for generated logs, the
records as the generator handed them to the writer (``written.py``); for the seed-000 cases, the
records parsed from Oracle's dump text, written as binary logs by ``format/writer.py``; for the real
23.6 logs, the records OLR's dump vouches for (``tests/unit/redo_lib/format/test_olr_dump.py``). The
counts come from the written records too.

Inputs: both real 23.6 logs whole and in block ranges with a one-block tail (so the windowed read has
to ask for more); the seed-000 reference cases (LE and BE); every named scenario; random seeds across
LE/BE, 512/1024/4096-byte blocks and 11.2/19c/23ai (9 here, 1,000 with ``-m slow``), whole and
split. Also: the events schema is one definition, a range is read without reading the log, and a
long range in steps gives what it gives in one.
"""

from __future__ import annotations

import dataclasses
import io
import random
from collections import Counter
from collections.abc import Sequence
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from redo_lib.assembly.events import iter_events
from redo_lib.assembly.rows import count_row_change
from redo_lib.errors import ErrorPolicy
from redo_lib.format import HEADER_PROBE_SIZE
from redo_lib.format.model import RedoRecord
from redo_lib.format.native_records import parse_header, read_records
from redo_lib.report import DecodeReport

from .test_records import MATRIX, REAL_LOGS, REPO, SCENARIOS, generated, matrix_id
from .written import Written, as_written, assert_records_as_written, generate_written

DUMPS = REPO / "tests" / "fixtures" / "dumps"
SEED_CASES = sorted(
    p for p in DUMPS.glob("seed000_*.txt") if not (DUMPS / p.name.replace(".txt", ".repaired.txt")).exists()
)


class BytesSource:
    def __init__(self, data: bytes, name: str) -> None:
        self.data, self.name, self.size = data, name, len(data)
        self.reads: list[tuple[int, int]] = []

    def read(self, offset: int, size: int) -> bytes:
        self.reads.append((offset, size))
        return self.data[offset : offset + size]


def rust_events(
    data: bytes, first: int = 2, last: int | None = None, policy: ErrorPolicy = ErrorPolicy.RAISE,
    name: str = "log", tail_bytes: int | None = None, step_bytes: int | None = None,
) -> dict[str, Any]:  # fmt: skip
    """Events (Arrow rows), the report and the row-change counts of ``decode_range_arrow``; the
    counts alone (``windows.count_range``, the ``stats`` command's) are checked to be its report."""
    import pyarrow as pa

    from redo_lib.batches import events_schema
    from redo_lib.pipeline import STEP_BYTES, TAIL_BYTES, decode_range_arrow
    from redo_lib.windows import count_range

    report = DecodeReport()
    decoded: Counter[tuple[int, str]] = Counter()
    batches = list(
        decode_range_arrow(
            BytesSource(data, name),
            first,
            last,
            policy=policy,
            report=report,
            row_changes=decoded,
            tail_bytes=tail_bytes or TAIL_BYTES,
            step_bytes=step_bytes or STEP_BYTES,
            chunk=97,
        )  # fmt: skip
    )
    for batch in batches:
        assert batch.schema.equals(events_schema()) and batch.num_rows <= 97
    rows = pa.Table.from_batches(batches, schema=events_schema()).to_pylist()
    counted = DecodeReport()
    steps = {"tail_bytes": tail_bytes or TAIL_BYTES, "step_bytes": step_bytes or STEP_BYTES}
    count_range(BytesSource(data, name), first, last, policy=policy, report=counted, **steps)
    assert counted.to_dict() == report.to_dict()
    return {"events": rows, "report": report.to_dict(), "decoded": sorted(decoded.items())}


def expected_events(records: Sequence[RedoRecord]) -> dict[str, Any]:
    """The events, row-change counts and record counts the written ``records`` make."""
    from redo_lib.batches import event_to_row

    decoded: Counter[tuple[int, str]] = Counter()
    rows = []
    for record in records:
        for event in iter_events(record):
            count_row_change(decoded, event)
            rows.append(event_to_row(event))
    vectors = Counter(f"{v.layer}.{v.code}" for r in records for v in r.vectors)
    return {
        "events": rows,
        "decoded": sorted(decoded.items()),
        "records": len(records),
        "bytes": sum(r.length for r in records),
        "vectors_by_opcode": dict(vectors),
    }


def assert_events(data: bytes, records: Sequence[RedoRecord], first: int = 2, last: int | None = None,
                  **options: Any) -> dict[str, Any]:  # fmt: skip
    """The core's events of blocks [first, last) are those of the ``records`` starting there."""
    mine = [r for r in records if r.rba.block >= first and (last is None or r.rba.block < last)]
    want = expected_events(mine)
    got = rust_events(data, first, last, **options)
    report = got["report"]
    assert (report["records"], report["bytes"]) == (want["records"], want["bytes"])
    assert report["vectors_by_opcode"] == want["vectors_by_opcode"]
    assert got["decoded"] == want["decoded"]
    assert len(got["events"]) == len(want["events"])
    for i, (g, w) in enumerate(zip(got["events"], want["events"], strict=True)):
        assert g == w, f"event {i} of [{first}, {last})"
    return got


def _written_records(data: bytes, written: Written) -> list[RedoRecord]:
    """The log's records, checked to be those the generator wrote."""
    header = parse_header(data[:HEADER_PROBE_SIZE])
    records = list(read_records(data))
    assert_records_as_written(records, written, sequence=header.sequence, thread=header.thread)
    return records


@pytest.fixture(scope="module")
def gen_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("native-events")


@pytest.mark.realdata
@pytest.mark.parametrize("path", REAL_LOGS, ids=lambda p: p.stem)
def test_real_log_events_whole_in_steps_and_in_ranges(path: Path) -> None:
    if not path.exists():
        pytest.skip(f"real data not available: {path}")
    data = path.read_bytes()
    records = list(read_records(data, name=path.name))  # == OLR's dump: test_olr_dump.py
    whole = assert_events(data, records, name=path.name)
    assert whole["events"]
    assert rust_events(data, name=path.name, tail_bytes=512, step_bytes=16 * 512) == whole
    parts = []
    for first in range(2, len(data) // 512 + 37, 37):
        parts += rust_events(data, first, first + 37, name=path.name, tail_bytes=512)["events"]
    assert parts == whole["events"]


def _seed_case(text_path: Path, big_endian: bool) -> tuple[bytes, list[RedoRecord]]:
    """A seed-000 dump's records written as an 11.2 binary log, and those records as written (their
    RBA, SCN, sub-SCN and LWN as the writer placed them; opaque vectors the dump does not spell out
    get a placeholder field)."""
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
    placed = []
    for i, record in enumerate(records):
        scn = max(scn, record.scn)
        vectors = [
            dataclasses.replace(v, fields=(b"\0" * 4,)) if isinstance(v.body, Opaque) and not v.fields else v
            for v in record.vectors
        ]
        rba = writer.append(
            scn=scn, subscn=i + 1, vectors=vectors, time=record.time.replace(tzinfo=None), vld=record.vld
        )
        placed.append(dataclasses.replace(record, rba=rba, scn=scn, subscn=i + 1, vectors=tuple(vectors)))
    writer.close(next_scn=scn + 1, next_time=records[-1].time.replace(tzinfo=None))
    return out.getvalue(), placed


def _as_written(placed: RedoRecord, got: RedoRecord) -> RedoRecord:
    """A dump record as the writer placed it, as the reader must return it (``written.as_written``:
    what the binary form decides itself); the LWN header, length and offsets are the writer's layout.
    The text has no raw fields: those of ``got`` stand in."""
    assert len(got.vectors) == len(placed.vectors), placed.rba
    vectors = tuple(
        dataclasses.replace(as_written(v, g, i + 1, g.offset), fields=g.fields)
        for i, (v, g) in enumerate(zip(placed.vectors, got.vectors, strict=True))
    )
    vld = placed.vld | (0x04 if got.lwn is not None else 0)
    return dataclasses.replace(placed, vectors=vectors, lwn=got.lwn, length=got.length, vld=vld)


@pytest.mark.parametrize("big_endian", [False, True], ids=["le", "be"])
@pytest.mark.parametrize("path", SEED_CASES, ids=lambda p: p.stem.removeprefix("seed000_"))
def test_seed000_case_reads_as_parsed_and_gives_its_events(path: Path, big_endian: bool) -> None:
    data, placed = _seed_case(path, big_endian)
    got = list(read_records(data, name=path.name))
    assert [r.rba for r in got] == [r.rba for r in placed]
    written = [_as_written(p, g) for p, g in zip(placed, got, strict=True)]
    for g, w in zip(got, written, strict=True):
        assert g == w, str(w.rba)
    events = assert_events(data, written, name=path.name)
    assert events["events"]


@pytest.mark.parametrize("name", [p.stem for p in SCENARIOS])
def test_named_scenario_events(name: str, gen_dir: Path) -> None:
    result, written = generated(name, gen_dir)
    for log in result.logs:
        data = log.read_bytes()
        assert_events(data, _written_records(data, written), name=log.name)


@pytest.mark.parametrize("index", range(len(MATRIX)), ids=matrix_id)
def test_random_seed_events_whole_in_steps_and_split(index: int, gen_dir: Path) -> None:
    result, written = generated(f"seed-{index}", gen_dir)
    _assert_seed_events(result.logs, written, MATRIX[index][2], index, step_blocks=8)


def _assert_seed_events(
    logs: Sequence[Path], written: Written, block: int, seed: int, *, step_blocks: int
) -> None:
    """Each log's events whole, in steps of ``step_blocks`` and split at a random block (both
    halves with a one-block tail) are those of the records written."""
    for log in logs:
        data = log.read_bytes()
        records = _written_records(data, written)
        whole = assert_events(data, records, name=log.name)
        assert rust_events(data, name=log.name, tail_bytes=block, step_bytes=step_blocks * block) == whole
        cut = random.Random(seed).randrange(3, max(len(data) // block, 4))
        assert_events(data, records, 2, cut, name=log.name, tail_bytes=block)
        assert_events(data, records, cut, None, name=log.name, tail_bytes=block)


def _slow_axes(seed: int) -> dict[str, Any]:
    """Seeds cycle through every compat x block size x byte order."""
    return {
        "compat": ("11.2", "19c", "23ai")[seed % 3],
        "block_size": (512, 1024, 4096)[seed // 3 % 3],
        "big_endian": bool(seed // 9 % 2),
    }


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(1000, 2000))
def test_random_seed_events_slow(seed: int, tmp_path: Path) -> None:
    from redo_lib.synth import random_scenario

    axes = _slow_axes(seed)
    result, written = generate_written(random_scenario(seed, steps=120, **axes), tmp_path)
    _assert_seed_events(result.logs, written, axes["block_size"], seed, step_blocks=32)


@cache
def _big_log(tmp: Path) -> tuple[bytes, Written]:
    from redo_lib.synth import random_scenario

    scenario = random_scenario(7, size=1 << 20, block_size=512, big_endian=False)
    result, written = generate_written(scenario, tmp / "big")
    return max((log.read_bytes() for log in result.logs), key=len), written


def test_a_range_is_read_without_reading_the_log(gen_dir: Path) -> None:
    """Peak memory of a decode task is bounded by its range: the bytes read are the header, the LWN
    look-back, the range and the tail, however long the log."""
    from redo_lib.pipeline import HEADER_BYTES, decode_range_arrow

    data, written = _big_log(gen_dir)
    size = 512
    blocks = len(data) // size
    first, last = blocks // 2, blocks // 2 + 20
    source = BytesSource(data, "big.dbf")
    list(decode_range_arrow(source, first, last, tail_bytes=4 * size))
    window = [r for r in source.reads if r[0] > 0]
    assert source.reads[0] == (0, HEADER_BYTES)
    assert window and max(n for _, n in window) <= (20 + 4 + 256 + 8) * size < len(data) // 4
    assert_events(data, _written_records(data, written), first, last, name="big.dbf", tail_bytes=size)


@pytest.mark.realdata
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_counts_alone_are_the_events_counts_on_a_damaged_log(seed: int) -> None:
    """``count_range`` (no event built) skips and counts what ``decode_range_arrow`` does on a log
    with bytes flipped, damaged ranges and skipped errors alike; without ``SKIP`` both raise the
    same error."""
    from redo_lib.errors import RedoError
    from redo_lib.pipeline import decode_range_arrow
    from redo_lib.windows import count_range

    path = REAL_LOGS[seed % len(REAL_LOGS)]
    if not path.exists():
        pytest.skip(f"real data not available: {path}")
    data = bytearray(path.read_bytes())
    rng = random.Random(seed)
    for _ in range(1 + seed):
        data[rng.randrange(3 * 512, len(data))] ^= 0xFF
    got = rust_events(bytes(data), policy=ErrorPolicy.SKIP, tail_bytes=512, step_bytes=64 * 512)
    assert got["report"]["skipped"] and got["report"]["corrupt_ranges"]
    errors = []
    for walk in (
        lambda: list(decode_range_arrow(BytesSource(bytes(data), "bad"))),
        lambda: count_range(BytesSource(bytes(data), "bad"), report=DecodeReport()),
    ):
        with pytest.raises(RedoError) as info:
            walk()
        errors.append((type(info.value), str(info.value)))
    assert errors[0] == errors[1]


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
