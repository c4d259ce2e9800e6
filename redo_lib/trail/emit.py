"""Committed transactions -> trail records, in commit order (trail contract rules 6-16).

``TrailEmitter`` turns each committed transaction's row changes into ``TrailRecord`` values:
table and column names and types from the dictionary version valid at the change's SCN, values
rendered as the source shows them (rule 16), images shaped per rule 11, key columns per rule 12,
TransInd per rule 8, tokens per rule 13, positions per rule 15.

Objects the dictionary does not know are decoded schemaless (``OBJ_<n>``, ``COL_<n>`` as hex) and
counted per object in ``counters``; with a dictionary they are emitted only when
``EmitOptions.emit_unknown`` is set. Otherwise each is classified by its number against the
dictionary's ``max_object_id`` (Oracle numbers objects from one increasing counter): at or below it,
the object existed at the export without being exported, so it is no captured table (mostly Oracle's
own SYS dictionary and space management changes): ``out_of_scope``, counted. Above it, the object was
created after the export by DDL the redo did not show, and nothing tells whether it belongs to a
captured schema: ``unknown_in_scope``, which fails validation (docs/data-quality.md). A dictionary
without ``max_object_id`` (older exports, OLR checkpoints) keeps every unknown object out of scope and
counts those changes as ``unknown_unclassified_changes`` for the report's warning.
Without a dictionary (schemaless mode) every object is emitted.

The capture scope (``capture_options``: ``OWNER`` and ``OWNER.TABLE`` entries, empty = every table
of the dictionary) decides which known tables are emitted; the others are counted out of scope.

Layer 4: imports layers 0-3.
"""

from __future__ import annotations

import datetime as dt
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from functools import cache
from typing import Any, Protocol, final

from redo_lib.assembly.lobs import LobStore
from redo_lib.assembly.rows import RowChange, RowOp, iter_row_changes
from redo_lib.assembly.transactions import CommittedTransaction
from redo_lib.dictionary import DictionaryHistory
from redo_lib.dictionary.ddl import apply_ddl, ddl_subject
from redo_lib.dictionary.model import TypeCode
from redo_lib.errors import DictionaryError, MissingObjectError, RedoError
from redo_lib.format.lobs import parse_lob_locator
from redo_lib.scn import Rba
from redo_lib.trail.model import IoType, LobColumn, TrailRecord, TransInd
from redo_lib.values.rowids import RowId


class _Column(Protocol):
    segcol_no: int
    name: str
    type_code: int
    charset: str | None
    hidden: bool


class _Table(Protocol):
    owner: str
    name: str
    columns: tuple[_Column, ...]
    key_columns: tuple[str, ...]


class _Dictionary(Protocol):
    def lookup(self, obj: int, scn: int) -> _Table: ...

    def knows(self, obj: int) -> bool: ...

    @property
    def max_object_id(self) -> int | None: ...

    def __iter__(self) -> Iterator[Any]: ...


@final
@dataclass(frozen=True, slots=True, kw_only=True)
class EmitOptions:
    """How images are shaped. Defaults are GoldenGate's defaults (compressed updates, key deletes)."""

    emit_unknown: bool = False  # emit objects the dictionary does not know (schemaless)
    full_deletes: bool = False  # deletes carry every column, not only the key (rule 11)
    # the capture scope: a table is captured when its owner is in include_owners or its
    # "OWNER.TABLE" in include_tables (both empty = every table), and not excluded
    include_owners: frozenset[str] = frozenset()
    exclude_owners: frozenset[str] = frozenset({"SYS", "SYSTEM", "XDB", "AUDSYS", "LBACSYS", "MDSYS"})
    include_tables: frozenset[str] = frozenset()
    exclude_tables: frozenset[str] = frozenset()
    apply_ddl: bool = True  # DDL (24.1) opens a new dictionary version from its SCN on


def capture_options(capture: Iterable[str] | None) -> dict[str, frozenset[str]]:
    """``EmitOptions`` keywords for a capture scope: ``OWNER`` entries -> ``include_owners``,
    ``OWNER.TABLE`` entries -> ``include_tables`` (names as the dictionary spells them). Empty or
    ``None``: every table of the dictionary. Raises ``RedoError`` for an entry of another form."""
    owners: set[str] = set()
    tables: set[str] = set()
    for entry in capture or ():
        parts = entry.strip().split(".")
        if len(parts) > 2 or not all(p.strip() for p in parts):
            raise RedoError(f"capture entry {entry!r} is not OWNER or OWNER.TABLE")
        if len(parts) == 1:
            owners.add(parts[0].strip())
        else:
            tables.add(f"{parts[0].strip()}.{parts[1].strip()}")
    return {"include_owners": frozenset(owners), "include_tables": frozenset(tables)}


@dataclass(frozen=True, slots=True)
class _Schemaless:
    """A stand-in table version for an object without a dictionary entry."""

    owner: str
    name: str
    columns: tuple[_Column, ...] = ()
    key_columns: tuple[str, ...] = ()


class DdlChange(Protocol):
    """What :func:`evolve_dictionary` reads of a DDL: a DDL ``ChangeEvent`` (``assembly.events``),
    or the core's DDL row change (the binding passes a ``SimpleNamespace`` of these four)."""

    scn: int
    obj: int
    ddl_text: str
    ddl_schema: str


def evolve_dictionary(
    history: DictionaryHistory,
    ddl_changes: Iterable[DdlChange],
    counters: Counter[str] | None = None,
    problems: list[dict[str, Any]] | None = None,
) -> DictionaryHistory:
    """Apply DDL changes (in SCN order) to a dictionary; each opens a version from its SCN on.

    DDL of other objects than tables (indexes, views, grants) is counted as ``ddl_other``. Table DDL
    that contradicts the dictionary (e.g. a dictionary exported after that SCN) is counted as
    ``ddl_conflicts``, text not understood as ``ddl_unsupported``; both leave the dictionary as it was
    and, for tables of the exported schemas, are listed in ``problems`` (SCN, object, text, why): rows
    after them would be shaped by a guess, so validation fails the batch (docs/tables.md). A DDL the dictionary holds already (a DDL
    transaction open at the end of the previous batch, whose dictionary applied it by SCN) is counted
    as ``ddl_applied_before``."""
    counts = counters if counters is not None else Counter()

    def problem(rc: DdlChange, kind: str, message: str) -> None:
        if problems is not None:
            problems.append({"kind": kind, "scn": rc.scn, "obj": rc.obj or None, "schema": rc.ddl_schema,
                             "text": rc.ddl_text[:1000], "message": message})  # fmt: skip

    owners: set[str] | None = None
    for rc in ddl_changes:
        subject = ddl_subject(rc.ddl_text, rc.ddl_schema)
        if subject.object_type != "TABLE":  # indexes, views, grants, ...: no say in the tables' shape
            counts["ddl_other"] += 1
            continue
        if owners is None:
            owners = {v.owner for v in history}
        captured = subject.owner in owners  # a schema the dictionary was exported for
        try:
            history, effect = apply_ddl(
                history, obj=rc.obj or None, scn=rc.scn, text=rc.ddl_text, schema=rc.ddl_schema
            )
        except DictionaryError as exc:
            if rc.obj and any(
                v.obj == rc.obj and rc.scn in (v.valid_from_scn, v.valid_to_scn) for v in history
            ):
                counts["ddl_applied_before"] += 1
                continue
            counts["ddl_conflicts"] += 1
            problem(rc, "conflict", str(exc))
        else:
            counts[f"ddl_{effect.kind}"] += 1
            if effect.kind == "unsupported" and captured:
                problem(rc, "unsupported", effect.message)
    return history


_LOB_TYPES = frozenset({TypeCode.CLOB, TypeCode.BLOB})  # NCLOB is CLOB with charset form 2


@cache
def value_renderer() -> Any:
    """``render_value(type_code, bytes, charset) -> str``: a column's bytes as the trail's text (rule
    16), rendered by the Rust core (``crates/redo-core/src/values``; ``redo_lib/values/codecs.
    decode_value`` is its test oracle, tests/unit/native/test_values_differential.py); raises
    ``ValueDecodeError`` on malformed bytes. Bound on first use: importing the emitter needs no build."""
    from redo_lib.native import native

    return native.render_value


def render_time(value: dt.datetime) -> str:
    return value.strftime("%Y-%m-%dT%H:%M:%S")


@dataclass
class TrailEmitter:
    """Stateless apart from its counters; one per batch."""

    dictionary: _Dictionary | None = None
    options: EmitOptions = field(default_factory=EmitOptions)
    counters: Counter[str] = field(default_factory=Counter)
    emitted: Counter[tuple[str, str]] = field(default_factory=Counter)  # (owner.table, op) -> records
    unknown_objects: Counter[int] = field(default_factory=Counter)
    # reconciliation, by (obj, op) with PK_UPDATE counted as UPDATE: row changes that became trail
    # records, and row changes of committed transactions outside the capture scope
    trail_counts: Counter[tuple[int, str]] = field(default_factory=Counter)
    out_of_scope: Counter[tuple[int, str]] = field(default_factory=Counter)
    # changes of committed transactions to objects the dictionary does not know and that may be in
    # the capture scope (numbered above its max_object_id), by (obj, op), and each object's first SCN
    unknown_in_scope: Counter[tuple[int, str]] = field(default_factory=Counter)
    unknown_first_scn: dict[int, int] = field(default_factory=dict)
    value_errors: list[str] = field(default_factory=list)
    ddl_records: Counter[tuple[str, str]] = field(default_factory=Counter)  # (owner.name, verb) -> records
    ddl_problems: list[dict[str, Any]] = field(default_factory=list)  # DDL not applied (evolve_dictionary)
    lobs: LobStore | None = field(default=None, repr=False)  # LOB pages of emitted transactions
    _by_dataobj: dict[int, int] | None = field(default=None, repr=False)
    _names: dict[int, str] | None = field(default=None, repr=False)

    def _obj_of(self, rc: RowChange) -> int:
        """The dictionary object of a change; direct-path blocks (19.1) know only the data object."""
        if rc.obj:
            return rc.obj
        if self.dictionary is not None and self._by_dataobj is None:
            self._by_dataobj = {v.dataobj: v.obj for v in self.dictionary if v.dataobj is not None}
        return (self._by_dataobj or {}).get(rc.dataobj, rc.dataobj)

    def emit(self, txn: CommittedTransaction) -> list[TrailRecord]:
        """The trail records of one committed transaction (empty when nothing of it is captured)."""
        return list(self.iter_emit(txn))

    def iter_emit(self, txn: CommittedTransaction) -> Iterator[TrailRecord]:
        """:meth:`emit` as a stream, for transactions of any size: the transaction's changes are read
        once from its (spilled) buffer and each record is yielded as soon as the next one shows
        whether it was the last (``trans_ind``), so at most two records are held at a time."""
        row_counts: dict[str, int] = {}
        pieces = getattr(txn.changes, "lob_pieces", 0)
        if pieces:  # LOB pieces first: a row change may come before the pieces its locator names
            if self.lobs is None:
                self.lobs = LobStore()
            self.counters["lob_pieces"] += self.lobs.add(txn)
        shaped = (r for rc in iter_row_changes(txn, row_counts) if (r := self._shape(rc)) is not None)
        xid = txn.xid.trail()
        commit_time = render_time(txn.commit_time)
        pending: tuple[int, Any] | None = None
        for i, item in enumerate(shaped):
            if pending is not None:
                yield self._record(txn, xid, commit_time, *pending, last=False)
            pending = (i, item)
        if pending is not None:
            yield self._record(txn, xid, commit_time, *pending, last=True)
            self.counters["transactions"] += 1
        self.counters.update(row_counts)
        if pieces and self.lobs is not None:
            # pieces no locator of this transaction named (contract rule 17: counted, not dropped)
            self.counters["lob_pieces_unattached"] += self.lobs.unattached()

    def _record(
        self, txn: CommittedTransaction, xid: str, commit_time: str, i: int, item: Any, *, last: bool
    ) -> TrailRecord:
        rc, table, io_type, op, ba, columns, before, changed, rowid, lob_columns = item
        tokens: tuple[tuple[str, str], ...] = (("R", rowid),) if rowid else ()  # a DDL has no row
        if i == 0:
            tokens += (("L", str(txn.commit_scn)), ("6", xid))
        trans_ind = (TransInd.ONLY if i == 0 else TransInd.LAST) if last else TransInd.of(i, i + 2)
        record = TrailRecord(
            xid=xid,
            commit_scn=txn.commit_scn,
            commit_time=commit_time,
            trans_ind=trans_ind,
            io_type=io_type,
            op=op,
            before_after=ba,
            owner=table.owner,
            table=table.name,
            obj=self._obj_of(rc),
            columns=columns,
            before=before,
            key_columns=table.key_columns,
            changed_columns=changed,
            rowid=rowid,
            scn=rc.scn,
            subscn=rc.subscn,
            op_time=render_time(rc.time),
            thread=rc.thread,
            sequence=rc.seq,
            rba=str(Rba(rc.seq, rc.block, rc.offset)),
            tokens=tokens,
            lob_columns=lob_columns,
        )  # fmt: skip
        self.emitted[(f"{table.owner}.{table.name}", op)] += 1
        if io_type is not IoType.DDL:  # row changes reconcile with the decoded ones; DDL is counted apart
            self.trail_counts[(self._obj_of(rc), "UPDATE" if op == "PK_UPDATE" else op)] += 1
        return record

    def emit_all(self, transactions: Iterable[CommittedTransaction]) -> Iterator[TrailRecord]:
        for txn in transactions:
            yield from self.iter_emit(txn)

    def table_name(self, obj: int) -> str:
        """``OWNER.TABLE`` of an object as the dictionary last knew it, else ``OBJ_<n>``."""
        if self.dictionary is not None:
            if self._names is None:
                names: dict[int, str] = {}
                for v in self.dictionary:
                    names[v.obj] = f"{v.owner}.{v.name}"
                    if v.dataobj is not None:
                        names.setdefault(v.dataobj, names[v.obj])
                self._names = names
            if obj in self._names:
                return self._names[obj]
        return f"OBJ_{obj}"

    # -- shaping ---------------------------------------------------------------------------------
    def _table(self, rc: RowChange) -> _Table | None:
        obj = self._obj_of(rc)
        if self.dictionary is None:
            return _Schemaless("", f"OBJ_{obj}")
        try:
            table = self.dictionary.lookup(obj, rc.scn)
        except MissingObjectError:
            self.unknown_objects[obj] += 1
            self.counters["unknown_object_changes"] += 1
            if self.options.emit_unknown:
                return _Schemaless("", f"OBJ_{obj}")
            if self._may_be_captured(obj):
                self.unknown_in_scope[(obj, rc.op.value)] += 1
                first = self.unknown_first_scn.get(obj)
                self.unknown_first_scn[obj] = rc.scn if first is None else min(first, rc.scn)
            else:
                self.out_of_scope[(obj, rc.op.value)] += 1
            return None
        if not self._captured(table.owner, table.name):
            self.counters["filtered_changes"] += 1
            self.out_of_scope[(obj, rc.op.value)] += 1
            return None
        return table

    def _captured(self, owner: str, name: str) -> bool:
        """Whether ``owner.name`` is in the capture scope; owners and tables listed together are a
        union ("HR,SALES.ORDERS": all of HR and one table)."""
        o = self.options
        full = f"{owner}.{name}"
        included = (not o.include_owners and not o.include_tables) or (
            owner in o.include_owners or full in o.include_tables
        )
        return included and owner not in o.exclude_owners and full not in o.exclude_tables

    def _may_be_captured(self, obj: int) -> bool:
        """Whether an object without a dictionary version at a change's SCN may be a captured table.

        The export holds every table of the captured schemas at its SCN, and Oracle numbers objects
        from one increasing counter: an object numbered at or below ``max_object_id`` existed then and
        was not exported, so it is no captured table. One above it was created later, and no DDL of
        the batch created it (DDL opens dictionary versions): it may be. An object the dictionary
        knows at other SCNs (dropped, or not created yet) is not "unknown" and stays out of scope.
        Without ``max_object_id`` nothing can be told: out of scope as before, counted for the
        report's warning, so old exports and OLR checkpoints (SYS objects unknown) keep working."""
        assert self.dictionary is not None
        if self.dictionary.knows(obj):
            return False
        limit = self.dictionary.max_object_id
        if limit is None:
            self.counters["unknown_unclassified_changes"] += 1
            return False
        return obj > limit

    def scope(self) -> dict[str, Any]:
        """The capture scope as counts.json reports it: the configured entries (``None`` = every
        table of the dictionary), the dictionary's ``max_object_id`` and the changes to unknown
        objects that could not be classified for want of it."""
        o = self.options
        capture = sorted(o.include_owners | o.include_tables)
        limit = self.dictionary.max_object_id if self.dictionary is not None else None
        return {
            "capture": capture or None,
            "max_object_id": limit,
            "unclassified_changes": self.counters.get("unknown_unclassified_changes", 0),
        }

    def _shape(self, rc: RowChange) -> tuple | None:
        if rc.op is RowOp.DDL:
            self.counters["ddl"] += 1
            if self.options.apply_ddl and isinstance(self.dictionary, DictionaryHistory):
                self.dictionary = evolve_dictionary(self.dictionary, [rc], self.counters, self.ddl_problems)
                self._by_dataobj = self._names = None  # creates and drops change these maps
            return self._shape_ddl(rc)
        table = self._table(rc)
        if table is None:
            return None
        if table.columns:
            names = {c.segcol_no - 1: c for c in table.columns}
            keys = [c for c in table.columns if c.name in set(table.key_columns)]
        else:
            names = {}
            keys = []

        lob_columns: list[LobColumn] = []
        render_value = value_renderer()

        def render(idx: int, value: bytes | None) -> tuple[str, str | None]:
            col = names.get(idx)
            if col is None:
                return (f"COL_{idx}", None if value is None else value.hex())
            if value is None:
                return (col.name, None)
            try:
                if col.type_code in _LOB_TYPES:
                    data = self._lob_data(value)
                    if data is None:
                        self.counters["lob_values_unresolved"] += 1
                        return (col.name, value.hex())
                    lob_columns.append(LobColumn.of(col.name, len(data)))
                    value = data
                return (col.name, render_value(col.type_code, value, col.charset or "AL32UTF8"))
            except RedoError as exc:
                self.counters["value_errors"] += 1
                if len(self.value_errors) < 100:
                    self.value_errors.append(f"{table.owner}.{table.name}.{col.name}: {exc}")
                return (col.name, value.hex())

        rowid = str(RowId.from_dba(dataobj=rc.dataobj, dba=rc.bdba, slot=rc.slot))
        # Without a dictionary the key is what supplemental logging wrote (PK, UK or all columns).
        key_idx = [c.segcol_no - 1 for c in keys] if names else list(rc.logged)
        if rc.op is RowOp.INSERT:
            if names:
                cols = tuple(
                    render(i, rc.after.get(i)) for i in sorted(names) if not names[i].hidden or i in rc.after
                )
            else:
                cols = tuple(render(i, v) for i, v in sorted(rc.after.items()))
            return (rc, table, IoType.INSERT, "INSERT", "A", cols, (), (), rowid, tuple(lob_columns))
        if rc.op is RowOp.DELETE:
            if self.options.full_deletes or not key_idx:
                cols = tuple(render(i, v) for i, v in sorted(rc.before.items()))
            else:
                cols = tuple(render(i, rc.before.get(i)) for i in key_idx)
            return (rc, table, IoType.DELETE, "DELETE", "B", cols, (), (), rowid, tuple(lob_columns))
        changed = list(rc.changed) or sorted(rc.after)
        key_changed = [i for i in key_idx if i in rc.after and i in rc.before and rc.after[i] != rc.before[i]]
        changed_names = tuple(render(i, None)[0] for i in changed)
        if key_changed:
            before = tuple(render(i, rc.before.get(i)) for i in key_idx)
            order = key_idx + [i for i in changed if i not in key_idx]
            cols = tuple(render(i, rc.after[i] if i in rc.after else rc.before.get(i)) for i in order)
            lobs = tuple(lob_columns)
            return (rc, table, IoType.PK_UPDATE, "PK_UPDATE", "A", cols, before, changed_names, rowid, lobs)
        order = key_idx + [i for i in changed if i not in key_idx]
        cols = tuple(render(i, rc.after[i] if i in rc.after else rc.before.get(i)) for i in order)
        lobs = tuple(lob_columns)
        return (rc, table, IoType.COMPRESSED_UPDATE, "UPDATE", "A", cols, (), changed_names, rowid, lobs)

    def _shape_ddl(self, rc: RowChange) -> tuple | None:
        """A DDL as its trail record (IOType 160, rule 9): the statement's verb, object type and text
        as the image, owner and name of the object it names, no row (no ROWID); counted by table and
        verb. DDL on objects outside the capture scope (Oracle's own, excluded owners) is counted."""
        subject = ddl_subject(rc.ddl_text, rc.ddl_schema)
        if self.dictionary is not None and not self._captured(subject.owner, subject.name):
            self.counters["ddl_out_of_scope"] += 1
            return None
        table = _Schemaless(subject.owner, subject.name)
        columns = (("OPERATION", subject.operation), ("OBJECT_TYPE", subject.object_type),
                   ("DDL_TEXT", rc.ddl_text))  # fmt: skip
        self.ddl_records[(f"{subject.owner}.{subject.name}", subject.operation)] += 1
        return (rc, table, IoType.DDL, "DDL", "A", columns, (), (), "", ())

    def _lob_data(self, value: bytes) -> bytes | None:
        """The data of a LOB column value (its locator, §7.8): in-row data, or the pages it names
        from the store (assembly/lobs.py). Counted by where the value came from."""
        locator = parse_lob_locator(value)
        if locator.inline is not None:
            self.counters["lob_values_in_row"] += 1
            return locator.inline
        data = self.lobs.resolve(locator) if self.lobs is not None else None
        if data is not None:
            self.counters["lob_values_out_of_row"] += 1
        return data
