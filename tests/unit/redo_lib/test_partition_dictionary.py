"""The dictionary the batches follow from the redo equals what the scenario's SQL implies (issue 33).

The partitions scenario (include/scenarios/partitions.yaml: range, list, hash, interval and
composite tables, interval partitions made in each of its four logs, ADD / SPLIT / MERGE / EXCHANGE
PARTITION, a long transaction across all four) runs one batch per log as the Spark assemble job runs
them, in one process: each batch's DDL and SYS row changes applied to the dictionary the previous
batch left (``batch_dictionary.evolve_batch_dictionary``, the transactions that touched the SYS
tables read whole from the batch's events and the previous batch's open ones), then the batch
assembled (``batches.assemble_stream``) to carry its open transactions on. After each batch, the
``sys`` member of ``<batch>/dictionary.json`` must describe every table, partition and subpartition
exactly as the generator's model held them at the end of that batch's log
(``synth.partitions.object_model``, taken after every step): object and data object ids, names,
parent table, partition and subpartition numbers; nothing more. The expectation is the generator's
(the SQL), never the decoder's.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest

from redo_lib.assembly.events import EventKind, events_schema
from redo_lib.batch_dictionary import REDO_ORDER, evolve_batch_dictionary
from redo_lib.batches import assemble_stream
from redo_lib.pipeline import balance, decode_range_arrow, describe_logs
from redo_lib.synth import generate, load_scenario
from redo_lib.synth.engine import Engine
from redo_lib.synth.partitions import object_model
from tests.unit.native.core_assembly import sys_transactions

REPO = Path(__file__).resolve().parents[3]
TYPE_TABLE, TYPE_PARTITION, TYPE_SUBPARTITION = 2, 19, 34


def _generated(out: Path) -> tuple[Path, list[dict[str, Any]]]:
    """The scenario's logs, and the generator's model at the end of each log (one thread: the last
    step before each switch, and the last step)."""
    models: dict[int, dict[str, Any]] = {}

    def on_step(engine: Engine, count: int) -> None:
        (log,) = engine.logs.values()
        models[len(log.written) + 1] = object_model(engine)  # the log the step wrote into (or after it)

    generate(load_scenario(REPO / "include" / "scenarios" / "partitions.yaml"), out, on_step=on_step)
    logs = sorted((out / "logs").glob("*.arc"))
    # a `switch` step leaves the model as the log it closed ends it: that log's model is the last one
    # taken before the next log's first step
    ends = []
    for sequence in range(1, len(logs) + 1):
        before_next = [m for s, m in sorted(models.items()) if s <= sequence]
        ends.append(before_next[-1])
    return out, ends


def _with_carried(rows: list[dict[str, Any]], carried: bool) -> list[dict[str, Any]]:
    return [{**r, "carried": carried} for r in rows]


def _batch(rows: list[dict[str, Any]]) -> pa.RecordBatch:
    return pa.RecordBatch.from_pylist(rows, schema=events_schema().append(pa.field("carried", pa.bool_())))


def _run_batches(scenario: Path, root: Path) -> Iterator[tuple[Path, dict[str, Any]]]:
    """One batch per log, as the Spark job runs them: (its folder, its counts)."""
    refs = describe_logs(sorted((scenario / "logs").glob("*.arc")))
    start = str(scenario / "dictionary.json")
    carried: list[dict[str, Any]] = []
    for n, ref in enumerate(refs):
        folder = root / f"b{n + 1}"
        folder.mkdir()
        watermark = ref.next_scn if n + 1 < len(refs) else None
        rows = [r for b in decode_range_arrow(ref.location) for r in b.to_pylist()]
        every = _with_carried(carried, True) + _with_carried(rows, False)
        ddl = sorted(
            (r for r in every if r["kind"] == EventKind.DDL and (watermark is None or r["scn"] < watermark)),
            key=lambda r: [r[k] for k in REDO_ORDER],
        )

        def sys_events(objs: Any, every: list[dict[str, Any]] = every) -> Iterator[pa.RecordBatch]:
            if kept := sys_transactions(every, objs):
                yield _batch(kept)

        dictionary, counts, problems = evolve_batch_dictionary(
            start, ddl, str(folder), own_copy=True, sys_events=sys_events, hold_from=watermark,
            resetlogs_id=ref.resetlogs_id,
        )  # fmt: skip
        assert not problems, problems
        assert dictionary == str(folder / "dictionary.json")
        out = list(assemble_stream([_batch(every)], dictionary, {"apply_ddl": False}, resetlogs_id=ref.resetlogs_id,
                                   hold_from=watermark))  # fmt: skip
        batch_counts = out[-1][1]
        assert balance(batch_counts) == {}
        carried = [r for kind, b in out if kind == "open" for r in b.to_pylist()]
        yield folder, {"ddl": counts, **batch_counts}
        start = dictionary


def _current(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [r for r in rows if r["valid_to_scn"] is None]


def _from_sys_rows(document: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """The objects the ``sys`` member's current rows describe, in ``object_model``'s form: tables by
    OWNER.NAME (USER$), partitions under their table (TABPART$ / TABCOMPART$ BO#) in PART# order,
    subpartitions under their partition (TABSUBPART$ POBJ#) in SUBPART# order. A partition's data
    object id is OBJ$'s; TABPART$ / TABSUBPART$ must agree with it."""
    sys = {name: _current(rows) for name, rows in document["sys"].items()}
    users = {r["USER#"]: r["NAME"] for r in sys["USER$"]}
    objects = {r["OBJ#"]: r for r in sys["OBJ$"]}
    assert len(objects) == len(sys["OBJ$"]), "one current OBJ$ row per object"
    out: dict[str, dict[str, Any]] = {}
    by_obj: dict[int, dict[str, Any]] = {}
    for row in sys["OBJ$"]:
        if row["TYPE#"] == TYPE_TABLE:
            entry = {"obj": row["OBJ#"], "dataobj": row["DATAOBJ#"], "partitions": []}
            out[f"{users[row['OWNER#']]}.{row['NAME']}"] = by_obj[row["OBJ#"]] = entry
    partitions: dict[int, dict[str, Any]] = {}
    for table, rows in (("TABPART$", sys["TABPART$"]), ("TABCOMPART$", sys["TABCOMPART$"])):
        for row in sorted(rows, key=lambda r: r["PART#"]):
            obj = objects[row["OBJ#"]]
            assert obj["TYPE#"] == TYPE_PARTITION and row["DATAOBJ#"] == obj["DATAOBJ#"], (table, row, obj)
            parent = by_obj[row["BO#"]]
            assert objects[row["BO#"]]["NAME"] == obj["NAME"], (row, obj)
            partitions[row["OBJ#"]] = part = {"name": obj["SUBNAME"], "obj": row["OBJ#"], "dataobj": obj["DATAOBJ#"],
                                             "part_no": row["PART#"], "subpartitions": []}  # fmt: skip
            parent["partitions"].append(part)
    for entry in out.values():
        entry["partitions"].sort(key=lambda p: p["part_no"])
    for row in sorted(sys["TABSUBPART$"], key=lambda r: r["SUBPART#"]):
        obj = objects[row["OBJ#"]]
        assert obj["TYPE#"] == TYPE_SUBPARTITION and row["DATAOBJ#"] == obj["DATAOBJ#"], (row, obj)
        partitions[row["POBJ#"]]["subpartitions"].append(
            {
                "name": obj["SUBNAME"],
                "obj": row["OBJ#"],
                "dataobj": obj["DATAOBJ#"],
                "sub_no": row["SUBPART#"],
            }
        )
    described = {e["obj"] for e in out.values()} | set(partitions) | {r["OBJ#"] for r in sys["TABSUBPART$"]}
    assert set(objects) == described, "every OBJ$ row is a table, partition or subpartition of one"
    return out


def _ordered(model: dict[str, dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """The generator's partitions in PART# order (its list is in partition order, which interval
    partitions, numbered by their distance from the transition point, need not follow)."""
    return {
        name: {**entry, "partitions": sorted(entry["partitions"], key=lambda p: p["part_no"])}
        for name, entry in model.items()
    }


@pytest.fixture(scope="module")
def batches(tmp_path_factory: pytest.TempPathFactory) -> list[tuple[Path, dict[str, Any], dict[str, Any]]]:
    scenario, models = _generated(tmp_path_factory.mktemp("partitions"))
    run = list(_run_batches(scenario, tmp_path_factory.mktemp("batches")))
    assert len(run) == len(models) == 4
    return [(folder, counts, model) for (folder, counts), model in zip(run, models, strict=True)]


def test_each_batch_dictionary_holds_the_partitions_the_sql_made(
    batches: list[tuple[Path, dict[str, Any], dict[str, Any]]],
) -> None:
    """After each batch, the SYS rows of ``<batch>/dictionary.json`` describe exactly the tables,
    partitions and subpartitions of the generator's model at the end of the batch's log (interval
    partitions, ADD in log 2, SPLIT and MERGE in log 3, ADD and EXCHANGE in log 4 included), and the
    batch applied SYS row changes with no object left unknown."""
    previous = None
    for folder, counts, model in batches:
        document = json.loads((folder / "dictionary.json").read_text())
        assert _from_sys_rows(document) == _ordered(model), folder.name
        assert counts["ddl"].get("dictionary_rows", 0) > 0, folder.name
        assert not counts["unknown_in_scope"], folder.name
        assert model != previous, "each log changes the partitions"
        previous = model


def test_the_partitions_made_after_the_export_are_the_generators(
    batches: list[tuple[Path, dict[str, Any], dict[str, Any]]],
) -> None:
    """The model itself, against the scenario's header (include/scenarios/partitions.yaml): the
    interval partitions of each log, R_ORDERS' partitions after the SPLIT / MERGE / ADD, and the
    EXCHANGE's swap of data object ids between P5 and R_STAGE."""
    names = [[(p["name"], p["part_no"]) for p in m["APP.I_SALES"]["partitions"]] for _, _, m in batches]
    # in bound order; SYS_P<n> in creation order (long's 550 first), PART# 10 * (1 + k) for the
    # interval [100 + 100 (k - 1), 100 + 100 k); SYS_P105, [800, 900), is made by the row movement
    # of 260 to 860 in log 3
    made = [("SYS_P102", 20), ("SYS_P103", 30), ("SYS_P101", 60), ("SYS_P106", 80), ("SYS_P105", 90),
            ("SYS_P104", 110)]  # fmt: skip
    assert names == [
        [("P1", 10), *(made[i] for i in (0, 2))],
        [("P1", 10), *(made[i] for i in (0, 1, 2))],
        [("P1", 10), *(made[i] for i in (0, 1, 2, 4, 5))],
        [("P1", 10), *made],
    ]
    last = batches[-1][2]
    assert [p["name"] for p in last["APP.R_ORDERS"]["partitions"]] == ["P1", "P2", "P3", "P4", "P5"]
    before = batches[-2][2]
    stage_before = before["APP.R_STAGE"]["dataobj"]
    p5 = last["APP.R_ORDERS"]["partitions"][-1]
    assert last["APP.R_STAGE"]["dataobj"] != stage_before and p5["dataobj"] == stage_before  # swapped
    assert [len(p["subpartitions"]) for p in last["APP.C_STOCK"]["partitions"]] == [2, 2, 2]


def test_counts_name_the_table_of_every_partition(
    batches: list[tuple[Path, dict[str, Any], dict[str, Any]]],
) -> None:
    """The core's resolution of a partition's changes, as counts.json shows it: every table its
    trail and decoded counts name is a scenario table (no ``OBJ_<n>``)."""
    tables = set(batches[-1][2])
    for folder, counts, _ in batches:
        named = set(counts["decoded"]) | set(counts["trail"]) | set(counts["carried_out"])
        assert named - {"SYS.OBJ$", "SYS.TABPART$", "SYS.TABCOMPART$", "SYS.TABSUBPART$"} <= tables, (
            folder.name,
            sorted(named - tables),
        )


def test_sys_rows_the_core_cannot_apply_are_problems_that_name_the_table(tmp_path: Path) -> None:
    """A layout the core cannot read a followed row change with (TABPART$ without its ``BO#``: a
    release that renamed it) is no guess and no silent skip: the batch driver's problems name the
    SYS table, the followed table and the SCN (kind ``sys_rows``; validation's ``ddl_records`` rule
    fails the batch on them), and the dictionary keeps no such partition."""
    scenario, _ = _generated(tmp_path / "gen")
    document = json.loads((scenario / "dictionary.json").read_text())
    (tabpart,) = [t for t in document["tables"] if t["owner"] == "SYS" and t["name"] == "TABPART$"]
    renamed = json.loads(json.dumps(tabpart).replace('"BO#"', '"BASE_OBJ#"'))  # its columns and key
    tabpart.clear()
    tabpart.update(renamed)
    broken = tmp_path / "broken.json"
    broken.write_text(json.dumps(document))
    (ref, *_) = describe_logs(sorted((scenario / "logs").glob("*.arc")))
    rows = [r for b in decode_range_arrow(ref.location) for r in b.to_pylist()]
    kept = sys_transactions(rows, (t["obj"] for t in document["tables"] if t["owner"] == "SYS"))
    assert kept, "the first log creates interval partitions"
    folder = tmp_path / "b1"
    _, counts, problems = evolve_batch_dictionary(
        str(broken), [], str(folder), own_copy=True, sys_events=lambda _: iter([_batch(_with_carried(kept, False))]),
        hold_from=ref.next_scn, resetlogs_id=ref.resetlogs_id,
    )  # fmt: skip
    assert problems and all(p["kind"] == "sys_rows" for p in problems)
    assert any("TABPART$" in p["message"] and "APP.I_SALES" in p["message"] for p in problems), problems
    assert counts.get("dictionary_row_problems") == len(problems)
    after = json.loads((folder / "dictionary.json").read_text())["sys"]["TABPART$"]
    assert len(after) == len(document["sys"]["TABPART$"]), "no partition kept from an unread row"
