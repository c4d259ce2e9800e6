"""``trail.order.CommitOrder``: rows in key order whatever order they come in, with what is held in
memory bounded by the budget (sorted runs on disk, merged a batch at a time); ``CommitStream``: the
same order, released as soon as a watermark says no later row can precede them."""

from __future__ import annotations

import random
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import redo_lib.trail.order as order_module
from redo_lib.dictionary import load_dictionary
from redo_lib.errors import AssemblyError
from redo_lib.pipeline import ORDER_FIELDS, assemble_batches, describe_logs, iter_batch_arrow
from redo_lib.synth import generate
from redo_lib.synth.randomized import random_scenario
from redo_lib.trail.order import CommitOrder, CommitStream, Watermark

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
        "import sys, redo_lib.trail.order as o; o.DEFAULT_BUDGET = o.STREAM_BUDGET = 4096; "
        "from redo_lib.cli import main; sys.exit(main(sys.argv[1:]))"
    )
    spilled = subprocess.run([sys.executable, "-c", script, "decode", *argv], capture_output=True, check=True)
    assert spilled.stdout == whole.stdout and whole.stdout.count(b"\n") > 200
    assert order_module.DEFAULT_BUDGET == 16 << 20  # the subprocess's change stayed there


@settings(max_examples=60, deadline=None)
@given(
    lwns=st.lists(st.lists(st.integers(0, 9), min_size=0, max_size=12), min_size=1, max_size=30),
    cuts=st.lists(st.integers(1, 5), min_size=1, max_size=30),
    budget=st.integers(1, 4_000),
    seed=st.integers(0, 1000),
)
def test_a_stream_releases_what_no_later_commit_can_precede(
    lwns: list[list[int]], cuts: list[int], budget: int, seed: int
) -> None:
    """Commits arrive as the core emits them: LWN after LWN, each commit's SCN in [its LWN's SCN,
    the next LWN's), in any order within an LWN. After each step (a few LWNs) the watermark is the
    SCN of the step's last LWN: every row below it is released then, and the whole comes out sorted."""
    rnd = random.Random(seed)
    lwn_scns = [10 * i for i in range(len(lwns))]
    sent: list[tuple[int, int]] = []
    stream = CommitStream(
        SCHEMA, KEYS, lambda b: sent.extend((r["k1"], r["k2"]) for r in b.to_pylist()), budget=budget
    )
    added: list[tuple[int, int]] = []
    position, lwn = 0, 0
    for cut in cuts * (len(lwns) // len(cuts) + 1):
        if lwn >= len(lwns):
            break
        step = range(lwn, min(lwn + cut, len(lwns)))
        for i in step:
            offsets = list(lwns[i])
            rnd.shuffle(offsets)
            keys = [(lwn_scns[i] + off, position + n) for n, off in enumerate(offsets)]
            position += len(keys)
            added.extend(keys)
            for batch in _batches(keys, rnd.randint(1, 5)):
                stream.add(batch)
        lwn = step[-1] + 1
        mark = Watermark(lwn_scns[step[-1]])
        stream.release(mark.scn)
        below = sorted(k for k in added if k[0] < mark.scn)
        assert sent == below  # all of them, in order, and nothing at or above the mark
    stream.finish()
    assert sent == sorted(added)
    assert stream.released == stream.rows == len(added)


def test_a_commit_below_a_released_bound_is_refused_not_misordered() -> None:
    """A commit the core emits after the rows below a higher SCN went out (a record below its LWN's
    SCN: redo-format §3.3 broken) is a named error: written on, the trail would be out of order."""
    sent: list[tuple[int, int]] = []
    stream = CommitStream(SCHEMA, KEYS, lambda b: sent.extend((r["k1"], r["k2"]) for r in b.to_pylist()))
    stream.add(_batches([(5, 0), (12, 1)], 2)[0])
    stream.release(10)
    assert sent == [(5, 0)]
    stream.add(_batches([(10, 2)], 1)[0])  # at the bound: may still come
    with pytest.raises(AssemblyError, match="SCN 9 .* below SCN 10") as caught:
        stream.add(_batches([(9, 3)], 1)[0])
    assert caught.value.details["k2"] == 3  # the offending row's keys
    stream.finish()
    assert sent == [(5, 0), (10, 2), (12, 1)]


def test_a_commit_below_a_released_bound_names_where_its_commit_is() -> None:
    """With the staged trail's keys, the error names the commit record's log sequence, block and
    offset (and its thread), as every error about the redo does."""
    keys = ("order_scn", "order_thread", "order_seq", "order_block", "order_offset", "order_index")
    schema = pa.schema([(k, pa.int64()) for k in keys])
    stream = CommitStream(schema, keys, lambda b: None)
    row = {"order_thread": 2, "order_seq": 41, "order_block": 1234, "order_offset": 16, "order_index": 0}
    stream.add(pa.RecordBatch.from_pylist([{"order_scn": 20, **row}], schema=schema))
    stream.release(30)
    with pytest.raises(AssemblyError) as caught:
        stream.add(pa.RecordBatch.from_pylist([{"order_scn": 25, **row}], schema=schema))
    position = caught.value.position
    assert (position.sequence, position.block, position.offset) == (41, 1234, 16)
    assert caught.value.details["order_thread"] == 2


@pytest.mark.parametrize(("seed", "threads"), [(8, {1}), (6, {1, 2})], ids=["one-thread", "rac"])
def test_the_decode_sends_rows_before_the_end_of_the_input(
    tmp_path: Path, seed: int, threads: set[int]
) -> None:
    """One thread's logs, and a RAC set's (its threads merged by the core, with the merged
    watermark): the trail reaches the sink while the logs are still being read (the rows of each
    step, not the whole at the end), in the order and with the rows of the whole decode."""
    scenario = random_scenario(
        seed, steps=400, compat="19c", block_size=512, big_endian=False, log_size=64 << 10, direct_load=False
    )  # fmt: skip
    assert {session.thread for session in scenario.sessions} == threads
    result = generate(scenario, tmp_path / "g")
    refs = describe_logs(result.logs)
    assert {ref.thread for ref in refs} == threads
    items = list(iter_batch_arrow(refs, watermarks=True))
    marks = [i for i, item in enumerate(items) if isinstance(item, Watermark)]
    assert len(marks) > 3 and [items[i].scn for i in marks] == sorted(items[i].scn for i in marks)
    # the core's promise (its walk's LWN SCN, redo-format §3.3): no event after a mark is below it
    later = float("inf")
    for item in reversed(items):
        if isinstance(item, Watermark):
            assert later >= item.scn
        else:
            later = min(later, min(item.column("scn").to_pylist()))
    consumed = 0

    def feed() -> Iterator[object]:
        nonlocal consumed
        for item in items:
            consumed += 1
            yield item

    seen: list[int] = []
    rows: list[tuple[int, ...]] = []

    def sink(batch: pa.RecordBatch) -> None:
        seen.append(consumed)
        rows.extend(zip(*(batch.column(k).to_pylist() for k in ORDER_FIELDS), strict=True))

    dictionary = load_dictionary(result.dictionary)
    streamed = assemble_batches(feed(), dictionary, sink=sink)
    assert streamed.trail_count == len(rows) > 100
    assert seen[0] < len(items) / 2  # the first rows went out before half the input was read
    assert rows == sorted(rows)
    # without watermarks: every row held to the end, the same rows in the same order
    whole = assemble_batches((i for i in items if not isinstance(i, Watermark)), dictionary)
    assert whole.commits == [(thread, seq) for _, thread, seq, *_ in rows]
    assert len(whole.trail) == len(rows)
