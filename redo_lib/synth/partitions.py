"""Partitioned tables of the generator: segments per partition, DML routing, interval partitions.

A partitioned table (``TableSpec.partition_by``, partspec.py) has no segment of its own (its OBJ$
DATAOBJ# is NULL, as in the 23ai checkpoints where OLR shows it as 0); each partition, or each
subpartition of a composite one, is a ``TableState`` with its own object id, data object id and
blocks. A row change on a partition names the partition's obj and dataobj (undo 5.1 objn / objd,
11.x), the expected trail names the logical table (and the partition's obj, as the decoder's
``obj_of`` gives it).

Routing: range by the upper bounds (exclusive, MAXVALUE last), list by the values (DEFAULT), hash by
``partspec.hash_bucket`` (CRC-32 of the column bytes modulo the count: Oracle's function is
internal), composite partitions then by the hash of the subpartition column. An interval table
creates a missing partition ``[T + k*I, T + (k+1)*I)`` (T the last declared bound) when an insert
needs it, in a recursive transaction committed before the row is written (``create_interval``). An
update that would move a row to another partition is a delete and an insert with ROW MOVEMENT
(``partition_by.row_movement``), refused without it (ORA-14402).

Partition DDL (ADD, DROP, TRUNCATE, SPLIT, MERGE, EXCHANGE) is in ``partddl.py``.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterator, Sequence
from typing import TYPE_CHECKING, Any

from redo_lib.errors import ScenarioError
from redo_lib.synth import dml, sysrows
from redo_lib.synth.cdefrows import rows_of_table as cdef_rows
from redo_lib.synth.colrows import col_rows
from redo_lib.synth.database import Row, TableState
from redo_lib.synth.partspec import (
    MAXVALUE,
    PartDef,
    PartitionBy,
    SubpartDef,
    bound_text,
    hash_bucket,
    route_value,
)
from redo_lib.synth.scenario import AppendLob, Delete, DirectInsert, Insert, LobWrite, TableSpec, Update

if TYPE_CHECKING:
    from redo_lib.synth.engine import Engine, OpenTxn

__all__ = ["Part", "PartitionedTable", "Sub", "object_model", "run_dml", "sys_rows_of_table"]

TYPE_TABLE, TYPE_PARTITION, TYPE_SUBPARTITION = 2, 19, 34


class Sub:
    """A hash subpartition: its own segment."""

    __slots__ = ("name", "state", "sub_no")

    def __init__(self, name: str, state: TableState, sub_no: int) -> None:
        self.name, self.state, self.sub_no = name, state, sub_no

    @property
    def obj(self) -> int:
        return self.state.obj

    @property
    def dataobj(self) -> int:
        return self.state.dataobj


class Part:
    """A partition: a segment of its own, or (composite) its subpartitions'."""

    __slots__ = ("interval", "name", "obj", "part_no", "state", "subs", "values")

    def __init__(self, name: str, obj: int, values: Any, part_no: int) -> None:
        self.name, self.obj, self.values, self.part_no = name, obj, values, part_no
        self.interval = False  # created by an insert (interval table)
        self.state: TableState | None = None
        self.subs: list[Sub] = []

    @property
    def dataobj(self) -> int | None:
        return None if self.state is None else self.state.dataobj

    @property
    def segments(self) -> list[TableState]:
        return [self.state] if self.state is not None else [s.state for s in self.subs]


class PartitionedTable:
    """The logical table: what ``Engine.tables`` holds for a partitioned table. Offers what the
    engine, the expected tables and random scenarios read of a ``TableState`` (``spec``, ``obj``,
    ``rows``, ``rowid`` ...); DML runs on its segments (``run_dml``)."""

    def __init__(self, spec: TableSpec, obj: int) -> None:
        assert spec.partition_by is not None
        self.spec = spec
        self.obj = obj
        self.dataobj = 0  # no segment of its own (OBJ$ DATAOBJ# NULL)
        self.index_obj = obj + 1  # a global key index (noise only)
        self.parts: list[Part] = []
        self.key_columns = spec.key
        self.key_index = tuple(spec.index_of(k) for k in self.key_columns)

    @property
    def pb(self) -> PartitionBy:
        assert self.spec.partition_by is not None
        return self.spec.partition_by

    @property
    def segments(self) -> list[TableState]:
        return [s for p in self.parts for s in p.segments]

    @property
    def rows(self) -> dict[tuple[int, int], Row]:
        return {k: r for s in self.segments for k, r in s.rows.items()}

    @property
    def deleted(self) -> dict[tuple[int, int], Row]:
        return {k: r for s in self.segments for k, r in s.deleted.items()}

    def segment_of(self, row: Row) -> TableState:
        for s in self.segments:
            if s.rows.get(row.key) is row or s.deleted.get(row.key) is row:
                return s
        raise KeyError(row.key)

    def rowid(self, row: Row) -> str:
        return self.segment_of(row).rowid(row)

    def scan(self) -> list[Row]:
        return [r for s in self.segments for r in s.scan()]

    def locked_rows(self, txn: int) -> Iterator[Row]:
        for s in self.segments:
            yield from s.locked_rows(txn)

    def holds(self, state: Any) -> bool:
        return any(state is s for s in self.segments)

    def part(self, name: str) -> Part:
        for p in self.parts:
            if p.name == name:
                return p
        raise ScenarioError(f"{self.spec.full_name} has no partition {name} (ORA-02149)")

    def drop_problem(self, index: int) -> str | None:
        return next((p for p in (s.drop_problem(index) for s in self.segments) if p is not None), None)

    def reshape(self, spec: TableSpec, *, drop: int | None = None) -> None:
        for s in self.segments:
            s.reshape(spec, drop=drop)
        self.spec = spec
        self.key_columns = spec.key
        self.key_index = tuple(spec.index_of(k) for k in self.key_columns)

    def resolved_spec(self) -> TableSpec:
        """The spec with every partition's and subpartition's ids (scenario.yaml, the export)."""
        parts = tuple(
            PartDef(
                name=p.name, values=p.values, obj=p.obj, dataobj=p.dataobj,
                subparts=tuple(SubpartDef(name=s.name, obj=s.obj, dataobj=s.dataobj) for s in p.subs),
            )
            for p in self.parts
        )  # fmt: skip
        pb = dataclasses.replace(self.pb, partitions=parts)
        return dataclasses.replace(self.spec, obj=self.obj, dataobj=None, partition_by=pb)

    # -- routing ------------------------------------------------------------------------------------

    def transition(self) -> Any:
        """The interval table's transition point: the highest declared (non-interval) bound."""
        return max(p.values for p in self.parts if not p.interval)

    def locate(self, values: Sequence[Any]) -> tuple[Part | None, Any]:
        """The partition of a row (``None`` and, for an interval table, the bound of the partition to
        create; ``None`` and ``None``: no partition holds it)."""
        pb = self.pb
        key = values[self.spec.index_of(pb.column)]
        ctype = self.spec.column(pb.column).type
        if pb.kind == "interval" and key is not None:
            declared = [p for p in self.parts if not p.interval]
            top = declared[-1].values
            if key >= top:
                k = (key - top) // pb.interval
                high = top + (k + 1) * pb.interval
                for p in self.parts:
                    if p.values == high:
                        return p, None
                return None, high
            index = route_value(pb, ctype, declared, key)
            return (None, None) if index is None else (declared[index], None)
        ordered = sorted(self.parts, key=_bound_key) if pb.ranged else self.parts
        index = route_value(pb, ctype, ordered, key)
        return (None, None) if index is None else (ordered[index], None)

    def segment(self, part: Part, values: Sequence[Any]) -> TableState:
        if part.state is not None:
            return part.state
        pb = self.pb
        column = self.spec.column(pb.subpartition_column)
        value = values[self.spec.index_of(pb.subpartition_column)]
        return part.subs[hash_bucket(column.type, value, len(part.subs))].state

    def check_unique_elsewhere(self, values: Sequence[Any], txn: int, segment: TableState) -> None:
        """The unique keys of a row going into ``segment``, against the table's other segments
        (``TableState.check_unique`` checks the segment's own rows)."""
        for other in self.segments:
            if other is not segment:
                other.check_unique(values, txn)


def object_model(e: Engine) -> dict[str, dict[str, Any]]:
    """Read-only: the objects the generator's model holds now, per table full name (``OWNER.NAME``):
    ``obj``, ``dataobj`` (``None`` for a partitioned table) and ``partitions`` in the table's
    partition order, each ``{name, obj, dataobj, part_no, subpartitions}`` (a composite partition's
    ``dataobj`` ``None``, its subpartitions ``{name, obj, dataobj, sub_no}``). What the SQL of the
    steps run so far implies the dictionary holds (tests compare a decoder's dictionary with it after
    each batch: call it from ``generate(on_step=...)``)."""
    out: dict[str, dict[str, Any]] = {}
    for name, table in e.tables.items():
        entry: dict[str, Any] = {"obj": table.obj, "dataobj": table.dataobj, "partitions": []}
        if isinstance(table, PartitionedTable):
            entry["dataobj"] = None
            entry["partitions"] = [
                {
                    "name": p.name, "obj": p.obj, "dataobj": p.dataobj, "part_no": p.part_no,
                    "subpartitions": [
                        {"name": s.name, "obj": s.obj, "dataobj": s.dataobj, "sub_no": s.sub_no} for s in p.subs
                    ],
                }
                for p in table.parts
            ]  # fmt: skip
        out[name] = entry
    return out


def _bound_key(p: Part) -> tuple[int, Any]:
    return (1, 0) if p.values == MAXVALUE else (0, p.values)


# -- SYS rows ----------------------------------------------------------------------------------------


def obj_values(e: Engine, *, obj: int, dataobj: int | None, owner: str, name: str, subname: str | None,
               kind: int) -> dict[str, Any]:  # fmt: skip
    """An OBJ$ row (NAMESPACE 1, STATUS 1 valid, times the clock's)."""
    now = e.clock.time
    return {
        "OBJ#": obj, "DATAOBJ#": dataobj, "OWNER#": e.sys.user(owner), "NAME": name, "NAMESPACE": 1,
        "SUBNAME": subname, "TYPE#": kind, "CTIME": now, "MTIME": now, "STIME": now, "STATUS": 1,
        "FLAGS": 0,
    }  # fmt: skip


def tabpart_values(pt: PartitionedTable, part: Part) -> tuple[str, dict[str, Any]]:
    """The TABPART$ (or, composite, TABCOMPART$) row of a partition."""
    text = None if part.values is None else bound_text(pt.spec.column(pt.pb.column).type, part.values)
    common = {"OBJ#": part.obj, "DATAOBJ#": part.dataobj, "BO#": pt.obj, "PART#": part.part_no,
              "HIBOUNDLEN": len(text or ""), "HIBOUNDVAL": text, "FLAGS": 0}  # fmt: skip
    if part.subs:
        return "TABCOMPART$", common | {
            "SUBPARTCNT": len(part.subs), "DEFPCTFREE": 10, "DEFPCTUSED": 40, "DEFINITRANS": 1,
            "DEFMAXTRANS": 255, "DEFTS#": 4,
        }  # fmt: skip
    assert part.state is not None
    return "TABPART$", common | {
        "TS#": 4, "FILE#": part.state.rfile, "BLOCK#": part.state.hdba & 0x3FFFFF, "PCTFREE$": 10,
        "PCTUSED$": 40, "INITRANS": 1, "MAXTRANS": 255,
    }  # fmt: skip


def tabsubpart_values(part: Part, sub: Sub) -> dict[str, Any]:
    return {
        "OBJ#": sub.obj, "DATAOBJ#": sub.dataobj, "POBJ#": part.obj, "SUBPART#": sub.sub_no, "FLAGS": 0,
        "TS#": 4, "FILE#": sub.state.rfile, "BLOCK#": sub.state.hdba & 0x3FFFFF, "PCTFREE$": 10,
        "PCTUSED$": 40, "INITRANS": 1, "MAXTRANS": 255, "HIBOUNDLEN": 0,
    }  # fmt: skip


def sys_rows_of_part(e: Engine, pt: PartitionedTable, part: Part) -> list[tuple[str, dict[str, Any]]]:
    """(SYS table, row) of a partition and its subpartitions, in the order Oracle's DDL writes them
    in the generator: OBJ$ of the partition, its TABPART$ / TABCOMPART$, then per subpartition OBJ$
    and TABSUBPART$."""
    owner, name = pt.spec.owner, pt.spec.name
    out = [
        ("OBJ$", obj_values(e, obj=part.obj, dataobj=part.dataobj, owner=owner, name=name,
                            subname=part.name, kind=TYPE_PARTITION)),
        tabpart_values(pt, part),
    ]  # fmt: skip
    for sub in part.subs:
        out.append(("OBJ$", obj_values(e, obj=sub.obj, dataobj=sub.dataobj, owner=owner, name=name,
                                       subname=sub.name, kind=TYPE_SUBPARTITION)))  # fmt: skip
        out.append(("TABSUBPART$", tabsubpart_values(part, sub)))
    return out


def sys_rows_of_table(e: Engine, table: TableState | PartitionedTable) -> list[tuple[str, dict[str, Any]]]:
    """The OBJ$ row of a table (TYPE# 2; DATAOBJ# NULL when partitioned), its partitions' rows, its
    COL$ rows (``colrows.py``) and its constraints' CDEF$ / CCOL$ rows (``cdefrows.py``: new CON#s
    from the engine's sequence), in that order."""
    spec = table.spec
    dataobj = None if isinstance(table, PartitionedTable) else table.dataobj
    rows = [("OBJ$", obj_values(e, obj=table.obj, dataobj=dataobj, owner=spec.owner, name=spec.name,
                                subname=None, kind=TYPE_TABLE))]  # fmt: skip
    if isinstance(table, PartitionedTable):
        for part in table.parts:
            rows.extend(sys_rows_of_part(e, table, part))
    rows.extend(("COL$", values) for values in col_rows(spec, table.obj))
    rows.extend(cdef_rows(e, spec, table.obj))
    return rows


# -- building partitions ------------------------------------------------------------------------------


def add_part(e: Engine, pt: PartitionedTable, name: str, values: Any, part_no: int, *,
             obj: int | None = None, dataobj: int | None = None,
             subs: Sequence[SubpartDef] = ()) -> Part:  # fmt: skip
    """A new partition (ids from ``obj`` / ``dataobj``, else the object counter) with its segment or
    its subpartitions' segments; not yet in ``pt.parts``."""
    part = Part(name, obj if obj is not None else e.next_object_id(), values, part_no)
    pb = pt.pb
    if pb.composite:
        names = list(subs) or [SubpartDef(name=f"{name}_SP{k}") for k in range(1, pb.subpartitions + 1)]
        for k, sd in enumerate(names, 1):
            sobj = sd.obj if sd.obj is not None else e.next_object_id()
            state = e.new_segment(pt, sobj, sd.dataobj if sd.dataobj is not None else sobj)
            part.subs.append(Sub(sd.name, state, k))
    else:
        part.state = e.new_segment(pt, part.obj, dataobj if dataobj is not None else part.obj)
    return part


def build(e: Engine, spec: TableSpec, obj: int) -> PartitionedTable:
    """A partitioned table as its spec declares it (ids given or from the object counter)."""
    pt = PartitionedTable(spec, obj)
    for i, pd in enumerate(pt.pb.partitions, 1):
        pt.parts.append(add_part(e, pt, pd.name, pd.values, 10 * i, obj=pd.obj, dataobj=pd.dataobj,
                                 subs=pd.subparts))  # fmt: skip
    return pt


def create_interval(e: Engine, session: OpenTxn, pt: PartitionedTable, high: Any) -> Part:
    """The partition an insert needs above the last one of an interval table: a recursive
    transaction (own XID, session's thread) inserting its OBJ$ row (TYPE# 19, SUBNAME SYS_P<n>,
    obj = dataobj) and its TABPART$ row (BO#, PART#, the bound), committed before the row is
    written. No 24.1 vector, nothing in the expected trail."""
    name = f"SYS_P{e.next_system_name()}"
    k = int((high - pt.transition()) / pt.pb.interval)  # 1 for the first interval above T
    declared = sum(1 for p in pt.parts if not p.interval)
    # PART# (the generator's numbering): 10 per position, the k-th interval above the transition
    # point at position declared + k
    part = add_part(e, pt, name, high, 10 * (declared + k))
    part.interval = True
    pt.parts.append(part)
    pt.parts.sort(key=_bound_key)
    with sysrows.recursive(e, session) as rt:
        for table, values in sys_rows_of_part(e, pt, part):
            sysrows.insert(e, rt, table, values)
    return part


# -- DML routing ---------------------------------------------------------------------------------------


def run_dml(e: Engine, t: OpenTxn, step: Any, pt: PartitionedTable) -> None:
    """One DML statement on a partitioned table: each row to its partition's segment."""
    if isinstance(step, Insert | DirectInsert):
        _insert(e, t, step, pt, dml.insert if isinstance(step, Insert) else dml.direct_insert)
        return
    fn: Callable[..., None]
    if isinstance(step, Update) and {pt.pb.column, pt.pb.subpartition_column} & set(step.set):
        _update_partition_key(e, t, step, pt)
        return
    if isinstance(step, Update):
        fn = dml.update
    elif isinstance(step, AppendLob):
        fn = dml.append_lob
    elif isinstance(step, LobWrite):
        fn = dml.lob_write
    else:
        assert isinstance(step, Delete)
        fn = dml.delete
    for state in pt.segments:
        fn(e, t, dataclasses.replace(step, table=e.segment_key(state)))


def _insert(e: Engine, t: OpenTxn, step: Any, pt: PartitionedTable, fn: Callable[..., None]) -> None:
    group: list[Any] = []
    current: list[TableState | None] = [None]

    def flush() -> None:
        if group:
            state = current[0]
            assert state is not None
            fn(e, t, dataclasses.replace(step, table=e.segment_key(state), rows=tuple(group)))
            group.clear()

    for raw in step.rows:
        values = pt.spec.row(raw, "insert")
        part, high = pt.locate(values)
        if part is None:
            if high is None:
                raise ScenarioError(
                    f"{pt.spec.full_name}: inserted partition key maps to no partition (ORA-14400)"
                )
            flush()
            part = create_interval(e, t, pt, high)
        state = pt.segment(part, values)
        if state is not current[0]:
            flush()
            current[0] = state
        pt.check_unique_elsewhere(values, t.ident, state)
        group.append(raw)
    flush()


def _update_partition_key(e: Engine, t: OpenTxn, step: Update, pt: PartitionedTable) -> None:
    """An UPDATE setting a partition key column. A row whose new values belong to another partition
    (subpartition) moves there with ROW MOVEMENT enabled: a delete from its segment and an insert
    into the other (a new interval partition created first if needed), in the statement's
    transaction, as Oracle does it (the two segments are different objects: no row piece moves);
    the trail holds a DELETE and an INSERT (docs/tables.md). Without ROW MOVEMENT: ORA-14402. Every
    row is matched before any is changed, so a moved row is not updated twice."""
    if not step.set:
        raise ScenarioError("update without SET columns")
    targets = {pt.spec.index_of(name): expr for name, expr in step.set.items()}
    e.ensure_xid(t)
    planned: list[tuple[TableState, Row, dict[int, Any], list[Any] | None]] = []
    for state in pt.segments:
        for row in dml.matching(e, t, state, step.where):
            new = {i: dml.new_value(state, i, row.values[i], expr) for i, expr in targets.items()}
            values = list(row.values)
            for i, v in new.items():
                values[i] = v
            part, high = pt.locate(values)
            if part is not None and pt.segment(part, values) is state:
                planned.append((state, row, new, None))
                continue
            if not pt.pb.row_movement:
                raise ScenarioError(
                    f"{pt.spec.full_name}: the update would move a row to another partition (ORA-14402; "
                    "partition_by.row_movement: true enables it)"
                )
            if part is None and high is None:
                raise ScenarioError(
                    f"{pt.spec.full_name}: updated partition key maps to no partition (ORA-14400)"
                )
            planned.append((state, row, new, values))
    for state, row, new, moved in planned:
        if moved is None:
            dml.update_row(e, t, state, row, new, step.lob_pieces)
            continue
        part, high = pt.locate(moved)
        if part is None:
            assert high is not None
            part = create_interval(e, t, pt, high)
        target = pt.segment(part, moved)
        dml.delete_rows(e, t, state, [row])
        pt.check_unique_elsewhere(moved, t.ident, target)
        dml.insert_rows(e, t, target, [target.build_row(tuple(moved))], lob_pieces=step.lob_pieces)
