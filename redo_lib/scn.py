"""SCN, XID, UBA and RBA value types, printed exactly as Oracle's logfile dumps print them.

Layer 0: imports nothing from redo_lib. See redo-format.md §3.4 (SCN layouts) and §5.0.1 (XID, UBA).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NewType, final

Scn = NewType("Scn", int)
NO_SCN = 0xFFFF_FFFF_FFFF_FFFF


def render_scn(scn: int, *, wide: bool = True) -> str:
    """``0x0000000000229606`` (12.2+ dumps, ``wide``) or ``0x0000.0018bcde`` (pre-12.2 dumps)."""
    if wide:
        return f"0x{scn:016x}"
    return f"0x{(scn >> 32) & 0xFFFF:04x}.{scn & 0xFFFFFFFF:08x}"


@final
@dataclass(frozen=True, slots=True, order=True)
class Xid:
    """Transaction id (usn, slot, sqn). Dump: ``0x0004.00b.00000356``; trail token: ``4.11.854``."""

    usn: int
    slot: int
    sqn: int

    def __str__(self) -> str:
        return f"0x{self.usn:04x}.{self.slot:03x}.{self.sqn:08x}"

    def trail(self) -> str:
        """The decimal ``usn.slot.sqn`` token of the trail (trail contract rule 13)."""
        return f"{self.usn}.{self.slot}.{self.sqn}"

    @classmethod
    def parse(cls, text: str) -> Xid:
        """Accept both ``0x0004.00b.00000356`` and ``4.11.854``."""
        parts = text.strip().split(".")
        if len(parts) != 3:
            raise ValueError(f"not an xid: {text!r}")
        if parts[0].lower().startswith("0x"):
            return cls(int(parts[0], 16), int(parts[1], 16), int(parts[2], 16))
        return cls(int(parts[0]), int(parts[1]), int(parts[2]))


@final
@dataclass(frozen=True, slots=True)
class Uba:
    """Undo block address. Dump: ``0x00c000b2.01ee.0d`` (block.sequence.record)."""

    block: int
    seq: int
    rec: int

    def __str__(self) -> str:
        return f"0x{self.block:08x}.{self.seq:04x}.{self.rec:02x}"


@final
@dataclass(frozen=True, slots=True, order=True)
class Rba:
    """Redo byte address of a record: log sequence, block, byte offset in the block.

    Dump: ``0x000044.00000005.0010``. Ordered, so RBAs of one thread sort in redo order.
    """

    seq: int
    block: int
    offset: int

    def __str__(self) -> str:
        return f"0x{self.seq:06x}.{self.block:08x}.{self.offset:04x}"
