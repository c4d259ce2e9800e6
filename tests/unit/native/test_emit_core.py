"""The Rust emitter (``redo_lib._native.Emitter``, ``crates/redo-core/src/trail/``) on its own. It was
checked against the Python emitter it replaced, row for row and counter for counter, on every input
below before that was deleted; what stays is what needs no second implementation:

* the trail of every generated workload (named scenarios, random seeds with and without DDL, random
  LOB-heavy scenarios) is the one the generator derived from the SQL (``core_assembly.generated``);
* spilled transactions (a few events in memory) and small output batches give the same trail and
  counts; ``Emitter.emit`` per transaction and ``emit_many`` per fed batch give the transactions and
  counters the assemble stage gives (``_same_three_ways``);
* the counts balance (``pipeline.balance``: decoded = trail + cancelled + out of scope + unknown in
  scope + orphaned + carried out) for real and generated workloads, with every option;
* the options do what they say: full deletes, capture scopes (the records of the captured tables,
  as without a scope), excluded owners, a dictionary missing a table (its changes out of scope, or
  unknown and possibly in scope above ``max_object_id``, or emitted with ``emit_unknown``);
* on impossible input (random transactions over a small dictionary, scenarios mutated and truncated)
  never a panic, only ``RedoError`` subclasses, the same three ways;
* dictionary documents: the core reads the ones ``DictionaryHistory.from_json`` reads and refuses
  the others as ``DictionaryError``; DDL records carry ``dictionary.ddl.ddl_subject``'s subject.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import itertools
import json
import random
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from redo_lib.assembly.events import ChangeEvent, EventKind, event_to_row
from redo_lib.dictionary import DictionaryHistory, load_dictionary
from redo_lib.dictionary.ddl import ddl_subject
from redo_lib.errors import DictionaryError, ErrorPolicy, RedoError
from redo_lib.native import native
from redo_lib.pipeline import DecodeResult, assemble_and_emit, balance
from redo_lib.trail.emit import EmitOptions, capture_options, image_options
from redo_lib.trail.schema import from_row

from .core_assembly import ORACDC, ROPHY, ROPHY_LOGS, SCENARIOS, decode, events_batch, generated, rows_of

T0 = dt.datetime(2024, 5, 1)


@pytest.fixture(scope="module")
def gen_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("native-emit")


@dataclass
class Emitted:
    transactions: list[str]  # each transaction's records (TrailRecord.to_dict) as JSON, sorted
    counters: dict[str, int]
    error: str | None = None


def _by_transaction(records: Iterable[dict[str, Any]]) -> list[str]:
    return sorted(
        json.dumps(list(g), sort_keys=True) for _, g in itertools.groupby(records, lambda r: r["xid"])
    )


def through_emitter(events: Sequence[ChangeEvent], dictionary: DictionaryHistory | None, options: EmitOptions,
                    *, many: bool, chunk: int = 50) -> Emitted:  # fmt: skip
    """The core's table fed ``chunk`` events at a time and its committed transactions emitted with
    ``emit`` one by one, or with ``emit_many`` per fed batch (``many``)."""
    table = native.TransactionTable()
    emitter = native.Emitter(
        None if dictionary is None else dictionary.to_json(), **dataclasses.asdict(options)
    )
    rows = [event_to_row(e) for e in events]
    out: list[dict[str, Any]] = []
    error = None
    try:
        for start in range(0, len(rows), chunk):
            committed = table.feed_batch(events_batch(rows[start : start + chunk]))
            calls = [(emitter.emit_many, committed)] if many else [(emitter.emit, txn) for txn in committed]
            for emit, arg in calls:
                try:
                    out.extend(rows_of([emit(arg)]))
                except RedoError as exc:  # the rows before the error come with it
                    out.extend(rows_of([exc.rows]))  # type: ignore[attr-defined]
                    raise
    except RedoError as exc:
        error = type(exc).__name__
    records = [from_row(r).to_dict() for r in out]
    return Emitted(_by_transaction(records), dict(emitter.counters), error)


def through_stage(events: Sequence[ChangeEvent], dictionary: DictionaryHistory | None, options: EmitOptions,
                  **kw: Any) -> tuple[Emitted, DecodeResult | None]:  # fmt: skip
    try:
        result = assemble_and_emit(events, dictionary, options=options, policy=ErrorPolicy.SKIP, **kw)
    except RedoError as exc:
        return Emitted([], {}, type(exc).__name__), None
    return Emitted(_by_transaction(r.to_dict() for r in result.trail), dict(result.emit)), result


def check(events: Sequence[ChangeEvent], dictionary: DictionaryHistory | None, options: EmitOptions | None = None,
          *, expected: Sequence[dict[str, Any]] | None = None, balanced: bool = True) -> DecodeResult | None:  # fmt: skip
    """The stage's trail (the generator's ``expected`` one, when given) and counts (balanced), the same
    with transactions spilled and small batches, and the same transactions and counters (or error)
    through ``emit`` and ``emit_many``; the stage's result (``None`` when it raised a ``RedoError``)."""
    options = options or EmitOptions()
    stage, result = through_stage(events, dictionary, options)
    if expected is not None:
        assert result is not None
        got = [r.to_dict() for r in result.trail]
        for i, (g, e) in enumerate(zip(got, expected, strict=False)):
            assert g == e, f"record {i}"
        assert len(got) == len(expected)
    spilled, spilled_result = through_stage(events, dictionary, options, memory_limit=3, chunk=7)
    assert spilled == stage
    if result is not None:
        assert spilled_result is not None
        assert spilled_result.trail == result.trail and spilled_result.counts == result.counts
        if balanced:
            assert balance(result.counts) == {}
    one, many = (through_emitter(events, dictionary, options, many=m) for m in (False, True))
    assert one == many
    if result is None:  # the stage raised: only the error to compare (the emitter's rows before it)
        assert one.error == stage.error
    else:
        assert one == stage
    return result


def test_the_trail_schema_is_the_cores() -> None:
    import pyarrow as pa

    from redo_lib.trail.schema import trail_schema

    assert pa.schema(native.trail_schema()).equals(trail_schema(), check_metadata=True)


def schemaless(events: Sequence[ChangeEvent]) -> DecodeResult:
    """Without a dictionary every row change is emitted, under ``OBJ_<n>``."""
    result = check(events, None)
    assert result is not None
    assert result.counts["out_of_scope"] == {} and result.counts["unknown_in_scope"] == {}
    assert {(r.owner, r.table[:4]) for r in result.trail if r.op != "DDL"} <= {("", "OBJ_")}
    return result


@pytest.mark.parametrize("name", SCENARIOS)
def test_named_scenario(name: str, gen_dir: Path) -> None:
    w = generated(name, gen_dir)
    check(w.events, w.dictionary, expected=w.expected)
    assert schemaless(w.events).trail


def _key(record: Any) -> tuple[Any, ...]:
    """A record but for what depends on its neighbours in the trail (TransInd, commit tokens)."""
    d = record.to_dict()
    return tuple(
        d[k] for k in ("xid", "op", "owner", "table", "columns", "before", "changed_columns", "scn", "rba")
    )


def _name(record: Any) -> str:
    return f"{record.owner}.{record.table}"


@pytest.mark.parametrize("name", ["basic_dml", "keys", "lobs", "array_and_direct_load", "schema_changes"])
def test_named_scenario_options(name: str, gen_dir: Path) -> None:
    w = generated(name, gen_dir)
    events, dictionary = w.events, w.dictionary
    default = check(events, dictionary, expected=w.expected)
    assert default is not None
    owners = sorted({v.owner for v in dictionary})
    tables = sorted(f"{v.owner}.{v.name}" for v in dictionary)
    # full deletes: every column of the deleted row, not only the key; other records unchanged
    full = check(events, dictionary, EmitOptions(full_deletes=True))
    assert full is not None and len(full.trail) == len(default.trail)
    for f, d in zip(full.trail, default.trail, strict=True):
        if d.op == "DELETE":
            assert set(d.columns) <= set(f.columns) and {n for n, _ in d.columns} == set(d.key_columns)
        else:
            assert f == d
    # a capture scope: the records of the tables in it (and DDL on them), as without a scope
    for capture in (tables[:1], [owners[0], *tables[-1:]]):
        scoped = check(events, dictionary, EmitOptions(**capture_options(capture)))
        assert scoped is not None
        captured = lambda r: r.owner in capture or _name(r) in capture  # noqa: B023, E731
        assert [_key(r) for r in scoped.trail] == [_key(r) for r in default.trail if captured(r)]
        # the row changes of the SYS dictionary tables (every DDL's OBJ$ rows) are never in scope
        dictionary_rows = {n for n in default.counts["out_of_scope"] if n.startswith("SYS.")}
        assert set(scoped.counts["out_of_scope"]) == {_name(r) for r in default.trail if not captured(r)
                                                      and r.op != "DDL"} | dictionary_rows  # fmt: skip
    excluded = check(events, dictionary, EmitOptions(exclude_owners=frozenset(owners[:1]), apply_ddl=False))
    assert excluded is not None and not any(r.owner == owners[0] for r in excluded.trail)
    # a dictionary that lost a table: its changes are unknown objects (in scope above max_object_id),
    # under its object number (direct-path rows, which know only the data object, under that)
    lost = next(v for v in dictionary if v.owner != "SYS")  # a user table (SYS's own come first)
    ops = default.counts["trail"].get(f"{lost.owner}.{lost.name}", {})
    first_scn = min((r.scn for r in default.trail if r.obj == lost.obj and r.op != "DDL"), default=None)
    numbers = {lost.obj, lost.dataobj}
    kept = [v for v in dictionary if v.obj != lost.obj]
    for limit in (None, lost.obj - 1, lost.obj + 1):
        smaller = DictionaryHistory(kept, db_charset=dictionary.db_charset,
                                    national_charset=dictionary.national_charset, max_object_id=limit)  # fmt: skip
        result = check(events, smaller)
        assert result is not None and not any(r.obj in numbers and r.op != "DDL" for r in result.trail)
        scope = result.counts["scope"]
        # numbered above max_object_id: created after the export, may be captured; else it existed
        # at the export without being exported (and without max_object_id: unclassified)
        above = {n for n in numbers if limit is not None and n > limit}
        unknown_ops, out_of_scope = result.counts["unknown_in_scope_ops"], result.counts["out_of_scope"]
        assert _ops(unknown_ops, numbers - above) == {} and _ops(out_of_scope, above) == {}
        in_scope, out = _ops(unknown_ops, above), _ops(out_of_scope, numbers - above)
        assert {op: in_scope.get(op, 0) + out.get(op, 0) for op in {*in_scope, *out}} == ops
        unknown = result.counts["unknown_in_scope"]
        assert set(unknown) <= {str(n) for n in above}
        assert sum(u["changes"] for u in unknown.values()) == sum(in_scope.values())
        if above == numbers:
            assert min((u["first_scn"] for u in unknown.values()), default=None) == first_scn
        assert scope["unclassified_changes"] == (sum(ops.values()) if limit is None else 0)
        assert scope["max_object_id"] == limit
        unknown_emitted = check(events, smaller, EmitOptions(emit_unknown=True))
        assert unknown_emitted is not None
        assert _ops(unknown_emitted.counts["trail"], numbers) == ops


IMAGES = EmitOptions(**image_options(["update-befores", "full-deletes"]))


@pytest.mark.parametrize(
    "key",
    ["basic_dml", "keys", "lobs", "chained_rows", "schema_changes", "rac_two_threads", "seed-1", "lobs-1"],
)
def test_image_options_give_the_generators_trail(key: str, gen_dir: Path) -> None:
    """Update before images and full deletes: the trail the generator derives from the SQL with the
    same options (each update's B record, with the old values of its key and changed columns, just
    ahead of its A record; deletes with every column; an out-of-row LOB's old value, which the redo
    does not hold, left out and counted); the counts balance with the B records counted apart."""
    w = generated(key, gen_dir)
    result = check(w.events, w.dictionary, IMAGES, expected=w.expected_images)
    assert result is not None
    default = check(w.events, w.dictionary, expected=w.expected)
    assert default is not None
    trail = [r.to_dict() for r in result.trail]
    befores = [i for i, r in enumerate(trail) if r["before_after"] == "B" and r["op"] != "DELETE"]
    assert befores and result.emit["update_before_records"] == len(befores)
    for i in befores:
        b, a = trail[i], trail[i + 1]
        assert (a["before_after"], a["op"], a["xid"], a["rowid"], a["scn"]) == (
            "A",
            b["op"],
            b["xid"],
            b["rowid"],
            b["scn"],
        )
        assert set(b["columns"]) <= set(a["columns"])
    # without the B records, the default trail but for the deletes' images (and TransInd, tokens)
    after = [r for r in result.trail if r.before_after == "A" or r.op == "DELETE"]
    assert [(_key(r)[:4], r.rowid) for r in after] == [(_key(r)[:4], r.rowid) for r in default.trail]
    assert result.counts["trail"] == default.counts["trail"]
    if key.startswith("lobs"):
        assert result.emit["lob_before_values_not_in_redo"] > 0


def _ops(counts: dict[str, dict[str, int]], objects: set[int]) -> dict[str, int]:
    """The changes by operation that ``counts`` (by table) holds for the unknown ``objects``."""
    out: dict[str, int] = {}
    for obj in objects:
        for op, n in counts.get(f"OBJ_{obj}", {}).items():
            out[op] = out.get(op, 0) + n
    return out


@pytest.mark.parametrize("seed", range(6))
def test_random_seed(seed: int, gen_dir: Path) -> None:
    w = generated(f"seed-{seed}", gen_dir)
    check(w.events, w.dictionary, expected=w.expected)


@pytest.mark.parametrize("seed", range(3))
def test_random_seed_with_ddl(seed: int, gen_dir: Path) -> None:
    w = generated(f"ddl-{seed}", gen_dir)
    check(w.events, w.dictionary, expected=w.expected)
    schemaless(w.events)


@pytest.mark.parametrize("seed", range(3))
def test_random_lob_scenario(seed: int, gen_dir: Path) -> None:
    w = generated(f"lobs-{seed}", gen_dir)
    assert w.expected
    check(w.events, w.dictionary, expected=w.expected)


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(3, 40))
def test_random_lob_scenario_sweep(seed: int, gen_dir: Path) -> None:
    test_random_lob_scenario(seed, gen_dir)


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(6, 106))
def test_random_seed_sweep(seed: int, gen_dir: Path) -> None:
    test_random_seed(seed, gen_dir)
    w = generated(f"ddl-{seed}", gen_dir)
    check(w.events, w.dictionary, expected=w.expected)
    check(w.events, w.dictionary, EmitOptions(full_deletes=True))


# -- real data --------------------------------------------------------------------------------------


@pytest.mark.realdata
def test_real_logs() -> None:
    if not all(p.exists() for p in ROPHY_LOGS):
        pytest.skip(f"real data not available: {ROPHY}")
    events = decode(ROPHY_LOGS)
    dictionary = load_dictionary(ROPHY / "schema" / "TEST-chkpt-2266634.json")
    result = check(events, dictionary)
    assert result is not None and result.trail
    assert schemaless(events).trail
    check(events, dictionary, EmitOptions(emit_unknown=True, full_deletes=True))


@pytest.mark.realdata
def test_oracdc_records() -> None:
    """225 single records of real databases (real supplemental logging, QMI/QMD, chained pieces):
    each record's changes made into a committed transaction of its own (a begin before, a commit
    after), emitted schemaless."""
    if not ORACDC.exists():
        pytest.skip(f"real data not available: {ORACDC}")
    from redo_lib.assembly.events import iter_events
    from tests.unit.redo_lib.format.realdata import parse_oracdc_record

    events: list[ChangeEvent] = []
    for n, line in enumerate(ORACDC.read_text().splitlines()):
        changes = [
            e for e in iter_events(parse_oracdc_record(json.loads(line))) if e.kind is EventKind.CHANGE
        ]
        if not changes:
            continue
        xid = {"usn": 1, "slot": n % 50, "sqn": n}
        first, last = changes[0], changes[-1]
        events.append(dataclasses.replace(first, kind=EventKind.BEGIN, **xid))
        events.extend(dataclasses.replace(e, **xid) for e in changes)
        events.append(dataclasses.replace(last, kind=EventKind.COMMIT, offset=last.offset + 1, **xid))
    # single records: the other pieces of a chained row may be in records not given, so the counts
    # (a row counted on its first piece) need not balance
    result = check(events, None, balanced=False)
    assert result is not None and len(result.trail) > 50


# -- impossible input (hypothesis) ------------------------------------------------------------------

OPS = [0, 0x0B02, 0x0B03, 0x0B04, 0x0B05, 0x0B06, 0x0B08, 0x0B0B, 0x0B0C, 0x0B10, 0x0B16, 0x1301]
FBS = [None, None, 0, 0x04, 0x08, 0x0C, 0x0C, 0x8C, 0x80]
LOB_ID = b"\x00\x00\x00\x01LOBID"

DICTIONARY = {
    "format": "redotrail-dictionary",
    "format_version": 1,
    "db_charset": "AL32UTF8",
    "national_charset": "AL16UTF16",
    "max_object_id": 71,
    "tables": [
        {
            "obj": 70, "dataobj": 80, "owner": "APP", "name": "T", "valid_from_scn": 1,
            "columns": [
                {"segcol_no": 1, "name": "ID", "type": "NUMBER", "length": 22, "nullable": False},
                {"segcol_no": 2, "name": "NAME", "type": "VARCHAR2", "length": 20, "nullable": True,
                 "charset": "CHAR_CS"},
                {"segcol_no": 3, "name": "DOC", "type": "CLOB", "length": 4000, "nullable": True,
                 "charset": "CHAR_CS"},
                {"segcol_no": 4, "name": "H", "type": "DATE", "length": 7, "nullable": True, "hidden": True},
            ],
            "constraints": [{"name": "PK", "type": "P", "columns": ["ID"]}],
        },
        {
            "obj": 72, "dataobj": 72, "owner": "SYS", "name": "S", "valid_from_scn": 1,
            "columns": [{"segcol_no": 1, "name": "X", "type": "RAW", "length": 9, "nullable": True}],
        },
    ],
}  # fmt: skip


def _locator(draw: st.DrawFn) -> bytes:
    """A LOB locator: in-row data, a page list over pages 1-3 of LOB_ID, or random bytes."""
    form = draw(st.sampled_from(["inline", "pages", "random"]))
    head = b"\x00\x54\x00\x01\x02\x04\x00\x00\x00\x00" + LOB_ID[:10].ljust(10, b"\x00")
    if form == "inline":
        data = draw(st.binary(max_size=12))
        body = (16 + len(data)).to_bytes(2, "big") + (0x0100).to_bytes(2, "big") + b"\x00" * 12 + data
        return head + body
    if form == "pages":
        dbas = draw(st.lists(st.integers(1, 3), max_size=3))
        last = draw(st.integers(0, 6))
        body = (
            (16 + 4 * len(dbas)).to_bytes(2, "big") + (0x0400).to_bytes(2, "big")
            + len(dbas).to_bytes(4, "big") + last.to_bytes(2, "big") + b"\x00" * 6
            + b"".join(d.to_bytes(4, "big") for d in dbas)
        )  # fmt: skip
        return head + body
    return draw(st.binary(max_size=40))


VALUES = st.one_of(st.none(), st.sampled_from([b"", b"\xc1\x02", b"\xc2\x02\x03", b"ab", b"\xff", b"\x80"]))


@st.composite
def transactions(draw: st.DrawFn) -> list[ChangeEvent]:
    """A few committed transactions (begin, random changes, commit), in redo order."""
    out: list[ChangeEvent] = []
    n = 0

    def add(kind: EventKind, sqn: int, **fields: Any) -> None:
        nonlocal n
        n += 1
        out.append(ChangeEvent(kind=kind, usn=1, slot=sqn % 3, sqn=sqn, thread=1, seq=3, block=2 + n,
                               offset=16, scn=100 + n, subscn=0, time=T0 + dt.timedelta(seconds=n),
                               **fields))  # fmt: skip

    for sqn in range(draw(st.integers(1, 3))):
        add(EventKind.BEGIN, sqn)
        for _ in range(draw(st.integers(0, 8))):
            kind = draw(st.sampled_from([EventKind.CHANGE] * 6 + [EventKind.LOB, EventKind.DDL]))
            obj = draw(st.sampled_from([0, 70, 71, 72, 99]))
            if kind is EventKind.LOB:
                add(kind, sqn, redo_op=0x1A02, obj=obj, bdba=draw(st.integers(1, 3)),
                    lob_id=LOB_ID, lob_page=draw(st.integers(0, 3)), lob_data=draw(st.binary(max_size=6)))  # fmt: skip
                continue
            if kind is EventKind.DDL:
                text = draw(st.sampled_from(["ALTER TABLE APP.T ADD (Z NUMBER)", "DROP TABLE APP.T",
                                             "CREATE INDEX I ON T (ID)", "GRANT SELECT ON T TO U", ""]))  # fmt: skip
                add(kind, sqn, obj=obj, ddl_text=text, ddl_schema="APP")
                continue

            def image() -> tuple[tuple[int, bytes | None], ...]:
                cols = draw(st.lists(st.sampled_from([0, 1, 2, 2, 3, 5]), max_size=4))
                return tuple(
                    (c, _locator(draw) if c == 2 and draw(st.booleans()) else draw(VALUES)) for c in cols
                )

            add(kind, sqn, redo_op=draw(st.sampled_from(OPS)), obj=obj, dataobj=draw(st.sampled_from([0, 80, 72])),
                bdba=draw(st.sampled_from([0, 0x0100010C, 0x7FFFFFFF])), row_slot=draw(st.sampled_from([0, 1, 2, 3, 0x10000])),
                fb=draw(st.sampled_from([0, 0, 0x08, 0x80])), undo_fb=draw(st.sampled_from([0, 0, 0, 0x80])),
                supp_fb=draw(st.sampled_from(FBS)), supp_bdba=draw(st.sampled_from([0, 5])),
                supp_slot=draw(st.integers(0, 1)), before=image(), after=image(), supp_columns=image(),
                rows=tuple((i, tuple(draw(VALUES) for _ in range(draw(st.integers(0, 3)))))
                           for i in range(draw(st.integers(0, 2)))))  # fmt: skip
        add(EventKind.COMMIT, sqn)
    return out


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(transactions(), st.booleans(), st.booleans(), st.booleans())
def test_random_transactions(events: list[ChangeEvent], schemaless: bool, full: bool, unknown: bool) -> None:
    dictionary = None if schemaless else DictionaryHistory.from_json(json.dumps(DICTIONARY))
    options = EmitOptions(full_deletes=full, update_before_images=full, emit_unknown=unknown)
    check(events, dictionary, options, balanced=False)


@cache
def _scenario(name: str, tmp: str) -> tuple[tuple[ChangeEvent, ...], str]:
    w = generated(name, Path(tmp))
    return w.events, w.dictionary.to_json()


def _mutate(event: ChangeEvent, rnd: random.Random) -> ChangeEvent:
    choice = rnd.randrange(6)
    if choice == 0:
        return dataclasses.replace(event, redo_op=rnd.choice(OPS))
    if choice == 1:
        return dataclasses.replace(event, supp_fb=rnd.choice(FBS), fb=rnd.choice([0, 0x08, 0x80]))
    if choice == 2:
        return dataclasses.replace(
            event, obj=rnd.choice([0, event.obj + 1, 1 << 40]), bdba=rnd.choice([0, -1, 1 << 33])
        )
    if choice == 3:
        cut = lambda img: tuple((c, None if v is None else v[: rnd.randrange(len(v) + 1)]) for c, v in img)  # noqa: E731
        return dataclasses.replace(event, after=cut(event.after), before=cut(event.before))
    if choice == 4:
        return dataclasses.replace(
            event, lob_data=event.lob_data[: len(event.lob_data) // 2], lob_page=rnd.randrange(4)
        )
    return dataclasses.replace(
        event, row_slot=rnd.choice([0, 0xFFFF, 0x10000]), scn=event.scn + rnd.randrange(-5, 5)
    )


@pytest.mark.parametrize("name", ["lobs", "chained_rows", "array_and_direct_load", "schema_changes", "keys"])
@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(seed=st.integers(0, 1 << 32))
def test_scenario_mutated_and_truncated(
    name: str, seed: int, tmp_path_factory: pytest.TempPathFactory
) -> None:
    events, text = _scenario(name, str(tmp_path_factory.getbasetemp()))
    rnd = random.Random(seed)
    mutated = [_mutate(e, rnd) if rnd.random() < 0.1 else e for e in events]
    mutated = mutated[: rnd.randrange(len(mutated) + 1)]
    check(mutated, DictionaryHistory.from_json(text), EmitOptions(), balanced=False)


# -- dictionary documents and DDL subjects: the core against the Python that stays ----------------


def _both_read(text: str) -> None:
    try:
        DictionaryHistory.from_json(text)
    except DictionaryError:
        python_ok = False
    else:
        python_ok = True
    try:
        native.Emitter(text)
    except DictionaryError:
        rust_ok = False
    else:
        rust_ok = True
    assert python_ok == rust_ok, text[:500]


JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-5, 5) | st.floats(allow_nan=False) | st.text(max_size=5),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4)
    ),
    max_leaves=12,
)


@settings(max_examples=200, deadline=None)
@given(JSON)
def test_random_json_documents(doc: Any) -> None:
    _both_read(json.dumps(doc))


@settings(max_examples=300, deadline=None)
@given(st.data())
def test_mutated_dictionary_documents(data: st.DataObject) -> None:
    """One member of the document replaced by a random value, removed, or the text cut."""
    doc = json.loads(json.dumps(DICTIONARY))
    node: Any = doc
    path = data.draw(st.lists(st.integers(0, 20), min_size=1, max_size=4))
    for step in path:
        keys = list(node) if isinstance(node, dict) else list(range(len(node)))
        if not keys:
            break
        key = keys[step % len(keys)]
        child = node[key]
        if isinstance(child, dict | list) and step % 3:
            node = child
            continue
        if data.draw(st.booleans()) and isinstance(node, dict):
            del node[key]
        else:
            node[key] = data.draw(JSON)
        break
    text = json.dumps(doc)
    if data.draw(st.integers(0, 9)) == 0:
        text = text[: data.draw(st.integers(0, len(text)))]
    _both_read(text)


def test_a_dictionary_error_names_its_json_path() -> None:
    doc = json.loads(json.dumps(DICTIONARY))
    doc["tables"][1]["columns"][0]["length"] = "9"
    with pytest.raises(DictionaryError) as caught:
        native.Emitter(json.dumps(doc))
    assert caught.value.details["json_path"] == "$.tables[1].columns[0].length"
    with pytest.raises(RedoError):
        native.Emitter("{")


DDL_WORDS = st.sampled_from(
    ["CREATE", "ALTER", "DROP", "RENAME", "TRUNCATE", "PURGE", "FLASHBACK", "GRANT", "OR", "REPLACE",
     "GLOBAL", "TEMPORARY", "UNIQUE", "MATERIALIZED", "VIEW", "PACKAGE", "BODY", "TYPE", "TABLE", "INDEX",
     "create", "table", "hr", "t1", ".", "..", '"', '""', '"""', '"x""y"', "'", "''", "'a''b'", "/*", "*/",
     "--", "\n", ";", "/", "(", ")", "1", "2.5", "a$#_", "é", "\x1c", "\u3000", "\u0663"]
)  # fmt: skip


@settings(max_examples=300, deadline=None)
@given(st.lists(DDL_WORDS, max_size=8), st.sampled_from([" ", "", "\t"]), st.sampled_from(["APP", ""]))
def test_ddl_subjects(words: list[str], sep: str, schema: str) -> None:
    """The core's DDL record (IOType 160: OPERATION, OBJECT_TYPE, owner and table) carries the subject
    ``dictionary.ddl.ddl_subject`` reads from statements of DDL words, quotes, comments and odd
    characters (schemaless: every DDL record is emitted)."""
    text = sep.join(words)
    events = [
        ChangeEvent(kind=kind, usn=1, slot=1, sqn=1, thread=1, seq=3, block=2 + n, offset=16, scn=100 + n,
                    subscn=0, time=T0, ddl_text=text if kind is EventKind.DDL else "", ddl_schema=schema)
        for n, kind in enumerate([EventKind.BEGIN, EventKind.DDL, EventKind.COMMIT])
    ]  # fmt: skip
    result = check(events, None)
    assert result is not None
    (record,) = (r.to_dict() for r in result.trail)
    subject = ddl_subject(text, schema)
    assert (record["io_type"], record["op"], record["owner"], record["table"]) == (
        160, "DDL", subject.owner, subject.name
    )  # fmt: skip
    assert record["columns"] == {
        "OPERATION": subject.operation,
        "OBJECT_TYPE": subject.object_type,
        "DDL_TEXT": text,
    }
