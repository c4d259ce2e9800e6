"""``python -m redo_lib status`` on a generated RAC workload with a long transaction.

The scenario is ``include/scenarios/rac_long_transaction.yaml`` with ten minutes of sleep before
each log switch, so each archived log ends ten minutes after the one before it. Its logs go to a
real S3 endpoint (moto_server), discovery and planning run as the DAG's tasks do, and each planned
batch is decoded and assembled in this process with the Spark stages' own units
(``decode_unit`` / ``assemble_partition``), carrying the open transactions from batch to batch. The
ages, changes and counts asserted come from the scenario's steps and the generator's expected trail,
not from the tool.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import json
import os
import re
import shutil
import subprocess
import sys
import uuid
from pathlib import Path
from typing import Any

import pytest

from redo_lib.batches import (
    assemble_partition,
    decode_unit,
    event_to_row,
    load_manifest,
    merge_counts,
    plan_units,
    read_events,
)
from redo_lib.discovery import Settings, discover_archive, plan_pending
from redo_lib.discovery.tasks import report_batch, resolve_batch
from redo_lib.reports.assets import external_resources
from redo_lib.status import collect_status, missing_catalog, render_age, render_status
from redo_lib.storage.catalog import LogCatalog
from redo_lib.storage.s3 import s3_client
from redo_lib.synth import generate, load_scenario
from redo_lib.synth.scenario import AppendLob, Delete, DirectInsert, Insert, Sleep, Switch, Update

pytest_plugins = ["tests.fixtures.s3"]

REPO = Path(__file__).resolve().parents[2]
SCENARIO = REPO / "include/scenarios/rac_long_transaction.yaml"
SLEEP_S = 600  # before each switch: every log ends ten minutes after the previous one
LONG = "batch"  # the scenario's session holding the long transaction


def _scenario() -> Any:
    scenario = load_scenario(SCENARIO)
    steps: list[Any] = []
    for step in scenario.steps:
        if isinstance(step, Switch):
            steps.append(Sleep(seconds=SLEEP_S))
        steps.append(step)
    return dataclasses.replace(scenario, steps=tuple(steps))


def _long_changes_before(scenario: Any, switches: int) -> int:
    """DML steps of the long transaction's session before the given number of switches."""
    count, seen = 0, 0
    for step in scenario.steps:
        if isinstance(step, Switch):
            seen += 1
            if seen == switches:
                return count
        elif isinstance(step, Insert | DirectInsert | Update | Delete | AppendLob) and step.session == LONG:
            count += 1
    return count


@dataclasses.dataclass
class Run:
    scenario: Any
    settings: Settings
    expected: list[dict[str, Any]]
    logs_per_thread: int
    batches: list[dict[str, Any]]  # report_batch results, in run order
    rid: int


def _run_batch(batch_id: str, batch_dir: str) -> None:
    """decode + assemble in this process (the Spark stages' units), counts.json merged as Spark does."""
    folder = Path(batch_dir)
    manifest = load_manifest(folder)
    for unit in plan_units(manifest):
        decode_unit(unit, batch_dir)
    carried = []
    if manifest.carried_in:
        carried = [event_to_row(e) | {"carried": True} for e in read_events(manifest.carried_in)]
    events = sorted(read_events(folder / "staging" / "events"), key=lambda e: e.sort_key)
    rid = manifest.logs[0].resetlogs_id
    rows = carried + [event_to_row(e) for e in events]
    list(assemble_partition(0, rows, batch_dir, manifest.dictionary, resetlogs_id=rid))
    counts = merge_counts(json.loads(p.read_text()) for p in sorted((folder / "counts").glob("*.json")))
    (folder / "counts.json").write_text(json.dumps({"batch_id": batch_id, **counts}))
    for marker in ("VALIDATED", "PUBLISHED"):  # validation and publishing are other tests' subject
        (folder / marker).write_text(json.dumps({"batch_id": batch_id}))


@pytest.fixture(scope="module")
def run(s3_endpoint: str, tmp_path_factory: pytest.TempPathFactory) -> Run:
    scenario = _scenario()
    out = generate(scenario, tmp_path_factory.mktemp("rac"))
    bucket = f"status-{uuid.uuid4().hex[:8]}"
    s3 = s3_client()
    s3.create_bucket(Bucket=bucket)
    for path in out.logs:
        s3.put_object(Bucket=bucket, Key=f"archive/{path.name}", Body=path.read_bytes())
    data = tmp_path_factory.mktemp("data")
    settings = Settings(
        archive_url=f"s3://{bucket}/archive/", work_dir=str(data / "work"),
        catalog_db=str(data / "catalog.sqlite"), warehouse=f"file://{data}/warehouse",
        dictionary=str(out.dictionary), max_logs_per_batch=2, max_batches_per_run=1,
    )  # fmt: skip
    discover_archive(settings)
    discover_archive(settings)  # a stable listing: every log ready
    threads = {int(p.name.split("_")[0]) for p in out.logs}
    per_thread = len(out.logs) // len(threads)
    results = []
    for _ in range(2):  # two batches: the long transaction is still open after them
        (batch_id,) = plan_pending(settings)
        resolved = resolve_batch(settings, batch_id=batch_id)
        _run_batch(batch_id, resolved["batch_dir"])
        results.append(report_batch(settings, batch_id))
    # a third batch fails in decode: the last failure
    (batch_id,) = plan_pending(settings)
    resolved = resolve_batch(settings, batch_id=batch_id)
    failure = {
        "stage": "decode",
        "kind": "checksum",
        "error": "x.arc: RBA 0x000003.00000004.0010: bad checksum",
    }
    (Path(resolved["batch_dir"]) / "report").mkdir(parents=True, exist_ok=True)
    (Path(resolved["batch_dir"]) / "report" / "failure.json").write_text(json.dumps(failure))
    results.append(report_batch(settings, batch_id))
    expected = [json.loads(line) for line in out.trail.read_text().splitlines() if line]
    rid = int(out.logs[0].stem.split("_")[2])
    return Run(scenario, settings, expected, per_thread, results, rid)


def _long_xid(run: Run) -> str:
    """The xid of the transaction that wrote LEDGER ID 1 (the long one), from the expected trail."""
    (xid,) = {
        r["xid"]
        for r in run.expected
        if r["table"] == "LEDGER" and r["op"] == "INSERT" and r["columns"]["ID"] == "1"
    }
    return str(xid)


def test_status_shows_the_long_transaction_with_its_age(run: Run) -> None:
    with LogCatalog(run.settings.catalog_db) as catalog:
        doc = collect_status(catalog, warn_after_s=15 * 60)
        batches = catalog.batches()
        covered = max(last for t, (_, last) in batches[1].ranges.items() if t == 1)
    start = run.scenario.settings.start_time
    open_txns = doc["open_transactions"]
    assert open_txns["carried_by"]["batch_id"] == run.batches[1]["batch_id"]
    # the long transaction, and the short ones of the scenario all committed inside their logs
    assert open_txns["count"] == 1, open_txns
    (txn,) = open_txns["transactions"]
    assert txn["xid"] == _long_xid(run)
    assert dt.datetime.fromisoformat(txn["start_time"]) == start
    assert txn["started_in"] == f"1_1_{run.rid}"
    # the batch read logs 1..covered of thread 1, the last ending covered * 10 minutes after the start
    assert txn["age_s"] == covered * SLEEP_S
    assert txn["changes"] == _long_changes_before(run.scenario, covered)
    assert txn["bytes"] > 0
    # older than 15 minutes: warned, naming it; not at a threshold above its age
    assert len(doc["warnings"]) == 1 and txn["xid"] in doc["warnings"][0]
    with LogCatalog(run.settings.catalog_db) as catalog:
        assert collect_status(catalog, warn_after_s=covered * SLEEP_S + 1)["warnings"] == []


def test_status_lag_batches_and_last_failure(run: Run) -> None:
    now = dt.datetime(2030, 1, 1, tzinfo=dt.UTC)
    with LogCatalog(run.settings.catalog_db) as catalog:
        doc = collect_status(catalog, now=now)
        published = {t: last for b in catalog.batches()[:2] for t, (_, last) in b.ranges.items()}
    assert [t["thread"] for t in doc["threads"]] == [1, 2]
    for t in doc["threads"]:
        assert t["newest_seen"]["sequence"] == run.logs_per_thread
        assert t["newest_published"]["sequence"] == published[t["thread"]]
        assert t["lag_sequences"] == run.logs_per_thread - published[t["thread"]]
        # log k of either thread ends k * SLEEP_S after the start (a switch switches every thread);
        # the last one at the end of the scenario, with no sleep after the last switch
        switches = sum(isinstance(step, Switch) for step in run.scenario.steps)
        seen, pub = t["newest_seen"]["sequence"], t["newest_published"]["sequence"]
        assert t["lag_redo_s"] == (min(seen, switches) - min(pub, switches)) * SLEEP_S
        assert t["lag_scn"] > 0
        end = dt.datetime.fromisoformat(t["newest_published"]["next_time"]).replace(tzinfo=dt.UTC)
        assert t["lag_wall_s"] == (now - end).total_seconds()
    b = doc["batches"]
    assert b["by_status"]["published"] == 2 and b["by_status"]["failed"] == 1 and b["total"] == 3
    for d in b["recent"][:2]:
        assert d["duration_s"] > 0 and d["mb_per_s"] > 0 and d["logs"] >= 2
    failure = doc["last_failure"]
    assert failure["batch_id"] == run.batches[2]["batch_id"]
    assert "bad checksum" in failure["message"] and failure["failure"]["stage"] == "decode"
    text = render_status(doc)
    assert "bad checksum" in text and f"{run.batches[2]['batch_id']}" in text


def test_status_command_prints_json_and_text(run: Run) -> None:
    env = {"REDOTRAIL_CATALOG_DB": run.settings.catalog_db, "REDOTRAIL_WARN_LONG_TRANS": "15m"}
    base = [sys.executable, "-m", "redo_lib", "status"]
    proc = subprocess.run(
        [*base, "--json"], capture_output=True, text=True, env={**os.environ, **env}, check=True
    )
    doc = json.loads(proc.stdout)
    assert doc["warn_long_trans_s"] == 900 and len(doc["warnings"]) == 1
    proc = subprocess.run(base, capture_output=True, text=True, env={**os.environ, **env}, check=True)
    assert "WARNING: long-running transaction " + _long_xid(run) in proc.stdout
    assert "Open transactions: 1" in proc.stdout


def test_status_reads_a_data_folder_and_says_where_it_looked_when_nothing_is_there(
    run: Run, tmp_path: Path
) -> None:
    """Issue 31: after ./redotrail demo, `status` read the default settings' catalog (created empty)
    and said "no logs discovered yet". `--data-dir` reads an embedded run's folder (the demo's,
    data/demo, has the layout copied here), and a catalog that is not there is said, with where it
    was looked for, instead of an empty one made and shown."""
    folder = tmp_path / "demo"
    (folder / "catalog").mkdir(parents=True)
    shutil.copy(run.settings.catalog_db, folder / "catalog" / "logs.sqlite")
    empty = tmp_path / "elsewhere"
    env = {k: v for k, v in os.environ.items() if not k.startswith("REDOTRAIL_")}
    env["REDOTRAIL_DATA_DIR"] = str(empty)
    base = [sys.executable, "-m", "redo_lib", "status"]
    proc = subprocess.run(
        [*base, "--data-dir", str(folder), "--json"], capture_output=True, text=True, env=env
    )
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(proc.stdout)
    assert doc["batches"]["total"] == 3 and doc["batches"]["by_status"]["published"] == 2
    proc = subprocess.run(base, capture_output=True, text=True, env=env)
    assert proc.returncode == 1 and proc.stdout == ""
    assert f"no log catalog at {empty / 'catalog' / 'logs.sqlite'}" in proc.stderr
    assert not empty.exists()  # nothing made where nothing was
    # with the demo's folder there, the message names the command that shows it
    hint = missing_catalog(str(empty / "catalog" / "logs.sqlite"), folder)
    assert hint is not None and f"status --data-dir {os.path.relpath(folder)}" in hint
    assert missing_catalog(str(folder / "catalog" / "logs.sqlite"), folder) is None
    assert missing_catalog("postgresql://catalog/redotrail", folder) is None


def test_the_report_task_warns_and_writes_the_operations_report(run: Run) -> None:
    """report_batch (the DAG's report task) names the long transaction the batch carries out when it
    is older than the threshold, and rewrites <work>/reports/index.html, readable offline."""
    second = run.batches[1]["batch_id"]
    with LogCatalog(run.settings.catalog_db) as catalog:
        covered = catalog.batches()[1].ranges[1][1]
    age = covered * SLEEP_S
    # the batch's Data Docs index (validate writes it; a page with the link banner stands in here)
    docs = Path(run.batches[1]["batch_dir"]) / "report" / "docs" / "index.html"
    docs.parent.mkdir(parents=True, exist_ok=True)
    docs.write_text('<html><body>\n<div id="redotrail-operations-link">link</div><p>GE</p></body></html>')
    quiet = report_batch(dataclasses.replace(run.settings, warn_long_trans_s=age + 1), second)
    assert quiet["open_transactions"] == 1 and quiet["long_transactions"] == []
    assert "WARNING" not in docs.read_text()
    loud = report_batch(dataclasses.replace(run.settings, warn_long_trans_s=age - 1), second)
    (warning,) = loud["long_transactions"]
    assert _long_xid(run) in warning and render_age(age) in warning
    report_batch(dataclasses.replace(run.settings, warn_long_trans_s=age - 1), second)  # a re-run
    text = docs.read_text()
    assert text.count("WARNING: long-running transaction " + _long_xid(run)) == 1
    assert text.index("redotrail-operations-link") < text.index("WARNING") < text.index("<p>GE</p>")
    report_batch(dataclasses.replace(run.settings, warn_long_trans_s=age + 1), second)
    assert "WARNING" not in docs.read_text()
    page = Path(loud["operations_report"])
    assert page == Path(run.settings.work_dir) / "reports" / "index.html"
    text = page.read_text()
    assert external_resources(text) == []
    for script in re.findall(r'<script src="([^"]+)"', text):
        assert (page.parent / script).is_file(), script
    # the numbers the page shows: the open transaction's xid, each batch, the failure
    assert _long_xid(run) in text and all(b["batch_id"] in text for b in run.batches)
    assert "bad checksum" in text and '"mark": {"type": "line"' in text and '"mark": {"type": "bar"' in text


# ---- what discovery did not plan, and why (issue 37, item 5) -----------------------------------


@pytest.fixture(scope="module")
def troubled(s3_endpoint: str, tmp_path_factory: pytest.TempPathFactory) -> tuple[Settings, dict[str, str]]:
    """One discovery run over tests/fixtures/archive.py's archive: a gap, rejected, duplicate and
    waiting objects beside three ready logs."""
    from tests.fixtures.archive import DBID, put_troubled_archive

    bucket = f"troubled-{uuid.uuid4().hex[:8]}"
    s3 = s3_client()
    s3.create_bucket(Bucket=bucket)
    where = put_troubled_archive(s3, bucket)
    data = tmp_path_factory.mktemp("troubled")
    settings = Settings(
        archive_url=f"s3://{bucket}/archive/", work_dir=str(data / "work"),
        catalog_db=str(data / "catalog.sqlite"), warehouse=f"file://{data}/warehouse", dbid=DBID,
    )  # fmt: skip
    discover_archive(settings)
    return settings, where


def _unplanned(where: dict[str, str]) -> dict[tuple[str, str], str]:
    """(kind, location) -> a part of its reason, as discovery's rules word them."""
    from tests.unit.redo_lib.test_discovery import RID

    gap = "sequence 17 missing before sequence 18; nothing is planned past sequence 16"
    return {
        ("gap", where["after_gap"]): gap,
        ("rejected", where["not_redo"]): "not a redo log: ",
        ("rejected", where["foreign"]): "DBID 123 (FOREIGN) is not this pipeline's database DBID",
        ("duplicate", where["duplicate"]): f"same thread 1 sequence 16 resetlogs {RID} as {where['log16']}",
        ("waiting", where["waiting"]): "header incomplete (still being written?)",
    }


def test_status_lists_every_log_not_planned_with_its_reason(
    troubled: tuple[Settings, dict[str, str]],
) -> None:
    settings, where = troubled
    expected = _unplanned(where)
    with LogCatalog(settings.catalog_db) as catalog:
        doc = collect_status(catalog)
    listed = {(e["kind"], e["location"]): e["reason"] for e in doc["unplanned_logs"]["logs"]}
    assert listed.keys() == expected.keys()
    for key, reason in expected.items():
        assert reason in listed[key], (key, listed[key])
    counts = {"gap": 1, "rejected": 2, "duplicate": 1, "waiting": 1, "gone": 0}
    assert doc["unplanned_logs"]["counts"] == counts

    env = {**os.environ, "REDOTRAIL_CATALOG_DB": settings.catalog_db}
    base = [sys.executable, "-m", "redo_lib", "status"]
    proc = subprocess.run([*base, "--json"], capture_output=True, text=True, env=env, check=True)
    assert json.loads(proc.stdout)["unplanned_logs"] == json.loads(json.dumps(doc["unplanned_logs"]))
    text = subprocess.run(base, capture_output=True, text=True, env=env, check=True).stdout
    assert "Logs not planned: 1 gap, 2 rejected, 1 duplicate, 1 waiting" in text
    lines = text.splitlines()
    for (kind, location), reason in expected.items():  # one line each: kind, log and reason
        found = [line for line in lines if f" {kind} " in line and location in line and reason in line]
        assert len(found) == 1, (kind, location, text)


def test_the_operations_report_lists_every_log_not_planned(troubled: tuple[Settings, dict[str, str]]) -> None:
    from markupsafe import escape  # as jinja2's autoescape writes text

    from redo_lib.reports.history import write_history

    settings, where = troubled
    with LogCatalog(settings.catalog_db) as catalog:
        page = Path(write_history(catalog, settings.work_dir))
    text = page.read_text()
    assert 'id="unplanned-logs"' in text
    table = text[text.index('id="unplanned-logs"') :]
    table = table[: table.index("</table>")]
    rows = table.split("<tr")[2:]  # after the header row
    assert len(rows) == len(_unplanned(where))
    for (kind, location), reason in _unplanned(where).items():
        found = [r for r in rows if f">{kind}<" in r and location in r and escape(reason) in r]
        assert len(found) == 1, (kind, location)
