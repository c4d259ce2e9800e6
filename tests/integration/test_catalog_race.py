"""Two planners at once never plan the same logs twice: real processes, one shared catalog.

Two Airflow workers may run discovery/planning at the same moment. Here two processes (spawned:
nothing shared but the catalog) loop ``plan_batches`` over the same ready logs until nothing is left,
against a PostgreSQL catalog (the cluster profile; a throwaway server) and a SQLite file (the
default). Every log must end in exactly one scheduled batch, no batch may be returned to both
planners (each would trigger its pipeline run), and the chain must be unbroken: each batch's
``previous_batch`` is the batch before it and it starts right after it.
"""

from __future__ import annotations

import multiprocessing
import time
import traceback
from pathlib import Path
from typing import Any

import pytest

from redo_lib.discovery.batches import plan_batches
from redo_lib.storage.catalog import BatchKind, LogCatalog, LogEntry

pytest_plugins = ["tests.fixtures.postgres"]

RID = 1224959854
LOGS = 60  # thread 1, sequences 1..60
MAX_LOGS = 2  # per batch: 30 batches to fight over
ROUNDS = 3  # the whole race, again on a fresh catalog
LOCKSTEP = 5  # the first calls of both planners start together (2 batches a round: 30 outlast them)


def _log(seq: int) -> LogEntry:
    return LogEntry(
        location=f"s3://arch/archive/1_{seq}_{RID}.arc", size=1024, etag=f"e{seq}", first_seen="t0",
        last_seen="t0", thread=1, sequence=seq, resetlogs_id=RID, resetlogs_scn=1, prev_resetlogs_id=0,
        dbid=1497016494, db_name="FREE", first_scn=seq * 100, next_scn=seq * 100 + 100, block_size=512,
        nab=2, misc_flags=0, ready=True,
    )  # fmt: skip


def _planner(location: str, work_dir: str, start: Any, results: Any, name: str) -> None:
    """One planning worker: start with the other, then plan one batch per call until none is left."""
    try:
        planned: list[str] = []
        with LogCatalog(location) as catalog:
            rounds = 0
            while True:
                if rounds < LOCKSTEP:
                    # both catalogs open, then both plan at once, round after round: on a busy
                    # machine a free-running planner could take every batch before the other starts
                    start.wait(timeout=60)
                rounds += 1
                result = plan_batches(catalog, work_dir=work_dir, max_logs=MAX_LOGS, max_batches=1)
                if not result.batches:
                    break
                planned.extend(b.batch_id for b in result.batches)
                time.sleep(0.005)  # a worker's other work between runs
        results.put((name, planned, None))
    except BaseException:
        results.put((name, [], traceback.format_exc()))


def _race(location: str, work_dir: Path) -> None:
    with LogCatalog(location) as catalog, catalog.transaction():
        for seq in range(1, LOGS + 1):
            catalog.put_log(_log(seq))
    ctx = multiprocessing.get_context("spawn")
    start, results = ctx.Barrier(2), ctx.Queue()
    workers = [
        ctx.Process(target=_planner, args=(location, str(work_dir), start, results, f"planner-{i}"))
        for i in (1, 2)
    ]
    for worker in workers:
        worker.start()
    try:
        outcomes = [results.get(timeout=240) for _ in workers]
    finally:
        for worker in workers:
            worker.join(timeout=30)
            if worker.is_alive():
                worker.kill()
    errors = [f"{name}:\n{error}" for name, _, error in outcomes if error]
    assert not errors, "\n".join(errors)
    returned = [batch_id for _, planned, _ in outcomes for batch_id in planned]
    assert all(planned for _, planned, _ in outcomes), "one planner planned nothing: no race happened"
    assert len(returned) == len(set(returned)) == LOGS // MAX_LOGS  # no batch handed to both planners

    with LogCatalog(location) as catalog:
        chain = catalog.batches(kind=BatchKind.SCHEDULED)
        assert sorted(b.batch_id for b in chain) == sorted(returned)
        in_batches = [e.sequence for b in chain for e in catalog.batch_logs(b.batch_id)]
        assert sorted(in_batches) == list(range(1, LOGS + 1))  # every log in exactly one batch
        assert {e.batch_id for e in catalog.logs()} == {b.batch_id for b in chain}
        previous = None
        for batch in chain:
            assert batch.previous_batch == (previous.batch_id if previous else None), batch
            first = batch.ranges[1][0]
            assert first == (previous.ranges[1][1] + 1 if previous else 1), batch
            previous = batch


@pytest.mark.parametrize("round_", range(ROUNDS))
def test_two_planners_on_one_postgres_catalog_never_plan_a_log_twice(
    postgres_database: str, tmp_path: Path, round_: int
) -> None:
    _race(postgres_database, tmp_path / "work")


def test_two_planners_on_one_sqlite_catalog_never_plan_a_log_twice(tmp_path: Path) -> None:
    _race(str(tmp_path / "catalog" / "logs.sqlite"), tmp_path / "work")
