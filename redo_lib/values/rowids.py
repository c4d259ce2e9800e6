"""ROWID, DBA and UROWID values (redo-format §7.9 and §7.7).

* DBA (u32): relative file number in bits 22-31, block number in bits 0-21. The AFN of a change
  vector header is the *absolute* file number, a different number.
* Extended ROWID text, 18 characters of the alphabet ``A-Z a-z 0-9 + /`` (values 0..63): data object
  id (6 chars), relative file number (3), block (6), row slot (3), each a base-64 number written most
  significant digit first: dataobj 87705, rfile 4, block 0xB0, slot 2 -> ``AAAVaZAAEAAAACwAAC``.
* ROWID (type 69), what a ROWID column stores (``DUMP(col)``: ``Typ=69 Len=10``), 10 bytes: be32 data
  object id @0, be32 DBA @4, be16 row slot @8. The docs hold no type 69 value; the layout is the one a
  public ``DUMP(ROWID,16)`` shows next to its ROWID text: ``0,0,d7,89,1,80,0,e2,0,16`` is
  ``AAANeJAAGAAAADiAAW`` (data object 55177, DBA 0x018000e2: file 6, block 226, slot 22).
* UROWID (type 208) physical form, 13 bytes: ``0x01``, be32 data object id @1, be16 slot @5, be16
  relative file number @7, be32 block @9 (OLR's reading; the slot-before-file order is unverified).

Pure functions and a frozen value type, stdlib only; on bad input they raise only ``ValueDecodeError``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import final

from redo_lib.errors import ValueDecodeError

__all__ = [
    "RowId",
    "dba_block",
    "dba_file",
    "decode_rowid",
    "decode_urowid",
    "encode_rowid",
    "encode_urowid",
    "make_dba",
    "parse_rowid",
]

_ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
_VALUES = {ch: i for i, ch in enumerate(_ALPHABET)}
_PAIRS = [hi + lo for hi in _ALPHABET for lo in _ALPHABET]  # 12-bit value -> its two characters
_MAX_DATAOBJ = 0xFFFFFFFF
_MAX_RFILE = 0x3FF  # 10 bits of a DBA
_MAX_BLOCK = 0x3FFFFF  # 22 bits of a DBA
_MAX_SLOT = 0xFFFF
_UROWID_PHYSICAL = 0x01


def _base64_6(value: int) -> str:
    return _PAIRS[(value >> 24) & 4095] + _PAIRS[(value >> 12) & 4095] + _PAIRS[value & 4095]


def _base64_3(value: int) -> str:
    return _ALPHABET[(value >> 12) & 63] + _PAIRS[value & 4095]


@final
@dataclass(frozen=True, slots=True, kw_only=True)
class RowId:
    """An extended ROWID: data object id, relative file number, block and row slot (redo-format §7.9).

    ``str()`` gives the 18-character text, e.g. ``AAARwWAAYAAAAAOAAA`` (dataobj 72726, rfile 24,
    block 14, slot 0). Out-of-range fields raise ``ValueDecodeError``.
    """

    dataobj: int
    rfile: int
    block: int
    slot: int

    def __post_init__(self) -> None:
        if not (
            0 <= self.dataobj <= _MAX_DATAOBJ
            and 0 <= self.rfile <= _MAX_RFILE
            and 0 <= self.block <= _MAX_BLOCK
            and 0 <= self.slot <= _MAX_SLOT
        ):
            raise ValueDecodeError(
                "ROWID field out of range",
                type="ROWID",
                dataobj=self.dataobj,
                rfile=self.rfile,
                block=self.block,
                slot=self.slot,
            )

    @classmethod
    def from_dba(cls, *, dataobj: int, dba: int, slot: int) -> RowId:
        """The ROWID of row ``slot`` in the block at ``dba`` of data object ``dataobj``."""
        return cls(dataobj=dataobj, rfile=dba_file(dba), block=dba_block(dba), slot=slot)

    @property
    def dba(self) -> int:
        """The block's DBA: ``make_dba(rfile, block)``."""
        return (self.rfile << 22) | self.block

    def __str__(self) -> str:
        return _base64_6(self.dataobj) + _base64_3(self.rfile) + _base64_6(self.block) + _base64_3(self.slot)


def parse_rowid(text: str) -> RowId:
    """18-character extended ROWID text -> ``RowId``; ``"AAAVaZAAEAAAACwAAC"`` -> dataobj 87705, rfile 4, block 176, slot 2."""
    if len(text) != 18:
        raise ValueDecodeError("a ROWID has 18 characters", type="ROWID", value=text)
    number = 0
    try:
        for ch in text:
            number = (number << 6) | _VALUES[ch]
    except KeyError as exc:
        raise ValueDecodeError(f"invalid ROWID character {exc.args[0]!r}", type="ROWID", value=text) from exc
    # 18 chars = 108 bits: dataobj 36 | rfile 18 | block 36 | slot 18
    return RowId(
        dataobj=number >> 72,
        rfile=(number >> 54) & 0x3FFFF,
        block=(number >> 18) & 0xFFFFFFFFF,
        slot=number & 0x3FFFF,
    )


def dba_file(dba: int) -> int:
    """Relative file number of a DBA (bits 22-31): ``0x0100010c`` -> 4."""
    return (dba >> 22) & _MAX_RFILE


def dba_block(dba: int) -> int:
    """Block number of a DBA (bits 0-21): ``0x0100010c`` -> 0x10c."""
    return dba & _MAX_BLOCK


def make_dba(rfile: int, block: int) -> int:
    """DBA of ``block`` in relative file ``rfile``: ``make_dba(4, 0x10c)`` -> ``0x0100010c``."""
    if not (0 <= rfile <= _MAX_RFILE and 0 <= block <= _MAX_BLOCK):
        raise ValueDecodeError("DBA field out of range", type="DBA", rfile=rfile, block=block)
    return (rfile << 22) | block


def decode_rowid(data: bytes) -> RowId:
    """ROWID (type 69), 10 bytes: data object, DBA, slot -> ``RowId``; any other length raises
    ``ValueDecodeError`` (a DBA's file and block are always in range)."""
    if len(data) != 10:
        raise ValueDecodeError("not a 10-byte ROWID", type="ROWID", hex=data.hex())
    return RowId.from_dba(
        dataobj=int.from_bytes(data[0:4], "big"),
        dba=int.from_bytes(data[4:8], "big"),
        slot=int.from_bytes(data[8:10], "big"),
    )


def encode_rowid(rowid: RowId) -> bytes:
    """``RowId`` -> the 10 bytes a ROWID column stores (the inverse of :func:`decode_rowid`)."""
    return rowid.dataobj.to_bytes(4, "big") + rowid.dba.to_bytes(4, "big") + rowid.slot.to_bytes(2, "big")


def decode_urowid(data: bytes) -> RowId:
    """UROWID (type 208), physical form (13 bytes starting 0x01) -> ``RowId``.

    Logical (index-organized table) UROWIDs and malformed bytes raise ``ValueDecodeError``.
    """
    if len(data) != 13 or data[0] != _UROWID_PHYSICAL:
        raise ValueDecodeError("not a 13-byte physical UROWID", type="UROWID", hex=data.hex())
    return RowId(
        dataobj=int.from_bytes(data[1:5], "big"),
        slot=int.from_bytes(data[5:7], "big"),
        rfile=int.from_bytes(data[7:9], "big"),
        block=int.from_bytes(data[9:13], "big"),
    )


def encode_urowid(rowid: RowId) -> bytes:
    """``RowId`` -> 13-byte physical UROWID (the inverse of :func:`decode_urowid`)."""
    return (
        bytes((_UROWID_PHYSICAL,))
        + rowid.dataobj.to_bytes(4, "big")
        + rowid.slot.to_bytes(2, "big")
        + rowid.rfile.to_bytes(2, "big")
        + rowid.block.to_bytes(4, "big")
    )
