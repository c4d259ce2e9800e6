"""The operations report: one HTML page across batches, published beside the batch folders.

``<work>/reports/index.html``: the lag per thread, the logs discovery did not plan (gaps, rejected,
duplicate, waiting and gone objects, each with its reason), the lag over time and the throughput per
batch as plots (altair: Vega-Lite specs rendered in the browser by the vendored Vega scripts), the
open transactions carried now, every batch with its Data Docs, the failed trail-contract rules and
the last failure. The page is a jinja2 template (``templates/history.html.j2``); the numbers are those of
:func:`redo_lib.status.collect_status`. It loads nothing from the network: its scripts and
stylesheet are copied to ``<work>/reports/static/vendor/`` (:mod:`redo_lib.reports.assets`).

The pipeline's ``report`` task rewrites it after every batch; each batch's Data Docs link to it
(:func:`link_data_docs`). Layer "top".
"""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Mapping, Sequence
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from redo_lib.reports.assets import BOOTSTRAP_CSS, SITE_VENDOR, VEGA, vendor_dir
from redo_lib.status import (
    DEFAULT_WARN_LONG_TRANS_S,
    collect_status,
    render_age,
    render_duration,
)
from redo_lib.storage.catalog import LogCatalog, join_location, object_exists, read_text, write_text

if TYPE_CHECKING:
    import jinja2

REPORT_DIR = "reports"  # under the work folder
REPORT_PAGE = "index.html"
# from <work>/batches/<id>/report/docs/index.html to <work>/reports/index.html, and back
FROM_DATA_DOCS = f"../../../../{REPORT_DIR}/{REPORT_PAGE}"
TO_DATA_DOCS = "../batches/{batch_id}/report/docs/index.html"
LINK_MARK = 'id="redotrail-operations-link"'


def report_location(work_dir: str) -> str:
    return join_location(work_dir, REPORT_DIR, REPORT_PAGE)


def _spec_json(chart: Any) -> str:
    return json.dumps(chart.to_dict(validate=False)).replace("</", "<\\/")  # never closes the script element


def lag_chart(batches: Sequence[Mapping[str, Any]]) -> Any:
    """Per finished batch: seconds from its newest redo to its end (x: when it finished)."""
    import altair as alt

    rows = []
    for b in batches:
        if b["finished"] and b["redo_end_time"]:
            finished = dt.datetime.fromisoformat(b["finished"])
            redo_end = dt.datetime.fromisoformat(b["redo_end_time"])
            lag = (finished - redo_end).total_seconds()
            rows.append({"batch": b["batch_id"], "finished": b["finished"], "lag_hours": lag / 3600})
    return (
        alt.Chart(alt.Data(values=rows))
        .mark_line(point=True)
        .encode(
            x=alt.X("finished:T", title="batch finished", axis=alt.Axis(format="%Y-%m-%d %H:%M")),
            y=alt.Y("lag_hours:Q", title="lag at finish (hours)"),
            tooltip=["batch:N", "finished:T", alt.Tooltip("lag_hours:Q", format=".2f")],
        )
        .properties(width="container", height=240)
    )


def throughput_chart(batches: Sequence[Mapping[str, Any]]) -> Any:
    """MB/s per batch that got through validation (a batch that failed early says nothing of speed)."""
    import altair as alt

    rows = [
        {"batch": b["batch_id"], "mb_per_s": b["mb_per_s"], "status": b["status"]}
        for b in batches
        if b["mb_per_s"] is not None and b["status"] in ("published", "validated")
    ]
    return (
        alt.Chart(alt.Data(values=rows))
        .mark_bar()
        .encode(
            x=alt.X("batch:N", sort=None, title="batch"),
            y=alt.Y("mb_per_s:Q", title="MB/s"),
            color=alt.Color("status:N"),
            tooltip=["batch:N", "status:N", alt.Tooltip("mb_per_s:Q", format=".3f")],
        )
        .properties(width="container", height=240)
    )


def _summary(batch_dir: str) -> dict[str, Any]:
    location = join_location(batch_dir, "report", "summary.json")
    try:
        return json.loads(read_text(location)) if object_exists(location) else {}
    except ValueError:
        return {}


@cache
def _templates() -> jinja2.Environment:
    """The templates' environment, built once (it caches the compiled template)."""
    import jinja2

    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(Path(__file__).with_name("templates")),
        autoescape=jinja2.select_autoescape(["html", "j2"]),
        undefined=jinja2.StrictUndefined,
    )
    env.filters["age"] = render_age
    env.filters["duration"] = render_duration
    return env


def render_history(status: Mapping[str, Any], batches: Sequence[Mapping[str, Any]], *, vendor: str) -> str:
    """The page's HTML: ``status`` from collect_status, ``batches`` its batch documents with
    ``data_docs`` (a link or None) and ``failed`` (the failed rules of report/summary.json)."""
    failed_rules = [{"batch_id": b["batch_id"], **rule} for b in batches for rule in b.get("failed") or ()]
    return (
        _templates()
        .get_template("history.html.j2")
        .render(
            status=status,
            batches=batches,
            failed_rules=failed_rules,
            threshold=render_age(status["warn_long_trans_s"]),
            vendor=vendor,
            bootstrap_css=BOOTSTRAP_CSS,
            vega_scripts=VEGA,
            lag_spec=_spec_json(lag_chart(batches)),
            throughput_spec=_spec_json(throughput_chart(batches)),
        )
    )


def write_history(
    catalog: LogCatalog,
    work_dir: str,
    *,
    warn_after_s: float = DEFAULT_WARN_LONG_TRANS_S,
    now: dt.datetime | None = None,
) -> str:
    """Write ``<work>/reports/index.html`` and its scripts; returns the page's location."""
    status = collect_status(catalog, warn_after_s=warn_after_s, now=now)
    batches = []
    for b in [dict(d) for d in status["batches"]["recent"]]:
        docs = join_location(b["batch_dir"], "report", "docs", "index.html")
        b["data_docs"] = TO_DATA_DOCS.format(batch_id=b["batch_id"]) if object_exists(docs) else None
        b["failed"] = _summary(b["batch_dir"]).get("failed") or []
        batches.append(b)
    html = render_history(status, batches, vendor="/".join(SITE_VENDOR))
    base = join_location(work_dir, REPORT_DIR)
    for rel in (BOOTSTRAP_CSS, *VEGA):
        _copy(vendor_dir() / rel, join_location(base, *SITE_VENDOR, *rel.split("/")))
    location = join_location(base, REPORT_PAGE)
    write_text(location, html)
    return location


def _copy(source: Path, location: str) -> None:
    if location.startswith("s3://"):
        from redo_lib.storage.s3 import write_object

        write_object(location, source.read_bytes())
        return
    target = Path(location)
    target.parent.mkdir(parents=True, exist_ok=True)
    if not target.exists() or target.stat().st_size != source.stat().st_size:
        target.write_bytes(source.read_bytes())


def link_data_docs(site: Path) -> bool:
    """Put a link to the operations report at the top of a batch's Data Docs index page (the site
    becomes ``<batch>/report/docs/``). Returns False when the page has no body to put it in."""
    page = site / "index.html"
    text = page.read_text(encoding="utf-8")
    if LINK_MARK in text or "<body>" not in text:
        return LINK_MARK in text
    link = (
        f'<div class="alert alert-info m-2" {LINK_MARK}>Operations report across batches (lag, open '
        f'transactions, throughput): <a href="{FROM_DATA_DOCS}">{REPORT_DIR}/{REPORT_PAGE}</a></div>'
    )
    page.write_text(text.replace("<body>", "<body>\n" + link, 1), encoding="utf-8")
    return True


WARN_MARK = ("<!-- redotrail long transactions -->", "<!-- /redotrail long transactions -->")


def annotate_data_docs(batch_dir: str, warnings: Sequence[str]) -> bool:
    """Put the batch's long-running transaction warnings at the top of its Data Docs index (after
    the link to the operations report), replacing those of an earlier run; none removes them.
    Returns False when the batch has no Data Docs."""
    import html

    location = join_location(batch_dir, "report", "docs", "index.html")
    if not object_exists(location):
        return False
    text = read_text(location)
    start, end = WARN_MARK
    if start in text and end in text:
        text = text[: text.index(start)] + text[text.index(end) + len(end) :]
    if warnings:
        block = "".join(
            f'<div class="alert alert-warning m-2 redotrail-long-transaction">WARNING: {html.escape(w)}</div>'
            for w in warnings
        )
        anchor = text.index("</div>", text.index(LINK_MARK)) + len("</div>") if LINK_MARK in text else None
        if anchor is None:
            anchor = text.index("<body>") + len("<body>") if "<body>" in text else 0
        text = text[:anchor] + start + block + end + text[anchor:]
    write_text(location, text)
    return True
