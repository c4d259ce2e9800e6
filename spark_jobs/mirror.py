"""Mirror tables: a batch's trail records applied, in commit order, to the current rows of each source
table. Table logic only (keys, images, order); nothing here knows about Oracle or redo.

A mirror row holds the table's columns as the trail renders them (strings, SQL NULL as null) plus
``_rowid``, ``_commit_scn`` and ``_batch_id`` of the change that last wrote it; its key is the
record's ``key_columns``. Per key, the batch's changes are folded in ``trail_seq`` order over the row
the mirror already holds (joined for the affected keys only): an insert sets the whole row, an update
merges its columns over the row, a delete removes it, a PK update removes the old key and writes the
merged row under the new key. Keys linked by PK updates are folded together (one group per table),
every other key on its own, on the executors: a partition's groups one after another in one
``mapInArrow`` call (``fold_partition``, folded by the Rust core's ``MirrorFold``).

The result of ``fold`` has one row per touched key: ``op`` ``U`` (``columns`` = the whole new row)
or ``D`` (``key_values`` = the key), and ``partial`` when an update found no row to merge over (the
mirror started after the row was written), so the row holds only the columns the trail carried.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

PAIRS = "array<struct<name:string,value:string>>"
META_COLUMNS = ("_rowid", "_commit_scn", "_batch_id")
# OWNER.TABLE of a record (no owner: the bare name), as counts.json and the mirror names tables
SOURCE_TABLE = "CASE WHEN coalesce(owner, '') = '' THEN `table` ELSE concat(owner, '.', `table`) END"
APPLIED = "op IN ('INSERT', 'UPDATE', 'DELETE', 'PK_UPDATE') AND (op = 'DELETE' OR before_after = 'A')"


def _key_expr(image: str) -> str:
    """The key of an image as JSON text: the values of ``key_columns`` in order (null when absent)."""
    return f"to_json(transform(key_columns, k -> try_element_at(map_from_entries({image}), k)))"


def renamed(
    trail: Any, epochs: Mapping[str, Sequence[tuple[int, Mapping[str, str]]]],
    keys: Mapping[str, Sequence[str]] | None = None,
) -> Any:  # fmt: skip
    """The records with their column names (images, key columns) brought to their table's last shape:
    per table, ``(commit SCN, {old: new})`` pairs (``redo_lib.trail.lineage.name_epochs``) map the
    names of the records committed before that SCN (and at or after the previous one's); a column
    mapped to ``""`` was dropped and leaves the image. ``keys``: per table whose shape DDL changed, its
    key after the batch, which every record of it is keyed by (a table keyed on all its columns gains
    a key column with each ADD: a row written before it has NULL there, as the mirror holds it)."""
    from pyspark.sql import functions as F

    if keys:
        cases = " ".join(
            f"WHEN ({SOURCE_TABLE}) = {_literal(source)} THEN array({', '.join(_literal(k) for k in key)})"
            for source, key in sorted(keys.items())
            if key
        )
        if cases:
            trail = trail.withColumn("key_columns", F.expr(f"CASE {cases} ELSE key_columns END"))
    if not any(epochs.values()):
        return trail

    def literal_map(mapping: Mapping[str, str]) -> str:
        pairs = ", ".join(f"{_literal(k)}, {_literal(v)}" for k, v in sorted(mapping.items()))
        return f"map({pairs})" if pairs else "map()"

    cases = []
    for source, steps in sorted(epochs.items()):
        for scn, mapping in steps:
            cases.append(f"WHEN ({SOURCE_TABLE}) = {_literal(source)} AND commit_scn < {int(scn)} "
                         f"THEN {literal_map(mapping)}")  # fmt: skip
    names = F.expr("CASE " + " ".join(cases) + " ELSE CAST(map() AS map<string,string>) END")

    def image(column: str) -> Any:  # name/value pairs
        return F.expr(
            f"filter(transform({column}, p -> named_struct('name', coalesce(try_element_at(_names, p.name), "
            f"p.name), 'value', p.value)), p -> p.name != '')"
        )

    def listed(column: str) -> Any:  # a list of names
        return F.expr(
            f"filter(transform({column}, k -> coalesce(try_element_at(_names, k), k)), k -> k != '')"
        )

    return (
        trail.withColumn("_names", names)
        .withColumn("columns", image("columns"))
        .withColumn("before", image("before"))
        .withColumn("changed_columns", listed("changed_columns"))
        .withColumn("key_columns", listed("key_columns"))
        .drop("_names")
    )


def changes(
    trail: Any, epochs: Mapping[str, Sequence[tuple[int, Mapping[str, str]]]] | None = None,
    keys: Mapping[str, Sequence[str]] | None = None,
) -> Any:  # fmt: skip
    """The records that change rows, with their table, key and (PK updates) old key; ``epochs`` and
    ``keys``: the renames, drops and keys after the batch's DDL (``renamed``)."""
    from pyspark.sql import functions as F

    return renamed(trail.where(APPLIED), epochs or {}, keys).select(
        F.expr(SOURCE_TABLE).alias("source_table"),
        F.expr(_key_expr("columns")).alias("key"),
        F.expr(f"CASE WHEN op = 'PK_UPDATE' THEN {_key_expr('before')} END").alias("old_key"),
        "op", "trail_seq", "columns", "before", "key_columns", "rowid", "commit_scn", "batch_id",
    )  # fmt: skip


def key_columns(frame: Any) -> dict[str, list[str]]:
    """Per source table of the changes, its key columns (one small Spark job; a change keyed by its
    ROWID names none: ``by_rowid`` gives it its table's)."""
    rows = frame.where("size(key_columns) > 0").select("source_table", "key_columns").distinct().collect()
    return {r["source_table"]: list(r["key_columns"] or ()) for r in sorted(rows, key=lambda r: r[0])}


# an update keyed by its ROWID: its redo held not all of its table's key (minimal supplemental
# logging, docs/tables.md): no key columns
ROWID_KEYED = "coalesce(size(key_columns), 0) = 0 AND op IN ('UPDATE', 'PK_UPDATE')"
# such an update found the key of its row (a delete before it leaves "": no row)
FOUND = "found IS NOT NULL AND found != ''"


@dataclass(frozen=True)
class RowidKeys:
    """What ``by_rowid`` did, per source table: changes keyed by ROWID given the key of the row at
    that ROWID (``resolved``), and those whose row neither the batch nor the mirror knows
    (``unresolved``: left out of the mirror, kept by the changelog; the examples name their ROWIDs)."""

    resolved: Mapping[str, int]
    unresolved: Mapping[str, int]
    examples: Mapping[str, Sequence[str]]

    def of(self, source: str) -> dict[str, Any]:
        """One table's part, as PUBLISHED reports it (empty: none keyed by ROWID)."""
        out: dict[str, Any] = {}
        if source in self.resolved:
            out["resolved"] = self.resolved[source]
        if source in self.unresolved:
            out["unresolved"] = self.unresolved[source]
            out["examples"] = list(self.examples.get(source, ()))
        return out


def by_rowid(
    changed: Any, keys: Mapping[str, Sequence[str]], mirrors: Mapping[str, Any]
) -> tuple[Any, RowidKeys]:
    """The changes (``changes()``) with each update keyed by its ROWID keyed by its table's key
    (``keys``: per source table): the key of the row at that ROWID is the one the last change before
    it (commit order) wrote there (an insert, an update, a key update keyed by ROWID before it), else
    the one of the mirror's row whose ``_rowid`` it is (``mirrors``: per source table, its DataFrame;
    the rows written before the batch). A key update keyed by ROWID changes the key columns the redo
    held and keeps the others. A change whose row is unknown (deleted before it, or older than the
    mirror) is left out and counted. A resolved change's image (and a key update's before image) is
    given its key's values first, as a keyed change's holds them (the fold names a key's values from
    its first change's image)."""
    from pyspark.sql import Window
    from pyspark.sql import functions as F

    keyed_by_rowid = changed.where(ROWID_KEYED)
    tables = sorted(r[0] for r in keyed_by_rowid.select("source_table").distinct().collect())
    if not tables:
        return changed, RowidKeys({}, {}, {})
    missing = [t for t in tables if not keys.get(t)]
    if missing:
        raise ValueError(f"updates keyed by ROWID in {missing}: the dictionary gives no key for these tables")
    rowids = keyed_by_rowid.select("source_table", "rowid").distinct()
    # the key each event leaves at its ROWID: a change's own (a delete: none, ""), a mirror row's
    events = [
        changed.where(f"NOT ({ROWID_KEYED}) AND rowid IS NOT NULL")
        .join(rowids, ["source_table", "rowid"], "left_semi")
        .select(
            "source_table",
            "rowid",
            "commit_scn",
            "trail_seq",
            "batch_id",
            F.expr("CASE WHEN op = 'DELETE' THEN '' ELSE key END").alias("leaves"),
        )  # fmt: skip
    ]
    for source in tables:
        table = mirrors.get(source)
        if table is None or "_rowid" not in table.columns:
            continue
        held = table.join(rowids.where(F.col("source_table") == source), F.col("_rowid") == F.col("rowid"),
                          "left_semi")  # fmt: skip
        events.append(held.select(
            F.lit(source).alias("source_table"), F.col("_rowid").alias("rowid"),
            F.lit(-1).cast("bigint").alias("commit_scn"), F.lit(-1).cast("bigint").alias("trail_seq"),
            F.lit(None).cast("string").alias("batch_id"),
            F.to_json(F.array(*(_held_text(table, k) for k in keys[source]))).alias("leaves"),
        ))  # fmt: skip
    key_cases = " ".join(
        f"WHEN source_table = {_literal(t)} THEN array({', '.join(_literal(k) for k in keys[t])})"
        for t in tables
    )
    pending = keyed_by_rowid.withColumn("key_columns", F.expr(f"CASE {key_cases} END"))
    # the key a change keyed by ROWID leaves: its held key columns over the key it found
    after = ("to_json(transform(key_columns, (k, i) -> CASE WHEN array_contains(transform(columns, p -> p.name), k) "
             "THEN element_at(map_from_entries(columns), k) ELSE from_json(found, 'array<string>')[i] END))")  # fmt: skip
    # a change's own row before what it leaves (``_mine`` first): it finds what came before it only
    order = Window.partitionBy("source_table", "rowid").orderBy(
        "commit_scn", "trail_seq", "batch_id", F.col("_mine").desc()
    )
    # each round resolves one more key update keyed by ROWID of a ROWID (a chain of them: rare)
    rounds = 1 + (
        keyed_by_rowid.where("op = 'PK_UPDATE'")
        .groupBy("source_table", "rowid")
        .count()
        .agg(F.max("count"))
        .first()[0]
        or 0
    )
    for n in range(rounds):
        # after the first round, what the changes keyed by ROWID found leaves for the ones after them
        leaves = [
            pending.select("source_table", "rowid", "commit_scn", "trail_seq", "batch_id",
                           F.expr(f"CASE WHEN {FOUND} THEN {after} END").alias("leaves"))
        ] if n else []  # fmt: skip
        timeline = functools.reduce(lambda a, b: a.unionByName(b), [*events, *leaves])
        mine = pending.select("source_table", "rowid", "commit_scn", "trail_seq", "batch_id",
                              F.lit(True).alias("_mine"))  # fmt: skip
        stamped = (
            timeline.withColumn("_mine", F.lit(False))
            .unionByName(mine.withColumn("leaves", F.lit(None).cast("string")))
            .withColumn("found", F.last("leaves", ignorenulls=True).over(order.rowsBetween(Window.unboundedPreceding, -1)))
            .where("_mine")
            .select("source_table", "rowid", "commit_scn", "trail_seq", "batch_id", "found")
        )  # fmt: skip
        pending = pending.drop("found").join(
            stamped, ["source_table", "rowid", "commit_scn", "trail_seq", "batch_id"], "left"
        )
    pending = pending.localCheckpoint(eager=True)
    resolved = pending.where(FOUND)
    counts: dict[str, list[int]] = {}
    examples: dict[str, list[str]] = {}
    for row in pending.groupBy("source_table", F.expr(FOUND).alias("ok")).agg(
        F.count("*").alias("n"), F.slice(F.sort_array(F.collect_set("rowid")), 1, 5).alias("rowids")
    ).collect():  # fmt: skip
        counts.setdefault(row["source_table"], [0, 0])[0 if row["ok"] else 1] += row["n"]
        if not row["ok"]:
            examples[row["source_table"]] = list(row["rowids"])

    def with_key(image: str, key: str) -> Any:  # the key's values first, then the image's others
        return F.expr(
            f"concat(transform(key_columns, (k, i) -> named_struct('name', k, 'value', "
            f"from_json({key}, 'array<string>')[i])), filter({image}, p -> NOT array_contains(key_columns, p.name)))"
        ).cast(PAIRS)

    # the key in the images too: the fold names a key's values from its first change's image, and a
    # row it finds no row for (partial) holds them
    keyed = resolved.withColumn("key", F.expr(after)).select(
        "source_table", "key", F.expr("CASE WHEN op = 'PK_UPDATE' THEN found END").alias("old_key"),
        "op", "trail_seq", with_key("columns", "key").alias("columns"),
        F.when(F.col("op") == "PK_UPDATE", with_key("before", "found")).otherwise(F.col("before")).alias("before"),
        "key_columns", "rowid", "commit_scn", "batch_id",
    )  # fmt: skip
    report = RowidKeys(
        resolved={t: c[0] for t, c in sorted(counts.items()) if c[0]},
        unresolved={t: c[1] for t, c in sorted(counts.items()) if c[1]},
        examples=examples,
    )
    return changed.where(f"NOT ({ROWID_KEYED})").unionByName(keyed), report


def affected_keys(frame: Any, source_table: str, key_columns: Sequence[str]) -> Any:
    """The keys one table's changes touch (old keys of PK updates included), as a DataFrame with one
    column per key column (``_k0``, ``_k1``, ...); it stays on the executors."""
    from pyspark.sql import functions as F

    keys = (
        frame.where(F.col("source_table") == source_table)
        .select(F.explode(F.array("key", "old_key")).alias("k"))
        .where("k IS NOT NULL")
        .distinct()
        .select(F.from_json("k", "array<string>").alias("k"))
    )
    return keys.select(*(F.col("k")[i].alias(f"_k{i}") for i in range(len(key_columns))))


def _held_text(table: Any, name: str) -> Any:
    """A mirror column's value as the trail's text (``as_text``); a column the mirror does not have
    yet (added by the batch's DDL) is NULL in its rows."""
    from pyspark.sql import functions as F

    if name not in table.columns:
        return F.lit(None).cast("string")
    kind = next(f.dataType.simpleString() for f in table.schema.fields if f.name == name)
    return as_text(F.col("`" + name.replace("`", "``") + "`"), kind)


def existing_rows(table: Any, source_table: str, key_columns: Sequence[str], keys: Any) -> Any:
    """The rows a mirror (a DataFrame of the table) holds for these keys (``affected_keys``), as
    pseudo-records the fold starts from: a join, the mirror is never read into one process."""
    from pyspark.sql import functions as F

    def column(name: str) -> Any:
        # a key column the mirror does not have yet (added by the batch's DDL) is NULL in its rows
        return (
            F.col("`" + name.replace("`", "``") + "`")
            if name in table.columns
            else F.lit(None).cast("string")
        )

    match = [column(k).eqNullSafe(F.col(f"_k{i}")) for i, k in enumerate(key_columns)]
    held = table.join(keys, match, "left_semi")
    data = [c for c in table.columns if c not in META_COLUMNS]
    image = F.array(*(F.struct(F.lit(c).alias("name"), _held_text(table, c).alias("value")) for c in data))
    frame = held.select(image.cast(PAIRS).alias("columns"))
    frame = frame.withColumn("key_columns", F.array(*(F.lit(k) for k in key_columns)))
    return frame.select(
        F.lit(source_table).alias("source_table"), F.expr(_key_expr("columns")).alias("key"),
        F.lit(None).cast("string").alias("old_key"), F.lit("EXISTING").alias("op"),
        F.lit(-1).cast("bigint").alias("trail_seq"), "columns", F.lit(None).cast(PAIRS).alias("before"),
        "key_columns", F.lit(None).cast("string").alias("rowid"),
        F.lit(None).cast("bigint").alias("commit_scn"), F.lit(None).cast("string").alias("batch_id"),
    )  # fmt: skip


def fold(changed: Any, existing: Iterable[Any] = ()) -> Any:
    """Fold the batch's changes (``changes()``) over the existing rows; one row per touched key."""
    from pyspark.sql import functions as F

    records = changed
    for frame in existing:
        records = records.unionByName(frame)
    chained = (
        changed.where("op = 'PK_UPDATE'")
        .select("source_table", F.explode(F.array("key", "old_key")).alias("key"))
        .distinct()
        .withColumn("chained", F.lit(True))
    )
    grouped = records.join(chained, ["source_table", "key"], "left").withColumn(
        "group", F.when(F.col("chained"), F.lit("*")).otherwise(F.col("key"))
    )
    # one Python call per partition, not per group: a batch touches up to millions of keys, and
    # applyInArrow's per-group hand-over doubled publish's time (docs/benchmarks.md)
    keys = ["source_table", "group"]
    return (
        grouped.drop("chained")
        .repartition(*keys)
        .sortWithinPartitions(*keys)
        .mapInArrow(fold_partition, fold_schema())
    )


def fold_schema() -> Any:
    """The folded rows' Spark schema: the Arrow schema the core writes (``fold_arrow_schema``),
    converted, so that the two cannot drift apart."""
    from pyspark.sql.pandas.types import from_arrow_schema

    return from_arrow_schema(fold_arrow_schema())


def fold_arrow_schema() -> Any:
    """What ``fold_partition`` yields: one row per touched key (``redo_core::mirror``)."""
    import pyarrow as pa

    from redo_lib.native import native

    return pa.schema(native.fold_schema())


def fold_partition(batches: Iterable[Any]) -> Iterator[Any]:
    """Executor side: a partition's records sorted by (source_table, group), each group's run folded
    whole in the Rust core (``redo_lib._native.MirrorFold``: a group may span record batches).

    The fold was Python until issue 16's last step: 50 task-seconds of the 1 GB batch's publish,
    about 20 µs a change, building dicts (docs/benchmarks.md)."""
    import pyarrow as pa

    from redo_lib.native import native
    from redo_lib.worker import task_start

    task_start()  # as the stages' tasks (spark_jobs.common.carry_errors)
    folder = native.MirrorFold()
    for batch in batches:
        # as an IPC stream, not through the C Data Interface: the JVM's Arrow writer leaves an empty
        # string array's offsets buffer empty (feed_ipc's comment); two copies of the batch, memcpys
        sink = pa.BufferOutputStream()
        with pa.ipc.new_stream(sink, batch.schema) as writer:
            writer.write_batch(batch)
        for out in folder.feed_ipc(sink.getvalue().to_pybytes()):
            yield pa.record_batch(out)
    for out in folder.finish():
        yield pa.record_batch(out)


def fold_group(table: Any) -> Any:
    """The fold of an Arrow table of one group's records (no ``group`` column: the whole table is
    one group), as an Arrow table."""
    import pyarrow as pa

    from redo_lib.native import native

    folder = native.MirrorFold()
    out = [pa.record_batch(b) for batch in table.to_batches() for b in folder.feed(batch)]
    out += [pa.record_batch(b) for b in folder.finish()]
    return pa.Table.from_batches(out, schema=fold_arrow_schema())


def table_columns(folded: Any, known: dict[str, Sequence[str]]) -> dict[str, list[str]]:
    """Per table, the mirror's data columns: the ones it has, then new ones in the order the batch
    shows them (one Spark job for every table)."""
    from pyspark.sql import functions as F

    image = F.when(F.col("op") == "U", F.col("columns")).otherwise(F.col("key_values"))
    rows = (
        folded.select("source_table", F.posexplode(image))
        .groupBy("source_table", F.col("col.name").alias("name"))
        .agg(F.min("pos").alias("pos"))
        .collect()
    )
    out = {source: list(names) for source, names in known.items()}
    for row in sorted(rows, key=lambda r: (r["source_table"], r["pos"], r["name"])):
        names = out.setdefault(row["source_table"], [])
        if row["name"] not in names:
            names.append(row["name"])
    return out


def wide(
    folded: Any, source_table: str, columns: Sequence[str], *, with_deletes: bool,
    types: Mapping[str, str] | None = None,
) -> Any:  # fmt: skip
    """One table's folded rows in the mirror's shape (plus ``_op`` when deletes are kept), each column
    of ``types`` (``redo_lib.trail.types``) converted from the trail's text (``typed``), and
    ``UNFIT``: the values that did not fit their column's type (column, rule, text), left NULL."""
    from pyspark.sql import functions as F

    types = types or {}
    rows = folded.where(F.col("source_table") == source_table)
    if not with_deletes:
        rows = rows.where("op = 'U'")
    image = F.expr("map_from_entries(CASE WHEN op = 'U' THEN columns ELSE key_values END)")
    rows = rows.withColumn("_image", image)
    text = {c: F.expr(f"try_element_at(_image, {_literal(c)})") for c in columns}
    out, unfit = [], []
    for c in columns:
        value, rule = typed(text[c], types.get(c, "string"))
        out.append(value.alias(c))
        if rule is not None:
            unfit.append(F.when(rule.isNotNull(), F.struct(F.lit(c).alias("column"), rule.alias("rule"),
                                                           text[c].alias("value"))))  # fmt: skip
    out += [
        F.col("rowid").alias("_rowid"),
        F.col("commit_scn").alias("_commit_scn"),
        F.col("batch_id").alias("_batch_id"),
    ]
    if with_deletes:
        out.append(F.col("op").alias("_op"))
    problems = F.filter(F.array(*unfit), lambda x: x.isNotNull()) if unfit else F.array()
    return rows.select(*out, problems.cast(UNFIT_TYPE).alias(UNFIT))


# -- column types ---------------------------------------------------------------------------------
# The trail's text of a value (redo_lib.values) -> the mirror column's type, and back. A value that
# does not fit is never rounded or truncated: it becomes NULL and its rule names why (counted by
# publish, reported in PUBLISHED). The changelog keeps the text.

UNFIT = "_unfit"
UNFIT_TYPE = "array<struct<column:string,rule:string,value:string>>"
_FRACTION = r"(\.[0-9]{1,9})?"
_DATETIME = r"^[0-9]{4}-[0-9]{2}-[0-9]{2}[T ][0-9]{2}:[0-9]{2}:[0-9]{2}" + _FRACTION
_SPECIAL_FLOATS = {"Inf": "Infinity", "-Inf": "-Infinity", "Nan": "NaN", "~": "Infinity", "-~": "-Infinity"}


def typed(text: Any, sql_type: str) -> tuple[Any, Any]:
    """(the value as ``sql_type``, the rule it breaks or NULL) for a text column; rule None: any
    text fits (strings)."""
    import re

    from pyspark.sql import functions as F

    def rule_if(cond: Any, name: str, otherwise: Any = None) -> Any:
        out = F.when(text.isNotNull() & cond, F.lit(name))
        return out if otherwise is None else out.otherwise(otherwise)

    decimal = re.fullmatch(r"decimal\((\d+),(\d+)\)", sql_type)
    if sql_type == "string":
        return text, None
    if decimal or sql_type == "bigint":
        precision, scale = (int(decimal[1]), int(decimal[2])) if decimal else (18, 0)
        whole = f"(0|[1-9][0-9]{{0,{precision - scale - 1}}})" if precision > scale else "0"
        fraction = f"(\\.[0-9]{{1,{scale}}})?" if scale else ""
        fits = text.rlike(f"^-?{whole}{fraction}$")
        rule = rule_if(text.isin("~", "-~"), "number_infinite", rule_if(~fits, "number_out_of_range"))
        return F.when(rule.isNull(), text.cast(sql_type)), rule
    if sql_type in ("double", "float"):
        special = F.coalesce(F.element_at(F.create_map(*(F.lit(x) for kv in _SPECIAL_FLOATS.items() for x in kv)),
                                          text), text)  # fmt: skip
        value = special.try_cast(sql_type)
        return value, rule_if(value.isNull(), "not_a_number")
    if sql_type in ("timestamp_ntz", "timestamp"):
        # the zone of TIMESTAMP WITH TIME ZONE / LOCAL: an offset, Z, or Z with its region id
        zone = r"([+-][0-9]{2}:[0-9]{2}|Z)?( \[TZ region [0-9]+\])?$"
        bare = F.regexp_replace(text, r" \[TZ region [0-9]+\]$", "")
        micro = F.regexp_replace(bare, r"(\.[0-9]{6})[0-9]+", "$1")
        value = micro.try_cast(sql_type)
        rule = rule_if(~text.rlike(_DATETIME + zone), "datetime_out_of_range",
                       rule_if(text.rlike(r"\.[0-9]{6}[0-9]*[1-9]"), "fraction_below_microsecond",
                               rule_if(value.isNull(), "datetime_out_of_range")))  # fmt: skip
        return F.when(rule.isNull(), value), rule
    if sql_type == "binary":
        rule = rule_if(~text.rlike("^([0-9A-Fa-f]{2})*$"), "not_hex")
        return F.when(rule.isNull(), F.unhex(text)), rule
    if sql_type == "boolean":
        rule = rule_if(~text.isin("TRUE", "FALSE"), "not_a_boolean")
        return F.when(rule.isNull(), text == F.lit("TRUE")), rule
    raise ValueError(f"no conversion from the trail's text to {sql_type}")


def as_text(column: Any, sql_type: str) -> Any:
    """A mirror column's value as text ``typed`` reads back to the same value (existing rows enter the
    fold as text)."""
    from pyspark.sql import functions as F

    if sql_type == "string":
        return column
    if sql_type == "binary":
        return F.hex(column)
    if sql_type == "timestamp_ntz":
        return F.date_format(column, "yyyy-MM-dd'T'HH:mm:ss.SSSSSS")
    if sql_type == "timestamp":  # the session's offset: the same instant whatever the zone
        return F.date_format(column, "yyyy-MM-dd'T'HH:mm:ss.SSSSSSXXX")
    if sql_type == "boolean":
        return F.when(column, F.lit("TRUE")).when(~column, F.lit("FALSE"))
    if sql_type.startswith("decimal"):
        # plain notation, no trailing zeros of the scale (Oracle's text form)
        plain = column.cast("string")
        return F.regexp_replace(F.regexp_replace(plain, r"(\.[0-9]*?)0+$", "$1"), r"\.$", "")
    return column.cast("string")


def _literal(text: str) -> str:
    return "'" + text.replace("\\", "\\\\").replace("'", "\\'") + "'"
