"""Fuzz the Rust reader through its binding with mutated real logs: only a ``RedoError`` may escape
(a Rust panic would arrive as pyo3's PanicException, a BaseException, and fail the test), and the
outcome equals the Python reader's (records, errors, damaged ranges). Bounded: 100 examples.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from redo_lib.errors import ErrorPolicy
from tests.fuzz.test_reader_fuzz import LOGS, mutate, original
from tests.unit.native.differential import assert_same

pytestmark = pytest.mark.realdata
FUZZ = settings(
    max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large]
)


@FUZZ
@given(
    seq=st.sampled_from(sorted(LOGS)),
    edits=st.lists(st.tuples(st.floats(0, 1), st.integers(0, 255)), min_size=1, max_size=12),
    repair=st.booleans(),
    cut=st.none() | st.floats(0, 1),
    first=st.integers(0, 700),
    span=st.none() | st.integers(1, 700),
    policy=st.sampled_from(list(ErrorPolicy)),
)
def test_mutated_logs_read_the_same_in_rust_and_raise_only_redo_errors(
    seq: int,
    edits: list[tuple[float, int]],
    repair: bool,
    cut: float | None,
    first: int,
    span: int | None,
    policy: ErrorPolicy,
) -> None:
    data = mutate(original(seq), edits, repair, cut)
    assert_same(data, first, None if span is None else first + span, policy, name="fuzz.dbf")
