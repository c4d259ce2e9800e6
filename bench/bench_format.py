"""Throughput of the binary format layer: framing (block checks, record walk, reassembly) plus
change-vector and op-body parsing, in MB of redo per second on one core, beside `cat LOG > /dev/null`.

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

from redo_lib.format import HEADER_PROBE_SIZE, FileLayout, check_blocks, iter_records, parse_log_header
from redo_lib.format.header import file_layout
from redo_lib.storage import LocalFileSource

REPO = Path(__file__).resolve().parents[1]
REAL = REPO.parent / "shared" / "realdata" / "rophy-olr-example-free-23" / "redo"
DEFAULT_LOGS = [REAL / "arch1_15_1224959854.dbf", REAL / "arch1_16_1224959854.dbf"]


class MemorySource:
    """The log's bytes in memory (isolates parsing from the file system)."""

    def __init__(self, data: bytes, name: str) -> None:
        self.data, self.name, self.size = data, name, len(data)

    def read(self, offset: int, size: int) -> bytes:
        return self.data[offset : offset + size]


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
    header = parse_log_header(data[:HEADER_PROBE_SIZE], path.name)
    layout: FileLayout = file_layout(header)
    memory = MemorySource(data, path.name)
    mb = len(data) / 1e6
    records = sum(1 for _ in iter_records(memory, header))

    def decode_memory() -> None:
        for _ in iter_records(memory, header):
            pass

    def decode_file() -> None:
        with LocalFileSource(path) as source:
            for _ in iter_records(source, header):
                pass

    def blocks_only() -> None:
        check_blocks(data[header.block_size :], 1, layout, header.sequence)

    out = {"MB": mb, "records": records}
    for label, fn in (
        ("decode (memory)", decode_memory),
        ("decode (file)", decode_file),
        ("block checks only", blocks_only),
    ):
        runs, per = repeat(fn, seconds)
        out[label] = mb / per
        out[f"{label} runs"] = runs
    out["cat LOG > /dev/null"] = mb / cat_seconds(path, seconds)
    return out


def profile(path: Path, top: int = 15) -> str:
    data = path.read_bytes()
    header = parse_log_header(data[:HEADER_PROBE_SIZE], path.name)
    memory = MemorySource(data, path.name)
    prof = cProfile.Profile()
    prof.enable()
    for _ in range(20):
        for _ in iter_records(memory, header):
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
        "--profile", action="store_true", help="print a cProfile of the decode of the first log"
    )
    args = parser.parse_args()
    for path in args.logs:
        result = bench(path, args.seconds)
        print(f"{path.name}: {result['MB']:.3f} MB, {int(result['records'])} records")
        for label in ("decode (memory)", "decode (file)", "block checks only", "cat LOG > /dev/null"):
            runs = result.get(f"{label} runs")
            extra = f"  ({int(runs)} runs)" if runs else ""
            print(f"  {label:<22} {result[label]:8.1f} MB/s{extra}")
    if args.profile:
        print(profile(args.logs[0]))


if __name__ == "__main__":
    main()
