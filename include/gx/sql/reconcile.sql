-- rule 2: counts.json per table and operation against the trail: its trail count equals the
-- records, and decoded (+ carried in) = trail + cancelled (+ out of scope + unknown in scope +
-- unsupported + orphaned + carried out; unknown objects in scope fail known_objects_in_scope instead,
-- unsupported changes in scope unsupported_changes)
SELECT CAST(NULL AS BIGINT) AS trail_seq, CAST(NULL AS STRING) AS xid,
       CASE WHEN trail_records != counts_trail THEN 'counts.json trail count differs from the trail'
            ELSE 'decoded != trail + cancelled' END AS problem,
       to_json(named_struct('source_table', source_table, 'op', op, 'trail_records', trail_records,
               'counts_trail', counts_trail, 'decoded', decoded, 'cancelled', cancelled,
               'elsewhere', elsewhere)) AS detail
FROM (
  SELECT coalesce(a.source_table, c.source_table) AS source_table,
         coalesce(a.op, c.op) AS op,
         coalesce(a.records, 0) AS trail_records,
         coalesce(c.trail, 0) AS counts_trail,
         coalesce(c.decoded, 0) + coalesce(c.carried_in, 0) AS decoded,
         coalesce(c.cancelled, 0) AS cancelled,
         coalesce(c.out_of_scope, 0) + coalesce(c.unknown_in_scope_ops, 0) + coalesce(c.orphaned, 0)
           + coalesce(c.carried_out, 0) + coalesce(c.unsupported_ops, 0) AS elsewhere
  FROM (
    SELECT $source_table AS source_table,
           CASE op WHEN 'PK_UPDATE' THEN 'UPDATE' ELSE op END AS op,
           count(*) AS records
    FROM {batch}
    -- DDL is no row change (checked by ddl_records); an update's before record is not one either
    WHERE op != 'DDL' AND (before_after = 'A' OR op = 'DELETE')
    GROUP BY 1, 2
  ) AS a
  FULL OUTER JOIN ($counts) AS c ON a.source_table = c.source_table AND a.op = c.op
) AS joined
WHERE trail_records != counts_trail OR decoded != trail_records + cancelled + elsewhere
