"""Small-batch latency on the embedded default: from logs uploaded to tables published.

Generates a small workload (``--steps`` random statements, a few MB of redo, one redo thread),
starts moto_server, uploads the archived logs and the dictionary, then times, as a user runs them,
``airflow dags test redo_archive_discovery`` (discover + plan) and ``airflow dags test
redo_pipeline -c '{"batch_id": ...}'`` for each planned batch (resolve, four stage submissions,
report). Prints one JSON document: redo bytes, batches, each command's seconds and the total, which
is what docs/benchmarks.md reports ("logs uploaded to tables published").

    .venv/bin/python bench/bench_latency.py --steps 400 --max-logs 64
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import shutil
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from redo_lib.embedded import Embedded  # noqa: E402
from redo_lib.storage.local_s3 import start_moto_server, stop  # noqa: E402
from redo_lib.storage.s3 import s3_client  # noqa: E402
from redo_lib.synth.generate import generate  # noqa: E402
from redo_lib.synth.randomized import random_scenario  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=400)
    parser.add_argument("--seed", type=int, default=5)
    parser.add_argument("--max-logs", type=int, default=64, help="REDOTRAIL_MAX_LOGS_PER_BATCH")
    parser.add_argument("--work", type=Path, default=Path("/tmp/redotrail-bench-latency"))
    args = parser.parse_args()
    shutil.rmtree(args.work, ignore_errors=True)
    scenario = random_scenario(args.seed, steps=args.steps, compat="19c", block_size=512, big_endian=False,
                               log_size=1 << 20, direct_load=False)  # fmt: skip
    scenario = dataclasses.replace(
        scenario, sessions=tuple(dataclasses.replace(s, thread=1) for s in scenario.sessions)
    )
    generated = generate(scenario, args.work / "scenario", record_steps=False)
    proc, url = start_moto_server()
    import os

    os.environ.update(AWS_ENDPOINT_URL=url, AWS_ACCESS_KEY_ID="redotrail", AWS_SECRET_ACCESS_KEY="redotrail",
                      AWS_DEFAULT_REGION="us-east-1")  # fmt: skip
    try:
        client = s3_client()
        client.create_bucket(Bucket="redo-archive")
        e = Embedded(
            root=args.work / "data", s3_url=url, dictionary=str(generated.dictionary),
            max_logs_per_batch=args.max_logs,
        )  # fmt: skip
        e.init()
        started = time.monotonic()
        for path in generated.logs:
            client.upload_file(str(path), "redo-archive", f"archive/{path.name}")
        timings: dict[str, float] = {}
        t = time.monotonic()
        e.discover()
        if not e.planned():  # a listing that saw an object change waits for a stable one
            e.discover()
        timings["discovery"] = time.monotonic() - t
        for batch_id in e.planned():
            t = time.monotonic()
            e.run_batch(batch_id)
            timings[batch_id] = time.monotonic() - t
        total = time.monotonic() - started
        published = [b.batch_id for b in e.catalog().batches() if b.status.value == "published"]
        print(json.dumps({
            "redo_bytes": generated.log_bytes, "logs": len(generated.logs), "records": generated.records,
            "batches_published": published, "seconds": {k: round(v, 1) for k, v in timings.items()},
            "total_seconds": round(total, 1),
        }, indent=2))  # fmt: skip
    finally:
        stop(proc)
    return 0


if __name__ == "__main__":
    sys.exit(main())
