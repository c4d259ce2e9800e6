"""Redotrail's pure library: Oracle archived redo bytes -> records -> row changes -> trail records.

No Spark, Airflow or Great Expectations imports anywhere under this package.
"""

__version__ = "0.1.0"
