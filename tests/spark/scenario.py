"""The hand-written trail scenario the Spark validate and publish tests share: two batches of
US03.STUDENT / US03.COURSE changes, built as ``TrailRecord`` values and written as a batch folder
(docs/pipeline-contract.md).

Batch 1: T1 inserts students 1010, 1011 and course (C1, 2024); T2 raises 1010's fee; T3 inserts 1012
and deletes 1011; T4 renames course (C1, 2024). Batch 2: T5 changes 1010's key to 2010 (and its
surname); T6 blanks 1012's surname and inserts 1011 again; T7 deletes (C1, 2024), inserts (C2, 2025)
and renames it; T8 updates 2010's fee, then changes its key to 3010.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import pyarrow.parquet as pq

from redo_lib.trail.model import IoType, TrailRecord, TransInd
from redo_lib.trail.schema import to_arrow

STUDENT = ("STUDENT_KEY", "SURNAME", "TUITION_FEE")
COURSE = ("COURSE_ID", "TERM", "TITLE")
KEYS = {"STUDENT": ("STUDENT_KEY",), "COURSE": ("COURSE_ID", "TERM")}
OPS = {"INSERT": (IoType.INSERT, "A"), "UPDATE": (IoType.COMPRESSED_UPDATE, "A"),
       "DELETE": (IoType.DELETE, "B"), "PK_UPDATE": (IoType.PK_UPDATE, "A")}  # fmt: skip
Pairs = tuple[tuple[str, str | None], ...]


@dataclass(frozen=True)
class Change:
    op: str
    table: str
    columns: Pairs
    before: Pairs = ()


@dataclass(frozen=True)
class Txn:
    xid: str
    commit_scn: int
    changes: tuple[Change, ...]
    thread: int = 1


@dataclass
class Batch:
    batch_id: str
    txns: list[Txn]
    previous: str | None = None
    rolled_back_xids: list[str] = field(default_factory=list)
    cancelled: dict[str, dict[str, int]] = field(default_factory=dict)
    images: list[str] | None = None  # the manifest's image options


def ins(table: str, *values: str | None) -> Change:
    names = STUDENT if table == "STUDENT" else COURSE
    return Change("INSERT", table, tuple(zip(names, values, strict=True)))


def upd(table: str, **values: str | None) -> Change:
    return Change("UPDATE", table, tuple(values.items()))


def dele(table: str, **key: str) -> Change:
    return Change("DELETE", table, tuple(key.items()))


def pk_upd(table: str, old: dict[str, str], **values: str | None) -> Change:
    return Change("PK_UPDATE", table, tuple(values.items()), before=tuple(old.items()))


def records(txns: list[Txn], seq: int = 7) -> list[TrailRecord]:
    """Trail records of the transactions, in the given order (TransInd, tokens, positions)."""
    out = []
    for t in txns:
        for i, c in enumerate(t.changes):
            io_type, before_after = OPS[c.op]
            scn = t.commit_scn - len(t.changes) + i
            rowid = f"AAASrPAAEAAAAQ{len(out) % 10}AA{chr(65 + i)}"
            tokens: tuple[tuple[str, str], ...] = (("R", rowid),)
            if i == 0:
                tokens += (("L", str(t.commit_scn)), ("6", t.xid))
            out.append(TrailRecord(
                xid=t.xid, commit_scn=t.commit_scn, commit_time=f"2024-03-{1 + t.commit_scn % 2:02d}T10:00:00",
                trans_ind=TransInd.of(i, len(t.changes)), io_type=io_type, op=c.op, before_after=before_after,
                owner="US03", table=c.table, obj=76490 if c.table == "STUDENT" else 76491, columns=c.columns,
                before=c.before, key_columns=KEYS[c.table],
                changed_columns=tuple(n for n, _ in c.columns if n not in KEYS[c.table]) if "UPDATE" in c.op else (),
                rowid=rowid, scn=scn, subscn=0, op_time="2024-03-01T09:59:59", thread=t.thread, sequence=seq,
                rba=f"0x{seq:06x}.{0x20 + len(out):08x}.0010", tokens=tokens,
            ))  # fmt: skip
    return out


def counts_of(batch: Batch, trail: list[TrailRecord]) -> dict[str, object]:
    """counts.json as assemble writes it: trail per table and op, decoded = trail + cancelled."""
    trail_counts: dict[str, Counter[str]] = {}
    for r in trail:
        trail_counts.setdefault(f"{r.owner}.{r.table}", Counter())[r.op] += 1
    decoded = {t: dict(c) for t, c in trail_counts.items()}
    for t, ops in batch.cancelled.items():
        for op, n in ops.items():
            decoded.setdefault(t, {})[op] = decoded.get(t, {}).get(op, 0) + n
    return {
        "batch_id": batch.batch_id,
        "decoded": decoded,
        "cancelled": batch.cancelled,
        "trail": {t: dict(c) for t, c in trail_counts.items()},
        "transactions": {"committed": len(batch.txns), "rolled_back": len(batch.rolled_back_xids)},
        "rolled_back_xids": batch.rolled_back_xids,
    }


def write_batch(root: Path, batch: Batch, trail: list[TrailRecord] | None = None,
                counts: dict[str, object] | None = None) -> Path:  # fmt: skip
    """``root/<batch_id>/`` with manifest.json, trail/part-00000.parquet and counts.json."""
    folder = root / batch.batch_id
    (folder / "trail").mkdir(parents=True, exist_ok=True)
    trail = records(batch.txns) if trail is None else trail
    pq.write_table(to_arrow(trail, batch_id=batch.batch_id), folder / "trail" / "part-00000.parquet")
    manifest = {"batch_id": batch.batch_id, "logs": [], "dictionary": None,
                "previous_batch": batch.previous, "carried_in": None, "images": batch.images}  # fmt: skip
    (folder / "manifest.json").write_text(json.dumps(manifest))
    (folder / "counts.json").write_text(json.dumps(counts if counts is not None else counts_of(batch, trail)))
    return folder


def batch_one() -> Batch:
    return Batch("b-000001-000001", [
        Txn("4.11.854", 1000, (ins("STUDENT", "1010", "SMITH", "6000"), ins("STUDENT", "1011", "JONES", None),
                               ins("COURSE", "C1", "2024", "Redo 101"))),
        Txn("5.2.100", 1005, (upd("STUDENT", STUDENT_KEY="1010", TUITION_FEE="7000"),)),
        Txn("6.1.7", 1010, (ins("STUDENT", "1012", "BROWN", "5000"), dele("STUDENT", STUDENT_KEY="1011"))),
        Txn("3.3.3", 1011, (upd("COURSE", COURSE_ID="C1", TERM="2024", TITLE="Redo 102"),), thread=2),
    ], rolled_back_xids=["7.7.7"], cancelled={"US03.STUDENT": {"INSERT": 1}})  # fmt: skip


def batch_two() -> Batch:
    return Batch("b-000002-000002", [
        Txn("4.2.900", 2000, (pk_upd("STUDENT", {"STUDENT_KEY": "1010"}, STUDENT_KEY="2010", SURNAME="SMYTHE"),)),
        Txn("8.1.12", 2001, (upd("STUDENT", STUDENT_KEY="1012", SURNAME=None), ins("STUDENT", "1011", "JONES", "1"))),
        Txn("9.4.40", 2002, (dele("COURSE", COURSE_ID="C1", TERM="2024"), ins("COURSE", "C2", "2025", "Logs"),
                             upd("COURSE", COURSE_ID="C2", TERM="2025", TITLE="Logs II"))),
        Txn("2.9.31", 2003, (upd("STUDENT", STUDENT_KEY="2010", TUITION_FEE="7500"),
                             pk_upd("STUDENT", {"STUDENT_KEY": "2010"}, STUDENT_KEY="3010"))),
    ], previous="b-000001-000001")  # fmt: skip
