"""LocalFileSource: sized, ranged reads, short reads only at the end, errors as StorageError, picklable."""

from __future__ import annotations

import pickle
from pathlib import Path

import pytest

from redo_lib.errors import StorageError
from redo_lib.storage import BlockSource, LocalFileSource


@pytest.fixture
def sample(tmp_path: Path) -> Path:
    path = tmp_path / "log.dbf"
    path.write_bytes(bytes(range(256)) * 4)
    return path


@pytest.mark.parametrize(
    ("offset", "size", "expected"),
    [
        (0, 4, bytes([0, 1, 2, 3])),
        (1020, 10, bytes([252, 253, 254, 255])),
        (1024, 5, b""),
        (5000, 1, b""),
        (10, 0, b""),
    ],
    ids=["start", "short-at-end", "at-end", "past-end", "zero"],
)
def test_ranged_reads(sample: Path, offset: int, size: int, expected: bytes) -> None:
    with LocalFileSource(sample) as source:
        assert source.read(offset, size) == expected


def test_name_size_and_protocol(sample: Path) -> None:
    source = LocalFileSource(sample, name="arch1_15.dbf")
    assert (source.name, source.size, isinstance(source, BlockSource)) == ("arch1_15.dbf", 1024, True)


def test_missing_file_is_a_storage_error_naming_it(tmp_path: Path) -> None:
    with pytest.raises(StorageError) as info:
        LocalFileSource(tmp_path / "nope.dbf")
    assert info.value.position.file is not None and info.value.position.file.endswith("nope.dbf")


def test_source_pickles_without_its_file_handle(sample: Path) -> None:
    source = LocalFileSource(sample)
    source.read(0, 1)
    clone = pickle.loads(pickle.dumps(source))
    assert (clone.name, clone.size, clone.read(2, 2)) == (source.name, 1024, bytes([2, 3]))


def _garbled_parquet(path: Path, *, checksums: bool) -> bytes:
    """A one-page Parquet file of 2,000 int64 values (no compression, no dictionary), one byte of
    the page's values flipped: the footer and page header intact, so only a checksum can tell."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    from redo_lib.storage.sources import parquet_writer

    table = pa.table({"v": pa.array(range(2000), pa.int64())})
    options = {"compression": "none", "use_dictionary": False}
    writer = (
        parquet_writer(path, table.schema, **options)
        if checksums
        else pq.ParquetWriter(path, table.schema, **options)
    )
    with writer:
        writer.write_table(table)
    data = bytearray(path.read_bytes())
    data[len(data) // 2] ^= 0x5A  # inside the values: the footer is the last few hundred bytes
    path.write_bytes(bytes(data))
    return bytes(data)


def test_a_garbled_page_of_a_batch_file_is_a_storage_error_naming_it(tmp_path: Path) -> None:
    from redo_lib.storage.sources import open_parquet

    path = tmp_path / "t1-s00000001-b0000000002.parquet"
    _garbled_parquet(path, checksums=True)
    with (
        pytest.raises(StorageError, match="not readable as Parquet") as caught,
        open_parquet(str(path)) as file,
    ):
        file.read()
    assert caught.value.position.file == str(path) and "checksum" in str(caught.value)


def test_without_page_checksums_a_garbled_page_reads_as_other_values(tmp_path: Path) -> None:
    """Why the batch files carry them: the same damage in a file without checksums reads back with
    no error, a value changed."""
    from redo_lib.storage.sources import open_parquet

    path = tmp_path / "old.parquet"
    _garbled_parquet(path, checksums=False)
    with open_parquet(str(path)) as file:
        values = file.read().column("v").to_pylist()
    assert values != list(range(2000)) and len(values) == 2000
