"""LOB pieces: the locator forms of redo-format §7.8, the store that reassembles pages in the order
a locator names them, rollback of pieces, and the buffer's byte budget. Expected values are built
by hand from the bytes written, never from the decoder."""

from __future__ import annotations

import datetime as dt

import pytest

from redo_lib.assembly.carry import ChangeBuffer
from redo_lib.assembly.events import ChangeEvent, EventKind
from redo_lib.assembly.lobs import LobStore
from redo_lib.assembly.transactions import TransactionTable
from redo_lib.errors import FormatError
from redo_lib.format.lobs import parse_lob_locator
from redo_lib.format.writer import write_lob_locator

T0 = dt.datetime(2024, 1, 15, 10, 0, 0)
LOB = b"\x00\x00\x00\x01\x00\x00\x00\x00\x00\x07"


def _event(kind: EventKind, **kw: object) -> ChangeEvent:
    base: dict[str, object] = {"usn": 3, "slot": 4, "sqn": 5, "thread": 1, "seq": 1, "block": 2, "offset": 16}
    base |= {"scn": 100, "subscn": 1, "time": T0, "obj": 70}
    base.update(kw)
    return ChangeEvent(kind=kind, **base)  # type: ignore[arg-type]


def _piece(page: int, dba: int, data: bytes) -> ChangeEvent:
    return _event(EventKind.LOB, lob_id=LOB, lob_page=page, bdba=dba, lob_data=data, redo_op=0x1A02)


def test_locator_forms_round_trip() -> None:
    inline = parse_lob_locator(write_lob_locator(LOB, inline=b"abc", chunk=8132))
    assert (inline.lob_id, inline.inline, inline.flags & 0x04) == (LOB, b"abc", 0x04)
    empty = parse_lob_locator(write_lob_locator(LOB, inline=b""))
    assert empty.inline == b""  # EMPTY_CLOB(): a locator without data
    pages = parse_lob_locator(write_lob_locator(LOB, dbas=[0x1800101, 0x1800105], last_page_bytes=7))
    assert (pages.dbas, pages.page_count, pages.last_page_bytes, pages.inline) == (
        (0x1800101, 0x1800105),
        2,
        7,
        None,
    )
    index = parse_lob_locator(bytes(10) + LOB)  # flags 0x04 clear: only the LOB index resolves it
    assert index.resolved_by_index and index.inline is None


def test_store_reassembles_pages_in_locator_order_whatever_the_redo_order() -> None:
    store = LobStore()
    assert store.add([_piece(1, 0x20, b"world"), _event(EventKind.CHANGE), _piece(0, 0x10, b"hello ")]) == 2
    locator = parse_lob_locator(write_lob_locator(LOB, dbas=[0x10, 0x20], last_page_bytes=5))
    assert store.resolve(locator) == b"hello world"
    assert store.unattached() == 0
    # an append in a later transaction: page 1 rewritten under a new DBA, page 0 from before
    store.add([_piece(1, 0x30, b"world!"), _piece(2, 0x31, b"?")])
    appended = parse_lob_locator(write_lob_locator(LOB, dbas=[0x10, 0x30, 0x31], last_page_bytes=1))
    assert store.resolve(appended) == b"hello world!?"
    store.add([_piece(0, 0x40, b"orphan")])
    assert store.unattached() == 1  # named by no locator: counted
    missing = parse_lob_locator(write_lob_locator(LOB, dbas=[0x10, 0x99], last_page_bytes=1))
    assert store.resolve(missing) is None
    store.close()


def test_rollback_to_savepoint_pops_lob_pieces() -> None:
    table = TransactionTable()
    table.feed(_event(EventKind.BEGIN))
    table.feed(_piece(0, 0x10, b"kept"))
    table.feed(_piece(0, 0x11, b"undone"))
    table.feed(_event(EventKind.PARTIAL_ROLLBACK, sqn=-1, redo_op=0))  # lone 5.6, opc 26.1
    txn = table.feed(_event(EventKind.COMMIT, scn=101))
    assert txn is not None
    assert [e.lob_data for e in txn] == [b"kept"]
    assert table.counters["lob_pieces_rolled_back"] == 1 and txn.changes.lob_pieces == 1


def test_buffer_spills_by_lob_bytes() -> None:
    buffer = ChangeBuffer(memory_limit=1000, memory_bytes=100)
    for page in range(10):
        buffer.append(_piece(page, page, bytes(40)))
    assert buffer.spilled > 0 and buffer.lob_pieces == 10
    assert [e.lob_page for e in buffer] == list(range(10))
    assert buffer.pop().lob_page == 9 and buffer.lob_pieces == 9
    buffer.close()


@pytest.mark.parametrize(
    "locator",
    [
        write_lob_locator(LOB, inline=b"abcdef", chunk=8132),
        write_lob_locator(LOB, dbas=[0x1800101, 0x1800105], last_page_bytes=7),
    ],
    ids=["in-row", "page-list"],
)
def test_a_cut_locator_is_a_format_error_never_a_shorter_value(locator: bytes) -> None:
    for cut in range(len(locator)):
        with pytest.raises(FormatError, match="LOB locator"):
            parse_lob_locator(locator[:cut])
