"""Shared test configuration: repository paths, the real-data location, and markers by folder.

Tests read ../shared/realdata and ../shared/seeds in place (never copied into the repository).
"""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

# py4j logs "Closing down clientserver connection" at interpreter exit, after pytest has closed its
# streams, which prints a "--- Logging error ---" traceback under the summary line: keep it quiet.
logging.getLogger("py4j").setLevel(logging.WARNING)

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared"
REALDATA = SHARED / "realdata"
SEEDS = SHARED / "seeds"

_FOLDER_MARKERS = {"unit": "unit", "integration": "integration", "dags": "airflow", "fuzz": "unit"}


# The order files run in: the folders whose files take minutes first (the end-to-end run, the cluster
# profile, Airflow in a browser, the Spark stages), then the many files of seconds. Under two
# pytest-xdist workers (./redotrail test) the short files fill in behind the long ones instead of a
# long one starting last and running alone.
_FOLDER_ORDER = ("integration", "browser", "spark")


def _run_order(item: pytest.Item) -> int:
    folder = Path(str(item.fspath)).resolve().relative_to(REPO / "tests").parts[0]
    return _FOLDER_ORDER.index(folder) if folder in _FOLDER_ORDER else len(_FOLDER_ORDER)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    items.sort(key=_run_order)  # stable: within a folder, collection order
    for item in items:
        rel = Path(str(item.fspath)).resolve().relative_to(REPO / "tests")
        marker = _FOLDER_MARKERS.get(rel.parts[0])
        if marker:
            item.add_marker(getattr(pytest.mark, marker))
        if item.get_closest_marker("realdata") and not REALDATA.is_dir():
            item.add_marker(pytest.mark.skip(reason=f"real data not found at {REALDATA}"))


@pytest.fixture(scope="session")
def realdata() -> Path:
    if not REALDATA.is_dir():
        pytest.skip(f"real data not found at {REALDATA}")
    return REALDATA


@pytest.fixture(scope="session")
def seeds() -> Path:
    if not SEEDS.is_dir():
        pytest.skip(f"seed documents not found at {SEEDS}")
    return SEEDS
