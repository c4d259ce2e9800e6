-- rule 2: every change inside the capture scope reaches the trail. counts.json unsupported lists the
-- captured tables whose changes the decoder detected but cannot read (an encrypted tablespace, an
-- OLTP-compressed row image, HCC compression units, an index-organized table's index-leaf changes:
-- redo_lib/unsupported.py): they are not in the trail, so each table and kind is an offending row
-- naming the table, the count and the reason (docs/data-quality.md)
SELECT CAST(NULL AS BIGINT) AS trail_seq, CAST(NULL AS STRING) AS xid, problem, detail
FROM ($unsupported)
