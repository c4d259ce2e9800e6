"""Changes the decoder detects but cannot read, per table (issue 18; docs/data-quality.md,
"Tables the decoder cannot read").

Three sources, none of them ever rendered into a trail record:

* the decode report's ``unsupported_vectors`` (the core's ``unsupported::unsupported_vector``): by
  (kind, data object of the vector header), the vectors of an **encrypted** tablespace (TYP bit 0x80,
  redo-format §4.1), **index-leaf** operations (layer 10) and direct loader blocks (19.1) that are
  neither rows nor LOB pages. Index-leaf vectors are a table's changes only when their object is a
  table the dictionary knows (an index-organized table: its rows live in its index segment); every
  other index is ordinary index maintenance and stays out of this report. A direct loader block of
  a table whose ``compress_for`` is QUERY / ARCHIVE is a hybrid columnar compressed (**HCC**) unit.
  These never became row changes, so they are outside the reconciliation's balance: counted here as
  change vectors of the batch's logs (committed or not).
* the emitter's ``unsupported`` (counts.json ``unsupported_ops``): captured row changes decoded but
  not emitted because their image is an **OLTP-compressed** row piece (redo-format §5.1); they are a
  term of the balance (decoded + carried_in = trail + ... + unsupported_ops).
* the emitter's ``unrenderable`` (counts.json ``unrenderable``, ``unrenderable_ops``): captured row
  changes carrying a value of a column whose type the decoder cannot render (XMLTYPE, ANYDATA, JSON
  as OSON, object types such as SDO_GEOMETRY, nested tables, VARRAYs, REFs, BFILE: the core's
  ``unsupported::unrenderable_type``), by table, column and type code; they are row changes of
  ``unsupported_ops`` like the compressed ones, never a record with hex in place of the value. A
  column left out of the capture scope (``-OWNER.TABLE.COLUMN``) is counted out of scope instead.
* the dictionary's storage attributes (``encrypted``, ``compress_for``, ``iot_type``), which name the
  reason and tell an IOT whose attributes are known, and its columns' type names (``SDO_GEOMETRY``).

Inside the capture scope each table is a problem that fails validation (the ``unsupported_changes``
check, contract rule 2: a captured change is missing from the trail); outside it, only counted.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from redo_lib.dictionary import DictionaryHistory, TableVersion

if TYPE_CHECKING:
    from redo_lib._native import Emitter

ENCRYPTED = "encrypted"
OLTP_COMPRESSED = "oltp_compressed"
HCC = "hcc"
IOT = "iot"
UNRENDERABLE = "unrenderable_type"

#: kind -> the reason the batch report and the validation give
REASONS = {
    ENCRYPTED: "encrypted tablespace: no key material",
    OLTP_COMPRESSED: "OLTP-compressed row image: not decoded",
    HCC: "hybrid columnar compression (HCC): direct-path compression units, not decoded",
    IOT: "index-organized table: changes are index-leaf operations (layer 10), not decoded",
    UNRENDERABLE: "columns of a type the decoder cannot render",
}

#: type code -> what it is, for a column the dictionary does not name better (``COL$.TYPE#``; the
#: core's ``unsupported::unrenderable_type`` says which codes the decoder cannot render)
TYPE_KINDS = {
    0: "a type the dictionary does not list",
    58: "XMLTYPE or ANYDATA (opaque type)",
    111: "REF",
    114: "BFILE",
    119: "JSON (OSON)",
    121: "object type",
    122: "nested table",
    123: "VARRAY",
}


def type_label(code: int, type_name: str | None = None) -> str:
    """How the report names a column's type: the dictionary's name (``SDO_GEOMETRY``, ``XMLTYPE``) with
    its code, else what the code is."""
    kind = TYPE_KINDS.get(code, f"type code {code}")
    if type_name and not type_name.startswith("TYPE#") and type_name != kind:
        return f"{type_name} (type code {code})"
    return f"{kind} (type code {code})"


def column_reason(table: str, column: str, label: str) -> str:
    """The reason of one unrenderable column, with its remedy."""
    return (
        f"column {column} of type {label}: the decoder cannot render it; leave the column out of the "
        f"capture scope (-{table}.{column}) or the table"
    )


#: decode report kinds (the core's ``unsupported.rs``)
VECTOR_ENCRYPTED = "encrypted"
VECTOR_INDEX_LEAF = "index_leaf"
VECTOR_DIRECT_LOAD = "direct_load_block"


def is_hcc(compress_for: str | None) -> bool:
    """``DBA_TABLES.COMPRESS_FOR`` of hybrid columnar compression (QUERY LOW|HIGH, ARCHIVE LOW|HIGH)."""
    return (compress_for or "").upper().startswith(("QUERY", "ARCHIVE"))


def parse_vector_counts(
    section: Mapping[str, int] | Iterable[tuple[str, int, int]],
) -> dict[tuple[str, int], int]:
    """The decode report's ``unsupported_vectors`` as {(kind, obj): n}: its JSON form
    (``{"kind:obj": n}``, logs.json, ``DecodeReport.to_dict``) or the core's ``(kind, obj, n)``."""
    out: dict[tuple[str, int], int] = {}
    items = (
        ((*key.rsplit(":", 1), n) for key, n in section.items()) if isinstance(section, Mapping) else section
    )
    for kind, obj, n in items:
        key = (str(kind), int(obj))
        out[key] = out.get(key, 0) + int(n)
    return out


@dataclass(frozen=True, slots=True)
class TableStorage:
    """What the report looks up of a table: its names and its storage attributes."""

    owner: str
    name: str
    encrypted: bool = False
    compress_for: str | None = None
    iot_type: str | None = None

    @property
    def full_name(self) -> str:
        return f"{self.owner}.{self.name}"


def core_tables_of(emitter: Emitter, objs: Iterable[int]) -> Callable[[int], TableStorage | None]:
    """``table_of`` for :func:`unsupported_report` from the core emitter's dictionary
    (``native.Emitter.tables_of``): the objects of ``objs`` that are a table's."""
    found = {obj: TableStorage(*entry) for obj, entry in emitter.tables_of(sorted(set(objs))).items()}
    return found.get


def _table_of(dictionary: DictionaryHistory) -> Callable[[int], TableVersion | None]:
    """obj -> the last version of the table it is (object, data object, a partition's either)."""
    index: dict[int, TableVersion] = {}
    for version in dictionary:  # by object id then SCN: the last version wins
        ids = [version.obj, version.dataobj, *(i for p in version.partitions for i in (p.obj, p.dataobj))]
        for i in ids:
            if i is not None:
                index[i] = version
    return index.get


def _kind(vector_kind: str, table: TableVersion) -> str | None:
    """What a table's vector of ``vector_kind`` is, ``None`` when it is no unsupported change."""
    if vector_kind == VECTOR_ENCRYPTED:
        return ENCRYPTED
    if vector_kind == VECTOR_INDEX_LEAF:
        # a table's own data object changed by index-leaf operations: an index-organized table
        return IOT
    if vector_kind == VECTOR_DIRECT_LOAD and is_hcc(table.compress_for):
        return HCC
    return None


def unsupported_report(
    *,
    vectors: Mapping[tuple[str, int], int],
    unsupported_ops: Mapping[str, Mapping[str, int]],
    dictionary: DictionaryHistory | None,
    captured: Callable[[str, str], bool],
    table_of: Callable[[int], Any] | None = None,
    unrenderable: Mapping[str, Mapping[str, Mapping[str, int]]] | None = None,
    unrenderable_ops: Mapping[str, Mapping[str, int]] | None = None,
    unrenderable_out_of_scope: Mapping[str, Mapping[str, Mapping[str, int]]] | None = None,
) -> dict[str, Any]:
    """counts.json ``unsupported``: ``tables`` (captured tables: kind -> changes, what they are,
    reason), ``out_of_scope`` (tables outside the capture scope: kind -> changes) and ``changes``
    (the captured total, what validation fails on).

    ``vectors``: the decode report's (kind, obj) counts; ``unsupported_ops``: counts.json
    ``unsupported_ops`` (OWNER.TABLE -> op -> row changes; captured tables only, the emitter counted
    the others out of scope); ``captured(owner, name)``: the capture scope (the core emitter's);
    ``unrenderable`` / ``unrenderable_out_of_scope``: counts.json's (OWNER.TABLE -> column -> type code
    -> row changes) and ``unrenderable_ops`` the row changes of ``unsupported_ops`` they are (the
    rest are OLTP-compressed). An unrenderable kind's entry lists its ``columns`` (type, type code,
    changes); ``columns_out_of_scope`` (when there are some) counts per
    ``OWNER.TABLE.COLUMN`` the row changes whose value was left out or whose table is not captured.
    ``table_of`` (obj -> the table it is, with ``owner``, ``name``, ``full_name`` and the storage
    attributes; ``None``: no table's) replaces ``dictionary``'s look-up: the decode command asks
    the core's dictionary (:func:`core_tables_of`)."""
    tables: dict[str, dict[str, dict[str, Any]]] = {}
    out_of_scope: dict[str, dict[str, int]] = {}

    def add(name: str, kind: str, n: int, unit: str, *, in_scope: bool, table: TableVersion | None) -> None:
        if not in_scope:
            counted = out_of_scope.setdefault(name, {})
            counted[kind] = counted.get(kind, 0) + n
            return
        entry = tables.setdefault(name, {}).setdefault(
            kind, {"changes": 0, "counted": unit, "reason": REASONS[kind]}
        )
        entry["changes"] += n
        if table is not None:
            entry["storage"] = _storage(table)

    if table_of is None and dictionary is not None:
        table_of = _table_of(dictionary)
    if table_of is not None:
        for (vector_kind, obj), n in sorted(vectors.items()):
            table = table_of(obj)
            if table is None:
                continue  # an index, an object of another schema: no table's change
            kind = _kind(vector_kind, table)
            if kind is not None:
                add(table.full_name, kind, n, "change vectors", in_scope=captured(table.owner, table.name),
                    table=table)  # fmt: skip
    not_rendered = unrenderable_ops or {}
    for name, ops in sorted(unsupported_ops.items()):
        n = sum(ops.values()) - sum((not_rendered.get(name) or {}).values())
        if n > 0:
            add(name, OLTP_COMPRESSED, n, "row changes", in_scope=True, table=None)
    type_names = _type_names(dictionary)
    for name, columns in sorted((unrenderable or {}).items()):
        entry = tables.setdefault(name, {}).setdefault(
            UNRENDERABLE, {"changes": 0, "counted": "row changes", "reason": REASONS[UNRENDERABLE], "columns": {}}
        )  # fmt: skip
        entry["changes"] += sum((not_rendered.get(name) or {}).values())
        for column, by_code in sorted(columns.items()):
            for code, n in sorted(by_code.items()):
                label = type_label(int(code), type_names.get((name, column)))
                entry["columns"][column] = {"type": label, "type_code": int(code), "changes": int(n)}
    left_out: dict[str, int] = {}
    for name, columns in sorted((unrenderable_out_of_scope or {}).items()):
        for column, by_code in sorted(columns.items()):
            n = sum(int(v) for v in by_code.values())
            kinds = out_of_scope.setdefault(name, {})
            kinds[UNRENDERABLE] = kinds.get(UNRENDERABLE, 0) + n
            left_out[f"{name}.{column}"] = n
    return {
        "changes": sum(e["changes"] for kinds in tables.values() for e in kinds.values()),
        "tables": tables,
        "out_of_scope": out_of_scope,
    } | ({"columns_out_of_scope": left_out} if left_out else {})


def _type_names(dictionary: DictionaryHistory | None) -> dict[tuple[str, str], str]:
    """(OWNER.TABLE, column) -> the dictionary's type name, of each table's last version."""
    if dictionary is None:
        return {}
    return {(v.full_name, c.name): c.type_name for v in dictionary for c in v.columns}


def _storage(table: TableVersion) -> dict[str, Any]:
    """The dictionary's storage attributes of a table, as set."""
    return {
        k: v
        for k, v in (
            ("encrypted", table.encrypted),
            ("compress_for", table.compress_for),
            ("iot_type", table.iot_type),
        )
        if v
    }


def problem_rows(counts: Mapping[str, Any]) -> list[dict[str, Any]]:
    """One row per captured table and kind of counts.json ``unsupported``, and per column for the
    columns the decoder cannot render: what the ``unsupported_changes`` check reports and the batch
    report lists (table, kind, changes, reason; ``column`` and ``type`` for a column, its reason
    naming the remedy)."""
    section = counts.get("unsupported") or {}
    rows: list[dict[str, Any]] = []
    for name, kinds in sorted((section.get("tables") or {}).items()):
        for kind, entry in sorted(kinds.items()):
            if kind != UNRENDERABLE:
                rows.append({"table": name, "kind": kind, "changes": int(entry["changes"]),
                             "counted": entry.get("counted"), "reason": entry["reason"]})  # fmt: skip
                continue
            for column, c in sorted((entry.get("columns") or {}).items()):
                rows.append({"table": name, "kind": kind, "column": column, "type": c["type"],
                             "changes": int(c["changes"]), "counted": entry.get("counted"),
                             "reason": column_reason(name, column, c["type"])})  # fmt: skip
    return rows


def batch_unsupported(
    counts: Mapping[str, Any],
    vectors: Mapping[tuple[str, int], int],
    dictionary: DictionaryHistory | None,
    options: Mapping[str, Any],
) -> dict[str, Any]:
    """:func:`unsupported_report` of a batch: its counts.json (``unsupported_ops``), the decode
    report's ``unsupported_vectors`` and the dictionary its trail was written with, classified by
    the capture scope of the emitter ``options`` (``EmitOptions`` keywords; the core's rule)."""
    from redo_lib.native import native

    keys = ("include_owners", "exclude_owners", "include_tables", "exclude_tables")
    scope_options: dict[str, Any] = {k: set(v) for k, v in options.items() if k in keys}
    scope = native.Emitter(None, **scope_options)
    return unsupported_report(
        vectors=vectors,
        unsupported_ops=counts.get("unsupported_ops") or {},
        dictionary=dictionary,
        captured=scope.captured,
        unrenderable=counts.get("unrenderable") or {},
        unrenderable_ops=counts.get("unrenderable_ops") or {},
        unrenderable_out_of_scope=counts.get("unrenderable_out_of_scope") or {},
    )
