"""What the DAG tasks call: settings from the environment, and one function per task.

Each function opens the catalog named by :class:`Settings`, calls the library, and returns a small
plain value for XCom (paths, ids, counts).
"""

from __future__ import annotations

import datetime as dt
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, final

from redo_lib.discovery.batches import finish_batch, plan_backfill, plan_batches, rerun_batch, start_batch
from redo_lib.discovery.objects import discover
from redo_lib.errors import LogSetError, RedoError, StorageError
from redo_lib.status import warn_threshold
from redo_lib.storage.catalog import BatchKind, BatchStatus, LogCatalog, join_location, split_prefix
from redo_lib.trail.emit import capture_options, image_options

REPO = Path(__file__).resolve().parents[2]
DEFAULT_DATA_DIR = REPO / "data"  # REDOTRAIL_DATA_DIR's default: the embedded default's folder
DEMO_DATA_DIR = DEFAULT_DATA_DIR / "demo"  # what ./redotrail demo runs in (redo_lib/demo.py)


@final
@dataclass(frozen=True, slots=True, kw_only=True)
class Settings:
    """Where things are; :meth:`from_env` reads the ``REDOTRAIL_*`` variables (docs/operations.md)."""

    archive_url: str
    work_dir: str
    catalog_db: str
    warehouse: str
    dictionary: str | None = None
    table_format: str = "iceberg"
    max_logs_per_batch: int = 8
    max_batches_per_run: int = 4
    spark_defaults: str = ""
    capture: tuple[
        str, ...
    ] = ()  # REDOTRAIL_CAPTURE: OWNER / OWNER.TABLE / -OWNER.TABLE.COLUMN; () = every table
    # REDOTRAIL_IMAGES: update-befores / full-deletes (trail contract rules 10, 11); () = GoldenGate's
    # defaults (compressed updates without before records, deletes with their key)
    images: tuple[str, ...] = ()
    dbid: int | None = None  # the source database; learned from the first logs when None
    warn_long_trans_s: float = 3600.0  # REDOTRAIL_WARN_LONG_TRANS: long-running transaction warning

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> Settings:
        env = os.environ if env is None else env
        data = Path(env.get("REDOTRAIL_DATA_DIR") or DEFAULT_DATA_DIR)

        def number(name: str, default: int) -> int:
            text = env.get(name) or str(default)
            if not text.isdigit() or int(text) < 1:
                raise RedoError(f"{name} must be a positive integer, not {text!r}")
            return int(text)

        dbid = env.get("REDOTRAIL_DBID") or None
        if dbid is not None and not dbid.isdigit():
            raise RedoError(f"REDOTRAIL_DBID must be a DBID (a non-negative integer), not {dbid!r}")
        capture = tuple(e.strip() for e in (env.get("REDOTRAIL_CAPTURE") or "").split(",") if e.strip())
        capture_options(capture)  # RedoError for an entry not OWNER, OWNER.TABLE or -OWNER.TABLE.COLUMN
        images = tuple(e.strip() for e in (env.get("REDOTRAIL_IMAGES") or "").split(",") if e.strip())
        image_options(images)  # raises RedoError for an entry that is not an image option
        return cls(
            archive_url=env.get("REDOTRAIL_ARCHIVE_URL") or "s3://redo-archive/archive/",
            work_dir=env.get("REDOTRAIL_WORK_DIR") or str(data / "work"),
            catalog_db=env.get("REDOTRAIL_CATALOG_DB") or str(data / "catalog" / "logs.sqlite"),
            warehouse=env.get("REDOTRAIL_WAREHOUSE") or f"file://{data / 'warehouse'}",
            dictionary=env.get("REDOTRAIL_DICTIONARY") or None,
            table_format=env.get("REDOTRAIL_TABLE_FORMAT") or "iceberg",
            max_logs_per_batch=number("REDOTRAIL_MAX_LOGS_PER_BATCH", 8),
            max_batches_per_run=number("REDOTRAIL_MAX_BATCHES_PER_RUN", 4),
            spark_defaults=env.get("REDOTRAIL_SPARK_DEFAULTS")
            or str(REPO / "include/spark/spark-defaults.conf"),
            capture=capture,
            images=images,
            dbid=int(dbid) if dbid is not None else None,
            warn_long_trans_s=warn_threshold(env),
        )


def discover_archive(settings: Settings, client: Any = None) -> dict[str, Any]:
    """The discovery DAG's ``discover`` task: one discovery run; the report as a plain dict.

    An archive URL that is no ``s3://`` URL is a wrong setting (a ``RedoError``), not a storage error
    a retry could fix."""
    try:
        split_prefix(settings.archive_url)
    except StorageError:
        raise RedoError(
            f"REDOTRAIL_ARCHIVE_URL must be an s3://bucket/prefix/ URL, not {settings.archive_url!r}"
        ) from None
    with LogCatalog(settings.catalog_db) as catalog:
        return discover(catalog, settings.archive_url, client=client, dbid=settings.dbid).to_dict()


def plan_pending(settings: Settings, client: Any = None) -> list[str]:
    """The ``plan`` task: plan new batches; return every scheduled batch still ``planned``, in order.

    Raises the ``LogSetError`` of a gap when it blocks progress and no batch is pending."""
    with LogCatalog(settings.catalog_db) as catalog:
        result = plan_batches(
            catalog, work_dir=settings.work_dir, dictionary=settings.dictionary,
            max_logs=settings.max_logs_per_batch, max_batches=settings.max_batches_per_run, client=client,
            capture=settings.capture, images=settings.images,
        )  # fmt: skip
        pending = [b.batch_id for b in catalog.batches(status=BatchStatus.PLANNED, kind=BatchKind.SCHEDULED)]
    if result.gaps and not pending:
        raise result.gaps[0] if len(result.gaps) == 1 else LogSetError("; ".join(str(g) for g in result.gaps))
    return pending


def resolve_batch(
    settings: Settings, *, batch_id: str | None = None, threads: Sequence[int] | None = None,
    seq_from: int | None = None, seq_to: int | None = None, client: Any = None,
) -> dict[str, Any]:  # fmt: skip
    """The pipeline's first task: a batch id (re-run) or a sequence range (backfill) -> a running batch."""
    ranged = seq_from is not None or seq_to is not None
    if batch_id and ranged:
        raise RedoError("give either batch_id or seq_from/seq_to, not both")
    with LogCatalog(settings.catalog_db) as catalog:
        if batch_id:
            batch = rerun_batch(
                catalog, batch_id, dictionary=settings.dictionary, client=client, capture=settings.capture,
                images=settings.images,
            )  # fmt: skip
        elif seq_from is not None and seq_to is not None:
            batch = plan_backfill(
                catalog, list(threads or [1]), seq_from, seq_to,
                work_dir=settings.work_dir, dictionary=settings.dictionary, client=client,
                capture=settings.capture, images=settings.images,
            )  # fmt: skip
        else:
            raise RedoError("give batch_id, or both seq_from and seq_to (and threads, default [1])")
        batch = start_batch(catalog, batch.batch_id, client)
    spark_defaults = settings.spark_defaults if Path(settings.spark_defaults).is_file() else ""
    return {
        "batch_id": batch.batch_id,
        "batch_dir": batch.batch_dir,
        "manifest": join_location(batch.batch_dir, "manifest.json"),
        "warehouse": settings.warehouse,
        "table_format": settings.table_format,
        "spark_properties": spark_defaults,
    }


def report_batch(settings: Settings, batch_id: str, client: Any = None) -> dict[str, Any]:
    """The pipeline's last task: :func:`finish_batch` with the catalog of ``settings``, plus the
    long-running transactions the batch carries out (``long_transactions``: one warning each, older
    than ``settings.warn_long_trans_s``) and the operations report across batches, rewritten
    (``operations_report``: its location; ``operations_report_error`` when it could not be written)."""
    from redo_lib.reports.history import annotate_data_docs, write_history
    from redo_lib.status import batch_doc, long_transaction_warnings, open_transactions_of, read_counts

    with LogCatalog(settings.catalog_db) as catalog:
        result = finish_batch(catalog, batch_id, client)
        batch = catalog.get_batch(batch_id)
        assert batch is not None  # finish_batch raised otherwise
        doc = batch_doc(batch, catalog.batch_logs(batch_id))
        as_of = doc["redo_end_time"]
        txns = open_transactions_of(
            read_counts(batch.batch_dir, client), dt.datetime.fromisoformat(as_of) if as_of else None
        )
        result["open_transactions"] = len(txns)
        result["long_transactions"] = long_transaction_warnings(txns, settings.warn_long_trans_s)
        annotate_data_docs(batch.batch_dir, result["long_transactions"])  # the batch's own report
        try:
            result["operations_report"] = write_history(
                catalog, settings.work_dir, warn_after_s=settings.warn_long_trans_s
            )
        except RedoError as exc:  # the batch's own status stands; say why the page is stale
            result["operations_report"] = None
            result["operations_report_error"] = str(exc)
    return result
