"""``mirror.fold_partition`` (one call per partition) gives what ``fold_group`` gives group by group,
however the partition's sorted records are cut into record batches: groups spanning batches, a
batch holding many groups, a group of one record."""

from __future__ import annotations

import random
from typing import Any

import pyarrow as pa
import pytest

from spark_jobs.mirror import fold_group, fold_partition

PAIR = pa.struct([pa.field("name", pa.string()), pa.field("value", pa.string())])
SCHEMA = pa.schema([
    ("source_table", pa.string()), ("group", pa.string()), ("key", pa.string()), ("old_key", pa.string()),
    ("op", pa.string()), ("trail_seq", pa.int64()), ("columns", pa.list_(PAIR)), ("before", pa.list_(PAIR)),
    ("key_columns", pa.list_(pa.string())), ("rowid", pa.string()), ("commit_scn", pa.int64()),
    ("batch_id", pa.string()),
])  # fmt: skip


def _records(rnd: random.Random) -> list[dict[str, Any]]:
    """Changes to keys of two tables, sorted by (source_table, group) as the fold's shuffle sorts."""
    out = []
    seq = 0
    for table in ("A.T", "B.U"):
        for key in range(rnd.randint(1, 6)):
            for _ in range(rnd.randint(1, 5)):
                seq += 1
                op = rnd.choice(["INSERT", "UPDATE", "DELETE"])
                value = str(rnd.randrange(100))
                columns = (
                    []
                    if op == "DELETE"
                    else [{"name": "ID", "value": str(key)}, {"name": "V", "value": value}]
                )
                out.append({
                    "source_table": table, "group": f'["{key}"]', "key": f'["{key}"]', "old_key": None,
                    "op": op, "trail_seq": seq, "columns": columns, "before": None, "key_columns": ["ID"],
                    "rowid": f"r{key}", "commit_scn": 1000 + seq, "batch_id": "b",
                })  # fmt: skip
    return sorted(out, key=lambda r: (r["source_table"], r["group"]))


def _by_group(table: pa.Table) -> dict[tuple[str, str], Any]:
    return {(r["source_table"], r["key"]): r for r in table.to_pylist()}


@pytest.mark.parametrize("seed", range(20))
def test_a_partition_folds_as_its_groups_do(seed: int) -> None:
    rnd = random.Random(seed)
    records = _records(rnd)
    whole = pa.Table.from_pylist(records, schema=SCHEMA)
    cuts = sorted(rnd.sample(range(1, len(records)), min(len(records) - 1, rnd.randint(0, 4))))
    batches = [
        whole.slice(a, b - a).to_batches()[0] for a, b in zip([0, *cuts], [*cuts, len(records)], strict=True)
    ]
    got = pa.Table.from_batches(list(fold_partition(batches)))
    want: dict[tuple[str, str], Any] = {}
    for group in sorted({(r["source_table"], r["group"]) for r in records}):
        rows = [r for r in records if (r["source_table"], r["group"]) == group]
        want |= _by_group(fold_group(pa.Table.from_pylist(rows, schema=SCHEMA)))
    assert got.num_rows == len(want)
    assert _by_group(got) == want


def test_an_empty_partition_folds_to_nothing() -> None:
    assert list(fold_partition([])) == []
