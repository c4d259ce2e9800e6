"""The simulated database of the generator: tables, rows, row pieces, blocks and row locks.

Only what the redo needs: every row has a place (data block, slot) for each of its pieces, its
column values (normalised, see ``columns.py``) and their encoded bytes. Rows larger than a data
block are chained (redo-format §6.5): pieces of whole columns, head piece first, each in a block of
its own. Blocks are filled in order; a slot freed by a committed delete (or a rolled-back insert) is
reused, as Oracle reuses free space. A segment's blocks come in extents of ``TABLE_BLOCKS``: its
first when it is made, more from the datafile when they are full (engine.py). Rows are never migrated: an update that grows a row leaves it
where it is. Unique keys (PK, UK) are enforced like ORA-00001, and a row changed by an open
transaction is locked against other sessions: a step that would wait raises ``ScenarioError``.

State machine, mutable by design (style §6.5 "stateful machines"); the engine drives it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from redo_lib.errors import ScenarioError
from redo_lib.synth.columns import encode
from redo_lib.synth.scenario import TableSpec

__all__ = ["TABLE_BLOCKS", "Piece", "Row", "TableState", "make_dba", "render_rowid"]

_ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
_BLOCK_OVERHEAD = 120  # block header, ITLs, row directory slack
TABLE_BLOCKS = 0x8000  # blocks of one extent: a segment's first, reserved when it is made


def make_dba(rfile: int, block: int) -> int:
    """DBA: relative file number in bits 22-31, block in bits 0-21 (redo-format §7.9)."""
    return (rfile << 22) | block


def _base64(value: int, width: int) -> str:
    chars = []
    for _ in range(width):
        chars.append(_ALPHABET[value & 63])
        value >>= 6
    return "".join(reversed(chars))


def render_rowid(dataobj: int, rfile: int, block: int, slot: int) -> str:
    """18-character extended ROWID (redo-format §7.9): 6 chars dataobj, 3 rfile, 6 block, 3 slot."""
    return _base64(dataobj, 6) + _base64(rfile, 3) + _base64(block, 6) + _base64(slot, 3)


@dataclass(slots=True)
class Piece:
    """One row piece: block, slot, and the columns ``first .. first + count - 1`` it holds."""

    block: int
    slot: int
    first: int
    count: int
    size: int = 0


@dataclass(slots=True)
class Row:
    """A row: values (normalised) and their bytes, one per column; pieces, head first."""

    values: list[Any]
    data: list[bytes | None]
    pieces: list[Piece]
    owner: int | None = None  # id of the open transaction that changed it (row lock)
    inserted_by: int | None = None  # id of the open transaction that inserted it (invisible to others)

    @property
    def key(self) -> tuple[int, int]:
        return self.pieces[0].block, self.pieces[0].slot


class _Block:
    __slots__ = ("free", "next_slot", "used")

    def __init__(self) -> None:
        self.used = 0
        self.next_slot = 0
        self.free: list[int] = []


class TableState:
    """A table's rows and space. ``rows`` iterates in ROWID order through :meth:`scan`."""

    def __init__(
        self,
        spec: TableSpec,
        *,
        obj: int,
        dataobj: int,
        rfile: int,
        base_block: int,
        block_size: int,
        supplemental: str = "primary",
        extend: Callable[[], int] | None = None,
    ) -> None:
        self.spec = spec
        # the supplemental logging in force: the table's, else the database's (scenario.py)
        self.supplemental = supplemental
        self.obj = obj
        self.dataobj = dataobj
        self.rfile = rfile
        self.hdba = make_dba(rfile, base_block)
        self.index_obj = obj + 1  # the PK / UK index segment (noise only)
        self.key_columns = spec.key
        self.key_index = tuple(spec.index_of(k) for k in self.key_columns)
        self.capacity = block_size - _BLOCK_OVERHEAD
        self.rows: dict[tuple[int, int], Row] = {}
        self.deleted: dict[tuple[int, int], Row] = {}  # deleted by an open transaction (still locked)
        self._base = base_block
        self._blocks: dict[int, _Block] = {}
        self._current = 0
        self._next_block = base_block + 1
        self._extent_end = base_block + TABLE_BLOCKS
        # a further extent of TABLE_BLOCKS when the segment's are full: its first block, from the
        # datafile's allocator (engine.py); without one the segment cannot grow past its first
        self._extend = extend
        self._reusable: dict[int, None] = {}  # blocks with freed space, oldest first (an ordered set)
        self._unique = [tuple(spec.index_of(c) for c in cols) for cols in spec.unique_sets]
        self._rowid_prefix = _base64(dataobj, 6) + _base64(rfile, 3)
        self._unique_map: list[dict[tuple[Any, ...], Row]] = [{} for _ in self._unique]

    # -- rows -----------------------------------------------------------------------------------

    def rowid(self, row: Row) -> str:
        head = row.pieces[0]
        return self._rowid_prefix + _base64(head.block, 6) + _base64(head.slot, 3)

    def key_of_rowid(self, rowid: str) -> tuple[int, int] | None:
        """(block, slot) of a ROWID of this table, ``None`` if it names another segment."""
        if len(rowid) != 18 or not rowid.startswith(self._rowid_prefix):
            return None
        try:
            digits = [_ALPHABET.index(ch) for ch in rowid[9:]]
        except ValueError:
            return None
        block = slot = 0
        for d in digits[:6]:
            block = block * 64 + d
        for d in digits[6:]:
            slot = slot * 64 + d
        return block, slot

    def by_unique(self, columns: Sequence[int], key: tuple[Any, ...]) -> Row | None:
        """The row holding ``key`` in the unique index on ``columns`` (current or deleted), if any;
        raises ``KeyError`` when there is no unique index on exactly those columns."""
        return self._unique_map[self._unique.index(tuple(columns))].get(key)

    def unique_sets(self) -> list[tuple[int, ...]]:
        return list(self._unique)

    def dba(self, block: int) -> int:
        return make_dba(self.rfile, block)

    def scan(self) -> list[Row]:
        """Current rows in ROWID order (block, slot of the head piece)."""
        return [self.rows[k] for k in sorted(self.rows)]

    def build_row(self, values: Sequence[Any]) -> Row:
        data = [
            None if v is None else encode(c.type, v) for c, v in zip(self.spec.columns, values, strict=True)
        ]
        return Row(values=list(values), data=data, pieces=[])

    def check_unique(self, values: Sequence[Any], txn: int, row: Row | None = None) -> None:
        """ORA-00001 for a duplicate key (``row``: the row being updated, whose own key is fine);
        ``ScenarioError`` too when the key belongs to a row another open transaction deleted (Oracle
        would wait for it)."""
        for cols, index in zip(self._unique, self._unique_map, strict=True):
            key = tuple(values[i] for i in cols)
            if any(v is None for v in key):
                continue
            hit = index.get(key)
            if hit is None or hit is row:
                continue
            names = [self.spec.columns[i].name for i in cols]
            if self.deleted.get(hit.key) is hit:
                if hit.owner == txn:
                    continue
                raise ScenarioError(f"{self.spec.full_name}{names}: key held by another open transaction")
            raise ScenarioError(f"unique constraint on {self.spec.full_name}{names} violated (ORA-00001)")

    def _index(self, row: Row, add: bool) -> None:
        for cols, index in zip(self._unique, self._unique_map, strict=True):
            key = tuple(row.values[i] for i in cols)
            if any(v is None for v in key):
                continue
            if add:
                index[key] = row
            elif index.get(key) is row:
                del index[key]

    # -- space ----------------------------------------------------------------------------------

    def piece_layout(self, row: Row) -> list[tuple[int, int, int]]:
        """Split a row into pieces of whole columns that fit a block: (first, count, size)."""
        sizes = [1 if d is None else len(d) + (1 if len(d) <= 250 else 3) for d in row.data]
        last = max((i for i, d in enumerate(row.data) if d is not None), default=-1)
        total = 3 + sum(sizes[: last + 1])
        if total <= self.capacity:
            return [(0, len(sizes), total)]
        pieces: list[tuple[int, int, int]] = []
        first, size = 0, 9
        for i, s in enumerate(sizes):
            if 9 + s > self.capacity:
                raise ScenarioError(f"{self.spec.full_name}: a column value does not fit a data block")
            if size + s > self.capacity:
                pieces.append((first, i - first, size))
                first, size = i, 9
            size += s
        pieces.append((first, len(sizes) - first, size))
        return pieces

    def allocate(self, size: int, *, fresh: bool = False) -> tuple[int, int, bool]:
        """A (block, slot) for a piece of ``size`` bytes; the bool says a new block was formatted."""
        need = size + 2
        if not fresh:
            block = self._blocks.get(self._current)
            if block is not None and block.used + need <= self.capacity:
                return self._take(self._current, block, need) + (False,)
            while self._reusable:
                number = next(iter(self._reusable))
                del self._reusable[number]
                block = self._blocks[number]
                if block.used + need <= self.capacity:
                    self._current = number
                    return self._take(number, block, need) + (False,)
        if self._next_block >= self._extent_end:
            if self._extend is None:
                raise ScenarioError(f"{self.spec.full_name}: out of blocks (more than {TABLE_BLOCKS - 1})")
            # a new extent, as Oracle adds one to a full segment: a transaction's own deletes free
            # no space it reuses here, so one large transaction can outgrow the first extent
            self._next_block = self._extend()
            self._extent_end = self._next_block + TABLE_BLOCKS
        number = self._next_block
        self._next_block += 1
        block = _Block()
        self._blocks[number] = block
        if not fresh:
            self._current = number
        return self._take(number, block, need) + (True,)

    def load_blocks(self, rows: Sequence[Row]) -> list[tuple[int, list[Row]]]:
        """Direct-path load: fresh blocks above the high-water mark, filled in order (one piece per
        row); sets each row's piece; returns (block, rows) groups in slot order."""
        groups: list[tuple[int, list[Row]]] = []
        for row in rows:
            layout = self.piece_layout(row)
            if len(layout) != 1:
                raise ScenarioError(f"{self.spec.full_name}: a direct-path row must fit a data block")
            _, count, size = layout[0]
            block = self._blocks.get(groups[-1][0]) if groups else None
            if block is None or block.used + size + 2 > self.capacity or len(groups[-1][1]) >= 255:
                number, slot, _ = self.allocate(size, fresh=True)
                groups.append((number, [row]))
            else:
                number, slot = self._take(groups[-1][0], block, size + 2)
                groups[-1][1].append(row)
            row.pieces = [Piece(number, slot, 0, count, size)]
        return groups

    def _take(self, number: int, block: _Block, need: int) -> tuple[int, int]:
        block.used += need
        if block.free:
            block.free.sort()
            return number, block.free.pop(0)
        block.next_slot += 1
        return number, block.next_slot - 1

    def release(self, pieces: Sequence[Piece]) -> None:
        """Give the space of pieces back (after a committed delete or a rolled-back insert)."""
        for p in pieces:
            block = self._blocks[p.block]
            block.used -= p.size + 2
            block.free.append(p.slot)
            if p.block != self._current:
                self._reusable[p.block] = None

    # -- changes ----------------------------------------------------------------------------------

    def add(self, row: Row, txn: int) -> None:
        """Insert (the row has its pieces); the caller has checked uniqueness."""
        self.rows[row.key] = row
        self._index(row, True)

    def delete(self, row: Row) -> None:
        """Delete by an open transaction: the row keeps its space and key until commit."""
        del self.rows[row.key]
        self.deleted[row.key] = row

    def undelete(self, row: Row) -> None:
        """Roll a delete back."""
        del self.deleted[row.key]
        self.rows[row.key] = row
        self._index(row, True)

    def purge(self, row: Row) -> None:
        """Commit of a delete: free key and space."""
        if self.deleted.get(row.key) is row:
            del self.deleted[row.key]
        self._index(row, False)
        self.release(row.pieces)

    def uninsert(self, row: Row) -> None:
        """Roll an insert back: free key and space."""
        del self.rows[row.key]
        self._index(row, False)
        self.release(row.pieces)

    def set_values(self, row: Row, changes: dict[int, Any]) -> None:
        """Update columns in place (the caller has checked uniqueness on a trial row)."""
        self._index(row, False)
        for i, v in changes.items():
            row.values[i] = v
            row.data[i] = None if v is None else encode(self.spec.columns[i].type, v)
        self._index(row, True)

    # -- DDL (the engine has checked that no open transaction changed the table) ---------------------

    def drop_problem(self, index: int) -> str | None:
        """Why column ``index`` cannot be dropped from the rows (``None``: it can): a chained row
        piece that holds only that column would be left empty (not generated)."""
        for row in self.rows.values():
            if len(row.pieces) > 1 and any(p.count == 1 and p.first == index for p in row.pieces):
                return f"{self.spec.full_name}: a chained row piece holds only that column (not generated)"
        return None

    def reshape(self, spec: TableSpec, *, drop: int | None = None) -> None:
        """The table under its new shape ``spec`` (ALTER TABLE): ``drop`` is the index of a column
        dropped from every row (the columns after it move down one, redo-format §6.6.2: index =
        segcol# - 1); columns ``spec`` has beyond the rows' are appended NULL (ADD COLUMN: trailing
        NULLs, not stored). Names and types change with ``spec`` alone (RENAME, MODIFY)."""
        for row in self.rows.values():
            if drop is not None:
                del row.values[drop]
                gone = row.data.pop(drop)
                size = 1 if gone is None else len(gone) + (1 if len(gone) <= 250 else 3)
                for piece in row.pieces:
                    if piece.first <= drop < piece.first + piece.count:
                        piece.count -= 1
                        piece.size -= size
                        self._blocks[piece.block].used -= size
                    elif piece.first > drop:
                        piece.first -= 1
            added = len(spec.columns) - len(row.values)
            row.values.extend([None] * added)
            row.data.extend([None] * added)
            row.pieces[-1].count += added
        self.spec = spec
        self.key_columns = spec.key
        self.key_index = tuple(spec.index_of(k) for k in self.key_columns)
        self._unique = [tuple(spec.index_of(c) for c in cols) for cols in spec.unique_sets]
        self._unique_map = [{} for _ in self._unique]
        for row in self.rows.values():
            self._index(row, True)

    def truncate(self) -> None:
        """TRUNCATE TABLE: no rows, no used blocks (the high-water mark goes back to the start)."""
        self.rows.clear()
        self.deleted.clear()
        self._blocks.clear()
        self._reusable.clear()
        self._current = 0
        self._next_block = self._base + 1
        self._extent_end = self._base + TABLE_BLOCKS  # further extents stay with the datafile, unused
        self._unique_map = [{} for _ in self._unique]

    def set_dataobj(self, dataobj: int) -> None:
        """A new data object id for the segment (TRUNCATE, EXCHANGE): later ROWIDs and row vectors
        name it."""
        self.dataobj = dataobj
        self._rowid_prefix = _base64(dataobj, 6) + _base64(self.rfile, 3)

    def exchange(self, other: TableState) -> None:
        """EXCHANGE PARTITION: the two objects swap segments (data object id, blocks, rows); each
        keeps its object id and shape (the caller checked the columns match)."""
        fields = ("dataobj", "hdba", "rows", "deleted", "_base", "_blocks", "_current", "_next_block",
                  "_extent_end", "_reusable", "_rowid_prefix")  # fmt: skip
        for name in fields:
            mine, theirs = getattr(self, name), getattr(other, name)
            setattr(self, name, theirs)
            setattr(other, name, mine)
        for table in (self, other):
            table.reshape(table.spec)  # the unique indexes over the rows each now holds

    def locked_rows(self, txn: int) -> Iterator[Row]:
        """Rows (current or deleted) locked by open transactions other than ``txn``."""
        for row in (*self.rows.values(), *self.deleted.values()):
            if row.owner is not None and row.owner != txn:
                yield row
