"""``random_scenario(one_transaction=True)``: the memory benchmark's workload, every change in one
transaction committed at the end, and it decodes to the trail the generator expects.

Also the streaming emit that makes such a transaction go through in bounded memory: a record is
handed on before the rest of its transaction has been read.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass, replace
from pathlib import Path

import pytest

from redo_lib.assembly.events import ChangeEvent
from redo_lib.assembly.transactions import assemble
from redo_lib.dictionary import load_dictionary
from redo_lib.pipeline import describe_logs, iter_batch_events
from redo_lib.synth import generate, random_scenario
from redo_lib.trail.emit import TrailEmitter
from redo_lib.trail.model import TransInd
from tests.unit.redo_lib.synth.test_roundtrip_decode import _assert_same


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_one_transaction_holds_the_whole_workload_and_decodes(seed: int, tmp_path: Path) -> None:
    result = generate(random_scenario(seed, steps=300, one_transaction=True), tmp_path, record_steps=False)
    trail = [json.loads(line) for line in result.trail.read_text(encoding="utf-8").splitlines()]
    assert len({r["xid"] for r in trail}) == 1 and len(trail) > 100
    inds = [r["trans_ind"] for r in trail]
    assert inds[0] == TransInd.FIRST and inds[-1] == TransInd.LAST and set(inds[1:-1]) == {TransInd.MIDDLE}
    _assert_same(result)


class _Stop(Exception):
    pass


@dataclass
class _Breaking:
    """A transaction's change buffer that fails after its first few changes."""

    changes: list[ChangeEvent]

    def __iter__(self) -> Iterator[ChangeEvent]:
        yield from self.changes
        raise _Stop

    def close(self) -> None:
        pass


def test_emit_hands_on_records_before_reading_the_whole_transaction(tmp_path: Path) -> None:
    result = generate(random_scenario(4, steps=200, one_transaction=True), tmp_path, record_steps=False)
    expected = [json.loads(line) for line in result.trail.read_text(encoding="utf-8").splitlines()]
    committed, _, _ = assemble(iter_batch_events(describe_logs(list(result.logs))))
    (txn,) = [t for t in committed if t.xid.trail() == expected[0]["xid"]]  # besides noise transactions
    dictionary = load_dictionary(result.dictionary)
    assert [r.to_dict() for r in TrailEmitter(dictionary=dictionary).iter_emit(txn)] == expected
    broken = replace(txn, changes=_Breaking(list(txn.changes)[:5]))
    stream = TrailEmitter(dictionary=dictionary).iter_emit(broken)
    assert next(stream).to_dict() == expected[0]  # handed on while the rest is still unread
    with pytest.raises(_Stop):
        list(stream)
