"""RAC: the redo threads merged by the core (``native.ThreadMerge``, driven by
``pipeline.merge_threads``) exactly as ``heapq.merge`` merges the ``ChangeEvent`` s on their
``sort_key``, with merged watermarks that are never too high; and the RAC decode's trail, byte for
byte, that of the events merged by ``heapq.merge`` (the single-process path before the core merged).
Expected orders come from plain Python over the same events, never from the code under test."""

from __future__ import annotations

import heapq
import random
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import redo_lib.pipeline as pipeline
from redo_lib.assembly.events import ChangeEvent, EventKind, events_from_arrow, events_schema
from redo_lib.dictionary import load_dictionary
from redo_lib.errors import AssemblyError, RedoError
from redo_lib.native import native
from redo_lib.pipeline import (
    assemble_batches,
    decode_range_arrow,
    describe_logs,
    events_to_arrow,
    iter_batch_arrow,
    merge_threads,
)
from redo_lib.synth import generate
from redo_lib.synth.randomized import random_scenario
from redo_lib.trail.order import Watermark

EVENT = {f.name: 0 for f in events_schema() if not pa.types.is_list(f.type) and f.nullable is False}
EVENT["kind"] = int(EventKind.CHANGE)


def _events(rows: list[dict[str, Any]]) -> pa.RecordBatch:
    return pa.RecordBatch.from_pylist([{**EVENT, **r} for r in rows], schema=events_schema())


def _redo(thread: int, n: int, rng: random.Random) -> list[dict[str, Any]]:
    """``n`` events of one thread in redo order (block, offset rising); the SCN mostly rises, steps
    back now and then (the records of one LWN) and repeats (ties with the other threads)."""
    scn, out = 1000, []
    for i in range(n):
        scn += rng.choice([0, 0, 1, 1, 2, 5])
        dip = rng.randint(1, 6) if rng.random() < 0.15 else 0
        out.append({"thread": thread, "seq": 1, "block": 2 + i // 4, "offset": 16 + (i % 4) * 40, "vector": 1,
                    "scn": scn - dip, "subscn": rng.randint(0, 2)})  # fmt: skip
    return out


def _stream(rows: list[dict[str, Any]], rng: random.Random) -> Iterator[Any]:
    """A thread's rows in batches of random sizes, each batch followed (mostly) by a watermark: the
    lowest SCN of the rows after it, or lower."""
    at = 0
    while at < len(rows):
        end = min(len(rows), at + rng.randint(1, 40))
        yield _events(rows[at:end])
        at = end
        if at < len(rows) and rng.random() < 0.7:
            yield Watermark(min(r["scn"] for r in rows[at:]) - rng.choice([0, 0, 3]))


def _merged(items: Sequence[Any]) -> tuple[list[ChangeEvent], list[int]]:
    """The events of a merged stream, and its watermarks; every event after a watermark is at or
    above it, and the watermarks rise."""
    events: list[ChangeEvent] = []
    marks: list[int] = []
    for item in items:
        if isinstance(item, Watermark):
            assert not marks or item.scn > marks[-1]
            marks.append(item.scn)
            continue
        for event in events_from_arrow(item):
            assert not marks or event.scn >= marks[-1], (event.scn, marks[-1])
            events.append(event)
    return events, marks


@settings(max_examples=80, deadline=None)
@given(seed=st.integers(0, 10**6), threads=st.integers(2, 4), chunk=st.integers(1, 64))
def test_the_core_merges_threads_as_heapq_merges_the_events(seed: int, threads: int, chunk: int) -> None:
    rng = random.Random(seed)
    per_thread = {t: _redo(t, rng.randint(0, 150), rng) for t in range(1, threads + 1)}
    expected = heapq.merge(
        *(list(events_from_arrow(_events(rows))) if rows else [] for rows in per_thread.values()),
        key=lambda e: e.sort_key,
    )
    items = list(merge_threads({t: _stream(rows, rng) for t, rows in per_thread.items()}, chunk=chunk))
    events, _ = _merged(items)
    assert [e.sort_key for e in events] == [e.sort_key for e in expected]
    assert all(item.num_rows <= chunk for item in items if not isinstance(item, Watermark))


def test_no_watermark_while_a_thread_gave_none() -> None:
    rng = random.Random(3)
    one, two = _redo(1, 100, rng), _redo(2, 100, rng)
    plain = (_events(two[i : i + 10]) for i in range(0, 100, 10))
    items = list(merge_threads({1: _stream(one, rng), 2: plain}))
    assert not any(isinstance(item, Watermark) for item in items)
    assert len(_merged(items)[0]) == 200


def test_the_merge_holds_about_a_batch_per_thread() -> None:
    rng = random.Random(4)
    rows = {t: _redo(t, 3000, rng) for t in (1, 2, 3)}
    merge = native.ThreadMerge([1, 2, 3])
    streams = {t: (_events(r[i : i + 50]) for i in range(0, len(r), 50)) for t, r in rows.items()}
    out = 0
    while (thread := merge.wanted()) is not None:
        batch = next(streams[thread], None)
        if batch is None:
            merge.finish(thread)
        else:
            merge.push(thread, batch)
        assert merge.held <= 3 * 50
        out += sum(len(b) for b in merge.take()[0])
    assert out == 9000


@pytest.mark.parametrize(
    ("call", "match"),
    [
        (lambda m: m.push(3, _events([{"thread": 3}])), "thread 3 is not one of the merge's"),
        (lambda m: m.watermark(7, 10), "thread 7 is not one of the merge's"),
        (lambda m: m.push(1, pa.record_batch({"scn": [1]})), "not of the events schema"),
        (lambda m: (m.finish(2), m.push(2, _events([{"thread": 2}]))), "thread 2 was finished"),
    ],
    ids=["unknown-thread", "unknown-thread-watermark", "wrong-schema", "finished-thread"],
)
def test_bad_input_is_a_named_error(call: Any, match: str) -> None:
    merge = native.ThreadMerge([1, 2])
    with pytest.raises(AssemblyError, match=match) as caught:
        call(merge)
    assert isinstance(caught.value, RedoError)


def test_parquet_batches_merge_but_not_mixed_with_arrow_ones(tmp_path: Path) -> None:
    """Parquet names list items ``element`` (Arrow: ``item``): batches read back from Parquet (the
    Spark assemble tasks') merge among themselves; one of the other naming among them is refused."""
    import pyarrow.parquet as pq

    rng = random.Random(5)
    rows = {t: _redo(t, 30, rng) for t in (1, 2)}
    for t, r in rows.items():
        pq.write_table(pa.Table.from_batches([_events(r)]), tmp_path / f"{t}.parquet")
    read = {t: pq.read_table(tmp_path / f"{t}.parquet").to_batches() for t in rows}
    assert pa.types.is_list(read[1][0].schema.field("before").type)
    assert read[1][0].schema.field("before").type.value_field.name == "element"
    events, _ = _merged(list(merge_threads(read)))
    assert len(events) == 60
    merge = native.ThreadMerge([1, 2])
    merge.push(1, read[1][0])
    with pytest.raises(AssemblyError, match="not of the events schema"):
        merge.push(2, _events(rows[2]))


def test_a_thread_twice_is_a_named_error() -> None:
    with pytest.raises(AssemblyError, match="thread 1 given twice"):
        native.ThreadMerge([1, 2, 1])


# --- the RAC decode -------------------------------------------------------------------------------


def _heapq_batches(refs: Sequence[pipeline.LogRef]) -> Iterator[Any]:
    """The RAC decode's events as the single-process path merged them before the core did: every
    thread's events as ``ChangeEvent`` s, ``heapq.merge`` d on their ``sort_key``, back to Arrow."""
    threads: dict[int, list[pipeline.LogRef]] = {}
    for ref in refs:
        threads.setdefault(ref.thread, []).append(ref)
    streams = [
        [e for ref in logs for batch in decode_range_arrow(ref.location) for e in events_from_arrow(batch)]
        for _, logs in sorted(threads.items())
    ]
    return events_to_arrow(heapq.merge(*streams, key=lambda e: e.sort_key))


def _jsonl(batches: Iterator[Any], dictionary: Any) -> tuple[bytes, list[int]]:
    """The trail as the decode command writes it (``native.render_jsonl``), and how many input
    items had been read when each of its batches went out."""
    out: list[bytes] = []
    seen: list[int] = []
    read = 0

    def counted() -> Iterator[Any]:
        nonlocal read
        for item in batches:
            read += 1
            yield item

    def sink(batch: Any) -> None:
        seen.append(read)
        out.append(native.render_jsonl(batch))

    assemble_batches(counted(), dictionary, sink=sink)
    return b"".join(out), seen


@pytest.fixture(scope="module", params=[12, 17, 22])
def rac_set(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> tuple[list[Any], Path]:
    out = tmp_path_factory.mktemp(f"rac{request.param}")
    result = generate(random_scenario(request.param), out, record_steps=False)
    refs = describe_logs(result.logs)
    assert {ref.thread for ref in refs} == {1, 2}  # these seeds draw two threads, both with logs
    return refs, result.dictionary


@pytest.mark.parametrize("step", [pipeline.SINGLE_STEP_BYTES, 32 << 10], ids=["step-8MB", "step-32KB"])
def test_the_rac_trail_is_byte_identical_to_the_heapq_merge(
    rac_set: tuple[list[Any], Path], step: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    refs, dictionary_path = rac_set
    dictionary = load_dictionary(dictionary_path)
    expected, _ = _jsonl(_heapq_batches(refs), dictionary)
    monkeypatch.setattr(pipeline, "SINGLE_STEP_BYTES", step)
    monkeypatch.setattr(pipeline, "MIN_STEP_BYTES", 4 << 10)  # 16 KB per thread: many steps
    items = list(iter_batch_arrow(refs, watermarks=True))
    _merged(items)  # no event below a watermark before it
    got, seen = _jsonl(iter(items), dictionary)
    assert got == expected and got.count(b"\n") > 100
    if step < pipeline.SINGLE_STEP_BYTES:  # many steps: the trail goes out as the logs are read
        assert seen[0] < len(items) / 2


def test_a_rac_sets_dumps_give_the_trail_of_its_logs(rac_set: tuple[list[Any], Path], tmp_path: Path) -> None:
    """The dump-text input merges its threads with the same merge: the logs' dumps (``dump``,
    given in reverse order) decode to the logs' trail."""
    import io

    from redo_lib.cli import cmd_dump
    from redo_lib.pipeline import decode_dumps, decode_logs

    refs, dictionary = rac_set
    dumps = []
    for ref in refs:
        out = io.StringIO()
        assert cmd_dump([ref.location], out) == 0
        dumps.append(tmp_path / f"{Path(ref.location).stem}.txt")
        dumps[-1].write_text(out.getvalue())
    from_logs = [r.to_dict() for r in decode_logs([ref.location for ref in refs], dictionary).trail]
    from_dumps = [r.to_dict() for r in decode_dumps(dumps[::-1], dictionary).trail]
    assert from_dumps == from_logs and len(from_logs) > 100
