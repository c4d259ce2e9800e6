-- rule 7: the records of a transaction are contiguous, in redo order (SCN never goes back); a
-- transaction's range and its records' neighbours: include/gx/features.sql
SELECT first_seq AS trail_seq, xid, 'transaction not contiguous' AS problem,
       to_json(named_struct('records', records, 'first_trail_seq', first_seq, 'last_trail_seq', last_seq))
         AS detail
FROM {batch}
WHERE position = 1 AND last_seq - first_seq + 1 != records
UNION ALL
SELECT trail_seq, xid, 'record before an earlier change of its transaction',
       to_json(named_struct('scn', scn, 'rba', rba, 'previous_scn', previous_scn,
               'previous_rba', previous_rba))
FROM {batch}
WHERE scn < previous_scn
