"""The Rust core (``crates/``, built into ``redo_lib._native`` by ``./redotrail setup``), loaded once.

Import the extension from here, never directly: a missing extension, or one built from other
sources than the checked-out ``crates/`` (a stale build), is an ``ImportError`` that names the
command that builds it. The staleness check compares the hash the extension was built with
(``crates/redo-py/build.rs``) with the same hash of the sources here; it runs only in a checkout
(an installed wheel has no ``crates/`` beside it).

Layer 0: imports nothing from redo_lib but the extension (which raises ``redo_lib.errors`` classes).
"""

from __future__ import annotations

from pathlib import Path
from types import ModuleType

CRATES = Path(__file__).resolve().parents[1] / "crates"
BUILD_COMMAND = "./redotrail setup"


def source_hash(root: Path = CRATES) -> str:
    """FNV-1a 64 over the sorted relative paths and contents of every ``*.rs``, ``Cargo.toml`` and
    ``Cargo.lock`` under ``crates/`` (outside ``target/`` and ``fuzz/``): the function of ``redo-py/build.rs``."""
    files = sorted(
        (p.relative_to(root).as_posix(), p)
        for p in root.rglob("*")
        if p.is_file()
        and (p.suffix == ".rs" or p.name in ("Cargo.toml", "Cargo.lock"))
        and not any(
            part in ("target", "fuzz") or part.startswith(".") for part in p.relative_to(root).parts[:-1]
        )
    )
    h = 0xCBF29CE484222325
    for rel, path in files:
        for chunk in (rel.encode(), b"\0", path.read_bytes(), b"\0"):
            for byte in chunk:
                h = ((h ^ byte) * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    return f"{h:016x}"


def load() -> ModuleType:
    """``redo_lib._native``, checked to be built from the sources beside it."""
    try:
        from redo_lib import _native
    except ImportError as exc:
        raise ImportError(
            f"redo_lib._native (the Rust core in crates/) is not built: run {BUILD_COMMAND}"
        ) from exc
    if CRATES.is_dir() and source_hash() != _native.SOURCE_HASH:
        raise ImportError(
            f"redo_lib._native is stale: crates/ changed since it was built (built from "
            f"{_native.SOURCE_HASH}, sources are {source_hash()}): run {BUILD_COMMAND}"
        )
    return _native


native = load()
