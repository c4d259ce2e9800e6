"""File layout of an archived redo log: endianness, block size, compat version, precompiled Structs.

Also the two SCN layouts (redo-format §3.4) and the redo time encoding (§3.5), which every other
module of ``format/`` needs. Pure functions and frozen values; no I/O.

Layer 1: imports only layer 0 (errors, scn).
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import functools
import struct
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar, final

from redo_lib.errors import FormatError, Position
from redo_lib.scn import NO_SCN

V12_1 = 0x0C100000
V12_2 = 0x0C200000
V18 = 0x12000000
V19 = 0x13000000
V23 = 0x17000000

BLOCK_HEADER_SIZE = 16
RECORD_HEADER_SIZE = 24
LWN_RECORD_HEADER_SIZE = 68

# (block size, file type byte) pairs we accept (redo-format §1.2/§1.3; 0x42 per oracdc, §12).
T = TypeVar("T")
VALID_BLOCK_TYPES: frozenset[tuple[int, int]] = frozenset(
    {(512, 0x22), (1024, 0x22), (1024, 0x42), (4096, 0x82)}
)


@final
class Structs:
    """The precompiled ``struct.Struct`` objects of one byte order (``<`` or ``>``).

    Built once per endianness at import time (``LE`` / ``BE``); ``FileLayout.s`` points at one.
    """

    __slots__ = (
        "_arrays",
        "block_header",
        "i16",
        "order",
        "record_header",
        "u16",
        "u16x2",
        "u32",
        "u32u16",
        "vector_header",
        "vector_header32",
        "xid",
        "uba",
    )

    def __init__(self, order: str) -> None:
        self.order = order
        self.u16 = struct.Struct(order + "H")
        self.i16 = struct.Struct(order + "h")
        self.u32 = struct.Struct(order + "I")
        self.u16x2 = struct.Struct(order + "HH")
        self.u32u16 = struct.Struct(order + "IH")  # full SCN base + wrap, UBA block + seq
        # §2: signature, type, pad, block, sequence, @12 offset word, checksum
        self.block_header = struct.Struct(order + "BB2xIIHH")
        # §3.2: length, vld, pad, wrap, base, subscn, pad, con_uid
        self.record_header = struct.Struct(order + "IBxHIH2xI")
        # §4.1 first 24 bytes: layer, code, cls, afn, obj-high, dba, scn base, scn wrap, scn ext,
        # seq, typ, obj-low
        self.vector_header = struct.Struct(order + "BBHHHIIHHBBH")
        # ... plus the 12.1+ tail: CON_ID u16 @24, 2 unknown, FLG u16 @28, 2 unknown
        self.vector_header32 = struct.Struct(order + "BBHHHIIHHBBHH2xH2x")
        self.xid = struct.Struct(order + "HHI")
        self.uba = struct.Struct(order + "IHB")
        self._arrays: dict[int, struct.Struct] = {}

    def u16_array(self, count: int) -> struct.Struct:
        """A cached Struct reading ``count`` u16 values (field-length arrays, position arrays)."""
        st = self._arrays.get(count)
        if st is None:
            st = self._arrays[count] = struct.Struct(f"{self.order}{count}H")
        return st


LE = Structs("<")
BE = Structs(">")


@final
@dataclass(frozen=True, slots=True, kw_only=True)
class FileLayout:
    """What the bytes of one log look like (redo-format §1.3, §4.1).

    ``s`` holds the precompiled Structs of the file's byte order. ``vector_header_size`` is 24 before
    12.1 and 32 from 12.1 on (decided per file from the compat version, as OLR does).
    """

    big_endian: bool = False
    block_size: int = 512
    compat_version: int = V19
    s: Structs = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "s", BE if self.big_endian else LE)

    @property
    def vector_header_size(self) -> int:
        return 32 if self.compat_version >= V12_1 else 24

    @property
    def rowdep_size(self) -> int:
        """Row-dependency SCN size inside QMI rows: 6 bytes before 12.2, 8 from 12.2 (§5.6)."""
        return 8 if self.compat_version >= V12_2 else 6

    @property
    def byteorder(self) -> str:
        return "big" if self.big_endian else "little"


def fast_builder(cls: type[T]) -> Callable[..., T]:
    """A positional constructor for a frozen slotted dataclass that sets the slots directly.

    Why: a frozen dataclass ``__init__`` goes through ``object.__setattr__`` per field (≈1.4 µs for
    ``ChangeVector``); setting the slot descriptors from a generated straight-line function costs
    ≈0.6 µs, and records and vectors are built once per record (docs/benchmarks.md). Arguments are
    the fields in declaration order; a trailing run of fields with defaults may be omitted (so a
    field appended to the model later keeps working). Only for classes without ``__post_init__``.
    """
    fields = dataclasses.fields(cls)  # type: ignore[arg-type]
    if hasattr(cls, "__post_init__") or not hasattr(cls, "__slots__"):
        raise TypeError(f"{cls.__name__} needs its own __init__")
    required = max((i for i, f in enumerate(fields) if _no_default(f)), default=-1)
    scope: dict[str, Any] = {"new": object.__new__, "cls": cls}
    params: list[str] = []
    body = ["    o = new(cls)"]
    for i, f in enumerate(fields):
        scope[f"set_{f.name}"] = getattr(cls, f.name).__set__
        if i <= required:
            params.append(f.name)
        elif f.default is not dataclasses.MISSING:
            scope[f"default_{f.name}"] = f.default
            params.append(f"{f.name}=default_{f.name}")
        else:
            scope[f"factory_{f.name}"] = f.default_factory
            params.append(f"{f.name}=None")
            body.append(f"    {f.name} = factory_{f.name}() if {f.name} is None else {f.name}")
    body += [f"    set_{f.name}(o, {f.name})" for f in fields] + ["    return o"]
    exec("\n".join([f"def build({', '.join(params)}):", *body]), scope)  # generated from the field names
    return scope["build"]  # type: ignore[no-any-return]


def _no_default(f: dataclasses.Field[Any]) -> bool:
    return f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING


def parse_full_scn(data: bytes, offset: int, layout: FileLayout) -> int:
    """Full 8-byte SCN (redo-format §3.4a): base u32 @0, wrap u16 @4, big-SCN extension u16 @6.

    First six bytes all ``FF`` -> ``NO_SCN``. Caller guarantees 8 bytes at ``offset``.
    """
    base: int
    wrap: int
    base, wrap = layout.s.u32u16.unpack_from(data, offset)
    if base == 0xFFFFFFFF and wrap == 0xFFFF:
        return NO_SCN
    if wrap & 0x8000:
        ext: int = layout.s.u16.unpack_from(data, offset + 6)[0]
        return base | ext << 32 | (wrap & 0x7FFF) << 48
    return base | wrap << 32


def parse_record_scn(data: bytes, offset: int, layout: FileLayout) -> int:
    """Record-style 6-byte SCN (redo-format §3.4b): wrap u16 first, then base u32.

    The top bit of the wrap is the big-SCN flag (oracdc's reading; agrees with OLR below 2^47).
    """
    wrap = layout.s.u16.unpack_from(data, offset)[0]
    base = layout.s.u32.unpack_from(data, offset + 2)[0]
    return scn_from_wrap_base(wrap, base)


def scn_from_wrap_base(wrap: int, base: int) -> int:
    """Combine a record-style wrap and base (redo-format §3.4b)."""
    if wrap & 0x8000:
        return (wrap & 0x7FFF) << 48 | base
    return wrap << 32 | base


def decode_redo_time(value: int, position: Position | None = None) -> dt.datetime:
    """Redo time (u32, 31-day months from 1988-01-01, redo-format §3.5) -> UTC ``datetime``.

    The value is the server's wall clock; like the issue asks we label it UTC (§3.5 explains why
    that is only exact when the server runs in UTC; ``dump/lines.py`` reads dump times the same
    way). Impossible dates (e.g. 30 February, only in damaged input) raise ``FormatError``.
    """
    try:
        return _redo_time(value)
    except ValueError as exc:
        raise FormatError(f"invalid redo time 0x{value:08x}: {exc}", position=position) from exc


@functools.lru_cache(maxsize=4096)  # LWN times repeat for every record of an LWN
def _redo_time(value: int) -> dt.datetime:
    t, second = divmod(value, 60)
    t, minute = divmod(t, 60)
    t, hour = divmod(t, 24)
    t, day = divmod(t, 31)
    t, month = divmod(t, 12)
    return dt.datetime(t + 1988, month + 1, day + 1, hour, minute, second, tzinfo=dt.UTC)


def encode_redo_time(when: dt.datetime) -> int:
    """The inverse of :func:`decode_redo_time` (used by tests and the writer); a time outside the
    u32 range raises ``FormatError``."""
    value = (
        (((((when.year - 1988) * 12 + (when.month - 1)) * 31 + (when.day - 1)) * 24 + when.hour) * 60)
        + when.minute
    ) * 60 + when.second
    if not 0 <= value <= 0xFFFFFFFF:
        raise FormatError("time outside the redo time range", time=when.isoformat())
    return value


def render_compat_version(value: int) -> str:
    """Compat version text per redo-format §1.4, e.g. ``23.6.0`` or ``11.2.0.4``."""
    if value >= V18:
        return f"{value >> 24}.{(value >> 16) & 0xFF}.{(value >> 8) & 0xFF}"
    return f"{value >> 24}.{(value >> 20) & 0xF}.{(value >> 16) & 0xF}.{(value >> 8) & 0xFF}"
