"""The expected trail of a generated workload, from the SQL semantics only (never from the decoder).

Rules (the project's reading of shared/docs/trail-contract.md):

* only committed transactions, with their net changes after savepoint rollbacks (rules 1, 2);
* transactions in commit order (commit SCN; the generator's SCNs are unique, so no ties), the
  records of one transaction contiguous and in change order, ``trans_ind`` 0/1/2 or 3 (rules 6-8);
* INSERT: io_type 5, "A", every column (NULL as None); UPDATE without a key change: io_type 15, "A",
  key columns (current values) + SET columns (new values), ``changed_columns`` = SET columns;
  UPDATE of a key column: io_type 115 "PK_UPDATE", "A", ``before`` = old key values, ``columns`` =
  new key values + SET columns; DELETE: io_type 3, "B", key columns with old values (rules 9-12);
* tokens ``R`` (ROWID) on every record, ``L`` (commit SCN) and ``6`` (xid ``usn.slot.sqn``) on the
  first record of a transaction (rule 13); times are the LWN time of the record (rule 14);
  thread / sequence / RBA of the record holding the change's (first) redo vector (rule 15);
* LOB columns with a value in the image carry their complete value and a ``lob_columns`` descriptor
  (byte size as stored, pieces of ``LOB_PIECE_SIZE``) (rule 17; docs/pipeline-contract.md);
* DDL: one record, the only one of its transaction (``trans_ind`` 3), io_type 160, op "DDL", "A",
  columns OPERATION / OBJECT_TYPE / DDL_TEXT (the 24.1 text), no before image, key or ROWID, tokens
  ``L`` and ``6``; position and time of the record holding the 24.1 vector.

Open transactions never sit in memory: :class:`Spool` keeps at most ``SPOOL_MEMORY`` pending records
of a transaction and spills the rest to a temporary file; savepoint rollbacks truncate it.
"""

from __future__ import annotations

import json
import tempfile
from collections.abc import Iterator
from typing import IO, Any

from redo_lib.trail.model import IoType, LobColumn, TrailRecord, TransInd

__all__ = ["SPOOL_MEMORY", "Spool", "TrailSink", "ddl_record", "pending_record"]

SPOOL_MEMORY = 256


def pending_record(
    *,
    op: str,
    owner: str,
    table: str,
    obj: int,
    columns: list[tuple[str, str | None]],
    before: list[tuple[str, str | None]],
    key_columns: tuple[str, ...],
    changed: list[str],
    rowid: str,
    scn: int,
    subscn: int,
    op_time: str,
    thread: int,
    sequence: int,
    rba: str,
    lob_columns: list[tuple[str, int]] | None = None,
    before_image: list[tuple[str, str | None]] | None = None,
    before_lobs: list[tuple[str, int]] | None = None,
) -> dict[str, Any]:
    """One change of an open transaction: everything of a trail record but the commit facts;
    ``before_image`` / ``before_lobs``: an update's before record, a delete's full image (the image
    options, :class:`TrailSink`)."""
    images = {} if before_image is None else {"before_image": before_image, "before_lobs": before_lobs or []}
    return images | {
        "op": op,
        "owner": owner,
        "table": table,
        "obj": obj,
        "columns": columns,
        "before": before,
        "key_columns": list(key_columns),
        "changed_columns": changed,
        "rowid": rowid,
        "scn": scn,
        "subscn": subscn,
        "op_time": op_time,
        "thread": thread,
        "sequence": sequence,
        "rba": rba,
        "lob_columns": lob_columns or [],
    }


def ddl_record(
    *, operation: str, owner: str, table: str, obj: int, text: str, scn: int, subscn: int, op_time: str,
    thread: int, sequence: int, rba: str,
) -> dict[str, Any]:  # fmt: skip
    """The pending record of a DDL (``operation`` CREATE, ALTER, DROP or TRUNCATE)."""
    columns: list[tuple[str, str | None]] = [
        ("OPERATION", operation),
        ("OBJECT_TYPE", "TABLE"),
        ("DDL_TEXT", text),
    ]
    return pending_record(
        op="DDL", owner=owner, table=table, obj=obj, columns=columns, before=[], key_columns=(), changed=[],
        rowid="", scn=scn, subscn=subscn, op_time=op_time, thread=thread, sequence=sequence, rba=rba,
    )  # fmt: skip


_KINDS = {
    "DDL": (IoType.DDL, "A"),
    "INSERT": (IoType.INSERT, "A"),
    "UPDATE": (IoType.COMPRESSED_UPDATE, "A"),
    "PK_UPDATE": (IoType.PK_UPDATE, "A"),
    "DELETE": (IoType.DELETE, "B"),
}


class Spool:
    """The pending records of one open transaction: a memory buffer that spills to a temp file."""

    def __init__(self) -> None:
        self._mem: list[dict[str, Any]] = []
        self._file: IO[str] | None = None
        self._in_file = 0

    def __len__(self) -> int:
        return self._in_file + len(self._mem)

    def append(self, record: dict[str, Any]) -> None:
        self._mem.append(record)
        if len(self._mem) >= SPOOL_MEMORY:
            self._spill()

    def _spill(self) -> None:
        if self._file is None:
            self._file = tempfile.TemporaryFile("w+", encoding="utf-8")  # noqa: SIM115 - closed in close()
        self._file.seek(0, 2)
        for r in self._mem:
            self._file.write(json.dumps(r, ensure_ascii=False) + "\n")
        self._in_file += len(self._mem)
        self._mem.clear()

    def mark(self) -> int:
        """A savepoint: the number of records so far."""
        return len(self)

    def truncate(self, mark: int) -> None:
        """Drop the records after ``mark`` (rollback to savepoint)."""
        if mark >= self._in_file:
            del self._mem[mark - self._in_file :]
            return
        assert self._file is not None
        self._mem.clear()
        self._file.seek(0)
        for _ in range(mark):
            self._file.readline()
        self._file.truncate(self._file.tell())
        self._in_file = mark

    def __iter__(self) -> Iterator[dict[str, Any]]:
        if self._file is not None:
            self._file.seek(0)
            for _ in range(self._in_file):
                yield json.loads(self._file.readline())
        yield from self._mem

    def close(self) -> None:
        if self._file is not None:
            self._file.close()
            self._file = None
        self._mem.clear()
        self._in_file = 0


class TrailSink:
    """Writes committed transactions to ``trail.jsonl`` in commit order; with ``images``, as the
    image options shape them (``trail-images.jsonl``: ``update-befores`` and ``full-deletes``): each
    update's before record (B) ahead of its after record, each delete with its full image."""

    def __init__(self, out: IO[str], *, images: bool = False) -> None:
        self._out = out
        self._images = images
        self.records = 0
        self.transactions = 0

    def _shaped(self, spool: Spool) -> Iterator[dict[str, Any]]:
        for r in spool:
            if self._images and "before_image" in r:
                image = {"columns": r["before_image"], "lob_columns": r["before_lobs"]}
                if r["op"] == "DELETE":
                    r = r | image
                else:
                    yield r | image | {"before": [], "before_after": "B"}
            yield r

    def commit(self, spool: Spool, *, xid: str, commit_scn: int, commit_time: str) -> None:
        count = sum(1 for _ in self._shaped(spool)) if self._images else len(spool)
        if count == 0:
            return
        self.transactions += 1
        for i, r in enumerate(self._shaped(spool)):
            io_type, before_after = _KINDS[r["op"]]
            tokens = [] if r["op"] == "DDL" else [("R", r["rowid"])]
            if i == 0:
                tokens += [("L", str(commit_scn)), ("6", xid)]
            record = TrailRecord(
                xid=xid,
                commit_scn=commit_scn,
                commit_time=commit_time,
                trans_ind=TransInd.of(i, count),
                io_type=io_type,
                op=r["op"],
                before_after=r.get("before_after", before_after),
                owner=r["owner"],
                table=r["table"],
                obj=r["obj"],
                columns=tuple((k, v) for k, v in r["columns"]),
                before=tuple((k, v) for k, v in r["before"]),
                key_columns=tuple(r["key_columns"]),
                changed_columns=tuple(r["changed_columns"]),
                rowid=r["rowid"],
                scn=r["scn"],
                subscn=r["subscn"],
                op_time=r["op_time"],
                thread=r["thread"],
                sequence=r["sequence"],
                rba=r["rba"],
                tokens=tuple(tokens),
                lob_columns=tuple(LobColumn.of(name, size) for name, size in r.get("lob_columns", ())),
            )
            self._out.write(json.dumps(record.to_dict(), ensure_ascii=False) + "\n")
            self.records += 1
