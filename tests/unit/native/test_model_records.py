"""The Rust core's records as ``format/model.py`` values (``format.native_records``, what ``dump``
and ``stats`` read through) equal the Python reader's, and render to the same dump text."""

from __future__ import annotations

import random
import re
from pathlib import Path

import pytest

from redo_lib.dump.render import V12_2, render_header, render_record
from redo_lib.errors import ErrorPolicy, RedoError
from redo_lib.format import HEADER_PROBE_SIZE, iter_records, parse_log_header
from redo_lib.format.native_records import parse_header, read_records
from redo_lib.report import DecodeReport

from .differential import _Source
from .test_differential import MATRIX, REAL_LOGS, _damaged, _generated


@pytest.fixture(scope="module")
def gen_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("native-model")


def _same(data: bytes, policy: ErrorPolicy = ErrorPolicy.RAISE) -> int:
    try:
        header = parse_log_header(data[:HEADER_PROBE_SIZE], "log")
    except RedoError as exc:  # damage in the header: the core refuses it the same way
        with pytest.raises(type(exc), match=re.escape(exc.message)):
            parse_header(data[:HEADER_PROBE_SIZE], "log")
        return 0
    assert parse_header(data[:HEADER_PROBE_SIZE], "log") == header
    py_report, rs_report = DecodeReport(), DecodeReport()
    try:
        py = list(iter_records(_Source(data, "log"), header, policy=policy, report=py_report))
    except RedoError as exc:  # a cut file under either policy: the same error, no records compared
        with pytest.raises(type(exc), match=re.escape(exc.message)):
            list(read_records(data, policy=policy, name="log"))
        return 0
    rs = list(read_records(data, policy=policy, name="log", report=rs_report))
    assert rs == py
    assert [s.to_dict() for s in rs_report.skipped] == [s.to_dict() for s in py_report.skipped]
    assert rs_report.corrupt_ranges == py_report.corrupt_ranges
    wide = header.compat_version >= V12_2
    text = render_header(header, file_name="log")
    assert render_header(parse_header(data[:HEADER_PROBE_SIZE], "log"), file_name="log") == text
    assert [render_record(r, wide_scn=wide) for r in rs] == [render_record(r, wide_scn=wide) for r in py]
    return len(rs)


@pytest.mark.realdata
@pytest.mark.parametrize("path", REAL_LOGS, ids=lambda p: p.stem)
def test_real_log_model_records_are_the_same(path: Path) -> None:
    if not path.exists():
        pytest.skip(f"real data not available: {path}")
    assert _same(path.read_bytes())


@pytest.mark.parametrize("index", range(len(MATRIX)), ids=lambda i: "-".join(map(str, MATRIX[i][1:])))
def test_generated_model_records_are_the_same(index: int, gen_dir: Path) -> None:
    for log in _generated(f"seed-{index}", gen_dir):
        _same(log.read_bytes())
    data = _generated(f"seed-{index}", gen_dir)[0].read_bytes()
    _same(_damaged(data, random.Random(index), MATRIX[index][2]), ErrorPolicy.SKIP)
