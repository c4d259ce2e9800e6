-- rule 9 (IOType 160): each DDL record carries its statement (OPERATION, OBJECT_TYPE, DDL_TEXT not
-- empty), names its object (owner, and for table DDL the table), is alone in its transaction
-- (TransInd 3) and has its position; counts.json's ddl_records equal the trail's DDL records per
-- object and verb; and counts.json lists no table DDL the dictionary could not follow (ddl_problems:
-- text not understood, or contradicting the dictionary), since rows after it would be shaped by a
-- guess (docs/tables.md). The statement's fields come from include/gx/features.sql (ddl_*).
SELECT trail_seq, xid,
       CASE WHEN coalesce(ddl_text, '') = '' THEN 'DDL record without its statement text'
            WHEN coalesce(ddl_operation, '') = '' OR ddl_object_type IS NULL
              THEN 'DDL record without its verb or object type'
            WHEN coalesce(owner, '') = '' OR (ddl_object_type = 'TABLE' AND coalesce(`table`, '') = '')
              THEN 'DDL record without the object it is about'
            WHEN trans_ind != 3 THEN 'DDL record not alone in its transaction'
            ELSE 'DDL record without its position' END AS problem,
       to_json(named_struct('owner', owner, 'table', `table`, 'operation', ddl_operation,
               'object_type', ddl_object_type, 'ddl_text', ddl_text, 'trans_ind', trans_ind)) AS detail
FROM {batch}
WHERE (op = 'DDL' OR io_type = 160)
  AND (coalesce(ddl_text, '') = '' OR coalesce(ddl_operation, '') = '' OR ddl_object_type IS NULL
       OR coalesce(owner, '') = '' OR (ddl_object_type = 'TABLE' AND coalesce(`table`, '') = '')
       OR trans_ind != 3 OR rba IS NULL OR sequence IS NULL OR thread IS NULL)
UNION ALL
SELECT CAST(NULL AS BIGINT), CAST(NULL AS STRING), 'counts.json ddl_records differ from the trail',
       to_json(named_struct('source_table', source_table, 'operation', operation,
               'trail_records', trail_records, 'counts_records', counts_records))
FROM (
  SELECT coalesce(a.source_table, c.source_table) AS source_table,
         coalesce(a.operation, c.operation) AS operation,
         coalesce(a.records, 0) AS trail_records, coalesce(c.records, 0) AS counts_records
  FROM (
    SELECT concat(coalesce(owner, ''), '.', coalesce(`table`, '')) AS source_table,
           ddl_operation AS operation, count(*) AS records
    FROM {batch}
    WHERE op = 'DDL' OR io_type = 160
    GROUP BY 1, 2
  ) AS a
  FULL OUTER JOIN ($ddl_counts) AS c ON a.source_table = c.source_table AND a.operation = c.operation
) AS counted
WHERE trail_records != counts_records
UNION ALL
SELECT CAST(NULL AS BIGINT), CAST(NULL AS STRING), problem, detail
FROM ($ddl_problems)
