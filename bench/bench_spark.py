"""Spark decode + assemble throughput: MB of redo per second end to end, 1 core against 2.

Generates a random workload of ``--size`` (redo_lib.synth, once, cached in ``--work``), writes a
batch manifest for its logs, then runs ``spark-submit spark_jobs/decode.py`` and ``assemble.py``
with ``--master local[N]`` for each N of ``--cores``, timing each stage and taking the peak RSS of the
Spark processes (JVM and Python workers, RUSAGE_CHILDREN). The single-process decode
(``python -m redo_lib decode``) is timed beside them as the reference.

    .venv/bin/python bench/bench_spark.py --size 200MB --cores 1 2 --work /tmp/redotrail-bench-spark
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from redo_lib.batches import LogEntry, Manifest, write_manifest  # noqa: E402
from redo_lib.pipeline import describe_logs  # noqa: E402


def _run(cmd: list[str], env: dict[str, str]) -> float:
    started = time.monotonic()
    subprocess.run(cmd, check=True, env=env, cwd=REPO, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.monotonic() - started


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--size", default="200MB")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--cores", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--range-mb", type=float, default=16.0)
    parser.add_argument("--work", type=Path, default=Path("/tmp/redotrail-bench-spark"))
    args = parser.parse_args()
    synth = args.work / f"synth-{args.size}-{args.seed}"
    py = sys.executable
    if not (synth / "expected" / "trail.jsonl").exists():
        subprocess.run([py, "-m", "redo_lib.synth", "--random", "--seed", str(args.seed), "--size", args.size,
                        "--out", str(synth)], check=True, cwd=REPO)  # fmt: skip
    logs = sorted((synth / "logs").glob("*.arc"))
    total = sum(p.stat().st_size for p in logs)
    refs = describe_logs(logs)
    env = dict(os.environ, PATH=f"{Path(py).parent}:{os.environ['PATH']}", SPARK_LOCAL_IP="127.0.0.1",
               PYSPARK_PYTHON=py, TZ="UTC")  # fmt: skip
    results = {"size_bytes": total, "logs": len(logs), "range_mb": args.range_mb, "runs": []}
    t = _run(
        [py, "-m", "redo_lib", "decode", *map(str, logs), "--dictionary", str(synth / "dictionary.json")], env
    )
    results["single_process_seconds"] = round(t, 1)
    results["single_process_mb_s"] = round(total / 1e6 / t, 2)
    for cores in args.cores:
        batch = args.work / f"batch-{cores}"
        entries = tuple(
            LogEntry(thread=r.thread, sequence=r.sequence, resetlogs_id=r.resetlogs_id, location=r.location)
            for r in refs
        )
        write_manifest(
            batch,
            Manifest(batch_id=f"bench-{cores}", logs=entries, dictionary=str(synth / "dictionary.json")),
        )
        submit = [
            str(Path(py).with_name("spark-submit")),
            "--master",
            f"local[{cores}]",
            "--driver-memory",
            "2g",
        ]
        before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
        decode = _run(
            [*submit, "spark_jobs/decode.py", "--batch-dir", str(batch), "--range-mb", str(args.range_mb)],
            env,
        )
        assemble = _run([*submit, "spark_jobs/assemble.py", "--batch-dir", str(batch)], env)
        peak = max(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, before)
        counts = json.loads((batch / "counts.json").read_text())
        results["runs"].append({
            "cores": cores, "decode_s": round(decode, 1), "assemble_s": round(assemble, 1),
            "end_to_end_mb_s": round(total / 1e6 / (decode + assemble), 2),
            "decode_mb_s": round(total / 1e6 / decode, 2), "peak_child_rss_mb": round(peak / 1024, 1),
            "trail_records": sum(sum(v.values()) for v in counts["trail"].values()),
        })  # fmt: skip
        print(json.dumps(results["runs"][-1]), flush=True)
    if len(results["runs"]) > 1:
        one, two = results["runs"][0], results["runs"][-1]
        results["speedup"] = round(
            (one["decode_s"] + one["assemble_s"]) / (two["decode_s"] + two["assemble_s"]), 2
        )
    print(json.dumps(results, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
