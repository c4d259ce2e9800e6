"""The named scenarios of include/scenarios: generated logs pass every structural check of the
reader, ``python -m redo_lib dump`` / ``stats`` work on them, and each scenario shows what it is
named for. One test compares the generated INSERT with the real 23.6 one, field by field."""

from __future__ import annotations

import io
import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from redo_lib.format.native_records import parse_header, read_records
from redo_lib.synth import GenerationResult, generate, load_scenario, parse_scenario
from tests.unit.redo_lib.synth.running import table_rows
from tests.unit.redo_lib.synth.running import trail as read_trail

REPO = Path(__file__).resolve().parents[4]
SCENARIOS = REPO / "include" / "scenarios"
REAL_23 = (
    REPO.parent / "shared" / "realdata" / "rophy-olr-example-free-23" / "redo" / "arch1_15_1224959854.dbf"
)
NAMES = sorted(p.stem for p in SCENARIOS.glob("*.yaml"))


def _generate(name: str, tmp_path: Path) -> GenerationResult:
    return generate(load_scenario(SCENARIOS / f"{name}.yaml"), tmp_path / name)


def _records(path: Path) -> list[Any]:
    """The log's header and records, read by the Rust core."""
    data = path.read_bytes()
    return [parse_header(data, path.name), *read_records(data, name=path.name)]


def _opcodes(result: GenerationResult) -> Counter[tuple[int, int]]:
    found: Counter[tuple[int, int]] = Counter()
    for path in result.logs:
        for record in _records(path)[1:]:
            found.update(v.opcode for v in record.vectors)
    return found


@pytest.mark.parametrize("name", NAMES)
def test_logs_pass_the_reader_and_chain_by_scn(name: str, tmp_path: Path) -> None:
    result = _generate(name, tmp_path)
    by_thread: dict[int, list[Any]] = {}
    for path in result.logs:
        header, *records = _records(path)
        assert path.stat().st_size == header.nab * header.block_size  # §1.1
        assert path.name == f"{header.thread}_{header.sequence}_{header.resetlogs_id}.arc"
        assert records, "every generated log holds records"
        for record in records:
            assert header.first_scn <= record.scn < header.next_scn  # §1.5
        keys = [(r.scn, r.subscn) for r in records]
        assert keys == sorted(keys) and len(set(keys)) == len(keys)  # checklist item 5
        by_thread.setdefault(header.thread, []).append(header)
    for headers in by_thread.values():
        headers.sort(key=lambda h: h.sequence)
        assert [h.sequence for h in headers] == list(range(1, len(headers) + 1))
        for before, after in zip(headers, headers[1:], strict=False):
            assert before.next_scn == after.first_scn  # a log switch hands the SCN range on


@pytest.mark.parametrize("name", NAMES)
def test_dump_and_stats_commands_work(name: str, tmp_path: Path) -> None:
    cli = pytest.importorskip("redo_lib.cli", reason="cli not available yet")
    result = _generate(name, tmp_path)
    for path in result.logs:
        out = io.StringIO()
        assert cli.cmd_dump([str(path)], out=out) == 0
        assert "REDO RECORD" in out.getvalue() and "SKIPPED" not in out.getvalue()
        assert cli.main(["stats", str(path)]) == 0


def test_long_transaction_spans_three_log_switches(tmp_path: Path) -> None:
    result = _generate("long_transaction", tmp_path)
    trail = read_trail(result)
    (long_xid,) = {r["xid"] for r in trail if r["columns"].get("ID") == "1"}
    sequences = [r["sequence"] for r in trail if r["xid"] == long_xid]
    assert max(sequences) - min(sequences) >= 3
    assert [r["columns"]["ID"] for r in trail if r["xid"] == long_xid] == ["1", "1", "2", "3", "2"]
    assert trail[-1]["columns"]["ID"] == "102"  # committed after the long one


def test_rac_threads_have_their_own_sequences_and_interleave_by_scn(tmp_path: Path) -> None:
    result = _generate("rac_two_threads", tmp_path)
    assert sorted(p.name.split("_")[0] for p in result.logs) == ["1", "1", "2", "2"]
    trail = read_trail(result)
    assert {r["thread"] for r in trail} == {1, 2}
    commits = [r["commit_scn"] for r in trail]
    assert commits == sorted(commits)
    firsts = {1: [], 2: []}  # type: dict[int, list[int]]
    for path in result.logs:
        header = _records(path)[0]
        firsts[header.thread].append(header.first_scn)
    assert min(firsts[2]) < max(firsts[1]) and min(firsts[1]) < max(firsts[2])  # SCN ranges overlap


def test_chained_rows_are_written_as_pieces(tmp_path: Path) -> None:
    result = _generate("chained_rows", tmp_path)
    pieces = []
    for path in result.logs:
        for record in _records(path)[1:]:
            for v in record.vectors:
                if v.opcode == (11, 2) and v.body.kdo.xtype == 1:
                    pieces.append(v.body.kdo.fb)
    # PAGE_ID 1: three pieces written last-first: L, middle, H F (redo-format §6.5)
    assert pieces[:3] == [0x04, 0x00, 0x28]
    trail = read_trail(result)
    first = trail[0]
    assert first["op"] == "INSERT" and len(first["columns"]["PART_A"]) == 1200


def test_array_and_direct_load_vectors(tmp_path: Path) -> None:
    ops = _opcodes(_generate("array_and_direct_load", tmp_path))
    assert ops[(11, 11)] >= 2 and ops[(11, 12)] == 1 and ops[(19, 1)] == 2 and ops[(24, 6)] == 2


def test_savepoints_write_compensations_and_a_rollback(tmp_path: Path) -> None:
    result = _generate("savepoints", tmp_path)
    ops = _opcodes(result)
    assert ops[(5, 6)] > 0 and ops[(5, 11)] > 0
    ends = [
        v.body.rolled_back
        for path in result.logs
        for record in _records(path)[1:]
        for v in record.vectors
        if v.opcode == (5, 4)
    ]
    assert True in ends and False in ends


def test_keys_scenario_has_every_update_kind(tmp_path: Path) -> None:
    trail = read_trail(_generate("keys", tmp_path))
    assert {r["op"] for r in trail} == {"INSERT", "UPDATE", "PK_UPDATE", "DELETE"}
    assert {tuple(r["key_columns"]) for r in trail} == {("REGION", "ID"), ("EMAIL",), ("A", "B", "C", "D")}


def test_expected_tables_match_the_trail_replayed(tmp_path: Path) -> None:
    """Replaying the expected trail by key gives the expected final tables (two views of one run)."""
    result = _generate("keys", tmp_path)
    rows: dict[str, dict[tuple[Any, ...], dict[str, Any]]] = {}
    for r in read_trail(result):
        table = rows.setdefault(f"{r['owner']}.{r['table']}", {})
        key = tuple(r["key_columns"])
        if r["op"] == "INSERT":
            table[tuple(r["columns"][k] for k in key) + (r["rowid"],)] = dict(r["columns"])
            continue
        old = tuple((r["before"] or r["columns"])[k] for k in key) + (r["rowid"],)
        image = table.pop(old)
        if r["op"] != "DELETE":
            image.update(r["columns"])
            table[tuple(image[k] for k in key) + (r["rowid"],)] = image
    for name, table in rows.items():
        expected = [
            json.loads(x)
            for x in (result.out / "expected" / "tables" / f"{name}.jsonl").read_text().splitlines()
        ]
        assert sorted(map(json.dumps, table.values())) == sorted(map(json.dumps, expected))


@pytest.mark.realdata
def test_insert_fields_match_the_real_23_6_insert(tmp_path: Path) -> None:
    if not REAL_23.exists():
        pytest.skip(f"real log not found at {REAL_23}")
    real = next(  # the test INSERT of the sample: object 72726 (README of the real data)
        r for r in _records(REAL_23)[1:] if any(v.opcode == (11, 2) and v.obj == 72726 for v in r.vectors)
    )
    scenario = parse_scenario(
        """
        settings: {compat: 23ai}
        tables:
          - owner: OLR_TEST
            name: TEST_CDC
            columns: [{name: ID, type: NUMBER, nullable: false}, {name: NAME, type: VARCHAR2(100)}]
            primary_key: [ID]
        steps: [{insert: {table: TEST_CDC, values: {ID: 1, NAME: hello world}}}, commit]
        """
    )
    result = generate(scenario, tmp_path / "g")
    mine = next(r for r in _records(result.logs[0])[1:] if (11, 2) in [v.opcode for v in r.vectors])

    def lengths(record: Any, opcode: tuple[int, int]) -> list[int]:
        return next([len(f) for f in v.fields] for v in record.vectors if v.opcode == opcode)

    for opcode in ((5, 1), (11, 2)):
        assert lengths(mine, opcode) == lengths(real, opcode), opcode
    assert lengths(mine, (11, 2)) == [24, 49, 2, 11]
    real_insert = next(v for v in real.vectors if v.opcode == (11, 2)).body
    mine_insert = next(v for v in mine.vectors if v.opcode == (11, 2)).body
    assert mine_insert.columns == real_insert.columns == (b"\xc1\x02", b"hello world")
    assert (mine_insert.kdo.fb, mine_insert.kdo.cc) == (real_insert.kdo.fb, real_insert.kdo.cc)


def test_lobs_scenario_values_pieces_and_rollbacks(tmp_path: Path) -> None:
    """lobs.yaml: values as the SQL set them (NULL vs EMPTY_CLOB(), a LOB an UPDATE does not set is
    absent), LOB pages written as 26.2 pieces, rolled-back pieces compensated by 5.6 / 5.11 (opc 26.1)."""
    result = _generate("lobs", tmp_path)
    trail = read_trail(result)
    by_id: dict[str, list[dict[str, Any]]] = {}
    for r in trail:
        by_id.setdefault(r["columns"]["ID"], []).append(r)
    first = by_id["1"][0]["columns"]
    assert first["BODY"] == "héllo wörld €" and first["NOTE"] is None and first["DATA"] == ""
    assert by_id["2"][0]["columns"]["BODY"] == ""  # EMPTY_CLOB(), not NULL
    assert "BODY" not in by_id["1"][1]["columns"]  # UPDATE of TITLE only: the LOB is not present
    big = by_id["4"][0]
    assert big["columns"]["DATA"] == "0123456789ABCDEF" * 393216
    assert big["lob_columns"] == [{"column": "DATA", "bytes": 3 << 20, "pieces": 96}]
    appended = by_id["3"][1]["columns"]["BODY"]
    assert appended == "lorem ipsum " * 1500 + "dolor sit amet " * 900  # complete after DBMS_LOB.APPEND
    assert {"5", "7"}.isdisjoint(by_id)  # rolled back: whole and to the savepoint
    assert [r["op"] for r in by_id["3"]] == ["INSERT", "UPDATE"]  # the append under the savepoint is gone
    ops = _opcodes(result)
    assert ops[(26, 2)] > 400 and ops[(5, 6)] + ops[(5, 11)] > 10
    rollbacks = [
        v.body.opc
        for path in result.logs
        for record in _records(path)[1:]
        for v in record.vectors
        if v.opcode in ((5, 6), (5, 11))
    ]
    assert (26, 1) in rollbacks
    rows = {r["ID"]: r for r in table_rows(result, "APP.DOCS")}
    assert sorted(rows) == ["1", "2", "3", "6", "8"]
    assert rows["1"]["BODY"] is None and rows["8"]["DATA"] == "AB" * 5000 + "CD" * 12000


def test_lob_stats_count_pieces(tmp_path: Path) -> None:
    cli = pytest.importorskip("redo_lib.cli", reason="cli not available yet")
    result = _generate("lobs", tmp_path)
    out = io.StringIO()
    assert cli.cmd_stats([str(result.logs[0])], out=out) == 0
    assert "LOB and index vectors:" in out.getvalue() and "lob_data_pieces" in out.getvalue()
