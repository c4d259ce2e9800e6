"""All four Spark stages on generated archived logs, batch by batch, in Iceberg and in Delta.

The generator writes a scenario's logs and, from its SQL-level model, the final state of every
table; decode -> assemble -> validate -> publish over two batches (the long transaction carried
open from the first into the second) must leave every mirror table equal to that state, and the
changelog must hold exactly the expected trail.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest
import yaml

from redo_lib.batches import LogEntry, Manifest, write_manifest
from redo_lib.pipeline import describe_logs
from redo_lib.trail.types import comparable, typed_row
from spark_jobs import assemble, decode, publish, validate
from tests.spark.test_publish import SMALL_DATA, Tables

pytest_plugins = ["tests.fixtures.spark"]
pytestmark = pytest.mark.spark
REPO = Path(__file__).resolve().parents[2]


def _generate(tmp_path_factory: pytest.TempPathFactory, name: str) -> Path:
    out = tmp_path_factory.mktemp(name)
    subprocess.run([sys.executable, "-m", "redo_lib.synth", str(REPO / f"include/scenarios/{name}.yaml"),
                    "--out", str(out)], check=True, capture_output=True)  # fmt: skip
    return out


@pytest.fixture(scope="module")
def scenario(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _generate(tmp_path_factory, "long_transaction")


@pytest.fixture(scope="module")
def lobs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _generate(tmp_path_factory, "lobs")


def _publish_batches(
    spark: Any, scenario: Path, tmp_path: Path, fmt: str, cuts: list[int], assemble_args: list[str],
    images: tuple[str, ...] | None = None, capture: tuple[str, ...] | None = None,
) -> Tables:  # fmt: skip
    """decode -> assemble -> validate -> publish, one batch per slice of the logs (``cuts``: the
    index where each batch after the first starts), carrying open transactions. RAC logs are taken
    by sequence, then thread (the generator switches both threads together: log k of each thread
    covers about the same SCNs). Each batch but the last has the planner's watermark (the lowest
    coverage of the threads: the next SCN of each one's last log so far, or the first SCN of a thread
    not in a batch yet; commits at or above it are held for the next batch); the last has none, as
    when every thread's redo has ended."""
    for key, value in SMALL_DATA.items():
        spark.conf.set(key, value)
    refs = describe_logs(sorted((scenario / "logs").glob("*.arc")))
    entries = sorted(
        (LogEntry(thread=r.thread, sequence=r.sequence, resetlogs_id=r.resetlogs_id, location=r.location,
                  first_scn=r.first_scn, next_scn=r.next_scn)
         for r in refs),
        key=lambda e: (e.sequence, e.thread),
    )  # fmt: skip
    warehouse = tmp_path / "warehouse"
    previous = None
    bounds = [0, *cuts, len(entries)]
    for n, (first, end) in enumerate(zip(bounds, bounds[1:], strict=False)):
        logs = entries[first:end]
        batch_id = f"b-{logs[0].sequence:06d}-{logs[-1].sequence:06d}"
        if previous is not None and previous.startswith(batch_id):  # RAC: a cut inside one sequence
            batch_id = f"{batch_id}-{n}"
        folder = tmp_path / batch_id
        carried = str(tmp_path / previous / "open") if previous else None
        # each thread's coverage so far: the next SCN of its last log up to here, or the first SCN
        # of its first log when none is in a batch yet (it holds nothing below that: plans.py)
        cover = {e.thread: e.first_scn for e in reversed(entries)}
        cover |= {e.thread: e.next_scn for e in entries[:end]}  # entries are in sequence order
        watermark = min(cover.values()) if end < len(entries) else None
        write_manifest(folder, Manifest(batch_id=batch_id, logs=tuple(logs), dictionary=str(scenario / "dictionary.json"),
                                        previous_batch=previous, carried_in=carried, watermark_scn=watermark,
                                        images=images, capture=capture))  # fmt: skip
        args = ["--batch-dir", str(folder)]
        assert decode.main(args, spark=spark) == 0
        assert assemble.main([*args, *assemble_args], spark=spark) == 0
        assert validate.main(args, spark=spark) == 0, (folder / "report" / "summary.json").read_text()
        assert publish.main([*args, "--warehouse", f"file://{warehouse}", "--format", fmt], spark=spark) == 0
        previous = batch_id
    return Tables(fmt, warehouse)


def _nan(value: Any) -> Any:
    """NaN as a marker: NaN equals nothing, so rows holding one would never compare equal."""
    return "NaN" if isinstance(value, float) and value != value else value


def _keyless(scenario: Path, source_table: str) -> bool:
    """Whether the table's final shape has no primary or unique key (keyed on all its columns)."""
    shape = json.loads((scenario / "expected" / "tables" / f"{source_table}.columns.json").read_text())
    return len(shape["key"]) == len(shape["columns"])


def _assert_final_state(
    scenario: Path, tables: Tables, *, keyless_distinct: bool = False
) -> list[dict[str, Any]]:
    """Every mirror equals the generator's final table (a dropped table's: its rows at the drop),
    its columns those of the table's final shape with their types; returns the changelog in trail
    order. ``keyless_distinct``: a table without a key may hold identical rows, which its mirror (keyed
    on all columns) holds once, and deleting one copy deletes it (docs/tables.md): its mirror must
    hold no row the table lacks."""
    for path in (scenario / "expected" / "tables").glob("*.jsonl"):
        arrow = tables._arrow(path.stem.lower().replace(".", "__"))
        if arrow is None:  # no mirror: only for a table no row change reached (dropped or not) that
            # no CREATE TABLE made either (docs/tables.md)
            owner, table = path.stem.split(".")
            changes = [r for r in _expected_trail(scenario) if (r["owner"], r["table"]) == (owner, table)]
            assert not path.read_text().strip(), path.stem
            assert all(r["op"] == "DDL" and r["columns"]["OPERATION"] != "CREATE" for r in changes), path.stem
            continue
        expected = {
            tuple(sorted((k, _nan(v)) for k, v in typed_row(json.loads(line), arrow.schema).items()))
            for line in path.read_text().splitlines()
            if line
        }
        got = {
            tuple(sorted((k, _nan(v)) for k, v in comparable(r).items() if not k.startswith("_")))
            for r in arrow.to_pylist()
        }
        if keyless_distinct and _keyless(scenario, path.stem):
            assert got <= expected, path.stem
        else:
            assert got == expected, path.stem
        _assert_types(scenario, path.stem, arrow.schema)
    return sorted(tables._arrow("changelog").to_pylist(), key=lambda r: (r["batch_id"], r["trail_seq"]))


def _arrow_type(declared: str, *, key: bool = False) -> pa.DataType:
    """Oracle's declared type -> the mirror's Arrow type, written by hand from docs/tables.md (a key
    column whose type cannot hold every value exactly is a string: NUMBER without precision, FLOAT,
    TIMESTAMP other than TIMESTAMP(0..6))."""
    number = re.fullmatch(r"NUMBER(?:\((\d+|\*)(?:,(\d+))?\))?", declared)
    unbounded = number and (not number[1] or number[1] == "*")
    timestamp = re.fullmatch(r"TIMESTAMP(?:\((\d)\))?", declared)
    exact_timestamp = timestamp and timestamp[1] is not None and int(timestamp[1]) <= 6
    if key and (unbounded or declared.startswith("FLOAT") or (timestamp and not exact_timestamp)):
        return pa.string()
    if number:
        if unbounded:
            return pa.decimal128(38, 10 if number[2] is None else int(number[2]))
        precision, scale = int(number[1]), int(number[2] or 0)
        return pa.int64() if scale == 0 and precision <= 18 else pa.decimal128(precision, scale)
    if declared == "DATE" or timestamp:
        return pa.timestamp("us")
    if declared == "BINARY_DOUBLE" or declared.startswith("FLOAT"):
        return pa.float64()
    if declared == "BINARY_FLOAT":
        return pa.float32()
    if declared == "BOOLEAN":
        return pa.bool_()
    if declared in ("BLOB", "LONGRAW") or declared.startswith("RAW"):
        return pa.binary()
    return pa.string()


def _small(kind: pa.DataType) -> pa.DataType:
    """pyiceberg reads some scans as large_string / large_binary: the same Iceberg type."""
    return (
        pa.string()
        if pa.types.is_large_string(kind)
        else pa.binary()
        if pa.types.is_large_binary(kind)
        else kind
    )


def _assert_types(scenario: Path, source_table: str, schema: Any) -> None:
    """Each mirror column has the type the mapping gives its declared Oracle type: the final shape
    the generator wrote (``columns.json``, after DDL), else the scenario's declaration."""
    final = scenario / "expected" / "tables" / f"{source_table}.columns.json"
    if final.exists():
        shape = json.loads(final.read_text())
        declared, key = shape["columns"], set(shape["key"])
        assert [n for n in schema.names if not n.startswith("_")] == [c["name"] for c in declared]
        for column in declared:
            want = _arrow_type(column["type"].upper().replace(" ", ""), key=column["name"] in key)
            assert _small(schema.field(column["name"]).type) == want, (source_table, column)
        return
    doc = yaml.safe_load((scenario / "scenario.yaml").read_text())
    for table in doc["tables"]:
        if f"{table.get('owner', '')}.{table['name']}".lstrip(".") == source_table:
            for column in table["columns"]:
                want = _arrow_type(column["type"].upper().replace(" ", ""))
                assert schema.field(column["name"]).type == want, (source_table, column)


def _expected_trail(scenario: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (scenario / "expected" / "trail.jsonl").read_text().splitlines()]


@pytest.mark.parametrize("fmt", ["iceberg", "delta"])
def test_generated_scenario_publishes_its_final_state(
    spark: Any, scenario: Path, tmp_path: Path, fmt: str
) -> None:
    changelog = _assert_final_state(scenario, _publish_batches(spark, scenario, tmp_path, fmt, [2], []))
    assert [(r["xid"], r["op"], r["rowid"]) for r in changelog] == [
        (r["xid"], r["op"], r["rowid"]) for r in _expected_trail(scenario)
    ]


def test_lob_scenario_publishes_byte_exact_values(spark: Any, lobs: Path, tmp_path: Path) -> None:
    """The lobs scenario over 5 assembly partitions (the appending and the writing transactions hash
    apart): LOB values (in row, in pages written before
    or after the row change, appended to by a later transaction) arrive whole in the changelog and
    the mirror, with their sizes and pieces."""
    _assert_lob_values(spark, lobs, tmp_path)


@pytest.mark.parametrize("name", ["securefile_lobs", "lob_index"])
def test_securefile_and_lob_index_scenarios_publish_byte_exact_values(
    spark: Any, tmp_path_factory: pytest.TempPathFactory, tmp_path: Path, name: str
) -> None:
    """SecureFile locators (pages as 26.2 pieces and as 26.6 page images) and BasicFile pages named
    by LOB index entries, over 5 assembly partitions: validated (rule 17) and published whole."""
    _assert_lob_values(spark, _generate(tmp_path_factory, name), tmp_path)


def _assert_lob_values(spark: Any, lobs: Path, tmp_path: Path) -> None:
    changelog = _assert_final_state(
        lobs, _publish_batches(spark, lobs, tmp_path, "iceberg", [], ["--partitions", "5"])
    )
    expected = _expected_trail(lobs)
    assert [(r["xid"], r["op"], r["rowid"]) for r in changelog] == [
        (r["xid"], r["op"], r["rowid"]) for r in expected
    ]
    for got, want in zip(changelog, expected, strict=True):
        assert {c["name"]: c["value"] for c in got["columns"]} == want["columns"]
        assert [(c["column"], c["bytes"], c["pieces"]) for c in got["lob_columns"] or ()] == [
            (c["column"], c["bytes"], c["pieces"]) for c in want.get("lob_columns", ())
        ]


@pytest.fixture(scope="module")
def lob_appends(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _generate(tmp_path_factory, "lob_appends")


def test_lob_appends_across_three_batches_publish_whole_values(
    spark: Any, lob_appends: Path, tmp_path: Path
) -> None:
    """The lob_appends scenario, one batch per log, over 5 assembly partitions: the appends of
    batches 2 and 3 keep pages of batches 1 and 2, read in from the previous batch's ``lobs/`` by the
    LOB task (docs/lobs.md, "Across batches"). Every batch passes rule 17 (no value left as locator
    hex), the changelog holds the generator's trail and the mirror its final values; what each batch
    carries is the live pages (the scenario's sizes), once the LOB ids another task saw go are left
    out on the way in. A rerun of the middle batch writes the same files."""
    from tests.unit.redo_lib.test_lob_carry import LIVE, pages

    changelog = _assert_final_state(
        lob_appends, _publish_batches(spark, lob_appends, tmp_path, "iceberg", [1, 2], ["--partitions", "5"])
    )
    expected = _expected_trail(lob_appends)
    assert [(r["xid"], r["op"], r["rowid"]) for r in changelog] == [
        (r["xid"], r["op"], r["rowid"]) for r in expected
    ]
    for got, want in zip(changelog, expected, strict=True):
        assert {c["name"]: c["value"] for c in got["columns"]} == want["columns"]
        assert [(c["column"], c["bytes"], c["pieces"]) for c in got["lob_columns"] or ()] == [
            (c["column"], c["bytes"], c["pieces"]) for c in want.get("lob_columns", ())
        ]
    folders = [tmp_path / f"b-{n:06d}-{n:06d}" for n in (1, 2, 3)]
    for folder in folders:
        summary = json.loads((folder / "report" / "summary.json").read_text())
        (rule,) = [r for r in summary["rules"] if r["name"] == "lobs_complete"]
        assert rule["success"], folder.name
    lobs = [json.loads((f / "counts.json").read_text())["lobs"] for f in folders]
    assert [c.get("lob_values_unresolved", 0) for c in lobs] == [0, 0, 0]
    for n in (1, 2):  # read in: what the batch before carried out, less the LOBs that went
        assert lobs[n]["lob_pages_carried_in"] == pages(*LIVE[n - 1])
        assert (
            lobs[n]["lob_pages_carried_in"] + lobs[n]["lob_pages_pruned_in"]
            == lobs[n - 1]["lob_pages_carried_out"]
        )

    middle = folders[1]
    before = {
        p.relative_to(middle): p.read_bytes() for p in middle.rglob("*.parquet") if "staging" not in p.parts
    }
    assert any(p.parts[0] == "lobs" for p in before)
    args = ["--batch-dir", str(middle)]
    assert decode.main(args, spark=spark) == 0
    assert assemble.main([*args, "--partitions", "5"], spark=spark) == 0
    after = {
        p.relative_to(middle): p.read_bytes() for p in middle.rglob("*.parquet") if "staging" not in p.parts
    }
    assert after == before


def test_image_options_flow_to_the_changelog_and_are_validated(spark: Any, tmp_path: Path) -> None:
    """The lobs scenario with the image options in the manifest (update-befores, full-deletes): the
    changelog holds the generator's image trail (each update's before row just
    ahead of its after row, full deletes), the mirrors the final tables (before rows are not
    applied; a delete's out-of-row LOB, whose old value the redo lacks, is left out and counted).
    Validated again with a manifest that asks for no before images, the batch fails rule
    10 naming the before records."""
    from redo_lib.synth import generate, load_scenario

    keys = tmp_path / "lobs"
    result = generate(load_scenario(REPO / "include" / "scenarios" / "lobs.yaml"), keys, images=True)
    assert result.trail_images is not None
    images = ("update-befores", "full-deletes")
    cuts = [1] if len(result.logs) > 1 else []
    tables = _publish_batches(spark, keys, tmp_path / "run", "iceberg", cuts, [], images=images)
    changelog = _assert_final_state(keys, tables)
    want = [json.loads(line) for line in result.trail_images.read_text().splitlines()]
    assert any(r["before_after"] == "B" and r["op"] != "DELETE" for r in want)
    assert [(r["xid"], r["op"], r["before_after"], r["rowid"]) for r in changelog] == [
        (r["xid"], r["op"], r["before_after"], r["rowid"]) for r in want
    ]
    for got, expected in zip(changelog, want, strict=True):
        assert {c["name"]: c["value"] for c in got["columns"]} == expected["columns"]
    folder = next(p for p in sorted((tmp_path / "run").iterdir()) if (p / "manifest.json").exists())
    manifest = json.loads((folder / "manifest.json").read_text())
    (folder / "manifest.json").write_text(json.dumps(manifest | {"images": None}))
    assert validate.main(["--batch-dir", str(folder)], spark=spark) != 0
    summary = json.loads((folder / "report" / "summary.json").read_text())
    assert [f["name"] for f in summary["failed"]] == ["before_images"]
    (failed,) = [r for r in summary["rules"] if not r["success"]]
    assert {row["problem"] for row in failed["sample_rows"]} == {
        "before record of an update, though the batch asks for none"
    }
    deletes = [r for r in changelog if r["op"] == "DELETE"]
    assert deletes and all(len(r["columns"]) > len(r["key_columns"]) for r in deletes)
    counts = json.loads((next((tmp_path / "run").glob("b-*")) / "counts.json").read_text())
    assert counts["lobs"]["lob_before_values_not_in_redo"] >= 1


def test_long_transaction_over_three_batches_equals_the_single_process_decode(
    spark: Any, scenario: Path, tmp_path: Path
) -> None:
    """Batches 1-2, 3-4 and 5 one after another, carrying open transactions, with 1 MB block
    ranges: the trail is the one decoding all logs in one process gives."""
    from redo_lib.pipeline import decode_logs
    from tests.spark.test_decode_assemble import _trail

    dictionary = str(scenario / "dictionary.json")
    refs = describe_logs(sorted((scenario / "logs").glob("*.arc")))
    entries = [
        LogEntry(thread=r.thread, sequence=r.sequence, resetlogs_id=r.resetlogs_id, location=r.location)
        for r in refs
    ]
    trail = []
    previous = None
    carried_counts = []
    for batch_id, logs in (("b1", entries[:2]), ("b2", entries[2:4]), ("b3", entries[4:])):
        folder = tmp_path / batch_id
        carried = str(tmp_path / previous / "open") if previous else None
        write_manifest(folder, Manifest(batch_id=batch_id, logs=tuple(logs), dictionary=dictionary,
                                        previous_batch=previous, carried_in=carried))  # fmt: skip
        assert decode.main(["--batch-dir", str(folder), "--range-mb", "1"], spark=spark) == 0
        assert assemble.main(["--batch-dir", str(folder)], spark=spark) == 0
        trail += _trail(folder)
        carried_counts.append(
            json.loads((folder / "counts.json").read_text())["transactions"]["open_carried_out"]
        )
        previous = batch_id
    assert carried_counts == [1, 1, 0]  # the long transaction is carried twice, then committed
    reference = decode_logs([e.location for e in entries], dictionary)
    assert trail == reference.trail


@pytest.fixture(scope="module")
def supplemental(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _generate(tmp_path_factory, "supplemental_logging")


# Delta behind ``slow`` (the suite's time): the fold and by_rowid are the same code for both formats
@pytest.mark.parametrize("fmt", ["iceberg", pytest.param("delta", marks=pytest.mark.slow)])
def test_supplemental_logging_modes_publish_their_final_state(
    spark: Any, supplemental: Path, tmp_path: Path, fmt: str
) -> None:
    """Every supplemental logging mode, a batch per log: the second batch's updates keyed by ROWID (the
    redo holds not all of their key) find their row's key in the mirror the first batch wrote, in the
    insert of their own batch, or after a key update keyed by ROWID; every mirror ends as the SQL
    left its table, and PUBLISHED counts them per mirror."""
    logs = len(list((supplemental / "logs").glob("*.arc")))
    assert logs >= 2  # the scenario switches logs after its inserts
    tables = _publish_batches(spark, supplemental, tmp_path, fmt, list(range(1, logs)), [])
    changelog = _assert_final_state(supplemental, tables)
    assert [(r["xid"], r["op"], r["rowid"]) for r in changelog] == [
        (r["xid"], r["op"], r["rowid"]) for r in _expected_trail(supplemental)
    ]
    published = json.loads(
        next(p for p in sorted(tmp_path.glob("b-*/PUBLISHED")) if "000002" in p.parent.name).read_text()
    )
    rowid_keyed = {name: counted["resolved"] for name, counted in published["rowid_keyed"].items()}
    # the SQL's updates that change no column of the key and log none of it (the scenario's comments)
    assert rowid_keyed == {"supp__unique_logged": 2, "supp__uk_only": 1, "supp__fk_logged": 2,
                           "supp__minimal": 2, "supp__minimal_pair": 2}  # fmt: skip
    assert not any("unresolved" in counted for counted in published["rowid_keyed"].values())


@pytest.mark.parametrize(
    ("name", "fmt", "capture"),
    [
        ("long_types", "iceberg", None),
        # lob_trim at a page boundary rewrites a locator without writing a LOB page: its transaction
        # goes to the LOB task by the decode's locator_slots (redo_lib.batches.lob_table_slots)
        ("lob_writes", "delta", None),
        ("unrenderable_columns", "iceberg", ("APP", "-APP.DOCS.XMLCOL")),
    ],
)
def test_column_type_families_publish_their_final_state(
    spark: Any, tmp_path_factory: pytest.TempPathFactory, tmp_path: Path, name: str, fmt: str,
    capture: tuple[str, ...] | None,
) -> None:  # fmt: skip
    """Issue 34's families, a batch per log: LONG / LONG RAW / UROWID, LOB writes through the locator
    (DBMS_LOB.WRITE / TRIM / ERASE, values whole in the changelog and the mirror), and an XMLTYPE
    column left out of the capture scope (the mirror has no such column, the batch passes). The
    changelog is the generator's trail value for value, every mirror the SQL's final table."""
    from redo_lib.synth import generate, load_scenario

    scenario = tmp_path_factory.mktemp(name)
    generate(load_scenario(REPO / "include" / "scenarios" / f"{name}.yaml"), scenario, capture=capture or ())
    logs = len(list((scenario / "logs").glob("*.arc")))
    tables = _publish_batches(spark, scenario, tmp_path, fmt, list(range(1, logs)), [], capture=capture)
    changelog = _assert_final_state(scenario, tables)
    expected = _expected_trail(scenario)
    assert [(r["xid"], r["op"], r["rowid"]) for r in changelog] == [
        (r["xid"], r["op"], r["rowid"]) for r in expected
    ]
    for got, want in zip(changelog, expected, strict=True):
        assert {c["name"]: c["value"] for c in got["columns"]} == want["columns"]


@pytest.fixture(scope="module")
def typed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _generate(tmp_path_factory, "typed_columns")


@pytest.mark.parametrize("fmt", ["iceberg", "delta"])
def test_typed_mirror_holds_the_scenario_typed_and_answers_sql(
    spark: Any, typed: Path, tmp_path: Path, fmt: str
) -> None:
    """The typed_columns scenario (its final state worked out by hand in the YAML): the mirror's
    columns have the documented types and the scenario's values; the values that do not fit are NULL
    and counted by rule in PUBLISHED; SQL sums a NUMBER column and filters a date range."""
    from decimal import Decimal

    _assert_final_state(typed, _publish_batches(spark, typed, tmp_path, fmt, [], []))
    batch = tmp_path / "b-000001-000001"
    published = json.loads((batch / "PUBLISHED").read_text())
    unfit = {(u["column"], u["rule"]): u["count"] for u in published["unfit_values"]["shop__orders"]}
    assert unfit == {("RATE", "number_out_of_range"): 2, ("SHIPPED", "fraction_below_microsecond"): 1}
    assert published["column_types"]["shop__orders"]["AMOUNT"] == "decimal(12,2)"
    table = (
        "redotrail.redotrail.shop__orders" if fmt == "iceberg"
        else f"delta.`{tmp_path / 'warehouse' / 'redotrail' / 'shop__orders'}`"
    )  # fmt: skip
    assert spark.sql(f"SELECT SUM(AMOUNT) FROM {table}").first()[0] == Decimal("1301.00")
    january_february = spark.sql(
        f"SELECT ORDER_ID FROM {table} WHERE ORDERED >= TIMESTAMP_NTZ'2024-01-01 00:00:00' "
        "AND ORDERED < TIMESTAMP_NTZ'2024-03-01 00:00:00' ORDER BY ORDER_ID"
    )
    assert [r[0] for r in january_february.collect()] == [1, 2]
    # the changelog keeps the exact text of what the mirror could not hold
    rows = spark.sql(f"SELECT columns FROM {table.replace('shop__orders', 'changelog')}").collect()
    texts = {p["value"] for r in rows for p in r["columns"] if p["name"] in ("RATE", "SHIPPED")}
    assert {"0.33333333333", "12345678901234567890123456789", "2024-02-16T09:30:00.123456789"} <= texts


@pytest.fixture(scope="module")
def schema_changes(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _generate(tmp_path_factory, "schema_changes")


# Delta behind ``slow``: test_schema_changes follows every DDL kind on Delta tables by default
@pytest.mark.parametrize("fmt", ["iceberg", pytest.param("delta", marks=pytest.mark.slow)])
def test_schema_changes_publish_the_final_shapes_and_every_ddl_record(
    spark: Any, schema_changes: Path, tmp_path: Path, fmt: str
) -> None:
    """The schema_changes scenario (final state by hand in its YAML) over two batches, both RAC
    threads, DDL on either side of the cut: every mirror equals its final table in its final shape
    and types (renamed, added, widened and dropped columns, the truncated table's later rows, the
    created table, the dropped table's rows at the drop); the changelog holds the expected trail,
    the eight DDL records included, as the generator wrote them."""
    tables = _publish_batches(spark, schema_changes, tmp_path, fmt, [4], [])
    changelog = _assert_final_state(schema_changes, tables)
    expected = _expected_trail(schema_changes)
    assert [(r["xid"], r["op"], r["rowid"]) for r in changelog] == [
        (r["xid"], r["op"], r["rowid"]) for r in expected
    ]
    ddl = [(r["commit_scn"], r["owner"], r["table"], r["obj"], {c["name"]: c["value"] for c in r["columns"]},
            r["scn"], r["thread"], r["sequence"], r["rba"]) for r in changelog if r["io_type"] == 160]  # fmt: skip
    assert ddl == [(r["commit_scn"], r["owner"], r["table"], r["obj"], r["columns"], r["scn"], r["thread"],
                    r["sequence"], r["rba"]) for r in expected if r["io_type"] == 160]  # fmt: skip
    assert len(ddl) == 8
    second = json.loads((tmp_path / "b-000003-000004" / "PUBLISHED").read_text())
    first = json.loads((tmp_path / "b-000001-000002" / "PUBLISHED").read_text())
    changes = {**first["schema_changes"], **second["schema_changes"]}
    assert "DROP TABLE" in " ".join(changes["shop__legacy"]["notes"])


def _random_ddl_seed(tmp_path: Path, seed: int, *, partitions: bool = True) -> Path:
    from redo_lib.synth import generate, random_scenario

    out = tmp_path / f"seed-{seed}"
    generate(random_scenario(seed, ddl=True, partitions=partitions), out, record_steps=False)
    return out


def _assert_random_seed_publishes(spark: Any, tmp_path: Path, seed: int, fmt: str) -> None:
    """A random scenario with DDL steps (``random_scenario(seed, ddl=True)``) through the four Spark
    stages in two batches (cut in the middle of its logs): the mirrors equal the generator's final
    tables in their final shapes and types, the changelog holds the expected trail."""
    scenario = _random_ddl_seed(tmp_path, seed)
    logs = len(list((scenario / "logs").glob("*.arc")))
    tables = _publish_batches(spark, scenario, tmp_path / "run", fmt, [logs // 2] if logs > 1 else [], [])
    changelog = _assert_final_state(scenario, tables, keyless_distinct=True)
    expected = _expected_trail(scenario)
    assert any(r["io_type"] == 160 for r in expected), f"seed {seed} has no DDL"
    assert [(r["xid"], r["op"], r["rowid"], r["commit_scn"]) for r in changelog] == [
        (r["xid"], r["op"], r["rowid"], r["commit_scn"]) for r in expected
    ]


def test_random_seed_with_ddl_publishes_its_final_tables(spark: Any, tmp_path: Path) -> None:
    _assert_random_seed_publishes(spark, tmp_path, 4, "iceberg")  # the named scenario runs in both formats


@pytest.mark.slow
@pytest.mark.parametrize("fmt", ["iceberg", "delta"])
@pytest.mark.parametrize("seed", range(8, 100, 4))
def test_random_seed_with_ddl_publishes_its_final_tables_slow(
    spark: Any, tmp_path: Path, seed: int, fmt: str
) -> None:
    _assert_random_seed_publishes(spark, tmp_path, seed, fmt)


@pytest.mark.parametrize("fmt", ["iceberg", pytest.param("delta", marks=pytest.mark.slow)])
def test_ddl_texts_the_parser_cannot_read_publish_through_their_sys_rows(
    spark: Any, tmp_path_factory: pytest.TempPathFactory, tmp_path: Path, fmt: str
) -> None:
    """Issue 33: an ADD COLUMN, a RENAME COLUMN and a CREATE TABLE whose texts the DDL parser
    refuses, a batch per log. The export's SYS rows follow its tables (COL$ and CDEF$ rows), so no
    DDL text is applied (docs/dictionary.md, "The SYS rows win"): the batches pass with no problem,
    each DDL counted by what it is about, and the mirrors end as the SQL left the tables: T's
    column renamed and the new one added, NEWT created with its key from CDEF$."""
    scenario = _generate(tmp_path_factory, "ddl_text_unreadable")
    logs = len(list((scenario / "logs").glob("*.arc")))
    assert logs == 4  # the scenario switches logs before each DDL
    tables = _publish_batches(spark, scenario, tmp_path, fmt, list(range(1, logs)), [])
    changelog = _assert_final_state(scenario, tables)
    expected = _expected_trail(scenario)
    assert [(r["xid"], r["op"], r["rowid"]) for r in changelog] == [
        (r["xid"], r["op"], r["rowid"]) for r in expected
    ]
    counts = [json.loads(p.read_text()) for p in sorted(tmp_path.glob("b-*/counts.json"))]
    assert len(counts) == 4 and all(c["ddl_problems"] == [] for c in counts)
    assert [c["ddl"].get("ddl_from_sys_rows", 0) for c in counts] == [0, 1, 1, 1]
    assert not any(c["ddl"].get("ddl_text_superseded") for c in counts)
    assert [d for c in counts for d in c["dictionary_disagreements"]] == []
