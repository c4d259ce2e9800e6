"""KTB redo and KDO row operations as printed in a logfile dump -> ``KtbRedo`` / ``Kdo`` and row data.

Grammar of the lines (redo-format §5.0.1 KTB / KDO, §5.1 undo ops, §5.6 redo ops)::

    KTB Redo
    op: 0x01  ver: 0x01
    compat bit: 4 (post-11) padding: 1
    op: F  xid:  0x0004.00b.00000356    uba: 0x00c000b2.01ee.0d
    KDO Op code: IRP row dependencies Disabled
      xtype: XA flags: 0x00000000  bdba: 0x01000436  hdba: 0x01000432
    itli: 2  ispac: 0  maxfr: 4858
    tabn: 0 slot: 10(0xa) size/delt: 53
    fb: --H-FL-- lb: 0x2  cc: 8
    null: --------
    col  0: [ 3]  c2 0b 0c

Both Oracle's own dumps (11.2) and OpenLogReplicator's dumps (19c+ style) use this grammar; the
few differences (SCN width, cleanout entry layout) are accepted in both forms. Lines the model has
no place for (cleanout entries, the ITL list of op R, the cluster-key ``curc:`` line) are skipped
by rule, each named below; anything else raises ``DumpParseError``.

Layer 2 (dump): imports errors, scn (layer 0) and format.model (layer 1).
"""

from __future__ import annotations

import re
from typing import Any, NamedTuple

from redo_lib.dump.lines import SCN, UBA, XID, LineCursor, parse_scn, parse_uba, parse_xid
from redo_lib.format.model import Columns, Kdo, KdoOpCode, KtbRedo, QmiRow

# KDO op names as the dumps print them; 21 is printed " 21" by OLR (stripped to "21" here).
KDO_OP_NAMES: dict[int, str] = {
    KdoOpCode.IUR: "IUR",
    KdoOpCode.IRP: "IRP",
    KdoOpCode.DRP: "DRP",
    KdoOpCode.LKR: "LKR",
    KdoOpCode.URP: "URP",
    KdoOpCode.ORP: "ORP",
    KdoOpCode.MFC: "MFC",
    KdoOpCode.CFA: "CFA",
    KdoOpCode.CKI: "CKI",
    KdoOpCode.SKL: "SKL",
    KdoOpCode.QMI: "QMI",
    KdoOpCode.QMD: "QMD",
    KdoOpCode.DSC: "DSC",
    KdoOpCode.LMN: "LMN",
    KdoOpCode.LLB: "LLB",
    KdoOpCode.SHK: "SHK",
    KdoOpCode.CMP: "CMP",
    KdoOpCode.DCU: "DCU",
    KdoOpCode.MRK: "MRK",
}
_KDO_OP_CODES = {name: code for code, name in KDO_OP_NAMES.items()}
XTYPE_NAMES = {0: "0", 1: "XA", 2: "XR", 3: "CR"}
_XTYPE_CODES = {name: code for code, name in XTYPE_NAMES.items()}
KTB_LETTERS = {1: "F", 2: "C", 3: "Z", 4: "L", 5: "R", 6: "N"}
FB_LETTERS = "KCHDFLPN"  # bit 0x80 first (RowFlags.render)

_KTB = re.compile(r"^KTB Redo$")
_KTB_OP = re.compile(r"^op: 0x([0-9a-fA-F]{2})\s+ver: 0x([0-9a-fA-F]{2})$")
_KTB_COMPAT = re.compile(r"^compat bit: (\d+) \((?:post|pre)-11\) padding: ([01])$")
_KTB_F = re.compile(rf"^op: F\s+xid:\s+({XID})\s+uba: ({UBA})$")
_KTB_C = re.compile(rf"^op: C\s+uba: ({UBA})$")
_KTB_ZN = re.compile(r"^op: ([ZN])$")
_KTB_L = re.compile(rf"^op: L\s+itl: xid:\s+({XID}) uba: ({UBA})$")
_KTB_L2 = re.compile(rf"^flg: [-CBUT]{{4}}\s+lkc:\s+\d+\s+scn:\s+({SCN})$")
_KTB_R = re.compile(r"^op: R\s+itc: (-?\d+)$")
_KTB_R_HEAD = re.compile(r"^Itl\s+Xid\s+Uba\s+Flag\s+Lck\s+Scn/Fsc$")
_KTB_R_ITL = re.compile(rf"^0x[0-9a-fA-F]{{2}}\s+{XID}\s+{UBA}\s+[-CBUT]{{4}}\s+\d+\s+(?:scn|fsc) {SCN}$")
_CLEANOUT = re.compile(
    rf"^Block cleanout record, scn:\s+({SCN}) ver: 0x[0-9a-fA-F]{{2}} opt: 0x[0-9a-fA-F]{{2}}"
    r"(?: bigscn: [YN] compact: [YN] spare: [0-9a-fA-F]{8})?, entries follow\.\.\.$"
)
# One cleanout entry: 11.2 ``itli: 1  flg: 2  scn: ...``, 12.1+ ``flg: (opt=2 whr=1)``. Skipped by
# rule: the model keeps the cleanout SCN only (KtbRedo.cleanout_scn).
_CLEANOUT_ENTRY = re.compile(rf"^itli: \d+\s+flg: (?:\d+|\(opt=\d+ whr=\d+\))\s+scn:\s+{SCN}$")

_KDO_OP = re.compile(r"^KDO Op code:\s+(\w+) row dependencies (Enabled|Disabled)$")
_KDO_XTYPE = re.compile(
    r"^xtype: (XA|XR|CR|0)(xtype KDO_KDOM2)? flags: 0x([0-9a-fA-F]{8})\s+"
    r"bdba: 0x([0-9a-fA-F]{8})\s+hdba: 0x([0-9a-fA-F]{8})$"
)
_KDO_ITLI = re.compile(r"^itli: (\d+)\s+ispac: (\d+)\s+maxfr: (\d+)$")
_TABN_SLOT = r"tabn: (\d+) slot: (\d+)\(0x([0-9a-fA-F]+)\)"
_IRP_SLOT = re.compile(rf"^{_TABN_SLOT} size/delt: (\d+)$")
_FB = r"([-KCHDFLPN]{8})"
_IRP_FB = re.compile(rf"^fb: {_FB} lb: 0x([0-9a-fA-F]+)\s+cc: (\d+)(?: cki: (\d+))?$")
_HRID = re.compile(r"^hrid: 0x([0-9a-fA-F]{8})\.([0-9a-fA-F]+)$")
_NRID = re.compile(r"^nrid:\s+0x([0-9a-fA-F]{8})\.([0-9a-fA-F]+)$")
# Cluster-key rows (fb K): OLR prints placeholder curc/comc and the pk/nk row ids at the hrid/nrid
# offsets. Skipped by rule (OLR skips cluster-key changes, redo-format §6.5).
_CURC = re.compile(
    r"^curc: \d+ comc: \d+ pk: 0x[0-9a-fA-F]{8}\.[0-9a-fA-F]+ nk: 0x[0-9a-fA-F]{8}\.[0-9a-fA-F]+$"
)
_NULL = re.compile(r"^null:(?: ?([-N]*))$")
_NULL_RULER = re.compile(r"^(?:0123456789)+$")
_NULL_BITS = re.compile(r"^[-N]+$")
_DRP_SLOT = re.compile(rf"^{_TABN_SLOT}$")
_LKR_SLOT = re.compile(r"^tabn: (\d+) slot: (\d+) to: (\d+)$")
_URP_SLOT = re.compile(rf"^{_TABN_SLOT} flag: 0x([0-9a-fA-F]+) lock: (\d+) ckix: (\d+)$")
_URP_NCOL = re.compile(r"^ncol: (\d+) nnew: (\d+) size: (-?\d+)$")
_VECTOR_CONTENT = re.compile(r"^Vector content:$")
_CFA_SLOT = re.compile(rf"^{_TABN_SLOT} flag: 0x([0-9a-fA-F]+)$")
_CFA_NRID = re.compile(r"^lock: (\d+) nrid: 0x([0-9a-fA-F]{8})\.([0-9a-fA-F]+)$")
_QM_HEAD = re.compile(r"^tabn: (\d+) lock: (\d+) nrow: (\d+)$")
_QM_SLOT = re.compile(r"^slot\[(\d+)\]: (\d+)$")
_QM_ROW = re.compile(rf"^tl: (\d+) fb: {_FB} lb: 0x([0-9a-fA-F]+)\s+cc: (\d+)$")
_DSC_REL = re.compile(r"^piece relative column number: \d+$")  # not modelled: skipped by rule
_SKL = re.compile(r"^flag: ([-F])([-B]) lock: (\d+) slot: (\d+)\(0x([0-9a-fA-F]+)\)$")
_SKL_LINK = re.compile(r"^(?:fwd|bkw): 0x[0-9a-fA-F]{8}\.\d+$")  # not modelled: skipped by rule
_DSCN = re.compile(rf"^dscn: ({SCN})$")


class KdoPart(NamedTuple):
    """What a KDO block and the row data after it give: the header and the column values."""

    kdo: Kdo
    columns: Columns
    positions: tuple[int, ...]
    qmi_rows: tuple[QmiRow, ...]
    rowdep_scn: int | None


def parse_fb(text: str) -> int:
    """``--H-FL--`` -> 0x2c (RowFlags, letters K C H D F L P N from bit 0x80 down)."""
    return sum(0x80 >> i for i, ch in enumerate(text) if ch != "-")


def parse_ktb(cur: LineCursor, *, wide: bool) -> KtbRedo:
    """``KTB Redo`` block (redo-format §5.0.1). ``flg`` is rebuilt from ver / compat bit / padding;
    bit 0x08 (payload at @8) is not printed and is assumed from the dialect: set in 12.2+ dumps
    (every real 19c/23.6 KTB has flg 0x0D), clear in older ones (11g: 0x05)."""
    cur.expect(_KTB, "'KTB Redo'")
    op_line = cur.line_number()
    m = cur.expect(_KTB_OP, "KTB 'op: 0x.. ver: 0x..'")
    op, ver = int(m.group(1), 16), int(m.group(2), 16)
    m = cur.expect(_KTB_COMPAT, "KTB 'compat bit: ...'")
    flg = (ver & 0x03) | (int(m.group(1)) & 0x04) | (0 if m.group(2) == "1" else 0x10) | (0x08 if wide else 0)
    letter = KTB_LETTERS.get(op & 0x0F)
    xid = uba = scn = cleanout = None
    if letter == "F":
        m = cur.expect(_KTB_F, "KTB 'op: F  xid: ... uba: ...'")
        xid, uba = parse_xid(m.group(1)), parse_uba(m.group(2))
    elif letter == "C":
        uba = parse_uba(cur.expect(_KTB_C, "KTB 'op: C  uba: ...'").group(1))
    elif letter in ("Z", "N"):
        m = cur.expect(_KTB_ZN, f"KTB 'op: {letter}'")
        if m.group(1) != letter:
            raise cur.error(
                f"KTB op 0x{op:02x} is {letter}, the line says {m.group(1)}", line=cur.prev_line()
            )
    elif letter == "L":
        m = cur.expect(_KTB_L, "KTB 'op: L  itl: xid: ... uba: ...'")
        xid, uba = parse_xid(m.group(1)), parse_uba(m.group(2))
        scn = parse_scn(cur.expect(_KTB_L2, "KTB 'flg: ... lkc: ... scn: ...'").group(1))
    elif letter == "R":
        count = int(cur.expect(_KTB_R, "KTB 'op: R  itc: n'").group(1))
        if count > 0:  # the ITL table of op R is not modelled: its lines are skipped by rule
            cur.expect(_KTB_R_HEAD, "the ITL table header of KTB op R")
            for _ in range(count):
                cur.expect(_KTB_R_ITL, "an ITL line of KTB op R")
    else:
        raise cur.error(f"unknown KTB op 0x{op:02x}", line=op_line)
    if op & 0x10:
        cleanout = parse_scn(cur.expect(_CLEANOUT, "'Block cleanout record, scn: ...'").group(1))
        while cur.match(_CLEANOUT_ENTRY):
            pass
    return KtbRedo(op=op, flg=flg, xid=xid, uba=uba, scn=scn, cleanout_scn=cleanout)


def _bitmap(cur: LineCursor, cc: int) -> bytes:
    """The ``null:`` line(s) of IRP/ORP: one ``-``/``N`` per column; from 11 columns on OLR and
    Oracle print a ruler line first and wrap the bits after 80 columns."""
    lineno = cur.line_number()
    m = cur.expect(_NULL, "'null: ...'")
    bits = m.group(1) or ""
    if cc >= 11 and not bits:
        cur.expect(_NULL_RULER, "the null-bitmap ruler line")
        while len(bits) < cc:
            m = cur.expect(_NULL_BITS, "null-bitmap bits")
            bits += m.group(0)
    if len(bits) != cc:
        raise cur.error(f"null bitmap has {len(bits)} entries for cc {cc}", line=lineno)
    out = bytearray((cc + 7) // 8)
    for i, ch in enumerate(bits):
        if ch == "N":
            out[i >> 3] |= 1 << (i & 7)
    return bytes(out)


def _row_columns(cur: LineCursor, count: int, what: str, *, bitmap: bytes | None) -> Columns:
    """``count`` column lines numbered 0..count-1 (IRP/ORP pieces, QMI rows, block rows)."""
    values: list[bytes | None] = []
    for i in range(count):
        lineno = cur.line_number()
        number, value = cur.column(f"col {i} of {what}")
        if number != i:
            raise cur.error(f"{what}: expected col {i}, found col {number}", line=lineno)
        if bitmap is not None and (value is None) != bool(bitmap[i >> 3] & (1 << (i & 7))):
            raise cur.error(f"{what}: col {i} disagrees with the null bitmap", line=lineno)
        values.append(value)
    return tuple(values)


def parse_rows(cur: LineCursor, count: int, what: str) -> tuple[tuple[int, ...], tuple[QmiRow, ...]]:
    """``count`` packed rows (QMI redo, QMI undo): ``slot[i]: n`` then ``tl: .. fb: .. cc: n``."""
    slots: list[int] = []
    rows: list[QmiRow] = []
    for i in range(count):
        m = cur.expect(_QM_SLOT, f"'slot[{i}]: n' of {what}")
        if int(m.group(1)) != i:
            raise cur.error(f"{what}: expected slot[{i}], found slot[{m.group(1)}]", line=cur.prev_line())
        slots.append(int(m.group(2)))
        m = cur.expect(_QM_ROW, f"'tl: .. fb: .. lb: .. cc: ..' of row {i}")
        cc = int(m.group(4))
        cols = _row_columns(cur, cc, f"row {i}", bitmap=None)
        rows.append(QmiRow(fb=parse_fb(m.group(2)), lb=int(m.group(3), 16), columns=cols))
    return tuple(slots), tuple(rows)


def _check_slot(cur: LineCursor, m: re.Match[str]) -> int:
    slot = int(m.group(2))
    if int(m.group(3), 16) != slot:
        raise cur.error(f"slot {slot} and its hex form 0x{m.group(3)} disagree", line=cur.prev_line())
    return slot


def parse_kdo(cur: LineCursor) -> KdoPart:
    """``KDO Op code: ...`` block plus the row data of its op (redo-format §5.0.1, §5.1, §5.6)."""
    m = cur.expect(_KDO_OP, "'KDO Op code: ... row dependencies ...'")
    name, rowdeps = m.group(1), m.group(2) == "Enabled"
    code = _KDO_OP_CODES.get(name, int(name) if name.isdigit() else -1)
    if code < 0:
        raise cur.error(f"unknown KDO op {name!r}", line=cur.prev_line())
    m = cur.expect(_KDO_XTYPE, "KDO '  xtype: .. flags: .. bdba: .. hdba: ..'")
    # flags other than KDOM2 (0x80) have no place in the model (the binary reader drops them too).
    head: dict[str, Any] = {
        "op": code | (0x40 if rowdeps else 0),
        "rowdeps": rowdeps,
        "xtype": _XTYPE_CODES[m.group(1)],
        "kdom2": bool(m.group(2)) or bool(int(m.group(3), 16) & 0x80),
        "bdba": int(m.group(4), 16),
        "hdba": int(m.group(5), 16),
    }
    m = cur.expect(_KDO_ITLI, "KDO 'itli: .. ispac: .. maxfr: ..'")
    head.update(itli=int(m.group(1)), ispac=int(m.group(2)), maxfr=int(m.group(3)))
    columns: Columns = ()
    positions: tuple[int, ...] = ()
    rows: tuple[QmiRow, ...] = ()
    if code in (KdoOpCode.IRP, KdoOpCode.ORP):
        m = cur.expect(_IRP_SLOT, "'tabn: .. slot: ..(0x..) size/delt: ..'")
        head.update(tabn=int(m.group(1)), slot=_check_slot(cur, m), size_delt=int(m.group(4)))
        m = cur.expect(_IRP_FB, "'fb: ........ lb: 0x..  cc: ..'")
        cc = int(m.group(3))
        head.update(fb=parse_fb(m.group(1)), lb=int(m.group(2), 16), cc=cc)
        # "cki: n" (fb has C) is not kept: the binary reader leaves Kdo.ckix None for IRP/ORP too.
        if mh := cur.match(_HRID):
            head["hrid"] = (int(mh.group(1), 16), int(mh.group(2), 16))
        if mn := cur.match(_NRID):
            head["nrid"] = (int(mn.group(1), 16), int(mn.group(2), 16))
        cur.match(_CURC)
        bitmap = _bitmap(cur, cc)
        head["null_bitmap"] = bitmap
        columns = _row_columns(cur, cc, f"{name} piece", bitmap=bitmap)
    elif code == KdoOpCode.DRP:
        m = cur.expect(_DRP_SLOT, "'tabn: .. slot: ..(0x..)'")
        head.update(tabn=int(m.group(1)), slot=_check_slot(cur, m))
    elif code == KdoOpCode.LKR:
        m = cur.expect(_LKR_SLOT, "'tabn: .. slot: .. to: ..'")  # "to" is not modelled
        head.update(tabn=int(m.group(1)), slot=int(m.group(2)))
    elif code == KdoOpCode.URP:
        m = cur.expect(_URP_SLOT, "'tabn: .. slot: ..(0x..) flag: 0x.. lock: .. ckix: ..'")
        head.update(tabn=int(m.group(1)), slot=_check_slot(cur, m), fb=int(m.group(4), 16))
        head.update(lock=int(m.group(5)), ckix=int(m.group(6)))
        m = cur.expect(_URP_NCOL, "'ncol: .. nnew: .. size: ..'")
        nnew = int(m.group(2))
        head.update(
            ncol=int(m.group(1)), nnew=nnew, cc=nnew, size_delt=int(m.group(3))
        )  # cc = nnew, as binary
        if head["kdom2"]:
            cur.expect(_VECTOR_CONTENT, "'Vector content:' (KDOM2)")
        pos: list[int] = []
        vals: list[bytes | None] = []
        nulls = bytearray((nnew + 7) // 8)
        for i in range(nnew):
            number, value = cur.column(f"column {i + 1} of {nnew} of the URP")
            pos.append(number)
            vals.append(value)
            if value is None:
                nulls[i >> 3] |= 1 << (i & 7)
        head["null_bitmap"] = bytes(nulls)
        columns, positions = tuple(vals), tuple(pos)
    elif code == KdoOpCode.CFA:
        m = cur.expect(_CFA_SLOT, "'tabn: .. slot: ..(0x..) flag: 0x..'")
        head.update(tabn=int(m.group(1)), slot=_check_slot(cur, m), flag=int(m.group(4), 16))
        m = cur.expect(_CFA_NRID, "'lock: .. nrid: 0x........'")
        head.update(lock=int(m.group(1)), nrid=(int(m.group(2), 16), int(m.group(3), 16)))
    elif code in (KdoOpCode.QMI, KdoOpCode.QMD):
        m = cur.expect(_QM_HEAD, "'tabn: .. lock: .. nrow: ..'")
        nrow = int(m.group(3))
        head.update(tabn=int(m.group(1)), lock=int(m.group(2)))
        if code == KdoOpCode.QMI:
            head["slots"], rows = parse_rows(cur, nrow, "QMI")
        else:
            slots: list[int] = []
            while ms := cur.match(_QM_SLOT):
                slots.append(int(ms.group(2)))
            if slots and len(slots) != nrow:
                raise cur.error(f"QMD: nrow {nrow} but {len(slots)} slot lines")
            head["slots"] = tuple(slots)
    elif code == KdoOpCode.DSC:
        m = cur.expect(_DRP_SLOT, "'tabn: .. slot: ..(0x..)'")
        head.update(tabn=int(m.group(1)), slot=_check_slot(cur, m))
        cur.expect(_DSC_REL, "'piece relative column number: ..'")
    elif code in (KdoOpCode.SKL, KdoOpCode.CKI):
        m = cur.expect(_SKL, "'flag: .. lock: .. slot: ..(0x..)'")
        head.update(
            flag=(1 if m.group(1) == "F" else 0) | (2 if m.group(2) == "B" else 0), lock=int(m.group(3))
        )
        head["slot"] = int(m.group(4))
        while cur.match(_SKL_LINK):
            pass
    dscn = cur.match(_DSCN)
    rowdep_scn = parse_scn(dscn.group(1)) if dscn else None
    return KdoPart(Kdo(**head), columns, positions, rows, rowdep_scn)
