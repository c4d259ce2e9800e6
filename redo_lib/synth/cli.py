"""``python -m redo_lib synth``: generate archived logs and their expected trail (argparse only).

Examples::

    python -m redo_lib synth include/scenarios/basic_dml.yaml --out /tmp/basic
    python -m redo_lib synth --random --seed 7 --out /tmp/r7
    python -m redo_lib synth --random --seed 1 --size 5GB --no-steps --out /tmp/big
    python -m redo_lib synth --random --seed 3 --out s3://bucket/synth/r3   # via a local temp dir

Settings of the scenario can be overridden (``--compat``, ``--block-size``, ``--big-endian``,
``--log-size``). Prints one JSON line with what was written. Exit codes: 0 ok, 1 a ``RedoError``
(e.g. ``ScenarioError``), 2 usage.
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import json
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import TextIO

from redo_lib.errors import RedoError
from redo_lib.progress import Progress
from redo_lib.synth.engine import Engine
from redo_lib.synth.generate import generate
from redo_lib.synth.load import load_scenario
from redo_lib.synth.randomized import random_scenario
from redo_lib.synth.scenario import COMPAT_NAMES, Scenario, parse_size

__all__ = ["run"]


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m redo_lib synth", description=(__doc__ or "").splitlines()[0]
    )
    parser.add_argument("scenario", nargs="?", help="scenario YAML file (or --random)")
    parser.add_argument("--out", required=True, help="output folder, or s3://bucket/prefix")
    parser.add_argument("--random", action="store_true", help="generate a random valid scenario")
    parser.add_argument("--seed", type=int, default=0, help="seed of --random (default 0)")
    parser.add_argument("--steps", type=int, default=200, help="steps of --random (default 200)")
    parser.add_argument("--size", help="with --random: stop when the logs reach this size, e.g. 5GB")
    parser.add_argument("--max-rows", type=int, default=300, help="with --random: rows per table at most")
    parser.add_argument("--no-direct-load", action="store_true", help="with --random: no direct-path inserts")
    parser.add_argument(
        "--ddl", action="store_true", help="with --random: DDL steps too (random_scenario(ddl=True))"
    )
    parser.add_argument(
        "--no-partitions",
        action="store_true",
        help="with --random --ddl: no partitioned tables nor partition DDL (random_scenario(partitions=False))",
    )
    parser.add_argument(
        "--one-transaction", action="store_true", help="with --random: the whole workload in one transaction"
    )
    parser.add_argument("--compat", choices=sorted(COMPAT_NAMES), help="override the compat version")
    parser.add_argument(
        "--block-size", type=int, choices=(512, 1024, 4096), help="override the redo block size"
    )
    parser.add_argument(
        "--big-endian", action=argparse.BooleanOptionalAction, default=None, help="override endianness"
    )
    parser.add_argument("--log-size", help="override the log switch size, e.g. 64MB")
    parser.add_argument("--no-steps", action="store_true", help="do not list the steps in scenario.yaml")
    return parser


def _scenario(args: argparse.Namespace) -> Scenario:
    if args.random:
        return random_scenario(
            args.seed,
            steps=args.steps,
            size=parse_size(args.size) if args.size else None,
            max_rows=args.max_rows,
            compat=args.compat,
            block_size=args.block_size,
            big_endian=args.big_endian,
            log_size=parse_size(args.log_size) if args.log_size else None,
            direct_load=not args.no_direct_load,
            one_transaction=args.one_transaction,
            ddl=args.ddl,
            partitions=not args.no_partitions,
        )
    scenario = load_scenario(args.scenario)
    overrides = {
        "compat": args.compat,
        "block_size": args.block_size,
        "big_endian": args.big_endian,
        "log_size": parse_size(args.log_size) if args.log_size else None,
    }
    overrides = {k: v for k, v in overrides.items() if v is not None}
    if overrides:
        scenario = dataclasses.replace(scenario, settings=dataclasses.replace(scenario.settings, **overrides))
    return scenario


@contextlib.contextmanager
def _progress(
    args: argparse.Namespace, scenario: Scenario, stream: TextIO | None = None
) -> Iterator[tuple[Progress, Callable[[Engine, int], None]]]:
    """A progress bar on a terminal (nothing elsewhere) and the ``on_step`` that moves it: bytes of
    logs written against ``--size``, else steps against the scenario's (or ``--steps``)."""
    sized = bool(args.random and args.size)
    total = (
        parse_size(args.size)
        if sized
        # a loaded scenario's steps are a tuple (Scenario.steps is typed Iterable)
        else (len(scenario.steps) if not callable(scenario.steps) else args.steps)  # type: ignore[arg-type]
    )
    bar = Progress(f"synth {scenario.name}", total=total, unit="bytes" if sized else "steps", stream=stream)

    def on_step(engine: Engine, count: int) -> None:
        if count % 64:
            return
        bar.update(sum(log.bytes_written for log in engine.logs.values()) if sized else count)

    with bar:
        yield bar, on_step


def run(argv: Sequence[str], out: TextIO = sys.stdout) -> int:
    """Generate archived logs, dictionary and expected trail from a scenario (or --random)."""
    parser = _parser()
    args = parser.parse_args(argv)
    if bool(args.scenario) == bool(args.random):
        parser.error("give a scenario file or --random (not both)")
    started = time.perf_counter()
    try:
        scenario = _scenario(args)
        target = str(args.out)
        with _progress(args, scenario) as (bar, on_step):
            if target.startswith("s3://"):
                with tempfile.TemporaryDirectory(prefix="redotrail-synth-") as tmp:
                    result = generate(scenario, tmp, record_steps=not args.no_steps, on_step=on_step)
                    bar.update(0, total=None, description=f"upload to {target}")
                    _upload(Path(tmp), target.rstrip("/"))
            else:
                result = generate(scenario, target, record_steps=not args.no_steps, on_step=on_step)
    except RedoError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    seconds = time.perf_counter() - started
    summary = {
        "out": target,
        "logs": len(result.logs),
        "log_bytes": result.log_bytes,
        "steps": result.steps,
        "transactions": result.transactions,
        "trail_records": result.records,
        "seconds": round(seconds, 3),
        "mb_per_s": round(result.log_bytes / (1 << 20) / seconds, 2) if seconds else None,
    }
    out.write(json.dumps(summary) + "\n")
    return 0


def _upload(folder: Path, url: str) -> None:
    """Upload every file under ``folder`` to ``url`` + relative path (multipart for large files)."""
    from redo_lib.storage.s3 import upload_file

    for path in sorted(p for p in folder.rglob("*") if p.is_file()):
        upload_file(path, f"{url}/{path.relative_to(folder).as_posix()}")


def main() -> int:
    return run(sys.argv[1:])


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
