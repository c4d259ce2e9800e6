"""SecureFile LOBs (issue 18, docs/lobs.md): the generator's SecureFile locators (redo-format §7.8) and
26.6 page images (§5.10) decode to the values the scenario set; a locator form the decoder does not
read is counted by table, column and reason in counts.json (section ``lobs``), never a value."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

from redo_lib.format.native_records import read_records
from redo_lib.pipeline import decode_logs
from redo_lib.synth import generate, load_scenario, parse_scenario
from tests.unit.redo_lib.synth.running import trail as read_trail

REPO = Path(__file__).resolve().parents[4]


def _opcodes(logs: Any) -> Counter[tuple[int, int]]:
    found: Counter[tuple[int, int]] = Counter()
    for path in logs:
        for record in read_records(path.read_bytes(), name=path.name):
            found.update(v.opcode for v in record.vectors)
    return found


def test_securefile_scenario_decodes_its_values_from_pieces_and_page_images(tmp_path: Path) -> None:
    result = generate(load_scenario(REPO / "include/scenarios/securefile_lobs.yaml"), tmp_path)
    expected = read_trail(result)
    decoded = decode_logs(list(result.logs), result.dictionary)
    assert [r.to_dict() for r in decoded.trail] == expected
    by_key = {(r["table"], r["columns"].get("ID"), r["op"]): r["columns"] for r in expected}
    assert by_key[("SDOCS", "1", "INSERT")]["BODY"] == "sécure ☃ file"
    assert by_key[("SDOCS", "2", "INSERT")] == {"ID": "2", "BODY": "", "DATA": "CAFEBABE"}
    assert by_key[("SDOCS", "4", "INSERT")]["DATA"] == "0123456789ABCDEF" * 40000
    assert by_key[("IMAGES", "1", "INSERT")]["PHOTO"] == "89504E470D0A1A0A" * 3000
    assert by_key[("IMAGES", "2", "INSERT")]["CAPTION"] == "ünïcødé " * 600
    # pages of 8,132 bytes (8 KB blocks): 24,000 bytes of PHOTO and 9,600 of CAPTION (AL16UTF16) are
    # written as 3 + 2 page images; SDOCS' pages are 26.2 pieces
    ops = _opcodes(result.logs)
    assert ops[(26, 6)] == 5 and ops[(26, 2)] > 0
    lobs = decoded.counts["lobs"]
    assert lobs.get("lob_values_unresolved", 0) == 0 and "unresolved_by_column" not in lobs
    assert decoded.report.lobs["lob_image_pieces"] == 5
    # the resolved scenario.yaml keeps the tables' storage: it gives the same logs again
    again = generate(load_scenario(result.out / "scenario.yaml"), tmp_path / "again")
    assert [p.read_bytes() for p in again.logs] == [p.read_bytes() for p in result.logs]


def test_a_locator_form_not_read_is_counted_with_table_column_and_reason(tmp_path: Path) -> None:
    """Two out-of-row values in the 12c+ list-page form (not read), one in the row (read)."""
    scenario = parse_scenario(
        """
name: securefile_list_pages
settings: {compat: 19c, log_size: 8MB}
tables:
  - {owner: APP, name: L, securefile: list_pages, primary_key: [ID],
     columns: [{name: ID, type: NUMBER, nullable: false}, {name: BODY, type: CLOB}, {name: B, type: BLOB}]}
steps:
  - insert: {table: L, values: {ID: 1, BODY: {repeat: "abc", times: 5000}}}
  - insert: {table: L, values: {ID: 2, BODY: small, B: {repeat: "00", times: 9000}}}
  - commit
"""
    )
    result = generate(scenario, tmp_path)
    decoded = decode_logs(list(result.logs), result.dictionary)
    reason = "SecureFile locator list page (12c+ style 0x40) not read"
    assert decoded.counts["lobs"]["unresolved_by_column"] == {
        "APP.L.BODY": {reason: 1},
        "APP.L.B": {reason: 1},
    }
    assert decoded.counts["lobs"]["lob_values_unresolved"] == 2
    second = decoded.trail[1].to_dict()["columns"]
    assert second["BODY"] == "small"  # the in-row form is read
    assert second["B"] != "00" * 9000 and decoded.trail[0].to_dict()["columns"]["BODY"] != "abc" * 5000


def test_basicfile_pages_past_the_locator_are_read_through_lob_index_entries(tmp_path: Path) -> None:
    """lob_index.yaml: locators list 4 page DBAs; the other pages of 8,132 bytes are named by 10.2
    LOB index entries of up to 8 pages: DOC of ID 2 (252,000 bytes, 31 pages: 27 indexed, 4 keys),
    BIN of ID 2 (90,000 bytes, 12 pages: 1 key), DOC of ID 1's update (90,000 bytes: 1 key), BIN of
    the rolled-back ID 3 (70,000 bytes, 9 pages: 1 key); BIN of ID 1 (3 pages) needs none."""
    result = generate(load_scenario(REPO / "include/scenarios/lob_index.yaml"), tmp_path)
    decoded = decode_logs(list(result.logs), result.dictionary)
    assert [r.to_dict() for r in decoded.trail] == read_trail(result)
    assert decoded.report.lobs["lob_index_entries"] == 7
    assert decoded.counts["lobs"].get("lob_values_unresolved", 0) == 0
    assert decoded.counts["lobs"]["lob_values_out_of_row"] == 4
