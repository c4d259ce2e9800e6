"""The Rust emitter on impossible input: random committed transactions over a small dictionary (any
op, flags, supplemental blocks, row slots, column values and LOB locators / pieces, DDL text), the
named scenarios' events mutated and truncated, and random or mutated dictionary documents. Never a
panic (a ``pyo3_runtime.PanicException`` is no ``RedoError`` and fails the test); the same trail
rows and counters as the Python emitter, or the same named error (``emitted.py``); a dictionary
document Python refuses is refused as a ``DictionaryError``, one it reads is read.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import json
import random
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from redo_lib.assembly.events import ChangeEvent, EventKind
from redo_lib.batches import event_from_row
from redo_lib.dictionary import DictionaryHistory
from redo_lib.errors import DictionaryError, RedoError
from redo_lib.synth import generate, load_scenario
from redo_lib.trail.emit import EmitOptions

from .emitted import assert_same, run_python, run_rust

REPO = Path(__file__).resolve().parents[3]
T0 = dt.datetime(2024, 5, 1)
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


def check(events: list[ChangeEvent], dictionary: DictionaryHistory | None, options: EmitOptions) -> None:
    python = run_python(events, dictionary, options)
    assert_same(python, run_rust(events, dictionary, options, chunk=5))
    assert_same(python, run_rust(events, dictionary, options, chunk=7, many=True))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(transactions(), st.booleans(), st.booleans(), st.booleans())
def test_random_transactions(events: list[ChangeEvent], schemaless: bool, full: bool, unknown: bool) -> None:
    dictionary = None if schemaless else DictionaryHistory.from_json(json.dumps(DICTIONARY))
    check(events, dictionary, EmitOptions(full_deletes=full, emit_unknown=unknown))


@cache
def _scenario(name: str, tmp: str) -> tuple[tuple[ChangeEvent, ...], str]:
    from redo_lib.pipeline import decode_range_arrow

    result = generate(load_scenario(REPO / "include" / "scenarios" / f"{name}.yaml"), Path(tmp) / name,
                      record_steps=False)  # fmt: skip
    events = [
        event_from_row(r) for log in result.logs for b in decode_range_arrow(str(log)) for r in b.to_pylist()
    ]
    return tuple(sorted(events, key=lambda e: e.sort_key)), result.dictionary.read_text()


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
    check(mutated, DictionaryHistory.from_json(text), EmitOptions())


def _both_read(text: str) -> None:
    from redo_lib.native import native

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
    from redo_lib.native import native

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
    """The core's ``ddl_subject`` (the DDL record's OPERATION, OBJECT_TYPE, owner and table) is
    Python's on statements of DDL words, quotes, comments and odd characters (schemaless: every DDL
    record is emitted)."""
    text = sep.join(words)
    events = [
        ChangeEvent(kind=kind, usn=1, slot=1, sqn=1, thread=1, seq=3, block=2 + n, offset=16, scn=100 + n,
                    subscn=0, time=T0, ddl_text=text if kind is EventKind.DDL else "", ddl_schema=schema)
        for n, kind in enumerate([EventKind.BEGIN, EventKind.DDL, EventKind.COMMIT])
    ]  # fmt: skip
    check(events, None, EmitOptions())
