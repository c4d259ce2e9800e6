"""The seed 000 fixtures of tests/fixtures/dumps are faithful to the seed.

* Each ``seed000_<case>.expected.json`` (hand transcription of the TrailAnalyzer output) is checked
  against the TrailAnalyzer text of its seed section, read here with a small reader of that text.
* Each ``seed000_<case>.txt`` is the seed's dump text, de-indented, nothing added; the repaired
  direct-load text differs by exactly the one documented line.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from redo_lib.dump import parse_dump
from redo_lib.errors import DumpParseError

REPO = Path(__file__).resolve().parents[4]
SEED = REPO.parent / "shared" / "seeds" / "000_c837cc39190bfb46.txt"
FIXTURES = REPO / "tests" / "fixtures" / "dumps"
SECTIONS = {  # case -> the seed's heading of its section
    "single_row_insert": "Single Row Insertion",
    "single_row_update": "Single Row Updates",
    "single_row_delete": "Single row deletes",
    "multi_row_update": "Multi-Row Updates",
    "multi_row_delete": "Multi-Row Deletes",
    "array_insert": "Array Inserts",
    "direct_load_insert": "Direct load inserts",
}
_OPS = {"Insert": "INSERT", "Update": "UPDATE", "Delete": "DELETE"}


def _seed_lines() -> list[str]:
    if not SEED.is_file():
        pytest.skip(f"seed not found at {SEED}")
    return [line.strip() for line in SEED.read_text().splitlines()]


def _section(case: str) -> list[str]:
    lines = _seed_lines()
    heads = [lines.index(title) for title in SECTIONS.values()]
    start = lines.index(SECTIONS[case])
    end = min([h for h in heads if h > start] + [len(lines)])
    return lines[start:end]


def _trail_records(lines: list[str]) -> list[dict[str, Any]]:
    """The records of a TrailAnalyzer listing (``# Header: Type=47 (G) ...`` to ``Type=5A (Z)``)."""
    records: list[dict[str, Any]] = []
    current: dict[str, Any] = {}
    slot: dict[str, Any] | None = None
    pending: str | None = None
    for line in lines:
        if pending is not None and line:
            current["tokens"][pending] = line
            if pending == "R":
                current["rowid_shown"] = line
            pending = None
            continue
        if m := re.match(r"# Header: Type=47 \(G\) Flag=1 Len=(\d+)", line):
            current = {"lengths": {"record": int(m.group(1))}, "columns": [], "tokens": {}}
            records.append(current)
        elif m := re.match(r"# Row \((\d+) bytes\)", line):
            current["lengths"]["row"] = int(m.group(1))
        elif m := re.match(r"# (Row Header|Row Data|Row Metadata) \((\d+) bytes\)", line):
            current["lengths"][m.group(1).lower().replace(" ", "_")] = int(m.group(2))
        elif m := re.match(r"# Flags - (0x[0-9A-F]{2}) (\w+)", line):
            current["flags"], current["op"] = m.group(1), _OPS[m.group(2)]
        elif m := re.match(r"# Timestamp (.+)", line):
            current["timestamp"] = m.group(1)
        elif m := re.match(r"# Object (\S+)", line):
            current["object"] = m.group(1)
        elif m := re.match(r"# Slot (\d+) \((\d+) bytes\)", line):
            slot = {"slot": int(m.group(1)), "size": int(m.group(2)), "hex": [], "name": None, "value": None}
            current["columns"].append(slot)
        elif (
            slot is not None
            and (m := re.match(r"^((?:[0-9A-F]{2} ?)+?)\s*(?:# (\w+) = (.*))?$", line))
            and line
        ):
            slot["hex"].extend(m.group(1).split())
            if m.group(2):
                slot["name"], slot["value"] = m.group(2), m.group(3)
        elif line.startswith("# ROWID"):
            pending, slot = "R", None
        elif line.startswith("# Commit SCN"):
            pending = "L"
        elif line.startswith("# Transaction ID"):
            pending = "6"
        elif line.startswith("#") or not line:
            slot = None
    return records


@pytest.mark.parametrize("case", sorted(SECTIONS))
def test_expected_json_is_the_seed_trail(case: str) -> None:
    expected = json.loads((FIXTURES / f"seed000_{case}.expected.json").read_text())
    trail = _trail_records(_section(case))
    assert len(trail) == len(expected["records"]) == expected["transaction"]["record_count"]
    for shown, record in zip(trail, expected["records"], strict=True):
        assert shown["flags"] == record["flags"] and shown["op"] == record["op"]
        assert shown["timestamp"] == record["timestamp_shown"]
        assert shown["object"] == record["object"] == f"{record['owner']}.{record['table']}"
        assert shown["lengths"] == record["trail_lengths"]
        assert shown["rowid_shown"] == record["rowid_shown"] == record["rowid"] + " 1"
        tokens = {k: (v.split()[0] if k == "R" else v) for k, v in shown["tokens"].items()}
        assert tokens == record["tokens"]
        assert [c["slot"] for c in shown["columns"]] == [c["slot"] for c in record["columns"]]
        for got, want in zip(shown["columns"], record["columns"], strict=True):
            assert " ".join(got["hex"]) == want["trail_hex"]
            assert got["size"] == len(want["trail_hex"].split())
            data = bytes.fromhex("".join(got["hex"]))
            assert int.from_bytes(data[:4], "big") == len(data) - 4
            assert data[4:].decode("ascii") == want["value"]
            assert want["name_shown_in_trail"] == (got["name"] is not None)
            if got["name"] is not None:
                assert (got["name"], got["value"]) == (want["name"], want["value"])
    first = expected["records"][0]["tokens"]
    assert (first["6"], int(first["L"])) == (
        expected["transaction"]["xid"],
        expected["transaction"]["commit_scn"],
    )
    assert all(set(r["tokens"]) == {"R"} for r in expected["records"][1:])
    total = next(
        int(m.group(1)) for line in _section(case) if (m := re.search(r"for the above change is (\d+)", line))
    )
    assert total == expected["trail_total_bytes"]


@pytest.mark.parametrize("case", sorted(SECTIONS))
def test_dump_fixture_is_seed_text(case: str) -> None:
    """Every line of the fixture is the next line of the seed's section (de-indented), in order."""
    raw = SEED.read_text().splitlines() if SEED.is_file() else pytest.skip("seed not found")
    section = _section(case)
    start = raw.index("    " + SECTIONS[case])
    seed = [
        line[4:] if line.startswith("    ") else line.strip() for line in raw[start : start + len(section)]
    ]
    position = 0
    for line in (FIXTURES / f"seed000_{case}.txt").read_text().splitlines():
        if not line:
            continue
        position = seed.index(line, position) + 1


def test_repaired_direct_load_differs_by_one_line() -> None:
    faithful = (FIXTURES / "seed000_direct_load_insert.txt").read_text().split("\n")
    repaired = (FIXTURES / "seed000_direct_load_insert.repaired.txt").read_text().split("\n")
    assert len(repaired) == len(faithful) + 1
    assert repaired[:89] == faithful[:89] and repaired[90:] == faithful[89:]
    assert repaired[89] == "col  4: [10]  4d 61 6e 63 68 65 73 74 65 72"


def test_faithful_direct_load_fixture_raises_at_the_gap() -> None:
    with pytest.raises(DumpParseError) as info:
        parse_dump((FIXTURES / "seed000_direct_load_insert.txt").read_text(), name="direct")
    assert info.value.position.line == 90
