"""Where a Spark application's time went, from its event log: a stage's profile without a UI.

Run a stage with ``--conf spark.eventLog.enabled=true --conf spark.eventLog.dir=file:///tmp/evlog``
(or ``bench_spark.py --event-log DIR``), then::

    .venv/bin/python bench/spark_eventlog.py /tmp/evlog/eventlog_v2_local-1234567890

prints the application's wall time, every SQL execution and Spark job over a threshold (start
offset, wall seconds, task count, the summed task seconds, and its description or call site), and
the time no job ran (the driver's own work: planning, Python, commits, JVM start). Task seconds
against wall seconds say whether a job kept the cores busy.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import defaultdict
from pathlib import Path


def load(path: Path) -> list[dict]:
    """The events of a log file, or of a rolling log's folder (``eventlog_v2_<id>/events_N_<id>``,
    zstd-compressed by Spark's default codec)."""
    files = (
        sorted(path.glob("events_*"), key=lambda p: int(p.name.split("_")[1])) if path.is_dir() else [path]
    )
    events = []
    for file in files:
        data = file.read_bytes()
        if file.suffix == ".zstd":
            import zstandard  # a dependency of the pinned stack (requirements.txt)

            data = zstandard.ZstdDecompressor().stream_reader(data).read()
        events += [json.loads(line) for line in data.decode().splitlines() if line.strip()]
    return events


def profile(events: list[dict], threshold: float) -> str:
    app_start = app_end = None
    jobs: dict[int, dict] = {}
    stage_job: dict[int, int] = {}
    sql: dict[int, dict] = {}
    for e in events:
        kind = e["Event"]
        if kind == "SparkListenerApplicationStart":
            app_start = e["Timestamp"]
        elif kind == "SparkListenerApplicationEnd":
            app_end = e["Timestamp"]
        elif kind == "SparkListenerJobStart":
            props = e.get("Properties") or {}
            jobs[e["Job ID"]] = {
                "start": e["Submission Time"], "end": None, "tasks": 0, "task_ms": 0,
                "what": props.get("spark.job.description") or props.get("callSite.short") or "",
                "sql": props.get("spark.sql.execution.id"),
            }  # fmt: skip
            for stage in e.get("Stage IDs", []):
                stage_job[stage] = e["Job ID"]
        elif kind == "SparkListenerJobEnd":
            jobs[e["Job ID"]]["end"] = e["Completion Time"]
        elif kind == "SparkListenerTaskEnd":
            job = jobs.get(stage_job.get(e["Stage ID"], -1))
            info = e.get("Task Info") or {}
            if job is not None and info.get("Finish Time"):
                job["tasks"] += 1
                job["task_ms"] += info["Finish Time"] - info["Launch Time"]
        elif kind.endswith("SparkListenerSQLExecutionStart"):
            sql[e["executionId"]] = {"start": e["time"], "end": None, "what": e.get("description", "")}
        elif kind.endswith("SparkListenerSQLExecutionEnd") and e["executionId"] in sql:
            sql[e["executionId"]]["end"] = e["time"]
    if app_start is None:
        raise SystemExit("no SparkListenerApplicationStart in the event log")
    end = app_end or max([j["end"] or j["start"] for j in jobs.values()] + [app_start])
    out = [f"application: {(end - app_start) / 1000:.1f} s wall, {len(jobs)} jobs, {len(sql)} SQL executions"]
    # busy: the union of the jobs' intervals; the rest is the driver's own time
    intervals = sorted((j["start"], j["end"] or end) for j in jobs.values())
    busy, cursor = 0, app_start
    for a, b in intervals:
        a = max(a, cursor)
        if b > a:
            busy += b - a
            cursor = b
    out.append(
        f"jobs running: {busy / 1000:.1f} s; no job running (driver, JVM start): {(end - app_start - busy) / 1000:.1f} s"
    )
    per_sql: dict[str, list[int]] = defaultdict(list)
    for job in jobs.values():
        if job["sql"] is not None:
            per_sql[job["sql"]].append(job["task_ms"])
    out.append("")
    out.append("SQL executions (start offset s, wall s, task s, description):")
    for key, ex in sorted(sql.items()):
        wall = ((ex["end"] or end) - ex["start"]) / 1000
        if wall >= threshold:
            task = sum(per_sql.get(str(key), [])) / 1000
            what = " ".join(str(ex["what"]).split())[:110]
            out.append(f"  {(ex['start'] - app_start) / 1000:7.1f} {wall:7.1f} {task:7.1f}  {what}")
    out.append("")
    out.append("jobs (start offset s, wall s, tasks, task s, description or call site):")
    for _, job in sorted(jobs.items()):
        wall = ((job["end"] or end) - job["start"]) / 1000
        if wall >= threshold:
            what = " ".join(str(job["what"]).split())[:100]
            out.append(f"  {(job['start'] - app_start) / 1000:7.1f} {wall:7.1f} {job['tasks']:5d} "
                       f"{job['task_ms'] / 1000:7.1f}  {what}")  # fmt: skip
    return "\n".join(out)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "log", type=Path, help="an event log: spark.eventLog.dir/eventlog_v2_<application id>"
    )
    parser.add_argument("--threshold", type=float, default=0.5, help="list what took at least this (s)")
    args = parser.parse_args()
    print(profile(load(args.log), args.threshold))
    return 0


if __name__ == "__main__":
    sys.exit(main())
