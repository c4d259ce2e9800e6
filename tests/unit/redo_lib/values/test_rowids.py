"""ROWID text, DBA helpers, ROWID and UROWID values (redo-format §7.9, §7.7)."""

from __future__ import annotations

import dataclasses
import pickle

import pytest
from hypothesis import given
from hypothesis import strategies as st

from redo_lib.errors import ValueDecodeError
from redo_lib.values.rowids import (
    RowId,
    dba_block,
    dba_file,
    decode_rowid,
    decode_urowid,
    encode_rowid,
    encode_urowid,
    make_dba,
    parse_rowid,
)

ROWIDS = [
    pytest.param("AAAVaZAAEAAAACwAAC", 87705, 4, 0xB0, 2, id="doc-87705"),
    pytest.param("AAARwWAAYAAAAAOAAA", 72726, 24, 14, 0, id="real-23ai-insert-72726"),
    pytest.param("AAASrPAAEAAAAQ2AAK", 76495, 4, 0x436, 10, id="seed000-trail-token-insert"),
    pytest.param("AAASrPAAEAAAARgAAC", 76495, 4, 0x460, 2, id="seed000-trail-token-direct-load"),
    pytest.param("AAAE7RAAEAAAAK+AAA", 20177, 4, 702, 0, id="seed002-logminer-plus-char"),
    pytest.param("AAAE7RAAEAAAAK9AAB", 20177, 4, 701, 1, id="seed002-logminer-digit-char"),
    pytest.param("AAAAAAAAAAAAAAAAAA", 0, 0, 0, 0, id="all-zero"),
    pytest.param("D/////AP/AAP///P//", 0xFFFFFFFF, 0x3FF, 0x3FFFFF, 0xFFFF, id="all-maximal"),
]


@pytest.mark.parametrize(("text", "dataobj", "rfile", "block", "slot"), ROWIDS)
def test_rowid_text_both_ways(text: str, dataobj: int, rfile: int, block: int, slot: int) -> None:
    rowid = RowId(dataobj=dataobj, rfile=rfile, block=block, slot=slot)
    assert str(rowid) == text
    assert parse_rowid(text) == rowid


def test_rowid_from_dba_of_seed000_insert() -> None:
    # seed 000: "CHANGE #3 ... DBA:0x01000436 OBJ:76495 ... OP:11.2", "tabn: 0 slot: 10(0xa)";
    # GoldenGate wrote the ROWID token AAASrPAAEAAAAQ2AAK for that row.
    rowid = RowId.from_dba(dataobj=76495, dba=0x01000436, slot=10)
    assert (rowid.rfile, rowid.block, rowid.dba) == (4, 0x436, 0x01000436)
    assert str(rowid) == "AAASrPAAEAAAAQ2AAK"


def test_rowid_is_frozen_hashable_and_picklable() -> None:
    rowid = RowId(dataobj=87705, rfile=4, block=0xB0, slot=2)
    with pytest.raises(dataclasses.FrozenInstanceError):
        rowid.slot = 3  # type: ignore[misc]
    assert {rowid: 1}[RowId(dataobj=87705, rfile=4, block=0xB0, slot=2)] == 1
    assert pickle.loads(pickle.dumps(rowid)) == rowid


@pytest.mark.parametrize(
    "fields",
    [
        pytest.param({"dataobj": -1, "rfile": 0, "block": 0, "slot": 0}, id="negative-dataobj"),
        pytest.param({"dataobj": 2**32, "rfile": 0, "block": 0, "slot": 0}, id="dataobj-33-bits"),
        pytest.param({"dataobj": 0, "rfile": 1024, "block": 0, "slot": 0}, id="rfile-11-bits"),
        pytest.param({"dataobj": 0, "rfile": 0, "block": 2**22, "slot": 0}, id="block-23-bits"),
        pytest.param({"dataobj": 0, "rfile": 0, "block": 0, "slot": 65536}, id="slot-17-bits"),
    ],
)
def test_rowid_rejects_out_of_range_fields(fields: dict[str, int]) -> None:
    with pytest.raises(ValueDecodeError):
        RowId(**fields)


@pytest.mark.parametrize(
    "text",
    [
        pytest.param("AAAVaZAAEAAAACwAA", id="17-chars"),
        pytest.param("AAAVaZAAEAAAACwAACA", id="19-chars"),
        pytest.param("AAAVaZAAEAAAACwAA=", id="bad-character"),
        pytest.param("AAAVaZQAAAAAACwAAC", id="rfile-above-10-bits"),
        pytest.param("EAAAAAAAAAAAAAAAAA", id="dataobj-above-32-bits"),
    ],
)
def test_parse_rowid_rejects(text: str) -> None:
    with pytest.raises(ValueDecodeError):
        parse_rowid(text)


@pytest.mark.parametrize(
    ("dba", "rfile", "block"),
    [
        pytest.param(0x0100010C, 4, 0x10C, id="seed000-0x0100010c"),
        pytest.param(0x01000436, 4, 0x436, id="seed000-0x01000436"),
        pytest.param(0x00C000B2, 3, 0xB2, id="seed000-undo-0x00c000b2"),
        pytest.param(0x0600000E, 24, 14, id="real-23ai-rfile-24"),
        pytest.param(0xFFFFFFFF, 1023, 0x3FFFFF, id="all-ones"),
    ],
)
def test_dba_helpers(dba: int, rfile: int, block: int) -> None:
    assert dba_file(dba) == rfile
    assert dba_block(dba) == block
    assert make_dba(rfile, block) == dba


@pytest.mark.parametrize(
    ("rfile", "block"),
    [pytest.param(1024, 0, id="rfile-too-big"), pytest.param(0, 2**22, id="block-too-big")],
)
def test_make_dba_rejects(rfile: int, block: int) -> None:
    with pytest.raises(ValueDecodeError):
        make_dba(rfile, block)


#: ROWID (type 69) values, 10 bytes: data object, DBA, slot
ROWID_VALUES = [
    # a public DUMP(ROWID,16), "Typ=69 Len=10: 0,0,d7,89,1,80,0,e2,0,16", next to its ROWID text
    pytest.param("00 00 d7 89 01 80 00 e2 00 16", "AAANeJAAGAAAADiAAW", id="dump-typ-69-block-226"),
    pytest.param("00 00 d7 89 01 80 03 b5 00 25", "AAANeJAAGAAAAO1AAl", id="dump-typ-69-block-949"),
    pytest.param("00 01 56 99 01 00 00 b0 00 02", "AAAVaZAAEAAAACwAAC", id="doc-87705"),
    pytest.param("ff ff ff ff ff ff ff ff ff ff", "D/////AP/AAP///P//", id="all-maximal"),
]


@pytest.mark.parametrize(
    "hex_bytes",
    [
        pytest.param("00 00 d7 89 01 80 00 e2 00", id="9-bytes"),
        pytest.param("00 00 d7 89 01 80 00 e2 00 16 00", id="11-bytes"),
        pytest.param("01 00 01 56 99 00 02 00 04 00 00 00 b0", id="a-physical-urowid"),
        pytest.param("", id="empty"),
    ],
)
def test_decode_rowid_rejects_other_lengths(hex_bytes: str) -> None:
    with pytest.raises(ValueDecodeError, match="not a 10-byte ROWID") as info:
        decode_rowid(bytes.fromhex(hex_bytes))
    assert info.value.details == {"type": "ROWID", "hex": bytes.fromhex(hex_bytes).hex()}


UROWIDS = [
    pytest.param("01 00 01 56 99 00 02 00 04 00 00 00 b0", "AAAVaZAAEAAAACwAAC", id="doc-87705"),
    pytest.param("01 00 01 1c 16 00 00 00 18 00 00 00 0e", "AAARwWAAYAAAAAOAAA", id="real-72726"),
]


@pytest.mark.parametrize(
    ("codec", "hex_bytes", "text"),
    [pytest.param("ROWID", *p.values, id=f"rowid-{p.id}") for p in ROWID_VALUES]
    + [pytest.param("UROWID", *p.values, id=f"urowid-{p.id}") for p in UROWIDS],
)
def test_rowid_and_urowid_values_both_ways(codec: str, hex_bytes: str, text: str) -> None:
    decode, encode = {"ROWID": (decode_rowid, encode_rowid), "UROWID": (decode_urowid, encode_urowid)}[codec]
    rowid = decode(bytes.fromhex(hex_bytes))
    assert str(rowid) == text
    assert encode(rowid) == bytes.fromhex(hex_bytes)


@pytest.mark.parametrize(
    "hex_bytes",
    [
        pytest.param("02 00 01 56 99 00 02 00 04 00 00 00 b0", id="logical-urowid"),
        pytest.param("01 00 01 56 99 00 02 00 04 00 00 00", id="12-bytes"),
        pytest.param("01 00 01 56 99 00 02 04 00 00 00 00 b0", id="rfile-1024"),
        pytest.param("", id="empty"),
    ],
)
def test_decode_urowid_rejects(hex_bytes: str) -> None:
    with pytest.raises(ValueDecodeError):
        decode_urowid(bytes.fromhex(hex_bytes))


rowids = st.builds(
    RowId,
    dataobj=st.integers(0, 2**32 - 1),
    rfile=st.integers(0, 1023),
    block=st.integers(0, 2**22 - 1),
    slot=st.integers(0, 2**16 - 1),
)


@given(rowids)
def test_rowid_round_trip(rowid: RowId) -> None:
    text = str(rowid)
    assert len(text) == 18
    assert parse_rowid(text) == rowid
    assert decode_urowid(encode_urowid(rowid)) == rowid
    assert decode_rowid(encode_rowid(rowid)) == rowid
    assert RowId.from_dba(dataobj=rowid.dataobj, dba=rowid.dba, slot=rowid.slot) == rowid


@given(st.text(max_size=20))
def test_parse_rowid_raises_only_value_decode_error(text: str) -> None:
    try:
        parse_rowid(text)
    except ValueDecodeError:
        pass
