"""The ``FILE HEADER`` block of a logfile dump: ``DumpHeader``, its parser and its renderer.

``parse_header`` reads the header lines OLR and Oracle print (redo-format §1.4) into a
``DumpHeader``; ``render_header`` writes a ``LogHeader`` (binary reader) or a ``DumpHeader`` back in
OLR's layout (16-digit SCNs from compat 12.2, wrap.base with the decimal in brackets before).

Layer 2 (dump): imports errors, scn (layer 0) and format.model (layer 1).
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass
from typing import Any, final

from redo_lib.dump.lines import SCN, TIME, Line, parse_scn, parse_time, render_time
from redo_lib.format.model import LogHeader
from redo_lib.scn import NO_SCN, render_scn

V12_2 = 0x0C200000  # compat version from which dumps print 16-digit SCNs (redo-format §8)


@final
@dataclass(frozen=True, slots=True, kw_only=True)
class DumpHeader:
    """What a dump's ``FILE HEADER:`` block shows (redo-format §1.4). Fields are named as in
    ``LogHeader``; each is ``None`` when its line is absent. SCNs are kept as printed (an open
    log's next SCN is the all-F value, not ``None``). ``other_lines`` keeps header lines this reader
    does not interpret, so nothing is dropped silently."""

    file_name: str | None = None
    compat_version: int | None = None
    dbid: int | None = None
    db_name: str | None = None
    activation_id: int | None = None
    control_seq: int | None = None
    file_size: int | None = None
    file_number: int | None = None
    block_size: int | None = None
    description: str | None = None
    thread: int | None = None
    nab: int | None = None
    sequence: int | None = None
    hws: int | None = None
    eot: int | None = None
    dis: int | None = None
    resetlogs_id: int | None = None
    resetlogs_scn: int | None = None
    prev_resetlogs_id: int | None = None
    prev_resetlogs_scn: int | None = None
    first_scn: int | None = None
    first_time: dt.datetime | None = None
    next_scn: int | None = None
    next_time: dt.datetime | None = None
    enabled_scn: int | None = None
    enabled_time: dt.datetime | None = None
    thread_closed_scn: int | None = None
    thread_closed_time: dt.datetime | None = None
    real_next_scn: int | None = None
    checksum: int | None = None
    terminal_recovery_scn: int | None = None
    terminal_recovery_time: dt.datetime | None = None
    most_recent_scn: int | None = None
    largest_lwn: int | None = None
    misc_flags: int | None = None
    misc_flags2: int | None = None
    zero_blocks: int | None = None
    format_id: int | None = None
    other_lines: tuple[str, ...] = ()


# -- header lines: pattern -> field names (values converted by _HEADER_KINDS) -------------------
_N = r"(\d+)"
_X = r"0x([0-9a-fA-F]+)"
_S = rf"({SCN})(?: \(\d+\))?"
_HEADER_LINES: list[tuple[re.Pattern[str], tuple[str, ...]]] = [
    (re.compile(r"^DUMP OF REDO FROM FILE '(.*)'$"), ("file_name",)),
    (re.compile(rf"^Compatibility Vsn = {_N}=0x[0-9a-fA-F]+$"), ("compat_version",)),
    (re.compile(rf"^Db ID={_N}=0x[0-9a-fA-F]+, Db Name='(.*)'$"), ("dbid", "db_name")),
    (re.compile(rf"^Activation ID={_N}=0x[0-9a-fA-F]+$"), ("activation_id",)),
    (
        re.compile(rf"^Control Seq={_N}=0x[0-9a-fA-F]+, File size={_N}=0x[0-9a-fA-F]+$"),
        ("control_seq", "file_size"),
    ),
    (re.compile(rf"^File Number={_N}, Blksiz={_N}, File Type=2 LOG$"), ("file_number", "block_size")),
    (re.compile(r'^descrip:"(.*)"$'), ("description",)),
    (
        re.compile(rf"^thread: {_N} nab: {_X} seq: {_X} hws: {_X} eot: {_N} dis: {_N}$"),
        ("thread", "nab", "sequence", "hws", "eot", "dis"),
    ),
    (re.compile(rf"^resetlogs count: {_X} scn: {_S}$"), ("resetlogs_id", "resetlogs_scn")),
    (re.compile(rf"^prev resetlogs count: {_X} scn: {_S}$"), ("prev_resetlogs_id", "prev_resetlogs_scn")),
    (re.compile(rf"^Low  scn: {_S} ({TIME})$"), ("first_scn", "first_time")),
    (re.compile(rf"^Next scn: {_S} ({TIME})$"), ("next_scn", "next_time")),
    (re.compile(rf"^Enabled scn: {_S} ({TIME})$"), ("enabled_scn", "enabled_time")),
    (re.compile(rf"^Thread closed scn: {_S} ({TIME})$"), ("thread_closed_scn", "thread_closed_time")),
    (re.compile(rf"^Real next scn: {_S}$"), ("real_next_scn",)),
    (re.compile(rf"^Disk cksum: {_X} Calc cksum: 0x[0-9a-fA-F]+$"), ("checksum",)),
    (re.compile(rf"^Terminal recovery stop scn: {_S}$"), ("terminal_recovery_scn",)),
    (re.compile(rf"^Terminal recovery\s+({TIME})$"), ("terminal_recovery_time",)),
    (re.compile(rf"^Most recent redo scn: {_S}$"), ("most_recent_scn",)),
    (re.compile(rf"^Largest LWN: {_N} blocks$"), ("largest_lwn",)),
    (re.compile(rf"^Miscellaneous flags: {_X}$"), ("misc_flags",)),
    (re.compile(rf"^Miscellaneous second flags: {_X}$"), ("misc_flags2",)),
    (re.compile(rf"^Zero blocks: {_N}$"), ("zero_blocks",)),
    (re.compile(rf"^Format ID is {_N}$"), ("format_id",)),
]
_HEX_FIELDS = {
    "nab",
    "sequence",
    "hws",
    "resetlogs_id",
    "prev_resetlogs_id",
    "checksum",
    "misc_flags",
    "misc_flags2",
}
_TEXT_FIELDS = {"file_name", "db_name", "description"}
# Header lines skipped by rule: the dump's selection preamble, lines derived from the misc flags,
# and values ``LogHeader`` has no field for (enable indicator, redo log key, enabled threads).
_SKIP_HEADER = re.compile(
    r"^(?:Container ID: \d+|Container UID: \d+|Opcodes .*|RBAs: .*|SCNs: .*|Times: .*|FILE HEADER:|"
    r"(?:FailOver )?End-of-redo stream : (?:Yes|No)|Archivelog created using asynchronous network transmittal|"
    r"No (?:data|ctx)-loss mode|Resynchronization mode|Unprotected mode|Closed thread archival|"
    r"Maximize performance mode|Thread internal enable indicator: .*|Standby .*|redo log key is [0-9a-fA-F]*|"
    r"redo log key flag is \d+|Enabled redo threads: \d+)$"
)


def parse_header(lines: list[Line], name: str) -> DumpHeader | None:
    """The header block (``(line number, stripped text)`` pairs) -> ``DumpHeader``, or ``None`` if empty.
    Raises ``DumpParseError`` only for an impossible date."""
    values: dict[str, Any] = {}
    other: list[str] = []
    for lineno, text in lines:
        if not text or _SKIP_HEADER.match(text):
            continue
        for pattern, names in _HEADER_LINES:
            m = pattern.match(text)
            if m:
                for key, raw in zip(names, m.groups(), strict=True):
                    if key in _TEXT_FIELDS:
                        values[key] = raw
                    elif key.endswith("_time"):
                        values[key] = parse_time(raw, name=name, line=lineno)
                    elif key.endswith("_scn"):
                        values[key] = parse_scn(raw)
                    else:
                        values[key] = int(raw, 16 if key in _HEX_FIELDS else 10)
                break
        else:
            other.append(text)
    if not values and not other:
        return None
    return DumpHeader(other_lines=tuple(other), **values)


def _misc_flag_lines(flags: int) -> list[str]:
    """Mode lines OLR and Oracle derive from the misc flags (redo-format §1.4 @236)."""
    out = [f"{'FailOver ' if flags & 0x1000 else ''}End-of-redo stream : {'Yes' if flags & 0x0008 else 'No'}"]
    if flags & 0x0100:
        out.append("Archivelog created using asynchronous network transmittal")
    if flags & 0x0200:
        out.append("No data-loss mode")
    out.append("Resynchronization mode" if flags & 0x0800 else "Unprotected mode")
    if flags & 0x1000:
        out.append("Closed thread archival")
    if flags & 0x2000:
        out.append("Maximize performance mode")
    return out


def render_header(header: LogHeader | DumpHeader, *, file_name: str | None = None) -> str:
    """The preamble and ``FILE HEADER:`` block of a dump. Lines whose values are unknown (``None``
    in a ``DumpHeader``) are left out; ``DumpHeader.other_lines`` are appended as they were."""
    h = header
    compat = h.compat_version
    wide = compat is None or compat >= V12_2
    name = file_name or (h.file_name if isinstance(h, DumpHeader) else None) or "<unknown>"

    def scn(value: int | None) -> str:
        text = render_scn(NO_SCN if value is None else value, wide=wide)
        return text if wide else f"{text} ({NO_SCN if value is None else value})"

    def when(value: object) -> str:
        return render_time(value)  # type: ignore[arg-type]

    def have(*values: object) -> bool:
        return all(v is not None for v in values)

    nxt = NO_SCN if isinstance(h, LogHeader) and h.next_scn is None else h.next_scn
    real_next = NO_SCN if isinstance(h, LogHeader) and h.real_next_scn is None else h.real_next_scn
    out = [f"DUMP OF REDO FROM FILE '{name}'"]
    container = [" Container ID: 0", " Container UID: 0"] if wide else []
    out += [
        *container,
        " Opcodes *.*",
        *container,
        " RBAs: 0x000000.00000000.0000 thru 0xffffffff.ffffffff.ffff",
    ]
    out.append(f" SCNs: scn: {render_scn(0, wide=wide)} thru scn: {render_scn(NO_SCN, wide=wide)}")
    out += [" Times: creation thru eternity", " FILE HEADER:"]
    rows: list[tuple[tuple[object, ...], str]] = [
        ((compat,), f"\tCompatibility Vsn = {compat}=0x{compat or 0:x}"),
        ((h.dbid, h.db_name), f"\tDb ID={h.dbid}=0x{h.dbid or 0:x}, Db Name='{h.db_name}'"),
        ((h.activation_id,), f"\tActivation ID={h.activation_id}=0x{h.activation_id or 0:x}"),
        (
            (h.control_seq, h.file_size),
            f"\tControl Seq={h.control_seq}=0x{h.control_seq or 0:x}, File size={h.file_size}=0x{h.file_size or 0:x}",
        ),
        (
            (h.file_number, h.block_size),
            f"\tFile Number={h.file_number}, Blksiz={h.block_size}, File Type=2 LOG",
        ),
        ((h.description,), f' descrip:"{h.description}"'),
    ]
    seq = h.sequence
    rows.append(
        (
            (h.thread, h.nab, seq, h.hws, h.eot, h.dis),
            f" thread: {h.thread} nab: 0x{h.nab or 0:x} seq: 0x{seq or 0:08x} hws: 0x{h.hws or 0:x} "
            f"eot: {h.eot} dis: {h.dis}",
        )
    )
    rows += [
        (
            (h.resetlogs_id, h.resetlogs_scn),
            f" resetlogs count: 0x{h.resetlogs_id or 0:x} scn: {scn(h.resetlogs_scn)}",
        ),
        (
            (h.prev_resetlogs_id, h.prev_resetlogs_scn),
            f" prev resetlogs count: 0x{h.prev_resetlogs_id or 0:x} scn: {scn(h.prev_resetlogs_scn)}",
        ),
        ((h.first_scn, h.first_time), f" Low  scn: {scn(h.first_scn)} {h.first_time and when(h.first_time)}"),
        ((nxt, h.next_time), f" Next scn: {scn(nxt)} {h.next_time and when(h.next_time)}"),
        (
            (h.enabled_scn, h.enabled_time),
            f" Enabled scn: {scn(h.enabled_scn)} {h.enabled_time and when(h.enabled_time)}",
        ),
        (
            (h.thread_closed_scn, h.thread_closed_time),
            f" Thread closed scn: {scn(h.thread_closed_scn)} {h.thread_closed_time and when(h.thread_closed_time)}",
        ),
    ]
    if wide:
        rows.append(((real_next,), f" Real next scn: {render_scn(real_next or 0)}"))
    rows += [
        ((h.checksum,), f" Disk cksum: 0x{h.checksum or 0:x} Calc cksum: 0x{h.checksum or 0:x}"),
        (
            (h.terminal_recovery_scn,),
            f" Terminal recovery stop scn: {render_scn(h.terminal_recovery_scn or 0, wide=wide)}",
        ),
        (
            (h.terminal_recovery_time,),
            f" Terminal recovery  {h.terminal_recovery_time and when(h.terminal_recovery_time)}",
        ),
        ((h.most_recent_scn,), f" Most recent redo scn: {render_scn(h.most_recent_scn or 0, wide=wide)}"),
        ((h.largest_lwn,), f" Largest LWN: {h.largest_lwn} blocks"),
    ]
    out += [text for values, text in rows if have(*values)]
    if h.misc_flags is not None:
        out += [" " + line for line in _misc_flag_lines(h.misc_flags)]
        out.append(f" Miscellaneous flags: 0x{h.misc_flags:x}")
    if wide and h.misc_flags2 is not None:
        out.append(f" Miscellaneous second flags: 0x{h.misc_flags2:x}")
    if h.zero_blocks is not None:
        out.append(f" Zero blocks: {h.zero_blocks}")
    if h.format_id is not None:
        out.append(f" Format ID is {h.format_id}")
    if isinstance(h, DumpHeader):
        out += [" " + line for line in h.other_lines]
    return "".join(line + "\n" for line in out)


__all__ = ["V12_2", "DumpHeader", "parse_header", "render_header"]
