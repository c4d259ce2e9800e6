"""``random_scenario(one_transaction=True)``: the memory benchmark's workload, every change in one
transaction committed at the end, and it decodes to the trail the generator expects.

Also what makes such a transaction go through the core's assemble stage in bounded memory: its
changes spill past the table's ``memory_limit``, and its trail rows, all emitted by the one ``feed``
that meets the commit, go through the stage's output queue, which spills past ``queue_bytes``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest

from redo_lib.dictionary import load_dictionary
from redo_lib.native import native
from redo_lib.pipeline import ORDER_FIELDS, describe_logs, iter_batch_arrow
from redo_lib.synth import generate, random_scenario
from redo_lib.trail.model import TransInd
from redo_lib.trail.schema import from_row
from tests.unit.native.core_assembly import spill_files
from tests.unit.redo_lib.synth.test_roundtrip_decode import _assert_same


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_one_transaction_holds_the_whole_workload_and_decodes(seed: int, tmp_path: Path) -> None:
    result = generate(random_scenario(seed, steps=300, one_transaction=True), tmp_path, record_steps=False)
    trail = [json.loads(line) for line in result.trail.read_text(encoding="utf-8").splitlines()]
    assert len({r["xid"] for r in trail}) == 1 and len(trail) > 100
    inds = [r["trans_ind"] for r in trail]
    assert inds[0] == TransInd.FIRST and inds[-1] == TransInd.LAST and set(inds[1:-1]) == {TransInd.MIDDLE}
    _assert_same(result)


def test_one_transaction_spills_and_its_trail_goes_through_a_spilling_queue(tmp_path: Path) -> None:
    result = generate(random_scenario(4, steps=200, one_transaction=True), tmp_path, record_steps=False)
    expected = [json.loads(line) for line in result.trail.read_text(encoding="utf-8").splitlines()]
    changes, queue = tmp_path / "changes", tmp_path / "queue"
    changes.mkdir()
    queue.mkdir()
    table = native.TransactionTable(memory_limit=16, spill_dir=str(changes))
    emitter = native.Emitter(load_dictionary(result.dictionary).to_json())
    stage = native.Assembler(table, emitter, chunk=16, queue_bytes=4096, spill_dir=str(queue))
    staged: list[dict[str, Any]] = []
    spilled_changes = 0
    for batch in iter_batch_arrow(describe_logs(list(result.logs))):
        batch = batch.append_column("carried", pa.array([False] * batch.num_rows, pa.bool_()))
        for start in range(0, batch.num_rows, 50):
            stage.feed(batch.slice(start, 50))
            spilled_changes = max(spilled_changes, spill_files(changes))
            staged.extend(row for b in stage for row in pa.record_batch(b).to_pylist())
    assert spilled_changes >= 1 and stage.spilled_batches > 10
    mine = sorted(
        (r for r in staged if r["xid"] == expected[0]["xid"]), key=lambda r: [r[k] for k in ORDER_FIELDS]
    )
    assert [from_row(r).to_dict() for r in mine] == expected  # besides noise transactions
