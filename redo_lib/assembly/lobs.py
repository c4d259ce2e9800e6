"""LobStore: the LOB pieces of committed transactions, and how a LOB locator becomes the LOB's data.

LOB data reaches the redo as pieces (5.1 opc 26.1 + 26.2 with a kdli info item naming the LOB id and
page, and a fill item with the page bytes; ``ChangeEvent`` kind LOB), before or after the row change
whose locator names them, in the same transaction (redo-format §6.7). A committed transaction's
pieces are put in the store (``add``) before its row changes are shaped; the locator of a row change
(§7.8) then names the value: in-row data directly, or a page list whose DBAs name the pieces, read
in page order (``resolve``). Pieces are keyed by (LOB id, page DBA): a page rewritten by a later
statement gets a new DBA, so each locator names exactly the version of every page it was written
with, whatever order the pieces came in. Pages a locator names that an earlier transaction wrote
(an append to a LOB committed before) are found as long as the store lives: one store per emitter,
so for the batch (docs/lobs.md).

Memory: the page bytes go to a temporary file at once; only the index (LOB id, DBA) -> (offset,
length, page) stays in memory. Pieces of a transaction that no row change of it named are counted
(``unattached``), never dropped silently. Rolled-back pieces never get here: the transaction table
drops them (whole rollback) or pops them (rollback to savepoint).

A mutable state holder (style.md §6.5). Layer 3.
"""

from __future__ import annotations

import os
import tempfile
import weakref
from collections.abc import Iterable
from typing import BinaryIO

from redo_lib.assembly.events import ChangeEvent, EventKind
from redo_lib.format.model import LobLocator

PageKey = tuple[bytes, int]  # (LOB id, page DBA)


class LobStore:
    """LOB pages by (LOB id, DBA), their bytes in a temporary file."""

    def __init__(self, spill_dir: str | None = None) -> None:
        self._spill_dir = spill_dir
        self._file: BinaryIO | None = None
        self._index: dict[PageKey, tuple[int, int, int]] = {}  # -> (offset, length, page number)
        self._pending: set[PageKey] = set()  # pieces of the current transaction not named yet
        self.pieces = 0
        self.bytes = 0

    def __len__(self) -> int:
        return len(self._index)

    def add(self, events: Iterable[ChangeEvent]) -> int:
        """Store the LOB pieces of one committed transaction (its events in redo order); returns how
        many. Starts a new transaction: pieces still unnamed from the previous one stay counted."""
        self._pending = set()
        count = 0
        for event in events:
            if event.kind is not EventKind.LOB:
                continue
            key = (event.lob_id, event.bdba)
            if self._file is None:
                # the store owns the file for its lifetime; close() releases it
                self._file = tempfile.TemporaryFile(prefix="redotrail-lob-", dir=self._spill_dir)  # noqa: SIM115
                # closed by close(), or when the store goes away with its emitter
                weakref.finalize(self, self._file.close)
            self._file.seek(0, os.SEEK_END)
            offset = self._file.tell()
            self._file.write(event.lob_data)
            self._index[key] = (offset, len(event.lob_data), event.lob_page)
            self._pending.add(key)
            count += 1
            self.pieces += 1
            self.bytes += len(event.lob_data)
        return count

    def resolve(self, locator: LobLocator) -> bytes | None:
        """The LOB's data named by ``locator``; ``None`` when a page it names is not in the store, its
        pages are out of order, or its form is one we cannot resolve (LOB index, SecureFile extents)."""
        if locator.inline is not None:
            return locator.inline
        if not locator.dbas:
            return None
        parts = []
        expected_page = None
        for dba in locator.dbas:
            key = (locator.lob_id, dba)
            entry = self._index.get(key)
            if entry is None or self._file is None:
                return None
            offset, length, page = entry
            if expected_page is not None and page != expected_page:
                return None
            expected_page = page + 1
            self._file.seek(offset)
            parts.append(self._file.read(length))
            self._pending.discard(key)
        if len(parts[-1]) != locator.last_page_bytes:
            return None
        return b"".join(parts)

    def unattached(self) -> int:
        """Pieces of the last ``add``-ed transaction that no resolved locator named."""
        return len(self._pending)

    def close(self) -> None:
        if self._file is not None:
            self._file.close()
            self._file = None
        self._index.clear()
        self._pending.clear()
