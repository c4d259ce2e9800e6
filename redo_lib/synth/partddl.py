"""Partition DDL of the generator: ADD / DROP / TRUNCATE / SPLIT / MERGE / EXCHANGE PARTITION.

Each runs as every DDL does (``ddl.run``: implicit commit, a transaction of its own with the 24.1
vector, command type 15 ALTER TABLE, and one DDL record in the expected trail); in the same
transaction, after the 24.1 vector, the SYS row changes Oracle makes (``sysrows.py``):

| statement | SYS rows | effect |
|---|---|---|
| ADD PARTITION | OBJ$ insert (TYPE# 19), TABPART$ insert (composite: TABCOMPART$, then OBJ$ TYPE# 34 + TABSUBPART$ per subpartition) | a new empty partition above the last bound (range) / with new values (list) |
| DROP PARTITION | TABPART$ delete, OBJ$ delete (subpartitions' rows first) | its rows are gone |
| TRUNCATE PARTITION | OBJ$ and TABPART$ (TABSUBPART$) DATAOBJ# update to a new data object id | its rows are gone; later row changes name the new id |
| SPLIT PARTITION | the old partition's rows deleted, two new partitions' rows inserted | rows re-homed into the new segments without row redo |
| MERGE PARTITIONS | the two partitions' rows deleted, the new one's inserted | rows re-homed, no row redo |
| EXCHANGE PARTITION | OBJ$ DATAOBJ# update of the partition and of the table, TABPART$ DATAOBJ# update | the two swap segments (data object ids and rows) |

Partitions after one that moves get their TABPART$ PART# updated to 10 per position (the
generator's numbering). Statement texts::

    ALTER TABLE O.T ADD PARTITION P4 VALUES LESS THAN (400)
    ALTER TABLE O.T DROP PARTITION P1
    ALTER TABLE O.T TRUNCATE PARTITION P1
    ALTER TABLE O.T SPLIT PARTITION P2 AT (150) INTO (PARTITION P2A, PARTITION P2B)
    ALTER TABLE O.T MERGE PARTITIONS P1, P2 INTO PARTITION P12
    ALTER TABLE O.T EXCHANGE PARTITION P1 WITH TABLE O.S
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from redo_lib.errors import ScenarioError
from redo_lib.synth import sysrows
from redo_lib.synth.columns import normalize
from redo_lib.synth.database import Piece, TableState
from redo_lib.synth.partitions import Part, PartitionedTable, add_part, sys_rows_of_part, tabpart_values
from redo_lib.synth.partspec import DEFAULT, MAXVALUE, bound_text
from redo_lib.synth.scenario import Ddl

if TYPE_CHECKING:
    from redo_lib.synth.engine import Engine, OpenTxn

__all__ = ["apply", "check", "new_dataobj", "statement_text"]


def _values_clause(pt: PartitionedTable, values: Any) -> str:
    text = bound_text(pt.spec.column(pt.pb.column).type, values)
    return f"VALUES LESS THAN ({text})" if pt.pb.ranged else f"VALUES ({text})"


def _bound(pt: PartitionedTable, raw: Any, what: str) -> Any:
    ctype = pt.spec.column(pt.pb.column).type
    if pt.pb.ranged:
        return MAXVALUE if raw == MAXVALUE else normalize(ctype, raw, what)
    if raw == DEFAULT:
        return DEFAULT
    return tuple(normalize(ctype, v, what) for v in (raw if isinstance(raw, list | tuple) else [raw]))


def statement_text(step: Ddl, pt: PartitionedTable) -> str:
    name = pt.spec.full_name
    kind = step.statement
    p = step.partitions
    if kind == "add_partition":
        return f"ALTER TABLE {name} ADD PARTITION {p[0]} {_values_clause(pt, _bound(pt, step.values, kind))}"
    if kind in ("drop_partition", "truncate_partition"):
        return f"ALTER TABLE {name} {kind.split('_')[0].upper()} PARTITION {p[0]}"
    if kind == "split_partition":
        at = bound_text(pt.spec.column(pt.pb.column).type, _bound(pt, step.values, kind))
        return (
            f"ALTER TABLE {name} SPLIT PARTITION {p[0]} AT ({at}) "
            f"INTO (PARTITION {step.into[0]}, PARTITION {step.into[1]})"
        )
    if kind == "merge_partitions":
        return f"ALTER TABLE {name} MERGE PARTITIONS {p[0]}, {p[1]} INTO PARTITION {step.into[0]}"
    other = step.with_table if "." in step.with_table else f"{pt.spec.owner}.{step.with_table}"
    return f"ALTER TABLE {name} EXCHANGE PARTITION {p[0]} WITH TABLE {other}"


def _ordered(pt: PartitionedTable) -> list[Part]:
    return pt.parts


def check(e: Engine, step: Ddl, pt: Any) -> None:
    """``ScenarioError`` for what Oracle refuses (or the generator does not write)."""
    kind = step.statement
    if not isinstance(pt, PartitionedTable):
        raise ScenarioError(f"{kind}: {pt.spec.full_name} is not partitioned (ORA-14501)")
    pb = pt.pb
    names = {p.name for p in pt.parts} | {s.name for p in pt.parts for s in p.subs}
    for new in step.into if kind != "add_partition" else step.partitions:
        if new in names and new not in step.partitions:
            raise ScenarioError(f"{kind}: partition {new} exists in {pt.spec.full_name} (ORA-14013)")
    if kind == "add_partition":
        if step.partitions[0] in names:
            raise ScenarioError(f"{kind}: partition {step.partitions[0]} exists (ORA-14013)")
        if pb.kind in ("hash", "interval"):
            raise ScenarioError(
                f"{kind}: ADD PARTITION on a {pb.kind} table is not generated (ORA-14760 for interval)"
            )
        if step.values is None:
            raise ScenarioError(f"{kind} needs values")
        bound = _bound(pt, step.values, kind)
        if pb.ranged:
            last = pt.parts[-1].values
            if last == MAXVALUE or (bound != MAXVALUE and bound <= last):
                raise ScenarioError(f"{kind}: the bound must be above the last partition's (ORA-14074)")
        else:
            if any(p.values == DEFAULT for p in pt.parts):
                raise ScenarioError(f"{kind}: the table has a DEFAULT partition (ORA-14323)")
            used = {v for p in pt.parts for v in p.values}
            if bound != DEFAULT and used & set(bound):
                raise ScenarioError(f"{kind}: a value is in another partition (ORA-14312)")
        return
    parts = [pt.part(n) for n in step.partitions]
    if kind == "drop_partition":
        if len(pt.parts) == 1:
            raise ScenarioError(f"{kind}: cannot drop the only partition (ORA-14083)")
        if pb.kind == "hash":
            raise ScenarioError(f"{kind}: hash partitions are coalesced, not dropped (ORA-14255)")
        if pb.kind == "interval" and not parts[0].interval and sum(not p.interval for p in pt.parts) == 1:
            raise ScenarioError(f"{kind}: the last range partition of an interval table (ORA-14758)")
    elif kind in ("split_partition", "merge_partitions"):
        if pb.kind != "range" or pb.composite:
            raise ScenarioError(f"{kind}: generated for range tables without subpartitions only")
        if kind == "split_partition":
            at = _bound(pt, step.values, kind)
            index = pt.parts.index(parts[0])
            low = pt.parts[index - 1].values if index else None
            high = parts[0].values
            if at == MAXVALUE or (low is not None and at <= low) or (high != MAXVALUE and at >= high):
                raise ScenarioError(f"{kind}: AT must fall inside partition {parts[0].name} (ORA-14080)")
            if step.into[0] == step.into[1]:
                raise ScenarioError(f"{kind}: two different names (ORA-14004)")
        else:
            i, j = sorted(pt.parts.index(p) for p in parts)
            if j != i + 1:
                raise ScenarioError(f"{kind}: range partitions must be adjacent (ORA-14274)")
    elif kind == "exchange_partition":
        if pb.composite:
            raise ScenarioError(f"{kind}: composite partitions are not generated")
        other = e.table(step.with_table)
        if isinstance(other, PartitionedTable) or other.spec.storage:
            raise ScenarioError(
                f"{kind}: {other.spec.full_name} must be a heap table, not partitioned (ORA-14095)"
            )
        shape = [(c.name, c.type) for c in pt.spec.columns]
        if [(c.name, c.type) for c in other.spec.columns] != shape:
            raise ScenarioError(f"{kind}: the tables' columns differ (ORA-14097)")
        for row in other.rows.values():
            part, _ = pt.locate(row.values)
            if part is not parts[0]:
                raise ScenarioError(
                    f"{kind}: a row of {other.spec.full_name} is outside the partition (ORA-14099)"
                )


# -- effects ----------------------------------------------------------------------------------------


def _insert_rows(e: Engine, t: OpenTxn, pt: PartitionedTable, part: Part) -> None:
    for table, values in sys_rows_of_part(e, pt, part):
        sysrows.insert(e, t, table, values)


def _delete_rows(e: Engine, t: OpenTxn, part: Part) -> None:
    for sub in part.subs:
        _delete_one(e, t, "TABSUBPART$", sub.obj)
        _delete_one(e, t, "OBJ$", sub.obj)
    _delete_one(e, t, "TABCOMPART$" if part.subs else "TABPART$", part.obj)
    _delete_one(e, t, "OBJ$", part.obj)


def _delete_one(e: Engine, t: OpenTxn, table: str, obj: int) -> None:
    row = e.sys.find(table, **{"OBJ#": obj})
    if row is not None:
        sysrows.delete(e, t, table, row)


def _update_one(e: Engine, t: OpenTxn, table: str, obj: int, changes: dict[str, Any]) -> None:
    row = e.sys.find(table, **{"OBJ#": obj})
    if row is not None:
        sysrows.update(e, t, table, row, changes)


def _renumber(e: Engine, t: OpenTxn, pt: PartitionedTable) -> None:
    """PART# 10 per position: TABPART$ updates of the partitions whose position changed."""
    for i, part in enumerate(pt.parts, 1):
        if part.part_no != 10 * i:
            part.part_no = 10 * i
            _update_one(e, t, "TABCOMPART$" if part.subs else "TABPART$", part.obj, {"PART#": part.part_no})


def _rehome(pt: PartitionedTable, rows: list[Any]) -> None:
    """Rows moved into the segments that now hold them (SPLIT, MERGE): new places, no row redo."""
    for row in rows:
        part, _ = pt.locate(row.values)
        assert part is not None
        state = pt.segment(part, row.values)
        pieces = []
        for first, count, size in state.piece_layout(row):
            block, slot, _ = state.allocate(size)
            pieces.append(Piece(block, slot, first, count, size))
        row.pieces = pieces
        state.add(row, 0)


def new_dataobj(e: Engine, t: OpenTxn, state: TableState, table: str) -> None:
    state.truncate()
    state.set_dataobj(e.next_object_id())
    _update_one(e, t, "OBJ$", state.obj, {"DATAOBJ#": state.dataobj})
    if table:
        _update_one(e, t, table, state.obj, {"DATAOBJ#": state.dataobj})


def apply(e: Engine, t: OpenTxn, step: Ddl, pt: PartitionedTable) -> None:
    """The SYS row changes (in the DDL's transaction ``t``) and the effect on the tables."""
    kind = step.statement
    if kind == "add_partition":
        bound = _bound(pt, step.values, kind)
        part = add_part(e, pt, step.partitions[0], bound, 10 * (len(pt.parts) + 1))
        pt.parts.append(part)
        _insert_rows(e, t, pt, part)
        return
    parts = [pt.part(n) for n in step.partitions]
    if kind == "drop_partition":
        _delete_rows(e, t, parts[0])
        pt.parts.remove(parts[0])
        _renumber(e, t, pt)
    elif kind == "truncate_partition":
        part = parts[0]
        if part.state is not None:
            new_dataobj(e, t, part.state, "TABPART$")
        for sub in part.subs:
            new_dataobj(e, t, sub.state, "TABSUBPART$")
    elif kind in ("split_partition", "merge_partitions"):
        rows = [r for p in parts for r in p.segments[0].scan()]
        index = min(pt.parts.index(p) for p in parts)
        for p in parts:
            _delete_rows(e, t, p)
            pt.parts.remove(p)
        if kind == "split_partition":
            at = _bound(pt, step.values, kind)
            new = [add_part(e, pt, step.into[0], at, 0), add_part(e, pt, step.into[1], parts[0].values, 0)]
        else:
            new = [
                add_part(
                    e,
                    pt,
                    step.into[0],
                    max(
                        parts, key=lambda p: (p.values == MAXVALUE, p.values if p.values != MAXVALUE else 0)
                    ).values,
                    0,
                )
            ]
        pt.parts[index:index] = new
        _renumber(e, t, pt)
        for part in new:
            _insert_rows(e, t, pt, part)
        _rehome(pt, rows)
    else:  # exchange_partition
        part = parts[0]
        other = e.table(step.with_table)
        assert part.state is not None
        part.state.exchange(other)
        _update_one(e, t, "OBJ$", part.obj, {"DATAOBJ#": part.state.dataobj})
        _update_one(e, t, "OBJ$", other.obj, {"DATAOBJ#": other.dataobj})
        name, _ = tabpart_values(pt, part)
        _update_one(e, t, name, part.obj, {"DATAOBJ#": part.state.dataobj})
