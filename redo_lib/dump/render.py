"""Format model -> logfile-dump text, in the layout of OpenLogReplicator's and Oracle's dumps.

``render_record(record, wide_scn=True)`` writes the 12.2+ layout OLR prints for 19c/23ai logs
(16-digit SCNs, ``CON_UID``/``CON_ID``/``FLG``, 19c ktub lines); ``wide_scn=False`` writes the
Oracle 11.2 layout of seed 000 (``0x0000.0018bcde``, ``Undo type:`` lines). ``dump/parse.py`` reads
both back to equal model values (the round trip the tests check).

Values the model does not keep are printed as fixed placeholders so that every line is present:
ktudb ``siz``/``spc``, ktub ``prev dba`` and the ktubl history lines, the KTB L lock flags,
block-cleanout ``ver``/``opt``, ktucf ``ext``/``spc``/``fbi``, IRP ``cki``, LKR ``to``; ktub ``wrp``
is printed as 1 for ktubl and as the XID's sqn for ktubu (what every real 23.6 vector shows). Lines
with a count the
model does not keep (cleanout entries, index/LOB undo details, the ITL list of KTB op R) are not
printed. ``tests/fixtures/dumps/render_differences.tsv`` lists each resulting difference from
OLR's own text with its reason.

Layer 2 (dump): imports errors, scn (layer 0) and format.model (layer 1).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from redo_lib.dump.headers import V12_2, DumpHeader, render_header
from redo_lib.dump.lines import render_time
from redo_lib.dump.parse import MARKER_TYPE, NO_OBJ
from redo_lib.dump.rows import KDO_OP_NAMES, KTB_LETTERS, XTYPE_NAMES
from redo_lib.format.model import (
    ChangeVector,
    Columns,
    DirectLoadBlock,
    Kdo,
    KdoOpCode,
    KtbRedo,
    LogHeader,
    OpBody,
    PartialRollback,
    QmiRow,
    RedoRecord,
    RowFlags,
    RowOperation,
    SessionInfo,
    Supplemental,
    TransactionBegin,
    TransactionEnd,
    UndoRecord,
)
from redo_lib.scn import NO_SCN, Uba, Xid, render_scn

_RULER = "0123456789" * 8
_ZERO_UBA = Uba(0, 0, 0)
_ZERO_XID = Xid(0, 0, 0)


def _fb(fb: int) -> str:
    return RowFlags(fb).render()


def _hex_value(value: bytes) -> list[str]:
    """`` c1 02`` groups of 25 bytes per line (OLR's and Oracle's column dump)."""
    chunks = [value[i : i + 25] for i in range(0, len(value), 25)] or [b""]
    return ["".join(f" {b:02x}" for b in chunk) for chunk in chunks]


def render_column(number: int, value: bytes | None) -> list[str]:
    """``col  0: [ 2]  c1 02`` (a value longer than 20 bytes starts on the next line)."""
    if value is None:
        return [f"col {number:2d}: *NULL*"]
    head = f"col {number:2d}: [{len(value):2d}]"
    parts = _hex_value(value)
    if len(value) <= 20:
        return [f"{head} {parts[0]}"]
    return [head, *parts]


def _columns(values: Columns, numbers: Iterable[int]) -> list[str]:
    out: list[str] = []
    for number, value in zip(numbers, values, strict=False):
        out.extend(render_column(number, value))
    return out


def _row_length(row: QmiRow, *, rowdeps: bool, wide: bool) -> int:
    """``tl:`` of a packed row: 3 header bytes, [row-dependency SCN], length-prefixed columns."""
    size = 3 + ((8 if wide else 6) if rowdeps else 0)
    for value in row.columns:
        size += 1 if value is None else (1 if len(value) <= 250 else 3) + len(value)
    return size


def render_ktb(ktb: KtbRedo, *, wide: bool) -> list[str]:
    """``KTB Redo`` block (redo-format §5.0.1)."""
    compat = ktb.flg & 0x04
    out = [
        "KTB Redo ",
        f"op: 0x{ktb.op:02x}  ver: 0x{ktb.flg & 0x03:02x}  ",
        f"compat bit: {compat} ({'post' if compat else 'pre'}-11) padding: {0 if ktb.flg & 0x10 else 1}",
    ]
    letter = KTB_LETTERS.get(ktb.op & 0x0F, "?")
    xid, uba = ktb.xid or _ZERO_XID, ktb.uba or _ZERO_UBA
    if letter == "F":
        out.append(f"op: F  xid:  {xid}    uba: {uba}")
    elif letter == "C":
        out.append(f"op: C  uba: {uba}")
    elif letter == "L":
        scn = render_scn(ktb.scn or 0, wide=wide)
        out.append(f"op: L  itl: xid:  {xid} uba: {uba}")
        out.append(f"                      flg: C---    lkc:  0     scn: {' ' if wide else ''}{scn}")
    elif letter == "R":
        out.append("op: R  itc: 0")
    else:
        out.append(f"op: {letter}")
    if ktb.op & 0x10:
        scn = render_scn(ktb.cleanout_scn or 0, wide=wide)
        extra = " bigscn: Y compact: Y spare: 00000000" if wide else ""
        out.append(f"Block cleanout record, scn:  {scn} ver: 0x01 opt: 0x02{extra}, entries follow...")
    return out


def _bitmap(kdo: Kdo) -> list[str]:
    cc = kdo.cc or 0
    bits = "".join("N" if kdo.is_null(i) else "-" for i in range(cc))
    if cc < 11:
        return [f"null: {bits}"]
    lines = ["null:", _RULER]
    lines.extend(bits[i : i + 80] for i in range(0, cc, 80))
    if cc % 80 == 0:
        lines.append("")
    return lines


def _slot(kdo: Kdo) -> str:
    slot = kdo.slot or 0
    return f"tabn: {kdo.tabn} slot: {slot}(0x{slot:x})"


def render_kdo(
    kdo: Kdo, columns: Columns, positions: tuple[int, ...], rows: tuple[QmiRow, ...], *, wide: bool
) -> list[str]:
    """``KDO Op code`` block and the row data of its op."""
    code = kdo.op & 0x1F
    out = [
        f"KDO Op code: {KDO_OP_NAMES.get(code, str(code))} row dependencies {'Enabled' if kdo.rowdeps else 'Disabled'}",
        f"  xtype: {XTYPE_NAMES.get(kdo.xtype, '0')}{'xtype KDO_KDOM2' if kdo.kdom2 else ''} "
        f"flags: 0x{0x80 if kdo.kdom2 else 0:08x}  bdba: 0x{kdo.bdba:08x}  hdba: 0x{kdo.hdba:08x}",
        f"itli: {kdo.itli}  ispac: {kdo.ispac}  maxfr: {kdo.maxfr}",
    ]
    fb = kdo.fb or 0
    if code in (KdoOpCode.IRP, KdoOpCode.ORP):
        out.append(f"{_slot(kdo)} size/delt: {kdo.size_delt or 0}")
        cki = f" cki: {kdo.ckix or 0}" if fb & RowFlags.C else ""
        out.append(f"fb: {_fb(fb)} lb: 0x{kdo.lb or 0:x}  cc: {kdo.cc or 0}{cki}")
        if code == KdoOpCode.IRP and fb & RowFlags.F and not fb & RowFlags.H:
            bdba, slot = kdo.hrid or (0, 0)
            out.append(f"hrid: 0x{bdba:08x}.{slot:x}")
        if not fb & RowFlags.L:
            bdba, slot = kdo.nrid or (0, 0)
            out.append(f"nrid:  0x{bdba:08x}.{slot:x}")
        if fb & RowFlags.K:
            out.append("curc: 0 comc: 0 pk: 0x00000000.0 nk: 0x00000000.0")
        out.extend(_bitmap(kdo))
        out.extend(_columns(columns, range(len(columns))))
    elif code == KdoOpCode.DRP:
        out.append(_slot(kdo))
    elif code == KdoOpCode.LKR:
        out.append(f"tabn: {kdo.tabn} slot: {kdo.slot or 0} to: 0")
    elif code == KdoOpCode.URP:
        out.append(f"{_slot(kdo)} flag: 0x{fb:02x} lock: {kdo.lock or 0} ckix: {kdo.ckix or 0}")
        out.append(f"ncol: {kdo.ncol or 0} nnew: {kdo.nnew or 0} size: {kdo.size_delt or 0}")
        if kdo.kdom2:
            out.append("Vector content: ")
        out.extend(_columns(columns, positions))
    elif code == KdoOpCode.CFA:
        bdba, slot = kdo.nrid or (0, 0)
        out.append(f"{_slot(kdo)} flag: 0x{kdo.flag or 0:02x}")
        out.append(f"lock: {kdo.lock or 0} nrid: 0x{bdba:08x}.{slot:x}")
    elif code in (KdoOpCode.QMI, KdoOpCode.QMD):
        out.append(f"tabn: {kdo.tabn} lock: {kdo.lock or 0} nrow: {len(kdo.slots)}")
        for i, slot in enumerate(kdo.slots):
            out.append(f"slot[{i}]: {slot}")
            if code == KdoOpCode.QMI and i < len(rows):
                row = rows[i]
                tl = _row_length(row, rowdeps=kdo.rowdeps, wide=wide)
                out.append(f"tl: {tl} fb: {_fb(row.fb)} lb: 0x{row.lb:x}  cc: {len(row.columns)}")
                out.extend(_columns(row.columns, range(len(row.columns))))
    elif code == KdoOpCode.DSC:
        out.append(_slot(kdo))
        out.append("piece relative column number: 0")
    elif code in (KdoOpCode.SKL, KdoOpCode.CKI):
        flag = kdo.flag or 0
        out.append(
            f"flag: {'F' if flag & 1 else '-'}{'B' if flag & 2 else '-'} lock: {kdo.lock or 0} {_slot(kdo)[8:]}"
        )
    return out


def _ktub_flags_narrow(flg: int, *, ktubl: bool) -> list[str]:
    """The pre-19c lines that show ktub flag bits (parse.py rebuilds the flags from them)."""
    if flg & 0x01:
        undo_type = "Multi-block undo - HEAD"
    elif flg & 0x02:
        undo_type = "Multi-Block undo - TAIL"
    elif flg & 0x100:
        undo_type = "Multi-block undo - MID"
    else:
        undo_type = "Regular undo      "
    split = "Yes" if flg & 0x04 else "No"
    tablespace = f"Tablespace Undo:  {'Yes' if flg & 0x80 else 'No'} "
    if ktubl:
        temp = f"Temp Object:  {'Yes' if flg & 0x20 else 'No'} "
        return [f"Undo type:  {undo_type}  Begin trans    Last buffer split:  {split} ", temp, tablespace]
    done = "User undo done   " if flg & 0x10 else ""
    begin = " Begin trans    " if flg & 0x08 else ""
    return [f"Undo type:  {undo_type} Undo type:  {done}{begin}Last buffer split:  {split} ", tablespace]


def _ktub_flags_wide(flg: int) -> list[str]:
    if flg & 0x01:
        undo_type = "MBU - HEAD  "
    elif flg & 0x02:
        undo_type = "MBU - TAIL  "
    elif flg & 0x100:
        undo_type = "MBU - MID   "
    else:
        undo_type = "Regular undo"

    def yes(bit: int) -> str:
        return "Yes" if flg & bit else " No"

    return [
        f"[Undo type  ] {undo_type}  [User undo done   ] {yes(0x10)}  [Last buffer split] {yes(0x04)} ",
        f"[Temp object]          {yes(0x20)}  [Tablespace Undo  ] {yes(0x80)}  [User only        ] {yes(0x40)} ",
    ]


def render_ktub(
    *,
    slt: int,
    rci: int,
    opc: tuple[int, int],
    obj: int,
    dataobj: int,
    tsn: int,
    flg: int,
    user: int | None,
    wrp: int,
    ktubl: bool,
    wide: bool,
) -> list[str]:
    """ktubl / ktubu lines (redo-format §5.0.1) in the 19c+ (wide) or pre-12.2 layout."""
    kind = "ktubl" if ktubl else "ktubu"
    objs = f"objn: {obj} objd: {dataobj} tsn: {tsn}"
    if wide:
        out = [
            f"{kind} redo: slt: {slt} wrp: {wrp} flg: 0x{flg:04x} prev dba:  0x00000000 rci: {rci} "
            f"opc: {opc[0]}.{opc[1]} [{objs}]"
        ]
        if ktubl:
            no_scn = render_scn(NO_SCN)
            out += _ktub_flags_wide(flg)
            out += [
                "Begin trans    ",
                f" prev ctl uba: {_ZERO_UBA} prev ctl max cmt scn:  {render_scn(0)} ",
                f" prev tx cmt scn:  {render_scn(0)} ",
                f" txn start scn:  {no_scn}  logon user: {user or 0}",
                " prev brb:  0x00000000  prev bcl:  0x00000000",
                "BuExt idx: 0 flg2: 0",
            ]
        return out
    out = [f"{kind} redo: slt: {slt} rci: {rci} opc: {opc[0]}.{opc[1]} {f'[{objs}]' if ktubl else objs}"]
    out += _ktub_flags_narrow(flg, ktubl=ktubl)
    if ktubl:
        zero = render_scn(0, wide=False)
        out += [
            f"             0x00000000  prev ctl uba: {_ZERO_UBA} ",
            f"prev ctl max cmt scn:  {zero}  prev tx cmt scn:  {zero} ",
            f"txn start scn:  {render_scn(NO_SCN, wide=False)}  logon user: {user or 0}  prev brb: 0  prev bcl: 0"
            " BuExt idx: 0 flg2: 0",
        ]
    else:
        out.append("             0x00000000")
        if flg & 0x800:
            out.append("BuExt idx: 0 flg2: 0")
    return out


def _supplemental(supp: Supplemental) -> list[str]:
    out = [
        f"supp log type: {supp.op} fb: {supp.fb} cc: {supp.count} before: {supp.start_before} after: {supp.start_after}"
    ]
    if supp.bdba is not None:
        out.append(f"supp log bdba: 0x{supp.bdba:08x}.{supp.slot or 0:x}")
    for segcol, value in supp.columns:
        out.extend(render_column(segcol, value))
    return out


def _undo(body: UndoRecord, *, wide: bool) -> list[str]:
    out = [
        f"ktudb redo: siz: 0 spc: 0 flg: 0x{body.ktudb_flg:04x} seq: 0x{body.uba_seq:04x} rec: 0x{body.uba_rec:02x}",
        f"            xid:  {body.xid}  ",
    ]
    ktubl = bool(body.flg & 0x08)
    out += render_ktub(
        slt=body.slt,
        rci=body.rci,
        opc=body.opc,
        obj=body.obj,
        dataobj=body.dataobj,
        tsn=body.tsn,
        flg=body.flg,
        user=body.user,
        wrp=1 if ktubl else body.xid.sqn & 0xFFFF,
        ktubl=ktubl,
        wide=wide,
    )
    if body.opc == (11, 1) and body.kdo is not None:
        out.append("KDO undo record:")
        if body.ktb is not None:
            out += render_ktb(body.ktb, wide=wide)
        out += render_kdo(body.kdo, body.columns, body.positions, body.qmi_rows, wide=wide)
        if body.rowdep_scn is not None:
            out.append(f"dscn: {render_scn(body.rowdep_scn, wide=wide)}")
        if body.supplemental is not None:
            out += _supplemental(body.supplemental)
    elif body.ktb is not None:
        out.append("KDLI undo record:" if body.opc == (26, 1) else "index undo for leaf key operations")
        out += render_ktb(body.ktb, wide=wide)
    return out


def _begin(body: TransactionBegin, *, wide: bool) -> list[str]:
    pxid = body.parent_xid or _ZERO_XID
    line = f"            uba: {body.uba}    pxid:  {pxid}"
    if body.con_uid is not None:
        line += f"        pdbid:{body.con_uid}"
    return [
        f"ktudh redo: slt: 0x{body.xid.slot:04x} sqn: 0x{body.xid.sqn:08x} flg: 0x{body.flg:04x} "
        f"siz: {body.siz} fbi: {body.fbi}",
        line,
    ]


def _end(body: TransactionEnd) -> list[str]:
    line = (
        f"ktucm redo: slt: 0x{body.xid.slot:04x} sqn: 0x{body.xid.sqn:08x} srt: {body.srt} sta: {body.sta} "
        f"flg: 0x{body.flg:x} "
    )
    if body.uba is not None:
        line += f"ktucf redo: uba: {body.uba} ext: 0 spc: 0 fbi: 0 "
    return [line, "rolled back transaction"] if body.flg & 0x04 else [line]


# Flag lines of 5.19/5.20 in print order: (word, bit, 19c+ text, pre-19c text).
_SESSION_FLAG_LINES = [
    (1, 0x0001, "DDL transaction", "DDL transaction"),
    (1, 0x0002, "Space Management transaction", "Space Management transaction"),
    (1, 0x0004, "Recursive transaction", "Recursive transaction"),
    (1, 0x0008, "LogMiner Internal transaction", "Logmnr Internal transaction"),
    (1, 0x0010, "DB Open in Migrate Mode", "DB Open in Migrate Mode"),
    (1, 0x0020, "LSBY ignore", "LSBY ignore"),
    (1, 0x0040, "LogMiner no tx chunking", "LogMiner no tx chunking"),
    (1, 0x0080, "LogMiner Stealth transaction", "LogMiner Stealth transaction"),
    (1, 0x0100, "LSBY preserve", "LSBY preserve"),
    (1, 0x0200, "LogMiner Marker transaction", "LogMiner Marker transaction"),
    (1, 0x0400, "Transaction in pragama'ed plsql", "Transaction in pragama'ed plsql"),
    (1, 0x0800, "Disabled Logical Repln. txn.", "Tx audit CV flags undefined"),
    (1, 0x1000, "Datapump import txn", "Datapump import txn"),
    (1, 0x8000, "Tx audit CV flags undefined", "Tx audit CV flags undefined"),
    (2, 0x0001, "Federation PDB replay", "Federation PDB replay"),
    (2, 0x0002, "PDB DDL replay", "PDB DDL replay"),
    (2, 0x0004, "LogMiner SKIP transaction", "LogMiner SKIP transaction"),
    (2, 0x0008, "SEQ$ update transaction", "SEQ$ update transaction"),
]


def _session(body: SessionInfo, code: int, *, wide: bool) -> list[str]:
    flags = [
        wide_text if wide else narrow_text
        for word, bit, wide_text, narrow_text in _SESSION_FLAG_LINES
        if (body.flags if word == 1 else body.flags2) & bit
    ]
    head = [f"session number   = {body.session}", f"serial  number   = {body.serial}"]
    tail = [f"version {body.version}", f"audit sessionid {body.audit_session_id}"]
    if code == 20:
        return [
            *head,
            f"transaction name = {body.transaction_name}",
            *flags,
            *tail,
            f"Client Id = {body.client_id}",
            f"login   username = {body.login_user}",
        ]
    return [
        *head,
        f"current username = {body.current_user}",
        f"login   username = {body.login_user}",
        f"client info      = {body.client_info}",
        f"OS username      = {body.os_user}",
        f"Machine name     = {body.machine}",
        f"OS terminal      = {body.terminal}",
        f"OS process id    = {body.process}",
        f"OS program name  = {body.program}",
        f"transaction name = {body.transaction_name}",
        *flags,
        *tail,
        f"Client Id  = {body.client_id}",
    ]


def _direct_load(body: DirectLoadBlock, dba: int, *, wide: bool) -> list[str]:
    if not body.rows and not body.slots:
        return []
    out = [
        "Direct Loader block redo entry",
        f"Block header dump:  0x{dba:08x}",
        f" seg/obj: 0x{body.dataobj:x}  itc: {len(body.itl_xids)}",
    ]
    if body.itl_xids:
        out.append(" Itl           Xid                  Uba         Flag  Lck        Scn/Fsc")
        for i, xid in enumerate(body.itl_xids, 1):
            out.append(f"0x{i:02x}   {xid}  {_ZERO_UBA}  ----    0  fsc {render_scn(0, wide=wide)}")
    out.append("block_row_dump:")
    for slot, row in zip(body.slots, body.rows, strict=False):
        out.append(f"tab 0, row {slot}, @0x0")
        tl = _row_length(row, rowdeps=False, wide=wide)
        out.append(f"tl: {tl} fb: {_fb(row.fb)} lb: 0x{row.lb:x}  cc: {len(row.columns)}")
        out.extend(_columns(row.columns, range(len(row.columns))))
    out.append("end_of_block_dump")
    return out


def _body(vector: ChangeVector, *, wide: bool) -> list[str]:
    body: OpBody = vector.body
    if isinstance(body, UndoRecord):
        return _undo(body, wide=wide)
    if isinstance(body, TransactionBegin):
        return _begin(body, wide=wide)
    if isinstance(body, TransactionEnd):
        return _end(body)
    if isinstance(body, PartialRollback):
        ktubl = vector.code == 6 or wide
        return render_ktub(
            slt=body.slt,
            rci=0,
            opc=body.opc,
            obj=body.obj,
            dataobj=body.dataobj,
            tsn=0,
            flg=body.flg,
            user=None,
            wrp=0,
            ktubl=ktubl and bool(body.flg & 0x08),
            wide=wide,
        )
    if isinstance(body, SessionInfo):
        return _session(body, vector.code, wide=wide)
    if isinstance(body, RowOperation):
        out = render_ktb(body.ktb, wide=wide) if body.ktb is not None else []
        out += render_kdo(body.kdo, body.columns, body.positions, body.qmi_rows, wide=wide)
        if body.rowdep_scn is not None:
            out.append(f"dscn: {render_scn(body.rowdep_scn, wide=wide)}")
        return out
    if isinstance(body, DirectLoadBlock):
        return _direct_load(body, vector.dba, wide=wide)
    return []  # Opaque, Ddl: no body lines


def render_change_line(vector: ChangeVector, *, wide: bool) -> str:
    """``CHANGE #n ...`` (or ``CHANGE #n MEDIA RECOVERY MARKER ...`` for TYP 6)."""
    scn = render_scn(vector.scn, wide=wide)
    enc = 1 if vector.change_type & 0x80 else 0
    con = f" CON_ID:{vector.con_id}" if wide else ""
    flg = f" FLG:0x{vector.flg:04x}" if wide else ""
    op = f"OP:{vector.layer}.{vector.code}"
    if vector.change_type & 0x7F == MARKER_TYPE:
        return f"CHANGE #{vector.index} MEDIA RECOVERY MARKER{con} SCN:{scn} SEQ:{vector.seq} {op} ENC:{enc}{flg}"
    obj = NO_OBJ if vector.obj is None else vector.obj
    return (
        f"CHANGE #{vector.index}{con} TYP:{vector.change_type & 0x7F} CLS:{vector.block_class} AFN:{vector.afn} "
        f"DBA:0x{vector.dba:08x} OBJ:{obj} SCN:{scn} SEQ:{vector.seq} {op} ENC:{enc} RBL:0{flg}"
    )


def render_record(record: RedoRecord, *, wide_scn: bool) -> str:
    """One ``REDO RECORD`` with its vectors, as dump text (lines end with ``\\n``)."""
    wide = wide_scn
    con_uid = f" CON_UID: {record.con_uid}" if wide else ""
    lines = [
        f"REDO RECORD - Thread:{record.thread} RBA: {record.rba} LEN: 0x{record.length:04x} "
        f"VLD: 0x{record.vld:02x}{con_uid}",
        f"SCN: {render_scn(record.scn, wide=wide)} SUBSCN:{record.subscn:3d} {render_time(record.time)}",
    ]
    if record.lwn is not None:
        lwn = record.lwn
        sizes = (
            f"LEN: 0x{lwn.length:08x} NST: 0x{lwn.nst:04x}"
            if wide
            else f"LEN: {lwn.length:04x} NST: {lwn.nst:04x}"
        )
        lines.append(f"(LWN RBA: {record.rba} {sizes} SCN: {render_scn(lwn.scn, wide=wide)})")
    for vector in record.vectors:
        lines.append(render_change_line(vector, wide=wide))
        lines.extend(_body(vector, wide=wide))
    return "".join(line + "\n" for line in lines)


def render_log(
    header: LogHeader | DumpHeader | None, records: Iterable[RedoRecord], *, wide_scn: bool | None = None
) -> Iterator[str]:
    """The whole dump, chunk by chunk: header block, each record after a `` `` separator line (as
    OLR writes it), ``END OF REDO DUMP``. ``wide_scn`` defaults to the header's compat version
    (12.2+ -> wide), or wide without a header."""
    if wide_scn is None:
        compat = header.compat_version if header is not None else None
        wide_scn = compat is None or compat >= V12_2
    if header is not None:
        yield render_header(header)
    for record in records:
        yield " \n" + render_record(record, wide_scn=wide_scn)
    yield "END OF REDO DUMP\n"


__all__ = ["render_column", "render_header", "render_kdo", "render_ktb", "render_log", "render_record"]
