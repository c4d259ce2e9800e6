"""What a batch's DDL records (IOType 160) did to each source table, for the mirrors (docs/tables.md).

``table_changes(records, history)`` reads the batch's DDL records in trail order and replays each
table statement against the dictionary the trail was written with (``dictionary.ddl.replay_ddl``:
the batch's evolved dictionary holds the versions the DDL opened). Per source table ``OWNER.TABLE``
it gives a ``TableChanges``: the columns renamed, dropped, added and retyped, each at the commit SCN
of its DDL, the last TRUNCATE, a DROP TABLE, a CREATE TABLE, and notes for what a mirror cannot
follow (a table renamed, DDL that could not be replayed: where the DDL's transaction changed the
table's ``SYS.COL$`` rows, its column changes are read from them instead, by the core's
``column_changes``; docs/dictionary.md, "Columns from COL$"). Partition maintenance (kind ``partition``)
changes no column. A DROP or TRUNCATE of a partition (subpartition) removes rows without row changes
in the redo: ``partition_cuts`` says, per partition named, which mirror rows were in it, by the
data objects their ROWIDs start with, from the dictionary's SYS rows (the Rust core's
``partition_segments``: its own data objects before the DDL, those of partitions merged into it; the
ones a SPLIT leaves ambiguous apart, never guessed). An EXCHANGE PARTITION swaps rows in and out
with no row changes either: a note says the mirror does not follow it.

A change record written before a DDL names the columns as they were; ``name_epochs`` gives, per
table, the renaming that brings each record's column names to the table's last shape: records
committed before the first DDL take every later rename and drop, records between the first and the
second DDL the ones from the second on, and so on (a DDL is its own transaction and waits for the
changes on its table to commit, so commit SCNs order a table's changes and its DDL exactly). A
dropped column maps to ``""`` (left out), or stays when dropped columns are kept as tombstones.

Layer 4: imports layers 0-3 (the dictionary).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from redo_lib.dictionary.ddl import DdlEffect, DdlKind, replay_ddl
from redo_lib.dictionary.history import DictionaryHistory

__all__ = ["DROPPED", "PartitionCut", "TableChanges", "name_epochs", "table_changes"]

#: the new name of a column a later DDL dropped
DROPPED = ""
# partition maintenance that removes rows without row changes in the redo
_ROWS_GONE = frozenset({"DROP", "TRUNCATE"})


@dataclass(frozen=True)
class PartitionCut:
    """One partition (subpartition) a DROP or TRUNCATE removed the rows of, at ``commit_scn``: the
    mirror rows last written before it whose ``_rowid`` starts with one of ``prefixes`` were its rows;
    the ones starting with one of ``ambiguous`` may have been (a SPLIT: not told apart, kept);
    ``notes`` say why something is ambiguous or unknown."""

    commit_scn: int
    clause: str  # "TRUNCATE PARTITION", "DROP SUBPARTITION", ...
    name: str  # "" when the statement names it by value (FOR (...))
    prefixes: tuple[str, ...] = ()
    ambiguous: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        out = {"commit_scn": self.commit_scn, "ddl": f"{self.clause} {self.name}".strip(),
               "rowid_prefixes": list(self.prefixes), "ambiguous_prefixes": list(self.ambiguous),
               "notes": list(self.notes)}  # fmt: skip
        return {k: v for k, v in out.items() if v != []}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> PartitionCut:
        """The cut of a PUBLISHED report (``to_dict``'s form; the counts publish adds left out)."""
        verb, kind, *name = data["ddl"].split(" ", 2)  # "TRUNCATE PARTITION P1", "DROP SUBPARTITION"
        return cls(int(data["commit_scn"]), f"{verb} {kind}", "".join(name), tuple(data.get("rowid_prefixes", ())),
                   tuple(data.get("ambiguous_prefixes", ())), tuple(data.get("notes", ())))  # fmt: skip


def partition_cuts(
    history: DictionaryHistory, owner: str, table: str, clause: str, names: Iterable[str], commit_scn: int
) -> list[PartitionCut]:
    """The partitions a DROP / TRUNCATE PARTITION (SUBPARTITION) clause of ``owner.table`` committed
    at ``commit_scn`` removed the rows of, each with the ROWID prefixes of its rows (the Rust core
    reads the SYS rows: ``redo_core::trail::sys_partitions``). A clause that names them by value
    (``FOR (...)``: ``names`` empty) gets them from the SYS rows too: the partitions the commit dropped
    (DROP) or gave a new segment (TRUNCATE), ``partitions_cut``."""
    from redo_lib.native import native

    names = list(names)
    sys_rows = history.sys_rows
    by_value: tuple[str, ...] = ()
    if not names and sys_rows is not None:
        # named by value (FOR (...)): the SYS rows say which partitions the commit dropped or emptied
        names = native.partitions_cut(sys_rows.text, owner, table, commit_scn,
                                      clause.split()[1].startswith("SUB"), clause.startswith("DROP"))  # fmt: skip
        by_value = (f"{clause} names its partition by value: {', '.join(names)} from the SYS rows",)
    if not names:
        note = (f"{clause} at commit SCN {commit_scn} names no partition (FOR (value)?) and the SYS rows "
                "show none: the rows it removed are not known, the mirror keeps them")  # fmt: skip
        return [PartitionCut(commit_scn, clause, "", notes=(note,))]
    out = []
    for name in names:
        if sys_rows is None:  # not reached: without SYS rows partition DDL is ``unsupported``
            out.append(PartitionCut(commit_scn, clause, name, notes=("no SYS rows in the dictionary",)))
            continue
        found = native.partition_segments(sys_rows.text, owner, table, name, commit_scn,
                                          subpartition=clause.split()[1].startswith("SUB"))  # fmt: skip
        out.append(PartitionCut(commit_scn, clause, name, tuple(found["prefixes"]),
                                tuple(found["ambiguous_prefixes"]), by_value + tuple(found["notes"])))  # fmt: skip
    return out


@dataclass
class TableChanges:
    """What the batch's DDL did to one source table, in commit order."""

    source_table: str
    # (commit SCN of the DDL, {old name: new name, dropped: DROPPED}) per DDL that renamed or dropped
    steps: list[tuple[int, dict[str, str]]] = field(default_factory=list)
    added: list[str] = field(default_factory=list)
    modified: list[str] = field(default_factory=list)
    truncated_at: int | None = None  # commit SCN of the last TRUNCATE
    dropped_at: int | None = None  # commit SCN of DROP TABLE
    created_at: int | None = None  # commit SCN of CREATE TABLE
    # the partitions DROP / TRUNCATE PARTITION removed the rows of, in commit order
    partition_cuts: list[PartitionCut] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    @property
    def renamed(self) -> list[tuple[str, str]]:
        return [(old, new) for _, step in self.steps for old, new in step.items() if new != DROPPED]

    @property
    def dropped(self) -> list[str]:
        return [old for _, step in self.steps for old, new in step.items() if new == DROPPED]

    def to_dict(self) -> dict[str, Any]:
        """The PUBLISHED report's form."""
        out: dict[str, Any] = {
            "renamed": [list(pair) for pair in self.renamed],
            "dropped": self.dropped,
            "added": self.added,
            "modified": self.modified,
            "truncated_at_scn": self.truncated_at,
            "dropped_at_scn": self.dropped_at,
            "created_at_scn": self.created_at,
            "partitions_removed": [cut.to_dict() for cut in self.partition_cuts],
            "notes": self.notes,
        }
        return {k: v for k, v in out.items() if v not in (None, [])}


def _image(record: Mapping[str, Any]) -> dict[str, str | None]:
    columns = record.get("columns") or ()
    if isinstance(columns, Mapping):
        return dict(columns)
    return {p["name"]: p["value"] for p in columns}


#: the table an EXCHANGE PARTITION swaps segments with
_EXCHANGED_WITH = re.compile(r"\bWITH\s+TABLE\s+((?:\"[^\"]+\"|[\w$#]+)(?:\.(?:\"[^\"]+\"|[\w$#]+))?)", re.I)


def table_changes(
    records: Iterable[Mapping[str, Any]], history: DictionaryHistory | None
) -> dict[str, TableChanges]:
    """Per source table, what the DDL records (trail rows or JSON-lines dicts, in trail order) did."""
    out: dict[str, TableChanges] = {}
    for record in records:
        image = _image(record)
        if record.get("op") != "DDL" or image.get("OBJECT_TYPE") != "TABLE":
            continue
        owner, name = record.get("owner") or "", record.get("table") or ""
        source = f"{owner}.{name}" if owner else name
        changes = out.setdefault(source, TableChanges(source))
        scn, commit_scn = int(record["scn"]), int(record["commit_scn"])
        operation, text = image.get("OPERATION"), image.get("DDL_TEXT") or ""
        if operation == "TRUNCATE":
            changes.truncated_at = commit_scn
            continue
        if operation == "DROP":
            changes.dropped_at = commit_scn
            continue
        if history is None:
            changes.notes.append(f"{operation} at SCN {scn}: no dictionary, the mirror follows the rows only")
            continue
        effect = replay_ddl(
            history, obj=int(record.get("obj") or 0) or None, scn=scn, text=text, schema=owner
        )
        if effect.kind is DdlKind.CREATE:
            changes.created_at = commit_scn
        elif effect.kind is DdlKind.RENAME:
            target = effect.version.full_name if effect.version is not None else "?"
            changes.notes.append(
                f"renamed to {target} at SCN {scn}: its changes from then on go to that table's mirror"
            )
        elif effect.kind is DdlKind.PARTITION and effect.partition_clause.split()[0] in _ROWS_GONE:
            changes.partition_cuts += partition_cuts(
                history, owner, name, effect.partition_clause, effect.partition_names, commit_scn
            )
        elif effect.kind is DdlKind.PARTITION and effect.partition_clause.split()[0] == "EXCHANGE":
            statement = " ".join(text.split())[:300]
            note = (
                f"{statement} at SCN {scn}: the rows it swapped in and out have no row changes in the "
                "redo, so the mirror does not follow them (it keeps the rows swapped out, lacks the ones "
                "swapped in)"
            )
            changes.notes.append(note)
            # the other table's mirror misses the same swap
            if (other := _EXCHANGED_WITH.search(statement)) is not None:
                partner = other.group(1).replace('"', "")
                partner = partner if "." in partner else f"{owner}.{partner}"
                out.setdefault(partner, TableChanges(partner)).notes.append(note)
        elif effect.kind is DdlKind.UNSUPPORTED:
            followed = _column_changes(history, int(record.get("obj") or 0), commit_scn)
            if followed is None:
                changes.notes.append(f"DDL at SCN {scn} not replayed ({effect.message})")
            else:
                changes.notes.append(
                    f"DDL at SCN {scn} not replayed ({effect.message}); its columns followed from SYS.COL$"
                )
                effect = followed
        step = dict(effect.renamed) | dict.fromkeys(effect.dropped, DROPPED)
        if step:
            changes.steps.append((commit_scn, step))
        changes.added += [c for c in effect.added if c not in changes.added]
        changes.modified += [c for c in effect.modified if c not in changes.modified]
    return out


def _column_changes(history: DictionaryHistory, obj: int, commit_scn: int) -> DdlEffect | None:
    """What the DDL committed at ``commit_scn`` did to table ``obj``'s columns, from its ``SYS.COL$``
    rows (the core's ``column_changes``: rows told apart by ROWID), when its text could not be
    replayed; ``None`` without SYS rows or when that commit changed no ``COL$`` row of the table."""
    if history.sys_json is None or not obj:
        return None
    from redo_lib.native import native

    found = native.column_changes(history.sys_json, obj, commit_scn)
    if found is None:
        return None
    return DdlEffect(
        kind=DdlKind.ALTER, table="", version=None, message="followed from SYS.COL$", obj=obj,
        renamed=tuple((old, new) for old, new in found["renamed"]), dropped=tuple(found["dropped"]),
        added=tuple(found["added"]), modified=tuple(found["modified"]),
    )  # fmt: skip


def name_epochs(changes: TableChanges, *, keep_dropped: bool = False) -> list[tuple[int, dict[str, str]]]:
    """``(commit SCN, mapping)`` pairs in SCN order: a change record committed before that SCN (and
    at or after the previous pair's) has its column names mapped by ``mapping`` (names not in it
    stay); records committed after the last DDL keep their names. ``keep_dropped``: dropped columns
    stay (tombstones) instead of mapping to ``DROPPED``."""
    out: list[tuple[int, dict[str, str]]] = []
    later: dict[str, str] = {}  # the composition of the steps after the current one
    for scn, step in reversed(changes.steps):
        if keep_dropped:
            step = {old: new for old, new in step.items() if new != DROPPED}
        composed = {}
        for name in set(step) | set(later):
            renamed = step.get(name, name)
            composed[name] = DROPPED if renamed == DROPPED else later.get(renamed, renamed)
        composed = {old: new for old, new in composed.items() if old != new}
        out.append((scn, composed))
        later = composed
    return list(reversed(out))
