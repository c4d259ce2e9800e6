"""LOB values of the generator: where a CLOB / NCLOB / BLOB value goes and what redo it writes.

A value of at most ``IN_ROW_LIMIT`` bytes (as stored: CLOB data in AL16UTF16, docs/lobs.md) stays in
the row: the locator carries it (redo-format §7.8, flg2 0x0100); an empty LOB (EMPTY_CLOB()) is an
in-row locator without data, NULL is no locator at all. A larger value goes to LOB pages of
``page_size`` bytes (a data block minus its overhead, 8132 for 8 KB as in the real 11.17 records): the
locator lists the pages' DBAs (§7.8, flg2 0x0400) and each page is written by one LOB piece (5.1 opc
26.1 + 26.2 with a kdli info item (LOB id, page number) and a fill item (the bytes), §5.10).

Pages are copy-on-write, as BasicFile LOB chunks are: every page written gets a fresh DBA, so an
append (DBMS_LOB.APPEND) keeps the DBAs of the full pages it does not touch, rewrites the last,
partly filled page under a new DBA and adds new pages; a full replace (UPDATE ... SET c = :v) writes a
new LOB (new LOB id). State machine of the LOB segment's space (style §6.5).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import final

from redo_lib.format.lobs import parse_lob_locator
from redo_lib.format.writer import write_lob_locator, write_securefile_locator
from redo_lib.synth.database import make_dba

__all__ = ["IN_ROW_LIMIT", "LobPage", "LobSpace"]

IN_ROW_LIMIT = 3964  # bytes of LOB data Oracle keeps in the row (ENABLE STORAGE IN ROW)
_PAGE_OVERHEAD = 60
_LOB_FILE = 6  # relative file of the LOB segments
_LOB_ID_PREFIX = b"\x00\x00\x00\x01\x00\x00"


@final
@dataclass(frozen=True, slots=True)
class LobPage:
    """One LOB page to write: LOB id, page number, DBA, the bytes and the column."""

    lob_id: bytes
    page: int
    dba: int
    data: bytes
    column: int = 0  # the LOB column's segcol# (a 26.6 page image's suplog item)


class LobSpace:
    """LOB ids and LOB page DBAs of one database."""

    def __init__(self, data_block_size: int) -> None:
        self.page_size = data_block_size - _PAGE_OVERHEAD
        self._next_id = 1
        self._next_block = 0x100

    def _lob_id(self) -> bytes:
        self._next_id += 1
        return _LOB_ID_PREFIX + self._next_id.to_bytes(4, "big")

    def _pages(self, lob_id: bytes, data: bytes, first_page: int) -> list[LobPage]:
        out = []
        for n, start in enumerate(range(0, len(data), self.page_size)):
            self._next_block += 1
            out.append(
                LobPage(
                    lob_id,
                    first_page + n,
                    make_dba(_LOB_FILE, self._next_block),
                    data[start : start + self.page_size],
                )
            )
        return out

    def _locator(self, lob_id: bytes, data: bytes, dbas: list[int]) -> bytes:
        if not dbas:
            return write_lob_locator(lob_id, inline=data, chunk=self.page_size)
        last = len(data) - (len(dbas) - 1) * self.page_size
        return write_lob_locator(lob_id, dbas=dbas, last_page_bytes=last)

    def store(
        self, data: bytes, *, securefile: str = "", locator_pages: int = 0
    ) -> tuple[bytes, list[LobPage]]:
        """A new LOB holding ``data``: (locator, pages to write). SecureFile (``securefile`` set): the
        locator carries the data (flg2 0x0800) or extents naming the pages, whose DBAs are consecutive
        (flg2 0x4000); ``list_pages``: the 12c+ list-page form instead (a form the decoder counts as
        not read: the generator writes it to test that count). BasicFile with ``locator_pages``: the
        locator lists that many DBAs and counts all pages; the LOB index names the others."""
        lob_id = self._lob_id()
        if len(data) <= IN_ROW_LIMIT:
            if securefile:
                return write_securefile_locator(lob_id, inline=data), []
            return self._locator(lob_id, data, []), []
        pages = self._pages(lob_id, data, 0)
        if securefile == "list_pages":
            return write_securefile_locator(lob_id, length=len(data), list_page=pages[0].dba), pages
        if securefile:
            extents = [(p.dba, len(chunk)) for p, chunk in _runs(pages)]
            return write_securefile_locator(lob_id, length=len(data), extents=extents), pages
        if locator_pages and len(pages) > locator_pages:
            last = len(data) - (len(pages) - 1) * self.page_size
            dbas = [p.dba for p in pages[:locator_pages]]
            return write_lob_locator(lob_id, dbas=dbas, last_page_bytes=last, page_count=len(pages)), pages
        return self._locator(lob_id, data, [p.dba for p in pages]), pages

    def append(self, locator: bytes, old: bytes, added: bytes) -> tuple[bytes, list[LobPage]]:
        """DBMS_LOB.APPEND of ``added`` to the LOB of ``locator`` holding ``old``: same LOB id;
        full pages kept, the last partial page rewritten, new pages added."""
        current = parse_lob_locator(locator)
        data = old + added
        if len(data) <= IN_ROW_LIMIT:
            return self._locator(current.lob_id, data, []), []
        keep = list(current.dbas)
        if current.inline is not None:
            keep = []
        elif current.last_page_bytes < self.page_size:
            keep = keep[:-1]
        start = len(keep) * self.page_size
        pages = self._pages(current.lob_id, data[start:], len(keep))
        return self._locator(current.lob_id, data, keep + [p.dba for p in pages]), pages

    def rewrite(self, locator: bytes, new: bytes, touched: tuple[int, int]) -> tuple[bytes, list[LobPage]]:
        """A write through the locator (DBMS_LOB.WRITE, TRIM, ERASE) leaving the LOB of ``locator``
        holding ``new``; ``touched``: the byte range of ``new`` the call wrote. Same LOB id. An in-row
        LOB stays in the row while it fits (its inline data rewritten), else all its pages are new.
        An out-of-row LOB stays out of the row (Oracle does not move it back in), but for a length of
        0 (an empty in-row locator under the same id): a page keeps its DBA when the call did not
        write into it and its length is unchanged; any other page is written under a new DBA (BasicFile
        chunks are copy-on-write); pages past the new end go."""
        current = parse_lob_locator(locator)
        if not current.dbas:
            if len(new) <= IN_ROW_LIMIT:
                return self._locator(current.lob_id, new, []), []
            pages = self._pages(current.lob_id, new, 0)
            return self._locator(current.lob_id, new, [p.dba for p in pages]), pages
        if not new:
            return self._locator(current.lob_id, b"", []), []
        size = self.page_size
        count = (len(new) + size - 1) // size
        old_last = current.last_page_bytes
        dbas: list[int] = []
        written: list[LobPage] = []
        lo, hi = touched
        for k in range(count):
            start, end = k * size, min((k + 1) * size, len(new))
            old_bytes = size if k < len(current.dbas) - 1 else old_last
            kept = k < len(current.dbas) and not (lo < end and hi > start) and old_bytes == end - start
            if kept:
                dbas.append(current.dbas[k])
                continue
            self._next_block += 1
            page = LobPage(current.lob_id, k, make_dba(_LOB_FILE, self._next_block), new[start:end])
            written.append(page)
            dbas.append(page.dba)
        return self._locator(current.lob_id, new, dbas), written


def _runs(pages: list[LobPage]) -> list[tuple[LobPage, list[LobPage]]]:
    """Pages in runs of consecutive DBAs of at most 65,535 pages: (first page, the run), one SecureFile
    extent each."""
    runs: list[tuple[LobPage, list[LobPage]]] = []
    for p in pages:
        if runs and p.dba == runs[-1][1][-1].dba + 1 and len(runs[-1][1]) < 0xFFFF:
            runs[-1][1].append(p)
        else:
            runs.append((p, [p]))
    return runs
