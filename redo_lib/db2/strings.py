"""The consolidated out-of-row varying-length string structure of LOB column 65535 (seed 004).

When part of a row's varying-length string data is stored out of row, Db2 keeps all of it in one LOB
data object and logs it with column identifier 65535. The LOB data (after concatenating the pieces)
is, per the seed:

- a 4-byte header: offset 0 the eye-catcher 0x12; offsets 1-3 the size of the whole structure
  (header included), big endian;
- an offset array of ``column_count + 1`` 4-byte entries (``column_count`` = the table's columns
  when the record was written), then the data portion. Column ``n``'s string is the bytes from
  entry ``n`` to entry ``n + 1``; only out-of-row strings have a non-zero length.

Assumptions where the seed is silent (docs/db2-lobs.md):

- The structure does not store the column count: the caller passes it (from the table's definition
  at the time of the record).
- Offsets are relative to the start of the data portion (the byte after the offset array), so entry
  0 is 0 and the last entry is the data portion's length.
- Offsets are big endian like the size field (``offset_byteorder`` overrides it).

Contract: on bad input ``parse_varying_strings`` raises only ``FormatError`` subclasses; the
position's offset is the byte offset of the field at fault within the structure.

Layer: imports ``errors`` and this package's ``records`` (for ``ByteOrder``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import final

from redo_lib.db2.records import ByteOrder
from redo_lib.errors import FormatError, Position, TruncatedLogError

EYE_CATCHER = 0x12  # offset 0 of the structure
STRUCTURE_HEADER_SIZE = 4  # eye-catcher + 3-byte big-endian size
OFFSET_ENTRY_SIZE = 4
_WHERE = "varying-length string structure (column 65535)"


@final
@dataclass(frozen=True, slots=True, kw_only=True)
class VaryingStrings:
    """The parsed structure: ``offsets`` (``column_count + 1`` entries) into ``data`` (the data
    portion). ``string(n)`` is column ``n``'s out-of-row string, ``b""`` when it is stored in row."""

    offsets: tuple[int, ...]
    data: bytes

    @classmethod
    def from_strings(cls, strings: Sequence[bytes]) -> VaryingStrings:
        """The structure holding ``strings[n]`` for column ``n`` (``b""`` for in-row columns)."""
        offsets = [0]
        for s in strings:
            offsets.append(offsets[-1] + len(s))
        return cls(offsets=tuple(offsets), data=b"".join(strings))

    @property
    def column_count(self) -> int:
        return len(self.offsets) - 1

    @property
    def size(self) -> int:
        """The structure's size in bytes, header included (the value of header offsets 1-3)."""
        return STRUCTURE_HEADER_SIZE + OFFSET_ENTRY_SIZE * len(self.offsets) + len(self.data)

    def string(self, column: int) -> bytes:
        """Column ``column``'s (from 0) out-of-row string; ``IndexError`` outside the table."""
        if not 0 <= column < self.column_count:
            raise IndexError(f"column {column} outside 0..{self.column_count - 1}")
        return self.data[self.offsets[column] : self.offsets[column + 1]]

    def out_of_row(self) -> dict[int, bytes]:
        """The columns with a non-zero-length string (those stored out of row), by column number."""
        return {c: s for c in range(self.column_count) if (s := self.string(c))}


def parse_varying_strings(
    data: bytes, *, column_count: int, offset_byteorder: ByteOrder = "big"
) -> VaryingStrings:
    """Parse the consolidated structure in ``data`` (the whole concatenated LOB value of column 65535).

    Raises ``TruncatedLogError`` if ``data`` is shorter than the 4-byte header, ``FormatError`` for a
    wrong eye-catcher, a size that is not ``len(data)``, a structure too small for ``column_count``
    columns, or offsets that decrease or do not end at the end of the data portion.
    """
    if column_count < 0:
        raise ValueError("column_count must be >= 0")
    if len(data) < STRUCTURE_HEADER_SIZE:
        raise TruncatedLogError(
            "input ends inside the varying-length string structure's header",
            position=Position(offset=0),
            where=_WHERE,
            available=len(data),
        )
    if data[0] != EYE_CATCHER:
        raise FormatError(
            "bad eye-catcher (expected 0x12)",
            position=Position(offset=0),
            where=_WHERE,
            found=f"0x{data[0]:02x}",
        )
    size = int.from_bytes(data[1:4], "big")
    if size != len(data):
        raise FormatError(
            "bad length: the structure's size is not the length of the LOB data",
            position=Position(offset=1),
            where=_WHERE,
            size=size,
            lob_length=len(data),
        )
    start = STRUCTURE_HEADER_SIZE + OFFSET_ENTRY_SIZE * (column_count + 1)
    if start > size:
        raise FormatError(
            "bad length: the structure is too small for its offset array",
            position=Position(offset=STRUCTURE_HEADER_SIZE),
            where=_WHERE,
            size=size,
            column_count=column_count,
        )
    offsets: list[int] = []
    for i in range(column_count + 1):
        at = STRUCTURE_HEADER_SIZE + OFFSET_ENTRY_SIZE * i
        value = int.from_bytes(data[at : at + OFFSET_ENTRY_SIZE], offset_byteorder)
        if (offsets and value < offsets[-1]) or value > size - start:
            raise FormatError(
                "bad offset in the varying-length string offset array",
                position=Position(offset=at),
                where=_WHERE,
                entry=i,
                value=value,
                data_portion=size - start,
            )
        offsets.append(value)
    if offsets[-1] != size - start:
        raise FormatError(
            "bad length: the last offset is not the end of the data portion",
            position=Position(offset=start - OFFSET_ENTRY_SIZE),
            where=_WHERE,
            value=offsets[-1],
            data_portion=size - start,
        )
    return VaryingStrings(offsets=tuple(offsets), data=bytes(data[start:]))
