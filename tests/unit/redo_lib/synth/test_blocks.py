"""Direct-path load images (synth/blocks.py): a parser written from the docstring's table splits the
image back into rows in slot order, in both endiannesses; the 19.1 vector wraps it per §5.8."""

from __future__ import annotations

import struct
from pathlib import Path

import pytest

from redo_lib.format.model import QmiRow
from redo_lib.format.writer import WriterLayout
from redo_lib.scn import Xid
from redo_lib.synth.blocks import data_offset, write_block_image
from tests.unit.redo_lib.synth.running import run

ROWS = [
    QmiRow(fb=0x2C, lb=1, columns=(b"\xc2\x0b\x08", b"Victoria", None, b"F")),
    QmiRow(fb=0x2C, lb=1, columns=(b"\xc2\x0b\x09",)),
    QmiRow(fb=0x2C, lb=1, columns=(b"\xc2\x0b\x0a", b"x" * 300)),
]


def _parse(image: bytes, fmt: str) -> tuple[int, int, Xid, list[tuple[int, int, tuple[bytes | None, ...]]]]:
    """(rdba, dataobj, ITL-1 xid, rows) following the layout table of synth/blocks.py."""
    rdba = struct.unpack_from(fmt + "I", image, 4)[0]
    dataobj = struct.unpack_from(fmt + "I", image, 24)[0]
    itc = struct.unpack_from(fmt + "H", image, 36)[0]
    xid = Xid(*struct.unpack_from(fmt + "HHI", image, 44))
    d = 52 + 24 * itc
    nrow = struct.unpack_from(fmt + "H", image, d + 2)[0]
    rows = []
    for slot in range(nrow):
        at = d + struct.unpack_from(fmt + "H", image, d + 18 + 2 * slot)[0]
        fb, lb, cc = image[at], image[at + 1], image[at + 2]
        at += 3
        cols: list[bytes | None] = []
        for _ in range(cc):
            n = image[at]
            at += 1
            if n == 0xFF:
                cols.append(None)
                continue
            if n == 0xFE:
                n = struct.unpack_from(fmt + "H", image, at)[0]
                at += 2
            cols.append(image[at : at + n])
            at += n
        rows.append((fb, lb, tuple(cols)))
    return rdba, dataobj, xid, rows


@pytest.mark.parametrize("big_endian", [False, True], ids=["le", "be"])
def test_block_image_splits_into_rows_in_slot_order(big_endian: bool) -> None:
    layout = WriterLayout(big_endian=big_endian)
    xid = Xid(4, 21, 0x361)
    image = write_block_image(
        layout, size=8192, dba=0x01000460, dataobj=76495, scn=0x193820, xid=xid, rows=ROWS
    )
    assert len(image) == 8192 and image[0] == 0x06 and data_offset() == 100
    rdba, dataobj, itl_xid, rows = _parse(image, ">" if big_endian else "<")
    assert (rdba, dataobj, itl_xid) == (0x01000460, 76495, xid)
    assert rows == [(r.fb, r.lb, r.columns) for r in ROWS]


def test_direct_insert_record_holds_a_marker_and_the_block(tmp_path: Path) -> None:
    from redo_lib.format.native_records import read_records

    result, trail = run(
        "steps:\n- direct_insert: {table: T, rows: [{ID: 1, NAME: a}, {ID: 2}, {ID: 3, QTY: 4}]}\n- commit",
        tmp_path,
    )
    records = read_records(result.logs[0].read_bytes(), name=result.logs[0].name)
    loads = [r for r in records if (19, 1) in [v.opcode for v in r.vectors]]
    (record,) = loads
    assert [v.opcode for v in record.vectors] == [(24, 6), (19, 1)]  # seed 000
    load = record.vectors[1]
    field = load.fields[0]
    assert struct.unpack_from("<I", field, 0)[0] == load.obj  # data object id @0 (§5.8)
    assert struct.unpack_from("<I", field, 28)[0] == load.dba  # pdba @28
    _, _, xid, rows = _parse(field[36:], "<")
    assert xid.trail() == trail[0]["xid"]
    assert [r[2][0] for r in rows] == [b"\xc1\x02", b"\xc1\x03", b"\xc1\x04"]
    assert [r["columns"] for r in trail] == [
        {"ID": "1", "NAME": "a", "QTY": None},
        {"ID": "2", "NAME": None, "QTY": None},
        {"ID": "3", "NAME": None, "QTY": "4"},
    ]
    assert {r["rba"] for r in trail} == {str(record.rba)}
    assert [r["rowid"][-3:] for r in trail] == ["AAA", "AAB", "AAC"]  # slots 0, 1, 2
