"""OP 5.19 / 5.20 — session attributes of a transaction (redo-format §5.5). Layer 1.

Strings are raw bytes in the vector; they are decoded as UTF-8 with undecodable bytes kept as
backslash escapes (never an exception).
"""

from __future__ import annotations

from collections.abc import Sequence

from redo_lib.errors import FormatError
from redo_lib.format.layout import V19, FileLayout
from redo_lib.format.model import SessionInfo
from redo_lib.format.ops.kdo import need

# 5.19 field number (1-based) -> SessionInfo attribute (strings)
_START_TEXT = {
    2: "current_user",
    3: "login_user",
    4: "client_info",
    5: "os_user",
    6: "machine",
    7: "terminal",
    8: "process",
    9: "program",
    10: "transaction_name",
    14: "client_id",
}
_CONTINUE_TEXT = {2: "transaction_name", 7: "client_id", 8: "login_user"}
_START_NUMBERS = (11, 12, 13)  # flags, version, audit session id
_CONTINUE_NUMBERS = (3, 4, 5)


def _text(raw: bytes) -> str:
    return bytes(raw).decode("utf-8", "backslashreplace")


def _session(fields: Sequence[bytes], layout: FileLayout) -> tuple[int, int]:
    if not fields:
        raise FormatError("5.19/5.20 without its session field")
    f = fields[0]
    need(f, 4, "session/serial")
    u16 = layout.s.u16.unpack_from
    serial = u16(f, 2)[0]
    if layout.compat_version >= V19 and len(f) >= 8:
        return layout.s.u32.unpack_from(f, 4)[0], serial
    return u16(f, 0)[0], serial


def _numbers(fields: Sequence[bytes], numbers: tuple[int, int, int], layout: FileLayout) -> dict[str, int]:
    out: dict[str, int] = {}
    flags_no, version_no, audit_no = numbers
    s = layout.s
    if len(fields) >= flags_no and len(fields[flags_no - 1]) >= 2:
        f = fields[flags_no - 1]
        out["flags"] = s.u16.unpack_from(f, 0)[0]
        if len(f) >= 6:
            out["flags2"] = s.u16.unpack_from(f, 4)[0]
    if len(fields) >= version_no and len(fields[version_no - 1]) >= 4:
        out["version"] = s.u32.unpack_from(fields[version_no - 1], 0)[0]
    if len(fields) >= audit_no and len(fields[audit_no - 1]) >= 4:
        out["audit_session_id"] = s.u32.unpack_from(fields[audit_no - 1], 0)[0]
    return out


def parse_session_start(fields: Sequence[bytes], block_class: int, layout: FileLayout) -> SessionInfo:
    """OP 5.19 — transaction start audit record: session, serial, user names, program, flags."""
    session, serial = _session(fields, layout)
    texts = {name: _text(fields[no - 1]) for no, name in _START_TEXT.items() if no <= len(fields)}
    return SessionInfo(session=session, serial=serial, **texts, **_numbers(fields, _START_NUMBERS, layout))


def parse_session_continue(fields: Sequence[bytes], block_class: int, layout: FileLayout) -> SessionInfo:
    """OP 5.20 — transaction continue audit record: session, serial, transaction name, flags."""
    session, serial = _session(fields, layout)
    texts = {name: _text(fields[no - 1]) for no, name in _CONTINUE_TEXT.items() if no <= len(fields)}
    return SessionInfo(session=session, serial=serial, **texts, **_numbers(fields, _CONTINUE_NUMBERS, layout))
