"""TrailRecord: one record of the trail, with GoldenGate trail semantics.

Every field is named after the trail contract (shared/docs/trail-contract.md, rules in brackets).
Records are plain frozen values; ``to_dict()`` gives the JSON-lines form that the decoder writes,
the generator writes for its expected trail, and the tests compare. Column values are already
rendered text (rule 16): NUMBER as exact decimal text, strings decoded, dates ISO, RAW hex; SQL
NULL is ``None``; a column that is not in the image is absent from the mapping.

Layer 4: may import layers 0-3 only.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import Any, final


class IoType(enum.IntEnum):
    """GoldenGate IOType (rule 9; seed 001 "Operation Types")."""

    DELETE = 3
    INSERT = 5
    FULL_UPDATE = 10
    COMPRESSED_UPDATE = 15
    PK_UPDATE = 115
    LOB_PIECE = 116
    DDL = 160


class TransInd(enum.IntEnum):
    """Place of a record in its transaction (rule 8)."""

    FIRST = 0
    MIDDLE = 1
    LAST = 2
    ONLY = 3

    @classmethod
    def of(cls, index: int, count: int) -> TransInd:
        if count == 1:
            return cls.ONLY
        if index == 0:
            return cls.FIRST
        return cls.LAST if index == count - 1 else cls.MIDDLE


#: The size of the pieces a LOB value is cut into in the trail (seed 001: LOB data is written as
#: IOType 116 segments, ``Continued`` Y on every piece but the last, ``RecCount`` to reassemble them).
LOB_PIECE_SIZE = 32_768


@final
@dataclass(frozen=True, slots=True, kw_only=True)
class LobColumn:
    """The LOB descriptor of one LOB column of a record's image (rule 17, seed 001).

    The record carries the complete value in ``columns``; this says how large it is (``bytes``: the
    LOB's data as Oracle stores it, CLOB / NCLOB in AL16UTF16 on multi-byte databases) and into how
    many pieces GoldenGate would cut it (``pieces``: records of IOType 116 with ``Continued`` Y...N and
    ``RecCount`` 1..n, of at most ``LOB_PIECE_SIZE`` bytes; 0 for an empty LOB). One trail record per
    row change stays the rule; the pieces are described, not written (docs/pipeline-contract.md)."""

    column: str
    bytes: int
    pieces: int

    @classmethod
    def of(cls, column: str, size: int) -> LobColumn:
        return cls(column=column, bytes=size, pieces=-(-size // LOB_PIECE_SIZE))

    def to_dict(self) -> dict[str, Any]:
        return {"column": self.column, "bytes": self.bytes, "pieces": self.pieces}


# The JSON-lines field order; trail/schema.py derives the Arrow schema from the same list.
TRAIL_FIELDS = (
    "xid",  # transaction id usn.slot.sqn, on every record (grouping); token "6" only on the first
    "commit_scn",  # SCN of the 5.4 commit record (rule 13), on every record; token "L" on the first
    "commit_time",  # ISO time of the commit record's LWN
    "trans_ind",
    "io_type",
    "op",  # "INSERT" | "UPDATE" | "DELETE" | "PK_UPDATE" | "DDL"
    "before_after",  # "A" | "B" (rule 10)
    "owner",
    "table",
    "obj",
    "columns",  # {name: value-or-None}, the image this record carries (rule 11)
    "before",  # {name: value-or-None} before values of a PK update / full-image config, else {}
    "key_columns",  # [name, ...] key of the table (rule 12)
    "changed_columns",  # [name, ...] for updates: the columns the statement set
    "rowid",  # 18-char ROWID (token "R", every record)
    "scn",  # SCN of the redo record holding the change
    "subscn",
    "op_time",  # ISO time of the change's redo record (rule 14)
    "thread",  # redo thread (rule 15)
    "sequence",  # log sequence (AuditRBA)
    "rba",  # "0xSEQ.BLOCK.OFFS" of the record holding the change (AuditPos)
    "tokens",  # {"R": rowid, "L": commit_scn, "6": xid}; L and 6 only on the first record (rule 13)
    "lob_columns",  # [{column, bytes, pieces}] per LOB column with a value in the image (rule 17);
    # in the JSON-lines form only when not empty
)


@final
@dataclass(frozen=True, slots=True, kw_only=True)
class TrailRecord:
    xid: str
    commit_scn: int
    commit_time: str
    trans_ind: TransInd
    io_type: IoType
    op: str
    before_after: str
    owner: str
    table: str
    obj: int
    columns: tuple[tuple[str, str | None], ...]
    before: tuple[tuple[str, str | None], ...] = ()
    key_columns: tuple[str, ...] = ()
    changed_columns: tuple[str, ...] = ()
    rowid: str
    scn: int
    subscn: int
    op_time: str
    thread: int
    sequence: int
    rba: str
    tokens: tuple[tuple[str, str], ...] = field(default=())
    lob_columns: tuple[LobColumn, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        """The JSON-lines form; ``lob_columns`` only on records that carry LOB values."""
        out: dict[str, Any] = {
            "xid": self.xid,
            "commit_scn": self.commit_scn,
            "commit_time": self.commit_time,
            "trans_ind": int(self.trans_ind),
            "io_type": int(self.io_type),
            "op": self.op,
            "before_after": self.before_after,
            "owner": self.owner,
            "table": self.table,
            "obj": self.obj,
            "columns": dict(self.columns),
            "before": dict(self.before),
            "key_columns": list(self.key_columns),
            "changed_columns": list(self.changed_columns),
            "rowid": self.rowid,
            "scn": self.scn,
            "subscn": self.subscn,
            "op_time": self.op_time,
            "thread": self.thread,
            "sequence": self.sequence,
            "rba": self.rba,
            "tokens": dict(self.tokens),
        }
        if self.lob_columns:
            out["lob_columns"] = [c.to_dict() for c in self.lob_columns]
        return out

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> TrailRecord:
        return cls(
            xid=d["xid"],
            commit_scn=int(d["commit_scn"]),
            commit_time=d["commit_time"],
            trans_ind=TransInd(int(d["trans_ind"])),
            io_type=IoType(int(d["io_type"])),
            op=d["op"],
            before_after=d["before_after"],
            owner=d["owner"],
            table=d["table"],
            obj=int(d["obj"]),
            columns=tuple(d["columns"].items()),
            before=tuple(d.get("before", {}).items()),
            key_columns=tuple(d.get("key_columns", ())),
            changed_columns=tuple(d.get("changed_columns", ())),
            rowid=d["rowid"],
            scn=int(d["scn"]),
            subscn=int(d["subscn"]),
            op_time=d["op_time"],
            thread=int(d["thread"]),
            sequence=int(d["sequence"]),
            rba=d["rba"],
            tokens=tuple(d.get("tokens", {}).items()),
            lob_columns=tuple(
                LobColumn(column=c["column"], bytes=int(c["bytes"]), pieces=int(c["pieces"]))
                for c in d.get("lob_columns") or ()
            ),
        )
