"""Stage 3, validate: the batch's trail against the trail contract, with Great Expectations on Spark.

Reads ``<batch>/trail`` (Parquet, ``redo_lib.trail.schema.trail_schema()``; Spark reads it through
``s3a://`` when the batch is on S3), ``<batch>/counts.json`` and ``<batch>/manifest.json``; runs the
suite declared in ``include/gx/trail_contract.py`` (each expectation's ``meta`` names its rule in
``shared/docs/trail-contract.md``); writes the Data Docs to ``<batch>/report/docs/`` and
``<batch>/report/summary.json`` (per rule: name, number, success, unexpected count, up to 10 sample
rows), copies both to ``--reports-url``/<batch_id>/ when given, and writes ``<batch>/VALIDATED`` only
when every rule passed.

    spark-submit spark_jobs/validate.py --batch-dir DIR [--reports-url s3://bucket/reports/]

Exit 0: valid. Exit 2: the report names the failed rules (``VALIDATED`` absent).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import re
import runpy
import shutil
import string
import sys
import tempfile
import warnings
from collections.abc import Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # run as a script: make ``spark_jobs`` importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from redo_lib.errors import RedoError
from redo_lib.pipeline import scope_report, unknown_problem
from redo_lib.reports.assets import localize_site
from redo_lib.reports.history import link_data_docs
from redo_lib.storage.s3 import upload_file
from redo_lib.trail.emit import image_options
from redo_lib.unsupported import problem_rows
from spark_jobs.common import (
    ROOT,
    BatchDir,
    build_session,
    read_trail,
    report_failure,
    run_stage,
    upload_tree,
)

SUITE_FILE = ROOT / "include" / "gx" / "trail_contract.py"
SQL_DIR = ROOT / "include" / "gx" / "sql"
FEATURES_SQL = ROOT / "include" / "gx" / "features.sql"
SAMPLE_ROWS = 10
EXIT_INVALID = 2
DOCS_SITE = "local_site"  # the ephemeral context's site, pointed at <batch>/report/docs
# the terms of the balance (reconcile), then rowid_keyed: records of ``trail`` keyed by their ROWID
# (keys_present checks their number)
COUNT_SECTIONS = ("decoded", "carried_in", "trail", "cancelled", "out_of_scope", "unknown_in_scope_ops",
                  "orphaned", "carried_out", "unsupported_ops", "rowid_keyed")  # fmt: skip


@dataclass(frozen=True)
class JobArgs:
    batch_dir: str
    reports_url: str | None


def parse_args(argv: list[str] | None) -> JobArgs:
    parser = argparse.ArgumentParser(prog="validate", description=__doc__.splitlines()[0])
    parser.add_argument("--batch-dir", required=True, help="local folder or s3:// prefix of the batch")
    parser.add_argument("--reports-url", default=None, help="s3://bucket/prefix/ for a copy of the report")
    ns = parser.parse_args(argv)
    return JobArgs(ns.batch_dir, ns.reports_url)


# -- the suite's parameters from the batch -----------------------------------------------------------


def sql_literal(text: str) -> str:
    return "'" + text.replace("\\", "\\\\").replace("'", "\\'") + "'"


def render_counts(counts: dict[str, Any]) -> str:
    """counts.json as a SQL row set (source_table, op, one column per section); PK_UPDATE counts as
    UPDATE, as the decoder cannot tell a key change from other updates."""
    rows: dict[tuple[str, str], dict[str, int]] = {}
    for section in COUNT_SECTIONS:
        for table, ops in (counts.get(section) or {}).items():
            for op, n in ops.items():
                key = (table, "UPDATE" if op == "PK_UPDATE" else op)
                cell = rows.setdefault(key, dict.fromkeys(COUNT_SECTIONS, 0))
                cell[section] += int(n)
    columns = ", ".join(["source_table", "op", *COUNT_SECTIONS])
    if not rows:
        nulls = ", ".join(f"CAST(NULL AS BIGINT) AS {c}" for c in COUNT_SECTIONS)
        return f"SELECT CAST(NULL AS STRING) AS source_table, CAST(NULL AS STRING) AS op, {nulls} WHERE false"
    values = ", ".join(
        "("
        + ", ".join(
            [sql_literal(t), sql_literal(op), *(f"CAST({cell[s]} AS BIGINT)" for s in COUNT_SECTIONS)]
        )
        + ")"
        for (t, op), cell in sorted(rows.items())
    )
    return f"SELECT * FROM VALUES {values} AS c({columns})"


def render_declared_columns(columns: dict[str, list[str]] | None) -> str:
    """Declared column lists (counts.json or manifest ``columns``: {"OWNER.TABLE": [names]})."""
    if not columns:
        return "SELECT CAST(NULL AS STRING) AS source_table, CAST(NULL AS ARRAY<STRING>) AS names WHERE false"
    values = ", ".join(
        f"({sql_literal(t)}, array({', '.join(sql_literal(n) for n in names)}))"
        for t, names in sorted(columns.items())
    )
    return f"SELECT * FROM VALUES {values} AS d(source_table, names)"


def render_lob_issues(counts: dict[str, Any]) -> str:
    """counts.json's unresolved LOB values as a SQL row set: one row per table, column and reason
    (``lobs.unresolved_by_column``), the problem text naming them; a total without that breakdown
    (``lobs.lob_values_unresolved``) is one row."""
    lobs = counts.get("lobs") or {}
    unresolved = int(lobs.get("lob_values_unresolved") or 0)
    by_column = lobs.get("unresolved_by_column") or {}
    if not unresolved and not by_column:
        return "SELECT CAST(NULL AS STRING) AS problem, CAST(NULL AS STRING) AS detail WHERE false"
    if not by_column:
        # no JSON literal: GX reads braces in the query as its placeholders
        detail = f"to_json(named_struct('lob_values_unresolved', {unresolved}))"
        problem = sql_literal(
            "LOB values left unresolved (locator hex): a page their locator names is neither in the batch "
            "nor carried in from the batch before (written before the chain's first batch), or the locator "
            "form is not read (docs/lobs.md)"
        )
        return f"SELECT {problem} AS problem, {detail} AS detail"
    rows = []
    for column, reasons in sorted(by_column.items()):
        for reason, n in sorted(reasons.items()):
            problem = sql_literal(f"LOB values left unresolved in {column}: {reason}")
            detail = f"to_json(named_struct('column', {sql_literal(column)}, 'values', {int(n)}))"
            rows.append(f"SELECT {problem} AS problem, {detail} AS detail")
    return " UNION ALL ".join(rows)


def render_unknown_in_scope(counts: dict[str, Any]) -> str:
    """counts.json's ``unknown_in_scope`` (object id -> changes, first SCN) as a SQL row set, earliest
    first: the rows the ``known_objects_in_scope`` rule fails with."""
    unknown = counts.get("unknown_in_scope") or {}
    if not unknown:
        return "SELECT CAST(NULL AS STRING) AS problem, CAST(NULL AS STRING) AS detail WHERE false"
    values = ", ".join(
        f"({_braceless(sql_literal(unknown_problem(int(obj), u)))}, CAST({int(obj)} AS BIGINT), "
        f"{_braceless(sql_literal(str(u.get('name') or f'OBJ_{int(obj)}')))}, "
        f"{_braceless(sql_literal(str(u.get('reason') or 'created_after_export')))}, "
        f"CAST({int(u['changes'])} AS BIGINT), CAST({int(u['first_scn'])} AS BIGINT))"
        for obj, u in sorted(unknown.items(), key=lambda item: (int(item[1]["first_scn"]), int(item[0])))
    )
    # no JSON literal: GX reads braces in the query as its placeholders
    detail = (
        "to_json(named_struct('obj', obj, 'name', name, 'reason', reason, 'changes', changes, "
        "'first_scn', first_scn))"
    )
    rows = f"VALUES {values} AS u(problem, obj, name, reason, changes, first_scn)"
    return f"SELECT problem, {detail} AS detail FROM {rows}"


def _braceless(literal: str) -> str:
    """A SQL string literal without braces (GX reads them as placeholders): Spark unescapes \\uXXXX."""
    return literal.replace("{", "\\u007B").replace("}", "\\u007D")


def render_unsupported(counts: dict[str, Any]) -> str:
    """counts.json's ``unsupported`` (captured tables whose changes the decoder cannot read: table,
    kind, changes, reason; ``redo_lib/unsupported.py``) as the rows the ``unsupported_changes`` rule
    fails with."""
    rows = problem_rows(counts)
    if not rows:
        return "SELECT CAST(NULL AS STRING) AS problem, CAST(NULL AS STRING) AS detail WHERE false"
    selects = []
    for r in rows:
        problem = _braceless(
            sql_literal(f"{r['table']}: {r['changes']} {r['counted']} not decoded ({r['reason']})")
        )
        fields = {"table": _braceless(sql_literal(r["table"])), "kind": sql_literal(r["kind"]),
                  "changes": f"CAST({r['changes']} AS BIGINT)", "counted": sql_literal(str(r["counted"])),
                  "reason": _braceless(sql_literal(r["reason"]))}  # fmt: skip
        if "column" in r:  # a column of a type the decoder cannot render
            fields |= {
                "column": _braceless(sql_literal(r["column"])),
                "type": _braceless(sql_literal(r["type"])),
            }
        detail = "to_json(named_struct(" + ", ".join(f"'{k}', {v}" for k, v in fields.items()) + "))"
        selects.append(f"SELECT {problem} AS problem, {detail} AS detail")
    return " UNION ALL ".join(selects)


def render_ddl_counts(counts: dict[str, Any]) -> str:
    """counts.json's ``ddl_records`` (``OWNER.NAME`` -> verb -> records) as a SQL row set."""
    rows = [
        (t, op, int(n))
        for t, ops in sorted((counts.get("ddl_records") or {}).items())
        for op, n in ops.items()
    ]
    if not rows:
        return ("SELECT CAST(NULL AS STRING) AS source_table, CAST(NULL AS STRING) AS operation, "
                "CAST(NULL AS BIGINT) AS records WHERE false")  # fmt: skip
    values = ", ".join(f"({_braceless(sql_literal(t))}, {_braceless(sql_literal(op))}, CAST({n} AS BIGINT))"
                       for t, op, n in rows)  # fmt: skip
    return f"SELECT * FROM VALUES {values} AS c(source_table, operation, records)"


def render_ddl_problems(counts: dict[str, Any]) -> str:
    """counts.json's ``ddl_problems`` (table DDL the dictionary could not follow: its SCN, object,
    text and why) as the rows the ``ddl_records`` rule fails with."""
    problems = counts.get("ddl_problems") or []
    if not problems:
        return "SELECT CAST(NULL AS STRING) AS problem, CAST(NULL AS STRING) AS detail WHERE false"
    rows = []
    for p in problems:
        what = "DDL not understood" if p.get("kind") == "unsupported" else "DDL contradicting the dictionary"
        problem = _braceless(sql_literal(f"{what}: rows after it would be shaped by a guess"))
        fields = {"scn": f"CAST({int(p.get('scn') or 0)} AS BIGINT)",
                  "obj": f"CAST({int(p.get('obj') or 0)} AS BIGINT)",
                  "text": _braceless(sql_literal(str(p.get("text") or ""))),
                  "message": _braceless(sql_literal(str(p.get("message") or "")))}  # fmt: skip
        detail = "to_json(named_struct(" + ", ".join(f"'{k}', {v}" for k, v in fields.items()) + "))"
        rows.append(f"SELECT {problem} AS problem, {detail} AS detail")
    return " UNION ALL ".join(rows)


def scope_note(scope: dict[str, Any]) -> str:
    """One sentence on the batch's capture scope, for the Data Docs (no ``$``: GX reads it as a
    placeholder in descriptions)."""
    out, unknown = scope["out_of_scope"], scope["unknown_in_scope"]
    text = (
        f"This batch: {out['changes']} changes out of scope ({len(out['objects'])} tables or objects), "
        f"{unknown['changes']} changes to {len(unknown['objects'])} unknown objects in scope."
    )
    return text + "".join(f" Warning: {w}." for w in scope["warnings"])


def render_ddl_epoch(positions: list[tuple[str, int]], source_table: str) -> tuple[str, str]:
    """(a SQL expression numbering a record's place among its table's DDL records, the tables with
    DDL as a SQL list) from the batch's DDL records (``OWNER.TABLE``, trail_seq): 0 before the
    table's first DDL, 1 after it, ... A projection with the positions written in: no join."""
    by_table: dict[str, list[int]] = {}
    for table, seq in positions:
        by_table.setdefault(table, []).append(int(seq))
    if not by_table:
        return "0", "CAST(NULL AS STRING)"
    cases = []
    for table, seqs in sorted(by_table.items()):
        inner = " ".join(f"WHEN trail_seq < {seq} THEN {i}" for i, seq in enumerate(sorted(seqs)))
        cases.append(
            f"WHEN ({source_table}) = {_braceless(sql_literal(table))} THEN CASE {inner} ELSE {len(seqs)} END"
        )
    tables = ", ".join(_braceless(sql_literal(t)) for t in sorted(by_table))
    return "CASE " + " ".join(cases) + " ELSE 0 END", tables


def suite_parameters(
    suite: dict[str, Any],
    counts: dict[str, Any],
    manifest: dict[str, Any],
    ddl_positions: Sequence[tuple[str, int]] = (),
) -> dict[str, Any]:
    epoch, ddl_tables = render_ddl_epoch(list(ddl_positions), suite["SQL_PARAMETERS"]["source_table"])
    return {
        **suite["SQL_PARAMETERS"],
        "rolled_back_xids": sorted(str(x) for x in counts.get("rolled_back_xids") or ()),
        "counts": render_counts(counts),
        "declared_columns": render_declared_columns(counts.get("columns") or manifest.get("columns")),
        "lob_issues": render_lob_issues(counts),
        "unknown_in_scope": render_unknown_in_scope(counts),
        "ddl_counts": render_ddl_counts(counts),
        "ddl_epoch": epoch,
        "ddl_tables": ddl_tables,
        "ddl_problems": render_ddl_problems(counts),
        "unsupported": render_unsupported(counts),
        "scope_note": scope_note(scope_report(counts)).replace("$", ""),
        # the image options the batch asked for (manifest images: rules 10, 11), as SQL booleans
        **{name: str(on).lower() for name, on in _image_flags(manifest).items()},
        "lob_before_omitted": int((counts.get("lobs") or {}).get("lob_before_values_not_in_redo") or 0),
    }


def _image_flags(manifest: dict[str, Any]) -> dict[str, bool]:
    """``update_befores`` / ``full_deletes``: what the manifest's ``images`` asked the assembly for."""
    options = image_options(manifest.get("images"))
    return {"update_befores": options["update_before_images"], "full_deletes": options["full_deletes"]}


def load_suite(path: Path = SUITE_FILE) -> dict[str, Any]:
    return runpy.run_path(str(path))


def rule_query(entry: dict[str, Any], params: dict[str, Any]) -> str:
    """A SQL rule's query (``include/gx/sql/<sql>.sql``) with the batch's parameters, ``{batch}``
    left for GX."""
    return string.Template((SQL_DIR / f"{entry['sql']}.sql").read_text()).substitute(params)


def view_name(prefix: str, batch_id: str) -> str:
    """A temp view of this batch's: ``prefix`` and the batch id as an identifier."""
    return prefix + re.sub(r"[^A-Za-z0-9_]", "_", batch_id)


def expectation_of(entry: dict[str, Any], params: dict[str, Any]) -> Any:
    """One GX expectation from a suite entry, its rule in ``meta``, ``description`` and ``notes``."""
    gxe = import_gx().expectations

    meta = {"rule": entry["rule"], "title": entry["title"], "name": entry["name"]}
    description = f"Rule {entry['rule']}: {entry['title']}"  # what the Data Docs show
    notes = f"Trail contract rule {entry['rule']} (shared/docs/trail-contract.md): {entry['title']}"
    if "remedy" in entry:  # what to do when it fails: in the Data Docs and summary.json
        meta["remedy"] = entry["remedy"]
        description += f". When it fails: {entry['remedy']}"
        notes += f"\n\nWhen it fails: {entry['remedy']}"
    if "batch_note" in entry:  # a sentence about this batch (e.g. its capture scope)
        description += f" {params[entry['batch_note']]}"
        notes += f"\n\n{params[entry['batch_note']]}"
    text = {"meta": meta, "description": description, "notes": notes}
    if "sql" in entry:
        return gxe.UnexpectedRowsExpectation(unexpected_rows_query=rule_query(entry, params), **text)
    kwargs = {
        k: params[v[1:]] if isinstance(v, str) and v.startswith("$") else v
        for k, v in entry["kwargs"].items()
    }
    return getattr(gxe, entry["expectation"])(**kwargs, **text)


# -- the one pass ----------------------------------------------------------------------------------------

DDL_FIELDS = ("OPERATION", "OBJECT_TYPE", "DDL_TEXT")


def ddl_statements(trail: Any, source_table: str) -> list[Any]:
    """The trail's DDL records (IOType 160): position, ``OWNER.TABLE`` and the statement's fields.

    A read of their own, filtered: Parquet skips the row groups without DDL (their ``op`` and
    ``io_type`` statistics exclude it), so the values of row changes, most of a trail's bytes, are
    never read for them. A batch holds a few DDL records; their positions are written into the rules
    (``ddl_epoch``) anyway."""
    fields = [f"try_element_at(map_from_entries(columns), '{f}') AS {f.lower()}" for f in DDL_FIELDS]
    return (
        trail.where("op = 'DDL' OR io_type = 160")
        .selectExpr("trail_seq", "xid", f"{source_table} AS source_table", *fields)
        .collect()
    )


@contextlib.contextmanager
def contract_features(
    spark: Any, trail: Any, ddl: list[Any], params: dict[str, Any], batch_id: str
) -> Iterator[Any]:
    """The batch Great Expectations validates: ``include/gx/features.sql`` over the trail, cached
    for the block (every rule and column expectation reads it, none the trail itself)."""
    from pyspark.sql.types import LongType, StringType, StructField, StructType

    trail_view, ddl_view = view_name("redotrail_trail_", batch_id), view_name("redotrail_ddl_", batch_id)
    schema = StructType(
        [StructField("trail_seq", LongType()), StructField("xid", StringType())]
        + [StructField(f.lower(), StringType()) for f in DDL_FIELDS]
    )
    ddl_rows = [(r["trail_seq"], r["xid"], *(r[f.lower()] for f in DDL_FIELDS)) for r in ddl]
    trail.createOrReplaceTempView(trail_view)
    spark.createDataFrame(ddl_rows, schema).createOrReplaceTempView(ddl_view)
    query = string.Template(FEATURES_SQL.read_text()).substitute(params)
    query = query.replace("{trail}", trail_view).replace("{ddl}", ddl_view)
    frame = spark.sql(query).cache()
    try:
        yield frame
    finally:
        frame.unpersist()
        spark.catalog.dropTempView(trail_view)
        spark.catalog.dropTempView(ddl_view)


# -- running the suite ---------------------------------------------------------------------------------


def import_gx() -> Any:
    """``great_expectations``, imported with its own import-time DeprecationWarnings silenced (GX 1.24
    imports ``sre_constants`` and friends; under ``-W error`` that would stop the stage)."""
    os.environ.setdefault("GX_ANALYTICS_ENABLED", "false")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        import great_expectations
        import great_expectations.expectations

    return great_expectations


def _context(docs_dir: Path) -> Any:
    gx = import_gx()
    from great_expectations.data_context.types.base import ProgressBarsConfig

    ctx = gx.get_context(mode="ephemeral")
    ctx.variables.progress_bars = ProgressBarsConfig(globally=False)
    # the ephemeral context's own site points at a fresh temporary folder: point it at ours instead
    sites = ctx.config.data_docs_sites or {}
    default = sites.get(DOCS_SITE, {}).get("store_backend", {}).get("base_directory")
    ctx.update_data_docs_site(
        DOCS_SITE,
        {
            "class_name": "SiteBuilder",
            "store_backend": {"class_name": "TupleFilesystemStoreBackend", "base_directory": str(docs_dir)},
            "site_index_builder": {"class_name": "DefaultSiteIndexBuilder"},
        },
    )
    if default and Path(default).is_relative_to(tempfile.gettempdir()):
        shutil.rmtree(default, ignore_errors=True)
    return ctx


def run_suite(
    spark: Any,
    frame: Any,
    suite: dict[str, Any],
    params: dict[str, Any],
    batch_id: str,
    docs_dir: Path,
    records: int = 0,
) -> list[dict[str, Any]]:
    """Run the suite on the batch's one pass (:func:`contract_features`, ``records`` rows), build the
    Data Docs; one result dict per entry."""
    gx = import_gx()
    from great_expectations.core.run_identifier import RunIdentifier

    ctx = _context(docs_dir)
    batch_definition = (
        ctx.data_sources.add_spark("trail")
        .add_dataframe_asset(batch_id)
        .add_batch_definition_whole_dataframe("trail")
    )
    entries = suite["EXPECTATIONS"]
    gx_suite = gx.ExpectationSuite(
        name=suite["SUITE_NAME"], meta={"contract": "shared/docs/trail-contract.md"}
    )
    for entry in entries:
        gx_suite.add_expectation(expectation_of(entry, params))
    gx_suite = ctx.suites.add(gx_suite)
    definition = ctx.validation_definitions.add(
        gx.ValidationDefinition(name=batch_id, data=batch_definition, suite=gx_suite)
    )
    checkpoint = ctx.checkpoints.add(
        gx.Checkpoint(
            name="trail_contract",
            validation_definitions=[definition],
            actions=[gx.checkpoint.UpdateDataDocsAction(name="docs", site_names=[DOCS_SITE])],
            # counts and a few values; sample rows of failures are fetched afterwards (_samples), so
            # a passing rule costs no extra Spark job
            result_format={"result_format": "SUMMARY", "partial_unexpected_count": SAMPLE_ROWS},
        )
    )
    warmed = warm_queries(
        spark, frame, gx_suite, threads=1 if records < SIDE_BY_SIDE_RECORDS else WARM_THREADS
    )
    try:
        outcome = checkpoint.run(
            batch_parameters={"dataframe": frame}, run_id=RunIdentifier(run_name=batch_id)
        )
    finally:
        for result in warmed:
            result.unpersist()
    results = next(iter(outcome.run_results.values())).results
    by_name = {r.expectation_config.meta.get("name"): r for r in results}
    view = view_name("redotrail_checked_", batch_id)
    frame.createOrReplaceTempView(view)
    return [_rule_result(spark, frame, suite, entry, by_name.get(entry["name"]), view) for entry in entries]


WARM_THREADS = 4  # rule queries computed at once on a batch of SIDE_BY_SIDE_RECORDS or more
SIDE_BY_SIDE_RECORDS = 100_000
GX_BATCH_VIEW = "tmp_view"  # the temp view GX's Spark query metrics register the batch as


def warm_queries(spark: Any, frame: Any, gx_suite: Any, threads: int = 1) -> list[Any]:
    """Each SQL rule's offending rows, computed together and cached, so that GX reads them from the cache.

    GX 1.x runs an ``UnexpectedRowsExpectation``'s query twice on Spark (``query.row_count``, then
    ``query.table`` for its rows), each time over the batch registered as the temp view
    ``GX_BATCH_VIEW``: the SQL rules were half of validate's time (docs/benchmarks.md). Run here over
    the same view with the same text, the query has the same plan, and Spark's cache manager answers
    both of GX's runs from these cached rows. Only the time changes: should GX name its view
    otherwise, the plans differ and GX computes the queries itself, as before."""
    frame.createOrReplaceTempView(GX_BATCH_VIEW)
    warmed = []
    for expectation in gx_suite.expectations:
        query = getattr(expectation, "unexpected_rows_query", None)
        if not isinstance(query, str):
            continue
        # a query Spark cannot plan is left to GX, which runs it again and reports its error as the
        # rule's result (summary.json ``exception``), as without this step
        with contextlib.suppress(Exception):  # GX reports it
            warmed.append(spark.sql(query.format(batch=GX_BATCH_VIEW)).cache())
    # side by side on a batch of some size, one after another on a small one: on two cores four
    # driver threads took 473K records from 36 to 22 s and 8 records from 11.7 to 13.8 s
    # (docs/benchmarks.md). Not one union: Spark 4.1 cannot inline the CTEs of separately parsed
    # queries in one plan (InlineCTE: "key not found").
    with ThreadPoolExecutor(max_workers=threads) as pool:
        list(pool.map(_computed, warmed))
    return warmed


def _computed(result: Any) -> None:
    with contextlib.suppress(Exception):  # a query that fails to run: GX runs it again and reports it
        result.count()


def _exception(result: Any) -> str | None:
    info = result.exception_info or {}
    if "raised_exception" in info:
        return info.get("exception_message") if info.get("raised_exception") else None
    messages = [
        v.get("exception_message") for v in info.values() if isinstance(v, dict) and v.get("raised_exception")
    ]
    return "; ".join(str(m) for m in messages) or None


def _plain(value: Any) -> Any:
    if hasattr(value, "asDict"):
        return {k: _plain(v) for k, v in value.asDict().items()}
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    if value is None or isinstance(value, bool | int | float | str):
        return value
    return value.isoformat() if hasattr(value, "isoformat") else str(value)


def _samples(
    spark: Any, frame: Any, suite: dict[str, Any], entry: dict[str, Any], result: Any, view: str
) -> list[Any]:
    """Up to ``SAMPLE_ROWS`` offending rows of a failed rule: the SQL rule's own rows (``detail``
    parsed), or the trail records holding a column's unexpected values."""
    from pyspark.sql import functions as F

    if "sql" in entry:
        query = result.expectation_config.kwargs["unexpected_rows_query"].replace("{batch}", view)
        rows = [_plain(row) for row in spark.sql(query).limit(SAMPLE_ROWS).collect()]
        return [{**r, "detail": json.loads(r["detail"])} if r.get("detail") else r for r in rows]
    column = entry["kwargs"]["column"]
    if entry["expectation"] == "ExpectColumnValuesToNotBeNull":
        condition = F.col(column).isNull()
    else:
        condition = F.col(column).isin(list((result.result or {}).get("partial_unexpected_list") or []))
    columns = [*suite["SAMPLE_COLUMNS"], *([column] if column not in suite["SAMPLE_COLUMNS"] else [])]
    return [_plain(row) for row in frame.where(condition).select(*columns).limit(SAMPLE_ROWS).collect()]


def _rule_result(
    spark: Any, frame: Any, suite: dict[str, Any], entry: dict[str, Any], result: Any, view: str
) -> dict[str, Any]:
    out: dict[str, Any] = {"name": entry["name"], "rule": entry["rule"], "title": entry["title"]}
    if "remedy" in entry:
        out["remedy"] = entry["remedy"]
    if result is None:
        return {**out, "success": False, "unexpected_count": None, "sample_rows": [], "exception": "not run"}
    body = result.result or {}
    error = _exception(result)
    count = body.get("observed_value") if "sql" in entry else body.get("unexpected_count")
    samples = (
        _samples(spark, frame, suite, entry, result, view) if not result.success and error is None else []
    )
    return {
        **out,
        "success": bool(result.success),
        "unexpected_count": count,
        "sample_rows": samples,
        "exception": error,
    }


def counts_missing() -> dict[str, Any]:
    """The result standing for reconciliation when the batch has no counts.json."""
    return {
        "name": "counts_json_present",
        "rule": 2,
        "title": "counts.json present (reconciliation needs it)",
        "success": False,
        "unexpected_count": None,
        "sample_rows": [],
        "exception": "counts.json missing",
    }


# -- the job -----------------------------------------------------------------------------------------


def main(argv: list[str] | None = None, *, spark: Any = None) -> int:
    args = parse_args(argv)
    return run_stage("validate", args.batch_dir, lambda: run(args, spark=spark))


def run(args: JobArgs, *, spark: Any = None) -> int:
    batch = BatchDir(args.batch_dir)
    batch.remove("VALIDATED")  # a rerun that fails must not leave an earlier pass behind
    manifest = batch.read_json("manifest.json", default={})
    counts = batch.read_json("counts.json", default={})
    batch_id = manifest.get("batch_id") or counts.get("batch_id") or batch.name
    suite = load_suite()
    scope = scope_report(counts)
    session = build_session(f"redotrail-validate-{batch_id}", spark=spark)
    # GE builds the Data Docs in a temporary folder of this process; they are copied to the batch
    with tempfile.TemporaryDirectory(prefix="redotrail-docs-") as tmp:
        source = suite["SQL_PARAMETERS"]["source_table"]
        trail = read_trail(session, batch.spark_uri("trail"))
        ddl = ddl_statements(trail, source)
        # the batch's DDL positions (a few rows): rules that depend on a table's shape use them
        params = suite_parameters(suite, counts, manifest, [(r["source_table"], r["trail_seq"]) for r in ddl])
        with contract_features(session, trail, ddl, params, batch_id) as frame:
            records = frame.count()  # the one pass: the features computed and cached
            docs_dir = Path(tmp) / "docs"
            rules = run_suite(session, frame, suite, params, batch_id, docs_dir, records)
        # readable offline: GE's CDN scripts and stylesheets -> local copies in docs/static/vendor/;
        # the index links to the operations report across batches (<work>/reports/index.html)
        try:
            localize_site(docs_dir)
        except RedoError as exc:  # the assets are not installed here: the pages still say everything
            print(f"validate {batch_id}: warning: the Data Docs link to CDNs (no network, no styles): {exc}")
        link_data_docs(docs_dir)
        batch.put_dir(docs_dir, "report", "docs")
        if not counts:
            rules.append(counts_missing())
        failed = [r for r in rules if not r["success"]]
        reports = f"{args.reports_url.rstrip('/')}/{batch_id}" if args.reports_url else None
        summary = {
            "batch_id": batch_id,
            "success": not failed,
            "suite": suite["SUITE_NAME"],
            "contract": "shared/docs/trail-contract.md",
            "records": records,
            "failed": [
                {"name": r["name"], "rule": r["rule"], "unexpected_count": r["unexpected_count"]}
                for r in failed
            ],
            "rules": rules,
            # what was left out of the trail as outside the capture scope, and what may not be
            "scope": scope,
            # the batch's DDL records by object and verb, table DDL left unapplied, and the tables whose
            # SYS.COL$ rows won over the version a DDL's text gave (docs/dictionary.md)
            "ddl": {
                "records": counts.get("ddl_records") or {},
                "problems": counts.get("ddl_problems") or [],
                "disagreements": counts.get("dictionary_disagreements") or [],
            },  # fmt: skip
            # captured tables whose changes the decoder cannot read (encrypted, compressed, IOT)
            "unsupported": problem_rows(counts),
            "docs": "docs/index.html",
            "reports_url": reports,
        }
        text = json.dumps(summary, indent=2, sort_keys=True, default=str) + "\n"
        batch.write_text(text, "report", "summary.json")
        if reports:
            (Path(tmp) / "summary.json").write_text(text)
            upload_file(Path(tmp) / "summary.json", f"{reports}/summary.json")
            upload_tree(docs_dir, f"{reports}/docs")
    print(
        f"validate {batch_id}: {scope['out_of_scope']['changes']} changes out of scope, "
        f"{scope['unknown_in_scope']['changes']} changes to {len(scope['unknown_in_scope']['objects'])} "
        "unknown objects in scope"
    )
    for warning in scope["warnings"]:
        print(f"validate {batch_id}: warning: {warning}")
    ddl = counts.get("ddl_records") or {}
    if ddl:
        listed = ", ".join(
            f"{verb} {table} x{n}" for table, verbs in sorted(ddl.items()) for verb, n in verbs.items()
        )
        print(f"validate {batch_id}: {sum(sum(v.values()) for v in ddl.values())} DDL records ({listed})")
    for row in problem_rows(counts):
        print(
            f"validate {batch_id}: {row['table']}: {row['changes']} {row['counted']} not decoded ({row['reason']})"
        )
    for r in failed:
        cause = f" ({r['exception']})" if r["exception"] else ""
        print(
            f"validate {batch_id}: rule {r['rule']} {r['name']} failed: {r['unexpected_count']} unexpected{cause}"
        )
    if not summary["success"]:
        print(f"validate {batch_id}: INVALID, report in {batch.uri_of('report')}")
        rules = ", ".join(f"{r['rule']} {r['name']}" for r in failed)
        # the tables the decoder cannot read, named where status shows the failure
        unreadable = "".join(
            f"; {row['table']}: {row['changes']} {row['counted']} not decoded ({row['reason']})"
            for row in problem_rows(counts)
        )
        return report_failure(
            batch.uri, "validate", kind="invalid", message=f"{len(failed)} rules failed ({rules}){unreadable}",
            retryable=False, exit_code=EXIT_INVALID,
        )  # fmt: skip
    batch.write_json(
        {"batch_id": batch_id, "records": records, "suite": suite["SUITE_NAME"], "rules": len(rules)},
        "VALIDATED",
    )
    print(f"validate {batch_id}: {records} records, {len(rules)} rules passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
