"""``trail.order.CommitOrder``: rows in key order whatever order they come in, with what is held in
memory bounded by the budget (sorted runs on disk, merged a batch at a time)."""

from __future__ import annotations

import random
import subprocess
import sys
from pathlib import Path

import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import redo_lib.trail.order as order_module
from redo_lib.synth import generate
from redo_lib.synth.randomized import random_scenario
from redo_lib.trail.order import CommitOrder

KEYS = ("k1", "k2")
SCHEMA = pa.schema([pa.field("k1", pa.int64()), pa.field("k2", pa.int64()), pa.field("v", pa.string())])
REPO = Path(__file__).resolve().parents[3]


def _batches(keys: list[tuple[int, int]], size: int) -> list[pa.RecordBatch]:
    out = []
    for i in range(0, len(keys), size):
        part = keys[i : i + size]
        out.append(
            pa.RecordBatch.from_pylist([{"k1": a, "k2": b, "v": f"{a}.{b}"} for a, b in part], schema=SCHEMA)
        )
    return out


def _drain(order: CommitOrder) -> list[tuple[int, int]]:
    rows = []
    for batch in order.batches(chunk=37):
        assert batch.num_rows <= 37
        rows.extend((r["k1"], r["k2"]) for r in batch.to_pylist())
        assert all(r["v"] == f"{r['k1']}.{r['k2']}" for r in batch.to_pylist())  # rows stay whole
    return rows


@settings(max_examples=60, deadline=None)
@given(
    keys=st.lists(st.tuples(st.integers(0, 50), st.integers(0, 1000)), unique=True, max_size=400),
    size=st.integers(1, 64),
    budget=st.integers(1, 20_000),
)
def test_any_order_comes_out_sorted(keys: list[tuple[int, int]], size: int, budget: int) -> None:
    order = CommitOrder(SCHEMA, KEYS, budget=budget)
    for batch in _batches(keys, size):
        order.add(batch)
    assert order.rows == len(keys)
    assert _drain(order) == sorted(keys)


def test_nearly_sorted_input_makes_few_runs_and_leaves_no_file() -> None:
    """As the core emits: commit order but for swaps inside a small window (one redo write)."""
    rnd = random.Random(5)
    keys = [(i, 0) for i in range(20_000)]
    for i in range(0, len(keys) - 4, 50):  # a few neighbours out of order
        j = i + rnd.randrange(1, 4)
        keys[i], keys[j] = keys[j], keys[i]
    for b in range(500, len(keys) - 2, 500):  # and across the batches, so across the buffers
        keys[b - 1], keys[b + 1] = keys[b + 1], keys[b - 1]
    order = CommitOrder(SCHEMA, KEYS, budget=64 << 10)
    for batch in _batches(keys, 500):
        order.add(batch)
    assert order.runs_written >= 5  # the buffer went to disk again and again
    runs = list(order._runs)  # how many runs the spills made
    assert 1 < len(runs) <= 3
    folder = Path(runs[0].path).parent
    assert _drain(order) == sorted(keys)
    assert not folder.exists()


def test_the_decode_command_spills_and_merges_to_the_same_trail(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """A random scenario (RAC threads, LOBs, DDL) decoded with a budget of a few KB (its trail spilled in many runs) writes the same
    JSON lines as with the default budget (all in memory)."""
    scenario = random_scenario(3, steps=300, compat="19c", block_size=512, big_endian=False, log_size=64 << 10,
                               direct_load=False)  # fmt: skip
    result = generate(scenario, tmp_path / "g")
    argv = [*map(str, result.logs), "--dictionary", str(result.dictionary)]
    whole = subprocess.run(
        [sys.executable, "-m", "redo_lib", "decode", *argv], capture_output=True, check=True
    )
    script = (
        "import sys, redo_lib.trail.order as o; o.DEFAULT_BUDGET = 4096; "
        "from redo_lib.cli import main; sys.exit(main(sys.argv[1:]))"
    )
    spilled = subprocess.run([sys.executable, "-c", script, "decode", *argv], capture_output=True, check=True)
    assert spilled.stdout == whole.stdout and whole.stdout.count(b"\n") > 200
    assert order_module.DEFAULT_BUDGET == 16 << 20  # the subprocess's change stayed there
