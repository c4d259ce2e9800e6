-- rule 2: every change inside the capture scope reaches the trail. counts.json unsupported lists the
-- captured tables whose changes the decoder detected but cannot read (an encrypted tablespace, an
-- OLTP-compressed row image, HCC compression units, an index-organized table's index-leaf changes:
-- redo_lib/unsupported.py): they are not in the trail, so each table and kind is an offending row
-- naming the table, the count and the reason (docs/data-quality.md)
SELECT CAST(NULL AS BIGINT) AS trail_seq, CAST(NULL AS STRING) AS xid, problem, detail
FROM ($unsupported) AS offending
-- The rows come from counts.json, not from the trail: the cross join with the trail's record count
-- (always one row) reads the batch as GX asks of every query rule (its batch placeholder below),
-- without changing them; without it GX prints and logs a warning each time it builds the rule.
CROSS JOIN (SELECT count(*) AS records FROM {batch}) AS trail
