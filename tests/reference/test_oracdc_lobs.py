"""The real oracdc records with LOB-related opcodes (11.17, 10.30, 10.35, 19.1) decode and are reported.

Expected values come from the data set (bytes at the offsets redo-format §4.1, §5.7, §5.8 and §5.10
name, read by hand from the hex) and from redo-format itself, never from the decoder:

* 11.17 LLB (three records, one of them big-endian): §5.0 gives no layout; the doc's LOB id shape
  (§5.7: ten bytes starting ``00 00 00 01``) is at @12 of field 3 in both kind-1 vectors;
* 10.30 / 10.35 (three records): index operations paired with a 5.1 of opc 10.22 (§6.1); not LOB
  index ops the doc defines (10.2, 10.8, 10.18), so they are index vectors that never reach the
  trail (contract rule 3), counted as ignored;
* 19.1 (two records): field 1 parses per §5.8, but these blocks are neither LOB pages (no LOB-id
  shape) nor the direct-path table blocks the decoder turns into rows: counted as other blocks.
  The vector header's object id sits at @4 of field 1, not @0 as §5.8 says (docs/lobs.md).

None of them gives a row change. ``DecodeReport.lobs`` counts them by kind.
"""

from __future__ import annotations

import datetime as dt
import io
import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from redo_lib.assembly.events import iter_events
from redo_lib.format.model import DirectLoadBlock, LobSupport, Opaque, RedoRecord, UndoRecord
from redo_lib.format.writer import LogFileSpec, LogWriter
from redo_lib.report import DecodeReport
from redo_lib.scn import Xid
from tests.unit.redo_lib.format.realdata import PROFILES, BytesSource, parse_oracdc_record

pytestmark = pytest.mark.realdata

REPO = Path(__file__).resolve().parents[2]
RECORDS = REPO.parent / "shared" / "realdata" / "oracdc-redo-records" / "redo-records.jsonl"
LOB_OPCODES = {(11, 17), (10, 30), (10, 35), (19, 1)}


def _rows() -> list[dict[str, Any]]:
    if not RECORDS.exists():
        pytest.skip(f"real data not available: {RECORDS}")
    return [json.loads(line) for line in RECORDS.read_text().splitlines()]


def _parse(row: dict[str, Any]) -> RedoRecord:
    return parse_oracdc_record(row)


def _lob_records() -> list[tuple[dict[str, Any], RedoRecord]]:
    out = []
    for row in _rows():
        record = _parse(row)
        if LOB_OPCODES & {v.opcode for v in record.vectors}:
            out.append((row, record))
    return out


def test_the_data_set_has_the_lob_related_records_the_issue_names() -> None:
    found = Counter(v.opcode for _, r in _lob_records() for v in r.vectors if v.opcode in LOB_OPCODES)
    assert found == {(11, 17): 3, (10, 30): 1, (10, 35): 2, (19, 1): 2}


def test_they_decode_without_errors_and_give_no_change_event() -> None:
    # no CHANGE event, so no row change can come of them (index vectors, LLB and non-row 19.1
    # blocks never reach the trail: contract rule 3)
    for _, record in _lob_records():
        assert list(iter_events(record)) == []


def test_llb_vectors_kind_and_lob_id() -> None:
    llb = [
        (row["redo_log_profile"], v) for row, r in _lob_records() for v in r.vectors if v.opcode == (11, 17)
    ]
    # (profile, vector header obj, DBA, field sizes, kind, LOB id) read from the hex
    expected = [
        ("getLinux19c", 13575, 0, (16, 1, 80, 8), 1, bytes.fromhex("0000000100002ee38f9a")),
        ("getAix19c", 0, 0, (16, 1, 80, 8), 1, bytes.fromhex("000000010000f5447085")),
        ("getLinux19c", 0, 0, (16, 1, 36), 3, None),
    ]
    got = []
    for profile, v in llb:
        assert isinstance(v.body, LobSupport)
        got.append((profile, v.obj, v.dba, v.body.sizes, v.body.kind, v.body.lob_id))
    assert got == expected


def test_index_vectors_pair_with_their_index_undo_and_are_ignored() -> None:
    pairs = []
    for _, record in _lob_records():
        vectors = record.vectors
        for undo, redo in zip(vectors, vectors[1:], strict=False):
            if redo.layer == 10:
                assert isinstance(undo.body, UndoRecord) and undo.body.opc == (10, 22)
                assert isinstance(redo.body, Opaque) and redo.body.category == "index"
                pairs.append((redo.opcode, redo.obj, redo.dba, undo.body.obj, undo.body.xid))
    assert pairs == [
        ((10, 30), 80707, 0x963, 80707, Xid(2, 4, 0x906)),
        ((10, 35), 80707, 0x963, 80707, Xid(2, 4, 0x906)),
        ((10, 35), 80707, 0x963, 80707, Xid(2, 0x16, 0x90A)),
    ]


def test_direct_load_blocks_parse_per_the_doc_but_hold_no_lob_page() -> None:
    blocks = [(v, r) for _, r in _lob_records() for v in r.vectors if v.opcode == (19, 1)]
    got = []
    for v, _ in blocks:
        body = v.body
        assert isinstance(body, DirectLoadBlock)
        assert not body.rows and not body.lob_id.startswith(b"\x00\x00\x00\x01")
        assert len(body.data) == len(v.fields[0]) - 36  # page data from @36 to the field end
        got.append((v.obj, v.dba, body.dataobj, int.from_bytes(v.fields[0][4:8], "little")))
    # §5.8 puts the data object id at @0 (2 and 1 here); the header's object id is at @4
    assert got == [(16334300, 0x4344EA, 2, 16334300), (75656, 0x20671, 1, 75656)]


def _core_report(rows: list[dict[str, Any]]) -> DecodeReport:
    """The decode report of the core over the records of ``rows``, each profile's records written
    into one log of its byte order and compat (``format/writer.py``) and decoded whole."""
    from redo_lib.pipeline import decode_range_arrow

    report = DecodeReport()
    for profile, layout in PROFILES.items():
        mine = [row for row in rows if row["redo_log_profile"] == profile]
        if not mine:
            continue
        t0 = dt.datetime(2024, 1, 1)
        spec = LogFileSpec(
            sequence=1, resetlogs_id=1, first_scn=1, first_time=t0,
            big_endian=layout.big_endian, compat_version=layout.compat_version,
        )  # fmt: skip
        out = io.BytesIO()
        writer = LogWriter(out, spec)
        for i, row in enumerate(mine):
            raw = bytes.fromhex(row["hex"])
            vectors = raw[68:] if raw[4] & 0x04 else raw[24:]  # after the record header (§3.2)
            writer.append(scn=10 + i, subscn=1, vectors=[vectors], time=t0, vld=raw[4] & ~0x04)
        writer.close(next_scn=10 + len(mine), next_time=t0)
        list(decode_range_arrow(BytesSource(out.getvalue(), f"{profile}.dbf"), report=report))
    return report


def test_decode_report_counts_them_by_kind() -> None:
    report = _core_report([row for row, _ in _lob_records()])
    assert report.lobs == {
        "llb_vectors": 3,
        "index_vectors_ignored": 3,
        "index_undo_vectors": 3,
        "direct_load_other_blocks": 2,
    }
    assert report.to_dict()["lobs"]["llb_vectors"] == 3


def test_every_oracdc_record_still_decodes_to_events() -> None:
    total = Counter[str]()
    for row in _rows():
        record = _parse(row)
        total.update(e.kind.name for e in iter_events(record))
    assert total["CHANGE"] > 0
