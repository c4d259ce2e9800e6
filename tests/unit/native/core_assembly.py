"""Drive the Rust core's transaction table (``native.TransactionTable``) from tests, and say what it
gave in one comparable shape.

``assemble`` is the table as a pure function over ``ChangeEvent`` values (committed transactions in
commit order with their changes read back as events, the events carried out, the table with its
counters). ``run_table`` runs a list of batches (each after the first fed the previous one's carry-out
first, as the assemble stage feeds carried rows) and records per batch the committed transactions
in the order they came (xid, commit position, begin SCN, every change as an events-schema row), the
events carried out, the counters, the cancelled / orphaned row changes and the issues; or the error
raised, with its class, message, position and details, and the state the table was left in. Two runs
of the core over the same stream (spilling or not, cut into batches or not) compare with
``assert_same``.

``generated`` makes the workloads: a named scenario of include/scenarios, a random one (with DDL, or
LOB-heavy), generated, decoded by the core in redo order, with its dictionary and the trail the
generator derived from the SQL (the oracle: it never touches the decoder).
"""

from __future__ import annotations

import json
import os
import random
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

from redo_lib.assembly.events import ChangeEvent, event_from_row, event_to_row, events_schema
from redo_lib.dictionary import DictionaryHistory, load_dictionary
from redo_lib.errors import ErrorPolicy, RedoError
from redo_lib.scn import Xid
from redo_lib.synth import generate, load_scenario, random_scenario
from redo_lib.synth.load import parse_scenario

REPO = Path(__file__).resolve().parents[3]
SCENARIOS = sorted(p.stem for p in (REPO / "include" / "scenarios").glob("*.yaml"))
REALDATA = REPO.parent / "shared" / "realdata"
ROPHY = REALDATA / "rophy-olr-example-free-23"
ROPHY_LOGS = [ROPHY / "redo" / f"arch1_{s}_1224959854.dbf" for s in (15, 16)]
ORACDC = REALDATA / "oracdc-redo-records" / "redo-records.jsonl"


def events_batch(rows: Sequence[dict[str, Any]]) -> Any:
    """Event rows (``event_to_row``) as one record batch of the events schema."""
    import pyarrow as pa

    return pa.RecordBatch.from_pylist(list(rows), schema=events_schema())


def rows_of(batches: Iterable[Any]) -> list[dict[str, Any]]:
    """The rows of the core's record batches (``ArrowBatch`` or pyarrow)."""
    import pyarrow as pa

    return [row for b in batches for row in pa.record_batch(b).to_pylist()]


@dataclass
class Committed:
    """A committed transaction of the core's table, its changes read back as events."""

    xid: Xid
    order_key: tuple[int, int, int, int, int]
    commit_time: int  # microseconds since 1970-01-01
    begin_scn: int
    changes: list[ChangeEvent]

    @property
    def commit_scn(self) -> int:
        return self.order_key[0]


def take(committed: Iterable[Any], max_rows: int = 97) -> list[Committed]:
    """The core's committed transactions with their changes read (once: the buffer goes with them)."""
    out = []
    for txn in committed:
        changes = [event_from_row(row) for row in rows_of(txn.batches(max_rows=max_rows))]
        assert len(changes) == len(txn)
        out.append(Committed(txn.xid, txn.order_key, txn.commit_time, txn.begin_scn, changes))
    return out


def feed(table: Any, events: Iterable[ChangeEvent], chunk: int = 1000) -> list[Committed]:
    """Feed ``events`` to a core table in record batches of ``chunk``; what committed, in order."""
    rows = [event_to_row(e) for e in events]
    committed: list[Committed] = []
    for start in range(0, len(rows), chunk):
        committed.extend(take(table.feed_batch(events_batch(rows[start : start + chunk]))))
    return committed


def carry_out(table: Any, chunk: int = 1000) -> list[ChangeEvent]:
    """The open and held transactions' events, as the next batch is fed them."""
    return [event_from_row(row) for row in rows_of(table.carry_out(max_rows=chunk))]


def assemble(
    events: Iterable[ChangeEvent], carried: Iterable[ChangeEvent] = (), **options: Any
) -> tuple[list[Committed], list[ChangeEvent], Any]:
    """(events of a batch in redo order, open transactions carried in) -> (committed transactions in
    commit order, open transactions carried out, the table with its counters), in the core."""
    from redo_lib.native import native

    table = native.TransactionTable(**options)
    committed = feed(table, [*carried, *events])
    committed.sort(key=lambda t: t.order_key)
    return committed, carry_out(table), table


def spill_files(directory: str | os.PathLike[str]) -> int:
    """How many files of ``directory`` this process holds open (the core's spill files are unlinked
    at once, so they show only here: Linux's /proc/self/fd)."""
    prefix = str(Path(directory).resolve()) + os.sep
    count = 0
    for fd in os.listdir("/proc/self/fd"):
        try:
            target = os.readlink(f"/proc/self/fd/{fd}")
        except OSError:
            continue
        count += target.startswith(prefix)
    return count


# -- runs over batches, compared with each other ------------------------------------------------------


@dataclass
class BatchResult:
    committed: list[dict[str, Any]] = field(default_factory=list)
    carried: list[dict[str, Any]] = field(default_factory=list)
    counters: dict[str, int] = field(default_factory=dict)
    cancelled: dict[tuple[int, str], int] = field(default_factory=dict)
    orphaned: dict[tuple[int, str], int] = field(default_factory=dict)
    issues: list[tuple[Any, ...]] = field(default_factory=list)
    open: int = 0
    held: list[Any] = field(default_factory=list)
    error: tuple[Any, ...] | None = None


def run_table(
    batches: Sequence[Sequence[dict[str, Any]]],
    *,
    memory_limit: int = 50_000,
    policy: ErrorPolicy = ErrorPolicy.SKIP,
    hold_from: Sequence[int | None] | None = None,
    chunk: int = 1000,
    memory_bytes: int | None = None,
    spill_dir: str | None = None,
) -> list[BatchResult]:
    """The core's table over ``batches`` of event rows (``event_to_row`` form), handed over as record
    batches of at most ``chunk`` events, carried-in events first (as ``carry_out`` gave them)."""
    import pyarrow as pa

    from redo_lib.native import native

    out: list[BatchResult] = []
    carried: list[Any] = []
    extra = {} if memory_bytes is None else {"memory_bytes": memory_bytes}
    for index, rows in enumerate(batches):
        hold = hold_from[index] if hold_from else None
        table = native.TransactionTable(
            memory_limit=memory_limit, policy=policy.value, hold_from=hold, spill_dir=spill_dir, **extra
        )
        result = BatchResult()
        out.append(result)
        inputs = [*carried, *(events_batch(rows[i : i + chunk]) for i in range(0, len(rows), chunk))]
        try:
            for batch in inputs:
                try:
                    _record(result, table.feed_batch(batch))
                except RedoError as exc:  # the transactions committed before the error come with it
                    _record(result, exc.committed)  # type: ignore[attr-defined]
                    raise
            carried = [pa.record_batch(b) for b in table.carry_out(max_rows=chunk)]
            result.carried = rows_of(carried)
        except RedoError as exc:
            result.error = (type(exc).__name__, exc.message, exc.position, dict(exc.details))
        result.counters = {k: v for k, v in dict(table.counters).items() if v}
        result.cancelled = dict(table.cancelled)
        result.orphaned = dict(table.orphaned)
        result.issues = list(table.issues)
        result.open = len(table)
        result.held = list(table.held_xids())
        if result.error:
            break
    return out


def _record(result: BatchResult, committed: list[Any]) -> None:
    for txn in committed:
        changes = rows_of(txn.batches(max_rows=97))
        assert len(changes) == len(txn)
        result.committed.append({"xid": txn.xid, "order_key": txn.order_key, "commit_time": txn.commit_time,
                                 "begin_scn": txn.begin_scn, "changes": changes})  # fmt: skip


def assert_same(one: list[BatchResult], other: list[BatchResult]) -> None:
    """Field for field, batch by batch; the first difference named."""
    assert len(one) == len(other)
    for index, (a, b) in enumerate(zip(one, other, strict=True)):
        where = f"batch {index}"
        assert a.error == b.error, where
        assert len(a.committed) == len(b.committed), where
        for i, (at, bt) in enumerate(zip(a.committed, b.committed, strict=True)):
            for key in ("xid", "order_key", "commit_time", "begin_scn"):
                assert at[key] == bt[key], f"{where}, transaction {i}: {key}"
            assert len(at["changes"]) == len(bt["changes"]), f"{where}, transaction {i} ({at['xid']})"
            for j, (ae, be) in enumerate(zip(at["changes"], bt["changes"], strict=True)):
                assert ae == be, f"{where}, transaction {i} ({at['xid']}), change {j}"
        assert a.carried == b.carried, f"{where}: carried out"
        for name in ("counters", "cancelled", "orphaned", "issues", "open", "held"):
            assert getattr(a, name) == getattr(b, name), f"{where}: {name}"


def split(rows: Sequence[dict[str, Any]], cuts: Sequence[int]) -> list[list[dict[str, Any]]]:
    """``rows`` cut into consecutive batches before each index of ``cuts``."""
    bounds = [0, *sorted(cuts), len(rows)]
    return [list(rows[a:b]) for a, b in zip(bounds, bounds[1:], strict=False)]


def rows_in_redo_order(events: Sequence[ChangeEvent]) -> list[dict[str, Any]]:
    """Events as rows in redo order (threads merged by SCN: ``sort_key``), the order of one stream."""
    return [event_to_row(e) for e in sorted(events, key=lambda e: e.sort_key)]


def rows_by_slot(events: Sequence[ChangeEvent]) -> list[dict[str, Any]]:
    """Events as rows in the assemble stage's partition order: by (usn, slot), then redo order."""
    return [event_to_row(e) for e in sorted(events, key=lambda e: (e.usn, e.slot, *e.sort_key))]


# -- workloads --------------------------------------------------------------------------------------


def decode(logs: Sequence[Path]) -> list[ChangeEvent]:
    """The logs' events, decoded by the Rust core (the events the assemble stage reads), in redo
    order (threads merged by SCN)."""
    from redo_lib.pipeline import decode_range_arrow

    events = [
        event_from_row(row) for log in logs for b in decode_range_arrow(str(log)) for row in b.to_pylist()
    ]
    return sorted(events, key=lambda e: e.sort_key)


@dataclass(frozen=True)
class Workload:
    events: tuple[ChangeEvent, ...]  # in redo order
    dictionary: DictionaryHistory
    expected: tuple[dict[str, Any], ...]  # the generator's trail (TrailRecord.to_dict)
    # the generator's trail under the image options (update-befores, full-deletes)
    expected_images: tuple[dict[str, Any], ...] = ()


def scenario_for(key: str) -> Any:
    """A named scenario of include/scenarios, or ``seed-<n>`` / ``ddl-<n>`` / ``lobs-<n>`` (random,
    120 steps; with DDL; LOB-heavy: ``lob_scenario``)."""
    if key.startswith("seed-"):
        return random_scenario(int(key[5:]), steps=120)
    if key.startswith("ddl-"):
        return random_scenario(int(key[4:]), steps=120, ddl=True)
    if key.startswith("lobs-"):
        return parse_scenario(lob_scenario(int(key[5:])))
    return load_scenario(REPO / "include" / "scenarios" / f"{key}.yaml")


@cache
def generated(key: str, tmp: Path) -> Workload:
    """The scenario of ``key`` (:func:`scenario_for`), generated and decoded."""
    result = generate(scenario_for(key), tmp / key, record_steps=False, images=True)
    assert result.trail_images is not None

    def read(path: Path) -> tuple[dict[str, Any], ...]:
        return tuple(json.loads(line) for line in path.read_text(encoding="utf-8").splitlines())

    return Workload(
        tuple(decode(result.logs)),
        load_dictionary(result.dictionary),
        read(result.trail),
        read(result.trail_images),
    )


def lob_scenario(seed: int) -> str:
    """A random LOB-heavy scenario (YAML, as JSON): CLOB / NCLOB / BLOB values in the row and in pages
    (written before or after the row change), replaced, appended to, set to NULL, deleted, rolled back
    whole and to a savepoint, in one session."""
    rnd = random.Random(seed)
    steps: list[Any] = []
    rows: dict[int, set[str]] = {}  # id -> its LOB columns that are not NULL (appendable)

    def value(column: str) -> Any:
        kind = rnd.choice(["null", "empty", "small", "pages", "pages"])
        if kind == "null":
            return None
        if kind == "empty":
            return {"empty": True}
        unit = "AB12" if column == "DATA" else rnd.choice(["lorem ", "ünï ", "日本 "])
        times = rnd.randint(1, 8) if kind == "small" else rnd.randint(500, 6000)
        return {"repeat": unit, "times": times}

    def insert(n: int) -> None:
        values = {"ID": n, "TITLE": f"t{n}"}
        values.update({c: value(c) for c in ("BODY", "NOTE", "DATA") if rnd.random() < 0.7})
        pieces = rnd.choice(["before", "after"])
        steps.append({"insert": {"table": "DOCS", "values": values, "lob_pieces": pieces}})
        rows[n] = {c for c in ("BODY", "NOTE", "DATA") if values.get(c) is not None}

    for n in range(1, 40):
        action = rnd.choice(["insert", "insert", "update", "append", "delete", "commit", "savepoint"])
        if action == "insert" or not rows:
            insert(n)
            continue
        row = rnd.choice(sorted(rows))
        where = {"ID": row}
        pieces = rnd.choice(["before", "after"])
        if action == "update":
            column = rnd.choice(["BODY", "NOTE", "DATA", "TITLE"])
            new = f"u{n}" if column == "TITLE" else value(column)
            steps.append(
                {"update": {"table": "DOCS", "set": {column: new}, "where": where, "lob_pieces": pieces}}
            )
            if column != "TITLE":
                rows[row].discard(column)
                if new is not None:
                    rows[row].add(column)
        elif action == "append" and rows[row]:
            column = rnd.choice(sorted(rows[row]))
            add = value(column) or {"repeat": "AB" if column == "DATA" else "x", "times": 3}
            steps.append({"append_lob": {"table": "DOCS", "column": column, "value": add, "where": where,
                                         "lob_pieces": pieces}})  # fmt: skip
        elif action == "delete":
            steps.append({"delete": {"table": "DOCS", "where": where}})
            del rows[row]
        elif action == "savepoint":
            steps.extend(["commit", {"savepoint": "sp"}])
            kept = dict(rows)
            insert(1000 + n)
            if rnd.random() < 0.5:
                steps.append({"rollback_to": "sp"})
                rows.clear()
                rows.update(kept)
        else:
            steps.append("commit")
    steps.append("commit")
    doc = {
        "name": f"lobs-{seed}",
        "settings": {"compat": rnd.choice(["11.2", "19c", "23ai"]), "log_size": "8MB"},
        "tables": [
            {"owner": "APP", "name": "DOCS", "primary_key": ["ID"], "columns": [
                {"name": "ID", "type": "NUMBER", "nullable": False}, {"name": "TITLE", "type": "VARCHAR2(40)"},
                {"name": "BODY", "type": "CLOB"}, {"name": "NOTE", "type": "NCLOB"}, {"name": "DATA", "type": "BLOB"},
            ]},
        ],
        "steps": steps,
    }  # fmt: skip
    return json.dumps(doc)


def sys_transactions(rows: Sequence[dict[str, Any]], objs: Iterable[int]) -> list[dict[str, Any]]:
    """The event rows of the transactions that changed ``objs`` (the SYS dictionary tables), their
    DDL (24.1) events left out: what ``batch_dictionary.dictionary_transactions`` reads from a
    batch's files, over rows in memory (tests that run the batch driver in one process)."""
    from redo_lib.assembly.events import EventKind

    wanted = set(objs)
    xids = {(r["usn"], r["slot"], r["sqn"]) for r in rows if r["obj"] in wanted}
    return [r for r in rows if (r["usn"], r["slot"], r["sqn"]) in xids and r["kind"] != EventKind.DDL]


def batch_driver(
    logs: Sequence[Path],
    dictionary: Path,
    folder: Path,
    *,
    own_copy: bool = True,
    disagreements: list[dict[str, Any]] | None = None,
) -> tuple[Path, dict[str, int], list[dict[str, Any]]]:
    """``batch_dictionary.evolve_batch_dictionary`` over ``logs`` decoded in this process (one
    batch): their DDL events in redo order, the transactions of the SYS dictionary tables as its
    ``sys_events`` (:func:`sys_transactions`). The dictionary it wrote, its counts and problems."""
    import pyarrow as pa

    from redo_lib.assembly.events import EventKind
    from redo_lib.batch_dictionary import REDO_ORDER, evolve_batch_dictionary
    from redo_lib.pipeline import decode_range_arrow, describe_logs

    refs = describe_logs(list(logs))
    rows = [r for ref in refs for b in decode_range_arrow(ref.location) for r in b.to_pylist()]
    ddl = sorted((r for r in rows if r["kind"] == EventKind.DDL), key=lambda r: [r[k] for k in REDO_ORDER])
    schema = events_schema().append(pa.field("carried", pa.bool_()))

    def sys_events(objs: Iterable[int]) -> Any:
        picked = [{**r, "carried": False} for r in sys_transactions(rows, objs)]
        return iter([pa.RecordBatch.from_pylist(picked, schema=schema)])

    location, counts, problems = evolve_batch_dictionary(
        str(dictionary), ddl, str(folder), own_copy=own_copy, sys_events=sys_events,
        resetlogs_id=refs[0].resetlogs_id, disagreements=disagreements,
    )  # fmt: skip
    assert location is not None
    return Path(location), counts, problems
