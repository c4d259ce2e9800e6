"""A segment outgrows its first extent (synth/database.py, engine.py): the generator asks the datafile
for a further extent, as Oracle extends a full segment, so one transaction can write more than the
first extent's blocks (issue 31's 2 GB transaction)."""

from __future__ import annotations

import pytest

from redo_lib.errors import ScenarioError
from redo_lib.synth.columns import parse_type
from redo_lib.synth.database import TABLE_BLOCKS, Piece, TableState, make_dba
from redo_lib.synth.scenario import ColumnSpec, TableSpec

_SPEC = TableSpec(
    owner="APP",
    name="T",
    columns=(ColumnSpec(name="ID", type=parse_type("NUMBER"), nullable=False),),
    primary_key=("ID",),
)
_BASE = 0x100


def _table(extend: object = None) -> TableState:
    return TableState(_SPEC, obj=70_000, dataobj=70_001, rfile=4, base_block=_BASE, block_size=8192,
                      extend=extend)  # type: ignore[arg-type]  # fmt: skip


def _fill_first_extent(table: TableState) -> None:
    for _ in range(TABLE_BLOCKS - 1):  # the extent's first block is the segment header
        table.allocate(100, fresh=True)


def test_without_a_further_extent_a_full_segment_is_a_scenario_error() -> None:
    table = _table()
    _fill_first_extent(table)
    with pytest.raises(ScenarioError, match=r"APP\.T: out of blocks \(more than 32767\)"):
        table.allocate(100, fresh=True)


def test_a_full_segment_continues_in_the_extent_the_datafile_gives() -> None:
    given: list[int] = []

    def extend() -> int:
        given.append((1 << 22) - TABLE_BLOCKS * (len(given) + 1))
        return given[-1]

    table = _table(extend)
    _fill_first_extent(table)
    block, slot, formatted = table.allocate(100)
    assert given == [(1 << 22) - TABLE_BLOCKS] and (block, slot, formatted) == (given[0], 0, True)
    assert table.dba(block) == make_dba(4, given[0]) and table.hdba == make_dba(4, _BASE)
    # the rows of the new extent have ROWIDs that name it, and sort after the first extent's
    row = table.build_row([7])
    row.pieces = [Piece(block=block, slot=slot, first=0, count=1)]
    first = table.build_row([1])
    first.pieces = [Piece(block=_BASE + 1, slot=0, first=0, count=1)]
    table.add(row, txn=1)
    table.add(first, txn=1)
    assert table.key_of_rowid(table.rowid(row)) == (given[0], 0)
    assert [r.values for r in table.scan()] == [[1], [7]]
    # the further extent fills in turn, then the datafile gives another
    for _ in range(TABLE_BLOCKS - 1):
        table.allocate(100, fresh=True)
    assert len(given) == 1
    table.allocate(100, fresh=True)
    assert len(given) == 2
    # TRUNCATE takes the segment back to its first extent
    table.truncate()
    assert table.allocate(100)[0] == _BASE + 1
