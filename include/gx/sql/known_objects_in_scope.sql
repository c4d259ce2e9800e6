-- rule 2: every change inside the capture scope reaches the trail. counts.json unknown_in_scope lists
-- the objects the dictionary does not know that were created after its export (numbered above its
-- max_object_id) by DDL the batch did not show: their changes may belong to a captured table and are
-- not in the trail, so each such object is an offending row (docs/data-quality.md)
SELECT CAST(NULL AS BIGINT) AS trail_seq, CAST(NULL AS STRING) AS xid, problem, detail
FROM ($unknown_in_scope)
