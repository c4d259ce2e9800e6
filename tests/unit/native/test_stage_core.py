"""The assemble stage in the core (``batches.assemble_stream`` on ``native.Assembler``) on its own. It
was checked against the Python stage it replaced (table, emitter, ``reconcile``, the open
transactions' summaries) on every input below and 1,000 random seeds before that was deleted; what
stays is what needs no second implementation:

* a workload cut into two batches and run as the Spark assemble job runs them (each batch's DDL
  applied to its dictionary first, ``batches.evolve_batch_dictionary``, and the emitter without
  applying DDL; the first batch holding the commits at or above a watermark and carrying its open
  and held transactions into the second, in begin order) gives, in commit order, the trail the
  generator derived from the SQL, with transactions spilling (a few events in memory);
* each batch's output comes trail rows first, then the open transactions' events in begin order,
  then its counts; the counts balance (``pipeline.balance``), what the first carries out is what the
  second carries in, and the open transactions' summaries add up to it;
* the output queue spilling changes nothing.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest

from redo_lib.assembly.events import EventKind, event_to_row, events_schema
from redo_lib.batch_dictionary import evolve_batch_dictionary
from redo_lib.batches import assemble_stream, staged_trail_schema
from redo_lib.lob_carry import lob_pages_schema
from redo_lib.pipeline import ORDER_FIELDS, balance
from redo_lib.trail.schema import from_row

from .core_assembly import Workload, generated, sys_transactions

RESETLOGS = 1224959854
# the Spark job's redo order of a batch's DDL (spark_jobs/assemble.py SORT, without usn and slot)
DDL_ORDER = ("scn", "subscn", "thread", "seq", "block", "offset", "vector")


def _events_batch(rows: list[dict[str, Any]]) -> pa.RecordBatch:
    return pa.RecordBatch.from_pylist(rows, schema=events_schema().append(pa.field("carried", pa.bool_())))


def run_batch(rows: list[dict[str, Any]], carried: list[dict[str, Any]], dictionary: str | None,
              hold_from: int | None, memory_limit: int, chunk: int = 500) -> dict[str, Any]:  # fmt: skip
    """``assemble_stream`` over a batch's event rows, the carried-in ones first and flagged, with the
    emitter applying no DDL (the Spark job applies it to ``dictionary`` beforehand): its trail rows,
    open events and counts, checked to come in that order and to add up."""
    event_rows = [{**r, "carried": True} for r in carried] + [{**r, "carried": False} for r in rows]
    batches = [_events_batch(event_rows[i : i + chunk]) for i in range(0, len(event_rows), chunk)]
    out = list(assemble_stream(batches, dictionary, {"apply_ddl": False}, resetlogs_id=RESETLOGS,
                               memory_limit=memory_limit, hold_from=hold_from, chunk=chunk // 3 + 1))  # fmt: skip
    kinds = [kind for kind, _ in out]
    assert kinds == sorted(kinds, key=["trail", "open", "lobs", "counts"].index), (
        "trail, open, LOB pages, counts"
    )
    assert kinds.count("counts") == 1
    assert all(b.schema.equals(staged_trail_schema()) for kind, b in out if kind == "trail")
    assert all(b.schema.equals(events_schema()) for kind, b in out if kind == "open")
    assert all(b.schema.equals(lob_pages_schema()) for kind, b in out if kind == "lobs")
    trail = [r for kind, b in out if kind == "trail" for r in b.to_pylist()]
    opened = [r for kind, b in out if kind == "open" for r in b.to_pylist()]
    counts = out[-1][1]
    assert balance(counts) == {}
    summaries = counts["open_transactions"]
    begins = [r for r in opened if r["kind"] == EventKind.BEGIN]
    assert sorted(summaries) == sorted(f"{e['usn']}.{e['slot']}.{e['sqn']}" for e in begins)
    positions = [[e[k] for k in DDL_ORDER] for e in begins]
    assert positions == sorted(positions), "the open transactions in begin order"
    assert counts["transactions"]["open_carried_out"] == len(summaries)
    carried_out = sum(n for ops in counts["carried_out"].values() for n in ops.values())
    assert sum(s["changes"] for s in summaries.values()) == carried_out
    held = [s["held_commit_scn"] for s in summaries.values() if "held_commit_scn" in s]
    assert len(held) == counts["transactions"]["held_carried_out"]
    assert all(hold_from is not None and scn >= hold_from for scn in held)
    return {"trail": trail, "open": opened, "counts": counts}


def run_two_batches(w: Workload, tmp: Path, cut: float, hold: bool, memory_limit: int) -> int:
    """The workload's events cut at ``cut`` into two batches run as the Spark job runs them (the
    first holding commits at or above the SCN 3 below the cut when ``hold``), the first's open
    events carried into the second; their trails in commit order are the generator's. How many
    trail rows and carried events there were."""
    rows = [event_to_row(e) for e in w.events]
    n = int(len(rows) * cut)
    hold_from = rows[n]["scn"] - 3 if hold and n < len(rows) else None
    dictionary: str | None = str(tmp / "dictionary.json")
    Path(dictionary).write_text(w.dictionary.to_json())
    carried: list[dict[str, Any]] = []
    results = []
    for index, (part, mark) in enumerate([(rows[:n], hold_from), (rows[n:], None)]):
        # the driver: the batch's DDL (carried in or its own) below the watermark, in redo order
        ddl = [
            r for r in [*carried, *part] if r["kind"] == EventKind.DDL and (mark is None or r["scn"] < mark)
        ]
        ddl.sort(key=lambda r: [r[k] for k in DDL_ORDER])
        # and the SYS row changes of the transactions that made them (new partitions, data objects),
        # as batch_dictionary.dictionary_transactions reads them from the batch's files
        every = [{**r, "carried": True} for r in carried] + [{**r, "carried": False} for r in part]

        def sys_events(objs: Any, every: list[dict[str, Any]] = every) -> Any:
            kept = sys_transactions(every, objs)
            return iter([_events_batch(kept)] if kept else [])

        dictionary, _, problems = evolve_batch_dictionary(
            dictionary, ddl, str(tmp / f"batch-{index}"), sys_events=sys_events, hold_from=mark,
            resetlogs_id=RESETLOGS,
        )  # fmt: skip
        assert problems == []
        result = run_batch(part, carried, dictionary, mark, memory_limit)
        if index:
            assert result["counts"]["carried_in"] == results[-1]["counts"]["carried_out"]
        results.append(result)
        carried = result["open"]
    trail = sorted(
        (r for result in results for r in result["trail"]), key=lambda r: [r[k] for k in ORDER_FIELDS]
    )
    got = [from_row(r).to_dict() for r in trail]
    for i, (g, e) in enumerate(zip(got, w.expected, strict=False)):
        assert g == e, f"record {i}"
    assert len(got) == len(w.expected)
    return len(trail) + len(results[0]["open"])


@pytest.fixture(scope="module")
def gen_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("native-stage")


@pytest.mark.parametrize(
    "name", ["basic_dml", "lobs", "long_transaction", "rac_two_threads", "schema_changes"]
)
def test_named_scenario(name: str, gen_dir: Path, tmp_path: Path) -> None:
    assert run_two_batches(generated(name, gen_dir), tmp_path, 0.5, False, 50_000) > 0


@pytest.mark.parametrize("seed", range(4))
def test_random_seed_in_two_batches_with_held_commits_and_spills(
    seed: int, gen_dir: Path, tmp_path: Path
) -> None:
    assert run_two_batches(generated(f"ddl-{seed}", gen_dir), tmp_path, 0.3 + seed / 10, True, 4) > 0


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(4, 1004))
def test_random_seed_sweep(seed: int, gen_dir: Path, tmp_path: Path) -> None:
    """1,000 random seeds (with the ones above) in two batches."""
    w = generated(f"seed-{seed}", gen_dir)
    run_two_batches(w, tmp_path, (seed % 7 + 1) / 8, seed % 2 == 0, 4 + seed % 50)


def test_a_spilling_output_queue_gives_the_same_batches(gen_dir: Path) -> None:
    """A batch's trail rows through a queue of one byte (every record batch but the first goes
    through the spill file) equal the rows kept in memory, in order."""
    from redo_lib.native import native

    w = generated("seed-0", gen_dir)
    batch = _events_batch([{**event_to_row(e), "carried": False} for e in w.events])

    def run(queue_bytes: int) -> tuple[list[Any], int]:
        table = native.TransactionTable()
        emitter = native.Emitter(w.dictionary.to_json())
        stage = native.Assembler(table, emitter, chunk=3, queue_bytes=queue_bytes)
        stage.feed(batch)
        rows = [row for b in stage for row in pa.record_batch(b).to_pylist()]
        return rows, stage.spilled_batches

    kept, none_spilled = run(1 << 30)
    spilled, spilled_batches = run(1)
    assert none_spilled == 0 and spilled_batches >= len(kept) // 3 - 1 > 10
    assert spilled == kept
