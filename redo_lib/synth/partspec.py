"""Partitioned tables in a scenario: the ``partition_by`` of a table, its YAML form and its checks.

``TableSpec.partition_by`` (YAML ``partition_by:``)::

    partition_by:
      type: range                    # range | list | hash | interval
      column: ID                     # one partition key column (not a LOB)
      interval: 100                  # interval only: a NUMBER column, partitions made on demand
      partitions:
        - {name: P1, values: 100}            # range / interval: VALUES LESS THAN (100); MAXVALUE
        - {name: P2, values: MAXVALUE}
        - {name: PA, values: [A, B]}         # list: VALUES ('A', 'B'); DEFAULT
        - {name: H1}                          # hash: no values
      subpartitions: {column: QTY, count: 2} # composite: hash subpartitions <PART>_SP<n>

A resolved table (scenario.yaml, ``Engine.initial_tables``) carries ``obj`` / ``dataobj`` per
partition and subpartition. Bounds are normalised to the column type (``columns.normalize``).
"""

from __future__ import annotations

import dataclasses
import decimal
import zlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, final

from redo_lib.errors import ScenarioError
from redo_lib.synth.columns import LOB_TYPES, ColumnType, encode, normalize

if TYPE_CHECKING:
    from redo_lib.synth.scenario import TableSpec

__all__ = [
    "MAXVALUE",
    "PART_KINDS",
    "PartDef",
    "PartitionBy",
    "SubpartDef",
    "bound_text",
    "check_partition_by",
    "dump_partition_by",
    "hash_bucket",
    "parse_partition_by",
]

PART_KINDS = ("range", "list", "hash", "interval")
MAXVALUE = "MAXVALUE"
DEFAULT = "DEFAULT"


@final
@dataclass(frozen=True, slots=True, kw_only=True)
class SubpartDef:
    """A hash subpartition of a composite partition."""

    name: str
    obj: int | None = None
    dataobj: int | None = None


@final
@dataclass(frozen=True, slots=True, kw_only=True)
class PartDef:
    """One partition. ``values``: range / interval the upper bound (exclusive) or ``MAXVALUE``;
    list the values (a tuple) or ``DEFAULT``; hash ``None``."""

    name: str
    values: Any = None
    obj: int | None = None
    dataobj: int | None = None
    subparts: tuple[SubpartDef, ...] = ()


@final
@dataclass(frozen=True, slots=True, kw_only=True)
class PartitionBy:
    kind: str
    column: str
    partitions: tuple[PartDef, ...]
    interval: decimal.Decimal | None = None
    subpartition_column: str = ""
    subpartitions: int = 0
    # ENABLE ROW MOVEMENT: an update of the partition key may move a row to another partition
    # (without it Oracle refuses such an update, ORA-14402)
    row_movement: bool = False

    def __post_init__(self) -> None:
        if self.kind not in PART_KINDS:
            raise ScenarioError(f"partition_by type {self.kind!r} is not one of {', '.join(PART_KINDS)}")
        if not self.partitions:
            raise ScenarioError("partition_by needs at least one partition")
        if (self.kind == "interval") != (self.interval is not None):
            raise ScenarioError("partition_by: interval (a number > 0) goes with type interval only")
        if self.interval is not None and self.interval <= 0:
            raise ScenarioError("partition_by: interval must be > 0")
        if self.subpartitions < 0 or bool(self.subpartitions) != bool(self.subpartition_column):
            raise ScenarioError("partition_by.subpartitions: {column: C, count: n >= 1}")

    @property
    def composite(self) -> bool:
        return self.subpartitions > 0

    @property
    def ranged(self) -> bool:
        return self.kind in ("range", "interval")


def hash_bucket(ctype: ColumnType, value: Any, count: int) -> int:
    """The generator's hash partitioning (Oracle's hash function is internal): CRC-32 of the
    value's column bytes (redo-format §7) modulo the number of partitions; NULL goes to the first."""
    if value is None:
        return 0
    return zlib.crc32(encode(ctype, value)) % count


def check_partition_by(spec: TableSpec) -> PartitionBy:
    """``spec.partition_by`` checked against the table, bounds normalised; ScenarioError else."""
    pb = spec.partition_by
    assert pb is not None
    what = f"table {spec.full_name} partition_by"
    key = spec.column(pb.column)
    if key.type.name in LOB_TYPES:
        raise ScenarioError(f"{what}: a LOB column cannot be a partition key (ORA-14135)")
    if pb.kind == "interval" and key.type.name != "NUMBER":
        raise ScenarioError(f"{what}: interval partitioning is generated on NUMBER columns only")
    if pb.composite and spec.column(pb.subpartition_column).type.name in LOB_TYPES:
        raise ScenarioError(f"{what}: a LOB column cannot be a subpartition key")
    parts = []
    for p in pb.partitions:
        parts.append(dataclasses.replace(p, values=_bound(pb, key.type, p, what)))
        if pb.composite and not p.subparts:
            subs = tuple(SubpartDef(name=f"{p.name}_SP{k}") for k in range(1, pb.subpartitions + 1))
            parts[-1] = dataclasses.replace(parts[-1], subparts=subs)
        elif not pb.composite and p.subparts:
            raise ScenarioError(f"{what}: partition {p.name} has subpartitions, the table none")
        elif pb.composite and len(p.subparts) != pb.subpartitions:
            raise ScenarioError(f"{what}: partition {p.name} needs {pb.subpartitions} subpartitions")
    names = [p.name for p in parts] + [s.name for p in parts for s in p.subparts]
    if len(set(names)) != len(names):
        raise ScenarioError(f"{what}: duplicate partition names")
    if pb.ranged:
        bounds = [p.values for p in parts]
        if MAXVALUE in bounds[:-1] or (pb.kind == "interval" and MAXVALUE in bounds):
            raise ScenarioError(f"{what}: MAXVALUE only on the last range partition, never with an interval")
        finite = [b for b in bounds if b != MAXVALUE]
        if any(a >= b for a, b in zip(finite, finite[1:], strict=False)):
            raise ScenarioError(f"{what}: range bounds must increase (ORA-14037)")
    elif pb.kind == "list":
        seen: list[Any] = []
        for p in parts:
            if p.values == DEFAULT:
                if p is not parts[-1]:
                    raise ScenarioError(f"{what}: DEFAULT only on the last list partition")
                continue
            if set(p.values) & set(seen):
                raise ScenarioError(f"{what}: a value is in two list partitions (ORA-14310)")
            seen.extend(p.values)
    return dataclasses.replace(pb, partitions=tuple(parts))


def _bound(pb: PartitionBy, ctype: ColumnType, p: PartDef, what: str) -> Any:
    if pb.kind == "hash":
        if p.values is not None:
            raise ScenarioError(f"{what}: hash partition {p.name} takes no values")
        return None
    if pb.ranged:
        if p.values == MAXVALUE:
            return MAXVALUE
        value = normalize(ctype, p.values, f"{what} {p.name}")
        if value is None:
            raise ScenarioError(f"{what}: partition {p.name} needs a bound")
        return value
    if p.values == DEFAULT:
        return DEFAULT
    raw = p.values if isinstance(p.values, list | tuple) else [p.values]
    values = tuple(normalize(ctype, v, f"{what} {p.name}") for v in raw)
    if not values:
        raise ScenarioError(f"{what}: list partition {p.name} needs values")
    return values


def bound_text(ctype: ColumnType, value: Any) -> str:
    """A bound as Oracle keeps it in TABPART$.HIBOUNDVAL (and writes it in DDL text)."""
    if value in (MAXVALUE, DEFAULT):
        return str(value)
    if isinstance(value, tuple):
        return ", ".join(bound_text(ctype, v) for v in value)
    if value is None:
        return "NULL"
    if ctype.name == "NUMBER":
        return format(value, "f") if isinstance(value, decimal.Decimal) else str(value)
    if ctype.name == "DATE":
        return f"TO_DATE(' {value:%Y-%m-%d %H:%M:%S}', 'SYYYY-MM-DD HH24:MI:SS', 'NLS_CALENDAR=GREGORIAN')"
    if ctype.name == "RAW":
        return f"'{value.hex().upper()}'"
    return "'" + str(value).replace("'", "''") + "'"


# -- YAML -------------------------------------------------------------------------------------------


def parse_partition_by(raw: Any, what: str) -> PartitionBy:
    if not isinstance(raw, Mapping):
        raise ScenarioError(f"{what}.partition_by must be a mapping")
    unknown = set(raw) - {"type", "column", "interval", "partitions", "subpartitions", "row_movement"}
    if unknown:
        raise ScenarioError(f"{what}.partition_by: unknown keys {sorted(unknown)}")
    parts = []
    raw_parts = raw.get("partitions")
    if not isinstance(raw_parts, list):
        raise ScenarioError(f"{what}.partition_by.partitions must be a list")
    for j, p in enumerate(raw_parts):
        if not isinstance(p, Mapping) or "name" not in p:
            raise ScenarioError(f"{what}.partition_by.partitions[{j}] needs a name")
        subs = tuple(
            SubpartDef(name=str(s["name"]), obj=s.get("obj"), dataobj=s.get("dataobj"))
            for s in p.get("subpartitions") or ()
        )
        parts.append(
            PartDef(
                name=str(p["name"]), values=p.get("values"), obj=p.get("obj"), dataobj=p.get("dataobj"),
                subparts=subs,
            )
        )  # fmt: skip
    sub = raw.get("subpartitions") or {}
    if not isinstance(sub, Mapping):
        raise ScenarioError(f"{what}.partition_by.subpartitions: {{column: C, count: n}}")
    interval = raw.get("interval")
    return PartitionBy(
        kind=str(raw.get("type", "")),
        column=str(raw.get("column", "")),
        partitions=tuple(parts),
        interval=None if interval is None else decimal.Decimal(str(interval)),
        subpartition_column=str(sub.get("column", "")),
        subpartitions=int(sub.get("count", 0)),
        row_movement=bool(raw.get("row_movement", False)),
    )


def _plain(value: Any) -> Any:
    if isinstance(value, tuple):
        return [_plain(v) for v in value]
    if isinstance(value, decimal.Decimal):
        return int(value) if value == value.to_integral_value() else str(value)
    if isinstance(value, bytes):
        return value.hex().upper()
    if hasattr(value, "isoformat"):
        return value.isoformat()
    return value


def dump_partition_by(pb: PartitionBy) -> dict[str, Any]:
    out: dict[str, Any] = {"type": pb.kind, "column": pb.column}
    if pb.interval is not None:
        out["interval"] = _plain(pb.interval)
    parts: list[dict[str, Any]] = []
    for p in pb.partitions:
        item: dict[str, Any] = {"name": p.name}
        if p.values is not None:
            item["values"] = _plain(p.values)
        if p.obj is not None:
            item["obj"] = p.obj
            item["dataobj"] = p.dataobj
        if p.subparts:
            item["subpartitions"] = [
                {"name": s.name} | ({"obj": s.obj, "dataobj": s.dataobj} if s.obj is not None else {})
                for s in p.subparts
            ]
        parts.append(item)
    out["partitions"] = parts
    if pb.composite:
        out["subpartitions"] = {"column": pb.subpartition_column, "count": pb.subpartitions}
    if pb.row_movement:
        out["row_movement"] = True
    return out


def route_value(pb: PartitionBy, ctype: ColumnType, parts: Sequence[Any], value: Any) -> int | None:
    """Index in ``parts`` (objects with ``values``) of the partition ``value`` belongs to; ``None``
    when none holds it (range: above the last bound, list: no partition and no DEFAULT)."""
    if pb.kind == "hash":
        return hash_bucket(ctype, value, len(parts))
    if pb.ranged:
        if value is None:  # NULL sorts above every value: MAXVALUE only
            return len(parts) - 1 if parts[-1].values == MAXVALUE else None
        for i, p in enumerate(parts):
            if p.values == MAXVALUE or value < p.values:
                return i
        return None
    default = None
    for i, p in enumerate(parts):
        if p.values == DEFAULT:
            default = i
        elif value in p.values:
            return i
    return default
