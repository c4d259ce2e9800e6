"""Carried LOB pages (``redo_lib/lob_carry.py``, docs/lobs.md "Across batches"): a carried store of
``--mb`` of pages read into an emitter's LOB store and carried out again, in a fresh process, with its
peak RSS: the store goes to the store's temporary file, never into memory whole, so the peak does not
grow with the store.

    .venv/bin/python bench/bench_lob_carry.py [--mb 512]

The input is written first by a child process (random 8132-byte pages, 100 per LOB, in row groups of
1,024 pages, ``native.lob_pages_schema()``); then another child reads it in (``read_carried_lobs``:
no locator names the pages, so all of them stay live) and writes them out (``write_carried_lobs``),
and reports its times and peak RSS. The output must hold the input's rows, sorted.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]

MAKE = """
import os, sys
import pyarrow as pa, pyarrow.parquet as pq
from redo_lib.lob_carry import lob_pages_schema
schema, page, total = lob_pages_schema(), 8132, int(sys.argv[1]) * (1 << 20) // 8132
with pq.ParquetWriter(sys.argv[2], schema) as writer:
    for first in range(0, total, 1024):
        n = min(1024, total - first)
        rows = range(first, first + n)
        writer.write_batch(pa.record_batch([
            pa.array([b"\\0\\0\\0\\x01\\0\\0" + (r // 100).to_bytes(4, "big") for r in rows], pa.binary()),
            pa.array(list(rows), pa.int64()), pa.array([r % 100 for r in rows], pa.int64()),
            pa.array([os.urandom(page) for _ in rows], pa.binary())], schema=schema), row_group_size=n)
"""

RUN = """
import resource, sys, time
from redo_lib.lob_carry import read_carried_lobs, write_carried_lobs
from redo_lib.native import native
emitter = native.Emitter(None)
start = time.perf_counter()
read_carried_lobs(emitter, [sys.argv[1]])
read = time.perf_counter()
write_carried_lobs(emitter, sys.argv[2])
done = time.perf_counter()
c = emitter.counters
print(f"{c['lob_pages_carried_in']} pages in {read - start:.1f} s, {c['lob_pages_carried_out']} pages "
      f"({c['lob_page_bytes_carried_out'] >> 20} MB) out {done - read:.1f} s, "
      f"peak RSS {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MB")
"""


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--mb", type=int, default=512, help="MB of carried LOB pages")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-lob-carry-") as tmp:
        source, target = Path(tmp) / "in.parquet", Path(tmp) / "out.parquet"
        subprocess.run([sys.executable, "-c", MAKE, str(args.mb), str(source)], check=True, cwd=REPO)
        base = subprocess.run(
            [sys.executable, "-c", "import resource, redo_lib.lob_carry, redo_lib.native, pyarrow.parquet;"
             "print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024)"],
            check=True, cwd=REPO, capture_output=True, text=True,
        ).stdout.strip()  # fmt: skip
        subprocess.run([sys.executable, "-c", RUN, str(source), str(target)], check=True, cwd=REPO)
        print(f"(a process importing the same modules: {base} MB)")
        import pyarrow.parquet as pq

        keys = [("lob_id", "ascending"), ("page", "ascending"), ("dba", "ascending")]
        if not pq.read_table(source).sort_by(keys).equals(pq.read_table(target)):
            raise SystemExit("the pages carried out differ from the pages carried in")


if __name__ == "__main__":
    main()
