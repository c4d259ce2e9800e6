"""``python -m redo_lib.demo``: the main job on what this machine has, shown to a newcomer.

Today it decodes the real Oracle 23.6 archived logs in ``../shared/realdata`` (read in place) with
the library end to end: log headers, what the records hold by opcode, the assembly counters and
the trail records of the committed transactions, with and without the dictionary. As the pipeline
grows this becomes the full run (generated logs on a local S3 server, Airflow, Spark, the
data-quality report and the published tables).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from redo_lib.pipeline import decode_logs, open_source, read_header
from redo_lib.scn import render_scn

REALDATA = Path(__file__).resolve().parents[1].parent / "shared" / "realdata" / "rophy-olr-example-free-23"


def _print_header(path: Path) -> None:
    h = read_header(open_source(path))
    next_scn = render_scn(h.next_scn) if h.next_scn is not None else "(open)"
    print(f"  {path.name}: database {h.db_name} (DBID {h.dbid}), Oracle {h.version_text}, thread {h.thread}, "
          f"sequence {h.sequence}, resetlogs {h.resetlogs_id}")  # fmt: skip
    print(f"    SCN {render_scn(h.first_scn)} .. {next_scn}, {h.first_time:%Y-%m-%d %H:%M:%S} .. "
          f"{h.next_time:%Y-%m-%d %H:%M:%S}, {h.nab} blocks of {h.block_size} bytes, "
          f"{'big' if h.big_endian else 'little'}-endian")  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="redotrail demo", description=__doc__)
    parser.add_argument("--data", type=Path, default=REALDATA, help="folder of the rophy 23.6 sample")
    args = parser.parse_args(argv)
    logs = sorted((args.data / "redo").glob("*.dbf"))
    if not logs:
        print(f"no archived logs under {args.data / 'redo'}", file=sys.stderr)
        return 2
    print("== Redotrail demo: real Oracle 23.6 archived redo logs, decoded by Redotrail's own reader\n")
    print("Logs (headers read from the bytes, not the file names):")
    for log in logs:
        _print_header(log)

    dictionary = args.data / "schema" / "TEST-chkpt-2266634.json"
    result = decode_logs(logs, dictionary)
    rep = result.report
    print(
        f"\nRecords: {rep.records} ({rep.bytes} bytes), change vectors: {rep.vectors}, skipped: {len(rep.skipped)}"
    )
    top = sorted(rep.vectors_by_opcode.items(), key=lambda kv: -kv[1])[:10]
    print("Vectors by opcode (top 10): " + ", ".join(f"{a}.{b}: {n}" for (a, b), n in top))
    print(
        f"Transactions: {result.assembly['begun']} begun, {result.assembly['committed']} committed, "
        f"{result.assembly['rolled_back']} rolled back, {len(result.carried_out)} events carried open"
    )
    unknown = sum(result.unknown_objects.values())
    print(
        f"Outside the dictionary's capture scope (counted, not emitted): {unknown} changes of "
        f"{len(result.unknown_objects)} objects not in the dictionary, "
        f"{result.emit['filtered_changes']} changes of excluded owners (SYS, ...)"
    )
    print(f"\nTrail with the dictionary ({dictionary.name}): {len(result.trail)} record(s)")
    for record in result.trail:
        print("  " + json.dumps(record.to_dict()))

    schemaless = decode_logs(logs)
    print(
        f"\nTrail without a dictionary (schemaless: OBJ_<n>, COL_<n> as hex): {len(schemaless.trail)} records"
    )
    for r in schemaless.trail:
        cols = ", ".join(f"{k}={v}" for k, v in list(r.columns)[:3])
        print(
            f"  xid {r.xid:<10} commit SCN {r.commit_scn} ind {int(r.trans_ind)} {r.op:<6} {r.table:<10} {cols} ..."
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
