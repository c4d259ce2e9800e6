"""What a Spark Python task costs before our code runs: ``--tasks`` tasks that do nothing, in
``local[1]``, with and without ``redo_lib.worker.task_start`` and the Unix socket between the JVM and
its Python workers (``spark.python.unix.domain.socket.enabled``, include/spark/spark-defaults.conf).

Each configuration runs in its own process (its own JVM and workers: the remedies stay in a worker
once applied). The tasks import what a stage's task imports (``redo_lib.batches``, pyarrow) before
they are timed, as the stages' workers hold them; wall seconds and the machine's busy CPU seconds
(``/proc/stat``) of the timed tasks.

    .venv/bin/python bench/bench_task_start.py --tasks 200
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
CONFIGURATIONS = (  # (label, Unix socket, task_start)
    ("TCP, no remedy (PySpark as shipped)", False, False),
    ("TCP, task_start", False, True),
    ("Unix socket, no remedy", True, False),
    ("Unix socket, task_start (the project's default)", True, True),
)


def one(tasks: int, unix_socket: bool, remedy: bool) -> dict[str, float]:
    """One configuration, in this process."""
    sys.path.insert(0, str(REPO))
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    sys.path.insert(0, str(REPO / "bench"))
    from bench_spark import _machine_cpu_s as machine_cpu_s  # the same reading as its runs' cpu_s
    from pyspark.sql import SparkSession

    from spark_jobs.common import spark_defaults

    builder = SparkSession.builder.master("local[1]").appName("bench-task-start")
    conf = {**spark_defaults(), "spark.python.unix.domain.socket.enabled": str(unix_socket).lower()}
    for key, value in conf.items():  # the stages' settings, the socket as asked
        builder = builder.config(key, value)
    session = builder.getOrCreate()

    def task(_: int) -> int:
        import pyarrow  # noqa: F401

        import redo_lib.batches  # noqa: F401

        if remedy:
            from redo_lib.worker import task_start

            task_start()
        return os.getpid()

    context = session.sparkContext
    context.parallelize(range(4), 4).map(task).collect()  # the worker started, its imports done
    cpu, started = machine_cpu_s(), time.monotonic()
    pids = context.parallelize(range(tasks), tasks).map(task).collect()
    wall, busy = time.monotonic() - started, machine_cpu_s() - cpu
    session.stop()
    return {"tasks": tasks, "workers": len(set(pids)), "wall_s": round(wall, 2), "cpu_s": round(busy, 2),
            "ms_per_task": round(1000 * wall / tasks, 1)}  # fmt: skip


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tasks", type=int, default=200)
    parser.add_argument("--one", nargs=2, metavar=("UNIX_SOCKET", "REMEDY"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:
        result = one(args.tasks, args.one[0] == "1", args.one[1] == "1")
        print("RESULT " + json.dumps(result), flush=True)
        return 0
    results = []
    for label, unix_socket, remedy in CONFIGURATIONS:
        done = subprocess.run(
            [sys.executable, __file__, "--tasks", str(args.tasks), "--one", str(int(unix_socket)), str(int(remedy))],
            capture_output=True, text=True, check=True, cwd=REPO,
        )  # fmt: skip
        line = next(x for x in done.stdout.splitlines() if x.startswith("RESULT "))
        results.append({"configuration": label, **json.loads(line.removeprefix("RESULT "))})
        print(json.dumps(results[-1]), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
