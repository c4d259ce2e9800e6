"""S3Source against a real S3 endpoint (moto_server over HTTP on 127.0.0.1)."""

from __future__ import annotations

import uuid
from pathlib import Path

import pytest

from redo_lib.errors import StorageError
from redo_lib.storage.s3 import S3Source, s3_client, upload_file

pytest_plugins = ["tests.fixtures.s3"]


@pytest.fixture
def bucket(s3_endpoint: str) -> str:
    name = f"redo-{uuid.uuid4().hex[:12]}"
    s3_client().create_bucket(Bucket=name)
    return name


def test_ranged_reads_return_exactly_the_requested_bytes(bucket: str, tmp_path: Path) -> None:
    data = bytes(range(256)) * 4096  # 1 MiB
    path = tmp_path / "1_15_1224959854.arc"
    path.write_bytes(data)
    etag = upload_file(path, f"s3://{bucket}/archive/1_15_1224959854.arc")
    source = S3Source(f"s3://{bucket}/archive/1_15_1224959854.arc")
    assert source.size == len(data) and source.etag == etag
    assert source.read(512, 1024) == data[512:1536]
    assert source.read(len(data) - 10, 100) == data[-10:]  # clipped at the end
    assert source.read(len(data), 10) == b""


def test_missing_object_is_a_storage_error_naming_it(bucket: str) -> None:
    with pytest.raises(StorageError, match="cannot stat object") as info:
        S3Source(f"s3://{bucket}/archive/missing.arc")
    assert info.value.position.file == f"s3://{bucket}/archive/missing.arc"


def test_failed_upload_is_a_storage_error(s3_endpoint: str, tmp_path: Path) -> None:
    path = tmp_path / "x.arc"
    path.write_bytes(b"x")
    with pytest.raises(StorageError, match="upload of"):
        upload_file(path, "s3://no-such-bucket-here/x.arc")
