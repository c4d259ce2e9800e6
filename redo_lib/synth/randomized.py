"""Random valid scenarios, for property tests and scale runs (``synth --random --seed N``).

:func:`random_scenario` draws settings (compat, block size, endianness, log size), 1-4 tables with
random columns and key kinds (primary key, unique key only, no key), and 1-4 sessions on one or
two redo threads. Its steps are chosen while the scenario runs, from the engine's state, so every
step is valid: rows picked for UPDATE / DELETE are visible and not locked by another session, key
values are fresh, ROLLBACK TO names a live savepoint, direct-path inserts respect ORA-12838. Every
step kind occurs: single and array inserts, direct-path inserts, single and multi-row updates
(including key updates) and deletes (also array deletes), commits, rollbacks, savepoints and
rollbacks to them, log switches, clock moves, rows larger than a block, and one long transaction
that stays open across several log switches.

With ``ddl=True`` (off by default) the steps include DDL too: ADD / RENAME / DROP / MODIFY COLUMN,
CREATE TABLE, TRUNCATE TABLE and, rarely, DROP TABLE, on tables no other session has uncommitted
changes on; and partitioned tables (CREATE TABLE makes one half the time: range, list, hash, interval
or range with hash subpartitions) with partition DDL on them (ADD / DROP / TRUNCATE / SPLIT / MERGE /
EXCHANGE PARTITION) and interval partitions made by inserts, unless ``partitions=False``. Its
choices come from a random stream of their own, drawn only when DDL is on, so a seed without DDL
gives the scenario it gave before the option existed.

The database character set is drawn from a stream of its own (half the seeds keep AL32UTF8, the
others take one of the generator's sets, ``synth.charsets``), and the text of a set other than
AL32UTF8 is drawn from the characters that set holds plus a few words of its own; so a seed that
keeps AL32UTF8 gives the scenario it gave before charsets were drawn.

With ``size`` the run stops once the logs reach that many bytes (tables are kept below
``max_rows`` rows by preferring deletes, so memory stays constant); else after ``steps`` steps. The
same seed (and parameters) gives the same scenario, byte for byte.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import decimal
import random
from collections.abc import Iterator
from typing import Any

from redo_lib.errors import ScenarioError
from redo_lib.synth import partddl
from redo_lib.synth.charsets import draw_charsets
from redo_lib.synth.columns import ColumnType, parse_type
from redo_lib.synth.database import Row, TableState
from redo_lib.synth.ddl import altered_spec
from redo_lib.synth.engine import Engine
from redo_lib.synth.partitions import PartitionedTable
from redo_lib.synth.partspec import MAXVALUE, PartDef, PartitionBy
from redo_lib.synth.randomtypes import (
    BASIC_TYPES,
    RANDOM_MODES,
    add_type_columns,
    basic_value,
    draw_supplemental,
    random_table,
    random_value,
)
from redo_lib.synth.scenario import (
    PARTITION_STATEMENTS,
    SUPPLEMENTAL_MODES,
    ColumnSpec,
    Commit,
    Ddl,
    Delete,
    DirectInsert,
    Insert,
    Noise,
    Predicate,
    Rollback,
    RollbackTo,
    Savepoint,
    Scenario,
    SessionSpec,
    Settings,
    Sleep,
    Step,
    Switch,
    TableSpec,
    Update,
)

__all__ = ["random_scenario"]


def random_scenario(
    seed: int,
    *,
    steps: int = 200,
    size: int | None = None,
    max_rows: int = 300,
    compat: str | None = None,
    block_size: int | None = None,
    big_endian: bool | None = None,
    log_size: int | None = None,
    direct_load: bool = True,
    one_transaction: bool = False,
    ddl: bool = False,
    partitions: bool = True,
) -> Scenario:
    """A random valid scenario; ``size`` (bytes of logs) overrides ``steps``. ``direct_load=False``
    leaves direct-path inserts out; ``ddl=True`` adds DDL steps (not with ``one_transaction``: DDL
    commits); with it, CREATE TABLE makes partitioned tables half the time and partition DDL (ADD /
    DROP / TRUNCATE / SPLIT / MERGE / EXCHANGE) runs on them (the decoder follows partitions made
    after the export from the SYS rows, docs/dictionary.md), unless ``partitions=False`` (DDL on
    plain tables only: the scenarios seeds gave before partitions were on by default).
    ``one_transaction=True`` puts the whole workload into a single
    transaction of one session, committed at the end (savepoints and rollbacks to them included; no
    direct-path inserts, which would lock their table for the rest of it): the memory benchmark's
    "one 2 GB transaction"."""
    rnd = random.Random(seed)
    block = block_size or rnd.choice([512, 512, 1024, 4096])
    charset, national = draw_charsets(seed)
    settings = Settings(
        charset=charset,
        national_charset=national,
        compat=compat or rnd.choice(["11.2", "19c", "19c", "23ai"]),
        block_size=block,
        big_endian=rnd.random() < 0.2 if big_endian is None else big_endian,
        log_size=log_size
        or (64 << 20 if size else max(128 * block, rnd.choice([64 << 10, 128 << 10, 256 << 10]))),
        data_block_size=rnd.choice([2048, 4096, 8192]),
        start_scn=rnd.randrange(1_000, 1 << 40),
        start_time=dt.datetime(2024, 1, 1) + dt.timedelta(seconds=rnd.randrange(86400 * 365)),
        resetlogs_id=rnd.randrange(1, 1 << 31),
        noise=Noise(),
    )
    tables = tuple(random_table(rnd, i, sets=(charset, national)) for i in range(rnd.randint(1, 4)))
    # issue 34's types: columns and values from streams of their own (half the seeds: none)
    # issue 34's supplemental logging modes: a stream of their own too (half the seeds: primary key;
    # with DDL only the modes that log the key: randomtypes.RANDOM_MODES),
    # drawn over the basic columns (a foreign key on one of them), before the types' columns join
    tables = draw_supplemental(seed, tables, RANDOM_MODES if ddl else SUPPLEMENTAL_MODES)
    tables, type_values = add_type_columns(seed, tables, settings.compat, (charset, national))
    threads = rnd.choice([1, 1, 2])
    session_count = 1 if one_transaction else rnd.randint(1, 4)
    sessions = tuple(SessionSpec(name=f"s{i + 1}", thread=1 + i % threads) for i in range(session_count))
    direct_load = direct_load and not one_transaction
    params = {"seed": seed, "steps": steps, "size": size, "max_rows": max_rows, "direct_load": direct_load}
    if one_transaction:
        params["one_transaction"] = True
    ddl = ddl and not one_transaction
    if ddl:
        params["ddl"] = True
        if not partitions:
            params["partitions"] = False
    plan = _Plan(
        random.Random(seed ^ 0x5EED),
        steps=steps,
        size=size,
        max_rows=max_rows,
        direct_load=direct_load,
        one_transaction=one_transaction,
        ddl=random.Random(seed ^ 0xDD1) if ddl else None,
        partitions=ddl and partitions,
        type_values=type_values,
        drawn=frozenset(c.type for t in tables for c in t.columns if c.name.startswith("Y")),
    )
    return Scenario(
        name=f"random-{seed}", settings=settings, tables=tables, sessions=sessions, steps=plan, random=params
    )


def _partitioning(rnd: random.Random, spec: TableSpec) -> PartitionBy:
    """A partitioning of a random table: interval or range on a NUMBER key column K1 (its values
    are fresh, increasing), list (with DEFAULT), hash, or range with hash subpartitions; all with
    ROW MOVEMENT, so an update of K1 may move its row (a delete and an insert)."""
    k1 = spec.columns[0]
    numeric = k1.type.name == "NUMBER" and not k1.nullable
    kind = rnd.choice(["interval", "range", "composite"] if numeric else ["hash", "list", "composite"])
    if kind == "interval":
        return PartitionBy(kind="interval", column="K1", interval=decimal.Decimal(1000),
                           partitions=(PartDef(name="P1", values=1000),), row_movement=True)  # fmt: skip
    if kind == "hash":
        return PartitionBy(
            kind="hash",
            column="K1",
            partitions=tuple(PartDef(name=f"H{j}") for j in range(1, 4)),
            row_movement=True,
        )
    if kind == "list":
        first = (1,) if k1.type.name == "NUMBER" else ("x",)
        return PartitionBy(kind="list", column="K1", partitions=(PartDef(name="L1", values=first),
                                                                  PartDef(name="LD", values="DEFAULT")),
                       row_movement=True)  # fmt: skip
    # a range table ends in MAXVALUE, or (half the time) in a bound no fresh key reaches, so that
    # ADD PARTITION can go above it
    top = rnd.choice([MAXVALUE, 10**15])
    bounds = (500, 3000, top) if numeric else (MAXVALUE,)
    sub = kind == "composite"
    return PartitionBy(
        kind="range", column="K1", partitions=tuple(PartDef(name=f"R{j}", values=b) for j, b in enumerate(bounds, 1)),
        subpartition_column="K1" if sub else "", subpartitions=2 if sub else 0, row_movement=True,
    )  # fmt: skip


class _Plan:
    """The step chooser: ``plan(engine)`` yields steps, looking at the engine between steps."""

    def __init__(
        self,
        rnd: random.Random,
        *,
        steps: int,
        size: int | None,
        max_rows: int,
        direct_load: bool,
        one_transaction: bool = False,
        ddl: random.Random | None = None,
        partitions: bool = False,
        type_values: random.Random | None = None,
        drawn: frozenset[ColumnType] = frozenset(),
    ) -> None:
        self.rnd = rnd
        self.type_values = type_values  # the values of issue 34's types: their own stream
        self.drawn = drawn  # the types of the columns randomtypes added
        self.partitions = partitions  # DDL creates partitioned tables and runs partition DDL
        self.ddl = ddl  # the DDL choices' own stream (None: no DDL)
        self._ddl_names = 0
        self._exchange: str = ""  # a table a mate was just created for: its next partition DDL exchanges
        self.one_transaction = one_transaction
        self.direct_load = direct_load
        self.text_limit = 60 if size is None else 400  # scale runs: rows of a few hundred bytes
        self.steps = steps
        self.size = size
        self.max_rows = max_rows
        self._fresh = 0

    def __call__(self, engine: Engine) -> Iterator[Step]:
        rnd = self.rnd
        sessions = [s.name for s in engine.scenario.sessions] or ["s1"]
        if self.one_transaction:
            yield from self._one_transaction(engine, sessions[0])
            return
        long_session = sessions[0] if len(sessions) > 1 else None
        long_thread = engine.scenario.session(long_session).thread if long_session else 1
        long_start = 0
        count = idle = 0
        while not self._done(engine, count) and idle < 1000:  # idle: rounds that chose nothing
            idle += 1
            batch: list[Step | None] = []
            long_txn = engine.open.get(long_session) if long_session else None
            if (
                long_session is not None
                and rnd.random() < 0.03
                and (long_txn is None or len(long_txn.changes) < 100)
            ):
                if long_txn is None:
                    long_start = engine.logs[long_thread].switches
                batch.append(self._dml(engine, long_session))
            elif self.ddl is not None and self.ddl.random() < 0.04:
                batch.append(self._ddl(engine, self.ddl.choice(sessions[1:] if long_session else sessions)))
            else:
                batch.append(self._choose(engine, rnd.choice(sessions[1:] if long_session else sessions)))
            if (
                long_session in engine.open
                and engine.logs[long_thread].switches - long_start >= 3
                and rnd.random() < 0.2
            ):
                batch.append(Commit(session=long_session))
            for step in batch:
                if step is not None:
                    count += 1
                    idle = 0
                    yield step
        for name in sessions:
            if name in engine.open and (name != long_session or rnd.random() < 0.8):
                yield Commit(session=name)

    def _one_transaction(self, engine: Engine, session: str) -> Iterator[Step]:
        count = idle = 0
        while not self._done(engine, count) and idle < 1000:
            idle += 1
            step = self._choose(engine, session)
            if step is not None:
                count += 1
                idle = 0
                yield step
        yield Commit(session=session)

    def _choose(self, engine: Engine, session: str) -> Step | None:
        rnd = self.rnd
        roll = rnd.random()
        t = engine.open.get(session)
        ends = not self.one_transaction
        if ends and t is not None and len(t.changes) >= rnd.randint(1, 12) and roll < 0.35:
            return Rollback(session=session) if rnd.random() < 0.12 else Commit(session=session)
        if roll < (0.03 if self.size is None else 0.00001):  # size runs switch mostly at the log size
            thread = engine.scenario.session(session).thread
            return Switch(thread=thread if rnd.random() < 0.7 else None)
        if roll < 0.08:
            return Sleep(seconds=rnd.randint(0, 90))
        if roll < 0.13:
            return Savepoint(session=session, name=f"sp{rnd.randint(1, 3)}")
        if roll < 0.16 and t is not None and t.savepoints:
            name = rnd.choice(sorted(t.savepoints))
            mark = t.savepoints[name][0]
            if not any(c.revert[0] == "direct" for c in t.changes[mark:]):
                return RollbackTo(session=session, name=name)
            return None
        return self._dml(engine, session)

    def _done(self, engine: Engine, count: int) -> bool:
        if self.size is not None:
            return sum(log.bytes_written for log in engine.logs.values()) >= self.size
        return count >= self.steps

    # -- DML ----------------------------------------------------------------------------------------

    def _dml(self, engine: Engine, session: str) -> Step | None:
        rnd = self.rnd
        t = engine.open.get(session)
        ident = t.ident if t is not None else -1
        own_direct = t.direct_tables if t is not None else set()
        others_direct = {n for o in engine.open.values() if o is not t for n in o.direct_tables}
        tables = [s for n, s in engine.tables.items() if n not in own_direct and n not in others_direct]
        if not tables:
            return None
        table = rnd.choice(tables)
        name = table.spec.full_name
        rows = [r for r in table.rows.values() if r.owner in (None, ident) and r.inserted_by in (None, ident)]
        full = len(table.rows) >= self.max_rows
        roll = rnd.random()
        if full or (rows and roll < 0.22):
            return self._delete(table, name, session, rows, multi=rnd.random() < 0.2)
        if rows and roll < 0.50:
            step = self._update(table, name, session, rows, multi=rnd.random() < 0.2)
            if isinstance(table, PartitionedTable) and not table.pb.row_movement:  # ORA-14402
                keys = {table.pb.column, table.pb.subpartition_column}
                kept = {c: v for c, v in step.set.items() if c not in keys}
                return dataclasses.replace(step, set=kept) if kept else None
            return step
        if roll < 0.53 and self.direct_load and not any(True for _ in table.locked_rows(ident)):
            return DirectInsert(
                session=session,
                table=name,
                rows=tuple(self._row(table, small=True) for _ in range(rnd.randint(1, 6))),
            )
        if roll < 0.62:
            return Insert(
                session=session,
                table=name,
                rows=tuple(self._row(table) for _ in range(rnd.randint(2, 20))),
                array=True,
            )
        return Insert(session=session, table=name, rows=(self._row(table),))

    def _where(self, table: TableState, rows: list[Row]) -> Predicate:
        spec = table.spec
        if spec.key_kind != "all" and len(table.key_columns) == 1:
            key = table.key_columns[0]
            i = table.key_index[0]
            values = [_plain(rows_value) for rows_value in (r.values[i] for r in rows)]
            return Predicate(terms=((key, "in", values),) if len(values) > 1 else ((key, "eq", values[0]),))
        if spec.key_kind != "all" and len(rows) == 1:
            return Predicate(
                terms=tuple((spec.columns[i].name, "eq", _plain(rows[0].values[i])) for i in table.key_index)
            )
        return Predicate(rowids=tuple(table.rowid(r) for r in rows))

    def _pick(self, rows: list[Row], multi: bool) -> list[Row]:
        if multi and len(rows) > 1:
            return self.rnd.sample(rows, min(len(rows), self.rnd.randint(2, 6)))
        return [self.rnd.choice(rows)]

    def _delete(
        self, table: TableState, name: str, session: str, rows: list[Row], *, multi: bool
    ) -> Step | None:
        if not rows:
            return None
        chosen = self._pick(rows, multi)
        return Delete(
            session=session,
            table=name,
            where=self._where(table, chosen),
            array=multi and self.rnd.random() < 0.5,
        )

    def _update(self, table: TableState, name: str, session: str, rows: list[Row], *, multi: bool) -> Update:
        rnd = self.rnd
        spec = table.spec
        chosen = self._pick(rows, multi)
        where = self._where(table, chosen)
        keyed = spec.key_kind != "all"
        candidates = [i for i in range(len(spec.columns)) if not keyed or i not in table.key_index]
        targets = rnd.sample(candidates, min(len(candidates), rnd.randint(1, 3)))
        changes: dict[str, Any] = {}
        for i in targets:
            column = spec.columns[i]
            if column.type.name == "NUMBER" and rnd.random() < 0.3:
                changes[column.name] = {"add": rnd.choice([1, -3, 10, "0.5"])}
            else:
                changes[column.name] = self._value(column.type, column.nullable)
        unique_columns = {c for k in spec.unique_sets for c in k}
        if keyed and len(chosen) == 1 and rnd.random() < 0.15:
            for i in table.key_index:  # a key update, to a fresh value
                column = spec.columns[i]
                changes[column.name] = self._fresh_value(column.type)
        for c in list(changes):
            if c in unique_columns and len(chosen) > 1:
                del changes[c]
        if not changes:
            column = spec.columns[candidates[0]] if candidates else spec.columns[table.key_index[0]]
            changes[column.name] = (
                self._fresh_value(column.type)
                if column.name in unique_columns
                else self._value(column.type, False)
            )
            where = self._where(table, chosen[:1])
        return Update(session=session, table=name, set=changes, where=where)

    # -- DDL ----------------------------------------------------------------------------------------

    def _ddl(self, engine: Engine, session: str) -> Step | None:
        """A DDL step valid now: on a table no other session has uncommitted changes on (the session's
        own are committed by the DDL), or a CREATE TABLE (partitioned, now and then)."""
        rnd = self.ddl
        assert rnd is not None
        busy = {id(c.revert[1]) for name, o in engine.open.items() if name != session for c in o.changes}
        tables = [
            t
            for t in engine.tables.values()
            if id(t) not in busy
            and not (isinstance(t, PartitionedTable) and any(id(x) in busy for x in t.segments))
        ]
        partitioned = [t for t in tables if isinstance(t, PartitionedTable)]
        kind = rnd.choice(
            ["add_column"] * 4 + ["rename_column"] * 3 + ["drop_column"] * 3 + ["modify_column"] * 3
            + ["create_table"] * 2 + ["truncate_table", "drop_table"] + ["partition"] * (10 if self.partitions else 0)
        )  # fmt: skip
        self._ddl_names += 1
        n = self._ddl_names
        if kind == "partition" and partitioned:
            pending = [t for t in partitioned if t.spec.full_name == self._exchange]
            return self._partition_ddl(engine, session, pending[0] if pending else rnd.choice(partitioned), n)
        if kind in ("create_table", "partition") or not tables:
            existing = {t.spec.name for t in (*engine.tables.values(), *engine.dropped)}
            if len(existing) >= 12:
                return None
            spec = random_table(rnd, 0, f"N{n}", sets=_sets(engine))
            if self.partitions and rnd.random() < 0.5:
                spec = dataclasses.replace(spec, partition_by=_partitioning(rnd, spec))
            return Ddl(session=session, statement="create_table", create=spec)
        table = rnd.choice(tables)
        spec = table.spec
        name = spec.full_name
        if kind in ("truncate_table", "drop_table"):
            if kind == "drop_table" and len(engine.tables) < 2:
                return None
            return Ddl(session=session, statement=kind, table=name)
        if kind == "add_column":
            column = ColumnSpec(name=f"A{n}", type=parse_type(rnd.choice(BASIC_TYPES), *_sets(engine)))
            return Ddl(session=session, statement=kind, table=name, column=column)
        column = rnd.choice(spec.columns)
        if kind == "rename_column":
            return Ddl(session=session, statement=kind, table=name, column_name=column.name, new_name=f"R{n}")
        if kind == "modify_column":
            ctype = column.type
            limit = 4000 if ctype.name == "VARCHAR2" else 2000
            if ctype.name in ("VARCHAR2", "RAW") and ctype.length < limit:
                wider = f"{ctype.name}({min(limit, ctype.length + rnd.choice([1, 10, 100]))})"
            elif ctype.name == "NUMBER" and ctype.precision is not None and ctype.precision < 38:
                wider = f"NUMBER({min(38, ctype.precision + rnd.randint(1, 4))},{ctype.scale or 0})"
            else:
                return None
            new = ColumnSpec(name=column.name, type=parse_type(wider, *_sets(engine)))
            step = Ddl(session=session, statement=kind, table=name, column=new)
        else:
            step = Ddl(session=session, statement=kind, table=name, column_name=column.name)
        try:
            altered_spec(step, table)  # key columns, the last column, chained pieces: refused
        except ScenarioError:
            return None
        return step

    def _partition_ddl(self, engine: Engine, session: str, table: PartitionedTable, n: int) -> Step | None:
        """ADD / DROP / TRUNCATE / SPLIT / MERGE / EXCHANGE PARTITION, when the table allows it."""
        rnd = self.ddl
        assert rnd is not None
        name = table.spec.full_name
        kind = "exchange_partition" if name == self._exchange else rnd.choice(PARTITION_STATEMENTS)
        self._exchange = ""
        parts = table.parts
        part = rnd.choice(parts)
        common: dict[str, Any] = {"session": session, "table": name}
        finite = [p.values for p in parts if table.pb.ranged and p.values != MAXVALUE]
        if kind == "add_partition":
            number = table.spec.column(table.pb.column).type.name == "NUMBER"
            listed: Any = [n * 1000 + 7] if number else [f"v{n}"]
            values: Any = (max(finite) + 1000 if finite else 1000) if table.pb.ranged else listed
            step = Ddl(statement=kind, partitions=(f"P{n}",), values=values, **common)
        elif kind == "split_partition":
            if table.pb.kind != "range" or table.pb.composite:
                return None  # SPLIT / MERGE are generated for range tables without subpartitions
            i = parts.index(part)
            low = parts[i - 1].values if i else None
            high = part.values
            if high == MAXVALUE:
                high = (low if low is not None else 0) + 2000
            at = (low + high) // 2 if low is not None else high - 500
            step = Ddl(
                statement=kind, partitions=(part.name,), values=at, into=(f"P{n}A", f"P{n}B"), **common
            )
        elif kind == "merge_partitions":
            if len(parts) < 2 or table.pb.kind != "range" or table.pb.composite:
                return None
            i = rnd.randrange(len(parts) - 1)
            step = Ddl(
                statement=kind, partitions=(parts[i].name, parts[i + 1].name), into=(f"P{n}",), **common
            )
        elif kind == "exchange_partition":
            if table.pb.composite:
                return None  # EXCHANGE of composite partitions is not generated
            shape = [(c.name, c.type) for c in table.spec.columns]
            mates = [
                t
                for t in engine.tables.values()
                if not isinstance(t, PartitionedTable) and [(c.name, c.type) for c in t.spec.columns] == shape
            ]
            busy = {
                id(c.revert[1]) for other, o in engine.open.items() if other != session for c in o.changes
            }
            free = [t for t in mates if id(t) not in busy]  # another session's changes: it would wait
            if not mates:  # a plain table of the same shape, to exchange with at the next chance
                self._exchange = name
                spec = dataclasses.replace(
                    table.spec, name=f"X{n}", partition_by=None, obj=None, dataobj=None
                )
                return Ddl(session=session, statement="create_table", create=spec)
            fitting = []  # the mates whose rows all belong in one partition (else ORA-14099): with it
            for mate in free:
                homes = {id(p): p for p in (table.locate(row.values)[0] for row in mate.rows.values())}
                if len(homes) <= 1 and None not in homes.values():
                    fitting.append((mate, next(iter(homes.values()), part)))
            if not fitting:
                return None
            mate, part = rnd.choice(fitting)  # type: ignore[assignment]  # fitting's homes hold no None
            step = Ddl(statement=kind, partitions=(part.name,), with_table=mate.spec.full_name, **common)
        else:
            if kind == "drop_partition" and part.values in (MAXVALUE, "DEFAULT"):
                return None  # later inserts would find no partition (ORA-14400)
            if kind == "drop_partition" and table.pb.kind == "range" and part is parts[-1]:
                return None  # the top range partition: keys above the one below would find none
            step = Ddl(statement=kind, partitions=(part.name,), **common)
        try:
            partddl.check(engine, step, table)
        except ScenarioError:
            return None
        return step

    # -- values -------------------------------------------------------------------------------------

    def _row(self, table: TableState, *, small: bool = False) -> dict[str, Any]:
        spec = table.spec
        unique = {c for k in spec.unique_sets for c in k}
        row: dict[str, Any] = {}
        for column in spec.columns:
            if column.name in unique:
                row[column.name] = self._fresh_value(column.type)
            elif column.name.startswith("BIG"):
                times = self.rnd.randint(1, 200) if small else self.rnd.randint(900, 1800)
                big = {"repeat": self.rnd.choice("xyz"), "times": times}
                row[column.name] = None if self.rnd.random() < 0.4 else big
            else:
                row[column.name] = self._value(column.type, column.nullable, small=small)
        return row

    def _fresh_value(self, ctype: ColumnType) -> Any:
        self._fresh += 1
        if ctype.name == "NUMBER":
            return self._fresh * 7 + self.rnd.randrange(7)
        return f"k{self._fresh}-{self.rnd.randrange(1000)}"

    def _value(self, ctype: ColumnType, nullable: bool, *, small: bool = False) -> Any:
        if self.type_values is not None and ctype in self.drawn:
            return random_value(self.type_values, ctype, nullable, small=small)
        return basic_value(self.rnd, ctype, nullable, self.text_limit)


def _sets(engine: Engine) -> tuple[str, str]:
    return engine.settings.charset, engine.settings.national_charset


def _plain(value: Any) -> Any:
    """A key value as a scenario literal (the normalised value is accepted back by ``normalize``)."""
    return value
