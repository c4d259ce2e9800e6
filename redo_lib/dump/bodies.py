"""Change-vector bodies of a logfile dump -> the op bodies of the format model.

One parser per opcode family, each reading the lines of one ``CHANGE #n`` block through a
``LineCursor`` (redo-format §5): 5.1 undo (``ktudb``/``ktubl``/``ktubu`` + KTB + KDO), 5.2
(``ktudh``), 5.4 (``ktucm``/``ktucf``), 5.6/5.11 (partial rollback), 5.19/5.20 (session attributes),
11.x (KTB + KDO + columns) and 19.1 (a direct-path table block dumped as ``block_row_dump``).
Every other opcode becomes ``Opaque`` and its lines are consumed whole.

Lines that carry nothing the model keeps are skipped by rule, and the rules are listed here (the
``_SKIP_*`` patterns): ktub detail lines (prev ctl uba, prev brb, ...), index/LOB/space details
after an undo header whose opc is not 11.1, ``kteop`` extent-map lines of 5.2, ``ktuxvoff`` of 5.6,
the block header of a direct-load block. Any other line inside a vector parsed here raises
``DumpParseError`` with its line number.

Layer 2 (dump): imports errors, scn (layer 0) and format.model (layer 1).
"""

from __future__ import annotations

import re
from typing import Any

from redo_lib.dump.lines import SCN, UBA, XID, LineCursor, parse_uba, parse_xid
from redo_lib.dump.rows import parse_fb, parse_kdo, parse_ktb
from redo_lib.format.model import (
    DirectLoadBlock,
    KtubFlags,
    Opaque,
    OpBody,
    PartialRollback,
    QmiRow,
    RowOperation,
    SessionInfo,
    Supplemental,
    TransactionBegin,
    TransactionEnd,
    UndoRecord,
)
from redo_lib.scn import Xid

# Opaque categories by layer: the same names as the binary reader's (``category`` in
# crates/redo-core/src/ops/mod.rs), so both inputs count opaque vectors alike.
CATEGORIES = {
    4: "cleanout",
    5: "undo",
    10: "index",
    11: "row",
    13: "space",
    14: "extent",
    17: "backup",
    18: "backup",
    19: "direct_load",
    20: "metadata",
    22: "space",
    23: "block_write",
    24: "logminer",
    26: "lob",
}

# -- 5.1 / 5.6 / 5.11: ktudb and ktub (redo-format §5.0.1) ------------------------------------
_KTUDB = re.compile(
    r"^ktudb redo: siz: (\d+) spc: (\d+) flg: 0x([0-9a-fA-F]+) seq: 0x([0-9a-fA-F]+) rec: 0x([0-9a-fA-F]+)$"
)
_KTUDB_XID = re.compile(rf"^xid:\s+({XID})$")
_KTUB = re.compile(
    r"^(ktubl|ktubu) redo: slt: (\d+)(?: wrp: \d+ flg: 0x([0-9a-fA-F]{4}) prev dba:\s+0x[0-9a-fA-F]{8})?"
    r" rci: (\d+) opc: (\d+)\.(\d+) \[?objn: (\d+) objd: (\d+) tsn: (\d+)\]?$"
)
# Before 19c the ktub flags are not printed as a number; these lines show some of the bits.
_UNDO_TYPE = re.compile(
    r"^Undo type:\s+(Regular undo|Multi-[Bb]lock undo - (HEAD|TAIL|MID))\s+(?:Undo type:\s+)?"
    r"(User undo done\s+)?(Begin trans\s+)?Last buffer split:\s+(Yes|No)$"
)
_TEMP_OBJECT = re.compile(r"^Temp Object:\s+(Yes|No)$")
_TABLESPACE_UNDO = re.compile(r"^Tablespace Undo:\s+(Yes|No)$")
_BUEXT = re.compile(r"^BuExt idx: -?\d+ flg2: [0-9a-fA-F]+$")
_LOGON_USER = re.compile(r"logon user: (\d+)")
# ktub detail lines that hold nothing the model keeps (except "logon user", read above).
_SKIP_KTUB = [
    re.compile(rf"^0x[0-9a-fA-F]{{8}}(?:\s+prev ctl uba: {UBA})?$"),
    re.compile(rf"^prev ctl max cmt scn:\s+{SCN}\s+prev tx cmt scn:\s+{SCN}$"),
    re.compile(
        rf"^txn start scn:\s+{SCN}\s+logon user: \d+(?:\s+prev brb: \d+\s+prev bcl: \d+"
        r"(?:\s+BuExt idx: -?\d+ flg2: [0-9a-fA-F]+)?)?$"
    ),
    re.compile(r"^\[Undo type\s*\] .*\[Last buffer split\]\s+(?:Yes|No)$"),
    re.compile(
        r"^\[Temp object\]\s+(?:Yes|No)\s+\[Tablespace Undo\s*\]\s+(?:Yes|No)\s+\[User only\s*\]\s+(?:Yes|No)$"
    ),
    re.compile(r"^Begin trans$"),
    re.compile(rf"^prev ctl uba: {UBA} prev ctl max cmt scn:\s+{SCN}$"),
    re.compile(rf"^prev tx cmt scn:\s+{SCN}$"),
    re.compile(r"^prev brb:\s+0x[0-9a-fA-F]{8}\s+prev bcl:\s+0x[0-9a-fA-F]{8}$"),
]
_KDO_UNDO = re.compile(r"^KDO undo record:$")
_SUPP = re.compile(r"^supp log type: (\d+) fb: (\d+) cc: (\d+) before: (\d+) after: (\d+)$")
_SUPP_BDBA = re.compile(r"^supp log bdba: 0x([0-9a-fA-F]{8})\.([0-9a-fA-F]+)$")
_KTUXVOFF = re.compile(r"^ktuxvoff: 0x[0-9a-fA-F]+\s+ktuxvflg: 0x[0-9a-fA-F]+$")  # skipped by rule

# -- 5.2 ktudh, 5.4 ktucm (redo-format §5.2, §5.3) ---------------------------------------------
_KTUDH = re.compile(
    r"^ktudh redo: slt: 0x([0-9a-fA-F]+) sqn: 0x([0-9a-fA-F]+) flg: 0x([0-9a-fA-F]+) siz: (\d+) fbi: (\d+)$"
)
_KTUDH_UBA = re.compile(
    rf"^uba: ({UBA})\s+pxid:\s+({XID})(kteop redo - redo operation on extent map)?(?:\s+pdbid:(\d+))?$"
)
_SKIP_KTEOP = [
    re.compile(r"^SETHWM:\s+Highwater::\s+0x[0-9a-fA-F]{8}\s+ext#: \d+\s+blk#: \d+\s+ext size: \d+$"),
    re.compile(r"^#blocks in seg\. hdr's freelists: \d+$"),
    re.compile(r"^#blocks below: \d+$"),
    re.compile(r"^mapblk\s+0x[0-9a-fA-F]{8}\s+offset: \d+$"),
]
_PDBID = re.compile(r"^pdbid:(\d+)$")
_KTUCM = re.compile(
    r"^ktucm redo: slt: 0x([0-9a-fA-F]+) sqn: 0x([0-9a-fA-F]+) srt: (\d+) sta: (\d+) flg: 0x([0-9a-fA-F]+)"
    rf"(?:\s+ktucf redo: uba: ({UBA}) ext: \d+ spc: \d+ fbi: \d+)?$"
)
_ROLLED_BACK = re.compile(r"^rolled back transaction$")

# -- 5.19 / 5.20 (redo-format §5.5) ------------------------------------------------------------
_SESSION_TEXT = {
    "session number": "session",
    "serial number": "serial",
    "current username": "current_user",
    "login username": "login_user",
    "client info": "client_info",
    "OS username": "os_user",
    "Machine name": "machine",
    "OS terminal": "terminal",
    "OS process id": "process",
    "OS program name": "program",
    "transaction name": "transaction_name",
    "Client Id": "client_id",
}
_SESSION_LINE = re.compile(
    r"^(session number|serial\s+number|current username|login\s+username|client info|OS username|"
    r"Machine name|OS terminal|OS process id|OS program name|transaction name|Client Id)\s*=(?: (.*))?$"
)
_SESSION_NUMBER = re.compile(r"^(version|audit sessionid) (\d+)$")
# Flag lines of the audit flags word (field 11 of 5.19, field 3 of 5.20): text -> (word, bit).
SESSION_FLAG_TEXT: dict[str, tuple[int, int]] = {
    "DDL transaction": (1, 0x0001),
    "Space Management transaction": (1, 0x0002),
    "Recursive transaction": (1, 0x0004),
    "Logmnr Internal transaction": (1, 0x0008),
    "LogMiner Internal transaction": (1, 0x0008),
    "DB Open in Migrate Mode": (1, 0x0010),
    "LSBY ignore": (1, 0x0020),
    "LogMiner no tx chunking": (1, 0x0040),
    "LogMiner Stealth transaction": (1, 0x0080),
    "LSBY preserve": (1, 0x0100),
    "LogMiner Marker transaction": (1, 0x0200),
    "Transaction in pragama'ed plsql": (1, 0x0400),
    "Disabled Logical Repln. txn.": (1, 0x0800),
    "Datapump import txn": (1, 0x1000),
    "Tx audit CV flags undefined": (1, 0x8000),  # before 19c also printed for 0x0800
    "Federation PDB replay": (2, 0x0001),
    "PDB DDL replay": (2, 0x0002),
    "LogMiner SKIP transaction": (2, 0x0004),
    "SEQ$ update transaction": (2, 0x0008),
}

# -- 19.1 direct-path table block (Oracle's block dump inside the redo dump) -------------------
_DIRECT_LOAD = re.compile(r"^Direct Loader block redo entry$")
_SEG_OBJ = re.compile(r"^seg/obj: 0x([0-9a-fA-F]+)\s")
_BLOCK_ITL = re.compile(rf"^0x[0-9a-fA-F]{{2}}\s+({XID})\s+{UBA}\s+[-CBUT]{{4}}\s+\d+\s+(?:scn|fsc) {SCN}$")
_BLOCK_ROW_DUMP = re.compile(r"^block_row_dump:$")
_BLOCK_ROW = re.compile(r"^tab (\d+), row (\d+), @0x[0-9a-fA-F]+$")
_END_OF_BLOCK = re.compile(r"^end_of_block_dump$")


def _ktub(cur: LineCursor, *, ktubl_lines: bool = True) -> tuple[re.Match[str], int, int | None]:
    """The ktub line and the detail lines after it -> (match, flags, logon user).

    The flags come from the ``flg:`` of 19c+ dumps; before 19c they are rebuilt from the lines that
    show bits: ktubl (0x08), Undo type HEAD/TAIL/MID (0x01/0x02/0x100), last buffer split (0x04),
    user undo done (0x10), temp object (0x20), tablespace undo (0x80), a ktubu BuExt line (0x800).
    """
    m = cur.expect(_KTUB, "'ktubl redo: ...' or 'ktubu redo: ...'")
    rebuilt = KtubFlags.BEGIN_TRANSACTION if m.group(1) == "ktubl" else 0
    user: int | None = None
    while True:
        if mu := cur.match(_UNDO_TYPE):
            rebuilt |= {"HEAD": 0x01, "TAIL": 0x02, "MID": 0x100}.get(mu.group(2) or "", 0)
            rebuilt |= (0x10 if mu.group(3) else 0) | (0x08 if mu.group(4) else 0)
            rebuilt |= 0x04 if mu.group(5) == "Yes" else 0
        elif mt := cur.match(_TEMP_OBJECT):
            rebuilt |= 0x20 if mt.group(1) == "Yes" else 0
        elif mt := cur.match(_TABLESPACE_UNDO):
            rebuilt |= 0x80 if mt.group(1) == "Yes" else 0
        elif cur.match(_BUEXT):
            rebuilt |= 0x800 if m.group(1) == "ktubu" else 0
        elif (nxt := cur.peek()) is not None and any(p.match(nxt) for p in _SKIP_KTUB):
            if mu := _LOGON_USER.search(nxt):
                user = int(mu.group(1))
            cur.take("ktub detail")
        else:
            break
    flags = int(m.group(3), 16) if m.group(3) is not None else int(rebuilt)
    return m, flags, user


def parse_undo(cur: LineCursor, *, wide: bool) -> UndoRecord:
    """OP 5.1 — undo record (redo-format §5.1)."""
    m = cur.expect(_KTUDB, "'ktudb redo: siz: .. spc: .. flg: .. seq: .. rec: ..'")
    ktudb_flg, seq, rec = int(m.group(3), 16), int(m.group(4), 16), int(m.group(5), 16)
    xid = parse_xid(cur.expect(_KTUDB_XID, "the ktudb 'xid: ...' line").group(1))
    k, flg, user = _ktub(cur)
    fields: dict[str, Any] = {  # UndoRecord's keywords
        "xid": xid,
        "uba_seq": seq,
        "uba_rec": rec,
        "ktudb_flg": ktudb_flg,
        "slt": int(k.group(2)),
        "rci": int(k.group(4)),
        "opc": (int(k.group(5)), int(k.group(6))),
        "obj": int(k.group(7)),
        "dataobj": int(k.group(8)),
        "tsn": int(k.group(9)),
        "flg": flg,
        "user": user,
    }
    multi = flg & (KtubFlags.MULTI_BLOCK_HEAD | KtubFlags.MULTI_BLOCK_TAIL | KtubFlags.MULTI_BLOCK_MID)
    if multi or cur.at_end():
        cur.skip_rest()  # a piece of a multi-block undo: not interpreted (redo-format §6.4)
        return UndoRecord(**fields)
    if fields["opc"] != (11, 1):
        # index / LOB / space undo (KTB, kdilk, keys, kdli ...): not modelled, skipped by rule; the
        # binary reader keeps these fields as raw_fields and leaves ktb None as well.
        cur.skip_rest()
        return UndoRecord(**fields)
    cur.expect(_KDO_UNDO, "'KDO undo record:'")
    fields["ktb"] = parse_ktb(cur, wide=wide)
    part = parse_kdo(cur)
    fields.update(kdo=part.kdo, columns=part.columns, positions=part.positions, qmi_rows=part.qmi_rows)
    fields["rowdep_scn"] = part.rowdep_scn
    if ms := cur.match(_SUPP):
        count = int(ms.group(3))
        bdba = slot = None
        if mb := cur.match(_SUPP_BDBA):
            bdba, slot = int(mb.group(1), 16), int(mb.group(2), 16)
        cols = tuple(cur.column(f"supplemental column {i + 1} of {count}") for i in range(count))
        fields["supplemental"] = Supplemental(
            op=int(ms.group(1)),
            fb=int(ms.group(2)),
            count=count,
            objv=0,  # not printed
            start_before=int(ms.group(4)),
            start_after=int(ms.group(5)),
            bdba=bdba,
            slot=slot,
            columns=cols,
        )
    cur.finish()
    return UndoRecord(**fields)


def parse_row_operation(cur: LineCursor, *, wide: bool) -> RowOperation:
    """OP 11.x — KTB redo (optional) + KDO + columns (redo-format §5.6)."""
    ktb = parse_ktb(cur, wide=wide) if cur.peek() == "KTB Redo" else None
    part = parse_kdo(cur)
    cur.finish()
    return RowOperation(
        ktb=ktb,
        kdo=part.kdo,
        columns=part.columns,
        positions=part.positions,
        qmi_rows=part.qmi_rows,
        rowdep_scn=part.rowdep_scn,
    )


def parse_begin(cur: LineCursor, *, usn: int) -> TransactionBegin:
    """OP 5.2 — ``ktudh redo`` (redo-format §5.2). The usn comes from the vector's CLS."""
    m = cur.expect(_KTUDH, "'ktudh redo: slt: .. sqn: .. flg: .. siz: .. fbi: ..'")
    u = cur.expect(_KTUDH_UBA, "the ktudh 'uba: ... pxid: ...' line")
    pxid = parse_xid(u.group(2))
    con_uid = int(u.group(4)) if u.group(4) is not None else None
    if u.group(3):  # kteop extent-map lines: not modelled, skipped by rule
        while (nxt := cur.peek()) is not None and any(p.match(nxt) for p in _SKIP_KTEOP):
            cur.take("kteop")
        if mp := cur.match(_PDBID):
            con_uid = int(mp.group(1))
    cur.finish()
    return TransactionBegin(
        xid=Xid(usn, int(m.group(1), 16), int(m.group(2), 16)),
        uba=parse_uba(u.group(1)),
        flg=int(m.group(3), 16),
        siz=int(m.group(4)),
        fbi=int(m.group(5)),
        parent_xid=pxid,
        con_uid=con_uid,
    )


def parse_end(cur: LineCursor, *, usn: int) -> TransactionEnd:
    """OP 5.4 — ``ktucm redo`` [+ ``ktucf redo``] (redo-format §5.3)."""
    m = cur.expect(_KTUCM, "'ktucm redo: slt: .. sqn: .. srt: .. sta: .. flg: ..'")
    flg = int(m.group(5), 16)
    if cur.match(_ROLLED_BACK) and not flg & 0x04:
        raise cur.error(f"'rolled back transaction' but ktucm flg 0x{flg:x} has no rollback bit 0x4")
    cur.finish()
    return TransactionEnd(
        xid=Xid(usn, int(m.group(1), 16), int(m.group(2), 16)),
        srt=int(m.group(3)),
        sta=int(m.group(4)),
        flg=flg,
        uba=parse_uba(m.group(6)) if m.group(6) else None,
    )


def parse_partial_rollback(cur: LineCursor, *, usn: int) -> PartialRollback:
    """OP 5.6 / 5.11 — ktub only (redo-format §5.4); the transaction is (usn from CLS, slot)."""
    k, flg, _ = _ktub(cur)
    cur.match(_KTUXVOFF)
    cur.finish()
    return PartialRollback(
        usn=usn,
        slt=int(k.group(2)),
        obj=int(k.group(7)),
        dataobj=int(k.group(8)),
        opc=(int(k.group(5)), int(k.group(6))),
        flg=flg,
    )


def parse_session(cur: LineCursor) -> SessionInfo:
    """OP 5.19 / 5.20 — ``key = value`` lines, flag lines, ``version n``, ``audit sessionid n``."""
    values: dict[str, object] = {"session": 0, "serial": 0}
    flags = [0, 0, 0]
    while not cur.at_end():
        lineno, text = cur.take("session attribute")
        if m := _SESSION_LINE.match(text):
            key = _SESSION_TEXT[" ".join(m.group(1).split())]
            value = m.group(2) or ""
            if key in ("session", "serial"):
                if not value.isdigit():
                    raise cur.error(f"{m.group(1)} is not a number: {value!r}", line=lineno)
                values[key] = int(value)
            else:
                values[key] = value
        elif m := _SESSION_NUMBER.match(text):
            values["version" if m.group(1) == "version" else "audit_session_id"] = int(m.group(2))
        elif text in SESSION_FLAG_TEXT:
            word, bit = SESSION_FLAG_TEXT[text]
            flags[word] |= bit
        else:
            raise cur.error(f"unexpected line {text!r}", line=lineno)
    return SessionInfo(flags=flags[1], flags2=flags[2], **values)  # type: ignore[arg-type]


def parse_direct_load(cur: LineCursor) -> DirectLoadBlock:
    """OP 19.1 — direct-path table block (seed 000 "Direct load inserts"): the rows of the dumped
    block (``block_row_dump``). The block header dump before it is skipped by rule except
    ``seg/obj`` (the data object id) and the ITL XIDs (the loading transaction: a direct-path
    block has no undo, its ITL is how the rows are tied to the XID); the memory dump after ``end_of_block_dump`` likewise."""
    cur.expect(_DIRECT_LOAD, "'Direct Loader block redo entry'")
    dataobj: int | None = None
    itl: list[Xid] = []
    while not cur.match(_BLOCK_ROW_DUMP):
        _, text = cur.take("'block_row_dump:'")
        if m := _SEG_OBJ.match(text + " "):
            dataobj = int(m.group(1), 16)
        elif (m := _BLOCK_ITL.match(text)) and (xid := parse_xid(m.group(1))) != Xid(0, 0, 0):
            itl.append(xid)
    if dataobj is None:
        raise cur.error("direct-load block without 'seg/obj: 0x...'", line=cur.prev_line())
    slots: list[int] = []
    rows: list[QmiRow] = []
    while not cur.match(_END_OF_BLOCK):
        m = cur.expect(_BLOCK_ROW, "'tab n, row n, @0x...' or 'end_of_block_dump'")
        slots.append(int(m.group(2)))
        rows.append(_block_row(cur, f"block row {m.group(2)}"))
    cur.skip_rest()  # "Dump of memory ..." after the block: skipped by rule
    return DirectLoadBlock(
        dataobj=dataobj,
        lob_id=b"",
        page_no=0,
        pdba=0,
        data=b"",
        slots=tuple(slots),
        rows=tuple(rows),
        itl_xids=tuple(itl),
    )


_ROW_HEADER = re.compile(r"^tl: (\d+) fb: ([-KCHDFLPN]{8}) lb: 0x([0-9a-fA-F]+)\s+cc: (\d+)$")


def _block_row(cur: LineCursor, what: str) -> QmiRow:
    """One row of a block dump: ``tl: .. fb: .. lb: .. cc: n`` and n column lines."""
    m = cur.expect(_ROW_HEADER, f"'tl: .. fb: .. lb: .. cc: ..' of {what}")
    cc = int(m.group(4))
    values: list[bytes | None] = []
    for i in range(cc):
        lineno = cur.line_number()
        number, value = cur.column(f"col {i} of {what}")
        if number != i:
            raise cur.error(f"{what}: expected col {i}, found col {number}", line=lineno)
        values.append(value)
    return QmiRow(fb=parse_fb(m.group(2)), lb=int(m.group(3), 16), columns=tuple(values))


def parse_body(layer: int, code: int, cur: LineCursor, *, usn: int, wide: bool, encrypted: bool) -> OpBody:
    """Dispatch on the opcode; vectors we do not interpret become ``Opaque`` (lines consumed).
    Encrypted vectors (ENC:1) stay opaque, as in the binary reader."""
    if encrypted:
        cur.skip_rest()
        return Opaque(category="encrypted")
    if layer == 5 and code == 1:
        return parse_undo(cur, wide=wide)
    if layer == 5 and code == 2:
        return parse_begin(cur, usn=usn)
    if layer == 5 and code == 4:
        return parse_end(cur, usn=usn)
    if layer == 5 and code in (6, 11):
        return parse_partial_rollback(cur, usn=usn)
    if layer == 5 and code in (19, 20):
        return parse_session(cur)
    if layer == 11:
        return parse_row_operation(cur, wide=wide)
    if layer == 19 and code == 1 and cur.peek() is not None and _DIRECT_LOAD.match(cur.peek() or ""):
        return parse_direct_load(cur)
    cur.skip_rest()
    return Opaque(category=CATEGORIES.get(layer, "unknown"))


__all__ = ["CATEGORIES", "SESSION_FLAG_TEXT", "parse_body"]
