"""The batch's dictionary: where the batch's assembly starts from, evolved before any task runs.

Every assembly task of a batch must see the same dictionary versions, so the driver evolves the
dictionary first, from a few rows of the batch (docs/dictionary.md, docs/tables.md):

* the DDL statements (24.1 events; their text shapes the columns: ``trail.emit.evolve_dictionary``);
* the row changes of Oracle's own dictionary tables (``SYS.OBJ$``, ``TABPART$``, ...; the
  document's ``sys`` member): the transactions that made them are read whole from the batch's event
  files and run through the core's transaction table and emitter, which applies each committed
  one at its commit SCN (``redo_core::trail::sys``). That is how partitions created after the export
  (interval partitions, partition DDL) resolve to their tables with no dictionary refresh.

The evolved dictionary is written to ``<batch>/dictionary.json`` (the next batch starts from it).

Layer "top".
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from typing import Any

import numpy as np

from redo_lib.assembly.events import EventKind, event_from_row
from redo_lib.batches import assemble_stream, dictionary_at, join_location, write_location
from redo_lib.exchange import bucket_events, buckets_of, carried_events
from redo_lib.storage.sources import open_parquet

#: the redo order of events of several threads and buckets (``spark_jobs/assemble.py`` sorts the
#: batch's DDL so too)
REDO_ORDER = ("scn", "subscn", "thread", "seq", "block", "offset", "vector")

__all__ = ["REDO_ORDER", "dictionary_transactions", "evolve_batch_dictionary", "sys_objects"]


def sys_objects(history: Any) -> list[int]:
    """The object ids of the ``SYS`` dictionary tables the core follows (``dictionary.SYS_TABLES``) that
    the dictionary describes; none without a ``sys`` member (nothing to follow)."""
    from redo_lib.dictionary import SYS_TABLES

    if history is None or history.sys_json is None:
        return []
    names = set(SYS_TABLES)
    return sorted({v.obj for v in history if v.owner == "SYS" and v.name in names})


def _xids(locations: Iterable[str], objs: Sequence[int]) -> set[tuple[int, int, int]]:
    """The transactions (usn, slot, sqn) with a change to one of ``objs`` in some event files: four
    columns read, a row group at a time."""
    import pyarrow.compute as pc

    wanted = _array(objs)
    xids: set[tuple[int, int, int]] = set()
    for location in locations:
        with open_parquet(location) as file:
            for group in range(file.metadata.num_row_groups):
                table = file.read_row_group(group, columns=["obj", "usn", "slot", "sqn"])
                hits = table.filter(pc.is_in(table.column("obj"), value_set=wanted))
                xids.update(zip(*(hits.column(c).to_pylist() for c in ("usn", "slot", "sqn")), strict=True))
    return xids


def _array(values: Any) -> Any:
    import pyarrow as pa

    return pa.array(values, type=pa.int64())


def dictionary_transactions(
    units: Sequence[dict[str, Any]], carried: Sequence[str], buckets: int, objs: Sequence[int]
) -> Iterator[Any]:
    """The events of the transactions that changed ``objs`` (the ``SYS`` dictionary tables), the
    carried-in ones first, each in redo order, with the ``carried`` column the core's assembler
    reads; their DDL (24.1) events left out (the statement text is applied apart). Nothing when no
    transaction of the batch touched them."""
    import pyarrow as pa
    import pyarrow.compute as pc

    if not objs:
        return
    # decode lists the objects each unit changed (``objs``): only those units can hold such a change
    # (a units.json written before that member: every unit is read)
    touched = set(objs)
    scanned = [u["file"] for u in units if u.get("objs") is None or touched.intersection(u["objs"])]
    xids = _xids([*carried, *scanned], objs)
    if not xids:
        return
    ordered = sorted(xids)
    usn, slot, sqn = (_array([x[i] for x in ordered]) for i in range(3))
    wanted = pc.binary_join_element_wise(
        pc.cast(usn, pa.string()), pc.cast(slot, pa.string()), pc.cast(sqn, pa.string()), "."
    )
    # their whole transactions (begin, row changes, commit: in any unit) from the row groups of their
    # slots' buckets only; a few rows, put in redo order (the buckets' row groups come bucket by
    # bucket, and the core applies the transactions in the order their commits come)
    mine = sorted(set(buckets_of(usn.to_numpy(), slot.to_numpy(), buckets).tolist()))
    for is_carried, batches in (
        (True, carried_events(carried, mine, buckets)),
        (False, bucket_events(units, mine)),
    ):
        kept = []
        for batch in batches:
            xid = pc.binary_join_element_wise(
                *(pc.cast(batch.column(c), pa.string()) for c in ("usn", "slot", "sqn")), "."
            )
            mask = pc.and_(
                pc.is_in(xid, value_set=wanted), pc.not_equal(batch.column("kind"), int(EventKind.DDL))
            )
            if (rows := batch.filter(mask)).num_rows:
                kept.append(rows)
        if kept:
            table = pa.Table.from_batches(kept).sort_by([(name, "ascending") for name in REDO_ORDER])
            for rows in table.combine_chunks().to_batches():
                yield rows.append_column("carried", pa.array(np.full(rows.num_rows, is_carried)))


def evolve_batch_dictionary(
    dictionary: str | None,
    ddl_rows: Iterable[dict[str, Any]],
    batch_dir: str,
    *,
    own_copy: bool = False,
    sys_events: Any = None,
    hold_from: int | None = None,
    resetlogs_id: int | None = None,
    disagreements: list[dict[str, Any]] | None = None,
) -> tuple[str | None, dict[str, int], list[dict[str, Any]]]:
    """Apply the batch's DDL events (rows, in redo order) and, with ``sys_events`` (``objs -> event
    record batches``, :func:`dictionary_transactions`), the row changes of the ``SYS`` dictionary
    tables to the batch's dictionary before assembly, so every task sees the same versions. The
    evolved dictionary is written to ``<batch>/dictionary.json`` (the next batch starts from it).
    Returns its location (or the input when nothing changed and ``own_copy`` is false: a dictionary
    carried from the previous batch is copied, so every batch folder holds the dictionary its trail
    was written with), the counts by effect (``ddl_*``; ``dictionary_rows``: SYS row changes
    applied) and what could not be applied (``emit.evolve_dictionary``; the core's ``sys_rows``
    problems). ``hold_from``: the batch's watermark (transactions committing at or above it wait
    for the next batch, as in the assembly).

    Where the dictionary's SYS rows follow its tables (``COL$`` and ``CDEF$`` rows of them: the
    core's ``dictionary_state``), no DDL text is applied: each is counted by what it is about
    (``ddl_*``, ``ddl_from_sys_rows``) and the rows give every table (docs/dictionary.md, "The SYS
    rows win"). Otherwise the texts are applied first; where a DDL's transaction then changed a
    table's SYS rows, those give the table from its commit on, a problem of that DDL's text (not
    understood, contradicting the dictionary) is superseded (counted ``ddl_text_superseded``, no
    longer a problem), and each disagreement between the rows and the text's version is appended
    to ``disagreements`` (the core's ``column_disagreements``). Either way the versions the rows
    give are put in the dictionary written (``sys_columns.with_columns_from_sys``), and the first
    batch of a chain reports the export's own disagreements ("as loaded")."""
    from redo_lib.trail.emit import evolve_dictionary

    history = dictionary_at(dictionary)
    events = [e for e in map(event_from_row, ddl_rows) if e.kind is EventKind.DDL]
    if history is None:
        return dictionary, {}, []
    counts: Counter[str] = Counter()
    problems: list[dict[str, Any]] = []
    follows = False
    if history.sys_rows is not None:
        from redo_lib.native import native

        state = native.dictionary_state(history.to_json())
        follows = bool(state["follows_tables"])
        if not own_copy and disagreements is not None:
            # the chain's first batch: the export's own rows and versions, compared as it is read (a
            # batch's own dictionary, written after its commits, agrees with its rows)
            disagreements.extend(state["loaded_disagreements"])
    if follows:
        # the SYS rows follow the tables: no DDL text is applied (the core's rule for the emitter
        # too), each is counted by what it is about (docs/dictionary.md, "The SYS rows win")
        for event in events:
            counts[native.ddl_counter(event.ddl_text, event.ddl_schema)] += 1
            counts["ddl_from_sys_rows"] += 1
        evolved = history
    else:
        evolved = evolve_dictionary(history, events, counts, problems) if events else history
    objs = sys_objects(evolved) if sys_events is not None else []
    if objs:
        followed: list[dict[str, Any]] = []
        tracked = _track_sys_rows(evolved, sys_events(objs), counts, followed, hold_from, resetlogs_id)
        evolved = _tables_followed(tracked, followed, counts, problems, None if follows else disagreements)
    if evolved is history and not own_copy:
        return dictionary, dict(counts), problems
    location = write_location(join_location(batch_dir, "dictionary.json"), evolved.to_json())
    return location, dict(counts), problems


def _tables_followed(
    history: Any,
    followed: list[dict[str, Any]],
    counts: Counter[str],
    problems: list[dict[str, Any]],
    disagreements: list[dict[str, Any]] | None,
) -> Any:
    """After the SYS rows were followed (``followed``: the core's counts documents): the text
    problems of DDL whose transaction changed the table's ``COL$`` rows superseded, the
    disagreements handed on, the versions the ``COL$`` rows give put in the history."""
    from redo_lib.dictionary.sys_columns import with_columns_from_sys

    changed = {(int(obj), str(xid)) for doc in followed for obj, xid, _ in doc.get("tables_followed", [])}
    sys_problems = [p for doc in followed for p in doc.get("ddl_problems", [])]
    kept = [
        p for p in problems
        if not (p.get("kind") in ("unsupported", "conflict") and (p.get("obj"), p.get("xid")) in changed)
    ]  # fmt: skip
    if len(kept) < len(problems):
        counts["ddl_text_superseded"] += len(problems) - len(kept)
    problems[:] = kept + sys_problems
    # those the core reports at the commits; not its "as loaded" ones: the document it read had the
    # batch's DDL texts applied and its rows not yet followed (compared above, before the texts)
    said = [
        d for doc in followed for d in doc.get("dictionary_disagreements", [])
        if not d["differences"][0].startswith("as loaded: ")
    ]  # fmt: skip
    if disagreements is not None:
        disagreements.extend(said)
    # always: a document whose rows and versions disagreed as loaded (a table its tables do not
    # describe) is written as the trail was shaped, so the tasks that read it find nothing to report
    return with_columns_from_sys(history)


def _track_sys_rows(
    history: Any,
    batches: Iterable[Any],
    counts: Counter[str],
    followed: list[dict[str, Any]],
    hold_from: int | None,
    resetlogs_id: int | None,
) -> Any:
    """The dictionary with the ``SYS`` row changes of ``batches``' committed transactions applied
    (the core's emitter, ``apply_ddl`` on; nothing of them is a trail row); the core's counts
    documents (their ``ddl_problems``, ``tables_followed``, ``dictionary_disagreements``) are
    appended to ``followed``."""
    sys_json = None
    stream = assemble_stream(
        batches, None, {"apply_ddl": True}, resetlogs_id=resetlogs_id, hold_from=hold_from,
        document=history.to_json(), track_sys=True,
    )  # fmt: skip
    for kind, out in stream:  # trail rows: none of SYS, and the assembly tasks emit any other
        if kind == "sys":
            sys_json = out["json"]
            counts.update({k: int(v) for k, v in out["counters"].items() if v})
        elif kind == "counts":
            followed.append(out)
    if sys_json is None or sys_json == history.sys_json:
        return history
    return history.with_sys(sys_json)
