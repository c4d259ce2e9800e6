"""S3 access for redo_lib: ranged reads of archived logs and streamed uploads. boto3 lives here only.

``S3Source`` follows the ``BlockSource`` protocol of ``storage/sources.py`` (``name``, ``size``,
``read(offset, size)``), so the reader, a Spark task and the CLI read a log on S3 exactly as they
read a local file: one ranged GET per read. Every botocore error becomes a ``StorageError`` naming
the object and the byte range.

Side package: imports layer 0 only.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
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


# How hard a client tries before a StorageError: retries in botocore's "standard" mode (exponential
# backoff; a refused connection is retried within a second, throttling for longer), and a connect
# timeout well below botocore's 60 s, so an endpoint that drops packets fails in about a minute, not
# in five. ``AWS_MAX_ATTEMPTS`` / ``AWS_RETRY_MODE`` in the environment win (botocore reads them).
S3_MAX_ATTEMPTS = 5  # per request, the first one included
S3_CONNECT_TIMEOUT_S = 10
S3_READ_TIMEOUT_S = 60


def client_config(env: Mapping[str, str] | None = None) -> Any:
    """The ``botocore.config.Config`` of :func:`s3_client`."""
    from botocore.config import Config

    env = os.environ if env is None else env
    retries: dict[str, Any] = {}
    if not env.get("AWS_RETRY_MODE"):
        retries["mode"] = "standard"
    if not env.get("AWS_MAX_ATTEMPTS"):
        retries["total_max_attempts"] = S3_MAX_ATTEMPTS
    return Config(
        connect_timeout=S3_CONNECT_TIMEOUT_S, read_timeout=S3_READ_TIMEOUT_S, retries=retries or None
    )


def s3_client(endpoint_url: str | None = None, **kwargs: Any) -> Any:
    """A boto3 S3 client; the endpoint defaults to ``$AWS_ENDPOINT_URL`` (the local server in tests).
    Retries and timeouts: :func:`client_config` (a ``config=`` given here is merged over it)."""
    import boto3  # imported here: keep `import redo_lib` free of boto3

    endpoint = endpoint_url or os.environ.get("AWS_ENDPOINT_URL") or None
    config = client_config()
    if kwargs.get("config") is not None:
        config = config.merge(kwargs["config"])
    kwargs["config"] = config
    return boto3.client("s3", endpoint_url=endpoint, **kwargs)


def s3_failure(what: str, exc: BaseException, client: Any = None) -> str:
    """``<what>: <botocore's message>``; when the endpoint could not be reached at all (refused, timed
    out, DNS), the message says which endpoint, after how many attempts, and where it is set."""
    from botocore.exceptions import ConnectionError as BotoConnectionError

    if not isinstance(exc, BotoConnectionError):
        return f"{what}: {exc}"
    meta = getattr(client, "meta", None)
    endpoint = getattr(meta, "endpoint_url", None) or "(default AWS endpoint)"
    retries = getattr(getattr(meta, "config", None), "retries", None) or {}
    attempts = retries.get("total_max_attempts")
    tried = f" after {attempts} attempts" if attempts else ""
    return (
        f"{what}: S3 endpoint {endpoint} unreachable{tried} ({exc}); check AWS_ENDPOINT_URL "
        "(or AWS_ENDPOINT_URL_S3 / the AWS region) and that the S3 service is running and reachable"
    )


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
                raise StorageError(
                    s3_failure("cannot stat object", exc, self.client), position=Position(file=self.url)
                ) from exc
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
                s3_failure(f"ranged GET bytes={offset}-{end} failed", exc, self.client),
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
        raise StorageError(
            s3_failure(f"upload of {path} failed", exc, client), position=Position(file=url)
        ) from exc
    return str(head.get("ETag", "")).strip('"')


def read_object(url: str, client: Any = None) -> bytes:
    """The whole of a small object (a manifest, a dictionary) with one GET."""
    bucket, key = split_s3_url(url)
    client = client or s3_client()
    try:
        data: bytes = client.get_object(Bucket=bucket, Key=key)["Body"].read()
    except Exception as exc:
        raise StorageError(s3_failure("GET failed", exc, client), position=Position(file=url)) from exc
    return data


def write_object(url: str, data: bytes, client: Any = None) -> None:
    """Write a small object whole with one PUT."""
    bucket, key = split_s3_url(url)
    client = client or s3_client()
    try:
        client.put_object(Bucket=bucket, Key=key, Body=data)
    except Exception as exc:
        raise StorageError(s3_failure("PUT failed", exc, client), position=Position(file=url)) from exc
