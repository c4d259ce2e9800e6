"""What every Spark stage shares: the SparkSession (settings from include/spark/spark-defaults.conf)
and the batch folder (docs/pipeline-contract.md), local or ``s3://``. Nothing here knows about Oracle.

``BatchDir`` reads and writes the small documents of a batch (``manifest.json``, ``counts.json``,
markers, reports) the same way in a local folder and under an ``s3://`` prefix (boto3). Spark reads
and writes the batch's Parquet folders (staged events, trail, open transactions) where they are:
``BatchDir.spark_uri`` is the local path or the ``s3a://`` URI (hadoop-aws, configured for the
``AWS_*`` endpoint by :func:`s3a_settings`), so no stage hands a path on its own disk to another
process.

``run_stage`` runs a stage's body, after removing the markers of an earlier run that the stage makes
stale, and turns a failure into ``<batch>/report/failure.json``, one line on stderr naming its cause
(:func:`describe_failure`) and an exit code (docs/pipeline-contract.md): 1 may pass on retry, 2
(invalid), 3 (refused), 4 (an error in the input) and 5 (a pinned jar missing from the JVM:
:func:`check_jars`) will not. Passwords in URIs are masked in what it writes (:func:`mask_secrets`).
"""

from __future__ import annotations

import contextvars
import datetime as dt
import json
import os
import re
import shutil
import sys
import tempfile
import time
import traceback
import uuid
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
DEFAULTS = ROOT / "include" / "spark" / "spark-defaults.conf"
JARS = ROOT / "include" / "jvm" / "jars.txt"  # the pinned jars ./redotrail setup installs
DATA = ROOT / "data"  # the embedded default's data folder (git-ignored)

EXIT_FAILED = 1  # any other exception: may pass on retry (S3 5xx, a lost executor, an OOM kill)
EXIT_INPUT_ERROR = 4  # a RedoError on the input (not a StorageError): fails the same way on retry
EXIT_SETUP = 5  # a pinned jar is missing from the JVM (MissingJarError): run ./redotrail setup
FAILURE = ("report", "failure.json")
CARRIED = "redotrail-error "  # marks a RedoError raised on an executor (carry_errors)


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
    spark-submit, its ``--master`` and ``--conf`` settings win over the defaults file. Inside a stage
    (:func:`run_stage`) the session's JVM must hold every pinned jar (:func:`check_jars`), before the
    stage does any work."""
    if spark is not None:
        check_jars(spark)
        return spark
    os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    os.environ.setdefault("TZ", "UTC")
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)  # workers use this venv, not PATH's python
    from pyspark.sql import SparkSession

    submitted = _submitted_keys()
    builder = SparkSession.builder.appName(app_name)
    if master or "PYSPARK_GATEWAY_PORT" not in os.environ:
        master = master or os.environ.get("SPARK_MASTER", "local[*]")
        builder = builder.master(master)
    else:
        from pyspark import SparkConf

        master = SparkConf().get("spark.master", "local[*]")
    for key, value in {**spark_defaults(), **s3a_settings(), **executor_env(master)}.items():
        if key not in submitted:
            builder = builder.config(key, value)
    session = builder.getOrCreate()
    check_jars(session)
    return session


# A class each pinned jar holds (artifact of include/jvm/jars.txt -> class): loading it through the
# driver's JVM proves the jar is on its classpath, however it got there (pyspark's jars/ folder, a
# cluster image, --jars).
JAR_CLASSES = {
    "iceberg-spark-runtime-4.1_2.13": "org.apache.iceberg.spark.SparkCatalog",
    "delta-spark_2.13": "io.delta.sql.DeltaSparkSessionExtension",
    "delta-storage": "io.delta.storage.LogStore",
    "hadoop-aws": "org.apache.hadoop.fs.s3a.S3AFileSystem",
    "bundle": "software.amazon.awssdk.services.s3.S3Client",
    "analyticsaccelerator-s3": "software.amazon.s3.analyticsaccelerator.S3SeekableInputStreamFactory",
    "postgresql": "org.postgresql.Driver",
    "sqlite-jdbc": "org.sqlite.JDBC",
}


class MissingJarError(RuntimeError):
    """A pinned jar (include/jvm/jars.txt) is not on the JVM's classpath: a setup error, the same on
    every retry (exit code ``EXIT_SETUP``)."""

    def __init__(self, missing: Sequence[tuple[str, str]]) -> None:
        self.jars = [spec for spec, _ in missing]
        named = "; ".join(f"{spec} (class {cls} not found)" for spec, cls in missing)
        super().__init__(
            f"the Spark JVM lacks pinned jars of include/jvm/jars.txt: {named}. Run ./redotrail setup "
            "(it installs them into the venv's pyspark/jars); a cluster gets them through its image "
            "or --jars"
        )


def pinned_jars(path: Path = JARS) -> list[str]:
    """The ``group:artifact:version`` entries of include/jvm/jars.txt, in its order."""
    lines = (line.split("#", 1)[0].split() for line in path.read_text().splitlines())
    return [fields[0] for fields in lines if fields]


def missing_jars(
    has_class: Callable[[str], bool], path: Path = JARS, optional: str | None = None
) -> list[tuple[str, str]]:
    """(entry, class) of each pinned jar whose class ``has_class`` does not find, in jars.txt order. An
    entry without a class in ``JAR_CLASSES`` is reported too: the check must know every pinned jar.

    ``optional`` (default ``$REDOTRAIL_OPTIONAL_JARS``): comma-separated artifact ids a deployment
    does without (``sqlite-jdbc`` beside a REST catalog, ``delta-spark_2.13,delta-storage`` when it
    publishes Iceberg only); they are not required."""
    text = os.environ.get("REDOTRAIL_OPTIONAL_JARS", "") if optional is None else optional
    skipped = {name.strip() for name in text.split(",") if name.strip()}
    out = []
    for spec in pinned_jars(path):
        if spec.split(":")[1] in skipped:
            continue
        cls = JAR_CLASSES.get(spec.split(":")[1])
        if cls is None or not has_class(cls):
            out.append((spec, cls or "unknown: add the jar to spark_jobs.common.JAR_CLASSES"))
    return out


_JARS_CHECKED: dict[str, list[tuple[str, str]]] = {}  # application id -> its missing jars
_IN_STAGE = contextvars.ContextVar("redotrail_in_stage", default=False)  # set by run_stage


def check_jars(spark: Any) -> list[tuple[str, str]]:
    """The pinned jars whose class does not load in the session's JVM (looked up once per
    application), as (entry, class); inside a stage (:func:`run_stage`) a ``MissingJarError`` when
    there is any. Outside one (``spark_jobs/batch.py`` building the session its stages share, a
    test's session) nothing is raised: the first stage raises it, with its failure.json."""
    app = spark.sparkContext.applicationId
    if app not in _JARS_CHECKED:
        utils = spark._jvm.org.apache.spark.util.Utils

        def has_class(name: str) -> bool:
            try:
                utils.classForName(name, False, False)  # the context class loader: --jars too
            except Exception:  # py4j: java.lang.ClassNotFoundException
                return False
            return True

        _JARS_CHECKED[app] = missing_jars(has_class)
    if _JARS_CHECKED[app] and _IN_STAGE.get():
        raise MissingJarError(_JARS_CHECKED[app])
    return list(_JARS_CHECKED[app])


def check_location(spark: Any, uri: str, what: str) -> None:
    """Fail before any work when Spark cannot reach ``uri`` (``s3a://``: the S3 endpoint; a probe of
    the path through the session's Hadoop file system, with its retries): a ``StorageError`` naming
    ``what``, the URI and, for ``s3a://``, the endpoint. A local path is not probed."""
    from redo_lib.errors import Position, StorageError

    if local_path(uri) is not None:
        return
    jvm = spark._jvm
    conf = spark._jsparkSession.sessionState().newHadoopConf()
    started = time.monotonic()
    try:
        path = jvm.org.apache.hadoop.fs.Path(uri)
        path.getFileSystem(conf).exists(path)
    except Exception as exc:
        where = ""
        if uri.startswith("s3a://"):
            endpoint = conf.get("fs.s3a.endpoint") or "the AWS default"
            where = f" (S3 endpoint {endpoint}: AWS_ENDPOINT_URL, or fs.s3a.endpoint)"
        raise StorageError(
            f"cannot reach {what}{where}, gave up after {time.monotonic() - started:.1f} s of retries: "
            f"{java_message(exc)}",
            position=Position(file=uri),
        ) from exc


EXECUTOR_ENV = ROOT / "dist" / "redotrail-executor-env.tar.gz"  # ./redotrail pack


def executor_env(master: str, archive: Path | None = None) -> dict[str, str]:
    """On a cluster master, the executors' Python is the packed environment (``./redotrail pack``,
    ``$REDOTRAIL_EXECUTOR_ENV``) shipped with the job as ``spark.archives``; local mode keeps the
    venv. Sets ``PYSPARK_PYTHON`` for the executors only: the driver is already running."""
    if master.startswith("local"):
        return {}
    path = archive or Path(os.environ.get("REDOTRAIL_EXECUTOR_ENV") or EXECUTOR_ENV)
    if not path.is_file():
        return {}
    os.environ["PYSPARK_PYTHON"] = "./environment/bin/python"
    return {"spark.archives": f"{path}#environment"}


def s3a_settings(env: dict[str, str] | None = None) -> dict[str, str]:
    """hadoop-aws settings for the S3 endpoint of the ``AWS_*`` environment (what boto3 uses too):
    a custom endpoint (moto_server, MinIO, an on-premises S3 API) with its scheme and region."""
    env = dict(os.environ) if env is None else env
    endpoint = env.get("AWS_ENDPOINT_URL_S3") or env.get("AWS_ENDPOINT_URL")
    out = {}
    if endpoint:
        out["spark.hadoop.fs.s3a.endpoint"] = endpoint
        out["spark.hadoop.fs.s3a.connection.ssl.enabled"] = str(endpoint.startswith("https://")).lower()
    region = env.get("AWS_REGION") or env.get("AWS_DEFAULT_REGION")
    if region:
        out["spark.hadoop.fs.s3a.endpoint.region"] = region
    return out


CATALOG = "redotrail"  # the Spark catalog of the Iceberg tables (pyiceberg readers use the same name)
CATALOG_CONF = f"spark.sql.catalog.{CATALOG}"


def spark_warehouse(uri: str) -> str:
    """A warehouse URI as Spark writes it: ``s3://`` becomes ``s3a://`` (hadoop-aws), a plain path
    becomes an absolute ``file://`` URI."""
    text = uri.rstrip("/")
    if text.startswith("s3://"):
        return "s3a://" + text.removeprefix("s3://")
    if "://" not in text:
        return "file://" + str(Path(text).resolve())
    return text


def local_path(uri: str) -> str | None:
    """The local path of a ``file://`` URI or plain path; None for a remote URI."""
    if uri.startswith("file://"):
        return uri.removeprefix("file://")
    return None if "://" in uri else uri


def catalog_settings(
    warehouse: str, catalog_uri: str | None = None, properties: dict[str, str] | None = None
) -> dict[str, str]:
    """The session settings of the Iceberg catalog ``redotrail`` (``spark.sql.catalog.redotrail.*``).

    A JDBC catalog by default: ``catalog_uri`` (``jdbc:postgresql://...``), else SQLite beside a
    local warehouse (``jdbc:sqlite:<warehouse>/catalog.db``, the embedded default). A remote
    warehouse needs ``catalog_uri`` or a catalog chosen by ``properties`` (``type=rest``,
    ``type=glue``, ``catalog-impl=...``); ``properties`` are passed as they are and win."""
    props = dict(properties or {})
    wh = spark_warehouse(warehouse)
    settings = {"warehouse": wh, "cache-enabled": "false"}  # other engines commit too: load fresh
    if catalog_uri:
        settings |= {"type": "jdbc", "uri": catalog_uri}
    elif not {"type", "catalog-impl", "uri"} & props.keys():
        local = local_path(wh)
        if local is None:
            raise ValueError(
                f"warehouse {warehouse} is remote: give --catalog-uri jdbc:postgresql://... "
                "or --catalog-property type=rest|glue ..."
            )
        settings |= {"type": "jdbc", "uri": f"jdbc:sqlite:{local}/catalog.db"}
    if (
        str(props.get("uri", settings.get("uri", ""))).startswith("jdbc:")
        and not {"type", "catalog-impl"} & props.keys()
    ):
        settings["type"] = "jdbc"
    settings |= props
    if settings.get("type") == "jdbc":
        settings.setdefault("jdbc.schema-version", "V1")  # the tables pyiceberg's SqlCatalog reads
    out = {CATALOG_CONF: "org.apache.iceberg.spark.SparkCatalog"}
    out |= {f"{CATALOG_CONF}.{key}": value for key, value in settings.items()}
    return out


def configure_catalog(
    spark: Any, warehouse: str, catalog_uri: str | None = None, properties: dict[str, str] | None = None
) -> str:
    """Point the session's catalog ``redotrail`` at this warehouse before its first use (a session
    that used it with other settings, as tests do, drops its loaded catalogs); returns the warehouse
    as Spark addresses it. A local warehouse folder is created (SQLite needs it)."""
    wanted = catalog_settings(warehouse, catalog_uri, properties)
    wh = wanted[f"{CATALOG_CONF}.warehouse"]
    local = local_path(wh)
    if local is not None:
        Path(local).mkdir(parents=True, exist_ok=True)
    current = {
        k: v for k, v in spark.conf.getAll.items() if k == CATALOG_CONF or k.startswith(CATALOG_CONF + ".")
    }
    if current == wanted:
        return wh
    for key in current.keys() - wanted.keys():
        spark.conf.unset(key)
    for key, value in wanted.items():
        spark.conf.set(key, value)
    if current:  # the catalog may be loaded with the old settings: load it again on next use
        spark._jsparkSession.sessionState().catalogManager().reset()
    return wh


def catalog_name(spark: Any) -> str:
    """How errors name the session's Iceberg catalog ``redotrail``: its URI with the password masked,
    else its type or implementation."""
    conf = spark.conf
    for key in ("uri", "type", "catalog-impl"):
        value = conf.get(f"{CATALOG_CONF}.{key}", None)
        if value:
            return mask_secrets(value) if key == "uri" else f"{key}={value}"
    return CATALOG


def ship_library(spark: Any) -> None:
    """Make ``redo_lib`` importable on executors when it is not installed there (a cluster):
    zip the package once and add it with ``addPyFile``. Local mode shares the driver's venv."""
    master = spark.sparkContext.master
    if master.startswith("local") or "#environment" in spark.conf.get("spark.archives", ""):
        return  # the venv, or the packed environment (executor_env) has redo_lib installed
    if spark.sparkContext.applicationId in _SHIPPED:
        return  # once per application (spark_jobs/batch.py runs several stages in one)
    base = Path(tempfile.mkdtemp(prefix="redotrail-lib-")) / "redo_lib"
    archive = shutil.make_archive(str(base), "zip", root_dir=ROOT, base_dir="redo_lib")
    spark.sparkContext.addPyFile(archive)
    _SHIPPED.add(spark.sparkContext.applicationId)


_SHIPPED: set[str] = set()  # the applications ship_library added redo_lib to


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


class BatchDir:
    """One batch folder ``<work>/batches/<batch_id>/`` (docs/pipeline-contract.md): a local folder, or
    an ``s3://bucket/prefix`` read and written with boto3 (endpoint from ``$AWS_ENDPOINT_URL``)."""

    def __init__(self, uri: str | os.PathLike[str]) -> None:
        text = os.fspath(uri).rstrip("/")
        self.is_local = not text.startswith("s3://")
        if self.is_local:
            self.uri = str(Path(text.removeprefix("file://")).resolve())
            self.bucket, self.prefix = "", ""
        else:
            self.uri = text
            self.bucket, _, self.prefix = text.removeprefix("s3://").partition("/")
        self._client: Any = None

    def __repr__(self) -> str:
        return f"BatchDir({self.uri!r})"

    @property
    def client(self) -> Any:
        if self._client is None:
            from redo_lib.storage.s3 import s3_client

            self._client = s3_client()
        return self._client

    @property
    def name(self) -> str:
        return self.uri.rsplit("/", 1)[-1]

    def path(self, *parts: str) -> str:
        """A member's local path, or its S3 key."""
        if self.is_local:
            return "/".join([self.uri, *parts])
        return "/".join([self.prefix, *parts]).lstrip("/")

    def uri_of(self, *parts: str) -> str:
        return "/".join([self.uri, *parts])

    def spark_uri(self, *parts: str) -> str:
        """A member as Spark reads and writes it: the local path, or ``s3a://bucket/key`` (hadoop-aws)."""
        return self.path(*parts) if self.is_local else f"s3a://{self.bucket}/{self.path(*parts)}"

    def sibling(self, batch_id: str) -> BatchDir:
        """Another batch of the same ``batches/`` folder (e.g. the manifest's ``previous_batch``)."""
        return BatchDir(f"{self.uri.rsplit('/', 1)[0]}/{batch_id}")

    def _keys(self, *parts: str) -> list[str]:
        prefix = self.path(*parts) + "/"
        pages = self.client.get_paginator("list_objects_v2").paginate(Bucket=self.bucket, Prefix=prefix)
        return [o["Key"] for page in pages for o in page.get("Contents", [])]

    def files(self, *parts: str, suffix: str = ".parquet") -> list[str]:
        """The files of a member folder whose names end in ``suffix``, as locations (local paths or
        ``s3://`` URLs), sorted; none when the folder does not exist."""
        if self.is_local:
            folder = Path(self.path(*parts))
            return sorted(str(p) for p in folder.glob(f"*{suffix}")) if folder.is_dir() else []
        keys = [
            k for k in self._keys(*parts) if k.endswith(suffix) and "/" not in k[len(self.path(*parts)) + 1 :]
        ]
        return sorted(f"s3://{self.bucket}/{k}" for k in keys)

    def exists(self, *parts: str) -> bool:
        """A member file or folder exists."""
        if self.is_local:
            return Path(self.path(*parts)).exists()
        try:
            self.client.head_object(Bucket=self.bucket, Key=self.path(*parts))
            return True
        except Exception:  # botocore ClientError 404: maybe a folder
            return bool(self._keys(*parts))

    def read_text(self, *parts: str) -> str:
        if self.is_local:
            return Path(self.path(*parts)).read_text(encoding="utf-8")
        body = self.client.get_object(Bucket=self.bucket, Key=self.path(*parts))["Body"]
        return bytes(body.read()).decode("utf-8")

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
            self.client.put_object(Bucket=self.bucket, Key=target, Body=text.encode("utf-8"))
        return self.uri_of(*parts)

    def write_json(self, doc: Any, *parts: str) -> str:
        return self.write_text(json.dumps(doc, indent=2, sort_keys=True, default=str) + "\n", *parts)

    def remove(self, *parts: str) -> None:
        """Delete a member file if present."""
        if self.is_local:
            Path(self.path(*parts)).unlink(missing_ok=True)
        else:
            self.client.delete_object(Bucket=self.bucket, Key=self.path(*parts))

    def remove_tree(self, *parts: str) -> None:
        """Delete a member folder and everything under it, if present."""
        if self.is_local:
            shutil.rmtree(self.path(*parts), ignore_errors=True)
            return
        keys = self._keys(*parts)
        for first in range(0, len(keys), 1000):  # DeleteObjects takes up to 1000 keys
            objects = [{"Key": key} for key in keys[first : first + 1000]]
            self.client.delete_objects(Bucket=self.bucket, Delete={"Objects": objects, "Quiet": True})

    def put_dir(self, local: Path, *parts: str) -> None:
        """Replace a member folder with a copy of a local folder (a report, say)."""
        target = self.path(*parts)
        if self.is_local:
            shutil.rmtree(target, ignore_errors=True)
            shutil.copytree(local, target)
            return
        for key in self._keys(*parts):
            self.client.delete_object(Bucket=self.bucket, Key=key)
        upload_tree(local, self.uri_of(*parts))


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


def read_trail(spark: Any, path: str | os.PathLike[str]) -> Any:
    """A batch's trail folder (a local path or an ``s3a://`` URI: ``BatchDir.spark_uri("trail")``) as
    a DataFrame of ``redo_lib.trail.schema.trail_schema()`` (an empty folder gives an empty frame,
    not a schema inference error)."""
    from pyspark.sql.pandas.types import from_arrow_schema

    from redo_lib.trail.schema import trail_schema

    return spark.read.schema(from_arrow_schema(trail_schema())).parquet(os.fspath(path))


_SHARED_TRAILS: dict[str, Any] | None = None  # trail URI -> cached frame, while ``shared_trails`` runs


@contextmanager
def shared_trails() -> Iterator[None]:
    """Within this block, :func:`cached_trail` hands every stage the same cached trail of a batch, and
    the cache is dropped when the block ends (``spark_jobs/batch.py`` runs a batch's stages in it).

    Publish reads the whole trail into Spark's cache (about 11 s of a 1 GB batch on two cores:
    docs/benchmarks.md); validate reads only the columns its rules check and caches no trail
    (include/gx/features.sql), so today publish is the one stage of a batch that fills it. Only
    inside the block: the batch folder stays the stages' one hand-over, and no cached trail
    outlives the batch that wrote it (a stage re-run after its trail was rewritten would otherwise
    read the old rows)."""
    global _SHARED_TRAILS
    outer, _SHARED_TRAILS = _SHARED_TRAILS, {}
    try:
        yield
    finally:
        for frame in _SHARED_TRAILS.values():
            frame.unpersist()
        _SHARED_TRAILS = outer


@contextmanager
def cached_trail(spark: Any, uri: str) -> Iterator[Any]:
    """The batch's trail (:func:`read_trail`) cached for the block: the one :func:`shared_trails`
    keeps, or one of the block's own, dropped when it ends."""
    if _SHARED_TRAILS is not None:
        if uri not in _SHARED_TRAILS:
            _SHARED_TRAILS[uri] = read_trail(spark, uri).cache()
        yield _SHARED_TRAILS[uri]
        return
    frame = read_trail(spark, uri).cache()
    try:
        yield frame
    finally:
        frame.unpersist()


# ---------------------------------------------------------------------------------------------
# Failures: report/failure.json and the exit code


def run_tasks(session: Any, items: list[Any], fn: Callable[[Any], Any]) -> list[Any]:
    """``fn(item)`` for every item, one Spark task each (``carry_errors``: a ``RedoError`` reaches
    the driver with its position); the results in the items' order. For stages whose tasks read and
    write their own files and hand Spark only a small result (``redo_lib/exchange.py``)."""
    if not items:
        return []
    task = carry_errors(fn)
    return list(session.sparkContext.parallelize(items, len(items)).map(task).collect())


def carry_errors(fn: Callable[..., Any]) -> Callable[..., Any]:
    """``fn`` for an executor, so that a ``RedoError`` it raises (or raises while its result is
    iterated) reaches the driver with its kind and position.

    Executor errors reach the driver as traceback text only: the error is raised again as a
    ``RuntimeError`` whose message is ``CARRIED`` and the error's ``to_dict()`` as JSON, which
    :func:`describe_failure` reads back. The wrapper is a closure, pickled by value: executors need
    ``redo_lib`` only."""

    def run(*args: Any, **kwargs: Any) -> Any:
        from redo_lib.errors import RedoError
        from redo_lib.worker import task_start

        task_start()  # PySpark's own work before each task of a reused worker (redo_lib/worker.py)

        def carried(exc: RedoError) -> RuntimeError:
            return RuntimeError(CARRIED + json.dumps({**exc.to_dict(), "error": str(exc)}))

        try:
            result = fn(*args, **kwargs)
        except RedoError as exc:
            raise carried(exc) from exc
        if not isinstance(result, Iterator):
            return result

        def items() -> Iterator[Any]:
            try:
                yield from result
            except RedoError as exc:
                raise carried(exc) from exc

        return items()

    return run


def _carried(text: str) -> dict[str, Any] | None:
    """The error :func:`carry_errors` put in an executor failure's text, or None."""
    found = text.find(CARRIED)
    if found < 0:
        return None
    try:
        doc, _ = json.JSONDecoder().raw_decode(text, found + len(CARRIED))
    except ValueError:
        return None
    return doc if isinstance(doc, dict) else None


def _summary(text: str) -> str:
    """One line for an exception's text (Spark's start with 'An error occurred while calling ...')."""
    lines = [line.strip(" :") for line in text.splitlines() if line.strip(" :")]
    line = next((x for x in lines if "Error:" in x or "Exception:" in x), lines[0] if lines else "")
    return line[:500]


_CAUSED_BY = re.compile(r"^\s*Caused by: (.+)$", re.MULTILINE)
_NAMES_URI = re.compile(r"[a-z][a-z0-9+.-]*://[^\s\"']+", re.IGNORECASE)
_NAMES_HOST = re.compile(r"\b[a-z0-9][\w.-]*:\d{1,5}\b", re.IGNORECASE)


def named_cause(text: str) -> str | None:
    """The deepest ``Caused by:`` of a Java stack trace (a Spark error's text) that names a URI, else
    the deepest that names a host:port: what could not be reached, which the top of the trace
    ("Job aborted ...: Failed to create Parquet file") often does not say. None when none does."""
    causes = [c.strip() for c in _CAUSED_BY.findall(text)]
    for pattern in (_NAMES_URI, _NAMES_HOST):
        named = [c for c in causes if pattern.search(c)]
        if named:
            return named[-1][:500]
    return None


def root_cause(text: str) -> str | None:
    """The deepest ``Caused by:`` of a Java stack trace (a Spark error's text): the exception the
    chain started from, as ``class: message``. None when the text has none."""
    causes = _CAUSED_BY.findall(text)
    return causes[-1].strip()[:500] if causes else None


_TRACEBACK = "Traceback (most recent call last):"
_RAISED = re.compile(r"([A-Za-z_][\w.]*)(?::[ \t]*(.*))?")


def python_error(text: str) -> tuple[str, str] | None:
    """(class name, message on one line) of the exception the last Python traceback in ``text`` ends
    with: what a Python worker raised, inside the Java error Spark hands the driver
    (``... PythonException: Traceback (most recent call last): ...``). None without a traceback."""
    found = text.rfind(_TRACEBACK)
    if found < 0:
        return None
    lines = text[found + len(_TRACEBACK) :].splitlines()
    for at, line in enumerate(lines):
        if not line.strip() or line[0].isspace():
            continue  # the frames and their source lines are indented
        raised = _RAISED.fullmatch(line.rstrip())
        if raised is None:
            return None
        words = [raised.group(2) or ""]
        for more in lines[at + 1 :]:  # a message of several lines ends at a blank line or Java's stack
            if not more.strip() or more.startswith("\tat "):
                break
            words.append(more.strip())
        return raised.group(1).rsplit(".", 1)[-1], " ".join(words).strip()[:500]
    return None


def failure_text(exc: BaseException) -> str:
    """An exception's text with its Java stack trace, where the causes are: a ``Py4JJavaError``'s
    text holds it; an exception pyspark converted from a Java one (``pyspark.errors``: an
    ``AnalysisException``, a ``PythonException`` of a DataFrame's Python function) keeps it apart."""
    text = str(exc)
    stack = getattr(exc, "_stackTrace", None)
    if isinstance(stack, str) and stack and stack not in text:
        text = f"{text}\n{stack}"
    return text


def java_message(exc: BaseException) -> str:
    """One line for an exception: a JVM error raised through py4j as its Java exception says it
    (``class: message``), anything else as :func:`_summary` of its text."""
    java = getattr(exc, "java_exception", None)  # py4j.protocol.Py4JJavaError
    if java is not None:
        try:
            return _summary(str(java.toString()))
        except Exception:  # the JVM is gone
            pass
    return _summary(str(exc))


_SECRET_VALUE = re.compile(r"(?i)\b((?:password|passwd|pwd|secret[\w.-]*|token)=)[^&;\s\"',)]*[^&;\s\"',):]")
_URI_PASSWORD = re.compile(r"(://[^/:@\s]+:)[^@/\s]+@")


def mask_secrets(text: str) -> str:
    """``text`` with the passwords of URIs masked: ``password=...`` parameters (a JDBC URI's) and
    ``user:password@`` parts become ``***``."""
    return _URI_PASSWORD.sub(r"\1***@", _SECRET_VALUE.sub(r"\1***", text))


def describe_failure(exc: BaseException) -> dict[str, Any]:
    """What failure.json says about an exception: kind, message, error (one line), position, details,
    retryable and exit code. A ``RedoError`` (raised here, or on an executor through
    :func:`carry_errors`) is an error in the input and not retryable, except a ``StorageError``; a
    ``MissingJarError`` is a setup error, not retryable either. Any other exception may pass on retry
    and is named by its cause, in one line: a Python worker's exception inside Spark's Java error
    (``Py4JJavaError ... PythonException: Traceback ...``) by its own class and message
    (:func:`python_error`; ``details.via`` keeps the wrapper's class); a Java error by its one-line
    summary with the cause that names a URI or host (:func:`named_cause`), else its root cause
    (:func:`root_cause`), when that is another; any other by its class and message."""
    from redo_lib.errors import RedoError, StorageError

    if isinstance(exc, MissingJarError):
        return {
            "kind": "missing_jar", "message": str(exc), "error": str(exc), "position": None,
            "details": {"jars": ", ".join(exc.jars)}, "retryable": False, "exit_code": EXIT_SETUP,
        }  # fmt: skip
    text = failure_text(exc)
    error = exc.to_dict() | {"error": str(exc)} if isinstance(exc, RedoError) else _carried(text)
    if error is None:
        raised = python_error(text)
        details: dict[str, str] = {}
        if raised is not None:  # a Python worker's exception, in the Java error of the job it failed
            (kind, message), details = raised, {"via": type(exc).__name__}
        else:
            kind, message = type(exc).__name__, _summary(text)
            cause = named_cause(text) or root_cause(text)
            if cause and cause not in message:
                message = f"{message}; caused by {cause}"
        return {
            "kind": kind, "message": message, "error": f"{kind}: {message}",
            "position": None, "details": details, "retryable": True, "exit_code": EXIT_FAILED,
        }  # fmt: skip
    position = {k: v for k, v in (error.get("position") or {}).items() if v is not None}
    retryable = error.get("kind") == StorageError.kind
    return {
        "kind": error.get("kind"),
        "message": error.get("message"),
        "error": error.get("error") or error.get("message"),
        "position": position or None,
        "details": error.get("details") or {},
        "retryable": retryable,
        "exit_code": EXIT_FAILED if retryable else EXIT_INPUT_ERROR,
    }


def report_failure(
    batch_dir: str | os.PathLike[str], stage: str, *, kind: str, message: str, retryable: bool,
    exit_code: int, error: str | None = None, position: dict[str, Any] | None = None,
    details: dict[str, Any] | None = None, published: Sequence[str] = (),
) -> int:  # fmt: skip
    """Write ``<batch>/report/failure.json``, print one line to stderr, return ``exit_code``.

    ``published`` names the tables the stage committed before it failed ("nothing" when none).
    Passwords in the message and error are masked (:func:`mask_secrets`)."""
    batch = BatchDir(batch_dir)
    message = mask_secrets(message)
    error = mask_secrets(error or message)
    doc = {
        "batch_id": batch.name,
        "stage": stage,
        "kind": kind,
        "message": message,
        "error": error,
        "position": position,
        "details": details or {},
        "retryable": retryable,
        "exit_code": exit_code,
        "published": list(published) or "nothing",
        "time": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
    }
    try:
        where = batch.write_json(doc, *FAILURE)
    except Exception as exc:  # the report must not hide the failure itself
        where = f"not written ({type(exc).__name__}: {exc})"
    retry = "may pass on retry" if retryable else "do not retry"
    print(f"{stage} {batch.name} failed: {error} [{retry}; {where}]", file=sys.stderr, flush=True)
    return exit_code


def run_stage(
    stage: str, batch_dir: str | os.PathLike[str], body: Callable[[], int], *, published: Sequence[str] = ()
) -> int:
    """Run a stage's body: remove the failure.json of an earlier attempt and the markers the stage
    makes stale (``redo_lib.discovery.batches.clear_earlier_run``: decode, assemble and validate remove
    VALIDATED and PUBLISHED, so that a stage run by hand leaves none of an earlier run), and turn an
    exception into failure.json (:func:`report_failure`) and its exit code. ``published`` is read
    after a failure (publish appends the tables it committed). The traceback goes to stderr with
    passwords masked, before the stage's one line."""
    from redo_lib.discovery.batches import clear_earlier_run

    in_stage = _IN_STAGE.set(True)
    try:
        batch = BatchDir(batch_dir)
        clear_earlier_run(batch.uri, stage, None if batch.is_local else batch.client)
        return body()
    except Exception as exc:
        print(mask_secrets(traceback.format_exc()), end="", file=sys.stderr, flush=True)
        return report_failure(batch_dir, stage, **describe_failure(exc), published=published)
    finally:
        _IN_STAGE.reset(in_stage)
