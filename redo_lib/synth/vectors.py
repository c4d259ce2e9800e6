"""Change vectors of the generator: undo segments, transaction control, markers and noise.

Layouts follow redo-format §4-§5 and the real 19c / 23.6 vectors they describe: 5.2 / 5.4 on the
undo segment header (class 15 + 2·usn), 5.1 / 5.6 on an undo block (class 16 + 2·usn), 11.x / 19.1 /
10.x / 4.1 on data blocks (class 1, header object id = data object id), 5.19 / 5.20 / 24.x as media
recovery markers (class 0, TYP 6). Row operations themselves are built in ``pairs.py``.

Noise vectors carry raw fields shaped like the real ones (§5.7, §5.0.1) and an ``Opaque`` body:
index maintenance (5.1 with opc 10.22 + 10.2), block cleanout (4.1), space management (13.x inside
a recursive transaction), 24.4 markers after commits and VLD-0x02 records with a 23.1 vector.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
from dataclasses import dataclass

from redo_lib.format.model import (
    ChangeVector,
    Ddl,
    KdliCommon,
    KdliItem,
    KdoOpCode,
    KtbRedo,
    LobChange,
    LobImage,
    Opaque,
    OpBody,
    PartialRollback,
    RowOperation,
    SessionInfo,
    TransactionBegin,
    TransactionEnd,
    UndoRecord,
)
from redo_lib.format.writer import WriterLayout, write_kdli_common, write_kdli_item, write_ktb
from redo_lib.scn import Uba, Xid
from redo_lib.synth.database import make_dba
from redo_lib.synth.lobs import LobPage

__all__ = ["Txn", "UndoSegment", "Vectors"]

_UNDO_BLOCKS = 0x4000  # undo blocks per segment before wrapping
_RECORDS_PER_UNDO_BLOCK = 40
_COMPENSATION_OP = {
    KdoOpCode.DRP: (11, 3),
    KdoOpCode.IRP: (11, 2),
    KdoOpCode.URP: (11, 5),
    KdoOpCode.ORP: (11, 6),
    KdoOpCode.QMD: (11, 12),
    KdoOpCode.QMI: (11, 11),
}


@dataclass(slots=True)
class UndoSegment:
    """One undo segment: its header block (for 5.2 / 5.4) and the undo block being filled."""

    usn: int
    afn: int
    header_block: int
    block: int = 0
    seq: int = 1
    rec: int = 0

    @property
    def header_dba(self) -> int:
        return make_dba(self.afn, self.header_block)

    def next_uba(self) -> Uba:
        """Address of the next undo record (UBA: undo block DBA, block sequence, record)."""
        if self.block == 0 or self.rec >= _RECORDS_PER_UNDO_BLOCK:
            offset = (self.block - self.header_block) % _UNDO_BLOCKS if self.block else 0
            self.block = self.header_block + 1 + offset
            self.seq = (self.seq + 1) & 0xFFFF or 1
            self.rec = 0
        self.rec += 1
        return Uba(make_dba(self.afn, self.block), self.seq, self.rec)


@dataclass(slots=True)
class Txn:
    """Identity of an open transaction as the vectors need it."""

    xid: Xid
    segment: UndoSegment
    first_uba: Uba | None = None
    begun: bool = False  # its 5.2 has been written


class Vectors:
    """Builds ``ChangeVector`` values for one log layout."""

    def __init__(self, layout: WriterLayout) -> None:
        self.layout = layout
        self.compat = layout.compat_version

    def _cv(
        self,
        layer: int,
        code: int,
        cls: int,
        afn: int,
        dba: int,
        obj: int | None,
        scn: int,
        body: OpBody,
        *,
        typ: int = 0,
        fields: tuple[bytes, ...] = (),
    ) -> ChangeVector:
        return ChangeVector(
            index=1,
            layer=layer,
            code=code,
            block_class=cls,
            afn=afn,
            dba=dba,
            obj=obj,
            scn=max(scn - 1, 0),
            seq=1,
            change_type=typ,
            body=body,
            fields=fields,
        )

    # -- transaction control (§5.2, §5.3, §5.4) ----------------------------------------------------

    def begin(self, txn: Txn, uba: Uba, scn: int) -> ChangeVector:
        seg = txn.segment
        body = TransactionBegin(xid=txn.xid, uba=uba, flg=0x12, siz=136, fbi=0, parent_xid=Xid(0, 0, 0))
        return self._cv(5, 2, 15 + 2 * seg.usn, seg.afn, seg.header_dba, None, scn, body)

    def undo(self, txn: Txn, uba: Uba, body: UndoRecord, scn: int) -> ChangeVector:
        seg = txn.segment
        return self._cv(5, 1, 16 + 2 * seg.usn, seg.afn, uba.block, None, scn, body)

    def redo(self, rfile: int, dataobj: int, body: RowOperation, scn: int) -> ChangeVector:
        layer, code = 11, body.kdo.op & 0x1F
        return self._cv(layer, code, 1, rfile, body.kdo.bdba, dataobj, scn, body, typ=2)

    def commit(
        self, txn: Txn, last_uba: Uba | None, scn: int, time: dt.datetime, *, rolled_back: bool
    ) -> ChangeVector:
        seg = txn.segment
        unix = int(time.replace(tzinfo=dt.UTC).timestamp())
        flg = (0x04 if rolled_back else 0) | 0x02
        body = TransactionEnd(
            xid=txn.xid, srt=0, sta=9, flg=flg, uba=last_uba or Uba(0, 0, 0), unix_time=unix
        )
        return self._cv(5, 4, 15 + 2 * seg.usn, seg.afn, seg.header_dba, None, scn, body)

    def compensation(
        self, txn: Txn, undo: UndoRecord, rfile: int, dataobj: int, uba: Uba, scn: int
    ) -> list[ChangeVector]:
        """Rollback of one undo record (§6.3): the undo applied as an 11.x with xtype XR (2), then
        5.6 (or 5.11 for the transaction's first undo record) naming (usn, slot)."""
        assert undo.kdo is not None
        kdo = undo.kdo
        layer, code = _COMPENSATION_OP[KdoOpCode(kdo.op & 0x1F)]
        op = RowOperation(
            ktb=KtbRedo(op=0x02, flg=0x0D, uba=uba),
            kdo=dataclasses.replace(kdo, xtype=2),
            columns=undo.columns,
            positions=undo.positions,
            qmi_rows=undo.qmi_rows,
        )
        seg = txn.segment
        first = bool(undo.flg & 0x08)
        rb = PartialRollback(
            usn=seg.usn, slt=txn.xid.slot, obj=undo.obj, dataobj=undo.dataobj, opc=(11, 1), flg=0x10
        )
        if first:
            end = self._cv(5, 11, 15 + 2 * seg.usn, seg.afn, seg.header_dba, None, scn, rb)
        else:
            end = self._cv(5, 6, 16 + 2 * seg.usn, seg.afn, uba.block, None, scn, rb)
        return [self._cv(layer, code, 1, rfile, kdo.bdba, dataobj, scn, op, typ=2), end]

    # -- LOB pieces (§5.10, §6.7) ---------------------------------------------------------------

    def lob_undo_fields(self, page: LobPage) -> tuple[bytes, ...]:
        """Fields 3-5 of the 5.1 (opc 26.1) of a LOB piece: KTB, kdli common (op UNDO), info item."""
        lay = self.layout
        common = KdliCommon(op=1, type=0x20, flg0=0, flg1=0, psiz=0, poff=0, dba=page.dba)
        info = KdliItem(code=1, lob_id=page.lob_id, block=page.page)
        return (
            write_ktb(lay, KtbRedo(op=0x03, flg=0x0D)),
            write_kdli_common(lay, common),
            write_kdli_item(lay, info),
        )

    def lob_redo(self, page: LobPage, ktb: KtbRedo, dataobj: int, scn: int) -> ChangeVector:
        """26.2 writing one LOB page: kdli common (op REDO, type data, DBA), info item (LOB id, page),
        fill item (the bytes)."""
        body = LobChange(
            ktb=ktb,
            common=KdliCommon(op=0, type=0x20, flg0=0, flg1=0, psiz=len(page.data), poff=0, dba=page.dba),
            items=(
                KdliItem(code=1, lob_id=page.lob_id, block=page.page),
                KdliItem(code=6, size=len(page.data), data=page.data),
            ),
        )
        return self._cv(26, 2, 1, page.dba >> 22, page.dba, dataobj, scn, body, typ=2)

    def lob_index_undo_fields(self, lob_id: bytes, first_page: int) -> tuple[tuple[bytes, ...], bytes]:
        """(fields 3-5 of the 5.1 opc 10.22 of a LOB index entry: KTB, kdilk, the key; the key): the
        BasicFile LOB index key (§5.7, 16 bytes): 10, the LOB id, 4, be32 page number."""
        lay = self.layout
        key = bytes([10]) + lob_id.ljust(10, b"\0") + bytes([4]) + first_page.to_bytes(4, "big")
        kdilk = lay.pack("BBBxIIiI", 1, 2, 0x01, 0, 0, 0, 0)
        return (write_ktb(lay, KtbRedo(op=0x03, flg=0x0D)), kdilk, key), key

    def lob_index_redo(
        self, ktb: KtbRedo, key: bytes, dbas: list[int], index_obj: int, scn: int
    ) -> ChangeVector:
        """10.2 insert leaf row of a LOB index (§5.7): KTB, (itl, code 0 single, sno, row size), the
        key, the key data (the pages' be32 DBAs)."""
        lay = self.layout
        keydata = b"".join(d.to_bytes(4, "big") for d in dbas)
        head = lay.pack("BBHH", 2, 0, 1, len(key) + len(keydata))
        fields = (write_ktb(lay, ktb), head, key, keydata)
        return self._cv(10, 2, 1, 5, dbas[0], index_obj, scn, Opaque(category="index"), typ=2, fields=fields)

    def lob_image(self, page: LobPage, xid: Xid, obj: int, dataobj: int, scn: int) -> ChangeVector:
        """26.6 writing one SecureFile page as a page image (§5.10): kdli common (op BIMG, type data,
        the page's DBA); field 2 (32 bytes, OLR's fpload: code 11, bsz @4, SCN @8, XID @16, data object
        @24); field 3 a load data item (code 4, 56 bytes, the LOB id @12); field 4 the page's bytes;
        field 5 a suplog item (code 9: XID @4, obj @12, column @18) naming the transaction."""
        lay = self.layout
        head = (
            lay.pack("BxxxI", 11, len(page.data)) + lay.scn8(scn) + lay.xid(xid) + lay.pack("II", dataobj, 0)
        )
        load = bytes([4]) + bytes(11) + page.lob_id.ljust(10, b"\0") + bytes(34)
        suplog = bytes([9, 0, 0, 0]) + lay.xid(xid) + lay.pack("IHHI", obj, 1, page.column, 0)
        body = LobImage(
            common=KdliCommon(op=6, type=0x20, flg0=0, flg1=0, psiz=len(page.data), poff=0, dba=page.dba),
            dataobj=dataobj,
            head=KdliItem(code=11, xid=xid, raw=head),
            item=KdliItem(code=4, lob_id=page.lob_id, raw=load),
            page=page.data,
            trailer=KdliItem(code=9, xid=xid, obj=obj, column=page.column, raw=suplog),
        )
        return self._cv(26, 6, 1, page.dba >> 22, page.dba, dataobj, scn, body, typ=2)

    def lob_compensation(self, txn: Txn, undo: UndoRecord, uba: Uba, scn: int) -> list[ChangeVector]:
        """Rollback of a LOB piece (or LOB index entry): a stand-alone 5.6 (5.11 for the transaction's
        first undo record) with the undo's opc (26.1, 10.22) and "user undo done" (§6.3; the decoder
        pops the LOB event, docs/lobs.md)."""
        seg = txn.segment
        rb = PartialRollback(
            usn=seg.usn, slt=txn.xid.slot, obj=undo.obj, dataobj=undo.dataobj, opc=undo.opc, flg=0x10
        )
        if undo.flg & 0x08:
            return [self._cv(5, 11, 15 + 2 * seg.usn, seg.afn, seg.header_dba, None, scn, rb)]
        return [self._cv(5, 6, 16 + 2 * seg.usn, seg.afn, uba.block, None, scn, rb)]

    # -- markers (§5.5, 24.x) -------------------------------------------------------------------

    def session(self, session_no: int, user: str, program: str) -> ChangeVector:
        """5.19 (19c+) or 5.20 (11.2) after the first change of a transaction."""
        info = SessionInfo(
            session=session_no,
            serial=1000 + session_no,
            current_user=user,
            login_user=user,
            os_user="oracle",
            machine="synthhost",
            terminal="pts/0",
            process=str(4000 + session_no),
            program=program,
            version=self.compat,
            audit_session_id=0xFFFFFFFF,
        )
        code = 19 if self.compat >= 0x13000000 else 20
        return self._cv(5, code, 0, 0, 0, 0, 0, info, typ=6)

    def marker_24_4(self, xid: Xid, scn: int) -> ChangeVector:
        lay = self.layout
        f1 = lay.pack("HxxHHIHH", 0x2328, xid.usn, xid.slot, xid.sqn, 0xFF, 0x0E)
        fields = (f1, bytes((1, 10, 9, 0)), lay.pack("HI", 4, 1), lay.scn8(scn))
        return self._cv(24, 4, 0, 0, 0, 0, 0, Opaque(category="marker"), typ=6, fields=fields)

    def ddl(self, xid: Xid, ddl_type: int, obj: int, schema: str, text: str) -> ChangeVector:
        """24.1: the DDL statement of a DDL transaction (§5.9), a media recovery marker like 24.4."""
        body = Ddl(xid=xid, ddl_type=ddl_type, obj=obj, schema=schema, text=text)
        return self._cv(24, 1, 0, 0, 0, 0, 0, body, typ=6)

    def marker_24_6(self) -> ChangeVector:
        fields = (self.layout.pack("HI", 4, 1),)
        return self._cv(24, 6, 0, 0, 0, 0, 0, Opaque(category="marker"), typ=6, fields=fields)

    def block_written(self, rfile: int, block: int, scn: int) -> ChangeVector:
        """23.1 (block written record), carried by VLD 0x02 records in real files."""
        fields = (self.layout.pack("IIHxx", make_dba(rfile, block), 1, 1) + self.layout.scn8(scn),)
        return self._cv(23, 1, 0, 0, 0, 0, 0, Opaque(category="marker"), typ=6, fields=fields)

    # -- noise ------------------------------------------------------------------------------------

    def index_insert(
        self,
        txn: Txn,
        uba: Uba,
        index_obj: int,
        rfile: int,
        leaf_block: int,
        key: bytes,
        rowid: tuple[int, int],
        scn: int,
    ) -> list[ChangeVector]:
        """Index maintenance of an insert (§5.7, seed 000): 5.1 opc 10.22 + 10.2 insert leaf row."""
        undo, redo = self.index_leaf(txn, uba, index_obj, rfile, leaf_block, key, rowid, scn)
        return [self.undo(txn, uba, undo, scn), redo]

    def index_leaf(
        self,
        txn: Txn,
        uba: Uba,
        index_obj: int,
        rfile: int,
        leaf_block: int,
        key: bytes,
        rowid: tuple[int, int],
        scn: int,
        *,
        code: int = 2,
    ) -> tuple[UndoRecord, ChangeVector]:
        """An index-leaf change: the undo record (opc 10.22) and the 10.``code`` vector on the
        index segment ``index_obj`` (also an index-organized table's rows, synth/storage.py)."""
        lay = self.layout
        leaf = make_dba(rfile, leaf_block)
        ktb_l = write_ktb(
            lay, KtbRedo(op=0x04, flg=0x0D, xid=Xid(9, 1, 0x409), uba=Uba(0, 1, 1), scn=scn - 10)
        )
        kdilk = lay.pack("BBBxIIiI", 1, 2, 0x01, make_dba(rfile, leaf_block - 1), leaf, 0, 0)
        undo = UndoRecord(
            xid=txn.xid,
            uba_seq=uba.seq,
            uba_rec=uba.rec,
            ktudb_flg=0x22,
            obj=index_obj,
            dataobj=index_obj,
            tsn=4,
            opc=(10, 22),
            slt=txn.xid.slot,
            rci=0,
            flg=0,
            raw_fields=(ktb_l, kdilk, key),
        )
        ktb_f = write_ktb(lay, KtbRedo(op=0x01, flg=0x0D, xid=txn.xid, uba=uba))
        head = lay.pack("BBHH", 2, 0, 1, len(key) + 8)
        keydata = lay.pack("IH", make_dba(rfile, rowid[0]), rowid[1])[:6]
        redo = self._cv(
            10,
            code,
            1,
            rfile,
            leaf,
            index_obj,
            scn,
            Opaque(category="index"),
            fields=(ktb_f, head, key, keydata),
        )
        return undo, redo

    def cleanout(self, rfile: int, dataobj: int, block: int, scn: int) -> ChangeVector:
        """4.1 block cleanout (seed 000 "Block Cleanouts"): one 26-byte field, no transaction."""
        lay = self.layout
        field = (
            lay.pack("BBBB", 2, 1, 0x0D, 0)
            + lay.scn8(scn)
            + lay.pack("BBH", 2, 6, 0x8000)
            + lay.scn8(scn - 1)
            + bytes(2)
        )
        return self._cv(
            4, 1, 1, rfile, make_dba(rfile, block), dataobj, scn, Opaque(category="cleanout"), fields=(field,)
        )

    def space_pair(
        self, txn: Txn, uba: Uba, rfile: int, dataobj: int, bitmap_block: int, new_block: int, scn: int
    ) -> list[ChangeVector]:
        """A recursive space-management change: 5.1 (opc 13.22) + 13.22 on an L1 bitmap block."""
        lay = self.layout
        payload = lay.pack("IIHH", make_dba(rfile, new_block), 1, 1, 0) + bytes(4)
        undo = UndoRecord(
            xid=txn.xid,
            uba_seq=uba.seq,
            uba_rec=uba.rec,
            ktudb_flg=0x12,
            obj=dataobj,
            dataobj=dataobj,
            tsn=4,
            opc=(13, 22),
            slt=txn.xid.slot,
            rci=0,
            flg=0x08,
            user=0,
            raw_fields=(payload,),
        )
        redo = self._cv(
            13,
            22,
            8,
            rfile,
            make_dba(rfile, bitmap_block),
            dataobj,
            scn,
            Opaque(category="space"),
            fields=(payload,),
        )
        return [self.undo(txn, uba, undo, scn), redo]
