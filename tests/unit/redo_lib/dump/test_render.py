"""dump/render.py: model -> dump text. Round trips through dump/parse.py, and diffs against the dump
text the records came from (OLR's 23.6 dumps, seed 000) with the expected differences listed in
tests/fixtures/dumps/render_differences.tsv, one reason each (pyelftools' readelf pattern).
"""

from __future__ import annotations

import dataclasses
import difflib
import re
from collections import Counter
from pathlib import Path

import pytest

from redo_lib.dump import parse_dump
from redo_lib.dump.render import render_column, render_header, render_log, render_record
from redo_lib.format.model import (
    ChangeVector,
    Kdo,
    KdoOpCode,
    KtbRedo,
    Opaque,
    QmiRow,
    RedoRecord,
    RowOperation,
    SessionInfo,
    Supplemental,
    TransactionEnd,
    UndoRecord,
)
from redo_lib.scn import Uba, Xid

REPO = Path(__file__).resolve().parents[4]
SHARED = REPO.parent / "shared"
OLR = SHARED / "realdata" / "rophy-olr-example-free-23" / "olr-reference"
FIXTURES = REPO / "tests" / "fixtures" / "dumps"
CASES = [
    "single_row_insert",
    "single_row_update",
    "single_row_delete",
    "multi_row_update",
    "multi_row_delete",
    "array_insert",
    "direct_load_insert",
]


def _olr_text(seq: int) -> str:
    path = OLR / f"logdump-seq{seq}.txt"
    if not path.is_file():
        pytest.skip(f"OLR dump not found at {path}")
    return path.read_text()


def _fixture_text(case: str) -> str:
    name = f"seed000_{case}.repaired.txt" if case == "direct_load_insert" else f"seed000_{case}.txt"
    return (FIXTURES / name).read_text()


def _differences(source: str) -> list[tuple[re.Pattern[str], str]]:
    rows = []
    for line in (FIXTURES / "render_differences.tsv").read_text().splitlines():
        if line and not line.startswith("#"):
            where, pattern, reason = line.split("\t")
            if where == source:
                rows.append((re.compile(pattern), reason))
    return rows


def _unexpected(reference: list[str], rendered: list[str], source: str, used: Counter[str]) -> list[str]:
    """Differences not explained by render_differences.tsv (and count the entries used)."""
    entries = _differences(source)

    def entry(line: str) -> str | None:
        return next((p.pattern for p, _ in entries if p.search(line)), None)

    problems: list[str] = []
    matcher = difflib.SequenceMatcher(a=reference, b=rendered, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            continue
        budget: Counter[str] = Counter()
        for line in reference[i1:i2]:
            key = entry(line)
            if key is None:
                problems.append(f"reference line differs: {line!r}")
            else:
                budget[key] += 1
                used[key] += 1
        for line in rendered[j1:j2]:
            key = entry(line)
            if key is None or budget[key] == 0:
                problems.append(f"rendered line differs: {line!r}")
            else:
                budget[key] -= 1
    return problems


# ---------------------------------------------------------------------------------------------
# Round trips: parse(render(x)) == x


@pytest.mark.realdata
@pytest.mark.parametrize("seq", [15, 16], ids=["seq15", "seq16"])
def test_olr_dump_round_trip(seq: int) -> None:
    log = parse_dump(_olr_text(seq))
    again = parse_dump("".join(render_log(log.header, log.records)))
    assert again.header == log.header
    assert again.records == log.records


@pytest.mark.parametrize("case", CASES)
def test_seed_case_round_trip(case: str) -> None:
    records = parse_dump(_fixture_text(case)).records
    again = parse_dump("".join(render_log(None, records, wide_scn=False))).records
    assert again == records


@pytest.mark.parametrize("case", CASES)
def test_seed_case_renders_in_the_wide_dialect_too(case: str) -> None:
    """Rendering an 11.2 record in the 12.2+ layout changes only what the layout defines."""
    records = parse_dump(_fixture_text(case)).records
    again = parse_dump("".join(render_log(None, records, wide_scn=True))).records
    assert [len(r.vectors) for r in again] == [len(r.vectors) for r in records]
    for old, new in zip(records, again, strict=True):
        assert (new.rba, new.scn, new.time, new.lwn) == (old.rba, old.scn, old.time, old.lwn)
        for a, b in zip(old.vectors, new.vectors, strict=True):
            assert type(a.body) is type(b.body)
            if isinstance(a.body, RowOperation) and isinstance(b.body, RowOperation):
                assert (a.body.kdo, a.body.columns, a.body.qmi_rows) == (
                    b.body.kdo,
                    b.body.columns,
                    b.body.qmi_rows,
                )


# ---------------------------------------------------------------------------------------------
# Diffs against the text the records came from


def _olr_block(text: str, rba: str) -> list[str]:
    lines = text.split("\n")
    start = next(
        i for i, line in enumerate(lines) if line.startswith("REDO RECORD") and f"RBA: {rba} " in line
    )
    end = start + 1
    while end < len(lines) and lines[end] != " " and not lines[end].startswith("END OF REDO DUMP"):
        end += 1
    return lines[start:end]


OLR_RECORDS = [
    pytest.param(15, "0x00000f.00000244.0168", id="5.2+5.1(ktubl,DRP)+11.2 IRP+5.20"),
    pytest.param(15, "0x00000f.00000007.0010", id="5.2+5.1(URP)+11.5 URP with cleanout+5.19"),
    pytest.param(15, "0x00000f.00000246.0150", id="5.4 commit+24.4 marker"),
    pytest.param(15, "0x00000f.00000008.0104", id="5.4 commit without ktucf spc"),
    pytest.param(16, "0x000010.00000002.0010", id="seq16 IRP with a 513-byte column and cc 14"),
]


@pytest.mark.realdata
@pytest.mark.parametrize(("seq", "rba"), OLR_RECORDS)
def test_render_matches_olr_text(seq: int, rba: str) -> None:
    text = _olr_text(seq)
    record = next(r for r in parse_dump(text).records if str(r.rba) == rba)
    rendered = render_record(record, wide_scn=True).rstrip("\n").split("\n")
    assert _unexpected(_olr_block(text, rba), rendered, "olr", Counter()) == []


def _seed_blocks(case: str) -> list[list[str]]:
    """Stripped, non-blank lines of each record of a fixture."""
    blocks: list[list[str]] = []
    for line in _fixture_text(case).split("\n"):
        if line.startswith("REDO RECORD"):
            blocks.append([])
        if line.strip():
            blocks[-1].append(line.strip())
    return blocks


def _fully_rendered(record: RedoRecord) -> bool:
    """Records whose every vector the renderer prints in full (no index / block-dump text)."""
    for vector in record.vectors:
        if isinstance(vector.body, UndoRecord) and vector.body.opc not in ((11, 1), (5, 7)):
            return False
        if (
            vector.opcode not in {(5, 1), (5, 2), (5, 4), (5, 19), (5, 20), (24, 4), (24, 6)}
            and vector.layer != 11
        ):
            return False
    return True


def _seed_comparisons() -> list[tuple[str, list[str], list[str]]]:
    out = []
    for case in CASES:
        records = parse_dump(_fixture_text(case)).records
        for record, block in zip(records, _seed_blocks(case), strict=True):
            if _fully_rendered(record):
                rendered = [
                    line.strip() for line in render_record(record, wide_scn=False).split("\n") if line.strip()
                ]
                out.append((f"{case} {record.rba}", block, rendered))
    return out


@pytest.mark.parametrize("case", CASES)
def test_render_matches_seed_text(case: str) -> None:
    compared = [c for c in _seed_comparisons() if c[0].startswith(case + " ")]
    assert compared, "no record of the case is compared"
    for _, reference, rendered in compared:
        assert _unexpected(reference, rendered, "seed", Counter()) == []


@pytest.mark.realdata
def test_an_unlisted_difference_is_reported() -> None:
    """The comparator is not blind: a changed SUBSCN is no expected difference."""
    text = _olr_text(15)
    rba = "0x00000f.00000246.0150"
    record = next(r for r in parse_dump(text).records if str(r.rba) == rba)
    rendered = render_record(dataclasses.replace(record, subscn=2), wide_scn=True).rstrip("\n").split("\n")
    problems = _unexpected(_olr_block(text, rba), rendered, "olr", Counter())
    assert problems == [
        "reference line differs: 'SCN: 0x0000000000229a3c SUBSCN:  1 03/07/2026 01:44:40'",
        "rendered line differs: 'SCN: 0x0000000000229a3c SUBSCN:  2 03/07/2026 01:44:40'",
    ]


@pytest.mark.realdata
def test_every_expected_difference_is_used() -> None:
    used: Counter[str] = Counter()
    for seq, rba in [(p.values[0], p.values[1]) for p in OLR_RECORDS]:
        text = _olr_text(seq)  # type: ignore[arg-type]
        record = next(r for r in parse_dump(text).records if str(r.rba) == rba)
        _unexpected(
            _olr_block(text, rba), render_record(record, wide_scn=True).rstrip("\n").split("\n"), "olr", used
        )  # type: ignore[arg-type]
    for _, reference, rendered in _seed_comparisons():
        _unexpected(reference, rendered, "seed", used)
    listed = {p.pattern for source in ("olr", "seed") for p, _ in _differences(source)}
    assert listed - set(used) == set()


# ---------------------------------------------------------------------------------------------
# Column lines and header


@pytest.mark.parametrize(
    ("number", "value", "lines"),
    [
        pytest.param(0, bytes.fromhex("c102"), ["col  0: [ 2]  c1 02"], id="short"),
        pytest.param(3, None, ["col  3: *NULL*"], id="null"),
        pytest.param(12, b"", ["col 12: [ 0] "], id="empty-not-null"),
        pytest.param(1, bytes(20), ["col  1: [20] " + " 00" * 20], id="20-bytes-one-line"),
        pytest.param(1, bytes(21), ["col  1: [21]", " 00" * 21], id="21-bytes-next-line"),
        pytest.param(10, bytes(26), ["col 10: [26]", " 00" * 25, " 00"], id="25-bytes-per-line"),
    ],
)
def test_render_column(number: int, value: bytes | None, lines: list[str]) -> None:
    assert render_column(number, value) == lines


@pytest.mark.realdata
@pytest.mark.parametrize("seq", [15, 16], ids=["seq15", "seq16"])
def test_header_from_the_binary_log_header_matches_olr(seq: int) -> None:
    """render_header(LogHeader) against OLR's FILE HEADER block; the lines LogHeader has no field for
    (enable indicator, redo log key, key flag, enabled threads) are the only ones missing."""
    from redo_lib.format.native_records import parse_header

    path = OLR.parent / "redo" / f"arch1_{seq}_1224959854.dbf"
    if not path.is_file():
        pytest.skip(f"archived log not found at {path}")
    header = parse_header(path.read_bytes()[:8192], str(path))
    text = _olr_text(seq).split("\n")
    reference = text[: text.index(" ")]
    rendered = render_header(header, file_name=f"redo/arch1_{seq}_1224959854.dbf").rstrip("\n").split("\n")
    missing = [line for line in reference if line not in rendered]
    assert [line.split(":")[0].split(" is ")[0] for line in missing] == [
        " Thread internal enable indicator",
        " redo log key",
        " redo log key flag",
        " Enabled redo threads",
    ]
    assert [line for line in rendered if line not in reference] == []


# ---------------------------------------------------------------------------------------------
# Synthetic round trips: every branch of the grammar, both dialects


def _base(wide: bool) -> RedoRecord:
    """The seed's single-row insert record (narrow) or OLR's test insert (wide): 5.2, 5.1, 11.2, 5.20."""
    if wide:
        return next(r for r in parse_dump(_olr_text(15)).records if str(r.rba) == "0x00000f.00000244.0168")
    return parse_dump(_fixture_text("single_row_insert")).records[0]


def _with_body(record: RedoRecord, index: int, body: object, **vector: object) -> RedoRecord:
    vectors = list(record.vectors)
    vectors[index] = dataclasses.replace(vectors[index], body=body, **vector)  # type: ignore[arg-type]
    return dataclasses.replace(record, vectors=tuple(vectors))


def _undo(record: RedoRecord) -> UndoRecord:
    body = record.vectors[1].body
    assert isinstance(body, UndoRecord)
    return body


def _redo(record: RedoRecord) -> RowOperation:
    body = record.vectors[2].body
    assert isinstance(body, RowOperation)
    return body


def _kdo(redo: RowOperation, **changes: object) -> Kdo:
    return dataclasses.replace(redo.kdo, **changes)  # type: ignore[arg-type]


VARIANTS = {
    "supplemental-with-bdba": lambda r: _with_body(
        r,
        1,
        dataclasses.replace(
            _undo(r),
            supplemental=Supplemental(
                op=1,
                fb=0x0C,
                count=2,
                objv=0,
                start_before=1,
                start_after=1,
                bdba=0x01000436,
                slot=9,
                columns=((1, bytes.fromhex("c20b0b")), (8, None)),
            ),
        ),
    ),
    "supplemental-20-byte-form": lambda r: _with_body(
        r,
        1,
        dataclasses.replace(
            _undo(r), supplemental=Supplemental(op=2, fb=0x1C, count=0, objv=0, start_before=0, start_after=1)
        ),
    ),
    "rowdep-scn": lambda r: _with_body(
        r, 2, dataclasses.replace(_redo(r), kdo=_kdo(_redo(r), op=0x42, rowdeps=True), rowdep_scn=0x18BCDE)
    ),
    "irp-nulls-wide-bitmap": lambda r: _with_body(
        r,
        2,
        dataclasses.replace(
            _redo(r),
            kdo=_kdo(_redo(r), cc=85, null_bitmap=bytes([0x02] + [0] * 9 + [0x10])),
            columns=tuple(None if i in (1, 84) else bytes([i]) * (i % 30) for i in range(85)),
        ),
    ),
    "orp-first-piece-with-nrid": lambda r: _with_body(
        r,
        2,
        dataclasses.replace(_redo(r), kdo=_kdo(_redo(r), op=KdoOpCode.ORP, fb=0x28, nrid=(0x01000437, 3))),
    ),
    "irp-middle-piece-with-hrid": lambda r: _with_body(
        r, 2, dataclasses.replace(_redo(r), kdo=_kdo(_redo(r), fb=0x0C, hrid=(0x01000435, 7)))
    ),
    "lkr": lambda r: _with_body(
        r, 2, RowOperation(ktb=_redo(r).ktb, kdo=Kdo(op=KdoOpCode.LKR, bdba=1, slot=4, tabn=0))
    ),
    "cfa": lambda r: _with_body(
        r,
        2,
        RowOperation(
            ktb=None, kdo=Kdo(op=KdoOpCode.CFA, bdba=1, slot=4, flag=0x2C, lock=1, nrid=(0x0100043A, 5))
        ),
    ),
    "dsc": lambda r: _with_body(r, 2, RowOperation(ktb=None, kdo=Kdo(op=KdoOpCode.DSC, bdba=1, slot=9))),
    "lmn-no-op-lines": lambda r: _with_body(
        r, 2, RowOperation(ktb=None, kdo=Kdo(op=KdoOpCode.LMN, bdba=2, xtype=2))
    ),
    "urp-kdom2-with-null": lambda r: _with_body(
        r,
        2,
        RowOperation(
            ktb=None,
            kdo=Kdo(
                op=KdoOpCode.URP,
                bdba=3,
                kdom2=True,
                slot=1,
                fb=0x2C,
                lock=1,
                ckix=0,
                ncol=5,
                nnew=2,
                cc=2,
                size_delt=-3,
                null_bitmap=b"\x02",
            ),
            columns=(b"ab", None),
            positions=(2, 3),
        ),
    ),
    "qmi-undo-rows": lambda r: _with_body(
        r,
        1,
        dataclasses.replace(
            _undo(r),
            kdo=Kdo(op=KdoOpCode.QMI, bdba=5, lock=0, slots=(4, 6)),
            qmi_rows=(
                QmiRow(fb=0x2C, lb=0, columns=(b"\x01", None, bytes(300))),
                QmiRow(fb=0x2C, lb=1, columns=()),
            ),
        ),
    ),
    "ktb-r-n-c": lambda r: _with_body(
        _with_body(r, 2, dataclasses.replace(_redo(r), ktb=KtbRedo(op=0x05, flg=_redo(r).ktb.flg))),  # type: ignore[union-attr]
        1,
        dataclasses.replace(_undo(r), ktb=KtbRedo(op=0x02, flg=_undo(r).ktb.flg, uba=Uba(1, 2, 3))),  # type: ignore[union-attr]
    ),
    "ktb-n": lambda r: _with_body(
        r, 2, dataclasses.replace(_redo(r), ktb=KtbRedo(op=0x06, flg=_redo(r).ktb.flg))
    ),  # type: ignore[union-attr]
    "multi-block-undo-tail": lambda r: _with_body(
        r, 1, dataclasses.replace(_undo(r), flg=0x0A, ktb=None, kdo=None, columns=())
    ),
    "session-flags": lambda r: _with_body(
        r,
        3,
        dataclasses.replace(
            r.vectors[3].body, flags=0x0001 | 0x0004 | 0x1000, flags2=0x0008, transaction_name="T1"
        ),  # type: ignore[type-var]
    ),
    "rollback": lambda r: _with_body(
        r, 0, TransactionEnd(xid=Xid(r.vectors[0].usn, 11, 854), srt=0, sta=9, flg=0x04), code=4
    ),
    "encrypted-vector": lambda r: _with_body(
        r, 2, Opaque(category="encrypted"), change_type=r.vectors[2].change_type | 0x80
    ),
    "session-start-5.19": lambda r: _with_body(
        r,
        3,
        SessionInfo(
            session=3,
            serial=7,
            current_user="SYS",
            login_user="A",
            client_info="c",
            os_user="o",
            machine="m",
            terminal="t",
            process="42",
            program="p (X)",
            transaction_name="",
            flags=0x0008,
        ),
        code=19,
    ),
}


@pytest.mark.realdata
@pytest.mark.parametrize("wide", [False, True], ids=["11.2", "12.2+"])
@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_synthetic_record_round_trip(variant: str, wide: bool) -> None:
    record = VARIANTS[variant](_base(wide))
    again = parse_dump(render_record(record, wide_scn=wide)).records
    assert again == (record,)


def test_change_line_of_every_vector_kind_round_trips() -> None:
    record = _base(False)
    changed = dataclasses.replace(
        record,
        vectors=(
            *record.vectors,
            ChangeVector(
                index=5,
                layer=13,
                code=6,
                block_class=4,
                afn=3,
                dba=7,
                obj=None,
                scn=9,
                seq=1,
                change_type=1,
                body=Opaque(category="space"),
            ),
        ),
    )
    assert parse_dump(render_record(changed, wide_scn=False)).records == (changed,)
