"""Stage 1, decode: every (log, block range) of the batch is one Spark task.

Reads ``<batch>/manifest.json``; cuts each log into ranges of ``--range-mb`` (default 64); each task
reads only its own range (seek for local files, boto3 ranged GETs for ``s3://``) and writes its
change events to ``<batch>/staging/events/<unit>.parquet``. The per-log counters (records, vectors
by opcode, skipped items, corrupt ranges) go to ``<batch>/staging/logs.json``.

    spark-submit spark_jobs/decode.py --batch-dir DIR [--range-mb 64] [--skip-corrupt]
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from redo_lib.batches import decode_unit, load_manifest, plan_units
from spark_jobs.common import build_session, carry_errors, reset_dir, run_stage, ship_library


@dataclass(frozen=True)
class JobArgs:
    batch_dir: Path
    range_mb: float
    skip_corrupt: bool


def parse_args(argv: list[str] | None) -> JobArgs:
    parser = argparse.ArgumentParser(prog="decode", description=__doc__.splitlines()[0])
    parser.add_argument("--batch-dir", type=Path, required=True)
    parser.add_argument("--range-mb", type=float, default=64.0, help="block range per task (MB)")
    parser.add_argument("--skip-corrupt", action="store_true", help="count damaged ranges and go on")
    ns = parser.parse_args(argv)
    return JobArgs(ns.batch_dir, ns.range_mb, ns.skip_corrupt)


def main(argv: list[str] | None = None, *, spark: Any = None) -> int:
    args = parse_args(argv)
    return run_stage("decode", args.batch_dir, lambda: run(args, spark=spark))


def run(args: JobArgs, *, spark: Any = None) -> int:
    manifest = load_manifest(args.batch_dir)
    session = build_session(f"redotrail-decode-{manifest.batch_id}", spark=spark)
    ship_library(session)
    units = plan_units(manifest, int(args.range_mb * (1 << 20)))
    reset_dir(args.batch_dir / "staging")
    batch_dir, policy = str(args.batch_dir), "skip" if args.skip_corrupt else "raise"
    results = (
        session.sparkContext.parallelize(units, max(len(units), 1))
        .map(carry_errors(lambda unit: decode_unit(unit, batch_dir, policy)))
        .collect()
    )
    per_log: dict[str, Any] = {}
    for result in results:
        unit = result["unit"]
        entry = per_log.setdefault(
            f"{unit['thread']}_{unit['sequence']}",
            {"location": unit["location"], "units": 0, "events": 0, "records": 0, "bytes": 0,
             "vectors_by_opcode": {}, "skipped": [], "corrupt_ranges": []},
        )  # fmt: skip
        report = result["report"]
        entry["units"] += 1
        entry["events"] += result["events"]
        entry["records"] += report["records"]
        entry["bytes"] += report["bytes"]
        for op, n in report["vectors_by_opcode"].items():
            entry["vectors_by_opcode"][op] = entry["vectors_by_opcode"].get(op, 0) + n
        entry["skipped"] += report["skipped"]
        entry["corrupt_ranges"] += report["corrupt_ranges"]
    (args.batch_dir / "staging" / "logs.json").write_text(json.dumps(per_log, indent=2, sort_keys=True))
    total = sum(e["events"] for e in per_log.values())
    print(f"decode {manifest.batch_id}: {len(manifest.logs)} logs, {len(units)} tasks, {total} events")
    return 0


if __name__ == "__main__":
    sys.exit(main())
