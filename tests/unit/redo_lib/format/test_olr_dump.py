"""Our reader against OLR's text dumps of the two real 23.6 logs (redo-format §13).

Every record OLR dumps must appear in ours with the same RBA, length, VLD, CON_UID, SCN, sub-SCN,
time, LWN line and change vectors (opcode and header fields), and the op fields OLR prints for
5.1 / 5.2 / 5.4 / 5.19 / 5.20 / 11.x must match ours. Expected values come from OLR's text only.
"""

from __future__ import annotations

from functools import lru_cache

import pytest

from redo_lib.format.model import (
    ChangeVector,
    RedoRecord,
    RowOperation,
    SessionInfo,
    TransactionBegin,
    TransactionEnd,
    UndoRecord,
)
from redo_lib.scn import Rba

from .olr_dump import DumpChange, DumpRecord, parse_dump
from .realdata import DUMPS, log_records, require

pytestmark = pytest.mark.realdata

EXPECTED_COUNTS = {15: (1154, 642), 16: (7, 5)}  # (all records, records OLR dumps): redo-format §13, README


@lru_cache(maxsize=2)
def dumped(seq: int) -> tuple[DumpRecord, ...]:
    return tuple(parse_dump(require(DUMPS[seq])))


def by_rba(seq: int) -> dict[Rba, RedoRecord]:
    return {r.rba: r for r in log_records(seq)}


def pairs(seq: int) -> list[tuple[DumpRecord, RedoRecord]]:
    ours = by_rba(seq)
    return [(d, ours[Rba(*d.rba)]) for d in dumped(seq) if Rba(*d.rba) in ours]


def change_pairs(seq: int, layer: int | None = None) -> list[tuple[DumpChange, ChangeVector]]:
    out = []
    for d, r in pairs(seq):
        for dc, cv in zip(d.changes, r.vectors, strict=False):
            if layer is None or dc.opcode[0] == layer:
                out.append((dc, cv))
    return out


@pytest.mark.parametrize("seq", [15, 16], ids=["seq15", "seq16"])
def test_whole_log_parses_to_the_documented_record_count(seq: int) -> None:
    total, in_dump = EXPECTED_COUNTS[seq]
    assert len(log_records(seq)) == total
    assert len(dumped(seq)) == in_dump


@pytest.mark.parametrize("seq", [15, 16], ids=["seq15", "seq16"])
def test_every_dumped_record_is_read_at_the_same_rba(seq: int) -> None:
    ours = by_rba(seq)
    missing = [d.rba for d in dumped(seq) if Rba(*d.rba) not in ours]
    assert missing == []


@pytest.mark.parametrize("seq", [15, 16], ids=["seq15", "seq16"])
def test_records_olr_leaves_out_are_exactly_those_without_vld_bit_1(seq: int) -> None:
    dumped_rbas = {Rba(*d.rba) for d in dumped(seq)}
    skipped = [r for r in log_records(seq) if r.rba not in dumped_rbas]
    assert skipped and all(not r.valid for r in skipped)
    assert all(r.vectors for r in skipped)


@pytest.mark.parametrize("seq", [15, 16], ids=["seq15", "seq16"])
def test_record_headers_match_olr(seq: int) -> None:
    diffs = []
    for d, r in pairs(seq):
        ours = (r.thread, r.length, r.vld, r.con_uid, r.scn, r.subscn, r.time.strftime("%m/%d/%Y %H:%M:%S"))
        theirs = (d.thread, d.length, d.vld, d.con_uid, d.scn, d.subscn, d.time)
        if ours != theirs:
            diffs.append((d.rba, ours, theirs))
    assert diffs == []


@pytest.mark.parametrize("seq", [15, 16], ids=["seq15", "seq16"])
def test_lwn_headers_match_olr(seq: int) -> None:
    compared = [(d.lwn, (r.lwn.length, r.lwn.nst, r.lwn.scn) if r.lwn else None) for d, r in pairs(seq)]
    assert any(theirs for theirs, _ in compared)
    assert [c for c in compared if c[0] != c[1]] == []


@pytest.mark.parametrize("seq", [15, 16], ids=["seq15", "seq16"])
def test_vector_opcodes_match_olr(seq: int) -> None:
    diffs = [
        (d.rba, [c.opcode for c in d.changes], [v.opcode for v in r.vectors])
        for d, r in pairs(seq)
        if [c.opcode for c in d.changes] != [v.opcode for v in r.vectors]
    ]
    assert diffs == []


@pytest.mark.parametrize("seq", [15, 16], ids=["seq15", "seq16"])
def test_vector_headers_match_olr(seq: int) -> None:
    diffs = []
    for dc, cv in change_pairs(seq):
        if dc.typ is None:  # media recovery marker line: CON_ID, SCN, SEQ only
            ours: tuple[int | None, ...] = (cv.con_id, cv.scn, cv.seq)
            theirs: tuple[int | None, ...] = (dc.con_id, dc.scn, dc.seq)
        else:
            ours = (cv.con_id, cv.change_type, cv.block_class, cv.afn, cv.dba, cv.scn, cv.seq, cv.flg)
            theirs = (dc.con_id, dc.typ, dc.cls, dc.afn, dc.dba, dc.scn, dc.seq, dc.flg)
        if ours != theirs:
            diffs.append((dc.index, dc.opcode, ours, theirs))
    assert diffs == []


def _hex(value: int, width: int) -> str:
    return f"0x{value:0{width}x}"


def _undo_fields(dc: DumpChange, body: UndoRecord) -> list[tuple[str, object, object]]:
    out: list[tuple[str, object, object]] = []
    m = dc.find(r"^ktudb redo: siz: \d+ spc: \d+ flg: (0x[0-9a-f]+) seq: (0x[0-9a-f]+) rec: (0x[0-9a-f]+)")
    assert m, dc.lines[:3]
    out += [
        ("ktudb flg", m[1], _hex(body.ktudb_flg, 4)),
        ("seq", m[2], _hex(body.uba_seq, 4)),
        ("rec", m[3], _hex(body.uba_rec, 2)),
    ]
    m = dc.find(r"^\s+xid:\s+(\S+)")
    assert m
    out.append(("xid", m[1], str(body.xid)))
    m = dc.find(
        r"^ktub[lu] redo: slt: (\d+) .*flg: (0x[0-9a-f]+) .*rci: (\d+) opc: (\d+)\.(\d+) \[objn: (\d+) objd: (\d+) tsn: (\d+)\]"
    )
    assert m
    out.append(
        (
            "ktub",
            m.groups(),
            (
                str(body.slt),
                _hex(body.flg, 4),
                str(body.rci),
                str(body.opc[0]),
                str(body.opc[1]),
                str(body.obj),
                str(body.dataobj),
                str(body.tsn),
            ),
        )
    )
    m = dc.find(r"logon user: (\d+)")
    if m:
        out.append(("logon user", int(m[1]), body.user))
    return out


def _ktb_kdo_fields(dc: DumpChange, ktb: object, kdo: object) -> list[tuple[str, object, object]]:
    out: list[tuple[str, object, object]] = []
    m = dc.find(r"^op: ([A-Z])\s+(?:itl: )?xid:\s+(\S+)\s+uba: (\S+)")
    if m and ktb is not None:
        out.append(("ktb", m.groups(), (ktb.op_letter, str(ktb.xid), str(ktb.uba))))  # type: ignore[attr-defined]
    m = dc.find(r"flg: \S+\s+lkc:\s+\d+\s+scn:\s+0x([0-9a-f]+)")
    if m and ktb is not None:
        out.append(("ktb L scn", int(m[1], 16), ktb.scn))  # type: ignore[attr-defined]
    m = dc.find(r"^Block cleanout record, scn:\s+0x([0-9a-f]+)")
    if m and ktb is not None:
        out.append(("cleanout scn", int(m[1], 16), ktb.cleanout_scn))  # type: ignore[attr-defined]
    m = dc.find(r"^KDO Op code: (\w+)")
    if m and kdo is not None:
        out.append(("kdo op", m[1], kdo.code.name))  # type: ignore[attr-defined]
        m = dc.find(r"bdba: 0x([0-9a-f]+)\s+hdba: 0x([0-9a-f]+)")
        assert m
        out.append(("bdba/hdba", (int(m[1], 16), int(m[2], 16)), (kdo.bdba, kdo.hdba)))  # type: ignore[attr-defined]
        m = dc.find(r"^itli: (\d+)\s+ispac: (\d+)\s+maxfr: (\d+)")
        assert m
        out.append(("itli", tuple(map(int, m.groups())), (kdo.itli, kdo.ispac, kdo.maxfr)))  # type: ignore[attr-defined]
        m = dc.find(r"^tabn: (\d+) slot: (\d+)")
        if m:
            out.append(("tabn/slot", (int(m[1]), int(m[2])), (kdo.tabn, kdo.slot)))  # type: ignore[attr-defined]
        m = dc.find(r"size/delt: (\d+)")
        if m:
            out.append(("size/delt", int(m[1]), kdo.size_delt))  # type: ignore[attr-defined]
        m = dc.find(r"^fb: (\S+) lb: 0x([0-9a-f]+)\s+cc: (\d+)")
        if m:
            out.append(("fb/lb/cc", (m[1], int(m[2], 16), int(m[3])), (_fb(kdo.fb), kdo.lb, kdo.cc)))  # type: ignore[attr-defined]
        m = dc.find(r"flag: 0x([0-9a-f]+) lock: (\d+) ckix: (\d+)")
        if m:
            out.append(("urp flag", (int(m[1], 16), int(m[2]), int(m[3])), (kdo.fb, kdo.lock, kdo.ckix)))  # type: ignore[attr-defined]
        m = dc.find(r"^ncol: (\d+) nnew: (\d+) size: (-?\d+)")
        if m:
            out.append(("ncol/nnew/size", tuple(map(int, m.groups())), (kdo.ncol, kdo.nnew, kdo.size_delt)))  # type: ignore[attr-defined]
    return out


def _fb(fb: int | None) -> str:
    letters = "KCHDFLPN"
    return "".join(ch if (fb or 0) & (0x80 >> i) else "-" for i, ch in enumerate(letters))


def _columns(body: UndoRecord | RowOperation) -> list[tuple[int, bytes | None]]:
    if body.positions:
        return list(zip(body.positions, body.columns, strict=False))
    return list(enumerate(body.columns))


def _op_comparisons(seq: int) -> list[tuple[str, object, object]]:
    out: list[tuple[str, object, object]] = []
    for dc, cv in change_pairs(seq):
        body = cv.body
        if isinstance(body, UndoRecord):
            out += _undo_fields(dc, body)
            out += _ktb_kdo_fields(dc, body.ktb, body.kdo)
            if body.kdo is not None and dc.columns():
                out.append(("undo columns", dc.columns(), _columns(body)))
        elif isinstance(body, RowOperation):
            out += _ktb_kdo_fields(dc, body.ktb, body.kdo)
            out.append(("redo columns", dc.columns(), _columns(body)))
        elif isinstance(body, TransactionBegin):
            m = dc.find(
                r"^ktudh redo: slt: 0x([0-9a-f]+) sqn: 0x([0-9a-f]+) flg: 0x([0-9a-f]+) siz: (\d+) fbi: (\d+)"
            )
            assert m
            out.append(
                (
                    "ktudh",
                    (int(m[1], 16), int(m[2], 16), int(m[3], 16), int(m[4]), int(m[5])),
                    (body.xid.slot, body.xid.sqn, body.flg, body.siz, body.fbi),
                )
            )
            m = dc.find(r"uba: (\S+)\s+pxid:\s+(0x[0-9a-f]{4}\.[0-9a-f]{3}\.[0-9a-f]{8})")
            assert m
            out.append(("ktudh uba", (m[1], m[2]), (str(body.uba), str(body.parent_xid))))
            m = dc.find(r"pdbid:(\d+)")
            out.append(("pdbid", int(m[1]) if m else None, body.con_uid))
        elif isinstance(body, TransactionEnd):
            m = dc.find(
                r"^ktucm redo: slt: 0x([0-9a-f]+) sqn: 0x([0-9a-f]+) srt: (\d+) sta: (\d+) flg: 0x([0-9a-f]+)"
            )
            assert m
            out.append(
                (
                    "ktucm",
                    (int(m[1], 16), int(m[2], 16), int(m[3]), int(m[4]), int(m[5], 16)),
                    (body.xid.slot, body.xid.sqn, body.srt, body.sta, body.flg),
                )
            )
            m = dc.find(r"ktucf redo: uba: (\S+)")
            out.append(("ktucf", m[1] if m else None, str(body.uba) if body.uba else None))
        elif isinstance(body, SessionInfo):
            for label, value in (("session number", body.session), ("serial  number", body.serial)):
                m = dc.find(rf"^{label}\s+= (\d+)")
                assert m
                out.append((label, int(m[1]), value))
            for label, text in (
                ("login   username", body.login_user),
                ("transaction name", body.transaction_name),
            ):
                m = dc.find(rf"^{label} = (.*)$")
                if m:
                    out.append((label, m[1].strip(), text.strip()))
    return out


@pytest.mark.parametrize("seq", [15, 16], ids=["seq15", "seq16"])
def test_op_fields_match_olr(seq: int) -> None:
    comparisons = _op_comparisons(seq)
    assert len(comparisons) > (100 if seq == 15 else 5)
    assert [c for c in comparisons if c[1] != c[2]] == []


def test_op_field_comparison_covers_the_documented_opcodes() -> None:
    seen = {cv.opcode for _, cv in change_pairs(15)}
    assert {(5, 1), (5, 2), (5, 4), (5, 19), (5, 20), (11, 2), (11, 3), (11, 5)} <= seen


def test_the_test_insert_decodes_to_the_documented_row() -> None:
    """README / §13: xid 10.12.572, obj 72726, rowid AAARwWAAYAAAAAOAAA, values C1 02 and 'hello world'."""
    found = []
    for record in log_records(15):
        for prev, cv in zip(record.vectors, record.vectors[1:], strict=False):
            if cv.opcode == (11, 2) and isinstance(prev.body, UndoRecord) and prev.body.obj == 72726:
                assert isinstance(cv.body, RowOperation)
                found.append(
                    (
                        record.scn,
                        prev.body.xid.trail(),
                        prev.body.dataobj,
                        cv.body.kdo.bdba,
                        cv.body.kdo.slot,
                        cv.body.columns,
                    )
                )
    assert found == [(2267707, "10.12.572", 72726, (24 << 22) | 14, 0, (b"\xc1\x02", b"hello world"))]
