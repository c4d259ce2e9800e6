"""Spark decode + assemble: MB of redo per second end to end, 1 core against 2, and peak memory.

Generates a random workload of ``--size`` (redo_lib.synth, once, cached in ``--work``; with
``--one-transaction`` the whole workload is one transaction), writes a batch manifest for its first
``--logs`` logs (all by default; a prefix of the sequence is a valid batch: the transactions still
open at its end are carried out), then runs ``spark-submit spark_jobs/decode.py`` and
``assemble.py`` with ``--master local[N]`` for each N of ``--cores``, timing each stage. Memory:
``peak_process_rss_mb`` is the largest resident set of any process of the run (the driver JVM, in
practice: RUSAGE_CHILDREN), ``peak_python_worker_rss_mb`` the largest Python worker of assembly (from
``counts.json``: each assembly task records its worker's high-water mark) and
``peak_python_worker_rss_mb_with_merge`` the same after the commit-order merge tasks too. ``--single`` also times the
single-process decode (``python -m redo_lib decode``), the reference.

    .venv/bin/python bench/bench_spark.py --size 5GB --logs 16 --cores 1 2
    .venv/bin/python bench/bench_spark.py --size 2GB --one-transaction --cores 2

``--through publish`` runs validate (Great Expectations) and publish (Iceberg, or ``--format
delta``, into a fresh local warehouse) after them, each its own ``spark-submit`` as well, so the
whole batch's stages are timed; ``--code DIR`` runs the stages of another checkout of the project
(``git worktree add DIR <commit>``) on the same workload and manifest: a before/after comparison in
one session on one machine.

    .venv/bin/python bench/bench_spark.py --size 1GB --cores 2 --through publish --code /tmp/rt-before

``cpu_s`` is the machine's busy CPU time during a run (``/proc/stat``: on a quiet machine the run's
JVMs and Python workers) beside its stages' wall seconds; ``--event-log DIR`` keeps each application's Spark event log, which
``bench/spark_eventlog.py`` turns into a profile (jobs, task seconds, the driver's own time).
``--pin`` runs each application on exactly N of the machine's CPUs (``taskset``): ``local[1]`` alone
gives Spark one task slot, while the JVM (start, JIT compilers, scheduling) works on the other cores.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import shutil
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from redo_lib.batches import LogEntry, Manifest, write_manifest  # noqa: E402
from redo_lib.pipeline import describe_logs  # noqa: E402

STAGES = ("decode", "assemble", "validate", "publish")


def _run(cmd: list[str], env: dict[str, str], log: Path, cwd: Path = REPO) -> float:
    started = time.monotonic()
    with log.open("w") as out:
        done = subprocess.run(cmd, check=False, env=env, cwd=cwd, stdout=out, stderr=subprocess.STDOUT)
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(cmd[-6:])} exited {done.returncode}: see {log}")
    return time.monotonic() - started


def _stage_seconds(log: Path, stage: str) -> float:
    """A stage's seconds from batch.py's log line ``batch <id>: <stage> done in N s``."""
    for line in log.read_text().splitlines():
        found = re.match(rf"batch \S+: {stage} done in ([0-9.]+) s", line)
        if found:
            return float(found.group(1))
    raise SystemExit(f"no '{stage} done' line in {log}")


def _describe(code: Path) -> str:
    """The checkout's commit (and ``+changes`` when its tree differs from it)."""
    head = subprocess.run(["git", "-C", str(code), "rev-parse", "--short", "HEAD"], capture_output=True,
                          text=True, check=False).stdout.strip()  # fmt: skip
    dirty = subprocess.run(["git", "-C", str(code), "status", "--porcelain", "--untracked-files=no"],
                           capture_output=True, text=True, check=False).stdout.strip()  # fmt: skip
    return head + ("+changes" if dirty else "")


def _machine_cpu_s() -> float:
    """CPU seconds the machine has spent busy since boot, every core and process (``/proc/stat``:
    user, nice, system, irq, softirq, steal). A run's Python workers are the JVM's grandchildren and
    not always reaped, so ``RUSAGE_CHILDREN`` misses them; on a quiet machine the difference over a
    run is the run's own CPU time."""
    fields = Path("/proc/stat").read_text().splitlines()[0].split()[1:]
    user, nice, system, _idle, _iowait, irq, softirq, steal = (int(x) for x in fields[:8])
    return (user + nice + system + irq + softirq + steal) / os.sysconf("SC_CLK_TCK")


def _peak_children_mb() -> float:
    return resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", default="200MB", help="generated redo volume, e.g. 1GB")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--one-transaction", action="store_true", help="the whole workload in one transaction"
    )
    parser.add_argument("--logs", type=int, default=None, help="use only the first N logs")
    parser.add_argument("--cores", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--range-mb", type=float, default=64.0, help="decode block range per task")
    parser.add_argument("--driver-memory", default="2g")
    parser.add_argument("--single", action="store_true", help="also time the single-process decode")
    parser.add_argument("--work", type=Path, default=Path("/tmp/redotrail-bench-spark"))
    parser.add_argument(
        "--event-log",
        type=Path,
        default=None,
        help="write each application's Spark event log here (bench/spark_eventlog.py reads it)",
    )
    parser.add_argument("--through", choices=STAGES, default="assemble", help="last stage to time")
    parser.add_argument("--format", choices=("iceberg", "delta"), default="iceberg", help="publish's tables")
    parser.add_argument("--code", type=Path, default=REPO, help="the checkout whose spark_jobs/ run")
    parser.add_argument(
        "--one-application", action="store_true",
        help="run the stages in one spark-submit of batch.py (as the DAG does), not one each",
    )  # fmt: skip
    parser.add_argument(
        "--pin", action="store_true",
        help="run each application on exactly N CPUs (taskset -c 0..N-1): with local[1] alone the "
        "JVM still works on the other cores",
    )  # fmt: skip
    args = parser.parse_args()
    if args.pin and max(args.cores) > (os.cpu_count() or 1):
        parser.error(f"--pin: this machine has {os.cpu_count()} CPUs, --cores asks for {max(args.cores)}")
    code = args.code.resolve()
    label = f"synth-{args.size}-{args.seed}" + ("-one" if args.one_transaction else "")
    synth = args.work / label
    py = sys.executable
    if not (synth / "expected" / "trail.jsonl").exists():
        extra = ["--one-transaction"] if args.one_transaction else []
        subprocess.run([py, "-m", "redo_lib.synth", "--random", "--seed", str(args.seed), "--size", args.size,
                        "--no-steps", *extra, "--out", str(synth)], check=True, cwd=REPO)  # fmt: skip
    logs = sorted((synth / "logs").glob("*.arc"), key=lambda p: [int(x) for x in p.stem.split("_")[:2]])
    logs = logs[: args.logs] if args.logs else logs
    total = sum(p.stat().st_size for p in logs)
    refs = describe_logs(logs)
    env = dict(os.environ, PATH=f"{Path(py).parent}:{os.environ['PATH']}", SPARK_LOCAL_IP="127.0.0.1",
               PYSPARK_PYTHON=py, TZ="UTC", PYTHONPATH=str(code))  # fmt: skip
    stages = STAGES[: STAGES.index(args.through) + 1]
    results: dict = {"workload": label, "logs": len(logs), "size_bytes": total, "range_mb": args.range_mb,
                     "code": _describe(code), "stages": stages, "pinned": args.pin, "runs": []}  # fmt: skip
    print(json.dumps({k: v for k, v in results.items() if k != "runs"}), flush=True)
    # ``cat`` on the same files, side by side: once to bring them into the page cache (where the
    # stages then find them too), then timed
    for timed in (False, True):
        started = time.monotonic()
        subprocess.run(["cat", *map(str, logs)], stdout=subprocess.DEVNULL, check=True)
        if timed:
            t = time.monotonic() - started
            results["cat"] = {"seconds": round(t, 2), "mb_s": round(total / 1e6 / t, 1)}
            print(json.dumps({"cat": results["cat"]}), flush=True)
    if args.single:
        cmd = [
            py,
            "-m",
            "redo_lib",
            "decode",
            *map(str, logs),
            "--dictionary",
            str(synth / "dictionary.json"),
        ]
        t = _run(cmd, env, args.work / f"{label}-single.log")
        results["single_process"] = {"seconds": round(t, 1), "mb_s": round(total / 1e6 / t, 2)}
        print(json.dumps(results["single_process"]), flush=True)
    for cores in args.cores:
        cpu_before = _machine_cpu_s()
        batch = args.work / f"batch-{label}-{cores}"
        entries = tuple(
            LogEntry(thread=r.thread, sequence=r.sequence, resetlogs_id=r.resetlogs_id, location=r.location)
            for r in refs
        )
        shutil.rmtree(batch, ignore_errors=True)  # a fresh batch folder: no marker of an earlier run
        write_manifest(
            batch,
            Manifest(batch_id=f"bench-{cores}", logs=entries, dictionary=str(synth / "dictionary.json")),
        )
        pinned = ["taskset", "-c", f"0-{cores - 1}"] if args.pin else []
        submit = [*pinned, str(Path(py).with_name("spark-submit")), "--master", f"local[{cores}]",
                  "--driver-memory", args.driver_memory]  # fmt: skip
        if args.event_log:
            args.event_log.mkdir(parents=True, exist_ok=True)
            submit += ["--conf", "spark.eventLog.enabled=true", "--conf",
                       f"spark.eventLog.dir=file://{args.event_log.resolve()}"]  # fmt: skip
        options = {
            "decode": ["--range-mb", str(args.range_mb)],
            "publish": ["--warehouse", f"file://{batch}-warehouse", "--format", args.format],
        }
        shutil.rmtree(f"{batch}-warehouse", ignore_errors=True)
        if args.one_application:
            # one JVM for every stage, as the DAG runs a batch; the stages' seconds from its log
            log = batch.with_suffix(".batch.log")
            flags = {"decode": ["--range-mb", str(args.range_mb)],
                     "publish": ["--warehouse", f"file://{batch}-warehouse", "--format", args.format]}  # fmt: skip
            wall = _run([*submit, str(code / "spark_jobs" / "batch.py"), "--batch-dir", str(batch),
                         "--stages", ",".join(stages), *(f for stage in stages for f in flags.get(stage, []))],
                        env, log, code)  # fmt: skip
            seconds = {stage: _stage_seconds(log, stage) for stage in stages}
            seconds[stages[0]] += wall - sum(seconds.values())  # JVM start and session: the first's
        else:
            seconds = {
                stage: _run(
                    [
                        *submit,
                        str(code / "spark_jobs" / f"{stage}.py"),
                        "--batch-dir",
                        str(batch),
                        *options.get(stage, []),
                    ],
                    env,
                    batch.with_suffix(f".{stage}.log"),
                    code,
                )  # fmt: skip
                for stage in stages
            }
        decode = seconds["decode"]
        run = {"cores": cores, **{f"{stage}_s": round(t, 1) for stage, t in seconds.items()},
               "decode_mb_s": round(total / 1e6 / decode, 2),
               "events": sum(e["events"] for e in json.loads((batch / "staging" / "logs.json").read_text()).values()),
               "events_parquet_bytes": sum(p.stat().st_size for p in (batch / "staging" / "events").glob("*.parquet")),
               "peak_process_rss_mb": round(_peak_children_mb(), 1),
               # the machine's busy CPU seconds during the run (the JVMs and their Python workers, on a
               # quiet machine) against its wall seconds: how busy the cores were
               "cpu_s": round(_machine_cpu_s() - cpu_before, 1)}  # fmt: skip
        if "assemble" in seconds:
            counts = json.loads((batch / "counts.json").read_text())
            run.update({
                "end_to_end_mb_s": round(total / 1e6 / (decode + seconds["assemble"]), 2),
                "whole_batch_mb_s": round(total / 1e6 / sum(seconds.values()), 2),
                "peak_python_worker_rss_mb": counts.get("resources", {}).get("peak_rss_mb"),
                "peak_python_worker_rss_mb_with_merge": counts.get("resources", {}).get("peak_rss_mb_merge"),
                "trail_records": sum(sum(v.values()) for v in counts["trail"].values()),
                "transactions": counts.get("transactions", {}).get("emitted", 0),
                "open_carried_out": counts.get("transactions", {}).get("open_carried_out", 0),
            })  # fmt: skip
        results["runs"].append(run)
        print(json.dumps(results["runs"][-1]), flush=True)
    if len(results["runs"]) > 1 and "assemble" in stages:
        one, two = results["runs"][0], results["runs"][-1]
        results["speedup"] = round(
            (one["decode_s"] + one["assemble_s"]) / (two["decode_s"] + two["assemble_s"]), 2
        )
    print(json.dumps(results, indent=2))
    out = args.work / f"results-{label}-{args.logs or 'all'}.json"
    out.write_text(json.dumps(results, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
