"""``./redotrail demo``: the main job on the embedded default, shown to a newcomer.

1. Decodes the real Oracle 23.6 archived logs in ``../shared/realdata`` (read in place) and shows
   what they hold (skipped with a note when that folder is absent).
2. Writes a scenario's archived logs with the generator (``include/scenarios``), starts a local S3
   server (``moto_server`` on 127.0.0.1), uploads the logs, and runs the real pipeline through
   Airflow (``airflow dags test``: discovery, then decode -> assemble -> validate -> publish per batch
   on Spark local), publishing Iceberg tables in ``data/demo/warehouse``.
3. Prints per batch: its logs, transactions, rows per table and operation, the validation result,
   where the data-quality report is, and a query of each mirror table.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

from redo_lib.discovery.tasks import DEMO_DATA_DIR
from redo_lib.embedded import REPO, Embedded
from redo_lib.pipeline import decode_logs, open_source, read_header
from redo_lib.scn import render_scn
from redo_lib.trail.types import comparable, typed_row

REALDATA = REPO.parent / "shared" / "realdata" / "rophy-olr-example-free-23"


def show_real_logs(data: Path) -> None:
    logs = sorted((data / "redo").glob("*.dbf"))
    if not logs:
        print(f"(real logs not found under {data}; skipping part 1)\n")
        return
    print("== 1. Real Oracle 23.6 archived logs, decoded by Redotrail's own reader\n")
    for log in logs:
        h = read_header(open_source(log))
        next_scn = render_scn(h.next_scn) if h.next_scn is not None else "(open)"
        print(f"  {log.name}: {h.db_name} Oracle {h.version_text}, thread {h.thread} sequence {h.sequence}, "
              f"SCN {render_scn(h.first_scn)}..{next_scn}, {h.nab} blocks of {h.block_size} B")  # fmt: skip
    result = decode_logs(logs, data / "schema" / "TEST-chkpt-2266634.json")
    rep = result.report
    print(f"  {rep.records} records, {rep.vectors} change vectors, {result.assembly['committed']} committed "
          f"transactions, {sum(result.unknown_objects.values()) + result.emit['filtered_changes']} SYS/internal "
          f"changes counted outside the capture scope")  # fmt: skip
    for r in result.trail:
        print(f"  trail: xid {r.xid} commit SCN {r.commit_scn} {r.op} {r.owner}.{r.table} "
              f"{dict(r.columns)} ROWID {r.rowid}")  # fmt: skip
    print()


def show_batch(e: Embedded, batch_id: str) -> None:
    folder = e.batch_dir(batch_id)
    manifest = json.loads((folder / "manifest.json").read_text())
    counts = json.loads((folder / "counts.json").read_text()) if (folder / "counts.json").exists() else {}
    summary_path = folder / "report" / "summary.json"
    summary = json.loads(summary_path.read_text()) if summary_path.exists() else {}
    print(f"-- batch {batch_id}  ({'published' if (folder / 'PUBLISHED').exists() else 'NOT published'})")
    for log in manifest["logs"]:
        print(f"   log thread {log['thread']} sequence {log['sequence']}: {log['location']}")
    tx = counts.get("transactions", {})
    print(f"   transactions: {tx.get('emitted', 0)} into the trail, {tx.get('rolled_back', 0)} rolled back, "
          f"{tx.get('open_carried_out', 0)} still open (carried to the next batch)")  # fmt: skip
    for table, ops in sorted(counts.get("trail", {}).items()):
        print(f"   rows {table}: " + ", ".join(f"{op} {n}" for op, n in sorted(ops.items())))
    failed = summary.get("failed", [])
    print(f"   validation: {'passed' if summary.get('success') else 'FAILED'} "
          f"({len(summary.get('rules', []))} trail-contract checks{', failed: ' + str(failed) if failed else ''})")  # fmt: skip
    print(f"   data-quality report: {folder / 'report' / 'docs' / 'index.html'}")


def look_closer(root: Path) -> str:
    """The demo's last lines: the commands that show its pipeline again (each works on ``root``,
    after the demo's S3 server has stopped)."""
    here = Path.cwd()
    shown = root.relative_to(here) if root.is_relative_to(here) else root
    return "\n".join(
        [
            "== What to look at next",
            f"  .venv/bin/python -m redo_lib status --data-dir {shown}          # lag, batches, logs, last failure",
            f"  .venv/bin/python -m redo_lib status --data-dir {shown} --json   # the same for monitoring",
            f"  {shown / 'work' / 'reports' / 'index.html'}   # the operations report across batches",
            f"  {shown / 'work' / 'batches'}/<batch>/report/docs/index.html   # each batch's data-quality report",
        ]
    )


def run_pipeline(root: Path, scenario: Path) -> int:
    from redo_lib.storage.local_s3 import start_moto_server, stop
    from redo_lib.storage.s3 import s3_client, upload_file
    from spark_jobs.tables import table_name

    print(f"== 2. The pipeline on the embedded default (scenario {scenario.name})\n")
    if root.exists():
        shutil.rmtree(root)
    synth = root / "synth"
    subprocess.run([sys.executable, "-m", "redo_lib.synth", str(scenario), "--out", str(synth)], check=True,
                   capture_output=True)  # fmt: skip
    logs = sorted((synth / "logs").glob("*.arc"))
    print(f"  generated {len(logs)} archived logs and the scenario's expected trail in {synth}")
    proc, url = start_moto_server()
    os.environ.update(AWS_ENDPOINT_URL=url, AWS_ACCESS_KEY_ID="redotrail", AWS_SECRET_ACCESS_KEY="redotrail",
                      AWS_DEFAULT_REGION="us-east-1")  # fmt: skip
    try:
        print(f"  local S3 server (moto_server) on {url}; uploading to s3://redo-archive/archive/")
        s3_client().create_bucket(Bucket="redo-archive")
        for log in logs:
            upload_file(log, f"s3://redo-archive/archive/{log.name}")
        # three logs per batch: the long transaction is carried open from the first batch into the second
        e = Embedded(root=root, s3_url=url, dictionary=str(synth / "dictionary.json"), max_logs_per_batch=3)
        started = time.monotonic()
        e.init()
        print("  airflow dags test redo_archive_discovery ...")
        discovery = e.discover()
        if discovery.returncode != 0:
            print(discovery.stdout[-3000:] + discovery.stderr[-3000:], file=sys.stderr)
            return 1
        batches = e.planned()
        print(f"  planned batches: {', '.join(batches)}\n")
        for batch_id in batches:
            print(f'  airflow dags test redo_pipeline -c \'{{"batch_id": "{batch_id}"}}\' ...')
            e.run_batch(batch_id, check=False)
            show_batch(e, batch_id)
            print()
        for path in sorted((synth / "expected" / "tables").glob("*.jsonl")):
            source_table = path.stem
            table = e.table(table_name(source_table))  # the mirror's name, as publish gives it
            rows = [comparable(r) for r in table.to_pylist()]
            # the scenario's final state (the trail's text) as the mirror's column types hold it
            expected = [
                typed_row(json.loads(line), table.schema) for line in path.read_text().splitlines() if line
            ]
            print(
                f"  SELECT * FROM redotrail.{source_table.lower().replace('.', '__')}   (Iceberg mirror of {source_table})"
            )
            for row in sorted(rows, key=lambda r: str(r.get("_rowid"))):
                print("    " + ", ".join(f"{k}={v}" for k, v in row.items() if not k.startswith("_")))
            same = {tuple(sorted((k, v) for k, v in r.items() if not k.startswith("_"))) for r in rows} == {
                tuple(sorted(r.items())) for r in expected
            }
            print(
                f"    -> {len(rows)} rows; {'equals' if same else 'DIFFERS from'} the scenario's final state\n"
            )
        print(f"  done in {time.monotonic() - started:.0f} s; Airflow logs: {root / 'logs'}\n")
        print(look_closer(root))
        return 0
    finally:
        stop(proc)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="redotrail demo", description=__doc__)
    parser.add_argument("--realdata", type=Path, default=REALDATA, help="folder of the rophy 23.6 sample")
    parser.add_argument(
        "--scenario", type=Path, default=REPO / "include" / "scenarios" / "long_transaction.yaml"
    )
    parser.add_argument("--root", type=Path, default=DEMO_DATA_DIR, help="the demo's data folder (reset)")
    parser.add_argument("--decode-only", action="store_true", help="only part 1 (no Airflow/Spark run)")
    args = parser.parse_args(argv)
    show_real_logs(args.realdata)
    if args.decode_only:
        return 0
    return run_pipeline(args.root, args.scenario)


if __name__ == "__main__":
    sys.exit(main())
