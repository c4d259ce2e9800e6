"""The Rust transaction table on impossible event streams: random events over a few (usn, slot)
keys, and generated workloads shuffled and truncated, cut into carried batches, under both error
policies. Never a panic (a ``pyo3_runtime.PanicException`` would fail the test as it is no
``RedoError``); always what the Python table gives, or the same named error at the same position
(``assembled.py``)."""

from __future__ import annotations

import datetime as dt
import random
from functools import cache
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from redo_lib.assembly.events import ChangeEvent, EventKind
from redo_lib.batches import event_from_row, event_to_row
from redo_lib.errors import ErrorPolicy
from redo_lib.synth import generate, load_scenario, random_scenario

from .assembled import assert_same, rows_in_redo_order, run_python, run_rust, split

REPO = Path(__file__).resolve().parents[3]
T0 = dt.datetime(2024, 5, 1)
OPS = [0, 0x0B02, 0x0B03, 0x0B05, 0x0B06, 0x0B0B, 0x0B0C, 0x0B10, 0x0B16, 0x1301, 0x1A02]


@st.composite
def events(draw: st.DrawFn) -> list[dict[str, Any]]:
    """Random events over two usn x two slots x three sqns (partial rollbacks without a sqn)."""
    out = []
    for n in range(draw(st.integers(0, 40))):
        kind = draw(st.sampled_from(list(EventKind)))
        fields: dict[str, Any] = {}
        if kind in (EventKind.CHANGE, EventKind.PARTIAL_ROLLBACK, EventKind.LOB, EventKind.DDL):
            fields = {
                "redo_op": draw(st.sampled_from(OPS)),
                "obj": draw(st.integers(0, 2)),
                "dataobj": draw(st.integers(0, 2)),
                "fb": draw(st.sampled_from([0, 0x80])),
                "supp_fb": draw(st.sampled_from([None, 0x04, 0x08, 0x0C, 0x8C])),
                "rows": tuple((i, (b"r",)) for i in range(draw(st.integers(0, 2)))),
                "after": ((0, draw(st.sampled_from([None, b"", b"x"]))),),
            }
        if kind is EventKind.LOB:
            fields["lob_data"] = draw(st.binary(max_size=8))
        out.append(
            event_to_row(
                ChangeEvent(
                    kind=kind,
                    usn=draw(st.integers(1, 2)),
                    slot=draw(st.integers(1, 2)),
                    sqn=-1 if kind is EventKind.PARTIAL_ROLLBACK else draw(st.integers(1, 3)),
                    thread=1 + n % 2,
                    seq=3,
                    block=2 + n,
                    offset=16,
                    scn=draw(st.integers(100, 110)),
                    subscn=0,
                    vector=draw(st.integers(0, 2)),
                    time=T0 + dt.timedelta(seconds=n),
                    **fields,
                )
            )
        )
    return out


def _compare(
    batches: list[list[dict[str, Any]]], policy: ErrorPolicy, memory_limit: int, hold: list[Any]
) -> None:
    options: dict[str, Any] = {"policy": policy, "memory_limit": memory_limit, "hold_from": hold}
    assert_same(run_python(batches, **options), run_rust(batches, chunk=3, **options))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    rows=events(),
    cuts=st.lists(st.integers(0, 40), max_size=2),
    policy=st.sampled_from(list(ErrorPolicy)),
    memory_limit=st.sampled_from([2, 3, 50_000]),
    holds=st.lists(st.one_of(st.none(), st.integers(100, 111)), min_size=3, max_size=3),
)
def test_random_streams(
    rows: list[dict[str, Any]], cuts: list[int], policy: ErrorPolicy, memory_limit: int, holds: list[Any]
) -> None:
    batches = split(rows, [min(c, len(rows)) for c in cuts])
    _compare(batches, policy, memory_limit, [*holds[: len(batches) - 1], None])


@cache
def _workload() -> tuple[dict[str, Any], ...]:
    """A RAC two-thread scenario and a random seed with savepoints, generated and decoded once."""
    import tempfile

    from redo_lib.pipeline import decode_range_arrow

    out = Path(tempfile.mkdtemp(prefix="rt-hypothesis-"))
    rows: list[dict[str, Any]] = []
    for name, scenario in (
        ("rac", load_scenario(REPO / "include" / "scenarios" / "rac_two_threads.yaml")),
        ("savepoints", load_scenario(REPO / "include" / "scenarios" / "savepoints.yaml")),
        ("seed", random_scenario(3, steps=60)),
    ):
        result = generate(scenario, out / name, record_steps=False)
        events = [
            event_from_row(r)
            for log in result.logs
            for b in decode_range_arrow(str(log))
            for r in b.to_pylist()
        ]
        rows.extend(rows_in_redo_order(events))
    return tuple(rows)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.integers(0, 2**32 - 1),
    keep=st.floats(0.0, 1.0),
    swaps=st.integers(0, 30),
    policy=st.sampled_from(list(ErrorPolicy)),
    memory_limit=st.sampled_from([2, 4, 50_000]),
)
def test_shuffled_and_truncated_workloads(
    seed: int, keep: float, swaps: int, policy: ErrorPolicy, memory_limit: int
) -> None:
    rnd = random.Random(seed)
    rows = list(_workload())
    start = rnd.randrange(len(rows))
    rows = rows[start : start + int(len(rows) * keep)]  # truncated at both ends
    for _ in range(swaps):  # shuffled a little (whole-stream shuffles are mostly orphans)
        if len(rows) > 1:
            i, j = rnd.randrange(len(rows)), rnd.randrange(len(rows))
            rows[i], rows[j] = rows[j], rows[i]
    if rnd.random() < 0.2:
        rnd.shuffle(rows)
    cuts = sorted(rnd.sample(range(len(rows) + 1), min(2, len(rows) + 1)))
    batches = split(rows, cuts)
    holds = [rows[min(c, len(rows) - 1)]["scn"] if rows and rnd.random() < 0.5 else None for c in cuts]
    _compare(batches, policy, memory_limit, [*holds, None])
