"""Change events: the flat, per-record output of decoding, and the input of transaction assembly.

A redo record is turned into a few ``ChangeEvent`` values by pairing its vectors (redo-format
§6.1): a transaction begin (5.2), an undo/redo data pair (5.1 + 11.x), a partial rollback
(11.x + 5.6/5.11, or a lone 5.6/5.11), a commit or rollback (5.4), a DDL (24.1). Everything the
later steps need travels in the event, so events can be written to Parquet by one Spark task,
grouped by transaction in another, and carried across batches as plain rows.

Events hold only plain values (ints, strings, bytes, tuples): they pickle, they turn into Arrow rows
with ``to_row``/``from_row``, and they order by redo position with ``sort_key``.

Layer 3 (assembly): imports format.model and layer 0.
"""

from __future__ import annotations

import datetime as dt
import enum
import functools
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any, final

from redo_lib.format.lobs import lob_image_piece, lob_index_entry, lob_piece
from redo_lib.format.model import (
    ChangeVector,
    Ddl,
    DirectLoadBlock,
    Kdo,
    KdoOpCode,
    LobChange,
    LobImage,
    PartialRollback,
    RedoRecord,
    RowOperation,
    TransactionBegin,
    TransactionEnd,
    UndoRecord,
)
from redo_lib.scn import Xid

# An image: (column index in the row, value) pairs, value None for SQL NULL. Index is segcol# - 1.
Image = tuple[tuple[int, bytes | None], ...]
# Rows of a multi-row operation: (slot, columns) in slot order.
MultiRows = tuple[tuple[int, tuple[bytes | None, ...]], ...]

NO_SQN = -1  # partial rollbacks name their transaction by (usn, slot) only


class EventKind(enum.IntEnum):
    BEGIN = 1
    CHANGE = 2
    PARTIAL_ROLLBACK = 3
    COMMIT = 4
    ROLLBACK = 5
    DDL = 6
    LOB = 7  # a piece of LOB data (5.1 opc 26.1 + 26.2 with a fill item), see docs/lobs.md


@final
@dataclass(frozen=True, slots=True, kw_only=True)
class ChangeEvent:
    """One transaction-relevant event of the redo, at its redo position."""

    kind: EventKind
    usn: int
    slot: int
    sqn: int  # NO_SQN for partial rollbacks
    thread: int
    seq: int
    block: int
    offset: int
    scn: int
    subscn: int
    time: dt.datetime
    vector: int = 0  # CHANGE # of the (redo) vector inside the record, for ordering and tracing
    obj: int = 0
    dataobj: int = 0
    undo_op: int = 0  # KDO op code of the undo (0 when none)
    redo_op: int = 0  # layer*256 + code of the redo vector, e.g. 0x0B02 for 11.2; 0 = lone undo
    bdba: int = 0  # row address from the KDO
    row_slot: int = 0
    fb: int = 0  # redo piece row flags (IRP/ORP); 0 when not known
    undo_fb: int = 0  # undo piece row flags (undo IRP/ORP of deletes and overwrites)
    supp_fb: int | None = None  # supplemental header fb (None: no supplemental logging)
    supp_op: int = 0
    supp_bdba: int = 0
    supp_slot: int = 0
    before: Image = ()  # undo columns, already placed at their row column index
    after: Image = ()  # redo columns, placed
    supp_columns: Image = ()  # supplemental extra columns (segcol# - 1, value)
    rows: MultiRows = ()  # QMI / QMD rows (after for inserts, before for deletes)
    ddl_text: str = ""
    ddl_schema: str = ""
    lob_id: bytes = b""  # LOB pieces: the 10-byte LOB id, page number and data; bdba = the page DBA
    lob_page: int = 0
    lob_data: bytes = b""
    extra: tuple[tuple[str, Any], ...] = field(default=())

    @property
    def xid(self) -> Xid:
        return Xid(self.usn, self.slot, self.sqn)

    @property
    def sort_key(self) -> tuple[int, int, int, int, int, int]:
        """Redo order inside one thread and across threads: (SCN, sub-SCN, thread, seq, block, offset)."""
        return (self.scn, self.subscn, self.thread, self.seq, self.block, self.offset * 256 + self.vector)

    @property
    def redo_opcode(self) -> tuple[int, int]:
        return (self.redo_op >> 8, self.redo_op & 0xFF)

    def to_row(self) -> dict[str, Any]:
        """A flat dict for Arrow/Parquet (images as lists of {col, value} structs)."""
        return {
            "kind": int(self.kind),
            "usn": self.usn,
            "slot": self.slot,
            "sqn": self.sqn,
            "thread": self.thread,
            "seq": self.seq,
            "block": self.block,
            "offset": self.offset,
            "scn": self.scn,
            "subscn": self.subscn,
            "time": self.time,
            "vector": self.vector,
            "obj": self.obj,
            "dataobj": self.dataobj,
            "undo_op": self.undo_op,
            "redo_op": self.redo_op,
            "bdba": self.bdba,
            "row_slot": self.row_slot,
            "fb": self.fb,
            "undo_fb": self.undo_fb,
            "supp_fb": self.supp_fb,
            "supp_op": self.supp_op,
            "supp_bdba": self.supp_bdba,
            "supp_slot": self.supp_slot,
            "before": [{"col": c, "value": v} for c, v in self.before],
            "after": [{"col": c, "value": v} for c, v in self.after],
            "supp_columns": [{"col": c, "value": v} for c, v in self.supp_columns],
            "rows": [{"slot": s, "values": list(vals)} for s, vals in self.rows],
            "ddl_text": self.ddl_text,
            "ddl_schema": self.ddl_schema,
            "lob_id": self.lob_id,
            "lob_page": self.lob_page,
            "lob_data": self.lob_data,
        }

    @classmethod
    def from_row(cls, row: dict[str, Any]) -> ChangeEvent:
        def image(items: Any) -> Image:
            return tuple((int(i["col"]), i["value"]) for i in items or ())

        time = row["time"]
        if isinstance(time, dt.datetime) and time.tzinfo is not None:
            time = time.astimezone(dt.UTC).replace(tzinfo=None)
        return cls(
            kind=EventKind(int(row["kind"])),
            usn=int(row["usn"]),
            slot=int(row["slot"]),
            sqn=int(row["sqn"]),
            thread=int(row["thread"]),
            seq=int(row["seq"]),
            block=int(row["block"]),
            offset=int(row["offset"]),
            scn=int(row["scn"]),
            subscn=int(row["subscn"]),
            time=time,
            vector=int(row["vector"]),
            obj=int(row["obj"]),
            dataobj=int(row["dataobj"]),
            undo_op=int(row["undo_op"]),
            redo_op=int(row["redo_op"]),
            bdba=int(row["bdba"]),
            row_slot=int(row["row_slot"]),
            fb=int(row["fb"]),
            undo_fb=int(row.get("undo_fb") or 0),
            supp_fb=None if row["supp_fb"] is None else int(row["supp_fb"]),
            supp_op=int(row["supp_op"]),
            supp_bdba=int(row["supp_bdba"]),
            supp_slot=int(row["supp_slot"]),
            before=image(row["before"]),
            after=image(row["after"]),
            supp_columns=image(row["supp_columns"]),
            rows=tuple((int(r["slot"]), tuple(r["values"])) for r in row["rows"] or ()),
            ddl_text=row.get("ddl_text") or "",
            ddl_schema=row.get("ddl_schema") or "",
            lob_id=bytes(row.get("lob_id") or b""),
            lob_page=int(row.get("lob_page") or 0),
            lob_data=bytes(row.get("lob_data") or b""),
        )


# ---------------------------------------------------------------------------------------------
# Column placement (redo-format §6.6.2)


#: The image index of an OLTP-compressed row piece kept whole (the core's ``unsupported::COMPRESSED_ROW``).
COMPRESSED_ROW = -1


def _place(
    columns: tuple[bytes | None, ...], kdo: Kdo | None, positions: tuple[int, ...], start: int
) -> Image:
    """Put the columns of one undo or redo piece at their row column index (0-based segcol# - 1).

    shift = start - 1 (start 0 means shift 0); for URP the first listed position lands on
    ``start - 1`` and the rest keep their relative distance. A column whose NULL-bitmap bit is set
    is NULL whatever its field holds."""
    shift = start - 1 if start > 0 else 0
    if (
        kdo is not None
        and not positions
        and len(columns) == 1
        and columns[0] is not None
        and kdo.cc is not None
        and kdo.cc != 1
        and kdo.size_delt is not None
        and len(columns[0]) == kdo.size_delt
    ):
        # an OLTP-compressed row image (redo-format §5.1): one field holding the whole row piece,
        # not a column value; kept whole under COMPRESSED_ROW so that the emitter counts the change
        # as unsupported unless the supplemental columns supply all it needs (the core's `place`)
        return ((COMPRESSED_ROW, columns[0]),)
    if positions:
        base = positions[0] if start > 0 else 0
        out: list[tuple[int, bytes | None]] = []
        for i, pos in enumerate(positions):
            value = columns[i] if i < len(columns) else None
            if kdo is not None and kdo.is_null(i):
                value = None
            out.append((pos - base + shift, value))
        return tuple(out)
    result: list[tuple[int, bytes | None]] = []
    count = len(columns)
    if kdo is not None and kdo.cc is not None:
        count = max(count, kdo.cc)
    for i in range(count):
        value = columns[i] if i < len(columns) else None
        if kdo is not None and kdo.is_null(i):
            value = None
        result.append((i + shift, value))
    return tuple(result)


def _multi_rows(rows: tuple[Any, ...], slots: tuple[int, ...]) -> MultiRows:
    return tuple((slots[i] if i < len(slots) else i, row.columns) for i, row in enumerate(rows))


# ---------------------------------------------------------------------------------------------
# Pairing the vectors of one record (redo-format §6.1)


def _opval(vector: ChangeVector) -> int:
    return (vector.layer << 8) | vector.code


def _event_base(record: RedoRecord, vector: ChangeVector) -> dict[str, Any]:
    return {
        "thread": record.thread,
        "seq": record.rba.seq,
        "block": record.rba.block,
        "offset": record.rba.offset,
        "scn": record.scn,
        "subscn": record.subscn,
        "time": record.time,
        "vector": vector.index,
    }


def _pair_event(record: RedoRecord, undo_vec: ChangeVector, redo_vec: ChangeVector | None) -> ChangeEvent:
    undo = undo_vec.body
    assert isinstance(undo, UndoRecord)
    redo = redo_vec.body if redo_vec is not None else None
    rkdo: Kdo | None = redo.kdo if isinstance(redo, RowOperation) else None
    ukdo = undo.kdo
    supp = undo.supplemental
    start_before = supp.start_before if supp else 0
    start_after = supp.start_after if supp else 0
    before: Image = ()
    if ukdo is not None and undo.columns:
        before = _place(undo.columns, ukdo, undo.positions, start_before)
    after: Image = ()
    rows: MultiRows = ()
    if isinstance(redo, RowOperation):
        if redo.columns:
            after = _place(redo.columns, rkdo, redo.positions, start_after)
        if (
            rkdo is not None
            and ukdo is not None
            and (rkdo.op & 0x1F) == KdoOpCode.URP
            and rkdo.ncol is not None
            and ukdo.ncol is not None
            and rkdo.ncol < ukdo.ncol
        ):
            # trailing columns set to NULL: Oracle cuts them from the row piece (redo ncol shrinks)
            # and the redo URP carries no value for them; their undo positions say which they are
            present = {c for c, _ in after}
            extra = [
                (before[i][0], None)
                for i, pos in enumerate(undo.positions)
                if pos >= rkdo.ncol and i < len(before) and before[i][0] not in present
            ]
            after = after + tuple(extra)
        if redo.qmi_rows:
            rows = _multi_rows(redo.qmi_rows, rkdo.slots if rkdo else ())
    if not rows and undo.qmi_rows:
        rows = _multi_rows(undo.qmi_rows, ukdo.slots if ukdo else ())
    if not rows and rkdo is not None and (rkdo.op & 0x1F) == KdoOpCode.QMD and ukdo is not None:
        rows = tuple((s, ()) for s in rkdo.slots)
    kdo = rkdo or ukdo
    obj = undo.obj or (redo_vec.obj if redo_vec is not None and redo_vec.obj else 0)
    dataobj = undo.dataobj or (redo_vec.obj if redo_vec is not None and redo_vec.obj else 0)
    supp_cols: Image = tuple((segcol - 1, v) for segcol, v in supp.columns) if supp else ()
    base = _event_base(record, redo_vec or undo_vec)
    return ChangeEvent(
        kind=EventKind.CHANGE,
        usn=undo.xid.usn,
        slot=undo.xid.slot,
        sqn=undo.xid.sqn,
        obj=obj,
        dataobj=dataobj,
        undo_op=(ukdo.op & 0x1F) if ukdo is not None else 0,
        redo_op=_opval(redo_vec) if redo_vec is not None else 0,
        bdba=kdo.bdba if kdo is not None else 0,
        row_slot=(kdo.slot or 0) if kdo is not None else 0,
        fb=(rkdo.fb or 0) if rkdo is not None else 0,
        undo_fb=(ukdo.fb or 0) if ukdo is not None else 0,
        supp_fb=supp.fb if supp else None,
        supp_op=supp.op if supp else 0,
        supp_bdba=(supp.bdba or 0) if supp else 0,
        supp_slot=(supp.slot or 0) if supp else 0,
        before=before,
        after=after,
        supp_columns=supp_cols,
        rows=rows,
        **base,
    )


def iter_events(record: RedoRecord) -> Iterator[ChangeEvent]:
    """The change events of one redo record, in vector order (redo-format §6.1).

    A 5.1 is paired with the 11.x that follows it; a 5.1 of opc 26.1 followed by a 26.2 that writes
    LOB data is a LOB piece (kind LOB), so is a 26.6 page image, and a 5.1 of opc 10.22 followed by a
    BasicFile LOB index 10.2 / 10.8 a LOB index entry (kind LOB, op 10.x: docs/lobs.md); other 5.1 +
    10.x/26.x pairs (index or LOB maintenance) yield
    nothing (index changes never enter the trail, contract rule 3). An 11.x
    followed by 5.6/5.11 is a partial rollback; so is a lone 5.6/5.11 with "user undo done"."""
    vectors = record.vectors
    i = 0
    n = len(vectors)
    while i < n:
        vec = vectors[i]
        body = vec.body
        nxt = vectors[i + 1] if i + 1 < n else None
        if isinstance(body, TransactionBegin):
            if body.xid.sqn != 0:
                yield ChangeEvent(
                    kind=EventKind.BEGIN, usn=body.xid.usn, slot=body.xid.slot, sqn=body.xid.sqn,
                    **_event_base(record, vec),
                )  # fmt: skip
        elif isinstance(body, TransactionEnd):
            yield ChangeEvent(
                kind=EventKind.ROLLBACK if body.rolled_back else EventKind.COMMIT,
                usn=body.xid.usn, slot=body.xid.slot, sqn=body.xid.sqn,
                **_event_base(record, vec),
            )  # fmt: skip
        elif isinstance(body, UndoRecord):
            if body.opc == (26, 1) and nxt is not None and isinstance(nxt.body, LobChange):
                piece = lob_piece(nxt.body)
                if piece is not None:  # LOB data of the undo's transaction (§6.1 LOB pair, §6.7)
                    yield ChangeEvent(
                        kind=EventKind.LOB, usn=body.xid.usn, slot=body.xid.slot, sqn=body.xid.sqn,
                        obj=body.obj, dataobj=body.dataobj, redo_op=_opval(nxt), bdba=nxt.body.common.dba,
                        lob_id=piece[0], lob_page=piece[1], lob_data=piece[2], **_event_base(record, nxt),
                    )  # fmt: skip
                i += 2
                continue
            entry = (
                lob_index_entry(nxt.code, nxt.fields)
                if body.opc == (10, 22) and nxt and nxt.layer == 10
                else None
            )
            if entry is not None:  # a BasicFile LOB index entry (§5.7): the LOB store's page map
                assert nxt is not None
                yield ChangeEvent(
                    kind=EventKind.LOB, usn=body.xid.usn, slot=body.xid.slot, sqn=body.xid.sqn,
                    obj=body.obj, dataobj=body.dataobj, redo_op=_opval(nxt), lob_id=entry[0],
                    lob_page=entry[1], lob_data=entry[2], **_event_base(record, nxt),
                )  # fmt: skip
                i += 2
                continue
            if body.opc != (11, 1):
                # index (10.22), LOB (26.1), truncate (14.8) undo: skip it and its redo partner
                if nxt is not None and nxt.layer in (10, 26):
                    i += 1
                i += 1
                continue
            if nxt is not None and isinstance(nxt.body, RowOperation):
                yield _pair_event(record, vec, nxt)
                i += 2
                continue
            # a lone undo (e.g. a multi-block piece, or the undo of a lock): kept for rollback matching
            yield _pair_event(record, vec, None)
        elif isinstance(body, RowOperation):
            if nxt is not None and isinstance(nxt.body, PartialRollback):
                pr = nxt.body
                yield ChangeEvent(
                    kind=EventKind.PARTIAL_ROLLBACK, usn=pr.usn, slot=pr.slt, sqn=NO_SQN,
                    obj=pr.obj, dataobj=pr.dataobj, redo_op=_opval(vec), bdba=body.kdo.bdba,
                    row_slot=body.kdo.slot or 0, **_event_base(record, vec),
                )  # fmt: skip
                i += 2
                continue
            # an 11.x without its undo (block cleanouts, recursive changes): not a trail change
        elif isinstance(body, PartialRollback):
            yield ChangeEvent(
                kind=EventKind.PARTIAL_ROLLBACK, usn=body.usn, slot=body.slt, sqn=NO_SQN,
                obj=body.obj, dataobj=body.dataobj, redo_op=0, **_event_base(record, vec),
            )  # fmt: skip
        elif isinstance(body, DirectLoadBlock) and body.rows and body.itl_xids:
            # a direct-path table block (19.1): its rows are inserts of the transaction in its ITL,
            # in slot order (contract rule 4); LOB page images (no rows) are not row data
            xid = body.itl_xids[0]
            yield ChangeEvent(
                kind=EventKind.CHANGE, usn=xid.usn, slot=xid.slot, sqn=xid.sqn, dataobj=body.dataobj, bdba=vec.dba,
                redo_op=_opval(vec), rows=_multi_rows(body.rows, body.slots), **_event_base(record, vec),
            )  # fmt: skip
        elif isinstance(body, LobImage):
            image = lob_image_piece(body)
            if image is not None:  # a SecureFile page image (26.6): a LOB piece without an undo
                xid, obj, lob_id, data = image
                yield ChangeEvent(
                    kind=EventKind.LOB, usn=xid.usn, slot=xid.slot, sqn=xid.sqn, obj=obj, dataobj=body.dataobj,
                    redo_op=_opval(vec), bdba=body.common.dba, lob_id=lob_id, lob_data=data,
                    **_event_base(record, vec),
                )  # fmt: skip
        elif isinstance(body, Ddl):
            yield ChangeEvent(
                kind=EventKind.DDL, usn=body.xid.usn, slot=body.xid.slot, sqn=body.xid.sqn,
                obj=body.obj or 0, ddl_text=body.text, ddl_schema=body.schema, **_event_base(record, vec),
            )  # fmt: skip
        i += 1


_EPOCH = dt.datetime(1970, 1, 1)


def events_from_arrow(batch: Any) -> Iterator[ChangeEvent]:
    """The events of a record batch of ``events_schema()`` (time in microseconds since the epoch,
    as the decode writes it), as ``ChangeEvent`` values."""
    for row in batch.to_pylist():
        row["time"] = _EPOCH + dt.timedelta(microseconds=row["time"])
        yield ChangeEvent.from_row(row)


# Arrow rows of events (the assemble stage's input and the open transactions carried between batches)

_EPOCH = dt.datetime(1970, 1, 1)


def event_to_row(event: ChangeEvent) -> dict[str, Any]:
    """A change event as an Arrow/Parquet row; time as microseconds since the epoch (UTC wall clock:
    an integer, so no engine converts it through a local time zone on the way)."""
    row = event.to_row()
    t = event.time.replace(tzinfo=None) if event.time.tzinfo is not None else event.time
    row["time"] = (t - _EPOCH) // dt.timedelta(microseconds=1)
    return row


def _bytes(value: Any) -> bytes | None:
    return None if value is None else bytes(value)  # Spark hands binary back as bytearray


def event_from_row(row: dict[str, Any]) -> ChangeEvent:
    row = dict(row)
    row["time"] = _EPOCH + dt.timedelta(microseconds=int(row["time"]))
    for key in ("before", "after", "supp_columns"):
        row[key] = [{"col": i["col"], "value": _bytes(i["value"])} for i in row.get(key) or ()]
    row["rows"] = [
        {"slot": r["slot"], "values": [_bytes(v) for v in r["values"]]} for r in row.get("rows") or ()
    ]
    return ChangeEvent.from_row(row)


@functools.cache
def events_schema() -> Any:
    """The change events' schema: defined once, in the Rust core (``crates/redo-core/src/arrow.rs``,
    which builds the events), and taken from it here through the Arrow PyCapsule interface."""
    import pyarrow as pa

    from redo_lib.native import native

    return pa.schema(native.events_schema())
