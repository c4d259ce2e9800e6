"""DML statements of the generator: row placement, redo records and expected trail records.

Each function runs one statement for an open transaction of the :class:`~redo_lib.synth.engine.Engine`:
it changes the simulated database, writes the statement's records (one per undo/redo pair, see
``pairs.py``), appends the statement's changes to the transaction's change log (for rollback) and
its expected trail records to the transaction's spool. Multi-row statements visit rows in ROWID
order and emit one trail record per row in that order.

Visibility follows Oracle's for a single statement: rows inserted by another open transaction are
invisible; a row locked by another open transaction that matches the predicate would make the
statement wait, which a script cannot do: ``ScenarioError``.
"""

from __future__ import annotations

import dataclasses
import decimal
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from redo_lib.errors import ScenarioError
from redo_lib.format.model import ChangeVector, DirectLoadBlock, QmiRow, UndoRecord
from redo_lib.scn import Uba
from redo_lib.synth.blocks import write_block_image
from redo_lib.synth.columns import LOB_TYPES, encode, normalize, render
from redo_lib.synth.database import Piece, Row, TableState, make_dba
from redo_lib.synth.expected import pending_record
from redo_lib.synth.lobs import IN_ROW_LIMIT, LobPage
from redo_lib.synth.logs import Placed
from redo_lib.synth.pairs import (
    array_delete_pairs,
    array_insert_pairs,
    delete_pairs,
    insert_pairs,
    logged_indexes,
    update_pairs,
)
from redo_lib.synth.scenario import (
    AppendLob,
    Delete,
    DirectInsert,
    Insert,
    LobWrite,
    Predicate,
    Update,
    xml_storage,
)
from redo_lib.synth.storage import unreadable
from redo_lib.unsupported import UNRENDERABLE

if TYPE_CHECKING:
    from redo_lib.synth.engine import Engine, OpenTxn

__all__ = [
    "Change",
    "append_lob",
    "delete",
    "direct_insert",
    "insert",
    "lob_write",
    "matching",
    "revert",
    "settle",
    "update",
]

_MAX_ARRAY = 255  # QMI / QMD nrow is a u8


@dataclass(slots=True)
class Change:
    """One row change of an open transaction, for rollback: the undo records written (with their
    UBAs, in write order) and how to revert the simulated database."""

    undo: list[tuple[UndoRecord, Uba]]
    revert: tuple[Any, ...]


# -- expected records ---------------------------------------------------------------------------------


def _iso(placed: Placed) -> str:
    return placed.time.strftime("%Y-%m-%dT%H:%M:%S")


def _expect(
    t: OpenTxn,
    table: TableState,
    op: str,
    row: Row,
    placed: Placed,
    columns: Sequence[int],
    values: Sequence[Any],
    *,
    before: Sequence[Any] | None = None,
    changed: Sequence[int] = (),
    old: Sequence[Any] | None = None,
    before_columns: Sequence[int] = (),
    key_columns: Sequence[str] | None = None,
    key_index: Sequence[int] | None = None,
) -> None:
    """Spool the expected record of one row change. ``old``: the row's values before an UPDATE or
    DELETE, for the before images (``update-befores``, ``full-deletes``): the columns of ``columns``
    then ``before_columns`` (an update: the other columns supplementally logged) or every column (a
    delete) with their old values, but an out-of-row LOB, whose old value the redo does not hold
    (only its locator). ``key_columns``: the record's (default the table's; none for a record keyed
    by its ROWID); ``key_index``: the key columns of ``before`` (default the table's; of a record
    keyed by its ROWID, those the redo holds)."""
    if table.spec.storage and unreadable(table, op, row):
        return  # the redo holds it in a form the decoder cannot read: counted, not in the trail
    spec = table.spec
    cols = spec.columns
    dropped = _unrenderable(t, table, op, columns, values)
    if dropped is None:
        return  # it carries a value the decoder cannot render: counted, not in the trail

    def image(idx: Sequence[int], vals: Sequence[Any]) -> list[tuple[str, str | None]]:
        return [(cols[i].name, render(cols[i].type, vals[i])) for i in idx if i not in dropped]

    def lob_sizes(idx: Sequence[int], vals: Sequence[Any]) -> list[tuple[str, int]]:
        return [
            (cols[i].name, len(encode(cols[i].type, vals[i])))
            for i in idx
            if cols[i].type.name in LOB_TYPES and vals[i] is not None and i not in dropped
        ]

    before_image = before_lobs = None
    if old is not None:
        idx = (
            range(len(cols))
            if op == "DELETE"
            else [*columns, *(i for i in before_columns if i not in columns)]
        )
        held = _held(table, idx, old)
        before_image, before_lobs = image(held, old), lob_sizes(held, old)

    t.spool.append(
        pending_record(
            op=op,
            owner=spec.owner,
            table=spec.name,
            obj=table.obj,
            columns=image(columns, values),
            before=[]
            if before is None
            else image(table.key_index if key_index is None else key_index, before),
            key_columns=table.key_columns if key_columns is None else tuple(key_columns),
            changed=[cols[i].name for i in changed if i not in dropped],
            rowid=table.rowid(row),
            scn=placed.scn,
            subscn=placed.subscn,
            op_time=_iso(placed),
            thread=placed.thread,
            sequence=placed.sequence,
            rba=str(placed.rba),
            lob_columns=lob_sizes(columns, values),
            before_image=before_image,
            before_lobs=before_lobs,
        )
    )


def _unrenderable(
    t: OpenTxn, table: TableState, op: str, columns: Sequence[int], values: Sequence[Any]
) -> frozenset[int] | None:
    """The columns of a table with XMLTYPE columns its expected record leaves out (every hidden
    storage column; an XMLTYPE the capture list leaves out, ``-OWNER.TABLE.COLUMN``), or ``None``
    when the change carries a value of a captured XMLTYPE (its own column or its storage among the
    record's ``columns``): the decoder cannot render it, so the change is counted
    (``expected/unrenderable.json``, counts.json ``unrenderable``) instead of being a record.
    A left-out column's values are counted out of scope and the record is written without it."""
    storage = xml_storage(table.spec.columns)
    if not storage:
        return frozenset()
    name = table.spec.full_name
    dropped: set[int] = set(storage.values())
    counted: list[tuple[str, int, bool]] = []
    for x, h in storage.items():
        column = table.spec.columns[x]
        left_out = f"{name}.{column.name}" in t.left_out
        if left_out:
            dropped.add(x)
        if any(values[i] is not None for i in columns if i in (x, h)):
            counted.append((column.name, column.type.code, left_out))
    captured = [c for c in counted if not c[2]]
    for column_name, code, left_out in counted:
        first = bool(captured) and (column_name, code, left_out) == captured[0]
        t.unrenderable[(name, column_name, code, op if first else "", left_out)] += 1
    if captured:
        t.unsupported[(name, UNRENDERABLE)] += 1  # the kind counts.json reports it under
        return None
    return frozenset(dropped)


def _held(table: TableState, idx: Iterable[int], old: Sequence[Any]) -> list[int]:
    """The columns of ``idx`` whose old value the redo holds: all but an out-of-row LOB's."""
    cols = table.spec.columns
    return [
        i
        for i in idx
        if cols[i].type.name not in LOB_TYPES
        or old[i] is None
        or len(encode(cols[i].type, old[i])) <= IN_ROW_LIMIT
    ]


def _expect_insert(t: OpenTxn, table: TableState, row: Row, placed: Placed) -> None:
    _expect(t, table, "INSERT", row, placed, range(len(row.values)), row.values)


def _expect_delete(t: OpenTxn, table: TableState, row: Row, placed: Placed) -> None:
    # ALL COLUMNS logged: GoldenGate writes the whole row (the undo holds it), as with full deletes
    columns = (
        _held(table, range(len(row.values)), row.values) if table.supplemental == "all" else table.key_index
    )
    _expect(t, table, "DELETE", row, placed, columns, row.values, old=row.values)


# -- INSERT -----------------------------------------------------------------------------------------


def _place(e: Engine, t: OpenTxn, table: TableState, row: Row) -> None:
    """Allocate the row's pieces (a space-management transaction per new block, as noise)."""
    pieces = []
    for first, count, size in table.piece_layout(row):
        block, slot, new = table.allocate(size)
        if new and e.settings.noise.space:
            e.space_transaction(t.log, table, block)
        pieces.append(Piece(block, slot, first, count, size))
    row.pieces = pieces
    row.owner = row.inserted_by = t.ident
    table.add(row, t.ident)


def _index_noise(e: Engine, t: OpenTxn, table: TableState, row: Row) -> None:
    if not (e.settings.noise.index and table.spec.unique_sets):
        return
    txn, _ = e.ensure_xid(t)
    uba = txn.segment.next_uba()
    t.last_uba = uba
    key = b"".join(bytes([len(row.data[i] or b"")]) + (row.data[i] or b"") for i in table.key_index)
    head = row.pieces[0]
    vectors = e.vectors.index_insert(
        txn,
        uba,
        table.index_obj,
        5,
        0x100 + (table.obj % 1000) * 16,
        key,
        (head.block, head.slot),
        e.clock.scn,
    )
    t.log.write(vectors)


def insert(e: Engine, t: OpenTxn, step: Insert) -> None:
    table = e.table(step.table)
    rows = [table.build_row(table.spec.row(values, "insert")) for values in step.rows]
    insert_rows(e, t, table, rows, array=step.array, lob_pieces=step.lob_pieces)


def insert_rows(
    e: Engine,
    t: OpenTxn,
    table: TableState,
    rows: list[Row],
    *,
    array: bool = False,
    lob_pieces: str = "after",
) -> None:
    """Insert ``rows`` (built by ``table.build_row``) into ``table``: an INSERT's, or a row moving
    in from another partition."""
    _, ctx = e.ensure_xid(t)
    group: list[Row] = []

    def flush() -> None:
        if not group:
            return
        undo, redo = array_insert_pairs(ctx, table, group[0].pieces[0].block, group)
        placed = e.write_pair(t, table, undo, redo)
        t.changes.append(
            Change(undo=[(undo, redo.ktb.uba)], revert=("insert", table, list(group), [None] * len(group)))  # type: ignore[union-attr, list-item]
        )
        for row in group:
            _expect_insert(t, table, row, placed)
        group.clear()

    lob_columns = [i for i, c in enumerate(table.spec.columns) if c.type.name in LOB_TYPES]
    for row in rows:
        table.check_unique(row.values, t.ident)
        pages = _new_lobs(e, table, row, lob_columns)
        _place(e, t, table, row)
        single = len(row.pieces) == 1
        if array and len(rows) > 1 and single and not lob_columns and not table.spec.storage:
            if group and (group[0].pieces[0].block != row.pieces[0].block or len(group) >= _MAX_ARRAY):
                flush()
            group.append(row)
            continue
        flush()
        pairs = insert_pairs(ctx, table, row)
        undos: list[tuple[UndoRecord, Uba]] = []
        placements = _write_with_lobs(e, t, table, pairs, pages, lob_pieces, undos)
        _index_noise(e, t, table, row)
        t.changes.append(Change(undo=undos, revert=("insert", table, [row], [None])))
        _expect_insert(t, table, row, placements[0])
    flush()


def direct_insert(e: Engine, t: OpenTxn, step: DirectInsert) -> None:
    """``INSERT /*+ APPEND */``: begin record, then per new block a record [24.6, 19.1] (seed 000)."""
    table = e.table(step.table)
    if any(True for _ in table.locked_rows(t.ident)):
        raise ScenarioError(
            f"{table.spec.full_name}: direct-path insert would wait for another transaction's rows"
        )
    if any(c.type.name in LOB_TYPES for c in table.spec.columns):
        raise ScenarioError(f"{table.spec.full_name}: direct-path inserts of LOB tables are not generated")
    if table.spec.storage:
        raise ScenarioError(
            f"{table.spec.full_name}: direct-path inserts of {table.spec.storage} tables are not generated"
        )
    rows = [table.build_row(table.spec.row(values, "direct insert")) for values in step.rows]
    for row in rows:
        table.check_unique(row.values, t.ident)
    e.write_begin_only(t)
    txn, _ = e.ensure_xid(t)
    groups = table.load_blocks(rows)
    if groups and e.settings.noise.space:
        e.space_transaction(t.log, table, groups[0][0])
    layout = t.log.layout
    for block, members in groups:
        for row in members:
            row.owner = row.inserted_by = t.ident
            table.add(row, t.ident)
        dba = make_dba(table.rfile, block)
        image = write_block_image(
            layout,
            size=e.settings.data_block_size,
            dba=dba,
            dataobj=table.dataobj,
            scn=e.clock.scn,
            xid=txn.xid,
            rows=[_block_row(r) for r in members],
        )
        load = ChangeVector(
            index=1,
            layer=19,
            code=1,
            block_class=1,
            afn=table.rfile,
            dba=dba,
            obj=table.dataobj,
            scn=e.clock.scn,
            seq=1,
            change_type=1,
            body=DirectLoadBlock(dataobj=table.dataobj, lob_id=b"", page_no=0, pdba=dba, data=image),
        )
        placed = t.log.write([e.vectors.marker_24_6(), load])
        for row in members:
            _expect_insert(t, table, row, placed)
    t.changes.append(Change(undo=[], revert=("direct", table, rows, [None] * len(rows))))
    t.direct_tables.add(table.spec.full_name)


def _block_row(row: Row) -> QmiRow:
    data = list(row.data)
    while data and data[-1] is None:
        data.pop()
    return QmiRow(fb=0x2C, lb=1, columns=tuple(data))


# -- WHERE --------------------------------------------------------------------------------------------


def _compile(table: TableState, where: Predicate) -> Callable[[Row], bool]:
    spec = table.spec
    terms: list[tuple[int, str, Any]] = []
    for name, op, value in where.terms:
        i = spec.index_of(name)
        ctype = spec.columns[i].type
        if op == "in":
            if not isinstance(value, list | tuple):
                raise ScenarioError(f"predicate {name} in: needs a list")
            terms.append((i, op, [normalize(ctype, v, f"where {name}") for v in value]))
        elif op == "is_null":
            terms.append((i, op, bool(value)))
        else:
            terms.append((i, op, normalize(ctype, value, f"where {name}")))
    rowids = frozenset(where.rowids)

    def test(row: Row) -> bool:
        if rowids and table.rowid(row) not in rowids:
            return False
        for i, op, target in terms:
            v = row.values[i]
            if op == "is_null":
                if (v is None) != target:
                    return False
                continue
            if v is None or target is None:
                return False
            if op == "in":
                if v not in target:
                    return False
            elif not _COMPARE[op](v, target):
                return False
        return True

    return test


_COMPARE: dict[str, Callable[[Any, Any], bool]] = {
    "eq": lambda a, b: a == b,
    "ne": lambda a, b: a != b,
    "lt": lambda a, b: a < b,
    "le": lambda a, b: a <= b,
    "gt": lambda a, b: a > b,
    "ge": lambda a, b: a >= b,
}


def _candidates(table: TableState, where: Predicate) -> list[Row] | None:
    """Rows that can match ``where`` found through ROWIDs or a unique index (current and deleted
    ones), or ``None`` when the whole table must be scanned."""
    if where.rowids:
        keys = [table.key_of_rowid(r) for r in where.rowids]
        found = (table.rows.get(k) or table.deleted.get(k) for k in keys if k is not None)
        return [r for r in found if r is not None]
    spec = table.spec
    by_column = {spec.index_of(name): (op, value) for name, op, value in where.terms if op in ("eq", "in")}
    for cols in table.unique_sets():
        if not all(i in by_column for i in cols):
            continue
        choices = []
        for i in cols:
            op, value = by_column[i]
            values = value if op == "in" and isinstance(value, list | tuple) else [value]
            choices.append(
                [normalize(spec.columns[i].type, v, f"where {spec.columns[i].name}") for v in values]
            )
        rows: dict[int, Row] = {}
        for key in _product(choices):
            row = table.by_unique(cols, key)
            if row is not None:
                rows[id(row)] = row
        return list(rows.values())
    return None


def _product(choices: list[list[Any]]) -> list[tuple[Any, ...]]:
    out: list[tuple[Any, ...]] = [()]
    for options in choices:
        out = [prefix + (v,) for prefix in out for v in options]
    return out


def matching(e: Engine, t: OpenTxn, table: TableState, where: Predicate) -> list[Row]:
    """Rows the statement of ``t`` changes, in ROWID order (``ScenarioError`` if one is locked)."""
    test = _compile(table, where)
    candidates = _candidates(table, where)
    if candidates is None:
        current = table.scan()
        deleted = list(table.deleted.values())
    else:
        current = sorted((r for r in candidates if table.rows.get(r.key) is r), key=lambda r: r.key)
        deleted = [r for r in candidates if table.deleted.get(r.key) is r]
    hits = []
    for row in current:
        if row.inserted_by not in (None, t.ident):
            continue
        if test(row):
            if row.owner not in (None, t.ident):
                raise ScenarioError(
                    f"{table.spec.full_name}: row {table.rowid(row)} is locked by another open transaction"
                )
            hits.append(row)
    for row in deleted:
        if row.owner != t.ident and test(row):
            raise ScenarioError(
                f"{table.spec.full_name}: row {table.rowid(row)} is deleted by another open transaction"
            )
    return hits


# -- UPDATE / DELETE ----------------------------------------------------------------------------------


def _new_value(table: TableState, i: int, current: Any, expr: Any) -> Any:
    column = table.spec.columns[i]
    if isinstance(expr, dict) and "add" in expr:
        if set(expr) != {"add"} or column.type.name != "NUMBER":
            raise ScenarioError(f"SET {column.name}: only {{add: n}} on NUMBER columns is an expression")
        if current is None:
            return None
        return normalize(column.type, current + decimal.Decimal(str(expr["add"])), f"SET {column.name}")
    value = normalize(column.type, expr, f"SET {column.name}")
    if value is None and not column.nullable:
        raise ScenarioError(f"SET {table.spec.name}.{column.name} = NULL: column is NOT NULL (ORA-01407)")
    return value


new_value = _new_value  # the value of a SET expression (partitions.py checks row movement)


def update(e: Engine, t: OpenTxn, step: Update) -> None:
    table = e.table(step.table)
    if not step.set:
        raise ScenarioError("update without SET columns")
    targets = {table.spec.index_of(name): expr for name, expr in step.set.items()}
    e.ensure_xid(t)
    for row in matching(e, t, table, step.where):
        new = {i: _new_value(table, i, row.values[i], expr) for i, expr in targets.items()}
        for x, h in xml_storage(table.spec.columns).items():
            if x in new:  # SET an XMLTYPE: its storage BLOB holds the new document
                new[h] = new[x]
        update_row(e, t, table, row, new, step.lob_pieces)


def update_row(
    e: Engine, t: OpenTxn, table: TableState, row: Row, new: dict[int, Any], lob_pieces: str
) -> None:
    """Set the columns of ``new`` (index -> value) in ``row`` of ``table``: one UPDATE's row."""
    lobs = [i for i in sorted(new) if table.spec.columns[i].type.name in LOB_TYPES]
    _apply_update(e, t, table, row, new, sorted(new), lob_pieces, lambda r: _new_lobs(e, table, r, lobs))


def append_lob(e: Engine, t: OpenTxn, step: AppendLob) -> None:
    """DBMS_LOB.APPEND on every matching row: the LOB keeps its id, new pages hold the added data."""
    table = e.table(step.table)
    i = table.spec.index_of(step.column)
    ctype = table.spec.columns[i].type
    if ctype.name not in LOB_TYPES:
        raise ScenarioError(f"append_lob: {table.spec.name}.{step.column} is not a LOB column")
    if table.spec.securefile or table.spec.locator_pages:
        raise ScenarioError(
            f"append_lob: {table.spec.name} stores SecureFile LOBs; appends are not generated"
        )
    added = normalize(ctype, step.value, f"append_lob {step.column}")
    if added is None:
        return  # appending NULL or '' leaves the LOB as it is
    e.ensure_xid(t)
    for row in matching(e, t, table, step.where):
        old = row.values[i]
        if old is None:
            raise ScenarioError(f"append_lob: {table.spec.name}.{step.column} is NULL (ORA-22275)")
        locator = row.data[i]
        assert locator is not None

        def lobs(r: Row, old: Any = old, locator: bytes = locator) -> list[LobPage]:
            data, pages = e.lob_space.append(locator, encode(ctype, old), encode(ctype, added))
            r.data[i] = data
            return pages

        _apply_update(e, t, table, row, {i: old + added}, [i], step.lob_pieces, lobs)


def _count(value: Any, name: str, what: str) -> int:
    """An integer argument of a DBMS_LOB call: NULL or not an integer is VALUE_ERROR (ORA-06502)."""
    if value is None or isinstance(value, bool) or not isinstance(value, int | str):
        raise ScenarioError(f"{what}: {name} {value!r} is not an integer (ORA-06502)")
    try:
        return int(value)
    except ValueError:
        raise ScenarioError(f"{what}: {name} {value!r} is not an integer (ORA-06502)") from None


def _written(ctype: Any, step: LobWrite, old: Any, what: str) -> tuple[Any, int, int] | None:
    """The LOB's value after ``step`` on ``old`` (a str for CLOB / NCLOB, bytes for BLOB) and the range
    of characters / bytes the call wrote (a gap past the end it fills included); ``None`` when the
    call changes nothing (a TRIM to the current length, an ERASE starting past the end)."""
    fill = b"\x00" if isinstance(old, bytes) else " "
    if step.kind == "trim":
        length = _count(step.length, "length", what)
        if length < 0:
            raise ScenarioError(f"{what}: length {length} is out of range (ORA-21560)")
        if length > len(old):
            raise ScenarioError(
                f"{what}: length {length} is greater than the LOB's length {len(old)} (ORA-22926)"
            )
        return None if length == len(old) else (old[:length], length, length)
    offset = _count(step.offset, "offset", what)
    if offset < 1:
        raise ScenarioError(f"{what}: offset {offset} is out of range (ORA-21560)")
    start = offset - 1
    if step.kind == "erase":
        amount = _count(step.amount, "amount", what)
        if amount < 1:
            raise ScenarioError(f"{what}: amount {amount} is out of range (ORA-21560)")
        amount = min(amount, len(old) - start)  # erasing stops at the LOB's end
        if amount <= 0:
            return None
        return old[:start] + fill * amount + old[start + amount :], start, start + amount
    data = normalize(ctype, step.value, what)
    if not data:
        raise ScenarioError(f"{what}: amount 0 is out of range (ORA-21560)")
    padded = old + fill * (start - len(old)) if start > len(old) else old
    return padded[:start] + data + padded[start + len(data) :], min(start, len(old)), start + len(data)


def lob_write(e: Engine, t: OpenTxn, step: LobWrite) -> None:
    """DBMS_LOB.WRITE / TRIM / ERASE through the locator of every matching row (BasicFile): the LOB
    keeps its id, the pages the call changes are written under new DBAs, the row change rewrites the
    locator (or, in the row, its inline data); the trail's UPDATE carries the whole new value."""
    table = e.table(step.table)
    what = f"lob_{step.kind} {table.spec.name}.{step.column}"
    i = table.spec.index_of(step.column)
    ctype = table.spec.columns[i].type
    if ctype.name not in LOB_TYPES:
        raise ScenarioError(f"{what}: not a LOB column")
    if table.spec.securefile or table.spec.locator_pages:
        kind = "SecureFile LOBs" if table.spec.securefile else "locator_pages"
        raise ScenarioError(
            f"{what}: {table.spec.name} has {kind}; writes through the locator are not generated"
        )
    e.ensure_xid(t)
    for row in matching(e, t, table, step.where):
        old = row.values[i]
        if old is None:
            raise ScenarioError(f"{what}: the column is NULL, no LOB locator (ORA-22275)")
        done = _written(ctype, step, old, what)
        if done is None:
            continue
        value, lo, hi = done
        touched = (len(encode(ctype, value[:lo])), len(encode(ctype, value[:hi])))
        locator = row.data[i]
        assert locator is not None

        def lobs(
            r: Row, value: Any = value, locator: bytes = locator, touched: Any = touched
        ) -> list[LobPage]:
            data, pages = e.lob_space.rewrite(locator, encode(ctype, value), touched)
            r.data[i] = data
            return [dataclasses.replace(p, column=i + 1) for p in pages]

        _apply_update(e, t, table, row, {i: value}, [i], step.lob_pieces, lobs)


def _new_lobs(e: Engine, table: TableState, row: Row, columns: Sequence[int]) -> list[LobPage]:
    """New LOBs for the LOB columns among ``columns``: their data becomes the locator (§7.8); the
    pages to write are returned."""
    pages: list[LobPage] = []
    for i in columns:
        data = row.data[i]
        if data is not None:
            row.data[i], written = e.lob_space.store(
                data, securefile=table.spec.securefile, locator_pages=table.spec.locator_pages
            )
            pages.extend(dataclasses.replace(p, column=i + 1) for p in written)
    return pages


def _write_with_lobs(
    e: Engine,
    t: OpenTxn,
    table: TableState,
    pairs: Sequence[Any],
    pages: Sequence[LobPage],
    placement: str,
    undos: list[tuple[UndoRecord, Uba]],
) -> list[Placed]:
    """The row's pairs and its LOB pages (before or after them); ``undos`` gets every undo record
    written, in write order (rollback compensates them newest first)."""
    if placement == "before":
        undos.extend(_write_pages(e, t, table, pages))
    placements = [e.write_pair(t, table, undo, redo) for undo, redo in pairs]
    undos.extend((u, r.ktb.uba) for u, r in pairs)
    if placement != "before":
        undos.extend(_write_pages(e, t, table, pages))
    return placements


def _write_pages(
    e: Engine, t: OpenTxn, table: TableState, pages: Sequence[LobPage]
) -> list[tuple[UndoRecord, Uba]]:
    """LOB pages as 26.2 pieces (their undo records returned, for rollback), or as 26.6 page images
    (``securefile: images``: no undo; a rollback to a savepoint leaves them unattached, counted);
    BasicFile pages past the table's ``locator_pages`` also get LOB index entries (10.2), one per up
    to 8 consecutive pages of one LOB."""
    if table.spec.securefile == "images":
        for p in pages:
            e.write_lob_image(t, table, p)
        return []
    undos = [e.write_lob_piece(t, table, p) for p in pages]
    groups: list[list[LobPage]] = []
    for p in pages:
        if not table.spec.locator_pages or p.page < table.spec.locator_pages:
            continue
        last = groups[-1][-1] if groups else None
        if (
            last
            and last.lob_id == p.lob_id
            and last.page + 1 == p.page
            and len(groups[-1]) < _INDEX_KEY_PAGES
        ):
            groups[-1].append(p)
        else:
            groups.append([p])
    for g in groups:
        undos.append(e.write_lob_index(t, table, g[0].lob_id, g[0].page, [p.dba for p in g]))
    return undos


_INDEX_KEY_PAGES = 8  # page DBAs per LOB index key (a 10.8 key holds 8, §5.7)


def _apply_update(
    e: Engine,
    t: OpenTxn,
    table: TableState,
    row: Row,
    new: dict[int, Any],
    changed: Sequence[int],
    placement: str,
    lobs: Callable[[Row], list[LobPage]],
) -> None:
    _, ctx = e.ensure_xid(t)
    trial = list(row.values)
    for i, v in new.items():
        trial[i] = v
    table.check_unique(trial, t.ident, row)
    old_values = list(row.values)
    old_data = list(row.data)
    prev = row.owner
    table.set_values(row, new)
    pages = lobs(row)
    row.owner = t.ident
    pairs = update_pairs(ctx, table, row, old_data, changed)
    if e.settings.noise.cleanout:  # a block cleanout in the KTB of the first redo (seed 000's 11.5)
        undo0, redo0 = pairs[0]
        assert redo0.ktb is not None
        pairs[0] = (
            undo0,
            dataclasses.replace(redo0, ktb=dataclasses.replace(redo0.ktb, cleanout_scn=e.clock.scn)),
        )
    undos: list[tuple[UndoRecord, Uba]] = []
    placements = _write_with_lobs(e, t, table, pairs, pages, placement, undos)
    t.changes.append(
        Change(
            undo=undos,
            revert=(
                "update",
                table,
                row,
                {i: old_values[i] for i in new},
                prev,
                {i: old_data[i] for i in new},
            ),
        )
    )
    # what the redo holds of the old row: the changed columns (undo) and the supplemental ones
    logged = logged_indexes(table, changed)
    held = set(changed) | set(logged)
    if not all(i in held for i in table.key_index):
        # minimal logging: the key is not in the redo, the record is keyed by its ROWID (docs/tables.md):
        # the key columns it holds, then the changed ones; a change of one of those is a key update
        keys = [i for i in table.key_index if i in held]
        columns = keys + [i for i in sorted(changed) if i not in keys]
        key_changed = any(i in new and new[i] != old_values[i] for i in keys)
        _expect(
            t, table, "PK_UPDATE" if key_changed else "UPDATE", row, placements[0], columns, row.values,
            before=old_values if key_changed else None, changed=changed, old=old_values,
            before_columns=logged, key_columns=(), key_index=keys,
        )  # fmt: skip
        return
    key_changed = any(i in new and new[i] != old_values[i] for i in table.key_index)
    columns = sorted(set(table.key_index) | set(changed))
    if key_changed:
        _expect(
            t, table, "PK_UPDATE", row, placements[0], columns, row.values, before=old_values, changed=changed,
            old=old_values, before_columns=logged,
        )  # fmt: skip
    else:
        _expect(
            t, table, "UPDATE", row, placements[0], columns, row.values, changed=changed, old=old_values,
            before_columns=logged,
        )  # fmt: skip


def delete(e: Engine, t: OpenTxn, step: Delete) -> None:
    table = e.table(step.table)
    delete_rows(e, t, table, matching(e, t, table, step.where), array=step.array)


def delete_rows(e: Engine, t: OpenTxn, table: TableState, rows: list[Row], *, array: bool = False) -> None:
    """Delete ``rows`` of ``table`` (a DELETE's, or a row moving to another partition)."""
    _, ctx = e.ensure_xid(t)
    group: list[Row] = []

    def remove(members: list[Row]) -> list[int | None]:
        prev = [r.owner for r in members]
        for r in members:
            table.delete(r)
            r.owner = t.ident
        return prev

    def flush() -> None:
        if not group:
            return
        undo, redo = array_delete_pairs(ctx, table, group[0].pieces[0].block, group)
        placed = e.write_pair(t, table, undo, redo)
        for row in group:
            _expect_delete(t, table, row, placed)
        t.changes.append(
            Change(undo=[(undo, redo.ktb.uba)], revert=("delete", table, list(group), remove(group)))  # type: ignore[union-attr, list-item]
        )
        group.clear()

    for row in rows:
        if array and len(rows) > 1 and len(row.pieces) == 1:
            if group and (group[0].pieces[0].block != row.pieces[0].block or len(group) >= _MAX_ARRAY):
                flush()
            group.append(row)
            continue
        flush()
        pairs = delete_pairs(ctx, table, row)
        placements = [e.write_pair(t, table, undo, redo) for undo, redo in pairs]
        _expect_delete(t, table, row, placements[0])
        t.changes.append(
            Change(undo=[(u, r.ktb.uba) for u, r in pairs], revert=("delete", table, [row], remove([row])))  # type: ignore[union-attr, misc]
        )
    flush()


# -- rollback and commit of changes -----------------------------------------------------------------


def revert(action: tuple[Any, ...]) -> None:
    """Undo one change in the simulated database (rollback)."""
    kind, table = action[0], action[1]
    if kind in ("insert", "direct"):
        for row in reversed(action[2]):
            table.uninsert(row)
            row.owner = row.inserted_by = None
    elif kind == "delete":
        for row, prev in zip(reversed(action[2]), reversed(action[3]), strict=True):
            table.undelete(row)
            row.owner = prev
    else:  # update
        row, old, prev = action[2], action[3], action[4]
        table.set_values(row, old)
        _restore(row, action[5])
        row.owner = prev


def _restore(row: Row, data: dict[int, bytes | None]) -> None:
    """Put back the stored bytes of columns (LOB locators are not re-derived from values)."""
    for i, d in data.items():
        row.data[i] = d


def settle(action: tuple[Any, ...]) -> None:
    """Commit one change: release row locks, free the space of deleted rows."""
    kind, table = action[0], action[1]
    if kind == "update":
        action[2].owner = None
        return
    for row in action[2]:
        if kind == "delete":
            table.purge(row)
        row.owner = row.inserted_by = None
