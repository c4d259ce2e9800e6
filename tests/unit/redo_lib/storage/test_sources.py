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
