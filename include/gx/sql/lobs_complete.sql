-- rule 17: LOB values are complete: every LOB column a record describes (lob_columns) has its value
-- in the record's image, and counts.json reports no LOB value the assembly could not resolve (such a
-- value is its locator's hex, not the LOB: docs/lobs.md)
SELECT trail_seq, xid, 'LOB column described but not in the image' AS problem,
       to_json(named_struct('lob_columns', lob_columns)) AS detail
FROM {batch}
WHERE lob_columns IS NOT NULL AND exists(lob_columns, l -> NOT array_contains(names, l.column))
UNION ALL
SELECT CAST(NULL AS BIGINT) AS trail_seq, CAST(NULL AS STRING) AS xid, problem, detail
FROM ($lob_issues)
