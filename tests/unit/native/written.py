"""What the generator wrote, as the records a reader must give back: the oracle of the native tests.

``generate_written`` runs ``synth.generate`` while recording every record it hands the log writer
(``synth.logs.ThreadLog.write``: the model change vectors, the VLD, and where the record went: thread,
sequence, RBA, SCN, sub-SCN, LWN time, naive UTC). ``expected_record`` turns one of them into the
``RedoRecord`` the Rust reader must return, with the few things the binary form decides itself
spelled out (``as_written``, one reason each). No decoder is involved.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from redo_lib.format.model import (
    ChangeVector,
    DirectLoadBlock,
    KdoOpCode,
    KtbRedo,
    Opaque,
    RedoRecord,
    RowOperation,
    SessionInfo,
    UndoRecord,
)
from redo_lib.format.writer import LWN_RECORD_HEADER, RECORD_HEADER, WriterLayout, write_change_vector
from redo_lib.scn import Rba
from redo_lib.synth import GenerationResult, Scenario, generate
from redo_lib.synth.logs import Placed, ThreadLog

#: (thread, RBA) -> (where it went, the vectors, VLD, the writer's layout)
Written = dict[tuple[int, Rba], tuple[Placed, list[ChangeVector], int, WriterLayout]]

_NOT_IN_5_20 = ("current_user", "client_info", "os_user", "machine", "terminal", "process", "program")


@contextmanager
def recording() -> Iterator[Written]:
    written: Written = {}
    original = ThreadLog.write

    def write(self: ThreadLog, vectors: list[ChangeVector], *, vld: int = 0x01) -> Placed:
        placed = original(self, vectors, vld=vld)
        written[(placed.thread, placed.rba)] = (placed, list(vectors), vld, self.layout)
        return placed

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(ThreadLog, "write", write)
        yield written


def generate_written(scenario: Scenario, out: Path) -> tuple[GenerationResult, Written]:
    with recording() as written:
        result = generate(scenario, out, record_steps=False)
    return result, written


def _ktb(ktb: KtbRedo | None) -> KtbRedo | None:
    """The writer always writes the payload-at-@8 form (flg 0x0D unless 0x08 is set) and flags a
    block cleanout in the op byte (0x10) (writer.write_ktb)."""
    if ktb is None:
        return None
    op = ktb.op | (0x10 if ktb.cleanout_scn is not None else 0)
    return dataclasses.replace(ktb, op=op, flg=ktb.flg if ktb.flg & 0x08 else 0x0D)


def _body(cv: ChangeVector) -> Any:
    body = cv.body
    if isinstance(body, RowOperation | UndoRecord):
        kdo = body.kdo
        if kdo is not None and kdo.op == KdoOpCode.URP:  # a URP's column count is its nnew (§5.0.1)
            kdo = dataclasses.replace(kdo, cc=kdo.nnew)
        return dataclasses.replace(body, ktb=_ktb(body.ktb), kdo=kdo)
    if isinstance(body, SessionInfo) and cv.code == 20:  # 5.20 carries no user/host strings (§5.5)
        return dataclasses.replace(body, **dict.fromkeys(_NOT_IN_5_20, ""))
    if isinstance(body, DirectLoadBlock):  # the LOB id field is 10 bytes (§5.8)
        return dataclasses.replace(body, lob_id=body.lob_id.ljust(10, b"\0"))
    return body


def as_written(cv: ChangeVector, got: ChangeVector, index: int, offset: int) -> ChangeVector:
    """A generator's vector as the reader must see it. Numbered in order, at its offset; the raw
    fields are compared for opaque vectors (the generator gives them), the op's model otherwise.
    What the reader derives and the generator's model leaves out is taken from ``got``: an opaque
    vector's category (the reader's opcode table names it, the generator labels it for itself) and
    the rows a direct-load table block holds (checked against the scenario's rows through the
    expected trail, ``synth/test_roundtrip_decode.py``)."""
    body = _body(cv)
    if isinstance(body, Opaque) and isinstance(got.body, Opaque):
        body = dataclasses.replace(body, category=got.body.category)
    if isinstance(body, DirectLoadBlock) and isinstance(got.body, DirectLoadBlock):
        body = dataclasses.replace(body, slots=got.body.slots, rows=got.body.rows, itl_xids=got.body.itl_xids)
    fields = cv.fields if isinstance(cv.body, Opaque) else got.fields
    return dataclasses.replace(cv, index=index, offset=offset, body=body, fields=fields)


def expected_record(thread: int, rba: Rba, written: Written, got: RedoRecord) -> RedoRecord:
    """The record the generator wrote at (thread, RBA), as the reader must return it (``got`` only
    supplies the LWN header, whose numbers are the writer's bookkeeping, and what ``as_written``
    names)."""
    placed, vectors, vld, layout = written[(thread, rba)]
    assert len(got.vectors) == len(vectors), f"{rba}: {len(got.vectors)} vectors read, {len(vectors)} written"
    offset = LWN_RECORD_HEADER if got.lwn is not None else RECORD_HEADER
    out = []
    for i, (cv, seen) in enumerate(zip(vectors, got.vectors, strict=True)):
        out.append(as_written(cv, seen, i + 1, offset))
        offset += len(write_change_vector(layout, cv))
    return RedoRecord(
        thread=placed.thread, rba=placed.rba, length=offset, vld=vld | (0x04 if got.lwn is not None else 0),
        scn=placed.scn, subscn=placed.subscn, con_uid=0, time=placed.time.replace(tzinfo=dt.UTC), lwn=got.lwn,
        vectors=tuple(out),
    )  # fmt: skip


def assert_records_as_written(
    got: Sequence[RedoRecord], written: Written, *, sequence: int, thread: int, every: bool = True
) -> None:
    """``got`` are the records the generator wrote into one log, in order (all of them if
    ``every``), each equal to what was written."""
    mine = sorted(rba for (t, rba) in written if t == thread and rba.seq == sequence)
    if every:
        assert [r.rba for r in got] == mine, f"thread {thread} seq {sequence}: other records than written"
    for record in got:
        assert record.thread == thread
        expected = expected_record(thread, record.rba, written, record)
        if record != expected:
            for name in ("rba", "length", "vld", "scn", "subscn", "time", "con_uid"):
                assert getattr(record, name) == getattr(expected, name), f"{record.rba}: {name}"
            for g, e in zip(record.vectors, expected.vectors, strict=True):
                assert g == e, f"{record.rba} change #{e.index}"
        assert record == expected
