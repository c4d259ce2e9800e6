"""Throughput of the record reader (the Rust core: framing, block checks, record walk, reassembly,
change-vector and op-body parsing), in MB of redo per second on one core, beside `cat LOG > /dev/null`:
the walk alone (``native.count_records``), the records as ``format/model.py`` values
(``native_records.read_records``, what ``dump`` reads), and the Python block checks (``blocks.py``).
The Python reader these figures were first taken on is gone (docs/benchmarks.md).

    .venv/bin/python bench/bench_format.py [--seconds 3] [--profile] [LOG ...]

Default logs: the two real 23.6 archived logs in ../shared/realdata (read in place). The small logs
are decoded repeatedly until ``--seconds`` have passed, for a stable number. Single process, so
the figures are per core.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import pstats
import subprocess
import time
from collections.abc import Callable
from pathlib import Path

from redo_lib.format import HEADER_PROBE_SIZE, FileLayout, check_blocks
from redo_lib.format.header import file_layout
from redo_lib.format.native_records import parse_header, read_records
from redo_lib.native import native

REPO = Path(__file__).resolve().parents[1]
REAL = REPO.parent / "shared" / "realdata" / "rophy-olr-example-free-23" / "redo"
DEFAULT_LOGS = [REAL / "arch1_15_1224959854.dbf", REAL / "arch1_16_1224959854.dbf"]


def repeat(fn: Callable[[], object], seconds: float) -> tuple[int, float]:
    """Run ``fn`` until ``seconds`` have passed (at least 3 times); return (runs, seconds per run)."""
    fn()  # warm-up (imports, caches)
    runs = 0
    start = time.perf_counter()
    while True:
        fn()
        runs += 1
        elapsed = time.perf_counter() - start
        if elapsed >= seconds and runs >= 3:
            return runs, elapsed / runs


def cat_seconds(path: Path, seconds: float) -> float:
    """Seconds per `cat LOG > /dev/null` (process start included, as on the command line)."""

    def run() -> None:
        subprocess.run(["cat", str(path)], stdout=subprocess.DEVNULL, check=True)

    return repeat(run, seconds)[1]


def bench(path: Path, seconds: float) -> dict[str, float]:
    data = path.read_bytes()
    header = parse_header(data[:HEADER_PROBE_SIZE], path.name)
    layout: FileLayout = file_layout(header)
    mb = len(data) / 1e6
    records = sum(1 for _ in read_records(data, name=path.name))

    def walk_only() -> None:
        native.count_records(data, 2, None, "raise", path.name)

    def model_records() -> None:
        for _ in read_records(data, name=path.name):
            pass

    def model_records_file() -> None:
        for _ in read_records(path.read_bytes(), name=path.name):
            pass

    def blocks_only() -> None:
        check_blocks(data[header.block_size :], 1, layout, header.sequence)

    out = {"MB": mb, "records": records}
    for label, fn in (
        ("rust walk only", walk_only),
        ("rust model records", model_records),
        ("  + reading the file", model_records_file),
        ("python block checks", blocks_only),
    ):
        runs, per = repeat(fn, seconds)
        out[label] = mb / per
        out[f"{label} runs"] = runs
    out["cat LOG > /dev/null"] = mb / cat_seconds(path, seconds)
    return out


def profile(path: Path, top: int = 15) -> str:
    data = path.read_bytes()
    prof = cProfile.Profile()
    prof.enable()
    for _ in range(20):
        for _ in read_records(data, name=path.name):
            pass
    prof.disable()
    text = io.StringIO()
    pstats.Stats(prof, stream=text).sort_stats("tottime").print_stats(top)
    return text.getvalue()


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("logs", nargs="*", type=Path, default=DEFAULT_LOGS)
    parser.add_argument("--seconds", type=float, default=3.0, help="minimum time per measurement")
    parser.add_argument(
        "--profile", action="store_true", help="print a cProfile of the model records of the first log"
    )
    args = parser.parse_args()
    for path in args.logs:
        result = bench(path, args.seconds)
        print(f"{path.name}: {result['MB']:.3f} MB, {int(result['records'])} records")
        for label in (
            "rust walk only", "rust model records", "  + reading the file", "python block checks",
            "cat LOG > /dev/null",
        ):  # fmt: skip
            runs = result.get(f"{label} runs")
            extra = f"  ({int(runs)} runs)" if runs else ""
            print(f"  {label:<22} {result[label]:8.1f} MB/s{extra}")
    if args.profile:
        print(profile(args.logs[0]))


if __name__ == "__main__":
    main()
