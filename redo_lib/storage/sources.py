"""BlockSource: a named, sized, randomly readable byte source; LocalFileSource for local files.

``read(offset, size)`` returns up to ``size`` bytes (fewer only at the end of the source, ``b""``
past it). OS errors become ``StorageError`` with the file name. Sources are picklable (the file is
opened lazily per process), so Spark tasks can receive them. Side layer: imports layer 0 only.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Protocol, final, runtime_checkable

from redo_lib.errors import Position, StorageError


@runtime_checkable
class BlockSource(Protocol):
    """Anything ``pipeline.decode_range_arrow`` can read a log from (``read``, ``name``, ``size``)."""

    @property
    def name(self) -> str: ...

    @property
    def size(self) -> int: ...

    def read(self, offset: int, size: int) -> bytes: ...


@final
class LocalFileSource:
    """A local file read with ``os.pread`` (no shared file position: safe across threads)."""

    __slots__ = ("_fd", "_name", "_path", "_size")

    def __init__(self, path: str | os.PathLike[str], *, name: str | None = None) -> None:
        self._path = Path(path)
        self._name = name if name is not None else str(path)
        self._fd: int | None = None
        try:
            self._size = self._path.stat().st_size
        except OSError as exc:
            raise StorageError(
                f"cannot open: {exc.strerror or exc}", position=Position(file=self._name)
            ) from exc

    @property
    def name(self) -> str:
        return self._name

    @property
    def size(self) -> int:
        return self._size

    def read(self, offset: int, size: int) -> bytes:
        """Up to ``size`` bytes from ``offset`` (fewer at the end of the file)."""
        if offset < 0 or size < 0:
            raise ValueError(f"negative offset or size: {offset}, {size}")
        try:
            if self._fd is None:
                self._fd = os.open(self._path, os.O_RDONLY | getattr(os, "O_BINARY", 0))
            chunks: list[bytes] = []
            while size > 0:
                data = os.pread(self._fd, size, offset)
                if not data:
                    break
                chunks.append(data)
                offset += len(data)
                size -= len(data)
            return b"".join(chunks)
        except OSError as exc:
            raise StorageError(
                f"read failed: {exc.strerror or exc}", position=Position(file=self._name, offset=offset)
            ) from exc

    def close(self) -> None:
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None

    def __enter__(self) -> LocalFileSource:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __del__(self) -> None:
        self.close()

    def __getstate__(self) -> dict[str, Any]:
        return {"path": str(self._path), "name": self._name, "size": self._size}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self._path = Path(state["path"])
        self._name = state["name"]
        self._size = state["size"]
        self._fd = None

    def __repr__(self) -> str:
        return f"LocalFileSource({str(self._path)!r})"
