"""The Rust reader's records are the records that were written (``format.native_records``, the
model values ``dump`` and the tools read through).

Oracles: for generated logs, what the generator handed the log writer (``written.py``); for the real
23.6 logs, OLR's dumps (``tests/unit/redo_lib/format/test_olr_dump.py``) and here the rule that block
ranges give each record of the whole read exactly once. Inputs: every named scenario of
include/scenarios; random seeds across LE/BE, 512/1024/4096-byte blocks and 11.2/19c/23ai compat (a
quick matrix here, 300 more with ``-m slow``), whole and split at a block; input that is no log.
Damage is in ``test_damage.py``, events in ``test_events.py``.
"""

from __future__ import annotations

import random
from functools import cache
from pathlib import Path

import pytest

from redo_lib.errors import FormatError, RedoError, TruncatedLogError, UnsupportedFormatError
from redo_lib.format import HEADER_PROBE_SIZE
from redo_lib.format.native_records import parse_header, read_records
from redo_lib.format.writer import COMPAT_11_2, COMPAT_19C, COMPAT_23AI
from redo_lib.synth import GenerationResult, load_scenario, random_scenario

from .written import Written, assert_records_as_written, generate_written

REPO = Path(__file__).resolve().parents[3]
REAL = REPO.parent / "shared" / "realdata" / "rophy-olr-example-free-23" / "redo"
REAL_LOGS = [REAL / "arch1_15_1224959854.dbf", REAL / "arch1_16_1224959854.dbf"]
SCENARIOS = sorted((REPO / "include" / "scenarios").glob("*.yaml"))
# (seed, compat, block size, big endian): every combination of the three axes at least once
MATRIX = [
    (0, "11.2", 512, False), (1, "19c", 1024, True), (2, "23ai", 4096, False), (3, "11.2", 4096, True),
    (4, "19c", 512, False), (5, "23ai", 1024, True), (6, "19c", 4096, True), (7, "23ai", 512, True),
    (8, "11.2", 1024, False),
]  # fmt: skip
COMPAT = {"11.2": COMPAT_11_2, "19c": COMPAT_19C, "23ai": COMPAT_23AI}


def matrix_id(index: int) -> str:
    return "-".join(map(str, MATRIX[index][1:]))


@cache
def generated(key: str, tmp: Path) -> tuple[GenerationResult, Written]:
    """A named scenario, or ``seed-<i>``: the MATRIX seed ``i`` (100 steps), written once per session."""
    if key.startswith("seed-"):
        seed, compat, block, big = MATRIX[int(key[5:])]
        scenario = random_scenario(seed, steps=100, compat=compat, block_size=block, big_endian=big)
    else:
        scenario = load_scenario(REPO / "include" / "scenarios" / f"{key}.yaml")
    return generate_written(scenario, tmp / key)


@pytest.fixture(scope="module")
def gen_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("native-records")


def _assert_log_as_written(
    data: bytes, written: Written, first: int = 2, last: int | None = None
) -> tuple[int, int]:
    """The log's records (of the range) are what was written; returns its (thread, sequence)."""
    header = parse_header(data[:HEADER_PROBE_SIZE], "log")
    got = list(read_records(data, first, last, name="log"))
    assert_records_as_written(
        got, written, sequence=header.sequence, thread=header.thread, every=(first, last) == (2, None)
    )
    return header.thread, header.sequence


@pytest.mark.realdata
def test_real_log_block_ranges_give_each_record_once() -> None:
    path = REAL_LOGS[0]
    if not path.exists():
        pytest.skip(f"real data not available: {path}")
    data = path.read_bytes()
    whole = list(read_records(data, name=path.name))
    parts = [r for first in range(2, 600, 37) for r in read_records(data, first, first + 37, name=path.name)]
    assert len(whole) == 1154 and parts == whole  # the record count of redo-format §13


@pytest.mark.parametrize("name", [p.stem for p in SCENARIOS])
def test_named_scenario_reads_as_written(name: str, gen_dir: Path) -> None:
    result, written = generated(name, gen_dir)
    logs = {_assert_log_as_written(log.read_bytes(), written) for log in result.logs}
    assert logs == {(thread, rba.seq) for thread, rba in written}  # no record written elsewhere


@pytest.mark.parametrize("index", range(len(MATRIX)), ids=matrix_id)
def test_random_seed_reads_as_written_whole_and_split(index: int, gen_dir: Path) -> None:
    _, compat, block, big = MATRIX[index]
    result, written = generated(f"seed-{index}", gen_dir)
    for log in result.logs:
        data = log.read_bytes()
        header = parse_header(data[:HEADER_PROBE_SIZE])
        assert (header.compat_version, header.block_size, header.big_endian) == (COMPAT[compat], block, big)
        assert header.nab * block == len(data)
        _assert_log_as_written(data, written)
        cut = random.Random(index).randrange(3, max(header.nab, 4))
        assert list(read_records(data, 2, cut)) + list(read_records(data, cut)) == list(read_records(data))
        _assert_log_as_written(data, written, 2, cut)
        _assert_log_as_written(data, written, cut, None)


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(100, 400))
def test_random_seed_reads_as_written_slow(seed: int, tmp_path: Path) -> None:
    result, written = generate_written(random_scenario(seed, steps=150), tmp_path)
    for log in result.logs:
        _assert_log_as_written(log.read_bytes(), written)


@pytest.mark.parametrize(
    ("data", "error", "block", "offset"),
    [
        (b"", TruncatedLogError, None, 0),
        (b"\0" * 31, TruncatedLogError, None, 0),
        (b"\1" * 600, FormatError, 0, 0),  # byte 0 must be 0x00 (§1.3)
        (b"\0" * 600, FormatError, 0, 28),  # no magic at 28-31
        (b"\0" * 28 + b"\x7d\x7c\x7b\x7a" + b"\0" * 600, UnsupportedFormatError, 0, 20),  # block size 0
    ],
    ids=["empty", "31-bytes", "byte-0", "no-magic", "block-size-0"],
)
def test_not_a_log_is_refused_with_its_position(
    data: bytes, error: type[RedoError], block: int | None, offset: int
) -> None:
    with pytest.raises(error) as caught:
        list(read_records(data, name="x.dbf"))
    assert type(caught.value) is error
    position = caught.value.position
    assert (position.file, position.block, position.offset) == ("x.dbf", block, offset)


@pytest.mark.parametrize(
    "kind",
    [
        "format",
        "checksum",
        "block_header",
        "truncated",
        "unsupported_format",
        "value",
        "storage",
        "assembly",
        "dictionary",
    ],
)
def test_every_core_error_arrives_as_its_python_class_with_its_position(kind: str) -> None:
    import redo_lib.errors as errors
    from redo_lib.native import native

    assert kind in native.ERROR_KINDS
    with pytest.raises(RedoError) as caught:
        native.raise_core_error(kind, file="x.dbf", sequence=7, block=3, offset=16)
    exc = caught.value
    assert exc.kind == kind and type(exc).kind == kind and isinstance(exc, errors.RedoError)
    assert (exc.position.file, exc.position.sequence, exc.position.block, exc.position.offset) == (
        "x.dbf",
        7,
        3,
        16,
    )
    assert exc.details == {"opcode": "11.2"}
    assert str(exc).startswith("x.dbf: RBA 0x000007.00000003.0010")
