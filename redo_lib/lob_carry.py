"""LOB pages carried from batch to batch: the batch folder's ``lobs/`` (docs/lobs.md, "Across
batches"; docs/pipeline-contract.md).

An append to a LOB (DBMS_LOB.APPEND) names pages written any time before, often in an earlier
batch, and the emitter's LOB store lives for one batch. So each batch carries out the committed
LOB pages a later batch may still need (the core decides which: ``redo_core::trail::lob_carry``,
the pages each LOB's newest locator names) and the LOB ids it saw go (a row deleted, a LOB
replaced), and the next batch reads them in before its first transaction, as open transactions
are carried in ``open/``. Batch N reads what batch N-1 wrote, never its own folder, so a rerun
writes the same files.

Files: ``lobs/part-<task>.parquet``, one per assembly task that has something to carry (none when it
has not), ``native.lob_pages_schema()`` (``lob_id``, ``dba``, ``page``, ``data``; a LOB id that went
has the other three null), written whole (``storage.sources.output_file``), one row group per
record batch of about ``CHUNK_BYTES`` of page data. Read in two passes, row group by row group:
first the LOB ids that went (two small columns), then the pages, into the store's temporary file:
a carried store is never in memory whole, only its index.

Layer "top": imports storage, native, exchange, the events' kinds and pyarrow only.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Iterator, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from redo_lib.errors import AssemblyError, Position, RedoError, locate
from redo_lib.storage.sources import open_parquet, parquet_writer

if TYPE_CHECKING:
    from redo_lib._native import Emitter

#: the batch folder's member the carried LOB pages are in, beside ``open/``
LOBS = "lobs"
#: page data per record batch (and row group) of a carried file
CHUNK_BYTES = 8 << 20
#: pages per record batch read in (8 KB pages: about 4 MB)
READ_ROWS = 512


def lob_pages_schema() -> Any:
    """The carried LOB pages' schema, defined once, in the core."""
    import pyarrow as pa

    from redo_lib.native import native

    return pa.schema(native.lob_pages_schema())


def lobs_beside(carried_in: str | None) -> str | None:
    """Where the previous batch's carried LOB pages are: ``lobs/`` beside the ``open/`` folder the
    manifest's ``carried_in`` names (a local path or an ``s3://`` prefix); None without it (the first
    batch of a chain: nothing is carried in)."""
    if not carried_in:
        return None
    text = os.fspath(carried_in).rstrip("/")
    if text.startswith("s3://"):
        return f"{text.rsplit('/', 1)[0]}/{LOBS}"
    return str(Path(text).parent / LOBS)


def part_name(task: int) -> str:
    return f"part-{task:05d}.parquet"


def read_carried_lobs(emitter: Emitter, locations: Iterable[str]) -> None:
    """Read the previous batch's carried LOB pages into ``emitter``'s store (``native.Emitter``),
    before its first transaction: the LOB ids that went from every file first, then the pages, a
    record batch of ``READ_ROWS`` at a time. A file of another schema, or a bad row, is a
    ``RedoError`` naming the file."""
    import pyarrow as pa
    import pyarrow.compute as pc

    schema = lob_pages_schema()
    files = list(locations)
    for gone in (True, False):
        for location in files:
            try:
                # no pre-buffering: with it, iter_batches read ahead most of a 512 MB file (peak RSS
                # 640 MB against 150 MB without; docs/benchmarks.md)
                with open_parquet(location, pre_buffer=False) as file:
                    if not file.schema_arrow.equals(schema):
                        raise AssemblyError(
                            f"not a file of carried LOB pages: its schema is {file.schema_arrow}",
                            position=Position(file=location),
                        )
                    if gone:
                        for batch in file.iter_batches(batch_size=65536, columns=["lob_id", "dba"]):
                            ids = batch.filter(pc.is_null(batch.column("dba")))
                            if ids.num_rows:
                                n = ids.num_rows
                                emitter.carry_in_lobs(pa.record_batch(
                                    [ids.column("lob_id"), ids.column("dba"), pa.nulls(n, pa.int64()),
                                     pa.nulls(n, pa.binary())], schema=schema,
                                ))  # fmt: skip
                        continue
                    for batch in file.iter_batches(batch_size=READ_ROWS):
                        pages = batch.filter(pc.is_valid(batch.column("dba")))
                        if pages.num_rows:
                            emitter.carry_in_lobs(pages)
            except RedoError as exc:
                raise locate(exc, file=location) from None


def carried_lobs(emitter: Emitter, chunk_bytes: int = CHUNK_BYTES) -> Iterator[Any]:
    """What ``emitter`` carries out, once its last transaction is emitted: record batches of
    ``lob_pages_schema()`` (the LOB ids that went, then the pages kept, in a fixed order: a rerun
    gives the same). Its ``lob_*`` counters are complete once this is exhausted."""
    import pyarrow as pa

    emitter.carry_out_lobs()
    while (batch := emitter.next_carried_lobs(chunk_bytes)) is not None:
        yield pa.record_batch(batch)


class LobPagesWriter:
    """A task's carried LOB pages into one Parquet file, opened on the first record batch (none, no
    file: ``open_path()`` gives the local path to write), one row group per batch."""

    def __init__(self, open_path: Callable[[], Any]) -> None:
        self.open_path = open_path
        self.writer: Any = None
        self.rows = 0

    def write(self, batch: Any) -> None:

        if not batch.num_rows:
            return
        if self.writer is None:
            self.writer = parquet_writer(self.open_path(), lob_pages_schema())
        self.writer.write_batch(batch, row_group_size=batch.num_rows)
        self.rows += batch.num_rows

    def close(self) -> int:
        if self.writer is not None:
            self.writer.close()
        return self.rows


def write_carried_lobs(emitter: Emitter, location: str, chunk_bytes: int = CHUNK_BYTES) -> int:
    """:func:`carried_lobs` into ``location`` (a local path or an ``s3://`` URL; it appears whole,
    and not at all when nothing is carried); how many rows."""
    import contextlib

    from redo_lib.storage.sources import output_file

    with contextlib.ExitStack() as stack:
        writer = LobPagesWriter(lambda: stack.enter_context(output_file(location, suffix=".parquet")))
        for batch in carried_lobs(emitter, chunk_bytes):
            writer.write(batch)
        return writer.close()


def event_slots(batch: Any) -> tuple[set[int], set[tuple[int, int]]]:
    """Of an events record batch: the transaction slots (``exchange.slot_keys``) that wrote LOB
    pages, and the (obj, slot key) of the row changes holding an out-of-row LOB locator
    (``native.locator_slots``; they may name pages another transaction wrote, a ``DBMS_LOB.TRIM``
    at a page boundary). The Spark assemble gives both to its LOB task, whose store holds the pages
    (the locators' only for tables with a LOB column, ``batches.lob_table_slots``): the decode units
    report them (``batches.decode_unit``), the driver reads them of the carried ``open/`` files
    (:func:`carried_slots`)."""
    import pyarrow.compute as pc

    from redo_lib.assembly.events import EventKind
    from redo_lib.exchange import slot_keys
    from redo_lib.native import native

    lobs = batch.filter(pc.equal(batch.column("kind"), int(EventKind.LOB)))
    pages = set(slot_keys(lobs.column("usn"), lobs.column("slot")).tolist()) if lobs.num_rows else set()
    located = native.locator_slots(batch)  # (obj, usn, slot)
    keys = slot_keys([usn for _, usn, _ in located], [slot for _, _, slot in located]).tolist()
    return pages, {(obj, key) for (obj, _, _), key in zip(located, keys, strict=True)}


def carried_slots(locations: Iterable[str]) -> tuple[set[int], set[tuple[int, int]]]:
    """:func:`event_slots` of the open transactions carried in (the previous batch's ``open/``
    files), in one read of the columns it looks at, a row group at a time: such a transaction may
    append to a LOB of an earlier batch, or rewrite a locator naming its pages, and commit in this
    one without writing a LOB page here."""
    columns = ["kind", "usn", "slot", "obj", "after", "supp_columns", "rows"]
    pages: set[int] = set()
    located: set[tuple[int, int]] = set()
    for location in locations:
        with open_parquet(location) as file:
            for group in range(file.metadata.num_row_groups):
                table = file.read_row_group(group, columns=columns)
                for batch in table.combine_chunks().to_batches():
                    wrote, named = event_slots(batch)
                    pages |= wrote
                    located |= named
    return pages, located


def check_carried_lobs(previous: Mapping[str, Any] | None, lobs: Mapping[str, Any], location: str) -> None:
    """Every LOB page the previous batch carried out (its counts.json ``lobs.lob_pages_carried_out``)
    was read in here (``lob_pages_carried_in``) or left out as a page of a LOB that went
    (``lob_pages_pruned_in``): a missed file would leave later appends unresolved without a trace.
    ``lobs``: this batch's ``lobs`` counts; nothing to check when the previous batch counted none."""
    out = ((previous or {}).get("lobs") or {}).get("lob_pages_carried_out")
    if out is None:
        return
    came = int(lobs.get("lob_pages_carried_in", 0)) + int(lobs.get("lob_pages_pruned_in", 0))
    if came != int(out):
        raise AssemblyError(
            f"the previous batch carried out {out} LOB pages, this batch's assembly read in {came}",
            position=Position(file=location),
        )


__all__ = [
    "CHUNK_BYTES", "LOBS", "LobPagesWriter", "carried_lobs", "carried_slots", "check_carried_lobs",
    "event_slots", "lob_pages_schema",
    "lobs_beside", "part_name", "read_carried_lobs", "write_carried_lobs",
]  # fmt: skip
