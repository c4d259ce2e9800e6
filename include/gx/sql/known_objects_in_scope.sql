-- rule 2: every change inside the capture scope reaches the trail. counts.json unknown_in_scope lists
-- the objects the dictionary does not know that were created after its export (numbered above its
-- max_object_id) by DDL the batch did not show: their changes may belong to a captured table and are
-- not in the trail, so each such object is an offending row (docs/data-quality.md)
SELECT CAST(NULL AS BIGINT) AS trail_seq, CAST(NULL AS STRING) AS xid, problem, detail
FROM ($unknown_in_scope) AS offending
-- The rows come from counts.json, not from the trail: the cross join with the trail's record count
-- (always one row) reads the batch as GX asks of every query rule (its batch placeholder below),
-- without changing them; without it GX prints and logs a warning each time it builds the rule.
CROSS JOIN (SELECT count(*) AS records FROM {batch}) AS trail
