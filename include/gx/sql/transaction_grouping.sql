-- rule 7: the records of a transaction are contiguous, in redo order (SCN never goes back)
WITH ranges AS (
  SELECT xid, count(*) AS records, min(trail_seq) AS first_seq, max(trail_seq) AS last_seq
  FROM {batch}
  GROUP BY xid
),
steps AS (
  SELECT trail_seq, xid, scn, rba, lag(scn) OVER w AS previous_scn, lag(rba) OVER w AS previous_rba
  FROM {batch}
  WINDOW w AS (PARTITION BY xid ORDER BY trail_seq)
)
SELECT first_seq AS trail_seq, xid, 'transaction not contiguous' AS problem,
       to_json(named_struct('records', records, 'first_trail_seq', first_seq, 'last_trail_seq', last_seq))
         AS detail
FROM ranges
WHERE last_seq - first_seq + 1 != records
UNION ALL
SELECT trail_seq, xid, 'record before an earlier change of its transaction',
       to_json(named_struct('scn', scn, 'rba', rba, 'previous_scn', previous_scn,
               'previous_rba', previous_rba))
FROM steps
WHERE scn < previous_scn
