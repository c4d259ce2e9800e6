"""Stage 1, decode: every (log, block range) of the batch is one Spark task.

Reads ``<batch>/manifest.json``; cuts each log into ranges of ``--range-mb`` (default 64); each task
reads only its own range (seek for local files, boto3 ranged GETs for ``s3://``) and writes its change
events to ``<batch>/staging/events/<unit>.parquet`` straight from the core's Arrow batches
(``redo_lib.batches.decode_unit``, one Spark task each; boto3 when the batch is on S3), in row groups
of one transaction-slot bucket each (``--buckets``; assemble packs them into its tasks), handing Spark one result
row per range: the events never pass through Spark's rows. Where each unit's buckets are goes to
``<batch>/staging/units.json``, the assemble stage's input. The per-log counters (records, vectors by opcode, skipped items, corrupt ranges)
and the vectors of tables the decoder cannot read (``unsupported_vectors``) go to
``<batch>/staging/logs.json``.

    spark-submit spark_jobs/decode.py --batch-dir DIR [--range-mb 64] [--skip-corrupt] [--buckets N]
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import dataclass
from typing import Any

from redo_lib.batches import (
    UNIT_EXCHANGE,
    decode_unit,
    load_manifest,
    plan_units,
)
from redo_lib.exchange import DEFAULT_BUCKETS
from spark_jobs.common import BatchDir, build_session, run_stage, run_tasks, ship_library


@dataclass(frozen=True)
class JobArgs:
    batch_dir: str
    range_mb: float
    skip_corrupt: bool
    buckets: int | None


def parse_args(argv: list[str] | None) -> JobArgs:
    parser = argparse.ArgumentParser(prog="decode", description=__doc__.splitlines()[0])
    parser.add_argument("--batch-dir", required=True, help="local folder or s3:// prefix of the batch")
    parser.add_argument("--range-mb", type=float, default=64.0, help="block range per task (MB)")
    parser.add_argument("--skip-corrupt", action="store_true", help="count damaged ranges and go on")
    parser.add_argument(
        "--buckets", type=int, default=None,
        help=f"transaction-slot buckets, packed into assemble tasks (default {DEFAULT_BUCKETS})",
    )  # fmt: skip
    ns = parser.parse_args(argv)
    return JobArgs(str(ns.batch_dir), ns.range_mb, ns.skip_corrupt, ns.buckets)


def main(argv: list[str] | None = None, *, spark: Any = None) -> int:
    args = parse_args(argv)
    return run_stage("decode", args.batch_dir, lambda: run(args, spark=spark))


def per_log(results: list[dict[str, Any]]) -> dict[str, Any]:
    """The units' results summed per log: ``staging/logs.json``."""
    out: dict[str, Any] = {}
    for result in sorted(results, key=lambda r: (r["unit"]["location"], r["unit"]["first_block"])):
        unit = result["unit"]
        entry = out.setdefault(
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
        # vectors that may be a table's change the decoder cannot read (redo_lib/unsupported.py)
        vectors = entry.setdefault("unsupported_vectors", {})
        for key, n in report.get("unsupported_vectors", {}).items():
            vectors[key] = vectors.get(key, 0) + n
        entry["skipped"] += report["skipped"]
        entry["corrupt_ranges"] += report["corrupt_ranges"]
    return out


def run(args: JobArgs, *, spark: Any = None) -> int:

    batch = BatchDir(args.batch_dir)
    manifest = load_manifest(batch.uri)
    session = build_session(f"redotrail-decode-{manifest.batch_id}", spark=spark)
    ship_library(session)
    units = plan_units(manifest, int(args.range_mb * (1 << 20)))
    batch.remove_tree("staging")  # a rerun replaces (staged events, logs.json, assemble's scratch)
    policy = "skip" if args.skip_corrupt else "raise"
    batch_uri = batch.uri
    buckets = max(args.buckets or DEFAULT_BUCKETS, 1)
    # one task per block range; each writes its events itself and hands back its result document
    results = run_tasks(session, units, lambda unit: decode_unit(unit, batch_uri, policy, buckets))
    logs = per_log(results)
    batch.write_text(json.dumps(logs, indent=2, sort_keys=True), "staging", "logs.json")
    # where every unit's events went, by bucket: what the assemble tasks read (redo_lib/exchange.py)
    units_doc = {
        "buckets": buckets,
        "units": [{**r["unit"], **{k: r[k] for k in UNIT_EXCHANGE}} for r in results],
    }
    batch.write_text(json.dumps(units_doc), "staging", "units.json")
    total = sum(e["events"] for e in logs.values())
    print(f"decode {manifest.batch_id}: {len(manifest.logs)} logs, {len(units)} tasks, {total} events")
    return 0


if __name__ == "__main__":
    sys.exit(main())
