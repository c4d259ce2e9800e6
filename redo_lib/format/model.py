"""The format model: the frozen values the binary reader and the text-dump parser both produce.

This module is the contract between the two inputs (binary archived log, ``ALTER SYSTEM DUMP
LOGFILE`` text) and everything downstream (row and transaction assembly). Nothing here parses or
does I/O; the parsers live in ``format/ops`` (binary) and ``dump/parse.py`` (text), the writer in
``format/writer.py``.

Conventions (redo-format.md):
* column values are ``bytes`` or ``None`` for SQL NULL; a column that is not in an image is simply
  absent from it (never ``None``);
* opcodes are ``(layer, code)`` tuples as Oracle writes them, e.g. ``(11, 2)``;
* positions of records are ``Rba`` values; SCNs are plain ints.
"""

from __future__ import annotations

import datetime as dt
import enum
from dataclasses import dataclass, field
from typing import final

from redo_lib.scn import Rba, Uba, Xid

Opcode = tuple[int, int]
Columns = tuple[bytes | None, ...]

# ---------------------------------------------------------------------------------------------
# Enumerations and flags (redo-format §5.0.1)


class KdoOpCode(enum.IntEnum):
    """KDO op code (``op & 0x1F`` of the KDO header, redo-format §5.0.1)."""

    IUR = 1
    IRP = 2
    DRP = 3
    LKR = 4
    URP = 5
    ORP = 6
    MFC = 7
    CFA = 8
    CKI = 9
    SKL = 10
    QMI = 11
    QMD = 12
    DSC = 14
    LMN = 16
    LLB = 17
    OP19 = 19
    SHK = 20
    OP21 = 21
    CMP = 22
    DCU = 23
    MRK = 24


class RowFlags(enum.IntFlag):
    """Row flag byte ``fb`` (dump: ``--H-FL--``)."""

    N = 0x01  # last column continues in the next piece
    P = 0x02  # first column continues from the previous piece
    L = 0x04  # last data piece
    F = 0x08  # first data piece
    D = 0x10  # deleted row
    H = 0x20  # head piece
    C = 0x40  # clustered table member
    K = 0x80  # cluster key

    def render(self) -> str:
        """Oracle's 8-character form, e.g. ``--H-FL--``."""
        letters = "KCHDFLPN"
        return "".join(ch if self & (0x80 >> i) else "-" for i, ch in enumerate(letters))


class KtubFlags(enum.IntFlag):
    """ktub flag word (u16 @20), redo-format §5.0.1."""

    MULTI_BLOCK_HEAD = 0x0001
    MULTI_BLOCK_TAIL = 0x0002
    LAST_BUFFER_SPLIT = 0x0004
    BEGIN_TRANSACTION = 0x0008
    USER_UNDO_DONE = 0x0010
    TEMP_OBJECT = 0x0020
    USER_ONLY = 0x0040
    TABLESPACE_UNDO = 0x0080
    MULTI_BLOCK_MID = 0x0100
    BUEXT = 0x0800


# ---------------------------------------------------------------------------------------------
# File level


@final
@dataclass(frozen=True, slots=True, kw_only=True)
class LogHeader:
    """Block 0 + block 1 of an archived log (redo-format §1.2, §1.4). Dump: ``FILE HEADER:``."""

    big_endian: bool
    block_size: int
    block_count: int  # u32 @24 of block 0: blocks in the file excluding block 0
    file_type: int  # byte 1 of block 0 (0x22 / 0x82)
    compat_version: int  # u32 @20 of block 1, e.g. 0x13000000
    dbid: int
    db_name: str
    control_seq: int
    file_size: int  # @40, blocks of the online log
    file_number: int
    activation_id: int
    description: str
    nab: int
    resetlogs_id: int
    resetlogs_scn: int
    hws: int
    thread: int
    sequence: int
    first_scn: int
    first_time: dt.datetime
    next_scn: int | None  # None when all-FF (log still open)
    next_time: dt.datetime
    enabled_scn: int
    enabled_time: dt.datetime
    thread_closed_scn: int
    thread_closed_time: dt.datetime
    misc_flags: int
    terminal_recovery_scn: int
    terminal_recovery_time: dt.datetime
    most_recent_scn: int
    largest_lwn: int
    real_next_scn: int | None
    prev_resetlogs_scn: int
    prev_resetlogs_id: int
    misc_flags2: int
    zero_blocks: int
    format_id: int
    eot: int
    dis: int
    checksum: int  # block 1 stored checksum

    @property
    def vector_header_size(self) -> int:
        """24 bytes before 12.1, 32 from 12.1 on (redo-format §4.1)."""
        return 32 if self.compat_version >= 0x0C100000 else 24

    @property
    def version_text(self) -> str:
        """Compatibility version as Oracle prints it, e.g. ``19.0.0`` or ``11.2.0.4``."""
        v = self.compat_version
        if v >= 0x12000000:
            return f"{v >> 24}.{(v >> 16) & 0xFF}.{(v >> 8) & 0xFF}"
        return f"{v >> 24}.{(v >> 20) & 0xF}.{(v >> 16) & 0xF}.{(v >> 8) & 0xFF}"


# ---------------------------------------------------------------------------------------------
# Shared sub-structures of change vectors


@final
@dataclass(frozen=True, slots=True, kw_only=True)
class KtbRedo:
    """KTB redo (dump ``KTB Redo`` / ``op: F xid: ... uba: ...``), redo-format §5.0.1."""

    op: int  # low nibble: 1 F, 2 C, 3 Z, 4 L, 5 R, 6 N; bit 0x10 = block cleanout follows
    flg: int
    xid: Xid | None = None  # op F (transaction's xid) and op L (ITL xid)
    uba: Uba | None = None
    scn: int | None = None  # op L
    cleanout_scn: int | None = None

    @property
    def op_letter(self) -> str:
        return {1: "F", 2: "C", 3: "Z", 4: "L", 5: "R", 6: "N"}.get(self.op & 0x0F, "?")


@final
@dataclass(frozen=True, slots=True, kw_only=True)
class Kdo:
    """KDO op header (dump ``KDO Op code: IRP ...``), redo-format §5.0.1. Op-specific fields are
    ``None`` when the op does not have them."""

    op: int  # & 0x1F = KdoOpCode
    bdba: int
    hdba: int = 0
    maxfr: int = 0
    xtype: int = 1  # flags & 0x03: 1 XA, 2 XR, 3 CR
    kdom2: bool = False  # flags & 0x80: columns packed in one field
    rowdeps: bool = False  # op & 0x40
    itli: int = 0
    ispac: int = 0
    slot: int | None = None  # IRP/ORP/DRP/LKR/URP/CFA/DSC
    tabn: int = 0
    fb: int | None = None  # IRP/ORP, URP (flag)
    lb: int | None = None
    cc: int | None = None  # IRP/ORP column count
    size_delt: int | None = None  # IRP/ORP size/delt; URP signed size delta
    hrid: tuple[int, int] | None = None  # (bdba, slot) head row id, IRP/ORP with F and not H
    nrid: tuple[int, int] | None = None  # (bdba, slot) next piece, IRP/ORP without L; CFA
    null_bitmap: bytes = b""
    ncol: int | None = None  # URP: columns in the piece
    nnew: int | None = None  # URP: columns updated
    lock: int | None = None
    ckix: int | None = None
    flag: int | None = None  # CFA
    slots: tuple[int, ...] = ()  # QMI / QMD

    @property
    def code(self) -> KdoOpCode | int:
        try:
            return KdoOpCode(self.op & 0x1F)
        except ValueError:
            return self.op & 0x1F

    def is_null(self, i: int) -> bool:
        """Bit ``i % 8`` of byte ``i // 8`` of the NULL bitmap (LSB first)."""
        byte = i >> 3
        return byte < len(self.null_bitmap) and bool(self.null_bitmap[byte] & (1 << (i & 7)))


@final
@dataclass(frozen=True, slots=True, kw_only=True)
class QmiRow:
    """One row of an 11.11 QMI array insert (or of a QMD undo), with its columns."""

    fb: int
    lb: int
    columns: Columns


@final
@dataclass(frozen=True, slots=True, kw_only=True)
class Supplemental:
    """Supplemental-log block at the end of a 5.1 undo vector (redo-format §5.0.1, S1..S4)."""

    op: int  # 1 UPDATE, 2 INSERT, 4 DELETE, 8 cluster key
    fb: int  # flags of the logical row change: F first pair, L last pair
    count: int
    objv: int
    start_before: int  # segcol# where the undo column data starts (1-based; 0 = none)
    start_after: int  # segcol# where the redo column data starts
    bdba: int | None = None  # head piece of the row (28-byte form)
    slot: int | None = None
    columns: tuple[tuple[int, bytes | None], ...] = ()  # (segcol#, value) extra logged columns


# ---------------------------------------------------------------------------------------------
# Op bodies: what each opcode means. One class per operation, docstring starts with the opcode.


@final
@dataclass(frozen=True, slots=True, kw_only=True)
class UndoRecord:
    """OP 5.1 — undo record (dump ``ktudb redo`` / ``ktubl redo`` / ``ktubu redo``), §5.1.

    For opc 11.1 (KDO undo) ``kdo`` and ``columns`` describe the inverse row operation: the
    before image. ``columns`` follow the KDO op (IRP/ORP: one per column of the piece; URP: one per
    entry of ``positions``). ``qmi_rows`` holds the rows of a QMI undo (array delete)."""

    xid: Xid
    uba_seq: int  # ktudb seq
    uba_rec: int  # ktudb rec
    ktudb_flg: int
    obj: int
    dataobj: int
    tsn: int
    opc: Opcode  # e.g. (11, 1), (10, 22), (26, 1), (14, 8)
    slt: int
    rci: int
    flg: int  # KtubFlags
    user: int | None = None  # ktubl logon user
    ktb: KtbRedo | None = None
    kdo: Kdo | None = None
    columns: Columns = ()
    positions: tuple[int, ...] = ()  # URP column positions (0-based within the piece)
    qmi_rows: tuple[QmiRow, ...] = ()
    rowdep_scn: int | None = None
    supplemental: Supplemental | None = None
    raw_fields: tuple[bytes, ...] = ()  # fields 3+ when opc is not 11.1 or undo is multi-block

    @property
    def begins_transaction(self) -> bool:
        return bool(self.flg & KtubFlags.BEGIN_TRANSACTION)

    @property
    def multi_block(self) -> bool:
        return bool(
            self.flg & (KtubFlags.MULTI_BLOCK_HEAD | KtubFlags.MULTI_BLOCK_TAIL | KtubFlags.MULTI_BLOCK_MID)
        )


@final
@dataclass(frozen=True, slots=True, kw_only=True)
class TransactionBegin:
    """OP 5.2 — undo segment header: transaction begin (dump ``ktudh redo``), §5.2."""

    xid: Xid  # usn from the vector's block class, slot and sqn from the body
    uba: Uba
    flg: int
    siz: int
    fbi: int
    parent_xid: Xid | None = None
    con_uid: int | None = None


@final
@dataclass(frozen=True, slots=True, kw_only=True)
class TransactionEnd:
    """OP 5.4 — commit or rollback (dump ``ktucm redo``), §5.3. ``rolled_back`` = flg bit 0x04."""

    xid: Xid
    srt: int
    sta: int
    flg: int
    uba: Uba | None = None  # ktucf
    unix_time: int | None = None  # last 4-byte field: Unix epoch seconds of the commit

    @property
    def rolled_back(self) -> bool:
        return bool(self.flg & 0x04)


@final
@dataclass(frozen=True, slots=True, kw_only=True)
class PartialRollback:
    """OP 5.6 (mark undo record user-undo-done) and OP 5.11 (rollback DBA), §5.4.

    Identifies the transaction by (usn from the block class, ktub slot) only: no sqn."""

    usn: int
    slt: int
    obj: int
    dataobj: int
    opc: Opcode
    flg: int


@final
@dataclass(frozen=True, slots=True, kw_only=True)
class RowOperation:
    """OP 11.x — redo row operation (dump ``KDO Op code: ...``), §5.6: 11.2 IRP insert row piece,
    11.3 DRP delete, 11.5 URP update, 11.6 ORP overwrite, 11.8 CFA, 11.11 QMI multi-row insert,
    11.12 QMD multi-row delete, 11.16 LMN, 11.22 CMP, and the others kept with their KDO."""

    ktb: KtbRedo | None
    kdo: Kdo
    columns: Columns = ()
    positions: tuple[int, ...] = ()  # URP
    qmi_rows: tuple[QmiRow, ...] = ()  # QMI
    rowdep_scn: int | None = None


@final
@dataclass(frozen=True, slots=True, kw_only=True)
class SessionInfo:
    """OP 5.19 (transaction start audit) / OP 5.20 (transaction continue), §5.5."""

    session: int
    serial: int
    current_user: str = ""
    login_user: str = ""
    client_info: str = ""
    os_user: str = ""
    machine: str = ""
    terminal: str = ""
    process: str = ""
    program: str = ""
    transaction_name: str = ""
    flags: int = 0
    flags2: int = 0
    version: int = 0
    audit_session_id: int = 0
    client_id: str = ""


@final
@dataclass(frozen=True, slots=True, kw_only=True)
class Ddl:
    """OP 24.1 — DDL (KRVDDL), §5.9."""

    xid: Xid
    ddl_type: int
    obj: int | None
    schema: str
    text: str


@final
@dataclass(frozen=True, slots=True, kw_only=True)
class DirectLoadBlock:
    """OP 19.1 — direct loader block (LOB page image, or a direct-path table block), §5.8."""

    dataobj: int
    lob_id: bytes
    page_no: int
    pdba: int
    data: bytes
    # Direct-path table block as a text dump shows it (``block_row_dump``): row numbers and rows.
    slots: tuple[int, ...] = ()
    rows: tuple[QmiRow, ...] = ()
    itl_xids: tuple[Xid, ...] = ()  # non-zero XIDs of the block's ITL (the loading transaction)


@final
@dataclass(frozen=True, slots=True, kw_only=True)
class KdliCommon:
    """kdli common part of a LOB vector (26.x field 2; 26.1 undo field 4), redo-format §5.10."""

    op: int  # 0 REDO, 1 UNDO, 2 CR, 3 FRMT, 4 INVL, 5 LOAD, 6 BIMG, 7 SINV
    type: int  # & 0x70: 0x00 new, 0x10 LHB, 0x20 data, 0x30 btree, 0x40 itree, 0x60 aux
    flg0: int
    flg1: int
    psiz: int
    poff: int
    dba: int  # the LOB block the vector changes


@final
@dataclass(frozen=True, slots=True, kw_only=True)
class KdliItem:
    """One kdli item (§5.10), by its code byte. Parsed: 1 info (``lob_id``, ``block``, ``slot``),
    5 zero (``offset``, ``size``), 6 fill (``offset``, ``size`` = fsiz, ``data``), 4 load data and
    12 load LHB (``lob_id``), 9 suplog (``xid``, ``obj``, ``column``); other codes keep ``raw``."""

    code: int
    lob_id: bytes = b""
    block: int = 0  # info: be32 block (the LOB page number in the generator's writes)
    slot: int = 0
    offset: int = 0
    size: int = 0
    data: bytes = b""
    xid: Xid | None = None
    obj: int = 0
    column: int = 0
    raw: bytes = b""


@final
@dataclass(frozen=True, slots=True, kw_only=True)
class LobChange:
    """OP 26.2 — LOB redo (KDLIRREDO), §5.10: KTB, kdli common, one or two kdli items.

    A data piece is a 26.2 with an info item (LOB id, page) and a fill item (the page bytes)."""

    ktb: KtbRedo | None
    common: KdliCommon
    items: tuple[KdliItem, ...] = ()

    def item(self, code: int) -> KdliItem | None:
        return next((i for i in self.items if i.code == code), None)


@final
@dataclass(frozen=True, slots=True, kw_only=True)
class LobImage:
    """OP 26.6 — LOB page image (BIMG, direct LOB load; SecureFile pages), §5.10: field 1 kdli common
    (op 6 = BIMG, the page's DBA), field 2 a kdli item of at least 32 bytes (the data object id u32
    @24; OLR's fpload layout: XID @16), field 3 a kdli item (load data: the LOB id @12), field 4 the raw
    page when the op is BIMG, then a kdli item (usually suplog: XID, obj, column). ``page`` is empty
    when the op is not BIMG; ``trailer`` is the last item, ``None`` when absent."""

    common: KdliCommon
    dataobj: int
    head: KdliItem  # field 2 (raw bytes; ``xid`` from @16)
    item: KdliItem  # field 3
    page: bytes = b""
    trailer: KdliItem | None = None


@final
@dataclass(frozen=True, slots=True, kw_only=True)
class LobSupport:
    """OP 11.17 — LLB, LogMiner LOB support (§5.0 catalogue: not handled by OLR; no field layout in
    the doc). Kept as observed in the real oracdc records (low confidence): field 1 16 bytes, field 2
    one ``kind`` byte, field 3 a structure that for kind 1 holds a 10-byte LOB id at @12 (LOB id shape
    of §5.7: first four bytes ``00 00 00 01``), field 4 8 bytes."""

    kind: int
    lob_id: bytes | None = None
    sizes: tuple[int, ...] = ()  # field lengths, for the report


@final
@dataclass(frozen=True, slots=True, kw_only=True)
class LobLocator:
    """A LOB column value in the row: the LOB locator (redo-format §7.8, OLR's reading).

    ``inline`` holds the data of an in-row value (flg2 0x0100, data from @36; ``b""`` for an empty
    LOB); ``dbas`` the page list of a value stored in LOB pages (flg2 0x0400: page count @24, bytes in
    the last page @28, page DBAs from @36). ``resolved_by_index`` marks the out-of-row form (flags
    0x04 clear) that only the LOB index can resolve."""

    flags: int
    lob_id: bytes
    flg2: int = 0
    inline: bytes | None = None
    page_count: int = 0
    last_page_bytes: int = 0
    dbas: tuple[int, ...] = ()
    resolved_by_index: bool = False


@final
@dataclass(frozen=True, slots=True, kw_only=True)
class Opaque:
    """Any vector we classify but do not interpret: 10.x index, 13.x space, 26.x LOB (for now),
    4.1 block cleanout, markers, unknown opcodes. Counted by opcode, never an error."""

    category: str  # "index", "space", "lob", "cleanout", "marker", "unknown", ...


OpBody = (
    UndoRecord
    | TransactionBegin
    | TransactionEnd
    | PartialRollback
    | RowOperation
    | SessionInfo
    | Ddl
    | DirectLoadBlock
    | LobChange
    | LobImage
    | LobSupport
    | Opaque
)


# ---------------------------------------------------------------------------------------------
# Records and vectors


@final
@dataclass(frozen=True, slots=True, kw_only=True)
class ChangeVector:
    """A change vector (dump ``CHANGE #n TYP:.. CLS:.. AFN:.. DBA:.. OBJ:.. SCN:.. SEQ:.. OP:l.c``),
    redo-format §4. ``fields`` holds the raw field bytes (empty when parsed from dump text)."""

    index: int  # 1-based CHANGE #
    layer: int
    code: int
    block_class: int  # CLS
    afn: int
    dba: int
    obj: int | None  # data object id of the header (@6/@22); None when 0xFFFFFFFF
    scn: int
    seq: int
    change_type: int  # TYP
    con_id: int = 0
    flg: int = 0
    body: OpBody
    fields: tuple[bytes, ...] = ()
    offset: int = 0  # byte offset of the vector inside its record

    @property
    def opcode(self) -> Opcode:
        return (self.layer, self.code)

    @property
    def usn(self) -> int:
        """USN from the block class: ``(cls - 15) // 2`` when cls >= 15, else -1 (§4.1)."""
        return (self.block_class - 15) // 2 if self.block_class >= 15 else -1


@final
@dataclass(frozen=True, slots=True, kw_only=True)
class LwnHeader:
    """LWN header carried by a record with VLD 0x04 (dump ``(LWN RBA: ... LEN: ... NST: ...``)."""

    number: int
    nst: int
    length: int  # blocks
    scn: int
    time: dt.datetime


@final
@dataclass(frozen=True, slots=True, kw_only=True)
class RedoRecord:
    """A redo record (dump ``REDO RECORD - Thread:1 RBA: ... LEN: ... VLD: ...``), §3.2.

    ``time`` is the timestamp of the LWN the record belongs to (records have no time of their own).
    """

    thread: int
    rba: Rba
    length: int
    vld: int
    scn: int
    subscn: int
    con_uid: int
    time: dt.datetime
    lwn: LwnHeader | None = None
    vectors: tuple[ChangeVector, ...] = field(default=())

    @property
    def valid(self) -> bool:
        """VLD bit 0x01 (OLR skips records without it; they are real and read anyway)."""
        return bool(self.vld & 0x01)
