"""A large dictionary on the decode path: parsed once, by the core (issue 31).

    .venv/bin/python bench/bench_dictionary.py [--tables 20000] [--columns 15] [--runs 3]

Writes a Redotrail dictionary of ``--tables`` tables (``APP.T0`` ..) of ``--columns`` columns each
(NUMBER and VARCHAR2 by turns, a primary key on the first) into ``--work``, then runs, each case its
own process timed with ``os.wait4`` (CPU seconds, peak RSS), median of ``--runs`` with the spread:

* ``decode``: ``python -m redo_lib decode`` of the 0.3 MB real 23.6 log with that dictionary (none
  of its objects are the log's: what is measured is the dictionary's parse and the emitter's start);
* ``python model``: what the decode path did before: ``load_dictionary`` (Python's model) and
  ``to_json`` for the core, then the core's parse (``native.Emitter``);
* ``cat`` of the dictionary file, for scale.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
LOG = REPO.parent / "shared" / "realdata" / "rophy-olr-example-free-23" / "redo" / "arch1_15_1224959854.dbf"
PYTHON_MODEL = """
import sys
from redo_lib.dictionary import load_dictionary
from redo_lib.native import native
native.Emitter(load_dictionary(sys.argv[1]).to_json())
"""


def _document(tables: int, columns: int) -> dict[str, object]:
    def column(c: int) -> dict[str, object]:
        text = c % 2 == 1
        return {"col_no": c + 1, "segcol_no": c + 1, "name": f"C{c}", "type": "VARCHAR2" if text else "NUMBER",
                "length": 100 if text else 22, "precision": None, "scale": None,
                "charset": "CHAR_CS" if text else None, "nullable": c > 0, "hidden": False}  # fmt: skip

    return {
        "format": "redotrail-dictionary", "format_version": 1, "scn": 1000, "max_object_id": 100000 + tables,
        "owners": ["APP"], "db_charset": "AL32UTF8", "national_charset": "AL16UTF16",
        "tables": [
            {"obj": 100000 + t, "dataobj": 100000 + t, "owner": "APP", "name": f"T{t}",
             "columns": [column(c) for c in range(columns)],
             "constraints": [{"name": f"PK{t}", "type": "P", "columns": ["C0"]}], "partitions": []}
            for t in range(tables)
        ],
    }  # fmt: skip


def _measure(argv: list[str]) -> tuple[float, float]:
    with open(os.devnull, "wb") as out:
        proc = subprocess.Popen(argv, cwd=REPO, stdout=out, stderr=subprocess.DEVNULL)
        _, status, usage = os.wait4(proc.pid, 0)
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"failed: {' '.join(argv)}")
    return usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--tables", type=int, default=20000)
    parser.add_argument("--columns", type=int, default=15)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument(
        "--work", type=Path, default=Path(tempfile.gettempdir()) / "redotrail-bench-dictionary"
    )
    parser.add_argument("--write-only", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    args.work.mkdir(parents=True, exist_ok=True)
    path = args.work / f"dictionary-{args.tables}x{args.columns}.json"
    if args.write_only:
        path.write_text(json.dumps(_document(args.tables, args.columns)), encoding="utf-8")
        return
    if not path.exists():
        # in a process of its own: a child forked from a parent holding the document would count
        # the parent's pages in its peak RSS
        subprocess.run([sys.executable, __file__, "--write-only", "--tables", str(args.tables),
                        "--columns", str(args.columns), "--work", str(args.work)], check=True)  # fmt: skip
    cases = {
        "cat": ["cat", str(path)],
        "decode": [sys.executable, "-m", "redo_lib", "decode", str(LOG), "--dictionary", str(path)],
        "python model": [sys.executable, "-c", PYTHON_MODEL, str(path)],
    }
    print(
        f"dictionary {path}: {path.stat().st_size / 1e6:.1f} MB, {args.tables} tables x {args.columns} columns"
    )
    for case, argv in cases.items():
        runs = [_measure(argv) for _ in range(args.runs)]
        cpu, rss = [c for c, _ in runs], [r for _, r in runs]
        print(f"{case:13} cpu {statistics.median(cpu):6.2f} s ({min(cpu):.2f}..{max(cpu):.2f})"
              f"  peak {statistics.median(rss):6.0f} MB ({min(rss):.0f}..{max(rss):.0f})", flush=True)  # fmt: skip


if __name__ == "__main__":
    main()
