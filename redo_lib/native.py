"""The Rust core (``crates/``, built into ``redo_lib._native`` by ``./redotrail setup``), loaded once.

Import the extension from here, never directly: a missing extension, or one built from other
sources than the checked-out ``crates/`` (a stale build), is an ``ImportError`` that names the
command that builds it. The staleness check compares the hash the extension was built with
(``crates/redo-py/build.rs``) with the same hash of the sources here; it runs only in a checkout
(an installed wheel has no ``crates/`` beside it).

Layer 0: imports nothing from redo_lib but the extension (which raises ``redo_lib.errors`` classes).
"""

from __future__ import annotations

import contextlib
import json
import os
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING

CRATES = Path(__file__).resolve().parents[1] / "crates"
BUILD_COMMAND = "./redotrail setup"


def source_hash(root: Path = CRATES) -> str:
    """FNV-1a 64 over the sorted relative paths and contents of every ``*.rs``, ``Cargo.toml`` and
    ``Cargo.lock`` under ``crates/`` (outside ``target/`` and ``fuzz/``): the function of ``redo-py/build.rs``."""
    h = 0xCBF29CE484222325
    for rel, path in _source_files(root):
        for chunk in (rel.encode(), b"\0", path.read_bytes(), b"\0"):
            for byte in chunk:
                h = ((h ^ byte) * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    return f"{h:016x}"


def _source_files(root: Path) -> list[tuple[str, Path]]:
    """``(relative path, path)`` of the sources ``source_hash`` reads, sorted; ``target/``, ``fuzz/``
    and hidden folders are not walked at all."""
    found: list[tuple[str, Path]] = []
    for folder, dirs, names in os.walk(root):
        dirs[:] = [d for d in dirs if d not in ("target", "fuzz") and not d.startswith(".")]
        for name in names:
            if name.endswith(".rs") or name in ("Cargo.toml", "Cargo.lock"):
                path = Path(folder, name)
                found.append((path.relative_to(root).as_posix(), path))
    return sorted(found)


def checked_hash(root: Path = CRATES) -> str:
    """``source_hash(root)``, read from a stamp in ``target/`` while no source file's size or mtime
    has changed since it was computed: the hash itself, FNV-1a over about 700 KB in Python, cost
    0.13 CPU-second of every command's start-up."""
    stats = [[rel, (st := path.stat()).st_size, st.st_mtime_ns] for rel, path in _source_files(root)]
    stamp = root / "target" / ".redo-native-source-stamp.json"
    try:
        saved = json.loads(stamp.read_text())
        if saved["stats"] == stats:
            return str(saved["hash"])
    except (OSError, ValueError, KeyError, TypeError):
        pass
    digest = source_hash(root)
    with contextlib.suppress(OSError):  # a read-only checkout: computed every time, as before
        stamp.parent.mkdir(exist_ok=True)
        stamp.write_text(json.dumps({"stats": stats, "hash": digest}))
    return digest


def load() -> ModuleType:
    """``redo_lib._native``, checked to be built from the sources beside it."""
    try:
        from redo_lib import _native
    except ImportError as exc:
        raise ImportError(
            f"redo_lib._native (the Rust core in crates/) is not built: run {BUILD_COMMAND}"
        ) from exc
    current = checked_hash() if CRATES.is_dir() else _native.SOURCE_HASH
    if current != _native.SOURCE_HASH:
        raise ImportError(
            f"redo_lib._native is stale: crates/ changed since it was built (built from "
            f"{_native.SOURCE_HASH}, sources are {current}): run {BUILD_COMMAND}"
        )
    return _native


if TYPE_CHECKING:
    # what load() returns, with the types of its stub (_native.pyi): a ModuleType would be Any to mypy
    from redo_lib import _native

    native = _native
else:
    native = load()
