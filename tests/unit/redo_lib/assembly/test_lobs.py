"""LOB pieces: the locator forms of redo-format §7.8, the core's LOB store that reassembles pages in
the order a locator names them (through ``pipeline.assemble_and_emit``: the transaction table and
the emitter), rollback of pieces, and the change buffer's byte budget. Expected values are built by
hand from the bytes written, never from the decoder."""

from __future__ import annotations

import datetime as dt
import json
from dataclasses import replace
from pathlib import Path

import pytest

from redo_lib.assembly.events import ChangeEvent, EventKind
from redo_lib.dictionary import DictionaryHistory
from redo_lib.errors import FormatError
from redo_lib.format.lobs import parse_lob_locator
from redo_lib.format.writer import write_lob_locator
from redo_lib.native import native
from redo_lib.pipeline import assemble_and_emit
from tests.unit.native.core_assembly import feed, spill_files

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


# DOCS(ID NUMBER PRIMARY KEY, DATA BLOB): a BLOB renders as the upper-case hex of its data
DOCS = {
    "format": "redotrail-dictionary", "format_version": 1, "db_charset": "AL32UTF8",
    "national_charset": "AL16UTF16",
    "tables": [{
        "obj": 70, "dataobj": 70, "owner": "APP", "name": "DOCS", "valid_from_scn": 1,
        "columns": [{"segcol_no": 1, "name": "ID", "type": "NUMBER", "length": 22, "nullable": False},
                    {"segcol_no": 2, "name": "DATA", "type": "BLOB", "length": 4000, "nullable": True}],
        "constraints": [{"name": "PK", "type": "P", "columns": ["ID"]}],
    }],
}  # fmt: skip


def _transaction(sqn: int, *events: ChangeEvent) -> list[ChangeEvent]:
    """BEGIN, ``events``, COMMIT of transaction 3.4.<sqn>, at increasing SCNs and positions."""
    out = [_event(EventKind.BEGIN), *events, _event(EventKind.COMMIT)]
    return [replace(e, sqn=sqn, scn=100 * sqn + i, block=2 + 10 * sqn + i) for i, e in enumerate(out)]


def _row(op: int, key: bytes, locator: bytes) -> ChangeEvent:
    """An INSERT (11.2) or UPDATE (11.5) of DOCS without supplemental logging: ID and the locator."""
    return _event(EventKind.CHANGE, redo_op=op, after=((0, key), (1, locator)), bdba=0x4000, row_slot=1)


def test_store_reassembles_pages_in_locator_order_whatever_the_redo_order() -> None:
    pages = lambda dbas, last: write_lob_locator(LOB, dbas=dbas, last_page_bytes=last)  # noqa: E731
    events = [
        # INSERT INTO docs VALUES (1, 'hello world'): page 1 written before the row, page 0 after it
        *_transaction(1, _piece(1, 0x20, b"world"), _row(0x0B02, b"\xc1\x02", pages([0x10, 0x20], 5)),
                      _piece(0, 0x10, b"hello ")),
        # an append in a later transaction: page 1 rewritten under a new DBA, page 0 from before
        *_transaction(2, _piece(1, 0x30, b"world!"), _piece(2, 0x31, b"?"),
                      _row(0x0B05, b"\xc1\x02", pages([0x10, 0x30, 0x31], 1))),
        # a piece named by no locator: counted
        *_transaction(3, _piece(0, 0x40, b"orphan"), _row(0x0B05, b"\xc1\x02", write_lob_locator(LOB, inline=b"x"))),
        # a locator naming a page that no transaction wrote: unresolved, the locator as hex
        *_transaction(4, _row(0x0B05, b"\xc1\x02", missing := pages([0x10, 0x99], 1))),
    ]  # fmt: skip
    result = assemble_and_emit(events, DictionaryHistory.from_json(json.dumps(DOCS)))
    data = [r.to_dict()["columns"]["DATA"] for r in result.trail]
    assert data == [
        b"hello world".hex().upper(),
        b"hello world!?".hex().upper(),
        b"x".hex().upper(),
        missing.hex(),
    ]
    assert [r.to_dict()["lob_columns"] for r in result.trail[:2]] == [
        [{"column": "DATA", "bytes": 11, "pieces": 1}], [{"column": "DATA", "bytes": 13, "pieces": 1}]
    ]  # fmt: skip
    assert result.counts["lobs"] == {
        "lob_pieces": 5, "lob_pieces_unattached": 1,
        "lob_values_out_of_row": 2, "lob_values_in_row": 1, "lob_values_unresolved": 1,
        # the last row's page 0x99 was never written: named with its table, column and reason
        "unresolved_by_column": {"APP.DOCS.DATA": {"page not in this batch": 1}},
    }  # fmt: skip


def test_rollback_to_savepoint_pops_lob_pieces() -> None:
    table = native.TransactionTable()
    committed = feed(table, [
        _event(EventKind.BEGIN),
        _piece(0, 0x10, b"kept"),
        _piece(0, 0x11, b"undone"),
        _event(EventKind.PARTIAL_ROLLBACK, sqn=-1, redo_op=0),  # lone 5.6, opc 26.1
        _event(EventKind.COMMIT, scn=101),
    ])  # fmt: skip
    (txn,) = committed
    assert [e.lob_data for e in txn.changes] == [b"kept"]
    assert table.counters["lob_pieces_rolled_back"] == 1


def test_buffer_spills_by_lob_bytes(tmp_path: Path) -> None:
    # ten 40-byte pages in one transaction, 1,000 events but only 100 bytes allowed in memory
    table = native.TransactionTable(memory_limit=1000, memory_bytes=100, spill_dir=str(tmp_path))
    feed(table, [_event(EventKind.BEGIN), *(_piece(page, page, bytes(40)) for page in range(10))])
    assert spill_files(tmp_path) == 1
    # a lone 5.6 pops the newest piece (page 9), read back from the spill file if it went there
    feed(table, [_event(EventKind.PARTIAL_ROLLBACK, sqn=-1, redo_op=0)])
    (txn,) = feed(table, [_event(EventKind.COMMIT, scn=101)])
    assert [e.lob_page for e in txn.changes] == list(range(9))
    assert table.counters["lob_pieces_rolled_back"] == 1


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
