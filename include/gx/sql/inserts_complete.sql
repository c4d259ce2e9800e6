-- rule 11: an insert carries every column of its table as it was then: the declared list (for a
-- table without DDL in the batch), else the widest insert of the same table between the same DDL
-- records (a DDL changes the columns an insert must carry: docs/tables.md). $ddl_epoch numbers a
-- record's place among its table's DDL records (a projection: the batch's few DDL positions are
-- written into it, so no join or shuffle is added)
WITH ins AS (
  SELECT trail_seq, xid, $source_table AS source_table,
         array_distinct(names) AS names, $ddl_epoch AS epoch
  FROM {batch}
  WHERE op = 'INSERT'
),
widest AS (
  SELECT source_table, epoch, max_by(names, size(names)) AS names FROM ins GROUP BY source_table, epoch
),
declared AS ($declared_columns),
expected AS (
  SELECT w.source_table, w.epoch,
         CASE WHEN w.source_table IN ($ddl_tables) THEN w.names ELSE coalesce(d.names, w.names) END AS names
  FROM widest AS w LEFT JOIN declared AS d ON d.source_table = w.source_table
),
checked AS (
  SELECT i.trail_seq, i.xid, i.source_table, array_except(e.names, i.names) AS missing_columns
  FROM ins AS i JOIN expected AS e ON e.source_table = i.source_table AND e.epoch = i.epoch
)
SELECT trail_seq, xid, 'insert without every column of its table' AS problem,
       to_json(named_struct('source_table', source_table, 'missing_columns', missing_columns)) AS detail
FROM checked
WHERE size(missing_columns) > 0
