"""``python -m redo_lib <command> ...``: argparse in front of library calls, nothing else.

Commands live in ``COMMANDS`` (name -> function taking the command's own arguments and returning
an exit code); adding one is one function plus one line in that dict. Each command builds its own
small ``ArgumentParser``; the function's docstring is its help.

Exit codes: 0 success, 1 a ``RedoError`` on the input (printed as ``error: <position>: <message>``),
2 usage errors (argparse).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import sys
from collections.abc import Callable, Iterator, Sequence
from typing import TYPE_CHECKING, Any, TextIO

from redo_lib.errors import ErrorPolicy, RedoError
from redo_lib.progress import Progress
from redo_lib.report import DecodeReport

# each command imports what it uses when it runs: `decode` never loads the dump renderer, the format
# model or the storage classes that `dump` and `stats` read with (start-up, docs/benchmarks.md)
if TYPE_CHECKING:
    from redo_lib.format.model import LogHeader, RedoRecord
    from redo_lib.storage import LocalFileSource

PROG = "python -m redo_lib"


def _log_parser(name: str, description: str) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog=f"{PROG} {name}", description=description)
    parser.add_argument("log", metavar="LOG", help="archived redo log file")
    parser.add_argument("--first-block", type=int, default=2, help="first block of the range (default 2)")
    parser.add_argument(
        "--last-block", type=int, default=None, help="end of the range, exclusive (default: nab)"
    )
    parser.add_argument(
        "--skip-corrupt",
        action="store_true",
        help="record damaged ranges in the report and resume at the next valid record",
    )
    return parser


def _open(path: str) -> tuple[LocalFileSource, LogHeader]:
    from redo_lib.format import HEADER_PROBE_SIZE
    from redo_lib.format.native_records import parse_header
    from redo_lib.storage import LocalFileSource

    source = LocalFileSource(path)
    return source, parse_header(source.read(0, HEADER_PROBE_SIZE), source.name)


def _records(args: argparse.Namespace, source: LocalFileSource, report: DecodeReport) -> Iterator[RedoRecord]:
    """The records of the range, read by the Rust core from the file's bytes (a tool's read: the
    decode path reads block ranges, ``pipeline.decode_range_arrow``)."""
    from redo_lib.format.native_records import read_records

    policy = ErrorPolicy.SKIP if args.skip_corrupt else ErrorPolicy.RAISE
    data = source.read(0, source.size)
    return read_records(
        data, args.first_block, args.last_block, policy=policy, name=source.name, report=report
    )


def cmd_dump(argv: Sequence[str], out: TextIO = sys.stdout) -> int:
    """Print the log as ALTER SYSTEM DUMP LOGFILE-style text (FILE HEADER, REDO RECORD, CHANGE lines)."""
    from redo_lib.dump.headers import V12_2
    from redo_lib.dump.render import render_header, render_record

    args = _log_parser("dump", cmd_dump.__doc__ or "").parse_args(argv)
    source, header = _open(args.log)
    with source:
        out.write(render_header(header, file_name=source.name))
        wide = header.compat_version >= V12_2
        report = DecodeReport()
        for record in _records(args, source, report):
            out.write(" \n" + render_record(record, wide_scn=wide))
        out.write("END OF REDO DUMP\n")
        for skipped in report.skipped:
            out.write(f"SKIPPED {skipped.kind}: {skipped.position}: {skipped.message}\n")
    return 0


def _stats_text(header: LogHeader, name: str, report: DecodeReport) -> str:
    data = report.to_dict()
    lines = [
        f"log: {name}",
        f"thread {header.thread} sequence {header.sequence} blocks {header.nab} x {header.block_size} "
        f"({'big' if header.big_endian else 'little'}-endian, compat {header.version_text})",
        f"records: {data['records']}  vectors: {data['vectors']}  record bytes: {data['bytes']}",
        "records by VLD: " + ", ".join(f"{k}: {v}" for k, v in data["records_by_vld"].items()),
        "",
        f"{'opcode':>8} {'vectors':>8} {'records':>8}",
    ]
    for op, count in sorted(report.vectors_by_opcode.items()):
        lines.append(f"{f'{op[0]}.{op[1]}':>8} {count:>8} {report.records_by_opcode[op]:>8}")
    if data["opaque_by_category"]:
        lines += [
            "",
            "opaque vectors: " + ", ".join(f"{k}: {v}" for k, v in data["opaque_by_category"].items()),
        ]
    if data["lobs"]:
        lines += ["", "LOB and index vectors: " + ", ".join(f"{k}: {v}" for k, v in data["lobs"].items())]
    lines += ["", f"skipped: {len(report.skipped)}  corrupt ranges: {len(report.corrupt_ranges)}"]
    lines += [f"  {s.kind}: {s.position}: {s.message}" for s in report.skipped]
    return "\n".join(lines) + "\n"


STATS_RANGE_BYTES = 16 << 20  # the range `stats` counts between two moves of the progress bar


def cmd_stats(argv: Sequence[str], out: TextIO = sys.stdout, err: TextIO = sys.stderr) -> int:
    """Count records and change vectors by opcode (and by VLD); --skip-corrupt reports damage."""
    parser = _log_parser("stats", cmd_stats.__doc__ or "")
    parser.add_argument("--json", action="store_true", help="print the report as JSON")
    parser.add_argument("--progress", action="store_true", help="progress bar on stderr even when not a tty")
    args = parser.parse_args(argv)
    # the counts alone, from the core's walk (no event built), a lean module: no pyarrow at start-up
    from redo_lib.storage import LocalFileSource
    from redo_lib.windows import LogWindows, count_range

    log = LogWindows.of(LocalFileSource(args.log))
    source, header = log.source, log.header
    report = DecodeReport()
    policy = ErrorPolicy.SKIP if args.skip_corrupt else ErrorPolicy.RAISE
    stop = log.end if args.last_block is None else min(args.last_block, log.end)
    bar = Progress(
        f"stats {os.path.basename(source.name)}",
        total=stop,
        unit="blocks",
        stream=err,
        enabled=args.progress or None,
    )
    with source, bar:
        # block ranges (each record once, redo-format §3.1) so the progress bar moves
        for first, last in log.steps(args.first_block, args.last_block, STATS_RANGE_BYTES):
            count_range(log, first, last, policy=policy, report=report)
            bar.update(last)
    if args.json:
        doc = {"log": source.name, "thread": header.thread, "sequence": header.sequence, **report.to_dict()}
        out.write(json.dumps(doc, indent=2) + "\n")
    else:
        out.write(_stats_text(header, source.name, report))
    return 0


def _release_freed_memory() -> None:
    """pyarrow's buffers from the C allocator, which returns what is freed, not mimalloc's pool,
    which keeps it: the commit order's sorts free what they took (one transaction of 128 MB of redo:
    peak RSS 185 -> 131 MB; the 64 MB seed-11 set 132 -> 116 MB)."""
    import pyarrow as pa

    pa.set_memory_pool(pa.system_memory_pool())


def _text_sink(out: TextIO, render: Callable[[Any], bytes], head: str = "") -> Callable[[Any], None]:
    """Staged trail batches -> text on ``out`` (after ``head``), rendered by the core a record batch
    at a time (``render``: ``native.render_jsonl`` or ``native.render_table``, UTF-8 bytes)."""
    binary = getattr(out, "buffer", None)
    out.flush()
    if binary is not None:
        binary.write(head.encode())
        return lambda batch: binary.write(render(batch))
    out.write(head)

    def write(batch: Any) -> None:
        out.write(render(batch).decode())

    return write


# a part of the Parquet trail closes after this many row groups (at most 64K rows or 2 MB encoded
# each, redo_core::trail::parquet_out): the writer holds every row group's metadata and page indexes
# until its file closes, so one file for a 10 GB decode grew the peak from 150 to 188 MB
PART_ROW_GROUPS = 16


class _ParquetSink:
    """Staged trail batches -> ``folder/trail-00000.parquet``, ``trail-00001.parquet``, ... in the
    trail schema, ``trail_seq`` 0..n-1 in commit order across the parts (a part holds the rows of
    whole batches; an empty trail is one part of no rows). Written by the core
    (``native.TrailParquetWriter``: no ``pyarrow.parquet``, whose library and column buffers cost
    the command 30 MB of peak RSS, docs/benchmarks.md). The parts are written as hidden
    ``.trail-NNNNN.parquet.partial`` files (readers of the folder skip them) and renamed when the
    decode ends well, the folder's other ``trail-*.parquet`` files (an earlier decode's) removed
    then; when it fails they are removed and the folder is as it was."""

    def __init__(self, folder: str, part_row_groups: int) -> None:
        os.makedirs(folder, exist_ok=True)
        self._folder, self._part_row_groups = folder, part_row_groups
        self._partials: list[str] = []
        self._writer: Any = None
        self._rows = 0  # rows in the parts closed

    def _part(self, n: int, partial: bool) -> str:
        name = f"trail-{n:05d}.parquet"
        return os.path.join(self._folder, f".{name}.partial" if partial else name)

    def __call__(self, batch: Any) -> None:
        if self._writer is None:
            self._open_part()
        self._writer.write(batch)
        if self._writer.row_groups >= self._part_row_groups:
            self._close_part()

    def _open_part(self) -> None:
        from redo_lib.native import native

        self._partials.append(self._part(len(self._partials), partial=True))
        self._writer = native.TrailParquetWriter(self._partials[-1], first=self._rows)

    def _close_part(self) -> None:
        self._rows += self._writer.close()
        self._writer = None

    @property
    def parts(self) -> list[str]:
        """The parts' final paths, in order."""
        return [self._part(n, partial=False) for n in range(len(self._partials))]

    def __enter__(self) -> _ParquetSink:
        return self

    def __exit__(self, kind: object, *exc: object) -> None:
        if kind is not None:
            self._writer = None  # an unclosed part is closed unfinished, then removed with the others
            for partial in self._partials:
                with contextlib.suppress(FileNotFoundError):
                    os.remove(partial)
            return
        if not self._partials:
            self._open_part()  # an empty trail: one part, the schema and no rows
        if self._writer is not None:
            self._close_part()
        final = set(self.parts)
        for name in os.listdir(self._folder):
            path = os.path.join(self._folder, name)
            if name.startswith("trail-") and name.endswith(".parquet") and path not in final:
                os.remove(path)  # an earlier decode's part this one did not overwrite
        for partial, path in zip(self._partials, self.parts, strict=True):
            os.replace(partial, path)


def cmd_decode(argv: Sequence[str], out: TextIO = sys.stdout, err: TextIO = sys.stderr) -> int:
    """Decode archived logs into trail records (committed transactions, commit order)."""
    # the top layer; keeps `dump`/`stats` start-up lean
    from redo_lib.pipeline import INPUT_KINDS, decode_dumps, decode_logs, input_kind
    from redo_lib.trail.emit import EmitOptions, image_options

    parser = argparse.ArgumentParser(prog=f"{PROG} decode", description=cmd_decode.__doc__)
    parser.add_argument(
        "logs",
        nargs="+",
        metavar="LOG",
        help="archived logs of one batch (any order), or their logfile dumps",
    )
    parser.add_argument(
        "--input",
        choices=("auto", *INPUT_KINDS),
        default="auto",
        help="redo: archived logs; dump: ALTER SYSTEM DUMP LOGFILE text; auto (default): told from the content",
    )
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument(
        "--dictionary", metavar="D", help="Redotrail dictionary JSON or OLR schema checkpoint"
    )
    source.add_argument("--schemaless", action="store_true", help="no dictionary: OBJ_<n>, COL_<n> as hex")
    parser.add_argument(
        "--format",
        choices=("jsonl", "table", "parquet"),
        default="jsonl",
        help="jsonl (default): one JSON object per trail record (json.dumps's text, ASCII); table: for "
        "people, a line per record (XID, COMMIT SCN, IND, OP, TABLE, ROWID, COLUMNS as name=value: values "
        'double-quoted with JSON escapes for ", \\ and control characters, other characters as they are, '
        "SQL NULL as NULL); parquet: the trail schema (what the pipeline's trail/ holds; DuckDB, Spark, "
        "pyarrow read it) into --out",
    )
    parser.add_argument(
        "--out",
        metavar="DIR",
        help="with --format parquet: the folder for the trail's parts, trail-00000.parquet, trail-00001.parquet, "
        "... (read the folder, or DIR/*.parquet; an earlier decode's parts there are replaced)",
    )
    parser.add_argument("--emit-unknown", action="store_true", help="also emit objects the dictionary lacks")
    parser.add_argument(
        "--images",
        metavar="OPTS",
        default="",
        help="update-befores (a before record ahead of each update's), full-deletes (every column); "
        "comma-separated (default: GoldenGate's compressed images)",
    )
    parser.add_argument("--skip-corrupt", action="store_true", help="count damaged ranges and go on")
    parser.add_argument(
        "--allow-gaps",
        action="store_true",
        help="decode logs with sequences missing between them (a chosen few, on purpose); logs of two "
        "databases or incarnations, and a log given twice, are refused either way",
    )
    parser.add_argument("--summary", action="store_true", help="print the decode summary (JSON) to stderr")
    parser.add_argument("--progress", action="store_true", help="progress on stderr even when not a tty")
    args = parser.parse_args(argv)
    if (args.format == "parquet") != (args.out is not None):
        parser.error("--format parquet writes into --out DIR, and --out goes with --format parquet")
    kinds = {args.input} if args.input != "auto" else {input_kind(log) for log in args.logs}
    if len(kinds) > 1:
        parser.error("the LOGs mix archived logs and logfile dumps: give one kind per batch")
    (kind,) = kinds
    size = sum(os.path.getsize(log) for log in args.logs if os.path.isfile(log))
    # the decode is one call: a pulsing bar with the elapsed time, on a terminal only; the rows are
    # written as transactions commit (a sink), rendered by the core (no Python object per row)
    from redo_lib.native import native

    _release_freed_memory()
    with contextlib.ExitStack() as stack:
        sink: Callable[[Any], None]
        if args.format == "parquet":
            parquet = stack.enter_context(_ParquetSink(args.out, PART_ROW_GROUPS))
            sink = parquet
        elif args.format == "jsonl":
            sink = _text_sink(out, native.render_jsonl)
        else:
            sink = _text_sink(out, native.render_table, native.table_header())
        with Progress(
            f"decode {len(args.logs)} {'dumps' if kind == 'dump' else 'logs'} ({size / 1e6:.1f} MB)",
            stream=err,
            enabled=args.progress or None,
        ):
            result = (decode_dumps if kind == "dump" else decode_logs)(
                args.logs,
                None if args.schemaless else args.dictionary,
                # image_options gives the bool fields only
                options=EmitOptions(emit_unknown=args.emit_unknown, **image_options(args.images.split(","))),  # type: ignore[arg-type]
                policy=ErrorPolicy.SKIP if args.skip_corrupt else ErrorPolicy.RAISE,
                allow_gaps=args.allow_gaps,
                sink=sink,
            )
    if args.format == "parquet":
        parts = parquet.parts
        err.write(f"trail written to {args.out}: {len(parts)} Parquet file{'s' if len(parts) > 1 else ''}, "
                  f"{os.path.basename(parts[0])} .. {os.path.basename(parts[-1])}\n")  # fmt: skip
    else:
        getattr(out, "buffer", out).flush()
    summary = result.summary()
    if args.summary:
        err.write(json.dumps(summary, indent=2) + "\n")
    else:
        err.write(
            f"{summary['records']} records, {summary['transactions']} transactions, "
            f"{summary['trail_records']} trail records, {summary['open_transactions_carried']} open at the end, "
            f"{sum(result.unknown_objects.values())} changes of objects outside the dictionary (counted), "
            f"{summary['skipped']} skipped\n"
        )
    return 0


def cmd_synth(argv: Sequence[str]) -> int:
    """Generate archived logs, the dictionary and the expected trail of a scenario (or --random)."""
    from redo_lib.synth.cli import run  # the generator is not needed by the other commands

    return run(argv)


def cmd_status(argv: Sequence[str], out: TextIO = sys.stdout, err: TextIO = sys.stderr) -> int:
    """Lag per thread, logs not planned, batches, open transactions, last failure: from the log catalog."""
    from redo_lib.discovery.tasks import DEMO_DATA_DIR, Settings  # the catalog and its settings
    from redo_lib.status import (
        WARN_LONG_TRANS_ENV,
        collect_status,
        missing_catalog,
        parse_duration,
        render_status,
        warn_threshold,
    )
    from redo_lib.storage.catalog import LogCatalog

    parser = argparse.ArgumentParser(prog=f"{PROG} status", description=cmd_status.__doc__)
    parser.add_argument("--catalog", metavar="DB", help="the log catalog (default: REDOTRAIL_CATALOG_DB)")
    parser.add_argument(
        "--data-dir",
        metavar="DIR",
        help="an embedded run's data folder, e.g. data/demo after ./redotrail demo (default: REDOTRAIL_DATA_DIR, "
        "else data/): its log catalog",
    )
    parser.add_argument("--json", action="store_true", help="print the status document as JSON (monitoring)")
    parser.add_argument(
        "--warn-long-trans", metavar="AGE", type=parse_duration, default=None,
        help=f"warn about transactions open longer than AGE (90s, 30m, 1h; default {WARN_LONG_TRANS_ENV} or 1h)",
    )  # fmt: skip
    args = parser.parse_args(argv)
    threshold = warn_threshold() if args.warn_long_trans is None else args.warn_long_trans
    env = dict(os.environ) | ({"REDOTRAIL_DATA_DIR": args.data_dir} if args.data_dir else {})
    if args.data_dir:
        env.pop("REDOTRAIL_CATALOG_DB", None)  # the folder's own catalog
    location = args.catalog or Settings.from_env(env).catalog_db
    missing = missing_catalog(location, DEMO_DATA_DIR)
    if missing is not None:
        err.write(missing + "\n")
        return 1
    with LogCatalog(location) as catalog:
        doc = collect_status(catalog, warn_after_s=threshold)
    out.write(json.dumps(doc, indent=2) + "\n" if args.json else render_status(doc))
    return 0


COMMANDS: dict[str, Callable[[Sequence[str]], int]] = {
    "decode": cmd_decode,
    "dump": cmd_dump,
    "stats": cmd_stats,
    "status": cmd_status,
    "synth": cmd_synth,
}


def main(argv: Sequence[str] | None = None) -> int:
    """Dispatch to ``COMMANDS``; ``RedoError`` -> message on stderr and exit code 1."""
    listing = "\n".join(
        f"  {name:<10} {(fn.__doc__ or '').strip().splitlines()[0]}" for name, fn in sorted(COMMANDS.items())
    )
    parser = argparse.ArgumentParser(
        prog=PROG,
        description="Decode Oracle archived redo logs.",
        epilog=f"commands:\n{listing}\n\n'{PROG} COMMAND -h' shows a command's options.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("command", choices=sorted(COMMANDS), metavar="COMMAND")
    parser.add_argument("args", nargs=argparse.REMAINDER, help=argparse.SUPPRESS)
    ns = parser.parse_args(argv)
    try:
        return COMMANDS[ns.command](ns.args)
    except RedoError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    except BrokenPipeError:  # e.g. `dump LOG | head`
        sys.stderr.close()
        return 0


if __name__ == "__main__":
    sys.exit(main())
