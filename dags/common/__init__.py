"""What the DAG files share: the repository paths, the default task arguments and the start date.

Not a DAG folder (listed in ``dags/.airflowignore``); the DAG files import it as ``common`` because
Airflow puts the DAG folder (the bundle path) on ``sys.path``. Nothing here touches the network,
Variables or Connections, and nothing imports pyspark, great_expectations, boto3 or redo_lib.
"""

from __future__ import annotations

import datetime as dt
import os
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
SPARK_JOBS = REPO / "spark_jobs"
START_DATE = dt.datetime(2026, 1, 1, tzinfo=dt.UTC)
# the discovery DAG's cron schedule; read when the file is parsed (an environment variable, never an
# Airflow Variable or a connection at parse time)
DISCOVERY_SCHEDULE = os.environ.get("REDOTRAIL_DISCOVERY_SCHEDULE") or "*/5 * * * *"

DEFAULT_ARGS = {
    "owner": "redotrail",
    "retries": 2,
    "retry_delay": dt.timedelta(minutes=1),
}
