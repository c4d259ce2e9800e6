"""DecodeReport: counting, skipped items, corrupt ranges, merging, to_dict (JSON-friendly)."""

from __future__ import annotations

import json

from redo_lib.errors import ChecksumError, Position
from redo_lib.report import DecodeReport


def _report(vld: int, opcodes: list[tuple[int, int]], opaque: list[str] = []) -> DecodeReport:  # noqa: B006
    report = DecodeReport()
    report.count_record(vld=vld, length=100, opcodes=opcodes, opaque=opaque)
    return report


def test_counts_records_by_vld_and_vectors_and_records_by_opcode() -> None:
    report = _report(0x05, [(5, 1), (11, 2), (5, 1)], ["index"])
    assert (report.records, report.bytes, report.vectors) == (1, 100, 3)
    assert report.vectors_by_opcode[(5, 1)] == 2 and report.records_by_opcode[(5, 1)] == 1
    assert report.records_by_vld[0x05] == 1 and report.opaque_by_category["index"] == 1


def test_merge_adds_counts_and_concatenates_skips() -> None:
    a = _report(0x01, [(5, 1)])
    b = _report(0x01, [(5, 1), (13, 59)], ["space"])
    b.add_skipped(
        ChecksumError("block checksum mismatch", position=Position(file="f", sequence=15, block=7, offset=14))
    )
    b.add_corrupt_range(file="f", sequence=15, start_block=7, start_offset=0, end_block=8, kind="checksum")
    merged = a.merge(b)
    assert (merged.records, merged.vectors_by_opcode[(5, 1)], merged.records_by_vld[0x01]) == (2, 2, 2)
    assert [s.kind for s in merged.skipped] == ["checksum"] and merged.corrupt_ranges[0].end_block == 8
    assert a.records == 1 and b.records == 1  # inputs unchanged


def test_to_dict_is_json_with_readable_keys() -> None:
    report = _report(0x06, [(23, 1)], ["block_write"])
    report.add_skipped(ChecksumError("bad", position=Position(file="f", sequence=15, block=7, offset=14)))
    doc = json.loads(json.dumps(report.to_dict()))
    assert doc["records_by_vld"] == {"0x06": 1} and doc["vectors_by_opcode"] == {"23.1": 1}
    assert doc["skipped"][0]["position"]["block"] == 7 and doc["skipped"][0]["kind"] == "checksum"
    assert "RBA 0x00000f.00000007.000e" in doc["skipped"][0]["where"]
