"""Shared pieces of the text-dump reader: the line cursor and the small value grammars.

A change vector of an ``ALTER SYSTEM DUMP LOGFILE`` dump is handed to its body parser as a list of
``(line number, stripped text)`` pairs. ``LineCursor`` walks that list; every "this line is not what
the grammar allows here" and every "the vector ends too early" becomes a ``DumpParseError`` whose
position carries the file name and the 1-based line number. Nothing here does I/O.

Layer 2 (dump): imports errors, scn (layer 0) only.
"""

from __future__ import annotations

import datetime as dt
import re
from typing import Any

from redo_lib.errors import DumpParseError, Position
from redo_lib.scn import Uba, Xid

# 16 hex digits (12.2+ dumps) or wrap.base (``0x0000.0018bcde``, before 12.2), redo-format §3.4.
SCN = r"0x(?:[0-9a-fA-F]{16}|[0-9a-fA-F]{4}\.[0-9a-fA-F]{8})"
UBA = r"0x[0-9a-fA-F]{8}\.[0-9a-fA-F]{4}\.[0-9a-fA-F]{2}"
XID = r"0x[0-9a-fA-F]{4}\.[0-9a-fA-F]{3}\.[0-9a-fA-F]{8}"
TIME = r"\d\d/\d\d/\d{4} \d\d:\d\d:\d\d"
HEX_LINE = re.compile(r"^[0-9a-fA-F]{2}(?: [0-9a-fA-F]{2})*$")
COL_VALUE = re.compile(r"^col\s+(\d+): \[\s*(\d+)\]\s*((?:[0-9a-fA-F]{2}(?: [0-9a-fA-F]{2})*)?)$")
COL_NULL = re.compile(r"^col\s+(\d+): \*NULL\*$")

Line = tuple[int, str]


def parse_scn(text: str) -> int:
    """``0x0000.0018bcde`` or ``0x0000000000229a45`` -> int (the text is known to match ``SCN``)."""
    if "." in text:
        wrap, base = text[2:].split(".")
        return int(wrap, 16) << 32 | int(base, 16)
    return int(text, 16)


def parse_uba(text: str) -> Uba:
    """``0x00c000b2.01ee.0d`` -> Uba (the text is known to match ``UBA``)."""
    block, seq, rec = text[2:].split(".")
    return Uba(int(block, 16), int(seq, 16), int(rec, 16))


def parse_xid(text: str) -> Xid:
    """``0x0004.00b.00000356`` -> Xid (the text is known to match ``XID``)."""
    return Xid.parse(text)


def is_wide_scn(text: str) -> bool:
    """True for the 16-digit SCN of 12.2+ dumps."""
    return "." not in text


class LineCursor:
    """Walks the lines of one change vector (or of one header block) with positioned errors."""

    __slots__ = ("_end_line", "_i", "_lines", "_name", "what")

    def __init__(self, lines: list[Line], *, name: str, what: str, end_line: int) -> None:
        self._lines = lines
        self._i = 0
        self._name = name
        self._end_line = end_line  # the line errors point at when the vector ends too early
        self.what = what  # e.g. "CHANGE #2 (OP:5.1)", used in messages

    # -- inspection ------------------------------------------------------------------------
    def at_end(self) -> bool:
        return self._i >= len(self._lines)

    def peek(self) -> str | None:
        return self._lines[self._i][1] if self._i < len(self._lines) else None

    def line_number(self) -> int:
        """Number of the current (next unconsumed) line, or the vector's last line at the end."""
        return self._lines[self._i][0] if self._i < len(self._lines) else self._end_line

    def prev_line(self) -> int:
        """Number of the line consumed last."""
        return self._lines[self._i - 1][0] if self._i > 0 else self._end_line

    def error(self, message: str, *, line: int | None = None, **details: Any) -> DumpParseError:
        """A ``DumpParseError`` at ``line`` (default: the current line, or the vector's last line)."""
        where = line if line is not None else self.line_number()
        return DumpParseError(
            f"{self.what}: {message}", position=Position(file=self._name, line=where), **details
        )

    # -- consumption -----------------------------------------------------------------------
    def take(self, what: str) -> Line:
        if self._i >= len(self._lines):
            raise self.error(f"text ends before {what}", truncated=True)
        line = self._lines[self._i]
        self._i += 1
        return line

    def match(self, pattern: re.Pattern[str]) -> re.Match[str] | None:
        """Consume the current line if it matches ``pattern``; else consume nothing."""
        if self._i < len(self._lines):
            m = pattern.match(self._lines[self._i][1])
            if m:
                self._i += 1
                return m
        return None

    def expect(self, pattern: re.Pattern[str], what: str) -> re.Match[str]:
        """Consume the current line, which must match ``pattern`` (``what`` names it in errors)."""
        if self._i >= len(self._lines):
            raise self.error(f"text ends before {what}", truncated=True)
        lineno, text = self._lines[self._i]
        m = pattern.match(text)
        if not m:
            raise self.error(f"expected {what}, found {text!r}", line=lineno)
        self._i += 1
        return m

    def skip_rest(self) -> int:
        """Consume every remaining line (deliberately unmodelled text); return how many."""
        n = len(self._lines) - self._i
        self._i = len(self._lines)
        return n

    def finish(self) -> None:
        """Every line must have been consumed: a leftover line is one the grammar does not know."""
        if self._i < len(self._lines):
            lineno, text = self._lines[self._i]
            raise self.error(f"unexpected line {text!r}", line=lineno)

    # -- value grammars that span lines ----------------------------------------------------
    def hex_bytes(self, first: str, length: int, what: str, *, line: int) -> bytes:
        """``length`` bytes printed as hex pairs: first on the current line's tail (``first``),
        then on continuation lines (25 per line in OLR's and Oracle's dumps)."""
        tokens = first.split()
        while len(tokens) < length:
            nxt = self.peek()
            if nxt is None or not HEX_LINE.match(nxt):
                found = "the end of the vector" if nxt is None else repr(nxt)
                raise self.error(
                    f"{what}: {length} bytes announced, {len(tokens)} found before {found}",
                    line=line,
                    truncated=nxt is None,
                )
            tokens.extend(nxt.split())
            self._i += 1
        if len(tokens) != length:
            raise self.error(f"{what}: {length} bytes announced, {len(tokens)} printed", line=line)
        return bytes(int(t, 16) for t in tokens)

    def column(self, what: str) -> tuple[int, bytes | None]:
        """One ``col  n: [len] hex`` or ``col  n: *NULL*`` line (plus hex continuation lines)."""
        lineno, text = self.take(what)
        m = COL_NULL.match(text)
        if m:
            return int(m.group(1)), None
        m = COL_VALUE.match(text)
        if not m:
            raise self.error(f"expected {what}, found {text!r}", line=lineno)
        number, length = int(m.group(1)), int(m.group(2))
        return number, self.hex_bytes(m.group(3), length, f"col {number}", line=lineno)


def parse_time(text: str, *, name: str, line: int) -> dt.datetime:
    """``03/31/2013 23:59:58`` (MM/DD/YYYY HH:MM:SS, the server's wall clock) -> UTC ``datetime``.

    Same convention as ``format.layout.decode_redo_time``: the wall-clock value labelled UTC.
    """
    try:
        return dt.datetime.strptime(text, "%m/%d/%Y %H:%M:%S").replace(tzinfo=dt.UTC)
    except ValueError as exc:
        raise DumpParseError(f"invalid time {text!r}", position=Position(file=name, line=line)) from exc


def render_time(when: dt.datetime) -> str:
    """The inverse of :func:`parse_time`."""
    return when.strftime("%m/%d/%Y %H:%M:%S")
