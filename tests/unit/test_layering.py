"""The import rules of redo_lib (style.md §6.2): data flows one way, and the library stays pure.

Each module's imports are read with ``ast`` and checked against the layer table below.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PKG = Path(__file__).resolve().parents[2] / "redo_lib"

# package (first path component under redo_lib) -> layer; "side" packages are checked separately.
LAYERS = {
    "errors": 0,
    "scn": 0,
    "report": 0,
    # the Rust core (crates/): the compiled module and its loader; at run time it imports only
    # redo_lib.errors, so every layer may use it
    "_native": 0,
    "native": 0,
    "format": 1,
    "values": 1,
    "dump": 2,
    "dictionary": 2,
    "assembly": 3,
    "trail": 4,
    # Db2 LOB manager records (records, strings, writer: format level) and their assembler (lobs:
    # assembly level) form one package, and the table is keyed by package: it sits at the layer of
    # its highest stage. It imports layer 0 only; nothing in layers 0-3 may import it.
    "db2": 3,
    "storage": 0,  # side: may import layer 0 only, and nothing in layers 1-4 imports it
    "pipeline": 9,
    "windows": 9,  # the I/O loop of the core's range calls (pipeline's and stats'), lean: no pyarrow
    "discovery": 9,
    "batches": 9,
    "batch_dictionary": 9,
    "exchange": 9,
    "worker": 9,  # a Spark Python worker's task start: stdlib only
    "lob_carry": 9,
    "unsupported": 4,  # the unsupported-storage report: reads the dictionary only
    "embedded": 9,
    "cluster": 9,
    "status": 9,
    "progress": 9,
    "reports": 9,
    "synth": 9,
    "cli": 9,
    "demo": 9,
    "__main__": 9,
    "__init__": 9,
}
FORBIDDEN = ("pyspark", "airflow", "great_expectations")


def _modules() -> list[Path]:
    return sorted(p for p in PKG.rglob("*.py") if "__pycache__" not in p.parts)


def _package_of(path: Path) -> str:
    rel = path.relative_to(PKG)
    return rel.parts[0].removesuffix(".py")


def _imports(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(), filename=str(path))
    names: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.extend(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.append(node.module)
    return names


@pytest.mark.parametrize("path", _modules(), ids=lambda p: str(p.relative_to(PKG)))
def test_module_imports_only_upstream_layers(path: Path) -> None:
    own = _package_of(path)
    own_layer = LAYERS.get(own)
    assert own_layer is not None, f"{own} is not in the layer table of test_layering.py"
    for name in _imports(path):
        top = name.split(".")[0]
        assert top not in FORBIDDEN, f"{path.name} imports {name}: redo_lib must stay free of {top}"
        if top != "redo_lib" or name == "redo_lib":
            continue
        target = name.split(".")[1]
        if target == own:
            continue
        target_layer = LAYERS.get(target)
        assert target_layer is not None, f"{path.name} imports unknown package {name}"
        if target == "storage":
            assert own_layer == 9, f"{path.name} (layer {own_layer}) must not import storage ({name})"
            continue
        if own == "storage":
            assert target_layer == 0, f"storage may import layer 0 only, not {name}"
            continue
        assert target_layer <= own_layer and (target_layer < own_layer or own_layer == 0 or own_layer == 9), (
            f"{path.relative_to(PKG)} (layer {own_layer}) imports {name} (layer {target_layer})"
        )
