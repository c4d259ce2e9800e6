"""What a reused Spark Python worker does at a task's start (``redo_lib.worker``): an unchanged zip on
``sys.path`` keeps its directory through ``importlib.invalidate_caches()``, a changed one is read
again; what is alive at a task's start is frozen out of the collector's walk."""

from __future__ import annotations

import gc
import importlib
import sys
import zipfile
import zipimport
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from redo_lib import worker

needs_311 = pytest.mark.skipif(sys.version_info >= (3, 12), reason="lazy on 3.12+: nothing to do")


def write_zip(path: Path, modules: dict[str, str]) -> None:
    with zipfile.ZipFile(path, "w") as archive:
        for name, text in modules.items():
            archive.writestr(f"{name}.py", text)


@pytest.fixture
def zip_on_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[Path, list[str]]]:
    """A zip of one module on ``sys.path``, imported; the archives ``_read_directory`` reads listed;
    zipimport's class restored afterwards (the remedy patches it for the process)."""
    archive = tmp_path / "lib.zip"
    write_zip(archive, {"rt_zip_first": "VALUE = 1\n"})
    monkeypatch.syspath_prepend(str(archive))
    monkeypatch.setattr(zipimport.zipimporter, "invalidate_caches", zipimport.zipimporter.invalidate_caches)
    monkeypatch.setattr(worker, "_READ_AT", {})
    reads: list[str] = []
    read_directory = zipimport._read_directory  # type: ignore[attr-defined]

    def counting(path: Any) -> Any:
        reads.append(str(path))
        return read_directory(path)

    monkeypatch.setattr(zipimport, "_read_directory", counting)
    assert importlib.import_module("rt_zip_first").VALUE == 1
    yield archive, reads
    for name in ("rt_zip_first", "rt_zip_second"):
        sys.modules.pop(name, None)


@needs_311
def test_without_the_remedy_every_invalidation_reads_the_zip_again(
    zip_on_path: tuple[Path, list[str]],
) -> None:
    archive, reads = zip_on_path
    reads.clear()
    for _ in range(3):
        importlib.invalidate_caches()
    assert reads.count(str(archive)) == 3  # what PySpark's worker pays before every task


@needs_311
def test_an_unchanged_zip_keeps_its_directory_and_a_changed_one_is_read_again(
    zip_on_path: tuple[Path, list[str]],
) -> None:
    archive, reads = zip_on_path
    assert worker.reuse_unchanged_zip_directories()
    assert worker.reuse_unchanged_zip_directories()  # a second call changes nothing
    reads.clear()
    for _ in range(3):
        importlib.invalidate_caches()
    assert reads.count(str(archive)) == 1  # read once when first seen, then kept

    # the archive replaced under its name (a --py-files zip shipped again): read again, its new
    # module importable
    write_zip(archive, {"rt_zip_first": "VALUE = 1\n", "rt_zip_second": "VALUE = 2  # longer\n"})
    reads.clear()
    importlib.invalidate_caches()
    assert reads.count(str(archive)) == 1
    assert importlib.import_module("rt_zip_second").VALUE == 2
    importlib.invalidate_caches()
    assert reads.count(str(archive)) == 1


def test_only_a_reused_spark_worker_is_changed(monkeypatch: pytest.MonkeyPatch) -> None:
    """Outside a reused PySpark worker (here: pytest calling a task function) nothing changes; inside,
    what is alive is frozen and the zip remedy is in place."""
    monkeypatch.setattr(zipimport.zipimporter, "invalidate_caches", zipimport.zipimporter.invalidate_caches)
    gc.unfreeze()
    monkeypatch.delenv("SPARK_REUSE_WORKER", raising=False)
    try:
        assert not worker.task_start()
        assert gc.get_freeze_count() == 0
        assert not getattr(zipimport.zipimporter.invalidate_caches, "keeps_unchanged", False)
        monkeypatch.setenv("SPARK_REUSE_WORKER", "1")
        alive = [object() for _ in range(10)] + [[i] for i in range(100)]
        assert worker.task_start()
        assert gc.get_freeze_count() >= len(alive)
        kept = getattr(zipimport.zipimporter.invalidate_caches, "keeps_unchanged", False)
        assert kept or sys.version_info >= (3, 12)
    finally:
        gc.unfreeze()
