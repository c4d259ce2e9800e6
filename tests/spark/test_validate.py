"""validate.py on real Spark with the GE suite: the scenario's batches pass every rule; a trail broken
on purpose fails, names the broken rule with its count and sample rows, and publishes nothing.

Expected outcomes come from the trail contract (shared/docs/trail-contract.md), applied by hand to
the scenario in ``tests/spark/scenario.py``.
"""

from __future__ import annotations

import json
import re
import uuid
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from redo_lib.reports.assets import external_resources
from redo_lib.storage.s3 import s3_client
from redo_lib.trail.model import LobColumn
from spark_jobs import publish, validate
from spark_jobs.common import cached_trail, read_trail, shared_trails
from tests.spark.scenario import Batch, batch_one, batch_two, counts_of, records, write_batch

pytest_plugins = ["tests.fixtures.spark", "tests.fixtures.s3"]
pytestmark = pytest.mark.spark

# tiny data: one shuffle partition, no adaptive planning, no code generation (each costs per query)
SMALL_DATA = {
    "spark.sql.shuffle.partitions": "1",
    "spark.sql.adaptive.enabled": "false",
    "spark.sql.codegen.wholeStage": "false",
}
CONTRACT_RULES = {1, 2, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 17}


@pytest.fixture(scope="module")
def session(s3_endpoint: str, spark: Any) -> Any:
    """The module's session, started after the S3 endpoint: Spark reads s3a:// batches with the
    ``AWS_*`` environment its Python workers start with (and the JVM's s3a settings)."""
    from tests.fixtures.spark import use_s3  # not at the top: a pytest plugin module

    use_s3(spark)
    for key, value in SMALL_DATA.items():
        spark.conf.set(key, value)
    return spark


def _summary(folder: Path) -> dict[str, Any]:
    return json.loads((folder / "report" / "summary.json").read_text())


def test_a_valid_batch_passes_every_rule_and_gets_its_marker(session: Any, tmp_path: Path) -> None:
    batch = batch_two()  # key updates, a re-insert, a delete and an update after an insert
    folder = write_batch(tmp_path, batch)
    assert validate.main(["--batch-dir", str(folder)], spark=session) == 0
    summary = _summary(folder)
    assert summary["success"] and summary["failed"] == [] and summary["batch_id"] == batch.batch_id
    assert {r["rule"] for r in summary["rules"]} == CONTRACT_RULES
    assert all(r["unexpected_count"] in (0, None) and r["exception"] is None for r in summary["rules"])
    assert json.loads((folder / "VALIDATED").read_text())["records"] == len(records(batch.txns)) == 8
    assert (folder / "report" / "docs" / "index.html").is_file()
    pages = [p.read_text() for p in (folder / "report" / "docs" / "validations").rglob("*.html")]
    assert len(pages) == 1 and all(f"Rule {n}: " in pages[0] for n in CONTRACT_RULES)
    # readable offline: no page loads a script, stylesheet or image from the network, and every
    # local one it loads is there; the index links to the operations report
    docs = folder / "report" / "docs"
    for page in docs.rglob("*.html"):
        text = page.read_text()
        assert external_resources(text) == [], page
        for ref in re.findall(
            r'(?:src|href)="((?:\.\./)*static/(?:vendor|styles)/[^"]+)"', text
        ):  # (GE links its favicon one level too shallow)
            assert (page.parent / ref).resolve().is_file(), (page, ref)
    assert "../../../../reports/index.html" in (docs / "index.html").read_text()


def test_the_stages_of_one_application_share_one_cached_trail_dropped_with_the_batch(
    session: Any, tmp_path: Path
) -> None:
    """batch.py's ``shared_trails``: a trail cached in the block stays cached for the next stage and
    goes when the block ends, so a trail written again at the same place is read anew. Validate
    caches none: it reads the columns its rules check (include/gx/features.sql), not the trail whole."""
    folder = write_batch(tmp_path, batch_two())
    trail = str(folder / "trail")

    def cached() -> bool:  # Spark's cache manager holds a plan reading this folder
        return bool(read_trail(session, trail).storageLevel.useMemory)

    with shared_trails():
        assert validate.main(["--batch-dir", str(folder)], spark=session) == 0
        assert not cached()
        with cached_trail(session, trail) as frame:
            assert frame.count() == len(records(batch_two().txns))
        assert cached()  # for the block's next stage
    assert not cached()
    assert validate.main(["--batch-dir", str(folder)], spark=session) == 0  # a stage on its own
    assert not cached()
    # another trail in the same folder (batch one's transactions): read anew
    assert write_batch(tmp_path, replace(batch_one(), batch_id=batch_two().batch_id)) == folder
    with cached_trail(session, trail) as frame:
        assert frame.count() == len(records(batch_one().txns)) != len(records(batch_two().txns))


def test_a_rule_whose_query_cannot_run_fails_with_its_error_and_the_others_still_run(
    session: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A SQL rule Spark cannot plan is reported as that rule's failure with the error (the step that
    computes each rule's query before GX runs it must not stop the stage)."""
    sql_dir = tmp_path / "sql"
    sql_dir.mkdir()
    for file in validate.SQL_DIR.glob("*.sql"):
        (sql_dir / file.name).write_text(file.read_text())
    (sql_dir / "broken.sql").write_text(
        "SELECT trail_seq, xid, 'never' AS problem, CAST(NULL AS STRING) AS detail FROM {batch} "
        "WHERE no_such_column = 1"
    )
    suite = validate.load_suite()
    entry = {"name": "broken_rule", "rule": 2, "title": "A rule whose query names no column", "sql": "broken"}
    monkeypatch.setattr(validate, "SQL_DIR", sql_dir)
    monkeypatch.setattr(
        validate, "load_suite", lambda: {**suite, "EXPECTATIONS": [*suite["EXPECTATIONS"], entry]}
    )
    folder = write_batch(tmp_path, batch_two())
    assert validate.main(["--batch-dir", str(folder)], spark=session) == validate.EXIT_INVALID
    summary = _summary(folder)
    assert [f["name"] for f in summary["failed"]] == ["broken_rule"]
    broken = next(r for r in summary["rules"] if r["name"] == "broken_rule")
    assert "no_such_column" in (broken["exception"] or "")
    assert all(r["success"] for r in summary["rules"] if r["name"] != "broken_rule")


def test_a_batch_on_s3_is_validated_and_its_report_uploaded(
    session: Any, s3_endpoint: str, tmp_path: Path
) -> None:
    bucket = f"redo-{uuid.uuid4().hex[:12]}"
    client = s3_client()
    client.create_bucket(Bucket=bucket)
    batch = batch_one()
    local = write_batch(tmp_path, batch)
    for path in sorted(p for p in local.rglob("*") if p.is_file()):
        client.upload_file(
            str(path), bucket, f"batches/{batch.batch_id}/{path.relative_to(local).as_posix()}"
        )
    argv = [
        "--batch-dir",
        f"s3://{bucket}/batches/{batch.batch_id}",
        "--reports-url",
        f"s3://{bucket}/reports/",
    ]
    assert validate.main(argv, spark=session) == 0
    keys = {o["Key"] for o in client.list_objects_v2(Bucket=bucket)["Contents"]}
    assert {f"batches/{batch.batch_id}/VALIDATED", f"batches/{batch.batch_id}/report/summary.json",
            f"batches/{batch.batch_id}/report/docs/index.html", f"reports/{batch.batch_id}/summary.json",
            f"reports/{batch.batch_id}/docs/index.html"} <= keys  # fmt: skip
    uploaded = json.loads(
        client.get_object(Bucket=bucket, Key=f"reports/{batch.batch_id}/summary.json")["Body"].read()
    )
    assert uploaded["success"] and uploaded["records"] == 7


# -- broken on purpose ---------------------------------------------------------------------------------
# Each case breaks batch 1 in one way and keeps counts.json true to the broken trail (as assemble
# would write it), so exactly one rule may fail.


def _missing_last_record() -> tuple[Batch, list[Any], dict[str, Any]]:
    batch = batch_one()
    trail = [r for r in records(batch.txns) if not (r.xid == "6.1.7" and r.op == "DELETE")]
    return batch, trail, counts_of(batch, trail)


def _rolled_back_xid() -> tuple[Batch, list[Any], dict[str, Any]]:
    batch = replace(batch_one(), rolled_back_xids=["7.7.7", "6.1.7"])
    trail = records(batch.txns)
    return batch, trail, counts_of(batch, trail)


def _delete_without_key() -> tuple[Batch, list[Any], dict[str, Any]]:
    batch = batch_one()
    trail = [replace(r, columns=()) if r.op == "DELETE" else r for r in records(batch.txns)]
    return batch, trail, counts_of(batch, trail)


def _commit_order_swapped() -> tuple[Batch, list[Any], dict[str, Any]]:
    batch = batch_one()
    t1, t2, t3, t4 = batch.txns
    trail = records([t1, t3, t2, t4])  # 5.2.100 (commit 1005) after 6.1.7 (commit 1010)
    return batch, trail, counts_of(batch, trail)


def _counts_disagree() -> tuple[Batch, list[Any], dict[str, Any]]:
    batch = batch_one()
    trail = records(batch.txns)
    counts = counts_of(batch, trail)
    counts["trail"]["US03.STUDENT"]["INSERT"] += 1  # type: ignore[index]
    return batch, trail, counts


def _lob_not_in_image() -> tuple[Batch, list[Any], dict[str, Any]]:
    batch = batch_one()
    trail = records(batch.txns)
    first_insert = next(i for i, r in enumerate(trail) if r.op == "INSERT")
    trail[first_insert] = replace(trail[first_insert], lob_columns=(LobColumn.of("CV", 40000),))
    return batch, trail, counts_of(batch, trail)


def _lob_unresolved() -> tuple[Batch, list[Any], dict[str, Any]]:
    batch = batch_one()
    trail = records(batch.txns)
    counts = counts_of(batch, trail)
    counts["lobs"] = {"lob_values_out_of_row": 3, "lob_values_unresolved": 1}
    return batch, trail, counts


def _lob_unresolved_by_column() -> tuple[Batch, list[Any], dict[str, Any]]:
    """counts.json as assemble writes it when two SecureFile values of one column could not be read."""
    batch = batch_one()
    trail = records(batch.txns)
    counts = counts_of(batch, trail)
    reasons = {"SecureFile locator list page (12c+ style 0x40) not read": 1, "page not in this batch": 1}
    counts["lobs"] = {"lob_values_unresolved": 2, "unresolved_by_column": {"US03.STUDENT.CV": reasons}}
    return batch, trail, counts


def _update_without_before() -> tuple[Batch, list[Any], dict[str, Any]]:
    batch = replace(batch_one(), images=["update-befores"])  # asked for, but the trail has none
    trail = records(batch.txns)
    return batch, trail, counts_of(batch, trail)


def _delete_not_full() -> tuple[Batch, list[Any], dict[str, Any]]:
    batch = replace(batch_one(), images=["full-deletes"])  # asked for, but the delete has its key only
    trail = records(batch.txns)
    return batch, trail, counts_of(batch, trail)


Case = Callable[[], tuple[Batch, list[Any], dict[str, Any]]]


@pytest.mark.parametrize(
    ("make", "name", "rule", "count", "sample"),
    [
        pytest.param(_missing_last_record, "trans_ind_sequence", 8, 1, {"xid": "6.1.7", "trail_seq": 4},
                     id="missing-last-record"),
        pytest.param(_rolled_back_xid, "no_rolled_back_transaction", 1, 2, {"xid": "6.1.7"}, id="rolled-back-xid"),
        pytest.param(_delete_without_key, "keys_present", 12, 1, {"xid": "6.1.7", "trail_seq": 5},
                     id="delete-without-key"),
        pytest.param(_commit_order_swapped, "commit_order", 6, 1, {"xid": "5.2.100", "trail_seq": 5},
                     id="commit-order-swapped"),
        pytest.param(_counts_disagree, "reconcile", 2, 1, {"xid": None}, id="counts-disagree"),
        pytest.param(_lob_not_in_image, "lobs_complete", 17, 1, {"xid": "4.11.854", "trail_seq": 0}, id="lob-not-in-image"),
        pytest.param(_lob_unresolved, "lobs_complete", 17, 1, {"xid": None}, id="lob-unresolved"),
        pytest.param(_lob_unresolved_by_column, "lobs_complete", 17, 2,
                     {"problem": "LOB values left unresolved in US03.STUDENT.CV: page not in this batch"},
                     id="lob-unresolved-by-column"),
        pytest.param(_update_without_before, "before_images", 10, 2, {"xid": "5.2.100", "trail_seq": 3},
                     id="update-without-before"),
        pytest.param(_delete_not_full, "full_deletes", 11, 1, {"xid": "6.1.7", "trail_seq": 5},
                     id="delete-not-full"),
    ],
)  # fmt: skip
def test_a_broken_trail_fails_names_its_rule_and_publishes_nothing(
    session: Any, tmp_path: Path, make: Case, name: str, rule: int, count: int, sample: dict[str, Any]
) -> None:
    batch, trail, counts = make()
    folder = write_batch(tmp_path / "batches", batch, trail, counts)
    assert validate.main(["--batch-dir", str(folder)], spark=session) == validate.EXIT_INVALID
    assert not (folder / "VALIDATED").exists()
    summary = _summary(folder)
    assert not summary["success"]
    assert summary["failed"] == [{"name": name, "rule": rule, "unexpected_count": count}]
    (failed,) = [r for r in summary["rules"] if not r["success"]]
    assert failed["exception"] is None and 1 <= len(failed["sample_rows"]) <= validate.SAMPLE_ROWS
    assert any(sample.items() <= row.items() for row in failed["sample_rows"]), failed["sample_rows"]
    warehouse = tmp_path / "warehouse"
    argv = ["--batch-dir", str(folder), "--warehouse", f"file://{warehouse}"]
    assert publish.main(argv, spark=session) == publish.EXIT_REFUSED
    assert not warehouse.exists() and not (folder / "PUBLISHED").exists()


def test_rule_queries_computed_side_by_side_give_the_same_verdict(
    session: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """From ``SIDE_BY_SIDE_RECORDS`` records on, the rule queries are computed four at a time (driver
    threads): the verdict, counts and samples are those of one at a time."""
    batch, trail, counts = _commit_order_swapped()
    summaries = []
    for threshold in (10**9, 0):  # one at a time, then side by side
        monkeypatch.setattr(validate, "SIDE_BY_SIDE_RECORDS", threshold)
        folder = write_batch(tmp_path / str(threshold), batch, trail, counts)
        assert validate.main(["--batch-dir", str(folder)], spark=session) == validate.EXIT_INVALID
        summaries.append({k: v for k, v in _summary(folder).items() if k not in ("docs", "reports_url")})
    assert summaries[0] == summaries[1]
    assert summaries[1]["failed"] == [{"name": "commit_order", "rule": 6, "unexpected_count": 1}]


def _unknown_object_batch(tmp_path: Path) -> Path:
    """counts.json as assemble writes it when a table created after the dictionary's export (object
    90001, above its max_object_id) had 4 changes, a table the export lists for captured owner
    AUDIT but does not describe (AUDIT.EVENTS, object 70010) 1, and SEG$ (object 14) 2 changes out
    of scope."""
    batch = batch_one()
    trail = records(batch.txns)
    counts: dict[str, Any] = counts_of(batch, trail)
    counts["decoded"] |= {"OBJ_90001": {"INSERT": 3, "UPDATE": 1}, "OBJ_14": {"UPDATE": 2},
                          "AUDIT.EVENTS": {"DELETE": 1}}  # fmt: skip
    counts["unknown_in_scope_ops"] = {"OBJ_90001": {"INSERT": 3, "UPDATE": 1}, "AUDIT.EVENTS": {"DELETE": 1}}
    counts["unknown_in_scope"] = {
        "90001": {"changes": 4, "first_scn": 1002, "name": "OBJ_90001", "reason": "created_after_export"},
        "70010": {"changes": 1, "first_scn": 1003, "name": "AUDIT.EVENTS", "reason": "not_in_dictionary"},
    }
    counts["out_of_scope"] = {"OBJ_14": {"UPDATE": 2}}
    counts["unknown_objects"] = {"14": 2, "70010": 1, "90001": 4}
    counts["scope"] = {"capture": None, "max_object_id": 90000, "unclassified_changes": 0}
    return write_batch(tmp_path / "batches", batch, trail, counts)


def test_a_change_to_an_unknown_object_in_scope_fails_and_names_it(
    session: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = _unknown_object_batch(tmp_path)
    assert validate.main(["--batch-dir", str(folder)], spark=session) == validate.EXIT_INVALID
    assert not (folder / "VALIDATED").exists()
    summary = _summary(folder)
    assert summary["failed"] == [{"name": "known_objects_in_scope", "rule": 2, "unexpected_count": 2}]
    (failed,) = [r for r in summary["rules"] if not r["success"]]
    assert [row["detail"] for row in failed["sample_rows"]] == [
        {
            "obj": 90001,
            "name": "OBJ_90001",
            "reason": "created_after_export",
            "changes": 4,
            "first_scn": 1002,
        },
        {
            "obj": 70010,
            "name": "AUDIT.EVENTS",
            "reason": "not_in_dictionary",
            "changes": 1,
            "first_scn": 1003,
        },
    ]
    problems = [row["problem"] for row in failed["sample_rows"]]
    assert "created after the export" in problems[0]
    assert "to AUDIT.EVENTS (object 70010)" in problems[1] and "captured owner AUDIT" in problems[1]
    assert "export_dictionary.sql" in failed["remedy"] and "REDOTRAIL_DICTIONARY" in failed["remedy"]
    assert summary["scope"]["out_of_scope"] == {"changes": 2, "objects": {"OBJ_14": 2}}
    assert set(summary["scope"]["unknown_in_scope"]["objects"]) == {"90001", "70010"}
    (page,) = [p.read_text() for p in (folder / "report" / "docs" / "validations").rglob("*.html")]
    assert "export_dictionary.sql" in page and "2 changes out of scope" in page
    out = capsys.readouterr().out
    assert "2 changes out of scope, 5 changes to 2 unknown objects in scope" in out
    assert "rule 2 known_objects_in_scope failed: 2 unexpected" in out


GX_BATCH_WARNING = "unexpected_rows_query should contain the {batch} parameter"


def test_validation_says_nothing_of_the_batch_parameter_and_a_failing_rule_keeps_its_samples(
    session: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str], caplog: pytest.LogCaptureFixture
) -> None:
    """GX prints and logs its {batch} warning each time it builds a query rule without the parameter
    (a dozen times per rule and run): the stage's log was mostly that line (issue 37, item 6). Every
    rule's query reads the batch, so it is never said; known_objects_in_scope, whose offending rows
    come from counts.json, still fails with them."""
    import logging

    caplog.set_level(logging.INFO, logger="great_expectations")
    folder = _unknown_object_batch(tmp_path)
    assert validate.main(["--batch-dir", str(folder)], spark=session) == validate.EXIT_INVALID
    printed = capsys.readouterr()
    assert (printed.out + printed.err).count(GX_BATCH_WARNING) == 0
    assert [r.getMessage() for r in caplog.records if GX_BATCH_WARNING in r.getMessage()] == []
    summary = _summary(folder)
    unknown = sorted(int(obj) for obj in json.loads((folder / "counts.json").read_text())["unknown_in_scope"])
    failed_rule = {"name": "known_objects_in_scope", "rule": 2, "unexpected_count": len(unknown)}
    assert summary["failed"] == [failed_rule]  # one offending row per unknown object
    (failed,) = [r for r in summary["rules"] if not r["success"]]
    assert sorted(row["detail"]["obj"] for row in failed["sample_rows"]) == unknown
    assert all(row["problem"] for row in failed["sample_rows"])
    assert f"rule 2 known_objects_in_scope failed: {len(unknown)} unexpected" in printed.out


def test_every_sql_rule_reads_the_batch() -> None:
    """What GX asks of an UnexpectedRowsExpectation: its query names ``{batch}``."""
    from string import Formatter

    for path in sorted(validate.SQL_DIR.glob("*.sql")):
        assert "batch" in [f[1] for f in Formatter().parse(path.read_text())], path.name


def test_every_sql_rule_reads_the_cached_one_pass_not_the_trail(session: Any, tmp_path: Path) -> None:
    """The rules read the batch's one pass (include/gx/features.sql) from Spark's cache: none reads
    the trail's Parquet again. A rule written as a CTE over the batch, for one, is planned from the
    trail again by Spark 4.1 (and pays the pass once more per rule)."""
    folder = write_batch(tmp_path, batch_two())
    suite = validate.load_suite()
    source = suite["SQL_PARAMETERS"]["source_table"]
    trail = read_trail(session, str(folder / "trail"))
    ddl = validate.ddl_statements(trail, source)
    counts, manifest = (json.loads((folder / name).read_text()) for name in ("counts.json", "manifest.json"))
    params = validate.suite_parameters(
        suite, counts, manifest, [(r["source_table"], r["trail_seq"]) for r in ddl]
    )
    with validate.contract_features(session, trail, ddl, params, "cache-check") as frame:
        frame.count()
        frame.createOrReplaceTempView("redotrail_cache_check")
        for entry in (e for e in suite["EXPECTATIONS"] if "sql" in e):
            query = validate.rule_query(entry, params).replace("{batch}", "redotrail_cache_check")
            plan = session.sql(query)._jdf.queryExecution().withCachedData().toString()
            # what is left of the plan once the cache answers: no relation reading the trail's files
            assert not re.search(r"\bRelation \[[^\]]*\] parquet", plan), (entry["name"], plan)


def _ddl_batch() -> tuple[Batch, list[Any], dict[str, Any]]:
    """Batch two of tests/spark/test_schema_changes.py: DDL records between row changes (an insert
    before ADD COLUMN lacks the new column, one after DROP COLUMN the dropped one), and counts.json as
    assemble writes it: row changes reconciled, DDL records by table and verb."""
    from tests.spark.test_schema_changes import _batches

    _, trail, _ = _batches()[1]
    rows: dict[str, dict[str, int]] = {}
    ddl: dict[str, dict[str, int]] = {}
    for r in trail:
        if r.op == "DDL":
            verb = dict(r.columns)["OPERATION"]
            ddl.setdefault(f"{r.owner}.{r.table}", {}).setdefault(verb, 0)
            ddl[f"{r.owner}.{r.table}"][verb] += 1
        else:
            rows.setdefault(f"{r.owner}.{r.table}", {}).setdefault(r.op, 0)
            rows[f"{r.owner}.{r.table}"][r.op] += 1
    counts = {"batch_id": "b-000002-000002", "decoded": rows, "trail": rows, "ddl_records": ddl,
              "transactions": {}, "rolled_back_xids": []}  # fmt: skip
    return Batch("b-000002-000002", []), trail, counts


def test_a_batch_with_ddl_records_passes_and_unapplied_ddl_fails_with_its_text(
    session: Any, tmp_path: Path
) -> None:
    batch, trail, counts = _ddl_batch()
    folder = write_batch(tmp_path / "good", batch, trail, counts)
    assert validate.main(["--batch-dir", str(folder)], spark=session) == 0, _summary(folder)["failed"]
    assert _summary(folder)["ddl"] == {"records": counts["ddl_records"], "problems": [], "disagreements": []}
    assert counts["ddl_records"]["APP.ORDERS"] == {"ALTER": 4}  # rename, add, modify, drop
    # the same batch, but assembly could not apply a DDL (braces in its text: GX placeholders)
    text = "ALTER TABLE APP.ORDERS ADD (X SDO_GEOMETRY) /* {x} */"
    counts["ddl_problems"] = [{"kind": "unsupported", "scn": 2222, "obj": 100, "schema": "APP", "text": text,
                               "message": "column type SDO_GEOMETRY: a user-defined or XML type"}]  # fmt: skip
    folder = write_batch(tmp_path / "bad", batch, trail, counts)
    assert validate.main(["--batch-dir", str(folder)], spark=session) == validate.EXIT_INVALID
    summary = _summary(folder)
    assert summary["failed"] == [{"name": "ddl_records", "rule": 9, "unexpected_count": 1}]
    (failed,) = [r for r in summary["rules"] if not r["success"]]
    (row,) = failed["sample_rows"]
    assert row["problem"].startswith("DDL not understood") and row["detail"]["scn"] == 2222
    assert row["detail"]["text"] == text and "SDO_GEOMETRY" in row["detail"]["message"]


def test_a_ddl_record_without_its_text_or_counted_otherwise_fails(session: Any, tmp_path: Path) -> None:
    batch, trail, counts = _ddl_batch()
    i = next(i for i, r in enumerate(trail) if r.op == "DDL")
    trail[i] = replace(trail[i], columns=(("OPERATION", "ALTER"), ("OBJECT_TYPE", "TABLE"), ("DDL_TEXT", "")))
    counts["ddl_records"]["APP.ITEMS"]["TRUNCATE"] = 2  # the trail holds one
    # order 5, inserted after order 4 and after ADD (NOTE ...) but without NOTE: incomplete for its
    # table's shape then (order 2's update and order 3's insert, before the ADD, lack NOTE rightly)
    j = next(j for j, r in enumerate(trail) if r.op == "INSERT" and dict(r.columns).get("ID") == "4")
    xid = "9.9.2051"
    trail.insert(j + 1, replace(
        trail[j], xid=xid, commit_scn=2051, scn=2050, rowid="AAAAAAAAEAAAAAQ9AB",
        columns=tuple(("ID", "5") if c[0] == "ID" else c for c in trail[j].columns if c[0] != "NOTE"),
        tokens=(("R", "AAAAAAAAEAAAAAQ9AB"), ("L", "2051"), ("6", xid)),
    ))  # fmt: skip
    counts["decoded"]["APP.ORDERS"]["INSERT"] += 1  # the same dict as counts["trail"]
    folder = write_batch(tmp_path, batch, trail, counts)
    assert validate.main(["--batch-dir", str(folder)], spark=session) == validate.EXIT_INVALID
    summary = _summary(folder)
    assert summary["failed"] == [{"name": "ddl_records", "rule": 9, "unexpected_count": 2},
                                 {"name": "inserts_complete", "rule": 11, "unexpected_count": 1}]  # fmt: skip
    incomplete = next(r for r in summary["rules"] if r["name"] == "inserts_complete")
    assert [r["detail"] for r in incomplete["sample_rows"]] == [
        {"source_table": "APP.ORDERS", "missing_columns": ["NOTE"]}
    ]
    failed = next(r for r in summary["rules"] if r["name"] == "ddl_records")
    problems = sorted(r["problem"] for r in failed["sample_rows"])
    assert problems == [
        "DDL record without its statement text",
        "counts.json ddl_records differ from the trail",
    ]


def _unreadable_batch(tmp_path: Path, capture: list[str] | None) -> Path:
    """The batch the pipeline makes of tests/unit/redo_lib/test_unsupported.py's generated redo (an
    encrypted, an OLTP-compressed and an index-organized table beside an ordinary one): trail and
    counts.json from ``pipeline.decode_logs``, the reference of the Spark stages."""
    import textwrap

    from redo_lib.pipeline import decode_logs
    from redo_lib.synth import generate, parse_scenario
    from redo_lib.trail.emit import EmitOptions, capture_options
    from tests.unit.redo_lib.test_unsupported import SCENARIO

    generated = generate(parse_scenario(textwrap.dedent(SCENARIO)), tmp_path / "generated")
    options = EmitOptions(**capture_options(capture)) if capture else None
    decoded = decode_logs(list(generated.logs), generated.dictionary, options=options)
    batch = Batch("b-000001-000001", [])
    return write_batch(
        tmp_path / "batches", batch, decoded.trail, {"batch_id": batch.batch_id, **decoded.counts}
    )


def test_a_captured_table_the_decoder_cannot_read_fails_naming_table_count_and_reason(
    session: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = _unreadable_batch(tmp_path, None)
    assert validate.main(["--batch-dir", str(folder)], spark=session) == validate.EXIT_INVALID
    assert not (folder / "VALIDATED").exists()
    summary = _summary(folder)
    # the three tables, one row each; the reconciliation balances (the compressed inserts are counted)
    assert summary["failed"] == [{"name": "unsupported_changes", "rule": 2, "unexpected_count": 3}]
    (failed,) = [r for r in summary["rules"] if not r["success"]]
    details = sorted((row["detail"]["table"], row["detail"]["kind"], row["detail"]["changes"], row["detail"]["reason"])
                     for row in failed["sample_rows"])  # fmt: skip
    assert details == [
        (
            "APP.BYKEY",
            "iot",
            3,
            "index-organized table: changes are index-leaf operations (layer 10), not decoded",
        ),
        ("APP.PACKED", "oltp_compressed", 3, "OLTP-compressed row image: not decoded"),
        ("APP.SECRETS", "encrypted", 3, "encrypted tablespace: no key material"),
    ]
    assert any(
        row["problem"].startswith("APP.SECRETS: 3 change vectors not decoded")
        for row in failed["sample_rows"]
    )
    assert "capture scope" in failed["remedy"]
    assert [(r["table"], r["changes"]) for r in summary["unsupported"]] == [
        ("APP.BYKEY", 3), ("APP.PACKED", 3), ("APP.SECRETS", 3),
    ]  # fmt: skip
    out = capsys.readouterr().out
    assert "APP.PACKED: 3 row changes not decoded (OLTP-compressed row image: not decoded)" in out
    failure = json.loads((folder / "report" / "failure.json").read_text())
    assert (
        "APP.SECRETS: 3 change vectors not decoded (encrypted tablespace: no key material)"
        in failure["message"]
    )


def test_the_same_tables_outside_the_capture_scope_pass(session: Any, tmp_path: Path) -> None:
    folder = _unreadable_batch(tmp_path, ["APP.ORDERS"])
    assert validate.main(["--batch-dir", str(folder)], spark=session) == 0, _summary(folder)["failed"]
    summary = _summary(folder)
    assert summary["unsupported"] == []
    assert summary["scope"]["out_of_scope"]["objects"] == {"APP.PACKED": 4}
    counts = json.loads((folder / "counts.json").read_text())
    assert counts["unsupported"]["out_of_scope"] == {"APP.SECRETS": {"encrypted": 3}, "APP.BYKEY": {"iot": 3}}
