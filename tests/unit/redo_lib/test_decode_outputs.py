"""``python -m redo_lib decode``'s outputs against the scenario: JSON lines, Parquet (the trail
schema) and the table for people, each written from the core's Arrow rows without a Python object
per row (issue 31).

Real parts: binary logs the generator wrote for named scenarios (one thread and RAC, LOBs, DDL, and
text needing every escape), decoded by the command as a user runs it; the expected trail is the
generator's, worked out from the scenario's SQL. The table's text is checked against its documented
rules (``_table``, written from them here), also on record batches of arbitrary strings and on bad
batches (an ``AssemblyError``).
"""

from __future__ import annotations

import datetime as dt
import io
import json
import subprocess
import sys
import unicodedata
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from redo_lib import cli, pipeline
from redo_lib.cli import cmd_decode
from redo_lib.errors import AssemblyError
from redo_lib.native import native
from redo_lib.synth import GenerationResult, generate, load_scenario
from redo_lib.synth.load import parse_scenario
from redo_lib.trail.schema import from_row, trail_schema

REPO = Path(__file__).resolve().parents[3]
SCENARIOS = ("basic_dml", "lobs", "rac_two_threads", "schema_changes")


@pytest.fixture(scope="module", params=SCENARIOS)
def generated(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> GenerationResult:
    name = request.param
    return generate(
        load_scenario(REPO / "include" / "scenarios" / f"{name}.yaml"), tmp_path_factory.mktemp(name)
    )


def _decode(*argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "redo_lib", "decode", *argv], capture_output=True, text=True, cwd=REPO
    )


def _expected(result: GenerationResult) -> list[dict[str, Any]]:
    # lines end at "\n" only (the generator writes U+0085 and U+2028 as they are: str.splitlines cuts at them)
    return [json.loads(line) for line in result.trail.read_text(encoding="utf-8").split("\n") if line]


def test_parquet_holds_the_scenarios_trail_in_the_trail_schema(
    generated: GenerationResult, tmp_path: Path
) -> None:
    out = tmp_path / "out"
    run = _decode(*map(str, generated.logs), "--dictionary", str(generated.dictionary), "--format", "parquet",
                  "--out", str(out))  # fmt: skip
    assert run.returncode == 0, run.stderr
    assert run.stdout == ""
    assert f"trail written to {out}: 1 Parquet file, trail-00000.parquet .. trail-00000.parquet" in run.stderr
    assert [p.name for p in out.iterdir()] == ["trail-00000.parquet"]
    table = pq.read_table(out)
    assert table.schema.remove_metadata() == trail_schema()
    assert [from_row(row).to_dict() for row in table.to_pylist()] == _expected(generated)
    assert table.column("trail_seq").to_pylist() == list(range(table.num_rows))  # commit order
    # the summary line counts what was written
    assert f"{table.num_rows} trail records" in run.stderr


def test_a_long_trail_is_written_in_parts_numbered_on(generated: GenerationResult, tmp_path: Path) -> None:
    """A part closes after its ``part_row_groups`` row groups (here none: after every batch), its rows
    numbered on from the part before; an earlier decode's parts are replaced, other files kept."""
    staged: list[Any] = []
    pipeline.decode_logs(generated.logs, generated.dictionary, sink=staged.append)
    whole = pa.Table.from_batches([pa.record_batch(b) for b in staged])
    if whole.num_rows < 3:
        pytest.skip("a trail of fewer than 3 rows")
    out = tmp_path / "out"
    out.mkdir()
    (out / "trail-00099.parquet").write_bytes(b"an earlier decode's")
    (out / "notes.txt").write_text("the user's")
    sink = cli._ParquetSink(str(out), part_row_groups=0)
    with sink:
        for start in range(0, whole.num_rows, 2):  # batches of 2 rows
            sink(whole.slice(start, 2).combine_chunks().to_batches()[0])
    parts = [Path(p) for p in sink.parts]
    assert [p.name for p in parts] == [f"trail-{n:05d}.parquet" for n in range((whole.num_rows + 1) // 2)]
    assert sorted(p.name for p in out.iterdir()) == sorted([*(p.name for p in parts), "notes.txt"])
    tables = [pq.read_table(p) for p in parts]
    assert [t.num_rows for t in tables] == [min(2, whole.num_rows - 2 * n) for n in range(len(parts))]
    table = pa.concat_tables(tables)
    assert table.column("trail_seq").to_pylist() == list(range(whole.num_rows))
    assert [from_row(row).to_dict() for row in table.to_pylist()] == _expected(generated)


def test_an_empty_trail_is_one_part_of_no_rows(tmp_path: Path) -> None:
    with cli._ParquetSink(str(tmp_path), part_row_groups=16) as sink:
        pass
    assert sink.parts == [str(tmp_path / "trail-00000.parquet")]
    table = pq.read_table(sink.parts[0])
    assert table.num_rows == 0 and table.schema.remove_metadata() == trail_schema()


def test_json_lines_hold_the_scenarios_trail(generated: GenerationResult) -> None:
    run = _decode(*map(str, generated.logs), "--dictionary", str(generated.dictionary))
    assert run.returncode == 0, run.stderr
    assert [json.loads(line) for line in run.stdout.splitlines()] == _expected(generated)
    assert run.stdout.isascii()  # json.dumps' default: non-ASCII as \\u escapes, as the command always wrote


def test_parquet_and_out_go_together(generated: GenerationResult, tmp_path: Path) -> None:
    logs = [str(generated.logs[0]), "--dictionary", str(generated.dictionary)]
    for argv in (["--format", "parquet"], ["--out", str(tmp_path)]):
        run = _decode(*logs, *argv)
        assert run.returncode == 2 and "--format parquet writes into --out DIR" in run.stderr


def test_a_decode_that_fails_leaves_no_parquet_behind(tmp_path: Path) -> None:
    """The rows go to the file as transactions commit; a log that turns out truncated partway is a
    named error, and neither a part nor its partial file is left for a reader to take; an earlier
    decode's part stays as it was."""
    generated = generate(load_scenario(REPO / "include" / "scenarios" / "basic_dml.yaml"), tmp_path / "g")
    logs = [tmp_path / p.name for p in generated.logs]
    for src, dst in zip(generated.logs, logs, strict=True):
        dst.write_bytes(src.read_bytes())
    last = logs[-1].read_bytes()
    logs[-1].write_bytes(last[: len(last) // 2])
    out = tmp_path / "out"
    out.mkdir()
    (out / "trail-00000.parquet").write_bytes(b"an earlier decode's")
    run = _decode(*map(str, logs), "--dictionary", str(generated.dictionary), "--format", "parquet",
                  "--out", str(out))  # fmt: skip
    assert run.returncode == 1 and "error:" in run.stderr and logs[-1].name in run.stderr
    assert [p.name for p in out.iterdir()] == ["trail-00000.parquet"]
    assert (out / "trail-00000.parquet").read_bytes() == b"an earlier decode's"


def test_the_dictionary_file_is_parsed_by_the_core_alone(
    generated: GenerationResult, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A Redotrail dictionary file goes to the core as its text: the Python model is not built
    (it took 3.1 CPU-s and 650 MB more on a 20,000-table export), and the trail is the scenario's.
    With DDL too (schema_changes): the document's SYS rows follow the tables, so the core applies
    no DDL text and never calls Python's DDL parser (docs/dictionary.md, "The SYS rows win")."""
    from redo_lib.dictionary import DictionaryHistory
    from redo_lib.pipeline import decode_logs

    def refused(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("the dictionary was parsed in Python")

    monkeypatch.setattr(DictionaryHistory, "from_document", refused)
    result = decode_logs(generated.logs, generated.dictionary)
    assert [r.to_dict() for r in result.trail] == _expected(generated)


def test_a_damaged_dictionary_file_is_named_by_the_cores_error(tmp_path: Path) -> None:
    """The core's error about the document names the file and the member, as the Python loader's did."""
    from redo_lib.errors import DictionaryError
    from redo_lib.pipeline import decode_logs

    bad = tmp_path / "dictionary.json"
    bad.write_text('{"format": "redotrail-dictionary", "format_version": 1, "national_charset": "AL16UTF16"}')
    log = (
        REPO.parent / "shared" / "realdata" / "rophy-olr-example-free-23" / "redo" / "arch1_15_1224959854.dbf"
    )
    with pytest.raises(DictionaryError) as caught:
        decode_logs([log], bad)
    assert caught.value.position.file == str(bad)
    assert caught.value.details["json_path"] == "$.db_charset"


# -- the table ----------------------------------------------------------------------------------------

#: the escapes of a table value (the CLI help of ``--format``, ``crates/redo-core/src/trail/table.rs``)
ESCAPES = {'"': '\\"', "\\": "\\\\", "\n": "\\n", "\r": "\\r", "\t": "\\t", "\b": "\\b", "\f": "\\f"}


def _value(value: str | None) -> str:
    """A value as the table writes it: double-quoted, JSON-style escapes for ``"``, ``\\`` and the
    control characters (Unicode category Cc), every other character as it is; SQL NULL ``NULL``."""
    if value is None:
        return "NULL"
    text = "".join(
        ESCAPES.get(c) or (f"\\u{ord(c):04x}" if unicodedata.category(c) == "Cc" else c) for c in value
    )
    return f'"{text}"'


def _table(records: list[dict[str, Any]]) -> str:
    """The table of trail records (``to_dict`` form), from the documented layout."""
    lines = [f"{'XID':<12} {'COMMIT SCN':>12} {'IND':>3} {'OP':<9} {'TABLE':<30} {'ROWID':<18} COLUMNS"]
    for r in records:
        table = f"{r['owner']}.{r['table']}" if r["owner"] else r["table"]
        cols = ", ".join(f"{name}={_value(value)}" for name, value in r["columns"].items())
        lines.append(
            f"{r['xid']:<12} {r['commit_scn']:>12} {r['trans_ind']:>3} {r['op']:<9} {table:<30} {r['rowid']:<18} {cols}"
        )
    return "\n".join(lines) + "\n"


def _decode_table(result: GenerationResult, monkeypatch: pytest.MonkeyPatch) -> str:
    """``decode --format table`` in this process (``out`` a StringIO); the decode is checked to write
    through a sink (no ``TrailRecord`` per row)."""
    sinks = []

    def decode_logs(*args: Any, **kwargs: Any) -> Any:
        sinks.append(kwargs.get("sink"))
        return real(*args, **kwargs)

    real = pipeline.decode_logs
    monkeypatch.setattr(pipeline, "decode_logs", decode_logs)
    out, err = io.StringIO(), io.StringIO()
    argv = [*map(str, result.logs), "--dictionary", str(result.dictionary), "--format", "table"]
    assert cmd_decode(argv, out, err) == 0, err.getvalue()
    assert len(sinks) == 1 and callable(sinks[0])
    return out.getvalue()


def test_the_table_holds_the_scenarios_trail(
    generated: GenerationResult, monkeypatch: pytest.MonkeyPatch
) -> None:
    expected = _expected(generated)
    text = _decode_table(generated, monkeypatch)
    assert text == _table(expected)
    assert text.count("\n") == len(expected) + 1


#: text needing every escape, and characters kept as they are, in VARCHAR2, CHAR and CLOB columns
ODD = [
    """it's "quoted" \\ back\\slash""",
    "tab\there\nnew\rline\bback\fform",
    "\x01\x1f\x7f\x85 ctl",
    "é ñ ß € 日本語 😀 \u2028",
    "NULL",
]
ODD_SCENARIO: dict[str, Any] = {
    "name": "odd_text",
    "settings": {"compat": "19c"},
    "tables": [
        {
            "owner": "APP",
            "name": "TEXTS",
            "primary_key": ["ID"],
            "columns": [
                {"name": "ID", "type": "NUMBER", "nullable": False},
                {"name": "V", "type": "VARCHAR2(200)"},
                {"name": "C", "type": "CHAR(60)"},
                {"name": "B", "type": "CLOB"},
            ],
        },
    ],
    "steps": [
        *(
            {"insert": {"table": "TEXTS", "values": {"ID": i, "V": s, "C": s, "B": s}}}
            for i, s in enumerate(ODD)
        ),
        {"insert": {"table": "TEXTS", "values": {"ID": 9}}},
        "commit",
    ],
}


def test_the_table_writes_odd_text_and_nulls_as_documented(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    result = generate(parse_scenario(yaml.safe_dump(ODD_SCENARIO)), tmp_path / "g")
    expected = _expected(result)
    text = _decode_table(result, monkeypatch)
    assert text == _table(expected)
    for shown in (
        'V="it\'s \\"quoted\\" \\\\ back\\\\slash"',
        r'V="tab\there\nnew\rline\bback\fform"',
        r'V="\u0001\u001f\u007f\u0085 ctl"',
        'V="é ñ ß € 日本語 😀 \u2028"',
        'V="NULL"',
        "V=NULL, C=NULL, B=NULL",
    ):
        assert shown in text, shown
    assert text.count("\n") == len(ODD) + 2  # the header, a line per row: newlines escaped


_ROW: dict[str, Any] = {
    "xid": "1.2.3",
    "commit_scn": 10,
    "commit_time": dt.datetime(2024, 5, 1, 12, 0, 0, tzinfo=dt.UTC),
    "trans_ind": 3,
    "io_type": 5,
    "op": "INSERT",
    "before_after": "A",
    "owner": "APP",
    "table": "T",
    "obj": 7,
    "columns": [{"name": "ID", "value": "1"}],
    "before": [],
    "key_columns": ["ID"],
    "changed_columns": [],
    "rowid": "AAAA",
    "scn": 9,
    "subscn": 0,
    "op_time": dt.datetime(2024, 5, 1, 12, 0, 0, tzinfo=dt.UTC),
    "thread": 1,
    "sequence": 15,
    "rba": "0x0f.2.10",
    "tokens": [],
    "lob_columns": [],
    "batch_id": None,
    "trail_seq": 0,
    "commit_log": None,
}


def _batch(*rows: dict[str, Any], schema: Any = None) -> pa.RecordBatch:
    return pa.RecordBatch.from_pylist([{**_ROW, **r} for r in rows], schema=schema or trail_schema())


def test_edge_values_of_a_batch() -> None:
    pairs = [
        ("Q", 'a"b'),
        ("BS", "a\\b"),
        ("NL", "a\nb"),
        ("U", "é漢😀"),
        ("N", None),
        ("E", ""),
        ("T", "NULL"),
    ]
    batch = _batch({"columns": [{"name": n, "value": v} for n, v in pairs]}, {"owner": None, "columns": []})
    text = native.render_table(batch).decode()
    assert text.endswith(
        ' AAAA               Q="a\\"b", BS="a\\\\b", NL="a\\nb", U="é漢😀", N=NULL, E="", T="NULL"\n'
        f"{'1.2.3':<12} {10:>12} {3:>3} {'INSERT':<9} {'T':<30} {'AAAA':<18} \n"
    )
    assert native.table_header() == _table([])


@settings(max_examples=300, deadline=None)
@given(s=st.text(), name=st.text(min_size=1), owner=st.sampled_from(["", "APP", None]))
def test_any_string_is_written_as_documented(s: str, name: str, owner: str | None) -> None:
    """One string as a value, a column name and the table and owner names, against ``_table``."""
    row = {
        "xid": s,
        "owner": owner,
        "table": s,
        "columns": [{"name": name, "value": s}, {"name": "B", "value": None}],
    }
    record = {**_ROW, **row, "columns": {name: s, "B": None}}
    if name == "B":
        record["columns"] = {"B": None}  # a repeated name: its first place, its last value
    assert native.render_table(_batch(row)).decode() == _table([record]).split("\n", 1)[1]


@pytest.mark.parametrize(
    "change",
    [{"xid": None}, {"op": None}, {"table": None}, {"rowid": None}, {"commit_scn": None}, {"trans_ind": 9}],
)
def test_a_bad_batch_is_an_assembly_error(change: dict[str, Any]) -> None:
    nullable = pa.schema([f.with_nullable(True) for f in trail_schema()])
    batch = _batch(_ROW, change, schema=nullable)
    with pytest.raises(AssemblyError, match="row 1: "):
        native.render_table(batch)
    with pytest.raises(AssemblyError, match="has no column"):
        native.render_table(batch.select(["xid", "op"]))
