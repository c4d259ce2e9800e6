"""S3 access for redo_lib: ranged reads of archived logs and streamed uploads. boto3 lives here only.

``S3Source`` follows the ``BlockSource`` protocol of ``storage/sources.py`` (``name``, ``size``,
``read(offset, size)``), so the reader, a Spark task and the CLI read a log on S3 exactly as they
read a local file: one ranged GET per read. Every botocore error becomes a ``StorageError`` naming
the object and the byte range.

Side package: imports layer 0 only.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlparse

from redo_lib.errors import Position, StorageError


def split_s3_url(url: str) -> tuple[str, str]:
    """``s3://bucket/key`` -> (bucket, key)."""
    parsed = urlparse(url)
    if parsed.scheme != "s3" or not parsed.netloc or not parsed.path.lstrip("/"):
        raise StorageError(f"not an s3://bucket/key URL: {url!r}", position=Position(file=url))
    return parsed.netloc, parsed.path.lstrip("/")


def s3_client(endpoint_url: str | None = None, **kwargs: Any) -> Any:
    """A boto3 S3 client; the endpoint defaults to ``$AWS_ENDPOINT_URL`` (the local server in tests)."""
    import boto3  # imported here: keep `import redo_lib` free of boto3

    endpoint = endpoint_url or os.environ.get("AWS_ENDPOINT_URL") or None
    return boto3.client("s3", endpoint_url=endpoint, **kwargs)


@dataclass
class S3Source:
    """A log on S3, read with ranged GETs. ``size`` comes from one HEAD request at construction."""

    url: str
    client: Any = None
    size: int = -1
    etag: str = ""
    _bucket: str = field(init=False, default="")
    _key: str = field(init=False, default="")

    def __post_init__(self) -> None:
        self._bucket, self._key = split_s3_url(self.url)
        if self.client is None:
            self.client = s3_client()
        if self.size < 0:
            try:
                head = self.client.head_object(Bucket=self._bucket, Key=self._key)
            except Exception as exc:  # botocore ClientError, EndpointConnectionError, ...
                raise StorageError(f"cannot stat object: {exc}", position=Position(file=self.url)) from exc
            self.size = int(head["ContentLength"])
            self.etag = str(head.get("ETag", "")).strip('"')

    @property
    def name(self) -> str:
        return self.url

    def read(self, offset: int, size: int) -> bytes:
        """Bytes [offset, offset+size) clipped to the object; b"" at or past the end."""
        if size <= 0 or offset >= self.size:
            return b""
        end = min(offset + size, self.size) - 1
        try:
            response = self.client.get_object(
                Bucket=self._bucket, Key=self._key, Range=f"bytes={offset}-{end}"
            )
            data: bytes = response["Body"].read()
        except Exception as exc:
            raise StorageError(
                f"ranged GET bytes={offset}-{end} failed: {exc}",
                position=Position(file=self.url, offset=offset),
            ) from exc
        if len(data) != end - offset + 1:
            raise StorageError(
                f"ranged GET returned {len(data)} bytes, expected {end - offset + 1}",
                position=Position(file=self.url, offset=offset),
            )
        return data


def upload_file(path: str | os.PathLike[str], url: str, client: Any = None) -> str:
    """Upload a local file to ``s3://bucket/key`` (multipart for large files); return the ETag."""
    bucket, key = split_s3_url(url)
    client = client or s3_client()
    try:
        client.upload_file(os.fspath(path), bucket, key)
        head = client.head_object(Bucket=bucket, Key=key)
    except Exception as exc:
        raise StorageError(f"upload of {path} failed: {exc}", position=Position(file=url)) from exc
    return str(head.get("ETag", "")).strip('"')


def read_object(url: str, client: Any = None) -> bytes:
    """The whole of a small object (a manifest, a dictionary) with one GET."""
    bucket, key = split_s3_url(url)
    try:
        data: bytes = (client or s3_client()).get_object(Bucket=bucket, Key=key)["Body"].read()
    except Exception as exc:
        raise StorageError(f"GET failed: {exc}", position=Position(file=url)) from exc
    return data


def write_object(url: str, data: bytes, client: Any = None) -> None:
    """Write a small object whole with one PUT."""
    bucket, key = split_s3_url(url)
    try:
        (client or s3_client()).put_object(Bucket=bucket, Key=key, Body=data)
    except Exception as exc:
        raise StorageError(f"PUT failed: {exc}", position=Position(file=url)) from exc
