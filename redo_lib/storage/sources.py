"""BlockSource: a named, sized, randomly readable byte source; LocalFileSource for local files.

``read(offset, size)`` returns up to ``size`` bytes (fewer only at the end of the source, ``b""``
past it). OS errors become ``StorageError`` with the file name. Sources are picklable (the file is
opened lazily per process), so Spark tasks can receive them. Side layer: imports layer 0 only.
"""

from __future__ import annotations

import io
import os
from collections.abc import Iterator
from contextlib import contextmanager
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


class SourceFile(io.RawIOBase):
    """A :class:`BlockSource` as a read-only, seekable binary file: what pyarrow's Parquet reader
    takes for an object on S3 (footer first, then the column chunks it needs, each one ranged read)."""

    def __init__(self, source: BlockSource) -> None:
        super().__init__()
        self.source = source
        self.position = 0

    @property
    def name(self) -> str:
        return self.source.name

    def readable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return True

    def seek(self, offset: int, whence: int = io.SEEK_SET) -> int:
        base = {io.SEEK_SET: 0, io.SEEK_CUR: self.position, io.SEEK_END: self.source.size}[whence]
        self.position = max(base + offset, 0)
        return self.position

    def tell(self) -> int:
        return self.position

    def size(self) -> int:
        return self.source.size

    def readinto(self, buffer: Any) -> int:
        data = self.source.read(self.position, len(buffer))
        buffer[: len(data)] = data
        self.position += len(data)
        return len(data)


@contextmanager
def output_file(location: str, suffix: str = "") -> Iterator[Path]:
    """A local path to write ``location`` (a local path or an ``s3://`` URL) through: it appears
    whole or not at all, a local temporary file renamed or one upload of a finished file, so a
    retried task writes the same file again. Nothing appears when the body raises."""
    import tempfile

    remote = location.startswith("s3://")
    if remote:
        handle, name = tempfile.mkstemp(prefix="redotrail-", suffix=suffix)
        os.close(handle)
        tmp = Path(name)
    else:
        target = Path(location)
        target.parent.mkdir(parents=True, exist_ok=True)
        tmp = target.with_name(f".{target.name}.tmp")
    try:
        yield tmp
        if remote:
            from redo_lib.storage.s3 import upload_file

            upload_file(tmp, location)
        else:
            tmp.replace(location)
    finally:
        tmp.unlink(missing_ok=True)


def open_input(location: str) -> Any:
    """A local path as it is, an ``s3://`` URL as a seekable file (ranged GETs): what pyarrow opens."""
    if location.startswith("s3://"):
        from redo_lib.storage.s3 import S3Source

        return io.BufferedReader(SourceFile(S3Source(location)), buffer_size=1 << 20)
    return location


@contextmanager
def parquet_errors(location: str) -> Iterator[None]:
    """Within the block, pyarrow failing on the Parquet file ``location`` (truncated, damaged, not
    Parquet, gone) raises a ``StorageError`` naming it, with pyarrow's own words: pyarrow's message
    ("Parquet magic bytes not found in footer ...") does not say which file. A ``StorageError``: the
    batch folder's stored bytes failed us, and a run of the batch from decode writes them again."""
    import pyarrow as pa

    try:
        yield
    except (pa.ArrowException, OSError) as exc:
        raise StorageError(
            f"not readable as Parquet: {type(exc).__name__}: {exc}", position=Position(file=location)
        ) from exc


#: The batch folder's Parquet files carry a CRC32 per page and every read checks it: without one, a
#: garbled data page can decode as other values with no error at all (a garbled footer or a truncated
#: file fails anyway). Readers of files written before the checksums pass (nothing to check).
PAGE_CHECKSUMS = {"write_page_checksum": True}
VERIFY_PAGES = {"page_checksum_verification": True}


def parquet_writer(where: Any, schema: Any, **options: Any) -> Any:
    """A ``pyarrow.parquet.ParquetWriter`` for a batch folder's file, with page checksums."""
    import pyarrow.parquet as pq

    return pq.ParquetWriter(where, schema, **PAGE_CHECKSUMS, **options)


@contextmanager
def open_parquet(location: str, **options: Any) -> Iterator[Any]:
    """A Parquet file of a batch folder (:func:`open_input`) as a ``pyarrow.parquet.ParquetFile``
    for the block (``options`` are its own), its page checksums checked, what fails reading it named
    (:func:`parquet_errors`)."""
    import pyarrow.parquet as pq

    with parquet_errors(location), pq.ParquetFile(open_input(location), **VERIFY_PAGES, **options) as file:
        yield file
