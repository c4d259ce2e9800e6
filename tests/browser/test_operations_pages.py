"""The operators' pages in a real browser, with the network blocked.

Airflow 3 runs for real on a throw-away SQLite metadata database (``airflow db migrate``, then the
``api-server``, ``scheduler`` and ``dag-processor`` with the LocalExecutor, as the cluster profile
runs them on PostgreSQL), over the project's DAG folder; S3 is moto_server; Spark runs the batch in
local mode. The workload is ``include/scenarios/long_transaction.yaml`` with ten minutes of sleep
before each log switch, discovered and planned in batches of two logs beforehand (the discovery
DAG's own functions).

Debian's Chromium (``/usr/bin/chromium``, installed by ``./redotrail setup``), driven by Playwright,
with every request that is not to 127.0.0.1 aborted and counted:

1. the DAG page and its docs (``doc_md``);
2. the trigger form: a backfill of sequences 1-2 through its fields, then the run's page once it
   has succeeded, and the report task's log (the long-running transaction warning and the links);
3. the operations report (``<work>/reports/index.html``, served over HTTP by a local server): the
   batch's row with its log count and size (from the generated files), the open transaction with
   its xid, changes and age (from the scenario), both plots drawn;
4. the batch's Data Docs from the report's link: the validation index table and the validation
   page's expectation table, rendered by bootstrap-table from the vendored scripts.

Screenshots go to ``data/test-output/browser/`` (the ones in docs/operations.md come from there).
"""

from __future__ import annotations

import dataclasses
import json
import os
import re
import signal
import subprocess
import sys
import time
import urllib.request
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from redo_lib.discovery import Settings, discover_archive, plan_pending
from redo_lib.status import render_age
from redo_lib.storage.local_s3 import free_port
from redo_lib.storage.s3 import s3_client
from redo_lib.synth import generate, load_scenario
from redo_lib.synth.scenario import Delete, Insert, Sleep, Switch, Update

pytest_plugins = ["tests.fixtures.s3"]
pytestmark = [pytest.mark.integration, pytest.mark.airflow, pytest.mark.browser, pytest.mark.timeout(600)]

REPO = Path(__file__).resolve().parents[2]
CHROMIUM = Path("/usr/bin/chromium")
SHOTS = REPO / "data" / "test-output" / "browser"
# the flags this machine's Chromium needs headless: no sandbox as root, no background connections
CHROMIUM_ARGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
]  # fmt: skip
SLEEP_S = 600
SEQ_FROM, SEQ_TO = 1, 2


def _api(base: str, path: str, body: dict[str, Any] | None = None, method: str = "GET") -> Any:
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(
        base + "/api/v2" + path, data=data, method=method, headers={"Content-Type": "application/json"}
    )
    with urllib.request.urlopen(request, timeout=30) as response:
        return json.load(response)


def _wait(check: Any, timeout: float, what: str, log: Path | None = None) -> Any:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            value = check()
        except OSError:
            value = None
        if value:
            return value
        time.sleep(1)
    tail = log.read_text()[-3000:] if log and log.exists() else ""
    raise AssertionError(f"{what} not seen within {timeout:.0f} s\n{tail}")


@dataclasses.dataclass
class Stack:
    airflow: str  # base URL of the api-server
    reports: str  # base URL of the work folder's server
    env: dict[str, str]
    work: Path
    scenario: Any
    logs: list[Path]
    expected: list[dict[str, Any]]
    logs_dir: Path


def _scenario() -> Any:
    scenario = load_scenario(REPO / "include/scenarios/long_transaction.yaml")
    steps: list[Any] = []
    for step in scenario.steps:
        if isinstance(step, Switch):
            steps.append(Sleep(seconds=SLEEP_S))
        steps.append(step)
    return dataclasses.replace(scenario, steps=tuple(steps))


@pytest.fixture(scope="module")
def stack(s3_endpoint: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    assert CHROMIUM.is_file(), f"{CHROMIUM} is missing: ./redotrail setup installs Debian's chromium"
    root = tmp_path_factory.mktemp("browser")
    scenario = _scenario()
    out = generate(scenario, root / "scenario")
    bucket = f"archive-{uuid.uuid4().hex[:8]}"
    s3 = s3_client()
    s3.create_bucket(Bucket=bucket)
    for path in out.logs:
        s3.put_object(Bucket=bucket, Key=f"archive/{path.name}", Body=path.read_bytes())
    work = root / "work"
    redotrail = {
        "REDOTRAIL_DATA_DIR": str(root),
        "REDOTRAIL_ARCHIVE_URL": f"s3://{bucket}/archive/",
        "REDOTRAIL_WORK_DIR": str(work),
        "REDOTRAIL_CATALOG_DB": str(root / "catalog.sqlite"),
        "REDOTRAIL_WAREHOUSE": f"file://{root / 'warehouse'}",
        "REDOTRAIL_DICTIONARY": str(out.dictionary),
        "REDOTRAIL_MAX_LOGS_PER_BATCH": "2",
        "REDOTRAIL_WARN_LONG_TRANS": "15m",
    }
    # discovery and planning beforehand (the discovery DAG's functions): batches 1-2, 3-4, 5
    settings = Settings.from_env(redotrail)
    discover_archive(settings)
    discover_archive(settings)
    assert plan_pending(settings)[0] == f"b-{SEQ_FROM:06d}-{SEQ_TO:06d}"
    port = free_port()
    home = root / "airflow"
    home.mkdir()
    env = {
        **os.environ,
        **redotrail,
        "AIRFLOW_HOME": str(home),
        "AIRFLOW__CORE__DAGS_FOLDER": str(REPO / "dags"),
        "AIRFLOW__CORE__LOAD_EXAMPLES": "False",
        "AIRFLOW__CORE__EXECUTOR": "LocalExecutor",
        "AIRFLOW__CORE__PARALLELISM": "2",
        "AIRFLOW__DATABASE__SQL_ALCHEMY_CONN": f"sqlite:///{home / 'airflow.db'}",
        "AIRFLOW__API__HOST": "127.0.0.1",
        "AIRFLOW__API__PORT": str(port),
        "AIRFLOW__API__WORKERS": "1",
        "AIRFLOW__API__BASE_URL": f"http://127.0.0.1:{port}",
        "AIRFLOW__CORE__EXECUTION_API_SERVER_URL": f"http://127.0.0.1:{port}/execution/",
        "AIRFLOW__CORE__SIMPLE_AUTH_MANAGER_ALL_ADMINS": "True",
        "AIRFLOW__CORE__DAGS_ARE_PAUSED_AT_CREATION": "True",
        "AIRFLOW__LOGGING__LOGGING_LEVEL": "INFO",
        "AIRFLOW_CONN_SPARK_DEFAULT": json.dumps({"conn_type": "spark", "host": "local[2]"}),
        "PATH": os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")]),
        "PYSPARK_PYTHON": sys.executable,
        "SPARK_LOCAL_IP": "127.0.0.1",
        "GX_ANALYTICS_ENABLED": "false",
        "TZ": "UTC",
    }
    airflow = str(Path(sys.executable).with_name("airflow"))
    subprocess.run([airflow, "db", "migrate"], env=env, capture_output=True, check=True, cwd=root)
    logs_dir = root / "logs"
    logs_dir.mkdir()
    procs = []
    commands = {
        "api-server": [airflow, "api-server"],
        "scheduler": [airflow, "scheduler"],
        "dag-processor": [airflow, "dag-processor"],
        "reports": [sys.executable, "-m", "http.server", "-b", "127.0.0.1", str(reports_port := free_port())],
    }
    work.mkdir(exist_ok=True)
    for name, command in commands.items():
        with (logs_dir / f"{name}.log").open("wb") as log:
            procs.append(
                subprocess.Popen(
                    ["nice", "-n", "19", *command],
                    env=env,
                    stdout=log,
                    stderr=subprocess.STDOUT,
                    cwd=work if name == "reports" else root,
                    start_new_session=True,
                )  # fmt: skip
            )
    base = f"http://127.0.0.1:{port}"
    try:
        _wait(
            lambda: _api(base, "/monitor/health"), 180, "the Airflow api-server", logs_dir / "api-server.log"
        )
        _wait(
            lambda: any(d["dag_id"] == "redo_pipeline" for d in _api(base, "/dags")["dags"]),
            180, "redo_pipeline parsed", logs_dir / "dag-processor.log",
        )  # fmt: skip
        # unpaused first, as an operator does: the trigger form would otherwise unpause it while it
        # posts the run, two writers on SQLite at once; one run's unpause failed (500 after SQLite's
        # 5 s lock wait) and left the run queued on a paused DAG
        _wait(
            lambda: not _api(base, "/dags/redo_pipeline", {"is_paused": False}, "PATCH")["is_paused"],
            60, "redo_pipeline unpaused", logs_dir / "api-server.log",
        )  # fmt: skip
        expected = [json.loads(line) for line in out.trail.read_text().splitlines() if line]
        yield Stack(
            airflow=base, reports=f"http://127.0.0.1:{reports_port}", env=env, work=work, scenario=scenario,
            logs=sorted(out.logs), expected=expected, logs_dir=logs_dir,
        )  # fmt: skip
    finally:
        for proc in procs:  # each in its own session: the group holds its workers
            try:
                os.killpg(proc.pid, signal.SIGTERM)
            except ProcessLookupError:
                continue
        for proc in procs:
            try:
                proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)


@pytest.fixture(scope="module")
def browser(stack: Stack) -> Iterator[Any]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        chromium = p.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            yield chromium
        finally:
            chromium.close()


class Offline:
    """A browser context whose requests leave 127.0.0.1 never: each such request is aborted and kept."""

    def __init__(self, browser: Any) -> None:
        self.blocked: list[str] = []
        self.context = browser.new_context(viewport={"width": 1400, "height": 1000})
        self.context.set_default_timeout(90_000)  # two busy cores: the UI's first load can take a while
        self.context.route("**/*", self._route)

    def _route(self, route: Any) -> None:
        url = route.request.url
        if re.match(r"^(https?://(127\.0\.0\.1|localhost)[:/]|data:|blob:|about:)", url):
            route.continue_()
        else:
            self.blocked.append(url)
            route.abort()


def _shot(page: Any, name: str, *, full_page: bool = False) -> Path:
    SHOTS.mkdir(parents=True, exist_ok=True)
    path = SHOTS / f"{name}.png"
    page.screenshot(path=str(path), full_page=full_page)
    return path


def _long_xid(stack: Stack) -> str:
    (xid,) = {
        r["xid"]
        for r in stack.expected
        if r["table"] == "EVENTS" and r["columns"].get("KIND") == "batch-start"
    }
    return str(xid)


def _long_changes_before(scenario: Any, switches: int) -> int:
    count, seen = 0, 0
    for step in scenario.steps:
        if isinstance(step, Switch):
            seen += 1
            if seen == switches:
                return count
        elif isinstance(step, Insert | Update | Delete) and step.session == "batch":
            count += 1
    return count


def test_backfill_from_the_trigger_form_and_the_reports_offline(stack: Stack, browser: Any) -> None:
    offline = Offline(browser)
    page = offline.context.new_page()

    # 1. the DAG page and its docs (doc_md)
    page.goto(f"{stack.airflow}/dags/redo_pipeline")
    page.get_by_role("button", name="Trigger").wait_for(timeout=60_000)
    page.get_by_role("button", name="Dag Docs").click()
    docs = page.get_by_role("dialog")
    docs.get_by_text("one batch of archived logs, from redo to published tables").wait_for()
    assert docs.get_by_text("backfill", exact=False).first.is_visible()
    _shot(page, "airflow-dag-docs")
    page.keyboard.press("Escape")

    # 2. the trigger form: a backfill of sequences 1-2 by its fields
    page.get_by_role("button", name="Trigger").click()
    form = page.get_by_role("dialog")
    form.get_by_text("First sequence").wait_for()
    form.locator('input[name="element_seq_from"]').fill(str(SEQ_FROM))
    form.locator('input[name="element_seq_to"]').fill(str(SEQ_TO))
    _shot(page, "airflow-trigger-form", full_page=True)
    form.get_by_role("button", name="Trigger").click()
    run = _wait(
        lambda: next(
            (r for r in _api(stack.airflow, "/dags/redo_pipeline/dagRuns")["dag_runs"] if r["state"] in ("success", "failed")),
            None,
        ),
        420, "the triggered run to finish", stack.logs_dir / "scheduler.log",
    )  # fmt: skip
    assert run["conf"].get("seq_from") == SEQ_FROM and run["conf"].get("seq_to") == SEQ_TO, run["conf"]
    run_id = run["dag_run_id"]
    log = _task_log(stack, run_id, "report")
    assert run["state"] == "success", log[-4000:]
    # the report task's log: the long transaction warned about, the links to the reports
    age = _long_age(stack)
    assert f"long-running transaction {_long_xid(stack)} open for {render_age(age)}" in log
    assert "operations report: " + str(stack.work / "reports" / "index.html") in log

    page.goto(f"{stack.airflow}/dags/redo_pipeline/runs/{run_id}")
    page.get_by_text("report").first.wait_for()
    page.get_by_text("Success", exact=False).first.wait_for()
    _shot(page, "airflow-run")

    # 3. the operations report
    batch_id = f"b-{SEQ_FROM:06d}-{SEQ_TO:06d}"
    page.goto(f"{stack.reports}/reports/index.html")
    page.locator("#lag-plot[data-rendered=true] svg").wait_for()
    page.locator("#throughput-plot[data-rendered=true] svg").wait_for()
    row = page.locator("#batches tbody tr", has_text=batch_id)
    cells = row.locator("td").all_inner_texts()
    size = sum(p.stat().st_size for p in stack.logs[SEQ_FROM - 1 : SEQ_TO])
    assert cells[2] == "published" and cells[3] == str(SEQ_TO - SEQ_FROM + 1), cells
    assert cells[4] == f"{size / 1e6:.2f}", cells
    txn = page.locator("#open-transactions tbody tr").all_inner_texts()
    assert len(txn) == 1, txn
    fields = page.locator("#open-transactions tbody tr td").all_inner_texts()
    assert fields[0] == _long_xid(stack) and fields[4] == render_age(age)
    assert fields[5] == str(_long_changes_before(stack.scenario, SEQ_TO)), fields
    assert page.locator(".long-transaction").count() == 1
    # both plots carry marks: a line point per finished batch, a bar per batch that got through
    assert page.locator("#throughput-plot svg .mark-rect path").count() >= 1
    assert page.locator("#lag-plot svg .mark-symbol path").count() >= 1
    _shot(page, "operations-report", full_page=True)

    # 4. the batch's Data Docs, from the report's link: both tables drawn by bootstrap-table
    row.get_by_role("link", name="Data Docs").click()
    page.locator(".bootstrap-table table tbody tr", has_text=batch_id).first.wait_for()
    assert page.locator("[id=redotrail-operations-link]").count() == 1
    (warning,) = page.locator(".redotrail-long-transaction").all_inner_texts()
    assert f"long-running transaction {_long_xid(stack)} open for {render_age(age)}" in warning
    _shot(page, "data-docs-index")
    page.locator(".bootstrap-table table tbody tr", has_text=batch_id).first.locator("td").first.click()
    page.get_by_text("Table-Level Expectations").first.wait_for()
    rules = page.locator(".bootstrap-table tbody tr", has_text="Rule 2:")
    assert rules.count() >= 1
    # styled: Bootstrap's stylesheet applied (its body font, not the browser's default serif)
    font = page.evaluate("getComputedStyle(document.body).fontFamily")
    assert "serif" not in font.replace("sans-serif", ""), font
    _shot(page, "data-docs-validation")

    assert offline.blocked == [], f"requests that left the machine: {offline.blocked}"
    offline.context.close()


def _long_age(stack: Stack) -> int:
    """The long transaction's age after the logs of the backfill: each of them ends SLEEP_S later."""
    return SEQ_TO * SLEEP_S


def _task_log(stack: Stack, run_id: str, task: str) -> str:
    """The task's log (try 1) through the REST API, one line per structured log entry."""
    doc = _api(
        stack.airflow, f"/dags/redo_pipeline/dagRuns/{run_id}/taskInstances/{task}/logs/1?full_content=true"
    )
    lines = []
    for item in doc.get("content") or []:
        lines.append(item.get("event", "") if isinstance(item, dict) else str(item))
    return "\n".join(lines)
