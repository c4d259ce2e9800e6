"""LobAssembler on the log flows of seed 004.

Table (seed): CREATE TABLE T1 (C1 INT, C2 CHAR(30), C3 CLOB, C4 CLOB) DATA CAPTURE CHANGES, so C3 is
LOB column 2 and C4 column 3 (column numbers start at 0). Each test states the SQL it stands for;
the LOB records of a flow are written to one byte stream with the writer and read back with the
reader, the DMS and transaction records (not laid out by the seed) are given as events. Expected
values are the data the SQL wrote.
"""

from __future__ import annotations

import dataclasses

import pytest

from redo_lib.db2.lobs import (
    NOT_PRESENT,
    Db2Event,
    Db2EventKind,
    LobAssembler,
    LobChange,
    LobChangeKind,
    RowOperation,
    assemble,
)
from redo_lib.db2.records import (
    LobLogRecordHeader,
    LobOperation,
    LobRecord,
    OriginalOperation,
    iter_lob_records,
)
from redo_lib.db2.strings import VaryingStrings
from redo_lib.db2.writer import write_lob_records, write_varying_strings
from redo_lib.errors import AssemblyError, ErrorPolicy
from redo_lib.report import DecodeReport

TS, T1, T1_LOBS, OTHER = 2, 40, 41, 50  # table space, T1's object, its LOB object, another table
C3, C4 = 2, 3
INS, UPD, CAT, DEL = (OriginalOperation.INSERT, OriginalOperation.UPDATE, OriginalOperation.CONCAT,
                      OriginalOperation.DELETE)  # fmt: skip
K = Db2EventKind


def ev(kind: Db2EventKind, tid: int = 7, **kw: object) -> Db2Event:
    return Db2Event(kind=kind, tid=tid, **kw)  # type: ignore[arg-type]


def start(tid: int = 7) -> Db2Event:
    return ev(K.START_OUT_OF_ROW, tid)


def row(op: RowOperation, tid: int = 7, *, table: int = T1) -> Db2Event:
    return ev(K.ROW, tid, tablespace=TS, obj=table, operation=op, payload=b"dms row")


def lob(column: int, data: bytes, original: OriginalOperation = INS, *, tid: int = 7, byte_offset: int = 0,
        op: LobOperation = LobOperation.ADD_LOB_DATA, length: int | None = None, parent: int = T1) -> Db2Event:  # fmt: skip
    record = LobRecord(
        header=LobLogRecordHeader(operation=op, tablespace=TS, obj=T1_LOBS, parent_tablespace=TS, parent_obj=parent),
        lob_length=len(data) if length is None else length, byte_offset=byte_offset,
        original_operation=original, column=column, data=data,
    )  # fmt: skip
    return ev(K.LOB, tid, lob=record)


def flow(*events: Db2Event) -> list[Db2Event]:
    """The events with their LOB records replaced by those read back from one written byte stream."""
    stream = write_lob_records(e.lob for e in events if e.lob is not None)
    decoded = iter_lob_records(stream)
    out = []
    for e in events:
        if e.lob is not None:
            record = next(decoded)
            assert record == dataclasses.replace(e.lob, offset=record.offset)
            e = dataclasses.replace(e, lob=record, offset=record.offset)
        out.append(e)
    assert next(decoded, None) is None
    return out


def change(row_lobs: object) -> LobChange:
    assert isinstance(row_lobs, LobChange)
    return row_lobs


# -- seed flow: insert ---------------------------------------------------------------------------


def test_insert_attaches_both_clobs_to_the_row() -> None:
    # INSERT INTO T1 VALUES (1, 'x', 'C3 value', 'C4 value'); COMMIT
    events = flow(start(), lob(C3, b"C3 value"), lob(C4, b"C4 value"), row(RowOperation.INSERT), ev(K.COMMIT))
    committed, assembler = assemble(events)
    assert len(committed) == 1
    (inserted,) = committed[0].rows
    assert inserted.operation is RowOperation.INSERT and inserted.payload == b"dms row"
    c3, c4 = change(inserted.lob(C3)), change(inserted.lob(C4))
    assert (c3.kind, c3.data, c3.length, c3.original_operation) == (LobChangeKind.VALUE, b"C3 value", 8, INS)
    assert (c4.kind, c4.data) == (LobChangeKind.VALUE, b"C4 value")
    assert assembler.counters["pieces_attached"] == 2
    assert assembler.issues == [] and len(assembler) == 0


def test_lob_over_32k_is_concatenated_from_its_pieces_in_order() -> None:
    # INSERT of a 70000-byte C3: the LOB manager may split it over several add LOB data records
    value = bytes(range(256)) * 273 + b"end-of-value"  # 69900 bytes
    pieces = [value[i : i + 32768] for i in range(0, len(value), 32768)]
    events = flow(
        start(),
        *(lob(C3, p, byte_offset=i * 32768) for i, p in enumerate(pieces)),
        row(RowOperation.INSERT),
        ev(K.COMMIT),
    )
    committed, assembler = assemble(events)
    c3 = change(committed[0].rows[0].lob(C3))
    assert c3.data == value and c3.length == len(value) and c3.pieces == 3
    assert committed[0].rows[0].lob(C4) is NOT_PRESENT
    assert assembler.counters["offset_gap"] == 0


def test_zero_length_lob_has_no_record_and_is_not_present() -> None:
    # INSERT INTO T1 VALUES (1, 'x', '', NULL): no LOB record for zero-length data (seed)
    committed, _ = assemble([start(), row(RowOperation.INSERT), ev(K.COMMIT)])
    (inserted,) = committed[0].rows
    assert inserted.lobs == ()
    assert inserted.lob(C3) is NOT_PRESENT and inserted.lob(C3) is not None


# -- seed flow: insert rolled back ---------------------------------------------------------------


def test_rolled_back_insert_leaves_no_lob_change() -> None:
    # INSERT INTO T1 ...; ROLLBACK: undo insert, undo start of out-of-row data, abort
    events = flow(
        start(), lob(C3, b"C3 value"), lob(C4, b"C4 value"), row(RowOperation.INSERT),
        ev(K.UNDO_ROW, tablespace=TS, obj=T1, operation=RowOperation.INSERT),
        ev(K.UNDO_START_OUT_OF_ROW), ev(K.ABORT),
    )  # fmt: skip
    committed, assembler = assemble(events)
    assert committed == []
    assert assembler.counters["rows_rolled_back"] == 1
    assert assembler.counters["pieces_rolled_back"] == 2
    assert assembler.counters["transactions_rolled_back"] == 1
    assert assembler.issues == [] and len(assembler) == 0


def test_abort_without_undo_records_still_drops_the_rows_lobs() -> None:
    events = flow(start(), lob(C3, b"C3 value"), row(RowOperation.INSERT), ev(K.ABORT))
    committed, assembler = assemble(events)
    assert committed == []
    assert assembler.counters["pieces_rolled_back"] == 1


def test_undone_insert_inside_a_committed_transaction_is_removed_with_its_lobs() -> None:
    # INSERT row 1; SAVEPOINT; INSERT row 2; ROLLBACK TO SAVEPOINT; COMMIT
    events = flow(
        start(), lob(C3, b"row 1"), row(RowOperation.INSERT),
        start(), lob(C3, b"row 2"), row(RowOperation.INSERT),
        ev(K.UNDO_ROW, tablespace=TS, obj=T1, operation=RowOperation.INSERT), ev(K.UNDO_START_OUT_OF_ROW),
        ev(K.COMMIT),
    )  # fmt: skip
    committed, _ = assemble(events)
    assert [change(r.lob(C3)).data for r in committed[0].rows] == [b"row 1"]


# -- update, concatenation, NOT LOGGED -----------------------------------------------------------


def test_update_of_one_clob_leaves_the_other_not_present() -> None:
    # UPDATE T1 SET C3 = 'new C3' WHERE C1 = 1: delete old + insert new; only the insert is logged,
    # with original operation 4 (update)
    events = flow(start(), lob(C3, b"new C3", UPD), row(RowOperation.UPDATE), ev(K.COMMIT))
    committed, _ = assemble(events)
    (updated,) = committed[0].rows
    c3 = change(updated.lob(C3))
    assert (c3.kind, c3.data, c3.original_operation) == (LobChangeKind.VALUE, b"new C3", UPD)
    assert updated.lob(C4) is NOT_PRESENT


def test_concatenation_is_an_append_at_the_old_length() -> None:
    # C4 was 'C4 value' (8 bytes); UPDATE T1 SET C4 = C4 || ' more'
    events = flow(start(), lob(C4, b" more", CAT, byte_offset=8), row(RowOperation.UPDATE), ev(K.COMMIT))
    committed, _ = assemble(events)
    c4 = change(committed[0].rows[0].lob(C4))
    assert (c4.kind, c4.data, c4.byte_offset, c4.length) == (LobChangeKind.APPEND, b" more", 8, 5)
    assert committed[0].rows[0].lob(C3) is NOT_PRESENT


def test_not_logged_column_gives_the_amount_and_no_data() -> None:
    # C3 defined NOT LOGGED; INSERT of a 40000-byte C3: add LOB amount records replace add LOB data
    amount = LobOperation.ADD_LOB_AMOUNT
    events = flow(
        start(),
        lob(C3, b"", op=amount, length=32768),
        lob(C3, b"", op=amount, length=40000 - 32768, byte_offset=32768),
        lob(C4, b"logged C4"),
        row(RowOperation.INSERT),
        ev(K.COMMIT),
    )
    committed, _ = assemble(events)
    (inserted,) = committed[0].rows
    c3 = change(inserted.lob(C3))
    assert (c3.kind, c3.data, c3.length, c3.pieces) == (LobChangeKind.NOT_LOGGED, None, 40000, 2)
    assert change(inserted.lob(C4)).data == b"logged C4"


# -- column 65535 --------------------------------------------------------------------------------

# T2 (C1 INT, C2 VARCHAR(20000), C3 VARCHAR(20000)): C2 and C3 stored out of row
STRINGS = VaryingStrings.from_strings([b"", b"long C2", b"long C3"])


def test_out_of_row_strings_of_an_insert_are_readable_by_column() -> None:
    events = flow(start(), lob(65535, write_varying_strings(STRINGS)), row(RowOperation.INSERT), ev(K.COMMIT))
    committed, _ = assemble(events)
    strings = committed[0].rows[0].varying_strings(column_count=3)
    assert isinstance(strings, VaryingStrings)
    assert strings.out_of_row() == {1: b"long C2", 2: b"long C3"}


def test_update_of_out_of_row_strings_counts_the_delete_and_attaches_the_insert() -> None:
    # both records carry original operation 4; the delete LOB data record is information only
    new = VaryingStrings.from_strings([b"", b"new C2", b""])
    events = flow(
        start(),
        lob(65535, b"", UPD, op=LobOperation.DELETE_LOB_DATA, length=STRINGS.size),
        lob(65535, write_varying_strings(new), UPD),
        row(RowOperation.UPDATE),
        ev(K.COMMIT),
    )
    committed, assembler = assemble(events)
    strings = committed[0].rows[0].varying_strings(column_count=3)
    assert isinstance(strings, VaryingStrings) and strings.out_of_row() == {1: b"new C2"}
    assert assembler.counters["information_only_delete_lob_data"] == 1


def test_update_without_string_change_has_a_non_update_record_and_no_change() -> None:
    events = flow(
        start(), lob(65535, b"", UPD, op=LobOperation.NON_UPDATE_LOB_DATA, length=0), row(RowOperation.UPDATE),
        ev(K.COMMIT),
    )  # fmt: skip
    committed, assembler = assemble(events)
    assert committed[0].rows[0].varying_strings(column_count=3) is NOT_PRESENT
    assert assembler.counters["information_only_non_update_lob_data"] == 1


def test_delete_logs_the_old_strings_after_the_row_and_they_are_counted_not_attached() -> None:
    events = flow(row(RowOperation.DELETE), lob(65535, write_varying_strings(STRINGS), DEL), ev(K.COMMIT))
    committed, assembler = assemble(events)
    assert committed[0].rows[0].lobs == ()
    assert assembler.counters["delete_original_operation"] == 1
    assert assembler.issues == []


# -- what cannot be attached is counted ----------------------------------------------------------


def test_pieces_with_no_row_at_end_of_input_are_counted_and_reported() -> None:
    events = flow(start(), lob(C3, b"C3 value"), lob(C4, b"C4 value"))
    committed, assembler = assemble(events)
    assert committed == []
    assert assembler.counters["pieces_without_row_at_end"] == 2
    assert assembler.counters["transactions_open_at_end"] == 1
    report = DecodeReport()
    assembler.report_to(report)
    assert [s.kind for s in report.skipped] == ["assembly"]
    assert report.skipped[0].position.offset == 0  # the first waiting piece


def test_pieces_before_a_commit_with_no_row_are_counted() -> None:
    events = flow(start(), lob(C3, b"C3 value"), ev(K.COMMIT))
    committed, assembler = assemble(events)
    assert committed[0].rows == ()
    assert assembler.counters["pieces_without_row"] == 1


def test_pieces_of_another_table_are_not_attached() -> None:
    events = flow(start(), lob(C3, b"C3 value", parent=OTHER), row(RowOperation.INSERT), ev(K.COMMIT))
    committed, assembler = assemble(events)
    assert committed[0].rows[0].lob(C3) is NOT_PRESENT
    assert assembler.counters["table_mismatch"] == 1
    assert assembler.issues[0].details["problem"] == "table_mismatch"


def test_insert_pieces_before_an_update_row_are_an_operation_mismatch_under_raise() -> None:
    events = flow(start(), lob(C3, b"C3 value", INS), row(RowOperation.UPDATE))
    assembler = LobAssembler(policy=ErrorPolicy.RAISE)
    with pytest.raises(AssemblyError) as info:
        for e in events:
            assembler.feed(e)
    assert info.value.details["problem"] == "operation_mismatch"
    assert info.value.position.offset == events[1].offset


def test_transactions_keep_their_own_pieces_when_interleaved() -> None:
    events = flow(
        start(tid=1), lob(C3, b"tx 1", tid=1), start(tid=2), lob(C3, b"tx 2", tid=2),
        row(RowOperation.INSERT, tid=2), row(RowOperation.INSERT, tid=1), ev(K.COMMIT, tid=1), ev(K.ABORT, tid=2),
    )  # fmt: skip
    committed, assembler = assemble(events)
    assert [(t.tid, change(t.rows[0].lob(C3)).data) for t in committed] == [(1, b"tx 1")]
    assert assembler.counters["pieces_rolled_back"] == 1


def test_problem_positions_are_the_events_offsets_not_the_records() -> None:
    # the caller may give events their LSN; the record itself was parsed alone, at offset 0
    piece = dataclasses.replace(flow(lob(C3, b"C3 value"))[0], offset=0x1000)
    _, assembler = assemble([start(), piece])
    assert assembler.issues[0].position.offset == 0x1000
