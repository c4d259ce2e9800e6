"""dump/parse.py: logfile-dump text -> format model, on OLR's 23.6 dumps and seed 000's 11.2 dumps.

Expected values come from the dumps' own text, the realdata README, the seed's TrailAnalyzer output
(the ``*.expected.json`` fixtures) and, for the text/binary parity test, the binary reader.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import json
import random
import re
from pathlib import Path
from typing import Any

import pytest

from redo_lib.dump import DumpedLog, iter_dump_records, parse_dump
from redo_lib.errors import DumpParseError, RedoError
from redo_lib.format.model import (
    DirectLoadBlock,
    Kdo,
    KdoOpCode,
    RedoRecord,
    RowOperation,
    TransactionBegin,
    TransactionEnd,
    UndoRecord,
)
from redo_lib.scn import Xid
from redo_lib.values.numbers import decode_number
from redo_lib.values.rowids import RowId

REPO = Path(__file__).resolve().parents[4]
SHARED = REPO.parent / "shared"
OLR = SHARED / "realdata" / "rophy-olr-example-free-23"
SEED = SHARED / "seeds" / "000_c837cc39190bfb46.txt"
FIXTURES = REPO / "tests" / "fixtures" / "dumps"
CASES = [
    "single_row_insert",
    "single_row_update",
    "single_row_delete",
    "multi_row_update",
    "multi_row_delete",
    "array_insert",
    "direct_load_insert",
]


def _olr_dump(seq: int) -> Path:
    path = OLR / "olr-reference" / f"logdump-seq{seq}.txt"
    if not path.is_file():
        pytest.skip(f"OLR dump not found at {path}")
    return path


def _fixture_text(case: str) -> str:
    """The dump text of a seed case (the repaired direct-load text, see fixtures/dumps/README.md)."""
    name = f"seed000_{case}.repaired.txt" if case == "direct_load_insert" else f"seed000_{case}.txt"
    return (FIXTURES / name).read_text()


def _expected(case: str) -> dict[str, Any]:
    return json.loads((FIXTURES / f"seed000_{case}.expected.json").read_text())


def _parse_case(case: str) -> DumpedLog:
    return parse_dump(_fixture_text(case), name=f"seed000_{case}")


# ---------------------------------------------------------------------------------------------
# OLR's 23.6 dumps (12.2+ dialect)


@pytest.mark.realdata
@pytest.mark.parametrize(("seq", "records"), [(15, 642), (16, 5)], ids=["seq15", "seq16"])
def test_olr_dump_parses_every_record(seq: int, records: int) -> None:
    text = _olr_dump(seq).read_text()
    log = parse_dump(text, name=f"logdump-seq{seq}.txt")
    assert len(log.records) == records  # realdata README: "642 + 5 redo records"
    assert len(log.records) == len(re.findall(r"^REDO RECORD - ", text, re.M))
    assert sum(len(r.vectors) for r in log.records) == len(re.findall(r"^CHANGE #", text, re.M))


@pytest.mark.realdata
@pytest.mark.parametrize("seq", [15, 16], ids=["seq15", "seq16"])
def test_olr_dump_header(seq: int) -> None:
    log = parse_dump(_olr_dump(seq).read_text())
    header = log.header
    assert header is not None
    # realdata README: thread 1, block size 512, compat 0x17060000, FREE, resetlogs id 1224959854
    assert (header.thread, header.sequence, header.block_size) == (1, seq, 512)
    assert (header.compat_version, header.db_name, header.resetlogs_id) == (0x17060000, "FREE", 1224959854)
    assert header.file_name == f"redo/arch1_{seq}_1224959854.dbf"
    assert header.other_lines == ()


@pytest.mark.realdata
def test_olr_test_insert_matches_the_realdata_readme() -> None:
    """The sample's INSERT (README): xid 10.12.572, obj 72726, (1, 'hello world'), ROWID
    AAARwWAAYAAAAAOAAA, change record SCN 2267707, commit record SCN 2267708."""
    log = parse_dump(_olr_dump(15).read_text())
    xid = Xid.parse("10.12.572")
    pairs = [
        (record, vectors[i].body, vectors[i + 1].body)
        for record in log.records
        for vectors in [record.vectors]
        for i in range(len(vectors) - 1)
        if isinstance(vectors[i].body, UndoRecord)
        and vectors[i].body.xid == xid  # type: ignore[union-attr]
        and isinstance(vectors[i + 1].body, RowOperation)
    ]
    assert len(pairs) == 1
    record, undo, redo = pairs[0]
    assert isinstance(undo, UndoRecord) and isinstance(redo, RowOperation)
    assert (undo.obj, undo.dataobj, redo.kdo.code) == (72726, 72726, KdoOpCode.IRP)
    assert redo.columns == (bytes.fromhex("c102"), b"hello world")
    assert (
        str(RowId.from_dba(dataobj=undo.dataobj, dba=redo.kdo.bdba, slot=redo.kdo.slot or 0))
        == "AAARwWAAYAAAAAOAAA"
    )
    assert record.scn == 2267707
    commits = [
        r.scn
        for r in log.records
        for v in r.vectors
        if isinstance(v.body, TransactionEnd) and v.body.xid == xid
    ]
    assert commits == [2267708]


@pytest.mark.realdata
@pytest.mark.parametrize("seq", [15, 16], ids=["seq15", "seq16"])
def test_text_and_binary_paths_give_the_same_model(seq: int) -> None:
    """Every record parsed from OLR's dump equals the binary reader's record of the same log, apart
    from what the text does not carry (normalised away below, one reason each)."""
    from redo_lib.format.native_records import read_records

    path = OLR / "redo" / f"arch1_{seq}_1224959854.dbf"
    if not path.is_file():
        pytest.skip(f"archived log not found at {path}")
    binary = {r.rba: r for r in read_records(path.read_bytes(), name=str(path))}
    text = parse_dump(_olr_dump(seq).read_text()).records
    # OLR dumps exactly the records with VLD bit 0x01 (redo-format §3.1)
    assert len(text) == sum(1 for r in binary.values() if r.valid)
    for record in text:
        assert _normalise(record) == _normalise(binary[record.rba]), str(record.rba)


def _mask_bitmap(kdo: Kdo) -> Kdo:
    count = kdo.cc or 0
    bits = bytes(b & ((1 << max(0, min(8, count - 8 * i))) - 1) for i, b in enumerate(kdo.null_bitmap))
    # op bit 0x20: set in real undo DRPs (op 0x23), not printed in a dump
    return dataclasses.replace(kdo, null_bitmap=bits, op=kdo.op & ~0x20)


def _normalise(record: RedoRecord) -> RedoRecord:
    vectors = []
    for v in record.vectors:
        body = v.body
        if isinstance(body, UndoRecord):
            # raw_fields (binary only), supplemental (not in OLR's level-1 dump)
            body = dataclasses.replace(body, raw_fields=(), supplemental=None)
            if body.kdo is not None:
                body = dataclasses.replace(body, kdo=_mask_bitmap(body.kdo))
        elif isinstance(body, RowOperation):
            body = dataclasses.replace(body, kdo=_mask_bitmap(body.kdo))
        elif isinstance(body, TransactionEnd):
            body = dataclasses.replace(body, unix_time=None)  # last field of 5.4, not printed
        # OBJ: OLR prints the preceding 5.1's data object (or 4294967295), not the header's id;
        # fields / offset: binary only.
        vectors.append(dataclasses.replace(v, body=body, obj=None, fields=(), offset=0))
    return dataclasses.replace(record, vectors=tuple(vectors))


# ---------------------------------------------------------------------------------------------
# Seed 000 (Oracle 11.2 dialect): the seven reference cases


def test_insert_example_fields_as_printed() -> None:
    """The first record of "Single Row Insertion", value by value from its dump lines."""
    record = _parse_case("single_row_insert").records[0]
    assert str(record.rba) == "0x000044.00000005.0010"
    assert (record.length, record.vld, record.scn, record.subscn) == (0x228, 0x05, 0x18BCDE, 1)
    assert record.time == dt.datetime(2013, 3, 31, 23, 59, 58, tzinfo=dt.UTC)
    assert record.lwn is not None and (record.lwn.length, record.lwn.nst, record.lwn.scn) == (3, 1, 0x18BCDE)
    begin, undo, redo, session = (v.body for v in record.vectors)
    assert isinstance(begin, TransactionBegin) and begin.xid.trail() == "4.11.854"  # usn from CLS:23
    assert isinstance(undo, UndoRecord) and str(undo.xid) == "0x0004.00b.00000356"
    assert (undo.obj, undo.dataobj, undo.user, undo.begins_transaction) == (76490, 76495, 90, True)
    assert undo.kdo is not None and (undo.kdo.code, undo.kdo.slot, undo.kdo.bdba) == (
        KdoOpCode.DRP,
        10,
        0x01000436,
    )
    assert isinstance(redo, RowOperation) and record.vectors[2].obj == 76495
    assert redo.ktb is not None and redo.ktb.xid == undo.xid
    assert (redo.kdo.code, redo.kdo.size_delt, redo.kdo.fb, redo.kdo.cc) == (KdoOpCode.IRP, 53, 0x2C, 8)
    assert redo.columns[0] == bytes.fromhex("c20b0c") and redo.columns[7] == bytes.fromhex("c25b")
    assert session.login_user == "US03" and record.vectors[3].change_type == 6  # type: ignore[union-attr]


@pytest.mark.parametrize("case", CASES)
def test_seed_case_xid_and_commit_scn(case: str) -> None:
    """The trail's transaction id is the dump's XID; its commit SCN is the SCN of the 5.4 record."""
    expected = _expected(case)["transaction"]
    xid = Xid.parse(expected["xid"])
    log = _parse_case(case)
    undo_xids = {v.body.xid for r in log.records for v in r.vectors if isinstance(v.body, UndoRecord)}
    assert undo_xids == {xid}
    begins = [v.body.xid for r in log.records for v in r.vectors if isinstance(v.body, TransactionBegin)]
    assert xid in begins
    commits = [
        r.scn
        for r in log.records
        for v in r.vectors
        if isinstance(v.body, TransactionEnd) and v.body.xid == xid
    ]
    assert commits == [expected["commit_scn"]]


# Row operations the seed's dumps print for each case: (redo op, undo op) per changed row.
KDO_OPS = {
    "single_row_insert": [("IRP", "DRP")],
    "single_row_update": [("URP", "URP")],
    "single_row_delete": [("DRP", "IRP")],
    "multi_row_update": [("URP", "URP")] * 3,
    "multi_row_delete": [("DRP", "IRP")] * 3,
    "array_insert": [("QMI", "QMD")],
    "direct_load_insert": [],
}


@pytest.mark.parametrize("case", CASES)
def test_seed_case_kdo_ops(case: str) -> None:
    log = _parse_case(case)
    pairs = []
    for record in log.records:
        for i, vector in enumerate(record.vectors):
            if isinstance(vector.body, RowOperation):
                undo = record.vectors[i - 1].body
                assert isinstance(undo, UndoRecord) and undo.kdo is not None
                assert (undo.obj, undo.dataobj) == (76490, 76495)  # "objn: 76490 objd: 76495"
                pairs.append((vector.body.kdo.code.name, undo.kdo.code.name))  # type: ignore[union-attr]
    assert pairs == KDO_OPS[case]


def _row_changes(log: DumpedLog) -> list[tuple[RowId, str, tuple[bytes | None, ...], tuple[int, ...]]]:
    """(ROWID, op, values, positions) per row in dump order: the values an insert writes, the
    before image of a delete (undo IRP), the new values of an update (redo URP)."""
    out: list[tuple[RowId, str, tuple[bytes | None, ...], tuple[int, ...]]] = []
    for record in log.records:
        for i, vector in enumerate(record.vectors):
            body = vector.body
            if isinstance(body, DirectLoadBlock):
                for slot, row in zip(body.slots, body.rows, strict=True):
                    out.append(
                        (
                            RowId.from_dba(dataobj=body.dataobj, dba=vector.dba, slot=slot),
                            "INSERT",
                            row.columns,
                            (),
                        )
                    )
            if not isinstance(body, RowOperation):
                continue
            undo = record.vectors[i - 1].body
            assert isinstance(undo, UndoRecord)
            kdo = body.kdo
            if kdo.code == KdoOpCode.QMI:
                for slot, row in zip(kdo.slots, body.qmi_rows, strict=True):
                    out.append(
                        (
                            RowId.from_dba(dataobj=undo.dataobj, dba=kdo.bdba, slot=slot),
                            "INSERT",
                            row.columns,
                            (),
                        )
                    )
                continue
            rowid = RowId.from_dba(dataobj=undo.dataobj, dba=kdo.bdba, slot=kdo.slot or 0)
            if kdo.code == KdoOpCode.IRP:
                out.append((rowid, "INSERT", body.columns, ()))
            elif kdo.code == KdoOpCode.DRP:
                out.append((rowid, "DELETE", undo.columns, ()))
            elif kdo.code == KdoOpCode.URP:
                out.append((rowid, "UPDATE", body.columns, body.positions))
    return out


def _text(value: bytes | None, slot: int) -> str | None:
    if value is None:
        return None
    return decode_number(value) if slot in (0, 6, 7) else value.decode("ascii")  # NUMBER columns of STUDENT


@pytest.mark.parametrize("case", CASES)
def test_seed_case_rows_match_the_trail(case: str) -> None:
    """Each trail record's ROWID names a row change of the dump, in the same order, and the trail's
    values are in that change (except update keys, which the seed's dumps omit: README)."""
    expected = _expected(case)["records"]
    changes = _row_changes(_parse_case(case))
    assert [str(c[0]) for c in changes] == [r["rowid"] for r in expected]
    for (_, op, values, positions), trail in zip(changes, expected, strict=True):
        assert op == trail["op"]
        if op == "UPDATE":
            # only the changed column is in the URP; the key (slot 0) came from supplemental data
            assert positions == (7,)
            assert {c["slot"]: c["value"] for c in trail["columns"]}[7] == _text(values[0], 7)
            continue
        for column in trail["columns"]:
            assert _text(values[column["slot"]], column["slot"]) == column["value"], column["name"]


def test_direct_load_block_keeps_the_loading_xid() -> None:
    """The 19.1 vector has no XID; the block's ITL 0x01 names the transaction (trail 4.21.865)."""
    log = _parse_case("direct_load_insert")
    blocks = [v.body for r in log.records for v in r.vectors if isinstance(v.body, DirectLoadBlock)]
    assert len(blocks) == 1
    assert [x.trail() for x in blocks[0].itl_xids] == [_expected("direct_load_insert")["transaction"]["xid"]]
    assert blocks[0].dataobj == 0x12ACF == 76495


# ---------------------------------------------------------------------------------------------
# Framing: prose, indentation, streaming


def test_seed_text_as_published_stops_at_the_missing_direct_load_column() -> None:
    """Seed line 2176 follows ``col  3`` with ``col  5`` (README): a positioned error, nothing else."""
    with pytest.raises(DumpParseError) as info:
        parse_dump(SEED.read_text(), name="seed000")
    assert (info.value.position.file, info.value.position.line) == ("seed000", 2176)
    assert "expected col 4, found col 5" in str(info.value)


def test_whole_seed_with_the_repair_skips_the_prose() -> None:
    lines = SEED.read_text().splitlines()
    lines.insert(2175, "    col  4: [10]  4d 61 6e 63 68 65 73 74 65 72")
    log = parse_dump("\n".join(lines))
    # 33 REDO RECORD blocks in the seed; the CHANGE snippets before the first one are prose
    assert len(log.records) == 33 == sum(1 for line in lines if line.strip().startswith("REDO RECORD - "))
    assert str(log.records[0].rba) == "0x000044.00000005.0010"
    assert log.header is None
    cases = [r for case in CASES for r in _parse_case(case).records]
    assert [r for r in log.records if r.rba in {c.rba for c in cases}] == cases


@pytest.mark.parametrize("case", CASES)
def test_indented_text_parses_the_same(case: str) -> None:
    text = _fixture_text(case)
    indented = "\n".join("    " + line for line in text.splitlines())
    assert parse_dump(indented).records == parse_dump(text).records


@pytest.mark.parametrize("case", ["single_row_insert", "multi_row_delete"])
def test_iter_dump_records_streams_the_same_records(case: str) -> None:
    text = _fixture_text(case)
    streamed = list(iter_dump_records(text.splitlines(keepends=True), name=case))
    assert streamed == list(parse_dump(text, name=case).records)


def test_prose_between_records_is_skipped() -> None:
    insert, update = _fixture_text("single_row_insert"), _fixture_text("single_row_update")
    prose = "\nThe above redo record consists of the following components:\n\nChange # Operation\n\n"
    joined = parse_dump(insert + prose + update).records
    assert joined == parse_dump(insert).records + parse_dump(update).records


# ---------------------------------------------------------------------------------------------
# Errors: positioned, and only DumpParseError


def _edit(text: str, old: str, new: str, *, insert: bool = False) -> tuple[str, int]:
    """Replace (or insert after) the first line equal to ``old``; return the text and the 1-based
    number of the changed line."""
    lines = text.split("\n")
    index = lines.index(old)
    if insert:
        lines.insert(index + 1, new)
        return "\n".join(lines), index + 2
    lines[index] = new
    return "\n".join(lines), index + 1


CORRUPTIONS = [
    pytest.param(
        "col  1: [ 6]  4a 6f 72 64 61 6e", "col  1: [ 6]  4a 6f 72 zz 61 6e", False, id="non-hex-byte"
    ),
    pytest.param(
        "col  2: [ 8]  53 68 65 72 77 6f 6f 64",
        "col  2: [ 9]  53 68 65 72 77 6f 6f 64",
        False,
        id="length-mismatch",
    ),
    pytest.param("col  3: [ 1]  4d", "col  4: [ 1]  4d", False, id="column-number-gap"),
    pytest.param("null: --------", "null: -------", False, id="bitmap-shorter-than-cc"),
    pytest.param("itli: 2  ispac: 0  maxfr: 4858", "something unexpected", True, id="unknown-line-after-kdo"),
    pytest.param("op: Z", "op: N", False, id="ktb-letter-disagrees-with-op-byte"),
    pytest.param(
        "fb: --H-FL-- lb: 0x2  cc: 8", "fb: --H-FL-- lb: 0x2  cc: eight", False, id="malformed-fb-line"
    ),
    pytest.param(
        "ktudh redo: slt: 0x000b sqn: 0x00000356 flg: 0x0012 siz: 136 fbi: 0",
        "ktudh redo: slt: 0x000b sqn: 0x00000356 flg: 0x0012 siz: ? fbi: 0",
        False,
        id="malformed-ktudh",
    ),
    pytest.param("session number   = 44", "session number   = forty-four", False, id="session-not-a-number"),
    pytest.param("serial  number   = 325", "unknown attribute = x", False, id="unknown-session-line"),
    pytest.param(
        "SCN: 0x0000.0018bcde SUBSCN:  1 03/31/2013 23:59:58",
        "SCN: 0x0000.0018bcde SUBSCN:  1 02/30/2013 23:59:58",
        False,
        id="impossible-date",
    ),
    pytest.param(
        "CHANGE #3 TYP:2 CLS:1 AFN:4 DBA:0x01000436 OBJ:76495 SCN:0x0000.00187e82 SEQ:1 OP:11.2 ENC:0 RBL:0",
        "CHANGE #3 TYP:2 CLS:1 AFN:4 DBA:0x01000436 OBJ:76495 SCN:0x0000.00187e82 SEQ:1 OP:11 ENC:0 RBL:0",
        False,
        id="malformed-change-line",
    ),
    pytest.param(
        "ktucm redo: slt: 0x000b sqn: 0x00000356 srt: 0 sta: 9 flg: 0x2 ktucf redo: uba: 0x00c000b2.01ee.0f ext: 0 spc: 6080 fbi: 0",
        "ktucm redo: slt: 0x000b sqn: 0x00000356 srt: 0 sta: 9 flg: 0x2 ktucf redo: uba: 0x00c000b2.01ee ext: 0 spc: 6080 fbi: 0",
        False,
        id="malformed-uba",
    ),
]


@pytest.mark.parametrize(("old", "new", "insert"), CORRUPTIONS)
def test_corrupted_line_in_a_known_vector_raises_at_its_line(old: str, new: str, insert: bool) -> None:
    text, line = _edit(_fixture_text("single_row_insert"), old, new, insert=insert)
    with pytest.raises(DumpParseError) as info:
        parse_dump(text, name="insert.txt")
    assert isinstance(info.value, RedoError)
    assert (info.value.position.file, info.value.position.line) == ("insert.txt", line)


# ---------------------------------------------------------------------------------------------
# Truncation: a cut inside a vector is an error; a cut between vectors leaves a shorter record


CUTS_INSIDE = [
    pytest.param(
        "REDO RECORD - Thread:1 RBA: 0x000044.00000005.0010 LEN: 0x0228 VLD: 0x05", id="after-record-line"
    ),
    pytest.param(
        "(LWN RBA: 0x000044.00000005.0010 LEN: 0003 NST: 0001 SCN: 0x0000.0018bcde)", id="after-lwn-line"
    ),
    pytest.param("ktudb redo: siz: 136 spc: 6418 flg: 0x0012 seq: 0x01ee rec: 0x0d", id="inside-ktudb"),
    pytest.param("KDO undo record:", id="before-undo-ktb"),
    pytest.param("op: F  xid:  0x0004.00b.00000356    uba: 0x00c000b2.01ee.0d", id="before-redo-kdo"),
    pytest.param("tabn: 0 slot: 10(0xa) size/delt: 53", id="before-fb-line"),
    pytest.param("col  3: [ 1]  4d", id="after-4-of-8-columns"),
    pytest.param("ktudh redo: slt: 0x000b sqn: 0x00000356 flg: 0x0012 siz: 136 fbi: 0", id="inside-ktudh"),
]


@pytest.mark.parametrize("last_line", CUTS_INSIDE)
def test_text_cut_inside_a_vector_raises_truncated(last_line: str) -> None:
    lines = _fixture_text("single_row_insert").split("\n")
    cut = "\n".join(lines[: lines.index(last_line) + 1])
    with pytest.raises(DumpParseError) as info:
        parse_dump(cut, name="cut.txt")
    assert info.value.details.get("truncated") is True
    assert info.value.position.line is not None and info.value.position.line <= lines.index(last_line) + 1


@pytest.mark.realdata
def test_text_cut_inside_a_long_column_raises_truncated() -> None:
    lines = _olr_dump(16).read_text().split("\n")
    start = lines.index("col 10: [513]")
    with pytest.raises(DumpParseError) as info:
        parse_dump("\n".join(lines[: start + 4]))
    assert info.value.details.get("truncated") is True
    assert "513 bytes announced, 75 found" in str(info.value)


def test_prose_right_after_an_incomplete_vector_is_a_truncation() -> None:
    lines = _fixture_text("single_row_insert").split("\n")
    cut = lines[: lines.index("col  3: [ 1]  4d") + 1] + ["", "The above redo record consists of ..."]
    with pytest.raises(DumpParseError) as info:
        parse_dump("\n".join(cut))
    assert info.value.details.get("truncated") is True


def test_text_cut_between_vectors_keeps_the_vectors_read() -> None:
    """Documented limit: the text cannot show that CHANGE #4 is missing."""
    lines = _fixture_text("single_row_insert").split("\n")
    log = parse_dump("\n".join(lines[: lines.index("col  7: [ 2]  c2 5b") + 1]))
    assert [len(r.vectors) for r in log.records] == [3]


@pytest.mark.parametrize("source", ["seed-insert", pytest.param("olr-seq16", marks=pytest.mark.realdata)])
def test_any_cut_gives_records_or_a_dump_error(source: str) -> None:
    if source == "seed-insert":
        lines = _fixture_text("single_row_insert").split("\n")
    else:
        lines = _olr_dump(16).read_text().split("\n")
    for n in range(len(lines) + 1):
        try:
            parse_dump("\n".join(lines[:n]))
        except DumpParseError as exc:
            assert exc.position.line is not None


@pytest.mark.realdata
def test_mutated_text_gives_records_or_a_dump_error() -> None:
    """Style §6.4 invariant, seeded and deterministic: deleted, inserted, swapped, emptied lines and
    single-character edits give records or a positioned DumpParseError, never another exception."""
    texts = [
        _fixture_text(c)
        for c in ("single_row_insert", "array_insert", "multi_row_delete", "direct_load_insert")
    ]
    texts.append(_olr_dump(16).read_text())
    rng = random.Random(20130331)
    for _ in range(1500):
        lines = rng.choice(texts).split("\n")
        for _ in range(rng.randint(1, 3)):
            i = rng.randrange(len(lines))
            line, op = lines[i], rng.randrange(6)
            if op == 0 and line:
                j = rng.randrange(len(line))
                lines[i] = line[:j] + line[j + 1 :]
            elif op == 1:
                j = rng.randrange(len(line) + 1)
                lines[i] = line[:j] + rng.choice("0123456789abcdefx: #-[]N.()") + line[j:]
            elif op == 2:
                lines.insert(i, lines[rng.randrange(len(lines))])
            elif op == 3:
                del lines[i]
            elif op == 4:
                lines[i] = ""
            else:
                j = rng.randrange(len(lines))
                lines[i], lines[j] = lines[j], lines[i]
        try:
            parse_dump("\n".join(lines))
        except DumpParseError as exc:
            assert exc.position.line is not None
