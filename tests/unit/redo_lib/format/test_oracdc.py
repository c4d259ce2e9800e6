"""The 225 single real records of oracdc's tests (19c LE, 11g LE, AIX 19c BE), parsed one by one by
the Rust core (``native.parse_record``).

Expected values come from the data set: its SCN and RBA, the LogMiner SQL and ROWIDs the test
methods assert, and the opcode in each test's name; plus the cross-checks of redo-format §13
(a following 11.x's KTB op F carries the 5.1's XID and UBA).
"""

from __future__ import annotations

import re
from collections import defaultdict
from functools import lru_cache
from typing import Any

import pytest

from redo_lib.format.model import RedoRecord, RowOperation, UndoRecord
from redo_lib.scn import Uba

from .realdata import PROFILES, oracdc_rows, parse_oracdc_record

pytestmark = pytest.mark.realdata

ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"


def rowid(dataobj: int, dba: int, slot: int) -> str:
    """Extended ROWID text (redo-format §7.9): 6 chars dataobj, 3 rfile, 6 block, 3 slot."""

    def b64(value: int, width: int) -> str:
        return "".join(ALPHABET[(value >> (6 * (width - 1 - i))) & 63] for i in range(width))

    return b64(dataobj, 6) + b64(dba >> 22, 3) + b64(dba & 0x3FFFFF, 6) + b64(slot, 3)


def test_rowid_helper_matches_the_documented_example() -> None:
    assert rowid(87705, (4 << 22) | 0xB0, 2) == "AAAVaZAAEAAAACwAAC"


@lru_cache(maxsize=1)
def parsed() -> tuple[tuple[dict[str, Any], RedoRecord], ...]:
    return tuple((row, parse_oracdc_record(row)) for row in oracdc_rows())


def _row_id(row: dict[str, Any]) -> str:
    return f"{row['test_file']}:{row['test_method']}:{row['variable']}"


def test_all_225_records_parse_with_vectors_ending_at_the_record_length() -> None:
    records = parsed()
    assert len(records) == 225
    assert all(rec.vectors for _, rec in records)
    assert all(rec.length == len(bytes.fromhex(row["hex"])) for row, rec in records)


@pytest.mark.parametrize("profile", sorted(PROFILES), ids=sorted(PROFILES))
def test_each_profile_is_represented(profile: str) -> None:
    assert any(row["redo_log_profile"] == profile for row, _ in parsed())


def test_big_endian_record_reads_its_length_big_endian() -> None:
    (row, rec) = next((row, rec) for row, rec in parsed() if row["redo_log_profile"] == "getAix19c")
    assert rec.length == row["bytes_len"] == int.from_bytes(bytes.fromhex(row["hex"])[:4], "big")
    assert rec.vectors


def test_record_scn_equals_the_test_scn_for_222_records() -> None:
    """redo-format §13: 222 of 225 (the AIX one reuses its LE twin's SCN; two LE cases noted)."""
    assert sum(rec.scn == row["scn"] for row, rec in parsed()) == 222


def test_rba_prints_in_dump_notation() -> None:
    assert [str(rec.rba) for _, rec in parsed()] == [row["rba"].lower() for row, _ in parsed()]


@pytest.mark.parametrize(
    ("test_file", "opcode"),
    [
        ("Op10_30_Test.java", (10, 30)),
        ("Op10_35_Test.java", (10, 35)),
        ("Op11_2_Test.java", (11, 2)),
        ("Op11_3_Test.java", (11, 3)),
        ("Op11_5_Test.java", (11, 5)),
        ("Op11_17_Test.java", (11, 17)),
        ("Op19_1_Test.java", (19, 1)),
        ("Op19_1_IdxObj16334300_Test.java", (19, 1)),
    ],
    ids=lambda v: v if isinstance(v, str) else f"{v[0]}.{v[1]}",
)
def test_opcode_named_by_the_test_is_present(test_file: str, opcode: tuple[int, int]) -> None:
    ops = {cv.opcode for row, rec in parsed() if row["test_file"] == test_file for cv in rec.vectors}
    assert opcode in ops


def test_row_op_after_undo_carries_the_undo_xid_and_uba() -> None:
    """§13 cross-check: KTB op F XID = ktudb XID, UBA = (5.1 DBA, ktudb seq, rec)."""
    checked = 0
    for _, rec in parsed():
        for prev, cv in zip(rec.vectors, rec.vectors[1:], strict=False):
            if isinstance(prev.body, UndoRecord) and isinstance(cv.body, RowOperation):
                ktb = cv.body.ktb
                if ktb is not None and ktb.op_letter == "F":
                    assert ktb.xid == prev.body.xid
                    assert ktb.uba == Uba(prev.dba, prev.body.uba_seq, prev.body.uba_rec)
                    checked += 1
    assert checked > 20


def _computed_rowids(rec: RedoRecord) -> set[str]:
    out: set[str] = set()
    for cv in rec.vectors:
        body = cv.body
        if isinstance(body, UndoRecord) and body.kdo is not None:
            if body.kdo.slot is not None:
                out.add(rowid(body.dataobj, body.kdo.bdba, body.kdo.slot))
            out.update(rowid(body.dataobj, body.kdo.bdba, s) for s in body.kdo.slots)
            if body.supplemental is not None and body.supplemental.bdba:
                out.add(rowid(body.dataobj, body.supplemental.bdba, body.supplemental.slot or 0))
        elif isinstance(body, RowOperation) and cv.obj is not None:
            if body.kdo.slot is not None:
                out.add(rowid(cv.obj, body.kdo.bdba, body.kdo.slot))
            out.update(rowid(cv.obj, body.kdo.bdba, s) for s in body.kdo.slots)
    return out


def test_rowids_asserted_by_each_test_method_come_out_of_its_records() -> None:
    expected: dict[str, set[str]] = defaultdict(set)
    computed: dict[str, set[str]] = defaultdict(set)
    for row, rec in parsed():
        method = f"{row['test_file']}:{row['test_method']}"
        expected[method].update(row["method_expected_rowids"])
        computed[method] |= _computed_rowids(rec)
    methods = [m for m in expected if expected[m]]
    assert len(methods) > 10
    assert {m: sorted(expected[m] - computed[m]) for m in methods if expected[m] - computed[m]} == {}


def _compressed(body: UndoRecord | RowOperation) -> bool:
    """§5.1: a single column field whose length equals size/delt (cc != 1) is a compressed row image."""
    kdo = body.kdo
    return bool(
        kdo is not None
        and len(body.columns) == 1
        and body.columns[0] is not None
        and (kdo.cc or 0) != 1
        and len(body.columns[0]) == kdo.size_delt
    )


def test_column_values_and_object_ids_occur_in_the_logminer_sql() -> None:
    values = objects = 0
    misses: list[str] = []
    for row, rec in parsed():
        if not row["method_expected_sql"]:
            continue
        sql = " ".join(s["sql"] for s in row["method_expected_sql"]).lower()
        hexes = set(re.findall(r"hextoraw\('([0-9a-f]*)'\)", sql))
        for cv in rec.vectors:
            body = cv.body
            if isinstance(body, UndoRecord) and body.kdo is not None:
                objects += 1
                if f'obj# {body.obj}"' not in sql:
                    misses.append(f"{_row_id(row)} obj {body.obj}")
            if not isinstance(body, UndoRecord | RowOperation) or _compressed(body):
                continue
            found = [c for c in body.columns if c] + [c for q in body.qmi_rows for c in q.columns if c]
            if isinstance(body, UndoRecord) and body.supplemental is not None:
                found += [v for _, v in body.supplemental.columns if v]
            values += len(found)
            misses += [f"{_row_id(row)} {cv.opcode} {v.hex()}" for v in found if v.hex() not in hexes]
    assert values > 900 and objects >= 43
    assert misses == []
