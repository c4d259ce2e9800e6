-- rule 11: an insert carries every column of its table as it was then: the declared list (for a
-- table without DDL in the batch), else the widest insert of the same table between the same DDL
-- records (a DDL changes the columns an insert must carry: docs/tables.md). $ddl_epoch numbers a
-- record's place among its table's DDL records (a projection: the batch's few DDL positions are
-- written into it, so no join or shuffle is added)
SELECT trail_seq, xid, 'insert without every column of its table' AS problem,
       to_json(named_struct('source_table', source_table, 'missing_columns', missing_columns)) AS detail
FROM (
  SELECT i.trail_seq, i.xid, i.source_table, array_except(e.names, i.names) AS missing_columns
  FROM (
    SELECT trail_seq, xid, $source_table AS source_table, array_distinct(names) AS names,
           $ddl_epoch AS epoch
    FROM {batch}
    WHERE op = 'INSERT'
  ) AS i
  JOIN (
    SELECT w.source_table, w.epoch,
           CASE WHEN w.source_table IN ($ddl_tables) THEN w.names ELSE coalesce(d.names, w.names) END
             AS names
    FROM (
      SELECT $source_table AS source_table, $ddl_epoch AS epoch,
             max_by(array_distinct(names), size(array_distinct(names))) AS names
      FROM {batch}
      WHERE op = 'INSERT'
      GROUP BY 1, 2
    ) AS w
    LEFT JOIN ($declared_columns) AS d ON d.source_table = w.source_table
  ) AS e ON e.source_table = i.source_table AND e.epoch = i.epoch
) AS checked
WHERE size(missing_columns) > 0
