"""One batch in one Spark application: decode, assemble, validate and publish, in order, on one
SparkSession.

What the pipeline DAG submits. Each stage is still its own module with its own command line
(``spark_jobs/<stage>.py``, for re-running one stage by hand); this job calls their ``main`` one
after the other with a shared session, so a batch pays for one JVM start, one session with the
Iceberg and Delta extensions and one Python worker pool instead of four (docs/benchmarks.md:
small-batch latency). Stages hand each other nothing but the batch folder, as before: a stage
reads what the one before wrote there (local or ``s3a://``), so running them in one application or
in four gives the same result.

The first stage that fails stops the batch with its exit code and its ``report/failure.json``
(docs/pipeline-contract.md: 1 may pass on retry; 2, 3 and 4 will not). A retry runs the batch from
decode again: every stage replaces its own output and publishing is idempotent per publication.

    spark-submit spark_jobs/batch.py --batch-dir DIR [--warehouse URI] [--format iceberg|delta]
        [--stages decode,assemble,validate,publish] [stage options: see --help]
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # run as a script: make ``spark_jobs`` importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from spark_jobs import assemble, decode, publish, validate
from spark_jobs.common import BatchDir, build_session, shared_trails

STAGES: dict[str, Callable[..., int]] = {
    "decode": decode.main,
    "assemble": assemble.main,
    "validate": validate.main,
    "publish": publish.main,
}
# batch.py's options that are a stage's, passed on to that stage's command line as they are
STAGE_OPTIONS = {
    "decode": ("range_mb", "skip_corrupt", "buckets"),
    "assemble": ("partitions", "emit_unknown"),
    "validate": ("reports_url",),
    "publish": ("warehouse", "format", "catalog_uri", "catalog_property", "namespace"),
}


@dataclass(frozen=True)
class JobArgs:
    batch_dir: str
    stages: tuple[str, ...]
    stage_argv: dict[str, list[str]]


def _stages(text: str) -> tuple[str, ...]:
    names = tuple(s.strip() for s in text.split(",") if s.strip())
    unknown = [s for s in names if s not in STAGES]
    if unknown or not names:
        raise argparse.ArgumentTypeError(f"stages are a comma-separated subset of {','.join(STAGES)}")
    return tuple(s for s in STAGES if s in names)  # always in pipeline order


def parse_args(argv: list[str] | None) -> JobArgs:
    parser = argparse.ArgumentParser(prog="batch", description=__doc__.splitlines()[0])
    parser.add_argument("--batch-dir", required=True, help="local folder or s3:// prefix of the batch")
    parser.add_argument("--stages", type=_stages, default=tuple(STAGES), help="default: all four")
    stage = parser.add_argument_group("stage options (see each stage's --help)")
    stage.add_argument("--range-mb", help="decode: block range per task (MB)")
    stage.add_argument("--skip-corrupt", action="store_true", help="decode: count damaged ranges, go on")
    stage.add_argument("--buckets", help="decode: transaction-slot buckets (assemble packs them into tasks)")
    stage.add_argument("--partitions", help="assemble: tasks and commit ranges of the trail")
    stage.add_argument("--emit-unknown", action="store_true", help="assemble: emit unknown objects")
    stage.add_argument("--reports-url", help="validate: s3://bucket/prefix/ for a copy of the report")
    stage.add_argument("--warehouse", help="publish: warehouse URI")
    stage.add_argument("--format", help="publish: iceberg or delta")
    stage.add_argument("--catalog-uri", help="publish: Iceberg JDBC catalog URI")
    stage.add_argument("--catalog-property", action="append", metavar="KEY=VALUE", help="publish")
    stage.add_argument("--namespace", help="publish: the tables' namespace")
    ns = parser.parse_args(argv)
    stage_argv: dict[str, list[str]] = {}
    for name, options in STAGE_OPTIONS.items():
        out = ["--batch-dir", ns.batch_dir]
        for option in options:
            value = getattr(ns, option)
            flag = "--" + option.replace("_", "-")
            if value is True:
                out.append(flag)
            elif isinstance(value, list):
                out += [x for v in value for x in (flag, v)]
            elif value not in (None, False):
                out += [flag, str(value)]
        stage_argv[name] = out
    return JobArgs(ns.batch_dir, ns.stages, stage_argv)


def main(argv: list[str] | None = None, *, spark: Any = None) -> int:
    args = parse_args(argv)
    name = BatchDir(args.batch_dir).name
    started = time.monotonic()
    session = build_session(f"redotrail-batch-{name}", spark=spark)
    print(f"batch {name}: Spark session ready in {time.monotonic() - started:.1f} s", flush=True)
    with shared_trails():  # validate's cached trail is publish's too
        for stage in args.stages:
            began = time.monotonic()
            code = STAGES[stage](args.stage_argv[stage], spark=session)
            seconds = time.monotonic() - began
            print(f"batch {name}: {stage} {'done' if code == 0 else f'exited {code}'} in {seconds:.1f} s",
                  flush=True)  # fmt: skip
            if code != 0:
                return code
    print(f"batch {name}: {', '.join(args.stages)} in {time.monotonic() - started:.1f} s", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
