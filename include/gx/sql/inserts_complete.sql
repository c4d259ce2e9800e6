-- rule 11: an insert carries every column of its table (the declared list, else the table's
-- widest insert in the batch)
WITH ins AS (
  SELECT trail_seq, xid, $source_table AS source_table,
         array_distinct(transform(columns, c -> c.name)) AS names
  FROM {batch}
  WHERE op = 'INSERT'
),
widest AS (
  SELECT source_table, max_by(names, size(names)) AS names FROM ins GROUP BY source_table
),
declared AS ($declared_columns),
expected AS (
  SELECT w.source_table, coalesce(d.names, w.names) AS names
  FROM widest AS w LEFT JOIN declared AS d ON d.source_table = w.source_table
),
checked AS (
  SELECT i.trail_seq, i.xid, i.source_table, array_except(e.names, i.names) AS missing_columns
  FROM ins AS i JOIN expected AS e ON e.source_table = i.source_table
)
SELECT trail_seq, xid, 'insert without every column of its table' AS problem,
       to_json(named_struct('source_table', source_table, 'missing_columns', missing_columns)) AS detail
FROM checked
WHERE size(missing_columns) > 0
