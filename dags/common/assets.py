"""The assets the pipeline publishes: the changelog table and the mirror tables (one per source table).

Logical names, independent of where the warehouse is (``REDOTRAIL_WAREHOUSE``): a DAG scheduled on
these assets runs after every batch that ``redo_pipeline`` publishes. The ``x-`` URI scheme marks
them as private: Airflow then skips its provider URI normalizers, whose discovery would import the
Amazon provider's S3 hook, and with it boto3, at parse time.
"""

from __future__ import annotations

from airflow.sdk import Asset

CHANGELOG = Asset(name="redotrail.changelog", uri="x-redotrail://lakehouse/changelog", group="redotrail")
MIRRORS = Asset(name="redotrail.mirrors", uri="x-redotrail://lakehouse/mirrors", group="redotrail")

PUBLISHED = [CHANGELOG, MIRRORS]
