"""``ALTER SYSTEM DUMP LOGFILE`` text -> the same format model the binary reader produces.

The text path and the binary path share every step after parsing (row pairing, transactions,
trail): a dump yields ``RedoRecord`` values whose vectors carry the same op bodies
(``UndoRecord``, ``TransactionBegin``, ``RowOperation``, ...) with ``fields`` left empty.

Two dialects are read: Oracle 11.2 (SCN ``0x0000.0018bcde``, no CON_ID; seed 000) and the 12.2+
layout OpenLogReplicator writes (16-digit SCNs, ``CON_UID``/``CON_ID``/``FLG``, 19c ktub lines).
Lines may be indented (seed 000 indents by 4 spaces): every line is stripped first.

Framing (what belongs to a record):

* a record starts at a ``REDO RECORD - Thread:`` line, followed by its ``SCN:`` line and, for the
  first record of an LWN, the ``(LWN RBA: ...)`` line; then ``CHANGE #n`` blocks;
* a vector runs until the next ``CHANGE #``/``REDO RECORD``/``END OF REDO DUMP`` line or until a
  blank line whose next non-blank line is neither of those nor a known continuation: ``Dump kdilk``
  (OLR prints a blank line before it), ``col n:`` (the empty line after a null bitmap of a multiple
  of 80 columns), or anything inside Oracle's direct-load block dump (blank lines up to
  ``end_of_block_dump``);
* text between records (the seed's prose, the file header) is skipped.

Errors: a line that the grammar of a vector parsed here does not allow raises ``DumpParseError``
with ``Position(file=name, line=n)``. Truncation: text that ends (or turns into prose) inside a
vector raises ``DumpParseError`` with ``details['truncated'] = True`` when the vector is one we
parse and the cut leaves it incomplete (header lines missing, fewer column lines than ``cc`` /
``nnew`` / ``nrow`` announce, fewer hex bytes than ``[len]``); a record cut after its SCN line
without any vector raises too. A cut exactly between two complete vectors, or inside an ``Opaque``
vector, cannot be seen in the text: that record is returned with the vectors read so far.

Layer 2 (dump): imports errors, scn (layer 0) and format.model (layer 1).
"""

from __future__ import annotations

import re
from collections import deque
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any, final

from redo_lib.dump.bodies import parse_body
from redo_lib.dump.headers import DumpHeader, parse_header
from redo_lib.dump.lines import SCN, TIME, Line, LineCursor, is_wide_scn, parse_scn, parse_time
from redo_lib.errors import DumpParseError, Position
from redo_lib.format.model import ChangeVector, LwnHeader, RedoRecord
from redo_lib.scn import Rba

_REDO_RECORD = re.compile(
    r"^REDO RECORD - Thread:(\d+) RBA: 0x([0-9a-fA-F]+)\.([0-9a-fA-F]+)\.([0-9a-fA-F]+) "
    r"LEN: 0x([0-9a-fA-F]+) VLD: 0x([0-9a-fA-F]+)(?: CON_UID: (\d+))?$"
)
_RECORD_SCN = re.compile(rf"^SCN: ({SCN}) SUBSCN:\s*(\d+) ({TIME})$")
_LWN = re.compile(
    r"^\(LWN RBA: 0x([0-9a-fA-F]+)\.([0-9a-fA-F]+)\.([0-9a-fA-F]+) LEN: (?:0x)?([0-9a-fA-F]+) "
    rf"NST: (?:0x)?([0-9a-fA-F]+) SCN: ({SCN})\)$"
)
_CHANGE = re.compile(
    r"^CHANGE #(\d+)(?: CON_ID:(\d+))? TYP:(\d+) CLS:(\d+) AFN:(\d+) DBA:0x([0-9a-fA-F]+) OBJ:(\d+) "
    rf"SCN:({SCN}) SEQ:(\d+) OP:(\d+)\.(\d+) ENC:(\d+)(?: RBL:\d+)?(?: FLG:0x([0-9a-fA-F]+))?$"
)
_MARKER = re.compile(
    rf"^CHANGE #(\d+) MEDIA RECOVERY MARKER(?: CON_ID:(\d+))? SCN:({SCN}) SEQ:(\d+) "
    r"OP:(\d+)\.(\d+) ENC:(\d+)(?: FLG:0x([0-9a-fA-F]+))?$"
)
_BOUNDARIES = ("CHANGE #", "REDO RECORD - ", "END OF REDO DUMP")
_CONTINUE_AFTER_BLANK = re.compile(r"^(?:Dump kdilk|col\s+\d+:)")
NO_OBJ = 0xFFFFFFFF
MARKER_TYPE = 6  # TYP of a media-recovery marker vector (redo-format §4.1)


@final
@dataclass(frozen=True, slots=True, kw_only=True)
class DumpedLog:
    """A parsed dump: the file header (when the text has one) and the records in text order."""

    name: str
    header: DumpHeader | None
    records: tuple[RedoRecord, ...]


class _Source:
    """Stripped lines with 1-based numbers and look-ahead (blank lines are buffered as needed)."""

    __slots__ = ("_ahead", "_it", "_n")

    def __init__(self, lines: Iterable[str], first_line: int = 1) -> None:
        self._it = iter(lines)
        self._n = first_line - 1
        self._ahead: deque[Line] = deque()

    def _fill(self, k: int) -> bool:
        while len(self._ahead) <= k:
            try:
                raw = next(self._it)
            except StopIteration:
                return False
            self._n += 1
            self._ahead.append((self._n, raw.strip()))
        return True

    def peek(self, k: int = 0) -> Line | None:
        return self._ahead[k] if self._fill(k) else None

    def next(self) -> Line | None:
        return self._ahead.popleft() if self._fill(0) else None

    def next_nonblank(self) -> Line | None:
        """The first non-blank line ahead, without consuming anything."""
        k = 0
        while (line := self.peek(k)) is not None and not line[1]:
            k += 1
        return line

    def drop_blanks(self) -> None:
        while (line := self.peek()) is not None and not line[1]:
            self.next()


def _error(message: str, name: str, line: int, **details: Any) -> DumpParseError:
    return DumpParseError(message, position=Position(file=name, line=line), **details)


def _collect(src: _Source, layer: int, code: int) -> list[Line]:
    """The lines of one vector (after its CHANGE line), per the framing rules of the module doc."""
    lines: list[Line] = []
    in_block_dump = False  # 19.1: Oracle's block dump has blank lines until end_of_block_dump
    while (line := src.peek()) is not None:
        text = line[1]
        if text.startswith(_BOUNDARIES):
            break
        if not text:
            nxt = src.next_nonblank()
            if nxt is None or nxt[1].startswith(_BOUNDARIES):
                break
            if not (in_block_dump or _CONTINUE_AFTER_BLANK.match(nxt[1])):
                break
            src.drop_blanks()
            continue
        if layer == 19 and code == 1:
            if text == "Direct Loader block redo entry":
                in_block_dump = True
            elif text == "end_of_block_dump":
                in_block_dump = False
        lines.append(line)
        src.next()
    return lines


def _vector(src: _Source, first: Line, *, name: str, wide: bool) -> ChangeVector:
    lineno, text = first
    if m := _CHANGE.match(text):
        index, con_id, typ, cls, afn, dba, obj, scn, seq, layer, code, enc, flg = m.groups()
        change_type = int(typ) | (0x80 if enc != "0" and int(typ) < 0x80 else 0)
        head: dict[str, Any] = {
            "block_class": int(cls),
            "afn": int(afn),
            "dba": int(dba, 16),
            "obj": None if int(obj) == NO_OBJ else int(obj),
        }
    elif m := _MARKER.match(text):
        index, con_id, scn, seq, layer, code, enc, flg = m.groups()
        change_type = MARKER_TYPE | (0x80 if enc != "0" else 0)
        # A marker line prints no CLS/AFN/DBA/OBJ; their header bytes are zero in real markers (the
        # binary reader gives obj 0 for 45 of the 48 markers of the 23.6 sample).
        head = {"block_class": 0, "afn": 0, "dba": 0, "obj": 0}
    else:
        raise _error(f"malformed CHANGE line {text!r}", name, lineno)
    layer_n, code_n = int(layer), int(code)
    lines = _collect(src, layer_n, code_n)
    what = f"CHANGE #{index} (OP:{layer}.{code})"
    cur = LineCursor(lines, name=name, what=what, end_line=lines[-1][0] if lines else lineno)
    usn = (head["block_class"] - 15) // 2 if head["block_class"] >= 15 else -1
    body = parse_body(layer_n, code_n, cur, usn=usn, wide=wide, encrypted=bool(change_type & 0x80))
    return ChangeVector(
        index=int(index),
        layer=layer_n,
        code=code_n,
        scn=parse_scn(scn),
        seq=int(seq),
        change_type=change_type,
        con_id=int(con_id) if con_id is not None else 0,
        flg=int(flg, 16) if flg is not None else 0,
        body=body,
        **head,
    )


def _record(src: _Source, first: Line, *, name: str) -> RedoRecord:
    lineno, text = first
    m = _REDO_RECORD.match(text)
    if not m:
        raise _error(f"malformed REDO RECORD line {text!r}", name, lineno)
    thread, seq, block, offset, length, vld, con_uid = m.groups()
    rba = Rba(int(seq, 16), int(block, 16), int(offset, 16))
    scn_line = src.next()
    if scn_line is None:
        raise _error("text ends after the REDO RECORD line", name, lineno, truncated=True)
    ms = _RECORD_SCN.match(scn_line[1])
    if not ms:
        raise _error(f"expected 'SCN: ... SUBSCN: ... <time>', found {scn_line[1]!r}", name, scn_line[0])
    wide = is_wide_scn(ms.group(1))
    time = parse_time(ms.group(3), name=name, line=scn_line[0])
    lwn = None
    last = scn_line[0]
    if (nxt := src.peek()) is not None and nxt[1].startswith("(LWN RBA:"):
        src.next()
        last = nxt[0]
        ml = _LWN.match(nxt[1])
        if not ml:
            raise _error(f"malformed LWN line {nxt[1]!r}", name, nxt[0])
        lwn_rba = Rba(int(ml.group(1), 16), int(ml.group(2), 16), int(ml.group(3), 16))
        if lwn_rba != rba:  # the model has no LWN RBA: it is the RBA of the record that carries it
            raise _error(f"LWN RBA {lwn_rba} differs from the record RBA {rba}", name, nxt[0])
        lwn = LwnHeader(
            number=0,
            nst=int(ml.group(5), 16),
            length=int(ml.group(4), 16),
            scn=parse_scn(ml.group(6)),
            time=time,
        )
    vectors: list[ChangeVector] = []
    while (line := src.peek()) is not None:
        if line[1].startswith("CHANGE #"):
            src.next()
            vectors.append(_vector(src, line, name=name, wide=wide))
        elif not line[1] and (ahead := src.next_nonblank()) is not None and ahead[1].startswith("CHANGE #"):
            src.drop_blanks()
        else:
            break
    if not vectors:
        raise _error(f"REDO RECORD at RBA {rba} has no CHANGE", name, last, truncated=True)
    return RedoRecord(
        thread=int(thread),
        rba=rba,
        length=int(length, 16),
        vld=int(vld, 16),
        scn=parse_scn(ms.group(1)),
        subscn=int(ms.group(2)),
        con_uid=int(con_uid) if con_uid is not None else 0,
        time=time,
        lwn=lwn,
        vectors=tuple(vectors),
    )


def _iter_records(src: _Source, name: str) -> Iterator[RedoRecord]:
    while (line := src.next()) is not None:
        if line[1].startswith("REDO RECORD - "):
            yield _record(src, line, name=name)


def iter_dump_records(lines: Iterable[str], *, name: str = "<dump>") -> Iterator[RedoRecord]:
    """Yield the redo records of dump text given line by line (e.g. an open text file).

    On bad input raises only ``DumpParseError`` (a ``RedoError``), positioned by file and line.
    """
    return _iter_records(_Source(lines), name)


def parse_dump(text: str, *, name: str = "<dump>") -> DumpedLog:
    """Parse a whole dump: the ``FILE HEADER`` block (if present) and every record.

    On bad input raises only ``DumpParseError`` (a ``RedoError``), positioned by file and line
    (1-based, counted at ``\\n``; a ``\\r`` before it is ignored).
    """
    lines = text.split("\n")
    first = next((i for i, t in enumerate(lines) if t.strip().startswith("REDO RECORD - ")), len(lines))
    head = [(i + 1, t.strip()) for i, t in enumerate(lines[:first])]
    start = next((i for i, (_, t) in enumerate(head) if t.startswith("DUMP OF REDO FROM FILE")), None)
    if start is None:
        start = next((i for i, (_, t) in enumerate(head) if t == "FILE HEADER:"), None)
    header = parse_header(head[start:], name) if start is not None else None
    records = tuple(_iter_records(_Source(lines[first:], first_line=first + 1), name))
    return DumpedLog(name=name, header=header, records=records)


__all__ = ["DumpHeader", "DumpedLog", "iter_dump_records", "parse_dump"]
