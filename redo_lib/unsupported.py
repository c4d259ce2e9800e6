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
* the dictionary's storage attributes (``encrypted``, ``compress_for``, ``iot_type``), which name the
  reason and tell an IOT whose attributes are known.

Inside the capture scope each table is a problem that fails validation (the ``unsupported_changes``
check, contract rule 2: a captured change is missing from the trail); outside it, only counted.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

from redo_lib.dictionary import DictionaryHistory, TableVersion

ENCRYPTED = "encrypted"
OLTP_COMPRESSED = "oltp_compressed"
HCC = "hcc"
IOT = "iot"

#: kind -> the reason the batch report and the validation give
REASONS = {
    ENCRYPTED: "encrypted tablespace: no key material",
    OLTP_COMPRESSED: "OLTP-compressed row image: not decoded",
    HCC: "hybrid columnar compression (HCC): direct-path compression units, not decoded",
    IOT: "index-organized table: changes are index-leaf operations (layer 10), not decoded",
}

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
) -> dict[str, Any]:
    """counts.json ``unsupported``: ``tables`` (captured tables: kind -> changes, what they are,
    reason), ``out_of_scope`` (tables outside the capture scope: kind -> changes) and ``changes``
    (the captured total, what validation fails on).

    ``vectors``: the decode report's (kind, obj) counts; ``unsupported_ops``: counts.json
    ``unsupported_ops`` (OWNER.TABLE -> op -> row changes; captured tables only, the emitter counted
    the others out of scope); ``captured(owner, name)``: the capture scope (the core emitter's)."""
    tables: dict[str, dict[str, dict[str, Any]]] = {}
    out_of_scope: dict[str, dict[str, int]] = {}

    def add(name: str, kind: str, n: int, unit: str, *, in_scope: bool, table: TableVersion | None) -> None:
        if not in_scope:
            entry = out_of_scope.setdefault(name, {})
            entry[kind] = entry.get(kind, 0) + n
            return
        entry = tables.setdefault(name, {}).setdefault(
            kind, {"changes": 0, "counted": unit, "reason": REASONS[kind]}
        )
        entry["changes"] += n
        if table is not None:
            entry["storage"] = _storage(table)

    if dictionary is not None:
        table_of = _table_of(dictionary)
        for (vector_kind, obj), n in sorted(vectors.items()):
            table = table_of(obj)
            if table is None:
                continue  # an index, an object of another schema: no table's change
            kind = _kind(vector_kind, table)
            if kind is not None:
                add(table.full_name, kind, n, "change vectors", in_scope=captured(table.owner, table.name),
                    table=table)  # fmt: skip
    for name, ops in sorted(unsupported_ops.items()):
        add(name, OLTP_COMPRESSED, sum(ops.values()), "row changes", in_scope=True, table=None)
    return {
        "changes": sum(e["changes"] for kinds in tables.values() for e in kinds.values()),
        "tables": tables,
        "out_of_scope": out_of_scope,
    }


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
    """One row per captured table and kind of counts.json ``unsupported``: what the
    ``unsupported_changes`` check reports and the batch report lists (table, kind, changes, reason)."""
    section = counts.get("unsupported") or {}
    return [
        {"table": name, "kind": kind, "changes": int(entry["changes"]), "counted": entry.get("counted"),
         "reason": entry["reason"]}
        for name, kinds in sorted((section.get("tables") or {}).items())
        for kind, entry in sorted(kinds.items())
    ]  # fmt: skip


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
    scope = native.Emitter(None, **{k: set(v) for k, v in options.items() if k in keys})
    return unsupported_report(
        vectors=vectors,
        unsupported_ops=counts.get("unsupported_ops") or {},
        dictionary=dictionary,
        captured=scope.captured,
    )
