-- rule 11: with the image option full-deletes ($full_deletes: the manifest's images) a delete
-- carries every column of its table (the declared list, else the widest insert of the table in the
-- batch), not only its key. The one column it may lack is an out-of-row LOB, whose old value the
-- redo does not hold: as many as counts.json counts (lobs.lob_before_values_not_in_redo,
-- $lob_before_omitted); more missing columns than that fail every delete that lacks one.
SELECT trail_seq, xid, 'full delete without every column of its table' AS problem,
       to_json(named_struct('source_table', source_table, 'missing_columns', missing_columns,
               'lob_before_values_not_in_redo', $lob_before_omitted)) AS detail
FROM (
  SELECT x.trail_seq, x.xid, x.source_table, array_except(e.names, x.names) AS missing_columns,
         sum(size(array_except(e.names, x.names))) OVER () AS missing_in_batch
  FROM (
    SELECT trail_seq, xid, $source_table AS source_table, array_distinct(names) AS names
    FROM {batch}
    WHERE op = 'DELETE' AND $full_deletes
  ) AS x
  JOIN (
    SELECT coalesce(d.source_table, w.source_table) AS source_table, coalesce(d.names, w.names) AS names
    FROM ($declared_columns) AS d
    FULL OUTER JOIN (
      SELECT $source_table AS source_table,
             max_by(array_distinct(names), size(array_distinct(names))) AS names
      FROM {batch}
      WHERE op = 'INSERT' AND $full_deletes
      GROUP BY 1
    ) AS w ON d.source_table = w.source_table
  ) AS e ON e.source_table = x.source_table
  WHERE size(array_except(e.names, x.names)) > 0
) AS checked
WHERE missing_in_batch > $lob_before_omitted
