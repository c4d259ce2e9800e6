"""Generation speed and memory of the workload generator (redo_lib.synth) on a large random workload.

    .venv/bin/python bench/bench_synth.py --size 1GB [--seed 1] [--out /tmp/synth-bench] [--keep]

Runs ``generate(random_scenario(seed, size=SIZE))`` into a scratch folder (deleted afterwards unless
``--keep``), then prints one JSON object: bytes of archived logs written, seconds, MB/s, peak RSS
(``resource.getrusage``) and the resident set size sampled at each tenth of the run, which shows
whether memory stays constant as the logs grow. Single process, so the figures are per core.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import sys
import time
from pathlib import Path

from redo_lib.synth import generate, random_scenario
from redo_lib.synth.engine import Engine
from redo_lib.synth.scenario import parse_size


def current_rss_mb() -> float:
    """Resident set size now (Linux /proc), in MB."""
    try:
        pages = int(Path("/proc/self/statm").read_text().split()[1])
    except (OSError, ValueError, IndexError):
        return float("nan")
    return pages * os.sysconf("SC_PAGE_SIZE") / (1 << 20)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--size", default="1GB", help="bytes of archived logs to generate (e.g. 1GB, 5GB)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--log-size", default="256MB", help="log switch size")
    parser.add_argument("--out", default="/tmp/redotrail-synth-bench")
    parser.add_argument("--keep", action="store_true", help="keep the generated folder")
    args = parser.parse_args(argv)
    size = parse_size(args.size)
    out = Path(args.out)
    samples: list[tuple[int, float]] = []
    next_mark = [size // 10]

    def on_step(engine: Engine, steps: int) -> None:
        if steps % 200:
            return
        written = sum(log.bytes_written for log in engine.logs.values())
        if written >= next_mark[0]:
            samples.append((written, round(current_rss_mb(), 1)))
            next_mark[0] += size // 10

    scenario = random_scenario(args.seed, size=size, log_size=parse_size(args.log_size))
    started = time.perf_counter()
    cpu_started = time.process_time()
    try:
        result = generate(scenario, out, record_steps=False, on_step=on_step)
        seconds = time.perf_counter() - started
        cpu = time.process_time() - cpu_started
        report = {
            "size_requested": size,
            "log_bytes": result.log_bytes,
            "logs": len(result.logs),
            "steps": result.steps,
            "transactions": result.transactions,
            "trail_records": result.records,
            "trail_bytes": result.trail.stat().st_size,
            "seconds": round(seconds, 1),
            "mb_per_s": round(result.log_bytes / (1 << 20) / seconds, 2),
            "cpu_seconds": round(cpu, 1),
            "mb_per_cpu_s": round(result.log_bytes / (1 << 20) / cpu, 2),
            "load_average": os.getloadavg(),
            "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
            "rss_mb_by_log_bytes": samples,
            "python": sys.version.split()[0],
        }
    finally:
        if not args.keep:
            shutil.rmtree(out, ignore_errors=True)
    print(json.dumps(report, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
