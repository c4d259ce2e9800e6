"""The Rust reader gives exactly the Python reader's records, vectors, op bodies and errors.

Inputs: both real 23.6 logs (read in place), every named scenario of include/scenarios, random
seeds across LE/BE, 512/1024/4096-byte blocks and 11.2/19c/23ai compat (a quick matrix here, more
seeds with ``-m slow``), block-range splits, and deterministic byte damage under both policies.
"""

from __future__ import annotations

import random
from functools import cache
from pathlib import Path

import pytest

from redo_lib.errors import ErrorPolicy, RedoError
from redo_lib.format.blocks import write_checksum
from redo_lib.synth import generate, load_scenario, random_scenario

from .differential import assert_same, python_side, rust_side

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


@pytest.mark.realdata
@pytest.mark.parametrize("path", REAL_LOGS, ids=lambda p: p.stem)
def test_real_log_reads_the_same(path: Path) -> None:
    if not path.exists():
        pytest.skip(f"real data not available: {path}")
    data = path.read_bytes()
    got = assert_same(data, name=path.name)
    assert got["records"] and got["error"] is None


@pytest.mark.realdata
def test_real_log_block_ranges_read_the_same_and_split_exactly() -> None:
    path = REAL_LOGS[0]
    if not path.exists():
        pytest.skip(f"real data not available: {path}")
    data = path.read_bytes()
    whole = rust_side(data, name=path.name)["records"]
    parts = []
    for first in range(2, 600, 37):
        parts += assert_same(data, first, first + 37, name=path.name)["records"]
    assert [r["rba"] for r in parts] == [r["rba"] for r in whole]


@cache
def _generated(key: str, tmp: Path) -> list[Path]:
    if key.startswith("seed-"):
        seed, compat, block, big = MATRIX[int(key[5:])]
        scenario = random_scenario(seed, steps=100, compat=compat, block_size=block, big_endian=big)
    elif key.startswith("slow-"):
        scenario = random_scenario(int(key[5:]), steps=150)
    else:
        scenario = load_scenario(REPO / "include" / "scenarios" / f"{key}.yaml")
    return list(generate(scenario, tmp / key, record_steps=False).logs)


@pytest.fixture(scope="module")
def gen_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("native-diff")


@pytest.mark.parametrize("name", [p.stem for p in SCENARIOS])
def test_named_scenario_reads_the_same(name: str, gen_dir: Path) -> None:
    for log in _generated(name, gen_dir):
        assert_same(log.read_bytes(), name=log.name)


@pytest.mark.parametrize("index", range(len(MATRIX)), ids=lambda i: "-".join(map(str, MATRIX[i][1:])))
def test_random_seed_reads_the_same(index: int, gen_dir: Path) -> None:
    logs = _generated(f"seed-{index}", gen_dir)
    for log in logs:
        data = log.read_bytes()
        assert_same(data, name=log.name)
        blocks = len(data) // MATRIX[index][2]
        cut = random.Random(index).randrange(3, max(blocks, 4))
        assert_same(data, 2, cut, name=log.name)
        assert_same(data, cut, None, name=log.name)


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(100, 400))
def test_random_seed_reads_the_same_slow(seed: int, tmp_path: Path) -> None:
    for log in generate(random_scenario(seed, steps=150), tmp_path, record_steps=False).logs:
        assert_same(log.read_bytes(), name=log.name)


def _damaged(data: bytes, rnd: random.Random, block_size: int) -> bytes:
    """A few bytes overwritten; half of the time the block checksums repaired (so the damage
    reaches the record, vector and op parsers), sometimes the file cut."""
    buf = bytearray(data)
    for _ in range(rnd.randint(1, 8)):
        buf[rnd.randrange(len(buf))] = rnd.randrange(256)
    if rnd.random() < 0.5:
        write_checksum(memoryview(buf)[:block_size], at=16)  # type: ignore[arg-type]
        for start in range(block_size, len(buf) - block_size + 1, block_size):
            block = bytearray(buf[start : start + block_size])
            write_checksum(block)
            buf[start : start + block_size] = block
    if rnd.random() < 0.2:
        del buf[rnd.randrange(len(buf)) :]
    return bytes(buf)


@pytest.mark.parametrize("policy", list(ErrorPolicy), ids=lambda p: p.name)
@pytest.mark.parametrize("case", range(40))
def test_damaged_logs_fail_the_same_way(case: int, policy: ErrorPolicy, gen_dir: Path) -> None:
    rnd = random.Random(case)
    if case % 2 and REAL_LOGS[0].exists():
        data, block_size = REAL_LOGS[case % 4 // 2].read_bytes(), 512
    else:
        index = case % len(MATRIX)
        data, block_size = _generated(f"seed-{index}", gen_dir)[0].read_bytes(), MATRIX[index][2]
    damaged = _damaged(data, rnd, block_size)
    first = rnd.choice([2, 2, rnd.randrange(0, max(len(damaged) // block_size, 1) + 3)])
    last = rnd.choice([None, first + rnd.randrange(1, 200)])
    assert_same(damaged, first, last, policy, name="damaged.dbf")


def test_not_a_log_fails_the_same_way() -> None:
    for data in (b"", b"\0" * 31, b"\1" * 600, b"\0" * 28 + b"\x7d\x7c\x7b\x7a" + b"\0" * 600):
        py, rs = python_side(data), rust_side(data)
        assert py["error"] is not None and py["error"] == rs["error"]


@pytest.mark.parametrize(
    "kind", ["format", "checksum", "block_header", "truncated", "unsupported_format", "value"]
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
