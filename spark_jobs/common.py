"""What every Spark stage shares: the SparkSession (settings from include/spark/spark-defaults.conf)
and the batch folder (docs/pipeline-contract.md), local or ``s3://``. Nothing here knows about Oracle.

``BatchDir`` reads and writes the small documents of a batch (``manifest.json``, ``counts.json``,
markers, reports) through a pyarrow filesystem, so a stage works the same on a local folder and on an
``s3://`` prefix; Spark itself only reads and writes local paths (no ``s3a://`` in this stack), so
``BatchDir.local_dir`` downloads a sub-folder of an S3 batch to a temporary folder first.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
import tempfile
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
DEFAULTS = ROOT / "include" / "spark" / "spark-defaults.conf"
DATA = ROOT / "data"  # the embedded default's data folder (git-ignored)


def spark_defaults(path: Path = DEFAULTS) -> dict[str, str]:
    """``key value`` lines of the defaults file (comments and blank lines skipped)."""
    conf: dict[str, str] = {}
    for line in path.read_text().splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            key, _, value = line.partition(" ")
            conf[key] = value.strip()
    return conf


def _submitted_keys() -> set[str]:
    """Settings spark-submit already gave the JVM (``--conf``, ``--master``): they win over the file."""
    if "PYSPARK_GATEWAY_PORT" not in os.environ:
        return set()
    from pyspark import SparkConf, SparkContext

    SparkContext._ensure_initialized()  # attach to the JVM spark-submit started
    return {key for key, _ in SparkConf().getAll()}


def build_session(app_name: str, *, master: str | None = None, spark: Any = None) -> Any:
    """The given session (tests pass theirs), or a new one with the project's defaults.

    ``master`` defaults to ``$SPARK_MASTER`` or ``local[*]`` when not launched by spark-submit; under
    spark-submit, its ``--master`` and ``--conf`` settings win over the defaults file."""
    if spark is not None:
        return spark
    os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    os.environ.setdefault("TZ", "UTC")
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)  # workers use this venv, not PATH's python
    from pyspark.sql import SparkSession

    submitted = _submitted_keys()
    builder = SparkSession.builder.appName(app_name)
    if master or "PYSPARK_GATEWAY_PORT" not in os.environ:
        builder = builder.master(master or os.environ.get("SPARK_MASTER", "local[*]"))
    for key, value in spark_defaults().items():
        if key not in submitted:
            builder = builder.config(key, value)
    return builder.getOrCreate()


def ship_library(spark: Any) -> None:
    """Make ``redo_lib`` importable on executors when it is not installed there (a cluster):
    zip the package once and add it with ``addPyFile``. Local mode shares the driver's venv."""
    master = spark.sparkContext.master
    if master.startswith("local"):
        return
    base = Path(tempfile.mkdtemp(prefix="redotrail-lib-")) / "redo_lib"
    archive = shutil.make_archive(str(base), "zip", root_dir=ROOT, base_dir="redo_lib")
    spark.sparkContext.addPyFile(archive)


def ship_module(module: Any) -> None:
    """Pickle the functions of a ``spark_jobs`` module by value, so executors need not import it
    (``spark_jobs`` is a folder of scripts, not an installed package)."""
    from pyspark import cloudpickle

    cloudpickle.register_pickle_by_value(module)


def reset_dir(path: Path) -> Path:
    """Empty a stage's own output folder (a rerun replaces, never appends)."""
    if path.exists():
        shutil.rmtree(path)
    path.mkdir(parents=True)
    return path


def _filesystem(uri: str) -> tuple[Any, str]:
    """A pyarrow filesystem and the path inside it; ``s3://`` honours ``$AWS_ENDPOINT_URL``."""
    from pyarrow import fs

    if uri.startswith("s3://"):
        endpoint = os.environ.get("AWS_ENDPOINT_URL")
        options: dict[str, Any] = {}
        if endpoint:
            scheme, _, host = endpoint.partition("://")
            options.update(endpoint_override=host or scheme, scheme=scheme if host else "https")
        region = os.environ.get("AWS_DEFAULT_REGION") or os.environ.get("AWS_REGION")
        if region:
            options["region"] = region
        return fs.S3FileSystem(**options), uri.removeprefix("s3://").rstrip("/")
    if uri.startswith("file://"):
        uri = uri.removeprefix("file://")
    return fs.LocalFileSystem(), str(Path(uri).resolve())


class BatchDir:
    """One batch folder ``<work>/batches/<batch_id>/`` (docs/pipeline-contract.md), local or on S3."""

    def __init__(self, uri: str | os.PathLike[str]) -> None:
        text = os.fspath(uri).rstrip("/")
        self.is_local = not text.startswith("s3://")
        self.fs, self.root = _filesystem(text)
        self.uri = self.root if self.is_local else text

    def __repr__(self) -> str:
        return f"BatchDir({self.uri!r})"

    @property
    def name(self) -> str:
        return self.root.rstrip("/").rsplit("/", 1)[-1]

    def path(self, *parts: str) -> str:
        """The filesystem path of a member (for a local batch, an ordinary path)."""
        return "/".join([self.root, *parts])

    def uri_of(self, *parts: str) -> str:
        return "/".join([self.uri, *parts])

    def sibling(self, batch_id: str) -> BatchDir:
        """Another batch of the same ``batches/`` folder (e.g. the manifest's ``previous_batch``)."""
        parent = self.uri.rstrip("/").rsplit("/", 1)[0]
        return BatchDir(f"{parent}/{batch_id}")

    def exists(self, *parts: str) -> bool:
        from pyarrow import fs

        return bool(self.fs.get_file_info(self.path(*parts)).type != fs.FileType.NotFound)

    def read_text(self, *parts: str) -> str:
        with self.fs.open_input_stream(self.path(*parts)) as stream:
            return bytes(stream.read()).decode("utf-8")

    def read_json(self, *parts: str, default: Any = ...) -> Any:
        """A JSON member; ``default`` when given and the member does not exist."""
        if default is not ... and not self.exists(*parts):
            return default
        return json.loads(self.read_text(*parts))

    def write_text(self, text: str, *parts: str) -> str:
        """Write a member whole: a local file appears atomically (temporary file, then rename)."""
        target = self.path(*parts)
        if self.is_local:
            Path(target).parent.mkdir(parents=True, exist_ok=True)
            tmp = Path(f"{target}.{uuid.uuid4().hex[:8]}.tmp")
            tmp.write_text(text, encoding="utf-8")
            tmp.replace(target)
        else:
            with self.fs.open_output_stream(target) as stream:
                stream.write(text.encode("utf-8"))
        return self.uri_of(*parts)

    def write_json(self, doc: Any, *parts: str) -> str:
        return self.write_text(json.dumps(doc, indent=2, sort_keys=True, default=str) + "\n", *parts)

    def remove(self, *parts: str) -> None:
        """Delete a member file if present."""
        if self.exists(*parts):
            self.fs.delete_file(self.path(*parts))

    def put_dir(self, local: Path, *parts: str) -> None:
        """Replace a member folder with a copy of a local folder (a report, say)."""
        from pyarrow import fs

        target = self.path(*parts)
        if self.is_local:
            if Path(target).resolve() == local.resolve():
                return
            shutil.rmtree(target, ignore_errors=True)
            shutil.copytree(local, target)
            return
        if self.exists(*parts):
            self.fs.delete_dir_contents(target, missing_dir_ok=True)
        fs.copy_files(str(local), target, destination_filesystem=self.fs)

    @contextmanager
    def local_dir(self, *parts: str) -> Iterator[Path]:
        """A member folder as a local path for Spark: itself, or a downloaded temporary copy."""
        from pyarrow import fs

        if self.is_local:
            yield Path(self.path(*parts))
            return
        tmp = Path(tempfile.mkdtemp(prefix="redotrail-batch-"))
        try:
            if self.exists(*parts):
                fs.copy_files(self.path(*parts), str(tmp / parts[-1]), source_filesystem=self.fs)
            else:
                (tmp / parts[-1]).mkdir()
            yield tmp / parts[-1]
        finally:
            shutil.rmtree(tmp, ignore_errors=True)

    @contextmanager
    def scratch_dir(self, *parts: str) -> Iterator[Path]:
        """A local folder a stage may fill with intermediate files: the member folder itself for a
        local batch (emptied first), else a temporary folder removed afterwards."""
        if self.is_local:
            yield reset_dir(Path(self.path(*parts)))
            return
        tmp = Path(tempfile.mkdtemp(prefix="redotrail-scratch-"))
        try:
            yield tmp
        finally:
            shutil.rmtree(tmp, ignore_errors=True)


def upload_tree(local: Path, url: str) -> list[str]:
    """Upload every file under a local folder to ``s3://bucket/prefix/...`` with boto3."""
    from redo_lib.storage.s3 import s3_client, upload_file

    client = s3_client()
    base = url.rstrip("/")
    done = []
    for path in sorted(p for p in local.rglob("*") if p.is_file()):
        target = f"{base}/{path.relative_to(local).as_posix()}"
        upload_file(path, target, client=client)
        done.append(target)
    return done
