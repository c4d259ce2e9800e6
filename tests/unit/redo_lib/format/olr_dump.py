"""A small reader of OLR's text dumps (olr-reference/logdump-seq*.txt) for comparison tests.

Only the lines the tests compare: record headers, LWN lines, CHANGE lines, and per change the
ktudb/ktub/ktudh/ktucm/KTB/KDO lines and column values.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

RECORD = re.compile(
    r"^REDO RECORD - Thread:(\d+) RBA: 0x([0-9a-f]+)\.([0-9a-f]+)\.([0-9a-f]+) LEN: 0x([0-9a-f]+) VLD: 0x([0-9a-f]+) CON_UID: (\d+)"
)
SCN = re.compile(r"^SCN: 0x([0-9a-f]+) SUBSCN:\s*(\d+) (\S+ \S+)")
LWN = re.compile(r"^\(LWN RBA: \S+ LEN: 0x([0-9a-f]+) NST: 0x([0-9a-f]+) SCN: 0x([0-9a-f]+)\)")
CHANGE = re.compile(
    r"^CHANGE #(\d+) CON_ID:(\d+) TYP:(\d+) CLS:(\d+) AFN:(\d+) DBA:0x([0-9a-f]+) OBJ:\d+ SCN:0x([0-9a-f]+) SEQ:(\d+) OP:(\d+)\.(\d+) .*FLG:0x([0-9a-f]+)"
)
MARKER = re.compile(
    r"^CHANGE #(\d+) MEDIA RECOVERY MARKER CON_ID:(\d+) SCN:0x([0-9a-f]+) SEQ:(\d+) OP:(\d+)\.(\d+)"
)
COLUMN = re.compile(r"^col\s+(\d+): (?:\[\s*(\d+)\]\s*(.*)|\*NULL\*)$")


@dataclass
class DumpChange:
    index: int
    opcode: tuple[int, int]
    con_id: int
    typ: int | None = None
    cls: int | None = None
    afn: int | None = None
    dba: int | None = None
    scn: int = 0
    seq: int = 0
    flg: int = 0
    lines: list[str] = field(default_factory=list)

    def columns(self) -> list[tuple[int, bytes | None]]:
        """(column number, bytes or None) of the ``col n:`` lines (multi-line values joined)."""
        out: list[tuple[int, bytes | None]] = []
        current: list[str] | None = None
        for line in self.lines:
            m = COLUMN.match(line)
            if m:
                if current is not None:
                    out[-1] = (out[-1][0], bytes.fromhex("".join(current)))
                if m.group(2) is None:
                    out.append((int(m.group(1)), None))
                    current = None
                else:
                    out.append((int(m.group(1)), b""))
                    current = [m.group(3)]
            elif current is not None and re.fullmatch(r"(\s[0-9a-f]{2})+\s*", line):
                current.append(line)
            elif current is not None:
                out[-1] = (out[-1][0], bytes.fromhex("".join(current)))
                current = None
        if current is not None:
            out[-1] = (out[-1][0], bytes.fromhex("".join(current)))
        return out

    def find(self, pattern: str) -> re.Match[str] | None:
        rx = re.compile(pattern)
        for line in self.lines:
            m = rx.search(line)
            if m:
                return m
        return None


@dataclass
class DumpRecord:
    thread: int
    rba: tuple[int, int, int]
    length: int
    vld: int
    con_uid: int
    scn: int = 0
    subscn: int = 0
    time: str = ""
    lwn: tuple[int, int, int] | None = None
    changes: list[DumpChange] = field(default_factory=list)


def parse_dump(path: Path) -> list[DumpRecord]:
    records: list[DumpRecord] = []
    change: DumpChange | None = None
    for line in path.read_text().splitlines():
        m = RECORD.match(line)
        if m:
            g = m.groups()
            records.append(
                DumpRecord(
                    thread=int(g[0]),
                    rba=(int(g[1], 16), int(g[2], 16), int(g[3], 16)),
                    length=int(g[4], 16),
                    vld=int(g[5], 16),
                    con_uid=int(g[6]),
                )
            )
            change = None
            continue
        if not records:
            continue
        rec = records[-1]
        if (m := SCN.match(line)) and not rec.changes:
            rec.scn, rec.subscn, rec.time = int(m.group(1), 16), int(m.group(2)), m.group(3)
        elif (m := LWN.match(line)) and not rec.changes:
            rec.lwn = (int(m.group(1), 16), int(m.group(2), 16), int(m.group(3), 16))
        elif m := CHANGE.match(line):
            g = m.groups()
            change = DumpChange(
                index=int(g[0]),
                con_id=int(g[1]),
                typ=int(g[2]),
                cls=int(g[3]),
                afn=int(g[4]),
                dba=int(g[5], 16),
                scn=int(g[6], 16),
                seq=int(g[7]),
                opcode=(int(g[8]), int(g[9])),
                flg=int(g[10], 16),
            )
            rec.changes.append(change)
        elif m := MARKER.match(line):
            g = m.groups()
            change = DumpChange(
                index=int(g[0]),
                con_id=int(g[1]),
                scn=int(g[2], 16),
                seq=int(g[3]),
                opcode=(int(g[4]), int(g[5])),
            )
            rec.changes.append(change)
        elif change is not None:
            change.lines.append(line)
    return records
