"""Redo records read by the Rust core, as the frozen values of ``format/model.py``.

The binding (``redo_lib._native.read_records``) hands each record over as plain dicts, one per
model dataclass with its fields and ``"__type__"`` (``crates/redo-py/src/convert.rs``); this module
turns them back into the model, led by the dataclasses' own field types: ``Xid``/``Uba``/``Rba``
from their parts, times from raw redo time (§3.5), tuples of their item types, op bodies by
``"__type__"``. What needs the model (the ``dump`` renderer, tools) reads through here; the
decode path does not (events come as Arrow, ``pipeline.decode_range_arrow``).

Layer 1: imports layer 0 (errors, report, native, scn) and its own package.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import types
import typing
from collections.abc import Iterator
from functools import cache
from typing import Any

from redo_lib import scn
from redo_lib.errors import ErrorPolicy
from redo_lib.format import model
from redo_lib.format.layout import decode_redo_time
from redo_lib.report import DecodeReport

_CLASSES = {
    name: cls for name, cls in vars(model).items() if isinstance(cls, type) and dataclasses.is_dataclass(cls)
}
_PARTS = (scn.Xid, scn.Uba, scn.Rba)


@cache
def _hints(cls: type) -> dict[str, Any]:
    return typing.get_type_hints(cls, vars(model))


def _value(value: Any, hint: Any) -> Any:
    if value is None:
        return None
    if isinstance(value, dict):
        cls = _CLASSES[value["__type__"]]
        hints = _hints(cls)
        return cls(**{f.name: _value(value[f.name], hints[f.name]) for f in dataclasses.fields(cls)})
    origin = typing.get_origin(hint)
    if origin in (typing.Union, types.UnionType):
        for arg in typing.get_args(hint):
            if arg is not type(None):
                return _value(value, arg)
    if hint in _PARTS:
        return hint(*value)
    if hint is dt.datetime:
        return decode_redo_time(value)
    if origin is tuple:
        args = typing.get_args(hint)
        if len(args) == 2 and args[1] is Ellipsis:
            return tuple(_value(v, args[0]) for v in value)
        return tuple(_value(v, a) for v, a in zip(value, args, strict=True))
    return value


def record_of(plain: dict[str, Any]) -> model.RedoRecord:
    """One record dict of the binding as a ``RedoRecord``."""
    record = _value(plain, model.RedoRecord)
    assert isinstance(record, model.RedoRecord)
    return record


def header_of(plain: dict[str, Any]) -> model.LogHeader:
    header = _value(plain, model.LogHeader)
    assert isinstance(header, model.LogHeader)
    return header


def parse_header(data: bytes, name: str | None = None) -> model.LogHeader:
    """Blocks 0 and 1 (the first ``HEADER_PROBE_SIZE`` bytes or more) -> ``LogHeader``, by the core."""
    from redo_lib.native import native

    return header_of(native.parse_log_header(data, name))


def read_records(
    data: bytes,
    first_block: int = 2,
    last_block: int | None = None,
    *,
    policy: ErrorPolicy = ErrorPolicy.RAISE,
    name: str | None = None,
    report: DecodeReport | None = None,
) -> Iterator[model.RedoRecord]:
    """The records that start in blocks [first_block, last_block) of a log's bytes, read by the Rust
    core (the rules of redo-format §3.1); under ``ErrorPolicy.SKIP`` the damage goes into ``report``
    (skipped errors, damaged ranges). Raises ``RedoError`` subclasses only."""
    from redo_lib.native import native

    records, damage = native.read_records(data, first_block, last_block, policy.value, name)
    if report is not None:
        for error in damage["skipped"]:
            report.add_skipped(error)
        for rng in damage["corrupt_ranges"]:
            report.add_corrupt_range(**{k: v for k, v in rng.items() if k != "__type__"})
    for plain in records:
        yield record_of(plain)
