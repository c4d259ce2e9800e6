"""Runs a scenario: sessions, transactions and their redo, the expected trail, the final tables.

:class:`Engine` is the generator's state machine (style §6.5). Transitions of a session:

| state        | step                                   | effect                                         |
|--------------|----------------------------------------|------------------------------------------------|
| idle         | DML                                    | transaction opened; its first record carries   |
|              |                                        | 5.2 (+ 5.19 / 5.20)                            |
| idle         | SAVEPOINT                              | transaction object opened, no redo yet         |
| idle         | COMMIT / ROLLBACK / ROLLBACK TO        | nothing (ROLLBACK TO an unknown savepoint:     |
|              |                                        | ``ScenarioError``)                             |
| open         | DML                                    | one record per (undo, redo) pair               |
| open         | SAVEPOINT s                            | marks the change log and the trail spool       |
| open         | ROLLBACK TO s                          | compensation records (11.x + 5.6 / 5.11) in    |
|              |                                        | reverse order; spool truncated                 |
| open         | COMMIT                                 | 5.4 (+ 24.4); spool -> trail; idle             |
| open         | ROLLBACK                               | compensations, 5.4 with flag 0x04; idle        |
| any          | DDL                                    | COMMIT first; then a transaction of its own:   |
|              |                                        | 5.2 (+ 5.19), 24.1, 5.4; idle                  |

DML itself (row placement, pairs, expected records) is in ``dml.py``, DDL in ``ddl.py``.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any, final

from redo_lib.errors import ScenarioError
from redo_lib.format.model import ChangeVector, RowOperation, UndoRecord
from redo_lib.scn import Uba, Xid
from redo_lib.synth import ddl, dml, partitions, storage, sysrows
from redo_lib.synth.database import TABLE_BLOCKS, TableState
from redo_lib.synth.dml import Change
from redo_lib.synth.expected import Spool, TrailSink
from redo_lib.synth.lobs import LobPage, LobSpace
from redo_lib.synth.logs import Clock, Placed, ThreadLog
from redo_lib.synth.pairs import PairContext
from redo_lib.synth.scenario import (
    AppendLob,
    Commit,
    Ddl,
    Delete,
    DirectInsert,
    Insert,
    LobWrite,
    Rollback,
    RollbackTo,
    Savepoint,
    Scenario,
    SessionSpec,
    Sleep,
    Step,
    Switch,
    TableSpec,
    Update,
)
from redo_lib.synth.vectors import Txn, UndoSegment, Vectors

__all__ = ["Engine", "OpenTxn"]

_SLOTS_PER_SEGMENT = 34
_SEGMENTS_PER_THREAD = 10
_TABLE_OBJ_BASE = 70_000
#: constraint numbers start above this (a 23ai database's user constraints are numbered from ~8600)
_CON_BASE = 8600
_DATA_FILE = 4  # the relative file number of the tables' segments
_DATA_FILE_BLOCKS = 1 << 22  # the blocks a DBA can address in one file (redo-format §7.9)
_CLEANOUT_EVERY = 3
_MARKER_EVERY = 4


@dataclass(slots=True)
class OpenTxn:
    """An open transaction of a session."""

    ident: int
    session: SessionSpec
    session_no: int
    log: ThreadLog
    txn: Txn | None = None
    ctx: PairContext | None = None
    spool: Spool = field(default_factory=Spool)
    changes: list[Change] = field(default_factory=list)
    savepoints: dict[str, tuple[int, int]] = field(default_factory=dict)
    direct_tables: set[str] = field(default_factory=set)
    last_uba: Uba | None = None
    first_block: tuple[TableState, int] | None = None
    # row changes of tables the decoder cannot read, expected as unsupported once committed
    unsupported: Counter[tuple[str, str]] = field(default_factory=Counter)
    # row changes carrying a value the decoder cannot render (an XMLTYPE's), once committed:
    # (OWNER.TABLE, column, type code, operation, left out of the capture scope) -> changes
    unrenderable: Counter[tuple[str, str, int, str, bool]] = field(default_factory=Counter)
    # OWNER.TABLE.COLUMN names the capture list leaves out (Engine.left_out_columns)
    left_out: frozenset[str] = frozenset()


@final
class Engine:
    """Executes the steps of a scenario; writes logs, expected trail and final tables under ``out``."""

    def __init__(self, scenario: Scenario, out: Path, trail: IO[str], images: IO[str] | None = None) -> None:
        self.scenario = scenario
        self.settings = scenario.settings
        s = self.settings
        self.clock = Clock(s.start_scn, s.start_time)
        (out / "logs").mkdir(parents=True, exist_ok=True)
        self._out = out
        self.sink = TrailSink(trail)
        # the expected trail under the image options (update-befores, full-deletes), when asked for
        self.image_sink = TrailSink(images, images=True) if images is not None else None
        # the tables that exist, by OWNER.NAME (a partitioned one: its PartitionedTable)
        self.tables: dict[str, Any] = {}
        self.dropped: list[Any] = []  # dropped by DDL, as they were then
        self.segment_keys: dict[str, TableState] = {}  # partition segments, by segment_key
        self._segment_key: dict[int, str] = {}
        self._states_made = 0  # segments made so far (each its first extent, from the file's start)
        self._extents_made = 0  # further extents of full segments (from the file's end, down)
        self._system_names = 100  # SYS_P<n> names of interval partitions
        #: the last constraint number handed out (CDEF$.CON#: one database-wide sequence, cdefrows.py)
        self.last_con = _CON_BASE
        self.sys = sysrows.SysTables(s.data_block_size)  # SYS.OBJ$, TABPART$, ... (sysrows.py)
        ids = [
            spec.obj if spec.obj is not None else _TABLE_OBJ_BASE + 10 * i
            for i, spec in enumerate(scenario.tables)
        ]
        #: the highest object number handed out (Oracle numbers objects from one counter)
        self.max_id = max(
            (_spec_max_id(spec, obj) for spec, obj in zip(scenario.tables, ids, strict=True)), default=0
        )
        for spec, obj in zip(scenario.tables, ids, strict=True):
            self.add_table(spec, obj=obj, dataobj=spec.dataobj if spec.dataobj is not None else obj + 5)
        #: the tables as the scenario starts (ids filled in): the dictionary export, scenario.yaml
        self.initial_tables: tuple[TableSpec, ...] = tuple(
            t.resolved_spec()
            if isinstance(t, partitions.PartitionedTable)
            else dataclasses.replace(t.spec, obj=t.obj, dataobj=t.dataobj)
            for t in self.tables.values()
        )
        self.initial_max_id = self.max_id
        for owner in sorted({t.spec.owner for t in self.tables.values()}):
            self.sys.seed("USER$", sysrows.user_values(self, owner))
        for table in self.tables.values():
            for name, values in partitions.sys_rows_of_table(self, table):
                self.sys.seed(name, values)
        self.sys.take_snapshot(max(s.start_scn - 1, 0))
        threads = sorted({sp.thread for sp in scenario.sessions} | {1})
        self.logs: dict[int, ThreadLog] = {t: ThreadLog(out / "logs", s, t, self.clock) for t in threads}
        self.vectors = Vectors(self.logs[1].layout)
        self.lob_space = LobSpace(s.data_block_size)
        self._segments: dict[int, list[UndoSegment]] = {
            t: [
                UndoSegment(usn=u, afn=3 if t == 1 else t + 3, header_block=u * 0x10000)
                for u in range((t - 1) * 10 + 1, t * 10 + 1)
            ]
            for t in threads
        }
        self._busy: set[tuple[int, int]] = set()
        self._sqn: dict[tuple[int, int], int] = {}
        self._rr: dict[int, int] = dict.fromkeys(threads, 0)
        self.open: dict[str, OpenTxn] = {}
        self._session_no: dict[str, int] = {}
        self._next_ident = 1
        self._commits: dict[int, int] = dict.fromkeys(threads, 0)
        #: (OWNER.TABLE, kind) -> what the pipeline is expected to count as unsupported
        #: (synth/storage.py, expected/unsupported.json)
        self.expected_unsupported: Counter[tuple[str, str]] = Counter()
        #: committed OpenTxn.unrenderable (expected/unrenderable.json)
        self.expected_unrenderable: Counter[tuple[str, str, int, str, bool]] = Counter()
        #: the capture list's -OWNER.TABLE.COLUMN entries (``generate(capture=...)``)
        self.left_out_columns: frozenset[str] = frozenset()

    # -- identities -------------------------------------------------------------------------------

    def add_table(self, spec: TableSpec, *, obj: int, dataobj: int) -> Any:
        """A table of the scenario, or one CREATE TABLE made: its own range of data blocks (a
        partitioned table: one per partition or subpartition, ``partitions.py``)."""
        self.max_id = max(self.max_id, obj + 1)
        if spec.partition_by is not None:
            table: Any = partitions.build(self, spec, obj)
        else:
            self.max_id = max(self.max_id, dataobj)
            table = self._state(spec, obj, dataobj)
        self.tables[spec.full_name] = table
        return table

    def _state(self, spec: TableSpec, obj: int, dataobj: int) -> TableState:
        self._states_made += 1
        base = self._extent_at(0x100 + TABLE_BLOCKS * (self._states_made - 1))
        return TableState(
            spec,
            obj=obj,
            dataobj=dataobj,
            rfile=_DATA_FILE,
            base_block=base,
            block_size=self.settings.data_block_size,
            supplemental=spec.supplemental or self.settings.supplemental,
            extend=self._further_extent,
        )

    def _further_extent(self) -> int:
        """The first block of a new extent for a full segment, taken from the datafile's end down."""
        self._extents_made += 1
        return self._extent_at(_DATA_FILE_BLOCKS - TABLE_BLOCKS * self._extents_made)

    def _extent_at(self, first: int) -> int:
        """``first``, unless the segments' first extents (from the start) and the further ones (from
        the end) would overlap: the datafile is full."""
        if 0x100 + TABLE_BLOCKS * self._states_made > _DATA_FILE_BLOCKS - TABLE_BLOCKS * self._extents_made:
            raise ScenarioError(f"datafile {_DATA_FILE} is full: {self._states_made} segments, "
                                f"{self._extents_made} further extents of {TABLE_BLOCKS} blocks")  # fmt: skip
        return first

    def new_segment(self, table: Any, obj: int, dataobj: int) -> TableState:
        """The segment of a partition or subpartition of ``table`` (its key index is the table's)."""
        self.max_id = max(self.max_id, obj, dataobj)
        state = self._state(table.spec, obj, dataobj)
        state.index_obj = table.index_obj
        key = f"{table.spec.full_name}@{obj}"
        self.segment_keys[key] = state
        self._segment_key[id(state)] = key
        return state

    def segment_key(self, state: TableState) -> str:
        """The name DML steps give a partition's segment (``Engine.table`` resolves it)."""
        return self._segment_key[id(state)]

    def next_object_id(self) -> int:
        """The next number of Oracle's object counter (partitions, new data objects)."""
        self.max_id += 1
        return self.max_id

    def next_constraint_id(self) -> int:
        """The next number of Oracle's constraint sequence (``CDEF$.CON#``, ``cdefrows.py``)."""
        self.last_con += 1
        return self.last_con

    def next_system_name(self) -> int:
        self._system_names += 1
        return self._system_names

    def new_ident(self) -> int:
        self._next_ident += 1
        return self._next_ident - 1

    def free_txn(self, txn: Txn) -> None:
        self._free(txn)

    def table(self, name: str) -> TableState:
        """An existing table by ``OWNER.NAME`` or by a unique bare ``NAME`` (or a partition's segment
        by its ``segment_key``)."""
        segment = self.segment_keys.get(name)
        if segment is not None:
            return segment
        hits = [t for t in self.tables.values() if name in (t.spec.full_name, t.spec.name)]
        if len(hits) == 1:
            return hits[0]  # type: ignore[no-any-return]  # self.tables holds PartitionedTable too
        if not hits and any(name in (t.spec.full_name, t.spec.name) for t in self.dropped):
            raise ScenarioError(f"table {name!r} was dropped (ORA-00942)")
        raise ScenarioError(f"unknown table {name!r}" if not hits else f"ambiguous table name {name!r}")

    def session_txn(self, name: str) -> OpenTxn:
        """The session's open transaction, opened (without redo) if it has none."""
        txn = self.open.get(name)
        if txn is None:
            spec = self.scenario.session(name)
            number = self._session_no.setdefault(name, 20 + len(self._session_no))
            txn = OpenTxn(
                ident=self._next_ident, session=spec, session_no=number, log=self.logs[spec.thread],
                left_out=self.left_out_columns,
            )  # fmt: skip
            self._next_ident += 1
            self.open[name] = txn
        return txn

    def _new_txn(self, thread: int) -> Txn:
        """A free (usn, slot) of the thread's undo segments with its next sqn (§5.0.1 XID)."""
        segments = self._segments[thread]
        for _ in range(len(segments)):
            seg = segments[self._rr[thread] % len(segments)]
            self._rr[thread] += 1
            for slot in range(_SLOTS_PER_SEGMENT):
                if (seg.usn, slot) not in self._busy:
                    self._busy.add((seg.usn, slot))
                    sqn = self._sqn.get((seg.usn, slot), 0x200 + 3 * seg.usn + slot) + 1
                    self._sqn[(seg.usn, slot)] = sqn
                    return Txn(xid=Xid(seg.usn, slot, sqn), segment=seg)
        raise ScenarioError(
            f"thread {thread}: more than {len(segments) * _SLOTS_PER_SEGMENT} open transactions"
        )

    def _free(self, txn: Txn) -> None:
        self._busy.discard((txn.xid.usn, txn.xid.slot))

    def ensure_xid(self, t: OpenTxn) -> tuple[Txn, PairContext]:
        if t.txn is None:
            t.txn = self._new_txn(t.session.thread)
            seg = t.txn.segment

            def next_uba() -> Uba:
                uba = seg.next_uba()
                t.last_uba = uba
                return uba

            t.ctx = PairContext(t.txn.xid, next_uba, user=90)
            t.ctx.begin = True
        assert t.ctx is not None
        return t.txn, t.ctx

    # -- writing records ----------------------------------------------------------------------------

    def write_pair(self, t: OpenTxn, table: TableState, undo: UndoRecord, redo: RowOperation) -> Placed:
        """One record: [5.2 if first] 5.1 + 11.x [5.19/5.20 if first]."""
        txn, _ = self.ensure_xid(t)
        assert redo.ktb is not None and redo.ktb.uba is not None
        uba = redo.ktb.uba
        stored = storage.stored_pair(self, t, table, undo, redo) if table.spec.storage else None
        if stored is None:
            stored = undo, self.vectors.redo(table.rfile, table.dataobj, redo, self.clock.scn)
        placed = self._write_undo_redo(t, table, uba, *stored)
        if t.first_block is None:
            t.first_block = (table, redo.kdo.bdba & 0x3FFFFF)
        return placed

    def write_lob_piece(self, t: OpenTxn, table: TableState, page: LobPage) -> tuple[UndoRecord, Uba]:
        """One record for one LOB page: [5.2 if first] 5.1 (opc 26.1) + 26.2 [5.19/5.20 if first]."""
        _, ctx = self.ensure_xid(t)
        undo, uba = ctx.raw_undo(table, (26, 1), self.vectors.lob_undo_fields(page))
        self._write_undo_redo(
            t, table, uba, undo, self.vectors.lob_redo(page, ctx.ktb(uba), table.dataobj, self.clock.scn)
        )
        return undo, uba

    def write_lob_index(
        self, t: OpenTxn, table: TableState, lob_id: bytes, first_page: int, dbas: list[int]
    ) -> tuple[UndoRecord, Uba]:
        """One record for one BasicFile LOB index entry: 5.1 (opc 10.22) + 10.2 whose key names the
        LOB id and first page, its key data the pages' DBAs (§5.7)."""
        _, ctx = self.ensure_xid(t)
        undo_fields, key = self.vectors.lob_index_undo_fields(lob_id, first_page)
        undo, uba = ctx.raw_undo(table, (10, 22), undo_fields)
        redo = self.vectors.lob_index_redo(ctx.ktb(uba), key, dbas, table.index_obj, self.clock.scn)
        self._write_undo_redo(t, table, uba, undo, redo)
        return undo, uba

    def write_lob_image(self, t: OpenTxn, table: TableState, page: LobPage) -> None:
        """One record for one SecureFile page written as a page image: a 26.6 alone (no undo record;
        the suplog item names the transaction), after the transaction's begin record."""
        self.write_begin_only(t)
        assert t.txn is not None
        t.log.write([self.vectors.lob_image(page, t.txn.xid, table.obj, table.dataobj, self.clock.scn)])

    def _write_undo_redo(
        self, t: OpenTxn, table: TableState, uba: Uba, undo: UndoRecord, redo: ChangeVector
    ) -> Placed:
        """One record of an undo + redo pair, opened by the 5.2 (and closed by the session audit) on the
        transaction's first change."""
        txn = t.txn
        assert txn is not None
        scn = self.clock.scn
        vectors: list[ChangeVector] = []
        first = not txn.begun
        if first:
            vectors.append(self.vectors.begin(txn, uba, scn))
            txn.begun = True
        vectors.append(self.vectors.undo(txn, uba, undo, scn))
        vectors.append(redo)
        if first and self.settings.noise.markers:
            vectors.append(self.vectors.session(t.session_no, table.spec.owner, "sqlplus@synthhost"))
        return t.log.write(vectors)

    def write_begin_only(self, t: OpenTxn) -> None:
        """The begin record of a transaction whose first change has no undo pair (direct load, seed
        000): 5.2 + 5.1 (opc 5.7, begin transaction) + 5.19/5.20."""
        txn, ctx = self.ensure_xid(t)
        if txn.begun:
            return
        uba = txn.segment.next_uba()
        t.last_uba = uba
        ctx.begin = False
        undo = UndoRecord(
            xid=txn.xid,
            uba_seq=uba.seq,
            uba_rec=uba.rec,
            ktudb_flg=0x10,
            obj=0,
            dataobj=0,
            tsn=0,
            opc=(5, 7),
            slt=txn.xid.slot,
            rci=0,
            flg=0x08,
            user=90,
        )
        vectors = [
            self.vectors.begin(txn, uba, self.clock.scn),
            self.vectors.undo(txn, uba, undo, self.clock.scn),
        ]
        if self.settings.noise.markers:
            vectors.append(self.vectors.session(t.session_no, "SYNTH", "sqlplus@synthhost"))
        txn.begun = True
        t.log.write(vectors)

    def space_transaction(self, log: ThreadLog, table: TableState, block: int) -> None:
        """A recursive space-management transaction for a newly formatted block (noise, rule 3)."""
        txn = self._new_txn(log.thread)
        uba = txn.segment.next_uba()
        scn = self.clock.scn
        vectors = [
            self.vectors.begin(txn, uba, scn),
            *self.vectors.space_pair(txn, uba, table.rfile, table.dataobj, table.hdba & 0x3FFFFF, block, scn),
        ]
        log.write(vectors)
        self.clock.bump()
        log.write([self.vectors.commit(txn, uba, self.clock.scn, self.clock.time, rolled_back=False)])
        self._free(txn)

    # -- steps ------------------------------------------------------------------------------------------

    def run_step(self, step: Step) -> None:
        if isinstance(step, Insert | DirectInsert | Update | AppendLob | LobWrite | Delete):
            full = self.table(step.table).spec.full_name
            t = self.session_txn(step.session)
            if full in t.direct_tables:
                raise ScenarioError(f"{full}: no DML after a direct-path insert before COMMIT (ORA-12838)")
            if any(full in o.direct_tables for o in self.open.values() if o is not t):
                raise ScenarioError(f"{full}: locked by another session's direct-path insert")
            self.clock.bump()
            table = self.table(step.table)
            if isinstance(table, partitions.PartitionedTable):
                partitions.run_dml(self, t, step, table)
            elif isinstance(step, Insert):
                dml.insert(self, t, step)
            elif isinstance(step, DirectInsert):
                dml.direct_insert(self, t, step)
            elif isinstance(step, Update):
                dml.update(self, t, step)
            elif isinstance(step, AppendLob):
                dml.append_lob(self, t, step)
            elif isinstance(step, LobWrite):
                dml.lob_write(self, t, step)
            else:
                dml.delete(self, t, step)
        elif isinstance(step, Commit):
            self.commit(step.session)
        elif isinstance(step, Rollback):
            self.rollback(step.session)
        elif isinstance(step, Savepoint):
            t = self.session_txn(step.session)
            t.savepoints[step.name] = (len(t.changes), t.spool.mark())
        elif isinstance(step, RollbackTo):
            self.rollback_to(step.session, step.name)
        elif isinstance(step, Switch):
            if step.thread is not None and step.thread not in self.logs:
                raise ScenarioError(f"switch of thread {step.thread}, which no session uses")
            for number, log in self.logs.items():
                if step.thread is None or step.thread == number:
                    log.switch()
        elif isinstance(step, Sleep):
            self.clock.advance(step.seconds)
        elif isinstance(step, Ddl):
            ddl.run(self, step)
        else:  # pragma: no cover - exhaustive
            raise ScenarioError(f"unknown step {step!r}")

    def commit(self, session: str) -> None:
        t = self.open.pop(session, None)
        if t is None:
            return
        if t.txn is None or not t.txn.begun:
            self._finish(t, committed=True)
            return
        self.clock.bump()
        vectors = [self.vectors.commit(t.txn, t.last_uba, self.clock.scn, self.clock.time, rolled_back=False)]
        if self.settings.noise.markers:
            vectors.append(self.vectors.marker_24_4(t.txn.xid, self.clock.scn))
        placed = t.log.write(vectors)
        t.log.flush()
        for sink in (self.sink, self.image_sink):
            if sink is not None:
                sink.commit(
                    t.spool, xid=t.txn.xid.trail(), commit_scn=placed.scn, commit_time=iso(placed.time)
                )
        self.expected_unsupported.update(t.unsupported)
        self.expected_unrenderable.update(t.unrenderable)
        self._finish(t, committed=True)
        self._after_commit(t)

    def _after_commit(self, t: OpenTxn) -> None:
        thread = t.log.thread
        self._commits[thread] += 1
        noise = self.settings.noise
        if noise.cleanout and t.first_block is not None and self._commits[thread] % _CLEANOUT_EVERY == 0:
            table, block = t.first_block
            self.clock.bump()
            t.log.write([self.vectors.cleanout(table.rfile, table.dataobj, block, self.clock.scn)])
        if noise.markers and self._commits[thread] % _MARKER_EVERY == 0:
            t.log.write([self.vectors.block_written(4, 0x100, self.clock.scn)], vld=0x02)

    def rollback(self, session: str) -> None:
        t = self.open.pop(session, None)
        if t is None:
            return
        self._undo(t, 0)
        if t.txn is not None and t.txn.begun:
            self.clock.bump()
            t.log.write(
                [self.vectors.commit(t.txn, t.last_uba, self.clock.scn, self.clock.time, rolled_back=True)]
            )
            t.log.flush()
        self._finish(t, committed=False)

    def rollback_to(self, session: str, name: str) -> None:
        t = self.open.get(session)
        if t is None or name not in t.savepoints:
            raise ScenarioError(f"session {session}: savepoint {name} never established (ORA-01086)")
        changes, mark = t.savepoints[name]
        if any(c.revert[0] == "direct" for c in t.changes[changes:]):
            raise ScenarioError(f"session {session}: ROLLBACK TO {name} would undo a direct-path insert")
        self.clock.bump()
        self._undo(t, changes)
        t.spool.truncate(mark)
        t.savepoints = {k: v for k, v in t.savepoints.items() if v[0] <= changes}

    def _undo(self, t: OpenTxn, keep: int) -> None:
        """Compensate and revert the changes after the first ``keep`` ones, newest first."""
        while len(t.changes) > keep:
            change = t.changes.pop()
            if change.revert[0] != "direct":
                table = change.revert[1]
                assert t.txn is not None
                for undo, uba in reversed(change.undo):
                    if undo.opc in ((26, 1), (10, 22)):  # a LOB piece, a LOB index entry
                        t.log.write(self.vectors.lob_compensation(t.txn, undo, uba, self.clock.scn))
                        continue
                    t.log.write(
                        self.vectors.compensation(
                            t.txn, undo, table.rfile, table.dataobj, uba, self.clock.scn
                        )
                    )
            dml.revert(change.revert)

    def _finish(self, t: OpenTxn, *, committed: bool) -> None:
        if not committed:
            self._undo_silently(t)
        for change in t.changes:
            dml.settle(change.revert)
        t.spool.close()
        if t.txn is not None:
            self._free(t.txn)

    def _undo_silently(self, t: OpenTxn) -> None:
        while t.changes:
            dml.revert(t.changes.pop().revert)

    def close(self) -> None:
        """End of the scenario: open transactions stay open in the logs (never in the trail; their
        changes are not in the final tables); logs are closed."""
        for name in list(self.open):
            t = self.open.pop(name)
            self._undo_silently(t)
            self._finish(t, committed=False)
        for log in self.logs.values():
            log.close()

    def abort(self) -> None:
        """After an error: release temporary files and close the (incomplete) logs."""
        for t in self.open.values():
            t.spool.close()
        self.open.clear()
        for log in self.logs.values():
            log.abort()


def _spec_max_id(spec: TableSpec, obj: int) -> int:
    """The highest id a table of the scenario takes as given (its data object obj + 5 by default)."""
    ids = [obj + 5 if spec.dataobj is None else spec.dataobj, obj + 1]
    if spec.partition_by is not None:
        for p in spec.partition_by.partitions:
            ids += [p.obj or 0, p.dataobj or 0] + [x or 0 for s in p.subparts for x in (s.obj, s.dataobj)]
    return max(ids)


def iso(moment: dt.datetime) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M:%S")
