"""The differential harness: the Rust reader (``redo_lib._native``) against the Python reader
(``redo_lib.format``, the oracle until the Python reader is removed, issue 15).

Both sides are brought to one plain shape: every dataclass of ``format/model.py`` becomes a dict of
its fields plus ``"__type__"`` (the Rust binding builds the same dicts), ``Xid``/``Uba``/``Rba``
lists, tuples lists, datetimes raw redo times (§3.5). Errors compare by class, message, position and
details; under ``ErrorPolicy.SKIP`` the skipped errors and the corrupt ranges compare too.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
from typing import Any

from redo_lib.errors import ErrorPolicy, RedoError
from redo_lib.format import HEADER_PROBE_SIZE, encode_redo_time, iter_records, parse_log_header
from redo_lib.native import native
from redo_lib.report import DecodeReport
from redo_lib.scn import Rba, Uba, Xid


def plain(obj: Any) -> Any:
    """The common shape of a model value (see the module doc)."""
    if obj is None or isinstance(obj, bool | str | float):
        return obj
    if isinstance(obj, int):
        return int(obj)  # IntEnum / IntFlag too
    if isinstance(obj, bytes | bytearray | memoryview):
        return bytes(obj)
    if isinstance(obj, dt.datetime):
        return encode_redo_time(obj)
    if isinstance(obj, Xid | Uba | Rba):
        return [plain(getattr(obj, f.name)) for f in dataclasses.fields(obj)]
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        out = {"__type__": type(obj).__name__}
        out.update({f.name: plain(getattr(obj, f.name)) for f in dataclasses.fields(obj)})
        return out
    if isinstance(obj, tuple | list):
        return [plain(x) for x in obj]
    if isinstance(obj, dict):
        return {k: plain(v) for k, v in obj.items()}
    raise TypeError(f"no plain form for {type(obj).__name__}")


def error_shape(exc: RedoError) -> dict[str, Any]:
    return {
        "class": type(exc).__name__,
        "message": exc.message,
        "position": dataclasses.asdict(exc.position),
        "details": plain(exc.details),
    }


class _Source:
    def __init__(self, data: bytes, name: str) -> None:
        self.data, self.name, self.size = data, name, len(data)

    def read(self, offset: int, size: int) -> bytes:
        return self.data[offset : offset + size]


def python_side(
    data: bytes,
    first: int = 2,
    last: int | None = None,
    policy: ErrorPolicy = ErrorPolicy.RAISE,
    name: str = "log",
) -> dict[str, Any]:
    """Records, damage and the error (if any) of the Python reader, in the plain shape."""
    report = DecodeReport()
    records: list[Any] = []
    error = None
    try:
        header = parse_log_header(data[:HEADER_PROBE_SIZE], name)
        for record in iter_records(_Source(data, name), header, first, last, policy=policy, report=report):
            records.append(plain(record))
    except RedoError as exc:
        error = error_shape(exc)
    return {
        "records": records,
        "error": error,
        "skipped": [
            {"kind": s.kind, "message": s.message, "position": dataclasses.asdict(s.position)}
            for s in report.skipped
        ],
        "corrupt_ranges": [dataclasses.asdict(c) for c in report.corrupt_ranges],
    }


def rust_side(
    data: bytes,
    first: int = 2,
    last: int | None = None,
    policy: ErrorPolicy = ErrorPolicy.RAISE,
    name: str = "log",
) -> dict[str, Any]:
    """The same through ``redo_lib._native.read_records``. An error leaves no records (the Rust call
    returns all or raises): the comparison then looks at the error only."""
    records: list[Any] = []
    skipped: list[Any] = []
    ranges: list[Any] = []
    error = None
    try:
        got, damage = native.read_records(data, first, last, policy.value, name)
        records = plain(got)
        skipped = [
            {"kind": e.kind, "message": e.message, "position": dataclasses.asdict(e.position)}
            for e in damage["skipped"]
        ]
        ranges = [{k: v for k, v in r.items() if k != "__type__"} for r in damage["corrupt_ranges"]]
    except RedoError as exc:
        error = error_shape(exc)
    return {"records": records, "error": error, "skipped": skipped, "corrupt_ranges": ranges}


def first_difference(a: Any, b: Any, path: str = "") -> str | None:
    """Where two plain values first differ (a readable path), or None."""
    if type(a) is not type(b):
        return f"{path}: {type(a).__name__} {a!r:.200} != {type(b).__name__} {b!r:.200}"
    if isinstance(a, dict):
        for key in sorted(set(a) | set(b), key=str):
            if key not in a or key not in b:
                return f"{path}.{key}: only on one side"
            found = first_difference(a[key], b[key], f"{path}.{key}")
            if found:
                return found
        return None
    if isinstance(a, list):
        for i, (x, y) in enumerate(zip(a, b, strict=False)):
            found = first_difference(x, y, f"{path}[{i}]")
            if found:
                return found
        if len(a) != len(b):
            return f"{path}: {len(a)} items != {len(b)} items"
        return None
    return None if a == b else f"{path}: {a!r:.200} != {b!r:.200}"


def assert_same(
    data: bytes,
    first: int = 2,
    last: int | None = None,
    policy: ErrorPolicy = ErrorPolicy.RAISE,
    name: str = "log",
) -> dict[str, Any]:
    """Rust == Python on one input and range; returns the Python side."""
    py = python_side(data, first, last, policy, name)
    rs = rust_side(data, first, last, policy, name)
    if py["error"] is not None:  # Python yields records (and counts damage) before it raises; Rust
        py = {**py, "records": [], "skipped": [], "corrupt_ranges": []}  # raises at once
    diff = first_difference(py, rs)
    assert diff is None, f"{name} [{first}, {last}) {policy.name}: python != rust at {diff}"
    return py


# ---------------------------------------------------------------------------------------------
# Change events: Python reader + assembly.events against the Rust core's Arrow batches


def python_events(
    data: bytes, first: int = 2, last: int | None = None, policy: ErrorPolicy = ErrorPolicy.RAISE,
    name: str = "log",
) -> dict[str, Any]:  # fmt: skip
    """Events (as Arrow rows), the report and the row-change counts of the Python reader."""
    from collections import Counter

    from redo_lib.assembly.events import iter_events
    from redo_lib.assembly.rows import count_row_change
    from redo_lib.batches import event_to_row

    report = DecodeReport()
    rows: list[Any] = []
    decoded: Counter[tuple[int, str]] = Counter()
    error = None
    try:
        header = parse_log_header(data[:HEADER_PROBE_SIZE], name)
        for record in iter_records(_Source(data, name), header, first, last, policy=policy, report=report):
            for event in iter_events(record):
                count_row_change(decoded, event)
                rows.append(event_to_row(event))
    except RedoError as exc:
        error = error_shape(exc)
        rows, decoded, report = [], Counter(), DecodeReport()
    return {"events": rows, "report": report.to_dict(), "decoded": sorted(decoded.items()), "error": error}


def rust_events(
    data: bytes, first: int = 2, last: int | None = None, policy: ErrorPolicy = ErrorPolicy.RAISE,
    name: str = "log", tail_bytes: int | None = None, step_bytes: int | None = None,
) -> dict[str, Any]:  # fmt: skip
    """The same through ``pipeline.decode_range_arrow`` (windowed reads, the Rust core, Arrow)."""
    from collections import Counter

    import pyarrow as pa

    from redo_lib.batches import events_schema
    from redo_lib.pipeline import STEP_BYTES, TAIL_BYTES, decode_range_arrow

    report = DecodeReport()
    decoded: Counter[tuple[int, str]] = Counter()
    rows: list[Any] = []
    error = None
    try:
        batches = list(
            decode_range_arrow(
                _Source(data, name),
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
    except RedoError as exc:
        error = error_shape(exc)
        rows, decoded, report = [], Counter(), DecodeReport()
    return {"events": rows, "report": report.to_dict(), "decoded": sorted(decoded.items()), "error": error}


def assert_same_events(
    data: bytes, first: int = 2, last: int | None = None, policy: ErrorPolicy = ErrorPolicy.RAISE,
    name: str = "log", tail_bytes: int | None = None, step_bytes: int | None = None,
) -> dict[str, Any]:  # fmt: skip
    """Rust == Python on the events, the report and the row changes of one input and range."""
    py = python_events(data, first, last, policy, name)
    rs = rust_events(data, first, last, policy, name, tail_bytes, step_bytes)
    diff = first_difference(py, rs)
    assert diff is None, f"{name} [{first}, {last}) {policy.name}: python != rust at {diff}"
    return py
