"""A throw-away Airflow installation for DAG tests: temporary AIRFLOW_HOME, SQLite, no examples.

Used as a plugin (``pytest_plugins = ["tests.dags.airflow_home"]``). Parsing DAG files needs no
metadata database, so ``airflow db migrate`` is not run. The ``parse_dag`` fixture parses one file the
way the dag processor does (a ``BundleDagBag`` whose bundle is ``dags/``, so ``common`` is importable).
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parents[2]
DAGS = REPO / "dags"


def airflow_environment(home: Path) -> dict[str, str]:
    return {
        "AIRFLOW_HOME": str(home),
        "AIRFLOW__CORE__LOAD_EXAMPLES": "False",
        "AIRFLOW__CORE__DAGS_FOLDER": str(DAGS),
        "AIRFLOW__DATABASE__SQL_ALCHEMY_CONN": f"sqlite:///{home / 'airflow.db'}",
        "AIRFLOW__CORE__PARALLELISM": "4",
    }


@pytest.fixture(scope="session")
def airflow_env(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, str]]:
    env = airflow_environment(tmp_path_factory.mktemp("airflow-home"))
    with pytest.MonkeyPatch.context() as mp:
        for key, value in env.items():
            mp.setenv(key, value)
        yield env


@pytest.fixture(scope="session")
def parse_dag(airflow_env: dict[str, str]) -> Callable[[Path], Any]:
    return _parse_dag_file


def _parse_dag_file(path: Path) -> Any:
    """A ``BundleDagBag`` of one DAG file (the DAG folder is taken off ``sys.path`` again)."""
    from airflow.dag_processing.dagbag import BundleDagBag

    added = str(DAGS) not in sys.path
    try:
        return BundleDagBag(dag_folder=str(path), bundle_path=DAGS, bundle_name="dags-folder")
    finally:
        if added and str(DAGS) in sys.path:
            sys.path.remove(str(DAGS))
