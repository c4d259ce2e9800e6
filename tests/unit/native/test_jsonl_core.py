"""The trail's JSON lines rendered by the core (``native.render_jsonl``, ``crates/redo-core/src/trail/
jsonl.rs``) against the Python path the decode command takes today: each staged trail row read back
by ``trail.schema.from_row`` and written as ``json.dumps(record.to_dict()) + "\\n"``
(``cli.cmd_decode``). Byte for byte, line for line:

* every named scenario of include/scenarios, with the default images, with ``update-befores`` and
  ``full-deletes`` (before images) and schemaless (``COL_<n>`` names, hex values); random seeds, with
  and without DDL; random LOB-heavy scenarios (CLOB / NCLOB text, ``lob_columns``); a scenario of
  text that needs every escape (quotes, backslashes, control characters, DEL, non-ASCII, characters
  above U+FFFF) in VARCHAR2, CHAR, CLOB and NCLOB columns (the generator has no NVARCHAR2); the real 23.6 logs. The staged
  batches are made with ``pipeline.assemble_batches``' own calls (``native.TransactionTable`` /
  ``Emitter`` / ``Assembler``, sorted by ``pipeline.ORDER_FIELDS``), and the Python lines are checked
  to be ``decode_logs``' trail, so the lines compared are those the decode command writes;
* hypothesis: small record batches of the staged schema built with pyarrow from arbitrary strings
  (names repeated on purpose), integers and times, in slices; and, with a schema that allows nulls
  everywhere, the nulls Python renders (``null``, ``"None"`` times, a ``None`` key) or refuses
  (an ``AssemblyError`` from the core where Python raises).
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import json
from functools import cache
from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from redo_lib.dictionary import DictionaryHistory, load_dictionary
from redo_lib.errors import AssemblyError
from redo_lib.native import native
from redo_lib.pipeline import ORDER_FIELDS, decode_logs, describe_logs, iter_batch_arrow
from redo_lib.synth import generate
from redo_lib.synth.load import parse_scenario
from redo_lib.trail.emit import EmitOptions, image_options
from redo_lib.trail.model import IoType
from redo_lib.trail.schema import from_row

from .core_assembly import ROPHY, ROPHY_LOGS, SCENARIOS, scenario_for

STAGED = pa.schema(native.staged_trail_schema())
OPTIONS = {
    "default": EmitOptions(),
    "images": EmitOptions(**image_options(["update-befores", "full-deletes"])),
}


@pytest.fixture(scope="module")
def gen_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("native-jsonl")


# -- the two paths ------------------------------------------------------------------------------------


def staged(logs: list[Path], dictionary: DictionaryHistory | None, options: EmitOptions) -> pa.Table:
    """The logs' staged trail rows in commit order, as ``pipeline.assemble_batches`` makes them."""
    table = native.TransactionTable()
    emitter = native.Emitter(
        None if dictionary is None else dictionary.to_json(), **dataclasses.asdict(options)
    )
    stage = native.Assembler(table, emitter)
    out: list[pa.RecordBatch] = []
    for batch in iter_batch_arrow(describe_logs(logs)):
        stage.feed(batch.append_column("carried", pa.array([False] * batch.num_rows, pa.bool_())))
        out.extend(pa.record_batch(b) for b in stage)
    rows = pa.Table.from_batches(out, schema=STAGED)
    return rows.sort_by([(name, "ascending") for name in ORDER_FIELDS])


def python_lines(rows: pa.Table | pa.RecordBatch) -> list[bytes]:
    """The decode command's lines today: ``from_row``, ``to_dict``, ``json.dumps``."""
    return [(json.dumps(from_row(row).to_dict()) + "\n").encode("ascii") for row in rows.to_pylist()]


def native_lines(batches: list[pa.RecordBatch]) -> list[bytes]:
    out = b"".join(native.render_jsonl(b) for b in batches)
    assert out.endswith(b"\n") or not out
    return out.splitlines(keepends=True)


def assert_same_lines(got: list[bytes], expected: list[bytes]) -> None:
    for i, (g, e) in enumerate(zip(got, expected, strict=False)):
        assert g == e, f"line {i}"
    assert len(got) == len(expected)


def check(logs: list[Path], dictionary: DictionaryHistory | None, options: EmitOptions) -> list[bytes]:
    """The core's lines == the Python path's, for the sorted table's batches and for the same rows cut
    into batches of 97; the Python lines are those of ``decode_logs``."""
    rows = staged(logs, dictionary, options)
    expected = python_lines(rows)
    decoded = decode_logs(logs, dictionary, options=options)
    assert [(json.dumps(r.to_dict()) + "\n").encode("ascii") for r in decoded.trail] == expected
    assert_same_lines(native_lines(rows.to_batches()), expected)
    assert_same_lines(native_lines(rows.combine_chunks().to_batches(max_chunksize=97)), expected)
    return expected


@dataclasses.dataclass(frozen=True)
class Generated:
    logs: list[Path]
    dictionary: DictionaryHistory


@cache
def generated(key: str, tmp: Path) -> Generated:
    """The scenario of ``key`` (``core_assembly.scenario_for``), or ``text`` (``TEXT_SCENARIO``),
    generated."""
    if key == "text":
        scenario = parse_scenario(yaml.safe_dump(TEXT_SCENARIO))  # escapes every odd character
    else:
        scenario = scenario_for(key)
    result = generate(scenario, tmp / key, record_steps=False)
    return Generated(list(result.logs), load_dictionary(result.dictionary))


# every escape json.dumps makes, in every character column type; values kept under the columns' sizes
ODD = [
    'q"uote\\back/slash',
    "tab\there\nnew\rline\bback\fform",
    "\x01\x02\x1f\x7f ctl",
    "é ñ ü ß € ☃",
    "日本語 中文 한국어",
    "😀 𝄞 \U0010fffd \U00010000",
    'mixed: ü\\"😀\n',
]


TEXT_SCENARIO: dict[str, Any] = {
    "name": "text",
    "settings": {"compat": "19c", "log_size": "8MB"},
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
                {"name": "NB", "type": "NCLOB"},
            ],
        },
    ],
    "steps": [
        *(
            {"insert": {"table": "TEXTS", "values": {"ID": i, "V": s, "C": s, "B": s, "NB": s}}}
            for i, s in enumerate(ODD)
        ),
        "commit",
        {
            "update": {
                "table": "TEXTS",
                "set": {"V": ODD[5], "B": {"repeat": ODD[6], "times": 3000}},
                "where": {"ID": 1},
                "lob_pieces": "before",
            }
        },
        {"delete": {"table": "TEXTS", "where": {"ID": 2}}},
        "commit",
    ],
}


# -- generated and real workloads ---------------------------------------------------------------------


@pytest.mark.parametrize("options", sorted(OPTIONS))
@pytest.mark.parametrize("name", SCENARIOS)
def test_named_scenario(name: str, options: str, gen_dir: Path) -> None:
    g = generated(name, gen_dir)
    assert check(g.logs, g.dictionary, OPTIONS[options])


@pytest.mark.parametrize("name", ["basic_dml", "lobs", "typed_columns", "schema_changes"])
def test_named_scenario_schemaless(name: str, gen_dir: Path) -> None:
    g = generated(name, gen_dir)
    assert check(g.logs, None, EmitOptions())


def test_non_ascii_text_in_the_scenarios(gen_dir: Path) -> None:
    """The named scenarios' multi-byte text (CLOB / NCLOB values) is in the lines compared, escaped."""
    lines = [line for name in ("lobs", "securefile_lobs") for line in check(*_of(name, gen_dir))]
    text = b"".join(lines)
    assert b"\\u00e9" in text and b"\\u65e5\\u672c" in text and b"\\u2603" in text
    assert any(b'"lob_columns": [{"column": ' in line for line in lines)
    assert any(b'"lob_columns"' not in line for line in lines)


def _of(name: str, gen_dir: Path) -> tuple[list[Path], DictionaryHistory, EmitOptions]:
    g = generated(name, gen_dir)
    return g.logs, g.dictionary, EmitOptions()


@pytest.mark.parametrize("options", sorted(OPTIONS))
def test_every_escape_in_every_character_type(options: str, gen_dir: Path) -> None:
    g = generated("text", gen_dir)
    lines = check(g.logs, g.dictionary, OPTIONS[options])
    text = b"".join(lines)
    for escaped in (
        rb"q\"uote\\back/slash",
        rb"tab\there\nnew\rline\bback\fform",
        rb"\u0001\u0002\u001f\u007f ctl",
        rb"\ud83d\ude00 \ud834\udd1e \udbff\udffd \ud800\udc00",
    ):
        assert escaped in text, escaped
    # the same value in VARCHAR2, CLOB (AL32UTF8) and NCLOB (AL16UTF16) columns (and CHAR, padded)
    assert sum(text.count(json.dumps(s).encode()) for s in ODD) >= 3 * len(ODD)


@pytest.mark.parametrize(
    "key", ["seed-1", "seed-2", "seed-3", "seed-4", "ddl-5", "ddl-6", "lobs-7", "lobs-8"]
)
def test_random_workload(key: str, gen_dir: Path) -> None:
    g = generated(key, gen_dir)
    assert check(g.logs, g.dictionary, OPTIONS["images" if key.endswith(("3", "6", "8")) else "default"])


def test_real_logs() -> None:
    if not all(p.exists() for p in ROPHY_LOGS):
        pytest.skip(f"real data not available: {ROPHY}")
    dictionary = load_dictionary(ROPHY / "schema" / "TEST-chkpt-2266634.json")
    assert check(ROPHY_LOGS, dictionary, OPTIONS["images"])
    assert check(ROPHY_LOGS, None, EmitOptions())


# -- batches built with pyarrow -----------------------------------------------------------------------


def _nullable(t: pa.DataType) -> pa.DataType:
    if pa.types.is_struct(t):
        return pa.struct([pa.field(f.name, _nullable(f.type), nullable=True) for f in t])
    if pa.types.is_list(t):
        return pa.list_(pa.field("item", _nullable(t.value_type), nullable=True))
    return t


#: the staged schema with every field, nested ones too, nullable (the import refuses nulls that a
#: batch's own schema does not allow, before the renderer sees them)
NULLABLE = pa.schema([pa.field(f.name, _nullable(f.type), nullable=True) for f in STAGED])

UTC = dt.UTC
TEXT = st.text(max_size=12) | st.sampled_from(ODD)
NAMES = st.sampled_from(["A", "B", "null", "Ü", "😀"]) | TEXT  # repeats on purpose
PAIRS = st.lists(st.fixed_dictionaries({"name": NAMES, "value": st.none() | TEXT}), max_size=6)
TIMES = st.datetimes(
    min_value=dt.datetime(1, 1, 1),
    max_value=dt.datetime(9999, 12, 31, 23, 59, 59, 999999),
    timezones=st.just(UTC),
)


def _int(bits: int) -> st.SearchStrategy[int]:
    return st.integers(-(2 ** (bits - 1)), 2 ** (bits - 1) - 1)


ROWS = st.fixed_dictionaries(
    {
        "xid": TEXT,
        "commit_scn": _int(64),
        "commit_time": TIMES,
        "trans_ind": st.integers(0, 3),
        "io_type": st.sampled_from([int(t) for t in IoType]),
        "op": TEXT,
        "before_after": TEXT,
        "owner": st.none() | TEXT,
        "table": TEXT,
        "obj": _int(64),
        "columns": PAIRS,
        "before": PAIRS,
        "key_columns": st.lists(TEXT, max_size=3),
        "changed_columns": st.lists(NAMES, max_size=3),
        "rowid": TEXT,
        "scn": _int(64),
        "subscn": _int(32),
        "op_time": TIMES,
        "thread": _int(32),
        "sequence": _int(64),
        "rba": TEXT,
        "tokens": PAIRS,
        "lob_columns": st.lists(
            st.fixed_dictionaries({"column": TEXT, "bytes": _int(64), "pieces": _int(32)}), max_size=2
        ),
        "batch_id": st.none() | TEXT,
        "trail_seq": _int(64),
        "commit_log": st.none() | TEXT,
        **{name: _int(64) for name in ORDER_FIELDS},
    }
)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rows=st.lists(ROWS, max_size=6), start=st.integers(0, 6))
def test_arbitrary_rows(rows: list[dict[str, Any]], start: int) -> None:
    batch = pa.RecordBatch.from_pylist(rows, schema=STAGED)
    expected = python_lines(batch)
    assert_same_lines(native_lines([batch]), expected)
    assert_same_lines(native_lines([batch.slice(start)]), expected[start:])


@settings(max_examples=500, deadline=None)
@given(s=st.text())
def test_any_string_is_escaped_as_json_dumps_does(s: str) -> None:
    """One string in every place a string goes: values, names, lists, LOB descriptors."""
    row = {
        **_ROW,
        "xid": s,
        "columns": [{"name": s, "value": s}, {"name": "A", "value": s}],
        "key_columns": [s],
        "lob_columns": [{"column": s, "bytes": 1, "pieces": 1}],
    }
    batch = pa.RecordBatch.from_pylist([row], schema=STAGED)
    assert native_lines([batch]) == python_lines(batch)
    assert json.dumps(s).encode("ascii") in native.render_jsonl(batch)


_ROW: dict[str, Any] = {
    "xid": "1.2.3",
    "commit_scn": 10,
    "commit_time": dt.datetime(2024, 5, 1, 12, 0, 0, 999999, tzinfo=UTC),
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
    "op_time": dt.datetime(999, 1, 2, 3, 4, 5, tzinfo=UTC),
    "thread": 1,
    "sequence": 15,
    "rba": "0x0f.2.10",
    "tokens": [{"name": "R", "value": "AAAA"}],
    "lob_columns": [],
    "batch_id": None,
    "trail_seq": 0,
    "commit_log": None,
    **dict.fromkeys(ORDER_FIELDS, 0),
}


def test_nulls_python_renders() -> None:
    rows = [
        {**_ROW, "xid": None, "op": None, "owner": None, "table": None, "rowid": None, "rba": None},
        {**_ROW, "commit_time": None, "op_time": None},
        {**_ROW, "columns": None, "before": None, "tokens": None, "lob_columns": None},
        {
            **_ROW,
            "columns": [
                {"name": None, "value": "1"},
                {"name": "null", "value": None},
                {"name": None, "value": "2"},
            ],
        },
        {
            **_ROW,
            "key_columns": ["ID", None],
            "changed_columns": [None],
            "lob_columns": [{"column": None, "bytes": 0, "pieces": 0}],
        },
        {**_ROW, "tokens": [{"name": "R", "value": None}]},
    ]
    batch = pa.RecordBatch.from_pylist(rows, schema=NULLABLE)
    lines = native_lines([batch])
    assert lines == python_lines(batch)
    assert b'"commit_time": "None"' in lines[1]
    assert b'"columns": {"null": "2", "null": null}' in lines[3]
    # the renderer's column lookup by name: without the staging columns, and a table with nulls
    assert native_lines([batch.select(list(NULLABLE.names)[:23])]) == lines


@pytest.mark.parametrize(
    "change",
    [
        {"commit_scn": None},
        {"obj": None},
        {"subscn": None},
        {"trans_ind": 4},
        {"io_type": 6},
        {"key_columns": None},
        {"changed_columns": None},
        {"columns": [None]},
        {"tokens": [None]},
        {"lob_columns": [None]},
        {"lob_columns": [{"column": "B", "bytes": None, "pieces": 1}]},
    ],
)
def test_rows_python_refuses_are_assembly_errors(change: dict[str, Any]) -> None:
    batch = pa.RecordBatch.from_pylist([_ROW, {**_ROW, **change}], schema=NULLABLE)
    with pytest.raises((TypeError, ValueError)):
        python_lines(batch)
    with pytest.raises(AssemblyError, match="row 1"):
        native.render_jsonl(batch)
    assert native.render_jsonl(batch.slice(0, 1)) == python_lines(batch.slice(0, 1))[0]


def test_times_outside_python_datetimes_are_assembly_errors() -> None:
    first = int(dt.datetime(1, 1, 1, tzinfo=UTC).timestamp()) * 1_000_000
    for micros in (first - 1, first + 10_000 * 366 * 86_400 * 1_000_000):
        batch = pa.RecordBatch.from_pylist([_ROW], schema=STAGED)
        times = pa.array([micros], pa.int64()).cast(pa.timestamp("us", tz="UTC"))
        batch = batch.set_column(STAGED.get_field_index("op_time"), STAGED.field("op_time"), times)
        with pytest.raises(OverflowError):
            python_lines(batch)
        with pytest.raises(AssemblyError, match="op_time is outside"):
            native.render_jsonl(batch)


def test_a_batch_of_another_shape_is_an_assembly_error() -> None:
    batch = pa.RecordBatch.from_pylist([_ROW], schema=STAGED)
    with pytest.raises(AssemblyError, match="no column rba"):
        native.render_jsonl(batch.drop_columns(["rba"]))
    k = STAGED.get_field_index("commit_time")
    naive = batch.set_column(k, "commit_time", batch.column(k).cast(pa.timestamp("us")))
    with pytest.raises(AssemblyError, match="not in UTC"):
        native.render_jsonl(naive)
    with pytest.raises(AssemblyError, match="not a string"):
        native.render_jsonl(batch.set_column(0, "xid", pa.array([1])))
    # other string, list and integer widths read as the schema's
    wide = pa.schema(
        [
            pa.field(
                f.name,
                pa.large_string()
                if f.type == pa.string()
                else pa.large_list(f.type.value_type)
                if pa.types.is_list(f.type)
                else pa.int64()
                if pa.types.is_integer(f.type)
                else f.type,
            )
            for f in NULLABLE
        ]
    )
    assert native.render_jsonl(batch.cast(wide)) == native.render_jsonl(batch)
