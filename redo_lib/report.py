"""DecodeReport: what a decode saw — records and vectors by opcode, records by VLD, opaque vectors
by category, and every skipped item with its Position and error kind, plus the damaged byte ranges.

Mutable accumulator (one per task), mergeable across tasks (``merge``), JSON-friendly
(``to_dict``). Knows nothing of the format model: callers pass plain numbers (``format.reader.tally``
does it for a ``RedoRecord``).

Layer 0: imports only ``errors``.
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, final

from redo_lib.errors import Position, RedoError


@final
@dataclass(frozen=True, slots=True, kw_only=True)
class Skipped:
    """One item left out under ``ErrorPolicy.SKIP``: where, the error's stable kind, its message."""

    position: Position
    kind: str
    message: str

    def to_dict(self) -> dict[str, Any]:
        return {
            "position": dataclasses.asdict(self.position),
            "where": str(self.position),
            "kind": self.kind,
            "message": self.message,
        }


@final
@dataclass(frozen=True, slots=True, kw_only=True)
class CorruptRange:
    """Bytes not decoded: from (start_block, start_offset) up to (end_block, end_offset), exclusive;
    ``end_offset`` 0 means the decode resumed by resyncing at the start of ``end_block``."""

    file: str | None
    sequence: int | None
    start_block: int
    start_offset: int
    end_block: int
    end_offset: int = 0
    kind: str = "format"

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


def _opcode_key(opcode: tuple[int, int]) -> str:
    return f"{opcode[0]}.{opcode[1]}"


@final
class DecodeReport:
    """Counts of one decode. ``merge`` combines reports of several tasks into a new one."""

    __slots__ = (
        "bytes",
        "corrupt_ranges",
        "lobs",
        "opaque_by_category",
        "records",
        "records_by_opcode",
        "records_by_vld",
        "skipped",
        "unsupported_vectors",
        "vectors_by_opcode",
    )

    def __init__(self) -> None:
        self.records = 0
        self.bytes = 0  # record bytes (sum of record lengths)
        self.records_by_vld: Counter[int] = Counter()
        self.records_by_opcode: Counter[tuple[int, int]] = Counter()  # records holding >= 1 such vector
        self.vectors_by_opcode: Counter[tuple[int, int]] = Counter()
        self.opaque_by_category: Counter[str] = Counter()
        # LOB and index vectors by what they are (format/ops/lob.py ``classify``): llb_vectors,
        # lob_data_pieces, lob_other_vectors, lob_undo_vectors, lob_page_images, direct_load_*,
        # index_vectors_ignored, index_undo_vectors
        self.lobs: Counter[str] = Counter()
        # vectors that may be a table's change the decoder cannot read, by (kind, data object of the
        # vector header): encrypted, index_leaf, direct_load_block (redo_lib/unsupported.py)
        self.unsupported_vectors: Counter[tuple[str, int]] = Counter()
        self.skipped: list[Skipped] = []
        self.corrupt_ranges: list[CorruptRange] = []

    @property
    def vectors(self) -> int:
        return sum(self.vectors_by_opcode.values())

    def count_record(
        self,
        *,
        vld: int,
        length: int,
        opcodes: Iterable[tuple[int, int]],
        opaque: Iterable[str] = (),
        lobs: Iterable[str] = (),
    ) -> None:
        """Count one record: its VLD, its length, the opcodes of its vectors, its opaque categories
        and its LOB / index vectors by kind."""
        ops = list(opcodes)
        self.records += 1
        self.bytes += length
        self.records_by_vld[vld] += 1
        self.vectors_by_opcode.update(ops)
        self.records_by_opcode.update(set(ops))
        self.opaque_by_category.update(opaque)
        self.lobs.update(lobs)

    def add_counts(self, counts: dict[str, Any]) -> None:
        """Add the counts of a range decoded by the Rust core (``native.decode_events``): records,
        bytes, ``(key, n)`` pairs per counter, the skipped errors and the damaged ranges."""
        self.records += counts["records"]
        self.bytes += counts["bytes"]
        self.records_by_vld.update(dict(counts["records_by_vld"]))
        self.records_by_opcode.update(dict(counts["records_by_opcode"]))
        self.vectors_by_opcode.update(dict(counts["vectors_by_opcode"]))
        self.opaque_by_category.update(dict(counts["opaque_by_category"]))
        self.lobs.update(dict(counts["lobs"]))
        self.unsupported_vectors.update(
            {(kind, obj): n for kind, obj, n in counts.get("unsupported_vectors", ())}
        )
        for error in counts["skipped"]:
            self.add_skipped(error)
        for rng in counts["corrupt_ranges"]:
            self.add_corrupt_range(**{k: v for k, v in rng.items() if k != "__type__"})

    def add_skipped(self, error: RedoError) -> None:
        """Record an item left out because of ``error`` (its position, kind and message)."""
        self.skipped.append(Skipped(position=error.position, kind=error.kind, message=error.message))

    def add_corrupt_range(self, **fields: Any) -> None:
        """Record a damaged range (keywords of ``CorruptRange``)."""
        self.corrupt_ranges.append(CorruptRange(**fields))

    def merge(self, *others: DecodeReport) -> DecodeReport:
        """A new report holding the sums of this one and ``others`` (skips and ranges concatenated)."""
        out = DecodeReport()
        for rep in (self, *others):
            out.records += rep.records
            out.bytes += rep.bytes
            out.records_by_vld.update(rep.records_by_vld)
            out.records_by_opcode.update(rep.records_by_opcode)
            out.vectors_by_opcode.update(rep.vectors_by_opcode)
            out.opaque_by_category.update(rep.opaque_by_category)
            out.lobs.update(rep.lobs)
            out.unsupported_vectors.update(rep.unsupported_vectors)
            out.skipped.extend(rep.skipped)
            out.corrupt_ranges.extend(rep.corrupt_ranges)
        return out

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-friendly dict; opcode keys as ``"11.2"``, VLD keys as ``"0x05"``, sorted."""
        return {
            "records": self.records,
            "bytes": self.bytes,
            "vectors": self.vectors,
            "records_by_vld": {f"0x{k:02x}": v for k, v in sorted(self.records_by_vld.items())},
            "records_by_opcode": {_opcode_key(k): v for k, v in sorted(self.records_by_opcode.items())},
            "vectors_by_opcode": {_opcode_key(k): v for k, v in sorted(self.vectors_by_opcode.items())},
            "opaque_by_category": dict(sorted(self.opaque_by_category.items())),
            "lobs": dict(sorted(self.lobs.items())),
            "unsupported_vectors": {
                f"{kind}:{obj}": n for (kind, obj), n in sorted(self.unsupported_vectors.items())
            },
            "skipped": [s.to_dict() for s in self.skipped],
            "corrupt_ranges": [r.to_dict() for r in self.corrupt_ranges],
        }
