"""What a Spark Python worker, reused from task to task, does at the start of each: :func:`task_start`.

PySpark spends about 80 ms of the worker's CPU before each task of a reused worker, before our code
runs (found with ``strace`` and ``perf`` on the worker; 200 empty tasks in one core: 23 s, 1.7 s
with these remedies and the Unix socket of include/spark/spark-defaults.conf; the 5 GB decode's 107
tasks do 0.35 s of work each, docs/benchmarks.md). Two causes:

**Zip directories read again.** The worker calls ``importlib.invalidate_caches()`` before every task
(it may have been handed new ``--py-files``). On Python 3.10 and 3.11 that makes every
``zipimporter`` on ``sys.path`` read its archive's whole directory again, in Python: pyspark.zip (one
importer per package folder of it, a dozen), the py4j zip and the spark-core jar. CPython 3.12 made
the invalidation lazy (python/cpython#103200, not backported). :func:`reuse_unchanged_zip_directories`
gives 3.10/3.11 the same cost: an archive whose size and modification time have not changed since
its directory was read keeps it; a changed one (a ``--py-files`` zip replaced under its name) is
read again, as before.

**A full garbage collection.** PySpark's daemon calls ``gc.collect()`` after every task; the
collector walks every object the worker holds, the modules of redo_lib, pyarrow and numpy first
(about 40,000 objects): 36 ms a task. :func:`task_start` moves what is alive at a task's start
into the collector's permanent generation (``gc.freeze``, made for long-lived processes that
collect often): the collections after it walk only what later tasks make. Freezing only hides
objects from the cycle collector: a frozen object no longer referenced is still freed by its
reference count; only a cycle of objects alive at a task's start and dropped later is kept (the
modules, caches and unpickled task functions alive then are not such cycles).
"""

from __future__ import annotations

import gc
import os
import sys
from typing import Any


def task_start() -> bool:
    """What a task calls first (``spark_jobs.common.carry_errors``, ``spark_jobs.mirror.fold_partition``):
    in a reused PySpark worker (``SPARK_REUSE_WORKER``, set for the workers PySpark's daemon forks),
    ``gc.freeze()`` what is alive now, so the daemon's collection after the task walks only what the
    tasks made since, and :func:`reuse_unchanged_zip_directories`. Anywhere else (a test calling a
    task function in its own process) nothing changes. True when it acted."""
    if not os.environ.get("SPARK_REUSE_WORKER"):
        return False
    gc.freeze()
    reuse_unchanged_zip_directories()
    return True


# archive path -> (mtime_ns, size) of the file when zipimport last read its directory here
_READ_AT: dict[str, tuple[int, int]] = {}


def _stamp(path: str) -> tuple[int, int] | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return st.st_mtime_ns, st.st_size


def reuse_unchanged_zip_directories() -> bool:
    """On Python before 3.12, make ``zipimporter.invalidate_caches`` keep the directory of an
    archive that has not changed (once per process; a task calls it first). True when it changed
    the behaviour, now or before."""
    if sys.version_info >= (3, 12):
        return False  # invalidation is lazy there already
    import zipimport

    if getattr(zipimport.zipimporter.invalidate_caches, "keeps_unchanged", False):
        return True
    reread = zipimport.zipimporter.invalidate_caches
    directories: Any = zipimport._zip_directory_cache  # type: ignore[attr-defined]

    def invalidate_caches(self: Any) -> None:
        stamp = _stamp(self.archive)
        if stamp is not None and _READ_AT.get(self.archive) == stamp and self.archive in directories:
            self._files = directories[self.archive]  # the directory read at this stamp, shared
            return
        reread(self)
        if stamp is not None:
            _READ_AT[self.archive] = stamp

    invalidate_caches.keeps_unchanged = True  # type: ignore[attr-defined]
    invalidate_caches.__doc__ = reread.__doc__
    zipimport.zipimporter.invalidate_caches = invalidate_caches  # type: ignore[method-assign]
    return True
