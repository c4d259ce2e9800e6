"""The mirror fold in the Rust core (``redo_lib._native.MirrorFold``) against the Python fold it
replaces (``fold_rows`` below, as ``spark_jobs.mirror`` had it until issue 16's last step), the test
oracle until the two agree everywhere: hypothesis-drawn groups of changes over a few keys (existing
rows, inserts, updates with and without a row to merge over, deletes, primary-key updates, replays
out of commit order, duplicate and null values, a missing commit SCN), cut into record batches
anywhere, with and without the ``group`` column; output compared row for row, in order."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import pyarrow as pa
from hypothesis import given, settings
from hypothesis import strategies as st

from spark_jobs.mirror import fold_arrow_schema, fold_group, fold_partition

PAIR = pa.struct([pa.field("name", pa.string()), pa.field("value", pa.string())])
FIELDS = [
    ("source_table", pa.string()), ("key", pa.string()), ("old_key", pa.string()), ("op", pa.string()),
    ("trail_seq", pa.int64()), ("columns", pa.list_(PAIR)), ("before", pa.list_(PAIR)),
    ("key_columns", pa.list_(pa.string())), ("rowid", pa.string()), ("commit_scn", pa.int64()),
    ("batch_id", pa.string()),
]  # fmt: skip
GROUPED = pa.schema([("group", pa.string()), *FIELDS])
UNGROUPED = pa.schema(FIELDS)


def _image(pairs: Any) -> dict[str, str | None]:
    return {p["name"]: p["value"] for p in pairs or ()}


def fold_rows(rows: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """The changes of one group (existing rows first, then ``trail_seq`` order), folded: one row per
    touched key, as ``fold_schema()`` describes."""
    state: dict[str, tuple[dict[str, str | None], bool] | None] = {}
    keys: dict[str, list[dict[str, str | None]]] = {}
    last: dict[str, tuple[str, int, str]] = {}
    touched: dict[str, None] = {}
    # existing rows first, then commit order: commit SCN across batches (a backfill's changes and the
    # later ones it replays, publish.replayed_changes), the trail's own order inside a batch
    for r in sorted(rows, key=lambda r: (r["op"] != "EXISTING", r["commit_scn"] or 0, r["trail_seq"])):
        op, key, image = r["op"], r["key"], _image(r["columns"])
        if op == "EXISTING":
            state[key] = (image, False)
            continue
        names = list(r["key_columns"] or ())
        keys.setdefault(key, [{"name": n, "value": image.get(n)} for n in names])
        if op == "INSERT":
            state[key] = (image, False)
        elif op == "DELETE":
            state[key] = None
        else:  # UPDATE, PK_UPDATE: merge over the row held under the (old) key
            source = key if op == "UPDATE" else r["old_key"]
            held = state.get(source)
            if held is None and op == "PK_UPDATE":
                # replayed over a mirror that holds it already: the row is under its new key
                held = state.get(key)
            if op == "PK_UPDATE":
                before = _image(r["before"])
                keys.setdefault(source, [{"name": n, "value": before.get(n)} for n in names])
                state[source] = None
                touched[source] = None
                last[source] = (r["rowid"], r["commit_scn"], r["batch_id"])
            base, partial = held if held is not None else ({}, True)
            state[key] = ({**base, **image}, partial)
        touched[key] = None
        last[key] = (r["rowid"], r["commit_scn"], r["batch_id"])
    source_table = rows[0]["source_table"] if rows else None
    out: list[dict[str, Any]] = []
    for key in touched:
        held = state.get(key)
        rowid, commit_scn, batch_id = last[key]
        if held is None:
            op, pairs, partial = "D", [], False
        else:
            image, partial = held
            op, pairs = "U", [{"name": n, "value": v} for n, v in image.items()]
        out.append({"source_table": source_table, "key": key, "op": op, "columns": pairs,
                    "key_values": keys[key], "rowid": rowid, "commit_scn": commit_scn,
                    "batch_id": batch_id, "partial": partial})  # fmt: skip
    return out


KEYS = ["1", "2", "3"]
NAMES = ["K", "A", "B", "C"]


@st.composite
def _pairs(draw: st.DrawFn, key: str) -> list[dict[str, str | None]]:
    names = draw(st.lists(st.sampled_from(NAMES[1:]), max_size=4))  # duplicates: a later one wins
    values = st.one_of(st.none(), st.sampled_from(["x", "y", "", "z z"]))
    return [{"name": "K", "value": key}] + [{"name": n, "value": draw(values)} for n in names]


@st.composite
def _group(draw: st.DrawFn, table: str, group: str) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    for key in draw(st.lists(st.sampled_from(KEYS), max_size=3, unique=True)):  # what the mirror holds
        rows.append({"key": key, "old_key": None, "op": "EXISTING", "trail_seq": -1, "commit_scn": None,
                     "columns": draw(_pairs(key)), "before": None})  # fmt: skip
    for seq in range(draw(st.integers(0, 12))):
        op = draw(st.sampled_from(["INSERT", "UPDATE", "DELETE", "PK_UPDATE"]))
        key = draw(st.sampled_from(KEYS))
        old = draw(st.sampled_from(KEYS)) if op == "PK_UPDATE" else None
        rows.append({
            "key": key, "old_key": old, "op": op, "trail_seq": seq,
            "commit_scn": draw(st.one_of(st.none(), st.integers(100, 104))),
            "columns": draw(_pairs(key)), "before": draw(_pairs(old)) if old else None,
        })  # fmt: skip
    for r in rows:
        r.update(source_table=table, group=group, key_columns=draw(st.sampled_from([["K"], ["K", "A"], []])),
                 rowid=draw(st.sampled_from(["AAA", None])), batch_id=draw(st.sampled_from(["b1", "b2", None])))  # fmt: skip
    return draw(st.permutations(rows))  # the fold orders them itself


def _batches(draw: st.DrawFn, rows: list[dict[str, Any]], schema: pa.Schema) -> list[pa.RecordBatch]:
    whole = pa.Table.from_pylist(rows, schema=schema)
    cuts = sorted(draw(st.sets(st.integers(1, max(1, len(rows) - 1)), max_size=4)) if len(rows) > 1 else [])
    bounds = list(zip([0, *cuts], [*cuts, len(rows)], strict=True))
    return [whole.slice(a, b - a).combine_chunks().to_batches()[0] for a, b in bounds if b > a]


@settings(max_examples=400, deadline=None)
@given(st.data())
def test_a_partition_folds_as_the_python_fold_did(data: st.DataObject) -> None:
    groups = [
        (table, group)
        for table in ("A.T", "B.U")
        for group in data.draw(st.lists(st.sampled_from(['["1"]', '["2"]', "*"]), max_size=3, unique=True))
    ]
    rows: list[dict[str, Any]] = []
    want: list[dict[str, Any]] = []
    for table, group in sorted(groups):
        mine = data.draw(_group(table, group))
        rows += mine
        if mine:
            want += fold_rows(mine)
    got = [r for b in fold_partition(_batches(data.draw, rows, GROUPED)) for r in b.to_pylist()]
    assert got == want


@settings(max_examples=200, deadline=None)
@given(st.data())
def test_a_table_without_a_group_column_is_one_group(data: st.DataObject) -> None:
    rows = data.draw(_group("A.T", "*"))
    for r in rows:
        del r["group"]
    got = fold_group(pa.Table.from_pylist(rows, schema=UNGROUPED)).to_pylist() if rows else []
    assert got == fold_rows(rows)
    # types inferred by pyarrow, as the batch layer's model hands its changes over: a column of
    # nulls only (no PK update, no commit SCN) is of type null
    inferred = fold_group(pa.Table.from_pylist(rows)).to_pylist() if rows else []
    assert inferred == got
    assert fold_group(pa.Table.from_pylist(rows, schema=UNGROUPED)).schema == fold_arrow_schema()
