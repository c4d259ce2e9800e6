"""``generate``: run a scenario and write everything a test needs into one folder.

Layout of ``out``::

    logs/<thread>_<seq>_<resetlogs>.arc     the archived logs, per thread
    dictionary.json                          Redotrail's dictionary JSON (DictionaryHistory.to_json):
                                             the tables as the scenario starts (DDL is in the redo)
    expected/trail.jsonl                     the expected trail (TrailRecord.to_dict per line)
    expected/tables/<OWNER>.<TABLE>.jsonl    final committed state, one {column: text} per row,
                                             sorted by key (PK / UK) or else by ROWID (block, slot);
                                             a dropped table: its rows when it was dropped
    expected/unsupported.json                changes of tables of a storage the decoder cannot read
    expected/unrenderable.json               row changes carrying a value it cannot render (XMLTYPE)
    expected/tables/<OWNER>.<TABLE>.columns.json   the final shape: {"columns": [{name, type}],
                                             "key": [...], "dropped": bool}, every table
    scenario.yaml                            the resolved scenario (ids filled in; the steps run)

Steps are consumed one at a time, so a generator of steps (large random workloads) runs in constant
memory; ``record_steps=False`` keeps them out of scenario.yaml.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import os
import shutil
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, final

import yaml

from redo_lib.dictionary import DictionaryHistory, KeyKind, OwnerObject, PartitionDef, TableVersion
from redo_lib.errors import ScenarioError
from redo_lib.synth import sysrows
from redo_lib.synth.colrows import column_defs
from redo_lib.synth.columns import render, type_text
from redo_lib.synth.database import TableState
from redo_lib.synth.engine import Engine
from redo_lib.synth.load import dump_scenario, dump_step
from redo_lib.synth.scenario import ColumnSpec, Scenario, Step
from redo_lib.trail.emit import excluded_columns

__all__ = ["GenerationResult", "build_dictionary", "dictionary_text", "generate"]


@final
@dataclass(frozen=True, slots=True, kw_only=True)
class GenerationResult:
    """What ``generate`` wrote."""

    out: Path
    logs: tuple[Path, ...]
    dictionary: Path
    trail: Path
    tables: tuple[Path, ...]
    transactions: int
    records: int
    log_bytes: int
    steps: int
    trail_images: Path | None = None  # expected/trail-images.jsonl (``generate(images=True)``)


#: what an export says of a table of each ``TableSpec.storage`` (include/sql/export_dictionary.sql)
STORAGE_ATTRIBUTES: dict[str | None, dict[str, Any]] = {
    "encrypted": {"encrypted": True},
    "oltp_compressed": {"compress_for": "ADVANCED"},
    "iot": {"iot_type": "IOT"},
}


def _supplemental_attribute(mode: str) -> dict[str, Any]:
    """What an export says of a table's supplemental logging (``DBA_LOG_GROUPS`` /
    ``V$DATABASE.SUPPLEMENTAL_LOG_DATA_*``): nothing for the default PRIMARY KEY logging, so the
    dictionaries of the scenarios without the setting stay as they were."""
    return {} if mode == "primary" else {"supplemental": mode}


def build_dictionary(engine: Engine) -> DictionaryHistory:
    """The dictionary of the scenario's tables as they are when it starts (one version each, valid
    from before the first SCN): what a dictionary export before the run gives
    (include/sql/export_dictionary.sql), the export's scope included: the owners it was taken for,
    their objects (``DBA_OBJECTS``) and the highest object number in the database
    (``max_object_id``: the tables, their data objects and key indexes; Oracle's own objects the
    generator writes, such as ``SEG$``, are numbered far below)."""
    versions = []
    for spec in engine.initial_tables:
        assert spec.obj is not None and (spec.dataobj is not None or spec.partition_by is not None)
        kind = KeyKind(spec.key_kind)
        parts = spec.partition_by.partitions if spec.partition_by else ()
        versions.append(
            TableVersion(
                obj=spec.obj,
                dataobj=spec.dataobj,
                partitions=tuple(
                    PartitionDef(obj=x.obj, dataobj=x.dataobj, name=x.name)
                    for p in parts
                    for x in [p] + list(p.subparts)  # not (p, *p.subparts): mypy types its items object
                    if x.obj is not None
                ),
                owner=spec.owner,
                name=spec.name,
                columns=column_defs(spec),  # as the COL$ rows (colrows.py)
                key_columns=spec.key,
                key_kind=kind,
                valid_from_scn=max(engine.settings.start_scn - 1, 0),
                **STORAGE_ATTRIBUTES.get(spec.storage, {}),
                **_supplemental_attribute(spec.supplemental or engine.settings.supplemental),
            )
        )
    valid_from = max(engine.settings.start_scn - 1, 0)
    versions.extend(sysrows.dictionary_versions(valid_from, engine.settings.charset))
    objects = []
    for spec in engine.initial_tables:
        assert spec.obj is not None
        objects.append(OwnerObject(obj=spec.obj, dataobj=spec.dataobj, owner=spec.owner, name=spec.name))
        for p in spec.partition_by.partitions if spec.partition_by else ():
            segments = [(p, "TABLE PARTITION")] + [(sp, "TABLE SUBPARTITION") for sp in p.subparts]
            for x, object_type in segments:
                assert x.obj is not None
                objects.append(
                    OwnerObject(
                        obj=x.obj, dataobj=x.dataobj, owner=spec.owner, name=spec.name, subname=x.name,
                        type=object_type,
                    )
                )  # fmt: skip
    return DictionaryHistory(
        versions,
        db_charset=engine.settings.charset,
        national_charset=engine.settings.national_charset,
        max_object_id=engine.initial_max_id if engine.initial_tables else None,
        owners=sorted({spec.owner for spec in engine.initial_tables}),
        owner_objects=objects,
    )


def dictionary_text(engine: Engine) -> str:
    """The document: ``build_dictionary`` plus the ``sys`` member (the export's SYS rows)."""
    text = build_dictionary(engine).to_json().rstrip()
    assert text.endswith("}")
    return text[:-1].rstrip() + ",\n" + engine.sys.document_text() + "\n}\n"


def _sort_key(state: TableState) -> Callable[[Any], Any]:
    if state.spec.key_kind == "all":
        return lambda row: row.key
    index = state.key_index
    return lambda row: tuple((v is not None, v) for v in (row.values[i] for i in index))


def write_unsupported(engine: Engine, path: Path) -> None:
    """``expected/unsupported.json``: per table of a ``storage`` the decoder cannot read, kind ->
    what the pipeline counts (counts.json ``unsupported``: change vectors written for encrypted and
    IOT tables, committed row changes for OLTP-compressed inserts; synth/storage.py)."""
    out: dict[str, dict[str, int]] = {}
    for (name, kind), n in sorted(engine.expected_unsupported.items()):
        out.setdefault(name, {})[kind] = n
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(out, indent=2, sort_keys=True) + "\n", encoding="utf-8")


def write_unrenderable(engine: Engine, path: Path) -> None:
    """``expected/unrenderable.json``: the committed row changes carrying a value of a column the
    decoder cannot render (an XMLTYPE: synth/dml.py), as counts.json counts them: ``unrenderable``
    (table -> column -> type code -> changes) and ``unrenderable_ops`` (table -> operation ->
    changes) in the capture scope, ``unrenderable_out_of_scope`` for the columns ``generate``'s
    ``capture`` leaves out. Empty members when there are none."""
    doc: dict[str, dict[str, dict[str, Any]]] = {
        "unrenderable": {}, "unrenderable_ops": {}, "unrenderable_out_of_scope": {},
    }  # fmt: skip
    for (name, column, code, op, left_out), n in sorted(engine.expected_unrenderable.items()):
        member = "unrenderable_out_of_scope" if left_out else "unrenderable"
        types = doc[member].setdefault(name, {}).setdefault(column, {})
        types[str(code)] = types.get(str(code), 0) + n
        if op and not left_out:  # one operation a change (its first captured column)
            ops = doc["unrenderable_ops"].setdefault(name, {})
            ops[op] = ops.get(op, 0) + n
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(doc, indent=2, sort_keys=True) + "\n", encoding="utf-8")


def _mirrored(column: ColumnSpec) -> bool:
    """Whether a mirror has the column: never a hidden one, nor an XMLTYPE (a batch carrying its value
    fails validation; left out of the capture scope, the mirror lacks it: docs/tables.md)."""
    return not column.hidden and column.type.name != "XMLTYPE"


def write_tables(engine: Engine, folder: Path) -> list[Path]:
    """Each table's final rows (``.jsonl``) and final shape (``.columns.json``); returns the ``.jsonl``
    paths. Tables dropped by DDL keep the rows and shape they had when dropped."""
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    states = [(s, False) for s in engine.tables.values()] + [(s, True) for s in engine.dropped]
    for state, dropped in states:
        spec = state.spec
        if spec.storage:
            continue  # its changes never reach the trail (expected/unsupported.json)
        path = folder / f"{spec.owner}.{spec.name}.jsonl"
        with path.open("w", encoding="utf-8") as out:
            for row in sorted(state.rows.values(), key=_sort_key(state)):
                image = {
                    c.name: render(c.type, v)
                    for c, v in zip(spec.columns, row.values, strict=True)
                    if _mirrored(c)
                }
                out.write(json.dumps(image, ensure_ascii=False) + "\n")
        shape = {
            "columns": [{"name": c.name, "type": type_text(c.type)} for c in spec.columns if _mirrored(c)],
            "key": list(state.key_columns),
            "dropped": dropped,
        }
        (folder / f"{spec.owner}.{spec.name}.columns.json").write_text(
            json.dumps(shape) + "\n", encoding="utf-8"
        )
        paths.append(path)
    return paths


def _resolved(scenario: Scenario, engine: Engine) -> Scenario:
    return dataclasses.replace(scenario, tables=engine.initial_tables, steps=())


def generate(
    scenario: Scenario,
    out: str | os.PathLike[str],
    *,
    record_steps: bool = True,
    on_step: Callable[[Engine, int], None] | None = None,
    images: bool = False,
    capture: Sequence[str] = (),
) -> GenerationResult:
    """Run ``scenario`` into the folder ``out`` (created; an existing ``logs/`` and ``expected/``
    there are replaced). ``on_step(engine, n)`` is called after each step (progress, random
    scenarios steering on the engine's state). ``images``: also write ``expected/trail-images.jsonl``,
    the trail under the image options ``update-befores`` and ``full-deletes``. ``capture``: the
    capture list the pipeline will run with (``REDOTRAIL_CAPTURE``); the generator follows its
    ``-OWNER.TABLE.COLUMN`` entries only (the expected trail without those columns and their hidden
    storage, their values counted out of scope in ``expected/unrenderable.json``)."""
    folder = Path(out)
    for sub in ("logs", "expected"):
        shutil.rmtree(folder / sub, ignore_errors=True)
    (folder / "expected").mkdir(parents=True, exist_ok=True)
    trail_path = folder / "expected" / "trail.jsonl"
    steps_path = folder / "scenario.steps.tmp"
    images_path = folder / "expected" / "trail-images.jsonl"
    count = 0
    with contextlib.ExitStack() as files:
        trail = files.enter_context(trail_path.open("w", encoding="utf-8"))
        steps_out = files.enter_context(steps_path.open("w", encoding="utf-8"))
        image_trail = files.enter_context(images_path.open("w", encoding="utf-8")) if images else None
        engine = Engine(scenario, folder, trail, image_trail)
        engine.left_out_columns = frozenset(excluded_columns(list(capture)))
        try:
            for count, step in enumerate(_steps(scenario, engine), 1):
                _run_step(engine, step, count - 1)
                if record_steps:
                    steps_out.write(
                        yaml.safe_dump([dump_step(step)], sort_keys=False, allow_unicode=True, width=1 << 16)
                    )
                if on_step is not None:
                    on_step(engine, count)
            engine.close()
        except BaseException:
            engine.abort()
            steps_out.close()
            steps_path.unlink()
            raise
    with (folder / "scenario.yaml").open("w", encoding="utf-8") as yaml_out:
        dump_scenario(_resolved(scenario, engine), yaml_out)
        if record_steps:
            yaml_out.write("steps:\n")
            with steps_path.open(encoding="utf-8") as recorded:
                shutil.copyfileobj(recorded, yaml_out)
    steps_path.unlink()
    dictionary = folder / "dictionary.json"
    dictionary.write_text(dictionary_text(engine), encoding="utf-8")
    tables = write_tables(engine, folder / "expected" / "tables")
    write_unsupported(engine, folder / "expected" / "unsupported.json")
    write_unrenderable(engine, folder / "expected" / "unrenderable.json")
    logs = tuple(path for log in engine.logs.values() for path, _ in log.written)
    return GenerationResult(
        out=folder,
        logs=logs,
        dictionary=dictionary,
        trail=trail_path,
        trail_images=images_path if images else None,
        tables=tuple(tables),
        transactions=engine.sink.transactions,
        records=engine.sink.records,
        log_bytes=sum(p.stat().st_size for p in logs),
        steps=count,
    )


def _run_step(engine: Engine, step: Step, index: int) -> None:
    try:
        engine.run_step(step)
    except ScenarioError as exc:
        if not exc.message.startswith("steps["):
            exc.message = f"steps[{index}]: {exc.message}"
            exc.args = (exc.message,)
        raise


def _steps(scenario: Scenario, engine: Engine) -> Iterator[Step]:
    steps = scenario.steps
    yield from (steps(engine) if callable(steps) else steps)  # random scenarios steer on the engine
