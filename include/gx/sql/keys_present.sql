-- rule 12: updates and deletes carry their key columns (a PK update: the old key in its before
-- image, the new key in its image; its before record (B, rule 10) holds the old key in its image)
SELECT trail_seq, xid,
       CASE WHEN coalesce(size(key_columns), 0) = 0 THEN 'no key columns'
            ELSE 'key columns missing from the image' END AS problem,
       to_json(named_struct('op', op, 'source_table', source_table, 'key_columns', key_columns,
               'missing_keys', missing_keys, 'missing_before_keys', missing_before_keys)) AS detail
FROM (
  SELECT trail_seq, xid, op, $source_table AS source_table, key_columns,
         filter(key_columns, k -> NOT array_contains(names, k)) AS missing_keys,
         filter(key_columns, k -> op = 'PK_UPDATE' AND before_after = 'A'
                                 AND NOT array_contains(before_names, k))
           AS missing_before_keys
  FROM {batch}
  WHERE op IN ('UPDATE', 'DELETE', 'PK_UPDATE')
) AS keyed
WHERE coalesce(size(key_columns), 0) = 0
   OR coalesce(size(missing_keys), 0) > 0
   OR coalesce(size(missing_before_keys), 0) > 0
