"""Publish's replay: a batch folded with the changes and DDL published after it.

A batch that is not the newest one published (a backfill, a re-run of an older batch) is folded over
mirror rows that already hold later changes. Its fold must end where the later history ended:

* the later row changes of its keys come from the changelog (``replayed_changes``);
* the later TRUNCATE and DROP / TRUNCATE PARTITION of its tables have no row changes to replay:
  what each removed is in its batch's ``PUBLISHED`` report (``truncated_at_scn``,
  ``partitions_removed`` with the ROWID prefixes), which ``later_ddl`` reads for the batches whose
  DDL records the changelog holds from this batch's lowest commit SCN on (``published_after``, the
  changelog slice both read). ``apply_later_ddl`` then leaves out the changes before a later
  TRUNCATE and puts a delete at each later partition cut for the keys whose row was in it
  (``partition_removals``, the function the cut's own batch used).

A later DDL batch whose ``PUBLISHED`` cannot be read is named in a note (its cuts are not known, the
rows they removed may come back), never skipped silently.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from redo_lib.trail.lineage import PartitionCut
from spark_jobs import mirror
from spark_jobs.tables import CHANGELOG, Ownership, Store

__all__ = [
    "LaterDdl", "apply_later_ddl", "later_ddl", "partition_removals", "published_after", "replayed_changes",
]  # fmt: skip


def published_after(store: Store, owned: Ownership, batch_id: str, floor: int | None) -> Any:
    """The changelog's rows committed at ``floor`` (the batch's lowest commit SCN) or above that
    this publish does not replace (its own rows, those it owns: ``Ownership``); None when there is
    no changelog or no floor (a batch without changes)."""
    from pyspark.sql import functions as F

    changelog = store.frame(CHANGELOG)
    if floor is None or changelog is None:
        return None
    replaced = F.coalesce(F.col("batch_id") == batch_id, F.lit(False)) | owned.condition()
    return changelog.where((F.col("commit_scn") >= int(floor)) & ~replaced)


def replayed_changes(spark: Any, changed: Any, published: Any, keep: list[Any]) -> Any:
    """The changes published after this batch's first commit to the keys it touches (None if none).

    A batch that is not the newest one published (a backfill, a re-run of an older batch) is folded
    over mirror rows that already hold later changes. Applying the batch and then every later change
    of the same keys, in commit order, gives the state the mirror must hold: replaying a suffix of a
    key's history over the state it led to changes nothing (an insert or delete resets the row, an
    update sets the columns it carries to their last values). Later changes come from the changelog,
    read by Spark (``published``: every table's rows from the batch's lowest commit SCN on, other
    than the ones this publish replaces), with keys joined by primary-key updates followed to the
    end of their chain. Cached frames are added to ``keep`` (the caller unpersists them)."""
    from pyspark.sql import functions as F

    tables = [r[0] for r in changed.select("source_table").distinct().collect()]
    if published is None or not tables:
        return None
    pairs = [tuple(t.split(".", 1)) if "." in t else ("", t) for t in tables]
    wanted_tables = F.lit(False)
    for owner, table in pairs:
        wanted_tables = wanted_tables | (
            (F.coalesce(F.col("owner"), F.lit("")) == owner) & (F.col("table") == table)
        )
    later = mirror.changes(published.where(wanted_tables)).cache()
    keep.append(later)
    if later.isEmpty():
        return None
    keys = {(r[0], r[1]) for r in changed.select("source_table", "key").distinct().collect()}
    keys |= {
        (r[0], r[1]) for r in changed.where("old_key IS NOT NULL").select("source_table", "old_key").collect()
    }
    moves = later.where("op = 'PK_UPDATE'").select("source_table", "old_key", "key", "commit_scn").collect()
    for move in sorted(moves, key=lambda m: m["commit_scn"]):  # a key's chain of PK updates, in order
        if (move["source_table"], move["old_key"]) in keys:
            keys.add((move["source_table"], move["key"]))
    wanted = spark.createDataFrame(sorted(keys), "source_table string, key string")
    return (
        later.join(F.broadcast(wanted), ["source_table", "key"], "left_semi")
        .unionByName(
            later.join(
                F.broadcast(wanted.withColumnRenamed("key", "old_key")),
                ["source_table", "old_key"],
                "left_semi",
            )
        )
        .distinct()
    )


def partition_removals(
    changed: Any, table: Any, source: str, cuts: Sequence[PartitionCut], batch_id: str
) -> tuple[Any, list[dict[str, Any]]]:
    """The batch's changes with a delete at each DROP / TRUNCATE PARTITION for every key of
    ``source`` whose row was in that partition just before it: the key's last change before the
    DDL's commit SCN carries a ROWID of the partition's (``PartitionCut.prefixes``). The fold then
    applies the changes before the DDL, the delete, the ones after it, whatever partition each was
    in (a row that moved into the partition before the DDL goes; one that moved out stays). Rows
    the mirror holds that the batch does not touch go in the MERGE (``Store.commit_mirror``'s
    ``removed``). Per cut, what PUBLISHED reports, counted: ``held_rows``, the mirror's rows in the
    partition before the batch; ``batch_keys``, the keys the batch's own changes left in it before the
    DDL; ``ambiguous_rows_kept``, both kinds of rows that may or may not have been in it (a SPLIT's,
    ``PartitionCut.ambiguous``), left as they are."""
    from pyspark.sql import Window
    from pyspark.sql import functions as F

    reports = []
    for cut in cuts:
        report = cut.to_dict()
        mine = (F.col("source_table") == source) & (F.col("commit_scn") < cut.commit_scn)
        order = Window.partitionBy("key").orderBy(F.col("commit_scn").desc(), F.col("trail_seq").desc())
        last = changed.where(mine).withColumn("_n", F.row_number().over(order)).where("_n = 1").drop("_n")
        prefix = F.substring("rowid", 1, 6)
        gone = last.where(prefix.isin(list(cut.prefixes)) & (F.col("op") != "DELETE"))
        if cut.prefixes:
            deletes = gone.select(
                "source_table", "key", F.lit(None).cast("string").alias("old_key"), F.lit("DELETE").alias("op"),
                F.lit(-1).cast("bigint").alias("trail_seq"), "columns", F.lit(None).cast(mirror.PAIRS).alias("before"),
                "key_columns", F.lit(None).cast("string").alias("rowid"),
                F.lit(cut.commit_scn).cast("bigint").alias("commit_scn"), F.lit(batch_id).alias("batch_id"),
            )  # fmt: skip
            report["batch_keys"] = deletes.count()
            changed = changed.unionByName(deletes)
        held = (
            table.where(F.col("_commit_scn") < cut.commit_scn).select(F.substring("_rowid", 1, 6).alias("p"))
            if table is not None
            else None
        )
        if held is not None and cut.prefixes:
            report["held_rows"] = held.where(F.col("p").isin(list(cut.prefixes))).count()
        if cut.ambiguous:
            kept = last.where(prefix.isin(list(cut.ambiguous)) & (F.col("op") != "DELETE")).count()
            if held is not None:
                kept += held.where(F.col("p").isin(list(cut.ambiguous))).count()
            report["ambiguous_rows_kept"] = kept
        reports.append(report)
    return changed, reports


@dataclass
class LaterDdl:
    """What the DDL of the batches published after this one did to one mirror (their PUBLISHED)."""

    truncated_at: int | None = None  # commit SCN of the last later TRUNCATE
    cuts: list[tuple[str, PartitionCut]] = field(default_factory=list)  # (batch id, cut) in commit order

    def report(self, removed: dict[PartitionCut, int]) -> list[dict[str, Any]]:
        """PUBLISHED's ``later_ddl`` entry of the mirror; ``removed``: per cut replayed, the keys it
        removed again (``batch_keys``)."""
        out = [{"ddl": "TRUNCATE", "commit_scn": self.truncated_at}] if self.truncated_at is not None else []
        return out + [
            {"batch_id": batch, **cut.to_dict(), **({"batch_keys": removed[cut]} if cut in removed else {})}
            for batch, cut in self.cuts
        ]


def later_ddl(
    published: Any, floor: int | None, batch: Any, sources: dict[str, str]
) -> tuple[dict[str, LaterDdl], list[str]]:
    """Per source table of ``sources`` (source -> mirror name), the TRUNCATE and partition cuts that
    batches other than this one published at commit SCNs from the batch's lowest one (``floor``) on:
    the batches of the DDL records in ``published`` (``published_after``), read from their
    ``PUBLISHED`` (``batch.sibling``); and notes naming the batches whose report is missing."""
    from pyspark.sql import functions as F

    if published is None or floor is None or batch is None:
        return {}, []
    rows = published.where(F.col("op") == "DDL")
    batches = sorted({r[0] for r in rows.select("batch_id").distinct().collect() if r[0]})
    mirrors = {name: source for source, name in sources.items()}
    found: dict[str, LaterDdl] = {}
    notes = []
    for later in batches:
        report = batch.sibling(later).read_json("PUBLISHED", default=None)
        if report is None:
            notes.append(f"batch {later} published DDL after this batch's first commit but "
                         f"{batch.sibling(later).uri_of('PUBLISHED')} is missing: a TRUNCATE or partition "
                         "cut of it is not replayed, the rows it removed may come back")  # fmt: skip
            continue
        for name, change in (report.get("schema_changes") or {}).items():
            if name not in mirrors:
                continue
            entry = found.setdefault(mirrors[name], LaterDdl())
            truncated = change.get("truncated_at_scn")
            if truncated is not None and truncated >= floor:
                entry.truncated_at = max(truncated, entry.truncated_at or 0)
            entry.cuts += [
                (later, PartitionCut.from_dict(cut)) for cut in change.get("partitions_removed") or ()
            ]
    for entry in found.values():
        entry.cuts.sort(key=lambda c: c[1].commit_scn)
    return {s: e for s, e in found.items() if e.truncated_at is not None or e.cuts}, notes


def apply_later_ddl(
    changed: Any, later: dict[str, LaterDdl], batch_id: str
) -> tuple[Any, dict[str, list[dict[str, Any]]]]:
    """The batch's changes and the later ones of its keys, ending as the later DDL left them: the
    changes before a later TRUNCATE left out (the mirror's rows already lost them), a delete at each
    later partition cut for the keys whose row was in the partition just before it. Per source, what
    PUBLISHED reports (``LaterDdl.report``, each cut with ``batch_keys``: the keys it removed again)."""
    from pyspark.sql import functions as F

    reports = {}
    for source, ddl in later.items():
        if ddl.truncated_at is not None:
            changed = changed.where(
                (F.col("source_table") != source) | (F.col("commit_scn") > ddl.truncated_at)
            )
        cuts = [cut for _, cut in ddl.cuts if cut.prefixes and cut.commit_scn > (ddl.truncated_at or 0)]
        counted: list[dict[str, Any]] = []
        if cuts:
            changed, counted = partition_removals(changed, None, source, cuts, batch_id)
        reports[source] = ddl.report({cut: c["batch_keys"] for cut, c in zip(cuts, counted, strict=True)})
    return changed, reports
