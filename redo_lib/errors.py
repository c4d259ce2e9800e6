"""The one exception root of redo_lib, and where an error happened.

Every error raised on purpose on bad input is a ``RedoError`` subclass carrying a ``Position``
(file, sequence, block, offset, or line for the text-dump input) and structured ``details``.
Parsers (the Rust core's too, through the binding) fill block/offset where they know them; the
boundary (``pipeline``) adds the file once with :func:`locate`. Anything else escaping a public function is a bug.

Layer 0: imports nothing from redo_lib.
"""

from __future__ import annotations

import dataclasses
import enum
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True, slots=True, kw_only=True)
class Position:
    """Where in the input something is. Prints like Oracle's RBA: ``file: RBA 0x000044.00000005.0010``."""

    file: str | None = None
    sequence: int | None = None
    block: int | None = None
    offset: int | None = None
    line: int | None = None

    def __str__(self) -> str:
        parts: list[str] = []
        if self.file is not None:
            parts.append(self.file)
        if self.block is not None:
            seq = self.sequence if self.sequence is not None else 0
            off = self.offset if self.offset is not None else 0
            if 0 <= off < 0x10000:
                parts.append(f"RBA 0x{seq:06x}.{self.block:08x}.{off:04x} (block {self.block}, offset {off})")
            else:
                parts.append(f"block {self.block}, offset {off}")
        elif self.offset is not None:
            parts.append(f"byte offset {self.offset}")
        if self.line is not None:
            parts.append(f"line {self.line}")
        return ": ".join(parts) if parts else "<unknown position>"

    @property
    def known(self) -> bool:
        """Whether any part of the position is known (an error without one prints its message only)."""
        return any(getattr(self, f.name) is not None for f in dataclasses.fields(self))


class RedoError(Exception):
    """Base of every error raised on purpose. ``kind`` is a stable string for reports.

    Prints as ``<position>: <message> (<details>)``, or ``<message> (<details>)`` when no part of the
    position is known (a ``LogSetError`` about a sequence range, say)."""

    kind = "redo_error"
    # whether the same work may pass when run again (:func:`retry_can_help`): bad input, a refused
    # request or a wrong setting fails the same way until someone changes it
    retryable = False

    def __init__(self, message: str, *, position: Position | None = None, **details: Any) -> None:
        super().__init__(message)
        self.message = message
        self.position = position or Position()
        self.details = details

    def __str__(self) -> str:
        text = f"{self.position}: {self.message}" if self.position.known else self.message
        if self.details:
            text += " (" + ", ".join(f"{k}={v}" for k, v in self.details.items()) + ")"
        return text

    def to_dict(self) -> dict[str, Any]:
        """A plain dict for reports and error rows (JSON friendly)."""
        return {
            "kind": self.kind,
            "message": self.message,
            "position": dataclasses.asdict(self.position),
            "details": {k: str(v) for k, v in self.details.items()},
        }


class FormatError(RedoError):
    """The bytes break the redo format."""

    kind = "format"


class ChecksumError(FormatError):
    kind = "checksum"


class BlockHeaderError(FormatError):
    kind = "block_header"


class TruncatedLogError(FormatError):
    kind = "truncated"


class UnsupportedFormatError(FormatError):
    kind = "unsupported_format"


class DumpParseError(FormatError):
    """The text of an ``ALTER SYSTEM DUMP LOGFILE`` dump cannot be parsed (position has ``line``)."""

    kind = "dump_text"


class ValueDecodeError(RedoError):
    """A column value does not decode as its declared type."""

    kind = "value"


class DictionaryError(RedoError):
    kind = "dictionary"


class MissingObjectError(DictionaryError):
    kind = "missing_object"


class MissingColumnError(DictionaryError):
    kind = "missing_column"


class AssemblyError(RedoError):
    """An impossible transaction sequence (e.g. a change of a transaction already committed)."""

    kind = "assembly"


class LogSetError(RedoError):
    """A set of archived logs is not usable together: gap, incarnation mismatch, overlap."""

    kind = "log_set"


class StorageError(RedoError):
    """Fetching bytes failed (wraps the boto3 / OS error): S3 or the log catalog may answer next time."""

    kind = "storage"
    retryable = True


class ScenarioError(RedoError):
    """A synth scenario is not valid SQL-level input."""

    kind = "scenario"


def retry_can_help(exc: BaseException) -> bool:
    """The retry rule of every task of both DAGs (``dags/common/retries.py``; the Spark stages' exit
    codes follow it too, ``spark_jobs/common.py``): a ``RedoError`` says what is wrong with the
    input, a request or a setting, and running the same thing again fails the same way, except a
    ``StorageError`` (S3 or the catalog not answering). Any other exception may pass on retry (a
    lost connection inside a library, a killed process)."""
    return exc.retryable if isinstance(exc, RedoError) else True


class ErrorPolicy(enum.Enum):
    """RAISE stops at the first error; SKIP records it in the DecodeReport and goes on."""

    RAISE = "raise"
    SKIP = "skip"


def locate(exc: RedoError, **where: Any) -> RedoError:
    """Fill in the parts of ``exc.position`` that are still unknown (file, sequence, ...); return ``exc``.

    Used at the boundary, ``except RedoError as exc: raise locate(exc, file=name) from None`` keeps the
    original traceback because the same exception object is re-raised.
    """
    missing = {k: v for k, v in where.items() if getattr(exc.position, k) is None and v is not None}
    if missing:
        exc.position = dataclasses.replace(exc.position, **missing)
    return exc
