-- rule 12: updates and deletes carry their key columns (a PK update: the old key in its before
-- image, the new key in its image; its before record (B, rule 10) holds the old key in its image).
-- An update whose redo holds not all of its table's key (minimal supplemental logging) is keyed by
-- its ROWID instead (docs/tables.md, "Supplemental logging"): no key columns, its rowid; counts.json
-- rowid_keyed says how many per table, and the trail holds exactly that many
SELECT trail_seq, xid,
       CASE WHEN coalesce(size(key_columns), 0) > 0 THEN 'key columns missing from the image'
            WHEN op = 'DELETE' THEN 'no key columns'
            ELSE 'no key columns and no ROWID' END AS problem,
       to_json(named_struct('op', op, 'source_table', source_table, 'key_columns', key_columns,
               'missing_keys', missing_keys, 'missing_before_keys', missing_before_keys)) AS detail
FROM (
  SELECT trail_seq, xid, op, $source_table AS source_table, key_columns, rowid,
         filter(key_columns, k -> NOT array_contains(names, k)) AS missing_keys,
         filter(key_columns, k -> op = 'PK_UPDATE' AND before_after = 'A'
                                 AND NOT array_contains(before_names, k))
           AS missing_before_keys
  FROM {batch}
  WHERE op IN ('UPDATE', 'DELETE', 'PK_UPDATE')
) AS keyed
WHERE (coalesce(size(key_columns), 0) = 0 AND (op = 'DELETE' OR rowid IS NULL))
   OR coalesce(size(missing_keys), 0) > 0
   OR coalesce(size(missing_before_keys), 0) > 0
UNION ALL
SELECT CAST(NULL AS BIGINT) AS trail_seq, CAST(NULL AS STRING) AS xid,
       'records keyed by ROWID differ from counts.json rowid_keyed' AS problem,
       to_json(named_struct('source_table', coalesce(a.source_table, c.source_table),
               'trail_records', coalesce(a.records, 0), 'rowid_keyed', coalesce(c.rowid_keyed, 0))) AS detail
FROM (
  SELECT $source_table AS source_table, count(*) AS records
  FROM {batch}
  WHERE op IN ('UPDATE', 'PK_UPDATE') AND before_after = 'A' AND coalesce(size(key_columns), 0) = 0
  GROUP BY 1
) AS a
FULL OUTER JOIN (
  SELECT source_table, sum(rowid_keyed) AS rowid_keyed FROM ($counts) AS counted
  WHERE op = 'UPDATE' AND rowid_keyed > 0 GROUP BY source_table
) AS c ON a.source_table = c.source_table
WHERE coalesce(a.records, 0) != coalesce(c.rowid_keyed, 0)
